//! The acceptance policies of docs/design.md §3, as data. Every backend reads these rules from
//! here; none of them encodes a policy on its own.

use crate::error::UnknownPolicy;
use std::fmt;
use std::str::FromStr;

/// Which chain's Ed25519 acceptance rule to reproduce, bit for bit.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Policy {
    /// Solana mainnet today: `solana-ed25519` 0.2.x `verify_dalek`, identical in
    /// acceptance to ed25519-dalek `verify_strict`. S < L; A may be non-canonical but
    /// not of small order; R not of small order and equal, as bytes, to the encoding of
    /// \[S\]B − \[k\]A (so a non-canonical R fails). Cofactorless.
    #[default]
    Strict,
    /// ZIP-215 (Zcash, Cosmos/CometBFT; ed25519-zebra, ed25519-consensus). S < L; any
    /// encoding of A and R that decodes, canonical or not, small order allowed;
    /// cofactored equation \[8\](\[S\]B − R − \[k\]A) = O.
    Zip215,
    /// Solana SIMD-0376 with its amendment: the cofactored equation of ZIP-215, but A
    /// and R must be canonical encodings of points not of small order, and S < L.
    Zip215Strict,
}

/// The checks a policy asks for. Acceptance is: lengths, S < L, A and R decode, then the
/// rules below, then the equation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Rules {
    /// Reject A and R whose bytes are not the canonical encoding of their point.
    /// (`Strict` accepts a non-canonical A and needs no rule for R: its byte comparison
    /// with a freshly encoded point already rejects a non-canonical R.)
    pub canonical_encodings: bool,
    /// Reject A and R of small order.
    pub reject_small_order: bool,
    /// Check [8]([S]B − R − [k]A) = O rather than enc([S]B − [k]A) == R bytes.
    pub cofactored: bool,
}

impl Policy {
    pub const ALL: [Policy; 3] = [Policy::Strict, Policy::Zip215, Policy::Zip215Strict];

    /// The name the CLI and JSON reports use.
    pub fn name(self) -> &'static str {
        match self {
            Policy::Strict => "strict",
            Policy::Zip215 => "zip215",
            Policy::Zip215Strict => "zip215-strict",
        }
    }

    pub(crate) const fn rules(self) -> Rules {
        match self {
            Policy::Strict => Rules {
                canonical_encodings: false,
                reject_small_order: true,
                cofactored: false,
            },
            Policy::Zip215 => Rules {
                canonical_encodings: false,
                reject_small_order: false,
                cofactored: true,
            },
            Policy::Zip215Strict => Rules {
                canonical_encodings: true,
                reject_small_order: true,
                cofactored: true,
            },
        }
    }
}

impl fmt::Display for Policy {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A policy name that is not one of `strict`, `zip215`, `zip215-strict`.
impl FromStr for Policy {
    type Err = UnknownPolicy;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s.to_ascii_lowercase().replace('_', "-").as_str() {
            "strict" | "verify-strict" => Ok(Policy::Strict),
            "zip215" | "zip-215" => Ok(Policy::Zip215),
            "zip215-strict" | "simd-0376" | "simd0376" => Ok(Policy::Zip215Strict),
            _ => Err(UnknownPolicy(s.to_string())),
        }
    }
}
