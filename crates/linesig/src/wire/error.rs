//! Why a packet is malformed: one variant per sanitize rule, so a counter or a log line
//! names the rule a packet broke.

use super::compact_u16::CompactU16Error;

/// A packet that is not a well-formed transaction under the rules of docs/design.md §5
/// (Agave's sanitizer; SIMD-0385 for v1). Such a packet is dropped before verification.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum WireError {
    #[error("empty packet")]
    Empty,
    #[error("packet of {len} bytes exceeds the {max}-byte limit")]
    TooLarge { len: usize, max: usize },
    #[error("packet ends inside {field}")]
    Truncated { field: &'static str },
    #[error("{field}: non-canonical compact-u16")]
    NonCanonicalLength { field: &'static str },
    #[error("{field}: compact-u16 above u16::MAX")]
    LengthOverflow { field: &'static str },
    #[error("{count} signatures (1 to {max} allowed)")]
    SignatureCount { count: usize, max: usize },
    #[error("message version byte {0:#04x} is not legacy, v0 or v1")]
    UnsupportedVersion(u8),
    #[error("v1 transactions are not accepted by this parser's options")]
    V1NotAccepted,
    #[error("header requires {header} signatures but the packet carries {carried}")]
    SignatureCountMismatch { header: usize, carried: usize },
    #[error("{readonly} read-only signers of {required}: the fee payer must be writable")]
    ReadonlyFeePayer { readonly: usize, required: usize },
    #[error("{keys} account keys cannot hold {required} signers and {readonly_unsigned} read-only unsigned accounts")]
    TooFewAccountKeys {
        keys: usize,
        required: usize,
        readonly_unsigned: usize,
    },
    #[error("{count} accounts (at most {max})")]
    TooManyAccounts { count: usize, max: usize },
    #[error("{count} instructions (at most {max})")]
    TooManyInstructions { count: usize, max: usize },
    #[error("instruction {instruction}: program index {index} is the fee payer or out of range")]
    ProgramIndex { instruction: usize, index: u8 },
    #[error("instruction {instruction}: account index {index} out of range")]
    AccountIndex { instruction: usize, index: u8 },
    #[error("address table lookup {table} loads no accounts")]
    EmptyLookup { table: usize },
    #[error("v1 address {index} appears twice")]
    DuplicateAddress { index: usize },
    #[error("v1 config mask sets reserved bits {0:#x}")]
    UnknownConfigBits(u32),
    #[error("v1 config mask sets only one of the two priority-fee bits")]
    PriorityFeeMask,
    #[error("v1 requested heap size {0} is not a multiple of 1 KiB in [32 KiB, 256 KiB]")]
    HeapSize(u32),
    #[error("{0} bytes after the transaction")]
    TrailingBytes(usize),
    #[error("Ed25519 precompile instruction {instruction}: {rule}")]
    Precompile {
        instruction: usize,
        rule: PrecompileRule,
    },
}

/// What is wrong with an Ed25519 precompile instruction (Agave's `PrecompileError`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
pub enum PrecompileRule {
    #[error("instruction data too short for its signature count")]
    DataSize,
    #[error("an offset record points outside its instruction data")]
    DataOffsets,
}

impl WireError {
    /// The rule's name in snake_case, for counters and JSON.
    pub fn rule(&self) -> &'static str {
        match self {
            WireError::Empty => "empty",
            WireError::TooLarge { .. } => "too_large",
            WireError::Truncated { .. } => "truncated",
            WireError::NonCanonicalLength { .. } => "non_canonical_length",
            WireError::LengthOverflow { .. } => "length_overflow",
            WireError::SignatureCount { .. } => "signature_count",
            WireError::UnsupportedVersion(_) => "unsupported_version",
            WireError::V1NotAccepted => "v1_not_accepted",
            WireError::SignatureCountMismatch { .. } => "signature_count_mismatch",
            WireError::ReadonlyFeePayer { .. } => "readonly_fee_payer",
            WireError::TooFewAccountKeys { .. } => "too_few_account_keys",
            WireError::TooManyAccounts { .. } => "too_many_accounts",
            WireError::TooManyInstructions { .. } => "too_many_instructions",
            WireError::ProgramIndex { .. } => "program_index",
            WireError::AccountIndex { .. } => "account_index",
            WireError::EmptyLookup { .. } => "empty_lookup",
            WireError::DuplicateAddress { .. } => "duplicate_address",
            WireError::UnknownConfigBits(_) => "unknown_config_bits",
            WireError::PriorityFeeMask => "priority_fee_mask",
            WireError::HeapSize(_) => "heap_size",
            WireError::TrailingBytes(_) => "trailing_bytes",
            WireError::Precompile {
                rule: PrecompileRule::DataSize,
                ..
            } => "precompile_data_size",
            WireError::Precompile {
                rule: PrecompileRule::DataOffsets,
                ..
            } => "precompile_data_offsets",
        }
    }

    pub(super) fn length(field: &'static str, e: CompactU16Error) -> WireError {
        match e {
            CompactU16Error::Truncated => WireError::Truncated { field },
            CompactU16Error::NonCanonical => WireError::NonCanonicalLength { field },
            CompactU16Error::Overflow => WireError::LengthOverflow { field },
        }
    }
}
