//! The packet commands' flags and outputs: `gen` from a file, `replay`'s verdict lines,
//! `serve` refusing an unwritable output before it listens (pipeline.rs runs them end to
//! end).

mod common;

use common::*;
use serde_json::Value;

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
