//! Portable lanes: `W` coefficients in a plain array, each operation the scalar one of
//! `arith` applied lane by lane. `Portable<1>` is the NTT exactly as FIPS 204 writes it
//! (natural order, the oracle for the others' layouts); `Portable<8>` and `Portable<16>`
//! run the AVX2 and AVX-512 layouts on any CPU, so tests check the shared code for
//! those widths even where the instructions are missing.

use super::Lanes;
use crate::mldsa::arith::{montgomery_mul, reduce32};
use crate::mldsa::keccak::portable::PortableKeccak;

#[derive(Clone, Copy)]
pub(crate) struct Portable<const W: usize>([i32; W]);

impl<const W: usize> Portable<W> {
    #[inline(always)]
    fn zip(self, rhs: Self, f: impl Fn(i32, i32) -> i32) -> Self {
        Portable(core::array::from_fn(|i| f(self.0[i], rhs.0[i])))
    }
}

impl<const W: usize> Lanes for Portable<W> {
    const N: usize = W;
    /// Four states: the multi-lane sponge code runs on every CPU.
    type Keccak = PortableKeccak<4>;

    #[inline(always)]
    fn splat(x: i32) -> Self {
        Portable([x; W])
    }

    #[inline(always)]
    fn load(src: &[i32]) -> Self {
        Portable(src[..W].try_into().expect("W values"))
    }

    #[inline(always)]
    fn store(self, dst: &mut [i32]) {
        dst[..W].copy_from_slice(&self.0);
    }

    // Plain `+`/`-`: the NTT's bounds keep every sum inside i32, and a debug build
    // panics should a change ever break them.
    #[inline(always)]
    fn add(self, rhs: Self) -> Self {
        self.zip(rhs, |a, b| a + b)
    }

    #[inline(always)]
    fn sub(self, rhs: Self) -> Self {
        self.zip(rhs, |a, b| a - b)
    }

    #[inline(always)]
    fn montgomery_mul(self, rhs: Self) -> Self {
        self.zip(rhs, montgomery_mul)
    }

    #[inline(always)]
    fn reduce32(self) -> Self {
        Portable(self.0.map(reduce32))
    }

    fn transpose(rows: &mut [Self]) {
        for i in 0..W {
            for j in i + 1..W {
                let (upper, lower) = (rows[i].0[j], rows[j].0[i]);
                rows[i].0[j] = lower;
                rows[j].0[i] = upper;
            }
        }
    }
}
