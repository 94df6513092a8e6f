//! linesig's batch equation (`zip215`, on and off) against commonware-cryptography-
//! curve25519 2026.10.0's `verify_batch` and ed25519-zebra's `batch::Verifier`: one
//! thread each, the same keys, signatures and message bytes, rounds interleaved so a
//! drifting host moves every side alike; medians.
//!
//! commonware signs and verifies `union_unique(namespace, message)` (its namespaced
//! framing); linesig and zebra are given exactly those framed bytes, so all three hash
//! the same input. commonware answers one bit per batch (all valid or not); linesig one
//! verdict per signature; zebra one bit per batch too. With invalid signatures in the
//! mix only linesig's two settings are compared (the batch path must find each invalid
//! one, and should stay near the per-signature path's rate).
//!
//! Usage: yardstick-commonware [--batches 64,1024,4096] [--msg-size 32]
//!        [--msgs-per-key 1] [--signatures 16384] [--rounds 7] [--seed 42]
//!        [--invalid none|1/64|1/1024|all]... [--only-linesig]
//!
//! `LINESIG_BACKEND=avx2` measures linesig's AVX2 path; commonware picks its own (IFMA
//! where the CPU has it, else portable: printed).

use commonware_codec::DecodeExt;
use commonware_cryptography::{BatchEntry, BatchVerifier as _};
use commonware_cryptography_curve25519::signing::{Signature, VerifyingKey};
use commonware_parallel::Sequential;
use ed25519_dalek::{Signer, SigningKey};
use linesig::{Engine, Item, Policy, Scheme, Verdict};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha20Rng;
use std::time::{Duration, Instant};

const NAMESPACE: &[u8] = b"linesig-yardstick";

struct Args {
    batches: Vec<usize>,
    msg_size: usize,
    msgs_per_key: usize,
    signatures: usize,
    rounds: usize,
    seed: u64,
    mixes: Vec<Mix>,
    /// `--only-linesig`: time linesig with the batch equation on and nothing else (for a
    /// profiler).
    only_linesig: bool,
}

/// Which signatures are corrupted: none, one in every `n`, or all.
#[derive(Clone, Copy)]
enum Mix {
    None,
    OneIn(usize),
    All,
}

impl Mix {
    fn parse(s: &str) -> Result<Mix, String> {
        match s {
            "none" => Ok(Mix::None),
            "all" => Ok(Mix::All),
            _ => s
                .strip_prefix("1/")
                .and_then(|n| n.parse().ok())
                .filter(|&n: &usize| n >= 1)
                .map(Mix::OneIn)
                .ok_or_else(|| format!("--invalid: expected none, all or 1/N, got {s}")),
        }
    }

    fn name(self) -> String {
        match self {
            Mix::None => "all valid".into(),
            Mix::OneIn(n) => format!("1 invalid in {n}"),
            Mix::All => "all invalid".into(),
        }
    }

    fn corrupts(self, i: usize) -> bool {
        match self {
            Mix::None => false,
            Mix::OneIn(n) => i % n == n / 2,
            Mix::All => true,
        }
    }
}

fn parse_args() -> Result<Args, String> {
    let mut args = Args {
        batches: vec![64, 1024, 4096],
        msg_size: 32,
        msgs_per_key: 1,
        signatures: 16_384,
        rounds: 7,
        seed: 42,
        mixes: Vec::new(),
        only_linesig: false,
    };
    let mut it = std::env::args().skip(1);
    while let Some(flag) = it.next() {
        let mut value = || it.next().ok_or_else(|| format!("{flag} needs a value"));
        let number = |v: String| v.parse::<usize>().map_err(|e| format!("{flag}: {e}"));
        match flag.as_str() {
            "--batches" => {
                args.batches = value()?
                    .split(',')
                    .map(|b| b.parse::<usize>().map_err(|e| format!("--batches: {e}")))
                    .collect::<Result<_, _>>()?
            }
            "--msg-size" => args.msg_size = number(value()?)?,
            "--msgs-per-key" => args.msgs_per_key = number(value()?)?.max(1),
            "--signatures" => args.signatures = number(value()?)?,
            "--rounds" => args.rounds = number(value()?)?.max(1),
            "--seed" => args.seed = number(value()?)? as u64,
            "--invalid" => args.mixes.push(Mix::parse(&value()?)?),
            "--only-linesig" => args.only_linesig = true,
            _ => return Err(format!("unknown flag {flag}")),
        }
    }
    if args.batches.iter().any(|&b| b == 0) {
        return Err("--batches: sizes must be at least 1".into());
    }
    if args.mixes.is_empty() {
        args.mixes.push(Mix::None);
    }
    Ok(args)
}

/// The signed workload: keys, framed messages, signatures (both encodings).
struct Workload {
    keys: Vec<[u8; 32]>,
    framed: Vec<Vec<u8>>,
    raw: Vec<Vec<u8>>,
    signatures: Vec<[u8; 64]>,
}

impl Workload {
    fn new(args: &Args) -> Workload {
        let mut rng = ChaCha20Rng::seed_from_u64(args.seed);
        let n = args.signatures;
        let mut w = Workload {
            keys: Vec::with_capacity(n),
            framed: Vec::with_capacity(n),
            raw: Vec::with_capacity(n),
            signatures: Vec::with_capacity(n),
        };
        let mut key = SigningKey::from_bytes(&rng.gen());
        for i in 0..n {
            if i % args.msgs_per_key == 0 {
                key = SigningKey::from_bytes(&rng.gen());
            }
            let mut message = vec![0u8; args.msg_size];
            rng.fill(&mut message[..]);
            let framed = commonware_utils::union_unique(NAMESPACE, &message);
            w.signatures.push(key.sign(&framed).to_bytes());
            w.keys.push(key.verifying_key().to_bytes());
            w.framed.push(framed);
            w.raw.push(message);
        }
        w
    }

    /// The signatures with `mix` applied (a flipped bit in S's low byte).
    fn corrupted(&self, mix: Mix) -> Vec<[u8; 64]> {
        let mut out = self.signatures.clone();
        for (i, s) in out.iter_mut().enumerate() {
            if mix.corrupts(i) {
                s[40] ^= 1;
            }
        }
        out
    }
}

fn engine(batch: usize, batch_equation: bool) -> Engine {
    Engine::builder()
        .scheme(Scheme::Ed25519(Policy::Zip215))
        .workers(1)
        .batch_size(batch)
        .batch_equation(batch_equation)
        .build()
        .expect("an engine")
}

/// Time linesig over every batch of `batch` items; panics on a wrong verdict.
fn time_linesig(engine: &Engine, items: &[Item<'_>], batch: usize, mix: Mix) -> Duration {
    let start = Instant::now();
    let mut verdicts = Vec::with_capacity(items.len());
    for chunk in items.chunks(batch) {
        verdicts.extend(engine.verify(chunk));
    }
    let elapsed = start.elapsed();
    for (i, v) in verdicts.iter().enumerate() {
        assert_eq!(
            *v == Verdict::Valid,
            !mix.corrupts(i),
            "linesig (batch equation {}) on item {i}",
            engine.batch_equation()
        );
    }
    elapsed
}

fn time_commonware(
    keys: &[VerifyingKey],
    sigs: &[Signature],
    raw: &[Vec<u8>],
    batch: usize,
) -> Duration {
    let mut rng = commonware_utils::test_rng();
    let records: Vec<usize> = (0..keys.len()).collect();
    let start = Instant::now();
    for chunk in records.chunks(batch) {
        let ok = VerifyingKey::verify_batch(
            &mut rng,
            chunk,
            |_, &i| BatchEntry {
                namespace: NAMESPACE,
                message: &raw[i],
                public_key: &keys[i],
                signature: &sigs[i],
            },
            &Sequential,
        );
        assert!(ok, "commonware rejected an honest batch");
    }
    start.elapsed()
}

fn time_zebra(w: &Workload, batch: usize) -> Duration {
    let start = Instant::now();
    for chunk in (0..w.keys.len()).collect::<Vec<_>>().chunks(batch) {
        let mut verifier = ed25519_zebra::batch::Verifier::new();
        for &i in chunk {
            verifier.queue((
                ed25519_zebra::VerificationKeyBytes::from(w.keys[i]),
                ed25519_zebra::Signature::from_bytes(&w.signatures[i]),
                &w.framed[i],
            ));
        }
        assert!(verifier.verify(rand::thread_rng()).is_ok(), "zebra rejected an honest batch");
    }
    start.elapsed()
}

fn median(mut d: Vec<Duration>) -> Duration {
    d.sort();
    d[d.len() / 2]
}

fn cpu_model() -> String {
    std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|c| {
            let field = |name: &str| {
                c.lines()
                    .find(|l| l.starts_with(name))
                    .and_then(|l| l.split(':').nth(1))
                    .map(|v| v.trim().to_string())
            };
            Some(format!(
                "{} (family {} model {})",
                field("model name")?,
                field("cpu family")?,
                field("model")?
            ))
        })
        .unwrap_or_else(|| "unknown CPU".into())
}

fn main() {
    let args = match parse_args() {
        Ok(a) => a,
        Err(e) => {
            eprintln!("yardstick-commonware: {e}");
            std::process::exit(2);
        }
    };
    let w = Workload::new(&args);
    let backend = engine(64, true).backend();
    println!("CPU: {}", cpu_model());
    println!(
        "linesig backend {backend}; {} signatures per round, {}-byte messages ({} framed), \
         {} per key; {} rounds, medians; one thread each",
        args.signatures,
        args.msg_size,
        w.framed[0].len(),
        args.msgs_per_key,
        args.rounds
    );
    let cw_keys: Vec<VerifyingKey> = w
        .keys
        .iter()
        .map(|k| VerifyingKey::decode(k.to_vec()).expect("a 32-byte key"))
        .collect();
    let cw_sigs: Vec<Signature> = w
        .signatures
        .iter()
        .map(|s| Signature::decode(s.to_vec()).expect("a 64-byte signature"))
        .collect();
    for &mix in &args.mixes {
        let sigs = w.corrupted(mix);
        let items: Vec<Item<'_>> = (0..w.keys.len())
            .map(|i| Item::new(&w.keys[i], &w.framed[i], &sigs[i]))
            .collect();
        println!("\n{}:", mix.name());
        println!(
            "{:>6}  {:>14} {:>14} {:>14} {:>14}  {:>8} {:>8} {:>8}",
            "batch",
            "linesig on/s",
            "linesig off/s",
            "commonware/s",
            "zebra/s",
            "on/cw",
            "on/zebra",
            "on/off"
        );
        for &batch in &args.batches {
            // One work unit per call: the engine runs a call's first unit on the calling
            // thread and the rest on its workers, so a smaller unit would use two threads.
            let (on, off) = (engine(batch, true), engine(batch, false));
            let honest = matches!(mix, Mix::None);
            let mut t: [Vec<Duration>; 4] = Default::default();
            for _ in 0..args.rounds {
                t[0].push(time_linesig(&on, &items, batch, mix));
                if args.only_linesig {
                    continue;
                }
                t[1].push(time_linesig(&off, &items, batch, mix));
                if honest {
                    t[2].push(time_commonware(&cw_keys, &cw_sigs, &w.raw, batch));
                    t[3].push(time_zebra(&w, batch));
                }
            }
            let rate = |d: &Vec<Duration>| {
                (!d.is_empty()).then(|| items.len() as f64 / median(d.clone()).as_secs_f64())
            };
            let [r_on, r_off, r_cw, r_zebra] = [0, 1, 2, 3].map(|i| rate(&t[i]));
            let cell = |r: Option<f64>| r.map_or("-".into(), |r| format!("{:.0}", r));
            let ratio = |a: Option<f64>, b: Option<f64>| match (a, b) {
                (Some(a), Some(b)) => format!("{:.2}", a / b),
                _ => "-".into(),
            };
            println!(
                "{:>6}  {:>14} {:>14} {:>14} {:>14}  {:>8} {:>8} {:>8}",
                batch,
                cell(r_on),
                cell(r_off),
                cell(r_cw),
                cell(r_zebra),
                ratio(r_on, r_cw),
                ratio(r_on, r_zebra),
                ratio(r_on, r_off)
            );
            let s = on.batch_equation_stats().unwrap_or_default();
            eprintln!(
                "  batch {batch}: units held {}, found few {}, fell back {}, skipped {}",
                s.held, s.found_few, s.fell_back, s.skipped
            );
        }
    }
}
