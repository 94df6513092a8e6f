//! The portable backend: one signature at a time on curve25519-dalek's primitives (whose
//! double-base scalar multiplication dispatches to its own AVX2 code at run time). It is
//! also the oracle every lane backend is differential-tested against. Hot keys (with the
//! key cache on) take the fixed-base path of the generic lane code on its portable,
//! one-lane field instead.

use super::policy::Rules;
use super::{challenge, precheck_key, precheck_signature, UnitEntry};
use crate::verdict::{Reject, Verdict};
use curve25519_dalek::edwards::{CompressedEdwardsY, EdwardsPoint};
use curve25519_dalek::traits::IsIdentity;
use curve25519_dalek::Scalar;
use std::ops::Range;

/// A public key decoded once per work unit and reused for every signature under it.
struct DecodedKey {
    /// The bytes as received: k hashes these, not a re-encoding.
    bytes: [u8; 32],
    minus_a: EdwardsPoint,
}

/// Verify a work unit's well-formed entries, sorted into `groups` of one key each, into
/// `out` (indexed by `entry.slot`), decoding each distinct key once.
pub(crate) fn verify_groups(
    rules: Rules,
    entries: &[UnitEntry<'_>],
    groups: &[Range<usize>],
    out: &mut [Verdict],
) {
    for range in groups {
        let group = &entries[range.clone()];
        match decode_key(rules, group[0].public_key) {
            Err(reason) => {
                for entry in group {
                    out[entry.slot as usize] = Verdict::Invalid(reason);
                }
            }
            Ok(key) => {
                for entry in group {
                    out[entry.slot as usize] =
                        Verdict::from(check(rules, &key, entry.message, entry.signature));
                }
            }
        }
    }
}

/// Decode A under `rules`: canonicality (if required), decompression, small order.
fn decode_key(rules: Rules, bytes: &[u8; 32]) -> Result<DecodedKey, Reject> {
    precheck_key(rules, bytes)?;
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

fn check(
    rules: Rules,
    key: &DecodedKey,
    message: &[u8],
    signature: &[u8; 64],
) -> Result<(), Reject> {
    let (r_bytes, s) = precheck_signature(rules, signature)?;
    // curve25519-dalek's own S < L check, which agrees (`scalar_mod_l`'s tests).
    let s: Scalar = Option::from(Scalar::from_canonical_bytes(*s)).ok_or(Reject::NonCanonicalS)?;
    let k = challenge(r_bytes, &key.bytes, message);
    let sb_minus_ka = EdwardsPoint::vartime_double_scalar_mul_basepoint(&k, &key.minus_a, &s);
    if rules.cofactored {
        let r = CompressedEdwardsY(*r_bytes)
            .decompress()
            .ok_or(Reject::BadSignatureR)?;
        if rules.reject_small_order && r.is_small_order() {
            return Err(Reject::SmallOrderR);
        }
        if (sb_minus_ka - r).mul_by_cofactor().is_identity() {
            Ok(())
        } else {
            Err(Reject::EquationFailed)
        }
    } else if sb_minus_ka.compress().as_bytes() == r_bytes {
        // Cofactorless with R compared as bytes: `precheck_signature` explains why this
        // equals ed25519-dalek `verify_strict` without decompressing R.
        Ok(())
    } else {
        Err(Reject::EquationFailed)
    }
}
