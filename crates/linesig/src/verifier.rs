//! What a scheme gives the engine, as one trait: implemented once per scheme by its
//! parameter type (`ed25519::Policy`, `mldsa::ParameterSet`, `leansig::Instance`), and
//! dispatched in one place (`dispatch!` in `scheme.rs`). A new scheme is its module, this
//! trait's impl, and one arm of `Scheme` and of `dispatch!`.
//!
//! What a backend means for a scheme (the CPU features it needs, its lanes, the default
//! among them) is answered here, once, by the trait's provided methods over each
//! scheme's constants; `Backend`'s public methods in `scheme.rs` only dispatch to them.
//! This module sits below the schemes and names none of them.

use crate::backend::Backend;
use crate::batch_gate::BatchGate;
use crate::item::{Item, ItemSource};
use crate::key_cache::KeyCache;
use crate::verdict::Verdict;
use linesig_simd::Isa;

pub(crate) trait SchemeVerifier: Copy {
    /// The CPU features of the scheme's AVX-512 and AVX2 paths: the `FEATURES` of their
    /// `isa_path!` modules, which the kernels themselves check before running.
    #[cfg(target_arch = "x86_64")]
    const AVX512_FEATURES: Isa;
    #[cfg(target_arch = "x86_64")]
    const AVX2_FEATURES: Isa;

    /// Signatures one vector carries on the AVX-512 and AVX2 paths: what the engine's
    /// `lanes` option limits (1 where one signature spans the lanes).
    const AVX512_LANES: usize;
    const AVX2_LANES: usize;

    /// The SIMD backends from the fastest measured down: an engine's default is the first
    /// one the CPU runs, else `portable`. The measurements are cited at the impls.
    const PREFERENCE: &'static [Backend];

    /// The CPU features `backend` needs for this scheme (none for `portable`), or `None`
    /// where this build has no such path (a SIMD backend off x86-64).
    fn required_features(backend: Backend) -> Option<Isa> {
        match backend {
            Backend::Portable => Some(Isa::PORTABLE),
            #[cfg(target_arch = "x86_64")]
            Backend::Avx512 => Some(Self::AVX512_FEATURES),
            #[cfg(target_arch = "x86_64")]
            Backend::Avx2 => Some(Self::AVX2_FEATURES),
            #[cfg(not(target_arch = "x86_64"))]
            Backend::Avx512 | Backend::Avx2 => None,
        }
    }

    /// Signatures one vector carries on `backend` (1 on the portable path).
    fn lanes_on(backend: Backend) -> usize {
        match backend {
            Backend::Avx512 => Self::AVX512_LANES,
            Backend::Avx2 => Self::AVX2_LANES,
            Backend::Portable => 1,
        }
    }

    /// The first of `PREFERENCE` a CPU with `isa` runs, else `portable`.
    fn best_listed(isa: Isa) -> Backend {
        Self::PREFERENCE
            .iter()
            .copied()
            .find(|&backend| Self::required_features(backend).is_some_and(|f| isa.contains(f)))
            .unwrap_or(Backend::Portable)
    }

    /// Where none of `PREFERENCE` runs: the fastest of `candidates` (the other backends
    /// this CPU runs, `portable` among them) as measured here, for a scheme whose order
    /// among them differs between CPUs of that class; `None` takes `portable`
    /// unmeasured. [`Backend::best_for`] asks once per process and keeps the answer.
    fn fastest_measured(self, _candidates: &[Backend]) -> Option<Backend> {
        None
    }

    /// The scheme's name as the CLI and JSON reports spell it.
    fn scheme_name(self) -> &'static str;

    /// A human label: "Ed25519 (policy strict)", "ML-DSA-44".
    fn scheme_label(self) -> String;

    /// What `backend` runs for this scheme, for reports.
    fn describe(self, backend: Backend) -> &'static str;

    /// Bytes of one public key's precomputed table on `backend` (what the key cache
    /// charges), or `None` where the scheme's keys have nothing to precompute.
    fn key_table_bytes(self, backend: Backend) -> Option<usize>;

    /// One item on the portable path.
    fn verify(self, item: &Item<'_>) -> Verdict;

    /// The engine's work unit: verdicts of `items[start..start + out.len()]` into `out`,
    /// at most `lanes` signatures per vector (`usize::MAX`: all). `batch` is the engine's
    /// gate where its batch equation is on (a scheme without one ignores it).
    #[allow(clippy::too_many_arguments)]
    fn verify_unit<S: ItemSource + ?Sized>(
        self,
        backend: Backend,
        lanes: usize,
        cache: Option<&KeyCache>,
        batch: Option<&BatchGate>,
        items: &S,
        start: usize,
        out: &mut [Verdict],
    );
}
