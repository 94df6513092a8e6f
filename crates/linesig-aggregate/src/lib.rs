//! leanSig aggregation: many devnet-4 signatures, one STARK proof that all
//! of them verify, checked against the list of (public key, message, epoch) alone.
//! A crate of its own, so that `linesig` verifies and signs without Plonky3's prover;
//! it reads leanSig's lanes, hash steps and decoders through
//! `linesig::leansig::internals`.
//!
//! - [`prove`] verifies every signature first and refuses with the index of the first
//!   one that fails (a prover never proves a false statement), then proves
//!   [`statement`]'s AIR over the list;
//! - [`verify_aggregate`] hashes the list into the transcript and evaluates the public
//!   columns at the proof's out-of-domain point from the list itself (no commitment,
//!   no transform: [`statement::preprocessed_at`]): the proof holds for exactly that
//!   list, in that order.
//!
//! The modules, bottom up: [`field`] (KoalaBear and its extension, the query count);
//! [`poseidon1_air`] (one Poseidon1 permutation as trace columns, two full rounds per
//! committed state); [`statement`] (the AIR: the per-signature block of rows: message
//! hash and its aborting encoding, the 46 chains, the leaf sponge, the 32 tree levels);
//! [`lanes`] (the prover's kernels on SIMD lanes: transforms, dot products, Merkle
//! leaves, the quotient, the proof-of-work search); [`challenger`] (the transcript);
//! [`stark`] (Plonky3 uni-stark over KoalaBear with BLAKE3 commitments: FRI blowup 8,
//! 28 queries, 16 bits of grinding, 100 conjectured bits; the versioned `LSAG` byte
//! format, linesig's own and not leanMultisig's); the trace's extension block by block;
//! the prover and the verifier.

// Layers, each importing only from those above it (linesig's `tests/layers.rs` checks
// this order): `field`, `poseidon1_air` → `statement` → `lanes` → `challenger` →
// `stark` → `trace_extension` → `prover`, `verifier`.
pub mod challenger;
pub mod field;
pub mod lanes;
pub mod poseidon1_air;
mod prover;
pub mod stark;
pub mod statement;
mod trace_extension;
mod verifier;

#[cfg(test)]
mod lanes_tests;
#[cfg(test)]
mod soundness_tests;
#[cfg(test)]
mod tests;

use lanes::ProverPath;
use linesig::leansig::internals::lanes::from_monty;
use linesig::leansig::internals::{decode, decode_epoch_and_message, hash, ssz};
use linesig::leansig::{Instance, MESSAGE_BYTES};
use linesig::{Backend, Item, Reject, Scheme, Verdict};
use p3_field::PrimeCharacteristicRing;
use p3_koala_bear::KoalaBear;
use statement::{AggregateAir, Claim, Witness};

/// The most signatures one proof covers: 64 rows each, a trace of 2^19 rows and
/// 920 columns (its polynomials, 1.8 GiB, held while proving, and one 1.8 GiB block of
/// the 8× extension per thread: about 6.2 GiB on two threads; docs/results.md has the
/// measured peaks). Split larger sets.
pub const MAX_SIGNATURES: usize = 8192;

/// Why no proof was made.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum AggregateError {
    #[error("{0} has no aggregation statement; only leansig-devnet4 aggregates")]
    UnsupportedInstance(Instance),
    #[error("nothing to aggregate: no signatures")]
    Empty,
    #[error("{count} signatures: one proof covers at most {MAX_SIGNATURES}")]
    TooMany { count: usize },
    #[error("signature {index} does not verify ({reason}); no proof is made for it")]
    InvalidSignature { index: usize, reason: Reject },
}

/// Why a proof was refused.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum VerifyAggregateError {
    #[error("{0} has no aggregation statement; only leansig-devnet4 aggregates")]
    UnsupportedInstance(Instance),
    #[error("no signers listed")]
    Empty,
    #[error("{count} signers: one proof covers at most {MAX_SIGNATURES}")]
    TooMany { count: usize },
    #[error("signer {index}: {reason}")]
    BadSigner { index: usize, reason: Reject },
    #[error(transparent)]
    Format(#[from] stark::ProofFormatError),
    #[error("the proof covers {proof} signatures, {listed} are listed")]
    CountMismatch { proof: usize, listed: usize },
    /// The proof fails a check for this list. The string is the STARK verifier's own
    /// account of the check (for logs and `--verbose`), not part of the message.
    #[error(
        "the proof does not verify against the listed signers: their keys, messages, \
         epochs or order are not those it was made for, or the proof was altered"
    )]
    Rejected(String),
}

/// An aggregate proof: its bytes (see [`stark`] for the format).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AggregateProof {
    pub bytes: Vec<u8>,
}

fn field(x: u32) -> KoalaBear {
    KoalaBear::from_u32(from_monty(x))
}

fn digest(d: &[u32; 8]) -> [KoalaBear; 8] {
    d.map(field)
}

/// What the verifier knows of a signer, from its decoded key, epoch and message.
fn claim_of(key: &ssz::PublicKey, epoch: u32, message: &[u8; MESSAGE_BYTES]) -> Claim {
    Claim {
        parameter: key.parameter.map(field),
        root: digest(&key.root),
        message: hash::message_elements(message).map(field),
        epoch,
    }
}

/// The claim of `item`: its key, message and epoch decoded as [`decode`] does
/// (the same verdict reasons), the signature not read.
fn claim(instance: Instance, item: &Item<'_>) -> Result<Claim, Reject> {
    let (epoch, message) = decode_epoch_and_message(instance, item)?;
    let key = ssz::decode_public_key(
        linesig::leansig::internals::params(instance),
        item.public_key,
    )?;
    Ok(claim_of(&key, epoch, &message))
}

/// The claim and the prover's witness of a signed item, decoded once.
fn signer(instance: Instance, item: &Item<'_>) -> Result<(Claim, Witness), Reject> {
    let decoded = decode(instance, item)?;
    let witness = Witness {
        rho: core::array::from_fn(|i| field(decoded.signature.rho[i])),
        path: decoded.signature.path.iter().map(digest).collect(),
        hashes: decoded.signature.hashes.iter().map(digest).collect(),
    };
    Ok((
        claim_of(&decoded.key, decoded.epoch, &decoded.message),
        witness,
    ))
}

fn capacity(instance: Instance) -> [KoalaBear; 9] {
    linesig::leansig::internals::capacity(instance).map(field)
}

fn check_count<E>(
    instance: Instance,
    count: usize,
    unsupported: fn(Instance) -> E,
    empty: E,
    too_many: fn(usize) -> E,
) -> Result<(), E> {
    if instance != Instance::Devnet4 {
        return Err(unsupported(instance));
    }
    if count == 0 {
        return Err(empty);
    }
    if count > MAX_SIGNATURES {
        return Err(too_many(count));
    }
    Ok(())
}

/// Prove that every item's signature verifies. Items as for [`linesig::leansig::verify`]:
/// SSZ public key, 32-byte message, SSZ signature, the epoch as a 4-byte context.
pub fn prove(instance: Instance, items: &[Item<'_>]) -> Result<AggregateProof, AggregateError> {
    check_count(
        instance,
        items.len(),
        AggregateError::UnsupportedInstance,
        AggregateError::Empty,
        |count| AggregateError::TooMany { count },
    )?;
    // The engine's default for leanSig on this CPU.
    let backend = Backend::best_for(Scheme::LeanSig(instance));
    let mut verdicts = vec![Verdict::Valid; items.len()];
    linesig::leansig::internals::verify_unit(instance, backend, 16, items, 0, &mut verdicts);
    if let Some((index, reason)) = verdicts.iter().enumerate().find_map(|(i, v)| match v {
        Verdict::Invalid(reason) => Some((i, *reason)),
        _ => None,
    }) {
        return Err(AggregateError::InvalidSignature { index, reason });
    }
    let signers: Vec<(Claim, Witness)> = items
        .iter()
        .map(|item| signer(instance, item).expect("verified items decode"))
        .collect();
    let claims: Vec<Claim> = signers.iter().map(|(c, _)| *c).collect();
    let air = AggregateAir::new(&claims, capacity(instance));
    let path = ProverPath::best();
    let trace = air.trace_with(&signers, lanes::fill_block(path));
    let proof = prover::prove(&stark::config(), &air, trace, path);
    Ok(AggregateProof {
        bytes: stark::encode(items.len() as u32, &proof),
    })
}

/// Check `proof` against `signers` (items whose `signature` is not read).
pub fn verify_aggregate(
    instance: Instance,
    signers: &[Item<'_>],
    proof: &[u8],
) -> Result<(), VerifyAggregateError> {
    check_count(
        instance,
        signers.len(),
        VerifyAggregateError::UnsupportedInstance,
        VerifyAggregateError::Empty,
        |count| VerifyAggregateError::TooMany { count },
    )?;
    let claims = signers
        .iter()
        .enumerate()
        .map(|(index, item)| {
            claim(instance, item)
                .map_err(|reason| VerifyAggregateError::BadSigner { index, reason })
        })
        .collect::<Result<Vec<_>, _>>()?;
    let (count, proof) = stark::decode(proof)?;
    if count as usize != claims.len() {
        return Err(VerifyAggregateError::CountMismatch {
            proof: count as usize,
            listed: claims.len(),
        });
    }
    let air = AggregateAir::new(&claims, capacity(instance));
    // The verifier checks shapes before it indexes, but a proof is hostile input: a
    // panic anywhere in it (Plonky3's FRI verifier included) is a refusal, never a crash.
    let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        verifier::verify(&stark::config(), &air, &proof)
    }));
    match outcome {
        Ok(Ok(())) => Ok(()),
        Ok(Err(e)) => Err(VerifyAggregateError::Rejected(e)),
        Err(_) => Err(VerifyAggregateError::Rejected(
            "malformed proof (the verifier stopped on it)".into(),
        )),
    }
}
