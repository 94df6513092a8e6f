//! The add-rotate-xor arithmetic that BLAKE2s (RFC 7693 §3.1) and BLAKE3 (its spec
//! §2.2) share, over independent 32-bit lanes: one word of each of several hash inputs
//! side by side.
//!
//! Written once for both hashes (leanXMSS's BLAKE2s in `linesig`, the proof's BLAKE3 in
//! `linesig-aggregate`) over [`ArxLanes`]: `[u32; N]` (the portable model: element-wise
//! loops), [`U32x16`](crate::u32x16::U32x16) on AVX-512F (`vpaddd`, `vpxord`, `vprord`)
//! and [`U32x8`](crate::u32x8::U32x8) on AVX2 (rotations by 16 and 8 as byte shuffles,
//! by 12 and 7 as two shifts and an or). The vector types keep a compression's 16 state
//! and 16 message words in registers whatever the optimiser does with a long
//! straight-line block; the arrays rely on it to vectorise their loops, which it does
//! for a round but not for ten rounds written out. Everything is `#[inline(always)]`,
//! so it takes the features of the kernel that calls it.

/// One 32-bit word of each of `N` inputs.
pub type Words<const N: usize> = [u32; N];

/// 32-bit lanes with the operations of an ARX round.
pub trait ArxLanes: Copy {
    /// Words per value.
    const LANES: usize;
    /// Every lane `x`.
    fn splat(x: u32) -> Self;
    /// Lanes from `words[..LANES]`.
    fn load(words: &[u32]) -> Self;
    /// Lanes into `out[..LANES]`.
    fn store(self, out: &mut [u32]);
    /// Lane-wise wrapping addition.
    fn add(self, other: Self) -> Self;
    /// Lane-wise exclusive or.
    fn xor(self, other: Self) -> Self;
    /// Lane-wise rotation right by `bits`: 16, 12, 8 or 7 (G's four; a constant at every
    /// call, so each SIMD impl's `match` folds to one instruction sequence).
    fn rotr(self, bits: u32) -> Self;
}

/// Lane-wise wrapping addition of arrays.
#[inline(always)]
pub fn add<const N: usize>(a: Words<N>, b: Words<N>) -> Words<N> {
    let mut out = a;
    for (x, y) in out.iter_mut().zip(b) {
        *x = x.wrapping_add(y);
    }
    out
}

/// Lane-wise exclusive or of arrays.
#[inline(always)]
pub fn xor<const N: usize>(a: Words<N>, b: Words<N>) -> Words<N> {
    let mut out = a;
    for (x, y) in out.iter_mut().zip(b) {
        *x ^= y;
    }
    out
}

/// Lane-wise rotation right of an array by `n` bits.
#[inline(always)]
pub fn rotr<const N: usize>(a: Words<N>, n: u32) -> Words<N> {
    let mut out = a;
    for x in out.iter_mut() {
        *x = x.rotate_right(n);
    }
    out
}

impl<const N: usize> ArxLanes for [u32; N] {
    const LANES: usize = N;
    #[inline(always)]
    fn splat(x: u32) -> Self {
        [x; N]
    }
    #[inline(always)]
    fn load(words: &[u32]) -> Self {
        words[..N].try_into().expect("N words")
    }
    #[inline(always)]
    fn store(self, out: &mut [u32]) {
        out[..N].copy_from_slice(&self);
    }
    #[inline(always)]
    fn add(self, other: Self) -> Self {
        add(self, other)
    }
    #[inline(always)]
    fn xor(self, other: Self) -> Self {
        xor(self, other)
    }
    #[inline(always)]
    fn rotr(self, bits: u32) -> Self {
        rotr(self, bits)
    }
}

/// Sixteen lanes on AVX-512F: each operation one instruction (`vprord` rotates).
/// Safety: `U32x16`'s note (`vector_type!`): its values exist only inside kernels of an
/// AVX-512F path, so these kernels run only where the CPU has it.
#[cfg(target_arch = "x86_64")]
mod avx512 {
    use crate::u32x16::U32x16;
    use core::arch::x86_64::*;

    crate::isa_path!("avx512f");

    kernels! {
        #[inline]
        fn add(a: __m512i, b: __m512i) -> __m512i {
            _mm512_add_epi32(a, b)
        }
        #[inline]
        fn xor(a: __m512i, b: __m512i) -> __m512i {
            _mm512_xor_si512(a, b)
        }
        #[inline]
        fn rotr(a: __m512i, bits: u32) -> __m512i {
            match bits {
                16 => _mm512_ror_epi32::<16>(a),
                12 => _mm512_ror_epi32::<12>(a),
                8 => _mm512_ror_epi32::<8>(a),
                7 => _mm512_ror_epi32::<7>(a),
                _ => unreachable!("G rotates by 16, 12, 8 and 7"),
            }
        }
    }

    impl super::ArxLanes for U32x16 {
        const LANES: usize = 16;
        #[inline(always)]
        fn splat(x: u32) -> Self {
            U32x16::splat(x)
        }
        #[inline(always)]
        fn load(words: &[u32]) -> Self {
            U32x16::load(words)
        }
        #[inline(always)]
        fn store(self, out: &mut [u32]) {
            U32x16::store(self, out)
        }
        #[inline(always)]
        fn add(self, other: Self) -> Self {
            // SAFETY: the module's note.
            U32x16(unsafe { add(self.0, other.0) })
        }
        #[inline(always)]
        fn xor(self, other: Self) -> Self {
            // SAFETY: the module's note.
            U32x16(unsafe { xor(self.0, other.0) })
        }
        #[inline(always)]
        fn rotr(self, bits: u32) -> Self {
            // SAFETY: the module's note.
            U32x16(unsafe { rotr(self.0, bits) })
        }
    }
}

/// Eight lanes on AVX2: rotations by 16 and 8 move whole bytes (one `vpshufb`), by 12
/// and 7 two shifts and an or. Safety: `U32x8`'s note, as for the AVX-512 lanes.
#[cfg(target_arch = "x86_64")]
mod avx2 {
    use crate::u32x8::U32x8;
    use core::arch::x86_64::*;

    crate::isa_path!("avx2");

    kernels! {
        #[inline]
        fn add(a: __m256i, b: __m256i) -> __m256i {
            _mm256_add_epi32(a, b)
        }
        #[inline]
        fn xor(a: __m256i, b: __m256i) -> __m256i {
            _mm256_xor_si256(a, b)
        }
        #[inline]
        fn rotr(a: __m256i, bits: u32) -> __m256i {
            match bits {
                // Output byte k of each lane is input byte (k + 2) mod 4, or (k + 1) mod 4.
                16 => _mm256_shuffle_epi8(
                    a,
                    _mm256_setr_epi8(
                        2, 3, 0, 1, 6, 7, 4, 5, 10, 11, 8, 9, 14, 15, 12, 13, 2, 3, 0, 1, 6, 7, 4,
                        5, 10, 11, 8, 9, 14, 15, 12, 13,
                    ),
                ),
                8 => _mm256_shuffle_epi8(
                    a,
                    _mm256_setr_epi8(
                        1, 2, 3, 0, 5, 6, 7, 4, 9, 10, 11, 8, 13, 14, 15, 12, 1, 2, 3, 0, 5, 6, 7,
                        4, 9, 10, 11, 8, 13, 14, 15, 12,
                    ),
                ),
                12 => _mm256_or_si256(_mm256_srli_epi32::<12>(a), _mm256_slli_epi32::<20>(a)),
                7 => _mm256_or_si256(_mm256_srli_epi32::<7>(a), _mm256_slli_epi32::<25>(a)),
                _ => unreachable!("G rotates by 16, 12, 8 and 7"),
            }
        }
    }

    impl super::ArxLanes for U32x8 {
        const LANES: usize = 8;
        #[inline(always)]
        fn splat(x: u32) -> Self {
            U32x8::splat(x)
        }
        #[inline(always)]
        fn load(words: &[u32]) -> Self {
            U32x8::load(words)
        }
        #[inline(always)]
        fn store(self, out: &mut [u32]) {
            U32x8::store(self, out)
        }
        #[inline(always)]
        fn add(self, other: Self) -> Self {
            // SAFETY: the module's note.
            U32x8(unsafe { add(self.0, other.0) })
        }
        #[inline(always)]
        fn xor(self, other: Self) -> Self {
            // SAFETY: the module's note.
            U32x8(unsafe { xor(self.0, other.0) })
        }
        #[inline(always)]
        fn rotr(self, bits: u32) -> Self {
            // SAFETY: the module's note.
            U32x8(unsafe { rotr(self.0, bits) })
        }
    }
}

/// The quarter-round G on state words a, b, c, d with message words x, y: RFC 7693
/// §3.1 with BLAKE2s's rotations (16, 12, 8, 7), which BLAKE3 §2.2 keeps.
#[inline(always)]
pub fn g<L: ArxLanes>(v: &mut [L; 16], (a, b, c, d): (usize, usize, usize, usize), x: L, y: L) {
    v[a] = v[a].add(v[b]).add(x);
    v[d] = v[d].xor(v[a]).rotr(16);
    v[c] = v[c].add(v[d]);
    v[b] = v[b].xor(v[c]).rotr(12);
    v[a] = v[a].add(v[b]).add(y);
    v[d] = v[d].xor(v[a]).rotr(8);
    v[c] = v[c].add(v[d]);
    v[b] = v[b].xor(v[c]).rotr(7);
}

/// One round of both hashes: G on the four columns, then on the four diagonals, with
/// message words `m[s[0]], m[s[1]], …, m[s[15]]` in that order (BLAKE2s's σ row, or
/// BLAKE3's permuted identity).
#[inline(always)]
pub fn round<L: ArxLanes>(v: &mut [L; 16], m: &[L; 16], s: &[usize; 16]) {
    g(v, (0, 4, 8, 12), m[s[0]], m[s[1]]);
    g(v, (1, 5, 9, 13), m[s[2]], m[s[3]]);
    g(v, (2, 6, 10, 14), m[s[4]], m[s[5]]);
    g(v, (3, 7, 11, 15), m[s[6]], m[s[7]]);
    g(v, (0, 5, 10, 15), m[s[8]], m[s[9]]);
    g(v, (1, 6, 11, 12), m[s[10]], m[s[11]]);
    g(v, (2, 7, 8, 13), m[s[12]], m[s[13]]);
    g(v, (3, 4, 9, 14), m[s[14]], m[s[15]]);
}

/// The initial value both hashes start from: SHA-256's (RFC 7693 §2.6, BLAKE3 §2.1).
pub const IV: [u32; 8] = [
    0x6A09E667, 0xBB67AE85, 0x3C6EF372, 0xA54FF53A, 0x510E527F, 0x9B05688C, 0x1F83D9AB, 0x5BE0CD19,
];

#[cfg(test)]
mod tests {
    use super::*;

    /// A round on the SIMD lanes equals the round on arrays, lane for lane.
    #[cfg(target_arch = "x86_64")]
    #[test]
    fn simd_rounds_match_the_arrays() {
        fn check<L: ArxLanes, const N: usize>() {
            let words: [[u32; N]; 32] = core::array::from_fn(|i| {
                core::array::from_fn(|l| ((i * 31 + l * 7 + 1) as u32).wrapping_mul(0x9E37_79B9))
            });
            let (mut arrays, message) = (
                core::array::from_fn::<_, 16, _>(|i| words[i]),
                core::array::from_fn::<_, 16, _>(|i| words[16 + i]),
            );
            let mut lanes: [L; 16] = core::array::from_fn(|i| L::load(&arrays[i]));
            let message_lanes: [L; 16] = core::array::from_fn(|i| L::load(&message[i]));
            let s = [14, 10, 4, 8, 9, 15, 13, 6, 1, 12, 0, 2, 11, 7, 5, 3];
            round(&mut arrays, &message, &s);
            round(&mut lanes, &message_lanes, &s);
            for i in 0..16 {
                let mut out = [0u32; N];
                lanes[i].store(&mut out);
                assert_eq!(out, arrays[i], "word {i}");
            }
        }
        if avx512::supported() {
            // SAFETY of the vector values: made and used only after `supported()` held
            // (the test plays the kernel's part).
            check::<crate::u32x16::U32x16, 16>();
        }
        if avx2::supported() {
            check::<crate::u32x8::U32x8, 8>();
        }
    }

    /// G moves each lane as the one-lane reference does, lanes independent.
    #[test]
    fn lanes_are_independent() {
        let mut v: [Words<4>; 16] = core::array::from_fn(|i| {
            core::array::from_fn(|l| (i * 7 + l * 13) as u32 * 0x9E37_79B9)
        });
        let mut each: Vec<[Words<1>; 16]> = (0..4)
            .map(|l| core::array::from_fn(|i| [v[i][l]]))
            .collect();
        g(&mut v, (0, 4, 8, 12), [1, 2, 3, 4], [5, 6, 7, 8]);
        for (l, one) in each.iter_mut().enumerate() {
            g(one, (0, 4, 8, 12), [1 + l as u32], [5 + l as u32]);
            for i in 0..16 {
                assert_eq!(one[i][0], v[i][l]);
            }
        }
    }
}
