//! The two samplers verification needs (FIPS 204 §7.3): ExpandA (Algorithm 32, through
//! RejNTTPoly, Algorithm 30) on our multi-lane Keccak (4 SHAKE128 streams per AVX2
//! permutation, 8 per AVX-512), and SampleInBall (Algorithm 29) on libcrux's one-lane
//! SHAKE256.

use super::keccak::{KeccakLanes, Shake128Lanes, SHAKE128_RATE};
use super::lanes::{Lanes, Poly};
use super::reject::ACCEPTED_ROOM;
use libcrux_sha3::portable::incremental as shake;

const SHAKE256_RATE: usize = 136;
/// Blocks squeezed before the first look at the counts: five give 280 candidates, enough
/// for 256 coefficients unless more than 24 are rejected (each with probability
/// about 2^−10).
const FIRST_BLOCKS: usize = 5;

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
