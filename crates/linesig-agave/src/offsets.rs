//! Where a packet's signatures, signer keys and signed message lie, by the rules of
//! solana-perf 4.0's sigverify stage (`sigverify::do_get_packet_offsets`), and its
//! simple-vote test: the `solana-perf-4-0` line. (From 4.1 sigverify reads packets
//! through Agave's sanitized transaction view instead: `view.rs`.)
//!
//! These rules are *not* Agave's sanitizer (linesig's `wire` module is that): sigverify
//! reads only what it needs to find the signatures, so a packet that banking later
//! rejects (trailing bytes, a bad address table, a v0 message cut short after its first
//! instruction byte) passes here, and must, for the flags to be the stage's own.
//!
//! Two sizes are in play, as in solana-perf: `size` is the packet's `meta.size`, which
//! every bound is checked against, and `data` is what the packet's `data(..)` accessor
//! shows, which every byte is read from. For a pinned `Packet` the two agree; a
//! `BytesPacket` shows its whole buffer whatever `meta.size` says, so a byte past `size`
//! can be read (the signed message runs to the buffer's end) and a bound under `size`
//! can still find no byte. Both cases reject or accept exactly as solana-perf does.

use crate::parts::SignedParts;
use linesig::wire::{compact_u16, KEY_LEN, SIGNATURE_LEN};

/// Bytes of a blockhash.
const BLOCKHASH_LEN: usize = 32;
/// `[num_required_signatures, num_readonly_signed, num_readonly_unsigned]`.
const MESSAGE_HEADER_LEN: usize = 3;
/// The first byte of a versioned message has this bit set; the rest is the version.
const VERSION_PREFIX: u8 = 0x80;
/// SIMD-0160: a transaction has at most this many top-level instructions
/// (`MAX_INSTRUCTION_TRACE_LENGTH`).
const MAX_INSTRUCTIONS: usize = 64;

pub use crate::VOTE_PROGRAM_ID;

/// Where one packet's signature material lies, as offsets into its data.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PacketOffsets {
    /// Signatures, each with the signer key at the same position in the key list.
    pub signatures: usize,
    pub signature_start: usize,
    /// The signed message: from here to the end of the packet's data.
    pub message_start: usize,
    pub key_start: usize,
    /// Keys in the message's static list (at least `signatures`).
    pub keys: usize,
    /// Top-level instructions, and where the first one starts.
    pub instructions: usize,
    pub instruction_start: usize,
}

/// Why solana-perf finds no signatures in a packet (its `PacketError`, less the two
/// variants it never returns here). The stage discards such a packet.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum OffsetError {
    /// A bound past the packet, or an instruction count that does not decode.
    Length,
    /// The signature count or the key count does not decode as a compact-u16.
    ShortVec,
    /// The message does not begin inside the packet, or its header does not fit.
    SignatureLength,
    /// `num_required_signatures` differs from the signature count.
    SignatureCountMismatch,
    /// `num_required_signatures ≤ num_readonly_signed`: the fee payer is read-only.
    PayerNotWritable,
    /// The keys overrun the packet, or there are fewer keys than signatures.
    KeyCount,
    /// A versioned message other than v0.
    UnsupportedVersion,
    /// More than 64 top-level instructions.
    TooManyInstructions,
}

/// The compact-u16 at `data[at..]`, as solana-short-vec's `decode_shortu16_len` reads it
/// (linesig's decoder rejects exactly what it rejects: aliases, a continuing third byte,
/// values above `u16::MAX`, a short buffer).
fn compact_u16_at(data: &[u8], at: usize) -> Option<(usize, usize)> {
    let bytes = data.get(at..)?;
    compact_u16::decode(bytes)
        .ok()
        .map(|(value, len)| (usize::from(value), len))
}

/// `value` if it is at most `size`: a bound solana-perf checks against `meta.size`.
fn within(value: Option<usize>, size: usize) -> Option<usize> {
    value.filter(|v| *v <= size)
}

/// The offsets of a packet whose data accessor shows `data` and whose `meta.size` is
/// `size`, by solana-perf's rules in their order (the first rule broken is the error).
pub fn packet_offsets(data: &[u8], size: usize) -> Result<PacketOffsets, OffsetError> {
    use OffsetError::*;
    // One signature and its count, at the least.
    within(Some(1 + SIGNATURE_LEN), size).ok_or(Length)?;
    let (signatures, count_len) = compact_u16_at(data, 0).ok_or(ShortVec)?;
    // Where the message would start if the count is right; the header check below is
    // what ties the count to the message.
    let message_start = signatures
        .checked_mul(SIGNATURE_LEN)
        .and_then(|v| v.checked_add(count_len))
        .ok_or(Length)?;
    if message_start >= size {
        return Err(SignatureLength);
    }
    let prefix = *data.get(message_start).ok_or(SignatureLength)?;
    let header = if prefix & VERSION_PREFIX == 0 {
        message_start
    } else if prefix & !VERSION_PREFIX == 0 {
        message_start + 1
    } else {
        return Err(UnsupportedVersion);
    };
    within(Some(header + 1 + MESSAGE_HEADER_LEN), size).ok_or(SignatureLength)?;
    let required = *data.get(header).ok_or(SignatureLength)?;
    let readonly_signed = *data.get(header + 1).ok_or(SignatureLength)?;
    if required <= readonly_signed {
        return Err(PayerNotWritable);
    }
    if usize::from(required) != signatures {
        return Err(SignatureCountMismatch);
    }
    let key_count_at = header + MESSAGE_HEADER_LEN;
    let (keys, key_count_len) = compact_u16_at(data, key_count_at).ok_or(ShortVec)?;
    let key_start = key_count_at + key_count_len;
    let blockhash_at = within(
        keys.checked_mul(KEY_LEN)
            .and_then(|v| v.checked_add(key_start)),
        size,
    )
    .ok_or(KeyCount)?;
    if keys < signatures {
        return Err(KeyCount);
    }
    let instruction_count_at = blockhash_at + BLOCKHASH_LEN;
    within(Some(instruction_count_at + 1), size).ok_or(Length)?;
    let (instructions, instruction_count_len) =
        compact_u16_at(data, instruction_count_at).ok_or(Length)?;
    if instructions > MAX_INSTRUCTIONS {
        return Err(TooManyInstructions);
    }
    let instruction_start = instruction_count_at + instruction_count_len;
    // One byte at least: the first instruction's program index.
    within(Some(instruction_start + 1), size).ok_or(Length)?;
    Ok(PacketOffsets {
        signatures,
        signature_start: count_len,
        message_start,
        key_start,
        keys,
        instructions,
        instruction_start,
    })
}

/// Whether solana-perf marks the packet a simple vote (`PacketFlags::SIMPLE_VOTE_TX`):
/// a legacy message with one or two signatures and exactly one instruction, whose
/// program is the vote program. Nothing else of the instruction is read.
pub fn is_simple_vote(data: &[u8], offsets: &PacketOffsets) -> bool {
    if offsets.signatures > 2 {
        return false;
    }
    // Versioned messages are never simple votes (the prefix byte exists: the offsets
    // were found by reading it).
    if data
        .get(offsets.message_start)
        .is_none_or(|prefix| prefix & VERSION_PREFIX != 0)
    {
        return false;
    }
    if offsets.instructions != 1 {
        return false;
    }
    let Some(&program) = data.get(offsets.instruction_start) else {
        return false;
    };
    let program = usize::from(program);
    if program >= offsets.keys {
        return false;
    }
    let at = offsets.key_start + program * KEY_LEN;
    data.get(at..at + KEY_LEN) == Some(&VOTE_PROGRAM_ID[..])
}

/// The `i`-th signature, its signer's key and the signed message, as solana-perf reads
/// them for verification (`None` where it finds no bytes, which discards the packet).
pub fn signed_parts<'a>(
    data: &'a [u8],
    offsets: &PacketOffsets,
    i: usize,
) -> Option<(&'a [u8], &'a [u8], &'a [u8])> {
    offsets.parts(data.len()).get(data, i)
}

impl PacketOffsets {
    /// The parts to verify, in data of `data_len` bytes: 4.0 signs the message from its
    /// first byte to the end of what the accessor shows.
    pub(crate) fn parts(&self, data_len: usize) -> SignedParts {
        SignedParts {
            signatures: self.signatures,
            signature_start: self.signature_start,
            key_start: self.key_start,
            message_start: self.message_start,
            message_end: data_len.max(self.message_start),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use linesig::wire::build::{Instruction, Message};
    use linesig::wire::Version;

    fn transfer(version: Version, signers: u8) -> Vec<u8> {
        let keys: Vec<[u8; 32]> = (0..signers + 2).map(|k| [k + 1; 32]).collect();
        let mut message = Message::new(version, keys, signers);
        message.instructions.push(Instruction {
            program: signers + 1,
            accounts: vec![0, signers],
            data: vec![2, 0, 0, 0],
        });
        message.to_packet(&vec![[9u8; 64]; usize::from(signers)])
    }

    #[test]
    fn finds_each_part_of_a_legacy_and_a_v0_transaction() {
        for (version, header) in [(Version::Legacy, 129), (Version::V0, 130)] {
            let packet = transfer(version, 2);
            let o = packet_offsets(&packet, packet.len()).unwrap();
            assert_eq!(o.signatures, 2);
            assert_eq!(o.signature_start, 1);
            assert_eq!(o.message_start, 129);
            assert_eq!(o.key_start, header + 4);
            assert_eq!(o.keys, 4);
            assert_eq!(o.instructions, 1);
            let (sig, key, msg) = signed_parts(&packet, &o, 1).unwrap();
            assert_eq!(sig, &[9u8; 64][..]);
            assert_eq!(key, &[2u8; 32][..]);
            assert_eq!(msg, &packet[129..]);
        }
    }

    #[test]
    fn every_rule_has_its_error() {
        use OffsetError::*;
        let good = transfer(Version::Legacy, 1);
        let size = good.len();
        let with = |at: usize, byte: u8| {
            let mut p = good.clone();
            p[at] = byte;
            packet_offsets(&p, size)
        };
        assert_eq!(packet_offsets(&good[..64], 64), Err(Length));
        let mut alias = good.clone();
        alias[..2].copy_from_slice(&[0x81, 0]); // 1, spelt in two bytes
        assert_eq!(packet_offsets(&alias, size), Err(ShortVec));
        assert_eq!(with(0, 30), Err(SignatureLength)); // 30 signatures overrun the packet
        assert_eq!(with(65, 0x81), Err(UnsupportedVersion));
        assert_eq!(with(66, 1), Err(PayerNotWritable));
        assert_eq!(with(65, 2), Err(SignatureCountMismatch));
        assert_eq!(with(68, 0), Err(KeyCount)); // fewer keys than signatures
        assert_eq!(with(68, 60), Err(KeyCount)); // keys past the packet
        let instruction_count_at = 69 + 3 * 32 + 32;
        assert_eq!(with(instruction_count_at, 65), Err(TooManyInstructions));
        let mut alias = good.clone();
        alias[instruction_count_at..][..2].copy_from_slice(&[0x81, 0]);
        assert_eq!(packet_offsets(&alias, size), Err(Length));
        // The message ends at the instruction count: no program index byte.
        assert_eq!(
            packet_offsets(&good[..instruction_count_at + 1], instruction_count_at + 1),
            Err(Length)
        );
        // A sanitizer would reject trailing bytes; sigverify does not read them.
        let mut long = good.clone();
        long.extend_from_slice(&[0xff; 40]);
        assert!(packet_offsets(&long, long.len()).is_ok());
    }

    #[test]
    fn a_simple_vote_is_legacy_one_instruction_to_the_vote_program() {
        let keys = vec![[1; 32], [2; 32], VOTE_PROGRAM_ID];
        let mut message = Message::new(Version::Legacy, keys, 1);
        message.instructions.push(Instruction {
            program: 2,
            accounts: vec![1, 0],
            data: vec![0; 8],
        });
        let vote = message.to_packet(&[[5; 64]]);
        let o = packet_offsets(&vote, vote.len()).unwrap();
        assert!(is_simple_vote(&vote, &o));
        let mut two = message.clone();
        two.instructions.push(two.instructions[0].clone());
        let p = two.to_packet(&[[5; 64]]);
        assert!(!is_simple_vote(&p, &packet_offsets(&p, p.len()).unwrap()));
        let mut v0 = message.clone();
        v0.version = Version::V0;
        let p = v0.to_packet(&[[5; 64]]);
        assert!(!is_simple_vote(&p, &packet_offsets(&p, p.len()).unwrap()));
        let p = transfer(Version::Legacy, 1);
        assert!(!is_simple_vote(&p, &packet_offsets(&p, p.len()).unwrap()));
    }

    #[test]
    fn bytes_past_meta_size_are_read_as_the_accessor_shows_them() {
        let packet = transfer(Version::Legacy, 1);
        // `meta.size` shorter than the buffer (a `BytesPacket`): bounds use the size…
        assert!(packet_offsets(&packet, 64).is_err());
        // …and the message runs to the end of what the accessor shows.
        let size = packet.len() - 5;
        let o = packet_offsets(&packet, size).unwrap();
        assert_eq!(
            signed_parts(&packet, &o, 0).unwrap().2.len(),
            packet.len() - 65
        );
        // `meta.size` past the buffer: a bound passes, the byte is missing.
        assert!(packet_offsets(&packet[..70], packet.len()).is_err());
    }
}
