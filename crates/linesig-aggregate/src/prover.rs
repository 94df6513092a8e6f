//! The aggregate's prover: Plonky3's uni-stark protocol step for step, except that the
//! preprocessed (public) columns are never committed or opened — the verifier
//! evaluates them at ζ from the list ([`super::statement::preprocessed_at`]) — and the
//! transcript absorbs the list's digest first in their commitment's stead; that the
//! trace's extension is never held whole ([`TraceExtension`]: its polynomials, and its
//! blocks of rows made when a step needs them); and that the quotient and the
//! opening's products run on the lanes [`ProverPath`] picks at run time instead of
//! Plonky3's compile-time packing. Every path proves the bytes of Plonky3's own steps
//! holding the extension (`prove_by_plonky3`, the tests' reference).
//!
//! The steps, as the verifier ([`super::verifier`]) replays them: absorb the list's
//! digest; commit the trace's LDE; observe the degree (twice: the protocol's extended
//! and plain degree, equal without zero knowledge), the preprocessed width and the
//! trace commitment; draw α; commit the quotient's chunks; draw ζ; open the trace at ζ
//! and its successor and the chunks at ζ ([`open`]: `TwoAdicFriPcs::open`'s steps).

use super::challenger::Transcript;
use super::lanes::dft::ColumnPolys;
use super::lanes::{dots, quotient, ProverPath};
use super::stark::{self, Challenge, Config, StarkProof, ValMmcs};
use super::statement::{list_digest, AggregateAir};
use super::trace_extension::{in_groups, Commitment, RoundData, RoundsMmcs, TraceExtension};
use core::marker::PhantomData;
use p3_air::BaseAir;
use p3_challenger::{CanObserve, FieldChallenger};
use p3_commit::{BatchOpening, Mmcs, OpenedValues as PcsOpenedValues, Pcs, PolynomialSpace};
#[cfg(test)]
use p3_dft::TwoAdicSubgroupDft;
use p3_field::coset::TwoAdicMultiplicativeCoset;
use p3_field::{batch_multiplicative_inverse, Field, PrimeCharacteristicRing, TwoAdicField};
use p3_fri::{FriParameters, FriProof, QueryProof, TwoAdicFriFolding, TwoAdicFriFoldingForMmcs};
use p3_koala_bear::KoalaBear;
use p3_matrix::bitrev::BitReversibleMatrix;
use p3_matrix::dense::RowMajorMatrix;
use p3_matrix::Matrix;
use p3_uni_stark::{Commitments, OpenedValues, Proof, StarkGenericConfig};
use p3_util::{log2_strict_usize, reverse_bits_len, reverse_slice_index_bits};
use rayon::prelude::*;

type F = KoalaBear;
/// The PCS and transcript of [`Config`], named so that each call says which `Pcs` impl.
type ConfigPcs = <Config as StarkGenericConfig>::Pcs;
type Domain = TwoAdicMultiplicativeCoset<F>;

/// Prove `air` over `trace`, the lane work on `path` (which this CPU must run:
/// [`ProverPath::supported`]), holding the trace's extension block by block
/// ([`TraceExtension`]): the prover's memory is the trace's polynomials and a block per
/// thread, not the extension.
pub(crate) fn prove(
    config: &Config,
    air: &AggregateAir,
    trace: RowMajorMatrix<F>,
    path: ProverPath,
) -> StarkProof {
    let start = Start::new(config, air, &trace);
    let (trace_commit, extension) = TraceExtension::commit(path, trace, stark::LOG_BLOWUP);
    let mut challenger = start.challenger.clone();
    start.observe(&mut challenger, &trace_commit);
    let alpha: Challenge = challenger.sample_algebra_element();

    let fixed = ColumnPolys::interpolate(path, air.preprocessed_trace().expect("public columns"));
    let values = quotient_by_blocks(path, air, &start, &extension, &fixed, alpha);
    drop(fixed);
    let (quotient_commit, quotient_data) = start.commit_quotient(config, values);
    challenger.observe(quotient_commit.clone());

    let zeta: Challenge = challenger.sample_algebra_element();
    let trace_round = RoundData::Extension(&extension);
    let quotient_round = RoundData::Held(quotient_data);
    let rounds = vec![
        (&trace_round, vec![vec![zeta, start.next_point(zeta)]]),
        (&quotient_round, vec![vec![zeta]; start.chunks()]),
    ];
    let (opened, opening_proof) = open(path, &rounds, &mut challenger);
    start.proof(trace_commit, quotient_commit, opened, opening_proof)
}

/// The reference: Plonky3's own steps throughout (its PCS commits and holds the trace's
/// extension, its quotient, its `TwoAdicFriPcs::open`). [`prove`] makes the same bytes.
#[cfg(test)]
pub(crate) fn prove_by_plonky3(air: &AggregateAir, trace: RowMajorMatrix<F>) -> StarkProof {
    let config = stark::config_on(ProverPath::Plonky3);
    let pcs = config.pcs();
    let start = Start::new(&config, air, &trace);
    let (trace_commit, trace_data) =
        <ConfigPcs as Pcs<Challenge, Transcript>>::commit(pcs, [(start.trace_domain, trace)]);
    let mut challenger = start.challenger.clone();
    start.observe(&mut challenger, &trace_commit);
    let alpha: Challenge = challenger.sample_algebra_element();

    let quotient_domain = start.quotient_domain();
    let main = <ConfigPcs as Pcs<Challenge, Transcript>>::get_evaluations_on_domain(
        pcs,
        &trace_data,
        0,
        quotient_domain,
    );
    // The public columns' extension, bit-reversed storage viewed in natural order, as
    // the PCS holds the trace's (the same matrix type, for one quotient call).
    let fixed = p3_dft::Radix2DitParallel::<F>::default()
        .coset_lde_batch(
            air.preprocessed_trace().expect("public columns"),
            start.log_chunks,
            F::GENERATOR,
        )
        .bit_reverse_rows()
        .to_row_major_matrix();
    let fixed = p3_matrix::dense::RowMajorMatrixCow::new(
        std::borrow::Cow::Owned(fixed.values),
        fixed.width,
    )
    .bit_reverse_rows();
    let values = quotient_values(
        ProverPath::Plonky3,
        air,
        start.trace_domain,
        quotient_domain,
        &main,
        &fixed,
        alpha,
    );
    let (quotient_commit, quotient_data) = start.commit_quotient(&config, values);
    challenger.observe(quotient_commit.clone());

    let zeta: Challenge = challenger.sample_algebra_element();
    let rounds = vec![
        (&trace_data, vec![vec![zeta, start.next_point(zeta)]]),
        (&quotient_data, vec![vec![zeta]; start.chunks()]),
    ];
    let (opened, opening_proof) =
        <ConfigPcs as Pcs<Challenge, Transcript>>::open(pcs, rounds, &mut challenger);
    start.proof(trace_commit, quotient_commit, opened, opening_proof)
}

/// What every prover shares: the trace's shape, the transcript after the list's digest,
/// and the steps that do not touch the trace's extension.
struct Start<'a> {
    air: &'a AggregateAir,
    log_degree: usize,
    log_chunks: usize,
    trace_domain: Domain,
    challenger: Transcript,
}

impl<'a> Start<'a> {
    fn new(config: &Config, air: &'a AggregateAir, trace: &RowMajorMatrix<F>) -> Self {
        // As Plonky3's prover does in debug builds: an unsatisfied constraint panics
        // here, with its row, instead of making a proof that fails to verify.
        #[cfg(debug_assertions)]
        p3_air::check_constraints(air, trace, &[]);
        let degree = trace.height();
        let log_degree = log2_strict_usize(degree);
        assert_eq!(
            log_degree,
            AggregateAir::degree_bits(air.claims().len()),
            "a trace for this list"
        );
        let mut challenger = config.initialise_challenger();
        challenger.observe(list_digest(air.claims()));
        Start {
            air,
            log_degree,
            log_chunks: air.constraint_shape().log_quotient_chunks,
            trace_domain: <ConfigPcs as Pcs<Challenge, Transcript>>::natural_domain_for_degree(
                config.pcs(),
                degree,
            ),
            challenger,
        }
    }

    fn chunks(&self) -> usize {
        1 << self.log_chunks
    }

    fn quotient_domain(&self) -> Domain {
        self.trace_domain
            .create_disjoint_domain(self.trace_domain.size() << self.log_chunks)
    }

    fn next_point(&self, zeta: Challenge) -> Challenge {
        // The statement reads the next main row, never the next preprocessed row.
        debug_assert!(!self.air.main_next_row_columns().is_empty());
        debug_assert!(self.air.preprocessed_next_row_columns().is_empty());
        self.trace_domain
            .next_point(zeta)
            .expect("a two-adic domain has a next point")
    }

    /// After the trace's commitment: the degree (twice: the protocol's extended and
    /// plain degree, equal without zero knowledge), the preprocessed width, the
    /// commitment.
    fn observe(&self, challenger: &mut Transcript, trace_commit: &Commitment) {
        challenger.observe(F::from_u8(self.log_degree as u8));
        challenger.observe(F::from_u8(self.log_degree as u8));
        challenger.observe(F::from_usize(self.air.air_layout().preprocessed_width));
        challenger.observe(trace_commit.clone());
    }

    /// The quotient's values on the quotient domain (natural order), committed as its
    /// chunks.
    fn commit_quotient(&self, config: &Config, values: Vec<Challenge>) -> (Commitment, MerkleData) {
        let flat = RowMajorMatrix::new_col(values).flatten_to_base();
        <ConfigPcs as Pcs<Challenge, Transcript>>::commit_quotient(
            config.pcs(),
            self.quotient_domain(),
            flat,
            self.chunks(),
        )
    }

    fn proof(
        &self,
        trace: Commitment,
        quotient_chunks: Commitment,
        opened: PcsOpenedValues<Challenge>,
        opening_proof: OpeningProof,
    ) -> StarkProof {
        let [trace_opened, quotient_opened] = &opened[..] else {
            unreachable!("two rounds opened")
        };
        Proof {
            commitments: Commitments {
                trace,
                quotient_chunks,
                random: None,
            },
            opened_values: OpenedValues {
                trace_local: trace_opened[0][0].clone(),
                trace_next: Some(trace_opened[0][1].clone()),
                preprocessed_local: None,
                preprocessed_next: None,
                quotient_chunks: quotient_opened
                    .iter()
                    .map(|chunk| chunk[0].clone())
                    .collect(),
                random: None,
            },
            opening_proof,
            degree_bits: self.log_degree,
        }
    }
}

/// The quotient at every point of `quotient_domain` on `path`: linesig's lane kernels
/// where the path has them, else Plonky3's own evaluation (its packed field, scalar
/// unless the build targets the CPU). Kept here, above both, so that the kernels do not
/// import the STARK configuration.
#[allow(clippy::too_many_arguments)]
fn quotient_values<M: Matrix<F> + Sync>(
    path: ProverPath,
    air: &AggregateAir,
    trace_domain: Domain,
    quotient_domain: Domain,
    main: &M,
    preprocessed: &M,
    alpha: Challenge,
) -> Vec<Challenge> {
    quotient::quotient_values(
        path,
        air,
        trace_domain,
        quotient_domain,
        main,
        preprocessed,
        alpha,
    )
    .unwrap_or_else(|| {
        p3_uni_stark::quotient_values::<Config, _, _>(
            air,
            &[],
            air.air_layout(),
            trace_domain,
            quotient_domain,
            main,
            Some(preprocessed),
            alpha,
        )
    })
}

/// The quotient on the quotient domain (natural order), block by block of the trace's
/// extension: the domain's points are the extension's first 2^log_chunks blocks (block
/// c the coset F::GENERATOR·ω^rev(c)·H, ω of the domain's order), and a point's next
/// row (x·ω_H) lies in its own block, so each block's quotient reads that block alone
/// and the public columns' same block. Blocks run one per task, each transformed again
/// (the commitment dropped them).
fn quotient_by_blocks(
    path: ProverPath,
    air: &AggregateAir,
    start: &Start<'_>,
    extension: &TraceExtension,
    fixed: &ColumnPolys,
    alpha: Challenge,
) -> Vec<Challenge> {
    let log_chunks = start.log_chunks;
    assert!(
        start.chunks() <= extension.blocks(),
        "the quotient domain lies in the extension"
    );
    let log_rows = start.log_degree;
    let rows = 1 << log_rows;
    let generator = F::two_adic_generator(log_rows + log_chunks);
    // The blocks the commitment kept first, then the others, a group at a time.
    let kept = extension.kept_blocks();
    let order: Vec<usize> = kept
        .iter()
        .copied()
        .filter(|&b| b < start.chunks())
        .chain((0..start.chunks()).filter(|b| !kept.contains(b)))
        .collect();
    let per_block: Vec<Vec<Challenge>> = in_groups(&order, |block| {
        let main = RowMajorMatrix::new(extension.take_block(block), extension.width());
        let mut public = F::zero_vec(rows * fixed.width());
        extension.same_block(fixed, block, &mut public);
        let public = RowMajorMatrix::new(public, fixed.width());
        let coset = reverse_bits_len(block, log_chunks);
        let domain = Domain::new(F::GENERATOR * generator.exp_u64(coset as u64), log_rows)
            .expect("a two-adic coset");
        let main = main.bit_reverse_rows();
        let quotient = quotient_values(
            path,
            air,
            start.trace_domain,
            domain,
            &main,
            &public.bit_reverse_rows(),
            alpha,
        );
        extension.give_back(main.bit_reverse_rows().values);
        quotient
    });
    extension.free_spare();
    // Point m of block c's coset is point rev(c) + 2^log_chunks·m of the domain.
    let mut values = vec![Challenge::ZERO; rows << log_chunks];
    for (&block, quotient) in order.iter().zip(&per_block) {
        let coset = reverse_bits_len(block, log_chunks);
        for (m, &q) in quotient.iter().enumerate() {
            values[coset + (m << log_chunks)] = q;
        }
    }
    values
}

/// A committed round and the points each of its matrices is opened at.
type Round<'a, 'b> = (&'b RoundData<'a, RowMajorMatrix<F>>, Vec<Vec<Challenge>>);
type MerkleData = <ValMmcs as Mmcs<F>>::ProverData<RowMajorMatrix<F>>;
type OpeningProof = <ConfigPcs as Pcs<Challenge, Transcript>>::Proof;

/// A matrix a round opens: held rows, or the trace's extension (its polynomials).
#[derive(Clone, Copy)]
enum Opened<'a> {
    Held(&'a RowMajorMatrix<F>),
    Extension(&'a TraceExtension),
}

impl Opened<'_> {
    fn height(self) -> usize {
        match self {
            Opened::Held(m) => m.height(),
            Opened::Extension(e) => e.height(),
        }
    }

    fn width(self) -> usize {
        match self {
            Opened::Held(m) => m.width(),
            Opened::Extension(e) => e.width(),
        }
    }
}

/// `TwoAdicFriPcs::open` step for step (the same transcript and proof), its large
/// products on `path`'s lanes ([`dots`]):
/// 1. each matrix's columns at each of its points, sent: a held matrix by barycentric
///    interpolation over its first height/8 rows in bit-reversed order (the coset gK of
///    that size), the trace's extension from its polynomials (Σ_i c_i·z^i);
/// 2. α drawn; every (matrix, point) pair reduced to Σ_i α^i·(p_i(z) − p_i(x))/(z − x)
///    on the extension's points x, matrices of one height chained by α^(columns
///    before): Σ_i α^i·p_i(x) is each held row's product with α's powers, and for the
///    trace one polynomial (the same product over its coefficients) extended;
/// 3. FRI on the reduced vectors, tallest first (Plonky3's, the trace's query rows
///    from its polynomials: [`RoundsMmcs`]).
fn open(
    path: ProverPath,
    rounds: &[Round<'_, '_>],
    challenger: &mut Transcript,
) -> (PcsOpenedValues<Challenge>, OpeningProof) {
    let mmcs = RoundsMmcs::new();
    let fri = stark::fri_parameters();
    let setup = OpeningSetup::new(&mmcs, rounds);
    let opened = open_at_points(path, rounds, &setup, fri.log_blowup, challenger);
    let reduced = reduce_by_height(path, rounds, &setup, &opened, challenger);
    let proof = prove_fri(
        rounds,
        &mmcs,
        &fri,
        reduced,
        setup.log_max_height,
        challenger,
    );
    (opened, proof)
}

/// What the three steps of [`open`] share: every round's matrices, the tallest
/// matrix's coset gK in bit-reversed order, and 1/(z − x) on it for each distinct
/// point z (as long as the tallest matrix opened at z).
struct OpeningSetup<'a> {
    matrices: Vec<Vec<Opened<'a>>>,
    coset: Vec<F>,
    inverse_denominators: Vec<(Challenge, Vec<Challenge>)>,
    max_width: usize,
    log_max_height: usize,
}

impl<'a> OpeningSetup<'a> {
    fn new<'r>(mmcs: &RoundsMmcs<'r>, rounds: &'a [Round<'r, 'a>]) -> Self {
        let matrices: Vec<Vec<Opened<'a>>> = rounds
            .iter()
            .map(|(data, _)| match data {
                RoundData::Held(_) => mmcs
                    .get_matrices(*data)
                    .into_iter()
                    .map(Opened::Held)
                    .collect(),
                RoundData::Extension(extension) => vec![Opened::Extension(extension)],
            })
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
            let differences: Vec<Challenge> =
                coset[..d.len()].par_iter().map(|&x| *z - x).collect();
            *d = batch_multiplicative_inverse(&differences);
        }
        OpeningSetup {
            matrices,
            coset,
            inverse_denominators,
            max_width,
            log_max_height,
        }
    }

    /// 1/(z − x) for the coset's points x.
    fn inverses(&self, z: &Challenge) -> &[Challenge] {
        &self
            .inverse_denominators
            .iter()
            .find(|(p, _)| p == z)
            .expect("every point")
            .1
    }
}

/// Step 1: each matrix's columns at each of its points, observed as they are computed.
fn open_at_points(
    path: ProverPath,
    rounds: &[Round<'_, '_>],
    setup: &OpeningSetup<'_>,
    log_blowup: usize,
    challenger: &mut Transcript,
) -> PcsOpenedValues<Challenge> {
    rounds
        .iter()
        .zip(&setup.matrices)
        .map(|((_, points), mats)| {
            points
                .iter()
                .zip(mats)
                .map(|(points, &m)| {
                    points
                        .iter()
                        .map(|&z| {
                            let ys = match m {
                                Opened::Held(m) => {
                                    let h = m.height() >> log_blowup;
                                    let (coset, inverses) =
                                        (&setup.coset[..h], &setup.inverses(&z)[..h]);
                                    interpolate(path, m, h, z, coset, inverses)
                                }
                                Opened::Extension(e) => {
                                    let polys = e.polys();
                                    let weights = polys.weights_at(z);
                                    dots::column_dots(path, polys.values(), e.width(), &weights)
                                }
                            };
                            challenger.observe_algebra_slice(&ys);
                            ys
                        })
                        .collect()
                })
                .collect()
        })
        .collect()
}

/// Step 2: α drawn; every (matrix, point) pair reduced onto the vector of its height,
/// tallest first.
fn reduce_by_height(
    path: ProverPath,
    rounds: &[Round<'_, '_>],
    setup: &OpeningSetup<'_>,
    opened: &PcsOpenedValues<Challenge>,
    challenger: &mut Transcript,
) -> Vec<Vec<Challenge>> {
    let alpha: Challenge = challenger.sample_algebra_element();
    let alpha_powers: Vec<Challenge> = alpha.powers().collect_n(setup.max_width);
    let mut columns_reduced = [0usize; 32];
    let mut reduced: [Option<Vec<Challenge>>; 32] = core::array::from_fn(|_| None);
    for ((mats, points), openings) in setup
        .matrices
        .iter()
        .zip(rounds.iter().map(|r| &r.1))
        .zip(opened)
    {
        for ((&m, points), openings) in mats.iter().zip(points).zip(openings) {
            let log_height = log2_strict_usize(m.height());
            let target =
                reduced[log_height].get_or_insert_with(|| vec![Challenge::ZERO; m.height()]);
            let rows = match m {
                Opened::Held(m) => dots::row_dots(path, &m.values, m.width(), &alpha_powers),
                Opened::Extension(e) => e.row_combination(&alpha_powers),
            };
            for (z, ys) in points.iter().zip(openings) {
                let offset = alpha.exp_u64(columns_reduced[log_height] as u64);
                let at_z: Challenge = alpha_powers.iter().zip(ys).map(|(&a, &y)| a * y).sum();
                target
                    .par_iter_mut()
                    .zip(rows.par_iter())
                    .zip(setup.inverses(z).par_iter())
                    .for_each(|((t, &row), &inverse)| *t += offset * (at_z - row) * inverse);
                columns_reduced[log_height] += m.width();
            }
        }
    }
    reduced.into_iter().rev().flatten().collect()
}

/// Step 3: FRI on the reduced vectors; then the trace's rows the query phase asked
/// for, answered together, and every opening typed as the held rounds' MMCS's (whose
/// proofs they are).
fn prove_fri(
    rounds: &[Round<'_, '_>],
    mmcs: &RoundsMmcs<'_>,
    fri: &FriParameters<stark::ChallengeMmcs>,
    inputs: Vec<Vec<Challenge>>,
    log_max_height: usize,
    challenger: &mut Transcript,
) -> OpeningProof {
    let folding: TwoAdicFriFoldingForMmcs<F, RoundsMmcs<'_>> = TwoAdicFriFolding(PhantomData);
    let proof = p3_fri::prover::prove_fri(
        &folding,
        fri,
        inputs,
        challenger,
        log_max_height,
        rounds,
        mmcs,
    );
    let deferred = mmcs.take_deferred();
    let mut answers = rounds
        .iter()
        .find_map(|(data, _)| match data {
            RoundData::Extension(extension) => Some(extension.open_rows(&deferred)),
            RoundData::Held(_) => None,
        })
        .unwrap_or_default()
        .into_iter();
    let proof = FriProof {
        commit_phase_commits: proof.commit_phase_commits,
        commit_pow_witnesses: proof.commit_pow_witnesses,
        query_proofs: proof
            .query_proofs
            .into_iter()
            .map(|query| QueryProof {
                input_proof: query
                    .input_proof
                    .into_iter()
                    .zip(rounds)
                    .map(|(opening, (data, _))| match data {
                        RoundData::Extension(_) => {
                            let (row, siblings) = answers.next().expect("a row per query");
                            BatchOpening::new(vec![row], siblings)
                        }
                        RoundData::Held(_) => {
                            let (rows, proof) = opening.unpack();
                            BatchOpening::new(rows, proof)
                        }
                    })
                    .collect(),
                commit_phase_openings: query.commit_phase_openings,
            })
            .collect(),
        final_poly: proof.final_poly,
        query_pow_witness: proof.query_pow_witness,
    };
    assert!(answers.next().is_none(), "every row asked for answered");
    proof
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
