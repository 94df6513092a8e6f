//! leanXMSS: all 39 vectors of `../shared/vectors/leanxmss/` (cryptography-specs
//! `tests/xmss/`) on every implementation this CPU runs and the portable models of the
//! others; BLAKE2s on the lanes against RustCrypto's `blake2`; adversarial signatures
//! (every byte flipped, wrong epochs, wrong sizes) through the engine on every backend;
//! and the one-use rule of the secret key across its bytes.

mod common;

use blake2::{Blake2s256, Digest};
use common::{unhex, vectors_dir};
use linesig::leanxmss::{self, testing, Instance, KeyFormatError, SecretKey, SignError};
use linesig::{Backend, Engine, Item, Reject, Scheme, Verdict};
use rand::{Rng, RngCore, SeedableRng};
use std::collections::BTreeMap;
use std::path::Path;

const SPEC: Instance = Instance::Spec;

/// One `data.yaml`: `input` (a scalar, or a map of scalars) and `output`, each kept as
/// its text; a flow list continued on indented lines is joined.
struct Case {
    name: String,
    input: BTreeMap<String, String>,
    output: String,
}

impl Case {
    fn bytes(&self, key: &str) -> Vec<u8> {
        hex_of(&self.input[key])
    }
    fn number(&self, key: &str) -> u32 {
        self.input[key].parse().expect("a number")
    }
    fn array<const N: usize>(&self, key: &str) -> [u8; N] {
        self.bytes(key).try_into().expect("the field's size")
    }
    fn output_bytes(&self) -> Option<Vec<u8>> {
        (self.output != "null").then(|| hex_of(&self.output))
    }
}

fn hex_of(text: &str) -> Vec<u8> {
    unhex(text.trim_matches('\'').trim_start_matches("0x"))
}

fn cases(folder: &str) -> Vec<Case> {
    let dir = vectors_dir().join("leanxmss").join(folder);
    let mut names: Vec<_> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.expect("entry").path())
        .filter(|p| p.is_dir())
        .collect();
    names.sort();
    names.iter().map(|path| read_case(path)).collect()
}

fn read_case(path: &Path) -> Case {
    let text = std::fs::read_to_string(path.join("data.yaml")).expect("data.yaml");
    let mut input = BTreeMap::new();
    let mut output = String::new();
    let mut in_output = false;
    for line in text.lines() {
        if let Some(rest) = line.strip_prefix("output:") {
            output = rest.trim().to_string();
            in_output = true;
        } else if let Some(rest) = line.strip_prefix("input:") {
            if !rest.trim().is_empty() {
                input.insert("input".to_string(), rest.trim().to_string());
            }
            in_output = false;
        } else if in_output {
            output.push_str(line.trim());
        } else if let Some((key, value)) = line.trim().split_once(':') {
            input.insert(key.to_string(), value.trim().to_string());
        }
    }
    Case {
        name: path.file_name().unwrap().to_string_lossy().into_owned(),
        input,
        output,
    }
}

fn backends() -> Vec<Backend> {
    let mut all: Vec<Backend> = testing::implementations()
        .into_iter()
        .map(testing::backend_of)
        .collect();
    all.dedup();
    all
}

#[test]
fn vector_counts() {
    let counts: Vec<usize> = [
        "blake2s",
        "tweak_hash",
        "wots_encode",
        "key_gen",
        "sign",
        "verify",
    ]
    .iter()
    .map(|f| cases(f).len())
    .collect();
    assert_eq!(counts, [5, 12, 3, 6, 5, 8]);
    assert_eq!(counts.iter().sum::<usize>(), 39);
}

#[test]
fn blake2s_vectors() {
    for case in cases("blake2s") {
        let input = hex_of(&case.input["input"]);
        let expected = case.output_bytes().expect("a digest");
        assert_eq!(
            leanxmss::blake2s_256(&input).to_vec(),
            expected,
            "{}",
            case.name
        );
    }
}

#[test]
fn blake2s_matches_rustcrypto_on_every_length() {
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(7);
    for len in 0..=300 {
        for _ in 0..3 {
            let mut input = vec![0u8; len];
            rng.fill_bytes(&mut input);
            let expected: [u8; 32] = Blake2s256::digest(&input).into();
            assert_eq!(leanxmss::blake2s_256(&input), expected, "length {len}");
        }
    }
    // The lane form on the array model, four lanes, every whole-word length up to 300
    // bytes (the SIMD paths' compressions are checked against the arrays in
    // linesig-simd, and through every vector here).
    for words in 0..=75 {
        let inputs: [Vec<u32>; 4] =
            core::array::from_fn(|_| (0..words).map(|_| rng.gen()).collect());
        let lanes = testing::blake2s_words(&inputs);
        for (l, input) in inputs.iter().enumerate() {
            let bytes: Vec<u8> = input.iter().flat_map(|w| w.to_le_bytes()).collect();
            let expected: [u8; 32] = Blake2s256::digest(&bytes).into();
            assert_eq!(lanes[l], expected, "{words} words, lane {l}");
        }
    }
}

#[test]
fn tweak_hash_vectors() {
    for case in cases("tweak_hash") {
        let got = SPEC.tweak_hash(
            &case.array("public_param"),
            case.number("tweak_type") as u8,
            case.number("sub_position"),
            case.number("index"),
            &case.bytes("payload"),
        );
        match case.output_bytes() {
            Some(expected) => assert_eq!(
                got.expect("a known type").to_vec(),
                expected,
                "{}",
                case.name
            ),
            None => assert!(got.is_err(), "{}: an unknown type is an error", case.name),
        }
    }
}

#[test]
fn wots_encode_vectors() {
    for case in cases("wots_encode") {
        let got = SPEC.encode(
            &case.array("public_param"),
            &case.array("message"),
            &case.array("randomness"),
            case.number("epoch"),
        );
        let expected: Option<Vec<u8>> = (case.output != "null").then(|| {
            case.output
                .trim_matches(|c| c == '[' || c == ']')
                .split(',')
                .map(|d| d.trim().parse().expect("a digit"))
                .collect()
        });
        assert_eq!(got.map(|d| d.to_vec()), expected, "{}", case.name);
    }
}

#[test]
fn key_gen_vectors_on_every_backend() {
    for backend in backends() {
        for case in cases("key_gen") {
            let got = leanxmss::key_gen(
                SPEC,
                &case.array("seed"),
                case.number("epoch_start"),
                case.number("epoch_end"),
                backend,
            );
            match case.output_bytes() {
                Some(expected) => {
                    assert_eq!(
                        got.expect("a key").public_key().to_vec(),
                        expected,
                        "{} on {backend}",
                        case.name
                    )
                }
                None => assert!(got.is_err(), "{}: an empty range is an error", case.name),
            }
        }
    }
}

#[test]
fn sign_vectors_on_every_backend() {
    for backend in backends() {
        for case in cases("sign") {
            let mut key = leanxmss::key_gen(
                SPEC,
                &case.array("seed"),
                case.number("epoch_start"),
                case.number("epoch_end"),
                backend,
            )
            .expect("a key");
            let epoch = case.number("epoch");
            let got = key.sign(epoch, &case.array("message"));
            match case.output_bytes() {
                Some(expected) => {
                    let signature = got.unwrap_or_else(|e| panic!("{}: {e}", case.name));
                    assert_eq!(signature.to_vec(), expected, "{} on {backend}", case.name);
                    assert_eq!(
                        SPEC.verify(&key.public_key(), epoch, &case.array("message"), &signature),
                        Ok(true)
                    );
                }
                None => assert!(
                    matches!(got, Err(SignError::EpochOutOfRange { .. })),
                    "{}: {got:?}",
                    case.name
                ),
            }
        }
    }
}

/// The verify vectors through the direct call and, as items, on every implementation.
#[test]
fn verify_vectors_on_every_implementation() {
    for case in cases("verify") {
        let key = case.bytes("public_key");
        let signature = case.bytes("signature");
        let message: [u8; 32] = case.array("message");
        let epoch = case.number("epoch");
        let direct = SPEC.verify(&key, epoch, &message, &signature);
        let context = epoch.to_le_bytes();
        let item = Item::new(&key, &message, &signature).with_context(&context);
        let verdicts_of =
            |implementation: &str| testing::verify_on(SPEC, implementation, &vec![item; 5]);
        match case.output.as_str() {
            "null" => {
                assert!(direct.is_err(), "{}: a wrong size is an error", case.name);
                for implementation in testing::implementations() {
                    assert!(verdicts_of(implementation)
                        .iter()
                        .all(|v| *v == Verdict::Invalid(Reject::BadLength)));
                }
            }
            expected => {
                let expected = expected == "true";
                assert_eq!(direct, Ok(expected), "{}", case.name);
                for implementation in testing::implementations() {
                    let verdicts = verdicts_of(implementation);
                    assert!(
                        verdicts.iter().all(|v| v.is_valid() == expected),
                        "{} on {implementation}: {verdicts:?}",
                        case.name
                    );
                }
            }
        }
    }
}

/// One adversarial case: key, epoch context, message, signature, expected verdict.
type Row = (Vec<u8>, Vec<u8>, Vec<u8>, Vec<u8>, Verdict);

/// A key over a few epochs, its signatures, and each one's tampered copies: every byte
/// flipped, other epochs, other messages, wrong sizes; the same verdicts on every
/// implementation and through the engine on every backend, mixed in one batch.
#[test]
fn adversarial_signatures_on_every_implementation() {
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(2026);
    let seed: [u8; 32] = rng.gen();
    let (start, end) = (u32::MAX - 5, u32::MAX);
    let mut key = leanxmss::key_gen(SPEC, &seed, start, end, Backend::Portable).expect("a key");
    let public_key = key.public_key();
    let mut signed = Vec::new();
    for epoch in [start, end] {
        let message: [u8; 32] = rng.gen();
        signed.push((epoch, message, key.sign(epoch, &message).expect("signs")));
    }
    let mut cases: Vec<Row> = Vec::new();
    for (epoch, message, signature) in &signed {
        let ctx = epoch.to_le_bytes().to_vec();
        let pk = public_key.to_vec();
        cases.push((
            pk.clone(),
            ctx.clone(),
            message.to_vec(),
            signature.to_vec(),
            Verdict::Valid,
        ));
        for at in 0..signature.len() {
            let mut bad = signature.to_vec();
            bad[at] ^= 1 << (at % 8);
            cases.push((
                pk.clone(),
                ctx.clone(),
                message.to_vec(),
                bad,
                Verdict::Invalid(Reject::EquationFailed),
            ));
        }
        for at in 0..pk.len() {
            let mut bad = pk.clone();
            bad[at] ^= 0x80;
            cases.push((
                bad,
                ctx.clone(),
                message.to_vec(),
                signature.to_vec(),
                Verdict::Invalid(Reject::EquationFailed),
            ));
        }
        for other in [0, 1, epoch ^ 1, epoch.wrapping_sub(2)] {
            cases.push((
                pk.clone(),
                other.to_le_bytes().to_vec(),
                message.to_vec(),
                signature.to_vec(),
                Verdict::Invalid(Reject::EquationFailed),
            ));
        }
        let mut other_message = message.to_vec();
        other_message[31] ^= 1;
        cases.push((
            pk.clone(),
            ctx.clone(),
            other_message,
            signature.to_vec(),
            Verdict::Invalid(Reject::EquationFailed),
        ));
        let bad_length = Verdict::Invalid(Reject::BadLength);
        cases.push((
            pk[..31].to_vec(),
            ctx.clone(),
            message.to_vec(),
            signature.to_vec(),
            bad_length,
        ));
        cases.push((
            pk.clone(),
            ctx.clone(),
            message.to_vec(),
            signature[..1207].to_vec(),
            bad_length,
        ));
        cases.push((
            pk.clone(),
            ctx.clone(),
            message.to_vec(),
            [signature.as_slice(), &[0]].concat(),
            bad_length,
        ));
        cases.push((
            pk.clone(),
            ctx.clone(),
            message[..31].to_vec(),
            signature.to_vec(),
            bad_length,
        ));
        cases.push((
            pk.clone(),
            ctx[..3].to_vec(),
            message.to_vec(),
            signature.to_vec(),
            Verdict::Invalid(Reject::BadContext),
        ));
        cases.push((
            pk.clone(),
            vec![],
            message.to_vec(),
            signature.to_vec(),
            Verdict::Invalid(Reject::BadContext),
        ));
    }
    let items: Vec<Item<'_>> = cases
        .iter()
        .map(|(pk, ctx, m, s, _)| Item::new(pk, m, s).with_context(ctx))
        .collect();
    let expected: Vec<Verdict> = cases.iter().map(|c| c.4).collect();
    for implementation in testing::implementations() {
        assert_eq!(
            testing::verify_on(SPEC, implementation, &items),
            expected,
            "{implementation}"
        );
    }
    for backend in backends() {
        let engine = Engine::builder()
            .scheme(Scheme::LeanXmss(SPEC))
            .backend(backend)
            .workers(2)
            .batch_size(37)
            .build()
            .expect("an engine");
        assert_eq!(engine.verify(&items), expected, "engine on {backend}");
    }
    assert_eq!("leanxmss".parse::<Scheme>(), Ok(Scheme::LeanXmss(SPEC)));
}

/// A valid signature whose randomizer no longer encodes: the verdict is `false` (the
/// encoding is checked before anything else), never a panic.
#[test]
fn inadmissible_randomizer_is_rejected() {
    let key = leanxmss::key_gen(SPEC, &[9; 32], 0, 0, Backend::Portable).expect("a key");
    let message = [3u8; 32];
    let mut signature = key.signature_at(0, &message).expect("signs");
    let pp: [u8; 16] = key.public_key()[16..].try_into().unwrap();
    // Find a randomizer that is not admissible and put it in.
    let mut trial = 0u8;
    loop {
        let mut rnd = [0u8; 24];
        rnd[0] = trial;
        if SPEC.encode(&pp, &message, &rnd, 0).is_none() {
            signature[672..696].copy_from_slice(&rnd);
            break;
        }
        trial += 1;
    }
    assert_eq!(
        SPEC.verify(&key.public_key(), 0, &message, &signature),
        Ok(false)
    );
}

/// The key signs each epoch once, in order, and says so after its bytes are reloaded;
/// damaged bytes are refused with their reason.
#[test]
fn secret_key_signs_each_epoch_once_across_reloads() {
    let mut key = leanxmss::key_gen(SPEC, &[1; 32], 10, 20, Backend::Portable).expect("a key");
    let message = [5u8; 32];
    key.sign(12, &message).expect("signs 12");
    assert_eq!(key.next_epoch(), 13);
    assert!(matches!(
        key.sign(12, &message),
        Err(SignError::EpochUsed {
            epoch: 12,
            next: 13
        })
    ));
    assert!(matches!(
        key.sign(11, &message),
        Err(SignError::EpochUsed { .. })
    ));
    let bytes = key.to_bytes();
    let mut reloaded = SecretKey::from_bytes(&bytes, Backend::Portable).expect("reloads");
    assert_eq!(reloaded.public_key(), key.public_key());
    assert!(matches!(
        reloaded.sign(12, &message),
        Err(SignError::EpochUsed { .. })
    ));
    let signature = reloaded.sign(20, &message).expect("signs 20");
    assert_eq!(
        SPEC.verify(&key.public_key(), 20, &message, &signature),
        Ok(true)
    );
    assert!(matches!(
        reloaded.sign(20, &message),
        Err(SignError::EpochUsed { .. })
    ));
    assert!(matches!(
        reloaded.sign(21, &message),
        Err(SignError::EpochOutOfRange { .. })
    ));

    let mut damaged = bytes;
    damaged[20] ^= 1;
    assert_eq!(
        SecretKey::from_bytes(&damaged, Backend::Portable).unwrap_err(),
        KeyFormatError::BadChecksum
    );
    assert_eq!(
        SecretKey::from_bytes(&bytes[..50], Backend::Portable).unwrap_err(),
        KeyFormatError::BadLength(50)
    );
    assert_eq!(
        SecretKey::from_bytes(b"LSSK", Backend::Portable).unwrap_err(),
        KeyFormatError::BadMagic
    );
    assert!(leanxmss::key_gen(SPEC, &[1; 32], 5, 4, Backend::Portable).is_err());
}

/// Through a key file: the state is saved before a signature is returned, so a reopened
/// file never signs a used epoch; a second key file is never written over the first.
#[test]
fn key_file_keeps_used_epochs() {
    let dir = std::env::temp_dir().join(format!("linesig-leanxmss-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("key.lxsk");
    let _ = std::fs::remove_file(&path);
    let key = leanxmss::key_gen(SPEC, &[4; 32], 0, 7, Backend::Portable).expect("a key");
    leanxmss::save_new(&path, &key).expect("a new file");
    assert!(matches!(
        leanxmss::save_new(&path, &key),
        Err(leanxmss::KeyFileError::Exists { .. })
    ));
    let message = [8u8; 32];
    let signatures = {
        let mut file = leanxmss::KeyFile::open(&path, Backend::Portable).expect("opens");
        file.sign_many(2, &[message, message])
            .expect("signs 2 and 3")
    };
    for (epoch, signature) in [2, 3].into_iter().zip(&signatures) {
        assert_eq!(
            SPEC.verify(&key.public_key(), epoch, &message, signature),
            Ok(true)
        );
    }
    let mut file = leanxmss::KeyFile::open(&path, Backend::Portable).expect("reopens");
    assert_eq!(file.key().next_epoch(), 4);
    assert!(matches!(
        file.sign(3, &message),
        Err(leanxmss::KeyFileSignError::Sign(
            SignError::EpochUsed { .. }
        ))
    ));
    assert!(
        file.sign_many(6, &[message; 3]).is_err(),
        "past the range's end"
    );
    drop(file);
    std::fs::write(&path, b"LXSK\x01\x00").unwrap();
    assert!(matches!(
        leanxmss::KeyFile::open(&path, Backend::Portable),
        Err(leanxmss::KeyFileError::Format { .. })
    ));
    std::fs::remove_dir_all(&dir).unwrap();
}

/// `key_gen_reporting` reports the leaves in whole calls of the lanes (16,384 each) up to
/// one per epoch, and makes the key `key_gen` makes.
#[test]
fn key_generation_reports_its_leaves() {
    use std::cell::RefCell;
    let seed = [9u8; 32];
    let backend = Backend::best_for(Scheme::LeanXmss(SPEC));
    let seen = RefCell::new(Vec::new());
    let key = leanxmss::key_gen_reporting(SPEC, &seed, 5, 40_004, backend, &|done, total| {
        seen.borrow_mut().push((done, total))
    })
    .unwrap();
    assert_eq!(
        seen.into_inner(),
        vec![(16_384, 40_000), (32_768, 40_000), (40_000, 40_000)]
    );
    let same = leanxmss::key_gen(SPEC, &seed, 5, 40_004, backend).unwrap();
    assert_eq!(key.public_key(), same.public_key());
    // Each call's leaves land where their epochs are: a signature from each side of a
    // call's boundary, and from the last call, verifies under the one root.
    let mut key = key;
    let public_key = key.public_key();
    let message = [3u8; 32];
    let signed: Vec<(u32, Vec<u8>)> = [16_388, 16_389, 40_004]
        .into_iter()
        .map(|epoch| (epoch, key.sign(epoch, &message).expect("signs").to_vec()))
        .collect();
    let contexts: Vec<[u8; 4]> = signed.iter().map(|(e, _)| e.to_le_bytes()).collect();
    let items: Vec<Item<'_>> = signed
        .iter()
        .zip(&contexts)
        .map(|((_, sig), ctx)| Item::new(&public_key, &message, sig).with_context(ctx))
        .collect();
    let engine = Engine::builder()
        .scheme(Scheme::LeanXmss(SPEC))
        .build()
        .expect("an engine");
    assert_eq!(engine.verify(&items), vec![Verdict::Valid; 3]);
}
