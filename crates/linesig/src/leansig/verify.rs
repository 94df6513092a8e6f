//! Verification of up to N signatures at once, one per lane (leanSig
//! `GeneralizedXMSSSignatureScheme::verify`):
//!
//! 1. x = encode(parameter, message, rho, epoch), or reject;
//! 2. walk chain i from position x_i to w − 1 (w − 1 − x_i steps);
//! 3. leaf = sponge(parameter, tree tweak (0, epoch), chain ends);
//! 4. climb the co-path with tree tweaks (level l + 1, position >> 1) and compare the
//!    result with the root.
//!
//! Every valid signature takes the same number of chain steps, v(w − 1) − TARGET_SUM,
//! spread differently over its chains; so step s of every lane runs in one permutation
//! call, each lane at its own chain and position. A lane whose encoding failed idles
//! (its verdict is already known); the others are unaffected.

use super::hash::{self, MAX_LANES};
use super::lanes::KoalaLanes;
use super::ssz::{PublicKey, Signature};
use super::{Digest, MessageEncoding, Params};
use crate::verdict::Reject;

/// A signature that decoded: everything verification needs, elements in Montgomery form.
pub struct Decoded {
    pub key: PublicKey,
    pub epoch: u32,
    pub message: [u8; 32],
    pub signature: Signature,
}

/// The chain positions x_i of a message, if the encoding succeeds.
pub fn encode(params: &Params, hash: &[u32]) -> Option<Vec<u8>> {
    let digits = match params.encoding {
        MessageEncoding::Aborting { q, z } => {
            let w = params.base as u64;
            let bound = q as u64 * w.pow(z as u32);
            let mut digits = Vec::with_capacity(params.dimension);
            for &a in &hash[..params.dimension.div_ceil(z)] {
                if a as u64 >= bound {
                    return None;
                }
                let mut d = a as u64 / q as u64;
                for _ in 0..z.min(params.dimension - digits.len()) {
                    digits.push((d % w) as u8);
                    d /= w;
                }
            }
            digits
        }
        MessageEncoding::TopLevel { final_layer } => {
            super::hypercube::encode(hash, params.dimension, final_layer, params.target_sum)?
        }
    };
    let sum: usize = digits.iter().map(|&d| d as usize).sum();
    (sum == params.target_sum).then_some(digits)
}

/// Verify `items` (at most `L::N`) on lanes `L`; one result per item.
pub fn verify_lanes<L: KoalaLanes>(
    params: &Params,
    capacity: &[u32; super::CAPACITY],
    items: &[Decoded],
) -> Vec<Result<(), Reject>> {
    let n = items.len();
    assert!(n <= L::N && L::N <= MAX_LANES);
    let hashes = hash::message_hash::<L>(
        params,
        &items
            .iter()
            .map(|d| {
                (
                    d.key.parameter,
                    d.epoch,
                    d.signature.rho,
                    hash::message_elements(&d.message),
                )
            })
            .collect::<Vec<_>>(),
    );
    let digits: Vec<Option<Vec<u8>>> = hashes.iter().map(|h| encode(params, h)).collect();

    // Each lane's chain steps in order: (chain, position the step reaches).
    let top = params.base - 1;
    let schedules: Vec<Vec<(usize, usize)>> = digits
        .iter()
        .map(|x| match x {
            None => Vec::new(),
            Some(x) => x
                .iter()
                .enumerate()
                .flat_map(|(i, &xi)| (xi as usize + 1..=top).map(move |pos| (i, pos)))
                .collect(),
        })
        .collect();
    let mut ends: Vec<Vec<Digest>> = items.iter().map(|d| d.signature.hashes.clone()).collect();
    let steps = schedules.iter().map(Vec::len).max().unwrap_or(0);
    let parameters: Vec<_> = items.iter().map(|d| d.key.parameter).collect();
    let epochs: Vec<_> = items.iter().map(|d| d.epoch).collect();
    let mut walk = hash::ChainWalk::<L>::new(params, &parameters, &epochs);
    let mut chains = vec![0; n];
    let mut positions = vec![0; n];
    for s in 0..steps {
        for k in 0..n {
            if let Some(&(chain, pos)) = schedules[k].get(s) {
                let x = digits[k].as_ref().expect("scheduled")[chain] as usize;
                if pos == x + 1 {
                    walk.set(k, &items[k].signature.hashes[chain]);
                }
                (chains[k], positions[k]) = (chain, pos);
            }
        }
        walk.step(&chains, &positions);
        for k in 0..n {
            if let Some(&(chain, pos)) = schedules[k].get(s) {
                if pos == top {
                    ends[k][chain] = walk.get(k);
                }
            }
        }
    }

    let mut node = hash::leaf::<L>(params, capacity, &parameters, &epochs, &ends);
    for level in 0..params.log_lifetime {
        let inputs: Vec<_> = items
            .iter()
            .enumerate()
            .map(|(k, d)| {
                let position = d.epoch >> level;
                let sibling = d.signature.path[level];
                let (left, right) = if position & 1 == 0 {
                    (node[k], sibling)
                } else {
                    (sibling, node[k])
                };
                let tweak = hash::tree_tweak(level + 1, position >> 1);
                (d.key.parameter, tweak, left, right)
            })
            .collect();
        node = hash::tree_node::<L>(params, &inputs);
    }
    (0..n)
        .map(|k| {
            if digits[k].is_some() && node[k] == items[k].key.root {
                Ok(())
            } else {
                Err(Reject::EquationFailed)
            }
        })
        .collect()
}
