//! Lane-parallel Ed25519 verification, written once over any [`LaneField`] (and the
//! matching multi-buffer hash, [`LaneWords`]) and instantiated per backend inside a
//! `#[target_feature]` function, so that every
//! `#[inline(always)]` layer below compiles with that backend's instructions.
//!
//! Per work unit:
//! 1. Keys and signatures pass the shared byte-level checks (the key's encoding; S < L,
//!    R's encoding rules), and every k = SHA-512(R ‖ A ‖ M) mod L is hashed `LANES` at a
//!    time on the multi-buffer hash: none of that needs a decoded key.
//! 2. Distinct keys are decoded three vectors at a time (their square roots interleave,
//!    to hide the multiplier's latency), and each gets a table of its multiples 0..8 of
//!    −A (whose top entry, [8](−A), tells small order for free), so a key signing many
//!    messages is decoded and tabulated once. Right after each pass, the signatures
//!    whose tables are now complete run `LANES` at a time, while those tables are still
//!    in the nearest caches, on the backend's [`Plan`] for the policy:
//!    - `FullSize`: [S]B + [k](−A) by Horner over 64 signed radix-16 windows of k (four
//!      doublings and one addition from the key's table per window) with S in signed
//!      digits of the backend's [`BaseRadix`] (22 of 12 bits on IFMA, 32 of 8 on AVX2)
//!      added every third (second) window from a static affine table of B's multiples
//!      (so B costs 22 or 32 additions and no doublings of its own; the same schedule in
//!      every lane). `Strict` then compresses the sums (one inversion shared by the
//!      whole unit) and compares bytes with R; the cofactored policies decode R (two
//!      vectors interleaved) and test [8]([S]B − [k]A − R) = O.
//!    - `HalfSize` (`half_size`): R decoded first (three chunks' square roots
//!      interleaved) and tabulated like a key, then [d]R + [c]A + [e]B over ~33
//!      windows, e's digits split between tables of B and of [2^132]B (2^128 in radix
//!      2^8); the sum must be O (`Strict`) or of small order (the cofactored policies).
//!
//!    A ragged tail fills its spare lanes with copies of a real job and drops their
//!    results.
//!
//! With the key cache on, keys that keep signing skip both steps' key work: `fixed_base`
//! verifies them on their cached fixed-base tables (no doublings), before the rest
//! take the path above.

mod fixed_base;
mod point;
mod scalar;

use super::field::{LaneField, MAX_LANES};
use super::half_size::{self, HalfScalars};
use super::policy::Rules;
use super::scalar_mod_l;
use super::sha512::{self, LaneWords, Parts};
use super::{precheck_key, precheck_signature, UnitEntry};
use crate::key_cache::KeyCache;
use crate::verdict::{Reject, Verdict};
use curve25519_dalek::constants::{ED25519_BASEPOINT_COMPRESSED, ED25519_BASEPOINT_POINT};
use curve25519_dalek::Scalar;
use point::{
    batch_invert, compress_with_inverse, decompress, decompress_many, AddendRows, Affine,
    AffineLimbs, Cached, CachedLimbs, Constants, Extended, TwoZ,
};
use scalar::LaneDigits;
use std::ops::Range;

/// Multiples 0..8 of one lane's point (entry 0 is the identity). A table of −8..8
/// would spare the loop its negations, but building and storing twice the entries
/// measured no faster (docs/results.md).
type Table<F> = [CachedLimbs<F>; 9];

/// The radix of the base point's digits on the per-unit path, a backend's choice: every
/// digit costs one affine addition from a static table of its multiples 0..2^(w−1), and
/// lands on a radix-16 window (w a multiple of 4). Radix 2^12 (22 digits) costs 10
/// additions fewer per signature than radix 2^8 (32), for tables of 2,049 entries
/// instead of 129: 246 KB each with IFMA's 40-byte elements, within L2 (faster end to
/// end), but 492 KB each with AVX2's 80-byte ones, which with the key tables outgrow a
/// 1 MB L2 (slower; docs/results.md, the 2026-11-26 Zen 4 entry).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum BaseRadix {
    Bits8,
    Bits12,
}

impl BaseRadix {
    fn window(self) -> u32 {
        match self {
            BaseRadix::Bits8 => 8,
            BaseRadix::Bits12 => 12,
        }
    }

    /// Digits of a scalar below 2^255.
    fn digits(self) -> usize {
        255usize.div_ceil(self.window() as usize)
    }

    /// Radix-16 windows from one digit to the next.
    fn stride(self) -> usize {
        self.window() as usize / 4
    }

    /// n, the digits read from B's table when e's are split over B and [2^(w·n)]B (16
    /// of 8 bits, 11 of 12).
    fn low_digits(self) -> usize {
        self.digits().div_ceil(2)
    }

    /// Signed digits of `scalar(job)` in each lane, window-major, as [`lane_digits`]
    /// (rows past `digits()` zero).
    #[inline(always)]
    fn lane_digits<F: LaneField, J>(
        self,
        chunk: &[J],
        scalar: impl Fn(&J) -> &[u8; 32],
    ) -> LaneDigits<32> {
        match self {
            BaseRadix::Bits8 => lane_digits::<F, 8, 32, _>(chunk, scalar),
            BaseRadix::Bits12 => {
                let mut out = [[0; MAX_LANES]; 32];
                out[..22].copy_from_slice(&lane_digits::<F, 12, 22, _>(chunk, scalar));
                out
            }
        }
    }
}

/// Multiples 0..2^(w−1) of a base point, affine (Z = 1: an addition costs one
/// multiplication less): signed radix-2^w digits index it.
type BaseTable<F> = Box<[AffineLimbs<F>]>;

/// One signature ready for the lanes; `table` indexes its key's table in the unit.
#[derive(Clone, Copy)]
struct Job {
    slot: u32,
    table: u32,
    r: [u8; 32],
    /// S and k = SHA-512(R ‖ A ‖ M) mod L, canonical little-endian.
    s: [u8; 32],
    k: [u8; 32],
}

/// The static tables of the per-unit path: multiples of B and of [2^(w·n)]B in radix
/// 2^w, for the low and high n digits of a scalar's 2n (`HalfSize`'s e; `FullSize`
/// reads only B's, all its digits).
pub(crate) struct BaseTables<F: LaneField> {
    radix: BaseRadix,
    b: BaseTable<F>,
    b_high: BaseTable<F>,
    /// The limbs of 2: an affine entry's 2Z.
    two: F::Limbs,
}

/// A job on the per-unit path, its scalars halved: the lanes check
/// [d]R + [c]A + [e]B = O (see `half_size`).
struct HalfJob {
    slot: u32,
    table: u32,
    r: [u8; 32],
    scalars: HalfScalars,
}

impl HalfJob {
    /// The jobs with their scalars halved, `half_size::BATCH` at a time.
    fn from_jobs(jobs: &[Job]) -> Vec<HalfJob> {
        let scalars: Vec<([u8; 32], [u8; 32])> = jobs.iter().map(|j| (j.k, j.s)).collect();
        let mut halves = Vec::with_capacity(jobs.len());
        half_size::halve_all(&scalars, &mut halves);
        jobs.iter()
            .zip(halves)
            .map(|(job, scalars)| HalfJob {
                slot: job.slot,
                table: job.table,
                r: job.r,
                scalars,
            })
            .collect()
    }
}

/// Multiples 0..count−1 (count ≥ 2) of `p` in every lane, in cached form. (A tree
/// of doublings and additions, no multiple more than three steps from P, measured
/// slower than this chain of additions: the chain is not what bounds it.)
#[inline(always)]
fn multiples<F: LaneField>(c: &Constants<F>, p: &Extended<F>, count: usize) -> Vec<Cached<F>> {
    let p_cached = p.to_cached(c);
    let mut out = Vec::with_capacity(count);
    out.extend([Cached::identity(), p_cached]);
    let mut acc = *p;
    while out.len() < count {
        acc = acc.add(&p_cached).to_extended();
        out.push(acc.to_cached(c));
    }
    out
}

/// Push the table of multiples of `p` for each lane in `keep` (in lane order).
#[inline(always)]
fn build_tables<F: LaneField>(
    c: &Constants<F>,
    p: &Extended<F>,
    keep: u8,
    out: &mut Vec<Table<F>>,
) {
    store_tables(&multiples(c, p, 9), keep, out);
}

/// Push the rows of `multiples` for each lane in `keep` (in lane order) as tables.
#[inline(always)]
fn store_tables<F: LaneField>(multiples: &[Cached<F>], keep: u8, out: &mut Vec<Table<F>>) {
    let first = out.len();
    let lanes: Vec<usize> = (0..F::LANES).filter(|l| keep >> l & 1 == 1).collect();
    out.resize_with(first + lanes.len(), Default::default);
    for (j, m) in multiples.iter().enumerate() {
        for (k, coordinate) in [m.y_plus_x, m.y_minus_x, m.z2, m.t2d].iter().enumerate() {
            let rows = out[first..].iter_mut().zip(&lanes);
            coordinate.store_lane_limbs(rows.map(|(table, &lane)| (lane, &mut table[j][k])));
        }
    }
}

/// The multiples 0..=`top` of the point encoded as `encoding` in `F`'s limb format.
#[inline(always)]
fn affine_multiples<F: LaneField>(
    c: &Constants<F>,
    encoding: [u8; 32],
    top: usize,
) -> BaseTable<F> {
    let (b, _) = decompress(c, &[encoding; MAX_LANES][..F::LANES]);
    let b_cached = b.to_cached(c);
    let mut points = Vec::with_capacity(top + 1);
    points.extend([Extended::identity(), b]);
    while points.len() <= top {
        let next = points[points.len() - 1].add(&b_cached).to_extended();
        points.push(next);
    }
    let z_inv = batch_invert(&points.iter().map(|p| p.z).collect::<Vec<F>>());
    points
        .iter()
        .zip(&z_inv)
        .map(|(p, z_inv)| Affine::from_extended(c, p, z_inv).lanes()[0])
        .collect()
}

/// The per-unit path's tables of B and [2^(w·n)]B in `radix`; a backend builds them
/// once and keeps them in a static.
#[inline(always)]
fn base_tables<F: LaneField>(c: &Constants<F>, radix: BaseRadix) -> BaseTables<F> {
    // e's high digits start at bit w·n.
    let high = radix.window() as usize * radix.low_digits();
    let mut two_high = [0u8; 32];
    two_high[high / 8] = 1 << (high % 8);
    let b_high = ED25519_BASEPOINT_POINT * Scalar::from_bytes_mod_order(two_high);
    let top = 1 << (radix.window() - 1);
    BaseTables {
        radix,
        b: affine_multiples(c, ED25519_BASEPOINT_COMPRESSED.to_bytes(), top),
        b_high: affine_multiples(c, b_high.compress().to_bytes(), top),
        two: F::one().add(&F::one()).lane_limbs(0),
    }
}

/// How the per-unit lane path evaluates the equation. Which is faster depends on the
/// backend, the policy and the CPU (measured: `stage_cycles`, or
/// [`crate::ed25519::stage_profile_on`] with each plan), so each backend picks per
/// policy; on Zen 5 both backends run `HalfSize` under every policy. `FullSize` stays
/// selectable for that measurement, and the tests check both against the reference.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Plan {
    /// [S]B − [k]A with k in full (~253 doublings); `Strict` encodes the sums (one
    /// inversion per unit) and compares bytes, the cofactored policies decode R after.
    FullSize,
    /// [d]R + [c]A + [e]B = O with |c|, |d| ≈ 2^128 (`half_size`: ~128 doublings, for a
    /// lattice reduction per signature and R decoded before the loop).
    HalfSize,
}

/// A signature waiting in the lanes, on either plan: where its verdict goes, its R's
/// encoding, and its key's table (`table` is first the key's ordinal, then the table's
/// index).
trait LaneJob {
    fn slot(&self) -> u32;
    fn r(&self) -> &[u8; 32];
    fn table(&self) -> u32;
    fn set_table(&mut self, table: u32);
}

macro_rules! lane_job {
    ($($job:ty),+) => {$(
        impl LaneJob for $job {
            fn slot(&self) -> u32 {
                self.slot
            }
            fn r(&self) -> &[u8; 32] {
                &self.r
            }
            fn table(&self) -> u32 {
                self.table
            }
            fn set_table(&mut self, table: u32) {
                self.table = table;
            }
        }
    )+};
}
lane_job!(Job, HalfJob);

/// Verify a work unit's well-formed entries, sorted into `groups` of one key each, into
/// `out` (indexed by `entry.slot`), on `plan`.
#[allow(clippy::too_many_arguments)]
#[inline(always)]
pub(crate) fn verify_entries<F: LaneField, W: LaneWords, const KEY_VECTORS: usize>(
    ladder: Ladder<'_, impl LadderSteps<F>, BaseTables<F>>,
    plan: Plan,
    rules: Rules,
    lanes: usize,
    entries: &[UnitEntry<'_>],
    groups: &[Range<usize>],
    out: &mut [Verdict],
    clock: &mut impl StageClock,
) {
    let c = Constants::<F>::new();
    clock.lap(None);
    let lanes = lanes.clamp(1, F::LANES);

    // 1. The byte checks on every key and signature, and every k at once on the
    // multi-buffer hash: none of it needs a decoded key. A job's `table` holds its
    // group's ordinal in `to_decode` until that key is decoded.
    let mut to_decode = Vec::with_capacity(groups.len());
    for range in groups {
        match precheck_key(rules, entries[range.start].public_key) {
            Err(reason) => reject_group(entries, range, reason, out),
            Ok(()) => to_decode.push(range.clone()),
        }
    }
    let by_ordinal: Vec<(Range<usize>, u32)> = to_decode
        .iter()
        .enumerate()
        .map(|(ordinal, range)| (range.clone(), ordinal as u32))
        .collect();
    let jobs = prepare_jobs::<W>(rules, entries, &by_ordinal, out);
    clock.lap(Some(Stage::Hash));

    match plan {
        Plan::FullSize => {
            let mut run = FullSizeChunks {
                ladder,
                sums: Vec::with_capacity(jobs.len().div_ceil(lanes)),
                ran: Vec::with_capacity(jobs.len()),
            };
            with_key_tables::<F, Job, _, KEY_VECTORS>(
                rules, &c, entries, &to_decode, jobs, lanes, out, clock, &mut run,
            );
            let chunks: Vec<&[Job]> = run.ran.chunks(lanes).collect();
            finish(rules, &c, &run.sums, &chunks, out);
            clock.lap(Some(Stage::Finish));
        }
        Plan::HalfSize => {
            let jobs = HalfJob::from_jobs(&jobs);
            clock.lap(Some(Stage::Halve));
            let mut run = HalfSizeChunks {
                ladder,
                rules,
                c: &c,
                lanes,
                r_tables: Vec::with_capacity(R_CHUNKS * F::LANES),
            };
            with_key_tables::<F, HalfJob, _, KEY_VECTORS>(
                rules,
                &c,
                entries,
                &to_decode,
                jobs,
                R_CHUNKS * lanes,
                out,
                clock,
                &mut run,
            );
        }
    }
}

/// What [`with_key_tables`] runs on each batch of jobs whose key tables are complete.
/// A trait rather than a closure: a closure cannot be marked `#[inline(always)]`, and
/// one left out of line is compiled without the backend's target features.
trait RunReady<F: LaneField, J> {
    fn run(
        &mut self,
        tables: &[Table<F>],
        ready: &[J],
        out: &mut [Verdict],
        clock: &mut impl StageClock,
    );
}

/// The full-size plan: each chunk's sum now, the verdicts once the unit is done.
struct FullSizeChunks<'t, S, F: LaneField> {
    ladder: Ladder<'t, S, BaseTables<F>>,
    sums: Vec<Extended<F>>,
    ran: Vec<Job>,
}

impl<F: LaneField, S: LadderSteps<F>> RunReady<F, Job> for FullSizeChunks<'_, S, F> {
    #[inline(always)]
    fn run(
        &mut self,
        tables: &[Table<F>],
        ready: &[Job],
        _: &mut [Verdict],
        clock: &mut impl StageClock,
    ) {
        self.sums.push(sum_chunk(self.ladder, tables, ready));
        self.ran.extend_from_slice(ready);
        clock.lap(Some(Stage::Ladder));
    }
}

/// How many chunks the half-size plan takes at a time: their R's square roots
/// interleave (three-way measured cheaper per root than two-way; four spill).
const R_CHUNKS: usize = 3;

/// The half-size plan: up to `R_CHUNKS` chunks at a time, verdicts at once.
struct HalfSizeChunks<'t, 'c, S, F: LaneField> {
    ladder: Ladder<'t, S, BaseTables<F>>,
    rules: Rules,
    c: &'c Constants<F>,
    lanes: usize,
    r_tables: Vec<Table<F>>,
}

impl<F: LaneField, S: LadderSteps<F>> RunReady<F, HalfJob> for HalfSizeChunks<'_, '_, S, F> {
    #[inline(always)]
    fn run(
        &mut self,
        tables: &[Table<F>],
        ready: &[HalfJob],
        out: &mut [Verdict],
        clock: &mut impl StageClock,
    ) {
        let mut chunks = ready.chunks(self.lanes);
        match (chunks.next(), chunks.next(), chunks.next()) {
            (Some(a), None, _) => self.verify::<1>(tables, [a], out, clock),
            (Some(a), Some(b), None) => self.verify::<2>(tables, [a, b], out, clock),
            (Some(a), Some(b), Some(c)) => self.verify::<3>(tables, [a, b, c], out, clock),
            (None, ..) => {}
        }
    }
}

impl<F: LaneField, S: LadderSteps<F>> HalfSizeChunks<'_, '_, S, F> {
    #[inline(always)]
    fn verify<const N: usize>(
        &mut self,
        tables: &[Table<F>],
        chunks: [&[HalfJob]; N],
        out: &mut [Verdict],
        clock: &mut impl StageClock,
    ) {
        let (ladder, rules, c) = (self.ladder, self.rules, self.c);
        verify_chunks::<F, N>(
            ladder,
            rules,
            c,
            tables,
            chunks,
            &mut self.r_tables,
            out,
            clock,
        );
    }
}

/// Decode the keys of `to_decode` `KEY_VECTORS · F::LANES` at a time, each pass followed
/// at once by `run` on the jobs its tables complete (`batch` at a time, fewer at the
/// end), so a table is read while it is still in the nearest caches (a unit's tables
/// together outgrow them: 512 keys take ~740 KB on IFMA). A key that fails to decode
/// rejects its whole group (over any signature verdicts set before) and its jobs are
/// dropped.
#[allow(clippy::too_many_arguments)]
#[inline(always)]
fn with_key_tables<F: LaneField, J: LaneJob, C: StageClock, const KEY_VECTORS: usize>(
    rules: Rules,
    c: &Constants<F>,
    entries: &[UnitEntry<'_>],
    to_decode: &[Range<usize>],
    jobs: Vec<J>,
    batch: usize,
    out: &mut [Verdict],
    clock: &mut C,
    run: &mut impl RunReady<F, J>,
) {
    let mut tables: Vec<Table<F>> = Vec::with_capacity(to_decode.len());
    let mut table_of = vec![u32::MAX; to_decode.len()];
    let mut ready: Vec<J> = Vec::with_capacity(batch + 2 * F::LANES);
    let mut jobs = jobs.into_iter().peekable();
    // `KEY_VECTORS` vectors of keys per pass, the backend's: their square roots
    // interleave: a square root alone costs far more than in a three-way interleave;
    // four-way measured a little faster again on IFMA, while AVX2's four-way spills and
    // runs slower than three-way (docs/results.md).
    for (n, chunk) in to_decode.chunks(KEY_VECTORS * F::LANES).enumerate() {
        let decoded_keys = decode_keys::<F, KEY_VECTORS>(c, entries, chunk);
        for (v, keys) in decoded_keys.iter().enumerate() {
            let first = v * F::LANES;
            if first >= chunk.len() {
                break;
            }
            let multiples = multiples(c, &keys.minus_a, 9);
            // Small order: the table's top entry, [8](−A), is the identity (three
            // doublings of −A, the test otherwise, were a measurable share of a key's
            // decoding and table).
            let small = if rules.reject_small_order {
                multiples[8].identity_mask()
            } else {
                0
            };
            let keep = keys.live & !small;
            store_tables(&multiples, keep, &mut tables);
            let mut next = tables.len() as u32 - keep.count_ones();
            for (lane, range) in chunk[first..].iter().take(F::LANES).enumerate() {
                if keys.live >> lane & 1 == 0 {
                    reject_group(entries, range, Reject::BadPublicKey, out);
                } else if small >> lane & 1 == 1 {
                    reject_group(entries, range, Reject::SmallOrderKey, out);
                } else {
                    table_of[n * KEY_VECTORS * F::LANES + first + lane] = next;
                    next += 1;
                }
            }
        }
        clock.lap(Some(Stage::Keys));

        let decoded_up_to = (n * KEY_VECTORS * F::LANES + chunk.len()) as u32;
        while let Some(mut job) = jobs.next_if(|j| j.table() < decoded_up_to) {
            let table = table_of[job.table() as usize];
            if table != u32::MAX {
                job.set_table(table);
                ready.push(job);
            }
        }
        let last = decoded_up_to as usize == to_decode.len();
        while ready.len() >= batch || (last && !ready.is_empty()) {
            let take = ready.len().min(batch);
            run.run(&tables, &ready[..take], out, clock);
            ready.drain(..take);
        }
    }
}

/// Verify `N` chunks of jobs whose key tables are in `tables`: decode their R together
/// (the square roots interleave), tabulate each lane's R, run each chunk's loop and give
/// each lane its verdict. `r_tables` is scratch space.
#[allow(clippy::too_many_arguments)]
#[inline(always)]
fn verify_chunks<F: LaneField, const N: usize>(
    ladder: Ladder<'_, impl LadderSteps<F>, BaseTables<F>>,
    rules: Rules,
    c: &Constants<F>,
    tables: &[Table<F>],
    chunks: [&[HalfJob]; N],
    r_tables: &mut Vec<Table<F>>,
    out: &mut [Verdict],
    clock: &mut impl StageClock,
) {
    let decoded_r = decode_r::<F, _, N>(c, &chunks);
    r_tables.clear();
    let all_lanes = ((1u16 << F::LANES) - 1) as u8;
    for (r, _) in &decoded_r {
        build_tables(c, r, all_lanes, r_tables);
    }
    clock.lap(Some(Stage::DecodeR));
    let sums: [Extended<F>; N] = core::array::from_fn(|i| {
        half_sum_chunk(ladder, tables, &r_tables[i * F::LANES..], chunks[i])
    });
    clock.lap(Some(Stage::Ladder));
    for ((sum, (r, decoded)), chunk) in sums.iter().zip(&decoded_r).zip(chunks) {
        check_half(rules, sum, r, *decoded, chunk, out);
    }
    clock.lap(Some(Stage::Finish));
}

/// The verdicts of one chunk whose lanes hold [d]R + [c]A + [e]B: O (`Strict`, whose R
/// is canonical and not of small order by its byte rules, so that point equality is
/// byte equality and a point that does not decode fails as a byte mismatch would), or
/// of small order (the cofactored policies, after R's own checks).
#[inline(always)]
fn check_half<F: LaneField>(
    rules: Rules,
    sum: &Extended<F>,
    r: &Extended<F>,
    decoded: u8,
    chunk: &[HalfJob],
    out: &mut [Verdict],
) {
    let holds = if rules.cofactored {
        sum.small_order_mask()
    } else {
        sum.to_projective().identity_mask()
    };
    set_verdicts(rules, r, decoded, holds, chunk, out);
}

/// Each lane's verdict, on either plan, from R (`decoded`: the lanes whose R decoded)
/// and `holds` (the lanes whose equation holds). An R that does not decode is
/// `BadSignatureR` under the cofactored policies and, under `Strict`, the byte mismatch
/// the full-size plan reports (`EquationFailed`); a small-order R is rejected where the
/// cofactored policy says so (`Strict`'s byte rules have rejected it before).
#[inline(always)]
fn set_verdicts<F: LaneField, J: LaneJob>(
    rules: Rules,
    r: &Extended<F>,
    decoded: u8,
    holds: u8,
    chunk: &[J],
    out: &mut [Verdict],
) {
    let small = if rules.cofactored && rules.reject_small_order {
        r.small_order_mask()
    } else {
        0
    };
    let bad_r = if rules.cofactored {
        Reject::BadSignatureR
    } else {
        Reject::EquationFailed
    };
    for (lane, j) in chunk.iter().enumerate() {
        let bit = |m: u8| m >> lane & 1 == 1;
        out[j.slot() as usize] = if !bit(decoded) {
            Verdict::Invalid(bad_r)
        } else if bit(small) {
            Verdict::Invalid(Reject::SmallOrderR)
        } else if bit(holds) {
            Verdict::Valid
        } else {
            Verdict::Invalid(Reject::EquationFailed)
        };
    }
}

/// The stages of a work unit on the lane path: what [`crate::ed25519::stage_profile`]
/// reports cycles for. `Hash` runs first, then (`HalfSize`) `Halve`; then each pass of
/// `Keys` is followed by the signatures it made ready (`HalfSize`: `DecodeR`, `Ladder`,
/// `Finish` per batch; `FullSize`: `Ladder`, with `Finish` once at the end).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stage {
    /// Byte checks on keys and signatures, k = SHA-512(R ‖ A ‖ M) on the multi-buffer
    /// hash, and its reduction mod L.
    Hash,
    /// The half-size scalars c, d, e of each signature (`half_size`; `HalfSize` only).
    Halve,
    /// Decoding keys in lanes (a square root each), the small-order test and each key's
    /// table of multiples.
    Keys,
    /// Decoding R in lanes (a square root each) and each R's table of multiples
    /// (`HalfSize` only: `FullSize` decodes R in `Finish`, where it does at all).
    DecodeR,
    /// The digit recoding and the loop: [S]B − [k]A (`FullSize`, ~253 doublings) or
    /// [d]R + [c]A + [e]B (`HalfSize`, ~128).
    Ladder,
    /// The policy's final check. `FullSize`: encode the sums and compare bytes with R
    /// (`strict`), or decode R and test [8]([S]B − [k]A − R) = O. `HalfSize`: the sum is
    /// O (`strict`) or of small order.
    Finish,
}

impl Stage {
    /// In the order a unit first meets them (keys, R, the loop and the check then
    /// alternate).
    pub const ALL: [Stage; 6] = [
        Stage::Hash,
        Stage::Halve,
        Stage::Keys,
        Stage::DecodeR,
        Stage::Ladder,
        Stage::Finish,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Stage::Hash => "SHA-512 + mod L",
            Stage::Halve => "half-size scalars",
            Stage::Keys => "decode keys + tables",
            Stage::DecodeR => "decode R + tables",
            Stage::Ladder => "scalar loop",
            Stage::Finish => "final check",
        }
    }
}

/// Told when each stage of a unit ends (`None`: the unit starts). The engine's clock is
/// `()`, which compiles to nothing.
pub(crate) trait StageClock {
    fn lap(&mut self, ended: Option<Stage>);
}

impl StageClock for () {
    #[inline(always)]
    fn lap(&mut self, _: Option<Stage>) {}
}

/// Time-stamp-counter ticks spent in each stage, summed over units. The counter runs at
/// a constant rate (the CPU's nominal clock, not its boosted core clock), so compare
/// stages within one run rather than with another machine's figures.
#[cfg(target_arch = "x86_64")]
#[derive(Default)]
pub(crate) struct CycleClock {
    last: u64,
    pub cycles: [u64; Stage::ALL.len()],
}

#[cfg(target_arch = "x86_64")]
impl StageClock for CycleClock {
    #[inline(always)]
    fn lap(&mut self, ended: Option<Stage>) {
        // SAFETY: RDTSC exists on every x86-64 CPU.
        let now = unsafe { core::arch::x86_64::_rdtsc() };
        if let Some(stage) = ended {
            self.cycles[stage as usize] += now.wrapping_sub(self.last);
        }
        self.last = now;
    }
}

/// The keys of up to `F::LANES` groups, decoded in lanes.
struct DecodedKeys<F> {
    /// −A in each lane (garbage where the key did not decode).
    minus_a: Extended<F>,
    /// Lanes whose key decoded, among the chunk's (the caller tests for small order).
    live: u8,
}

/// Decode the key of each group in `chunk` (at most `N·F::LANES`), in `N` vectors whose
/// square roots run interleaved; vector i holds groups `i·F::LANES..`, and lanes past
/// the chunk's end repeat its last key (never live).
#[inline(always)]
fn decode_keys<F: LaneField, const N: usize>(
    c: &Constants<F>,
    entries: &[UnitEntry<'_>],
    chunk: &[Range<usize>],
) -> [DecodedKeys<F>; N] {
    let encodings: Vec<[u8; 32]> = (0..N * F::LANES)
        .map(|group| *entries[chunk[group.min(chunk.len() - 1)].start].public_key)
        .collect();
    let decoded_vectors = decompress_many::<F, N>(c, &encodings);
    core::array::from_fn(|v| {
        let (a, decoded) = decoded_vectors[v];
        let in_chunk = chunk.len().saturating_sub(v * F::LANES).min(F::LANES);
        DecodedKeys {
            minus_a: a.neg(),
            live: ((1u16 << in_chunk) - 1) as u8 & decoded,
        }
    })
}

/// Every entry of `range` is invalid for the same reason (its key's).
fn reject_group(
    entries: &[UnitEntry<'_>],
    range: &Range<usize>,
    reason: Reject,
    out: &mut [Verdict],
) {
    for entry in &entries[range.clone()] {
        out[entry.slot as usize] = Verdict::Invalid(reason);
    }
}

/// The jobs of the groups in `with_table` (each with its key's table index): the
/// shared byte checks on each signature (S < L, R's encoding rules; failures get their
/// verdict here), then every k = SHA-512(R ‖ A ‖ M) mod L at once on the multi-buffer
/// hash.
#[inline(always)]
fn prepare_jobs<W: LaneWords>(
    rules: Rules,
    entries: &[UnitEntry<'_>],
    with_table: &[(Range<usize>, u32)],
    out: &mut [Verdict],
) -> Vec<Job> {
    let mut jobs = Vec::with_capacity(entries.len());
    let mut messages = Vec::with_capacity(entries.len());
    for (range, table) in with_table {
        for entry in &entries[range.clone()] {
            match precheck_signature(rules, entry.signature) {
                Err(reason) => out[entry.slot as usize] = Verdict::Invalid(reason),
                Ok((r, s)) => {
                    jobs.push(Job {
                        slot: entry.slot,
                        table: *table,
                        r: *r,
                        s: *s,
                        k: [0; 32],
                    });
                    messages.push(Parts {
                        r,
                        a: entry.public_key,
                        m: entry.message,
                    });
                }
            }
        }
    }
    let mut digests = vec![[0u8; 64]; jobs.len()];
    sha512::digests::<W>(&messages, &mut digests);
    for (job, digest) in jobs.iter_mut().zip(&digests) {
        job.k = scalar_mod_l::bytes(&scalar_mod_l::reduce_wide(digest));
    }
    jobs
}

/// Signed radix-2^W digits of `scalar(job)` for each of the backend's lanes (a ragged
/// chunk repeats its last job), window-major.
#[inline(always)]
fn lane_digits<F: LaneField, const W: u32, const N: usize, J>(
    chunk: &[J],
    scalar: impl Fn(&J) -> &[u8; 32],
) -> LaneDigits<N> {
    window_major::<F, N>(|lane| {
        scalar::signed_digits::<W, N>(scalar(&chunk[lane.min(chunk.len() - 1)]))
    })
}

/// Lane i's digits `digits(i)` for each of the backend's lanes, one row per window.
/// Lanes past `F::LANES` stay zero rather than being recoded for nothing.
#[inline(always)]
fn window_major<F: LaneField, const N: usize>(digits: impl Fn(usize) -> [i16; N]) -> LaneDigits<N> {
    let mut out = [[0; MAX_LANES]; N];
    for lane in 0..F::LANES {
        for (row, digit) in out.iter_mut().zip(digits(lane)) {
            row[lane] = digit;
        }
    }
    out
}

/// Lane i's row |digit i of window `at`| of `table(i)`, and the lanes whose digit is
/// negative. A plain loop over one contiguous row of digits: this runs before every
/// addition, so it is kept to a few scalar instructions per lane.
#[inline(always)]
fn entries<'t, F: LaneField, R, const N: usize>(
    digits: &LaneDigits<N>,
    at: usize,
    table: impl Fn(usize) -> &'t [R],
) -> ([&'t R; MAX_LANES], u8) {
    let window = &digits[at];
    let mut negate = 0u8;
    let mut rows = [&table(0)[0]; MAX_LANES];
    for (i, row) in rows.iter_mut().enumerate().take(F::LANES) {
        let d = window[i];
        negate |= u8::from(d < 0) << i;
        *row = &table(i)[d.unsigned_abs() as usize];
    }
    (rows, negate)
}

/// The double-scalar loop's two point steps, and where they are compiled.
/// [`InlineSteps`] inlines them into the loop; the IFMA backend compiles each once, out
/// of line, with its target features (`ladder_steps!`): inlined 96 times into one loop,
/// LLVM spilled several times more vector registers around the additions than one
/// out-of-line body needs, and the loop took longer (docs/results.md).
pub(crate) trait LadderSteps<F: LaneField>: Copy {
    /// acc ← [16]acc (T computed, for the addition that follows).
    fn mul_by_16(self, acc: &mut Extended<F>);
    /// acc ← acc ± the rows' entries, of either form (see [`Extended::add_assign`]).
    fn add(self, acc: &mut Extended<F>, rows: &AddendRows<'_, F>, negate: u8, with_t: bool);
    /// As [`LadderSteps::add`] for affine rows only, Z1 doubled instead of multiplied by
    /// 2: the hot-key path's one addition, which out of line need not take cached rows
    /// too (and gets the rows as they are, so its caller forms no [`AddendRows`]).
    fn add_affine(self, acc: &mut Extended<F>, rows: &[&AffineLimbs<F>], negate: u8, with_t: bool);
}

/// What a double-scalar loop runs with: the backend's point steps and the base point's
/// table (a [`BaseTable`] on the per-unit path, a fixed-base one on the hot-key path).
pub(crate) struct Ladder<'t, S, T> {
    pub steps: S,
    pub base: &'t T,
}

impl<S: Copy, T> Clone for Ladder<'_, S, T> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<S: Copy, T> Copy for Ladder<'_, S, T> {}

/// The point steps inlined into the loop.
#[derive(Clone, Copy)]
pub(crate) struct InlineSteps;

impl<F: LaneField> LadderSteps<F> for InlineSteps {
    #[inline(always)]
    fn mul_by_16(self, acc: &mut Extended<F>) {
        acc.mul_by_16_assign()
    }

    #[inline(always)]
    fn add(self, acc: &mut Extended<F>, rows: &AddendRows<'_, F>, negate: u8, with_t: bool) {
        acc.add_assign(rows, negate, with_t, rows.two_z())
    }

    #[inline(always)]
    fn add_affine(self, acc: &mut Extended<F>, rows: &[&AffineLimbs<F>], negate: u8, with_t: bool) {
        acc.add_assign_affine(rows, negate, with_t)
    }
}

/// [S]B + [k](−A) for up to `F::LANES` jobs at once (the full-size plan).
#[inline(always)]
fn sum_chunk<F: LaneField>(
    ladder: Ladder<'_, impl LadderSteps<F>, BaseTables<F>>,
    tables: &[Table<F>],
    chunk: &[Job],
) -> Extended<F> {
    let Ladder { steps, base } = ladder;
    let job = |lane: usize| &chunk[lane.min(chunk.len() - 1)];
    let k_digits = lane_digits::<F, 4, 64, _>(chunk, |j| &j.k);
    let s_digits = base.radix.lane_digits::<F, _>(chunk, |j| &j.s);
    let stride = base.radix.stride();
    let key_tables: [&Table<F>; MAX_LANES] =
        core::array::from_fn(|i| &tables[job(i).table as usize]);

    // acc = Σ_w 16^w·k_w·(−A) + Σ_j 2^(4·stride·j)·s_j·B, from the top window down:
    // [16]acc (nothing in the top window, where acc is the identity), plus k_w·(−A),
    // plus s_(w/stride)·B in every stride-th window. T (one multiplication) is computed
    // only where an addition reads it, not for a sum that only feeds doublings.
    let mut acc = Extended::<F>::identity();
    for w in (0..64).rev() {
        if w != 63 {
            steps.mul_by_16(&mut acc);
        }
        let with_base = w % stride == 0;
        let (rows, negate) = entries::<F, _, 64>(&k_digits, w, |i| &key_tables[i][..]);
        steps.add(
            &mut acc,
            &AddendRows::cached(&rows[..F::LANES]),
            negate,
            with_base,
        );
        if with_base {
            let (rows, negate) = entries::<F, _, 32>(&s_digits, w / stride, |_| &base.b[..]);
            steps.add(
                &mut acc,
                &AddendRows::affine(&rows[..F::LANES], &base.two),
                negate,
                w == 0,
            );
        }
    }
    acc
}

/// Signed radix-16 digits of ±`scalar(job)` for each lane (a ragged chunk repeats its
/// last job), as [`lane_digits`].
#[inline(always)]
fn signed_lane_digits<F: LaneField>(
    chunk: &[HalfJob],
    scalar: impl Fn(&HalfJob) -> (&[u8; 32], bool),
) -> LaneDigits<64> {
    window_major::<F, 64>(|lane| {
        let (magnitude, negative) = scalar(&chunk[lane.min(chunk.len() - 1)]);
        let digits = scalar::signed_digits::<4, 64>(magnitude);
        if negative {
            digits.map(|d| -d)
        } else {
            digits
        }
    })
}

/// Windows the loop needs for these digits: one past the highest window with a
/// nonzero digit, and at least as many as e's low digits reach (31 in either radix).
#[inline(always)]
fn windows_needed(radix: BaseRadix, digits: &[&LaneDigits<64>]) -> usize {
    let top = digits
        .iter()
        .map(|d| {
            d.iter()
                .rposition(|row| row.iter().any(|&x| x != 0))
                .map_or(0, |i| i + 1)
        })
        .max()
        .unwrap_or(0);
    top.max(radix.stride() * (radix.low_digits() - 1) + 1)
}

/// [d]R + [c]A + [e]B for up to `F::LANES` jobs at once; `r_tables` holds each lane's
/// multiples 0..8 of R.
#[inline(always)]
fn half_sum_chunk<F: LaneField>(
    ladder: Ladder<'_, impl LadderSteps<F>, BaseTables<F>>,
    tables: &[Table<F>],
    r_tables: &[Table<F>],
    chunk: &[HalfJob],
) -> Extended<F> {
    let Ladder { steps, base } = ladder;
    let job = |lane: usize| &chunk[lane.min(chunk.len() - 1)];
    // The key tables hold multiples of −A: [c]A takes the digits of −c.
    let c_digits = signed_lane_digits::<F>(chunk, |j| (&j.scalars.c, true));
    let d_digits = signed_lane_digits::<F>(chunk, |j| (&j.scalars.d, j.scalars.d_negative));
    let e_digits = base.radix.lane_digits::<F, _>(chunk, |j| &j.scalars.e);
    let windows = windows_needed(base.radix, &[&c_digits, &d_digits]);
    let key_tables: [&Table<F>; MAX_LANES] =
        core::array::from_fn(|i| &tables[job(i).table as usize]);
    let r_tables: [&Table<F>; MAX_LANES] = core::array::from_fn(|i| &r_tables[i.min(F::LANES - 1)]);

    // acc = Σ_w 16^w·(c_w·(−A) + d_w·R) + Σ_(j<n) 2^(w·j)·(e_j·B + e_(n+j)·[2^(w·n)]B)
    // for e's 2n radix-2^w digits (w = 4·stride), from the top window down: [16]acc
    // (nothing in the top window, where acc is the identity), the key's and R's
    // entries, and e's two digits in every stride-th window below stride·n. T (one
    // multiplication) is computed only where an addition reads it, not for a sum that
    // only feeds doublings or the final check.
    let (stride, high) = (base.radix.stride(), base.radix.low_digits());
    let mut acc = Extended::<F>::identity();
    for w in (0..windows).rev() {
        if w != windows - 1 {
            steps.mul_by_16(&mut acc);
        }
        let with_base = w % stride == 0 && w / stride < high;
        let (rows, negate) = entries::<F, _, 64>(&c_digits, w, |i| &key_tables[i][..]);
        steps.add(
            &mut acc,
            &AddendRows::cached(&rows[..F::LANES]),
            negate,
            true,
        );
        let (rows, negate) = entries::<F, _, 64>(&d_digits, w, |i| &r_tables[i][..]);
        steps.add(
            &mut acc,
            &AddendRows::cached(&rows[..F::LANES]),
            negate,
            with_base,
        );
        if with_base {
            let j = w / stride;
            let (rows, negate) = entries::<F, _, 32>(&e_digits, j, |_| &base.b[..]);
            steps.add(
                &mut acc,
                &AddendRows::affine(&rows[..F::LANES], &base.two),
                negate,
                true,
            );
            let (rows, negate) = entries::<F, _, 32>(&e_digits, high + j, |_| &base.b_high[..]);
            steps.add(
                &mut acc,
                &AddendRows::affine(&rows[..F::LANES], &base.two),
                negate,
                false,
            );
        }
    }
    acc
}

/// The verdicts of a unit's chunks, whose lanes hold [S]B − [k]A in `sums`: `Strict`
/// encodes each and compares bytes with R (R's byte rules were checked before), with
/// one shared inversion for the whole unit; the cofactored policies decode R and test
/// [8]([S]B − [k]A − R) = O.
#[inline(always)]
fn finish<F: LaneField>(
    rules: Rules,
    c: &Constants<F>,
    sums: &[Extended<F>],
    chunks: &[&[Job]],
    out: &mut [Verdict],
) {
    if !rules.cofactored {
        let z_inv = batch_invert(&sums.iter().map(|p| p.z).collect::<Vec<F>>());
        for ((sum, chunk), z_inv) in sums.iter().zip(chunks).zip(&z_inv) {
            let mut encoded = [[0u8; 32]; MAX_LANES];
            compress_with_inverse(sum, z_inv, &mut encoded[..F::LANES]);
            for (lane, j) in chunk.iter().enumerate() {
                out[j.slot as usize] = if encoded[lane] == j.r {
                    Verdict::Valid
                } else {
                    Verdict::Invalid(Reject::EquationFailed)
                };
            }
        }
        return;
    }
    // R decoded two chunks at a time, their square roots interleaved.
    for (sums, chunks) in sums.chunks(2).zip(chunks.chunks(2)) {
        let (pair, single);
        let decoded_r: &[(Extended<F>, u8)] = if chunks.len() == 2 {
            pair = decode_r::<F, _, 2>(c, chunks);
            &pair
        } else {
            single = decode_r::<F, _, 1>(c, chunks);
            &single
        };
        for ((sum, chunk), (r, decoded)) in sums.iter().zip(chunks).zip(decoded_r) {
            check_cofactored(rules, c, sum, r, *decoded, chunk, out);
        }
    }
}

/// Each chunk's R in lanes (a ragged chunk repeats its last R), decoded together.
#[inline(always)]
fn decode_r<F: LaneField, J: LaneJob, const N: usize>(
    c: &Constants<F>,
    chunks: &[&[J]],
) -> [(Extended<F>, u8); N] {
    let encodings: Vec<[u8; 32]> = chunks
        .iter()
        .flat_map(|chunk| (0..F::LANES).map(|i| *chunk[i.min(chunk.len() - 1)].r()))
        .collect();
    decompress_many::<F, N>(c, &encodings)
}

/// The cofactored verdicts of one chunk: [8]([S]B − [k]A − R) = O in each lane, R
/// decoded (and not of small order where the policy says so).
#[inline(always)]
fn check_cofactored<F: LaneField>(
    rules: Rules,
    c: &Constants<F>,
    sum: &Extended<F>,
    r: &Extended<F>,
    decoded: u8,
    chunk: &[Job],
    out: &mut [Verdict],
) {
    let holds = sum
        .add(&r.neg().to_cached(c))
        .to_extended()
        .small_order_mask();
    set_verdicts(rules, r, decoded, holds, chunk, out);
}

/// A backend's `ladder_steps()`: `inline` gives [`InlineSteps`]; `out_of_line` a
/// `Steps` whose point steps are compiled once each, out of line, with the backend's
/// target features. Which one is faster is measured per backend: out of line is faster
/// on IFMA and slower on AVX2, whose 10-limb elements spill either way and whose field
/// products LLVM already keeps out of line (docs/results.md).
macro_rules! ladder_steps {
    (inline, $field:ty) => {
        /// # Safety
        /// None needed; `unsafe` only to match the `out_of_line` form.
        unsafe fn ladder_steps() -> InlineSteps {
            InlineSteps
        }
    };
    (out_of_line, $field:ty) => {
        /// A value is proof that the CPU has the backend's features.
        #[derive(Clone, Copy)]
        struct Steps(());

        /// # Safety
        /// The CPU must have the backend's target features ([`supported`]).
        unsafe fn ladder_steps() -> Steps {
            Steps(())
        }

        impl LadderSteps<$field> for Steps {
            #[inline(always)]
            fn mul_by_16(self, acc: &mut Extended<$field>) {
                // SAFETY: a `Steps` exists, so the CPU has the features.
                unsafe { mul_by_16_here(acc) }
            }

            #[inline(always)]
            fn add(
                self,
                acc: &mut Extended<$field>,
                rows: &AddendRows<'_, $field>,
                negate: u8,
                with_t: bool,
            ) {
                // SAFETY: a `Steps` exists, so the CPU has the features.
                unsafe { add_here(acc, rows, negate, with_t) }
            }

            #[inline(always)]
            fn add_affine(
                self,
                acc: &mut Extended<$field>,
                rows: &[&AffineLimbs<$field>],
                negate: u8,
                with_t: bool,
            ) {
                // SAFETY: a `Steps` exists, so the CPU has the features.
                unsafe { add_affine_here(acc, rows, negate, with_t) }
            }
        }

        kernels! {
            #[inline(never)]
            fn mul_by_16_here(acc: &mut Extended<$field>) {
                acc.mul_by_16_assign_one_body()
            }

            #[inline(never)]
            fn add_here(
                acc: &mut Extended<$field>,
                rows: &AddendRows<'_, $field>,
                negate: u8,
                with_t: bool,
            ) {
                acc.add_assign(rows, negate, with_t, TwoZ::FromRows)
            }

            #[inline(never)]
            fn add_affine_here(
                acc: &mut Extended<$field>,
                rows: &[&AffineLimbs<$field>],
                negate: u8,
                with_t: bool,
            ) {
                acc.add_assign_affine(rows, negate, with_t)
            }
        }
    };
}

/// One instantiation of the generic verifier: a module that is the ISA path of
/// `$features` (`linesig_simd::isa_path!`: its `FEATURES`, `supported()` and kernels
/// from that one literal), `verify_groups()` (the per-unit path), `verify_hot()` (the fixed-base
/// path of cached keys) and `key_table_bytes()`, compiled with the backend's target
/// features, its ladder steps `inline` or `out_of_line` (see `ladder_steps!`), how many
/// vectors of keys it decodes at once (their square roots interleave; see
/// [`with_key_tables`]), the radix of the base point's digits ([`BaseRadix`]) and its
/// [`Plan`] for a policy's rules (`$plan`, a `fn(Rules) -> Plan`).
macro_rules! lane_backend {
    (
        $(#[$doc:meta])* $module:ident, $field:ty, $words:ty, $features:literal,
        $steps:ident, $key_vectors:literal, $base_radix:expr,
        $plan:expr
    ) => {
        $(#[$doc])*
        #[cfg(target_arch = "x86_64")]
        pub(crate) mod $module {
            use super::*;
            use std::sync::OnceLock;

            static BASE_TABLES: OnceLock<BaseTables<$field>> = OnceLock::new();
            static FIXED_BASEPOINT: OnceLock<fixed_base::FixedBaseTable<$field>> =
                OnceLock::new();

            linesig_simd::isa_path!($features);

            ladder_steps!($steps, $field);

            /// The plan this backend runs `rules` on.
            pub(crate) fn plan(rules: Rules) -> Plan {
                let plan: fn(Rules) -> Plan = $plan;
                plan(rules)
            }

            kernels! {
                fn verify_groups_here(
                    plan: Plan,
                    rules: Rules,
                    lanes: usize,
                    entries: &[UnitEntry<'_>],
                    groups: &[Range<usize>],
                    out: &mut [Verdict],
                    clock: &mut impl StageClock,
                ) {
                    let base = BASE_TABLES
                        .get_or_init(|| base_tables(&Constants::<$field>::new(), $base_radix));
                    // SAFETY: this function runs only where `supported()` held (its
                    // callers check).
                    let steps = unsafe { ladder_steps() };
                    let ladder = Ladder { steps, base };
                    verify_entries::<$field, $words, $key_vectors>(
                        ladder, plan, rules, lanes, entries, groups, out, clock,
                    )
                }
            }

            /// As [`verify_groups`] on `plan`, timing each stage into `clock`; `false`
            /// (and nothing verified) where the CPU cannot run the backend.
            pub(crate) fn profile_groups(
                plan: Plan,
                rules: Rules,
                entries: &[UnitEntry<'_>],
                groups: &[Range<usize>],
                out: &mut [Verdict],
                clock: &mut CycleClock,
            ) -> bool {
                if !supported() {
                    return false;
                }
                // SAFETY: the CPU has the target features, checked just above.
                unsafe { verify_groups_here(plan, rules, usize::MAX, entries, groups, out, clock) };
                true
            }

            kernels! {
                fn verify_hot_here(
                    rules: Rules,
                    lanes: usize,
                    cache: &KeyCache,
                    entries: &[UnitEntry<'_>],
                    groups: Vec<Range<usize>>,
                    out: &mut [Verdict],
                ) -> Vec<Range<usize>> {
                    let base = FIXED_BASEPOINT.get_or_init(fixed_base::basepoint_table::<$field>);
                    // SAFETY: this function runs only where `supported()` held (its caller
                    // checks).
                    let steps = unsafe { ladder_steps() };
                    let ladder = Ladder { steps, base };
                    fixed_base::verify_hot_groups::<$field, $words>(
                        ladder, rules, lanes, cache, entries, groups, out,
                    )
                }
            }

            /// Verify on this backend. The engine selects it only where [`supported`]
            /// holds; should it ever be called elsewhere it verifies on the reference
            /// path instead of executing unsupported instructions.
            pub(crate) fn verify_groups(
                rules: Rules,
                lanes: usize,
                entries: &[UnitEntry<'_>],
                groups: &[Range<usize>],
                out: &mut [Verdict],
            ) {
                if supported() {
                    // SAFETY: the CPU has the target features, checked just above.
                    unsafe {
                        verify_groups_here(plan(rules), rules, lanes, entries, groups, out, &mut ())
                    }
                } else {
                    super::super::reference::verify_groups(rules, entries, groups, out)
                }
            }

            /// Verify the groups of cached (or newly admitted) keys on fixed-base
            /// tables; return the rest (all of them where [`supported`] fails).
            pub(crate) fn verify_hot(
                rules: Rules,
                lanes: usize,
                cache: &KeyCache,
                entries: &[UnitEntry<'_>],
                groups: Vec<Range<usize>>,
                out: &mut [Verdict],
            ) -> Vec<Range<usize>> {
                if supported() {
                    // SAFETY: the CPU has the target features, checked just above.
                    unsafe { verify_hot_here(rules, lanes, cache, entries, groups, out) }
                } else {
                    groups
                }
            }

            /// Bytes of one hot key's table on this backend.
            pub(crate) fn key_table_bytes() -> usize {
                fixed_base::key_table_bytes::<$field>()
            }
        }
    };
}

/// The portable instantiation, one signature at a time in plain 64-bit integers: the
/// reference backend verifies hot keys on it (the rest on curve25519-dalek).
pub(crate) mod portable {
    use super::super::field::portable::Fe1;
    use super::super::sha512::portable::Words1;
    use super::*;
    use std::sync::OnceLock;

    static FIXED_BASEPOINT: OnceLock<fixed_base::FixedBaseTable<Fe1>> = OnceLock::new();

    /// As the vector backends' `verify_hot`.
    pub(crate) fn verify_hot(
        rules: Rules,
        cache: &KeyCache,
        entries: &[UnitEntry<'_>],
        groups: Vec<Range<usize>>,
        out: &mut [Verdict],
    ) -> Vec<Range<usize>> {
        let base = FIXED_BASEPOINT.get_or_init(fixed_base::basepoint_table::<Fe1>);
        let ladder = Ladder {
            steps: InlineSteps,
            base,
        };
        fixed_base::verify_hot_groups::<Fe1, Words1>(ladder, rules, 1, cache, entries, groups, out)
    }

    /// Bytes of one hot key's table.
    pub(crate) fn key_table_bytes() -> usize {
        fixed_base::key_table_bytes::<Fe1>()
    }
}

lane_backend!(
    /// The AVX2 instantiation: four signatures per vector.
    avx2,
    super::super::field::avx2::Fe4,
    linesig_simd::u64x4::U64x4,
    "avx2",
    inline,
    3,
    BaseRadix::Bits8,
    |_| Plan::HalfSize
);

lane_backend!(
    /// The AVX-512 IFMA instantiation: eight signatures per vector.
    avx512,
    super::super::field::avx512::Fe8,
    linesig_simd::u64x8::U64x8,
    "avx2,avx512f,avx512bw,avx512dq,avx512ifma",
    out_of_line,
    4,
    BaseRadix::Bits12,
    |_| Plan::HalfSize
);

/// The operation profile of the lane path, counted exactly: a field wrapper counts
/// every call the generic code makes, so the numbers hold for every backend (each runs
/// the same schedule). `cargo test --release -p linesig op_profile -- --nocapture`
/// prints them; the bounds fail the test if a change adds work per signature.
#[cfg(all(test, target_arch = "x86_64"))]
mod op_profile {
    use super::super::field::avx2::Fe4;
    use super::*;
    use crate::ed25519::Policy;
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
        let total = |p: &crate::ed25519::StageProfile| {
            p.cycles_per_signature.iter().map(|x| x.1).sum::<f64>()
        };
        for backend in [crate::Backend::Avx512, crate::Backend::Avx2] {
            for policy in Policy::ALL {
                // The plans alternate, seven runs each, so that drift hits both alike.
                let plans = [Plan::FullSize, Plan::HalfSize];
                let mut runs: [Vec<crate::ed25519::StageProfile>; 2] = Default::default();
                for _ in 0..7 {
                    for (plan, runs) in plans.iter().zip(runs.iter_mut()) {
                        let profile = crate::ed25519::stage_profile_on(
                            policy,
                            backend,
                            &items,
                            512,
                            Some(*plan),
                        );
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
                        let Some(got) = crate::ed25519::stage_profile_on(
                            policy,
                            backend,
                            &items,
                            unit,
                            Some(plan),
                        ) else {
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
}
