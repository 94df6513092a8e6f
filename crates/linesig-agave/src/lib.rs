//! linesig inside Agave: the sigverify stage's `ed25519_verify`, on linesig's
//! lane-parallel Ed25519.
//!
//! Agave's sigverify stage calls `solana_perf::sigverify::ed25519_verify` on its
//! `PacketBatch`es and reads back each packet's `discard` flag and `SIMPLE_VOTE_TX`. This
//! crate gives the same call two ways:
//!
//! - [`ed25519_verify`]: solana-perf's function, signature and effect, so that swapping
//!   the import is the whole change. It keeps one process-wide engine (no hot-key cache)
//!   and runs on the pool it is given.
//! - [`Verifier`]: an engine kept across calls, with the hot-key cache that fee payers
//!   and vote authorities earn. [`Verifier::ed25519_verify`] has the same shape and runs
//!   on the caller's pool; [`Verifier::verify`] runs on the verifier's own. This is what a
//!   validator should hold.
//!
//! The effect is solana-perf 4.0's on every input: the same packets end with `discard`
//! set and the same packets get `SIMPLE_VOTE_TX` (its offset rules, its simple-vote test,
//! `reject_non_vote`, packets discarded before the call left alone, and `verify_strict`
//! as the verdict: linesig's `strict` policy). `tests/against_solana_perf.rs` runs
//! solana-perf itself on a clone of every batch and compares every packet's flags.
//!
//! ```no_run
//! use solana_perf::packet::PacketBatch;
//!
//! fn sigverify(pool: &rayon::ThreadPool, batches: &mut [PacketBatch]) {
//!     let packets = batches.iter().map(PacketBatch::len).sum();
//!     // was: solana_perf::sigverify::ed25519_verify(pool, batches, false, packets);
//!     linesig_agave::ed25519_verify(pool, batches, false, packets);
//! }
//! ```
//!
//! Memory: no packet byte is copied. A call allocates one plan per packet (a few words),
//! one `linesig::Item` per signature to verify (four borrowed slices, 64 bytes) and one
//! verdict per signature; the engine's work units allocate their lane state.

pub mod offsets;
mod verifier;

/// docs/agave.md's Rust examples, run as doctests so that the guide cannot drift from
/// the API.
#[cfg(doctest)]
#[doc = include_str!("../../../docs/agave.md")]
struct AgaveGuide;

pub use linesig::{Backend, Error, KeyCacheStats};
pub use verifier::{Verifier, VerifierBuilder, DEFAULT_KEY_CACHE_BYTES};

use linesig::{Engine, Policy, Scheme};
use solana_perf::packet::PacketBatch;
use std::sync::OnceLock;

/// solana-perf's `sigverify::ed25519_verify`: the same signature, the same effect on
/// every packet, on `thread_pool`. `packet_count` is a hint, unused, as there.
///
/// The engine behind it is built on the first call and kept for the process (the
/// backend the CPU runs best, or `LINESIG_BACKEND`'s; no hot-key cache: hold a
/// [`Verifier`] for that). Should no engine build (`LINESIG_BACKEND` naming a backend
/// this CPU lacks), every signature is verified on the portable path instead: the same
/// verdicts, slower, where [`Verifier::new`] would report the error.
pub fn ed25519_verify(
    thread_pool: &rayon::ThreadPool,
    batches: &mut [PacketBatch],
    reject_non_vote: bool,
    _packet_count: usize,
) {
    static ENGINE: OnceLock<Option<Engine>> = OnceLock::new();
    let engine = ENGINE.get_or_init(|| {
        // One thread of its own, never used: every call runs on the caller's pool.
        Engine::builder()
            .scheme(Scheme::Ed25519(Policy::Strict))
            .workers(1)
            .build()
            .ok()
    });
    thread_pool
        .install(|| verifier::sigverify(engine.as_ref(), thread_pool, batches, reject_non_vote));
}
