//! The Merkle leaves of extension rows on lanes: BLAKE3 of each row's canonical values as
//! 4 little-endian bytes each ([`crate::stark::Blake3Rows`]'s bytes), sixteen
//! rows side by side in [`super::blake3_lanes`]' compression.
//!
//! Why not the `blake3` crate row by row: a 920-column row is three whole chunks and a
//! partial one, and `blake3::hash` compresses so few chunks one block at a time, in one
//! lane of its SIMD; sixteen rows fill all sixteen lanes. The rows' words are turned
//! canonical (a Montgomery product with 1) as they are gathered into the lanes.

use super::blake3_lanes::{
    compress, xor, Words, BLOCK, CHUNK, CHUNK_END, CHUNK_START, IV, LANES, PARENT, ROOT,
};
use super::lanes16::monty_words;
use super::ProverPath;
use linesig::leansig::internals::lanes::KoalaLanes;
use linesig::leansig::internals::lanes::Portable;
use p3_koala_bear::KoalaBear;
use rayon::prelude::*;

/// A row's digest: BLAKE3's 32 bytes.
pub(crate) type Digest = [u8; 32];

/// Rows of at most 2^MAX_DEPTH chunks (256 KiB) hash on lanes; wider rows one by one
/// (the stack of chaining values holds MAX_DEPTH).
const MAX_DEPTH: usize = 8;

/// The digest of every row of `rows` (row-major, `width` columns), in order; sixteen
/// rows per task.
pub(crate) fn row_digests(path: ProverPath, rows: &[KoalaBear], width: usize) -> Vec<Digest> {
    assert!(width > 0 && rows.len().is_multiple_of(width), "whole rows");
    let mut digests = vec![[0u8; 32]; rows.len() / width];
    let rows = monty_words(rows).par_chunks(LANES * width);
    let Some(steps) = Step::tree(width) else {
        digests
            .par_chunks_mut(LANES)
            .zip(rows)
            .for_each(|(out, rows)| row_digests_one_by_one(rows, width, out));
        return digests;
    };
    let kernel: fn(&[u32], usize, &[Step], &mut [Digest]) = match path {
        #[cfg(target_arch = "x86_64")]
        ProverPath::Avx512 => super::avx512::row_digests,
        #[cfg(target_arch = "x86_64")]
        ProverPath::Avx2 => super::avx2::row_digests,
        _ => row_digests_lanes::<Portable<LANES>>,
    };
    digests
        .par_chunks_mut(LANES)
        .zip(rows)
        .for_each(|(out, rows)| kernel(rows, width, &steps, out));
    digests
}

/// The `blake3` crate, row by row (rows wider than the lanes' tree takes).
fn row_digests_one_by_one(rows: &[u32], width: usize, out: &mut [Digest]) {
    for (row, out) in rows.chunks_exact(width).zip(out) {
        let bytes: Vec<u8> = row
            .iter()
            .flat_map(|&w| linesig::leansig::internals::lanes::from_monty(w).to_le_bytes())
            .collect();
        *out = blake3::hash(&bytes).into();
    }
}

/// One compression of a row's hash: a block of the row (its words from `first_word`,
/// zero past the row's end), or the parent of the chaining value on top of the stack
/// and the current one.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Step {
    /// `None` for a parent.
    first_word: Option<usize>,
    counter: u64,
    len: u32,
    flags: u32,
    /// Start from the IV (a chunk's first block; every parent).
    fresh: bool,
    /// Push the chaining value after it (a complete subtree's root, not the last).
    push: bool,
}

impl Step {
    /// The compressions of the hash of a row of `width` words, in order: each chunk's
    /// blocks (§2.4: the chunk's index as the counter, its first and last block
    /// flagged), and the chunks' chaining values merged as the reference's stack does
    /// (§5.1.2: a subtree is merged as soon as it is complete; the last chunk's value
    /// then merges with the stack from the top down), the root flagged on the last.
    /// `None` past 2^MAX_DEPTH chunks.
    fn tree(width: usize) -> Option<Vec<Step>> {
        let bytes = 4 * width;
        let chunks = bytes.div_ceil(CHUNK);
        if chunks > 1 << MAX_DEPTH {
            return None;
        }
        let mut steps = Vec::new();
        let mut depth = 0;
        for chunk in 0..chunks {
            let chunk_bytes = (bytes - chunk * CHUNK).min(CHUNK);
            let blocks = chunk_bytes.div_ceil(BLOCK);
            for b in 0..blocks {
                let mut flags = if b == 0 { CHUNK_START } else { 0 };
                if b + 1 == blocks {
                    flags |= CHUNK_END;
                    if chunks == 1 {
                        flags |= ROOT;
                    }
                }
                steps.push(Step {
                    first_word: Some((chunk * CHUNK + b * BLOCK) / 4),
                    counter: chunk as u64,
                    len: (chunk_bytes - b * BLOCK).min(BLOCK) as u32,
                    flags,
                    fresh: b == 0,
                    push: false,
                });
            }
            let parent = |flags| Step {
                first_word: None,
                counter: 0,
                len: BLOCK as u32,
                flags,
                fresh: true,
                push: false,
            };
            if chunk + 1 < chunks {
                let mut complete = chunk + 1;
                while complete & 1 == 0 {
                    steps.push(parent(PARENT));
                    depth -= 1;
                    complete >>= 1;
                }
                steps.last_mut().expect("a step").push = true;
                depth += 1;
            } else {
                while depth > 0 {
                    depth -= 1;
                    steps.push(parent(if depth == 0 { PARENT | ROOT } else { PARENT }));
                }
            }
        }
        Some(steps)
    }
}

/// The digests of `out.len()` (at most [`LANES`]) rows of `rows` (Montgomery words,
/// `width` columns), row l in lane l, by `steps` ([`Step::tree`]). One call site of the
/// compression for blocks and parents alike: a second one (a parent's) was compiled
/// scalar, lane by lane, and cost as much as all the vector ones.
#[inline(always)]
pub(super) fn row_digests_lanes<L: KoalaLanes>(
    rows: &[u32],
    width: usize,
    steps: &[Step],
    out: &mut [Digest],
) {
    // Plain loops, no closures: a closure would not inherit the kernel's features.
    let count = out.len();
    let one = L::splat(1);
    let mut stack: [[Words; 8]; MAX_DEPTH] = [[[0; LANES]; 8]; MAX_DEPTH];
    let mut depth = 0;
    let mut block: [Words; 16] = [[0; LANES]; 16];
    let mut chaining_value: [Words; 8] = [[0; LANES]; 8];
    for step in steps {
        match step.first_word {
            Some(first_word) => {
                for (w, words) in block.iter_mut().enumerate() {
                    let column = first_word + w;
                    *words = [0; LANES];
                    if column < width {
                        for l in 0..count {
                            words[l] = rows[l * width + column];
                        }
                        // Canonical: the Montgomery product with 1 is x·2^32·2^−32.
                        L::load(words).mul(one).store(words);
                    }
                }
            }
            None => {
                depth -= 1;
                block[..8].copy_from_slice(&stack[depth]);
                block[8..].copy_from_slice(&chaining_value);
            }
        }
        if step.fresh {
            for (word, &iv) in chaining_value.iter_mut().zip(&IV) {
                *word = [iv; LANES];
            }
        }
        let state = compress(&chaining_value, &block, step.counter, step.len, step.flags);
        for i in 0..8 {
            chaining_value[i] = xor(state[i], state[i + 8]);
        }
        if step.push {
            stack[depth] = chaining_value;
            depth += 1;
        }
    }
    for (l, out) in out.iter_mut().enumerate() {
        for (i, word) in chaining_value.iter().enumerate() {
            out[4 * i..4 * i + 4].copy_from_slice(&word[l].to_le_bytes());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use p3_field::{PrimeCharacteristicRing, PrimeField32};
    use p3_symmetric::CryptographicHasher;
    use rand::{Rng, SeedableRng};
    use rand_chacha::ChaCha8Rng;

    /// Every path's leaves are `Blake3Rows`' (the `blake3` crate over the canonical
    /// bytes) for widths of one block, one chunk, every boundary around them, the
    /// prover's 920 columns and more chunks than a power of two; row counts not a
    /// multiple of sixteen.
    #[test]
    fn the_lanes_leaves_are_blake3s() {
        let mut rng = ChaCha8Rng::seed_from_u64(9);
        let widths = [
            1, 2, 15, 16, 17, 31, 32, 33, 255, 256, 257, 511, 512, 513, 768, 769, 920, 1024, 1280,
            1300, 2049,
        ];
        for width in widths {
            let height = 1 + rng.gen_range(0..40);
            let rows: Vec<KoalaBear> = (0..width * height)
                .map(|_| KoalaBear::from_u32(rng.gen_range(0..KoalaBear::ORDER_U32)))
                .collect();
            let expected: Vec<Digest> = rows
                .chunks_exact(width)
                .map(|row| crate::stark::Blake3Rows.hash_iter(row.iter().copied()))
                .collect();
            for path in ProverPath::supported() {
                assert!(
                    row_digests(path, &rows, width) == expected,
                    "{} path, width {width}",
                    path.name()
                );
            }
        }
    }
}
