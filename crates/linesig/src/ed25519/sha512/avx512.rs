//! Eight SHA-512 lanes per `__m512i`, with AVX-512's native 64-bit rotate.
//!
//! The words are linesig-simd's `U64x8` (safety argued there once: its values are made
//! only by code reached from the IFMA backend's kernels, after their path's
//! `supported()` held).

use core::arch::x86_64::*;
use linesig_simd::u64x8::{add, blend as select, splat, U64x8};

linesig_simd::isa_path!("avx512f,avx512bw");

kernels! {
    #[inline]
    fn xor(a: __m512i, b: __m512i) -> __m512i {
        _mm512_xor_si512(a, b)
    }

    #[inline]
    fn and(a: __m512i, b: __m512i) -> __m512i {
        _mm512_and_si512(a, b)
    }

    #[inline]
    fn andnot(a: __m512i, b: __m512i) -> __m512i {
        _mm512_andnot_si512(a, b)
    }

    #[inline]
    fn rotr(x: __m512i, n: u32) -> __m512i {
        _mm512_rorv_epi64(x, splat(u64::from(n)))
    }

    #[inline]
    fn shr(x: __m512i, n: u32) -> __m512i {
        _mm512_srlv_epi64(x, splat(u64::from(n)))
    }

    #[inline]
    fn store(x: __m512i, out: &mut [u64]) {
        assert!(out.len() * 8 >= size_of::<__m512i>());
        // SAFETY: `out` has room for one vector's bytes (asserted).
        unsafe { _mm512_storeu_si512(out.as_mut_ptr().cast(), x) }
    }

    /// Each half of the eight lanes' blocks (words 8h..8h+7) loaded as eight rows,
    /// byte-swapped to big-endian (`vpshufb` reverses each word's bytes) and transposed
    /// as an 8 × 8 matrix of words in 24 shuffles: W_i of every lane in vector i, without
    /// a trip through memory per word.
    #[inline]
    fn load_block(rows: &[&[u8; super::BLOCK]]) -> [__m512i; 16] {
        assert_eq!(rows.len(), 8);
        let reverse = _mm512_set_epi64(
            0x0809_0a0b_0c0d_0e0f,
            0x0001_0203_0405_0607,
            0x0809_0a0b_0c0d_0e0f,
            0x0001_0203_0405_0607,
            0x0809_0a0b_0c0d_0e0f,
            0x0001_0203_0405_0607,
            0x0809_0a0b_0c0d_0e0f,
            0x0001_0203_0405_0607,
        );
        // `vpermt2q` indices that take, of two interleaved pairs of rows (a: rows 0, 1 and
        // b: rows 2, 3, words of one parity e), words e, e+4 of all four rows (`low`), or
        // words e+2, e+6 (`high`).
        let low = _mm512_set_epi64(13, 12, 5, 4, 9, 8, 1, 0);
        let high = _mm512_set_epi64(15, 14, 7, 6, 11, 10, 3, 2);
        let mut out = [_mm512_setzero_si512(); 16];
        for h in 0..2 {
            let mut r = [_mm512_setzero_si512(); 8];
            for (r, row) in r.iter_mut().zip(rows) {
                // SAFETY: bytes 64h..64h+64 of a 128-byte row (h < 2).
                let words = unsafe { _mm512_loadu_si512(row.as_ptr().add(64 * h).cast()) };
                *r = _mm512_shuffle_epi8(words, reverse);
            }
            // by_parity[e][p]: rows 2p, 2p+1 interleaved, words e, e+2, e+4, e+6 of each.
            let mut by_parity = [[_mm512_setzero_si512(); 4]; 2];
            for (p, rows) in r.chunks_exact(2).enumerate() {
                by_parity[0][p] = _mm512_unpacklo_epi64(rows[0], rows[1]);
                by_parity[1][p] = _mm512_unpackhi_epi64(rows[0], rows[1]);
            }
            for (e, pairs) in by_parity.iter().enumerate() {
                // Rows 0..3 and rows 4..7: words e, e+4 (`low`) and words e+2, e+6 (`high`).
                let quads = [
                    [
                        _mm512_permutex2var_epi64(pairs[0], low, pairs[1]),
                        _mm512_permutex2var_epi64(pairs[2], low, pairs[3]),
                    ],
                    [
                        _mm512_permutex2var_epi64(pairs[0], high, pairs[1]),
                        _mm512_permutex2var_epi64(pairs[2], high, pairs[3]),
                    ],
                ];
                for (s, [top, bottom]) in quads.into_iter().enumerate() {
                    let w = 8 * h + e + 2 * s;
                    out[w] = _mm512_shuffle_i64x2(top, bottom, 0b01_00_01_00);
                    out[w + 4] = _mm512_shuffle_i64x2(top, bottom, 0b11_10_11_10);
                }
            }
        }
        out
    }
}

super::lane_words_shims!(U64x8, 8);

#[cfg(test)]
mod tests {
    #[test]
    fn digests_match_sha2() {
        if super::supported() {
            super::super::tests::digests_match_sha2::<linesig_simd::u64x8::U64x8>();
        }
    }
}
