//! The same packets through solana-perf's `ed25519_verify` and through linesig-agave,
//! each on a rayon pool of the same size, in one run: rates per wall-second and per
//! CPU-second, and their ratio. Every round also checks that both left the same flags on
//! every packet.
//!
//! ```sh
//! linesig gen --count 100000 --seed 1 --out p.lspkt
//! cargo run --release -p linesig-agave --example agave-bench -- p.lspkt --workers 1
//! ```
//!
//! Options: `--workers N` (default: all cores), `--rounds N` (timed rounds per side,
//! alternating, default 5; the median is reported), `--batch N` (packets per
//! `PacketBatch`, default 64 as Agave's receiver), `--key-cache-mb N` (the `Verifier`'s
//! hot-key cache, default 64; 0 off), `--backend avx512|avx2|portable` (force linesig's
//! backend, e.g. to measure the AVX2 path on an AVX-512 machine), `--json` (one JSON line
//! at the end).

use linesig_agave::Verifier;
use solana_perf::packet::bytes::Bytes;
use solana_perf::packet::{
    BytesPacket, BytesPacketBatch, Meta, Packet, PacketBatch, RecycledPacketBatch, PACKET_DATA_SIZE,
};
use std::process::ExitCode;
use std::time::Instant;

struct Options {
    file: String,
    workers: usize,
    rounds: usize,
    batch: usize,
    key_cache_mb: usize,
    backend: Option<linesig::Backend>,
    json: bool,
}

fn parse_options() -> Result<Options, String> {
    let mut args = std::env::args().skip(1);
    let mut file = None;
    let mut o = Options {
        file: String::new(),
        workers: linesig::available_cores(),
        rounds: 5,
        batch: 64,
        key_cache_mb: 64,
        backend: None,
        json: false,
    };
    while let Some(arg) = args.next() {
        let mut number = |name: &str| -> Result<usize, String> {
            args.next()
                .and_then(|v| v.parse().ok())
                .ok_or(format!("{name} takes a whole number"))
        };
        match arg.as_str() {
            "--workers" => o.workers = number("--workers")?,
            "--rounds" => o.rounds = number("--rounds")?,
            "--batch" => o.batch = number("--batch")?,
            "--key-cache-mb" => o.key_cache_mb = number("--key-cache-mb")?,
            "--backend" => {
                let name = args
                    .next()
                    .ok_or("--backend takes avx512, avx2 or portable")?;
                o.backend = Some(name.parse().map_err(|e| format!("{e}"))?);
            }
            "--json" => o.json = true,
            "-h" | "--help" => return Err(String::new()),
            other if other.starts_with('-') => return Err(format!("unknown option {other}")),
            other => file = Some(other.to_string()),
        }
    }
    o.file = file.ok_or("a packet file is needed (make one with `linesig gen`)")?;
    if o.workers == 0 || o.rounds == 0 || o.batch == 0 {
        return Err("--workers, --rounds and --batch must be at least 1".into());
    }
    Ok(o)
}

/// Pinned batches of `batch` packets, as Agave's receiver fills them; a packet longer
/// than a pinned buffer (a v1 transaction) goes in a bytes batch of its own.
fn to_batches(packets: &[Vec<u8>], batch: usize) -> Vec<PacketBatch> {
    let meta = |len: usize| {
        let mut meta = Meta::default();
        meta.size = len;
        meta
    };
    let mut out = Vec::new();
    for chunk in packets.chunks(batch) {
        let mut pinned = Vec::with_capacity(chunk.len());
        let mut long = Vec::new();
        for p in chunk {
            if p.len() <= PACKET_DATA_SIZE {
                let mut buffer = [0u8; PACKET_DATA_SIZE];
                buffer[..p.len()].copy_from_slice(p);
                pinned.push(Packet::new(buffer, meta(p.len())));
            } else {
                long.push(BytesPacket::new(Bytes::from(p.clone()), meta(p.len())));
            }
        }
        out.push(PacketBatch::Pinned(RecycledPacketBatch::new(pinned)));
        if !long.is_empty() {
            out.push(PacketBatch::Bytes(BytesPacketBatch::from(long)));
        }
    }
    out
}

/// The solana-perf line built for.
const LINE: &str = if cfg!(feature = "solana-perf-4-0") {
    "4.0"
} else if cfg!(feature = "solana-perf-4-1") {
    "4.1"
} else {
    "4.2"
};

/// CPU-seconds this process has used (every thread).
fn cpu_seconds() -> f64 {
    let mut t = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: `t` is a valid timespec for the call to write.
    unsafe { libc::clock_gettime(libc::CLOCK_PROCESS_CPUTIME_ID, &mut t) };
    t.tv_sec as f64 + t.tv_nsec as f64 * 1e-9
}

/// One timed call on a fresh clone of `batches`: (wall s, CPU s, the flags left).
fn timed(
    batches: &[PacketBatch],
    run: &dyn Fn(&mut [PacketBatch]),
) -> (f64, f64, Vec<solana_perf::packet::PacketFlags>) {
    let mut work = batches.to_vec();
    let (cpu, start) = (cpu_seconds(), Instant::now());
    run(&mut work);
    let wall = start.elapsed().as_secs_f64();
    let cpu = cpu_seconds() - cpu;
    let flags = work
        .iter()
        .flat_map(|b| b.iter().map(|p| p.meta().flags))
        .collect();
    (wall, cpu, flags)
}

/// The CPU's model name, family and model (Linux's /proc/cpuinfo), for the report: a
/// ratio measured on one core generation is not another's.
fn cpu_model() -> String {
    let info = std::fs::read_to_string("/proc/cpuinfo").unwrap_or_default();
    let field = |name: &str| {
        info.lines()
            .find(|l| l.split(':').next().is_some_and(|k| k.trim() == name))
            .and_then(|l| l.split(':').nth(1))
            .map(|v| v.trim().to_string())
    };
    match (field("model name"), field("cpu family"), field("model")) {
        (Some(name), Some(family), Some(model)) => format!("{name}, family {family} model {model}"),
        (Some(name), ..) => name,
        _ => "unknown CPU".into(),
    }
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

/// Both sides over the rounds: median wall and CPU seconds, the rounds whose flags
/// differed from solana-perf's, and the packets solana-perf kept.
struct Measured {
    perf_wall: f64,
    perf_cpu: f64,
    ours_wall: f64,
    ours_cpu: f64,
    differences: usize,
    kept: usize,
}

/// An untimed warm-up of each (the pools' threads, the hot-key cache's admissions), then
/// `rounds` alternating rounds.
fn measure(
    batches: &[PacketBatch],
    oracle: &dyn Fn(&mut [PacketBatch]),
    ours: &dyn Fn(&mut [PacketBatch]),
    rounds: usize,
) -> Measured {
    let (_, _, want) = timed(batches, oracle);
    let (_, _, got) = timed(batches, ours);
    let mut differences = usize::from(want != got);
    let kept = want
        .iter()
        .filter(|f| !f.contains(solana_perf::packet::PacketFlags::DISCARD))
        .count();
    let mut sides: [(Vec<f64>, Vec<f64>); 2] = Default::default();
    for _ in 0..rounds {
        for (side, run) in [(0, oracle), (1, ours)] {
            let (wall, cpu, flags) = timed(batches, run);
            differences += usize::from(flags != want);
            sides[side].0.push(wall);
            sides[side].1.push(cpu);
        }
    }
    let [(perf_wall, perf_cpu), (ours_wall, ours_cpu)] =
        sides.map(|(wall, cpu)| (median(wall), median(cpu)));
    Measured {
        perf_wall,
        perf_cpu,
        ours_wall,
        ours_cpu,
        differences,
        kept,
    }
}

fn main() -> ExitCode {
    let o = match parse_options() {
        Ok(o) => o,
        Err(e) => {
            if !e.is_empty() {
                eprintln!("agave-bench: {e}");
            }
            eprintln!(
                "usage: agave-bench FILE [--workers N] [--rounds N] [--batch N] \
                 [--key-cache-mb N] [--backend NAME] [--json]"
            );
            return ExitCode::from(2);
        }
    };
    let file = match linesig_pipeline::capture::read(o.file.as_ref()) {
        Ok(f) => f,
        Err(e) => {
            eprintln!("agave-bench: {e}");
            return ExitCode::from(2);
        }
    };
    let batches = to_batches(&file.packets, o.batch);
    let packets = file.packets.len();
    // Signatures the stage verifies: those of the packets that parse (v1 from 4.1 on,
    // where the stage is called with `enable_tx_v1`).
    let options = linesig::wire::ParseOptions {
        accept_v1: !cfg!(feature = "solana-perf-4-0"),
        ..Default::default()
    };
    let signatures: usize = file
        .packets
        .iter()
        .filter_map(|p| linesig::wire::parse(p, options).ok())
        .map(|t| t.signature_count())
        .sum();
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(o.workers)
        .thread_name(|i| format!("solSigVerify{i:02}"))
        .build()
        .expect("a thread pool");
    let mut builder = Verifier::builder()
        .workers(o.workers)
        .key_cache_bytes(o.key_cache_mb << 20);
    if let Some(backend) = o.backend {
        builder = builder.backend(backend);
    }
    let verifier = match builder.build() {
        Ok(v) => v,
        Err(e) => {
            eprintln!("agave-bench: {e}");
            return ExitCode::from(2);
        }
    };
    let cpu_model = cpu_model();
    println!(
        "agave-bench: {packets} packets ({signatures} signatures the stage verifies) from {}, \
         {} batches of {}, {} worker(s), {} rounds; {cpu_model}; linesig backend {}",
        o.file,
        batches.len(),
        o.batch,
        o.workers,
        o.rounds,
        verifier.backend()
    );
    #[cfg(feature = "solana-perf-4-0")]
    let (oracle, ours) = (
        |b: &mut [PacketBatch]| solana_perf::sigverify::ed25519_verify(&pool, b, false, packets),
        |b: &mut [PacketBatch]| verifier.ed25519_verify(&pool, b, false, packets),
    );
    // `enable_tx_v1`: the v1 transactions a packet file may hold are verified.
    #[cfg(not(feature = "solana-perf-4-0"))]
    let (oracle, ours) = (
        |b: &mut [PacketBatch]| {
            solana_perf::sigverify::ed25519_verify(&pool, b, false, packets, true)
        },
        |b: &mut [PacketBatch]| verifier.ed25519_verify(&pool, b, false, packets, true),
    );
    let m = measure(&batches, &oracle, &ours, o.rounds);
    let rate = |seconds: f64| signatures as f64 / seconds;
    println!(
        "  solana-perf {LINE} ed25519_verify:   {:>10.0} sig/s wall, {:>10.0} sig/s per CPU-second",
        rate(m.perf_wall),
        rate(m.perf_cpu)
    );
    println!(
        "  linesig-agave Verifier:           {:>10.0} sig/s wall, {:>10.0} sig/s per CPU-second",
        rate(m.ours_wall),
        rate(m.ours_cpu)
    );
    let (ratio_wall, ratio_cpu) = (m.perf_wall / m.ours_wall, m.perf_cpu / m.ours_cpu);
    println!(
        "  ratio linesig-agave / solana-perf: {ratio_wall:.2}x wall, {ratio_cpu:.2}x per CPU-second \
         (medians of {} rounds); {} of {packets} packets kept by both",
        o.rounds, m.kept
    );
    if let Some(stats) = verifier.key_cache_stats() {
        println!("  hot-key cache: {stats:?}");
    }
    let differences = m.differences;
    if o.json {
        println!(
            "{{\"packets\":{packets},\"signatures\":{signatures},\"workers\":{},\"backend\":\"{}\",\
             \"solana_perf_sig_per_s\":{:.0},\"linesig_agave_sig_per_s\":{:.0},\
             \"solana_perf_sig_per_cpu_s\":{:.0},\"linesig_agave_sig_per_cpu_s\":{:.0},\
             \"ratio_wall\":{ratio_wall:.3},\"ratio_cpu\":{ratio_cpu:.3},\"differences\":{differences}}}",
            o.workers,
            verifier.backend(),
            rate(m.perf_wall),
            rate(m.ours_wall),
            rate(m.perf_cpu),
            rate(m.ours_cpu)
        );
    }
    if differences > 0 {
        println!(
            "STATUS: FAILURE ({differences} rounds left flags that differ from solana-perf's)"
        );
        return ExitCode::FAILURE;
    }
    println!("STATUS: SUCCESS (every packet's flags equal solana-perf's, every round)");
    ExitCode::SUCCESS
}
