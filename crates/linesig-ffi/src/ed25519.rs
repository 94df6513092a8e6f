//! Ed25519 keys and signing through C (RFC 8032 §5.1.5–5.1.6, by ed25519-dalek), so a C,
//! C++ or Nim program can make the signatures the engine verifies without a second
//! library. Deterministic: the 32-byte secret seed fixes the key and every signature.

use crate::{array32, guarded, input, output};
use ed25519_dalek::{Signer, SigningKey};
use linesig::wire::{KEY_LEN, SIGNATURE_LEN};
use std::ffi::c_int;

/// The public key (32 bytes) of the secret seed `seed` (32 bytes; RFC 8032 §5.1.5).
///
/// # Safety
/// `seed` `seed_len` readable bytes; `public_key` `public_key_len` writable bytes.
#[no_mangle]
pub unsafe extern "C" fn linesig_ed25519_public_key(
    seed: *const u8,
    seed_len: usize,
    public_key: *mut u8,
    public_key_len: usize,
) -> c_int {
    guarded(|| {
        // SAFETY: the caller's promises, nulls and lengths checked by the helpers.
        let (seed, public_key) = unsafe {
            (
                array32("seed", seed, seed_len)?,
                output("public_key", public_key, public_key_len, KEY_LEN)?,
            )
        };
        public_key.copy_from_slice(SigningKey::from_bytes(&seed).verifying_key().as_bytes());
        Ok(())
    })
}

/// Sign `message` with the secret seed `seed` (32 bytes) into `signature` (64 bytes;
/// RFC 8032 §5.1.6, deterministic). Seeds that sign many messages are best turned into
/// keys once; this call re-derives the key each time (about a third of its cost).
///
/// # Safety
/// Every pointer its length's readable (inputs) or writable (`signature`) bytes.
#[no_mangle]
pub unsafe extern "C" fn linesig_ed25519_sign(
    seed: *const u8,
    seed_len: usize,
    message: *const u8,
    message_len: usize,
    signature: *mut u8,
    signature_len: usize,
) -> c_int {
    guarded(|| {
        // SAFETY: as above.
        let (seed, message, signature) = unsafe {
            (
                array32("seed", seed, seed_len)?,
                input("message", message, message_len)?,
                output("signature", signature, signature_len, SIGNATURE_LEN)?,
            )
        };
        signature.copy_from_slice(&SigningKey::from_bytes(&seed).sign(message).to_bytes());
        Ok(())
    })
}
