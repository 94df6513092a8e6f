//! `linesig keygen` and `linesig sign`: leanSig and leanXMSS keys in a file and
//! signatures as JSON Lines that `verify`, `aggregate` and `verify-aggregate` read, so
//! that a user can try them without the shared vectors. This file has the commands and
//! leanSig's keys; leanXMSS's are [`super::leanxmss_keys`], and what both use
//! [`super::signing`].
//!
//! The key file is linesig's secret-key format (`LSSK` for leanSig, see
//! `linesig::leansig::SecretKey::to_bytes`; `LXSK` for leanXMSS): the key and the epochs
//! it has used. `sign` tells them apart by that magic, holds an exclusive lock on the key
//! file from load to save and writes the key back durably *before* it writes a signature
//! (`linesig::key_file`): a key file older than a signature it made, or two signers on
//! one file, would sign an epoch twice.
//! Exit status: 0 done, 2 bad arguments or a key that cannot sign the epochs asked for,
//! 3 I/O (an unreadable or damaged key file, an output that cannot be written).

use crate::args::CliError;
use crate::cmd::aggregate::instance;
use crate::cmd::leanxmss_keys;
use crate::cmd::signing::{
    duration_words, key_file_error, message, messages, open_output, write_signatures, KeygenArgs,
    SignArgs,
};
use crate::progress::Progress;
use linesig::leansig::{keys, Instance, KeyFile, KeyFileSignError};
use linesig::{Backend, Scheme};
use rand::rngs::StdRng;
use rand::SeedableRng;
use std::time::Instant;

fn backend(instance: Instance) -> Backend {
    Backend::best_for(Scheme::LeanSig(instance))
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

pub fn keygen(args: KeygenArgs) -> Result<bool, CliError> {
    if let Ok(Scheme::LeanXmss(instance)) = args.scheme.parse::<Scheme>() {
        return leanxmss_keys::keygen(instance, args);
    }
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
    // A bar over the bottom trees (drawn on a terminal once the run passes a second).
    let progress = Progress::new("bottom trees", None, !args.quiet);
    let (public_key, key) = keys::key_gen_reporting(
        instance,
        backend(instance),
        &mut rng,
        args.start,
        args.active_epochs,
        &|done, total| progress.report(done, total),
    )
    .map_err(|e| CliError::usage(e.to_string()))?;
    progress.finish();
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

pub fn sign(args: SignArgs) -> Result<bool, CliError> {
    message(&args)?;
    // The output is opened before the key is touched: one that cannot be written
    // uses up no epoch.
    let mut out = open_output(&args)?;
    if leanxmss_keys::is_leanxmss_key(&args.key)? {
        return leanxmss_keys::sign(&args, &mut out);
    }
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
    let public_key = key.public_key();
    let messages = messages(&args, args.count)?;
    let started = Instant::now();
    // `first` < `end` <= the active end <= 2^32, so it fits an epoch.
    let signatures = file
        .sign_many(first as u32, &messages)
        .map_err(|e| match e {
            KeyFileSignError::File(e) => key_file_error(e),
            e => CliError::usage(e.to_string()),
        })?;
    // The key's new state is on disk: only now do signatures leave.
    write_signatures(&args, &mut out, &public_key, first, &messages, &signatures)?;
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
