//! The curve model over lanes: twisted Edwards −x² + y² = 1 + d·x²·y² in extended
//! (X:Y:Z:T, x = X/Z, y = Y/Z, xy = T/Z), projective, completed and cached coordinates,
//! with the formulas of Hisil–Wong–Carter–Dawson 2008 (§3.1, a = −1) as curve25519-dalek
//! uses them. The addition law is complete on this curve (d is not a square), so the
//! identity and small-order points need no special case in any lane.

use super::super::field::{LaneField, MAX_LANES};

/// Little-endian d = −121665/121666, 2d and √−1 mod p.
const D_BYTES: [u8; 32] = [
    0xa3, 0x78, 0x59, 0x13, 0xca, 0x4d, 0xeb, 0x75, 0xab, 0xd8, 0x41, 0x41, 0x4d, 0x0a, 0x70, 0x00,
    0x98, 0xe8, 0x79, 0x77, 0x79, 0x40, 0xc7, 0x8c, 0x73, 0xfe, 0x6f, 0x2b, 0xee, 0x6c, 0x03, 0x52,
];
const D2_BYTES: [u8; 32] = [
    0x59, 0xf1, 0xb2, 0x26, 0x94, 0x9b, 0xd6, 0xeb, 0x56, 0xb1, 0x83, 0x82, 0x9a, 0x14, 0xe0, 0x00,
    0x30, 0xd1, 0xf3, 0xee, 0xf2, 0x80, 0x8e, 0x19, 0xe7, 0xfc, 0xdf, 0x56, 0xdc, 0xd9, 0x06, 0x24,
];
/// Little-endian d/2 mod p: a narrow row's 2d·x·y is (d/2)·(2x)·(2y).
const D_HALF_BYTES: [u8; 32] = [
    0x48, 0xbc, 0xac, 0x09, 0xe5, 0xa6, 0xf5, 0xba, 0x55, 0xec, 0xa0, 0xa0, 0x26, 0x05, 0x38, 0x00,
    0x4c, 0xf4, 0xbc, 0xbb, 0x3c, 0xa0, 0x63, 0xc6, 0x39, 0xff, 0xb7, 0x15, 0x77, 0xb6, 0x01, 0x69,
];
const SQRT_M1_BYTES: [u8; 32] = [
    0xb0, 0xa0, 0x0e, 0x4a, 0x27, 0x1b, 0xee, 0xc4, 0x78, 0xe4, 0x2f, 0xad, 0x06, 0x18, 0x43, 0x2f,
    0xa7, 0xd7, 0xfb, 0x3d, 0x99, 0x00, 0x4d, 0x2b, 0x0b, 0xdf, 0xc1, 0x4f, 0x80, 0x24, 0x83, 0x2b,
];

/// The curve constants, broadcast to every lane once per work unit.
#[derive(Clone, Copy)]
pub(crate) struct Constants<F> {
    pub d: F,
    pub d2: F,
    pub d_half: F,
    pub sqrt_m1: F,
}

impl<F: LaneField> Constants<F> {
    #[inline(always)]
    pub fn new() -> Self {
        Constants {
            d: F::splat_bytes(&D_BYTES),
            d2: F::splat_bytes(&D2_BYTES),
            d_half: F::splat_bytes(&D_HALF_BYTES),
            sqrt_m1: F::splat_bytes(&SQRT_M1_BYTES),
        }
    }
}

#[derive(Clone, Copy)]
pub(crate) struct Extended<F> {
    pub x: F,
    pub y: F,
    pub z: F,
    pub t: F,
}

#[derive(Clone, Copy)]
pub(crate) struct Projective<F> {
    pub x: F,
    pub y: F,
    pub z: F,
}

/// ((X:Z), (Y:T)) with x = X/Z, y = Y/T: what doubling and addition produce before the
/// final multiplications.
#[derive(Clone, Copy)]
pub(crate) struct Completed<F> {
    pub x: F,
    pub y: F,
    pub z: F,
    pub t: F,
}

/// (Y + X, Y − X, 2Z, 2d·T): the form an addend is kept in (2Z, not Z: the addition
/// reads only 2·Z1·Z2).
#[derive(Clone, Copy)]
pub(crate) struct Cached<F> {
    pub y_plus_x: F,
    pub y_minus_x: F,
    pub z2: F,
    pub t2d: F,
}

/// One lane's cached point, stored in a table.
pub(crate) type CachedLimbs<F> = [<F as LaneField>::Limbs; 4];

/// (y + x, y − x, 2d·x·y) of an affine point (Z = 1): the entries of fixed-base tables.
/// Adding one costs a multiplication less than a cached point, and stores a quarter less.
#[derive(Clone, Copy)]
pub(crate) struct Affine<F> {
    pub y_plus_x: F,
    pub y_minus_x: F,
    pub xy2d: F,
}

/// One lane's affine point, stored in a table.
pub(crate) type AffineLimbs<F> = [<F as LaneField>::Limbs; 3];

/// One lane's affine point in one 64-byte line: y + x and y − x, each canonical in four
/// little-endian u64 (a hot key's table entry). The affine row's third coordinate,
/// 2d·x·y, is not stored: it is (d/2)·(u − v)·(u + v), as u − v = 2x and u + v = 2y,
/// two products more per addition for a row read from one line instead of two or three.
pub(crate) type NarrowRow = [[u64; 4]; 2];

/// The table rows one addition reads, one per lane (negated where asked: signed digits
/// index tables of multiples), as each lane's coordinates: cached points (Y + X, Y − X,
/// 2Z, 2d·T), or affine ones (y + x, y − x, 2d·x·y) whose 2Z is a constant 2 (Z = 1).
/// One form for both, so that an addition compiled out of line can take either without
/// a branch ([`TwoZ::FromRows`]).
pub(crate) struct AddendRows<'r, F: LaneField> {
    y_plus_x: [&'r F::Limbs; MAX_LANES],
    y_minus_x: [&'r F::Limbs; MAX_LANES],
    z2: [&'r F::Limbs; MAX_LANES],
    t2d: [&'r F::Limbs; MAX_LANES],
    affine: bool,
}

/// How an addition forms 2·Z1·Z2.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum TwoZ {
    /// Z1 times each row's 2Z, whatever the rows' form (an affine row's is 2): one code
    /// path for both forms. The double-scalar loop's code is as big as the instruction
    /// cache (see [`Projective::mul_by_16_one_body`]), and a branch on the form, or a
    /// second copy of the addition, measured costlier there than an affine addition's
    /// multiplication by 2.
    FromRows,
    /// Z1 + Z1: affine rows only.
    Doubled,
}

impl<'r, F: LaneField> AddendRows<'r, F> {
    /// Cached rows (a short slice repeats its last row in the spare lanes).
    #[inline(always)]
    pub fn cached(rows: &[&'r CachedLimbs<F>]) -> Self {
        let row = |i: usize| rows[i.min(rows.len() - 1)];
        AddendRows {
            y_plus_x: core::array::from_fn(|i| &row(i)[0]),
            y_minus_x: core::array::from_fn(|i| &row(i)[1]),
            z2: core::array::from_fn(|i| &row(i)[2]),
            t2d: core::array::from_fn(|i| &row(i)[3]),
            affine: false,
        }
    }

    /// Affine rows, with `two` the limbs of 2 (as [`AddendRows::cached`]).
    #[inline(always)]
    pub fn affine(rows: &[&'r AffineLimbs<F>], two: &'r F::Limbs) -> Self {
        let row = |i: usize| rows[i.min(rows.len() - 1)];
        AddendRows {
            y_plus_x: core::array::from_fn(|i| &row(i)[0]),
            y_minus_x: core::array::from_fn(|i| &row(i)[1]),
            z2: [two; MAX_LANES],
            t2d: core::array::from_fn(|i| &row(i)[2]),
            affine: true,
        }
    }

    /// The cheaper [`TwoZ`] for these rows' form (where the form is known at compile
    /// time, the other path is not compiled).
    #[inline(always)]
    pub fn two_z(&self) -> TwoZ {
        if self.affine {
            TwoZ::Doubled
        } else {
            TwoZ::FromRows
        }
    }
}

impl<F: LaneField> Extended<F> {
    #[inline(always)]
    pub fn identity() -> Self {
        Extended {
            x: F::zero(),
            y: F::one(),
            z: F::one(),
            t: F::zero(),
        }
    }

    #[inline(always)]
    pub fn neg(&self) -> Self {
        Extended {
            x: self.x.neg(),
            y: self.y,
            z: self.z,
            t: self.t.neg(),
        }
    }

    #[inline(always)]
    pub fn to_projective(self) -> Projective<F> {
        Projective {
            x: self.x,
            y: self.y,
            z: self.z,
        }
    }

    #[inline(always)]
    pub fn to_cached(self, c: &Constants<F>) -> Cached<F> {
        Cached {
            y_plus_x: self.y.add(&self.x),
            y_minus_x: self.y.sub(&self.x),
            z2: self.z.add(&self.z),
            t2d: self.t.mul(&c.d2),
        }
    }

    /// self + q: 4 multiplications (HWCD "add-2008-hwcd-3").
    #[inline(always)]
    pub fn add(&self, q: &Cached<F>) -> Completed<F> {
        let pp = self.y.add(&self.x).mul(&q.y_plus_x);
        let mm = self.y.sub(&self.x).mul(&q.y_minus_x);
        let tt2d = self.t.mul(&q.t2d);
        let zz2 = self.z.mul(&q.z2);
        Completed {
            x: pp.sub(&mm),
            y: pp.add(&mm),
            z: zz2.add(&tt2d),
            t: zz2.sub(&tt2d),
        }
    }

    /// self ← self + ±q, q lane i's entry in `rows`, negated in the lanes of `negate`,
    /// 2·Z1·Z2 formed as `two_z` says (`Doubled` only for affine rows). T is computed
    /// only `with_t`; without it T is left stale, for a doubling (which reads no T) to
    /// follow.
    #[inline(always)]
    pub fn add_assign(&mut self, rows: &AddendRows<'_, F>, negate: u8, with_t: bool, two_z: TwoZ) {
        debug_assert!(two_z == TwoZ::FromRows || rows.affine);
        let sum = add_signed::<F, false>(self, negate, &RowsAddend { rows, two_z });
        self.assign_completed(&sum, with_t);
    }

    /// self ← `sum` (T only `with_t`).
    #[inline(always)]
    fn assign_completed(&mut self, sum: &Completed<F>, with_t: bool) {
        self.x = sum.x.mul(&sum.t);
        self.y = sum.y.mul(&sum.z);
        self.z = sum.z.mul(&sum.t);
        if with_t {
            self.t = sum.x.mul(&sum.y);
        }
    }

    /// [`Extended::add_assign_affine`] of narrow rows, 2d·x·y formed from y ± x with
    /// `d_half` = d/2 in every lane.
    #[inline(always)]
    pub fn add_assign_narrow(&mut self, rows: &[&NarrowRow], negate: u8, with_t: bool, d_half: &F) {
        let row = |i: usize| rows[i.min(rows.len() - 1)];
        let u_rows: [&[u64; 4]; MAX_LANES] = core::array::from_fn(|i| &row(i)[0]);
        let v_rows: [&[u64; 4]; MAX_LANES] = core::array::from_fn(|i| &row(i)[1]);
        let u = F::from_packed(&u_rows[..F::LANES]);
        let v = F::from_packed(&v_rows[..F::LANES]);
        let sum = add_signed::<F, false>(self, negate, &NarrowAddend { u, v, d_half });
        self.assign_completed(&sum, with_t);
    }

    /// [`Extended::add_assign`] of affine rows, Z1 doubled.
    #[inline(always)]
    pub fn add_assign_affine(&mut self, rows: &[&AffineLimbs<F>], negate: u8, with_t: bool) {
        // Only the rows' coordinates are read: any limbs stand in for the unread 2Z.
        let unread = F::Limbs::default();
        self.add_assign(
            &AddendRows::affine(rows, &unread),
            negate,
            with_t,
            TwoZ::Doubled,
        )
    }

    /// self ← self ± q for an affine q in every lane (negated in the lanes of `negate`),
    /// T computed: the batch equation's bucket step, whose addend is one point broadcast.
    /// Its seven products are [`LaneField::mul_inlined`]: on AVX2 the step ran 14–18 %
    /// faster than with out-of-line products (the buckets' sums, with theirs inlined
    /// too, ran slower; docs/results.md).
    #[inline(always)]
    pub fn add_assign_affine_point(&mut self, q: &Affine<F>, negate: u8) {
        let sum = add_signed::<F, true>(self, negate, q);
        *self = sum.to_extended_with::<true>();
    }

    /// self ← [16]self, reading no T.
    #[inline(always)]
    pub fn mul_by_16_assign(&mut self) {
        *self = self.to_projective().mul_by_16();
    }

    /// As [`Extended::mul_by_16_assign`], in one loop body
    /// ([`Projective::mul_by_16_one_body`]).
    #[inline(always)]
    pub fn mul_by_16_assign_one_body(&mut self) {
        *self = self.to_projective().mul_by_16_one_body();
    }

    /// Lanes where [8]self is the identity, i.e. self has small order.
    #[inline(always)]
    pub fn small_order_mask(&self) -> u8 {
        let mut p = self.to_projective();
        for _ in 0..3 {
            p = p.double().to_projective();
        }
        p.identity_mask()
    }
}

impl<F: LaneField> Projective<F> {
    /// [16]self: four doublings, the first three staying projective (a doubling reads
    /// no T, so only the last computes it, for the addition that follows).
    #[inline(always)]
    pub fn mul_by_16(&self) -> Extended<F> {
        let mut p = *self;
        for _ in 0..3 {
            p = p.double().to_projective();
        }
        p.double().to_extended()
    }

    /// [`Projective::mul_by_16`] as one loop body: four identical projective doublings,
    /// then T from the last one's completed point, the same 13 multiplications. For a
    /// copy compiled out of line, where code size is what matters: the double-scalar
    /// loop's point steps are AVX-512 code the size of the instruction cache, and with
    /// the two bodies of `mul_by_16` the IFMA loop missed it in some binaries' layouts
    /// and ran far slower (docs/results.md). Inlined into the AVX2 loop, the two bodies
    /// measured a little faster.
    #[inline(always)]
    pub fn mul_by_16_one_body(&self) -> Extended<F> {
        let mut p = *self;
        let (mut x, mut y) = (p.x, p.y);
        for _ in 0..4 {
            let c = p.double();
            (x, y) = (c.x, c.y);
            p = c.to_projective();
        }
        let Projective { x: px, y: py, z } = p;
        Extended {
            x: px,
            y: py,
            z,
            t: x.mul(&y),
        }
    }

    /// [2]self: 4 squarings (HWCD "dbl-2008-hwcd").
    #[inline(always)]
    pub fn double(&self) -> Completed<F> {
        let xx = self.x.square();
        let yy = self.y.square();
        let zz = self.z.square();
        let zz2 = zz.add(&zz);
        let x_plus_y_sq = self.x.add(&self.y).square();
        let yy_plus_xx = yy.add(&xx);
        let yy_minus_xx = yy.sub(&xx);
        Completed {
            x: x_plus_y_sq.sub(&yy_plus_xx),
            y: yy_plus_xx,
            z: yy_minus_xx,
            t: zz2.sub(&yy_minus_xx),
        }
    }

    /// Lanes holding the identity (0 : Z : Z).
    #[inline(always)]
    pub fn identity_mask(&self) -> u8 {
        self.x.zero_mask() & self.y.sub(&self.z).zero_mask()
    }
}

impl<F: LaneField> Completed<F> {
    #[inline(always)]
    pub fn to_projective(self) -> Projective<F> {
        Projective {
            x: self.x.mul(&self.t),
            y: self.y.mul(&self.z),
            z: self.z.mul(&self.t),
        }
    }

    #[inline(always)]
    pub fn to_extended(self) -> Extended<F> {
        self.to_extended_with::<false>()
    }

    /// [`Completed::to_extended`], its products [`product`]`::<F, INLINED>`.
    #[inline(always)]
    pub fn to_extended_with<const INLINED: bool>(self) -> Extended<F> {
        Extended {
            x: product::<F, INLINED>(&self.x, &self.t),
            y: product::<F, INLINED>(&self.y, &self.z),
            z: product::<F, INLINED>(&self.z, &self.t),
            t: product::<F, INLINED>(&self.x, &self.y),
        }
    }
}

impl<F: LaneField> Cached<F> {
    #[inline(always)]
    pub fn identity() -> Self {
        Cached {
            y_plus_x: F::one(),
            y_minus_x: F::one(),
            z2: F::one().add(&F::one()),
            t2d: F::zero(),
        }
    }

    /// Lanes holding the identity, cached as (Z, Z, 2Z, 0): X = 0 shows as
    /// Y + X = Y − X, and then Y = Z as 2(Y + X) = 2Z.
    #[inline(always)]
    pub fn identity_mask(&self) -> u8 {
        let x_zero = self.y_plus_x.sub(&self.y_minus_x).zero_mask();
        x_zero & self.y_plus_x.add(&self.y_plus_x).sub(&self.z2).zero_mask()
    }
}

impl<F: LaneField> Affine<F> {
    /// Every lane as a narrow row (y + x and y − x canonical; 2d·x·y dropped).
    #[inline(always)]
    pub fn narrow_lanes(&self) -> [NarrowRow; MAX_LANES] {
        let packed = |f: &F| {
            let mut bytes = [[0u8; 32]; MAX_LANES];
            f.to_bytes(&mut bytes[..F::LANES]);
            bytes.map(|b| {
                core::array::from_fn(|w| u64::from_le_bytes(core::array::from_fn(|k| b[8 * w + k])))
            })
        };
        let (u, v) = (packed(&self.y_plus_x), packed(&self.y_minus_x));
        core::array::from_fn(|lane| [u[lane], v[lane]])
    }

    /// Every lane as stored limbs (each coordinate transposed once).
    #[inline(always)]
    pub fn lanes(&self) -> [AffineLimbs<F>; MAX_LANES] {
        let coords = [self.y_plus_x, self.y_minus_x, self.xy2d].map(|f| f.to_lane_limbs());
        core::array::from_fn(|lane| core::array::from_fn(|k| coords[k][lane]))
    }

    /// The affine form of every point, with one inversion shared by all
    /// ([`batch_invert`]).
    #[inline(always)]
    pub fn all_from_extended(c: &Constants<F>, points: &[Extended<F>]) -> Vec<Self> {
        let z_inv = batch_invert(&points.iter().map(|p| p.z).collect::<Vec<F>>());
        points
            .iter()
            .zip(&z_inv)
            .map(|(p, z_inv)| Affine::from_extended(c, p, z_inv))
            .collect()
    }

    /// The affine form of `p` given 1/Z (the caller inverts many Z at once).
    #[inline(always)]
    pub fn from_extended(c: &Constants<F>, p: &Extended<F>, z_inv: &F) -> Self {
        let x = p.x.mul(z_inv);
        let y = p.y.mul(z_inv);
        Affine {
            y_plus_x: y.add(&x),
            y_minus_x: y.sub(&x),
            xy2d: x.mul(&y).mul(&c.d2),
        }
    }
}

/// The second operand of [`add_signed`], each coordinate formed where the addition
/// reads it, so that few are live at once (an addition is register-bound: a product
/// alone holds 20 accumulators). A trait, not closures: a closure cannot be marked
/// `#[inline(always)]`, and in a build for AVX-512 throughout (the yardstick's) LLVM
/// left the table reads' closures out of line, each coordinate returned through memory.
trait Addend<F: LaneField> {
    fn y_plus_x(&self) -> F;
    fn y_minus_x(&self) -> F;
    fn t2d(&self) -> F;
    /// 2·Z1·Z2, with Z1 = `z1`.
    fn zz2(&self, z1: &F) -> F;
}

/// Table rows, one per lane, 2·Z1·Z2 formed as `two_z` says.
struct RowsAddend<'a, 'r, F: LaneField> {
    rows: &'a AddendRows<'r, F>,
    two_z: TwoZ,
}

impl<F: LaneField> RowsAddend<'_, '_, F> {
    #[inline(always)]
    fn column(refs: &[&F::Limbs; MAX_LANES]) -> F {
        F::from_lane_limbs(&refs[..F::LANES])
    }
}

impl<F: LaneField> Addend<F> for RowsAddend<'_, '_, F> {
    #[inline(always)]
    fn y_plus_x(&self) -> F {
        Self::column(&self.rows.y_plus_x)
    }
    #[inline(always)]
    fn y_minus_x(&self) -> F {
        Self::column(&self.rows.y_minus_x)
    }
    #[inline(always)]
    fn t2d(&self) -> F {
        Self::column(&self.rows.t2d)
    }
    #[inline(always)]
    fn zz2(&self, z1: &F) -> F {
        match self.two_z {
            TwoZ::Doubled => z1.add(z1),
            TwoZ::FromRows => z1.mul(&Self::column(&self.rows.z2)),
        }
    }
}

/// Narrow rows as loaded (y + x, y − x), 2d·x·y = (d/2)·(u − v)·(u + v).
struct NarrowAddend<'a, F> {
    u: F,
    v: F,
    d_half: &'a F,
}

impl<F: LaneField> Addend<F> for NarrowAddend<'_, F> {
    #[inline(always)]
    fn y_plus_x(&self) -> F {
        self.u
    }
    #[inline(always)]
    fn y_minus_x(&self) -> F {
        self.v
    }
    #[inline(always)]
    fn t2d(&self) -> F {
        self.u
            .sub(&self.v)
            .mul(&self.u.add(&self.v))
            .mul(self.d_half)
    }
    #[inline(always)]
    fn zz2(&self, z1: &F) -> F {
        z1.add(z1)
    }
}

impl<F: LaneField> Addend<F> for Affine<F> {
    #[inline(always)]
    fn y_plus_x(&self) -> F {
        self.y_plus_x
    }
    #[inline(always)]
    fn y_minus_x(&self) -> F {
        self.y_minus_x
    }
    #[inline(always)]
    fn t2d(&self) -> F {
        self.xy2d
    }
    #[inline(always)]
    fn zz2(&self, z1: &F) -> F {
        z1.add(z1)
    }
}

/// p ± q (HWCD add-2008-hwcd-3), q's coordinates read one at a time, just before use
/// ([`Addend`]). In the lanes of `negate` q is negated on p's side instead of q's:
/// −q = (Y−X, Y+X, 2Z, −2dT) swaps the two products, so p's Y+X and Y−X trade places,
/// and flips the sign of T·2dT, so the completed Z and T trade places.
#[inline(always)]
fn add_signed<F: LaneField, const INLINED: bool>(
    p: &Extended<F>,
    negate: u8,
    q: &impl Addend<F>,
) -> Completed<F> {
    let (p_sum, p_dif) = (p.y.add(&p.x), p.y.sub(&p.x));
    // Where q is negated, `a` is p's Y−X times −q's and `b` p's Y+X times −q's.
    let a = product::<F, INLINED>(&F::select(negate, &p_dif, &p_sum), &q.y_plus_x());
    let b = product::<F, INLINED>(&F::select(negate, &p_sum, &p_dif), &q.y_minus_x());
    let tt2d = product::<F, INLINED>(&p.t, &q.t2d());
    let zz2 = q.zz2(&p.z);
    let (plus, minus) = (zz2.add(&tt2d), zz2.sub(&tt2d));
    let (a_minus_b, b_minus_a) = (a.sub(&b), b.sub(&a));
    Completed {
        x: F::select(negate, &b_minus_a, &a_minus_b),
        y: a.add(&b),
        z: F::select(negate, &minus, &plus),
        t: F::select(negate, &plus, &minus),
    }
}

/// a·b, [`LaneField::mul_inlined`] where `INLINED` (the batch equation's bucket step:
/// out of line, each AVX2 product returns 320 bytes through memory) and
/// [`LaneField::mul`] elsewhere.
#[inline(always)]
fn product<F: LaneField, const INLINED: bool>(a: &F, b: &F) -> F {
    if INLINED {
        a.mul_inlined(b)
    } else {
        a.mul(b)
    }
}

/// `N` independent elements, run through one exponentiation step by step together
/// ([`LaneField::pow2k_each`]).
#[inline(always)]
fn squares<F: LaneField, const N: usize>(x: &[F; N], k: u32) -> [F; N] {
    F::pow2k_each(x, k)
}

#[inline(always)]
fn products<F: LaneField, const N: usize>(a: &[F; N], b: &[F; N]) -> [F; N] {
    F::mul_each(a, b)
}

/// x^(2^250 − 1) and x^11 of each element, the shared start of inversion and square
/// root (ref10's chain).
#[inline(always)]
fn pow22501<F: LaneField, const N: usize>(x: &[F; N]) -> ([F; N], [F; N]) {
    let t0 = squares(x, 1);
    let t1 = squares(&t0, 2);
    let t2 = products(x, &t1);
    let t3 = products(&t0, &t2);
    let t4 = squares(&t3, 1);
    let t5 = products(&t2, &t4);
    let t7 = products(&squares(&t5, 5), &t5);
    let t9 = products(&squares(&t7, 10), &t7);
    let t11 = products(&squares(&t9, 20), &t9);
    let t13 = products(&squares(&t11, 10), &t7);
    let t15 = products(&squares(&t13, 50), &t13);
    let t17 = products(&squares(&t15, 100), &t15);
    let t19 = products(&squares(&t17, 50), &t13);
    (t19, t3)
}

/// x^(p − 2) = 1/x (0 for 0).
#[inline(always)]
pub(crate) fn invert<F: LaneField>(x: &F) -> F {
    let ([t19], [t3]) = pow22501(&[*x]);
    t19.pow2k(5).mul(&t3)
}

/// For each (u, v): (was u/v a square, the non-negative root r of r² = u/v), as
/// curve25519-dalek's `sqrt_ratio_i` (with r = 0 when u = 0).
#[inline(always)]
fn sqrt_ratio_i<F: LaneField, const N: usize>(
    c: &Constants<F>,
    u: &[F; N],
    v: &[F; N],
) -> [(u8, F); N] {
    // Loops, not `core::array::from_fn`: a closure that LLVM leaves out of line is
    // compiled without the kernel's target features, and its field operations become
    // calls (`lane_field_shims!`).
    let (mut v3, mut uv7) = ([F::zero(); N], [F::zero(); N]);
    for i in 0..N {
        v3[i] = v[i].square().mul(&v[i]);
        uv7[i] = u[i].mul(&v3[i].square().mul(&v[i]));
    }
    let (t19, _) = pow22501(&uv7);
    let t = squares(&t19, 2);
    let mut out = [(0u8, F::zero()); N];
    for (i, out) in out.iter_mut().enumerate() {
        let (u, v) = (&u[i], &v[i]);
        let r = u.mul(&v3[i]).mul(&t[i].mul(&uv7[i])); // (u·v³)(u·v⁷)^((p−5)/8)
        let check = v.mul(&r.square());
        let neg_u = u.neg();
        let correct = check.sub(u).zero_mask();
        let flipped = check.sub(&neg_u).zero_mask();
        let flipped_i = check.sub(&neg_u.mul(&c.sqrt_m1)).zero_mask();
        let r = F::select(flipped | flipped_i, &r.mul(&c.sqrt_m1), &r);
        let r = F::select(r.odd_mask(), &r.neg(), &r);
        *out = (correct | flipped, r);
    }
    out
}

/// Decode each lane's encoding exactly as curve25519-dalek's `decompress` does: y from
/// the low 255 bits (y ≥ p reduces), x the non-negative root of (y² − 1)/(d·y² + 1)
/// negated when the sign bit is set (so x = 0 with the sign bit set decodes). Returns
/// the points and the mask of lanes that decoded; other lanes hold garbage.
#[inline(always)]
pub(crate) fn decompress<F: LaneField>(
    c: &Constants<F>,
    encodings: &[[u8; 32]],
) -> (Extended<F>, u8) {
    let [decoded] = decompress_many::<F, 1>(c, encodings);
    decoded
}

/// As [`decompress`] for `N` vectors of encodings at once (`encodings` holds
/// `N·F::LANES`, vector i taking the i-th run of `F::LANES`), their square roots
/// interleaved.
#[inline(always)]
pub(crate) fn decompress_many<F: LaneField, const N: usize>(
    c: &Constants<F>,
    encodings: &[[u8; 32]],
) -> [(Extended<F>, u8); N] {
    let encodings: [&[[u8; 32]]; N] =
        core::array::from_fn(|i| &encodings[i * F::LANES..(i + 1) * F::LANES]);
    // Loops, as in `sqrt_ratio_i`.
    let (mut y, mut u, mut v) = ([F::zero(); N], [F::zero(); N], [F::zero(); N]);
    for i in 0..N {
        y[i] = F::from_bytes(encodings[i]);
        let yy = y[i].square();
        u[i] = yy.sub(&F::one());
        v[i] = yy.mul(&c.d).add(&F::one());
    }
    let roots = sqrt_ratio_i(c, &u, &v);
    let mut out = [(Extended::identity(), 0u8); N];
    for (i, out) in out.iter_mut().enumerate() {
        let (ok, x) = roots[i];
        let sign = super::super::field::lane_mask::<F>(|l| encodings[i][l][31] >> 7 == 1);
        let x = F::select(sign, &x.neg(), &x);
        let t = x.mul(&y[i]);
        *out = (
            Extended {
                x,
                y: y[i],
                z: F::one(),
                t,
            },
            ok,
        );
    }
    out
}

/// Each lane's canonical encoding: y with the sign of x in bit 255.
#[cfg(test)]
pub(crate) fn compress<F: LaneField>(p: &Extended<F>, out: &mut [[u8; 32]]) {
    compress_with_inverse(p, &invert(&p.z), out)
}

/// 1/x for every x (none zero) with one inversion (Montgomery's trick): three
/// multiplications per element instead of an inversion (~254 squarings) each.
#[inline(always)]
pub(crate) fn batch_invert<F: LaneField>(xs: &[F]) -> Vec<F> {
    let mut prefix = Vec::with_capacity(xs.len());
    let mut acc = F::one();
    for x in xs {
        prefix.push(acc);
        acc = acc.mul(x);
    }
    let mut inv = invert(&acc);
    let mut out = vec![F::zero(); xs.len()];
    for i in (0..xs.len()).rev() {
        out[i] = inv.mul(&prefix[i]);
        inv = inv.mul(&xs[i]);
    }
    out
}

/// As `compress`, given each lane's 1/Z (the caller inverts many at once).
#[inline(always)]
pub(crate) fn compress_with_inverse<F: LaneField>(p: &Extended<F>, zinv: &F, out: &mut [[u8; 32]]) {
    let x = p.x.mul(zinv);
    let y = p.y.mul(zinv);
    y.to_bytes(out);
    let odd = x.odd_mask();
    for (lane, bytes) in out.iter_mut().enumerate().take(F::LANES) {
        bytes[31] |= (odd >> lane & 1) << 7;
    }
}
