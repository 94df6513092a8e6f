//! How solana-perf 4.1 and 4.2 read a packet before verifying it (`sigverify::
//! verify_packet`): through Agave's sanitized transaction view, the crate the validator
//! itself parses with, so a packet is verified here exactly when it is there. The view
//! reads legacy, v0 and v1 transactions; v1 (signatures after the message) only when the
//! caller enables it.
//!
//! The two lines differ in one call: 4.1's sanitizer takes the SIMD-406 switch alone,
//! 4.2's a `SanitizeConfig` whose limits solana-perf takes from the runtime's constants
//! (`solana_runtime_transaction::sanitize_config(true)`); `sanitize_config` below builds
//! the same one from the same constants.

use crate::parts::SignedParts;
use crate::VOTE_PROGRAM_ID;
use agave_transaction_view::transaction_version::TransactionVersion;
use agave_transaction_view::transaction_view::SanitizedTransactionView;

/// What sigverify concludes from a packet's bytes before any signature is checked.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Read {
    /// `SIMPLE_VOTE_TX`: a legacy message with at most two signatures and one
    /// instruction, whose program is the vote program.
    pub simple_vote: bool,
    /// The signatures to verify; `None` where sigverify verifies none (no signature)
    /// and so discards the packet.
    pub parts: Option<SignedParts>,
}

/// The view of `data` as solana-perf reads it: `None` where it does not sanitize, or is
/// a v1 transaction and `enable_tx_v1` is false (the packet is discarded, and not
/// marked a vote).
pub(crate) fn read(data: &[u8], enable_tx_v1: bool) -> Option<Read> {
    let view = sanitized(data)?;
    if !enable_tx_v1 && matches!(view.version(), TransactionVersion::V1) {
        return None;
    }
    // Every slice the view hands out lies in `data` (the view borrows it), so these
    // are offsets into it; were one not, `SignedParts::get` would find no bytes and the
    // packet would be discarded, never read out of bounds.
    let base = data.as_ptr() as usize;
    let offset = |p: *const u8| (p as usize).wrapping_sub(base);
    let signatures = view.signatures();
    let keys = view.static_account_keys();
    let message = view.message_data();
    // solana-perf zips the signatures with the static keys: as many as the shorter has
    // (sanitizing makes them one count; the zip is what is verified either way).
    let count = signatures.len().min(keys.len());
    let message_start = offset(message.as_ptr());
    let parts = (count > 0).then(|| SignedParts {
        signatures: count,
        signature_start: offset(signatures.as_ptr().cast()),
        key_start: offset(keys.as_ptr().cast()),
        message_start,
        message_end: message_start + message.len(),
    });
    Some(Read {
        simple_vote: is_simple_vote(&view),
        parts,
    })
}

/// solana-perf's `is_simple_vote_transaction_view`.
fn is_simple_vote(view: &SanitizedTransactionView<&[u8]>) -> bool {
    if view.num_signatures() > 2
        || !matches!(view.version(), TransactionVersion::Legacy)
        || view.num_instructions() != 1
    {
        return false;
    }
    let Some(instruction) = view.instructions_iter().next() else {
        return false;
    };
    view.static_account_keys()
        .get(usize::from(instruction.program_id_index))
        .is_some_and(|program| program.to_bytes() == VOTE_PROGRAM_ID)
}

#[cfg(feature = "solana-perf-4-1")]
fn sanitized(data: &[u8]) -> Option<SanitizedTransactionView<&[u8]>> {
    // 4.1's sigverify: `try_new_sanitized(data, true)` (SIMD-406's account limit on).
    SanitizedTransactionView::try_new_sanitized(data, true).ok()
}

#[cfg(feature = "solana-perf-4-2")]
fn sanitized(data: &[u8]) -> Option<SanitizedTransactionView<&[u8]>> {
    SanitizedTransactionView::try_new_sanitized(data, &sanitize_config()).ok()
}

/// `solana_runtime_transaction::sanitize_config::sanitize_config(true)`, which 4.2's
/// sigverify passes: the heap-size bounds of a v1 transaction's config, SIMD-160's
/// instruction limit and SIMD-406's account limit (on).
#[cfg(feature = "solana-perf-4-2")]
fn sanitize_config() -> agave_transaction_view::sanitize::SanitizeConfig {
    use solana_compute_budget::compute_budget_limits::{
        MAX_HEAP_FRAME_BYTES, MIN_HEAP_FRAME_BYTES,
    };
    use solana_transaction_context::{MAX_ACCOUNTS_PER_INSTRUCTION, MAX_INSTRUCTION_TRACE_LENGTH};
    agave_transaction_view::sanitize::SanitizeConfig {
        min_requested_heap_size: MIN_HEAP_FRAME_BYTES,
        max_requested_heap_size: MAX_HEAP_FRAME_BYTES,
        max_instructions: MAX_INSTRUCTION_TRACE_LENGTH,
        max_accounts_per_instruction: Some(MAX_ACCOUNTS_PER_INSTRUCTION),
    }
}
