//! What `linesig keygen` and `linesig sign` share across schemes: their arguments, the
//! messages a `sign` run signs, the JSON Lines it writes (after the key file saved the
//! epochs used), and the words for errors and durations. The commands are
//! [`super::keys`] (leanSig, and the dispatch) and [`super::leanxmss_keys`].

use crate::args::CliError;
use clap::Args;
use linesig::leansig::keys::crash_point;
use rand::rngs::StdRng;
use rand::{RngCore, SeedableRng};
use std::io::Write;
use std::path::PathBuf;

#[derive(Args, Debug)]
pub struct KeygenArgs {
    /// leanSig instance (leansig-devnet4, leansig-l18 or leansig-l32) or leanxmss.
    #[arg(long, default_value = "leansig-devnet4")]
    pub(crate) scheme: String,
    /// Where to write the secret key (refused if the file exists: a key is never
    /// overwritten by another).
    #[arg(long, visible_alias = "output")]
    pub(crate) out: PathBuf,
    /// The first epoch the key is active from.
    #[arg(long, default_value_t = 0)]
    pub(crate) start: u64,
    /// Epochs the key is active for. leanSig rounds them out to whole bottom trees (at
    /// least two: 1,024 epochs for L18, 131,072 for the 2^32 instances; devnet-4 keygen
    /// takes about 10 s on two cores); a leanXMSS key signs exactly these epochs.
    #[arg(long, default_value_t = 1, value_parser = crate::args::parse_at_least_one_u64)]
    pub(crate) active_epochs: u64,
    /// Make the key from this seed (reproducible fixtures); without it the operating
    /// system's randomness.
    #[arg(long)]
    pub(crate) seed: Option<u64>,
    /// Go ahead with a key whose generation is estimated at over an hour (without it,
    /// such a run is refused with the estimate).
    #[arg(long)]
    pub(crate) yes: bool,
    /// No summary on stderr.
    #[arg(long, short)]
    pub(crate) quiet: bool,
}

#[derive(Args, Debug)]
pub struct SignArgs {
    /// The secret key `linesig keygen` wrote; it is rewritten with the epochs used.
    #[arg(long)]
    pub(crate) key: PathBuf,
    /// Signatures to make, one per epoch from --epoch on.
    #[arg(long, default_value_t = 1, value_parser = crate::args::parse_at_least_one)]
    pub(crate) count: usize,
    /// The first epoch to sign (default: the key's next unused epoch).
    #[arg(long)]
    pub(crate) epoch: Option<u32>,
    /// The 32-byte message (hex) every signature signs; default: seeded random ones.
    #[arg(long)]
    message: Option<String>,
    /// Seed of the random messages.
    #[arg(long, default_value_t = 42)]
    seed: u64,
    /// Where to write the JSON Lines {public_key, message, signature, epoch} (also spelt
    /// --output); default standard output.
    #[arg(long, visible_alias = "output")]
    out: Option<PathBuf>,
    /// No summary on stderr.
    #[arg(long, short)]
    pub(crate) quiet: bool,
}

/// A key file's error as the CLI's: a damaged or unreadable key is I/O (3), a key that
/// would be overwritten is a usage error (2).
pub(crate) fn key_file_error<E: std::error::Error>(
    e: linesig::key_file::KeyFileError<E>,
) -> CliError {
    match e {
        linesig::key_file::KeyFileError::Exists { .. } => CliError::usage(e.to_string()),
        _ => CliError::io(e.to_string()),
    }
}

/// "about 3.2 hours", "12 minutes", "40 s".
pub(crate) fn duration_words(seconds: f64) -> String {
    match seconds {
        s if s >= 2.0 * 3600.0 => format!("{:.1} hours", s / 3600.0),
        s if s >= 120.0 => format!("{:.0} minutes", s / 60.0),
        s => format!("{s:.0} s"),
    }
}

/// The messages to sign at `count` epochs: `--message` at each, else seeded random ones.
pub(crate) fn messages(args: &SignArgs, count: usize) -> Result<Vec<[u8; 32]>, CliError> {
    let fixed = message(args)?;
    let mut rng = StdRng::seed_from_u64(args.seed);
    Ok((0..count)
        .map(|_| {
            fixed.unwrap_or_else(|| {
                let mut m = [0u8; 32];
                rng.fill_bytes(&mut m);
                m
            })
        })
        .collect())
}

pub(crate) fn message(args: &SignArgs) -> Result<Option<[u8; 32]>, CliError> {
    let Some(text) = &args.message else {
        return Ok(None);
    };
    let bytes = hex::decode(text.trim_start_matches("0x"))
        .map_err(|e| CliError::usage(format!("--message is not hex: {e}")))?;
    bytes.try_into().map(Some).map_err(|b: Vec<u8>| {
        CliError::usage(format!(
            "--message is {} bytes; a leanSig or leanXMSS message is 32",
            b.len()
        ))
    })
}

/// `--out`, created, or standard output.
pub(crate) fn open_output(args: &SignArgs) -> Result<Box<dyn Write>, CliError> {
    Ok(match &args.out {
        Some(path) => Box::new(
            std::fs::File::create(path)
                .map_err(|e| CliError::io(format!("{}: {e}", path.display())))?,
        ),
        None => Box::new(std::io::stdout()),
    })
}

/// The JSON Lines of signatures made at epochs `first..`, written after the key file
/// saved them as used; a failed write says which epochs are used up.
pub(crate) fn write_signatures(
    args: &SignArgs,
    out: &mut dyn Write,
    public_key: &[u8],
    first: u64,
    messages: &[[u8; 32]],
    signatures: &[impl AsRef<[u8]>],
) -> Result<(), CliError> {
    let public_key = hex::encode(public_key);
    let mut lines = String::new();
    for ((epoch, message), signature) in (first..).zip(messages).zip(signatures) {
        lines.push_str(&format!(
            "{{\"public_key\":\"{public_key}\",\"message\":\"{}\",\"signature\":\"{}\",\"epoch\":{epoch}}}\n",
            hex::encode(message),
            hex::encode(signature)
        ));
    }
    crash_point("before-output");
    let output = match &args.out {
        Some(path) => path.display().to_string(),
        None => "standard output".to_string(),
    };
    let last = first + signatures.len() as u64 - 1;
    out.write_all(lines.as_bytes())
        .and_then(|()| out.flush())
        .map_err(|e| {
            CliError::io(format!(
                "{output}: {e}; epochs {first} to {last} are used up (the key file records them) and their signatures were not all written"
            ))
        })
}
