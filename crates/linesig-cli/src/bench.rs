//! `linesig bench`: seeded signatures for a scheme, verified by the engine (median of
//! `--repeat` runs), checked against what was signed, and set against yardsticks measured
//! in the same run on the same items. Also one-thread rows per operation (keygen, sign,
//! verify: mean, min, max, iterations, ops/s).

use crate::bench_aggregate;
use crate::bench_leansig;
use crate::bench_paillier;
use crate::bench_run::{self, json_line, Bench, BenchReport, Notes};
use crate::bench_schema::{rates, Headline, YardstickReport};
use crate::clock::{median, time, Timing};
use crate::op_rows::{print_rows, time_row, OperationRow};
use crate::progress::Progress;
use crate::schemes::{parse_scheme, yardsticks, Ed25519Signer, MlDsaSigner, Verifier, Yardstick};
use crate::workload::{seed32, KeyDistribution, Signer, Workload, WorkloadSpec};
use crate::{parse_backend, CliError};
use clap::{Args, ValueEnum};
use linesig::{Engine, Item, KeyCacheStats, Policy, Scheme, Verdict};
use serde::Serialize;

/// The cache is sized in MiB (`--key-cache-mb`), so its memory is reported in MiB too.
const MIB: f64 = (1u64 << 20) as f64;

#[derive(Args, Debug)]
pub struct BenchArgs {
    /// Scheme: ed25519, mldsa44, mldsa65, mldsa87, leansig-devnet4, leansig-l18,
    /// leansig-l32, or paillier2048 / paillier3072 (any even key size from 512 bits).
    #[arg(long, default_value = "ed25519")]
    scheme: String,
    /// Signatures to generate and verify (default 50,000; leanSig 4,096); for Paillier,
    /// values to encrypt and decrypt per run (default 128).
    #[arg(long)]
    count: Option<usize>,
    /// Which key signs each message: distinct, per-key:K (K consecutive messages per
    /// key), hot:N (N keys, uniformly) or zipf:S:N (a Zipf law of exponent S over N
    /// keys, as fee payers are on mainnet). Default per-key:4.
    #[arg(long)]
    keys: Option<KeyDistribution>,
    /// Shorthand for --keys per-key:K.
    #[arg(long, conflicts_with = "keys")]
    msgs_per_key: Option<usize>,
    /// MiB for the hot-key cache (Ed25519 fixed-base tables, ML-DSA expanded
    /// keys; 0: off). When on, the same engine with the cache off runs in the same
    /// rounds, and the report gives the ratio, the hit rate and the memory used. The
    /// cached engine first verifies the workload once, untimed, so the rounds measure the
    /// cache's steady state (what a validator that runs for days sees), and its counters
    /// are those of the timed rounds.
    #[arg(long, default_value_t = 0, value_parser = crate::parse_mib)]
    key_cache_mb: usize,
    /// Bytes per message.
    #[arg(long, default_value_t = 32)]
    msg_size: usize,
    /// Worker threads (default: all cores).
    #[arg(long, value_parser = crate::parse_workers)]
    workers: Option<usize>,
    /// Items per work unit.
    #[arg(long, default_value_t = 512)]
    batch: usize,
    /// Ed25519 acceptance policy: strict (default), zip215 or zip215-strict.
    #[arg(long)]
    policy: Option<Policy>,
    /// Fraction of signatures to corrupt (seeded); each must be reported invalid.
    #[arg(long, default_value_t = 0.0)]
    invalid: f64,
    /// Backend: auto, avx512, avx2 or portable. For ML-DSA, `portable` is libcrux and
    /// `avx2` / `avx512` linesig's own verifier on AVX2 / AVX-512 lanes. For Paillier, the
    /// array calls' kernel: auto, ifma, portable (its exact model) or gmp.
    #[arg(long, default_value = "auto")]
    backend: String,
    /// Signatures per vector on a lane backend (default: all its lanes); fewer leave
    /// lanes idle, to measure how throughput scales with lanes.
    #[arg(long)]
    lanes: Option<usize>,
    /// Sweep workers × batch sizes and mark the best.
    #[arg(long)]
    sweep: bool,
    /// One JSON object per run on stdout instead of the report.
    #[arg(long)]
    json: bool,
    /// Seed for keys, messages and corruption.
    #[arg(long, default_value_t = 42)]
    seed: u64,
    /// Verification runs per configuration; the median is reported.
    #[arg(long, default_value_t = 3)]
    repeat: usize,
    /// Yardsticks measured in the same run: the scheme's usual ones, or none.
    #[arg(long, value_enum, default_value_t = YardstickChoice::Auto)]
    yardstick: YardstickChoice,
    /// Iterations of each one-thread operation row (keygen, sign, verify; default 200);
    /// for Paillier (encrypt, decrypt, add, mul; keygen a quarter as many) default 20.
    /// 0 skips them.
    #[arg(long)]
    op_iterations: Option<usize>,
    /// leanSig: epochs each key is made active for (rounded out to whole bottom trees,
    /// at least two: 1,024 epochs for L18, 131,072 for the 2^32 instances). Keygen
    /// builds every bottom tree of the interval.
    #[arg(long, default_value_t = 1)]
    active_epochs: u64,
    /// leanSig devnet-4: benchmark aggregation instead of verification: prove and
    /// verify one aggregate of each size listed (default 2,8,64,1024); `--repeat`
    /// proofs per size.
    #[arg(long, value_delimiter = ',', num_args = 0..)]
    aggregate: Option<Vec<usize>>,
}

#[derive(Clone, Copy, Debug, ValueEnum)]
enum YardstickChoice {
    /// ed25519-dalek `verify_strict` for Ed25519; libcrux and PQClean for ML-DSA; phe
    /// (python-paillier, where installed) for Paillier.
    #[value(alias = "dalek")]
    Auto,
    None,
}

#[derive(Serialize)]
struct RunReport {
    /// The fields every scheme's report shares (`bench_schema`).
    #[serde(flatten)]
    head: Headline,
    /// Signatures per vector, where `--lanes` limited them.
    lanes: Option<usize>,
    cores: usize,
    /// Items per work unit.
    batch: usize,
    keys: usize,
    key_distribution: String,
    /// K for `per-key:K` (1 for distinct keys); null for hot and Zipf keys.
    msgs_per_key: Option<usize>,
    msg_size: usize,
    invalid_fraction: f64,
    invalid_count: usize,
    seed: u64,
    repeats: usize,
    keygen_seconds: f64,
    sign_seconds: f64,
    wall_seconds_min: f64,
    wall_seconds_max: f64,
    mismatches: usize,
    best: bool,
    operations: Vec<OperationRow>,
    /// The first of `yardsticks`, kept for readers of earlier reports.
    yardstick: Option<YardstickReport>,
    /// With `--key-cache-mb`: the cache's counters after the last round.
    key_cache: Option<KeyCacheReport>,
}

#[derive(Serialize)]
struct KeyCacheReport {
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

/// Signatures per run unless `--count` says otherwise: the founding benchmark's 50,000.
const DEFAULT_COUNT: usize = 50_000;
const DEFAULT_OP_ITERATIONS: usize = 200;
const DEFAULT_PAILLIER_COUNT: usize = 128;
const DEFAULT_PAILLIER_OP_ITERATIONS: usize = 20;
const DEFAULT_LEANSIG_COUNT: usize = 4096;

impl BenchArgs {
    fn count(&self) -> usize {
        self.count.unwrap_or(DEFAULT_COUNT)
    }

    fn keys(&self) -> KeyDistribution {
        match (&self.keys, self.msgs_per_key) {
            (Some(k), _) => k.clone(),
            (None, Some(k)) => KeyDistribution::PerKey(k),
            (None, None) => KeyDistribution::PerKey(4),
        }
    }
}

fn validate(args: &BenchArgs) -> Result<(), CliError> {
    if args.count() == 0 || args.msgs_per_key == Some(0) || args.repeat == 0 {
        return Err(CliError::usage(
            "--count, --msgs-per-key and --repeat must be at least 1",
        ));
    }
    if !(0.0..=1.0).contains(&args.invalid) {
        return Err(CliError::usage(
            "--invalid must be a fraction between 0 and 1",
        ));
    }
    Ok(())
}

pub fn run(args: BenchArgs) -> Result<bool, CliError> {
    validate(&args)?;
    if args.aggregate.is_some() && !args.scheme.to_ascii_lowercase().starts_with("leansig") {
        return Err(CliError::usage(
            "--aggregate applies to leansig-devnet4 only",
        ));
    }
    if let Some(bits) = bench_paillier::key_bits(&args.scheme) {
        if args.policy.is_some() || args.sweep || args.invalid != 0.0 {
            return Err(CliError::usage(
                "--policy, --sweep and --invalid do not apply to Paillier",
            ));
        }
        return bench_paillier::run(bench_paillier::PaillierBenchArgs {
            bits: bits?,
            count: args.count.unwrap_or(DEFAULT_PAILLIER_COUNT),
            workers: args.workers.unwrap_or_else(linesig::available_cores),
            seed: args.seed,
            repeat: args.repeat,
            op_iterations: args.op_iterations.unwrap_or(DEFAULT_PAILLIER_OP_ITERATIONS),
            phe: matches!(args.yardstick, YardstickChoice::Auto),
            json: args.json,
            kernel: bench_paillier::parse_kernel(&args.backend)?,
        });
    }
    let scheme = parse_scheme(&args.scheme, args.policy)?;
    if let Scheme::LeanSig(instance) = scheme {
        if args.sweep || args.invalid != 0.0 || args.key_cache_mb != 0 || args.keys.is_some() {
            return Err(CliError::usage(
                "--sweep, --invalid, --key-cache-mb and --keys do not apply to leanSig",
            ));
        }
        if args.active_epochs == 0 || args.active_epochs > instance.lifetime() {
            return Err(CliError::usage(format!(
                "--active-epochs must be in 1..={} for {instance}",
                instance.lifetime()
            )));
        }
        if let Some(sizes) = &args.aggregate {
            return bench_aggregate::run(bench_aggregate::AggregateBenchArgs {
                instance,
                sizes: if sizes.is_empty() {
                    vec![2, 8, 64, 1024]
                } else {
                    sizes.clone()
                },
                workers: args.workers.unwrap_or_else(linesig::available_cores),
                seed: args.seed,
                repeat: args.repeat,
                json: args.json,
            });
        }
        return bench_leansig::run(bench_leansig::LeanSigBenchArgs {
            instance,
            count: args.count.unwrap_or(DEFAULT_LEANSIG_COUNT),
            workers: args.workers.unwrap_or_else(linesig::available_cores),
            batch: args.batch,
            backend: parse_backend(&args.backend)?,
            lanes: args.lanes,
            seed: args.seed,
            repeat: args.repeat,
            op_iterations: args.op_iterations.unwrap_or(DEFAULT_OP_ITERATIONS),
            active_epochs: args.active_epochs,
            json: args.json,
        });
    }
    match scheme {
        Scheme::Ed25519(_) => run_scheme(&args, scheme, &Ed25519Signer),
        Scheme::MlDsa(ps) => run_scheme(&args, scheme, &MlDsaSigner(ps)),
        other => Err(CliError::usage(format!(
            "no benchmark for {}",
            other.name()
        ))),
    }
}

fn run_scheme<S: Signer>(args: &BenchArgs, scheme: Scheme, signer: &S) -> Result<bool, CliError> {
    bench_run::run(
        SignatureBench {
            args,
            scheme,
            signer,
            workload: None,
            runs: Vec::new(),
            cache_off: None,
            warm: Vec::new(),
            yardsticks: Vec::new(),
        },
        args.json,
    )
}

/// An engine, its timing per round and the most mismatches of any round.
type EngineRuns = (Engine, Vec<Timing>, usize);

/// The Ed25519 / ML-DSA benchmark's state: the workload and engines from `setup`, every
/// round's timings from `measure`.
struct SignatureBench<'a, S> {
    args: &'a BenchArgs,
    scheme: Scheme,
    signer: &'a S,
    workload: Option<Workload>,
    /// One engine per configuration (several with `--sweep`).
    runs: Vec<EngineRuns>,
    /// With the cache on: the same engine without it, timed in the same rounds.
    cache_off: Option<EngineRuns>,
    /// Each engine's cache counters after the untimed warm-up pass.
    warm: Vec<Option<KeyCacheStats>>,
    /// Each yardstick, its timing per round and whether every round answered as expected.
    yardsticks: Vec<(Yardstick, Vec<Timing>, bool)>,
}

impl<S: Signer> SignatureBench<'_, S> {
    fn workload(&self) -> &Workload {
        self.workload.as_ref().expect("measured after setup")
    }

    /// (workers, batch) of each engine: one, or the sweep's grid.
    fn configurations(&self) -> Vec<(usize, usize)> {
        let cores = linesig::available_cores();
        if !self.args.sweep {
            return vec![(self.args.workers.unwrap_or(cores), self.args.batch)];
        }
        let mut workers: Vec<usize> = std::iter::successors(Some(1usize), |w| Some(w * 2))
            .take_while(|&w| w < cores)
            .collect();
        workers.push(cores);
        let batches = [64, 128, 256, 512, 1024, 2048];
        workers
            .iter()
            .flat_map(|&w| batches.map(|b| (w, b)))
            .collect()
    }

    /// The engines: one per configuration, with the cache where asked, and (cache on, no
    /// sweep) the same engine without it.
    fn build_engines(&mut self) -> Result<(), CliError> {
        let (args, backend) = (self.args, parse_backend(&self.args.backend)?);
        for (workers, batch) in self.configurations() {
            let mut builder = Engine::builder()
                .scheme(self.scheme)
                .workers(workers)
                .batch_size(batch);
            if let Some(b) = backend {
                builder = builder.backend(b);
            }
            if let Some(n) = args.lanes {
                builder = builder.lanes(n);
            }
            let cached = builder
                .clone()
                .key_cache(args.key_cache_mb.saturating_mul(1 << 20));
            let engine = cached.build().map_err(|e| CliError::usage(e.to_string()))?;
            self.runs.push((engine, Vec::new(), 0));
            if args.key_cache_mb > 0 && !args.sweep {
                let off = builder
                    .build()
                    .map_err(|e| CliError::usage(e.to_string()))?;
                self.cache_off = Some((off, Vec::new(), 0));
            }
        }
        Ok(())
    }
}

impl<S: Signer> Bench for SignatureBench<'_, S> {
    type Report = SignatureReports;

    fn setup(&mut self, notes: &Notes) -> Result<(), CliError> {
        let args = self.args;
        let spec = WorkloadSpec {
            count: args.count(),
            keys: args.keys(),
            msg_size: args.msg_size,
            invalid_fraction: args.invalid,
            seed: args.seed,
        };
        crate::workload::check_workload_fits(
            spec.count,
            spec.msg_size + self.signer.signature_len(),
        )
        .map_err(CliError::usage)?;
        self.build_engines()?;
        let workload = Workload::generate(self.signer, &spec, notes.show());
        let items = workload.items();
        // The cache's steady state: one untimed pass fills it; the report counts from here.
        self.warm = self
            .runs
            .iter()
            .map(|(engine, _, _)| {
                engine.key_cache_stats()?;
                let progress = Progress::new("warm-up", Some(items.len() as u64), notes.show());
                engine.verify_with_progress(items.as_slice(), &|n| progress.inc(n as u64));
                progress.finish();
                engine.key_cache_stats()
            })
            .collect();
        drop(items);
        self.workload = Some(workload);
        self.yardsticks = match args.yardstick {
            YardstickChoice::Auto => yardsticks(self.scheme),
            YardstickChoice::None => Vec::new(),
        }
        .into_iter()
        .map(|y| (y, Vec::new(), true))
        .collect();
        Ok(())
    }

    /// Rounds interleave linesig and the yardsticks, so a machine whose speed drifts
    /// (shared hosts, turbo) shifts both sides of every ratio alike.
    fn measure(&mut self, notes: &Notes) -> Result<(), CliError> {
        let workload = self.workload.as_ref().expect("measured after setup");
        let items = workload.items();
        let repeat = self.args.repeat;
        for round in 0..repeat {
            let label = format!("{}/{repeat}", round + 1);
            for (engine, timings, mismatches) in self.runs.iter_mut().chain(self.cache_off.as_mut())
            {
                let progress = Progress::new(
                    &format!("verify {label}"),
                    Some(items.len() as u64),
                    notes.show(),
                );
                let (verdicts, timing) = time(|| {
                    engine.verify_with_progress(items.as_slice(), &|n| progress.inc(n as u64))
                });
                progress.finish();
                *mismatches =
                    (*mismatches).max(count_mismatches(&verdicts, &workload.expect_valid));
                timings.push(timing);
            }
            for (y, timings, agrees) in &mut self.yardsticks {
                let (timing, ok) =
                    yardstick_round(y, &items, &workload.expect_valid, &label, notes.show());
                timings.push(timing);
                *agrees &= ok;
            }
        }
        Ok(())
    }

    fn operations(&mut self, _: &Notes) -> Vec<OperationRow> {
        let args = self.args;
        operation_rows(
            self.scheme,
            self.signer,
            &self.workload().items(),
            args.op_iterations.unwrap_or(DEFAULT_OP_ITERATIONS),
            args.seed,
        )
    }

    fn report(self, operations: Vec<OperationRow>) -> Result<SignatureReports, CliError> {
        let (args, scheme, workload) = (self.args, self.scheme, self.workload());
        let cores = linesig::available_cores();
        let measured: Vec<(&Yardstick, YardstickRun)> = self
            .yardsticks
            .iter()
            .map(|(y, timings, agrees)| {
                let timing = median(timings.clone());
                (
                    y,
                    YardstickRun {
                        timing,
                        agrees: *agrees,
                    },
                )
            })
            .collect();
        let mut reports: Vec<RunReport> = self
            .runs
            .iter()
            .map(|(engine, timings, mismatches)| {
                report(
                    args,
                    scheme,
                    cores,
                    workload,
                    engine,
                    timings,
                    *mismatches,
                    &measured,
                )
            })
            .collect();
        let best = (0..reports.len())
            .max_by(|&a, &b| {
                reports[a]
                    .head
                    .throughput_per_s
                    .total_cmp(&reports[b].head.throughput_per_s)
            })
            .unwrap_or(0);
        if args.sweep {
            reports[best].best = true;
        }
        reports[best].operations = operations;
        let off_mismatches = self.cache_off.as_ref().map_or(0, |(_, _, m)| *m);
        let off_throughput = self
            .cache_off
            .as_ref()
            .map(|(_, t, _)| workload.len() as f64 / median(t.clone()).wall.as_secs_f64());
        for ((r, (engine, _, _)), warm) in reports.iter_mut().zip(&self.runs).zip(&self.warm) {
            r.key_cache = engine.key_cache_stats().map(|s| {
                cache_report(
                    s,
                    warm.unwrap_or_default(),
                    off_throughput,
                    r.head.throughput_per_s,
                )
            });
            r.mismatches = r.mismatches.max(off_mismatches);
            if r.mismatches > 0 {
                r.head.status = "FAILURE";
            }
        }
        Ok(SignatureReports {
            scheme,
            sweep: args.sweep,
            best,
            reports,
        })
    }
}

/// One report per engine configuration (one unless `--sweep`), the fastest marked.
struct SignatureReports {
    scheme: Scheme,
    sweep: bool,
    best: usize,
    reports: Vec<RunReport>,
}

impl BenchReport for SignatureReports {
    fn succeeded(&self) -> bool {
        self.reports.iter().all(|r| r.mismatches == 0)
    }

    fn json_lines(&self) -> Vec<String> {
        self.reports.iter().map(json_line).collect()
    }

    fn print(&self, seconds: f64) {
        if self.sweep {
            print_sweep(&self.reports);
        }
        print_report(self.scheme, &self.reports[self.best], seconds);
    }
}

fn count_mismatches(verdicts: &[Verdict], expect_valid: &[bool]) -> usize {
    verdicts
        .iter()
        .zip(expect_valid)
        .filter(|(v, e)| v.is_valid() != **e)
        .count()
        + verdicts.len().abs_diff(expect_valid.len())
}

struct YardstickRun {
    timing: Timing,
    agrees: bool,
}

/// One timed pass of a yardstick over the items, and whether it answered as expected.
fn yardstick_round(
    y: &Yardstick,
    items: &[Item<'_>],
    expect_valid: &[bool],
    label: &str,
    show: bool,
) -> (Timing, bool) {
    let progress = Progress::new(
        &format!("yardstick {label}"),
        Some(items.len() as u64),
        show,
    );
    let (valid, timing) = time(|| match y.verify {
        Verifier::Each(verify) => items
            .iter()
            .map(|it| {
                progress.inc(1);
                verify(it)
            })
            .collect::<Vec<bool>>(),
        Verifier::Batch { size, verify } => items
            .chunks(size)
            .map(|chunk| {
                progress.inc(chunk.len() as u64);
                verify(chunk)
            })
            .collect::<Vec<bool>>(),
    });
    progress.finish();
    // A batch verifier answers per batch: it agrees when it accepts exactly the
    // batches whose items were all left honest.
    let expected: Vec<bool> = match y.verify {
        Verifier::Each(_) => expect_valid.to_vec(),
        Verifier::Batch { size, .. } => expect_valid
            .chunks(size)
            .map(|c| c.iter().all(|v| *v))
            .collect(),
    };
    (timing, valid == expected)
}

/// Keygen, sign and single verify, each timed call by call on this thread.
fn operation_rows<S: Signer>(
    scheme: Scheme,
    signer: &S,
    items: &[Item<'_>],
    iterations: usize,
    seed: u64,
) -> Vec<OperationRow> {
    if iterations == 0 {
        return Vec::new();
    }
    let (_, secret) = signer.keygen(seed32(seed, 5, 0));
    let message = vec![0x5au8; items.first().map_or(32, |i| i.message.len())];
    vec![
        time_row("keygen", iterations, |i| {
            drop(std::hint::black_box(signer.keygen(seed32(seed, 5, i))))
        }),
        time_row("sign", iterations, |i| {
            drop(std::hint::black_box(signer.sign(
                &secret,
                &message,
                seed32(seed, 6, i),
            )))
        }),
        time_row("verify", iterations, |i| {
            std::hint::black_box(scheme.verify(&items[i % items.len()]));
        }),
    ]
}

#[allow(clippy::too_many_arguments)]
fn report(
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
        head,
    }
}

/// The cache's report: its counters over the timed rounds (`s` less the `warm` state
/// after the warm-up pass) and its size now.
fn cache_report(
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

fn print_sweep(reports: &[RunReport]) {
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

fn print_report(scheme: Scheme, r: &RunReport, total_seconds: f64) {
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
