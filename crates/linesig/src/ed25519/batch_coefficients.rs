//! The random coefficients zᵢ of the batch equation (docs/design.md §3, "The batch
//! equation"): Σ zᵢ·[8](SᵢB − Rᵢ − kᵢAᵢ) = O accepts a batch with an invalid signature
//! only if zᵢ hits the one residue mod L that cancels it, so each zᵢ must be uniform and
//! unpredictable to whoever assembled the batch: never a function of the batch's bytes.
//!
//! Each call draws a fresh 256-bit seed from the operating system's CSPRNG (`getrandom`)
//! and derives zᵢ = the low 127 bits of block ⌊i/4⌋ of SHA-512(seed ‖ ⌊i/4⌋), i mod 4
//! choosing the 16-byte quarter: a PRF under a secret key, four coefficients per
//! compression, computed wherever they are needed. 127 bits, not 128, so that signed
//! radix-2^c digits of zᵢ never carry past ⌈128/c⌉ windows (`msm`).

use sha2::{Digest, Sha512};

/// Bits of each coefficient: zᵢ < 2^127.
pub(crate) const BITS: u32 = 127;

/// One call's coefficients.
pub(crate) struct Coefficients {
    seed: [u8; 32],
}

/// The operating system gave no random bytes (no `getrandom`, no `/dev/urandom`): the
/// batch equation cannot run soundly, so the unit takes the per-signature path.
#[derive(Debug)]
pub(crate) struct NoEntropy;

impl Coefficients {
    /// A fresh seed from the operating system.
    pub(crate) fn draw() -> Result<Self, NoEntropy> {
        let mut seed = [0u8; 32];
        getrandom::getrandom(&mut seed).map_err(|_| NoEntropy)?;
        Ok(Coefficients { seed })
    }

    /// z_first, z_first+1, … for as many as `out` holds, little-endian 256-bit (the top
    /// 129 bits zero).
    pub(crate) fn fill(&self, first: usize, out: &mut [[u64; 4]]) {
        let mut block = usize::MAX;
        let mut digest = [0u8; 64];
        for (index, z) in (first..).zip(out.iter_mut()) {
            if index / 4 != block {
                block = index / 4;
                digest = Sha512::new()
                    .chain_update(self.seed)
                    .chain_update((block as u64).to_le_bytes())
                    .finalize()
                    .into();
            }
            let quarter = &digest[(index % 4) * 16..(index % 4 + 1) * 16];
            let value = u128::from_le_bytes(quarter.try_into().expect("16 bytes")) >> 1;
            *z = [value as u64, (value >> 64) as u64, 0, 0];
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn coefficients(c: &Coefficients, n: usize) -> Vec<[u64; 4]> {
        let mut out = vec![[0; 4]; n];
        c.fill(0, &mut out);
        out
    }

    #[test]
    fn each_call_draws_new_coefficients() {
        // The same batch checked twice gets different zᵢ: they are neither constant nor
        // a function of the batch (which the coefficients never see).
        let (a, b) = (Coefficients::draw().unwrap(), Coefficients::draw().unwrap());
        let (za, zb) = (coefficients(&a, 64), coefficients(&b, 64));
        assert!(za.iter().zip(&zb).all(|(x, y)| x != y));
        let mut distinct = za.clone();
        distinct.sort();
        distinct.dedup();
        assert_eq!(
            distinct.len(),
            za.len(),
            "coefficients repeat within a call"
        );
    }

    #[test]
    fn coefficients_are_below_2_to_127_and_use_the_bits() {
        let z = coefficients(&Coefficients::draw().unwrap(), 4096);
        assert!(z.iter().all(|z| z[1] >> 63 == 0 && z[2] == 0 && z[3] == 0));
        // Bit 126 set in about half of them: the top is drawn, not left zero.
        let top = z.iter().filter(|z| z[1] >> 62 & 1 == 1).count();
        assert!((1700..2400).contains(&top), "{top} of 4096 have bit 126");
    }

    #[test]
    fn a_range_continues_the_sequence() {
        let c = Coefficients::draw().unwrap();
        let all = coefficients(&c, 10);
        let mut tail = vec![[0; 4]; 7];
        c.fill(3, &mut tail);
        assert_eq!(&all[3..], &tail[..]);
    }
}
