//! Eight SHA-512 lanes per `__m512i`, with AVX-512's native 64-bit rotate.
//!
//! Safety: `Words8` values are made only by code reached from the IFMA backend's entry
//! point, after `is_x86_feature_detected!` confirmed AVX-512F.

use super::LaneWords;
use core::arch::x86_64::*;

#[derive(Clone, Copy)]
pub(crate) struct Words8(__m512i);

#[target_feature(enable = "avx512f")]
#[inline]
fn splat(x: u64) -> __m512i {
    _mm512_set1_epi64(x as i64)
}

#[target_feature(enable = "avx512f")]
#[inline]
fn add(a: __m512i, b: __m512i) -> __m512i {
    _mm512_add_epi64(a, b)
}

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
fn select(mask: u8, a: __m512i, b: __m512i) -> __m512i {
    _mm512_mask_blend_epi64(mask, b, a)
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

// As in the field modules: every function executing vector instructions carries the
// `#[target_feature]` itself; the trait methods are `#[inline(always)]` shims over them.
// SAFETY (every `unsafe` below): the CPU has the features (module note).
impl LaneWords for Words8 {
    const LANES: usize = 8;

    #[inline(always)]
    fn splat(x: u64) -> Self {
        Words8(unsafe { splat(x) })
    }
    #[inline(always)]
    fn from_lanes(words: &[u64]) -> Self {
        Words8(unsafe { load(words) })
    }
    #[inline(always)]
    fn to_lanes(&self, out: &mut [u64]) {
        unsafe { store(self.0, out) }
    }
    #[inline(always)]
    fn add(self, rhs: Self) -> Self {
        Words8(unsafe { add(self.0, rhs.0) })
    }
    #[inline(always)]
    fn xor(self, rhs: Self) -> Self {
        Words8(unsafe { xor(self.0, rhs.0) })
    }
    #[inline(always)]
    fn and(self, rhs: Self) -> Self {
        Words8(unsafe { and(self.0, rhs.0) })
    }
    #[inline(always)]
    fn andnot(self, rhs: Self) -> Self {
        Words8(unsafe { andnot(self.0, rhs.0) })
    }
    #[inline(always)]
    fn rotr(self, n: u32) -> Self {
        Words8(unsafe { rotr(self.0, n) })
    }
    #[inline(always)]
    fn shr(self, n: u32) -> Self {
        Words8(unsafe { shr(self.0, n) })
    }
    #[inline(always)]
    fn select(mask: u8, a: Self, b: Self) -> Self {
        Words8(unsafe { select(mask, a.0, b.0) })
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn digests_match_sha2() {
        if is_x86_feature_detected!("avx512f") {
            super::super::tests::digests_match_sha2::<super::Words8>();
        }
    }
}
