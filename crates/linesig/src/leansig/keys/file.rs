//! leanSig's key file: the shared one-time key-file protocol (`crate::key_file`: one
//! signer at a time, the state durable before a signature leaves) over leanSig's
//! secret key, with the signing calls that save before they return.

use super::{KeyFormatError, SecretKey, SignError};
use crate::key_file::StoredKey;
use crate::leansig::Instance;
use crate::Backend;
use std::path::Path;

/// A leanSig key file, locked for this process until dropped.
pub type KeyFile = crate::key_file::KeyFile<SecretKey>;
/// Why a leanSig key file could not be used.
pub type KeyFileError = crate::key_file::KeyFileError<KeyFormatError>;
pub use crate::key_file::{crash_point, save_new};

impl StoredKey for SecretKey {
    type FormatError = KeyFormatError;
    fn to_bytes(&self) -> Vec<u8> {
        SecretKey::to_bytes(self)
    }
}

impl KeyFile {
    /// Open and lock the key file at `path` (waiting while another signer holds it) and
    /// load the key on the backend `backend` picks for its instance. The lock is held
    /// until the `KeyFile` is dropped.
    pub fn open(
        path: &Path,
        backend: impl FnOnce(Instance) -> Backend,
    ) -> Result<KeyFile, KeyFileError> {
        KeyFile::open_with(path, |bytes| {
            let instance = SecretKey::instance_in(bytes)?;
            SecretKey::from_bytes(bytes, backend(instance))
        })
    }

    /// Sign `message` at `epoch` and save the key before the signature is returned: when
    /// this returns `Ok`, no later load of the file can sign `epoch` again. A save that
    /// fails returns the error and no signature; the epoch counts as used in memory.
    pub fn sign(&mut self, epoch: u32, message: &[u8; 32]) -> Result<Vec<u8>, KeyFileSignError> {
        let signature = self.key_mut().sign(epoch, message)?;
        self.save()?;
        Ok(signature)
    }

    /// Sign one message per epoch from `first` on (`messages.len()` epochs), saving the
    /// key once, after the last, before any signature is returned.
    pub fn sign_many(
        &mut self,
        first: u32,
        messages: &[[u8; 32]],
    ) -> Result<Vec<Vec<u8>>, KeyFileSignError> {
        let active = self.key().activation_interval();
        if u64::from(first) + messages.len() as u64 > u64::from(u32::MAX) + 1 {
            return Err(SignError::NotActive {
                epoch: u32::MAX,
                start: active.start,
                end: active.end,
            }
            .into());
        }
        let mut signatures = Vec::with_capacity(messages.len());
        for (epoch, message) in (first..=u32::MAX).zip(messages) {
            match self.key_mut().sign(epoch, message) {
                Ok(s) => signatures.push(s),
                Err(e) => {
                    // Epochs already burned in memory reach the disk too.
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

    /// Slide the prepared interval by one bottom tree (see
    /// [`SecretKey::advance_preparation`]) and save; returns whether it moved.
    pub fn advance_preparation(&mut self) -> Result<bool, KeyFileError> {
        let moved = self.key_mut().advance_preparation();
        if moved {
            self.save()?;
        }
        Ok(moved)
    }
}

/// Why [`KeyFile::sign`] gave no signature.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum KeyFileSignError {
    #[error(transparent)]
    Sign(#[from] SignError),
    #[error(transparent)]
    File(#[from] KeyFileError),
}
