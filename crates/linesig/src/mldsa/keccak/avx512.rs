//! Eight Keccak states per `__m512i` (AVX-512F, whose `vprolq` rotates in one
//! instruction): lane i of every word belongs to state i.
//!
//! The states are linesig-simd's `U64x8`, whose safety argument is made there once: its
//! values are made only by code reached from this path's kernels, after its
//! `supported()` held.

use super::KeccakLanes;
use core::arch::x86_64::*;
use linesig_simd::u64x8::U64x8;

linesig_simd::isa_path!("avx512f");

impl KeccakLanes for U64x8 {
    super::simd_permute!(U64x8);

    const N: usize = 8;

    #[inline(always)]
    fn from_words(words: &[u64]) -> Self {
        U64x8::load(words)
    }

    #[inline(always)]
    fn to_words(self, words: &mut [u64]) {
        self.store(words)
    }

    #[inline(always)]
    fn splat(x: u64) -> Self {
        U64x8::splat(x)
    }

    #[inline(always)]
    fn xor(self, rhs: Self) -> Self {
        U64x8(unsafe { _mm512_xor_epi64(self.0, rhs.0) })
    }

    #[inline(always)]
    fn andnot(self, rhs: Self) -> Self {
        U64x8(unsafe { _mm512_andnot_epi64(self.0, rhs.0) })
    }

    #[inline(always)]
    fn rotl<const L: i32, const R: i32>(self) -> Self {
        U64x8(unsafe { _mm512_rol_epi64::<L>(self.0) })
    }
}
