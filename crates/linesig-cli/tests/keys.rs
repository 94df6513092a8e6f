//! `linesig keygen` and `sign` as a user runs them, and each epoch of a one-time key
//! used once, whatever happens: concurrent signers on one key file, a kill at every
//! point of the sign path, an output that cannot be written, counts that overflow.

mod common;

use common::{json_lines, linesig_fails, linesig_ok};
use serde_json::Value;
use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

fn linesig(args: &[&str], crash_at: Option<&str>) -> Output {
    let mut command = Command::new(env!("CARGO_BIN_EXE_linesig"));
    command
        .args(args)
        .env_remove("LINESIG_BACKEND")
        .env_remove("LINESIG_CRASH_AT")
        .stdin(Stdio::null());
    if let Some(point) = crash_at {
        command.env("LINESIG_CRASH_AT", point);
    }
    command.output().expect("run linesig")
}

/// A fresh scratch folder for one test.
fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("linesig-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// An L18 key file (small and quick: 57 KiB, 1,024 epochs prepared).
fn l18_key(dir: &Path) -> String {
    let key = dir.join("l18.key");
    let key = key.to_str().unwrap().to_string();
    linesig_ok(
        &[
            "keygen",
            "--scheme",
            "leansig-l18",
            "--out",
            &key,
            "--seed",
            "9",
            "-q",
        ],
        None,
    );
    key
}

/// The epochs of the signatures in JSON Lines `text`.
fn epochs(text: &[u8]) -> Vec<u64> {
    String::from_utf8_lossy(text)
        .lines()
        .map(|l| {
            serde_json::from_str::<Value>(l).unwrap()["epoch"]
                .as_u64()
                .unwrap()
        })
        .collect()
}

/// The epoch the next plain `sign` takes.
fn next_epoch(key: &str) -> u64 {
    let out = linesig_ok(&["sign", "--key", key, "-q"], None);
    let signed = epochs(&out.stdout);
    assert_eq!(signed.len(), 1);
    signed[0]
}

/// The reproduction, 50 rounds of four signers at once on one key file: no
/// epoch is ever signed twice (before the lock, 3 rounds in 4 signed one twice).
#[test]
fn concurrent_signers_never_share_an_epoch() {
    let dir = scratch("concurrent-sign");
    let key = l18_key(&dir);
    let mut seen = HashSet::new();
    for round in 0..50 {
        let children: Vec<_> = (0..4)
            .map(|i| {
                Command::new(env!("CARGO_BIN_EXE_linesig"))
                    .args(["sign", "--key", &key, "--count", "1", "-q"])
                    .args(["--seed", &(round * 4 + i).to_string()])
                    .env_remove("LINESIG_CRASH_AT")
                    .stdout(Stdio::piped())
                    .stderr(Stdio::piped())
                    .spawn()
                    .unwrap()
            })
            .collect();
        for child in children {
            let out = child.wait_with_output().unwrap();
            assert!(
                out.status.success(),
                "round {round}: {}",
                String::from_utf8_lossy(&out.stderr)
            );
            for epoch in epochs(&out.stdout) {
                assert!(
                    seen.insert(epoch),
                    "round {round}: epoch {epoch} signed twice"
                );
            }
        }
    }
    assert_eq!(seen.len(), 200);
    // No temporary file is left behind by a save that completed.
    let left: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(left.len(), 1, "{left:?}");
    std::fs::remove_dir_all(&dir).ok();
}

/// A kill at every point of the sign path: after it, the key never signs an epoch that
/// a signature may have left for, and a kill before the save uses up nothing.
#[test]
fn a_kill_at_any_point_never_lets_an_epoch_be_signed_again() {
    let dir = scratch("crash-sign");
    let key = l18_key(&dir);
    // (point, whether the epochs count as used after the kill)
    let points = [
        ("locked", false),
        ("temporary-written", false),
        ("renamed", true),
        ("saved", true),
        ("before-output", true),
    ];
    let mut next = next_epoch(&key) + 1;
    for (point, used) in points {
        let out = linesig(&["sign", "--key", &key, "--count", "2"], Some(point));
        assert!(!out.status.success(), "{point}: the hook did not fire");
        assert!(
            epochs(&out.stdout).is_empty(),
            "{point}: a signature left before the process died"
        );
        let after = next_epoch(&key);
        let expected = if used { next + 2 } else { next };
        assert_eq!(after, expected, "{point}");
        next = after + 1;
    }
    std::fs::remove_dir_all(&dir).ok();
}

/// An output that cannot be opened uses up no epoch; a count past the epochs' range
/// is refused, not wrapped.
#[test]
fn an_unwritable_output_or_an_overflowing_count_uses_no_epoch() {
    let dir = scratch("sign-refusals");
    let key = l18_key(&dir);
    let first = next_epoch(&key);
    let out = linesig(
        &["sign", "--key", &key, "--out", dir.to_str().unwrap()],
        None,
    );
    assert_eq!(out.status.code(), Some(3));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains(dir.to_str().unwrap()), "{err}");
    for count in ["18446744073709551615", "4294967296", "2000"] {
        let out = linesig(&["sign", "--key", &key, "--count", count], None);
        assert_eq!(out.status.code(), Some(2), "--count {count}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains("not all inside"), "--count {count}: {err}");
    }
    assert_eq!(next_epoch(&key), first + 1);
    std::fs::remove_dir_all(&dir).ok();
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
        "a leanSig or leanXMSS message is 32",
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

/// A key whose trees would take hours is refused with the estimate unless `--yes`.
#[test]
fn a_keygen_of_hours_is_refused_with_its_estimate() {
    let dir = scratch("keygen-estimate");
    let key = dir.join("big.key");
    let out = linesig(
        &[
            "keygen",
            "--scheme",
            "leansig-devnet4",
            "--out",
            key.to_str().unwrap(),
            "--active-epochs",
            "4294967295",
        ],
        None,
    );
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("hours") && err.contains("--yes"), "{err}");
    assert!(!key.exists());
    std::fs::remove_dir_all(&dir).ok();
}

/// leanXMSS through the CLI: keygen over a range, `sign` telling the key file apart by
/// its magic, `verify` accepting the signatures and refusing a tampered one, concurrent
/// signers never sharing an epoch, and the range's end refused.
#[test]
fn leanxmss_keygen_sign_verify() {
    let dir = scratch("leanxmss-keys");
    let key = dir.join("v.lxsk");
    let key = key.to_str().unwrap();
    let made = linesig_ok(
        &[
            "keygen",
            "--scheme",
            "leanxmss",
            "--start",
            "100",
            "--active-epochs",
            "40",
            "--seed",
            "3",
            "--out",
            key,
            "-q",
        ],
        None,
    );
    let public_key = String::from_utf8(made.stdout).unwrap().trim().to_string();
    assert_eq!(public_key.len(), 64);
    linesig_fails(
        &["keygen", "--scheme", "leanxmss", "--out", key],
        2,
        "exists",
    );
    linesig_fails(
        &[
            "keygen",
            "--scheme",
            "leanxmss",
            "--start",
            "4294967295",
            "--active-epochs",
            "2",
            "--out",
            "x.lxsk",
        ],
        2,
        "passes the last epoch",
    );
    let children: Vec<_> = (0..4)
        .map(|i| {
            Command::new(env!("CARGO_BIN_EXE_linesig"))
                .args([
                    "sign",
                    "--key",
                    key,
                    "--count",
                    "2",
                    "-q",
                    "--seed",
                    &i.to_string(),
                ])
                .env_remove("LINESIG_CRASH_AT")
                .stdout(Stdio::piped())
                .stderr(Stdio::piped())
                .spawn()
                .unwrap()
        })
        .collect();
    let mut lines = Vec::new();
    let mut seen = HashSet::new();
    for child in children {
        let out = child.wait_with_output().unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        for epoch in epochs(&out.stdout) {
            assert!(seen.insert(epoch), "epoch {epoch} signed twice");
        }
        lines.extend_from_slice(&out.stdout);
    }
    assert_eq!(seen, (100..108).collect::<HashSet<u64>>());
    let first: Value =
        serde_json::from_str(String::from_utf8_lossy(&lines).lines().next().unwrap()).unwrap();
    assert_eq!(first["public_key"], Value::String(public_key));
    // A tampered copy of the first signature, appended.
    let mut tampered = first.clone();
    let mut signature = tampered["signature"].as_str().unwrap().to_string();
    signature.replace_range(0..2, if &signature[0..2] == "00" { "01" } else { "00" });
    tampered["signature"] = Value::String(signature);
    lines.extend_from_slice(format!("{tampered}\n").as_bytes());
    let out = linesig_ok(&["verify", "--scheme", "leanxmss"], Some(&lines));
    let verdicts = json_lines(&out);
    assert_eq!(verdicts.len(), 9);
    assert!(
        verdicts[..8]
            .iter()
            .all(|v| v["valid"] == Value::Bool(true)),
        "{verdicts:?}"
    );
    assert_eq!(
        verdicts[8]["reason"],
        Value::String("equation_failed".into())
    );
    linesig_fails(
        &["sign", "--key", key, "--epoch", "101"],
        2,
        "next unused epoch",
    );
    linesig_fails(
        &["sign", "--key", key, "--count", "40"],
        2,
        "not all inside",
    );
    std::fs::write(dir.join("bad.lxsk"), b"LXSK\x01\x00\x01").unwrap();
    linesig_fails(
        &["sign", "--key", dir.join("bad.lxsk").to_str().unwrap()],
        3,
        "bytes",
    );
    std::fs::remove_dir_all(&dir).ok();
}
