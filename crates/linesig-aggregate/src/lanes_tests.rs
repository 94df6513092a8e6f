//! The run-time-dispatched prover against Plonky3's: each path this CPU runs proves
//! the very bytes Plonky3's quotient and opening prove, the public columns the verifier
//! evaluates are their polynomials, and the opening's products equal their definitions
//! on shapes that are not whole lanes.

use super::lanes::dots::{column_dots, row_dots};
use super::lanes::ProverPath;
use super::soundness_tests::{cases, signers, valid};
use super::statement::{self, AggregateAir, Claim, ConstraintShape};
use super::{capacity, prover, stark, verifier, Instance};
use linesig::leansig::internals::lanes::to_monty;
use p3_field::{BasedVectorSpace, PrimeCharacteristicRing, PrimeField32};
use p3_koala_bear::KoalaBear;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

type Challenge = stark::Challenge;

fn random_element(rng: &mut ChaCha8Rng) -> KoalaBear {
    KoalaBear::from_u32(rng.gen_range(0..KoalaBear::ORDER_U32))
}

fn random_challenge(rng: &mut ChaCha8Rng) -> Challenge {
    Challenge::from_basis_coefficients_fn(|_| random_element(rng))
}

#[test]
fn lanes_read_plonky3s_montgomery_words() {
    let mut rng = ChaCha8Rng::seed_from_u64(5);
    let mut elements: Vec<KoalaBear> = (0..1000).map(|_| random_element(&mut rng)).collect();
    elements.extend([KoalaBear::ZERO, KoalaBear::ONE, KoalaBear::NEG_ONE]);
    let words = super::lanes::monty_words(&elements);
    for (x, &w) in elements.iter().zip(words) {
        assert_eq!(w, to_monty(x.as_canonical_u32()), "{x}");
    }
}

#[test]
fn every_path_proves_the_bytes_of_plonky3s_prover_holding_the_extension() {
    let cases = cases();
    let items = valid(&cases);
    assert!(items.len() >= 3, "the shared vectors have valid signatures");
    let paths = ProverPath::supported();
    eprintln!("paths on this CPU: {paths:?}");
    for count in [1, 3] {
        let signers = signers(&items[..count]);
        let claims: Vec<Claim> = signers.iter().map(|(c, _)| *c).collect();
        let air = AggregateAir::new(&claims, capacity(Instance::Devnet4));
        let reference = prover::prove_by_plonky3(&air, air.trace(&signers));
        verifier::verify(&stark::config(), &air, &reference).expect("the reference verifies");
        let reference = stark::encode(count as u32, &reference);
        for &path in &paths {
            let config = stark::config_on(path);
            let trace = air.trace_with(&signers, super::lanes::fill_block(path));
            assert!(
                trace == air.trace(&signers),
                "{count} signers: the {} path's trace differs",
                path.name()
            );
            let proof = prover::prove(&config, &air, trace, path);
            assert!(
                stark::encode(count as u32, &proof) == reference,
                "{count} signers: the {} path's proof differs from Plonky3's prover's",
                path.name()
            );
        }
    }
}

/// What the verifier uses for the public columns at ζ is their polynomials' value
/// there, computed another way: coefficients by Plonky3's inverse transform of the
/// columns, then Horner at the point. Lists that fill their domain and lists padded
/// with empty blocks; random points of the extension.
#[test]
fn the_public_columns_at_a_point_are_their_polynomials_value() {
    use p3_dft::{Radix2Dit, TwoAdicSubgroupDft};
    let cases = cases();
    let items = valid(&cases);
    let mut rng = ChaCha8Rng::seed_from_u64(11);
    for count in [1, 2, 3, 5, 8] {
        let claims: Vec<Claim> = (0..count)
            .map(|i| signers(&items[i % items.len()..][..1])[0].0)
            .map(|mut claim| {
                claim.epoch ^= rng.gen_range(0..1 << 20);
                claim
            })
            .collect();
        let degree_bits = AggregateAir::degree_bits(count);
        let columns = statement::preprocessed_trace(&claims);
        let coefficients = Radix2Dit::default().idft_batch(columns.clone());
        for _ in 0..3 {
            let point = random_challenge(&mut rng);
            let expected: Vec<Challenge> = (0..columns.width)
                .map(|j| {
                    (0..1 << degree_bits).rev().fold(Challenge::ZERO, |acc, i| {
                        acc * point + coefficients.values[i * columns.width + j]
                    })
                })
                .collect();
            assert_eq!(
                statement::preprocessed_at(&claims, point),
                expected,
                "{count} claims"
            );
        }
    }
}

/// The prover's once-per-process symbolic evaluation holds for every list: evaluated
/// afresh for lists of 1, 3 and 5 claims, it gives what the cache holds (filled from
/// whichever list came first in this process): the same quotient degree and the same
/// constraint order.
#[test]
fn the_constraint_shape_is_every_lists() {
    let cases = cases();
    let items = valid(&cases);
    let signers = signers(&items[..5.min(items.len())]);
    let claims: Vec<Claim> = signers.iter().map(|(c, _)| *c).collect();
    let cached = AggregateAir::new(&claims, capacity(Instance::Devnet4)).constraint_shape();
    for count in [1, 3, claims.len()] {
        let fresh = ConstraintShape::of(&AggregateAir::new(
            &claims[..count],
            capacity(Instance::Devnet4),
        ));
        assert_eq!(
            fresh.log_quotient_chunks, cached.log_quotient_chunks,
            "{count}"
        );
        assert_eq!(
            fresh.layout.base_indices, cached.layout.base_indices,
            "{count}"
        );
        assert_eq!(
            fresh.layout.ext_indices, cached.layout.ext_indices,
            "{count}"
        );
    }
}

#[test]
fn the_opening_products_are_their_definitions() {
    let mut rng = ChaCha8Rng::seed_from_u64(9);
    // Widths around a lane's sixteen, row counts around a task's 256 rows.
    for (rows, width) in [(1, 1), (3, 15), (300, 16), (257, 37), (64, 920)] {
        let values: Vec<KoalaBear> = (0..rows * width)
            .map(|_| random_element(&mut rng))
            .collect();
        let powers: Vec<Challenge> = (0..width + 3).map(|_| random_challenge(&mut rng)).collect();
        let weights: Vec<Challenge> = (0..rows).map(|_| random_challenge(&mut rng)).collect();
        let row_expected: Vec<Challenge> = values
            .chunks(width)
            .map(|row| row.iter().zip(&powers).map(|(&x, &p)| p * x).sum())
            .collect();
        let column_expected: Vec<Challenge> = (0..width)
            .map(|c| (0..rows).map(|r| weights[r] * values[r * width + c]).sum())
            .collect();
        for path in ProverPath::supported() {
            let name = path.name();
            assert_eq!(
                row_dots(path, &values, width, &powers),
                row_expected,
                "{name} {rows}x{width}"
            );
            assert_eq!(
                column_dots(path, &values, width, &weights),
                column_expected,
                "{name} {rows}x{width}"
            );
        }
    }
}

#[test]
fn every_path_extends_as_plonky3() {
    use super::lanes::dft::LanesDft;
    use p3_dft::{Radix2DitParallel, TwoAdicSubgroupDft};
    use p3_matrix::dense::RowMajorMatrix;
    use p3_matrix::Matrix;
    let mut rng = ChaCha8Rng::seed_from_u64(13);
    let reference = Radix2DitParallel::<KoalaBear>::default();
    // Heights across the in-cache block (2^11 rows) up to a 2^16 trace's five layers
    // across blocks, widths around a lane's sixteen and a pass's 64 columns.
    for (log_height, width, added_bits) in [
        (0, 3, 3),
        (1, 16, 1),
        (5, 17, 3),
        (12, 33, 3),
        (13, 9, 2),
        (11, 71, 1),
        (13, 130, 1),
        (16, 20, 1),
    ] {
        let height = 1 << log_height;
        let values: Vec<KoalaBear> = (0..height * width)
            .map(|_| random_element(&mut rng))
            .collect();
        let shift = random_element(&mut rng);
        let matrix = RowMajorMatrix::new(values, width);
        let expected = reference
            .coset_lde_batch(matrix.clone(), added_bits, shift)
            .to_row_major_matrix();
        for path in ProverPath::supported() {
            let got = LanesDft::on(path)
                .coset_lde_batch(matrix.clone(), added_bits, shift)
                .to_row_major_matrix();
            assert!(
                got == expected,
                "{} 2^{log_height}x{width} +{added_bits}",
                path.name()
            );
        }
    }
}

/// A row's last columns, fewer than a lane vector, load with zeros past the row and store
/// without touching the words after it, on every lane type the CPU runs.
#[test]
fn partial_columns_stay_inside_the_row() {
    use super::lanes::{load_columns, store_columns};
    use linesig::leansig::internals::lanes::KoalaLanes;
    fn check<L: KoalaLanes>(name: &str) {
        for width in 1..=40usize {
            let mut buffer: Vec<u32> = (0..width as u32 + 16).map(|i| 1000 + i).collect();
            let (row, after) = buffer.split_at_mut(width);
            for at in (0..width).step_by(16) {
                let x: L = load_columns(row, at);
                let mut lanes = [0u32; 16];
                x.store(&mut lanes);
                for (k, &lane) in lanes.iter().enumerate() {
                    let expected = row.get(at + k).copied().unwrap_or(0);
                    assert_eq!(lane, expected, "{name}: width {width}, column {}", at + k);
                }
                store_columns(x.add(L::splat(1)), row, at);
            }
            assert!(
                row.iter().enumerate().all(|(i, &v)| v == 1001 + i as u32),
                "{name}: width {width}"
            );
            assert!(
                after
                    .iter()
                    .enumerate()
                    .all(|(i, &v)| v == 1000 + (width + i) as u32),
                "{name}: width {width} wrote past the row"
            );
        }
    }
    check::<linesig::leansig::internals::lanes::Portable<16>>("portable");
    #[cfg(target_arch = "x86_64")]
    for path in ProverPath::supported() {
        // SAFETY of the lane types: each is used only after its path's support is known.
        match path {
            ProverPath::Avx512 => check::<linesig_simd::u32x16::U32x16>("avx512"),
            ProverPath::Avx2 => check::<linesig::leansig::internals::lanes::KoalaAvx2x2>("avx2"),
            ProverPath::Plonky3 => {}
        }
    }
}
