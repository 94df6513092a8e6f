//! One KoalaBear Poseidon1 permutation of width W (16 or 24, leanSig devnet-4's chain
//! and tree hashes) as a block of trace columns, with its degree-3 constraints.
//!
//! Poseidon1 (textbook form, Grassi et al. 2019 §2): 4 full rounds, RP partial rounds, 4
//! full rounds; a round adds its W round constants, cubes every element (full) or
//! element 0 (partial), and multiplies by the circulant MDS matrix. The constants are
//! Plonky3's `KOALABEAR_POSEIDON1_RC_{16,24}` and `MATRIX_CIRC_MDS_{16,24}_COL`, the ones
//! leanSig c08a3ba hashes with (`super::super::poseidon`).
//!
//! Columns, `W + 3·W + RP + K` for a block that keeps K of the W output elements
//! (16 keeping all: 100; 24: 143):
//! - the input state;
//! - the state after the second and after the fourth full round;
//! - the cube of element 0 in each partial round;
//! - the state after the sixth full round, and the first K elements after the eighth
//!   (the last K columns: the output).
//!
//! A block keeps only the outputs its statement reads (a chain step reads 8 of 16, a
//! tree node 8 of 24): the others would be columns nothing reads, committed and opened
//! for nothing. The last round then computes only the K
//! rows of the MDS product it commits.
//!
//! Full rounds are committed in pairs: a round has degree 3, two have degree 9, and the
//! proof system's blowup of 8 (`super::stark::LOG_BLOWUP`) leaves room for a quotient of
//! degree 8, so the width is half a state per full round for the price of a wider LDE,
//! and the proof's openings (queries × width) shrink with both.
//!
//! A block may leave its input state out (`4·W + RP` round columns, [`Poseidon1Air::eval_rounds`])
//! when the input is already in other columns of the row or in public columns: the
//! chain steps take their value, parameter and tweak that way.
//!
//! `p3-poseidon1-air` commits the whole state after every partial round (W·RP columns,
//! 768 in all at width 24). Here a partial round commits only its cube: the state
//! through the partial rounds is an affine function of the fifth full round's input and
//! the cubes before it, whose coefficients are computed once ([`Poseidon1Air::new`]).
//! Every cube is committed (two in a row would compose an uncommitted cube into the
//! next one's affine form, and degree 27), so the partial phase's constraints have
//! degree 3 and its output is affine in committed columns, which the first pair of
//! terminal rounds then raises to degree 9.

use p3_air::AirBuilder;
use p3_field::{Algebra, PrimeCharacteristicRing};
use p3_koala_bear::{
    KoalaBear, MDSKoalaBearData, KOALABEAR_POSEIDON1_RC_16, KOALABEAR_POSEIDON1_RC_24,
    KOALABEAR_POSEIDON_HALF_FULL_ROUNDS, KOALABEAR_POSEIDON_PARTIAL_ROUNDS_16,
    KOALABEAR_POSEIDON_PARTIAL_ROUNDS_24,
};
use p3_monty_31::MDSUtils;

const HALF_FULL: usize = KOALABEAR_POSEIDON_HALF_FULL_ROUNDS;
/// Full rounds between two committed states.
const FUSED: usize = 2;
/// Committed states in each half of the full rounds.
const HALF_COMMITS: usize = HALF_FULL / FUSED;

/// The constraints' degree: a pair of cubing rounds.
pub const CONSTRAINT_DEGREE: usize = 9;

/// Columns of a block's rounds at width `w` with `partial_rounds` partial rounds,
/// keeping `kept` output elements.
pub const fn round_columns(w: usize, partial_rounds: usize, kept: usize) -> usize {
    round_output_offset(w, partial_rounds) + kept
}

/// Where the output starts among a block's round columns.
pub const fn round_output_offset(w: usize, partial_rounds: usize) -> usize {
    (2 * HALF_COMMITS - 1) * w + partial_rounds
}

/// An affine form Σ coefficients[i]·v_i + constant over a permutation block's
/// "partial-phase" variables: the W inputs of the first partial round, then the cubes.
#[derive(Clone, Debug)]
struct AffineForm {
    coefficients: Vec<KoalaBear>,
    constant: KoalaBear,
}

impl AffineForm {
    /// The form with its trailing zero coefficients dropped (an S-box input reads no
    /// cube committed after it), so [`apply`](Self::apply) multiplies only what counts.
    fn trimmed(mut self) -> Self {
        while self.coefficients.last() == Some(&KoalaBear::ZERO) {
            self.coefficients.pop();
        }
        self
    }

    /// The form at `vars`: field elements (filling the trace) or the constraint
    /// builder's expressions (one code path, so the two cannot drift apart).
    ///
    /// Eight terms at a time through `dot_product`, which KoalaBear and its packings
    /// reduce once per call instead of once per product: the prover evaluates these
    /// forms at every point of the quotient domain.
    fn apply<E: Algebra<KoalaBear>>(&self, vars: &[E]) -> E {
        const CHUNK: usize = 8;
        let mut sum = E::from(self.constant);
        let vars = &vars[..self.coefficients.len()];
        let mut coefficient_chunks = self.coefficients.chunks_exact(CHUNK);
        let mut var_chunks = vars.chunks_exact(CHUNK);
        for (c, v) in (&mut coefficient_chunks).zip(&mut var_chunks) {
            let v: &[E; CHUNK] = v.try_into().expect("chunks_exact yields CHUNK");
            let c: [E; CHUNK] = core::array::from_fn(|i| E::from(c[i]));
            sum += E::dot_product(v, &c);
        }
        for (&c, v) in coefficient_chunks
            .remainder()
            .iter()
            .zip(var_chunks.remainder())
        {
            sum += v.clone() * c;
        }
        sum
    }
}

/// The constants of Poseidon1 of width W and what the constraints derive from them.
#[derive(Clone, Debug)]
pub struct Poseidon1Air<const W: usize> {
    partial_rounds: usize,
    /// Output elements committed (the first ones); 1..=W.
    kept: usize,
    /// Round constants, one row per round (full, partial, full).
    round_constants: Vec<[KoalaBear; W]>,
    /// The MDS matrix, dense: mds[i][j] = column[(i − j) mod W].
    mds: [[KoalaBear; W]; W],
    /// Partial round r: its S-box input, over the partial-phase variables.
    sbox_inputs: Vec<AffineForm>,
    /// The state after the last partial round, over the partial-phase variables.
    after_partial: Vec<AffineForm>,
}

/// Width 16 (the chain steps), keeping the first `kept` output elements.
pub fn poseidon1_16(kept: usize) -> Poseidon1Air<16> {
    Poseidon1Air::new(
        KOALABEAR_POSEIDON_PARTIAL_ROUNDS_16,
        kept,
        MDSKoalaBearData::MATRIX_CIRC_MDS_16_COL,
        &KOALABEAR_POSEIDON1_RC_16,
    )
}

/// Width 24 (the message hash, the leaf sponge and the tree nodes), keeping the first
/// `kept` output elements.
pub fn poseidon1_24(kept: usize) -> Poseidon1Air<24> {
    Poseidon1Air::new(
        KOALABEAR_POSEIDON_PARTIAL_ROUNDS_24,
        kept,
        MDSKoalaBearData::MATRIX_CIRC_MDS_24_COL,
        &KOALABEAR_POSEIDON1_RC_24,
    )
}

impl<const W: usize> Poseidon1Air<W> {
    fn new(
        partial_rounds: usize,
        kept: usize,
        mds_column: [i64; W],
        round_constants: &[[KoalaBear; W]],
    ) -> Self {
        assert_eq!(round_constants.len(), 2 * HALF_FULL + partial_rounds);
        assert!((1..=W).contains(&kept), "a block keeps 1..={W} outputs");
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
            sbox_inputs.push(state[0].clone().trimmed());
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
        let after_partial = state.into_iter().map(AffineForm::trimmed).collect();
        Poseidon1Air {
            partial_rounds,
            kept,
            round_constants: round_constants.to_vec(),
            mds,
            sbox_inputs,
            after_partial,
        }
    }

    /// Columns of one permutation block.
    pub const fn columns(&self) -> usize {
        W + self.round_columns()
    }

    /// Columns of the rounds alone: a block whose input state lives elsewhere (other
    /// columns of the row, or public values) and comes in as expressions.
    pub const fn round_columns(&self) -> usize {
        round_columns(W, self.partial_rounds, self.kept)
    }

    /// Where the output state starts in the block.
    pub const fn output_offset(&self) -> usize {
        W + self.round_output_offset()
    }

    /// Where the output state starts in the round columns.
    pub const fn round_output_offset(&self) -> usize {
        round_output_offset(W, self.partial_rounds)
    }

    /// The whole permutation, computed in the clear (the reference a block is filled
    /// from), all W outputs whatever the block keeps.
    pub fn permute(&self, input: [KoalaBear; W]) -> [KoalaBear; W] {
        let mut rounds = vec![KoalaBear::ZERO; round_columns(W, self.partial_rounds, W)];
        self.fill_rounds_keeping(input, &mut rounds, W);
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
        self.fill_rounds_keeping(input, rounds, self.kept);
    }

    /// [`fill_rounds`](Self::fill_rounds) keeping `kept` outputs (W for [`permute`](Self::permute)).
    fn fill_rounds_keeping(&self, input: [KoalaBear; W], rounds: &mut [KoalaBear], kept: usize) {
        let state = self.full_half(0, input, W, |pair, state, _| {
            rounds[W * pair..W * (pair + 1)].copy_from_slice(&state);
            state
        });
        let partial_at = HALF_COMMITS * W;
        let mut vars = Vec::with_capacity(W + self.partial_rounds);
        vars.extend_from_slice(&state);
        for (r, form) in self.sbox_inputs.iter().enumerate() {
            let cube = form.apply(&vars).cube();
            rounds[partial_at + r] = cube;
            vars.push(cube);
        }
        let state = core::array::from_fn(|i| self.after_partial[i].apply(&vars));
        let terminal = &mut rounds[partial_at + self.partial_rounds..];
        self.full_half(
            HALF_FULL + self.partial_rounds,
            state,
            kept,
            |pair, state, len| {
                terminal[W * pair..W * pair + len].copy_from_slice(&state[..len]);
                state
            },
        );
    }

    /// Constrain `block` (`columns()` variables of the current row) to be one
    /// permutation: 3·W + RP + K constraints (K the outputs kept), of degree 9
    /// (full-round pairs) and 3 (cubes).
    pub fn eval<AB: AirBuilder<F = KoalaBear>>(&self, builder: &mut AB, block: &[AB::Var]) {
        let input = core::array::from_fn(|i| block[i].into());
        self.eval_rounds(builder, input, &block[W..]);
    }

    /// Constrain `rounds` (`round_columns()` variables of the current row) to be the
    /// rounds of one permutation of `input`. The input expressions must have degree 1
    /// (the first pair of rounds raises them to degree 9): columns, or columns plus
    /// constants.
    ///
    /// States are fixed arrays and the partial phase's variables one vector: the
    /// prover calls this for every block at every point of the quotient domain.
    pub fn eval_rounds<AB: AirBuilder<F = KoalaBear>>(
        &self,
        builder: &mut AB,
        input: [AB::Expr; W],
        rounds: &[AB::Var],
    ) {
        debug_assert_eq!(rounds.len(), self.round_columns());
        let column = |at: usize| -> AB::Expr { rounds[at].into() };
        self.full_half(0, input, W, |pair, state, _| {
            let at = W * pair;
            assert_block(builder, state, &rounds[at..at + W]);
            core::array::from_fn(|i| column(at + i))
        });
        // Partial-phase variables: the fourth full round's output, then the cubes.
        let partial_at = HALF_COMMITS * W;
        let partial: Vec<AB::Expr> = (partial_at - W..partial_at + self.partial_rounds)
            .map(column)
            .collect();
        for (r, form) in self.sbox_inputs.iter().enumerate() {
            builder.assert_eq(form.apply(&partial).cube(), partial[W + r].clone());
        }
        // The first terminal round reads the affine state, not committed columns.
        let terminal_at = partial_at + self.partial_rounds;
        let state = core::array::from_fn(|i| self.after_partial[i].apply(&partial));
        self.full_half(
            HALF_FULL + self.partial_rounds,
            state,
            self.kept,
            |pair, state, len| {
                let at = terminal_at + W * pair;
                assert_block(builder, state, &rounds[at..at + len]);
                // Past the last pair nothing reads the state; unkept elements are zero.
                core::array::from_fn(|i| {
                    if i < len {
                        column(at + i)
                    } else {
                        AB::Expr::ZERO
                    }
                })
            },
        );
    }

    /// The four full rounds of one half from `first_round`, handing the state after
    /// each pair to `commit` (with the pair's index in the half and how many of its
    /// elements were computed) and going on from what it returns: the same values when
    /// filling the trace, the committed columns when constraining (so no expression
    /// grows past two rounds, degree 9). The half's last round computes only the first
    /// `last_outputs` elements.
    fn full_half<E: Algebra<KoalaBear>>(
        &self,
        first_round: usize,
        mut state: [E; W],
        last_outputs: usize,
        mut commit: impl FnMut(usize, [E; W], usize) -> [E; W],
    ) -> [E; W] {
        for k in 0..HALF_FULL {
            let outputs = if k + 1 == HALF_FULL { last_outputs } else { W };
            state = self.full_round(first_round + k, &state, outputs);
            if (k + 1) % FUSED == 0 {
                state = commit(k / FUSED, state, outputs);
            }
        }
        state
    }

    /// The first `outputs` elements of MDS · (state + round constants)^3 (the rest
    /// zero), on field elements (filling the trace) or on the constraint builder's
    /// expressions. Each output is one `dot_product` (one reduction per row of the
    /// matrix on KoalaBear and its packings, not W).
    fn full_round<E: Algebra<KoalaBear>>(
        &self,
        round: usize,
        state: &[E; W],
        outputs: usize,
    ) -> [E; W] {
        let constants = &self.round_constants[round];
        let cubed: [E; W] = core::array::from_fn(|i| (state[i].clone() + constants[i]).cube());
        core::array::from_fn(|i| {
            if i < outputs {
                E::dot_product(&cubed, &self.mds[i].map(E::from))
            } else {
                E::ZERO
            }
        })
    }
}

fn assert_block<AB: AirBuilder, const W: usize>(
    builder: &mut AB,
    computed: [AB::Expr; W],
    committed: &[AB::Var],
) {
    for (x, &v) in computed.into_iter().zip(committed) {
        builder.assert_eq(x, v);
    }
}
