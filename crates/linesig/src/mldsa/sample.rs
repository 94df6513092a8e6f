//! The two samplers verification needs (FIPS 204 §7.3): ExpandA (Algorithm 32, through
//! RejNTTPoly, Algorithm 30) on our multi-lane Keccak (4 SHAKE128 streams per AVX2
//! permutation, 8 per AVX-512), and SampleInBall (Algorithm 29) on libcrux's one-lane
//! SHAKE256.

use super::arith::Q;
use super::keccak::{KeccakLanes, Shake128Lanes, SHAKE128_RATE};
use super::lanes::{Lanes, Poly};
use libcrux_sha3::portable::incremental as shake;

const SHAKE256_RATE: usize = 136;
/// Blocks squeezed before the first look at the counts: five give 280 candidates, enough
/// for 256 coefficients unless more than 24 are rejected (each with probability
/// about 2^−10).
const FIRST_BLOCKS: usize = 5;

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

/// The seed ρ ‖ s ‖ r of entry (r, s) of Â.
fn matrix_seed(rho: &[u8; 32], columns: usize, entry: usize) -> [u8; 34] {
    let mut seed = [0u8; 34];
    seed[..32].copy_from_slice(rho);
    seed[32] = (entry % columns) as u8;
    seed[33] = (entry / columns) as u8;
    seed
}

/// ExpandA(ρ) into `out[r·columns + s]`, in the lanes' NTT layout: one SHAKE128 per
/// entry, `L::Keccak::N` of them per Keccak call.
#[inline(always)]
pub(crate) fn expand_a<L: Lanes>(rho: &[u8; 32], columns: usize, out: &mut [Poly]) {
    let width = <L::Keccak as KeccakLanes>::N;
    // Per lane, the first five blocks back to back, so the vector sampler runs over all
    // of them in one pass and only its last candidates go one at a time.
    let mut first = [[0u8; FIRST_BLOCKS * SHAKE128_RATE]; 8];
    let mut blocks = [[0u8; SHAKE128_RATE]; 8];
    let mut values = [[0i32; ACCEPTED_ROOM]; 8];
    for (group, polys) in out.chunks_mut(width).enumerate() {
        let count = polys.len();
        let seeds: [[u8; 34]; 8] =
            core::array::from_fn(|i| matrix_seed(rho, columns, group * width + i.min(count - 1)));
        let inputs: [&[u8]; 8] = core::array::from_fn(|i| seeds[i].as_slice());
        let mut sponge = Shake128Lanes::<L::Keccak>::absorb_short(&inputs[..count]);
        for b in 0..FIRST_BLOCKS {
            sponge.squeeze_block(&mut blocks[..count]);
            for (f, block) in first.iter_mut().zip(&blocks[..count]) {
                f[b * SHAKE128_RATE..(b + 1) * SHAKE128_RATE].copy_from_slice(block);
            }
        }
        let mut filled = [0usize; 8];
        for ((v, f), bytes) in values.iter_mut().zip(&mut filled).zip(&first[..count]) {
            *f = L::reject_sample(v, 0, bytes);
        }
        // Rarely (more than 24 of 280 candidates rejected): one more block at a time.
        while filled[..count].iter().any(|&f| f < 256) {
            sponge.squeeze_block(&mut blocks[..count]);
            for ((v, f), block) in values.iter_mut().zip(&mut filled).zip(&blocks[..count]) {
                *f = L::reject_sample(v, *f, block);
            }
        }
        for (poly, v) in polys.iter_mut().zip(&values) {
            L::to_ntt_layout(v[..256].try_into().expect("256 values"), poly);
        }
    }
}

/// SampleInBall(c̃) (Algorithm 29): τ coefficients ±1, the rest 0, in natural order.
pub(crate) fn sample_in_ball(commitment_hash: &[u8], tau: usize) -> Poly {
    let mut state = shake::shake256_init();
    shake::shake256_absorb_final(&mut state, commitment_hash);
    let mut block = [0u8; SHAKE256_RATE];
    shake::shake256_squeeze_first_block(&mut state, &mut block);
    let signs = u64::from_le_bytes(block[..8].try_into().expect("8 bytes"));
    let mut at = 8;
    let mut c = Poly::ZERO;
    for (k, i) in (256 - tau..256).enumerate() {
        let j = loop {
            if at == SHAKE256_RATE {
                shake::shake256_squeeze_next_block(&mut state, &mut block);
                at = 0;
            }
            let j = block[at] as usize;
            at += 1;
            if j <= i {
                break j;
            }
        };
        c.0[i] = c.0[j];
        c.0[j] = 1 - 2 * ((signs >> k) & 1) as i32;
    }
    c
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
