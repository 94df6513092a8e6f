//! The double-scalar ladders over the lanes: the steps (inline or out of line, a
//! backend's choice: [`LadderSteps`]), the full-size Horner loop and its finish (the
//! unit's shared inversion for `Strict`, the cofactored check), and the half-size
//! [d]R + [c]A + [e]B loop.

use super::point::{
    batch_invert, compress_with_inverse, decompress_many, AddendRows, AffineLimbs, Constants,
    Extended, NarrowRow,
};
#[cfg(any(test, feature = "profile"))]
use super::scalar::lane_digits;
use super::scalar::LaneDigits;
use super::tables::{BaseRadix, BaseTables, Table};
use super::{scalar, set_verdicts, HalfJob, Job, LaneJob};
use crate::ed25519::field::{LaneField, MAX_LANES};
use crate::ed25519::policy::Rules;
use crate::verdict::{Reject, Verdict};

/// Lane i's row |digit i of window `at`| of `table(i)`, and the lanes whose digit is
/// negative. A plain loop over one contiguous row of digits: this runs before every
/// addition, so it is kept to a few scalar instructions per lane.
#[inline(always)]
pub(super) fn entries<'t, F: LaneField, R, const N: usize>(
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
    /// As [`LadderSteps::add_affine`] for narrow rows (a hot key's table), `d_half`
    /// = d/2 in every lane.
    fn add_narrow(
        self,
        acc: &mut Extended<F>,
        rows: &[&NarrowRow],
        negate: u8,
        with_t: bool,
        d_half: &F,
    );
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

    #[inline(always)]
    fn add_narrow(
        self,
        acc: &mut Extended<F>,
        rows: &[&NarrowRow],
        negate: u8,
        with_t: bool,
        d_half: &F,
    ) {
        acc.add_assign_narrow(rows, negate, with_t, d_half)
    }
}

#[cfg(any(test, feature = "profile"))]
/// [S]B + [k](−A) for up to `F::LANES` jobs at once (the full-size plan).
#[inline(always)]
pub(super) fn sum_chunk<F: LaneField>(
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
/// last job), window-major.
#[inline(always)]
pub(super) fn signed_lane_digits<F: LaneField>(
    chunk: &[HalfJob],
    scalar: impl Fn(&HalfJob) -> (&[u8; 32], bool),
) -> LaneDigits<64> {
    scalar::signed_lane_digits::<F, 4, 64>(|lane| scalar(&chunk[lane.min(chunk.len() - 1)]))
}

/// Windows the loop needs for these digits: one past the highest window with a
/// nonzero digit, and at least as many as e's low digits reach (31 in either radix).
#[inline(always)]
pub(super) fn windows_needed(radix: BaseRadix, digits: &[&LaneDigits<64>]) -> usize {
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
///
/// Out of line, one function per backend, compiled without its target features: the
/// IFMA point steps run in their own kernels either way, and AVX2's inlined steps call
/// its field products, which LLVM keeps out of line there too. Inlined into the unit's
/// kernel, the AVX2 loop ran 8–10 % slower on Zen 5 (more of its elements spilled);
/// the IFMA loop ran no faster (docs/results.md).
#[inline(never)]
pub(super) fn half_sum_chunk<F: LaneField>(
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
pub(super) fn finish<F: LaneField>(
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
pub(super) fn decode_r<F: LaneField, J: LaneJob, const N: usize>(
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
pub(super) fn check_cofactored<F: LaneField>(
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
