//! Where verified packets go: the [`Sink`] trait, a sink that forwards passing packets
//! over UDP ([`UdpForward`]) and one that keeps nothing ([`Discard`]).
//!
//! A sink runs on the verify tiles' threads, one tile at a time, between batches: a slow
//! sink slows the pipeline (and, for a live source, makes it shed load at ingest), so it
//! should hand packets on rather than work on them.

use crate::packet::{Dropped, Packet};
use linesig::Verdict;
use std::io;
use std::net::{SocketAddr, UdpSocket};

/// A packet the verify stage has judged.
#[derive(Clone, Copy, Debug)]
pub struct Verified<'a> {
    pub packet: &'a Packet,
    /// One verdict per signature: the transaction's own signatures in order, then its
    /// Ed25519 precompile signatures (when the pipeline checks them).
    pub verdicts: &'a [Verdict],
    /// Every verdict is valid: the packet passes.
    pub passed: bool,
    /// The transaction's first signature (its id on chain).
    pub signature: &'a [u8],
}

/// What the pipeline does with its results.
pub trait Sink: Send {
    /// A packet whose every signature is valid. An error is counted
    /// ([`crate::Report::sink_errors`]) and the run goes on.
    fn pass(&mut self, packet: &Packet) -> io::Result<()>;

    /// Every judged packet, passed or not, after [`Sink::pass`] for a passing one.
    fn verified(&mut self, _verified: &Verified<'_>) {}

    /// Whether [`Sink::dropped`] is wanted: the pipeline keeps a log of dropped packets
    /// for the verify stage only when it is.
    fn wants_dropped(&self) -> bool {
        false
    }

    /// A packet dropped before verification (called after the verdicts of the chunk of
    /// packets it came in).
    fn dropped(&mut self, _seq: u64, _why: Dropped) {}

    /// Whether packets must reach the sink in arrival order (a file of passing packets
    /// that should list them as the input did). Without it each verify tile hands its
    /// packets over as soon as they are verified, which never waits for a slower tile.
    fn wants_order(&self) -> bool {
        false
    }

    /// The run is over: flush. An error here fails the run.
    fn finish(&mut self) -> io::Result<()> {
        Ok(())
    }
}

impl<S: Sink + ?Sized> Sink for &mut S {
    fn pass(&mut self, packet: &Packet) -> io::Result<()> {
        (**self).pass(packet)
    }
    fn verified(&mut self, verified: &Verified<'_>) {
        (**self).verified(verified)
    }
    fn wants_dropped(&self) -> bool {
        (**self).wants_dropped()
    }
    fn dropped(&mut self, seq: u64, why: Dropped) {
        (**self).dropped(seq, why)
    }
    fn wants_order(&self) -> bool {
        (**self).wants_order()
    }
    fn finish(&mut self) -> io::Result<()> {
        (**self).finish()
    }
}

/// Keeps nothing: the pipeline's counters and report are the whole result.
#[derive(Clone, Copy, Debug, Default)]
pub struct Discard;

impl Sink for Discard {
    fn pass(&mut self, _packet: &Packet) -> io::Result<()> {
        Ok(())
    }
}

/// Sends each passing packet, unchanged, to one UDP address.
#[derive(Debug)]
pub struct UdpForward {
    socket: UdpSocket,
    to: SocketAddr,
}

impl UdpForward {
    /// A socket on any local port of `to`'s address family, sending to `to`.
    pub fn new(to: SocketAddr) -> io::Result<UdpForward> {
        Ok(UdpForward {
            socket: sending_socket(to)?,
            to,
        })
    }
}

impl Sink for UdpForward {
    fn pass(&mut self, packet: &Packet) -> io::Result<()> {
        self.socket.send_to(&packet.data, self.to).map(drop)
    }
}

/// A UDP socket on any local port of `to`'s address family, for sending to `to`.
pub fn sending_socket(to: SocketAddr) -> io::Result<UdpSocket> {
    let any: SocketAddr = if to.is_ipv4() {
        (std::net::Ipv4Addr::UNSPECIFIED, 0).into()
    } else {
        (std::net::Ipv6Addr::UNSPECIFIED, 0).into()
    };
    UdpSocket::bind(any)
}
