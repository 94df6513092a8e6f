//! `linesig bench --scheme leanxmss`: keygen, sign and verify on linesig's BLAKE2s lanes
//! against the scalar yardstick ([`super::leanxmss_scalar`]: the spec's algorithms on
//! RustCrypto's `blake2`, one at a time) in the same run, and batch verification on all
//! workers and on one. Every signature is checked valid by both, and the yardstick's
//! public keys must equal linesig's.
//!
//! The workload: keys from the seed, each over `--active-epochs` consecutive epochs from
//! 0 (default: the count, one key), signing each of its epochs once; 32-byte messages.

use super::batch_runs::{batch_run, print_batch_runs, BatchRun};
use super::leanxmss_scalar as scalar;
use super::op_rows::{cycles, print_rows, time_row, OperationRow};
use super::run::{json_line, Bench, BenchReport, Notes};
use super::schema::Headline;
use crate::args::CliError;
use crate::clock::{time, Timing};
use linesig::leanxmss::{self, Instance, SecretKey, VERIFY_COMPRESSIONS};
use linesig::{Backend, Engine, Item, Scheme};
use rand::{RngCore, SeedableRng};
use rand_chacha::ChaCha20Rng;
use serde::Serialize;

/// What the leanXMSS benchmark needs from `linesig bench`'s arguments.
pub struct LeanXmssBenchArgs {
    pub instance: Instance,
    pub count: usize,
    pub workers: usize,
    pub batch: usize,
    pub backend: Option<Backend>,
    pub lanes: Option<usize>,
    pub seed: u64,
    pub repeat: usize,
    pub op_iterations: usize,
    /// Epochs per key; `None`: the count (one key).
    pub epochs_per_key: Option<u64>,
    pub json: bool,
}

#[derive(Serialize)]
struct LeanXmssReport {
    #[serde(flatten)]
    head: Headline,
    reference: &'static str,
    lanes: usize,
    cores: usize,
    batch: usize,
    keys: usize,
    epochs_per_key: u64,
    seed: u64,
    repeats: usize,
    compressions_per_verify: usize,
    /// linesig's rows, then the yardstick's (`scalar …`), one thread each.
    operations: Vec<OperationRow>,
    batch_all_workers: BatchRun,
    batch_one_worker: BatchRun,
    /// Yardstick verify µs ÷ the one-worker batch µs per signature.
    verify_vs_scalar: f64,
    /// Yardstick randomizer search ÷ linesig's whole signature, per signature.
    sign_vs_scalar_search: f64,
    /// Yardstick keygen ÷ linesig keygen, same range.
    keygen_vs_scalar: f64,
    mismatches: usize,
}

pub fn run(args: LeanXmssBenchArgs) -> Result<bool, CliError> {
    let json = args.json;
    crate::bench::run::run(
        LeanXmssBench {
            args,
            backend: Backend::Portable,
            keys: Vec::new(),
            items: Owned::default(),
            rows: Vec::new(),
            all: Vec::new(),
            one: Vec::new(),
            mismatches: 0,
            batch_size: 0,
        },
        json,
    )
}

#[derive(Default)]
struct Owned {
    public_keys: Vec<[u8; 32]>,
    messages: Vec<[u8; 32]>,
    signatures: Vec<Vec<u8>>,
    epochs: Vec<[u8; 4]>,
    key_of: Vec<usize>,
}

impl Owned {
    fn items(&self) -> Vec<Item<'_>> {
        (0..self.signatures.len())
            .map(|i| {
                Item::new(
                    &self.public_keys[self.key_of[i]],
                    &self.messages[i],
                    &self.signatures[i],
                )
                .with_context(&self.epochs[i])
            })
            .collect()
    }
}

struct LeanXmssBench {
    args: LeanXmssBenchArgs,
    backend: Backend,
    keys: Vec<([u8; 32], SecretKey)>,
    items: Owned,
    rows: Vec<OperationRow>,
    all: Vec<(Timing, Option<u64>)>,
    one: Vec<(Timing, Option<u64>)>,
    mismatches: usize,
    batch_size: usize,
}

impl LeanXmssBench {
    fn per_key(&self) -> u64 {
        self.args.epochs_per_key.unwrap_or(self.args.count as u64)
    }

    fn engine(&self, workers: usize) -> Result<Engine, CliError> {
        let mut builder = Engine::builder()
            .scheme(Scheme::LeanXmss(self.args.instance))
            .backend(self.backend)
            .workers(workers)
            .batch_size(self.args.batch);
        if let Some(l) = self.args.lanes {
            builder = builder.lanes(l);
        }
        builder.build().map_err(|e| CliError::usage(e.to_string()))
    }

    fn seed_of(&self, key: usize) -> [u8; 32] {
        let mut rng = ChaCha20Rng::seed_from_u64(self.args.seed ^ (key as u64).rotate_left(32));
        let mut seed = [0u8; 32];
        rng.fill_bytes(&mut seed);
        seed
    }
}

impl Bench for LeanXmssBench {
    type Report = LeanXmssReport;

    fn setup(&mut self, notes: &Notes) -> Result<(), CliError> {
        let scheme = Scheme::LeanXmss(self.args.instance);
        self.backend = match self.args.backend {
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
        crate::workload::check_workload_fits(self.args.count, 36 + leanxmss::SIGNATURE_BYTES)
            .map_err(CliError::usage)?;
        let per_key = self.per_key();
        let key_count = (self.args.count as u64).div_ceil(per_key) as usize;
        notes.say(&format!(
            "{}: {key_count} key(s) over {per_key} epochs each ({} BLAKE2s compressions per epoch to make)",
            self.args.instance,
            42 * 8 + 11
        ));
        let (instance, backend) = (self.args.instance, self.backend);
        let seeds: Vec<[u8; 32]> = (0..key_count).map(|k| self.seed_of(k)).collect();
        let last = (per_key - 1) as u32;
        let keys = &mut self.keys;
        self.rows.push(time_row("keygen", key_count, |k| {
            let key = leanxmss::key_gen(instance, &seeds[k], 0, last, backend)
                .expect("a non-empty range");
            keys.push((key.public_key(), key));
        }));
        let mut rng = ChaCha20Rng::seed_from_u64(self.args.seed);
        let owned = &mut self.items;
        owned.public_keys = self.keys.iter().map(|k| k.0).collect();
        owned.messages = vec![[0u8; 32]; self.args.count];
        for m in &mut owned.messages {
            rng.fill_bytes(m);
        }
        owned.key_of = (0..self.args.count).map(|i| i / per_key as usize).collect();
        owned.epochs = (0..self.args.count)
            .map(|i| ((i as u64 % per_key) as u32).to_le_bytes())
            .collect();
        let (keys, messages, signatures) = (&mut self.keys, &owned.messages, &mut owned.signatures);
        let (key_of, epochs) = (&owned.key_of, &owned.epochs);
        self.rows.push(time_row("sign", self.args.count, |i| {
            let epoch = u32::from_le_bytes(epochs[i]);
            let signature = keys[key_of[i]]
                .1
                .sign(epoch, &messages[i])
                .expect("an unused epoch of the range");
            signatures.push(signature.to_vec());
        }));
        // The yardstick's rows; its first key must be linesig's.
        let scalar_keygen = time_row("scalar keygen", 1, |_| {
            let public = scalar::key_gen(instance, &seeds[0], 0, last);
            if public != self.keys[0].0 {
                self.mismatches += 1;
            }
        });
        let iterations = self.args.op_iterations.min(self.args.count);
        let items = &self.items;
        let scalar_search = time_row("scalar search", iterations, |i| {
            scalar::randomizer_search(
                instance,
                &seeds[items.key_of[i]],
                &items.public_keys[items.key_of[i]][16..],
                &items.messages[i],
                u32::from_le_bytes(items.epochs[i]),
            );
        });
        let mut scalar_rejects = 0;
        let scalar_verify = time_row("scalar verify", iterations, |i| {
            let key = &items.public_keys[items.key_of[i]];
            let epoch = u32::from_le_bytes(items.epochs[i]);
            if !scalar::verify(
                instance,
                key,
                epoch,
                &items.messages[i],
                &items.signatures[i],
            ) {
                scalar_rejects += 1;
            }
        });
        self.mismatches += scalar_rejects;
        self.rows
            .extend([scalar_keygen, scalar_search, scalar_verify]);
        Ok(())
    }

    fn measure(&mut self, _: &Notes) -> Result<(), CliError> {
        let engine = self.engine(self.args.workers)?;
        let engine_one = self.engine(1)?;
        let items = self.items.items();
        self.batch_size = engine.batch_size();
        for _ in 0..self.args.repeat {
            for (engine, runs) in [(&engine, &mut self.all), (&engine_one, &mut self.one)] {
                let c0 = cycles();
                let (verdicts, timing) = time(|| engine.verify(&items));
                let ticks = c0.zip(cycles()).map(|(a, b)| b.wrapping_sub(a));
                self.mismatches += verdicts.iter().filter(|v| !v.is_valid()).count();
                runs.push((timing, ticks));
            }
        }
        Ok(())
    }

    fn operations(&mut self, _: &Notes) -> Vec<OperationRow> {
        let instance = self.args.instance;
        let items = self.items.items();
        let verify_row = time_row("verify", self.args.op_iterations.min(items.len()), |i| {
            assert!(leanxmss::verify_item(instance, &items[i]).is_valid());
        });
        let mut rows = std::mem::take(&mut self.rows);
        rows.insert(2, verify_row);
        rows
    }

    fn report(self, operations: Vec<OperationRow>) -> Result<LeanXmssReport, CliError> {
        let args = &self.args;
        let scheme = Scheme::LeanXmss(args.instance);
        let (timing, all) = batch_run(&self.all, args.count, args.workers);
        let (_, one) = batch_run(&self.one, args.count, 1);
        let row = |name: &str| {
            operations
                .iter()
                .find(|r| r.operation == name)
                .expect("every row")
        };
        let keygen_ratio = row("scalar keygen").mean_us / row("keygen").mean_us;
        let sign_ratio = row("scalar search").mean_us / row("sign").mean_us;
        let verify_ratio = row("scalar verify").mean_us / one.per_signature_us;
        let mut head = Headline::new(
            args.instance.name().to_string(),
            None,
            self.backend.name(),
            args.workers,
            args.count,
            "signature",
            timing,
            self.mismatches == 0,
        );
        let scalar_per_s = 1e6 / row("scalar verify").mean_us;
        head.add_yardstick(
            "spec algorithm on the blake2 crate, one signature at a time, 1 thread".to_string(),
            args.count as f64 / scalar_per_s,
            scalar_per_s,
            None,
            true,
        );
        Ok(LeanXmssReport {
            head,
            reference: args.instance.reference(),
            lanes: self
                .backend
                .lanes(scheme)
                .min(args.lanes.unwrap_or(usize::MAX)),
            cores: linesig::available_cores(),
            batch: self.batch_size,
            keys: self.keys.len(),
            epochs_per_key: self.per_key(),
            seed: args.seed,
            repeats: args.repeat,
            compressions_per_verify: VERIFY_COMPRESSIONS,
            operations,
            batch_all_workers: all,
            batch_one_worker: one,
            verify_vs_scalar: verify_ratio,
            sign_vs_scalar_search: sign_ratio,
            keygen_vs_scalar: keygen_ratio,
            mismatches: self.mismatches,
        })
    }
}

impl BenchReport for LeanXmssReport {
    fn succeeded(&self) -> bool {
        self.mismatches == 0
    }

    fn json_lines(&self) -> Vec<String> {
        vec![json_line(self)]
    }

    fn print(&self, seconds: f64) {
        let r = self;
        println!("{} ({})", r.head.scheme, r.reference);
        println!(
            "  backend {} ({} lanes), {} cores, {} signatures from {} key(s) over {} epochs each, seed {}, median of {}",
            r.head.backend, r.lanes, r.cores, r.head.count, r.keys, r.epochs_per_key, r.seed, r.repeats
        );
        println!(
            "  each verification: {} BLAKE2s compressions",
            r.compressions_per_verify
        );
        print_rows(
            "one thread, one call at a time (linesig, then the scalar yardstick on the blake2 crate):",
            &r.operations,
        );
        print_batch_runs(&[&r.batch_all_workers, &r.batch_one_worker]);
        println!(
            "  vs the scalar yardstick in this run: verify {:.1}x (one worker), sign {:.1}x (its randomizer search alone), keygen {:.1}x",
            r.verify_vs_scalar, r.sign_vs_scalar_search, r.keygen_vs_scalar
        );
        println!(
            "status {} ({} mismatches), {:.1} s",
            r.head.status, r.mismatches, seconds
        );
    }
}
