//! Seeded workloads for any scheme: keys, messages, signatures and which of them were
//! corrupted. Every value derives from (seed, index) alone, so generation runs on all
//! cores and any run with the same options verifies the same bytes.

use crate::clock::{time, Timing};
use crate::progress::Progress;
use linesig::Item;
use rand::seq::index::sample;
use rand::{Rng, RngCore, SeedableRng};
use rand_chacha::ChaCha20Rng;
use rayon::prelude::*;
use std::collections::HashMap;
use std::str::FromStr;

/// How a scheme makes keys and signatures for a workload (the signer side, which the
/// benchmark needs and the engine does not do).
pub trait Signer: Sync {
    type Secret: Send + Sync;
    /// (encoded public key, secret) from a 32-byte seed.
    fn keygen(&self, seed: [u8; 32]) -> (Vec<u8>, Self::Secret);
    /// A signature on `message` (with `randomness` for hedged schemes).
    fn sign(&self, secret: &Self::Secret, message: &[u8], randomness: [u8; 32]) -> Vec<u8>;
    /// Bytes of one signature.
    fn signature_len(&self) -> usize;
}

/// Bytes an item holds besides its message and signature while it is generated and
/// verified: two `Vec` headers and the allocator's slack, its key index, its `Item`
/// view and verdict. Measured: 1,000,000 Ed25519 items of 32-byte messages peak about
/// 320 bytes each (`/usr/bin/time -f %M linesig bench --count 1000000 --repeat 1`).
const ITEM_OVERHEAD_BYTES: u128 = 256;

/// A clear error, before anything is generated, when `count` items of `item_bytes`
/// (message plus signature) cannot fit in the memory Linux says is available
/// (`MemAvailable`), rather than an allocation failure minutes in. Elsewhere, or when
/// that figure is unknown, no check.
pub fn check_workload_fits(count: usize, item_bytes: usize) -> Result<(), String> {
    check_count_fits(
        count,
        item_bytes as u128 + ITEM_OVERHEAD_BYTES,
        "its generated signatures",
    )
}

/// The same check for any command that holds `count` items of about `item_bytes` each
/// (`what` names them in the refusal): `gen`'s transactions, Paillier's values and
/// ciphertexts.
pub fn check_count_fits(count: usize, item_bytes: u128, what: &str) -> Result<(), String> {
    let need = count as u128 * item_bytes;
    let Some(available) = available_memory_bytes() else {
        return Ok(());
    };
    if need <= u128::from(available) {
        return Ok(());
    }
    let gib = |b: u128| b as f64 / (1u64 << 30) as f64;
    Err(format!(
        "--count {count} needs about {:.1} GiB for {what} (about {item_bytes} bytes each); \
         {:.1} GiB of memory is available: lower --count",
        gib(need),
        gib(u128::from(available))
    ))
}

/// `MemAvailable` of /proc/meminfo, in bytes.
fn available_memory_bytes() -> Option<u64> {
    let meminfo = std::fs::read_to_string("/proc/meminfo").ok()?;
    let line = meminfo.lines().find(|l| l.starts_with("MemAvailable:"))?;
    let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    kib.checked_mul(1024)
}

/// Which key signs: every signer fresh, `K` transactions per key, `N` hot keys, or keys
/// drawn from a Zipf law (exponent `S`) over `N` keys, as fee payers are on mainnet.
#[derive(Clone, Debug, PartialEq)]
pub enum KeyDistribution {
    Distinct,
    PerKey(usize),
    Hot(usize),
    Zipf { exponent: f64, keys: usize },
}

/// A `--keys` value that names no key distribution.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BadKeyDistribution(pub String);

impl std::fmt::Display for BadKeyDistribution {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "bad key distribution '{}': use distinct, per-key:K, hot:N or zipf:S:N",
            self.0
        )
    }
}

impl std::error::Error for BadKeyDistribution {}

impl FromStr for KeyDistribution {
    type Err = BadKeyDistribution;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let bad = || BadKeyDistribution(s.to_string());
        let parts: Vec<&str> = s.split(':').collect();
        let count = |p: &str| p.parse::<usize>().ok().filter(|&n| n > 0).ok_or_else(bad);
        match parts.as_slice() {
            ["distinct"] => Ok(KeyDistribution::Distinct),
            ["per-key", k] => Ok(KeyDistribution::PerKey(count(k)?)),
            ["hot", n] => Ok(KeyDistribution::Hot(count(n)?)),
            ["zipf", e, n] => {
                let exponent = e.parse::<f64>().ok().filter(|e| *e > 0.0).ok_or_else(bad)?;
                Ok(KeyDistribution::Zipf {
                    exponent,
                    keys: count(n)?,
                })
            }
            _ => Err(bad()),
        }
    }
}

impl std::fmt::Display for KeyDistribution {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            KeyDistribution::Distinct => write!(f, "distinct"),
            KeyDistribution::PerKey(k) => write!(f, "per-key:{k}"),
            KeyDistribution::Hot(n) => write!(f, "hot:{n}"),
            KeyDistribution::Zipf { exponent, keys } => write!(f, "zipf:{exponent}:{keys}"),
        }
    }
}

impl KeyDistribution {
    /// A sampler giving the key index of the `i`-th signature slot.
    pub fn sampler(&self) -> KeySampler {
        let cdf = match self {
            KeyDistribution::Zipf { exponent, keys } => {
                let mut acc = 0.0;
                let mut cdf: Vec<f64> = (1..=*keys)
                    .map(|r| {
                        acc += (r as f64).powf(-exponent);
                        acc
                    })
                    .collect();
                let total = acc;
                cdf.iter_mut().for_each(|c| *c /= total);
                cdf
            }
            _ => Vec::new(),
        };
        KeySampler {
            distribution: self.clone(),
            cdf,
        }
    }
}

pub struct KeySampler {
    distribution: KeyDistribution,
    cdf: Vec<f64>,
}

impl KeySampler {
    pub fn key(&self, slot: usize, rng: &mut impl Rng) -> u64 {
        match self.distribution {
            KeyDistribution::Distinct => slot as u64,
            KeyDistribution::PerKey(k) => (slot / k) as u64,
            KeyDistribution::Hot(n) => rng.gen_range(0..n as u64),
            KeyDistribution::Zipf { .. } => {
                let u: f64 = rng.gen();
                self.cdf.partition_point(|&c| c < u).min(self.cdf.len() - 1) as u64
            }
        }
    }
}

#[derive(Clone, Debug)]
pub struct WorkloadSpec {
    pub count: usize,
    pub keys: KeyDistribution,
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
        // Each slot's key from the distribution, then the keys actually drawn numbered
        // densely in order of first use (a Zipf law over 100,000 keys draws fewer).
        let sampler = spec.keys.sampler();
        let drawn: Vec<u64> = (0..spec.count)
            .into_par_iter()
            .map(|i| sampler.key(i, &mut stream(spec.seed, 7, i)))
            .collect();
        let mut dense: HashMap<u64, u32> = HashMap::new();
        let key_index: Vec<u32> = drawn
            .iter()
            .map(|k| {
                let next = dense.len() as u32;
                *dense.entry(*k).or_insert(next)
            })
            .collect();
        let mut key_ids = vec![0u64; dense.len()];
        for (k, i) in dense {
            key_ids[i as usize] = k;
        }
        let (keys, keygen) = time(|| {
            key_ids
                .par_iter()
                .map(|&k| signer.keygen(seed32(spec.seed, 1, k as usize)))
                .collect::<Vec<_>>()
        });
        let progress = Progress::new("signing", Some(spec.count as u64), show_progress);
        let (signed, signing) = time(|| {
            (0..spec.count)
                .into_par_iter()
                .map(|i| {
                    let mut message = vec![0u8; spec.msg_size];
                    stream(spec.seed, 2, i).fill_bytes(&mut message);
                    let signature = signer.sign(
                        &keys[key_index[i] as usize].1,
                        &message,
                        seed32(spec.seed, 4, i),
                    );
                    progress.inc(1);
                    (message, signature)
                })
                .collect::<Vec<(Vec<u8>, Vec<u8>)>>()
        });
        progress.finish();
        let (messages, signatures) = signed.into_iter().unzip();
        let mut workload = Workload {
            public_keys: keys.into_iter().map(|(pk, _)| pk).collect(),
            key_index,
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
