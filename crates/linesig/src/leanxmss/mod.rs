//! leanXMSS: the BLAKE2s XMSS of Ethereum's lean devnets (the signature leanVM
//! proves), as specified in Lean 4 by `ethereum/cryptography-specs`
//! (`EthCryptographySpecs/Xmss/*.lean`) and byte-compatible with its test vectors
//! (`../shared/vectors/leanxmss/`, whose README names every spec file and commit).
//!
//! Every hash is `BLAKE2s-256(tweak ‖ pp ‖ payload)` cut to 16 bytes; 42 chains of
//! length 8 with digits summing to 195, so a verifier walks 99 chain steps and every
//! verification is 144 compressions; lifetime 2^32 epochs. Public key 32 bytes (Merkle
//! root ‖ public parameter), signature 1,208 (42 chain values ‖ 24-byte randomizer ‖ 32
//! siblings from the leaf up).
//!
//! The byte layout (what a tweak's bytes are, which number names each call site) is a
//! property of the [`Instance`]: today [`Instance::Spec`], `leanxmss`. leanVM-b's
//! `crates/xmss` has the same parameters with another tweak layout and keyed-PRF
//! secrets: not byte-compatible, and not an instance here (docs/design.md §5).
//!
//! An [`Item`] carries the 32-byte message, key and signature, and the epoch as its
//! context, four bytes little-endian (as leanSig's items carry it).
//! Verdicts: `BadContext` (no 4-byte epoch), `BadLength` (a key, message or signature
//! of the wrong size: the spec's verify refuses these as an error, not `false`), and
//! `EquationFailed` (the message does not encode under the randomizer, or the path does
//! not reach the root). Every byte string of the right size is a well-formed
//! signature: there is no other reason.
//!
//! Verification, key generation and the signer's randomizer search run on BLAKE2s lanes
//! ([`lanes`]): 16 signatures (or epochs, or attempts) per AVX-512 compression, 8 per
//! AVX2, one at a time on the portable path.

mod blake2s;
mod encoding;
mod keys;
mod lanes;
mod signer_lanes;
mod tweak;
mod verify;

use crate::error::UnknownName;
use crate::item::{Item, ItemSource};
use crate::key_cache::KeyCache;
use crate::verdict::{Reject, Verdict};
use crate::verifier::SchemeVerifier;
use crate::Backend;
use lanes::Path;
use std::fmt;
use std::str::FromStr;
use verify::Decoded;

pub use crate::key_file::{crash_point, save_new};
pub use blake2s::hash as blake2s_256;
pub use keys::{
    key_gen, key_gen_reporting, KeyFile, KeyFileError, KeyFileSignError, KeyFormatError,
    KeyGenError, SecretKey, SignError, TreeTooLarge, SECRET_KEY_BYTES, SECRET_KEY_FORMAT_VERSION,
};
pub use signer_lanes::MAX_RANDOMIZER_TRIALS;
pub use tweak::{TweakKind, UnknownTweakType};

/// Bytes of a digest, the public parameter, the randomizer, a message, a seed.
pub const DIGEST_BYTES: usize = 16;
pub const PUBLIC_PARAM_BYTES: usize = 16;
pub const RANDOMNESS_BYTES: usize = 24;
pub const MESSAGE_BYTES: usize = 32;
pub const SEED_BYTES: usize = 32;
/// Chains (the encoding's digits), their length, and the digits' sum.
pub const CHAINS: usize = 42;
pub const CHAIN_LENGTH: usize = 8;
pub const TARGET_SUM: usize = 195;
/// Chain steps of every verification: 42 · 7 − 195.
pub const CHAIN_STEPS: usize = CHAINS * (CHAIN_LENGTH - 1) - TARGET_SUM;
/// Levels of the Merkle tree: the lifetime is 2^32 epochs.
pub const LOG_LIFETIME: usize = 32;
pub const PUBLIC_KEY_BYTES: usize = DIGEST_BYTES + PUBLIC_PARAM_BYTES;
pub const SIGNATURE_BYTES: usize =
    CHAINS * DIGEST_BYTES + RANDOMNESS_BYTES + LOG_LIFETIME * DIGEST_BYTES;
/// BLAKE2s compressions of one verification: 2 (encoding) + 99 + 11 (leaf) + 32.
pub const VERIFY_COMPRESSIONS: usize = 2 + CHAIN_STEPS + 11 + LOG_LIFETIME;

/// A leanXMSS byte layout.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Instance {
    /// `leanxmss`: cryptography-specs' `Xmss` (TweakHash.lean's type bytes 0–7, tweak
    /// `[0, type, 0, 0, sub u32le, 0⁴, index u32le]`, secrets `tweakHash(prf, …, seed)`).
    Spec,
}

impl Instance {
    pub const ALL: [Instance; 1] = [Instance::Spec];

    /// The scheme name: `leanxmss`.
    pub fn name(self) -> &'static str {
        match self {
            Instance::Spec => "leanxmss",
        }
    }

    /// The specification and vectors this instance reproduces.
    pub fn reference(self) -> &'static str {
        match self {
            Instance::Spec => "ethereum/cryptography-specs Xmss (BLAKE2s), tests/xmss vectors",
        }
    }

    /// The number a secret key's bytes name the instance by.
    pub(crate) fn number(self) -> u8 {
        match self {
            Instance::Spec => 1,
        }
    }

    pub(crate) fn from_number(number: u8) -> Option<Instance> {
        Instance::ALL.into_iter().find(|i| i.number() == number)
    }

    /// The spec's `wotsEncode`: the 42 digits of a message under a randomizer, or
    /// `None` when the encoding is not admissible (a digit sum other than 195, or a
    /// spare bit set). Not an error: the signer then tries the next randomizer.
    pub fn encode(
        self,
        public_param: &[u8; PUBLIC_PARAM_BYTES],
        message: &[u8; MESSAGE_BYTES],
        randomness: &[u8; RANDOMNESS_BYTES],
        epoch: u32,
    ) -> Option<[u8; CHAINS]> {
        let pp = tweak::digest_of(public_param);
        let input = verify::encoding_input(
            self,
            &pp,
            epoch,
            &blake2s::words_of(message),
            &blake2s::words_of(randomness),
        );
        let h = blake2s::hash_words::<1, blake2s::One>(blake2s::One, &input.map(|w| [w]));
        encoding::digits(&core::array::from_fn(|i| h[i][0]))
    }

    /// Verify one signature (the spec's `verify`): `Ok(true)` or `Ok(false)`, and an
    /// error for a key that is not 32 bytes or a signature that is not 1,208 (the
    /// spec's vectors expect these refused, not `false`).
    pub fn verify(
        self,
        public_key: &[u8],
        epoch: u32,
        message: &[u8; MESSAGE_BYTES],
        signature: &[u8],
    ) -> Result<bool, LengthError> {
        let decoded = Decoded::new(public_key, epoch, message, signature).ok_or(LengthError {
            public_key: public_key.len(),
            signature: signature.len(),
        })?;
        Ok(lanes::verify(Path::Portable, 1, self, &[&decoded])[0])
    }
}

/// A public key or signature of the wrong size.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
#[error(
    "leanXMSS takes a {PUBLIC_KEY_BYTES}-byte public key and a {SIGNATURE_BYTES}-byte \
     signature; got {public_key} and {signature}"
)]
pub struct LengthError {
    pub public_key: usize,
    pub signature: usize,
}

impl fmt::Display for Instance {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Instance {
    type Err = UnknownName;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Instance::ALL
            .into_iter()
            .find(|i| i.name().eq_ignore_ascii_case(s))
            .ok_or_else(|| UnknownName::new("leanXMSS instance", s, "leanxmss"))
    }
}

impl SchemeVerifier for Instance {
    #[cfg(target_arch = "x86_64")]
    const AVX512_FEATURES: linesig_simd::Isa = lanes::avx512::FEATURES;
    #[cfg(target_arch = "x86_64")]
    const AVX2_FEATURES: linesig_simd::Isa = lanes::avx2::FEATURES;
    #[cfg(target_arch = "x86_64")]
    const AVX512_LANES: usize = lanes::avx512::LANES;
    #[cfg(target_arch = "x86_64")]
    const AVX2_LANES: usize = lanes::avx2::LANES;
    #[cfg(not(target_arch = "x86_64"))]
    const AVX512_LANES: usize = 16;
    #[cfg(not(target_arch = "x86_64"))]
    const AVX2_LANES: usize = 8;
    /// Sixteen 32-bit lanes per instruction where AVX-512F runs, else eight: BLAKE2s is
    /// 32-bit add, xor and rotate, whose throughput scales with the width (AVX-512's
    /// `vprord` is one instruction where AVX2 takes two shifts and an or).
    const PREFERENCE: &'static [Backend] = &[Backend::Avx512, Backend::Avx2];

    fn scheme_name(self) -> &'static str {
        self.name()
    }

    fn scheme_label(self) -> String {
        format!("leanXMSS ({})", self.reference())
    }

    fn describe(self, backend: Backend) -> &'static str {
        match backend {
            Backend::Avx512 => "avx512 (16 signatures per AVX-512 BLAKE2s compression)",
            Backend::Avx2 => "avx2 (8 signatures per AVX2 BLAKE2s compression)",
            Backend::Portable => "portable (one signature at a time)",
        }
    }

    /// A leanXMSS key is 32 bytes with nothing to expand.
    fn key_table_bytes(self, _backend: Backend) -> Option<usize> {
        None
    }

    fn verify(self, item: &Item<'_>) -> Verdict {
        verify_item(self, item)
    }

    fn verify_unit<S: ItemSource + ?Sized>(
        self,
        backend: Backend,
        lanes: usize,
        _cache: Option<&KeyCache>,
        _batch: Option<&crate::batch_gate::BatchGate>,
        items: &S,
        start: usize,
        out: &mut [Verdict],
    ) {
        let unit: Vec<Item<'_>> = (start..start + out.len()).map(|i| items.item(i)).collect();
        verify_slice(self, Path::of(backend), lanes, &unit, out);
    }
}

/// An item's fields, in the order its verdict reasons are checked: the epoch (its
/// 4-byte context), then the sizes.
fn decode(item: &Item<'_>) -> Result<Decoded, Reject> {
    let epoch = <[u8; 4]>::try_from(item.context)
        .map(u32::from_le_bytes)
        .map_err(|_| Reject::BadContext)?;
    let message = item.message.try_into().map_err(|_| Reject::BadLength)?;
    Decoded::new(item.public_key, epoch, message, item.signature).ok_or(Reject::BadLength)
}

/// One item on the portable path.
pub fn verify_item(instance: Instance, item: &Item<'_>) -> Verdict {
    let mut out = [Verdict::Invalid(Reject::EquationFailed)];
    verify_slice(
        instance,
        Path::Portable,
        1,
        std::slice::from_ref(item),
        &mut out,
    );
    out[0]
}

/// A unit's verdicts, compiled once in this crate (as leanSig's: a generic item source
/// would instantiate the kernels again in every calling crate).
#[inline(never)]
fn verify_slice(
    instance: Instance,
    path: Path,
    lanes: usize,
    items: &[Item<'_>],
    out: &mut [Verdict],
) {
    let mut slots = Vec::with_capacity(items.len());
    let mut decoded = Vec::with_capacity(items.len());
    for (slot, item) in items.iter().enumerate() {
        match decode(item) {
            Ok(d) => {
                slots.push(slot);
                decoded.push(d);
            }
            Err(reason) => out[slot] = Verdict::Invalid(reason),
        }
    }
    // A lone signature would fill one lane of many: the one-lane path is faster.
    let (path, lanes) = if decoded.len() == 1 {
        (Path::Portable, 1)
    } else {
        (path, lanes)
    };
    let refs: Vec<&Decoded> = decoded.iter().collect();
    for (slot, ok) in slots
        .into_iter()
        .zip(lanes::verify(path, lanes, instance, &refs))
    {
        out[slot] = if ok {
            Verdict::Valid
        } else {
            Verdict::Invalid(Reject::EquationFailed)
        };
    }
}

/// Test access to each implementation, as for leanSig.
#[doc(hidden)]
pub mod testing {
    use super::*;

    /// The implementations this CPU runs: `portable`, `model4` (the lane algorithms at
    /// four lanes on the array model of the compression: the SIMD paths' bookkeeping
    /// on any CPU), then the SIMD ones.
    pub fn implementations() -> Vec<&'static str> {
        let mut all = vec!["portable", "model4"];
        #[cfg(target_arch = "x86_64")]
        {
            if lanes::avx2::supported() {
                all.push("avx2");
            }
            if lanes::avx512::supported() {
                all.push("avx512");
            }
        }
        all
    }

    /// `items`' verdicts on one implementation, in groups of its lanes.
    pub fn verify_on(instance: Instance, implementation: &str, items: &[Item<'_>]) -> Vec<Verdict> {
        let mut out = vec![Verdict::Invalid(Reject::EquationFailed); items.len()];
        let path = match implementation {
            "portable" => Path::Portable,
            "model4" => return verify_on_model(instance, items),
            #[cfg(target_arch = "x86_64")]
            "avx2" => Path::of(Backend::Avx2),
            #[cfg(target_arch = "x86_64")]
            "avx512" => Path::of(Backend::Avx512),
            other => panic!("no implementation {other}"),
        };
        verify_slice(instance, path, usize::MAX, items, &mut out);
        out
    }

    /// The lane algorithm at four lanes on the array model, groups of four.
    fn verify_on_model(instance: Instance, items: &[Item<'_>]) -> Vec<Verdict> {
        const N: usize = 4;
        let decoded: Vec<Result<Decoded, Reject>> = items.iter().map(decode).collect();
        let ok: Vec<(usize, &Decoded)> = decoded
            .iter()
            .enumerate()
            .filter_map(|(i, d)| d.as_ref().ok().map(|d| (i, d)))
            .collect();
        let mut out: Vec<Verdict> = decoded
            .iter()
            .map(|d| match d {
                Ok(_) => Verdict::Valid,
                Err(reason) => Verdict::Invalid(*reason),
            })
            .collect();
        for group in ok.chunks(N) {
            let refs: Vec<&Decoded> = group.iter().map(|(_, d)| *d).collect();
            let results = verify::verify_lanes::<N, Inline>(Inline, instance, &refs);
            for ((slot, _), valid) in group.iter().zip(results) {
                if !valid {
                    out[*slot] = Verdict::Invalid(Reject::EquationFailed);
                }
            }
        }
        out
    }

    /// The backend an implementation's key generation and signing run on.
    pub fn backend_of(implementation: &str) -> Backend {
        match implementation {
            "avx2" => Backend::Avx2,
            "avx512" => Backend::Avx512,
            _ => Backend::Portable,
        }
    }

    /// The array model of the compression at four lanes, on the build's baseline
    /// features, compiled once (out of line).
    #[derive(Clone, Copy)]
    struct Inline;

    impl blake2s::Compress<4> for Inline {
        #[inline(never)]
        fn compress(self, h: &mut [[u32; 4]; 8], m: &[[u32; 4]; 16], t: u64, last: bool) {
            blake2s::compress_inline::<[u32; 4], 4>(h, m, t, last)
        }
    }

    /// BLAKE2s-256 of four equal-length word inputs on the model's lanes, one input per
    /// lane: for the tests against the `blake2` crate.
    pub fn blake2s_words(inputs: &[Vec<u32>; 4]) -> [[u8; 32]; 4] {
        const N: usize = 4;
        let len = inputs[0].len();
        let words: Vec<[u32; N]> = (0..len)
            .map(|i| core::array::from_fn(|l| inputs[l][i]))
            .collect();
        let h = blake2s::hash_words::<N, Inline>(Inline, &words);
        core::array::from_fn(|l| {
            let mut out = [0u8; 32];
            blake2s::bytes_of(&core::array::from_fn::<u32, 8, _>(|i| h[i][l]), &mut out);
            out
        })
    }
}
