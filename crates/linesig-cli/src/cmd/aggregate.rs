//! `linesig aggregate` and `linesig verify-aggregate`: one STARK proof that every
//! leanSig signature of a JSON Lines file verifies, and its check against the file's
//! (public key, message, epoch) list (`linesig_aggregate`).
//!
//! Input lines as `linesig verify` reads them: {"public_key", "message", "signature"}
//! in hex and "epoch"; `verify-aggregate` does not need "signature". Exit status: 0
//! for a proof made / a proof that verifies, 1 for a refusal (an invalid signature, a
//! proof that does not verify), 2 for bad arguments or input, 3 for I/O; the reason
//! on one line of stderr. A line is named by its number in the file, counting from 1,
//! as every command names lines.

use crate::args::CliError;
use crate::cmd::verify::{parse_fields, Parsed, UTF8_BOM};
use clap::Args;
use linesig::leansig::Instance;
use linesig::Item;
use linesig_aggregate::{self as aggregate, AggregateError, VerifyAggregateError};
use std::path::{Path, PathBuf};
use std::time::Instant;

#[derive(Args, Debug)]
pub struct AggregateArgs {
    /// leanSig instance: leansig-devnet4 (the only one with an aggregation statement).
    #[arg(long, default_value = "leansig-devnet4")]
    scheme: String,
    /// JSON Lines of {public_key, message, signature, epoch}.
    #[arg(long)]
    input: PathBuf,
    /// Where to write the proof (also spelt --output, as `verify` spells it); refused if
    /// the file exists, unless --force.
    #[arg(long, visible_alias = "output")]
    out: PathBuf,
    /// Replace an existing --out file.
    #[arg(long)]
    force: bool,
    /// No summary on stderr.
    #[arg(long, short)]
    quiet: bool,
}

#[derive(Args, Debug)]
pub struct VerifyAggregateArgs {
    /// leanSig instance: leansig-devnet4.
    #[arg(long, default_value = "leansig-devnet4")]
    scheme: String,
    /// JSON Lines of {public_key, message, epoch} ("signature" is not read).
    #[arg(long)]
    input: PathBuf,
    /// The proof `linesig aggregate` wrote.
    #[arg(long)]
    proof: PathBuf,
    /// On a refusal, also the STARK verifier's own account of the check that failed.
    #[arg(long, short)]
    verbose: bool,
    /// No summary on stderr.
    #[arg(long, short)]
    quiet: bool,
}

/// An input line's owned fields: public key, message, signature, epoch context.
type Owned = (Vec<u8>, Vec<u8>, Vec<u8>, Vec<u8>);

/// A file's items and, for each, its line number (from 1; blank lines are skipped, so
/// the two differ).
struct Lines {
    owned: Vec<Owned>,
    numbers: Vec<usize>,
}

impl Lines {
    /// The line that item `index` came from.
    fn number(&self, index: usize) -> usize {
        self.numbers.get(index).copied().unwrap_or(index + 1)
    }
}

/// A leanSig instance named on the command line (`keygen` parses its `--scheme` so too).
pub(crate) fn instance(name: &str) -> Result<Instance, CliError> {
    name.parse::<Instance>()
        .map_err(|e| CliError::usage(e.to_string()))
}

/// Every line of `path`; the first malformed one stops the command (an aggregate
/// covers the whole list or nothing).
fn read_lines(path: &Path, signature: bool) -> Result<Lines, CliError> {
    let text = std::fs::read(path).map_err(|e| CliError::io(format!("{}: {e}", path.display())))?;
    let text = text.strip_prefix(UTF8_BOM).unwrap_or(&text);
    let mut out = Vec::new();
    let mut numbers = Vec::new();
    for (index, line) in text.split(|&b| b == b'\n').enumerate() {
        if line.iter().all(u8::is_ascii_whitespace) {
            continue;
        }
        match parse_fields(line, true, signature) {
            Parsed::Item {
                public_key,
                message,
                signature,
                context,
            } => {
                out.push((public_key, message, signature, context));
                numbers.push(index + 1);
            }
            Parsed::Malformed(reason) => {
                return Err(CliError::usage(format!(
                    "{} line {}: {reason}",
                    path.display(),
                    index + 1
                )))
            }
        }
    }
    Ok(Lines {
        owned: out,
        numbers,
    })
}

fn items(lines: &[Owned]) -> Vec<Item<'_>> {
    lines
        .iter()
        .map(|(k, m, s, c)| Item::new(k, m, s).with_context(c))
        .collect()
}

pub fn aggregate(args: AggregateArgs) -> Result<bool, CliError> {
    let instance = instance(&args.scheme)?;
    // Refused before the proving, which can take seconds: a proof is never overwritten
    // unless asked.
    if args.out.exists() && !args.force {
        return Err(CliError::usage(format!(
            "{} exists: a proof is not overwritten (remove it, choose another --out, or add --force)",
            args.out.display()
        )));
    }
    let lines = read_lines(&args.input, true)?;
    let started = Instant::now();
    let proof = match aggregate::prove(instance, &items(&lines.owned)) {
        Ok(proof) => proof,
        Err(AggregateError::InvalidSignature { index, reason }) => {
            eprintln!(
                "linesig: no proof: the signature on line {} of {} does not verify ({reason}); \
                 no proof is made for a list with an invalid signature",
                lines.number(index),
                args.input.display()
            );
            return Ok(false);
        }
        Err(e) => return Err(CliError::usage(e.to_string())),
    };
    std::fs::write(&args.out, &proof.bytes)
        .map_err(|e| CliError::io(format!("{}: {e}", args.out.display())))?;
    if !args.quiet {
        eprintln!(
            "aggregated {} signatures into {} ({} bytes) in {:.2} s",
            lines.owned.len(),
            args.out.display(),
            proof.bytes.len(),
            started.elapsed().as_secs_f64()
        );
    }
    Ok(true)
}

pub fn verify_aggregate(args: VerifyAggregateArgs) -> Result<bool, CliError> {
    let instance = instance(&args.scheme)?;
    let lines = read_lines(&args.input, false)?;
    let proof = std::fs::read(&args.proof)
        .map_err(|e| CliError::io(format!("{}: {e}", args.proof.display())))?;
    let started = Instant::now();
    match aggregate::verify_aggregate(instance, &items(&lines.owned), &proof) {
        Ok(()) => {
            if !args.quiet {
                eprintln!(
                    "valid: the proof covers all {} signers ({:.1} ms)",
                    lines.owned.len(),
                    started.elapsed().as_secs_f64() * 1e3
                );
            }
            Ok(true)
        }
        Err(VerifyAggregateError::BadSigner { index, reason }) => {
            eprintln!(
                "linesig: proof refused: the signer on line {} of {}: {reason}",
                lines.number(index),
                args.input.display()
            );
            Ok(false)
        }
        Err(e) => {
            eprintln!("linesig: proof refused: {e}");
            if let (true, VerifyAggregateError::Rejected(detail)) = (args.verbose, &e) {
                eprintln!("linesig: the STARK verifier's account: {detail}");
            }
            Ok(false)
        }
    }
}
