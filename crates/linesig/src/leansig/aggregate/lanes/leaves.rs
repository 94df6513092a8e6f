//! The Merkle leaves of extension rows on lanes: BLAKE3 of a row's canonical values as
//! 4 little-endian bytes each ([`super::super::stark::Blake3Rows`]'s bytes), the
//! Montgomery words turned canonical sixteen at a time. Element by element (the
//! canonical value, then its bytes appended to a buffer) that conversion cost about a
//! fifth as much as the hashing itself over 920-column rows.

use super::lanes16::{load_columns, monty_words, store_columns, WIDTH};
use super::ProverPath;
use crate::leansig::lanes::portable::Portable;
use crate::leansig::lanes::KoalaLanes;
use p3_koala_bear::KoalaBear;

/// A row's digest: BLAKE3's 32 bytes.
pub(crate) type Digest = [u8; 32];

/// The digest of every row of `rows` (row-major, `width` columns), in order.
pub(crate) fn row_digests(path: ProverPath, rows: &[KoalaBear], width: usize) -> Vec<Digest> {
    let kernel: fn(&[u32], &mut [u32]) = match path {
        #[cfg(target_arch = "x86_64")]
        ProverPath::Avx512 => super::avx512::canonical_words,
        #[cfg(target_arch = "x86_64")]
        ProverPath::Avx2 => super::avx2::canonical_words,
        _ => canonical_words_lanes::<Portable<WIDTH>>,
    };
    let mut words = vec![0u32; width];
    monty_words(rows)
        .chunks_exact(width)
        .map(|row| {
            kernel(row, &mut words);
            if cfg!(target_endian = "little") {
                // SAFETY: the bytes of `words`' memory, which it borrows for the call;
                // u8 has alignment 1 and every bit pattern is a u8. On a little-endian
                // target they are each word's little-endian bytes.
                let bytes = unsafe {
                    core::slice::from_raw_parts(words.as_ptr().cast::<u8>(), words.len() * 4)
                };
                blake3::hash(bytes).into()
            } else {
                let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
                blake3::hash(&bytes).into()
            }
        })
        .collect()
}

/// `out` gets the canonical values of the Montgomery words `words` (equal lengths): the
/// Montgomery product with 1 is x·2^32·2^−32 = x, reduced to [0, p).
#[inline(always)]
pub(super) fn canonical_words_lanes<L: KoalaLanes>(words: &[u32], out: &mut [u32]) {
    // Plain loops, no closures: a closure would not inherit the kernel's features.
    let one = L::splat(1);
    for at in (0..words.len()).step_by(WIDTH) {
        let x: L = load_columns(words, at);
        store_columns(x.mul(one), out, at);
    }
}
