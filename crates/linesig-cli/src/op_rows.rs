//! One-thread operation rows (keygen, sign, verify, encrypt, …): each call timed on its
//! own, reported as mean, min, max, iterations and ops/s, the founding documents'
//! columns. Shared by every scheme's benchmark.

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
}

/// Time `one(i)` for i in 0..iterations (at least 1), each call on its own.
pub fn time_row(
    operation: &'static str,
    iterations: usize,
    mut one: impl FnMut(usize),
) -> OperationRow {
    let iterations = iterations.max(1);
    let each: Vec<f64> = (0..iterations)
        .map(|i| {
            let t = Instant::now();
            one(i);
            t.elapsed().as_secs_f64() * 1e6
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
    }
}

/// The rows as a table under `title` (nothing for no rows).
pub fn print_rows(title: &str, rows: &[OperationRow]) {
    if rows.is_empty() {
        return;
    }
    println!("{title}");
    println!(
        "  {:<12} {:>10} {:>12} {:>12} {:>12} {:>12}",
        "op", "iterations", "mean us", "min us", "max us", "ops/s"
    );
    for o in rows {
        println!(
            "  {:<12} {:>10} {:>12.2} {:>12.2} {:>12.2} {:>12.1}",
            o.operation, o.iterations, o.mean_us, o.min_us, o.max_us, o.ops_per_s
        );
    }
}
