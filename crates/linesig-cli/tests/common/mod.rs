//! What the CLI's test files share: running the built `linesig` and reading its output.
#![allow(dead_code)]

use serde_json::Value;
use std::io::Write;
use std::process::{Command, Output, Stdio};

pub fn linesig(args: &[&str], stdin: Option<&[u8]>) -> Output {
    linesig_with_env(args, stdin, &[])
}

/// As [`linesig`], with these environment variables set (`LINESIG_BACKEND` is unset
/// unless given).
pub fn linesig_with_env(args: &[&str], stdin: Option<&[u8]>, vars: &[(&str, &str)]) -> Output {
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
pub fn linesig_ok(args: &[&str], stdin: Option<&[u8]>) -> Output {
    let out = linesig(args, stdin);
    assert!(
        out.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

/// Run linesig and require it to fail with `code` and a message containing `needle`.
pub fn linesig_fails(args: &[&str], code: i32, needle: &str) {
    let out = linesig(args, None);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(code), "{args:?}: {err}");
    assert!(err.contains(needle), "{args:?}: {err}");
}

/// The top-level fields `linesig bench --json` gives for every scheme, with the same
/// types (docs/bench-json.md).
pub fn assert_headline(r: &Value) {
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

pub fn json_lines(out: &Output) -> Vec<Value> {
    String::from_utf8(out.stdout.clone())
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{l}: {e}")))
        .collect()
}
