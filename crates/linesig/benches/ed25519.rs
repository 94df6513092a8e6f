//! Ed25519 verification throughput per backend on one worker: 512 signatures under
//! distinct keys per iteration, 32- and 1024-byte messages, and the lanes sweep of the
//! lane backends. `cargo bench -p linesig --bench ed25519`.

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use ed25519_dalek::{Signer, SigningKey};
use linesig::{Backend, Engine, Item, Policy, Scheme};
use rand::{RngCore, SeedableRng};

const COUNT: usize = 512;

struct Workload {
    keys: Vec<[u8; 32]>,
    msgs: Vec<Vec<u8>>,
    sigs: Vec<[u8; 64]>,
}

impl Workload {
    fn new(msg_len: usize) -> Self {
        let mut rng = rand_chacha::ChaCha20Rng::seed_from_u64(7);
        let (mut keys, mut msgs, mut sigs) = (Vec::new(), Vec::new(), Vec::new());
        for _ in 0..COUNT {
            let key = SigningKey::generate(&mut rng);
            let mut msg = vec![0u8; msg_len];
            rng.fill_bytes(&mut msg);
            sigs.push(key.sign(&msg).to_bytes());
            keys.push(key.verifying_key().to_bytes());
            msgs.push(msg);
        }
        Workload { keys, msgs, sigs }
    }

    fn items(&self) -> Vec<Item<'_>> {
        (0..COUNT)
            .map(|i| Item::new(&self.keys[i], &self.msgs[i], &self.sigs[i]))
            .collect()
    }
}

fn engine(backend: Backend, lanes: Option<usize>) -> Engine {
    let mut b = Engine::builder()
        .scheme(Scheme::Ed25519(Policy::Strict))
        .backend(backend)
        .workers(1);
    if let Some(n) = lanes {
        b = b.lanes(n);
    }
    b.build().expect("a supported backend")
}

fn backends(c: &mut Criterion) {
    for msg_len in [32, 1024] {
        let workload = Workload::new(msg_len);
        let items = workload.items();
        let mut group = c.benchmark_group(format!("ed25519_strict_{msg_len}B"));
        group.throughput(Throughput::Elements(COUNT as u64));
        for backend in Backend::ALL
            .into_iter()
            .filter(|b| b.is_supported_for(Scheme::default()))
        {
            let engine = engine(backend, None);
            group.bench_function(BenchmarkId::from_parameter(backend), |b| {
                b.iter(|| engine.verify(&items))
            });
        }
        group.finish();
    }
}

fn lanes(c: &mut Criterion) {
    let workload = Workload::new(32);
    let items = workload.items();
    for backend in Backend::ALL
        .into_iter()
        .filter(|b| b.is_supported_for(Scheme::default()) && b.lanes(Scheme::default()) > 1)
    {
        let mut group = c.benchmark_group(format!("ed25519_lanes_{backend}"));
        group.throughput(Throughput::Elements(COUNT as u64));
        for n in 1..=backend.lanes(Scheme::default()) {
            let engine = engine(backend, Some(n));
            group.bench_function(BenchmarkId::from_parameter(n), |b| {
                b.iter(|| engine.verify(&items))
            });
        }
        group.finish();
    }
}

criterion_group!(benches, backends, lanes);
criterion_main!(benches);
