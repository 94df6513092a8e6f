//! Ed25519 keys and signing for Python (`linesig.ed25519`): RFC 8032 §5.1.5–5.1.6 by
//! ed25519-dalek, as the C ABI's `linesig_ed25519_*` calls, so a Python user can make
//! what the engine verifies.

use ed25519_dalek::{Signer, SigningKey};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyBytes;

fn signing_key(seed: &[u8]) -> PyResult<SigningKey> {
    let seed: [u8; 32] = seed.try_into().map_err(|_| {
        PyValueError::new_err(format!("seed is {} bytes; it must be 32", seed.len()))
    })?;
    Ok(SigningKey::from_bytes(&seed))
}

/// The 32-byte public key of a 32-byte secret seed.
#[pyfunction]
pub fn ed25519_public_key<'py>(py: Python<'py>, seed: &[u8]) -> PyResult<Bound<'py, PyBytes>> {
    Ok(PyBytes::new(
        py,
        signing_key(seed)?.verifying_key().as_bytes(),
    ))
}

/// The deterministic 64-byte signature of `message` under the 32-byte secret seed.
#[pyfunction]
pub fn ed25519_sign<'py>(
    py: Python<'py>,
    seed: &[u8],
    message: &[u8],
) -> PyResult<Bound<'py, PyBytes>> {
    Ok(PyBytes::new(
        py,
        &signing_key(seed)?.sign(message).to_bytes(),
    ))
}

/// Register the functions on the module.
pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(ed25519_public_key, m)?)?;
    m.add_function(wrap_pyfunction!(ed25519_sign, m)?)?;
    Ok(())
}
