//! The skeleton every `linesig bench` subcommand runs, in one place: set up a seeded
//! workload, measure linesig and its yardsticks in the same run, time the one-call
//! operation rows, then emit one report (JSON lines, or text on stdout with progress on
//! stderr). Signatures (Ed25519, ML-DSA), leanSig, Paillier and aggregation each fill in
//! the steps ([`Bench`]); the order, the notes and the output are here.

use super::op_rows::OperationRow;
use crate::args::CliError;
use std::time::Instant;

/// One benchmark's steps, in the order [`run`] takes them.
pub trait Bench {
    type Report: BenchReport;

    /// The seeded workload (keys, messages, signatures or plaintexts) and what runs it
    /// (engines, pools). Refuses what this machine cannot run before any timed work.
    fn setup(&mut self, notes: &Notes) -> Result<(), CliError>;

    /// linesig's timed runs, with the yardsticks measured in the same run (interleaved
    /// round by round where a yardstick runs in this process).
    fn measure(&mut self, notes: &Notes) -> Result<(), CliError>;

    /// One-thread rows, call by call (keygen, sign, verify; encrypt, decrypt): the
    /// founding documents' columns. Rows timed while setting up are returned here too.
    fn operations(&mut self, notes: &Notes) -> Vec<OperationRow>;

    /// The report: the shared headline, the yardsticks and the bench's own fields.
    fn report(self, operations: Vec<OperationRow>) -> Result<Self::Report, CliError>;
}

/// What a finished benchmark says.
pub trait BenchReport {
    /// Whether every verdict, value or proof was the expected one (`STATUS: SUCCESS`).
    fn succeeded(&self) -> bool;

    /// One JSON object per line (docs/bench-json.md).
    fn json_lines(&self) -> Vec<String>;

    /// The text report; `seconds` is the whole run's wall time.
    fn print(&self, seconds: f64);
}

/// Progress notes on stderr, silent under `--json`.
pub struct Notes {
    show: bool,
}

impl Notes {
    /// Whether notes (and progress bars) are shown.
    pub fn show(&self) -> bool {
        self.show
    }

    pub fn say(&self, note: &str) {
        if self.show {
            eprintln!("{note}");
        }
    }
}

/// Run `bench` through its steps and emit its report; `Ok(false)` when it ran but some
/// result was wrong.
pub fn run<B: Bench>(mut bench: B, json: bool) -> Result<bool, CliError> {
    let started = Instant::now();
    let notes = Notes { show: !json };
    bench.setup(&notes)?;
    bench.measure(&notes)?;
    let operations = bench.operations(&notes);
    let report = bench.report(operations)?;
    if json {
        for line in report.json_lines() {
            println!("{line}");
        }
    } else {
        report.print(started.elapsed().as_secs_f64());
    }
    Ok(report.succeeded())
}

/// One report as one JSON line.
pub fn json_line(report: &impl serde::Serialize) -> String {
    serde_json::to_string(report).expect("reports serialise")
}

/// A pool of `workers` threads for the work around the engine (keygen, signing, proving),
/// so that `--workers 1` measures one core throughout.
pub fn thread_pool(workers: usize) -> Result<rayon::ThreadPool, CliError> {
    rayon::ThreadPoolBuilder::new()
        .num_threads(workers)
        .build()
        .map_err(|e| CliError::io(format!("thread pool: {e}")))
}
