//! The tweakable hash every leanXMSS value is made with: `BLAKE2s-256(tweak ‖ pp ‖
//! payload)` truncated (cryptography-specs `Xmss/TweakHash.lean`). Which bytes a tweak
//! is, and which number names each call site, are a property of the [`Instance`]: a
//! second byte layout (leanVM-b's, say) is one more arm of [`Instance::tweak`].

use super::blake2s::{self, words_of, One};
use super::{Instance, DIGEST_BYTES, PUBLIC_PARAM_BYTES};
use linesig_simd::arx::Words;

/// Words of a tweak, of the public parameter, of a digest.
pub(crate) const TWEAK_WORDS: usize = 4;
pub(crate) const PP_WORDS: usize = PUBLIC_PARAM_BYTES / 4;
pub(crate) const DIGEST_WORDS: usize = DIGEST_BYTES / 4;
/// The words every hash starts with: its tweak, then the public parameter.
pub(crate) const PREFIX_WORDS: usize = TWEAK_WORDS + PP_WORDS;

/// A digest (or the public parameter) as four little-endian words.
pub(crate) type Digest = [u32; DIGEST_WORDS];

/// The call sites: one hash function each (`TweakHash.lean`, `TweakType`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TweakKind {
    /// A chain's secret start, from the seed (sub: chain, index: epoch).
    Prf,
    /// One chain step (sub: 8·chain + the position it leaves, index: epoch).
    Chain,
    /// The 42 chain ends into a leaf (sub: 0, index: epoch).
    Leaf,
    /// Two children into their parent (sub: the parent's level, index: its index).
    Merkle,
    /// Message and randomizer into the digits (sub: 0, index: epoch).
    Encoding,
    /// The public parameter, from the seed (sub 0, index 0, under an all-zero pp).
    Parameter,
    /// A node no epoch of the key reaches, from the seed (sub: level, index).
    Filler,
    /// One attempt's randomizer (sub: the attempt, index: epoch).
    Randomizer,
}

impl TweakKind {
    pub const ALL: [TweakKind; 8] = [
        TweakKind::Prf,
        TweakKind::Chain,
        TweakKind::Leaf,
        TweakKind::Merkle,
        TweakKind::Encoding,
        TweakKind::Parameter,
        TweakKind::Filler,
        TweakKind::Randomizer,
    ];
}

/// A tweak type byte no call site has (the spec's `tweak_hash_unknown_tweak_type`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
#[error("tweak type {0} names no leanXMSS call site (0–7)")]
pub struct UnknownTweakType(pub u8);

impl Instance {
    /// The byte that names `kind` in this instance's tweaks.
    pub fn tweak_type_byte(self, kind: TweakKind) -> u8 {
        match self {
            // TweakHash.lean's `TweakType.toByte`: prf 0 … randomizer 7, in order.
            Instance::Spec => kind as u8,
        }
    }

    /// The call site a type byte names, if any.
    pub fn tweak_kind(self, byte: u8) -> Result<TweakKind, UnknownTweakType> {
        TweakKind::ALL
            .into_iter()
            .find(|&kind| self.tweak_type_byte(kind) == byte)
            .ok_or(UnknownTweakType(byte))
    }

    /// The 16 tweak bytes of one call, as little-endian words.
    #[inline(always)]
    pub(crate) fn tweak(self, kind: TweakKind, sub: u32, index: u32) -> [u32; TWEAK_WORDS] {
        match self {
            // `makeTweak`: [domain 0, type, 0, 0, sub u32le, 0 0 0 0, index u32le].
            Instance::Spec => [(self.tweak_type_byte(kind) as u32) << 8, sub, 0, index],
        }
    }

    /// The whole 32-byte BLAKE2s digest of one call (a randomizer keeps 24 bytes of it).
    pub(crate) fn tweak_hash_full(
        self,
        pp: &[u8; PUBLIC_PARAM_BYTES],
        kind: TweakKind,
        sub: u32,
        index: u32,
        payload: &[u8],
    ) -> [u8; 32] {
        let mut input = Vec::with_capacity(32 + payload.len());
        for word in self.tweak(kind, sub, index) {
            input.extend_from_slice(&word.to_le_bytes());
        }
        input.extend_from_slice(pp);
        input.extend_from_slice(payload);
        blake2s::hash(&input)
    }

    /// The tweakable hash of any payload: the spec's `tweakHash`, 16 bytes. The type is
    /// a byte, as the spec's vectors give it; one no call site has is an error.
    pub fn tweak_hash(
        self,
        pp: &[u8; PUBLIC_PARAM_BYTES],
        type_byte: u8,
        sub: u32,
        index: u32,
        payload: &[u8],
    ) -> Result<[u8; DIGEST_BYTES], UnknownTweakType> {
        let kind = self.tweak_kind(type_byte)?;
        let full = self.tweak_hash_full(pp, kind, sub, index, payload);
        Ok(full[..DIGEST_BYTES].try_into().expect("16 of 32 bytes"))
    }

    /// One call on words, one input: the key's own hashes outside the lanes (fillers,
    /// the public parameter).
    pub(crate) fn tweak_hash_words(
        self,
        pp: &Digest,
        kind: TweakKind,
        sub: u32,
        index: u32,
        payload: &[u32],
    ) -> Digest {
        let mut input: Vec<Words<1>> = Vec::with_capacity(PREFIX_WORDS + payload.len());
        input.extend(self.tweak(kind, sub, index).map(|w| [w]));
        input.extend(pp.map(|w| [w]));
        input.extend(payload.iter().map(|&w| [w]));
        let h = blake2s::hash_words::<1, One>(One, &input);
        core::array::from_fn(|i| h[i][0])
    }
}

/// The public parameter a seed grows (`genPublicParam`): hashed under an all-zero one.
pub(crate) fn public_param(instance: Instance, seed: &[u32; 8]) -> Digest {
    instance.tweak_hash_words(&[0; PP_WORDS], TweakKind::Parameter, 0, 0, seed)
}

/// A digest's words from its 16 bytes.
pub(crate) fn digest_of(bytes: &[u8]) -> Digest {
    words_of::<DIGEST_WORDS>(bytes)
}
