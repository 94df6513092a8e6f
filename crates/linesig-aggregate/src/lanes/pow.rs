//! The proof-of-work search on sixteen lanes: BLAKE3 of the transcript's pending bytes
//! followed by each candidate witness, sixteen candidates per compression.
//!
//! The FRI query phase asks for the least witness w after which the transcript's next
//! sample has `bits` low bits clear ([`crate::challenger`]). Every
//! candidate's hash input is the same bytes up to the witness's four, so the blocks
//! before the witness are compressed once ([`PowJob::new`]) and only the one or two
//! blocks holding it are compressed per candidate: sixteen candidates side by side, one
//! per 32-bit lane ([`super::blake3_lanes`]). Inputs longer than
//! one chunk (1,024 bytes) have no job; the transcript then checks candidates one at a
//! time.

use super::blake3_lanes::{
    compress, compress_one, xor, Words, BLOCK, CHUNK, CHUNK_END, CHUNK_START, IV, LANES, ROOT,
};
use super::ProverPath;
use p3_field::{PrimeCharacteristicRing, PrimeField32};
use p3_koala_bear::KoalaBear;
use rayon::prelude::*;

/// Candidates per parallel task.
const CANDIDATES_PER_TASK: u32 = 1024;

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
        let state = compress(&chaining_value, block, 0, len, flags);
        for (i, word) in chaining_value.iter_mut().enumerate() {
            *word = xor(state[i], state[i + 8]);
        }
        output = chaining_value[7];
    }
    // The sample is the last four output bytes, popped last first: bytes 31, 30, 29,
    // 28 read little-endian, so word 7 byte-swapped.
    (0..LANES).find(|&l| candidates[l] != u32::MAX && output[l].swap_bytes() & job.mask == 0)
}
