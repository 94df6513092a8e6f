//! The schemes linesig verifies ([`Scheme`]), and the one place that dispatches on them:
//! `dispatch!` hands each scheme's parameter value (an implementor of
//! `SchemeVerifier`) to generic code, for the engine and for [`Backend`]'s per-scheme
//! methods (features, lanes, default, description), which only dispatch: the answers
//! are `SchemeVerifier`'s, in `verifier.rs`.

use crate::backend::Backend;
use crate::ed25519::Policy;
use crate::error::{PolicyNotApplicable, UnknownName};
use crate::item::Item;
#[cfg(feature = "leansig")]
use crate::leansig;
#[cfg(feature = "leanxmss")]
use crate::leanxmss;
#[cfg(feature = "mldsa")]
use crate::mldsa;
use crate::verdict::Verdict;
use crate::verifier::SchemeVerifier;
use linesig_simd::Isa;
use std::sync::{Mutex, OnceLock};

/// `$body` with `$v` bound to `$scheme`'s parameter value: an Ed25519 [`Policy`], an
/// ML-DSA [`mldsa::ParameterSet`] or a leanSig [`leansig::Instance`], each a
/// `SchemeVerifier`. The only `match` on [`Scheme`] that selects behaviour.
macro_rules! dispatch {
    ($scheme:expr, $v:ident => $body:expr) => {
        match $scheme {
            $crate::Scheme::Ed25519($v) => $body,
            #[cfg(feature = "mldsa")]
            $crate::Scheme::MlDsa($v) => $body,
            #[cfg(feature = "leansig")]
            $crate::Scheme::LeanSig($v) => $body,
            #[cfg(feature = "leanxmss")]
            $crate::Scheme::LeanXmss($v) => $body,
        }
    };
}
pub(crate) use dispatch;

/// A signature scheme and the rules it is verified under.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Scheme {
    /// Ed25519 (RFC 8032) under one of the chains' acceptance policies.
    Ed25519(Policy),
    /// ML-DSA (FIPS 204) with the given parameter set (feature `mldsa`).
    #[cfg(feature = "mldsa")]
    MlDsa(mldsa::ParameterSet),
    /// leanSig (generalized XMSS, Ethereum lean consensus): the item's context is the
    /// epoch, four bytes little-endian ([`leansig::epoch_context`]) (feature `leansig`).
    #[cfg(feature = "leansig")]
    LeanSig(leansig::Instance),
    /// leanXMSS (the lean devnets' BLAKE2s XMSS): the item's context is the epoch, four
    /// bytes little-endian, as for leanSig (feature `leanxmss`).
    #[cfg(feature = "leanxmss")]
    LeanXmss(leanxmss::Instance),
}

impl Scheme {
    /// Verify one item on the portable path. An engine gives the same
    /// verdict for the same item, whatever its batch, backend, workers or batch size.
    pub fn verify(self, item: &Item<'_>) -> Verdict {
        dispatch!(self, v => SchemeVerifier::verify(v, item))
    }

    /// This scheme under `policy` where one is given (Ed25519 defaults to `Strict`). A
    /// policy applies to Ed25519 only; giving one for another scheme is an error, never
    /// silently ignored.
    pub fn with_policy(self, policy: Option<Policy>) -> Result<Scheme, PolicyNotApplicable> {
        // Built with Ed25519 alone, the last two arms have no scheme left to match.
        #[allow(unreachable_patterns)]
        match (self, policy) {
            (Scheme::Ed25519(_), policy) => Ok(Scheme::Ed25519(policy.unwrap_or_default())),
            (other, None) => Ok(other),
            (other, Some(_)) => Err(PolicyNotApplicable {
                scheme: other.name(),
            }),
        }
    }

    /// A human label: "Ed25519 (policy strict)", "ML-DSA-44".
    pub fn label(self) -> String {
        dispatch!(self, v => v.scheme_label())
    }

    /// The scheme's name, as the CLI and JSON reports spell it.
    pub fn name(self) -> &'static str {
        dispatch!(self, v => v.scheme_name())
    }
}

impl std::str::FromStr for Scheme {
    type Err = UnknownName;
    /// `ed25519` (policy `strict`; pick another with [`Scheme::Ed25519`]), `mldsa44`,
    /// `mldsa65`, `mldsa87`, `leansig-devnet4`, `leansig-l18`, `leansig-l32`, `leanxmss`.
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        if s.eq_ignore_ascii_case("ed25519") {
            return Ok(Scheme::Ed25519(Policy::Strict));
        }
        #[cfg(feature = "leansig")]
        if let Ok(instance) = s.parse::<leansig::Instance>() {
            return Ok(Scheme::LeanSig(instance));
        }
        #[cfg(feature = "leanxmss")]
        if let Ok(instance) = s.parse::<leanxmss::Instance>() {
            return Ok(Scheme::LeanXmss(instance));
        }
        #[cfg(feature = "mldsa")]
        if let Ok(set) = s.parse::<mldsa::ParameterSet>() {
            return Ok(Scheme::MlDsa(set));
        }
        Err(UnknownName::new("scheme", s, scheme_names()))
    }
}

/// The scheme names this build parses, and the features that would add the others.
fn scheme_names() -> &'static str {
    static NAMES: OnceLock<String> = OnceLock::new();
    NAMES.get_or_init(|| {
        let families = [
            (true, "ed25519", "ed25519"),
            (
                cfg!(feature = "mldsa"),
                "mldsa44, mldsa65, mldsa87",
                "mldsa",
            ),
            (
                cfg!(feature = "leansig"),
                "leansig-devnet4, leansig-l18, leansig-l32",
                "leansig",
            ),
            (cfg!(feature = "leanxmss"), "leanxmss", "leanxmss"),
        ];
        let built: Vec<&str> = families.iter().filter(|f| f.0).map(|f| f.1).collect();
        let missing: Vec<&str> = families.iter().filter(|f| !f.0).map(|f| f.2).collect();
        let mut names = built.join(", ");
        if !missing.is_empty() {
            names += &format!(" (others: build with features {})", missing.join(", "));
        }
        names
    })
}

impl Default for Scheme {
    fn default() -> Self {
        Scheme::Ed25519(Policy::Strict)
    }
}

impl Backend {
    /// The CPU features `scheme` needs on this backend (none for `portable`), or
    /// `None` where this build has no such path (a SIMD backend off x86-64). These are the
    /// guards the kernels themselves check, so the engine's answer is theirs.
    pub fn required_features(self, scheme: Scheme) -> Option<Isa> {
        fn of<V: SchemeVerifier>(_: V, backend: Backend) -> Option<Isa> {
            V::required_features(backend)
        }
        dispatch!(scheme, v => of(v, self))
    }

    /// Whether a CPU with `isa` can run `scheme` on this backend.
    pub fn runs_on(self, scheme: Scheme, isa: Isa) -> bool {
        self.required_features(scheme)
            .is_some_and(|features| isa.contains(features))
    }

    /// Whether this CPU can run `scheme` on this backend.
    pub fn is_supported_for(self, scheme: Scheme) -> bool {
        self.runs_on(scheme, Isa::detected())
    }

    /// Signatures one vector carries for `scheme` on this backend: what the engine's
    /// `lanes` option limits. ML-DSA spreads one signature's coefficients over the
    /// lanes instead, so it is 1 there.
    pub fn lanes(self, scheme: Scheme) -> usize {
        fn of<V: SchemeVerifier>(_: V, backend: Backend) -> usize {
            V::lanes_on(backend)
        }
        dispatch!(scheme, v => of(v, self))
    }

    /// What this backend runs for `scheme`, for reports.
    pub fn describe(self, scheme: Scheme) -> &'static str {
        dispatch!(scheme, v => SchemeVerifier::describe(v, self))
    }

    /// The backend an engine for `scheme` uses unless told otherwise on this CPU:
    /// [`Backend::best_among`] the backends the detected features run.
    pub fn best_for(scheme: Scheme) -> Backend {
        Backend::best_among(scheme, Isa::detected())
    }

    /// [`Backend::best_on`] `isa`, where the scheme's preference list has an answer;
    /// else, for a scheme that times its candidates (Ed25519 without IFMA: `avx2`
    /// against `portable`), the faster of those `isa` and this CPU both run, measured
    /// here once per process (a few tens of milliseconds) and kept.
    pub fn best_among(scheme: Scheme, isa: Isa) -> Backend {
        let listed = Backend::best_on(scheme, isa);
        if listed != Backend::Portable {
            return listed;
        }
        let candidates: Vec<Backend> = Backend::ALL
            .into_iter()
            .filter(|b| b.runs_on(scheme, isa) && b.is_supported_for(scheme))
            .collect();
        if candidates.len() < 2 {
            return listed;
        }
        static MEASURED: Mutex<Vec<(Scheme, Vec<Backend>, Backend)>> = Mutex::new(Vec::new());
        let mut measured = MEASURED
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        if let Some((.., backend)) = measured
            .iter()
            .find(|(s, c, _)| *s == scheme && *c == candidates)
        {
            return *backend;
        }
        let backend = dispatch!(scheme, v => v.fastest_measured(&candidates)).unwrap_or(listed);
        measured.push((scheme, candidates, backend));
        backend
    }

    /// The fastest backend measured for `scheme` on a CPU with `isa`, from the scheme's
    /// preference list alone: the first that runs there, else `portable`. The
    /// measurements behind each list are cited at the scheme's `SchemeVerifier` impl
    /// (Ed25519: `avx512`, and elsewhere [`Backend::best_among`] times `avx2` against
    /// `portable`; ML-DSA and leanSig: the AVX-512 lanes, then `avx2`).
    pub fn best_on(scheme: Scheme, isa: Isa) -> Backend {
        fn listed<V: SchemeVerifier>(_: V, isa: Isa) -> Backend {
            V::best_listed(isa)
        }
        dispatch!(scheme, v => listed(v, isa))
    }
}

#[cfg(all(test, target_arch = "x86_64", feature = "mldsa", feature = "leansig"))]
mod tests {
    use super::*;
    use linesig_simd::cpu::Feature;

    const ED25519: Scheme = Scheme::Ed25519(Policy::Strict);
    const MLDSA: Scheme = Scheme::MlDsa(mldsa::ParameterSet::MlDsa44);
    const LEANSIG: Scheme = Scheme::LeanSig(leansig::Instance::Devnet4);

    fn isa(features: &[Feature]) -> Isa {
        Isa::of(features)
    }

    /// The dispatch table on CPUs CI may not have. Skylake-X / Cascade Lake (AVX-512F,
    /// BW, DQ, no IFMA): the AVX-512 ML-DSA and leanSig paths run and are the default;
    /// Ed25519's `avx512` does not.
    #[test]
    fn avx512f_without_ifma_runs_the_pq_lanes_only() {
        use Feature::*;
        let skylake_x = isa(&[Avx2, Avx512F, Avx512Bw, Avx512Dq]);
        assert!(!Backend::Avx512.runs_on(ED25519, skylake_x));
        assert!(Backend::Avx2.runs_on(ED25519, skylake_x));
        for scheme in [MLDSA, LEANSIG] {
            assert!(Backend::Avx512.runs_on(scheme, skylake_x), "{scheme:?}");
            assert_eq!(Backend::best_on(scheme, skylake_x), Backend::Avx512);
        }
        assert_eq!(Backend::best_on(ED25519, skylake_x), Backend::Portable);
    }

    #[test]
    fn every_path_needs_exactly_its_features() {
        use Feature::*;
        let zen4 = isa(&[Avx2, Avx512F, Avx512Bw, Avx512Dq, Avx512Ifma]);
        let zen3 = isa(&[Avx2]);
        for scheme in [ED25519, MLDSA, LEANSIG] {
            assert_eq!(Backend::best_on(scheme, zen4), Backend::Avx512);
            assert!(Backend::Portable.runs_on(scheme, Isa::PORTABLE));
            assert!(!Backend::Avx2.runs_on(scheme, Isa::PORTABLE));
            assert!(!Backend::Avx512.runs_on(scheme, zen3));
            assert_eq!(Backend::best_on(scheme, Isa::PORTABLE), Backend::Portable);
        }
        assert_eq!(Backend::best_on(ED25519, zen3), Backend::Portable);
        assert_eq!(Backend::best_on(MLDSA, zen3), Backend::Avx2);
        assert_eq!(Backend::best_on(LEANSIG, zen3), Backend::Avx2);
        // Ed25519's IFMA kernels use DQ's `vpmullq`: IFMA alone is not enough.
        assert!(!Backend::Avx512.runs_on(ED25519, isa(&[Avx2, Avx512F, Avx512Ifma])));
    }

    /// The lane counts reports give are the kernels' own.
    #[test]
    fn lane_counts_are_the_kernels() {
        use leansig::lanes::KoalaLanes;
        assert_eq!(
            Backend::Avx2.lanes(LEANSIG),
            leansig::lanes::avx2::KoalaAvx2x2::N
        );
        assert_eq!(
            Backend::Avx512.lanes(LEANSIG),
            linesig_simd::u32x16::U32x16::N
        );
        assert_eq!(Backend::Portable.lanes(LEANSIG), 1);
        assert_eq!(Backend::Avx512.lanes(MLDSA), 1);
    }
}
