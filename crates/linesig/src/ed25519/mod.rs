//! Ed25519 verification (RFC 8032 §5.1.7) under the exact acceptance rules of the chains
//! that use it (docs/design.md §3).
//!
//! Layering follows curve25519-dalek: the policies and the byte-level encoding rules live
//! here once ([`Policy`], `encoding`); each backend only does arithmetic: `portable` on
//! curve25519-dalek, and the lane-parallel `avx2` and `avx512` (module `lanes`), whose
//! generic code also serves hot keys on fixed-base tables for every backend.
//!
//! k = SHA-512(R ‖ A ‖ M) mod L, over the bytes exactly as received.

mod batch_coefficients;
mod calibration;
mod encoding;
mod field;
mod half_size;
mod lanes;
mod policy;
mod reference;
mod scalar_mod_l;
mod sha512;

pub use crate::error::UnknownPolicy;
#[cfg(any(test, feature = "profile"))]
pub use lanes::{Plan, Stage};
pub use policy::Policy;

use crate::batch_gate::BatchGate;
use crate::grouping::key_groups;
use crate::item::{Item, ItemSource};
use crate::key_cache::KeyCache;
use crate::verdict::{Reject, Verdict};
use crate::verifier::SchemeVerifier;
use crate::Backend;
use curve25519_dalek::scalar::Scalar;
use encoding::{is_canonical_encoding, is_small_order_canonical};
use policy::Rules;
use sha2::{Digest, Sha512};

pub const PUBLIC_KEY_LEN: usize = 32;
pub const SIGNATURE_LEN: usize = 64;

/// Verify one item under `policy` on the reference backend. The engine gives the same
/// verdict for the same item, whatever the batch, backend, workers or batch size (with
/// the batch equation on, but with probability at most 2^−127 per check: design §4).
pub fn verify(policy: Policy, item: &Item<'_>) -> Verdict {
    let mut out = [Verdict::Invalid(Reject::EquationFailed)];
    verify_unit(
        policy,
        Backend::Portable,
        usize::MAX,
        None,
        None,
        std::slice::from_ref(item),
        0,
        &mut out,
    );
    out[0]
}

/// One well-formed item of a work unit, with its slot in the unit's verdicts.
#[derive(Clone, Copy)]
pub(crate) struct UnitEntry<'a> {
    pub public_key: &'a [u8; PUBLIC_KEY_LEN],
    pub signature: &'a [u8; SIGNATURE_LEN],
    pub message: &'a [u8],
    pub slot: u32,
}

/// Verify items `start..start + out.len()` of `items` into `out`: lengths first, then
/// items grouped by public key so each distinct key is decoded once; with a batch gate
/// (the engine's batch equation on) and a cofactored policy, on the batch equation
/// ([`batched`], which reads cached keys' tables instead of decoding them); with a key
/// cache, what is left of hot keys' groups on their fixed-base tables (per signature,
/// they cost more than the batch equation when it holds: docs/results.md); the rest
/// one signature at a time. A lane backend fills at most `lanes_in_use` lanes per
/// vector (`usize::MAX`: all).
#[allow(clippy::too_many_arguments)]
pub(crate) fn verify_unit<S: ItemSource + ?Sized>(
    policy: Policy,
    backend: Backend,
    lanes_in_use: usize,
    key_cache: Option<&KeyCache>,
    batch: Option<&BatchGate>,
    items: &S,
    start: usize,
    out: &mut [Verdict],
) {
    let batch = batch.map(|gate| (gate, None));
    verify_unit_on(
        policy,
        backend,
        lanes_in_use,
        key_cache,
        batch,
        items,
        start,
        out,
    )
}

/// [`verify_unit`], with the batch gate beside the smallest unit that takes the batch
/// equation: `None` for this backend's measured floor
/// ([`calibration::batch_floor`]), which is how the engine runs; the calibration
/// itself names one.
#[allow(clippy::too_many_arguments)]
fn verify_unit_on<S: ItemSource + ?Sized>(
    policy: Policy,
    backend: Backend,
    lanes_in_use: usize,
    key_cache: Option<&KeyCache>,
    batch: Option<(&BatchGate, Option<usize>)>,
    items: &S,
    start: usize,
    out: &mut [Verdict],
) {
    let rules = policy.rules();
    let mut entries = unit_entries(items, start, out);
    let groups = key_groups(&mut entries, |e| e.public_key);
    let lanes = lanes_in_use;
    let (entries, mut groups) = match batch {
        Some((gate, floor)) if rules.cofactored => batched(
            rules,
            backend,
            (gate, floor),
            key_cache,
            entries,
            groups,
            out,
        ),
        _ => (entries, groups),
    };
    if let Some(cache) = key_cache {
        groups = match backend {
            Backend::Portable => lanes::portable::verify_hot(rules, cache, &entries, groups, out),
            #[cfg(target_arch = "x86_64")]
            Backend::Avx2 => lanes::avx2::verify_hot(rules, lanes, cache, &entries, groups, out),
            #[cfg(target_arch = "x86_64")]
            Backend::Avx512 => {
                lanes::avx512::verify_hot(rules, lanes, cache, &entries, groups, out)
            }
            #[cfg(not(target_arch = "x86_64"))]
            Backend::Avx2 | Backend::Avx512 => groups,
        };
    }
    match backend {
        Backend::Portable => reference::verify_groups(rules, &entries, &groups, out),
        #[cfg(target_arch = "x86_64")]
        Backend::Avx2 => lanes::avx2::verify_groups(rules, lanes, &entries, &groups, out),
        #[cfg(target_arch = "x86_64")]
        Backend::Avx512 => lanes::avx512::verify_groups(rules, lanes, &entries, &groups, out),
        // The engine never selects a backend the target lacks (`Backend::is_supported`).
        #[cfg(not(target_arch = "x86_64"))]
        Backend::Avx2 | Backend::Avx512 => reference::verify_groups(rules, &entries, &groups, out),
    }
}

/// The batch equation over `groups` where the gate admits the unit and it is large enough
/// (`lanes::batch_equation`, which reads cached keys from `cache`): it settles what it
/// can into `out` and returns the entries left for the hot-key and per-signature paths,
/// grouped again. Large enough: at least `floor`, or where that is `None` the
/// backend's measured floor ([`calibration::batch_floor`]; a unit of
/// [`calibration::FLOOR_CEILING`] or more never waits for it). The coefficients
/// come from the operating system; where it has none to give, the unit takes the
/// per-signature path.
fn batched<'a>(
    rules: Rules,
    backend: Backend,
    (gate, floor): (&BatchGate, Option<usize>),
    cache: Option<&KeyCache>,
    entries: Vec<UnitEntry<'a>>,
    groups: Vec<std::ops::Range<usize>>,
    out: &mut [Verdict],
) -> (Vec<UnitEntry<'a>>, Vec<std::ops::Range<usize>>) {
    let count: usize = groups.iter().map(|g| g.len()).sum();
    let floor = floor.unwrap_or_else(|| {
        if count >= calibration::FLOOR_CEILING {
            lanes::MIN_BATCH
        } else {
            calibration::batch_floor(backend)
        }
    });
    if count < floor.max(lanes::MIN_BATCH) || !gate.admit() {
        return (entries, groups);
    }
    let Ok(coefficients) = batch_coefficients::Coefficients::draw() else {
        return (entries, groups);
    };
    let (z, whole) = (&coefficients, gate.whole_first());
    let settled = match backend {
        Backend::Portable => {
            lanes::portable::verify_batched(rules, cache, &entries, &groups, z, whole, out)
        }
        #[cfg(target_arch = "x86_64")]
        Backend::Avx2 => {
            lanes::avx2::verify_batched(rules, cache, &entries, &groups, z, whole, out)
        }
        #[cfg(target_arch = "x86_64")]
        Backend::Avx512 => {
            lanes::avx512::verify_batched(rules, cache, &entries, &groups, z, whole, out)
        }
        #[cfg(not(target_arch = "x86_64"))]
        Backend::Avx2 | Backend::Avx512 => None,
    };
    let Some(settled) = settled else {
        return (entries, groups);
    };
    gate.record(settled.outcome);
    let mut rest: Vec<UnitEntry<'a>> = settled.rest.iter().map(|&i| entries[i]).collect();
    let groups = key_groups(&mut rest, |e| e.public_key);
    (rest, groups)
}

/// The well-formed items `start..start + out.len()` of `items`; the others get their
/// verdict (`BadContext`, `BadLength`) in `out` here.
fn unit_entries<'a, S: ItemSource + ?Sized>(
    items: &'a S,
    start: usize,
    out: &mut [Verdict],
) -> Vec<UnitEntry<'a>> {
    let mut entries: Vec<UnitEntry<'_>> = Vec::with_capacity(out.len());
    for (slot, verdict) in out.iter_mut().enumerate() {
        let item = items.item(start + slot);
        if !item.context.is_empty() {
            *verdict = Verdict::Invalid(Reject::BadContext);
            continue;
        }
        match (item.public_key.try_into(), item.signature.try_into()) {
            (Ok(public_key), Ok(signature)) => entries.push(UnitEntry {
                public_key,
                signature,
                message: item.message,
                slot: slot as u32,
            }),
            _ => *verdict = Verdict::Invalid(Reject::BadLength),
        }
    }
    entries
}

#[cfg(any(test, feature = "profile"))]
/// Where a lane backend's time goes: time-stamp-counter ticks per signature in each
/// [`Stage`] of the per-unit path (no key cache), with the verdicts it gave. The counter
/// runs at the CPU's nominal clock, not its boosted core clock: read the shares.
#[derive(Clone, Debug)]
pub struct StageProfile {
    pub signatures: usize,
    /// Per stage, in [`Stage::ALL`] order: time-stamp-counter cycles per signature.
    pub cycles_per_signature: Vec<(Stage, f64)>,
    pub verdicts: Vec<Verdict>,
}

#[cfg(any(test, feature = "profile"))]
/// Verify `items` on one thread in work units of `unit` items on a lane backend, timing
/// each stage. `None` for `portable` (it has no stages of its own: curve25519-dalek
/// runs each signature whole) and for a backend this CPU cannot run.
pub fn stage_profile(
    policy: Policy,
    backend: Backend,
    items: &[Item<'_>],
    unit: usize,
) -> Option<StageProfile> {
    stage_profile_on(policy, backend, items, unit, None)
}

#[cfg(all(target_arch = "x86_64", any(test, feature = "profile")))]
type ProfileGroups = fn(
    Plan,
    Rules,
    &[UnitEntry<'_>],
    &[std::ops::Range<usize>],
    &mut [Verdict],
    &mut lanes::CycleClock,
) -> bool;

#[cfg(any(test, feature = "profile"))]
/// As [`stage_profile`], on `plan` where given (else the backend's own for `policy`):
/// how the plans are measured against each other.
pub fn stage_profile_on(
    policy: Policy,
    backend: Backend,
    items: &[Item<'_>],
    unit: usize,
    plan: Option<Plan>,
) -> Option<StageProfile> {
    #[cfg(target_arch = "x86_64")]
    {
        let (profile_groups, own_plan, features) = match backend {
            Backend::Avx512 => (
                lanes::avx512::profile_groups as ProfileGroups,
                lanes::avx512::plan as fn(_) -> _,
                lanes::avx512::FEATURES,
            ),
            Backend::Avx2 => (
                lanes::avx2::profile_groups as ProfileGroups,
                lanes::avx2::plan as fn(_) -> _,
                lanes::avx2::FEATURES,
            ),
            Backend::Portable => return None,
        };
        if !linesig_simd::Isa::detected().contains(features) {
            return None;
        }
        let plan = plan.unwrap_or_else(|| own_plan(policy.rules()));
        let mut clock = lanes::CycleClock::default();
        let mut verdicts = vec![Verdict::Invalid(Reject::EquationFailed); items.len()];
        let unit = unit.max(1);
        for (n, out) in verdicts.chunks_mut(unit).enumerate() {
            let mut entries = unit_entries(items, n * unit, out);
            let groups = key_groups(&mut entries, |e| e.public_key);
            profile_groups(plan, policy.rules(), &entries, &groups, out, &mut clock);
        }
        let per = |c: u64| c as f64 / items.len().max(1) as f64;
        Some(StageProfile {
            signatures: items.len(),
            cycles_per_signature: Stage::ALL
                .iter()
                .map(|&s| (s, per(clock.cycles[s as usize])))
                .collect(),
            verdicts,
        })
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        let _ = (policy, backend, items, unit, plan);
        None
    }
}

impl SchemeVerifier for Policy {
    #[cfg(target_arch = "x86_64")]
    const AVX512_FEATURES: linesig_simd::Isa = lanes::avx512::FEATURES;
    #[cfg(target_arch = "x86_64")]
    const AVX2_FEATURES: linesig_simd::Isa = lanes::avx2::FEATURES;
    const AVX512_LANES: usize = 8;
    const AVX2_LANES: usize = 4;
    /// `avx512` where it runs: the fastest on every IFMA core measured. Elsewhere `avx2`
    /// and `portable` are timed against each other
    /// ([`SchemeVerifier::fastest_measured`]): curve25519-dalek dispatches its
    /// double-base scalar multiplication to its own AVX2 code, and which wins depends on
    /// the core (docs/results.md, "Which backend each scheme prefers").
    const PREFERENCE: &'static [Backend] = &[Backend::Avx512];

    fn fastest_measured(self, candidates: &[Backend]) -> Option<Backend> {
        calibration::fastest(self, candidates)
    }

    fn scheme_name(self) -> &'static str {
        "ed25519"
    }

    fn scheme_label(self) -> String {
        format!("Ed25519 (policy {self})")
    }

    fn describe(self, backend: Backend) -> &'static str {
        match backend {
            Backend::Avx512 => "avx512 (8 signatures per AVX-512 IFMA vector)",
            Backend::Avx2 => "avx2 (4 signatures per AVX2 vector)",
            Backend::Portable => "portable (curve25519-dalek)",
        }
    }

    fn key_table_bytes(self, backend: Backend) -> Option<usize> {
        Some(key_table_bytes(backend))
    }

    fn verify(self, item: &Item<'_>) -> Verdict {
        verify(self, item)
    }

    fn verify_unit<S: ItemSource + ?Sized>(
        self,
        backend: Backend,
        lanes: usize,
        cache: Option<&KeyCache>,
        batch: Option<&BatchGate>,
        items: &S,
        start: usize,
        out: &mut [Verdict],
    ) {
        verify_unit(self, backend, lanes, cache, batch, items, start, out)
    }
}

/// Bytes of one hot key's fixed-base table on `backend`: what the key cache charges.
fn key_table_bytes(backend: Backend) -> usize {
    match backend {
        #[cfg(target_arch = "x86_64")]
        Backend::Avx2 => lanes::avx2::key_table_bytes(),
        #[cfg(target_arch = "x86_64")]
        Backend::Avx512 => lanes::avx512::key_table_bytes(),
        _ => lanes::portable::key_table_bytes(),
    }
}

/// The byte-level rule every backend applies to a public key before decoding it:
/// canonical bytes where the policy demands them. Decompression and the small-order test
/// are arithmetic, left to the backend.
pub(crate) fn precheck_key(rules: Rules, public_key: &[u8; PUBLIC_KEY_LEN]) -> Result<(), Reject> {
    if rules.canonical_encodings && !is_canonical_encoding(public_key) {
        return Err(Reject::NonCanonicalEncoding);
    }
    Ok(())
}

/// The byte-level checks every backend applies to a signature before any arithmetic,
/// returning (R, S) as bytes: S < L (RFC 8032 §5.1.7), then R's encoding rules. A
/// non-canonical R can never equal the fresh encoding `Strict` compares it with, and a
/// canonical one encodes a small-order point exactly when it is one of the eight
/// canonical small-order encodings, so `Strict` needs no decoding of R at all.
pub(crate) fn precheck_signature(
    rules: Rules,
    signature: &[u8; SIGNATURE_LEN],
) -> Result<(&[u8; 32], &[u8; 32]), Reject> {
    let (r, s) = split_signature(signature);
    if !scalar_mod_l::is_canonical(s) {
        return Err(Reject::NonCanonicalS);
    }
    if (!rules.cofactored || rules.canonical_encodings) && !is_canonical_encoding(r) {
        return Err(Reject::NonCanonicalEncoding);
    }
    if !rules.cofactored && rules.reject_small_order && is_small_order_canonical(r) {
        return Err(Reject::SmallOrderR);
    }
    Ok((r, s))
}

/// k = SHA-512(R ‖ A ‖ M) reduced mod L (RFC 8032 §5.1.7 step 2).
pub(crate) fn challenge(r_bytes: &[u8; 32], a_bytes: &[u8; 32], message: &[u8]) -> Scalar {
    let digest: [u8; 64] = Sha512::new()
        .chain_update(r_bytes)
        .chain_update(a_bytes)
        .chain_update(message)
        .finalize()
        .into();
    Scalar::from_bytes_mod_order_wide(&digest)
}

/// Split a signature into its R and S halves.
pub(crate) fn split_signature(signature: &[u8; SIGNATURE_LEN]) -> (&[u8; 32], &[u8; 32]) {
    let (r, s) = signature.split_at(32);
    (
        r.try_into().expect("32 of 64 bytes"),
        s.try_into().expect("32 of 64 bytes"),
    )
}
