//! Eight field elements at once on AVX-512 IFMA: lane i of every `__m512i` belongs to
//! signature i.
//!
//! Radix 2^51: a value is Σ f_i·2^(51·i) over 5 limbs, limb i of the eight lanes in one
//! `__m512i`. `vpmadd52luq` / `vpmadd52huq` multiply the low 52 bits of each u64 slot and
//! add the low / high 52 bits of the 104-bit product to an accumulator, so one pair of
//! instructions forms eight limb products exactly — provided both operands are below
//! 2^52. (The issue sketch says radix 2^52; 2^51 keeps a bit of headroom under the
//! multiplier's 52-bit operand width, which radix 2^52 would not, and makes 2^255 ≡ 19
//! fold at a limb boundary.)
//!
//! Limb bounds, the invariant everything here rests on:
//! - *Carried* (every output of every method): each limb < B = 2^51 + 2^15 < 2^52, so
//!   any output is a valid multiplier operand. That is why `add` carries too: IFMA
//!   ignores operand bits ≥ 52, and an uncarried sum of two carried elements (limbs up
//!   to 2^52 + 2^16) would be silently truncated, not merely slow.
//! - `weak_carry` (one parallel pass: each limb keeps its low 51 bits and takes the carry
//!   of the limb below; limb 4's carry re-enters limb 0 times 19, as 2^255 ≡ 19) maps
//!   limbs < 2^61 to limbs < 2^51 + 19·2^10 < B (each carry is < 2^10). `add` feeds it
//!   sums < 2B; `sub` feeds it a + 2p − b < B + 2^52, where 2p's limbs (≥ 2^52 − 38)
//!   exceed every carried b's, so no slot goes negative.
//! - `mul` / `square`: with operands < B each product is < B² < 2^103, so its low and
//!   high halves are below 2^52. A high half weighs 2^52 = 2·2^51, so it enters the next
//!   column doubled; column k collects at most five low and five doubled high halves:
//!   c_k < 15·2^52 < 2^56. Folding 2^255 ≡ 19 gives r_k = c_k + 19·c_{k+5} < 20·2^56 <
//!   2^61, and `weak_carry` carries that. One parallel pass rather than a carry chain
//!   that leaves limbs 1..4 below 2^51: the chain's five dependent steps sat on the
//!   critical path of every product, and a limb just above 2^51 is as good an operand.
//!
//! Safety: `Fe8` values are made only by code reached from the IFMA backend's entry
//! point, which runs after this path's `supported()` (AVX-512F, DQ and IFMA)
//! (every IFMA CPU has DQ; with it LLVM turns `times19` into one `vpmullq`, which
//! measured faster than shifts and additions on Zen 5 and on Zen 4 alike; docs/results.md,
//! "Measurements behind the code's choices"). So the intrinsics below only execute on
//! CPUs that have them.

use super::Line;
use core::arch::x86_64::*;
use linesig_simd::u64x8::{add as add64, blend, splat};

linesig_simd::isa_path!("avx512f,avx512dq,avx512ifma");

const LANES: usize = 8;
const LIMB_BITS: [u32; 5] = [51; 5];
const LIMB_OFFSET: [usize; 5] = [0, 51, 102, 153, 204];
const MASK51: u64 = (1 << 51) - 1;
/// 2p in radix 2^51: limb 0 = 2·(2^51 − 19), the others 2·(2^51 − 1).
const TWO_P: [u64; 5] = [
    2 * (MASK51 - 18),
    2 * MASK51,
    2 * MASK51,
    2 * MASK51,
    2 * MASK51,
];

#[derive(Clone, Copy)]
pub(crate) struct Fe8([__m512i; 5]);

// As in the AVX2 field: every function executing AVX-512 instructions is a kernel of
// this path, and the `LaneField` methods are `#[inline(always)]` shims.

kernels! {
    /// acc + low 52 bits of a·b (operands' low 52 bits).
    #[inline]
    fn madd_lo(acc: __m512i, a: __m512i, b: __m512i) -> __m512i {
        _mm512_madd52lo_epu64(acc, a, b)
    }

    /// acc + bits 52..104 of a·b (operands' low 52 bits).
    #[inline]
    fn madd_hi(acc: __m512i, a: __m512i, b: __m512i) -> __m512i {
        _mm512_madd52hi_epu64(acc, a, b)
    }

    /// 19·x as x + 2x + 16x (x < 2^59; no 64-bit lane multiply needed).
    #[inline]
    fn times19(x: __m512i) -> __m512i {
        add64(
            add64(x, _mm512_slli_epi64::<1>(x)),
            _mm512_slli_epi64::<4>(x),
        )
    }

    /// Limbs < 2^61 to carried limbs (< 2^51 + 19·2^10 < B) in one parallel pass.
    #[inline]
    fn weak_carry(l: [__m512i; 5]) -> Fe8 {
        let mask = splat(MASK51);
        let c: [__m512i; 5] = core::array::from_fn(|i| _mm512_srli_epi64::<51>(l[i]));
        let m: [__m512i; 5] = core::array::from_fn(|i| _mm512_and_si512(l[i], mask));
        // c4 < 2^10, so 19·c4 is exact in the low half of IFMA's product.
        Fe8([
            madd_lo(m[0], c[4], splat(19)),
            add64(m[1], c[0]),
            add64(m[2], c[1]),
            add64(m[3], c[2]),
            add64(m[4], c[3]),
        ])
    }

    /// Limbs 0..3 keep their low 51 bits, each carry rippling into the next limb; limb 4
    /// keeps its carry (the callers fold or drop it).
    #[inline]
    fn ripple_carry(l: [__m512i; 5]) -> [__m512i; 5] {
        let mask = splat(MASK51);
        let [mut l0, mut l1, mut l2, mut l3, mut l4] = l;
        l1 = add64(l1, _mm512_srli_epi64::<51>(l0));
        l0 = _mm512_and_si512(l0, mask);
        l2 = add64(l2, _mm512_srli_epi64::<51>(l1));
        l1 = _mm512_and_si512(l1, mask);
        l3 = add64(l3, _mm512_srli_epi64::<51>(l2));
        l2 = _mm512_and_si512(l2, mask);
        l4 = add64(l4, _mm512_srli_epi64::<51>(l3));
        l3 = _mm512_and_si512(l3, mask);
        [l0, l1, l2, l3, l4]
    }

    #[inline]
    fn fe_constant(limb0: u64) -> Fe8 {
        let mut f = [splat(0); 5];
        f[0] = splat(limb0);
        Fe8(f)
    }

    #[inline]
    fn fe_add(f: &Fe8, g: &Fe8) -> Fe8 {
        weak_carry(core::array::from_fn(|i| add64(f.0[i], g.0[i])))
    }

    #[inline]
    fn fe_sub(f: &Fe8, g: &Fe8) -> Fe8 {
        weak_carry(core::array::from_fn(|i| {
            _mm512_sub_epi64(add64(f.0[i], splat(TWO_P[i])), g.0[i])
        }))
    }

    /// Schoolbook 5 × 5: 25 low and 25 high halves. Product f_i·g_j sits at 2^(51(i+j)):
    /// its low half goes to column i + j, its high half (weight 2^52) to column i + j + 1,
    /// doubled. The high halves are summed first and doubled, and the low halves then
    /// accumulate onto that sum; columns 0..5 add 19 times the column five up (2^255 ≡ 19)
    /// last, so their own chains need not wait for it. One accumulator per column instead
    /// of two: no additions merging the halves and half the zeroed registers. With the
    /// one-pass carry the double-scalar loop ran faster; either change alone did not (the
    /// longer chains cost what the fewer instructions save; docs/results.md).
    #[inline]
    fn fe_mul(f: &Fe8, g: &Fe8) -> Fe8 {
        let (f, g) = (&f.0, &g.0);
        let zero = splat(0);
        // hi[k]: the high halves landing in column k (k = 1..9).
        let mut hi = [zero; 10];
        for i in 0..5 {
            for j in 0..5 {
                hi[i + j + 1] = madd_hi(hi[i + j + 1], f[i], g[j]);
            }
        }
        let mut c: [__m512i; 10] = core::array::from_fn(|k| _mm512_slli_epi64::<1>(hi[k]));
        for k in (5..9).rev() {
            for i in k - 4..5 {
                c[k] = madd_lo(c[k], f[i], g[k - i]);
            }
        }
        for k in 0..5 {
            for i in 0..=k {
                c[k] = madd_lo(c[k], f[i], g[k - i]);
            }
            c[k] = add64(c[k], times19(c[k + 5]));
        }
        weak_carry([c[0], c[1], c[2], c[3], c[4]])
    }

    /// Squaring with the symmetric products merged: 15 products (30 halves) instead of 25.
    /// Weights: a square's low half counts once and its high half twice; a cross product
    /// f_i·f_j (i < j) appears twice, so its low half counts twice and its high half four
    /// times. Each column accumulates by descending weight in one register, doubled
    /// between weights (4·w4 + 2·w2 + w1 = 2·(2·w4 + w2) + w1), the columns five up
    /// folded in last, as in [`fe_mul`].
    #[inline]
    fn fe_square(f: &Fe8) -> Fe8 {
        let f = &f.0;
        let zero = splat(0);
        // Weight 4: cross products' high halves, column i + j + 1.
        let mut c = [zero; 10];
        for i in 0..5 {
            for j in i + 1..5 {
                c[i + j + 1] = madd_hi(c[i + j + 1], f[i], f[j]);
            }
        }
        // Weight 2: cross products' low halves (column i + j), squares' high halves (2i + 1).
        let mut c: [__m512i; 10] = core::array::from_fn(|k| _mm512_slli_epi64::<1>(c[k]));
        for i in 0..5 {
            c[2 * i + 1] = madd_hi(c[2 * i + 1], f[i], f[i]);
            for j in i + 1..5 {
                c[i + j] = madd_lo(c[i + j], f[i], f[j]);
            }
        }
        // Weight 1: squares' low halves, column 2i.
        let mut c: [__m512i; 10] = core::array::from_fn(|k| _mm512_slli_epi64::<1>(c[k]));
        for i in 0..5 {
            c[2 * i] = madd_lo(c[2 * i], f[i], f[i]);
        }
        for k in 0..5 {
            c[k] = add64(c[k], times19(c[k + 5]));
        }
        weak_carry([c[0], c[1], c[2], c[3], c[4]])
    }

    #[inline]
    fn fe_pow2k(f: &Fe8, k: u32) -> Fe8 {
        let mut x = fe_square(f);
        for _ in 1..k {
            x = fe_square(&x);
        }
        x
    }

    /// The canonical limbs (the value mod p, each limb < 2^51) of any carried element: one
    /// weak pass (value < 2^255 + 2^214 < 2p), then q = ⌊(v + 19) / 2^255⌋, which is 1
    /// exactly when v ≥ p, by a carry chain that keeps only carries; then v + 19q with its
    /// carries rippled and bit 255 dropped is v − q·p (RFC 7748's and ref10's reduction).
    #[inline]
    fn fe_canonical(f: &Fe8) -> [__m512i; 5] {
        let mask = splat(MASK51);
        let [mut l0, l1, l2, l3, l4] = weak_carry(f.0).0;
        let mut q = _mm512_srli_epi64::<51>(add64(l0, splat(19)));
        q = _mm512_srli_epi64::<51>(add64(l1, q));
        q = _mm512_srli_epi64::<51>(add64(l2, q));
        q = _mm512_srli_epi64::<51>(add64(l3, q));
        q = _mm512_srli_epi64::<51>(add64(l4, q));
        l0 = madd_lo(l0, q, splat(19));
        let [l0, l1, l2, l3, l4] = ripple_carry([l0, l1, l2, l3, l4]);
        let l4 = _mm512_and_si512(l4, mask);
        [l0, l1, l2, l3, l4]
    }

    #[inline]
    fn fe_zero_mask(f: &Fe8) -> u8 {
        let [l0, l1, l2, l3, l4] = fe_canonical(f);
        let any = _mm512_or_si512(
            _mm512_or_si512(l0, l1),
            _mm512_or_si512(l2, _mm512_or_si512(l3, l4)),
        );
        _mm512_cmpeq_epi64_mask(any, splat(0))
    }

    #[inline]
    fn fe_odd_mask(f: &Fe8) -> u8 {
        _mm512_test_epi64_mask(fe_canonical(f)[0], splat(1))
    }

    #[inline]
    fn fe_select(mask: u8, a: &Fe8, b: &Fe8) -> Fe8 {
        Fe8(core::array::from_fn(|i| blend(mask, a.0[i], b.0[i])))
    }

    #[inline]
    fn from_limb_lanes(lanes: &[[u64; 5]; LANES]) -> Fe8 {
        Fe8(core::array::from_fn(|i| {
            let slots: [u64; LANES] = core::array::from_fn(|lane| lanes[lane][i]);
            // SAFETY: `slots` is 64 readable bytes.
            unsafe { _mm512_loadu_si512(slots.as_ptr().cast()) }
        }))
    }

    /// Lane i's five limbs in slots 0..5 of vector i, the inverse of [`fe_from_rows`]: the
    /// 5 × 8 block transposed in registers (18 shuffles). Key and R tables are built from
    /// these rows, 36 vectors per table: written from here with masked stores
    /// ([`store_rows`]) they cost about half what reading out one limb at a time through
    /// memory did (docs/results.md).
    #[inline]
    fn lane_rows(f: &Fe8) -> [__m512i; LANES] {
        let [l0, l1, l2, l3, l4] = f.0;
        let zero = splat(0);
        // Pairs of limbs per lane: lo = lanes 0, 2, 4, 6 (one 128-bit block each), hi = 1, 3, 5, 7.
        let lo = [
            _mm512_unpacklo_epi64(l0, l1),
            _mm512_unpacklo_epi64(l2, l3),
            _mm512_unpacklo_epi64(l4, zero),
        ];
        let hi = [
            _mm512_unpackhi_epi64(l0, l1),
            _mm512_unpackhi_epi64(l2, l3),
            _mm512_unpackhi_epi64(l4, zero),
        ];
        let mut rows = [zero; LANES];
        for (parity, [p01, p23, p4]) in [lo, hi].into_iter().enumerate() {
            // `_mm512_shuffle_i64x2::<IMM>(a, b)`: blocks IMM[1:0], IMM[3:2] of a, then
            // IMM[5:4], IMM[7:6] of b. front = blocks 0, 1 of p01 and of p23; back = 2, 3.
            let front = _mm512_shuffle_i64x2::<0b01_00_01_00>(p01, p23);
            let back = _mm512_shuffle_i64x2::<0b11_10_11_10>(p01, p23);
            rows[parity] = _mm512_shuffle_i64x2::<0b00_00_10_00>(front, p4);
            rows[2 + parity] = _mm512_shuffle_i64x2::<0b01_01_11_01>(front, p4);
            rows[4 + parity] = _mm512_shuffle_i64x2::<0b10_10_10_00>(back, p4);
            rows[6 + parity] = _mm512_shuffle_i64x2::<0b11_11_11_01>(back, p4);
        }
        rows
    }

    #[inline]
    fn to_limb_lanes(f: &Fe8) -> [[u64; 5]; LANES] {
        // Whole rows through memory: a masked store would not forward to the loads that
        // read the five limbs back.
        let mut full = [[0u64; 8]; LANES];
        for (row, v) in full.iter_mut().zip(lane_rows(f)) {
            // SAFETY: `row` is 64 writable bytes.
            unsafe { _mm512_storeu_si512(row.as_mut_ptr().cast(), v) };
        }
        full.map(|row| [row[0], row[1], row[2], row[3], row[4]])
    }

    #[inline]
    fn store_rows<'r>(f: &Fe8, rows: impl IntoIterator<Item = (usize, &'r mut [u64; 5])>) {
        let all = lane_rows(f);
        for (lane, row) in rows {
            // SAFETY: the mask 0b1_1111 writes the row's five u64 and nothing past them.
            unsafe { _mm512_mask_storeu_epi64(row.as_mut_ptr().cast(), 0b1_1111, all[lane]) };
        }
    }

    /// Every lane from one row: five broadcasts.
    #[inline]
    fn fe_splat_row(row: &[u64; 5]) -> Fe8 {
        Fe8(core::array::from_fn(|i| splat(row[i])))
    }

    /// As [`store_rows`] into rows that each fill a cache line: whole-line stores, which
    /// (unlike masked ones) forward to the loads of [`fe_from_lines`] and never split.
    #[inline]
    fn store_lines<'r>(f: &Fe8, rows: impl IntoIterator<Item = (usize, &'r mut Line<[u64; 5]>)>) {
        let all = lane_rows(f);
        for (lane, row) in rows {
            // SAFETY: a `Line` is 64 bytes, 64-byte aligned: one aligned 64-byte store.
            unsafe { _mm512_store_si512((row as *mut Line<[u64; 5]>).cast(), all[lane]) };
        }
    }

    /// As [`fe_from_rows`] from rows that each fill a cache line: whole-line loads (the
    /// transposition reads limbs 0..5 of each and ignores the rest).
    #[inline]
    fn fe_from_lines(rows: &[&Line<[u64; 5]>]) -> Fe8 {
        // SAFETY: a `Line` is 64 bytes, 64-byte aligned: one aligned 64-byte load.
        let r: [__m512i; LANES] = core::array::from_fn(|lane| unsafe {
            _mm512_load_si512((rows[lane] as *const Line<[u64; 5]>).cast())
        });
        transpose_rows(r)
    }

    /// Limb k of eight rows into one vector per limb: each 40-byte row is read with one
    /// masked load and the 8 × 5 block is transposed in registers (19 shuffles). Five
    /// `vpgatherqq` (one per limb, 40 single loads through the gather unit) do the same,
    /// and with them the ladder's additions lagged ed25519-simd's per multiplication
    /// where the transposition keeps level (docs/results.md, "Table reads and digit
    /// recoding").
    #[inline]
    fn fe_from_rows(rows: &[&[u64; 5]]) -> Fe8 {
        // SAFETY: the mask 0b1_1111 reads the row's five u64 and nothing past them (masked
        // lanes are not accessed, so the row's end may be the end of its allocation).
        let r: [__m512i; LANES] = core::array::from_fn(|lane| unsafe {
            _mm512_maskz_loadu_epi64(0b1_1111, rows[lane].as_ptr().cast())
        });
        transpose_rows(r)
    }

    /// Eight packed values (four u64 each, < 2^255; [`LaneField::from_packed`]) into
    /// limbs: the 8 × 4 block transposed in registers (eight 256-bit loads, four inserts,
    /// eight shuffles), then each limb cut from the words it spans. A value below 2^255
    /// gives limbs below 2^51, within the carried bound.
    #[inline]
    fn fe_from_packed(rows: &[&[u64; 4]]) -> Fe8 {
        // SAFETY: each row is 32 readable bytes.
        let row = |lane: usize| unsafe { _mm256_loadu_si256(rows[lane].as_ptr().cast()) };
        // z_k = rows k and k + 4: [r_k | r_(k+4)].
        let z: [__m512i; 4] = core::array::from_fn(|k| {
            _mm512_inserti64x4::<1>(_mm512_castsi256_si512(row(k)), row(k + 4))
        });
        // Per 128-bit block: unpacklo(z0, z1) = [r0w0 r1w0 | r0w2 r1w2 | r4w0 r5w0 | r4w2 r5w2].
        let lo01 = _mm512_unpacklo_epi64(z[0], z[1]);
        let hi01 = _mm512_unpackhi_epi64(z[0], z[1]);
        let lo23 = _mm512_unpacklo_epi64(z[2], z[3]);
        let hi23 = _mm512_unpackhi_epi64(z[2], z[3]);
        // Word 0 (2) of lanes 0..8: blocks 0 (1) and 2 (3) of each pair, interleaved.
        let even = _mm512_set_epi64(13, 12, 5, 4, 9, 8, 1, 0);
        let odd = _mm512_set_epi64(15, 14, 7, 6, 11, 10, 3, 2);
        let w0 = _mm512_permutex2var_epi64(lo01, even, lo23);
        let w1 = _mm512_permutex2var_epi64(hi01, even, hi23);
        let w2 = _mm512_permutex2var_epi64(lo01, odd, lo23);
        let w3 = _mm512_permutex2var_epi64(hi01, odd, hi23);
        let mask = splat(MASK51);
        // Limb i holds bits 51·i..51·(i + 1): words 0 | 0–1 | 1–2 | 2–3 | 3.
        let or = |a: __m512i, b: __m512i| _mm512_and_si512(_mm512_or_si512(a, b), mask);
        Fe8([
            _mm512_and_si512(w0, mask),
            or(_mm512_srli_epi64::<51>(w0), _mm512_slli_epi64::<13>(w1)),
            or(_mm512_srli_epi64::<38>(w1), _mm512_slli_epi64::<26>(w2)),
            or(_mm512_srli_epi64::<25>(w2), _mm512_slli_epi64::<39>(w3)),
            _mm512_srli_epi64::<12>(w3),
        ])
    }

    /// Limbs 0..5 of eight loaded rows (slots 5..8 are never read) into one vector per
    /// limb.
    #[inline]
    fn transpose_rows(r: [__m512i; LANES]) -> Fe8 {
        // Pairs: unpacklo(a, b) = [a0 b0 | a2 b2 | a4 b4 | 0 0] (128-bit lanes),
        // unpackhi(a, b) = [a1 b1 | a3 b3 | 0 0 | 0 0].
        let even: [__m512i; 4] =
            core::array::from_fn(|p| _mm512_unpacklo_epi64(r[2 * p], r[2 * p + 1]));
        let odd: [__m512i; 4] = core::array::from_fn(|p| _mm512_unpackhi_epi64(r[2 * p], r[2 * p + 1]));
        // Quads: two 128-bit lanes from each pair. `_mm512_shuffle_i64x2::<IMM>(a, b)` takes
        // lanes IMM[1:0], IMM[3:2] of a, then IMM[5:4], IMM[7:6] of b.
        // q02 = [ab0 | ab2 | cd0 | cd2], q4 = [ab4 | ab4 | cd4 | cd4], q13 = [ab1 | ab3 | cd1 | cd3].
        let q02: [__m512i; 2] = core::array::from_fn(|q| {
            _mm512_shuffle_i64x2::<0b01_00_01_00>(even[2 * q], even[2 * q + 1])
        });
        let q4: [__m512i; 2] = core::array::from_fn(|q| {
            _mm512_shuffle_i64x2::<0b10_10_10_10>(even[2 * q], even[2 * q + 1])
        });
        let q13: [__m512i; 2] =
            core::array::from_fn(|q| _mm512_shuffle_i64x2::<0b01_00_01_00>(odd[2 * q], odd[2 * q + 1]));
        // Octets: lanes 0 and 2 (or 1 and 3) of each quad, in lane order.
        Fe8([
            _mm512_shuffle_i64x2::<0b10_00_10_00>(q02[0], q02[1]),
            _mm512_shuffle_i64x2::<0b10_00_10_00>(q13[0], q13[1]),
            _mm512_shuffle_i64x2::<0b11_01_11_01>(q02[0], q02[1]),
            _mm512_shuffle_i64x2::<0b11_01_11_01>(q13[0], q13[1]),
            _mm512_shuffle_i64x2::<0b10_00_10_00>(q4[0], q4[1]),
        ])
    }
}

/// Carried limbs are valid operands as they stand (module note), so they are stored
/// without another pass.
fn stored_limbs(limbs: [u64; 5]) -> [u64; 5] {
    limbs
}

super::lane_field_shims!(Fe8, [u64; 5], {
    #[inline(always)]
    fn from_packed(rows: &[&[u64; 4]]) -> Self {
        // SAFETY: as every shim (the macro's note).
        unsafe { fe_from_packed(rows) }
    }
});

#[cfg(test)]
mod tests {
    use super::super::tests::{
        arithmetic_matches_big_integers, check, masks_match_canonical_bytes,
        masks_read_canonical_values, p,
    };
    use super::super::LaneField;
    use super::*;
    use num_bigint::BigUint;

    #[test]
    fn lane_arithmetic_matches_big_integers() {
        if supported() {
            arithmetic_matches_big_integers::<Fe8>(8);
        }
    }

    #[test]
    fn masks_read_canonical_values_8() {
        if supported() {
            masks_read_canonical_values::<Fe8>();
            masks_match_canonical_bytes::<Fe8>();
            super::super::tests::rows_round_trip::<Fe8>();
            super::super::tests::packed_rows_read_canonical_values::<Fe8>(11);
        }
    }

    /// Operands at the carried bound itself (every limb B − 1 = 2^51 + 2^15 − 1, and
    /// mixes with 0 and 2^51 − 1), where a mistake in the bounds would truncate IFMA's
    /// operands or overflow a column.
    #[test]
    fn products_at_the_limb_bound_match_big_integers() {
        if !supported() {
            return;
        }
        let top = (1u64 << 51) + (1 << 15) - 1;
        let choices = [top, 0, MASK51, 1 << 51, 19];
        let lanes: Vec<[u64; 5]> = (0..64)
            .map(|n: usize| core::array::from_fn(|i| choices[(n >> i) % choices.len()]))
            .collect();
        let value = |l: &[u64; 5]| {
            l.iter()
                .zip(LIMB_OFFSET)
                .fold(BigUint::from(0u8), |acc, (&x, o)| {
                    acc + (BigUint::from(x) << o)
                })
        };
        for (x, y) in lanes.chunks(8).zip(lanes.chunks(8).rev()) {
            let (xa, ya): ([[u64; 5]; 8], [[u64; 5]; 8]) = (
                core::array::from_fn(|i| x[i]),
                core::array::from_fn(|i| y[i]),
            );
            // SAFETY: the CPU has AVX-512F, DQ and IFMA (checked above).
            let (a, b) = unsafe { (from_limb_lanes(&xa), from_limb_lanes(&ya)) };
            check("mul at bound", a.mul(&b), |l| value(&xa[l]) * value(&ya[l]));
            check("square at bound", a.square(), |l| {
                value(&xa[l]) * value(&xa[l])
            });
            check("add at bound", a.add(&b), |l| value(&xa[l]) + value(&ya[l]));
            check("sub at bound", a.sub(&b), |l| {
                value(&xa[l]) + p() * 4u8 - value(&ya[l])
            });
            // Every output is carried again: each limb below B.
            for out in [a.mul(&b), a.square(), a.add(&b), a.sub(&b), a.neg()] {
                // SAFETY: as above.
                let limbs = unsafe { to_limb_lanes(&out) };
                assert!(limbs.iter().flatten().all(|&l| l <= top), "{limbs:x?}");
            }
        }
    }
}
