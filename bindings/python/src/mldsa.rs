//! ML-DSA key generation and signing for Python (`linesig.mldsa`), on `linesig::mldsa`
//! (FIPS 204; libcrux underneath), beside the engine's batch verification.

use linesig::mldsa::{self, ParameterSet};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyBytes;

fn parameter_set(scheme: &str) -> PyResult<ParameterSet> {
    scheme
        .parse()
        .map_err(|e: linesig::UnknownName| PyValueError::new_err(e.to_string()))
}

fn array32(name: &str, bytes: &[u8]) -> PyResult<[u8; 32]> {
    bytes.try_into().map_err(|_| {
        PyValueError::new_err(format!("{name} is {} bytes; it must be 32", bytes.len()))
    })
}

/// ML-DSA.KeyGen_internal from the 32-byte seed: (public key, signing key).
#[pyfunction]
pub fn mldsa_keygen<'py>(
    py: Python<'py>,
    scheme: &str,
    seed: &[u8],
) -> PyResult<(Bound<'py, PyBytes>, Bound<'py, PyBytes>)> {
    let pair = mldsa::generate_key_pair(parameter_set(scheme)?, array32("seed", seed)?);
    Ok((
        PyBytes::new(py, &pair.public_key),
        PyBytes::new(py, &pair.signing_key),
    ))
}

/// ML-DSA.Sign: hedged with 32 bytes of `randomness`, deterministic when it is None.
#[pyfunction]
#[pyo3(signature = (scheme, signing_key, message, context, randomness))]
pub fn mldsa_sign<'py>(
    py: Python<'py>,
    scheme: &str,
    signing_key: &[u8],
    message: &[u8],
    context: &[u8],
    randomness: Option<&[u8]>,
) -> PyResult<Bound<'py, PyBytes>> {
    let randomness = randomness.map_or(Ok([0u8; 32]), |r| array32("randomness", r))?;
    let signature = mldsa::sign(
        parameter_set(scheme)?,
        signing_key,
        message,
        context,
        randomness,
    )
    .map_err(|e| PyValueError::new_err(e.to_string()))?;
    Ok(PyBytes::new(py, &signature))
}

/// Register the functions on the module.
pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(mldsa_keygen, m)?)?;
    m.add_function(wrap_pyfunction!(mldsa_sign, m)?)?;
    Ok(())
}
