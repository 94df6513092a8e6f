//! leanSig key files through C: the key used once under any race or crash, the same
//! protocol as `linesig sign` (`linesig::leansig::KeyFile`). A handle holds an exclusive
//! lock on its file from open to close, so a second process or handle on the same file
//! waits; each signature is saved (a new file, fsync, rename, fsync of the directory)
//! before the call returns it. A caller that keeps keys in its own store instead must do
//! the same: one writer per key, and `linesig_leansig_key_to_bytes` durable before a
//! signature leaves.

use crate::leansig::LinesigLeansigKeyInfo;
use crate::leansig::{backend, info_of, instance, key_ref, sign_failure, LinesigLeansigKey};
use crate::{
    array32, free_box, guarded, hand_out, null, output, write_out, Failure, LinesigStatus,
};
use linesig::leansig::keys::{save_new, KeyFile, KeyFileError, KeyFileSignError};
use std::ffi::{c_char, c_int, CStr};
use std::path::PathBuf;

/// A leanSig key file, locked by this handle until `linesig_leansig_key_file_close`.
/// Opaque to C; one thread at a time.
pub struct LinesigLeansigKeyFile {
    file: KeyFile,
}

fn file_failure(e: KeyFileError) -> Failure {
    file_failure_with(e)
}

/// A key file's error, of any scheme's key format, as the C ABI's status: a damaged or
/// foreign key is `BAD_KEY`, everything else `IO_ERROR`.
pub(crate) fn file_failure_with<E: std::error::Error>(
    e: linesig::key_file::KeyFileError<E>,
) -> Failure {
    let status = match e {
        linesig::key_file::KeyFileError::Format { .. } => LinesigStatus::BadKey,
        _ => LinesigStatus::IoError,
    };
    Failure::new(status, e.to_string())
}

/// # Safety
/// `path` null or a NUL-terminated string.
pub(crate) unsafe fn path_of(path: *const c_char) -> Result<PathBuf, Failure> {
    if path.is_null() {
        return Err(null("path"));
    }
    // SAFETY: non-null and NUL-terminated (the caller's promise).
    let bytes = unsafe { CStr::from_ptr(path) }.to_bytes();
    #[cfg(unix)]
    {
        use std::os::unix::ffi::OsStrExt;
        Ok(PathBuf::from(std::ffi::OsStr::from_bytes(bytes)))
    }
    #[cfg(not(unix))]
    {
        std::str::from_utf8(bytes)
            .map(PathBuf::from)
            .map_err(|_| Failure::new(LinesigStatus::IoError, "the path is not UTF-8"))
    }
}

/// # Safety
/// `file` null or from `linesig_leansig_key_file_open`, not closed, this thread only.
unsafe fn file_mut<'a>(file: *mut LinesigLeansigKeyFile) -> Result<&'a mut KeyFile, Failure> {
    if file.is_null() {
        return Err(null("file"));
    }
    // SAFETY: the caller's promise.
    Ok(unsafe { &mut (*file).file })
}

/// Write `key` to a new key file at `path` (NUL-terminated), durably. `IO_ERROR` if the
/// file exists (a key file is never overwritten) or cannot be written.
///
/// # Safety
/// `key` from `linesig_leansig_keygen` or `linesig_leansig_key_from_bytes`; `path` a
/// NUL-terminated string.
#[no_mangle]
pub unsafe extern "C" fn linesig_leansig_key_file_create(
    key: *const LinesigLeansigKey,
    path: *const c_char,
) -> c_int {
    guarded(|| {
        // SAFETY: the caller's promises.
        let (key, path) = unsafe { (key_ref(key)?, path_of(path)?) };
        save_new(&path, key).map(drop).map_err(file_failure)
    })
}

/// Open the key file at `path` (NUL-terminated) for `scheme`, waiting for the exclusive
/// lock while another handle or process holds it, and load the key (every tree checked
/// against the public key). On success `*out` owns the handle and its lock (release
/// both with `linesig_leansig_key_file_close`). `BAD_KEY` for a damaged, foreign or
/// other-scheme file, `IO_ERROR` for one that cannot be read.
///
/// # Safety
/// `path` a NUL-terminated string; `out` writable storage for a pointer.
#[no_mangle]
pub unsafe extern "C" fn linesig_leansig_key_file_open(
    scheme: u32,
    path: *const c_char,
    out: *mut *mut LinesigLeansigKeyFile,
) -> c_int {
    guarded(|| {
        // SAFETY: the caller's promises.
        unsafe {
            hand_out(out, || {
                let wanted = instance(scheme)?;
                let path = path_of(path)?;
                let file = KeyFile::open(&path, backend).map_err(file_failure)?;
                let found = file.key().instance();
                if found != wanted {
                    return Err(Failure::new(
                        LinesigStatus::BadKey,
                        format!(
                            "{}: the secret key is for {found}, not {wanted}",
                            path.display()
                        ),
                    ));
                }
                Ok(LinesigLeansigKeyFile { file })
            })
        }
    })
}

/// Sign the 32-byte `message` at `epoch` into `signature` (`linesig_signature_len`
/// bytes), saving the key file durably before returning: when this returns `OK`, no
/// later open of the file can sign `epoch` again. The epoch rules and statuses are
/// `linesig_leansig_sign`'s; `IO_ERROR` if the save failed (no signature is written,
/// and the epoch counts as used by this handle).
///
/// # Safety
/// `file` from `linesig_leansig_key_file_open`, this thread only; `message`
/// `message_len` readable bytes; `signature` `signature_len` writable bytes.
#[no_mangle]
pub unsafe extern "C" fn linesig_leansig_key_file_sign(
    file: *mut LinesigLeansigKeyFile,
    epoch: u32,
    message: *const u8,
    message_len: usize,
    signature: *mut u8,
    signature_len: usize,
) -> c_int {
    guarded(|| {
        // SAFETY: the caller's promises, checked by the helpers.
        let (file, message) =
            unsafe { (file_mut(file)?, array32("message", message, message_len)?) };
        let expected = file.key().instance().signature_len();
        // SAFETY: as above.
        let signature = unsafe { output("signature", signature, signature_len, expected)? };
        let made = file.sign(epoch, &message).map_err(|e| match e {
            KeyFileSignError::Sign(e) => sign_failure(e),
            KeyFileSignError::File(e) => file_failure(e),
            e => Failure::new(LinesigStatus::InternalError, e.to_string()),
        })?;
        signature.copy_from_slice(&made);
        Ok(())
    })
}

/// The key's scheme, intervals and next epoch, as `linesig_leansig_key_info`.
///
/// # Safety
/// `file` from `linesig_leansig_key_file_open`; `info` writable.
#[no_mangle]
pub unsafe extern "C" fn linesig_leansig_key_file_info(
    file: *mut LinesigLeansigKeyFile,
    info: *mut LinesigLeansigKeyInfo,
) -> c_int {
    guarded(|| {
        // SAFETY: the caller's promise.
        let file = unsafe { file_mut(file)? };
        // SAFETY: the caller's promise.
        unsafe { write_out("info", info, info_of(file.key())) }
    })
}

/// Close the handle and release its lock (null is ignored).
///
/// # Safety
/// `file` null or from `linesig_leansig_key_file_open`, not yet closed, not in use by
/// another thread.
#[no_mangle]
pub unsafe extern "C" fn linesig_leansig_key_file_close(file: *mut LinesigLeansigKeyFile) {
    // SAFETY: the caller's promise, as `free_box` needs it.
    unsafe { free_box(file) }
}
