//! Field arithmetic mod p = 2^255 − 19 over SIMD lanes: lane i of every vector belongs
//! to signature i. Each backend implements [`LaneField`]; the curve model, the scalar
//! multiplication and the verification protocol above it are written once, generically.

#[cfg(target_arch = "x86_64")]
pub(crate) mod avx2;

/// The most lanes any backend has (8 for AVX-512); sizes the per-lane byte arrays.
pub(crate) const MAX_LANES: usize = 8;

/// One field element per lane. Masks are bitmasks: bit i stands for lane i.
///
/// Bounds are the implementation's business: every method accepts the output of every
/// other method (arbitrarily chained), so generic code never reasons about limbs.
pub(crate) trait LaneField: Copy {
    const LANES: usize;
    /// One lane's element, fully carried (each limb within its radix), for tables.
    type Limbs: Copy;

    fn zero() -> Self;
    fn one() -> Self;
    /// The same value in every lane, from its canonical little-endian bytes.
    fn splat_bytes(bytes: &[u8; 32]) -> Self;
    /// Lane i from `lanes[i]`: the low 255 bits, little-endian; values ≥ p are allowed
    /// and reduce mod p in arithmetic (as curve25519-dalek's decoding does).
    fn from_bytes(lanes: &[[u8; 32]]) -> Self;
    /// The canonical encoding (fully reduced, < p) of each lane into `out[..LANES]`.
    fn to_bytes(&self, out: &mut [[u8; 32]]);

    fn add(&self, rhs: &Self) -> Self;
    fn sub(&self, rhs: &Self) -> Self;
    fn neg(&self) -> Self;
    fn mul(&self, rhs: &Self) -> Self;
    fn square(&self) -> Self;
    /// self^(2^k), k ≥ 1.
    fn pow2k(&self, k: u32) -> Self {
        let mut x = self.square();
        for _ in 1..k {
            x = x.square();
        }
        x
    }
    /// Lane i from `a` where bit i of `mask` is set, else from `b`.
    fn select(mask: u8, a: &Self, b: &Self) -> Self;

    /// Lane `lane`'s limbs, carried so they can be stored and gathered back.
    fn lane_limbs(&self, lane: usize) -> Self::Limbs;
    /// Lane i from `rows[i]`.
    fn from_lane_limbs(rows: &[&Self::Limbs]) -> Self;

    /// Lanes whose value is 0 mod p.
    fn zero_mask(&self) -> u8 {
        let mut bytes = [[0u8; 32]; MAX_LANES];
        self.to_bytes(&mut bytes);
        lane_mask::<Self>(|i| bytes[i] == [0u8; 32])
    }
    /// Lanes whose canonical value is odd (RFC 8032's "negative" x).
    fn odd_mask(&self) -> u8 {
        let mut bytes = [[0u8; 32]; MAX_LANES];
        self.to_bytes(&mut bytes);
        lane_mask::<Self>(|i| bytes[i][0] & 1 == 1)
    }
}

/// The bitmask of lanes `0..F::LANES` for which `pred` holds.
pub(crate) fn lane_mask<F: LaneField>(pred: impl Fn(usize) -> bool) -> u8 {
    (0..F::LANES).fold(0u8, |m, i| m | (u8::from(pred(i)) << i))
}
