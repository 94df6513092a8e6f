//! ML-DSA key generation and signing through C (FIPS 204; libcrux underneath, the same
//! calls `linesig::mldsa` makes), beside the engine's batch verification.

use crate::{array32, guarded, input, output, scheme_number, Failure, LinesigStatus, SchemeNumber};
use linesig::mldsa::{self, ParameterSet, SignError};
use std::ffi::c_int;

fn parameter_set(scheme: u32) -> Result<ParameterSet, Failure> {
    match scheme_number(scheme)? {
        SchemeNumber::MlDsa(p) => Ok(p),
        _ => Err(Failure::new(
            LinesigStatus::UnknownScheme,
            format!(
                "scheme {scheme} ({}) is not ML-DSA (2, 3 or 4)",
                crate::scheme_name(scheme)
            ),
        )),
    }
}

/// The size in bytes of an ML-DSA signing key (0 for a scheme that is not ML-DSA):
/// 2,560, 4,032 or 4,896.
#[no_mangle]
pub extern "C" fn linesig_mldsa_signing_key_len(scheme: u32) -> usize {
    parameter_set(scheme).map_or(0, ParameterSet::signing_key_len)
}

/// ML-DSA.KeyGen_internal (FIPS 204 Algorithm 6) from the 32-byte seed ξ: writes the
/// public key (`linesig_public_key_len(scheme)` bytes) and the signing key
/// (`linesig_mldsa_signing_key_len(scheme)` bytes). The same seed gives the same keys as
/// every FIPS 204 implementation; keep it as secret as the signing key.
///
/// # Safety
/// `seed` `seed_len` readable bytes; `public_key` and `signing_key` their lengths'
/// writable bytes.
#[no_mangle]
pub unsafe extern "C" fn linesig_mldsa_keygen(
    scheme: u32,
    seed: *const u8,
    seed_len: usize,
    public_key: *mut u8,
    public_key_len: usize,
    signing_key: *mut u8,
    signing_key_len: usize,
) -> c_int {
    guarded(|| {
        let parameter_set = parameter_set(scheme)?;
        // SAFETY: the caller's promises, nulls and lengths checked by the helpers.
        let (seed, public_key, signing_key) = unsafe {
            (
                array32("seed", seed, seed_len)?,
                output(
                    "public_key",
                    public_key,
                    public_key_len,
                    parameter_set.public_key_len(),
                )?,
                output(
                    "signing_key",
                    signing_key,
                    signing_key_len,
                    parameter_set.signing_key_len(),
                )?,
            )
        };
        let pair = mldsa::generate_key_pair(parameter_set, seed);
        public_key.copy_from_slice(&pair.public_key);
        signing_key.copy_from_slice(&pair.signing_key);
        Ok(())
    })
}

/// ML-DSA.Sign (FIPS 204 Algorithm 2): signs `message` under `context` (at most 255
/// bytes; empty is the usual) into `signature` (`linesig_signature_len(scheme)` bytes).
/// `randomness`: 32 fresh random bytes for the hedged variant (FIPS 204's default, which
/// a fault or a bad clock cannot turn into a repeated nonce), or null with
/// `randomness_len` 0 for the deterministic variant (rnd = 0^32, §3.4): the same
/// signature for the same key, message and context.
///
/// # Safety
/// Every pointer its length's readable (inputs) or writable (`signature`) bytes.
#[no_mangle]
pub unsafe extern "C" fn linesig_mldsa_sign(
    scheme: u32,
    signing_key: *const u8,
    signing_key_len: usize,
    message: *const u8,
    message_len: usize,
    context: *const u8,
    context_len: usize,
    randomness: *const u8,
    randomness_len: usize,
    signature: *mut u8,
    signature_len: usize,
) -> c_int {
    guarded(|| {
        let parameter_set = parameter_set(scheme)?;
        // SAFETY: the caller's promises, nulls and lengths checked by the helpers.
        let (signing_key, message, context, signature) = unsafe {
            (
                input("signing_key", signing_key, signing_key_len)?,
                input("message", message, message_len)?,
                input("context", context, context_len)?,
                output(
                    "signature",
                    signature,
                    signature_len,
                    parameter_set.signature_len(),
                )?,
            )
        };
        let randomness = if randomness.is_null() && randomness_len == 0 {
            [0u8; 32]
        } else {
            // SAFETY: as above.
            unsafe { array32("randomness", randomness, randomness_len)? }
        };
        let made =
            mldsa::sign(parameter_set, signing_key, message, context, randomness).map_err(|e| {
                let status = match e {
                    SignError::RejectionSampling => LinesigStatus::SigningFailed,
                    SignError::MalformedSigningKey { .. } => LinesigStatus::BadKey,
                    _ => LinesigStatus::BadLength,
                };
                Failure::new(status, e.to_string())
            })?;
        signature.copy_from_slice(&made);
        Ok(())
    })
}
