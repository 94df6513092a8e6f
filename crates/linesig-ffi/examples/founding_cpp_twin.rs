//! The Rust twin of `bindings/cpp/bench/founding_bench.cpp`'s one-call rows: ML-DSA
//! keygen, sign (32-byte messages, the same 1,024 cycled) and single-signature verify on
//! a one-worker engine, at 44/65/87, on the same seeds and messages, through linesig's
//! Rust API (libcrux underneath for keygen and signing). It prints one line per row,
//! `row<TAB>name<TAB>ns<TAB>repetitions` (the median of the repetitions' means), so `scripts/bench-cpp.sh` can divide: what
//! the C ABI and the C++ wrapper add to each call.
//!
//! `cargo run --release -p linesig-ffi --example founding_cpp_twin -- [--min-time S] [--repetitions N]`

use linesig::mldsa::{self, ParameterSet};
use linesig::{Engine, Item, Scheme};
use std::hint::black_box;
use std::time::Instant;

const SIGN_MESSAGES: u32 = 1024;

/// The C++ program's `seed_of`: i little-endian in the first four bytes, 0x5e last.
fn seed_of(i: u32) -> [u8; 32] {
    let mut seed = [0u8; 32];
    seed[..4].copy_from_slice(&i.to_le_bytes());
    seed[31] = 0x5e;
    seed
}

/// The C++ program's `message_of`: byte b is i·131 + b·7 (mod 256).
fn message_of(i: u32, len: usize) -> Vec<u8> {
    (0..len)
        .map(|b| (i.wrapping_mul(131) as usize + b * 7) as u8)
        .collect()
}

/// `repetitions` runs of `body(i)` for i = 0, 1, … until `min_time` seconds have
/// passed, each giving a mean; prints the median of those means (google-benchmark's
/// `median` aggregate over its repetitions).
fn row(name: &str, min_time: f64, repetitions: usize, mut body: impl FnMut(u32)) {
    for i in 0..16 {
        body(i); // warm-up: caches, the engine's pool
    }
    let mut means: Vec<f64> = (0..repetitions)
        .map(|_| {
            let start = Instant::now();
            let mut i = 0u32;
            while start.elapsed().as_secs_f64() < min_time {
                body(i);
                i += 1;
            }
            start.elapsed().as_secs_f64() * 1e9 / f64::from(i)
        })
        .collect();
    means.sort_by(f64::total_cmp);
    let median = means[means.len() / 2];
    println!("row\t{name}\t{median:.1}\t{repetitions}");
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let min_time: f64 = args
        .iter()
        .position(|a| a == "--min-time")
        .map(|i| args[i + 1].parse().expect("--min-time S"))
        .unwrap_or(0.5);
    let repetitions: usize = args
        .iter()
        .position(|a| a == "--repetitions")
        .map(|i| args[i + 1].parse().expect("--repetitions N"))
        .unwrap_or(5);
    for (name, set) in [
        ("mldsa44", ParameterSet::MlDsa44),
        ("mldsa65", ParameterSet::MlDsa65),
        ("mldsa87", ParameterSet::MlDsa87),
    ] {
        row(&format!("{name}_keygen"), min_time, repetitions, |i| {
            black_box(mldsa::generate_key_pair(set, seed_of(i)));
        });
        let pair = mldsa::generate_key_pair(set, seed_of(1));
        let msgs: Vec<Vec<u8>> = (0..SIGN_MESSAGES).map(|i| message_of(i, 32)).collect();
        row(&format!("{name}_sign/32"), min_time, repetitions, |i| {
            let msg = &msgs[(i % SIGN_MESSAGES) as usize];
            black_box(mldsa::sign(set, &pair.signing_key, msg, &[], [0; 32]).expect("sign"));
        });
        let msg = message_of(1, 32);
        let sig = mldsa::sign(set, &pair.signing_key, &msg, &[], [0; 32]).expect("sign");
        let engine = Engine::builder()
            .scheme(Scheme::MlDsa(set))
            .workers(1)
            .build()
            .expect("engine");
        row(&format!("{name}_verify/32"), min_time, repetitions, |_| {
            let verdicts = engine.verify(&[Item::new(&pair.public_key, &msg, &sig)]);
            assert!(verdicts[0].is_valid(), "a valid signature was rejected");
        });
    }
}
