//! Where one packet's signed material lies, whichever line's rules found it: the
//! signatures, their signers' keys (the first keys of the static list, in order) and the
//! signed message, as offsets into the bytes the packet's `data(..)` accessor shows.
//!
//! Offsets rather than slices, because the stage finds them in a pass that needs the
//! packets mutably (it sets `SIMPLE_VOTE_TX`) and borrows the bytes in a later one.

use linesig::wire::{KEY_LEN, SIGNATURE_LEN};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct SignedParts {
    /// Signatures to verify, each with the key at the same position.
    pub signatures: usize,
    pub signature_start: usize,
    pub key_start: usize,
    /// The signed message, `message_start..message_end`.
    pub message_start: usize,
    pub message_end: usize,
}

impl SignedParts {
    /// The `i`-th signature, its signer's key and the message (`None` where the bytes
    /// are not all there, which discards the packet).
    pub fn get<'a>(&self, data: &'a [u8], i: usize) -> Option<(&'a [u8], &'a [u8], &'a [u8])> {
        let signature_at = self.signature_start + i * SIGNATURE_LEN;
        let key_at = self.key_start + i * KEY_LEN;
        Some((
            data.get(signature_at..signature_at + SIGNATURE_LEN)?,
            data.get(key_at..key_at + KEY_LEN)?,
            data.get(self.message_start..self.message_end)?,
        ))
    }
}
