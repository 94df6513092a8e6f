//! Handing verified packets to the sink. Tiles commit their batches as they finish them;
//! the sink sees each chunk's packets at once, or, when it asks for arrival order
//! ([`Sink::wants_order`]), each chunk only after every earlier one. Either way the
//! packets taken from the queue and not yet committed are bounded (the window): a tile
//! that finds the window full verifies what it holds instead of taking more, so the chunk
//! everyone waits for is always on its way and memory stays flat.

use crate::packet::{Batch, ChunkSpan};
use crate::stats::Counters;
use crate::{Sink, Verified};
use linesig::Verdict;
use std::collections::BTreeMap;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering::Relaxed};
use std::sync::{Arc, Condvar, Mutex};

pub(crate) struct Commit<'a, K> {
    state: Mutex<State<'a, K>>,
    /// Signalled when committed packets leave the window.
    room: Condvar,
    /// Packets taken from the queue and not yet committed.
    in_flight: AtomicUsize,
    window: usize,
    /// A tile panicked with packets in flight: the window no longer binds, so that the
    /// other tiles drain the queue and the run ends (and the panic surfaces) rather than
    /// waiting for a commit that will never come.
    abandoned: AtomicBool,
}

struct State<'a, K> {
    sink: &'a mut K,
    ordered: bool,
    /// With `ordered`: the next chunk the sink gets, and the verified chunks that wait
    /// for an earlier one (each with the batch that holds it).
    next: u64,
    waiting: BTreeMap<u64, (Arc<Batch>, usize)>,
}

impl<'a, K: Sink> Commit<'a, K> {
    pub fn new(sink: &'a mut K, window: usize) -> Self {
        let ordered = sink.wants_order();
        Commit {
            state: Mutex::new(State {
                sink,
                ordered,
                next: 0,
                waiting: BTreeMap::new(),
            }),
            room: Condvar::new(),
            in_flight: AtomicUsize::new(0),
            window: window.max(1),
            abandoned: AtomicBool::new(false),
        }
    }

    /// A tile took `packets` from the queue.
    pub fn taken(&self, packets: usize) {
        self.in_flight.fetch_add(packets, Relaxed);
    }

    pub fn window_full(&self) -> bool {
        self.in_flight.load(Relaxed) >= self.window && !self.abandoned.load(Relaxed)
    }

    /// Whether a tile died with packets in flight.
    pub fn abandoned(&self) -> bool {
        self.abandoned.load(Relaxed)
    }

    /// A tile is unwinding from a panic: stop anyone waiting on the window.
    pub fn abandon(&self) {
        self.abandoned.store(true, Relaxed);
        // Under the lock, so that a waiter between its check and its wait is not missed;
        // a poisoned lock is fine here (nothing is read through it).
        let _state = self.state.lock();
        self.room.notify_all();
    }

    /// Block while the window is full (a tile that holds nothing calls this before it
    /// takes a chunk; the chunk that would open the window is held by a tile that is
    /// verifying it or that will, finding the window full).
    pub fn wait_for_room(&self) {
        if !self.window_full() {
            return;
        }
        let mut state = self.state.lock().unwrap_or_else(|e| e.into_inner());
        while self.window_full() {
            state = self.room.wait(state).unwrap_or_else(|e| e.into_inner());
        }
    }

    /// Hand a verified batch's packets to the sink (in order: those whose turn has come).
    /// Batches whose every chunk the sink now has come back, for their memory to be
    /// freed or reused off the tile's thread.
    pub fn commit(&self, batch: Batch, counters: &Counters, done: &mut Vec<Batch>) {
        let mut state = self.state.lock().unwrap();
        let state = &mut *state;
        let mut released = 0;
        if state.ordered {
            let batch = Arc::new(batch);
            for (i, span) in batch.chunks.iter().enumerate() {
                state.waiting.insert(span.number, (Arc::clone(&batch), i));
            }
            drop(batch);
            while let Some((batch, i)) = state.waiting.remove(&state.next) {
                let span = &batch.chunks[i];
                emit(state.sink, &batch, span, counters);
                released += span.taken;
                state.next += 1;
                // A batch's chunks come in number order, so its last is emitted last.
                if i + 1 == batch.chunks.len() {
                    done.extend(Arc::into_inner(batch));
                }
            }
        } else {
            for span in &batch.chunks {
                emit(state.sink, &batch, span, counters);
                released += span.taken;
            }
            done.push(batch);
        }
        // Under the state lock, so a tile in `wait_for_room` cannot miss the signal.
        self.in_flight.fetch_sub(released, Relaxed);
        if released > 0 {
            self.room.notify_all();
        }
    }

    /// The sink, once every tile is done.
    pub fn into_sink(self) -> &'a mut K {
        let state = self.state.into_inner().unwrap();
        debug_assert!(state.waiting.is_empty(), "every chunk was committed");
        state.sink
    }
}

/// Count one chunk's packets and give them to the sink: its verified packets, then its
/// drop-log entries.
fn emit<K: Sink>(sink: &mut K, batch: &Batch, span: &ChunkSpan, counters: &Counters) {
    // Counted once per chunk: the counters' cache line is shared by every tile.
    let (mut passed_count, mut sink_errors) = (0, 0);
    for i in span.packets.clone() {
        let packet = &batch.packets[i];
        let verdicts = batch.verdicts_of(i);
        let passed = verdicts.iter().all(|v| *v == Verdict::Valid);
        if passed {
            passed_count += 1;
            if sink.pass(packet).is_err() {
                sink_errors += 1;
            }
        }
        sink.verified(&Verified {
            packet,
            verdicts,
            passed,
            signature: batch.first_signature(i),
        });
    }
    for &(seq, why) in &batch.dropped[span.dropped.clone()] {
        sink.dropped(seq, why);
    }
    counters.passed.fetch_add(passed_count, Relaxed);
    let failed = span.packets.len() as u64 - passed_count;
    counters.invalid_signature.fetch_add(failed, Relaxed);
    if sink_errors > 0 {
        counters.sink_errors.fetch_add(sink_errors, Relaxed);
    }
}
