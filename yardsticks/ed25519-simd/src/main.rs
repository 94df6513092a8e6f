//! linesig's `avx512` backend against ed25519-simd on one thread: the same seeded items,
//! both verifiers timed in turn in one process (interleaved rounds), each rate the
//! median of the rounds, every verdict checked against the expected one.
//!
//! Usage: yardstick-ed25519-simd [COUNT] [MESSAGE_BYTES] [ROUNDS] [--invalid K]
//!        [--msgs-per-key M] [--policy strict|zip215|all]
//!
//! - `--invalid K`: every K-th signature has one bit flipped (in R or S), so both
//!   verifiers must reject it (`LINESIG_INVALID=K` does the same, for older scripts).
//! - `--msgs-per-key M`: each key signs M messages (1: distinct keys, the default).
//! - `--policy`: `strict` (Agave's `verify_strict`) against ed25519-simd's
//!   `DalekVerifier`, `zip215` against its `Zip215Verifier`; `all` runs both (default).
//!   ed25519-simd has no SIMD-0376 (`zip215-strict`) policy, so that one has no row.

use ed25519_dalek::{Signer, SigningKey};
use ed25519_simd::{DalekVerifier, VerifyInput, Zip215Verifier};
use linesig::{Backend, Engine, Item, Policy, Scheme, Verdict};
use rand::{Rng, RngCore, SeedableRng};
use std::time::Instant;

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

struct Args {
    count: usize,
    msg_len: usize,
    rounds: usize,
    invalid_every: usize,
    msgs_per_key: usize,
    policies: Vec<Policy>,
}

fn usage(why: &str) -> ! {
    eprintln!("yardstick-ed25519-simd: {why}");
    eprintln!(
        "usage: yardstick-ed25519-simd [COUNT] [MESSAGE_BYTES] [ROUNDS] [--invalid K] \
         [--msgs-per-key M] [--policy strict|zip215|all]"
    );
    std::process::exit(2);
}

fn parse_args() -> Args {
    let number = |flag: &str, v: Option<String>| -> usize {
        let v = v.unwrap_or_else(|| usage(&format!("{flag} needs a value")));
        v.parse()
            .unwrap_or_else(|_| usage(&format!("{flag}: '{v}' is not a number")))
    };
    let mut args = Args {
        count: 20_000,
        msg_len: 32,
        rounds: 5,
        invalid_every: std::env::var("LINESIG_INVALID").map_or(0, |v| v.parse().unwrap_or(64)),
        msgs_per_key: 1,
        policies: vec![Policy::Strict, Policy::Zip215],
    };
    let mut positional = 0;
    let mut it = std::env::args().skip(1);
    while let Some(a) = it.next() {
        match a.as_str() {
            "--invalid" => args.invalid_every = number("--invalid", it.next()),
            "--msgs-per-key" => args.msgs_per_key = number("--msgs-per-key", it.next()).max(1),
            "--policy" => {
                args.policies = match it.next().as_deref() {
                    Some("strict") => vec![Policy::Strict],
                    Some("zip215") => vec![Policy::Zip215],
                    Some("all") => vec![Policy::Strict, Policy::Zip215],
                    other => usage(&format!("--policy: {other:?} is not strict, zip215 or all")),
                }
            }
            "-h" | "--help" => usage("help"),
            _ if !a.starts_with('-') && positional < 3 => {
                let n = number("a positional argument", Some(a));
                match positional {
                    0 => args.count = n.max(1),
                    1 => args.msg_len = n,
                    _ => args.rounds = n.max(1),
                }
                positional += 1;
            }
            _ => usage(&format!("unknown argument '{a}'")),
        }
    }
    args
}

fn main() {
    let args = parse_args();
    let (count, msg_len, rounds, invalid_every) =
        (args.count, args.msg_len, args.rounds, args.invalid_every);
    if !Backend::Avx512.is_supported_for(Scheme::Ed25519(Policy::Strict)) {
        eprintln!("this CPU lacks AVX-512 IFMA: neither ed25519-simd nor linesig's ifma backend runs here");
        std::process::exit(2);
    }

    // Seeded items; every `invalid_every`-th signature corrupted.
    let mut rng = rand_chacha::ChaCha20Rng::seed_from_u64(42);
    let mut keys = Vec::with_capacity(count);
    let mut msgs = Vec::with_capacity(count);
    let mut sigs = Vec::with_capacity(count);
    let mut signer = SigningKey::generate(&mut rng);
    for i in 0..count {
        if i % args.msgs_per_key == 0 {
            signer = SigningKey::generate(&mut rng);
        }
        let mut msg = vec![0u8; msg_len];
        rng.fill_bytes(&mut msg);
        let mut sig = signer.sign(&msg).to_bytes();
        if invalid_every > 0 && i % invalid_every == invalid_every - 1 {
            sig[rng.gen_range(0..64)] ^= 1 << rng.gen_range(0..8);
        }
        keys.push(signer.verifying_key().to_bytes());
        msgs.push(msg);
        sigs.push(sig);
    }
    let expect = |i: usize| invalid_every == 0 || i % invalid_every != invalid_every - 1;

    let items: Vec<Item<'_>> = (0..count)
        .map(|i| Item::new(&keys[i], &msgs[i], &sigs[i]))
        .collect();
    let inputs: Vec<VerifyInput<'_>> = (0..count)
        .map(|i| VerifyInput {
            public_key: keys[i],
            signature: sigs[i],
            message: &msgs[i],
        })
        .collect();

    let keys_desc = if args.msgs_per_key == 1 {
        "distinct keys".to_string()
    } else {
        format!("{} messages per key", args.msgs_per_key)
    };
    let invalid_desc = if invalid_every == 0 {
        String::new()
    } else {
        format!(", 1 invalid in {invalid_every}")
    };
    println!(
        "{count} signatures, {msg_len}-byte messages, {keys_desc}{invalid_desc}, 1 thread, median of {rounds}"
    );
    for policy in args.policies {
        let engine = Engine::builder()
            .scheme(Scheme::Ed25519(policy))
            .backend(Backend::Avx512)
            .workers(1)
            .build()
            .expect("engine");
        let mut strict = DalekVerifier::new();
        let mut zip215 = Zip215Verifier::new();
        let mut simd_out = vec![false; count];
        let mut theirs_verify = |out: &mut [bool]| {
            for (chunk, out) in inputs.chunks(512).zip(out.chunks_mut(512)) {
                match policy {
                    Policy::Zip215 => zip215.verify_batch(chunk, out),
                    _ => strict.verify_batch(chunk, out),
                }
            }
        };

        let (mut ours, mut theirs) = (Vec::new(), Vec::new());
        for _ in 0..rounds {
            let t = Instant::now();
            let verdicts = engine.verify(&items);
            ours.push(count as f64 / t.elapsed().as_secs_f64());

            let t = Instant::now();
            theirs_verify(&mut simd_out);
            theirs.push(count as f64 / t.elapsed().as_secs_f64());

            for i in 0..count {
                assert_eq!(verdicts[i] == Verdict::Valid, expect(i), "linesig item {i}");
                assert_eq!(simd_out[i], expect(i), "ed25519-simd item {i}");
            }
        }
        let (ours, theirs) = (median(ours), median(theirs));
        let theirs_name = match policy {
            Policy::Zip215 => "Zip215Verifier",
            _ => "DalekVerifier",
        };
        println!("policy {policy}:");
        println!("  linesig ifma:                {ours:>10.0} sigs/s");
        println!("  ed25519-simd {theirs_name:<15} {theirs:>10.0} sigs/s (512 per call)");
        println!("  linesig / ed25519-simd:      {:>10.2}x", ours / theirs);
    }
}
