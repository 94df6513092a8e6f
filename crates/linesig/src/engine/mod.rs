//! The engine: configuration, the worker pool, work units and backend dispatch.
//!
//! A call is cut into work units of `batch_size` consecutive items (fewer when the call
//! is too short to give every worker a full unit). The calling thread runs the first unit
//! and a pool of `workers` threads the rest; each unit writes the verdicts of its own
//! items, so verdict order is input order whatever the schedule.

use crate::batch_gate::{BatchEquationStats, BatchGate};
use crate::error::Error;
use crate::item::{Item, ItemBatch, ItemSource};
use crate::key_cache::{self, KeyCache, KeyCacheStats};
use crate::scheme::{dispatch, Scheme};
use crate::verdict::{Reject, Verdict};
use crate::verifier::SchemeVerifier;
use crate::Backend;
use linesig_simd::cpu::Isa;
use std::sync::Arc;

/// Calls with at most this many items run on the calling thread: waking a pool worker
/// (a futex wake, tens of microseconds on a virtual CPU) costs more than the parallelism
/// saves on one or two signatures.
const INLINE_ITEMS: usize = 2;

/// Items per work unit unless configured.
pub const DEFAULT_BATCH_SIZE: usize = 512;

/// Configures an [`Engine`]; see [`Engine::builder`].
#[derive(Clone, Debug)]
pub struct EngineBuilder {
    scheme: Scheme,
    workers: Option<usize>,
    batch_size: usize,
    backend: Option<Backend>,
    lanes: Option<usize>,
    key_cache_bytes: usize,
    batch_equation: bool,
}

impl Default for EngineBuilder {
    fn default() -> Self {
        EngineBuilder {
            scheme: Scheme::default(),
            workers: None,
            batch_size: DEFAULT_BATCH_SIZE,
            backend: None,
            lanes: None,
            key_cache_bytes: 0,
            batch_equation: true,
        }
    }
}

impl EngineBuilder {
    /// The scheme and policy (default: Ed25519, `Strict`).
    pub fn scheme(mut self, scheme: Scheme) -> Self {
        self.scheme = scheme;
        self
    }

    /// Worker threads (default: all cores the process may use).
    pub fn workers(mut self, workers: usize) -> Self {
        self.workers = Some(workers);
        self
    }

    /// Most items per work unit (default 512). Larger units amortise per-unit work such
    /// as key grouping; a call with fewer than `workers × batch_size` items is split
    /// evenly over the workers instead.
    pub fn batch_size(mut self, batch_size: usize) -> Self {
        self.batch_size = batch_size;
        self
    }

    /// Force a backend (default: `LINESIG_BACKEND` if set, else the fastest this CPU
    /// supports for the scheme, [`Backend::best_for`]). A backend this CPU cannot run is
    /// an error, never a silent fallback.
    pub fn backend(mut self, backend: Backend) -> Self {
        self.backend = Some(backend);
        self
    }

    /// Signatures a lane-parallel backend puts in one vector (default: all its lanes;
    /// more than it has means all). Fewer leave lanes idle: this exists to measure how
    /// throughput scales with lanes (`linesig bench --lanes`), not for production. The
    /// reference backend has no lanes and ignores it, and so do the batch equation's sums
    /// (their lanes hold windows, not signatures).
    pub fn lanes(mut self, lanes: usize) -> Self {
        self.lanes = Some(lanes);
        self
    }

    /// Bytes for the cross-batch cache of hot keys (default 0: off). A key that keeps
    /// signing earns a table that makes each of its later verifications about two to
    /// three times cheaper: for Ed25519 its fixed-base table (about 91 KB on every
    /// backend), for ML-DSA its expanded form (Â, NTT(t1·2^d), tr: about 21 / 38 / 68 KB
    /// for ML-DSA-44 / 65 / 87). A stream of fresh keys never earns one. Memory stays
    /// within `bytes` (tables a work unit is using when they are evicted live until it
    /// ends). Verdicts never depend on it. For `zip215` and `zip215-strict` with the
    /// batch equation on, a unit takes the batch equation first (cheaper per signature
    /// than a table when it holds; it reads cached keys but builds no tables), so keys
    /// earn tables in the units that run one signature at a time: the gate closed by
    /// failing checks, or units too small for the equation.
    pub fn key_cache(mut self, bytes: usize) -> Self {
        self.key_cache_bytes = bytes;
        self
    }

    /// Whether the cofactored Ed25519 policies (`zip215`, `zip215-strict`) check a work
    /// unit's signatures with one randomized batch equation before any one alone
    /// (default: on, as every batch verifier of those chains does). Each signature still
    /// gets its own verdict, the per-signature path's: where the batch holds, each is
    /// valid but with probability at most 2^−127 per call (docs/design.md §3, "The batch
    /// equation"); where it fails, the invalid ones are found and get their reasons.
    /// Off, a verdict is a deterministic function of the item alone, with no
    /// randomness at all. `strict` and the other schemes never take this path.
    pub fn batch_equation(mut self, on: bool) -> Self {
        self.batch_equation = on;
        self
    }

    pub fn build(self) -> Result<Engine, Error> {
        let workers = match self.workers {
            Some(0) => return Err(Error::ZeroWorkers),
            Some(n) if n > MAX_WORKERS => {
                return Err(Error::TooManyWorkers {
                    requested: n,
                    max: MAX_WORKERS,
                })
            }
            Some(n) => n,
            None => available_cores(),
        };
        if self.batch_size == 0 {
            return Err(Error::ZeroBatchSize);
        }
        if self.lanes == Some(0) {
            return Err(Error::ZeroLanes);
        }
        let forced = match self.backend {
            Some(b) => Some(b),
            None => Backend::from_env()?,
        };
        let backend = choose_backend(self.scheme, forced, Isa::detected())?;
        let key_cache = match self.key_cache_bytes {
            0 => None,
            bytes => {
                let table_bytes = dispatch!(self.scheme, v => v.key_table_bytes(backend))
                    .ok_or(Error::NoKeyCache(self.scheme.name()))?;
                Some(
                    KeyCache::new(bytes, table_bytes).ok_or(Error::KeyCacheTooSmall {
                        bytes,
                        table_bytes: table_bytes + key_cache::SLOT_OVERHEAD,
                    })?,
                )
            }
        };
        let pool = Arc::new(
            rayon::ThreadPoolBuilder::new()
                .num_threads(workers)
                .thread_name(|i| format!("linesig-worker-{i}"))
                .build()
                .map_err(|e| Error::ThreadPool(e.to_string()))?,
        );
        Ok(Engine {
            scheme: self.scheme,
            workers,
            batch_size: self.batch_size,
            backend,
            lanes: self.lanes.unwrap_or(usize::MAX),
            key_cache,
            batch_gate: self.batch_equation.then(BatchGate::new),
            pool,
        })
    }
}

/// The backend an engine for `scheme` runs on a CPU with `isa`: the one `forced` (by the
/// builder or `LINESIG_BACKEND`) if the CPU runs it for this scheme, an error if not
/// (never a silent fallback), else the scheme's fastest ([`Backend::best_among`]).
fn choose_backend(scheme: Scheme, forced: Option<Backend>, isa: Isa) -> Result<Backend, Error> {
    let Some(backend) = forced else {
        return Ok(Backend::best_among(scheme, isa));
    };
    if backend.runs_on(scheme, isa) {
        return Ok(backend);
    }
    let needs = match backend.required_features(scheme) {
        Some(features) => features.to_string(),
        None => "x86-64".to_string(),
    };
    Err(Error::UnsupportedBackend {
        backend,
        scheme: scheme.name(),
        needs,
        has: isa,
    })
}

/// A caller's verdict slice must have one slot per item.
fn check_output_len(items: usize, out: usize) -> Result<(), Error> {
    if out == items {
        Ok(())
    } else {
        Err(Error::OutputLength {
            expected: items,
            got: out,
        })
    }
}

/// The most worker threads a pool may have. No CPU this serves has more hardware
/// threads, and a pool is started thread by thread: rayon would silently cap a larger
/// request at 65,535, which on a small machine takes minutes to start and looks hung.
pub const MAX_WORKERS: usize = 1024;

/// Cores this process may run on (1 if unknown), at most [`MAX_WORKERS`].
pub fn available_cores() -> usize {
    std::thread::available_parallelism()
        .map_or(1, |n| n.get())
        .min(MAX_WORKERS)
}

/// A configured verifier with its own worker pool. Cheap to share by reference; calls
/// from several threads are fine and share the pool.
pub struct Engine {
    scheme: Scheme,
    workers: usize,
    batch_size: usize,
    backend: Backend,
    /// Most signatures per vector (`usize::MAX`: all the backend's lanes).
    lanes: usize,
    key_cache: Option<KeyCache>,
    /// Where the batch equation is on: when units try it (shared by the workers).
    batch_gate: Option<BatchGate>,
    /// Shared with the engine's siblings ([`Engine::sibling`]).
    pool: Arc<rayon::ThreadPool>,
}

impl std::fmt::Debug for Engine {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Engine")
            .field("scheme", &self.scheme)
            .field("workers", &self.workers)
            .field("batch_size", &self.batch_size)
            .field("backend", &self.backend)
            .field("key_cache", &self.key_cache_stats())
            .field("batch_equation", &self.batch_equation())
            .finish()
    }
}

impl Engine {
    pub fn builder() -> EngineBuilder {
        EngineBuilder::default()
    }

    pub fn scheme(&self) -> Scheme {
        self.scheme
    }

    pub fn workers(&self) -> usize {
        self.workers
    }

    pub fn batch_size(&self) -> usize {
        self.batch_size
    }

    pub fn backend(&self) -> Backend {
        self.backend
    }

    /// Whether the batch equation is on ([`EngineBuilder::batch_equation`]; it applies to
    /// the cofactored Ed25519 policies only).
    pub fn batch_equation(&self) -> bool {
        self.batch_gate.is_some()
    }

    /// How the batch equation went per work unit, if it is on.
    pub fn batch_equation_stats(&self) -> Option<BatchEquationStats> {
        self.batch_gate.as_ref().map(BatchGate::stats)
    }

    /// An engine for `scheme` on this engine's worker pool, with its workers, batch size
    /// and lane count: its calls and this engine's share the same threads (the packet
    /// pipeline verifies precompile signatures under `strict` this way beside the
    /// transaction policy). Its backend is this engine's where that runs `scheme` on this
    /// CPU, else the scheme's best; it has no key cache, and the batch equation as this
    /// engine has it (with a gate of its own).
    pub fn sibling(&self, scheme: Scheme) -> Result<Engine, Error> {
        let isa = Isa::detected();
        let forced = Some(self.backend).filter(|b| b.runs_on(scheme, isa));
        Ok(Engine {
            scheme,
            workers: self.workers,
            batch_size: self.batch_size,
            backend: choose_backend(scheme, forced, isa)?,
            lanes: self.lanes,
            key_cache: None,
            batch_gate: self.batch_gate.as_ref().map(|_| BatchGate::new()),
            pool: Arc::clone(&self.pool),
        })
    }

    /// The engine's worker pool (shared with its siblings), for an embedder that runs
    /// its own parallel work beside the engine's on the same threads, as linesig-agave
    /// finds packets' signatures on them before verifying.
    pub fn thread_pool(&self) -> &rayon::ThreadPool {
        &self.pool
    }

    /// The hot-key cache's counters (hit rate, memory, admissions), if it is on.
    pub fn key_cache_stats(&self) -> Option<KeyCacheStats> {
        self.key_cache.as_ref().map(KeyCache::stats)
    }

    /// One verdict per item, in input order.
    pub fn verify(&self, items: &[Item<'_>]) -> Vec<Verdict> {
        self.verify_source(items)
    }

    /// One verdict per item of a columnar batch, in order.
    pub fn verify_batch(&self, batch: &ItemBatch) -> Vec<Verdict> {
        self.verify_source(batch)
    }

    /// One verdict per item of any [`ItemSource`], in order.
    pub fn verify_source<S: ItemSource + ?Sized>(&self, items: &S) -> Vec<Verdict> {
        self.verify_with_progress(items, &|_| {})
    }

    /// As [`Engine::verify_source`], calling `progress(n)` from a worker each time a unit
    /// of `n` items is done (for progress bars; keep it cheap).
    pub fn verify_with_progress<S: ItemSource + ?Sized>(
        &self,
        items: &S,
        progress: &(dyn Fn(usize) + Sync),
    ) -> Vec<Verdict> {
        // Fail closed: every slot is overwritten by its unit; none may stay valid by default.
        let mut out = vec![Verdict::Invalid(Reject::EquationFailed); items.len()];
        self.run(items, &mut out, progress);
        out
    }

    /// Verify into a caller-provided slice (one slot per item), without allocating it.
    pub fn verify_into<S: ItemSource + ?Sized>(
        &self,
        items: &S,
        out: &mut [Verdict],
    ) -> Result<(), Error> {
        self.verify_into_on(&self.pool, items, out)
    }

    /// As [`Engine::verify_into`], with the work units run on `pool` (a rayon pool of the
    /// caller's, sized as the caller chose) instead of the engine's own workers: for an
    /// embedder whose interface hands it a pool, such as Agave's sigverify stage. The
    /// units are cut for `pool`'s thread count; verdicts are the same as on any pool.
    pub fn verify_into_on<S: ItemSource + ?Sized>(
        &self,
        pool: &rayon::ThreadPool,
        items: &S,
        out: &mut [Verdict],
    ) -> Result<(), Error> {
        check_output_len(items.len(), out.len())?;
        self.run_on(pool, items, out, &|_| {});
        Ok(())
    }

    /// As [`Engine::verify_into`], on the calling thread alone, in equal units of at most
    /// the engine's batch size: for an embedder that runs one verifying thread per core
    /// itself (the packet pipeline's verify tiles), so that no call waits for a unit on
    /// another thread and no thread waits for another's call. The engine's key cache is
    /// shared as in every call.
    pub fn verify_into_here<S: ItemSource + ?Sized>(
        &self,
        items: &S,
        out: &mut [Verdict],
    ) -> Result<(), Error> {
        check_output_len(items.len(), out.len())?;
        // Equal units, not full ones and a remainder: a call of 1,050 items runs as two
        // of 525, not 512, 512 and 26 (a unit's fixed costs, such as one shared inversion,
        // would fall on 26 signatures).
        let units = items.len().div_ceil(self.batch_size.max(1)).max(1);
        let size = items.len().div_ceil(units).max(1);
        for (unit, verdicts) in out.chunks_mut(size).enumerate() {
            self.verify_unit(items, unit * size, verdicts);
        }
        Ok(())
    }

    fn run<S: ItemSource + ?Sized>(
        &self,
        items: &S,
        out: &mut [Verdict],
        progress: &(dyn Fn(usize) + Sync),
    ) {
        self.run_on(&self.pool, items, out, progress)
    }

    fn run_on<S: ItemSource + ?Sized>(
        &self,
        pool: &rayon::ThreadPool,
        items: &S,
        out: &mut [Verdict],
        progress: &(dyn Fn(usize) + Sync),
    ) {
        // A call shorter than `workers × batch_size` is cut evenly over the pool's
        // threads, so a small batch (a pipeline at low load) still runs on every core.
        let workers = pool.current_num_threads().max(1);
        let batch_size = self.batch_size.min(items.len().div_ceil(workers)).max(1);
        if items.len() <= INLINE_ITEMS {
            self.verify_unit(items, 0, out);
            progress(out.len());
            return;
        }
        // The calling thread verifies the first unit itself while the pool takes the
        // rest: one fewer thread hand-off on the latency of every call.
        let mut units = out.chunks_mut(batch_size).enumerate();
        let first = units.next();
        pool.in_place_scope(|scope| {
            for (unit, verdicts) in units {
                scope.spawn(move |_| {
                    self.verify_unit(items, unit * batch_size, verdicts);
                    progress(verdicts.len());
                });
            }
            if let Some((_, verdicts)) = first {
                self.verify_unit(items, 0, verdicts);
                progress(verdicts.len());
            }
        });
    }

    fn verify_unit<S: ItemSource + ?Sized>(&self, items: &S, start: usize, out: &mut [Verdict]) {
        let cache = self.key_cache.as_ref();
        dispatch!(self.scheme, v => {
            v.verify_unit(self.backend, self.lanes, cache, self.batch_gate.as_ref(), items, start, out)
        })
    }
}

#[cfg(all(test, target_arch = "x86_64", feature = "mldsa", feature = "leansig"))]
mod tests {
    use super::*;
    use crate::{leansig, mldsa, Policy};
    use linesig_simd::cpu::Feature::*;

    /// Skylake-X / Cascade Lake (most cloud Xeons): AVX-512 F, BW and DQ, no IFMA. The
    /// engine takes the AVX-512 ML-DSA and leanSig lanes there, forced or by default,
    /// and refuses Ed25519's `avx512`, naming what is missing.
    #[test]
    fn avx512f_without_ifma_builds_the_pq_lanes() {
        let skylake_x = Isa::of(&[Avx2, Avx512F, Avx512Bw, Avx512Dq]);
        for scheme in [
            Scheme::MlDsa(mldsa::ParameterSet::MlDsa65),
            Scheme::LeanSig(leansig::Instance::L18),
        ] {
            for forced in [None, Some(Backend::Avx512)] {
                assert_eq!(
                    choose_backend(scheme, forced, skylake_x).unwrap(),
                    Backend::Avx512
                );
            }
        }
        // Ed25519 there: `avx2` or `portable`, whichever this CPU times faster.
        let ed25519 = Scheme::Ed25519(Policy::Zip215);
        let chosen = choose_backend(ed25519, None, skylake_x).unwrap();
        assert!(matches!(chosen, Backend::Avx2 | Backend::Portable));
        assert_eq!(chosen, Backend::best_among(ed25519, skylake_x));
        let err = choose_backend(ed25519, Some(Backend::Avx512), skylake_x).unwrap_err();
        assert!(
            matches!(
                err,
                Error::UnsupportedBackend {
                    backend: Backend::Avx512,
                    ..
                }
            ),
            "{err}"
        );
        assert!(err.to_string().contains("avx512ifma"), "{err}");
    }

    /// A forced backend the CPU lacks is an error for every scheme, never a fallback.
    #[test]
    fn forced_backends_the_cpu_lacks_are_refused() {
        let zen3 = Isa::of(&[Avx2]);
        for scheme in [
            Scheme::Ed25519(Policy::Strict),
            Scheme::MlDsa(mldsa::ParameterSet::MlDsa44),
            Scheme::LeanSig(leansig::Instance::Devnet4),
        ] {
            assert!(choose_backend(scheme, Some(Backend::Avx512), zen3).is_err());
            assert!(choose_backend(scheme, Some(Backend::Avx2), Isa::PORTABLE).is_err());
            assert_eq!(
                choose_backend(scheme, Some(Backend::Portable), Isa::PORTABLE).unwrap(),
                Backend::Portable
            );
        }
    }
}
