//! Byte-level facts about point encodings (RFC 8032 §5.1.3), shared by every backend:
//! they decide canonicality and recognise small-order R without any curve arithmetic.

use curve25519_dalek::constants::EIGHT_TORSION;
use std::sync::LazyLock;

/// y is encoded in the low 255 bits, little-endian; it is canonical iff y < p = 2^255 − 19.
/// The only 255-bit values ≥ p are p..=2^255−1, i.e. bytes ed..ff ff … ff 7f.
pub(crate) fn y_is_canonical(bytes: &[u8; 32]) -> bool {
    let top_all_ones = bytes[31] & 0x7f == 0x7f && bytes[1..31].iter().all(|&b| b == 0xff);
    !(top_all_ones && bytes[0] >= 0xed)
}

/// Whether `bytes` is the canonical encoding of whatever point it decodes to: y < p, and
/// the sign bit clear when x = 0. On the curve, x = 0 exactly when y = ±1 (−x² + y² =
/// 1 + d·x²·y² gives y² = 1), so "x = 0 with the sign bit set" is a byte test too.
pub(crate) fn is_canonical_encoding(bytes: &[u8; 32]) -> bool {
    const Y_ONE: [u8; 32] = {
        let mut b = [0u8; 32];
        b[0] = 1;
        b
    };
    const Y_MINUS_ONE: [u8; 32] = {
        let mut b = [0xffu8; 32];
        b[0] = 0xec;
        b[31] = 0x7f;
        b
    };
    if !y_is_canonical(bytes) {
        return false;
    }
    let sign = bytes[31] >> 7 == 1;
    let mut y = *bytes;
    y[31] &= 0x7f;
    !(sign && (y == Y_ONE || y == Y_MINUS_ONE))
}

/// The canonical encodings of the eight points of order dividing 8.
static SMALL_ORDER_CANONICAL: LazyLock<[[u8; 32]; 8]> =
    LazyLock::new(|| EIGHT_TORSION.map(|p| p.compress().to_bytes()));

/// Whether canonical `bytes` encode a small-order point. Only meaningful for canonical
/// encodings: `Strict` uses it on R, where a non-canonical R is rejected anyway.
pub(crate) fn is_small_order_canonical(bytes: &[u8; 32]) -> bool {
    SMALL_ORDER_CANONICAL.iter().any(|e| e == bytes)
}

#[cfg(test)]
mod tests {
    use super::*;
    use curve25519_dalek::edwards::CompressedEdwardsY;

    #[test]
    fn canonical_y_boundary() {
        let mut p = [0xffu8; 32];
        p[0] = 0xed;
        p[31] = 0x7f;
        assert!(!y_is_canonical(&p));
        let mut p_minus_1 = p;
        p_minus_1[0] = 0xec;
        assert!(y_is_canonical(&p_minus_1));
        let mut with_sign = p;
        with_sign[31] |= 0x80;
        assert!(!y_is_canonical(&with_sign));
        assert!(y_is_canonical(&[0u8; 32]));
    }

    #[test]
    fn canonical_encoding_matches_reencoding() {
        // Exhaustive over the interesting corner: y in {0..=20, p-20..=2^255-1}, both signs.
        let mut cases = Vec::new();
        for low in 0u8..=20 {
            let mut b = [0u8; 32];
            b[0] = low;
            cases.push(b);
            let mut hi = [0xffu8; 32];
            hi[31] = 0x7f;
            hi[0] = 0xff - low;
            cases.push(hi);
        }
        for mut b in cases {
            for sign in [0u8, 0x80] {
                b[31] = (b[31] & 0x7f) | sign;
                if let Some(point) = CompressedEdwardsY(b).decompress() {
                    let reencoded = point.compress().to_bytes() == b;
                    assert_eq!(is_canonical_encoding(&b), reencoded, "{}", hex(&b));
                }
            }
        }
    }

    #[test]
    fn small_order_table_is_the_eight_torsion() {
        let mut seen = SMALL_ORDER_CANONICAL.to_vec();
        seen.sort();
        seen.dedup();
        assert_eq!(seen.len(), 8);
        for b in seen {
            let p = CompressedEdwardsY(b).decompress().unwrap();
            assert!(p.is_small_order());
            assert!(is_canonical_encoding(&b));
        }
    }

    fn hex(b: &[u8]) -> String {
        b.iter().map(|x| format!("{x:02x}")).collect()
    }
}
