//! Ed25519 verification (RFC 8032 §5.1.7) under the exact acceptance rules of the chains
//! that use it (DESIGN.md §3).
//!
//! Layering follows curve25519-dalek: the policies and the byte-level encoding rules live
//! here once ([`Policy`], `encoding`); each backend only does arithmetic. Today the one
//! backend is `reference`, on curve25519-dalek.
//!
//! k = SHA-512(R ‖ A ‖ M) mod L, over the bytes exactly as received.

mod backend;
mod encoding;
mod policy;
mod reference;

pub use backend::{Backend, UnknownBackend, BACKEND_ENV};
pub use policy::{Policy, UnknownPolicy};

use crate::engine::grouping::for_each_key_group;
use crate::item::{Item, ItemSource};
use crate::verdict::{Reject, Verdict};
use curve25519_dalek::scalar::Scalar;
use sha2::{Digest, Sha512};

pub const PUBLIC_KEY_LEN: usize = 32;
pub const SIGNATURE_LEN: usize = 64;

/// Verify one item under `policy` on the reference backend. The engine gives the same
/// verdict for the same item, whatever the batch, backend, workers or batch size.
pub fn verify(policy: Policy, item: &Item<'_>) -> Verdict {
    let (Ok(public_key), Ok(signature)) = (
        <&[u8; PUBLIC_KEY_LEN]>::try_from(item.public_key),
        <&[u8; SIGNATURE_LEN]>::try_from(item.signature),
    ) else {
        return Verdict::Invalid(Reject::BadLength);
    };
    let rules = policy.rules();
    match reference::decode_key(rules, public_key) {
        Ok(key) => reference::verify_with_key(rules, &key, item.message, signature),
        Err(reason) => Verdict::Invalid(reason),
    }
}

/// One well-formed item of a work unit, with its slot in the unit's verdicts.
struct UnitEntry<'a> {
    public_key: &'a [u8; PUBLIC_KEY_LEN],
    signature: &'a [u8; SIGNATURE_LEN],
    message: &'a [u8],
    slot: u32,
}

/// Verify items `start..start + out.len()` of `items` into `out`: lengths first, then
/// items grouped by public key so each distinct key is decoded once.
pub(crate) fn verify_unit<S: ItemSource + ?Sized>(
    policy: Policy,
    backend: Backend,
    items: &S,
    start: usize,
    out: &mut [Verdict],
) {
    let rules = policy.rules();
    let mut entries: Vec<UnitEntry<'_>> = Vec::with_capacity(out.len());
    for (slot, verdict) in out.iter_mut().enumerate() {
        let item = items.item(start + slot);
        match (item.public_key.try_into(), item.signature.try_into()) {
            (Ok(public_key), Ok(signature)) => entries.push(UnitEntry {
                public_key,
                signature,
                message: item.message,
                slot: slot as u32,
            }),
            _ => *verdict = Verdict::Invalid(Reject::BadLength),
        }
    }
    match backend {
        Backend::Reference => for_each_key_group(
            &mut entries,
            |entry| entry.public_key,
            |group| match reference::decode_key(rules, group[0].public_key) {
                Err(reason) => {
                    for entry in group {
                        out[entry.slot as usize] = Verdict::Invalid(reason);
                    }
                }
                Ok(key) => {
                    for entry in group {
                        out[entry.slot as usize] =
                            reference::verify_with_key(rules, &key, entry.message, entry.signature);
                    }
                }
            },
        ),
    }
}

/// k = SHA-512(R ‖ A ‖ M) reduced mod L (RFC 8032 §5.1.7 step 2).
pub(crate) fn challenge(r_bytes: &[u8; 32], a_bytes: &[u8; 32], message: &[u8]) -> Scalar {
    let digest: [u8; 64] = Sha512::new()
        .chain_update(r_bytes)
        .chain_update(a_bytes)
        .chain_update(message)
        .finalize()
        .into();
    Scalar::from_bytes_mod_order_wide(&digest)
}

/// Split a signature into its R and S halves.
pub(crate) fn split_signature(signature: &[u8; SIGNATURE_LEN]) -> (&[u8; 32], &[u8; 32]) {
    let (r, s) = signature.split_at(32);
    (
        r.try_into().expect("32 of 64 bytes"),
        s.try_into().expect("32 of 64 bytes"),
    )
}
