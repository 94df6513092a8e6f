//! Eight 32-bit lanes per `__m256i` (AVX2): the vector type that ML-DSA's coefficient
//! lanes and leanSig's KoalaBear lanes are both implemented over, with the shims they
//! share (splat, load, store). Each scheme adds its own arithmetic as kernels of its
//! own AVX2 path.
//!
//! Safety, for this type once: a `U32x8` is made only by code reached from an AVX2 path's
//! kernels, which run after that path's `supported()` held (the schemes' lane traits
//! are used by nothing else), so the intrinsics of its methods execute only on CPUs
//! with AVX2.

use crate::word::Word32;
use core::arch::x86_64::*;

/// Eight 32-bit lanes, lane i in bits 32i..32i+32.
#[derive(Clone, Copy)]
#[repr(transparent)]
pub struct U32x8(pub __m256i);

impl U32x8 {
    pub const LANES: usize = 8;

    /// Every lane `x`.
    #[inline(always)]
    pub fn splat<W: Word32>(x: W) -> Self {
        // SAFETY: the module note.
        U32x8(unsafe { _mm256_set1_epi32(x.bits()) })
    }

    /// Lanes from `words[..8]` (panics if shorter).
    #[inline(always)]
    pub fn load<W: Word32>(words: &[W]) -> Self {
        let words = &words[..8];
        // SAFETY: 8 readable 4-byte words (the slice above), unaligned load; the module
        // note.
        U32x8(unsafe { _mm256_loadu_si256(words.as_ptr().cast()) })
    }

    /// Lanes into `words[..8]` (panics if shorter).
    #[inline(always)]
    pub fn store<W: Word32>(self, words: &mut [W]) {
        let words = &mut words[..8];
        // SAFETY: 8 writable 4-byte words (the slice above), unaligned store; the module
        // note.
        unsafe { _mm256_storeu_si256(words.as_mut_ptr().cast(), self.0) }
    }
}
