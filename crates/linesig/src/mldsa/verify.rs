//! linesig's own ML-DSA.Verify (FIPS 204 Algorithms 3 and 8), generic over the NTT
//! [`Lanes`], with the expanded public keys that the cross-batch key cache holds.
//!
//! A key expands once into Â (ExpandA, about half of a cold verification), NTT(t1·2^d)
//! and tr = H(pk); a verification then costs SampleInBall, l + 1 NTTs, k·(l + 1)
//! pointwise products, k NTT⁻¹, UseHint and two SHAKE256 calls. The checks run in the
//! order libcrux runs them, so every rejection carries the same reason: the hint
//! encoding, then ‖z‖∞ < γ1 − β, then the commitment hash.

use super::arith::Q;
use super::encoding::{decode_hints, decode_t1_shifted, decode_z, encode_w1};
use super::keccak::{shake256_lanes, KeccakLanes};
use super::lanes::{inverse_ntt, ntt, reduce, row_product_minus, Lanes, Poly};
use super::sample::{expand_a, sample_in_ball};
use super::{ParameterSet, Params};
use crate::verdict::Reject;
use libcrux_sha3::portable::incremental::{Shake256Xof, Xof};

/// Largest k and l (ML-DSA-87).
const MAX_ROWS: usize = 8;
const MAX_COLUMNS: usize = 7;

/// A public key made ready for verification on one backend's lanes.
pub(crate) struct ExpandedKey {
    public_key: Box<[u8]>,
    /// tr = H(pk, 64).
    pub(crate) tr: [u8; 64],
    /// Â, k × l, row-major, in the lanes' NTT layout.
    matrix: Box<[Poly]>,
    /// NTT(t1·2^d) per row, reduced below q.
    t1: Box<[Poly]>,
}

impl ExpandedKey {
    /// Bytes one expanded key occupies, for the cache's bound.
    pub(crate) fn bytes(parameter_set: ParameterSet) -> usize {
        let p = parameter_set.params();
        (p.k * p.l + p.k) * std::mem::size_of::<Poly>()
            + parameter_set.public_key_len()
            + std::mem::size_of::<Self>()
    }

    /// Expands public keys of the right length (pkDecode, Algorithm 23; ExpandA;
    /// tr = H(pk)), hashing `L::Keccak::N` keys' tr at a time.
    #[inline(always)]
    pub(crate) fn new_many<L: Lanes>(
        parameter_set: ParameterSet,
        public_keys: &[&[u8]],
    ) -> Vec<Self> {
        let p = parameter_set.params();
        let width = <L::Keccak as KeccakLanes>::N;
        let mut keys = Vec::with_capacity(public_keys.len());
        for group in public_keys.chunks(width) {
            let mut tr = vec![[0u8; 64]; group.len()];
            let mut outputs: Vec<&mut [u8]> = tr.iter_mut().map(|t| t.as_mut_slice()).collect();
            shake256_lanes::<L::Keccak>(group, &mut outputs);
            for (public_key, tr) in group.iter().zip(tr) {
                debug_assert_eq!(public_key.len(), parameter_set.public_key_len());
                let rho: &[u8; 32] = public_key[..32].try_into().expect("32-byte ρ");
                let mut matrix = spare_polys::take(p.k * p.l);
                expand_a::<L>(rho, p.l, &mut matrix);
                let mut t1 = spare_polys::take(p.k);
                for (poly, bytes) in t1.iter_mut().zip(public_key[32..].chunks_exact(320)) {
                    decode_t1_shifted(bytes, poly);
                    ntt::<L>(poly);
                    reduce::<L>(poly);
                }
                keys.push(ExpandedKey {
                    public_key: (*public_key).into(),
                    tr,
                    matrix,
                    t1,
                });
            }
        }
        keys
    }

    /// One key: see [`Self::new_many`].
    #[inline(always)]
    pub(crate) fn new<L: Lanes>(parameter_set: ParameterSet, public_key: &[u8]) -> Self {
        Self::new_many::<L>(parameter_set, &[public_key])
            .pop()
            .expect("one key")
    }

    /// Whether this is the expansion of `public_key` (the cache's keys are hashes, so a
    /// hit is confirmed against the whole key).
    pub(crate) fn is_for(&self, public_key: &[u8]) -> bool {
        *self.public_key == *public_key
    }
}

impl Drop for ExpandedKey {
    fn drop(&mut self) {
        spare_polys::give_back(std::mem::take(&mut self.matrix));
        spare_polys::give_back(std::mem::take(&mut self.t1));
    }
}

/// The polynomial buffers of expanded keys that were dropped, kept per thread for the
/// next expansion. A unit expands its keys 8 or 16 at a time (20 to 64 KB each) and
/// drops them when the group is verified; handed straight back to the allocator, that
/// memory lets glibc trim its heap after each group and fault the pages in again for
/// the next, and a C++ program's ML-DSA-44 batch verification spent a large share of
/// its time in the kernel for that alone (the Rust CLI, whose earlier large frees had
/// raised glibc's trim threshold, showed none; docs/results.md). At most `MAX_BYTES`
/// stay per thread.
mod spare_polys {
    use super::Poly;
    use std::cell::RefCell;

    const MAX_BYTES: usize = 2 << 20;

    thread_local! {
        pub(super) static SPARE: RefCell<Vec<Box<[Poly]>>> = const { RefCell::new(Vec::new()) };
    }

    /// `len` zeroed polynomials: a spare buffer of that length, or a new one.
    pub(super) fn take(len: usize) -> Box<[Poly]> {
        let spare = SPARE
            .try_with(|spare| {
                let mut spare = spare.borrow_mut();
                let at = spare.iter().position(|b| b.len() == len)?;
                Some(spare.swap_remove(at))
            })
            .ok()
            .flatten();
        match spare {
            Some(mut buffer) => {
                buffer.fill(Poly::ZERO);
                buffer
            }
            None => vec![Poly::ZERO; len].into_boxed_slice(),
        }
    }

    /// Keeps `buffer` for a later `take` on this thread, unless the thread already
    /// holds `MAX_BYTES` (or is exiting): then it is freed.
    pub(super) fn give_back(buffer: Box<[Poly]>) {
        if buffer.is_empty() {
            return;
        }
        let _ = SPARE.try_with(|spare| {
            let Ok(mut spare) = spare.try_borrow_mut() else {
                return;
            };
            let held: usize = spare.iter().map(|b| b.len()).sum();
            if (held + buffer.len()) * std::mem::size_of::<Poly>() <= MAX_BYTES {
                spare.push(buffer);
            }
        });
    }
}

/// A signature decoded by sigDecode (Algorithm 27) and past the checks that need no key.
pub(crate) struct DecodedSignature<'a> {
    commitment_hash: &'a [u8],
    z: [Poly; MAX_COLUMNS],
    hints: [[bool; 256]; MAX_ROWS],
}

impl<'a> DecodedSignature<'a> {
    /// Decodes a signature of the right length: `MalformedHint` for a hint encoding
    /// other than the unique one, `NormBoundExceeded` for ‖z‖∞ ≥ γ1 − β.
    pub(crate) fn decode(p: &Params, signature: &'a [u8]) -> Result<Box<Self>, Reject> {
        let (commitment_hash, rest) = signature.split_at(p.commitment_hash_len);
        let (z_bytes, hint_bytes) = rest.split_at(p.l * p.z_bytes());
        let mut decoded = Box::new(DecodedSignature {
            commitment_hash,
            z: [Poly::ZERO; MAX_COLUMNS],
            hints: [[false; 256]; MAX_ROWS],
        });
        decode_hints(hint_bytes, p.k, p.omega, &mut decoded.hints).ok_or(Reject::MalformedHint)?;
        let mut largest = 0;
        for (poly, bytes) in decoded.z.iter_mut().zip(z_bytes.chunks_exact(p.z_bytes())) {
            largest = largest.max(decode_z(bytes, p.gamma1_bits, poly));
        }
        if largest >= (1 << p.gamma1_bits) - p.beta {
            return Err(Reject::NormBoundExceeded);
        }
        Ok(decoded)
    }
}

/// H(tr ‖ M′, 64), M′ given in pieces (Algorithm 7 line 6 / Algorithm 8 line 6).
pub(crate) fn message_representative(tr: &[u8; 64], message: &[&[u8]]) -> [u8; 64] {
    let mut xof = Shake256Xof::new();
    xof.absorb(tr);
    for piece in message {
        xof.absorb(piece);
    }
    xof.absorb_final(&[]);
    let mut mu = [0u8; 64];
    xof.squeeze(&mut mu);
    mu
}

/// Longest commitment preimage μ ‖ w1Encode(w′1): ML-DSA-87's 64 + 8 · 128 bytes.
pub(crate) const MAX_PREIMAGE: usize = 64 + 8 * 128;

/// Algorithm 8 lines 7–12 without the final hash: w′ = NTT⁻¹(Â∘NTT(z) −
/// NTT(c)∘NTT(t1·2^d)), UseHint, and the preimage μ ‖ w1Encode(w′1) into `preimage`.
/// Returns its length (64 + k · w1 bytes, fixed per parameter set).
#[inline(always)]
pub(crate) fn commitment_preimage<L: Lanes>(
    parameter_set: ParameterSet,
    key: &ExpandedKey,
    signature: &mut DecodedSignature<'_>,
    mu: &[u8; 64],
    preimage: &mut [u8; MAX_PREIMAGE],
) -> usize {
    let p = parameter_set.params();
    let mut c = sample_in_ball(signature.commitment_hash, p.tau);
    ntt::<L>(&mut c);
    let z = &mut signature.z[..p.l];
    for poly in z.iter_mut() {
        ntt::<L>(poly);
    }
    let six_bits = p.gamma2 == (Q - 1) / 88;
    let w1_bytes = p.w1_bytes();
    preimage[..64].copy_from_slice(mu);
    let mut w = Poly::ZERO;
    for row in 0..p.k {
        let a_row = &key.matrix[row * p.l..(row + 1) * p.l];
        row_product_minus::<L>(&mut w, a_row, z, &c, &key.t1[row]);
        inverse_ntt::<L>(&mut w);
        L::use_hint(&mut w, &signature.hints[row], p.gamma2);
        let at = 64 + row * w1_bytes;
        encode_w1(&w, six_bits, &mut preimage[at..at + w1_bytes]);
    }
    64 + p.k * w1_bytes
}

impl DecodedSignature<'_> {
    /// Algorithm 8's last test: c̃ = H(μ ‖ w1Encode(w′1), λ/4), given that hash.
    pub(crate) fn commitment_matches(&self, recomputed: &[u8]) -> Result<(), Reject> {
        if recomputed[..self.commitment_hash.len()] == *self.commitment_hash {
            Ok(())
        } else {
            Err(Reject::EquationFailed)
        }
    }

    pub(crate) fn commitment_hash_len(&self) -> usize {
        self.commitment_hash.len()
    }
}

/// Algorithm 8 from line 7 on, for one signature.
#[inline(always)]
pub(crate) fn verify_with_key<L: Lanes>(
    parameter_set: ParameterSet,
    key: &ExpandedKey,
    signature: &mut DecodedSignature<'_>,
    mu: &[u8; 64],
) -> Result<(), Reject> {
    let mut preimage = [0u8; MAX_PREIMAGE];
    let len = commitment_preimage::<L>(parameter_set, key, signature, mu, &mut preimage);
    let mut recomputed = [0u8; 64];
    libcrux_sha3::shake256_ema(
        &mut recomputed[..signature.commitment_hash_len()],
        &preimage[..len],
    );
    signature.commitment_matches(&recomputed)
}

/// ML-DSA.Verify_internal (Algorithm 8) on an expanded key, with M′ in pieces.
#[inline(always)]
pub(crate) fn verify_pieces<L: Lanes>(
    parameter_set: ParameterSet,
    key: &ExpandedKey,
    signature: &[u8],
    message: &[&[u8]],
) -> Result<(), Reject> {
    let mut decoded = DecodedSignature::decode(&parameter_set.params(), signature)?;
    let mu = message_representative(&key.tr, message);
    verify_with_key::<L>(parameter_set, key, &mut decoded, &mu)
}

#[cfg(test)]
mod tests {
    use super::super::lanes::portable::Portable;
    use super::super::{generate_key_pair, ParameterSet};
    use super::*;

    fn polys(key: &ExpandedKey) -> Vec<[i32; 256]> {
        key.matrix
            .iter()
            .chain(key.t1.iter())
            .map(|p| p.0)
            .collect()
    }

    /// A key expanded into buffers another key left behind (same thread, every
    /// parameter set, so every buffer length) equals the same key expanded on a fresh
    /// thread, whose buffers are all new; the spare buffers stay under their bound.
    #[test]
    fn reused_buffers_expand_as_new_ones() {
        for (i, set) in [
            ParameterSet::MlDsa44,
            ParameterSet::MlDsa65,
            ParameterSet::MlDsa87,
        ]
        .into_iter()
        .enumerate()
        {
            let first = generate_key_pair(set, [i as u8; 32]).public_key;
            let second = generate_key_pair(set, [0x80 | i as u8; 32]).public_key;
            let fresh = {
                let second = second.clone();
                std::thread::spawn(move || polys(&ExpandedKey::new::<Portable<8>>(set, &second)))
                    .join()
                    .unwrap()
            };
            for _ in 0..3 {
                drop(ExpandedKey::new_many::<Portable<8>>(
                    set,
                    &[&first, &first, &first],
                ));
                let reused = ExpandedKey::new::<Portable<8>>(set, &second);
                assert!(polys(&reused) == fresh, "{set:?}");
            }
        }
        let held: usize = spare_polys_held();
        assert!(held > 0 && held <= 2 << 20, "{held} bytes held");
    }

    fn spare_polys_held() -> usize {
        spare_polys::SPARE.with(|s| s.borrow().iter().map(|b| b.len()).sum::<usize>())
            * std::mem::size_of::<Poly>()
    }
}
