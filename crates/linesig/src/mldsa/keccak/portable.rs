//! Keccak lanes as plain u64 arrays: `W` states, each word operated on in turn.

use super::KeccakLanes;

#[derive(Clone, Copy)]
pub(crate) struct PortableKeccak<const W: usize>([u64; W]);

impl<const W: usize> KeccakLanes for PortableKeccak<W> {
    const N: usize = W;

    #[inline(always)]
    fn from_words(words: &[u64]) -> Self {
        PortableKeccak(words[..W].try_into().expect("W words"))
    }

    #[inline(always)]
    fn to_words(self, words: &mut [u64]) {
        words[..W].copy_from_slice(&self.0);
    }

    #[inline(always)]
    fn splat(x: u64) -> Self {
        PortableKeccak([x; W])
    }

    #[inline(always)]
    fn xor(self, rhs: Self) -> Self {
        PortableKeccak(core::array::from_fn(|i| self.0[i] ^ rhs.0[i]))
    }

    #[inline(always)]
    fn andnot(self, rhs: Self) -> Self {
        PortableKeccak(core::array::from_fn(|i| !self.0[i] & rhs.0[i]))
    }

    #[inline(always)]
    fn rotl<const L: i32, const R: i32>(self) -> Self {
        PortableKeccak(self.0.map(|x| x.rotate_left(L as u32)))
    }
}
