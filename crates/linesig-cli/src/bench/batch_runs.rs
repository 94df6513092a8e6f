//! The engine's batch runs as the hash-based schemes' benchmarks (leanSig, leanXMSS)
//! report them: every round's timing and cycle count, summarised as the median round,
//! and printed one line per worker count.

use crate::clock::{median, Timing};
use serde::Serialize;

/// The median of one engine's rounds.
#[derive(Serialize)]
pub struct BatchRun {
    pub workers: usize,
    pub wall_seconds: f64,
    pub cpu_seconds: Option<f64>,
    pub throughput_per_s: f64,
    pub per_signature_us: f64,
    /// Time-stamp-counter cycles per signature per worker (x86-64).
    pub cycles_per_signature: Option<f64>,
}

/// The median run of `runs` (timing, time-stamp-counter ticks) over `count`
/// signatures on `workers`, and its summary.
pub fn batch_run(
    runs: &[(Timing, Option<u64>)],
    count: usize,
    workers: usize,
) -> (Timing, BatchRun) {
    let timing = median(runs.iter().map(|r| r.0).collect());
    let ticks = runs
        .iter()
        .find(|r| r.0.wall == timing.wall)
        .and_then(|r| r.1);
    let wall = timing.wall.as_secs_f64();
    let run = BatchRun {
        workers,
        wall_seconds: wall,
        cpu_seconds: timing.cpu.map(|c| c.as_secs_f64()),
        throughput_per_s: count as f64 / wall,
        per_signature_us: wall * 1e6 / count as f64,
        cycles_per_signature: ticks.map(|t| t as f64 * workers as f64 / count as f64),
    };
    (timing, run)
}

/// One line per run: signatures per second, microseconds each, cycles.
pub fn print_batch_runs(runs: &[&BatchRun]) {
    for b in runs {
        let cycles = b
            .cycles_per_signature
            .map_or_else(String::new, |c| format!(", {c:.0} cycles/signature/worker"));
        println!(
            "batch verify, {} worker(s): {:.0} signatures/s, {:.2} us each{}",
            b.workers, b.throughput_per_s, b.per_signature_us, cycles
        );
    }
}
