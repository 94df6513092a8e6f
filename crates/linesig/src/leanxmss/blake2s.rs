//! BLAKE2s-256 (RFC 7693), unkeyed, over `N` inputs side by side: one compression
//! advances `N` hashes of inputs of one length, each lane a 32-bit word of its own
//! input. leanXMSS hashes only whole words (every input is a multiple of 16 bytes), so
//! the lane form takes words; [`hash`] takes any bytes, one input at a time, for the
//! spec's `blake2s` vectors and the randomizer.
//!
//! The arithmetic is linesig-simd's `arx` lanes (the quarter-round BLAKE3 shares): the
//! compression is written once over `ArxLanes`, and each ISA path of [`super::lanes`]
//! compiles it as a kernel over its vector type (`U32x16`, `U32x8`) or the portable
//! model (`[u32; N]`).

// Lane code indexes words by lane (`x[word][lane]`) and lanes by number: the loops
// name the lane they transpose, which iterator chains over two axes would hide.
#![allow(clippy::needless_range_loop)]

use linesig_simd::arx::{round, ArxLanes, Words, IV};

/// Bytes and words of one compression's block.
pub(crate) const BLOCK_BYTES: usize = 64;
pub(crate) const BLOCK_WORDS: usize = 16;

/// RFC 7693 §2.7: the message schedule σ of each of the ten rounds.
const SIGMA: [[usize; 16]; 10] = [
    [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15],
    [14, 10, 4, 8, 9, 15, 13, 6, 1, 12, 0, 2, 11, 7, 5, 3],
    [11, 8, 12, 0, 5, 2, 15, 13, 10, 14, 3, 6, 7, 1, 9, 4],
    [7, 9, 3, 1, 13, 12, 11, 14, 2, 6, 5, 10, 4, 0, 15, 8],
    [9, 0, 5, 7, 2, 4, 10, 15, 14, 1, 11, 12, 6, 8, 3, 13],
    [2, 12, 6, 10, 0, 11, 8, 3, 4, 13, 7, 5, 15, 14, 1, 9],
    [12, 5, 1, 15, 14, 13, 4, 10, 0, 7, 6, 3, 9, 2, 8, 11],
    [13, 11, 7, 14, 12, 1, 3, 9, 5, 0, 15, 4, 8, 6, 2, 10],
    [6, 15, 14, 9, 11, 3, 0, 8, 12, 2, 13, 7, 1, 4, 10, 5],
    [10, 2, 8, 4, 7, 6, 1, 5, 15, 11, 9, 14, 3, 12, 13, 0],
];

/// RFC 7693 §3.3: h₀ = IV with the parameter block's first word xored in: digest
/// length 32, key length 0, fanout 1, depth 1 (0x0101_0020).
const H0: [u32; 8] = {
    let mut h = IV;
    h[0] ^= 0x0101_0020;
    h
};

/// One ISA path's compression of `N` lanes, handed to the lane algorithms (verify,
/// keygen, the randomizer search) by the kernels that run them. Each path compiles the
/// ten rounds once, out of line ([`super::lanes`]): inlined at every use, the
/// straight-line rounds made each binary's link-time optimisation take minutes.
pub(crate) trait Compress<const N: usize>: Copy {
    /// RFC 7693 §3.2's F (see [`compress_inline`]).
    fn compress(self, h: &mut [Words<N>; 8], m: &[Words<N>; BLOCK_WORDS], t: u64, last: bool);
}

/// One input on the build's baseline features, out of line: the key's own hashes, the
/// spec-level calls, the lone signature.
#[derive(Clone, Copy)]
pub(crate) struct One;

impl Compress<1> for One {
    #[inline(always)]
    fn compress(self, h: &mut [Words<1>; 8], m: &[Words<1>; BLOCK_WORDS], t: u64, last: bool) {
        compress_one(h, m, t, last)
    }
}

#[inline(never)]
fn compress_one(h: &mut [Words<1>; 8], m: &[Words<1>; BLOCK_WORDS], t: u64, last: bool) {
    compress_inline::<[u32; 1], 1>(h, m, t, last)
}

/// RFC 7693 §3.2's F: compress one block `m` into the state `h`, `t` bytes hashed so
/// far including this block, `last` for the final block. `t` and `last` are the same
/// in every lane: the lanes' inputs have one length.
#[inline(always)]
pub(crate) fn compress_inline<L: ArxLanes, const N: usize>(
    h: &mut [Words<N>; 8],
    m: &[Words<N>; BLOCK_WORDS],
    t: u64,
    last: bool,
) {
    debug_assert_eq!(L::LANES, N);
    let m: [L; BLOCK_WORDS] = core::array::from_fn(|i| L::load(&m[i]));
    let mut v: [L; 16] = core::array::from_fn(|i| match i {
        0..8 => L::load(&h[i]),
        _ => L::splat(IV[i - 8]),
    });
    v[12] = v[12].xor(L::splat(t as u32));
    v[13] = v[13].xor(L::splat((t >> 32) as u32));
    if last {
        v[14] = v[14].xor(L::splat(u32::MAX));
    }
    // Written out, not a loop: each round's σ is then a constant where it is used, so
    // the message words stay in registers (a loop over SIGMA indexes them at run time
    // through memory).
    round(&mut v, &m, &SIGMA[0]);
    round(&mut v, &m, &SIGMA[1]);
    round(&mut v, &m, &SIGMA[2]);
    round(&mut v, &m, &SIGMA[3]);
    round(&mut v, &m, &SIGMA[4]);
    round(&mut v, &m, &SIGMA[5]);
    round(&mut v, &m, &SIGMA[6]);
    round(&mut v, &m, &SIGMA[7]);
    round(&mut v, &m, &SIGMA[8]);
    round(&mut v, &m, &SIGMA[9]);
    for i in 0..8 {
        L::load(&h[i]).xor(v[i]).xor(v[i + 8]).store(&mut h[i]);
    }
}

/// The initial state of `N` hashes.
#[inline(always)]
pub(crate) fn initial_state<const N: usize>() -> [Words<N>; 8] {
    H0.map(|w| [w; N])
}

/// BLAKE2s-256 of `N` inputs of `input.len()` little-endian words each (word `i` of
/// lane `l` is `input[i][l]`): the eight words of each digest.
#[inline(always)]
pub(crate) fn hash_words<const N: usize, C: Compress<N>>(
    c: C,
    input: &[Words<N>],
) -> [Words<N>; 8] {
    let mut h = initial_state::<N>();
    let bytes = 4 * input.len() as u64;
    // RFC 7693 §3.3: every block but the last is full; an empty input is one block of
    // zeros, counter 0, flagged last.
    let blocks = input.len().div_ceil(BLOCK_WORDS).max(1);
    for b in 0..blocks {
        let words =
            &input[(b * BLOCK_WORDS).min(input.len())..((b + 1) * BLOCK_WORDS).min(input.len())];
        let last = b + 1 == blocks;
        let t = if last {
            bytes
        } else {
            ((b + 1) * BLOCK_BYTES) as u64
        };
        // One call site of the (large, inlined) compression per use of this function.
        let mut m = [[0u32; N]; BLOCK_WORDS];
        m[..words.len()].copy_from_slice(words);
        c.compress(&mut h, &m, t, last);
    }
    h
}

/// BLAKE2s-256 of any bytes, one input: the spec's `Blake2s.hash`.
pub fn hash(input: &[u8]) -> [u8; 32] {
    let mut h = initial_state::<1>();
    let blocks = input.len().div_ceil(BLOCK_BYTES).max(1);
    for b in 0..blocks {
        let chunk =
            &input[(b * BLOCK_BYTES).min(input.len())..((b + 1) * BLOCK_BYTES).min(input.len())];
        let mut block = [0u8; BLOCK_BYTES];
        block[..chunk.len()].copy_from_slice(chunk);
        let m: [Words<1>; BLOCK_WORDS] = core::array::from_fn(|i| {
            [u32::from_le_bytes(
                block[4 * i..4 * i + 4].try_into().expect("4 bytes"),
            )]
        });
        let last = b + 1 == blocks;
        let t = if last {
            input.len() as u64
        } else {
            ((b + 1) * BLOCK_BYTES) as u64
        };
        One.compress(&mut h, &m, t, last);
    }
    let mut out = [0u8; 32];
    for (i, word) in h.iter().enumerate() {
        out[4 * i..4 * i + 4].copy_from_slice(&word[0].to_le_bytes());
    }
    out
}

/// Little-endian words of `bytes` (a multiple of 4 long).
pub(crate) fn words_of<const W: usize>(bytes: &[u8]) -> [u32; W] {
    core::array::from_fn(|i| {
        u32::from_le_bytes(bytes[4 * i..4 * i + 4].try_into().expect("4 bytes"))
    })
}

/// The bytes of little-endian `words`.
pub(crate) fn bytes_of(words: &[u32], out: &mut [u8]) {
    for (chunk, word) in out.chunks_exact_mut(4).zip(words) {
        chunk.copy_from_slice(&word.to_le_bytes());
    }
}
