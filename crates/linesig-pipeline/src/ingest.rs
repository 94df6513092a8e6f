//! Ingest: the thread that takes packets from the [`Source`], stamps them with their
//! arrival and queues them to the verify tiles in numbered chunks, shedding a live
//! source's chunks (counted as `overload`) when the bounded queue is full.

use crate::packet::{Chunk, Packet};
use crate::stats::Counters;
use crate::{Config, Source, SourceState, CHUNK};
use crossbeam_channel::{Receiver, Select, Sender};
use std::sync::atomic::{AtomicBool, Ordering::Relaxed};
use std::sync::OnceLock;
use std::time::Instant;

/// Chunks the queue between ingest and the tiles holds.
pub(crate) fn queue_chunks(config: &Config, live: bool) -> usize {
    if live {
        // A live source's chunks can hold a single packet, so the channel admits
        // `queue_packets` of them and the packet count in `hand_over` is the binding bound.
        config.queue_packets
    } else {
        // A replay sends full chunks and blocks on the channel itself.
        (config.queue_packets / CHUNK).max(1)
    }
}

/// Ingest's ends of the channels to the tiles: chunks out, spent packets back (to free).
pub(crate) struct Queue {
    pub chunks: Sender<Chunk>,
    pub spent: Receiver<Vec<Packet>>,
}

/// Take packets from the source until it ends, `max_packets` have come, `stop` is set or
/// the tiles are gone; stamp them and queue them in numbered chunks.
pub(crate) fn ingest<S: Source>(
    source: &mut S,
    queue: Queue,
    counters: &Counters,
    config: &Config,
    stop: &AtomicBool,
    first_arrival: &OnceLock<Instant>,
) -> std::io::Result<()> {
    let live = source.is_live();
    let mut seq = 0u64;
    let mut number = 0u64;
    let mut received = Vec::with_capacity(CHUNK);
    while !stop.load(Relaxed) {
        let want = match config.max_packets {
            Some(max) if seq >= max => return Ok(()),
            Some(max) => ((max - seq) as usize).min(CHUNK),
            None => CHUNK,
        };
        queue.spent.try_iter().for_each(drop);
        let state = source.receive(want, &mut received)?;
        if let Some(dropped) = source.kernel_dropped() {
            counters.kernel_dropped.fetch_max(dropped, Relaxed);
        }
        if !received.is_empty() {
            let arrival = Instant::now();
            first_arrival.get_or_init(|| arrival);
            let packets: Vec<Packet> = received
                .drain(..)
                .map(|data| {
                    seq += 1;
                    Packet {
                        seq: seq - 1,
                        arrival,
                        data,
                    }
                })
                .collect();
            match hand_over(
                packets,
                number,
                &queue,
                counters,
                config.queue_packets,
                live,
            ) {
                HandOver::Queued => number += 1,
                HandOver::Shed => {}
                HandOver::Closed => return Ok(()),
            }
        }
        if state == SourceState::Exhausted {
            return Ok(());
        }
    }
    Ok(())
}

enum HandOver {
    Queued,
    Shed,
    /// The tiles are gone.
    Closed,
}

/// Queue a chunk for the tiles. A live source's chunk is shed (counted as `overload`)
/// when its packets do not fit; a replay blocks on the channel instead.
fn hand_over(
    packets: Vec<Packet>,
    number: u64,
    queue: &Queue,
    counters: &Counters,
    queue_packets: usize,
    live: bool,
) -> HandOver {
    let len = packets.len() as u64;
    counters.received.fetch_add(len, Relaxed);
    let bytes: usize = packets.iter().map(|p| p.data.len()).sum();
    counters.received_bytes.fetch_add(bytes as u64, Relaxed);
    // Only this thread adds to `queued`, so room seen here cannot vanish before the add.
    if live && counters.queued.load(Relaxed) + len > queue_packets as u64 {
        counters.overload.fetch_add(len, Relaxed);
        return HandOver::Shed;
    }
    counters.queued.fetch_add(len, Relaxed);
    let mut chunk = Some(Chunk { number, packets });
    // While the queue is full, free what the tiles send back.
    loop {
        let mut select = Select::new();
        let send = select.send(&queue.chunks);
        select.recv(&queue.spent);
        let op = select.select();
        if op.index() == send {
            let chunk = chunk.take().expect("sent once");
            return match op.send(&queue.chunks, chunk) {
                Ok(()) => HandOver::Queued,
                Err(_) => HandOver::Closed,
            };
        }
        // Spent packets, or every tile gone (then the send fails next time round).
        let _ = op.recv(&queue.spent);
    }
}
