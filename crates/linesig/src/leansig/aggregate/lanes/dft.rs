//! The low-degree extensions on lanes: Plonky3's `TwoAdicSubgroupDft` whose
//! `coset_lde_batch` (what the PCS commits every trace, preprocessed and quotient matrix
//! with) runs its forward transforms sixteen columns at a time on the lanes
//! [`ProverPath`] picks at run time; the inverse transform (an eighth of the work at
//! blowup 8) and everything else stay Plonky3's `Radix2DitParallel`.
//!
//! The extension of h evaluations over H to the coset shift·K (|K| = 2^b·h, generator
//! g) is 2^b transforms of size h: with c the coefficients, coset k's values
//! c(shift·g^k·ω^i) are the DFT of c_i·(shift·g^k)^i. The committed matrix is the
//! natural-order extension with its rows bit-reversed (point k + 2^b·i at row
//! rev_b(k)·h + rev(i)), so coset k fills block rev_b(k), in bit-reversed order, which is
//! the order a decimation-in-frequency network leaves its outputs in.

use super::lanes16::{load_columns, monty_words, store_columns, WIDTH};
use super::ProverPath;
use crate::leansig::lanes::KoalaLanes;
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
        let kernel = match self.path {
            #[cfg(target_arch = "x86_64")]
            ProverPath::Avx512 => super::avx512::coset_dft,
            #[cfg(target_arch = "x86_64")]
            ProverPath::Avx2 => super::avx2::coset_dft,
            _ => return self.plonky3.coset_lde_batch(mat, added_bits, shift),
        };
        let (width, height) = (mat.width(), mat.height());
        let log_height = log2_strict_usize(height);
        let coefficients = self.plonky3.idft_batch(mat);
        let coefficients = monty_words(&coefficients.values);
        let root = F::two_adic_generator(log_height);
        let twiddles: Vec<F> = root.powers().take(height / 2).collect();
        let twiddles = monty_words(&twiddles);
        let generator = F::two_adic_generator(log_height + added_bits);
        let mut values = F::zero_vec((height * width) << added_bits);
        values
            .par_chunks_mut(height * width)
            .enumerate()
            .for_each(|(block, out)| {
                let coset = reverse_bits_len(block, added_bits);
                let coset_shift = shift * generator.exp_u64(coset as u64);
                let powers: Vec<F> = coset_shift.powers().take(height).collect();
                kernel(
                    coefficients,
                    width,
                    monty_words(&powers),
                    twiddles,
                    monty_words_mut(out),
                );
            });
        BitReversalPerm::new_view(RowMajorMatrix::new(values, width))
    }
}

/// The Montgomery words of KoalaBear elements, to write.
fn monty_words_mut(elements: &mut [F]) -> &mut [u32] {
    // SAFETY: as `monty_words` (`KoalaBear` is `#[repr(transparent)]` over its Montgomery
    // word); the kernels write only words in [0, p), the lanes' invariant, so every
    // element stays valid.
    unsafe { core::slice::from_raw_parts_mut(elements.as_mut_ptr().cast::<u32>(), elements.len()) }
}

/// One coset's transform: `out` (h rows of `width`) gets the DFT of the rows of
/// `coefficients` scaled by `powers` (the coset shift's powers), in bit-reversed order,
/// by a decimation-in-frequency network run in place on whole rows (sixteen columns per
/// lane vector), in stages of a few layers each.
///
/// Why stages: a DIF layer of half-size 2^l pairs rows of the same block of 2^(l+1)
/// rows, so the layers 2^a … 2^b of a block pair only rows equal modulo 2^b: each
/// residue's 2^(a+1−b) rows form a small network of their own. A stage runs those small
/// networks one after another, each in L2 (at most [`NETWORK_BYTES`] of rows), and the
/// next stage runs on each block of 2^b rows in turn while it is still in L3. Every row
/// is read whole and in order, which the prefetchers follow; the first stage reads it
/// from the coefficients, scaled, so the matrix is written once and then reworked in
/// cache (a column-at-a-time network read each row in 64-byte pieces, a page apart).
#[inline(always)]
pub(super) fn coset_dft_lanes<L: KoalaLanes>(
    coefficients: &[u32],
    width: usize,
    powers: &[u32],
    twiddles: &[u32],
    out: &mut [u32],
) {
    let height = powers.len();
    let row_bytes = width * size_of::<u32>();
    let transform = Transform {
        width,
        height,
        twiddles,
        stage_layers: (NETWORK_BYTES / row_bytes).max(2).ilog2() as usize,
        one: monty_words(&[F::ONE])[0],
    };
    // The first stage over the whole matrix, from the coefficients; then each block it
    // leaves, stage after stage, while the block is in cache. Loops, not recursion: a
    // recursive call would leave the kernel's target features behind.
    let log_height = log2_strict_usize(height);
    let layers = transform.stage_layers.min(log_height);
    transform.stage::<L>(out, log_height, layers, Some((coefficients, powers)));
    let log_block = log_height - layers;
    for block in out.chunks_exact_mut(width << log_block) {
        let mut log_rows = log_block;
        while log_rows > 0 {
            let layers = transform.stage_layers.min(log_rows);
            for part in block.chunks_exact_mut(width << log_rows) {
                transform.stage::<L>(part, log_rows, layers, None);
            }
            log_rows -= layers;
        }
    }
}

/// The fixed parts of one coset's transform.
struct Transform<'a> {
    width: usize,
    height: usize,
    /// ω^0 … ω^(h/2 − 1), ω the h-th root of unity.
    twiddles: &'a [u32],
    /// Layers per stage (≥ 1): the small networks span 2^stage_layers rows.
    stage_layers: usize,
    /// The Montgomery word of 1: a twiddle not to multiply by.
    one: u32,
}

impl Transform<'_> {
    /// One stage: the `layers` layers of half-size 2^(log_rows − 1) down over `block`
    /// (2^log_rows rows starting at a multiple of 2^log_rows), small network by small
    /// network. With `input` (the first stage), each network's rows are first filled
    /// from the coefficients times the powers.
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
        let mut tail = [0u32; WIDTH];
        for residue in 0..spacing {
            if let Some((coefficients, powers)) = input {
                for u in 0..1 << layers {
                    let row = residue + spacing * u;
                    let power = L::splat(powers[row]);
                    let from = &coefficients[row * width..(row + 1) * width];
                    let to = &mut block[row * width..(row + 1) * width];
                    for at in (0..width).step_by(WIDTH) {
                        let x = load_columns::<L>(from, at, &mut tail).mul(power);
                        store_columns(x, to, at, &mut tail);
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
                            &mut tail,
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
fn butterfly_rows<L: KoalaLanes>(
    a: &mut [u32],
    b: &mut [u32],
    twiddle: Option<u32>,
    tail: &mut [u32; WIDTH],
) {
    let twiddle = twiddle.map(L::splat);
    for at in (0..a.len()).step_by(WIDTH) {
        let (x, y) = (
            load_columns::<L>(a, at, tail),
            load_columns::<L>(b, at, tail),
        );
        store_columns(x.add(y), a, at, tail);
        let difference = x.sub(y);
        let difference = match twiddle {
            Some(twiddle) => difference.mul(twiddle),
            None => difference,
        };
        store_columns(difference, b, at, tail);
    }
}
