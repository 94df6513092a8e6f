//! The aggregate's verifier: Plonky3's uni-stark verifier (`verify_with_preprocessed`)
//! step for step, except that the preprocessed (public) columns' values at ζ are
//! computed from the list ([`preprocessed_at`]) instead of opened against a commitment.
//! Plonky3's verifier needs that commitment, and the verifier would have to build it
//! itself — an 8× LDE of the 66 public columns and a Merkle tree over it, most of a
//! large list's verification. Here the work on the list is a digest and one pass of
//! products over its rows; FRI and the trace's and quotient's openings grow with
//! log N only. Binding: the list's digest is the transcript's first input, so α, ζ and
//! every FRI challenge depend on it ([`super::prover`]'s steps, replayed).

use super::challenger::Transcript;
use super::stark::{Challenge, Config, StarkProof};
use super::statement::{
    list_digest, preprocessed_at, AggregateAir, MAIN_WIDTH, PREPROCESSED_WIDTH,
};
use p3_challenger::{CanObserve, FieldChallenger};
use p3_commit::{Pcs, PolynomialSpace};
use p3_field::{BasedVectorSpace, PrimeCharacteristicRing};
use p3_koala_bear::KoalaBear;
use p3_uni_stark::{
    recompose_quotient_from_chunks, verify_constraints, PcsError, Proof, StarkGenericConfig,
};

type F = KoalaBear;
type ConfigPcs = <Config as StarkGenericConfig>::Pcs;

/// Check `proof` for `air`'s list; the error is the failed check, for logs.
pub(crate) fn verify(
    config: &Config,
    air: &AggregateAir,
    proof: &StarkProof,
) -> Result<(), String> {
    let Proof {
        commitments,
        opened_values,
        opening_proof,
        degree_bits,
    } = proof;
    let degree_bits = *degree_bits;
    let claims = air.claims();
    if degree_bits != AggregateAir::degree_bits(claims.len()) {
        return Err(format!(
            "a trace of 2^{degree_bits} rows, not the list's 2^{}",
            AggregateAir::degree_bits(claims.len())
        ));
    }
    // Not `constraint_shape`: its symbolic evaluation of every constraint (the order the
    // prover's quotient folds them in) costs a few milliseconds the verifier need not spend.
    let log_chunks = air.log_quotient_chunks();
    let chunks = 1 << log_chunks;
    let pcs = config.pcs();
    let trace_domain =
        <ConfigPcs as Pcs<Challenge, Transcript>>::natural_domain_for_degree(pcs, 1 << degree_bits);
    let quotient_domain = trace_domain.create_disjoint_domain(1 << (degree_bits + log_chunks));
    let chunk_domains = quotient_domain.split_domains(chunks);

    // Shape first: nothing below indexes past what it checks here.
    let trace_next = match &opened_values.trace_next {
        Some(next) if next.len() == MAIN_WIDTH => next,
        _ => return Err("invalid proof shape: the trace's next row".into()),
    };
    let valid_shape = commitments.random.is_none()
        && opened_values.random.is_none()
        && opened_values.preprocessed_local.is_none()
        && opened_values.preprocessed_next.is_none()
        && opened_values.trace_local.len() == MAIN_WIDTH
        && opened_values.quotient_chunks.len() == chunks
        && opened_values
            .quotient_chunks
            .iter()
            .all(|chunk| chunk.len() == <Challenge as BasedVectorSpace<F>>::DIMENSION);
    if !valid_shape {
        return Err("invalid proof shape".into());
    }

    let mut challenger = config.initialise_challenger();
    challenger.observe(list_digest(claims));
    challenger.observe(F::from_usize(degree_bits));
    challenger.observe(F::from_usize(degree_bits));
    challenger.observe(F::from_usize(PREPROCESSED_WIDTH));
    challenger.observe(commitments.trace.clone());
    let alpha: Challenge = challenger.sample_algebra_element();
    challenger.observe(commitments.quotient_chunks.clone());
    let zeta: Challenge = challenger.sample_algebra_element();
    let zeta_next = trace_domain.next_point(zeta).ok_or("no next point for ζ")?;

    let quotient_round = chunk_domains
        .iter()
        .zip(&opened_values.quotient_chunks)
        .map(|(domain, values)| {
            (
                <ConfigPcs as Pcs<Challenge, Transcript>>::natural_domain_for_degree(
                    pcs,
                    domain.size(),
                ),
                vec![(zeta, values.clone())],
            )
        })
        .collect();
    let rounds = vec![
        (
            commitments.trace.clone(),
            vec![(
                trace_domain,
                vec![
                    (zeta, opened_values.trace_local.clone()),
                    (zeta_next, trace_next.clone()),
                ],
            )],
        ),
        (commitments.quotient_chunks.clone(), quotient_round),
    ];
    pcs.verify(rounds, opening_proof, &mut challenger)
        .map_err(|e| format!("invalid opening argument: {e:?}"))?;

    let quotient = recompose_quotient_from_chunks::<Config>(
        &chunk_domains,
        &opened_values.quotient_chunks,
        zeta,
    );
    let preprocessed = preprocessed_at(claims, zeta);
    // The statement reads no preprocessed column of the next row.
    let unread = vec![Challenge::ZERO; PREPROCESSED_WIDTH];
    verify_constraints::<Config, _, PcsError<Config>>(
        air,
        &opened_values.trace_local,
        trace_next,
        Some(&preprocessed),
        Some(&unread),
        &[],
        trace_domain,
        zeta,
        alpha,
        quotient,
    )
    .map_err(|e| format!("{e}"))
}
