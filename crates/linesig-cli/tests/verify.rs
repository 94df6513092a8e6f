//! `linesig verify` as a user runs it: JSON Lines with garbage, files, ML-DSA contexts,
//! leanSig epochs, Parquet in and out.

mod common;

use common::*;
use ed25519_dalek::{Signer, SigningKey};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha20Rng;
use serde_json::Value;

/// 10,000 lines: honest, corrupted, and every kind of garbage, in a seeded mix.
#[test]
fn verify_handles_ten_thousand_lines_with_garbage() {
    let mut rng = ChaCha20Rng::seed_from_u64(9);
    let keys: Vec<SigningKey> = (0..50).map(|_| SigningKey::generate(&mut rng)).collect();
    let mut input = Vec::new();
    let mut expect: Vec<Option<&str>> = Vec::new(); // None = valid
    for i in 0..10_000 {
        let key = &keys[i % keys.len()];
        let msg: Vec<u8> = (0..rng.gen_range(0..64)).map(|_| rng.gen()).collect();
        let mut sig = key.sign(&msg).to_bytes();
        let pk = hex::encode(key.verifying_key().to_bytes());
        let line = |pk: &str, m: &[u8], s: &[u8]| {
            format!(
                r#"{{"public_key":"{pk}","message":"{}","signature":"{}"}}"#,
                hex::encode(m),
                hex::encode(s)
            )
            .into_bytes()
        };
        let (bytes, want): (Vec<u8>, Option<&str>) = match rng.gen_range(0..14) {
            0 => (b"not json at all".to_vec(), Some("malformed input")),
            1 => (b"[1,2,3]".to_vec(), Some("malformed input")),
            2 => (br#"{"public_key":"00"}"#.to_vec(), Some("malformed input")),
            3 => (line("zz", &msg, &sig), Some("malformed input")),
            4 => (vec![0xff, 0xfe, b'{', 0x80], Some("malformed input")),
            5 => (Vec::new(), Some("malformed input")),
            6 => (
                br#"{"public_key":1,"message":"","signature":""}"#.to_vec(),
                Some("malformed input"),
            ),
            7 => {
                sig[10] ^= 4;
                (line(&pk, &msg, &sig), Some("equation_failed"))
            }
            8 => (line(&pk[..62], &msg, &sig), Some("bad_length")),
            _ => (line(&pk, &msg, &sig), None),
        };
        input.extend_from_slice(&bytes);
        input.push(b'\n');
        expect.push(want);
    }
    let out = linesig_ok(
        &[
            "verify",
            "--policy",
            "strict",
            "--workers",
            "2",
            "--batch",
            "64",
            "--chunk",
            "1000",
        ],
        Some(&input),
    );
    let verdicts = json_lines(&out);
    assert_eq!(verdicts.len(), 10_000);
    for (i, (v, want)) in verdicts.iter().zip(&expect).enumerate() {
        assert_eq!(v["index"], i);
        match want {
            None => {
                assert_eq!(v["valid"], true, "line {i}: {v}");
                assert!(v.get("reason").is_none());
            }
            Some(reason) => {
                assert_eq!(v["valid"], false, "line {i}: {v}");
                assert!(
                    v["reason"].as_str().unwrap().starts_with(reason),
                    "line {i}: {v}"
                );
            }
        }
    }
    let summary = String::from_utf8_lossy(&out.stderr);
    assert!(summary.contains("10000 lines"), "{summary}");
}

#[test]
fn verify_reads_files_and_fails_clearly_on_unreadable_ones() {
    let dir = std::env::temp_dir().join(format!("linesig-cli-test-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let input = dir.join("in.jsonl");
    let output = dir.join("out.jsonl");
    // RFC 8032 TEST 1.
    std::fs::write(&input, concat!(
        r#"{"public_key":"d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a","message":"","signature":"e5564300c360ac729086e2cc806e828a84877f1eb8e5d974d873e065224901555fb8821590a33bacc61e39701cf9b46bd25bf5f0595bbe24655141438e7a100b"}"#,
        "\n"
    )).unwrap();
    linesig_ok(
        &[
            "verify",
            "--input",
            input.to_str().unwrap(),
            "--output",
            output.to_str().unwrap(),
            "--policy",
            "zip215-strict",
        ],
        None,
    );
    assert_eq!(
        std::fs::read_to_string(&output).unwrap().trim(),
        r#"{"index":0,"valid":true}"#
    );

    let missing = dir.join("does-not-exist.jsonl");
    let out = linesig(&["verify", "--input", missing.to_str().unwrap()], None);
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("cannot read"));
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn verify_mldsa_lines_with_contexts() {
    use linesig::mldsa::{self, ParameterSet};
    let pair = mldsa::generate_key_pair(ParameterSet::MlDsa44, [7; 32]);
    let sig = mldsa::sign(
        ParameterSet::MlDsa44,
        &pair.signing_key,
        b"payload",
        b"app-v1",
        [3; 32],
    )
    .unwrap();
    let line = |ctx: Option<&[u8]>| {
        let mut v = serde_json::json!({
            "public_key": hex::encode(&pair.public_key),
            "message": hex::encode(b"payload"),
            "signature": hex::encode(&sig),
        });
        if let Some(c) = ctx {
            v["context"] = hex::encode(c).into();
        }
        v.to_string()
    };
    let input = [line(Some(b"app-v1")), line(None), line(Some(&[0u8; 256]))].join("\n");
    let out = linesig_ok(&["verify", "--scheme", "mldsa44"], Some(input.as_bytes()));
    let v = json_lines(&out);
    assert_eq!(v[0]["valid"], true);
    assert_eq!(v[1]["reason"], "equation_failed");
    assert_eq!(v[2]["reason"], "bad_context");
}

/// Parquet in, Parquet out: every row keeps its columns and gets the verdict `verify`
/// gives the same item as a JSON line; nulls are `bad_length`; bad files are clear errors.
#[test]
fn verify_parquet_streams_row_groups_and_matches_json_lines() {
    use arrow_array::{
        Array, ArrayRef, BinaryArray, BooleanArray, FixedSizeBinaryArray, Int64Array, RecordBatch,
        StringArray,
    };
    use parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder;
    use parquet::arrow::ArrowWriter;
    use parquet::file::properties::WriterProperties;
    use std::sync::Arc;

    /// (public key or null, message, signature)
    type Row = (Option<Vec<u8>>, Vec<u8>, Vec<u8>);
    let mut rng = ChaCha20Rng::seed_from_u64(77);
    let mut rows: Vec<Row> = Vec::new();
    for i in 0..300usize {
        let key = SigningKey::from_bytes(&rng.gen());
        let msg: Vec<u8> = (0..rng.gen_range(0..80)).map(|_| rng.gen()).collect();
        let mut sig = key.sign(&msg).to_bytes().to_vec();
        if i % 7 == 3 {
            sig[rng.gen_range(0..64)] ^= 1 << rng.gen_range(0..8);
        }
        let pk = (i % 50 != 49).then(|| key.verifying_key().to_bytes().to_vec());
        rows.push((pk, msg, sig));
    }
    let dir = std::env::temp_dir().join(format!("linesig-parquet-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let input = dir.join("in.parquet");
    let output = dir.join("out.parquet");
    let keys = FixedSizeBinaryArray::try_from_sparse_iter_with_size(
        rows.iter().map(|r| r.0.as_deref()),
        32,
    )
    .unwrap();
    let batch = RecordBatch::try_from_iter([
        (
            "id",
            Arc::new(Int64Array::from_iter_values(0..rows.len() as i64)) as ArrayRef,
        ),
        ("public_key", Arc::new(keys) as ArrayRef),
        (
            "message",
            Arc::new(BinaryArray::from_iter_values(rows.iter().map(|r| &r.1))) as ArrayRef,
        ),
        (
            "signature",
            Arc::new(BinaryArray::from_iter_values(rows.iter().map(|r| &r.2))) as ArrayRef,
        ),
    ])
    .unwrap();
    let props = WriterProperties::builder()
        .set_max_row_group_size(100)
        .build();
    let write_parquet = |path: &std::path::Path, batch: &RecordBatch, props| {
        let file = std::fs::File::create(path).unwrap();
        let mut writer = ArrowWriter::try_new(file, batch.schema(), props).unwrap();
        writer.write(batch).unwrap();
        writer.close().unwrap();
    };
    write_parquet(&input, &batch, Some(props));

    linesig_ok(
        &[
            "verify",
            "--input",
            input.to_str().unwrap(),
            "--output",
            output.to_str().unwrap(),
            "--chunk",
            "64",
            "--quiet",
        ],
        None,
    );
    let lines: String = rows
        .iter()
        .map(|(pk, m, s)| {
            format!(
                "{{\"public_key\":\"{}\",\"message\":\"{}\",\"signature\":\"{}\"}}\n",
                hex::encode(pk.as_deref().unwrap_or_default()),
                hex::encode(m),
                hex::encode(s)
            )
        })
        .collect();
    let expected = json_lines(&linesig_ok(&["verify", "--quiet"], Some(lines.as_bytes())));

    let reader = ParquetRecordBatchReaderBuilder::try_new(std::fs::File::open(&output).unwrap())
        .unwrap()
        .build()
        .unwrap();
    let mut seen = 0usize;
    for batch in reader {
        let batch = batch.unwrap();
        let ids = batch.column_by_name("id").unwrap();
        let ids = ids.as_any().downcast_ref::<Int64Array>().unwrap();
        let valid = batch.column_by_name("valid").unwrap();
        let valid = valid.as_any().downcast_ref::<BooleanArray>().unwrap();
        let reason = batch.column_by_name("reason").unwrap();
        let reason = reason.as_any().downcast_ref::<StringArray>().unwrap();
        for row in 0..batch.num_rows() {
            let want = &expected[seen];
            assert_eq!(ids.value(row), seen as i64);
            assert_eq!(
                valid.value(row),
                want["valid"].as_bool().unwrap(),
                "row {seen}"
            );
            match want.get("reason") {
                Some(r) => assert_eq!(reason.value(row), r.as_str().unwrap(), "row {seen}"),
                None => assert!(reason.is_null(row)),
            }
            seen += 1;
        }
    }
    assert_eq!(seen, rows.len());
    let invalid = expected.iter().filter(|v| v["valid"] == false).count();
    assert!(
        invalid >= 40,
        "the file mixes valid and invalid rows ({invalid} invalid)"
    );
    assert!(
        expected[49]["reason"] == "bad_length",
        "a null key is bad_length"
    );

    // Clear errors: JSON output for Parquet input, a missing column, a hex string column.
    linesig_fails(
        &[
            "verify",
            "--input",
            input.to_str().unwrap(),
            "--output",
            "x.jsonl",
        ],
        2,
        "Parquet goes in and out together",
    );
    let text_batch = RecordBatch::try_from_iter([
        (
            "public_key",
            Arc::new(StringArray::from(vec!["00"])) as ArrayRef,
        ),
        (
            "message",
            Arc::new(BinaryArray::from_iter_values([b"m"])) as ArrayRef,
        ),
        (
            "signature",
            Arc::new(BinaryArray::from_iter_values([b"s"])) as ArrayRef,
        ),
    ])
    .unwrap();
    for (batch, needle) in [
        (text_batch.clone(), "raw bytes, not hex"),
        (
            text_batch.project(&[1, 2]).unwrap(),
            "no 'public_key' column",
        ),
    ] {
        let bad = dir.join("bad.parquet");
        write_parquet(&bad, &batch, None);
        linesig_fails(
            &[
                "verify",
                "--input",
                bad.to_str().unwrap(),
                "--output",
                output.to_str().unwrap(),
            ],
            2,
            needle,
        );
    }
    linesig_fails(
        &[
            "verify",
            "--input",
            input.to_str().unwrap(),
            "--output",
            input.to_str().unwrap(),
        ],
        2,
        "is the input file",
    );
    std::fs::write(dir.join("junk.parquet"), b"not parquet").unwrap();
    linesig_fails(
        &[
            "verify",
            "--input",
            dir.join("junk.parquet").to_str().unwrap(),
            "--output",
            output.to_str().unwrap(),
        ],
        3,
        "as Parquet",
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn verify_leansig_lines_carry_an_epoch() {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../../shared/vectors/leansig/leansig_legacy_73bedc2_L18_dim64.json"
    );
    let doc: Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    let cases = doc["cases"].as_array().unwrap();
    let mut lines: Vec<String> = cases
        .iter()
        .map(|c| {
            serde_json::json!({
                "public_key": c["public_key"], "message": c["message"],
                "signature": c["signature"], "epoch": c["epoch"],
            })
            .to_string()
        })
        .collect();
    let c = &cases[0];
    let base = serde_json::json!({
        "public_key": c["public_key"], "message": c["message"], "signature": c["signature"],
    });
    lines.push(base.to_string());
    let mut with_context = base.clone();
    with_context["context"] = "00000000".into();
    with_context["epoch"] = 0.into();
    lines.push(with_context.to_string());
    let mut too_big = base.clone();
    too_big["epoch"] = (1u64 << 32).into();
    lines.push(too_big.to_string());
    let out = linesig_ok(
        &["verify", "--scheme", "leansig-l18"],
        Some(lines.join("\n").as_bytes()),
    );
    let v = json_lines(&out);
    for (verdict, case) in v.iter().zip(cases) {
        assert_eq!(
            verdict["valid"], case["expected_spec"],
            "{}: {verdict}",
            case["name"]
        );
    }
    let n = cases.len();
    assert!(
        v[n]["reason"]
            .as_str()
            .unwrap()
            .contains("missing field \"epoch\""),
        "{}",
        v[n]
    );
    assert!(v[n + 1]["reason"]
        .as_str()
        .unwrap()
        .contains("not a \"context\""));
    assert!(v[n + 2]["reason"]
        .as_str()
        .unwrap()
        .contains("\"epoch\" is not an integer"));
    // An epoch means nothing to other schemes.
    let out = linesig_ok(
        &["verify", "--scheme", "ed25519"],
        Some(lines[0].as_bytes()),
    );
    assert!(json_lines(&out)[0]["reason"]
        .as_str()
        .unwrap()
        .contains("leanSig only"));
}

/// A UTF-8 byte-order mark before the first line is not part of its JSON; a directory
/// given as the input is refused with its path.
#[test]
fn verify_reads_a_bom_and_names_a_directory() {
    let key = SigningKey::from_bytes(&[9; 32]);
    let sig = key.sign(b"m");
    let line = format!(
        "{{\"public_key\":\"{}\",\"message\":\"{}\",\"signature\":\"{}\"}}\n",
        hex::encode(key.verifying_key().as_bytes()),
        hex::encode(b"m"),
        hex::encode(sig.to_bytes())
    );
    let mut input = b"\xEF\xBB\xBF".to_vec();
    input.extend(line.as_bytes());
    input.extend(line.as_bytes());
    let out = linesig_ok(&["verify", "--fail-on-invalid"], Some(&input));
    let verdicts = json_lines(&out);
    assert_eq!(verdicts.len(), 2);
    assert!(verdicts.iter().all(|v| v["valid"] == true), "{verdicts:?}");
    // A malformed line: exit 0 with its verdict line, or 1 with --fail-on-invalid.
    input.extend(b"not json\n");
    let out = linesig_ok(&["verify"], Some(&input));
    assert_eq!(json_lines(&out).len(), 3);
    let out = linesig(&["verify", "--fail-on-invalid"], Some(&input));
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(json_lines(&out).len(), 3, "every verdict is written first");
    let dir = std::env::temp_dir();
    linesig_fails(
        &["verify", "--input", dir.to_str().unwrap()],
        3,
        dir.to_str().unwrap(),
    );
}

/// The leanXMSS spec's valid vector verifies through `linesig verify`; a tampered copy
/// and the same signature at another epoch do not.
#[test]
fn leanxmss_spec_vector_verifies_and_tampered_does_not() {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../../shared/vectors/leanxmss/verify/verify_valid/data.yaml"
    );
    let text = std::fs::read_to_string(path).expect("the leanXMSS vectors beside the checkout");
    let field = |key: &str| -> String {
        text.lines()
            .find_map(|l| l.trim().strip_prefix(&format!("{key}: ")))
            .expect(key)
            .trim_matches('\'')
            .trim_start_matches("0x")
            .to_string()
    };
    let (pk, message, signature) = (field("public_key"), field("message"), field("signature"));
    let epoch: u32 = field("epoch").parse().unwrap();
    let mut tampered = signature.clone();
    tampered.replace_range(
        1400..1402,
        if &signature[1400..1402] == "00" {
            "01"
        } else {
            "00"
        },
    );
    let line = |sig: &str, epoch: u32| {
        format!("{{\"public_key\":\"{pk}\",\"message\":\"{message}\",\"signature\":\"{sig}\",\"epoch\":{epoch}}}\n")
    };
    let input = [
        line(&signature, epoch),
        line(&tampered, epoch),
        line(&signature, epoch + 1),
    ]
    .concat();
    let out = linesig_ok(&["verify", "--scheme", "leanxmss"], Some(input.as_bytes()));
    let valid: Vec<bool> = json_lines(&out)
        .iter()
        .map(|v| v["valid"].as_bool().unwrap())
        .collect();
    assert_eq!(valid, [true, false, false]);
}
