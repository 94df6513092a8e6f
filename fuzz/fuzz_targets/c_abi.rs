//! The C ABI's entry points that take caller bytes, on arbitrary bytes and arbitrary
//! numbers: engine configurations (every field, valid or not), `linesig_verify` on
//! items cut from the input, the key loaders, the aggregate verifier's proof bytes,
//! ML-DSA signing keys, Ed25519 seeds, and the name lookups. Pointers are always valid
//! (the ABI's contract); everything else is the fuzzer's. No call may panic across the
//! boundary (that would abort) or write past the buffers it is given, which the
//! sanitizer checks; every status must be one the header names.
#![no_main]

use libfuzzer_sys::fuzz_target;
use linesig_ffi::engine::{linesig_engine_free, linesig_engine_new, linesig_verify, LinesigConfig};
use linesig_ffi::LinesigBytes;
use std::ffi::CStr;

/// The statuses `linesig.h` names (`LinesigStatus`), and the reason codes.
fn known_status(status: i32) -> bool {
    (0..=17).contains(&status)
}

/// The input, read front to back; empty once used up.
struct Input<'a>(&'a [u8]);

impl<'a> Input<'a> {
    fn u8(&mut self) -> u8 {
        self.take(1).first().copied().unwrap_or(0)
    }
    fn u32(&mut self) -> u32 {
        let mut b = [0u8; 4];
        let t = self.take(4);
        b[..t.len()].copy_from_slice(t);
        u32::from_le_bytes(b)
    }
    fn take(&mut self, n: usize) -> &'a [u8] {
        let n = n.min(self.0.len());
        let (head, tail) = self.0.split_at(n);
        self.0 = tail;
        head
    }
    /// A byte string whose length the input chooses (up to 96 bytes, or the rest).
    fn bytes(&mut self) -> &'a [u8] {
        let n = usize::from(self.u8());
        self.take(if n == 255 { usize::MAX } else { n % 97 })
    }
}

fn bytes(b: &[u8]) -> LinesigBytes {
    LinesigBytes {
        ptr: b.as_ptr(),
        len: b.len(),
    }
}

fuzz_target!(|data: &[u8]| {
    let mut input = Input(data);
    match input.u8() % 6 {
        0 => unsafe {
            // An engine from arbitrary settings (small caches and worker counts, so that
            // a run stays short), then items cut from the rest of the input.
            let config = LinesigConfig {
                scheme: input.u32() % 12,
                policy: input.u32() % 5,
                workers: input.u32() % 3,
                batch_size: input.u32() % 70,
                backend: input.u32() % 6,
                key_cache_bytes: u64::from(input.u32() % (1 << 20)) * 4,
                batch_equation: input.u32() % 4,
            };
            let mut engine = std::ptr::null_mut();
            let status = linesig_engine_new(&config, &mut engine);
            assert!(known_status(status), "engine_new: {status}");
            if engine.is_null() {
                return;
            }
            let count = usize::from(input.u8() % 9);
            let mut keys = Vec::new();
            let mut messages = Vec::new();
            let mut signatures = Vec::new();
            let mut contexts = Vec::new();
            for _ in 0..count {
                keys.push(bytes(input.bytes()));
                messages.push(bytes(input.bytes()));
                signatures.push(bytes(input.bytes()));
                contexts.push(bytes(input.bytes()));
            }
            let with_contexts = input.u8() & 1 == 1;
            let mut verdicts = vec![0xAAu8; count];
            let status = linesig_verify(
                engine,
                count,
                keys.as_ptr(),
                messages.as_ptr(),
                signatures.as_ptr(),
                if with_contexts { contexts.as_ptr() } else { std::ptr::null() },
                verdicts.as_mut_ptr(),
            );
            assert!(known_status(status), "verify: {status}");
            if status == 0 {
                for v in &verdicts {
                    let name = linesig_ffi::linesig_reason_name(*v);
                    assert!(!name.is_null() && !CStr::from_ptr(name).to_bytes().is_empty());
                }
            }
            linesig_engine_free(engine);
        },
        1 => unsafe {
            let scheme = input.u32() % 8;
            let key = input.take(usize::MAX);
            let mut out = std::ptr::null_mut();
            let status = linesig_ffi::leansig::linesig_leansig_key_from_bytes(
                scheme,
                key.as_ptr(),
                key.len(),
                &mut out,
            );
            assert!(known_status(status));
            linesig_ffi::leansig::linesig_leansig_key_free(out);
            let mut out = std::ptr::null_mut();
            // leanXMSS keys of the wrong length or checksum are refused before any tree
            // is built (a fuzzed checksum never holds).
            let status =
                linesig_ffi::leanxmss::linesig_leanxmss_key_from_bytes(key.as_ptr(), key.len(), &mut out);
            assert!(known_status(status));
            linesig_ffi::leanxmss::linesig_leanxmss_key_free(out);
        },
        2 => unsafe {
            let scheme = input.u32() % 8;
            let count = usize::from(input.u8() % 4);
            let mut keys = Vec::new();
            let mut messages = Vec::new();
            let mut epochs = Vec::new();
            for _ in 0..count {
                keys.push(bytes(input.bytes()));
                messages.push(bytes(input.bytes()));
                epochs.push(input.u32());
            }
            let proof = input.take(usize::MAX);
            let mut failed = usize::MAX;
            let status = linesig_ffi::leansig::linesig_leansig_verify_aggregate(
                scheme,
                count,
                keys.as_ptr(),
                messages.as_ptr(),
                epochs.as_ptr(),
                proof.as_ptr(),
                proof.len(),
                &mut failed,
            );
            assert!(known_status(status));
            assert_ne!(status, 0, "a fuzzed proof verifies");
        },
        3 => unsafe {
            let scheme = input.u32() % 12;
            let key = input.bytes();
            let message = input.bytes();
            let context = input.bytes();
            let randomness = input.bytes();
            let mut signature = vec![0u8; usize::from(input.u8()) * 20];
            let status = linesig_ffi::mldsa::linesig_mldsa_sign(
                scheme,
                key.as_ptr(),
                key.len(),
                message.as_ptr(),
                message.len(),
                context.as_ptr(),
                context.len(),
                randomness.as_ptr(),
                randomness.len(),
                signature.as_mut_ptr(),
                signature.len(),
            );
            assert!(known_status(status));
        },
        4 => unsafe {
            let seed = input.bytes();
            let message = input.bytes();
            let mut public_key = vec![0u8; usize::from(input.u8() % 40)];
            let mut signature = vec![0u8; usize::from(input.u8() % 70)];
            let status = linesig_ffi::ed25519::linesig_ed25519_public_key(
                seed.as_ptr(),
                seed.len(),
                public_key.as_mut_ptr(),
                public_key.len(),
            );
            assert!(known_status(status));
            let status = linesig_ffi::ed25519::linesig_ed25519_sign(
                seed.as_ptr(),
                seed.len(),
                message.as_ptr(),
                message.len(),
                signature.as_mut_ptr(),
                signature.len(),
            );
            assert!(known_status(status));
        },
        _ => unsafe {
            let n = input.u32();
            for name in [
                linesig_ffi::linesig_scheme_name(n),
                linesig_ffi::linesig_reason_name(n as u8),
                linesig_ffi::linesig_status_message(n as i32),
            ] {
                assert!(!name.is_null());
                let _ = CStr::from_ptr(name);
            }
            let _ = linesig_ffi::linesig_public_key_len(n);
            let _ = linesig_ffi::linesig_signature_len(n);
            let _ = linesig_ffi::mldsa::linesig_mldsa_signing_key_len(n);
        },
    }
});
