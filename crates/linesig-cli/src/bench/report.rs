//! The signature bench's records (`--json`, docs/bench-json.md) and how they print.
use super::op_rows::{print_rows, OperationRow};
use super::schema::{rates, Headline, YardstickReport};
use super::{BenchArgs, MIB};
use crate::clock::{median, Timing};
use crate::schemes::Yardstick;
use crate::workload::{KeyDistribution, Workload};
use linesig::{Engine, KeyCacheStats, Scheme};
use serde::Serialize;

/// One timed pass of a yardstick, and whether it answered as expected.
pub(crate) struct YardstickRun {
    pub(crate) timing: Timing,
    pub(crate) agrees: bool,
}

#[derive(Serialize)]
pub(crate) struct RunReport {
    /// The fields every scheme's report shares (`bench_schema`).
    #[serde(flatten)]
    pub(crate) head: Headline,
    /// Signatures per vector, where `--lanes` limited them.
    pub(crate) lanes: Option<usize>,
    pub(crate) cores: usize,
    /// Items per work unit.
    pub(crate) batch: usize,
    pub(crate) keys: usize,
    pub(crate) key_distribution: String,
    /// K for `per-key:K` (1 for distinct keys); null for hot and Zipf keys.
    pub(crate) msgs_per_key: Option<usize>,
    pub(crate) msg_size: usize,
    pub(crate) invalid_fraction: f64,
    pub(crate) invalid_count: usize,
    pub(crate) seed: u64,
    pub(crate) repeats: usize,
    pub(crate) keygen_seconds: f64,
    pub(crate) sign_seconds: f64,
    pub(crate) wall_seconds_min: f64,
    pub(crate) wall_seconds_max: f64,
    pub(crate) mismatches: usize,
    pub(crate) best: bool,
    pub(crate) operations: Vec<OperationRow>,
    /// The first of `yardsticks`, kept for readers of earlier reports.
    pub(crate) yardstick: Option<YardstickReport>,
    /// With `--key-cache-mb`: the cache's counters after the last round.
    pub(crate) key_cache: Option<KeyCacheReport>,
    /// zip215 and zip215-strict: whether the batch equation was on, and its work units
    /// over the warm-up pass and every round.
    pub(crate) batch_equation: Option<BatchEquationReport>,
}

#[derive(Serialize)]
pub(crate) struct BatchEquationReport {
    pub(crate) on: bool,
    pub(crate) units_held: u64,
    pub(crate) units_found_few: u64,
    pub(crate) units_fell_back: u64,
    pub(crate) units_skipped: u64,
}

#[derive(Serialize)]
pub(crate) struct KeyCacheReport {
    capacity_bytes: usize,
    used_bytes: usize,
    entries: usize,
    max_entries: usize,
    table_bytes: usize,
    /// Over the timed rounds (after the untimed warm-up pass).
    hit_rate: f64,
    admissions: u64,
    evictions: u64,
    refused: u64,
    /// Tables built during the warm-up pass.
    warm_up_admissions: u64,
    /// The process's resident set now and at its peak (Linux), all engines included.
    process_rss_bytes: Option<u64>,
    process_peak_rss_bytes: Option<u64>,
    /// The same engine with the cache off, in the same rounds.
    cache_off_throughput_per_s: Option<f64>,
    /// Throughput with the cache over throughput without.
    speedup: Option<f64>,
}

#[allow(clippy::too_many_arguments)]
pub(crate) fn report(
    args: &BenchArgs,
    scheme: Scheme,
    cores: usize,
    workload: &Workload,
    engine: &Engine,
    timings: &[Timing],
    mismatches: usize,
    yardsticks: &[(&Yardstick, YardstickRun)],
) -> RunReport {
    let mut head = Headline::new(
        scheme.name().to_string(),
        match scheme {
            Scheme::Ed25519(p) => Some(p.name()),
            _ => None,
        },
        match scheme {
            Scheme::MlDsa(_) => engine.backend().describe(scheme),
            _ => engine.backend().name(),
        },
        engine.workers(),
        workload.len(),
        "signature",
        median(timings.to_vec()),
        mismatches == 0,
    );
    for (y, run) in yardsticks {
        let (throughput, throughput_cpu) = rates(workload.len(), run.timing);
        head.add_yardstick(
            y.name.to_string(),
            run.timing.wall.as_secs_f64(),
            throughput,
            throughput_cpu,
            run.agrees,
        );
    }
    RunReport {
        // What ran: a request above the backend's lanes runs all of them, and the
        // portable path has one.
        lanes: args
            .lanes
            .map(|n| n.min(engine.backend().lanes(engine.scheme()))),
        cores,
        batch: engine.batch_size(),
        keys: workload.public_keys.len(),
        key_distribution: args.keys().to_string(),
        msgs_per_key: match args.keys() {
            KeyDistribution::Distinct => Some(1),
            KeyDistribution::PerKey(k) => Some(k),
            _ => None,
        },
        msg_size: args.msg_size,
        invalid_fraction: args.invalid,
        invalid_count: workload.invalid_count(),
        seed: args.seed,
        repeats: timings.len(),
        keygen_seconds: workload.keygen.wall.as_secs_f64(),
        sign_seconds: workload.signing.wall.as_secs_f64(),
        wall_seconds_min: timings
            .iter()
            .map(|t| t.wall.as_secs_f64())
            .fold(f64::INFINITY, f64::min),
        wall_seconds_max: timings
            .iter()
            .map(|t| t.wall.as_secs_f64())
            .fold(0.0, f64::max),
        mismatches,
        best: false,
        operations: Vec::new(),
        yardstick: head.yardsticks.first().cloned(),
        key_cache: None,
        batch_equation: None,
        head,
    }
}

/// The cache's report: its counters over the timed rounds (`s` less the `warm` state
/// after the warm-up pass) and its size now.
pub(crate) fn cache_report(
    s: KeyCacheStats,
    warm: KeyCacheStats,
    off: Option<f64>,
    on: f64,
) -> KeyCacheReport {
    let (rss, peak) = process_rss();
    let timed = KeyCacheStats {
        hit_signatures: s.hit_signatures - warm.hit_signatures,
        miss_signatures: s.miss_signatures - warm.miss_signatures,
        admissions: s.admissions - warm.admissions,
        evictions: s.evictions - warm.evictions,
        refused: s.refused - warm.refused,
        ..s
    };
    KeyCacheReport {
        capacity_bytes: s.capacity_bytes,
        used_bytes: s.used_bytes,
        entries: s.entries,
        max_entries: s.max_entries,
        table_bytes: s.table_bytes,
        hit_rate: timed.hit_rate(),
        admissions: timed.admissions,
        evictions: timed.evictions,
        refused: timed.refused,
        warm_up_admissions: warm.admissions,
        process_rss_bytes: rss,
        process_peak_rss_bytes: peak,
        cache_off_throughput_per_s: off,
        speedup: off.map(|off| on / off),
    }
}

/// (VmRSS, VmHWM) of this process in bytes, where /proc says.
fn process_rss() -> (Option<u64>, Option<u64>) {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    let field = |name: &str| {
        status
            .lines()
            .find_map(|l| l.strip_prefix(name))
            .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<u64>().ok())
            .map(|kb| kb * 1024)
    };
    (field("VmRSS:"), field("VmHWM:"))
}

/// 1234567.8 -> "1,234,568"
fn grouped(x: f64) -> String {
    let digits = format!("{:.0}", x.max(0.0));
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i) % 3 == 0 {
            out.push(',');
        }
        out.push(c);
    }
    out
}

pub(crate) fn print_sweep(reports: &[RunReport]) {
    println!(
        "Sweep: workers x batch size (median of {} runs each)",
        reports[0].repeats
    );
    println!(
        "  {:>7} {:>6} {:>12} {:>14} {:>10}",
        "workers", "batch", "sigs/s", "sigs/CPU-s", "us/sig"
    );
    for r in reports {
        println!(
            "{} {:>7} {:>6} {:>12} {:>14} {:>10.2}{}",
            if r.best { "*" } else { " " },
            r.head.workers,
            r.batch,
            grouped(r.head.throughput_per_s),
            r.head.throughput_per_cpu_s.map_or("n/a".into(), grouped),
            r.head.per_signature_us,
            if r.best { "  <- best" } else { "" },
        );
    }
    println!();
}

pub(crate) fn print_report(scheme: Scheme, r: &RunReport, total_seconds: f64) {
    println!(
        "linesig bench: {}, backend {}",
        scheme.label(),
        r.head.backend
    );
    println!("CPU cores:              {}", r.cores);
    println!("Workers:                {}", r.head.workers);
    println!("Batch size:             {}", r.batch);
    if let Some(n) = r.lanes {
        println!("Lanes in use:           at most {n} per vector");
    }
    println!(
        "Messages per key:       {:.2} on average ({}, {} keys)",
        r.head.count as f64 / r.keys.max(1) as f64,
        r.key_distribution,
        r.keys
    );
    println!("Message size:           {} bytes", r.msg_size);
    println!(
        "Invalid signatures:     {} (fraction {})",
        r.invalid_count, r.invalid_fraction
    );
    if let Some(b) = &r.batch_equation {
        if b.on {
            println!(
                "Batch equation:         on (work units: {} held, {} found few invalid, {} \
                 fell back, {} skipped)",
                b.units_held, b.units_found_few, b.units_fell_back, b.units_skipped
            );
        } else {
            println!("Batch equation:         off (each signature alone)");
        }
    }
    println!("Seed:                   {}", r.seed);
    println!("Time to generate keys:  {:.3} s", r.keygen_seconds);
    println!("Time to sign:           {:.3} s", r.sign_seconds);
    println!(
        "Verification time:      {:.3} s (median of {}; min {:.3}, max {:.3})",
        r.head.wall_seconds, r.repeats, r.wall_seconds_min, r.wall_seconds_max
    );
    if r.mismatches == 0 {
        println!("STATUS: SUCCESS");
    } else {
        println!(
            "STATUS: FAILURE ({} verdicts differ from what was signed)",
            r.mismatches
        );
    }
    println!(
        "Processed:              {} signatures ({} expected valid, {} expected invalid)",
        r.head.count,
        r.head.count - r.invalid_count,
        r.invalid_count
    );
    println!(
        "Total time:             {total_seconds:.3} s (generation, signing, every run, yardsticks)"
    );
    println!(
        "Throughput:             {} sigs/s wall; {} sigs/s per CPU-second",
        grouped(r.head.throughput_per_s),
        r.head.throughput_per_cpu_s.map_or("n/a".into(), grouped)
    );
    println!(
        "Per signature:          {:.2} us wall{}",
        r.head.per_signature_us,
        r.head.cpu_seconds.map_or(String::new(), |c| format!(
            "; {:.2} us CPU",
            c * 1e6 / r.head.count as f64
        ))
    );
    print_yardsticks(&r.head.yardsticks);
    if let Some(c) = &r.key_cache {
        print_cache(c);
    }
    print_rows("One thread, call by call:", &r.operations);
}

/// Each yardstick's rate and linesig's ratio to it.
fn print_yardsticks(yardsticks: &[YardstickReport]) {
    for y in yardsticks {
        println!(
            "Yardstick:              {}: {} sigs/s ({:.3} s){}",
            y.name,
            grouped(y.throughput_per_s),
            y.wall_seconds,
            if y.agrees_with_expectation {
                ""
            } else {
                " [its verdicts differ from what was signed]"
            }
        );
        println!(
            "linesig / yardstick:    {:.2}x wall{}",
            y.ratio,
            y.ratio_per_cpu
                .map_or(String::new(), |c| format!("; {c:.2}x per CPU-second"))
        );
    }
}

/// The hot-key cache's counters, the process's memory and the cache-off comparison.
fn print_cache(c: &KeyCacheReport) {
    println!(
        "Key cache:              {:.1}% of signatures hit; {} keys of {} ({} admitted, {} evicted, {} refused in the timed rounds; {} admitted in the untimed warm-up); {:.1} of {:.1} MiB",
        100.0 * c.hit_rate,
        c.entries,
        c.max_entries,
        c.admissions,
        c.evictions,
        c.refused,
        c.warm_up_admissions,
        c.used_bytes as f64 / MIB,
        c.capacity_bytes as f64 / MIB,
    );
    if let (Some(rss), Some(peak)) = (c.process_rss_bytes, c.process_peak_rss_bytes) {
        println!(
            "Process memory:         {:.1} MB resident, {:.1} MB peak (workload and all engines)",
            rss as f64 / 1e6,
            peak as f64 / 1e6
        );
    }
    if let (Some(off), Some(x)) = (c.cache_off_throughput_per_s, c.speedup) {
        println!(
            "Same engine, cache off: {} sigs/s; cache on / off: {x:.2}x wall",
            grouped(off)
        );
    }
}
