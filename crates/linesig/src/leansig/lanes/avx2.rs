//! Eight KoalaBear elements per `__m256i` (AVX2), one u32 per lane.
//!
//! Montgomery products take `vpmuludq` on the even lanes and on the odd lanes shifted
//! down: t = a·b, q = lo32(t)·p⁻¹, and hi32(t) − hi32(q·p) is the exact result in
//! (−p, p) because the low halves cancel; `vpminud` against r + p brings it to [0, p).
//!
//! Safety: `Avx2` values are made only inside the kernels of `simd_permutations!`, which
//! assert `is_x86_feature_detected!("avx2")` first.

use super::{simd_permutations, KoalaLanes, P, P_INV};
use core::arch::x86_64::*;

#[derive(Clone, Copy)]
pub(crate) struct Avx2(__m256i);

pub(crate) fn supported() -> bool {
    is_x86_feature_detected!("avx2")
}

// Every function executing AVX2 instructions carries the target feature itself; the
// trait methods are `#[inline(always)]` shims that inline into the kernels.

#[target_feature(enable = "avx2")]
#[inline]
fn add(a: __m256i, b: __m256i) -> __m256i {
    // a, b < p < 2^31: the sum fits; min(s, s − p) picks s − p exactly when s ≥ p.
    let s = _mm256_add_epi32(a, b);
    _mm256_min_epu32(s, _mm256_sub_epi32(s, _mm256_set1_epi32(P as i32)))
}

#[target_feature(enable = "avx2")]
#[inline]
fn mul(a: __m256i, b: __m256i) -> __m256i {
    let p = _mm256_set1_epi32(P as i32);
    let p_inv = _mm256_set1_epi32(P_INV as i32);
    let t_even = _mm256_mul_epu32(a, b);
    let t_odd = _mm256_mul_epu32(_mm256_srli_epi64::<32>(a), _mm256_srli_epi64::<32>(b));
    let qp_even = _mm256_mul_epu32(_mm256_mul_epu32(t_even, p_inv), p);
    let qp_odd = _mm256_mul_epu32(_mm256_mul_epu32(t_odd, p_inv), p);
    // High halves: the odd products already sit there, the even ones shift up.
    let t_hi = _mm256_blend_epi32::<0xAA>(_mm256_srli_epi64::<32>(t_even), t_odd);
    let qp_hi = _mm256_blend_epi32::<0xAA>(_mm256_srli_epi64::<32>(qp_even), qp_odd);
    let r = _mm256_sub_epi32(t_hi, qp_hi);
    _mm256_min_epu32(r, _mm256_add_epi32(r, p))
}

impl KoalaLanes for Avx2 {
    const N: usize = 8;

    #[inline(always)]
    fn splat(x: u32) -> Self {
        // SAFETY: see the module note.
        Avx2(unsafe { _mm256_set1_epi32(x as i32) })
    }
    #[inline(always)]
    fn load(x: &[u32]) -> Self {
        assert!(x.len() >= 8);
        // SAFETY: eight u32 are in bounds (asserted); unaligned load.
        Avx2(unsafe { _mm256_loadu_si256(x.as_ptr().cast()) })
    }
    #[inline(always)]
    fn store(self, out: &mut [u32]) {
        assert!(out.len() >= 8);
        // SAFETY: as for `load`.
        unsafe { _mm256_storeu_si256(out.as_mut_ptr().cast(), self.0) }
    }
    #[inline(always)]
    fn add(self, other: Self) -> Self {
        // SAFETY: see the module note.
        Avx2(unsafe { add(self.0, other.0) })
    }
    #[inline(always)]
    fn mul(self, other: Self) -> Self {
        // SAFETY: see the module note.
        Avx2(unsafe { mul(self.0, other.0) })
    }

    simd_permutations!(Avx2, "avx2", supported);
}
