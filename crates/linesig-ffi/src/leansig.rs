//! leanSig through C: what a lean consensus client in C, C++, Nim or Zig needs to hold
//! a validator key and take part in aggregation.
//!
//! - A secret key is an opaque `LinesigLeansigKey`: generated over an activation
//!   interval, it signs epochs in increasing order, each at most once, inside its
//!   prepared interval (two bottom trees; `linesig_leansig_advance_preparation` slides
//!   it).
//! - **Persist the key after every signature**, before the signature leaves the
//!   process (`linesig_leansig_key_to_bytes`): the key's state is the last epoch it
//!   signed, and a key reloaded from older bytes would sign an epoch again, which
//!   reveals chain values and lets anyone forge for that epoch. Bytes are linesig's
//!   versioned, checksummed format (`linesig::leansig::SecretKey::to_bytes`); loading
//!   checks every tree against the public key.
//! - Aggregation (devnet-4): one proof that every listed signature verifies, and its
//!   check against the (key, message, epoch) list alone.

use crate::{
    array, array32, byte_strings, free_box, guarded, input, null, output, scheme_number, Failure,
    LinesigBuffer, LinesigBytes, LinesigStatus, Outcome, SchemeNumber,
};
use linesig::leansig::{keys, Instance, KeyFormatError, KeyGenError, SecretKey, SignError};
use linesig::{Backend, Scheme};
use rand::rngs::StdRng;
use rand::SeedableRng;
use std::ffi::c_int;

/// A leanSig secret key with its signing state. Opaque to C; one thread at a time.
pub struct LinesigLeansigKey {
    key: SecretKey,
}

/// What a key can sign now, from `linesig_leansig_key_info`.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default)]
pub struct LinesigLeansigKeyInfo {
    /// The `LinesigScheme` the key is for.
    pub scheme: u32,
    /// Epochs the key is active over: `activation_start` ≤ epoch < `activation_end`
    /// (whole bottom trees, so wider than the interval asked for).
    pub activation_start: u64,
    pub activation_end: u64,
    /// Epochs the key can sign without `linesig_leansig_advance_preparation`.
    pub prepared_start: u64,
    pub prepared_end: u64,
    /// The lowest epoch the key may still sign.
    pub next_epoch: u64,
}

pub(crate) fn instance(scheme: u32) -> Result<Instance, Failure> {
    match scheme_number(scheme)? {
        SchemeNumber::LeanSig(i) => Ok(i),
        _ => Err(Failure::new(
            LinesigStatus::UnknownScheme,
            format!(
                "scheme {scheme} ({}) is not leanSig (5, 6 or 7)",
                crate::scheme_name(scheme)
            ),
        )),
    }
}

pub(crate) fn scheme_of(instance: Instance) -> u32 {
    match instance {
        Instance::Devnet4 => 5,
        Instance::L18 => 6,
        Instance::L32 => 7,
    }
}

/// The lanes keys are made and signed on: the best this CPU runs for the instance.
pub(crate) fn backend(instance: Instance) -> Backend {
    Backend::best_for(Scheme::LeanSig(instance))
}

/// # Safety
/// `key` null or from this module's constructors, not freed, used by this thread only.
unsafe fn key_mut<'a>(key: *mut LinesigLeansigKey) -> Result<&'a mut SecretKey, Failure> {
    if key.is_null() {
        return Err(null("key"));
    }
    // SAFETY: the caller's promise.
    Ok(unsafe { &mut (*key).key })
}

/// # Safety
/// As [`key_mut`].
pub(crate) unsafe fn key_ref<'a>(key: *const LinesigLeansigKey) -> Result<&'a SecretKey, Failure> {
    if key.is_null() {
        return Err(null("key"));
    }
    // SAFETY: the caller's promise.
    Ok(unsafe { &(*key).key })
}

/// # Safety
/// `out` null or writable storage for a pointer.
unsafe fn hand_out(
    out: *mut *mut LinesigLeansigKey,
    make: impl FnOnce() -> Result<SecretKey, Failure>,
) -> Outcome {
    // SAFETY: the caller's promise.
    unsafe { crate::hand_out(out, || make().map(|key| LinesigLeansigKey { key })) }
}

/// Generate a key active over at least `activation_epochs` epochs from
/// `activation_start` (rounded out to whole bottom trees, at least two: 1,024 epochs for
/// L18, 131,072 for the 2^32 instances), on all cores. `seed`: 32 bytes that fix the
/// key (tests, fixtures; keep them as secret as the key), or null with `seed_len` 0 for
/// the operating system's randomness. On success `*out` owns the key (free with
/// `linesig_leansig_key_free`).
///
/// # Safety
/// `seed` null or `seed_len` readable bytes; `out` writable storage for a pointer.
#[no_mangle]
pub unsafe extern "C" fn linesig_leansig_keygen(
    scheme: u32,
    seed: *const u8,
    seed_len: usize,
    activation_start: u64,
    activation_epochs: u64,
    out: *mut *mut LinesigLeansigKey,
) -> c_int {
    guarded(|| {
        // SAFETY: the caller's promises.
        unsafe {
            hand_out(out, || {
                let instance = instance(scheme)?;
                let mut rng = if seed.is_null() && seed_len == 0 {
                    StdRng::from_entropy()
                } else {
                    StdRng::from_seed(array32("seed", seed, seed_len)?)
                };
                keys::key_gen(
                    instance,
                    backend(instance),
                    &mut rng,
                    activation_start,
                    activation_epochs,
                )
                .map(|(_, key)| key)
                .map_err(|e: KeyGenError| {
                    Failure::new(LinesigStatus::EpochOutOfRange, e.to_string())
                })
            })
        }
    })
}

/// Free a key (null is ignored).
///
/// # Safety
/// `key` null or from `linesig_leansig_keygen` / `linesig_leansig_key_from_bytes`, not
/// yet freed, not in use by another thread.
#[no_mangle]
pub unsafe extern "C" fn linesig_leansig_key_free(key: *mut LinesigLeansigKey) {
    // SAFETY: the caller's promise, as `free_box` needs it.
    unsafe { free_box(key) }
}

/// Write the key's SSZ public key (`linesig_public_key_len(scheme)` bytes: 52 for
/// devnet-4 and L32, 48 for L18).
///
/// # Safety
/// `key` from `linesig_leansig_keygen` or `linesig_leansig_key_from_bytes`; `public_key` `public_key_len` writable bytes.
#[no_mangle]
pub unsafe extern "C" fn linesig_leansig_public_key(
    key: *const LinesigLeansigKey,
    public_key: *mut u8,
    public_key_len: usize,
) -> c_int {
    guarded(|| {
        // SAFETY: the caller's promises.
        let key = unsafe { key_ref(key)? };
        let bytes = key.public_key();
        // SAFETY: as above.
        unsafe { output("public_key", public_key, public_key_len, bytes.len())? }
            .copy_from_slice(&bytes);
        Ok(())
    })
}

/// The key's scheme, intervals and next epoch.
pub(crate) fn info_of(key: &SecretKey) -> LinesigLeansigKeyInfo {
    let (active, prepared) = (key.activation_interval(), key.prepared_interval());
    LinesigLeansigKeyInfo {
        scheme: scheme_of(key.instance()),
        activation_start: active.start,
        activation_end: active.end,
        prepared_start: prepared.start,
        prepared_end: prepared.end,
        next_epoch: key.next_epoch(),
    }
}

/// A signing refusal as the C ABI's status.
pub(crate) fn sign_failure(e: SignError) -> Failure {
    let status = match e {
        SignError::EpochUsed { .. } => LinesigStatus::EpochUsed,
        SignError::EncodingAttemptsExceeded(_) => LinesigStatus::SigningFailed,
        _ => LinesigStatus::EpochOutOfRange,
    };
    Failure::new(status, e.to_string())
}

/// The key's scheme and intervals.
///
/// # Safety
/// `key` from `linesig_leansig_keygen` or `linesig_leansig_key_from_bytes`; `info` writable.
#[no_mangle]
pub unsafe extern "C" fn linesig_leansig_key_info(
    key: *const LinesigLeansigKey,
    info: *mut LinesigLeansigKeyInfo,
) -> c_int {
    guarded(|| {
        // SAFETY: the caller's promises.
        let key = unsafe { key_ref(key)? };
        // SAFETY: the caller's promise.
        unsafe { crate::write_out("info", info, info_of(key)) }
    })
}

/// Sign the 32-byte `message` (in consensus, an SSZ root) at `epoch` into `signature`
/// (`linesig_signature_len(scheme)` bytes). The epoch must be active, prepared and after
/// every epoch the key signed: else `EPOCH_OUT_OF_RANGE` or `EPOCH_USED`, and nothing is
/// written. Save the key (`linesig_leansig_key_to_bytes`) before the signature leaves.
///
/// # Safety
/// `key` from `linesig_leansig_keygen` or `linesig_leansig_key_from_bytes`, this thread only; `message` `message_len` readable bytes;
/// `signature` `signature_len` writable bytes.
#[no_mangle]
pub unsafe extern "C" fn linesig_leansig_sign(
    key: *mut LinesigLeansigKey,
    epoch: u32,
    message: *const u8,
    message_len: usize,
    signature: *mut u8,
    signature_len: usize,
) -> c_int {
    guarded(|| {
        // SAFETY: the caller's promises, checked by the helpers.
        let (key, message) = unsafe { (key_mut(key)?, array32("message", message, message_len)?) };
        let expected = key.instance().signature_len();
        // SAFETY: as above.
        let signature = unsafe { output("signature", signature, signature_len, expected)? };
        let made = key.sign(epoch, &message).map_err(sign_failure)?;
        signature.copy_from_slice(&made);
        Ok(())
    })
}

/// Slide the prepared interval by one bottom tree (building the next one: a keygen's
/// worth of hashing for one tree), unless it would pass the end of the activation
/// interval. `*moved` (if not null) says whether it moved. Call it ahead of need, while
/// the key is idle; save the key afterwards.
///
/// # Safety
/// `key` from `linesig_leansig_keygen` or `linesig_leansig_key_from_bytes`, this thread only; `moved` null or writable.
#[no_mangle]
pub unsafe extern "C" fn linesig_leansig_advance_preparation(
    key: *mut LinesigLeansigKey,
    moved: *mut bool,
) -> c_int {
    guarded(|| {
        // SAFETY: the caller's promises.
        let key = unsafe { key_mut(key)? };
        let did = key.advance_preparation();
        if !moved.is_null() {
            // SAFETY: non-null, writable (the caller's promise).
            unsafe { *moved = did };
        }
        Ok(())
    })
}

/// The key and its signing state as bytes, into `*out` (free with
/// `linesig_buffer_free`): about 8 MiB for devnet-4 and L32, 57 KiB for L18.
///
/// # Safety
/// `key` from `linesig_leansig_keygen` or `linesig_leansig_key_from_bytes`; `out` writable.
#[no_mangle]
pub unsafe extern "C" fn linesig_leansig_key_to_bytes(
    key: *const LinesigLeansigKey,
    out: *mut LinesigBuffer,
) -> c_int {
    guarded(|| {
        if out.is_null() {
            return Err(null("out"));
        }
        // SAFETY: non-null, writable (the caller's promise).
        let out = unsafe { &mut *out };
        *out = LinesigBuffer::EMPTY;
        // SAFETY: the caller's promise.
        let key = unsafe { key_ref(key)? };
        *out = LinesigBuffer::from_vec(key.to_bytes());
        Ok(())
    })
}

/// Load a key of `scheme` saved by `linesig_leansig_key_to_bytes`. Bytes that are
/// foreign, truncated, altered, of another format version or another scheme are
/// `BAD_KEY`, with the reason in `linesig_last_error_message`.
///
/// # Safety
/// `bytes` `len` readable bytes; `out` writable storage for a pointer.
#[no_mangle]
pub unsafe extern "C" fn linesig_leansig_key_from_bytes(
    scheme: u32,
    bytes: *const u8,
    len: usize,
    out: *mut *mut LinesigLeansigKey,
) -> c_int {
    guarded(|| {
        // SAFETY: the caller's promises.
        unsafe {
            hand_out(out, || {
                let instance = instance(scheme)?;
                let bytes = input("bytes", bytes, len)?;
                let bad = |e: KeyFormatError| Failure::new(LinesigStatus::BadKey, e.to_string());
                // Another scheme's key is refused from its header, before the load
                // re-hashes its trees.
                let found = SecretKey::instance_in(bytes).map_err(bad)?;
                if found != instance {
                    return Err(bad(KeyFormatError::WrongInstance {
                        expected: instance,
                        found,
                    }));
                }
                SecretKey::from_bytes(bytes, backend(instance)).map_err(bad)
            })
        }
    })
}

/// The (key, message, epoch[, signature]) lists of an aggregation call, checked.
struct Signers<'a> {
    public_keys: &'a [LinesigBytes],
    messages: &'a [LinesigBytes],
    signatures: Option<&'a [LinesigBytes]>,
    /// The epochs as items carry them (4-byte contexts).
    contexts: Vec<[u8; 4]>,
}

impl<'a> Signers<'a> {
    /// # Safety
    /// Each non-null array `count` entries, each entry `len` readable bytes.
    unsafe fn new(
        count: usize,
        public_keys: *const LinesigBytes,
        messages: *const LinesigBytes,
        epochs: *const u32,
        signatures: Option<*const LinesigBytes>,
    ) -> Result<Signers<'a>, Failure> {
        // SAFETY: the caller's promises; nulls refused by the helpers.
        let (public_keys, messages, epochs, signatures) = unsafe {
            (
                byte_strings("public_keys", public_keys, count)?,
                byte_strings("messages", messages, count)?,
                array("epochs", epochs, count)?,
                match signatures {
                    Some(s) => Some(byte_strings("signatures", s, count)?),
                    None => None,
                },
            )
        };
        Ok(Signers {
            public_keys,
            messages,
            signatures,
            contexts: epochs
                .iter()
                .map(|&e| linesig::leansig::epoch_context(e))
                .collect(),
        })
    }

    fn items(&self) -> Vec<linesig::Item<'_>> {
        let bytes = |b: &LinesigBytes| {
            // SAFETY: null entries with bytes refused in `new`; the caller's promise.
            unsafe { crate::slice(b.ptr, b.len) }
        };
        (0..self.public_keys.len())
            .map(|i| {
                let signature = self.signatures.map_or(&[][..], |s| bytes(&s[i]));
                linesig::Item::new(
                    bytes(&self.public_keys[i]),
                    bytes(&self.messages[i]),
                    signature,
                )
                .with_context(&self.contexts[i])
            })
            .collect()
    }
}

/// Set `*failed_index` (if not null) to `index`, or SIZE_MAX when no item is at fault.
///
/// # Safety
/// `failed_index` null or writable.
unsafe fn report_index(failed_index: *mut usize, index: Option<usize>) {
    if !failed_index.is_null() {
        // SAFETY: the caller's promise.
        unsafe { *failed_index = index.unwrap_or(usize::MAX) };
    }
}

/// Prove that all `count` signatures verify (devnet-4; 1 to 8,192 of them): signer i is
/// (`public_keys[i]`, `messages[i]` of 32 bytes, `epochs[i]`, `signatures[i]`). The
/// proof goes to `*proof` (free with `linesig_buffer_free`). If a signature does not
/// verify, no proof is made: `INVALID_ITEM` with its index in `*failed_index` (SIZE_MAX
/// for any other failure; `failed_index` may be null). Runs on all cores.
///
/// # Safety
/// Each array `count` entries, each entry `len` readable bytes; `proof` writable;
/// `failed_index` null or writable.
#[no_mangle]
pub unsafe extern "C" fn linesig_leansig_aggregate(
    scheme: u32,
    count: usize,
    public_keys: *const LinesigBytes,
    messages: *const LinesigBytes,
    epochs: *const u32,
    signatures: *const LinesigBytes,
    proof: *mut LinesigBuffer,
    failed_index: *mut usize,
) -> c_int {
    guarded(|| {
        // SAFETY: the caller's promise.
        unsafe { report_index(failed_index, None) };
        if proof.is_null() {
            return Err(null("proof"));
        }
        // SAFETY: non-null, writable (the caller's promise).
        let proof = unsafe { &mut *proof };
        *proof = LinesigBuffer::EMPTY;
        let instance = instance(scheme)?;
        aggregate::check_count(count)?;
        // SAFETY: the caller's promises.
        let signers =
            unsafe { Signers::new(count, public_keys, messages, epochs, Some(signatures))? };
        let made = aggregate::prove(instance, &signers.items()).map_err(|(failure, index)| {
            // SAFETY: as above.
            unsafe { report_index(failed_index, index) };
            failure
        })?;
        *proof = LinesigBuffer::from_vec(made);
        Ok(())
    })
}

/// Check an aggregate proof against the `count` signers it claims (key, 32-byte
/// message, epoch; no signatures): `OK` if it proves that each signed its message at
/// its epoch, in this order; `PROOF_REJECTED` if not; `MALFORMED_PROOF` for bytes that
/// are no proof; `INVALID_ITEM` with `*failed_index` for a signer that does not decode.
///
/// # Safety
/// Each array `count` entries, each entry `len` readable bytes; `proof` `proof_len`
/// readable bytes; `failed_index` null or writable.
#[no_mangle]
pub unsafe extern "C" fn linesig_leansig_verify_aggregate(
    scheme: u32,
    count: usize,
    public_keys: *const LinesigBytes,
    messages: *const LinesigBytes,
    epochs: *const u32,
    proof: *const u8,
    proof_len: usize,
    failed_index: *mut usize,
) -> c_int {
    guarded(|| {
        // SAFETY: the caller's promise.
        unsafe { report_index(failed_index, None) };
        let instance = instance(scheme)?;
        aggregate::check_count(count)?;
        // SAFETY: the caller's promises.
        let (signers, proof) = unsafe {
            (
                Signers::new(count, public_keys, messages, epochs, None)?,
                input("proof", proof, proof_len)?,
            )
        };
        aggregate::verify(instance, &signers.items(), proof).map_err(|(failure, index)| {
            // SAFETY: as above.
            unsafe { report_index(failed_index, index) };
            failure
        })
    })
}

/// Aggregation's two calls, each failure with its status and the index of the item at
/// fault, if one is.
#[cfg(feature = "aggregate")]
mod aggregate {
    use super::{Failure, LinesigStatus};
    use linesig::leansig::Instance;
    use linesig::Item;
    use linesig_aggregate::{self as aggregate, AggregateError, VerifyAggregateError};

    type Refusal = (Failure, Option<usize>);

    /// A list's length, checked before its arrays are read (a caller's count is all it
    /// says of them).
    pub fn check_count(count: usize) -> Result<(), Failure> {
        if count == 0 || count > aggregate::MAX_SIGNATURES {
            return Err(Failure::new(
                LinesigStatus::BadLength,
                format!(
                    "{count} signatures: one proof covers 1 to {}",
                    aggregate::MAX_SIGNATURES
                ),
            ));
        }
        Ok(())
    }

    pub fn prove(instance: Instance, items: &[Item<'_>]) -> Result<Vec<u8>, Refusal> {
        aggregate::prove(instance, items)
            .map(|proof| proof.bytes)
            .map_err(|e| {
                let (status, index) = match e {
                    AggregateError::UnsupportedInstance(_) => (LinesigStatus::UnknownScheme, None),
                    AggregateError::Empty | AggregateError::TooMany { .. } => {
                        (LinesigStatus::BadLength, None)
                    }
                    AggregateError::InvalidSignature { index, .. } => {
                        (LinesigStatus::InvalidItem, Some(index))
                    }
                    // A refusal this build does not know yet: its message says why.
                    _ => (LinesigStatus::InternalError, None),
                };
                (Failure::new(status, e.to_string()), index)
            })
    }

    pub fn verify(instance: Instance, items: &[Item<'_>], proof: &[u8]) -> Result<(), Refusal> {
        aggregate::verify_aggregate(instance, items, proof).map_err(|e| {
            let (status, index) = match &e {
                VerifyAggregateError::UnsupportedInstance(_) => {
                    (LinesigStatus::UnknownScheme, None)
                }
                VerifyAggregateError::Empty | VerifyAggregateError::TooMany { .. } => {
                    (LinesigStatus::BadLength, None)
                }
                VerifyAggregateError::BadSigner { index, .. } => {
                    (LinesigStatus::InvalidItem, Some(*index))
                }
                VerifyAggregateError::Format(_) => (LinesigStatus::MalformedProof, None),
                VerifyAggregateError::CountMismatch { .. } | VerifyAggregateError::Rejected(_) => {
                    (LinesigStatus::ProofRejected, None)
                }
                // A refusal this build does not know yet: a proof not accepted.
                _ => (LinesigStatus::ProofRejected, None),
            };
            let message = match &e {
                VerifyAggregateError::Rejected(detail) => format!("{e} (the verifier: {detail})"),
                _ => e.to_string(),
            };
            (Failure::new(status, message), index)
        })
    }
}

/// Without the `aggregate` feature, both calls say so.
#[cfg(not(feature = "aggregate"))]
mod aggregate {
    use super::{Failure, LinesigStatus};
    use linesig::leansig::Instance;
    use linesig::Item;

    type Refusal = (Failure, Option<usize>);

    fn not_built() -> Refusal {
        (
            Failure::new(
                LinesigStatus::AggregationNotBuilt,
                "this build of linesig-ffi has no aggregation (build it with the `aggregate` feature)",
            ),
            None,
        )
    }

    pub fn check_count(_: usize) -> Result<(), Failure> {
        Err(not_built().0)
    }

    pub fn prove(_: Instance, _: &[Item<'_>]) -> Result<Vec<u8>, Refusal> {
        Err(not_built())
    }

    pub fn verify(_: Instance, _: &[Item<'_>], _: &[u8]) -> Result<(), Refusal> {
        Err(not_built())
    }
}
