//! What every command does with its flags: the backend from the environment, `--out`
//! and `--output`, zero and negative values, host names.

mod common;

use common::*;

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
    linesig_fails(&["verify", "--batch", "0"], 2, "at least 1");
    linesig_fails(&["bench", "--batch", "0"], 2, "at least 1");
    linesig_fails(&["replay", "x.lspkt", "--batch", "0"], 2, "at least 1");
    linesig_fails(&["replay", "x.lspkt", "--dedup-mb", "0"], 2, "at least 1");
    linesig_fails(&["serve", "--duration", "0"], 2, "above 0");
    linesig_fails(&["serve", "--duration", "nan"], 2, "above 0");
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

/// Counts that cannot fit in memory are refused before any work, with the flag named,
/// never an allocation failure's abort and backtrace.
#[test]
fn counts_past_the_memory_are_refused_up_front() {
    let out = std::env::temp_dir().join(format!("linesig-huge-{}.lspkt", std::process::id()));
    let out = out.to_str().unwrap();
    for args in [
        &["gen", "--count", "1000000000000", "--out", out][..],
        &[
            "bench",
            "--scheme",
            "paillier2048",
            "--count",
            "100000000000",
        ][..],
        &["bench", "--count", "100000000000"][..],
    ] {
        let result = linesig(args, None);
        let err = String::from_utf8_lossy(&result.stderr);
        assert_eq!(result.status.code(), Some(2), "{args:?}: {err}");
        assert!(err.contains("--count"), "{args:?}: {err}");
        assert!(
            !err.contains("panicked") && !err.contains("backtrace"),
            "{args:?}: {err}"
        );
    }
    std::fs::remove_file(out).ok();
}
