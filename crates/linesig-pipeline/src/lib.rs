//! linesig's packet pipeline as a library: Solana transactions in, verified packets out,
//! with counters, latency percentiles and load shedding. `linesig serve` and `linesig
//! replay` are this crate plus argument parsing and printing; a validator can run the same
//! sigverify stage in its own process with its own [`Source`] and [`Sink`].
//!
//! ```text
//! ingest ──chunks──▶ parse · dedup · batch ──batches──▶ verify · sink
//! (thread)  bounded   (thread)                bounded    (thread + engine workers)
//! ```
//!
//! Each arrow is a bounded queue, so memory is bounded: the parse queue holds
//! `queue_packets` packets (a live source is shed when they do not fit, counted as
//! `overload`; a replay waits), and the verify queue is a rendezvous: a batch changes
//! hands only when the verifier is waiting for one. So the batcher offers its batch once
//! the oldest packet has waited `max_wait` (0: at once); while the verifier is busy the
//! batch keeps growing, up to `batch_signatures`, and is taken the moment the verifier
//! frees up. Low load gets batches of one packet and the latency of one verification;
//! high load gets full batches without a timer.
//!
//! A packet passes only if every one of its signatures is valid under the engine's
//! Ed25519 policy. Ed25519 precompile signatures (with [`ParseOptions::precompile`]) are
//! a consensus rule apart: Agave verifies them with `verify_strict` whatever the
//! transaction policy, so the verify stage batches them through a `strict` engine that
//! shares the main engine's worker pool. docs/design.md §5 has the full semantics.
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

pub mod capture;
mod dedup;
mod sink;
mod source;
mod stats;

pub use dedup::Deduper;
pub use sink::{sending_socket, Discard, Dropped, Sink, UdpForward, Verified};
pub use source::{Replay, Source, SourceState, UdpSource, CHUNK, POLL};
pub use stats::{Drops, LatencySummary, Report, ReportKind};

use crossbeam_channel::{bounded, Receiver, Select, Sender};
use linesig::wire::{self, ItemRanges, ParseOptions};
use linesig::{Engine, Item, ItemSource, Policy, Reject, Scheme, Verdict};
use stats::{Counters, Latency, Reporter};
use std::sync::atomic::{AtomicBool, Ordering::Relaxed};
use std::sync::{Mutex, OnceLock};
use std::time::{Duration, Instant};

/// One packet as the pipeline carries it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Packet {
    /// Arrival order in this run, from 0.
    pub seq: u64,
    /// When ingest took it from its source; latency is measured from here.
    pub arrival: Instant,
    pub data: Vec<u8>,
}

/// How a pipeline runs. [`Config::new`] gives the defaults of `linesig serve`.
#[derive(Debug)]
pub struct Config {
    /// An Ed25519 engine: its policy judges transaction signatures, its workers verify.
    pub engine: Engine,
    /// Which transaction formats parse, and whether precompile signatures are checked.
    pub parse: ParseOptions,
    /// Most signatures per verify batch.
    pub batch_signatures: usize,
    /// Longest a batch is held back to fill while the verifier is idle.
    pub max_wait: Duration,
    /// Packets the parse queue holds before a live source is shed.
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
    /// Batches of up to 1,024 signatures handed over at once (no wait), a 4,096-packet
    /// parse queue, a 4 MiB dedup filter (false positives 10⁻⁶, cleared at least every
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

/// One verify batch: the packets that passed parse and dedup, and every triple to verify,
/// grouped by packet in packet order.
struct Batch {
    packets: Vec<Packet>,
    /// Per packet, its first item; one extra entry closes the last packet.
    first_item: Vec<usize>,
    items: Vec<(u32, ItemRanges)>,
    /// Packets dropped before verification, for sinks that log them.
    dropped: Vec<(u64, Dropped)>,
    oldest: Option<Instant>,
}

impl Batch {
    fn new() -> Batch {
        Batch {
            packets: Vec::new(),
            first_item: vec![0],
            items: Vec::new(),
            dropped: Vec::new(),
            oldest: None,
        }
    }

    fn is_empty(&self) -> bool {
        self.packets.is_empty() && self.dropped.is_empty()
    }
}

impl ItemSource for Batch {
    fn len(&self) -> usize {
        self.items.len()
    }

    fn item(&self, index: usize) -> Item<'_> {
        let (packet, r) = &self.items[index];
        let p = &self.packets[*packet as usize].data;
        Item::new(
            &p[r.public_key.clone()],
            &p[r.message.clone()],
            &p[r.signature.clone()],
        )
    }
}

/// Some of a batch's items, by index: one engine call over the precompile signatures.
struct Subset<'a> {
    batch: &'a Batch,
    indices: &'a [usize],
}

impl ItemSource for Subset<'_> {
    fn len(&self) -> usize {
        self.indices.len()
    }

    fn item(&self, index: usize) -> Item<'_> {
        self.batch.item(self.indices[index])
    }
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
    let verifier = VerifyStage::new(&config.engine, policy, config.parse)?;
    let counters = Counters::default();
    let latency = Latency::new();
    let first_arrival: OnceLock<Instant> = OnceLock::new();
    let last_verdict: Mutex<Option<Instant>> = Mutex::new(None);
    let live = source.is_live();
    let capacity = if live {
        // A live source's chunks can hold a single packet, so the channel admits
        // `queue_packets` of them and the packet count in `hand_over` is the binding bound.
        config.queue_packets
    } else {
        // A replay sends full chunks and blocks on the channel itself.
        (config.queue_packets / CHUNK).max(1)
    };
    let (chunk_tx, chunk_rx) = bounded::<Vec<Packet>>(capacity);
    // A rendezvous: a batch is handed over only when the verifier is waiting for one, so
    // the batcher knows the verifier is idle and otherwise keeps the batch growing.
    let (batch_tx, batch_rx) = bounded::<Batch>(0);
    let log_dropped = sink.wants_dropped();
    let done = AtomicBool::new(false);
    let started = Instant::now();

    let ingested = std::thread::scope(|s| {
        let counters = &counters;
        let ingest = s.spawn(move || {
            let mut source = source;
            ingest(&mut source, chunk_tx, counters, config, stop)
        });
        let first_arrival = &first_arrival;
        s.spawn(move || {
            batcher(
                config,
                log_dropped,
                chunk_rx,
                batch_tx,
                counters,
                first_arrival,
            )
        });
        let latency = &latency;
        let last_verdict = &last_verdict;
        let verifier = &verifier;
        let sink = &mut *sink;
        let done = &done;
        s.spawn(move || {
            verifier.run(batch_rx, counters, latency, sink, last_verdict);
            done.store(true, Relaxed);
        });
        let mut reporter = Reporter::new();
        let mut next = config.report_every.map(|every| started + every);
        while !done.load(Relaxed) {
            std::thread::sleep(Duration::from_millis(20));
            if let (Some(at), Some(every)) = (next, config.report_every) {
                if Instant::now() >= at {
                    on_report(&reporter.interval(
                        counters,
                        latency,
                        started.elapsed().as_secs_f64(),
                    ));
                    next = Some(at + every);
                }
            }
        }
        ingest
            .join()
            .unwrap_or_else(|panic| std::panic::resume_unwind(panic))
    });
    let finished = sink.finish();
    ingested.map_err(Error::Source)?;
    finished.map_err(Error::Sink)?;
    let active = match (first_arrival.get(), *last_verdict.lock().unwrap()) {
        (Some(a), Some(b)) if b > *a => (b - *a).as_secs_f64(),
        _ => started.elapsed().as_secs_f64(),
    };
    Ok(Reporter::summary(&counters, &latency, active))
}

/// Take packets from the source until it ends, `max_packets` have come, `stop` is set or
/// the parse stage is gone; stamp them and queue them in chunks.
fn ingest<S: Source>(
    source: &mut S,
    tx: Sender<Vec<Packet>>,
    counters: &Counters,
    config: &Config,
    stop: &AtomicBool,
) -> std::io::Result<()> {
    let live = source.is_live();
    let mut seq = 0u64;
    let mut received = Vec::with_capacity(CHUNK);
    while !stop.load(Relaxed) {
        let want = match config.max_packets {
            Some(max) if seq >= max => return Ok(()),
            Some(max) => ((max - seq) as usize).min(CHUNK),
            None => CHUNK,
        };
        let state = source.receive(want, &mut received)?;
        if let Some(dropped) = source.kernel_dropped() {
            counters.kernel_dropped.fetch_max(dropped, Relaxed);
        }
        if !received.is_empty() {
            let arrival = Instant::now();
            let chunk: Vec<Packet> = received
                .drain(..)
                .map(|data| {
                    seq += 1;
                    Packet {
                        seq: seq - 1,
                        arrival,
                        data,
                    }
                })
                .collect();
            if !hand_over(chunk, &tx, counters, config.queue_packets, live) {
                return Ok(());
            }
        }
        if state == SourceState::Exhausted {
            return Ok(());
        }
    }
    Ok(())
}

/// Queue a chunk for the parse stage. A live source's chunk is shed (counted as
/// `overload`) when its packets do not fit; a replay blocks on the channel instead. False
/// once the parse stage is gone.
fn hand_over(
    chunk: Vec<Packet>,
    tx: &Sender<Vec<Packet>>,
    counters: &Counters,
    queue_packets: usize,
    live: bool,
) -> bool {
    let len = chunk.len() as u64;
    counters.received.fetch_add(len, Relaxed);
    let bytes: usize = chunk.iter().map(|p| p.data.len()).sum();
    counters.received_bytes.fetch_add(bytes as u64, Relaxed);
    // Only this thread adds to `queued`, so room seen here cannot vanish before the add.
    if live && counters.queued.load(Relaxed) + len > queue_packets as u64 {
        counters.overload.fetch_add(len, Relaxed);
        return true;
    }
    counters.queued.fetch_add(len, Relaxed);
    tx.send(chunk).is_ok()
}

/// Most dropped-packet log entries one batch carries: a flood of malformed packets with
/// a logging sink must not grow a batch without bound.
const DROPPED_LOG_MAX: usize = 4096;

/// Parse, dedup and batch: the only stage that looks inside packets before verification.
fn batcher(
    config: &Config,
    log_dropped: bool,
    rx: Receiver<Vec<Packet>>,
    tx: Sender<Batch>,
    counters: &Counters,
    first_arrival: &OnceLock<Instant>,
) {
    let mut deduper = Deduper::new(config.dedup_bytes, config.dedup_fp_rate, config.dedup_reset);
    let mut batch = Batch::new();
    let add = |batch: &mut Batch, packet: Packet, deduper: &mut Deduper| {
        first_arrival.get_or_init(|| packet.arrival);
        let tx = match wire::parse(&packet.data, config.parse) {
            Ok(tx) => tx,
            Err(e) => {
                counters.malformed(e.rule());
                if log_dropped {
                    batch
                        .dropped
                        .push((packet.seq, Dropped::Malformed(e.rule())));
                }
                return;
            }
        };
        if deduper.seen(&packet.data, packet.arrival) {
            counters.duplicate.fetch_add(1, Relaxed);
            if log_dropped {
                batch.dropped.push((packet.seq, Dropped::Duplicate));
            }
            return;
        }
        let index = batch.packets.len() as u32;
        batch.items.extend(tx.item_ranges().map(|r| (index, r)));
        batch.first_item.push(batch.items.len());
        batch.oldest.get_or_insert(packet.arrival);
        batch.packets.push(packet);
    };
    loop {
        let full =
            batch.items.len() >= config.batch_signatures || batch.dropped.len() >= DROPPED_LOG_MAX;
        // A batch of only dropped packets' log lines goes as soon as the verifier is free.
        let due = match batch.oldest {
            Some(t) => t.elapsed() >= config.max_wait,
            None => !batch.dropped.is_empty(),
        };
        if full {
            // Full: wait for the verifier.
            if tx
                .send(std::mem::replace(&mut batch, Batch::new()))
                .is_err()
            {
                return;
            }
            continue;
        }
        let chunk = if due {
            // Due: hand over as soon as the verifier can take it, growing meanwhile.
            let mut sel = Select::new();
            let send = sel.send(&tx);
            let recv = sel.recv(&rx);
            let op = sel.select();
            if op.index() == send {
                if op
                    .send(&tx, std::mem::replace(&mut batch, Batch::new()))
                    .is_err()
                {
                    return;
                }
                continue;
            }
            debug_assert_eq!(op.index(), recv);
            op.recv(&rx)
        } else {
            let wait = match batch.oldest {
                Some(t) => config.max_wait.saturating_sub(t.elapsed()),
                None => Duration::from_millis(50),
            };
            match rx.recv_timeout(wait) {
                Ok(chunk) => Ok(chunk),
                Err(crossbeam_channel::RecvTimeoutError::Timeout) => continue,
                Err(crossbeam_channel::RecvTimeoutError::Disconnected) => {
                    Err(crossbeam_channel::RecvError)
                }
            }
        };
        match chunk {
            Ok(chunk) => {
                counters.queued.fetch_sub(chunk.len() as u64, Relaxed);
                for packet in chunk {
                    add(&mut batch, packet, &mut deduper);
                }
                counters.dedup_resets.store(deduper.resets(), Relaxed);
            }
            Err(_) => {
                // Ingest is done: flush what is left and stop.
                if !batch.is_empty() {
                    let _ = tx.send(batch);
                }
                return;
            }
        }
    }
}

/// The verify stage: the engine for transaction signatures and, where the policy is not
/// `strict` and precompile signatures are extracted, a `strict` engine on the same
/// worker pool for those.
struct VerifyStage<'a> {
    engine: &'a Engine,
    precompile: Option<Engine>,
}

impl<'a> VerifyStage<'a> {
    fn new(engine: &'a Engine, policy: Policy, parse: ParseOptions) -> Result<Self, Error> {
        let precompile = match (parse.precompile, policy) {
            (true, policy) if policy != Policy::Strict => {
                Some(engine.sibling(Scheme::Ed25519(Policy::Strict))?)
            }
            _ => None,
        };
        Ok(VerifyStage { engine, precompile })
    }

    /// One verdict per item of the batch, in order.
    fn verify(&self, batch: &Batch) -> Vec<Verdict> {
        let Some(strict) = &self.precompile else {
            return self.engine.verify_source(batch);
        };
        let (precompile, own): (Vec<usize>, Vec<usize>) =
            (0..batch.items.len()).partition(|&i| batch.items[i].1.precompile);
        if precompile.is_empty() {
            return self.engine.verify_source(batch);
        }
        // Fail closed: every slot is written below.
        let mut verdicts = vec![Verdict::Invalid(Reject::EquationFailed); batch.items.len()];
        for (engine, indices) in [(self.engine, &own), (strict, &precompile)] {
            let subset = Subset { batch, indices };
            for (verdict, &i) in engine.verify_source(&subset).into_iter().zip(indices) {
                verdicts[i] = verdict;
            }
        }
        verdicts
    }

    /// Verify each batch, then count, time and sink every packet.
    fn run<K: Sink>(
        &self,
        rx: Receiver<Batch>,
        counters: &Counters,
        latency: &Mutex<Latency>,
        sink: &mut K,
        last_verdict: &Mutex<Option<Instant>>,
    ) {
        for batch in rx {
            let started = Instant::now();
            let verdicts = self.verify(&batch);
            let now = Instant::now();
            {
                let mut l = latency.lock().unwrap();
                batch.packets.iter().for_each(|p| l.record(now - p.arrival));
                if !batch.items.is_empty() {
                    l.record_verify(now - started);
                }
            }
            counters
                .signatures
                .fetch_add(verdicts.len() as u64, Relaxed);
            if !batch.items.is_empty() {
                counters.batches.fetch_add(1, Relaxed);
            }
            for (i, packet) in batch.packets.iter().enumerate() {
                let own = &verdicts[batch.first_item[i]..batch.first_item[i + 1]];
                let passed = own.iter().all(|v| *v == Verdict::Valid);
                if passed {
                    counters.passed.fetch_add(1, Relaxed);
                    if sink.pass(packet).is_err() {
                        counters.sink_errors.fetch_add(1, Relaxed);
                    }
                } else {
                    counters.invalid_signature.fetch_add(1, Relaxed);
                }
                // A packet's own signatures come first among its items; #0 names it.
                let signature = batch
                    .items
                    .get(batch.first_item[i])
                    .map_or(&[][..], |(_, first)| &packet.data[first.signature.clone()]);
                sink.verified(&Verified {
                    packet,
                    verdicts: own,
                    passed,
                    signature,
                });
            }
            for &(seq, why) in &batch.dropped {
                sink.dropped(seq, why);
            }
            *last_verdict.lock().unwrap() = Some(now);
        }
    }
}

/// The Rust example of docs/pipeline.md, run as a doctest.
#[cfg(doctest)]
#[doc = include_str!("../../../docs/pipeline.md")]
struct PipelineDocs;
