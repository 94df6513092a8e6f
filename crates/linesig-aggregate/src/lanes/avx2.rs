//! The prover's kernels on the AVX2 path: sixteen elements per two `__m256i`
//! (`KoalaAvx2x2`, whose two halves' dependency chains overlap).

linesig_simd::isa_path!("avx2");
super::prover_kernels!(linesig::leansig::internals::lanes::KoalaAvx2x2);
