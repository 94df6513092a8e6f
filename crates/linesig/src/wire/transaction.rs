//! The transaction parser: packet bytes → a borrowed view with the offsets of every
//! signature, signer key and the signed message, after Agave's sanitize rules
//! (docs/design.md §5). No I/O, no copies; every read is bounds-checked by [`Cursor`].

use super::compact_u16;
use super::error::{PrecompileRule, WireError};
use crate::item::Item;
use std::ops::Range;

/// Largest legacy or v0 packet (IPv6 minimum MTU less headers).
pub const PACKET_DATA_SIZE: usize = 1232;
/// Largest v1 transaction (SIMD-0385).
pub const V1_MAX_SIZE: usize = 4096;
/// Most signatures one transaction may carry (Agave; SIMD-0385 keeps it).
pub const MAX_SIGNATURES: usize = 12;
/// Account indices are `u8`, so a legacy or v0 transaction names at most 256 accounts.
pub const MAX_ACCOUNTS: usize = 256;
/// SIMD-0385 limits for v1.
pub const V1_MAX_ACCOUNTS: usize = 64;
pub const V1_MAX_INSTRUCTIONS: usize = 64;

pub const SIGNATURE_LEN: usize = 64;
pub const KEY_LEN: usize = 32;
const BLOCKHASH_LEN: usize = 32;
const V0_PREFIX: u8 = 0x80;
const V1_PREFIX: u8 = 0x81;

/// `Ed25519SigVerify111111111111111111111111111`, the Ed25519 precompile's program id.
pub const ED25519_PROGRAM_ID: [u8; 32] = [
    0x03, 0x7d, 0x46, 0xd6, 0x7c, 0x93, 0xfb, 0xbe, 0x12, 0xf9, 0x42, 0x8f, 0x83, 0x8d, 0x40, 0xff,
    0x05, 0x70, 0x74, 0x49, 0x27, 0xf4, 0x8a, 0x64, 0xfc, 0xca, 0x70, 0x44, 0x80, 0x00, 0x00, 0x00,
];

/// The precompile's instruction data: u8 count, u8 padding, then one 14-byte record of
/// seven little-endian u16 per signature.
const PRECOMPILE_HEADER_LEN: usize = 2;
const PRECOMPILE_RECORD_LEN: usize = 14;
/// An instruction index of `u16::MAX` in a record means "this instruction's own data".
const PRECOMPILE_SELF: u16 = u16::MAX;

/// Transaction format.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Version {
    Legacy,
    V0,
    V1,
}

impl Version {
    pub fn name(self) -> &'static str {
        match self {
            Version::Legacy => "legacy",
            Version::V0 => "v0",
            Version::V1 => "v1",
        }
    }
}

/// What the parser accepts and extracts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ParseOptions {
    /// Accept v1 (SIMD-0385) transactions; off, they are malformed (`v1_not_accepted`).
    pub accept_v1: bool,
    /// Also extract the signatures of Ed25519 precompile instructions, to be verified
    /// with the `Strict` policy. A malformed precompile instruction then makes the
    /// packet malformed (Agave would fail it at execution instead).
    pub precompile: bool,
}

impl Default for ParseOptions {
    fn default() -> Self {
        ParseOptions {
            accept_v1: true,
            precompile: false,
        }
    }
}

/// One Ed25519 precompile signature, as ranges of the packet.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PrecompileSignature {
    /// Index of the precompile instruction that names it.
    pub instruction: usize,
    pub signature: Range<usize>,
    pub public_key: Range<usize>,
    pub message: Range<usize>,
}

/// Where one triple lies in its packet.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ItemRanges {
    pub signature: Range<usize>,
    pub public_key: Range<usize>,
    pub message: Range<usize>,
    /// From an Ed25519 precompile instruction: verify with `Strict` whatever the
    /// transaction policy, as Agave's precompile does.
    pub precompile: bool,
}

/// A sanitized transaction: offsets into the packet it was parsed from.
#[derive(Clone, Debug)]
pub struct Transaction<'a> {
    packet: &'a [u8],
    version: Version,
    signatures: usize,
    signature_count: usize,
    account_keys: usize,
    message: Range<usize>,
    precompile: Vec<PrecompileSignature>,
}

impl<'a> Transaction<'a> {
    pub fn version(&self) -> Version {
        self.version
    }

    pub fn packet(&self) -> &'a [u8] {
        self.packet
    }

    /// Signatures the transaction itself carries (one per required signer).
    pub fn signature_count(&self) -> usize {
        self.signature_count
    }

    pub fn signature(&self, i: usize) -> &'a [u8] {
        let at = self.signatures + i * SIGNATURE_LEN;
        &self.packet[at..at + SIGNATURE_LEN]
    }

    /// The key that must have made signature `i`: account key `i`.
    pub fn signer(&self, i: usize) -> &'a [u8] {
        let at = self.account_keys + i * KEY_LEN;
        &self.packet[at..at + KEY_LEN]
    }

    /// The bytes every transaction signature signs.
    pub fn message(&self) -> &'a [u8] {
        &self.packet[self.message.clone()]
    }

    pub fn precompile_signatures(&self) -> &[PrecompileSignature] {
        &self.precompile
    }

    /// Every (signature, key, message) triple to verify: the transaction's own signatures
    /// in signer order, then the precompile's, in instruction and record order.
    pub fn items(&self) -> impl Iterator<Item = Item<'a>> + '_ {
        let packet = self.packet;
        self.item_ranges().map(move |r| {
            Item::new(
                &packet[r.public_key],
                &packet[r.message],
                &packet[r.signature],
            )
        })
    }

    /// [`Transaction::items`] as packet ranges, for callers that keep the packet and
    /// verify later (a pipeline batch).
    pub fn item_ranges(&self) -> impl Iterator<Item = ItemRanges> + '_ {
        let own = (0..self.signature_count).map(|i| {
            let signature = self.signatures + i * SIGNATURE_LEN;
            let key = self.account_keys + i * KEY_LEN;
            ItemRanges {
                signature: signature..signature + SIGNATURE_LEN,
                public_key: key..key + KEY_LEN,
                message: self.message.clone(),
                precompile: false,
            }
        });
        let extra = self.precompile.iter().map(|p| ItemRanges {
            signature: p.signature.clone(),
            public_key: p.public_key.clone(),
            message: p.message.clone(),
            precompile: true,
        });
        own.chain(extra)
    }

    /// Number of triples [`Transaction::items`] yields.
    pub fn item_count(&self) -> usize {
        self.signature_count + self.precompile.len()
    }
}

/// Parse and sanitize one packet.
pub fn parse(packet: &[u8], options: ParseOptions) -> Result<Transaction<'_>, WireError> {
    match packet.first() {
        None => Err(WireError::Empty),
        // A legacy/v0 signature count of 1..=12 is one byte below 0x80, so 0x81 first is v1.
        Some(&V1_PREFIX) if options.accept_v1 => parse_v1(packet, options),
        Some(&V1_PREFIX) => Err(WireError::V1NotAccepted),
        Some(_) => parse_legacy_or_v0(packet, options),
    }
}

/// An instruction's parts as packet ranges.
struct InstructionView {
    program: u8,
    accounts: Range<usize>,
    data: Range<usize>,
}

/// A bounds-checked reader: every read either returns in-bounds bytes or names the field
/// the packet ended in.
struct Cursor<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl<'a> Cursor<'a> {
    /// A reader at `at` over a packet of at most `max` bytes.
    fn new(bytes: &'a [u8], max: usize, at: usize) -> Result<Self, WireError> {
        if bytes.len() > max {
            return Err(WireError::TooLarge {
                len: bytes.len(),
                max,
            });
        }
        Ok(Cursor { bytes, at })
    }

    fn take(&mut self, len: usize, field: &'static str) -> Result<Range<usize>, WireError> {
        if len > self.bytes.len() - self.at {
            return Err(WireError::Truncated { field });
        }
        let range = self.at..self.at + len;
        self.at += len;
        Ok(range)
    }

    fn u8(&mut self, field: &'static str) -> Result<u8, WireError> {
        let range = self.take(1, field)?;
        Ok(self.bytes[range.start])
    }

    fn u16_le(&mut self, field: &'static str) -> Result<u16, WireError> {
        let r = self.take(2, field)?;
        Ok(u16::from_le_bytes([
            self.bytes[r.start],
            self.bytes[r.start + 1],
        ]))
    }

    fn u32_le(&mut self, field: &'static str) -> Result<u32, WireError> {
        let r = self.take(4, field)?;
        let b = &self.bytes[r];
        Ok(u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
    }

    fn compact_u16(&mut self, field: &'static str) -> Result<usize, WireError> {
        let (value, len) =
            compact_u16::decode(&self.bytes[self.at..]).map_err(|e| WireError::length(field, e))?;
        self.at += len;
        Ok(usize::from(value))
    }

    /// A compact-u16 length followed by that many bytes.
    fn short_vec(&mut self, field: &'static str) -> Result<Range<usize>, WireError> {
        let len = self.compact_u16(field)?;
        self.take(len, field)
    }

    fn finish(&self) -> Result<(), WireError> {
        match self.bytes.len() - self.at {
            0 => Ok(()),
            n => Err(WireError::TrailingBytes(n)),
        }
    }
}

fn check_signature_count(count: usize) -> Result<(), WireError> {
    if (1..=MAX_SIGNATURES).contains(&count) {
        Ok(())
    } else {
        Err(WireError::SignatureCount {
            count,
            max: MAX_SIGNATURES,
        })
    }
}

/// The legacy header rules shared by every version: `(required, readonly_signed,
/// readonly_unsigned)` against the static key count.
fn check_header(header: [u8; 3], keys: usize) -> Result<(), WireError> {
    let [required, readonly_signed, readonly_unsigned] = header.map(usize::from);
    if readonly_signed >= required {
        return Err(WireError::ReadonlyFeePayer {
            readonly: readonly_signed,
            required,
        });
    }
    if required + readonly_unsigned > keys {
        return Err(WireError::TooFewAccountKeys {
            keys,
            required,
            readonly_unsigned,
        });
    }
    Ok(())
}

/// Program indices name a static key other than the fee payer; account indices any
/// loaded account.
fn check_indices(
    packet: &[u8],
    instructions: &[InstructionView],
    static_keys: usize,
    total_accounts: usize,
) -> Result<(), WireError> {
    for (i, ix) in instructions.iter().enumerate() {
        if ix.program == 0 || usize::from(ix.program) >= static_keys {
            return Err(WireError::ProgramIndex {
                instruction: i,
                index: ix.program,
            });
        }
        if let Some(&bad) = packet[ix.accounts.clone()]
            .iter()
            .find(|&&a| usize::from(a) >= total_accounts)
        {
            return Err(WireError::AccountIndex {
                instruction: i,
                index: bad,
            });
        }
    }
    Ok(())
}

fn parse_legacy_or_v0(packet: &[u8], options: ParseOptions) -> Result<Transaction<'_>, WireError> {
    let mut c = Cursor::new(packet, PACKET_DATA_SIZE, 0)?;
    let signature_count = c.compact_u16("signature count")?;
    check_signature_count(signature_count)?;
    let signatures = c.take(signature_count * SIGNATURE_LEN, "signatures")?.start;
    let message_start = c.at;

    let first = c.u8("message header")?;
    let version = if first & 0x80 == 0 {
        Version::Legacy
    } else if first == V0_PREFIX {
        Version::V0
    } else {
        return Err(WireError::UnsupportedVersion(first));
    };
    let required = if version == Version::Legacy {
        first
    } else {
        c.u8("message header")?
    };
    let header = [required, c.u8("message header")?, c.u8("message header")?];
    if usize::from(required) != signature_count {
        return Err(WireError::SignatureCountMismatch {
            header: usize::from(required),
            carried: signature_count,
        });
    }
    let key_count = c.compact_u16("account key count")?;
    check_header(header, key_count)?;
    let account_keys = c.take(key_count * KEY_LEN, "account keys")?.start;
    c.take(BLOCKHASH_LEN, "recent blockhash")?;

    let instruction_count = c.compact_u16("instruction count")?;
    let mut instructions = Vec::with_capacity(instruction_count.min(64));
    for _ in 0..instruction_count {
        let program = c.u8("instruction program index")?;
        let accounts = c.short_vec("instruction accounts")?;
        let data = c.short_vec("instruction data")?;
        instructions.push(InstructionView {
            program,
            accounts,
            data,
        });
    }

    let mut lookup_accounts = 0usize;
    if version == Version::V0 {
        let table_count = c.compact_u16("address table lookup count")?;
        for table in 0..table_count {
            c.take(KEY_LEN, "address table key")?;
            let writable = c.short_vec("address table writable indices")?;
            let readonly = c.short_vec("address table readonly indices")?;
            let loaded = writable.len() + readonly.len();
            if loaded == 0 {
                return Err(WireError::EmptyLookup { table });
            }
            lookup_accounts += loaded;
        }
    }
    c.finish()?;

    let total_accounts = key_count + lookup_accounts;
    if total_accounts > MAX_ACCOUNTS {
        return Err(WireError::TooManyAccounts {
            count: total_accounts,
            max: MAX_ACCOUNTS,
        });
    }
    check_indices(packet, &instructions, key_count, total_accounts)?;
    let tx = Transaction {
        packet,
        version,
        signatures,
        signature_count,
        account_keys,
        message: message_start..packet.len(),
        precompile: Vec::new(),
    };
    tx.with_precompile(&instructions, options)
}

/// SIMD-0385: `0x81 · header(3) · config mask u32 · lifetime(32) · n_instr u8 ·
/// n_addr u8 · addresses · config values (4 B per mask bit) · instruction headers
/// (u8 program, u8 accounts, u16 data length) · payloads · signatures (64 B × required)`.
fn parse_v1(packet: &[u8], options: ParseOptions) -> Result<Transaction<'_>, WireError> {
    // Past the version byte `parse` already read.
    let mut c = Cursor::new(packet, V1_MAX_SIZE, 1)?;
    let header = [
        c.u8("message header")?,
        c.u8("message header")?,
        c.u8("message header")?,
    ];
    let signature_count = usize::from(header[0]);
    check_signature_count(signature_count)?;
    let mask = c.u32_le("config mask")?;
    c.take(BLOCKHASH_LEN, "lifetime specifier")?;
    let instruction_count = usize::from(c.u8("instruction count")?);
    let address_count = usize::from(c.u8("address count")?);
    if instruction_count > V1_MAX_INSTRUCTIONS {
        return Err(WireError::TooManyInstructions {
            count: instruction_count,
            max: V1_MAX_INSTRUCTIONS,
        });
    }
    if address_count > V1_MAX_ACCOUNTS {
        return Err(WireError::TooManyAccounts {
            count: address_count,
            max: V1_MAX_ACCOUNTS,
        });
    }
    check_header(header, address_count)?;
    let account_keys = c.take(address_count * KEY_LEN, "addresses")?.start;
    let keys: Vec<&[u8]> = packet[account_keys..account_keys + address_count * KEY_LEN]
        .chunks_exact(KEY_LEN)
        .collect();
    for (i, key) in keys.iter().enumerate() {
        if keys[..i].contains(key) {
            return Err(WireError::DuplicateAddress { index: i });
        }
    }

    // Bits 0–1: priority fee (u64, both or neither); 2: CU limit; 3: loaded data size;
    // 4: heap size; each set bit owns one 4-byte value, in bit order. Other bits are
    // reserved: the SDK's decoder rejects them, so the parser does too.
    const PRIORITY_FEE_BITS: u32 = 0b11;
    const HEAP_SIZE_BIT: u32 = 1 << 4;
    const KNOWN_BITS: u32 = 0b1_1111;
    if mask & !KNOWN_BITS != 0 {
        return Err(WireError::UnknownConfigBits(mask & !KNOWN_BITS));
    }
    if mask & PRIORITY_FEE_BITS != 0 && mask & PRIORITY_FEE_BITS != PRIORITY_FEE_BITS {
        return Err(WireError::PriorityFeeMask);
    }
    let config = c.take(4 * mask.count_ones() as usize, "config values")?;
    if mask & HEAP_SIZE_BIT != 0 {
        let at = config.start + 4 * (mask & (HEAP_SIZE_BIT - 1)).count_ones() as usize;
        let heap = u32::from_le_bytes([packet[at], packet[at + 1], packet[at + 2], packet[at + 3]]);
        if !heap.is_multiple_of(1024) || !(32 * 1024..=256 * 1024).contains(&heap) {
            return Err(WireError::HeapSize(heap));
        }
    }

    let mut shapes = Vec::with_capacity(instruction_count);
    for _ in 0..instruction_count {
        let program = c.u8("instruction headers")?;
        let accounts = usize::from(c.u8("instruction headers")?);
        let data = usize::from(c.u16_le("instruction headers")?);
        shapes.push((program, accounts, data));
    }
    let mut instructions = Vec::with_capacity(instruction_count);
    for (program, accounts, data) in shapes {
        instructions.push(InstructionView {
            program,
            accounts: c.take(accounts, "instruction payloads")?,
            data: c.take(data, "instruction payloads")?,
        });
    }
    let message_end = c.at;
    let signatures = c.take(signature_count * SIGNATURE_LEN, "signatures")?.start;
    c.finish()?;
    check_indices(packet, &instructions, address_count, address_count)?;
    let tx = Transaction {
        packet,
        version: Version::V1,
        signatures,
        signature_count,
        account_keys,
        message: 0..message_end,
        precompile: Vec::new(),
    };
    tx.with_precompile(&instructions, options)
}

impl Transaction<'_> {
    /// Attach the precompile's signatures when the options ask for them.
    fn with_precompile(
        mut self,
        instructions: &[InstructionView],
        options: ParseOptions,
    ) -> Result<Self, WireError> {
        if options.precompile {
            self.precompile = precompile_signatures(self.packet, self.account_keys, instructions)?;
        }
        Ok(self)
    }
}

/// The signatures named by every Ed25519 precompile instruction, as Agave's
/// `ed25519_program::verify` reads them: offsets may point into any instruction's data.
fn precompile_signatures(
    packet: &[u8],
    account_keys: usize,
    instructions: &[InstructionView],
) -> Result<Vec<PrecompileSignature>, WireError> {
    let mut out = Vec::new();
    for (index, ix) in instructions.iter().enumerate() {
        // Program indices were checked to name static keys.
        let at = account_keys + usize::from(ix.program) * KEY_LEN;
        if packet[at..at + KEY_LEN] != ED25519_PROGRAM_ID {
            continue;
        }
        let fail = |rule| WireError::Precompile {
            instruction: index,
            rule,
        };
        let data = &packet[ix.data.clone()];
        if data.len() < PRECOMPILE_HEADER_LEN {
            return Err(fail(PrecompileRule::DataSize));
        }
        let count = usize::from(data[0]);
        if count == 0 && data.len() > PRECOMPILE_HEADER_LEN {
            return Err(fail(PrecompileRule::DataSize));
        }
        if data.len() < PRECOMPILE_HEADER_LEN + count * PRECOMPILE_RECORD_LEN {
            return Err(fail(PrecompileRule::DataSize));
        }
        for record in 0..count {
            let start = PRECOMPILE_HEADER_LEN + record * PRECOMPILE_RECORD_LEN;
            let field =
                |k: usize| u16::from_le_bytes([data[start + 2 * k], data[start + 2 * k + 1]]);
            // (offset, instruction) pairs, then the message size; see Agave's
            // `Ed25519SignatureOffsets`.
            let slice = |offset: u16, instruction: u16, len: usize| {
                let source = if instruction == PRECOMPILE_SELF {
                    &ix.data
                } else {
                    &instructions
                        .get(usize::from(instruction))
                        .ok_or(fail(PrecompileRule::DataOffsets))?
                        .data
                };
                let start = usize::from(offset);
                if start + len > source.len() {
                    return Err(fail(PrecompileRule::DataOffsets));
                }
                Ok(source.start + start..source.start + start + len)
            };
            let signature = slice(field(0), field(1), SIGNATURE_LEN)?;
            let public_key = slice(field(2), field(3), KEY_LEN)?;
            let message = slice(field(4), field(6), usize::from(field(5)))?;
            out.push(PrecompileSignature {
                instruction: index,
                signature,
                public_key,
                message,
            });
        }
    }
    Ok(out)
}
