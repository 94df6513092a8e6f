//! The kernel's lanes on AVX-512 IFMA: one `__m512i`, lane i belonging to exponentiation
//! i; `madd52lo`/`madd52hi` are `vpmadd52luq`/`vpmadd52huq` themselves.
//!
//! The kernels (`power_common`, `power_fixed_base`, `to_montgomery`) run the shared code
//! of `montgomery/mod.rs` inside functions compiled with this path's features (one
//! literal, `isa_path!`), so that the `#[inline(always)]` shims below inline into them
//! as single instructions.
//!
//! The lanes are linesig-simd's `U64x8`. Safety, as argued there: its values are made
//! here only by code reached from `Lanes::Ifma` (the `with_lanes!` dispatch in
//! `mod.rs`), which asserts [`supported`] first, and the kernels assert it again; so the
//! intrinsics only execute on CPUs that have them.

use super::{CommonExponent, FixedBase52, Lanes52, SquareModulus52, LANES};
use core::arch::x86_64::*;
use linesig_simd::u64x8::U64x8;

linesig_simd::isa_path!("avx512f,avx512ifma");

// SAFETY (every `unsafe` block in this impl): see the module note; the shims are only
// reached after `supported()`.
impl Lanes52 for U64x8 {
    #[inline(always)]
    fn zero() -> Self {
        U64x8(unsafe { _mm512_setzero_si512() })
    }

    #[inline(always)]
    fn splat(x: u64) -> Self {
        U64x8(unsafe { _mm512_set1_epi64(x as i64) })
    }

    #[inline(always)]
    fn from_array(values: [u64; LANES]) -> Self {
        // SAFETY: also, `values` is 64 readable bytes.
        U64x8(unsafe { _mm512_loadu_si512(values.as_ptr().cast()) })
    }

    #[inline(always)]
    fn to_array(self) -> [u64; LANES] {
        let mut values = [0u64; LANES];
        // SAFETY: also, `values` is 64 writable bytes.
        unsafe { _mm512_storeu_si512(values.as_mut_ptr().cast(), self.0) };
        values
    }

    #[inline(always)]
    fn add(self, rhs: Self) -> Self {
        U64x8(unsafe { _mm512_add_epi64(self.0, rhs.0) })
    }

    #[inline(always)]
    fn sub(self, rhs: Self) -> Self {
        U64x8(unsafe { _mm512_sub_epi64(self.0, rhs.0) })
    }

    #[inline(always)]
    fn and(self, rhs: Self) -> Self {
        U64x8(unsafe { _mm512_and_si512(self.0, rhs.0) })
    }

    #[inline(always)]
    fn or(self, rhs: Self) -> Self {
        U64x8(unsafe { _mm512_or_si512(self.0, rhs.0) })
    }

    #[inline(always)]
    fn shr52(self) -> Self {
        U64x8(unsafe { _mm512_srli_epi64::<52>(self.0) })
    }

    #[inline(always)]
    fn madd52lo(self, a: Self, b: Self) -> Self {
        U64x8(unsafe { _mm512_madd52lo_epu64(self.0, a.0, b.0) })
    }

    #[inline(always)]
    fn madd52hi(self, a: Self, b: Self) -> Self {
        U64x8(unsafe { _mm512_madd52hi_epu64(self.0, a.0, b.0) })
    }

    fn power_common(
        modulus: &SquareModulus52,
        bases: &[Self],
        exponent: &CommonExponent,
        factors: &[Self],
        out: &mut [Self],
    ) {
        kernels! {
            fn kernel(
                modulus: &SquareModulus52,
                bases: &[U64x8],
                exponent: &CommonExponent,
                factors: &[U64x8],
                out: &mut [U64x8],
            ) {
                super::power_common_lanes(modulus, bases, exponent, factors, out)
            }
        }
        assert_supported();
        // SAFETY: the CPU has the features, asserted just above.
        unsafe { kernel(modulus, bases, exponent, factors, out) }
    }

    fn power_fixed_base(
        table: &FixedBase52,
        digits: &[[u32; LANES]],
        factors: &[Self],
        out: &mut [Self],
    ) {
        kernels! {
            fn kernel(
                table: &FixedBase52,
                digits: &[[u32; LANES]],
                factors: &[U64x8],
                out: &mut [U64x8],
            ) {
                super::power_fixed_base_lanes(table, digits, factors, out)
            }
        }
        assert_supported();
        // SAFETY: as above.
        unsafe { kernel(table, digits, factors, out) }
    }

    fn to_montgomery(modulus: &SquareModulus52, values: &[Self], out: &mut [Self]) {
        kernels! {
            fn kernel(modulus: &SquareModulus52, values: &[U64x8], out: &mut [U64x8]) {
                super::to_montgomery_lanes(modulus, values, out)
            }
        }
        assert_supported();
        // SAFETY: as above.
        unsafe { kernel(modulus, values, out) }
    }
}
