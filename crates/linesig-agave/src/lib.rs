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
//! The effect is that of the solana-perf line the crate is built for, on every input:
//! the same packets end with `discard` set and the same packets get `SIMPLE_VOTE_TX`
//! (packets discarded before the call left alone, `reject_non_vote`, and `verify_strict`
//! as the verdict: linesig's `strict` policy). The line is a feature, exactly one:
//!
//! | feature | solana-perf | finds the signatures by | `ed25519_verify` takes |
//! |---|---|---|---|
//! | `solana-perf-4-2` (default) | 4.2.x | Agave's sanitized transaction view | `…, packet_count, enable_tx_v1` |
//! | `solana-perf-4-1` | 4.1.x | the same view (its 4.1 sanitizer) | `…, packet_count, enable_tx_v1` |
//! | `solana-perf-4-0` | 4.0.3 | sigverify's offset rules (`offsets`) | `…, packet_count` |
//!
//! A validator's lock holds one solana-perf, so the feature only has to name its line.
//! `tests/against_solana_perf.rs` runs solana-perf itself on a clone of every batch and
//! compares every packet's flags; CI runs it on each line (scripts/test-agave-lines.sh).
//!
//! ```no_run
//! use solana_perf::packet::PacketBatch;
//!
//! fn sigverify(pool: &rayon::ThreadPool, batches: &mut [PacketBatch]) {
//!     let packets = batches.iter().map(PacketBatch::len).sum();
//!     # #[cfg(not(feature = "solana-perf-4-0"))]
//!     // was: solana_perf::sigverify::ed25519_verify(pool, batches, false, packets, true);
//!     linesig_agave::ed25519_verify(pool, batches, false, packets, true);
//!     # #[cfg(feature = "solana-perf-4-0")]
//!     # linesig_agave::ed25519_verify(pool, batches, false, packets);
//! }
//! ```
//!
//! Memory: no packet byte is copied. A call allocates one plan per packet (a few words),
//! one `linesig::Item` per signature to verify (four borrowed slices, 64 bytes) and one
//! verdict per signature; the engine's work units allocate their lane state.

#[cfg(not(any(
    feature = "solana-perf-4-0",
    feature = "solana-perf-4-1",
    feature = "solana-perf-4-2"
)))]
compile_error!(
    "linesig-agave: name the solana-perf line the validator runs: feature `solana-perf-4-2` \
     (the default), `solana-perf-4-1` or `solana-perf-4-0`"
);
#[cfg(any(
    all(feature = "solana-perf-4-0", feature = "solana-perf-4-1"),
    all(feature = "solana-perf-4-0", feature = "solana-perf-4-2"),
    all(feature = "solana-perf-4-1", feature = "solana-perf-4-2"),
))]
compile_error!(
    "linesig-agave: one solana-perf line at a time; for 4.0 or 4.1 write \
     `default-features = false` beside the feature"
);

#[cfg(feature = "solana-perf-4-0")]
pub mod offsets;
mod parts;
mod verifier;
#[cfg(not(feature = "solana-perf-4-0"))]
mod view;

/// docs/agave.md's Rust examples, run as doctests so that the guide cannot drift from
/// the API.
#[cfg(doctest)]
#[doc = include_str!("../../../docs/agave.md")]
struct AgaveGuide;

pub use linesig::{Backend, Error, KeyCacheStats};
pub use verifier::{Verifier, VerifierBuilder, DEFAULT_KEY_CACHE_BYTES};

/// The vote program's address, `Vote111111111111111111111111111111111111111`: a packet
/// whose one instruction calls it is a simple vote (`SIMPLE_VOTE_TX`).
pub const VOTE_PROGRAM_ID: [u8; 32] = [
    7, 97, 72, 29, 53, 116, 116, 187, 124, 77, 118, 36, 235, 211, 189, 179, 216, 53, 94, 115, 209,
    16, 67, 252, 13, 163, 83, 128, 0, 0, 0, 0,
];

use linesig::{Engine, Policy, Scheme};
use solana_perf::packet::PacketBatch;
use std::sync::OnceLock;

/// solana-perf's `sigverify::ed25519_verify`: the same signature, the same effect on
/// every packet, on `thread_pool`. `packet_count` is a hint, unused, as there; with
/// `enable_tx_v1` false, v1 transactions are discarded, as there.
///
/// The engine behind it is built on the first call and kept for the process (the
/// backend the CPU runs best, or `LINESIG_BACKEND`'s; no hot-key cache: hold a
/// [`Verifier`] for that). Should no engine build (`LINESIG_BACKEND` naming a backend
/// this CPU lacks), every signature is verified on the portable path instead: the same
/// verdicts, slower, where [`Verifier::new`] would report the error.
#[cfg(not(feature = "solana-perf-4-0"))]
pub fn ed25519_verify(
    thread_pool: &rayon::ThreadPool,
    batches: &mut [PacketBatch],
    reject_non_vote: bool,
    _packet_count: usize,
    enable_tx_v1: bool,
) {
    let stage = verifier::Stage {
        reject_non_vote,
        enable_tx_v1,
    };
    run_shared(thread_pool, batches, stage);
}

/// solana-perf 4.0's `sigverify::ed25519_verify`: the same signature, the same effect on
/// every packet, on `thread_pool`. `packet_count` is a hint, unused, as there.
///
/// The engine behind it is built on the first call and kept for the process (as in the
/// 4.1 and 4.2 lines' function).
#[cfg(feature = "solana-perf-4-0")]
pub fn ed25519_verify(
    thread_pool: &rayon::ThreadPool,
    batches: &mut [PacketBatch],
    reject_non_vote: bool,
    _packet_count: usize,
) {
    run_shared(thread_pool, batches, verifier::Stage { reject_non_vote });
}

/// The free function's process-wide engine, on the caller's pool.
fn run_shared(
    thread_pool: &rayon::ThreadPool,
    batches: &mut [PacketBatch],
    stage: verifier::Stage,
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
    thread_pool.install(|| verifier::sigverify(engine.as_ref(), thread_pool, batches, stage));
}
