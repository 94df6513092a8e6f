//! Four SHA-512 lanes per `__m256i` (AVX2 has no 64-bit rotate: two shifts and an or).
//!
//! The words are linesig-simd's `U64x4` (safety argued there once: its values are made
//! only by code reached from the AVX2 backend's kernels, after their path's
//! `supported()` held).

use core::arch::x86_64::*;
use linesig_simd::u64x4::{add, blend as select, splat, U64x4};

linesig_simd::isa_path!("avx2");

kernels! {
    #[inline]
    fn rotr(x: __m256i, n: u32) -> __m256i {
        _mm256_or_si256(
            _mm256_srlv_epi64(x, splat(u64::from(n))),
            _mm256_sllv_epi64(x, splat(u64::from(64 - n))),
        )
    }

    #[inline]
    fn xor(a: __m256i, b: __m256i) -> __m256i {
        _mm256_xor_si256(a, b)
    }

    #[inline]
    fn and(a: __m256i, b: __m256i) -> __m256i {
        _mm256_and_si256(a, b)
    }

    #[inline]
    fn andnot(a: __m256i, b: __m256i) -> __m256i {
        _mm256_andnot_si256(a, b)
    }

    #[inline]
    fn shr(x: __m256i, n: u32) -> __m256i {
        _mm256_srlv_epi64(x, splat(u64::from(n)))
    }

    #[inline]
    fn store(x: __m256i, out: &mut [u64]) {
        assert!(out.len() * 8 >= size_of::<__m256i>());
        // SAFETY: `out` has room for one vector's bytes (asserted).
        unsafe { _mm256_storeu_si256(out.as_mut_ptr().cast(), x) }
    }

    /// Words 4k..4k+3 of each of the four lanes' blocks, byte-swapped to big-endian
    /// (`vpshufb` reverses each word's bytes) and transposed as a 4 × 4 matrix in eight
    /// shuffles: W_i of every lane in vector i, without a trip through memory per word.
    #[inline]
    fn load_block(rows: &[&[u8; super::BLOCK]]) -> [__m256i; 16] {
        assert_eq!(rows.len(), 4);
        let reverse = _mm256_set_epi64x(
            0x0809_0a0b_0c0d_0e0f,
            0x0001_0203_0405_0607,
            0x0809_0a0b_0c0d_0e0f,
            0x0001_0203_0405_0607,
        );
        let mut out = [_mm256_setzero_si256(); 16];
        for k in 0..4 {
            let mut r = [_mm256_setzero_si256(); 4];
            for (r, row) in r.iter_mut().zip(rows) {
                // SAFETY: bytes 32k..32k+32 of a 128-byte row (k < 4).
                let words = unsafe { _mm256_loadu_si256(row.as_ptr().add(32 * k).cast()) };
                *r = _mm256_shuffle_epi8(words, reverse);
            }
            // Rows 0, 1 (and 2, 3) interleaved: words k0, k2 in `even`, k1, k3 in `odd`.
            let even = [
                _mm256_unpacklo_epi64(r[0], r[1]),
                _mm256_unpacklo_epi64(r[2], r[3]),
            ];
            let odd = [
                _mm256_unpackhi_epi64(r[0], r[1]),
                _mm256_unpackhi_epi64(r[2], r[3]),
            ];
            out[4 * k] = _mm256_permute2x128_si256(even[0], even[1], 0x20);
            out[4 * k + 1] = _mm256_permute2x128_si256(odd[0], odd[1], 0x20);
            out[4 * k + 2] = _mm256_permute2x128_si256(even[0], even[1], 0x31);
            out[4 * k + 3] = _mm256_permute2x128_si256(odd[0], odd[1], 0x31);
        }
        out
    }
}

super::lane_words_shims!(U64x4, 4);

#[cfg(test)]
mod tests {
    #[test]
    fn digests_match_sha2() {
        if super::supported() {
            super::super::tests::digests_match_sha2::<linesig_simd::u64x4::U64x4>();
        }
    }
}
