//! `linesig gen`, `linesig replay` and `linesig serve`: Solana packets generated, replayed
//! from a file, or received over UDP, through the pipeline of [`linesig_pipeline`].

use crate::args::{parse_backend, CliError};
use crate::cmd::pipeline_io::{print_report, CliSink};
use crate::progress::Progress;
use crate::txgen::{self, GenSpec, KeyDistribution, Label};
use clap::{Args, ValueEnum};
use linesig::wire::{ParseOptions, Version};
use linesig::{Engine, Policy, Scheme};
use linesig_pipeline::capture::{self, LspktWriter, PcapWriter};
use linesig_pipeline::{Replay, Report, UdpSource};
use std::io::{BufWriter, Write};
use std::net::{SocketAddr, UdpSocket};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering::Relaxed};
use std::time::{Duration, Instant};

/// Items per engine work unit in the pipeline: a verify batch is cut into many small
/// units so the workers finish it together (with 512-item units, two units of one batch
/// end milliseconds apart on a noisy machine and a core idles in between).
const ENGINE_UNIT: usize = 64;

/// Options shared by `replay` and `serve`.
#[derive(Args, Debug)]
pub struct PipelineArgs {
    /// Ed25519 policy for transaction signatures: strict (Agave today), zip215 or zip215-strict.
    #[arg(long, default_value = "strict")]
    policy: Policy,
    /// Worker threads for verification (default: all cores).
    #[arg(long, value_parser = crate::args::parse_workers)]
    workers: Option<usize>,
    /// Most signatures per verify batch (each verify tile's; at least 1).
    #[arg(long, default_value_t = 1024, value_parser = crate::args::parse_at_least_one)]
    batch: usize,
    /// MiB for the hot-key cache (0: off): fee payers and other keys that keep
    /// signing earn fixed-base tables that make their verifications cheaper.
    #[arg(long, default_value_t = 64, value_parser = crate::args::parse_mib)]
    key_cache_mb: usize,
    /// zip215 and zip215-strict: check each work unit with one randomized batch
    /// equation before any signature alone (on), or each alone (off: every verdict a
    /// deterministic function of its item). Verdicts are the same either way.
    #[arg(long, value_enum, default_value_t = crate::args::Switch::On)]
    batch_equation: crate::args::Switch,
    /// Longest a verify tile holds its batch back to fill once the queue is dry, in
    /// microseconds. 0 verifies at once; while packets keep coming a batch grows anyway
    /// (up to --batch), so high load still gets full batches.
    #[arg(long, default_value_t = 0)]
    max_wait_us: u64,
    /// Packets the queue to the verify tiles holds before ingest sheds load (under overload this
    /// queue is the latency: at ~16k packets/s, 4096 packets ≈ 250 ms).
    #[arg(long, default_value_t = 4096)]
    queue: usize,
    /// Dedup filter size in MiB (a Bloom filter over whole packets; at least 1: dedup
    /// is always on, as every duplicate must be counted).
    #[arg(long, default_value_t = 4, value_parser = crate::args::parse_at_least_one)]
    dedup_mb: usize,
    /// Clear the dedup filter at least this often, in seconds.
    #[arg(long, default_value_t = 60)]
    dedup_reset_s: u64,
    /// Reject v1 (SIMD-0385) transactions as malformed.
    #[arg(long)]
    no_v1: bool,
    /// Also verify Ed25519 precompile instructions' signatures (under strict).
    #[arg(long)]
    precompile: bool,
    /// Forward passing packets to this UDP address (HOST:PORT; a host name is resolved).
    #[arg(long, value_parser = crate::args::parse_socket_addr)]
    forward: Option<SocketAddr>,
    /// Write passing packets to this file (length-prefixed format; also spelt --output).
    #[arg(long, visible_alias = "output")]
    out: Option<PathBuf>,
    /// Write one JSON line per packet with its verdict.
    #[arg(long)]
    verdicts: Option<PathBuf>,
    /// Ed25519 backend: auto, avx512, avx2 or portable.
    #[arg(long, default_value = "auto")]
    backend: String,
    /// Reports as JSON lines (one per second, then a summary) instead of text.
    #[arg(long)]
    json: bool,
    /// Only the summary at exit, no per-second lines.
    #[arg(long)]
    quiet: bool,
}

impl PipelineArgs {
    fn parse_options(&self) -> ParseOptions {
        ParseOptions {
            accept_v1: !self.no_v1,
            precompile: self.precompile,
        }
    }

    fn engine(&self) -> Result<Engine, CliError> {
        let mut builder = Engine::builder()
            .scheme(Scheme::Ed25519(self.policy))
            .batch_size(ENGINE_UNIT)
            .key_cache(self.key_cache_mb.saturating_mul(1 << 20))
            .batch_equation(self.batch_equation.on());
        if let Some(w) = self.workers {
            builder = builder.workers(w);
        }
        if let Some(b) = parse_backend(&self.backend)? {
            builder = builder.backend(b);
        }
        builder.build().map_err(|e| CliError::usage(e.to_string()))
    }

    fn config(&self, max_packets: Option<u64>) -> Result<linesig_pipeline::Config, CliError> {
        if self.batch == 0 || self.queue == 0 {
            return Err(CliError::usage("--batch and --queue must be at least 1"));
        }
        Ok(linesig_pipeline::Config {
            parse: self.parse_options(),
            batch_signatures: self.batch,
            max_wait: Duration::from_micros(self.max_wait_us),
            queue_packets: self.queue,
            dedup_bytes: self.dedup_mb << 20,
            dedup_fp_rate: 1e-6,
            dedup_reset: Duration::from_secs(self.dedup_reset_s.max(1)),
            report_every: (!self.quiet).then_some(Duration::from_secs(1)),
            max_packets,
            ..linesig_pipeline::Config::new(self.engine()?)
        })
    }

    /// Every output (`--forward`, `--out`, `--verdicts`), opened before anything is
    /// announced, so that an unwritable path fails before `serve` says it listens.
    fn sink(&self) -> Result<CliSink, CliError> {
        CliSink::open(self.forward, self.out.as_ref(), self.verdicts.as_ref())
    }

    /// Run the pipeline into `sink`, printing each report; the summary.
    fn run<S: linesig_pipeline::Source>(
        &self,
        config: &linesig_pipeline::Config,
        source: S,
        mut sink: CliSink,
        stop: &AtomicBool,
    ) -> Result<Report, CliError> {
        let summary = linesig_pipeline::run(config, source, &mut sink, stop, |r| {
            print_report(r, self.json)
        })
        .map_err(|e| match e {
            linesig_pipeline::Error::Source(_) | linesig_pipeline::Error::Sink(_) => {
                CliError::io(e.to_string())
            }
            e => CliError::usage(e.to_string()),
        })?;
        print_report(&summary, self.json);
        Ok(summary)
    }
}

#[derive(Args, Debug)]
pub struct ReplayArgs {
    /// Packet file: linesig's length-prefixed format (from `linesig gen`) or a pcap capture.
    #[arg(required_unless_present = "input_flag", value_name = "FILE")]
    input: Option<PathBuf>,
    /// The packet file, named as `verify --input` names its file.
    #[arg(
        long = "input",
        id = "input_flag",
        conflicts_with = "input",
        value_name = "FILE"
    )]
    input_flag: Option<PathBuf>,
    /// Afterwards, verify the same signatures with the engine directly (one call, no
    /// pipeline) and report the pipeline's rate as a ratio of it: the overhead of
    /// parsing, dedup, batching and hand-offs, measured in one run.
    #[arg(long)]
    yardstick: bool,
    #[command(flatten)]
    pipeline: PipelineArgs,
}

pub fn replay(args: ReplayArgs) -> Result<bool, CliError> {
    let input = args
        .input
        .as_ref()
        .or(args.input_flag.as_ref())
        .ok_or_else(|| CliError::usage("a packet file is needed: replay FILE"))?;
    let config = args.pipeline.config(None)?;
    let file = capture::read(input).map_err(|e| CliError::io(e.to_string()))?;
    let sink = args.pipeline.sink()?;
    if !args.pipeline.json {
        println!(
            "replay {}: {} packets{} · {} workers · batch {} · max wait {} µs · policy {} · backend {}",
            input.display(),
            file.packets.len(),
            if file.skipped_records > 0 {
                format!(" ({} non-UDP records skipped)", file.skipped_records)
            } else {
                String::new()
            },
            config.engine.workers(),
            config.batch_signatures,
            config.max_wait.as_micros(),
            args.pipeline.policy,
            config.engine.backend(),
        );
    }
    let stop = AtomicBool::new(false);
    let yardstick = if args.yardstick {
        Some((file.packets.clone(), args.pipeline.engine()?))
    } else {
        None
    };
    let summary = args
        .pipeline
        .run(&config, Replay::new(file.packets), sink, &stop)?;
    if let Some((packets, engine)) = yardstick {
        let parse = args.pipeline.parse_options();
        // The same triples the pipeline verified: well-formed, first-seen packets.
        let mut seen = std::collections::HashSet::new();
        let items: Vec<linesig::Item<'_>> = packets
            .iter()
            .filter(|p| seen.insert(p.as_slice()))
            .filter_map(|p| linesig::wire::parse(p, parse).ok())
            .flat_map(|tx| tx.items().collect::<Vec<_>>())
            .collect();
        let start = Instant::now();
        let verdicts = engine.verify(&items);
        let seconds = start.elapsed().as_secs_f64();
        std::hint::black_box(verdicts);
        let rate = items.len() as f64 / seconds;
        let ratio = summary.signatures_per_sec / rate;
        if args.pipeline.json {
            println!(
                "{}",
                serde_json::json!({
                    "kind": "yardstick",
                    "engine_signatures": items.len(),
                    "engine_signatures_per_sec": rate,
                    "pipeline_over_engine": ratio,
                })
            );
        } else {
            println!(
                "yardstick: the engine alone verifies the same {} signatures at {rate:.0} sig/s; the pipeline ran at {:.1} % of it",
                items.len(),
                ratio * 100.0
            );
        }
    }
    Ok(true)
}

#[derive(Args, Debug)]
pub struct ServeArgs {
    /// UDP address to receive transactions on, HOST:PORT (a host name is resolved; port
    /// 0: any free port; the chosen address is printed first).
    #[arg(long, default_value = "127.0.0.1:8001", value_parser = crate::args::parse_socket_addr)]
    listen: SocketAddr,
    /// Stop after this many seconds, more than 0 (default: run until interrupted).
    #[arg(long, value_parser = crate::args::parse_seconds)]
    duration: Option<f64>,
    /// Stop after receiving this many packets.
    #[arg(long)]
    max_packets: Option<u64>,
    /// Socket receive buffer to ask the kernel for, in MiB.
    #[arg(long, default_value_t = 16)]
    recv_buffer_mb: usize,
    #[command(flatten)]
    pipeline: PipelineArgs,
}

static INTERRUPTED: AtomicBool = AtomicBool::new(false);

#[cfg(unix)]
fn on_interrupt() {
    extern "C" fn handler(_: libc::c_int) {
        INTERRUPTED.store(true, Relaxed);
    }
    // SAFETY: the handler only stores to an atomic, which is async-signal-safe.
    unsafe {
        libc::signal(libc::SIGINT, handler as *const () as libc::sighandler_t);
        libc::signal(libc::SIGTERM, handler as *const () as libc::sighandler_t);
    }
}

#[cfg(not(unix))]
fn on_interrupt() {}

pub fn serve(args: ServeArgs) -> Result<bool, CliError> {
    let config = args.pipeline.config(args.max_packets)?;
    let sink = args.pipeline.sink()?;
    let socket = UdpSocket::bind(args.listen)
        .map_err(|e| CliError::io(format!("cannot listen on {}: {e}", args.listen)))?;
    set_receive_buffer(&socket, args.recv_buffer_mb << 20);
    let local = socket
        .local_addr()
        .map_err(|e| CliError::io(format!("socket address: {e}")))?;
    if args.pipeline.json {
        println!(
            "{}",
            serde_json::json!({ "kind": "listening", "address": local.to_string() })
        );
    } else {
        println!(
            "listening on {local} · {} workers · batch {} · max wait {} µs · policy {} · backend {}",
            config.engine.workers(),
            config.batch_signatures,
            config.max_wait.as_micros(),
            args.pipeline.policy,
            config.engine.backend(),
        );
    }
    let _ = std::io::stdout().flush();
    on_interrupt();
    let stop = AtomicBool::new(false);
    let deadline = args
        .duration
        .map(|s| Instant::now() + Duration::from_secs_f64(s.max(0.0)));
    std::thread::scope(|s| {
        let stop = &stop;
        let watcher = s.spawn(move || {
            while !stop.load(Relaxed) {
                if INTERRUPTED.load(Relaxed) || deadline.is_some_and(|d| Instant::now() >= d) {
                    stop.store(true, Relaxed);
                }
                std::thread::sleep(Duration::from_millis(10));
            }
        });
        let result = UdpSource::new(socket)
            .map_err(|e| CliError::io(format!("socket {local}: {e}")))
            .and_then(|source| args.pipeline.run(&config, source, sink, stop));
        stop.store(true, Relaxed);
        let _ = watcher.join();
        result.map(|_| true)
    })
}

#[cfg(unix)]
fn set_receive_buffer(socket: &UdpSocket, bytes: usize) {
    use std::os::fd::AsRawFd;
    let size = bytes.min(i32::MAX as usize) as libc::c_int;
    // SAFETY: setsockopt with a correctly sized int; failure only leaves the default.
    unsafe {
        libc::setsockopt(
            socket.as_raw_fd(),
            libc::SOL_SOCKET,
            libc::SO_RCVBUF,
            (&size as *const libc::c_int).cast(),
            std::mem::size_of::<libc::c_int>() as libc::socklen_t,
        );
    }
}

#[cfg(not(unix))]
fn set_receive_buffer(_: &UdpSocket, _: usize) {}

#[derive(Clone, Copy, Debug, ValueEnum)]
enum FileFormat {
    /// linesig's length-prefixed packets.
    Lspkt,
    /// A pcap capture of Ethernet/IPv4/UDP frames.
    Pcap,
}

/// Transactions `gen` makes unless `--count` says otherwise.
const DEFAULT_GEN_COUNT: usize = 100_000;

#[derive(Args, Debug)]
pub struct GenArgs {
    /// Transactions to generate (default 100,000); with --from, the most packets to take
    /// from the file, from its start (default: all).
    #[arg(long)]
    count: Option<usize>,
    #[arg(long, default_value_t = 42)]
    seed: u64,
    /// Signing keys: distinct, per-key:K, hot:N or zipf:S:N.
    #[arg(long, default_value = "distinct")]
    keys: KeyDistribution,
    /// Signatures per transaction, MIN-MAX (1 to 12).
    #[arg(long, default_value = "1-2")]
    signatures: String,
    /// Packet size in bytes, MIN-MAX (uniform; never below a transaction's smallest
    /// encoding, never above its version's limit: 1232 legacy/v0, 4096 v1).
    #[arg(long, default_value = "176-1232")]
    size: String,
    /// Transaction versions to mix, comma-separated: legacy, v0, v1.
    #[arg(long, default_value = "legacy,v0")]
    versions: String,
    /// Fraction with one corrupted signature.
    #[arg(long, default_value_t = 0.0)]
    invalid: f64,
    /// Fraction that repeat an earlier well-formed packet byte for byte.
    #[arg(long, default_value_t = 0.0)]
    duplicate: f64,
    /// Fraction that break a sanitize rule.
    #[arg(long, default_value_t = 0.0)]
    malformed: f64,
    /// Fraction carrying an Ed25519 precompile instruction with one more (valid)
    /// signature; `replay`/`serve --precompile` verify it.
    #[arg(long, default_value_t = 0.0)]
    precompile: f64,
    /// Write the packets to this file (also spelt --output).
    #[arg(long, visible_alias = "output", conflicts_with = "udp")]
    out: Option<PathBuf>,
    #[arg(long, value_enum, default_value_t = FileFormat::Lspkt)]
    format: FileFormat,
    /// Send the packets to this UDP address instead (HOST:PORT; a host name is resolved).
    #[arg(long, value_parser = crate::args::parse_socket_addr)]
    udp: Option<SocketAddr>,
    /// Packets per second when sending (0: as fast as possible).
    #[arg(long, default_value_t = 10_000)]
    rate: u64,
    /// Send (or convert) the packets of this file instead of generating new ones
    /// (linesig format or pcap), e.g. to load `serve` at a steady rate without signing.
    #[arg(long)]
    from: Option<PathBuf>,
    /// Write one JSON line per packet: index, label (valid, invalid, duplicate,
    /// malformed), version, signatures, bytes.
    #[arg(long)]
    labels: Option<PathBuf>,
}

fn range(s: &str, what: &str, lo: usize, hi: usize) -> Result<(usize, usize), CliError> {
    let bad = || CliError::usage(format!("--{what} '{s}': expected MIN-MAX within {lo}-{hi}"));
    let (a, b) = s.split_once('-').unwrap_or((s, s));
    let (a, b): (usize, usize) = (
        a.trim().parse().map_err(|_| bad())?,
        b.trim().parse().map_err(|_| bad())?,
    );
    if a > b || a < lo || b > hi {
        return Err(bad());
    }
    Ok((a, b))
}

pub fn gen(args: GenArgs) -> Result<bool, CliError> {
    let spec = gen_spec(&args)?;
    if args.out.is_none() && args.udp.is_none() {
        return Err(CliError::usage(
            "say where the packets go: --out FILE or --udp ADDR",
        ));
    }
    let generated = match &args.from {
        Some(path) => {
            if args.labels.is_some() {
                return Err(CliError::usage(
                    "--labels describe generated packets; they cannot come with --from",
                ));
            }
            packets_from(path, args.count)?
        }
        None => {
            // A generated transaction and its label: at most a 1,232-byte packet, about
            // 300 bytes for the default mix, with its Vec and the file's framing.
            crate::workload::check_count_fits(spec.count, 512, "its generated transactions")
                .map_err(CliError::usage)?;
            let progress = Progress::new("signing", Some(spec.count as u64), true);
            let generated = txgen::generate(&spec, &|n| progress.inc(n as u64));
            progress.finish();
            generated
        }
    };
    if let Some(path) = &args.labels {
        write_labels(path, &generated)?;
    }
    let summary = gen_summary(&generated, args.from.is_none());
    if let Some(path) = &args.out {
        write_packets(path, args.format, &generated)?;
        eprintln!("wrote {summary} to {}", path.display());
    }
    if let Some(addr) = args.udp {
        let sent = send(&generated, addr, args.rate)?;
        eprintln!(
            "sent {summary} to {addr} in {:.2} s ({:.0} packets/s)",
            sent.as_secs_f64(),
            generated.len() as f64 / sent.as_secs_f64().max(1e-9)
        );
    }
    Ok(true)
}

/// What `gen` generates, from its flags; a typed usage error for any flag out of range.
fn gen_spec(args: &GenArgs) -> Result<GenSpec, CliError> {
    let versions = args
        .versions
        .split(',')
        .map(|v| match v.trim() {
            "legacy" => Ok(Version::Legacy),
            "v0" => Ok(Version::V0),
            "v1" => Ok(Version::V1),
            other => Err(CliError::usage(format!(
                "unknown version '{other}': use legacy, v0 or v1"
            ))),
        })
        .collect::<Result<Vec<_>, _>>()?;
    for (name, f) in [
        ("invalid", args.invalid),
        ("duplicate", args.duplicate),
        ("malformed", args.malformed),
        ("precompile", args.precompile),
    ] {
        if !(0.0..=1.0).contains(&f) {
            return Err(CliError::usage(format!(
                "--{name} must be a fraction in [0, 1]"
            )));
        }
    }
    if args.invalid + args.malformed > 1.0 {
        return Err(CliError::usage(
            "--invalid plus --malformed cannot exceed 1",
        ));
    }
    let spec = GenSpec {
        count: args.count.unwrap_or(DEFAULT_GEN_COUNT),
        seed: args.seed,
        keys: args.keys.clone(),
        signatures: range(
            &args.signatures,
            "signatures",
            1,
            linesig::wire::MAX_SIGNATURES,
        )?,
        size: range(&args.size, "size", 0, linesig::wire::V1_MAX_SIZE)?,
        versions,
        invalid: args.invalid,
        duplicate: args.duplicate,
        malformed: args.malformed,
        precompile: args.precompile,
    };
    if spec.signatures.1 > txgen::MAX_LEGACY_SIGNATURES
        && spec.versions.iter().any(|v| *v != Version::V1)
    {
        return Err(CliError::usage(format!(
            "a legacy or v0 transfer fits at most {} signatures in 1232 bytes; use --versions v1 for more",
            txgen::MAX_LEGACY_SIGNATURES
        )));
    }
    Ok(spec)
}

/// The first `count` packets of a capture or packet file (`--from`), as they are.
fn packets_from(path: &Path, count: Option<usize>) -> Result<Vec<txgen::Generated>, CliError> {
    Ok(capture::read(path)
        .map_err(|e| CliError::io(e.to_string()))?
        .packets
        .into_iter()
        .take(count.unwrap_or(usize::MAX))
        .map(|packet| txgen::Generated {
            signatures: linesig::wire::parse(&packet, ParseOptions::default())
                .map_or(0, |tx| tx.signature_count()),
            version: Version::Legacy,
            label: Label::Valid,
            packet,
        })
        .collect())
}

/// One JSON line per packet: its index, label, version, signatures and bytes.
fn write_labels(path: &PathBuf, generated: &[txgen::Generated]) -> Result<(), CliError> {
    let io = |e: std::io::Error| CliError::io(format!("{}: {e}", path.display()));
    let mut w = create(path)?;
    for (i, g) in generated.iter().enumerate() {
        let line = serde_json::json!({
            "index": i,
            "label": g.label,
            "version": g.version.name(),
            "signatures": g.signatures,
            "bytes": g.packet.len(),
        });
        writeln!(w, "{line}").map_err(io)?;
    }
    w.flush().map_err(io)
}

/// "N packets (S signatures, M MB)", with the labels' counts for generated packets.
fn gen_summary(generated: &[txgen::Generated], labelled: bool) -> String {
    let count = |l: Label| generated.iter().filter(|g| g.label == l).count();
    let bytes: usize = generated.iter().map(|g| g.packet.len()).sum();
    let signatures: usize = generated.iter().map(|g| g.signatures).sum();
    let mut summary = format!(
        "{} packets ({} signatures, {:.1} MB)",
        generated.len(),
        signatures,
        bytes as f64 / 1e6
    );
    if labelled {
        summary += &format!(
            ": {} valid, {} invalid, {} duplicate, {} malformed",
            count(Label::Valid),
            count(Label::Invalid),
            count(Label::Duplicate),
            count(Label::Malformed),
        );
    }
    summary
}

/// The packets as a packet file or a pcap capture.
fn write_packets(
    path: &PathBuf,
    format: FileFormat,
    generated: &[txgen::Generated],
) -> Result<(), CliError> {
    let io = |e: std::io::Error| CliError::io(format!("{}: {e}", path.display()));
    let w = create(path)?;
    match format {
        FileFormat::Lspkt => {
            let mut w = LspktWriter::new(w).map_err(io)?;
            for g in generated {
                w.write(&g.packet).map_err(io)?;
            }
            w.flush().map_err(io)
        }
        FileFormat::Pcap => {
            let mut w = PcapWriter::new(w).map_err(io)?;
            for g in generated {
                w.write(&g.packet).map_err(io)?;
            }
            w.flush().map_err(io)
        }
    }
}

fn create(path: &PathBuf) -> Result<BufWriter<std::fs::File>, CliError> {
    std::fs::File::create(path)
        .map(BufWriter::new)
        .map_err(|e| CliError::io(format!("cannot create {}: {e}", path.display())))
}

/// Send every packet to `addr`, paced to `rate` packets per second in 1 ms slices.
fn send(generated: &[txgen::Generated], addr: SocketAddr, rate: u64) -> Result<Duration, CliError> {
    let socket = linesig_pipeline::sending_socket(addr)
        .map_err(|e| CliError::io(format!("cannot open a UDP socket: {e}")))?;
    let start = Instant::now();
    for (i, g) in generated.iter().enumerate() {
        if rate > 0 {
            let due = start + Duration::from_secs_f64(i as f64 / rate as f64);
            let now = Instant::now();
            if due > now + Duration::from_micros(500) {
                std::thread::sleep(due - now);
            }
        }
        // A full socket buffer or an ICMP error from the last send: try once more, then
        // count the packet as lost (the receiver's counters will show it).
        if socket.send_to(&g.packet, addr).is_err() {
            let _ = socket.send_to(&g.packet, addr);
        }
    }
    Ok(start.elapsed())
}
