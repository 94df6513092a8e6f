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

crate::vector::vector_type!(
    /// Four 64-bit lanes, lane i in bits 64i..64i+64: the vector type of the four-lane
    /// hashes (SHA-512's words, Keccak's states).
    U64x4(__m256i): 4 lanes of Word64, "avx2",
    _mm256_set1_epi64x, _mm256_loadu_si256, _mm256_storeu_si256
);
