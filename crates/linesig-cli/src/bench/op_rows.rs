//! One-thread operation rows (keygen, sign, verify, encrypt, …): each call timed on its
//! own, reported as mean, min, max, iterations, ops/s and cycles/op, the founding
//! documents' columns. Shared by every scheme's benchmark.
//!
//! Cycles are time-stamp-counter ticks (`rdtsc`, x86-64 only): the CPU's nominal clock,
//! not its boosted one, as the founding tables count them.

use serde::Serialize;
use std::time::Instant;

/// One operation timed call by call on one thread.
#[derive(Serialize)]
pub struct OperationRow {
    pub operation: &'static str,
    pub iterations: usize,
    pub mean_us: f64,
    pub min_us: f64,
    pub max_us: f64,
    pub ops_per_s: f64,
    /// Mean time-stamp-counter cycles per call (x86-64; null elsewhere).
    pub cycles_per_op: Option<f64>,
}

/// The time-stamp counter, where there is one.
pub fn cycles() -> Option<u64> {
    #[cfg(target_arch = "x86_64")]
    {
        // SAFETY: `rdtsc` exists on every x86-64 CPU.
        Some(unsafe { core::arch::x86_64::_rdtsc() })
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        None
    }
}

/// Time `one(i)` for i in 0..iterations (at least 1), each call on its own.
pub fn time_row(
    operation: &'static str,
    iterations: usize,
    mut one: impl FnMut(usize),
) -> OperationRow {
    let iterations = iterations.max(1);
    let mut ticks = Some(0u64);
    let each: Vec<f64> = (0..iterations)
        .map(|i| {
            let c = cycles();
            let t = Instant::now();
            one(i);
            let us = t.elapsed().as_secs_f64() * 1e6;
            ticks = match (ticks, c, cycles()) {
                (Some(sum), Some(a), Some(b)) => Some(sum + b.wrapping_sub(a)),
                _ => None,
            };
            us
        })
        .collect();
    let mean = each.iter().sum::<f64>() / iterations as f64;
    OperationRow {
        operation,
        iterations,
        mean_us: mean,
        min_us: each.iter().copied().fold(f64::INFINITY, f64::min),
        max_us: each.iter().copied().fold(0.0, f64::max),
        ops_per_s: 1e6 / mean,
        cycles_per_op: ticks.map(|t| t as f64 / iterations as f64),
    }
}

/// The rows as a table under `title` (nothing for no rows).
pub fn print_rows(title: &str, rows: &[OperationRow]) {
    if rows.is_empty() {
        return;
    }
    println!("{title}");
    println!(
        "  {:<12} {:>10} {:>12} {:>12} {:>12} {:>12} {:>14}",
        "op", "iterations", "mean us", "min us", "max us", "ops/s", "cycles/op"
    );
    for o in rows {
        let cycles = o
            .cycles_per_op
            .map_or_else(|| "-".to_string(), |c| format!("{c:.0}"));
        println!(
            "  {:<12} {:>10} {:>12.2} {:>12.2} {:>12.2} {:>12.1} {:>14}",
            o.operation, o.iterations, o.mean_us, o.min_us, o.max_us, o.ops_per_s, cycles
        );
    }
}
