//! The prover's kernels on the AVX-512F path: sixteen elements per `U32x16`.

linesig_simd::isa_path!("avx512f");
super::prover_kernels!(linesig_simd::u32x16::U32x16);
