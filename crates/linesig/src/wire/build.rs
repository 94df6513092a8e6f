//! The encoder: a transaction message → its signed bytes and its packet. The inverse of
//! the parser, for generators (`linesig gen`), fixtures and tests; it writes whatever it
//! is given, including messages the parser rejects, so tests can build every malformed
//! shape on purpose.

use super::compact_u16;
use super::transaction::{Version, SIGNATURE_LEN};

/// One instruction: a program (index into the account keys), its accounts, its data.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Instruction {
    pub program: u8,
    pub accounts: Vec<u8>,
    pub data: Vec<u8>,
}

/// A v0 address table lookup.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct AddressLookup {
    pub table: [u8; 32],
    pub writable: Vec<u8>,
    pub readonly: Vec<u8>,
}

/// A transaction message in any of the three formats.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Message {
    pub version: Version,
    /// `[num_required_signatures, num_readonly_signed, num_readonly_unsigned]`.
    pub header: [u8; 3],
    pub account_keys: Vec<[u8; 32]>,
    pub recent_blockhash: [u8; 32],
    pub instructions: Vec<Instruction>,
    /// v0 only.
    pub lookups: Vec<AddressLookup>,
    /// v1 only: the config mask and one 4-byte value per set bit, in bit order.
    pub config_mask: u32,
    pub config_values: Vec<[u8; 4]>,
}

impl Message {
    /// A message with `signers` writable signers first in `account_keys`.
    pub fn new(version: Version, account_keys: Vec<[u8; 32]>, signers: u8) -> Message {
        Message {
            version,
            header: [signers, 0, 0],
            account_keys,
            recent_blockhash: [0; 32],
            instructions: Vec::new(),
            lookups: Vec::new(),
            config_mask: 0,
            config_values: Vec::new(),
        }
    }

    /// The bytes each signer signs.
    pub fn signed_bytes(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(256);
        match self.version {
            Version::Legacy | Version::V0 => {
                if self.version == Version::V0 {
                    out.push(0x80);
                }
                out.extend_from_slice(&self.header);
                compact_u16::encode(len16(self.account_keys.len()), &mut out);
                self.account_keys
                    .iter()
                    .for_each(|k| out.extend_from_slice(k));
                out.extend_from_slice(&self.recent_blockhash);
                compact_u16::encode(len16(self.instructions.len()), &mut out);
                for ix in &self.instructions {
                    out.push(ix.program);
                    short_vec(&ix.accounts, &mut out);
                    short_vec(&ix.data, &mut out);
                }
                if self.version == Version::V0 {
                    compact_u16::encode(len16(self.lookups.len()), &mut out);
                    for l in &self.lookups {
                        out.extend_from_slice(&l.table);
                        short_vec(&l.writable, &mut out);
                        short_vec(&l.readonly, &mut out);
                    }
                }
            }
            Version::V1 => {
                out.push(0x81);
                out.extend_from_slice(&self.header);
                out.extend_from_slice(&self.config_mask.to_le_bytes());
                out.extend_from_slice(&self.recent_blockhash);
                out.push(self.instructions.len() as u8);
                out.push(self.account_keys.len() as u8);
                self.account_keys
                    .iter()
                    .for_each(|k| out.extend_from_slice(k));
                self.config_values
                    .iter()
                    .for_each(|v| out.extend_from_slice(v));
                for ix in &self.instructions {
                    out.push(ix.program);
                    out.push(ix.accounts.len() as u8);
                    out.extend_from_slice(&(ix.data.len() as u16).to_le_bytes());
                }
                for ix in &self.instructions {
                    out.extend_from_slice(&ix.accounts);
                    out.extend_from_slice(&ix.data);
                }
            }
        }
        out
    }

    /// The packet carrying this message and `signatures` (64 bytes each): count and
    /// signatures before the message for legacy and v0, signatures after it for v1.
    pub fn to_packet(&self, signatures: &[[u8; SIGNATURE_LEN]]) -> Vec<u8> {
        let message = self.signed_bytes();
        packet_from_signed(self.version, &message, signatures)
    }
}

/// Assemble a packet from already-encoded signed bytes.
pub fn packet_from_signed(
    version: Version,
    message: &[u8],
    signatures: &[[u8; SIGNATURE_LEN]],
) -> Vec<u8> {
    let mut out = Vec::with_capacity(3 + message.len() + signatures.len() * SIGNATURE_LEN);
    match version {
        Version::Legacy | Version::V0 => {
            compact_u16::encode(len16(signatures.len()), &mut out);
            signatures.iter().for_each(|s| out.extend_from_slice(s));
            out.extend_from_slice(message);
        }
        Version::V1 => {
            out.extend_from_slice(message);
            signatures.iter().for_each(|s| out.extend_from_slice(s));
        }
    }
    out
}

/// Encoded size of a compact-u16 length prefix.
pub fn compact_len(value: usize) -> usize {
    match value {
        0..0x80 => 1,
        0x80..0x4000 => 2,
        _ => 3,
    }
}

fn len16(len: usize) -> u16 {
    u16::try_from(len).expect("a message field longer than u16::MAX cannot be encoded")
}

fn short_vec(bytes: &[u8], out: &mut Vec<u8>) {
    compact_u16::encode(len16(bytes.len()), out);
    out.extend_from_slice(bytes);
}
