//! The operation profile of the lane path, counted exactly: a field wrapper counts
//! every call the generic code makes, so the numbers hold for every backend (each runs
//! the same schedule). `cargo test --release -p linesig op_profile -- --nocapture`
//! prints them; the bounds fail the test if a change adds work per signature.

use super::super::field::avx2::Fe4;
use super::ladder::{InlineSteps, Ladder};
use super::tables::{base_tables, BaseRadix, BaseTables};
use super::*;
use crate::ed25519::field::MAX_LANES;
use crate::ed25519::Policy;
use curve25519_dalek::Scalar;
use ed25519_dalek::{Signer, SigningKey};
use linesig_simd::u64x4::U64x4;
use rand::SeedableRng;
use std::cell::Cell;

thread_local! {
    /// mul, square, add/sub/neg, canonical encodings (per vector, not per lane).
    static COUNTS: Cell<[u64; 4]> = const { Cell::new([0; 4]) };
}

fn count(i: usize) {
    COUNTS.with(|c| {
        let mut v = c.get();
        v[i] += 1;
        c.set(v);
    });
}

#[derive(Clone, Copy)]
struct Counting<F>(F);

impl<F: LaneField> LaneField for Counting<F> {
    const LANES: usize = F::LANES;
    type Limbs = F::Limbs;
    fn zero() -> Self {
        Counting(F::zero())
    }
    fn one() -> Self {
        Counting(F::one())
    }
    fn splat_bytes(bytes: &[u8; 32]) -> Self {
        Counting(F::splat_bytes(bytes))
    }
    fn from_bytes(lanes: &[[u8; 32]]) -> Self {
        Counting(F::from_bytes(lanes))
    }
    fn to_bytes(&self, out: &mut [[u8; 32]]) {
        count(3);
        self.0.to_bytes(out)
    }
    fn add(&self, rhs: &Self) -> Self {
        count(2);
        Counting(self.0.add(&rhs.0))
    }
    fn sub(&self, rhs: &Self) -> Self {
        count(2);
        Counting(self.0.sub(&rhs.0))
    }
    fn neg(&self) -> Self {
        count(2);
        Counting(self.0.neg())
    }
    fn mul(&self, rhs: &Self) -> Self {
        count(0);
        Counting(self.0.mul(&rhs.0))
    }
    fn square(&self) -> Self {
        count(1);
        Counting(self.0.square())
    }
    fn zero_mask(&self) -> u8 {
        self.0.zero_mask()
    }
    fn odd_mask(&self) -> u8 {
        self.0.odd_mask()
    }
    fn select(mask: u8, a: &Self, b: &Self) -> Self {
        Counting(F::select(mask, &a.0, &b.0))
    }
    fn to_lane_limbs(&self) -> [F::Limbs; MAX_LANES] {
        self.0.to_lane_limbs()
    }
    fn from_lane_limbs(rows: &[&F::Limbs]) -> Self {
        Counting(F::from_lane_limbs(rows))
    }
}

/// The verdicts of `items` (key, message, signature), one unit on the generic lane
/// code over `F` (the AVX2 field, counted or not) with `base` and `plan`.
fn verify_unit<'i, F: LaneField>(
    base: &BaseTables<F>,
    policy: Policy,
    plan: Plan,
    items: impl Iterator<Item = (&'i [u8; 32], &'i [u8], &'i [u8; 64])>,
) -> Vec<Verdict> {
    let mut entries: Vec<UnitEntry<'_>> = items
        .enumerate()
        .map(|(i, (public_key, message, signature))| UnitEntry {
            public_key,
            signature,
            message,
            slot: i as u32,
        })
        .collect();
    let groups = crate::grouping::key_groups(&mut entries, |e| e.public_key);
    let mut out = vec![Verdict::Invalid(Reject::EquationFailed); entries.len()];
    let ladder = Ladder {
        steps: InlineSteps,
        base,
    };
    verify_entries::<F, U64x4, 3>(
        ladder,
        plan,
        policy.rules(),
        usize::MAX,
        &entries,
        &groups,
        &mut out,
        &mut (),
    );
    out
}

/// Public keys, messages and signatures of a test workload.
type Signed = (Vec<[u8; 32]>, Vec<[u8; 32]>, Vec<[u8; 64]>);

/// n signed items: key i from `seed(i)`, message i = [i; 32].
fn signed(n: usize, seed: impl Fn(usize) -> [u8; 32]) -> Signed {
    let keys: Vec<SigningKey> = (0..n).map(|i| SigningKey::from_bytes(&seed(i))).collect();
    let pks = keys.iter().map(|k| k.verifying_key().to_bytes()).collect();
    let msgs: Vec<[u8; 32]> = (0..n).map(|i| [i as u8; 32]).collect();
    let sigs = keys
        .iter()
        .zip(&msgs)
        .map(|(k, m)| k.sign(m).to_bytes())
        .collect();
    (pks, msgs, sigs)
}

/// Cycles per signature in each stage on every lane backend this CPU runs, 4,096
/// distinct keys, 32-byte messages, units of 512 (the engine's default):
/// `cargo test --release -p linesig stage_cycles -- --ignored --nocapture`.
#[test]
#[ignore = "a measurement, not a check: run it on the CPU you want numbers for"]
fn stage_cycles() {
    let n = 4096;
    let (pks, msgs, sigs) = signed(n, |i| {
        let mut seed = [7u8; 32];
        seed[..2].copy_from_slice(&[(i % 251) as u8, (i / 251) as u8]);
        seed
    });
    let items: Vec<crate::Item<'_>> = (0..n)
        .map(|i| crate::Item::new(&pks[i], &msgs[i], &sigs[i]))
        .collect();
    let total =
        |p: &crate::ed25519::StageProfile| p.cycles_per_signature.iter().map(|x| x.1).sum::<f64>();
    for backend in [crate::Backend::Avx512, crate::Backend::Avx2] {
        for policy in Policy::ALL {
            // The plans alternate, seven runs each, so that drift hits both alike.
            let plans = [Plan::FullSize, Plan::HalfSize];
            let mut runs: [Vec<crate::ed25519::StageProfile>; 2] = Default::default();
            for _ in 0..7 {
                for (plan, runs) in plans.iter().zip(runs.iter_mut()) {
                    let profile =
                        crate::ed25519::stage_profile_on(policy, backend, &items, 512, Some(*plan));
                    let Some(p) = profile else { return };
                    assert!(p.verdicts.iter().all(|v| *v == Verdict::Valid));
                    runs.push(p);
                }
            }
            let mut medians = [0f64; 2];
            for ((plan, runs), median) in plans.iter().zip(runs.iter_mut()).zip(&mut medians) {
                runs.sort_by(|x, y| total(x).total_cmp(&total(y)));
                let mid = &runs[runs.len() / 2];
                *median = total(mid);
                print!(
                    "{backend} {policy} {plan:?}: median {:.0} cycles/sig =",
                    *median
                );
                for (stage, c) in &mid.cycles_per_signature {
                    if *c > 0.0 {
                        print!(" {} {c:.0};", stage.name());
                    }
                }
                println!();
            }
            println!(
                "{backend} {policy}: half size {:.2}x full size; the backend runs {:?}",
                medians[0] / medians[1],
                match backend {
                    crate::Backend::Avx512 => avx512::plan(policy.rules()),
                    _ => avx2::plan(policy.rules()),
                }
            );
        }
    }
}

/// Signatures with torsion where the half-size plan's exactness argument bites
/// (`half_size`'s module doc), built from known discrete logs: with A = [a]B + T and
/// R = [r]B + T', S = r + k·a gives [S]B − [k]A − R = −[k]T − T'.
/// - `mixed_key`: A of order 8L, T' = −[k]T (r retried until k lands on it): valid
///   under every policy; c ≡ d·k only mod L would reject it.
/// - `r_plus_two_torsion`: T = O and T' of order 2: `strict` rejects it (R is not
///   the encoding of [S]B − [k]A), the cofactored policies accept; an even d would
///   accept it under `strict`.
///
/// Plus plain valid signatures, and a flipped bit in one case of eight.
fn torsion_cases() -> Vec<([u8; 32], Vec<u8>, [u8; 64])> {
    use curve25519_dalek::constants::{ED25519_BASEPOINT_POINT as B, EIGHT_TORSION};
    let mut rng = rand_chacha::ChaCha20Rng::seed_from_u64(2026);
    let mut random_scalar = || {
        let mut wide = [0u8; 64];
        rand::RngCore::fill_bytes(&mut rng, &mut wide);
        Scalar::from_bytes_mod_order_wide(&wide)
    };
    let mut out = Vec::new();
    // (torsion of A, torsion of R): EIGHT_TORSION[1] has order 8, [4] order 2.
    for case in 0..96usize {
        let a = random_scalar();
        let t = [0, 1, 0, 2][case % 4];
        let t_prime = [0, 0, 4, 0][case % 4];
        let a_point = a * B + EIGHT_TORSION[t];
        let a_bytes = a_point.compress().to_bytes();
        loop {
            let r = random_scalar();
            let message = format!("torsion case {case} {}", r.to_bytes()[0]).into_bytes();
            let mut found = None;
            for torsion in EIGHT_TORSION {
                let r_point = r * B + torsion;
                let r_bytes = r_point.compress().to_bytes();
                let k = crate::ed25519::challenge(&r_bytes, &a_bytes, &message);
                // Mixed keys need T' = −[k]T; the other cases a fixed T'.
                let want = if t == 0 {
                    EIGHT_TORSION[t_prime]
                } else {
                    -(k * EIGHT_TORSION[t])
                };
                if torsion == want {
                    found = Some((r_bytes, r + k * a));
                }
            }
            if let Some((r_bytes, s)) = found {
                let mut signature = [0u8; 64];
                signature[..32].copy_from_slice(&r_bytes);
                signature[32..].copy_from_slice(s.as_bytes());
                if case % 8 == 7 {
                    signature[40] ^= 4;
                }
                out.push((a_bytes, message, signature));
                break;
            }
        }
    }
    out
}

/// Both plans on every lane backend this CPU runs, every policy, over
/// `torsion_cases` and ragged units of plain signatures: the reference's verdicts.
#[test]
fn both_plans_match_the_reference_with_torsion() {
    let cases = torsion_cases();
    let items: Vec<crate::Item<'_>> = cases
        .iter()
        .map(|(pk, m, sig)| crate::Item::new(pk, m, sig))
        .collect();
    let strict_valid = items
        .iter()
        .filter(|i| crate::ed25519::verify(Policy::Strict, i) == Verdict::Valid)
        .count();
    let zip215_valid = items
        .iter()
        .filter(|i| crate::ed25519::verify(Policy::Zip215, i) == Verdict::Valid)
        .count();
    // 96 cases: 12 with a flipped bit; of the rest, the 24 R + T2 pass only the
    // cofactored equation.
    assert_eq!((strict_valid, zip215_valid), (60, 84));
    for policy in Policy::ALL {
        let want: Vec<Verdict> = items
            .iter()
            .map(|item| crate::ed25519::verify(policy, item))
            .collect();
        for backend in [crate::Backend::Avx512, crate::Backend::Avx2] {
            for plan in [Plan::FullSize, Plan::HalfSize] {
                for unit in [1, 7, 8, 9, 96] {
                    let Some(got) =
                        crate::ed25519::stage_profile_on(policy, backend, &items, unit, Some(plan))
                    else {
                        continue;
                    };
                    assert_eq!(
                        got.verdicts, want,
                        "{backend} {policy} {plan:?} unit {unit}"
                    );
                }
            }
        }
    }
}

/// Both base-point radixes on both plans, every policy, over `torsion_cases`: the
/// reference's verdicts. The backends each run one radix, so this runs the generic
/// code on the AVX2 field with each (an IFMA CPU is not needed for radix 2^12).
#[test]
fn both_base_radixes_match_the_reference() {
    if !avx2::supported() {
        return;
    }
    let cases = torsion_cases();
    for radix in [BaseRadix::Bits8, BaseRadix::Bits12] {
        let base = base_tables(&Constants::<Fe4>::new(), radix);
        for policy in Policy::ALL {
            for plan in [Plan::FullSize, Plan::HalfSize] {
                let items = cases.iter().map(|(pk, m, sig)| (pk, &m[..], sig));
                let got = verify_unit(&base, policy, plan, items);
                for (i, (pk, m, sig)) in cases.iter().enumerate() {
                    let want = crate::ed25519::verify(policy, &crate::Item::new(pk, m, sig));
                    assert_eq!(got[i], want, "{policy} {plan:?} {radix:?} case {i}");
                }
            }
        }
    }
}

/// Units of every length around the chunk boundaries (ragged tails pad their spare
/// lanes), with corrupted items spread across the chunks: each lane backend gives the
/// reference's verdicts, under every policy.
#[test]
fn ragged_units_match_the_reference() {
    let n = 41;
    let (pks, msgs, mut sigs) = signed(n, |i| [i as u8 ^ 0xa5; 32]);
    for (i, sig) in sigs.iter_mut().enumerate().filter(|(i, _)| i % 3 == 1) {
        sig[(i * 7) % 64] ^= 1 << (i % 8);
    }
    for policy in [Policy::Strict, Policy::Zip215, Policy::Zip215Strict] {
        for len in [1, 7, 8, 9, 15, 16, 17, 24, 25, 32, 33, 41] {
            let items: Vec<crate::Item<'_>> = (0..len)
                .map(|i| crate::Item::new(&pks[i], &msgs[i], &sigs[i]))
                .collect();
            let want: Vec<Verdict> = items
                .iter()
                .map(|item| crate::ed25519::verify(policy, item))
                .collect();
            assert!(want.contains(&Verdict::Valid));
            for backend in [crate::Backend::Avx512, crate::Backend::Avx2] {
                if !backend.is_supported_for(crate::Scheme::Ed25519(policy)) {
                    continue;
                }
                let mut got = vec![Verdict::Invalid(Reject::BadLength); len];
                crate::ed25519::verify_unit(
                    policy,
                    backend,
                    usize::MAX,
                    None,
                    None,
                    &items[..],
                    0,
                    &mut got,
                );
                assert_eq!(got, want, "{backend} {policy} unit of {len}");
            }
        }
    }
}

#[test]
fn backend_lane_counts_are_the_fields() {
    use crate::{Backend, Scheme};
    let ed25519 = Scheme::Ed25519(Policy::Strict);
    assert_eq!(Backend::Avx2.lanes(ed25519), Fe4::LANES);
    assert_eq!(
        Backend::Avx512.lanes(ed25519),
        super::super::field::avx512::Fe8::LANES
    );
    assert_eq!(Backend::Portable.lanes(ed25519), 1);
}

/// Per signature, distinct keys (so every key is decoded and tabulated): Strict
/// encodes the result (one inversion), the cofactored policies decode R (one
/// square root) and test small order instead.
#[test]
fn op_profile_per_signature() {
    if !avx2::supported() {
        return;
    }
    let n = 256;
    let (pks, msgs, sigs) = signed(n, |i| [i as u8 ^ 0x5a; 32]);
    let tables = [BaseRadix::Bits8, BaseRadix::Bits12]
        .map(|radix| base_tables(&Constants::<Counting<Fe4>>::new(), radix));
    for (policy, plan, base) in [Policy::Strict, Policy::Zip215]
        .into_iter()
        .flat_map(|p| [(p, Plan::FullSize), (p, Plan::HalfSize)])
        .flat_map(|(p, plan)| tables.iter().map(move |base| (p, plan, base)))
    {
        let radix = base.radix;
        COUNTS.with(|c| c.set([0; 4]));
        let items = (0..n).map(|i| (&pks[i], &msgs[i][..], &sigs[i]));
        let out = verify_unit(base, policy, plan, items);
        assert!(
            out.iter().all(|v| *v == Verdict::Valid),
            "{policy} {plan:?} {radix:?}"
        );
        let [mul, square, add, encode] = COUNTS.with(|c| c.get());
        let per_sig = |x: u64| x as f64 * Fe4::LANES as f64 / n as f64;
        println!(
            "{policy} {plan:?} {radix:?}: per signature {:.0} mul, {:.0} square, {:.0} add/sub/neg, {:.1} lane encodings",
            per_sig(mul),
            per_sig(square),
            per_sig(add),
            per_sig(encode)
        );
        // Full size: 63 × [16]P (16 S + 13 M), 64 key additions (4 M, then 3 M back
        // to projective or 4 M to extended) and 32 affine base-point additions (3 M,
        // then 3 M to projective): 1,492 M; plus decoding A (and R), the key's
        // table, and the final check: strict 1,591 M, zip215 1,616 M.
        // Half size: ~33 windows of [16]P, a key and an R addition each, 32 affine
        // additions, R's table and square root: 1,315 M, 1,035 S.
        // Radix 2^12 takes 22 affine additions instead of 32: ~60 M fewer.
        let (mul_bound, square_bound) = match (plan, radix) {
            (Plan::FullSize, BaseRadix::Bits8) => (1650.0, 1650.0),
            (Plan::FullSize, BaseRadix::Bits12) => (1590.0, 1650.0),
            (Plan::HalfSize, BaseRadix::Bits8) => (1380.0, 1100.0),
            (Plan::HalfSize, BaseRadix::Bits12) => (1320.0, 1100.0),
        };
        assert!(
            per_sig(mul) < mul_bound && per_sig(square) < square_bound,
            "{policy} {plan:?} {radix:?}"
        );
    }
}
