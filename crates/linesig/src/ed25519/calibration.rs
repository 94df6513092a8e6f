//! Which of two backends verifies faster on this CPU, measured: how an engine picks its
//! default for Ed25519 where `avx512` does not run. There the choice is between `avx2`
//! (four signatures per vector) and `portable` (curve25519-dalek, which dispatches to
//! its own AVX2 code), and which wins depends on the core: both have been measured
//! ahead on different ones (`SchemeVerifier::PREFERENCE` for `Policy` cites them).
//!
//! The same measurement sets the batch equation's floor ([`batch_floor`]): the smallest
//! work unit on which one randomized check beats checking each signature. Its fixed
//! costs (the buckets' sums, Horner's ~254 doublings) do not shrink with the unit, the
//! per-signature path's half-size scalars do not grow, and where they cross depends on
//! the core: on Zen 4 the check won at 64 signatures, on Zen 5 (whose per-signature
//! path is faster) it lost there and won from 96 (docs/results.md).
//!
//! The workload is fixed (valid signatures from fixed secrets under distinct keys,
//! 32-byte messages: a validator's common case) and small enough that the measurement costs a
//! few tens of milliseconds once per process and policy.

use super::{challenge, lanes, verify_unit, verify_unit_on, Policy};
use crate::batch_gate::BatchGate;
use crate::item::Item;
use crate::verdict::{Reject, Verdict};
use crate::Backend;
use curve25519_dalek::{EdwardsPoint, Scalar};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

/// Signatures per timed run: one work unit, several vectors of every lane backend.
const SIGNATURES: usize = 128;
/// Timed runs per backend, alternating between backends; the fastest counts.
const ROUNDS: usize = 3;

/// The fastest of `candidates` on this thread for `policy`, or `None` where there is
/// nothing to choose between, or where a candidate did not accept every signature of
/// the workload (a timing of failures would say nothing; the caller keeps `portable`).
pub(crate) fn fastest(policy: Policy, candidates: &[Backend]) -> Option<Backend> {
    if candidates.len() < 2 {
        return None;
    }
    let workload = Workload::new();
    let times = time_backends(policy, candidates, &workload.items())?;
    candidates
        .iter()
        .zip(times)
        .min_by_key(|(_, time)| *time)
        .map(|(backend, _)| *backend)
}

/// The best of [`ROUNDS`] times to verify `items` on each of `candidates`; `None` where
/// one of them did not accept them all.
fn time_backends(
    policy: Policy,
    candidates: &[Backend],
    items: &[Item<'_>],
) -> Option<Vec<Duration>> {
    let mut best = vec![Duration::MAX; candidates.len()];
    let mut out = vec![Verdict::Invalid(Reject::EquationFailed); items.len()];
    for _ in 0..ROUNDS {
        for (backend, best) in candidates.iter().zip(&mut best) {
            let start = Instant::now();
            verify_unit(policy, *backend, usize::MAX, None, None, items, 0, &mut out);
            *best = (*best).min(start.elapsed());
            if out.iter().any(|v| *v != Verdict::Valid) {
                return None;
            }
        }
    }
    Some(best)
}

/// Unit sizes at which the batch equation is timed against the per-signature path, in
/// order ([`batch_floor`]).
const FLOOR_SIZES: [usize; 3] = [32, 64, 96];
/// The floor where the check won at none of [`FLOOR_SIZES`]: a unit this large or
/// larger always takes the batch equation, and never waits for the measurement.
pub(crate) const FLOOR_CEILING: usize = 128;

/// Each backend's floor (by its place in [`Backend::ALL`]), measured once per process.
static FLOORS: [OnceLock<usize>; 3] = [const { OnceLock::new() }; 3];

/// The smallest unit that takes the batch equation on `backend`: the first of
/// [`FLOOR_SIZES`] at which it verified the workload (under `zip215`) faster than the
/// per-signature path, else [`FLOOR_CEILING`]. Measured once per process, the first
/// time a unit below the ceiling asks (a few milliseconds); verdicts never depend on it.
pub(crate) fn batch_floor(backend: Backend) -> usize {
    let slot = Backend::ALL.iter().position(|b| *b == backend).unwrap_or(0);
    *FLOORS[slot].get_or_init(|| measure_floor(backend))
}

fn measure_floor(backend: Backend) -> usize {
    let workload = Workload::new();
    let items = workload.items();
    FLOOR_SIZES
        .into_iter()
        .find(|&size| {
            let (on, off) = time_batch_equation(backend, &items[..size]);
            on < off
        })
        .unwrap_or(FLOOR_CEILING)
}

/// The best of [`ROUNDS`] times to verify `items` in one unit on `backend` under
/// `zip215` with the batch equation (on a fresh gate, whatever the unit's size) and
/// without it, alternating.
fn time_batch_equation(backend: Backend, items: &[Item<'_>]) -> (Duration, Duration) {
    let mut out = vec![Verdict::Invalid(Reject::EquationFailed); items.len()];
    let (mut on, mut off) = (Duration::MAX, Duration::MAX);
    for _ in 0..ROUNDS {
        let start = Instant::now();
        on_batch_equation(backend, &BatchGate::new(), items, &mut out);
        on = on.min(start.elapsed());
        let start = Instant::now();
        verify_unit(
            Policy::Zip215,
            backend,
            usize::MAX,
            None,
            None,
            items,
            0,
            &mut out,
        );
        off = off.min(start.elapsed());
    }
    (on, off)
}

/// `items` as one unit under `zip215` on `backend` through the batch equation, on
/// `gate`, whatever the unit's size.
fn on_batch_equation(backend: Backend, gate: &BatchGate, items: &[Item<'_>], out: &mut [Verdict]) {
    let batch = Some((gate, Some(lanes::MIN_BATCH)));
    verify_unit_on(
        Policy::Zip215,
        backend,
        usize::MAX,
        None,
        batch,
        items,
        0,
        out,
    );
}

/// Valid signatures under distinct keys, from fixed secrets: a = i + 2, r = 3·i + 5,
/// messages of 32 bytes. (Secret scalars this regular would be a disaster in a signer;
/// a verifier's work does not depend on them.)
struct Workload {
    keys: Vec<[u8; 32]>,
    messages: Vec<[u8; 32]>,
    signatures: Vec<[u8; 64]>,
}

impl Workload {
    fn new() -> Workload {
        let mut workload = Workload {
            keys: Vec::with_capacity(SIGNATURES),
            messages: Vec::with_capacity(SIGNATURES),
            signatures: Vec::with_capacity(SIGNATURES),
        };
        for i in 0..SIGNATURES as u64 {
            let a = Scalar::from(i + 2);
            let r = Scalar::from(3 * i + 5);
            let key = EdwardsPoint::mul_base(&a).compress().to_bytes();
            let r_bytes = EdwardsPoint::mul_base(&r).compress().to_bytes();
            let mut message = [0u8; 32];
            message[..8].copy_from_slice(&i.to_le_bytes());
            let s = r + challenge(&r_bytes, &key, &message) * a;
            let mut signature = [0u8; 64];
            signature[..32].copy_from_slice(&r_bytes);
            signature[32..].copy_from_slice(s.as_bytes());
            workload.keys.push(key);
            workload.messages.push(message);
            workload.signatures.push(signature);
        }
        workload
    }

    fn items(&self) -> Vec<Item<'_>> {
        (0..SIGNATURES)
            .map(|i| Item::new(&self.keys[i], &self.messages[i], &self.signatures[i]))
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The workload is valid under every policy on every backend this CPU runs (else
    /// the measurement would time rejections and keep `portable`), and the choice is
    /// one of the candidates.
    #[test]
    fn workload_verifies_and_the_choice_is_a_candidate() {
        let backends: Vec<Backend> = Backend::ALL
            .into_iter()
            .filter(|b| b.is_supported_for(crate::Scheme::Ed25519(Policy::Strict)))
            .collect();
        let workload = Workload::new();
        for policy in Policy::ALL {
            let times = time_backends(policy, &backends, &workload.items());
            let times = times.expect("every signature valid");
            assert!(times
                .iter()
                .all(|t| *t > Duration::ZERO && *t < Duration::MAX));
            let chosen = fastest(policy, &backends);
            if backends.len() >= 2 {
                assert!(backends.contains(&chosen.expect("a choice")));
            } else {
                assert_eq!(chosen, None);
            }
        }
        assert_eq!(fastest(Policy::Strict, &[Backend::Portable]), None);
    }

    /// The floor is one of the sizes timed, the same every time it is asked, and both
    /// paths timed accept the workload.
    #[test]
    fn batch_floor_is_a_timed_size() {
        let workload = Workload::new();
        let items = workload.items();
        for backend in Backend::ALL {
            if !backend.is_supported_for(crate::Scheme::Ed25519(Policy::Zip215)) {
                continue;
            }
            let floor = batch_floor(backend);
            assert!(
                FLOOR_SIZES.contains(&floor) || floor == FLOOR_CEILING,
                "{backend:?}: {floor}"
            );
            assert_eq!(batch_floor(backend), floor);
            let gate = BatchGate::new();
            let mut out = vec![Verdict::Invalid(Reject::EquationFailed); 64];
            on_batch_equation(backend, &gate, &items[..64], &mut out);
            assert!(out.iter().all(|v| *v == Verdict::Valid));
            assert_eq!(
                gate.stats().held,
                1,
                "{backend:?}: the unit took the batch equation"
            );
        }
    }

    /// A workload with one bad signature (a flipped bit in S) is not timed.
    #[test]
    fn a_bad_workload_is_not_timed() {
        let mut workload = Workload::new();
        workload.signatures[7][40] ^= 1;
        let backends = [Backend::Portable, Backend::Portable];
        assert_eq!(
            time_backends(Policy::Strict, &backends, &workload.items()),
            None
        );
    }
}
