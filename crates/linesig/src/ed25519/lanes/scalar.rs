//! Scalars as signed radix-16 digits: every lane runs the same window schedule (no
//! sparse NAF, whose data-dependent gaps would leave lanes idle).

/// Digits d_0..d_63 with x = Σ d_i·16^i, d_i ∈ [−8, 8) for i < 63 and d_63 ∈ [−8, 8];
/// needs x < 2^255 (true of every scalar below L here).
pub(crate) fn radix16(x: &[u8; 32]) -> [i8; 64] {
    let mut d = [0i8; 64];
    for (i, byte) in x.iter().enumerate() {
        d[2 * i] = (byte & 15) as i8;
        d[2 * i + 1] = (byte >> 4) as i8;
    }
    for i in 0..63 {
        let carry = (d[i] + 8) >> 4;
        d[i] -= carry << 4;
        d[i + 1] += carry;
    }
    d
}

#[cfg(test)]
mod tests {
    use super::*;
    use num_bigint::BigInt;
    use rand::{RngCore, SeedableRng};

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
            let d = radix16(&x);
            let mut sum = BigInt::from(0);
            for (i, &di) in d.iter().enumerate() {
                assert!(
                    (-8..8).contains(&di) || (i == 63 && di == 8),
                    "digit {i} = {di}"
                );
                sum += BigInt::from(di) << (4 * i);
            }
            assert_eq!(sum, BigInt::from_bytes_le(num_bigint::Sign::Plus, &x));
        }
    }
}
