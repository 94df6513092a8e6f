//! Arithmetic modulo the group order L on 256-bit integers, for the scalars of the lane
//! path: k = SHA-512(R ‖ A ‖ M) mod L (RFC 8032 §5.1.7), the check S < L, and the
//! products of the half-size scalars. Variable time: every value here is public.
//!
//! L = 2^252 + δ with δ < 2^125, so a value H·2^252 + X is ≡ X − H·δ (mod L): each fold
//! shortens a number by ~127 bits, and two or three folds and a signed correction by L
//! reduce anything (curve25519-dalek's `Scalar` goes through Montgomery form, with two
//! products for a 512-bit value, several times these; docs/results.md).

/// 256-bit integers, little-endian 64-bit limbs; signed ones in two's complement.
pub(crate) type U256 = [u64; 4];

/// L = 2^252 + 27742317777372353535851937790883648493.
pub(crate) const L: U256 = [
    0x5812_631a_5cf5_d3ed,
    0x14de_f9de_a2f7_9cd6,
    0,
    0x1000_0000_0000_0000,
];

/// x mod L for x < 2L (every x < 2^253).
pub(crate) fn reduce_once(x: &U256) -> U256 {
    let (diff, borrow) = sub_borrow(x, &L);
    if borrow {
        *x
    } else {
        diff
    }
}

/// (L − x) mod L for x < L.
pub(crate) fn neg_mod_l(x: &U256) -> U256 {
    if *x == [0; 4] {
        *x
    } else {
        sub(&L, x)
    }
}

/// a·b mod L for a < 2^192 and b < 2^256. With L = 2^252 + δ (δ < 2^125), a value
/// H·2^252 + X is ≡ X − H·δ: the 448-bit product folds to X − H·δ (H·δ < 2^321), whose
/// high part folds once more, leaving X − X' + H'·δ in (−2^252, 2^252 + 2^194): one
/// signed correction by L. (curve25519-dalek's `Scalar` product, Montgomery with the
/// conversions around it, made `halve_all` half as slow again: `halve_cost`,
/// docs/results.md.)
pub(crate) fn mul_mod_l(a: &U256, b: &U256) -> U256 {
    debug_assert!(a[3] == 0);
    let (x, h) = split_252::<8, 5>(&mul::<4, 4, 8>(a, b)); // h < 2^196
    let (x1, h1) = split_252::<7, 4>(&mul::<5, 2, 7>(&h, &DELTA)); // h1 < 2^69
    let second = mul::<4, 2, 6>(&h1, &DELTA); // < 2^194

    // r = x − x1 + second as a 5-limb two's complement.
    let r = add(&widen(&x), &negate(&widen(&x1)));
    into_range(add(&r, &widen(&second)))
}

/// a·b (`C` = `A` + `B` limbs).
fn mul<const A: usize, const B: usize, const C: usize>(a: &[u64; A], b: &[u64; B]) -> [u64; C] {
    debug_assert_eq!(A + B, C);
    let mut out = [0u64; C];
    for (i, &ai) in a.iter().enumerate() {
        let mut carry = 0u128;
        for (j, &bj) in b.iter().enumerate() {
            let t = u128::from(ai) * u128::from(bj) + u128::from(out[i + j]) + carry;
            out[i + j] = t as u64;
            carry = t >> 64;
        }
        out[i + B] = carry as u64;
    }
    out
}

/// (x mod 2^252, ⌊x / 2^252⌋), the quotient in `H` = `N` − 3 limbs.
fn split_252<const N: usize, const H: usize>(x: &[u64; N]) -> (U256, [u64; H]) {
    debug_assert_eq!(N - 3, H);
    let low = [x[0], x[1], x[2], x[3] & ((1 << 60) - 1)];
    let high = core::array::from_fn(|i| x[3 + i] >> 60 | x.get(4 + i).map_or(0, |&w| w << 4));
    (low, high)
}

pub(crate) fn limbs(b: &[u8; 32]) -> U256 {
    core::array::from_fn(|i| u64::from_le_bytes(b[8 * i..8 * i + 8].try_into().unwrap()))
}

pub(crate) fn bytes(x: &U256) -> [u8; 32] {
    let mut out = [0u8; 32];
    for (chunk, limb) in out.chunks_exact_mut(8).zip(x) {
        chunk.copy_from_slice(&limb.to_le_bytes());
    }
    out
}

/// x ≥ y, both read unsigned.
pub(crate) fn at_least(x: &U256, y: &U256) -> bool {
    (0..4).rev().map(|i| x[i].cmp(&y[i])).find(|o| o.is_ne()) != Some(core::cmp::Ordering::Less)
}

pub(crate) fn is_negative(x: &U256) -> bool {
    x[3] >> 63 == 1
}

/// −x mod 2^(64·N).
pub(crate) fn negate<const N: usize>(x: &[u64; N]) -> [u64; N] {
    let one = core::array::from_fn(|i| u64::from(i == 0));
    add(&x.map(|limb| !limb), &one)
}

/// x + y mod 2^(64·N).
pub(crate) fn add<const N: usize>(x: &[u64; N], y: &[u64; N]) -> [u64; N] {
    let mut out = [0u64; N];
    let mut carry = false;
    for i in 0..N {
        let (sum, c1) = x[i].overflowing_add(y[i]);
        let (sum, c2) = sum.overflowing_add(u64::from(carry));
        out[i] = sum;
        carry = c1 || c2;
    }
    out
}

pub(crate) fn sub(x: &U256, y: &U256) -> U256 {
    add(x, &negate(y))
}

/// x · y mod 2^256: the low half of the product, which for two's complement operands is
/// their signed product wherever that fits.
pub(crate) fn mul_low(x: &U256, y: &U256) -> U256 {
    let mut out = [0u64; 4];
    for i in 0..4 {
        let mut carry = 0u128;
        for j in 0..4 - i {
            let t = u128::from(out[i + j]) + u128::from(x[i]) * u128::from(y[j]) + carry;
            out[i + j] = t as u64;
            carry = t >> 64;
        }
    }
    out
}

/// ⌊x / y⌋ and x mod y, unsigned, for y ≠ 0: one quotient bit per step, most significant
/// first. The remainder stays below y; doubling it may carry out of 256 bits when
/// y > 2^255, and then it is above y, so one wrapping subtraction brings it back.
pub(crate) fn div_rem(x: &U256, y: &U256) -> (U256, U256) {
    debug_assert!(y.iter().any(|&limb| limb != 0), "division by zero");
    let mut quotient = [0u64; 4];
    let mut remainder = [0u64; 4];
    for bit in (0..256).rev() {
        let carried = is_negative(&remainder);
        remainder = add(&remainder, &remainder);
        remainder[0] |= (x[bit / 64] >> (bit % 64)) & 1;
        if carried || at_least(&remainder, y) {
            remainder = sub(&remainder, y);
            quotient[bit / 64] |= 1 << (bit % 64);
        }
    }
    (quotient, remainder)
}

/// x − y mod 2^256, and whether it borrowed (x < y unsigned).
pub(crate) fn sub_borrow(x: &U256, y: &U256) -> (U256, bool) {
    (sub(x, y), !at_least(x, y))
}

/// δ = L − 2^252.
const DELTA: [u64; 2] = [L[0], L[1]];

/// The 5-limb two's complement of a value below 2^256 (limbs past the fourth are zero).
fn widen(v: &[u64]) -> [u64; 5] {
    [v[0], v[1], v[2], v[3], 0]
}

/// r mod L for r in (−2L, 2L), a 5-limb two's complement.
fn into_range(mut r: [u64; 5]) -> U256 {
    let l = widen(&L);
    while r[4] >> 63 == 1 {
        r = add(&r, &l);
    }
    let less_l = add(&r, &negate(&l));
    if less_l[4] >> 63 == 0 {
        r = less_l;
    }
    [r[0], r[1], r[2], r[3]]
}

/// x mod L for any 512-bit little-endian x (a SHA-512 digest). x = X + H·2^252 with
/// H < 2^260 folds to X − H·δ; H·δ < 2^385 = X1 + H1·2^252 (H1 < 2^133) folds to
/// X − X1 + H1·δ; H1·δ < 2^258 = X2 + H2·2^252 (H2 < 2^6) folds to
/// X − X1 + X2 − H2·δ, in (−2^252 − 2^131, 2^253) ⊂ (−2L, 2L).
pub(crate) fn reduce_wide(bytes: &[u8; 64]) -> U256 {
    let x: [u64; 8] =
        core::array::from_fn(|i| u64::from_le_bytes(bytes[8 * i..8 * i + 8].try_into().unwrap()));
    let (x0, h0) = split_252::<8, 5>(&x);
    let (x1, h1) = split_252::<7, 4>(&mul::<5, 2, 7>(&h0, &DELTA));
    let (x2, h2) = split_252::<6, 3>(&mul::<4, 2, 6>(&h1, &DELTA));
    let last = mul::<3, 2, 5>(&h2, &DELTA);
    let r = add(&widen(&x0), &negate(&widen(&x1)));
    let r = add(&r, &widen(&x2));
    into_range(add(&r, &negate(&last)))
}

/// Whether the little-endian `bytes` are below L (RFC 8032 §5.1.7's S < L).
pub(crate) fn is_canonical(bytes: &[u8; 32]) -> bool {
    !at_least(&limbs(bytes), &L)
}

#[cfg(test)]
mod tests {
    use super::*;
    use curve25519_dalek::Scalar;
    use rand::{RngCore, SeedableRng};

    /// Digests at the edges (0, all ones, multiples of L and 2^252 and their
    /// neighbours, each fold's extremes) and random ones, against curve25519-dalek.
    #[test]
    fn reduce_wide_matches_dalek() {
        let mut cases: Vec<[u8; 64]> = vec![[0; 64], [0xff; 64]];
        let l_bytes = bytes(&L);
        for multiple in [1u64, 2, 8, 16, u64::MAX] {
            let mut wide = [0u8; 64];
            let product = mul::<4, 1, 5>(&L, &[multiple]);
            for (chunk, limb) in wide.chunks_exact_mut(8).zip(product) {
                chunk.copy_from_slice(&limb.to_le_bytes());
            }
            for delta in [-1i64, 0, 1] {
                let mut w = wide;
                let v = u64::from_le_bytes(w[..8].try_into().unwrap()).wrapping_add(delta as u64);
                w[..8].copy_from_slice(&v.to_le_bytes());
                cases.push(w);
            }
        }
        let mut l_low = [0u8; 64];
        l_low[..32].copy_from_slice(&l_bytes);
        cases.push(l_low);
        for bit in [251usize, 252, 253, 255, 256, 384, 385, 508, 511] {
            let mut w = [0u8; 64];
            w[bit / 8] = 1 << (bit % 8);
            cases.push(w);
            let mut below = [0xffu8; 64];
            below[bit / 8..].fill(0);
            below[bit / 8] = (1u8 << (bit % 8)).wrapping_sub(1);
            cases.push(below);
        }
        let mut rng = rand_chacha::ChaCha20Rng::seed_from_u64(21);
        for _ in 0..100_000 {
            let mut w = [0u8; 64];
            rng.fill_bytes(&mut w);
            cases.push(w);
        }
        for wide in cases {
            let want = Scalar::from_bytes_mod_order_wide(&wide).to_bytes();
            assert_eq!(bytes(&reduce_wide(&wide)), want, "{wide:?}");
        }
    }

    #[test]
    fn is_canonical_matches_dalek() {
        let mut cases: Vec<[u8; 32]> = vec![[0; 32], [0xff; 32], bytes(&L)];
        for delta in 1..20u64 {
            cases.push(bytes(&add(&L, &[delta, 0, 0, 0])));
            cases.push(bytes(&sub(&L, &[delta, 0, 0, 0])));
        }
        let mut high = [0u8; 32];
        high[31] = 0x80;
        cases.push(high);
        let mut rng = rand_chacha::ChaCha20Rng::seed_from_u64(22);
        for _ in 0..10_000 {
            let mut s = [0u8; 32];
            rng.fill_bytes(&mut s);
            s[31] &= 0x1f;
            cases.push(s);
        }
        for s in cases {
            let want = bool::from(Scalar::from_canonical_bytes(s).is_some());
            assert_eq!(is_canonical(&s), want, "{s:?}");
        }
    }

    /// Division and the low product against num-bigint, on operands of every size from
    /// one bit to 256 (divisors above 2^255 included, where the remainder's doubling
    /// carries out), and on the walk's signed use: tu − q·tv in two's complement.
    #[test]
    fn div_rem_and_mul_low_match_big_integers() {
        use num_bigint::{BigInt, BigUint};
        let big = |x: &U256| BigUint::from_bytes_le(&bytes(x));
        let signed = |x: &U256| {
            if is_negative(x) {
                -BigInt::from(big(&negate(x)))
            } else {
                BigInt::from(big(x))
            }
        };
        let mut rng = rand_chacha::ChaCha20Rng::seed_from_u64(23);
        let mut sized = |bits: u32| {
            let mut b = [0u8; 32];
            rng.fill_bytes(&mut b);
            let mut x = limbs(&b);
            for (i, limb) in x.iter_mut().enumerate() {
                let keep = bits.saturating_sub(64 * i as u32).min(64);
                *limb = if keep == 0 { 0 } else { *limb >> (64 - keep) };
            }
            x
        };
        let wrap = BigUint::from(1u8) << 256;
        for round in 0..4_000u32 {
            let (xb, yb) = (1 + round % 256, 1 + (round * 7 + 3) % 256);
            let (x, y) = (sized(xb), sized(yb));
            if y == [0; 4] {
                continue;
            }
            let (q, r) = div_rem(&x, &y);
            assert_eq!(big(&q), big(&x) / big(&y), "{x:?} / {y:?}");
            assert_eq!(big(&r), big(&x) % big(&y), "{x:?} % {y:?}");
            assert_eq!(big(&mul_low(&x, &y)), (big(&x) * big(&y)) % &wrap);
            // Signed: |t| < 2^127 and q < 2^127, so tu − q·tv fits 255 bits.
            let (tu, tv, q) = (sized(127), sized(127), sized(127));
            let tv = if round % 2 == 0 { negate(&tv) } else { tv };
            let t = sub(&tu, &mul_low(&q, &tv));
            assert_eq!(
                signed(&t),
                signed(&tu) - BigInt::from(big(&q)) * signed(&tv)
            );
        }
        let top = [u64::MAX; 4];
        assert_eq!(div_rem(&top, &top), ([1, 0, 0, 0], [0; 4]));
        let (q, r) = div_rem(&top, &sub(&top, &[1, 0, 0, 0]));
        assert_eq!((q, r), ([1, 0, 0, 0], [1, 0, 0, 0]));
    }
}
