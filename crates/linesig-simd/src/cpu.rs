//! What this processor can run: the one place linesig asks the CPU for its features.
//!
//! [`Isa::detected`] reads them once per process. Every SIMD path is a module declared
//! with [`isa_path!`](crate::isa_path), whose `FEATURES` guard and whose kernels'
//! `#[target_feature]` come from one literal; `linesig::Backend` maps a backend and a
//! scheme to those same guards, so the engine's check and the kernels' own check cannot
//! disagree. An [`Isa`] can also be built by hand, which is how the tests check the
//! dispatch table for CPUs CI does not have (AVX-512F without IFMA).
//!
//! A zero-sized "this CPU has X" token that SIMD values carry was weighed against this
//! and not taken: every `#[target_feature]` entry point is already reached through one
//! `supported()` check per work unit, and a token would have to thread through the
//! generic lane code of four schemes (field, curve, hash and permutation traits) for no
//! check that the guards do not already make.

use std::fmt;
use std::sync::OnceLock;

/// One instruction-set extension linesig's SIMD paths use.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Feature {
    Avx2,
    /// Fused multiply-add on f64 (the half-size scalars' walk steps).
    Fma,
    Avx512F,
    Avx512Bw,
    Avx512Dq,
    Avx512Ifma,
}

impl Feature {
    /// Every feature, in the order reports list them.
    pub const ALL: [Feature; 6] = [
        Feature::Avx2,
        Feature::Fma,
        Feature::Avx512F,
        Feature::Avx512Bw,
        Feature::Avx512Dq,
        Feature::Avx512Ifma,
    ];

    /// The name `/proc/cpuinfo` and `#[target_feature]` use.
    pub const fn name(self) -> &'static str {
        match self {
            Feature::Avx2 => "avx2",
            Feature::Fma => "fma",
            Feature::Avx512F => "avx512f",
            Feature::Avx512Bw => "avx512bw",
            Feature::Avx512Dq => "avx512dq",
            Feature::Avx512Ifma => "avx512ifma",
        }
    }

    /// The feature whose name is `bytes[start..end]` (a `const fn`, so no slicing by
    /// range and no `==` on slices).
    const fn named(bytes: &[u8], start: usize, end: usize) -> Feature {
        let mut i = 0;
        while i < Feature::ALL.len() {
            let name = Feature::ALL[i].name().as_bytes();
            if name.len() == end - start {
                let mut j = 0;
                while j < name.len() && name[j] == bytes[start + j] {
                    j += 1;
                }
                if j == name.len() {
                    return Feature::ALL[i];
                }
            }
            i += 1;
        }
        panic!("a feature linesig_simd::Feature does not name (comma-separated, no spaces)")
    }

    const fn bit(self) -> u8 {
        1 << self as u8
    }

    #[cfg(target_arch = "x86_64")]
    fn is_detected(self) -> bool {
        match self {
            Feature::Avx2 => is_x86_feature_detected!("avx2"),
            Feature::Fma => is_x86_feature_detected!("fma"),
            Feature::Avx512F => is_x86_feature_detected!("avx512f"),
            Feature::Avx512Bw => is_x86_feature_detected!("avx512bw"),
            Feature::Avx512Dq => is_x86_feature_detected!("avx512dq"),
            Feature::Avx512Ifma => is_x86_feature_detected!("avx512ifma"),
        }
    }

    #[cfg(not(target_arch = "x86_64"))]
    fn is_detected(self) -> bool {
        false
    }
}

/// A set of [`Feature`]s: what a CPU has, or what a path needs.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Isa(u8);

impl Isa {
    /// No SIMD extension: only the portable paths run.
    pub const PORTABLE: Isa = Isa(0);

    /// The features of the CPU this process runs on, read once. Inline (a load and a
    /// compare after the first call): every kernel entry checks it, across crates.
    #[inline]
    pub fn detected() -> Isa {
        static DETECTED: OnceLock<Isa> = OnceLock::new();
        *DETECTED.get_or_init(Isa::ask_the_cpu)
    }

    /// The CPU's answer, feature by feature (once per process).
    #[cold]
    fn ask_the_cpu() -> Isa {
        Feature::ALL
            .into_iter()
            .filter(|f| f.is_detected())
            .fold(Isa::PORTABLE, Isa::with)
    }

    /// The same set with `feature` added.
    pub const fn with(self, feature: Feature) -> Isa {
        Isa(self.0 | feature.bit())
    }

    /// The set of `features`.
    pub fn of(features: &[Feature]) -> Isa {
        features.iter().copied().fold(Isa::PORTABLE, Isa::with)
    }

    #[inline]
    pub const fn has(self, feature: Feature) -> bool {
        self.0 & feature.bit() != 0
    }

    /// Whether every feature of `other` is in this set.
    #[inline]
    pub const fn contains(self, other: Isa) -> bool {
        self.0 & other.0 == other.0
    }

    /// The set a `#[target_feature(enable = ...)]` literal names: comma-separated
    /// [`Feature::name`]s, no spaces. Evaluated at compile time by
    /// [`isa_path!`](crate::isa_path), where a name outside [`Feature::ALL`] panics,
    /// which fails the build: a path's guard cannot omit a feature its kernels enable.
    pub const fn parse(literal: &str) -> Isa {
        let bytes = literal.as_bytes();
        let mut isa = Isa::PORTABLE;
        let mut start = 0;
        while start <= bytes.len() {
            let mut end = start;
            while end < bytes.len() && bytes[end] != b',' {
                end += 1;
            }
            isa = isa.with(Feature::named(bytes, start, end));
            start = end + 1;
        }
        isa
    }

    pub fn has_all(self, features: &[Feature]) -> bool {
        features.iter().all(|&f| self.has(f))
    }

    /// The features in this set.
    pub fn features(self) -> impl Iterator<Item = Feature> {
        Feature::ALL.into_iter().filter(move |&f| self.has(f))
    }
}

/// The panic of a path's `assert_supported()` (out of line: it is never taken in use).
#[cold]
#[inline(never)]
#[track_caller]
#[doc(hidden)]
pub fn unsupported(path: &str, features: Isa) -> ! {
    panic!("{path}: a kernel compiled for {features} was called on a CPU without it")
}

impl fmt::Display for Isa {
    /// `avx2 avx512f …`, or `portable` for the empty set.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut names = self.features().map(Feature::name);
        match names.next() {
            None => f.write_str("portable"),
            Some(first) => {
                f.write_str(first)?;
                names.try_for_each(|name| write!(f, " {name}"))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every literal the workspace's paths use parses to exactly its features.
    #[test]
    fn literals_parse_to_their_features() {
        use Feature::*;
        for (literal, features) in [
            ("avx2", &[Avx2][..]),
            ("avx2,fma", &[Avx2, Fma]),
            ("avx512f", &[Avx512F]),
            ("avx512f,avx512bw", &[Avx512F, Avx512Bw]),
            ("avx512f,fma", &[Avx512F, Fma]),
            ("avx512f,avx512ifma", &[Avx512F, Avx512Ifma]),
            (
                "avx512f,avx512dq,avx512ifma",
                &[Avx512F, Avx512Dq, Avx512Ifma],
            ),
        ] {
            assert_eq!(Isa::parse(literal), Isa::of(features), "{literal}");
            let listed = Isa::parse(literal).to_string().replace(' ', ",");
            assert_eq!(Isa::parse(&listed), Isa::parse(literal), "{literal}");
        }
        for feature in Feature::ALL {
            assert_eq!(Isa::parse(feature.name()), Isa::PORTABLE.with(feature));
        }
    }

    #[test]
    #[should_panic(expected = "does not name")]
    fn a_misspelt_literal_is_refused() {
        Isa::parse("avx2,avx512");
    }

    #[test]
    fn sets_hold_exactly_their_features() {
        let isa = Isa::of(&[Feature::Avx2, Feature::Avx512F]);
        assert!(isa.has(Feature::Avx2) && isa.has(Feature::Avx512F));
        assert!(!isa.has(Feature::Avx512Ifma));
        assert!(isa.has_all(&[Feature::Avx512F]));
        assert!(!isa.has_all(&[Feature::Avx512F, Feature::Avx512Ifma]));
        assert!(isa.contains(Isa::of(&[Feature::Avx2])) && isa.contains(Isa::PORTABLE));
        assert!(!isa.contains(Isa::of(&[Feature::Avx2, Feature::Avx512Ifma])));
        assert!(Isa::PORTABLE.has_all(&[]));
        assert_eq!(isa.to_string(), "avx2 avx512f");
        assert_eq!(Isa::PORTABLE.to_string(), "portable");
    }

    /// The cached detection agrees with asking the CPU directly.
    #[test]
    fn detection_matches_the_cpu() {
        let isa = Isa::detected();
        for feature in Feature::ALL {
            assert_eq!(
                isa.has(feature),
                feature.is_detected(),
                "{}",
                feature.name()
            );
        }
    }
}
