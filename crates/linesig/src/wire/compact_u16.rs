//! Solana's compact-u16 ("short_vec" length): 1–3 bytes, 7 value bits each, least
//! significant first, bit 7 set on every byte but the last.
//!
//! Agave's decoder rejects aliases (a non-first byte of 0, i.e. a longer encoding of a
//! smaller value), a third byte with its continuation bit set, and values above
//! `u16::MAX`. Accepting any of them would let one transaction have two encodings, which
//! breaks whole-packet dedup and diverges from the chain, so they are errors here too.

/// Why a compact-u16 did not decode.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum CompactU16Error {
    /// The buffer ended inside the encoding.
    Truncated,
    /// A longer encoding of a value that has a shorter one (a trailing zero byte).
    NonCanonical,
    /// More than three bytes, or a value above `u16::MAX`.
    Overflow,
}

/// Most bytes one compact-u16 takes.
pub const MAX_LEN: usize = 3;

/// Decode the compact-u16 at the start of `bytes`: (value, bytes consumed).
pub fn decode(bytes: &[u8]) -> Result<(u16, usize), CompactU16Error> {
    let mut value: u32 = 0;
    for nth in 0..MAX_LEN {
        let byte = *bytes.get(nth).ok_or(CompactU16Error::Truncated)?;
        if byte == 0 && nth != 0 {
            return Err(CompactU16Error::NonCanonical);
        }
        value |= u32::from(byte & 0x7f) << (7 * nth);
        if byte & 0x80 == 0 {
            return u16::try_from(value)
                .map(|v| (v, nth + 1))
                .map_err(|_| CompactU16Error::Overflow);
        }
    }
    Err(CompactU16Error::Overflow)
}

/// Append the canonical encoding of `value`.
pub fn encode(value: u16, out: &mut Vec<u8>) {
    let mut rest = value;
    loop {
        let low = (rest & 0x7f) as u8;
        rest >>= 7;
        if rest == 0 {
            out.push(low);
            return;
        }
        out.push(low | 0x80);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trips_every_value() {
        for v in 0..=u16::MAX {
            let mut buf = Vec::new();
            encode(v, &mut buf);
            assert_eq!(decode(&buf), Ok((v, buf.len())), "value {v}");
            let expected_len = if v < 0x80 {
                1
            } else if v < 0x4000 {
                2
            } else {
                3
            };
            assert_eq!(buf.len(), expected_len);
        }
    }

    #[test]
    fn rejects_aliases_overflow_and_truncation() {
        use CompactU16Error::*;
        assert_eq!(decode(&[]), Err(Truncated));
        assert_eq!(decode(&[0x80]), Err(Truncated));
        assert_eq!(decode(&[0x81, 0x80]), Err(Truncated));
        // 1 written in two bytes; 0 written in two and three bytes.
        assert_eq!(decode(&[0x81, 0x00]), Err(NonCanonical));
        assert_eq!(decode(&[0x80, 0x00]), Err(NonCanonical));
        assert_eq!(decode(&[0x80, 0x80, 0x00]), Err(NonCanonical));
        // 2^16 and a fourth byte.
        assert_eq!(decode(&[0x80, 0x80, 0x04]), Err(Overflow));
        assert_eq!(decode(&[0xff, 0xff, 0x83]), Err(Overflow));
        assert_eq!(decode(&[0xff, 0xff, 0x03]), Ok((u16::MAX, 3)));
        // A zero continuation payload in the middle is not an alias: 2^14.
        assert_eq!(decode(&[0x80, 0x80, 0x01]), Ok((1 << 14, 3)));
    }
}
