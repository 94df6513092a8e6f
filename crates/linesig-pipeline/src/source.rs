//! Where packets come from: the [`Source`] trait, and the two sources linesig ships: a
//! UDP socket ([`UdpSource`]: `recvmmsg` batches on Linux, with the kernel's own drop
//! count from `SO_RXQ_OVFL`) and packets already in memory ([`Replay`], e.g. a capture
//! read by [`crate::capture::read`]).
//!
//! A source only produces bytes; the pipeline stamps each packet with its arrival time
//! and sequence number, and decides what to do when the stages behind it are full: a
//! live source is shed (counted as `overload`), a replay is waited for.

use std::io;
use std::net::UdpSocket;
use std::time::Duration;

/// Most packets the pipeline asks a source for at a time (and per `recvmmsg` call).
pub const CHUNK: usize = 64;

/// Receive buffer per datagram: one byte more than the largest transaction (v1, 4096),
/// so an oversized datagram is seen as such (and dropped as `too_large`), not cut to fit.
const DATAGRAM_BUFFER: usize = linesig::wire::V1_MAX_SIZE + 1;

/// Longest a [`UdpSource`] blocks in one call, so the pipeline notices a stop this soon.
pub const POLL: Duration = Duration::from_millis(50);

/// Whether a source may produce more packets.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SourceState {
    /// More may come (including when this call produced none: a timeout).
    Open,
    /// Nothing more will come; the pipeline drains and stops.
    Exhausted,
}

/// A stream of packets (UDP payloads: Solana transactions, or anything else, which the
/// pipeline counts as malformed).
pub trait Source: Send {
    /// Whether packets arrive on their own clock (a socket): the pipeline then sheds what
    /// does not fit its queue instead of waiting. A replay is not live.
    fn is_live(&self) -> bool;

    /// Append at most `max` packets to `out`. A live source should not block for much
    /// longer than [`POLL`], so that a stop is noticed; it may return with none.
    fn receive(&mut self, max: usize, out: &mut Vec<Vec<u8>>) -> io::Result<SourceState>;

    /// Packets lost before this source saw them (the kernel's count for a socket), if
    /// known: cumulative over the run.
    fn kernel_dropped(&self) -> Option<u64> {
        None
    }
}

/// Packets held in memory, replayed as fast as the pipeline takes them.
#[derive(Debug, Default)]
pub struct Replay {
    packets: std::vec::IntoIter<Vec<u8>>,
}

impl Replay {
    pub fn new(packets: Vec<Vec<u8>>) -> Replay {
        Replay {
            packets: packets.into_iter(),
        }
    }
}

impl From<Vec<Vec<u8>>> for Replay {
    fn from(packets: Vec<Vec<u8>>) -> Replay {
        Replay::new(packets)
    }
}

impl Source for Replay {
    fn is_live(&self) -> bool {
        false
    }

    fn receive(&mut self, max: usize, out: &mut Vec<Vec<u8>>) -> io::Result<SourceState> {
        out.extend(self.packets.by_ref().take(max));
        Ok(match self.packets.len() {
            0 => SourceState::Exhausted,
            _ => SourceState::Open,
        })
    }
}

/// Datagrams off a bound UDP socket.
pub struct UdpSource {
    socket: UdpSocket,
    buffers: Vec<u8>,
    /// Room for one `SO_RXQ_OVFL` control message per datagram (Linux).
    #[cfg_attr(not(target_os = "linux"), allow(dead_code))]
    control: Vec<u8>,
    kernel_dropped: Option<u64>,
}

/// Control-message room per datagram: one `SO_RXQ_OVFL` (a u32) with its header.
#[cfg_attr(not(target_os = "linux"), allow(dead_code))]
const CONTROL: usize = 64;

impl UdpSource {
    /// Receive on `socket` (bound by the caller, with whatever buffer size it chose).
    pub fn new(socket: UdpSocket) -> io::Result<UdpSource> {
        socket.set_read_timeout(Some(POLL))?;
        #[cfg(target_os = "linux")]
        {
            use std::os::fd::AsRawFd;
            let on: libc::c_int = 1;
            // SAFETY: plain setsockopt on a socket we own, with a correctly sized int
            // option. Failure only leaves the kernel drop count unreported.
            unsafe {
                libc::setsockopt(
                    socket.as_raw_fd(),
                    libc::SOL_SOCKET,
                    libc::SO_RXQ_OVFL,
                    (&on as *const libc::c_int).cast(),
                    std::mem::size_of::<libc::c_int>() as libc::socklen_t,
                );
            }
        }
        Ok(UdpSource {
            socket,
            buffers: vec![0u8; CHUNK * DATAGRAM_BUFFER],
            control: vec![0u8; CHUNK * CONTROL],
            kernel_dropped: None,
        })
    }

    pub fn socket(&self) -> &UdpSocket {
        &self.socket
    }
}

impl Source for UdpSource {
    fn is_live(&self) -> bool {
        true
    }

    fn kernel_dropped(&self) -> Option<u64> {
        self.kernel_dropped
    }

    #[cfg(not(target_os = "linux"))]
    fn receive(&mut self, _max: usize, out: &mut Vec<Vec<u8>>) -> io::Result<SourceState> {
        // Timeouts and transient errors (ICMP-induced resets) are not the end of a socket.
        if let Ok((len, _)) = self.socket.recv_from(&mut self.buffers[..DATAGRAM_BUFFER]) {
            out.push(self.buffers[..len].to_vec());
        }
        Ok(SourceState::Open)
    }

    #[cfg(target_os = "linux")]
    fn receive(&mut self, max: usize, out: &mut Vec<Vec<u8>>) -> io::Result<SourceState> {
        use std::os::fd::AsRawFd;
        let want = max.min(CHUNK);
        if want == 0 {
            return Ok(SourceState::Open);
        }
        // Invariant: iovecs[i] and headers[i] point into buffers[i * DATAGRAM_BUFFER..]
        // and control[i * CONTROL..], which outlive the call and are not otherwise borrowed.
        let (buffers, control) = (&mut self.buffers, &mut self.control);
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
                self.socket.as_raw_fd(),
                headers.as_mut_ptr(),
                want as libc::c_uint,
                libc::MSG_WAITFORONE,
                std::ptr::null_mut(),
            )
        };
        // A timeout (EAGAIN), EINTR or a transient error: nothing this time.
        for (i, h) in headers.iter().take(got.max(0) as usize).enumerate() {
            let len = (h.msg_len as usize).min(DATAGRAM_BUFFER);
            out.push(buffers[i * DATAGRAM_BUFFER..i * DATAGRAM_BUFFER + len].to_vec());
            if let Some(dropped) = kernel_drops(&h.msg_hdr) {
                let total = self.kernel_dropped.get_or_insert(0);
                *total = (*total).max(u64::from(dropped));
            }
        }
        Ok(SourceState::Open)
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
