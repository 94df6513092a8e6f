//! linesig's packet pipeline as a library: Solana transactions in, verified packets out,
//! with counters, latency percentiles and load shedding. `linesig serve` and `linesig
//! replay` are this crate plus argument parsing and printing; a validator can run the same
//! sigverify stage in its own process with its own [`Source`] and [`Sink`].
//!
//! ```text
//!                         ┌▶ tile 0: parse · dedup · batch · verify ─┐
//! ingest ──chunks──▶ queue ┼▶ tile 1: …                               ┼▶ commit ──▶ sink
//! (thread)  bounded        └▶ tile N−1 (one per engine worker)       ─┘  (in order if asked)
//! ```
//!
//! Ingest stamps packets and queues them in numbered chunks; a bounded queue holds
//! `queue_packets` packets (a live source is shed when they do not fit, counted as
//! `overload`; a replay waits). Each verify tile (one thread per engine worker, as
//! Firedancer's verify tiles) takes whole chunks, parses them, dedups them against one
//! shared filter and verifies its own batch on its own thread: no tile waits for another
//! and no batch waits for its slowest unit. A tile verifies once its batch holds
//! `batch_signatures`, or as soon as the queue is dry and its oldest packet has waited
//! `max_wait` (0: at once): low load gets batches of one packet and the latency of one
//! verification, high load gets full batches without a timer. Verified chunks go to the
//! sink as they finish, or in arrival order when the sink asks ([`Sink::wants_order`]);
//! either way the packets in flight between the queue and the sink are bounded.
//!
//! A packet passes only if every one of its signatures is valid under the engine's
//! Ed25519 policy. Ed25519 precompile signatures (with [`ParseOptions::precompile`]) are
//! a consensus rule apart: Agave verifies them with `verify_strict` whatever the
//! transaction policy, so each tile verifies them through a `strict` sibling engine.
//! docs/design.md §5 has the full semantics.
//!
//! An embedder's pipeline, with its own source and sink:
//!
//! ```
//! use linesig::{Engine, Policy, Scheme};
//! use linesig_pipeline::{Config, Packet, Replay, Sink};
//! use std::sync::atomic::AtomicBool;
//!
//! /// Counts the packets that pass; a validator would hand them to banking instead.
//! struct Count(usize);
//! impl Sink for Count {
//!     fn pass(&mut self, _: &Packet) -> std::io::Result<()> {
//!         self.0 += 1;
//!         Ok(())
//!     }
//! }
//!
//! let engine = Engine::builder().scheme(Scheme::Ed25519(Policy::Strict)).build()?;
//! let packets = vec![vec![0u8; 100], vec![1u8; 3]]; // not transactions: malformed
//! let mut sink = Count(0);
//! let report = linesig_pipeline::run(
//!     &Config::new(engine),
//!     Replay::new(packets),
//!     &mut sink,
//!     &AtomicBool::new(false),
//!     |_interval| {},
//! )?;
//! assert_eq!((report.received, report.drops.malformed, sink.0), (2, 2, 0));
//! # Ok::<(), linesig_pipeline::Error>(())
//! ```

// Layers, each importing only from those above it (linesig's `tests/layers.rs` checks
// this order): `stats`, `capture`, `dedup`, `packet` → `sink`, `source` → `ingest`,
// `commit` → `tile`.
pub mod capture;
mod commit;
mod dedup;
mod ingest;
mod packet;
mod sink;
mod source;
mod stats;
mod tile;

pub use dedup::Deduper;
pub use packet::{Dropped, Packet};
pub use sink::{sending_socket, Discard, Sink, UdpForward, Verified};
pub use source::{Replay, Source, SourceState, UdpSource, CHUNK, POLL};
pub use stats::{Drops, LatencySummary, Report, ReportKind};

use commit::Commit;
use crossbeam_channel::bounded;
use ingest::{ingest, queue_chunks, Queue};
use linesig::wire::ParseOptions;
use linesig::{Engine, Policy, Scheme};
use packet::Chunk;
use stats::{Counters, Latency, Reporter};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering::Relaxed};
use std::sync::{Mutex, OnceLock};
use std::time::{Duration, Instant};

/// How a pipeline runs. [`Config::new`] gives the defaults of `linesig serve`.
#[derive(Debug)]
pub struct Config {
    /// An Ed25519 engine: its policy judges transaction signatures, its workers verify.
    pub engine: Engine,
    /// Which transaction formats parse, and whether precompile signatures are checked.
    pub parse: ParseOptions,
    /// Most signatures per verify batch (one tile's; a batch holds whole chunks, so it
    /// may pass this by one chunk's signatures).
    pub batch_signatures: usize,
    /// Longest a tile holds its batch back to fill once the queue is dry.
    pub max_wait: Duration,
    /// Packets the queue to the tiles holds before a live source is shed.
    pub queue_packets: usize,
    /// The dedup Bloom filter's memory, false-positive target and longest lifetime.
    pub dedup_bytes: usize,
    pub dedup_fp_rate: f64,
    pub dedup_reset: Duration,
    /// Call the report callback this often (None: only the summary is made).
    pub report_every: Option<Duration>,
    /// Stop after this many packets from the source.
    pub max_packets: Option<u64>,
}

impl Config {
    /// Batches of up to 1,024 signatures verified as soon as the queue is dry (no wait),
    /// a 4,096-packet queue, a 4 MiB dedup filter (false positives 10⁻⁶, cleared at least every
    /// 60 s), every transaction format, no precompile checks, no interval reports.
    pub fn new(engine: Engine) -> Config {
        Config {
            engine,
            parse: ParseOptions::default(),
            batch_signatures: 1024,
            max_wait: Duration::ZERO,
            queue_packets: 4096,
            dedup_bytes: 4 << 20,
            dedup_fp_rate: 1e-6,
            dedup_reset: Duration::from_secs(60),
            report_every: None,
            max_packets: None,
        }
    }

    /// The Ed25519 policy transaction signatures are verified under.
    pub fn policy(&self) -> Option<Policy> {
        match self.engine.scheme() {
            Scheme::Ed25519(policy) => Some(policy),
            _ => None,
        }
    }
}

/// Why a pipeline could not run, or did not finish cleanly.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    #[error("the pipeline verifies Solana transactions: its engine must be Ed25519, not {0}")]
    NotEd25519(&'static str),
    #[error("batch_signatures and queue_packets must be at least 1")]
    ZeroSize,
    #[error(transparent)]
    Engine(#[from] linesig::Error),
    #[error("packet source: {0}")]
    Source(std::io::Error),
    #[error("sink: {0}")]
    Sink(std::io::Error),
}

/// Run the pipeline until the source is exhausted, `config.max_packets` have come, or
/// `stop` is set; then drain what is queued. `on_report` gets an interval report every
/// `config.report_every`, on the calling thread; the summary of the whole run is returned.
/// A source error stops ingest and, once the rest has drained, fails the run.
pub fn run<S: Source, K: Sink>(
    config: &Config,
    source: S,
    sink: &mut K,
    stop: &AtomicBool,
    mut on_report: impl FnMut(&Report),
) -> Result<Report, Error> {
    let policy = config
        .policy()
        .ok_or_else(|| Error::NotEd25519(config.engine.scheme().name()))?;
    if config.batch_signatures == 0 || config.queue_packets == 0 {
        return Err(Error::ZeroSize);
    }
    let verifier = tile::Verifier::new(&config.engine, policy, config.parse)?;
    let counters = Counters::default();
    let latency = Latency::new();
    let first_arrival: OnceLock<Instant> = OnceLock::new();
    let last_verdict: Mutex<Option<Instant>> = Mutex::new(None);
    let (chunk_tx, chunk_rx) = bounded::<Chunk>(queue_chunks(config, source.is_live()));
    let tiles = config.engine.workers().max(1);
    let (spent_tx, spent_rx) = bounded::<Vec<Packet>>(4 * tiles);
    let deduper = Deduper::new(config.dedup_bytes, config.dedup_fp_rate, config.dedup_reset);
    let deduper = dedup::OrderedDedup::new(deduper);
    let log_dropped = sink.wants_dropped();
    // Two batches per tile in flight: one being verified, one waiting for an earlier chunk.
    let window = 2 * tiles * (config.batch_signatures.max(CHUNK) + CHUNK);
    let commit = Commit::new(&mut *sink, window);
    let tiles_done = AtomicUsize::new(0);
    let started = Instant::now();

    let shared = tile::Shared {
        config,
        verifier: &verifier,
        deduper: &deduper,
        counters: &counters,
        latency: &latency,
        last_verdict: &last_verdict,
        commit: &commit,
        log_dropped,
        spent: spent_tx,
    };

    let ingested = std::thread::scope(|s| {
        let counters = &counters;
        let first_arrival = &first_arrival;
        let ingest = s.spawn(move || {
            let mut source = source;
            let queue = Queue {
                chunks: chunk_tx,
                spent: spent_rx,
            };
            ingest(&mut source, queue, counters, config, stop, first_arrival)
        });
        let shared = &shared;
        let tiles_done = &tiles_done;
        for i in 0..tiles {
            let chunks = chunk_rx.clone();
            std::thread::Builder::new()
                .name(format!("linesig-verify-{i}"))
                .spawn_scoped(s, move || {
                    // Counted even if the tile panics, so the reporting loop below ends
                    // and the scope passes the panic on.
                    let _done = Finished(tiles_done, shared.commit);
                    let cpu = stats::thread_cpu_time();
                    tile::run(shared, chunks);
                    if let (Some(start), Some(end)) = (cpu, stats::thread_cpu_time()) {
                        let used = (end - start).as_nanos() as u64;
                        shared.counters.tile_cpu_ns.fetch_add(used, Relaxed);
                    }
                })
                .expect("spawn a verify tile");
        }
        drop(chunk_rx);
        let running = Running {
            started,
            tiles,
            tiles_done,
        };
        report_until_done(config, &running, counters, &latency, &mut on_report);
        ingest
            .join()
            .unwrap_or_else(|panic| std::panic::resume_unwind(panic))
    });
    drop(shared);
    let finished = commit.into_sink().finish();
    ingested.map_err(Error::Source)?;
    finished.map_err(Error::Sink)?;
    // The run's active time: first packet in to last verdict out.
    let active = match (first_arrival.get(), *last_verdict.lock().unwrap()) {
        (Some(a), Some(b)) if b > *a => (b - *a).as_secs_f64(),
        _ => started.elapsed().as_secs_f64(),
    };
    Ok(Reporter::summary(&counters, &latency, active))
}

/// The tiles of a run, as the reporting loop watches them.
struct Running<'a> {
    started: Instant,
    tiles: usize,
    tiles_done: &'a AtomicUsize,
}

/// Until every tile has finished: an interval report every `config.report_every`.
fn report_until_done(
    config: &Config,
    running: &Running<'_>,
    counters: &Counters,
    latency: &Mutex<Latency>,
    on_report: &mut impl FnMut(&Report),
) {
    let mut reporter = Reporter::new();
    let mut next = config.report_every.map(|every| running.started + every);
    while running.tiles_done.load(Relaxed) < running.tiles {
        std::thread::sleep(Duration::from_millis(20));
        if let (Some(at), Some(every)) = (next, config.report_every) {
            if Instant::now() >= at {
                let elapsed = running.started.elapsed().as_secs_f64();
                on_report(&reporter.interval(counters, latency, elapsed));
                next = Some(at + every);
            }
        }
    }
}

/// Counts a finished tile when dropped: at its end, or as a panic unwinds it (then the
/// commit's window is abandoned too, so that no other tile waits for this one).
struct Finished<'a, 's, K: Sink>(&'a AtomicUsize, &'a Commit<'s, K>);

impl<K: Sink> Drop for Finished<'_, '_, K> {
    fn drop(&mut self) {
        if std::thread::panicking() {
            self.1.abandon();
        }
        self.0.fetch_add(1, Relaxed);
    }
}

/// The Rust example of docs/pipeline.md, run as a doctest.
#[cfg(doctest)]
#[doc = include_str!("../../../docs/pipeline.md")]
struct PipelineDocs;
