//! Four SHA-512 lanes per `__m256i` (AVX2 has no 64-bit rotate: two shifts and an or).
//!
//! Safety: `Words4` values are made only by code reached from the AVX2 backend's entry
//! point, after `is_x86_feature_detected!("avx2")`.

use super::LaneWords;
use core::arch::x86_64::*;

#[derive(Clone, Copy)]
pub(crate) struct Words4(__m256i);

#[target_feature(enable = "avx2")]
#[inline]
fn splat(x: u64) -> __m256i {
    _mm256_set1_epi64x(x as i64)
}

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
fn select(mask: u8, a: __m256i, b: __m256i) -> __m256i {
    let m = |i: u8| if mask >> i & 1 == 1 { -1i64 } else { 0 };
    _mm256_blendv_epi8(b, a, _mm256_set_epi64x(m(3), m(2), m(1), m(0)))
}

#[target_feature(enable = "avx2")]
#[inline]
fn add(a: __m256i, b: __m256i) -> __m256i {
    _mm256_add_epi64(a, b)
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

// As in the field modules: every function executing vector instructions carries the
// `#[target_feature]` itself; the trait methods are `#[inline(always)]` shims over them.
// SAFETY (every `unsafe` below): the CPU has the features (module note).
impl LaneWords for Words4 {
    const LANES: usize = 4;

    #[inline(always)]
    fn splat(x: u64) -> Self {
        Words4(unsafe { splat(x) })
    }
    #[inline(always)]
    fn from_lanes(words: &[u64]) -> Self {
        Words4(unsafe { load(words) })
    }
    #[inline(always)]
    fn to_lanes(&self, out: &mut [u64]) {
        unsafe { store(self.0, out) }
    }
    #[inline(always)]
    fn add(self, rhs: Self) -> Self {
        Words4(unsafe { add(self.0, rhs.0) })
    }
    #[inline(always)]
    fn xor(self, rhs: Self) -> Self {
        Words4(unsafe { xor(self.0, rhs.0) })
    }
    #[inline(always)]
    fn and(self, rhs: Self) -> Self {
        Words4(unsafe { and(self.0, rhs.0) })
    }
    #[inline(always)]
    fn andnot(self, rhs: Self) -> Self {
        Words4(unsafe { andnot(self.0, rhs.0) })
    }
    #[inline(always)]
    fn rotr(self, n: u32) -> Self {
        Words4(unsafe { rotr(self.0, n) })
    }
    #[inline(always)]
    fn shr(self, n: u32) -> Self {
        Words4(unsafe { shr(self.0, n) })
    }
    #[inline(always)]
    fn select(mask: u8, a: Self, b: Self) -> Self {
        Words4(unsafe { select(mask, a.0, b.0) })
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn digests_match_sha2() {
        if is_x86_feature_detected!("avx2") {
            super::super::tests::digests_match_sha2::<super::Words4>();
        }
    }
}
