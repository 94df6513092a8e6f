//! Four field elements at once on AVX2: lane i of every `__m256i` belongs to signature i.
//!
//! Radix 2^25.5 (as ref10): a value is Σ f_i·2^⌈25.5·i⌉ over 10 limbs, limb i holding
//! 26 bits when i is even and 25 when odd. Limb i of the four lanes sits in one
//! `__m256i` as four u64 slots, so `vpmuludq` (32 × 32 → 64 bits per slot) forms four
//! limb products per instruction.
//!
//! Limb bounds, the invariant everything here rests on:
//! - *Carried* (every `mul`, `square`, `sub`, `neg` output, and `from_*`): even limbs
//!   < 2^26, odd limbs < 2^25, plus a carry of a few units in limbs 1 and 5.
//! - `mul`/`square` accept limbs < 1.6·2^27, so the sum of two carried elements, or of
//!   three where one is carried and two are summed (the largest input the point formulas
//!   make, ZZ2 + TT2d < 1.5·2^27), is a valid input. Then 19·g_j < 2^32 fits `vpmuludq`'s
//!   32-bit operands, and each 64-bit column sum h_k = Σ c·f_i·g_j has coefficient total
//!   Σc ≤ 267 (column 0), so h_k < 267·(1.6·2^27)² < 2^63.5 and the carries cannot
//!   overflow.
//! - `sub` computes a + 8p − b, then carries. It is valid for any b whose limbs are below
//!   8p's (2^29 − 8 even, 2^28 − 8 odd), which holds for every input above.
//!
//! Safety: `Fe4` values are made only by code reached from the AVX2 backend's kernels,
//! which run after their path's `supported()` held. So the AVX2 intrinsics below only
//! execute on CPUs that have AVX2.

use super::Line;
use core::arch::x86_64::*;
use linesig_simd::u64x4::{add as add64, blend, splat};

linesig_simd::isa_path!("avx2");

const LANES: usize = 4;

/// Bits per limb: 26, 25, 26, 25, …
const LIMB_BITS: [u32; 10] = [26, 25, 26, 25, 26, 25, 26, 25, 26, 25];
/// Bit offset of each limb: ⌈25.5·i⌉.
const LIMB_OFFSET: [usize; 10] = [0, 26, 51, 77, 102, 128, 153, 179, 204, 230];

/// 8p in this radix: limb 0 = 8·(2^26 − 19), other even limbs 8·(2^26 − 1), odd limbs
/// 8·(2^25 − 1).
const EIGHT_P: [u64; 10] = {
    let mut l = [0u64; 10];
    let mut i = 0;
    while i < 10 {
        l[i] = 8 * ((1u64 << LIMB_BITS[i]) - 1);
        i += 1;
    }
    l[0] = 8 * ((1u64 << 26) - 19);
    l
};

#[derive(Clone, Copy)]
pub(crate) struct Fe4([__m256i; 10]);

// Every function that executes AVX2 instructions is a kernel of this path (compiled with
// its features): LLVM inlines an intrinsic only into a caller that has its features,
// and does not reliably revisit calls hoisted into one by `#[inline(always)]`. The
// `LaneField` methods are thin `#[inline(always)]` shims over these functions. The one
// exception, the product's and the square's bodies, is explained where they are.

kernels! {
    #[inline]
    fn sub64(a: __m256i, b: __m256i) -> __m256i {
        _mm256_sub_epi64(a, b)
    }

    /// Low 32 bits of each u64 slot of `a` times those of `b`, as full 64-bit products.
    #[inline]
    fn mul32(a: __m256i, b: __m256i) -> __m256i {
        _mm256_mul_epu32(a, b)
    }

    /// 19·x for x < 2^32 in every u64 slot (a limb below 1.6·2^27, so 19·x < 2^32 too):
    /// one 32-bit `vpmulld`, whose high halves stay 0·19 = 0. (Written as
    /// `vpmuludq` by 19, LLVM sees that the products' callers read only their low 32
    /// bits, drops the operand's mask and emits a full 64-bit product: five
    /// instructions on AVX2.)
    #[inline]
    fn times19_small(x: __m256i) -> __m256i {
        _mm256_mullo_epi32(x, _mm256_set1_epi32(19))
    }

    /// 19·x as x + 2x + 16x (x < 2^59; `vpmuludq` would need x below 2^32).
    #[inline]
    fn times19(x: __m256i) -> __m256i {
        add64(
            add64(x, _mm256_slli_epi64::<1>(x)),
            _mm256_slli_epi64::<4>(x),
        )
    }

    /// Carry 64-bit column sums (each < 2^63.5) down to carried limbs. Two interleaved
    /// chains (0→…, 4→…) shorten the dependency path, as in ref10; limb 9's carry wraps
    /// into limb 0 as `times19(c)`.
    #[inline]
    fn carry(h: [__m256i; 10]) -> [__m256i; 10] {
        let [mut h0, mut h1, mut h2, mut h3, mut h4, mut h5, mut h6, mut h7, mut h8, mut h9] = h;
        let mask26 = splat((1 << 26) - 1);
        let mask25 = splat((1 << 25) - 1);
        macro_rules! step {
            ($from:ident, $to:ident, 26) => {{
                $to = add64($to, _mm256_srli_epi64::<26>($from));
                $from = _mm256_and_si256($from, mask26);
            }};
            ($from:ident, $to:ident, 25) => {{
                $to = add64($to, _mm256_srli_epi64::<25>($from));
                $from = _mm256_and_si256($from, mask25);
            }};
        }
        step!(h0, h1, 26);
        step!(h4, h5, 26);
        step!(h1, h2, 25);
        step!(h5, h6, 25);
        step!(h2, h3, 26);
        step!(h6, h7, 26);
        step!(h3, h4, 25);
        step!(h7, h8, 25);
        step!(h4, h5, 26);
        step!(h8, h9, 26);
        let c = _mm256_srli_epi64::<25>(h9);
        h9 = _mm256_and_si256(h9, mask25);
        h0 = add64(h0, times19(c));
        step!(h0, h1, 26);
        [h0, h1, h2, h3, h4, h5, h6, h7, h8, h9]
    }

    /// The canonical limbs (the value mod p, each within its radix) of any carried element:
    /// one carry pass (value < 2^255 + 2^134 < 2p), then q = ⌊(v + 19) / 2^255⌋, which is 1
    /// exactly when v ≥ p, by a carry chain that keeps only carries; then v + 19q with its
    /// carries rippled and bit 255 dropped is v − q·p (RFC 7748's and ref10's reduction).
    #[inline]
    fn fe_canonical(f: &Fe4) -> [__m256i; 10] {
        let mut l = carry(f.0);
        let shift = |x: __m256i, bits: u32| {
            if bits == 26 {
                _mm256_srli_epi64::<26>(x)
            } else {
                _mm256_srli_epi64::<25>(x)
            }
        };
        let mut q = shift(add64(l[0], splat(19)), LIMB_BITS[0]);
        for i in 1..10 {
            q = shift(add64(l[i], q), LIMB_BITS[i]);
        }
        l[0] = add64(l[0], times19(q));
        for i in 0..10 {
            if i < 9 {
                l[i + 1] = add64(l[i + 1], shift(l[i], LIMB_BITS[i]));
            }
            l[i] = _mm256_and_si256(l[i], splat((1 << LIMB_BITS[i]) - 1));
        }
        l
    }

    #[inline]
    fn fe_zero_mask(f: &Fe4) -> u8 {
        let l = fe_canonical(f);
        let any = l[1..].iter().fold(l[0], |acc, x| _mm256_or_si256(acc, *x));
        let zero = _mm256_cmpeq_epi64(any, splat(0));
        _mm256_movemask_pd(_mm256_castsi256_pd(zero)) as u8
    }

    #[inline]
    fn fe_odd_mask(f: &Fe4) -> u8 {
        let low_bit = _mm256_slli_epi64::<63>(fe_canonical(f)[0]);
        _mm256_movemask_pd(_mm256_castsi256_pd(low_bit)) as u8
    }

    #[inline]
    fn from_limb_lanes(lanes: &[[u64; 10]; LANES]) -> Fe4 {
        Fe4(core::array::from_fn(|i| {
            _mm256_set_epi64x(
                lanes[3][i] as i64,
                lanes[2][i] as i64,
                lanes[1][i] as i64,
                lanes[0][i] as i64,
            )
        }))
    }

    #[inline]
    fn to_limb_lanes(f: &Fe4) -> [[u64; 10]; LANES] {
        let mut out = [[0u64; 10]; LANES];
        for (i, v) in f.0.iter().enumerate() {
            let mut slots = [0u64; 4];
            // SAFETY: `slots` is 32 writable bytes.
            unsafe { _mm256_storeu_si256(slots.as_mut_ptr().cast(), *v) };
            for lane in 0..LANES {
                out[lane][i] = slots[lane];
            }
        }
        out
    }

    #[inline]
    fn fe_constant(limb0: u64) -> Fe4 {
        let mut f = [splat(0); 10];
        f[0] = splat(limb0);
        Fe4(f)
    }

    #[inline]
    fn fe_add(f: &Fe4, g: &Fe4) -> Fe4 {
        Fe4(core::array::from_fn(|i| add64(f.0[i], g.0[i])))
    }

    #[inline]
    fn fe_sub(f: &Fe4, g: &Fe4) -> Fe4 {
        Fe4(carry(core::array::from_fn(|i| {
            sub64(add64(f.0[i], splat(EIGHT_P[i])), g.0[i])
        })))
    }

    /// The product ([`mul_body`]).
    #[inline]
    fn fe_mul(f: &Fe4, g: &Fe4) -> Fe4 {
        // SAFETY: this kernel runs only where AVX2 is (module note).
        unsafe { mul_body(f, g) }
    }

    /// The square ([`square_body`]).
    #[inline]
    fn fe_square(f: &Fe4) -> Fe4 {
        // SAFETY: as in `fe_mul`.
        unsafe { square_body(f) }
    }

    #[inline]
    fn fe_pow2k(f: &Fe4, k: u32) -> Fe4 {
        let [x] = fe_pow2k_each(&[*f], k);
        x
    }

    /// [`super::LaneField::pow2k_each`] with the squarings' bodies inlined: the elements stay
    /// in registers and on the stack from the first squaring to the last.
    #[inline]
    fn fe_pow2k_each<const N: usize>(x: &[Fe4; N], k: u32) -> [Fe4; N] {
        let mut x = *x;
        for _ in 0..k {
            for v in &mut x {
                // SAFETY: as in `fe_mul`.
                *v = unsafe { square_body(v) };
            }
        }
        x
    }

    /// [`super::LaneField::mul_each`] with the products' bodies inlined.
    #[inline]
    fn fe_mul_each<const N: usize>(a: &[Fe4; N], b: &[Fe4; N]) -> [Fe4; N] {
        // (A loop, not `array::from_fn`: a closure is compiled without this kernel's
        // features, and the body's intrinsics would stay out of line.)
        let mut out = *a;
        for (o, (a, b)) in out.iter_mut().zip(a.iter().zip(b)) {
            // SAFETY: as in `fe_mul`.
            *o = unsafe { mul_body(a, b) };
        }
        out
    }

    #[inline]
    fn fe_select(mask: u8, a: &Fe4, b: &Fe4) -> Fe4 {
        Fe4(core::array::from_fn(|i| blend(mask, a.0[i], b.0[i])))
    }

    /// Lane i's limbs into each row of `rows`, as they stand (carried, not tightened as
    /// [`stored_limbs`] tightens a table's rows): these rows are read back only by
    /// [`fe_from_lines`], which returns the element stored, bounds and all. Limbs 0..4
    /// and 4..8 go out as two 4 × 4 blocks transposed in registers, limbs 8..10 as a
    /// 4 × 2 block: 20 shuffles and three stores per lane, where a copy through memory
    /// one limb at a time with a carry pass per lane (the default) cost the AVX2 bucket
    /// step more than its multiplications' overhead (docs/results.md). The stores match
    /// [`fe_from_lines`]'s loads one to one, so a bucket read back soon after it was
    /// written forwards from the store buffer.
    #[inline]
    fn store_lines<'r>(f: &Fe4, rows: impl IntoIterator<Item = (usize, &'r mut Line<[u64; 10]>)>) {
        let v = &f.0;
        let low = transpose4([v[0], v[1], v[2], v[3]]);
        let mid = transpose4([v[4], v[5], v[6], v[7]]);
        let ac = _mm256_unpacklo_epi64(v[8], v[9]); // a8 a9 | c8 c9
        let bd = _mm256_unpackhi_epi64(v[8], v[9]); // b8 b9 | d8 d9
        let top = [
            _mm256_castsi256_si128(ac),
            _mm256_castsi256_si128(bd),
            _mm256_extracti128_si256::<1>(ac),
            _mm256_extracti128_si256::<1>(bd),
        ];
        for (lane, row) in rows {
            let p = row.0.as_mut_ptr();
            // SAFETY: a `Line` is 64-byte aligned and its row 80 bytes: 32-byte aligned
            // stores at u64 offsets 0 and 4 and a 16-byte aligned one at 8 write limbs
            // 0..10 and nothing else.
            unsafe {
                _mm256_store_si256(p.cast(), low[lane]);
                _mm256_store_si256(p.add(4).cast(), mid[lane]);
                _mm_store_si128(p.add(8).cast(), top[lane]);
            }
        }
    }

    /// Rows written by [`store_lines`] back into one vector per limb, by the same
    /// blocks (the loads match its stores).
    #[inline]
    fn fe_from_lines(rows: &[&Line<[u64; 10]>]) -> Fe4 {
        let p: [*const u64; LANES] = core::array::from_fn(|lane| rows[lane].0.as_ptr());
        // SAFETY: as in `store_lines`, aligned loads of limbs 0..4, 4..8 and 8..10.
        let (low, mid, top) = unsafe {
            (
                transpose4(core::array::from_fn(|l| _mm256_load_si256(p[l].cast()))),
                transpose4(core::array::from_fn(|l| _mm256_load_si256(p[l].add(4).cast()))),
                core::array::from_fn::<__m128i, LANES, _>(|l| _mm_load_si128(p[l].add(8).cast())),
            )
        };
        // [a8 a9 | c8 c9] and [b8 b9 | d8 d9], then their even and odd slots.
        let ac = _mm256_inserti128_si256::<1>(_mm256_castsi128_si256(top[0]), top[2]);
        let bd = _mm256_inserti128_si256::<1>(_mm256_castsi128_si256(top[1]), top[3]);
        let [l0, l1, l2, l3] = low;
        let [l4, l5, l6, l7] = mid;
        Fe4([
            l0,
            l1,
            l2,
            l3,
            l4,
            l5,
            l6,
            l7,
            _mm256_unpacklo_epi64(ac, bd),
            _mm256_unpackhi_epi64(ac, bd),
        ])
    }

    /// Every lane from one row: ten broadcasts.
    #[inline]
    fn fe_splat_row(row: &[u64; 10]) -> Fe4 {
        Fe4(core::array::from_fn(|i| splat(row[i])))
    }

    /// Gather limbs 4 at a time: load 4 limbs of each lane and transpose the 4 × 4 block so
    /// that vector k holds limb k of every lane (limbs 6..8 are read twice: the rows are
    /// packed, 80 bytes, and a load past limb 9 could cross the allocation's end).
    #[inline]
    fn fe_from_rows(rows: &[&[u64; 10]]) -> Fe4 {
        let mut out = [splat(0); 10];
        for base in [0usize, 4, 6] {
            // SAFETY: each load reads 4 u64 of a 10-u64 row at offset 0, 4 or 6.
            let r: [__m256i; 4] = core::array::from_fn(|lane| unsafe {
                _mm256_loadu_si256(rows[lane][base..base + 4].as_ptr().cast())
            });
            out[base..base + 4].copy_from_slice(&transpose4(r));
        }
        Fe4(out)
    }

    /// A 4 × 4 block of u64 transposed: slot j of vector i to slot i of vector j (its
    /// own inverse).
    #[inline]
    fn transpose4(r: [__m256i; 4]) -> [__m256i; 4] {
        let lo01 = _mm256_unpacklo_epi64(r[0], r[1]); // a0 b0 a2 b2
        let hi01 = _mm256_unpackhi_epi64(r[0], r[1]); // a1 b1 a3 b3
        let lo23 = _mm256_unpacklo_epi64(r[2], r[3]); // c0 d0 c2 d2
        let hi23 = _mm256_unpackhi_epi64(r[2], r[3]); // c1 d1 c3 d3
        [
            _mm256_permute2x128_si256::<0x20>(lo01, lo23),
            _mm256_permute2x128_si256::<0x20>(hi01, hi23),
            _mm256_permute2x128_si256::<0x31>(lo01, lo23),
            _mm256_permute2x128_si256::<0x31>(hi01, hi23),
        ]
    }

    /// The trait's default ([`super::copy_lane_limbs`]): AVX2's rows are read out one limb
    /// at a time.
    #[inline]
    fn store_rows<'r>(f: &Fe4, rows: impl IntoIterator<Item = (usize, &'r mut [u64; 10])>) {
        super::copy_lane_limbs(f, rows)
    }
}

// The product and the square are `#[inline(always)]` bodies (which `#[target_feature]`
// does not allow), called only from this path's kernels, so they compile with its
// features wherever they are inlined. `fe_mul` and `fe_square` run them out of line for
// the generic code; `fe_pow2k_each` and `fe_mul_each` inline them into their loops, and
// `LaneField::mul_inlined` into the batch equation's bucket step: out of line, each call
// returns its 320-byte `Fe4` through memory, and the callers' moves of it become calls
// to `memcpy` (AVX2's 32-byte stores put 320 bytes past LLVM's inline copy limit), three
// or four per squaring of a decoding's chain (docs/results.md).

/// Schoolbook 10 × 10 (100 `vpmuludq`). f_i·g_j lands at 2^(o_i + o_j); o_i + o_j is
/// o_{i+j} + 1 when i and j are both odd (hence 2·f_i), and past limb 9 it wraps
/// with 2^255 ≡ 19 (hence 19·g_j). Column k sums the ten products with (i + j) mod 10
/// = k, written out so every limb stays in a register.
#[inline(always)]
unsafe fn mul_body(f: &Fe4, g: &Fe4) -> Fe4 {
    let (f, g) = (&f.0, &g.0);
    let g19: [__m256i; 10] = core::array::from_fn(|j| times19_small(g[j]));
    let f2: [__m256i; 10] = core::array::from_fn(|i| add64(f[i], f[i]));
    Fe4(carry([
        add64(
            add64(
                add64(
                    add64(mul32(f[0], g[0]), mul32(f2[1], g19[9])),
                    add64(mul32(f[2], g19[8]), mul32(f2[3], g19[7])),
                ),
                add64(
                    add64(mul32(f[4], g19[6]), mul32(f2[5], g19[5])),
                    add64(mul32(f[6], g19[4]), mul32(f2[7], g19[3])),
                ),
            ),
            add64(mul32(f[8], g19[2]), mul32(f2[9], g19[1])),
        ),
        add64(
            add64(
                add64(
                    add64(mul32(f[0], g[1]), mul32(f[1], g[0])),
                    add64(mul32(f[2], g19[9]), mul32(f[3], g19[8])),
                ),
                add64(
                    add64(mul32(f[4], g19[7]), mul32(f[5], g19[6])),
                    add64(mul32(f[6], g19[5]), mul32(f[7], g19[4])),
                ),
            ),
            add64(mul32(f[8], g19[3]), mul32(f[9], g19[2])),
        ),
        add64(
            add64(
                add64(
                    add64(mul32(f[0], g[2]), mul32(f2[1], g[1])),
                    add64(mul32(f[2], g[0]), mul32(f2[3], g19[9])),
                ),
                add64(
                    add64(mul32(f[4], g19[8]), mul32(f2[5], g19[7])),
                    add64(mul32(f[6], g19[6]), mul32(f2[7], g19[5])),
                ),
            ),
            add64(mul32(f[8], g19[4]), mul32(f2[9], g19[3])),
        ),
        add64(
            add64(
                add64(
                    add64(mul32(f[0], g[3]), mul32(f[1], g[2])),
                    add64(mul32(f[2], g[1]), mul32(f[3], g[0])),
                ),
                add64(
                    add64(mul32(f[4], g19[9]), mul32(f[5], g19[8])),
                    add64(mul32(f[6], g19[7]), mul32(f[7], g19[6])),
                ),
            ),
            add64(mul32(f[8], g19[5]), mul32(f[9], g19[4])),
        ),
        add64(
            add64(
                add64(
                    add64(mul32(f[0], g[4]), mul32(f2[1], g[3])),
                    add64(mul32(f[2], g[2]), mul32(f2[3], g[1])),
                ),
                add64(
                    add64(mul32(f[4], g[0]), mul32(f2[5], g19[9])),
                    add64(mul32(f[6], g19[8]), mul32(f2[7], g19[7])),
                ),
            ),
            add64(mul32(f[8], g19[6]), mul32(f2[9], g19[5])),
        ),
        add64(
            add64(
                add64(
                    add64(mul32(f[0], g[5]), mul32(f[1], g[4])),
                    add64(mul32(f[2], g[3]), mul32(f[3], g[2])),
                ),
                add64(
                    add64(mul32(f[4], g[1]), mul32(f[5], g[0])),
                    add64(mul32(f[6], g19[9]), mul32(f[7], g19[8])),
                ),
            ),
            add64(mul32(f[8], g19[7]), mul32(f[9], g19[6])),
        ),
        add64(
            add64(
                add64(
                    add64(mul32(f[0], g[6]), mul32(f2[1], g[5])),
                    add64(mul32(f[2], g[4]), mul32(f2[3], g[3])),
                ),
                add64(
                    add64(mul32(f[4], g[2]), mul32(f2[5], g[1])),
                    add64(mul32(f[6], g[0]), mul32(f2[7], g19[9])),
                ),
            ),
            add64(mul32(f[8], g19[8]), mul32(f2[9], g19[7])),
        ),
        add64(
            add64(
                add64(
                    add64(mul32(f[0], g[7]), mul32(f[1], g[6])),
                    add64(mul32(f[2], g[5]), mul32(f[3], g[4])),
                ),
                add64(
                    add64(mul32(f[4], g[3]), mul32(f[5], g[2])),
                    add64(mul32(f[6], g[1]), mul32(f[7], g[0])),
                ),
            ),
            add64(mul32(f[8], g19[9]), mul32(f[9], g19[8])),
        ),
        add64(
            add64(
                add64(
                    add64(mul32(f[0], g[8]), mul32(f2[1], g[7])),
                    add64(mul32(f[2], g[6]), mul32(f2[3], g[5])),
                ),
                add64(
                    add64(mul32(f[4], g[4]), mul32(f2[5], g[3])),
                    add64(mul32(f[6], g[2]), mul32(f2[7], g[1])),
                ),
            ),
            add64(mul32(f[8], g[0]), mul32(f2[9], g19[9])),
        ),
        add64(
            add64(
                add64(
                    add64(mul32(f[0], g[9]), mul32(f[1], g[8])),
                    add64(mul32(f[2], g[7]), mul32(f[3], g[6])),
                ),
                add64(
                    add64(mul32(f[4], g[5]), mul32(f[5], g[4])),
                    add64(mul32(f[6], g[3]), mul32(f[7], g[2])),
                ),
            ),
            add64(mul32(f[8], g[1]), mul32(f[9], g[0])),
        ),
    ]))
}

/// Squaring with the symmetric products merged: 55 `vpmuludq` instead of 100. The
/// coefficient of f_i·f_j is 2 for i ≠ j (both orders), twice more when both are odd,
/// and 19 past limb 9; the doublings go on the left operand (f2 = 2f, f4 = 4f) and the
/// 19 on the right, keeping both below 2^32.
#[inline(always)]
unsafe fn square_body(f: &Fe4) -> Fe4 {
    let f = &f.0;
    let f2: [__m256i; 10] = core::array::from_fn(|i| add64(f[i], f[i]));
    let f4: [__m256i; 10] = core::array::from_fn(|i| add64(f2[i], f2[i]));
    let f19: [__m256i; 10] = core::array::from_fn(|j| times19_small(f[j]));
    Fe4(carry([
        add64(
            add64(
                add64(mul32(f[0], f[0]), mul32(f4[1], f19[9])),
                add64(mul32(f2[2], f19[8]), mul32(f4[3], f19[7])),
            ),
            add64(mul32(f2[4], f19[6]), mul32(f2[5], f19[5])),
        ),
        add64(
            add64(
                add64(mul32(f2[0], f[1]), mul32(f2[2], f19[9])),
                add64(mul32(f2[3], f19[8]), mul32(f2[4], f19[7])),
            ),
            mul32(f2[5], f19[6]),
        ),
        add64(
            add64(
                add64(mul32(f2[0], f[2]), mul32(f2[1], f[1])),
                add64(mul32(f4[3], f19[9]), mul32(f2[4], f19[8])),
            ),
            add64(mul32(f4[5], f19[7]), mul32(f[6], f19[6])),
        ),
        add64(
            add64(
                add64(mul32(f2[0], f[3]), mul32(f2[1], f[2])),
                add64(mul32(f2[4], f19[9]), mul32(f2[5], f19[8])),
            ),
            mul32(f2[6], f19[7]),
        ),
        add64(
            add64(
                add64(mul32(f2[0], f[4]), mul32(f4[1], f[3])),
                add64(mul32(f[2], f[2]), mul32(f4[5], f19[9])),
            ),
            add64(mul32(f2[6], f19[8]), mul32(f2[7], f19[7])),
        ),
        add64(
            add64(
                add64(mul32(f2[0], f[5]), mul32(f2[1], f[4])),
                add64(mul32(f2[2], f[3]), mul32(f2[6], f19[9])),
            ),
            mul32(f2[7], f19[8]),
        ),
        add64(
            add64(
                add64(mul32(f2[0], f[6]), mul32(f4[1], f[5])),
                add64(mul32(f2[2], f[4]), mul32(f2[3], f[3])),
            ),
            add64(mul32(f4[7], f19[9]), mul32(f[8], f19[8])),
        ),
        add64(
            add64(
                add64(mul32(f2[0], f[7]), mul32(f2[1], f[6])),
                add64(mul32(f2[2], f[5]), mul32(f2[3], f[4])),
            ),
            mul32(f2[8], f19[9]),
        ),
        add64(
            add64(
                add64(mul32(f2[0], f[8]), mul32(f4[1], f[7])),
                add64(mul32(f2[2], f[6]), mul32(f4[3], f[5])),
            ),
            add64(mul32(f[4], f[4]), mul32(f2[9], f19[9])),
        ),
        add64(
            add64(
                add64(mul32(f2[0], f[9]), mul32(f2[1], f[8])),
                add64(mul32(f2[2], f[7]), mul32(f2[3], f[6])),
            ),
            mul32(f2[4], f[5]),
        ),
    ]))
}

/// One lane's limbs with one more carry pass, so stored limbs are tight.
fn stored_limbs(mut l: [u64; 10]) -> [u64; 10] {
    for i in 0..10 {
        let c = l[i] >> LIMB_BITS[i];
        l[i] &= (1u64 << LIMB_BITS[i]) - 1;
        if i == 9 {
            l[0] += 19 * c;
        } else {
            l[i + 1] += c;
        }
    }
    l
}

super::lane_field_shims!(Fe4, [u64; 10], each);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lane_arithmetic_matches_big_integers() {
        if super::supported() {
            super::super::tests::arithmetic_matches_big_integers::<Fe4>(5);
        }
    }

    #[test]
    fn masks_read_canonical_values() {
        if super::supported() {
            super::super::tests::masks_read_canonical_values::<Fe4>();
            super::super::tests::masks_match_canonical_bytes::<Fe4>();
            super::super::tests::rows_round_trip::<Fe4>();
            super::super::tests::packed_rows_read_canonical_values::<Fe4>(11);
        }
    }
}
