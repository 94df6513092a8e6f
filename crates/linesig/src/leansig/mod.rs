//! leanSig: the generalized XMSS signature of Ethereum's lean consensus, implemented
//! byte-compatibly with its reference (leanEthereum/leanSig, not on crates.io) over
//! Plonky3's KoalaBear constants.
//!
//! Three instances, each named with the reference commit it matches
//! (`../shared/vectors/leansig/README.md` has every parameter and the byte layout):
//! - [`Instance::Devnet4`], `leansig-devnet4` (leanSig c08a3ba, leanSpec `PROD_CONFIG`,
//!   the current consensus one): Poseidon1, lifetime 2^32, 46 chains of length 8,
//!   target sum 200, aborting message hash; public key 52 bytes, signature 2,536;
//! - [`Instance::L18`], `leansig-l18` (leanSig 73bedc2, what nim-leansig wraps):
//!   Poseidon2, lifetime 2^18, 64 chains, target sum 375, top-level message hash;
//!   48 and 2,332 bytes;
//! - [`Instance::L32`], `leansig-l32` (the same commit, lifetime 2^32): 52 and 3,112.
//!
//! An [`Item`] carries the 32-byte message, the SSZ public key and signature, and the
//! epoch as its context: exactly four bytes, the u32 little-endian ([`epoch_context`]).
//! Verdicts: `BadContext` (no 4-byte epoch, or an epoch past the lifetime), `BadLength`
//! (a key, message or signature of the wrong size, or SSZ offsets that do not give the
//! instance's fixed part sizes), `NonCanonicalEncoding` (a field element ≥ p: leanSpec
//! rejects it, the Rust reference reduces it; we follow the spec, see [`ssz`]),
//! `EquationFailed` (the message does not encode under rho, or the Merkle root differs).
//!
//! Verification is written once over KoalaBear lanes ([`lanes`]): N signatures per
//! permutation call (16 on AVX-512, 8 on AVX2, 1 on the portable `portable` path).
//! Key generation and signing ([`keys`]) exist for benchmarks and fixtures, with a
//! secret key that refuses to sign twice for one epoch.
//!
//! Aggregation (one STARK proof that many devnet-4 signatures verify) is the crate
//! `linesig-aggregate`, which reads what it needs of this module through [`internals`].

/// Run `$body` with `$lanes` naming the lane type `$backend` verifies on: AVX2 as two
/// interleaved vectors (16 lanes), AVX-512 (16 lanes), or the portable scalar path. A
/// backend this CPU lacks falls to the portable path; the engine has refused it before.
macro_rules! with_lanes {
    ($backend:expr, $lanes:ident => $body:expr) => {
        match $backend {
            #[cfg(target_arch = "x86_64")]
            $crate::Backend::Avx2 if $crate::leansig::lanes::avx2::supported() => {
                type $lanes = $crate::leansig::lanes::avx2::KoalaAvx2x2;
                $body
            }
            #[cfg(target_arch = "x86_64")]
            $crate::Backend::Avx512 if $crate::leansig::lanes::avx512::supported() => {
                type $lanes = linesig_simd::u32x16::U32x16;
                $body
            }
            _ => {
                type $lanes = $crate::leansig::lanes::portable::Portable<1>;
                $body
            }
        }
    };
}

mod hash;
mod hypercube;
#[doc(hidden)]
pub mod internals;
pub mod keys;
pub(crate) mod lanes;
pub(crate) mod poseidon;
mod ssz;
mod verify;

use crate::error::UnknownName;
use crate::item::{Item, ItemSource};
use crate::key_cache::KeyCache;
use crate::verdict::{Reject, Verdict};
use crate::verifier::SchemeVerifier;
use crate::Backend;
use lanes::portable::Portable;
use lanes::KoalaLanes;
use std::fmt;
use std::str::FromStr;
use std::sync::OnceLock;
use verify::Decoded;

pub use keys::{
    KeyFile, KeyFileError, KeyFileSignError, KeyFormatError, KeyGenError, SecretKey, SignError,
    SECRET_KEY_FORMAT_VERSION,
};

/// Field elements of the public parameter.
pub(crate) const PARAMETER_LEN: usize = 5;
/// Field elements of the sponge capacity.
pub(crate) const CAPACITY: usize = 9;
/// Field elements of the encoded 32-byte message.
pub(crate) const MESSAGE_LEN: usize = 9;
/// Bytes of a message: in consensus, an SSZ root.
pub const MESSAGE_BYTES: usize = 32;

/// A hash output (HASH_LEN ≤ 8 elements, zero past HASH_LEN), Montgomery form.
pub(crate) type Digest = [u32; 8];

/// A leanSig instantiation.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Instance {
    /// leanSig c08a3ba `SIGAbortingTargetSumLifetime32Dim46Base8` (devnet-4).
    Devnet4,
    /// leanSig 73bedc2 `SIGTopLevelTargetSumLifetime18Dim64Base8`.
    L18,
    /// leanSig 73bedc2 `SIGTopLevelTargetSumLifetime32Dim64Base8`.
    L32,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[doc(hidden)]
pub enum HashFamily {
    Poseidon1,
    Poseidon2,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[doc(hidden)]
pub enum MessageEncoding {
    /// Each of the first ⌈v/z⌉ hash elements a must be below q·w^z; ⌊a/q⌋ gives z
    /// base-w digits.
    Aborting { q: u32, z: usize },
    /// The 15 hash elements as one big integer pick a hypercube vertex.
    TopLevel { final_layer: usize },
}

/// An instance's parameters (leanSig's const generics).
#[derive(Clone, Copy, Debug)]
#[doc(hidden)]
pub struct Params {
    pub log_lifetime: usize,
    pub dimension: usize,
    pub base: usize,
    pub target_sum: usize,
    pub hash_len: usize,
    pub rand_len: usize,
    pub family: HashFamily,
    pub encoding: MessageEncoding,
}

impl Params {
    pub fn public_key_len(&self) -> usize {
        4 * (self.hash_len + PARAMETER_LEN)
    }

    pub fn signature_len(&self) -> usize {
        4 + 4 * self.rand_len + 4 + 4 + 4 * self.hash_len * (self.log_lifetime + self.dimension)
    }

    pub fn message_hash_len(&self) -> usize {
        match self.encoding {
            MessageEncoding::Aborting { .. } => self.hash_len,
            MessageEncoding::TopLevel { .. } => 15,
        }
    }

    /// Chain steps a verification takes: v(w − 1) − TARGET_SUM.
    pub fn verify_chain_steps(&self) -> usize {
        self.dimension * (self.base - 1) - self.target_sum
    }
}

const DEVNET4: Params = Params {
    log_lifetime: 32,
    dimension: 46,
    base: 8,
    target_sum: 200,
    hash_len: 8,
    rand_len: 7,
    family: HashFamily::Poseidon1,
    encoding: MessageEncoding::Aborting { q: 127, z: 8 },
};

const L18: Params = Params {
    log_lifetime: 18,
    dimension: 64,
    base: 8,
    target_sum: 375,
    hash_len: 7,
    rand_len: 6,
    family: HashFamily::Poseidon2,
    encoding: MessageEncoding::TopLevel { final_layer: 77 },
};

const L32: Params = Params {
    log_lifetime: 32,
    hash_len: 8,
    rand_len: 7,
    ..L18
};

impl Instance {
    pub const ALL: [Instance; 3] = [Instance::Devnet4, Instance::L18, Instance::L32];

    /// The scheme name: `leansig-devnet4`, `leansig-l18`, `leansig-l32`.
    pub fn name(self) -> &'static str {
        match self {
            Instance::Devnet4 => "leansig-devnet4",
            Instance::L18 => "leansig-l18",
            Instance::L32 => "leansig-l32",
        }
    }

    /// The reference type and commit this instance reproduces.
    pub fn reference(self) -> &'static str {
        match self {
            Instance::Devnet4 => "leanSig c08a3ba SIGAbortingTargetSumLifetime32Dim46Base8",
            Instance::L18 => "leanSig 73bedc2 SIGTopLevelTargetSumLifetime18Dim64Base8",
            Instance::L32 => "leanSig 73bedc2 SIGTopLevelTargetSumLifetime32Dim64Base8",
        }
    }

    #[doc(hidden)]
    pub fn params(self) -> &'static Params {
        match self {
            Instance::Devnet4 => &DEVNET4,
            Instance::L18 => &L18,
            Instance::L32 => &L32,
        }
    }

    pub fn public_key_len(self) -> usize {
        self.params().public_key_len()
    }

    pub fn signature_len(self) -> usize {
        self.params().signature_len()
    }

    /// Epochs in a key's lifetime: 2^LOG_LIFETIME.
    pub fn lifetime(self) -> u64 {
        1 << self.params().log_lifetime
    }

    /// Epochs a key can sign without `advance_preparation`: its two prepared bottom
    /// trees, 2 · 2^(LOG_LIFETIME/2) (1,024 for L18, 131,072 for the 2^32 instances).
    pub fn prepared_epochs(self) -> u64 {
        2 << (self.params().log_lifetime / 2)
    }

    /// Poseidon permutations of one verification, (width 16, width 24): the fixed cost
    /// every signature of the instance pays.
    pub fn verify_permutations(self) -> (usize, usize) {
        let p = self.params();
        let leaf_input = PARAMETER_LEN + 2 + p.dimension * p.hash_len;
        let leaf = leaf_input.div_ceil(24 - CAPACITY);
        (p.verify_chain_steps(), 1 + leaf + p.log_lifetime)
    }

    fn capacity(self) -> &'static [u32; CAPACITY] {
        static CAPACITIES: [OnceLock<[u32; CAPACITY]>; 3] =
            [OnceLock::new(), OnceLock::new(), OnceLock::new()];
        let index = Instance::ALL
            .iter()
            .position(|&i| i == self)
            .expect("listed");
        CAPACITIES[index].get_or_init(|| hash::sponge_capacity(self.params()))
    }
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
            .ok_or_else(|| {
                UnknownName::new(
                    "leanSig instance",
                    s,
                    "leansig-devnet4, leansig-l18, leansig-l32",
                )
            })
    }
}

impl SchemeVerifier for Instance {
    #[cfg(target_arch = "x86_64")]
    const AVX512_FEATURES: linesig_simd::Isa = lanes::avx512::FEATURES;
    #[cfg(target_arch = "x86_64")]
    const AVX2_FEATURES: linesig_simd::Isa = lanes::avx2::FEATURES;
    /// Sixteen signatures: one 512-bit vector, or two AVX2 vectors.
    const AVX512_LANES: usize = 16;
    const AVX2_LANES: usize = 16;
    /// The AVX-512 lanes where AVX-512F runs, else `avx2`: sixteen 32-bit lanes per
    /// instruction beat eight on every AVX-512 core measured (docs/results.md, "Which
    /// backend each scheme prefers").
    const PREFERENCE: &'static [Backend] = &[Backend::Avx512, Backend::Avx2];

    fn scheme_name(self) -> &'static str {
        self.name()
    }

    fn scheme_label(self) -> String {
        format!("leanSig {} ({})", self, self.reference())
    }

    fn describe(self, backend: Backend) -> &'static str {
        match backend {
            Backend::Avx512 => "avx512 (16 signatures per AVX-512 vector)",
            Backend::Avx2 => "avx2 (16 signatures in two AVX2 vectors)",
            Backend::Portable => "portable (scalar)",
        }
    }

    /// A leanSig key is 48–52 bytes of public data with nothing to expand.
    fn key_table_bytes(self, _backend: Backend) -> Option<usize> {
        None
    }

    fn verify(self, item: &Item<'_>) -> Verdict {
        verify(self, item)
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
        verify_unit(self, backend, lanes, items, start, out)
    }
}

/// The context bytes that carry `epoch` in an [`Item`].
pub fn epoch_context(epoch: u32) -> [u8; 4] {
    epoch.to_le_bytes()
}

/// An item's epoch (its 4-byte context, inside the lifetime: else `BadContext`) and
/// 32-byte message (else `BadLength`): the first checks of [`decode`], in its order.
#[doc(hidden)]
pub fn decode_epoch_and_message(
    instance: Instance,
    item: &Item<'_>,
) -> Result<(u32, [u8; MESSAGE_BYTES]), Reject> {
    let epoch = match <[u8; 4]>::try_from(item.context) {
        Ok(bytes) if (u32::from_le_bytes(bytes) as u64) < instance.lifetime() => {
            u32::from_le_bytes(bytes)
        }
        _ => return Err(Reject::BadContext),
    };
    let message = item.message.try_into().map_err(|_| Reject::BadLength)?;
    Ok((epoch, message))
}

/// Decode an item's fields, in the order the verdict reasons are checked: epoch,
/// lengths, then the canonical encodings.
#[doc(hidden)]
pub fn decode(instance: Instance, item: &Item<'_>) -> Result<Decoded, Reject> {
    let params = instance.params();
    let (epoch, message) = decode_epoch_and_message(instance, item)?;
    if item.public_key.len() != params.public_key_len()
        || item.signature.len() != params.signature_len()
    {
        return Err(Reject::BadLength);
    }
    let key = ssz::decode_public_key(params, item.public_key)?;
    let signature = ssz::decode_signature(params, item.signature)?;
    Ok(Decoded {
        key,
        epoch,
        message,
        signature,
    })
}

/// Verify one item on the portable path.
pub fn verify(instance: Instance, item: &Item<'_>) -> Verdict {
    let mut out = [Verdict::Invalid(Reject::EquationFailed)];
    verify_items::<Portable<1>, [Item<'_>]>(instance, usize::MAX, &[*item], 0, &mut out);
    out[0]
}

/// The engine's work unit: verdicts for `items[start..start + out.len()]`, `lanes` at
/// most per vector.
#[doc(hidden)]
pub fn verify_unit<S: ItemSource + ?Sized>(
    instance: Instance,
    backend: Backend,
    lanes: usize,
    items: &S,
    start: usize,
    out: &mut [Verdict],
) {
    // A lone signature fills one lane of sixteen, and a vector permutation costs more
    // than a scalar one: it takes the portable path, whose verdicts are the same. Through
    // [`verify`], compiled once here, not once per item source in each calling crate
    // (a copy compiled in the C ABI ran slower; docs/results.md, "Which backend each
    // scheme prefers").
    if let [slot] = out {
        *slot = verify(instance, &items.item(start));
        return;
    }
    let unit: Vec<Item<'_>> = (start..start + out.len()).map(|i| items.item(i)).collect();
    verify_slice(instance, backend, lanes, &unit, out);
}

/// A unit's items as one slice, verified by code compiled once, in this crate: a
/// function generic over the item source would be instantiated again in each crate that
/// calls the engine (the C ABI, Python), lane kernels and all, and optimised there
/// differently. Borrowing the unit's items costs a few nanoseconds each.
#[inline(never)]
fn verify_slice(
    instance: Instance,
    backend: Backend,
    lanes: usize,
    items: &[Item<'_>],
    out: &mut [Verdict],
) {
    with_lanes!(backend, L => verify_items::<L, [Item<'_>]>(instance, lanes, items, 0, out))
}

fn verify_items<L: KoalaLanes, S: ItemSource + ?Sized>(
    instance: Instance,
    lanes: usize,
    items: &S,
    start: usize,
    out: &mut [Verdict],
) {
    let group = lanes.clamp(1, L::N);
    let params = instance.params();
    let capacity = instance.capacity();
    // Items that decode fill the lanes; the rest have their verdict already.
    let mut pending: Vec<(usize, Decoded)> = Vec::with_capacity(group);
    let flush = |pending: &mut Vec<(usize, Decoded)>, out: &mut [Verdict]| {
        let (slots, decoded): (Vec<usize>, Vec<Decoded>) = pending.drain(..).unzip();
        let results = verify::verify_lanes::<L>(params, capacity, &decoded);
        for (slot, result) in slots.into_iter().zip(results) {
            out[slot] = result.into();
        }
    };
    for slot in 0..out.len() {
        match decode(instance, &items.item(start + slot)) {
            Ok(decoded) => {
                pending.push((slot, decoded));
                if pending.len() == group {
                    flush(&mut pending, out);
                }
            }
            Err(reason) => out[slot] = Verdict::Invalid(reason),
        }
    }
    if !pending.is_empty() {
        flush(&mut pending, out);
    }
}

/// Test access to each implementation, as for ML-DSA.
#[doc(hidden)]
pub mod testing {
    use super::*;

    /// Verify `items` as one group per `width` on portable lanes of that width
    /// (1, 8 or 16), or on a SIMD backend.
    pub fn verify_on(instance: Instance, implementation: &str, items: &[Item<'_>]) -> Vec<Verdict> {
        let mut out = vec![Verdict::Invalid(Reject::EquationFailed); items.len()];
        match implementation {
            "portable1" => verify_items::<Portable<1>, _>(instance, 1, items, 0, &mut out),
            "portable8" => verify_items::<Portable<8>, _>(instance, 8, items, 0, &mut out),
            "portable16" => verify_items::<Portable<16>, _>(instance, 16, items, 0, &mut out),
            #[cfg(target_arch = "x86_64")]
            "avx2" => verify_items::<lanes::avx2::KoalaAvx2x2, _>(instance, 16, items, 0, &mut out),
            #[cfg(target_arch = "x86_64")]
            "avx2-single" => {
                verify_items::<linesig_simd::u32x8::U32x8, _>(instance, 8, items, 0, &mut out)
            }
            #[cfg(target_arch = "x86_64")]
            "avx512" => {
                verify_items::<linesig_simd::u32x16::U32x16, _>(instance, 16, items, 0, &mut out)
            }
            other => panic!("no implementation {other}"),
        }
        out
    }

    /// The implementations this CPU runs.
    pub fn implementations() -> Vec<&'static str> {
        let mut all = vec!["portable1", "portable8", "portable16"];
        #[cfg(target_arch = "x86_64")]
        {
            if lanes::avx2::supported() {
                all.extend(["avx2", "avx2-single"]);
            }
            if lanes::avx512::supported() {
                all.push("avx512");
            }
        }
        all
    }
}
