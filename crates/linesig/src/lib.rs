//! linesig: line-speed batch signature verification.
//!
//! One [`Engine`] verifies a batch of [`Item`]s (public key, message, signature) on all
//! cores and returns one [`Verdict`] per item, in input order. A verdict is never shared by
//! a batch: an invalid item is rejected on its own, and costs what a valid one costs (no
//! batch-equation fallback, no bisection).
//!
//! ```
//! use linesig::{Engine, Item, Policy, Scheme, Verdict};
//!
//! let engine = Engine::builder()
//!     .scheme(Scheme::Ed25519(Policy::Strict))
//!     .workers(2)
//!     .batch_size(512)
//!     .build()?;
//! let item = Item::new(&[0u8; 32], b"hi", &[0u8; 63]);
//! let verdicts = engine.verify(&[item]);
//! assert!(matches!(verdicts[0], Verdict::Invalid(linesig::Reject::BadLength)));
//! # Ok::<(), linesig::Error>(())
//! ```
//!
//! Ed25519 acceptance is bit-for-bit that of the chain's reference for the chosen
//! [`Policy`]; see [`ed25519`] and DESIGN.md §3.

mod backend;
pub mod cpu;
pub mod ed25519;
mod engine;
pub mod item;
pub mod leansig;
pub mod mldsa;
mod verdict;
pub mod wire;

pub use backend::{Backend, UnknownBackend, BACKEND_ENV};
pub use ed25519::Policy;
pub use engine::{
    available_cores, Engine, EngineBuilder, Error, KeyCacheStats, DEFAULT_BATCH_SIZE,
};
pub use item::{Item, ItemBatch, ItemSource, ItemSpans, Span};
pub use verdict::{Reject, Verdict};

/// A signature scheme and the rules it is verified under.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Scheme {
    /// Ed25519 (RFC 8032) under one of the chains' acceptance policies.
    Ed25519(Policy),
    /// ML-DSA (FIPS 204) with the given parameter set.
    MlDsa(mldsa::ParameterSet),
    /// leanSig (generalized XMSS, Ethereum lean consensus): the item's context is the
    /// epoch, four bytes little-endian ([`leansig::epoch_context`]).
    LeanSig(leansig::Instance),
}

impl Scheme {
    /// Verify one item on the portable path. An [`Engine`] gives the same verdict for the
    /// same item, whatever its batch, backend, workers or batch size.
    pub fn verify(self, item: &Item<'_>) -> Verdict {
        match self {
            Scheme::Ed25519(policy) => ed25519::verify(policy, item),
            Scheme::MlDsa(parameter_set) => mldsa::verify(parameter_set, item),
            Scheme::LeanSig(instance) => leansig::verify(instance, item),
        }
    }

    /// This scheme under `policy` where one is given (Ed25519 defaults to `Strict`). A
    /// policy applies to Ed25519 only; giving one for another scheme is an error, never
    /// silently ignored.
    pub fn with_policy(self, policy: Option<Policy>) -> Result<Scheme, String> {
        match (self, policy) {
            (Scheme::Ed25519(_), policy) => Ok(Scheme::Ed25519(policy.unwrap_or_default())),
            (other, None) => Ok(other),
            (other, Some(_)) => Err(format!(
                "a policy applies to ed25519 only, not {}",
                other.name()
            )),
        }
    }

    /// A human label: "Ed25519 (policy strict)", "ML-DSA-44".
    pub fn label(self) -> String {
        match self {
            Scheme::Ed25519(policy) => format!("Ed25519 (policy {policy})"),
            Scheme::MlDsa(ps) => format!("ML-DSA-{}", &ps.name()[5..]),
            Scheme::LeanSig(instance) => format!("leanSig {} ({})", instance, instance.reference()),
        }
    }

    /// The scheme's name, as the CLI and JSON reports spell it.
    pub fn name(self) -> &'static str {
        match self {
            Scheme::Ed25519(_) => "ed25519",
            Scheme::MlDsa(p) => p.name(),
            Scheme::LeanSig(instance) => instance.name(),
        }
    }
}

impl std::str::FromStr for Scheme {
    type Err = String;
    /// `ed25519` (policy `strict`; pick another with [`Scheme::Ed25519`]), `mldsa44`,
    /// `mldsa65`, `mldsa87`, `leansig-devnet4`, `leansig-l18`, `leansig-l32`.
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        if s.eq_ignore_ascii_case("ed25519") {
            return Ok(Scheme::Ed25519(Policy::Strict));
        }
        if let Ok(instance) = s.parse::<leansig::Instance>() {
            return Ok(Scheme::LeanSig(instance));
        }
        s.parse::<mldsa::ParameterSet>()
            .map(Scheme::MlDsa)
            .map_err(|_| {
                format!("unknown scheme '{s}' (available: ed25519, mldsa44, mldsa65, mldsa87, leansig-devnet4, leansig-l18, leansig-l32)")
            })
    }
}

impl Default for Scheme {
    fn default() -> Self {
        Scheme::Ed25519(Policy::Strict)
    }
}
