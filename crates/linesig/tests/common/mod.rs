//! Shared by the integration tests: the vector sets of `../shared/vectors/ed25519/` and
//! the reference implementations each policy must agree with.
#![allow(dead_code)]

use linesig::{Backend, Item, Policy};
use std::path::PathBuf;

/// Where the shared vectors live: `$LINESIG_VECTORS_DIR`, else `../shared/vectors` beside
/// the repository. A missing directory fails the test loudly rather than skipping it.
pub fn vectors_dir() -> PathBuf {
    let dir = match std::env::var_os("LINESIG_VECTORS_DIR") {
        Some(d) => PathBuf::from(d),
        None => PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared/vectors"),
    };
    assert!(
        dir.join("ed25519").is_dir(),
        "vector directory {} not found: clone with shared/ beside the repository or set LINESIG_VECTORS_DIR",
        dir.display()
    );
    dir
}

/// One vector case with the verdict each policy's oracle gives (`None`: decided by the
/// oracle at test time rather than by the set's own metadata).
#[derive(Clone, Debug)]
pub struct Case {
    pub set: &'static str,
    pub id: String,
    pub public_key: Vec<u8>,
    pub message: Vec<u8>,
    pub signature: Vec<u8>,
    pub flags: Vec<String>,
    pub strict: Option<bool>,
    pub zip215: Option<bool>,
    pub zip215_strict: Option<bool>,
}

impl Case {
    pub fn item(&self) -> Item<'_> {
        Item {
            public_key: &self.public_key,
            message: &self.message,
            signature: &self.signature,
            context: &[],
        }
    }

    pub fn expected(&self, policy: Policy) -> Option<bool> {
        match policy {
            Policy::Strict => self.strict,
            Policy::Zip215 => self.zip215,
            Policy::Zip215Strict => self.zip215_strict,
        }
    }

    pub fn has_flag(&self, flag: &str) -> bool {
        self.flags.iter().any(|f| f == flag)
    }
}

pub fn unhex(s: &str) -> Vec<u8> {
    hex::decode(s).unwrap_or_else(|e| panic!("bad hex {s:?}: {e}"))
}

fn read_json(relative: &str) -> serde_json::Value {
    let path = vectors_dir().join(relative);
    let text = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("reading {}: {e}", path.display()));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("parsing {}: {e}", path.display()))
}

fn str_of<'a>(v: &'a serde_json::Value, key: &str) -> &'a str {
    v[key]
        .as_str()
        .unwrap_or_else(|| panic!("field {key} missing in {v}"))
}

fn case(set: &'static str, id: String, pk: Vec<u8>, msg: Vec<u8>, sig: Vec<u8>) -> Case {
    Case {
        set,
        id,
        public_key: pk,
        message: msg,
        signature: sig,
        flags: Vec::new(),
        strict: None,
        zip215: None,
        zip215_strict: None,
    }
}

/// Wycheproof EdDSA: `result` is Strict's and SIMD-0376's verdict; ZIP-215 also accepts
/// tcId 151 (R = (0, 1) encoded with the sign bit set, a non-canonical identity).
pub fn wycheproof() -> Vec<Case> {
    let doc = read_json("ed25519/wycheproof/ed25519_test.json");
    let mut out = Vec::new();
    for group in doc["testGroups"].as_array().unwrap() {
        let pk = unhex(str_of(&group["publicKey"], "pk"));
        for t in group["tests"].as_array().unwrap() {
            let tc = t["tcId"].as_u64().unwrap();
            let valid = str_of(t, "result") == "valid";
            let mut c = case(
                "wycheproof",
                format!("tcId {tc}"),
                pk.clone(),
                unhex(str_of(t, "msg")),
                unhex(str_of(t, "sig")),
            );
            c.strict = Some(valid);
            c.zip215 = Some(valid || tc == 151);
            c.zip215_strict = Some(valid);
            out.push(c);
        }
    }
    out
}

pub fn rfc8032() -> Vec<Case> {
    let doc = read_json("ed25519/rfc8032/rfc8032_ed25519.json");
    doc["tests"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| {
            let mut c = case(
                "rfc8032",
                str_of(t, "name").to_string(),
                unhex(str_of(t, "public_key")),
                unhex(str_of(t, "message")),
                unhex(str_of(t, "signature")),
            );
            c.strict = Some(true);
            c.zip215 = Some(true);
            c.zip215_strict = Some(true);
            c
        })
        .collect()
}

/// speccheck's 12 cases; which each rule accepts is the table in the vectors README.
pub fn speccheck() -> Vec<Case> {
    const STRICT: &[usize] = &[3];
    const ZIP215: &[usize] = &[0, 1, 2, 3, 4, 5, 9, 10, 11];
    const ZIP215_STRICT: &[usize] = &[3, 4, 5];
    let doc = read_json("ed25519/speccheck/cases.json");
    doc.as_array()
        .unwrap()
        .iter()
        .enumerate()
        .map(|(i, t)| {
            let mut c = case(
                "speccheck",
                format!("case {i}"),
                unhex(str_of(t, "pub_key")),
                unhex(str_of(t, "message")),
                unhex(str_of(t, "signature")),
            );
            c.strict = Some(STRICT.contains(&i));
            c.zip215 = Some(ZIP215.contains(&i));
            c.zip215_strict = Some(ZIP215_STRICT.contains(&i));
            c
        })
        .collect()
}

/// C2SP CCTV. Strict rejects every vector flagged non-canonical R, low-order residue
/// (cofactorless), low-order A or R, or k over re-encoded bytes; SIMD-0376 rejects
/// non-canonical or low-order A and R on top of ZIP-215. ZIP-215 itself rejects only
/// the `reencoded_k` vectors in which k matters (88 of 146), so its verdict is left to
/// the ZIP-215 oracles and checked against the total.
pub fn cctv() -> Vec<Case> {
    let doc = read_json("ed25519/cctv/ed25519vectors.json");
    doc.as_array()
        .unwrap()
        .iter()
        .map(|t| {
            let mut c = case(
                "cctv",
                format!("number {}", t["number"]),
                unhex(str_of(t, "key")),
                str_of(t, "msg").as_bytes().to_vec(),
                unhex(str_of(t, "sig")),
            );
            c.flags = t["flags"]
                .as_array()
                .map(|a| a.iter().map(|f| f.as_str().unwrap().to_string()).collect())
                .unwrap_or_default();
            let any = |flags: &[&str]| flags.iter().any(|f| c.has_flag(f));
            let strict = !any(&[
                "non_canonical_R",
                "low_order_residue",
                "low_order_A",
                "low_order_R",
                "reencoded_k",
            ]);
            // None: accepted exactly when ZIP-215 accepts.
            let zip215_strict = any(&[
                "non_canonical_A",
                "non_canonical_R",
                "low_order_A",
                "low_order_R",
            ])
            .then_some(false);
            c.strict = Some(strict);
            c.zip215_strict = zip215_strict;
            c
        })
        .collect()
}

pub fn firedancer_should_fail() -> Vec<Case> {
    firedancer(
        "ed25519/firedancer/malleability_should_fail.json",
        "firedancer-fail",
        [false, true, false],
    )
}

pub fn firedancer_should_pass() -> Vec<Case> {
    firedancer(
        "ed25519/firedancer/malleability_should_pass.json",
        "firedancer-pass",
        [true, true, true],
    )
}

fn firedancer(path: &str, set: &'static str, expect: [bool; 3]) -> Vec<Case> {
    let doc = read_json(path);
    doc["tests"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| {
            let mut c = case(
                set,
                format!("index {}", t["index"]),
                unhex(str_of(t, "pub")),
                str_of(t, "msg_ascii").as_bytes().to_vec(),
                unhex(str_of(t, "sig")),
            );
            [c.strict, c.zip215, c.zip215_strict] = expect.map(Some);
            c
        })
        .collect()
}

/// djb's sign.input: `sk‖pk : pk : msg : sig‖msg :`, all honest.
pub fn djb() -> Vec<Case> {
    use std::io::Read;
    let path = vectors_dir().join("ed25519/djb/sign.input.gz");
    let file = std::fs::File::open(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let mut text = String::new();
    flate2::read::GzDecoder::new(file)
        .read_to_string(&mut text)
        .unwrap();
    text.lines()
        .enumerate()
        .map(|(i, line)| {
            let f: Vec<&str> = line.split(':').collect();
            let sig = unhex(f[3]);
            let mut c = case(
                "djb",
                format!("line {}", i + 1),
                unhex(f[1]),
                unhex(f[2]),
                sig[..64].to_vec(),
            );
            [c.strict, c.zip215, c.zip215_strict] = [Some(true); 3];
            c
        })
        .collect()
}

pub fn all_sets() -> Vec<(&'static str, Vec<Case>)> {
    vec![
        ("wycheproof", wycheproof()),
        ("rfc8032", rfc8032()),
        ("speccheck", speccheck()),
        ("cctv", cctv()),
        ("firedancer-fail", firedancer_should_fail()),
        ("firedancer-pass", firedancer_should_pass()),
        ("djb", djb()),
    ]
}

// ---------------------------------------------------------------- oracles

fn arrays(item: &Item<'_>) -> Option<([u8; 32], [u8; 64])> {
    Some((
        item.public_key.try_into().ok()?,
        item.signature.try_into().ok()?,
    ))
}

/// ed25519-dalek 2.x `verify_strict`.
pub fn dalek_verify_strict(item: &Item<'_>) -> bool {
    let Some((pk, sig)) = arrays(item) else {
        return false;
    };
    let Ok(key) = ed25519_dalek::VerifyingKey::from_bytes(&pk) else {
        return false;
    };
    key.verify_strict(item.message, &ed25519_dalek::Signature::from_bytes(&sig))
        .is_ok()
}

/// `solana-ed25519` 0.2.x `verify_dalek`: Solana mainnet today.
pub fn solana_verify_dalek(item: &Item<'_>) -> bool {
    use solana_ed25519::ed_sigs::{Signature, VerificationKey};
    let Some((pk, sig)) = arrays(item) else {
        return false;
    };
    let Ok(key) = VerificationKey::try_from(pk) else {
        return false;
    };
    key.verify_dalek(&Signature::from(sig), item.message)
        .is_ok()
}

/// `solana-ed25519` 0.2.x `verify_zebra` (ZIP-215 with HEEA half-size scalars).
pub fn solana_verify_zebra(item: &Item<'_>) -> bool {
    use solana_ed25519::ed_sigs::{Signature, VerificationKey};
    let Some((pk, sig)) = arrays(item) else {
        return false;
    };
    let Ok(key) = VerificationKey::try_from(pk) else {
        return false;
    };
    key.verify_zebra(&Signature::from(sig), item.message)
        .is_ok()
}

/// ed25519-zebra: ZIP-215.
pub fn zebra_verify(item: &Item<'_>) -> bool {
    let Some((pk, sig)) = arrays(item) else {
        return false;
    };
    let Ok(key) = ed25519_zebra::VerificationKey::try_from(pk) else {
        return false;
    };
    key.verify(&ed25519_zebra::Signature::from(sig), item.message)
        .is_ok()
}

/// ed25519-consensus: ZIP-215.
pub fn consensus_verify(item: &Item<'_>) -> bool {
    let Some((pk, sig)) = arrays(item) else {
        return false;
    };
    let Ok(key) = ed25519_consensus::VerificationKey::try_from(pk) else {
        return false;
    };
    key.verify(&ed25519_consensus::Signature::from(sig), item.message)
        .is_ok()
}

/// SIMD-0376 as its text states it, written independently of linesig's code: ZIP-215
/// (by ed25519-zebra) plus canonical, non-small-order A and R (by re-encoding with
/// curve25519-dalek, not by linesig's byte rules).
pub fn simd0376_model(item: &Item<'_>) -> bool {
    use curve25519_dalek::edwards::CompressedEdwardsY;
    let Some((pk, sig)) = arrays(item) else {
        return false;
    };
    let strict_point = |bytes: [u8; 32]| match CompressedEdwardsY(bytes).decompress() {
        Some(p) => p.compress().to_bytes() == bytes && !p.is_small_order(),
        None => false,
    };
    zebra_verify(item) && strict_point(pk) && strict_point(sig[..32].try_into().unwrap())
}

/// A reference verifier: does it accept the item?
pub type Oracle = fn(&Item<'_>) -> bool;

/// Every oracle for `policy`, by name.
pub fn oracles(policy: Policy) -> Vec<(&'static str, Oracle)> {
    match policy {
        Policy::Strict => vec![
            ("ed25519-dalek verify_strict", dalek_verify_strict as Oracle),
            ("solana-ed25519 verify_dalek", solana_verify_dalek),
        ],
        Policy::Zip215 => vec![
            ("ed25519-zebra", zebra_verify as Oracle),
            ("ed25519-consensus", consensus_verify),
            ("solana-ed25519 verify_zebra", solana_verify_zebra),
        ],
        Policy::Zip215Strict => vec![("SIMD-0376 model", simd0376_model as Oracle)],
    }
}

/// Every backend this CPU can run: each must give the reference verdict on every input.
pub fn backends() -> Vec<Backend> {
    let all: Vec<Backend> = Backend::ALL
        .into_iter()
        .filter(|b| b.is_supported_for(linesig::Scheme::default()))
        .collect();
    assert!(all.contains(&Backend::Portable));
    all
}

/// Verify `items` five times on one engine with the hot-key cache on (keys admitted
/// after a few signatures, so later passes run cached keys on fixed-base tables) and
/// assert every pass gives exactly `expected` (verdict and reason), and that the cache
/// was used. `what(i)` describes item i for failure messages.
#[allow(dead_code)]
pub fn assert_key_cache_changes_nothing(
    items: &[Item<'_>],
    policy: Policy,
    backend: Backend,
    expected: &[linesig::Verdict],
    what: &dyn Fn(usize) -> String,
) {
    let engine = linesig::Engine::builder()
        .scheme(linesig::Scheme::Ed25519(policy))
        .backend(backend)
        .workers(2)
        .batch_size(64)
        .key_cache(64 << 20)
        .build()
        .unwrap();
    for pass in 0..5 {
        let verdicts = engine.verify(items);
        assert_eq!(verdicts.len(), expected.len());
        for (i, (got, want)) in verdicts.iter().zip(expected).enumerate() {
            assert_eq!(
                got,
                want,
                "key cache on, pass {pass}, {backend}, {policy}: {}",
                what(i)
            );
        }
    }
    let stats = engine.key_cache_stats().expect("the cache is on");
    assert!(
        stats.hit_signatures > 0 && stats.admissions > 0,
        "{backend} {policy}: {stats:?}"
    );
    assert!(stats.used_bytes <= stats.capacity_bytes, "{stats:?}");
}
