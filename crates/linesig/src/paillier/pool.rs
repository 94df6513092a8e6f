//! Array calls: one Paillier operation over many values on a pool of worker threads,
//! results in input order. Each item is independent (an exponentiation of milliseconds),
//! so the work is split item by item. Randomness comes from each worker's own
//! `rand::thread_rng()` (ChaCha12, seeded and reseeded from the operating system).

use rayon::prelude::*;
use rug::Integer;

use super::{Error, Mode, PrivateKey, PublicKey};

/// A worker pool for array calls. Cheap to share by reference; calls from several
/// threads share the pool.
pub struct Pool {
    pool: rayon::ThreadPool,
    workers: usize,
}

impl std::fmt::Debug for Pool {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Pool")
            .field("workers", &self.workers)
            .finish()
    }
}

impl Pool {
    /// A pool of `workers` threads (at least 1).
    pub fn new(workers: usize) -> Result<Self, Error> {
        if workers == 0 {
            return Err(Error::ZeroWorkers);
        }
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(workers)
            .thread_name(|i| format!("linesig-paillier-{i}"))
            .build()
            .map_err(|e| Error::ThreadPool(e.to_string()))?;
        Ok(Pool { pool, workers })
    }

    pub fn workers(&self) -> usize {
        self.workers
    }

    /// `op` on every item, in parallel, in order; the first failing item's error names
    /// its index.
    fn map<T: Sync, U: Send>(
        &self,
        items: &[T],
        op: impl Fn(&T) -> Result<U, Error> + Sync + Send,
    ) -> Result<Vec<U>, Error> {
        self.pool.install(|| {
            items
                .par_iter()
                .enumerate()
                .map(|(index, item)| op(item).map_err(|e| e.at(index)))
                .collect()
        })
    }

    /// `op` on every pair of two equally long arrays.
    fn zip<T: Sync, U: Send>(
        &self,
        a: &[T],
        b: &[T],
        op: impl Fn(&T, &T) -> Result<U, Error> + Sync + Send,
    ) -> Result<Vec<U>, Error> {
        if a.len() != b.len() {
            return Err(Error::LengthMismatch(a.len(), b.len()));
        }
        let pairs: Vec<(&T, &T)> = a.iter().zip(b).collect();
        self.map(&pairs, |(x, y)| op(x, y))
    }

    /// Encrypt every plaintext (each in [0, n)) with a fresh obfuscator.
    pub fn encrypt(
        &self,
        key: &PublicKey,
        plaintexts: &[Integer],
        mode: Mode,
    ) -> Result<Vec<Integer>, Error> {
        if mode == Mode::Djn {
            // Build the table once here rather than with every worker waiting on it.
            key.prepare_djn()?;
        }
        self.map(plaintexts, |m| {
            key.encrypt(m, mode, &mut rand::thread_rng())
        })
    }

    /// Multiply every ciphertext by a fresh obfuscator.
    pub fn obfuscate(
        &self,
        key: &PublicKey,
        ciphertexts: &[Integer],
        mode: Mode,
    ) -> Result<Vec<Integer>, Error> {
        if mode == Mode::Djn {
            key.prepare_djn()?;
        }
        self.map(ciphertexts, |c| {
            key.obfuscate(c, mode, &mut rand::thread_rng())
        })
    }

    pub fn decrypt(
        &self,
        key: &PrivateKey,
        ciphertexts: &[Integer],
    ) -> Result<Vec<Integer>, Error> {
        self.map(ciphertexts, |c| key.decrypt(c))
    }

    /// Enc(a_i + b_i) for each i.
    pub fn add(
        &self,
        key: &PublicKey,
        a: &[Integer],
        b: &[Integer],
    ) -> Result<Vec<Integer>, Error> {
        self.zip(a, b, |x, y| key.add(x, y))
    }

    /// Enc(a_i + k_i) for plaintexts k_i.
    pub fn add_plain(
        &self,
        key: &PublicKey,
        ciphertexts: &[Integer],
        plaintexts: &[Integer],
    ) -> Result<Vec<Integer>, Error> {
        self.zip(ciphertexts, plaintexts, |c, k| key.add_plain(c, k))
    }

    /// Enc(a_i · k_i) for plaintexts k_i.
    pub fn mul_plain(
        &self,
        key: &PublicKey,
        ciphertexts: &[Integer],
        plaintexts: &[Integer],
    ) -> Result<Vec<Integer>, Error> {
        self.zip(ciphertexts, plaintexts, |c, k| key.mul_plain(c, k))
    }

    /// Enc(−a_i) for each i.
    pub fn negate(&self, key: &PublicKey, ciphertexts: &[Integer]) -> Result<Vec<Integer>, Error> {
        self.map(ciphertexts, |c| key.negate(c))
    }

    /// Enc(Σ a_i): the product of the ciphertexts mod n², as a parallel tree. The empty
    /// sum is 1, the unobfuscated encryption of 0.
    pub fn sum(&self, key: &PublicKey, ciphertexts: &[Integer]) -> Result<Integer, Error> {
        for (index, c) in ciphertexts.iter().enumerate() {
            key.check_ciphertext(c).map_err(|e| e.at(index))?;
        }
        Ok(self.product(key, ciphertexts.par_iter().cloned()))
    }

    /// Enc(Σ a_i·k_i): a dot product of ciphertexts with plaintexts.
    pub fn dot(
        &self,
        key: &PublicKey,
        ciphertexts: &[Integer],
        plaintexts: &[Integer],
    ) -> Result<Integer, Error> {
        let terms = self.mul_plain(key, ciphertexts, plaintexts)?;
        Ok(self.product(key, terms.into_par_iter()))
    }

    fn product(&self, key: &PublicKey, factors: impl ParallelIterator<Item = Integer>) -> Integer {
        let modulus = key.n_square();
        self.pool.install(|| {
            factors.reduce(|| Integer::from(1), |a, b| Integer::from(&a * &b) % modulus)
        })
    }
}
