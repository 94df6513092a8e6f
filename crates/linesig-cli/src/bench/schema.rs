//! The top-level fields every `linesig bench --json` line carries, whatever the scheme
//! (docs/bench-json.md): each scheme's report embeds one [`Headline`] flattened, so a
//! script that reads `throughput_per_s` or `status` reads it the same way for Ed25519,
//! ML-DSA, leanSig and Paillier. Scheme-specific detail sits beside it.

use crate::clock::Timing;
use serde::Serialize;

/// The run in one line of numbers: the headline measurement of linesig and what it was
/// measured against.
#[derive(Serialize)]
pub struct Headline {
    /// `ed25519`, `mldsa44`, …, `leansig-devnet4`, …, `paillier2048`.
    pub scheme: String,
    /// The Ed25519 policy; null for other schemes.
    pub policy: Option<&'static str>,
    /// The backend (Paillier: the array calls' kernel).
    pub backend: &'static str,
    pub workers: usize,
    /// Items per run.
    pub count: usize,
    /// What one item is: `signature` (a verification) or, for Paillier, `decryption`.
    pub item: &'static str,
    /// Median wall time of one run over `count` items, and its process CPU time.
    pub wall_seconds: f64,
    pub cpu_seconds: Option<f64>,
    pub throughput_per_s: f64,
    pub throughput_per_cpu_s: Option<f64>,
    /// Wall microseconds per item (named for signatures; per decryption for Paillier).
    pub per_signature_us: f64,
    /// `SUCCESS` when every verdict (or round trip) was the expected one.
    pub status: &'static str,
    /// Other implementations measured in the same run on the same items.
    pub yardsticks: Vec<YardstickReport>,
}

/// One implementation measured beside linesig in the same run.
#[derive(Clone, Serialize)]
pub struct YardstickReport {
    pub name: String,
    pub wall_seconds: f64,
    pub throughput_per_s: f64,
    pub throughput_per_cpu_s: Option<f64>,
    /// linesig throughput / yardstick throughput, wall clock.
    pub ratio: f64,
    /// The same, per CPU-second of each.
    pub ratio_per_cpu: Option<f64>,
    /// Whether its verdicts (or results) were the expected ones.
    pub agrees_with_expectation: bool,
}

/// Throughput over `count` items in `timing`: per wall second and per CPU-second.
pub fn rates(count: usize, timing: Timing) -> (f64, Option<f64>) {
    let n = count as f64;
    (
        n / timing.wall.as_secs_f64(),
        timing
            .cpu
            .map(|c| c.as_secs_f64())
            .filter(|&c| c > 0.0)
            .map(|c| n / c),
    )
}

impl Headline {
    /// The headline of linesig running `count` items in the median `timing`.
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        scheme: String,
        policy: Option<&'static str>,
        backend: &'static str,
        workers: usize,
        count: usize,
        item: &'static str,
        timing: Timing,
        success: bool,
    ) -> Headline {
        let (throughput, throughput_cpu) = rates(count, timing);
        let wall = timing.wall.as_secs_f64();
        Headline {
            scheme,
            policy,
            backend,
            workers,
            count,
            item,
            wall_seconds: wall,
            cpu_seconds: timing.cpu.map(|c| c.as_secs_f64()),
            throughput_per_s: throughput,
            throughput_per_cpu_s: throughput_cpu,
            per_signature_us: wall * 1e6 / count.max(1) as f64,
            status: if success { "SUCCESS" } else { "FAILURE" },
            yardsticks: Vec::new(),
        }
    }

    /// Add a yardstick that ran at `throughput_per_s` (and per CPU-second) in this run.
    pub fn add_yardstick(
        &mut self,
        name: String,
        wall_seconds: f64,
        throughput_per_s: f64,
        throughput_per_cpu_s: Option<f64>,
        agrees_with_expectation: bool,
    ) {
        self.yardsticks.push(YardstickReport {
            name,
            wall_seconds,
            throughput_per_s,
            throughput_per_cpu_s,
            ratio: self.throughput_per_s / throughput_per_s,
            ratio_per_cpu: self
                .throughput_per_cpu_s
                .zip(throughput_per_cpu_s)
                .map(|(a, b)| a / b),
            agrees_with_expectation,
        });
    }
}
