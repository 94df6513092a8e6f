//! The `linesig` command: `bench` (the founding benchmark), `verify` (JSON Lines), the
//! packet pipeline's `gen`, `replay` and `serve`, and leanSig's `aggregate` and
//! `verify-aggregate`.

mod aggregate_cmds;
mod bench;
mod bench_aggregate;
mod bench_leansig;
mod bench_paillier;
mod bench_run;
mod bench_schema;
mod clock;
mod key_cmds;
mod op_rows;
mod packet_cmds;
mod pipeline_io;
mod progress;
mod schemes;
mod txgen;
mod verify;
mod verify_parquet;
mod workload;

use clap::{Parser, Subcommand};
use linesig::Backend;
use std::process::ExitCode;

#[derive(Parser)]
#[command(
    name = "linesig",
    version,
    about = "Line-speed batch signature verification"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

/// Every subcommand reads a negative number as a value (`--key-cache-mb -1`), so that its
/// own parser refuses it with the range rather than clap taking it for a flag.
#[derive(Subcommand)]
enum Command {
    /// Generate seeded signatures, verify them on all cores, report throughput against yardsticks.
    #[command(allow_negative_numbers = true)]
    Bench(bench::BenchArgs),
    /// Verify JSON Lines of {public_key, message, signature[, context]} (hex) into JSON Lines verdicts, or a Parquet file into a Parquet file.
    #[command(allow_negative_numbers = true)]
    Verify(verify::VerifyArgs),
    /// Generate seeded Solana transactions (valid, invalid, duplicate, malformed) to a file or UDP.
    #[command(allow_negative_numbers = true)]
    Gen(packet_cmds::GenArgs),
    /// Run a packet file (linesig format or pcap) through the pipeline as fast as possible.
    #[command(allow_negative_numbers = true)]
    Replay(packet_cmds::ReplayArgs),
    /// Receive Solana transactions over UDP, verify them, forward or count the valid ones.
    #[command(allow_negative_numbers = true)]
    Serve(packet_cmds::ServeArgs),
    /// Prove in one STARK that every leanSig devnet-4 signature of a JSON Lines file verifies.
    #[command(allow_negative_numbers = true)]
    Aggregate(aggregate_cmds::AggregateArgs),
    /// Check an aggregate proof against a JSON Lines list of (public_key, message, epoch).
    #[command(allow_negative_numbers = true)]
    VerifyAggregate(aggregate_cmds::VerifyAggregateArgs),
    /// Make a leanSig secret key file and print its public key.
    #[command(allow_negative_numbers = true)]
    Keygen(key_cmds::KeygenArgs),
    /// Sign with a leanSig key file into JSON Lines that verify and aggregate read; the key file keeps the epochs used.
    #[command(allow_negative_numbers = true)]
    Sign(key_cmds::SignArgs),
}

/// A failure that ends the command, with its exit code.
#[derive(Debug)]
pub struct CliError {
    message: String,
    code: u8,
}

impl CliError {
    pub fn usage(message: impl Into<String>) -> Self {
        CliError {
            message: message.into(),
            code: 2,
        }
    }
    pub fn io(message: impl Into<String>) -> Self {
        CliError {
            message: message.into(),
            code: 3,
        }
    }
}

/// `auto` (or empty) means the engine's choice; anything else must name a backend.
pub fn parse_backend(name: &str) -> Result<Option<Backend>, CliError> {
    if name.is_empty() || name.eq_ignore_ascii_case("auto") {
        return Ok(None);
    }
    name.parse()
        .map(Some)
        .map_err(|e: linesig::UnknownBackend| CliError::usage(e.to_string()))
}

/// `--workers`: a thread count from 1 to [`linesig::MAX_WORKERS`], refused at parse time
/// so that every command (the leanSig benches start their own pools) says the same thing.
pub fn parse_workers(text: &str) -> Result<usize, String> {
    match text.parse::<usize>() {
        Ok(n) if (1..=linesig::MAX_WORKERS).contains(&n) => Ok(n),
        _ => Err(format!(
            "expected a worker count from 1 to {}",
            linesig::MAX_WORKERS
        )),
    }
}

/// A UDP address as HOST:PORT, the host a name (resolved, first address) or a numeric
/// address (`127.0.0.1:8001`, `[::1]:8001`, `localhost:8001`).
pub fn parse_socket_addr(text: &str) -> Result<std::net::SocketAddr, String> {
    use std::net::ToSocketAddrs;
    let mut addrs = text.to_socket_addrs().map_err(|e| {
        format!("expected HOST:PORT (a numeric address or a host name that resolves): {e}")
    })?;
    addrs
        .next()
        .ok_or_else(|| format!("'{text}' resolves to no address"))
}

/// `--key-cache-mb`: MiB for the hot-key cache, 0 (off) or more.
pub fn parse_mib(text: &str) -> Result<usize, String> {
    text.parse::<usize>()
        .map_err(|_| "expected a whole number of MiB, 0 (off) or more".into())
}

/// A count that 0 would make meaningless (`--chunk`, `--dedup-mb`): refused at parse time
/// with the range, rather than quietly taken as 1.
pub fn parse_at_least_one(text: &str) -> Result<usize, String> {
    match text.parse::<usize>() {
        Ok(n) if n >= 1 => Ok(n),
        _ => Err("expected a whole number, at least 1".into()),
    }
}

/// As [`parse_at_least_one`], for counts that may pass `usize` (leanSig epochs).
pub fn parse_at_least_one_u64(text: &str) -> Result<u64, String> {
    match text.parse::<u64>() {
        Ok(n) if n >= 1 => Ok(n),
        _ => Err("expected a whole number, at least 1".into()),
    }
}

/// A time limit in seconds: finite and above 0 (`--duration 0` would stop at once).
pub fn parse_seconds(text: &str) -> Result<f64, String> {
    match text.parse::<f64>() {
        Ok(s) if s.is_finite() && s > 0.0 => Ok(s),
        _ => Err("expected a number of seconds above 0".into()),
    }
}

fn main() -> ExitCode {
    // Die quietly on a closed pipe (`linesig replay f | head`), as Unix tools do, instead
    // of panicking in println!. Rust sets SIGPIPE to ignored before main.
    #[cfg(unix)]
    // SAFETY: restoring the default disposition of a signal at startup, before any thread.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Bench(args) => bench::run(args),
        Command::Verify(args) => verify::run(args),
        Command::Gen(args) => packet_cmds::gen(args),
        Command::Replay(args) => packet_cmds::replay(args),
        Command::Serve(args) => packet_cmds::serve(args),
        Command::Aggregate(args) => aggregate_cmds::aggregate(args),
        Command::VerifyAggregate(args) => aggregate_cmds::verify_aggregate(args),
        Command::Keygen(args) => key_cmds::keygen(args),
        Command::Sign(args) => key_cmds::sign(args),
    };
    match result {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => ExitCode::from(1),
        Err(e) => {
            eprintln!("linesig: {}", e.message);
            ExitCode::from(e.code)
        }
    }
}
