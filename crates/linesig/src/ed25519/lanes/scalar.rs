//! Scalars as signed fixed-width digits: every lane runs the same window schedule (no
//! sparse NAF, whose data-dependent gaps would leave lanes idle).

/// Digits d_0..d_{N−1} in radix 2^W (W ≤ 8, so a digit spans at most two bytes; N·W ≥
/// 255) with x = Σ d_i·2^(W·i), d_i ∈ [−2^(W−1), 2^(W−1)) for i < N − 1 and the top
/// digit in [−2^(W−1), 2^(W−1)]; needs x < 2^253 when N·W = 255 (true of every scalar
/// below L), else x < 2^255.
pub(crate) fn signed_digits<const W: u32, const N: usize>(x: &[u8; 32]) -> [i16; N] {
    debug_assert!(W <= 8 && W as usize * N >= 255);
    let mask = (1u16 << W) - 1;
    let mut d = [0i16; N];
    for (i, digit) in d.iter_mut().enumerate() {
        let bit = i * W as usize;
        let pair = u16::from(x[bit / 8]) | x.get(bit / 8 + 1).map_or(0, |&b| u16::from(b) << 8);
        *digit = ((pair >> (bit % 8)) & mask) as i16;
    }
    let half = 1i16 << (W - 1);
    for i in 0..N - 1 {
        let carry = (d[i] + half) >> W;
        d[i] -= carry << W;
        d[i + 1] += carry;
    }
    d
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
