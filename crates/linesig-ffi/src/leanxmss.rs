//! leanXMSS through C (scheme 8, `LINESIG_SCHEME_LEANXMSS`): what a lean devnet client
//! needs to hold a validator key. Verification is the engine's (`linesig_engine_verify`
//! with scheme 8, the epoch as each item's four-byte context).
//!
//! - A secret key is an opaque `LinesigLeanxmssKey`: made from a 32-byte seed for the
//!   epochs `epoch_start..=epoch_end` (the spec's `keyGen`; its whole tree is built
//!   then, so there is nothing to advance later), it signs each epoch of the range at
//!   most once, in increasing order.
//! - **Persist the key after every signature**, before the signature leaves the
//!   process (`linesig_leanxmss_key_to_bytes`, or sign through a key file:
//!   `linesig_leanxmss_key_file_*`, which does it for you under a lock). The bytes are
//!   linesig's `LXSK` format: seed, range and next epoch, checksummed; loading rebuilds
//!   the tree.

use crate::key_file::{file_failure_with, path_of};
use crate::{
    array32, free_box, guarded, input, null, output, write_out, Failure, LinesigBuffer,
    LinesigStatus, Outcome,
};
use linesig::leanxmss::{
    self, Instance, KeyFile, KeyFileError, KeyFileSignError, KeyFormatError, SecretKey, SignError,
    PUBLIC_KEY_BYTES, SIGNATURE_BYTES,
};
use linesig::{Backend, Scheme};
use rand::rngs::OsRng;
use rand::RngCore;
use std::ffi::{c_char, c_int};

/// A leanXMSS secret key with its signing state. Opaque to C; one thread at a time.
pub struct LinesigLeanxmssKey {
    key: SecretKey,
}

/// A leanXMSS key file, locked by this handle until `linesig_leanxmss_key_file_close`.
/// Opaque to C; one thread at a time.
pub struct LinesigLeanxmssKeyFile {
    file: KeyFile,
}

/// A leanXMSS key's range and the next epoch it may sign.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default)]
pub struct LinesigLeanxmssKeyInfo {
    /// The first and last epoch the key signs at (inclusive).
    pub epoch_start: u32,
    pub epoch_end: u32,
    /// The lowest epoch the key may still sign (`epoch_end + 1` once spent).
    pub next_epoch: u64,
}

/// The lanes keys are made and signed on: the best this CPU runs.
fn backend() -> Backend {
    Backend::best_for(Scheme::LeanXmss(Instance::Spec))
}

fn info_of(key: &SecretKey) -> LinesigLeanxmssKeyInfo {
    let (epoch_start, epoch_end) = key.range();
    LinesigLeanxmssKeyInfo {
        epoch_start,
        epoch_end,
        next_epoch: key.next_epoch(),
    }
}

fn sign_failure(e: SignError) -> Failure {
    let status = match e {
        SignError::EpochUsed { .. } => LinesigStatus::EpochUsed,
        SignError::NoAdmissibleEncoding { .. } => LinesigStatus::SigningFailed,
        _ => LinesigStatus::EpochOutOfRange,
    };
    Failure::new(status, e.to_string())
}

fn file_failure(e: KeyFileError) -> Failure {
    file_failure_with(e)
}

/// # Safety
/// `key` null or from this module's constructors, not freed, used by this thread only.
unsafe fn key_ref<'a>(key: *const LinesigLeanxmssKey) -> Result<&'a SecretKey, Failure> {
    if key.is_null() {
        return Err(null("key"));
    }
    // SAFETY: the caller's promise.
    Ok(unsafe { &(*key).key })
}

/// # Safety
/// As [`key_ref`].
unsafe fn key_mut<'a>(key: *mut LinesigLeanxmssKey) -> Result<&'a mut SecretKey, Failure> {
    if key.is_null() {
        return Err(null("key"));
    }
    // SAFETY: the caller's promise.
    Ok(unsafe { &mut (*key).key })
}

/// # Safety
/// `out` null or writable storage for a pointer.
unsafe fn hand_out(
    out: *mut *mut LinesigLeanxmssKey,
    make: impl FnOnce() -> Result<SecretKey, Failure>,
) -> Outcome {
    // SAFETY: the caller's promise.
    unsafe { crate::hand_out(out, || make().map(|key| LinesigLeanxmssKey { key })) }
}

/// Generate the key a 32-byte `seed` grows for epochs `epoch_start..=epoch_end` (the
/// spec's `keyGen`: the same seed and range give the same key), or, with `seed` null
/// and `seed_len` 0, a key from the operating system's randomness. Building its tree
/// costs 347 BLAKE2s compressions per epoch of the range. `EPOCH_OUT_OF_RANGE` for
/// `epoch_start > epoch_end`. On success `*out` owns the key (free with
/// `linesig_leanxmss_key_free`).
///
/// # Safety
/// `seed` null or `seed_len` readable bytes; `out` writable storage for a pointer.
#[no_mangle]
pub unsafe extern "C" fn linesig_leanxmss_keygen(
    seed: *const u8,
    seed_len: usize,
    epoch_start: u32,
    epoch_end: u32,
    out: *mut *mut LinesigLeanxmssKey,
) -> c_int {
    guarded(|| {
        // SAFETY: the caller's promises.
        unsafe {
            hand_out(out, || {
                let seed = if seed.is_null() && seed_len == 0 {
                    let mut fresh = [0u8; 32];
                    OsRng.fill_bytes(&mut fresh);
                    fresh
                } else {
                    array32("seed", seed, seed_len)?
                };
                leanxmss::key_gen(Instance::Spec, &seed, epoch_start, epoch_end, backend())
                    .map_err(|e| Failure::new(LinesigStatus::EpochOutOfRange, e.to_string()))
            })
        }
    })
}

/// Free a key (null is ignored).
///
/// # Safety
/// `key` null or from `linesig_leanxmss_keygen` / `linesig_leanxmss_key_from_bytes`, not
/// yet freed, not in use by another thread.
#[no_mangle]
pub unsafe extern "C" fn linesig_leanxmss_key_free(key: *mut LinesigLeanxmssKey) {
    // SAFETY: the caller's promise, as `free_box` needs it.
    unsafe { free_box(key) }
}

/// Write the key's 32-byte public key (Merkle root ‖ public parameter).
///
/// # Safety
/// `key` a live key; `public_key` `public_key_len` writable bytes.
#[no_mangle]
pub unsafe extern "C" fn linesig_leanxmss_public_key(
    key: *const LinesigLeanxmssKey,
    public_key: *mut u8,
    public_key_len: usize,
) -> c_int {
    guarded(|| {
        // SAFETY: the caller's promises.
        let key = unsafe { key_ref(key)? };
        // SAFETY: as above.
        unsafe { output("public_key", public_key, public_key_len, PUBLIC_KEY_BYTES)? }
            .copy_from_slice(&key.public_key());
        Ok(())
    })
}

/// The key's range and next epoch.
///
/// # Safety
/// `key` a live key; `info` writable.
#[no_mangle]
pub unsafe extern "C" fn linesig_leanxmss_key_info(
    key: *const LinesigLeanxmssKey,
    info: *mut LinesigLeanxmssKeyInfo,
) -> c_int {
    guarded(|| {
        // SAFETY: the caller's promises.
        let key = unsafe { key_ref(key)? };
        // SAFETY: the caller's promise.
        unsafe { write_out("info", info, info_of(key)) }
    })
}

/// Sign the 32-byte `message` at `epoch` into `signature` (1,208 bytes). The epoch must
/// be in the key's range (`EPOCH_OUT_OF_RANGE`) and at or after its next epoch
/// (`EPOCH_USED`); nothing is written otherwise. Save the key
/// (`linesig_leanxmss_key_to_bytes`) before the signature leaves.
///
/// # Safety
/// `key` a live key, this thread only; `message` `message_len` readable bytes;
/// `signature` `signature_len` writable bytes.
#[no_mangle]
pub unsafe extern "C" fn linesig_leanxmss_sign(
    key: *mut LinesigLeanxmssKey,
    epoch: u32,
    message: *const u8,
    message_len: usize,
    signature: *mut u8,
    signature_len: usize,
) -> c_int {
    guarded(|| {
        // SAFETY: the caller's promises, checked by the helpers.
        let (key, message) = unsafe { (key_mut(key)?, array32("message", message, message_len)?) };
        // SAFETY: as above.
        let signature = unsafe { output("signature", signature, signature_len, SIGNATURE_BYTES)? };
        let made = key.sign(epoch, &message).map_err(sign_failure)?;
        signature.copy_from_slice(&made);
        Ok(())
    })
}

/// The key and its signing state as bytes (72), into `*out` (free with
/// `linesig_buffer_free`).
///
/// # Safety
/// `key` a live key; `out` writable.
#[no_mangle]
pub unsafe extern "C" fn linesig_leanxmss_key_to_bytes(
    key: *const LinesigLeanxmssKey,
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
        *out = LinesigBuffer::from_vec(key.to_bytes().to_vec());
        Ok(())
    })
}

/// Load a key saved by `linesig_leanxmss_key_to_bytes`, rebuilding its tree. Bytes that
/// are foreign, truncated, altered or of another format version are `BAD_KEY`, with the
/// reason in `linesig_last_error_message`.
///
/// # Safety
/// `bytes` `len` readable bytes; `out` writable storage for a pointer.
#[no_mangle]
pub unsafe extern "C" fn linesig_leanxmss_key_from_bytes(
    bytes: *const u8,
    len: usize,
    out: *mut *mut LinesigLeanxmssKey,
) -> c_int {
    guarded(|| {
        // SAFETY: the caller's promises.
        unsafe {
            hand_out(out, || {
                let bytes = input("bytes", bytes, len)?;
                SecretKey::from_bytes(bytes, backend())
                    .map_err(|e: KeyFormatError| Failure::new(LinesigStatus::BadKey, e.to_string()))
            })
        }
    })
}

/// Write `key` to a new key file at `path` (NUL-terminated), durably. `IO_ERROR` if the
/// file exists (a key file is never overwritten) or cannot be written.
///
/// # Safety
/// `key` a live key; `path` a NUL-terminated string.
#[no_mangle]
pub unsafe extern "C" fn linesig_leanxmss_key_file_create(
    key: *const LinesigLeanxmssKey,
    path: *const c_char,
) -> c_int {
    guarded(|| {
        // SAFETY: the caller's promises.
        let (key, path) = unsafe { (key_ref(key)?, path_of(path)?) };
        leanxmss::save_new(&path, key)
            .map(drop)
            .map_err(file_failure)
    })
}

/// Open the leanXMSS key file at `path` (NUL-terminated), waiting for its exclusive lock
/// while another handle or process holds it, and load the key. On success `*out` owns
/// the handle and its lock (release both with `linesig_leanxmss_key_file_close`).
/// `BAD_KEY` for a damaged or foreign file, `IO_ERROR` for one that cannot be read.
///
/// # Safety
/// `path` a NUL-terminated string; `out` writable storage for a pointer.
#[no_mangle]
pub unsafe extern "C" fn linesig_leanxmss_key_file_open(
    path: *const c_char,
    out: *mut *mut LinesigLeanxmssKeyFile,
) -> c_int {
    guarded(|| {
        // SAFETY: the caller's promises.
        unsafe {
            crate::hand_out(out, || {
                let file = KeyFile::open(&path_of(path)?, backend()).map_err(file_failure)?;
                Ok(LinesigLeanxmssKeyFile { file })
            })
        }
    })
}

/// # Safety
/// `file` null or from `linesig_leanxmss_key_file_open`, not closed, this thread only.
unsafe fn file_mut<'a>(file: *mut LinesigLeanxmssKeyFile) -> Result<&'a mut KeyFile, Failure> {
    if file.is_null() {
        return Err(null("file"));
    }
    // SAFETY: the caller's promise.
    Ok(unsafe { &mut (*file).file })
}

/// Sign the 32-byte `message` at `epoch` into `signature` (1,208 bytes), saving the key
/// file durably before returning: when this returns `OK`, no later open of the file can
/// sign `epoch` again. Statuses as `linesig_leanxmss_sign`'s; `IO_ERROR` if the save
/// failed (no signature is written; the epoch counts as used by this handle).
///
/// # Safety
/// `file` an open handle, this thread only; `message` `message_len` readable bytes;
/// `signature` `signature_len` writable bytes.
#[no_mangle]
pub unsafe extern "C" fn linesig_leanxmss_key_file_sign(
    file: *mut LinesigLeanxmssKeyFile,
    epoch: u32,
    message: *const u8,
    message_len: usize,
    signature: *mut u8,
    signature_len: usize,
) -> c_int {
    guarded(|| {
        // SAFETY: the caller's promises, checked by the helpers.
        let (file, message) =
            unsafe { (file_mut(file)?, array32("message", message, message_len)?) };
        // SAFETY: as above.
        let signature = unsafe { output("signature", signature, signature_len, SIGNATURE_BYTES)? };
        let made = file.sign(epoch, &message).map_err(|e| match e {
            KeyFileSignError::Sign(e) => sign_failure(e),
            KeyFileSignError::File(e) => file_failure(e),
            e => Failure::new(LinesigStatus::InternalError, e.to_string()),
        })?;
        signature.copy_from_slice(&made);
        Ok(())
    })
}

/// The key's range and next epoch, as `linesig_leanxmss_key_info`.
///
/// # Safety
/// `file` an open handle; `info` writable.
#[no_mangle]
pub unsafe extern "C" fn linesig_leanxmss_key_file_info(
    file: *mut LinesigLeanxmssKeyFile,
    info: *mut LinesigLeanxmssKeyInfo,
) -> c_int {
    guarded(|| {
        // SAFETY: the caller's promise.
        let file = unsafe { file_mut(file)? };
        // SAFETY: the caller's promise.
        unsafe { write_out("info", info, info_of(file.key())) }
    })
}

/// Close the handle and release its lock (null is ignored).
///
/// # Safety
/// `file` null or from `linesig_leanxmss_key_file_open`, not yet closed, not in use by
/// another thread.
#[no_mangle]
pub unsafe extern "C" fn linesig_leanxmss_key_file_close(file: *mut LinesigLeanxmssKeyFile) {
    // SAFETY: the caller's promise, as `free_box` needs it.
    unsafe { free_box(file) }
}
