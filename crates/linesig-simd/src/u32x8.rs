//! Eight 32-bit lanes per `__m256i` (AVX2): the vector type that ML-DSA's coefficient
//! lanes and leanSig's KoalaBear lanes are both implemented over, with the shims they
//! share (splat, load, store). Each scheme adds its own arithmetic as kernels of its
//! own AVX2 path.
//!
//! Safety: argued once for every vector type, at `vector_type!`.

use core::arch::x86_64::*;

crate::vector::vector_type!(
    /// Eight 32-bit lanes, lane i in bits 32i..32i+32.
    U32x8(__m256i): 8 lanes of Word32, "avx2",
    _mm256_set1_epi32, _mm256_loadu_si256, _mm256_storeu_si256
);
