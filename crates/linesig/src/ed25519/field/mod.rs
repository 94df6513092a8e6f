//! Field arithmetic mod p = 2^255 − 19 over SIMD lanes: lane i of every vector belongs
//! to signature i. Each backend implements [`LaneField`]; the curve model, the scalar
//! multiplication and the verification protocol above it are written once, generically.

/// The most lanes any backend has (8 for AVX-512); sizes the per-lane byte arrays.
pub(crate) const MAX_LANES: usize = 8;

/// One lane's limbs on a cache line of their own (64 bytes, 64-byte aligned): rows that
/// are written and read back at random, as the batch equation's buckets are. Packed
/// 40-byte rows straddle lines, and their masked stores do not forward to the loads that
/// read them back; a whole line is one aligned store and one load.
#[derive(Clone, Copy, Default)]
#[repr(C, align(64))]
pub(crate) struct Line<T>(pub T);

/// One field element per lane. Masks are bitmasks: bit i stands for lane i.
///
/// Bounds are the implementation's business: every method accepts the output of every
/// other method (arbitrarily chained), so generic code never reasons about limbs.
pub(crate) trait LaneField: Copy {
    const LANES: usize;
    /// Whether a chain of one value (the batch equation's Horner step over its windows)
    /// runs faster on the portable field than in one lane of this one. True on AVX2,
    /// where a product of four lanes costs about as much as three of one in 64-bit
    /// integers; false on IFMA, whose eight-lane product is cheaper than one portable
    /// product (measured both ways, docs/results.md).
    const CHAIN_ON_PORTABLE: bool = false;
    /// Whether the batch equation sums each bucket in one lane's registers (`msm`: a
    /// window's points sorted by bucket, a point gathered per lane) rather than with the
    /// lanes on windows (a point broadcast into each lane's bucket, gathered and stored
    /// back around every addition). Measured per backend: in registers ran 8–11 %
    /// faster on IFMA (Zen 5, medians of alternated runs) and held its speed where the
    /// host was busy; broadcast 6–12 % faster on AVX2, whose four-lane transpositions
    /// cost less against its dearer products (docs/results.md).
    const BUCKETS_IN_REGISTERS: bool = true;
    /// One lane's element, fully carried (each limb within its radix), for tables.
    type Limbs: Copy + Default + Send + Sync + 'static;

    fn zero() -> Self;
    fn one() -> Self;
    /// The same value in every lane, from its canonical little-endian bytes.
    fn splat_bytes(bytes: &[u8; 32]) -> Self;
    /// Lane i from `lanes[i]`: the low 255 bits, little-endian; values ≥ p are allowed
    /// and reduce mod p in arithmetic (as curve25519-dalek's decoding does).
    fn from_bytes(lanes: &[[u8; 32]]) -> Self;
    /// The canonical encoding (fully reduced, < p) of each lane into `out[..LANES]`.
    fn to_bytes(&self, out: &mut [[u8; 32]]);
    /// Each lane's element from a value below 2^255 (read mod p) packed in four
    /// little-endian u64: the narrow rows of hot-key tables, which hold canonical values,
    /// two elements to a cache line.
    #[inline(always)]
    fn from_packed(rows: &[&[u64; 4]]) -> Self {
        let mut bytes = [[0u8; 32]; MAX_LANES];
        for (b, row) in bytes.iter_mut().zip(rows) {
            for (chunk, word) in b.chunks_exact_mut(8).zip(row.iter()) {
                chunk.copy_from_slice(&word.to_le_bytes());
            }
        }
        Self::from_bytes(&bytes[..Self::LANES])
    }

    fn add(&self, rhs: &Self) -> Self;
    fn sub(&self, rhs: &Self) -> Self;
    fn neg(&self) -> Self;
    fn mul(&self, rhs: &Self) -> Self;
    fn square(&self) -> Self;
    /// self^(2^k), k ≥ 1: one chain of [`LaneField::pow2k_each`].
    fn pow2k(&self, k: u32) -> Self {
        let [x] = Self::pow2k_each(&[*self], k);
        x
    }
    /// `x[i]^(2^k)` for each of `N` independent elements (k ≥ 1), the chains interleaved:
    /// a chain of squarings is bound by the multiplier's latency, and interleaving
    /// fills the gaps (two decodings cost little more than one). A backend whose
    /// products run out of line overrides it with one kernel for the whole loop.
    #[inline(always)]
    fn pow2k_each<const N: usize>(x: &[Self; N], k: u32) -> [Self; N] {
        let mut x = *x;
        for _ in 0..k {
            for v in &mut x {
                *v = v.square();
            }
        }
        x
    }
    /// `a[i]·b[i]` for each of `N` pairs (as [`LaneField::pow2k_each`], one kernel where
    /// the backend's products run out of line).
    #[inline(always)]
    fn mul_each<const N: usize>(a: &[Self; N], b: &[Self; N]) -> [Self; N] {
        // A loop, not `core::array::from_fn`: a closure left out of line is compiled
        // without the caller's target features.
        let mut out = *a;
        for (out, b) in out.iter_mut().zip(b) {
            *out = out.mul(b);
        }
        out
    }
    /// The product, its body compiled into the caller where the backend's [`mul`] runs
    /// out of line: for the few hot loops small enough to hold several copies (each is a
    /// few kilobytes of code), called from a kernel with the backend's features (elsewhere
    /// it is correct but slow: its intrinsics become calls).
    ///
    /// [`mul`]: LaneField::mul
    #[inline(always)]
    fn mul_inlined(&self, rhs: &Self) -> Self {
        self.mul(rhs)
    }
    /// Lane i from `a` where bit i of `mask` is set, else from `b`.
    fn select(mask: u8, a: &Self, b: &Self) -> Self;

    /// Every lane's limbs (entries past `LANES` are zero), carried so they can be
    /// stored and gathered back: one transposition for all lanes.
    fn to_lane_limbs(&self) -> [Self::Limbs; MAX_LANES];
    /// Lane i's limbs (as [`LaneField::to_lane_limbs`]) into `*row` for each (i, row) of
    /// `rows`: how tables are filled.
    fn store_lane_limbs<'r>(&self, rows: impl IntoIterator<Item = (usize, &'r mut Self::Limbs)>)
    where
        Self::Limbs: 'r,
    {
        copy_lane_limbs(self, rows)
    }
    /// Lane `lane`'s limbs (as [`LaneField::to_lane_limbs`]).
    fn lane_limbs(&self, lane: usize) -> Self::Limbs {
        self.to_lane_limbs()[lane]
    }
    /// Lane i from `rows[i]`.
    fn from_lane_limbs(rows: &[&Self::Limbs]) -> Self;
    /// As [`LaneField::from_lane_limbs`] from rows on cache lines of their own.
    fn from_lane_lines(rows: &[&Line<Self::Limbs>]) -> Self {
        let rows: [&Self::Limbs; MAX_LANES] =
            core::array::from_fn(|i| &rows[i.min(rows.len() - 1)].0);
        Self::from_lane_limbs(&rows[..Self::LANES])
    }
    /// As [`LaneField::store_lane_limbs`] into rows on cache lines of their own, read
    /// back only by [`LaneField::from_lane_lines`]: a backend may write each whole line,
    /// and may keep the limbs as they stand rather than carried for a table (reading
    /// them back gives the element stored, bounds and all).
    fn store_lane_lines<'r>(
        &self,
        rows: impl IntoIterator<Item = (usize, &'r mut Line<Self::Limbs>)>,
    ) where
        Self::Limbs: 'r,
    {
        self.store_lane_limbs(rows.into_iter().map(|(lane, row)| (lane, &mut row.0)))
    }
    /// Every lane from `row`: one point added in every lane (the batch equation's
    /// buckets), a broadcast per limb where the backend has one, with no transposition.
    fn splat_limbs(row: &Self::Limbs) -> Self {
        Self::from_lane_limbs(&[row; MAX_LANES][..Self::LANES])
    }

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

/// `impl LaneField` for a backend's element type, as `#[inline(always)]` shims over the
/// module's `#[target_feature]` functions (`fe_constant`, `fe_add`, `fe_sub`, `fe_mul`,
/// `fe_square`, `fe_pow2k`, `fe_select`, `fe_zero_mask`, `fe_odd_mask`, `fe_from_rows`,
/// `fe_splat_row`, `fe_from_lines`, `store_lines`,
/// `from_limb_lanes`, `to_limb_lanes`, `stored_limbs`) and constants (`LANES`,
/// `LIMB_OFFSET`, `LIMB_BITS`): LLVM inlines an intrinsic only into a caller that has its
/// features, and does not reliably revisit calls hoisted into one by `#[inline(always)]`,
/// so the features sit on those functions and the trait methods only forward. With
/// `each`, [`LaneField::pow2k_each`] and [`LaneField::mul_each`] forward to the
/// backend's `fe_pow2k_each` and `fe_mul_each` too, [`LaneField::mul_inlined`] is
/// the module's `#[inline(always)]` `mul_body` (no features of its own: compiled with
/// those of the kernel it lands in), [`LaneField::CHAIN_ON_PORTABLE`] holds and
/// [`LaneField::BUCKETS_IN_REGISTERS`] does not: all are for a backend whose products
/// are dear (AVX2's ten-limb elements).
macro_rules! lane_field_shims {
    ($fe:ident, $limbs:ty) => {
        super::lane_field_shims!($fe, $limbs, {});
    };
    ($fe:ident, $limbs:ty, each) => {
        super::lane_field_shims!($fe, $limbs, {
            const CHAIN_ON_PORTABLE: bool = true;
            const BUCKETS_IN_REGISTERS: bool = false;
            #[inline(always)]
            fn pow2k_each<const N: usize>(x: &[Self; N], k: u32) -> [Self; N] {
                unsafe { fe_pow2k_each(x, k) }
            }
            #[inline(always)]
            fn mul_each<const N: usize>(a: &[Self; N], b: &[Self; N]) -> [Self; N] {
                unsafe { fe_mul_each(a, b) }
            }
            #[inline(always)]
            fn mul_inlined(&self, rhs: &Self) -> Self {
                unsafe { mul_body(self, rhs) }
            }
        });
    };
    ($fe:ident, $limbs:ty, { $($extra:tt)* }) => {
        // SAFETY (every `unsafe` here): the callees need the module's target features,
        // and its values exist only on CPUs that have them (module note).
        impl super::LaneField for $fe {
            const LANES: usize = LANES;
            type Limbs = $limbs;

            #[inline(always)]
            fn zero() -> Self {
                unsafe { fe_constant(0) }
            }
            #[inline(always)]
            fn one() -> Self {
                unsafe { fe_constant(1) }
            }
            fn splat_bytes(bytes: &[u8; 32]) -> Self {
                $fe::from_bytes(&[*bytes; LANES])
            }
            fn from_bytes(lanes: &[[u8; 32]]) -> Self {
                let limbs: [$limbs; LANES] = core::array::from_fn(|lane| {
                    core::array::from_fn(|i| {
                        super::bits(&lanes[lane], LIMB_OFFSET[i], LIMB_BITS[i])
                    })
                });
                unsafe { from_limb_lanes(&limbs) }
            }
            fn to_bytes(&self, out: &mut [[u8; 32]]) {
                for (lane, limbs) in unsafe { to_limb_lanes(self) }.into_iter().enumerate() {
                    out[lane] = super::canonical_bytes(limbs.into_iter().zip(LIMB_OFFSET));
                }
            }
            #[inline(always)]
            fn add(&self, rhs: &Self) -> Self {
                unsafe { fe_add(self, rhs) }
            }
            #[inline(always)]
            fn sub(&self, rhs: &Self) -> Self {
                unsafe { fe_sub(self, rhs) }
            }
            #[inline(always)]
            fn neg(&self) -> Self {
                unsafe { fe_sub(&fe_constant(0), self) }
            }
            #[inline(always)]
            fn mul(&self, rhs: &Self) -> Self {
                unsafe { fe_mul(self, rhs) }
            }
            #[inline(always)]
            fn square(&self) -> Self {
                unsafe { fe_square(self) }
            }
            #[inline(always)]
            fn pow2k(&self, k: u32) -> Self {
                unsafe { fe_pow2k(self, k) }
            }
            #[inline(always)]
            fn select(mask: u8, a: &Self, b: &Self) -> Self {
                unsafe { fe_select(mask, a, b) }
            }
            #[inline(always)]
            fn zero_mask(&self) -> u8 {
                unsafe { fe_zero_mask(self) }
            }
            #[inline(always)]
            fn odd_mask(&self) -> u8 {
                unsafe { fe_odd_mask(self) }
            }
            #[inline(always)]
            fn to_lane_limbs(&self) -> [$limbs; super::MAX_LANES] {
                let lanes = unsafe { to_limb_lanes(self) };
                core::array::from_fn(|i| {
                    lanes
                        .get(i)
                        .map_or_else(Default::default, |&l| stored_limbs(l))
                })
            }
            #[inline(always)]
            fn store_lane_limbs<'r>(
                &self,
                rows: impl IntoIterator<Item = (usize, &'r mut $limbs)>,
            ) {
                unsafe { store_rows(self, rows) }
            }
            #[inline(always)]
            fn from_lane_limbs(rows: &[&$limbs]) -> Self {
                unsafe { fe_from_rows(rows) }
            }
            #[inline(always)]
            fn splat_limbs(row: &$limbs) -> Self {
                unsafe { fe_splat_row(row) }
            }
            #[inline(always)]
            fn from_lane_lines(rows: &[&super::Line<$limbs>]) -> Self {
                unsafe { fe_from_lines(rows) }
            }
            #[inline(always)]
            fn store_lane_lines<'r>(
                &self,
                rows: impl IntoIterator<Item = (usize, &'r mut super::Line<$limbs>)>,
            ) {
                unsafe { store_lines(self, rows) }
            }
            $($extra)*
        }
    };
}
pub(crate) use lane_field_shims;

#[cfg(target_arch = "x86_64")]
pub(crate) mod avx2;
#[cfg(target_arch = "x86_64")]
pub(crate) mod avx512;
pub(crate) mod portable;

/// [`LaneField::store_lane_limbs`] through [`LaneField::to_lane_limbs`]: the default,
/// for fields without a faster way to write rows.
pub(crate) fn copy_lane_limbs<'r, F: LaneField>(
    f: &F,
    rows: impl IntoIterator<Item = (usize, &'r mut F::Limbs)>,
) where
    F::Limbs: 'r,
{
    let all = f.to_lane_limbs();
    for (lane, row) in rows {
        *row = all[lane];
    }
}

/// The bitmask of lanes `0..F::LANES` for which `pred` holds.
pub(crate) fn lane_mask<F: LaneField>(pred: impl Fn(usize) -> bool) -> u8 {
    (0..F::LANES).fold(0u8, |m, i| m | (u8::from(pred(i)) << i))
}

/// The lanes of `mask` among `0..F::LANES`, in order: [`lane_mask`]'s inverse.
pub(crate) fn lanes_in<F: LaneField>(mask: u8) -> impl Iterator<Item = usize> {
    (0..F::LANES).filter(move |l| mask >> l & 1 == 1)
}

/// Bits `offset..offset + width` (width ≤ 57) of a 256-bit little-endian integer: how a
/// backend cuts an encoding into limbs.
pub(crate) fn bits(bytes: &[u8; 32], offset: usize, width: u32) -> u64 {
    let start = offset / 8;
    let mut word = [0u8; 8];
    let n = (32 - start).min(8);
    word[..n].copy_from_slice(&bytes[start..start + n]);
    (u64::from_le_bytes(word) >> (offset % 8)) & ((1u64 << width) - 1)
}

/// The canonical encoding (< p) of Σ limb·2^offset, for any limbs whose sum is below
/// 2^320: the one way every backend turns lanes back into bytes.
pub(crate) fn canonical_bytes(limbs: impl IntoIterator<Item = (u64, usize)>) -> [u8; 32] {
    // v as five 64-bit words.
    let mut v = [0u64; 5];
    for (limb, offset) in limbs {
        add_at(&mut v, offset / 64, (limb as u128) << (offset % 64));
    }
    // Fold bits ≥ 255 back with 2^255 ≡ 19 until v < 2^255 (at most three rounds:
    // 2^320 → 2^255 + 2^70 → 2^255 + 19 → below 2^255).
    loop {
        let high = (v[3] >> 63) as u128 | (v[4] as u128) << 1;
        if high == 0 {
            break;
        }
        v[3] &= !(1u64 << 63);
        v[4] = 0;
        add_at(&mut v, 0, high * 19);
    }
    // v < 2^255 < 2p: v ≥ p exactly when v + 19 ≥ 2^255, and then v − p = v + 19 − 2^255.
    let mut plus19 = v;
    add_at(&mut plus19, 0, 19);
    if plus19[3] >> 63 == 1 {
        plus19[3] &= !(1u64 << 63);
        v = plus19;
    }
    let mut out = [0u8; 32];
    for (i, w) in v.iter().take(4).enumerate() {
        out[8 * i..8 * i + 8].copy_from_slice(&w.to_le_bytes());
    }
    out
}

/// v += x·2^(64·word), carrying upward (the callers keep v below 2^320).
fn add_at(v: &mut [u64; 5], word: usize, x: u128) {
    let mut carry = x;
    for w in v.iter_mut().skip(word) {
        if carry == 0 {
            break;
        }
        let s = *w as u128 + (carry as u64) as u128;
        *w = s as u64;
        carry = (carry >> 64) + (s >> 64);
    }
}

/// Checks every backend's field runs: each lane against big-integer arithmetic.
#[cfg(test)]
pub(crate) mod tests {
    use super::{LaneField, Line, MAX_LANES};
    use num_bigint::BigUint;
    use rand::{Rng, RngCore, SeedableRng};

    pub fn p() -> BigUint {
        (BigUint::from(1u8) << 255) - 19u8
    }

    fn big(b: &[u8; 32]) -> BigUint {
        BigUint::from_bytes_le(b)
    }

    pub fn canon(x: &BigUint) -> [u8; 32] {
        let mut out = [0u8; 32];
        let v = (x % p()).to_bytes_le();
        out[..v.len()].copy_from_slice(&v);
        out
    }

    fn random_lanes(rng: &mut impl RngCore) -> [[u8; 32]; MAX_LANES] {
        core::array::from_fn(|_| {
            let mut b = [0u8; 32];
            rng.fill_bytes(&mut b);
            b[31] &= 0x7f;
            if rng.gen_ratio(1, 8) {
                // y ≥ p and other edges: all-ones, p − 1, 0, p itself.
                b = match rng.gen_range(0..4) {
                    0 => [0xff; 32],
                    1 => canon(&(p() - 1u8)),
                    2 => [0; 32],
                    _ => {
                        let mut q = [0xff; 32];
                        q[0] = 0xed;
                        q
                    }
                };
                b[31] &= 0x7f;
            }
            b
        })
    }

    pub fn check<F: LaneField>(name: &str, got: F, want: impl Fn(usize) -> BigUint) {
        let mut out = [[0u8; 32]; MAX_LANES];
        got.to_bytes(&mut out);
        for (lane, bytes) in out.iter().enumerate().take(F::LANES) {
            assert_eq!(*bytes, canon(&want(lane)), "{name} lane {lane}");
        }
    }

    /// Every operation against big-integer arithmetic, chained as deep as the point
    /// formulas chain them (sums of products fed back into products), and deeper.
    pub fn arithmetic_matches_big_integers<F: LaneField>(seed: u64) {
        let mut rng = rand_chacha::ChaCha20Rng::seed_from_u64(seed);
        let p = p();
        for _ in 0..2000 {
            let (xa, xb, xc) = (
                random_lanes(&mut rng),
                random_lanes(&mut rng),
                random_lanes(&mut rng),
            );
            let (a, b, c) = (
                F::from_bytes(&xa[..F::LANES]),
                F::from_bytes(&xb[..F::LANES]),
                F::from_bytes(&xc[..F::LANES]),
            );
            let (ba, bb, bc) = (
                |l: usize| big(&xa[l]),
                |l: usize| big(&xb[l]),
                |l: usize| big(&xc[l]),
            );
            check("mul", a.mul(&b), |l| ba(l) * bb(l));
            check("square", a.square(), |l| ba(l) * ba(l));
            check("add", a.add(&b), |l| ba(l) + bb(l));
            check("sub", a.sub(&b), |l| ba(l) + &p * 2u8 - bb(l));
            check("neg", a.neg(), |l| &p * 2u8 - ba(l));
            // The largest mul input the point formulas make: (2·(a·b) + c) and a·b + c·c.
            let ab = a.mul(&b);
            let wide = ab.add(&ab).add(&c.mul(&c));
            let want_wide = |l: usize| (ba(l) * bb(l)) * 2u8 + bc(l) * bc(l);
            check("mul of sums", wide.mul(&wide), |l| {
                want_wide(l) * want_wide(l)
            });
            check("square of sums", wide.square(), |l| {
                want_wide(l) * want_wide(l)
            });
            let diff = wide.sub(&ab.add(&c));
            check("sub of sums", diff.mul(&a), |l| {
                (want_wide(l) + &p * 4u8 - ba(l) * bb(l) - bc(l)) * ba(l)
            });
            // Long chains of additions and negations, then a product.
            let mut chain = a;
            let mut wants: Vec<BigUint> = (0..F::LANES).map(ba).collect();
            for step in 0..6 {
                chain = if step % 2 == 0 {
                    chain.add(&chain)
                } else {
                    chain.neg().sub(&b)
                };
                for (l, w) in wants.iter_mut().enumerate() {
                    *w = if step % 2 == 0 {
                        &*w * 2u8
                    } else {
                        &p * 4u8 - &*w % &p - bb(l)
                    };
                }
            }
            check("chain", chain.mul(&c), |l| &wants[l] * bc(l));
            check("pow2k", a.pow2k(5), |l| {
                ba(l).modpow(&BigUint::from(32u8), &p)
            });
            let [e0, e1, e2] = F::pow2k_each(&[a, wide, c], 3);
            check("pow2k_each", e0, |l| ba(l).modpow(&BigUint::from(8u8), &p));
            check("pow2k_each", e1, |l| {
                want_wide(l).modpow(&BigUint::from(8u8), &p)
            });
            check("pow2k_each", e2, |l| bc(l).modpow(&BigUint::from(8u8), &p));
            let [m0, m1] = F::mul_each(&[a, wide], &[b, wide]);
            check("mul_each", m0, |l| ba(l) * bb(l));
            check("mul_each", m1, |l| want_wide(l) * want_wide(l));
            check("mul_inlined", a.mul_inlined(&b), |l| ba(l) * bb(l));
            check("mul_inlined", wide.mul_inlined(&diff), |l| {
                want_wide(l) * (want_wide(l) + &p * 4u8 - ba(l) * bb(l) - bc(l))
            });
            // Lines, as the batch equation's buckets use them: lane i of `wide` (an
            // uncarried sum on some backends) onto line LANES − 1 − i, read back in line
            // order, then multiplied (the limbs must come back as valid operands).
            let mut lines = [Line(F::Limbs::default()); MAX_LANES];
            wide.store_lane_lines(
                lines
                    .iter_mut()
                    .take(F::LANES)
                    .enumerate()
                    .map(|(k, line)| (F::LANES - 1 - k, line)),
            );
            let refs: Vec<&Line<F::Limbs>> = lines[..F::LANES].iter().collect();
            check("lines", F::from_lane_lines(&refs).mul(&a), |l| {
                want_wide(F::LANES - 1 - l) * ba(l)
            });
            let mask = rng.gen::<u8>() & ((1u16 << F::LANES) - 1) as u8;
            check("select", F::select(mask, &a, &b), |l| {
                if mask >> l & 1 == 1 {
                    ba(l)
                } else {
                    bb(l)
                }
            });
            let rows: Vec<F::Limbs> = (0..F::LANES).map(|l| wide.lane_limbs(l)).collect();
            let refs: Vec<&F::Limbs> = rows.iter().rev().collect();
            check("gather", F::from_lane_limbs(&refs), |l| {
                want_wide(F::LANES - 1 - l)
            });
        }
    }

    /// `zero_mask` and `odd_mask` agree with the canonical bytes where the limbs are far
    /// from canonical: differences of equal values (limbs near 2p), a value plus its
    /// negation, products, and encodings at and above p.
    pub fn masks_match_canonical_bytes<F: LaneField>() {
        let mut rng = rand_chacha::ChaCha20Rng::seed_from_u64(3);
        for _ in 0..300 {
            let a = F::from_bytes(&random_lanes(&mut rng)[..F::LANES]);
            let b = F::from_bytes(&random_lanes(&mut rng)[..F::LANES]);
            let minus_a = a.neg();
            let values = [
                a,
                a.sub(&a),
                a.add(&minus_a),
                minus_a.add(&a),
                a.mul(&b).sub(&b.mul(&a)),
                a.sub(&b),
                a.add(&b),
                a.mul(&b),
                a.square(),
                minus_a,
                F::zero().sub(&F::one()).add(&F::one()),
            ];
            for x in values {
                let mut bytes = [[0u8; 32]; MAX_LANES];
                x.to_bytes(&mut bytes);
                let zero = super::lane_mask::<F>(|i| bytes[i] == [0u8; 32]);
                let odd = super::lane_mask::<F>(|i| bytes[i][0] & 1 == 1);
                assert_eq!(x.zero_mask(), zero);
                assert_eq!(x.odd_mask(), odd);
            }
        }
    }

    /// [`LaneField::from_packed`] reads each lane's packed words as the value they hold
    /// (mod p): random values below 2^255 with the edges `random_lanes` mixes in, and 0
    /// and p − 1, each lane from its own row; a square of what it read stays exact (its
    /// limbs are valid operands).
    pub fn packed_rows_read_canonical_values<F: LaneField>(seed: u64) {
        let mut rng = rand_chacha::ChaCha20Rng::seed_from_u64(seed);
        let mut p_minus_1 = [0xffu8; 32];
        p_minus_1[0] = 0xec;
        p_minus_1[31] = 0x7f;
        for round in 0..64 {
            let mut lanes = random_lanes(&mut rng);
            if round == 0 {
                lanes[0] = [0; 32];
                lanes[F::LANES - 1] = p_minus_1;
            }
            let words: [[u64; 4]; MAX_LANES] = lanes.map(|b| {
                core::array::from_fn(|w| u64::from_le_bytes(core::array::from_fn(|k| b[8 * w + k])))
            });
            let rows: Vec<&[u64; 4]> = words[..F::LANES].iter().collect();
            let x = F::from_packed(&rows);
            check("from_packed", x, |lane| big(&lanes[lane]));
            check("from_packed squared", x.square(), |lane| {
                big(&lanes[lane]).pow(2u32) % p()
            });
        }
    }

    /// `store_lane_limbs` writes exactly `to_lane_limbs`'s rows, for any subset of
    /// lanes in any order, and `from_lane_limbs` reads them back to the same values.
    pub fn rows_round_trip<F: LaneField>()
    where
        F::Limbs: PartialEq + core::fmt::Debug,
    {
        let lanes: [[u8; 32]; MAX_LANES] = core::array::from_fn(|i| {
            core::array::from_fn(|j| {
                (i * 37 + j * 11 + 5) as u8 & if j == 31 { 0x7f } else { 0xff }
            })
        });
        let x = F::from_bytes(&lanes[..F::LANES]).mul(&F::from_bytes(&lanes[..F::LANES]));
        let want = x.to_lane_limbs();
        let mut rows = [F::Limbs::default(); MAX_LANES];
        let order: Vec<usize> = (0..F::LANES).rev().step_by(2).chain(0..1).collect();
        x.store_lane_limbs(order.iter().copied().zip(rows.iter_mut()));
        for (k, &lane) in order.iter().enumerate() {
            assert_eq!(rows[k], want[lane], "lane {lane}");
        }
        let refs: Vec<&F::Limbs> = want[..F::LANES].iter().collect();
        let (mut a, mut b) = ([[0u8; 32]; MAX_LANES], [[0u8; 32]; MAX_LANES]);
        F::from_lane_limbs(&refs).to_bytes(&mut a[..F::LANES]);
        x.to_bytes(&mut b[..F::LANES]);
        assert_eq!(a, b);
    }

    pub fn masks_read_canonical_values<F: LaneField>() {
        let p_bytes = {
            let mut q = [0xffu8; 32];
            q[0] = 0xed;
            q[31] = 0x7f;
            q
        };
        let mut three = [0u8; 32];
        three[0] = 3;
        let lanes: [[u8; 32]; MAX_LANES] =
            core::array::from_fn(|i| [[0u8; 32], p_bytes, three, canon(&(p() - 1u8))][i % 4]);
        let x = F::from_bytes(&lanes[..F::LANES]);
        let pattern = |bits: u8| super::lane_mask::<F>(|i| bits >> (i % 4) & 1 == 1);
        assert_eq!(x.zero_mask(), pattern(0b0011));
        assert_eq!(x.odd_mask(), pattern(0b0100));
    }
}
