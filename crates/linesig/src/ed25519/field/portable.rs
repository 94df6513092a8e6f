//! One field element in plain 64-bit integers (`LANES` = 1): the portable field, which
//! runs the generic lane code on any CPU. The reference backend verifies hot keys on it
//! (their fixed-base tables are this format), and it keeps the generic code tested on
//! targets without vector backends.
//!
//! Radix 2^51, five u64 limbs, u128 products (the representation of curve25519-dalek's
//! `FieldElement51`, ref10's 64-bit variant).
//!
//! Limb bounds: every output of every method is *carried*, each limb < 2^51 + 2^17 < 2^52.
//! - `carry` (one sequential pass, limb 4's carry re-entering limb 0 times 19 as 2^255 ≡
//!   19) maps limbs < 2^63 to limbs < 2^51 except limb 0 < 2^51 + 19·2^12.
//! - `sub` adds 16p (limbs ≥ 2^55 − 304) before subtracting a carried operand, so no limb
//!   goes negative.
//! - `mul`: with operands < 2^52 a product is < 2^104; a column sums five, one factor
//!   times 19 (< 2^57): c_k < 5·2^109 < 2^112, far inside u128.

use super::{LaneField, MAX_LANES};

const LIMB_BITS: [u32; 5] = [51; 5];
const LIMB_OFFSET: [usize; 5] = [0, 51, 102, 153, 204];
const MASK51: u64 = (1 << 51) - 1;
/// 16p in radix 2^51.
const SIXTEEN_P: [u64; 5] = [
    16 * (MASK51 - 18),
    16 * MASK51,
    16 * MASK51,
    16 * MASK51,
    16 * MASK51,
];

#[derive(Clone, Copy)]
pub(crate) struct Fe1([u64; 5]);

/// Limbs < 2^63 to carried limbs (module note).
#[inline(always)]
fn carry(mut l: [u64; 5]) -> Fe1 {
    for i in 0..4 {
        l[i + 1] += l[i] >> 51;
        l[i] &= MASK51;
    }
    let top = l[4] >> 51;
    l[4] &= MASK51;
    l[0] += top * 19;
    Fe1(l)
}

/// Product columns < 2^112 to carried limbs.
#[inline(always)]
fn carry_wide(mut c: [u128; 5]) -> Fe1 {
    for i in 0..4 {
        c[i + 1] += c[i] >> 51;
        c[i] &= MASK51 as u128;
    }
    let top = c[4] >> 51; // < 2^61
    c[4] &= MASK51 as u128;
    let c0 = c[0] + top * 19; // < 2^66
    let l0 = (c0 as u64) & MASK51;
    let c1 = c[1] as u64 + (c0 >> 51) as u64; // < 2^51 + 2^15
    Fe1([l0, c1, c[2] as u64, c[3] as u64, c[4] as u64])
}

#[inline(always)]
fn m(a: u64, b: u64) -> u128 {
    a as u128 * b as u128
}

impl LaneField for Fe1 {
    const LANES: usize = 1;
    type Limbs = [u64; 5];

    #[inline(always)]
    fn zero() -> Self {
        Fe1([0; 5])
    }
    #[inline(always)]
    fn one() -> Self {
        Fe1([1, 0, 0, 0, 0])
    }
    fn splat_bytes(bytes: &[u8; 32]) -> Self {
        Self::from_bytes(&[*bytes])
    }
    fn from_bytes(lanes: &[[u8; 32]]) -> Self {
        Fe1(core::array::from_fn(|i| {
            super::bits(&lanes[0], LIMB_OFFSET[i], LIMB_BITS[i])
        }))
    }
    fn to_bytes(&self, out: &mut [[u8; 32]]) {
        out[0] = super::canonical_bytes(self.0.into_iter().zip(LIMB_OFFSET));
    }
    #[inline(always)]
    fn add(&self, rhs: &Self) -> Self {
        carry(core::array::from_fn(|i| self.0[i] + rhs.0[i]))
    }
    #[inline(always)]
    fn sub(&self, rhs: &Self) -> Self {
        carry(core::array::from_fn(|i| {
            self.0[i] + SIXTEEN_P[i] - rhs.0[i]
        }))
    }
    #[inline(always)]
    fn neg(&self) -> Self {
        Self::zero().sub(self)
    }
    #[inline(always)]
    fn mul(&self, rhs: &Self) -> Self {
        let [a0, a1, a2, a3, a4] = self.0;
        let [b0, b1, b2, b3, b4] = rhs.0;
        let (b1_19, b2_19, b3_19, b4_19) = (b1 * 19, b2 * 19, b3 * 19, b4 * 19);
        carry_wide([
            m(a0, b0) + m(a1, b4_19) + m(a2, b3_19) + m(a3, b2_19) + m(a4, b1_19),
            m(a0, b1) + m(a1, b0) + m(a2, b4_19) + m(a3, b3_19) + m(a4, b2_19),
            m(a0, b2) + m(a1, b1) + m(a2, b0) + m(a3, b4_19) + m(a4, b3_19),
            m(a0, b3) + m(a1, b2) + m(a2, b1) + m(a3, b0) + m(a4, b4_19),
            m(a0, b4) + m(a1, b3) + m(a2, b2) + m(a3, b1) + m(a4, b0),
        ])
    }
    #[inline(always)]
    fn square(&self) -> Self {
        let [a0, a1, a2, a3, a4] = self.0;
        let (d0, d1, d2, d4) = (2 * a0, 2 * a1, 2 * a2, 2 * a4);
        let (a3_19, a4_19) = (a3 * 19, a4 * 19);
        carry_wide([
            m(a0, a0) + m(d1, a4_19) + m(d2, a3_19),
            m(d0, a1) + m(d2, a4_19) + m(a3, a3_19),
            m(d0, a2) + m(a1, a1) + m(d4, a3_19),
            m(d0, a3) + m(d1, a2) + m(a4, a4_19),
            m(d0, a4) + m(d1, a3) + m(a2, a2),
        ])
    }
    #[inline(always)]
    fn select(mask: u8, a: &Self, b: &Self) -> Self {
        if mask & 1 == 1 {
            *a
        } else {
            *b
        }
    }
    fn to_lane_limbs(&self) -> [[u64; 5]; MAX_LANES] {
        core::array::from_fn(|i| if i == 0 { self.0 } else { [0; 5] })
    }
    #[inline(always)]
    fn from_lane_limbs(rows: &[&[u64; 5]]) -> Self {
        Fe1(*rows[0])
    }
}

#[cfg(test)]
mod tests {
    use super::super::tests::{
        arithmetic_matches_big_integers, masks_match_canonical_bytes, masks_read_canonical_values,
    };
    use super::*;

    #[test]
    fn arithmetic_matches_big_integers_1() {
        arithmetic_matches_big_integers::<Fe1>(1);
    }

    #[test]
    fn masks_read_canonical_values_1() {
        masks_read_canonical_values::<Fe1>();
        masks_match_canonical_bytes::<Fe1>();
        super::super::tests::rows_round_trip::<Fe1>();
        super::super::tests::packed_rows_read_canonical_values::<Fe1>(11);
    }

    /// Operands with every limb at the carried bound, where a column would overflow
    /// first.
    #[test]
    fn products_at_the_limb_bound_match_big_integers() {
        use super::super::tests::check;
        use num_bigint::BigUint;
        let top = (1u64 << 51) + (1 << 17) - 1;
        let value = |l: &[u64; 5]| {
            l.iter()
                .zip(LIMB_OFFSET)
                .fold(BigUint::from(0u8), |acc, (&x, o)| {
                    acc + (BigUint::from(x) << o)
                })
        };
        for n in 0..243usize {
            let limbs: [u64; 5] =
                core::array::from_fn(|i| [top, 0, MASK51][(n / 3usize.pow(i as u32)) % 3]);
            let a = Fe1(limbs);
            check("mul at bound", a.mul(&a), |_| value(&limbs) * value(&limbs));
            check("square at bound", a.square(), |_| {
                value(&limbs) * value(&limbs)
            });
            check("sub at bound", Fe1::zero().sub(&a), |_| {
                super::super::tests::p() * 16u8 - value(&limbs)
            });
        }
    }
}
