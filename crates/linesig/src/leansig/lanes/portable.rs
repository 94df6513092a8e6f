//! `Portable<N>`: N lanes of scalar arithmetic, for any CPU. `Portable<1>` is the scalar
//! path (the `portable` backend and the signer); wider instances run the lane code of
//! the SIMD backends on CPUs without them, so tests cover it everywhere.

use super::{div_2exp_scalar, monty_mul, KoalaLanes, P};

#[derive(Clone, Copy)]
pub struct Portable<const N: usize>([u32; N]);

impl<const N: usize> KoalaLanes for Portable<N> {
    const N: usize = N;

    #[inline(always)]
    fn splat(x: u32) -> Self {
        Portable([x; N])
    }
    #[inline(always)]
    fn load(x: &[u32]) -> Self {
        Portable(core::array::from_fn(|i| x[i]))
    }
    #[inline(always)]
    fn store(self, out: &mut [u32]) {
        out[..N].copy_from_slice(&self.0);
    }
    #[inline(always)]
    fn add(self, other: Self) -> Self {
        // Both below p < 2^31: the sum fits a u32.
        Portable(core::array::from_fn(|i| {
            let s = self.0[i] + other.0[i];
            s.min(s.wrapping_sub(P))
        }))
    }
    #[inline(always)]
    fn sub(self, other: Self) -> Self {
        // a − b wraps exactly when a < b; min(d, d + p) then picks d + p.
        Portable(core::array::from_fn(|i| {
            let d = self.0[i].wrapping_sub(other.0[i]);
            d.min(d.wrapping_add(P))
        }))
    }
    #[inline(always)]
    fn div_2exp(self, k: u32) -> Self {
        Portable(core::array::from_fn(|i| div_2exp_scalar(self.0[i], k)))
    }
    #[inline(always)]
    fn mul(self, other: Self) -> Self {
        Portable(core::array::from_fn(|i| monty_mul(self.0[i], other.0[i])))
    }
}
