//! The Rust twin of `bindings/nim/founding_bench.nim`: the same operations, counts and
//! order, called through linesig's Rust API instead of the C ABI, printing the same
//! `op` lines (name, mean ms, median ms, min ms, iterations). `scripts/bench-nim.sh`
//! runs both and divides: what the C ABI and Nim add to each call.
//!
//! `cargo run --release -p linesig-ffi --example founding_rust -- [--short] [--batch N]`

use linesig::leansig::{epoch_context, keys, Instance, SecretKey};
use linesig::{Backend, Engine, Item, Scheme};
use linesig_aggregate as aggregate;
use rand::rngs::StdRng;
use rand::SeedableRng;
use std::time::Instant;

struct Op {
    name: String,
    seconds: Vec<f64>,
}

fn bench(ops: &mut Vec<Op>, name: &str, iterations: usize, warmup: usize, mut body: impl FnMut()) {
    for _ in 0..warmup {
        body();
    }
    let seconds = (0..iterations)
        .map(|_| {
            let t = Instant::now();
            body();
            t.elapsed().as_secs_f64()
        })
        .collect();
    ops.push(Op {
        name: name.to_string(),
        seconds,
    });
}

fn key(instance: Instance, seed: [u8; 32], count: u64) -> SecretKey {
    let backend = Backend::best_for(Scheme::LeanSig(instance));
    keys::key_gen(instance, backend, &mut StdRng::from_seed(seed), 0, count)
        .expect("key")
        .1
}

fn engine(instance: Instance, workers: Option<usize>) -> Engine {
    let builder = Engine::builder().scheme(Scheme::LeanSig(instance));
    match workers {
        Some(w) => builder.workers(w),
        None => builder,
    }
    .build()
    .expect("engine")
}

/// The rows so far, and whether this is the quick `--short` run.
struct Rows {
    ops: Vec<Op>,
    short: bool,
}

impl Rows {
    /// `name` timed `full` times (`quick` with `--short`) after `warmup` untimed calls
    /// (none with `--short`).
    fn bench(
        &mut self,
        name: &str,
        (full, quick): (usize, usize),
        warmup: usize,
        body: impl FnMut(),
    ) {
        let (iterations, warmup) = if self.short {
            (quick, 0)
        } else {
            (full, warmup)
        };
        bench(&mut self.ops, name, iterations, warmup, body);
    }
}

const MESSAGE: [u8; 32] = {
    let mut m = [0u8; 32];
    let mut i = 0;
    while i < 32 {
        m[i] = (i * 7) as u8;
        i += 1;
    }
    m
};

/// L18: keygen of 100 epochs, sign, verify one signature on one worker.
fn l18_rows(rows: &mut Rows) {
    let (mut seed, mut made) = ([0u8; 32], 0u8);
    rows.bench("LeanSig Keypair Gen (L18, 100 epochs)", (10, 1), 3, || {
        seed[0] = made;
        made = made.wrapping_add(1);
        std::hint::black_box(key(Instance::L18, seed, 100));
    });
    let mut l18 = key(Instance::L18, [1; 32], 100);
    let l18_pk = l18.public_key();
    let (mut epoch, mut l18_sig) = (0u32, Vec::new());
    rows.bench("LeanSig Signing (L18)", (30, 3), 3, || {
        l18_sig = l18.sign(epoch, &MESSAGE).expect("sign");
        epoch += 1;
    });
    let one = engine(Instance::L18, Some(1));
    let ctx = epoch_context(epoch - 1);
    rows.bench("LeanSig Verification (L18)", (30, 3), 3, || {
        let item = Item::new(&l18_pk, &MESSAGE, &l18_sig).with_context(&ctx);
        assert!(one.verify(&[item])[0].is_valid());
    });
}

/// devnet-4: keygen, sign, verify one signature, aggregate two and verify the proof.
/// Returns the key, to sign the batch with from epoch `.1`.
fn devnet4_rows(rows: &mut Rows) -> (SecretKey, u32) {
    let mut d4_keys = Vec::new();
    let mut seed = [0u8; 32];
    rows.bench(
        "devnet-4 Keypair Gen (131,072 epochs prepared)",
        (2, 1),
        0,
        || {
            seed[0] = 100 + d4_keys.len() as u8;
            d4_keys.push(key(Instance::Devnet4, seed, 1));
        },
    );
    let mut d4 = d4_keys.swap_remove(0);
    let d4_pk = d4.public_key();
    let (mut sigs, mut epochs, mut e) = (Vec::new(), Vec::new(), 0u32);
    rows.bench("devnet-4 Signing", (20, 2), 3, || {
        sigs.push(d4.sign(e, &MESSAGE).expect("sign"));
        epochs.push(epoch_context(e));
        e += 1;
    });
    let d4_one = engine(Instance::Devnet4, Some(1));
    rows.bench("devnet-4 Verification", (20, 2), 3, || {
        let item =
            Item::new(&d4_pk, &MESSAGE, sigs.last().unwrap()).with_context(epochs.last().unwrap());
        assert!(d4_one.verify(&[item])[0].is_valid());
    });
    let n = sigs.len();
    let pair: Vec<Item> = (n - 2..n)
        .map(|i| Item::new(&d4_pk, &MESSAGE, &sigs[i]).with_context(&epochs[i]))
        .collect();
    let mut proof = Vec::new();
    rows.bench("Aggregate 2 Sigs (devnet-4)", (5, 1), 1, || {
        proof = aggregate::prove(Instance::Devnet4, &pair)
            .expect("prove")
            .bytes;
    });
    rows.bench("Verify Aggregated (2 signers)", (5, 1), 1, || {
        aggregate::verify_aggregate(Instance::Devnet4, &pair, &proof).expect("verify");
    });
    (d4, e)
}

/// `batch` devnet-4 signatures of `key` from epoch `first`: verified on all cores,
/// aggregated, and the proof verified.
fn batch_rows(rows: &mut Rows, key: &mut SecretKey, first: u32, batch: usize) {
    let public_key = key.public_key();
    let mut messages = Vec::new();
    let mut signatures = Vec::new();
    let mut contexts = Vec::new();
    for (i, e) in (0..batch).zip(first..) {
        let mut m = MESSAGE;
        m[0] = i as u8;
        m[1] = (i >> 8) as u8;
        signatures.push(key.sign(e, &m).expect("sign"));
        messages.push(m);
        contexts.push(epoch_context(e));
    }
    let items: Vec<Item> = (0..batch)
        .map(|i| Item::new(&public_key, &messages[i], &signatures[i]).with_context(&contexts[i]))
        .collect();
    let all = engine(Instance::Devnet4, None);
    rows.bench(
        &format!("Batch Verify {batch} (devnet-4, all cores)"),
        (5, 1),
        1,
        || {
            assert!(all.verify(&items).iter().all(|v| v.is_valid()));
        },
    );
    let mut proof = Vec::new();
    rows.bench(
        &format!("Aggregate {batch} Sigs (devnet-4)"),
        (1, 1),
        0,
        || {
            proof = aggregate::prove(Instance::Devnet4, &items)
                .expect("prove")
                .bytes;
        },
    );
    rows.bench(
        &format!("Verify Aggregated ({batch} signers)"),
        (3, 1),
        0,
        || {
            aggregate::verify_aggregate(Instance::Devnet4, &items, &proof).expect("verify");
        },
    );
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let short = args.iter().any(|a| a == "--short");
    let batch: usize = args
        .iter()
        .position(|a| a == "--batch")
        .map(|i| args[i + 1].parse().expect("--batch N"))
        .unwrap_or(if short { 16 } else { 1024 });
    let mut rows = Rows {
        ops: Vec::new(),
        short,
    };
    l18_rows(&mut rows);
    let (mut d4, next_epoch) = devnet4_rows(&mut rows);
    batch_rows(&mut rows, &mut d4, next_epoch, batch);
    for op in &rows.ops {
        let mut sorted = op.seconds.clone();
        sorted.sort_by(f64::total_cmp);
        let mean = sorted.iter().sum::<f64>() / sorted.len() as f64;
        println!(
            "op\t{}\t{:.4}\t{:.4}\t{:.4}\t{}",
            op.name,
            mean * 1e3,
            sorted[sorted.len() / 2] * 1e3,
            sorted[0] * 1e3,
            sorted.len()
        );
    }
}
