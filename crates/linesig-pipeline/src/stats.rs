//! Pipeline counters and latency histograms, and the interval and whole-run reports
//! (data: the CLI prints them, an embedder exports them).
//!
//! Counters are atomics bumped by the stage that owns the event; the reporter only reads
//! them. Latency (ingest to verdict, per packet) goes into two HDR histograms in
//! nanoseconds, one for the current interval and one for the whole run, recorded under
//! one lock per verified batch.

use hdrhistogram::Histogram;
use serde::Serialize;
use std::collections::BTreeMap;
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};
use std::sync::Mutex;
use std::time::Duration;

#[derive(Default)]
pub(crate) struct Counters {
    /// Packets and bytes taken off the socket or file.
    pub received: AtomicU64,
    pub received_bytes: AtomicU64,
    /// Packets waiting for a verify tile now (a gauge).
    pub queued: AtomicU64,
    /// Shed at ingest because the queue to the tiles was full.
    pub overload: AtomicU64,
    /// Dropped by the kernel before ingest saw them (socket buffer overflow).
    pub kernel_dropped: AtomicU64,
    pub malformed: AtomicU64,
    pub duplicate: AtomicU64,
    /// Well-formed packets with at least one signature the policy rejects.
    pub invalid_signature: AtomicU64,
    pub passed: AtomicU64,
    /// Signatures verified (valid or not) and batches handed to the engine.
    pub signatures: AtomicU64,
    pub batches: AtomicU64,
    /// Passing packets the sink failed to forward or write.
    pub sink_errors: AtomicU64,
    /// Times the dedup filter was cleared (full or old).
    pub dedup_resets: AtomicU64,
    /// CPU time the verify tiles' threads used, in nanoseconds (added as each ends).
    pub tile_cpu_ns: AtomicU64,
    malformed_rules: Mutex<BTreeMap<&'static str, u64>>,
}

impl Counters {
    pub fn malformed(&self, rule: &'static str) {
        self.malformed.fetch_add(1, Relaxed);
        *self
            .malformed_rules
            .lock()
            .unwrap()
            .entry(rule)
            .or_default() += 1;
    }

    fn snapshot(&self) -> Snapshot {
        Snapshot {
            received: self.received.load(Relaxed),
            received_bytes: self.received_bytes.load(Relaxed),
            overload: self.overload.load(Relaxed),
            kernel_dropped: self.kernel_dropped.load(Relaxed),
            malformed: self.malformed.load(Relaxed),
            duplicate: self.duplicate.load(Relaxed),
            invalid_signature: self.invalid_signature.load(Relaxed),
            passed: self.passed.load(Relaxed),
            signatures: self.signatures.load(Relaxed),
            batches: self.batches.load(Relaxed),
            sink_errors: self.sink_errors.load(Relaxed),
            dedup_resets: self.dedup_resets.load(Relaxed),
        }
    }
}

#[derive(Clone, Copy, Default)]
struct Snapshot {
    received: u64,
    received_bytes: u64,
    overload: u64,
    kernel_dropped: u64,
    malformed: u64,
    duplicate: u64,
    invalid_signature: u64,
    passed: u64,
    signatures: u64,
    batches: u64,
    sink_errors: u64,
    dedup_resets: u64,
}

pub(crate) struct Latency {
    interval: Histogram<u64>,
    total: Histogram<u64>,
    /// Engine time per batch: the part of the latency that is verification.
    verify: Histogram<u64>,
}

impl Latency {
    pub fn new() -> Mutex<Latency> {
        // 1 ns to 1 hour at 3 significant digits (≈ 0.1 % error).
        let h = || Histogram::new_with_bounds(1, 3_600_000_000_000, 3).expect("valid bounds");
        Mutex::new(Latency {
            interval: h(),
            total: h(),
            verify: h(),
        })
    }

    pub fn record(&mut self, latency: Duration) {
        let ns = clamp_ns(latency);
        // Within bounds by the clamp, so these cannot fail.
        let _ = self.interval.record(ns);
        let _ = self.total.record(ns);
    }

    pub fn record_verify(&mut self, took: Duration) {
        let _ = self.verify.record(clamp_ns(took));
    }
}

fn clamp_ns(d: Duration) -> u64 {
    (d.as_nanos() as u64).clamp(1, 3_600_000_000_000)
}

/// Percentiles in microseconds.
#[derive(Clone, Copy, Debug, Default, Serialize)]
pub struct LatencySummary {
    pub p50_us: f64,
    pub p75_us: f64,
    pub p99_us: f64,
    pub max_us: f64,
    pub count: u64,
}

fn summarize(h: &Histogram<u64>) -> LatencySummary {
    let us = |ns: u64| ns as f64 / 1000.0;
    if h.is_empty() {
        return LatencySummary::default();
    }
    LatencySummary {
        p50_us: us(h.value_at_quantile(0.50)),
        p75_us: us(h.value_at_quantile(0.75)),
        p99_us: us(h.value_at_quantile(0.99)),
        max_us: us(h.max()),
        count: h.len(),
    }
}

/// Drops by cause, as the report prints them.
#[derive(Clone, Debug, Default, Serialize)]
pub struct Drops {
    pub malformed: u64,
    pub duplicate: u64,
    pub invalid_signature: u64,
    pub overload: u64,
    pub kernel: u64,
}

/// Which span a [`Report`] covers.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum ReportKind {
    /// The span since the previous interval report.
    Interval,
    /// The whole run, first packet in to last verdict out.
    Summary,
}

/// One interval's counts and rates, or the whole run's.
#[derive(Clone, Debug, Serialize)]
pub struct Report {
    pub kind: ReportKind,
    /// Seconds since the run started (an interval) or the run's active span (summary).
    pub seconds: f64,
    pub packets_per_sec: f64,
    pub signatures_per_sec: f64,
    pub input_gbps: f64,
    pub received: u64,
    pub passed: u64,
    pub signatures: u64,
    pub batches: u64,
    pub latency: LatencySummary,
    /// Engine time per batch (summary only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub verify_batch: Option<LatencySummary>,
    pub drops: Drops,
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub malformed_rules: BTreeMap<&'static str, u64>,
    pub sink_errors: u64,
    pub dedup_resets: u64,
    /// CPU-seconds the verify tiles used per second of the run (summary only, where the
    /// OS reports thread CPU time): N tiles kept busy make N.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub busy_cores: Option<f64>,
    /// Peak resident memory of the process (summary only, where the OS reports it).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub peak_rss_mb: Option<f64>,
}

/// The process's peak resident set (VmHWM), in MB.
fn peak_rss_mb() -> Option<f64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    let kb: f64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb / 1024.0)
}

/// Turns counter snapshots into reports.
pub(crate) struct Reporter {
    last: Snapshot,
    last_seconds: f64,
}

impl Reporter {
    pub fn new() -> Reporter {
        Reporter {
            last: Snapshot::default(),
            last_seconds: 0.0,
        }
    }

    /// The report for the interval since the previous call (its latency histogram is
    /// then cleared).
    pub fn interval(
        &mut self,
        counters: &Counters,
        latency: &Mutex<Latency>,
        seconds: f64,
    ) -> Report {
        let now = counters.snapshot();
        let summary = {
            let mut l = latency.lock().unwrap();
            let s = summarize(&l.interval);
            l.interval.reset();
            s
        };
        let report = build(
            ReportKind::Interval,
            &now,
            &self.last,
            seconds - self.last_seconds,
            seconds,
            summary,
            BTreeMap::new(),
        );
        self.last = now;
        self.last_seconds = seconds;
        report
    }

    /// The whole run over `active` seconds (first packet in to last verdict out).
    pub fn summary(counters: &Counters, latency: &Mutex<Latency>, active: f64) -> Report {
        let now = counters.snapshot();
        let (summary, verify) = {
            let l = latency.lock().unwrap();
            (summarize(&l.total), summarize(&l.verify))
        };
        let rules = counters.malformed_rules.lock().unwrap().clone();
        let mut report = build(
            ReportKind::Summary,
            &now,
            &Snapshot::default(),
            active,
            active,
            summary,
            rules,
        );
        report.verify_batch = Some(verify);
        report.peak_rss_mb = peak_rss_mb();
        let tile_cpu = counters.tile_cpu_ns.load(Relaxed);
        report.busy_cores = (tile_cpu > 0 && active > 0.0).then(|| tile_cpu as f64 / 1e9 / active);
        report
    }
}

fn build(
    kind: ReportKind,
    now: &Snapshot,
    before: &Snapshot,
    span: f64,
    seconds: f64,
    latency: LatencySummary,
    malformed_rules: BTreeMap<&'static str, u64>,
) -> Report {
    let rate = |a: u64, b: u64| {
        if span > 0.0 {
            (a - b) as f64 / span
        } else {
            0.0
        }
    };
    Report {
        kind,
        seconds,
        packets_per_sec: rate(now.received, before.received),
        signatures_per_sec: rate(now.signatures, before.signatures),
        input_gbps: rate(now.received_bytes, before.received_bytes) * 8.0 / 1e9,
        received: now.received - before.received,
        passed: now.passed - before.passed,
        signatures: now.signatures - before.signatures,
        batches: now.batches - before.batches,
        latency,
        verify_batch: None,
        drops: Drops {
            malformed: now.malformed - before.malformed,
            duplicate: now.duplicate - before.duplicate,
            invalid_signature: now.invalid_signature - before.invalid_signature,
            overload: now.overload - before.overload,
            kernel: now.kernel_dropped - before.kernel_dropped,
        },
        malformed_rules,
        sink_errors: now.sink_errors - before.sink_errors,
        dedup_resets: now.dedup_resets - before.dedup_resets,
        busy_cores: None,
        peak_rss_mb: None,
    }
}

/// CPU time the calling thread has used, where the OS reports it.
pub(crate) fn thread_cpu_time() -> Option<Duration> {
    #[cfg(unix)]
    {
        let mut t = libc::timespec {
            tv_sec: 0,
            tv_nsec: 0,
        };
        // SAFETY: `t` is a valid, writable timespec for the call to fill.
        let ok = unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut t) } == 0;
        ok.then(|| Duration::new(t.tv_sec as u64, t.tv_nsec as u32))
    }
    #[cfg(not(unix))]
    {
        None
    }
}
