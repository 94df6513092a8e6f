//! Sixteen KoalaBear elements as one value of Plonky3's ring traits, over any leanSig
//! lane type of sixteen lanes: what the AIR's `eval` computes with in [`super`]; and the
//! conversions between field elements and Montgomery words, and the partial loads and
//! stores of a row's last columns, that the prover's lane code shares.
//!
//! The elements are kept as Montgomery words in an array (the ring traits need
//! constants, which a vector register cannot be in a generic `const`); every operation
//! loads them into `L`, operates and stores, and inside a kernel the loads and stores
//! fold away.

use crate::field::Challenge;
use core::fmt;
use core::iter::{Product, Sum};
use core::marker::PhantomData;
use core::ops::{Add, AddAssign, Mul, MulAssign, Neg, Sub, SubAssign};
use linesig::leansig::internals::lanes::{from_monty, to_monty, KoalaLanes};
use p3_field::{Algebra, BasedVectorSpace, PrimeCharacteristicRing, PrimeField32};
use p3_koala_bear::KoalaBear;

/// Points per evaluation.
pub(crate) const WIDTH: usize = 16;

/// The Montgomery words of KoalaBear elements, without copying them.
#[inline(always)]
pub(crate) fn monty_words(elements: &[KoalaBear]) -> &[u32] {
    // SAFETY: `KoalaBear` is `MontyField31<KoalaBearParameters>`, `#[repr(transparent)]`
    // over its Montgomery word (a `u32` in [0, p)) and a zero-sized marker, so a slice of
    // elements is a slice of those words, same length and alignment. A test pins the
    // words to `to_monty(as_canonical_u32())`.
    unsafe { core::slice::from_raw_parts(elements.as_ptr().cast::<u32>(), elements.len()) }
}

/// The element whose Montgomery word is `word` (in [0, p)).
pub(crate) fn element(word: u32) -> KoalaBear {
    KoalaBear::from_u32(from_monty(word))
}

/// The four coordinates of an extension element as Montgomery words.
pub(crate) fn challenge_words(c: &Challenge) -> [u32; 4] {
    monty_words(c.as_basis_coefficients_slice())
        .try_into()
        .expect("a degree-4 extension")
}

/// The extension element whose coordinates' Montgomery words are `words`.
pub(crate) fn challenge(words: [u32; 4]) -> Challenge {
    Challenge::from_basis_coefficients_fn(|d| element(words[d]))
}

/// Lanes from `row[at..]`, at most [`WIDTH`] of its words; lanes past the row's end are
/// zero (a partial load, which reads nothing past the row).
#[inline(always)]
pub(crate) fn load_columns<L: KoalaLanes>(row: &[u32], at: usize) -> L {
    if at + WIDTH <= row.len() {
        L::load(&row[at..])
    } else {
        L::load_partial(&row[at..])
    }
}

/// `x`'s lanes into `row[at..]`, as many as the row has room for.
#[inline(always)]
pub(crate) fn store_columns<L: KoalaLanes>(x: L, row: &mut [u32], at: usize) {
    if at + WIDTH <= row.len() {
        x.store(&mut row[at..]);
    } else {
        x.store_partial(&mut row[at..]);
    }
}

/// Sixteen elements in Montgomery form, each in [0, p); lane k is point k.
#[derive(Clone, Copy)]
#[repr(C, align(64))]
pub(crate) struct Lanes16<L>([u32; WIDTH], PhantomData<fn() -> L>);

impl<L: KoalaLanes> Lanes16<L> {
    const fn splat_word(word: u32) -> Self {
        Lanes16([word; WIDTH], PhantomData)
    }

    /// Sixteen Montgomery words (from the trace), lane k from `words[k]`.
    #[inline(always)]
    pub(crate) fn from_words(words: &[u32]) -> Self {
        let mut out = [0; WIDTH];
        out.copy_from_slice(&words[..WIDTH]);
        Lanes16(out, PhantomData)
    }

    #[inline(always)]
    fn lanes(self) -> L {
        L::load(&self.0)
    }

    #[inline(always)]
    fn of(lanes: L) -> Self {
        let mut out = [0; WIDTH];
        lanes.store(&mut out);
        Lanes16(out, PhantomData)
    }

    #[inline(always)]
    fn word(x: KoalaBear) -> u32 {
        monty_words(core::slice::from_ref(&x))[0]
    }

    /// self + x·c for one Montgomery word c: the folder's step.
    #[inline(always)]
    pub(crate) fn add_scaled(self, x: Self, c: u32) -> Self {
        Self::of(self.lanes().add(x.lanes().mul(L::splat(c))))
    }

    /// The elements as field elements.
    pub(crate) fn to_field(self) -> [KoalaBear; WIDTH] {
        self.0.map(element)
    }
}

impl<L: KoalaLanes> Default for Lanes16<L> {
    fn default() -> Self {
        Self::ZERO
    }
}

impl<L: KoalaLanes> fmt::Debug for Lanes16<L> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list()
            .entries(self.0.iter().map(|&w| from_monty(w)))
            .finish()
    }
}

impl<L: KoalaLanes> From<KoalaBear> for Lanes16<L> {
    #[inline(always)]
    fn from(x: KoalaBear) -> Self {
        Self::of(L::splat(Self::word(x)))
    }
}

/// The four operators, each with an element (broadcast) on the right as well.
macro_rules! lane_ops {
    ($($trait:ident $method:ident $assign:ident $assign_method:ident $lane:ident;)*) => {$(
        impl<L: KoalaLanes> $trait for Lanes16<L> {
            type Output = Self;
            #[inline(always)]
            fn $method(self, other: Self) -> Self {
                Self::of(self.lanes().$lane(other.lanes()))
            }
        }
        impl<L: KoalaLanes> $trait<KoalaBear> for Lanes16<L> {
            type Output = Self;
            #[inline(always)]
            fn $method(self, other: KoalaBear) -> Self {
                Self::of(self.lanes().$lane(L::splat(Self::word(other))))
            }
        }
        impl<L: KoalaLanes> $assign for Lanes16<L> {
            #[inline(always)]
            fn $assign_method(&mut self, other: Self) {
                *self = $trait::$method(*self, other);
            }
        }
        impl<L: KoalaLanes> $assign<KoalaBear> for Lanes16<L> {
            #[inline(always)]
            fn $assign_method(&mut self, other: KoalaBear) {
                *self = $trait::$method(*self, other);
            }
        }
    )*};
}

lane_ops! {
    Add add AddAssign add_assign add;
    Sub sub SubAssign sub_assign sub;
    Mul mul MulAssign mul_assign mul;
}

impl<L: KoalaLanes> Neg for Lanes16<L> {
    type Output = Self;
    #[inline(always)]
    fn neg(self) -> Self {
        Self::ZERO - self
    }
}

impl<L: KoalaLanes> Sum for Lanes16<L> {
    #[inline(always)]
    fn sum<I: Iterator<Item = Self>>(iter: I) -> Self {
        iter.fold(Self::ZERO, |a, b| a + b)
    }
}

impl<L: KoalaLanes> Product for Lanes16<L> {
    #[inline(always)]
    fn product<I: Iterator<Item = Self>>(iter: I) -> Self {
        iter.fold(Self::ONE, |a, b| a * b)
    }
}

impl<L: KoalaLanes> PrimeCharacteristicRing for Lanes16<L> {
    type PrimeSubfield = KoalaBear;

    const ZERO: Self = Self::splat_word(0);
    const ONE: Self = Self::splat_word(to_monty(1));
    const TWO: Self = Self::splat_word(to_monty(2));
    const NEG_ONE: Self = Self::splat_word(to_monty(KoalaBear::ORDER_U32 - 1));

    #[inline(always)]
    fn from_prime_subfield(f: KoalaBear) -> Self {
        f.into()
    }
}

impl<L: KoalaLanes> Algebra<KoalaBear> for Lanes16<L> {
    /// Σ a_i·f_i with element constants: the lanes' own dot product, which reduces
    /// once per two products.
    #[inline(always)]
    fn mixed_dot_product<const N: usize>(a: &[Self; N], f: &[KoalaBear; N]) -> Self {
        let lanes: [L; N] = core::array::from_fn(|i| a[i].lanes());
        Self::of(L::dot(&lanes, monty_words(f)))
    }
}
