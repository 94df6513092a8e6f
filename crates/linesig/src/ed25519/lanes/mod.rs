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

mod backends;
mod batch_equation;
mod fixed_base;
mod ladder;
mod msm;
mod point;
mod prefetch;
mod scalar;
mod stage;
mod tables;
#[cfg(all(test, target_arch = "x86_64"))]
mod tests;

use super::field::LaneField;
use super::half_size::{self, HalfScalars};
use super::policy::Rules;
use super::scalar_mod_l;
use super::sha512::{self, LaneWords, Parts};
use super::{precheck_key, precheck_signature, UnitEntry, SIGNATURE_LEN};
use crate::verdict::{Reject, Verdict};
use ladder::{decode_r, half_sum_chunk, Ladder, LadderSteps};
#[cfg(any(test, feature = "profile"))]
use ladder::{finish, sum_chunk};
use point::{decompress_many, Constants, Extended};
use prefetch::prefetch;
use stage::StageClock;
use std::ops::Range;
use tables::{tabulate_multiples, BaseTables, Table};

pub(crate) use backends::portable;
#[cfg(target_arch = "x86_64")]
pub(crate) use backends::{avx2, avx512};
pub(crate) use batch_equation::MIN_BATCH;
#[cfg(all(target_arch = "x86_64", any(test, feature = "profile")))]
pub(crate) use stage::CycleClock;
pub use stage::Stage;

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

/// How the per-unit lane path evaluates the equation. Which is faster depends on the
/// backend, the policy and the CPU (measured: `stage_cycles`, or
/// [`crate::ed25519::stage_profile_on`] with each plan), so each backend picks per
/// policy; on Zen 5 both backends run `HalfSize` under every policy. `FullSize` stays
/// selectable for that measurement, and the tests check both against the reference.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Plan {
    #[cfg(any(test, feature = "profile"))]
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
    // multi-buffer hash: none of it needs a decoded key.
    let (to_decode, jobs) = checked_jobs::<W>(rules, entries, groups, out);
    clock.lap(Some(Stage::Hash));

    match plan {
        #[cfg(any(test, feature = "profile"))]
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
#[cfg(any(test, feature = "profile"))]
struct FullSizeChunks<'t, S, F: LaneField> {
    ladder: Ladder<'t, S, BaseTables<F>>,
    sums: Vec<Extended<F>>,
    ran: Vec<Job>,
}

#[cfg(any(test, feature = "profile"))]
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
    // Every lane of every pass gets a table (lanes whose key is rejected or past the
    // end too: tabulating them costs nothing more, and no job points to them).
    let per_pass = KEY_VECTORS * F::LANES;
    let mut tables: Vec<Table<F>> = Vec::with_capacity(to_decode.len().next_multiple_of(per_pass));
    let mut table_of = vec![u32::MAX; to_decode.len()];
    let mut ready: Vec<J> = Vec::with_capacity(batch + 2 * F::LANES);
    let mut jobs = jobs.into_iter().peekable();
    // `KEY_VECTORS` vectors of keys per pass, the backend's: their square roots
    // interleave: a square root alone costs far more than in a three-way interleave;
    // four-way measured a little faster again on IFMA, while AVX2's four-way spills and
    // runs slower than three-way (docs/results.md).
    for (n, chunk) in to_decode.chunks(per_pass).enumerate() {
        let decoded_keys = decode_keys::<F, KEY_VECTORS>(c, entries, chunk);
        let minus_a: [Extended<F>; KEY_VECTORS] = core::array::from_fn(|v| decoded_keys[v].minus_a);
        let first_table = tables.len();
        tables.resize_with(first_table + per_pass, Default::default);
        // Small order: the table's top entry, [8](−A), is the identity (three doublings
        // of −A, the test otherwise, were a measurable share of a key's decoding and
        // table).
        let eights = tabulate_multiples(c, &minus_a, &mut tables[first_table..]);
        for (v, keys) in decoded_keys.iter().enumerate() {
            let first = v * F::LANES;
            if first >= chunk.len() {
                break;
            }
            let small = if rules.reject_small_order {
                eights[v]
            } else {
                0
            };
            let ranges = &chunk[first..chunk.len().min(first + F::LANES)];
            settle_keys(entries, ranges, keys.live, small, out, |lane| {
                table_of[n * per_pass + first + lane] = (first_table + first + lane) as u32;
            });
        }
        clock.lap(Some(Stage::Keys));

        let decoded_up_to = (n * per_pass + chunk.len()) as u32;
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
    let r: [Extended<F>; N] = core::array::from_fn(|i| decoded_r[i].0);
    // Scratch: every row is written before it is read.
    if r_tables.len() < N * F::LANES {
        r_tables.resize_with(N * F::LANES, Default::default);
    }
    tabulate_multiples(c, &r, r_tables);
    clock.lap(Some(Stage::DecodeR));
    let mut sums = [Extended::<F>::identity(); N];
    for (i, sum) in sums.iter_mut().enumerate() {
        *sum = half_sum_chunk(ladder, tables, &r_tables[i * F::LANES..], chunks[i]);
    }
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
/// and `holds` (the lanes whose equation holds).
#[inline(always)]
fn set_verdicts<F: LaneField, J: LaneJob>(
    rules: Rules,
    r: &Extended<F>,
    decoded: u8,
    holds: u8,
    chunk: &[J],
    out: &mut [Verdict],
) {
    let r_checks = RChecks::new(rules, r, decoded);
    for (lane, j) in chunk.iter().enumerate() {
        out[j.slot() as usize] = match r_checks.reject(lane) {
            Some(reason) => Verdict::Invalid(reason),
            None if holds >> lane & 1 == 1 => Verdict::Valid,
            None => Verdict::Invalid(Reject::EquationFailed),
        };
    }
}

/// What R alone decides, lane by lane, before any equation: an R that does not decode
/// is `BadSignatureR` under the cofactored policies and, under `Strict`, the byte
/// mismatch the full-size plan reports (`EquationFailed`); a small-order R is rejected
/// where the cofactored policy says so (`Strict`'s byte rules have rejected it before).
/// Shared by the per-signature plans and the batch equation, so that their reasons
/// cannot drift apart.
pub(crate) struct RChecks {
    decoded: u8,
    small: u8,
    bad_r: Reject,
}

impl RChecks {
    #[inline(always)]
    pub(crate) fn new<F: LaneField>(rules: Rules, r: &Extended<F>, decoded: u8) -> Self {
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
        RChecks {
            decoded,
            small,
            bad_r,
        }
    }

    /// Why lane `lane`'s R fails, if it does.
    #[inline(always)]
    pub(crate) fn reject(&self, lane: usize) -> Option<Reject> {
        if self.decoded >> lane & 1 == 0 {
            Some(self.bad_r)
        } else if self.small >> lane & 1 == 1 {
            Some(Reject::SmallOrderR)
        } else {
            None
        }
    }
}

/// The keys of up to `F::LANES` groups, decoded in lanes.
#[derive(Clone, Copy)]
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
    let mut out = [DecodedKeys {
        minus_a: Extended::identity(),
        live: 0,
    }; N];
    for (v, out) in out.iter_mut().enumerate() {
        let (a, decoded) = decoded_vectors[v];
        let in_chunk = chunk.len().saturating_sub(v * F::LANES).min(F::LANES);
        *out = DecodedKeys {
            minus_a: a.neg(),
            live: ((1u16 << in_chunk) - 1) as u8 & decoded,
        };
    }
    out
}

/// The verdicts of a vector of keys' groups (`ranges`, lane i the i-th): rejected where
/// the key did not decode (`live`) or, where the policy says, has small order (`small`);
/// `keep(lane)` for the others.
fn settle_keys(
    entries: &[UnitEntry<'_>],
    ranges: &[Range<usize>],
    live: u8,
    small: u8,
    out: &mut [Verdict],
    mut keep: impl FnMut(usize),
) {
    for (lane, range) in ranges.iter().enumerate() {
        if live >> lane & 1 == 0 {
            reject_group(entries, range, Reject::BadPublicKey, out);
        } else if small >> lane & 1 == 1 {
            reject_group(entries, range, Reject::SmallOrderKey, out);
        } else {
            keep(lane);
        }
    }
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

/// The byte checks on each group's key (failures reject the group here), then
/// [`prepare_jobs`] on the rest: the groups whose keys are to be decoded, and their jobs,
/// whose `table` holds their group's ordinal among those until the key is decoded.
#[inline(always)]
fn checked_jobs<W: LaneWords>(
    rules: Rules,
    entries: &[UnitEntry<'_>],
    groups: &[Range<usize>],
    out: &mut [Verdict],
) -> (Vec<Range<usize>>, Vec<Job>) {
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
    (to_decode, jobs)
}

/// How many entries ahead [`prepare_jobs`] asks for an entry's signature and message.
const ENTRIES_AHEAD: usize = 8;

/// Ask for the lines an entry's checks and hash read first: R, S and the message's
/// start. A unit's entries are sorted by key, so they read the caller's signatures and
/// messages in no order the hardware prefetchers can follow, and each first read of a
/// signature missed every cache (the load of S's top word in `precheck_signature` held
/// ~2 % of the strict path's samples; docs/results.md).
#[inline(always)]
fn prefetch_entry(entry: &UnitEntry<'_>) {
    prefetch(entry.signature);
    prefetch(&entry.signature[SIGNATURE_LEN - 1]);
    if let Some(first) = entry.message.first() {
        prefetch(first);
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
        for (i, entry) in entries[range.clone()].iter().enumerate() {
            if let Some(ahead) = entries.get(range.start + i + ENTRIES_AHEAD) {
                prefetch_entry(ahead);
            }
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
