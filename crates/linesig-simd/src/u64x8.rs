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

crate::vector::vector_type!(
    /// Eight 64-bit lanes, lane i in bits 64i..64i+64: the vector type of the eight-lane
    /// hashes (SHA-512's words, Keccak's states) and of Paillier's 52-bit limbs.
    U64x8(__m512i): 8 lanes of Word64, "avx512f",
    _mm512_set1_epi64, _mm512_loadu_si512, _mm512_storeu_si512
);
