//! The lane algorithms of key generation and signing (cryptography-specs
//! `Xmss/Ots.lean`, `KeyGen.lean`, `Merkle.lean`, `Sign.lean`), generic over the lanes'
//! count and compression: chain walks, leaves, Merkle parents and the randomizer
//! search, `N` epochs, nodes or attempts per compression. [`super::lanes`] compiles
//! them for each ISA path; [`super::keys`] holds the key that calls them.

// Lane code indexes words by lane (`x[word][lane]`) and lanes by number: the loops
// name the lane they transpose, which iterator chains over two axes would hide.
#![allow(clippy::needless_range_loop)]

use super::blake2s::{self, initial_state, Compress, BLOCK_WORDS};
use super::encoding::{admissible, digits};
use super::tweak::{Digest, TweakKind, DIGEST_WORDS, PREFIX_WORDS, TWEAK_WORDS};
use super::verify::{encoding_input, ENCODING_INPUT_WORDS, MESSAGE_WORDS, RANDOMNESS_WORDS};
use super::{Instance, CHAINS, CHAIN_LENGTH, SEED_BYTES};
use linesig_simd::arx::Words;

/// Words of the seed.
pub(crate) const SEED_WORDS: usize = SEED_BYTES / 4;
/// The spec's bound on randomizer attempts (`MAX_RANDOMIZER_TRIALS`, 2^32).
pub const MAX_RANDOMIZER_TRIALS: u64 = 1 << 32;

/// Walk chain `chain` of each lane through the steps leaving `positions` (`chain`).
#[inline(always)]
pub(crate) fn walk<const N: usize, C: Compress<N>>(
    c: C,
    instance: Instance,
    (pp, epochs): ([Digest; N], [u32; N]),
    chain: usize,
    positions: core::ops::Range<usize>,
    mut value: [Digest; N],
) -> [Digest; N] {
    let mut block = [[0u32; N]; BLOCK_WORDS];
    for l in 0..N {
        for i in 0..DIGEST_WORDS {
            block[TWEAK_WORDS + i][l] = pp[l][i];
        }
    }
    for position in positions {
        for l in 0..N {
            let tweak = instance.tweak(
                TweakKind::Chain,
                (chain * CHAIN_LENGTH + position) as u32,
                epochs[l],
            );
            for i in 0..TWEAK_WORDS {
                block[i][l] = tweak[i];
            }
            for i in 0..DIGEST_WORDS {
                block[PREFIX_WORDS + i][l] = value[l][i];
            }
        }
        let mut h = initial_state::<N>();
        c.compress(
            &mut h,
            &block,
            (4 * (PREFIX_WORDS + DIGEST_WORDS)) as u64,
            true,
        );
        for (l, v) in value.iter_mut().enumerate() {
            *v = core::array::from_fn(|i| h[i][l]);
        }
    }
    value
}

/// The leaves of `epochs` (1 to `N` of them; lanes past the last repeat it):
/// `otsLeaf` of `otsPublicKey`, 347 compressions per lane.
#[inline(always)]
pub(crate) fn leaves_lanes<const N: usize, C: Compress<N>>(
    c: C,
    instance: Instance,
    pp: &Digest,
    seed: &[u32; SEED_WORDS],
    epochs: &[u32],
) -> [Digest; N] {
    let epoch_of: [u32; N] = core::array::from_fn(|l| epochs[l.min(epochs.len() - 1)]);
    let pps = [*pp; N];
    let mut leaf_input = [[0u32; N]; PREFIX_WORDS + CHAINS * DIGEST_WORDS];
    // The chain starts: tweak, pp, seed, one 64-byte block each.
    let mut block = [[0u32; N]; BLOCK_WORDS];
    for (i, word) in pp.iter().enumerate() {
        block[TWEAK_WORDS + i] = [*word; N];
    }
    for (i, word) in seed.iter().enumerate() {
        block[PREFIX_WORDS + i] = [*word; N];
    }
    for chain in 0..CHAINS {
        for l in 0..N {
            let tweak = instance.tweak(TweakKind::Prf, chain as u32, epoch_of[l]);
            for i in 0..TWEAK_WORDS {
                block[i][l] = tweak[i];
            }
        }
        let mut h = initial_state::<N>();
        c.compress(&mut h, &block, (4 * BLOCK_WORDS) as u64, true);
        let start: [Digest; N] = core::array::from_fn(|l| core::array::from_fn(|i| h[i][l]));
        let end = walk::<N, C>(
            c,
            instance,
            (pps, epoch_of),
            chain,
            0..CHAIN_LENGTH - 1,
            start,
        );
        for l in 0..N {
            for i in 0..DIGEST_WORDS {
                leaf_input[PREFIX_WORDS + chain * DIGEST_WORDS + i][l] = end[l][i];
            }
        }
    }
    for l in 0..N {
        let tweak = instance.tweak(TweakKind::Leaf, 0, epoch_of[l]);
        for i in 0..TWEAK_WORDS {
            leaf_input[i][l] = tweak[i];
        }
        for i in 0..DIGEST_WORDS {
            leaf_input[TWEAK_WORDS + i][l] = pp[i];
        }
    }
    let h = blake2s::hash_words::<N, C>(c, &leaf_input);
    core::array::from_fn(|l| core::array::from_fn(|i| h[i][l]))
}

/// Parents on `level` at indices `first..` of `pairs` (1 to `N` of them; lanes past
/// the last repeat it): `merkleNode`, one 64-byte block each.
#[inline(always)]
pub(crate) fn parents_lanes<const N: usize, C: Compress<N>>(
    c: C,
    instance: Instance,
    pp: &Digest,
    level: usize,
    first: u64,
    pairs: &[(Digest, Digest)],
) -> [Digest; N] {
    let mut block = [[0u32; N]; BLOCK_WORDS];
    for l in 0..N {
        let at = l.min(pairs.len() - 1);
        let tweak = instance.tweak(TweakKind::Merkle, level as u32, (first + at as u64) as u32);
        let (left, right) = &pairs[at];
        for i in 0..TWEAK_WORDS {
            block[i][l] = tweak[i];
        }
        for i in 0..DIGEST_WORDS {
            block[TWEAK_WORDS + i][l] = pp[i];
            block[PREFIX_WORDS + i][l] = left[i];
            block[PREFIX_WORDS + DIGEST_WORDS + i][l] = right[i];
        }
    }
    let mut h = initial_state::<N>();
    c.compress(&mut h, &block, (4 * BLOCK_WORDS) as u64, true);
    core::array::from_fn(|l| core::array::from_fn(|i| h[i][l]))
}

/// Attempts `first..first + N` of the randomizer search (`randomizer`, then
/// `wotsEncode`): the first admissible one in order, with its digits.
#[inline(always)]
pub(crate) fn attempts_lanes<const N: usize, C: Compress<N>>(
    c: C,
    instance: Instance,
    pp: &Digest,
    seed: &[u32; SEED_WORDS],
    message: &[u32; MESSAGE_WORDS],
    epoch: u32,
    first: u64,
) -> Option<(u64, [u32; RANDOMNESS_WORDS], [u8; CHAINS])> {
    // The randomizer's input: tweak, pp, seed, message (96 bytes).
    let mut input = [[0u32; N]; PREFIX_WORDS + SEED_WORDS + MESSAGE_WORDS];
    for l in 0..N {
        let tweak = instance.tweak(TweakKind::Randomizer, (first + l as u64) as u32, epoch);
        for i in 0..TWEAK_WORDS {
            input[i][l] = tweak[i];
        }
    }
    for i in 0..DIGEST_WORDS {
        input[TWEAK_WORDS + i] = [pp[i]; N];
    }
    for i in 0..SEED_WORDS {
        input[PREFIX_WORDS + i] = [seed[i]; N];
        input[PREFIX_WORDS + SEED_WORDS + i] = [message[i]; N];
    }
    let randomizers = blake2s::hash_words::<N, C>(c, &input);
    let rnd_of =
        |l: usize| -> [u32; RANDOMNESS_WORDS] { core::array::from_fn(|i| randomizers[i][l]) };
    // On the stack: this runs once per N attempts, about 2^15 / N times a signature.
    let mut encoding: [Words<N>; ENCODING_INPUT_WORDS] = [[0; N]; ENCODING_INPUT_WORDS];
    for l in 0..N {
        let words = encoding_input(instance, pp, epoch, message, &rnd_of(l));
        for (word, value) in encoding.iter_mut().zip(words) {
            word[l] = value;
        }
    }
    let digests = blake2s::hash_words::<N, C>(c, &encoding);
    // Most attempts fail (about one in 2^15 is admissible): the test first, the digits
    // only for the one kept.
    (0..N).find_map(|l| {
        let d: Digest = core::array::from_fn(|i| digests[i][l]);
        if !admissible(&d) {
            return None;
        }
        digits(&d).map(|x| (first + l as u64, rnd_of(l), x))
    })
}
