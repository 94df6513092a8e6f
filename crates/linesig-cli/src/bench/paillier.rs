//! `linesig bench --scheme paillier2048|paillier3072`: the founding document's Paillier
//! table. For encryption (textbook r^n and DJN) and decryption: linesig one call at a
//! time, linesig's array call on one worker and on all workers, and python-paillier
//! (`phe`) in the same run, one call at a time, on threads and on processes (with one
//! worker: the one-worker array call and phe one call at a time, each once). Then
//! one-thread rows per operation (keygen, encrypt, decrypt, add, mul: mean, min, max,
//! iterations, ops/s). Every array ciphertext is decrypted back and checked, and phe
//! decrypts a sample of linesig's ciphertexts.

use std::io::Write;
use std::process::{Command, Stdio};

use linesig_paillier::{generate_keypair, Integer, Kernel, Mode, Pool, PrivateKey, PublicKey};
use rand::SeedableRng;
use rand_chacha::ChaCha20Rng;
use serde::Serialize;

use super::op_rows::{print_rows, time_row, OperationRow};
use super::run::{json_line, Bench, BenchReport, Notes};
use super::schema::{rates, Headline};
use crate::args::CliError;
use crate::clock::{median, time, Timing};

/// `paillier2048` → 2048; `None` for any other scheme name.
pub fn key_bits(scheme: &str) -> Option<Result<u32, CliError>> {
    let digits = scheme
        .to_ascii_lowercase()
        .strip_prefix("paillier")?
        .to_string();
    Some(
        digits
            .parse::<u32>()
            .ok()
            .filter(|b| *b >= 512 && b % 2 == 0)
            .ok_or_else(|| {
                CliError::usage(format!(
                    "unknown scheme '{scheme}': Paillier key sizes are even numbers of bits \
                     from 512 (paillier2048, paillier3072, ...)"
                ))
            }),
    )
}

/// `--backend` for Paillier: `auto` is [`Kernel::best`]. A kernel this CPU cannot run
/// is refused by `Pool::with_kernel` (`Error::KernelUnsupported`), a usage error.
pub fn parse_kernel(name: &str) -> Result<Kernel, CliError> {
    if name.is_empty() || name.eq_ignore_ascii_case("auto") {
        return Ok(Kernel::best());
    }
    name.parse::<Kernel>()
        .map_err(|e| CliError::usage(e.to_string()))
}

/// What the Paillier benchmark needs from `linesig bench`'s arguments.
pub struct PaillierBenchArgs {
    pub bits: u32,
    pub count: usize,
    pub workers: usize,
    pub seed: u64,
    pub repeat: usize,
    pub op_iterations: usize,
    pub phe: bool,
    pub json: bool,
    /// The array calls' kernel.
    pub kernel: Kernel,
}

/// One way of running one operation over the values.
#[derive(Serialize)]
struct Way {
    name: String,
    threads: usize,
    ops_per_s: f64,
    /// ops/s per CPU-second of this process (None where the clock is not known).
    ops_per_cpu_s: Option<f64>,
    /// ops/s ÷ phe one call at a time, measured in this run.
    vs_phe: Option<f64>,
}

#[derive(Serialize)]
struct Table {
    operation: &'static str,
    ways: Vec<Way>,
}

#[derive(Serialize)]
struct PaillierReport {
    /// The fields every scheme's report shares (`bench_schema`): decryption as an array
    /// call on all workers, against phe's ways in the same run. `backend` is the array
    /// calls' kernel (gmp, portable or ifma).
    #[serde(flatten)]
    head: Headline,
    key_bits: u32,
    cores: usize,
    seed: u64,
    repeats: usize,
    djn_table_bytes: usize,
    djn_table_build_seconds: f64,
    phe: Option<PheInfo>,
    phe_note: Option<String>,
    tables: Vec<Table>,
    operations: Vec<OperationRow>,
    round_trip_failures: usize,
    phe_cross_decrypt: Option<(usize, usize)>,
}

#[derive(Serialize, serde::Deserialize)]
struct PheInfo {
    python: String,
    phe_version: String,
    gmpy2: bool,
}

/// What the phe script reports: ops/s per way, and which of linesig's ciphertexts it
/// decrypted to the expected values.
#[derive(serde::Deserialize)]
struct PheResult {
    info: PheInfo,
    encrypt: PheRates,
    decrypt: PheRates,
    cross_ok: usize,
    cross_total: usize,
}

/// phe's ops/s; threads and processes only where there is more than one worker (a pool
/// of one is one call at a time plus the pool's overhead).
#[derive(serde::Deserialize)]
struct PheRates {
    single: f64,
    threads: Option<f64>,
    processes: Option<f64>,
}

pub fn run(args: PaillierBenchArgs) -> Result<bool, CliError> {
    let json = args.json;
    crate::bench::run::run(
        PaillierBench {
            args,
            setup: None,
            measured: Measured::default(),
        },
        json,
    )
}

/// The Paillier benchmark's state: keys, values and pools from `setup`, the tables and
/// phe's figures from `measure`.
struct PaillierBench {
    args: PaillierBenchArgs,
    setup: Option<Setup>,
    measured: Measured,
}

struct Setup {
    pool_one: Pool,
    pool_all: Pool,
    rng: ChaCha20Rng,
    public: PublicKey,
    /// The same key with a DJN fixed base, its table built on all workers.
    djn_public: PublicKey,
    djn_build: Timing,
    private: PrivateKey,
    values: Vec<Integer>,
}

#[derive(Default)]
struct Measured {
    tables: Vec<Table>,
    /// Ciphertexts and decryptions that were not the values they should be.
    failures: usize,
    /// linesig ciphertexts phe is asked to decrypt.
    sample_for_phe: Vec<Integer>,
    /// The headline: decryption as one array call on all workers.
    decrypt_timing: Option<Timing>,
    phe: Option<PheInfo>,
    phe_note: Option<String>,
    cross: Option<(usize, usize)>,
}

impl PaillierBench {
    /// The keys, values and pools, split from `measured` so a step can read the one and
    /// write the other.
    fn parts(&mut self) -> (&PaillierBenchArgs, &Setup, &mut Measured) {
        let setup = self.setup.as_ref().expect("measured after setup");
        (&self.args, setup, &mut self.measured)
    }
}

impl Setup {
    /// The array call on one worker, and on all `workers` where that is more than one (a
    /// second row of one worker would only time the same thing twice).
    fn array_pools(&self, workers: usize) -> Vec<(usize, &Pool)> {
        let mut pools = vec![(1, &self.pool_one)];
        if workers > 1 {
            pools.push((workers, &self.pool_all));
        }
        pools
    }
}

/// `work` run `repeat` times: its last output and every run's timing.
fn repeated(
    repeat: usize,
    notes: &Notes,
    label: &str,
    work: &mut dyn FnMut() -> Vec<Integer>,
) -> (Vec<Integer>, Vec<Timing>) {
    notes.say(&format!("  {label}"));
    let mut timings = Vec::new();
    let mut last = Vec::new();
    for _ in 0..repeat {
        let (out, t) = time(&mut *work);
        timings.push(t);
        last = out;
    }
    (last, timings)
}

/// Ciphertexts that do not decrypt to their values (missing ones count too).
fn encrypt_failures(private: &PrivateKey, values: &[Integer], ciphertexts: &[Integer]) -> usize {
    ciphertexts
        .iter()
        .zip(values)
        .filter(|(c, m)| private.decrypt(c).ok().as_ref() != Some(*m))
        .count()
        + values.len().saturating_sub(ciphertexts.len())
}

/// Decryptions that are not their values (missing ones count too).
fn decrypt_failures(values: &[Integer], out: &[Integer]) -> usize {
    out.iter().zip(values).filter(|(a, b)| a != b).count() + values.len().saturating_sub(out.len())
}

impl PaillierBench {
    /// linesig's three ways of encrypting, for textbook r^n and for DJN.
    fn encrypt_tables(&mut self, notes: &Notes) {
        let (args, s, measured) = self.parts();
        let rate = |timings: Vec<Timing>| rates(args.count, median(timings));
        for (operation, key, mode) in [
            ("encrypt (textbook r^n)", &s.public, Mode::Textbook),
            ("encrypt (DJN)", &s.djn_public, Mode::Djn),
        ] {
            notes.say(&format!("{operation}: {} values", args.count));
            let (single, t_single) =
                repeated(args.repeat, notes, "one call at a time", &mut || {
                    let mut r = rand::thread_rng();
                    s.values
                        .iter()
                        .filter_map(|m| key.encrypt(m, mode, &mut r).ok())
                        .collect()
                });
            measured.failures += encrypt_failures(&s.private, &s.values, &single);
            let mut ways = vec![linesig_way(None, rate(t_single))];
            for (workers, pool) in s.array_pools(args.workers) {
                let (out, t) = repeated(args.repeat, notes, &array_call(workers), &mut || {
                    pool.encrypt(key, &s.values, mode).unwrap_or_default()
                });
                measured.failures += encrypt_failures(&s.private, &s.values, &out);
                if workers == args.workers {
                    measured.sample_for_phe.extend(out.iter().take(8).cloned());
                }
                ways.push(linesig_way(Some(workers), rate(t)));
            }
            measured.tables.push(Table { operation, ways });
        }
    }

    /// linesig's three ways of decrypting; the array call on all workers is the headline.
    fn decrypt_table(&mut self, notes: &Notes) -> Result<(), CliError> {
        let (args, s, measured) = self.parts();
        let ciphertexts = s
            .pool_all
            .encrypt(&s.public, &s.values, Mode::Textbook)
            .map_err(|e| CliError::usage(e.to_string()))?;
        notes.say(&format!("decrypt: {} values", args.count));
        let (single, t_single) = repeated(args.repeat, notes, "one call at a time", &mut || {
            ciphertexts
                .iter()
                .filter_map(|c| s.private.decrypt(c).ok())
                .collect()
        });
        measured.failures += decrypt_failures(&s.values, &single);
        let mut ways = vec![linesig_way(None, rates(args.count, median(t_single)))];
        for (workers, pool) in s.array_pools(args.workers) {
            let (out, t) = repeated(args.repeat, notes, &array_call(workers), &mut || {
                pool.decrypt(&s.private, &ciphertexts).unwrap_or_default()
            });
            measured.failures += decrypt_failures(&s.values, &out);
            let timing = median(t);
            ways.push(linesig_way(Some(workers), rates(args.count, timing)));
            measured.decrypt_timing = Some(timing);
        }
        measured.tables.push(Table {
            operation: "decrypt",
            ways,
        });
        Ok(())
    }

    /// phe in the same run, when it is installed and asked for.
    fn phe_yardstick(&mut self, notes: &Notes) {
        let (args, s, measured) = self.parts();
        if !args.phe {
            measured.phe_note = Some("not measured (--yardstick none)".to_string());
            return;
        }
        notes.say("phe (python-paillier): the same key, one call at a time, threads, processes");
        match run_phe(args, &s.private, &s.values, &measured.sample_for_phe) {
            Ok(result) => {
                let tables = &mut measured.tables;
                add_phe(&mut tables[0], &result.encrypt, args.workers);
                add_phe(&mut tables[1], &result.encrypt, args.workers);
                add_phe(&mut tables[2], &result.decrypt, args.workers);
                measured.phe = Some(result.info);
                measured.cross = Some((result.cross_ok, result.cross_total));
            }
            Err(why) => {
                // Asked for and not run: said on stderr too, so that a JSON reader or a
                // script does not take an empty yardstick list for a measurement.
                eprintln!("linesig: the phe yardstick did not run: {why}");
                measured.phe_note = Some(why);
            }
        }
    }
}

impl Bench for PaillierBench {
    type Report = PaillierReport;

    fn setup(&mut self, notes: &Notes) -> Result<(), CliError> {
        let args = &self.args;
        // Each value is held with a ciphertext per operation timed (2·bits each) and
        // phe's copy: refused before the key is made, not an allocation failure later.
        let ciphertext = 2 * args.bits as u128 / 8;
        crate::workload::check_count_fits(args.count, 6 * ciphertext, "its values and ciphertexts")
            .map_err(CliError::usage)?;
        // The pools first: a kernel this CPU cannot run is refused before any work.
        let pool_one =
            Pool::with_kernel(1, args.kernel).map_err(|e| CliError::usage(e.to_string()))?;
        let pool_all = Pool::with_kernel(args.workers, args.kernel)
            .map_err(|e| CliError::usage(e.to_string()))?;
        let mut rng = ChaCha20Rng::seed_from_u64(args.seed);
        notes.say(&format!(
            "generating a {}-bit key (seed {})",
            args.bits, args.seed
        ));
        let (public, private) =
            generate_keypair(args.bits, &mut rng).map_err(|e| CliError::usage(e.to_string()))?;
        let djn_public = public.clone().with_random_djn(&mut rng);
        let (_, djn_build) = time(|| pool_all.prepare_djn(&djn_public));
        let values = (0..args.count)
            .map(|i| Integer::from(i as u64 * 0x9e37_79b9_7f4a_7c15 % (1 << 62)))
            .collect();
        self.setup = Some(Setup {
            pool_one,
            pool_all,
            rng,
            public,
            djn_public,
            djn_build,
            private,
            values,
        });
        Ok(())
    }

    fn measure(&mut self, notes: &Notes) -> Result<(), CliError> {
        self.encrypt_tables(notes);
        self.decrypt_table(notes)?;
        self.phe_yardstick(notes);
        Ok(())
    }

    fn operations(&mut self, notes: &Notes) -> Vec<OperationRow> {
        notes.say("one thread, call by call");
        let args = &self.args;
        let s = self.setup.as_mut().expect("measured after setup");
        operation_rows(args, &s.public, &s.private, &mut s.rng)
    }

    fn report(self, operations: Vec<OperationRow>) -> Result<PaillierReport, CliError> {
        let PaillierBench {
            args,
            setup,
            measured,
        } = self;
        let s = setup.expect("measured after setup");
        let cross_ok = measured.cross.is_none_or(|(ok, total)| ok == total);
        let success = measured.failures == 0 && cross_ok;
        let mut head = Headline::new(
            format!("paillier{}", args.bits),
            None,
            args.kernel.name(),
            args.workers,
            args.count,
            "decryption",
            measured
                .decrypt_timing
                .expect("the one-worker pool always runs"),
            success,
        );
        if let Some(decrypt) = measured.tables.iter().find(|t| t.operation == "decrypt") {
            for way in decrypt.ways.iter().filter(|w| w.name.starts_with("phe")) {
                head.add_yardstick(
                    way.name.clone(),
                    args.count as f64 / way.ops_per_s,
                    way.ops_per_s,
                    way.ops_per_cpu_s,
                    cross_ok,
                );
            }
        }
        Ok(PaillierReport {
            head,
            key_bits: args.bits,
            cores: linesig::available_cores(),
            seed: args.seed,
            repeats: args.repeat,
            djn_table_bytes: s.djn_public.djn_table_bytes(),
            djn_table_build_seconds: s.djn_build.wall.as_secs_f64(),
            phe: measured.phe,
            phe_note: measured.phe_note,
            tables: measured.tables,
            operations,
            round_trip_failures: measured.failures,
            phe_cross_decrypt: measured.cross,
        })
    }
}

impl BenchReport for PaillierReport {
    fn succeeded(&self) -> bool {
        self.head.status == "SUCCESS"
    }

    fn json_lines(&self) -> Vec<String> {
        vec![json_line(self)]
    }

    fn print(&self, seconds: f64) {
        print_report(self, seconds)
    }
}

/// "1 worker" / "2 workers".
fn workers_phrase(workers: usize) -> String {
    if workers == 1 {
        "1 worker".to_string()
    } else {
        format!("{workers} workers")
    }
}

/// "array call, 1 worker" / "array call, 2 workers".
fn array_call(workers: usize) -> String {
    format!("array call, {}", workers_phrase(workers))
}

/// linesig one call at a time (`None`), or its array call on `workers` threads.
fn linesig_way(array_workers: Option<usize>, (ops, per_cpu): (f64, Option<f64>)) -> Way {
    Way {
        name: match array_workers {
            None => "linesig, one call at a time".to_string(),
            Some(workers) => format!("linesig {}", array_call(workers)),
        },
        threads: array_workers.unwrap_or(1),
        ops_per_s: ops,
        ops_per_cpu_s: per_cpu,
        vs_phe: None,
    }
}

/// Put phe's rows first and every linesig row's ratio against phe one call at a time.
fn add_phe(table: &mut Table, rates: &PheRates, workers: usize) {
    for way in &mut table.ways {
        way.vs_phe = Some(way.ops_per_s / rates.single);
    }
    let phe_ways = [
        ("phe, one call at a time".to_string(), 1, Some(rates.single)),
        (format!("phe, threads ({workers})"), workers, rates.threads),
        (
            format!("phe, processes ({workers})"),
            workers,
            rates.processes,
        ),
    ];
    let phe_ways = phe_ways
        .into_iter()
        .filter_map(|(name, threads, ops)| Some((name, threads, ops?)));
    for (i, (name, threads, ops)) in phe_ways.enumerate() {
        table.ways.insert(
            i,
            Way {
                name,
                threads,
                ops_per_s: ops,
                ops_per_cpu_s: None,
                vs_phe: Some(ops / rates.single),
            },
        );
    }
}

/// The interpreter for phe: $LINESIG_PYTHON, else the environment scripts/test.sh builds
/// (`target/python-venv`), found beside this binary (`target/release/linesig` →
/// `target/python-venv`, whatever the working directory) or under the working
/// directory, else python3.
fn python() -> String {
    if let Ok(p) = std::env::var("LINESIG_PYTHON") {
        return p;
    }
    let beside_binary = std::env::current_exe().ok().and_then(|exe| {
        // target/<profile>/linesig → target
        let target = exe.parent()?.parent()?;
        Some(target.join("python-venv/bin/python"))
    });
    let candidates = beside_binary
        .into_iter()
        .chain([std::path::PathBuf::from("target/python-venv/bin/python")]);
    for venv in candidates {
        if venv.exists() {
            return venv.display().to_string();
        }
    }
    "python3".to_string()
}

/// Times phe on the same key (n, p, q) and values, one call at a time, on threads and on
/// processes where there is more than one worker (each the median of `repeat` runs);
/// decrypts linesig's sample ciphertexts.
/// Reads a JSON job on stdin.
const PHE_SCRIPT: &str = include_str!("phe_yardstick.py");

/// phe is slow (the reason linesig exists): it runs on at most this many values.
const PHE_MAX_VALUES: usize = 64;

fn run_phe(
    args: &PaillierBenchArgs,
    private: &PrivateKey,
    values: &[Integer],
    sample: &[Integer],
) -> Result<PheResult, String> {
    let python = python();
    let phe_values: Vec<String> = values
        .iter()
        .take(PHE_MAX_VALUES.max(2 * args.workers))
        .map(Integer::to_string)
        .collect();
    let cross: Vec<(String, String)> = sample
        .iter()
        .map(|c| {
            let m = private.decrypt(c).unwrap_or_default();
            (c.to_string(), m.to_string())
        })
        .collect();
    let job = serde_json::json!({
        "n": private.public_key().n().to_string(),
        "p": private.p().to_string(),
        "q": private.q().to_string(),
        "values": phe_values,
        "workers": args.workers,
        "repeat": args.repeat,
        "cross": cross,
    });
    let mut child = Command::new(&python)
        .args(["-c", PHE_SCRIPT])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| format!("could not run {python}: {e}"))?;
    if let Some(mut stdin) = child.stdin.take() {
        stdin
            .write_all(job.to_string().as_bytes())
            .map_err(|e| format!("could not talk to {python}: {e}"))?;
    }
    let out = child
        .wait_with_output()
        .map_err(|e| format!("{python} failed: {e}"))?;
    if !out.status.success() {
        let stderr = String::from_utf8_lossy(&out.stderr);
        if stderr.contains("No module named 'phe'") {
            return Err(format!(
                "phe is not installed for {python} (pip install phe gmpy2, set LINESIG_PYTHON, \
                 or run scripts/test.sh once to build target/python-venv)"
            ));
        }
        let last = stderr.lines().last().unwrap_or("no message");
        return Err(format!("the phe run failed: {last}"));
    }
    serde_json::from_slice(&out.stdout).map_err(|e| format!("unreadable phe report: {e}"))
}

/// keygen, encrypt (both modes), decrypt, add, add a plaintext, multiply by a 64-bit
/// scalar: each timed call by call on this thread.
fn operation_rows(
    args: &PaillierBenchArgs,
    public: &PublicKey,
    private: &PrivateKey,
    rng: &mut ChaCha20Rng,
) -> Vec<OperationRow> {
    let iterations = args.op_iterations;
    if iterations == 0 {
        return Vec::new();
    }
    let djn = public.clone().with_random_djn(rng);
    let _ = djn.prepare_djn();
    let m = Integer::from(0x1234_5678_9abc_def0u64);
    let scalar = Integer::from(0xfedc_ba98_7654_3210u64);
    let a = public.encrypt(&m, Mode::Textbook, rng).unwrap_or_default();
    let b = public
        .encrypt(&scalar, Mode::Textbook, rng)
        .unwrap_or_default();
    let mut r = rand::thread_rng();
    let bits = args.bits;
    let keygen_iterations = iterations.div_ceil(4);
    vec![
        time_row("keygen", keygen_iterations, |_| {
            std::hint::black_box(generate_keypair(bits, &mut r).ok());
        }),
        time_row("encrypt", iterations, |_| {
            std::hint::black_box(
                public
                    .encrypt(&m, Mode::Textbook, &mut rand::thread_rng())
                    .ok(),
            );
        }),
        time_row("encrypt-djn", iterations, |_| {
            std::hint::black_box(djn.encrypt(&m, Mode::Djn, &mut rand::thread_rng()).ok());
        }),
        time_row("decrypt", iterations, |_| {
            std::hint::black_box(private.decrypt(&a).ok());
        }),
        time_row("add", iterations, |_| {
            std::hint::black_box(public.add(&a, &b).ok());
        }),
        time_row("add-plain", iterations, |_| {
            std::hint::black_box(public.add_plain(&a, &scalar).ok());
        }),
        time_row("mul", iterations, |_| {
            std::hint::black_box(public.mul_plain(&a, &scalar).ok());
        }),
    ]
}

fn print_report(r: &PaillierReport, total_seconds: f64) {
    println!(
        "linesig bench: Paillier, {}-bit n ({} cores, {})",
        r.key_bits,
        r.cores,
        workers_phrase(r.head.workers)
    );
    println!(
        "Array calls:            {}",
        match r.head.backend {
            "gmp" => "GMP, one value at a time".to_string(),
            k => format!(
                "the {k} Montgomery kernel, 8 values per call (tails of 1 or 2 and one-call rows on GMP)"
            ),
        }
    );
    println!("Values per run:         {} (seed {})", r.head.count, r.seed);
    println!(
        "DJN fixed-base table:   {:.1} MB, built in {:.3} s",
        r.djn_table_bytes as f64 / 1e6,
        r.djn_table_build_seconds
    );
    match (&r.phe, &r.phe_note) {
        (Some(info), _) => println!(
            "phe:                    {} on Python {}, gmpy2 {} (at most {} values)",
            info.phe_version,
            info.python,
            if info.gmpy2 {
                "yes"
            } else {
                "no: pure-Python big integers"
            },
            PHE_MAX_VALUES
        ),
        (None, Some(why)) => println!("phe:                    {why}"),
        (None, None) => {}
    }
    for t in &r.tables {
        println!();
        println!(
            "{:<40} {:>10} {:>14} {:>9}",
            t.operation, "ops/s", "ops/CPU-s", "vs phe"
        );
        for w in &t.ways {
            println!(
                "  {:<38} {:>10.1} {:>14} {:>9}",
                w.name,
                w.ops_per_s,
                w.ops_per_cpu_s.map_or("n/a".into(), |c| format!("{c:.1}")),
                w.vs_phe.map_or("n/a".into(), |x| format!("{x:.2}x")),
            );
        }
    }
    if !r.operations.is_empty() {
        println!();
        print_rows("One thread, call by call (linesig):", &r.operations);
    }
    println!();
    println!("Total time:             {total_seconds:.1} s");
    match r.phe_cross_decrypt {
        Some((ok, total)) => println!(
            "Checks:                 {} round-trip failures; phe decrypted {ok} of {total} linesig ciphertexts",
            r.round_trip_failures
        ),
        None => println!("Checks:                 {} round-trip failures", r.round_trip_failures),
    }
    println!("STATUS: {}", r.head.status);
}
