//! One-time (hash-based) secret keys kept in files, each used once under any race or
//! crash: the protocol every scheme's key file and every face uses.
//!
//! A one-time (hash-based) key must never sign one epoch twice: two signatures for one
//! epoch reveal chain values that let anyone forge a third. A key file read by two
//! signers at once, or rolled back by a crash, would do exactly that. [`KeyFile`] is the
//! protocol every face uses (the CLI's `sign`, the C ABI's `linesig_*_key_file_*`), for
//! leanSig's and leanXMSS's keys alike (each scheme's key is a [`StoredKey`]):
//!
//! 1. **One signer at a time.** [`KeyFile::open`] takes an exclusive advisory lock
//!    (`flock` on Unix, `LockFileEx` on Windows: `std::fs::File::lock`) on the key file
//!    and holds it until the `KeyFile` is dropped. A save replaces the file by rename,
//!    so after taking the lock the opener checks that the path still names the file it
//!    locked (same device and inode); if a save replaced it meanwhile, it opens the new
//!    one and locks again. It then reads the key from the locked file itself.
//! 2. **The state is on disk before a signature leaves.** A scheme's `KeyFile::sign`
//!    advances the key in memory and saves it ([`KeyFile::save`]) before it returns the
//!    signature: a new file with a
//!    name no other process uses (`KEY.<pid>.<n>.tmp`, created exclusively), locked
//!    before anyone can see it, written, `fsync`ed, renamed over the key, and then the
//!    directory `fsync`ed, so that the rename itself survives a power cut (without it an
//!    old key, its used epochs unmarked, can come back). The lock moves with the file:
//!    the new file is locked before the rename, so a waiter never reads a state that a
//!    later save of this signer replaces.
//!
//! A crash (or `kill -9`) at any point leaves either the old key with no signature
//! given out, or the new key: never an old key and a signature for a newer epoch.
//!
//! Callers that keep keys in their own store (a database, an HSM's blob) must do the
//! same: one writer per key, and the new state durable before the signature leaves.

use std::fs::{File, OpenOptions};
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

/// A scheme's secret key as a key file stores it.
pub trait StoredKey: Sized {
    /// Why bytes are not a key of the scheme.
    type FormatError: std::error::Error + Send + Sync + 'static;
    /// The key's bytes, its state (the epochs it has used) included.
    fn to_bytes(&self) -> Vec<u8>;
}

/// Why a key file could not be used; `E` is the scheme's key-format error.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum KeyFileError<E: std::error::Error + 'static> {
    #[error("{path}: {source}")]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("{path}: {source}")]
    Format {
        path: PathBuf,
        #[source]
        source: E,
    },
    #[error("{path} exists: a key file is never overwritten (remove it or choose another)")]
    Exists { path: PathBuf },
}

impl<E: std::error::Error + 'static> KeyFileError<E> {
    fn io(path: &Path, source: std::io::Error) -> Self {
        KeyFileError::Io {
            path: path.to_owned(),
            source,
        }
    }
}

/// A test hook: with `LINESIG_CRASH_AT=<point>` in the environment the process kills
/// itself (as `kill -9` would: no destructor, no buffered output) at that point of the
/// sign path, so that the tests can check every point leaves a key that never signs an
/// epoch again. The points: `locked`, `temporary-written`, `renamed`, `saved`.
pub fn crash_point(point: &str) {
    if std::env::var_os("LINESIG_CRASH_AT").is_some_and(|at| at == point) {
        std::process::abort();
    }
}

/// A key file, locked for this process until dropped (see the module's protocol).
pub struct KeyFile<K> {
    path: PathBuf,
    /// The open, locked file the path names.
    file: File,
    key: K,
}

impl<K: std::fmt::Debug> std::fmt::Debug for KeyFile<K> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("KeyFile")
            .field("path", &self.path)
            .field("key", &self.key)
            .finish()
    }
}

/// Whether `path` still names the file `file` is (a save may have renamed another over
/// it between our open and our lock).
fn still_named(path: &Path, file: &File) -> std::io::Result<bool> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        let (named, held) = (std::fs::metadata(path)?, file.metadata()?);
        Ok(named.dev() == held.dev() && named.ino() == held.ino())
    }
    #[cfg(not(unix))]
    {
        // Windows refuses to rename over an open file, so the name cannot move.
        let _ = (path, file);
        Ok(true)
    }
}

/// Open `path` and lock it exclusively, waiting for another holder; retried until the
/// locked file is the one the path names.
fn open_locked<E: std::error::Error>(path: &Path) -> Result<File, KeyFileError<E>> {
    loop {
        let file = OpenOptions::new()
            .read(true)
            .open(path)
            .map_err(|e| KeyFileError::io(path, e))?;
        file.lock().map_err(|e| KeyFileError::io(path, e))?;
        if still_named(path, &file).map_err(|e| KeyFileError::io(path, e))? {
            return Ok(file);
        }
    }
}

/// `fsync` the directory holding `path`, so that a rename or a new name in it is durable.
fn sync_directory(path: &Path) -> std::io::Result<()> {
    #[cfg(unix)]
    {
        let directory = match path.parent() {
            Some(p) if !p.as_os_str().is_empty() => p,
            _ => Path::new("."),
        };
        File::open(directory)?.sync_all()
    }
    #[cfg(not(unix))]
    {
        let _ = path;
        Ok(())
    }
}

/// A name beside `path` that no other process or call of this one uses, created
/// exclusively.
fn create_temporary(path: &Path) -> std::io::Result<(PathBuf, File)> {
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    loop {
        let mut name = path.as_os_str().to_owned();
        let n = COUNTER.fetch_add(1, Ordering::Relaxed);
        name.push(format!(".{}.{n}.tmp", std::process::id()));
        let name = PathBuf::from(name);
        match OpenOptions::new().write(true).create_new(true).open(&name) {
            Ok(file) => return Ok((name, file)),
            // A file a crashed process of the same pid left: take the next number.
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => continue,
            Err(e) => return Err(e),
        }
    }
}

/// Write `bytes` to a new file beside `path`, durably, and rename it over `path`;
/// returns the new file, locked (its lock taken before the rename made it visible).
fn replace_durably<E: std::error::Error>(
    path: &Path,
    bytes: &[u8],
    create: bool,
) -> Result<File, KeyFileError<E>> {
    let io = |e| KeyFileError::io(path, e);
    let (temporary, mut file) = create_temporary(path).map_err(io)?;
    let written = (|| {
        file.lock()?;
        file.write_all(bytes)?;
        file.sync_all()?;
        crash_point("temporary-written");
        if create {
            // A hard link fails if the name exists: keygen never overwrites a key.
            std::fs::hard_link(&temporary, path)?;
            std::fs::remove_file(&temporary)?;
        } else {
            std::fs::rename(&temporary, path)?;
        }
        crash_point("renamed");
        sync_directory(path)
    })();
    if let Err(e) = written {
        let _ = std::fs::remove_file(&temporary);
        if create && e.kind() == std::io::ErrorKind::AlreadyExists {
            return Err(KeyFileError::Exists {
                path: path.to_owned(),
            });
        }
        return Err(io(e));
    }
    Ok(file)
}

/// Write `key` to a new key file at `path`, durably (fsync of the file and of its
/// directory); refused if `path` exists (the hard link that names the file fails then,
/// so two creators cannot both win), so that no key is ever overwritten by another.
/// Returns the bytes written.
pub fn save_new<K: StoredKey>(path: &Path, key: &K) -> Result<usize, KeyFileError<K::FormatError>> {
    let bytes = key.to_bytes();
    replace_durably(path, &bytes, true)?;
    Ok(bytes.len())
}

impl<K: StoredKey> KeyFile<K> {
    /// Open and lock the key file at `path` (waiting while another signer holds it) and
    /// read the key from the locked file with `load`. The lock is held until the
    /// `KeyFile` is dropped.
    pub fn open_with(
        path: &Path,
        load: impl FnOnce(&[u8]) -> Result<K, K::FormatError>,
    ) -> Result<Self, KeyFileError<K::FormatError>> {
        let mut file = open_locked(path)?;
        crash_point("locked");
        let mut bytes = Vec::new();
        file.read_to_end(&mut bytes)
            .map_err(|e| KeyFileError::io(path, e))?;
        let key = load(&bytes).map_err(|source| KeyFileError::Format {
            path: path.to_owned(),
            source,
        })?;
        Ok(KeyFile {
            path: path.to_owned(),
            file,
            key,
        })
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The key as loaded or last saved.
    pub fn key(&self) -> &K {
        &self.key
    }

    /// The key, to advance before a [`save`](Self::save): only the schemes' signing
    /// methods, which save before they return a signature, take it.
    pub(crate) fn key_mut(&mut self) -> &mut K {
        &mut self.key
    }

    /// Save the key's state durably over the file, keeping the lock.
    pub fn save(&mut self) -> Result<(), KeyFileError<K::FormatError>> {
        self.file = replace_durably(&self.path, &self.key.to_bytes(), false)?;
        crash_point("saved");
        Ok(())
    }
}
