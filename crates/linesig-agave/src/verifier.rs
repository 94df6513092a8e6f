//! The sigverify stage on linesig's engine: find each packet's signatures (by the rules
//! of the solana-perf line built for: `offsets` for 4.0, `view` for 4.1 and 4.2), verify
//! every signature of every packet in one engine call
//! (lanes, all threads of the pool, grouping of repeated keys, the hot-key cache), then
//! set `discard` on each packet that has a signature the engine rejects.
//!
//! Three passes over the batches, so that the packets are read where they lie: a
//! parallel one that finds offsets and sets `SIMPLE_VOTE_TX` (the only pass that needs
//! the packets mutably before verification), a serial one that borrows every signature,
//! key and message as an engine `Item` (no packet byte is copied), and a serial one that
//! sets the discard flags from the verdicts.

use crate::parts::SignedParts;
use linesig::{Backend, Engine, Error, Item, KeyCacheStats, Policy, Scheme, Verdict};
use rayon::prelude::*;
use solana_perf::packet::{PacketBatch, PacketFlags, PacketRefMut};

/// The hot-key cache a [`Verifier`] keeps unless told otherwise: about 700 keys' tables
/// (about 91 KB each), enough for a chain's
/// busiest fee payers and the vote authorities of the top of the stake distribution.
pub const DEFAULT_KEY_CACHE_BYTES: usize = 64 << 20;

/// What the first pass concluded about one packet.
#[derive(Clone, Copy, Debug)]
enum Plan {
    /// Discarded before the call: not read, not touched (solana-perf skips it too).
    AlreadyDiscarded,
    /// No signatures solana-perf would verify (bad offsets, a non-vote under
    /// `reject_non_vote`, parts missing from the data): discard.
    Discard,
    /// Verify these signatures; discard unless every one is valid.
    Verify(SignedParts),
}

/// The stage's switches, as solana-perf's `ed25519_verify` takes them.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Stage {
    /// Discard every packet that is not a simple vote.
    pub reject_non_vote: bool,
    /// Verify v1 transactions (4.1 and later); with it off they are discarded.
    #[cfg(not(feature = "solana-perf-4-0"))]
    pub enable_tx_v1: bool,
}

/// A sigverify stage that keeps a linesig engine across calls: its backend choice, its
/// hot-key cache (fee payers and vote authorities sign packet after packet; a cached key
/// verifies two to three times cheaper) and, for [`Verifier::verify`], its own thread
/// pool. This is what a validator should hold; [`crate::ed25519_verify`] is the one-line
/// swap, with a process-wide engine and no cache.
pub struct Verifier {
    engine: Engine,
}

/// Configures a [`Verifier`]; see [`Verifier::builder`].
#[derive(Clone, Debug)]
pub struct VerifierBuilder {
    workers: Option<usize>,
    key_cache_bytes: usize,
    backend: Option<Backend>,
    batch_size: usize,
}

impl Default for VerifierBuilder {
    fn default() -> Self {
        VerifierBuilder {
            workers: None,
            key_cache_bytes: DEFAULT_KEY_CACHE_BYTES,
            backend: None,
            batch_size: linesig::DEFAULT_BATCH_SIZE,
        }
    }
}

impl VerifierBuilder {
    /// Threads of the verifier's own pool, used by [`Verifier::verify`] (default: all
    /// cores). [`Verifier::ed25519_verify`] runs on the pool it is given instead.
    pub fn workers(mut self, workers: usize) -> Self {
        self.workers = Some(workers);
        self
    }

    /// Bytes for the hot-key cache (default [`DEFAULT_KEY_CACHE_BYTES`]; 0 turns it off).
    /// Verdicts never depend on it.
    pub fn key_cache_bytes(mut self, bytes: usize) -> Self {
        self.key_cache_bytes = bytes;
        self
    }

    /// Force a backend (default: `LINESIG_BACKEND` if set, else the fastest this CPU
    /// runs). A backend this CPU cannot run is an error.
    pub fn backend(mut self, backend: Backend) -> Self {
        self.backend = Some(backend);
        self
    }

    /// Most signatures per engine work unit (default 512); a call with fewer than
    /// threads × this is split evenly over the threads.
    pub fn batch_size(mut self, batch_size: usize) -> Self {
        self.batch_size = batch_size;
        self
    }

    pub fn build(self) -> Result<Verifier, Error> {
        let mut engine = Engine::builder()
            .scheme(Scheme::Ed25519(Policy::Strict))
            .batch_size(self.batch_size)
            .key_cache(self.key_cache_bytes);
        if let Some(workers) = self.workers {
            engine = engine.workers(workers);
        }
        if let Some(backend) = self.backend {
            engine = engine.backend(backend);
        }
        Ok(Verifier {
            engine: engine.build()?,
        })
    }
}

impl Verifier {
    pub fn builder() -> VerifierBuilder {
        VerifierBuilder::default()
    }

    /// A verifier on all cores with the default hot-key cache.
    pub fn new() -> Result<Verifier, Error> {
        Verifier::builder().build()
    }

    /// The backend the engine runs.
    pub fn backend(&self) -> Backend {
        self.engine.backend()
    }

    /// Threads of the verifier's own pool.
    pub fn workers(&self) -> usize {
        self.engine.workers()
    }

    /// The hot-key cache's counters, if it is on.
    pub fn key_cache_stats(&self) -> Option<KeyCacheStats> {
        self.engine.key_cache_stats()
    }

    /// solana-perf's `sigverify::ed25519_verify`, with its signature and effect, on
    /// `thread_pool`: every packet not already discarded is discarded unless its
    /// signatures are found by the line's rules (a transaction that sanitizes; a v1
    /// transaction only with `enable_tx_v1`) and all verify under `verify_strict`;
    /// `SIMPLE_VOTE_TX` is set on simple votes; with `reject_non_vote` every other packet
    /// is discarded. `packet_count` is a hint, as there (unused).
    #[cfg(not(feature = "solana-perf-4-0"))]
    pub fn ed25519_verify(
        &self,
        thread_pool: &rayon::ThreadPool,
        batches: &mut [PacketBatch],
        reject_non_vote: bool,
        _packet_count: usize,
        enable_tx_v1: bool,
    ) {
        let stage = Stage {
            reject_non_vote,
            enable_tx_v1,
        };
        self.run(thread_pool, batches, stage);
    }

    /// As [`Verifier::ed25519_verify`], on the verifier's own pool.
    #[cfg(not(feature = "solana-perf-4-0"))]
    pub fn verify(&self, batches: &mut [PacketBatch], reject_non_vote: bool, enable_tx_v1: bool) {
        let stage = Stage {
            reject_non_vote,
            enable_tx_v1,
        };
        self.run(self.engine.thread_pool(), batches, stage);
    }

    /// solana-perf 4.0's `sigverify::ed25519_verify`, with its signature and effect, on
    /// `thread_pool`: every packet not already discarded is discarded unless its
    /// signatures are found by sigverify's offset rules and all verify under
    /// `verify_strict`; `SIMPLE_VOTE_TX` is set on simple votes; with `reject_non_vote`
    /// every other packet is discarded. `packet_count` is a hint, as there (unused).
    #[cfg(feature = "solana-perf-4-0")]
    pub fn ed25519_verify(
        &self,
        thread_pool: &rayon::ThreadPool,
        batches: &mut [PacketBatch],
        reject_non_vote: bool,
        _packet_count: usize,
    ) {
        self.run(thread_pool, batches, Stage { reject_non_vote });
    }

    /// As [`Verifier::ed25519_verify`], on the verifier's own pool.
    #[cfg(feature = "solana-perf-4-0")]
    pub fn verify(&self, batches: &mut [PacketBatch], reject_non_vote: bool) {
        self.run(
            self.engine.thread_pool(),
            batches,
            Stage { reject_non_vote },
        );
    }

    /// The stage on `pool`, with this verifier's engine: what every entry point runs.
    fn run(&self, pool: &rayon::ThreadPool, batches: &mut [PacketBatch], stage: Stage) {
        pool.install(|| sigverify(Some(&self.engine), pool, batches, stage));
    }
}

/// The stage's three passes over `batches`, run from inside `pool`; `engine` verifies
/// the signatures on `pool`, or, where it is `None` (the free function's fallback when
/// no engine could be built), the portable path does, item by item.
pub(crate) fn sigverify(
    engine: Option<&Engine>,
    pool: &rayon::ThreadPool,
    batches: &mut [PacketBatch],
    stage: Stage,
) {
    let plans: Vec<Plan> = batches
        .par_iter_mut()
        .flatten()
        .map(|mut packet| plan(&mut packet, stage))
        .collect();
    let signatures = plans
        .iter()
        .map(|plan| match plan {
            Plan::Verify(parts) => parts.signatures,
            _ => 0,
        })
        .sum();
    let mut verdicts = Vec::new();
    if signatures > 0 {
        let mut items: Vec<Item<'_>> = Vec::with_capacity(signatures);
        let packets = batches.iter().flat_map(PacketBatch::iter);
        for (packet, plan) in packets.zip(&plans) {
            let Plan::Verify(parts) = plan else {
                continue;
            };
            let data = packet.data(..).unwrap_or_default();
            for i in 0..parts.signatures {
                // The first pass checked every part is there; an item with no
                // bytes would be rejected (`BadLength`), so a miss fails closed.
                let (signature, key, message) = parts.get(data, i).unwrap_or_default();
                items.push(Item::new(key, message, signature));
            }
        }
        verdicts = vec![Verdict::Invalid(linesig::Reject::EquationFailed); signatures];
        verify_items(engine, pool, &items, &mut verdicts);
    }
    let mut verdicts = verdicts.iter();
    let packets = batches.iter_mut().flat_map(PacketBatch::iter_mut);
    for (mut packet, plan) in packets.zip(&plans) {
        let keep = match plan {
            Plan::AlreadyDiscarded => continue,
            Plan::Discard => false,
            Plan::Verify(parts) => verdicts
                .by_ref()
                .take(parts.signatures)
                .fold(true, |all, v| all & v.is_valid()),
        };
        if !keep {
            packet.meta_mut().set_discard(true);
        }
    }
}

fn verify_items(
    engine: Option<&Engine>,
    pool: &rayon::ThreadPool,
    items: &[Item<'_>],
    out: &mut [Verdict],
) {
    match engine {
        Some(engine) => {
            // The lengths are equal by construction; on a mismatch every slot keeps its
            // fail-closed default.
            let _ = engine.verify_into_on(pool, items, out);
        }
        None => {
            let scheme = Scheme::Ed25519(Policy::Strict);
            out.par_iter_mut()
                .zip(items)
                .for_each(|(verdict, item)| *verdict = scheme.verify(item));
        }
    }
}

/// The first pass on one packet: solana-perf 4.0's `verify_packet` up to the signature
/// checks, and its simple-vote flag.
#[cfg(feature = "solana-perf-4-0")]
fn plan(packet: &mut PacketRefMut<'_>, stage: Stage) -> Plan {
    use crate::offsets::{is_simple_vote, packet_offsets};
    if packet.meta().discard() {
        return Plan::AlreadyDiscarded;
    }
    let size = packet.meta().size;
    let Some(data) = packet.data(..) else {
        return Plan::Discard;
    };
    let Ok(offsets) = packet_offsets(data, size) else {
        return Plan::Discard;
    };
    let parts = offsets.parts(data.len());
    let complete = (0..parts.signatures).all(|i| parts.get(data, i).is_some());
    if is_simple_vote(data, &offsets) {
        packet.meta_mut().flags |= PacketFlags::SIMPLE_VOTE_TX;
    }
    // A flag set before the call counts too, as it does in 4.0.
    if stage.reject_non_vote && !packet.meta().is_simple_vote_tx() {
        return Plan::Discard;
    }
    if offsets.signatures == 0 || size <= offsets.message_start || !complete {
        return Plan::Discard;
    }
    Plan::Verify(parts)
}

/// The first pass on one packet: solana-perf 4.1's and 4.2's `verify_packet` up to the
/// signature checks, and its simple-vote flag.
#[cfg(not(feature = "solana-perf-4-0"))]
fn plan(packet: &mut PacketRefMut<'_>, stage: Stage) -> Plan {
    if packet.meta().discard() {
        return Plan::AlreadyDiscarded;
    }
    let Some(read) = packet
        .data(..)
        .and_then(|data| crate::view::read(data, stage.enable_tx_v1))
    else {
        return Plan::Discard;
    };
    if read.simple_vote {
        packet.meta_mut().flags |= PacketFlags::SIMPLE_VOTE_TX;
    }
    // Unlike 4.0, the view's own answer counts, not a flag set before the call.
    if stage.reject_non_vote && !read.simple_vote {
        return Plan::Discard;
    }
    match read.parts {
        Some(parts) => Plan::Verify(parts),
        None => Plan::Discard,
    }
}
