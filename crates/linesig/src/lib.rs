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
//! [`Policy`]; see [`ed25519`] and docs/design.md §3 (the policies, exactly).

// Below every module here: the linesig-simd crate (CPU detection, ISA paths).
//
// Layers, each importing only from those above it (`tests/layers.rs` checks this
// order): `verdict`, `backend`, `table_pool`, `key_file` → `error` → `item` → `grouping`,
// `key_cache`, `batch_gate` → `verifier` → `ed25519`, `mldsa`, `leansig`, `leanxmss`, `wire` → `scheme` →
// `engine`.
mod backend;
mod batch_gate;
pub mod ed25519;
mod engine;
mod error;
mod grouping;
pub mod item;
mod key_cache;
#[cfg(any(feature = "leansig", feature = "leanxmss"))]
pub mod key_file;
#[cfg(feature = "leansig")]
pub mod leansig;
#[cfg(feature = "leanxmss")]
pub mod leanxmss;
#[cfg(feature = "mldsa")]
pub mod mldsa;
mod scheme;
mod table_pool;
mod verdict;
mod verifier;
pub mod wire;

pub use backend::{Backend, BACKEND_ENV};
pub use batch_gate::BatchEquationStats;
pub use ed25519::Policy;
pub use engine::{available_cores, Engine, EngineBuilder, DEFAULT_BATCH_SIZE, MAX_WORKERS};
pub use error::{Error, PolicyNotApplicable, UnknownBackend, UnknownName, UnknownPolicy};
pub use item::{Item, ItemBatch, ItemSource, ItemSpans, Span};
pub use key_cache::KeyCacheStats;
/// What this CPU runs: linesig-simd's detection, re-exported.
pub use linesig_simd::cpu;
pub use scheme::Scheme;
pub use verdict::{Reject, Verdict};

/// The Rust examples of the README and of docs/usage.md and docs/design.md, run as
/// doctests so that the docs cannot drift from the API.
#[cfg(doctest)]
mod docs {
    #[doc = include_str!("../../../README.md")]
    struct Readme;
    #[doc = include_str!("../../../docs/usage.md")]
    struct Usage;
    #[doc = include_str!("../../../docs/design.md")]
    struct Design;
}
