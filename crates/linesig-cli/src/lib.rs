//! The `linesig` command's subcommands, each its clap arguments and its `run`, and what
//! they share (argument parsers, progress, workloads). `src/main.rs` is the command's
//! dispatch over them; the fuzz targets (`fuzz/`) drive the input readers (`verify`'s
//! JSON Lines) directly. Not a stable API: the command line is.

pub mod args;
pub mod bench;
mod clock;
pub mod cmd;
pub mod progress;
mod schemes;
mod txgen;
mod workload;

use clap::{Parser, Subcommand};

/// The command line, as `linesig` parses it.
#[derive(Parser)]
#[command(
    name = "linesig",
    version,
    about = "Line-speed batch signature verification"
)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

/// Every subcommand reads a negative number as a value (`--key-cache-mb -1`), so that its
/// own parser refuses it with the range rather than clap taking it for a flag.
#[derive(Subcommand)]
pub enum Command {
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

/// Run one subcommand: `Ok(true)` exits 0, `Ok(false)` 1 (`verify --fail-on-invalid`
/// found an invalid line), an error its own code.
pub fn run(command: Command) -> Result<bool, args::CliError> {
    match command {
        Command::Bench(args) => bench::run(args),
        Command::Verify(args) => cmd::verify::run(args),
        Command::Gen(args) => cmd::packets::gen(args),
        Command::Replay(args) => cmd::packets::replay(args),
        Command::Serve(args) => cmd::packets::serve(args),
        Command::Aggregate(args) => cmd::aggregate::aggregate(args),
        Command::VerifyAggregate(args) => cmd::aggregate::verify_aggregate(args),
        Command::Keygen(args) => cmd::keys::keygen(args),
        Command::Sign(args) => cmd::keys::sign(args),
    }
}
