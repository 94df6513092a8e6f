//! The low-degree extensions on lanes: Plonky3's `TwoAdicSubgroupDft` whose
//! `coset_lde_batch` (what the PCS commits every trace, preprocessed and quotient matrix
//! with) runs its inverse and forward transforms sixteen columns at a time on the lanes
//! [`ProverPath`] picks at run time; everything else stays Plonky3's
//! `Radix2DitParallel`.
//!
//! The extension of h evaluations over H to the coset shift·K (|K| = 2^b·h, generator
//! g) is 2^b transforms of size h: with c the coefficients, coset k's values
//! c(shift·g^k·ω^i) are the DFT of c_i·(shift·g^k)^i. The committed matrix is the
//! natural-order extension with its rows bit-reversed (point k + 2^b·i at row
//! rev_b(k)·h + rev(i)), so coset k fills block rev_b(k), in bit-reversed order, which is
//! the order a decimation-in-frequency network leaves its outputs in.
//!
//! The coefficients come from the same network run in place on the evaluations with
//! ω⁻¹: h·c, in bit-reversed order. The forward transforms read them in that order
//! (row i of their input is row rev(i)) and fold the 1/h into the coset's powers, so the
//! inverse costs one transform of size h, with no permutation, copy or scaling pass
//! (Plonky3's inverse, in a portable build, ran scalar and copied its bit-reversed
//! output into a new matrix).

use super::lanes16::{load_columns, monty_words, store_columns, WIDTH};
use super::ProverPath;
use linesig::leansig::internals::lanes::KoalaLanes;
use linesig::leansig::internals::lanes::Portable;
use p3_dft::{Radix2DitParallel, TwoAdicSubgroupDft};
use p3_field::{Field, PackedValue, PrimeCharacteristicRing, TwoAdicField};
use p3_koala_bear::KoalaBear;
use p3_matrix::bitrev::{BitReversalPerm, BitReversedMatrixView};
use p3_matrix::dense::RowMajorMatrix;
use p3_matrix::Matrix;
use p3_util::{log2_strict_usize, reverse_bits_len};
use rayon::prelude::*;

type F = KoalaBear;

/// The most bytes of rows one small network of a stage spans: they stay in L2 (Zen 4
/// and recent Xeons have 1–2 MiB per core) while the stage's layers run over them.
const NETWORK_BYTES: usize = 256 << 10;

/// [`TwoAdicSubgroupDft`] with its forward transforms on lanes.
#[derive(Clone, Debug)]
pub struct LanesDft {
    path: ProverPath,
    plonky3: Radix2DitParallel<F>,
}

impl Default for LanesDft {
    fn default() -> Self {
        Self::on(ProverPath::best())
    }
}

impl LanesDft {
    /// The transforms on `path` (which this CPU must run), unless this build has
    /// Plonky3's own packing: built for the CPU, Plonky3's transform is the faster
    /// (docs/results.md, "the prover's arithmetic on lanes chosen at run time").
    pub fn on(path: ProverPath) -> Self {
        let plonky3_packed = <<F as Field>::Packing as PackedValue>::WIDTH > 1;
        LanesDft {
            path: if plonky3_packed {
                ProverPath::Plonky3
            } else {
                path
            },
            plonky3: Radix2DitParallel::default(),
        }
    }
}

impl TwoAdicSubgroupDft<F> for LanesDft {
    type Evaluations = BitReversedMatrixView<RowMajorMatrix<F>>;

    fn dft_batch(&self, mat: RowMajorMatrix<F>) -> Self::Evaluations {
        self.plonky3.dft_batch(mat)
    }

    fn coset_lde_batch(
        &self,
        mat: RowMajorMatrix<F>,
        added_bits: usize,
        shift: F,
    ) -> Self::Evaluations {
        if self.path == ProverPath::Plonky3 || mat.width() == 0 {
            // No lanes, or no columns (and so no height, in Plonky3's matrices): Plonky3
            // answers.
            return self.plonky3.coset_lde_batch(mat, added_bits, shift);
        }
        let polys = ColumnPolys::interpolate(self.path, mat);
        let block_len = polys.values.len();
        let mut values = F::zero_vec(block_len << added_bits);
        values
            .par_chunks_mut(block_len)
            .enumerate()
            .for_each(|(block, out)| polys.extension_block(added_bits, shift, block, out));
        BitReversalPerm::new_view(RowMajorMatrix::new(values, polys.width))
    }
}

/// A matrix's columns as polynomials, in the form the forward kernels read: h times the
/// coefficients, rows in bit-reversed order (row i holds h·c_rev(i)). Any block of an
/// extension is one transform of size h from it ([`ColumnPolys::extension_block`]), so
/// a prover can hold this instead of the extension, 2^b times smaller.
pub(crate) struct ColumnPolys {
    kernels: Kernels,
    values: Vec<F>,
    width: usize,
    log_height: usize,
    /// ω^0 … ω^(h/2 − 1), ω the h-th root of unity: the forward transforms' twiddles.
    twiddles: Vec<F>,
}

impl ColumnPolys {
    /// The columns of `mat` (values over the subgroup of its height) as polynomials: the
    /// inverse transform, in place, on `path`'s lanes (portable lanes on Plonky3's path).
    pub(crate) fn interpolate(path: ProverPath, mat: RowMajorMatrix<F>) -> Self {
        let (width, height) = (mat.width(), mat.height());
        assert!(width > 0, "a matrix with columns");
        let kernels = Kernels::on(path);
        let inverse_twiddles: Vec<F> = F::two_adic_generator(log2_strict_usize(height))
            .inverse()
            .powers()
            .take(height / 2)
            .collect();
        let mut values = mat.values;
        inverse_in_place(
            &kernels,
            monty_words_mut(&mut values),
            width,
            monty_words(&inverse_twiddles),
        );
        Self::in_place_form(kernels, values, width)
    }

    /// Polynomials already in this form: `values` (rows of `width`) are h times
    /// coefficients in bit-reversed row order, e.g. a linear combination of another
    /// [`ColumnPolys`]' columns.
    pub(crate) fn from_scaled_coefficients(path: ProverPath, values: Vec<F>, width: usize) -> Self {
        Self::in_place_form(Kernels::on(path), values, width)
    }

    fn in_place_form(kernels: Kernels, values: Vec<F>, width: usize) -> Self {
        let log_height = log2_strict_usize(values.len() / width);
        let twiddles = F::two_adic_generator(log_height)
            .powers()
            .take((1 << log_height) / 2)
            .collect();
        ColumnPolys {
            kernels,
            values,
            width,
            log_height,
            twiddles,
        }
    }

    /// The stored rows (h·c_rev(i) at row i).
    pub(crate) fn values(&self) -> &[F] {
        &self.values
    }

    pub(crate) fn width(&self) -> usize {
        self.width
    }

    pub(crate) fn log_height(&self) -> usize {
        self.log_height
    }

    /// Block `block` of the extension to shift·K (|K| = 2^added_bits·h) as it is
    /// committed, rows bit-reversed: the coset shift·g^rev_b(block)·H (g generating K),
    /// its points in bit-reversed order, into `out` (h rows of the width).
    pub(crate) fn extension_block(&self, added_bits: usize, shift: F, block: usize, out: &mut [F]) {
        let height = 1 << self.log_height;
        assert_eq!(out.len(), height * self.width, "one block of rows");
        let generator = F::two_adic_generator(self.log_height + added_bits);
        let coset_shift = shift * generator.exp_u64(reverse_bits_len(block, added_bits) as u64);
        let powers: Vec<F> = coset_shift
            .shifted_powers(F::from_usize(height).inverse())
            .take(height)
            .collect();
        (self.kernels.coset_dft)(
            monty_words(&self.values),
            self.width,
            monty_words(&powers),
            monty_words(&self.twiddles),
            monty_words_mut(out),
        );
    }

    /// The weights w with Σ_i w_i·row_i = the columns' values at `z`: w_i = z^rev(i)/h.
    pub(crate) fn weights_at<E: p3_field::ExtensionField<F>>(&self, z: E) -> Vec<E> {
        let height = 1 << self.log_height;
        let powers: Vec<E> = z
            .shifted_powers(E::from(F::from_usize(height).inverse()))
            .take(height)
            .collect();
        (0..height)
            .map(|i| powers[reverse_bits_len(i, self.log_height)])
            .collect()
    }
}

/// [`coset_dft_lanes`] on one path: (coefficients, width, powers, twiddles, out).
type CosetDft = fn(&[u32], usize, &[u32], &[u32], &mut [u32]);

/// One path's transform kernels (its `prover_kernels!`; portable lanes for Plonky3's
/// path).
#[derive(Clone, Copy)]
struct Kernels {
    coset_dft: CosetDft,
    first_stage: fn(&mut [u32], usize, &[u32]),
    finish_block: fn(&mut [u32], usize, usize, &[u32]),
}

impl Kernels {
    fn on(path: ProverPath) -> Self {
        match path {
            #[cfg(target_arch = "x86_64")]
            ProverPath::Avx512 => Kernels {
                coset_dft: super::avx512::coset_dft,
                first_stage: super::avx512::first_stage,
                finish_block: super::avx512::finish_block,
            },
            #[cfg(target_arch = "x86_64")]
            ProverPath::Avx2 => Kernels {
                coset_dft: super::avx2::coset_dft,
                first_stage: super::avx2::first_stage,
                finish_block: super::avx2::finish_block,
            },
            _ => Kernels {
                coset_dft: coset_dft_lanes::<Portable<WIDTH>>,
                first_stage: first_stage_lanes::<Portable<WIDTH>>,
                finish_block: finish_block_lanes::<Portable<WIDTH>>,
            },
        }
    }
}

/// The unnormalized inverse transform of `values` (h rows of `width`) in place: h times
/// the coefficients, rows in bit-reversed order. The first stage spans the whole matrix
/// and runs on one thread; the blocks it leaves are independent and run on all of them.
fn inverse_in_place(kernels: &Kernels, values: &mut [u32], width: usize, inverse_twiddles: &[u32]) {
    let height = values.len() / width;
    (kernels.first_stage)(values, width, inverse_twiddles);
    let log_block = Transform::new(width, height, inverse_twiddles).log_block();
    values
        .par_chunks_exact_mut(width << log_block)
        .for_each(|block| (kernels.finish_block)(block, width, height, inverse_twiddles));
}

/// The Montgomery words of KoalaBear elements, to write.
fn monty_words_mut(elements: &mut [F]) -> &mut [u32] {
    // SAFETY: as `monty_words` (`KoalaBear` is `#[repr(transparent)]` over its Montgomery
    // word); the kernels write only words in [0, p), the lanes' invariant, so every
    // element stays valid.
    unsafe { core::slice::from_raw_parts_mut(elements.as_mut_ptr().cast::<u32>(), elements.len()) }
}

/// One coset's transform: `out` (h rows of `width`) gets the DFT of the rows of
/// `coefficients` (stored in bit-reversed order: row i is `coefficients`' row rev(i))
/// scaled by `powers`, in bit-reversed order, by a decimation-in-frequency network run
/// in place on whole rows (sixteen columns per lane vector), in stages of a few layers
/// each.
///
/// Why stages: a DIF layer of half-size 2^l pairs rows of the same block of 2^(l+1)
/// rows, so the layers 2^a … 2^b of a block pair only rows equal modulo 2^b: each
/// residue's 2^(a+1−b) rows form a small network of their own. A stage runs those small
/// networks one after another, each in L2 (at most [`NETWORK_BYTES`] of rows), and the
/// next stage runs on each block of 2^b rows in turn while it is still in L3. Every row
/// is read whole, which the prefetchers follow; the first stage reads it from the
/// coefficients, scaled, so the matrix is written once and then reworked in cache (a
/// column-at-a-time network read each row in 64-byte pieces, a page apart).
#[inline(always)]
pub(super) fn coset_dft_lanes<L: KoalaLanes>(
    coefficients: &[u32],
    width: usize,
    powers: &[u32],
    twiddles: &[u32],
    out: &mut [u32],
) {
    let transform = Transform::new(width, powers.len(), twiddles);
    transform.stage::<L>(
        out,
        transform.log_height,
        transform.first_layers(),
        Some((coefficients, powers)),
    );
    // Loops, not recursion: a recursive call would leave the kernel's target features
    // behind.
    for block in out.chunks_exact_mut(width << transform.log_block()) {
        transform.finish_block::<L>(block);
    }
}

/// The first stage of the network of `values` (h rows of `width`) in place, the
/// twiddles those of its size: the layers whose small networks span the whole matrix.
#[inline(always)]
pub(super) fn first_stage_lanes<L: KoalaLanes>(values: &mut [u32], width: usize, twiddles: &[u32]) {
    let transform = Transform::new(width, values.len() / width, twiddles);
    transform.stage::<L>(values, transform.log_height, transform.first_layers(), None);
}

/// The rest of the network of an h-row matrix on one block the first stage left
/// (`block`: 2^log_block rows, see [`Transform::log_block`]).
#[inline(always)]
pub(super) fn finish_block_lanes<L: KoalaLanes>(
    block: &mut [u32],
    width: usize,
    height: usize,
    twiddles: &[u32],
) {
    Transform::new(width, height, twiddles).finish_block::<L>(block);
}

/// The fixed parts of one transform of size h.
struct Transform<'a> {
    width: usize,
    height: usize,
    log_height: usize,
    /// ω^0 … ω^(h/2 − 1), ω an h-th root of unity (its inverse for the inverse).
    twiddles: &'a [u32],
    /// Layers per stage (≥ 1): the small networks span 2^stage_layers rows.
    stage_layers: usize,
    /// The Montgomery word of 1: a twiddle not to multiply by.
    one: u32,
}

impl<'a> Transform<'a> {
    #[inline(always)]
    fn new(width: usize, height: usize, twiddles: &'a [u32]) -> Self {
        let row_bytes = width * size_of::<u32>();
        Transform {
            width,
            height,
            log_height: log2_strict_usize(height),
            twiddles,
            stage_layers: (NETWORK_BYTES / row_bytes.max(1)).max(2).ilog2() as usize,
            one: monty_words(&[F::ONE])[0],
        }
    }

    /// The first stage's layers (all of them for a small matrix).
    #[inline(always)]
    fn first_layers(&self) -> usize {
        self.stage_layers.min(self.log_height)
    }

    /// log2 of the rows of the blocks the first stage leaves.
    #[inline(always)]
    fn log_block(&self) -> usize {
        self.log_height - self.first_layers()
    }

    /// Every stage after the first on one of the blocks it leaves.
    #[inline(always)]
    fn finish_block<L: KoalaLanes>(&self, block: &mut [u32]) {
        let mut log_rows = self.log_block();
        while log_rows > 0 {
            let layers = self.stage_layers.min(log_rows);
            for part in block.chunks_exact_mut(self.width << log_rows) {
                self.stage::<L>(part, log_rows, layers, None);
            }
            log_rows -= layers;
        }
    }
}

impl Transform<'_> {
    /// One stage: the `layers` layers of half-size 2^(log_rows − 1) down over `block`
    /// (2^log_rows rows starting at a multiple of 2^log_rows), small network by small
    /// network. With `input` (the first stage of a forward transform), each network's
    /// rows are first filled from the bit-reversed coefficients times the powers.
    #[inline(always)]
    fn stage<L: KoalaLanes>(
        &self,
        block: &mut [u32],
        log_rows: usize,
        layers: usize,
        input: Option<(&[u32], &[u32])>,
    ) {
        // Plain loops, no closures: a closure would not inherit the kernel's features.
        let width = self.width;
        let bottom = log_rows - layers;
        let spacing = 1 << bottom;
        for residue in 0..spacing {
            if let Some((coefficients, powers)) = input {
                // Row residue + spacing·u reads row rev(residue + spacing·u) =
                // rev(residue)·2^layers + rev(u) (the first stage spans the matrix, so
                // log_rows is log h): taking u = rev(v) reads the network's rows in
                // ascending order, one run of memory, which matters for narrow matrices
                // (a 64-byte row read out of order is a cache line the prefetchers miss).
                let first_source = reverse_bits_len(residue, bottom) << layers;
                for v in 0..1 << layers {
                    let row = residue + spacing * reverse_bits_len(v, layers);
                    let power = L::splat(powers[row]);
                    let source = first_source + v;
                    debug_assert_eq!(source, reverse_bits_len(row, self.log_height));
                    let from = &coefficients[source * width..(source + 1) * width];
                    let to = &mut block[row * width..(row + 1) * width];
                    for at in (0..width).step_by(WIDTH) {
                        let x = load_columns::<L>(from, at).mul(power);
                        store_columns(x, to, at);
                    }
                }
            }
            for level in (bottom..log_rows).rev() {
                // Half-size 2^level: network entries u and u + half pair, rows
                // residue + spacing·u; within its block of 2^(level+1) rows the j-th
                // pair's twiddle is ω^((residue + spacing·j)·h/2^(level+1)).
                let half = 1 << (level - bottom);
                let stride = self.height >> (level + 1);
                for first in (0..1 << layers).step_by(2 * half) {
                    for j in 0..half {
                        let low = residue + spacing * (first + j);
                        let high = low + spacing * half;
                        let (lows, highs) = block.split_at_mut(high * width);
                        let twiddle = self.twiddles[(residue + spacing * j) * stride];
                        butterfly_rows::<L>(
                            &mut lows[low * width..(low + 1) * width],
                            &mut highs[..width],
                            (twiddle != self.one).then_some(twiddle),
                        );
                    }
                }
            }
        }
    }
}

/// (a, b) → (a + b, (a − b)·twiddle) on two rows, sixteen columns at a time (no
/// multiplication for a twiddle of one: `None`).
#[inline(always)]
fn butterfly_rows<L: KoalaLanes>(a: &mut [u32], b: &mut [u32], twiddle: Option<u32>) {
    let twiddle = twiddle.map(L::splat);
    for at in (0..a.len()).step_by(WIDTH) {
        let (x, y) = (load_columns::<L>(a, at), load_columns::<L>(b, at));
        store_columns(x.add(y), a, at);
        let difference = x.sub(y);
        let difference = match twiddle {
            Some(twiddle) => difference.mul(twiddle),
            None => difference,
        };
        store_columns(difference, b, at);
    }
}
