//! Which arithmetic backend verifies Ed25519, chosen at run time from the CPU's features
//! (never at build time: one generic binary serves every machine).

use std::fmt;
use std::str::FromStr;

/// The environment variable that forces a backend for tests and benchmarks.
pub const BACKEND_ENV: &str = "LINESIG_BACKEND";

/// An Ed25519 verification backend.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Backend {
    /// Eight signatures per 512-bit vector (AVX-512 IFMA, radix 2^51, 52-bit multiply-
    /// add); x86-64 with AVX-512 F, DQ and IFMA (Intel Ice Lake and later server parts,
    /// AMD Zen 4 and later).
    Ifma,
    /// Four signatures per 256-bit vector (AVX2, radix 2^25.5); x86-64 with AVX2.
    /// Exact, tested against every oracle, opt-in: see [`Backend::best`] for why it is
    /// not the default.
    Avx2,
    /// One signature at a time on curve25519-dalek; runs everywhere.
    Reference,
}

impl Backend {
    /// Every backend this build contains.
    pub const ALL: [Backend; 3] = [Backend::Ifma, Backend::Avx2, Backend::Reference];

    pub fn name(self) -> &'static str {
        match self {
            Backend::Ifma => "ifma",
            Backend::Avx2 => "avx2",
            Backend::Reference => "reference",
        }
    }

    /// Signatures verified at once, one per vector lane (1 for the reference path).
    pub fn lanes(self) -> usize {
        match self {
            Backend::Ifma => 8,
            Backend::Avx2 => 4,
            Backend::Reference => 1,
        }
    }

    /// Whether this CPU can run the backend.
    pub fn is_supported(self) -> bool {
        match self {
            #[cfg(target_arch = "x86_64")]
            Backend::Ifma => super::lanes::ifma::supported(),
            #[cfg(target_arch = "x86_64")]
            Backend::Avx2 => super::lanes::avx2::supported(),
            #[cfg(not(target_arch = "x86_64"))]
            Backend::Ifma | Backend::Avx2 => false,
            Backend::Reference => true,
        }
    }

    /// The backend an engine uses unless told otherwise: the fastest measured on this
    /// CPU class.
    ///
    /// - With AVX-512 IFMA: `ifma`. Measured on an Intel Xeon (Sapphire Rapids class),
    ///   one core, distinct keys: 4.25× the ed25519-dalek `verify_strict` loop, where
    ///   `reference` runs at 0.94× it (README, "Lane-parallel backends").
    /// - Otherwise: `reference`. It runs curve25519-dalek, whose double-base scalar
    ///   multiplication dispatches to its own AVX2 code (four coordinates of one point
    ///   per vector), and on AVX2-only CPUs that beats four signatures per vector: with
    ///   no 64-bit multiplier, both designs pay ~100 `vpmuludq` per four field
    ///   multiplications, and ours carries more bookkeeping. Measured on AMD EPYC (Zen
    ///   3), one core: 52 µs vs 75 µs per signature.
    pub fn best() -> Backend {
        if Backend::Ifma.is_supported() {
            Backend::Ifma
        } else {
            Backend::Reference
        }
    }

    /// The backend an engine for `scheme` uses unless told otherwise. Ed25519: see
    /// [`Backend::best`]. ML-DSA: `avx2` wherever AVX2 runs — linesig's own verifier,
    /// measured on AMD EPYC (Zen 3), one core, at 1.6–2.1× libcrux (`reference`) and
    /// 1.0–1.36× PQClean's AVX2 code with cold keys (README, "ML-DSA"). The AVX-512 lanes
    /// (`ifma`) are opt-in until they have run on AVX-512 hardware; they pass every
    /// test through their portable twin but their intrinsics have not executed yet.
    /// leanSig: `avx2` wherever AVX2 runs (16 signatures per permutation call, about 6–8×
    /// the scalar `reference` path on one core); its AVX-512 lanes are opt-in for the
    /// same reason.
    pub fn best_for(scheme: crate::Scheme) -> Backend {
        match scheme {
            crate::Scheme::MlDsa(_) if Backend::Avx2.is_supported() => Backend::Avx2,
            crate::Scheme::MlDsa(_) => Backend::Reference,
            crate::Scheme::LeanSig(_) if Backend::Avx2.is_supported() => Backend::Avx2,
            crate::Scheme::LeanSig(_) => Backend::Reference,
            _ => Backend::best(),
        }
    }

    /// The backend forced by `LINESIG_BACKEND`, if set to anything but `auto` or empty.
    pub fn from_env() -> Result<Option<Backend>, UnknownBackend> {
        match std::env::var(BACKEND_ENV) {
            Ok(v) if !v.is_empty() && !v.eq_ignore_ascii_case("auto") => v.parse().map(Some),
            _ => Ok(None),
        }
    }
}

impl fmt::Display for Backend {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A backend name this build does not contain.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("backend '{name}' is not available in this build of linesig ({why}; available: ifma, avx2, reference)")]
pub struct UnknownBackend {
    pub name: String,
    pub why: &'static str,
}

impl FromStr for Backend {
    type Err = UnknownBackend;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let unknown = |why| UnknownBackend {
            name: s.to_string(),
            why,
        };
        match s.to_ascii_lowercase().as_str() {
            "reference" | "ref" | "portable" => Ok(Backend::Reference),
            "avx2" => Ok(Backend::Avx2),
            "ifma" | "avx512" | "avx512ifma" => Ok(Backend::Ifma),
            _ => Err(unknown("unknown name")),
        }
    }
}
