//! The `linesig` command: `bench` (the founding benchmark), `verify` (JSON Lines), the
//! packet pipeline's `gen`, `replay` and `serve`, and leanSig's `aggregate` and
//! `verify-aggregate`.

mod args;
mod bench;
mod clock;
mod cmd;
mod progress;
mod schemes;
mod txgen;
mod workload;

use clap::{Parser, Subcommand};
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
    Verify(cmd::verify::VerifyArgs),
    /// Generate seeded Solana transactions (valid, invalid, duplicate, malformed) to a file or UDP.
    #[command(allow_negative_numbers = true)]
    Gen(cmd::packets::GenArgs),
    /// Run a packet file (linesig format or pcap) through the pipeline as fast as possible.
    #[command(allow_negative_numbers = true)]
    Replay(cmd::packets::ReplayArgs),
    /// Receive Solana transactions over UDP, verify them, forward or count the valid ones.
    #[command(allow_negative_numbers = true)]
    Serve(cmd::packets::ServeArgs),
    /// Prove in one STARK that every leanSig devnet-4 signature of a JSON Lines file verifies.
    #[command(allow_negative_numbers = true)]
    Aggregate(cmd::aggregate::AggregateArgs),
    /// Check an aggregate proof against a JSON Lines list of (public_key, message, epoch).
    #[command(allow_negative_numbers = true)]
    VerifyAggregate(cmd::aggregate::VerifyAggregateArgs),
    /// Make a leanSig or leanXMSS secret key file and print its public key.
    #[command(allow_negative_numbers = true)]
    Keygen(cmd::signing::KeygenArgs),
    /// Sign with a leanSig or leanXMSS key file into JSON Lines that verify (and aggregate) read; the key file keeps the epochs used.
    #[command(allow_negative_numbers = true)]
    Sign(cmd::signing::SignArgs),
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
        Command::Verify(args) => cmd::verify::run(args),
        Command::Gen(args) => cmd::packets::gen(args),
        Command::Replay(args) => cmd::packets::replay(args),
        Command::Serve(args) => cmd::packets::serve(args),
        Command::Aggregate(args) => cmd::aggregate::aggregate(args),
        Command::VerifyAggregate(args) => cmd::aggregate::verify_aggregate(args),
        Command::Keygen(args) => cmd::keys::keygen(args),
        Command::Sign(args) => cmd::keys::sign(args),
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
