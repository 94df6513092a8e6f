//! Every case of `../shared/vectors/ed25519/`, under every policy, through the engine and
//! the single-item path: each verdict must be the oracle's, and the per-set totals must be
//! those of the vectors README.

mod common;

use common::{all_sets, assert_key_cache_changes_nothing, backends, oracles, Case};
use linesig::{ed25519, Backend, Engine, Item, Policy, Scheme};

/// Acceptance totals per set: (Strict, Zip215, Zip215Strict), from the vectors README.
fn expected_totals(set: &str) -> (usize, usize, usize) {
    match set {
        "wycheproof" => (88, 89, 88),
        "rfc8032" => (5, 5, 5),
        "speccheck" => (1, 9, 3),
        "cctv" => (43, 826, 106),
        "firedancer-fail" => (0, 196, 0),
        "firedancer-pass" => (200, 200, 200),
        "djb" => (128, 128, 128),
        other => panic!("no totals for set {other}"),
    }
}

/// The verdict each case must get: the set's own expectation where it states one, else
/// (ZIP-215 on CCTV; SIMD-0376 on CCTV cases ZIP-215 decides) the ZIP-215 oracles',
/// which must all agree.
fn truth(case: &Case, policy: Policy) -> bool {
    if let Some(v) = case.expected(policy) {
        return v;
    }
    let item = case.item();
    let zip215: Vec<bool> = oracles(Policy::Zip215)
        .iter()
        .map(|(_, f)| f(&item))
        .collect();
    assert!(
        zip215.iter().all(|&v| v == zip215[0]),
        "ZIP-215 oracles disagree on {} {}",
        case.set,
        case.id
    );
    zip215[0]
}

fn check_set(name: &str, cases: &[Case], policy: Policy, backend: Backend) -> usize {
    let items: Vec<Item<'_>> = cases.iter().map(Case::item).collect();
    // Small units over several workers, so key groups straddle unit boundaries, each
    // signature alone; and units large enough for the batch equation (the cofactored
    // policies' default), whose verdicts must be the same.
    let engine = |batch_size, batch_equation| {
        Engine::builder()
            .scheme(Scheme::Ed25519(policy))
            .backend(backend)
            .workers(2)
            .batch_size(batch_size)
            .batch_equation(batch_equation)
            .build()
            .unwrap()
    };
    let verdicts = engine(7, false).verify(&items);
    assert_eq!(verdicts.len(), cases.len());
    assert_eq!(
        engine(256, true).verify(&items),
        verdicts,
        "{name} under {policy} on {backend}: the batch equation changed a verdict"
    );
    let mut accepted = 0;
    for (case, verdict) in cases.iter().zip(&verdicts) {
        let want = truth(case, policy);
        assert_eq!(
            verdict.is_valid(),
            want,
            "{name} {} under {policy} on {backend}: got {verdict}, oracle says {}",
            case.id,
            if want { "valid" } else { "invalid" }
        );
        assert_eq!(
            ed25519::verify(policy, &case.item()),
            *verdict,
            "{name} {}: single vs engine",
            case.id
        );
        for (oracle, f) in oracles(policy) {
            assert_eq!(
                f(&case.item()),
                want,
                "{name} {}: oracle {oracle} disagrees with the expectation",
                case.id
            );
        }
        accepted += usize::from(verdict.is_valid());
    }
    accepted
}

#[test]
fn every_vector_set_under_every_policy() {
    for backend in backends() {
        for (name, cases) in all_sets() {
            let (strict, zip215, zip215_strict) = expected_totals(name);
            let got = (
                check_set(name, &cases, Policy::Strict, backend),
                check_set(name, &cases, Policy::Zip215, backend),
                check_set(name, &cases, Policy::Zip215Strict, backend),
            );
            assert_eq!(
                got,
                (strict, zip215, zip215_strict),
                "{name} on {backend}: accepted (strict, zip215, zip215-strict)"
            );
        }
    }
}

/// With the hot-key cache on, every case of every set keeps its verdict and reason
/// under every policy on every backend, including the keys a policy rejects (small
/// order, non-canonical), which are never tabulated and stay rejected.
#[test]
fn the_key_cache_changes_no_verdict() {
    let cases: Vec<Case> = all_sets().into_iter().flat_map(|(_, c)| c).collect();
    let items: Vec<Item<'_>> = cases.iter().map(Case::item).collect();
    for backend in backends() {
        for policy in Policy::ALL {
            let expected: Vec<_> = items.iter().map(|i| ed25519::verify(policy, i)).collect();
            assert_key_cache_changes_nothing(&items, policy, backend, &expected, &|i| {
                format!("{} {}", cases[i].set, cases[i].id)
            });
        }
    }
}

#[test]
fn set_sizes_are_as_documented() {
    let sizes: Vec<(&str, usize)> = all_sets().iter().map(|(n, c)| (*n, c.len())).collect();
    assert_eq!(
        sizes,
        vec![
            ("wycheproof", 151),
            ("rfc8032", 5),
            ("speccheck", 12),
            ("cctv", 914),
            ("firedancer-fail", 196),
            ("firedancer-pass", 200),
            ("djb", 128)
        ]
    );
}

/// SIMD-0376 accepts a superset of what Strict accepts on CCTV (vectors README).
#[test]
fn cctv_zip215_strict_is_a_superset_of_strict() {
    let cases = common::cctv();
    for case in &cases {
        if ed25519::verify(Policy::Strict, &case.item()).is_valid() {
            assert!(
                ed25519::verify(Policy::Zip215Strict, &case.item()).is_valid(),
                "{}",
                case.id
            );
        }
    }
}
