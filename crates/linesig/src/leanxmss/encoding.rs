//! The target-sum encoding (cryptography-specs `Xmss/Encoding.lean`): a 16-byte digest
//! of message and randomizer read as 42 three-bit digits, admissible only when the
//! digits sum to 195 and both spare bits are zero. A fixed sum makes every verification
//! walk the same 99 chain steps.

use super::tweak::Digest;
use super::{CHAINS, CHAIN_LENGTH, TARGET_SUM};

/// Digits per 64-bit half of the digest: 21 × 3 bits fill bits 0–62, bit 63 is spare.
const DIGITS_PER_HALF: usize = CHAINS / 2;

/// Bits 0, 3, 6, … of a 63-bit half: the lowest bit of each digit.
const DIGIT_LOW_BITS: u64 = 0x1249_2492_4924_9249 & (u64::MAX >> 1);

/// The digest's two 64-bit halves, little-endian.
#[inline(always)]
fn halves(digest: &Digest) -> [u64; 2] {
    [
        digest[0] as u64 | (digest[1] as u64) << 32,
        digest[2] as u64 | (digest[3] as u64) << 32,
    ]
}

/// Whether a digest is admissible (`wotsEncode` gives `some`): both spare bits zero
/// (without that rule two digests would share one codeword, `Internal.padded`) and
/// the digits summing to 195. The sum of a half's 3-bit digits is the count of its
/// digits' low bits, plus twice their middle bits, plus four times their high bits.
#[inline(always)]
pub(crate) fn admissible(digest: &Digest) -> bool {
    let [low, high] = halves(digest);
    if (low | high) >> 63 != 0 {
        return false;
    }
    let digit_sum = |half: u64| {
        (half & DIGIT_LOW_BITS).count_ones()
            + 2 * (half & DIGIT_LOW_BITS << 1).count_ones()
            + 4 * (half & DIGIT_LOW_BITS << 2).count_ones()
    };
    (digit_sum(low) + digit_sum(high)) as usize == TARGET_SUM
}

/// The 42 digits of a digest when it is admissible (`wotsEncode`'s `some`), else
/// `None`. Digits 0–20 are the 3-bit groups of the little-endian u64 of bytes 0–7,
/// lowest first; 21–41 those of bytes 8–15.
#[inline(always)]
pub(crate) fn digits(digest: &Digest) -> Option<[u8; CHAINS]> {
    if !admissible(digest) {
        return None;
    }
    let halves = halves(digest);
    Some(core::array::from_fn(|i| {
        let half = halves[i / DIGITS_PER_HALF];
        ((half >> (3 * (i % DIGITS_PER_HALF))) % CHAIN_LENGTH as u64) as u8
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The popcount sum agrees with the digits summed one by one, on digests near the
    /// target and far from it.
    #[test]
    fn admissible_is_the_digit_sum_rule() {
        let mut state = 0x9E37_79B9_7F4A_7C15u64;
        let mut admitted = 0;
        for _ in 0..200_000 {
            state = state
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            let a = state;
            state = state
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            let b = state;
            let digest: Digest = [
                a as u32,
                (a >> 32) as u32 & 0x7FFF_FFFF,
                b as u32,
                (b >> 32) as u32 & 0x7FFF_FFFF,
            ];
            let [low, high] = halves(&digest);
            let sum: u64 = (0..CHAINS)
                .map(|i| ([low, high][i / DIGITS_PER_HALF] >> (3 * (i % DIGITS_PER_HALF))) & 7)
                .sum();
            assert_eq!(
                admissible(&digest),
                sum as usize == TARGET_SUM,
                "{digest:x?}"
            );
            admitted += admissible(&digest) as usize;
        }
        assert!(admitted > 0, "the sample reaches the target sum");
        assert!(!admissible(&[0, 1 << 31, 0, 0]), "a spare bit set");
    }
}
