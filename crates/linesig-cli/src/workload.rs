//! Seeded Ed25519 workloads: keys, messages, signatures and which of them were corrupted.
//! Every value derives from (seed, index) alone, so generation runs on all cores and any
//! run with the same options verifies the same bytes.

use crate::clock::{time, Timing};
use crate::progress::Progress;
use ed25519_dalek::{Signer, SigningKey};
use linesig::Item;
use rand::seq::index::sample;
use rand::{RngCore, SeedableRng};
use rand_chacha::ChaCha20Rng;
use rayon::prelude::*;

#[derive(Clone, Debug)]
pub struct WorkloadSpec {
    pub count: usize,
    pub msgs_per_key: usize,
    pub msg_size: usize,
    pub invalid_fraction: f64,
    pub seed: u64,
}

pub struct Workload {
    pub public_keys: Vec<[u8; 32]>,
    /// Per item: its key's index, message and signature.
    pub key_index: Vec<u32>,
    pub messages: Vec<Vec<u8>>,
    pub signatures: Vec<[u8; 64]>,
    /// Per item: whether it was left honest (a verifier must accept exactly these).
    pub expect_valid: Vec<bool>,
    pub keygen: Timing,
    pub signing: Timing,
}

/// A ChaCha20 stream unique to (seed, domain, index).
fn stream(seed: u64, domain: u64, index: usize) -> ChaCha20Rng {
    let mut rng = ChaCha20Rng::seed_from_u64(seed);
    rng.set_stream((domain << 48) ^ index as u64);
    rng
}

impl Workload {
    pub fn generate(spec: &WorkloadSpec, show_progress: bool) -> Workload {
        let n_keys = spec.count.div_ceil(spec.msgs_per_key.max(1));
        let (signing_keys, keygen) = time(|| {
            (0..n_keys)
                .into_par_iter()
                .map(|k| {
                    let mut secret = [0u8; 32];
                    stream(spec.seed, 1, k).fill_bytes(&mut secret);
                    SigningKey::from_bytes(&secret)
                })
                .collect::<Vec<_>>()
        });
        let progress = Progress::new("signing", Some(spec.count as u64), show_progress);
        let (signed, signing) = time(|| {
            (0..spec.count)
                .into_par_iter()
                .map(|i| {
                    let mut message = vec![0u8; spec.msg_size];
                    stream(spec.seed, 2, i).fill_bytes(&mut message);
                    let signature = signing_keys[i / spec.msgs_per_key.max(1)]
                        .sign(&message)
                        .to_bytes();
                    progress.inc(1);
                    (message, signature)
                })
                .collect::<Vec<(Vec<u8>, [u8; 64])>>()
        });
        let (messages, signatures) = signed.into_iter().unzip();
        progress.finish();
        let mut workload = Workload {
            public_keys: signing_keys
                .iter()
                .map(|k| k.verifying_key().to_bytes())
                .collect(),
            key_index: (0..spec.count)
                .map(|i| (i / spec.msgs_per_key.max(1)) as u32)
                .collect(),
            messages,
            signatures,
            expect_valid: vec![true; spec.count],
            keygen,
            signing,
        };
        workload.corrupt(spec);
        workload
    }

    /// Corrupt round(count × fraction) seeded items, each by one bit flip in the message,
    /// in R or in the low half of S, so every corrupted item costs a full verification
    /// and fails the equation.
    fn corrupt(&mut self, spec: &WorkloadSpec) {
        let n_bad = ((spec.count as f64) * spec.invalid_fraction).round() as usize;
        let n_bad = n_bad.min(spec.count);
        let mut rng = stream(spec.seed, 3, 0);
        for (j, i) in sample(&mut rng, spec.count, n_bad).into_iter().enumerate() {
            let bit = (rng.next_u32() % 8) as u8;
            let kind = if self.messages[i].is_empty() {
                1 + j % 2
            } else {
                j % 3
            };
            match kind {
                0 => {
                    let at = rng.next_u32() as usize % self.messages[i].len();
                    self.messages[i][at] ^= 1 << bit;
                }
                1 => self.signatures[i][rng.next_u32() as usize % 32] ^= 1 << bit,
                _ => self.signatures[i][32 + rng.next_u32() as usize % 16] ^= 1 << bit,
            }
            self.expect_valid[i] = false;
        }
    }

    pub fn len(&self) -> usize {
        self.messages.len()
    }

    pub fn items(&self) -> Vec<Item<'_>> {
        (0..self.len())
            .map(|i| Item {
                public_key: &self.public_keys[self.key_index[i] as usize],
                message: &self.messages[i],
                signature: &self.signatures[i],
                context: &[],
            })
            .collect()
    }

    pub fn invalid_count(&self) -> usize {
        self.expect_valid.iter().filter(|v| !**v).count()
    }
}
