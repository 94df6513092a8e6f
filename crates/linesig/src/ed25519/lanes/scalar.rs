//! Scalars as signed fixed-width digits: every lane runs the same window schedule (no
//! sparse NAF, whose data-dependent gaps would leave lanes idle).

use super::super::field::MAX_LANES;
use super::scalar;
use crate::ed25519::field::LaneField;

/// Each lane's digits, window-major: row j holds digit j of every lane, so the loop
/// reads one window's digits as one short row.
pub(crate) type LaneDigits<const N: usize> = [[i16; MAX_LANES]; N];

/// Digits d_0..d_{N−1} in radix 2^W (W ≤ 15 for i16 digits, N·W ≥ 255) with x = Σ d_i·2^(W·i),
/// d_i ∈ [−2^(W−1), 2^(W−1)) for i < N − 1 and the top digit in [0, 2^(W−1)]; needs
/// x < 2^253 when N·W = 255 (true of every scalar below L), else x < 2^255.
///
/// Without a carry chain: with h = 2^(W−1) and K = Σ_(i<N−1) h·2^(W·i), the digits y_i
/// of y = x + K are in [0, 2^W), and x = y − K = Σ_(i<N−1) (y_i − h)·2^(W·i) + y_top·
/// 2^(W·(N−1)); one 256-bit addition does every carry of the recoding. The top digit is
/// x's top bits plus at most one carry, hence within the bounds above.
pub(crate) fn signed_digits<const W: u32, const N: usize>(x: &[u8; 32]) -> [i16; N] {
    debug_assert!(W <= 15 && W as usize * N >= 255);
    let half = 1i16 << (W - 1);
    let y = add_halves::<W, N>(x);
    let mask = (1u64 << W) - 1;
    core::array::from_fn(|i| {
        let bit = i * W as usize;
        let (word, shift) = (bit / 64, bit % 64);
        let mut v = y[word] >> shift;
        if shift + W as usize > 64 && word + 1 < 4 {
            v |= y[word + 1] << (64 - shift);
        }
        if i < N - 1 {
            (v & mask) as i16 - half
        } else {
            v as i16
        }
    })
}

/// K of `signed_digits`: 2^(W−1) at every digit position below the top, as four
/// little-endian words (a constant of each W and N).
const fn halves<const W: u32, const N: usize>() -> [u64; 4] {
    let mut k = [0u64; 4];
    let mut i = 0;
    while i < N - 1 {
        let bit = i * W as usize + W as usize - 1;
        k[bit / 64] |= 1 << (bit % 64);
        i += 1;
    }
    k
}

/// x + K in four little-endian words: K < 2^(W·(N−1)) ≤ 2^252 and x < 2^255, so the
/// sum stays below 2^256.
fn add_halves<const W: u32, const N: usize>(x: &[u8; 32]) -> [u64; 4] {
    let k = const { halves::<W, N>() };
    let mut y = [0u64; 4];
    let mut carry = 0u64;
    for ((y, k), x) in y.iter_mut().zip(k).zip(x.chunks_exact(8)) {
        let x = u64::from_le_bytes(core::array::from_fn(|b| x[b]));
        let (sum, c1) = x.overflowing_add(k);
        let (sum, c2) = sum.overflowing_add(carry);
        *y = sum;
        carry = u64::from(c1 | c2);
    }
    y
}

/// Signed radix-2^W digits of `scalar(job)` for each of the backend's lanes (a ragged
/// chunk repeats its last job), window-major.
#[inline(always)]
pub(super) fn lane_digits<F: LaneField, const W: u32, const N: usize, J>(
    chunk: &[J],
    scalar: impl Fn(&J) -> &[u8; 32],
) -> LaneDigits<N> {
    window_major::<F, N>(|lane| {
        scalar::signed_digits::<W, N>(scalar(&chunk[lane.min(chunk.len() - 1)]))
    })
}

/// Lane i's digits `digits(i)` for each of the backend's lanes, one row per window.
/// Lanes past `F::LANES` stay zero rather than being recoded for nothing.
#[inline(always)]
pub(super) fn window_major<F: LaneField, const N: usize>(
    digits: impl Fn(usize) -> [i16; N],
) -> LaneDigits<N> {
    let mut out = [[0; MAX_LANES]; N];
    for lane in 0..F::LANES {
        for (row, digit) in out.iter_mut().zip(digits(lane)) {
            row[lane] = digit;
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use num_bigint::BigInt;
    use rand::{RngCore, SeedableRng};

    fn check<const W: u32, const N: usize>(x: &[u8; 32], d: [i16; N]) {
        let half = 1i16 << (W - 1);
        let mut sum = BigInt::from(0);
        for (i, &di) in d.iter().enumerate() {
            assert!(
                (-half..half).contains(&di) || (i == N - 1 && di == half),
                "radix 2^{W} digit {i} = {di}"
            );
            sum += BigInt::from(di) << (W as usize * i);
        }
        assert_eq!(sum, BigInt::from_bytes_le(num_bigint::Sign::Plus, x));
    }

    #[test]
    fn digits_recompose_and_stay_in_range() {
        let mut rng = rand_chacha::ChaCha20Rng::seed_from_u64(3);
        for round in 0..2000 {
            let mut x = [0u8; 32];
            rng.fill_bytes(&mut x);
            x[31] &= if round % 2 == 0 { 0x1f } else { 0x7f };
            if round == 0 {
                x = [0xff; 32];
                x[31] = 0x7f;
            }
            if round == 1 {
                x = [0x80; 32];
                x[31] = 0x7f;
            }
            check::<4, 64>(&x, signed_digits::<4, 64>(&x));
            check::<8, 32>(&x, signed_digits::<8, 32>(&x));
            check::<12, 22>(&x, signed_digits::<12, 22>(&x));
            // Below 2^253, as the fixed-base tables' radix-32 digits need (with the
            // largest such value among the rounds).
            let mut below = x;
            below[31] &= 0x1f;
            if round == 0 {
                below = [0xff; 32];
                below[31] = 0x1f;
            }
            check::<5, 51>(&below, signed_digits::<5, 51>(&below));
        }
    }
}
