//! Whole-packet dedup before verification: a Bloom filter over packet bytes, keyed with
//! per-process random keys (aHash, keyed from the OS's random source, as Agave's
//! `Deduper` is: an attacker cannot aim collisions at someone else's packet),
//! cleared when it has absorbed as many packets as its false-positive target allows or
//! when it is older than the reset interval, as Agave's `Deduper` does. Memory is fixed
//! at construction; a false positive drops a fresh packet as a duplicate with probability
//! at most the target rate.
//!
//! The filter is split-block (Putze, Sanders and Singler, "Cache-, Hash- and
//! Space-Efficient Bloom Filters", 2007; the layout of Parquet's and Impala's filters): a
//! packet's bits all lie in one 64-byte block, one or two in each of its eight words, so a
//! lookup costs one cache miss instead of one per bit (a 10⁻⁶ target set 16 bits across
//! a 4 MiB filter, and those misses were most of the dedup's time). Blocks fill unevenly,
//! so the capacity is computed for this layout, not from the classic formula.

use std::sync::{Condvar, Mutex};
use std::time::{Duration, Instant};

/// Odd multipliers that pick a bit in each of a block's eight words from a 32-bit key
/// (multiply-shift hashing; Parquet's split-block Bloom filter constants).
const SALT: [u32; 8] = [
    0x47b6137b, 0x44974d91, 0x8824ad5b, 0xa2b7289d, 0x705495c7, 0x2df1424b, 0x9efc4947, 0x5c6bfb31,
];

/// One cache line of the filter.
#[derive(Clone, Copy)]
#[repr(align(64))]
struct Block([u64; 8]);

pub struct Deduper {
    blocks: Vec<Block>,
    /// `blocks.len() - 1`, a power of two less one, so block indices are masks.
    block_mask: u64,
    /// Bits a packet sets in each word of its block: 1 or 2.
    bits_per_word: u32,
    capacity: u64,
    inserted: u64,
    reset_every: Duration,
    last_reset: Instant,
    keys: ahash::RandomState,
    resets: u64,
}

impl Deduper {
    /// `bytes` of filter (rounded down to a power of two, at least 1 KiB), holding
    /// packets until the false-positive rate would pass `fp_rate`.
    pub fn new(bytes: usize, fp_rate: f64, reset_every: Duration) -> Deduper {
        let limit = bytes.max(1024) / 64;
        let blocks = 1usize << (usize::BITS - 1 - limit.leading_zeros());
        let fp_rate = fp_rate.clamp(1e-12, 0.5);
        // One or two bits per word: whichever lets more packets in at the target.
        let (bits_per_word, capacity) = (1..=2)
            .map(|m| (m, split_block_capacity(blocks as u64, m, fp_rate)))
            .max_by_key(|&(_, n)| n)
            .expect("a non-empty range");
        let mut filter = vec![Block([0; 8]); blocks];
        // Touch every page now (the allocation is lazily zeroed): otherwise the first
        // packets of a run pay a page fault each, milliseconds of latency in all.
        filter.iter_mut().step_by(4096 / 64).for_each(|b| {
            // SAFETY: `b` is a valid, aligned, exclusively borrowed block.
            unsafe { std::ptr::write_volatile(&mut b.0[0], 0) }
        });
        Deduper {
            blocks: filter,
            block_mask: blocks as u64 - 1,
            bits_per_word,
            capacity: capacity.max(1),
            inserted: 0,
            reset_every,
            last_reset: Instant::now(),
            keys: ahash::RandomState::new(),
            resets: 0,
        }
    }

    #[cfg(test)]
    pub fn memory_bytes(&self) -> usize {
        self.blocks.len() * 64
    }

    /// A hash's block, and per word of it the mask of the packet's bits. The low bits
    /// pick the block; a 64-bit mix of the hash (SplitMix64's finalizer) gives two 32-bit
    /// keys, each of which picks one bit per word by multiply-shift.
    fn positions(&self, hash: u64) -> (usize, [u64; 8]) {
        let mut mixed = hash;
        mixed = (mixed ^ (mixed >> 30)).wrapping_mul(0xbf58476d1ce4e5b9);
        mixed = (mixed ^ (mixed >> 27)).wrapping_mul(0x94d049bb133111eb);
        mixed ^= mixed >> 31;
        let keys = [mixed as u32, (mixed >> 32) as u32];
        let masks = std::array::from_fn(|word| {
            keys[..self.bits_per_word as usize]
                .iter()
                .fold(0u64, |m, key| m | 1 << (key.wrapping_mul(SALT[word]) >> 26))
        });
        ((hash & self.block_mask) as usize, masks)
    }

    /// Whether `packet` would be reported seen, without recording it.
    #[cfg(test)]
    fn seen_probe(&self, packet: &[u8]) -> bool {
        let (block, masks) = self.positions(self.keys.hash_one(packet));
        let block = &self.blocks[block].0;
        block.iter().zip(masks).all(|(w, m)| w & m == m)
    }

    /// Packets the filter holds before it is cleared.
    #[cfg(test)]
    pub fn capacity(&self) -> u64 {
        self.capacity
    }

    pub fn resets(&self) -> u64 {
        self.resets
    }

    /// True if `packet` was (probably) seen since the last reset; records it otherwise.
    pub fn seen(&mut self, packet: &[u8], now: Instant) -> bool {
        let h = self.keys.hash_one(packet);
        self.seen_hash(h, now)
    }

    /// The filter's hash keys: `keys().hash_one(packet)` is the hash [`Deduper::seen`]
    /// takes, for callers that hash outside a lock around the filter.
    pub fn keys(&self) -> &ahash::RandomState {
        &self.keys
    }

    /// Start loading the block of a hash that [`Deduper::seen_hash`] will take soon: a
    /// caller with many hashes touches all their blocks first, so the cache misses
    /// overlap instead of coming one per packet.
    pub fn prefetch(&self, hash: u64) {
        std::hint::black_box(self.blocks[(hash & self.block_mask) as usize].0[0]);
    }

    /// [`Deduper::seen`] for a packet whose hash was taken with [`Deduper::keys`].
    pub fn seen_hash(&mut self, hash: u64, now: Instant) -> bool {
        if self.inserted >= self.capacity || now.duration_since(self.last_reset) >= self.reset_every
        {
            self.blocks.iter_mut().for_each(|b| *b = Block([0; 8]));
            self.inserted = 0;
            self.last_reset = now;
            self.resets += 1;
        }
        let (block, masks) = self.positions(hash);
        let block = &mut self.blocks[block].0;
        let mut present = true;
        for (w, m) in block.iter_mut().zip(masks) {
            present &= *w & m == m;
            *w |= m;
        }
        if !present {
            self.inserted += 1;
        }
        present
    }
}

/// The most packets a split-block filter of `blocks` blocks, setting `m` bits in each of
/// a block's eight 64-bit words, holds while a fresh packet's false-positive probability
/// stays at most `p`. With n packets a block holds j of them with Poisson probability
/// (mean n / blocks); a given bit of a word is then set with probability
/// 1 − (1 − 1/64)^(mj), and a fresh packet finds all its 8m bits set with that to the
/// power 8m.
fn split_block_capacity(blocks: u64, m: u32, p: f64) -> u64 {
    let false_positive = |n: u64| {
        let mean = n as f64 / blocks as f64;
        let last = (mean + 20.0 * mean.sqrt() + 50.0) as u64;
        let mut pmf = (-mean).exp();
        let mut sum = 0.0;
        for j in 0..=last {
            let set = 1.0 - (1.0 - 1.0 / 64.0f64).powf((u64::from(m) * j) as f64);
            sum += pmf * set.powi(8 * m as i32);
            pmf *= mean / (j + 1) as f64;
        }
        sum
    };
    // Bisect on n (the rate grows with n); no useful target lets a block hold 512.
    let (mut good, mut bad) = (0u64, blocks * 512);
    while bad - good > 1 {
        let mid = good + (bad - good) / 2;
        if false_positive(mid) <= p {
            good = mid;
        } else {
            bad = mid;
        }
    }
    good
}

/// The shared filter, taken in chunk order: a packet repeated in a later chunk is the
/// duplicate even when another tile reaches that chunk first (the first arrival wins, as
/// it did with one parse thread). A tile takes a chunk and dedups it at once, so the
/// chunk before is always on its way; the wait is about one chunk's parsing.
pub(crate) struct OrderedDedup {
    /// The filter, and the number of the next chunk whose turn it is.
    state: Mutex<(Deduper, u64)>,
    turn: Condvar,
    /// The filter's hash keys, so that tiles hash packets outside its lock.
    keys: ahash::RandomState,
}

impl OrderedDedup {
    pub fn new(filter: Deduper) -> Self {
        OrderedDedup {
            keys: filter.keys().clone(),
            state: Mutex::new((filter, 0)),
            turn: Condvar::new(),
        }
    }

    /// The packet's hash as the filter takes it ([`Deduper::seen_hash`]), without its lock.
    pub fn hash(&self, packet: &[u8]) -> u64 {
        self.keys.hash_one(packet)
    }

    /// Run `f` on the filter once every chunk before `number` has had its turn, or at
    /// once if a tile died (`abandoned`), which could leave a turn untaken.
    pub fn in_turn<R>(
        &self,
        number: u64,
        abandoned: impl Fn() -> bool,
        f: impl FnOnce(&mut Deduper) -> R,
    ) -> R {
        let mut state = self.state.lock().unwrap_or_else(|e| e.into_inner());
        while state.1 < number && !abandoned() {
            state = self
                .turn
                .wait_timeout(state, Duration::from_millis(10))
                .unwrap_or_else(|e| e.into_inner())
                .0;
        }
        let result = f(&mut state.0);
        state.1 = state.1.max(number + 1);
        drop(state);
        self.turn.notify_all();
        result
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

    /// Filled to its capacity, the filter's false-positive rate on fresh packets is at
    /// the target (100,000 probes: 100 expected at 10⁻³).
    #[test]
    fn holds_its_false_positive_target_at_capacity() {
        let now = Instant::now();
        let mut d = Deduper::new(64 << 10, 1e-3, Duration::from_secs(3600));
        // The classic formula would allow 54,500; blocks fill unevenly, so fewer.
        assert!((30_000..54_500).contains(&d.capacity()), "{}", d.capacity());
        for i in 0..d.capacity() {
            d.seen(&i.to_le_bytes(), now);
        }
        let resets = d.resets();
        let probes = 100_000u64;
        let false_positives = (0..probes)
            .filter(|i| d.seen_probe(&(u64::MAX - i).to_le_bytes()))
            .count();
        assert_eq!(d.resets(), resets);
        // Near 100 both ways: the capacity model neither overfills nor wastes the filter.
        assert!(
            (50..150).contains(&false_positives),
            "{false_positives} of {probes}"
        );
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
