//! The packet pipeline of `linesig serve` and `linesig replay` (DESIGN.md §5):
//!
//! ```text
//! ingest ──chunks──▶ parse · dedup · batch ──batches──▶ verify · sink
//! (thread)  bounded   (thread)                bounded    (thread + engine workers)
//! ```
//!
//! Each arrow is a bounded queue, so memory is bounded: the parse queue holds
//! `queue_packets` packets (ingest sheds what does not fit, counted as `overload`), and
//! the verify queue is a rendezvous: a batch changes hands only when the verifier is
//! waiting for one. So the batcher offers its batch once the oldest packet has waited
//! `max_wait` (0: at once); while the verifier is busy the batch keeps growing, up to
//! `batch_signatures`, and is taken the moment the verifier frees up. Low load gets
//! batches of one packet and the latency of one verification; high load gets full
//! batches without a timer. A packet passes only if every one of its signatures is valid
//! under the policy (precompile signatures under `Strict`).

pub mod dedup;
pub mod ingest;
pub mod stats;

use crate::packets::LspktWriter;
use crate::CliError;
use crossbeam_channel::{bounded, Receiver, Select, Sender};
use dedup::Deduper;
use ingest::{Limits, Packet, Source};
use linesig::wire::{self, ItemRanges, ParseOptions};
use linesig::{Engine, Item, ItemSource, Policy, Scheme, Verdict};
use stats::{Counters, Latency, Report, Reporter};
use std::io::{BufWriter, Write};
use std::net::{SocketAddr, UdpSocket};
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering::Relaxed};
use std::sync::{Mutex, OnceLock};
use std::time::{Duration, Instant};

pub struct Config {
    pub engine: Engine,
    pub policy: Policy,
    pub parse: ParseOptions,
    pub batch_signatures: usize,
    pub max_wait: Duration,
    pub queue_packets: usize,
    pub dedup_bytes: usize,
    pub dedup_fp_rate: f64,
    pub dedup_reset: Duration,
    pub forward: Option<SocketAddr>,
    pub out: Option<PathBuf>,
    pub verdicts: Option<PathBuf>,
    pub json: bool,
    /// Print an interval report this often (None: only the summary).
    pub report_every: Option<Duration>,
}

/// One verify batch: the packets that passed parse and dedup, and every triple to verify,
/// grouped by packet in packet order.
struct Batch {
    packets: Vec<Packet>,
    /// Per packet, its first item; one extra entry closes the last packet.
    first_item: Vec<usize>,
    items: Vec<(u32, ItemRanges)>,
    /// Packets dropped before verification, for the verdict log: (seq, cause, rule).
    dropped: Vec<(u64, &'static str, &'static str)>,
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

/// Run the pipeline until the source is exhausted or `stop` is set; returns the summary
/// (also printed).
pub fn run(
    config: Config,
    source: Source,
    stop: &AtomicBool,
    max_packets: Option<u64>,
) -> Result<Report, CliError> {
    let counters = Counters::default();
    let latency = Latency::new();
    let first_arrival: OnceLock<Instant> = OnceLock::new();
    let last_verdict: Mutex<Option<Instant>> = Mutex::new(None);
    let mut sink = Sink::open(&config)?;
    let (chunk_tx, chunk_rx) =
        bounded::<Vec<Packet>>(ingest::channel_capacity(&source, config.queue_packets));
    // A rendezvous: a batch is handed over only when the verifier is waiting for one, so
    // the batcher knows the verifier is idle and otherwise keeps the batch growing.
    let (batch_tx, batch_rx) = bounded::<Batch>(0);
    let done = AtomicBool::new(false);
    let started = Instant::now();

    std::thread::scope(|s| {
        let counters = &counters;
        let config = &config;
        s.spawn(move || {
            let limits = Limits {
                stop,
                max_packets,
                queue_packets: config.queue_packets,
            };
            ingest::run(source, chunk_tx, counters, limits);
        });
        let first_arrival = &first_arrival;
        s.spawn(move || batcher(config, chunk_rx, batch_tx, counters, first_arrival));
        let latency = &latency;
        let last_verdict = &last_verdict;
        let sink = &mut sink;
        let done = &done;
        s.spawn(move || {
            verifier(config, batch_rx, counters, latency, sink, last_verdict);
            done.store(true, Relaxed);
        });
        let mut reporter = Reporter::new();
        let mut next = config.report_every.map(|every| started + every);
        while !done.load(Relaxed) {
            std::thread::sleep(Duration::from_millis(20));
            if let (Some(at), Some(every)) = (next, config.report_every) {
                if Instant::now() >= at {
                    reporter
                        .interval(counters, latency, started.elapsed().as_secs_f64())
                        .print(config.json);
                    next = Some(at + every);
                }
            }
        }
    });
    sink.finish()?;
    let active = match (first_arrival.get(), *last_verdict.lock().unwrap()) {
        (Some(a), Some(b)) if b > *a => (b - *a).as_secs_f64(),
        _ => started.elapsed().as_secs_f64(),
    };
    let summary = Reporter::summary(&counters, &latency, active);
    summary.print(config.json);
    Ok(summary)
}

/// Most verdict-log entries of dropped packets one batch carries: a flood of malformed
/// packets with `--verdicts` on must not grow a batch without bound.
const DROPPED_LOG_MAX: usize = 4096;

/// Parse, dedup and batch: the only stage that looks inside packets before verification.
fn batcher(
    config: &Config,
    rx: Receiver<Vec<Packet>>,
    tx: Sender<Batch>,
    counters: &Counters,
    first_arrival: &OnceLock<Instant>,
) {
    let mut deduper = Deduper::new(config.dedup_bytes, config.dedup_fp_rate, config.dedup_reset);
    let log = config.verdicts.is_some();
    let mut batch = Batch::new();
    let add = |batch: &mut Batch, packet: Packet, deduper: &mut Deduper| {
        first_arrival.get_or_init(|| packet.arrival);
        let tx = match wire::parse(&packet.data, config.parse) {
            Ok(tx) => tx,
            Err(e) => {
                counters.malformed(e.rule());
                if log {
                    batch.dropped.push((packet.seq, "malformed", e.rule()));
                }
                return;
            }
        };
        if deduper.seen(&packet.data, packet.arrival) {
            counters.duplicate.fetch_add(1, Relaxed);
            if log {
                batch.dropped.push((packet.seq, "duplicate", ""));
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

/// Verify each batch on the engine's workers, then count, time and sink every packet.
fn verifier(
    config: &Config,
    rx: Receiver<Batch>,
    counters: &Counters,
    latency: &Mutex<Latency>,
    sink: &mut Sink,
    last_verdict: &Mutex<Option<Instant>>,
) {
    let strict = Scheme::Ed25519(Policy::Strict);
    for batch in rx {
        let started = Instant::now();
        let mut verdicts = config.engine.verify_source(&batch);
        if config.policy != Policy::Strict {
            for (i, (_, r)) in batch.items.iter().enumerate() {
                if r.precompile {
                    verdicts[i] = strict.verify(&batch.item(i));
                }
            }
        }
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
            let pass = own.iter().all(|v| *v == Verdict::Valid);
            if pass {
                counters.passed.fetch_add(1, Relaxed);
                if !sink.accept(&packet.data) {
                    counters.sink_errors.fetch_add(1, Relaxed);
                }
            } else {
                counters.invalid_signature.fetch_add(1, Relaxed);
            }
            // A packet's own signatures come first among its items; #0 names it.
            let (_, first) = &batch.items[batch.first_item[i]];
            sink.verdict(packet, &packet.data[first.signature.clone()], pass, own);
        }
        for &(seq, cause, rule) in &batch.dropped {
            sink.dropped(seq, cause, rule);
        }
        *last_verdict.lock().unwrap() = Some(now);
    }
}

/// Where passing packets and verdicts go.
struct Sink {
    forward: Option<(UdpSocket, SocketAddr)>,
    out: Option<LspktWriter<BufWriter<std::fs::File>>>,
    verdicts: Option<BufWriter<std::fs::File>>,
    error: Option<String>,
}

impl Sink {
    fn open(config: &Config) -> Result<Sink, CliError> {
        let create = |p: &PathBuf| {
            std::fs::File::create(p)
                .map(BufWriter::new)
                .map_err(|e| CliError::io(format!("cannot create {}: {e}", p.display())))
        };
        let forward = match config.forward {
            Some(addr) => {
                let socket = sending_socket(addr).map_err(|e| {
                    CliError::io(format!("cannot open a socket to forward to {addr}: {e}"))
                })?;
                Some((socket, addr))
            }
            None => None,
        };
        let out = match &config.out {
            Some(p) => Some(
                LspktWriter::new(create(p)?)
                    .map_err(|e| CliError::io(format!("cannot write {}: {e}", p.display())))?,
            ),
            None => None,
        };
        let verdicts = config.verdicts.as_ref().map(create).transpose()?;
        Ok(Sink {
            forward,
            out,
            verdicts,
            error: None,
        })
    }

    /// Forward or write one passing packet; false if that failed.
    fn accept(&mut self, packet: &[u8]) -> bool {
        let mut ok = true;
        if let Some((socket, addr)) = &self.forward {
            ok &= socket.send_to(packet, addr).is_ok();
        }
        if let Some(out) = &mut self.out {
            if let Err(e) = out.write(packet) {
                self.error.get_or_insert(format!("packet output: {e}"));
                ok = false;
            }
        }
        ok
    }

    fn verdict(&mut self, packet: &Packet, signature: &[u8], pass: bool, verdicts: &[Verdict]) {
        let Some(w) = &mut self.verdicts else { return };
        let reasons: Vec<&str> = verdicts
            .iter()
            .map(|v| match v {
                Verdict::Valid => "valid",
                Verdict::Invalid(r) => r.as_str(),
            })
            .collect();
        let line = serde_json::json!({
            "seq": packet.seq,
            "verdict": if pass { "pass" } else { "invalid_signature" },
            "signature": bs58::encode(signature).into_string(),
            "reasons": reasons,
        });
        if let Err(e) = writeln!(w, "{line}") {
            self.error.get_or_insert(format!("verdict output: {e}"));
        }
    }

    fn dropped(&mut self, seq: u64, cause: &str, rule: &str) {
        let Some(w) = &mut self.verdicts else { return };
        let line = if rule.is_empty() {
            serde_json::json!({ "seq": seq, "verdict": cause })
        } else {
            serde_json::json!({ "seq": seq, "verdict": cause, "rule": rule })
        };
        if let Err(e) = writeln!(w, "{line}") {
            self.error.get_or_insert(format!("verdict output: {e}"));
        }
    }

    fn finish(&mut self) -> Result<(), CliError> {
        if let Some(out) = &mut self.out {
            if let Err(e) = out.flush() {
                self.error.get_or_insert(format!("packet output: {e}"));
            }
        }
        if let Some(w) = &mut self.verdicts {
            if let Err(e) = w.flush() {
                self.error.get_or_insert(format!("verdict output: {e}"));
            }
        }
        match self.error.take() {
            Some(e) => Err(CliError::io(e)),
            None => Ok(()),
        }
    }
}

/// A UDP socket on any local port of `to`'s address family, for sending to `to`.
pub fn sending_socket(to: SocketAddr) -> std::io::Result<UdpSocket> {
    let any: SocketAddr = if to.is_ipv4() {
        (std::net::Ipv4Addr::UNSPECIFIED, 0).into()
    } else {
        (std::net::Ipv6Addr::UNSPECIFIED, 0).into()
    };
    UdpSocket::bind(any)
}
