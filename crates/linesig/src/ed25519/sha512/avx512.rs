//! Eight SHA-512 lanes per `__m512i`, with AVX-512's native 64-bit rotate.
//!
//! Safety: `Words8` values are made only by code reached from the IFMA backend's entry
//! point, after `crate::cpu` confirmed AVX-512F.

use super::super::field::ifma::{add64 as add, blend as select, splat};
use core::arch::x86_64::*;

#[derive(Clone, Copy)]
pub(crate) struct Words8(__m512i);

#[target_feature(enable = "avx512f")]
#[inline]
fn xor(a: __m512i, b: __m512i) -> __m512i {
    _mm512_xor_si512(a, b)
}

#[target_feature(enable = "avx512f")]
#[inline]
fn and(a: __m512i, b: __m512i) -> __m512i {
    _mm512_and_si512(a, b)
}

#[target_feature(enable = "avx512f")]
#[inline]
fn andnot(a: __m512i, b: __m512i) -> __m512i {
    _mm512_andnot_si512(a, b)
}

#[target_feature(enable = "avx512f")]
#[inline]
fn rotr(x: __m512i, n: u32) -> __m512i {
    _mm512_rorv_epi64(x, splat(u64::from(n)))
}

#[target_feature(enable = "avx512f")]
#[inline]
fn shr(x: __m512i, n: u32) -> __m512i {
    _mm512_srlv_epi64(x, splat(u64::from(n)))
}

#[target_feature(enable = "avx512f")]
#[inline]
fn load(words: &[u64]) -> __m512i {
    assert_eq!(words.len() * 8, size_of::<__m512i>());
    // SAFETY: `words` holds exactly one vector's bytes (asserted).
    unsafe { _mm512_loadu_si512(words.as_ptr().cast()) }
}

#[target_feature(enable = "avx512f")]
#[inline]
fn store(x: __m512i, out: &mut [u64]) {
    assert!(out.len() * 8 >= size_of::<__m512i>());
    // SAFETY: `out` has room for one vector's bytes (asserted).
    unsafe { _mm512_storeu_si512(out.as_mut_ptr().cast(), x) }
}

super::lane_words_shims!(Words8, 8);

#[cfg(test)]
mod tests {
    #[test]
    fn digests_match_sha2() {
        if crate::cpu::has_all(&[crate::cpu::Feature::Avx512F]) {
            super::super::tests::digests_match_sha2::<super::Words8>();
        }
    }
}
