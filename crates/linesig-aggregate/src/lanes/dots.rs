//! The opening's large products over lanes (Plonky3's `rowwise_packed_dot_product`
//! and the column sums of its barycentric interpolation, and their counterparts over
//! the trace's coefficients):
//! - [`row_dots`]: Σ_c α^c·M[r][c] for every row r (of a held extension, or of the
//!   trace's coefficients);
//! - [`column_dots`]: Σ_r w_r·M[r][c] for every column c (a held matrix's low rows
//!   with barycentric weights, or the trace's coefficients with a point's powers);
//! - [`points_column_dots`]: the same with base-field weights, [`POINTS`] sets at once
//!   (the queried rows of the trace's extension, from its coefficients).
//!
//! M is in the base field and α^c, w_r in the degree-4 extension: each product is four
//! base products, one per coordinate, sixteen columns (rows) per lane operation.

use super::lanes16::{challenge, challenge_words, element, load_columns, monty_words, WIDTH};
use super::ProverPath;
use crate::field::Challenge;
use linesig::leansig::internals::lanes::Portable;
use linesig::leansig::internals::lanes::{add_mod, KoalaLanes, P};
use p3_field::PrimeCharacteristicRing;
use p3_koala_bear::KoalaBear;
use rayon::prelude::*;

/// Coordinates of an extension element.
const D: usize = 4;
/// Rows per parallel task.
const ROWS_PER_TASK: usize = 256;

/// The four coordinates of each of `values` as Montgomery words, coordinate-major and
/// zero-padded to whole lanes: `[d][c]` at `d * padded + c`.
fn coordinate_words(values: &[Challenge], padded: usize) -> Vec<u32> {
    let mut out = vec![0; D * padded];
    for (c, v) in values.iter().enumerate() {
        for (d, x) in challenge_words(v).into_iter().enumerate() {
            out[d * padded + c] = x;
        }
    }
    out
}

/// Σ_k lanes[k] mod p, as a Montgomery word (a sum of Montgomery forms is the form of
/// the sum).
fn lane_sum(lanes: &[u32]) -> u32 {
    (lanes.iter().map(|&x| x as u64).sum::<u64>() % P as u64) as u32
}

/// Σ_c powers[c]·row[c] for every row of the row-major `values` (`width` columns);
/// `powers` has at least `width` elements.
pub(crate) fn row_dots(
    path: ProverPath,
    values: &[KoalaBear],
    width: usize,
    powers: &[Challenge],
) -> Vec<Challenge> {
    assert!(powers.len() >= width && values.len().is_multiple_of(width));
    let padded = width.next_multiple_of(WIDTH);
    let powers = coordinate_words(&powers[..width], padded);
    let mut out = vec![Challenge::ZERO; values.len() / width];
    let kernel = match path {
        #[cfg(target_arch = "x86_64")]
        ProverPath::Avx512 => super::avx512::row_dots,
        #[cfg(target_arch = "x86_64")]
        ProverPath::Avx2 => super::avx2::row_dots,
        _ => row_dots_lanes::<Portable<WIDTH>>,
    };
    out.par_chunks_mut(ROWS_PER_TASK)
        .zip(values.par_chunks(ROWS_PER_TASK * width))
        .for_each(|(out, rows)| kernel(monty_words(rows), width, &powers, out));
    out
}

/// Σ_r weights[r]·row_r[c] for every column c of the row-major `values` (`width`
/// columns, `weights.len()` rows).
pub(crate) fn column_dots(
    path: ProverPath,
    values: &[KoalaBear],
    width: usize,
    weights: &[Challenge],
) -> Vec<Challenge> {
    let kernel: ColumnDots<D> = match path {
        #[cfg(target_arch = "x86_64")]
        ProverPath::Avx512 => super::avx512::column_dots,
        #[cfg(target_arch = "x86_64")]
        ProverPath::Avx2 => super::avx2::column_dots,
        _ => column_dots_lanes::<Portable<WIDTH>, D>,
    };
    sum_columns(kernel, values, width, weights, challenge_words)
        .into_iter()
        .map(challenge)
        .collect()
}

/// Weight sets [`points_column_dots`] takes at once: a proof's queries.
pub(crate) const POINTS: usize = crate::field::NUM_QUERIES;

/// Σ_r weights[r][j]·row_r[c] for every column c and each of the [`POINTS`] weight sets
/// j, in the base field (the extension's rows at [`POINTS`] points, from the
/// coefficients): each row is read once for all of them, and each of its lane vectors
/// multiplied into [`POINTS`] accumulators held in registers.
pub(crate) fn points_column_dots(
    path: ProverPath,
    values: &[KoalaBear],
    width: usize,
    weights: &[[KoalaBear; POINTS]],
) -> Vec<[KoalaBear; POINTS]> {
    let kernel: ColumnDots<POINTS> = match path {
        #[cfg(target_arch = "x86_64")]
        ProverPath::Avx512 => super::avx512::points_column_dots,
        #[cfg(target_arch = "x86_64")]
        ProverPath::Avx2 => super::avx2::points_column_dots,
        _ => column_dots_lanes::<Portable<WIDTH>, POINTS>,
    };
    sum_columns(kernel, values, width, weights, |w| {
        monty_words(w).try_into().expect("POINTS words")
    })
    .into_iter()
    .map(|words| words.map(element))
    .collect()
}

/// A column-sum kernel over weights of `E` coordinates: (rows, width, weights, sums).
type ColumnDots<const E: usize> = fn(&[u32], usize, &[[u32; E]], &mut [u32]);

/// The column sums of `values` with `weights` (each as `E` Montgomery words by
/// `words`), rows in parallel tasks, per column its `E` coordinates.
fn sum_columns<W: Sync, const E: usize>(
    kernel: ColumnDots<E>,
    values: &[KoalaBear],
    width: usize,
    weights: &[W],
    words: impl Fn(&W) -> [u32; E] + Sync,
) -> Vec<[u32; E]> {
    assert_eq!(values.len(), weights.len() * width);
    let padded = width.next_multiple_of(WIDTH);
    let sums = values
        .par_chunks(ROWS_PER_TASK * width)
        .zip(weights.par_chunks(ROWS_PER_TASK))
        .map(|(rows, weights)| {
            let weights: Vec<[u32; E]> = weights.iter().map(&words).collect();
            let mut sums = vec![0u32; E * padded];
            kernel(monty_words(rows), width, &weights, &mut sums);
            sums
        })
        .reduce_with(|mut a, b| {
            for (a, b) in a.iter_mut().zip(b) {
                *a = add_mod(*a, b);
            }
            a
        })
        .expect("at least one row");
    (0..width)
        .map(|c| core::array::from_fn(|d| sums[d * padded + c]))
        .collect()
}

/// [`row_dots`] of whole rows `rows` (Montgomery words) into `out`, one row at a time:
/// four accumulators of sixteen columns, summed across lanes at the end of the row.
#[inline(always)]
pub(super) fn row_dots_lanes<L: KoalaLanes>(
    rows: &[u32],
    width: usize,
    powers: &[u32],
    out: &mut [Challenge],
) {
    // Plain loops, no closures: a closure would not inherit the kernel's features.
    let padded = powers.len() / D;
    for (row, out) in rows.chunks_exact(width).zip(out) {
        let mut acc = [L::splat(0); D];
        for at in (0..width).step_by(WIDTH) {
            let x: L = load_columns(row, at);
            for (d, acc) in acc.iter_mut().enumerate() {
                *acc = acc.add(x.mul(L::load(&powers[d * padded + at..])));
            }
        }
        let mut words = [0u32; D];
        for (word, acc) in words.iter_mut().zip(acc) {
            let mut lanes = [0u32; WIDTH];
            acc.store(&mut lanes);
            *word = lane_sum(&lanes);
        }
        *out = challenge(words);
    }
}

/// [`column_dots`] (E = 4) or [`points_column_dots`] (E = [`POINTS`]) of `rows`
/// (Montgomery words) added into `sums` (`[d][c]`, padded).
#[inline(always)]
pub(super) fn column_dots_lanes<L: KoalaLanes, const E: usize>(
    rows: &[u32],
    width: usize,
    weights: &[[u32; E]],
    sums: &mut [u32],
) {
    let padded = sums.len() / E;
    for at in (0..padded).step_by(WIDTH) {
        let mut acc = [L::splat(0); E];
        for (row, weight) in rows.chunks_exact(width).zip(weights) {
            let x: L = load_columns(row, at);
            for (acc, &w) in acc.iter_mut().zip(weight) {
                *acc = acc.add(x.mul(L::splat(w)));
            }
        }
        for (d, acc) in acc.iter().enumerate() {
            let sum = &mut sums[d * padded + at..d * padded + at + WIDTH];
            let before = L::load(sum);
            before.add(*acc).store(sum);
        }
    }
}
