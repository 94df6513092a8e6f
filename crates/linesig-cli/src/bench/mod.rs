//! `linesig bench`: seeded signatures for a scheme, verified by the engine (median of
//! `--repeat` runs), checked against what was signed, and set against yardsticks measured
//! in the same run on the same items. Also one-thread rows per operation (keygen, sign,
//! verify: mean, min, max, iterations, ops/s).

mod aggregate;
mod batch_runs;
mod leansig;
mod leanxmss;
mod leanxmss_scalar;
mod op_rows;
mod paillier;
mod report;
mod run;
mod schema;
mod signatures;

use crate::args::{parse_backend, CliError};
use crate::bench::signatures::SignatureBench;
use crate::schemes::{parse_scheme, Ed25519Signer, MlDsaSigner};
use crate::workload::{KeyDistribution, Signer};
use clap::{Args, ValueEnum};
use linesig::{Policy, Scheme};

/// The cache is sized in MiB (`--key-cache-mb`), so its memory is reported in MiB too.
const MIB: f64 = (1u64 << 20) as f64;

#[derive(Args, Debug)]
pub struct BenchArgs {
    /// Scheme: ed25519, mldsa44, mldsa65, mldsa87, leansig-devnet4, leansig-l18,
    /// leansig-l32, leanxmss, or paillier2048 / paillier3072 (any even key size from 512 bits).
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
    /// are those of the timed rounds. With zip215 or zip215-strict and the batch
    /// equation on, keys earn tables only in units that run one signature at a time
    /// (the batch equation, first, needs none).
    #[arg(long, default_value_t = 0, value_parser = crate::args::parse_mib)]
    key_cache_mb: usize,
    /// zip215 and zip215-strict: check each work unit with one randomized batch
    /// equation before any signature alone (on), or each alone (off: every verdict a
    /// deterministic function of its item). Verdicts are the same either way.
    #[arg(long, value_enum, default_value_t = crate::args::Switch::On)]
    pub(crate) batch_equation: crate::args::Switch,
    /// Bytes per message.
    #[arg(long, default_value_t = 32)]
    msg_size: usize,
    /// Worker threads (default: all cores).
    #[arg(long, value_parser = crate::args::parse_workers)]
    workers: Option<usize>,
    /// Items per work unit (at least 1).
    #[arg(long, default_value_t = 512, value_parser = crate::args::parse_at_least_one)]
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
    /// builds every bottom tree of the interval. leanXMSS: the epochs of each key's
    /// range (default: the count, one key).
    #[arg(long)]
    active_epochs: Option<u64>,
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
    if args.aggregate.is_some() && !args.scheme.to_ascii_lowercase().starts_with("leansig-") {
        return Err(CliError::usage(
            "--aggregate applies to leansig-devnet4 only",
        ));
    }
    if let Some(bits) = paillier::key_bits(&args.scheme) {
        if args.policy.is_some() || args.sweep || args.invalid != 0.0 {
            return Err(CliError::usage(
                "--policy, --sweep and --invalid do not apply to Paillier",
            ));
        }
        return paillier::run(paillier::PaillierBenchArgs {
            bits: bits?,
            count: args.count.unwrap_or(DEFAULT_PAILLIER_COUNT),
            workers: args.workers.unwrap_or_else(linesig::available_cores),
            seed: args.seed,
            repeat: args.repeat,
            op_iterations: args.op_iterations.unwrap_or(DEFAULT_PAILLIER_OP_ITERATIONS),
            phe: matches!(args.yardstick, YardstickChoice::Auto),
            json: args.json,
            kernel: paillier::parse_kernel(&args.backend)?,
        });
    }
    let scheme = parse_scheme(&args.scheme, args.policy)?;
    if let Scheme::LeanSig(instance) = scheme {
        if args.sweep || args.invalid != 0.0 || args.key_cache_mb != 0 || args.keys.is_some() {
            return Err(CliError::usage(
                "--sweep, --invalid, --key-cache-mb and --keys do not apply to leanSig",
            ));
        }
        let active_epochs = args.active_epochs.unwrap_or(1);
        if active_epochs == 0 || active_epochs > instance.lifetime() {
            return Err(CliError::usage(format!(
                "--active-epochs must be in 1..={} for {instance}",
                instance.lifetime()
            )));
        }
        if let Some(sizes) = &args.aggregate {
            return aggregate::run(aggregate::AggregateBenchArgs {
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
        return leansig::run(leansig::LeanSigBenchArgs {
            instance,
            count: args.count.unwrap_or(DEFAULT_LEANSIG_COUNT),
            workers: args.workers.unwrap_or_else(linesig::available_cores),
            batch: args.batch,
            backend: parse_backend(&args.backend)?,
            lanes: args.lanes,
            seed: args.seed,
            repeat: args.repeat,
            op_iterations: args.op_iterations.unwrap_or(DEFAULT_OP_ITERATIONS),
            active_epochs,
            json: args.json,
        });
    }
    if let Scheme::LeanXmss(instance) = scheme {
        if args.sweep || args.invalid != 0.0 || args.key_cache_mb != 0 || args.keys.is_some() {
            return Err(CliError::usage(
                "--sweep, --invalid, --key-cache-mb and --keys do not apply to leanXMSS",
            ));
        }
        if let Some(epochs) = args.active_epochs {
            if !(1..=1 << 32).contains(&epochs) {
                return Err(CliError::usage(
                    "--active-epochs must be in 1..=4294967296 for leanxmss",
                ));
            }
        }
        if args.aggregate.is_some() {
            return Err(CliError::usage(
                "--aggregate applies to leansig-devnet4 only",
            ));
        }
        return leanxmss::run(leanxmss::LeanXmssBenchArgs {
            instance,
            count: args.count.unwrap_or(DEFAULT_LEANSIG_COUNT),
            workers: args.workers.unwrap_or_else(linesig::available_cores),
            batch: args.batch,
            backend: parse_backend(&args.backend)?,
            lanes: args.lanes,
            seed: args.seed,
            repeat: args.repeat,
            op_iterations: args.op_iterations.unwrap_or(DEFAULT_OP_ITERATIONS),
            epochs_per_key: args.active_epochs,
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
    run::run(
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
