//! The packet pipeline end to end: `linesig gen` makes a labelled mix of valid, invalid,
//! duplicate and malformed Solana transactions; `linesig replay` (from a file) and
//! `linesig serve` (over UDP on 127.0.0.1) must pass exactly the valid, first-seen
//! packets and count every other one under its cause. Everything here stays on loopback
//! and stops by itself.

use serde_json::Value;
use std::io::{BufRead, BufReader};
use std::net::UdpSocket;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::Duration;

fn linesig_ok(args: &[&str]) -> Output {
    let out = Command::new(env!("CARGO_BIN_EXE_linesig"))
        .args(args)
        .env_remove("LINESIG_BACKEND")
        .output()
        .expect("run linesig");
    assert!(
        out.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("linesig-pipeline-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir.join(name)
}

/// Read a length-prefixed packet file (the format is documented in `linesig gen --help`).
fn read_lspkt(path: &Path) -> Vec<Vec<u8>> {
    let bytes = std::fs::read(path).unwrap();
    assert_eq!(&bytes[..8], b"LSPKTv1\n");
    let mut rest = &bytes[8..];
    let mut out = Vec::new();
    while !rest.is_empty() {
        let len = u32::from_le_bytes(rest[..4].try_into().unwrap()) as usize;
        out.push(rest[4..4 + len].to_vec());
        rest = &rest[4 + len..];
    }
    out
}

struct Mix {
    packets: Vec<Vec<u8>>,
    labels: Vec<String>,
}

impl Mix {
    fn count(&self, label: &str) -> u64 {
        self.labels.iter().filter(|l| *l == label).count() as u64
    }

    fn valid(&self) -> Vec<Vec<u8>> {
        self.packets
            .iter()
            .zip(&self.labels)
            .filter(|(_, l)| *l == "valid")
            .map(|(p, _)| p.clone())
            .collect()
    }
}

fn generate(name: &str, count: usize) -> (PathBuf, Mix) {
    let file = scratch(&format!("{name}.lspkt"));
    let labels = scratch(&format!("{name}.labels"));
    linesig_ok(&[
        "gen",
        "--count",
        &count.to_string(),
        "--seed",
        "5",
        "--signatures",
        "1-3",
        "--versions",
        "legacy,v0,v1",
        "--keys",
        "zipf:1.1:50",
        "--invalid",
        "0.1",
        "--duplicate",
        "0.1",
        "--malformed",
        "0.1",
        "--out",
        file.to_str().unwrap(),
        "--labels",
        labels.to_str().unwrap(),
    ]);
    let labels: Vec<String> = std::fs::read_to_string(&labels)
        .unwrap()
        .lines()
        .map(|l| {
            let v: Value = serde_json::from_str(l).unwrap();
            v["label"].as_str().unwrap().to_string()
        })
        .collect();
    let packets = read_lspkt(&file);
    assert_eq!(packets.len(), count);
    assert_eq!(labels.len(), count);
    let mix = Mix { packets, labels };
    for label in ["valid", "invalid", "duplicate", "malformed"] {
        assert!(mix.count(label) > 0, "the mix has no {label} packets");
    }
    (file, mix)
}

fn summary(stdout: &[u8]) -> Value {
    let last = String::from_utf8_lossy(stdout)
        .lines()
        .last()
        .expect("a summary line")
        .to_string();
    let v: Value = serde_json::from_str(&last).unwrap();
    assert_eq!(v["kind"], "summary");
    v
}

/// `linesig replay FILE --json --quiet ARGS…`, and its summary line.
fn replay_summary(file: &Path, args: &[&str]) -> Value {
    let mut all = vec!["replay", file.to_str().unwrap(), "--json", "--quiet"];
    all.extend_from_slice(args);
    summary(&linesig_ok(&all).stdout)
}

fn check_counts(s: &Value, mix: &Mix) {
    let drops = &s["drops"];
    assert_eq!(s["received"], mix.packets.len() as u64, "{s}");
    assert_eq!(s["passed"], mix.count("valid"), "{s}");
    assert_eq!(drops["invalid_signature"], mix.count("invalid"), "{s}");
    assert_eq!(drops["duplicate"], mix.count("duplicate"), "{s}");
    assert_eq!(drops["malformed"], mix.count("malformed"), "{s}");
    assert_eq!(drops["overload"], 0, "{s}");
}

#[test]
fn replay_passes_exactly_the_valid_first_seen_packets() {
    let (file, mix) = generate("replay", 800);
    let passed = scratch("replay-passed.lspkt");
    let verdicts = scratch("replay-verdicts.jsonl");
    let s = replay_summary(
        &file,
        &[
            "--batch",
            "64",
            "--out",
            passed.to_str().unwrap(),
            "--verdicts",
            verdicts.to_str().unwrap(),
        ],
    );
    check_counts(&s, &mix);
    assert_eq!(read_lspkt(&passed), mix.valid());
    // One verdict line per packet, each with the cause its label predicts.
    let mut by_seq: Vec<Option<String>> = vec![None; mix.packets.len()];
    for line in std::fs::read_to_string(&verdicts).unwrap().lines() {
        let v: Value = serde_json::from_str(line).unwrap();
        let seq = v["seq"].as_u64().unwrap() as usize;
        assert!(by_seq[seq].is_none(), "two verdicts for packet {seq}");
        by_seq[seq] = Some(v["verdict"].as_str().unwrap().to_string());
    }
    for (seq, (verdict, label)) in by_seq.iter().zip(&mix.labels).enumerate() {
        let expected = match label.as_str() {
            "valid" => "pass",
            "invalid" => "invalid_signature",
            other => other,
        };
        assert_eq!(verdict.as_deref(), Some(expected), "packet {seq}");
    }
    // The same file as a pcap capture gives the same verdicts.
    let pcap = scratch("replay.pcap");
    linesig_ok(&[
        "gen",
        "--from",
        file.to_str().unwrap(),
        "--out",
        pcap.to_str().unwrap(),
        "--format",
        "pcap",
    ]);
    check_counts(&replay_summary(&pcap, &[]), &mix);
}

#[test]
fn serve_forwards_exactly_the_valid_first_seen_packets_over_loopback() {
    let (file, mix) = generate("serve", 600);
    let sink = UdpSocket::bind("127.0.0.1:0").unwrap();
    sink.set_read_timeout(Some(Duration::from_millis(300)))
        .unwrap();
    let sink_addr = sink.local_addr().unwrap().to_string();
    let max_packets = mix.packets.len().to_string();
    let mut serve = Command::new(env!("CARGO_BIN_EXE_linesig"))
        .args([
            "serve",
            "--listen",
            "127.0.0.1:0",
            "--forward",
            &sink_addr,
            "--max-packets",
            &max_packets,
            "--duration",
            "120",
            "--json",
            "--quiet",
        ])
        .env_remove("LINESIG_BACKEND")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start linesig serve");
    let mut stdout = BufReader::new(serve.stdout.take().unwrap());
    let mut first = String::new();
    stdout.read_line(&mut first).unwrap();
    let listening: Value = serde_json::from_str(&first).expect("serve prints its address first");
    let address = listening["address"].as_str().unwrap().to_string();

    // Collect what serve forwards while gen sends the mix at a gentle rate.
    let collector = std::thread::spawn(move || {
        let mut got = Vec::new();
        let mut buf = vec![0u8; 8192];
        let mut idle = 0;
        while idle < 20 {
            match sink.recv_from(&mut buf) {
                Ok((n, _)) => {
                    got.push(buf[..n].to_vec());
                    idle = 0;
                }
                Err(_) => idle += 1,
            }
        }
        got
    });
    linesig_ok(&[
        "gen",
        "--from",
        file.to_str().unwrap(),
        "--udp",
        &address,
        "--rate",
        "3000",
    ]);
    let mut rest = Vec::new();
    std::io::Read::read_to_end(&mut stdout, &mut rest).unwrap();
    let status = serve.wait().unwrap();
    assert!(status.success(), "serve failed");
    let s = summary(&rest);
    check_counts(&s, &mix);
    assert_eq!(s["drops"]["kernel"], 0);
    let mut forwarded = collector.join().unwrap();
    let mut expected = mix.valid();
    forwarded.sort();
    expected.sort();
    assert_eq!(forwarded.len(), expected.len());
    assert!(
        forwarded == expected,
        "forwarded packets differ from the valid ones"
    );
}

#[test]
fn bad_files_and_options_are_clear_errors() {
    let junk = scratch("junk.bin");
    std::fs::write(&junk, b"not a packet file").unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_linesig"))
        .args(["replay", junk.to_str().unwrap()])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(3));
    assert!(String::from_utf8_lossy(&out.stderr).contains("neither a linesig packet file"));
    let out = Command::new(env!("CARGO_BIN_EXE_linesig"))
        .args([
            "gen",
            "--count",
            "1",
            "--signatures",
            "0-3",
            "--out",
            "/dev/null",
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let out = Command::new(env!("CARGO_BIN_EXE_linesig"))
        .args([
            "gen",
            "--count",
            "1",
            "--keys",
            "zipf:x:3",
            "--out",
            "/dev/null",
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn precompile_signatures_are_verified_when_asked() {
    let file = scratch("precompile.lspkt");
    let labels = scratch("precompile.labels");
    linesig_ok(&[
        "gen",
        "--count",
        "300",
        "--seed",
        "11",
        "--precompile",
        "0.5",
        "--invalid",
        "0.1",
        "--versions",
        "legacy,v0,v1",
        "--out",
        file.to_str().unwrap(),
        "--labels",
        labels.to_str().unwrap(),
    ]);
    let mut own_signatures = 0;
    let mut valid = 0;
    for line in std::fs::read_to_string(&labels).unwrap().lines() {
        let v: Value = serde_json::from_str(line).unwrap();
        own_signatures += v["signatures"].as_u64().unwrap();
        valid += u64::from(v["label"] == "valid");
    }
    for policy in ["strict", "zip215"] {
        let plain = replay_summary(&file, &["--policy", policy]);
        let with = replay_summary(&file, &["--policy", policy, "--precompile"]);
        assert_eq!(plain["signatures"], own_signatures);
        // About half the transactions carry one more (valid) signature.
        let extra = with["signatures"].as_u64().unwrap() - own_signatures;
        assert!(
            (100..=200).contains(&extra),
            "{extra} precompile signatures"
        );
        assert_eq!(plain["passed"], valid);
        assert_eq!(with["passed"], valid);
    }
}
