//! Four u64 lanes per `__m256i` (AVX2): [`U64x4`], the vector type of the four-lane
//! hashes (ML-DSA's Keccak states, Ed25519's SHA-512 words), and the raw shims more than
//! one scheme's kernels share (Ed25519's field and its SHA-512).
//!
//! Each shim is a kernel of this AVX2 path: a safe function with `avx2` enabled, which a
//! kernel compiled with AVX2 (or more) calls, and inlines, without `unsafe`.

use core::arch::x86_64::*;

crate::isa_path!("avx2");

kernels! {
    /// Every lane `x`.
    ///
    /// # Safety
    /// The CPU has AVX2 ([`supported`]); a caller compiled with it needs no `unsafe`.
    #[inline]
    pub fn splat(x: u64) -> __m256i {
        _mm256_set1_epi64x(x as i64)
    }

    /// Lane-wise `a + b`, wrapping.
    ///
    /// # Safety
    /// The CPU has AVX2 ([`supported`]); a caller compiled with it needs no `unsafe`.
    #[inline]
    pub fn add(a: __m256i, b: __m256i) -> __m256i {
        _mm256_add_epi64(a, b)
    }

    /// Lane i from `a` where bit i of `mask` is set, else from `b`.
    ///
    /// # Safety
    /// The CPU has AVX2 ([`supported`]); a caller compiled with it needs no `unsafe`.
    #[inline]
    pub fn blend(mask: u8, a: __m256i, b: __m256i) -> __m256i {
        // Lane i all-ones where bit i of `mask` is set.
        let m = |i: u8| if mask >> i & 1 == 1 { -1i64 } else { 0 };
        _mm256_blendv_epi8(b, a, _mm256_set_epi64x(m(3), m(2), m(1), m(0)))
    }
}

/// Four 64-bit lanes, lane i in bits 64i..64i+64: the vector type of the
/// multi-buffer hashes (SHA-512's words, Keccak's states).
///
/// Safety, for this type once: a `U64x4` is made only by code reached from a kernel of an
/// AVX2 path (or more), which runs after that path's `supported()` held (the schemes'
/// lane traits are used by nothing else), so the intrinsics of its methods, and of the
/// schemes' impls over it, execute only on CPUs with AVX2.
#[derive(Clone, Copy)]
#[repr(transparent)]
pub struct U64x4(pub __m256i);

impl U64x4 {
    pub const LANES: usize = 4;

    /// Every lane `x`.
    #[inline(always)]
    pub fn splat(x: u64) -> Self {
        // SAFETY: the type's note.
        U64x4(unsafe { _mm256_set1_epi64x(x as i64) })
    }

    /// Lanes from `words[..4]` (panics if shorter).
    #[inline(always)]
    pub fn load(words: &[u64]) -> Self {
        let words = &words[..4];
        // SAFETY: 4 readable words (the slice above), unaligned load; the type's note.
        U64x4(unsafe { _mm256_loadu_si256(words.as_ptr().cast()) })
    }

    /// Lanes into `words[..4]` (panics if shorter).
    #[inline(always)]
    pub fn store(self, words: &mut [u64]) {
        let words = &mut words[..4];
        // SAFETY: 4 writable words (the slice above), unaligned store; the type's note.
        unsafe { _mm256_storeu_si256(words.as_mut_ptr().cast(), self.0) }
    }
}
