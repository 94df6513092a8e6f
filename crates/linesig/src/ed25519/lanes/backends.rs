//! The instantiations: one module per backend, each compiling the generic unit flow
//! inside `#[target_feature]` functions with its field, its ladder steps, its key
//! vectors, its base radix and its plan (`lane_backend!`), and the portable one for
//! the hot-key path.

use super::batch_equation::{self, Settled};
use super::ladder::{InlineSteps, Ladder, LadderSteps};
use super::point::{AddendRows, AffineLimbs, Constants, Extended, NarrowRow, TwoZ};
#[cfg(any(test, feature = "profile"))]
use super::stage::CycleClock;
use super::stage::StageClock;
use super::tables::{base_tables, BaseRadix, BaseTables};
use super::{fixed_base, verify_entries, Plan};
use crate::ed25519::batch_coefficients::Coefficients;
use crate::ed25519::policy::Rules;
use crate::ed25519::UnitEntry;
use crate::key_cache::KeyCache;
use crate::verdict::Verdict;
use std::ops::Range;

/// A backend's `ladder_steps()`: `inline` gives [`InlineSteps`]; `out_of_line` a
/// `Steps` whose point steps are compiled once each, out of line, with the backend's
/// target features. Which one is faster is measured per backend: out of line is faster
/// on IFMA and slower on AVX2, whose 10-limb elements spill either way and whose field
/// products LLVM already keeps out of line (docs/results.md).
macro_rules! ladder_steps {
    (inline, $field:ty) => {
        /// # Safety
        /// None needed; `unsafe` only to match the `out_of_line` form.
        unsafe fn ladder_steps() -> InlineSteps {
            InlineSteps
        }
    };
    (out_of_line, $field:ty) => {
        /// A value is proof that the CPU has the backend's features.
        #[derive(Clone, Copy)]
        struct Steps(());

        /// # Safety
        /// The CPU must have the backend's target features ([`supported`]).
        unsafe fn ladder_steps() -> Steps {
            Steps(())
        }

        impl LadderSteps<$field> for Steps {
            #[inline(always)]
            fn mul_by_16(self, acc: &mut Extended<$field>) {
                // SAFETY: a `Steps` exists, so the CPU has the features.
                unsafe { mul_by_16_here(acc) }
            }

            #[inline(always)]
            fn add(
                self,
                acc: &mut Extended<$field>,
                rows: &AddendRows<'_, $field>,
                negate: u8,
                with_t: bool,
            ) {
                // SAFETY: a `Steps` exists, so the CPU has the features.
                unsafe { add_here(acc, rows, negate, with_t) }
            }

            #[inline(always)]
            fn add_affine(
                self,
                acc: &mut Extended<$field>,
                rows: &[&AffineLimbs<$field>],
                negate: u8,
                with_t: bool,
            ) {
                // SAFETY: a `Steps` exists, so the CPU has the features.
                unsafe { add_affine_here(acc, rows, negate, with_t) }
            }

            #[inline(always)]
            fn add_narrow(
                self,
                acc: &mut Extended<$field>,
                rows: &[&NarrowRow],
                negate: u8,
                with_t: bool,
                d_half: &$field,
            ) {
                // SAFETY: a `Steps` exists, so the CPU has the features.
                unsafe { add_narrow_here(acc, rows, negate, with_t, d_half) }
            }
        }

        kernels! {
            #[inline(never)]
            fn mul_by_16_here(acc: &mut Extended<$field>) {
                acc.mul_by_16_assign_one_body()
            }

            #[inline(never)]
            fn add_here(
                acc: &mut Extended<$field>,
                rows: &AddendRows<'_, $field>,
                negate: u8,
                with_t: bool,
            ) {
                acc.add_assign(rows, negate, with_t, TwoZ::FromRows)
            }

            #[inline(never)]
            fn add_affine_here(
                acc: &mut Extended<$field>,
                rows: &[&AffineLimbs<$field>],
                negate: u8,
                with_t: bool,
            ) {
                acc.add_assign_affine(rows, negate, with_t)
            }

            #[inline(never)]
            fn add_narrow_here(
                acc: &mut Extended<$field>,
                rows: &[&NarrowRow],
                negate: u8,
                with_t: bool,
                d_half: &$field,
            ) {
                acc.add_assign_narrow(rows, negate, with_t, d_half)
            }
        }
    };
}

/// One instantiation of the generic verifier: a module that is the ISA path of
/// `$features` (`linesig_simd::isa_path!`: its `FEATURES`, `supported()` and kernels
/// from that one literal), `verify_groups()` (the per-unit path), `verify_hot()` (the fixed-base
/// path of cached keys) and `key_table_bytes()`, compiled with the backend's target
/// features, its ladder steps `inline` or `out_of_line` (see `ladder_steps!`), how many
/// vectors of keys it decodes at once (their square roots interleave; see
/// [`with_key_tables`]), the radix of the base point's digits ([`BaseRadix`]) and its
/// [`Plan`] for a policy's rules (`$plan`, a `fn(Rules) -> Plan`).
macro_rules! lane_backend {
    (
        $(#[$doc:meta])* $module:ident, $field:ty, $words:ty, $features:literal,
        $steps:ident, $key_vectors:literal, $base_radix:expr,
        $plan:expr
    ) => {
        $(#[$doc])*
        #[cfg(target_arch = "x86_64")]
        pub(crate) mod $module {
            use super::*;
            use std::sync::OnceLock;

            static BASE_TABLES: OnceLock<BaseTables<$field>> = OnceLock::new();
            static FIXED_BASEPOINT: OnceLock<fixed_base::FixedBaseTable<$field>> =
                OnceLock::new();

            linesig_simd::isa_path!($features);

            ladder_steps!($steps, $field);

            /// The plan this backend runs `rules` on.
            pub(crate) fn plan(rules: Rules) -> Plan {
                let plan: fn(Rules) -> Plan = $plan;
                plan(rules)
            }

            kernels! {
                fn verify_groups_here(
                    plan: Plan,
                    rules: Rules,
                    lanes: usize,
                    entries: &[UnitEntry<'_>],
                    groups: &[Range<usize>],
                    out: &mut [Verdict],
                    clock: &mut impl StageClock,
                ) {
                    let base = BASE_TABLES
                        .get_or_init(|| base_tables(&Constants::<$field>::new(), $base_radix));
                    // SAFETY: this function runs only where `supported()` held (its
                    // callers check).
                    let steps = unsafe { ladder_steps() };
                    let ladder = Ladder { steps, base };
                    verify_entries::<$field, $words, $key_vectors>(
                        ladder, plan, rules, lanes, entries, groups, out, clock,
                    )
                }
            }

            /// As [`verify_groups`] on `plan`, timing each stage into `clock`; `false`
            /// (and nothing verified) where the CPU cannot run the backend.
            #[cfg(any(test, feature = "profile"))]
            pub(crate) fn profile_groups(
                plan: Plan,
                rules: Rules,
                entries: &[UnitEntry<'_>],
                groups: &[Range<usize>],
                out: &mut [Verdict],
                clock: &mut CycleClock,
            ) -> bool {
                if !supported() {
                    return false;
                }
                // SAFETY: the CPU has the target features, checked just above.
                unsafe { verify_groups_here(plan, rules, usize::MAX, entries, groups, out, clock) };
                true
            }

            kernels! {
                fn verify_hot_here(
                    rules: Rules,
                    lanes: usize,
                    cache: &KeyCache,
                    entries: &[UnitEntry<'_>],
                    groups: Vec<Range<usize>>,
                    out: &mut [Verdict],
                ) -> Vec<Range<usize>> {
                    let base = FIXED_BASEPOINT.get_or_init(fixed_base::basepoint_table::<$field>);
                    // SAFETY: this function runs only where `supported()` held (its caller
                    // checks).
                    let steps = unsafe { ladder_steps() };
                    let ladder = Ladder { steps, base };
                    fixed_base::verify_hot_groups::<$field, $words>(
                        ladder, rules, lanes, cache, entries, groups, out,
                    )
                }
            }

            /// Verify on this backend. The engine selects it only where [`supported`]
            /// holds; should it ever be called elsewhere it verifies on the reference
            /// path instead of executing unsupported instructions.
            pub(crate) fn verify_groups(
                rules: Rules,
                lanes: usize,
                entries: &[UnitEntry<'_>],
                groups: &[Range<usize>],
                out: &mut [Verdict],
            ) {
                if supported() {
                    // SAFETY: the CPU has the target features, checked just above.
                    unsafe {
                        verify_groups_here(plan(rules), rules, lanes, entries, groups, out, &mut ())
                    }
                } else {
                    crate::ed25519::reference::verify_groups(rules, entries, groups, out)
                }
            }

            kernels! {
                fn verify_batched_here(
                    rules: Rules,
                    cache: Option<&KeyCache>,
                    entries: &[UnitEntry<'_>],
                    groups: &[Range<usize>],
                    coefficients: &Coefficients,
                    whole_first: bool,
                    out: &mut [Verdict],
                ) -> Settled {
                    batch_equation::verify::<$field, $words, $key_vectors>(
                        rules, cache, entries, groups, coefficients, whole_first, out,
                    )
                }
            }

            /// The batch equation over the groups (a cofactored policy's), reading
            /// the tables of cached keys, or `None` (nothing settled) where
            /// [`supported`] fails.
            pub(crate) fn verify_batched(
                rules: Rules,
                cache: Option<&KeyCache>,
                entries: &[UnitEntry<'_>],
                groups: &[Range<usize>],
                coefficients: &Coefficients,
                whole_first: bool,
                out: &mut [Verdict],
            ) -> Option<Settled> {
                // SAFETY: the CPU has the target features, checked first.
                supported().then(|| unsafe {
                    verify_batched_here(rules, cache, entries, groups, coefficients, whole_first, out)
                })
            }

            /// Verify the groups of cached (or newly admitted) keys on fixed-base
            /// tables; return the rest (all of them where [`supported`] fails).
            pub(crate) fn verify_hot(
                rules: Rules,
                lanes: usize,
                cache: &KeyCache,
                entries: &[UnitEntry<'_>],
                groups: Vec<Range<usize>>,
                out: &mut [Verdict],
            ) -> Vec<Range<usize>> {
                if supported() {
                    // SAFETY: the CPU has the target features, checked just above.
                    unsafe { verify_hot_here(rules, lanes, cache, entries, groups, out) }
                } else {
                    groups
                }
            }

            /// Bytes of one hot key's table on this backend.
            pub(crate) fn key_table_bytes() -> usize {
                fixed_base::key_table_bytes::<$field>()
            }
        }
    };
}

/// The portable instantiation, one signature at a time in plain 64-bit integers: the
/// reference backend verifies hot keys on it (the rest on curve25519-dalek).
pub(crate) mod portable {
    use super::*;
    use crate::ed25519::field::portable::Fe1;
    use crate::ed25519::sha512::portable::Words1;
    use std::sync::OnceLock;

    static FIXED_BASEPOINT: OnceLock<fixed_base::FixedBaseTable<Fe1>> = OnceLock::new();

    /// As the vector backends' `verify_hot`.
    pub(crate) fn verify_hot(
        rules: Rules,
        cache: &KeyCache,
        entries: &[UnitEntry<'_>],
        groups: Vec<Range<usize>>,
        out: &mut [Verdict],
    ) -> Vec<Range<usize>> {
        let base = FIXED_BASEPOINT.get_or_init(fixed_base::basepoint_table::<Fe1>);
        let ladder = Ladder {
            steps: InlineSteps,
            base,
        };
        fixed_base::verify_hot_groups::<Fe1, Words1>(ladder, rules, 1, cache, entries, groups, out)
    }

    /// Bytes of one hot key's table.
    pub(crate) fn key_table_bytes() -> usize {
        fixed_base::key_table_bytes::<Fe1>()
    }

    /// As the vector backends' `verify_batched`: one lane, one window per vector.
    pub(crate) fn verify_batched(
        rules: Rules,
        cache: Option<&KeyCache>,
        entries: &[UnitEntry<'_>],
        groups: &[Range<usize>],
        coefficients: &Coefficients,
        whole_first: bool,
        out: &mut [Verdict],
    ) -> Option<Settled> {
        Some(batch_equation::verify::<Fe1, Words1, 3>(
            rules,
            cache,
            entries,
            groups,
            coefficients,
            whole_first,
            out,
        ))
    }
}

lane_backend!(
    /// The AVX2 instantiation: four signatures per vector.
    avx2,
    crate::ed25519::field::avx2::Fe4,
    linesig_simd::u64x4::U64x4,
    "avx2",
    inline,
    3,
    BaseRadix::Bits8,
    |_| Plan::HalfSize
);

lane_backend!(
    /// The AVX-512 IFMA instantiation: eight signatures per vector.
    avx512,
    crate::ed25519::field::avx512::Fe8,
    linesig_simd::u64x8::U64x8,
    "avx2,avx512f,avx512bw,avx512dq,avx512ifma",
    out_of_line,
    4,
    BaseRadix::Bits12,
    |_| Plan::HalfSize
);
