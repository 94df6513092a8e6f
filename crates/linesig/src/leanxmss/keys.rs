//! leanXMSS key generation and signing (cryptography-specs `Xmss/KeyGen.lean`,
//! `Merkle.lean`, `Sign.lean`), with the secret key linesig keeps: the spec's seed and
//! epoch range, plus the next epoch it may sign, so that a key never signs one epoch
//! twice (the spec leaves tracking spent epochs to the caller; a one-time key that signs
//! two messages at one epoch is forgeable).
//!
//! The spec's key stores no tree node and recomputes what it needs; linesig builds the
//! range's tree once when a key is made or loaded (every leaf is 347 compressions,
//! computed on lanes: `N` epochs per compression) and keeps it, about 32 bytes per
//! epoch, so that signing costs the randomizer search and one epoch's chains.

// Lane code indexes words by lane (`x[word][lane]`) and lanes by number: the loops
// name the lane they transpose, which iterator chains over two axes would hide.
#![allow(clippy::needless_range_loop)]

use super::blake2s::{self, words_of, One};
use super::lanes;
use super::signer_lanes::{walk, SEED_WORDS};
use super::tweak::{public_param, Digest, TweakKind};
use super::verify::MESSAGE_WORDS;
use super::{
    Instance, CHAINS, DIGEST_BYTES, LOG_LIFETIME, MESSAGE_BYTES, PUBLIC_KEY_BYTES,
    RANDOMNESS_BYTES, SEED_BYTES, SIGNATURE_BYTES,
};
use crate::key_file::StoredKey;
use crate::Backend;
use std::path::Path;

/// Why a key could not be made.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
pub enum KeyGenError {
    /// `keyGen`'s `invalidEpochRange`: the first epoch is after the last.
    #[error("empty epoch range: the first epoch {start} is after the last {end}")]
    EmptyRange { start: u32, end: u32 },
    #[error(transparent)]
    TreeTooLarge(#[from] TreeTooLarge),
}

/// A key holds its whole Merkle tree (16 bytes a node, two nodes an epoch): a range whose
/// tree this process cannot allocate is refused with this, not an abort, whether the key
/// is being made or loaded (a valid checksum does not bound the range: up to 2^32 epochs,
/// 128 GiB).
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
#[error("the Merkle tree of a key for {epochs} epochs does not fit in this process's memory")]
pub struct TreeTooLarge {
    pub epochs: u64,
}

/// Why a key did not sign.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
pub enum SignError {
    /// `epochOutOfRange`: the key was not made for this epoch.
    #[error("epoch {epoch} is outside the key's range {start}..={end}")]
    EpochOutOfRange { epoch: u32, start: u32, end: u32 },
    /// The key has signed at this epoch or a later one: signing again could reveal two
    /// one-time signatures of one epoch.
    #[error("epoch {epoch} is used: this key signs only from epoch {next} on")]
    EpochUsed { epoch: u32, next: u64 },
    /// `noAdmissibleEncoding`: no attempt in 2^32 encodes (probability below 2^-256).
    #[error("no randomizer in 2^32 attempts encodes the message at epoch {epoch}")]
    NoAdmissibleEncoding { epoch: u32 },
}

/// Why secret-key bytes were refused.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum KeyFormatError {
    #[error("not a leanXMSS secret key (no LXSK magic)")]
    BadMagic,
    #[error(
        "leanXMSS secret-key format version {0} (this build reads {SECRET_KEY_FORMAT_VERSION})"
    )]
    UnsupportedVersion(u16),
    #[error("secret key is {0} bytes, not {SECRET_KEY_BYTES}")]
    BadLength(usize),
    #[error("unknown leanXMSS instance number {0}")]
    UnknownInstance(u8),
    #[error("secret-key checksum mismatch: the file is damaged")]
    BadChecksum,
    #[error("secret key's range or next epoch is inconsistent: {0}")]
    Inconsistent(String),
    #[error(transparent)]
    TreeTooLarge(#[from] TreeTooLarge),
}

/// The secret-key format's version and size: `LXSK`, version u16, instance u8, a zero
/// byte, seed, first and last epoch (u32), next epoch (u64), then the first 16 bytes of
/// BLAKE2s-256 of everything before; little-endian throughout.
pub const SECRET_KEY_FORMAT_VERSION: u16 = 1;
pub const SECRET_KEY_BYTES: usize = 4 + 2 + 1 + 1 + SEED_BYTES + 4 + 4 + 8 + 16;
const MAGIC: &[u8; 4] = b"LXSK";

/// A leanXMSS key file, locked for this process until dropped (the shared protocol of
/// `crate::key_file`: one signer at a time, the state durable before a signature leaves).
pub type KeyFile = crate::key_file::KeyFile<SecretKey>;
/// Why a leanXMSS key file could not be used.
pub type KeyFileError = crate::key_file::KeyFileError<KeyFormatError>;

/// Why [`KeyFile::sign`] gave no signature.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum KeyFileSignError {
    #[error(transparent)]
    Sign(#[from] SignError),
    #[error(transparent)]
    File(#[from] KeyFileError),
}

impl StoredKey for SecretKey {
    type FormatError = KeyFormatError;
    fn to_bytes(&self) -> Vec<u8> {
        SecretKey::to_bytes(self).to_vec()
    }
}

impl KeyFile {
    /// Open and lock the key file at `path` (waiting while another signer holds it) and
    /// load the key, its tree rebuilt on `backend`.
    pub fn open(path: &Path, backend: Backend) -> Result<KeyFile, KeyFileError> {
        KeyFile::open_with(path, |bytes| SecretKey::from_bytes(bytes, backend))
    }

    /// Sign one message per epoch from `first` on, saving the key once, after the
    /// last, before any signature is returned; epochs signed before an error are saved
    /// as used too.
    pub fn sign_many(
        &mut self,
        first: u32,
        messages: &[[u8; MESSAGE_BYTES]],
    ) -> Result<Vec<[u8; SIGNATURE_BYTES]>, KeyFileSignError> {
        let (start, end) = self.key().range();
        if u64::from(first) + messages.len() as u64 > u64::from(end) + 1 {
            return Err(SignError::EpochOutOfRange {
                epoch: end.saturating_add(1),
                start,
                end,
            }
            .into());
        }
        let mut signatures = Vec::with_capacity(messages.len());
        for (epoch, message) in (first..=end).zip(messages) {
            match self.key_mut().sign(epoch, message) {
                Ok(s) => signatures.push(s),
                Err(e) => {
                    if !signatures.is_empty() {
                        self.save()?;
                    }
                    return Err(e.into());
                }
            }
        }
        self.save()?;
        Ok(signatures)
    }

    /// Sign `message` at `epoch` and save the key before the signature is returned.
    pub fn sign(
        &mut self,
        epoch: u32,
        message: &[u8; MESSAGE_BYTES],
    ) -> Result<[u8; SIGNATURE_BYTES], KeyFileSignError> {
        let signature = self.key_mut().sign(epoch, message)?;
        self.save()?;
        Ok(signature)
    }
}

/// The Merkle nodes the key's epochs reach: on level `l` the indices
/// `start >> l ..= end >> l`; every other node is a filler.
#[derive(Clone)]
struct Tree {
    start: u64,
    levels: Vec<Vec<Digest>>,
}

impl Tree {
    /// The node at (`level`, `index`) when the key's range covers it (`Tree.covers`).
    fn covered(&self, level: usize, index: u64) -> Option<&Digest> {
        let first = self.start >> level;
        let nodes = &self.levels[level];
        index.checked_sub(first).and_then(|i| nodes.get(i as usize))
    }
}

/// A leanXMSS secret key: seed, range, the next epoch it may sign, and the range's tree.
#[derive(Clone)]
pub struct SecretKey {
    instance: Instance,
    seed: [u8; SEED_BYTES],
    start: u32,
    end: u32,
    next: u64,
    pp: Digest,
    tree: Tree,
    /// Where its randomizer searches run.
    backend: Backend,
}

impl std::fmt::Debug for SecretKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // The seed is the whole secret: never printed.
        f.debug_struct("SecretKey")
            .field("instance", &self.instance)
            .field("start", &self.start)
            .field("end", &self.end)
            .field("next", &self.next)
            .finish_non_exhaustive()
    }
}

/// The key pair a seed grows for epochs `start..=end` (`keyGen`), its tree built on
/// `backend`'s lanes.
pub fn key_gen(
    instance: Instance,
    seed: &[u8; SEED_BYTES],
    start: u32,
    end: u32,
    backend: Backend,
) -> Result<SecretKey, KeyGenError> {
    key_gen_reporting(instance, seed, start, end, backend, &|_, _| {})
}

/// As [`key_gen`], calling `progress(done, total)` as the leaves are made (`total`
/// leaves, one per epoch; they are nearly all of key generation's time), so that a long
/// key generation can show how far it is.
pub fn key_gen_reporting(
    instance: Instance,
    seed: &[u8; SEED_BYTES],
    start: u32,
    end: u32,
    backend: Backend,
    progress: &dyn Fn(u64, u64),
) -> Result<SecretKey, KeyGenError> {
    if start > end {
        return Err(KeyGenError::EmptyRange { start, end });
    }
    Ok(SecretKey::build(
        instance,
        *seed,
        start,
        end,
        start as u64,
        backend,
        progress,
    )?)
}

/// Leaves made per call of the lanes when a key is built: a progress report each, and
/// enough work per call to keep every lane and thread busy.
const LEAVES_PER_REPORT: usize = 1 << 14;

impl SecretKey {
    fn build(
        instance: Instance,
        seed: [u8; SEED_BYTES],
        start: u32,
        end: u32,
        next: u64,
        backend: Backend,
        progress: &dyn Fn(u64, u64),
    ) -> Result<Self, TreeTooLarge> {
        let seed_words = words_of::<SEED_WORDS>(&seed);
        let pp = public_param(instance, &seed_words);
        let total = end as u64 - start as u64 + 1;
        let too_large = TreeTooLarge { epochs: total };
        // The leaves are the tree's largest level; each level above is half the one below.
        let mut leaves = Vec::new();
        leaves
            .try_reserve_exact(usize::try_from(total).map_err(|_| too_large)?)
            .map_err(|_| too_large)?;
        // One lane call per LEAVES_PER_REPORT epochs, its epochs listed as the call needs
        // them (never the whole range at once). u64: the last call may end at u32::MAX.
        for first in (start as u64..=end as u64).step_by(LEAVES_PER_REPORT) {
            let last = (first + LEAVES_PER_REPORT as u64 - 1).min(end as u64);
            let chunk: Vec<u32> = (first as u32..=last as u32).collect();
            leaves.extend(lanes::leaves(backend, instance, &pp, &seed_words, &chunk));
            progress(leaves.len() as u64, total);
        }
        let mut levels = vec![leaves];
        for level in 0..LOG_LIFETIME {
            let (first, last) = ((start as u64) >> (level + 1), (end as u64) >> (level + 1));
            let below = &levels[level];
            let below_first = (start as u64) >> level;
            let child = |index: u64| -> Digest {
                match index
                    .checked_sub(below_first)
                    .and_then(|i| below.get(i as usize))
                {
                    Some(node) => *node,
                    None => filler(instance, &pp, &seed_words, level, index),
                }
            };
            let mut pairs: Vec<(Digest, Digest)> = Vec::new();
            pairs
                .try_reserve_exact((last - first + 1) as usize)
                .map_err(|_| too_large)?;
            pairs.extend((first..=last).map(|j| (child(2 * j), child(2 * j + 1))));
            let parents = lanes::parents(backend, instance, &pp, level + 1, first, &pairs);
            levels.push(parents);
        }
        Ok(SecretKey {
            instance,
            seed,
            start,
            end,
            next,
            pp,
            tree: Tree {
                start: start as u64,
                levels,
            },
            backend,
        })
    }

    pub fn instance(&self) -> Instance {
        self.instance
    }

    /// The first and last epoch the key signs at.
    pub fn range(&self) -> (u32, u32) {
        (self.start, self.end)
    }

    /// The first epoch the key may still sign at (`end + 1` once spent).
    pub fn next_epoch(&self) -> u64 {
        self.next
    }

    /// The 32-byte public key: Merkle root ‖ public parameter.
    pub fn public_key(&self) -> [u8; PUBLIC_KEY_BYTES] {
        let mut out = [0u8; PUBLIC_KEY_BYTES];
        blake2s::bytes_of(&self.tree.levels[LOG_LIFETIME][0], &mut out[..DIGEST_BYTES]);
        blake2s::bytes_of(&self.pp, &mut out[DIGEST_BYTES..]);
        out
    }

    /// Sign `message` at `epoch` (`sign`): the randomizer search on the lanes of the
    /// backend the key was made or loaded with, then the epoch's chains and path.
    /// Refuses an epoch before the next unused one; afterwards the key signs only after
    /// `epoch`. Save the key (`to_bytes`, or sign through a [`KeyFile`]) before the
    /// signature leaves the process.
    pub fn sign(
        &mut self,
        epoch: u32,
        message: &[u8; MESSAGE_BYTES],
    ) -> Result<[u8; SIGNATURE_BYTES], SignError> {
        self.check_in_range(epoch)?;
        if (epoch as u64) < self.next {
            return Err(SignError::EpochUsed {
                epoch,
                next: self.next,
            });
        }
        let signature = self.signature_at(epoch, message)?;
        self.next = epoch as u64 + 1;
        Ok(signature)
    }

    /// `epochOutOfRange` unless the key's range holds `epoch`.
    fn check_in_range(&self, epoch: u32) -> Result<(), SignError> {
        if epoch < self.start || epoch > self.end {
            return Err(SignError::EpochOutOfRange {
                epoch,
                start: self.start,
                end: self.end,
            });
        }
        Ok(())
    }

    /// The spec's deterministic signature at an epoch of the range, without the
    /// one-use rule: for the spec's vectors and for tests.
    #[doc(hidden)]
    pub fn signature_at(
        &self,
        epoch: u32,
        message: &[u8; MESSAGE_BYTES],
    ) -> Result<[u8; SIGNATURE_BYTES], SignError> {
        self.check_in_range(epoch)?;
        let seed = words_of::<SEED_WORDS>(&self.seed);
        let message_words = words_of::<MESSAGE_WORDS>(message);
        let (randomness, digits) = lanes::find_randomness(
            self.backend,
            self.instance,
            &self.pp,
            &seed,
            &message_words,
            epoch,
        )
        .ok_or(SignError::NoAdmissibleEncoding { epoch })?;
        let mut out = [0u8; SIGNATURE_BYTES];
        let (tips, rest) = out.split_at_mut(CHAINS * DIGEST_BYTES);
        let (rnd, path) = rest.split_at_mut(RANDOMNESS_BYTES);
        for (chain, (slot, &digit)) in tips.chunks_exact_mut(DIGEST_BYTES).zip(&digits).enumerate()
        {
            let start = chain_start(self.instance, &self.pp, &seed, chain, epoch);
            let tip = walk::<1, One>(
                One,
                self.instance,
                ([self.pp], [epoch]),
                chain,
                0..digit as usize,
                [start],
            );
            blake2s::bytes_of(&tip[0], slot);
        }
        blake2s::bytes_of(&randomness, rnd);
        for (level, slot) in path.chunks_exact_mut(DIGEST_BYTES).enumerate() {
            let sibling = ((epoch as u64) >> level) ^ 1;
            let node = match self.tree.covered(level, sibling) {
                Some(node) => *node,
                None => filler(self.instance, &self.pp, &seed, level, sibling),
            };
            blake2s::bytes_of(&node, slot);
        }
        Ok(out)
    }

    /// The key's bytes (see [`SECRET_KEY_BYTES`]); the tree is rebuilt on load.
    pub fn to_bytes(&self) -> [u8; SECRET_KEY_BYTES] {
        let mut out = [0u8; SECRET_KEY_BYTES];
        out[..4].copy_from_slice(MAGIC);
        out[4..6].copy_from_slice(&SECRET_KEY_FORMAT_VERSION.to_le_bytes());
        out[6] = self.instance.number();
        out[8..40].copy_from_slice(&self.seed);
        out[40..44].copy_from_slice(&self.start.to_le_bytes());
        out[44..48].copy_from_slice(&self.end.to_le_bytes());
        out[48..56].copy_from_slice(&self.next.to_le_bytes());
        let checksum = blake2s::hash(&out[..56]);
        out[56..].copy_from_slice(&checksum[..16]);
        out
    }

    /// A key from [`to_bytes`](Self::to_bytes), its tree rebuilt on `backend`: as long
    /// as key generation for its range.
    pub fn from_bytes(bytes: &[u8], backend: Backend) -> Result<Self, KeyFormatError> {
        if bytes.len() < 4 || &bytes[..4] != MAGIC {
            return Err(KeyFormatError::BadMagic);
        }
        if bytes.len() >= 6 {
            let version = u16::from_le_bytes([bytes[4], bytes[5]]);
            if version != SECRET_KEY_FORMAT_VERSION {
                return Err(KeyFormatError::UnsupportedVersion(version));
            }
        }
        if bytes.len() != SECRET_KEY_BYTES {
            return Err(KeyFormatError::BadLength(bytes.len()));
        }
        if blake2s::hash(&bytes[..56])[..16] != bytes[56..] {
            return Err(KeyFormatError::BadChecksum);
        }
        let instance =
            Instance::from_number(bytes[6]).ok_or(KeyFormatError::UnknownInstance(bytes[6]))?;
        let u32_at = |at: usize| u32::from_le_bytes(bytes[at..at + 4].try_into().expect("4 bytes"));
        let (start, end) = (u32_at(40), u32_at(44));
        let next = u64::from_le_bytes(bytes[48..56].try_into().expect("8 bytes"));
        if bytes[7] != 0 || start > end || next < start as u64 || next > end as u64 + 1 {
            return Err(KeyFormatError::Inconsistent(format!(
                "range {start}..={end}, next epoch {next}"
            )));
        }
        let seed = bytes[8..40].try_into().expect("32 bytes");
        Ok(SecretKey::build(
            instance,
            seed,
            start,
            end,
            next,
            backend,
            &|_, _| {},
        )?)
    }
}

/// A chain's secret start (`otsSecretKey`): one 64-byte block.
fn chain_start(
    instance: Instance,
    pp: &Digest,
    seed: &[u32; SEED_WORDS],
    chain: usize,
    epoch: u32,
) -> Digest {
    instance.tweak_hash_words(pp, TweakKind::Prf, chain as u32, epoch, seed)
}

/// A node the key's range does not reach (`fillerNode`).
fn filler(
    instance: Instance,
    pp: &Digest,
    seed: &[u32; SEED_WORDS],
    level: usize,
    index: u64,
) -> Digest {
    instance.tweak_hash_words(pp, TweakKind::Filler, level as u32, index as u32, seed)
}
