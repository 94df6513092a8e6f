//! Eight KoalaBear elements per `__m256i` (AVX2), one u32 per lane.
//!
//! Montgomery products take `vpmuludq` on the even lanes and on the odd lanes shifted
//! down: t = a·b, q = lo32(t)·p⁻¹ (by `vpmulld`, all lanes at once), and
//! hi32(t) − hi32(q·p) is the exact result in (−p, p) because the low halves cancel;
//! `vpminud` against r + p brings it to [0, p).
//!
//! The lanes are linesig-simd's `U32x8` (safety argued there once: its values are made
//! only inside the kernels of `simd_permutations!`, which assert this path's
//! `supported()` first), and `KoalaAvx2x2`, two of them interleaved, under the same
//! argument.

use super::{simd_permutations, KoalaLanes, P, P_INV};
use core::arch::x86_64::*;
use linesig_simd::u32x8::U32x8;

linesig_simd::isa_path!("avx2");

// Every function executing these instructions is one of the path's `kernels!`; the
// trait methods are `#[inline(always)]` shims that inline into the kernels.

kernels! {
    #[inline]
    fn add(a: __m256i, b: __m256i) -> __m256i {
        // a, b < p < 2^31: the sum fits; min(s, s − p) picks s − p exactly when s ≥ p.
        let s = _mm256_add_epi32(a, b);
        _mm256_min_epu32(s, _mm256_sub_epi32(s, _mm256_set1_epi32(P as i32)))
    }

    #[inline]
    fn sub(a: __m256i, b: __m256i) -> __m256i {
        // d = a − b wraps below zero exactly when a < b; min(d, d + p) picks d + p then.
        let d = _mm256_sub_epi32(a, b);
        _mm256_min_epu32(d, _mm256_add_epi32(d, _mm256_set1_epi32(P as i32)))
    }

    /// Montgomery reduction of eight (sixteen) 64-bit sums v < 2^32·p, held as the even
    /// lanes' sums in `even` and the odd lanes' in `odd`: r = (v − q·p)/2^32 with
    /// q = lo32(v)·p⁻¹, exact because the low halves cancel, in (−p, p), then [0, p).
    #[inline]
    fn reduce(even: __m256i, odd: __m256i) -> __m256i {
        let p = _mm256_set1_epi32(P as i32);
        let low = _mm256_blend_epi32::<0xAA>(even, _mm256_slli_epi64::<32>(odd));
        let q = _mm256_mullo_epi32(low, _mm256_set1_epi32(P_INV as i32));
        let qp_even = _mm256_mul_epu32(q, p);
        let qp_odd = _mm256_mul_epu32(_mm256_srli_epi64::<32>(q), p);
        let high = _mm256_blend_epi32::<0xAA>(_mm256_srli_epi64::<32>(even), odd);
        let qp_high = _mm256_blend_epi32::<0xAA>(_mm256_srli_epi64::<32>(qp_even), qp_odd);
        let r = _mm256_sub_epi32(high, qp_high);
        _mm256_min_epu32(r, _mm256_add_epi32(r, p))
    }

    /// [`super::div_2exp_scalar`] on every lane.
    #[inline]
    fn div_2exp(x: __m256i, k: u32) -> __m256i {
        let p = _mm256_set1_epi32(P as i32);
        let t = _mm256_and_si256(
            _mm256_sub_epi32(_mm256_setzero_si256(), x),
            _mm256_set1_epi32(((1u32 << k) - 1) as i32),
        );
        let shifted = _mm256_srl_epi32(_mm256_add_epi32(x, t), _mm_cvtsi32_si128(k as i32));
        let y = _mm256_add_epi32(
            shifted,
            _mm256_mullo_epi32(t, _mm256_set1_epi32((127u32 << (24 - k)) as i32)),
        );
        _mm256_min_epu32(y, _mm256_sub_epi32(y, p))
    }

    /// The first `x.len()` (≤ 8) lanes from `x`, the rest zero. A masked load reads, and
    /// can fault on, only the lanes its mask selects: all inside `x`.
    #[inline]
    fn load_partial(x: &[u32]) -> __m256i {
        assert!(x.len() <= 8);
        // SAFETY: the mask selects x.len() lanes from x's start, all in bounds.
        unsafe { _mm256_maskload_epi32(x.as_ptr().cast(), first_lanes(x.len())) }
    }

    /// The first `out.len()` (≤ 8) lanes into `out`; a masked store writes only those.
    #[inline]
    fn store_partial(v: __m256i, out: &mut [u32]) {
        assert!(out.len() <= 8);
        // SAFETY: the mask selects out.len() lanes from out's start, all in bounds.
        unsafe { _mm256_maskstore_epi32(out.as_mut_ptr().cast(), first_lanes(out.len()), v) }
    }

    /// All ones in the first `n` lanes.
    #[inline]
    fn first_lanes(n: usize) -> __m256i {
        _mm256_cmpgt_epi32(_mm256_set1_epi32(n as i32), _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7))
    }

    #[inline]
    fn mul(a: __m256i, b: __m256i) -> __m256i {
        let even = _mm256_mul_epu32(a, b);
        let odd = _mm256_mul_epu32(_mm256_srli_epi64::<32>(a), _mm256_srli_epi64::<32>(b));
        reduce(even, odd)
    }

    /// Σ x_j·c_j with one reduction per two products: two products of values below p sum
    /// below 2p² < 2^32·p, inside [`reduce`]'s range. A broadcast constant sits in every
    /// 32-bit lane, so `vpmuludq` finds it under the odd lanes too without a shift.
    #[inline]
    fn dot(x: &[U32x8], c: &[u32]) -> __m256i {
        let mut acc = _mm256_setzero_si256();
        let product = |x: __m256i, c: u32| {
            let c = _mm256_set1_epi32(c as i32);
            (
                _mm256_mul_epu32(x, c),
                _mm256_mul_epu32(_mm256_srli_epi64::<32>(x), c),
            )
        };
        let mut pairs = x.chunks_exact(2);
        for (pair, c) in (&mut pairs).zip(c.chunks_exact(2)) {
            let (e0, o0) = product(pair[0].0, c[0]);
            let (e1, o1) = product(pair[1].0, c[1]);
            let r = reduce(_mm256_add_epi64(e0, e1), _mm256_add_epi64(o0, o1));
            acc = add(acc, r);
        }
        if let [last] = pairs.remainder() {
            let (e, o) = product(last.0, c[x.len() - 1]);
            acc = add(acc, reduce(e, o));
        }
        acc
    }
}

impl KoalaLanes for U32x8 {
    const N: usize = 8;

    #[inline(always)]
    fn splat(x: u32) -> Self {
        U32x8::splat(x)
    }
    #[inline(always)]
    fn load(x: &[u32]) -> Self {
        U32x8::load(x)
    }
    #[inline(always)]
    fn store(self, out: &mut [u32]) {
        self.store(out)
    }
    #[inline(always)]
    fn load_partial(x: &[u32]) -> Self {
        // SAFETY: see the module note.
        U32x8(unsafe { load_partial(x) })
    }
    #[inline(always)]
    fn store_partial(self, out: &mut [u32]) {
        // SAFETY: see the module note.
        unsafe { store_partial(self.0, out) }
    }
    #[inline(always)]
    fn add(self, other: Self) -> Self {
        // SAFETY: see the module note.
        U32x8(unsafe { add(self.0, other.0) })
    }
    #[inline(always)]
    fn sub(self, other: Self) -> Self {
        // SAFETY: see the module note.
        U32x8(unsafe { sub(self.0, other.0) })
    }
    #[inline(always)]
    fn dot(x: &[Self], c: &[u32]) -> Self {
        assert_eq!(x.len(), c.len());
        // SAFETY: see the module note.
        U32x8(unsafe { dot(x, c) })
    }
    #[inline(always)]
    fn div_2exp(self, k: u32) -> Self {
        // SAFETY: see the module note.
        U32x8(unsafe { div_2exp(self.0, k) })
    }
    #[inline(always)]
    fn mul(self, other: Self) -> Self {
        // SAFETY: see the module note.
        U32x8(unsafe { mul(self.0, other.0) })
    }

    simd_permutations!(U32x8);
}

/// Sixteen lanes as two interleaved `__m256i`: the same operations on two independent
/// vectors, so one permutation's dependency chains (the partial rounds are one long
/// chain) overlap with the other's. The AVX2 backend verifies on these.
#[derive(Clone, Copy)]
pub struct KoalaAvx2x2([__m256i; 2]);

kernels! {
    /// [`dot`] on both halves, the two reductions of each pair side by side.
    #[inline]
    fn dot2(x: &[KoalaAvx2x2], c: &[u32]) -> [__m256i; 2] {
        let mut acc = [_mm256_setzero_si256(); 2];
        for (pair, c) in x.chunks(2).zip(c.chunks(2)) {
            for (h, acc) in acc.iter_mut().enumerate() {
                let mut even = _mm256_setzero_si256();
                let mut odd = _mm256_setzero_si256();
                for (x, &c) in pair.iter().zip(c) {
                    let c = _mm256_set1_epi32(c as i32);
                    even = _mm256_add_epi64(even, _mm256_mul_epu32(x.0[h], c));
                    odd = _mm256_add_epi64(odd, _mm256_mul_epu32(_mm256_srli_epi64::<32>(x.0[h]), c));
                }
                *acc = add(*acc, reduce(even, odd));
            }
        }
        acc
    }
}

impl KoalaLanes for KoalaAvx2x2 {
    const N: usize = 16;

    #[inline(always)]
    fn splat(x: u32) -> Self {
        let v = U32x8::splat(x).0;
        KoalaAvx2x2([v, v])
    }
    #[inline(always)]
    fn load(x: &[u32]) -> Self {
        KoalaAvx2x2([U32x8::load(&x[..8]).0, U32x8::load(&x[8..16]).0])
    }
    #[inline(always)]
    fn store(self, out: &mut [u32]) {
        let (low, high) = out[..16].split_at_mut(8);
        U32x8(self.0[0]).store(low);
        U32x8(self.0[1]).store(high);
    }
    #[inline(always)]
    fn load_partial(x: &[u32]) -> Self {
        if x.len() <= 8 {
            KoalaAvx2x2([U32x8::load_partial(x).0, U32x8::splat(0).0])
        } else {
            KoalaAvx2x2([U32x8::load(&x[..8]).0, U32x8::load_partial(&x[8..]).0])
        }
    }
    #[inline(always)]
    fn store_partial(self, out: &mut [u32]) {
        let (low, high) = out.split_at_mut(out.len().min(8));
        U32x8(self.0[0]).store_partial(low);
        if !high.is_empty() {
            U32x8(self.0[1]).store_partial(high);
        }
    }
    #[inline(always)]
    fn add(self, other: Self) -> Self {
        // SAFETY: see the module note.
        KoalaAvx2x2(unsafe { [add(self.0[0], other.0[0]), add(self.0[1], other.0[1])] })
    }
    #[inline(always)]
    fn sub(self, other: Self) -> Self {
        // SAFETY: see the module note.
        KoalaAvx2x2(unsafe { [sub(self.0[0], other.0[0]), sub(self.0[1], other.0[1])] })
    }
    #[inline(always)]
    fn dot(x: &[Self], c: &[u32]) -> Self {
        assert_eq!(x.len(), c.len());
        // SAFETY: see the module note.
        KoalaAvx2x2(unsafe { dot2(x, c) })
    }
    #[inline(always)]
    fn div_2exp(self, k: u32) -> Self {
        // SAFETY: see the module note.
        KoalaAvx2x2(unsafe { [div_2exp(self.0[0], k), div_2exp(self.0[1], k)] })
    }
    #[inline(always)]
    fn mul(self, other: Self) -> Self {
        // SAFETY: see the module note.
        KoalaAvx2x2(unsafe { [mul(self.0[0], other.0[0]), mul(self.0[1], other.0[1])] })
    }

    simd_permutations!(KoalaAvx2x2);
}
