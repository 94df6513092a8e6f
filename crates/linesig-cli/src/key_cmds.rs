//! `linesig keygen` and `linesig sign`: leanSig keys in a file and signatures as JSON
//! Lines that `verify`, `aggregate` and `verify-aggregate` read, so that a user can try
//! them without the shared vectors.
//!
//! The key file is linesig's secret-key format (`LSSK`, see
//! `linesig::leansig::SecretKey::to_bytes`): the key and the epochs it has used. `sign`
//! writes the key back, durably (a new file, fsync, rename), *before* it writes a
//! signature: a key file older than a signature it made would sign that epoch again.
//! Exit status: 0 done, 2 bad arguments or a key that cannot sign the epochs asked for,
//! 3 I/O (an unreadable or damaged key file, an output that cannot be written).

use crate::aggregate_cmds::instance;
use crate::CliError;
use clap::Args;
use linesig::leansig::{keys, Instance, SecretKey};
use linesig::{Backend, Scheme};
use rand::rngs::StdRng;
use rand::{RngCore, SeedableRng};
use std::io::Write;
use std::path::{Path, PathBuf};
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
    #[arg(long, default_value_t = 1, value_parser = crate::parse_at_least_one_u64)]
    active_epochs: u64,
    /// Make the key from this seed (reproducible fixtures); without it the operating
    /// system's randomness.
    #[arg(long)]
    seed: Option<u64>,
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
    #[arg(long, default_value_t = 1, value_parser = crate::parse_at_least_one)]
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

/// Write `bytes` to `path` durably: a new file beside it, fsync, rename over it.
fn write_durably(path: &Path, bytes: &[u8]) -> Result<(), CliError> {
    let io = |e: std::io::Error| CliError::io(format!("{}: {e}", path.display()));
    let mut temporary = path.as_os_str().to_owned();
    temporary.push(".new");
    let temporary = PathBuf::from(temporary);
    let mut file = std::fs::File::create(&temporary).map_err(io)?;
    file.write_all(bytes).map_err(io)?;
    file.sync_all().map_err(io)?;
    std::fs::rename(&temporary, path).map_err(io)
}

pub fn keygen(args: KeygenArgs) -> Result<bool, CliError> {
    let instance = instance(&args.scheme)?;
    if args.out.exists() {
        return Err(CliError::usage(format!(
            "{} exists: a key file is never overwritten (remove it or choose another)",
            args.out.display()
        )));
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
    let bytes = key.to_bytes();
    write_durably(&args.out, &bytes)?;
    println!("{}", hex::encode(&public_key));
    if !args.quiet {
        let (active, prepared) = (key.activation_interval(), key.prepared_interval());
        eprintln!(
            "{instance}: key in {} ({} bytes), active epochs {}..{}, prepared {}..{}, made in {:.2} s; public key above",
            args.out.display(),
            bytes.len(),
            active.start,
            active.end,
            prepared.start,
            prepared.end,
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
    let bytes = std::fs::read(&args.key)
        .map_err(|e| CliError::io(format!("{}: {e}", args.key.display())))?;
    let damaged =
        |e: linesig::leansig::KeyFormatError| CliError::io(format!("{}: {e}", args.key.display()));
    let instance = SecretKey::instance_in(&bytes).map_err(damaged)?;
    let mut key = SecretKey::from_bytes(&bytes, backend(instance)).map_err(damaged)?;
    let first = args.epoch.map_or(key.next_epoch(), u64::from);
    let end = first + args.count as u64;
    let (active, prepared) = (key.activation_interval(), key.prepared_interval());
    if first < key.next_epoch() {
        return Err(CliError::usage(format!(
            "epoch {first} is before the key's next unused epoch {}: each epoch is signed at most once",
            key.next_epoch()
        )));
    }
    if end > prepared.end || first < prepared.start || end > active.end {
        return Err(CliError::usage(format!(
            "epochs {first}..{end} are not all inside the key's prepared epochs {}..{} (active {}..{})",
            prepared.start, prepared.end, active.start, active.end
        )));
    }
    let public_key = hex::encode(key.public_key());
    let mut rng = StdRng::seed_from_u64(args.seed);
    let started = Instant::now();
    let mut lines = String::new();
    for epoch in first..end {
        let message = fixed.unwrap_or_else(|| {
            let mut m = [0u8; 32];
            rng.fill_bytes(&mut m);
            m
        });
        let signature = key
            .sign(epoch as u32, &message)
            .map_err(|e| CliError::usage(e.to_string()))?;
        lines.push_str(&format!(
            "{{\"public_key\":\"{public_key}\",\"message\":\"{}\",\"signature\":\"{}\",\"epoch\":{epoch}}}\n",
            hex::encode(message),
            hex::encode(signature)
        ));
    }
    // The key's new state reaches the disk before any signature leaves.
    write_durably(&args.key, &key.to_bytes())?;
    match &args.out {
        Some(path) => std::fs::write(path, &lines)
            .map_err(|e| CliError::io(format!("{}: {e}", path.display())))?,
        None => std::io::stdout()
            .write_all(lines.as_bytes())
            .map_err(|e| CliError::io(format!("standard output: {e}")))?,
    }
    if !args.quiet {
        eprintln!(
            "{instance}: {} signature(s), epochs {first}..{end}, in {:.2} s; key saved with next epoch {}",
            args.count,
            started.elapsed().as_secs_f64(),
            key.next_epoch()
        );
    }
    Ok(true)
}
