//! The trace's commitment without its extension held.
//!
//! The PCS commits the trace's 8× low-degree extension, bit-reversed, under a Merkle tree
//! of its rows (`TwoAdicFriPcs::commit` into `MerkleTreeMmcs`). Held whole, that matrix
//! is most of the prover's memory (920 columns × 2^19 rows, 1.8 GiB, at 1,024
//! signatures). Here the prover holds the columns' polynomials instead
//! ([`ColumnPolys`], one eighth of that) and the tree's digests: the extension's eight
//! blocks of rows (each a coset of the trace domain) are transformed one per thread,
//! their rows hashed sixteen at a time ([`leaves`]), and dropped (but the last group,
//! kept for the quotient); the quotient transforms the others again after α
//! ([`TraceExtension::take_block`]); the opening evaluates the polynomials at ζ and
//! the queried rows at their points, all of them in one pass after FRI's query phase
//! ([`TraceExtension::open_rows`]). The commitment, the openings and so the proof are
//! the bytes `MerkleTreeMmcs` gives for the held matrix (tests compare them).
//!
//! [`RoundsMmcs`] lets Plonky3's FRI prover open such a round beside held ones.

use super::lanes::dft::ColumnPolys;
use super::lanes::leaves::{self, Digest};
use super::lanes::{dots, ProverPath};
use super::stark::{self, Challenge, ValMmcs, MERKLE_CAP_HEIGHT};
use p3_commit::{BatchOpening, BatchOpeningRef, Mmcs};
use p3_field::{BasedVectorSpace, Field, PrimeCharacteristicRing, TwoAdicField};
use p3_koala_bear::KoalaBear;
use p3_matrix::dense::RowMajorMatrix;
use p3_matrix::{Dimensions, Matrix};
use p3_merkle_tree::{MerkleCap, MerkleTree};
use p3_symmetric::PseudoCompressionFunction;
use p3_util::reverse_bits_len;
use rayon::prelude::*;
use std::sync::Mutex;

type F = KoalaBear;
/// A commitment of [`ValMmcs`]: the top [`MERKLE_CAP_HEIGHT`] levels of the tree.
pub(crate) type Commitment = <ValMmcs as Mmcs<F>>::Commitment;

/// The trace's committed extension, held as the columns' polynomials and the Merkle
/// tree's digests (`MerkleTreeMmcs`'s tree over the bit-reversed extension, one
/// matrix, binary).
pub(crate) struct TraceExtension {
    polys: ColumnPolys,
    path: ProverPath,
    /// log2 of the blowup: the extension has 2^added_bits blocks of h rows.
    added_bits: usize,
    /// The extension's coset: shift·K, K of size 2^added_bits·h.
    shift: F,
    /// Level 0 the rows' digests, each level above the compression of pairs below,
    /// the last the root.
    levels: Vec<Vec<Digest>>,
    /// Blocks the commitment transformed last, kept for the first use after it
    /// ([`TraceExtension::take_block`]).
    kept: Mutex<Vec<Option<Vec<F>>>>,
    /// Block buffers done with, for the next block: a fresh one of this size is
    /// pages the kernel maps and clears on first touch (a few percent of the time).
    spare: Mutex<Vec<Vec<F>>>,
}

/// `f` over `blocks`, one block per task and as many tasks at a time as rayon has
/// threads (at most): the blocks a thread holds at once are the one it works on.
pub(crate) fn in_groups<T: Send>(blocks: &[usize], f: impl Fn(usize) -> T + Sync) -> Vec<T> {
    let threads = rayon::current_num_threads().max(1);
    blocks
        .chunks(threads)
        .flat_map(|group| group.par_iter().map(|&block| f(block)).collect::<Vec<_>>())
        .collect()
}

impl TraceExtension {
    /// Commit to the extension of `trace` (its columns over the trace domain) to
    /// F::GENERATOR·K with blowup 2^added_bits, as `TwoAdicFriPcs::commit` does into
    /// [`stark::input_mmcs`], on `path`'s lanes.
    pub(crate) fn commit(
        path: ProverPath,
        trace: RowMajorMatrix<F>,
        added_bits: usize,
    ) -> (Commitment, Self) {
        let polys = ColumnPolys::interpolate(path, trace);
        let mut extension = TraceExtension {
            polys,
            path,
            added_bits,
            shift: F::GENERATOR,
            levels: Vec::new(),
            kept: Mutex::new(Vec::new()),
            spare: Mutex::new(Vec::new()),
        };
        let block_rows = 1 << extension.polys.log_height();
        let width = extension.polys.width();
        // A thread holds one block of rows at a time (h rows of the width), so the
        // prover's memory grows with its threads, up to the whole extension with
        // 2^added_bits of them. The last group's blocks stay for the quotient, which
        // starts with them: that saves their second transform and holds no more rows
        // than a group does.
        let blocks: Vec<usize> = (0..extension.blocks()).collect();
        let last_group = blocks
            .len()
            .saturating_sub(rayon::current_num_threads().max(1));
        let hashed = in_groups(&blocks, |block| {
            let rows = extension.take_block(block);
            let digests = leaves::row_digests(path, &rows, width);
            if block >= last_group {
                (digests, Some(rows))
            } else {
                extension.give_back(rows);
                (digests, None)
            }
        });
        let (leaves, kept): (Vec<Vec<Digest>>, Vec<Option<Vec<F>>>) = hashed.into_iter().unzip();
        debug_assert!(leaves.iter().all(|l| l.len() == block_rows));
        extension.kept = Mutex::new(kept);
        let mut levels = vec![leaves.concat()];
        let compress = stark::node_compress();
        while levels.last().expect("a level").len() > 1 {
            let below = levels.last().expect("a level");
            let above = below
                .par_chunks_exact(2)
                .map(|pair| compress.compress([pair[0], pair[1]]))
                .collect();
            levels.push(above);
        }
        extension.levels = levels;
        let cap = extension.levels[extension.levels.len() - 1 - extension.cap_height()].clone();
        (MerkleCap::new(cap), extension)
    }

    /// As `MerkleTreeMmcs`: the cap is the level [`MERKLE_CAP_HEIGHT`] below the root
    /// (lower for a tree with fewer levels), and openings carry siblings up to it.
    fn cap_height(&self) -> usize {
        MERKLE_CAP_HEIGHT.min(self.levels.len() - 1)
    }

    /// The extension's blocks of rows (2^added_bits).
    pub(crate) fn blocks(&self) -> usize {
        1 << self.added_bits
    }

    /// The rows of one block: h.
    pub(crate) fn block_rows(&self) -> usize {
        1 << self.polys.log_height()
    }

    /// The extension's rows: 2^added_bits·h.
    pub(crate) fn height(&self) -> usize {
        self.blocks() * self.block_rows()
    }

    pub(crate) fn width(&self) -> usize {
        self.polys.width()
    }

    /// The columns' polynomials.
    pub(crate) fn polys(&self) -> &ColumnPolys {
        &self.polys
    }

    /// Rows block·h … (block + 1)·h of the committed (bit-reversed) extension: the
    /// trace's columns on the coset F::GENERATOR·g^rev(block)·H, points in bit-reversed
    /// order. One transform of size h, unless the commitment kept the block (handed
    /// out once); in a spare buffer if there is one ([`TraceExtension::give_back`]).
    pub(crate) fn take_block(&self, block: usize) -> Vec<F> {
        let kept = self
            .kept
            .lock()
            .expect("no panic while holding the lock")
            .get_mut(block)
            .and_then(Option::take);
        kept.unwrap_or_else(|| {
            let spare = self
                .spare
                .lock()
                .expect("no panic while holding the lock")
                .pop();
            let mut rows = spare.unwrap_or_else(|| F::zero_vec(self.block_rows() * self.width()));
            self.same_block(&self.polys, block, &mut rows);
            rows
        })
    }

    /// Block `block` of the extension of `polys` (columns over the trace domain, e.g.
    /// the public columns or a combination of the trace's) on this extension's coset,
    /// in its committed order, into `out`.
    pub(crate) fn same_block(&self, polys: &ColumnPolys, block: usize, out: &mut [F]) {
        polys.extension_block(self.added_bits, self.shift, block, out);
    }

    /// A block's buffer done with, for the next [`TraceExtension::take_block`].
    pub(crate) fn give_back(&self, rows: Vec<F>) {
        debug_assert_eq!(rows.len(), self.block_rows() * self.width());
        self.spare
            .lock()
            .expect("no panic while holding the lock")
            .push(rows);
    }

    /// The blocks kept from the commitment, to be taken first.
    pub(crate) fn kept_blocks(&self) -> Vec<usize> {
        let kept = self.kept.lock().expect("no panic while holding the lock");
        (0..kept.len()).filter(|&b| kept[b].is_some()).collect()
    }

    /// Free the spare buffers (after the last pass over the blocks).
    pub(crate) fn free_spare(&self) {
        self.spare
            .lock()
            .expect("no panic while holding the lock")
            .clear();
    }

    /// Σ_c powers[c]·p_c(x) at every row's point x of the committed extension (the
    /// rows' products with `powers`): one polynomial, Σ_c powers[c]·p_c, whose
    /// coefficients are the same product over the columns' coefficients, extended as
    /// its four base-field coordinates.
    pub(crate) fn row_combination(&self, powers: &[Challenge]) -> Vec<Challenge> {
        const D: usize = 4;
        let coefficients = dots::row_dots(self.path, self.polys.values(), self.width(), powers);
        let coordinates: Vec<F> = coefficients
            .iter()
            .flat_map(|c| c.as_basis_coefficients_slice().iter().copied())
            .collect();
        let combined = ColumnPolys::from_scaled_coefficients(self.path, coordinates, D);
        let mut values = F::zero_vec(self.height() * D);
        values
            .par_chunks_mut(self.block_rows() * D)
            .enumerate()
            .for_each(|(block, out)| self.same_block(&combined, block, out));
        values
            .chunks_exact(D)
            .map(|c| Challenge::from_basis_coefficients_slice(c).expect("four coordinates"))
            .collect()
    }

    /// The openings of rows `indices` of the committed extension: each row (the
    /// columns at the point F::GENERATOR·g^rev(index), g generating K, from the
    /// polynomials; [`dots::POINTS`] rows per pass over them) and its siblings from the
    /// leaf up to the cap, as `MerkleTreeMmcs::open_batch` gives them for the held
    /// matrix.
    pub(crate) fn open_rows(&self, indices: &[usize]) -> Vec<(Vec<F>, Vec<Digest>)> {
        let log_height = self.polys.log_height() + self.added_bits;
        let generator = F::two_adic_generator(log_height);
        let mut rows = Vec::with_capacity(indices.len());
        for chunk in indices.chunks(dots::POINTS) {
            let per_point: Vec<Vec<F>> = chunk
                .iter()
                .map(|&index| {
                    assert!(index < self.height(), "row {index} of {}", self.height());
                    let power = reverse_bits_len(index, log_height) as u64;
                    self.polys.weights_at(self.shift * generator.exp_u64(power))
                })
                .collect();
            let weights: Vec<[F; dots::POINTS]> = (0..self.block_rows())
                .map(|i| core::array::from_fn(|j| per_point.get(j).map_or(F::ZERO, |w| w[i])))
                .collect();
            let columns =
                dots::points_column_dots(self.path, self.polys.values(), self.width(), &weights);
            rows.extend((0..chunk.len()).map(|j| columns.iter().map(|c| c[j]).collect()));
        }
        rows.into_iter()
            .zip(indices)
            .map(|(row, &index)| {
                let siblings = (0..self.levels.len() - 1 - self.cap_height())
                    .map(|level| self.levels[level][(index >> level) ^ 1])
                    .collect();
                (row, siblings)
            })
            .collect()
    }
}

/// [`ValMmcs`] over rounds of two kinds: matrices it committed and holds, and the trace's
/// [`TraceExtension`]; what Plonky3's FRI prover opens the input rounds with. Its
/// commitments, proofs and checks are [`ValMmcs`]'s.
///
/// Plonky3's query phase asks for each query's rows as it draws the index and absorbs
/// none of them, so the trace's rows are answered afterwards, all together
/// ([`TraceExtension::open_rows`]: one pass over the coefficients for every query, not
/// one per query): `open_batch` records the index and leaves an empty opening, which
/// [`RoundsMmcs::take_deferred`]'s caller replaces.
#[derive(Clone)]
pub(crate) struct RoundsMmcs<'a> {
    held: ValMmcs,
    /// The trace rows asked for, in the order asked.
    deferred: std::sync::Arc<Mutex<Vec<usize>>>,
    _extension: core::marker::PhantomData<&'a TraceExtension>,
}

/// One committed round: held by [`ValMmcs`], or the trace's extension.
pub(crate) enum RoundData<'a, M> {
    Held(MerkleTree<F, u8, M, 2, 32>),
    Extension(&'a TraceExtension),
}

impl RoundsMmcs<'_> {
    pub(crate) fn new() -> Self {
        RoundsMmcs {
            held: stark::input_mmcs(),
            deferred: Default::default(),
            _extension: core::marker::PhantomData,
        }
    }

    /// The trace rows `open_batch` was asked for since the last call, in order.
    pub(crate) fn take_deferred(&self) -> Vec<usize> {
        core::mem::take(
            &mut *self
                .deferred
                .lock()
                .expect("no panic while holding the lock"),
        )
    }
}

impl<'a> Mmcs<F> for RoundsMmcs<'a> {
    type ProverData<M> = RoundData<'a, M>;
    type Commitment = Commitment;
    type Proof = <ValMmcs as Mmcs<F>>::Proof;
    type Error = <ValMmcs as Mmcs<F>>::Error;

    fn commit<M: Matrix<F>>(&self, inputs: Vec<M>) -> (Self::Commitment, Self::ProverData<M>) {
        let (commitment, tree) = self.held.commit(inputs);
        (commitment, RoundData::Held(tree))
    }

    fn open_batch<M: Matrix<F>>(
        &self,
        index: usize,
        prover_data: &Self::ProverData<M>,
    ) -> BatchOpening<F, Self> {
        match prover_data {
            RoundData::Held(tree) => {
                let (rows, proof) = self.held.open_batch(index, tree).unpack();
                BatchOpening::new(rows, proof)
            }
            RoundData::Extension(extension) => {
                assert!(
                    index < extension.height(),
                    "row {index} of {}",
                    extension.height()
                );
                self.deferred
                    .lock()
                    .expect("no panic while holding the lock")
                    .push(index);
                BatchOpening::new(Vec::new(), Vec::new())
            }
        }
    }

    /// The held matrices. The trace's extension is not held: its rows come from
    /// `open_batch` only, and asking for it as a matrix is a bug in the caller.
    fn get_matrices<'b, M: Matrix<F>>(&self, prover_data: &'b Self::ProverData<M>) -> Vec<&'b M> {
        match prover_data {
            RoundData::Held(tree) => self.held.get_matrices(tree),
            RoundData::Extension(_) => {
                unreachable!("the trace's extension is not held; its rows open one by one")
            }
        }
    }

    fn get_matrix_heights<M: Matrix<F>>(&self, prover_data: &Self::ProverData<M>) -> Vec<usize> {
        match prover_data {
            RoundData::Held(tree) => self.held.get_matrix_heights(tree),
            RoundData::Extension(extension) => vec![extension.height()],
        }
    }

    fn verify_batch(
        &self,
        commit: &Self::Commitment,
        dimensions: &[Dimensions],
        index: usize,
        batch_opening: BatchOpeningRef<'_, F, Self>,
    ) -> Result<(), Self::Error> {
        let (rows, proof) = batch_opening.unpack();
        self.held
            .verify_batch(commit, dimensions, index, BatchOpeningRef::new(rows, proof))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use p3_dft::{Radix2DitParallel, TwoAdicSubgroupDft};
    use p3_field::PrimeField32;
    use p3_matrix::bitrev::BitReversibleMatrix;
    use rand::{Rng, SeedableRng};
    use rand_chacha::ChaCha8Rng;

    /// On every path and shapes not of whole lanes: the commitment, each block, each
    /// opened row with its path and the rows' products with α's powers are those of the
    /// held extension (Plonky3's transform, `MerkleTreeMmcs`).
    #[test]
    fn the_extension_block_by_block_is_the_held_one() {
        let mut rng = ChaCha8Rng::seed_from_u64(3);
        let element = |rng: &mut ChaCha8Rng| F::from_u32(rng.gen_range(0..F::ORDER_U32));
        for (log_rows, width) in [(4, 37), (6, 16), (5, 3)] {
            let trace = RowMajorMatrix::new(
                (0..(width << log_rows))
                    .map(|_| element(&mut rng))
                    .collect(),
                width,
            );
            let held = Radix2DitParallel::default()
                .coset_lde_batch(trace.clone(), 3, F::GENERATOR)
                .bit_reverse_rows()
                .to_row_major_matrix();
            let mmcs = stark::input_mmcs();
            let (held_cap, tree) = mmcs.commit_matrix(held.clone());
            let powers: Vec<Challenge> =
                Challenge::from_basis_coefficients_fn(|_| element(&mut rng))
                    .powers()
                    .collect_n(width);
            for path in ProverPath::supported() {
                let (cap, extension) = TraceExtension::commit(path, trace.clone(), 3);
                assert_eq!(cap, held_cap, "{} path, {width} columns", path.name());
                let block_len = extension.block_rows() * width;
                for block in 0..extension.blocks() {
                    assert!(
                        extension.take_block(block)
                            == held.values[block * block_len..][..block_len],
                        "{} path, block {block}",
                        path.name()
                    );
                }
                let mut indices: Vec<usize> = (0..extension.height()).collect();
                indices.reverse();
                for ((row, siblings), &index) in
                    extension.open_rows(&indices).into_iter().zip(&indices)
                {
                    let (rows, proof) = mmcs.open_batch(index, &tree).unpack();
                    assert_eq!((vec![row], siblings), (rows, proof), "row {index}");
                }
                assert_eq!(
                    extension.row_combination(&powers),
                    dots::row_dots(ProverPath::Plonky3, &held.values, width, &powers),
                    "{} path",
                    path.name()
                );
            }
        }
    }
}
