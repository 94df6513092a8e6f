//! Eight coefficients per `__m256i` (AVX2), one i32 per lane.
//!
//! Montgomery products use `vpmuludq`'s signed twin `vpmuldq` (32 × 32 → 64 bits on the
//! even lanes): for each half, p = a·b, t = lo32(p)·q⁻¹, and hi32(p) − hi32(t·q) is the
//! exact Montgomery result, because lo32(p) = lo32(t·q) leaves no borrow. The odd lanes
//! are shifted down, multiplied the same way, and blended back.
//!
//! The lanes are linesig-simd's `U32x8`, whose safety argument is made there once: its
//! values are made only by code reached from this backend's kernels, which run after
//! this path's `supported()` held.

use super::Lanes;
use crate::mldsa::arith::{Q, QINV};
use core::arch::x86_64::*;
use linesig_simd::u32x8::U32x8;

linesig_simd::isa_path!("avx2");

// As in the Ed25519 AVX2 field: every function executing AVX2 instructions carries the
// target feature itself, and the `Lanes` methods are `#[inline(always)]` shims.

kernels! {
    #[inline]
    fn montgomery_mul(a: __m256i, b: __m256i) -> __m256i {
        let q = _mm256_set1_epi32(Q);
        let qinv = _mm256_set1_epi32(QINV);
        let even = {
            let p = _mm256_mul_epi32(a, b);
            let t = _mm256_mul_epi32(p, qinv);
            _mm256_sub_epi32(p, _mm256_mul_epi32(t, q))
        };
        let odd = {
            let p = _mm256_mul_epi32(_mm256_srli_epi64::<32>(a), _mm256_srli_epi64::<32>(b));
            let t = _mm256_mul_epi32(p, qinv);
            _mm256_sub_epi32(p, _mm256_mul_epi32(t, q))
        };
        // Results sit in the high halves of the 64-bit slots.
        _mm256_blend_epi32::<0xAA>(_mm256_srli_epi64::<32>(even), odd)
    }
}

kernels! {
    #[inline]
    fn reduce32(a: __m256i) -> __m256i {
        let t = _mm256_srai_epi32::<23>(_mm256_add_epi32(a, _mm256_set1_epi32(1 << 22)));
        // t·q = t·2^23 − t·2^13 + t, without the slow `vpmulld`.
        let tq = _mm256_add_epi32(
            _mm256_sub_epi32(_mm256_slli_epi32::<23>(t), _mm256_slli_epi32::<13>(t)),
            t,
        );
        _mm256_sub_epi32(a, tq)
    }
}

kernels! {
    #[inline]
    fn transpose(rows: &mut [U32x8]) {
        let r: [__m256i; 8] = core::array::from_fn(|i| rows[i].0);
        let t = [
            _mm256_unpacklo_epi32(r[0], r[1]),
            _mm256_unpackhi_epi32(r[0], r[1]),
            _mm256_unpacklo_epi32(r[2], r[3]),
            _mm256_unpackhi_epi32(r[2], r[3]),
            _mm256_unpacklo_epi32(r[4], r[5]),
            _mm256_unpackhi_epi32(r[4], r[5]),
            _mm256_unpacklo_epi32(r[6], r[7]),
            _mm256_unpackhi_epi32(r[6], r[7]),
        ];
        // u[c] holds column c of rows 0–3 in its low half and column c + 4 in its high half
        // (u[4 + c]: the same for rows 4–7).
        let u = [
            _mm256_unpacklo_epi64(t[0], t[2]),
            _mm256_unpackhi_epi64(t[0], t[2]),
            _mm256_unpacklo_epi64(t[1], t[3]),
            _mm256_unpackhi_epi64(t[1], t[3]),
            _mm256_unpacklo_epi64(t[4], t[6]),
            _mm256_unpackhi_epi64(t[4], t[6]),
            _mm256_unpacklo_epi64(t[5], t[7]),
            _mm256_unpackhi_epi64(t[5], t[7]),
        ];
        for c in 0..4 {
            rows[c] = U32x8(_mm256_permute2x128_si256::<0x20>(u[c], u[4 + c]));
            rows[c + 4] = U32x8(_mm256_permute2x128_si256::<0x31>(u[c], u[4 + c]));
        }
    }
}

impl Lanes for U32x8 {
    type Keccak = linesig_simd::u64x4::U64x4;
    super::simd_kernels!(U32x8);

    const N: usize = 8;

    #[inline(always)]
    fn splat(x: i32) -> Self {
        U32x8::splat(x)
    }

    #[inline(always)]
    fn load(src: &[i32]) -> Self {
        U32x8::load(src)
    }

    #[inline(always)]
    fn store(self, dst: &mut [i32]) {
        self.store(dst)
    }

    #[inline(always)]
    fn add(self, rhs: Self) -> Self {
        U32x8(unsafe { _mm256_add_epi32(self.0, rhs.0) })
    }

    #[inline(always)]
    fn sub(self, rhs: Self) -> Self {
        U32x8(unsafe { _mm256_sub_epi32(self.0, rhs.0) })
    }

    #[inline(always)]
    fn montgomery_mul(self, rhs: Self) -> Self {
        U32x8(unsafe { montgomery_mul(self.0, rhs.0) })
    }

    #[inline(always)]
    fn reduce32(self) -> Self {
        U32x8(unsafe { reduce32(self.0) })
    }

    #[inline(always)]
    fn transpose(rows: &mut [Self]) {
        unsafe { transpose(rows) }
    }
}
