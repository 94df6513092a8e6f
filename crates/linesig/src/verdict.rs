//! Per-item outcomes. Acceptance is what must match the chain's oracle; the [`Reject`]
//! reason is a diagnostic, identical across backends.

use std::fmt;

/// The outcome for one item.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Verdict {
    Valid,
    Invalid(Reject),
}

impl Verdict {
    pub fn is_valid(self) -> bool {
        matches!(self, Verdict::Valid)
    }

    /// The reason, for an invalid item.
    pub fn reject(self) -> Option<Reject> {
        match self {
            Verdict::Valid => None,
            Verdict::Invalid(reason) => Some(reason),
        }
    }
}

/// Why an item was rejected. For Ed25519 the checks run in this order, and the first
/// failing one names the verdict: context (none allowed), lengths, the public key, S, R,
/// then the equation. ML-DSA reports context, lengths, then FIPS 204 Algorithm 8's
/// checks in its order (hint, norm bound, commitment).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Reject {
    /// Public key not 32 bytes or signature not 64 bytes.
    BadLength,
    /// The public key bytes are not the encoding of a curve point.
    BadPublicKey,
    /// R does not decode to a curve point (cofactored policies; `Strict` compares R as
    /// bytes and reports such an R as `EquationFailed`).
    BadSignatureR,
    /// S ≥ L (RFC 8032 §5.1.7 requires 0 ≤ S < L).
    NonCanonicalS,
    /// The public key is a point of small order (order dividing 8).
    SmallOrderKey,
    /// R is a point of small order.
    SmallOrderR,
    /// A or R is not the canonical encoding of its point (y ≥ p, or x = 0 with the
    /// sign bit set) under a policy that requires canonical encodings.
    NonCanonicalEncoding,
    /// Every encoding check passed but the verification equation does not hold (for
    /// ML-DSA: the commitment hash c̃ does not match, FIPS 204 Algorithm 8 step 13).
    EquationFailed,
    /// A context string the scheme does not allow: any non-empty one for Ed25519, one
    /// longer than 255 bytes for ML-DSA (FIPS 204 §5.2).
    BadContext,
    /// ML-DSA: the hint h is not a valid encoding (FIPS 204 Algorithm 21 HintBitUnpack).
    MalformedHint,
    /// ML-DSA: the response z has ‖z‖∞ ≥ γ1 − β (FIPS 204 Algorithm 8 step 13).
    NormBoundExceeded,
}

impl Reject {
    /// Every reason.
    pub const ALL: [Reject; 11] = [
        Reject::BadLength,
        Reject::BadPublicKey,
        Reject::BadSignatureR,
        Reject::NonCanonicalS,
        Reject::SmallOrderKey,
        Reject::SmallOrderR,
        Reject::NonCanonicalEncoding,
        Reject::EquationFailed,
        Reject::BadContext,
        Reject::MalformedHint,
        Reject::NormBoundExceeded,
    ];

    /// Stable snake_case name, used in JSON output.
    pub fn as_str(self) -> &'static str {
        match self {
            Reject::BadLength => "bad_length",
            Reject::BadPublicKey => "bad_public_key",
            Reject::BadSignatureR => "bad_signature_r",
            Reject::NonCanonicalS => "non_canonical_s",
            Reject::SmallOrderKey => "small_order_key",
            Reject::SmallOrderR => "small_order_r",
            Reject::NonCanonicalEncoding => "non_canonical_encoding",
            Reject::EquationFailed => "equation_failed",
            Reject::BadContext => "bad_context",
            Reject::MalformedHint => "malformed_hint",
            Reject::NormBoundExceeded => "norm_bound_exceeded",
        }
    }

    /// Stable one-byte code (1..=11; 0 means valid), for the C ABI and columnar outputs.
    pub fn code(self) -> u8 {
        match self {
            Reject::BadLength => 1,
            Reject::BadPublicKey => 2,
            Reject::BadSignatureR => 3,
            Reject::NonCanonicalS => 4,
            Reject::SmallOrderKey => 5,
            Reject::SmallOrderR => 6,
            Reject::NonCanonicalEncoding => 7,
            Reject::EquationFailed => 8,
            Reject::BadContext => 9,
            Reject::MalformedHint => 10,
            Reject::NormBoundExceeded => 11,
        }
    }
}

impl fmt::Display for Reject {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// `Ok(())` is valid; `Err(reason)` is invalid for that reason.
impl From<Result<(), Reject>> for Verdict {
    fn from(result: Result<(), Reject>) -> Self {
        match result {
            Ok(()) => Verdict::Valid,
            Err(reason) => Verdict::Invalid(reason),
        }
    }
}

impl From<Verdict> for Result<(), Reject> {
    fn from(verdict: Verdict) -> Self {
        match verdict {
            Verdict::Valid => Ok(()),
            Verdict::Invalid(reason) => Err(reason),
        }
    }
}

impl fmt::Display for Verdict {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Verdict::Valid => f.write_str("valid"),
            Verdict::Invalid(reason) => write!(f, "invalid ({reason})"),
        }
    }
}
