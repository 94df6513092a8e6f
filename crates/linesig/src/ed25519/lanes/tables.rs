//! The per-unit path's tables: each key's multiples 0..8 of −A ([`Table`]), and the
//! static affine tables of the base point's multiples in the backend's radix
//! ([`BaseRadix`], [`BaseTables`]).

use super::point::{decompress, Affine, AffineLimbs, Cached, CachedLimbs, Constants, Extended};
use super::scalar::{lane_digits, LaneDigits};
use crate::ed25519::field::{LaneField, MAX_LANES};
use curve25519_dalek::constants::{ED25519_BASEPOINT_COMPRESSED, ED25519_BASEPOINT_POINT};
use curve25519_dalek::Scalar;

/// Multiples 0..8 of one lane's point (entry 0 is the identity). A table of −8..8
/// would spare the loop its negations, but building and storing twice the entries
/// measured no faster (docs/results.md).
pub(super) type Table<F> = [CachedLimbs<F>; 9];

/// The radix of the base point's digits on the per-unit path, a backend's choice: every
/// digit costs one affine addition from a static table of its multiples 0..2^(w−1), and
/// lands on a radix-16 window (w a multiple of 4). Radix 2^12 (22 digits) costs 10
/// additions fewer per signature than radix 2^8 (32), for tables of 2,049 entries
/// instead of 129: 246 KB each with IFMA's 40-byte elements, within L2 (faster end to
/// end), but 492 KB each with AVX2's 80-byte ones, which with the key tables outgrow a
/// 1 MB L2 (slower; docs/results.md, the 2026-11-26 Zen 4 entry).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum BaseRadix {
    Bits8,
    Bits12,
}

impl BaseRadix {
    pub(super) fn window(self) -> u32 {
        match self {
            BaseRadix::Bits8 => 8,
            BaseRadix::Bits12 => 12,
        }
    }

    /// Digits of a scalar below 2^255.
    pub(super) fn digits(self) -> usize {
        255usize.div_ceil(self.window() as usize)
    }

    /// Radix-16 windows from one digit to the next.
    pub(super) fn stride(self) -> usize {
        self.window() as usize / 4
    }

    /// n, the digits read from B's table when e's are split over B and [2^(w·n)]B (16
    /// of 8 bits, 11 of 12).
    pub(super) fn low_digits(self) -> usize {
        self.digits().div_ceil(2)
    }

    /// Signed digits of `scalar(job)` in each lane, window-major, as [`lane_digits`]
    /// (rows past `digits()` zero).
    #[inline(always)]
    pub(super) fn lane_digits<F: LaneField, J>(
        self,
        chunk: &[J],
        scalar: impl Fn(&J) -> &[u8; 32],
    ) -> LaneDigits<32> {
        match self {
            BaseRadix::Bits8 => lane_digits::<F, 8, 32, _>(chunk, scalar),
            BaseRadix::Bits12 => {
                let mut out = [[0; MAX_LANES]; 32];
                out[..22].copy_from_slice(&lane_digits::<F, 12, 22, _>(chunk, scalar));
                out
            }
        }
    }
}

/// Multiples 0..2^(w−1) of a base point, affine (Z = 1: an addition costs one
/// multiplication less): signed radix-2^w digits index it.
pub(super) type BaseTable<F> = Box<[AffineLimbs<F>]>;

/// The static tables of the per-unit path: multiples of B and of [2^(w·n)]B in radix
/// 2^w, for the low and high n digits of a scalar's 2n (`HalfSize`'s e; `FullSize`
/// reads only B's, all its digits).
pub(crate) struct BaseTables<F: LaneField> {
    pub(super) radix: BaseRadix,
    pub(super) b: BaseTable<F>,
    pub(super) b_high: BaseTable<F>,
    /// The limbs of 2: an affine entry's 2Z.
    pub(super) two: F::Limbs,
}

/// Multiples 0..8 of each of `N` points in every lane, in cached form, stored as they
/// are made: lane i of point v fills `tables[v·F::LANES + i]` (`tables` holds at least
/// `N·F::LANES`). Returns, for each point, the lanes whose multiple 8 is the identity
/// (the point has small order).
///
/// A chain of additions for each point, the `N` chains stepping together: a chain
/// alone waits on each addition's latency, and stepping several together each
/// addition's work fills the others' waits (a tree of doublings and additions, no
/// multiple more than three steps from P, measured slower than the chain). Each entry
/// goes to its rows at once rather than after the chain: the `N` points' nine entries,
/// 11.5 KB a point on IFMA, held and returned, were copied about for as long as
/// interleaving saved (docs/results.md).
#[inline(always)]
pub(super) fn tabulate_multiples<F: LaneField, const N: usize>(
    c: &Constants<F>,
    p: &[Extended<F>; N],
    tables: &mut [Table<F>],
) -> [u8; N] {
    let block = |v: usize| v * F::LANES..(v + 1) * F::LANES;
    let identity = Cached::<F>::identity();
    // Loops, not closures, around field operations (see `point::sqrt_ratio_i`).
    let mut p_cached = [identity; N];
    for (p_cached, p) in p_cached.iter_mut().zip(p) {
        *p_cached = p.to_cached(c);
    }
    for (v, p) in p_cached.iter().enumerate() {
        store_entry(&identity, 0, &mut tables[block(v)]);
        store_entry(p, 1, &mut tables[block(v)]);
    }
    let mut acc = *p;
    let mut eights = [0u8; N];
    for j in 2..9 {
        for v in 0..N {
            acc[v] = acc[v].add(&p_cached[v]).to_extended();
            let entry = acc[v].to_cached(c);
            store_entry(&entry, j, &mut tables[block(v)]);
            if j == 8 {
                eights[v] = entry.identity_mask();
            }
        }
    }
    eights
}

/// Lane i's row j of `entry` into `tables[i]`, for every lane.
#[inline(always)]
fn store_entry<F: LaneField>(entry: &Cached<F>, j: usize, tables: &mut [Table<F>]) {
    let coordinates = [entry.y_plus_x, entry.y_minus_x, entry.z2, entry.t2d];
    for (k, coordinate) in coordinates.iter().enumerate() {
        let rows = tables.iter_mut().enumerate();
        coordinate.store_lane_limbs(rows.map(|(lane, table)| (lane, &mut table[j][k])));
    }
}

/// The multiples 0..=`top` of the point encoded as `encoding` in `F`'s limb format.
#[inline(always)]
pub(super) fn affine_multiples<F: LaneField>(
    c: &Constants<F>,
    encoding: [u8; 32],
    top: usize,
) -> BaseTable<F> {
    let (b, _) = decompress(c, &[encoding; MAX_LANES][..F::LANES]);
    let b_cached = b.to_cached(c);
    let mut points = Vec::with_capacity(top + 1);
    points.extend([Extended::identity(), b]);
    while points.len() <= top {
        let next = points[points.len() - 1].add(&b_cached).to_extended();
        points.push(next);
    }
    Affine::all_from_extended(c, &points)
        .iter()
        .map(|a| a.lanes()[0])
        .collect()
}

/// The per-unit path's tables of B and [2^(w·n)]B in `radix`; a backend builds them
/// once and keeps them in a static.
#[inline(always)]
pub(super) fn base_tables<F: LaneField>(c: &Constants<F>, radix: BaseRadix) -> BaseTables<F> {
    // e's high digits start at bit w·n.
    let high = radix.window() as usize * radix.low_digits();
    let mut two_high = [0u8; 32];
    two_high[high / 8] = 1 << (high % 8);
    let b_high = ED25519_BASEPOINT_POINT * Scalar::from_bytes_mod_order(two_high);
    let top = 1 << (radix.window() - 1);
    BaseTables {
        radix,
        b: affine_multiples(c, ED25519_BASEPOINT_COMPRESSED.to_bytes(), top),
        b_high: affine_multiples(c, b_high.compress().to_bytes(), top),
        two: F::one().add(&F::one()).lane_limbs(0),
    }
}
