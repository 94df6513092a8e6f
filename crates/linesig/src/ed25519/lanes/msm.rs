//! The batch equation's multi-scalar multiplication: whether Σ nᵢ·Pᵢ has small order,
//! for affine points Pᵢ, by Pippenger's bucket method, each bucket summed in one lane's
//! registers.
//!
//! Scalars are cut into signed radix-2^c digits in [−2^(c−1), 2^(c−1)). For each window
//! w, bucket d collects the points whose digit there is ±d, and the window's sum
//! Σ d·bucket_d comes from two running sums, top bucket down (2·2^(c−1) additions for the
//! whole window). A window's points are first sorted by bucket (a counting sort of its
//! digits), and the sorted list is cut into `LANES` parts at bucket boundaries: lane l
//! adds the points of its part one after another into an accumulator that stays in
//! registers, and stores it as its bucket's sum when the bucket ends. Each addition
//! gathers one point per lane (three coordinates transposed). Parts differ in length by
//! at most a bucket; a lane whose part has ended adds the identity.
//!
//! The other way, where a backend measured it faster ([`LaneField::BUCKETS_IN_REGISTERS`]
//! false: AVX2), puts the lanes on windows: a vector's lanes hold `LANES` consecutive
//! windows, each with its own buckets, and a point is added once per vector of windows,
//! the same point in every lane (broadcast) into lane i's bucket |digit i| (negated
//! where the digit is), its rows gathered before the addition and stored back after
//! it. Lanes never contend for a bucket either way. On IFMA those two transpositions of
//! four coordinates cost as much as the addition (Zen 5, in one profile;
//! docs/results.md).
//!
//! The buckets' sums then run with the lanes on windows, `LANES` windows at a time, and
//! the window sums meet at the end by Horner's rule (c doublings per window), a chain of
//! one value: in every lane of a vector, or where that costs more
//! ([`LaneField::CHAIN_ON_PORTABLE`]: AVX2, whose four-lane product costs about three in
//! 64-bit integers) on the portable field. Its ~254 doublings are about a tenth of a
//! check of 64 signatures.
//!
//! Full scalars (reduced mod L, below 2^253) take ⌈254/c⌉ windows, the short ones of the
//! coefficients zᵢ (below 2^127) ⌈128/c⌉: the top digit never carries out (a value
//! below 2^(W·c − 1) keeps its top signed digit below 2^(c−1)), and windows above a
//! short scalar's leave its point out. c minimises the additions for the points at
//! hand: larger windows mean fewer per point and more per bucket.

use super::point::{Affine, AffineLimbs, Constants, Extended};
use crate::ed25519::field::portable::Fe1;
use crate::ed25519::field::{lanes_in, LaneField, Line, MAX_LANES};

/// Bits below which full (reduced mod L) and short (coefficient) scalars lie.
const FULL_BITS: usize = 253;
const SHORT_BITS: usize = super::super::batch_coefficients::BITS as usize;

/// Signed radix-2^c windows a scalar below 2^bits needs.
fn windows(bits: usize, c: usize) -> usize {
    (bits + 1).div_ceil(c)
}

/// Bits of a bucket list entry's bucket field: room for |digit| ≤ 2^(c−1) up to c = 10
/// (the fill in registers stops at [`WIDEST_IN_REGISTERS`]).
const MAX_BITS: usize = 10;

/// The widest window in registers: its running sums gather the buckets of eight windows
/// at once, and at c = 9 those rows (526 KB) beside the points' (~1 MB at 4,096
/// signatures) outgrow L2; c = 8 ran 6–8 % faster than c = 9 at 4,096 on Zen 5.
const WIDEST_IN_REGISTERS: usize = 8;

/// The widest window broadcast: a lane's buckets are stored back after every addition,
/// and past 2^9 of them they outgrow L2 (on AVX2, 512 bytes a row; c = 11, which the
/// count of additions ranks first at 4,096, ran 12–15 % slower than c = 8 on Zen 5).
const WIDEST_BROADCAST: usize = 10;

/// The window width with the least work for `full` and `short` points on `lanes` lanes.
/// In registers: each window adds every point with a nonzero digit there, `lanes` at a
/// time, its longest part about half a bucket (n / 2^c points) past the mean where there
/// are several; a bucket's sum (two additions of extended points, its rows gathered)
/// weighs 1.5 fill additions, the weight at which the widths chosen from 128 to 4,096
/// signatures were the fastest measured on Zen 5 (each width forced in turn;
/// docs/results.md). Broadcast: each vector of windows adds every point whose scalar
/// reaches it. Either way each vector of windows sums its 2^(c−1) buckets with two
/// additions each.
fn window_bits(full: usize, short: usize, lanes: usize, in_registers: bool) -> usize {
    let cost = |c: usize| {
        let (w_full, w_short) = (windows(FULL_BITS, c), windows(SHORT_BITS, c));
        let sums = w_full.div_ceil(lanes) * (1 << c);
        if in_registers {
            let fill: usize = (0..w_full)
                .map(|w| {
                    let points = full + if w < w_short { short } else { 0 };
                    points.div_ceil(lanes) + if lanes > 1 { points >> c } else { 0 }
                })
                .sum();
            2 * fill + 3 * sums
        } else {
            let fill: usize = (0..w_full.div_ceil(lanes))
                .map(|g| full + if g * lanes < w_short { short } else { 0 })
                .sum();
            fill + sums
        }
    };
    let widest = if in_registers {
        WIDEST_IN_REGISTERS
    } else {
        WIDEST_BROADCAST
    };
    (4..=widest)
        .min_by_key(|&c| cost(c))
        .expect("a non-empty range")
}

/// The `out.len()` signed radix-2^c digits of `x` (x below 2^(out.len()·c − 1)): each in
/// [−2^(c−1), 2^(c−1)), but the top one, which takes no carry out and may be 2^(c−1)
/// itself (its raw bits are below 2^(c−1), plus a carry in), whose bucket exists too.
fn signed_digits(x: &[u64; 4], c: usize, out: &mut [i16]) {
    let top = out.len() - 1;
    let mut carry = 0;
    for (w, digit) in out.iter_mut().enumerate() {
        (*digit, carry) = signed_digit(x, c, w, carry, w == top);
    }
}

/// Window w's signed digit of `x` with the carry in from window w − 1, and its carry
/// out ([`signed_digits`]; none out of the `top` window). The window's bits are cut from
/// the two words its offset starts in, as one 128-bit value.
#[inline(always)]
fn signed_digit(x: &[u64; 4], c: usize, w: usize, carry: i32, top: bool) -> (i16, i32) {
    let (half, full) = (1i32 << (c - 1), 1i32 << c);
    let (word, shift) = (w * c / 64, w * c % 64);
    let high = if word < 3 { x[word + 1] } else { 0 };
    let pair = u128::from(x[word]) | u128::from(high) << 64;
    let v = ((pair >> shift) as u64 & ((1 << c) - 1)) as i32 + carry;
    let carry = i32::from(v >= half && !top);
    debug_assert!(!top || v <= half, "the scalar needs more windows");
    ((v - carry * full) as i16, carry)
}

/// One bucket's sum as stored between the fill and the running sums: X, Y, Z, T, each on
/// a cache line of its own ([`Line`]), read back with whole-line loads.
type Row<F> = [Line<<F as LaneField>::Limbs>; 4];

/// The buckets of the windows summed together, one window's apart from another's
/// (`rows[lane][bucket]`: lane i of the running sums reads its window's).
type LaneRows<F> = [Vec<Row<F>>; MAX_LANES];

/// Lane i from `rows[i][at[i]]`.
#[inline(always)]
fn gather<F: LaneField>(rows: &LaneRows<F>, at: &[usize; MAX_LANES]) -> Extended<F> {
    Extended {
        x: gather_coordinate(rows, at, 0),
        y: gather_coordinate(rows, at, 1),
        z: gather_coordinate(rows, at, 2),
        t: gather_coordinate(rows, at, 3),
    }
}

/// Coordinate `k` of [`gather`]. (A function, not a closure: a closure is compiled
/// without the kernel's target features, and its field calls would stay out of line.)
#[inline(always)]
fn gather_coordinate<F: LaneField>(rows: &LaneRows<F>, at: &[usize; MAX_LANES], k: usize) -> F {
    let mut refs: [&Line<F::Limbs>; MAX_LANES] = [&rows[0][at[0]][k]; MAX_LANES];
    for (lane, r) in refs.iter_mut().enumerate().take(F::LANES).skip(1) {
        *r = &rows[lane][at[lane]][k];
    }
    F::from_lane_lines(&refs[..F::LANES])
}

/// Lane i into `rows[i][at[i]]`.
#[inline(always)]
fn scatter<F: LaneField>(p: &Extended<F>, rows: &mut LaneRows<F>, at: &[usize; MAX_LANES]) {
    for (k, coordinate) in [p.x, p.y, p.z, p.t].iter().enumerate() {
        coordinate.store_lane_lines(
            rows.iter_mut()
                .zip(at)
                .take(F::LANES)
                .enumerate()
                .map(|(lane, (rows, &row))| (lane, &mut rows[row][k])),
        );
    }
}

/// The point of `row` in every lane.
#[inline(always)]
fn broadcast<F: LaneField>(row: &AffineLimbs<F>) -> Affine<F> {
    Affine {
        y_plus_x: F::splat_limbs(&row[0]),
        y_minus_x: F::splat_limbs(&row[1]),
        xy2d: F::splat_limbs(&row[2]),
    }
}

/// Each lane's bucket for one term's digits in the windows `first..first + lanes`
/// (0 past the last window), and the lanes whose digit is negative.
#[inline(always)]
fn bucket_slots(digits: &[i16], first: usize, lanes: usize) -> ([usize; MAX_LANES], u8) {
    let mut at = [0usize; MAX_LANES];
    let mut negate = 0u8;
    for (lane, slot) in at.iter_mut().enumerate().take(lanes) {
        let d = digits.get(first + lane).copied().unwrap_or(0);
        negate |= u8::from(d < 0) << lane;
        *slot = d.unsigned_abs() as usize;
    }
    (at, negate)
}

/// Points beside their scalars (little-endian 64-bit limbs), one term per index.
pub(super) struct Terms<'a, F: LaneField> {
    pub points: &'a [AffineLimbs<F>],
    pub scalars: &'a [[u64; 4]],
}

/// A window's bucket list entry: term index above [`TERM_SHIFT`], bucket (|digit|)
/// above bit 0, the digit's sign in bit 0.
type Entry = u32;
const TERM_SHIFT: u32 = MAX_BITS as u32 + 1;
const BUCKET_MASK: u32 = (1 << MAX_BITS) - 1;

/// The terms with a nonzero digit in one window (`digits[i]`: term i's), as entries in
/// bucket order, into `list`; `starts[b]` where bucket b's begin (a counting sort).
fn sort_by_bucket(digits: &[i16], buckets: usize, starts: &mut Vec<usize>, list: &mut Vec<Entry>) {
    starts.clear();
    starts.resize(buckets + 1, 0);
    for &d in digits {
        starts[d.unsigned_abs() as usize] += 1;
    }
    // Bucket 0 (zero digits) is left out: its count becomes nothing.
    let mut at = 0;
    starts[0] = 0;
    for start in starts.iter_mut() {
        let count = *start;
        *start = at;
        at += count;
    }
    list.clear();
    list.resize(at, 0);
    let mut next = starts.clone();
    for (term, &d) in digits.iter().enumerate() {
        if d != 0 {
            let bucket = d.unsigned_abs() as usize;
            list[next[bucket]] =
                (term as u32) << TERM_SHIFT | (bucket as u32) << 1 | u32::from(d < 0);
            next[bucket] += 1;
        }
    }
}

/// Where each lane's part of a window's list begins (`bounds[l]..bounds[l + 1]`): near
/// equal parts that never split a bucket, so that each bucket is one lane's run and its
/// sum leaves that lane's accumulator whole.
fn lane_bounds(starts: &[usize], len: usize, lanes: usize) -> [usize; MAX_LANES + 1] {
    let mut bounds = [len; MAX_LANES + 1];
    bounds[0] = 0;
    for (lane, bound) in bounds.iter_mut().enumerate().take(lanes).skip(1) {
        let target = len * lane / lanes;
        // The first bucket boundary at or past the target.
        let b = starts.partition_point(|&s| s < target);
        *bound = starts.get(b).copied().unwrap_or(len);
    }
    bounds
}

/// Lane i from `rows[i]`.
#[inline(always)]
fn gather_affine<F: LaneField>(rows: &[&AffineLimbs<F>; MAX_LANES]) -> Affine<F> {
    Affine {
        y_plus_x: affine_coordinate(rows, 0),
        y_minus_x: affine_coordinate(rows, 1),
        xy2d: affine_coordinate(rows, 2),
    }
}

/// Coordinate `k` of [`gather_affine`] (a function, as [`gather_coordinate`]).
#[inline(always)]
fn affine_coordinate<F: LaneField>(rows: &[&AffineLimbs<F>; MAX_LANES], k: usize) -> F {
    let mut refs: [&F::Limbs; MAX_LANES] = [&rows[0][k]; MAX_LANES];
    for (lane, r) in refs.iter_mut().enumerate().take(F::LANES).skip(1) {
        *r = &rows[lane][k];
    }
    F::from_lane_limbs(&refs[..F::LANES])
}

/// Lanes `mask` of `p` into `rows[buckets[lane]]`, each coordinate transposed once. The
/// lanes' buckets rise with the lane (each lane's part of a list comes after the one
/// before it), so the rows are split off one after another.
#[inline(always)]
fn flush<F: LaneField>(p: &Extended<F>, mask: u8, buckets: &[u32; MAX_LANES], rows: &mut [Row<F>]) {
    let mut targets: [Option<(usize, &mut Row<F>)>; MAX_LANES] = Default::default();
    let (mut rest, mut first) = (rows, 0);
    for (target, lane) in targets.iter_mut().zip(lanes_in::<F>(mask)) {
        let bucket = buckets[lane] as usize;
        let (row, tail) = core::mem::take(&mut rest)[bucket - first..]
            .split_first_mut()
            .expect("a lane's bucket is past the one before");
        *target = Some((lane, row));
        (rest, first) = (tail, bucket + 1);
    }
    for (k, coordinate) in [p.x, p.y, p.z, p.t].iter().enumerate() {
        coordinate.store_lane_lines(
            targets
                .iter_mut()
                .map_while(|t| t.as_mut().map(|(lane, row)| (*lane, &mut row[k]))),
        );
    }
}

/// The lanes' parts of a window's list side by side, step by step
/// (`out[step·lanes + lane]`), each padded to the longest with `idle`'s term (the
/// identity) at the part's last bucket: its lane adds the identity and begins no bucket.
fn interleave(
    list: &[Entry],
    bounds: &[usize; MAX_LANES + 1],
    lanes: usize,
    idle: u32,
    out: &mut Vec<Entry>,
) {
    let steps = (0..lanes)
        .map(|l| bounds[l + 1] - bounds[l])
        .max()
        .unwrap_or(0);
    out.clear();
    out.resize(steps * lanes, 0);
    for lane in 0..lanes {
        let part = &list[bounds[lane]..bounds[lane + 1]];
        let last_bucket = part.last().map_or(0, |e| e & (BUCKET_MASK << 1));
        for (step, slot) in out.iter_mut().skip(lane).step_by(lanes).enumerate() {
            *slot = part
                .get(step)
                .copied()
                .unwrap_or(idle << TERM_SHIFT | last_bucket);
        }
    }
}

/// Each bucket's sum for one window into `rows` (a bucket without points keeps its
/// row): lane l adds the points of its part of the window's list (`steps`, as
/// [`interleave`] lays it out) into an accumulator that stays in registers, one bucket
/// after another, and stores it when its bucket ends. `points[term]` is a term's row.
#[inline(always)]
fn fill_window<F: LaneField>(steps: &[Entry], points: &[&AffineLimbs<F>], rows: &mut [Row<F>]) {
    let lanes = F::LANES;
    let mut acc = Extended::<F>::identity();
    let mut current = [0u32; MAX_LANES];
    let mut started = 0u8;
    for step in steps.chunks_exact(lanes) {
        let mut addend = [points[0]; MAX_LANES];
        let (mut negate, mut fresh) = (0u8, 0u8);
        let mut next = current;
        for (lane, &entry) in step.iter().enumerate() {
            let bucket = entry >> 1 & BUCKET_MASK;
            negate |= ((entry & 1) as u8) << lane;
            fresh |= u8::from(bucket != current[lane]) << lane;
            next[lane] = bucket;
            addend[lane] = points[(entry >> TERM_SHIFT) as usize];
        }
        if fresh != 0 {
            if fresh & started != 0 {
                flush(&acc, fresh & started, &current, rows);
            }
            let identity = Extended::<F>::identity();
            acc = Extended {
                x: F::select(fresh, &identity.x, &acc.x),
                y: F::select(fresh, &identity.y, &acc.y),
                z: F::select(fresh, &identity.z, &acc.z),
                t: F::select(fresh, &identity.t, &acc.t),
            };
            started |= fresh;
        }
        acc.add_assign_affine_point(&gather_affine(&addend), negate);
        current = next;
    }
    if started != 0 {
        flush(&acc, started, &current, rows);
    }
}

/// Whether Σ scalars[i]·points[i] over `full` and `short` has small order
/// ([8]·Σ = O). `full`'s scalars are below 2^253, `short`'s below 2^127. Two slices
/// rather than one, so that a caller passes rows it already holds (the batch
/// equation's −Rᵢ and zᵢ) without copying them behind its own.
#[inline(always)]
pub(super) fn sum_has_small_order<F: LaneField>(
    c: &Constants<F>,
    full: Terms<'_, F>,
    short: Terms<'_, F>,
) -> bool {
    debug_assert_eq!(full.points.len(), full.scalars.len());
    debug_assert_eq!(short.points.len(), short.scalars.len());
    let lanes = F::LANES;
    let (n_full, n_short) = (full.points.len(), short.points.len());
    let n = n_full + n_short;
    assert!(
        n < 1 << (32 - TERM_SHIFT),
        "too many terms for a bucket entry"
    );
    let bits = window_bits(n_full, n_short, lanes, F::BUCKETS_IN_REGISTERS);
    let (w_full, w_short) = (windows(FULL_BITS, bits), windows(SHORT_BITS, bits));
    // Term i's digit in window w (full terms first): in registers at digits[w·n + i],
    // a window at a time (each window's list sorted from one run, written in order);
    // broadcast at digits[i·w_full + w], each point's windows side by side. A short
    // scalar's windows above w_short stay zero, and its terms are left out of those
    // windows.
    let mut digits = vec![0i16; w_full * n];
    let scalars = || full.scalars.iter().chain(short.scalars);
    // The terms with digits in window w: above the short scalars' top window, the full
    // ones only.
    let terms_in = |w: usize| if w < w_short { n } else { n_full };
    if F::BUCKETS_IN_REGISTERS {
        let mut carries = vec![0i32; n];
        for (w, row) in digits.chunks_mut(n).enumerate() {
            let top = |i: usize| w + 1 == if i < n_full { w_full } else { w_short };
            for (i, (scalar, (digit, carry))) in scalars()
                .zip(row.iter_mut().zip(&mut carries))
                .enumerate()
                .take(terms_in(w))
            {
                (*digit, *carry) = signed_digit(scalar, bits, w, *carry, top(i));
            }
        }
    } else {
        for (scalar, (i, row)) in scalars().zip(digits.chunks_mut(w_full).enumerate()) {
            signed_digits(
                scalar,
                bits,
                &mut row[..if i < n_full { w_full } else { w_short }],
            );
        }
    }

    let identity = Extended::<F>::identity();
    let identity_row: Row<F> =
        [identity.x, identity.y, identity.z, identity.t].map(|f| Line(f.lane_limbs(0)));
    let identity_affine: AffineLimbs<F> = [
        F::one().lane_limbs(0),
        F::one().lane_limbs(0),
        F::zero().lane_limbs(0),
    ];
    // Every term's row, and the identity's after them (term n: an idle lane's).
    let points: Vec<&AffineLimbs<F>> = full
        .points
        .iter()
        .chain(short.points)
        .chain([&identity_affine])
        .collect();
    // Lane i's bucket d is row d of `buckets[i]` while its window's buckets are summed
    // (bucket 0 is never read).
    let buckets_per_lane = (1 << (bits - 1)) + 1;
    let mut buckets: LaneRows<F> = core::array::from_fn(|lane| {
        if lane < lanes {
            vec![identity_row; buckets_per_lane]
        } else {
            Vec::new()
        }
    });
    let (mut starts, mut list, mut steps) = (Vec::new(), Vec::new(), Vec::new());
    let vectors = w_full.div_ceil(lanes);
    // Window g·lanes + i's sum is lane i of `window_sums[g]`.
    let mut window_sums = Vec::with_capacity(vectors);
    for g in 0..vectors {
        let first = g * lanes;
        for lane_buckets in &mut buckets[..lanes] {
            lane_buckets.fill(identity_row);
        }
        if F::BUCKETS_IN_REGISTERS {
            for (slot, lane_buckets) in buckets[..lanes].iter_mut().enumerate() {
                let w = first + slot;
                if w >= w_full {
                    break;
                }
                sort_by_bucket(
                    &digits[w * n..w * n + terms_in(w)],
                    buckets_per_lane - 1,
                    &mut starts,
                    &mut list,
                );
                let bounds = lane_bounds(&starts, list.len(), lanes);
                interleave(&list, &bounds, lanes, n as u32, &mut steps);
                fill_window::<F>(&steps, &points, lane_buckets);
            }
        } else {
            for term in 0..terms_in(first) {
                let row = &digits[term * w_full..(term + 1) * w_full];
                let (at, negate) = bucket_slots(row, first, lanes);
                let mut bucket = gather::<F>(&buckets, &at);
                bucket.add_assign_affine_point(&broadcast(points[term]), negate);
                scatter(&bucket, &mut buckets, &at);
            }
        }
        // Σ d·bucket_d = Σ over d of (the buckets from d up), top down.
        let mut running = identity;
        let mut total = identity;
        for d in (1..buckets_per_lane).rev() {
            let bucket = gather::<F>(&buckets, &[d; MAX_LANES]);
            running = running.add(&bucket.to_cached(c)).to_extended();
            total = total.add(&running.to_cached(c)).to_extended();
        }
        window_sums.push(total);
    }
    if F::CHAIN_ON_PORTABLE {
        let windows: Vec<Extended<Fe1>> = window_sums
            .iter()
            .flat_map(|sums| one_lane_points(sums).into_iter().take(lanes))
            .collect();
        horner(&Constants::new(), bits, &windows[..w_full], |p| *p)
    } else {
        let rows: Vec<Row<F>> = window_sums
            .iter()
            .flat_map(|sums| {
                let [x, y, z, t] = [sums.x, sums.y, sums.z, sums.t].map(|f| f.to_lane_limbs());
                (0..lanes).map(move |i| [x[i], y[i], z[i], t[i]].map(Line))
            })
            .collect();
        horner(c, bits, &rows[..w_full], |row| Extended {
            x: F::splat_limbs(&row[0].0),
            y: F::splat_limbs(&row[1].0),
            z: F::splat_limbs(&row[2].0),
            t: F::splat_limbs(&row[3].0),
        })
    }
}

/// Whether Σ_w 2^(bits·w)·window_w has small order, by Horner's rule from the top
/// window, each window made a point of `G` by `point`.
#[inline(always)]
fn horner<G: LaneField, W>(
    c: &Constants<G>,
    bits: usize,
    windows: &[W],
    point: impl Fn(&W) -> Extended<G>,
) -> bool {
    let mut acc = Extended::<G>::identity();
    for window in windows.iter().rev() {
        let mut p = acc.to_projective();
        for _ in 1..bits {
            p = p.double().to_projective();
        }
        acc = p.double().to_extended();
        acc = acc.add(&point(window).to_cached(c)).to_extended();
    }
    acc.small_order_mask() & 1 == 1
}

/// Each lane of `p` as a point of the portable field (through its canonical bytes).
#[inline(always)]
fn one_lane_points<F: LaneField>(p: &Extended<F>) -> [Extended<Fe1>; MAX_LANES] {
    let mut bytes = [[[0u8; 32]; MAX_LANES]; 4];
    for (coordinate, out) in [p.x, p.y, p.z, p.t].iter().zip(&mut bytes) {
        coordinate.to_bytes(&mut out[..F::LANES]);
    }
    let [x, y, z, t] = bytes;
    core::array::from_fn(|lane| Extended {
        x: Fe1::from_bytes(&x[lane..=lane]),
        y: Fe1::from_bytes(&y[lane..=lane]),
        z: Fe1::from_bytes(&z[lane..=lane]),
        t: Fe1::from_bytes(&t[lane..=lane]),
    })
}

#[cfg(test)]
mod tests {
    use super::super::point::{decompress_many, Affine};
    use super::*;
    use curve25519_dalek::constants::{ED25519_BASEPOINT_POINT as B, EIGHT_TORSION};
    use curve25519_dalek::{EdwardsPoint, Scalar};
    use num_bigint::BigInt;
    use rand::{RngCore, SeedableRng};
    use rand_chacha::ChaCha20Rng;

    fn value(digits: &[i16], c: usize) -> BigInt {
        digits
            .iter()
            .rev()
            .fold(BigInt::from(0), |acc, &d| (acc << c) + BigInt::from(d))
    }

    fn big(x: &[u64; 4]) -> BigInt {
        BigInt::from_bytes_le(num_bigint::Sign::Plus, &x.map(u64::to_le_bytes).concat())
    }

    /// Digits recompose to the scalar, each below 2^(c−1) in size but the top one, which
    /// may reach it: for the largest short scalars (2^127 − 1, whose carry reaches the
    /// top window at c = 4 and 8) and the largest full one (L − 1), at every width.
    #[test]
    fn signed_digits_recompose_and_stay_in_range() {
        let l_minus_1 = [
            0x5812_631a_5cf5_d3ec,
            0x14de_f9de_a2f7_9cd6,
            0,
            0x1000_0000_0000_0000,
        ];
        for c in 4..=10 {
            for (x, bits) in [
                ([u64::MAX, u64::MAX >> 1, 0, 0], SHORT_BITS),
                (
                    [0x1234_5678_9abc_def0, 0x7edc_ba98_7654_3210, 0, 0],
                    SHORT_BITS,
                ),
                ([1, 0, 0, 0], SHORT_BITS),
                ([0; 4], SHORT_BITS),
                (l_minus_1, FULL_BITS),
                ([u64::MAX, u64::MAX, u64::MAX, u64::MAX >> 3], FULL_BITS),
            ] {
                let mut digits = vec![0i16; windows(bits, c)];
                signed_digits(&x, c, &mut digits);
                assert_eq!(value(&digits, c), big(&x), "c = {c}");
                let half = 1i16 << (c - 1);
                let (top, rest) = digits.split_last().unwrap();
                assert!(rest.iter().all(|&d| (-half..half).contains(&d)));
                assert!((-half..=half).contains(top), "c = {c}: top digit {top}");
            }
        }
    }

    /// The rows of dalek points, decoded on `F`'s lanes as the batch path decodes them.
    fn rows<F: LaneField>(points: &[EdwardsPoint]) -> Vec<AffineLimbs<F>> {
        let c = Constants::<F>::new();
        points
            .iter()
            .map(|p| {
                let encodings = [p.compress().to_bytes(); MAX_LANES];
                let [(q, ok)] = decompress_many::<F, 1>(&c, &encodings[..F::LANES]);
                assert_eq!(ok & 1, 1);
                Affine {
                    y_plus_x: q.y.add(&q.x),
                    y_minus_x: q.y.sub(&q.x),
                    xy2d: q.t.mul(&c.d2),
                }
                .lanes()[0]
            })
            .collect()
    }

    fn limbs(s: &Scalar) -> [u64; 4] {
        core::array::from_fn(|i| {
            u64::from_le_bytes(s.to_bytes()[8 * i..8 * i + 8].try_into().unwrap())
        })
    }

    /// Against curve25519-dalek: Σ nᵢPᵢ + Q has small order exactly when Q is −Σ nᵢPᵢ
    /// plus a torsion point, for points with torsion components and scalars of both sizes.
    /// With `repeated`, every full scalar is one value and every short one another: each
    /// window's points all fall in one bucket, one lane's part, the others idle.
    fn matches_dalek<F: LaneField>(repeated: bool) {
        let c = Constants::<F>::new();
        let mut rng = ChaCha20Rng::seed_from_u64(5);
        let mut scalar = |bits: u32| {
            let mut wide = [0u8; 64];
            rng.fill_bytes(&mut wide);
            let s = Scalar::from_bytes_mod_order_wide(&wide);
            if bits == 127 {
                let mut b = [0u8; 32];
                b[..16].copy_from_slice(&s.to_bytes()[..16]);
                b[15] &= 0x7f;
                Scalar::from_bytes_mod_order(b)
            } else {
                s
            }
        };
        // Window widths 4 (2 + 60), 6 (150 + 300) and 8 (600 + 600) among them.
        for (full, short) in [(1, 0), (3, 2), (2, 60), (20, 40), (150, 300), (600, 600)] {
            let mut points = Vec::new();
            let mut scalars = Vec::new();
            let (one_full, one_short) = (scalar(253), scalar(127));
            for i in 0..full + short {
                let p = B * scalar(253) + EIGHT_TORSION[i % 8];
                points.push(p);
                scalars.push(match (repeated, i < full) {
                    (true, true) => one_full,
                    (true, false) => one_short,
                    (false, is_full) => scalar(if is_full { 253 } else { 127 }),
                });
            }
            let sum: EdwardsPoint = points.iter().zip(&scalars).map(|(p, n)| p * n).sum();
            for (q, holds) in [
                (-sum, true),
                (-sum + EIGHT_TORSION[5], true),
                (-sum + B, false),
            ] {
                let mut all = vec![q];
                all.extend_from_slice(&points);
                let mut ns = vec![[1, 0, 0, 0]];
                ns.extend(scalars.iter().map(limbs));
                let (all, at) = (rows::<F>(&all), full + 1);
                let got = sum_has_small_order(
                    &c,
                    Terms {
                        points: &all[..at],
                        scalars: &ns[..at],
                    },
                    Terms {
                        points: &all[at..],
                        scalars: &ns[at..],
                    },
                );
                assert_eq!(got, holds, "{} lanes, {full} + {short} points", F::LANES);
            }
        }
    }

    #[test]
    fn sums_match_dalek_on_every_field() {
        for repeated in [false, true] {
            matches_dalek::<crate::ed25519::field::portable::Fe1>(repeated);
            #[cfg(target_arch = "x86_64")]
            {
                if crate::ed25519::lanes::avx2::supported() {
                    matches_dalek::<crate::ed25519::field::avx2::Fe4>(repeated);
                }
                if crate::ed25519::lanes::avx512::supported() {
                    matches_dalek::<crate::ed25519::field::avx512::Fe8>(repeated);
                }
            }
        }
    }

    /// A window's list is in bucket order with each entry's term, bucket and sign; the
    /// lanes' parts cover it, in order, each starting at a bucket boundary, and differ
    /// in length by at most the largest bucket.
    #[test]
    fn lists_sort_by_bucket_and_parts_keep_buckets_whole() {
        let mut rng = ChaCha20Rng::seed_from_u64(9);
        let (mut starts, mut list) = (Vec::new(), Vec::new());
        for (n, half) in [
            (1usize, 8usize),
            (129, 8),
            (2049, 128),
            (8193, 256),
            (40, 2),
        ] {
            let digits: Vec<i16> = (0..n)
                .map(|_| (rng.next_u32() % (2 * half as u32 + 1)) as i16 - half as i16)
                .collect();
            sort_by_bucket(&digits, half, &mut starts, &mut list);
            assert_eq!(list.len(), digits.iter().filter(|&&d| d != 0).count());
            let mut seen = vec![false; n];
            for (at, &e) in list.iter().enumerate() {
                let (term, bucket) = ((e >> TERM_SHIFT) as usize, (e >> 1 & BUCKET_MASK) as usize);
                let d = digits[term];
                assert_eq!((bucket, e & 1 == 1), (d.unsigned_abs() as usize, d < 0));
                assert!(
                    (starts[bucket]..starts.get(bucket + 1).copied().unwrap_or(list.len()))
                        .contains(&at)
                );
                assert!(!std::mem::replace(&mut seen[term], true));
            }
            let largest = (1..=half)
                .map(|b| starts.get(b + 1).copied().unwrap_or(list.len()) - starts[b])
                .max()
                .unwrap();
            for lanes in [1, 4, 8] {
                let bounds = lane_bounds(&starts, list.len(), lanes);
                assert_eq!((bounds[0], bounds[lanes]), (0, list.len()));
                for l in 0..lanes {
                    assert!(bounds[l] <= bounds[l + 1]);
                    assert!(bounds[l] == list.len() || starts.contains(&bounds[l]));
                    let part = bounds[l + 1] - bounds[l];
                    assert!(
                        part <= list.len().div_ceil(lanes) + largest,
                        "{n} terms, {lanes} lanes"
                    );
                }
                // Side by side: lane l's column is its part, then the idle term at the
                // part's last bucket.
                let mut steps = Vec::new();
                interleave(&list, &bounds, lanes, n as u32, &mut steps);
                for l in 0..lanes {
                    let part = &list[bounds[l]..bounds[l + 1]];
                    let column: Vec<Entry> = steps.iter().skip(l).step_by(lanes).copied().collect();
                    assert_eq!(&column[..part.len()], part);
                    let last = part.last().map_or(0, |e| e & (BUCKET_MASK << 1));
                    assert!(column[part.len()..]
                        .iter()
                        .all(|&e| e == (n as u32) << TERM_SHIFT | last));
                }
            }
        }
    }

    #[test]
    fn window_width_grows_with_the_batch() {
        for in_registers in [false, true] {
            let small = window_bits(64, 64, 8, in_registers);
            let large = window_bits(4096, 4096, 8, in_registers);
            assert!(small < large, "{small} vs {large}");
        }
    }
}
