//! Sixteen KoalaBear elements per `__m512i` (AVX-512F), one u32 per lane.
//!
//! Montgomery products take `vpmuludq` on the even lanes (zmm) and on the odd lanes shifted
//! down: t = a·b, q = lo32(t)·p⁻¹, and hi32(t) − hi32(q·p) is the exact result in
//! (−p, p) because the low halves cancel; `vpminud` against r + p brings it to [0, p).
//!
//! The lanes are linesig-simd's `U32x16` (safety argued there once: its values are made
//! only inside the kernels of `simd_permutations!`, which assert this path's
//! `supported()` first).

use super::{simd_permutations, KoalaLanes, P, P_INV};
use core::arch::x86_64::*;
use linesig_simd::u32x16::U32x16;

linesig_simd::isa_path!("avx512f");

// Every function executing these instructions is one of the path's `kernels!`; the
// trait methods are `#[inline(always)]` shims that inline into the kernels.

kernels! {
    #[inline]
    fn add(a: __m512i, b: __m512i) -> __m512i {
        // a, b < p < 2^31: the sum fits; min(s, s − p) picks s − p exactly when s ≥ p.
        let s = _mm512_add_epi32(a, b);
        _mm512_min_epu32(s, _mm512_sub_epi32(s, _mm512_set1_epi32(P as i32)))
    }

    #[inline]
    fn sub(a: __m512i, b: __m512i) -> __m512i {
        // d = a − b wraps below zero exactly when a < b; min(d, d + p) picks d + p then.
        let d = _mm512_sub_epi32(a, b);
        _mm512_min_epu32(d, _mm512_add_epi32(d, _mm512_set1_epi32(P as i32)))
    }

    /// Montgomery reduction of eight (sixteen) 64-bit sums v < 2^32·p, held as the even
    /// lanes' sums in `even` and the odd lanes' in `odd`: r = (v − q·p)/2^32 with
    /// q = lo32(v)·p⁻¹, exact because the low halves cancel, in (−p, p), then [0, p).
    #[inline]
    fn reduce(even: __m512i, odd: __m512i) -> __m512i {
        let p = _mm512_set1_epi32(P as i32);
        let low = _mm512_mask_blend_epi32(0xAAAA, even, _mm512_slli_epi64::<32>(odd));
        let q = _mm512_mullo_epi32(low, _mm512_set1_epi32(P_INV as i32));
        let qp_even = _mm512_mul_epu32(q, p);
        let qp_odd = _mm512_mul_epu32(_mm512_srli_epi64::<32>(q), p);
        let high = _mm512_mask_blend_epi32(0xAAAA, _mm512_srli_epi64::<32>(even), odd);
        let qp_high = _mm512_mask_blend_epi32(0xAAAA, _mm512_srli_epi64::<32>(qp_even), qp_odd);
        let r = _mm512_sub_epi32(high, qp_high);
        _mm512_min_epu32(r, _mm512_add_epi32(r, p))
    }

    /// The first `x.len()` (< 16) lanes from `x`, the rest zero. A masked load reads, and
    /// can fault on, only the lanes its mask selects: all inside `x`.
    #[inline]
    fn load_partial(x: &[u32]) -> __m512i {
        assert!(x.len() < 16);
        let mask = (1u16 << x.len()) - 1;
        // SAFETY: the mask selects x.len() lanes from x's start, all in bounds.
        unsafe { _mm512_maskz_loadu_epi32(mask, x.as_ptr().cast()) }
    }

    /// The first `out.len()` (< 16) lanes into `out`; a masked store writes only those.
    #[inline]
    fn store_partial(v: __m512i, out: &mut [u32]) {
        assert!(out.len() < 16);
        let mask = (1u16 << out.len()) - 1;
        // SAFETY: the mask selects out.len() lanes from out's start, all in bounds.
        unsafe { _mm512_mask_storeu_epi32(out.as_mut_ptr().cast(), mask, v) }
    }

    /// [`super::div_2exp_scalar`] on every lane.
    #[inline]
    fn div_2exp(x: __m512i, k: u32) -> __m512i {
        let p = _mm512_set1_epi32(P as i32);
        let t = _mm512_and_si512(
            _mm512_sub_epi32(_mm512_setzero_si512(), x),
            _mm512_set1_epi32(((1u32 << k) - 1) as i32),
        );
        let shifted = _mm512_srl_epi32(_mm512_add_epi32(x, t), _mm_cvtsi32_si128(k as i32));
        let y = _mm512_add_epi32(
            shifted,
            _mm512_mullo_epi32(t, _mm512_set1_epi32((127u32 << (24 - k)) as i32)),
        );
        _mm512_min_epu32(y, _mm512_sub_epi32(y, p))
    }

    #[inline]
    fn mul(a: __m512i, b: __m512i) -> __m512i {
        let even = _mm512_mul_epu32(a, b);
        let odd = _mm512_mul_epu32(_mm512_srli_epi64::<32>(a), _mm512_srli_epi64::<32>(b));
        reduce(even, odd)
    }

    /// Σ x_j·c_j with one reduction per two products: two products of values below p sum
    /// below 2p² < 2^32·p, inside [`reduce`]'s range. A broadcast constant sits in every
    /// 32-bit lane, so `vpmuludq` finds it under the odd lanes too without a shift.
    #[inline]
    fn dot(x: &[U32x16], c: &[u32]) -> __m512i {
        let mut acc = _mm512_setzero_si512();
        let product = |x: __m512i, c: u32| {
            let c = _mm512_set1_epi32(c as i32);
            (
                _mm512_mul_epu32(x, c),
                _mm512_mul_epu32(_mm512_srli_epi64::<32>(x), c),
            )
        };
        let mut pairs = x.chunks_exact(2);
        for (pair, c) in (&mut pairs).zip(c.chunks_exact(2)) {
            let (e0, o0) = product(pair[0].0, c[0]);
            let (e1, o1) = product(pair[1].0, c[1]);
            let r = reduce(_mm512_add_epi64(e0, e1), _mm512_add_epi64(o0, o1));
            acc = add(acc, r);
        }
        if let [last] = pairs.remainder() {
            let (e, o) = product(last.0, c[x.len() - 1]);
            acc = add(acc, reduce(e, o));
        }
        acc
    }
}

impl KoalaLanes for U32x16 {
    const N: usize = 16;

    #[inline(always)]
    fn splat(x: u32) -> Self {
        U32x16::splat(x)
    }
    #[inline(always)]
    fn load(x: &[u32]) -> Self {
        U32x16::load(x)
    }
    #[inline(always)]
    fn store(self, out: &mut [u32]) {
        self.store(out)
    }
    #[inline(always)]
    fn load_partial(x: &[u32]) -> Self {
        // SAFETY: see the module note.
        U32x16(unsafe { load_partial(x) })
    }
    #[inline(always)]
    fn store_partial(self, out: &mut [u32]) {
        // SAFETY: see the module note.
        unsafe { store_partial(self.0, out) }
    }
    #[inline(always)]
    fn add(self, other: Self) -> Self {
        // SAFETY: see the module note.
        U32x16(unsafe { add(self.0, other.0) })
    }
    #[inline(always)]
    fn sub(self, other: Self) -> Self {
        // SAFETY: see the module note.
        U32x16(unsafe { sub(self.0, other.0) })
    }
    #[inline(always)]
    fn dot(x: &[Self], c: &[u32]) -> Self {
        assert_eq!(x.len(), c.len());
        // SAFETY: see the module note.
        U32x16(unsafe { dot(x, c) })
    }
    #[inline(always)]
    fn div_2exp(self, k: u32) -> Self {
        // SAFETY: see the module note.
        U32x16(unsafe { div_2exp(self.0, k) })
    }
    #[inline(always)]
    fn mul(self, other: Self) -> Self {
        // SAFETY: see the module note.
        U32x16(unsafe { mul(self.0, other.0) })
    }

    simd_permutations!(U32x16);
}
