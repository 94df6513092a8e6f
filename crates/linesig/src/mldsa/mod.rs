//! ML-DSA-44/65/87 (FIPS 204) verification, key generation and signing, on
//! `libcrux-ml-dsa` (formally verified; AVX2 chosen at run time).
//!
//! Verification is ML-DSA.Verify (FIPS 204 Algorithm 3): the "pure" variant with a
//! context string of at most 255 bytes (§5.2), the message prefixed by 0 ‖ |ctx| ‖ ctx.
//! Wrong key or signature sizes are `BadLength`, a context over 255 bytes `BadContext`;
//! the verification failures of Algorithm 8 map to `MalformedHint` (HintBitUnpack
//! fails), `NormBoundExceeded` (‖z‖∞ ≥ γ1 − β) and `EquationFailed` (c̃ mismatch).
//!
//! Key generation and signing exist for benchmarks and fixtures; verifying handles
//! public data only.

use crate::item::{Item, ItemSource};
use crate::verdict::{Reject, Verdict};
use libcrux_ml_dsa::{MLDSASignature, MLDSASigningKey, MLDSAVerificationKey, VerificationError};
use std::fmt;
use std::str::FromStr;

/// Longest context string FIPS 204 §5.2 allows.
pub const MAX_CONTEXT_LEN: usize = 255;

/// An ML-DSA parameter set (FIPS 204 Table 1).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ParameterSet {
    MlDsa44,
    MlDsa65,
    MlDsa87,
}

/// Run `$body` with `$m` naming libcrux's module for the parameter set, so the three
/// sets share one piece of code: sizes come from the functions' own array types.
macro_rules! with_parameter_set {
    ($ps:expr, $m:ident => $body:expr) => {
        match $ps {
            ParameterSet::MlDsa44 => {
                use libcrux_ml_dsa::ml_dsa_44 as $m;
                $body
            }
            ParameterSet::MlDsa65 => {
                use libcrux_ml_dsa::ml_dsa_65 as $m;
                $body
            }
            ParameterSet::MlDsa87 => {
                use libcrux_ml_dsa::ml_dsa_87 as $m;
                $body
            }
        }
    };
}

impl ParameterSet {
    pub const ALL: [ParameterSet; 3] = [
        ParameterSet::MlDsa44,
        ParameterSet::MlDsa65,
        ParameterSet::MlDsa87,
    ];

    pub fn name(self) -> &'static str {
        match self {
            ParameterSet::MlDsa44 => "mldsa44",
            ParameterSet::MlDsa65 => "mldsa65",
            ParameterSet::MlDsa87 => "mldsa87",
        }
    }

    /// FIPS 204 Table 2 sizes, in bytes: (public key, signing key, signature).
    pub fn sizes(self) -> (usize, usize, usize) {
        match self {
            ParameterSet::MlDsa44 => (1312, 2560, 2420),
            ParameterSet::MlDsa65 => (1952, 4032, 3309),
            ParameterSet::MlDsa87 => (2592, 4896, 4627),
        }
    }

    pub fn public_key_len(self) -> usize {
        self.sizes().0
    }

    pub fn signing_key_len(self) -> usize {
        self.sizes().1
    }

    pub fn signature_len(self) -> usize {
        self.sizes().2
    }
}

impl fmt::Display for ParameterSet {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for ParameterSet {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s.to_ascii_lowercase().replace(['-', '_'], "").as_str() {
            "mldsa44" => Ok(ParameterSet::MlDsa44),
            "mldsa65" => Ok(ParameterSet::MlDsa65),
            "mldsa87" => Ok(ParameterSet::MlDsa87),
            _ => Err(format!(
                "unknown ML-DSA parameter set '{s}' (expected mldsa44, mldsa65 or mldsa87)"
            )),
        }
    }
}

/// Why signing failed (key generation cannot fail).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum SignError {
    #[error("signing key is {got} bytes; {parameter_set} needs {expected}")]
    BadSigningKeyLength {
        parameter_set: ParameterSet,
        expected: usize,
        got: usize,
    },
    #[error("context is {0} bytes; FIPS 204 allows at most 255")]
    ContextTooLong(usize),
    #[error(
        "signing gave up after too many rejection-sampling rounds (retry with other randomness)"
    )]
    RejectionSampling,
}

/// A key pair: encoded public (verification) key and signing key.
#[derive(Clone)]
pub struct KeyPair {
    pub public_key: Vec<u8>,
    pub signing_key: Vec<u8>,
}

impl fmt::Debug for KeyPair {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("KeyPair")
            .field("public_key", &self.public_key.len())
            .finish_non_exhaustive()
    }
}

/// ML-DSA.KeyGen_internal (FIPS 204 Algorithm 6) from the 32-byte seed ξ.
pub fn generate_key_pair(parameter_set: ParameterSet, seed: [u8; 32]) -> KeyPair {
    with_parameter_set!(parameter_set, m => {
        let pair = m::generate_key_pair(seed);
        KeyPair {
            public_key: pair.verification_key.as_ref().to_vec(),
            signing_key: pair.signing_key.as_ref().to_vec(),
        }
    })
}

/// ML-DSA.Sign (FIPS 204 Algorithm 2) with the 32-byte randomness rnd (hedged signing).
pub fn sign(
    parameter_set: ParameterSet,
    signing_key: &[u8],
    message: &[u8],
    context: &[u8],
    randomness: [u8; 32],
) -> Result<Vec<u8>, SignError> {
    if context.len() > MAX_CONTEXT_LEN {
        return Err(SignError::ContextTooLong(context.len()));
    }
    let bad_length = || SignError::BadSigningKeyLength {
        parameter_set,
        expected: parameter_set.signing_key_len(),
        got: signing_key.len(),
    };
    with_parameter_set!(parameter_set, m => {
        let key = MLDSASigningKey::new(signing_key.try_into().map_err(|_| bad_length())?);
        m::sign(&key, message, context, randomness)
            .map(|sig| sig.as_ref().to_vec())
            .map_err(|_| SignError::RejectionSampling)
    })
}

fn reject(error: VerificationError) -> Reject {
    match error {
        VerificationError::MalformedHintError => Reject::MalformedHint,
        VerificationError::SignerResponseExceedsBoundError => Reject::NormBoundExceeded,
        VerificationError::CommitmentHashesDontMatchError => Reject::EquationFailed,
        VerificationError::VerificationContextTooLongError => Reject::BadContext,
    }
}

/// Verify one item (ML-DSA.Verify, FIPS 204 Algorithm 3).
pub fn verify(parameter_set: ParameterSet, item: &Item<'_>) -> Verdict {
    if item.context.len() > MAX_CONTEXT_LEN {
        return Verdict::Invalid(Reject::BadContext);
    }
    let result = with_parameter_set!(parameter_set, m => {
        match (item.public_key.try_into(), item.signature.try_into()) {
            (Ok(pk), Ok(sig)) => m::verify(
                &MLDSAVerificationKey::new(pk),
                item.message,
                item.context,
                &MLDSASignature::new(sig),
            )
            .map_err(reject),
            _ => Err(Reject::BadLength),
        }
    });
    Verdict::from(result)
}

/// ML-DSA.Verify_internal (FIPS 204 Algorithm 8) on the already formatted message M′,
/// with no domain separation: what NIST's ACVP "internal" projection tests. Users want
/// [`verify`].
pub fn verify_internal(
    parameter_set: ParameterSet,
    public_key: &[u8],
    formatted_message: &[u8],
    signature: &[u8],
) -> Verdict {
    let result = with_parameter_set!(parameter_set, m => {
        match (public_key.try_into(), signature.try_into()) {
            (Ok(pk), Ok(sig)) => m::verify_internal(
                &MLDSAVerificationKey::new(pk),
                formatted_message,
                &MLDSASignature::new(sig),
            )
            .map_err(reject),
            _ => Err(Reject::BadLength),
        }
    });
    Verdict::from(result)
}

/// Verify items `start..start + out.len()` into `out`.
pub(crate) fn verify_unit<S: ItemSource + ?Sized>(
    parameter_set: ParameterSet,
    items: &S,
    start: usize,
    out: &mut [Verdict],
) {
    for (offset, verdict) in out.iter_mut().enumerate() {
        *verdict = verify(parameter_set, &items.item(start + offset));
    }
}
