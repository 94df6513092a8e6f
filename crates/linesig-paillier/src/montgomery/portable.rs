//! The kernel's lanes in plain Rust: eight `u64`, and `vpmadd52luq` / `vpmadd52huq`
//! modelled bit for bit (Intel SDM, VPMADD52LUQ/VPMADD52HUQ: the 104-bit product of the
//! operands' low 52 bits; its low or high 52 bits, zero-extended, added to the 64-bit
//! accumulator modulo 2^64). Every test of the shared arithmetic runs on it, on any CPU.

use super::{Lanes52, LANES, LIMB_BITS, LIMB_MASK};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Portable([u64; LANES]);

impl Portable {
    #[inline(always)]
    fn zip(self, rhs: Self, f: impl Fn(u64, u64) -> u64) -> Self {
        Portable(core::array::from_fn(|i| f(self.0[i], rhs.0[i])))
    }

    /// The 104-bit product of the low 52 bits of a and b.
    #[inline(always)]
    fn product(a: u64, b: u64) -> u128 {
        u128::from(a & LIMB_MASK) * u128::from(b & LIMB_MASK)
    }
}

impl Lanes52 for Portable {
    #[inline(always)]
    fn zero() -> Self {
        Portable([0; LANES])
    }

    #[inline(always)]
    fn splat(x: u64) -> Self {
        Portable([x; LANES])
    }

    #[inline(always)]
    fn from_array(values: [u64; LANES]) -> Self {
        Portable(values)
    }

    #[inline(always)]
    fn to_array(self) -> [u64; LANES] {
        self.0
    }

    #[inline(always)]
    fn add(self, rhs: Self) -> Self {
        self.zip(rhs, u64::wrapping_add)
    }

    #[inline(always)]
    fn sub(self, rhs: Self) -> Self {
        self.zip(rhs, u64::wrapping_sub)
    }

    #[inline(always)]
    fn and(self, rhs: Self) -> Self {
        self.zip(rhs, |a, b| a & b)
    }

    #[inline(always)]
    fn or(self, rhs: Self) -> Self {
        self.zip(rhs, |a, b| a | b)
    }

    #[inline(always)]
    fn shr52(self) -> Self {
        Portable(self.0.map(|a| a >> LIMB_BITS))
    }

    #[inline(always)]
    fn madd52lo(self, a: Self, b: Self) -> Self {
        Portable(core::array::from_fn(|i| {
            let low = Self::product(a.0[i], b.0[i]) as u64 & LIMB_MASK;
            self.0[i].wrapping_add(low)
        }))
    }

    #[inline(always)]
    fn madd52hi(self, a: Self, b: Self) -> Self {
        Portable(core::array::from_fn(|i| {
            let high = (Self::product(a.0[i], b.0[i]) >> LIMB_BITS) as u64;
            self.0[i].wrapping_add(high)
        }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The model against the instruction's definition on the edges of its inputs: bits
    /// above 52 ignored, the full 104-bit product split, the accumulator wrapping.
    #[test]
    fn models_the_ifma_products() {
        let max = LIMB_MASK;
        let cases = [
            (0u64, 0u64, 0u64),
            (max, max, 0),
            (max, max, u64::MAX),
            (u64::MAX, u64::MAX, 7), // bits 52..64 of the operands are ignored
            (1 << 51, 1 << 51, 1 << 63),
            (0x000f_ffff_ffff_fffe, 3, 0),
            (0xfff0_0000_0000_0001, 0x0000_0000_0000_0005, 1),
        ];
        for (a, b, acc) in cases {
            let product = u128::from(a & max) * u128::from(b & max);
            let (lo, hi) = (product as u64 & max, (product >> 52) as u64);
            assert!(hi <= max);
            let [got_lo] = [Portable::splat(acc)
                .madd52lo(Portable::splat(a), Portable::splat(b))
                .0[0]];
            let [got_hi] = [Portable::splat(acc)
                .madd52hi(Portable::splat(a), Portable::splat(b))
                .0[0]];
            assert_eq!(got_lo, acc.wrapping_add(lo), "lo of {a:#x}·{b:#x}");
            assert_eq!(got_hi, acc.wrapping_add(hi), "hi of {a:#x}·{b:#x}");
        }
        // (2^52 − 1)² = 2^104 − 2^53 + 1: high half 2^52 − 2, low half 1.
        let m = Portable::splat(max);
        assert_eq!(Portable::zero().madd52hi(m, m).0[0], max - 1);
        assert_eq!(Portable::zero().madd52lo(m, m).0[0], 1);
    }
}
