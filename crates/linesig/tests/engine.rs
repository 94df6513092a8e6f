//! The engine's contract: one verdict per item, in input order, equal to the single-item
//! verdict, whatever the workers, batch size, input source or mix of keys.

use ed25519_dalek::{Signer, SigningKey};
use linesig::{
    ed25519, Backend, Engine, Error, Item, ItemBatch, Policy, Reject, Scheme, Span, Verdict,
};
use rand::{Rng, RngCore, SeedableRng};
use rand_chacha::ChaCha20Rng;

/// Items over a few hot keys and many cold ones, about a third of them invalid in
/// varied ways (wrong lengths, bit flips, S ≥ L, small-order key).
fn mixed_items(n: usize, seed: u64) -> Vec<(Vec<u8>, Vec<u8>, Vec<u8>)> {
    let mut rng = ChaCha20Rng::seed_from_u64(seed);
    let hot: Vec<SigningKey> = (0..3).map(|_| SigningKey::generate(&mut rng)).collect();
    (0..n)
        .map(|i| {
            let key = if rng.gen_bool(0.6) {
                hot[i % 3].clone()
            } else {
                SigningKey::generate(&mut rng)
            };
            let mut msg = vec![0u8; rng.gen_range(0..100)];
            rng.fill_bytes(&mut msg);
            let mut sig = key.sign(&msg).to_bytes().to_vec();
            let mut pk = key.verifying_key().to_bytes().to_vec();
            match rng.gen_range(0..12) {
                0 => sig.truncate(rng.gen_range(0..64)),
                1 => pk.push(0),
                2 => sig[rng.gen_range(0..64)] ^= 1 << rng.gen_range(0..8),
                3 => sig[63] |= 0xf0,
                4 => pk = vec![0u8; 32], // y = 0: a point of order 4
                _ => {}
            }
            (pk, msg, sig)
        })
        .collect()
}

fn as_items(owned: &[(Vec<u8>, Vec<u8>, Vec<u8>)]) -> Vec<Item<'_>> {
    owned
        .iter()
        .map(|(p, m, s)| Item {
            public_key: p,
            message: m,
            signature: s,
            context: &[],
        })
        .collect()
}

#[test]
fn verdict_order_and_count_survive_any_workers_and_batch_size() {
    let owned = mixed_items(700, 1);
    let items = as_items(&owned);
    for policy in Policy::ALL {
        let expected: Vec<Verdict> = items.iter().map(|it| ed25519::verify(policy, it)).collect();
        let valid = expected.iter().filter(|v| v.is_valid()).count();
        assert!(
            valid > 300 && valid < 650,
            "the mix has both kinds: {valid}"
        );
        for backend in Backend::ALL
            .into_iter()
            .filter(|b| b.is_supported_for(Scheme::default()))
        {
            for workers in [1, 2, 3, 8] {
                for batch in [1, 2, 3, 4, 5, 7, 64, 512, 4096] {
                    let engine = Engine::builder()
                        .scheme(Scheme::Ed25519(policy))
                        .backend(backend)
                        .workers(workers)
                        .batch_size(batch)
                        .build()
                        .unwrap();
                    assert_eq!(
                        engine.verify(&items),
                        expected,
                        "{policy} on {backend}, workers {workers} batch {batch}"
                    );
                }
            }
        }
    }
}

#[test]
fn columnar_batches_give_the_same_verdicts() {
    let owned = mixed_items(300, 2);
    let items = as_items(&owned);
    let engine = Engine::builder().workers(2).batch_size(32).build().unwrap();
    let expected = engine.verify(&items);

    let batch: ItemBatch = items.iter().copied().collect();
    assert_eq!(batch.len(), items.len());
    assert_eq!(engine.verify_batch(&batch), expected);

    let mut out = vec![Verdict::Valid; items.len()];
    engine.verify_into(items.as_slice(), &mut out).unwrap();
    assert_eq!(out, expected);
    assert!(matches!(
        engine.verify_into(items.as_slice(), &mut out[1..]),
        Err(Error::OutputLength { .. })
    ));

    let counted = std::sync::atomic::AtomicUsize::new(0);
    let with_progress = engine.verify_with_progress(items.as_slice(), &|n| {
        counted.fetch_add(n, std::sync::atomic::Ordering::Relaxed);
    });
    assert_eq!(with_progress, expected);
    assert_eq!(counted.into_inner(), items.len());
}

#[test]
fn batch_spans_are_bounds_checked() {
    let spans = vec![linesig::item::ItemSpans {
        public_key: Span { offset: 0, len: 32 },
        message: Span { offset: 32, len: 0 },
        signature: Span {
            offset: 10,
            len: 64,
        },
        context: Span::default(),
    }];
    let err = ItemBatch::from_parts(vec![0u8; 70], spans.clone()).unwrap_err();
    assert!(
        matches!(err, Error::SpanOutOfBounds { index: 0, .. }),
        "{err}"
    );
    let batch = ItemBatch::from_parts(vec![0u8; 74], spans).unwrap();
    let overflow = vec![linesig::item::ItemSpans {
        public_key: Span {
            offset: usize::MAX,
            len: 2,
        },
        ..Default::default()
    }];
    assert!(ItemBatch::from_parts(vec![0u8; 74], overflow).is_err());
    let engine = Engine::builder().workers(1).build().unwrap();
    // Overlapping fields are fine; these bytes are simply not a valid signature.
    assert!(!engine.verify_batch(&batch)[0].is_valid());
}

#[test]
fn builder_rejects_bad_configuration_with_typed_errors() {
    assert!(matches!(
        Engine::builder().workers(0).build(),
        Err(Error::ZeroWorkers)
    ));
    // A worker count past the limit is refused before any thread starts (rayon would
    // start 65,535 of them for a million, which takes minutes).
    assert!(matches!(
        Engine::builder().workers(1_000_000).build(),
        Err(Error::TooManyWorkers {
            requested: 1_000_000,
            max: 1024
        })
    ));
    assert!(linesig::available_cores() <= linesig::MAX_WORKERS);
    assert!(matches!(
        Engine::builder().batch_size(0).build(),
        Err(Error::ZeroBatchSize)
    ));
    let err = "avx1024".parse::<linesig::Backend>().unwrap_err();
    assert!(err.to_string().contains("not available"), "{err}");
    for backend in Backend::ALL {
        assert_eq!(backend.name().parse::<Backend>().unwrap(), backend);
        if !backend.is_supported_for(Scheme::default()) {
            assert!(matches!(
                Engine::builder().backend(backend).build(),
                Err(Error::UnsupportedBackend { backend: b, .. }) if b == backend
            ));
        }
    }
    assert!("zip-999".parse::<Policy>().is_err());
    for p in Policy::ALL {
        assert_eq!(p.name().parse::<Policy>().unwrap(), p);
    }
}

#[test]
fn empty_and_degenerate_inputs_never_panic() {
    let engine = Engine::builder().workers(2).batch_size(3).build().unwrap();
    assert!(engine.verify(&[]).is_empty());
    let empty = Item {
        public_key: &[],
        message: &[],
        signature: &[],
        context: &[],
    };
    let huge_msg = vec![0xabu8; 1 << 20];
    let big = Item {
        public_key: &[1u8; 32],
        message: &huge_msg,
        signature: &[2u8; 64],
        context: &[],
    };
    let verdicts = engine.verify(&[empty, big, empty]);
    assert_eq!(verdicts[0], Verdict::Invalid(Reject::BadLength));
    assert!(!verdicts[1].is_valid());
    assert_eq!(verdicts[2], Verdict::Invalid(Reject::BadLength));
}

#[test]
fn ed25519_rejects_a_context_rather_than_ignoring_it() {
    let mut rng = ChaCha20Rng::seed_from_u64(4);
    let key = SigningKey::generate(&mut rng);
    let sig = key.sign(b"msg").to_bytes();
    let pk = key.verifying_key().to_bytes();
    let item = Item::new(&pk, b"msg", &sig);
    for backend in Backend::ALL
        .into_iter()
        .filter(|b| b.is_supported_for(Scheme::default()))
    {
        let engine = Engine::builder().backend(backend).build().unwrap();
        assert_eq!(engine.verify(&[item]), vec![Verdict::Valid]);
        assert_eq!(
            engine.verify(&[item.with_context(b"ctx")]),
            vec![Verdict::Invalid(Reject::BadContext)]
        );
    }
}

/// The hot-key cache: hot keys earn tables and hit; a stream of fresh keys earns none
/// and stays within the bound; a bound too small for one table is a typed error.
#[test]
fn key_cache_admits_hot_keys_only() {
    let mut rng = ChaCha20Rng::seed_from_u64(44);
    let hot: Vec<SigningKey> = (0..4).map(|_| SigningKey::generate(&mut rng)).collect();
    let owned: Vec<(Vec<u8>, Vec<u8>, Vec<u8>)> = (0..600)
        .map(|i| {
            // Every other signature by a hot key, the rest by fresh keys.
            let key = if i % 2 == 0 {
                hot[i / 2 % 4].clone()
            } else {
                SigningKey::generate(&mut rng)
            };
            let msg = (i as u32).to_le_bytes().to_vec();
            let sig = key.sign(&msg).to_bytes().to_vec();
            (key.verifying_key().to_bytes().to_vec(), msg, sig)
        })
        .collect();
    let items = as_items(&owned);
    for backend in Backend::ALL
        .into_iter()
        .filter(|b| b.is_supported_for(Scheme::default()))
    {
        let engine = Engine::builder()
            .backend(backend)
            .workers(2)
            .batch_size(100)
            .key_cache(8 << 20)
            .build()
            .unwrap();
        for _ in 0..3 {
            assert!(engine.verify(&items).iter().all(|v| v.is_valid()));
        }
        let s = engine.key_cache_stats().unwrap();
        assert_eq!(
            (s.entries, s.admissions, s.evictions),
            (4, 4, 0),
            "{backend}: {s:?}"
        );
        assert!(s.hit_rate() > 0.4, "{backend}: {s:?}");
        assert!(s.used_bytes <= s.capacity_bytes, "{backend}: {s:?}");
    }
    let off = Engine::builder().build().unwrap();
    assert!(off.key_cache_stats().is_none());
    assert!(matches!(
        Engine::builder().key_cache(50_000).build(),
        Err(Error::KeyCacheTooSmall { bytes: 50_000, .. })
    ));
}

/// A sibling engine runs another scheme on the same pool: same workers and batch size,
/// its own policy's verdicts, no key cache, and the parent keeps working beside it.
#[test]
fn a_sibling_shares_the_pool_and_keeps_its_own_policy() {
    let owned = mixed_items(300, 9);
    let items = as_items(&owned);
    let parent = Engine::builder()
        .scheme(Scheme::Ed25519(Policy::Zip215))
        .workers(2)
        .batch_size(16)
        .key_cache(1 << 20)
        .build()
        .unwrap();
    for policy in Policy::ALL {
        let sibling = parent.sibling(Scheme::Ed25519(policy)).unwrap();
        assert_eq!((sibling.workers(), sibling.batch_size()), (2, 16));
        assert_eq!(sibling.backend(), parent.backend());
        assert!(sibling.key_cache_stats().is_none());
        let expected: Vec<Verdict> = items.iter().map(|it| ed25519::verify(policy, it)).collect();
        assert_eq!(sibling.verify(&items), expected, "{policy}");
    }
    let expected: Vec<Verdict> = items
        .iter()
        .map(|it| ed25519::verify(Policy::Zip215, it))
        .collect();
    assert_eq!(parent.verify(&items), expected);
    let mldsa = parent.sibling("mldsa44".parse().unwrap()).unwrap();
    assert_eq!(mldsa.scheme().name(), "mldsa44");
}

/// A caller's pool: one call run on it (`Engine::verify_into_on`), from outside the pool
/// and from inside it, and the caller's own work on the engine's (`Engine::thread_pool`),
/// with the same verdicts as on the engine's own workers.
/// A strict engine of two workers, units of 16 and a small key cache.
fn small_cached_engine() -> Engine {
    Engine::builder()
        .workers(2)
        .batch_size(16)
        .key_cache(1 << 20)
        .build()
        .unwrap()
}

/// The reference path's strict verdicts, one per item.
fn strict_reference(items: &[Item<'_>]) -> Vec<Verdict> {
    items
        .iter()
        .map(|it| ed25519::verify(Policy::Strict, it))
        .collect()
}

#[test]
fn a_callers_pool_gives_the_same_verdicts() {
    let owned = mixed_items(500, 10);
    let items = as_items(&owned);
    let expected = strict_reference(&items);
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(3)
        .build()
        .unwrap();
    let engine = small_cached_engine();
    for len in [0, 1, 2, 3, 100, 500] {
        let mut out = vec![Verdict::Valid; len];
        engine
            .verify_into_on(&pool, &items[..len], &mut out)
            .unwrap();
        assert_eq!(out, expected[..len], "{len} items");
        let mut out = vec![Verdict::Valid; len];
        pool.install(|| engine.verify_into_on(&pool, &items[..len], &mut out))
            .unwrap();
        assert_eq!(out, expected[..len], "{len} items, from inside the pool");
    }
    let mut short = vec![Verdict::Valid; 2];
    assert!(matches!(
        engine.verify_into_on(&pool, &items[..3], &mut short),
        Err(Error::OutputLength { .. })
    ));
    let own = engine.thread_pool();
    assert_eq!(own.current_num_threads(), 2);
    assert_eq!(own.install(|| engine.verify(&items)), expected);
}

/// The calling thread alone (`Engine::verify_into_here`, the pipeline's verify tiles):
/// the same verdicts for calls that fill units exactly, leave a remainder, or are
/// shorter than one unit, and a clear error for a wrong output length.
#[test]
fn the_calling_thread_alone_gives_the_same_verdicts() {
    let owned = mixed_items(500, 10);
    let items = as_items(&owned);
    let expected = strict_reference(&items);
    let engine = small_cached_engine();
    for len in [0, 1, 15, 16, 17, 33, 100, 500] {
        let mut out = vec![Verdict::Valid; len];
        engine.verify_into_here(&items[..len], &mut out).unwrap();
        assert_eq!(out, expected[..len], "{len} items");
    }
    let mut short = vec![Verdict::Valid; 2];
    assert!(matches!(
        engine.verify_into_here(&items[..3], &mut short),
        Err(Error::OutputLength {
            expected: 3,
            got: 2
        })
    ));
}
