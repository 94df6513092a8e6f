//! ML-DSA-44/65/87 (FIPS 204): verification on linesig's own vector lanes or on
//! `libcrux-ml-dsa` (formally verified; AVX2 chosen at run time), key generation and
//! signing on libcrux.
//!
//! Verification is ML-DSA.Verify (FIPS 204 Algorithm 3): the "pure" variant with a
//! context string of at most 255 bytes (§5.2), the message prefixed by 0 ‖ |ctx| ‖ ctx.
//! Wrong key or signature sizes are `BadLength`, a context over 255 bytes `BadContext`;
//! the verification failures of Algorithm 8 map to `MalformedHint` (HintBitUnpack
//! fails), `NormBoundExceeded` (‖z‖∞ ≥ γ1 − β) and `EquationFailed` (c̃ mismatch).
//!
//! Two verifiers give those verdicts, bit for bit (differential tests hold them to it):
//! - libcrux's, the reference: [`verify`], [`verify_internal`] and the engine's
//!   `portable` backend;
//! - linesig's own (`verify.rs`, `lanes/`, `keccak/`): the NTT on AVX2 (`avx2` backend) or
//!   AVX-512 (`avx512` backend) lanes, and an expanded form of each public key that the
//!   engine's key cache keeps for keys that keep signing. The `portable` backend serves
//!   cached keys on the portable lanes.
//!
//! Key generation and signing exist for benchmarks and fixtures; verifying handles
//! public data only.

pub(crate) mod arith;
mod encoding;
pub(crate) mod keccak;
pub(crate) mod lanes;
pub(crate) mod reject;
pub(crate) mod sample;
pub(crate) mod verify;

use crate::error::UnknownName;
use crate::item::{Item, ItemSource};
use crate::key_cache::{KeyCache, Lookup};
use crate::verdict::{Reject, Verdict};
use crate::verifier::SchemeVerifier;
use crate::Backend;
use lanes::portable::Portable;
use lanes::Lanes;
use libcrux_ml_dsa::{MLDSASignature, MLDSASigningKey, MLDSAVerificationKey, VerificationError};
#[cfg(target_arch = "x86_64")]
use linesig_simd::{u32x16::U32x16, u32x8::U32x8};
use std::fmt;
use std::str::FromStr;
use std::sync::Arc;
use verify::{DecodedSignature, ExpandedKey};

/// Longest context string FIPS 204 §5.2 allows.
pub const MAX_CONTEXT_LEN: usize = 255;

/// An ML-DSA parameter set (FIPS 204 Table 1).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ParameterSet {
    MlDsa44,
    MlDsa65,
    MlDsa87,
}

/// Run `$body` with `$m` naming libcrux's module for the parameter set, so the three
/// sets share one piece of code: sizes come from the functions' own array types.
macro_rules! with_parameter_set {
    ($ps:expr, $m:ident => $body:expr) => {
        match $ps {
            ParameterSet::MlDsa44 => {
                use libcrux_ml_dsa::ml_dsa_44 as $m;
                $body
            }
            ParameterSet::MlDsa65 => {
                use libcrux_ml_dsa::ml_dsa_65 as $m;
                $body
            }
            ParameterSet::MlDsa87 => {
                use libcrux_ml_dsa::ml_dsa_87 as $m;
                $body
            }
        }
    };
}

impl ParameterSet {
    pub const ALL: [ParameterSet; 3] = [
        ParameterSet::MlDsa44,
        ParameterSet::MlDsa65,
        ParameterSet::MlDsa87,
    ];

    pub fn name(self) -> &'static str {
        match self {
            ParameterSet::MlDsa44 => "mldsa44",
            ParameterSet::MlDsa65 => "mldsa65",
            ParameterSet::MlDsa87 => "mldsa87",
        }
    }

    /// FIPS 204 Table 2 sizes, in bytes: (public key, signing key, signature).
    pub fn sizes(self) -> (usize, usize, usize) {
        match self {
            ParameterSet::MlDsa44 => (1312, 2560, 2420),
            ParameterSet::MlDsa65 => (1952, 4032, 3309),
            ParameterSet::MlDsa87 => (2592, 4896, 4627),
        }
    }

    pub fn public_key_len(self) -> usize {
        self.sizes().0
    }

    pub fn signing_key_len(self) -> usize {
        self.sizes().1
    }

    pub fn signature_len(self) -> usize {
        self.sizes().2
    }
}

/// The constants of FIPS 204 Table 1 that verification uses.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Params {
    /// Rows and columns of A.
    pub(crate) k: usize,
    pub(crate) l: usize,
    /// ±1 coefficients of c.
    pub(crate) tau: usize,
    /// Bytes of c̃ (λ/4).
    pub(crate) commitment_hash_len: usize,
    /// γ1 = 2^gamma1_bits.
    pub(crate) gamma1_bits: u32,
    pub(crate) gamma2: i32,
    pub(crate) beta: i32,
    /// Most hint bits set (ω).
    pub(crate) omega: usize,
}

impl Params {
    /// Bytes of one packed z polynomial: 256 coefficients of bits(γ1) + 1 bits.
    pub(crate) fn z_bytes(&self) -> usize {
        32 * (self.gamma1_bits as usize + 1)
    }

    /// Bytes of one w1Encode'd polynomial: 6 bits a coefficient for γ2 = (q − 1)/88,
    /// else 4.
    pub(crate) fn w1_bytes(&self) -> usize {
        if self.gamma2 == (arith::Q - 1) / 88 {
            192
        } else {
            128
        }
    }
}

impl ParameterSet {
    pub(crate) fn params(self) -> Params {
        let (q, k, l, tau, commitment_hash_len, gamma1_bits, gamma2_divisor, beta, omega) =
            match self {
                ParameterSet::MlDsa44 => (arith::Q, 4, 4, 39, 32, 17, 88, 78, 80),
                ParameterSet::MlDsa65 => (arith::Q, 6, 5, 49, 48, 19, 32, 196, 55),
                ParameterSet::MlDsa87 => (arith::Q, 8, 7, 60, 64, 19, 32, 120, 75),
            };
        Params {
            k,
            l,
            tau,
            commitment_hash_len,
            gamma1_bits,
            gamma2: (q - 1) / gamma2_divisor,
            beta,
            omega,
        }
    }
}

impl fmt::Display for ParameterSet {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for ParameterSet {
    type Err = UnknownName;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s.to_ascii_lowercase().replace(['-', '_'], "").as_str() {
            "mldsa44" => Ok(ParameterSet::MlDsa44),
            "mldsa65" => Ok(ParameterSet::MlDsa65),
            "mldsa87" => Ok(ParameterSet::MlDsa87),
            _ => Err(UnknownName::new(
                "ML-DSA parameter set",
                s,
                "mldsa44, mldsa65, mldsa87",
            )),
        }
    }
}

impl SchemeVerifier for ParameterSet {
    #[cfg(target_arch = "x86_64")]
    const AVX512_FEATURES: linesig_simd::Isa = lanes::avx512::FEATURES;
    #[cfg(target_arch = "x86_64")]
    const AVX2_FEATURES: linesig_simd::Isa = lanes::avx2::FEATURES;
    /// One signature's coefficients span the lanes.
    const AVX512_LANES: usize = 1;
    const AVX2_LANES: usize = 1;
    /// The AVX-512 lanes where AVX-512F runs, else `avx2`: sixteen 32-bit lanes per
    /// instruction beat eight on every AVX-512 core measured (docs/results.md, "Which
    /// backend each scheme prefers").
    const PREFERENCE: &'static [Backend] = &[Backend::Avx512, Backend::Avx2];

    fn scheme_name(self) -> &'static str {
        self.name()
    }

    fn scheme_label(self) -> String {
        format!("ML-DSA-{}", &self.name()[5..])
    }

    fn describe(self, backend: Backend) -> &'static str {
        match backend {
            Backend::Avx512 => "avx512 (linesig's verifier on AVX-512, 16 coefficients per vector)",
            Backend::Avx2 => "avx2 (linesig's verifier, 8 coefficients per vector)",
            Backend::Portable => "portable (libcrux)",
        }
    }

    fn key_table_bytes(self, _backend: Backend) -> Option<usize> {
        Some(expanded_key_bytes(self))
    }

    fn verify(self, item: &Item<'_>) -> Verdict {
        verify(self, item)
    }

    fn verify_unit<S: ItemSource + ?Sized>(
        self,
        backend: Backend,
        _lanes: usize,
        cache: Option<&KeyCache>,
        _batch: Option<&crate::batch_gate::BatchGate>,
        items: &S,
        start: usize,
        out: &mut [Verdict],
    ) {
        verify_unit(self, backend, cache, items, start, out)
    }
}

/// Why signing failed (key generation cannot fail).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum SignError {
    #[error("signing key is {got} bytes; {parameter_set} needs {expected}")]
    BadSigningKeyLength {
        parameter_set: ParameterSet,
        expected: usize,
        got: usize,
    },
    #[error("context is {0} bytes; FIPS 204 allows at most 255")]
    ContextTooLong(usize),
    #[error(
        "the signing key is malformed: coefficient {index} of s1 or s2 unpacks outside [-{eta}, {eta}] \
         (FIPS 204 skDecode); it is not a key KeyGen makes"
    )]
    MalformedSigningKey { index: usize, eta: u32 },
    #[error(
        "signing gave up after too many rejection-sampling rounds (retry with other randomness)"
    )]
    RejectionSampling,
}

/// A key pair: encoded public (verification) key and signing key.
#[derive(Clone)]
pub struct KeyPair {
    pub public_key: Vec<u8>,
    pub signing_key: Vec<u8>,
}

impl fmt::Debug for KeyPair {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("KeyPair")
            .field("public_key", &self.public_key.len())
            .finish_non_exhaustive()
    }
}

/// ML-DSA.KeyGen_internal (FIPS 204 Algorithm 6) from the 32-byte seed ξ.
pub fn generate_key_pair(parameter_set: ParameterSet, seed: [u8; 32]) -> KeyPair {
    with_parameter_set!(parameter_set, m => {
        let pair = m::generate_key_pair(seed);
        KeyPair {
            public_key: pair.verification_key.as_ref().to_vec(),
            signing_key: pair.signing_key.as_ref().to_vec(),
        }
    })
}

/// ML-DSA.Sign (FIPS 204 Algorithm 2) with the 32-byte randomness rnd (hedged signing).
pub fn sign(
    parameter_set: ParameterSet,
    signing_key: &[u8],
    message: &[u8],
    context: &[u8],
    randomness: [u8; 32],
) -> Result<Vec<u8>, SignError> {
    if context.len() > MAX_CONTEXT_LEN {
        return Err(SignError::ContextTooLong(context.len()));
    }
    let bad_length = || SignError::BadSigningKeyLength {
        parameter_set,
        expected: parameter_set.signing_key_len(),
        got: signing_key.len(),
    };
    if signing_key.len() != parameter_set.signing_key_len() {
        return Err(bad_length());
    }
    check_secret_vectors(parameter_set, signing_key)?;
    with_parameter_set!(parameter_set, m => {
        let key = MLDSASigningKey::new(signing_key.try_into().map_err(|_| bad_length())?);
        m::sign(&key, message, context, randomness)
            .map(|sig| sig.as_ref().to_vec())
            .map_err(|_| SignError::RejectionSampling)
    })
}

/// skDecode's range check (FIPS 204 Algorithm 25, whose BitUnpack of s1 and s2 can yield
/// values outside [−η, η] on bytes KeyGen never makes): each coefficient is packed as
/// η − c in bitlen(2η) bits (3 for η = 2, 4 for η = 4), so a packed value above 2η is
/// a malformed key. libcrux signs with such a key without complaint.
fn check_secret_vectors(parameter_set: ParameterSet, signing_key: &[u8]) -> Result<(), SignError> {
    let params = parameter_set.params();
    let eta: u32 = match parameter_set {
        ParameterSet::MlDsa65 => 4,
        ParameterSet::MlDsa44 | ParameterSet::MlDsa87 => 2,
    };
    let bits = if eta == 4 { 4 } else { 3 };
    // ρ (32) ‖ K (32) ‖ tr (64), then s1 (l polynomials) and s2 (k), 32·bits bytes each.
    let start = 128;
    let len = (params.l + params.k) * 32 * bits;
    let packed = &signing_key[start..start + len];
    let coefficients = len * 8 / bits;
    for index in 0..coefficients {
        let bit = index * bits;
        let pair =
            u16::from(packed[bit / 8]) | u16::from(*packed.get(bit / 8 + 1).unwrap_or(&0)) << 8;
        let value = u32::from(pair >> (bit % 8)) & ((1 << bits) - 1);
        if value > 2 * eta {
            return Err(SignError::MalformedSigningKey { index, eta });
        }
    }
    Ok(())
}

fn reject(error: VerificationError) -> Reject {
    match error {
        VerificationError::MalformedHintError => Reject::MalformedHint,
        VerificationError::SignerResponseExceedsBoundError => Reject::NormBoundExceeded,
        VerificationError::CommitmentHashesDontMatchError => Reject::EquationFailed,
        VerificationError::VerificationContextTooLongError => Reject::BadContext,
    }
}

/// Verify one item (ML-DSA.Verify, FIPS 204 Algorithm 3).
pub fn verify(parameter_set: ParameterSet, item: &Item<'_>) -> Verdict {
    if item.context.len() > MAX_CONTEXT_LEN {
        return Verdict::Invalid(Reject::BadContext);
    }
    let result = with_parameter_set!(parameter_set, m => {
        match (item.public_key.try_into(), item.signature.try_into()) {
            (Ok(pk), Ok(sig)) => m::verify(
                &MLDSAVerificationKey::new(pk),
                item.message,
                item.context,
                &MLDSASignature::new(sig),
            )
            .map_err(reject),
            _ => Err(Reject::BadLength),
        }
    });
    Verdict::from(result)
}

/// ML-DSA.Verify_internal (FIPS 204 Algorithm 8) on the already formatted message M′,
/// with no domain separation: what NIST's ACVP "internal" projection tests. Users want
/// [`verify`].
pub fn verify_internal(
    parameter_set: ParameterSet,
    public_key: &[u8],
    formatted_message: &[u8],
    signature: &[u8],
) -> Verdict {
    let result = with_parameter_set!(parameter_set, m => {
        match (public_key.try_into(), signature.try_into()) {
            (Ok(pk), Ok(sig)) => m::verify_internal(
                &MLDSAVerificationKey::new(pk),
                formatted_message,
                &MLDSASignature::new(sig),
            )
            .map_err(reject),
            _ => Err(Reject::BadLength),
        }
    });
    Verdict::from(result)
}

/// Bytes of one expanded public key (the key cache's unit): Â, NTT(t1·2^d), tr and
/// the key itself. About 21 KB for ML-DSA-44, 38 KB for 65 and 68 KB for 87.
pub fn expanded_key_bytes(parameter_set: ParameterSet) -> usize {
    ExpandedKey::bytes(parameter_set)
}

/// Which verifier runs: libcrux, or linesig's own on some lanes. For tests and
/// benchmarks that compare them; the engine picks by its backend.
#[doc(hidden)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Implementation {
    Libcrux,
    /// linesig's verifier on portable lanes of width 1, 8 or 16 (the AVX2 and AVX-512
    /// layouts, on any CPU).
    Portable(usize),
    Avx2,
    Avx512,
}

impl Implementation {
    /// Every implementation this CPU can run.
    pub fn supported() -> Vec<Implementation> {
        let mut all = vec![
            Implementation::Libcrux,
            Implementation::Portable(1),
            Implementation::Portable(8),
            Implementation::Portable(16),
        ];
        #[cfg(target_arch = "x86_64")]
        {
            if lanes::avx2::supported() {
                all.push(Implementation::Avx2);
            }
            if lanes::avx512::supported() {
                all.push(Implementation::Avx512);
            }
        }
        all
    }
}

/// ML-DSA.Verify_internal on `implementation`, M′ given in pieces; lengths unchecked
/// by the caller are checked here.
fn verify_pieces_on(
    implementation: Implementation,
    parameter_set: ParameterSet,
    public_key: &[u8],
    message: &[&[u8]],
    signature: &[u8],
) -> Result<(), Reject> {
    if public_key.len() != parameter_set.public_key_len()
        || signature.len() != parameter_set.signature_len()
    {
        return Err(Reject::BadLength);
    }
    fn run<L: Lanes>(ps: ParameterSet, pk: &[u8], m: &[&[u8]], sig: &[u8]) -> Result<(), Reject> {
        verify::verify_pieces::<L>(ps, &ExpandedKey::new::<L>(ps, pk), sig, m)
    }
    match implementation {
        Implementation::Libcrux => {
            verify_internal(parameter_set, public_key, &message.concat(), signature).into()
        }
        Implementation::Portable(8) => {
            run::<Portable<8>>(parameter_set, public_key, message, signature)
        }
        Implementation::Portable(16) => {
            run::<Portable<16>>(parameter_set, public_key, message, signature)
        }
        Implementation::Portable(_) => {
            run::<Portable<1>>(parameter_set, public_key, message, signature)
        }
        #[cfg(target_arch = "x86_64")]
        Implementation::Avx2 if lanes::avx2::supported() => {
            run::<U32x8>(parameter_set, public_key, message, signature)
        }
        #[cfg(target_arch = "x86_64")]
        Implementation::Avx512 if lanes::avx512::supported() => {
            run::<U32x16>(parameter_set, public_key, message, signature)
        }
        _ => panic!("{implementation:?} is not supported on this CPU"),
    }
}

/// [`verify`] on a chosen implementation (panics if this CPU cannot run it).
#[doc(hidden)]
pub fn verify_on(
    implementation: Implementation,
    parameter_set: ParameterSet,
    item: &Item<'_>,
) -> Verdict {
    if item.context.len() > MAX_CONTEXT_LEN {
        return Verdict::Invalid(Reject::BadContext);
    }
    let prefix = [0, item.context.len() as u8];
    let message: [&[u8]; 3] = [&prefix, item.context, item.message];
    verify_pieces_on(
        implementation,
        parameter_set,
        item.public_key,
        &message,
        item.signature,
    )
    .into()
}

/// [`verify_internal`] on a chosen implementation (panics if this CPU cannot run it).
#[doc(hidden)]
pub fn verify_internal_on(
    implementation: Implementation,
    parameter_set: ParameterSet,
    public_key: &[u8],
    formatted_message: &[u8],
    signature: &[u8],
) -> Verdict {
    verify_pieces_on(
        implementation,
        parameter_set,
        public_key,
        &[formatted_message],
        signature,
    )
    .into()
}

/// The cache's 32-byte name for a public key: 24 bytes of ρ and a keyed hash of the
/// whole key. Names may collide (a hit is confirmed against the whole key), but
/// nobody without the per-process hash key can make a key collide with another.
fn cache_name(public_key: &[u8]) -> [u8; 32] {
    use std::hash::BuildHasher;
    static HASHER: std::sync::OnceLock<std::hash::RandomState> = std::sync::OnceLock::new();
    let mut name = [0u8; 32];
    name[..24].copy_from_slice(&public_key[..24]);
    name[24..].copy_from_slice(
        &HASHER
            .get_or_init(Default::default)
            .hash_one(public_key)
            .to_le_bytes(),
    );
    name
}

/// The checks every path makes first, in libcrux's order: context, then lengths.
fn check_lengths(parameter_set: ParameterSet, item: &Item<'_>) -> Result<(), Reject> {
    if item.context.len() > MAX_CONTEXT_LEN {
        return Err(Reject::BadContext);
    }
    if item.public_key.len() != parameter_set.public_key_len()
        || item.signature.len() != parameter_set.signature_len()
    {
        return Err(Reject::BadLength);
    }
    Ok(())
}

/// A signature in a group past the checks that need no key.
struct Pending<'a> {
    slot: usize,
    item: Item<'a>,
    signature: Box<DecodedSignature<'a>>,
    key: Option<Arc<ExpandedKey>>,
    /// The cache name to insert the expanded key under, if the cache admitted it.
    admit: Option<[u8; 32]>,
}

/// Up to `L::Keccak::N` items on lanes `L`, through the key cache where there is one.
/// Keys the cache does not hold go to libcrux when `libcrux_cold` (the `portable`
/// backend), else are expanded here; the group's tr and commitment hashes run one per
/// Keccak lane.
#[inline(always)]
fn verify_group<'a, L: Lanes>(
    parameter_set: ParameterSet,
    cache: Option<&KeyCache>,
    libcrux_cold: bool,
    group: &[Item<'a>],
    out: &mut [Verdict],
) {
    let p = parameter_set.params();
    let mut pending: Vec<Pending<'a>> = Vec::with_capacity(group.len());
    for (slot, item) in group.iter().enumerate() {
        if let Err(reason) = check_lengths(parameter_set, item) {
            out[slot] = Verdict::Invalid(reason);
            continue;
        }
        let (mut key, mut admit) = (None, None);
        if let Some(cache) = cache {
            let name = cache_name(item.public_key);
            match cache.lookup(&name, 1) {
                Lookup::Hit(table) => {
                    key = Arc::downcast::<ExpandedKey>(table)
                        .ok()
                        .filter(|key| key.is_for(item.public_key))
                }
                Lookup::Admit => admit = Some(name),
                Lookup::Miss => {}
            }
        }
        if key.is_none() && admit.is_none() && libcrux_cold {
            out[slot] = verify(parameter_set, item);
            continue;
        }
        match DecodedSignature::decode(&p, item.signature) {
            Ok(signature) => pending.push(Pending {
                slot,
                item: *item,
                signature,
                key,
                admit,
            }),
            Err(reason) => out[slot] = Verdict::Invalid(reason),
        }
    }
    let to_expand: Vec<&[u8]> = pending
        .iter()
        .filter(|s| s.key.is_none())
        .map(|s| s.item.public_key)
        .collect();
    let mut expanded = ExpandedKey::new_many::<L>(parameter_set, &to_expand).into_iter();
    for s in pending.iter_mut().filter(|s| s.key.is_none()) {
        let key = Arc::new(expanded.next().expect("one expansion per missing key"));
        if let (Some(cache), Some(name)) = (cache, s.admit) {
            cache.insert(&name, key.clone());
        }
        s.key = Some(key);
    }
    let mut preimages = vec![[0u8; verify::MAX_PREIMAGE]; pending.len()];
    let mut len = 0;
    for (s, preimage) in pending.iter_mut().zip(&mut preimages) {
        let key = s.key.as_ref().expect("every pending signature has its key");
        let prefix = [0, s.item.context.len() as u8];
        let mu =
            verify::message_representative(&key.tr, &[&prefix, s.item.context, s.item.message]);
        len = verify::commitment_preimage::<L>(parameter_set, key, &mut s.signature, &mu, preimage);
    }
    let mut hashes = vec![[0u8; 64]; pending.len()];
    {
        let inputs: Vec<&[u8]> = preimages.iter().map(|pre| &pre[..len]).collect();
        let mut outputs: Vec<&mut [u8]> = hashes
            .iter_mut()
            .map(|h| &mut h[..p.commitment_hash_len])
            .collect();
        keccak::shake256_lanes::<L::Keccak>(&inputs, &mut outputs);
    }
    for (s, hash) in pending.iter().zip(&hashes) {
        out[s.slot] = s.signature.commitment_matches(hash).into();
    }
}

#[inline(always)]
fn verify_items<L: Lanes, S: ItemSource + ?Sized>(
    parameter_set: ParameterSet,
    cache: Option<&KeyCache>,
    libcrux_cold: bool,
    items: &S,
    start: usize,
    out: &mut [Verdict],
) {
    let width = <L::Keccak as keccak::KeccakLanes>::N;
    for (group_index, verdicts) in out.chunks_mut(width).enumerate() {
        let first = start + group_index * width;
        let group: Vec<Item<'_>> = (0..verdicts.len()).map(|i| items.item(first + i)).collect();
        verify_group::<L>(parameter_set, cache, libcrux_cold, &group, verdicts);
    }
}

/// Verify items `start..start + out.len()` into `out` on `backend`: `avx2` and `avx512`
/// run linesig's verifier on AVX2 and AVX-512 lanes, `portable` runs libcrux (and
/// cached keys on the portable lanes). A backend this CPU lacks falls back to
/// `portable` (the engine never selects one).
pub(crate) fn verify_unit<S: ItemSource + ?Sized>(
    parameter_set: ParameterSet,
    backend: Backend,
    cache: Option<&KeyCache>,
    items: &S,
    start: usize,
    out: &mut [Verdict],
) {
    match backend {
        #[cfg(target_arch = "x86_64")]
        Backend::Avx2 if lanes::avx2::supported() => {
            verify_items::<U32x8, S>(parameter_set, cache, false, items, start, out)
        }
        #[cfg(target_arch = "x86_64")]
        Backend::Avx512 if lanes::avx512::supported() => {
            verify_items::<U32x16, S>(parameter_set, cache, false, items, start, out)
        }
        _ => verify_items::<Portable<1>, S>(parameter_set, cache, true, items, start, out),
    }
}
