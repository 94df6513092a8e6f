//! The cross-batch cache of hot public keys (docs/design.md §4, "Hot keys"): for each key that
//! keeps signing, the backend's fixed-base table, which turns [k]A into additions only.
//!
//! - **Bounded by bytes.** Every table of one backend has the same size, so the bound
//!   becomes a number of slots, charged with their sketch and index overhead; nothing is
//!   allocated past it (tables in flight in a work unit excepted: an evicted table lives
//!   until the unit using it ends).
//! - **Admission by frequency** (TinyLFU, Einziger et al. 2017): a count-min sketch
//!   counts signatures per key, halving its counters every `width / 8` counted
//!   signatures (32 per slot of the shard) so the counts follow recent traffic. A key earns a table once it has
//!   signed [`ADMIT_AT`] times recently; into a full shard only if it is counted at least
//!   [`ADMIT_AT`] more often than the entry it would evict (a table build costs about
//!   three cold verifications; swapping keys that sign about equally often would pay it
//!   again and again for nothing). A flood of fresh keys never passes the
//!   threshold, so it costs a sketch update per key and evicts nothing.
//! - **CLOCK eviction** in O(1) amortised: a hit sets the entry's reference bit; the hand
//!   clears set bits and stops at the first clear one.
//! - **Sharded**: keys map to shards by a keyed hash (a per-cache random SipHash key,
//!   so nobody can aim keys at one shard or one sketch counter); each shard has its own
//!   lock, slots and sketch, and a lock is held for a map probe, never while a table is
//!   built. There is no global lock.

use std::any::Any;
use std::collections::HashMap;
use std::hash::{BuildHasher, RandomState};
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};
use std::sync::{Arc, Mutex};

/// A key must have signed this many times (recently, by the sketch's count) before a
/// table is built for it. Building one costs about three cold verifications and saves
/// about two thirds of each later one, so a table pays for itself after a handful.
pub(crate) const ADMIT_AT: u32 = 4;

/// Bytes charged per slot beside its table: the index entry, the slot and its share of
/// the sketch (`SKETCH_COUNTERS_PER_SLOT` counters in each of `SKETCH_ROWS` rows).
pub(crate) const SLOT_OVERHEAD: usize = SLOT_INDEX_BYTES + SKETCH_ROWS * SKETCH_COUNTERS_PER_SLOT;
const SLOT_INDEX_BYTES: usize = 128;
const SKETCH_ROWS: usize = 4;
const SKETCH_COUNTERS_PER_SLOT: usize = 256;
/// Most shards; a small cache has fewer, each with at least `MIN_SLOTS_PER_SHARD`. Hot
/// keys fall into shards unevenly (binomially), and a shard's capacity is its own: with
/// 8 slots a shard, a 64 MB cache of ~640 slots in 64 shards overflowed some shards while
/// others stood part empty; 64 a shard keep nearly every equally hot key that fits
/// (docs/results.md).
const MAX_SHARDS: usize = 64;
const MIN_SLOTS_PER_SHARD: usize = 64;
/// Most counters in one sketch row (reached past ~4,000 slots a shard, ~27 GB of tables).
const MAX_SKETCH_WIDTH: usize = 1 << 20;

/// A backend's table for one key, shared with the work units using it.
pub(crate) type Table = Arc<dyn Any + Send + Sync>;

/// What the cache says about a key.
pub(crate) enum Lookup {
    /// Its table.
    Hit(Table),
    /// Not cached, and now hot enough: build its table and [`KeyCache::insert`] it.
    Admit,
    /// Not cached: verify it the ordinary way.
    Miss,
}

/// Counters of a cache since it was made.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct KeyCacheStats {
    /// The configured bound.
    pub capacity_bytes: usize,
    /// Bytes charged now: tables in the cache plus the sketch and index overhead.
    pub used_bytes: usize,
    /// Keys with a table now, and the most there is room for.
    pub entries: usize,
    pub max_entries: usize,
    /// Bytes of one table.
    pub table_bytes: usize,
    /// Signatures whose key had a table (hits) or not (misses, admissions included),
    /// counted at each lookup: one that the batch equation hands back to the
    /// per-signature path (its part of the check failed) is looked up, and counted, twice.
    pub hit_signatures: u64,
    pub miss_signatures: u64,
    /// Tables built and inserted; entries evicted to make room.
    pub admissions: u64,
    pub evictions: u64,
    /// Keys hot enough to admit but counted no more often than the entry they would
    /// have evicted: left out.
    pub refused: u64,
}

impl KeyCacheStats {
    /// Hits over all signatures looked up (0 when none were).
    pub fn hit_rate(&self) -> f64 {
        let all = self.hit_signatures + self.miss_signatures;
        if all == 0 {
            0.0
        } else {
            self.hit_signatures as f64 / all as f64
        }
    }
}

struct Slot {
    key: [u8; 32],
    table: Table,
    referenced: bool,
}

/// A count-min sketch of u8 counters, `SKETCH_ROWS` rows of `width` (a power of two).
struct Sketch {
    counters: Box<[u8]>,
    width: usize,
    /// Signatures counted since the last halving.
    counted: usize,
}

impl Sketch {
    fn new(width: usize) -> Self {
        Sketch {
            counters: vec![0; SKETCH_ROWS * width].into_boxed_slice(),
            width,
            counted: 0,
        }
    }

    /// Row r's counter index for hash h: a different odd multiplier per row, taking
    /// the product's high bits.
    fn index(&self, h: u64, row: usize) -> usize {
        const ODD: [u64; SKETCH_ROWS] = [
            0x9e37_79b9_7f4a_7c15,
            0xc2b2_ae3d_27d4_eb4f,
            0x1656_67b1_9e37_79f9,
            0xd6e8_feb8_6659_fd93,
        ];
        let mixed = (h ^ (h >> 31)).wrapping_mul(ODD[row]);
        row * self.width + ((mixed >> 32) as usize & (self.width - 1))
    }

    fn estimate(&self, h: u64) -> u32 {
        (0..SKETCH_ROWS)
            .map(|r| u32::from(self.counters[self.index(h, r)]))
            .min()
            .unwrap_or(0)
    }

    /// Count `weight` signatures of h (conservative update: only the counters at the
    /// minimum grow, which keeps collisions from inflating estimates), halving every
    /// counter once `width / 8` signatures have been counted. At a halving the counters
    /// average at most 1/4 (plus the halved rest), so a key seen once reads ≥ `ADMIT_AT`
    /// only if all four of its counters collided that often: about (0.002)^4.
    fn add(&mut self, h: u64, weight: u32) -> u32 {
        let new = self
            .estimate(h)
            .saturating_add(weight)
            .min(u32::from(u8::MAX));
        for r in 0..SKETCH_ROWS {
            let i = self.index(h, r);
            self.counters[i] = self.counters[i].max(new as u8);
        }
        self.counted += weight as usize;
        if self.counted >= self.width / 8 {
            self.counters.iter_mut().for_each(|c| *c /= 2);
            self.counted = 0;
        }
        new
    }
}

struct Shard {
    index: HashMap<[u8; 32], usize>,
    slots: Vec<Slot>,
    capacity: usize,
    hand: usize,
    sketch: Sketch,
}

impl Shard {
    /// The table of `key`, its reference bit set (a hit, for CLOCK).
    fn hit(&mut self, key: &[u8; 32]) -> Option<Table> {
        let i = *self.index.get(key)?;
        self.slots[i].referenced = true;
        Some(Arc::clone(&self.slots[i].table))
    }

    /// Advance the CLOCK hand to the first unreferenced slot (clearing the bits it
    /// passes) and return it. The shard is full.
    fn victim(&mut self) -> usize {
        loop {
            let i = self.hand;
            self.hand = (self.hand + 1) % self.slots.len();
            if self.slots[i].referenced {
                self.slots[i].referenced = false;
            } else {
                return i;
            }
        }
    }
}

/// The cache; see the module note.
pub(crate) struct KeyCache {
    shards: Box<[Mutex<Shard>]>,
    hasher: RandomState,
    capacity_bytes: usize,
    table_bytes: usize,
    max_entries: usize,
    hit_signatures: AtomicU64,
    miss_signatures: AtomicU64,
    admissions: AtomicU64,
    evictions: AtomicU64,
    refused: AtomicU64,
}

impl KeyCache {
    /// A cache of at most `capacity_bytes` for tables of `table_bytes` each; `None` when
    /// not even one table fits.
    pub fn new(capacity_bytes: usize, table_bytes: usize) -> Option<Self> {
        let max_entries = capacity_bytes / (table_bytes + SLOT_OVERHEAD);
        if max_entries == 0 {
            return None;
        }
        let shards = (max_entries / MIN_SLOTS_PER_SHARD).clamp(1, MAX_SHARDS);
        let shards: Box<[Mutex<Shard>]> = (0..shards)
            .map(|i| {
                // Spread the remainder so the capacities sum to max_entries.
                let capacity = max_entries / shards + usize::from(i < max_entries % shards);
                // A power of two no larger than what the slots are charged for, and at
                // most MAX_SKETCH_WIDTH (4 MB a shard), so even an absurd bound
                // allocates little up front; slots and index grow as keys arrive.
                let counters = (capacity * SKETCH_COUNTERS_PER_SLOT).min(MAX_SKETCH_WIDTH);
                let width = 1 << (usize::BITS - 1 - counters.leading_zeros());
                Mutex::new(Shard {
                    index: HashMap::new(),
                    slots: Vec::new(),
                    capacity,
                    hand: 0,
                    sketch: Sketch::new(width),
                })
            })
            .collect();
        Some(KeyCache {
            shards,
            hasher: RandomState::new(),
            capacity_bytes,
            table_bytes,
            max_entries,
            hit_signatures: AtomicU64::new(0),
            miss_signatures: AtomicU64::new(0),
            admissions: AtomicU64::new(0),
            evictions: AtomicU64::new(0),
            refused: AtomicU64::new(0),
        })
    }

    /// The shard of `key` and the hash its sketch counts by.
    fn shard(&self, key: &[u8; 32]) -> (&Mutex<Shard>, u64) {
        let h = self.hasher.hash_one(key);
        // The sketch reads bits 0..64 in 16-bit rows; the shard comes from a second
        // mix, so shard and counters are independent.
        let s = (h.wrapping_mul(0x9e37_79b9_7f4a_7c15) >> 32) as usize % self.shards.len();
        (&self.shards[s], h)
    }

    fn lock(shard: &Mutex<Shard>) -> std::sync::MutexGuard<'_, Shard> {
        // A panic while holding a shard cannot leave it inconsistent for our readers
        // (every update is a few plain stores), so a poisoned lock is used as is.
        shard.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Look `key` up for `signatures` signatures of one work unit, counting them.
    pub fn lookup(&self, key: &[u8; 32], signatures: usize) -> Lookup {
        let weight = u32::try_from(signatures).unwrap_or(u32::MAX);
        let (shard, h) = self.shard(key);
        let mut shard = Self::lock(shard);
        let count = shard.sketch.add(h, weight);
        if let Some(table) = shard.hit(key) {
            drop(shard);
            self.count(true, u64::from(weight));
            return Lookup::Hit(table);
        }
        let lookup = if count < ADMIT_AT {
            Lookup::Miss
        } else if shard.slots.len() < shard.capacity {
            Lookup::Admit
        } else {
            let victim = shard.victim();
            let victim_h = self.hasher.hash_one(shard.slots[victim].key);
            // The newcomer must beat the victim by the admission threshold, not by the
            // sketch's noise: between keys signing about equally often (the edge of
            // what fits), every swap would cost a table build and save nothing.
            if count >= shard.sketch.estimate(victim_h).saturating_add(ADMIT_AT) {
                // Leave the hand on the victim, so `insert` replaces this one.
                shard.hand = victim;
                Lookup::Admit
            } else {
                self.refused.fetch_add(1, Relaxed);
                Lookup::Miss
            }
        };
        drop(shard);
        self.count(false, u64::from(weight));
        lookup
    }

    /// The table of `key` if it has one, for `signatures` signatures of one work unit,
    /// counted as hits or misses; unlike [`KeyCache::lookup`], nothing is counted
    /// towards admission. For a path that reads tables but never builds them (the batch
    /// equation takes a cached key's point instead of decoding it; docs/design.md §4).
    pub fn peek(&self, key: &[u8; 32], signatures: usize) -> Option<Table> {
        let (shard, _) = self.shard(key);
        let table = Self::lock(shard).hit(key);
        let weight = u64::try_from(signatures).unwrap_or(u64::MAX);
        self.count(table.is_some(), weight);
        table
    }

    /// Count `signatures` looked up, as hits or misses.
    fn count(&self, hit: bool, signatures: u64) {
        let counter = if hit {
            &self.hit_signatures
        } else {
            &self.miss_signatures
        };
        counter.fetch_add(signatures, Relaxed);
    }

    /// Store the table built for `key` after [`Lookup::Admit`], evicting by CLOCK if
    /// the shard is full (another worker may have inserted it meanwhile: then the
    /// table already there stays).
    pub fn insert(&self, key: &[u8; 32], table: Table) {
        let (shard, _) = self.shard(key);
        let mut shard = Self::lock(shard);
        if shard.index.contains_key(key) {
            return;
        }
        let slot = Slot {
            key: *key,
            table,
            referenced: false,
        };
        if shard.slots.len() < shard.capacity {
            let i = shard.slots.len();
            shard.slots.push(slot);
            shard.index.insert(*key, i);
        } else {
            let i = shard.victim();
            let old = std::mem::replace(&mut shard.slots[i], slot);
            shard.index.remove(&old.key);
            shard.index.insert(*key, i);
            self.evictions.fetch_add(1, Relaxed);
        }
        self.admissions.fetch_add(1, Relaxed);
    }

    pub fn stats(&self) -> KeyCacheStats {
        let entries: usize = self.shards.iter().map(|s| Self::lock(s).slots.len()).sum();
        let overhead: usize = self
            .shards
            .iter()
            .map(|s| {
                let s = Self::lock(s);
                s.sketch.counters.len() + s.capacity * SLOT_INDEX_BYTES
            })
            .sum();
        KeyCacheStats {
            capacity_bytes: self.capacity_bytes,
            used_bytes: entries * self.table_bytes + overhead,
            entries,
            max_entries: self.max_entries,
            table_bytes: self.table_bytes,
            hit_signatures: self.hit_signatures.load(Relaxed),
            miss_signatures: self.miss_signatures.load(Relaxed),
            admissions: self.admissions.load(Relaxed),
            evictions: self.evictions.load(Relaxed),
            refused: self.refused.load(Relaxed),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key(i: u64) -> [u8; 32] {
        let mut k = [0u8; 32];
        k[..8].copy_from_slice(&i.to_le_bytes());
        k[8] = 0xa5;
        k
    }

    const TABLE: usize = 100_000;

    /// Look a key up as a work unit would, building its "table" when admitted.
    fn touch(cache: &KeyCache, k: &[u8; 32], signatures: usize) -> bool {
        match cache.lookup(k, signatures) {
            Lookup::Hit(_) => true,
            Lookup::Admit => {
                cache.insert(k, Arc::new(()));
                false
            }
            Lookup::Miss => false,
        }
    }

    #[test]
    fn too_small_for_one_table_is_none() {
        assert!(KeyCache::new(TABLE, TABLE).is_none());
        assert!(KeyCache::new(TABLE + SLOT_OVERHEAD, TABLE).is_some());
    }

    /// An absurd bound allocates a bounded sketch up front, nothing per slot.
    #[test]
    fn a_huge_bound_allocates_little() {
        let cache = KeyCache::new(usize::MAX / 2, TABLE).unwrap();
        assert!(touch(&cache, &key(1), 100) || matches!(cache.lookup(&key(1), 1), Lookup::Hit(_)));
        let s = cache.stats();
        assert_eq!(s.entries, 1);
    }

    #[test]
    fn a_key_earns_a_table_by_recurring() {
        let cache = KeyCache::new(10 << 20, TABLE).unwrap();
        let k = key(1);
        for _ in 0..ADMIT_AT - 1 {
            assert!(matches!(cache.lookup(&k, 1), Lookup::Miss));
        }
        assert!(matches!(cache.lookup(&k, 1), Lookup::Admit));
        cache.insert(&k, Arc::new(()));
        assert!(matches!(cache.lookup(&k, 1), Lookup::Hit(_)));
        let s = cache.stats();
        assert_eq!((s.entries, s.admissions, s.hit_signatures), (1, 1, 1));
        assert_eq!(s.miss_signatures, u64::from(ADMIT_AT));
    }

    /// `peek` finds what `lookup` admitted, counts hits and misses, and never moves a
    /// key towards admission.
    #[test]
    fn peeking_counts_signatures_but_admits_nothing() {
        let cache = KeyCache::new(10 << 20, TABLE).unwrap();
        let k = key(1);
        for _ in 0..4 * ADMIT_AT {
            assert!(cache.peek(&k, 5).is_none());
        }
        assert!(matches!(cache.lookup(&k, 1), Lookup::Miss));
        let s = cache.stats();
        assert_eq!(
            (s.entries, s.miss_signatures),
            (0, 20 * u64::from(ADMIT_AT) + 1)
        );
        let hot = key(2);
        for _ in 0..ADMIT_AT - 1 {
            cache.lookup(&hot, 1);
        }
        assert!(matches!(cache.lookup(&hot, 1), Lookup::Admit));
        cache.insert(&hot, Arc::new(7u8));
        let table = cache.peek(&hot, 3).expect("admitted");
        assert_eq!(table.downcast_ref::<u8>(), Some(&7));
        assert_eq!(cache.stats().hit_signatures, 3);
    }

    /// Fresh keys only: nothing is admitted, nothing allocated, the bound holds.
    #[test]
    fn a_flood_of_fresh_keys_admits_nothing() {
        let cache = KeyCache::new(8 << 20, TABLE).unwrap();
        for i in 0..200_000 {
            assert!(!touch(&cache, &key(i), 1));
        }
        let s = cache.stats();
        assert_eq!(s.entries, 0, "{s:?}");
        assert!(s.used_bytes <= s.capacity_bytes);
    }

    /// Hot keys interleaved with a stream of fresh ones (and more hot-ish keys than
    /// fit) stay resident; memory stays within the bound throughout.
    #[test]
    fn hot_keys_stay_resident_under_a_fresh_key_stream() {
        let cache = KeyCache::new(4 << 20, TABLE).unwrap();
        let max = cache.stats().max_entries;
        let hot: Vec<[u8; 32]> = (0..(max as u64 / 8)).map(|i| key(1 << 40 | i)).collect();
        let mut fresh = 0u64;
        let mut hits_late = 0;
        let rounds = 400;
        for round in 0..rounds {
            for h in &hot {
                let hit = touch(&cache, h, 2);
                if round >= rounds / 2 {
                    hits_late += usize::from(hit);
                }
                // Two fresh keys, and a key seen a few times (but less than the hot
                // ones), per hot signature.
                for _ in 0..2 {
                    touch(&cache, &key(fresh), 1);
                    fresh += 1;
                }
                touch(&cache, &key(1 << 50 | (fresh % 5000)), 1);
            }
            let s = cache.stats();
            assert!(s.used_bytes <= s.capacity_bytes, "{s:?}");
        }
        assert_eq!(hits_late, hot.len() * rounds / 2, "{:?}", cache.stats());
    }

    /// Twice as many keys as fit, all signing equally often: once the cache is full,
    /// a newcomer is no hotter than the entry it would evict, so tables are not swapped
    /// back and forth (each swap is a table build that saves nothing).
    #[test]
    fn equally_hot_keys_do_not_churn() {
        let cache = KeyCache::new(4 << 20, TABLE).unwrap();
        let max = cache.stats().max_entries as u64;
        for _ in 0..200 {
            for i in 0..2 * max {
                touch(&cache, &key(1 << 40 | i), 1);
            }
        }
        let s = cache.stats();
        assert_eq!(s.entries as u64, max, "{s:?}");
        assert!(s.evictions <= max, "{s:?}");
    }

    #[test]
    fn concurrent_lookups_and_inserts_keep_the_bound() {
        let cache = KeyCache::new(32 << 20, TABLE).unwrap();
        std::thread::scope(|s| {
            for t in 0..4u64 {
                let cache = &cache;
                s.spawn(move || {
                    for i in 0..20_000u64 {
                        touch(cache, &key(i % 97 + t * 13), 3);
                    }
                });
            }
        });
        let s = cache.stats();
        assert!(s.entries <= s.max_entries && s.used_bytes <= s.capacity_bytes);
        assert!(s.hit_rate() > 0.8, "{s:?}");
    }
}
