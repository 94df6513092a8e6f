//! The Poseidon1 and Poseidon2 constants in the forms the lanes compute with: Montgomery
//! form, Poseidon1's MDS as a [`Circulant`] (its spectrum, for the NTT-based product),
//! Poseidon2's internal diagonal as [`DiagonalEntry`]s (shifts where it can), converted
//! once per process from the constants [`crate::leansig::poseidon`] takes from Plonky3.

use super::portable::Portable;
use super::{circulant_split, ntt_column, to_monty, Circulant, DiagonalEntry, KoalaLanes};
use crate::leansig::poseidon::{legacy_poseidon2_split, Poseidon2Rounds};
use p3_field::{Field, PrimeCharacteristicRing, PrimeField32, TwoAdicField};
use p3_koala_bear::{
    GenericPoseidon2LinearLayersKoalaBear, KoalaBear, KOALABEAR_POSEIDON1_RC_16,
    KOALABEAR_POSEIDON1_RC_24, KOALABEAR_POSEIDON2_RC_16_EXTERNAL_FINAL,
    KOALABEAR_POSEIDON2_RC_16_EXTERNAL_INITIAL, KOALABEAR_POSEIDON2_RC_16_INTERNAL,
    KOALABEAR_POSEIDON2_RC_24_EXTERNAL_FINAL, KOALABEAR_POSEIDON2_RC_24_EXTERNAL_INITIAL,
    KOALABEAR_POSEIDON2_RC_24_INTERNAL, KOALABEAR_POSEIDON_HALF_FULL_ROUNDS,
    KOALABEAR_POSEIDON_PARTIAL_ROUNDS_16, KOALABEAR_POSEIDON_PARTIAL_ROUNDS_24,
};
use p3_monty_31::MDSUtils;
use p3_poseidon2::GenericPoseidon2LinearLayers;
use std::sync::OnceLock;

/// Poseidon1 of width W, in the form [`super::lanes::poseidon1_lanes`] applies.
pub(crate) struct Poseidon1Constants<const W: usize> {
    pub initial: Vec<[u32; W]>,
    pub terminal: Vec<[u32; W]>,
    /// The circulant MDS matrix.
    pub mds: Circulant<W>,
    pub first_round_constants: [u32; W],
    /// The dense transition matrix applied once before the partial rounds.
    pub m_i: [[u32; W]; W],
    pub sparse_first_row: Vec<[u32; W]>,
    /// First columns (without the [0,0] entry) of the sparse matrices.
    pub v: Vec<[u32; W]>,
    /// Scalar constants of partial rounds 0..RP−1 (the last has none).
    pub round_constants: Vec<u32>,
}

/// Poseidon2 of width W, in the form [`super::lanes::poseidon2_lanes`] applies.
pub(crate) struct Poseidon2Constants<const W: usize> {
    pub initial: Vec<[u32; W]>,
    pub internal: Vec<u32>,
    pub terminal: Vec<[u32; W]>,
    /// V of the internal matrix 1 + diag(V).
    pub diagonal: [DiagonalEntry; W],
}

pub(crate) struct Constants {
    pub poseidon1_16: Poseidon1Constants<16>,
    pub poseidon1_24: Poseidon1Constants<24>,
    pub poseidon2_16: Poseidon2Constants<16>,
    pub poseidon2_24: Poseidon2Constants<24>,
}

pub(crate) fn constants() -> &'static Constants {
    static CONSTANTS: OnceLock<Constants> = OnceLock::new();
    CONSTANTS.get_or_init(|| Constants {
        poseidon1_16: poseidon1(
            KOALABEAR_POSEIDON_PARTIAL_ROUNDS_16,
            p3_koala_bear::MDSKoalaBearData::MATRIX_CIRC_MDS_16_COL,
            &KOALABEAR_POSEIDON1_RC_16,
        ),
        poseidon1_24: poseidon1(
            KOALABEAR_POSEIDON_PARTIAL_ROUNDS_24,
            p3_koala_bear::MDSKoalaBearData::MATRIX_CIRC_MDS_24_COL,
            &KOALABEAR_POSEIDON1_RC_24,
        ),
        poseidon2_16: poseidon2(legacy_poseidon2_split(
            &KOALABEAR_POSEIDON2_RC_16_EXTERNAL_INITIAL,
            &KOALABEAR_POSEIDON2_RC_16_INTERNAL,
            &KOALABEAR_POSEIDON2_RC_16_EXTERNAL_FINAL,
        )),
        poseidon2_24: poseidon2(legacy_poseidon2_split(
            &KOALABEAR_POSEIDON2_RC_24_EXTERNAL_INITIAL,
            &KOALABEAR_POSEIDON2_RC_24_INTERNAL,
            &KOALABEAR_POSEIDON2_RC_24_EXTERNAL_FINAL,
        )),
    })
}

fn monty(x: KoalaBear) -> u32 {
    to_monty(x.as_canonical_u32())
}

fn monty_row<const W: usize>(row: &[KoalaBear; W]) -> [u32; W] {
    core::array::from_fn(|i| monty(row[i]))
}

fn poseidon1<const W: usize>(
    rounds_p: usize,
    mds_circ_col: [i64; W],
    round_constants: &[[KoalaBear; W]],
) -> Poseidon1Constants<W> {
    let raw = p3_poseidon1::Poseidon1Constants {
        rounds_f: 2 * KOALABEAR_POSEIDON_HALF_FULL_ROUNDS,
        rounds_p,
        mds_circ_col,
        round_constants: round_constants.to_vec(),
    };
    let (full, partial) = raw.to_optimized();
    let rows = |m: &[[KoalaBear; W]; W]| core::array::from_fn(|i| monty_row(&m[i]));
    Poseidon1Constants {
        initial: full.initial.iter().map(monty_row).collect(),
        terminal: full.terminal.iter().map(monty_row).collect(),
        mds: circulant(&full.dense_mds),
        first_round_constants: monty_row(&partial.first_round_constants),
        m_i: rows(&partial.m_i),
        sparse_first_row: partial.sparse_first_row.iter().map(monty_row).collect(),
        v: partial.v.iter().map(monty_row).collect(),
        round_constants: partial.round_constants.iter().map(|&c| monty(c)).collect(),
    }
}

/// The [`Circulant`] form of a dense circulant matrix (M[i][j] = c[(i − j) mod W]).
fn circulant<const W: usize>(dense: &[[KoalaBear; W]; W]) -> Circulant<W> {
    let (n, m) = circulant_split(W);
    // CRT position (a, b) ↔ the index i with i ≡ a (mod n), i ≡ b (mod m).
    let mut index = [0usize; W];
    for i in 0..W {
        index[(i % n) * m + i % m] = i;
    }
    let omega = KoalaBear::two_adic_generator(n.trailing_zeros() as usize);
    let powers = |root: KoalaBear| -> Vec<u32> {
        (0..n / 2).map(|t| monty(root.exp_u64(t as u64))).collect()
    };
    let twiddles = powers(omega);
    // The first column laid out by CRT position, transformed as the state will be.
    let mut column: [Portable<1>; W] =
        core::array::from_fn(|t| Portable::splat(monty(dense[index[t]][0])));
    for b in 0..m {
        ntt_column(&mut column, b, &twiddles);
    }
    let n_inverse = Portable::<1>::splat(monty(KoalaBear::from_u64(n as u64).inverse()));
    let spectrum = core::array::from_fn(|t| {
        let mut out = [0u32; 1];
        column[t].mul(n_inverse).store(&mut out);
        out[0]
    });
    Circulant {
        index,
        twiddles,
        inverse_twiddles: powers(omega.inverse()),
        spectrum,
    }
}

/// V_i as ±k (k ≤ 4), ±2^−k (k ≤ 24), or a general constant.
fn diagonal_entry(v: KoalaBear) -> DiagonalEntry {
    for negative in [false, true] {
        let signed = |x: KoalaBear| if negative { -x } else { x };
        for k in 1..=4u32 {
            if v == signed(KoalaBear::from_u32(k)) {
                return DiagonalEntry::Small { k, negative };
            }
        }
        for k in 1..=24u32 {
            if v == signed(KoalaBear::from_u32(1 << k).inverse()) {
                return DiagonalEntry::InversePowerOfTwo { k, negative };
            }
        }
    }
    DiagonalEntry::Product(monty(v))
}

fn poseidon2<const W: usize>(
    (initial, internal, terminal): Poseidon2Rounds<W>,
) -> Poseidon2Constants<W>
where
    GenericPoseidon2LinearLayersKoalaBear: GenericPoseidon2LinearLayers<W>,
{
    // The internal layer maps the unit vector e_i to 1 + V_i at i (and 1 elsewhere).
    let diagonal = core::array::from_fn(|i| {
        let mut unit = [KoalaBear::ZERO; W];
        unit[i] = KoalaBear::ONE;
        GenericPoseidon2LinearLayersKoalaBear::internal_linear_layer(&mut unit);
        diagonal_entry(unit[i] - KoalaBear::ONE)
    });
    Poseidon2Constants {
        initial: initial.iter().map(monty_row).collect(),
        internal: internal.iter().map(|&c| monty(c)).collect(),
        terminal: terminal.iter().map(monty_row).collect(),
        diagonal,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::leansig::lanes::portable::Portable;
    use crate::leansig::lanes::{from_monty, KoalaLanes};
    use p3_symmetric::Permutation;
    use rand::{Rng, SeedableRng};

    fn random_state<const W: usize>(rng: &mut impl Rng) -> [u32; W] {
        core::array::from_fn(|_| rng.gen_range(0..crate::leansig::lanes::P))
    }

    /// Our permutation on lanes `L` against Plonky3's on the same states.
    fn check<L: KoalaLanes, const W: usize>(
        ours: fn(&mut [L; W]),
        reference: &impl Permutation<[KoalaBear; W]>,
    ) {
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(W as u64);
        for _ in 0..8 {
            let inputs: Vec<[u32; W]> = (0..L::N).map(|_| random_state(&mut rng)).collect();
            let mut state: [L; W] = core::array::from_fn(|i| {
                let column: Vec<u32> = inputs.iter().map(|s| to_monty(s[i])).collect();
                L::load(&column)
            });
            ours(&mut state);
            for (lane, input) in inputs.iter().enumerate() {
                let expected =
                    reference.permute(core::array::from_fn(|i| KoalaBear::new(input[i])));
                for i in 0..W {
                    let mut column = vec![0u32; L::N];
                    state[i].store(&mut column);
                    assert_eq!(
                        from_monty(column[lane]),
                        expected[i].as_canonical_u32(),
                        "width {W}, lane {lane}, element {i}"
                    );
                }
            }
        }
    }

    /// Plonky3's Poseidon2 with the constants cut as the legacy instances use them.
    macro_rules! legacy_poseidon2 {
        ($w:literal, $initial:ident, $internal:ident, $terminal:ident) => {{
            let (initial, internal, terminal) =
                legacy_poseidon2_split::<$w>(&$initial, &$internal, &$terminal);
            p3_koala_bear::Poseidon2KoalaBear::<$w>::new(
                p3_poseidon2::ExternalLayerConstants::new(initial, terminal),
                internal,
            )
        }};
    }

    fn check_all<L: KoalaLanes>() {
        check::<L, 16>(
            L::poseidon1_16,
            &p3_koala_bear::default_koalabear_poseidon1_16(),
        );
        check::<L, 24>(
            L::poseidon1_24,
            &p3_koala_bear::default_koalabear_poseidon1_24(),
        );
        let legacy_16 = legacy_poseidon2!(
            16,
            KOALABEAR_POSEIDON2_RC_16_EXTERNAL_INITIAL,
            KOALABEAR_POSEIDON2_RC_16_INTERNAL,
            KOALABEAR_POSEIDON2_RC_16_EXTERNAL_FINAL
        );
        let legacy_24 = legacy_poseidon2!(
            24,
            KOALABEAR_POSEIDON2_RC_24_EXTERNAL_INITIAL,
            KOALABEAR_POSEIDON2_RC_24_INTERNAL,
            KOALABEAR_POSEIDON2_RC_24_EXTERNAL_FINAL
        );
        check::<L, 16>(L::poseidon2_16, &legacy_16);
        check::<L, 24>(L::poseidon2_24, &legacy_24);
    }

    #[test]
    fn permutations_match_plonky3_on_every_lane_width() {
        check_all::<Portable<1>>();
        check_all::<Portable<8>>();
        check_all::<Portable<16>>();
        if crate::leansig::lanes::avx2::supported() {
            check_all::<linesig_simd::u32x8::U32x8>();
            check_all::<crate::leansig::lanes::avx2::KoalaAvx2x2>();
        }
        if crate::leansig::lanes::avx512::supported() {
            check_all::<linesig_simd::u32x16::U32x16>();
        }
    }

    #[test]
    fn halving_by_shifts_is_a_product_with_two_to_the_minus_k() {
        use crate::leansig::lanes::{div_2exp_scalar, monty_mul, P};
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(5);
        for k in 1..=24 {
            let inverse = monty(KoalaBear::from_u32(1 << k).inverse());
            for x in [0, 1, P - 1, (1 << k) - 1, 1 << k]
                .into_iter()
                .chain((0..200).map(|_| rng.gen_range(0..P)))
            {
                assert_eq!(div_2exp_scalar(x, k), monty_mul(x, inverse), "x {x}, k {k}");
            }
        }
        // KoalaBear's diagonals need no general product.
        for entry in constants()
            .poseidon2_16
            .diagonal
            .iter()
            .chain(&constants().poseidon2_24.diagonal)
        {
            assert!(!matches!(entry, DiagonalEntry::Product(_)), "{entry:?}");
        }
    }

    #[test]
    fn montgomery_round_trip() {
        for x in [0, 1, 2, crate::leansig::lanes::P - 1, 12345678] {
            assert_eq!(from_monty(to_monty(x)), x);
        }
    }
}
#[cfg(test)]
mod timing {
    #[test]
    #[ignore]
    fn time_permutations() {
        use crate::leansig::lanes::avx2::KoalaAvx2x2;
        use crate::leansig::lanes::KoalaLanes;
        let mut s16 = [KoalaAvx2x2::splat(1); 16];
        let mut s24 = [KoalaAvx2x2::splat(1); 24];
        let n = 200_000;
        for (name, f16, f24) in [
            (
                "p1",
                KoalaAvx2x2::poseidon1_16 as fn(&mut [KoalaAvx2x2; 16]),
                KoalaAvx2x2::poseidon1_24 as fn(&mut [KoalaAvx2x2; 24]),
            ),
            ("p2", KoalaAvx2x2::poseidon2_16, KoalaAvx2x2::poseidon2_24),
        ] {
            let t = std::time::Instant::now();
            for _ in 0..n {
                f16(&mut s16);
            }
            eprintln!(
                "{name} w16 {:.1} ns/lane",
                t.elapsed().as_nanos() as f64 / (16 * n) as f64
            );
            let t = std::time::Instant::now();
            for _ in 0..n {
                f24(&mut s24);
            }
            eprintln!(
                "{name} w24 {:.1} ns/lane",
                t.elapsed().as_nanos() as f64 / (16 * n) as f64
            );
        }
    }
}
