//! What the CLI knows per scheme: how to parse it, how to sign for benchmarks, and which
//! yardsticks to measure against in the same run.

use crate::args::CliError;
use crate::workload::Signer;
use ed25519_dalek::Signer as _;
use linesig::mldsa::{self, ParameterSet};
use linesig::{Item, Policy, Scheme};

/// `--scheme` and `--policy` together; a policy only means something for Ed25519.
pub fn parse_scheme(scheme: &str, policy: Option<Policy>) -> Result<Scheme, CliError> {
    let scheme: Scheme = scheme
        .parse()
        .map_err(|e: linesig::UnknownName| CliError::usage(e.to_string()))?;
    scheme
        .with_policy(policy)
        .map_err(|e| CliError::usage(e.to_string()))
}

pub struct Ed25519Signer;

impl Signer for Ed25519Signer {
    type Secret = ed25519_dalek::SigningKey;
    fn keygen(&self, seed: [u8; 32]) -> (Vec<u8>, Self::Secret) {
        let key = ed25519_dalek::SigningKey::from_bytes(&seed);
        (key.verifying_key().to_bytes().to_vec(), key)
    }
    fn sign(&self, secret: &Self::Secret, message: &[u8], _: [u8; 32]) -> Vec<u8> {
        secret.sign(message).to_bytes().to_vec()
    }
    fn signature_len(&self) -> usize {
        ed25519_dalek::SIGNATURE_LENGTH
    }
}

pub struct MlDsaSigner(pub ParameterSet);

impl Signer for MlDsaSigner {
    type Secret = Vec<u8>;
    fn keygen(&self, seed: [u8; 32]) -> (Vec<u8>, Self::Secret) {
        let pair = mldsa::generate_key_pair(self.0, seed);
        (pair.public_key, pair.signing_key)
    }
    fn sign(&self, secret: &Self::Secret, message: &[u8], randomness: [u8; 32]) -> Vec<u8> {
        // Rejection sampling fails with negligible probability; retry with fresh bytes.
        let mut rnd = randomness;
        loop {
            match mldsa::sign(self.0, secret, message, b"", rnd) {
                Ok(sig) => return sig,
                Err(mldsa::SignError::RejectionSampling) => rnd[0] = rnd[0].wrapping_add(1),
                Err(e) => panic!("benchmark keys are well formed: {e}"),
            }
        }
    }
    fn signature_len(&self) -> usize {
        self.0.signature_len()
    }
}

/// Does a verifier accept the item?
pub type VerifyFn = fn(&Item<'_>) -> bool;

/// Does a batch verifier accept the whole batch? (One answer per batch: a batch
/// equation has no per-signature verdict.)
pub type BatchVerifyFn = fn(&[Item<'_>]) -> bool;

/// How a yardstick verifies.
#[derive(Clone, Copy)]
pub enum Verifier {
    /// One item per call.
    Each(VerifyFn),
    /// Consecutive batches of `size` items per call.
    Batch { size: usize, verify: BatchVerifyFn },
}

/// A single-threaded verifier that users would otherwise run, for the ratio.
pub struct Yardstick {
    pub name: &'static str,
    pub verify: Verifier,
}

/// The batch size of the batch yardsticks (the "zebra verify_batch at batch 512").
const YARDSTICK_BATCH: usize = 512;

pub fn yardsticks(scheme: Scheme) -> Vec<Yardstick> {
    match scheme {
        Scheme::Ed25519(_) => vec![
            Yardstick {
                name: "ed25519-dalek verify_strict, 1 thread",
                verify: Verifier::Each(dalek_verify_strict),
            },
            Yardstick {
                name: "ed25519-dalek verify_batch (512), 1 thread",
                verify: Verifier::Batch {
                    size: YARDSTICK_BATCH,
                    verify: dalek_verify_batch,
                },
            },
            Yardstick {
                name: "ed25519-zebra batch::Verifier (512), 1 thread",
                verify: Verifier::Batch {
                    size: YARDSTICK_BATCH,
                    verify: zebra_verify_batch,
                },
            },
        ],
        Scheme::MlDsa(ps) => {
            let (libcrux, pqclean): (VerifyFn, VerifyFn) = match ps {
                ParameterSet::MlDsa44 => (
                    |i| mldsa::verify(ParameterSet::MlDsa44, i).is_valid(),
                    pqclean::<44>,
                ),
                ParameterSet::MlDsa65 => (
                    |i| mldsa::verify(ParameterSet::MlDsa65, i).is_valid(),
                    pqclean::<65>,
                ),
                ParameterSet::MlDsa87 => (
                    |i| mldsa::verify(ParameterSet::MlDsa87, i).is_valid(),
                    pqclean::<87>,
                ),
            };
            vec![
                Yardstick {
                    name: "libcrux-ml-dsa verify, 1 thread",
                    verify: Verifier::Each(libcrux),
                },
                Yardstick {
                    name: "pqcrypto-mldsa (PQClean AVX2) verify, 1 thread",
                    verify: Verifier::Each(pqclean),
                },
            ]
        }
        _ => Vec::new(),
    }
}

/// The item's key and signature as Ed25519's fixed-size arrays, if they have the sizes.
fn ed25519_arrays(it: &Item<'_>) -> Option<([u8; 32], [u8; 64])> {
    Some((
        it.public_key.try_into().ok()?,
        it.signature.try_into().ok()?,
    ))
}

fn dalek_verify_strict(it: &Item<'_>) -> bool {
    let Some((pk, sig)) = ed25519_arrays(it) else {
        return false;
    };
    ed25519_dalek::VerifyingKey::from_bytes(&pk)
        .and_then(|k| k.verify_strict(it.message, &ed25519_dalek::Signature::from_bytes(&sig)))
        .is_ok()
}

/// ed25519-dalek's batch equation (random linear combination), keys decoded per call as
/// a caller holding bytes would.
fn dalek_verify_batch(items: &[Item<'_>]) -> bool {
    let mut keys = Vec::with_capacity(items.len());
    let mut signatures = Vec::with_capacity(items.len());
    let mut messages = Vec::with_capacity(items.len());
    for it in items {
        let Some((pk, sig)) = ed25519_arrays(it) else {
            return false;
        };
        let Ok(key) = ed25519_dalek::VerifyingKey::from_bytes(&pk) else {
            return false;
        };
        keys.push(key);
        signatures.push(ed25519_dalek::Signature::from_bytes(&sig));
        messages.push(it.message);
    }
    ed25519_dalek::verify_batch(&messages, &signatures, &keys).is_ok()
}

/// ed25519-zebra's ZIP-215 batch verifier.
fn zebra_verify_batch(items: &[Item<'_>]) -> bool {
    let mut batch = ed25519_zebra::batch::Verifier::new();
    for it in items {
        let Some((pk, sig)) = ed25519_arrays(it) else {
            return false;
        };
        batch.queue((
            ed25519_zebra::VerificationKeyBytes::from(pk),
            ed25519_zebra::Signature::from_bytes(&sig),
            &it.message,
        ));
    }
    batch.verify(rand::thread_rng()).is_ok()
}

fn pqclean<const SET: u32>(it: &Item<'_>) -> bool {
    use pqcrypto_traits::sign::{DetachedSignature, PublicKey};
    macro_rules! verify {
        ($m:ident) => {{
            use pqcrypto_mldsa::$m as m;
            match (
                m::PublicKey::from_bytes(it.public_key),
                m::DetachedSignature::from_bytes(it.signature),
            ) {
                (Ok(pk), Ok(sig)) => {
                    m::verify_detached_signature_ctx(&sig, it.message, it.context, &pk).is_ok()
                }
                _ => false,
            }
        }};
    }
    match SET {
        44 => verify!(mldsa44),
        65 => verify!(mldsa65),
        _ => verify!(mldsa87),
    }
}
