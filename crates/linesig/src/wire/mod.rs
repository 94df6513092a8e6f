//! Solana transaction packets → (signature, public key, signed message) triples.
//!
//! [`parse`] sanitizes a packet the way Agave does before signature verification
//! (docs/design.md §5): legacy and v0 transactions (≤ 1232 bytes, compact-u16 counts) and v1
//! (SIMD-0385, ≤ 4096 bytes, signatures at the end), optionally with the signatures of
//! Ed25519 precompile instructions. A packet that breaks a rule gets a [`WireError`]
//! naming it; nothing here panics on any input. [`build`] is the matching encoder.

pub mod build;
pub mod compact_u16;
mod error;
mod transaction;

pub use error::{PrecompileRule, WireError};
pub use transaction::{
    parse, ItemRanges, ParseOptions, PrecompileSignature, Transaction, Version, ED25519_PROGRAM_ID,
    KEY_LEN, MAX_ACCOUNTS, MAX_SIGNATURES, PACKET_DATA_SIZE, SIGNATURE_LEN, V1_MAX_ACCOUNTS,
    V1_MAX_INSTRUCTIONS, V1_MAX_SIZE,
};
