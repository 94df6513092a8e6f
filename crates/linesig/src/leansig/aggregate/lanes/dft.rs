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

/// Butterfly layers whose blocks are at most this many rows run block by block, each
/// block's remaining layers while it is in cache (2^11 rows of sixteen columns: 128 KiB).
const CACHE_ROWS: usize = 1 << 11;

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
/// sixteen columns at a time: gathered into a column of lanes, transformed there by a
/// decimation-in-frequency network (the large layers across the column, then the rest
/// block by block in cache), scattered back.
#[inline(always)]
pub(super) fn coset_dft_lanes<L: KoalaLanes>(
    coefficients: &[u32],
    width: usize,
    powers: &[u32],
    twiddles: &[u32],
    out: &mut [u32],
) {
    // Plain loops, no closures: a closure would not inherit the kernel's features.
    let height = powers.len();
    let mut column = vec![L::splat(0); height];
    let mut tail = [0u32; WIDTH];
    for at in (0..width).step_by(WIDTH) {
        for ((x, &power), row) in column
            .iter_mut()
            .zip(powers)
            .zip(coefficients.chunks_exact(width))
        {
            *x = load_columns::<L>(row, at, &mut tail).mul(L::splat(power));
        }
        let mut half = height / 2;
        while half >= 1 && 2 * half > CACHE_ROWS {
            dif_layer(&mut column, half, twiddles, height);
            half /= 2;
        }
        for block in column.chunks_mut(CACHE_ROWS.min(height)) {
            let mut half = half;
            while half >= 1 {
                dif_layer(block, half, twiddles, height);
                half /= 2;
            }
        }
        for (&x, row) in column.iter().zip(out.chunks_exact_mut(width)) {
            store_columns(x, row, at, &mut tail);
        }
    }
}

/// One decimation-in-frequency layer of half-size `half` over `x` (a whole number of
/// its blocks): (a, b) → (a + b, (a − b)·ω^(j·h/(2·half))) for the j-th pair of each
/// block, ω the h-th root of unity whose powers `twiddles` holds.
#[inline(always)]
fn dif_layer<L: KoalaLanes>(x: &mut [L], half: usize, twiddles: &[u32], height: usize) {
    let stride = height / (2 * half);
    for block in x.chunks_exact_mut(2 * half) {
        let (low, high) = block.split_at_mut(half);
        for (j, (a, b)) in low.iter_mut().zip(high.iter_mut()).enumerate() {
            let (sum, difference) = (a.add(*b), a.sub(*b));
            *a = sum;
            *b = difference.mul(L::splat(twiddles[j * stride]));
        }
    }
}
