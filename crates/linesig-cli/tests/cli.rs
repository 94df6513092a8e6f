//! The `linesig` command as a user runs it.

use ed25519_dalek::{Signer, SigningKey};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha20Rng;
use serde_json::Value;
use std::io::Write;
use std::process::{Command, Output, Stdio};

fn linesig(args: &[&str], stdin: Option<&[u8]>) -> Output {
    linesig_with_env(args, stdin, &[])
}

/// As [`linesig`], with these environment variables set (`LINESIG_BACKEND` is unset
/// unless given).
fn linesig_with_env(args: &[&str], stdin: Option<&[u8]>, vars: &[(&str, &str)]) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_linesig"))
        .args(args)
        .env_remove("LINESIG_BACKEND")
        .envs(vars.iter().copied())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run linesig");
    let mut pipe = child.stdin.take().unwrap();
    let input = stdin.unwrap_or_default().to_vec();
    let feeder = std::thread::spawn(move || {
        let _ = pipe.write_all(&input);
    });
    let out = child.wait_with_output().unwrap();
    feeder.join().unwrap();
    out
}

/// Run linesig and require success, showing its stderr otherwise.
fn linesig_ok(args: &[&str], stdin: Option<&[u8]>) -> Output {
    let out = linesig(args, stdin);
    assert!(
        out.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

/// Run linesig and require it to fail with `code` and a message containing `needle`.
fn linesig_fails(args: &[&str], code: i32, needle: &str) {
    let out = linesig(args, None);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(code), "{args:?}: {err}");
    assert!(err.contains(needle), "{args:?}: {err}");
}

/// The top-level fields `linesig bench --json` gives for every scheme, with the same
/// types (docs/bench-json.md).
fn assert_headline(r: &Value) {
    for field in ["scheme", "backend", "item", "status"] {
        assert!(r[field].is_string(), "{field} in {r}");
    }
    assert!(r["policy"].is_string() || r["policy"].is_null(), "{r}");
    for field in ["workers", "count"] {
        assert!(r[field].as_u64().unwrap() > 0, "{field} in {r}");
    }
    for field in ["wall_seconds", "throughput_per_s", "per_signature_us"] {
        assert!(r[field].as_f64().unwrap() > 0.0, "{field} in {r}");
    }
    for field in ["cpu_seconds", "throughput_per_cpu_s"] {
        assert!(r[field].is_number() || r[field].is_null(), "{field} in {r}");
    }
    for y in r["yardsticks"].as_array().unwrap() {
        assert!(y["name"].is_string(), "{y}");
        for field in ["throughput_per_s", "ratio"] {
            assert!(y[field].as_f64().unwrap() > 0.0, "{field} in {y}");
        }
    }
}

fn json_lines(out: &Output) -> Vec<Value> {
    String::from_utf8(out.stdout.clone())
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{l}: {e}")))
        .collect()
}

#[test]
fn bench_json_reports_success_and_every_field() {
    let out = linesig_ok(
        &[
            "bench",
            "--count",
            "3000",
            "--repeat",
            "1",
            "--json",
            "--yardstick",
            "none",
        ],
        None,
    );
    let runs = json_lines(&out);
    assert_eq!(runs.len(), 1);
    let r = &runs[0];
    for field in [
        "scheme",
        "policy",
        "backend",
        "workers",
        "batch",
        "count",
        "msgs_per_key",
        "msg_size",
        "invalid_fraction",
        "wall_seconds",
        "cpu_seconds",
        "throughput_per_s",
        "throughput_per_cpu_s",
        "per_signature_us",
        "status",
    ] {
        assert!(r.get(field).is_some(), "missing {field} in {r}");
    }
    assert_eq!(r["status"], "SUCCESS");
    assert_eq!(r["count"], 3000);
    assert_eq!(r["keys"], 750);
    assert_headline(r);
    assert_eq!(r["item"], "signature");
}

#[test]
fn bench_with_invalid_signatures_reports_them_all_invalid() {
    let out = linesig_ok(
        &[
            "bench",
            "--count",
            "3000",
            "--invalid",
            "0.02",
            "--repeat",
            "1",
            "--json",
            "--policy",
            "zip215",
        ],
        None,
    );
    let r = &json_lines(&out)[0];
    assert_eq!(r["status"], "SUCCESS");
    assert_eq!(r["invalid_count"], 60);
    assert_eq!(r["mismatches"], 0);
    assert_eq!(r["yardstick"]["agrees_with_expectation"], true);
    // verify_strict per item, then dalek's and zebra's batch equations per 512 items:
    // each must reject exactly the batches holding a corrupted signature.
    let names: Vec<&str> = r["yardsticks"]
        .as_array()
        .unwrap()
        .iter()
        .map(|y| {
            assert_eq!(y["agrees_with_expectation"], true, "{y}");
            y["name"].as_str().unwrap()
        })
        .collect();
    assert_eq!(names.len(), 3, "{names:?}");
    assert!(names[1].contains("verify_batch") && names[2].contains("zebra"));
}

#[test]
fn bench_text_report_has_the_founding_lines() {
    let out = linesig_ok(
        &[
            "bench",
            "--count",
            "1000",
            "--repeat",
            "1",
            "--msgs-per-key",
            "1",
            "--msg-size",
            "0",
            "--invalid",
            "0.5",
        ],
        None,
    );
    let text = String::from_utf8(out.stdout).unwrap();
    for line in [
        "CPU cores:",
        "Workers:",
        "Batch size:",
        "Messages per key:",
        "Time to generate keys:",
        "Time to sign:",
        "Verification time:",
        "STATUS: SUCCESS",
        "Processed:",
        "Total time:",
        "Throughput:",
        "Per signature:",
        "linesig / yardstick:",
    ] {
        assert!(text.contains(line), "missing {line:?} in\n{text}");
    }
}

/// `--keys hot:N --key-cache-mb`: the cache-off engine runs in the same rounds, and the
/// report carries the ratio, the hit rate and the memory, within the bound.
#[test]
fn bench_reports_the_key_cache() {
    let out = linesig_ok(
        &[
            "bench",
            "--count",
            "3000",
            "--keys",
            "hot:4",
            "--key-cache-mb",
            "8",
            "--repeat",
            "2",
            "--json",
            "--yardstick",
            "none",
            "--op-iterations",
            "0",
            "--workers",
            "1",
        ],
        None,
    );
    let runs = json_lines(&out);
    let r = &runs[0];
    assert_eq!(r["status"], "SUCCESS");
    assert_eq!(r["keys"], 4);
    assert_eq!(r["key_distribution"], "hot:4");
    let c = &r["key_cache"];
    assert!(c["hit_rate"].as_f64().unwrap() > 0.5, "{c}");
    assert!(c["speedup"].as_f64().unwrap() > 0.0, "{c}");
    assert_eq!(c["entries"], 4);
    assert!(c["used_bytes"].as_u64().unwrap() <= c["capacity_bytes"].as_u64().unwrap());
    linesig_fails(
        &["bench", "--keys", "zipf:0:10", "--count", "10"],
        2,
        "bad key distribution",
    );
}

#[test]
fn bench_sweep_marks_exactly_one_best() {
    let out = linesig_ok(
        &[
            "bench",
            "--count",
            "1500",
            "--repeat",
            "1",
            "--sweep",
            "--json",
            "--yardstick",
            "none",
        ],
        None,
    );
    let runs = json_lines(&out);
    assert!(runs.len() >= 6);
    assert_eq!(runs.iter().filter(|r| r["best"] == true).count(), 1);
    assert!(runs.iter().all(|r| r["status"] == "SUCCESS"));
}

#[test]
fn bench_rejects_bad_options_clearly() {
    // A backend this build has but this CPU lacks is refused, never replaced.
    if let Some(b) = linesig::Backend::ALL
        .into_iter()
        .find(|b| !b.is_supported_for(linesig::Scheme::default()))
    {
        linesig_fails(
            &["bench", "--backend", b.name()],
            2,
            "not supported on this CPU",
        );
    }
    for (args, needle) in [
        (vec!["bench", "--backend", "avx1024"], "not available"),
        (vec!["bench", "--invalid", "1.5"], "fraction"),
        (vec!["bench", "--workers", "0", "--count", "10"], "workers"),
        // Refused before any thread starts, for every scheme (the leanSig benches and
        // Paillier's pool start their own threads).
        (
            vec!["bench", "--workers", "1025", "--scheme", "leansig-devnet4"],
            "from 1 to 1024",
        ),
        (vec!["verify", "--workers", "100000"], "from 1 to 1024"),
        (vec!["bench", "--scheme", "slh-dsa-128s"], "unknown scheme"),
        (vec!["bench", "--policy", "lax"], "unknown Ed25519 policy"),
    ] {
        linesig_fails(&args, 2, needle);
    }
    // A workload that cannot fit in memory is refused before it is generated (where
    // Linux reports MemAvailable), not left to fail an allocation.
    if std::path::Path::new("/proc/meminfo").exists() {
        linesig_fails(
            &["bench", "--count", "18000000000000000"],
            2,
            "of memory is available",
        );
    }
}

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
fn bench_mldsa_reports_operations_and_both_yardsticks() {
    let out = linesig_ok(
        &[
            "bench",
            "--scheme",
            "mldsa65",
            "--count",
            "400",
            "--repeat",
            "1",
            "--invalid",
            "0.05",
            "--op-iterations",
            "10",
            "--json",
        ],
        None,
    );
    let r = &json_lines(&out)[0];
    assert_eq!(r["scheme"], "mldsa65");
    assert_headline(r);
    assert_eq!(r["status"], "SUCCESS");
    assert_eq!(r["invalid_count"], 20);
    let ops: Vec<&str> = r["operations"]
        .as_array()
        .unwrap()
        .iter()
        .map(|o| o["operation"].as_str().unwrap())
        .collect();
    assert_eq!(ops, ["keygen", "sign", "verify"]);
    assert_eq!(r["yardsticks"].as_array().unwrap().len(), 2);
    assert!(r["yardsticks"]
        .as_array()
        .unwrap()
        .iter()
        .all(|y| y["agrees_with_expectation"] == true));
    let out = linesig(
        &["bench", "--scheme", "mldsa44", "--policy", "zip215"],
        None,
    );
    assert_eq!(out.status.code(), Some(2));
}

/// ML-DSA through the key cache on every backend this CPU runs: hot keys hit, the
/// invalid fraction is still caught, and the report names what each backend runs.
#[test]
fn bench_mldsa_key_cache_on_every_backend() {
    for backend in linesig::Backend::ALL.into_iter().filter(|b| {
        b.is_supported_for(linesig::Scheme::MlDsa(
            linesig::mldsa::ParameterSet::MlDsa44,
        ))
    }) {
        let out = linesig_ok(
            &[
                "bench",
                "--scheme",
                "mldsa44",
                "--backend",
                backend.name(),
                "--count",
                "600",
                "--keys",
                "hot:3",
                "--invalid",
                "0.1",
                "--key-cache-mb",
                "4",
                "--repeat",
                "2",
                "--op-iterations",
                "0",
                "--yardstick",
                "none",
                "--json",
            ],
            None,
        );
        let r = &json_lines(&out)[0];
        assert_eq!(r["status"], "SUCCESS", "{backend}: {r}");
        assert_eq!(r["invalid_count"], 60);
        assert!(r["backend"].as_str().unwrap().starts_with(backend.name()));
        let c = &r["key_cache"];
        assert!(c["hit_rate"].as_f64().unwrap() > 0.5, "{backend}: {c}");
        assert_eq!(c["entries"], 3, "{backend}: {c}");
    }
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

#[test]
fn bench_paillier_reports_every_table_and_row() {
    let bench = |workers: &str, op_iterations: &str| -> Value {
        let out = linesig_ok(
            &[
                "bench",
                "--scheme",
                "paillier512",
                "--count",
                "6",
                "--repeat",
                "1",
                "--op-iterations",
                op_iterations,
                "--workers",
                workers,
                "--yardstick",
                "none",
                "--json",
            ],
            None,
        );
        json_lines(&out).swap_remove(0)
    };
    let way_names = |t: &Value| -> Vec<String> {
        let ways = t["ways"].as_array().unwrap();
        assert!(ways.iter().all(|w| w["ops_per_s"].as_f64().unwrap() > 0.0));
        ways.iter()
            .map(|w| w["name"].as_str().unwrap().to_string())
            .collect()
    };
    let r = &bench("2", "2");
    assert_eq!(r["scheme"], "paillier512");
    assert_headline(r);
    assert_eq!(r["item"], "decryption");
    assert_eq!(r["status"], "SUCCESS");
    assert_eq!(r["round_trip_failures"], 0);
    assert!(r["djn_table_bytes"].as_u64().unwrap() > 0);
    let tables = r["tables"].as_array().unwrap();
    let names: Vec<&str> = tables
        .iter()
        .map(|t| t["operation"].as_str().unwrap())
        .collect();
    assert_eq!(
        names,
        ["encrypt (textbook r^n)", "encrypt (DJN)", "decrypt"]
    );
    for t in tables {
        assert_eq!(
            way_names(t),
            [
                "linesig, one call at a time",
                "linesig array call, 1 worker",
                "linesig array call, 2 workers"
            ],
            "{t}"
        );
    }
    // One worker: one array-call row, not the same one twice.
    let one_worker = bench("1", "0");
    assert_eq!(one_worker["status"], "SUCCESS");
    for t in one_worker["tables"].as_array().unwrap() {
        assert_eq!(
            way_names(t),
            [
                "linesig, one call at a time",
                "linesig array call, 1 worker"
            ],
            "{t}"
        );
    }
    let ops: Vec<&str> = r["operations"]
        .as_array()
        .unwrap()
        .iter()
        .map(|o| o["operation"].as_str().unwrap())
        .collect();
    assert_eq!(
        ops,
        [
            "keygen",
            "encrypt",
            "encrypt-djn",
            "decrypt",
            "add",
            "add-plain",
            "mul"
        ]
    );
    for (args, needle) in [
        (
            vec!["bench", "--scheme", "paillier511"],
            "Paillier key sizes",
        ),
        (vec!["bench", "--scheme", "paillierx"], "Paillier key sizes"),
        (
            vec!["bench", "--scheme", "paillier2048", "--policy", "strict"],
            "do not apply to Paillier",
        ),
        (
            vec!["bench", "--scheme", "paillier2048", "--workers", "0"],
            "workers",
        ),
    ] {
        linesig_fails(&args, 2, needle);
    }
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

#[test]
fn bench_leansig_reports_keygen_sign_verify_rows_with_cycles() {
    let out = linesig_ok(
        &[
            "bench",
            "--scheme",
            "leansig-l18",
            "--count",
            "40",
            "--repeat",
            "1",
            "--op-iterations",
            "4",
            "--workers",
            "2",
            "--batch",
            "8",
            "--json",
        ],
        None,
    );
    let r = &json_lines(&out)[0];
    assert_eq!(r["status"], "SUCCESS", "{r}");
    assert_eq!(r["epochs_prepared_per_key"], 1024);
    let ops: Vec<&str> = r["operations"]
        .as_array()
        .unwrap()
        .iter()
        .map(|o| o["operation"].as_str().unwrap())
        .collect();
    assert_eq!(ops, ["keygen", "sign", "verify"]);
    for o in r["operations"].as_array().unwrap() {
        for field in ["mean_us", "min_us", "max_us", "ops_per_s"] {
            assert!(o[field].as_f64().unwrap() > 0.0, "{o}");
        }
        #[cfg(target_arch = "x86_64")]
        assert!(o["cycles_per_op"].as_f64().unwrap() > 0.0, "{o}");
    }
    assert!(r["batch_all_workers"]["throughput_per_s"].as_f64().unwrap() > 0.0);
    assert_headline(r);
    assert_eq!(
        r["throughput_per_s"],
        r["batch_all_workers"]["throughput_per_s"]
    );
    assert_eq!(r["batch"], 8);
    assert_eq!(r["yardsticks"].as_array().unwrap().len(), 1);
    assert_eq!(r["batch_one_worker"]["workers"], 1);
    linesig_fails(
        &["bench", "--scheme", "leansig-l18", "--key-cache-mb", "4"],
        2,
        "do not apply to leanSig",
    );
}

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

#[test]
fn bench_aggregate_prints_the_founding_rows() {
    let out = linesig_ok(
        &[
            "bench",
            "--scheme",
            "leansig-devnet4",
            "--aggregate",
            "1,2",
            "--repeat",
            "1",
            "--json",
        ],
        None,
    );
    let r = &json_lines(&out)[0];
    assert_headline(r);
    let sizes = r["sizes"].as_array().unwrap();
    assert_eq!(sizes.len(), 2);
    for (s, n) in sizes.iter().zip([1, 2]) {
        assert_eq!(s["signatures"], n);
        assert!(s["proof_bytes"].as_u64().unwrap() > 1000);
        for row in ["aggregate", "verify"] {
            assert!(s[row]["mean_us"].as_f64().unwrap() > 0.0, "{s}");
        }
    }
    assert_eq!(r["status"], "SUCCESS");
    linesig_fails(
        &["bench", "--scheme", "ed25519", "--aggregate", "2"],
        2,
        "leansig-devnet4 only",
    );
    linesig_fails(
        &["bench", "--scheme", "leansig-devnet4", "--aggregate", "0"],
        2,
        "sizes must be in",
    );
}

/// A bad `LINESIG_BACKEND` names the variable that chose it, so a user knows what to
/// unset.
#[test]
fn a_bad_backend_from_the_environment_names_the_variable() {
    let out = linesig_with_env(&["verify", "--quiet"], None, &[("LINESIG_BACKEND", "foo")]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success(), "{err}");
    assert!(
        err.contains("'foo'") && err.contains("LINESIG_BACKEND"),
        "{err}"
    );
}

/// Every command that writes a file takes `--out` and `--output` alike; `replay` and
/// `verify` say which backend ran.
#[test]
fn out_and_output_name_the_same_file() {
    let dir = std::env::temp_dir().join(format!("linesig-out-alias-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let packets = dir.join("p.lspkt");
    let path = packets.to_str().unwrap();
    linesig_ok(&["gen", "--count", "20", "--output", path], None);
    assert!(std::fs::metadata(&packets).unwrap().len() > 8);
    let passed = dir.join("passed.lspkt");
    let replay = linesig_ok(
        &[
            "replay",
            path,
            "--quiet",
            "--output",
            passed.to_str().unwrap(),
        ],
        None,
    );
    assert!(std::fs::metadata(&passed).unwrap().len() > 8);
    let header = String::from_utf8_lossy(&replay.stdout);
    assert!(header.contains("· backend "), "{header}");
    let verdicts = dir.join("v.jsonl");
    let line = b"{\"public_key\":\"00\",\"message\":\"\",\"signature\":\"00\"}\n";
    let verify = linesig_ok(&["verify", "--out", verdicts.to_str().unwrap()], Some(line));
    let summary = String::from_utf8_lossy(&verify.stderr);
    assert!(summary.contains(", backend "), "{summary}");
    assert!(std::fs::read_to_string(&verdicts)
        .unwrap()
        .contains("\"valid\":false"));
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Zero where zero means nothing is refused with the range, not quietly taken as 1.
#[test]
fn zero_sizes_and_durations_are_refused() {
    linesig_fails(&["verify", "--chunk", "0"], 2, "at least 1");
    linesig_fails(&["replay", "x.lspkt", "--dedup-mb", "0"], 2, "at least 1");
    linesig_fails(&["serve", "--duration", "0"], 2, "above 0");
    linesig_fails(&["serve", "--duration", "nan"], 2, "above 0");
}

/// `serve` opens every output before it says it listens: an unwritable path fails
/// first, and nothing is announced.
#[test]
fn serve_fails_on_an_unwritable_output_before_listening() {
    let out = linesig(
        &[
            "serve",
            "--listen",
            "127.0.0.1:0",
            "--duration",
            "5",
            "--verdicts",
            "/nonexistent-dir/v.jsonl",
        ],
        None,
    );
    let (stdout, stderr) = (
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr),
    );
    assert_eq!(out.status.code(), Some(3), "{stderr}");
    assert!(stderr.contains("/nonexistent-dir/v.jsonl"), "{stderr}");
    assert!(!stdout.contains("listening"), "{stdout}");
}

/// Negative numbers are read as values and refused with the range; `replay` takes its
/// file as `--input` too.
#[test]
fn negative_values_are_refused_with_their_range() {
    linesig_fails(&["verify", "--key-cache-mb", "-1"], 2, "0 (off) or more");
    linesig_fails(&["bench", "--invalid", "-0.1"], 2, "between 0 and 1");
    linesig_fails(&["gen", "--invalid", "-0.1", "--count", "1"], 2, "[0, 1]");
    linesig_fails(
        &["replay", "--input", "/nonexistent.lspkt"],
        3,
        "nonexistent",
    );
    linesig_fails(&["replay"], 2, "FILE");
}

/// `gen --from` honours `--count`: the first COUNT packets of the file, when converting to
/// pcap too.
#[test]
fn gen_from_a_file_takes_count_packets() {
    let dir = std::env::temp_dir().join(format!("linesig-gen-from-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let all = dir.join("all.lspkt");
    let (all_path, some) = (all.to_str().unwrap(), dir.join("some.pcap"));
    linesig_ok(&["gen", "--count", "30", "--out", all_path], None);
    let out = linesig_ok(
        &[
            "gen",
            "--from",
            all_path,
            "--count",
            "7",
            "--format",
            "pcap",
            "--out",
            some.to_str().unwrap(),
        ],
        None,
    );
    let said = String::from_utf8_lossy(&out.stderr);
    assert!(said.contains("7 packets"), "{said}");
    let replay = linesig_ok(&["replay", some.to_str().unwrap(), "--quiet"], None);
    let report = String::from_utf8_lossy(&replay.stdout);
    assert!(report.contains(": 7 packets"), "{report}");
    std::fs::remove_dir_all(&dir).unwrap();
}

/// `--lanes` above what the backend has reports the lanes that ran, not the request.
#[test]
fn bench_reports_the_lanes_that_ran() {
    let out = linesig_ok(
        &[
            "bench",
            "--count",
            "64",
            "--repeat",
            "1",
            "--json",
            "--yardstick",
            "none",
            "--op-iterations",
            "0",
            "--backend",
            "reference",
            "--lanes",
            "4",
        ],
        None,
    );
    let r: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(r["lanes"], 1, "{r}");
}

/// The cache's flag counts MiB and its report says MiB.
#[test]
fn the_key_cache_is_reported_in_the_unit_of_its_flag() {
    let out = linesig_ok(
        &[
            "bench",
            "--count",
            "64",
            "--repeat",
            "1",
            "--yardstick",
            "none",
            "--op-iterations",
            "0",
            "--key-cache-mb",
            "3",
        ],
        None,
    );
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("of 3.0 MiB"), "{text}");
}

/// `replay --verdicts` writes one line per packet, every `seq` once, with only the
/// fields docs/pipeline.md lists.
#[test]
fn replay_verdict_lines_are_the_documented_ones() {
    let dir = std::env::temp_dir().join(format!("linesig-verdicts-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let (packets, verdicts) = (dir.join("p.lspkt"), dir.join("v.jsonl"));
    linesig_ok(
        &[
            "gen",
            "--count",
            "200",
            "--invalid",
            "0.1",
            "--duplicate",
            "0.1",
            "--malformed",
            "0.1",
            "--out",
            packets.to_str().unwrap(),
        ],
        None,
    );
    linesig_ok(
        &[
            "replay",
            packets.to_str().unwrap(),
            "--quiet",
            "--verdicts",
            verdicts.to_str().unwrap(),
        ],
        None,
    );
    let documented = ["seq", "verdict", "rule", "signature", "reasons"];
    let mut seqs = Vec::new();
    for line in std::fs::read_to_string(&verdicts).unwrap().lines() {
        let v: Value = serde_json::from_str(line).unwrap();
        for key in v.as_object().unwrap().keys() {
            assert!(documented.contains(&key.as_str()), "{key} in {line}");
        }
        seqs.push(v["seq"].as_u64().unwrap());
    }
    seqs.sort_unstable();
    assert_eq!(seqs, (0..200).collect::<Vec<u64>>());
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Host names are resolved wherever an address is taken; a bad one says what is needed.
#[test]
fn addresses_take_host_names() {
    let out = linesig_ok(
        &[
            "serve",
            "--listen",
            "localhost:0",
            "--duration",
            "0.2",
            "--quiet",
        ],
        None,
    );
    let said = String::from_utf8_lossy(&out.stdout);
    assert!(
        said.contains("listening on 127.0.0.1:") || said.contains("listening on [::1]:"),
        "{said}"
    );
    linesig_fails(&["serve", "--listen", "no-port-here"], 2, "HOST:PORT");
    linesig_fails(
        &["gen", "--count", "1", "--udp", "localhost"],
        2,
        "HOST:PORT",
    );
}

/// A phe yardstick that was asked for and cannot run is said on stderr, with how to
/// point at an interpreter that has it.
#[test]
fn bench_paillier_says_loudly_when_phe_cannot_run() {
    let out = linesig_with_env(
        &[
            "bench",
            "--scheme",
            "paillier512",
            "--count",
            "4",
            "--repeat",
            "1",
            "--op-iterations",
            "0",
            "--workers",
            "1",
            "--json",
        ],
        None,
        &[("LINESIG_PYTHON", "/nonexistent/python3")],
    );
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{err}");
    assert!(err.contains("the phe yardstick did not run"), "{err}");
    assert!(err.contains("/nonexistent/python3"), "{err}");
}

/// `keygen` and `sign` make what `verify` checks: an L18 key file, signatures at the
/// key's next epochs, the key file rewritten so that a used epoch stays used; a key
/// file is never overwritten, a damaged one is an I/O error, bad arguments say why.
#[test]
fn keygen_and_sign_make_signatures_verify_accepts() {
    let dir = std::env::temp_dir().join(format!("linesig-keygen-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let key = dir.join("l18.key");
    let sigs = dir.join("sigs.jsonl");
    let (key_s, sigs_s) = (key.to_str().unwrap(), sigs.to_str().unwrap());
    let made = linesig_ok(
        &[
            "keygen",
            "--scheme",
            "leansig-l18",
            "--out",
            key_s,
            "--seed",
            "5",
        ],
        None,
    );
    let public_key = String::from_utf8(made.stdout).unwrap().trim().to_string();
    assert_eq!(public_key.len(), 96, "an L18 public key is 48 bytes");
    linesig_fails(
        &["keygen", "--scheme", "leansig-l18", "--out", key_s],
        2,
        "never overwritten",
    );
    linesig_ok(
        &["sign", "--key", key_s, "--count", "3", "--out", sigs_s],
        None,
    );
    let lines = std::fs::read_to_string(&sigs).unwrap();
    let epochs: Vec<u64> = lines
        .lines()
        .map(|l| {
            serde_json::from_str::<Value>(l).unwrap()["epoch"]
                .as_u64()
                .unwrap()
        })
        .collect();
    assert_eq!(epochs, [0, 1, 2]);
    assert!(lines.contains(&public_key));
    let verdicts = linesig_ok(
        &["verify", "--scheme", "leansig-l18", "--input", sigs_s],
        None,
    );
    let verdicts = json_lines(&verdicts);
    assert!(verdicts.iter().all(|v| v["valid"] == true), "{verdicts:?}");
    // The key file kept the used epochs: the next call goes on from 3, an old epoch is refused.
    linesig_fails(
        &["sign", "--key", key_s, "--epoch", "2"],
        2,
        "each epoch is signed at most once",
    );
    let next = linesig_ok(
        &["sign", "--key", key_s, "--message", &"ab".repeat(32)],
        None,
    );
    let next: Value = serde_json::from_slice(&next.stdout).unwrap();
    assert_eq!(next["epoch"], 3);
    assert_eq!(next["message"], "ab".repeat(32));
    linesig_fails(
        &["sign", "--key", key_s, "--message", "abcd"],
        2,
        "a leanSig message is 32",
    );
    linesig_fails(
        &["sign", "--key", key_s, "--epoch", "1020", "--count", "10"],
        2,
        "prepared epochs 0 to 1023",
    );
    linesig_fails(
        &["keygen", "--scheme", "mldsa44", "--out", sigs_s],
        2,
        "unknown leanSig instance",
    );
    let mut damaged = std::fs::read(&key).unwrap();
    let middle = damaged.len() / 2;
    damaged[middle] ^= 1;
    std::fs::write(&key, &damaged).unwrap();
    linesig_fails(&["sign", "--key", key_s], 3, "truncated or altered");
    std::fs::write(&key, b"not a key").unwrap();
    linesig_fails(
        &["sign", "--key", key_s],
        3,
        "not a linesig leanSig secret key",
    );
    std::fs::remove_dir_all(&dir).ok();
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
