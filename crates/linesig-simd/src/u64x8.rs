//! Eight u64 lanes per `__m512i` (AVX-512F): [`U64x8`], the vector type of the
//! eight-lane hashes (ML-DSA's Keccak states, Ed25519's SHA-512 words) and of Paillier's
//! IFMA kernel, and the raw shims more than one scheme's kernels share (Ed25519's IFMA
//! field and its SHA-512).
//!
//! Each shim is a kernel of this AVX-512F path: a safe function with `avx512f` enabled, which
//! a kernel compiled with AVX-512F (or more, such as IFMA) calls, and inlines, without
//! `unsafe`.

use core::arch::x86_64::*;

crate::isa_path!("avx512f");

kernels! {
    /// Every lane `x`.
    ///
    /// # Safety
    /// The CPU has AVX-512F ([`supported`]); a caller compiled with it needs no `unsafe`.
    #[inline]
    pub fn splat(x: u64) -> __m512i {
        _mm512_set1_epi64(x as i64)
    }

    /// Lane-wise `a + b`, wrapping.
    ///
    /// # Safety
    /// The CPU has AVX-512F ([`supported`]); a caller compiled with it needs no `unsafe`.
    #[inline]
    pub fn add(a: __m512i, b: __m512i) -> __m512i {
        _mm512_add_epi64(a, b)
    }

    /// Lane i from `a` where bit i of `mask` is set, else from `b`.
    ///
    /// # Safety
    /// The CPU has AVX-512F ([`supported`]); a caller compiled with it needs no `unsafe`.
    #[inline]
    pub fn blend(mask: u8, a: __m512i, b: __m512i) -> __m512i {
        // The blend takes its second operand where the mask bit is set.
        _mm512_mask_blend_epi64(mask, b, a)
    }
}

/// Eight 64-bit lanes, lane i in bits 64i..64i+64: the vector type of the
/// multi-buffer hashes (SHA-512's words, Keccak's states) and of Paillier's 52-bit limbs.
///
/// Safety, for this type once: a `U64x8` is made only by code reached from a kernel of an
/// AVX-512F path (or more), which runs after that path's `supported()` held (the schemes'
/// lane traits are used by nothing else), so the intrinsics of its methods, and of the
/// schemes' impls over it, execute only on CPUs with AVX-512F.
#[derive(Clone, Copy)]
#[repr(transparent)]
pub struct U64x8(pub __m512i);

impl U64x8 {
    pub const LANES: usize = 8;

    /// Every lane `x`.
    #[inline(always)]
    pub fn splat(x: u64) -> Self {
        // SAFETY: the type's note.
        U64x8(unsafe { _mm512_set1_epi64(x as i64) })
    }

    /// Lanes from `words[..8]` (panics if shorter).
    #[inline(always)]
    pub fn load(words: &[u64]) -> Self {
        let words = &words[..8];
        // SAFETY: 8 readable words (the slice above), unaligned load; the type's note.
        U64x8(unsafe { _mm512_loadu_si512(words.as_ptr().cast()) })
    }

    /// Lanes into `words[..8]` (panics if shorter).
    #[inline(always)]
    pub fn store(self, words: &mut [u64]) {
        let words = &mut words[..8];
        // SAFETY: 8 writable words (the slice above), unaligned store; the type's note.
        unsafe { _mm512_storeu_si512(words.as_mut_ptr().cast(), self.0) }
    }
}
