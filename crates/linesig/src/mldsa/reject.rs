//! RejNTTPoly's coefficient filter (FIPS 204 Algorithm 30, through CoeffFromThreeBytes,
//! Algorithm 14): three bytes to a 23-bit candidate, kept if below q. Scalar, and on AVX2
//! eight candidates per vector. A per-backend kernel the lanes expose
//! (`Lanes::reject_sample`) and ExpandA (`sample`) drives: below both.

use super::arith::Q;

/// Room for the accepted coefficients of one entry of Â: 256, plus the 8 a vector
/// sampler may write past the end before it stops.
pub(crate) const ACCEPTED_ROOM: usize = 256 + 8;

/// Accept candidates of `bytes` (CoeffFromThreeBytes, Algorithm 14: 23-bit values
/// below q) into `values[filled..]` until there are 256; returns the new count.
/// Branch-free per candidate: every value is written, the count moves past accepted
/// ones only (it lives in a register: through memory it would chain every candidate).
#[inline(always)]
pub(crate) fn reject_sample_scalar(
    values: &mut [i32; ACCEPTED_ROOM],
    mut filled: usize,
    bytes: &[u8],
) -> usize {
    for t in bytes.chunks_exact(3) {
        if filled >= 256 {
            break;
        }
        let z = t[0] as i32 | (t[1] as i32) << 8 | ((t[2] & 0x7f) as i32) << 16;
        values[filled] = z;
        filled += usize::from(z < Q);
    }
    filled
}

/// The AVX2 rejection sampler, an ISA path of its own: every SIMD backend of ML-DSA
/// samples with it (the AVX-512 lanes' path includes AVX2).
#[cfg(target_arch = "x86_64")]
pub(crate) mod avx2 {
    use super::{reject_sample_scalar, ACCEPTED_ROOM, Q};

    linesig_simd::isa_path!("avx2");

    /// [`reject_sample_scalar`] eight candidates at a time on AVX2: spread 24 bytes over
    /// eight 32-bit lanes, mask to 23 bits, compare with q, and pack the accepted lanes to
    /// the front with a permutation looked up by the comparison mask (PQClean's method).
    pub(crate) fn reject_sample(
        values: &mut [i32; ACCEPTED_ROOM],
        filled: usize,
        bytes: &[u8],
    ) -> usize {
        assert_supported();
        // SAFETY: the CPU has AVX2, asserted just above.
        unsafe { reject_sample_here(values, filled, bytes) }
    }

    kernels! {
        fn reject_sample_here(
            values: &mut [i32; ACCEPTED_ROOM],
            mut filled: usize,
            bytes: &[u8],
        ) -> usize {
            use core::arch::x86_64::*;
            /// For each 8-bit mask, the indices of its set bits in order, one per byte.
            const PACK: [u64; 256] = {
                let mut table = [0u64; 256];
                let mut mask = 0;
                while mask < 256 {
                    let (mut packed, mut n, mut bit) = (0u64, 0, 0);
                    while bit < 8 {
                        if mask & (1 << bit) != 0 {
                            packed |= (bit as u64) << (8 * n);
                            n += 1;
                        }
                        bit += 1;
                    }
                    table[mask] = packed;
                    mask += 1;
                }
                table
            };
            let spread_dwords = _mm256_setr_epi32(0, 1, 2, 3, 3, 4, 5, 6);
            // In each 128-bit half (starting at byte 0 and byte 12): bytes 3k..3k+2 → lane k.
            let spread_bytes = _mm256_setr_epi8(
                0, 1, 2, -1, 3, 4, 5, -1, 6, 7, 8, -1, 9, 10, 11, -1, 0, 1, 2, -1, 3, 4, 5, -1, 6, 7, 8,
                -1, 9, 10, 11, -1,
            );
            let mask23 = _mm256_set1_epi32(0x7f_ffff);
            let q = _mm256_set1_epi32(Q);
            let mut at = 0;
            // 32 bytes are loaded for 24 used, so the vector loop stops 8 bytes early.
            while at + 32 <= bytes.len() && filled < 256 {
                // SAFETY: bytes[at..at + 32] is in bounds (loop condition); unaligned load.
                let raw = unsafe { _mm256_loadu_si256(bytes[at..].as_ptr().cast()) };
                let z = _mm256_and_si256(
                    _mm256_shuffle_epi8(
                        _mm256_permutevar8x32_epi32(raw, spread_dwords),
                        spread_bytes,
                    ),
                    mask23,
                );
                let accepted = _mm256_movemask_ps(_mm256_castsi256_ps(_mm256_cmpgt_epi32(q, z))) as usize;
                let order = _mm256_cvtepu8_epi32(_mm_cvtsi64_si128(PACK[accepted] as i64));
                // values has 8 slots past 256 and filled < 256 here, so 8 lanes fit.
                let slot = &mut values[filled..filled + 8];
                // SAFETY: `slot` is 8 writable i32; unaligned store.
                unsafe {
                    _mm256_storeu_si256(
                        slot.as_mut_ptr().cast(),
                        _mm256_permutevar8x32_epi32(z, order),
                    )
                };
                filled += accepted.count_ones() as usize;
                at += 24;
            }
            reject_sample_scalar(values, filled.min(256), &bytes[at..])
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::{Rng, SeedableRng};

    /// The AVX2 sampler takes exactly what the scalar one takes, from any starting
    /// count, on inputs where about half the candidates are rejected (so the paths that
    /// honest keys almost never reach — a sixth block, a nearly full poly — run too).
    #[cfg(target_arch = "x86_64")]
    #[test]
    fn vector_rejection_sampling_matches_the_scalar_one() {
        if !avx2::supported() {
            return;
        }
        let mut rng = rand::rngs::StdRng::seed_from_u64(30);
        for round in 0..2000 {
            let len = [168, 840, 24, 33, 0][round % 5];
            let mut bytes: Vec<u8> = (0..len).map(|_| rng.gen()).collect();
            for t in bytes.chunks_exact_mut(3) {
                if rng.gen_bool(0.5) {
                    // 23-bit value ≥ q: 0x7fe001 and up.
                    t[2] = 0x7f;
                    t[1] = 0xff;
                }
            }
            let filled = [0, 1, 200, 250, 255, 256][round % 6];
            let mut scalar = [0i32; ACCEPTED_ROOM];
            let mut vector = [0i32; ACCEPTED_ROOM];
            for i in 0..filled {
                scalar[i] = i as i32;
                vector[i] = i as i32;
            }
            let a = reject_sample_scalar(&mut scalar, filled, &bytes);
            let b = avx2::reject_sample(&mut vector, filled, &bytes);
            assert_eq!(a, b, "round {round}");
            assert_eq!(scalar[..a], vector[..b], "round {round}");
        }
    }
}
