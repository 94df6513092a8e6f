//! Ingest: packets off a UDP socket (`recvmmsg` batches on Linux, with the kernel's own
//! drop count from `SO_RXQ_OVFL`) or out of memory (a replayed file), stamped with their
//! arrival time and handed to the parse stage in chunks.
//!
//! A live socket never waits for the stages behind it: when the parse queue is full the
//! chunk is shed and counted as `overload`. A replayed file is not live, so it waits
//! instead (nothing is shed; the run measures how fast the pipeline drains it).

use super::stats::Counters;
use crossbeam_channel::Sender;
use std::net::UdpSocket;
use std::sync::atomic::{AtomicBool, Ordering::Relaxed};
use std::time::Instant;

/// Packets per chunk handed to the parse stage (and per `recvmmsg` call).
pub const CHUNK: usize = 64;
/// Receive buffer per datagram: one byte more than the largest transaction (v1, 4096),
/// so an oversized datagram is seen as such (and dropped as `too_large`), not cut to fit.
const DATAGRAM_BUFFER: usize = linesig::wire::V1_MAX_SIZE + 1;

pub struct Packet {
    /// Arrival order, from 0.
    pub seq: u64,
    pub arrival: Instant,
    pub data: Vec<u8>,
}

pub enum Source {
    Udp(UdpSocket),
    Memory(Vec<Vec<u8>>),
}

/// When ingest stops on its own.
pub struct Limits<'a> {
    pub stop: &'a AtomicBool,
    pub max_packets: Option<u64>,
    /// Most packets waiting for the parse stage.
    pub queue_packets: usize,
}

pub fn run(source: Source, tx: Sender<Vec<Packet>>, counters: &Counters, limits: Limits<'_>) {
    match source {
        Source::Memory(packets) => from_memory(packets, tx, counters, limits),
        Source::Udp(socket) => from_socket(&socket, tx, counters, limits),
    }
}

fn from_memory(
    packets: Vec<Vec<u8>>,
    tx: Sender<Vec<Packet>>,
    counters: &Counters,
    limits: Limits<'_>,
) {
    let mut seq = 0u64;
    let mut packets = packets.into_iter().peekable();
    while packets.peek().is_some() && !limits.stop.load(Relaxed) {
        let arrival = Instant::now();
        let chunk: Vec<Packet> = packets
            .by_ref()
            .take(CHUNK)
            .map(|data| {
                seq += 1;
                Packet {
                    seq: seq - 1,
                    arrival,
                    data,
                }
            })
            .collect();
        if !hand_over(chunk, &tx, counters, &limits, false) {
            return;
        }
    }
}

/// Queue a chunk for the parse stage. A live source sheds the chunk (counted as
/// `overload`) when its packets do not fit; a replay blocks on the channel instead, which
/// `run` sized in full chunks. False once the parse stage is gone.
fn hand_over(
    chunk: Vec<Packet>,
    tx: &Sender<Vec<Packet>>,
    counters: &Counters,
    limits: &Limits<'_>,
    live: bool,
) -> bool {
    let len = chunk.len() as u64;
    counters.received.fetch_add(len, Relaxed);
    let bytes: usize = chunk.iter().map(|p| p.data.len()).sum();
    counters.received_bytes.fetch_add(bytes as u64, Relaxed);
    // Only this thread adds to `queued`, so room seen here cannot vanish before the add.
    if live && counters.queued.load(Relaxed) + len > limits.queue_packets as u64 {
        counters.overload.fetch_add(len, Relaxed);
        return true;
    }
    counters.queued.fetch_add(len, Relaxed);
    tx.send(chunk).is_ok()
}

/// Parse-queue capacity in chunks: a live socket's chunks can hold a single packet, so
/// the channel admits `queue_packets` of them and the packet count in `hand_over` is the
/// binding bound; a replay sends full chunks and blocks on the channel itself.
pub fn channel_capacity(source: &Source, queue_packets: usize) -> usize {
    match source {
        Source::Udp(_) => queue_packets.max(1),
        Source::Memory(_) => (queue_packets / CHUNK).max(1),
    }
}

/// Wake at least this often to notice `stop`.
const POLL: std::time::Duration = std::time::Duration::from_millis(50);

#[cfg(not(target_os = "linux"))]
fn from_socket(
    socket: &UdpSocket,
    tx: Sender<Vec<Packet>>,
    counters: &Counters,
    limits: Limits<'_>,
) {
    let _ = socket.set_read_timeout(Some(POLL));
    let mut buf = vec![0u8; DATAGRAM_BUFFER];
    let mut seq = 0u64;
    while !limits.stop.load(Relaxed) && limits.max_packets.is_none_or(|m| seq < m) {
        match socket.recv_from(&mut buf) {
            Ok((len, _)) => {
                let packet = Packet {
                    seq,
                    arrival: Instant::now(),
                    data: buf[..len].to_vec(),
                };
                seq += 1;
                if !hand_over(vec![packet], &tx, counters, &limits, true) {
                    return;
                }
            }
            Err(_) => continue,
        }
    }
}

#[cfg(target_os = "linux")]
fn from_socket(
    socket: &UdpSocket,
    tx: Sender<Vec<Packet>>,
    counters: &Counters,
    limits: Limits<'_>,
) {
    use std::os::fd::AsRawFd;
    let fd = socket.as_raw_fd();
    let _ = socket.set_read_timeout(Some(POLL));
    // SAFETY: plain setsockopt on a socket we own, with a correctly sized int option.
    unsafe {
        let on: libc::c_int = 1;
        libc::setsockopt(
            fd,
            libc::SOL_SOCKET,
            libc::SO_RXQ_OVFL,
            (&on as *const libc::c_int).cast(),
            std::mem::size_of::<libc::c_int>() as libc::socklen_t,
        );
    }
    let mut buffers = vec![0u8; CHUNK * DATAGRAM_BUFFER];
    // Room for one SO_RXQ_OVFL control message (a u32) per datagram.
    const CONTROL: usize = 64;
    let mut control = vec![0u8; CHUNK * CONTROL];
    let mut seq = 0u64;
    while !limits.stop.load(Relaxed) {
        let want = match limits.max_packets {
            Some(max) if seq >= max => return,
            Some(max) => ((max - seq) as usize).min(CHUNK),
            None => CHUNK,
        };
        // Invariant: iovecs[i] and headers[i] point into buffers[i * DATAGRAM_BUFFER..]
        // and control[i * CONTROL..], which outlive the call and are not otherwise borrowed.
        let mut iovecs: Vec<libc::iovec> = (0..want)
            .map(|i| libc::iovec {
                iov_base: buffers[i * DATAGRAM_BUFFER..].as_mut_ptr().cast(),
                iov_len: DATAGRAM_BUFFER,
            })
            .collect();
        let mut headers: Vec<libc::mmsghdr> = (0..want)
            .map(|i| {
                // SAFETY: mmsghdr is plain data; all-zero is a valid empty header.
                let mut h: libc::mmsghdr = unsafe { std::mem::zeroed() };
                h.msg_hdr.msg_iov = &mut iovecs[i];
                h.msg_hdr.msg_iovlen = 1;
                h.msg_hdr.msg_control = control[i * CONTROL..].as_mut_ptr().cast();
                h.msg_hdr.msg_controllen = CONTROL as _;
                h
            })
            .collect();
        // SAFETY: `headers` holds `want` valid headers whose buffers are live (above).
        let got = unsafe {
            libc::recvmmsg(
                fd,
                headers.as_mut_ptr(),
                want as libc::c_uint,
                libc::MSG_WAITFORONE,
                std::ptr::null_mut(),
            )
        };
        if got <= 0 {
            continue; // timeout (EAGAIN) or EINTR: check `stop` and go again
        }
        let arrival = Instant::now();
        let mut chunk = Vec::with_capacity(got as usize);
        for (i, h) in headers.iter().take(got as usize).enumerate() {
            let len = (h.msg_len as usize).min(DATAGRAM_BUFFER);
            chunk.push(Packet {
                seq,
                arrival,
                data: buffers[i * DATAGRAM_BUFFER..i * DATAGRAM_BUFFER + len].to_vec(),
            });
            seq += 1;
            if let Some(dropped) = kernel_drops(&h.msg_hdr) {
                counters
                    .kernel_dropped
                    .fetch_max(u64::from(dropped), Relaxed);
            }
        }
        if !hand_over(chunk, &tx, counters, &limits, true) {
            return;
        }
    }
}

/// The socket's cumulative kernel drop count, if this datagram carried it.
#[cfg(target_os = "linux")]
fn kernel_drops(header: &libc::msghdr) -> Option<u32> {
    // SAFETY: the CMSG_* macros walk the control buffer the kernel filled in, bounded by
    // msg_controllen; the payload of SO_RXQ_OVFL is one u32.
    unsafe {
        let mut cmsg = libc::CMSG_FIRSTHDR(header);
        while !cmsg.is_null() {
            if (*cmsg).cmsg_level == libc::SOL_SOCKET && (*cmsg).cmsg_type == libc::SO_RXQ_OVFL {
                return Some(std::ptr::read_unaligned(
                    libc::CMSG_DATA(cmsg).cast::<u32>(),
                ));
            }
            cmsg = libc::CMSG_NXTHDR(header, cmsg);
        }
    }
    None
}
