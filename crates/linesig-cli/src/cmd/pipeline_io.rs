//! What `linesig serve` and `linesig replay` add around [`linesig_pipeline`]: the sink
//! their flags describe (forward over UDP, write a packet file, log verdicts as JSON
//! Lines) and the printed reports.

use crate::args::CliError;
use linesig::Verdict;
use linesig_pipeline::capture::LspktWriter;
use linesig_pipeline::{Dropped, Packet, Report, ReportKind, Sink, UdpForward, Verified};
use std::io::{self, BufWriter, Write};
use std::net::SocketAddr;
use std::path::PathBuf;

/// `--forward`, `--out` and `--verdicts` in one sink. A failed write of the packet file
/// or the verdict log is kept and fails the run at the end; a failed forward is counted.
pub struct CliSink {
    forward: Option<UdpForward>,
    out: Option<LspktWriter<BufWriter<std::fs::File>>>,
    verdicts: Option<BufWriter<std::fs::File>>,
    error: Option<String>,
}

impl CliSink {
    pub fn open(
        forward: Option<SocketAddr>,
        out: Option<&PathBuf>,
        verdicts: Option<&PathBuf>,
    ) -> Result<CliSink, CliError> {
        let create = |p: &PathBuf| {
            std::fs::File::create(p)
                .map(BufWriter::new)
                .map_err(|e| CliError::io(format!("cannot create {}: {e}", p.display())))
        };
        let forward = forward
            .map(|addr| {
                UdpForward::new(addr).map_err(|e| {
                    CliError::io(format!("cannot open a socket to forward to {addr}: {e}"))
                })
            })
            .transpose()?;
        let out = match out {
            Some(p) => Some(
                LspktWriter::new(create(p)?)
                    .map_err(|e| CliError::io(format!("cannot write {}: {e}", p.display())))?,
            ),
            None => None,
        };
        let verdicts = verdicts.map(create).transpose()?;
        Ok(CliSink {
            forward,
            out,
            verdicts,
            error: None,
        })
    }

    fn log(&mut self, line: serde_json::Value) {
        let Some(w) = &mut self.verdicts else { return };
        if let Err(e) = writeln!(w, "{line}") {
            self.error.get_or_insert(format!("verdict output: {e}"));
        }
    }
}

impl Sink for CliSink {
    fn pass(&mut self, packet: &Packet) -> io::Result<()> {
        let mut result = Ok(());
        if let Some(forward) = &mut self.forward {
            result = forward.pass(packet);
        }
        if let Some(out) = &mut self.out {
            if let Err(e) = out.write(&packet.data) {
                self.error.get_or_insert(format!("packet output: {e}"));
                result = Err(e);
            }
        }
        result
    }

    fn verified(&mut self, v: &Verified<'_>) {
        if self.verdicts.is_none() {
            return;
        }
        let reasons: Vec<&str> = v
            .verdicts
            .iter()
            .map(|verdict| match verdict {
                Verdict::Valid => "valid",
                Verdict::Invalid(r) => r.as_str(),
            })
            .collect();
        self.log(serde_json::json!({
            "seq": v.packet.seq,
            "verdict": if v.passed { "pass" } else { "invalid_signature" },
            "signature": bs58::encode(v.signature).into_string(),
            "reasons": reasons,
        }));
    }

    fn wants_dropped(&self) -> bool {
        self.verdicts.is_some()
    }

    /// The packet file lists passing packets in input order; the verdict log carries
    /// each packet's `seq` and needs none.
    fn wants_order(&self) -> bool {
        self.out.is_some()
    }

    fn dropped(&mut self, seq: u64, why: Dropped) {
        self.log(match why {
            Dropped::Malformed(rule) => {
                serde_json::json!({ "seq": seq, "verdict": "malformed", "rule": rule })
            }
            Dropped::Duplicate => serde_json::json!({ "seq": seq, "verdict": "duplicate" }),
        });
    }

    fn finish(&mut self) -> io::Result<()> {
        if let Some(out) = &mut self.out {
            if let Err(e) = out.flush() {
                self.error.get_or_insert(format!("packet output: {e}"));
            }
        }
        if let Some(w) = &mut self.verdicts {
            if let Err(e) = w.flush() {
                self.error.get_or_insert(format!("verdict output: {e}"));
            }
        }
        match self.error.take() {
            Some(e) => Err(io::Error::other(e)),
            None => Ok(()),
        }
    }
}

/// One report as a JSON line, or as the text lines of `serve` and `replay`.
pub fn print_report(report: &Report, json: bool) {
    if json {
        println!(
            "{}",
            serde_json::to_string(report).expect("report serialises")
        );
        return;
    }
    let summary = report.kind == ReportKind::Summary;
    let l = &report.latency;
    let d = &report.drops;
    let head = if summary {
        format!("total {:>6.1}s", report.seconds)
    } else {
        format!("t+{:>6.1}s", report.seconds)
    };
    println!(
        "{head}  {:>9.0} pkt/s  {:>9.0} sig/s  {:>6.3} Gbps in  latency p50 {:>7.0}µs p75 {:>7.0}µs p99 {:>7.0}µs max {:>7.0}µs  drops: malformed {} duplicate {} invalid {} overload {}{}",
        report.packets_per_sec,
        report.signatures_per_sec,
        report.input_gbps,
        l.p50_us,
        l.p75_us,
        l.p99_us,
        l.max_us,
        d.malformed,
        d.duplicate,
        d.invalid_signature,
        d.overload,
        if d.kernel > 0 { format!(" kernel {}", d.kernel) } else { String::new() },
    );
    if !summary {
        return;
    }
    println!(
        "       received {} packets, passed {}, verified {} signatures in {} batches, peak memory {}{}",
        report.received,
        report.passed,
        report.signatures,
        report.batches,
        report.peak_rss_mb.map_or("unknown".into(), |m| format!("{m:.0} MB")),
        if report.sink_errors > 0 { format!(", {} sink errors", report.sink_errors) } else { String::new() },
    );
    if let Some(v) = &report.verify_batch {
        println!(
            "       engine time per batch: p50 {:.0}µs p99 {:.0}µs max {:.0}µs over {} batches{}",
            v.p50_us,
            v.p99_us,
            v.max_us,
            v.count,
            report.busy_cores.map_or(String::new(), |c| format!(
                "; verify tiles busy {c:.2} cores"
            )),
        );
    }
    if !report.malformed_rules.is_empty() {
        let rules: Vec<String> = report
            .malformed_rules
            .iter()
            .map(|(r, n)| format!("{r} {n}"))
            .collect();
        println!("       malformed by rule: {}", rules.join(", "));
    }
}
