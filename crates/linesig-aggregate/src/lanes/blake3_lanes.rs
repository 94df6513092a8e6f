//! BLAKE3's compression (spec §2.2) in sixteen 32-bit lanes: sixteen blocks of sixteen
//! inputs side by side, for the proof-of-work search ([`super::pow`]: sixteen
//! candidate witnesses) and the Merkle leaves ([`super::leaves`]: sixteen rows). The
//! state words are `[u32; 16]`, whose element-wise loops compile to one vector operation
//! each under a kernel's AVX-512F or AVX2 features (and to SSE2 in the portable build);
//! the hot loops are `for` loops over them, not `array::from_fn` or iterator adapters, so
//! that nothing leaves the kernel's features.

use linesig_simd::arx::round;
pub(crate) use linesig_simd::arx::{xor, IV};

/// Inputs per compression.
pub(crate) const LANES: usize = 16;
/// BLAKE3's block and chunk, in bytes.
pub(crate) const BLOCK: usize = 64;
pub(crate) const CHUNK: usize = 1024;
/// §2.1: the domain flags, the message schedule.
pub(crate) const CHUNK_START: u32 = 1;
pub(crate) const CHUNK_END: u32 = 2;
pub(crate) const PARENT: u32 = 4;
pub(crate) const ROOT: u32 = 8;
const PERMUTATION: [usize; 16] = [2, 6, 3, 10, 7, 0, 4, 13, 1, 11, 12, 5, 9, 14, 15, 8];
/// Round r reads the message words in the order of PERMUTATION applied r times.
const IDENTITY: [usize; 16] = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15];

/// One 32-bit word per input.
pub(crate) type Words = linesig_simd::arx::Words<LANES>;

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
    for round_index in 0..7 {
        round(&mut v, &m, &IDENTITY);
        if round_index < 6 {
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
