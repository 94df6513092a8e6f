//! ML-DSA against NIST ACVP (keyGen, sigVer internal projections), Wycheproof ML-DSA-44
//! verify (with contexts), and a differential run against PQClean (`pqcrypto-mldsa`), an
//! implementation independent of the libcrux code linesig verifies with.

mod common;

use common::{unhex, vectors_dir};
use linesig::mldsa::{self, Implementation, ParameterSet};
use linesig::{Backend, Engine, Item, Reject, Scheme, Verdict};
use rand::{Rng, RngCore, SeedableRng};
use rand_chacha::ChaCha20Rng;

fn read(name: &str) -> serde_json::Value {
    let path = vectors_dir().join("mldsa").join(name);
    serde_json::from_str(
        &std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display())),
    )
    .unwrap()
}

fn parameter_set(name: &str) -> ParameterSet {
    name.parse().unwrap_or_else(|e| panic!("{e}"))
}

#[test]
fn acvp_key_generation() {
    let doc = read("ML-DSA-keyGen-FIPS204.internalProjection.json");
    let mut n = 0;
    for group in doc["testGroups"].as_array().unwrap() {
        let ps = parameter_set(group["parameterSet"].as_str().unwrap());
        for t in group["tests"].as_array().unwrap() {
            let seed: [u8; 32] = unhex(t["seed"].as_str().unwrap()).try_into().unwrap();
            let pair = mldsa::generate_key_pair(ps, seed);
            assert_eq!(
                pair.public_key,
                unhex(t["pk"].as_str().unwrap()),
                "{ps} tcId {}",
                t["tcId"]
            );
            assert_eq!(
                pair.signing_key,
                unhex(t["sk"].as_str().unwrap()),
                "{ps} tcId {}",
                t["tcId"]
            );
            n += 1;
        }
    }
    assert_eq!(n, 75);
}

#[test]
fn acvp_signature_verification_internal() {
    let doc = read("ML-DSA-sigVer-FIPS204.internalProjection.json");
    let (mut n, mut passed) = (0, 0);
    for group in doc["testGroups"].as_array().unwrap() {
        let ps = parameter_set(group["parameterSet"].as_str().unwrap());
        let pk = unhex(group["pk"].as_str().unwrap());
        for t in group["tests"].as_array().unwrap() {
            let (message, signature) = (
                unhex(t["message"].as_str().unwrap()),
                unhex(t["signature"].as_str().unwrap()),
            );
            let verdict = mldsa::verify_internal(ps, &pk, &message, &signature);
            for implementation in Implementation::supported() {
                assert_eq!(
                    mldsa::verify_internal_on(implementation, ps, &pk, &message, &signature),
                    verdict,
                    "{ps} tcId {} on {implementation:?}",
                    t["tcId"]
                );
            }
            let want = t["testPassed"].as_bool().unwrap();
            assert_eq!(
                verdict.is_valid(),
                want,
                "{ps} tcId {} ({}): {verdict}",
                t["tcId"],
                t["reason"]
            );
            n += 1;
            passed += usize::from(want);
        }
    }
    assert_eq!((n, passed), (45, 9));
}

#[test]
fn wycheproof_mldsa44_through_the_engine() {
    let doc = read("wycheproof_mldsa_44_verify_test.json");
    let mut owned = Vec::new();
    for group in doc["testGroups"].as_array().unwrap() {
        let pk = unhex(group["publicKey"].as_str().unwrap());
        for t in group["tests"].as_array().unwrap() {
            let ctx = t
                .get("ctx")
                .and_then(|c| c.as_str())
                .map(unhex)
                .unwrap_or_default();
            owned.push((
                t["tcId"].as_u64().unwrap(),
                pk.clone(),
                unhex(t["msg"].as_str().unwrap()),
                unhex(t["sig"].as_str().unwrap()),
                ctx,
                t["result"].as_str().unwrap() == "valid",
                t["flags"].clone(),
            ));
        }
    }
    let items: Vec<Item<'_>> = owned
        .iter()
        .map(|(_, pk, m, s, c, ..)| Item::new(pk, m, s).with_context(c))
        .collect();
    let ps = ParameterSet::MlDsa44;
    let verdicts: Vec<Verdict> = items.iter().map(|i| mldsa::verify(ps, i)).collect();
    assert_every_path_agrees(ps, &items, &verdicts);
    let mut valid = 0;
    for ((tc, pk, _, sig, ctx, want, flags), verdict) in owned.iter().zip(&verdicts) {
        assert_eq!(verdict.is_valid(), *want, "tcId {tc} {flags}: {verdict}");
        let flag = |f: &str| flags.as_array().unwrap().iter().any(|x| x == f);
        if pk.len() != 1312 || sig.len() != 2420 {
            assert_eq!(*verdict, Verdict::Invalid(Reject::BadLength), "tcId {tc}");
        } else if ctx.len() > 255 {
            assert_eq!(*verdict, Verdict::Invalid(Reject::BadContext), "tcId {tc}");
        } else if flag("InvalidHintsEncoding") {
            assert_eq!(
                *verdict,
                Verdict::Invalid(Reject::MalformedHint),
                "tcId {tc}"
            );
        }
        valid += usize::from(verdict.is_valid());
    }
    assert_eq!((verdicts.len(), valid), (180, 77));
}

/// Every implementation (libcrux, linesig's verifier on every lane width this CPU runs)
/// and every engine backend, with the expanded-key cache off and on (three passes, so
/// keys signing four times or more are served from it), gives exactly `expected`,
/// reasons included.
fn assert_every_path_agrees(ps: ParameterSet, items: &[Item<'_>], expected: &[Verdict]) {
    for implementation in Implementation::supported() {
        for (n, (item, want)) in items.iter().zip(expected).enumerate() {
            assert_eq!(
                mldsa::verify_on(implementation, ps, item),
                *want,
                "{ps} item {n} on {implementation:?}"
            );
        }
    }
    for backend in Backend::ALL
        .into_iter()
        .filter(|b| b.is_supported_for(Scheme::MlDsa(ps)))
    {
        for cache_bytes in [0, 4 << 20] {
            let engine = Engine::builder()
                .scheme(Scheme::MlDsa(ps))
                .backend(backend)
                .key_cache(cache_bytes)
                .workers(2)
                .batch_size(5)
                .build()
                .unwrap();
            for pass in 0..if cache_bytes == 0 { 1 } else { 3 } {
                let verdicts = engine.verify(items);
                for (n, (got, want)) in verdicts.iter().zip(expected).enumerate() {
                    assert_eq!(
                        got, want,
                        "{ps} item {n} on {backend}, cache {cache_bytes} B, pass {pass}"
                    );
                }
            }
            if cache_bytes > 0 {
                let stats = engine.key_cache_stats().unwrap();
                assert!(
                    stats.hit_signatures > 0,
                    "{ps} on {backend}: the cache served nothing: {stats:?}"
                );
            }
        }
    }
}

/// (public key, message, signature, context, what was done to it).
type Case = (Vec<u8>, Vec<u8>, Vec<u8>, Vec<u8>, &'static str);

/// PQClean's verdict (with context) on raw bytes.
fn pqclean_verify(ps: ParameterSet, item: &Item<'_>) -> bool {
    use pqcrypto_traits::sign::{DetachedSignature, PublicKey};
    macro_rules! pq {
        ($m:ident) => {{
            use pqcrypto_mldsa::$m as m;
            match (
                m::PublicKey::from_bytes(item.public_key),
                m::DetachedSignature::from_bytes(item.signature),
            ) {
                (Ok(pk), Ok(sig)) => {
                    m::verify_detached_signature_ctx(&sig, item.message, item.context, &pk).is_ok()
                }
                _ => false,
            }
        }};
    }
    match ps {
        ParameterSet::MlDsa44 => pq!(mldsa44),
        ParameterSet::MlDsa65 => pq!(mldsa65),
        ParameterSet::MlDsa87 => pq!(mldsa87),
    }
}

/// Signatures made by linesig, then corrupted in each region of the encoding
/// (c̃ ‖ z ‖ h, FIPS 204 Algorithm 26): linesig and PQClean must agree on every one.
#[test]
fn differential_against_pqclean_over_every_corruption_class() {
    let mut rng = ChaCha20Rng::seed_from_u64(204);
    let rounds: usize = std::env::var("LINESIG_SOAK_ROUNDS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(1)
        .max(1)
        * 6;
    for ps in ParameterSet::ALL {
        let (pk_len, _, sig_len) = ps.sizes();
        // c̃ is λ/4 bytes; the hint is the last ω + k bytes.
        let (c_len, hint_len) = match ps {
            ParameterSet::MlDsa44 => (32, 80 + 4),
            ParameterSet::MlDsa65 => (48, 55 + 6),
            ParameterSet::MlDsa87 => (64, 75 + 8),
        };
        let mut cases: Vec<Case> = Vec::new();
        for _ in 0..rounds {
            let mut seed = [0u8; 32];
            rng.fill_bytes(&mut seed);
            let pair = mldsa::generate_key_pair(ps, seed);
            let msg: Vec<u8> = (0..rng.gen_range(0..200)).map(|_| rng.gen()).collect();
            let ctx: Vec<u8> = (0..*[0usize, 1, 17, 255].get(rng.gen_range(0..4)).unwrap())
                .map(|_| rng.gen())
                .collect();
            let sig = mldsa::sign(ps, &pair.signing_key, &msg, &ctx, rng.gen()).unwrap();
            assert_eq!(sig.len(), sig_len);
            let pk = pair.public_key.clone();
            let mut push = |s: Vec<u8>, k: Vec<u8>, m: Vec<u8>, c: Vec<u8>, what| {
                cases.push((k, m, s, c, what))
            };
            push(sig.clone(), pk.clone(), msg.clone(), ctx.clone(), "valid");
            for (what, range) in [
                ("c~", 0..c_len),
                ("z", c_len..sig_len - hint_len),
                ("hint", sig_len - hint_len..sig_len),
            ] {
                let mut s = sig.clone();
                let at = rng.gen_range(range.clone());
                s[at] ^= 1 << rng.gen_range(0..8);
                push(s, pk.clone(), msg.clone(), ctx.clone(), what);
                // Saturate a whole stretch: drives z out of range and hints out of order.
                let mut s = sig.clone();
                let start = rng.gen_range(range.clone());
                for b in &mut s[start..(start + 8).min(range.end)] {
                    *b = 0xff;
                }
                push(s, pk.clone(), msg.clone(), ctx.clone(), what);
            }
            let mut k = pk.clone();
            k[rng.gen_range(0..pk_len)] ^= 1;
            push(sig.clone(), k, msg.clone(), ctx.clone(), "key bit");
            let mut other_ctx = ctx.clone();
            other_ctx.push(1);
            push(sig.clone(), pk.clone(), msg.clone(), other_ctx, "context");
            push(
                sig[..sig_len - 1].to_vec(),
                pk.clone(),
                msg.clone(),
                ctx.clone(),
                "short signature",
            );
            push(
                sig.clone(),
                pk[..pk_len - 1].to_vec(),
                msg.clone(),
                ctx.clone(),
                "short key",
            );
            push(
                sig.clone(),
                pk.clone(),
                msg.clone(),
                vec![0u8; 256],
                "long context",
            );
        }
        let items: Vec<Item<'_>> = cases
            .iter()
            .map(|(k, m, s, c, _)| Item::new(k, m, s).with_context(c))
            .collect();
        let verdicts: Vec<Verdict> = items.iter().map(|i| mldsa::verify(ps, i)).collect();
        assert_every_path_agrees(ps, &items, &verdicts);
        let mut accepted = 0;
        for ((case, item), verdict) in cases.iter().zip(&items).zip(&verdicts) {
            assert_eq!(
                verdict.is_valid(),
                pqclean_verify(ps, item),
                "{ps} '{}': linesig says {verdict}",
                case.4
            );
            accepted += usize::from(verdict.is_valid());
            if case.4 == "valid" {
                assert!(verdict.is_valid());
            }
        }
        assert_eq!(accepted, rounds, "{ps}: exactly the honest signatures pass");
    }
}

#[test]
fn signing_rejects_bad_inputs_with_typed_errors() {
    let pair = mldsa::generate_key_pair(ParameterSet::MlDsa44, [1; 32]);
    assert!(matches!(
        mldsa::sign(ParameterSet::MlDsa65, &pair.signing_key, b"m", b"", [0; 32]),
        Err(mldsa::SignError::BadSigningKeyLength { .. })
    ));
    assert_eq!(
        mldsa::sign(
            ParameterSet::MlDsa44,
            &pair.signing_key,
            b"m",
            &[0; 256],
            [0; 32]
        ),
        Err(mldsa::SignError::ContextTooLong(256))
    );
    // A key KeyGen cannot make (s1's coefficients unpack outside [-eta, eta]) is refused;
    // every key KeyGen makes signs, for every parameter set.
    for ps in [
        ParameterSet::MlDsa44,
        ParameterSet::MlDsa65,
        ParameterSet::MlDsa87,
    ] {
        let ones = vec![0xff; ps.signing_key_len()];
        assert!(
            matches!(
                mldsa::sign(ps, &ones, b"m", b"", [0; 32]),
                Err(mldsa::SignError::MalformedSigningKey { index: 0, .. })
            ),
            "{ps}"
        );
        for seed in 0..8u8 {
            let pair = mldsa::generate_key_pair(ps, [seed; 32]);
            assert!(mldsa::sign(ps, &pair.signing_key, b"m", b"", [0; 32]).is_ok());
            // One out-of-range coefficient in s2's last polynomial is found too.
            let mut bad = pair.signing_key.clone();
            let eta4 = ps == ParameterSet::MlDsa65;
            let (k, l) = match ps {
                ParameterSet::MlDsa44 => (4, 4),
                ParameterSet::MlDsa65 => (6, 5),
                ParameterSet::MlDsa87 => (8, 7),
            };
            let last = 128 + (k + l) * 32 * if eta4 { 4 } else { 3 } - 1;
            bad[last] = 0xff;
            assert!(matches!(
                mldsa::sign(ps, &bad, b"m", b"", [0; 32]),
                Err(mldsa::SignError::MalformedSigningKey { .. })
            ));
        }
    }
    assert_eq!(
        "ML-DSA-65".parse::<Scheme>(),
        Ok(Scheme::MlDsa(ParameterSet::MlDsa65))
    );
}
