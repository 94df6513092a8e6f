//! Array calls: one Paillier operation over many values on a pool of worker threads,
//! results in input order. Each item is independent (an exponentiation of milliseconds).
//! Encryption, obfuscation and decryption go in groups of [`GROUP`] items, one group per
//! kernel call when the pool has a kernel (see the module documentation of `paillier`),
//! a tail of [`PADDED_TAIL_FROM`] or more items padded into a group of its own; shorter
//! tails, and every operation on GMP, go item by item. Randomness comes from each
//! worker's own `rand::thread_rng()` (ChaCha12, seeded and reseeded from the operating
//! system).

use rayon::prelude::*;
use rug::Integer;

use super::montgomery::{Lanes, LANES};
use super::{Error, Kernel, Mode, PrivateKey, PublicKey};

/// Items per kernel call: one per lane.
pub const GROUP: usize = LANES;

/// The shortest tail (an array's last, partial group) that runs as one kernel call,
/// padded to eight with copies of its first item whose results are dropped. A kernel
/// call costs what its eight items cost; one item on GMP costs 5 to 10 of them on every
/// IFMA core measured (docs/results.md), so three items already cost more on GMP than
/// the padded call, with a margin for cores where the kernel leads by less.
pub const PADDED_TAIL_FROM: usize = 3;

/// A worker pool for array calls. Cheap to share by reference; calls from several
/// threads share the pool.
pub struct Pool {
    pool: rayon::ThreadPool,
    workers: usize,
    kernel: Kernel,
}

impl std::fmt::Debug for Pool {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Pool")
            .field("workers", &self.workers)
            .field("kernel", &self.kernel)
            .finish()
    }
}

/// The most threads a pool runs: the same cap as linesig's engine, more than any machine
/// has cores, so a typo such as 10000 is refused instead of spawning them.
pub const MAX_WORKERS: usize = 1024;

impl Pool {
    /// A pool of `workers` threads (1 to [`MAX_WORKERS`]) on the best kernel this CPU has
    /// ([`Kernel::best`]).
    pub fn new(workers: usize) -> Result<Self, Error> {
        Pool::with_kernel(workers, Kernel::best())
    }

    /// A pool of `workers` threads whose array calls run on `kernel`; an error if this
    /// CPU cannot run it.
    pub fn with_kernel(workers: usize, kernel: Kernel) -> Result<Self, Error> {
        if !kernel.is_supported() {
            return Err(Error::KernelUnsupported(kernel));
        }
        if workers == 0 {
            return Err(Error::ZeroWorkers);
        }
        if workers > MAX_WORKERS {
            return Err(Error::TooManyWorkers {
                requested: workers,
                max: MAX_WORKERS,
            });
        }
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(workers)
            .thread_name(|i| format!("linesig-paillier-{i}"))
            .build()
            .map_err(|e| Error::ThreadPool(e.to_string()))?;
        Ok(Pool {
            pool,
            workers,
            kernel,
        })
    }

    pub fn workers(&self) -> usize {
        self.workers
    }

    /// The arithmetic this pool's encryptions and decryptions run on.
    pub fn kernel(&self) -> Kernel {
        self.kernel
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

    /// `op` on every item, as `group` on each full group of [`GROUP`] items when the
    /// pool has kernel lanes (and on a tail of at least [`PADDED_TAIL_FROM`], padded,
    /// when `kernel_takes_key`: a key too wide for the kernel would run all eight lanes
    /// on GMP), and as `single` on the others; every item is first checked with `check`,
    /// so that the first bad item's index is the one reported (and padding copies only
    /// good items).
    fn map_grouped<T: Clone + Sync, U: Send>(
        &self,
        items: &[T],
        kernel_takes_key: bool,
        check: impl Fn(&T) -> Result<(), Error>,
        group: impl Fn(Lanes, &[T; GROUP]) -> Result<[U; GROUP], Error> + Sync + Send,
        single: impl Fn(&T) -> Result<U, Error> + Sync + Send,
    ) -> Result<Vec<U>, Error> {
        let Some(lanes) = self.kernel.lanes() else {
            return self.map(items, single);
        };
        for (index, item) in items.iter().enumerate() {
            check(item).map_err(|e| e.at(index))?;
        }
        let groups: Vec<Vec<U>> = self.pool.install(|| {
            items
                .par_chunks(GROUP)
                .enumerate()
                .map(|(g, chunk)| match <&[T; GROUP]>::try_from(chunk) {
                    Ok(full) => group(lanes, full)
                        .map(Vec::from)
                        .map_err(|e| e.at(g * GROUP)),
                    Err(_) if kernel_takes_key && chunk.len() >= PADDED_TAIL_FROM => {
                        let padded: [T; GROUP] =
                            core::array::from_fn(|i| chunk.get(i).unwrap_or(&chunk[0]).clone());
                        group(lanes, &padded)
                            .map(|out| out.into_iter().take(chunk.len()).collect())
                            .map_err(|e| e.at(g * GROUP))
                    }
                    // Each on its own worker where one is free.
                    Err(_) => chunk
                        .par_iter()
                        .enumerate()
                        .map(|(i, item)| single(item).map_err(|e| e.at(g * GROUP + i)))
                        .collect(),
                })
                .collect::<Result<_, Error>>()
        })?;
        Ok(groups.into_iter().flatten().collect())
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

    /// Build `key`'s DJN tables now (GMP's, and the kernel's copy when the pool has a
    /// kernel) rather than on the first DJN array call.
    pub fn prepare_djn(&self, key: &PublicKey) -> Result<(), Error> {
        key.prepare_djn()?;
        if let Some(lanes) = self.kernel.lanes() {
            key.prepare_djn_kernel(lanes)?;
        }
        Ok(())
    }

    /// Encrypt every plaintext (each in [0, n)) with a fresh obfuscator.
    pub fn encrypt(
        &self,
        key: &PublicKey,
        plaintexts: &[Integer],
        mode: Mode,
    ) -> Result<Vec<Integer>, Error> {
        if mode == Mode::Djn {
            // Build the tables once here rather than with every worker waiting on them.
            self.prepare_djn(key)?;
        }
        self.map_grouped(
            plaintexts,
            key.kernel_takes_key(),
            |m| key.check_plaintext(m),
            |lanes, group| {
                let mut nude = group.clone();
                for m in nude.iter_mut() {
                    *m = key.encrypt_unobfuscated(m)?;
                }
                key.obfuscate_lanes(lanes, &nude, mode, &mut rand::thread_rng())
            },
            |m| key.encrypt(m, mode, &mut rand::thread_rng()),
        )
    }

    /// Multiply every ciphertext by a fresh obfuscator.
    pub fn obfuscate(
        &self,
        key: &PublicKey,
        ciphertexts: &[Integer],
        mode: Mode,
    ) -> Result<Vec<Integer>, Error> {
        if mode == Mode::Djn {
            self.prepare_djn(key)?;
        }
        self.map_grouped(
            ciphertexts,
            key.kernel_takes_key(),
            |c| key.check_ciphertext(c),
            |lanes, group| key.obfuscate_lanes(lanes, group, mode, &mut rand::thread_rng()),
            |c| key.obfuscate(c, mode, &mut rand::thread_rng()),
        )
    }

    /// Decrypt every ciphertext (each in [0, n²)); groups of eight on the kernel, whose
    /// exponentiations by p − 1 and q − 1 are constant-time (see the crate note).
    pub fn decrypt(
        &self,
        key: &PrivateKey,
        ciphertexts: &[Integer],
    ) -> Result<Vec<Integer>, Error> {
        self.map_grouped(
            ciphertexts,
            key.public_key().kernel_takes_key(),
            |c| key.public_key().check_ciphertext(c),
            |lanes, group| Ok(key.decrypt_lanes(lanes, group)),
            |c| key.decrypt(c),
        )
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
