//! Verification of up to `N` signatures at once, one per 32-bit lane of every BLAKE2s
//! compression (cryptography-specs `Xmss/Verify.lean`): 2 compressions for the
//! encoding, 99 chain steps, 11 for the leaf, 32 up the tree; 144 whatever the input.
//!
//! The 99 chain steps are where lanes differ: each signature spreads them over its 42
//! chains by its own digits. Step `s` of every lane runs in one compression, each lane
//! reading the chain value its own step `s` continues; the steps of one chain are
//! consecutive in a lane's list, so step `s − 1` has always written what step `s` reads.

// Lane code indexes words by lane (`x[word][lane]`) and lanes by number: the loops
// name the lane they transpose, which iterator chains over two axes would hide.
#![allow(clippy::needless_range_loop)]

use super::blake2s::{self, initial_state, words_of, Compress, BLOCK_WORDS};
use super::encoding::digits;
use super::tweak::{Digest, TweakKind, DIGEST_WORDS, PP_WORDS, PREFIX_WORDS, TWEAK_WORDS};
use super::{
    Instance, CHAINS, CHAIN_LENGTH, CHAIN_STEPS, DIGEST_BYTES, LOG_LIFETIME, MESSAGE_BYTES,
    PUBLIC_KEY_BYTES, PUBLIC_PARAM_BYTES, RANDOMNESS_BYTES, SIGNATURE_BYTES,
};

/// Words of the randomizer and the message.
pub(crate) const RANDOMNESS_WORDS: usize = RANDOMNESS_BYTES / 4;
pub(crate) const MESSAGE_WORDS: usize = MESSAGE_BYTES / 4;
/// The encoding's input: prefix, message, randomizer, eight zero bytes (96 bytes).
pub(crate) const ENCODING_INPUT_WORDS: usize = PREFIX_WORDS + MESSAGE_WORDS + RANDOMNESS_WORDS + 2;
/// The leaf's input: prefix and the 42 chain ends (704 bytes, eleven blocks).
const LEAF_INPUT_WORDS: usize = PREFIX_WORDS + CHAINS * DIGEST_WORDS;

/// One signature with its key, epoch and message, as the lanes read them.
#[derive(Clone, Debug)]
pub(crate) struct Decoded {
    pub root: Digest,
    pub pp: Digest,
    pub epoch: u32,
    pub message: [u32; MESSAGE_WORDS],
    pub tips: [Digest; CHAINS],
    pub randomness: [u32; RANDOMNESS_WORDS],
    pub path: [Digest; LOG_LIFETIME],
}

impl Decoded {
    /// The fields of a 32-byte key (root ‖ pp) and a 1,208-byte signature (42 chain
    /// values ‖ randomizer ‖ 32 siblings from the leaf up); `None` for other lengths.
    pub(crate) fn new(
        public_key: &[u8],
        epoch: u32,
        message: &[u8; MESSAGE_BYTES],
        signature: &[u8],
    ) -> Option<Self> {
        if public_key.len() != PUBLIC_KEY_BYTES || signature.len() != SIGNATURE_BYTES {
            return None;
        }
        let digest = |at: usize| -> Digest { words_of(&signature[at..at + DIGEST_BYTES]) };
        let path_at = CHAINS * DIGEST_BYTES + RANDOMNESS_BYTES;
        Some(Decoded {
            root: words_of(&public_key[..DIGEST_BYTES]),
            pp: words_of(&public_key[DIGEST_BYTES..DIGEST_BYTES + PUBLIC_PARAM_BYTES]),
            epoch,
            message: words_of(message),
            tips: core::array::from_fn(|i| digest(i * DIGEST_BYTES)),
            randomness: words_of(&signature[CHAINS * DIGEST_BYTES..path_at]),
            path: core::array::from_fn(|level| digest(path_at + level * DIGEST_BYTES)),
        })
    }
}

/// The encoding's input words of one lane.
#[inline(always)]
pub(crate) fn encoding_input(
    instance: Instance,
    pp: &Digest,
    epoch: u32,
    message: &[u32; MESSAGE_WORDS],
    randomness: &[u32; RANDOMNESS_WORDS],
) -> [u32; ENCODING_INPUT_WORDS] {
    let mut input = [0u32; ENCODING_INPUT_WORDS];
    input[..TWEAK_WORDS].copy_from_slice(&instance.tweak(TweakKind::Encoding, 0, epoch));
    input[TWEAK_WORDS..PREFIX_WORDS].copy_from_slice(pp);
    input[PREFIX_WORDS..PREFIX_WORDS + MESSAGE_WORDS].copy_from_slice(message);
    input[PREFIX_WORDS + MESSAGE_WORDS..][..RANDOMNESS_WORDS].copy_from_slice(randomness);
    input
}

/// Digits that walk 99 steps, for a lane whose own encoding is inadmissible: its
/// verdict is already `false`, and it keeps pace with the others.
fn filler_digits() -> [u8; CHAINS] {
    let mut left = CHAIN_STEPS;
    core::array::from_fn(|_| {
        let steps = left.min(CHAIN_LENGTH - 1);
        left -= steps;
        (CHAIN_LENGTH - 1 - steps) as u8
    })
}

/// Whether each of `signatures` (1 to `N` of them) verifies. Lanes past the last
/// signature repeat it, and their results are dropped.
#[inline(always)]
pub(crate) fn verify_lanes<const N: usize, C: Compress<N>>(
    c: C,
    instance: Instance,
    signatures: &[&Decoded],
) -> [bool; N] {
    let count = signatures.len();
    assert!((1..=N).contains(&count));
    let lane = |l: usize| signatures[l.min(count - 1)];

    // Step 1: the digits.
    let mut input = [[0u32; N]; ENCODING_INPUT_WORDS];
    for l in 0..N {
        let s = lane(l);
        let words = encoding_input(instance, &s.pp, s.epoch, &s.message, &s.randomness);
        for (word, value) in input.iter_mut().zip(words) {
            word[l] = value;
        }
    }
    let digest = blake2s::hash_words::<N, C>(c, &input);
    let mut ok = [true; N];
    let mut lane_digits = [[0u8; CHAINS]; N];
    for l in 0..N {
        let d: Digest = core::array::from_fn(|i| digest[i][l]);
        lane_digits[l] = digits(&d).unwrap_or_else(|| {
            ok[l] = false;
            filler_digits()
        });
    }

    // Step 2: each lane's 99 steps, as (chain, position left) in chain order.
    let mut schedule = [[(0u8, 0u8); CHAIN_STEPS]; N];
    for l in 0..N {
        let mut s = 0;
        for (chain, &digit) in lane_digits[l].iter().enumerate() {
            for position in digit..(CHAIN_LENGTH - 1) as u8 {
                schedule[l][s] = (chain as u8, position);
                s += 1;
            }
        }
        debug_assert_eq!(s, CHAIN_STEPS);
    }
    let mut ends: [[Digest; CHAINS]; N] = core::array::from_fn(|l| lane(l).tips);
    // A 48-byte block: tweak, pp, value, then zeros. Only the tweak's sub-position and
    // the value change from step to step.
    let mut block = [[0u32; N]; BLOCK_WORDS];
    for l in 0..N {
        let s = lane(l);
        let tweak = instance.tweak(TweakKind::Chain, 0, s.epoch);
        for i in 0..TWEAK_WORDS {
            block[i][l] = tweak[i];
        }
        for i in 0..PP_WORDS {
            block[TWEAK_WORDS + i][l] = s.pp[i];
        }
    }
    let step_tweak = |chain: u8, position: u8, epoch: u32| {
        instance.tweak(
            TweakKind::Chain,
            chain as u32 * CHAIN_LENGTH as u32 + position as u32,
            epoch,
        )
    };
    for s in 0..CHAIN_STEPS {
        for l in 0..N {
            let (chain, position) = schedule[l][s];
            let tweak = step_tweak(chain, position, lane(l).epoch);
            for i in 0..TWEAK_WORDS {
                block[i][l] = tweak[i];
            }
            let value = ends[l][chain as usize];
            for i in 0..DIGEST_WORDS {
                block[PREFIX_WORDS + i][l] = value[i];
            }
        }
        let mut h = initial_state::<N>();
        c.compress(
            &mut h,
            &block,
            (4 * (PREFIX_WORDS + DIGEST_WORDS)) as u64,
            true,
        );
        for l in 0..N {
            let (chain, _) = schedule[l][s];
            ends[l][chain as usize] = core::array::from_fn(|i| h[i][l]);
        }
    }

    // Step 3: the leaf.
    let mut leaf_input = [[0u32; N]; LEAF_INPUT_WORDS];
    for l in 0..N {
        let s = lane(l);
        let tweak = instance.tweak(TweakKind::Leaf, 0, s.epoch);
        let prefix = tweak.iter().chain(&s.pp);
        let values = ends[l].iter().flatten();
        for (word, &value) in leaf_input.iter_mut().zip(prefix.chain(values)) {
            word[l] = value;
        }
    }
    let leaf = blake2s::hash_words::<N, C>(c, &leaf_input);
    let mut node: [Digest; N] = core::array::from_fn(|l| core::array::from_fn(|i| leaf[i][l]));

    // Step 4: up the tree, the epoch's bit at each level saying which child the path
    // node is (`climbStep`).
    for level in 0..LOG_LIFETIME {
        for l in 0..N {
            let s = lane(l);
            let parent = (level + 1) as u32;
            let tweak = instance.tweak(TweakKind::Merkle, parent, s.epoch >> 1 >> level);
            let (left, right) = if (s.epoch >> level) & 1 == 0 {
                (node[l], s.path[level])
            } else {
                (s.path[level], node[l])
            };
            for i in 0..TWEAK_WORDS {
                block[i][l] = tweak[i];
            }
            for i in 0..DIGEST_WORDS {
                block[PREFIX_WORDS + i][l] = left[i];
                block[PREFIX_WORDS + DIGEST_WORDS + i][l] = right[i];
            }
        }
        let mut h = initial_state::<N>();
        c.compress(&mut h, &block, (4 * BLOCK_WORDS) as u64, true);
        for (l, out) in node.iter_mut().enumerate() {
            *out = core::array::from_fn(|i| h[i][l]);
        }
    }

    // Step 5: the root the key commits to.
    core::array::from_fn(|l| ok[l] && node[l] == lane(l).root)
}
