//! One SHA-512 lane in a plain u64: the multi-buffer hash degenerates to the scalar one,
//! so the portable lane instantiation shares the code of the vector ones.

#[derive(Clone, Copy)]
pub(crate) struct Words1(u64);

impl super::LaneWords for Words1 {
    const LANES: usize = 1;
    #[inline(always)]
    fn splat(x: u64) -> Self {
        Words1(x)
    }
    #[inline(always)]
    fn to_lanes(&self, out: &mut [u64]) {
        out[0] = self.0;
    }
    #[inline(always)]
    fn add(self, rhs: Self) -> Self {
        Words1(self.0.wrapping_add(rhs.0))
    }
    #[inline(always)]
    fn xor(self, rhs: Self) -> Self {
        Words1(self.0 ^ rhs.0)
    }
    #[inline(always)]
    fn and(self, rhs: Self) -> Self {
        Words1(self.0 & rhs.0)
    }
    #[inline(always)]
    fn andnot(self, rhs: Self) -> Self {
        Words1(!self.0 & rhs.0)
    }
    #[inline(always)]
    fn rotr(self, n: u32) -> Self {
        Words1(self.0.rotate_right(n))
    }
    #[inline(always)]
    fn shr(self, n: u32) -> Self {
        Words1(self.0 >> n)
    }
    #[inline(always)]
    fn select(mask: u8, a: Self, b: Self) -> Self {
        if mask & 1 == 1 {
            a
        } else {
            b
        }
    }
    #[inline(always)]
    fn load_block(rows: &[&[u8; super::BLOCK]]) -> [Self; 16] {
        let words = rows[0].as_chunks::<8>().0;
        core::array::from_fn(|i| Words1(u64::from_be_bytes(words[i])))
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn digests_match_sha2() {
        super::super::tests::digests_match_sha2::<super::Words1>();
    }
}
