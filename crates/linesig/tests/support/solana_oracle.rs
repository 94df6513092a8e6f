//! The Solana SDK as the oracle for the packet parser: its own decoder (`wincode`) and
//! sanitizer, plus the limits the SDK leaves to other stages. Shared by `tests/wire.rs`
//! and the `wire_parse` fuzz target (`fuzz/`), so both judge by the same rule.

use solana_message::VersionedMessage;
use solana_transaction::versioned::VersionedTransaction;

/// The SDK's verdict plus the limits it leaves to other stages (docs/design.md §5; SIMD-0385
/// for v1): the packet size, 12 signatures, and v1's account, instruction, duplicate and
/// heap-size rules.
pub fn oracle_accepts(packet: &[u8]) -> bool {
    let Ok(tx) = wincode::deserialize::<VersionedTransaction>(packet) else {
        return false;
    };
    // Trailing or non-canonical bytes: the decoder stops early or normalises.
    if wincode::serialize(&tx).ok().as_deref() != Some(packet) {
        return false;
    }
    if tx.sanitize().is_err() || tx.signatures.is_empty() || tx.signatures.len() > 12 {
        return false;
    }
    match &tx.message {
        VersionedMessage::Legacy(_) | VersionedMessage::V0(_) => packet.len() <= 1232,
        VersionedMessage::V1(m) => {
            let keys = &m.account_keys;
            let unique = (0..keys.len()).all(|i| !keys[..i].contains(&keys[i]));
            let heap_ok = m
                .config
                .heap_size
                .is_none_or(|h| h % 1024 == 0 && (32 * 1024..=256 * 1024).contains(&h));
            packet.len() <= 4096
                && keys.len() <= 64
                && m.instructions.len() <= 64
                && unique
                && heap_ok
        }
    }
}
