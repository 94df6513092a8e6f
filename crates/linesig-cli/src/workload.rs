//! Seeded workloads for any scheme: keys, messages, signatures and which of them were
//! corrupted. Every value derives from (seed, index) alone, so generation runs on all
//! cores and any run with the same options verifies the same bytes.

use crate::clock::{time, Timing};
use crate::progress::Progress;
use linesig::Item;
use rand::seq::index::sample;
use rand::{RngCore, SeedableRng};
use rand_chacha::ChaCha20Rng;
use rayon::prelude::*;

/// How a scheme makes keys and signatures for a workload (the signer side, which the
/// benchmark needs and the engine does not do).
pub trait Signer: Sync {
    type Secret: Send + Sync;
    /// (encoded public key, secret) from a 32-byte seed.
    fn keygen(&self, seed: [u8; 32]) -> (Vec<u8>, Self::Secret);
    /// A signature on `message` (with `randomness` for hedged schemes).
    fn sign(&self, secret: &Self::Secret, message: &[u8], randomness: [u8; 32]) -> Vec<u8>;
}

#[derive(Clone, Debug)]
pub struct WorkloadSpec {
    pub count: usize,
    pub msgs_per_key: usize,
    pub msg_size: usize,
    pub invalid_fraction: f64,
    pub seed: u64,
}

pub struct Workload {
    pub public_keys: Vec<Vec<u8>>,
    /// Per item: its key's index, message and signature.
    pub key_index: Vec<u32>,
    pub messages: Vec<Vec<u8>>,
    pub signatures: Vec<Vec<u8>>,
    /// Per item: whether it was left honest (a verifier must accept exactly these).
    pub expect_valid: Vec<bool>,
    pub keygen: Timing,
    pub signing: Timing,
}

/// A ChaCha20 stream unique to (seed, domain, index).
pub fn stream(seed: u64, domain: u64, index: usize) -> ChaCha20Rng {
    let mut rng = ChaCha20Rng::seed_from_u64(seed);
    rng.set_stream((domain << 48) ^ index as u64);
    rng
}

pub fn seed32(seed: u64, domain: u64, index: usize) -> [u8; 32] {
    let mut out = [0u8; 32];
    stream(seed, domain, index).fill_bytes(&mut out);
    out
}

impl Workload {
    pub fn generate<S: Signer>(signer: &S, spec: &WorkloadSpec, show_progress: bool) -> Workload {
        let per_key = spec.msgs_per_key.max(1);
        let n_keys = spec.count.div_ceil(per_key);
        let (keys, keygen) = time(|| {
            (0..n_keys)
                .into_par_iter()
                .map(|k| signer.keygen(seed32(spec.seed, 1, k)))
                .collect::<Vec<_>>()
        });
        let progress = Progress::new("signing", Some(spec.count as u64), show_progress);
        let (signed, signing) = time(|| {
            (0..spec.count)
                .into_par_iter()
                .map(|i| {
                    let mut message = vec![0u8; spec.msg_size];
                    stream(spec.seed, 2, i).fill_bytes(&mut message);
                    let signature =
                        signer.sign(&keys[i / per_key].1, &message, seed32(spec.seed, 4, i));
                    progress.inc(1);
                    (message, signature)
                })
                .collect::<Vec<(Vec<u8>, Vec<u8>)>>()
        });
        progress.finish();
        let (messages, signatures) = signed.into_iter().unzip();
        let mut workload = Workload {
            public_keys: keys.into_iter().map(|(pk, _)| pk).collect(),
            key_index: (0..spec.count).map(|i| (i / per_key) as u32).collect(),
            messages,
            signatures,
            expect_valid: vec![true; spec.count],
            keygen,
            signing,
        };
        workload.corrupt(spec);
        workload
    }

    /// Corrupt round(count × fraction) seeded items, each by one bit flip in the message
    /// or in the first half of the signature (Ed25519's R; ML-DSA's c̃ and z), so every
    /// corrupted item costs a full verification and fails it.
    fn corrupt(&mut self, spec: &WorkloadSpec) {
        let n_bad =
            (((spec.count as f64) * spec.invalid_fraction).round() as usize).min(spec.count);
        let mut rng = stream(spec.seed, 3, 0);
        for (j, i) in sample(&mut rng, spec.count, n_bad).into_iter().enumerate() {
            let bit = 1u8 << (rng.next_u32() % 8);
            if j % 2 == 0 && !self.messages[i].is_empty() {
                let at = rng.next_u32() as usize % self.messages[i].len();
                self.messages[i][at] ^= bit;
            } else {
                let half = (self.signatures[i].len() / 2).max(1);
                self.signatures[i][rng.next_u32() as usize % half] ^= bit;
            }
            self.expect_valid[i] = false;
        }
    }

    pub fn len(&self) -> usize {
        self.messages.len()
    }

    pub fn items(&self) -> Vec<Item<'_>> {
        (0..self.len())
            .map(|i| {
                Item::new(
                    &self.public_keys[self.key_index[i] as usize],
                    &self.messages[i],
                    &self.signatures[i],
                )
            })
            .collect()
    }

    pub fn invalid_count(&self) -> usize {
        self.expect_valid.iter().filter(|v| !**v).count()
    }
}
