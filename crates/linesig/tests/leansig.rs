//! leanSig: the 45 interop vectors of `../shared/vectors/leansig/` on every
//! implementation and engine backend, and the batch path against the single path.

use linesig::leansig::{self, epoch_context, Instance};
use linesig::{Backend, Engine, Item, Reject, Scheme, Verdict};
use serde_json::Value;

struct Case {
    name: String,
    public_key: Vec<u8>,
    epoch: u32,
    message: Vec<u8>,
    signature: Vec<u8>,
    expected_spec: bool,
    expected_reference: bool,
}

fn vectors(file: &str) -> (Instance, Vec<Case>) {
    let path = format!(
        "{}/../../../shared/vectors/leansig/{file}",
        env!("CARGO_MANIFEST_DIR")
    );
    let json: Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    let instance = if file.contains("devnet4") {
        Instance::Devnet4
    } else if file.contains("L18") {
        Instance::L18
    } else {
        Instance::L32
    };
    assert_eq!(
        json["public_key_bytes"].as_u64().unwrap() as usize,
        instance.public_key_len()
    );
    assert_eq!(
        json["signature_bytes"].as_u64().unwrap() as usize,
        instance.signature_len()
    );
    let cases = json["cases"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| Case {
            name: c["name"].as_str().unwrap().to_string(),
            public_key: hex::decode(c["public_key"].as_str().unwrap()).unwrap(),
            epoch: c["epoch"].as_u64().unwrap() as u32,
            message: hex::decode(c["message"].as_str().unwrap()).unwrap(),
            signature: hex::decode(c["signature"].as_str().unwrap()).unwrap(),
            expected_spec: c["expected_spec"].as_bool().unwrap(),
            expected_reference: c["expected_reference"].as_bool().unwrap(),
        })
        .collect();
    (instance, cases)
}

/// An item's owned fields: public key, message, signature, epoch context.
type Owned = (Vec<u8>, Vec<u8>, Vec<u8>, [u8; 4]);

const FILES: [&str; 3] = [
    "leansig_devnet4_c08a3ba_L32_dim46.json",
    "leansig_legacy_73bedc2_L18_dim64.json",
    "leansig_legacy_73bedc2_L32_dim64.json",
];

fn items<'a>(cases: &'a [Case], epochs: &'a [[u8; 4]]) -> Vec<Item<'a>> {
    cases
        .iter()
        .zip(epochs)
        .map(|(c, e)| Item::new(&c.public_key, &c.message, &c.signature).with_context(e))
        .collect()
}

#[test]
fn all_45_vectors_follow_the_spec_on_every_implementation() {
    let mut total = 0;
    for file in FILES {
        let (instance, cases) = vectors(file);
        let epochs: Vec<[u8; 4]> = cases.iter().map(|c| epoch_context(c.epoch)).collect();
        let items = items(&cases, &epochs);
        for (case, item) in cases.iter().zip(&items) {
            let verdict = leansig::verify(instance, item);
            assert_eq!(
                verdict.is_valid(),
                case.expected_spec,
                "{file} {}: {verdict:?}",
                case.name
            );
            if case.name.starts_with("noncanonical") {
                // The reference reduces limbs ≥ p and accepts; the spec (and we) reject.
                assert!(case.expected_reference && !case.expected_spec);
                assert_eq!(verdict, Verdict::Invalid(Reject::NonCanonicalEncoding));
            }
            // `bad_offset` writes 37 over bytes 4..8, which hold rho's first element (the
            // first offset is bytes 0..4): a canonical value, so it fails at the root.
            if ["truncated", "trailing_hash"].contains(&case.name.as_str()) {
                assert_eq!(
                    verdict,
                    Verdict::Invalid(Reject::BadLength),
                    "{}",
                    case.name
                );
            }
            total += 1;
        }
        let single: Vec<Verdict> = items.iter().map(|i| leansig::verify(instance, i)).collect();
        for implementation in leansig::testing::implementations() {
            assert_eq!(
                leansig::testing::verify_on(instance, implementation, &items),
                single,
                "{file} on {implementation}"
            );
        }
        for backend in Backend::ALL
            .into_iter()
            .filter(|b| b.is_supported_for(Scheme::LeanSig(instance)))
        {
            let engine = Engine::builder()
                .scheme(Scheme::LeanSig(instance))
                .backend(backend)
                .workers(2)
                .batch_size(4)
                .build()
                .unwrap();
            assert_eq!(
                engine.verify(&items),
                single,
                "{file} on engine backend {backend}"
            );
            // One item per call takes the portable path (a lone signature would fill
            // one lane of sixteen): the same verdicts.
            let lone: Vec<Verdict> = items
                .iter()
                .map(|item| engine.verify(std::slice::from_ref(item))[0])
                .collect();
            assert_eq!(
                lone, single,
                "{file} on engine backend {backend}, one per call"
            );
        }
    }
    assert_eq!(total, 45);
}

#[test]
fn epoch_context_is_checked() {
    let (instance, cases) = vectors(FILES[1]);
    let case = &cases[0];
    let item = Item::new(&case.public_key, &case.message, &case.signature);
    for context in [&[][..], &[0u8; 3][..], &[0u8; 5][..]] {
        assert_eq!(
            leansig::verify(instance, &item.with_context(context)),
            Verdict::Invalid(Reject::BadContext)
        );
    }
    // Past the 2^18 lifetime.
    let past = epoch_context(1 << 18);
    assert_eq!(
        leansig::verify(instance, &item.with_context(&past)),
        Verdict::Invalid(Reject::BadContext)
    );
    let short = &case.message[..31];
    let epoch = epoch_context(case.epoch);
    assert_eq!(
        leansig::verify(
            instance,
            &Item::new(&case.public_key, short, &case.signature).with_context(&epoch)
        ),
        Verdict::Invalid(Reject::BadLength)
    );
}

/// A key for `instance` from a fixed seed, on the fastest lanes here.
fn key(instance: Instance, seed: u64) -> (Vec<u8>, leansig::SecretKey) {
    use rand::SeedableRng;
    let mut rng = rand_chacha::ChaCha20Rng::seed_from_u64(seed);
    let backend = Backend::best_for(Scheme::LeanSig(instance));
    leansig::keys::key_gen(instance, backend, &mut rng, 0, 1).unwrap()
}

#[test]
fn our_signatures_verify_and_have_the_reference_layout() {
    let instance = Instance::L18;
    let (public_key, mut secret) = key(instance, 1);
    assert_eq!(public_key.len(), instance.public_key_len());
    assert_eq!(secret.prepared_interval(), 0..1024);
    assert_eq!(instance.prepared_epochs(), 1024);
    assert_eq!(Instance::Devnet4.prepared_epochs(), 131_072);
    let mut signed = Vec::new();
    for (n, epoch) in [0u32, 1, 513, 1000, 1023].into_iter().enumerate() {
        let message = [n as u8 ^ 0x5a; 32];
        let signature = secret.sign(epoch, &message).unwrap();
        assert_eq!(signature.len(), instance.signature_len());
        // SSZ offsets as the reference writes them: path after offset ‖ rho ‖ offset.
        let path_at = 8 + 4 * 6;
        assert_eq!(
            u32::from_le_bytes(signature[..4].try_into().unwrap()),
            path_at
        );
        assert_eq!(
            u32::from_le_bytes(
                signature[path_at as usize..path_at as usize + 4]
                    .try_into()
                    .unwrap()
            ),
            4
        );
        signed.push((epoch_context(epoch), message, signature));
    }
    let items: Vec<Item> = signed
        .iter()
        .map(|(e, m, s)| Item::new(&public_key, m, s).with_context(e))
        .collect();
    for implementation in leansig::testing::implementations() {
        let verdicts = leansig::testing::verify_on(instance, implementation, &items);
        assert!(
            verdicts.iter().all(|v| v.is_valid()),
            "{implementation}: {verdicts:?}"
        );
    }
    // Another epoch, message or key fails.
    let (e, m, s) = &signed[2];
    let other_epoch = epoch_context(514);
    assert!(!leansig::verify(
        instance,
        &Item::new(&public_key, m, s).with_context(&other_epoch)
    )
    .is_valid());
    assert!(!leansig::verify(
        instance,
        &Item::new(&public_key, &[0u8; 32], s).with_context(e)
    )
    .is_valid());
    let (other_key, _) = key(instance, 2);
    assert!(!leansig::verify(instance, &Item::new(&other_key, m, s).with_context(e)).is_valid());
}

#[test]
fn a_key_signs_each_epoch_once_and_only_where_prepared() {
    use leansig::SignError;
    let instance = Instance::L18;
    let (_, mut secret) = key(instance, 3);
    secret.sign(10, &[1; 32]).unwrap();
    assert_eq!(
        secret.sign(10, &[2; 32]),
        Err(SignError::EpochUsed {
            epoch: 10,
            next: 11
        })
    );
    assert_eq!(
        secret.sign(9, &[2; 32]),
        Err(SignError::EpochUsed { epoch: 9, next: 11 })
    );
    assert!(matches!(
        secret.sign(1024, &[2; 32]),
        Err(SignError::NotActive { .. })
    ));
    assert!(matches!(
        secret.sign(1 << 20, &[2; 32]),
        Err(SignError::NotActive { .. })
    ));
    // Active over three bottom trees: the third is prepared after one advance.
    use rand::SeedableRng;
    let mut rng = rand_chacha::ChaCha20Rng::seed_from_u64(4);
    let backend = Backend::best_for(Scheme::LeanSig(instance));
    let (public_key, mut secret) =
        leansig::keys::key_gen(instance, backend, &mut rng, 0, 1200).unwrap();
    assert_eq!(secret.activation_interval(), 0..1536);
    assert!(matches!(
        secret.sign(1100, &[3; 32]),
        Err(SignError::NotPrepared { .. })
    ));
    assert!(secret.advance_preparation());
    assert!(!secret.advance_preparation());
    assert_eq!(secret.prepared_interval(), 512..1536);
    let signature = secret.sign(1100, &[3; 32]).unwrap();
    let epoch = epoch_context(1100);
    assert!(leansig::verify(
        instance,
        &Item::new(&public_key, &[3; 32], &signature).with_context(&epoch)
    )
    .is_valid());
    assert!(leansig::keys::key_gen(instance, backend, &mut rng, 0, 0).is_err());
    assert!(leansig::keys::key_gen(instance, backend, &mut rng, 1 << 18, 1).is_err());
}

#[test]
fn batches_equal_single_verification_on_random_and_corrupted_inputs() {
    use rand::{Rng, SeedableRng};
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(7);
    for file in FILES {
        let (instance, cases) = vectors(file);
        let valid: Vec<&Case> = cases.iter().filter(|c| c.expected_spec).collect();
        // Valid signatures, bit flips anywhere, limbs pushed to x + p, random bytes.
        let mut owned: Vec<Owned> = Vec::new();
        for round in 0..40 {
            let c = valid[round % valid.len()];
            let (mut pk, mut msg, mut sig) =
                (c.public_key.clone(), c.message.clone(), c.signature.clone());
            match round % 5 {
                0 => {}
                1 => {
                    let at = rng.gen_range(0..sig.len());
                    sig[at] ^= 1 << rng.gen_range(0..8);
                }
                2 => {
                    let at = 4 * rng.gen_range(0..pk.len() / 4);
                    let x = u32::from_le_bytes(pk[at..at + 4].try_into().unwrap());
                    pk[at..at + 4].copy_from_slice(&x.wrapping_add(0x7f00_0001).to_le_bytes());
                }
                3 => msg[rng.gen_range(0..32)] ^= 0x80,
                _ => rng.fill(&mut sig[40..]),
            }
            owned.push((pk, msg, sig, epoch_context(c.epoch)));
        }
        let items: Vec<Item> = owned
            .iter()
            .map(|(pk, m, s, e)| Item::new(pk, m, s).with_context(e))
            .collect();
        let single: Vec<Verdict> = items.iter().map(|i| leansig::verify(instance, i)).collect();
        assert!(single.iter().filter(|v| v.is_valid()).count() >= 8);
        assert!(single.iter().filter(|v| !v.is_valid()).count() >= 24);
        for implementation in leansig::testing::implementations() {
            assert_eq!(
                leansig::testing::verify_on(instance, implementation, &items),
                single,
                "{implementation}"
            );
        }
        for lanes in [1, 3, 8, 16] {
            let engine = Engine::builder()
                .scheme(Scheme::LeanSig(instance))
                .lanes(lanes)
                .workers(2)
                .batch_size(7)
                .build()
                .unwrap();
            assert_eq!(engine.verify(&items), single, "lanes {lanes}");
        }
    }
}

/// `key_gen_reporting` reports each bottom tree once, in order, up to the total, and
/// makes the same key as `key_gen` from the same randomness.
#[test]
fn key_generation_reports_each_bottom_tree() {
    use rand::SeedableRng;
    use std::cell::RefCell;
    let instance = Instance::L18;
    let backend = Backend::best_for(Scheme::LeanSig(instance));
    let seen = RefCell::new(Vec::new());
    let mut rng = rand_chacha::ChaCha20Rng::seed_from_u64(3);
    // 3,000 epochs from 100: bottom trees of 512 epochs, 0 to 6.
    let (public_key, _) =
        leansig::keys::key_gen_reporting(instance, backend, &mut rng, 100, 3000, &|done, total| {
            seen.borrow_mut().push((done, total))
        })
        .unwrap();
    let seen = seen.into_inner();
    assert_eq!(seen, (1..=7).map(|d| (d, 7)).collect::<Vec<_>>());
    let mut rng = rand_chacha::ChaCha20Rng::seed_from_u64(3);
    let (same, _) = leansig::keys::key_gen(instance, backend, &mut rng, 100, 3000).unwrap();
    assert_eq!(public_key, same);
}
