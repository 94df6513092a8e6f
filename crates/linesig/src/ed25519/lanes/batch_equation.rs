//! The batch equation on the lanes (docs/design.md §3, "The batch equation"), for the
//! cofactored policies: a work unit's signatures checked together,
//! [8]·([Σ zᵢSᵢ]B − Σ zᵢRᵢ − Σ_A [Σ_{i signs with A} zᵢkᵢ]A) = O, with random zᵢ
//! ([`Coefficients`]) and each distinct key once.
//!
//! The verdicts are the per-signature path's, item for item:
//! 1. The same byte checks and hashes ([`prepare_jobs`]), the same key decoding and
//!    small-order test with the same reasons ([`decode_keys`], [`reject_group`]), and
//!    R decoded with the reasons of `RChecks`: every item rejected before the
//!    equation is rejected here exactly as there. A key with a table in the hot-key
//!    cache is not decoded: its table holds −A (a key is tabulated only once it has
//!    passed those checks under the engine's one policy), and the check reads it there.
//! 2. The rest ("survivors") pass one multi-scalar check (`msm`; one per slice of at
//!    most [`MAX_CHECK`] in a larger unit). If it holds, each is
//!    `Valid`: ZIP-215's cofactored equation, checked per signature, holds for each
//!    (but with probability ≤ 2^−127, the coefficients' bound).
//! 3. If it fails, its survivors are split into parts, each checked the same way with
//!    the same zᵢ; the items of the parts that fail go back to the caller, which runs the
//!    per-signature path on them (their verdicts, reasons and all, are that path's).
//!    Past a quarter of the parts failing, the remaining parts go back unchecked: the
//!    unit is largely invalid and checking further would only add cost. A unit that the
//!    caller expects to fail (`whole_first` false: the gate saw the units before it
//!    fail) skips the whole check and starts with the parts, which hold together exactly
//!    when the whole does (a sum of points of small order is of small order, and a
//!    failed whole has a failed part).

use super::fixed_base::KeyTable;
use super::msm::{sum_has_small_order, Terms};
use super::point::{decompress_many, Affine, AffineLimbs, Constants, Extended};
use super::{checked_jobs, decode_keys, settle_keys, RChecks};
use crate::batch_gate::Outcome;
use crate::ed25519::batch_coefficients::Coefficients;
use crate::ed25519::field::{LaneField, MAX_LANES};
use crate::ed25519::policy::Rules;
use crate::ed25519::scalar_mod_l::{self, U256};
use crate::ed25519::sha512::LaneWords;
use crate::ed25519::UnitEntry;
use crate::key_cache::KeyCache;
use crate::verdict::Verdict;
use curve25519_dalek::constants::ED25519_BASEPOINT_COMPRESSED;
use std::ops::Range;

/// Fewer survivors than this take the per-signature path: the check's fixed costs (the
/// buckets' sums, the windows' doublings) outweigh what it saves.
pub(crate) const MIN_BATCH: usize = 32;

/// Most survivors in one check: a larger unit is checked in slices. It bounds what one
/// check holds (its points and digits, about 1.5 MB at 4,096) and what a failed one
/// costs before its parts are checked; per signature a check of 4,096 runs about as
/// fast as one of 2,048 (the aggregation of buckets is a few per cent of either).
const MAX_CHECK: usize = 4096;

/// The size parts aim at when a check fails, and the most parts.
const PART: usize = 64;
const MAX_PARTS: usize = 8;

/// Vectors of R decoded at once (their square roots interleave).
const R_VECTORS: usize = 3;

/// What the batch path settled, and what it leaves to the per-signature path.
pub(crate) struct Settled {
    pub outcome: Outcome,
    /// Indices into the unit's entries whose verdicts the per-signature path must give.
    pub rest: Vec<usize>,
}

/// A survivor: where its verdict goes, its entry, its key's row and its scalars.
struct Survivor {
    slot: u32,
    entry: u32,
    key: u32,
    k: U256,
    s: U256,
}

/// Check the unit's well-formed `entries` (grouped by key in `groups`) on the batch
/// equation; verdicts of what it settles go into `out` (indexed by `entry.slot`). With
/// `whole_first` false the survivors go straight to their parts (step 3). Keys with a
/// table in `cache` are read from it, not decoded.
#[inline(always)]
pub(crate) fn verify<F: LaneField + 'static, W: LaneWords, const KEY_VECTORS: usize>(
    rules: Rules,
    cache: Option<&KeyCache>,
    entries: &[UnitEntry<'_>],
    groups: &[Range<usize>],
    coefficients: &Coefficients,
    whole_first: bool,
    out: &mut [Verdict],
) -> Settled {
    debug_assert!(rules.cofactored);
    let c = Constants::<F>::new();

    // 1. Byte checks and hashes, then keys, as the per-signature path does them.
    let (keyed, jobs) = checked_jobs::<W>(rules, entries, groups, out);

    // Row of each key (by its ordinal in `keyed`) in `key_rows`, B's first.
    let mut key_rows: Vec<AffineLimbs<F>> = Vec::with_capacity(keyed.len() + 1);
    key_rows.push(basepoint_row(&c));
    let mut key_row_of = vec![u32::MAX; keyed.len()];
    let (mut to_decode, mut ordinals) = (Vec::new(), Vec::new());
    for (ordinal, range) in keyed.iter().enumerate() {
        let key = entries[range.start].public_key;
        let table = cache.and_then(|cache| cache.peek(key, range.len()));
        match table.as_ref().and_then(|t| t.downcast_ref::<KeyTable<F>>()) {
            Some(table) => {
                key_row_of[ordinal] = key_rows.len() as u32;
                key_rows.push(*table.point());
            }
            None => {
                to_decode.push(range.clone());
                ordinals.push(ordinal);
            }
        }
    }
    let per_pass = KEY_VECTORS * F::LANES;
    for (chunk, ordinals) in to_decode.chunks(per_pass).zip(ordinals.chunks(per_pass)) {
        for (v, keys) in decode_keys::<F, KEY_VECTORS>(&c, entries, chunk)
            .iter()
            .enumerate()
        {
            let first = v * F::LANES;
            if first >= chunk.len() {
                break;
            }
            let small = if rules.reject_small_order {
                keys.minus_a.small_order_mask()
            } else {
                0
            };
            let rows = affine(&c, &keys.minus_a).lanes();
            let ranges = &chunk[first..chunk.len().min(first + F::LANES)];
            settle_keys(entries, ranges, keys.live, small, out, |lane| {
                key_row_of[ordinals[first + lane]] = key_rows.len() as u32;
                key_rows.push(rows[lane]);
            });
        }
    }

    // R, for the jobs whose key decoded: the reasons of `RChecks`, as on the other plans.
    let entry_of_slot = {
        let mut of = vec![u32::MAX; out.len()];
        for (i, e) in entries.iter().enumerate() {
            of[e.slot as usize] = i as u32;
        }
        of
    };
    let live: Vec<_> = jobs
        .into_iter()
        .filter(|j| key_row_of[j.table as usize] != u32::MAX)
        .collect();
    let mut survivors = Vec::with_capacity(live.len());
    let mut r_rows: Vec<AffineLimbs<F>> = Vec::with_capacity(live.len());
    let per_pass = R_VECTORS * F::LANES;
    for pass in live.chunks(per_pass) {
        let encodings: Vec<[u8; 32]> = (0..per_pass)
            .map(|i| pass[i.min(pass.len() - 1)].r)
            .collect();
        let decoded = decompress_many::<F, R_VECTORS>(&c, &encodings);
        for (v, (r, ok)) in decoded.iter().enumerate() {
            let chunk = pass.iter().skip(v * F::LANES).take(F::LANES);
            if chunk.len() == 0 {
                break;
            }
            let r_checks = RChecks::new(rules, r, *ok);
            let rows = affine(&c, &r.neg()).lanes();
            for (lane, job) in chunk.enumerate() {
                if let Some(reason) = r_checks.reject(lane) {
                    out[job.slot as usize] = Verdict::Invalid(reason);
                } else {
                    survivors.push(Survivor {
                        slot: job.slot,
                        entry: entry_of_slot[job.slot as usize],
                        key: key_row_of[job.table as usize],
                        k: scalar_mod_l::limbs(&job.k),
                        s: scalar_mod_l::limbs(&job.s),
                    });
                    r_rows.push(rows[lane]);
                }
            }
        }
    }

    // 2. One check over the survivors; 3. parts where it fails.
    let mut z = vec![[0u64; 4]; survivors.len()];
    coefficients.fill(0, &mut z);
    let inputs = Inputs {
        survivors: &survivors,
        key_rows: &key_rows,
        r_rows: &r_rows,
        z: &z,
    };
    // (No closure around `holds`: a closure is compiled without the kernel's target
    // features, and the whole sum would run on out-of-line field calls.)
    let mut rest = Vec::new();
    let (mut parts_checked, mut parts_failed) = (0, 0);
    let slices = survivors.len().div_ceil(MAX_CHECK);
    for slice in 0..slices {
        let slice = part(survivors.len(), slices, slice);
        if whole_first && inputs.holds(&c, slice.clone()) {
            for s in &survivors[slice] {
                out[s.slot as usize] = Verdict::Valid;
            }
            continue;
        }
        let parts = (slice.len() / PART).clamp(2, MAX_PARTS);
        let mut failed = 0;
        for p in 0..parts {
            let range = part(slice.len(), parts, p);
            let range = slice.start + range.start..slice.start + range.end;
            if fell_back(failed, parts) || !inputs.holds(&c, range.clone()) {
                failed += 1;
                rest.extend(survivors[range].iter().map(|s| s.entry as usize));
            } else {
                for s in &survivors[range] {
                    out[s.slot as usize] = Verdict::Valid;
                }
            }
        }
        parts_checked += parts;
        parts_failed += failed;
    }
    let outcome = if parts_failed == 0 {
        Outcome::Held
    } else if fell_back(parts_failed, parts_checked) {
        Outcome::FellBack
    } else {
        Outcome::FoundFew
    };
    Settled { outcome, rest }
}

/// Whether `failed` of `parts` failing parts make a unit one that fell back (more than a
/// quarter): past that the remaining parts go to the per-signature path unchecked, since
/// the gate will count the unit as fallen back whatever they hold.
fn fell_back(failed: usize, parts: usize) -> bool {
    failed * 4 > parts
}

/// Part `p` of `parts` near-equal parts of `0..n`.
fn part(n: usize, parts: usize, p: usize) -> Range<usize> {
    n * p / parts..n * (p + 1) / parts
}

/// The affine rows (y + x, y − x, 2d·x·y) of points with Z = 1, as decoding leaves them.
#[inline(always)]
fn affine<F: LaneField>(c: &Constants<F>, p: &Extended<F>) -> Affine<F> {
    Affine {
        y_plus_x: p.y.add(&p.x),
        y_minus_x: p.y.sub(&p.x),
        xy2d: p.t.mul(&c.d2),
    }
}

/// B's affine row.
#[inline(always)]
fn basepoint_row<F: LaneField>(c: &Constants<F>) -> AffineLimbs<F> {
    let encodings = [ED25519_BASEPOINT_COMPRESSED.to_bytes(); MAX_LANES];
    let [(b, _)] = decompress_many::<F, 1>(c, &encodings[..F::LANES]);
    affine(c, &b).lanes()[0]
}

/// What a check reads: the survivors (grouped by key, as the unit's jobs are), the rows
/// of B and each live −A (`key_rows`, B first) and each survivor's −R, and its zᵢ.
struct Inputs<'a, F: LaneField> {
    survivors: &'a [Survivor],
    key_rows: &'a [AffineLimbs<F>],
    r_rows: &'a [AffineLimbs<F>],
    z: &'a [[u64; 4]],
}

impl<F: LaneField> Inputs<'_, F> {
    /// Whether [8]·Σ over `range` of zᵢ(SᵢB − Rᵢ − kᵢAᵢ) = O.
    #[inline(always)]
    fn holds(&self, c: &Constants<F>, range: Range<usize>) -> bool {
        let n = range.len();
        let mut points: Vec<AffineLimbs<F>> = Vec::with_capacity(n + 1);
        let mut scalars: Vec<U256> = Vec::with_capacity(n + 1);
        points.push(self.key_rows[0]);
        scalars.push([0; 4]);
        let mut b_scalar = [0u64; 4];
        let mut key = u32::MAX;
        for (s, z) in self.survivors[range.clone()]
            .iter()
            .zip(&self.z[range.clone()])
        {
            if s.key != key {
                key = s.key;
                points.push(self.key_rows[key as usize]);
                scalars.push([0; 4]);
            }
            let last = scalars.len() - 1;
            scalars[last] = add_mod_l(&scalars[last], &scalar_mod_l::mul_mod_l(z, &s.k));
            b_scalar = add_mod_l(&b_scalar, &scalar_mod_l::mul_mod_l(z, &s.s));
        }
        scalars[0] = b_scalar;
        let full = Terms {
            points: &points,
            scalars: &scalars,
        };
        let short = Terms {
            points: &self.r_rows[range.clone()],
            scalars: &self.z[range],
        };
        sum_has_small_order(c, full, short)
    }
}

/// (a + b) mod L for a, b < L.
fn add_mod_l(a: &U256, b: &U256) -> U256 {
    scalar_mod_l::reduce_once(&scalar_mod_l::add(a, b))
}
