//! One ISA path from one feature literal: [`isa_path!`](crate::isa_path).
//!
//! Rust needs the features of a `#[target_feature]` function as a literal, and the
//! dispatch needs them as a value to test the CPU against. Written twice, the two can
//! drift, and a kernel then runs on a CPU that lacks one of its instructions: undefined
//! behaviour no test sees. `isa_path!` takes the literal once and emits both.

/// Declares the module it is invoked in as one ISA path, compiled for and guarded by
/// the features of `$features` (the string `#[target_feature(enable = ...)]` takes,
/// e.g. `"avx512f,avx512ifma"`). It emits, in that module:
///
/// - `FEATURES: Isa`, parsed from the literal at compile time (an unknown or misspelt
///   feature is a compile error, so the guard names every feature the kernels enable);
/// - `supported()`: whether this CPU has `FEATURES` (a cached flag);
/// - `assert_supported()`: panics unless `supported()`: the check every safe entry point
///   makes before it calls a kernel;
/// - `kernels! { fn ... }`: the functions inside, each compiled with
///   `#[target_feature(enable = $features)]`. Calling one is `unsafe`: the caller's
///   SAFETY argument is that it called `assert_supported()` (or tested `supported()`)
///   of the same module.
///
/// ```
/// mod avx2 {
///     linesig_simd::isa_path!("avx2");
///     kernels! {
///         pub(crate) fn sum(values: &[u32]) -> u32 {
///             values.iter().sum()
///         }
///     }
///     pub(crate) fn checked_sum(values: &[u32]) -> u32 {
///         assert_supported();
///         // SAFETY: the CPU has FEATURES, asserted just above.
///         unsafe { sum(values) }
///     }
/// }
/// assert_eq!(avx2::FEATURES, linesig_simd::Isa::of(&[linesig_simd::Feature::Avx2]));
/// if avx2::supported() {
///     assert_eq!(avx2::checked_sum(&[1, 2, 3]), 6);
/// }
/// ```
///
/// A feature the layer does not know does not compile:
///
/// ```compile_fail
/// mod sse {
///     linesig_simd::isa_path!("avx2,sse9");
/// }
/// ```
#[macro_export]
macro_rules! isa_path {
    ($features:literal) => {
        $crate::isa_path!(@emit ($) $features);
    };
    // `$d` is a `$` token, so the `kernels!` macro defined here can have repetitions of
    // its own (a macro cannot otherwise write `$(...)*` into the macro it defines).
    (@emit ($d:tt) $features:literal) => {
        /// The features this path's kernels are compiled with, parsed from the literal
        /// their `#[target_feature]` uses.
        #[allow(dead_code)]
        pub(crate) const FEATURES: $crate::Isa = $crate::Isa::parse($features);

        /// Whether this CPU runs this path's kernels.
        #[allow(dead_code)]
        #[inline]
        pub(crate) fn supported() -> bool {
            $crate::Isa::detected().contains(FEATURES)
        }

        /// Panics unless this CPU runs this path's kernels. Dispatch never selects a
        /// path the CPU lacks, so in use this is a cached flag that holds.
        #[allow(dead_code)]
        #[inline]
        #[track_caller]
        pub(crate) fn assert_supported() {
            if !supported() {
                $crate::cpu::unsupported(module_path!(), FEATURES)
            }
        }

        /// Compiles each function inside with this path's features.
        #[allow(unused_macros)]
        macro_rules! kernels {
            ($d($d item:item)*) => {
                $d(#[target_feature(enable = $features)] $d item)*
            };
        }
        #[allow(unused_imports)]
        pub(crate) use kernels;
    };
}
