//! A verify tile: one thread per engine worker that takes chunks of packets from the
//! shared queue, parses them, dedups them against the shared filter, batches its own
//! packets and verifies them on its own thread (as Firedancer's verify tiles do). No tile
//! waits for another: there is no batch barrier and no hand-off between parsing and
//! verification, so every core stays busy while there is input.
//!
//! A tile's batch is whole chunks; each chunk keeps its span (its packets and its
//! drop-log entries) so that [`crate::commit`] can hand chunks to the sink in arrival
//! order when the sink asks for it.

use crate::commit::Commit;
use crate::dedup::OrderedDedup;
use crate::packet::{Batch, Chunk, ChunkSpan, Packet};
use crate::stats::{Counters, Latency};
use crate::{Config, Dropped, Sink};
use crossbeam_channel::{Receiver, RecvTimeoutError, Sender, TryRecvError};
use linesig::wire::{self, ItemRanges, ParseOptions};
use linesig::{Engine, Item, ItemSource, Policy, Reject, Scheme, Verdict};
use std::ops::Range;
use std::sync::atomic::Ordering::Relaxed;
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// Some of a batch's items, by index: one engine call over the precompile signatures.
struct Subset<'a> {
    batch: &'a Batch,
    indices: &'a [usize],
}

impl ItemSource for Subset<'_> {
    fn len(&self) -> usize {
        self.indices.len()
    }

    fn item(&self, index: usize) -> Item<'_> {
        self.batch.item(self.indices[index])
    }
}

/// The engines a tile verifies with: the transaction policy's and, where that is not
/// `strict` and precompile signatures are extracted, a `strict` sibling for those (Agave
/// verifies precompile signatures with `verify_strict` whatever the transaction policy).
pub(crate) struct Verifier<'a> {
    engine: &'a Engine,
    precompile: Option<Engine>,
}

impl<'a> Verifier<'a> {
    pub fn new(
        engine: &'a Engine,
        policy: Policy,
        parse: ParseOptions,
    ) -> Result<Self, linesig::Error> {
        let precompile = match (parse.precompile, policy) {
            (true, policy) if policy != Policy::Strict => {
                Some(engine.sibling(Scheme::Ed25519(Policy::Strict))?)
            }
            _ => None,
        };
        Ok(Verifier { engine, precompile })
    }

    /// Fill `batch.verdicts`, one per item in order, on this thread.
    fn verify(&self, batch: &mut Batch) {
        // Fail closed: every slot is written below.
        let mut verdicts = vec![Verdict::Invalid(Reject::EquationFailed); batch.items.len()];
        let split = self
            .precompile
            .as_ref()
            .filter(|_| batch.items.iter().any(|(_, r)| r.precompile));
        match split {
            None => {
                // Lengths are equal by construction.
                let _ = self.engine.verify_into_here(&*batch, &mut verdicts);
            }
            Some(strict) => {
                let (precompile, own): (Vec<usize>, Vec<usize>) =
                    (0..batch.items.len()).partition(|&i| batch.items[i].1.precompile);
                for (engine, indices) in [(self.engine, &own), (strict, &precompile)] {
                    let subset = Subset {
                        batch: &*batch,
                        indices,
                    };
                    let mut part = vec![Verdict::Invalid(Reject::EquationFailed); indices.len()];
                    let _ = engine.verify_into_here(&subset, &mut part);
                    for (verdict, &i) in part.into_iter().zip(indices) {
                        verdicts[i] = verdict;
                    }
                }
            }
        }
        batch.verdicts = verdicts;
    }
}

/// Most drop-log entries one batch carries: a flood of malformed packets with a logging
/// sink must not grow a batch without bound.
const DROPPED_LOG_MAX: usize = 4096;

/// What every tile shares.
pub(crate) struct Shared<'a, 's, K> {
    pub config: &'a Config,
    pub verifier: &'a Verifier<'a>,
    pub deduper: &'a OrderedDedup,
    pub counters: &'a Counters,
    pub latency: &'a Mutex<Latency>,
    pub last_verdict: &'a Mutex<Option<Instant>>,
    pub commit: &'a Commit<'s, K>,
    pub log_dropped: bool,
    /// Committed packets go back to ingest to be freed there, off the verifying cores'
    /// critical path (freeing a batch's packets here was a measurable share of a tile's
    /// time; docs/results.md).
    pub spent: Sender<Vec<Packet>>,
}

/// Run one tile until ingest is done and the queue is empty.
pub(crate) fn run<K: Sink>(shared: &Shared<'_, '_, K>, chunks: Receiver<Chunk>) {
    let config = shared.config;
    let mut batch = Batch::new();
    let mut scratch = Scratch::default();
    loop {
        let full = batch.items.len() >= config.batch_signatures
            || batch.taken >= config.batch_signatures.max(crate::CHUNK)
            || batch.dropped.len() >= DROPPED_LOG_MAX;
        if full || (batch.taken > 0 && shared.commit.window_full()) {
            batch = flush(shared, batch);
            continue;
        }
        let next = if batch.taken == 0 {
            // Nothing held: wait for input, or for the window to open first.
            shared.commit.wait_for_room();
            chunks.recv().map_err(|_| TryRecvError::Disconnected)
        } else {
            // Take what is queued; once the queue is dry, verify, unless the oldest
            // packet may still wait for company (`max_wait`; a zero wait only looks).
            let waited = batch.oldest.map_or(Duration::ZERO, |t| t.elapsed());
            match chunks.recv_timeout(config.max_wait.saturating_sub(waited)) {
                Ok(chunk) => Ok(chunk),
                Err(RecvTimeoutError::Timeout) => Err(TryRecvError::Empty),
                Err(RecvTimeoutError::Disconnected) => Err(TryRecvError::Disconnected),
            }
        };
        match next {
            Ok(chunk) => add_chunk(shared, &mut batch, chunk, &mut scratch),
            Err(TryRecvError::Empty) => batch = flush(shared, batch),
            Err(TryRecvError::Disconnected) => {
                if batch.taken > 0 {
                    flush(shared, batch);
                }
                return;
            }
        }
    }
}

/// A tile's reusable buffers for [`add_chunk`].
#[derive(Default)]
struct Scratch {
    /// Parsed packets with their keyed dedup hash and their items' span in `ranges`.
    parsed: Vec<(Packet, u64, Range<usize>)>,
    ranges: Vec<ItemRanges>,
}

/// Parse and dedup one chunk into the batch. The packets' keyed hashes are computed
/// before the filter's lock, which is taken once per chunk, in chunk order.
fn add_chunk<K: Sink>(
    shared: &Shared<'_, '_, K>,
    batch: &mut Batch,
    chunk: Chunk,
    scratch: &mut Scratch,
) {
    let counters = shared.counters;
    let taken = chunk.packets.len();
    counters.queued.fetch_sub(taken as u64, Relaxed);
    shared.commit.taken(taken);
    let packets_start = batch.packets.len();
    let dropped_start = batch.dropped.len();
    let Scratch { parsed, ranges } = scratch;
    let mut duplicates = 0;
    for packet in chunk.packets {
        match wire::parse(&packet.data, shared.config.parse) {
            Ok(tx) => {
                let start = ranges.len();
                ranges.extend(tx.item_ranges());
                let h = shared.deduper.hash(&packet.data);
                parsed.push((packet, h, start..ranges.len()));
            }
            Err(e) => {
                counters.malformed(e.rule());
                if shared.log_dropped {
                    batch
                        .dropped
                        .push((packet.seq, Dropped::Malformed(e.rule())));
                }
            }
        }
    }
    // Every chunk takes its turn, even one with nothing to dedup, so the next can.
    let abandoned = || shared.commit.abandoned();
    shared.deduper.in_turn(chunk.number, abandoned, |deduper| {
        parsed.iter().for_each(|&(_, h, _)| deduper.prefetch(h));
        let now = Instant::now();
        for (packet, h, span) in parsed.drain(..) {
            if deduper.seen_hash(h, now) {
                duplicates += 1;
                if shared.log_dropped {
                    batch.dropped.push((packet.seq, Dropped::Duplicate));
                }
                continue;
            }
            let index = batch.packets.len() as u32;
            batch
                .items
                .extend(ranges[span].iter().map(|r| (index, r.clone())));
            batch.first_item.push(batch.items.len());
            batch.oldest.get_or_insert(packet.arrival);
            batch.packets.push(packet);
        }
        counters.dedup_resets.store(deduper.resets(), Relaxed);
    });
    if duplicates > 0 {
        counters.duplicate.fetch_add(duplicates, Relaxed);
    }
    ranges.clear();
    batch.chunks.push(ChunkSpan {
        number: chunk.number,
        taken,
        packets: packets_start..batch.packets.len(),
        dropped: dropped_start..batch.dropped.len(),
    });
    batch.taken += taken;
}

/// Verify the batch, time it, and commit it to the sink; a fresh batch comes back.
fn flush<K: Sink>(shared: &Shared<'_, '_, K>, mut batch: Batch) -> Batch {
    let started = Instant::now();
    if !batch.items.is_empty() {
        shared.verifier.verify(&mut batch);
    }
    let now = Instant::now();
    if !batch.packets.is_empty() {
        let mut l = shared.latency.lock().unwrap();
        batch.packets.iter().for_each(|p| l.record(now - p.arrival));
        if !batch.items.is_empty() {
            l.record_verify(now - started);
        }
    }
    let counters = shared.counters;
    counters
        .signatures
        .fetch_add(batch.verdicts.len() as u64, Relaxed);
    if !batch.items.is_empty() {
        counters.batches.fetch_add(1, Relaxed);
        let mut last = shared.last_verdict.lock().unwrap();
        *last = Some(last.map_or(now, |t| t.max(now)));
    }
    let mut done = Vec::new();
    shared.commit.commit(batch, counters, &mut done);
    for batch in done {
        // Ingest gone or behind: free them here.
        let _ = shared.spent.try_send(batch.packets);
    }
    Batch::new()
}
