//! Scalars as signed fixed-width digits: every lane runs the same window schedule (no
//! sparse NAF, whose data-dependent gaps would leave lanes idle).

use super::super::field::MAX_LANES;
use crate::ed25519::field::LaneField;

/// Each lane's digits, window-major: row j holds digit j of every lane, so the loop
/// reads one window's digits as one short row.
pub(crate) type LaneDigits<const N: usize> = [[i16; MAX_LANES]; N];

/// Digit i of x's digits d_0..d_{N−1} in radix 2^W (W ≤ 15 for i16 digits, N·W ≥ 255)
/// with x = Σ d_i·2^(W·i), d_i ∈ [−2^(W−1), 2^(W−1)) for i < N − 1 and the top digit in
/// [0, 2^(W−1)]; needs x < 2^253 when N·W = 255 (true of every scalar below L), else
/// x < 2^255. `y` is x + K ([`add_halves`]).
///
/// Without a carry chain: with h = 2^(W−1) and K = Σ_(i<N−1) h·2^(W·i), the digits y_i
/// of y = x + K are in [0, 2^W), and x = y − K = Σ_(i<N−1) (y_i − h)·2^(W·i) + y_top·
/// 2^(W·(N−1)); one 256-bit addition does every carry of the recoding. The top digit is
/// x's top bits plus at most one carry, hence within the bounds above.
///
/// `y(j)` reads word j: the lane path passes word j of one lane of a word-major block,
/// so that the window's word index, the same in every lane, selects one row of words
/// and the loop over the lanes is a few vector instructions.
#[inline(always)]
fn digit<const W: u32, const N: usize>(y: impl Fn(usize) -> u64, i: usize) -> i16 {
    debug_assert!(W <= 15 && W as usize * N >= 255);
    let bit = i * W as usize;
    let (word, shift) = (bit / 64, bit % 64);
    let mut v = y(word) >> shift;
    if shift + W as usize > 64 && word + 1 < 4 {
        v |= y(word + 1) << (64 - shift);
    }
    if i < N - 1 {
        (v & ((1 << W) - 1)) as i16 - (1 << (W - 1))
    } else {
        v as i16
    }
}

/// One scalar's digits, as [`digit`] gives them (the tests' form).
#[cfg(test)]
pub(crate) fn signed_digits<const W: u32, const N: usize>(x: &[u8; 32]) -> [i16; N] {
    let y = add_halves::<W, N>(x);
    core::array::from_fn(|i| digit::<W, N>(|j| y[j], i))
}

/// K of [`digit`]: 2^(W−1) at every digit position below the top, as four
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
    signed_lane_digits::<F, W, N>(|lane| (scalar(&chunk[lane.min(chunk.len() - 1)]), false))
}

/// Lane i's digits of ±x for `scalar(i) = (x, negative)`, as [`digit`], for each
/// of the backend's lanes, one row per window; lanes past `F::LANES` stay zero.
///
/// Built a window at a time across the lanes, from y = x + K held word-major (word j of
/// every lane side by side): one row is then a shift, a mask, a subtraction and a
/// conditional negation ((d ⊕ m) − m, m = 0 or −1) of one row of words, a loop LLVM
/// turns into a few vector instructions. Recoding each lane's scalar alone and moving
/// its digits into their rows one by one took 93 ns a signature on Zen 5; gathering
/// each lane's words into an array to index it put every digit through memory, ~5 % of
/// the half-size loop's stage (docs/results.md).
#[inline(always)]
pub(super) fn signed_lane_digits<'x, F: LaneField, const W: u32, const N: usize>(
    scalar: impl Fn(usize) -> (&'x [u8; 32], bool),
) -> LaneDigits<N> {
    let mut words = [[0u64; MAX_LANES]; 4];
    let mut flip = [0i16; MAX_LANES];
    for lane in 0..F::LANES {
        let (x, negative) = scalar(lane);
        let y = add_halves::<W, N>(x);
        for (word, y) in words.iter_mut().zip(y) {
            word[lane] = y;
        }
        flip[lane] = -i16::from(negative);
    }
    let mut out = [[0; MAX_LANES]; N];
    for (i, row) in out.iter_mut().enumerate() {
        for lane in 0..F::LANES {
            let d = digit::<W, N>(|j| words[j][lane], i);
            row[lane] = (d ^ flip[lane]) - flip[lane];
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

    /// The rows across the lanes are each lane's digits, negated where asked, on a
    /// field of eight lanes and one of four (whose rows stay zero past lane 3).
    #[test]
    fn lane_rows_are_each_lanes_digits() {
        use crate::ed25519::field::portable::Fe1;
        let mut rng = rand_chacha::ChaCha20Rng::seed_from_u64(4);
        for round in 0..200 {
            let scalars: [([u8; 32], bool); MAX_LANES] = core::array::from_fn(|lane| {
                let mut x = [0u8; 32];
                rng.fill_bytes(&mut x);
                x[31] &= if round % 2 == 0 { 0x0f } else { 0x7f };
                (x, (round + lane) % 3 == 0)
            });
            fn rows<F: LaneField, const W: u32, const N: usize>(
                scalars: &[([u8; 32], bool); MAX_LANES],
            ) {
                let got = signed_lane_digits::<F, W, N>(|lane| (&scalars[lane].0, scalars[lane].1));
                for (lane, (x, negative)) in scalars.iter().enumerate() {
                    let want = signed_digits::<W, N>(x);
                    for (i, row) in got.iter().enumerate() {
                        let expected = match (lane < F::LANES, negative) {
                            (false, _) => 0,
                            (true, false) => want[i],
                            (true, true) => -want[i],
                        };
                        assert_eq!(row[lane], expected, "radix 2^{W}, lane {lane}, digit {i}");
                    }
                }
            }
            rows::<Fe1, 4, 64>(&scalars);
            rows::<Fe1, 12, 22>(&scalars);
            // Only the lane counts are read: no vector instruction runs.
            #[cfg(target_arch = "x86_64")]
            {
                use crate::ed25519::field::{avx2::Fe4, avx512::Fe8};
                rows::<Fe8, 4, 64>(&scalars);
                rows::<Fe8, 12, 22>(&scalars);
                rows::<Fe4, 4, 64>(&scalars);
                rows::<Fe4, 8, 32>(&scalars);
            }
        }
    }
}
