//! The aggregate's prover: Plonky3's uni-stark protocol step for step, except that the
//! preprocessed (public) columns are never committed or opened — the verifier
//! evaluates them at ζ from the list ([`super::statement::preprocessed_at`]) — and the
//! transcript absorbs the list's digest first in their commitment's stead. The quotient
//! and the opening's products run on the lanes [`ProverPath`] picks at run time
//! instead of Plonky3's compile-time packing; [`ProverPath::Plonky3`] runs Plonky3's own
//! quotient and opening, and every path proves the same bytes.
//!
//! The steps, as the verifier ([`super::verifier`]) replays them: absorb the list's
//! digest; commit the trace's LDE; observe the degree (twice: the protocol's extended
//! and plain degree, equal without zero knowledge), the preprocessed width and the
//! trace commitment; draw α; commit the quotient's chunks; draw ζ; open the trace at ζ
//! and its successor and the chunks at ζ ([`open`]: `TwoAdicFriPcs::open`'s steps).

use super::challenger::Transcript;
use super::lanes::dft::LanesDft;
use super::lanes::{dots, quotient, ProverPath};
use super::stark::{self, Challenge, Config, StarkProof, ValMmcs};
use super::statement::{list_digest, AggregateAir};
use core::marker::PhantomData;
use p3_air::BaseAir;
use p3_challenger::{CanObserve, FieldChallenger};
use p3_commit::{Mmcs, OpenedValues as PcsOpenedValues, Pcs, PolynomialSpace};
use p3_dft::TwoAdicSubgroupDft;
use p3_field::coset::TwoAdicMultiplicativeCoset;
use p3_field::{batch_multiplicative_inverse, Field, PrimeCharacteristicRing};
use p3_fri::{TwoAdicFriFolding, TwoAdicFriFoldingForMmcs};
use p3_koala_bear::KoalaBear;
use p3_matrix::bitrev::BitReversibleMatrix;
use p3_matrix::dense::RowMajorMatrix;
use p3_matrix::dense::RowMajorMatrixCow;
use p3_matrix::Matrix;
use p3_uni_stark::{Commitments, OpenedValues, Proof, StarkGenericConfig};
use p3_util::{log2_strict_usize, reverse_slice_index_bits};
use rayon::prelude::*;
use std::borrow::Cow;

type F = KoalaBear;
/// The PCS and transcript of [`Config`], named so that each call says which `Pcs` impl.
type ConfigPcs = <Config as StarkGenericConfig>::Pcs;

/// Prove `air` over `trace`, the lane work on `path` (which this CPU must run:
/// [`ProverPath::supported`]).
pub(crate) fn prove(
    config: &Config,
    air: &AggregateAir,
    trace: RowMajorMatrix<F>,
    path: ProverPath,
) -> StarkProof {
    // As Plonky3's prover does in debug builds: an unsatisfied constraint panics here,
    // with its row, instead of making a proof that fails to verify.
    #[cfg(debug_assertions)]
    p3_air::check_constraints(air, &trace, &[]);
    let degree = trace.height();
    let log_degree = degree.trailing_zeros() as usize;
    assert_eq!(
        log_degree,
        AggregateAir::degree_bits(air.claims().len()),
        "a trace for this list"
    );
    let layout = air.air_layout();
    let log_chunks = air.constraint_shape().log_quotient_chunks;
    let chunks = 1 << log_chunks;
    let pcs = config.pcs();
    let mut challenger = config.initialise_challenger();
    challenger.observe(list_digest(air.claims()));

    let trace_domain =
        <ConfigPcs as Pcs<Challenge, Transcript>>::natural_domain_for_degree(pcs, degree);
    let (trace_commit, trace_data) =
        <ConfigPcs as Pcs<Challenge, Transcript>>::commit(pcs, [(trace_domain, trace)]);
    challenger.observe(F::from_u8(log_degree as u8));
    challenger.observe(F::from_u8(log_degree as u8));
    challenger.observe(F::from_usize(layout.preprocessed_width));
    challenger.observe(trace_commit.clone());
    let alpha: Challenge = challenger.sample_algebra_element();

    let quotient_domain = trace_domain.create_disjoint_domain(degree << log_chunks);
    let main = <ConfigPcs as Pcs<Challenge, Transcript>>::get_evaluations_on_domain(
        pcs,
        &trace_data,
        0,
        quotient_domain,
    );
    // The public columns on the quotient domain, uncommitted: their LDE (on the coset
    // gK of the quotient domain's size), in the same bit-reversed storage and view as
    // the trace's, so that one quotient kernel reads both.
    let fixed = LanesDft::on(path)
        .coset_lde_batch(
            air.preprocessed_trace().expect("public columns"),
            log_chunks,
            F::GENERATOR,
        )
        .bit_reverse_rows();
    let fixed = RowMajorMatrixCow::new(Cow::Owned(fixed.values), fixed.width).bit_reverse_rows();
    debug_assert_eq!(quotient_domain.shift(), F::GENERATOR);
    debug_assert_eq!(fixed.height(), quotient_domain.size());
    let values = quotient::quotient_values(
        path,
        air,
        layout,
        trace_domain,
        quotient_domain,
        &main,
        &fixed,
        alpha,
    );
    drop((main, fixed));
    let flat = RowMajorMatrix::new_col(values).flatten_to_base();
    let (quotient_commit, quotient_data) =
        <ConfigPcs as Pcs<Challenge, Transcript>>::commit_quotient(
            pcs,
            quotient_domain,
            flat,
            chunks,
        );
    challenger.observe(quotient_commit.clone());

    let zeta: Challenge = challenger.sample_algebra_element();
    let zeta_next = trace_domain
        .next_point(zeta)
        .expect("a two-adic domain has a next point");
    // The statement reads the next main row, never the next preprocessed row.
    debug_assert!(!air.main_next_row_columns().is_empty());
    debug_assert!(air.preprocessed_next_row_columns().is_empty());
    let rounds = vec![
        (&trace_data, vec![vec![zeta, zeta_next]]),
        (&quotient_data, vec![vec![zeta]; chunks]),
    ];
    let (opened, opening_proof) = match path {
        ProverPath::Plonky3 => {
            <ConfigPcs as Pcs<Challenge, Transcript>>::open(pcs, rounds, &mut challenger)
        }
        _ => open(path, rounds, &mut challenger),
    };
    let [trace_opened, quotient_opened] = &opened[..] else {
        unreachable!("two rounds opened")
    };
    let opened_values = OpenedValues {
        trace_local: trace_opened[0][0].clone(),
        trace_next: Some(trace_opened[0][1].clone()),
        preprocessed_local: None,
        preprocessed_next: None,
        quotient_chunks: quotient_opened
            .iter()
            .map(|chunk| chunk[0].clone())
            .collect(),
        random: None,
    };
    Proof {
        commitments: Commitments {
            trace: trace_commit,
            quotient_chunks: quotient_commit,
            random: None,
        },
        opened_values,
        opening_proof,
        degree_bits: log_degree,
    }
}

/// The committed matrices of one round and the points each is opened at.
type Round<'a> = (&'a MerkleData, Vec<Vec<Challenge>>);
type MerkleData = <ValMmcs as Mmcs<F>>::ProverData<RowMajorMatrix<F>>;
type OpeningProof = <ConfigPcs as Pcs<Challenge, Transcript>>::Proof;

/// `TwoAdicFriPcs::open` step for step (the same transcript and proof), its two large
/// products on `path`'s lanes ([`dots`]):
/// 1. each matrix's columns at each of its points, by barycentric interpolation over
///    its first height/8 rows in bit-reversed order (the coset gK of that size), sent;
/// 2. α drawn; every (matrix, point) pair reduced to Σ_i α^i·(p_i(z) − p_i(x))/(z − x)
///    on the LDE's points x, matrices of one height chained by α^(columns before);
/// 3. FRI on the reduced vectors, tallest first.
fn open(
    path: ProverPath,
    rounds: Vec<Round<'_>>,
    challenger: &mut Transcript,
) -> (PcsOpenedValues<Challenge>, OpeningProof) {
    let mmcs = stark::input_mmcs();
    let fri = stark::fri_parameters();
    let matrices: Vec<Vec<&RowMajorMatrix<F>>> = rounds
        .iter()
        .map(|(data, _)| mmcs.get_matrices(*data))
        .collect();
    let all = || matrices.iter().flatten();
    let max_height = all().map(|m| m.height()).max().expect("matrices to open");
    let max_width = all().map(|m| m.width()).max().expect("matrices to open");
    let log_max_height = log2_strict_usize(max_height);
    let mut coset: Vec<F> = TwoAdicMultiplicativeCoset::new(F::GENERATOR, log_max_height)
        .expect("a two-adic coset")
        .iter()
        .collect();
    reverse_slice_index_bits(&mut coset);

    // 1/(z − x) on the tallest matrix opened at z, per distinct point.
    let mut inverse_denominators: Vec<(Challenge, Vec<Challenge>)> = Vec::new();
    for ((_, points), mats) in rounds.iter().zip(&matrices) {
        for (points, m) in points.iter().zip(mats) {
            for &z in points {
                match inverse_denominators.iter_mut().find(|(p, _)| *p == z) {
                    Some((_, d)) if d.len() >= m.height() => {}
                    Some((_, d)) => *d = vec![Challenge::ZERO; m.height()],
                    None => inverse_denominators.push((z, vec![Challenge::ZERO; m.height()])),
                }
            }
        }
    }
    for (z, d) in &mut inverse_denominators {
        let differences: Vec<Challenge> = coset[..d.len()].par_iter().map(|&x| *z - x).collect();
        *d = batch_multiplicative_inverse(&differences);
    }
    let inverses = |z: &Challenge| -> &[Challenge] {
        &inverse_denominators
            .iter()
            .find(|(p, _)| p == z)
            .expect("every point")
            .1
    };

    // 1. The openings, sent as they are computed.
    let log_blowup = fri.log_blowup;
    let opened: PcsOpenedValues<Challenge> = rounds
        .iter()
        .zip(&matrices)
        .map(|((_, points), mats)| {
            points
                .iter()
                .zip(mats)
                .map(|(points, m)| {
                    let h = m.height() >> log_blowup;
                    points
                        .iter()
                        .map(|&z| {
                            let ys = interpolate(path, m, h, z, &coset[..h], &inverses(&z)[..h]);
                            challenger.observe_algebra_slice(&ys);
                            ys
                        })
                        .collect()
                })
                .collect()
        })
        .collect();

    // 2. Reduced openings per height.
    let alpha: Challenge = challenger.sample_algebra_element();
    let alpha_powers: Vec<Challenge> = alpha.powers().collect_n(max_width);
    let mut columns_reduced = [0usize; 32];
    let mut reduced: [Option<Vec<Challenge>>; 32] = core::array::from_fn(|_| None);
    for ((mats, points), openings) in matrices
        .iter()
        .zip(rounds.iter().map(|r| &r.1))
        .zip(&opened)
    {
        for ((m, points), openings) in mats.iter().zip(points).zip(openings) {
            let log_height = log2_strict_usize(m.height());
            let target =
                reduced[log_height].get_or_insert_with(|| vec![Challenge::ZERO; m.height()]);
            let rows = dots::row_dots(path, &m.values, m.width(), &alpha_powers);
            for (z, ys) in points.iter().zip(openings) {
                let offset = alpha.exp_u64(columns_reduced[log_height] as u64);
                let at_z: Challenge = alpha_powers.iter().zip(ys).map(|(&a, &y)| a * y).sum();
                target
                    .par_iter_mut()
                    .zip(rows.par_iter())
                    .zip(inverses(z).par_iter())
                    .for_each(|((t, &row), &inverse)| *t += offset * (at_z - row) * inverse);
                columns_reduced[log_height] += m.width();
            }
        }
    }

    // 3. FRI, tallest first.
    let inputs: Vec<Vec<Challenge>> = reduced.into_iter().rev().flatten().collect();
    let folding: TwoAdicFriFoldingForMmcs<F, ValMmcs> = TwoAdicFriFolding(PhantomData);
    let proof = p3_fri::prover::prove_fri(
        &folding,
        &fri,
        inputs,
        challenger,
        log_max_height,
        &rounds,
        &mmcs,
    );
    (opened, proof)
}

/// The columns of `matrix`'s first `h` rows (its values on the coset `points`, in the
/// same order) at `z`: Σ_x p(x)·x/(z − x), times (z^h − g^h)/(h·g^h).
fn interpolate(
    path: ProverPath,
    matrix: &RowMajorMatrix<F>,
    h: usize,
    z: Challenge,
    points: &[F],
    inverses: &[Challenge],
) -> Vec<Challenge> {
    let weights: Vec<Challenge> = points
        .par_iter()
        .zip(inverses)
        .map(|(&x, &d)| d * x)
        .collect();
    let width = matrix.width();
    let sums = dots::column_dots(path, &matrix.values[..h * width], width, &weights);
    let log_h = log2_strict_usize(h);
    let shift_power = F::GENERATOR.exp_power_of_2(log_h);
    let scale =
        (z.exp_power_of_2(log_h) - shift_power) * shift_power.mul_2exp_u64(log_h as u64).inverse();
    sums.into_iter().map(|s| s * scale).collect()
}
