//! linesig's `ifma` backend against ed25519-simd on one thread: the same seeded items
//! (distinct keys, one message each), both verifiers timed in turn in one process, each
//! rate the median of the rounds, every verdict checked against the expected one.
//!
//! Usage: yardstick-ed25519-simd [COUNT] [MESSAGE_BYTES] [ROUNDS]

use ed25519_dalek::{Signer, SigningKey};
use ed25519_simd::{DalekVerifier, VerifyInput};
use linesig::{Backend, Engine, Item, Policy, Scheme, Verdict};
use rand::{Rng, RngCore, SeedableRng};
use std::time::Instant;

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

fn main() {
    let arg = |i: usize, default: usize| {
        std::env::args()
            .nth(i)
            .map_or(default, |s| s.parse().expect("a number"))
    };
    let (count, msg_len, rounds) = (arg(1, 20_000), arg(2, 32), arg(3, 5));
    if !Backend::Ifma.is_supported() {
        eprintln!("this CPU lacks AVX-512 IFMA: neither ed25519-simd nor linesig's ifma backend runs here");
        std::process::exit(2);
    }

    // Seeded items; every 64th signature corrupted when LINESIG_INVALID is set.
    let invalid_every = std::env::var("LINESIG_INVALID").map_or(0, |v| v.parse().unwrap_or(64));
    let mut rng = rand_chacha::ChaCha20Rng::seed_from_u64(42);
    let mut keys = Vec::with_capacity(count);
    let mut msgs = Vec::with_capacity(count);
    let mut sigs = Vec::with_capacity(count);
    for i in 0..count {
        let key = SigningKey::generate(&mut rng);
        let mut msg = vec![0u8; msg_len];
        rng.fill_bytes(&mut msg);
        let mut sig = key.sign(&msg).to_bytes();
        if invalid_every > 0 && i % invalid_every == invalid_every - 1 {
            sig[rng.gen_range(0..32)] ^= 1 << rng.gen_range(0..8);
        }
        keys.push(key.verifying_key().to_bytes());
        msgs.push(msg);
        sigs.push(sig);
    }

    let engine = Engine::builder()
        .scheme(Scheme::Ed25519(Policy::Strict))
        .backend(Backend::Ifma)
        .workers(1)
        .build()
        .expect("engine");
    let items: Vec<Item<'_>> = (0..count)
        .map(|i| Item {
            public_key: &keys[i],
            message: &msgs[i],
            signature: &sigs[i],
            context: &[],
        })
        .collect();
    let inputs: Vec<VerifyInput<'_>> = (0..count)
        .map(|i| VerifyInput {
            public_key: keys[i],
            signature: sigs[i],
            message: &msgs[i],
        })
        .collect();
    let mut simd = DalekVerifier::new();
    let mut simd_out = vec![false; count];

    let (mut ours, mut theirs) = (Vec::new(), Vec::new());
    for _ in 0..rounds {
        let t = Instant::now();
        let verdicts = engine.verify(&items);
        ours.push(count as f64 / t.elapsed().as_secs_f64());

        let t = Instant::now();
        for (chunk, out) in inputs.chunks(512).zip(simd_out.chunks_mut(512)) {
            simd.verify_batch(chunk, out);
        }
        theirs.push(count as f64 / t.elapsed().as_secs_f64());

        for i in 0..count {
            let expect = invalid_every == 0 || i % invalid_every != invalid_every - 1;
            assert_eq!(verdicts[i] == Verdict::Valid, expect, "linesig item {i}");
            assert_eq!(simd_out[i], expect, "ed25519-simd item {i}");
        }
    }
    let (ours, theirs) = (median(ours), median(theirs));
    println!(
        "{count} signatures, {msg_len}-byte messages, distinct keys, strict, 1 thread, median of {rounds}"
    );
    println!("linesig ifma:            {ours:>10.0} sigs/s");
    println!("ed25519-simd (512/call): {theirs:>10.0} sigs/s");
    println!("linesig / ed25519-simd:  {:>10.2}x", ours / theirs);
}
