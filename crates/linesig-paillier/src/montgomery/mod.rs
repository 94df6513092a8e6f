//! Eight modular exponentiations at once, one per 64-bit lane, in radix 2^52: the
//! multi-buffer kernel behind the Paillier array calls (Gueron and Krasnov, "Accelerating
//! big integer arithmetic using Intel IFMA extensions", ARITH 2016). All lanes share one
//! odd modulus N (n², p² or q²) and each holds its own operand, so the modulus limbs are
//! broadcasts and every lane follows the same instruction stream.
//!
//! The arithmetic is written once over [`Lanes52`], eight lanes of `u64` with the two
//! IFMA products as primitives. [`portable::Portable`] models those instructions exactly
//! in plain Rust and runs on every CPU (the tests' oracle for the layout and bounds);
//! `ifma`'s lanes are linesig-simd's `U64x8`, one `__m512i`, and the instructions themselves.
//!
//! **Square moduli, two digits.** Paillier's moduli are all squares (n² for encryption,
//! p² and q² for decryption), and the kernel takes only those: N = m² for an odd root m
//! it is given. A value X mod m² is held as its two digits base m, X ≡ x₀ + x₁·m, each
//! digit `limbs` limbs with `limbs` = ⌈(bits(m) + 4)/52⌉, so that R = 2^(52·limbs) ≥
//! 16m. With X̃ = x₀ + x₁·m and Ỹ = y₀ + y₁·m in the Montgomery domain,
//!
//! X̃·Ỹ·R⁻¹ ≡ (x₀y₀ + (x₀y₁ + x₁y₀)·m)·R⁻¹ (mod m²), the x₁y₁·m² term being zero;
//! z₀ = (x₀y₀ + q·m)/R is the Montgomery product of the low digits, whose quotient q makes
//! x₀y₀ = z₀·R − q·m exactly; so X̃·Ỹ·R⁻¹ ≡ z₀ + m·((x₀y₁ + x₁y₀ − q)·R⁻¹ mod m), and the
//! high digit z₁ is one more Montgomery reduction by m, of x₀y₁ + x₁y₀ − q made
//! non-negative by a multiple of m (see [`SquareModulus52`]'s `high_addend`).
//!
//! Counted in limb products (k = limbs), the plain product mod m² (2k limbs) takes 4k²
//! for the multiplication and 4k² for the reduction, 8k²; the two-digit one k² + k² for
//! the low digit and 2k² + k² for the high, 5k². A square takes k²/2 + k² + k² + k² =
//! 3.5k² against 2k² + 4k² = 6k². Digits stay below 2m: z₀ < 4m²/R + m and z₁ <
//! 8m²/R + 1 + m/R + m, both below 2m for R ≥ 16m, so every product's output is again
//! a valid input; a value is brought to [0, N) once, exactly, as it leaves the kernel
//! (`SquareModulus52::lanes_to_integers`). Against one digit of full width this made
//! every array call about a third faster or more (docs/results.md, Paillier).
//!
//! **Representation.** A digit is `limbs` vectors; vector j holds limb j (bits
//! 52j..52j+52) of each lane's digit. In memory every digit (and m) is *padded*: [`PAD`]
//! zero vectors, the limbs, [`PAD`] zero vectors, so that a block of columns can read
//! limbs just outside the digit as zeros; a value is its low digit then its high digit,
//! each padded ([`pair_len`]).
//!
//! **Montgomery reduction** ([`reduce_block`]): "almost Montgomery" (AMM), product
//! scanning with the reduction interleaved (Koç, Acar, Kaliski, "Analyzing and comparing
//! Montgomery multiplication algorithms", 1996, FIPS). Column c sums the low halves of
//! the 104-bit limb products (a_i·b_j, i + j = c, for each product summed) and of
//! q_i·m_j (i + j = c, i < c), the high halves of those with i + j = c − 1, any addend
//! limb, and the carry out of column c − 1. For c < limbs the quotient digit q_c =
//! (column · (−m⁻¹)) mod 2^52 clears the column's low 52 bits; for c ≥ limbs the column's
//! low 52 bits are result limb c − limbs. Bounds: every term is below 2^52; the high
//! digit's columns, the fullest, have at most 3·limbs low and 3·limbs high terms (two
//! products and q·m) and an addend below 2^53, so a column stays below (6·limbs + 4)·2^52
//! < 2^64 for limbs ≤ [`MAX_LIMBS`]; results come out with every limb below 2^52.
//!
//! The columns are computed [`BLOCK`] (4) at a time: one loop over i serves all four,
//! loading a_i and one new b_j per step for eight products (a column at a time loads
//! two vectors per two products, and the load ports, not the multipliers, set the
//! pace), and the serial part of the reduction, q_k and the carry, runs at the block's
//! end. That brought a 40-limb square close to the core's IFMA issue rate
//! (docs/results.md, Paillier).
//!
//! **Exponentiation** ([`power_common_lanes`]) is a window ladder with one exponent for
//! all lanes (n for encryption; p − 1, q − 1 for decryption), in one of two schedules
//! ([`Secrecy`]). A secret exponent gets fixed windows: its schedule is its public
//! length, `window` squarings and one product per digit, a product even for digit 0,
//! and every table read scans the whole table with masks, so no branch and no address
//! depends on its bits; that is what makes decryption's exponentiations constant-time in
//! the secret factors (GMP's `mpz_powm`, used for short tails and single calls, is not). A
//! scan reads the whole table, 80 KiB for p² of a 2048-bit key, more than a core's L1,
//! so it runs at the pace of L2; it is spread in slices over the squarings before its
//! product ([`SpreadScan`]), where it overlaps with their multiplications: most of what
//! reading entries by address (not constant-time) would gain (docs/results.md).
//! Encryption's exponent n is public, so it gets sliding windows over a table of odd
//! powers, each entry read in place: for a 2048-bit n about 320 products (256 windows
//! of up to 7 bits, 64 odd powers) instead of 405 (341 digits of 6 bits, 64 powers), and
//! no scan of a 340 KB table per digit, which had cost a tenth of the time.
//! [`power_fixed_base_lanes`] (DJN) reads one entry per lane by its own digit of α: fast,
//! but its addresses depend on α, so it is *not* constant-time; neither is the GMP table
//! it replaces.

pub(crate) mod portable;

#[cfg(target_arch = "x86_64")]
pub(crate) mod ifma;

use rug::integer::Order;
use rug::ops::RemRounding;
use rug::Integer;

/// Lanes per vector: one exponentiation each.
pub(crate) const LANES: usize = 8;

/// Bits per limb: the width of the IFMA multiplier's inputs.
pub(crate) const LIMB_BITS: u32 = 52;

pub(crate) const LIMB_MASK: u64 = (1 << LIMB_BITS) - 1;

/// Most limbs a digit may have: the column bound above ((6·limbs + 4)·2^52 < 2^64 leaves
/// room up to 681 limbs; 600 is a round margin, roots of about 31,000 bits).
pub(crate) const MAX_LIMBS: usize = 600;

/// Eight 64-bit lanes and the operations the kernel needs. Backends implement it over
/// their registers; the arithmetic lives once, in this module.
///
/// Safety contract for SIMD implementations: a value is only made by code reached from
/// the backend's kernels, after the CPU was checked for its features.
pub(crate) trait Lanes52: Copy {
    fn zero() -> Self;
    fn splat(x: u64) -> Self;
    fn from_array(values: [u64; LANES]) -> Self;
    fn to_array(self) -> [u64; LANES];
    /// Lane-wise wrapping a + b.
    fn add(self, rhs: Self) -> Self;
    /// Lane-wise wrapping a − b.
    fn sub(self, rhs: Self) -> Self;
    fn and(self, rhs: Self) -> Self;
    fn or(self, rhs: Self) -> Self;
    /// Lane-wise logical shift right by 52.
    fn shr52(self) -> Self;
    /// `vpmadd52luq`: self + the low 52 bits of (a mod 2^52)·(b mod 2^52), wrapping.
    fn madd52lo(self, a: Self, b: Self) -> Self;
    /// `vpmadd52huq`: self + the high 52 bits of (a mod 2^52)·(b mod 2^52), wrapping.
    fn madd52hi(self, a: Self, b: Self) -> Self;

    /// The kernels: the generic code below, which SIMD backends override to run inside
    /// a function compiled with their target features (LLVM only inlines intrinsics into
    /// such a function; for the same reason no loop of the generic code sits in a
    /// closure, which the compiler may compile out of line without those features).
    /// Values in and out are pairs of padded digits ([`pair_zero`]).
    fn power_common(
        modulus: &SquareModulus52,
        bases: &[Self],
        exponent: &CommonExponent,
        factors: &[Self],
        out: &mut [Self],
    ) {
        power_common_lanes(modulus, bases, exponent, factors, out)
    }
    fn power_fixed_base(
        table: &FixedBase52,
        digits: &[[u32; LANES]],
        factors: &[Self],
        out: &mut [Self],
    ) {
        power_fixed_base_lanes(table, digits, factors, out)
    }
    fn to_montgomery(modulus: &SquareModulus52, values: &[Self], out: &mut [Self]) {
        to_montgomery_lanes(modulus, values, out)
    }
}

/// A square modulus N = m² (m odd, ≥ 3) in the kernel's form: m's limbs and the
/// constants of the two-digit product of the module note.
#[derive(Clone, Debug)]
pub(crate) struct SquareModulus52 {
    root: Integer,
    modulus: Integer,
    /// Limbs of one digit.
    limbs: usize,
    /// m's limbs.
    m: Vec<u64>,
    /// −m⁻¹ mod 2^52.
    m_prime: u64,
    /// Added to column j < limbs of the high digit's reduction, before q_j is taken
    /// away: (2^52 − 1) + d_j, plus one in column 0, with d = m·⌈R/m⌉ − R ∈ [0, m). In
    /// all R − 1 − q + 1 + d = m·⌈R/m⌉ − q ≡ −q (mod m), and no column goes negative.
    high_addend: Vec<u64>,
    /// R² mod N as two digits (R = 2^(52·limbs)): multiplying by it enters the
    /// Montgomery domain.
    r_squared: [Vec<u64>; 2],
    /// R mod N as two digits: one in the Montgomery domain.
    r: [Vec<u64>; 2],
}

impl SquareModulus52 {
    /// The kernel's form of m²; `None` for an even root, one below 3, or one wider
    /// than [`MAX_LIMBS`] limbs.
    pub(crate) fn new(root: &Integer) -> Option<Self> {
        if *root < 3 || root.is_even() {
            return None;
        }
        let limbs = (root.significant_bits() + 4).div_ceil(LIMB_BITS) as usize;
        if limbs > MAX_LIMBS {
            return None;
        }
        let modulus = Integer::from(root.square_ref());
        let radix = Integer::from(1) << LIMB_BITS;
        let m_prime = Integer::from(root.invert_ref(&radix)?);
        let m_prime = (&radix - m_prime) % &radix;
        let big_r = Integer::from(1) << (LIMB_BITS as usize * limbs) as u32;
        let d = Integer::from(-&big_r).rem_euc(root);
        let mut high_addend: Vec<u64> = to_limbs(&d, limbs)
            .into_iter()
            .map(|d| d + LIMB_MASK)
            .collect();
        high_addend[0] += 1;
        let r = Integer::from(&big_r % &modulus);
        let r_squared = Integer::from(r.square_ref()) % &modulus;
        let digits = |x: &Integer| split_digits(x, root).map(|d| to_limbs(&d, limbs));
        Some(SquareModulus52 {
            m: to_limbs(root, limbs),
            m_prime: m_prime.to_u64().expect("below 2^52"),
            high_addend,
            r_squared: digits(&r_squared),
            r: digits(&r),
            root: root.clone(),
            modulus,
            limbs,
        })
    }

    /// N = m².
    pub(crate) fn modulus(&self) -> &Integer {
        &self.modulus
    }

    /// factor_i·base_i^exponent mod N for eight bases and factors, each in [0, N) (no
    /// factors: one), on the lanes `L`.
    pub(crate) fn power<L: Lanes52>(
        &self,
        bases: &[Integer; LANES],
        exponent: &Integer,
        secrecy: Secrecy,
        factors: Option<&[Integer; LANES]>,
    ) -> [Integer; LANES] {
        let exponent = CommonExponent::new(exponent, self.limbs, secrecy);
        let bases = self.to_lanes::<L>(bases);
        let factors = self.factors_to_lanes::<L>(factors);
        let mut out = pair_zero(self.limbs);
        L::power_common(self, &bases, &exponent, &factors, &mut out);
        self.lanes_to_integers(&out)
    }

    /// The factors a power ends with, as lanes: one in every lane when there are none.
    fn factors_to_lanes<L: Lanes52>(&self, factors: Option<&[Integer; LANES]>) -> Vec<L> {
        match factors {
            Some(factors) => self.to_lanes(factors),
            None => {
                let mut one = pair_zero(self.limbs);
                one[PAD] = L::splat(1);
                one
            }
        }
    }

    /// Eight values in [0, N) as lanes of their two digits (lane i holding value i).
    fn to_lanes<L: Lanes52>(&self, values: &[Integer; LANES]) -> Vec<L> {
        // A value from N up would give a high digit of m or more, past the bounds the
        // products rely on; the callers reduce first (c mod p²) or draw below n.
        debug_assert!(values.iter().all(|v| *v >= 0 && *v < self.modulus));
        self.digits_to_lanes(&values.each_ref().map(|v| split_digits(v, &self.root)))
    }

    /// Eight values given by their digits (each below 2^(52·limbs)) as lanes.
    fn digits_to_lanes<L: Lanes52>(&self, digits: &[[Integer; 2]; LANES]) -> Vec<L> {
        let limbs = self.limbs;
        let mut out = pair_zero(limbs);
        for (half, digit) in out.chunks_exact_mut(digit_len(limbs)).zip(0..2) {
            let per_lane: Vec<Vec<u64>> =
                digits.iter().map(|d| to_limbs(&d[digit], limbs)).collect();
            for (j, o) in half[PAD..PAD + limbs].iter_mut().enumerate() {
                *o = L::from_array(core::array::from_fn(|lane| per_lane[lane][j]));
            }
        }
        out
    }

    /// The digits held by eight lanes.
    fn lanes_to_digits<L: Lanes52>(&self, lanes: &[L]) -> [[Integer; 2]; LANES] {
        let limbs = self.limbs;
        let halves: Vec<Vec<[u64; LANES]>> = lanes
            .chunks_exact(digit_len(limbs))
            .map(|half| {
                half[PAD..PAD + limbs]
                    .iter()
                    .map(|v| v.to_array())
                    .collect()
            })
            .collect();
        core::array::from_fn(|lane| {
            core::array::from_fn(|digit| {
                let limbs: Vec<u64> = halves[digit].iter().map(|a| a[lane]).collect();
                from_limbs(&limbs)
            })
        })
    }

    /// The eight values x₀ + x₁·m mod N in [0, N) whose digits (each below 2m) these
    /// lanes hold: the one reduction a value gets, as it leaves the kernel.
    fn lanes_to_integers<L: Lanes52>(&self, lanes: &[L]) -> [Integer; LANES] {
        self.lanes_to_digits(lanes).map(|[low, high]| {
            // Below 2m + 2m·m < 3N: at most two subtractions.
            let mut value = high * &self.root + low;
            while value >= self.modulus {
                value -= &self.modulus;
            }
            value
        })
    }
}

/// x's two digits base m, [x mod m, ⌊x/m⌋], for x ≥ 0.
fn split_digits(x: &Integer, root: &Integer) -> [Integer; 2] {
    let (high, low) = x.clone().div_rem_euc(root.clone());
    [low, high]
}

/// Whether an exponent is a secret, which decides the ladder's schedule and how it reads
/// its table.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Secrecy {
    /// Public (encryption's n): sliding windows over odd powers, each entry read in
    /// place; the schedule follows the exponent's bits, which are no secret.
    Public,
    /// Secret (decryption's p − 1 and q − 1): fixed windows, a product for every digit
    /// (zero included), and each read scans the whole table and keeps its entry by mask,
    /// so that neither a branch nor an address depends on the exponent.
    Secret,
}

/// One step of a ladder: `squarings` squarings, then a product by table entry `entry`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct LadderStep {
    squarings: u32,
    entry: u32,
}

/// An exponent shared by all lanes, as the ladder runs it: the table, then `steps` (the
/// first starts from its entry, without squarings), then `trailing` squarings.
#[derive(Clone, Debug)]
pub(crate) struct CommonExponent {
    /// Bits per window.
    window: u32,
    secrecy: Secrecy,
    steps: Vec<LadderStep>,
    trailing: u32,
}

impl CommonExponent {
    /// `exponent` (≥ 0) for a `limbs`-limb modulus, with the window of [`common_window`].
    pub(crate) fn new(exponent: &Integer, limbs: usize, secrecy: Secrecy) -> Self {
        let window = common_window(exponent.significant_bits(), limbs, secrecy);
        let (steps, trailing) = match secrecy {
            Secrecy::Secret => (fixed_window_steps(exponent, window), 0),
            Secrecy::Public => sliding_window_steps(exponent, window),
        };
        CommonExponent {
            window,
            secrecy,
            steps,
            trailing,
        }
    }

    /// Entries of the ladder's table: base^d for every d < 2^window (fixed windows), or
    /// the odd powers base^(2i+1), i < 2^(window−1) (sliding windows).
    fn table_entries(&self) -> usize {
        match self.secrecy {
            Secrecy::Secret => 1 << self.window,
            Secrecy::Public => 1 << (self.window - 1),
        }
    }
}

/// The window that leaves the least work besides the squarings (the same for all), for
/// an exponent of `bits` bits mod m² with `limbs`-limb digits, counting a product as
/// 5·limbs (its 10·limbs² IFMA per vector of a value's 2·limbs) and a scanned table
/// vector as 1. Fixed windows (secret exponents): a
/// product and a scan of 2^w entries per digit, plus 2^w products to build the table;
/// capped at 6. Sliding windows (public): a product per bits/(w + 1) bits on average,
/// plus 2^(w−1) to build the table; capped at 7.
pub(crate) fn common_window(bits: u32, limbs: usize, secrecy: Secrecy) -> u32 {
    let product = 5 * limbs as u64;
    let cost = |w: u32| match secrecy {
        Secrecy::Secret => {
            let entries = 1u64 << w;
            u64::from(bits.div_ceil(w)) * (product + entries) + entries * product
        }
        Secrecy::Public => (u64::from(bits / (w + 1)) + (1 << (w - 1))) * product,
    };
    let widest = match secrecy {
        Secrecy::Secret => 6,
        Secrecy::Public => 7,
    };
    (1..=widest)
        .min_by_key(|&w| cost(w))
        .expect("non-empty range")
}

/// Fixed windows: the first digit's entry, then `window` squarings and a product for
/// every further digit, zero included.
fn fixed_window_steps(exponent: &Integer, window: u32) -> Vec<LadderStep> {
    window_digits(exponent, window)
        .into_iter()
        .enumerate()
        .map(|(i, digit)| LadderStep {
            squarings: if i == 0 { 0 } else { window },
            entry: digit,
        })
        .collect()
}

/// Sliding windows, most significant bit first: each window starts at a set bit, spans
/// at most `window` bits and ends at a set bit, so its value is odd (entry (value − 1)/2);
/// zero bits between windows are squarings. Returns the steps and the squarings after
/// the last window (no steps for exponent 0).
fn sliding_window_steps(exponent: &Integer, window: u32) -> (Vec<LadderStep>, u32) {
    let words = exponent.to_digits::<u64>(Order::Lsf);
    let bit = |i: u32| bits_at(&words, i, 1) == 1;
    let mut steps = Vec::new();
    let mut pending = 0;
    let mut top = exponent.significant_bits();
    while top > 0 {
        let high = top - 1;
        if !bit(high) {
            pending += 1;
            top -= 1;
            continue;
        }
        let mut low = (high + 1).saturating_sub(window);
        while !bit(low) {
            low += 1;
        }
        let width = high - low + 1;
        let value = bits_at(&words, low, width) as u32;
        steps.push(LadderStep {
            squarings: if steps.is_empty() { 0 } else { pending + width },
            entry: (value - 1) / 2,
        });
        pending = 0;
        top = low;
    }
    (steps, pending)
}

/// The exponent's `window`-bit digits, most significant first; at least one.
pub(crate) fn window_digits(exponent: &Integer, window: u32) -> Vec<u32> {
    let count = exponent.significant_bits().div_ceil(window).max(1);
    let words = exponent.to_digits::<u64>(Order::Lsf);
    (0..count)
        .rev()
        .map(|i| bits_at(&words, i * window, window) as u32)
        .collect()
}

/// The `width` bits (≤ 32) of a little-endian word array from bit `start` on.
fn bits_at(words: &[u64], start: u32, width: u32) -> u64 {
    let word = (start / 64) as usize;
    let shift = start % 64;
    let low = words.get(word).copied().unwrap_or(0) >> shift;
    let high = match shift {
        0 => 0,
        _ => words.get(word + 1).copied().unwrap_or(0) << (64 - shift),
    };
    (low | high) & ((1u64 << width) - 1)
}

/// x (≥ 0, below 2^(52·limbs)) as `limbs` limbs of 52 bits.
pub(crate) fn to_limbs(x: &Integer, limbs: usize) -> Vec<u64> {
    let words = x.to_digits::<u64>(Order::Lsf);
    (0..limbs)
        .map(|k| bits_at(&words, k as u32 * LIMB_BITS, LIMB_BITS))
        .collect()
}

/// The integer whose 52-bit limbs (each below 2^52) these are.
pub(crate) fn from_limbs(limbs: &[u64]) -> Integer {
    let mut words = vec![0u64; (limbs.len() * LIMB_BITS as usize).div_ceil(64) + 1];
    for (k, &limb) in limbs.iter().enumerate() {
        let bit = k * LIMB_BITS as usize;
        let (word, shift) = (bit / 64, bit % 64);
        words[word] |= limb << shift;
        if shift > 64 - LIMB_BITS as usize {
            words[word + 1] |= limb >> (64 - shift);
        }
    }
    Integer::from_digits(&words, Order::Lsf)
}

/// Columns computed together: each operand limb loaded once serves a block of columns,
/// and the reduction's serial step (q_k, then its carry) runs once per column at the
/// block's end instead of interrupting every column's sum.
pub(crate) const BLOCK: usize = 4;

// The square's pairs just past k/2 (in `product_sums`) and the rows at a block's edges
// (in `block_sum`) are spelled out for four.
const _: () = assert!(BLOCK == 4);

/// Zero limbs on each side of every digit's limbs (see [`block_sum`]).
pub(crate) const PAD: usize = BLOCK - 1;

/// Vectors of a padded digit: [`PAD`] zeros, `limbs` limbs, [`PAD`] zeros.
fn digit_len(limbs: usize) -> usize {
    limbs + 2 * PAD
}

/// A padded digit of zeros ([`digit_len`]).
pub(crate) fn padded_zero<L: Lanes52>(limbs: usize) -> Vec<L> {
    vec![L::zero(); digit_len(limbs)]
}

/// Vectors of a value mod m²: its low digit, then its high digit, each padded.
pub(crate) fn pair_len(limbs: usize) -> usize {
    2 * digit_len(limbs)
}

/// A value mod m² of zeros, pads included ([`pair_len`]).
pub(crate) fn pair_zero<L: Lanes52>(limbs: usize) -> Vec<L> {
    vec![L::zero(); pair_len(limbs)]
}

/// Where limb t of a value's 2·`limbs` limbs (the low digit's, then the high digit's)
/// sits among its padded vectors.
#[inline(always)]
fn pair_index(limbs: usize, t: usize) -> usize {
    if t < limbs {
        PAD + t
    } else {
        3 * PAD + t
    }
}

/// `lo[c]` += low halves and `hi[c]` += high halves of x_i·y_{k+c−i} for c < [`BLOCK`] and
/// i in `rows`, where `x` and `y` are padded (limb j at index j + PAD). The caller keeps
/// every y index within [−PAD, limbs + PAD); indices outside [0, limbs) are the pads'
/// zeros, which is what lets every column of a block share one range of i (the rows at
/// its edges skip their products with them).
#[inline(always)]
fn block_sum<L: Lanes52>(
    x: &[L],
    y: &[L],
    k: usize,
    rows: core::ops::Range<usize>,
    lo: &mut [L; BLOCK],
    hi: &mut [L; BLOCK],
) {
    // Column c of row i reads y_{k+c−i}: a limb for i − k ≤ c < limbs + i − k, a pad's
    // zero elsewhere. Only the rows `full` have a limb in every column; the others, at
    // most PAD at the bottom (limbs + i − k < BLOCK) and PAD at the top (i > k), run
    // outside the main loop with just their columns that have one, since products with
    // a pad's zero are a tenth of the multiplications at 20-limb digits (measurably
    // faster encryption and decryption; docs/results.md). A digit of
    // fewer than BLOCK limbs can have a row at both edges: it runs as a bottom row,
    // whose columns below i − k read the lower pad's zeros. (The edge rows read y through
    // `at`, not a subslice per row: that spelling made 20-limb squares much slower.)
    let limbs = y.len() - 2 * PAD;
    let full_start = (k + BLOCK)
        .saturating_sub(limbs)
        .clamp(rows.start, rows.end);
    let full = full_start..(k + 1).clamp(full_start, rows.end);
    let at = |i: usize, c: usize| y[PAD + k + c - i];
    for i in rows.start..full.start {
        let xi = x[PAD + i];
        match limbs + i - k {
            1 => edge_row::<L, 0, 1>(xi, |c| at(i, c), lo, hi),
            2 => edge_row::<L, 0, 2>(xi, |c| at(i, c), lo, hi),
            _ => edge_row::<L, 0, 3>(xi, |c| at(i, c), lo, hi), // 3 = BLOCK − 1
        }
    }
    for i in full.end..rows.end {
        let xi = x[PAD + i];
        match i - k {
            1 => edge_row::<L, 1, BLOCK>(xi, |c| at(i, c), lo, hi),
            2 => edge_row::<L, 2, BLOCK>(xi, |c| at(i, c), lo, hi),
            _ => edge_row::<L, 3, BLOCK>(xi, |c| at(i, c), lo, hi), // 3 = BLOCK − 1
        }
    }
    if full.is_empty() {
        return;
    }
    // The block's y operands slide down one limb per row: keep them in a window that
    // takes one new vector per row (y_{k−i}) and drops its last, so that each row loads
    // two vectors for its 2·BLOCK products. `top` is y_{k−first}'s index (first: the
    // first full row); the window starts as the one for row first − 1 (its last entry
    // is dropped unused).
    let top = k + PAD - full.start;
    let mut window: [L; BLOCK] = core::array::from_fn(|c| {
        if c + 1 < BLOCK {
            y[top + 1 + c]
        } else {
            L::zero()
        }
    });
    let xs = &x[PAD + full.start..PAD + full.end];
    let ys = y[top + 1 - full.len()..=top].iter().rev();
    for (&xi, &y_new) in xs.iter().zip(ys) {
        window = core::array::from_fn(|c| if c == 0 { y_new } else { window[c - 1] });
        for c in 0..BLOCK {
            lo[c] = lo[c].madd52lo(xi, window[c]);
            hi[c] = hi[c].madd52hi(xi, window[c]);
        }
    }
}

/// A row at a block's edge ([`block_sum`]): x_i times y_{k+c−i} (`y(c)`) in columns
/// FROM..TO only.
#[inline(always)]
fn edge_row<L: Lanes52, const FROM: usize, const TO: usize>(
    xi: L,
    y: impl Fn(usize) -> L,
    lo: &mut [L; BLOCK],
    hi: &mut [L; BLOCK],
) {
    for c in FROM..TO {
        let yc = y(c);
        lo[c] = lo[c].madd52lo(xi, yc);
        hi[c] = hi[c].madd52hi(xi, yc);
    }
}

/// The rows a block k..k+BLOCK of a `limbs`-limb product's columns sums over: column
/// k + c takes i ≥ k + c − limbs + 1 (j < limbs), so the block starts at column k's
/// bound, where later columns' extra terms have j in the upper pad.
#[inline(always)]
fn first_row(k: usize, limbs: usize) -> usize {
    (k + 1).saturating_sub(limbs)
}

/// The sums of a·b's limb products in columns k..k+BLOCK (b = a when `SQUARE`), for
/// padded digits of `limbs` limbs. A square sums each pair i < j once and doubles it,
/// then adds the diagonal: about half a product's multiplications.
#[inline(always)]
fn product_sums<L: Lanes52, const SQUARE: bool>(
    a: &[L],
    b: &[L],
    k: usize,
    limbs: usize,
) -> ([L; BLOCK], [L; BLOCK]) {
    let mut lo = [L::zero(); BLOCK];
    let mut hi = [L::zero(); BLOCK];
    let first = first_row(k, limbs);
    if SQUARE {
        // Pairs i < j: i < k/2 holds for every column of the block (k is even)...
        let half = k / 2;
        block_sum(a, a, k, first..half.max(first), &mut lo, &mut hi);
        // ...and four more pairs lie past it: (h, h+1), (h, h+2), (h, h+3) and
        // (h+1, h+2), in columns k+1, k+2, k+3, k+3. (j ≥ limbs reads a pad.)
        let at = |i: usize| a[i + PAD];
        for (c, i, j) in [
            (1, half, half + 1),
            (2, half, half + 2),
            (3, half, half + 3),
        ] {
            lo[c] = lo[c].madd52lo(at(i), at(j));
            hi[c] = hi[c].madd52hi(at(i), at(j));
        }
        lo[3] = lo[3].madd52lo(at(half + 1), at(half + 2));
        hi[3] = hi[3].madd52hi(at(half + 1), at(half + 2));
        for c in 0..BLOCK {
            lo[c] = lo[c].add(lo[c]);
            hi[c] = hi[c].add(hi[c]);
        }
        // The diagonal: a_h² in column k, a_{h+1}² in column k + 2.
        for (c, i) in [(0, half), (2, half + 1)] {
            lo[c] = lo[c].madd52lo(at(i), at(i));
            hi[c] = hi[c].madd52hi(at(i), at(i));
        }
    } else {
        block_sum(a, b, k, first..(k + BLOCK).min(limbs), &mut lo, &mut hi);
    }
    (lo, hi)
}

/// m's constants in every lane, made once per kernel call.
pub(crate) struct RootLanes<L> {
    limbs: usize,
    /// m's limbs, padded.
    m: Vec<L>,
    m_prime: L,
    /// [`SquareModulus52`]'s `high_addend`, unpadded.
    high_addend: Vec<L>,
}

impl<L: Lanes52> RootLanes<L> {
    pub(crate) fn new(modulus: &SquareModulus52) -> Self {
        RootLanes {
            limbs: modulus.limbs,
            m: splat_digit(&modulus.m),
            m_prime: L::splat(modulus.m_prime),
            high_addend: modulus.high_addend.iter().map(|&x| L::splat(x)).collect(),
        }
    }
}

/// Finishes columns k..k+BLOCK of a Montgomery reduction by m, given their sums of the
/// operands' products (and any addend) in `lo`/`hi`: adds the products q_i·m_j of the
/// quotient digits of earlier blocks (i < k), runs a slice of `work`, then column by
/// column the products of this block's own digits (q_{k+u}·m_{c−u}), the `carry`, and
/// the new digit (into `quotient`) or output limb (into `out`; both padded digits).
/// Blocks k = 0, BLOCK, ... < 2·limbs in turn give (sums + q·m)/R, every limb
/// normalised, as the module note describes.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
fn reduce_block<L: Lanes52>(
    root: &RootLanes<L>,
    k: usize,
    mut lo: [L; BLOCK],
    mut hi: [L; BLOCK],
    carry: &mut L,
    quotient: &mut [L],
    out: &mut [L],
    work: &mut impl Interleaved,
) {
    let limbs = root.limbs;
    let m = &root.m;
    // The reduction's products with the digits of earlier blocks (m_j = 0 past the
    // top limb, in the pad).
    block_sum(
        quotient,
        m,
        k,
        first_row(k, limbs)..k.min(limbs),
        &mut lo,
        &mut hi,
    );
    work.run_slice();
    for c in 0..BLOCK {
        let column = k + c;
        // This block's own digits, q_{k+u}·m_{c−u} for u < c.
        for u in 0..c {
            if k + u < limbs {
                let (q, mj) = (quotient[k + u + PAD], m[c - u + PAD]);
                lo[c] = lo[c].madd52lo(q, mj);
                hi[c] = hi[c].madd52hi(q, mj);
            }
        }
        let mut sum = lo[c].add(*carry);
        let mut high = hi[c];
        if column < limbs {
            // q_c makes the column ≡ 0 mod 2^52: its low 52 bits are dropped (÷ R).
            let q = L::zero().madd52lo(sum, root.m_prime);
            quotient[column + PAD] = q;
            sum = sum.madd52lo(q, m[PAD]);
            high = high.madd52hi(q, m[PAD]);
        } else if column < 2 * limbs {
            out[column - limbs + PAD] = sum.and(L::splat(LIMB_MASK));
        }
        *carry = high.add(sum.shr52());
    }
}

/// out = a·b·R⁻¹ mod m² (b = a when `SQUARE`) for values a, b whose digits are below
/// 2m, as two digits below 2m, every limb normalised: the two-digit product of the
/// module note. `a`, `b`, `out` and the scratch `quotients` are pairs ([`pair_zero`];
/// only out's limbs are written, its pads must already be zero).
///
/// In each block of columns the low digit's reduction runs first, since the high
/// digit's addend there takes away the low digit's new quotient digits; beyond that the
/// two chains of quotient digits are independent, so one can fill the other's latency.
#[inline(always)]
pub(crate) fn pair_product<L: Lanes52, const SQUARE: bool>(
    root: &RootLanes<L>,
    a: &[L],
    b: &[L],
    quotients: &mut [L],
    out: &mut [L],
) {
    pair_product_with::<L, SQUARE>(root, a, b, quotients, out, &mut ());
}

/// Work that a product runs a slice of in each of its blocks of columns
/// ([`product_blocks`] calls), between the block's sums and its column-by-column steps,
/// whose chain of quotient digits is bound by latency: independent work there fills
/// issue slots that would otherwise stay idle.
pub(crate) trait Interleaved {
    fn run_slice(&mut self);
}

/// No work.
impl Interleaved for () {
    #[inline(always)]
    fn run_slice(&mut self) {}
}

/// Blocks of columns in a product of `limbs`-limb digits: the calls it makes to its
/// [`Interleaved`] work.
pub(crate) fn product_blocks(limbs: usize) -> usize {
    (2 * limbs).div_ceil(BLOCK)
}

/// [`pair_product`], running a slice of `work` in every block.
#[inline(always)]
pub(crate) fn pair_product_with<L: Lanes52, const SQUARE: bool>(
    root: &RootLanes<L>,
    a: &[L],
    b: &[L],
    quotients: &mut [L],
    out: &mut [L],
    work: &mut impl Interleaved,
) {
    let limbs = root.limbs;
    let digit = digit_len(limbs);
    debug_assert!([a.len(), b.len(), quotients.len(), out.len()] == [2 * digit; 4]);
    let (a0, a1) = a.split_at(digit);
    let (b0, b1) = b.split_at(digit);
    let (q0, q1) = quotients.split_at_mut(digit);
    let (out0, out1) = out.split_at_mut(digit);
    let (mut carry0, mut carry1) = (L::zero(), L::zero());
    for k in (0..2 * limbs).step_by(BLOCK) {
        // Low digit: x₀·y₀, reduced.
        let (lo, hi) = product_sums::<L, SQUARE>(a0, b0, k, limbs);
        reduce_block(root, k, lo, hi, &mut carry0, q0, out0, work);
        // High digit: x₀·y₁ + x₁·y₀ (a square: 2·x₀·x₁) + the addend, reduced.
        let (mut lo, mut hi) = ([L::zero(); BLOCK], [L::zero(); BLOCK]);
        let rows = first_row(k, limbs)..(k + BLOCK).min(limbs);
        block_sum(a0, b1, k, rows.clone(), &mut lo, &mut hi);
        if SQUARE {
            for c in 0..BLOCK {
                lo[c] = lo[c].add(lo[c]);
                hi[c] = hi[c].add(hi[c]);
            }
        } else {
            block_sum(a1, b0, k, rows, &mut lo, &mut hi);
        }
        // The addend, less the low digit's quotient digits of these columns (< limbs).
        #[allow(clippy::needless_range_loop)] // c names the column, as in `reduce_block`
        for c in 0..BLOCK {
            let column = k + c;
            if column < limbs {
                lo[c] = lo[c].add(root.high_addend[column]).sub(q0[column + PAD]);
            }
        }
        reduce_block(root, k, lo, hi, &mut carry1, q1, out1, &mut ());
    }
}

/// out = values·R mod N (digits below 2m) for values with digits below 2m.
#[inline(always)]
pub(crate) fn to_montgomery_lanes<L: Lanes52>(
    modulus: &SquareModulus52,
    values: &[L],
    out: &mut [L],
) {
    let root = RootLanes::new(modulus);
    let r_squared = splat_pair::<L>(&modulus.r_squared);
    let mut quotients = pair_zero(modulus.limbs);
    pair_product::<L, false>(&root, values, &r_squared, &mut quotients, out);
}

/// out = factor·x mod N (digits below 2m, brought to [0, N) on the way out of the kernel)
/// for the Montgomery-domain value x (x·R) and a plain factor: leaving the domain is a
/// product by a plain value, so a factor the caller would multiply by next comes free
/// (encryption's 1 + m·n).
#[inline(always)]
fn from_montgomery<L: Lanes52>(
    root: &RootLanes<L>,
    x: &[L],
    factor: &[L],
    quotients: &mut [L],
    out: &mut [L],
) {
    pair_product::<L, false>(root, x, factor, quotients, out);
}

/// A digit constant (m's limbs) in every lane, padded.
fn splat_digit<L: Lanes52>(limbs: &[u64]) -> Vec<L> {
    let mut out = padded_zero(limbs.len());
    for (o, &x) in out[PAD..].iter_mut().zip(limbs) {
        *o = L::splat(x);
    }
    out
}

/// A constant value mod m² (R mod N, R² mod N), given by its two digits' limbs, in
/// every lane.
fn splat_pair<L: Lanes52>(digits: &[Vec<u64>; 2]) -> Vec<L> {
    let mut out = splat_digit(&digits[0]);
    out.extend(splat_digit::<L>(&digits[1]));
    out
}

/// The ladder of the module note: out_i = factors_i·bases_i^e mod N (digits below 2m)
/// for bases and factors in [0, N), e's schedule and table reads as its [`Secrecy`] asks.
#[inline(always)]
pub(crate) fn power_common_lanes<L: Lanes52>(
    modulus: &SquareModulus52,
    bases: &[L],
    exponent: &CommonExponent,
    factors: &[L],
    out: &mut [L],
) {
    let limbs = modulus.limbs;
    let stride = pair_len(limbs);
    let root = RootLanes::<L>::new(modulus);
    let mut quotients = pair_zero(limbs);
    let one = splat_pair::<L>(&modulus.r);
    let mut base = pair_zero(limbs);
    {
        let r_squared = splat_pair::<L>(&modulus.r_squared);
        pair_product::<L, false>(&root, bases, &r_squared, &mut quotients, &mut base);
    }
    // The table, entry-major, in the Montgomery domain (·R mod N): base^d for d <
    // 2^window (secret), or base^(2i+1) for i < 2^(window−1) (public).
    let entries = exponent.table_entries();
    let mut table = vec![L::zero(); entries * stride];
    // Each entry past the given ones is the one before times `ratio`.
    let (given, ratio) = match exponent.secrecy {
        Secrecy::Secret => {
            table[..stride].copy_from_slice(&one);
            if entries > 1 {
                table[stride..2 * stride].copy_from_slice(&base);
            }
            (2, base)
        }
        Secrecy::Public => {
            table[..stride].copy_from_slice(&base);
            let mut square = pair_zero(limbs);
            pair_product::<L, true>(&root, &base, &base, &mut quotients, &mut square);
            (1, square)
        }
    };
    for d in given..entries {
        let (done, rest) = table.split_at_mut(d * stride);
        pair_product::<L, false>(
            &root,
            &done[(d - 1) * stride..],
            &ratio,
            &mut quotients,
            &mut rest[..stride],
        );
    }
    // A secret exponent's reads scan the table limb-major (limb t of every entry in
    // turn), with one mask per entry.
    let by_limb: Vec<L> = match exponent.secrecy {
        Secrecy::Public => Vec::new(),
        Secrecy::Secret => (0..2 * limbs)
            .flat_map(|t| (0..entries).map(move |d| (d, t)))
            .map(|(d, t)| table[d * stride + pair_index(limbs, t)])
            .collect(),
    };
    let mut masks = vec![L::zero(); entries];
    let mut selected = pair_zero(limbs);
    let mut acc = pair_zero(limbs);
    let mut scratch = pair_zero(limbs);
    let public_entry = |entry: u32| &table[entry as usize * stride..][..stride];
    let mut steps = exponent.steps.iter();
    match (steps.next(), exponent.secrecy) {
        (None, _) => acc.copy_from_slice(&one),
        (Some(first), Secrecy::Public) => acc.copy_from_slice(public_entry(first.entry)),
        (Some(first), Secrecy::Secret) => {
            set_masks(&mut masks, first.entry);
            SpreadScan::new(&by_limb, &masks, &mut acc, limbs, 0).finish();
        }
    }
    for step in steps {
        let operand: &[L] = match exponent.secrecy {
            Secrecy::Public => {
                for _ in 0..step.squarings {
                    square(&root, &mut acc, &mut scratch, &mut quotients, &mut ());
                }
                public_entry(step.entry)
            }
            Secrecy::Secret => {
                // The read of this step's entry runs during its squarings, which keep
                // the multipliers busy while the scan streams the table from L2 (it is
                // larger than a core's L1: 80 KiB for p² of a 2048-bit key).
                set_masks(&mut masks, step.entry);
                // `--cfg linesig_whole_scan` builds the schedule from before the spread
                // (no slices: the whole scan just before the product), for A/B runs: the
                // spread won on Zen 4 and on an Emerald Rapids Xeon (docs/results.md);
                // Zen 5 is not yet measured.
                let slices = if cfg!(linesig_whole_scan) {
                    0
                } else {
                    step.squarings as usize * product_blocks(limbs)
                };
                let mut scan = SpreadScan::new(&by_limb, &masks, &mut selected, limbs, slices);
                for _ in 0..step.squarings {
                    square(&root, &mut acc, &mut scratch, &mut quotients, &mut scan);
                }
                scan.finish();
                &selected
            }
        };
        pair_product::<L, false>(&root, &acc, operand, &mut quotients, &mut scratch);
        core::mem::swap(&mut acc, &mut scratch);
    }
    for _ in 0..exponent.trailing {
        square(&root, &mut acc, &mut scratch, &mut quotients, &mut ());
    }
    from_montgomery(&root, &acc, factors, &mut quotients, out);
}

/// acc ← acc²·R⁻¹ mod N, through `scratch`, with `work` interleaved.
#[inline(always)]
fn square<L: Lanes52>(
    root: &RootLanes<L>,
    acc: &mut Vec<L>,
    scratch: &mut Vec<L>,
    quotients: &mut [L],
    work: &mut impl Interleaved,
) {
    pair_product_with::<L, true>(root, acc, acc, quotients, scratch, work);
    core::mem::swap(acc, scratch);
}

/// masks[d] = all ones for d = digit, zeros for every other entry; no branch.
#[inline(always)]
fn set_masks<L: Lanes52>(masks: &mut [L], digit: u32) {
    for (d, mask) in masks.iter_mut().enumerate() {
        *mask = L::splat(u64::from(d as u32 == digit).wrapping_neg());
    }
}

/// A read of a secret table entry, spread over the squarings before the product that
/// uses it: `slices` calls of [`Interleaved::run_slice`] each select a share of the limbs, and
/// [`SpreadScan::finish`] the rest. Every limb is selected by reading that limb of every
/// entry and keeping one by mask, so that neither an address nor a branch depends on
/// the (secret) entry; how the limbs are shared out depends only on the public schedule.
struct SpreadScan<'a, L> {
    /// The table limb-major: limb t of every entry, then limb t + 1 (t < 2·limbs, the
    /// low digit's limbs then the high digit's).
    by_limb: &'a [L],
    /// From [`set_masks`].
    masks: &'a [L],
    /// The selected entry, a pair ([`pair_zero`]; only its limbs are written).
    out: &'a mut [L],
    /// Limbs of a digit.
    limbs: usize,
    slices: usize,
    slices_run: usize,
    /// Limbs of `out` written so far (of 2·limbs).
    done: usize,
}

impl<'a, L: Lanes52> SpreadScan<'a, L> {
    #[inline(always)]
    fn new(
        by_limb: &'a [L],
        masks: &'a [L],
        out: &'a mut [L],
        limbs: usize,
        slices: usize,
    ) -> Self {
        debug_assert_eq!(by_limb.len(), masks.len() * 2 * limbs);
        debug_assert_eq!(out.len(), pair_len(limbs));
        SpreadScan {
            by_limb,
            masks,
            out,
            limbs,
            slices,
            slices_run: 0,
            done: 0,
        }
    }

    /// Selects limbs done..end.
    #[inline(always)]
    fn select_until(&mut self, end: usize) {
        let entries = self.masks.len();
        // Two chains of ORs, so that the loads, not the chain, set the pace (a table
        // has 2^window ≥ 2 entries).
        debug_assert!(entries.is_power_of_two() && entries >= 2);
        let rows = self.by_limb[self.done * entries..end * entries].chunks_exact(entries);
        for (t, row) in (self.done..end).zip(rows) {
            let (mut even, mut odd) = (L::zero(), L::zero());
            for (pair, masks) in row.chunks_exact(2).zip(self.masks.chunks_exact(2)) {
                even = even.or(pair[0].and(masks[0]));
                odd = odd.or(pair[1].and(masks[1]));
            }
            self.out[pair_index(self.limbs, t)] = even.or(odd);
        }
        self.done = end;
    }

    /// Selects the limbs not selected yet.
    #[inline(always)]
    fn finish(mut self) {
        self.select_until(2 * self.limbs);
    }
}

impl<L: Lanes52> Interleaved for SpreadScan<'_, L> {
    /// The next share: slice i of s ends at limb ⌊(i + 1)·2·limbs/s⌋.
    #[inline(always)]
    fn run_slice(&mut self) {
        if self.slices_run < self.slices {
            self.slices_run += 1;
            let end = self.slices_run * 2 * self.limbs / self.slices;
            self.select_until(end);
        }
    }
}

/// Powers of one fixed base in the kernel's form, for exponents up to the table's
/// width: entry (i, d) = base^(d·2^(window·i)) · R mod N for every digit d (d = 0 is
/// one, R mod N), so a ⌈bits/window⌉-digit exponent costs one product per digit and no
/// squaring (Brickell et al.; see `fixed_base.rs`).
#[derive(Clone, Debug)]
pub(crate) struct FixedBase52 {
    modulus: SquareModulus52,
    window: u32,
    rows: usize,
    /// Row-major, then digit, then the entry's 2·limbs limbs (low digit, high digit).
    entries: Vec<u64>,
}

impl FixedBase52 {
    /// The kernel's copy of a GMP fixed-base table whose `rows[i][d − 1]` hold
    /// base^(d·2^(window·i)) mod N; the entries enter the Montgomery domain on the
    /// lanes `L`, eight at a time.
    pub(crate) fn from_rows<L: Lanes52>(
        modulus: SquareModulus52,
        window: u32,
        rows: &[Vec<Integer>],
    ) -> Self {
        let limbs = modulus.limbs;
        let entry = 2 * limbs;
        let per_row = 1usize << window;
        let mut entries = vec![0u64; rows.len() * per_row * entry];
        // Entry (i, 0) is one: R mod N.
        let one: Vec<u64> = modulus.r.concat();
        for i in 0..rows.len() {
            let at = i * per_row * entry;
            entries[at..at + entry].copy_from_slice(&one);
        }
        let slots: Vec<(usize, &Integer)> = rows
            .iter()
            .enumerate()
            .flat_map(|(i, row)| {
                row.iter()
                    .enumerate()
                    .map(move |(d, value)| ((i * per_row + d + 1) * entry, value))
            })
            .collect();
        let zero = Integer::new();
        let mut montgomery = pair_zero(limbs);
        for group in slots.chunks(LANES) {
            let values: [Integer; LANES] =
                core::array::from_fn(|lane| group.get(lane).map_or(&zero, |s| s.1).clone());
            let lanes = modulus.to_lanes::<L>(&values);
            L::to_montgomery(&modulus, &lanes, &mut montgomery);
            let arrays: Vec<[u64; LANES]> = (0..entry)
                .map(|t| montgomery[pair_index(limbs, t)].to_array())
                .collect();
            for (lane, &(at, _)) in group.iter().enumerate() {
                for (t, array) in arrays.iter().enumerate() {
                    entries[at + t] = array[lane];
                }
            }
        }
        FixedBase52 {
            modulus,
            window,
            rows: rows.len(),
            entries,
        }
    }

    /// Widest exponent the table covers, in bits.
    pub(crate) fn exponent_bits(&self) -> u32 {
        self.rows as u32 * self.window
    }

    pub(crate) fn bytes(&self) -> usize {
        self.entries.len() * 8
    }

    /// factor_i·base^exponent_i mod N for eight exponents, each of at most
    /// [`Self::exponent_bits`] bits (`None` otherwise), and factors in [0, N) (no
    /// factors: one).
    pub(crate) fn power<L: Lanes52>(
        &self,
        exponents: &[Integer; LANES],
        factors: Option<&[Integer; LANES]>,
    ) -> Option<[Integer; LANES]> {
        if exponents
            .iter()
            .any(|e| *e < 0 || e.significant_bits() > self.exponent_bits())
        {
            return None;
        }
        let words: Vec<Vec<u64>> = exponents
            .iter()
            .map(|e| e.to_digits::<u64>(Order::Lsf))
            .collect();
        let digits: Vec<[u32; LANES]> = (0..self.rows as u32)
            .map(|i| {
                core::array::from_fn(|lane| {
                    bits_at(&words[lane], i * self.window, self.window) as u32
                })
            })
            .collect();
        let factors = self.modulus.factors_to_lanes::<L>(factors);
        let mut out = pair_zero(self.modulus.limbs);
        L::power_fixed_base(self, &digits, &factors, &mut out);
        Some(self.modulus.lanes_to_integers(&out))
    }

    /// Entry (row, digits[lane]) of each lane, limb by limb, into the pair `out`.
    #[inline(always)]
    fn gather<L: Lanes52>(&self, row: usize, digits: &[u32; LANES], out: &mut [L]) {
        let limbs = self.modulus.limbs;
        let entry = 2 * limbs;
        let per_row = 1usize << self.window;
        let starts: [usize; LANES] =
            core::array::from_fn(|lane| (row * per_row + digits[lane] as usize) * entry);
        for t in 0..entry {
            out[pair_index(limbs, t)] =
                L::from_array(core::array::from_fn(|lane| self.entries[starts[lane] + t]));
        }
    }
}

/// out_i = factors_i·base^(exponent_i) mod N (digits below 2m): the product of one entry
/// per row, picked by each lane's own digit (`digits[row][lane]`), and of the factor.
#[inline(always)]
pub(crate) fn power_fixed_base_lanes<L: Lanes52>(
    table: &FixedBase52,
    digits: &[[u32; LANES]],
    factors: &[L],
    out: &mut [L],
) {
    let limbs = table.modulus.limbs;
    let root = RootLanes::<L>::new(&table.modulus);
    let mut quotients = pair_zero(limbs);
    let mut acc = pair_zero(limbs);
    let mut scratch = pair_zero(limbs);
    let mut entry = pair_zero(limbs);
    table.gather(0, &digits[0], &mut acc);
    for (row, row_digits) in digits.iter().enumerate().skip(1) {
        table.gather(row, row_digits, &mut entry);
        pair_product::<L, false>(&root, &acc, &entry, &mut quotients, &mut scratch);
        core::mem::swap(&mut acc, &mut scratch);
    }
    from_montgomery(&root, &acc, factors, &mut quotients, out);
}

/// Which lanes run the kernel: the exact model anywhere, or IFMA where the CPU has it.
/// The public face is `paillier::Kernel`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) enum Lanes {
    /// [`portable::Portable`]: every instruction modelled in plain Rust.
    Portable,
    /// AVX-512 IFMA, eight lanes per `__m512i`.
    #[cfg(target_arch = "x86_64")]
    Ifma,
}

/// `$call` with `L` bound to the lane type of `$lanes`. IFMA values are made only here,
/// after the CPU was checked (the `ifma` module's safety contract).
macro_rules! with_lanes {
    ($lanes:expr, $call:ident :: <L> ($($arg:expr),*)) => {
        match $lanes {
            Lanes::Portable => $call::<portable::Portable>($($arg),*),
            #[cfg(target_arch = "x86_64")]
            Lanes::Ifma => {
                ifma::assert_supported();
                $call::<linesig_simd::u64x8::U64x8>($($arg),*)
            }
        }
    };
}

impl Lanes {
    /// factor_i·base_i^exponent mod N for eight bases and factors in [0, N); see
    /// [`SquareModulus52::power`].
    pub(crate) fn power(
        self,
        modulus: &SquareModulus52,
        bases: &[Integer; LANES],
        exponent: &Integer,
        secrecy: Secrecy,
        factors: Option<&[Integer; LANES]>,
    ) -> [Integer; LANES] {
        fn run<L: Lanes52>(
            m: &SquareModulus52,
            b: &[Integer; LANES],
            e: &Integer,
            s: Secrecy,
            f: Option<&[Integer; LANES]>,
        ) -> [Integer; LANES] {
            m.power::<L>(b, e, s, f)
        }
        with_lanes!(self, run::<L>(modulus, bases, exponent, secrecy, factors))
    }

    /// The kernel's copy of a GMP fixed-base table; see [`FixedBase52::from_rows`].
    pub(crate) fn fixed_base_table(
        self,
        modulus: SquareModulus52,
        window: u32,
        rows: &[Vec<Integer>],
    ) -> FixedBase52 {
        fn run<L: Lanes52>(m: SquareModulus52, w: u32, r: &[Vec<Integer>]) -> FixedBase52 {
            FixedBase52::from_rows::<L>(m, w, r)
        }
        with_lanes!(self, run::<L>(modulus, window, rows))
    }

    /// factor_i·base^exponent_i for eight exponents; see [`FixedBase52::power`].
    pub(crate) fn power_fixed_base(
        self,
        table: &FixedBase52,
        exponents: &[Integer; LANES],
        factors: Option<&[Integer; LANES]>,
    ) -> Option<[Integer; LANES]> {
        fn run<L: Lanes52>(
            t: &FixedBase52,
            e: &[Integer; LANES],
            f: Option<&[Integer; LANES]>,
        ) -> Option<[Integer; LANES]> {
            t.power::<L>(e, f)
        }
        with_lanes!(self, run::<L>(table, exponents, factors))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::{Rng, SeedableRng};
    use rand_chacha::ChaCha20Rng;

    /// Every lane backend this CPU runs: the model always, IFMA where present.
    fn lane_backends() -> Vec<Lanes> {
        let mut all = vec![Lanes::Portable];
        #[cfg(target_arch = "x86_64")]
        if ifma::supported() {
            all.push(Lanes::Ifma);
        }
        all
    }

    fn random_bits(bits: u32, rng: &mut ChaCha20Rng) -> Integer {
        let words: Vec<u64> = (0..bits.div_ceil(64)).map(|_| rng.gen()).collect();
        Integer::from_digits(&words, Order::Lsf).keep_bits(bits)
    }

    fn random_below(bound: &Integer, rng: &mut ChaCha20Rng) -> Integer {
        random_bits(bound.significant_bits() + 64, rng) % bound
    }

    /// Odd roots m of every awkward size (the kernel's moduli are their squares): the
    /// smallest ones, one limb and just over, the widest a limb count takes (bits =
    /// 52·limbs − 4, so 16m approaches R), every limb count mod [`BLOCK`] (the last block
    /// of columns runs past the top: 256 and 300 bits are 5 and 6 limbs), and the Paillier
    /// sizes (p and n for 512- to 2048-bit keys: 6, 20 and 40 limbs).
    fn roots(rng: &mut ChaCha20Rng) -> Vec<Integer> {
        let mut all: Vec<Integer> = [3u64, 5, 7, 0xffff_ffff_ffff_ffc5]
            .map(Integer::from)
            .to_vec();
        for bits in [47, 48, 49, 52, 99, 100, 101, 151, 256, 300, 521, 1024, 2048] {
            let top = Integer::from(1) << (bits - 1);
            all.push(random_bits(bits - 1, rng) | top | 1u32);
        }
        // All-ones roots: every limb of m at its maximum.
        for bits in [48u32, 100, 204, 1036] {
            all.push((Integer::from(1) << bits) - 1u32);
        }
        all
    }

    fn gmp_power(base: &Integer, exponent: &Integer, modulus: &Integer) -> Integer {
        Integer::from(base.pow_mod_ref(exponent, modulus).unwrap())
    }

    #[test]
    fn limbs_round_trip() {
        let mut rng = ChaCha20Rng::seed_from_u64(1);
        for bits in [0, 1, 51, 52, 53, 64, 104, 105, 1000, 4096] {
            let x = random_bits(bits, &mut rng);
            let limbs = (bits as usize + 1).div_ceil(52).max(1);
            let packed = to_limbs(&x, limbs);
            assert!(packed.iter().all(|&l| l <= LIMB_MASK));
            assert_eq!(from_limbs(&packed), x, "{bits} bits");
        }
    }

    /// A spread scan returns the entry asked for, however many slices share it out
    /// (none, fewer than the limbs, more) and whichever entry it is.
    #[test]
    fn spread_scan_selects_the_entry() {
        type L = portable::Portable;
        let mut rng = ChaCha20Rng::seed_from_u64(5);
        for (limbs, entries) in [(1, 2), (3, 4), (20, 32), (30, 64)] {
            let by_limb: Vec<L> = (0..2 * limbs * entries)
                .map(|_| L::from_array(core::array::from_fn(|_| rng.gen::<u64>() & LIMB_MASK)))
                .collect();
            let mut masks = vec![L::zero(); entries];
            for digit in 0..entries {
                let mut want = pair_zero::<L>(limbs);
                for t in 0..2 * limbs {
                    want[pair_index(limbs, t)] = by_limb[t * entries + digit];
                }
                let want: Vec<[u64; LANES]> = want.iter().map(|x| x.to_array()).collect();
                set_masks(&mut masks, digit as u32);
                for slices in [0, 1, limbs, 2 * limbs, 7 * limbs + 3] {
                    // Half the slices (finish() does the rest), or all and one too many.
                    for calls in [slices / 2, slices + 1] {
                        let mut out = pair_zero::<L>(limbs);
                        let mut scan = SpreadScan::new(&by_limb, &masks, &mut out, limbs, slices);
                        for _ in 0..calls {
                            scan.run_slice();
                        }
                        scan.finish();
                        let got: Vec<[u64; LANES]> = out.iter().map(|x| x.to_array()).collect();
                        assert_eq!(
                            got, want,
                            "{limbs} limbs, entry {digit}, {calls} of {slices}"
                        );
                    }
                }
            }
        }
    }

    /// The two-digit product's contract at its edges: digits anywhere in [0, 2m) (2m − 1
    /// included, in both digits at once) on roots whose 16m approaches R give
    /// a·b·R⁻¹ mod m², each digit below 2m, every limb below 2^52; squares equal
    /// products.
    #[test]
    fn pair_product_keeps_its_bounds() {
        type L = portable::Portable;
        let mut rng = ChaCha20Rng::seed_from_u64(2);
        for root in roots(&mut rng) {
            let m = SquareModulus52::new(&root).unwrap();
            let big_r = Integer::from(1) << (52 * m.limbs) as u32;
            assert!(Integer::from(16 * &root) <= big_r);
            let r_inverse = big_r.invert(m.modulus()).unwrap();
            let two_m = Integer::from(2 * &root);
            let top = Integer::from(&two_m - 1u32);
            let edge = [Integer::new(), Integer::from(1), top.clone()];
            let a: [[Integer; 2]; LANES] = core::array::from_fn(|i| match i {
                0..=2 => [edge[i].clone(), edge[i].clone()],
                3 => [Integer::from(&root - 1u32), Integer::from(&root - 1u32)],
                4 => [Integer::new(), top.clone()],
                _ => [
                    random_below(&two_m, &mut rng),
                    random_below(&two_m, &mut rng),
                ],
            });
            let b: [[Integer; 2]; LANES] = core::array::from_fn(|i| match i {
                0..=2 => [top.clone(), top.clone()],
                5 => [top.clone(), Integer::new()],
                _ => [
                    random_below(&two_m, &mut rng),
                    random_below(&two_m, &mut rng),
                ],
            });
            let value = |[low, high]: &[Integer; 2]| Integer::from(high * &root) + low;
            let (la, lb) = (m.digits_to_lanes::<L>(&a), m.digits_to_lanes(&b));
            let root_lanes = RootLanes::<L>::new(&m);
            let mut quotients = pair_zero(m.limbs);
            let mut product = pair_zero(m.limbs);
            let mut square = pair_zero(m.limbs);
            pair_product::<_, false>(&root_lanes, &la, &lb, &mut quotients, &mut product);
            pair_product::<_, true>(&root_lanes, &la, &la, &mut quotients, &mut square);
            for (lanes, pairs) in [(&product, &b), (&square, &a)] {
                assert!(lanes
                    .iter()
                    .all(|v| v.to_array().iter().all(|&l| l <= LIMB_MASK)));
                let got = m.lanes_to_digits(lanes);
                for i in 0..LANES {
                    assert!(
                        got[i].iter().all(|digit| *digit < two_m),
                        "m = {root:#x}, lane {i}: a digit ≥ 2m"
                    );
                    let want = value(&a[i]) * value(&pairs[i]) * &r_inverse % m.modulus();
                    assert_eq!(
                        value(&got[i]) % m.modulus(),
                        want,
                        "m = {root:#x}, lane {i}"
                    );
                }
            }
        }
    }

    /// base^e mod N (N = m²) on every lane backend against GMP: edge bases (0, 1, N − 1,
    /// N − 2, m, N − m) and random ones, the same base in every lane and all different, exponents 0, 1,
    /// 2, all-ones of several widths, N itself and random ones; read as public (table
    /// entries in place) and as secret (scanned); alone and times factors (0, 1, N − 1,
    /// N − 2 and random ones, in other lanes than the bases' edges).
    #[test]
    fn power_matches_gmp() {
        let mut rng = ChaCha20Rng::seed_from_u64(3);
        for root in roots(&mut rng) {
            let m = SquareModulus52::new(&root).unwrap();
            let modulus = m.modulus().clone();
            let bits = modulus.significant_bits();
            let mut exponents = vec![
                Integer::new(),
                Integer::from(1),
                Integer::from(2),
                modulus.clone(),
                random_bits(bits.min(600), &mut rng),
            ];
            for ones in [5u32, 52, 64, 129] {
                exponents.push((Integer::from(1) << ones) - 1u32);
            }
            if bits > 2048 {
                // One full-size exponent is enough on 4096-bit moduli.
                exponents.truncate(4);
            }
            let edges = [
                Integer::new(),
                Integer::from(1),
                Integer::from(&modulus - 1u32),
                Integer::from(&modulus - 2u32),
            ];
            // Beside the edges, values with a zero digit: m (digits 0, 1) and N − m.
            let mixed: [Integer; LANES] = core::array::from_fn(|i| match i {
                0..=3 => edges[i].clone(),
                4 => root.clone(),
                5 => Integer::from(&modulus - &root),
                _ => random_below(&modulus, &mut rng),
            });
            let same: [Integer; LANES] = core::array::from_fn(|_| mixed[7].clone());
            // Factors for the way out: the edges in other lanes than the bases' edges.
            let factors: [Integer; LANES] = core::array::from_fn(|i| match i {
                4..=7 => edges[i - 4].clone(),
                _ => random_below(&modulus, &mut rng),
            });
            for exponent in &exponents {
                for bases in [&mixed, &same] {
                    let want = bases.clone().map(|b| gmp_power(&b, exponent, &modulus));
                    let want_times: [Integer; LANES] =
                        core::array::from_fn(|i| Integer::from(&want[i] * &factors[i]) % &modulus);
                    for lanes in lane_backends() {
                        for secrecy in [Secrecy::Public, Secrecy::Secret] {
                            let got = lanes.power(&m, bases, exponent, secrecy, None);
                            assert_eq!(
                                got, want,
                                "{lanes:?}, {secrecy:?}, N = {modulus:#x}, e = {exponent:#x}"
                            );
                            let got = lanes.power(&m, bases, exponent, secrecy, Some(&factors));
                            assert_eq!(
                                got, want_times,
                                "{lanes:?}, {secrecy:?}, N = {modulus:#x}, e = {exponent:#x}, \
                                 times factors"
                            );
                        }
                    }
                }
            }
        }
    }

    /// The fixed-base product against GMP, per lane with its own exponent: 0, 1, all
    /// ones at the table's full width, random; alone and times factors (0, 1, N − 1,
    /// random); wider than the table is refused.
    #[test]
    fn fixed_base_matches_gmp() {
        let mut rng = ChaCha20Rng::seed_from_u64(4);
        for (root_bits, exponent_bits, window) in [(32, 32, 8), (261, 130, 5), (1024, 512, 8)] {
            let root = random_bits(root_bits, &mut rng) | 1u32;
            let modulus = Integer::from(root.square_ref());
            let base = random_below(&modulus, &mut rng);
            let gmp = crate::FixedBaseTable::new(&base, &modulus, exponent_bits, window);
            let full = (Integer::from(1) << (gmp.digits() as u32 * window)) - 1u32;
            let exponents: [Integer; LANES] = core::array::from_fn(|i| match i {
                0 => Integer::new(),
                1 => Integer::from(1),
                2 => full.clone(),
                _ => random_bits(exponent_bits, &mut rng),
            });
            let want = exponents.clone().map(|e| gmp_power(&base, &e, &modulus));
            let factors: [Integer; LANES] = core::array::from_fn(|i| match i {
                3 => Integer::new(),
                4 => Integer::from(1),
                5 => Integer::from(&modulus - 1u32),
                _ => random_below(&modulus, &mut rng),
            });
            let want_times: [Integer; LANES] =
                core::array::from_fn(|i| Integer::from(&want[i] * &factors[i]) % &modulus);
            for lanes in lane_backends() {
                let m = SquareModulus52::new(&root).unwrap();
                let table = lanes.fixed_base_table(m, window, gmp.rows());
                assert_eq!(table.exponent_bits(), gmp.digits() as u32 * window);
                assert_eq!(
                    lanes.power_fixed_base(&table, &exponents, None),
                    Some(want.clone()),
                    "{lanes:?}"
                );
                assert_eq!(
                    lanes.power_fixed_base(&table, &exponents, Some(&factors)),
                    Some(want_times.clone()),
                    "{lanes:?}, times factors"
                );
                let mut wide = exponents.clone();
                wide[5] = Integer::from(&full + 1u32);
                assert_eq!(lanes.power_fixed_base(&table, &wide, None), None);
            }
        }
    }

    #[test]
    fn refuses_roots_it_cannot_take() {
        for bad in [
            Integer::new(),
            Integer::from(1),
            Integer::from(2),
            Integer::from(1u64 << 40),
            Integer::from(-7),
        ] {
            assert!(SquareModulus52::new(&bad).is_none(), "{bad}");
        }
        let widest = (Integer::from(1) << (52 * MAX_LIMBS - 4) as u32) - 1u32;
        assert_eq!(
            SquareModulus52::new(&widest).map(|m| m.limbs),
            Some(MAX_LIMBS)
        );
        let too_wide = (Integer::from(1) << (52 * MAX_LIMBS - 3) as u32) - 1u32;
        assert!(SquareModulus52::new(&too_wide).is_none());
    }

    /// Both ladders' steps rebuild the exponent: fixed windows digit by digit, sliding
    /// windows from odd entries (2·entry + 1) and the squarings between them.
    #[test]
    fn ladder_steps_rebuild_the_exponent() {
        let mut rng = ChaCha20Rng::seed_from_u64(5);
        let mut exponents: Vec<Integer> = [0u32, 1, 2, 3, 5, 63, 64, 65, 1023, 2048]
            .iter()
            .map(|&bits| random_bits(bits, &mut rng))
            .collect();
        exponents.extend([0u32, 1, 2, 128].map(Integer::from));
        exponents.push((Integer::from(1) << 300u32) + 1u32);
        exponents.push((Integer::from(1) << 200u32) - 1u32);
        for e in &exponents {
            for secrecy in [Secrecy::Public, Secrecy::Secret] {
                let ladder = CommonExponent::new(e, 40, secrecy);
                let mut rebuilt = Integer::new();
                for step in &ladder.steps {
                    let value = match secrecy {
                        Secrecy::Secret => step.entry,
                        Secrecy::Public => 2 * step.entry + 1,
                    };
                    assert!((step.entry as usize) < ladder.table_entries());
                    rebuilt = (rebuilt << step.squarings) + value;
                }
                rebuilt <<= ladder.trailing;
                assert_eq!(rebuilt, *e, "{secrecy:?}, window {}", ladder.window);
            }
        }
    }
}
