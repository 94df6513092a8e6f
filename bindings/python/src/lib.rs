//! `linesig._native`: the compiled half of the Python package.
//!
//! - `Engine`: batch signature verification. Columns arrive as lists of `bytes` or as
//!   buffers (numpy, Arrow) read in place; verification runs with the GIL released and
//!   returns one reason code per item (0 = valid).
//! - Paillier: Python's `linesig.paillier` keeps phe's classes, encodings and error
//!   messages; this module does the arithmetic on `linesig_paillier` (GMP) and runs array
//!   calls on all cores with the GIL released. Integers cross the boundary as Python ints
//!   (num-bigint conversion) and are held as `rug::Integer`s inside.
//! - leanSig aggregation (`leansig`): `linesig.leansig.aggregate` / `verify_aggregate`.
//! - leanXMSS keys (`leanxmss`): `linesig.leanxmss.SecretKey`.

mod ed25519;
mod engine;
mod leansig;
mod leanxmss;
mod mldsa;

use std::sync::{Arc, Mutex};

use linesig_paillier::{self as paillier, Integer, Mode, Pool};
use num_bigint::{BigInt, Sign};
use pyo3::exceptions::{PyRuntimeError, PyValueError, PyZeroDivisionError};
use pyo3::prelude::*;
use rug::integer::Order;
use rug::ops::RemRounding;

fn to_rug(x: &BigInt) -> Integer {
    let (sign, bytes) = x.to_bytes_le();
    let magnitude = Integer::from_digits(&bytes, Order::Lsf);
    if sign == Sign::Minus {
        -magnitude
    } else {
        magnitude
    }
}

fn to_big(x: &Integer) -> BigInt {
    let sign = if *x < 0 { Sign::Minus } else { Sign::Plus };
    BigInt::from_bytes_le(sign, &x.to_digits::<u8>(Order::Lsf))
}

fn to_rugs(xs: &[BigInt]) -> Vec<Integer> {
    xs.iter().map(to_rug).collect()
}

fn to_bigs(xs: &[Integer]) -> Vec<BigInt> {
    xs.iter().map(to_big).collect()
}

/// phe raises ZeroDivisionError where gmpy2's invert finds no inverse, ValueError for
/// values out of range; linesig's typed errors map onto the same exceptions.
fn py_error(e: paillier::Error) -> PyErr {
    let innermost = match &e {
        paillier::Error::Item { error, .. } => error.as_ref(),
        other => other,
    };
    match innermost {
        paillier::Error::NotInvertible => PyZeroDivisionError::new_err(e.to_string()),
        paillier::Error::ThreadPool(_) => PyRuntimeError::new_err(e.to_string()),
        _ => PyValueError::new_err(e.to_string()),
    }
}

/// The pool array calls run on: all cores unless `set_workers` says otherwise.
static POOL: Mutex<Option<Arc<Pool>>> = Mutex::new(None);

fn pool() -> PyResult<Arc<Pool>> {
    let mut slot = POOL.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
    if let Some(pool) = slot.as_ref() {
        return Ok(pool.clone());
    }
    let pool = Arc::new(Pool::new(linesig::available_cores()).map_err(py_error)?);
    *slot = Some(pool.clone());
    Ok(pool)
}

/// `work` on the array-call pool with the GIL released.
fn on_pool<T: Send>(
    py: Python<'_>,
    work: impl FnOnce(&Pool) -> Result<T, paillier::Error> + Send,
) -> PyResult<T> {
    let pool = pool()?;
    py.detach(|| work(&pool)).map_err(py_error)
}

/// Threads used by array calls (default: all cores), and optionally their kernel
/// (`"ifma"`, `"portable"` or `"gmp"`; default: the best this CPU has).
#[pyfunction]
#[pyo3(signature = (workers, kernel=None))]
fn set_workers(workers: usize, kernel: Option<&str>) -> PyResult<()> {
    let kernel = match kernel {
        None => paillier::Kernel::best(),
        Some(name) => name
            .parse()
            .map_err(|e: paillier::UnknownName| PyValueError::new_err(e.to_string()))?,
    };
    let pool = Arc::new(Pool::with_kernel(workers, kernel).map_err(py_error)?);
    *POOL.lock().unwrap_or_else(|poisoned| poisoned.into_inner()) = Some(pool);
    Ok(())
}

/// The kernel the array calls run on: "ifma", "portable" or "gmp".
#[pyfunction]
fn kernel() -> PyResult<&'static str> {
    Ok(pool()?.kernel().name())
}

/// (n, p, q) for a fresh key with n of exactly `bits` bits.
#[pyfunction]
fn generate_keypair(py: Python<'_>, bits: u32) -> PyResult<(BigInt, BigInt, BigInt)> {
    let (public, private) = py
        .detach(|| paillier::generate_keypair(bits, &mut rand::thread_rng()))
        .map_err(py_error)?;
    Ok((to_big(public.n()), to_big(private.p()), to_big(private.q())))
}

/// A fresh DJN base hs for modulus n.
#[pyfunction]
fn random_djn_hs(py: Python<'_>, n: BigInt) -> PyResult<BigInt> {
    let key = paillier::PublicKey::new(to_rug(&n)).map_err(py_error)?;
    let key = py.detach(|| key.with_random_djn(&mut rand::thread_rng()));
    Ok(to_big(key.djn_hs().expect("just set")))
}

/// base^exponent mod modulus (gmpy2.powmod's contract: a negative exponent needs an
/// inverse, else ZeroDivisionError).
#[pyfunction]
fn powmod(py: Python<'_>, base: BigInt, exponent: BigInt, modulus: BigInt) -> PyResult<BigInt> {
    let (b, e, m) = (to_rug(&base), to_rug(&exponent), to_rug(&modulus));
    if m == 0 {
        return Err(PyZeroDivisionError::new_err("powmod() division by zero"));
    }
    let m = m.abs();
    let result = py.detach(|| b.pow_mod_ref(&e, &m).map(Integer::from));
    result
        .map(|r| to_big(&r))
        .ok_or_else(|| PyZeroDivisionError::new_err("powmod() base is not invertible"))
}

/// a·b mod |m|, in [0, |m|) (ZeroDivisionError for m = 0).
#[pyfunction]
fn mulmod(a: BigInt, b: BigInt, modulus: BigInt) -> PyResult<BigInt> {
    let (a, b, m) = (to_rug(&a), to_rug(&b), to_rug(&modulus));
    if m == 0 {
        return Err(PyZeroDivisionError::new_err("mulmod() division by zero"));
    }
    Ok(to_big(&(a * b).rem_euc(m.abs())))
}

/// x⁻¹ mod m, ZeroDivisionError if there is none.
#[pyfunction]
fn invert(x: BigInt, modulus: BigInt) -> PyResult<BigInt> {
    let (x, m) = (to_rug(&x), to_rug(&modulus));
    if m == 0 {
        return Err(PyZeroDivisionError::new_err("invert() division by zero"));
    }
    x.invert_ref(&m)
        .map(|r| to_big(&Integer::from(r)))
        .ok_or_else(|| PyZeroDivisionError::new_err("invert() no inverse exists"))
}

/// A Paillier public key (n, optional DJN hs). Encryptions use DJN when hs is set.
#[pyclass(module = "linesig._native", frozen)]
struct PublicKey {
    key: paillier::PublicKey,
    mode: Mode,
}

#[pymethods]
impl PublicKey {
    #[new]
    #[pyo3(signature = (n, hs=None))]
    fn new(n: BigInt, hs: Option<BigInt>) -> PyResult<Self> {
        let key = paillier::PublicKey::new(to_rug(&n)).map_err(py_error)?;
        Ok(match hs {
            None => PublicKey {
                key,
                mode: Mode::Textbook,
            },
            Some(hs) => PublicKey {
                key: key.with_djn(to_rug(&hs)).map_err(py_error)?,
                mode: Mode::Djn,
            },
        })
    }

    /// Enc(m) for m in [0, n), obfuscated.
    fn encrypt(&self, py: Python<'_>, m: BigInt) -> PyResult<BigInt> {
        let m = to_rug(&m);
        let c = py
            .detach(|| self.key.encrypt(&m, self.mode, &mut rand::thread_rng()))
            .map_err(py_error)?;
        Ok(to_big(&c))
    }

    /// (1 + m·n)·r^n mod n² for m in [0, n), r > 0.
    fn encrypt_with_r(&self, py: Python<'_>, m: BigInt, r: BigInt) -> PyResult<BigInt> {
        let (m, r) = (to_rug(&m), to_rug(&r));
        let c = py
            .detach(|| self.key.encrypt_with_r(&m, &r))
            .map_err(py_error)?;
        Ok(to_big(&c))
    }

    /// c times a fresh obfuscator.
    fn obfuscate(&self, py: Python<'_>, c: BigInt) -> PyResult<BigInt> {
        let c = to_rug(&c);
        let o = py
            .detach(|| self.key.obfuscate(&c, self.mode, &mut rand::thread_rng()))
            .map_err(py_error)?;
        Ok(to_big(&o))
    }

    /// Enc(a·k): c^k, or (c⁻¹)^(n−k) for k ≥ n − max_int (phe's rule, same result).
    fn mul_plain(&self, py: Python<'_>, c: BigInt, k: BigInt) -> PyResult<BigInt> {
        let (c, k) = (to_rug(&c), to_rug(&k));
        let r = py.detach(|| self.key.mul_plain(&c, &k)).map_err(py_error)?;
        Ok(to_big(&r))
    }

    fn encrypt_many(&self, py: Python<'_>, plaintexts: Vec<BigInt>) -> PyResult<Vec<BigInt>> {
        let ms = to_rugs(&plaintexts);
        let cs = on_pool(py, |pool| pool.encrypt(&self.key, &ms, self.mode))?;
        Ok(to_bigs(&cs))
    }

    fn mul_plain_many(
        &self,
        py: Python<'_>,
        ciphertexts: Vec<BigInt>,
        plaintexts: Vec<BigInt>,
    ) -> PyResult<Vec<BigInt>> {
        let (cs, ks) = (to_rugs(&ciphertexts), to_rugs(&plaintexts));
        let out = on_pool(py, |pool| pool.mul_plain(&self.key, &cs, &ks))?;
        Ok(to_bigs(&out))
    }

    /// Π c_i mod n² (Enc of the sum), unobfuscated.
    fn sum(&self, py: Python<'_>, ciphertexts: Vec<BigInt>) -> PyResult<BigInt> {
        let cs = to_rugs(&ciphertexts);
        let out = on_pool(py, |pool| pool.sum(&self.key, &cs))?;
        Ok(to_big(&out))
    }
}

/// A Paillier private key (CRT decryption).
#[pyclass(module = "linesig._native", frozen)]
struct PrivateKey {
    key: paillier::PrivateKey,
}

#[pymethods]
impl PrivateKey {
    #[new]
    fn new(n: BigInt, p: BigInt, q: BigInt) -> PyResult<Self> {
        let public = paillier::PublicKey::new(to_rug(&n)).map_err(py_error)?;
        let key =
            paillier::PrivateKey::from_factors(public, to_rug(&p), to_rug(&q)).map_err(py_error)?;
        Ok(PrivateKey { key })
    }

    /// The plaintext in [0, n) of c in [0, n²).
    fn decrypt(&self, py: Python<'_>, c: BigInt) -> PyResult<BigInt> {
        let c = to_rug(&c);
        let m = py.detach(|| self.key.decrypt(&c)).map_err(py_error)?;
        Ok(to_big(&m))
    }

    fn decrypt_many(&self, py: Python<'_>, ciphertexts: Vec<BigInt>) -> PyResult<Vec<BigInt>> {
        let cs = to_rugs(&ciphertexts);
        let ms = on_pool(py, |pool| pool.decrypt(&self.key, &cs))?;
        Ok(to_bigs(&ms))
    }
}

#[pymodule]
fn _native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    m.add_function(wrap_pyfunction!(set_workers, m)?)?;
    m.add_function(wrap_pyfunction!(kernel, m)?)?;
    m.add_function(wrap_pyfunction!(generate_keypair, m)?)?;
    m.add_function(wrap_pyfunction!(random_djn_hs, m)?)?;
    m.add_function(wrap_pyfunction!(powmod, m)?)?;
    m.add_function(wrap_pyfunction!(invert, m)?)?;
    m.add_function(wrap_pyfunction!(mulmod, m)?)?;
    m.add_class::<engine::Engine>()?;
    leansig::register(m)?;
    leanxmss::register(m)?;
    mldsa::register(m)?;
    ed25519::register(m)?;
    m.add_function(wrap_pyfunction!(engine::reason_names, m)?)?;
    m.add_class::<PublicKey>()?;
    m.add_class::<PrivateKey>()?;
    Ok(())
}
