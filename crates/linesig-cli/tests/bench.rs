//! `linesig bench` as a user runs it: every scheme's report, text and JSON, the key
//! cache, the sweep, the yardsticks and their failures, the options it refuses.

mod common;

use common::*;
use serde_json::Value;

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
        (vec!["bench", "--workers", "-1", "--count", "10"], "workers"),
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
            vec!["bench", "--scheme", "paillier2048", "--workers", "-3"],
            "workers",
        ),
    ] {
        linesig_fails(&args, 2, needle);
    }
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
