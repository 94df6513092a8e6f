//! Sixteen 32-bit lanes per `__m512i` (AVX-512F): the vector type that ML-DSA's coefficient
//! lanes and leanSig's KoalaBear lanes are both implemented over, with the shims they
//! share (splat, load, store). Each scheme adds its own arithmetic as kernels of its
//! own AVX-512 path.
//!
//! Safety, for this type once: a `U32x16` is made only by code reached from an AVX-512F path's
//! kernels, which run after that path's `supported()` held (the schemes' lane traits
//! are used by nothing else), so the intrinsics of its methods execute only on CPUs
//! with AVX-512F.

use crate::word::Word32;
use core::arch::x86_64::*;

/// Sixteen 32-bit lanes, lane i in bits 32i..32i+32.
#[derive(Clone, Copy)]
#[repr(transparent)]
pub struct U32x16(pub __m512i);

impl U32x16 {
    pub const LANES: usize = 16;

    /// Every lane `x`.
    #[inline(always)]
    pub fn splat<W: Word32>(x: W) -> Self {
        // SAFETY: the module note.
        U32x16(unsafe { _mm512_set1_epi32(x.bits()) })
    }

    /// Lanes from `words[..16]` (panics if shorter).
    #[inline(always)]
    pub fn load<W: Word32>(words: &[W]) -> Self {
        let words = &words[..16];
        // SAFETY: 16 readable 4-byte words (the slice above), unaligned load; the module
        // note.
        U32x16(unsafe { _mm512_loadu_si512(words.as_ptr().cast()) })
    }

    /// Lanes into `words[..16]` (panics if shorter).
    #[inline(always)]
    pub fn store<W: Word32>(self, words: &mut [W]) {
        let words = &mut words[..16];
        // SAFETY: 16 writable 4-byte words (the slice above), unaligned store; the module
        // note.
        unsafe { _mm512_storeu_si512(words.as_mut_ptr().cast(), self.0) }
    }
}
