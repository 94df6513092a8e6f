//! `linesig aggregate` and `verify-aggregate` as a user runs them, on the devnet-4
//! vectors and on keys `keygen` made.

mod common;

use common::*;
use serde_json::Value;

#[test]
fn aggregate_and_verify_aggregate_on_the_devnet4_vectors() {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../../shared/vectors/leansig/leansig_devnet4_c08a3ba_L32_dim46.json"
    );
    let doc: Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    let line = |c: &Value| {
        serde_json::json!({
            "public_key": c["public_key"], "message": c["message"],
            "signature": c["signature"], "epoch": c["epoch"],
        })
        .to_string()
    };
    let cases = doc["cases"].as_array().unwrap();
    let valid: Vec<String> = cases
        .iter()
        .filter(|c| c["expected_spec"].as_bool().unwrap())
        .map(line)
        .collect();
    let dir = std::env::temp_dir().join(format!("linesig-aggregate-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = |name: &str, lines: &[String]| {
        let p = dir.join(name);
        std::fs::write(&p, lines.join("\n")).unwrap();
        p.to_str().unwrap().to_string()
    };
    let sigs = file("sigs.jsonl", &valid);
    let proof = dir.join("proof.bin").to_str().unwrap().to_string();
    linesig_ok(&["aggregate", "--input", &sigs, "--out", &proof], None);
    // A proof is not overwritten unless asked; a list that starts with a UTF-8 BOM reads.
    linesig_fails(
        &["aggregate", "--input", &sigs, "--out", &proof],
        2,
        "not overwritten",
    );
    let with_bom = dir.join("bom.jsonl");
    let mut bytes = b"\xEF\xBB\xBF".to_vec();
    bytes.extend(valid.join("\n").as_bytes());
    std::fs::write(&with_bom, bytes).unwrap();
    linesig_ok(
        &[
            "aggregate",
            "--input",
            with_bom.to_str().unwrap(),
            "--out",
            &proof,
            "--force",
        ],
        None,
    );
    let out = linesig_ok(
        &["verify-aggregate", "--input", &sigs, "--proof", &proof],
        None,
    );
    assert!(String::from_utf8_lossy(&out.stderr).contains("valid"));

    // The public list without signatures verifies too; a changed message does not.
    let bare: Vec<String> = valid
        .iter()
        .map(|l| {
            let mut v: Value = serde_json::from_str(l).unwrap();
            v.as_object_mut().unwrap().remove("signature");
            v.to_string()
        })
        .collect();
    let bare_file = file("bare.jsonl", &bare);
    // verify-aggregate does not read signatures: a line may carry a malformed one.
    let odd: Vec<String> = valid
        .iter()
        .map(|l| {
            let mut v: Value = serde_json::from_str(l).unwrap();
            v["signature"] = Value::from(17);
            v.to_string()
        })
        .collect();
    let odd_file = file("odd.jsonl", &odd);
    linesig_ok(
        &["verify-aggregate", "--input", &odd_file, "--proof", &proof],
        None,
    );
    linesig_ok(
        &["verify-aggregate", "--input", &bare_file, "--proof", &proof],
        None,
    );
    let mut wrong = bare.clone();
    let mut v: Value = serde_json::from_str(&wrong[1]).unwrap();
    v["message"] = "00".repeat(32).into();
    wrong[1] = v.to_string();
    let wrong_file = file("wrong.jsonl", &wrong);
    linesig_fails(
        &[
            "verify-aggregate",
            "--input",
            &wrong_file,
            "--proof",
            &proof,
        ],
        1,
        "not those it was made for",
    );
    // Plonky3's terms only when asked for.
    let refused = linesig(
        &[
            "verify-aggregate",
            "--input",
            &wrong_file,
            "--proof",
            &proof,
        ],
        None,
    );
    let said = String::from_utf8_lossy(&refused.stderr);
    assert!(
        !said.contains("Invalid") && !said.contains("Witness"),
        "{said}"
    );
    let verbose = linesig(
        &[
            "verify-aggregate",
            "--verbose",
            "--input",
            &wrong_file,
            "--proof",
            &proof,
        ],
        None,
    );
    assert!(String::from_utf8_lossy(&verbose.stderr).contains("STARK verifier's account"));
    linesig_fails(
        &[
            "verify-aggregate",
            "--input",
            &bare_file[..bare_file.len() - 1],
            "--proof",
            &proof,
        ],
        3,
        "",
    );
    let short = file("short.jsonl", &bare[..3]);
    linesig_fails(
        &["verify-aggregate", "--input", &short, "--proof", &proof],
        1,
        "covers 4 signatures, 3 are listed",
    );

    // An invalid signature: no proof, its index named; other schemes refused.
    let mut mixed = valid.clone();
    mixed.insert(2, line(&cases[4]));
    let mixed_file = file("mixed.jsonl", &mixed);
    let none = dir.join("none.bin").to_str().unwrap().to_string();
    linesig_fails(
        &["aggregate", "--input", &mixed_file, "--out", &none],
        1,
        "the signature on line 3 of",
    );
    assert!(!std::path::Path::new(&none).exists());
    linesig_fails(
        &[
            "aggregate",
            "--scheme",
            "leansig-l18",
            "--input",
            &sigs,
            "--out",
            &none,
        ],
        2,
        "only leansig-devnet4 aggregates",
    );
    let garbage = file("garbage.jsonl", &["{\"public_key\": 1}".to_string()]);
    linesig_fails(
        &["aggregate", "--input", &garbage, "--out", &none],
        2,
        "line 1",
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

/// The docs' devnet-4 walk-through: keygen, sign 4, aggregate, verify-aggregate.
#[test]
fn keygen_sign_aggregate_round_trip_on_devnet4() {
    let dir = std::env::temp_dir().join(format!("linesig-keygen-d4-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let (key, sigs, proof) = (
        dir.join("v.key"),
        dir.join("sigs.jsonl"),
        dir.join("proof.bin"),
    );
    let (key, sigs, proof) = (
        key.to_str().unwrap(),
        sigs.to_str().unwrap(),
        proof.to_str().unwrap(),
    );
    linesig_ok(
        &[
            "keygen",
            "--scheme",
            "leansig-devnet4",
            "--out",
            key,
            "--seed",
            "7",
        ],
        None,
    );
    linesig_ok(&["sign", "--key", key, "--count", "4", "--out", sigs], None);
    linesig_ok(&["aggregate", "--input", sigs, "--out", proof], None);
    linesig_ok(
        &["verify-aggregate", "--input", sigs, "--proof", proof],
        None,
    );
    std::fs::remove_dir_all(&dir).ok();
}
