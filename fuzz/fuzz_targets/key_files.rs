//! The key-file loaders on arbitrary bytes: leanSig's (every instance) and leanXMSS's
//! `SecretKey::from_bytes`, the parse behind `linesig sign --key`, `KeyFile::open` and
//! the C ABI's `*_key_from_bytes`. Half of the inputs get a correct checksum first, so
//! that the fuzzer reaches the checks past it. No panic; a key that loads saves to the
//! bytes it was loaded from.
#![no_main]

use blake2::{Blake2s256, Digest as _};
use libfuzzer_sys::fuzz_target;
use linesig::Backend;
use sha2::Sha256;

/// leanXMSS keys rebuild their tree on load (as long as key generation for the range):
/// a fuzzed key is loaded only if its range is this short or inconsistent.
const MAX_LEANXMSS_EPOCHS: u32 = 16;

/// Whether a leanXMSS key's bytes name a consistent range longer than the fuzzer loads.
/// The bound is on the range, not on the checksum fix-up: the fuzzer learns a valid
/// checksum through its comparison feedback (it did: a key for 2^27 epochs, a 2 GiB
/// tree). Inconsistent ranges (first after last) still reach the loader's check.
fn leanxmss_range_too_long(bytes: &[u8]) -> bool {
    if bytes.len() != 72 {
        return false;
    }
    let start = u32::from_le_bytes(bytes[40..44].try_into().unwrap());
    let end = u32::from_le_bytes(bytes[44..48].try_into().unwrap());
    start <= end && end - start > MAX_LEANXMSS_EPOCHS
}

fuzz_target!(|input: &[u8]| {
    let Some((&control, bytes)) = input.split_first() else {
        return;
    };
    let mut bytes = bytes.to_vec();
    match control % 3 {
        // leanSig: SHA-256 of everything before the last 32 bytes.
        0 if control & 0x80 != 0 && bytes.len() >= 40 => {
            let at = bytes.len() - 32;
            let digest = Sha256::digest(&bytes[..at]);
            bytes[at..].copy_from_slice(&digest);
        }
        // leanXMSS: 72 bytes, BLAKE2s of the first 56 truncated to 16.
        1 if control & 0x80 != 0 && bytes.len() == 72 => {
            let digest = Blake2s256::digest(&bytes[..56]);
            bytes[56..].copy_from_slice(&digest[..16]);
        }
        _ => {}
    }
    match control % 3 {
        1 => {
            if leanxmss_range_too_long(&bytes) {
                return;
            }
            if let Ok(key) = linesig::leanxmss::SecretKey::from_bytes(&bytes, Backend::Portable) {
                assert_eq!(key.to_bytes().as_slice(), bytes.as_slice());
            }
        }
        _ => {
            if let Ok(key) = linesig::leansig::SecretKey::from_bytes(&bytes, Backend::Portable) {
                assert_eq!(key.to_bytes(), bytes);
            }
        }
    }
});
