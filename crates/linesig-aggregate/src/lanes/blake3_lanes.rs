//! BLAKE3's compression (spec §2.2) in sixteen 32-bit lanes: sixteen blocks of sixteen
//! inputs side by side, for the proof-of-work search ([`super::pow`]: sixteen
//! candidate witnesses) and the Merkle leaves ([`super::leaves`]: sixteen rows). The
//! state words are `[u32; 16]`, whose element-wise loops compile to one vector operation
//! each under a kernel's AVX-512F or AVX2 features (and to SSE2 in the portable build);
//! the hot loops are `for` loops over them, not `array::from_fn` or iterator adapters, so
//! that nothing leaves the kernel's features.

/// Inputs per compression.
pub(crate) const LANES: usize = 16;
/// BLAKE3's block and chunk, in bytes.
pub(crate) const BLOCK: usize = 64;
pub(crate) const CHUNK: usize = 1024;
/// §2.1: the IV (SHA-256's), the domain flags, the message schedule.
pub(crate) const IV: [u32; 8] = [
    0x6A09E667, 0xBB67AE85, 0x3C6EF372, 0xA54FF53A, 0x510E527F, 0x9B05688C, 0x1F83D9AB, 0x5BE0CD19,
];
pub(crate) const CHUNK_START: u32 = 1;
pub(crate) const CHUNK_END: u32 = 2;
pub(crate) const PARENT: u32 = 4;
pub(crate) const ROOT: u32 = 8;
const PERMUTATION: [usize; 16] = [2, 6, 3, 10, 7, 0, 4, 13, 1, 11, 12, 5, 9, 14, 15, 8];

/// One 32-bit word per input.
pub(crate) type Words = [u32; LANES];

/// §2.2's compression of one block in every lane, its sixteen state words out (the
/// chaining value is the first eight xor the last eight); `counter` is the chunk's index
/// (0 for a parent), the same in every lane.
#[inline(always)]
pub(crate) fn compress(
    chaining_value: &[Words; 8],
    block: &[Words; 16],
    counter: u64,
    len: u32,
    flags: u32,
) -> [Words; 16] {
    let mut v: [Words; 16] = [[0; LANES]; 16];
    v[..8].copy_from_slice(chaining_value);
    for i in 0..4 {
        v[8 + i] = [IV[i]; LANES];
    }
    v[12] = [counter as u32; LANES];
    v[13] = [(counter >> 32) as u32; LANES];
    v[14] = [len; LANES];
    v[15] = [flags; LANES];
    let mut m = *block;
    for round in 0..7 {
        g(&mut v, 0, 4, 8, 12, m[0], m[1]);
        g(&mut v, 1, 5, 9, 13, m[2], m[3]);
        g(&mut v, 2, 6, 10, 14, m[4], m[5]);
        g(&mut v, 3, 7, 11, 15, m[6], m[7]);
        g(&mut v, 0, 5, 10, 15, m[8], m[9]);
        g(&mut v, 1, 6, 11, 12, m[10], m[11]);
        g(&mut v, 2, 7, 8, 13, m[12], m[13]);
        g(&mut v, 3, 4, 9, 14, m[14], m[15]);
        if round < 6 {
            let before = m;
            for (word, &from) in m.iter_mut().zip(&PERMUTATION) {
                *word = before[from];
            }
        }
    }
    v
}

/// One lane's compression of a whole block of the first chunk (the blocks before a
/// proof-of-work witness).
pub(crate) fn compress_one(
    chaining_value: &[u32; 8],
    block: &[u32; 16],
    len: u32,
    flags: u32,
) -> [u32; 8] {
    let state = compress(
        &chaining_value.map(|w| [w; LANES]),
        &block.map(|w| [w; LANES]),
        0,
        len,
        flags,
    );
    core::array::from_fn(|i| state[i][0] ^ state[i + 8][0])
}

/// §2.2's quarter-round G on columns or diagonals a, b, c, d.
#[inline(always)]
fn g(v: &mut [Words; 16], a: usize, b: usize, c: usize, d: usize, x: Words, y: Words) {
    v[a] = add(add(v[a], v[b]), x);
    v[d] = rotr(xor(v[d], v[a]), 16);
    v[c] = add(v[c], v[d]);
    v[b] = rotr(xor(v[b], v[c]), 12);
    v[a] = add(add(v[a], v[b]), y);
    v[d] = rotr(xor(v[d], v[a]), 8);
    v[c] = add(v[c], v[d]);
    v[b] = rotr(xor(v[b], v[c]), 7);
}

#[inline(always)]
pub(crate) fn add(a: Words, b: Words) -> Words {
    let mut out = a;
    for (x, y) in out.iter_mut().zip(b) {
        *x = x.wrapping_add(y);
    }
    out
}

#[inline(always)]
pub(crate) fn xor(a: Words, b: Words) -> Words {
    let mut out = a;
    for (x, y) in out.iter_mut().zip(b) {
        *x ^= y;
    }
    out
}

#[inline(always)]
fn rotr(a: Words, n: u32) -> Words {
    let mut out = a;
    for x in out.iter_mut() {
        *x = x.rotate_right(n);
    }
    out
}
