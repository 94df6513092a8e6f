//! The pipeline as a validator would embed it: its own source (transactions it already
//! holds, handed out a few at a time) and its own sink (collecting what passed), over
//! signed, corrupted, repeated and malformed transactions.

use ed25519_dalek::{Signer as _, SigningKey};
use linesig::wire::build::{Instruction, Message};
use linesig::wire::Version;
use linesig::{Engine, Policy, Scheme, Verdict};
use linesig_pipeline::{Config, Dropped, Packet, ReportKind, Sink, Source, SourceState, Verified};
use std::sync::atomic::AtomicBool;

/// A one-signer transfer from key `seed`, signed; `corrupt` flips a bit of its signature.
fn transfer(seed: u8, corrupt: bool) -> Vec<u8> {
    let key = SigningKey::from_bytes(&[seed; 32]);
    let accounts = vec![key.verifying_key().to_bytes(), [0xaa; 32], [0u8; 32]];
    let mut m = Message::new(Version::Legacy, accounts, 1);
    m.header[2] = 1;
    m.recent_blockhash = [seed; 32];
    m.instructions.push(Instruction {
        program: 2,
        accounts: vec![0, 1],
        data: vec![2, 0, 0, 0, seed, 0, 0, 0, 0, 0, 0, 0],
    });
    let mut signature = key.sign(&m.signed_bytes()).to_bytes();
    if corrupt {
        signature[5] ^= 0x10;
    }
    m.to_packet(&[signature])
}

/// Hands out its packets three at a time, like a queue the validator drains.
struct Feed(std::collections::VecDeque<Vec<u8>>);

impl Source for Feed {
    fn is_live(&self) -> bool {
        false
    }
    fn receive(&mut self, max: usize, out: &mut Vec<Vec<u8>>) -> std::io::Result<SourceState> {
        for _ in 0..max.min(3) {
            out.extend(self.0.pop_front());
        }
        Ok(match self.0.is_empty() {
            true => SourceState::Exhausted,
            false => SourceState::Open,
        })
    }
}

#[derive(Default)]
struct Collect {
    passed: Vec<u64>,
    judged: Vec<(u64, bool, Vec<Verdict>)>,
    dropped: Vec<(u64, Dropped)>,
}

impl Sink for Collect {
    fn pass(&mut self, packet: &Packet) -> std::io::Result<()> {
        self.passed.push(packet.seq);
        Ok(())
    }
    fn verified(&mut self, v: &Verified<'_>) {
        assert_eq!(v.signature.len(), 64);
        self.judged
            .push((v.packet.seq, v.passed, v.verdicts.to_vec()));
    }
    fn wants_dropped(&self) -> bool {
        true
    }
    fn dropped(&mut self, seq: u64, why: Dropped) {
        self.dropped.push((seq, why));
    }
}

#[test]
fn an_embedded_pipeline_passes_exactly_the_valid_first_seen_transactions() {
    // seq 0..20: valid; 20..25: corrupted; 25..28: repeats of 0..3; 28, 29: not transactions.
    let mut packets: Vec<Vec<u8>> = (0..20).map(|i| transfer(i + 1, false)).collect();
    packets.extend((0..5).map(|i| transfer(100 + i, true)));
    packets.extend(packets[..3].to_vec());
    packets.push(vec![0u8; 7]);
    packets.push(vec![1u8; 300]);

    for policy in [Policy::Strict, Policy::Zip215] {
        let engine = Engine::builder()
            .scheme(Scheme::Ed25519(policy))
            .workers(2)
            .batch_size(4)
            .build()
            .unwrap();
        let config = Config {
            batch_signatures: 8,
            ..Config::new(engine)
        };
        let mut sink = Collect::default();
        let report = linesig_pipeline::run(
            &config,
            Feed(packets.clone().into()),
            &mut sink,
            &AtomicBool::new(false),
            |_| {},
        )
        .unwrap();

        assert_eq!(report.kind, ReportKind::Summary);
        assert_eq!(report.received, 30);
        assert_eq!(report.passed, 20);
        assert_eq!(report.signatures, 25);
        assert_eq!(report.drops.invalid_signature, 5);
        assert_eq!(report.drops.duplicate, 3);
        assert_eq!(report.drops.malformed, 2);
        sink.passed.sort();
        assert_eq!(sink.passed, (0..20).collect::<Vec<u64>>());
        assert_eq!(sink.judged.len(), 25);
        for (seq, passed, verdicts) in &sink.judged {
            assert_eq!(*passed, *seq < 20, "packet {seq}");
            assert_eq!(verdicts.len(), 1);
        }
        sink.dropped.sort_by_key(|d| d.0);
        let causes: Vec<(u64, bool)> = sink
            .dropped
            .iter()
            .map(|(seq, why)| (*seq, *why == Dropped::Duplicate))
            .collect();
        assert_eq!(
            causes,
            vec![(25, true), (26, true), (27, true), (28, false), (29, false)]
        );
    }
}

#[test]
fn max_packets_and_a_non_ed25519_engine() {
    let packets: Vec<Vec<u8>> = (0..10).map(|i| transfer(i + 1, false)).collect();
    let engine = Engine::builder().workers(1).build().unwrap();
    let config = Config {
        max_packets: Some(4),
        ..Config::new(engine)
    };
    let report = linesig_pipeline::run(
        &config,
        linesig_pipeline::Replay::new(packets),
        &mut linesig_pipeline::Discard,
        &AtomicBool::new(false),
        |_| {},
    )
    .unwrap();
    assert_eq!((report.received, report.passed), (4, 4));

    let mldsa = Engine::builder()
        .scheme("mldsa44".parse().unwrap())
        .workers(1)
        .build()
        .unwrap();
    let err = linesig_pipeline::run(
        &Config::new(mldsa),
        linesig_pipeline::Replay::new(Vec::new()),
        &mut linesig_pipeline::Discard,
        &AtomicBool::new(false),
        |_| {},
    )
    .unwrap_err();
    assert!(
        matches!(err, linesig_pipeline::Error::NotEd25519(_)),
        "{err}"
    );
}
