//! The permutation blocks against Plonky3's Poseidon1 and leanSig's own hashing, and a
//! hash-chain AIR built from them proved and verified end to end: honest traces pass
//! Plonky3's constraint checker, every corrupted column class fails it, and proofs fail
//! to verify against a wrong public value or with any sampled byte flipped.

use super::poseidon1_air::{poseidon1_16, poseidon1_24, Poseidon1Air, CONSTRAINT_DEGREE};
use super::stark::{self, ProofFormatError};
use p3_air::{Air, AirBuilder, BaseAir, WindowAccess};
use p3_field::PrimeCharacteristicRing;
use p3_koala_bear::{default_koalabear_poseidon1_16, default_koalabear_poseidon1_24, KoalaBear};
use p3_matrix::dense::RowMajorMatrix;
use p3_symmetric::Permutation;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

fn random_state<const W: usize>(rng: &mut ChaCha8Rng) -> [KoalaBear; W] {
    core::array::from_fn(|_| KoalaBear::from_u32(rng.gen_range(0..0x7f00_0001)))
}

#[test]
fn blocks_permute_as_plonky3_poseidon1() {
    let mut rng = ChaCha8Rng::seed_from_u64(21);
    let (air16, air24) = (poseidon1_16(16), poseidon1_24(24));
    let (p16, p24) = (
        default_koalabear_poseidon1_16(),
        default_koalabear_poseidon1_24(),
    );
    assert_eq!((air16.columns(), air24.columns()), (100, 143));
    // A block that keeps fewer outputs drops only the last columns, and its filled
    // columns are the full block's.
    let (kept16, kept24) = (poseidon1_16(8), poseidon1_24(17));
    assert_eq!((kept16.columns(), kept24.columns()), (92, 136));
    let x: [KoalaBear; 16] = random_state(&mut rng);
    let (mut full, mut kept) = (vec![KoalaBear::ZERO; 100], vec![KoalaBear::ZERO; 92]);
    air16.fill(x, &mut full);
    kept16.fill(x, &mut kept);
    assert_eq!(full[..92], kept[..]);
    assert_eq!(kept16.permute(x), p16.permute(x));
    for _ in 0..50 {
        let x: [KoalaBear; 16] = random_state(&mut rng);
        assert_eq!(air16.permute(x), p16.permute(x));
        let y: [KoalaBear; 24] = random_state(&mut rng);
        assert_eq!(air24.permute(y), p24.permute(y));
    }
    let edges = [KoalaBear::ZERO, KoalaBear::ONE, KoalaBear::NEG_ONE];
    for e in edges {
        assert_eq!(air24.permute([e; 24]), p24.permute([e; 24]));
        assert_eq!(air16.permute([e; 16]), p16.permute([e; 16]));
    }
}

/// Rows of one width-24 and one width-16 permutation, chained: row i + 1's width-24
/// input is row i's output, and its width-16 input is that output's first 16
/// elements. Public values: the first width-24 input (24), the last output's first 8.
/// The width-16 block keeps 8 of its outputs.
struct ChainAir {
    p16: Poseidon1Air<16>,
    p24: Poseidon1Air<24>,
}

impl ChainAir {
    fn new() -> Self {
        ChainAir {
            p16: poseidon1_16(8),
            p24: poseidon1_24(24),
        }
    }

    fn trace(&self, first: [KoalaBear; 24], rows: usize) -> RowMajorMatrix<KoalaBear> {
        let width = BaseAir::<KoalaBear>::width(self);
        let mut values = vec![KoalaBear::ZERO; rows * width];
        let mut input = first;
        for row in values.chunks_mut(width) {
            let (b24, b16) = row.split_at_mut(self.p24.columns());
            self.p24.fill(input, b24);
            self.p16.fill(core::array::from_fn(|i| input[i]), b16);
            input = core::array::from_fn(|i| b24[self.p24.output_offset() + i]);
        }
        RowMajorMatrix::new(values, width)
    }

    fn public_values(
        &self,
        trace: &RowMajorMatrix<KoalaBear>,
        first: [KoalaBear; 24],
    ) -> Vec<KoalaBear> {
        let last = &trace.values[trace.values.len() - trace.width..];
        let out = &last[self.p24.output_offset()..self.p24.output_offset() + 8];
        first.iter().chain(out).copied().collect()
    }
}

impl BaseAir<KoalaBear> for ChainAir {
    fn width(&self) -> usize {
        self.p24.columns() + self.p16.columns()
    }

    fn num_public_values(&self) -> usize {
        32
    }

    fn max_constraint_degree(&self) -> Option<usize> {
        Some(CONSTRAINT_DEGREE)
    }
}

impl<AB: AirBuilder<F = KoalaBear>> Air<AB> for ChainAir {
    fn eval(&self, builder: &mut AB) {
        let main = builder.main();
        let local = main.current_slice().to_vec();
        let next = main.next_slice().to_vec();
        let public: Vec<AB::PublicVar> = builder.public_values().to_vec();
        let (b24, b16) = local.split_at(self.p24.columns());
        self.p24.eval(builder, b24);
        self.p16.eval(builder, b16);
        let out = self.p24.output_offset();
        for i in 0..24 {
            builder.when_first_row().assert_eq(b24[i], public[i]);
            builder.when_transition().assert_eq(next[i], b24[out + i]);
        }
        for i in 0..16 {
            builder.assert_eq(b16[i], b24[i]);
        }
        for i in 0..8 {
            builder
                .when_last_row()
                .assert_eq(b24[out + i], public[24 + i]);
        }
    }
}

fn violates(air: &ChainAir, trace: &RowMajorMatrix<KoalaBear>, public: &[KoalaBear]) -> bool {
    let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        p3_air::check_constraints(air, trace, public)
    }));
    result.is_err()
}

#[test]
fn honest_traces_pass_and_every_column_class_is_constrained() {
    let air = ChainAir::new();
    let mut rng = ChaCha8Rng::seed_from_u64(7);
    let first: [KoalaBear; 24] = random_state(&mut rng);
    let trace = air.trace(first, 8);
    let public = air.public_values(&trace, first);
    assert!(!violates(&air, &trace, &public));

    // One cell of each kind in the width-24 block (input, a full round, a partial
    // round's cube, the output) and in the width-16 block, on a middle row.
    let p24 = &air.p24;
    let cells = [
        0,
        3 * 24 + 5,
        5 * 24 + 7,
        p24.output_offset() + 2,
        p24.columns() + 60,
        p24.columns() + air.p16.output_offset() + 7,
    ];
    let previous = std::panic::take_hook();
    std::panic::set_hook(Box::new(|_| {}));
    for &cell in &cells {
        let mut bad = trace.clone();
        bad.values[3 * bad.width + cell] += KoalaBear::ONE;
        assert!(
            violates(&air, &bad, &public),
            "cell {cell} is unconstrained"
        );
    }
    let mut wrong = public.clone();
    wrong[30] += KoalaBear::ONE;
    assert!(violates(&air, &trace, &wrong));
    std::panic::set_hook(previous);
}

#[test]
fn proofs_verify_and_refuse_tampering() {
    let air = ChainAir::new();
    let config = stark::config();
    let first: [KoalaBear; 24] = core::array::from_fn(|i| KoalaBear::from_usize(i * 7 + 1));
    let trace = air.trace(first, 16);
    let public = air.public_values(&trace, first);
    let proof = p3_uni_stark::prove(&config, &air, trace, &public);
    let bytes = stark::encode(1, &proof);
    let (count, decoded) = stark::decode(&bytes).expect("own bytes decode");
    assert_eq!(count, 1);
    p3_uni_stark::verify(&config, &air, &decoded, &public).expect("honest proof verifies");

    let mut wrong = public.clone();
    wrong[24] += KoalaBear::ONE;
    assert!(p3_uni_stark::verify(&config, &air, &decoded, &wrong).is_err());

    // Byte flips spread over the whole proof: each must fail to decode or to verify.
    let step = (bytes.len() / 97).max(1);
    for at in (0..bytes.len()).step_by(step) {
        let mut flipped = bytes.clone();
        flipped[at] ^= 0x01;
        if let Ok((_, p)) = stark::decode(&flipped) {
            assert!(
                p3_uni_stark::verify(&config, &air, &p, &public).is_err(),
                "flip at byte {at} of {} verified",
                bytes.len()
            );
        }
    }

    let mut trailing = bytes.clone();
    trailing.push(0);
    assert_eq!(
        stark::decode(&trailing).err(),
        Some(ProofFormatError::TrailingBytes(1))
    );
    // Proofs of earlier formats (other parameters) and of later ones are refused.
    for found in [stark::FORMAT_VERSION - 1, stark::FORMAT_VERSION + 1] {
        let mut version = bytes.clone();
        version[4] = found;
        assert_eq!(
            stark::decode(&version).err(),
            Some(ProofFormatError::UnsupportedVersion { found })
        );
    }
    assert_eq!(
        stark::decode(b"LSAX").err(),
        Some(ProofFormatError::BadMagic)
    );
    // Cut anywhere in the body: "truncated", not bincode's "size limit".
    for cut in [9, 100, bytes.len() / 2, bytes.len() - 1] {
        assert_eq!(
            stark::decode(&bytes[..cut]).err(),
            Some(ProofFormatError::Truncated),
            "cut at {cut}"
        );
    }
}
