//! The messages between the pipeline's stages (as Firedancer's tango sits below its
//! tiles): a [`Packet`] as ingest stamps it, why one was [`Dropped`], the numbered [`Chunk`]s the queue carries to
//! the verify tiles, and a tile's [`Batch`] with the [`ChunkSpan`]s that the commit stage
//! releases to the sink.

use linesig::wire::ItemRanges;
use linesig::{Item, ItemSource, Verdict};
use std::ops::Range;
use std::time::Instant;

/// Why a packet never reached verification.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Dropped {
    /// It does not parse or sanitize; the rule it breaks ([`linesig::wire::WireError::rule`]).
    Malformed(&'static str),
    /// The same bytes were seen before (within the dedup filter's window).
    Duplicate,
}

/// One packet as the pipeline carries it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Packet {
    /// Arrival order in this run, from 0.
    pub seq: u64,
    /// When ingest took it from its source; latency is measured from here.
    pub arrival: Instant,
    pub data: Vec<u8>,
}

/// Packets as ingest queues them; `number` counts the chunks that entered the queue, from
/// 0, so chunk order is arrival order.
pub(crate) struct Chunk {
    pub number: u64,
    pub packets: Vec<Packet>,
}

/// Where one chunk's results lie in its batch.
pub(crate) struct ChunkSpan {
    pub number: u64,
    /// Packets ingest put in the chunk (passed, failed or dropped): what committing it
    /// releases from the in-flight window.
    pub taken: usize,
    /// Its parsed, first-seen packets: `Batch::packets[packets]`.
    pub packets: Range<usize>,
    /// Its drop-log entries: `Batch::dropped[dropped]`.
    pub dropped: Range<usize>,
}

/// One tile's verify batch: the packets that passed parse and dedup, every triple to
/// verify grouped by packet in packet order, and after verification one verdict per
/// triple.
pub(crate) struct Batch {
    pub packets: Vec<Packet>,
    /// Per packet, its first item; one extra entry closes the last packet.
    pub first_item: Vec<usize>,
    pub items: Vec<(u32, ItemRanges)>,
    /// Packets dropped before verification, for sinks that log them.
    pub dropped: Vec<(u64, Dropped)>,
    pub chunks: Vec<ChunkSpan>,
    pub verdicts: Vec<Verdict>,
    /// Packets taken from the queue into this batch.
    pub taken: usize,
    /// When its oldest packet arrived.
    pub oldest: Option<Instant>,
}

impl Batch {
    pub fn new() -> Batch {
        Batch {
            packets: Vec::new(),
            first_item: vec![0],
            items: Vec::new(),
            dropped: Vec::new(),
            chunks: Vec::new(),
            verdicts: Vec::new(),
            taken: 0,
            oldest: None,
        }
    }

    /// The verdicts of packet `i`'s signatures: its own, then its precompile ones.
    pub fn verdicts_of(&self, i: usize) -> &[Verdict] {
        &self.verdicts[self.first_item[i]..self.first_item[i + 1]]
    }

    /// Packet `i`'s first signature (its id on chain): a packet's own signatures come
    /// first among its items.
    pub fn first_signature(&self, i: usize) -> &[u8] {
        self.items
            .get(self.first_item[i])
            .map_or(&[][..], |(_, first)| {
                &self.packets[i].data[first.signature.clone()]
            })
    }
}

impl ItemSource for Batch {
    fn len(&self) -> usize {
        self.items.len()
    }

    fn item(&self, index: usize) -> Item<'_> {
        let (packet, r) = &self.items[index];
        let p = &self.packets[*packet as usize].data;
        Item::new(
            &p[r.public_key.clone()],
            &p[r.message.clone()],
            &p[r.signature.clone()],
        )
    }
}
