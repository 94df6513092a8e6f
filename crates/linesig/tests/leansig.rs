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
        for backend in Backend::ALL.into_iter().filter(|b| b.is_supported()) {
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
