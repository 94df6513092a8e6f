//! `Engine` for Python: a `linesig::Engine` fed from Python columns without copying them.
//!
//! A column is one of:
//! - a list (or tuple) of `bytes`, read in place;
//! - `("fixed", buffer, width)`: `len(buffer) / width` values of `width` bytes each;
//! - `("offsets", data, offsets)`: value i is `data[offsets[i]:offsets[i + 1]]`, with
//!   int32 or int64 offsets (Arrow's binary and large_binary layouts).
//!
//! Buffers must be C-contiguous; the Python layer (`linesig.Engine`) brings numpy and
//! Arrow arrays into these shapes. Nothing may modify them while `verify_codes` runs
//! (the GIL is released, as for any numpy routine that reads in place).

use linesig::{Backend, Item, ItemSource, Policy, Reject, Scheme, Verdict};
use pyo3::buffer::{Element, PyBuffer};
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict, PyList, PyTuple};

/// (code, name) for every rejection reason; code 0 is "valid".
#[pyfunction]
pub fn reason_names() -> Vec<(u8, &'static str)> {
    std::iter::once((0, "valid"))
        .chain(Reject::ALL.iter().map(|r| (r.code(), r.as_str())))
        .collect()
}

/// A verifier with its own worker pool.
#[pyclass(module = "linesig._native", frozen)]
pub struct Engine {
    engine: linesig::Engine,
}

#[pymethods]
impl Engine {
    #[new]
    #[pyo3(signature = (scheme="ed25519", policy=None, workers=None, batch_size=512, backend=None, key_cache_mb=0, batch_equation=true))]
    fn new(
        scheme: &str,
        policy: Option<&str>,
        workers: Option<i64>,
        batch_size: i64,
        backend: Option<&str>,
        key_cache_mb: i64,
        batch_equation: bool,
    ) -> PyResult<Self> {
        // Range-checked here, so that a bad number is a ValueError naming its argument
        // rather than pyo3's bare OverflowError. `workers` 0 or None: all cores, as in
        // every face.
        let workers = match workers {
            None | Some(0) => None,
            Some(n) if n < 0 => {
                return Err(PyValueError::new_err(format!(
                    "workers must be 0 (all cores) or a count from 1 to {}, not {n}",
                    linesig::MAX_WORKERS
                )))
            }
            Some(n) => Some(usize::try_from(n).unwrap_or(usize::MAX)),
        };
        let batch_size = usize::try_from(batch_size)
            .ok()
            .filter(|&b| b >= 1)
            .ok_or_else(|| {
                PyValueError::new_err(format!("batch_size must be at least 1, not {batch_size}"))
            })?;
        let key_cache_mb = usize::try_from(key_cache_mb).map_err(|_| {
            PyValueError::new_err(format!(
                "key_cache_mb must be 0 (off) or a positive number of MiB, not {key_cache_mb}"
            ))
        })?;
        let policy = policy
            .map(|p| p.parse::<Policy>())
            .transpose()
            .map_err(|e| PyValueError::new_err(e.to_string()))?;
        let scheme = scheme
            .parse::<Scheme>()
            .map_err(|e| PyValueError::new_err(e.to_string()))?
            .with_policy(policy)
            .map_err(|e| PyValueError::new_err(e.to_string()))?;
        let key_cache = key_cache_mb
            .checked_mul(1 << 20)
            .ok_or_else(|| PyValueError::new_err("key_cache_mb is too large"))?;
        let mut builder = linesig::Engine::builder()
            .scheme(scheme)
            .batch_size(batch_size)
            .key_cache(key_cache)
            .batch_equation(batch_equation);
        if let Some(workers) = workers {
            builder = builder.workers(workers);
        }
        if let Some(name) = backend.filter(|b| !b.eq_ignore_ascii_case("auto")) {
            let backend: Backend = name
                .parse()
                .map_err(|e: linesig::UnknownBackend| PyValueError::new_err(e.to_string()))?;
            builder = builder.backend(backend);
        }
        let engine = builder
            .build()
            .map_err(|e| PyValueError::new_err(e.to_string()))?;
        Ok(Engine { engine })
    }

    #[getter]
    fn scheme(&self) -> &'static str {
        self.engine.scheme().name()
    }

    #[getter]
    fn policy(&self) -> Option<&'static str> {
        match self.engine.scheme() {
            Scheme::Ed25519(p) => Some(p.name()),
            _ => None,
        }
    }

    #[getter]
    fn workers(&self) -> usize {
        self.engine.workers()
    }

    #[getter]
    fn batch_size(&self) -> usize {
        self.engine.batch_size()
    }

    #[getter]
    fn backend(&self) -> &'static str {
        self.engine.backend().name()
    }

    /// Whether the batch equation is on (it applies to zip215 and zip215-strict).
    #[getter]
    fn batch_equation(&self) -> bool {
        self.engine.batch_equation()
    }

    /// The batch equation's work units as a dict (held, found_few, fell_back, skipped),
    /// or None when it is off.
    fn batch_equation_stats<'py>(&self, py: Python<'py>) -> PyResult<Option<Bound<'py, PyDict>>> {
        let Some(s) = self.engine.batch_equation_stats() else {
            return Ok(None);
        };
        let d = PyDict::new(py);
        d.set_item("held", s.held)?;
        d.set_item("found_few", s.found_few)?;
        d.set_item("fell_back", s.fell_back)?;
        d.set_item("skipped", s.skipped)?;
        Ok(Some(d))
    }

    /// The hot-key cache's counters as a dict, or None when the cache is off.
    fn key_cache_stats<'py>(&self, py: Python<'py>) -> PyResult<Option<Bound<'py, PyDict>>> {
        let Some(s) = self.engine.key_cache_stats() else {
            return Ok(None);
        };
        let d = PyDict::new(py);
        d.set_item("capacity_bytes", s.capacity_bytes)?;
        d.set_item("used_bytes", s.used_bytes)?;
        d.set_item("entries", s.entries)?;
        d.set_item("max_entries", s.max_entries)?;
        d.set_item("table_bytes", s.table_bytes)?;
        d.set_item("hit_signatures", s.hit_signatures)?;
        d.set_item("miss_signatures", s.miss_signatures)?;
        d.set_item("hit_rate", s.hit_rate())?;
        d.set_item("admissions", s.admissions)?;
        d.set_item("evictions", s.evictions)?;
        d.set_item("refused", s.refused)?;
        Ok(Some(d))
    }

    /// One reason code per item (0 = valid), as bytes, in input order.
    #[pyo3(signature = (public_keys, messages, signatures, contexts=None))]
    fn verify_codes<'py>(
        &self,
        py: Python<'py>,
        public_keys: &Bound<'py, PyAny>,
        messages: &Bound<'py, PyAny>,
        signatures: &Bound<'py, PyAny>,
        contexts: Option<&Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyBytes>> {
        let codes =
            self.with_columns(public_keys, messages, signatures, contexts, |columns| {
                py.detach(|| self.codes(columns))
            })??;
        Ok(PyBytes::new(py, &codes))
    }

    /// For benchmarks: the columns are read once, then the engine alone verifies them
    /// `repeat` times; returns the seconds of each run. Python's overhead is what
    /// `verify` costs beyond these.
    #[pyo3(signature = (public_keys, messages, signatures, repeat=3))]
    fn time_engine<'py>(
        &self,
        py: Python<'py>,
        public_keys: &Bound<'py, PyAny>,
        messages: &Bound<'py, PyAny>,
        signatures: &Bound<'py, PyAny>,
        repeat: usize,
    ) -> PyResult<Vec<f64>> {
        self.with_columns(public_keys, messages, signatures, None, |columns| {
            py.detach(|| {
                (0..repeat)
                    .map(|_| {
                        let started = std::time::Instant::now();
                        self.codes(columns).map(|_| started.elapsed().as_secs_f64())
                    })
                    .collect::<PyResult<Vec<f64>>>()
            })
        })?
    }
}

impl Engine {
    /// Run `body` on the columns, borrowed from the Python objects (which stay alive and
    /// exported for the duration).
    fn with_columns<'py, T>(
        &self,
        public_keys: &Bound<'py, PyAny>,
        messages: &Bound<'py, PyAny>,
        signatures: &Bound<'py, PyAny>,
        contexts: Option<&Bound<'py, PyAny>>,
        body: impl FnOnce(&Columns<'_>) -> T,
    ) -> PyResult<T> {
        let holders = [
            Some(ColumnHolder::extract("public_keys", public_keys)?),
            Some(ColumnHolder::extract("messages", messages)?),
            Some(ColumnHolder::extract("signatures", signatures)?),
            contexts
                .map(|c| ColumnHolder::extract("contexts", c))
                .transpose()?,
        ];
        let [Some(keys), Some(msgs), Some(sigs), ctxs] = &holders else {
            unreachable!("the first three columns are always present")
        };
        let columns = Columns {
            public_keys: keys.view()?,
            messages: msgs.view()?,
            signatures: sigs.view()?,
            contexts: ctxs.as_ref().map(ColumnHolder::view).transpose()?,
        };
        let count = columns.public_keys.len();
        for (name, column) in [
            ("messages", Some(&columns.messages)),
            ("signatures", Some(&columns.signatures)),
            ("contexts", columns.contexts.as_ref()),
        ] {
            if let Some(column) = column {
                if column.len() != count {
                    return Err(PyValueError::new_err(format!(
                        "{name} has {} values but public_keys has {count}",
                        column.len()
                    )));
                }
            }
        }
        Ok(body(&columns))
    }

    /// Reason codes (0 = valid) for every item; call without the GIL.
    fn codes(&self, columns: &Columns<'_>) -> PyResult<Vec<u8>> {
        let mut verdicts = vec![Verdict::Valid; columns.len()];
        self.engine
            .verify_into(columns, &mut verdicts)
            .map_err(|e| PyValueError::new_err(e.to_string()))?;
        Ok(verdicts
            .iter()
            .map(|v| v.reject().map_or(0, Reject::code))
            .collect())
    }
}

/// What keeps a column's memory alive while the engine reads it.
enum ColumnHolder<'py> {
    Bytes(Vec<Bound<'py, PyBytes>>),
    Fixed(PyBuffer<u8>, usize),
    Offsets32(PyBuffer<u8>, PyBuffer<i32>),
    Offsets64(PyBuffer<u8>, PyBuffer<i64>),
}

impl<'py> ColumnHolder<'py> {
    fn extract(name: &str, obj: &Bound<'py, PyAny>) -> PyResult<Self> {
        if let Ok(tuple) = obj.cast::<PyTuple>() {
            if let Ok(kind) = tuple.get_item(0).and_then(|k| k.extract::<String>()) {
                return Self::extract_layout(name, &kind, tuple);
            }
        }
        let values: Vec<Bound<'py, PyAny>> = if let Ok(list) = obj.cast::<PyList>() {
            list.iter().collect()
        } else if let Ok(tuple) = obj.cast::<PyTuple>() {
            tuple.iter().collect()
        } else {
            return Err(PyTypeError::new_err(format!(
                "{name}: expected a list of bytes or a column layout tuple"
            )));
        };
        values
            .into_iter()
            .enumerate()
            .map(|(i, v)| {
                v.cast_into::<PyBytes>().map_err(|e| {
                    PyTypeError::new_err(format!(
                        "{name}[{i}]: expected bytes, got {}",
                        e.into_inner().get_type()
                    ))
                })
            })
            .collect::<PyResult<Vec<_>>>()
            .map(ColumnHolder::Bytes)
    }

    fn extract_layout(name: &str, kind: &str, tuple: &Bound<'py, PyTuple>) -> PyResult<Self> {
        let data = contiguous::<u8>(name, &tuple.get_item(1)?)?;
        match kind {
            "fixed" => {
                let width: usize = tuple.get_item(2)?.extract()?;
                if width == 0 || data.item_count() % width != 0 {
                    return Err(PyValueError::new_err(format!(
                        "{name}: {} bytes do not divide into values of {width} bytes",
                        data.item_count()
                    )));
                }
                Ok(ColumnHolder::Fixed(data, width))
            }
            "offsets" => {
                let offsets = tuple.get_item(2)?;
                if let Ok(o) = contiguous::<i32>(name, &offsets) {
                    Ok(ColumnHolder::Offsets32(data, o))
                } else {
                    Ok(ColumnHolder::Offsets64(
                        data,
                        contiguous::<i64>(name, &offsets)?,
                    ))
                }
            }
            other => Err(PyValueError::new_err(format!(
                "{name}: unknown column layout '{other}' (fixed, offsets)"
            ))),
        }
    }

    /// Borrowed slices over the held memory; offsets are checked here, once.
    fn view(&self) -> PyResult<Column<'_>> {
        Ok(match self {
            ColumnHolder::Bytes(values) => {
                Column::Slices(values.iter().map(|b| b.as_bytes()).collect())
            }
            ColumnHolder::Fixed(data, width) => Column::Fixed {
                data: buffer_slice(data),
                width: *width,
            },
            ColumnHolder::Offsets32(data, offsets) => Column::offsets(
                buffer_slice(data),
                buffer_slice(offsets).iter().map(|&o| i64::from(o)),
            )?,
            ColumnHolder::Offsets64(data, offsets) => {
                Column::offsets(buffer_slice(data), buffer_slice(offsets).iter().copied())?
            }
        })
    }
}

fn contiguous<T: Element>(name: &str, obj: &Bound<'_, PyAny>) -> PyResult<PyBuffer<T>> {
    let buffer = PyBuffer::<T>::get(obj).map_err(|e| {
        PyTypeError::new_err(format!(
            "{name}: expected a buffer of {}: {e}",
            std::any::type_name::<T>()
        ))
    })?;
    if !buffer.is_c_contiguous() {
        return Err(PyValueError::new_err(format!(
            "{name}: the buffer must be C-contiguous"
        )));
    }
    Ok(buffer)
}

fn buffer_slice<T: Element>(buffer: &PyBuffer<T>) -> &[T] {
    if buffer.item_count() == 0 {
        return &[];
    }
    // SAFETY: the buffer is C-contiguous (checked in `contiguous`) with `item_count`
    // elements of T (PyBuffer::<T>::get checked the format and item size), and it stays
    // exported, so the memory stays put, for as long as `buffer` is borrowed. The caller
    // promises not to modify it during the call (module documentation).
    unsafe { std::slice::from_raw_parts(buffer.buf_ptr() as *const T, buffer.item_count()) }
}

/// One column's values as slices of Python-owned memory.
enum Column<'a> {
    Slices(Vec<&'a [u8]>),
    Fixed {
        data: &'a [u8],
        width: usize,
    },
    Offsets {
        data: &'a [u8],
        ranges: Vec<(usize, usize)>,
    },
}

impl<'a> Column<'a> {
    fn offsets(data: &'a [u8], offsets: impl Iterator<Item = i64>) -> PyResult<Self> {
        let offsets: Vec<i64> = offsets.collect();
        let mut ranges = Vec::with_capacity(offsets.len().saturating_sub(1));
        for pair in offsets.windows(2) {
            let (start, end) = (pair[0], pair[1]);
            if start < 0 || end < start || end as u64 > data.len() as u64 {
                return Err(PyValueError::new_err(format!(
                    "offsets {start}..{end} do not lie within the {}-byte data buffer",
                    data.len()
                )));
            }
            ranges.push((start as usize, end as usize));
        }
        Ok(Column::Offsets { data, ranges })
    }

    fn len(&self) -> usize {
        match self {
            Column::Slices(v) => v.len(),
            Column::Fixed { data, width } => data.len() / width,
            Column::Offsets { ranges, .. } => ranges.len(),
        }
    }

    fn get(&self, i: usize) -> &'a [u8] {
        match self {
            Column::Slices(v) => v[i],
            Column::Fixed { data, width } => &data[i * width..(i + 1) * width],
            Column::Offsets { data, ranges } => &data[ranges[i].0..ranges[i].1],
        }
    }
}

struct Columns<'a> {
    public_keys: Column<'a>,
    messages: Column<'a>,
    signatures: Column<'a>,
    contexts: Option<Column<'a>>,
}

impl ItemSource for Columns<'_> {
    fn len(&self) -> usize {
        self.public_keys.len()
    }
    fn item(&self, i: usize) -> Item<'_> {
        let item = Item::new(
            self.public_keys.get(i),
            self.messages.get(i),
            self.signatures.get(i),
        );
        match &self.contexts {
            Some(c) => item.with_context(c.get(i)),
            None => item,
        }
    }
}
