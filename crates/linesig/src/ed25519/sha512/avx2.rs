//! Four SHA-512 lanes per `__m256i` (AVX2 has no 64-bit rotate: two shifts and an or).
//!
//! Safety: `Words4` values are made only by code reached from the AVX2 backend's entry
//! point, after `crate::cpu` found AVX2.

use super::super::field::avx2::{add64 as add, blend as select, splat};
use core::arch::x86_64::*;

#[derive(Clone, Copy)]
pub(crate) struct Words4(__m256i);

#[target_feature(enable = "avx2")]
#[inline]
fn rotr(x: __m256i, n: u32) -> __m256i {
    _mm256_or_si256(
        _mm256_srlv_epi64(x, splat(u64::from(n))),
        _mm256_sllv_epi64(x, splat(u64::from(64 - n))),
    )
}

#[target_feature(enable = "avx2")]
#[inline]
fn xor(a: __m256i, b: __m256i) -> __m256i {
    _mm256_xor_si256(a, b)
}

#[target_feature(enable = "avx2")]
#[inline]
fn and(a: __m256i, b: __m256i) -> __m256i {
    _mm256_and_si256(a, b)
}

#[target_feature(enable = "avx2")]
#[inline]
fn andnot(a: __m256i, b: __m256i) -> __m256i {
    _mm256_andnot_si256(a, b)
}

#[target_feature(enable = "avx2")]
#[inline]
fn shr(x: __m256i, n: u32) -> __m256i {
    _mm256_srlv_epi64(x, splat(u64::from(n)))
}

#[target_feature(enable = "avx2")]
#[inline]
fn load(words: &[u64]) -> __m256i {
    assert_eq!(words.len() * 8, size_of::<__m256i>());
    // SAFETY: `words` holds exactly one vector's bytes (asserted).
    unsafe { _mm256_loadu_si256(words.as_ptr().cast()) }
}

#[target_feature(enable = "avx2")]
#[inline]
fn store(x: __m256i, out: &mut [u64]) {
    assert!(out.len() * 8 >= size_of::<__m256i>());
    // SAFETY: `out` has room for one vector's bytes (asserted).
    unsafe { _mm256_storeu_si256(out.as_mut_ptr().cast(), x) }
}

super::lane_words_shims!(Words4, 4);

#[cfg(test)]
mod tests {
    #[test]
    fn digests_match_sha2() {
        if crate::cpu::has_all(&[crate::cpu::Feature::Avx2]) {
            super::super::tests::digests_match_sha2::<super::Words4>();
        }
    }
}
