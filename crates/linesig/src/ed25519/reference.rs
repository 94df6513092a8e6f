//! The portable backend: one signature at a time on curve25519-dalek's primitives (whose
//! double-base scalar multiplication dispatches to its own AVX2 code at run time). It is
//! also the oracle every lane backend is differential-tested against.

use super::encoding::{is_canonical_encoding, is_small_order_canonical};
use super::policy::Rules;
use super::{challenge, split_signature};
use crate::verdict::{Reject, Verdict};
use curve25519_dalek::edwards::{CompressedEdwardsY, EdwardsPoint};
use curve25519_dalek::scalar::Scalar;
use curve25519_dalek::traits::IsIdentity;

/// A public key decoded once per work unit and reused for every signature under it.
pub(crate) struct DecodedKey {
    /// The bytes as received: k hashes these, not a re-encoding.
    bytes: [u8; 32],
    minus_a: EdwardsPoint,
}

/// Decode A under `rules`: canonicality (if required), decompression, small order.
pub(crate) fn decode_key(rules: Rules, bytes: &[u8; 32]) -> Result<DecodedKey, Reject> {
    if rules.canonical_encodings && !is_canonical_encoding(bytes) {
        return Err(Reject::NonCanonicalEncoding);
    }
    let a = CompressedEdwardsY(*bytes)
        .decompress()
        .ok_or(Reject::BadPublicKey)?;
    if rules.reject_small_order && a.is_small_order() {
        return Err(Reject::SmallOrderKey);
    }
    Ok(DecodedKey {
        bytes: *bytes,
        minus_a: -a,
    })
}

/// Verify one signature under an already decoded key.
pub(crate) fn verify_with_key(
    rules: Rules,
    key: &DecodedKey,
    message: &[u8],
    signature: &[u8; 64],
) -> Verdict {
    match check(rules, key, message, signature) {
        Ok(()) => Verdict::Valid,
        Err(reason) => Verdict::Invalid(reason),
    }
}

fn check(
    rules: Rules,
    key: &DecodedKey,
    message: &[u8],
    signature: &[u8; 64],
) -> Result<(), Reject> {
    let (r_bytes, s_bytes) = split_signature(signature);
    let s: Scalar =
        Option::from(Scalar::from_canonical_bytes(*s_bytes)).ok_or(Reject::NonCanonicalS)?;
    if rules.cofactored {
        if rules.canonical_encodings && !is_canonical_encoding(r_bytes) {
            return Err(Reject::NonCanonicalEncoding);
        }
        let r = CompressedEdwardsY(*r_bytes)
            .decompress()
            .ok_or(Reject::BadSignatureR)?;
        if rules.reject_small_order && r.is_small_order() {
            return Err(Reject::SmallOrderR);
        }
        let k = challenge(r_bytes, &key.bytes, message);
        let sb_minus_ka = EdwardsPoint::vartime_double_scalar_mul_basepoint(&k, &key.minus_a, &s);
        if (sb_minus_ka - r).mul_by_cofactor().is_identity() {
            Ok(())
        } else {
            Err(Reject::EquationFailed)
        }
    } else {
        // Cofactorless, R compared as bytes with enc([S]B − [k]A). Acceptance equals
        // ed25519-dalek `verify_strict` (decompress R, reject small-order R, compare)
        // without decompressing R: if the bytes match, R is the canonical encoding of
        // a point, so it decompresses, and it is of small order exactly when its bytes
        // are one of the eight canonical small-order encodings. If they do not match,
        // both reject. The two byte tests below only name the reason early.
        if !is_canonical_encoding(r_bytes) {
            return Err(Reject::NonCanonicalEncoding);
        }
        if rules.reject_small_order && is_small_order_canonical(r_bytes) {
            return Err(Reject::SmallOrderR);
        }
        let k = challenge(r_bytes, &key.bytes, message);
        let sb_minus_ka = EdwardsPoint::vartime_double_scalar_mul_basepoint(&k, &key.minus_a, &s);
        if sb_minus_ka.compress().as_bytes() == r_bytes {
            Ok(())
        } else {
            Err(Reject::EquationFailed)
        }
    }
}
