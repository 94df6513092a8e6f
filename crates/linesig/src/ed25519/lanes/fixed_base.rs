//! Fixed-base scalar multiplication for hot keys (docs/design.md §4, "Hot keys"): with every
//! [d·2^(w·j)]P tabulated (positions j, signed digits d), [x]P = Σ_j table_j[x_j] costs
//! one mixed addition per digit and no doublings at all. A hot key's table for −A and
//! the base point's table for B turn [S]B − [k]A into 43 + 32 additions, against 252
//! doublings and 96 additions on the per-unit path.
//!
//! Sizes (chosen by measurement, docs/results.md "Hot keys" and "Hot-key tables in one
//! line a row"): a key's table has radix-2^6 digits, 43 positions of the multiples
//! 0..=32 (1,419 entries of 64 bytes, 91 KB), so one signature reads 43 cache lines of
//! it. Its rows are narrow ([`NarrowRow`]: y ± x only, 2d·x·y recomputed at two
//! products an addition), one line each, because a full cache outgrows L3 and a hit
//! costs what its lines cost to bring in: with wide rows (two or three lines each,
//! radix 2^5, 104 KB) a cache of 600 keys ran at 0.55× the speed of one of 16; with
//! narrow ones, about 0.9×. The base point's table, one per backend for all keys and
//! within L2, keeps wide rows: radix-2^8 digits, 32 positions of 0..=128 (4,128
//! entries, 495 KB).
//!
//! Entries are affine (Z = 1, normalised with one shared inversion per table), which
//! saves a multiplication per addition and a quarter of the memory over cached points.
//! Tables live in huge-page-backed memory (`table_pool`): a full cache outgrows L3, and
//! its rows are read at random.

use super::ladder::{entries as table_entries, finish, Ladder, LadderSteps};
use super::point::{decompress, Affine, AffineLimbs, Constants, Extended, NarrowRow};
use super::prefetch::prefetch;
use super::scalar::{lane_digits, LaneDigits};
use super::{decode_keys, prepare_jobs, Job};
use crate::ed25519::field::{lanes_in, LaneField, MAX_LANES};
use crate::ed25519::policy::Rules;
use crate::ed25519::sha512::LaneWords;
use crate::ed25519::{precheck_key, UnitEntry};
use crate::key_cache::{KeyCache, Lookup, Table};
use crate::table_pool::PooledSlice;
use crate::verdict::Verdict;
use curve25519_dalek::constants::ED25519_BASEPOINT_COMPRESSED;
use std::ops::Range;
use std::sync::Arc;

/// A key's table: radix 2^6, 43 positions (258 bits; k < 2^253 keeps the top digit
/// within 0..=32). Against radix 2^5 (51 positions of 0..=16) a signature reads 8 rows
/// fewer from a table 1.6 times the size; with narrow rows, whose additions cost two
/// products more, the fewer additions kept `hot:16` level.
const KEY_WINDOW: u32 = 6;
const KEY_POSITIONS: usize = 43;
/// The base point's table: radix 2^8, 32 positions.
const BASE_WINDOW: u32 = 8;
const BASE_POSITIONS: usize = 32;

/// One lane's [d·2^(w·j)]P for positions j and digits d ∈ 0..=2^(w−1) (d = 0: the
/// identity), position-major, in rows of type `R`.
struct Positions<R: Copy> {
    rows: PooledSlice<R>,
    per_position: usize,
}

impl<R: Copy> Positions<R> {
    fn position(&self, j: usize) -> &[R] {
        &self.rows[j * self.per_position..(j + 1) * self.per_position]
    }
}

/// The base point's table: wide affine rows (it stays in L2, where a row's extra lines
/// cost less than the two products a narrow row's addition adds).
pub(crate) struct FixedBaseTable<F: LaneField>(Positions<AffineLimbs<F>>);

impl<F: LaneField> FixedBaseTable<F> {
    fn position(&self, j: usize) -> &[AffineLimbs<F>] {
        self.0.position(j)
    }
}

/// A hot key's table of −A: narrow rows ([`NarrowRow`], one cache line each). A full
/// cache outgrows L3 and a signature reads 43 rows of its key's table at random, so what
/// a hit costs is mostly lines brought in: a wide row spans two or three.
pub(crate) struct KeyTable<F: LaneField> {
    rows: Positions<NarrowRow>,
    /// −A itself, affine: what the batch equation takes instead of decoding the key.
    point: AffineLimbs<F>,
}

impl<F: LaneField> KeyTable<F> {
    pub(crate) fn point(&self) -> &AffineLimbs<F> {
        &self.point
    }
}

/// Bytes of one key's table: what the key cache charges per key.
pub(crate) fn key_table_bytes<F: LaneField>() -> usize {
    KEY_POSITIONS * ((1 << (KEY_WINDOW - 1)) + 1) * size_of::<NarrowRow>()
        + size_of::<KeyTable<F>>()
}

/// The multiples [d·2^(w·j)]p in radix 2^window over `positions` (d = 0, the identity,
/// first in each position), affine. Every Z is nonzero (the addition law is complete), so
/// all invert.
#[inline(always)]
fn affine_multiples<F: LaneField>(
    c: &Constants<F>,
    p: &Extended<F>,
    window: u32,
    positions: usize,
) -> Vec<Affine<F>> {
    let half = 1usize << (window - 1);
    let mut points = Vec::with_capacity(positions * half);
    let mut base = *p;
    for _ in 0..positions {
        push_multiples(c, &base, half, &mut points);
        // [2^(w−1)]base doubled is the next position's base, [2^w]base.
        base = points[points.len() - 1]
            .to_projective()
            .double()
            .to_extended();
    }
    let identity = Affine {
        y_plus_x: F::one(),
        y_minus_x: F::one(),
        xy2d: F::zero(),
    };
    let mut out = Vec::with_capacity(positions * (half + 1));
    for (n, a) in Affine::all_from_extended(c, &points)
        .into_iter()
        .enumerate()
    {
        if n % half == 0 {
            out.push(identity);
        }
        out.push(a);
    }
    out
}

/// Push the multiples 1..=`count` of `base`.
#[inline(always)]
fn push_multiples<F: LaneField>(
    c: &Constants<F>,
    base: &Extended<F>,
    count: usize,
    out: &mut Vec<Extended<F>>,
) {
    let addend = base.to_cached(c);
    let mut m = *base;
    out.push(m);
    for _ in 1..count {
        m = m.add(&addend).to_extended();
        out.push(m);
    }
}

/// Each lane in `keep`'s (in lane order) table of `multiples` ([`affine_multiples`]),
/// its rows `lane_rows` of each.
#[inline(always)]
fn tables_of<F: LaneField, R: Copy>(
    multiples: &[Affine<F>],
    per_position: usize,
    keep: u8,
    lane_rows: impl Fn(&Affine<F>) -> [R; MAX_LANES],
) -> Vec<Positions<R>> {
    let lanes: Vec<usize> = lanes_in::<F>(keep).collect();
    let mut rows: Vec<Vec<R>> = lanes
        .iter()
        .map(|_| Vec::with_capacity(multiples.len()))
        .collect();
    for m in multiples {
        let all = lane_rows(m);
        for (r, &lane) in rows.iter_mut().zip(&lanes) {
            r.push(all[lane]);
        }
    }
    rows.into_iter()
        .map(|r| Positions {
            rows: PooledSlice::copy_of(&r),
            per_position,
        })
        .collect()
}

/// The key tables of −A for each lane in `keep` (in lane order): keys across the lanes
/// where enough of them fill a vector, else one key at a time with its positions across
/// the lanes ([`key_table_across_positions`]). A build across keys costs the same for one
/// key as for `F::LANES`; across positions, ~4 times less for one key on IFMA (six
/// vectors of positions, 252 doublings for their bases), so it wins below half a vector
/// of keys.
#[inline(always)]
fn key_tables<F: LaneField>(c: &Constants<F>, minus_a: &Extended<F>, keep: u8) -> Vec<KeyTable<F>> {
    if (keep.count_ones() as usize) < F::LANES / 2 {
        lanes_in::<F>(keep)
            .map(|lane| key_table_across_positions(c, minus_a, lane))
            .collect()
    } else {
        key_tables_across_keys(c, minus_a, keep)
    }
}

/// Lane `lane`'s key table, its positions j = v·LANES + l (lane l of the v-th vector) built
/// side by side: the bases [2^(w·j)](−A) one after another (w doublings each, every lane
/// alike), then each vector of bases through its multiples 1..=2^(w−1) at once, one
/// shared inversion for all.
#[inline(always)]
fn key_table_across_positions<F: LaneField>(
    c: &Constants<F>,
    minus_a: &Extended<F>,
    lane: usize,
) -> KeyTable<F> {
    let half = 1usize << (KEY_WINDOW - 1);
    let splat = |f: &F| F::splat_limbs(&f.lane_limbs(lane));
    let mut base = Extended {
        x: splat(&minus_a.x),
        y: splat(&minus_a.y),
        z: splat(&minus_a.z),
        t: splat(&minus_a.t),
    };
    let mut bases: Vec<[F::Limbs; 4]> = Vec::with_capacity(KEY_POSITIONS);
    for j in 0..KEY_POSITIONS {
        bases.push([base.x, base.y, base.z, base.t].map(|f| f.lane_limbs(0)));
        if j + 1 < KEY_POSITIONS {
            let mut p = base.to_projective();
            for _ in 1..KEY_WINDOW {
                p = p.double().to_projective();
            }
            base = p.double().to_extended();
        }
    }
    let vectors = KEY_POSITIONS.div_ceil(F::LANES);
    let mut points = Vec::with_capacity(vectors * half);
    for v in 0..vectors {
        // Lanes past the last position repeat it (their rows are dropped).
        let coordinate = |k: usize| {
            let rows: [&F::Limbs; MAX_LANES] =
                core::array::from_fn(|l| &bases[(v * F::LANES + l).min(KEY_POSITIONS - 1)][k]);
            F::from_lane_limbs(&rows[..F::LANES])
        };
        let b = Extended {
            x: coordinate(0),
            y: coordinate(1),
            z: coordinate(2),
            t: coordinate(3),
        };
        push_multiples(c, &b, half, &mut points);
    }
    let affine = Affine::all_from_extended(c, &points);
    let narrow: Vec<[NarrowRow; MAX_LANES]> = affine.iter().map(Affine::narrow_lanes).collect();
    let identity: NarrowRow = [[1, 0, 0, 0], [1, 0, 0, 0]];
    let mut rows = Vec::with_capacity(KEY_POSITIONS * (half + 1));
    for j in 0..KEY_POSITIONS {
        let (v, l) = (j / F::LANES, j % F::LANES);
        rows.push(identity);
        rows.extend((0..half).map(|d| narrow[v * half + d][l]));
    }
    KeyTable {
        rows: Positions {
            rows: PooledSlice::copy_of(&rows),
            per_position: half + 1,
        },
        point: affine[0].lanes()[0],
    }
}

/// The key tables of −A for each lane in `keep` (in lane order), the keys across the
/// lanes.
#[inline(always)]
fn key_tables_across_keys<F: LaneField>(
    c: &Constants<F>,
    minus_a: &Extended<F>,
    keep: u8,
) -> Vec<KeyTable<F>> {
    let multiples = affine_multiples(c, minus_a, KEY_WINDOW, KEY_POSITIONS);
    let per_position = (1 << (KEY_WINDOW - 1)) + 1;
    let points = multiples[1].lanes();
    let lanes = lanes_in::<F>(keep);
    tables_of(&multiples, per_position, keep, Affine::narrow_lanes)
        .into_iter()
        .zip(lanes)
        .map(|(rows, lane)| KeyTable {
            rows,
            point: points[lane],
        })
        .collect()
}

/// The base point's table in `F`'s limb format; a backend builds it once.
#[inline(always)]
pub(crate) fn basepoint_table<F: LaneField>() -> FixedBaseTable<F> {
    let c = Constants::<F>::new();
    let (b, _) = decompress(
        &c,
        &[ED25519_BASEPOINT_COMPRESSED.to_bytes(); MAX_LANES][..F::LANES],
    );
    let multiples = affine_multiples(&c, &b, BASE_WINDOW, BASE_POSITIONS);
    let per_position = (1 << (BASE_WINDOW - 1)) + 1;
    let table = tables_of(&multiples, per_position, 1, Affine::lanes)
        .pop()
        .unwrap_or_else(|| unreachable!("lane 0 is kept"));
    FixedBaseTable(table)
}

/// Verify the groups (ranges of `entries` sharing a key) whose key is hot — cached, or
/// admitted to the cache now, its table built here — on fixed-base tables, and return
/// the others for the backend's ordinary path. A key that fails its byte checks,
/// decoding or the small-order rule is never tabulated: it goes back with the others,
/// whose path rejects it with its reason, so the cache changes no verdict.
#[inline(always)]
pub(crate) fn verify_hot_groups<F: LaneField + 'static, W: LaneWords>(
    ladder: Ladder<'_, impl LadderSteps<F>, FixedBaseTable<F>>,
    rules: Rules,
    lanes: usize,
    cache: &KeyCache,
    entries: &[UnitEntry<'_>],
    groups: Vec<Range<usize>>,
    out: &mut [Verdict],
) -> Vec<Range<usize>> {
    let c = Constants::<F>::new();
    let mut cold = Vec::with_capacity(groups.len());
    let mut tables: Vec<Table> = Vec::new();
    let mut hot: Vec<(Range<usize>, u32)> = Vec::new();
    let mut to_build: Vec<Range<usize>> = Vec::new();
    for range in groups {
        let key = entries[range.start].public_key;
        if precheck_key(rules, key).is_err() {
            cold.push(range);
            continue;
        }
        match cache.lookup(key, range.len()) {
            Lookup::Hit(table) if table.is::<KeyTable<F>>() => {
                hot.push((range, tables.len() as u32));
                tables.push(table);
            }
            Lookup::Admit => to_build.push(range),
            Lookup::Hit(_) | Lookup::Miss => cold.push(range),
        }
    }

    // Admitted keys: decode `LANES` at a time, tabulate those that pass.
    for chunk in to_build.chunks(F::LANES) {
        let [keys] = decode_keys::<F, 1>(&c, entries, chunk);
        let small = if rules.reject_small_order {
            keys.minus_a.small_order_mask()
        } else {
            0
        };
        let keep = keys.live & !small;
        let mut built = key_tables(&c, &keys.minus_a, keep).into_iter();
        for (lane, range) in chunk.iter().enumerate() {
            if keep >> lane & 1 == 0 {
                cold.push(range.clone());
                continue;
            }
            let table: Table = Arc::new(
                built
                    .next()
                    .unwrap_or_else(|| unreachable!("one table per kept lane")),
            );
            cache.insert(entries[range.start].public_key, Arc::clone(&table));
            hot.push((range.clone(), tables.len() as u32));
            tables.push(table);
        }
    }

    let tables: Vec<&KeyTable<F>> = tables
        .iter()
        .map(|t| {
            t.downcast_ref()
                .unwrap_or_else(|| unreachable!("checked on lookup"))
        })
        .collect();
    let jobs = prepare_jobs::<W>(rules, entries, &hot, out);
    let chunks: Vec<&[Job]> = jobs.chunks(lanes.clamp(1, F::LANES)).collect();
    let sums = sum_chunks(ladder, &c, &tables, &chunks);
    finish(rules, &c, &sums, &chunks, out);
    cold
}

/// One chunk's digits and key tables, known before any of its additions.
struct ChunkRows<'t, F: LaneField> {
    k_digits: LaneDigits<KEY_POSITIONS>,
    s_digits: LaneDigits<BASE_POSITIONS>,
    key_tables: [&'t KeyTable<F>; MAX_LANES],
}

impl<'t, F: LaneField> ChunkRows<'t, F> {
    #[inline(always)]
    fn new(tables: &[&'t KeyTable<F>], chunk: &[Job]) -> Self {
        let job = |lane: usize| &chunk[lane.min(chunk.len() - 1)];
        ChunkRows {
            k_digits: lane_digits::<F, KEY_WINDOW, KEY_POSITIONS, _>(chunk, |j| &j.k),
            s_digits: lane_digits::<F, BASE_WINDOW, BASE_POSITIONS, _>(chunk, |j| &j.s),
            key_tables: core::array::from_fn(|i| tables[job(i).table as usize]),
        }
    }

    /// Lane i's row of its key's table at position j.
    #[inline(always)]
    fn key_row(&self, i: usize, j: usize) -> &'t NarrowRow {
        &self.key_tables[i].rows.position(j)[self.k_digits[j][i].unsigned_abs() as usize]
    }
}

/// [S]B + [k](−A) for each chunk of up to `F::LANES` jobs whose keys have tables: 43 +
/// 32 additions a chunk. Key rows are read at random from tables bigger than L2, so each
/// is prefetched `PREFETCH_AHEAD` additions before it is read — the next chunk's first
/// rows during this chunk's additions of B, so that no chunk starts on rows in flight.
#[inline(always)]
fn sum_chunks<F: LaneField>(
    ladder: Ladder<'_, impl LadderSteps<F>, FixedBaseTable<F>>,
    c: &Constants<F>,
    tables: &[&KeyTable<F>],
    chunks: &[&[Job]],
) -> Vec<Extended<F>> {
    let Ladder {
        steps,
        base: basepoint,
    } = ladder;
    let plans: Vec<ChunkRows<'_, F>> = chunks
        .iter()
        .map(|chunk| ChunkRows::new(tables, chunk))
        .collect();
    let base_row = |r: &ChunkRows<'_, F>, i: usize, j: usize| {
        &basepoint.position(j)[r.s_digits[j][i].unsigned_abs() as usize]
    };
    if let Some(first) = plans.first() {
        for j in 0..PREFETCH_AHEAD {
            (0..F::LANES).for_each(|i| prefetch(first.key_row(i, j)));
        }
    }
    let mut sums = Vec::with_capacity(plans.len());
    for (n, r) in plans.iter().enumerate() {
        let next = plans.get(n + 1);
        let mut acc = Extended::<F>::identity();
        for j in 0..KEY_POSITIONS {
            let ahead = j + PREFETCH_AHEAD;
            (0..F::LANES).for_each(|i| match ahead.checked_sub(KEY_POSITIONS) {
                None => prefetch(r.key_row(i, ahead)),
                Some(b) => prefetch(base_row(r, i, b)),
            });
            let (rows, negate) = table_entries::<F, _, KEY_POSITIONS>(&r.k_digits, j, |i| {
                r.key_tables[i].rows.position(j)
            });
            steps.add_narrow(&mut acc, &rows[..F::LANES], negate, true, &c.d_half);
        }
        for j in 0..BASE_POSITIONS {
            let ahead = j + PREFETCH_AHEAD;
            match (ahead.checked_sub(BASE_POSITIONS), next) {
                (None, _) => (0..F::LANES).for_each(|i| prefetch(base_row(r, i, ahead))),
                (Some(k), Some(next)) => (0..F::LANES).for_each(|i| prefetch(next.key_row(i, k))),
                _ => {}
            }
            let (rows, negate) =
                table_entries::<F, _, BASE_POSITIONS>(&r.s_digits, j, |_| basepoint.position(j));
            steps.add_affine(&mut acc, &rows[..F::LANES], negate, true);
        }
        sums.push(acc);
    }
    sums
}

/// How many additions ahead rows are prefetched.
const PREFETCH_AHEAD: usize = 4;

#[cfg(test)]
mod tests {
    use super::super::super::field::portable::Fe1;
    use super::super::scalar;
    use super::*;
    use curve25519_dalek::{EdwardsPoint, Scalar};
    use rand::{RngCore, SeedableRng};

    /// [x]P from a table equals curve25519-dalek's, for random scalars below 2^253 and
    /// the extremes, on the portable field (the generic code is the same on every one).
    #[test]
    fn table_sums_match_dalek() {
        let c = Constants::<Fe1>::new();
        let mut rng = rand_chacha::ChaCha20Rng::seed_from_u64(5);
        let p_point = EdwardsPoint::mul_base(&Scalar::from(987_654_321u64));
        let (p, ok) = decompress(&c, &[p_point.compress().to_bytes()]);
        assert_eq!(ok, 1);
        let table = key_tables(&c, &p, 1).pop().unwrap();
        let base = basepoint_table::<Fe1>();
        for round in 0..64 {
            let mut x = [0u8; 32];
            rng.fill_bytes(&mut x);
            x[31] &= 0x1f;
            if round == 0 {
                x = [0xff; 32];
                x[31] = 0x1f;
            }
            let digits = scalar::signed_digits::<KEY_WINDOW, KEY_POSITIONS>(&x);
            let s_digits = scalar::signed_digits::<BASE_WINDOW, BASE_POSITIONS>(&x);
            let d1: scalar::LaneDigits<KEY_POSITIONS> =
                core::array::from_fn(|j| [digits[j]; MAX_LANES]);
            let d2: scalar::LaneDigits<BASE_POSITIONS> =
                core::array::from_fn(|j| [s_digits[j]; MAX_LANES]);
            let mut acc = Extended::<Fe1>::identity();
            for j in 0..KEY_POSITIONS {
                let (rows, negate) =
                    table_entries::<Fe1, _, KEY_POSITIONS>(&d1, j, |_| table.rows.position(j));
                acc.add_assign_narrow(&rows[..1], negate, true, &c.d_half);
            }
            for j in 0..BASE_POSITIONS {
                let (rows, negate) =
                    table_entries::<Fe1, _, BASE_POSITIONS>(&d2, j, |_| base.position(j));
                acc.add_assign_affine(&rows[..1], negate, true);
            }
            let mut got = [[0u8; 32]];
            super::super::point::compress(&acc, &mut got);
            let scalar = Scalar::from_bytes_mod_order(x);
            let want = (p_point * scalar + EdwardsPoint::mul_base(&scalar)).compress();
            assert_eq!(got[0], want.to_bytes(), "round {round}");
        }
    }

    /// A key's table built with its positions across the lanes is the one built with
    /// keys across the lanes, row for row and in its point, for every lane of every
    /// field (lanes hold different keys, one of mixed order).
    fn both_builds_agree<F: LaneField>() {
        let c = Constants::<F>::new();
        let mut encodings = [[0u8; 32]; MAX_LANES];
        for (i, e) in encodings.iter_mut().enumerate() {
            let p = EdwardsPoint::mul_base(&Scalar::from(1_000_003u64 * (i as u64 + 1)));
            let torsion = curve25519_dalek::constants::EIGHT_TORSION[i % 8];
            *e = if i == 3 { p + torsion } else { p }.compress().to_bytes();
        }
        let (a, decoded) = decompress(&c, &encodings[..F::LANES]);
        assert_eq!(u32::from(decoded), (1u32 << F::LANES) - 1);
        let minus_a = a.neg();
        let all = ((1u16 << F::LANES) - 1) as u8;
        let across_keys = key_tables_across_keys(&c, &minus_a, all);
        let point_bytes = |t: &KeyTable<F>| {
            let mut out = [[0u8; 32]; MAX_LANES];
            t.point.map(|f| {
                F::from_lane_limbs(&[&f; MAX_LANES][..F::LANES]).to_bytes(&mut out[..F::LANES]);
                out[0]
            })
        };
        for (lane, want) in across_keys.iter().enumerate() {
            let got = key_table_across_positions(&c, &minus_a, lane);
            assert!(
                got.rows.rows[..] == want.rows.rows[..],
                "{} lanes, lane {lane}",
                F::LANES
            );
            assert_eq!(point_bytes(&got), point_bytes(want), "lane {lane}");
        }
    }

    #[test]
    fn both_builds_agree_on_every_field() {
        both_builds_agree::<Fe1>();
        #[cfg(target_arch = "x86_64")]
        {
            if crate::ed25519::lanes::avx2::supported() {
                both_builds_agree::<crate::ed25519::field::avx2::Fe4>();
            }
            if crate::ed25519::lanes::avx512::supported() {
                both_builds_agree::<crate::ed25519::field::avx512::Fe8>();
            }
        }
    }
}
