//! `linesig verify`: JSON Lines in, one verdict line out per input line, in order; or
//! Parquet in and out (`verify_parquet`).
//!
//! In:  {"public_key": hex, "message": hex, "signature": hex}, plus "context": hex for
//!      ML-DSA (optional) and "epoch": integer for leanSig (required; u32)
//! Out: {"index": i, "valid": bool, "reason": "..."}  (no reason when valid)
//!
//! A line that is not such an object gets `valid: false` with a "malformed input: …"
//! reason and processing goes on; input is read in chunks, so memory stays bounded.
//! Exit 0 once every line has its verdict; with `--fail-on-invalid`, 1 if any line was
//! invalid or malformed.

use crate::args::{parse_backend, CliError};
use crate::cmd::verify_parquet;
use crate::progress::Progress;
use crate::schemes::parse_scheme;
use clap::Args;
use linesig::{Engine, Item, Policy, Verdict};
use serde_json::{json, Value};
use std::fs::File;
use std::io::{self, BufRead, BufReader, BufWriter, Write};
use std::path::PathBuf;

#[derive(Args, Debug)]
pub struct VerifyArgs {
    /// JSON Lines input (default: stdin), or a .parquet file (with a .parquet --output)
    /// with binary columns public_key, message, signature [, context] (for leanSig the
    /// context column holds each row's epoch, four bytes little-endian).
    #[arg(long)]
    input: Option<PathBuf>,
    /// Where to write verdicts (default: stdout); for Parquet input, the .parquet file
    /// that gets every input column plus valid and reason. Also spelt --out, as in the
    /// other commands.
    #[arg(long, visible_alias = "out")]
    output: Option<PathBuf>,
    /// Scheme: ed25519, mldsa44, mldsa65, mldsa87, leansig-devnet4, leansig-l18,
    /// leansig-l32 or leanxmss (each line then carries an "epoch").
    #[arg(long, default_value = "ed25519")]
    scheme: String,
    /// Ed25519 acceptance policy: strict (default), zip215 or zip215-strict.
    #[arg(long)]
    policy: Option<Policy>,
    /// Worker threads (default: all cores).
    #[arg(long, value_parser = crate::args::parse_workers)]
    workers: Option<usize>,
    /// Items per work unit (at least 1).
    #[arg(long, default_value_t = 512, value_parser = crate::args::parse_at_least_one)]
    batch: usize,
    /// MiB for the hot-key cache (0: off): keys that keep signing earn tables
    /// (Ed25519 fixed-base tables, ML-DSA expanded keys) that make their verifications
    /// cheaper. Verdicts never change. With zip215 or zip215-strict and the batch
    /// equation on, keys earn tables only in units that run one signature at a time.
    #[arg(long, default_value_t = 0, value_parser = crate::args::parse_mib)]
    key_cache_mb: usize,
    /// zip215 and zip215-strict: check each work unit with one randomized batch
    /// equation before any signature alone (on), or each alone (off: every verdict a
    /// deterministic function of its item). Verdicts are the same either way.
    #[arg(long, value_enum, default_value_t = crate::args::Switch::On)]
    batch_equation: crate::args::Switch,
    /// Backend: auto, avx512, avx2 or portable (for ML-DSA: libcrux; avx2 and avx512 run
    /// linesig's own verifier on AVX2 / AVX-512 lanes).
    #[arg(long, default_value = "auto")]
    backend: String,
    /// Lines (or Parquet rows) read and verified per chunk (bounds memory; at least 1).
    #[arg(long, default_value_t = 65_536, value_parser = crate::args::parse_at_least_one)]
    chunk: usize,
    /// Exit 1 when any line (or row) is invalid or malformed, after writing every
    /// verdict; without it the exit status says only that the run completed.
    #[arg(long)]
    fail_on_invalid: bool,
    /// No summary on stderr.
    #[arg(long, short)]
    quiet: bool,
}

/// One input line, decoded or not.
pub(crate) enum Parsed {
    Item {
        public_key: Vec<u8>,
        message: Vec<u8>,
        signature: Vec<u8>,
        context: Vec<u8>,
    },
    Malformed(String),
}

/// One line; `epoch` says whether the scheme takes an "epoch" (leanSig) instead of a
/// "context".
fn parse_line(line: &[u8], epoch: bool) -> Parsed {
    parse_fields(line, epoch, true)
}

/// One line; with `signature` false a missing "signature" reads as empty (the
/// aggregate's public inputs do not include it).
pub(crate) fn parse_fields(line: &[u8], epoch: bool, signature: bool) -> Parsed {
    let field = |obj: &serde_json::Map<String, Value>, name: &str| -> Result<Vec<u8>, String> {
        let text = obj
            .get(name)
            .ok_or_else(|| format!("missing field \"{name}\""))?
            .as_str()
            .ok_or_else(|| format!("field \"{name}\" is not a string"))?;
        hex::decode(text).map_err(|e| format!("field \"{name}\" is not hex: {e}"))
    };
    let parsed = (|| {
        if line.iter().all(u8::is_ascii_whitespace) {
            return Err("empty line".to_string());
        }
        let value: Value = serde_json::from_slice(line).map_err(|e| format!("not JSON: {e}"))?;
        let obj = value.as_object().ok_or("not a JSON object")?;
        Ok(Parsed::Item {
            public_key: field(obj, "public_key")?,
            message: field(obj, "message")?,
            // Where the signature is not read (`verify-aggregate`), a line may carry one
            // or not, well formed or not.
            signature: if signature {
                field(obj, "signature")?
            } else {
                Vec::new()
            },
            context: match (epoch, obj.get("context"), obj.get("epoch")) {
                (true, None | Some(Value::Null), Some(value)) => {
                    let epoch = value
                        .as_u64()
                        .and_then(|e| u32::try_from(e).ok())
                        .ok_or("field \"epoch\" is not an integer in 0..2^32")?;
                    linesig::leansig::epoch_context(epoch).to_vec()
                }
                (true, None | Some(Value::Null), None) => {
                    return Err("missing field \"epoch\" (leanSig signs per epoch)".to_string())
                }
                (true, Some(_), _) => {
                    return Err("leanSig takes an \"epoch\", not a \"context\"".to_string())
                }
                (false, _, Some(_)) => return Err("\"epoch\" applies to leanSig only".to_string()),
                (false, None | Some(Value::Null), None) => Vec::new(),
                (false, Some(_), None) => field(obj, "context")?,
            },
        })
    })();
    parsed.unwrap_or_else(|e| Parsed::Malformed(format!("malformed input: {e}")))
}

/// The UTF-8 byte-order mark.
pub(crate) const UTF8_BOM: &[u8] = b"\xEF\xBB\xBF";

/// What `stream` read: lines, and how each ended.
#[derive(Default, Debug)]
pub struct Tally {
    pub lines: usize,
    pub valid: usize,
    pub invalid: usize,
    pub malformed: usize,
}

pub fn run(args: VerifyArgs) -> Result<bool, CliError> {
    let scheme = parse_scheme(&args.scheme, args.policy)?;
    let mut builder = Engine::builder()
        .scheme(scheme)
        .batch_size(args.batch)
        .key_cache(args.key_cache_mb.saturating_mul(1 << 20))
        .batch_equation(args.batch_equation.on());
    if let Some(w) = args.workers {
        builder = builder.workers(w);
    }
    if let Some(b) = parse_backend(&args.backend)? {
        builder = builder.backend(b);
    }
    let engine = builder
        .build()
        .map_err(|e| CliError::usage(e.to_string()))?;

    let parquet_in = args
        .input
        .as_deref()
        .is_some_and(verify_parquet::is_parquet);
    let parquet_out = args
        .output
        .as_deref()
        .is_some_and(verify_parquet::is_parquet);
    if parquet_in || parquet_out {
        let (Some(input), Some(output), true, true) =
            (&args.input, &args.output, parquet_in, parquet_out)
        else {
            return Err(CliError::usage(
                "Parquet goes in and out together: --input FILE.parquet --output FILE.parquet",
            ));
        };
        let started = std::time::Instant::now();
        let tally = verify_parquet::verify_file(&engine, input, output, args.chunk, !args.quiet)?;
        if !args.quiet {
            eprintln!(
                "linesig verify: {} rows, {} valid, {} invalid, {:.3} s ({}) -> {}",
                tally.rows,
                tally.valid,
                tally.invalid,
                started.elapsed().as_secs_f64(),
                scheme.label(),
                output.display()
            );
        }
        return Ok(!(args.fail_on_invalid && tally.invalid > 0));
    }
    let reader: Box<dyn BufRead> = match &args.input {
        Some(path) if path.is_dir() => {
            return Err(CliError::io(format!(
                "cannot read {}: a directory, not a file of JSON Lines",
                path.display()
            )))
        }
        Some(path) => {
            Box::new(BufReader::new(File::open(path).map_err(|e| {
                CliError::io(format!("cannot read {}: {e}", path.display()))
            })?))
        }
        None => Box::new(BufReader::new(io::stdin().lock())),
    };
    let writer: Box<dyn Write> = match &args.output {
        Some(path) => Box::new(
            File::create(path)
                .map_err(|e| CliError::io(format!("cannot write {}: {e}", path.display())))?,
        ),
        None => Box::new(io::stdout().lock()),
    };
    let mut writer = BufWriter::new(writer);
    let started = std::time::Instant::now();
    let progress = Progress::new("verified", None, !args.quiet);
    let tally = stream(&engine, reader, &mut writer, args.chunk, &progress)?;
    progress.finish();
    writer
        .flush()
        .map_err(|e| CliError::io(format!("writing verdicts: {e}")))?;
    if !args.quiet {
        eprintln!(
            "linesig verify: {} lines, {} valid, {} invalid, {} malformed, {:.3} s ({}, backend {})",
            tally.lines,
            tally.valid,
            tally.invalid,
            tally.malformed,
            started.elapsed().as_secs_f64(),
            scheme.label(),
            engine.backend()
        );
    }
    Ok(!(args.fail_on_invalid && tally.invalid + tally.malformed > 0))
}

/// Read JSON Lines from `reader` in chunks of `chunk` lines, verify each chunk's items on
/// `engine`, and write one verdict line per input line to `writer`, in order.
pub fn stream(
    engine: &Engine,
    mut reader: Box<dyn BufRead + '_>,
    writer: &mut impl Write,
    chunk: usize,
    progress: &Progress,
) -> Result<Tally, CliError> {
    let epoch = matches!(
        engine.scheme(),
        linesig::Scheme::LeanSig(_) | linesig::Scheme::LeanXmss(_)
    );
    let mut tally = Tally::default();
    let mut line = Vec::new();
    let mut eof = false;
    while !eof {
        let mut parsed = Vec::with_capacity(chunk.min(1 << 16));
        while parsed.len() < chunk {
            line.clear();
            let n = reader
                .read_until(b'\n', &mut line)
                .map_err(|e| CliError::io(format!("reading input: {e}")))?;
            if n == 0 {
                eof = true;
                break;
            }
            let body = line.strip_suffix(b"\n").unwrap_or(&line);
            // A UTF-8 byte-order mark (editors on Windows write one) is not part of the
            // first line's JSON.
            let body = match tally.lines + parsed.len() {
                0 => body.strip_prefix(UTF8_BOM).unwrap_or(body),
                _ => body,
            };
            let body = body.strip_suffix(b"\r").unwrap_or(body);
            parsed.push(parse_line(body, epoch));
        }
        let items: Vec<Item<'_>> = parsed
            .iter()
            .filter_map(|p| match p {
                Parsed::Item {
                    public_key,
                    message,
                    signature,
                    context,
                } => Some(Item {
                    public_key,
                    message,
                    signature,
                    context,
                }),
                Parsed::Malformed(_) => None,
            })
            .collect();
        let mut verdicts = engine.verify(&items).into_iter();
        for p in &parsed {
            let out = match p {
                Parsed::Malformed(reason) => {
                    tally.malformed += 1;
                    json!({"index": tally.lines, "valid": false, "reason": reason})
                }
                Parsed::Item { .. } => match verdicts
                    .next()
                    .unwrap_or(Verdict::Invalid(linesig::Reject::EquationFailed))
                {
                    Verdict::Valid => {
                        tally.valid += 1;
                        json!({"index": tally.lines, "valid": true})
                    }
                    Verdict::Invalid(reason) => {
                        tally.invalid += 1;
                        json!({"index": tally.lines, "valid": false, "reason": reason.as_str()})
                    }
                },
            };
            serde_json::to_writer(&mut *writer, &out)
                .map_err(|e| CliError::io(format!("writing verdicts: {e}")))?;
            writer
                .write_all(b"\n")
                .map_err(|e| CliError::io(format!("writing verdicts: {e}")))?;
            tally.lines += 1;
        }
        progress.inc(parsed.len() as u64);
    }
    Ok(tally)
}
