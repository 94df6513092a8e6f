//! Eight Keccak states per `__m512i` (AVX-512F, whose `vprolq` rotates in one
//! instruction): lane i of every word belongs to state i.
//!
//! Safety: `KeccakAvx512` values are made only by code reached from an AVX-512
//! backend's entry point, which runs after this path's `supported()` held.

use super::KeccakLanes;
use core::arch::x86_64::*;

linesig_simd::isa_path!("avx512f");

#[derive(Clone, Copy)]
pub(crate) struct KeccakAvx512(__m512i);

impl KeccakLanes for KeccakAvx512 {
    super::simd_permute!(KeccakAvx512);

    const N: usize = 8;

    #[inline(always)]
    fn from_words(words: &[u64]) -> Self {
        let words = &words[..8];
        // SAFETY (every method): see the module note; the slice above has 8 words.
        KeccakAvx512(unsafe { _mm512_loadu_si512(words.as_ptr().cast()) })
    }

    #[inline(always)]
    fn to_words(self, words: &mut [u64]) {
        let words = &mut words[..8];
        unsafe { _mm512_storeu_si512(words.as_mut_ptr().cast(), self.0) }
    }

    #[inline(always)]
    fn splat(x: u64) -> Self {
        KeccakAvx512(unsafe { _mm512_set1_epi64(x as i64) })
    }

    #[inline(always)]
    fn xor(self, rhs: Self) -> Self {
        KeccakAvx512(unsafe { _mm512_xor_epi64(self.0, rhs.0) })
    }

    #[inline(always)]
    fn andnot(self, rhs: Self) -> Self {
        KeccakAvx512(unsafe { _mm512_andnot_epi64(self.0, rhs.0) })
    }

    #[inline(always)]
    fn rotl<const L: i32, const R: i32>(self) -> Self {
        KeccakAvx512(unsafe { _mm512_rol_epi64::<L>(self.0) })
    }
}
