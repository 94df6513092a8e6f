//! The half-size scalars' walks on AVX2 with FMA: the portable step, compiled for four
//! f64 per vector (LLVM vectorises the lockstep arrays).

use super::{halve_all_in_lanes, lehmer_matrices, HalfScalars};

linesig_simd::isa_path!("avx2,fma");

kernels! {
    /// [`halve_all_in_lanes`] with the lockstep steps on AVX2 vectors of four f64.
    pub(super) fn halve_all(scalars: &[([u8; 32], [u8; 32])], out: &mut Vec<HalfScalars>) {
        halve_all_in_lanes(scalars, out, lehmer_matrices)
    }
}
