//! The statement an aggregate proves, as one AIR: "each listed (public key, message,
//! epoch) has a devnet-4 signature that verifies". One block of 64 rows per signature;
//! the trace is the blocks one after another, padded with empty blocks to a power of
//! two.
//!
//! Public inputs are preprocessed columns built from the list (key parameter and root,
//! message elements, every tweak the epoch gives, and the block's fixed schedule).
//! Nobody commits them: the prover extends them for the quotient, and the verifier
//! evaluates them at the out-of-domain point itself ([`preprocessed_at`]), in time
//! linear in the list and without a transform, after the transcript has absorbed the
//! list's digest ([`list_digest`]). So the proof is bound to exactly that list in that
//! order, without a hash of it inside the trace.
//!
//! A row holds the seven steps of one hash chain (width-16 Poseidon1, their input state
//! value ‖ parameter ‖ tweak ‖ 0 taken from columns, not committed again) and two
//! width-24 permutations, lanes A and B. Row r of a signature's block:
//!
//! | rows | chain slots | lane A | lane B |
//! |---|---|---|---|
//! | 0 | chain 0 | leaf sponge block 0 | message hash |
//! | 1–45 | chain r | sponge block b at row ⌊(15b + 7)/8⌋ | — |
//! | 46–61 | — | tree level 2(r − 46) | tree level 2(r − 46) + 1 |
//! | 46–51 | (digit checks of hash element r − 46, in their own columns) | | |
//!
//! - **Chains** (leanSig `chain`): slot j steps to position j + 1 if its flag is set
//!   and passes the value through otherwise. Flags are bits, monotone along the row, so
//!   the chain's digit x is the number of clear flags and the first set one hashes the
//!   signature's value from position x: the fixed schedule walks exactly w − 1 − x steps.
//! - **Encoding** (aborting, q = 127, z = 8): the message hash's element m must be
//!   127·Σ_k 8^k·x_{8m+k} + r with r < 127 (the sixth element has two more digits,
//!   free). A register per element starts at the hash output and loses 127·8^k·x at
//!   each of its chains; rows 46–51 decompose what is left into 7 bits not all set.
//!   With every x in [0, 7] this sum stays below p − 1 = 127·8^8, so it is the
//!   integer's decomposition and the reference's bound check holds. A running sum of
//!   the digits must end at the target sum 200.
//! - **Leaf sponge** (replacement sponge, capacity [0, 9), rate [9, 24)): block b reads
//!   15 elements of parameter ‖ tweak ‖ chain ends; those of b ≥ 1 lie in the last three
//!   chain ends (this row's and a two-deep shift register), at an offset the row's
//!   selector names. The capacity carries between sponge rows in a register.
//! - **Tree**: left and right come from the epoch's bits (public), the sibling is
//!   free, and the last level's output must equal the public root.

use super::poseidon1_air::{
    array_from, poseidon1_16, poseidon1_24, round_columns, round_output_offset, Poseidon1Air,
    CONSTRAINT_DEGREE,
};
use crate::field::Challenge;
use p3_air::symbolic::{get_constraint_layout, AirLayout, ConstraintLayout};
use p3_air::{Air, AirBuilder, BaseAir, WindowAccess};
use p3_field::{
    batch_multiplicative_inverse, Field, PrimeCharacteristicRing, PrimeField32, TwoAdicField,
};
use p3_koala_bear::{
    KoalaBear, KOALABEAR_POSEIDON_PARTIAL_ROUNDS_16, KOALABEAR_POSEIDON_PARTIAL_ROUNDS_24,
};
use p3_matrix::dense::RowMajorMatrix;
use std::sync::OnceLock;

type F = KoalaBear;

/// See [`AggregateAir::constraint_shape`].
#[derive(Debug)]
pub(crate) struct ConstraintShape {
    /// log2 of the quotient's chunks: its degree over the trace's.
    pub(crate) log_quotient_chunks: usize,
    /// Which power of the folding challenge weights which constraint.
    pub(crate) layout: ConstraintLayout,
}

impl ConstraintShape {
    /// The symbolic evaluation itself.
    pub(crate) fn of(air: &AggregateAir) -> Self {
        let layout = air.air_layout();
        ConstraintShape {
            log_quotient_chunks: air.log_quotient_chunks(),
            layout: get_constraint_layout::<F, F, _>(air, layout),
        }
    }
}

/// Rows of one signature's block.
pub const ROWS_PER_SIGNATURE: usize = 64;
/// Chains, their steps (w − 1), elements per digest and in the key's parameter.
const CHAINS: usize = 46;
const STEPS: usize = 7;
const HASH: usize = 8;
const PARAM: usize = 5;
/// The leaf sponge: capacity, rate, blocks (375 input elements = 25 · 15).
const CAPACITY: usize = 9;
const RATE: usize = 15;
const SPONGE_BLOCKS: usize = 25;
/// Tree levels, two per row from row 46.
const LEVELS: usize = 32;
const TREE_ROW: usize = 46;
/// Message-hash elements the digits come from, and the encoding's q and z.
const ELEMENTS: usize = 6;
const Q: u32 = 127;
const Z: usize = 8;
const TARGET_SUM: u32 = 200;
/// Rows that decompose what is left of each element: rows 46..52.
const CHECK_ROW: usize = 46;
/// Bits of the remainder r < 127, and of the sixth element's two unused digits.
const REMAINDER_BITS: usize = 7;
const FREE_BITS: usize = 6;
/// Offsets into the 24 elements of the last three chain ends a sponge block can start at.
const WINDOW_OFFSETS: usize = 10;

/// Output elements each block keeps: a chain step reads its first 8 (the
/// feed-forward), lane A the sponge's 9 capacity and 8 leaf elements (and a tree node's
/// first 8), lane B a tree node's 8 (and the message hash's first 6).
const KEPT16: usize = HASH;
const KEPT_A: usize = CAPACITY + HASH;
const KEPT_B: usize = HASH;
const ROUNDS16: usize = round_columns(16, KOALABEAR_POSEIDON_PARTIAL_ROUNDS_16, KEPT16);
const OUT16: usize = round_output_offset(16, KOALABEAR_POSEIDON_PARTIAL_ROUNDS_16);
const BLOCK_A: usize = 24 + round_columns(24, KOALABEAR_POSEIDON_PARTIAL_ROUNDS_24, KEPT_A);
const BLOCK_B: usize = 24 + round_columns(24, KOALABEAR_POSEIDON_PARTIAL_ROUNDS_24, KEPT_B);
/// Where the output starts in either lane.
const OUT24: usize = 24 + round_output_offset(24, KOALABEAR_POSEIDON_PARTIAL_ROUNDS_24);

/// Main columns. A chain slot: its flag, its rounds, the value after it.
const SLOT_WIDTH: usize = 1 + ROUNDS16 + HASH;
const fn slot(j: usize) -> usize {
    HASH + j * SLOT_WIDTH
}
/// The chain value before slot j (j = 7: the chain's end).
const fn value(j: usize) -> usize {
    if j == 0 {
        0
    } else {
        slot(j - 1) + 1 + ROUNDS16
    }
}
const END: usize = value(STEPS);
const END1: usize = slot(STEPS);
const END2: usize = END1 + HASH;
const LANE_A: usize = END2 + HASH;
const LANE_B: usize = LANE_A + BLOCK_A;
const REMAINING: usize = LANE_B + BLOCK_B;
const DIGIT_SUM: usize = REMAINING + ELEMENTS;
const SPONGE_CAPACITY: usize = DIGIT_SUM + 1;
const NODE: usize = SPONGE_CAPACITY + CAPACITY;
const BITS: usize = NODE + HASH;
const INVERSE: usize = BITS + REMAINDER_BITS;
const FREE: usize = INVERSE + 1;
/// Columns of the main trace.
pub const MAIN_WIDTH: usize = FREE + FREE_BITS;

/// Preprocessed (public) columns.
const P_PARAM: usize = 0;
const P_CHAIN_TWEAK: usize = P_PARAM + PARAM;
const P_WEIGHT: usize = P_CHAIN_TWEAK + 2 * STEPS;
const P_HOLD: usize = P_WEIGHT + ELEMENTS;
const P_CHAIN: usize = P_HOLD + 1;
const P_MESSAGE_ROW: usize = P_CHAIN + 1;
const P_PUBLIC: usize = P_MESSAGE_ROW + 1;
const P_TWEAK_A: usize = P_PUBLIC + 9;
const P_TWEAK_B: usize = P_TWEAK_A + 2;
const P_CHECK: usize = P_TWEAK_B + 2;
const P_SPONGE_FIRST: usize = P_CHECK + ELEMENTS;
const P_SPONGE: usize = P_SPONGE_FIRST + 1;
const P_LEAF: usize = P_SPONGE + WINDOW_OFFSETS;
const P_TREE: usize = P_LEAF + 1;
const P_LEFT_A: usize = P_TREE + 1;
const P_RIGHT_A: usize = P_LEFT_A + 1;
const P_LEFT_B: usize = P_RIGHT_A + 1;
const P_RIGHT_B: usize = P_LEFT_B + 1;
const P_TREE_NEXT: usize = P_RIGHT_B + 1;
const P_ROOT: usize = P_TREE_NEXT + 1;
/// Columns of the preprocessed trace.
pub const PREPROCESSED_WIDTH: usize = P_ROOT + 1;

/// The weight of digit i of the encoding in its message-hash element: 127·8^(i mod 8)
/// (element i / 8 holds digits 8m..8m + 8, least significant first; digit 46, the
/// sixth element's first unused one, weighs its two free digits).
const fn digit_weight(i: usize) -> u32 {
    Q * 8u32.pow((i % Z) as u32)
}

/// The row of sponge block b: the row of the last chain end it reads.
const fn sponge_row(b: usize) -> usize {
    (RATE * b + 7) / HASH
}

/// Where block b ≥ 1 starts in end₋₂ ‖ end₋₁ ‖ end, the 24 elements of the last
/// three chain ends at its row: its first element is chain end element 15b − 7.
const fn sponge_offset(b: usize) -> usize {
    RATE * b - 7 - HASH * (sponge_row(b) - 2)
}

/// What the verifier knows of one signer: canonical field elements and the epoch.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Claim {
    pub parameter: [F; PARAM],
    pub root: [F; HASH],
    pub message: [F; 9],
    pub epoch: u32,
}

/// What the prover knows besides: the signature's rho, co-path and chain values.
#[derive(Clone, Debug)]
pub struct Witness {
    pub rho: [F; 7],
    pub path: Vec<[F; HASH]>,
    pub hashes: Vec<[F; HASH]>,
}

/// A tweak's integer as two base-p digits, least significant first.
fn tweak(value: u64) -> [F; 2] {
    let p = F::ORDER_U32 as u64;
    [
        F::from_u32((value % p) as u32),
        F::from_u32((value / p) as u32),
    ]
}

/// The chain tweak of position `position` (1..=7) of chain `chain`.
pub fn chain_tweak(epoch: u32, chain: usize, position: usize) -> [F; 2] {
    tweak((epoch as u64) << 24 | (chain as u64) << 16 | (position as u64) << 8)
}

/// The tree tweak of `level` (0: the leaf) at `position`.
pub fn tree_tweak(level: usize, position: u32) -> [F; 2] {
    tweak((level as u64) << 40 | (position as u64) << 8 | 0x01)
}

/// The message tweak of `epoch`.
pub fn message_tweak(epoch: u32) -> [F; 2] {
    tweak((epoch as u64) << 8 | 0x02)
}

/// Fills one signature's block of the trace ([`AggregateAir::trace_with`]).
pub(crate) type FillBlock = fn(&AggregateAir, &Claim, &Witness, &[F], &mut [F]);

/// The AIR of a list of claims: the permutation blocks, the sponge's starting
/// capacity, and the preprocessed columns built from the list.
pub struct AggregateAir {
    p16: &'static Poseidon1Air<16>,
    /// The width-24 blocks of lanes A and B (they keep different outputs).
    p24_a: &'static Poseidon1Air<24>,
    p24_b: &'static Poseidon1Air<24>,
    capacity: [F; CAPACITY],
    /// The list, in order: the preprocessed columns are built from it when asked for.
    claims: Vec<Claim>,
}

impl AggregateAir {
    /// `capacity`: the devnet-4 sponge's starting capacity, canonical.
    pub fn new(claims: &[Claim], capacity: [F; CAPACITY]) -> Self {
        // The blocks depend on nothing but the permutations' constants, and deriving
        // their partial rounds' affine forms takes about a millisecond, a fifth of a
        // small proof's verification: once per process.
        static BLOCKS: OnceLock<(Poseidon1Air<16>, Poseidon1Air<24>, Poseidon1Air<24>)> =
            OnceLock::new();
        let (p16, p24_a, p24_b) = BLOCKS.get_or_init(|| {
            (
                poseidon1_16(KEPT16),
                poseidon1_24(KEPT_A),
                poseidon1_24(KEPT_B),
            )
        });
        let air = AggregateAir {
            p16,
            p24_a,
            p24_b,
            capacity,
            claims: claims.to_vec(),
        };
        debug_assert_eq!(air.p16.round_columns(), ROUNDS16);
        debug_assert_eq!(air.p16.round_output_offset(), OUT16);
        debug_assert_eq!(air.p24_a.columns(), BLOCK_A);
        debug_assert_eq!(air.p24_b.columns(), BLOCK_B);
        debug_assert_eq!(air.p24_a.output_offset(), OUT24);
        debug_assert_eq!(air.p24_b.output_offset(), OUT24);
        air
    }

    /// The widths Plonky3's symbolic evaluation runs the constraints at.
    pub(crate) fn air_layout(&self) -> AirLayout {
        AirLayout {
            preprocessed_width: PREPROCESSED_WIDTH,
            main_width: self.width(),
            num_public_values: 0,
            ..Default::default()
        }
    }

    /// What Plonky3's symbolic evaluation derives from the constraints, once per process:
    /// the same constraints stand in every signature's block whatever the claims (they
    /// enter as preprocessed columns, never as constants), so neither the degree nor the
    /// order of the constraints depends on the list, and the prover need not rebuild
    /// every constraint as an expression tree for each proof.
    pub(crate) fn constraint_shape(&self) -> &'static ConstraintShape {
        static SHAPE: OnceLock<ConstraintShape> = OnceLock::new();
        SHAPE.get_or_init(|| ConstraintShape::of(self))
    }

    /// log2 of the quotient's chunks, from the constraints' degree bound (no symbolic
    /// evaluation: the verifier needs this and not [`Self::constraint_shape`]'s order).
    pub(crate) fn log_quotient_chunks(&self) -> usize {
        p3_uni_stark::get_log_num_quotient_chunks::<F, _>(self, self.air_layout(), 0)
    }

    /// The list this statement is about.
    pub(crate) fn claims(&self) -> &[Claim] {
        &self.claims
    }

    /// log2 of the trace height for `count` signatures.
    pub fn degree_bits(count: usize) -> usize {
        (count * ROWS_PER_SIGNATURE)
            .next_power_of_two()
            .trailing_zeros() as usize
    }

    /// The main trace: one block per (claim, witness), then empty blocks. Every
    /// signature must verify (the caller checked); the blocks are filled in parallel.
    pub fn trace(&self, signers: &[(Claim, Witness)]) -> RowMajorMatrix<F> {
        self.trace_with(signers, Self::fill_block)
    }

    /// [`Self::trace`] with each signature's block filled by `fill_block`: this build's
    /// [`Self::fill_block`], or the same code compiled into a kernel for the CPU's
    /// vector instructions (`aggregate::lanes`), where the permutations' dot products
    /// become vector code. The trace is the same either way.
    pub(crate) fn trace_with(
        &self,
        signers: &[(Claim, Witness)],
        fill_block: FillBlock,
    ) -> RowMajorMatrix<F> {
        use rayon::prelude::*;
        let height = 1 << Self::degree_bits(signers.len());
        let block_len = ROWS_PER_SIGNATURE * MAIN_WIDTH;
        let mut values = F::zero_vec(height * MAIN_WIDTH);
        let empty = self.empty_row();
        values
            .par_chunks_mut(block_len)
            .enumerate()
            .for_each(|(s, block)| match signers.get(s) {
                Some((claim, witness)) => fill_block(self, claim, witness, &empty, block),
                None => {
                    for row in block.chunks_mut(MAIN_WIDTH) {
                        row.copy_from_slice(&empty);
                    }
                }
            });
        RowMajorMatrix::new(values, MAIN_WIDTH)
    }

    /// A row of an empty block: every permutation of the zero state, nothing else.
    fn empty_row(&self) -> Vec<F> {
        let mut row = F::zero_vec(MAIN_WIDTH);
        for j in 0..STEPS {
            let at = slot(j) + 1;
            self.p16
                .fill_rounds([F::ZERO; 16], &mut row[at..at + ROUNDS16]);
        }
        self.p24_a
            .fill([F::ZERO; 24], &mut row[LANE_A..LANE_A + BLOCK_A]);
        self.p24_b
            .fill([F::ZERO; 24], &mut row[LANE_B..LANE_B + BLOCK_B]);
        row
    }

    /// Fill `row`'s chain slots: chain `chain` of `claim` (None: a row past the chains,
    /// zero tweaks) from `start` with digit `x` (slots j ≥ x step); returns the end.
    #[inline(always)]
    pub fn fill_chain(
        &self,
        row: &mut [F],
        claim: &Claim,
        chain: Option<usize>,
        start: [F; HASH],
        x: usize,
    ) -> [F; HASH] {
        row[value(0)..value(0) + HASH].copy_from_slice(&start);
        let mut v = start;
        for j in 0..STEPS {
            let mut state = [F::ZERO; 16];
            state[..HASH].copy_from_slice(&v);
            state[HASH..HASH + PARAM].copy_from_slice(&claim.parameter);
            if let Some(i) = chain {
                state[13..15].copy_from_slice(&chain_tweak(claim.epoch, i, j + 1));
            }
            let at = slot(j);
            self.p16
                .fill_rounds(state, &mut row[at + 1..at + 1 + ROUNDS16]);
            let active = j >= x;
            row[at] = F::from_bool(active);
            if active {
                for (k, x) in v.iter_mut().enumerate() {
                    *x += row[at + 1 + OUT16 + k];
                }
            }
            row[value(j + 1)..value(j + 1) + HASH].copy_from_slice(&v);
        }
        v
    }

    /// Fill one signature's block; `empty` is [`Self::empty_row`], whose lanes (the
    /// permutations of the zero state) stand wherever a row's lane has no hash to do.
    /// Inlined into each path's kernel (`aggregate::lanes`), as is all it calls that
    /// does the work.
    #[inline(always)]
    pub(crate) fn fill_block(
        &self,
        claim: &Claim,
        witness: &Witness,
        empty: &[F],
        block: &mut [F],
    ) {
        let lanes = LANE_A..LANE_B + BLOCK_B;
        let mut rows: Vec<&mut [F]> = block.chunks_mut(MAIN_WIDTH).collect();
        for row in rows.iter_mut() {
            row[lanes.clone()].copy_from_slice(&empty[lanes.clone()]);
        }
        let out = |lane: &[F], i: usize| lane[OUT24 + i];

        // The message hash (lane B, row 0) and its digits.
        let mut input = [F::ZERO; 24];
        input[..9].copy_from_slice(&claim.message);
        input[9..14].copy_from_slice(&claim.parameter);
        input[14..16].copy_from_slice(&message_tweak(claim.epoch));
        input[16..23].copy_from_slice(&witness.rho);
        self.p24_b
            .fill(input, &mut rows[0][LANE_B..LANE_B + BLOCK_B]);
        let hash: [u32; ELEMENTS] =
            core::array::from_fn(|m| (out(&rows[0][LANE_B..], m) + input[m]).as_canonical_u32());
        let mut digits = Vec::with_capacity(ELEMENTS * Z);
        let mut remainders = [0u32; ELEMENTS];
        for (m, &a) in hash.iter().enumerate() {
            let mut d = a / Q;
            remainders[m] = a % Q;
            for _ in 0..Z {
                digits.push((d % 8) as usize);
                d /= 8;
            }
        }
        let free_digits = (digits[CHAINS] + 8 * digits[CHAINS + 1]) as u32;

        // Chains, one per row; rows past the chains step nothing from zero.
        let mut ends = [[F::ZERO; HASH]; CHAINS];
        for (i, row) in rows.iter_mut().enumerate() {
            match witness.hashes.get(i) {
                Some(&start) if i < CHAINS => {
                    ends[i] = self.fill_chain(row, claim, Some(i), start, digits[i]);
                }
                _ => {
                    let _ = self.fill_chain(row, claim, None, [F::ZERO; HASH], STEPS);
                }
            }
        }

        // Shift register of chain ends, digit registers and sum.
        let mut remaining: [F; ELEMENTS] = core::array::from_fn(|m| F::from_u32(hash[m]));
        let mut sum = F::ZERO;
        for r in 0..ROWS_PER_SIGNATURE {
            if r >= 1 {
                let (before, after) = rows.split_at_mut(r);
                let (prev, row) = (&before[r - 1], &mut after[0]);
                row[END1..END1 + HASH].copy_from_slice(&prev[END..END + HASH]);
                row[END2..END2 + HASH].copy_from_slice(&prev[END1..END1 + HASH]);
            }
            let row = &mut rows[r];
            row[REMAINING..REMAINING + ELEMENTS].copy_from_slice(&remaining);
            row[DIGIT_SUM] = sum;
            if r < CHAINS {
                let x = F::from_usize(digits[r]);
                remaining[r / Z] -= F::from_u32(digit_weight(r)) * x;
                sum += x;
            }
        }

        // The leaf sponge on lane A.
        let mut capacity = self.capacity;
        for b in 0..SPONGE_BLOCKS {
            let r = sponge_row(b);
            let row = &mut rows[r];
            let mut input = [F::ZERO; 24];
            input[..CAPACITY].copy_from_slice(&capacity);
            if b == 0 {
                input[9..14].copy_from_slice(&claim.parameter);
                input[14..16].copy_from_slice(&tree_tweak(0, claim.epoch));
                input[16..24].copy_from_slice(&row[END..END + HASH]);
            } else {
                let o = sponge_offset(b);
                let window: Vec<F> = [END2, END1, END]
                    .iter()
                    .flat_map(|&at| row[at..at + HASH].to_vec())
                    .collect();
                input[CAPACITY..].copy_from_slice(&window[o..o + RATE]);
            }
            self.p24_a.fill(input, &mut row[LANE_A..LANE_A + BLOCK_A]);
            capacity = core::array::from_fn(|k| out(&row[LANE_A..], k));
        }
        // The capacity register: the value before each row, changed after sponge rows.
        let mut register = [F::ZERO; CAPACITY];
        for (r, row) in rows.iter_mut().enumerate() {
            row[SPONGE_CAPACITY..SPONGE_CAPACITY + CAPACITY].copy_from_slice(&register);
            if (0..SPONGE_BLOCKS).any(|b| sponge_row(b) == r) {
                register = core::array::from_fn(|k| out(&row[LANE_A..], k));
            }
        }
        let last = sponge_row(SPONGE_BLOCKS - 1);
        let mut node: [F; HASH] =
            core::array::from_fn(|k| out(&rows[last][LANE_A..], CAPACITY + k));

        // The tree, two levels a row.
        for t in 0..LEVELS / 2 {
            let row = &mut rows[TREE_ROW + t];
            row[NODE..NODE + HASH].copy_from_slice(&node);
            for (block, lane, width, level) in [
                (&self.p24_a, LANE_A, BLOCK_A, 2 * t),
                (&self.p24_b, LANE_B, BLOCK_B, 2 * t + 1),
            ] {
                let position = claim.epoch >> level;
                let sibling = witness.path[level];
                let (left, right) = if position & 1 == 0 {
                    (node, sibling)
                } else {
                    (sibling, node)
                };
                let mut input = [F::ZERO; 24];
                input[..PARAM].copy_from_slice(&claim.parameter);
                input[5..7].copy_from_slice(&tree_tweak(level + 1, position >> 1));
                input[7..15].copy_from_slice(&left);
                input[15..23].copy_from_slice(&right);
                block.fill(input, &mut row[lane..lane + width]);
                node = core::array::from_fn(|k| out(&row[lane..], k) + input[k]);
            }
        }

        // What is left of each element: 7 bits not all set (the sixth: and its free digits).
        for (m, &remainder) in remainders.iter().enumerate() {
            let row = &mut rows[CHECK_ROW + m];
            for t in 0..REMAINDER_BITS {
                row[BITS + t] = F::from_u32(remainder >> t & 1);
            }
            row[INVERSE] = (F::from_u32(remainder.count_ones()) - F::from_u32(7))
                .try_inverse()
                .unwrap_or(F::ZERO);
            if m == ELEMENTS - 1 {
                for t in 0..FREE_BITS {
                    row[FREE + t] = F::from_u32(free_digits >> t & 1);
                }
            }
        }
    }
}

/// The preprocessed columns of `claims`, padded with zero rows to the trace height.
pub(crate) fn preprocessed_trace(claims: &[Claim]) -> RowMajorMatrix<F> {
    let height = 1 << AggregateAir::degree_bits(claims.len());
    let mut values = F::zero_vec(height * PREPROCESSED_WIDTH);
    for (claim, block) in claims
        .iter()
        .zip(values.chunks_mut(ROWS_PER_SIGNATURE * PREPROCESSED_WIDTH))
    {
        fill_preprocessed_block(claim, block);
    }
    RowMajorMatrix::new(values, PREPROCESSED_WIDTH)
}

/// One signer's block of preprocessed rows; `block` is zero on entry (the columns a
/// row does not use stay zero).
fn fill_preprocessed_block(claim: &Claim, block: &mut [F]) {
    for (r, row) in block.chunks_mut(PREPROCESSED_WIDTH).enumerate() {
        row[P_PARAM..P_PARAM + PARAM].copy_from_slice(&claim.parameter);
        row[P_HOLD] = F::from_bool(r + 1 < ROWS_PER_SIGNATURE);
        if r < CHAINS {
            row[P_CHAIN] = F::ONE;
            for j in 0..STEPS {
                let at = P_CHAIN_TWEAK + 2 * j;
                row[at..at + 2].copy_from_slice(&chain_tweak(claim.epoch, r, j + 1));
            }
            row[P_WEIGHT + r / Z] = F::from_u32(digit_weight(r));
        }
        if r == 0 {
            row[P_MESSAGE_ROW] = F::ONE;
            row[P_PUBLIC..P_PUBLIC + 9].copy_from_slice(&claim.message);
            row[P_TWEAK_B..P_TWEAK_B + 2].copy_from_slice(&message_tweak(claim.epoch));
            row[P_TWEAK_A..P_TWEAK_A + 2].copy_from_slice(&tree_tweak(0, claim.epoch));
            row[P_SPONGE_FIRST] = F::ONE;
        }
        if let Some(b) = (1..SPONGE_BLOCKS).find(|&b| sponge_row(b) == r) {
            row[P_SPONGE + sponge_offset(b)] = F::ONE;
        }
        if r == sponge_row(SPONGE_BLOCKS - 1) {
            row[P_LEAF] = F::ONE;
        }
        if (TREE_ROW..TREE_ROW + LEVELS / 2).contains(&r) {
            let t = r - TREE_ROW;
            row[P_TREE] = F::ONE;
            for (level, tweak_at, left, right) in [
                (2 * t, P_TWEAK_A, P_LEFT_A, P_RIGHT_A),
                (2 * t + 1, P_TWEAK_B, P_LEFT_B, P_RIGHT_B),
            ] {
                let position = claim.epoch >> level;
                row[tweak_at..tweak_at + 2].copy_from_slice(&tree_tweak(level + 1, position >> 1));
                row[left] = F::from_bool(position & 1 == 0);
                row[right] = F::from_bool(position & 1 == 1);
            }
            if t + 1 < LEVELS / 2 {
                row[P_TREE_NEXT] = F::ONE;
            } else {
                row[P_ROOT] = F::ONE;
                row[P_PUBLIC..P_PUBLIC + HASH].copy_from_slice(&claim.root);
            }
        }
        if (CHECK_ROW..CHECK_ROW + ELEMENTS).contains(&r) {
            row[P_CHECK + r - CHECK_ROW] = F::ONE;
        }
    }
}

/// The list's digest, which the transcript absorbs before anything else, so that
/// every challenge depends on the statement (Fiat–Shamir must bind what is proved, and
/// no commitment to the preprocessed columns does it now): BLAKE3 of a domain string,
/// the count, and each claim's parameter, root and message elements (canonical,
/// 4 bytes little-endian each) and epoch (4 bytes), in the list's order.
pub(crate) fn list_digest(claims: &[Claim]) -> [u8; 32] {
    let mut hasher = blake3::Hasher::new();
    hasher.update(b"linesig leansig-devnet4 aggregate list");
    hasher.update(&(claims.len() as u32).to_le_bytes());
    for claim in claims {
        for x in claim
            .parameter
            .iter()
            .chain(&claim.root)
            .chain(&claim.message)
        {
            hasher.update(&x.as_canonical_u32().to_le_bytes());
        }
        hasher.update(&claim.epoch.to_le_bytes());
    }
    hasher.finalize().into()
}

/// The preprocessed columns of `claims` at `point`, a point off the trace domain H
/// (|H| = n, the list's trace height, generator ω): what the verifier uses in place of opened
/// values of committed columns. Column j's polynomial is Σ_i c_ij·L_i with the Lagrange
/// basis of H, L_i(z) = (z^n − 1)/n · ω^i/(z − ω^i), and every cell past the list's
/// 64·N rows is zero, so after one batch inversion of z − ω^i over those rows each
/// column costs one product per non-zero cell: linear in N, no transform, no Merkle
/// tree. The rows are [`fill_preprocessed_block`]'s, the prover's own.
pub(crate) fn preprocessed_at(claims: &[Claim], point: Challenge) -> Vec<Challenge> {
    use rayon::prelude::*;
    const BLOCK: usize = ROWS_PER_SIGNATURE * PREPROCESSED_WIDTH;
    let rows = claims.len() * ROWS_PER_SIGNATURE;
    let degree_bits = AggregateAir::degree_bits(claims.len());
    let omega = F::two_adic_generator(degree_bits);
    let powers: Vec<F> = omega.powers().take(rows).collect();
    let differences: Vec<Challenge> = powers.par_iter().map(|&x| point - x).collect();
    let inverses = batch_multiplicative_inverse(&differences);
    let add = |mut a: Vec<Challenge>, b: Vec<Challenge>| {
        a.iter_mut().zip(b).for_each(|(a, b)| *a += b);
        a
    };
    let sums = claims
        .par_iter()
        .enumerate()
        .fold(
            || {
                (
                    vec![Challenge::ZERO; PREPROCESSED_WIDTH],
                    F::zero_vec(BLOCK),
                )
            },
            |(mut sums, mut block), (s, claim)| {
                block.fill(F::ZERO);
                fill_preprocessed_block(claim, &mut block);
                for (r, row) in block.chunks(PREPROCESSED_WIDTH).enumerate() {
                    let i = s * ROWS_PER_SIGNATURE + r;
                    let weight = inverses[i] * powers[i];
                    for (sum, &c) in sums.iter_mut().zip(row) {
                        if c == F::ONE {
                            *sum += weight;
                        } else if c != F::ZERO {
                            *sum += weight * c;
                        }
                    }
                }
                (sums, block)
            },
        )
        .map(|(sums, _)| sums)
        .reduce(|| vec![Challenge::ZERO; PREPROCESSED_WIDTH], add);
    let scale = (point.exp_power_of_2(degree_bits) - Challenge::ONE)
        * F::from_usize(1 << degree_bits).inverse();
    sums.into_iter().map(|sum| sum * scale).collect()
}

impl BaseAir<F> for AggregateAir {
    fn width(&self) -> usize {
        MAIN_WIDTH
    }

    fn preprocessed_trace(&self) -> Option<RowMajorMatrix<F>> {
        Some(preprocessed_trace(&self.claims))
    }

    /// The constraints read no preprocessed column of the next row.
    fn preprocessed_next_row_columns(&self) -> Vec<usize> {
        Vec::new()
    }

    /// The permutation blocks' degree; the statement's own constraints stay below it.
    fn max_constraint_degree(&self) -> Option<usize> {
        Some(CONSTRAINT_DEGREE)
    }
}

impl<AB: AirBuilder<F = F>> Air<AB> for AggregateAir {
    /// Inlined into each quotient kernel, so that the lane operations inline too.
    #[inline(always)]
    fn eval(&self, builder: &mut AB) {
        // Both rows are read in place from windows of our own (a window does not borrow
        // the builder); nothing is allocated, as the prover's quotient kernels run this
        // at every point.
        let main = builder.main();
        let (local, next) = (main.current_slice(), main.next_slice());
        let preprocessed = builder.preprocessed().clone();
        let public = preprocessed.current_slice();
        let expr = |v: AB::Var| -> AB::Expr { v.into() };
        let param: [AB::Expr; PARAM] = array_from(|k| public[P_PARAM + k].into());
        let hold = public[P_HOLD];

        // Chain steps: input value ‖ parameter ‖ tweak ‖ 0; a set flag adds the
        // permutation's first elements (the feed-forward), a clear one passes through.
        let mut active = AB::Expr::ZERO;
        for j in 0..STEPS {
            let at = slot(j);
            let flag = local[at];
            let input = array_from(|i| match i {
                0..HASH => expr(local[value(j) + i]),
                HASH..13 => param[i - HASH].clone(),
                13 | 14 => expr(public[P_CHAIN_TWEAK + 2 * j + i - 13]),
                _ => AB::Expr::ZERO,
            });
            let rounds = &local[at + 1..at + 1 + ROUNDS16];
            self.p16.eval_rounds(builder, input, rounds);
            builder.assert_bool(flag);
            for k in 0..HASH {
                builder.assert_eq(
                    local[value(j + 1) + k],
                    local[value(j) + k] + flag * rounds[OUT16 + k],
                );
            }
            if j + 1 < STEPS {
                builder.assert_zero(flag * (AB::Expr::ONE - local[slot(j + 1)]));
            }
            active += flag;
        }
        let digit = AB::Expr::from_usize(STEPS) - active;

        // Digits: each element's register loses 127·8^k per unit of its chains' digits,
        // the running sum gains them.
        let message_row = public[P_MESSAGE_ROW];
        let lane_b = &local[LANE_B..LANE_B + BLOCK_B];
        for m in 0..ELEMENTS {
            builder.assert_zero(
                hold * (next[REMAINING + m] - local[REMAINING + m])
                    + public[P_WEIGHT + m] * digit.clone(),
            );
            builder
                .assert_zero(message_row * (local[REMAINING + m] - lane_b[m] - lane_b[OUT24 + m]));
        }
        builder.assert_zero(hold * (next[DIGIT_SUM] - local[DIGIT_SUM]) - public[P_CHAIN] * digit);
        builder.assert_zero(message_row * local[DIGIT_SUM]);
        builder.assert_zero(public[P_CHECK] * (local[DIGIT_SUM] - AB::Expr::from_u32(TARGET_SUM)));

        // What is left: Σ 2^t·bit_t (+ 127·8^6·free for the sixth element), bits not all set.
        let mut check_any = AB::Expr::ZERO;
        let mut left = AB::Expr::ZERO;
        for m in 0..ELEMENTS {
            check_any += public[P_CHECK + m];
            left += public[P_CHECK + m] * local[REMAINING + m];
        }
        let mut remainder = AB::Expr::ZERO;
        let mut bit_count = AB::Expr::ZERO;
        for t in 0..REMAINDER_BITS {
            builder.assert_bool(local[BITS + t]);
            remainder += local[BITS + t] * F::from_u32(1 << t);
            bit_count += local[BITS + t];
        }
        let mut free = AB::Expr::ZERO;
        for t in 0..FREE_BITS {
            builder.assert_bool(local[FREE + t]);
            free += local[FREE + t] * F::from_u32(1 << t);
        }
        let free_weight = F::from_u32(digit_weight(CHAINS));
        builder.assert_zero(
            left - check_any.clone() * remainder
                - public[P_CHECK + ELEMENTS - 1] * free * free_weight,
        );
        builder.assert_zero(
            check_any
                * ((bit_count - AB::Expr::from_usize(REMAINDER_BITS)) * local[INVERSE]
                    - AB::Expr::ONE),
        );

        // The message hash: message ‖ parameter ‖ tweak ‖ rho (free) ‖ 0.
        for k in 0..9 {
            builder.assert_zero(message_row * (lane_b[k] - public[P_PUBLIC + k]));
        }
        for k in 0..PARAM {
            builder.assert_zero(message_row * (lane_b[9 + k] - param[k].clone()));
        }
        for k in 0..2 {
            builder.assert_zero(message_row * (lane_b[14 + k] - public[P_TWEAK_B + k]));
        }
        builder.assert_zero(message_row * lane_b[23]);

        // Chain ends shift down two rows.
        for k in 0..HASH {
            builder.assert_zero(hold * (next[END1 + k] - local[END + k]));
            builder.assert_zero(hold * (next[END2 + k] - local[END1 + k]));
        }

        // The leaf sponge on lane A.
        let lane_a = &local[LANE_A..LANE_A + BLOCK_A];
        self.p24_a.eval(builder, lane_a);
        self.p24_b.eval(builder, lane_b);
        let first = public[P_SPONGE_FIRST];
        for (&x, &c) in lane_a.iter().zip(&self.capacity) {
            builder.assert_zero(first * (x - c));
        }
        for k in 0..PARAM {
            builder.assert_zero(first * (lane_a[9 + k] - param[k].clone()));
        }
        for k in 0..2 {
            builder.assert_zero(first * (lane_a[14 + k] - public[P_TWEAK_A + k]));
        }
        for k in 0..HASH {
            builder.assert_zero(first * (lane_a[16 + k] - local[END + k]));
        }
        let window = |i: usize| -> AB::Var {
            match i / HASH {
                0 => local[END2 + i],
                1 => local[END1 + i - HASH],
                _ => local[END + i - 2 * HASH],
            }
        };
        let mut later = AB::Expr::ZERO;
        for o in 0..WINDOW_OFFSETS {
            later += public[P_SPONGE + o];
        }
        for k in 0..CAPACITY {
            builder.assert_zero(later.clone() * (lane_a[k] - local[SPONGE_CAPACITY + k]));
        }
        for k in 0..RATE {
            let mut wired = AB::Expr::ZERO;
            for o in 0..WINDOW_OFFSETS {
                wired += public[P_SPONGE + o] * (lane_a[CAPACITY + k] - window(o + k));
            }
            builder.assert_zero(wired);
        }
        let sponge = later + first;
        for k in 0..CAPACITY {
            let register = local[SPONGE_CAPACITY + k];
            builder.assert_zero(
                hold * (next[SPONGE_CAPACITY + k] - register)
                    - sponge.clone() * (lane_a[OUT24 + k] - register),
            );
        }
        for k in 0..HASH {
            builder.assert_zero(public[P_LEAF] * (next[NODE + k] - lane_a[OUT24 + CAPACITY + k]));
        }

        // The tree: lane A takes the row's node, lane B lane A's output.
        let tree = public[P_TREE];
        let mut node: [AB::Expr; HASH] = array_from(|k| local[NODE + k].into());
        for (lane, tweak_at, left, right) in [
            (lane_a, P_TWEAK_A, P_LEFT_A, P_RIGHT_A),
            (lane_b, P_TWEAK_B, P_LEFT_B, P_RIGHT_B),
        ] {
            for k in 0..PARAM {
                builder.assert_zero(tree * (lane[k] - param[k].clone()));
            }
            for k in 0..2 {
                builder.assert_zero(tree * (lane[5 + k] - public[tweak_at + k]));
            }
            builder.assert_zero(tree * lane[23]);
            for k in 0..HASH {
                builder.assert_zero(public[left] * (lane[7 + k] - node[k].clone()));
                builder.assert_zero(public[right] * (lane[15 + k] - node[k].clone()));
            }
            node = array_from(|k| lane[OUT24 + k] + lane[k]);
        }
        for k in 0..HASH {
            builder.assert_zero(public[P_TREE_NEXT] * (next[NODE + k] - node[k].clone()));
            builder.assert_zero(public[P_ROOT] * (node[k].clone() - public[P_PUBLIC + k]));
        }
    }
}

const _: () = {
    // Every sponge block b ≥ 1 reads inside the three-end window, on a chain row
    // after the previous block's, and the last one is the last chain's row.
    let mut b = 1;
    while b < SPONGE_BLOCKS {
        assert!(sponge_row(b) >= 2 && sponge_row(b) > sponge_row(b - 1));
        assert!(sponge_offset(b) < WINDOW_OFFSETS);
        assert!(sponge_offset(b) + RATE <= 3 * HASH);
        b += 1;
    }
    assert!(sponge_row(SPONGE_BLOCKS - 1) == CHAINS - 1);
    assert!(PARAM + 2 + CHAINS * HASH == RATE * SPONGE_BLOCKS);
    assert!(TREE_ROW + LEVELS / 2 <= ROWS_PER_SIGNATURE);
    assert!(CHECK_ROW + ELEMENTS <= ROWS_PER_SIGNATURE && CHECK_ROW >= CHAINS);
};

#[cfg(test)]
pub(crate) mod layout {
    //! The layout, for tests that corrupt chosen cells.
    pub const BITS: usize = super::BITS;
    pub const CHECK_ROW: usize = super::CHECK_ROW;
    pub const DIGIT_SUM: usize = super::DIGIT_SUM;
    pub const END: usize = super::END;
    pub const LANE_B: usize = super::LANE_B;
    pub const NODE: usize = super::NODE;
    pub const REMAINING: usize = super::REMAINING;
    pub const STEPS: usize = super::STEPS;
    pub const TREE_ROW: usize = super::TREE_ROW;

    pub const fn slot(j: usize) -> usize {
        super::slot(j)
    }
}
