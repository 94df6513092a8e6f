//! The NTT of FIPS 204 (Algorithms 41, 42) and pointwise products, written once over
//! a vector of `N` coefficients ([`Lanes`]) and instantiated per backend: 8 per AVX2
//! `__m256i`, 16 per AVX-512 `__m512i`, and portable arrays (N = 1 is the algorithm
//! one coefficient at a time; N = 8 and 16 let any CPU test the vector layouts).
//!
//! **Layers.** A layer whose butterflies are `len ≥ N` apart pairs whole vectors with
//! one broadcast twiddle. The last log2(N) layers pair coefficients inside one N-block:
//! for those, N blocks are loaded and transposed, so vector j holds coefficient j of N
//! consecutive blocks and the butterflies are again between whole vectors, with one
//! twiddle per lane ([`TAIL_FORWARD_8`] and friends).
//!
//! **The NTT domain is transposed.** The forward NTT leaves those chunks transposed and
//! the inverse starts from them, so no transpose back is ever made: coefficient n of a
//! polynomial in the NTT domain sits at [`ntt_position`]`::<L>(n)`. Pointwise products
//! do not care; only Â, which ExpandA samples directly in the NTT domain, is written
//! to those positions. Values in the NTT domain therefore belong to one backend.
//!
//! **Bounds** (as the Dilithium reference keeps them): forward input |a| < 2^19 + q
//! grows by < q per layer, so outputs are < 9q; products are Montgomery products of
//! operands < 9q (|a·b| < 81q² < 2^31·q), each < q; sums of up to l + 1 = 8 of them
//! are reduced ([`Lanes::reduce32`]) below q before NTT⁻¹, whose sums at most double
//! per layer: < 256q < 2^31 after eight.

pub(crate) mod portable;

#[cfg(target_arch = "x86_64")]
pub(crate) mod avx2;
#[cfg(target_arch = "x86_64")]
pub(crate) mod avx512;

use super::arith::{use_hint_row, INVERSE_NTT_SCALE, ZETAS};
use super::keccak::KeccakLanes;
use super::reject::{reject_sample_scalar, ACCEPTED_ROOM};

/// A polynomial of R_q: 256 coefficients, aligned for any vector width.
#[derive(Clone, Copy)]
#[repr(C, align(64))]
pub(crate) struct Poly(pub(crate) [i32; 256]);

impl Poly {
    pub(crate) const ZERO: Poly = Poly([0; 256]);
}

/// A vector of `N` coefficients and the operations the NTT needs. Backends implement
/// it over their registers; everything else is written once, here.
///
/// Safety contract for SIMD implementations: a value is only made by code reached from
/// the backend's entry point, after the CPU was checked for its features.
pub(crate) trait Lanes: Copy {
    /// Coefficients per vector: 1, or a power of two with N² dividing 256.
    const N: usize;
    fn splat(x: i32) -> Self;
    /// The first N values of `src` (panics if shorter).
    fn load(src: &[i32]) -> Self;
    /// Into the first N slots of `dst` (panics if shorter).
    fn store(self, dst: &mut [i32]);
    fn add(self, rhs: Self) -> Self;
    fn sub(self, rhs: Self) -> Self;
    /// Lane-wise a·b·2^−32 mod q in (−q, q), for |a·b| < 2^31·q.
    fn montgomery_mul(self, rhs: Self) -> Self;
    /// Lane-wise [`super::arith::reduce32`].
    fn reduce32(self) -> Self;
    /// Transposes the N×N matrix whose rows are `rows[0..N]`.
    fn transpose(rows: &mut [Self]);

    /// The Keccak lanes ExpandA samples with on this backend.
    type Keccak: KeccakLanes;

    // Kernels: the generic code below. SIMD backends override them (`simd_kernels!`)
    // to run that code inside a function compiled with their target features, which
    // is what lets LLVM inline the intrinsics (it does not reliably do so once a large
    // caller has absorbed them through `#[inline(always)]` layers).
    fn ntt(poly: &mut Poly) {
        ntt_lanes::<Self>(poly)
    }
    fn inverse_ntt(poly: &mut Poly) {
        inverse_ntt_lanes::<Self>(poly)
    }
    fn row_product_minus(acc: &mut Poly, a: &[Poly], b: &[Poly], c: &Poly, d: &Poly) {
        row_product_minus_lanes::<Self>(acc, a, b, c, d)
    }
    fn reduce(poly: &mut Poly) {
        reduce_lanes::<Self>(poly)
    }
    /// `poly` = the natural-order NTT-domain `values`, in this backend's layout.
    fn to_ntt_layout(values: &[i32; 256], poly: &mut Poly) {
        to_ntt_layout_lanes::<Self>(values, poly)
    }
    /// UseHint over one row (see [`use_hint_row`]).
    fn use_hint(w: &mut Poly, hints: &[bool; 256], gamma2: i32) {
        use_hint_row(&mut w.0, hints, gamma2)
    }
    /// ExpandA's rejection sampler (see `reject::reject_sample_scalar`).
    fn reject_sample(values: &mut [i32; ACCEPTED_ROOM], filled: usize, bytes: &[u8]) -> usize {
        reject_sample_scalar(values, filled, bytes)
    }
}

/// The [`Lanes`] kernels of a SIMD backend, expanded in its module (an
/// `linesig_simd::isa_path!`): each runs the generic code in a function compiled with the
/// path's features (its `kernels!`), after `assert_supported()` (a cached flag; the engine
/// never selects such a backend elsewhere, so the check never fails in use).
macro_rules! simd_kernels {
    ($lanes:ty) => {
        fn ntt(poly: &mut $crate::mldsa::lanes::Poly) {
            kernels! {
                fn kernel(poly: &mut $crate::mldsa::lanes::Poly) {
                    $crate::mldsa::lanes::ntt_lanes::<$lanes>(poly)
                }
            }
            assert_supported();
            // SAFETY: the CPU has the features, asserted just above.
            unsafe { kernel(poly) }
        }
        fn inverse_ntt(poly: &mut $crate::mldsa::lanes::Poly) {
            kernels! {
                fn kernel(poly: &mut $crate::mldsa::lanes::Poly) {
                    $crate::mldsa::lanes::inverse_ntt_lanes::<$lanes>(poly)
                }
            }
            assert_supported();
            // SAFETY: as above.
            unsafe { kernel(poly) }
        }
        fn row_product_minus(
            acc: &mut $crate::mldsa::lanes::Poly,
            a: &[$crate::mldsa::lanes::Poly],
            b: &[$crate::mldsa::lanes::Poly],
            c: &$crate::mldsa::lanes::Poly,
            d: &$crate::mldsa::lanes::Poly,
        ) {
            kernels! {
                fn kernel(
                    acc: &mut $crate::mldsa::lanes::Poly,
                    a: &[$crate::mldsa::lanes::Poly],
                    b: &[$crate::mldsa::lanes::Poly],
                    c: &$crate::mldsa::lanes::Poly,
                    d: &$crate::mldsa::lanes::Poly,
                ) {
                    $crate::mldsa::lanes::row_product_minus_lanes::<$lanes>(acc, a, b, c, d)
                }
            }
            assert_supported();
            // SAFETY: as above.
            unsafe { kernel(acc, a, b, c, d) }
        }
        fn to_ntt_layout(values: &[i32; 256], poly: &mut $crate::mldsa::lanes::Poly) {
            kernels! {
                fn kernel(values: &[i32; 256], poly: &mut $crate::mldsa::lanes::Poly) {
                    $crate::mldsa::lanes::to_ntt_layout_lanes::<$lanes>(values, poly)
                }
            }
            assert_supported();
            // SAFETY: as above.
            unsafe { kernel(values, poly) }
        }
        fn use_hint(w: &mut $crate::mldsa::lanes::Poly, hints: &[bool; 256], gamma2: i32) {
            kernels! {
                fn kernel(w: &mut $crate::mldsa::lanes::Poly, hints: &[bool; 256], gamma2: i32) {
                    $crate::mldsa::arith::use_hint_row(&mut w.0, hints, gamma2)
                }
            }
            assert_supported();
            // SAFETY: as above.
            unsafe { kernel(w, hints, gamma2) }
        }
        fn reject_sample(
            values: &mut [i32; $crate::mldsa::reject::ACCEPTED_ROOM],
            filled: usize,
            bytes: &[u8],
        ) -> usize {
            $crate::mldsa::reject::avx2::reject_sample(values, filled, bytes)
        }
        fn reduce(poly: &mut $crate::mldsa::lanes::Poly) {
            kernels! {
                fn kernel(poly: &mut $crate::mldsa::lanes::Poly) {
                    $crate::mldsa::lanes::reduce_lanes::<$lanes>(poly)
                }
            }
            assert_supported();
            // SAFETY: as above.
            unsafe { kernel(poly) }
        }
    };
}
pub(crate) use simd_kernels;

/// NTT (Algorithm 41) on lanes `L`, through its kernel.
#[inline(always)]
pub(crate) fn ntt<L: Lanes>(poly: &mut Poly) {
    L::ntt(poly)
}

/// NTT⁻¹ (Algorithm 42) on lanes `L`, through its kernel.
#[inline(always)]
pub(crate) fn inverse_ntt<L: Lanes>(poly: &mut Poly) {
    L::inverse_ntt(poly)
}

/// See [`row_product_minus_lanes`].
#[inline(always)]
pub(crate) fn row_product_minus<L: Lanes>(
    acc: &mut Poly,
    a: &[Poly],
    b: &[Poly],
    c: &Poly,
    d: &Poly,
) {
    L::row_product_minus(acc, a, b, c, d)
}

/// See [`reduce_lanes`].
#[inline(always)]
pub(crate) fn reduce<L: Lanes>(poly: &mut Poly) {
    L::reduce(poly)
}

/// Twiddles per lane for the in-block layers, chunk after chunk; see [`tail_table`].
const fn tail_zetas<const N: usize, const LEN: usize>(inverse: bool) -> [i32; LEN] {
    let mut out = [0i32; LEN];
    let mut idx = 0;
    let mut chunk = 0;
    while chunk < 256 / (N * N) {
        // Forward: len = N/2 … 1; inverse: len = 1 … N/2.
        let mut step = 0;
        while (1 << step) < N {
            let len = if inverse { 1 << step } else { N >> (step + 1) };
            let mut group = 0;
            while group < N / (2 * len) {
                let mut lane = 0;
                while lane < N {
                    let block = chunk * N + lane;
                    // Index of this butterfly group among the layer's 128/len groups.
                    let global = N * block / (2 * len) + group;
                    out[idx] = if inverse {
                        -ZETAS[256 / len - 1 - global]
                    } else {
                        ZETAS[128 / len + global]
                    };
                    idx += 1;
                    lane += 1;
                }
                group += 1;
            }
            step += 1;
        }
        chunk += 1;
    }
    out
}

static TAIL_FORWARD_8: [i32; 224] = tail_zetas::<8, 224>(false);
static TAIL_INVERSE_8: [i32; 224] = tail_zetas::<8, 224>(true);
static TAIL_FORWARD_16: [i32; 240] = tail_zetas::<16, 240>(false);
static TAIL_INVERSE_16: [i32; 240] = tail_zetas::<16, 240>(true);

/// Per chunk of N² coefficients, N − 1 twiddle vectors: the in-block layers' groups in
/// the order the NTT visits them.
#[inline(always)]
fn tail_table<L: Lanes>(inverse: bool) -> &'static [i32] {
    match (L::N, inverse) {
        (8, false) => &TAIL_FORWARD_8,
        (8, true) => &TAIL_INVERSE_8,
        (16, false) => &TAIL_FORWARD_16,
        (16, true) => &TAIL_INVERSE_16,
        _ => &[],
    }
}

/// Where coefficient `n` of an NTT-domain polynomial is stored (see the module note);
/// [`to_ntt_layout_lanes`] applies it to whole polynomials.
#[cfg(test)]
pub(crate) fn ntt_position<L: Lanes>(n: usize) -> usize {
    let n_lanes = L::N;
    if n_lanes == 1 {
        return n;
    }
    let square = n_lanes * n_lanes;
    let (chunk, within) = (n / square, n % square);
    let (block, coefficient) = (within / n_lanes, within % n_lanes);
    chunk * square + coefficient * n_lanes + block
}

/// One Cooley–Tukey butterfly (Algorithm 41's inner loop).
#[inline(always)]
fn butterfly<L: Lanes>(x: L, y: L, zeta: L) -> (L, L) {
    let t = y.montgomery_mul(zeta);
    (x.add(t), x.sub(t))
}

/// One Gentleman–Sande butterfly (Algorithm 42's inner loop, twiddle already negated).
#[inline(always)]
fn inverse_butterfly<L: Lanes>(x: L, y: L, zeta: L) -> (L, L) {
    (x.add(y), x.sub(y).montgomery_mul(zeta))
}

/// One butterfly of a register pass: vectors `x` and `y`, and the twiddle's index
/// (into [`ZETAS`], or into the chunk's per-lane twiddle vectors for the in-block
/// layers), which moves by `per_chunk` from one chunk of N² coefficients to the next.
#[derive(Clone, Copy)]
pub(crate) struct Step {
    x: usize,
    y: usize,
    zeta: usize,
    per_chunk: isize,
}

/// The butterflies of one register pass, in order (at most 32 for N ≤ 16).
#[derive(Clone, Copy)]
pub(crate) struct Schedule {
    steps: [Step; 32],
    len: usize,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Pass {
    /// N vectors 256/N apart (a column of every block): layers len = 128 … 256/N.
    Spread,
    /// N consecutive vectors (one chunk): layers len = 128/N … N.
    Chunk,
    /// The same chunk transposed: the in-block layers len = N/2 … 1.
    InBlock,
}

/// Forward layers run from len = 128 down, inverse ones from len = 1 up; within a
/// layer the groups and butterflies are those of Algorithms 41 and 42.
const fn schedule(n: usize, pass: Pass, inverse: bool) -> Schedule {
    let mut out = Schedule {
        steps: [Step {
            x: 0,
            y: 0,
            zeta: 0,
            per_chunk: 0,
        }; 32],
        len: 0,
    };
    if n == 1 {
        return out;
    }
    let stride = 256 / n;
    let (top, bottom) = match pass {
        Pass::Spread => (128, stride),
        Pass::Chunk => (stride / 2, n),
        Pass::InBlock => (n / 2, 1),
    };
    if top < bottom {
        return out;
    }
    let mut twiddle = 0;
    let mut layer = 0;
    loop {
        let len = if inverse {
            bottom << layer
        } else {
            top >> layer
        };
        if (inverse && len > top) || (!inverse && len < bottom) {
            break;
        }
        // Distance between partners in vectors, and groups across the N vectors.
        let distance = match pass {
            Pass::Spread => len / stride,
            Pass::Chunk => len / n,
            Pass::InBlock => len,
        };
        let groups = n / (2 * distance);
        let mut group = 0;
        while group < groups {
            let (zeta, per_chunk) = match (pass, inverse) {
                (Pass::InBlock, _) => (twiddle, 0),
                (Pass::Spread, false) => (128 / len + group, 0),
                (Pass::Spread, true) => (256 / len - 1 - group, 0),
                (Pass::Chunk, false) => (128 / len + group, (n * n / (2 * len)) as isize),
                (Pass::Chunk, true) => (256 / len - 1 - group, -((n * n / (2 * len)) as isize)),
            };
            twiddle += 1;
            let mut k = 2 * distance * group;
            while k < 2 * distance * group + distance {
                out.steps[out.len] = Step {
                    x: k,
                    y: k + distance,
                    zeta,
                    per_chunk,
                };
                out.len += 1;
                k += 1;
            }
            group += 1;
        }
        layer += 1;
    }
    out
}

/// The schedules of a lane width, computed at compile time.
trait Schedules {
    const SPREAD: Schedule;
    const CHUNK: Schedule;
    const IN_BLOCK: Schedule;
    const INVERSE_IN_BLOCK: Schedule;
    const INVERSE_CHUNK: Schedule;
    const INVERSE_SPREAD: Schedule;
}

impl<L: Lanes> Schedules for L {
    const SPREAD: Schedule = schedule(L::N, Pass::Spread, false);
    const CHUNK: Schedule = schedule(L::N, Pass::Chunk, false);
    const IN_BLOCK: Schedule = schedule(L::N, Pass::InBlock, false);
    const INVERSE_IN_BLOCK: Schedule = schedule(L::N, Pass::InBlock, true);
    const INVERSE_CHUNK: Schedule = schedule(L::N, Pass::Chunk, true);
    const INVERSE_SPREAD: Schedule = schedule(L::N, Pass::Spread, true);
}

/// Runs a schedule on registers `v`, unrolled by hand: the schedule is a constant, so
/// each step's indices fold to immediates and `v` stays in registers (a loop over the
/// table, which LLVM declines to unroll, kept `v` on the stack). `twiddle` gives each
/// step's twiddle vector.
#[inline(always)]
fn run<L: Lanes>(
    v: &mut [L; 16],
    schedule: &Schedule,
    inverse: bool,
    twiddle: impl Fn(&Step) -> L,
) {
    macro_rules! steps {
        ($($k:literal)*) => {$(
            if $k < schedule.len {
                let step = schedule.steps[$k];
                let zeta = twiddle(&step);
                (v[step.x], v[step.y]) = if inverse {
                    inverse_butterfly(v[step.x], v[step.y], zeta)
                } else {
                    butterfly(v[step.x], v[step.y], zeta)
                };
            }
        )*};
    }
    steps!(0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23 24 25 26 27 28 29 30 31);
}

/// `v[k]` = the N coefficients at `a[base + step·k..]`, for k < N.
#[inline(always)]
fn load_rows<L: Lanes>(v: &mut [L; 16], a: &[i32], base: usize, step: usize) {
    for (k, x) in v[..L::N].iter_mut().enumerate() {
        *x = L::load(&a[base + step * k..]);
    }
}

/// The inverse of [`load_rows`].
#[inline(always)]
fn store_rows<L: Lanes>(v: &[L; 16], a: &mut [i32], base: usize, step: usize) {
    for (k, x) in v[..L::N].iter().enumerate() {
        x.store(&mut a[base + step * k..]);
    }
}

/// NTT (FIPS 204 Algorithm 41), leaving the result in the transposed layout.
///
/// Two passes over memory instead of eight. The spread pass holds N vectors 256/N
/// apart (one coefficient column of every block) and runs the layers whose butterflies
/// are at least that far apart. The chunk pass holds N² consecutive coefficients, runs
/// the layers down to distance N, transposes, and runs the in-block layers with
/// per-lane twiddles. With N = 1 this is the algorithm as written.
#[inline(always)]
pub(crate) fn ntt_lanes<L: Lanes>(poly: &mut Poly) {
    let a = &mut poly.0;
    let n_lanes = L::N;
    if n_lanes == 1 {
        let mut m = 0;
        let mut len = 128;
        while len >= 1 {
            for start in (0..256).step_by(2 * len) {
                m += 1;
                let zeta = L::splat(ZETAS[m]);
                for j in start..start + len {
                    let (x, y) = butterfly(L::load(&a[j..]), L::load(&a[j + len..]), zeta);
                    x.store(&mut a[j..]);
                    y.store(&mut a[j + len..]);
                }
            }
            len /= 2;
        }
        return;
    }
    let stride = 256 / n_lanes;
    let mut v = [L::splat(0); 16];
    for j in (0..stride).step_by(n_lanes) {
        load_rows(&mut v, a, j, stride);
        run(&mut v, &L::SPREAD, false, |s| L::splat(ZETAS[s.zeta]));
        store_rows(&v, a, j, stride);
    }
    let zetas = tail_table::<L>(false);
    let square = n_lanes * n_lanes;
    for (c, (chunk, chunk_zetas)) in a
        .chunks_exact_mut(square)
        .zip(zetas.chunks_exact(square - n_lanes))
        .enumerate()
    {
        load_rows(&mut v, chunk, 0, n_lanes);
        run(&mut v, &L::CHUNK, false, |s| {
            L::splat(ZETAS[(s.zeta as isize + c as isize * s.per_chunk) as usize])
        });
        L::transpose(&mut v[..n_lanes]);
        run(&mut v, &L::IN_BLOCK, false, |s| {
            L::load(&chunk_zetas[s.zeta * n_lanes..])
        });
        store_rows(&v, chunk, 0, n_lanes);
    }
}

/// NTT⁻¹ (FIPS 204 Algorithm 42) from the transposed layout, scaled by
/// [`INVERSE_NTT_SCALE`]: outputs in (−q, q). Inputs must be below q in absolute value.
/// The passes of [`ntt_lanes`] in reverse, the scaling folded into the last.
#[inline(always)]
pub(crate) fn inverse_ntt_lanes<L: Lanes>(poly: &mut Poly) {
    let a = &mut poly.0;
    let n_lanes = L::N;
    let scale = L::splat(INVERSE_NTT_SCALE);
    if n_lanes == 1 {
        let mut len = 1;
        while len < 256 {
            for (group, start) in (0..256).step_by(2 * len).enumerate() {
                let zeta = L::splat(-ZETAS[256 / len - 1 - group]);
                for j in start..start + len {
                    let (x, y) = inverse_butterfly(L::load(&a[j..]), L::load(&a[j + len..]), zeta);
                    x.store(&mut a[j..]);
                    y.store(&mut a[j + len..]);
                }
            }
            len *= 2;
        }
        for x in a.iter_mut() {
            L::load(core::slice::from_ref(x))
                .montgomery_mul(scale)
                .store(core::slice::from_mut(x));
        }
        return;
    }
    let stride = 256 / n_lanes;
    let mut v = [L::splat(0); 16];
    let zetas = tail_table::<L>(true);
    let square = n_lanes * n_lanes;
    for (c, (chunk, chunk_zetas)) in a
        .chunks_exact_mut(square)
        .zip(zetas.chunks_exact(square - n_lanes))
        .enumerate()
    {
        load_rows(&mut v, chunk, 0, n_lanes);
        run(&mut v, &L::INVERSE_IN_BLOCK, true, |s| {
            L::load(&chunk_zetas[s.zeta * n_lanes..])
        });
        L::transpose(&mut v[..n_lanes]);
        run(&mut v, &L::INVERSE_CHUNK, true, |s| {
            L::splat(-ZETAS[(s.zeta as isize + c as isize * s.per_chunk) as usize])
        });
        store_rows(&v, chunk, 0, n_lanes);
    }
    for j in (0..stride).step_by(n_lanes) {
        load_rows(&mut v, a, j, stride);
        run(&mut v, &L::INVERSE_SPREAD, true, |s| {
            L::splat(-ZETAS[s.zeta])
        });
        for (k, x) in v[..n_lanes].iter().enumerate() {
            x.montgomery_mul(scale).store(&mut a[j + stride * k..]);
        }
    }
}

/// `acc = Σ_j a[j] ∘ b[j] − c ∘ d` (Montgomery products), reduced below q: the NTT-domain
/// w′ of Algorithm 8 line 9 for one row, ready for NTT⁻¹.
#[inline(always)]
pub(crate) fn row_product_minus_lanes<L: Lanes>(
    acc: &mut Poly,
    a: &[Poly],
    b: &[Poly],
    c: &Poly,
    d: &Poly,
) {
    let n_lanes = L::N;
    for j in (0..256).step_by(n_lanes) {
        let mut sum = L::load(&c.0[j..]).montgomery_mul(L::load(&d.0[j..]));
        sum = L::splat(0).sub(sum);
        for (x, y) in a.iter().zip(b) {
            sum = sum.add(L::load(&x.0[j..]).montgomery_mul(L::load(&y.0[j..])));
        }
        sum.reduce32().store(&mut acc.0[j..]);
    }
}

/// Natural NTT order to this backend's: each chunk of N² coefficients is N blocks of
/// N, transposed (see [`ntt_position`]).
#[inline(always)]
pub(crate) fn to_ntt_layout_lanes<L: Lanes>(values: &[i32; 256], poly: &mut Poly) {
    let n_lanes = L::N;
    if n_lanes == 1 {
        poly.0 = *values;
        return;
    }
    let square = n_lanes * n_lanes;
    let mut rows = [L::splat(0); 16];
    for (from, to) in values
        .chunks_exact(square)
        .zip(poly.0.chunks_exact_mut(square))
    {
        load_rows(&mut rows, from, 0, n_lanes);
        L::transpose(&mut rows[..n_lanes]);
        store_rows(&rows, to, 0, n_lanes);
    }
}

/// Every coefficient reduced below q in absolute value.
#[inline(always)]
pub(crate) fn reduce_lanes<L: Lanes>(poly: &mut Poly) {
    for j in (0..256).step_by(L::N) {
        L::load(&poly.0[j..]).reduce32().store(&mut poly.0[j..]);
    }
}

#[cfg(test)]
mod tests {
    use super::portable::Portable;
    use super::*;
    use crate::mldsa::arith::{caddq, Q};
    use rand::{Rng, SeedableRng};

    /// Schoolbook product in Z_q[X]/(X^256 + 1).
    fn negacyclic_product(a: &[i32; 256], b: &[i32; 256]) -> [i32; 256] {
        let mut out = [0i64; 256];
        for i in 0..256 {
            for j in 0..256 {
                let p = a[i] as i64 * b[j] as i64 % Q as i64;
                if i + j < 256 {
                    out[i + j] += p;
                } else {
                    out[i + j - 256] -= p;
                }
            }
        }
        out.map(|x| x.rem_euclid(Q as i64) as i32)
    }

    /// NTT both, multiply, NTT⁻¹: must equal the schoolbook product (the 2^−32 of the
    /// Montgomery product is undone by the scale).
    pub(crate) fn check_multiplication<L: Lanes>(seed: u64) {
        let mut rng = rand::rngs::StdRng::seed_from_u64(seed);
        for _ in 0..4 {
            let mut a = Poly::ZERO;
            let mut b = Poly::ZERO;
            for c in a.0.iter_mut() {
                *c = rng.gen_range(-(1 << 19)..(1 << 19));
            }
            for c in b.0.iter_mut() {
                *c = rng.gen_range(0..Q);
            }
            let expected = negacyclic_product(&a.0, &b.0);
            ntt::<L>(&mut a);
            ntt::<L>(&mut b);
            let mut product = Poly::ZERO;
            row_product_minus::<L>(&mut product, &[a], &[b], &Poly::ZERO, &Poly::ZERO);
            inverse_ntt::<L>(&mut product);
            assert_eq!(product.0.map(caddq), expected, "N = {}", L::N);
        }
    }

    /// The transposed layout of one width is the natural one permuted by `ntt_position`.
    fn check_layout<L: Lanes>() {
        let mut rng = rand::rngs::StdRng::seed_from_u64(7);
        let mut natural = Poly::ZERO;
        for c in natural.0.iter_mut() {
            *c = rng.gen_range(0..Q);
        }
        let mut lanes = natural;
        ntt::<Portable<1>>(&mut natural);
        ntt::<L>(&mut lanes);
        for n in 0..256 {
            let (x, y) = (natural.0[n], lanes.0[ntt_position::<L>(n)]);
            assert_eq!((x - y).rem_euclid(Q), 0, "N = {}, n = {n}", L::N);
        }
    }

    #[cfg(target_arch = "x86_64")]
    #[test]
    fn simd_lanes_multiply_like_the_schoolbook() {
        if avx2::supported() {
            check_multiplication::<linesig_simd::u32x8::U32x8>(4);
            check_layout::<linesig_simd::u32x8::U32x8>();
        }
        if avx512::supported() {
            check_multiplication::<linesig_simd::u32x16::U32x16>(5);
            check_layout::<linesig_simd::u32x16::U32x16>();
        }
    }

    #[test]
    fn portable_widths_multiply_like_the_schoolbook() {
        check_multiplication::<Portable<1>>(1);
        check_multiplication::<Portable<8>>(2);
        check_multiplication::<Portable<16>>(3);
        check_layout::<Portable<8>>();
        check_layout::<Portable<16>>();
    }
}
