//! Differential tests: linesig against every oracle of each policy, on random valid
//! signatures and on the adversarial families of docs/design.md §3. Seeded; the default run is
//! quick, `LINESIG_SOAK_ROUNDS=N` multiplies it for a soak.

mod common;

use common::{assert_key_cache_changes_nothing, backends, oracles};
use curve25519_dalek::constants::{ED25519_BASEPOINT_POINT as B, EIGHT_TORSION};
use curve25519_dalek::edwards::{CompressedEdwardsY, EdwardsPoint};
use curve25519_dalek::scalar::Scalar;
use linesig::{ed25519, Engine, Item, Policy, Reject, Scheme, Verdict};
use rand::{Rng, RngCore, SeedableRng};
use rand_chacha::ChaCha20Rng;
use sha2::{Digest, Sha512};

/// L = 2^252 + 27742317777372353535851937790883648493, little-endian.
const L: [u8; 32] = [
    0xed, 0xd3, 0xf5, 0x5c, 0x1a, 0x63, 0x12, 0x58, 0xd6, 0x9c, 0xf7, 0xa2, 0xde, 0xf9, 0xde, 0x14,
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x10,
];

/// An owned test item, labelled with the family that produced it.
struct Owned {
    family: &'static str,
    public_key: Vec<u8>,
    message: Vec<u8>,
    signature: Vec<u8>,
}

impl Owned {
    fn item(&self) -> Item<'_> {
        Item {
            public_key: &self.public_key,
            message: &self.message,
            signature: &self.signature,
            context: &[],
        }
    }
}

/// Items borrowing (public key, message, signature) triples.
fn items_of<K: AsRef<[u8]>>(owned: &[(K, Vec<u8>, Vec<u8>)]) -> Vec<Item<'_>> {
    owned
        .iter()
        .map(|(pk, m, sig)| Item {
            public_key: pk.as_ref(),
            message: m,
            signature: sig,
            context: &[],
        })
        .collect()
}

fn random_scalar(rng: &mut ChaCha20Rng) -> Scalar {
    let mut wide = [0u8; 64];
    rng.fill_bytes(&mut wide);
    Scalar::from_bytes_mod_order_wide(&wide)
}

fn challenge(r: &[u8; 32], a: &[u8; 32], m: &[u8]) -> Scalar {
    let h: [u8; 64] = Sha512::new()
        .chain_update(r)
        .chain_update(a)
        .chain_update(m)
        .finalize()
        .into();
    Scalar::from_bytes_mod_order_wide(&h)
}

/// A signature (R bytes, S) where S = r + k·a for the given R bytes and key bytes; with
/// R = [r]B + T and A = [a]B + T' this satisfies the cofactored equation always and the
/// cofactorless one exactly when T = k·T'.
fn sign_raw(r: Scalar, r_bytes: [u8; 32], a: Scalar, a_bytes: [u8; 32], m: &[u8]) -> Vec<u8> {
    let s = r + challenge(&r_bytes, &a_bytes, m) * a;
    [r_bytes, s.to_bytes()].concat()
}

/// y ≥ p re-encodings of a point with small y (y + p < 2^255), if any.
fn non_canonical_y(bytes: [u8; 32]) -> Option<[u8; 32]> {
    let mut y = bytes;
    let sign = y[31] & 0x80;
    y[31] &= 0x7f;
    if y[1..].iter().any(|&b| b != 0) || y[0] > 18 {
        return None;
    }
    // y + p, where p = 2^255 − 19: low byte 0xed + y, the rest 0xff…0x7f.
    let mut out = [0xffu8; 32];
    out[0] = 0xed + y[0];
    out[31] = 0x7f | sign;
    Some(out)
}

fn add_le(a: &[u8; 32], b: &[u8; 32]) -> [u8; 32] {
    let mut out = [0u8; 32];
    let mut carry = 0u16;
    for i in 0..32 {
        let v = a[i] as u16 + b[i] as u16 + carry;
        out[i] = v as u8;
        carry = v >> 8;
    }
    out
}

fn generate(seed: u64, rounds: usize) -> Vec<Owned> {
    let mut rng = ChaCha20Rng::seed_from_u64(seed);
    let torsion: Vec<EdwardsPoint> = EIGHT_TORSION.to_vec();
    let small_order_encodings: Vec<[u8; 32]> = {
        let mut v: Vec<[u8; 32]> = torsion.iter().map(|p| p.compress().to_bytes()).collect();
        let extra: Vec<[u8; 32]> = v.iter().filter_map(|b| non_canonical_y(*b)).collect();
        v.extend(extra);
        // x = 0 with the sign bit set: the identity and (0, −1).
        for b in v.clone() {
            if b == torsion[0].compress().to_bytes() || b == torsion[4].compress().to_bytes() {
                let mut s = b;
                s[31] |= 0x80;
                v.push(s);
            }
        }
        v
    };
    let mut out = Vec::new();
    let mut push = |family, pk: [u8; 32], message: Vec<u8>, signature: Vec<u8>| {
        out.push(Owned {
            family,
            public_key: pk.to_vec(),
            message,
            signature,
        });
    };
    for _ in 0..rounds {
        let a = random_scalar(&mut rng);
        let a_point = B * a;
        let a_bytes = a_point.compress().to_bytes();
        let mut message = vec![0u8; rng.gen_range(0..300)];
        rng.fill_bytes(&mut message);
        let r = random_scalar(&mut rng);
        let r_bytes = (B * r).compress().to_bytes();
        let valid = sign_raw(r, r_bytes, a, a_bytes, &message);

        // Honest, and its bit flips in every field.
        push("valid", a_bytes, message.clone(), valid.clone());
        for field in 0..4 {
            let (mut pk, mut msg, mut sig) = (a_bytes, message.clone(), valid.clone());
            let target: &mut [u8] = match field {
                0 => &mut pk,
                1 => &mut sig[..32],
                2 => &mut sig[32..],
                _ if msg.is_empty() => continue,
                _ => &mut msg,
            };
            let bit = rng.gen_range(0..target.len() * 8);
            target[bit / 8] ^= 1 << (bit % 8);
            push("bit flip", pk, msg, sig);
        }

        // S ≥ L: S + L (still satisfies the equation mod L), S = L, L + small, top bits.
        let s: [u8; 32] = valid[32..].try_into().unwrap();
        for s_bad in [
            add_le(&s, &L),
            L,
            add_le(
                &L,
                &[rng.gen_range(1..=255u8); 1]
                    .iter()
                    .chain([0u8; 31].iter())
                    .copied()
                    .collect::<Vec<_>>()
                    .try_into()
                    .unwrap(),
            ),
            {
                let mut t = s;
                t[31] |= 0xe0;
                t
            },
        ] {
            push(
                "s >= L",
                a_bytes,
                message.clone(),
                [&valid[..32], &s_bad].concat(),
            );
        }

        // Small-order A (canonical and not): with R = [r]B, S = r the cofactored equation
        // holds for every message; the cofactorless one when k·A = O.
        let t_bytes = small_order_encodings[rng.gen_range(0..small_order_encodings.len())];
        push(
            "small-order A",
            t_bytes,
            message.clone(),
            [r_bytes, r.to_bytes()].concat(),
        );

        // Small-order R: R = T, S = k·a satisfies the cofactored equation.
        let t_bytes = small_order_encodings[rng.gen_range(0..small_order_encodings.len())];
        push(
            "small-order R",
            a_bytes,
            message.clone(),
            sign_raw(Scalar::ZERO, t_bytes, a, a_bytes, &message),
        );

        // Mixed-order A = [a]B + T: cofactored always, cofactorless iff k·T = O.
        let t = torsion[rng.gen_range(1..8)];
        let mixed_a = (a_point + t).compress().to_bytes();
        push(
            "mixed-order A",
            mixed_a,
            message.clone(),
            sign_raw(r, r_bytes, a, mixed_a, &message),
        );

        // Mixed-order R = [r]B + T: cofactored only.
        let mixed_r = (B * r + t).compress().to_bytes();
        push(
            "mixed-order R",
            a_bytes,
            message.clone(),
            sign_raw(r, mixed_r, a, a_bytes, &message),
        );

        // Random y ≥ p encodings as A and as R, random S.
        let mut noncanon = [0xffu8; 32];
        noncanon[0] = rng.gen_range(0xed..=0xff);
        noncanon[31] = 0x7f | if rng.gen() { 0x80 } else { 0 };
        push("non-canonical A", noncanon, message.clone(), valid.clone());
        push(
            "non-canonical R",
            a_bytes,
            message.clone(),
            [noncanon, s].concat(),
        );

        // Garbage of the right lengths, and of the wrong ones.
        let mut pk = [0u8; 32];
        rng.fill_bytes(&mut pk);
        let mut sig = vec![0u8; 64];
        rng.fill_bytes(&mut sig);
        push("random bytes", pk, message.clone(), sig);
        let wrong = rng.gen_range(0..130usize);
        if wrong != 64 {
            push("wrong length", a_bytes, message.clone(), vec![7u8; wrong]);
        }
    }
    out
}

fn rounds() -> usize {
    let soak: usize = std::env::var("LINESIG_SOAK_ROUNDS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(1);
    300 * soak.max(1)
}

#[test]
fn every_policy_agrees_with_its_oracles() {
    let cases = generate(0x6c696e65736967, rounds());
    let items: Vec<Item<'_>> = cases.iter().map(Owned::item).collect();
    let mut accepted = std::collections::BTreeMap::<(&str, &str), usize>::new();
    for (policy, backend, batch_equation) in Policy::ALL.into_iter().flat_map(|p| {
        backends()
            .into_iter()
            .flat_map(move |b| [(p, b, true), (p, b, false)])
    }) {
        // Units of 128: no backend's measured floor keeps them off the batch equation.
        let engine = Engine::builder()
            .scheme(Scheme::Ed25519(policy))
            .backend(backend)
            .workers(2)
            .batch_size(128)
            .batch_equation(batch_equation)
            .build()
            .unwrap();
        let verdicts = engine.verify(&items);
        for ((case, item), verdict) in cases.iter().zip(&items).zip(&verdicts) {
            assert_eq!(
                ed25519::verify(policy, item),
                *verdict,
                "{}: {backend} engine (batch equation {batch_equation}) vs reference single \
                 (verdict and reason)",
                case.family
            );
            for (oracle, f) in oracles(policy) {
                assert_eq!(
                    verdict.is_valid(),
                    f(item),
                    "{policy} vs {oracle} on a '{}' case: pk {} sig {} msg {}",
                    case.family,
                    hex::encode(&case.public_key),
                    hex::encode(&case.signature),
                    hex::encode(&case.message),
                );
            }
            if backend == linesig::Backend::Portable && !batch_equation {
                *accepted.entry((policy.name(), case.family)).or_default() +=
                    usize::from(verdict.is_valid());
            }
        }
    }
    // The families must exercise the differences between the policies, not only agree.
    let n = |p: &str, f: &str| accepted.get(&(p, f)).copied().unwrap_or(0);
    let r = rounds();
    for p in ["strict", "zip215", "zip215-strict"] {
        assert_eq!(n(p, "valid"), r, "{p} accepts every honest signature");
        assert_eq!(
            n(p, "bit flip") + n(p, "random bytes") + n(p, "wrong length") + n(p, "s >= L"),
            0,
            "{p}"
        );
    }
    assert_eq!(n("zip215", "small-order A"), r);
    assert_eq!(n("zip215", "small-order R"), r);
    assert_eq!(n("zip215", "mixed-order R"), r);
    assert_eq!(n("zip215-strict", "mixed-order R"), r);
    assert_eq!(n("zip215-strict", "mixed-order A"), r);
    assert_eq!(
        n("strict", "small-order A") + n("strict", "small-order R") + n("strict", "mixed-order R"),
        0
    );
    assert_eq!(
        n("zip215-strict", "small-order A") + n("zip215-strict", "small-order R"),
        0
    );
    let strict_mixed = n("strict", "mixed-order A");
    assert!(
        strict_mixed > 0 && strict_mixed < r,
        "Strict accepts mixed-order A only when k·T = O: {strict_mixed}/{r}"
    );
}

/// Every valid family of a cofactored policy (honest signatures, small-order A and R,
/// mixed-order A and R, non-canonical encodings of small-order points), shuffled
/// together: the batch equation holds on every unit (none falls back), on every backend.
#[test]
fn the_batch_equation_holds_on_every_valid_family() {
    let cases = generate(0x62617463, rounds() / 2);
    let mut rng = ChaCha20Rng::seed_from_u64(11);
    for policy in [Policy::Zip215, Policy::Zip215Strict] {
        let mut valid: Vec<(&'static str, Item<'_>)> = cases
            .iter()
            .map(|c| (c.family, c.item()))
            .filter(|(_, item)| ed25519::verify(policy, item) == Verdict::Valid)
            .collect();
        for i in (1..valid.len()).rev() {
            valid.swap(i, rng.gen_range(0..=i));
        }
        let families: std::collections::BTreeSet<&str> = valid.iter().map(|(f, _)| *f).collect();
        assert!(families.len() >= 3, "{policy}: {families:?}");
        let items: Vec<Item<'_>> = valid.iter().map(|(_, item)| *item).collect();
        for backend in backends() {
            let engine = Engine::builder()
                .scheme(Scheme::Ed25519(policy))
                .backend(backend)
                .workers(2)
                .batch_size(256)
                .build()
                .unwrap();
            let verdicts = engine.verify(&items);
            for ((family, _), verdict) in valid.iter().zip(&verdicts) {
                assert_eq!(
                    *verdict,
                    Verdict::Valid,
                    "{policy} {backend}: a '{family}' case"
                );
            }
            let stats = engine.batch_equation_stats().expect("on by default");
            assert!(
                stats.held >= (items.len() / 256) as u64,
                "{policy} {backend}: {stats:?}"
            );
            assert_eq!(
                stats.found_few + stats.fell_back,
                0,
                "{policy} {backend}: {stats:?}"
            );
        }
    }
}

/// Two invalid signatures whose error terms cancel (S + δ and S − δ; R + T and R − T
/// with them, T of order 8), among honest ones: a batch check whose coefficients were
/// constant, or equal for the two, would hold; each must be found invalid, on every
/// backend, and the honest ones stay valid.
#[test]
fn errors_chosen_to_cancel_are_both_found() {
    let mut rng = ChaCha20Rng::seed_from_u64(0xca9ce1);
    let mut owned: Vec<(Vec<u8>, Vec<u8>, Vec<u8>)> = Vec::new();
    for _ in 0..200 {
        let a = random_scalar(&mut rng);
        let a_bytes = (B * a).compress().to_bytes();
        let r = random_scalar(&mut rng);
        let r_bytes = (B * r).compress().to_bytes();
        let message = rng.gen::<[u8; 32]>().to_vec();
        owned.push((
            a_bytes.to_vec(),
            message.clone(),
            sign_raw(r, r_bytes, a, a_bytes, &message),
        ));
    }
    // Pairs at 17 and 130 (prime-order errors ±δB) and 50 and 51 (±(δB + T)).
    let delta = random_scalar(&mut rng);
    let t = EIGHT_TORSION[3];
    for (i, j, torsion) in [(17, 130, false), (50, 51, true)] {
        for (at, sign) in [(i, Scalar::ONE), (j, -Scalar::ONE)] {
            let a = random_scalar(&mut rng);
            let a_bytes = (B * a).compress().to_bytes();
            let r = random_scalar(&mut rng);
            // R' = R − sign·T moves the error by +sign·T, as S' = S + sign·δ moves it
            // by +sign·δB: e = sign·(δB + T).
            let r_point = if torsion { B * r - t * sign } else { B * r };
            let r_bytes = r_point.compress().to_bytes();
            let message = rng.gen::<[u8; 32]>().to_vec();
            let mut signature = sign_raw(r, r_bytes, a, a_bytes, &message);
            let s = Scalar::from_canonical_bytes(signature[32..].try_into().unwrap()).unwrap();
            signature[32..].copy_from_slice(&(s + sign * delta).to_bytes());
            owned[at] = (a_bytes.to_vec(), message, signature);
        }
    }
    let items = items_of(&owned);
    for policy in [Policy::Zip215, Policy::Zip215Strict] {
        for backend in backends() {
            let engine = Engine::builder()
                .scheme(Scheme::Ed25519(policy))
                .backend(backend)
                .workers(1)
                .batch_size(256)
                .build()
                .unwrap();
            let verdicts = engine.verify(&items);
            for (i, verdict) in verdicts.iter().enumerate() {
                let want = if [17, 130, 50, 51].contains(&i) {
                    Verdict::Invalid(Reject::EquationFailed)
                } else {
                    Verdict::Valid
                };
                assert_eq!(*verdict, want, "{policy} {backend}: item {i}");
            }
            let stats = engine.batch_equation_stats().unwrap();
            assert_eq!(
                stats.held, 0,
                "{policy} {backend}: the unit's check held: {stats:?}"
            );
        }
    }
}

/// Units after failed ones go straight to their parts (the gate expects them to fail
/// too): four units with one bad signature in sixteen, then four honest ones. Every
/// verdict is the reference's, and the honest unit that the backoff lets through in
/// parts counts as held (resetting the backoff), as do the two after it.
#[test]
fn units_checked_in_parts_after_failures_keep_every_verdict() {
    const UNIT: usize = 256;
    let mut rng = ChaCha20Rng::seed_from_u64(0x7061727473);
    let owned: Vec<([u8; 32], Vec<u8>, Vec<u8>)> = (0..8 * UNIT)
        .map(|i| {
            let a = random_scalar(&mut rng);
            let a_bytes = (B * a).compress().to_bytes();
            let r = random_scalar(&mut rng);
            let r_bytes = (B * r).compress().to_bytes();
            let mut message = rng.gen::<[u8; 32]>().to_vec();
            let signature = sign_raw(r, r_bytes, a, a_bytes, &message);
            if i < 4 * UNIT && rng.gen_range(0..16) == 0 {
                message[0] ^= 1;
            }
            (a_bytes, message, signature)
        })
        .collect();
    let items = items_of(&owned);
    for policy in [Policy::Zip215, Policy::Zip215Strict] {
        let expected: Vec<Verdict> = items.iter().map(|i| ed25519::verify(policy, i)).collect();
        let bad = expected.iter().filter(|v| !v.is_valid()).count();
        assert!(bad >= 4 * UNIT / 32, "{bad} invalid");
        for backend in backends() {
            let engine = Engine::builder()
                .scheme(Scheme::Ed25519(policy))
                .backend(backend)
                .workers(1)
                .batch_size(UNIT)
                .build()
                .unwrap();
            // One call a unit, so the units reach the gate in order.
            let verdicts: Vec<Verdict> =
                items.chunks(UNIT).flat_map(|u| engine.verify(u)).collect();
            assert_eq!(verdicts, expected, "{policy} {backend}");
            // Unit 0 checked whole and fell back (skip 1), unit 2 in parts (skip 2),
            // unit 5 in parts and held, units 6 and 7 whole and held.
            let stats = engine.batch_equation_stats().unwrap();
            assert_eq!(
                (stats.held, stats.found_few, stats.fell_back, stats.skipped),
                (3, 0, 2, 3),
                "{policy} {backend}: {stats:?}"
            );
        }
    }
}

/// With the hot-key cache on, the batch equation reads cached keys from their tables
/// (no decoding): eight keys (one of mixed order) earn tables in small units, which take
/// the per-signature path; then a unit of 128 (no measured floor keeps it off the batch
/// equation) of those keys beside fresh ones holds on one check, and in another a bad
/// signature by a cached key is found. Were a table's point
/// not the key's −A, the check of the honest unit would fail (held would stay 0).
#[test]
fn the_batch_equation_reads_cached_keys() {
    let mut rng = ChaCha20Rng::seed_from_u64(0x726f7773);
    let keys: Vec<(Scalar, [u8; 32])> = (0..8)
        .map(|i| {
            let a = random_scalar(&mut rng);
            let torsion = if i == 3 {
                EIGHT_TORSION[1]
            } else {
                EIGHT_TORSION[0]
            };
            (a, (B * a + torsion).compress().to_bytes())
        })
        .collect();
    let sign = |rng: &mut ChaCha20Rng, (a, a_bytes): (Scalar, [u8; 32])| {
        let r = random_scalar(rng);
        let r_bytes = (B * r).compress().to_bytes();
        let message = rng.gen::<[u8; 32]>().to_vec();
        let signature = sign_raw(r, r_bytes, a, a_bytes, &message);
        (a_bytes, message, signature)
    };
    let warm: Vec<_> = (0..16).map(|i| sign(&mut rng, keys[i % 8])).collect();
    // 128 items: the cached keys eight times each, then 64 fresh keys.
    let unit = |rng: &mut ChaCha20Rng| -> Vec<([u8; 32], Vec<u8>, Vec<u8>)> {
        (0..128)
            .map(|i| {
                let key = if i < 64 {
                    keys[i % 8]
                } else {
                    let a = random_scalar(rng);
                    (a, (B * a).compress().to_bytes())
                };
                sign(rng, key)
            })
            .collect()
    };
    let honest = unit(&mut rng);
    let mut one_bad = unit(&mut rng);
    one_bad[13].1[0] ^= 1;
    let (warm, honest, one_bad) = (items_of(&warm), items_of(&honest), items_of(&one_bad));
    for policy in [Policy::Zip215, Policy::Zip215Strict] {
        assert!(honest.iter().all(|i| ed25519::verify(policy, i).is_valid()));
        let expected: Vec<Verdict> = one_bad.iter().map(|i| ed25519::verify(policy, i)).collect();
        assert_eq!(expected[13], Verdict::Invalid(Reject::EquationFailed));
        for backend in backends() {
            let what = format!("{policy} {backend}");
            let engine = Engine::builder()
                .scheme(Scheme::Ed25519(policy))
                .backend(backend)
                .workers(1)
                .batch_size(128)
                .key_cache(64 << 20)
                .build()
                .unwrap();
            // Units below the batch equation's minimum: each key is counted twice a call.
            for _ in 0..3 {
                assert!(
                    engine.verify(&warm).into_iter().all(Verdict::is_valid),
                    "{what}"
                );
            }
            let warmed = engine.key_cache_stats().unwrap();
            assert_eq!(warmed.entries, 8, "{what}: {warmed:?}");
            assert_eq!(engine.batch_equation_stats().unwrap().held, 0, "{what}");

            assert!(
                engine.verify(&honest).into_iter().all(Verdict::is_valid),
                "{what}"
            );
            let stats = engine.batch_equation_stats().unwrap();
            assert_eq!(
                (stats.held, stats.fell_back, stats.found_few),
                (1, 0, 0),
                "{what}"
            );
            let read = engine.key_cache_stats().unwrap();
            assert_eq!(
                read.hit_signatures - warmed.hit_signatures,
                64,
                "{what}: {read:?}"
            );
            assert_eq!(read.admissions, warmed.admissions, "{what}: {read:?}");

            assert_eq!(engine.verify(&one_bad), expected, "{what}");
        }
    }
}

/// The hot-key cache changes no verdict and no reason on any family, on any backend.
#[test]
fn the_key_cache_changes_no_verdict() {
    let cases = generate(0x686f74, rounds() / 3);
    let items: Vec<Item<'_>> = cases.iter().map(Owned::item).collect();
    for backend in backends() {
        for policy in Policy::ALL {
            let expected: Vec<Verdict> = items.iter().map(|i| ed25519::verify(policy, i)).collect();
            assert_key_cache_changes_nothing(&items, policy, backend, &expected, &|i| {
                format!(
                    "'{}' case: pk {} sig {}",
                    cases[i].family,
                    hex::encode(&cases[i].public_key),
                    hex::encode(&cases[i].signature)
                )
            });
        }
    }
}

/// Reasons are diagnostics, but they are the only way to observe some rules: no one can
/// sign for a non-canonical encoding of a large-order point (its discrete log is
/// unknown), so SIMD-0376's canonicality rule never changes acceptance on a feasible
/// input once small-order points are rejected. Check it through the reason.
#[test]
fn reasons_name_the_failed_rule() {
    let mut rng = ChaCha20Rng::seed_from_u64(7);
    let a = random_scalar(&mut rng);
    let a_bytes = (B * a).compress().to_bytes();
    let r = random_scalar(&mut rng);
    let r_bytes = (B * r).compress().to_bytes();
    let msg = b"reasons".to_vec();
    let valid = sign_raw(r, r_bytes, a, a_bytes, &msg);
    let verdict = |policy, pk: &[u8], sig: &[u8]| {
        ed25519::verify(
            policy,
            &Item {
                public_key: pk,
                message: &msg,
                signature: sig,
                context: &[],
            },
        )
    };
    let inv = Verdict::Invalid;

    // A large-order point with a y ≥ p encoding: y = 2 .. 18, some of which decode.
    let noncanon_large: Vec<[u8; 32]> = (2u8..=18)
        .filter_map(|y| {
            let mut b = [0u8; 32];
            b[0] = y;
            let p = CompressedEdwardsY(b).decompress()?;
            (!p.is_small_order()).then(|| non_canonical_y(b).unwrap())
        })
        .collect();
    assert!(!noncanon_large.is_empty());
    for enc in &noncanon_large {
        assert_eq!(
            verdict(Policy::Zip215Strict, enc, &valid),
            inv(Reject::NonCanonicalEncoding)
        );
        assert_eq!(
            verdict(
                Policy::Zip215Strict,
                &a_bytes,
                &[&enc[..], &valid[32..]].concat()
            ),
            inv(Reject::NonCanonicalEncoding)
        );
        // Strict and ZIP-215 decode such an A and fail on the equation instead.
        assert_eq!(
            verdict(Policy::Strict, enc, &valid),
            inv(Reject::EquationFailed)
        );
        assert_eq!(
            verdict(Policy::Zip215, enc, &valid),
            inv(Reject::EquationFailed)
        );
    }
    let identity = EIGHT_TORSION[0].compress().to_bytes();
    assert_eq!(
        verdict(Policy::Strict, &identity, &valid),
        inv(Reject::SmallOrderKey)
    );
    assert_eq!(
        verdict(Policy::Zip215Strict, &identity, &valid),
        inv(Reject::SmallOrderKey)
    );
    let mut high_s = valid.clone();
    high_s[32..].copy_from_slice(&L);
    for p in Policy::ALL {
        assert_eq!(verdict(p, &a_bytes, &valid), Verdict::Valid);
        assert_eq!(verdict(p, &a_bytes, &high_s), inv(Reject::NonCanonicalS));
        assert_eq!(verdict(p, &a_bytes[..31], &valid), inv(Reject::BadLength));
        assert_eq!(verdict(p, &a_bytes, &valid[..63]), inv(Reject::BadLength));
    }
    // R not on the curve: cofactored policies decode R and say so.
    let off_curve = (0u8..=255)
        .map(|y| {
            let mut b = [0u8; 32];
            b[0] = y;
            b[5] = 1;
            b
        })
        .find(|b| CompressedEdwardsY(*b).decompress().is_none())
        .unwrap();
    let bad_r = [&off_curve[..], &valid[32..]].concat();
    assert_eq!(
        verdict(Policy::Zip215, &a_bytes, &bad_r),
        inv(Reject::BadSignatureR)
    );
    assert_eq!(
        verdict(Policy::Zip215Strict, &a_bytes, &bad_r),
        inv(Reject::BadSignatureR)
    );
    assert_eq!(
        verdict(Policy::Strict, &a_bytes, &bad_r),
        inv(Reject::EquationFailed)
    );
    let small_r = sign_raw(Scalar::ZERO, identity, a, a_bytes, &msg);
    assert_eq!(
        verdict(Policy::Strict, &a_bytes, &small_r),
        inv(Reject::SmallOrderR)
    );
    assert_eq!(verdict(Policy::Zip215, &a_bytes, &small_r), Verdict::Valid);
    assert_eq!(
        verdict(Policy::Zip215Strict, &a_bytes, &small_r),
        inv(Reject::SmallOrderR)
    );
}
