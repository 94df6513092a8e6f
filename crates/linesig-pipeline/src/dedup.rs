//! Whole-packet dedup before verification: a Bloom filter over packet bytes, keyed with
//! per-process random keys (an attacker cannot aim collisions at someone else's packet),
//! cleared when it has absorbed as many packets as its false-positive target allows or
//! when it is older than the reset interval, as Agave's `Deduper` does. Memory is fixed
//! at construction; a false positive drops a fresh packet as a duplicate with probability
//! at most the target rate.

use std::hash::{BuildHasher, Hasher};
use std::time::{Duration, Instant};

pub struct Deduper {
    bits: Vec<u64>,
    /// `bits.len() * 64`, a power of two so indices are masks.
    mask: u64,
    hashes: u32,
    capacity: u64,
    inserted: u64,
    reset_every: Duration,
    last_reset: Instant,
    keys: std::collections::hash_map::RandomState,
    resets: u64,
}

impl Deduper {
    /// `bytes` of filter (rounded down to a power of two, at least 1 KiB), holding
    /// packets until the false-positive rate would pass `fp_rate`.
    pub fn new(bytes: usize, fp_rate: f64, reset_every: Duration) -> Deduper {
        let limit = bytes.max(1024) / 8;
        let words = 1usize << (usize::BITS - 1 - limit.leading_zeros());
        let m = (words * 64) as f64;
        // Optimal k for a target p is log2(1/p); the filter holds n = m (ln 2)^2 / ln(1/p).
        let hashes = (1.0 / fp_rate).log2().ceil().clamp(1.0, 16.0) as u32;
        let capacity = (m * std::f64::consts::LN_2.powi(2) / (1.0 / fp_rate).ln()) as u64;
        Deduper {
            bits: vec![0; words],
            mask: m as u64 - 1,
            hashes,
            capacity: capacity.max(1),
            inserted: 0,
            reset_every,
            last_reset: Instant::now(),
            keys: Default::default(),
            resets: 0,
        }
    }

    #[cfg(test)]
    pub fn memory_bytes(&self) -> usize {
        self.bits.len() * 8
    }

    pub fn resets(&self) -> u64 {
        self.resets
    }

    /// True if `packet` was (probably) seen since the last reset; records it otherwise.
    pub fn seen(&mut self, packet: &[u8], now: Instant) -> bool {
        if self.inserted >= self.capacity || now.duration_since(self.last_reset) >= self.reset_every
        {
            self.bits.iter_mut().for_each(|w| *w = 0);
            self.inserted = 0;
            self.last_reset = now;
            self.resets += 1;
        }
        let mut h = self.keys.build_hasher();
        h.write(packet);
        let a = h.finish();
        // Kirsch–Mitzenmacher: k indices from two halves of one keyed 64-bit hash, the
        // second forced odd so it cycles through the power-of-two table.
        let (h1, h2) = (a, a.rotate_left(32) | 1);
        let mut present = true;
        for i in 0..u64::from(self.hashes) {
            let bit = h1.wrapping_add(i.wrapping_mul(h2)) & self.mask;
            let (word, b) = ((bit / 64) as usize, bit % 64);
            present &= self.bits[word] >> b & 1 == 1;
            self.bits[word] |= 1 << b;
        }
        if !present {
            self.inserted += 1;
        }
        present
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_repeats_and_keeps_false_positives_rare() {
        let mut d = Deduper::new(1 << 20, 1e-4, Duration::from_secs(3600));
        assert_eq!(d.memory_bytes(), 1 << 20);
        let now = Instant::now();
        let mut false_positives = 0;
        for i in 0u32..100_000 {
            false_positives += d.seen(&i.to_le_bytes(), now) as u32;
        }
        assert!(false_positives < 20, "{false_positives} false positives");
        for i in 0u32..1000 {
            assert!(d.seen(&i.to_le_bytes(), now));
        }
    }

    #[test]
    fn resets_when_full_or_old() {
        let now = Instant::now();
        let mut d = Deduper::new(1024, 1e-3, Duration::from_secs(3600));
        for i in 0u32..10_000 {
            d.seen(&i.to_le_bytes(), now);
        }
        assert!(d.resets() > 0 && d.memory_bytes() == 1024);
        let mut d = Deduper::new(4096, 1e-3, Duration::from_millis(10));
        assert!(!d.seen(b"x", now));
        assert!(!d.seen(b"x", now + Duration::from_millis(20)));
    }
}
