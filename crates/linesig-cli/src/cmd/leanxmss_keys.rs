//! `linesig keygen --scheme leanxmss` and `linesig sign` with a leanXMSS key file
//! (`LXSK`): the key over exactly `--active-epochs` epochs from `--start`, its tree
//! built on the lanes, and signatures through `linesig::leanxmss::KeyFile`, which saves
//! the key's next epoch before any signature is written.

use super::signing::{
    duration_words, key_file_error, messages, write_signatures, KeygenArgs, SignArgs,
};
use crate::args::CliError;
use crate::progress::Progress;
use linesig::leanxmss::{self, Instance, KeyFile, KeyFileSignError};
use linesig::{Backend, Scheme};
use rand::rngs::StdRng;
use rand::{RngCore, SeedableRng};
use std::io::{Read, Write};
use std::path::Path;
use std::time::Instant;

/// Epochs a key's tree is built for per second per core, roughly: 347 BLAKE2s
/// compressions each, measured about 60,000 a second on one Intel Xeon (AVX-512) core.
const EPOCHS_PER_SECOND: f64 = 60_000.0;

fn backend(instance: Instance) -> Backend {
    Backend::best_for(Scheme::LeanXmss(instance))
}

/// Whether the file at `path` starts with leanXMSS's key magic (read without the lock:
/// the magic never changes; the key itself is read under it).
pub(super) fn is_leanxmss_key(path: &Path) -> Result<bool, CliError> {
    let mut magic = [0u8; 4];
    let read = std::fs::File::open(path)
        .and_then(|mut f| f.read(&mut magic))
        .map_err(|e| CliError::io(format!("{}: {e}", path.display())))?;
    Ok(read == 4 && &magic == b"LXSK")
}

pub(super) fn keygen(instance: Instance, args: KeygenArgs) -> Result<bool, CliError> {
    let last = args
        .start
        .checked_add(args.active_epochs - 1)
        .filter(|&last| last <= u32::MAX as u64)
        .ok_or_else(|| {
            CliError::usage(format!(
                "--start {} with --active-epochs {} passes the last epoch 4294967295",
                args.start, args.active_epochs
            ))
        })?;
    if args.out.exists() {
        return Err(CliError::usage(format!(
            "{} exists: a key file is never overwritten (remove it or choose another)",
            args.out.display()
        )));
    }
    let estimate = args.active_epochs as f64 / EPOCHS_PER_SECOND;
    if estimate > 3600.0 && !args.yes {
        return Err(CliError::usage(format!(
            "--active-epochs {} builds a leaf for every epoch: about {} on one core \
             (measured about {EPOCHS_PER_SECOND:.0} epochs a second); ask for fewer, or add --yes",
            args.active_epochs,
            duration_words(estimate)
        )));
    }
    if estimate > 60.0 && !args.quiet {
        eprintln!(
            "{instance}: building the key's tree, about {}",
            duration_words(estimate)
        );
    }
    let mut seed = [0u8; 32];
    match args.seed {
        Some(s) => StdRng::seed_from_u64(s).fill_bytes(&mut seed),
        None => StdRng::from_entropy().fill_bytes(&mut seed),
    }
    let started = Instant::now();
    // A bar over the leaves, one per epoch (drawn on a terminal once past a second).
    let progress = Progress::new("leaves", None, !args.quiet);
    let key = leanxmss::key_gen_reporting(
        instance,
        &seed,
        args.start as u32,
        last as u32,
        backend(instance),
        &|done, total| progress.report(done, total),
    )
    .map_err(|e| CliError::usage(e.to_string()))?;
    progress.finish();
    let bytes_len = leanxmss::save_new(&args.out, &key).map_err(key_file_error)?;
    println!("{}", hex::encode(key.public_key()));
    if !args.quiet {
        eprintln!(
            "{instance}: key in {} ({bytes_len} bytes), epochs {} to {last}, made in {:.2} s; public key above",
            args.out.display(),
            args.start,
            started.elapsed().as_secs_f64()
        );
    }
    Ok(true)
}

pub(super) fn sign(args: &SignArgs, out: &mut dyn Write) -> Result<bool, CliError> {
    let mut file = KeyFile::open(&args.key, backend(Instance::Spec)).map_err(key_file_error)?;
    let key = file.key();
    let instance = key.instance();
    let (start, end) = key.range();
    let first = args.epoch.map_or(key.next_epoch(), u64::from);
    if first < key.next_epoch() {
        return Err(CliError::usage(format!(
            "epoch {first} is before the key's next unused epoch {}: each epoch is signed at most once",
            key.next_epoch()
        )));
    }
    let last = first + args.count as u64 - 1;
    if first < start as u64 || last > end as u64 {
        return Err(CliError::usage(format!(
            "{} epoch(s) from {first} are not all inside the key's epochs {start} to {end}",
            args.count
        )));
    }
    let public_key = key.public_key();
    let messages = messages(args, args.count)?;
    let started = Instant::now();
    // `first` <= `last` <= `end`, a u32.
    let signatures = file
        .sign_many(first as u32, &messages)
        .map_err(|e| match e {
            KeyFileSignError::File(e) => key_file_error(e),
            e => CliError::usage(e.to_string()),
        })?;
    write_signatures(args, out, &public_key, first, &messages, &signatures)?;
    if !args.quiet {
        eprintln!(
            "{instance}: {} signature(s), epochs {first} to {last}, in {:.2} s; key saved with next epoch {}",
            args.count,
            started.elapsed().as_secs_f64(),
            file.key().next_epoch()
        );
    }
    Ok(true)
}
