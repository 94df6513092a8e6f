//! The quotient Q(x) = Σ α^(K−1−i)·C_i(x) / Z_H(x) over lanes: the statement's
//! constraints in `eval`'s order, constraint i weighted by α^(K−1−i) (Plonky3's
//! `ConstraintLayout::decompose_alpha`, taken from it), sixteen points at a time.

use super::lanes16::{monty_words, WIDTH};
use super::{Lanes16, ProverPath};
use crate::field::Challenge;
use crate::statement::AggregateAir;
use linesig::leansig::internals::lanes::KoalaLanes;
use p3_air::{AirBuilder, RowWindow};
use p3_commit::{LagrangeSelectors, PolynomialSpace};
use p3_field::coset::TwoAdicMultiplicativeCoset;
use p3_field::{BasedVectorSpace, PrimeCharacteristicRing};
use p3_koala_bear::KoalaBear;
use p3_matrix::Matrix;

type F = KoalaBear;
type Domain = TwoAdicMultiplicativeCoset<F>;

/// What one evaluation needs besides the point: the LDEs on the quotient domain, the
/// selectors there, and α's powers per constraint.
pub(crate) struct QuotientJob<'a, M> {
    air: &'a AggregateAir,
    main: &'a M,
    preprocessed: &'a M,
    selectors: LagrangeSelectors<Vec<F>>,
    /// The row of the next point: the quotient domain is 2^k times the trace's.
    next_step: usize,
    /// Constraint i's weight α^(K−1−i) as its four basis coordinates, Montgomery form.
    alpha_powers: Vec<[u32; 4]>,
}

/// The quotient Q(x) = Σ α^(K−1−i)·C_i(x) / Z_H(x) at every point of `quotient_domain`,
/// as `p3_uni_stark::quotient_values` returns it, on `path`'s lanes (which this CPU must
/// run); `None` for [`ProverPath::Plonky3`], which has no lane kernel here (the prover
/// calls Plonky3's own evaluation for it).
pub(crate) fn quotient_values<M: Matrix<F> + Sync>(
    path: ProverPath,
    air: &AggregateAir,
    trace_domain: Domain,
    quotient_domain: Domain,
    main: &M,
    preprocessed: &M,
    alpha: Challenge,
) -> Option<Vec<Challenge>> {
    let run = |evaluate: fn(&QuotientJob<'_, M>, usize, &mut [Challenge])| {
        let constraint_layout = &air.constraint_shape().layout;
        assert!(
            constraint_layout.ext_indices.is_empty(),
            "the statement has base-field constraints only"
        );
        let (base, _) = constraint_layout.decompose_alpha::<F, Challenge>(alpha);
        let alpha_powers = (0..base[0].len())
            .map(|i| core::array::from_fn(|d| monty_words(&base[d][i..i + 1])[0]))
            .collect();
        let job = QuotientJob {
            air,
            main,
            preprocessed,
            selectors: trace_domain.selectors_on_coset(quotient_domain),
            next_step: quotient_domain.size() / trace_domain.size(),
            alpha_powers,
        };
        evaluate_all(&job, quotient_domain.size(), evaluate)
    };
    match path {
        #[cfg(target_arch = "x86_64")]
        ProverPath::Avx512 => Some(run(super::avx512::quotient)),
        #[cfg(target_arch = "x86_64")]
        ProverPath::Avx2 => Some(run(super::avx2::quotient)),
        _ => None,
    }
}

/// Points per task: enough for a task to amortise its buffers, few enough to balance.
const POINTS_PER_TASK: usize = 16 * WIDTH;

/// Every point, tasks in parallel, `evaluate` taking `WIDTH` points at a time.
fn evaluate_all<M: Matrix<F> + Sync>(
    job: &QuotientJob<'_, M>,
    size: usize,
    evaluate: fn(&QuotientJob<'_, M>, usize, &mut [Challenge]),
) -> Vec<Challenge> {
    use rayon::prelude::*;
    assert!(
        size.is_multiple_of(WIDTH),
        "a quotient domain of at least {WIDTH} points"
    );
    let mut out = vec![Challenge::ZERO; size];
    out.par_chunks_mut(POINTS_PER_TASK)
        .enumerate()
        .for_each(|(task, out)| evaluate(job, task * POINTS_PER_TASK, out));
    out
}

/// The quotient at `out.len()` points from `start`, `WIDTH` at a time, over lanes `L`:
/// the body of each ISA path's kernel, inlined into it (hence `inline(always)` here and
/// along the AIR's `eval`).
#[inline(always)]
pub(super) fn evaluate_lanes<L: KoalaLanes, M: Matrix<F>>(
    job: &QuotientJob<'_, M>,
    start: usize,
    out: &mut [Challenge],
) {
    let (main_width, pre_width) = (job.main.width(), job.preprocessed.width());
    let height = job.main.height();
    let mut main = vec![Lanes16::<L>::ZERO; 2 * main_width];
    let mut pre = vec![Lanes16::<L>::ZERO; 2 * pre_width];
    for (chunk, out) in out.chunks_mut(WIDTH).enumerate() {
        let first = start + chunk * WIDTH;
        transpose_rows(job.main, first, job.next_step, height, &mut main);
        transpose_rows(job.preprocessed, first, job.next_step, height, &mut pre);
        let selector =
            |values: &[F]| Lanes16::<L>::from_words(monty_words(&values[first..first + WIDTH]));
        let mut folder = LaneFolder {
            main: RowWindow::from_two_rows(&main[..main_width], &main[main_width..]),
            preprocessed: RowWindow::from_two_rows(&pre[..pre_width], &pre[pre_width..]),
            is_first_row: selector(&job.selectors.is_first_row),
            is_last_row: selector(&job.selectors.is_last_row),
            is_transition: selector(&job.selectors.is_transition),
            alpha_powers: &job.alpha_powers,
            accumulator: [Lanes16::ZERO; 4],
            index: 0,
        };
        p3_air::Air::eval(job.air, &mut folder);
        assert_eq!(
            folder.index,
            job.alpha_powers.len(),
            "every constraint weighted"
        );
        let inv_vanishing = selector(&job.selectors.inv_vanishing);
        let quotient = folder.accumulator.map(|c| (c * inv_vanishing).to_field());
        for (k, q) in out.iter_mut().enumerate() {
            *q = Challenge::from_basis_coefficients_fn(|d| quotient[d][k]);
        }
    }
}

/// Rows `first..first + WIDTH` of `matrix` into lanes (point k in lane k), then the
/// rows `next_step` further on (wrapping): column c's two values at `out[c]` and
/// `out[width + c]`.
#[inline(always)]
fn transpose_rows<L: KoalaLanes, M: Matrix<F>>(
    matrix: &M,
    first: usize,
    next_step: usize,
    height: usize,
    out: &mut [Lanes16<L>],
) {
    let width = matrix.width();
    for (half, offset) in [0, next_step].into_iter().enumerate() {
        let rows: [_; WIDTH] = core::array::from_fn(|k| {
            matrix
                .row_slice((first + k + offset) % height)
                .expect("a row inside the domain")
        });
        let words: [&[u32]; WIDTH] = core::array::from_fn(|k| monty_words(&rows[k]));
        for (c, lanes) in out[half * width..(half + 1) * width].iter_mut().enumerate() {
            *lanes = Lanes16::from_words(&core::array::from_fn::<u32, WIDTH, _>(|k| words[k][c]));
        }
    }
}

/// The constraint builder over lanes: each constraint, as it is asserted, added to the
/// four coordinates of the running sum with its power of α.
struct LaneFolder<'a, L: KoalaLanes> {
    main: RowWindow<'a, Lanes16<L>>,
    preprocessed: RowWindow<'a, Lanes16<L>>,
    is_first_row: Lanes16<L>,
    is_last_row: Lanes16<L>,
    is_transition: Lanes16<L>,
    alpha_powers: &'a [[u32; 4]],
    accumulator: [Lanes16<L>; 4],
    index: usize,
}

impl<'a, L: KoalaLanes> AirBuilder for LaneFolder<'a, L> {
    type F = F;
    type Expr = Lanes16<L>;
    type Var = Lanes16<L>;
    type PreprocessedWindow = RowWindow<'a, Lanes16<L>>;
    type MainWindow = RowWindow<'a, Lanes16<L>>;
    type PublicVar = F;

    #[inline(always)]
    fn main(&self) -> Self::MainWindow {
        self.main
    }

    #[inline(always)]
    fn preprocessed(&self) -> &Self::PreprocessedWindow {
        &self.preprocessed
    }

    #[inline(always)]
    fn is_first_row(&self) -> Self::Expr {
        self.is_first_row
    }

    #[inline(always)]
    fn is_last_row(&self) -> Self::Expr {
        self.is_last_row
    }

    #[inline(always)]
    fn is_transition_window(&self, size: usize) -> Self::Expr {
        assert!(size <= 2, "two-row windows only, not {size}");
        self.is_transition
    }

    #[inline(always)]
    fn assert_zero<I: Into<Self::Expr>>(&mut self, x: I) {
        let x = x.into();
        let power = self.alpha_powers[self.index];
        for (acc, &p) in self.accumulator.iter_mut().zip(&power) {
            *acc = acc.add_scaled(x, p);
        }
        self.index += 1;
    }

    #[inline(always)]
    fn assert_eq<I1: Into<Self::Expr>, I2: Into<Self::Expr>>(&mut self, x: I1, y: I2) {
        self.assert_zero(x.into() - y.into());
    }

    #[inline(always)]
    fn assert_bool<I: Into<Self::Expr>>(&mut self, x: I) {
        self.assert_zero(x.into().bool_check());
    }

    #[inline(always)]
    fn public_values(&self) -> &[Self::PublicVar] {
        &[]
    }
}
