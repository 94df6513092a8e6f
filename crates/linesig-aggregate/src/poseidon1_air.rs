//! One KoalaBear Poseidon1 permutation of width W (16 or 24, leanSig devnet-4's chain
//! and tree hashes) as a block of trace columns, with its degree-3 constraints.
//!
//! Poseidon1 (textbook form, Grassi et al. 2019 §2): 4 full rounds, RP partial rounds, 4
//! full rounds; a round adds its W round constants, cubes every element (full) or
//! element 0 (partial), and multiplies by the circulant MDS matrix. The constants are
//! Plonky3's `KOALABEAR_POSEIDON1_RC_{16,24}` and `MATRIX_CIRC_MDS_{16,24}_COL`, the ones
//! leanSig c08a3ba hashes with (`linesig::leansig::poseidon`).
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
    #[inline(always)]
    fn apply<E: Algebra<KoalaBear>, V: Clone + Into<E>, Dot: ConstantDot<E>>(
        &self,
        vars: &[V],
    ) -> E {
        const CHUNK: usize = 8;
        let mut sum = E::from(self.constant);
        let vars = &vars[..self.coefficients.len()];
        let mut coefficient_chunks = self.coefficients.chunks_exact(CHUNK);
        let mut var_chunks = vars.chunks_exact(CHUNK);
        for (c, v) in (&mut coefficient_chunks).zip(&mut var_chunks) {
            let v: [E; CHUNK] = array_from(|i| v[i].clone().into());
            let c: &[KoalaBear; CHUNK] = c.try_into().expect("chunks_exact yields CHUNK");
            sum += Dot::dot(&v, c);
        }
        for (&c, v) in coefficient_chunks
            .remainder()
            .iter()
            .zip(var_chunks.remainder())
        {
            sum += v.clone().into() * c;
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
    #[inline(always)]
    pub fn fill(&self, input: [KoalaBear; W], block: &mut [KoalaBear]) {
        debug_assert_eq!(block.len(), self.columns());
        block[..W].copy_from_slice(&input);
        self.fill_rounds(input, &mut block[W..]);
    }

    /// Write the rounds of one permutation of `input` into `rounds`
    /// (`round_columns()` long).
    #[inline(always)]
    pub fn fill_rounds(&self, input: [KoalaBear; W], rounds: &mut [KoalaBear]) {
        debug_assert_eq!(rounds.len(), self.round_columns());
        self.fill_rounds_keeping(input, rounds, self.kept);
    }

    /// [`fill_rounds`](Self::fill_rounds) keeping `kept` outputs (W for [`permute`](Self::permute)).
    #[inline(always)]
    fn fill_rounds_keeping(&self, input: [KoalaBear; W], rounds: &mut [KoalaBear], kept: usize) {
        let mut state = input;
        for pair in 0..HALF_COMMITS {
            state = self.full_pair::<_, FieldDot>(FUSED * pair, &state, W);
            rounds[W * pair..W * (pair + 1)].copy_from_slice(&state);
        }
        let partial_at = HALF_COMMITS * W;
        let mut vars = Vec::with_capacity(W + self.partial_rounds);
        vars.extend_from_slice(&state);
        for (r, form) in self.sbox_inputs.iter().enumerate() {
            let cube = form.apply::<KoalaBear, _, FieldDot>(&vars).cube();
            rounds[partial_at + r] = cube;
            vars.push(cube);
        }
        let mut state = array_from(|i| self.after_partial[i].apply::<_, _, FieldDot>(&vars));
        let terminal = &mut rounds[partial_at + self.partial_rounds..];
        for pair in 0..HALF_COMMITS {
            let (first_round, len) = self.terminal_pair(pair, kept);
            state = self.full_pair::<_, FieldDot>(first_round, &state, len);
            terminal[W * pair..W * pair + len].copy_from_slice(&state[..len]);
        }
    }

    /// Constrain `block` (`columns()` variables of the current row) to be one
    /// permutation: 3·W + RP + K constraints (K the outputs kept), of degree 9
    /// (full-round pairs) and 3 (cubes).
    #[inline(always)]
    pub fn eval<AB: AirBuilder<F = KoalaBear>>(&self, builder: &mut AB, block: &[AB::Var]) {
        let input = array_from(|i| block[i].into());
        self.eval_rounds(builder, input, &block[W..]);
    }

    /// Constrain `rounds` (`round_columns()` variables of the current row) to be the
    /// rounds of one permutation of `input`. The input expressions must have degree 1
    /// (the first pair of rounds raises them to degree 9): columns, or columns plus
    /// constants.
    ///
    /// The prover calls this for every block at every point of the quotient domain,
    /// inside its quotient kernels: plain loops and fixed arrays, no closures handed to
    /// other functions and no vectors, so that all of it inlines there.
    #[inline(always)]
    pub fn eval_rounds<AB: AirBuilder<F = KoalaBear>>(
        &self,
        builder: &mut AB,
        input: [AB::Expr; W],
        rounds: &[AB::Var],
    ) {
        debug_assert_eq!(rounds.len(), self.round_columns());
        // Each pair of rounds starts from the committed columns, so that no expression
        // grows past two rounds (degree 9).
        let mut state = input;
        for pair in 0..HALF_COMMITS {
            let at = W * pair;
            let computed = self.full_pair::<_, MixedDot>(FUSED * pair, &state, W);
            assert_block(builder, computed, &rounds[at..at + W]);
            state = array_from(|i| rounds[at + i].into());
        }
        // Partial-phase variables: the fourth full round's output, then the cubes.
        let partial_at = HALF_COMMITS * W;
        let partial = &rounds[partial_at - W..partial_at + self.partial_rounds];
        for (r, form) in self.sbox_inputs.iter().enumerate() {
            builder.assert_eq(
                form.apply::<AB::Expr, _, MixedDot>(partial).cube(),
                partial[W + r],
            );
        }
        // The first terminal round reads the affine state, not committed columns.
        let terminal_at = partial_at + self.partial_rounds;
        let mut state: [AB::Expr; W] = [AB::Expr::ZERO; W];
        for (x, form) in state.iter_mut().zip(&self.after_partial) {
            *x = form.apply::<_, _, MixedDot>(partial);
        }
        for pair in 0..HALF_COMMITS {
            let at = terminal_at + W * pair;
            let (first_round, len) = self.terminal_pair(pair, self.kept);
            let computed = self.full_pair::<_, MixedDot>(first_round, &state, len);
            assert_block(builder, computed, &rounds[at..at + len]);
            // Past the last pair nothing reads the state.
            if pair + 1 < HALF_COMMITS {
                state = array_from(|i| rounds[at + i].into());
            }
        }
    }

    /// The terminal half's pair `pair`: its first round, and how many outputs its second
    /// round computes (all W but in the last pair, which computes the `kept` ones).
    #[inline(always)]
    fn terminal_pair(&self, pair: usize, kept: usize) -> (usize, usize) {
        let outputs = if pair + 1 == HALF_COMMITS { kept } else { W };
        (HALF_FULL + self.partial_rounds + FUSED * pair, outputs)
    }

    /// Two full rounds from `first_round`, the second computing only its first
    /// `outputs` elements (the rest zero): on field elements (filling the trace) or on
    /// the constraint builder's expressions, one code path for both.
    #[inline(always)]
    fn full_pair<E: Algebra<KoalaBear>, Dot: ConstantDot<E>>(
        &self,
        first_round: usize,
        state: &[E; W],
        outputs: usize,
    ) -> [E; W] {
        let middle = self.full_round::<E, Dot>(first_round, state, W);
        self.full_round::<E, Dot>(first_round + 1, &middle, outputs)
    }

    /// The first `outputs` elements of MDS · (state + round constants)^3 (the rest
    /// zero). Each output is one [`ConstantDot`] with the matrix row (one reduction per
    /// row, not W, for the trace and on the prover's lanes and Plonky3's packings).
    #[inline(always)]
    fn full_round<E: Algebra<KoalaBear>, Dot: ConstantDot<E>>(
        &self,
        round: usize,
        state: &[E; W],
        outputs: usize,
    ) -> [E; W] {
        // Loops, not closures: LLVM declines to inline a closure this large into the
        // quotient kernels.
        let constants = &self.round_constants[round];
        let mut cubed = [E::ZERO; W];
        for ((c, x), &k) in cubed.iter_mut().zip(state).zip(constants) {
            *c = (x.clone() + k).cube();
        }
        let mut out = [E::ZERO; W];
        for (o, row) in out.iter_mut().zip(&self.mds).take(outputs) {
            *o = Dot::dot(&cubed, row);
        }
        out
    }
}

/// Σ a_i·c_i over element constants c, the way each caller's values do it fastest:
/// field elements (filling the trace) with KoalaBear's `dot_product`, one reduction for
/// the whole sum; the constraint builders' expressions with `mixed_dot_product`, which
/// the prover's lanes reduce once per two products.
pub(crate) trait ConstantDot<E> {
    fn dot<const N: usize>(a: &[E; N], c: &[KoalaBear; N]) -> E;
}

/// [`ConstantDot`] for the constraint builders.
pub(crate) struct MixedDot;

impl<E: Algebra<KoalaBear>> ConstantDot<E> for MixedDot {
    #[inline(always)]
    fn dot<const N: usize>(a: &[E; N], c: &[KoalaBear; N]) -> E {
        E::mixed_dot_product(a, c)
    }
}

/// [`ConstantDot`] for the trace.
pub(crate) struct FieldDot;

impl ConstantDot<KoalaBear> for FieldDot {
    #[inline(always)]
    fn dot<const N: usize>(a: &[KoalaBear; N], c: &[KoalaBear; N]) -> KoalaBear {
        KoalaBear::dot_product(a, c)
    }
}

/// `[f(0), …, f(N − 1)]` in a plain loop. `core::array::from_fn` is not always inlined,
/// and the quotient kernels need every function between them and the lane operations
/// inlined (a call leaves the kernel's target features behind).
#[inline(always)]
pub(crate) fn array_from<E: PrimeCharacteristicRing, const N: usize>(
    mut f: impl FnMut(usize) -> E,
) -> [E; N] {
    let mut out = [E::ZERO; N];
    for (i, x) in out.iter_mut().enumerate() {
        *x = f(i);
    }
    out
}

#[inline(always)]
fn assert_block<AB: AirBuilder, const W: usize>(
    builder: &mut AB,
    computed: [AB::Expr; W],
    committed: &[AB::Var],
) {
    for (x, &v) in computed.into_iter().zip(committed) {
        builder.assert_eq(x, v);
    }
}
