//! Sixteen 32-bit lanes per `__m512i` (AVX-512F): the vector type that ML-DSA's coefficient
//! lanes and leanSig's KoalaBear lanes are both implemented over, with the shims they
//! share (splat, load, store). Each scheme adds its own arithmetic as kernels of its
//! own AVX-512 path.
//!
//! Safety: argued once for every vector type, at `vector_type!`.

use core::arch::x86_64::*;

crate::vector::vector_type!(
    /// Sixteen 32-bit lanes, lane i in bits 32i..32i+32.
    U32x16(__m512i): 16 lanes of Word32, "avx512f",
    _mm512_set1_epi32, _mm512_loadu_si512, _mm512_storeu_si512
);
