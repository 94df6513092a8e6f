//! The proof-of-work search on sixteen lanes: BLAKE3 of the transcript's pending bytes
//! followed by each candidate witness, sixteen candidates per compression.
//!
//! The FRI query phase asks for the least witness w after which the transcript's next
//! sample has `bits` low bits clear ([`crate::leansig::aggregate::challenger`]). Every
//! candidate's hash input is the same bytes up to the witness's four, so the blocks
//! before the witness are compressed once ([`PowJob::new`]) and only the one or two
//! blocks holding it are compressed per candidate: sixteen candidates side by side, one
//! per 32-bit lane (BLAKE3 spec §2.2's compression; the state words are `[u32; 16]`,
//! whose element-wise loops compile to one vector operation each under the kernel's
//! AVX-512F or AVX2 features, and to SSE2 in the portable build). Inputs longer than
//! one chunk (1,024 bytes) have no job; the transcript then checks candidates one at a
//! time.

use super::ProverPath;
use p3_field::{PrimeCharacteristicRing, PrimeField32};
use p3_koala_bear::KoalaBear;
use rayon::prelude::*;

/// Candidates per compression.
pub(crate) const LANES: usize = 16;
/// BLAKE3's block and chunk, in bytes.
const BLOCK: usize = 64;
const CHUNK: usize = 1024;
/// BLAKE3 spec §2.1: the IV (SHA-256's), the domain flags, the message schedule.
const IV: [u32; 8] = [
    0x6A09E667, 0xBB67AE85, 0x3C6EF372, 0xA54FF53A, 0x510E527F, 0x9B05688C, 0x1F83D9AB, 0x5BE0CD19,
];
const CHUNK_START: u32 = 1;
const CHUNK_END: u32 = 2;
const ROOT: u32 = 8;
const PERMUTATION: [usize; 16] = [2, 6, 3, 10, 7, 0, 4, 13, 1, 11, 12, 5, 9, 14, 15, 8];

/// Candidates per parallel task.
const CANDIDATES_PER_TASK: u32 = 1024;

/// One 32-bit word per candidate. The hot loops below are `for` loops over these, not
/// `array::from_fn` or iterator adapters, so that nothing leaves the kernel's features.
type Words = [u32; LANES];

/// What every candidate's hash shares: the chaining value after the blocks before the
/// witness, and the one or two blocks that hold it, with the witness's bytes zero.
#[derive(Clone, Debug)]
pub(crate) struct PowJob {
    chaining_value: [u32; 8],
    /// The last blocks' words, little-endian (§2.4), the witness's bytes zero.
    tail: [u32; 2 * BLOCK / 4],
    /// Blocks in `tail` (1 or 2), and the index in the chunk of its first.
    tail_blocks: usize,
    first_tail_block: usize,
    /// Bytes of the last block (1..=64).
    last_block_len: u32,
    /// Where the witness's bytes start in `tail`.
    witness_offset: usize,
    /// The low bits of the sample that must be clear.
    mask: u32,
}

impl PowJob {
    /// The search for `bits` over `pending ‖ witness`, or `None` past one chunk.
    pub(crate) fn new(pending: &[u8], bits: usize) -> Option<Self> {
        let len = pending.len() + 4;
        if len > CHUNK || bits >= 32 {
            return None;
        }
        let first_tail_block = pending.len() / BLOCK;
        let last_block = (len - 1) / BLOCK;
        let mut chaining_value = IV;
        for (index, block) in pending
            .chunks_exact(BLOCK)
            .take(first_tail_block)
            .enumerate()
        {
            let flags = if index == 0 { CHUNK_START } else { 0 };
            let words = core::array::from_fn(|w| word_at(block, 4 * w));
            chaining_value = compress_one(&chaining_value, &words, BLOCK as u32, flags);
        }
        let rest = &pending[first_tail_block * BLOCK..];
        let mut tail = [0u32; 2 * BLOCK / 4];
        for (w, word) in tail.iter_mut().enumerate() {
            *word = word_at(rest, 4 * w);
        }
        Some(PowJob {
            chaining_value,
            tail,
            tail_blocks: last_block - first_tail_block + 1,
            first_tail_block,
            last_block_len: (len - last_block * BLOCK) as u32,
            witness_offset: rest.len(),
            mask: (1u32 << bits) - 1,
        })
    }

    /// Whether `candidate` is a witness (the one-lane form of [`first_witness_lanes`]).
    #[cfg(test)]
    pub(crate) fn is_witness(&self, candidate: u32) -> bool {
        let mut candidates = [candidate; LANES];
        candidates[1..].fill(u32::MAX);
        first_witness_lanes(self, &candidates) == Some(0)
    }
}

/// The least witness in `start..end` (below p), on `path`'s lanes across the threads.
pub(crate) fn least_witness(path: ProverPath, job: &PowJob, start: u32, end: u32) -> Option<u32> {
    let kernel = match path {
        #[cfg(target_arch = "x86_64")]
        ProverPath::Avx512 => super::avx512::least_witness,
        #[cfg(target_arch = "x86_64")]
        ProverPath::Avx2 => super::avx2::least_witness,
        _ => least_witness_lanes,
    };
    let tasks = (end - start).div_ceil(CANDIDATES_PER_TASK);
    (0..tasks).into_par_iter().find_map_first(|task| {
        let from = start + task * CANDIDATES_PER_TASK;
        kernel(job, from, end.min(from + CANDIDATES_PER_TASK))
    })
}

/// The least witness in `start..end`, sixteen candidates at a time. Inlined into each
/// path's kernel, and a plain loop: an iterator adapter's method is compiled without
/// the kernel's features, and the compression inlined into it would run on SSE2.
#[inline(always)]
pub(crate) fn least_witness_lanes(job: &PowJob, start: u32, end: u32) -> Option<u32> {
    let mut first = start;
    while first < end {
        let mut candidates = [u32::MAX; LANES];
        for (l, candidate) in candidates.iter_mut().enumerate() {
            if first + (l as u32) < end {
                *candidate = first + l as u32;
            }
        }
        if let Some(l) = first_witness_lanes(job, &candidates) {
            return Some(first + l as u32);
        }
        first += LANES as u32;
    }
    None
}

/// The word of `bytes` from `at`, little-endian, zero past the end.
fn word_at(bytes: &[u8], at: usize) -> u32 {
    let mut word = [0u8; 4];
    for (k, b) in word.iter_mut().enumerate() {
        *b = bytes.get(at + k).copied().unwrap_or(0);
    }
    u32::from_le_bytes(word)
}

/// The lane of the first of `candidates` (field elements as canonical integers;
/// `u32::MAX` for none) that is a witness.
#[inline(always)]
pub(crate) fn first_witness_lanes(job: &PowJob, candidates: &Words) -> Option<usize> {
    // The transcript absorbs a field element as its Montgomery form (Plonky3's
    // `to_unique_u32`), little-endian.
    let mut witness: Words = [0; LANES];
    for (w, &candidate) in witness.iter_mut().zip(candidates) {
        *w = KoalaBear::from_u32(candidate % KoalaBear::ORDER_U32).to_unique_u32();
    }
    let mut message = [[0u32; LANES]; 2 * BLOCK / 4];
    for (w, words) in message.iter_mut().enumerate() {
        *words = [job.tail[w]; LANES];
    }
    // The witness's four bytes: within one word, or across two at a byte offset.
    let (word, shift) = (job.witness_offset / 4, 8 * (job.witness_offset % 4) as u32);
    for l in 0..LANES {
        message[word][l] |= witness[l] << shift;
        if shift != 0 {
            message[word + 1][l] |= witness[l] >> (32 - shift);
        }
    }
    let mut chaining_value: [Words; 8] = job.chaining_value.map(|w| [w; LANES]);
    let mut output = [0u32; LANES];
    for b in 0..job.tail_blocks {
        let index = job.first_tail_block + b;
        let last = b + 1 == job.tail_blocks;
        let mut flags = if index == 0 { CHUNK_START } else { 0 };
        let mut len = BLOCK as u32;
        if last {
            flags |= CHUNK_END | ROOT;
            len = job.last_block_len;
        }
        let block: &[Words; 16] = message[16 * b..16 * b + 16].try_into().expect("16 words");
        let state = compress(&chaining_value, block, len, flags);
        for (i, word) in chaining_value.iter_mut().enumerate() {
            *word = xor(state[i], state[i + 8]);
        }
        output = chaining_value[7];
    }
    // The sample is the last four output bytes, popped last first: bytes 31, 30, 29,
    // 28 read little-endian, so word 7 byte-swapped.
    (0..LANES).find(|&l| candidates[l] != u32::MAX && output[l].swap_bytes() & job.mask == 0)
}

/// §2.2's compression of one block in every lane, its sixteen state words out (the
/// chaining value is the first eight xor the last eight).
#[inline(always)]
fn compress(chaining_value: &[Words; 8], block: &[Words; 16], len: u32, flags: u32) -> [Words; 16] {
    let mut v: [Words; 16] = [[0; LANES]; 16];
    v[..8].copy_from_slice(chaining_value);
    for i in 0..4 {
        v[8 + i] = [IV[i]; LANES];
    }
    // The counter is the chunk's index: 0 for the one chunk there is.
    v[12] = [0; LANES];
    v[13] = [0; LANES];
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

/// One lane's compression of a whole block (the blocks before the witness).
fn compress_one(chaining_value: &[u32; 8], block: &[u32; 16], len: u32, flags: u32) -> [u32; 8] {
    let state = compress(
        &chaining_value.map(|w| [w; LANES]),
        &block.map(|w| [w; LANES]),
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
fn add(a: Words, b: Words) -> Words {
    let mut out = a;
    for (x, y) in out.iter_mut().zip(b) {
        *x = x.wrapping_add(y);
    }
    out
}

#[inline(always)]
fn xor(a: Words, b: Words) -> Words {
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
