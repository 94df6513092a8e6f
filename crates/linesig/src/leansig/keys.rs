//! Key generation and signing (leanSig `GeneralizedXMSSSignatureScheme::{key_gen, sign}`),
//! for benchmarks and fixtures. Signatures verify under the reference and have its
//! byte layout; keys use our own randomness, so they are not the reference's bytes for
//! the reference's seed.
//!
//! The lifetime's 2^L epochs are the leaves of a tree of depth L, cut into a top tree
//! and 2^(L/2) bottom trees of 2^(L/2) leaves each. A key is active over whole bottom
//! trees (at least two) and keeps two of them *prepared* (built in full): it can sign
//! only inside the prepared interval, and [`SecretKey::advance_preparation`] slides it
//! by one bottom tree, as the reference's `advance_preparation` does.
//!
//! One signature per epoch: a key signs epochs in increasing order only, so it can never
//! sign two messages for one epoch (that would reveal chain values and allow forgeries).

use super::hash;
use super::lanes::{to_monty, KoalaLanes, P};
use super::ssz::{self, PublicKey, Signature};
use super::{Digest, Instance, Params, PARAMETER_LEN};
use crate::Backend;
use rand::{CryptoRng, RngCore};
use rayon::prelude::*;
use std::ops::Range;

mod file;
mod format;
pub use file::{crash_point, save_new, KeyFile, KeyFileError, KeyFileSignError};
pub use format::{KeyFormatError, SECRET_KEY_FORMAT_VERSION};

/// The reference's PRF domain separator (`shake_to_field.rs`).
const PRF_DOMAIN: [u8; 16] = [
    0xae, 0xae, 0x22, 0xff, 0x00, 0x01, 0xfa, 0xff, 0x21, 0xaf, 0x12, 0x00, 0x01, 0x11, 0xff, 0x00,
];
/// Tries of rho before signing gives up (the reference's `MAX_TRIES`).
const MAX_TRIES: u64 = 100_000;

#[derive(Debug, thiserror::Error, PartialEq, Eq)]
#[non_exhaustive]
pub enum KeyGenError {
    #[error("a key needs at least one active epoch")]
    NoEpochs,
    #[error("epochs {start}..{end} run past the lifetime of {lifetime} epochs")]
    PastLifetime { start: u64, end: u64, lifetime: u64 },
}

#[derive(Debug, thiserror::Error, PartialEq, Eq)]
#[non_exhaustive]
pub enum SignError {
    #[error("epoch {epoch} lies outside the key's active epochs {start}..{end}")]
    NotActive { epoch: u32, start: u64, end: u64 },
    #[error("epoch {epoch} lies outside the prepared epochs {start}..{end} (advance_preparation moves them)")]
    NotPrepared { epoch: u32, start: u64, end: u64 },
    #[error("epoch {epoch} is not after the last signed epoch: a key signs each epoch at most once, in order (next allowed: {next})")]
    EpochUsed { epoch: u32, next: u64 },
    #[error("no rho among {0} tries encodes the message")]
    EncodingAttemptsExceeded(u64),
}

/// One layer of a (sub)tree: nodes from position `start` on.
#[derive(Clone)]
struct Layer {
    start: u64,
    nodes: Vec<Digest>,
}

/// The layers of a subtree, lowest first.
#[derive(Clone)]
struct Tree {
    layers: Vec<Layer>,
}

impl Tree {
    fn root(&self) -> Digest {
        self.layers.last().expect("a tree has layers").nodes[0]
    }

    /// Siblings from `position` up to the layer below the root (the root's layer is
    /// padded too, so its length says nothing), stopping early at a single node.
    fn path(&self, position: u64) -> Vec<Digest> {
        let mut path = Vec::new();
        let mut position = position;
        for layer in &self.layers[..self.layers.len() - 1] {
            if layer.nodes.len() <= 1 {
                break;
            }
            path.push(layer.nodes[((position ^ 1) - layer.start) as usize]);
            position >>= 1;
        }
        path
    }
}

/// A leanSig secret key with its signing state.
pub struct SecretKey {
    instance: Instance,
    prf_key: [u8; 32],
    key: PublicKey,
    /// Active epochs, whole bottom trees.
    active: Range<u64>,
    top: Tree,
    left_index: u64,
    left: Tree,
    right: Tree,
    /// The lowest epoch this key may still sign.
    next_epoch: u64,
    /// The lanes its trees are built and its signatures searched on.
    backend: Backend,
}

impl std::fmt::Debug for SecretKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SecretKey")
            .field("instance", &self.instance)
            .field("active", &self.active)
            .field("prepared", &self.prepared_interval())
            .field("next_epoch", &self.next_epoch)
            .finish_non_exhaustive()
    }
}

fn random_element(rng: &mut (impl RngCore + CryptoRng)) -> u32 {
    loop {
        let x = rng.next_u32() & 0x7fff_ffff;
        if x < P {
            return to_monty(x);
        }
    }
}

fn random_digest(params: &Params, rng: &mut (impl RngCore + CryptoRng)) -> Digest {
    core::array::from_fn(|i| {
        if i < params.hash_len {
            random_element(rng)
        } else {
            0
        }
    })
}

/// SHAKE128 output read as 16-byte big-endian integers mod p, `count` of them.
fn prf_elements(input: &[u8], count: usize) -> [u32; 8] {
    let mut bytes = [0u8; 16 * 8];
    libcrux_sha3::shake128_ema(&mut bytes[..16 * count], input);
    core::array::from_fn(|i| {
        if i < count {
            let chunk: [u8; 16] = bytes[16 * i..16 * i + 16].try_into().expect("16 bytes");
            to_monty((u128::from_be_bytes(chunk) % P as u128) as u32)
        } else {
            0
        }
    })
}

/// The start of chain `chain` at `epoch`.
fn chain_start(params: &Params, prf_key: &[u8; 32], epoch: u32, chain: usize) -> Digest {
    let mut input = [0u8; 16 + 1 + 32 + 4 + 8];
    input[..16].copy_from_slice(&PRF_DOMAIN);
    input[16] = 0x00;
    input[17..49].copy_from_slice(prf_key);
    input[49..53].copy_from_slice(&epoch.to_be_bytes());
    input[53..].copy_from_slice(&(chain as u64).to_be_bytes());
    prf_elements(&input, params.hash_len)
}

/// The `attempt`-th rho for `message` at `epoch`.
fn rho(
    params: &Params,
    prf_key: &[u8; 32],
    epoch: u32,
    message: &[u8; 32],
    attempt: u64,
) -> [u32; 8] {
    let mut input = [0u8; 16 + 1 + 32 + 4 + 32 + 8];
    input[..16].copy_from_slice(&PRF_DOMAIN);
    input[16] = 0x01;
    input[17..49].copy_from_slice(prf_key);
    input[49..53].copy_from_slice(&epoch.to_be_bytes());
    input[53..85].copy_from_slice(message);
    input[85..].copy_from_slice(&attempt.to_be_bytes());
    prf_elements(&input, params.rand_len)
}

/// The signature's chain values: chain i walked x_i steps from its start, `L::N` chains
/// at a time (a lane that reached its x_i keeps stepping, unread).
fn sign_chains<L: KoalaLanes>(
    instance: Instance,
    prf_key: &[u8; 32],
    parameter: &[u32; PARAMETER_LEN],
    epoch: u32,
    x: &[u8],
) -> Vec<Digest> {
    let params = instance.params();
    let mut hashes = vec![[0u32; 8]; x.len()];
    for first in (0..x.len()).step_by(L::N) {
        let group: Vec<usize> = (first..x.len().min(first + L::N)).collect();
        let parameters = vec![*parameter; group.len()];
        let mut walk = hash::ChainWalk::<L>::new(params, &parameters, &vec![epoch; group.len()]);
        for (k, &chain) in group.iter().enumerate() {
            hashes[chain] = chain_start(params, prf_key, epoch, chain);
            walk.set(k, &hashes[chain]);
        }
        let steps = group.iter().map(|&c| x[c] as usize).max().unwrap_or(0);
        for pos in 1..=steps {
            walk.step(&group, &vec![pos; group.len()]);
            for (k, &chain) in group.iter().enumerate() {
                if x[chain] as usize == pos {
                    hashes[chain] = walk.get(k);
                }
            }
        }
    }
    hashes
}

/// The first rho (in the reference's attempt order) under which `message` encodes, and
/// its chain positions; `L::N` attempts per message-hash call.
fn search_rho<L: KoalaLanes>(
    instance: Instance,
    prf_key: &[u8; 32],
    parameter: &[u32; PARAMETER_LEN],
    epoch: u32,
    message: &[u8; 32],
) -> Option<([u32; 8], Vec<u8>)> {
    let params = instance.params();
    let message_elements = hash::message_elements(message);
    let mut attempt = 0;
    while attempt < MAX_TRIES {
        let count = (L::N as u64).min(MAX_TRIES - attempt);
        let rhos: Vec<[u32; 8]> = (attempt..attempt + count)
            .map(|a| rho(params, prf_key, epoch, message, a))
            .collect();
        let inputs: Vec<_> = rhos
            .iter()
            .map(|&r| (*parameter, epoch, r, message_elements))
            .collect();
        let digests = hash::message_hash::<L>(params, &inputs);
        for (r, digest) in rhos.iter().zip(&digests) {
            if let Some(x) = super::verify::encode(params, digest) {
                return Some((*r, x));
            }
        }
        attempt += count;
    }
    None
}

/// Leaves for `epochs` (at most `L::N`): every chain walked to its end, then the sponge.
fn leaves<L: KoalaLanes>(
    instance: Instance,
    prf_key: &[u8; 32],
    parameter: &[u32; PARAMETER_LEN],
    epochs: &[u32],
) -> Vec<Digest> {
    let params = instance.params();
    let mut ends: Vec<Vec<Digest>> = vec![Vec::with_capacity(params.dimension); epochs.len()];
    let parameters = vec![*parameter; epochs.len()];
    let mut walk = hash::ChainWalk::<L>::new(params, &parameters, epochs);
    let mut chains = vec![0; epochs.len()];
    for chain in 0..params.dimension {
        for (k, &epoch) in epochs.iter().enumerate() {
            walk.set(k, &chain_start(params, prf_key, epoch, chain));
        }
        chains.fill(chain);
        for pos in 1..params.base {
            walk.step(&chains, &vec![pos; epochs.len()]);
        }
        for (k, end) in ends.iter_mut().enumerate() {
            end.push(walk.get(k));
        }
    }
    hash::leaf::<L>(params, instance.capacity(), &parameters, epochs, &ends)[..epochs.len()]
        .to_vec()
}

/// The parents of `children` (a padded layer starting at `start`, even), `L::N` at a time.
fn parents<L: KoalaLanes>(
    params: &Params,
    parameter: &[u32; PARAMETER_LEN],
    level: usize,
    start: u64,
    children: &[Digest],
) -> Vec<Digest> {
    let parent_start = start >> 1;
    let pairs: Vec<(usize, &[Digest])> = children.chunks_exact(2).enumerate().collect();
    pairs
        .par_chunks(L::N)
        .flat_map_iter(|group| {
            let inputs: Vec<_> = group
                .iter()
                .map(|&(i, pair)| {
                    let tweak = hash::tree_tweak(level, (parent_start + i as u64) as u32);
                    (*parameter, tweak, pair[0], pair[1])
                })
                .collect();
            hash::tree_node::<L>(params, &inputs)[..group.len()].to_vec()
        })
        .collect()
}

/// A layer padded to start at an even and end at an odd position (random nodes), as the
/// reference's `HashTreeLayer::padded`.
fn padded(pad: &mut impl FnMut() -> Digest, start: u64, nodes: Vec<Digest>) -> Layer {
    let end = start + nodes.len() as u64 - 1;
    let mut out = Vec::with_capacity(nodes.len() + 2);
    let front = start & 1 == 1;
    if front {
        out.push(pad());
    }
    out.extend(nodes);
    if end & 1 == 0 {
        out.push(pad());
    }
    Layer {
        start: start - front as u64,
        nodes: out,
    }
}

/// Layers from `lowest` (nodes at `start`) up to the level `top`, padded.
fn build_tree<L: KoalaLanes>(
    params: &Params,
    parameter: &[u32; PARAMETER_LEN],
    pad: &mut impl FnMut() -> Digest,
    lowest: usize,
    top: usize,
    start: u64,
    nodes: Vec<Digest>,
) -> Tree {
    let mut layers = vec![padded(pad, start, nodes)];
    for level in lowest..top {
        let below = layers.last().expect("one layer");
        let up = parents::<L>(params, parameter, level + 1, below.start, &below.nodes);
        let up_start = below.start >> 1;
        layers.push(padded(pad, up_start, up));
    }
    Tree { layers }
}

fn bottom_tree<L: KoalaLanes>(
    instance: Instance,
    prf_key: &[u8; 32],
    parameter: &[u32; PARAMETER_LEN],
    index: u64,
) -> Tree {
    let params = instance.params();
    let half = params.log_lifetime / 2;
    let first = index << half;
    let epochs: Vec<u32> = (first..first + (1 << half)).map(|e| e as u32).collect();
    let leaves: Vec<Digest> = epochs
        .par_chunks(L::N)
        .flat_map_iter(|group| leaves::<L>(instance, prf_key, parameter, group))
        .collect();
    // 2^(L/2) leaves from a multiple of 2^(L/2): every layer below the root starts even
    // and ends odd, so none is padded.
    let mut no_padding = || unreachable!("full, aligned layers need no padding");
    let mut tree = build_tree::<L>(
        params,
        parameter,
        &mut no_padding,
        0,
        half - 1,
        first,
        leaves,
    );
    let last = tree.layers.last().expect("layers");
    let root = parents::<L>(params, parameter, half, last.start, &last.nodes)[0];
    tree.layers.push(Layer {
        start: index,
        nodes: vec![root],
    });
    tree
}

/// The bottom trees a key active over `start..start + count` epochs covers: whole
/// trees, at least two, inside the lifetime (the reference's `expand_activation_time`).
fn expand_activation(log_lifetime: usize, start: u64, count: u64) -> (u64, u64) {
    let lifetime = 1u64 << log_lifetime;
    let c = 1u64 << (log_lifetime / 2);
    let mut first = start & !(c - 1);
    let mut end = (start + count).div_ceil(c) * c;
    if end - first < 2 * c {
        end = first + 2 * c;
    }
    if end > lifetime {
        let duration = end - first;
        if duration > lifetime {
            first = 0;
            end = lifetime;
        } else {
            end = lifetime;
            first = (lifetime - duration) & !(c - 1);
        }
    }
    (first / c, end / c)
}

/// A key pair active over at least `count` epochs from `start` (rounded out to whole
/// bottom trees, at least two); returns the SSZ public key and the secret key. Runs on
/// `backend`'s lanes and the rayon pool.
pub fn key_gen(
    instance: Instance,
    backend: Backend,
    rng: &mut (impl RngCore + CryptoRng),
    start: u64,
    count: u64,
) -> Result<(Vec<u8>, SecretKey), KeyGenError> {
    key_gen_reporting(instance, backend, rng, start, count, &|_, _| {})
}

/// As [`key_gen`], calling `progress(done, total)` after each bottom tree is built
/// (`total` bottom trees in all; nearly all of key generation's time is theirs), so that
/// a long key generation can show how far it is.
pub fn key_gen_reporting(
    instance: Instance,
    backend: Backend,
    rng: &mut (impl RngCore + CryptoRng),
    start: u64,
    count: u64,
    progress: &dyn Fn(u64, u64),
) -> Result<(Vec<u8>, SecretKey), KeyGenError> {
    if count == 0 {
        return Err(KeyGenError::NoEpochs);
    }
    let lifetime = instance.lifetime();
    if start.checked_add(count).is_none_or(|end| end > lifetime) {
        return Err(KeyGenError::PastLifetime {
            start,
            end: start.saturating_add(count),
            lifetime,
        });
    }
    Ok(with_lanes!(backend, L => key_gen_on::<L>(instance, backend, rng, start, count, progress)))
}

fn key_gen_on<L: KoalaLanes>(
    instance: Instance,
    backend: Backend,
    rng: &mut (impl RngCore + CryptoRng),
    start: u64,
    count: u64,
    progress: &dyn Fn(u64, u64),
) -> (Vec<u8>, SecretKey) {
    let params = instance.params();
    let half = params.log_lifetime / 2;
    let (first_tree, end_tree) = expand_activation(params.log_lifetime, start, count);
    let parameter: [u32; PARAMETER_LEN] = core::array::from_fn(|_| random_element(rng));
    let mut prf_key = [0u8; 32];
    rng.fill_bytes(&mut prf_key);
    let trees = end_tree - first_tree;
    let left = bottom_tree::<L>(instance, &prf_key, &parameter, first_tree);
    progress(1, trees);
    let right = bottom_tree::<L>(instance, &prf_key, &parameter, first_tree + 1);
    progress(2, trees);
    let mut roots = vec![left.root(), right.root()];
    roots.extend((first_tree + 2..end_tree).map(|index| {
        let root = bottom_tree::<L>(instance, &prf_key, &parameter, index).root();
        progress(index - first_tree + 1, trees);
        root
    }));
    let mut pad = || random_digest(params, rng);
    let top = build_tree::<L>(
        params,
        &parameter,
        &mut pad,
        half,
        params.log_lifetime,
        first_tree,
        roots,
    );
    let key = PublicKey {
        root: top.root(),
        parameter,
    };
    let secret = SecretKey {
        instance,
        prf_key,
        key,
        active: (first_tree << half)..(end_tree << half),
        top,
        left_index: first_tree,
        left,
        right,
        next_epoch: first_tree << half,
        backend,
    };
    (ssz::encode_public_key(params, &key), secret)
}

impl SecretKey {
    pub fn instance(&self) -> Instance {
        self.instance
    }

    /// The SSZ public key.
    pub fn public_key(&self) -> Vec<u8> {
        ssz::encode_public_key(self.instance.params(), &self.key)
    }

    /// Epochs the key is active over (whole bottom trees).
    pub fn activation_interval(&self) -> Range<u64> {
        self.active.clone()
    }

    /// Epochs the key can sign now: its two prepared bottom trees.
    pub fn prepared_interval(&self) -> Range<u64> {
        let half = self.instance.params().log_lifetime / 2;
        (self.left_index << half)..((self.left_index + 2) << half)
    }

    /// The lowest epoch the key may still sign.
    pub fn next_epoch(&self) -> u64 {
        self.next_epoch
    }

    /// Slide the prepared interval by one bottom tree (building the next one on the
    /// lanes the key was made on), unless it would pass the end of the active interval;
    /// returns whether it moved.
    pub fn advance_preparation(&mut self) -> bool {
        let half = self.instance.params().log_lifetime / 2;
        if (self.left_index + 3) << half > self.active.end {
            return false;
        }
        let index = self.left_index + 2;
        let (instance, prf_key, parameter) = (self.instance, self.prf_key, self.key.parameter);
        let next =
            with_lanes!(self.backend, L => bottom_tree::<L>(instance, &prf_key, &parameter, index));
        self.left = std::mem::replace(&mut self.right, next);
        self.left_index += 1;
        true
    }

    /// Sign `message` at `epoch`: the SSZ signature. The epoch must be active, prepared
    /// and after every epoch this key signed before.
    pub fn sign(&mut self, epoch: u32, message: &[u8; 32]) -> Result<Vec<u8>, SignError> {
        let params = self.instance.params();
        let e = epoch as u64;
        if !self.active.contains(&e) {
            return Err(SignError::NotActive {
                epoch,
                start: self.active.start,
                end: self.active.end,
            });
        }
        let prepared = self.prepared_interval();
        if !prepared.contains(&e) {
            return Err(SignError::NotPrepared {
                epoch,
                start: prepared.start,
                end: prepared.end,
            });
        }
        if e < self.next_epoch {
            return Err(SignError::EpochUsed {
                epoch,
                next: self.next_epoch,
            });
        }
        let half = params.log_lifetime / 2;
        let bottom = if e >> half == self.left_index {
            &self.left
        } else {
            &self.right
        };
        let mut path = bottom.path(e);
        path.extend(self.top.path(e >> half));
        let (instance, prf_key, parameter) = (self.instance, self.prf_key, self.key.parameter);
        let found = with_lanes!(self.backend, L => search_rho::<L>(instance, &prf_key, &parameter, epoch, message));
        let (rho, x) = found.ok_or(SignError::EncodingAttemptsExceeded(MAX_TRIES))?;
        let hashes = with_lanes!(self.backend, L => sign_chains::<L>(instance, &prf_key, &parameter, epoch, &x));
        // Burn the epoch before the signature leaves.
        self.next_epoch = e + 1;
        Ok(ssz::encode_signature(
            params,
            &Signature { rho, path, hashes },
        ))
    }
}
