//! Which backend verifies, chosen at run time from the CPU's features (never at build
//! time: one generic binary serves every machine). The knob is shared by every scheme;
//! what it needs from the CPU, how many signatures a vector carries and which one is the
//! default are answered per scheme by the scheme itself (its `SchemeVerifier` impl),
//! through the methods `scheme.rs` adds here ([`Backend::required_features`],
//! [`Backend::best_on`], …).

use std::fmt;
use std::str::FromStr;

/// The environment variable that forces a backend for tests and benchmarks.
pub const BACKEND_ENV: &str = "LINESIG_BACKEND";

/// A verification backend: linesig's AVX-512 lanes, its AVX2 lanes, or the portable
/// path; one name per backend in every scheme's folders (`avx512`, `avx2`, `portable`). What each needs from the CPU depends on the scheme
/// ([`Backend::required_features`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Backend {
    /// The AVX-512 lanes, `avx512`. Ed25519: eight signatures per 512-bit vector (radix
    /// 2^51, 52-bit multiply-add), which needs AVX-512 F, BW, DQ and IFMA (Intel Ice Lake
    /// and later server parts, AMD Zen 4 and later). ML-DSA and leanSig: sixteen 32-bit
    /// lanes, which need AVX-512F only (Skylake-X and Cascade Lake too). `ifma`, its
    /// earlier name, is still accepted.
    Avx512,
    /// The AVX2 lanes: Ed25519 four signatures per 256-bit vector (radix 2^25.5),
    /// ML-DSA eight coefficients per vector, leanSig sixteen signatures in two vectors.
    Avx2,
    /// The portable path, `portable`: curve25519-dalek for Ed25519, libcrux for ML-DSA,
    /// linesig's scalar verifier for leanSig. Runs everywhere. `reference`, its earlier
    /// name, is still accepted.
    Portable,
}

impl Backend {
    /// Every backend this build contains.
    pub const ALL: [Backend; 3] = [Backend::Avx512, Backend::Avx2, Backend::Portable];

    pub fn name(self) -> &'static str {
        match self {
            Backend::Avx512 => "avx512",
            Backend::Avx2 => "avx2",
            Backend::Portable => "portable",
        }
    }

    /// The backend forced by `LINESIG_BACKEND`, if set to anything but `auto` or empty.
    pub fn from_env() -> Result<Option<Backend>, UnknownBackend> {
        match std::env::var(BACKEND_ENV) {
            Ok(v) if !v.is_empty() && !v.eq_ignore_ascii_case("auto") => v
                .parse()
                .map(Some)
                .map_err(|e: UnknownBackend| UnknownBackend {
                    why: "named by the environment variable LINESIG_BACKEND; unset it or name one",
                    ..e
                }),
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
#[error("backend '{name}' is not available in this build of linesig ({why}; available: avx512 (or ifma), avx2, portable (or reference))")]
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
            "portable" | "reference" | "ref" => Ok(Backend::Portable),
            "avx2" => Ok(Backend::Avx2),
            "avx512" | "ifma" | "avx512ifma" => Ok(Backend::Avx512),
            _ => Err(unknown("unknown name")),
        }
    }
}
