//! Arithmetic in Z_q, q = 2^23 − 2^13 + 1 (FIPS 204 §2.3), one coefficient at a time:
//! Montgomery reduction, the NTT's twiddle factors, and the rounding of Algorithms
//! 36 and 40 (Decompose, UseHint) that verification applies to w′.
//!
//! Coefficients are `i32` in a signed representation; every function states the range
//! it accepts and the range it returns, and the NTT code (`lanes`) keeps within them.

/// The ML-DSA modulus.
pub(crate) const Q: i32 = 8_380_417;
/// q⁻¹ mod 2^32, for Montgomery reduction with R = 2^32.
pub(crate) const QINV: i32 = 58_728_449;
/// ζ = 1753, a primitive 512th root of unity mod q (FIPS 204 §7.5).
const ZETA: u64 = 1753;
/// Dropped bits of t (FIPS 204 Table 1: d = 13).
pub(crate) const D: u32 = 13;

const fn pow_mod(base: u64, mut exp: u64) -> u64 {
    let q = Q as u64;
    let (mut acc, mut b) = (1u64, base % q);
    while exp > 0 {
        if exp & 1 == 1 {
            acc = acc * b % q;
        }
        b = b * b % q;
        exp >>= 1;
    }
    acc
}

/// `x·2^32 mod q`, centred in (−q/2, q/2].
const fn to_montgomery_centred(x: u64) -> i32 {
    let q = Q as u64;
    let m = ((x % q) << 32) % q;
    if m > q / 2 {
        m as i32 - Q
    } else {
        m as i32
    }
}

/// `zetas[m] = ζ^brv8(m)·2^32 mod q`: the twiddle factor of Algorithms 41 and 42 in
/// Montgomery form, so that a Montgomery product with it multiplies by ζ^brv8(m).
pub(crate) const ZETAS: [i32; 256] = {
    let mut table = [0i32; 256];
    let mut m = 0;
    while m < 256 {
        let brv = (m as u8).reverse_bits() as u64;
        table[m] = to_montgomery_centred(pow_mod(ZETA, brv));
        m += 1;
    }
    table
};

/// The last step of NTT⁻¹ multiplies by 256⁻¹; our pointwise products each carry a
/// factor 2^−32 (Montgomery), and the final Montgomery product another, so the
/// constant is 2^64/256 mod q: one multiplication undoes all three.
pub(crate) const INVERSE_NTT_SCALE: i32 = {
    let q = Q as u64;
    let r2 = (1u64 << 32) % q * ((1u64 << 32) % q) % q;
    (r2 * pow_mod(256, q - 2) % q) as i32
};

/// a·2^−32 mod q, in (−q, q), for |a| < 2^31·q.
#[inline(always)]
pub(crate) fn montgomery_reduce(a: i64) -> i32 {
    let t = (a as i32).wrapping_mul(QINV);
    ((a - t as i64 * Q as i64) >> 32) as i32
}

/// a·b·2^−32 mod q, in (−q, q), for |a·b| < 2^31·q.
#[inline(always)]
pub(crate) fn montgomery_mul(a: i32, b: i32) -> i32 {
    montgomery_reduce(a as i64 * b as i64)
}

/// A representative of a mod q in [−6283008, 6283008], for a ≤ 2^31 − 2^22 − 1.
#[inline(always)]
pub(crate) fn reduce32(a: i32) -> i32 {
    let t = (a + (1 << 22)) >> 23;
    a - t * Q
}

/// a + q if a is negative: maps (−q, q) onto [0, q).
#[inline(always)]
pub(crate) fn caddq(a: i32) -> i32 {
    a + ((a >> 31) & Q)
}

/// The high bits r1 of Decompose(r) (FIPS 204 Algorithm 36) and whether r0 > 0, for
/// r in [0, q) and γ2 ∈ {(q−1)/88, (q−1)/32}.
///
/// r1 = ⌈r / 128⌉ first, then a fixed-point multiply divides by 2γ2/128 (744 or 2046)
/// rounding to nearest; for γ2 = (q−1)/88 the one value past 43 (r near q − 1, the
/// "r+ − r0 = q − 1" case) wraps to 0. An exhaustive test over all of [0, q) checks
/// this against the algorithm as written.
#[inline(always)]
pub(crate) fn decompose(r: i32, gamma2: i32) -> (i32, bool) {
    let mut r1 = (r + 127) >> 7;
    if gamma2 == (Q - 1) / 32 {
        r1 = (r1 * 1025 + (1 << 21)) >> 22;
        r1 &= 15;
    } else {
        r1 = (r1 * 11275 + (1 << 23)) >> 24;
        r1 ^= ((43 - r1) >> 31) & r1;
    }
    let mut r0 = r - r1 * 2 * gamma2;
    r0 -= (((Q - 1) / 2 - r0) >> 31) & Q;
    (r1, r0 > 0)
}

/// UseHint (FIPS 204 Algorithm 40) for r in [0, q): r1, or r1 ± 1 modulo
/// m = (q − 1)/(2γ2) when the hint is set. Branch-free (hints are rare and
/// unpredictable), so a loop of it vectorises.
#[inline(always)]
pub(crate) fn use_hint(r: i32, hint: bool, gamma2: i32) -> i32 {
    let (r1, r0_positive) = decompose(r, gamma2);
    let m = (Q - 1) / (2 * gamma2);
    // +1 or −1 when hinted, as r0 > 0 or not; then back into [0, m).
    let step = i32::from(hint) * (2 * i32::from(r0_positive) - 1);
    let moved = r1 + step;
    moved + (m & (moved >> 31)) - (m & ((m - 1 - moved) >> 31))
}

/// w′1 = UseHint(h, w′) for one row, w′ in (−q, q) (NTT⁻¹'s output) mapped to [0, q)
/// first. A plain loop: under a SIMD backend's target features it vectorises.
#[inline(always)]
pub(crate) fn use_hint_row(w: &mut [i32; 256], hints: &[bool; 256], gamma2: i32) {
    for (c, &h) in w.iter_mut().zip(hints) {
        *c = use_hint(caddq(*c), h, gamma2);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Decompose exactly as FIPS 204 Algorithm 36 writes it.
    fn decompose_spec(r: i32, gamma2: i32) -> (i32, i32) {
        let r_plus = r.rem_euclid(Q);
        let mut r0 = r_plus.rem_euclid(2 * gamma2);
        if r0 > gamma2 {
            r0 -= 2 * gamma2;
        }
        if r_plus - r0 == Q - 1 {
            (0, r0 - 1)
        } else {
            ((r_plus - r0) / (2 * gamma2), r0)
        }
    }

    #[test]
    fn decompose_matches_the_algorithm_on_every_coefficient() {
        for gamma2 in [(Q - 1) / 88, (Q - 1) / 32] {
            for r in 0..Q {
                let (r1, r0) = decompose_spec(r, gamma2);
                assert_eq!(decompose(r, gamma2), (r1, r0 > 0), "r = {r}, γ2 = {gamma2}");
            }
        }
    }

    /// UseHint as Algorithm 40 writes it, on Decompose as Algorithm 36 writes it.
    fn use_hint_spec(r: i32, hint: bool, gamma2: i32) -> i32 {
        let m = (Q - 1) / (2 * gamma2);
        let (r1, r0) = decompose_spec(r, gamma2);
        match (hint, r0 > 0) {
            (true, true) => (r1 + 1).rem_euclid(m),
            (true, false) => (r1 - 1).rem_euclid(m),
            (false, _) => r1,
        }
    }

    #[test]
    fn use_hint_matches_the_algorithm() {
        for gamma2 in [(Q - 1) / 88, (Q - 1) / 32] {
            for r in (0..Q)
                .step_by(7)
                .chain([0, 1, Q - 2, Q - 1, gamma2, gamma2 + 1, 2 * gamma2])
            {
                for hint in [false, true] {
                    assert_eq!(
                        use_hint(r, hint, gamma2),
                        use_hint_spec(r, hint, gamma2),
                        "r = {r}"
                    );
                }
            }
        }
    }

    #[test]
    fn twiddles_and_scale_are_the_published_constants() {
        // The first twiddles of the Dilithium reference tables and its mont²/256.
        assert_eq!(&ZETAS[1..5], &[25847, -2608894, -518909, 237124]);
        assert_eq!(INVERSE_NTT_SCALE, 41978);
        assert_eq!(Q.wrapping_mul(QINV), 1);
    }

    #[test]
    fn montgomery_and_reduce32_stay_in_their_ranges() {
        for (a, b) in [
            (Q - 1, Q - 1),
            (-(9 * Q), 9 * Q),
            (1, 1),
            (0, 5),
            (-7, 123_456),
        ] {
            let r = montgomery_mul(a, b);
            assert!(r.abs() < Q);
            let expected = (a as i64 * b as i64).rem_euclid(Q as i64) as i128;
            let got = (r as i128 * (1i128 << 32)).rem_euclid(Q as i128);
            assert_eq!(got, expected);
        }
        for a in [i32::MAX - (1 << 22) - 1, -i32::MAX + 5, 0, Q, -Q, 6_283_009] {
            let r = reduce32(a);
            assert!(r.abs() <= 6_283_008, "{a} → {r}");
            assert_eq!((r - a).rem_euclid(Q), 0);
        }
    }
}
