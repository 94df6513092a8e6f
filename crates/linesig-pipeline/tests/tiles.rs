//! Per-packet verdicts from the verify tiles against the single-threaded path: packets of
//! 1 to 12 signatures (so one packet's signatures fall in several engine units), invalid
//! signatures in every position, Ed25519 precompile signatures, keys that repeat across
//! packets, under each policy, for several tile counts, batch sizes and unit sizes. Every
//! packet's verdicts must equal those of one engine call on one thread over the same
//! triples, and a sink that asks for order must get packets in arrival order.

use ed25519_dalek::{Signer as _, SigningKey};
use linesig::wire::build::{packet_from_signed, Instruction, Message};
use linesig::wire::{ParseOptions, Version, ED25519_PROGRAM_ID};
use linesig::{Engine, Policy, Scheme, Verdict};
use linesig_pipeline::{Config, Packet, Replay, Sink, Verified};
use std::collections::BTreeMap;
use std::sync::atomic::AtomicBool;

/// Packet `i`: `1 + i % 12` signers drawn from a pool of 40 keys (so keys repeat across
/// packets), legacy, v0 or v1; every third packet has one signature flipped (position `i %
/// n`, so every position is hit); every fourth with at most five signers (room for it in
/// 1,232 bytes) carries a precompile signature, every eighth a corrupted one.
fn packet(i: usize) -> Vec<u8> {
    let n = 1 + i % 12;
    let signers: Vec<SigningKey> = (0..n)
        .map(|j| SigningKey::from_bytes(&[((i * 7 + j * 13) % 40) as u8 + 1; 32]))
        .collect();
    // Addresses must be distinct: a repeated key in one transaction is replaced.
    let mut signers_unique: Vec<SigningKey> = Vec::new();
    for (j, k) in signers.into_iter().enumerate() {
        if signers_unique
            .iter()
            .any(|s| s.verifying_key() == k.verifying_key())
        {
            signers_unique.push(SigningKey::from_bytes(&[200 + j as u8; 32]));
        } else {
            signers_unique.push(k);
        }
    }
    let mut accounts: Vec<[u8; 32]> = signers_unique
        .iter()
        .map(|k| k.verifying_key().to_bytes())
        .collect();
    accounts.push([0xaa; 32]);
    accounts.push([0u8; 32]);
    // Ten or more signers do not fit legacy's or v0's 1,232 bytes: v1 (4,096) carries them.
    let version = match (n, i % 2) {
        (10.., _) => Version::V1,
        (_, 0) => Version::Legacy,
        _ => Version::V0,
    };
    let mut m = Message::new(version, accounts, n as u8);
    m.header[2] = 1;
    m.recent_blockhash = [i as u8; 32];
    m.instructions.push(Instruction {
        program: n as u8 + 1,
        accounts: vec![0, n as u8],
        data: (i as u64).to_le_bytes().to_vec(),
    });
    if i.is_multiple_of(4) && n <= 5 {
        // The precompile's own signature, key and message inside its data (offsets
        // relative to it, instruction indices u16::MAX), as wallets lay it out.
        let signer = SigningKey::from_bytes(&[(i % 40) as u8 + 100; 32]);
        let message = [i as u8 ^ 0x5a; 32];
        let mut signature = signer.sign(&message).to_bytes();
        if i.is_multiple_of(8) {
            signature[40] ^= 1;
        }
        m.account_keys.push(ED25519_PROGRAM_ID);
        m.header[2] += 1;
        let mut data = vec![1, 0];
        for v in [16u16, u16::MAX, 80, u16::MAX, 112, 32, u16::MAX] {
            data.extend_from_slice(&v.to_le_bytes());
        }
        data.extend_from_slice(&signature);
        data.extend_from_slice(signer.verifying_key().as_bytes());
        data.extend_from_slice(&message);
        m.instructions.push(Instruction {
            program: (m.account_keys.len() - 1) as u8,
            accounts: Vec::new(),
            data,
        });
    }
    let bytes = m.signed_bytes();
    let mut sigs: Vec<[u8; 64]> = signers_unique
        .iter()
        .map(|k| k.sign(&bytes).to_bytes())
        .collect();
    if i.is_multiple_of(3) {
        sigs[i % n][i % 64] ^= 0x20;
    }
    packet_from_signed(version, &bytes, &sigs)
}

/// Collects every verdict by packet and the order packets arrived in.
struct Collect {
    ordered: bool,
    judged: BTreeMap<u64, (bool, Vec<Verdict>)>,
    passed: Vec<u64>,
    arrival: Vec<u64>,
}

impl Sink for Collect {
    fn pass(&mut self, packet: &Packet) -> std::io::Result<()> {
        self.passed.push(packet.seq);
        Ok(())
    }
    fn verified(&mut self, v: &Verified<'_>) {
        self.arrival.push(v.packet.seq);
        let old = self
            .judged
            .insert(v.packet.seq, (v.passed, v.verdicts.to_vec()));
        assert!(old.is_none(), "packet {} judged twice", v.packet.seq);
    }
    fn wants_order(&self) -> bool {
        self.ordered
    }
}

#[test]
fn tiles_assemble_each_packets_verdicts_as_one_thread_does() {
    let packets: Vec<Vec<u8>> = (0..600).map(packet).collect();
    let parse = ParseOptions {
        accept_v1: true,
        precompile: true,
    };
    for policy in [Policy::Strict, Policy::Zip215] {
        // The single-threaded path: one engine call over every packet's triples on one
        // thread (precompile triples under `strict`, as Agave verifies them).
        let one = |p: Policy| {
            Engine::builder()
                .scheme(Scheme::Ed25519(p))
                .workers(1)
                .key_cache(0)
                .build()
                .unwrap()
        };
        let (own_engine, strict_engine) = (one(policy), one(Policy::Strict));
        let mut expected: Vec<Vec<Verdict>> = Vec::new();
        for p in &packets {
            let tx = linesig::wire::parse(p, parse).expect("well-formed");
            let ranges: Vec<_> = tx.item_ranges().collect();
            let verdicts = ranges
                .iter()
                .zip(tx.items())
                .map(|(r, item)| {
                    let engine = if r.precompile {
                        &strict_engine
                    } else {
                        &own_engine
                    };
                    engine.verify(&[item])[0]
                })
                .collect();
            expected.push(verdicts);
        }
        let passing = expected
            .iter()
            .filter(|v| v.iter().all(|v| *v == Verdict::Valid))
            .count();
        assert!((200..500).contains(&passing), "{passing} of 600 pass");

        for (tiles, batch_signatures, unit, ordered) in [
            (1, 1024, 512, false),
            (2, 16, 5, false),
            (3, 64, 7, true),
            (2, 1, 3, true),
            (4, 200, 11, false),
        ] {
            let engine = Engine::builder()
                .scheme(Scheme::Ed25519(policy))
                .workers(tiles)
                .batch_size(unit)
                .build()
                .unwrap();
            let config = Config {
                parse,
                batch_signatures,
                ..Config::new(engine)
            };
            let mut sink = Collect {
                ordered,
                judged: BTreeMap::new(),
                passed: Vec::new(),
                arrival: Vec::new(),
            };
            let report = linesig_pipeline::run(
                &config,
                Replay::new(packets.clone()),
                &mut sink,
                &AtomicBool::new(false),
                |_| {},
            )
            .unwrap();
            let case = format!("{policy:?}, {tiles} tiles, batch {batch_signatures}, unit {unit}");
            assert_eq!(report.received, 600, "{case}");
            assert_eq!(report.passed, passing as u64, "{case}");
            assert_eq!(
                report.drops.invalid_signature,
                600 - passing as u64,
                "{case}"
            );
            assert_eq!(sink.judged.len(), 600, "{case}");
            for (seq, (passed, verdicts)) in &sink.judged {
                let want = &expected[*seq as usize];
                assert_eq!(verdicts, want, "{case}: packet {seq}");
                assert_eq!(*passed, want.iter().all(|v| *v == Verdict::Valid));
            }
            if ordered {
                assert!(sink.arrival.windows(2).all(|w| w[0] < w[1]), "{case}");
                assert!(sink.passed.windows(2).all(|w| w[0] < w[1]), "{case}");
            }
        }
    }
}

/// A sink that panics mid-run (its packets in flight, the ordered commit holding later
/// chunks) ends the run with that panic on the caller's thread; it never hangs it.
#[test]
fn a_panicking_sink_ends_the_run_with_its_panic() {
    struct Explode(usize);
    impl Sink for Explode {
        fn pass(&mut self, _: &Packet) -> std::io::Result<()> {
            self.0 += 1;
            assert!(self.0 < 50, "the sink gives up");
            Ok(())
        }
        fn wants_order(&self) -> bool {
            true
        }
    }
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let packets: Vec<Vec<u8>> = (0..600).map(packet).collect();
        let engine = Engine::builder().workers(3).batch_size(8).build().unwrap();
        let config = Config {
            batch_signatures: 16,
            ..Config::new(engine)
        };
        let run = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            linesig_pipeline::run(
                &config,
                Replay::new(packets),
                &mut Explode(0),
                &AtomicBool::new(false),
                |_| {},
            )
        }));
        let _ = tx.send(run.is_err());
    });
    let panicked = rx
        .recv_timeout(std::time::Duration::from_secs(120))
        .expect("the run ended");
    assert!(panicked);
}

/// Hands out its packets two at a time: many small chunks, so tiles interleave finely.
struct Trickle(std::collections::VecDeque<Vec<u8>>);

impl linesig_pipeline::Source for Trickle {
    fn is_live(&self) -> bool {
        false
    }
    fn receive(
        &mut self,
        max: usize,
        out: &mut Vec<Vec<u8>>,
    ) -> std::io::Result<linesig_pipeline::SourceState> {
        out.extend((0..max.min(2)).map_while(|_| self.0.pop_front()));
        Ok(match self.0.is_empty() {
            true => linesig_pipeline::SourceState::Exhausted,
            false => linesig_pipeline::SourceState::Open,
        })
    }
}

/// Every packet sent twice, the copy a few chunks later: whichever tile reaches which
/// chunk first, the first arrival passes and the later copy is the duplicate.
#[test]
fn the_first_arrival_wins_whichever_tile_dedups_first() {
    struct Drops(Vec<u64>, Vec<u64>);
    impl Sink for Drops {
        fn pass(&mut self, p: &Packet) -> std::io::Result<()> {
            self.0.push(p.seq);
            Ok(())
        }
        fn wants_dropped(&self) -> bool {
            true
        }
        fn dropped(&mut self, seq: u64, why: linesig_pipeline::Dropped) {
            assert_eq!(why, linesig_pipeline::Dropped::Duplicate);
            self.1.push(seq);
        }
    }
    // Originals 0..150 (only those that verify), each copied 5 places later.
    let originals: Vec<Vec<u8>> = (0..600)
        .map(packet)
        .enumerate()
        .filter(|(i, _)| i % 3 != 0 && i % 8 != 0)
        .map(|(_, p)| p)
        .take(150)
        .collect();
    let mut order: Vec<(usize, bool)> = Vec::new();
    for i in 0..originals.len() + 5 {
        if i < originals.len() {
            order.push((i, false));
        }
        if i >= 5 {
            order.push((i - 5, true));
        }
    }
    let packets: Vec<Vec<u8>> = order.iter().map(|&(i, _)| originals[i].clone()).collect();
    let copies: Vec<u64> = (0..order.len() as u64)
        .filter(|&s| order[s as usize].1)
        .collect();
    let engine = Engine::builder().workers(4).batch_size(4).build().unwrap();
    let config = Config {
        batch_signatures: 8,
        ..Config::new(engine)
    };
    for _ in 0..10 {
        let mut sink = Drops(Vec::new(), Vec::new());
        linesig_pipeline::run(
            &config,
            Trickle(packets.clone().into()),
            &mut sink,
            &AtomicBool::new(false),
            |_| {},
        )
        .unwrap();
        sink.1.sort();
        assert_eq!(sink.1, copies);
        assert_eq!(sink.0.len(), originals.len());
    }
}
