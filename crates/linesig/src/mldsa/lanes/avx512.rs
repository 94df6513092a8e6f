//! Sixteen coefficients per `__m512i` (AVX-512F), one i32 per lane: the AVX2 lanes'
//! arithmetic at twice the width (see `avx2.rs` for the Montgomery product).
//!
//! The 16 × 16 transpose goes through memory with a gather: it runs twice per
//! polynomial and the gather form is plainly the transpose, which matters for code that
//! the machines this was written on could not execute (the shared NTT code for 16
//! lanes is tested everywhere through `Portable<16>`).
//!
//! The lanes are linesig-simd's `U32x16`, whose safety argument is made there once: its
//! values are made only by code reached from this backend's kernels, which run after
//! this path's `supported()` held.

use super::Lanes;
use crate::mldsa::arith::{Q, QINV};
use core::arch::x86_64::*;
use linesig_simd::u32x16::U32x16;

linesig_simd::isa_path!("avx2,avx512f");

kernels! {
    #[inline]
    fn montgomery_mul(a: __m512i, b: __m512i) -> __m512i {
        let q = _mm512_set1_epi32(Q);
        let qinv = _mm512_set1_epi32(QINV);
        let even = {
            let p = _mm512_mul_epi32(a, b);
            let t = _mm512_mul_epi32(p, qinv);
            _mm512_sub_epi32(p, _mm512_mul_epi32(t, q))
        };
        let odd = {
            let p = _mm512_mul_epi32(_mm512_srli_epi64::<32>(a), _mm512_srli_epi64::<32>(b));
            let t = _mm512_mul_epi32(p, qinv);
            _mm512_sub_epi32(p, _mm512_mul_epi32(t, q))
        };
        _mm512_mask_blend_epi32(0xAAAA, _mm512_srli_epi64::<32>(even), odd)
    }
}

kernels! {
    #[inline]
    fn reduce32(a: __m512i) -> __m512i {
        let t = _mm512_srai_epi32::<23>(_mm512_add_epi32(a, _mm512_set1_epi32(1 << 22)));
        let tq = _mm512_add_epi32(
            _mm512_sub_epi32(_mm512_slli_epi32::<23>(t), _mm512_slli_epi32::<13>(t)),
            t,
        );
        _mm512_sub_epi32(a, tq)
    }
}

kernels! {
    #[inline]
    fn transpose(rows: &mut [U32x16]) {
        let mut matrix = [0i32; 256];
        for (i, row) in rows[..16].iter().enumerate() {
            // SAFETY: 16 writable i32 at matrix[16i..].
            unsafe { _mm512_storeu_si512(matrix[16 * i..].as_mut_ptr().cast(), row.0) };
        }
        // Column j: matrix[16·i + j] for i = 0..16.
        let stride = _mm512_setr_epi32(
            0, 16, 32, 48, 64, 80, 96, 112, 128, 144, 160, 176, 192, 208, 224, 240,
        );
        for (j, row) in rows[..16].iter_mut().enumerate() {
            // SAFETY: the largest index read is j + 240 ≤ 255, inside `matrix`.
            *row = U32x16(unsafe { _mm512_i32gather_epi32::<4>(stride, matrix[j..].as_ptr().cast()) });
        }
    }
}

impl Lanes for U32x16 {
    type Keccak = linesig_simd::u64x8::U64x8;
    super::simd_kernels!(U32x16);

    const N: usize = 16;

    #[inline(always)]
    fn splat(x: i32) -> Self {
        U32x16::splat(x)
    }

    #[inline(always)]
    fn load(src: &[i32]) -> Self {
        U32x16::load(src)
    }

    #[inline(always)]
    fn store(self, dst: &mut [i32]) {
        self.store(dst)
    }

    #[inline(always)]
    fn add(self, rhs: Self) -> Self {
        U32x16(unsafe { _mm512_add_epi32(self.0, rhs.0) })
    }

    #[inline(always)]
    fn sub(self, rhs: Self) -> Self {
        U32x16(unsafe { _mm512_sub_epi32(self.0, rhs.0) })
    }

    #[inline(always)]
    fn montgomery_mul(self, rhs: Self) -> Self {
        U32x16(unsafe { montgomery_mul(self.0, rhs.0) })
    }

    #[inline(always)]
    fn reduce32(self) -> Self {
        U32x16(unsafe { reduce32(self.0) })
    }

    #[inline(always)]
    fn transpose(rows: &mut [Self]) {
        unsafe { transpose(rows) }
    }
}
