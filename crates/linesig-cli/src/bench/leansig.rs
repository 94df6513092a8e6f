//! `linesig bench --scheme leansig-devnet4|leansig-l18|leansig-l32`: the founding
//! document's leanSig table (keygen with the epochs it prepares, sign, verify: mean,
//! min, max, iterations, ops/s, cycles/op) and batch verification on the engine's lanes,
//! on all workers and on one, in the same rounds. Every signature is checked valid.
//!
//! The workload: keys from the seed, each signing consecutive epochs of its prepared
//! interval (1,024 for L18, 131,072 for the lifetime-2^32 instances), as many keys as the
//! count needs; 32-byte random messages.

use super::batch_runs::{batch_run, print_batch_runs, BatchRun};
use super::op_rows::{cycles, print_rows, time_row, OperationRow};
use super::run::{json_line, thread_pool, Bench, BenchReport, Notes};
use super::schema::Headline;
use crate::args::CliError;
use crate::clock::{time, Timing};
use linesig::leansig::{self, epoch_context, keys, Instance};
use linesig::{Backend, Engine, Item, Scheme};
use rand::{RngCore, SeedableRng};
use rand_chacha::ChaCha20Rng;
use serde::Serialize;

/// What the leanSig benchmark needs from `linesig bench`'s arguments.
pub struct LeanSigBenchArgs {
    pub instance: Instance,
    pub count: usize,
    pub workers: usize,
    pub batch: usize,
    pub backend: Option<Backend>,
    pub lanes: Option<usize>,
    pub seed: u64,
    pub repeat: usize,
    pub op_iterations: usize,
    /// Epochs each key is asked to be active for (rounded out to whole bottom trees).
    pub active_epochs: u64,
    pub json: bool,
}

/// The founding document's figures for the Rust reference (through nim-leansig), one
/// core: quoted for the ratios, not measured here.
struct Founding {
    verify_us: f64,
    keygen_ms: Option<f64>,
}

fn founding(instance: Instance) -> Founding {
    match instance {
        Instance::Devnet4 => Founding {
            verify_us: 832.0,
            keygen_ms: None,
        },
        Instance::L18 => Founding {
            verify_us: 203.0,
            keygen_ms: Some(204.0),
        },
        Instance::L32 => Founding {
            verify_us: f64::NAN,
            keygen_ms: None,
        },
    }
}

#[derive(Serialize)]
struct LeanSigReport {
    /// The fields every scheme's report shares (`bench_schema`): the all-workers batch
    /// run, against the scalar verify row of the same run.
    #[serde(flatten)]
    head: Headline,
    reference: &'static str,
    lanes: usize,
    cores: usize,
    /// Items per work unit.
    batch: usize,
    keys: usize,
    epochs_prepared_per_key: u64,
    seed: u64,
    repeats: usize,
    permutations_per_verify: (usize, usize),
    operations: Vec<OperationRow>,
    batch_all_workers: BatchRun,
    batch_one_worker: BatchRun,
    founding_verify_us: Option<f64>,
    founding_keygen_ms: Option<f64>,
    /// Founding verify µs ÷ our one-worker batch µs per signature.
    speedup_vs_founding_verify: Option<f64>,
    /// The `verify` row (one signature per call, portable scalar path: the reference's
    /// algorithm at the reference's speed) ÷ the one-worker batch, in this run.
    speedup_vs_scalar_verify: f64,
    mismatches: usize,
}

pub fn run(args: LeanSigBenchArgs) -> Result<bool, CliError> {
    let json = args.json;
    crate::bench::run::run(
        LeanSigBench {
            args,
            backend: Backend::Portable,
            signed: Signed::default(),
            rows: Vec::new(),
            measured: Measured::default(),
        },
        json,
    )
}

/// The leanSig benchmark's state, step by step: keys, messages and signatures from
/// `setup`, the batch runs from `measure`.
struct LeanSigBench {
    args: LeanSigBenchArgs,
    backend: Backend,
    signed: Signed,
    /// keygen and sign, timed while setting up.
    rows: Vec<OperationRow>,
    measured: Measured,
}

/// The engine's runs over every round: all workers and one.
#[derive(Default)]
struct Measured {
    all: Vec<(Timing, Option<u64>)>,
    one: Vec<(Timing, Option<u64>)>,
    mismatches: usize,
    batch_size: usize,
}

impl LeanSigBench {
    fn per_key(&self) -> usize {
        self.args.instance.prepared_epochs() as usize
    }

    fn engine(&self, workers: usize) -> Result<Engine, CliError> {
        let mut builder = Engine::builder()
            .scheme(Scheme::LeanSig(self.args.instance))
            .backend(self.backend)
            .workers(workers)
            .batch_size(self.args.batch);
        if let Some(l) = self.args.lanes {
            builder = builder.lanes(l);
        }
        builder.build().map_err(|e| CliError::usage(e.to_string()))
    }
}

/// The workload: key k signs epochs 0, 1, 2, … of its prepared interval.
#[derive(Default)]
struct Signed {
    keys: Vec<(Vec<u8>, keys::SecretKey)>,
    messages: Vec<[u8; 32]>,
    signatures: Vec<Vec<u8>>,
    epochs: Vec<[u8; 4]>,
}

impl Signed {
    /// The signatures as items, `per_key` to a key.
    fn items(&self, per_key: usize) -> Vec<Item<'_>> {
        (0..self.signatures.len())
            .map(|i| {
                Item::new(
                    &self.keys[i / per_key].0,
                    &self.messages[i],
                    &self.signatures[i],
                )
                .with_context(&self.epochs[i])
            })
            .collect()
    }
}

impl Bench for LeanSigBench {
    type Report = LeanSigReport;

    fn setup(&mut self, notes: &Notes) -> Result<(), CliError> {
        let (args, instance) = (&self.args, self.args.instance);
        let scheme = Scheme::LeanSig(instance);
        self.backend = match args.backend {
            Some(b) => b,
            None => Backend::from_env()
                .map_err(|e| CliError::usage(e.to_string()))?
                .unwrap_or_else(|| Backend::best_for(scheme)),
        };
        if !self.backend.is_supported_for(scheme) {
            return Err(CliError::usage(format!(
                "backend '{}' is not supported on this CPU",
                self.backend
            )));
        }
        // 32-byte messages and four-byte epochs beside the signatures.
        crate::workload::check_workload_fits(args.count, 36 + instance.signature_len())
            .map_err(CliError::usage)?;
        // Keygen and signing run on `workers` threads too, so `--workers 1` is one core.
        let pool = thread_pool(args.workers)?;
        let mut rng = ChaCha20Rng::seed_from_u64(args.seed);
        // Keys: as many as the count needs, one prepared interval of epochs each.
        let per_key = self.per_key();
        let key_count = args.count.div_ceil(per_key).max(1);
        notes.say(&format!(
            "{instance}: {key_count} key(s), {per_key} epochs prepared each"
        ));
        let (backend, active) = (self.backend, args.active_epochs);
        let keys = &mut self.signed.keys;
        self.rows.push(time_row("keygen", key_count, |_| {
            keys.push(pool.install(|| {
                keys::key_gen(instance, backend, &mut rng, 0, active)
                    .expect("the interval fits the lifetime (checked)")
            }))
        }));
        let signed = &mut self.signed;
        let start = signed.keys[0].1.prepared_interval().start as u32;
        signed.messages = vec![[0u8; 32]; args.count];
        for m in &mut signed.messages {
            rng.fill_bytes(m);
        }
        let (keys, messages, signatures) =
            (&mut signed.keys, &signed.messages, &mut signed.signatures);
        self.rows.push(time_row("sign", args.count, |i| {
            let epoch = start + (i % per_key) as u32;
            let signature = keys[i / per_key]
                .1
                .sign(epoch, &messages[i])
                .expect("prepared, unused epoch");
            signatures.push(signature);
        }));
        signed.epochs = (0..args.count)
            .map(|i| epoch_context(start + (i % per_key) as u32))
            .collect();
        Ok(())
    }

    fn measure(&mut self, _: &Notes) -> Result<(), CliError> {
        let engine = self.engine(self.args.workers)?;
        let engine_one = self.engine(1)?;
        let items = self.signed.items(self.per_key());
        let measured = &mut self.measured;
        measured.batch_size = engine.batch_size();
        for _ in 0..self.args.repeat {
            for (engine, runs) in [
                (&engine, &mut measured.all),
                (&engine_one, &mut measured.one),
            ] {
                let c0 = cycles();
                let (verdicts, timing) = time(|| engine.verify(&items));
                let ticks = c0.zip(cycles()).map(|(a, b)| b.wrapping_sub(a));
                measured.mismatches += verdicts.iter().filter(|v| !v.is_valid()).count();
                runs.push((timing, ticks));
            }
        }
        Ok(())
    }

    fn operations(&mut self, _: &Notes) -> Vec<OperationRow> {
        let instance = self.args.instance;
        let items = self.signed.items(self.per_key());
        // One signature per call on the portable path, as a library call would.
        let verify_row = time_row("verify", self.args.op_iterations.min(items.len()), |i| {
            assert!(leansig::verify(instance, &items[i]).is_valid());
        });
        let mut rows = std::mem::take(&mut self.rows);
        rows.push(verify_row);
        rows
    }

    fn report(self, operations: Vec<OperationRow>) -> Result<LeanSigReport, CliError> {
        let per_key = self.per_key();
        let (args, instance, measured) = (&self.args, self.args.instance, self.measured);
        let scheme = Scheme::LeanSig(instance);
        let (batch_timing, batch) = batch_run(&measured.all, args.count, args.workers);
        let (_, batch_one) = batch_run(&measured.one, args.count, 1);
        let verify_row = operations.last().expect("the verify row");
        let scalar_ratio = verify_row.mean_us / batch_one.per_signature_us;
        let reference = founding(instance);
        let founding_verify = Some(reference.verify_us).filter(|v| v.is_finite());
        let mut head = Headline::new(
            instance.name().to_string(),
            None,
            self.backend.name(),
            args.workers,
            args.count,
            "signature",
            batch_timing,
            measured.mismatches == 0,
        );
        // The scalar path one call at a time, as the reference verifies (every call
        // valid, or `time_row` would have stopped).
        if verify_row.iterations > 0 && verify_row.mean_us > 0.0 {
            let scalar_per_s = 1e6 / verify_row.mean_us;
            head.add_yardstick(
                "linesig scalar verify (portable path, one call at a time, 1 thread)".to_string(),
                args.count as f64 / scalar_per_s,
                scalar_per_s,
                None,
                true,
            );
        }
        Ok(LeanSigReport {
            head,
            reference: instance.reference(),
            lanes: self
                .backend
                .lanes(scheme)
                .min(args.lanes.unwrap_or(usize::MAX)),
            cores: linesig::available_cores(),
            batch: measured.batch_size,
            keys: self.signed.keys.len(),
            epochs_prepared_per_key: per_key as u64,
            seed: args.seed,
            repeats: args.repeat,
            permutations_per_verify: instance.verify_permutations(),
            operations,
            founding_verify_us: founding_verify,
            founding_keygen_ms: reference.keygen_ms,
            speedup_vs_founding_verify: founding_verify.map(|f| f / batch_one.per_signature_us),
            speedup_vs_scalar_verify: scalar_ratio,
            batch_all_workers: batch,
            batch_one_worker: batch_one,
            mismatches: measured.mismatches,
        })
    }
}

impl BenchReport for LeanSigReport {
    fn succeeded(&self) -> bool {
        self.mismatches == 0
    }

    fn json_lines(&self) -> Vec<String> {
        vec![json_line(self)]
    }

    fn print(&self, seconds: f64) {
        print_report(self, seconds)
    }
}

fn print_report(r: &LeanSigReport, seconds: f64) {
    println!("{} ({})", r.head.scheme, r.reference);
    println!(
        "  backend {} ({} lanes), {} cores, {} signatures from {} keys ({} epochs prepared each), seed {}, median of {}",
        r.head.backend, r.lanes, r.cores, r.head.count, r.keys, r.epochs_prepared_per_key, r.seed, r.repeats
    );
    println!(
        "  each verification: {} width-16 and {} width-24 permutations",
        r.permutations_per_verify.0, r.permutations_per_verify.1
    );
    print_rows(
        "one thread, one call at a time (keygen and sign on the workers):",
        &r.operations,
    );
    print_batch_runs(&[&r.batch_all_workers, &r.batch_one_worker]);
    println!(
        "  one-worker batch vs the scalar verify row of this run: {:.1}x",
        r.speedup_vs_scalar_verify
    );
    if let Some(f) = r.founding_verify_us {
        println!(
            "  vs the founding document's reference verify ({f:.0} us/signature, one core; quoted, not measured): {:.1}x on one worker",
            f / r.batch_one_worker.per_signature_us
        );
    }
    if let Some(k) = r.founding_keygen_ms {
        println!(
            "  keygen: {:.1} ms for {} epochs; the founding document's reference: {k:.0} ms (quoted)",
            r.operations[0].mean_us / 1e3,
            r.epochs_prepared_per_key
        );
    }
    println!(
        "status {} ({} mismatches), {:.1} s",
        r.head.status, r.mismatches, seconds
    );
}
