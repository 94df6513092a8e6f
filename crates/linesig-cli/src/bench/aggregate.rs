//! `linesig bench --scheme leansig-devnet4 --aggregate [N,…]`: the founding document's
//! aggregation rows ("aggregate N signatures", "verify aggregated proof": mean, min,
//! max, iterations, ops/s) with each proof's size and the peak memory of its proving,
//! for N = 2, 8, 64 and 1,024 unless told otherwise.
//!
//! The workload: one key from the seed, signing epochs 0, 1, 2, … of its prepared
//! interval, 32-byte random messages; the signatures are generated once (not timed)
//! and every proof is checked to verify.

use super::op_rows::{time_row, OperationRow};
use super::run::{json_line, thread_pool, Bench, BenchReport, Notes};
use super::schema::Headline;
use crate::args::CliError;
use crate::clock::{time, Timing};
use linesig::leansig::{epoch_context, keys, Instance};
use linesig::{Backend, Item, Scheme};
use linesig_aggregate as aggregate;
use rand::{RngCore, SeedableRng};
use rand_chacha::ChaCha20Rng;
use serde::Serialize;

/// The founding document's leanMultisig figures (an i7-1255U laptop, quoted).
const FOUNDING_AGGREGATE_2_MS: f64 = 401.0;
const FOUNDING_VERIFY_MS: f64 = 34.5;

pub struct AggregateBenchArgs {
    pub instance: Instance,
    pub sizes: Vec<usize>,
    pub workers: usize,
    pub seed: u64,
    pub repeat: usize,
    pub json: bool,
}

#[derive(Serialize)]
struct SizeReport {
    signatures: usize,
    aggregate: OperationRow,
    verify: OperationRow,
    proof_bytes: usize,
    /// Peak resident memory while proving (Linux; null elsewhere).
    peak_memory_bytes: Option<u64>,
    signatures_per_s: f64,
}

#[derive(Serialize)]
struct AggregateReport {
    /// The largest size's proving run, in the shared schema.
    #[serde(flatten)]
    head: Headline,
    reference: &'static str,
    proof_system: String,
    seed: u64,
    sizes: Vec<SizeReport>,
    founding_aggregate_2_ms: f64,
    founding_verify_ms: f64,
    /// Proofs `verify_aggregate` refused (in `status`).
    #[serde(skip)]
    failures: usize,
}

/// Reset the peak-RSS counter of this process (Linux: `clear_refs` 5).
fn reset_peak_memory() {
    let _ = std::fs::write("/proc/self/clear_refs", "5");
}

/// Peak resident memory since the last reset (Linux `VmHWM`).
fn peak_memory() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib * 1024)
}

pub fn run(args: AggregateBenchArgs) -> Result<bool, CliError> {
    let instance = args.instance;
    if instance != Instance::Devnet4 {
        return Err(CliError::usage(format!(
            "--aggregate: {instance} has no aggregation statement; use leansig-devnet4"
        )));
    }
    if let Some(&n) = args
        .sizes
        .iter()
        .find(|&&n| n == 0 || n > aggregate::MAX_SIGNATURES)
    {
        return Err(CliError::usage(format!(
            "--aggregate sizes must be in 1..={}, not {n}",
            aggregate::MAX_SIGNATURES
        )));
    }
    let json = args.json;
    let pool = thread_pool(args.workers)?;
    crate::bench::run::run(
        AggregateBench {
            args,
            pool,
            public_key: Vec::new(),
            messages: Vec::new(),
            signatures: Vec::new(),
            epochs: Vec::new(),
            sizes: Vec::new(),
            failures: 0,
            headline: None,
        },
        json,
    )
}

/// The aggregation benchmark's state: one key's signatures from `setup`, a report per
/// size from `measure`.
struct AggregateBench {
    args: AggregateBenchArgs,
    pool: rayon::ThreadPool,
    public_key: Vec<u8>,
    messages: Vec<[u8; 32]>,
    signatures: Vec<Vec<u8>>,
    epochs: Vec<[u8; 4]>,
    sizes: Vec<SizeReport>,
    /// Proofs `verify_aggregate` refused.
    failures: usize,
    /// The largest size's last proving run.
    headline: Option<Timing>,
}

impl AggregateBench {
    fn most(&self) -> usize {
        self.args.sizes.iter().copied().max().unwrap_or(0)
    }
}

impl Bench for AggregateBench {
    type Report = AggregateReport;

    fn setup(&mut self, notes: &Notes) -> Result<(), CliError> {
        let (instance, most) = (self.args.instance, self.most());
        let mut rng = ChaCha20Rng::seed_from_u64(self.args.seed);
        let backend = Backend::best_for(Scheme::LeanSig(instance));
        notes.say(&format!(
            "{instance}: one key, {most} signatures (keygen and signing not timed)"
        ));
        let (public_key, mut secret) = self
            .pool
            .install(|| keys::key_gen(instance, backend, &mut rng, 0, most as u64))
            .map_err(|e| CliError::usage(e.to_string()))?;
        let first = secret.prepared_interval().start as u32;
        self.messages = vec![[0u8; 32]; most];
        for m in &mut self.messages {
            rng.fill_bytes(m);
        }
        self.signatures = self
            .messages
            .iter()
            .enumerate()
            .map(|(i, m)| secret.sign(first + i as u32, m))
            .collect::<Result<_, _>>()
            .map_err(|e| CliError::usage(e.to_string()))?;
        self.epochs = (0..most).map(|i| epoch_context(first + i as u32)).collect();
        self.public_key = public_key;
        Ok(())
    }

    fn measure(&mut self, notes: &Notes) -> Result<(), CliError> {
        let (instance, most, pool) = (self.args.instance, self.most(), &self.pool);
        let items: Vec<Item<'_>> = (0..most)
            .map(|i| {
                Item::new(&self.public_key, &self.messages[i], &self.signatures[i])
                    .with_context(&self.epochs[i])
            })
            .collect();
        for &n in &self.args.sizes {
            notes.say(&format!("aggregate {n} signatures"));
            let list = &items[..n];
            let mut proof = Vec::new();
            reset_peak_memory();
            let mut last_timing = None;
            let aggregate_row = time_row("aggregate", self.args.repeat, |_| {
                let (made, timing) = time(|| pool.install(|| aggregate::prove(instance, list)));
                proof = made.expect("valid signatures aggregate").bytes;
                last_timing = Some(timing);
            });
            let peak = peak_memory();
            let failures = &mut self.failures;
            let verify_row = time_row("verify", self.args.repeat.max(5), |_| {
                if aggregate::verify_aggregate(instance, list, &proof).is_err() {
                    *failures += 1;
                }
            });
            if n == most {
                self.headline = last_timing;
            }
            self.sizes.push(SizeReport {
                signatures: n,
                signatures_per_s: n as f64 * aggregate_row.ops_per_s,
                aggregate: aggregate_row,
                verify: verify_row,
                proof_bytes: proof.len(),
                peak_memory_bytes: peak,
            });
        }
        Ok(())
    }

    fn operations(&mut self, _: &Notes) -> Vec<OperationRow> {
        // The rows are per size (`sizes`): proving and verifying are the operations.
        Vec::new()
    }

    fn report(self, _: Vec<OperationRow>) -> Result<AggregateReport, CliError> {
        let (args, instance) = (&self.args, self.args.instance);
        let head = Headline::new(
            instance.name().to_string(),
            None,
            "stark",
            args.workers,
            self.most(),
            "signature",
            self.headline.expect("the largest size ran"),
            self.failures == 0,
        );
        Ok(AggregateReport {
            head,
            reference: instance.reference(),
            proof_system: format!(
                "Plonky3 uni-stark over KoalaBear, BLAKE3 commitments: FRI blowup 2^{}, {} queries, {} PoW bits ({} conjectured bits); field arithmetic {}",
                aggregate::stark::LOG_BLOWUP,
                aggregate::stark::NUM_QUERIES,
                aggregate::stark::QUERY_POW_BITS,
                aggregate::stark::CONJECTURED_SECURITY_BITS,
                aggregate::stark::field_arithmetic()
            ),
            seed: args.seed,
            sizes: self.sizes,
            founding_aggregate_2_ms: FOUNDING_AGGREGATE_2_MS,
            founding_verify_ms: FOUNDING_VERIFY_MS,
            failures: self.failures,
        })
    }
}

impl BenchReport for AggregateReport {
    fn succeeded(&self) -> bool {
        self.failures == 0
    }

    fn json_lines(&self) -> Vec<String> {
        vec![json_line(self)]
    }

    fn print(&self, _: f64) {
        for size in &self.sizes {
            print_size(size);
        }
        println!("{}", self.proof_system);
        println!(
            "founding document (leanMultisig, i7-1255U, quoted): aggregate 2 signatures {FOUNDING_AGGREGATE_2_MS} ms, verify {FOUNDING_VERIFY_MS} ms"
        );
        println!(
            "status {} ({} proofs refused)",
            self.head.status, self.failures
        );
    }
}

fn print_size(r: &SizeReport) {
    let title = format!(
        "aggregate {} signatures: proof {} bytes, peak memory {}, {:.1} signatures/s proved",
        r.signatures,
        r.proof_bytes,
        r.peak_memory_bytes.map_or_else(
            || "-".to_string(),
            |b| format!("{:.0} MiB", b as f64 / (1 << 20) as f64)
        ),
        r.signatures_per_s
    );
    println!("{title}");
    println!(
        "  {:<12} {:>10} {:>12} {:>12} {:>12} {:>12}",
        "op", "iterations", "mean ms", "min ms", "max ms", "ops/s"
    );
    for o in [&r.aggregate, &r.verify] {
        println!(
            "  {:<12} {:>10} {:>12.2} {:>12.2} {:>12.2} {:>12.2}",
            o.operation,
            o.iterations,
            o.mean_us / 1e3,
            o.min_us / 1e3,
            o.max_us / 1e3,
            o.ops_per_s
        );
    }
}
