//! Fixed-base exponentiation by windowing (Brickell, Gordon, McCurley, Wilson, "Fast
//! exponentiation with precomputation", EUROCRYPT 1992, the simple variant): for a base
//! b known in advance, store b^(d·2^(w·i)) for every w-bit digit d ≠ 0 and every digit
//! position i. Then b^e is the product of one table entry per nonzero digit of e:
//! ⌈bits/w⌉ multiplications and no squarings, against ~bits squarings plus bits/(w+1)
//! multiplications for a sliding-window exponentiation.
//!
//! DJN encryption uses it for hs^α mod n² with a ⌈bits(n)/2⌉-bit α.

use rug::integer::Order;
use rug::ops::RemRounding;
use rug::Integer;

/// Powers of one base modulo one modulus, for exponents below 2^`exponent_bits`.
#[derive(Clone, Debug)]
pub struct FixedBaseTable {
    modulus: Integer,
    window: u32,
    exponent_bits: u32,
    /// rows[i][d − 1] = base^(d·2^(window·i)) mod modulus, for d in 1..2^window.
    rows: Vec<Vec<Integer>>,
}

/// The window [`FixedBaseTable::new`] picks when asked for 0: 8 bits. For a 2048-bit n (a
/// 4096-bit modulus n², a 1024-bit α) that is 128 multiplications per exponentiation and a
/// 16.7 MB table; each exponentiation reads only 64 KB of it, so cache misses are noise
/// next to the 4096-bit multiplications, and the time follows the multiplication count.
/// Measured (docs/results.md): past 8 bits a wider window saves little time for a table
/// nearly twice the size; 9 bits would save about a tenth more for 1.8× the memory.
pub const DEFAULT_WINDOW: u32 = 8;

impl FixedBaseTable {
    /// Precompute powers of `base` mod `modulus` (> 1) for exponents of up to
    /// `exponent_bits` bits, `window` bits per digit (1..=16; 0 picks the default, 8).
    pub fn new(base: &Integer, modulus: &Integer, exponent_bits: u32, window: u32) -> Self {
        let window = if window == 0 {
            DEFAULT_WINDOW
        } else {
            window.clamp(1, 16)
        };
        let digits = exponent_bits.div_ceil(window).max(1);
        let mut rows = Vec::with_capacity(digits as usize);
        let mut row_base = base.clone().rem_euc(modulus);
        for _ in 0..digits {
            let mut row = Vec::with_capacity((1usize << window) - 1);
            let mut power = row_base.clone();
            for _ in 1..(1u32 << window) {
                let next = Integer::from(&power * &row_base) % modulus;
                row.push(std::mem::replace(&mut power, next));
            }
            // After the loop `power` = row_base^(2^window): the next row's base.
            row_base = power;
            rows.push(row);
        }
        FixedBaseTable {
            modulus: modulus.clone(),
            window,
            exponent_bits: digits * window,
            rows,
        }
    }

    /// base^exponent mod modulus. An exponent wider than the table, or negative, takes
    /// GMP's general exponentiation (same result, no speed-up); `None` only for a
    /// negative exponent when the base has no inverse.
    pub fn pow(&self, exponent: &Integer) -> Option<Integer> {
        if *exponent < 0 || exponent.significant_bits() > self.exponent_bits {
            let base = &self.rows[0][0];
            return base.pow_mod_ref(exponent, &self.modulus).map(Integer::from);
        }
        let limbs = exponent.to_digits::<u64>(Order::Lsf);
        let mut acc: Option<Integer> = None;
        for (i, row) in self.rows.iter().enumerate() {
            let digit = bits_at(&limbs, i as u32 * self.window, self.window);
            if digit == 0 {
                continue;
            }
            let entry = &row[digit as usize - 1];
            acc = Some(match acc {
                None => entry.clone(),
                Some(mut a) => {
                    a *= entry;
                    a %= &self.modulus;
                    a
                }
            });
        }
        Some(acc.unwrap_or_else(|| Integer::from(1) % &self.modulus))
    }

    /// rows[i][d − 1] = base^(d·2^(window·i)) mod modulus, for d in 1..2^window.
    pub(crate) fn rows(&self) -> &[Vec<Integer>] {
        &self.rows
    }

    pub fn window(&self) -> u32 {
        self.window
    }

    /// Multiplications per exponentiation at most (one per digit position).
    pub fn digits(&self) -> usize {
        self.rows.len()
    }

    /// Bytes held by the table's entries.
    pub fn bytes(&self) -> usize {
        self.rows
            .iter()
            .flatten()
            .map(|e| e.significant_digits::<u8>())
            .sum()
    }
}

/// The `width` bits of the little-endian limb array starting at bit `start` (width ≤ 16).
fn bits_at(limbs: &[u64], start: u32, width: u32) -> u64 {
    let limb = (start / 64) as usize;
    let shift = start % 64;
    let low = limbs.get(limb).copied().unwrap_or(0) >> shift;
    let high = if shift + width > 64 {
        limbs.get(limb + 1).copied().unwrap_or(0) << (64 - shift)
    } else {
        0
    };
    (low | high) & ((1u64 << width) - 1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn matches_general_exponentiation() {
        let modulus = Integer::from(1_000_003u64) * Integer::from(999_983u64);
        let base = Integer::from(123_456_789u64);
        for window in [1, 3, 7, 8, 13] {
            let table = FixedBaseTable::new(&base, &modulus, 70, window);
            for e in [
                0u128,
                1,
                2,
                127,
                128,
                255,
                1 << 63,
                (1 << 70) - 1,
                0x2_5a5a_5a5a_5a5a_5a5a,
            ] {
                let e = Integer::from(e);
                let want = Integer::from(base.pow_mod_ref(&e, &modulus).unwrap());
                assert_eq!(table.pow(&e), Some(want), "window {window}, exponent {e}");
            }
            // Wider than the table, and negative: the general path, same answer.
            let wide = Integer::from(1) << 80u32;
            let want = Integer::from(base.pow_mod_ref(&wide, &modulus).unwrap());
            assert_eq!(table.pow(&wide), Some(want));
        }
    }
}
