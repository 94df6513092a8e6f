//! Every Ed25519 backend this CPU runs, under every policy, against the reference path
//! (and ed25519-dalek's `verify_strict` for `Strict`), on arbitrary bytes and on crafted
//! near-valid signatures: a real signature with fuzzer-chosen bit flips, small-order
//! points substituted for A or R, or S pushed past L.
#![no_main]

use ed25519_dalek::{Signer, SigningKey};
use libfuzzer_sys::fuzz_target;
use linesig::{Backend, Engine, Item, Policy, Scheme};
use std::sync::OnceLock;

/// The order-8 point encoded as y = 0 with the sign bit clear (a canonical small-order
/// encoding), and the group order L (little-endian).
const SMALL_ORDER: [u8; 32] = {
    let mut b = [0u8; 32];
    b[0] = 0;
    b
};
const L: [u8; 32] = [
    0xed, 0xd3, 0xf5, 0x5c, 0x1a, 0x63, 0x12, 0x58, 0xd6, 0x9c, 0xf7, 0xa2, 0xde, 0xf9, 0xde, 0x14,
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x10,
];

fn engines() -> &'static Vec<(Policy, Backend, Engine)> {
    static ENGINES: OnceLock<Vec<(Policy, Backend, Engine)>> = OnceLock::new();
    ENGINES.get_or_init(|| {
        let mut v = Vec::new();
        for policy in [Policy::Strict, Policy::Zip215, Policy::Zip215Strict] {
            for backend in Backend::ALL {
                if backend.is_supported_for(Scheme::Ed25519(policy)) {
                    let engine = Engine::builder()
                        .scheme(Scheme::Ed25519(policy))
                        .backend(backend)
                        .workers(1)
                        .build()
                        .expect("engine");
                    v.push((policy, backend, engine));
                }
            }
        }
        v
    })
}

/// Eleven honest signatures under distinct keys: the fuzzed item is verified in their
/// company, at a position it chooses, so the lane backends run it beside other lanes'
/// work (a lane leaking into another shows as a wrong verdict on either side).
fn honest() -> &'static Vec<(Vec<u8>, Vec<u8>, Vec<u8>)> {
    static HONEST: OnceLock<Vec<(Vec<u8>, Vec<u8>, Vec<u8>)>> = OnceLock::new();
    HONEST.get_or_init(|| {
        (0u8..11)
            .map(|i| {
                let key = SigningKey::from_bytes(&[i.wrapping_mul(37).wrapping_add(1); 32]);
                let message = vec![i; usize::from(i) * 13];
                let sig = key.sign(&message).to_bytes().to_vec();
                (key.verifying_key().to_bytes().to_vec(), message, sig)
            })
            .collect()
    })
}

fn add_le(a: &mut [u8], b: &[u8; 32]) {
    let mut carry = 0u16;
    for (x, y) in a.iter_mut().zip(b) {
        let s = u16::from(*x) + u16::from(*y) + carry;
        *x = s as u8;
        carry = s >> 8;
    }
}

fuzz_target!(|data: &[u8]| {
    if data.len() < 2 {
        return;
    }
    let (mode, rest) = (data[0], &data[1..]);
    let (public_key, signature, message): (Vec<u8>, Vec<u8>, Vec<u8>) = if mode & 1 == 0 || rest.len() < 32 {
        // Raw bytes: lengths are whatever the fuzzer gives.
        let pk_len = usize::from(mode >> 1).min(rest.len()).min(40);
        let (pk, rest) = rest.split_at(pk_len);
        let sig_len = rest.len().min(64 + usize::from(mode >> 7));
        let (sig, msg) = rest.split_at(sig_len);
        (pk.to_vec(), sig.to_vec(), msg.to_vec())
    } else {
        // Near-valid: a real signature, then one crafted change.
        let key = SigningKey::from_bytes(rest[..32].try_into().unwrap());
        let message = rest[32..].to_vec();
        let mut sig = key.sign(&message).to_bytes().to_vec();
        let mut pk = key.verifying_key().to_bytes().to_vec();
        match (mode >> 1) & 7 {
            0 => {}
            1 => {
                let bit = usize::from(rest[0]) % 512;
                sig[bit / 8] ^= 1 << (bit % 8);
            }
            2 => pk.copy_from_slice(&SMALL_ORDER),
            3 => sig[..32].copy_from_slice(&SMALL_ORDER),
            4 => add_le(&mut sig[32..], &L),
            5 => {
                let bit = usize::from(rest[1]) % 256;
                pk[bit / 8] ^= 1 << (bit % 8);
            }
            6 => sig[31] |= 0x80,
            _ => pk[31] ^= 0x80,
        }
        (pk, sig, message)
    };
    let item = Item::new(&public_key, &message, &signature);
    let mut batch: Vec<Item<'_>> = honest()
        .iter()
        .map(|(pk, msg, sig)| Item::new(pk, msg, sig))
        .collect();
    let at = usize::from(data[data.len() - 1]) % (batch.len() + 1);
    batch.insert(at, item);
    for (policy, backend, engine) in engines() {
        let reference = Scheme::Ed25519(*policy).verify(&item);
        let got = engine.verify(&batch);
        for (i, verdict) in got.iter().enumerate() {
            if i == at {
                assert_eq!(*verdict, reference, "{backend} under {policy}");
            } else {
                assert!(verdict.is_valid(), "{backend} under {policy}: honest item {i}");
            }
        }
    }
    if let (Ok(pk), Ok(sig)) = (<[u8; 32]>::try_from(&public_key[..]), <[u8; 64]>::try_from(&signature[..])) {
        let dalek = ed25519_dalek::VerifyingKey::from_bytes(&pk)
            .map(|k| k.verify_strict(&message, &ed25519_dalek::Signature::from_bytes(&sig)).is_ok())
            .unwrap_or(false);
        assert_eq!(Scheme::Ed25519(Policy::Strict).verify(&item).is_valid(), dalek);
    }
});
