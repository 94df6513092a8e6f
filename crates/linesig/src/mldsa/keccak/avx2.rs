//! Four Keccak states per `__m256i`: lane i of every word belongs to state i.
//!
//! Safety: `KeccakAvx2` values are made only by code reached from an AVX2 backend's
//! entry point, which runs after this path's `supported()` held.

use super::KeccakLanes;
use core::arch::x86_64::*;

linesig_simd::isa_path!("avx2");

#[derive(Clone, Copy)]
pub(crate) struct KeccakAvx2(__m256i);

impl KeccakLanes for KeccakAvx2 {
    super::simd_permute!(KeccakAvx2);

    const N: usize = 4;

    #[inline(always)]
    fn from_words(words: &[u64]) -> Self {
        let words = &words[..4];
        // SAFETY (every method): see the module note; the slice above has 4 words.
        KeccakAvx2(unsafe { _mm256_loadu_si256(words.as_ptr().cast()) })
    }

    #[inline(always)]
    fn to_words(self, words: &mut [u64]) {
        let words = &mut words[..4];
        unsafe { _mm256_storeu_si256(words.as_mut_ptr().cast(), self.0) }
    }

    #[inline(always)]
    fn splat(x: u64) -> Self {
        KeccakAvx2(unsafe { _mm256_set1_epi64x(x as i64) })
    }

    #[inline(always)]
    fn xor(self, rhs: Self) -> Self {
        KeccakAvx2(unsafe { _mm256_xor_si256(self.0, rhs.0) })
    }

    #[inline(always)]
    fn andnot(self, rhs: Self) -> Self {
        KeccakAvx2(unsafe { _mm256_andnot_si256(self.0, rhs.0) })
    }

    #[inline(always)]
    fn rotl<const L: i32, const R: i32>(self) -> Self {
        // AVX2 has no 64-bit rotate: two immediate shifts and an or.
        unsafe {
            let left = _mm256_slli_epi64::<L>(self.0);
            KeccakAvx2(_mm256_or_si256(left, _mm256_srli_epi64::<R>(self.0)))
        }
    }
}
