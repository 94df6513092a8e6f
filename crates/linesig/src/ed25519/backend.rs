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
    /// One signature at a time on curve25519-dalek; runs everywhere.
    Reference,
}

impl Backend {
    /// Every backend this build contains, fastest first.
    pub const ALL: [Backend; 1] = [Backend::Reference];

    pub fn name(self) -> &'static str {
        match self {
            Backend::Reference => "reference",
        }
    }

    /// Whether this CPU can run the backend.
    pub fn is_supported(self) -> bool {
        match self {
            Backend::Reference => true,
        }
    }

    /// The fastest backend this CPU supports.
    pub fn best() -> Backend {
        Backend::ALL
            .into_iter()
            .find(|b| b.is_supported())
            .unwrap_or(Backend::Reference)
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
#[error("backend '{name}' is not available in this build of linesig ({why}; available: reference)")]
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
            "ifma" | "avx512" | "avx2" => {
                Err(unknown("the lane-parallel kernels are not built yet"))
            }
            _ => Err(unknown("unknown name")),
        }
    }
}
