//! The two samplers verification needs (FIPS 204 §7.3): ExpandA (Algorithm 32, through
//! RejNTTPoly, Algorithm 30) on our multi-lane Keccak (4 SHAKE128 streams per AVX2
//! permutation, 8 per AVX-512), and SampleInBall (Algorithm 29) on libcrux's one-lane
//! SHAKE256.

use super::arith::Q;
use super::lanes::{ntt_position, Lanes, Poly};
use super::keccak::{KeccakLanes, Shake128Lanes, SHAKE128_RATE};
use libcrux_sha3::portable::incremental as shake;

const SHAKE256_RATE: usize = 136;
/// Blocks squeezed before the first look at the counts: five give 280 candidates, enough
/// for 256 coefficients unless more than 24 are rejected (each with probability
/// about 2^−10).
const FIRST_BLOCKS: usize = 5;

/// Coefficients accepted so far for one entry of Â, in natural order, with room for
/// one speculative write past the end.
struct Accepted {
    values: [i32; 257],
    filled: usize,
}

impl Accepted {
    const EMPTY: Accepted = Accepted { values: [0; 257], filled: 0 };

    /// Accept candidates of `bytes` (CoeffFromThreeBytes, Algorithm 14: 23-bit values
    /// below q) until there are 256. Branch-free per candidate: every value is
    /// written, and the count moves only past accepted ones.
    #[inline(always)]
    fn take(&mut self, bytes: &[u8]) {
        // The count lives in a register for the loop: through `self` it would be a
        // store-to-load chain on every candidate.
        let mut filled = self.filled;
        for t in bytes.chunks_exact(3) {
            if filled == 256 {
                break;
            }
            let z = t[0] as i32 | (t[1] as i32) << 8 | ((t[2] & 0x7f) as i32) << 16;
            self.values[filled] = z;
            filled += usize::from(z < Q);
        }
        self.filled = filled;
    }

    /// The 256 coefficients into `poly` at their NTT-domain positions.
    #[inline(always)]
    fn place<L: Lanes>(&self, poly: &mut Poly) {
        for (n, &value) in self.values[..256].iter().enumerate() {
            poly.0[ntt_position::<L>(n)] = value;
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
    let mut blocks = [[0u8; SHAKE128_RATE]; 8];
    let mut accepted = [Accepted::EMPTY, Accepted::EMPTY, Accepted::EMPTY, Accepted::EMPTY, Accepted::EMPTY, Accepted::EMPTY, Accepted::EMPTY, Accepted::EMPTY];
    for (group, polys) in out.chunks_mut(width).enumerate() {
        let count = polys.len();
        let seeds: [[u8; 34]; 8] = core::array::from_fn(|i| matrix_seed(rho, columns, group * width + i.min(count - 1)));
        let inputs: [&[u8]; 8] = core::array::from_fn(|i| seeds[i].as_slice());
        let mut sponge = Shake128Lanes::<L::Keccak>::absorb_short(&inputs[..count]);
        for a in &mut accepted[..count] {
            a.filled = 0;
        }
        let mut squeezed = 0;
        while squeezed < FIRST_BLOCKS || accepted[..count].iter().any(|a| a.filled < 256) {
            sponge.squeeze_block(&mut blocks[..count]);
            squeezed += 1;
            for (a, block) in accepted[..count].iter_mut().zip(&blocks) {
                a.take(block);
            }
        }
        for (poly, a) in polys.iter_mut().zip(&accepted) {
            a.place::<L>(poly);
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
