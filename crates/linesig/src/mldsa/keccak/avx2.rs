//! Four Keccak states per `__m256i`: lane i of every word belongs to state i.
//!
//! The states are linesig-simd's `U64x4`, whose safety argument is made there once: its
//! values are made only by code reached from this path's kernels, after its
//! `supported()` held.

use super::KeccakLanes;
use core::arch::x86_64::*;
use linesig_simd::u64x4::U64x4;

linesig_simd::isa_path!("avx2");

impl KeccakLanes for U64x4 {
    super::simd_permute!(U64x4);

    const N: usize = 4;

    #[inline(always)]
    fn from_words(words: &[u64]) -> Self {
        U64x4::load(words)
    }

    #[inline(always)]
    fn to_words(self, words: &mut [u64]) {
        self.store(words)
    }

    #[inline(always)]
    fn splat(x: u64) -> Self {
        U64x4::splat(x)
    }

    #[inline(always)]
    fn xor(self, rhs: Self) -> Self {
        U64x4(unsafe { _mm256_xor_si256(self.0, rhs.0) })
    }

    #[inline(always)]
    fn andnot(self, rhs: Self) -> Self {
        U64x4(unsafe { _mm256_andnot_si256(self.0, rhs.0) })
    }

    #[inline(always)]
    fn rotl<const L: i32, const R: i32>(self) -> Self {
        // AVX2 has no 64-bit rotate: two immediate shifts and an or.
        unsafe {
            let left = _mm256_slli_epi64::<L>(self.0);
            U64x4(_mm256_or_si256(left, _mm256_srli_epi64::<R>(self.0)))
        }
    }
}
