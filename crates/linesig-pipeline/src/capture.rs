//! Packet files: linesig's length-prefixed format and classic pcap captures.
//!
//! Length-prefixed ("lspkt"): the 8-byte magic `LSPKTv1\n`, then per packet a
//! little-endian u32 length and the UDP payload. pcap: the classic libpcap format
//! (microsecond or nanosecond timestamps, either byte order) with Ethernet (optionally one
//! 802.1Q tag), raw IP, or Linux cooked (SLL, SLL2) framing; the UDP payloads of IPv4 and
//! IPv6 (no extension headers) packets are the packets, every other record is skipped
//! and counted. pcapng is refused with a message saying how to convert it.

use std::io::Write;
use std::path::{Path, PathBuf};

pub const LSPKT_MAGIC: &[u8; 8] = b"LSPKTv1\n";
/// Larger than any Solana transaction (v1: 4096); a longer record means a corrupt file.
pub const MAX_PACKET: usize = 65_535;

/// The packets of a file, and how many pcap records were not UDP payloads.
#[derive(Clone, Debug, Default)]
pub struct PacketFile {
    pub packets: Vec<Vec<u8>>,
    pub skipped_records: u64,
}

/// A packet file that could not be read: the file and what is wrong with it.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum CaptureError {
    #[error("cannot read {}: {error}", path.display())]
    Io {
        path: PathBuf,
        error: std::io::Error,
    },
    #[error("{}: {what}", path.display())]
    Format { path: PathBuf, what: String },
}

/// Read a whole packet file, detecting its format from the first bytes.
pub fn read(path: &Path) -> Result<PacketFile, CaptureError> {
    let bytes = std::fs::read(path).map_err(|error| CaptureError::Io {
        path: path.to_path_buf(),
        error,
    })?;
    parse(&bytes).map_err(|what| CaptureError::Format {
        path: path.to_path_buf(),
        what,
    })
}

/// The packets of a packet file's bytes (either format), or what is wrong with them.
pub fn parse(bytes: &[u8]) -> Result<PacketFile, String> {
    if bytes.starts_with(LSPKT_MAGIC) {
        return read_lspkt(&bytes[8..]);
    }
    if bytes.len() >= 4 {
        let magic = u32::from_le_bytes([bytes[0], bytes[1], bytes[2], bytes[3]]);
        match magic {
            0xa1b2_c3d4 | 0xa1b2_3c4d | 0xd4c3_b2a1 | 0x4d3c_b2a1 => return read_pcap(bytes),
            0x0a0d_0d0a => {
                return Err(
                    "pcapng is not supported; convert it with `editcap -F pcap IN OUT`".into(),
                )
            }
            _ => {}
        }
    }
    Err("neither a linesig packet file (LSPKTv1) nor a pcap capture".into())
}

fn read_lspkt(mut rest: &[u8]) -> Result<PacketFile, String> {
    let mut packets = Vec::new();
    while !rest.is_empty() {
        if rest.len() < 4 {
            return Err(format!("record {} is cut inside its length", packets.len()));
        }
        let len = u32::from_le_bytes([rest[0], rest[1], rest[2], rest[3]]) as usize;
        if len > MAX_PACKET {
            return Err(format!(
                "record {} claims {len} bytes (corrupt file?)",
                packets.len()
            ));
        }
        if rest.len() - 4 < len {
            return Err(format!("record {} is cut short", packets.len()));
        }
        packets.push(rest[4..4 + len].to_vec());
        rest = &rest[4 + len..];
    }
    Ok(PacketFile {
        packets,
        skipped_records: 0,
    })
}

/// Appends packets to a length-prefixed file.
pub struct LspktWriter<W: Write> {
    out: W,
}

impl<W: Write> LspktWriter<W> {
    pub fn new(mut out: W) -> std::io::Result<Self> {
        out.write_all(LSPKT_MAGIC)?;
        Ok(LspktWriter { out })
    }

    pub fn write(&mut self, packet: &[u8]) -> std::io::Result<()> {
        self.out.write_all(&(packet.len() as u32).to_le_bytes())?;
        self.out.write_all(packet)
    }

    pub fn flush(&mut self) -> std::io::Result<()> {
        self.out.flush()
    }
}

const LINKTYPE_ETHERNET: u32 = 1;
const LINKTYPE_RAW: u32 = 101;
const LINKTYPE_LINUX_SLL: u32 = 113;
const LINKTYPE_IPV4: u32 = 228;
const LINKTYPE_IPV6: u32 = 229;
const LINKTYPE_LINUX_SLL2: u32 = 276;

fn read_pcap(bytes: &[u8]) -> Result<PacketFile, String> {
    if bytes.len() < 24 {
        return Err("pcap header is cut short".into());
    }
    let little = matches!(bytes[0], 0xd4 | 0x4d);
    let u32_at = |b: &[u8], at: usize| {
        let w = [b[at], b[at + 1], b[at + 2], b[at + 3]];
        if little {
            u32::from_le_bytes(w)
        } else {
            u32::from_be_bytes(w)
        }
    };
    let linktype = u32_at(bytes, 20) & 0x0fff_ffff;
    if ![
        LINKTYPE_ETHERNET,
        LINKTYPE_RAW,
        LINKTYPE_LINUX_SLL,
        LINKTYPE_IPV4,
        LINKTYPE_IPV6,
        LINKTYPE_LINUX_SLL2,
    ]
    .contains(&linktype)
    {
        return Err(format!(
            "pcap link type {linktype} is not supported (Ethernet, raw IP, Linux SLL/SLL2 are)"
        ));
    }
    let mut packets = Vec::new();
    let mut skipped = 0u64;
    let mut at = 24;
    while at < bytes.len() {
        if bytes.len() - at < 16 {
            return Err(format!(
                "pcap record {} header is cut short",
                packets.len() as u64 + skipped
            ));
        }
        let caplen = u32_at(bytes, at + 8) as usize;
        at += 16;
        if bytes.len() - at < caplen {
            return Err(format!(
                "pcap record {} is cut short",
                packets.len() as u64 + skipped
            ));
        }
        let frame = &bytes[at..at + caplen];
        at += caplen;
        match udp_payload(linktype, frame) {
            Some(p) => packets.push(p.to_vec()),
            None => skipped += 1,
        }
    }
    Ok(PacketFile {
        packets,
        skipped_records: skipped,
    })
}

fn be16(b: &[u8], at: usize) -> Option<u16> {
    Some(u16::from_be_bytes([*b.get(at)?, *b.get(at + 1)?]))
}

/// The UDP payload of one captured frame, if it carries an unfragmented UDP datagram.
fn udp_payload(linktype: u32, frame: &[u8]) -> Option<&[u8]> {
    let ip = match linktype {
        LINKTYPE_ETHERNET => {
            let mut ethertype = be16(frame, 12)?;
            let mut at = 14;
            if ethertype == 0x8100 {
                ethertype = be16(frame, 16)?;
                at = 18;
            }
            matches!(ethertype, 0x0800 | 0x86dd).then(|| frame.get(at..))??
        }
        LINKTYPE_LINUX_SLL => frame.get(16..)?,
        LINKTYPE_LINUX_SLL2 => frame.get(20..)?,
        _ => frame,
    };
    let udp = match ip.first()? >> 4 {
        4 => {
            let header = usize::from(ip[0] & 0x0f) * 4;
            let total = usize::from(be16(ip, 2)?);
            let fragment = be16(ip, 6)? & 0x3fff; // MF flag and fragment offset
            if *ip.get(9)? != 17 || fragment != 0 || header < 20 {
                return None;
            }
            ip.get(header..total.min(ip.len()))?
        }
        6 => {
            let payload = usize::from(be16(ip, 4)?);
            if *ip.get(6)? != 17 {
                return None;
            }
            ip.get(40..(40 + payload).min(ip.len()))?
        }
        _ => return None,
    };
    let len = usize::from(be16(udp, 4)?);
    if len < 8 {
        return None;
    }
    udp.get(8..len.min(udp.len()))
}

/// Writes UDP payloads as Ethernet/IPv4/UDP frames (127.0.0.1:9 → 127.0.0.1:8001) in a
/// pcap capture, so generated traffic opens in Wireshark and replays like a real capture.
pub struct PcapWriter<W: Write> {
    out: W,
    index: u32,
}

impl<W: Write> PcapWriter<W> {
    pub fn new(mut out: W) -> std::io::Result<Self> {
        let mut header = Vec::with_capacity(24);
        header.extend_from_slice(&0xa1b2_c3d4u32.to_le_bytes());
        header.extend_from_slice(&2u16.to_le_bytes());
        header.extend_from_slice(&4u16.to_le_bytes());
        header.extend_from_slice(&[0; 8]); // timezone, sigfigs
        header.extend_from_slice(&65_535u32.to_le_bytes());
        header.extend_from_slice(&LINKTYPE_ETHERNET.to_le_bytes());
        out.write_all(&header)?;
        Ok(PcapWriter { out, index: 0 })
    }

    pub fn write(&mut self, payload: &[u8]) -> std::io::Result<()> {
        let udp_len = 8 + payload.len();
        let ip_len = 20 + udp_len;
        let mut frame = Vec::with_capacity(14 + ip_len);
        frame.extend_from_slice(&[0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 2, 0x08, 0x00]);
        let mut ip = [0u8; 20];
        ip[0] = 0x45;
        ip[2..4].copy_from_slice(&(ip_len as u16).to_be_bytes());
        ip[8] = 64;
        ip[9] = 17;
        ip[12..16].copy_from_slice(&[127, 0, 0, 1]);
        ip[16..20].copy_from_slice(&[127, 0, 0, 1]);
        let sum = ip
            .chunks(2)
            .map(|w| u32::from(u16::from_be_bytes([w[0], w[1]])))
            .sum::<u32>();
        let folded = (sum & 0xffff) + (sum >> 16);
        let checksum = !(((folded & 0xffff) + (folded >> 16)) as u16);
        ip[10..12].copy_from_slice(&checksum.to_be_bytes());
        frame.extend_from_slice(&ip);
        frame.extend_from_slice(&9u16.to_be_bytes());
        frame.extend_from_slice(&8001u16.to_be_bytes());
        frame.extend_from_slice(&(udp_len as u16).to_be_bytes());
        frame.extend_from_slice(&[0, 0]); // no UDP checksum (allowed over IPv4)
        frame.extend_from_slice(payload);

        let mut record = Vec::with_capacity(16);
        record.extend_from_slice(&(self.index / 1_000_000).to_le_bytes());
        record.extend_from_slice(&(self.index % 1_000_000).to_le_bytes());
        record.extend_from_slice(&(frame.len() as u32).to_le_bytes());
        record.extend_from_slice(&(frame.len() as u32).to_le_bytes());
        self.index += 1;
        self.out.write_all(&record)?;
        self.out.write_all(&frame)
    }

    pub fn flush(&mut self) -> std::io::Result<()> {
        self.out.flush()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn roundtrip(pcap: bool) -> PacketFile {
        let dir =
            std::env::temp_dir().join(format!("linesig-packets-{}-{pcap}", std::process::id()));
        let packets: Vec<Vec<u8>> = (0..50u8).map(|i| vec![i; usize::from(i) * 25]).collect();
        let mut buf = Vec::new();
        if pcap {
            let mut w = PcapWriter::new(&mut buf).unwrap();
            packets.iter().for_each(|p| w.write(p).unwrap());
        } else {
            let mut w = LspktWriter::new(&mut buf).unwrap();
            packets.iter().for_each(|p| w.write(p).unwrap());
        }
        std::fs::write(&dir, &buf).unwrap();
        let read_back = read(&dir).unwrap();
        std::fs::remove_file(&dir).unwrap();
        assert_eq!(read_back.packets, packets);
        read_back
    }

    #[test]
    fn both_formats_round_trip() {
        assert_eq!(roundtrip(false).skipped_records, 0);
        assert_eq!(roundtrip(true).skipped_records, 0);
    }

    #[test]
    fn corrupt_files_are_errors_not_panics() {
        assert!(read_lspkt(&[5, 0, 0, 0, 1]).is_err());
        assert!(read_lspkt(&[5, 0]).is_err());
        assert!(read_lspkt(&[0xff, 0xff, 0xff, 0xff]).is_err());
        let mut buf = Vec::new();
        let mut w = PcapWriter::new(&mut buf).unwrap();
        w.write(&[1, 2, 3]).unwrap();
        for cut in 0..buf.len() {
            let _ = read_pcap(&buf[..cut]);
        }
        // A non-UDP frame is skipped, not an error.
        let mut tcp = buf.clone();
        tcp[24 + 16 + 14 + 9] = 6;
        let f = read_pcap(&tcp).unwrap();
        assert_eq!((f.packets.len(), f.skipped_records), (0, 1));
    }
}
