//! leanSig aggregation for Python (`linesig.leansig`): one STARK proof that a list of
//! devnet-4 signatures verifies, on `linesig_aggregate`, with the GIL
//! released while proving or checking. Columns as `Engine.verify` takes them, epochs
//! as integers.

use linesig::leansig::Instance;
use linesig::Item;
use linesig_aggregate as aggregate;
use pyo3::create_exception;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyBytes;

create_exception!(
    _native,
    AggregateError,
    PyValueError,
    "No proof was made: bad arguments, or a signature that does not verify (then \
     `args[1]` is its index)."
);
create_exception!(
    _native,
    InvalidAggregate,
    PyValueError,
    "The proof does not verify against the listed signers (or cannot be read)."
);

fn instance(scheme: &str) -> PyResult<Instance> {
    scheme
        .parse()
        .map_err(|e: linesig::UnknownName| PyValueError::new_err(e.to_string()))
}

/// Each epoch as the item's 4-byte context, range-checked here so that a bad one is a
/// `ValueError` naming its index rather than pyo3's bare `OverflowError`.
fn epoch_contexts(epochs: &[i64]) -> PyResult<Vec<[u8; 4]>> {
    epochs
        .iter()
        .enumerate()
        .map(|(index, &epoch)| {
            u32::try_from(epoch).map(u32::to_le_bytes).map_err(|_| {
                PyValueError::new_err(format!(
                    "epochs[{index}] is {epoch}: an epoch is in 0..2**32"
                ))
            })
        })
        .collect()
}

/// The items of equal-length columns; `signatures` may be absent (verification).
fn items<'a>(
    public_keys: &'a [Vec<u8>],
    messages: &'a [Vec<u8>],
    signatures: Option<&'a [Vec<u8>]>,
    epochs: &'a [[u8; 4]],
) -> PyResult<Vec<Item<'a>>> {
    let n = public_keys.len();
    if messages.len() != n || epochs.len() != n || signatures.is_some_and(|s| s.len() != n) {
        return Err(PyValueError::new_err(
            "public_keys, messages, signatures and epochs must have the same length",
        ));
    }
    Ok((0..n)
        .map(|i| {
            let signature = signatures.map_or(&[][..], |s| &s[i]);
            Item::new(&public_keys[i], &messages[i], signature).with_context(&epochs[i])
        })
        .collect())
}

/// The proof's bytes for the signed list (`AggregateError` if any signature fails).
#[pyfunction]
#[pyo3(signature = (public_keys, messages, signatures, epochs, scheme = "leansig-devnet4"))]
pub fn leansig_aggregate<'py>(
    py: Python<'py>,
    public_keys: Vec<Vec<u8>>,
    messages: Vec<Vec<u8>>,
    signatures: Vec<Vec<u8>>,
    epochs: Vec<i64>,
    scheme: &str,
) -> PyResult<Bound<'py, PyBytes>> {
    let instance = instance(scheme)?;
    let epochs = epoch_contexts(&epochs)?;
    let items = items(&public_keys, &messages, Some(&signatures), &epochs)?;
    match py.detach(|| aggregate::prove(instance, &items)) {
        Ok(proof) => Ok(PyBytes::new(py, &proof.bytes)),
        Err(e @ aggregate::AggregateError::InvalidSignature { index, .. }) => {
            Err(AggregateError::new_err((e.to_string(), index)))
        }
        Err(e) => Err(AggregateError::new_err(e.to_string())),
    }
}

/// Returns if `proof` verifies against exactly this list in this order; otherwise
/// raises `InvalidAggregate` with the reason.
#[pyfunction]
#[pyo3(signature = (public_keys, messages, epochs, proof, scheme = "leansig-devnet4"))]
pub fn leansig_verify_aggregate(
    py: Python<'_>,
    public_keys: Vec<Vec<u8>>,
    messages: Vec<Vec<u8>>,
    epochs: Vec<i64>,
    proof: Vec<u8>,
    scheme: &str,
) -> PyResult<()> {
    let instance = instance(scheme)?;
    let epochs = epoch_contexts(&epochs)?;
    let items = items(&public_keys, &messages, None, &epochs)?;
    py.detach(|| aggregate::verify_aggregate(instance, &items, &proof))
        .map_err(|e| InvalidAggregate::new_err(e.to_string()))
}

/// Register the functions and exceptions on the module.
pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(leansig_aggregate, m)?)?;
    m.add_function(wrap_pyfunction!(leansig_verify_aggregate, m)?)?;
    m.add("AggregateError", m.py().get_type::<AggregateError>())?;
    m.add("InvalidAggregate", m.py().get_type::<InvalidAggregate>())?;
    Ok(())
}
