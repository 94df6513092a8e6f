//! `linesig keygen` and `linesig sign`: leanSig keys in a file and signatures as JSON
//! Lines that `verify`, `aggregate` and `verify-aggregate` read, so that a user can try
//! them without the shared vectors.
//!
//! The key file is linesig's secret-key format (`LSSK`, see
//! `linesig::leansig::SecretKey::to_bytes`): the key and the epochs it has used. `sign`
//! holds an exclusive lock on the key file from load to save and writes the key back
//! durably *before* it writes a signature (`linesig::leansig::KeyFile`): a key file
//! older than a signature it made, or two signers on one file, would sign an epoch twice.
//! Exit status: 0 done, 2 bad arguments or a key that cannot sign the epochs asked for,
//! 3 I/O (an unreadable or damaged key file, an output that cannot be written).

use crate::args::CliError;
use crate::cmd::aggregate::instance;
use clap::Args;
use linesig::leansig::keys::crash_point;
use linesig::leansig::{keys, Instance, KeyFile, KeyFileError, KeyFileSignError};
use linesig::{Backend, Scheme};
use rand::rngs::StdRng;
use rand::{RngCore, SeedableRng};
use std::io::Write;
use std::path::PathBuf;
use std::time::Instant;

#[derive(Args, Debug)]
pub struct KeygenArgs {
    /// leanSig instance: leansig-devnet4, leansig-l18 or leansig-l32.
    #[arg(long, default_value = "leansig-devnet4")]
    scheme: String,
    /// Where to write the secret key (refused if the file exists: a key is never
    /// overwritten by another).
    #[arg(long, visible_alias = "output")]
    out: PathBuf,
    /// The first epoch the key is active from.
    #[arg(long, default_value_t = 0)]
    start: u64,
    /// Epochs the key is active for, rounded out to whole bottom trees (at least two:
    /// 1,024 epochs for L18, 131,072 for the 2^32 instances; devnet-4 keygen takes about
    /// 10 s on two cores).
    #[arg(long, default_value_t = 1, value_parser = crate::args::parse_at_least_one_u64)]
    active_epochs: u64,
    /// Make the key from this seed (reproducible fixtures); without it the operating
    /// system's randomness.
    #[arg(long)]
    seed: Option<u64>,
    /// Go ahead with a key whose generation is estimated at over an hour (without it,
    /// such a run is refused with the estimate).
    #[arg(long)]
    yes: bool,
    /// No summary on stderr.
    #[arg(long, short)]
    quiet: bool,
}

#[derive(Args, Debug)]
pub struct SignArgs {
    /// The secret key `linesig keygen` wrote; it is rewritten with the epochs used.
    #[arg(long)]
    key: PathBuf,
    /// Signatures to make, one per epoch from --epoch on.
    #[arg(long, default_value_t = 1, value_parser = crate::args::parse_at_least_one)]
    count: usize,
    /// The first epoch to sign (default: the key's next unused epoch).
    #[arg(long)]
    epoch: Option<u32>,
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
    quiet: bool,
}

fn backend(instance: Instance) -> Backend {
    Backend::best_for(Scheme::LeanSig(instance))
}

/// A key file's error as the CLI's: a damaged or unreadable key is I/O (3), a key that
/// would be overwritten is a usage error (2).
fn key_file_error(e: KeyFileError) -> CliError {
    match e {
        KeyFileError::Exists { .. } => CliError::usage(e.to_string()),
        _ => CliError::io(e.to_string()),
    }
}

/// Seconds keygen will take for `epochs` from `start`, roughly: every bottom tree of the
/// interval (rounded out, at least two) is built, at about 6,500 devnet-4 leaves per
/// second per core (10 s for 131,072 leaves on two Zen 4 cores; the legacy instances'
/// 64 chains cost about as much).
fn keygen_estimate(instance: Instance, start: u64, epochs: u64) -> f64 {
    let half = instance.lifetime().trailing_zeros() / 2;
    let tree = 1u64 << half;
    let first = start >> half;
    let last = start.saturating_add(epochs).saturating_sub(1) >> half;
    let trees = (last - first + 1).max(2);
    let leaves = trees as f64 * tree as f64;
    let cores = linesig::available_cores().max(1) as f64;
    leaves / (6_500.0 * cores)
}

/// "about 3.2 hours", "12 minutes", "40 s".
fn duration_words(seconds: f64) -> String {
    match seconds {
        s if s >= 2.0 * 3600.0 => format!("{:.1} hours", s / 3600.0),
        s if s >= 120.0 => format!("{:.0} minutes", s / 60.0),
        s => format!("{s:.0} s"),
    }
}

pub fn keygen(args: KeygenArgs) -> Result<bool, CliError> {
    let instance = instance(&args.scheme)?;
    if args.out.exists() {
        return Err(CliError::usage(format!(
            "{} exists: a key file is never overwritten (remove it or choose another)",
            args.out.display()
        )));
    }
    let estimate = keygen_estimate(instance, args.start, args.active_epochs);
    if estimate > 3600.0 && !args.yes {
        return Err(CliError::usage(format!(
            "--active-epochs {} builds every bottom tree of the interval: about {} on this \
             machine's cores (measured about 6,500 devnet-4 leaves per second per core); \
             ask for fewer epochs (a key advances its preparation as it goes), or add --yes",
            args.active_epochs,
            duration_words(estimate)
        )));
    }
    if estimate > 60.0 && !args.quiet {
        eprintln!(
            "{instance}: building the key's trees, about {}",
            duration_words(estimate)
        );
    }
    let mut rng = match args.seed {
        Some(seed) => StdRng::seed_from_u64(seed),
        None => StdRng::from_entropy(),
    };
    let started = Instant::now();
    let (public_key, key) = keys::key_gen(
        instance,
        backend(instance),
        &mut rng,
        args.start,
        args.active_epochs,
    )
    .map_err(|e| CliError::usage(e.to_string()))?;
    let bytes_len = keys::save_new(&args.out, &key).map_err(key_file_error)?;
    println!("{}", hex::encode(&public_key));
    if !args.quiet {
        let (active, prepared) = (key.activation_interval(), key.prepared_interval());
        eprintln!(
            "{instance}: key in {} ({} bytes), active epochs {} to {}, prepared {} to {}, made in {:.2} s; public key above",
            args.out.display(),
            bytes_len,
            active.start,
            active.end - 1,
            prepared.start,
            prepared.end - 1,
            started.elapsed().as_secs_f64()
        );
    }
    Ok(true)
}

fn message(args: &SignArgs) -> Result<Option<[u8; 32]>, CliError> {
    let Some(text) = &args.message else {
        return Ok(None);
    };
    let bytes = hex::decode(text.trim_start_matches("0x"))
        .map_err(|e| CliError::usage(format!("--message is not hex: {e}")))?;
    bytes.try_into().map(Some).map_err(|b: Vec<u8>| {
        CliError::usage(format!(
            "--message is {} bytes; a leanSig message is 32",
            b.len()
        ))
    })
}

pub fn sign(args: SignArgs) -> Result<bool, CliError> {
    let fixed = message(&args)?;
    // The output is opened before the key is touched: one that cannot be written
    // uses up no epoch.
    let mut out: Box<dyn Write> = match &args.out {
        Some(path) => Box::new(
            std::fs::File::create(path)
                .map_err(|e| CliError::io(format!("{}: {e}", path.display())))?,
        ),
        None => Box::new(std::io::stdout()),
    };
    // Locked until `file` is dropped: a second `sign` on this key waits, then reads the
    // state this one saved (see linesig::leansig::KeyFile).
    let mut file = KeyFile::open(&args.key, backend).map_err(key_file_error)?;
    let key = file.key();
    let instance = key.instance();
    let first = args.epoch.map_or(key.next_epoch(), u64::from);
    let (active, prepared) = (key.activation_interval(), key.prepared_interval());
    if first < key.next_epoch() {
        return Err(CliError::usage(format!(
            "epoch {first} is before the key's next unused epoch {}: each epoch is signed at most once",
            key.next_epoch()
        )));
    }
    let end = first.checked_add(args.count as u64);
    let inside = |end: u64| end <= prepared.end && first >= prepared.start && end <= active.end;
    let Some(end) = end.filter(|&end| inside(end)) else {
        return Err(CliError::usage(format!(
            "{} epoch(s) from {first} are not all inside the key's prepared epochs {} to {} (active {} to {})",
            args.count,
            prepared.start,
            prepared.end - 1,
            active.start,
            active.end - 1
        )));
    };
    let public_key = hex::encode(key.public_key());
    let mut rng = StdRng::seed_from_u64(args.seed);
    let messages: Vec<[u8; 32]> = (first..end)
        .map(|_| {
            fixed.unwrap_or_else(|| {
                let mut m = [0u8; 32];
                rng.fill_bytes(&mut m);
                m
            })
        })
        .collect();
    let started = Instant::now();
    // `first` < `end` <= the active end <= 2^32, so it fits an epoch.
    let signatures = file
        .sign_many(first as u32, &messages)
        .map_err(|e| match e {
            KeyFileSignError::File(e) => key_file_error(e),
            e => CliError::usage(e.to_string()),
        })?;
    // The key's new state is on disk: only now do signatures leave.
    let mut lines = String::new();
    for ((epoch, message), signature) in (first..end).zip(&messages).zip(&signatures) {
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
    out.write_all(lines.as_bytes())
        .and_then(|()| out.flush())
        .map_err(|e| {
            CliError::io(format!(
                "{output}: {e}; epochs {first} to {} are used up (the key file records them) and their signatures were not all written",
                end - 1
            ))
        })?;
    if !args.quiet {
        eprintln!(
            "{instance}: {} signature(s), epochs {first} to {}, in {:.2} s; key saved with next epoch {}",
            args.count,
            end - 1,
            started.elapsed().as_secs_f64(),
            file.key().next_epoch()
        );
    }
    Ok(true)
}
