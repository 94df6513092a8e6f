//! leanXMSS keys for Python (`linesig.leanxmss`): a key made from a seed for an epoch
//! range, signing each epoch once; its bytes (`LXSK`) to save after every signature.
//! Verification is `Engine(scheme="leanxmss")`'s.

use linesig::leanxmss::{self, Instance, KeyFile, SecretKey};
use linesig::{Backend, Scheme};
use pyo3::exceptions::{PyOSError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyBytes;
use std::sync::Mutex;

fn backend() -> Backend {
    Backend::best_for(Scheme::LeanXmss(Instance::Spec))
}

fn array32(name: &str, bytes: &[u8]) -> PyResult<[u8; 32]> {
    bytes.try_into().map_err(|_| {
        PyValueError::new_err(format!("{name} is {} bytes; it must be 32", bytes.len()))
    })
}

fn epoch(name: &str, value: i64) -> PyResult<u32> {
    u32::try_from(value)
        .map_err(|_| PyValueError::new_err(format!("{name} is {value}: an epoch is in 0..2**32")))
}

/// A leanXMSS secret key and the next epoch it may sign.
#[pyclass(module = "linesig._native", frozen)]
pub struct LeanXmssKey {
    key: Mutex<SecretKey>,
}

impl LeanXmssKey {
    fn with<T>(&self, f: impl FnOnce(&mut SecretKey) -> T) -> T {
        f(&mut self.key.lock().unwrap_or_else(|p| p.into_inner()))
    }
}

#[pymethods]
impl LeanXmssKey {
    /// The key a 32-byte seed grows for epochs `epoch_start..=epoch_end`.
    #[staticmethod]
    fn generate(py: Python<'_>, seed: &[u8], epoch_start: i64, epoch_end: i64) -> PyResult<Self> {
        let seed = array32("seed", seed)?;
        let (start, end) = (
            epoch("epoch_start", epoch_start)?,
            epoch("epoch_end", epoch_end)?,
        );
        let key = py
            .detach(|| leanxmss::key_gen(Instance::Spec, &seed, start, end, backend()))
            .map_err(|e| PyValueError::new_err(e.to_string()))?;
        Ok(LeanXmssKey {
            key: Mutex::new(key),
        })
    }

    /// A key from `to_bytes`, its tree rebuilt.
    #[staticmethod]
    fn from_bytes(py: Python<'_>, data: &[u8]) -> PyResult<Self> {
        let key = py
            .detach(|| SecretKey::from_bytes(data, backend()))
            .map_err(|e| PyValueError::new_err(e.to_string()))?;
        Ok(LeanXmssKey {
            key: Mutex::new(key),
        })
    }

    fn public_key<'py>(&self, py: Python<'py>) -> Bound<'py, PyBytes> {
        PyBytes::new(py, &self.with(|k| k.public_key()))
    }

    fn to_bytes<'py>(&self, py: Python<'py>) -> Bound<'py, PyBytes> {
        PyBytes::new(py, &self.with(|k| k.to_bytes()))
    }

    #[getter]
    fn epoch_range(&self) -> (u32, u32) {
        self.with(|k| k.range())
    }

    #[getter]
    fn next_epoch(&self) -> u64 {
        self.with(|k| k.next_epoch())
    }

    /// The signature of a 32-byte message at `epoch`; the key then signs only later
    /// epochs (`ValueError` for a used or out-of-range epoch).
    fn sign<'py>(
        &self,
        py: Python<'py>,
        epoch_value: i64,
        message: &[u8],
    ) -> PyResult<Bound<'py, PyBytes>> {
        let at = epoch("epoch", epoch_value)?;
        let message = array32("message", message)?;
        let signature = py
            .detach(|| self.with(|k| k.sign(at, &message)))
            .map_err(|e| PyValueError::new_err(e.to_string()))?;
        Ok(PyBytes::new(py, &signature))
    }
}

/// A leanXMSS key file open for signing: locked from `open` to `close`, saved before
/// each signature is returned (the protocol of `linesig sign`).
#[pyclass(module = "linesig._native", frozen)]
pub struct LeanXmssKeyFile {
    file: Mutex<Option<KeyFile>>,
}

impl LeanXmssKeyFile {
    fn with<T>(&self, f: impl FnOnce(&mut KeyFile) -> PyResult<T>) -> PyResult<T> {
        let mut guard = self.file.lock().unwrap_or_else(|p| p.into_inner());
        match guard.as_mut() {
            Some(file) => f(file),
            None => Err(PyValueError::new_err("the key file is closed")),
        }
    }
}

/// An I/O failure as `OSError`, a damaged or foreign file as `ValueError`: the path and
/// the cause in the message either way.
fn key_file_error(e: leanxmss::KeyFileError) -> PyErr {
    match e {
        leanxmss::KeyFileError::Format { .. } => PyValueError::new_err(e.to_string()),
        e => PyOSError::new_err(e.to_string()),
    }
}

#[pymethods]
impl LeanXmssKeyFile {
    /// Open and lock the key file at `path` (waiting while another signer holds it).
    #[staticmethod]
    fn open(py: Python<'_>, path: std::path::PathBuf) -> PyResult<Self> {
        let file = py
            .detach(|| KeyFile::open(&path, backend()))
            .map_err(key_file_error)?;
        Ok(LeanXmssKeyFile {
            file: Mutex::new(Some(file)),
        })
    }

    /// Write `key` to a new key file at `path`, durably (never over an existing file).
    #[staticmethod]
    fn create(py: Python<'_>, key: &LeanXmssKey, path: std::path::PathBuf) -> PyResult<()> {
        let key = key.with(|k| k.clone());
        py.detach(|| leanxmss::save_new(&path, &key))
            .map(|_| ())
            .map_err(key_file_error)
    }

    fn public_key<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyBytes>> {
        let key = self.with(|f| Ok(f.key().public_key()))?;
        Ok(PyBytes::new(py, &key))
    }

    #[getter]
    fn epoch_range(&self) -> PyResult<(u32, u32)> {
        self.with(|f| Ok(f.key().range()))
    }

    #[getter]
    fn next_epoch(&self) -> PyResult<u64> {
        self.with(|f| Ok(f.key().next_epoch()))
    }

    /// Sign a 32-byte message at `epoch`, saving the file before the signature is
    /// returned (`ValueError` for a used or out-of-range epoch, `OSError` if the save
    /// failed: no signature, the epoch used up all the same).
    fn sign<'py>(
        &self,
        py: Python<'py>,
        epoch_value: i64,
        message: &[u8],
    ) -> PyResult<Bound<'py, PyBytes>> {
        let at = epoch("epoch", epoch_value)?;
        let message = array32("message", message)?;
        let signature = py.detach(|| {
            self.with(|f| {
                f.sign(at, &message).map_err(|e| match e {
                    leanxmss::KeyFileSignError::Sign(e) => PyValueError::new_err(e.to_string()),
                    leanxmss::KeyFileSignError::File(e) => key_file_error(e),
                    e => PyValueError::new_err(e.to_string()),
                })
            })
        })?;
        Ok(PyBytes::new(py, &signature))
    }

    /// Release the lock (later calls raise `ValueError`).
    fn close(&self) {
        self.file.lock().unwrap_or_else(|p| p.into_inner()).take();
    }
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<LeanXmssKey>()?;
    m.add_class::<LeanXmssKeyFile>()?;
    Ok(())
}
