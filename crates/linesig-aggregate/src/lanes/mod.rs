//! The prover's field arithmetic in KoalaBear lanes chosen at run time.
//!
//! Plonky3 computes over `KoalaBear::Packing`, which it picks when it is compiled
//! (`target_feature`): in a portable x86-64 build that is one scalar element, and a
//! prover built for the CPU runs about twice as fast. The steps that dominate an
//! aggregate's proving time run here instead, over the leanSig lanes (`U32x16` on
//! AVX-512F, two `__m256i` on AVX2), inside one kernel per ISA path compiled with that
//! path's features so that the lane operations inline into it:
//! - [`quotient`]: the statement's constraints at every point of the quotient domain
//!   (8× the trace), the same AIR code (`eval`, generic over the builder) over
//!   [`Lanes16`], sixteen points at a time;
//! - [`dots`]: the opening's large products, each LDE row with the powers of the
//!   batching challenge, and the columns of the low rows with the barycentric weights;
//! - [`dft`]: the transforms of the low-degree extensions the PCS commits;
//! - [`leaves`]: the trace extension's Merkle leaves, BLAKE3 of sixteen rows at a time;
//! - [`pow`]: the proof-of-work search, BLAKE3 on sixteen candidates at a time;
//! - the trace's block fill ([`fill_block`]): the statement's own code, compiled in
//!   each path's kernel so that the permutations' dot products vectorize.
//!
//! On a CPU with neither path, Plonky3's own code runs ([`ProverPath::Plonky3`]). The
//! values are exact whichever path computes them, so the proofs are the same bytes:
//! tests compare each path with Plonky3's, and whole proofs with Plonky3's prover's.

#[cfg(target_arch = "x86_64")]
mod avx2;
#[cfg(target_arch = "x86_64")]
mod avx512;
pub(crate) mod blake3_lanes;
pub mod dft;
pub(crate) mod dots;
mod lanes16;
pub(crate) mod leaves;
pub(crate) mod pow;
pub(crate) mod quotient;

#[cfg(test)]
pub(crate) use lanes16::monty_words;
pub(crate) use lanes16::Lanes16;
#[cfg(test)]
pub(crate) use lanes16::{load_columns, store_columns};

use super::statement::{AggregateAir, FillBlock};

/// Which code does the prover's field arithmetic.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ProverPath {
    /// Plonky3's own, over `KoalaBear::Packing` (scalar unless the build targets the
    /// CPU).
    Plonky3,
    /// Sixteen points per `U32x16` (AVX-512F).
    Avx512,
    /// Sixteen points per two `__m256i` (AVX2).
    Avx2,
}

impl ProverPath {
    /// The fastest path this CPU runs.
    pub fn best() -> Self {
        Self::supported()[0]
    }

    /// The paths this CPU runs, fastest first; Plonky3's always.
    pub fn supported() -> Vec<Self> {
        let mut paths = Vec::new();
        #[cfg(target_arch = "x86_64")]
        {
            if avx512::supported() {
                paths.push(Self::Avx512);
            }
            if avx2::supported() {
                paths.push(Self::Avx2);
            }
        }
        paths.push(Self::Plonky3);
        paths
    }

    /// Its name in reports.
    pub fn name(self) -> &'static str {
        match self {
            Self::Plonky3 => "plonky3",
            Self::Avx512 => "avx512",
            Self::Avx2 => "avx2",
        }
    }
}

/// The trace's block fill on `path`: the same code, compiled with the path's features
/// (its dot products then vectorize as in a build for the CPU).
pub(crate) fn fill_block(path: ProverPath) -> FillBlock {
    match path {
        #[cfg(target_arch = "x86_64")]
        ProverPath::Avx512 => avx512::fill_block,
        #[cfg(target_arch = "x86_64")]
        ProverPath::Avx2 => avx2::fill_block,
        _ => AggregateAir::fill_block,
    }
}

/// The kernels of one ISA path, expanded in its `isa_path!` module over its sixteen-lane
/// type: each generic body compiled with the path's features (its `kernels!`), behind a
/// safe function that asserts CPU support first.
macro_rules! prover_kernels {
    ($lanes:ty) => {
        use $crate::lanes::{dft, dots, leaves, pow, quotient};
        use $crate::statement::{AggregateAir, Claim, Witness};
        use $crate::field::Challenge;
        use p3_koala_bear::KoalaBear;
        use p3_matrix::Matrix;

        kernels! {
            fn quotient_kernel<M: Matrix<KoalaBear>>(
                job: &quotient::QuotientJob<'_, M>,
                start: usize,
                out: &mut [Challenge],
            ) {
                quotient::evaluate_lanes::<$lanes, M>(job, start, out)
            }

            fn row_dots_kernel(rows: &[u32], width: usize, powers: &[u32], out: &mut [Challenge]) {
                dots::row_dots_lanes::<$lanes>(rows, width, powers, out)
            }

            fn column_dots_kernel(rows: &[u32], width: usize, weights: &[[u32; 4]], sums: &mut [u32]) {
                dots::column_dots_lanes::<$lanes, 4>(rows, width, weights, sums)
            }

            fn points_column_dots_kernel(rows: &[u32], width: usize, weights: &[[u32; dots::POINTS]], sums: &mut [u32]) {
                dots::column_dots_lanes::<$lanes, { dots::POINTS }>(rows, width, weights, sums)
            }

            fn fill_block_kernel(
                air: &AggregateAir,
                claim: &Claim,
                witness: &Witness,
                empty: &[KoalaBear],
                block: &mut [KoalaBear],
            ) {
                air.fill_block(claim, witness, empty, block)
            }

            fn least_witness_kernel(job: &pow::PowJob, start: u32, end: u32) -> Option<u32> {
                pow::least_witness_lanes(job, start, end)
            }

            fn coset_dft_kernel(coefficients: &[u32], width: usize, powers: &[u32], twiddles: &[u32], out: &mut [u32]) {
                dft::coset_dft_lanes::<$lanes>(coefficients, width, powers, twiddles, out)
            }

            fn row_digests_kernel(rows: &[u32], width: usize, steps: &[leaves::Step], out: &mut [leaves::Digest]) {
                leaves::row_digests_lanes::<$lanes>(rows, width, steps, out)
            }

            fn first_stage_kernel(values: &mut [u32], width: usize, twiddles: &[u32]) {
                dft::first_stage_lanes::<$lanes>(values, width, twiddles)
            }

            fn finish_block_kernel(block: &mut [u32], width: usize, height: usize, twiddles: &[u32]) {
                dft::finish_block_lanes::<$lanes>(block, width, height, twiddles)
            }
        }

        /// [`leaves::row_digests_lanes`]: up to sixteen rows' digests.
        pub(super) fn row_digests(rows: &[u32], width: usize, steps: &[leaves::Step], out: &mut [leaves::Digest]) {
            assert_supported();
            // SAFETY: the CPU has the features, asserted just above.
            unsafe { row_digests_kernel(rows, width, steps, out) }
        }

        /// [`dft::first_stage_lanes`]: a transform's first stage, in place.
        pub(super) fn first_stage(values: &mut [u32], width: usize, twiddles: &[u32]) {
            assert_supported();
            // SAFETY: the CPU has the features, asserted just above.
            unsafe { first_stage_kernel(values, width, twiddles) }
        }

        /// [`dft::finish_block_lanes`]: the later stages on one block.
        pub(super) fn finish_block(block: &mut [u32], width: usize, height: usize, twiddles: &[u32]) {
            assert_supported();
            // SAFETY: the CPU has the features, asserted just above.
            unsafe { finish_block_kernel(block, width, height, twiddles) }
        }

        /// [`dft::coset_dft_lanes`]: one coset's transform.
        pub(super) fn coset_dft(coefficients: &[u32], width: usize, powers: &[u32], twiddles: &[u32], out: &mut [u32]) {
            assert_supported();
            // SAFETY: the CPU has the features, asserted just above.
            unsafe { coset_dft_kernel(coefficients, width, powers, twiddles, out) }
        }

        /// [`AggregateAir::fill_block`] compiled for this path's features.
        pub(super) fn fill_block(
            air: &AggregateAir,
            claim: &Claim,
            witness: &Witness,
            empty: &[KoalaBear],
            block: &mut [KoalaBear],
        ) {
            assert_supported();
            // SAFETY: the CPU has the features, asserted just above.
            unsafe { fill_block_kernel(air, claim, witness, empty, block) }
        }

        /// [`pow::least_witness_lanes`]: the least proof-of-work witness in `start..end`.
        pub(super) fn least_witness(job: &pow::PowJob, start: u32, end: u32) -> Option<u32> {
            assert_supported();
            // SAFETY: the CPU has the features, asserted just above.
            unsafe { least_witness_kernel(job, start, end) }
        }

        /// The quotient at `out.len()` points from `start`.
        pub(super) fn quotient<M: Matrix<KoalaBear>>(
            job: &quotient::QuotientJob<'_, M>,
            start: usize,
            out: &mut [Challenge],
        ) {
            assert_supported();
            // SAFETY: the CPU has the features, asserted just above.
            unsafe { quotient_kernel(job, start, out) }
        }

        /// [`dots::row_dots`] of whole rows.
        pub(super) fn row_dots(rows: &[u32], width: usize, powers: &[u32], out: &mut [Challenge]) {
            assert_supported();
            // SAFETY: the CPU has the features, asserted just above.
            unsafe { row_dots_kernel(rows, width, powers, out) }
        }

        /// [`dots::column_dots`] of some rows, added into `sums`.
        pub(super) fn column_dots(rows: &[u32], width: usize, weights: &[[u32; 4]], sums: &mut [u32]) {
            assert_supported();
            // SAFETY: the CPU has the features, asserted just above.
            unsafe { column_dots_kernel(rows, width, weights, sums) }
        }

        /// [`dots::points_column_dots`] of some rows, added into `sums`.
        pub(super) fn points_column_dots(rows: &[u32], width: usize, weights: &[[u32; dots::POINTS]], sums: &mut [u32]) {
            assert_supported();
            // SAFETY: the CPU has the features, asserted just above.
            unsafe { points_column_dots_kernel(rows, width, weights, sums) }
        }
    };
}
use prover_kernels;
