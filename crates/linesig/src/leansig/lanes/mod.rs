//! KoalaBear lanes: N field elements per vector, one signature (or one leaf) per lane,
//! and the Poseidon1 / Poseidon2 permutations written once over them.
//!
//! Every leanSig verification performs the same fixed sequence of permutations whatever
//! its inputs, so N signatures share each permutation call: lane k carries signature k.
//!
//! Values are in Montgomery form (x·2^32 mod p), fully reduced to [0, p) after every
//! operation, the form Plonky3's `MontyField31` uses; constants come from
//! [`super::poseidon`], which takes them from Plonky3 so they are the reference's own.
//!
//! Instances: `portable.rs` (`Portable<N>`, any CPU; `Portable<1>` is the scalar path),
//! `avx2.rs` (8 × u32 per `__m256i`), `avx512.rs` (16 × u32 per `__m512i`).

#[cfg(target_arch = "x86_64")]
pub mod avx2;
#[cfg(target_arch = "x86_64")]
pub mod avx512;
pub mod portable;

pub(crate) mod constants;

use constants::{Poseidon1Constants, Poseidon2Constants};

/// KoalaBear: p = 2^31 − 2^24 + 1.
pub const P: u32 = 0x7f00_0001;
/// p⁻¹ mod 2^32, for the Montgomery reduction.
pub const P_INV: u32 = 0x8100_0001;

/// The most lanes a [`KoalaLanes`] has.
const MAX_LANES: usize = 16;

/// N KoalaBear elements in Montgomery form, each in [0, p).
pub trait KoalaLanes: Copy {
    const N: usize;
    fn splat(x: u32) -> Self;
    /// Lanes from `x[..N]`.
    fn load(x: &[u32]) -> Self;
    /// Lanes into `out[..N]`.
    fn store(self, out: &mut [u32]);
    /// Lanes from `x` (fewer than N words: a row's last columns), the rest zero, with
    /// no read past `x`. (The aggregation prover's; verification reads whole lanes.)
    #[inline(always)]
    fn load_partial(x: &[u32]) -> Self {
        debug_assert!(x.len() < Self::N);
        // A fixed-length loop with a condition, not a copy of `x.len()` words: that one
        // becomes a call to `memcpy`, which dominated narrow matrices' transforms.
        let mut words = [0u32; MAX_LANES];
        for (i, word) in words.iter_mut().enumerate().take(Self::N) {
            if i < x.len() {
                *word = x[i];
            }
        }
        Self::load(&words)
    }
    /// The first `out.len()` (fewer than N) lanes into `out`, with no write past it.
    #[inline(always)]
    fn store_partial(self, out: &mut [u32]) {
        debug_assert!(out.len() < Self::N);
        let mut words = [0u32; MAX_LANES];
        self.store(&mut words);
        for (i, word) in words.iter().enumerate().take(Self::N) {
            if i < out.len() {
                out[i] = *word;
            }
        }
    }
    fn add(self, other: Self) -> Self;
    fn sub(self, other: Self) -> Self;
    /// Montgomery product: a·b·2^−32 mod p.
    fn mul(self, other: Self) -> Self;
    /// x·2^−k mod p for 1 ≤ k ≤ 24, by shifts (see [`div_2exp_scalar`]).
    fn div_2exp(self, k: u32) -> Self;
    /// Σ x_j·c_j for Montgomery-form constants c (equal lengths). SIMD backends reduce
    /// once per two products.
    #[inline(always)]
    fn dot(x: &[Self], c: &[u32]) -> Self {
        x.iter()
            .zip(c)
            .map(|(x, &c)| x.mul(Self::splat(c)))
            .reduce(Self::add)
            .expect("a non-empty dot product")
    }

    /// Kernels: the permutations compiled for the backend's target features (see
    /// `simd_permutations!`); the portable instance runs the generic code as is.
    fn poseidon1_16(state: &mut [Self; 16]) {
        poseidon1_lanes(state, &constants::constants().poseidon1_16)
    }
    fn poseidon1_24(state: &mut [Self; 24]) {
        poseidon1_lanes(state, &constants::constants().poseidon1_24)
    }
    fn poseidon2_16(state: &mut [Self; 16]) {
        poseidon2_lanes(state, &constants::constants().poseidon2_16)
    }
    fn poseidon2_24(state: &mut [Self; 24]) {
        poseidon2_lanes(state, &constants::constants().poseidon2_24)
    }
}

/// Scalar Montgomery product, shared by the portable lanes and the constant tables.
#[inline(always)]
pub const fn monty_mul(a: u32, b: u32) -> u32 {
    let t = a as u64 * b as u64;
    let q = (t as u32).wrapping_mul(P_INV);
    // t ≡ q·p (mod 2^32), so the low halves cancel and the high halves' difference is
    // the exact Montgomery result, in (−p, p).
    let r = ((t >> 32) as u32).wrapping_sub(((q as u64 * P as u64) >> 32) as u32);
    if r >= P {
        r.wrapping_add(P)
    } else {
        r
    }
}

/// Scalar a + b mod p, for a, b < p.
pub const fn add_mod(a: u32, b: u32) -> u32 {
    let s = a + b;
    if s >= P {
        s - P
    } else {
        s
    }
}

/// x·2^−k mod p for x < p and 1 ≤ k ≤ 24, without a product: p ≡ 1 (mod 2^24), so
/// t = −x mod 2^k makes x + t·p divisible by 2^k, and (x + t·p)/2^k =
/// (x + t)/2^k + t·127·2^(24−k) < 2p (p − 1 = 127·2^24). Plonky3 halves the same way.
/// The SIMD backends run this formula on every lane.
#[inline(always)]
pub const fn div_2exp_scalar(x: u32, k: u32) -> u32 {
    let t = x.wrapping_neg() & ((1 << k) - 1);
    let y = ((x + t) >> k) + t * (127 << (24 - k));
    if y >= P {
        y - P
    } else {
        y
    }
}

/// One entry V_i of Poseidon2's internal matrix 1 + diag(V), in the cheapest form that
/// computes V_i·x.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DiagonalEntry {
    /// ±k for k in 1..=4: additions.
    Small { k: u32, negative: bool },
    /// ±2^−k: [`KoalaLanes::div_2exp`].
    InversePowerOfTwo { k: u32, negative: bool },
    /// Anything else: a Montgomery product with this constant.
    Product(u32),
}

#[inline(always)]
fn diagonal_times<L: KoalaLanes>(x: L, entry: DiagonalEntry) -> (L, bool) {
    match entry {
        DiagonalEntry::Small { k, negative } => {
            let two = x.add(x);
            let y = match k {
                1 => x,
                2 => two,
                3 => two.add(x),
                _ => two.add(two),
            };
            (y, negative)
        }
        DiagonalEntry::InversePowerOfTwo { k, negative } => (x.div_2exp(k), negative),
        DiagonalEntry::Product(c) => (x.mul(L::splat(c)), false),
    }
}

/// 2^64 mod p: a Montgomery product with it takes a canonical value to Montgomery form.
pub const R2: u32 = ((1u128 << 64) % P as u128) as u32;

/// Canonical value → Montgomery form.
pub const fn to_monty(x: u32) -> u32 {
    (((x as u64) << 32) % P as u64) as u32
}

/// Montgomery form → canonical value.
pub const fn from_monty(x: u32) -> u32 {
    monty_mul(x, 1)
}

#[inline(always)]
fn cube<L: KoalaLanes>(x: L) -> L {
    x.mul(x).mul(x)
}

/// How a circulant of width W splits for [`circulant_mul`]: W = n·m with n a power of
/// two (an n-point NTT exists: 2^24 divides p − 1) and m coprime to n.
pub const fn circulant_split(width: usize) -> (usize, usize) {
    match width {
        16 => (16, 1),
        24 => (8, 3),
        _ => panic!("no circulant split for this width"),
    }
}

/// A circulant matrix (Poseidon1's MDS) prepared as a cyclic convolution.
///
/// y = C·x is the cyclic convolution of C's first column with x over Z_W. With W = n·m
/// and gcd(n, m) = 1, Z_W ≅ Z_n × Z_m (i ↦ (i mod n, i mod m)), so it is a 2-D cyclic
/// convolution: an n-point NTT along the first axis turns it into n independent m-point
/// cyclic convolutions, and an inverse NTT brings it back. For width 24 (n = 8, m = 3)
/// that is 102 products instead of 576; for width 16 (n = 16, m = 1), 50 instead of 256.
pub struct Circulant<const W: usize> {
    /// The state index of CRT position (a, b), stored at a·m + b.
    pub index: [usize; W],
    /// ω^t for t < n/2, ω a primitive n-th root of unity; and ω^−t.
    pub twiddles: Vec<u32>,
    pub inverse_twiddles: Vec<u32>,
    /// The first column's transform times n⁻¹, in the forward transform's (bit-reversed)
    /// order: entry k·m + b.
    pub spectrum: [u32; W],
}

/// Forward NTT (decimation in frequency: natural order in, bit-reversed out) of column b
/// of a [a·m + b] layout.
#[inline(always)]
pub fn ntt_column<L: KoalaLanes, const W: usize>(x: &mut [L; W], b: usize, twiddles: &[u32]) {
    let (n, m) = circulant_split(W);
    let mut half = n / 2;
    while half >= 1 {
        for start in (0..n).step_by(2 * half) {
            for j in 0..half {
                let (i, k) = ((start + j) * m + b, (start + j + half) * m + b);
                let (u, v) = (x[i], x[k]);
                x[i] = u.add(v);
                let d = u.sub(v);
                // ω^0 = 1: no product.
                x[k] = if j == 0 {
                    d
                } else {
                    d.mul(L::splat(twiddles[j * n / (2 * half)]))
                };
            }
        }
        half /= 2;
    }
}

/// Inverse NTT without the 1/n (decimation in time: bit-reversed in, natural out).
#[inline(always)]
fn inverse_ntt_column<L: KoalaLanes, const W: usize>(x: &mut [L; W], b: usize, twiddles: &[u32]) {
    let (n, m) = circulant_split(W);
    let mut half = 1;
    while half < n {
        for start in (0..n).step_by(2 * half) {
            for j in 0..half {
                let (i, k) = ((start + j) * m + b, (start + j + half) * m + b);
                let u = x[i];
                let v = if j == 0 {
                    x[k]
                } else {
                    x[k].mul(L::splat(twiddles[j * n / (2 * half)]))
                };
                x[i] = u.add(v);
                x[k] = u.sub(v);
            }
        }
        half *= 2;
    }
}

/// y = C·x for a circulant C, through its [`Circulant`] form.
#[inline(always)]
fn circulant_mul<L: KoalaLanes, const W: usize>(state: &mut [L; W], c: &Circulant<W>) {
    let (n, m) = circulant_split(W);
    let mut x: [L; W] = core::array::from_fn(|t| state[c.index[t]]);
    for b in 0..m {
        ntt_column(&mut x, b, &c.twiddles);
    }
    // Per frequency k, an m-point cyclic convolution with the spectrum.
    let mut y = x;
    for k in 0..n {
        for out in 0..m {
            let mut acc = x[k * m].mul(L::splat(c.spectrum[k * m + out]));
            for b in 1..m {
                let s = c.spectrum[k * m + (out + m - b) % m];
                acc = acc.add(x[k * m + b].mul(L::splat(s)));
            }
            y[k * m + out] = acc;
        }
    }
    for b in 0..m {
        inverse_ntt_column(&mut y, b, &c.inverse_twiddles);
    }
    for t in 0..W {
        state[c.index[t]] = y[t];
    }
}

/// y = M·x for a dense matrix of Montgomery-form constants.
#[inline(always)]
fn dense_mul<L: KoalaLanes, const W: usize>(state: &mut [L; W], matrix: &[[u32; W]; W]) {
    let x = *state;
    for (out, row) in state.iter_mut().zip(matrix) {
        *out = L::dot(&x, row);
    }
}

/// Poseidon1 (Hades) as Plonky3 computes it: RF/2 full rounds, the RP partial rounds in
/// the sparse-matrix form of the Poseidon paper's Appendix B (one dense transition
/// matrix, then per round one S-box, one scalar constant and a first-row/first-column
/// matrix), and RF/2 full rounds. Equal to the textbook permutation; tests pin it to
/// Plonky3's.
#[inline(always)]
pub fn poseidon1_lanes<L: KoalaLanes, const W: usize>(
    state: &mut [L; W],
    k: &Poseidon1Constants<W>,
) {
    // Plain loops, not closures: a closure would not inherit the kernel's target
    // features, and the lane operations would not inline into it.
    for rc in &k.initial {
        full_round(state, rc, &k.mds);
    }
    for (s, &c) in state.iter_mut().zip(&k.first_round_constants) {
        *s = s.add(L::splat(c));
    }
    dense_mul(state, &k.m_i);
    let rounds = k.sparse_first_row.len();
    for r in 0..rounds {
        let mut s0 = cube(state[0]);
        if r + 1 < rounds {
            s0 = s0.add(L::splat(k.round_constants[r]));
        }
        // New state[0] is the first row's dot product; the rest take a multiple of the
        // old state[0] (the first column).
        let row = &k.sparse_first_row[r];
        let acc = L::dot(
            &core::array::from_fn::<L, W, _>(|j| if j == 0 { s0 } else { state[j] }),
            row,
        );
        let v = &k.v[r];
        for j in 1..W {
            state[j] = state[j].add(s0.mul(L::splat(v[j - 1])));
        }
        state[0] = acc;
    }
    for rc in &k.terminal {
        full_round(state, rc, &k.mds);
    }
}

#[inline(always)]
fn full_round<L: KoalaLanes, const W: usize>(
    state: &mut [L; W],
    rc: &[u32; W],
    mds: &Circulant<W>,
) {
    for (s, &c) in state.iter_mut().zip(rc) {
        *s = cube(s.add(L::splat(c)));
    }
    circulant_mul(state, mds);
}

#[inline(always)]
fn external_round<L: KoalaLanes, const W: usize>(state: &mut [L; W], rc: &[u32; W]) {
    for (s, &c) in state.iter_mut().zip(rc) {
        *s = cube(s.add(L::splat(c)));
    }
    external_layer(state);
}

/// Plonky3's 4×4 block of the Poseidon2 external layer, [[2,3,1,1],[1,2,3,1],[1,1,2,3],
/// [3,1,1,2]], in additions only.
#[inline(always)]
fn mat4<L: KoalaLanes>(x: &mut [L]) {
    let t01 = x[0].add(x[1]);
    let t23 = x[2].add(x[3]);
    let t0123 = t01.add(t23);
    let t01123 = t0123.add(x[1]);
    let t01233 = t0123.add(x[3]);
    let y3 = t01233.add(x[0].add(x[0]));
    let y1 = t01123.add(x[2].add(x[2]));
    x[0] = t01123.add(t01);
    x[2] = t01233.add(t23);
    x[1] = y1;
    x[3] = y3;
}

/// The Poseidon2 external layer: circ(2·M4, M4, …, M4), i.e. M4 on each block of four,
/// then every element gains the sum of its column position over all blocks.
#[inline(always)]
fn external_layer<L: KoalaLanes, const W: usize>(state: &mut [L; W]) {
    for block in state.chunks_exact_mut(4) {
        mat4(block);
    }
    let mut sums = [state[0], state[1], state[2], state[3]];
    for block in state[4..].chunks_exact(4) {
        for (s, &x) in sums.iter_mut().zip(block) {
            *s = s.add(x);
        }
    }
    for (i, s) in state.iter_mut().enumerate() {
        *s = s.add(sums[i % 4]);
    }
}

/// Poseidon2 as Plonky3 computes it: the external layer, RF/2 external rounds, RP
/// internal rounds (constant and S-box on state[0], then 1 + diag(V)), RF/2 external
/// rounds.
#[inline(always)]
pub fn poseidon2_lanes<L: KoalaLanes, const W: usize>(
    state: &mut [L; W],
    k: &Poseidon2Constants<W>,
) {
    external_layer(state);
    for rc in &k.initial {
        external_round(state, rc);
    }
    for &c in &k.internal {
        state[0] = cube(state[0].add(L::splat(c)));
        let mut sum = state[0];
        for s in &state[1..] {
            sum = sum.add(*s);
        }
        for (s, &entry) in state.iter_mut().zip(&k.diagonal) {
            let (product, negative) = diagonal_times(*s, entry);
            *s = if negative {
                sum.sub(product)
            } else {
                sum.add(product)
            };
        }
    }
    for rc in &k.terminal {
        external_round(state, rc);
    }
}

/// The four permutation kernels of a SIMD backend, expanded in its `isa_path!` module:
/// each compiled with the path's features (its `kernels!`) so the lane operations inline
/// into one function, and each asserting CPU support first.
macro_rules! simd_permutations {
    ($lanes:ty) => {
        $crate::leansig::lanes::simd_permutations!(@kernel $lanes, poseidon1_16, 16, poseidon1_lanes);
        $crate::leansig::lanes::simd_permutations!(@kernel $lanes, poseidon1_24, 24, poseidon1_lanes);
        $crate::leansig::lanes::simd_permutations!(@kernel $lanes, poseidon2_16, 16, poseidon2_lanes);
        $crate::leansig::lanes::simd_permutations!(@kernel $lanes, poseidon2_24, 24, poseidon2_lanes);
    };
    // One kernel: `$name` of width `$width`, the generic `$generic` over `$name`'s
    // constants.
    (@kernel $lanes:ty, $name:ident, $width:literal, $generic:ident) => {
        fn $name(state: &mut [Self; $width]) {
            kernels! {
                fn kernel(state: &mut [$lanes; $width]) {
                    let k = &$crate::leansig::lanes::constants::constants().$name;
                    $crate::leansig::lanes::$generic(state, k)
                }
            }
            assert_supported();
            // SAFETY: the CPU has the features, asserted just above.
            unsafe { kernel(state) }
        }
    };
}
pub(crate) use simd_permutations;
