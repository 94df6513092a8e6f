//! Decoding of public keys and signatures, and w1Encode (FIPS 204 §7.1–7.2), for the
//! verify path. Lengths are checked by the caller; every function here takes exactly
//! the bytes of one polynomial (or of the hint field).

use super::arith::D;
use super::lanes::Poly;

/// t1·2^d from SimpleBitUnpack(b, 2^10 − 1) (Algorithm 23 via pkDecode, Algorithm 23):
/// four 10-bit coefficients per 5 bytes. Results lie in [0, q).
pub(crate) fn decode_t1_shifted(bytes: &[u8], out: &mut Poly) {
    debug_assert_eq!(bytes.len(), 320);
    for (group, coefficients) in bytes.chunks_exact(5).zip(out.0.chunks_exact_mut(4)) {
        let bits = u64::from_le_bytes([group[0], group[1], group[2], group[3], group[4], 0, 0, 0]);
        for (i, c) in coefficients.iter_mut().enumerate() {
            *c = (((bits >> (10 * i)) & 0x3ff) as i32) << D;
        }
    }
}

/// z from BitUnpack(b, γ1 − 1, γ1) (Algorithm 19 via sigDecode, Algorithm 27):
/// coefficients γ1 − v for the (bits(γ1) + 1)-bit values v, so in [−γ1 + 1, γ1].
/// Returns the largest |z_i|, for the norm check of Algorithm 8.
pub(crate) fn decode_z(bytes: &[u8], gamma1_bits: u32, out: &mut Poly) -> i32 {
    let gamma1 = 1i64 << gamma1_bits;
    let mut largest = 0;
    let mut word = [0u8; 8];
    if gamma1_bits == 17 {
        // 18-bit values, four per 9 bytes: bits 0–53 in the first 8 bytes' word, the
        // fourth value's top 8 bits in the ninth byte.
        debug_assert_eq!(bytes.len(), 576);
        const MASK: u64 = (1 << 18) - 1;
        for (group, c) in bytes.chunks_exact(9).zip(out.0.chunks_exact_mut(4)) {
            let bits = u64::from_le_bytes(group[..8].try_into().expect("8 bytes"));
            let values = [
                bits & MASK,
                (bits >> 18) & MASK,
                (bits >> 36) & MASK,
                bits >> 54 | (group[8] as u64) << 10,
            ];
            for (c, v) in c.iter_mut().zip(values) {
                *c = (gamma1 - v as i64) as i32;
                largest = largest.max(c.abs());
            }
        }
    } else {
        // 20-bit values, two per 5 bytes.
        debug_assert_eq!((gamma1_bits, bytes.len()), (19, 640));
        const MASK: u64 = (1 << 20) - 1;
        for (group, c) in bytes.chunks_exact(5).zip(out.0.chunks_exact_mut(2)) {
            word[..5].copy_from_slice(group);
            let bits = u64::from_le_bytes(word);
            for (c, v) in c.iter_mut().zip([bits & MASK, bits >> 20]) {
                *c = (gamma1 - v as i64) as i32;
                largest = largest.max(c.abs());
            }
        }
    }
    largest
}

/// HintBitUnpack (FIPS 204 Algorithm 21): `omega` positions, then one running count per
/// row. `None` when the encoding is not the unique one: counts that decrease or pass ω,
/// positions not strictly increasing within a row, or non-zero padding.
pub(crate) fn decode_hints(
    bytes: &[u8],
    rows: usize,
    omega: usize,
    out: &mut [[bool; 256]],
) -> Option<()> {
    debug_assert_eq!(bytes.len(), omega + rows);
    let mut index = 0;
    for (i, row) in out[..rows].iter_mut().enumerate() {
        *row = [false; 256];
        let end = bytes[omega + i] as usize;
        if end < index || end > omega {
            return None;
        }
        let first = index;
        while index < end {
            if index > first && bytes[index - 1] >= bytes[index] {
                return None;
            }
            row[bytes[index] as usize] = true;
            index += 1;
        }
    }
    bytes[index..omega].iter().all(|&b| b == 0).then_some(())
}

/// w1Encode for one polynomial (Algorithm 28): SimpleBitPack with 6 bits per coefficient
/// when γ2 = (q − 1)/88 (values < 44), else 4 bits (values < 16).
pub(crate) fn encode_w1(w1: &Poly, six_bits: bool, out: &mut [u8]) {
    if six_bits {
        for (c, b) in w1.0.chunks_exact(4).zip(out.chunks_exact_mut(3)) {
            let bits = (c[0] | c[1] << 6 | c[2] << 12 | c[3] << 18) as u32;
            b.copy_from_slice(&bits.to_le_bytes()[..3]);
        }
    } else {
        for (c, b) in w1.0.chunks_exact(2).zip(out.iter_mut()) {
            *b = (c[0] | c[1] << 4) as u8;
        }
    }
}
