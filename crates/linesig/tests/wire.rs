//! The Solana packet parser: round trips through the encoder, one test per sanitize
//! rule, Ed25519 precompile extraction, and a differential soak against the Solana SDK's
//! own decoder and sanitizer (`solana-transaction`) over structured random and mutated
//! packets, which also shows that no input panics.

use ed25519_dalek::{Signer as _, SigningKey};
use linesig::wire::build::{packet_from_signed, AddressLookup, Instruction, Message};
use linesig::wire::{self, ParseOptions, Version, WireError, ED25519_PROGRAM_ID};
use linesig::{Policy, Scheme, Verdict};
use rand::{Rng, RngCore, SeedableRng};
use rand_chacha::ChaCha20Rng;

fn key(seed: u8) -> SigningKey {
    SigningKey::from_bytes(&[seed; 32])
}

/// A transfer-like message: `signers` signing keys, two more accounts (recipient,
/// program), one instruction.
fn transfer(version: Version, signers: u8) -> (Message, Vec<SigningKey>) {
    let keys: Vec<SigningKey> = (0..signers).map(|i| key(i + 1)).collect();
    let mut accounts: Vec<[u8; 32]> = keys.iter().map(|k| k.verifying_key().to_bytes()).collect();
    accounts.push([0xaa; 32]);
    accounts.push([0u8; 32]); // system program
    let mut m = Message::new(version, accounts, signers);
    m.header[2] = 1;
    m.recent_blockhash = [7; 32];
    m.instructions.push(Instruction {
        program: signers + 1,
        accounts: vec![0, signers],
        data: vec![2, 0, 0, 0, 0x40, 0x42, 0x0f, 0, 0, 0, 0, 0],
    });
    (m, keys)
}

fn sign(m: &Message, keys: &[SigningKey]) -> Vec<u8> {
    let bytes = m.signed_bytes();
    let sigs: Vec<[u8; 64]> = keys.iter().map(|k| k.sign(&bytes).to_bytes()).collect();
    packet_from_signed(m.version, &bytes, &sigs)
}

fn rule(packet: &[u8]) -> &'static str {
    match wire::parse(packet, ParseOptions::default()) {
        Ok(_) => "ok",
        Err(e) => e.rule(),
    }
}

#[test]
fn round_trip_every_version_and_signatures_verify() {
    for version in [Version::Legacy, Version::V0, Version::V1] {
        for signers in [1u8, 2, 10] {
            let (mut m, keys) = transfer(version, signers);
            if version == Version::V0 {
                m.lookups.push(AddressLookup {
                    table: [9; 32],
                    writable: vec![0, 1],
                    readonly: vec![5],
                });
            }
            let packet = sign(&m, &keys);
            let tx = wire::parse(&packet, ParseOptions::default())
                .unwrap_or_else(|e| panic!("{version:?} × {signers}: {e}"));
            assert_eq!(tx.version(), version);
            assert_eq!(tx.signature_count(), usize::from(signers));
            assert_eq!(tx.message(), &m.signed_bytes()[..]);
            for (i, k) in keys.iter().enumerate() {
                assert_eq!(tx.signer(i), k.verifying_key().as_bytes());
            }
            let items: Vec<_> = tx.items().collect();
            assert_eq!(items.len(), usize::from(signers));
            for item in &items {
                assert_eq!(Scheme::Ed25519(Policy::Strict).verify(item), Verdict::Valid);
            }
        }
    }
}

#[test]
fn every_sanitize_rule_names_itself() {
    let (base, keys) = transfer(Version::Legacy, 1);
    let ok = sign(&base, &keys);
    assert_eq!(rule(&ok), "ok");
    let with = |f: &dyn Fn(&mut Message)| {
        let mut m = base.clone();
        f(&mut m);
        sign(&m, &keys)
    };

    assert_eq!(rule(&[]), "empty");
    assert_eq!(rule(&[0u8; 1233]), "too_large");
    assert_eq!(rule(&ok[..ok.len() - 1]), "truncated");
    // compact-u16 aliases: signature count 1 written in two bytes (first byte 0x81 is v1,
    // so use the account-key count instead).
    let mut alias = ok.clone();
    let keys_at = 1 + 64 + 3;
    alias[keys_at] |= 0x80;
    alias.insert(keys_at + 1, 0x00);
    assert_eq!(rule(&alias), "non_canonical_length");
    assert_eq!(rule(&[0u8; 70]), "signature_count");
    assert_eq!(rule(&[13u8; 900]), "signature_count");
    let mut bad_version = ok.clone();
    bad_version[65] = 0x82;
    assert_eq!(rule(&bad_version), "unsupported_version");
    let mismatch = packet_from_signed(
        Version::Legacy,
        &with(&|m| m.header[0] = 2)[65..],
        &[[0u8; 64]],
    );
    assert_eq!(rule(&mismatch), "signature_count_mismatch");
    assert_eq!(rule(&with(&|m| m.header[1] = 1)), "readonly_fee_payer");
    assert_eq!(rule(&with(&|m| m.header[2] = 3)), "too_few_account_keys");
    assert_eq!(
        rule(&with(&|m| m.instructions[0].program = 0)),
        "program_index"
    );
    assert_eq!(
        rule(&with(&|m| m.instructions[0].program = 3)),
        "program_index"
    );
    assert_eq!(
        rule(&with(&|m| m.instructions[0].accounts.push(3))),
        "account_index"
    );
    let mut trailing = ok.clone();
    trailing.push(0);
    assert_eq!(rule(&trailing), "trailing_bytes");

    // v0: lookups must load something; loaded accounts count for account indices but
    // never for program indices; 256 accounts at most.
    let v0 = |f: &dyn Fn(&mut Message)| {
        let mut m = base.clone();
        m.version = Version::V0;
        f(&mut m);
        sign(&m, &keys)
    };
    assert_eq!(rule(&v0(&|_| {})), "ok");
    let lookup = |w: Vec<u8>, r: Vec<u8>| AddressLookup {
        table: [1; 32],
        writable: w,
        readonly: r,
    };
    assert_eq!(
        rule(&v0(&|m| m.lookups.push(lookup(vec![], vec![])))),
        "empty_lookup"
    );
    assert_eq!(
        rule(&v0(&|m| {
            m.lookups.push(lookup(vec![0], vec![]));
            m.instructions[0].accounts.push(3);
        })),
        "ok"
    );
    assert_eq!(
        rule(&v0(&|m| {
            m.lookups.push(lookup(vec![0], vec![]));
            m.instructions[0].program = 3;
        })),
        "program_index"
    );
    assert_eq!(
        rule(&v0(&|m| m.lookups.push(lookup(vec![0; 200], vec![0; 54])))),
        "too_many_accounts"
    );
    assert_eq!(
        rule(&v0(&|m| m.lookups.push(lookup(vec![0; 200], vec![0; 53])))),
        "ok"
    );

    // v1 (SIMD-0385).
    let v1 = |f: &dyn Fn(&mut Message)| {
        let mut m = base.clone();
        m.version = Version::V1;
        f(&mut m);
        sign(&m, &keys)
    };
    assert_eq!(rule(&v1(&|_| {})), "ok");
    assert!(matches!(
        wire::parse(
            &v1(&|_| {}),
            ParseOptions {
                accept_v1: false,
                precompile: false
            }
        ),
        Err(WireError::V1NotAccepted)
    ));
    assert_eq!(
        rule(&v1(&|m| m.account_keys[2] = m.account_keys[1])),
        "duplicate_address"
    );
    assert_eq!(
        rule(&v1(&|m| {
            m.config_mask = 0b1;
            m.config_values = vec![[0; 4]];
        })),
        "priority_fee_mask"
    );
    assert_eq!(
        rule(&v1(&|m| {
            m.config_mask = 0b10_0000;
            m.config_values = vec![[0; 4]];
        })),
        "unknown_config_bits"
    );
    let heap = |size: u32| {
        v1(&move |m| {
            m.config_mask = 0b1_0111;
            m.config_values = vec![[1; 4], [0; 4], [2; 4], size.to_le_bytes()];
        })
    };
    assert_eq!(rule(&heap(64 * 1024)), "ok");
    assert_eq!(rule(&heap(64 * 1024 + 1)), "heap_size");
    assert_eq!(rule(&heap(16 * 1024)), "heap_size");
    assert_eq!(rule(&heap(512 * 1024)), "heap_size");
    assert_eq!(
        rule(&v1(&|m| {
            m.instructions = vec![m.instructions[0].clone(); 65];
        })),
        "too_many_instructions"
    );
    assert_eq!(
        rule(&v1(&|m| {
            m.account_keys = (0..65u8).map(|i| [i; 32]).collect();
            m.account_keys[0] = keys[0].verifying_key().to_bytes();
        })),
        "too_many_accounts"
    );
    let big = v1(&|m| m.instructions[0].data = vec![0; 3000]);
    assert!(big.len() > 1232 && big.len() <= 4096);
    assert_eq!(rule(&big), "ok");
    assert_eq!(
        rule(&v1(&|m| m.instructions[0].data = vec![0; 4000])),
        "too_large"
    );
    let v1_ok = v1(&|_| {});
    assert_eq!(rule(&v1_ok[..v1_ok.len() - 1]), "truncated");
    let mut v1_trailing = v1_ok.clone();
    v1_trailing.push(0);
    assert_eq!(rule(&v1_trailing), "trailing_bytes");
}

/// A transfer plus a precompile instruction verifying one signature per `extra` entry,
/// with signature, key and message in its own data, as wallets lay them out.
fn precompile_message(version: Version, extra: &[(SigningKey, Vec<u8>)]) -> Message {
    let (mut m, _) = transfer(version, 1);
    m.account_keys.push(ED25519_PROGRAM_ID);
    let program = (m.account_keys.len() - 1) as u8;
    let mut data = vec![extra.len() as u8, 0];
    let records_end = 2 + 14 * extra.len();
    let mut payload = Vec::new();
    let mut records = Vec::new();
    for (k, msg) in extra {
        let sig = k.sign(msg).to_bytes();
        let base = (records_end + payload.len()) as u16;
        payload.extend_from_slice(&sig);
        payload.extend_from_slice(k.verifying_key().as_bytes());
        payload.extend_from_slice(msg);
        for v in [
            base,
            u16::MAX,
            base + 64,
            u16::MAX,
            base + 96,
            msg.len() as u16,
            u16::MAX,
        ] {
            records.extend_from_slice(&v.to_le_bytes());
        }
    }
    data.extend_from_slice(&records);
    data.extend_from_slice(&payload);
    m.instructions.push(Instruction {
        program,
        accounts: vec![],
        data,
    });
    m
}

#[test]
fn precompile_signatures_are_extracted_and_checked() {
    let options = ParseOptions {
        accept_v1: true,
        precompile: true,
    };
    let payer = key(1);
    let extra = vec![(key(50), b"hello".to_vec()), (key(51), vec![0xee; 40])];
    for version in [Version::Legacy, Version::V0, Version::V1] {
        let m = precompile_message(version, &extra);
        let packet = sign(&m, std::slice::from_ref(&payer));
        // Off by default: only the transaction's own signature.
        assert_eq!(
            wire::parse(&packet, ParseOptions::default())
                .unwrap()
                .item_count(),
            1
        );
        let tx = wire::parse(&packet, options).unwrap();
        assert_eq!(tx.item_count(), 3);
        let items: Vec<_> = tx.items().collect();
        for (item, (k, msg)) in items[1..].iter().zip(&extra) {
            assert_eq!(item.public_key, k.verifying_key().as_bytes());
            assert_eq!(item.message, &msg[..]);
        }
        for item in &items {
            assert_eq!(Scheme::Ed25519(Policy::Strict).verify(item), Verdict::Valid);
        }
    }

    let rule_of = |f: &dyn Fn(&mut Vec<u8>)| {
        let mut m = precompile_message(Version::Legacy, &extra);
        f(&mut m.instructions[1].data);
        match wire::parse(&sign(&m, std::slice::from_ref(&payer)), options) {
            Ok(tx) => format!("ok:{}", tx.item_count()),
            Err(e) => e.rule().to_string(),
        }
    };
    assert_eq!(rule_of(&|d| d.truncate(1)), "precompile_data_size");
    assert_eq!(rule_of(&|d| d.truncate(2 + 14)), "precompile_data_size");
    assert_eq!(rule_of(&|d| *d = vec![0, 0]), "ok:1");
    assert_eq!(rule_of(&|d| *d = vec![0, 0, 0]), "precompile_data_size");
    // Signature offset past the end of the data; then a reference to instruction 7.
    assert_eq!(
        rule_of(&|d| d[2..4].copy_from_slice(&5000u16.to_le_bytes())),
        "precompile_data_offsets"
    );
    assert_eq!(
        rule_of(&|d| d[4..6].copy_from_slice(&7u16.to_le_bytes())),
        "precompile_data_offsets"
    );
    // A reference to instruction 0 (the transfer data, 12 bytes): a 64-byte signature
    // cannot fit; a 5-byte message at offset 0 can.
    assert_eq!(
        rule_of(&|d| d[4..6].copy_from_slice(&0u16.to_le_bytes())),
        "precompile_data_offsets"
    );
    assert_eq!(
        rule_of(&|d| {
            d[10..12].copy_from_slice(&0u16.to_le_bytes());
            d[14..16].copy_from_slice(&0u16.to_le_bytes());
        }),
        "ok:3"
    );
}

// ---- differential soak against the Solana SDK ----

#[path = "support/solana_oracle.rs"]
mod solana_oracle;
use solana_oracle::oracle_accepts;
use solana_transaction::versioned::VersionedTransaction;

fn small(rng: &mut ChaCha20Rng, max: u8) -> u8 {
    // Boundaries more often than the middle.
    if rng.gen_bool(0.3) {
        0
    } else {
        rng.gen_range(0..=max)
    }
}

/// A random, often nearly valid, message and a signature count near its header's.
fn random_packet(rng: &mut ChaCha20Rng) -> Vec<u8> {
    let version = [Version::Legacy, Version::V0, Version::V1][rng.gen_range(0..3)];
    let key_count = small(rng, 6) as usize;
    let mut keys: Vec<[u8; 32]> = (0..key_count).map(|_| rng.gen()).collect();
    if version == Version::V1 && key_count > 2 && rng.gen_bool(0.1) {
        keys[2] = keys[1];
    }
    let mut m = Message::new(version, keys, small(rng, 4));
    m.header[1] = small(rng, 3);
    m.header[2] = small(rng, 3);
    for _ in 0..small(rng, 3) {
        m.instructions.push(Instruction {
            program: small(rng, 7),
            accounts: (0..small(rng, 3)).map(|_| small(rng, 8)).collect(),
            data: (0..small(rng, 5)).map(|_| rng.gen()).collect(),
        });
    }
    if version == Version::V0 {
        for _ in 0..small(rng, 2) {
            m.lookups.push(AddressLookup {
                table: rng.gen(),
                writable: (0..small(rng, 2)).map(|_| rng.gen()).collect(),
                readonly: (0..small(rng, 2)).map(|_| rng.gen()).collect(),
            });
        }
    }
    if version == Version::V1 {
        m.config_mask = [0, 0b11, 0b1, 0b100, 0b1_0000, 0b1_1111, 0b10_0000][rng.gen_range(0..7)];
        m.config_values = (0..m.config_mask.count_ones())
            .map(|_| {
                let v: u32 = [32 * 1024, 33 * 1024, 1000, rng.gen()][rng.gen_range(0..4)];
                v.to_le_bytes()
            })
            .collect();
    }
    if rng.gen_bool(0.5) {
        repair(rng, &mut m);
    }
    let mut signatures = usize::from(m.header[0]);
    if rng.gen_bool(0.1) {
        signatures = rng.gen_range(0..4);
    }
    let sigs: Vec<[u8; 64]> = (0..signatures)
        .map(|_| {
            let mut s = [0u8; 64];
            rng.fill_bytes(&mut s);
            s
        })
        .collect();
    packet_from_signed(version, &m.signed_bytes(), &sigs)
}

/// Bring a random message within the rules (most of the time), so that the soak sees as
/// many accepted packets as rejected ones and mutations start from valid shapes.
fn repair(rng: &mut ChaCha20Rng, m: &mut Message) {
    let required = rng.gen_range(1..=3u8);
    m.header = [required, rng.gen_range(0..required), rng.gen_range(0..=2)];
    let static_keys = usize::from(required + m.header[2]) + rng.gen_range(1..=3);
    m.account_keys = (0..static_keys).map(|_| rng.gen()).collect();
    let loaded: usize = m
        .lookups
        .iter()
        .map(|l| l.writable.len() + l.readonly.len())
        .sum();
    for l in &mut m.lookups {
        if l.writable.is_empty() && l.readonly.is_empty() {
            l.readonly.push(rng.gen());
        }
    }
    let loaded = loaded + m.lookups.len();
    for ix in &mut m.instructions {
        ix.program = rng.gen_range(1..static_keys as u8);
        for a in &mut ix.accounts {
            *a = rng.gen_range(0..(static_keys + loaded).min(255) as u8);
        }
    }
    if m.version == Version::V1 && rng.gen_bool(0.8) {
        m.config_mask &= 0b1_1111;
        if m.config_mask & 0b11 == 0b01 {
            m.config_mask = 0b11;
        }
        m.config_values = (0..m.config_mask.count_ones())
            .map(|_| (32u32 * 1024).to_le_bytes())
            .collect();
    }
}

fn mutate(rng: &mut ChaCha20Rng, packet: &mut Vec<u8>) {
    for _ in 0..rng.gen_range(1..=3) {
        if packet.is_empty() {
            packet.push(rng.gen());
            continue;
        }
        let at = rng.gen_range(0..packet.len());
        match rng.gen_range(0..6) {
            0 => packet[at] ^= 1 << rng.gen_range(0..8),
            1 => packet[at] = [0, 1, 0x7f, 0x80, 0x81, 0xff, rng.gen()][rng.gen_range(0..7)],
            2 => packet.truncate(at),
            3 => packet.insert(at, rng.gen()),
            4 => {
                packet.remove(at);
            }
            _ => packet.extend((0..rng.gen_range(1..40)).map(|_| rng.gen::<u8>())),
        }
    }
}

#[test]
fn agrees_with_the_solana_sdk_on_random_and_mutated_packets() {
    let rounds: usize = std::env::var("LINESIG_SOAK_ROUNDS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(1);
    let mut rng = ChaCha20Rng::seed_from_u64(0x5eed_0005);
    let (mut accepted, mut total) = (0usize, 0usize);
    for _ in 0..rounds * 20_000 {
        let mut packet = random_packet(&mut rng);
        if rng.gen_bool(0.5) {
            mutate(&mut rng, &mut packet);
        }
        let ours = wire::parse(&packet, ParseOptions::default());
        let theirs = oracle_accepts(&packet);
        assert_eq!(
            ours.is_ok(),
            theirs,
            "packet {} : ours {:?}, sdk accepts: {theirs}",
            hex::encode(&packet),
            ours.as_ref().err()
        );
        if let Ok(tx) = ours {
            accepted += 1;
            let sdk = wincode::deserialize::<VersionedTransaction>(&packet).unwrap();
            assert_eq!(tx.signature_count(), sdk.signatures.len());
            for (i, s) in sdk.signatures.iter().enumerate() {
                assert_eq!(tx.signature(i), s.as_ref());
                assert_eq!(tx.signer(i), sdk.message.static_account_keys()[i].as_ref());
            }
            assert_eq!(tx.message(), &sdk.message.serialize()[..]);
        }
        total += 1;
    }
    eprintln!("{accepted} of {total} packets accepted by both");
    // The generator must exercise both sides of the rules, not only one.
    assert!(
        accepted > total / 20 && accepted < total * 19 / 20,
        "{accepted} of {total} accepted"
    );
    // Pure noise never panics either.
    for _ in 0..rounds * 20_000 {
        let len = rng.gen_range(0..300);
        let mut packet = vec![0u8; len];
        rng.fill_bytes(&mut packet);
        if let Some(b) = packet.first_mut() {
            *b = [*b, 1, 2, 0x81][rng.gen_range(0..4)];
        }
        let _ = wire::parse(
            &packet,
            ParseOptions {
                accept_v1: true,
                precompile: true,
            },
        );
    }
}
