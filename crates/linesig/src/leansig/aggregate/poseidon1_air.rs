//! One KoalaBear Poseidon1 permutation of width W (16 or 24, leanSig devnet-4's chain
//! and tree hashes) as a block of trace columns, with its degree-3 constraints.
//!
//! Poseidon1 (textbook form, Grassi et al. 2019 §2): 4 full rounds, RP partial rounds, 4
//! full rounds; a round adds its W round constants, cubes every element (full) or
//! element 0 (partial), and multiplies by the circulant MDS matrix. The constants are
//! Plonky3's `KOALABEAR_POSEIDON1_RC_{16,24}` and `MATRIX_CIRC_MDS_{16,24}_COL`, the ones
//! leanSig c08a3ba hashes with (`super::super::poseidon`).
//!
//! Columns, `W + 8·W + RP` (16: 164; 24: 239):
//! - the input state;
//! - the state after each of the first four full rounds;
//! - the cube of element 0 in each partial round;
//! - the state after each of the last four full rounds (the last W columns: the output).
//!
//! A block may leave its input state out (`8·W + RP` round columns, [`Poseidon1Air::eval_rounds`])
//! when the input is already in other columns of the row or in public columns: the
//! chain steps take their value, parameter and tweak that way.
//!
//! `p3-poseidon1-air` commits the whole state after every partial round (W·RP columns,
//! 768 in all at width 24). Here a partial round commits only its cube: the state
//! through the partial rounds is an affine function of the fifth full round's input and
//! the cubes before it, whose coefficients are computed once ([`Poseidon1Air::new`]),
//! so every constraint stays of degree 3 over a third of the columns.

use p3_air::AirBuilder;
use p3_field::{Algebra, PrimeCharacteristicRing};
use p3_koala_bear::{
    KoalaBear, MDSKoalaBearData, KOALABEAR_POSEIDON1_RC_16, KOALABEAR_POSEIDON1_RC_24,
    KOALABEAR_POSEIDON_HALF_FULL_ROUNDS, KOALABEAR_POSEIDON_PARTIAL_ROUNDS_16,
    KOALABEAR_POSEIDON_PARTIAL_ROUNDS_24,
};
use p3_monty_31::MDSUtils;

const HALF_FULL: usize = KOALABEAR_POSEIDON_HALF_FULL_ROUNDS;

/// An affine form Σ coefficients[i]·v_i + constant over a permutation block's
/// "partial-phase" variables: the W inputs of the first partial round, then the cubes.
#[derive(Clone, Debug)]
struct AffineForm {
    coefficients: Vec<KoalaBear>,
    constant: KoalaBear,
}

impl AffineForm {
    /// The form at `vars`: field elements (filling the trace) or the constraint
    /// builder's expressions (one code path, so the two cannot drift apart).
    fn apply<E: Algebra<KoalaBear>>(&self, vars: &[E]) -> E {
        let mut sum = E::from(self.constant);
        for (&c, v) in self.coefficients.iter().zip(vars) {
            if c != KoalaBear::ZERO {
                sum += v.clone() * c;
            }
        }
        sum
    }
}

/// The constants of Poseidon1 of width W and what the constraints derive from them.
#[derive(Clone, Debug)]
pub struct Poseidon1Air<const W: usize> {
    partial_rounds: usize,
    /// Round constants, one row per round (full, partial, full).
    round_constants: Vec<[KoalaBear; W]>,
    /// The MDS matrix, dense: mds[i][j] = column[(i − j) mod W].
    mds: [[KoalaBear; W]; W],
    /// Partial round r: its S-box input, over the partial-phase variables.
    sbox_inputs: Vec<AffineForm>,
    /// The state after the last partial round, over the partial-phase variables.
    after_partial: Vec<AffineForm>,
}

/// Width 16: the chain steps.
pub fn poseidon1_16() -> Poseidon1Air<16> {
    Poseidon1Air::new(
        KOALABEAR_POSEIDON_PARTIAL_ROUNDS_16,
        MDSKoalaBearData::MATRIX_CIRC_MDS_16_COL,
        &KOALABEAR_POSEIDON1_RC_16,
    )
}

/// Width 24: the message hash, the leaf sponge and the tree nodes.
pub fn poseidon1_24() -> Poseidon1Air<24> {
    Poseidon1Air::new(
        KOALABEAR_POSEIDON_PARTIAL_ROUNDS_24,
        MDSKoalaBearData::MATRIX_CIRC_MDS_24_COL,
        &KOALABEAR_POSEIDON1_RC_24,
    )
}

impl<const W: usize> Poseidon1Air<W> {
    fn new(
        partial_rounds: usize,
        mds_column: [i64; W],
        round_constants: &[[KoalaBear; W]],
    ) -> Self {
        assert_eq!(round_constants.len(), 2 * HALF_FULL + partial_rounds);
        let column = mds_column.map(KoalaBear::from_i64);
        let mds = core::array::from_fn(|i| core::array::from_fn(|j| column[(W + i - j) % W]));
        let vars = W + partial_rounds;
        let unit = |i: usize| AffineForm {
            coefficients: (0..vars).map(|k| KoalaBear::from_bool(k == i)).collect(),
            constant: KoalaBear::ZERO,
        };
        // Walk the partial rounds over affine forms: element 0's cube becomes variable
        // W + r, the rest pass through the constants and the MDS matrix.
        let mut state: Vec<AffineForm> = (0..W).map(unit).collect();
        let mut sbox_inputs = Vec::with_capacity(partial_rounds);
        for r in 0..partial_rounds {
            let constants = &round_constants[HALF_FULL + r];
            for (form, &c) in state.iter_mut().zip(constants) {
                form.constant += c;
            }
            sbox_inputs.push(state[0].clone());
            state[0] = unit(W + r);
            state = (0..W)
                .map(|i| {
                    let mut out = AffineForm {
                        coefficients: vec![KoalaBear::ZERO; vars],
                        constant: KoalaBear::ZERO,
                    };
                    for (form, &m) in state.iter().zip(&mds[i]) {
                        for (o, &c) in out.coefficients.iter_mut().zip(&form.coefficients) {
                            *o += m * c;
                        }
                        out.constant += m * form.constant;
                    }
                    out
                })
                .collect();
        }
        Poseidon1Air {
            partial_rounds,
            round_constants: round_constants.to_vec(),
            mds,
            sbox_inputs,
            after_partial: state,
        }
    }

    /// Columns of one permutation block.
    pub const fn columns(&self) -> usize {
        W + self.round_columns()
    }

    /// Columns of the rounds alone: a block whose input state lives elsewhere (other
    /// columns of the row, or public values) and comes in as expressions.
    pub const fn round_columns(&self) -> usize {
        8 * W + self.partial_rounds
    }

    /// Where the output state starts in the block.
    pub const fn output_offset(&self) -> usize {
        W + self.round_output_offset()
    }

    /// Where the output state starts in the round columns.
    pub const fn round_output_offset(&self) -> usize {
        4 * W + self.partial_rounds + 3 * W
    }

    /// The permutation, computed in the clear (the reference the block is filled from).
    pub fn permute(&self, input: [KoalaBear; W]) -> [KoalaBear; W] {
        let mut rounds = vec![KoalaBear::ZERO; self.round_columns()];
        self.fill_rounds(input, &mut rounds);
        core::array::from_fn(|i| rounds[self.round_output_offset() + i])
    }

    /// Write one permutation of `input` into `block` (`columns()` long).
    pub fn fill(&self, input: [KoalaBear; W], block: &mut [KoalaBear]) {
        debug_assert_eq!(block.len(), self.columns());
        block[..W].copy_from_slice(&input);
        self.fill_rounds(input, &mut block[W..]);
    }

    /// Write the rounds of one permutation of `input` into `rounds`
    /// (`round_columns()` long).
    pub fn fill_rounds(&self, input: [KoalaBear; W], rounds: &mut [KoalaBear]) {
        debug_assert_eq!(rounds.len(), self.round_columns());
        let mut state = input.to_vec();
        for round in 0..HALF_FULL {
            state = self.full_round(round, state);
            rounds[W * round..W * (round + 1)].copy_from_slice(&state);
        }
        let partial_at = 4 * W;
        let mut vars = state;
        for (r, form) in self.sbox_inputs.iter().enumerate() {
            let cube = form.apply(&vars).cube();
            rounds[partial_at + r] = cube;
            vars.push(cube);
        }
        let mut state: Vec<KoalaBear> = self.after_partial.iter().map(|f| f.apply(&vars)).collect();
        let terminal_at = partial_at + self.partial_rounds;
        for round in 0..HALF_FULL {
            state = self.full_round(HALF_FULL + self.partial_rounds + round, state);
            rounds[terminal_at + W * round..terminal_at + W * (round + 1)].copy_from_slice(&state);
        }
    }

    /// Constrain `block` (`columns()` variables of the current row) to be one
    /// permutation: 8·W + RP constraints of degree 3.
    pub fn eval<AB: AirBuilder<F = KoalaBear>>(&self, builder: &mut AB, block: &[AB::Var]) {
        let input = block[..W].iter().map(|&v| v.into()).collect();
        self.eval_rounds(builder, input, &block[W..]);
    }

    /// Constrain `rounds` (`round_columns()` variables of the current row) to be the
    /// rounds of one permutation of `input`. The input expressions must have degree 1
    /// (the first round cubes them): columns, or columns plus constants.
    pub fn eval_rounds<AB: AirBuilder<F = KoalaBear>>(
        &self,
        builder: &mut AB,
        input: Vec<AB::Expr>,
        rounds: &[AB::Var],
    ) {
        debug_assert_eq!((input.len(), rounds.len()), (W, self.round_columns()));
        let vars = |range: core::ops::Range<usize>| -> Vec<AB::Expr> {
            rounds[range].iter().map(|&v| v.into()).collect()
        };
        let mut input = input;
        for round in 0..HALF_FULL {
            let output = self.full_round(round, input);
            assert_block(builder, output, &rounds[W * round..W * (round + 1)]);
            input = vars(W * round..W * (round + 1));
        }
        // Partial-phase variables: the fourth full round's output, then the cubes.
        let partial = vars(3 * W..4 * W + self.partial_rounds);
        for (r, form) in self.sbox_inputs.iter().enumerate() {
            builder.assert_eq(form.apply(&partial).cube(), partial[W + r].clone());
        }
        // The first terminal round reads the affine state, not committed columns.
        let terminal_at = 4 * W + self.partial_rounds;
        let mut input: Vec<AB::Expr> = self
            .after_partial
            .iter()
            .map(|f| f.apply(&partial))
            .collect();
        for k in 0..HALF_FULL {
            let round = HALF_FULL + self.partial_rounds + k;
            let at = terminal_at + W * k;
            let output = self.full_round(round, input);
            assert_block(builder, output, &rounds[at..at + W]);
            input = vars(at..at + W);
        }
    }

    /// MDS · (state + round constants)^3, on field elements (filling the trace) or on
    /// the constraint builder's expressions.
    fn full_round<E: Algebra<KoalaBear>>(&self, round: usize, state: Vec<E>) -> Vec<E> {
        let cubed: Vec<E> = state
            .into_iter()
            .zip(&self.round_constants[round])
            .map(|(x, &c)| (x + c).cube())
            .collect();
        self.mds
            .iter()
            .map(|row| {
                let mut sum = E::ZERO;
                for (x, &m) in cubed.iter().zip(row) {
                    sum += x.clone() * m;
                }
                sum
            })
            .collect()
    }
}

fn assert_block<AB: AirBuilder>(builder: &mut AB, computed: Vec<AB::Expr>, committed: &[AB::Var]) {
    for (x, &v) in computed.into_iter().zip(committed) {
        builder.assert_eq(x, v);
    }
}
