//! The error for a name no value of its kind has. It lives here, in the lowest linesig
//! crate, so that the schemes and Paillier return one type for it.

/// A name no value of its kind has: a scheme, an ML-DSA parameter set, a leanSig
/// instance, a Paillier mode or kernel.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("unknown {kind} '{name}' (available: {available})")]
pub struct UnknownName {
    /// What was being named ("scheme", "ML-DSA parameter set", …).
    pub kind: &'static str,
    pub name: String,
    /// The names that would have been accepted, comma-separated.
    pub available: &'static str,
}

impl UnknownName {
    pub fn new(kind: &'static str, name: &str, available: &'static str) -> UnknownName {
        UnknownName {
            kind,
            name: name.to_string(),
            available,
        }
    }
}
