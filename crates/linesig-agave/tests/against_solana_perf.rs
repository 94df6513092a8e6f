//! linesig-agave against solana-perf itself, the version the lock holds (CI runs every
//! release of 4.0.3–4.2.x: scripts/test-agave-lines.sh): every case runs solana-perf's
//! `sigverify::ed25519_verify` on a clone of the same batches with the same arguments,
//! then linesig-agave's three entry points (the free function, a `Verifier` on the
//! caller's pool, a `Verifier` on its own), and compares every packet's flags — `discard`
//! and `SIMPLE_VOTE_TX` among them — with `reject_non_vote` both ways and, from 4.1,
//! `enable_tx_v1` both ways.
//!
//! `LINESIG_AGAVE_FUZZ_PACKETS` sets the mutated packets of the seeded loop (default
//! 1,000,000); `LINESIG_AGAVE_FUZZ_SEED` its seed.

mod support;

use linesig::wire::Version;
use linesig_agave::Verifier;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha20Rng;
use solana_perf::packet::{PacketBatch, PacketFlags};
use std::sync::OnceLock;
use support::*;

/// One way of running the stage on batches in place.
type Stage<'a> = &'a dyn Fn(&mut [PacketBatch]);

fn pool() -> &'static rayon::ThreadPool {
    static POOL: OnceLock<rayon::ThreadPool> = OnceLock::new();
    POOL.get_or_init(|| {
        rayon::ThreadPoolBuilder::new()
            .num_threads(4)
            .build()
            .unwrap()
    })
}

/// One verifier kept across every call of a test binary, hot-key cache on (small, so
/// that it fills and evicts), on both of its entry points.
fn verifier() -> &'static Verifier {
    static VERIFIER: OnceLock<Verifier> = OnceLock::new();
    VERIFIER.get_or_init(|| {
        Verifier::builder()
            .workers(3)
            .key_cache_bytes(4 << 20)
            .batch_size(64)
            .build()
            .unwrap()
    })
}

/// What the comparison saw: packets, and how many solana-perf kept and flagged.
#[derive(Default, Debug)]
struct Seen {
    packets: usize,
    kept: usize,
    votes: usize,
}

/// Compare every entry point with solana-perf on `batches`, every setting of
/// `reject_non_vote` and `enable_tx_v1`; panic naming the first packet that differs.
fn compare(batches: &[PacketBatch], what: &str) -> Seen {
    let mut seen = Seen::default();
    for (reject_non_vote, tx_v1) in [false, true]
        .into_iter()
        .flat_map(|r| TX_V1.iter().map(move |&v| (r, v)))
    {
        let mut oracle_batches = batches.to_vec();
        oracle(pool(), &mut oracle_batches, reject_non_vote, tx_v1);
        let want = flags(&oracle_batches);
        let runs: [(&str, Stage); 3] = [
            ("ed25519_verify", &|b| {
                ours(pool(), b, reject_non_vote, tx_v1)
            }),
            ("Verifier::ed25519_verify", &|b| {
                ours_on(verifier(), pool(), b, reject_non_vote, tx_v1)
            }),
            ("Verifier::verify", &|b| {
                ours_own(verifier(), b, reject_non_vote, tx_v1)
            }),
        ];
        for (name, run) in runs {
            let mut ours = batches.to_vec();
            run(&mut ours);
            let got = flags(&ours);
            assert_eq!(got.len(), want.len());
            if let Some(i) = (0..want.len()).find(|&i| got[i] != want[i]) {
                let packet = ours.iter().flat_map(|b| b.iter()).nth(i).unwrap();
                panic!(
                    "{what}, {name}, reject_non_vote {reject_non_vote}, tx_v1 {tx_v1}: packet \
                     {i} of {}: solana-perf {LINE} {:?}, linesig-agave {:?}; size {}, bytes \
                     {:02x?}",
                    want.len(),
                    want[i],
                    got[i],
                    packet.meta().size,
                    batches
                        .iter()
                        .flat_map(|b| b.iter())
                        .nth(i)
                        .and_then(|p| p.data(..).map(<[u8]>::to_vec))
                );
            }
        }
        seen.packets += want.len();
        seen.kept += want
            .iter()
            .filter(|f| !f.contains(PacketFlags::DISCARD))
            .count();
        seen.votes += want
            .iter()
            .filter(|f| f.contains(PacketFlags::SIMPLE_VOTE_TX))
            .count();
    }
    seen
}

fn compare_every_layout(cases: &[Case], what: &str) -> Seen {
    let mut seen = Seen::default();
    for layout in [
        Layout::Bytes(64),
        Layout::Pinned(64),
        Layout::Single,
        Layout::Mixed(7),
    ] {
        let s = compare(&batches(cases, layout), &format!("{what} ({layout:?})"));
        seen.packets += s.packets;
        seen.kept += s.kept;
        seen.votes += s.votes;
    }
    seen
}

/// Honest transactions: legacy, v0 and v1, one to twelve signatures, and simple votes.
fn honest(signers: &mut Signers) -> Vec<Case> {
    let mut cases = Vec::new();
    for version in [Version::Legacy, Version::V0, Version::V1] {
        for n in 1..=12 {
            let keys = signers.pick(n);
            cases.push(Case::new(signed(version, &keys, 1, SYSTEM_PROGRAM)));
        }
    }
    for version in [Version::Legacy, Version::V0] {
        for n in [1, 2] {
            let keys = signers.pick(n);
            cases.push(Case::new(vote(version, &keys)));
        }
        // Three signers: never a simple vote, even to the vote program.
        let keys = signers.pick(3);
        cases.push(Case::new(vote(version, &keys)));
    }
    cases
}

#[test]
fn honest_transactions_and_votes() {
    let mut signers = Signers::new(1, 40);
    let cases = honest(&mut signers);
    let seen = compare_every_layout(&cases, "honest");
    // Legacy and v0 pass (v1 only from 4.1, when enabled); the votes are flagged.
    assert!(seen.kept > 0 && seen.votes > 0, "{seen:?}");
}

/// From 4.1: honest v1 transactions pass exactly when `enable_tx_v1` is set, and a
/// corrupted one never does.
#[cfg(not(feature = "solana-perf-4-0"))]
#[test]
fn v1_transactions_pass_only_when_enabled() {
    let mut signers = Signers::new(10, 40);
    let mut good = Vec::new();
    for n in [1, 2, 3, 8] {
        for instructions in [1, 3] {
            good.push(Case::new(signed(
                Version::V1,
                &signers.pick(n),
                instructions,
                SYSTEM_PROGRAM,
            )));
        }
    }
    for tx_v1 in [false, true] {
        let mut b = batches(&good, Layout::Mixed(3));
        oracle(pool(), &mut b, false, tx_v1);
        let kept = flags(&b)
            .iter()
            .filter(|f| !f.contains(PacketFlags::DISCARD))
            .count();
        assert_eq!(kept, if tx_v1 { good.len() } else { 0 }, "tx_v1 {tx_v1}");
    }
    compare_every_layout(&good, "honest v1");
    let mut bad = Vec::new();
    for case in &good {
        let n = usize::from(case.bytes[1]);
        let len = case.bytes.len();
        for at in [
            len - 64 * n,     // the first signature's R
            len - 1,          // the last signature's S
            V1_KEY_START + 5, // the first signer's key
            len - 64 * n - 1, // the last byte of the message
            2,                // the header
        ] {
            let mut p = case.bytes.clone();
            p[at] ^= 0x20;
            bad.push(Case::new(p));
        }
    }
    let seen = compare_every_layout(&bad, "corrupted v1");
    assert_eq!(seen.kept, 0, "{seen:?}");
}

#[test]
fn corrupted_signatures_keys_and_messages() {
    let mut signers = Signers::new(2, 40);
    let mut cases = Vec::new();
    for version in [Version::Legacy, Version::V0] {
        for n in [1, 2, 5, 12] {
            let keys = signers.pick(n);
            let good = signed(version, &keys, 1, SYSTEM_PROGRAM);
            let start = message_start(n);
            let key_at = start + usize::from(version == Version::V0) + 4;
            for (at, bit) in [
                (1, 0),                     // first signature's R
                (1 + 63, 7),                // first signature's S, top bit
                (1 + 64 * (n - 1) + 40, 3), // last signature's S
                (key_at, 0),                // first key
                (key_at + 32 * (n - 1) + 31, 6),
                (start + 2, 0), // the header's read-only counts
                (good.len() - 1, 0),
            ] {
                let mut bad = good.clone();
                bad[at] ^= 1 << bit;
                cases.push(Case::new(bad));
            }
        }
    }
    compare_every_layout(&cases, "corrupted");
}

#[test]
fn adversarial_keys_r_and_s() {
    let mut signers = Signers::new(3, 20);
    let mut cases = Vec::new();
    for version in [Version::Legacy, Version::V0] {
        let keys = signers.pick(2);
        let good = signed(version, &keys, 1, SYSTEM_PROGRAM);
        let key_at = message_start(2) + usize::from(version == Version::V0) + 4;
        for encoding in small_order_encodings()
            .into_iter()
            .chain(non_canonical_encodings())
        {
            for signature in 0..2 {
                let mut key = good.clone();
                key[key_at + 32 * signature..][..32].copy_from_slice(&encoding);
                cases.push(Case::new(key));
                let mut r = good.clone();
                r[1 + 64 * signature..][..32].copy_from_slice(&encoding);
                cases.push(Case::new(r));
            }
        }
        // S + L: the same point equation, refused for S ≥ L.
        let mut s = good.clone();
        let high = plus_l(&good[33..65]);
        s[33..65].copy_from_slice(&high);
        cases.push(Case::new(s));
        // A signature that holds under a mixed-order key (accepted by verify_strict).
        for _ in 0..4 {
            cases.push(Case::new(mixed_order_valid(&mut signers.rng, version)));
        }
    }
    let seen = compare_every_layout(&cases, "adversarial");
    assert!(
        seen.kept > 0,
        "the mixed-order signatures must pass: {seen:?}"
    );
}

#[test]
fn truncated_at_every_length() {
    let mut signers = Signers::new(4, 20);
    let mut cases = Vec::new();
    for good in [
        signed(Version::Legacy, &signers.pick(2), 2, SYSTEM_PROGRAM),
        signed(Version::V0, &signers.pick(1), 1, SYSTEM_PROGRAM),
        vote(Version::Legacy, &signers.pick(1)),
        signed(Version::V1, &signers.pick(2), 1, SYSTEM_PROGRAM),
    ] {
        for len in 0..=good.len() {
            cases.push(Case::new(good[..len].to_vec()));
        }
        // A `BytesPacket` whose `meta.size` is shorter or longer than its buffer.
        for size in [0, 65, 200, good.len() - 1, good.len() + 1, good.len() + 500] {
            cases.push(Case {
                size: Some(size),
                ..Case::new(good.clone())
            });
        }
    }
    compare_every_layout(&cases, "truncated");
}

#[test]
fn broken_headers_counts_and_instruction_limits() {
    let mut signers = Signers::new(5, 20);
    let mut cases = Vec::new();
    for version in [Version::Legacy, Version::V0] {
        let keys = signers.pick(2);
        let m = message(version, &keys, 1, SYSTEM_PROGRAM);
        let header = message_start(2) + usize::from(version == Version::V0);
        let good = sign(&m, &keys);
        // The signature count off by one either way, and as an alias.
        for count in [1u8, 3, 0] {
            let mut bad = good.clone();
            bad[0] = count;
            cases.push(Case::new(bad));
        }
        let mut alias = vec![0x82, 0x00];
        alias.extend_from_slice(&good[1..]);
        cases.push(Case::new(alias));
        // num_required_signatures off by one; the payer read-only.
        for (at, value) in [(header, 1u8), (header, 3), (header + 1, 2), (header + 1, 3)] {
            let mut bad = good.clone();
            bad[at] = value;
            cases.push(Case::new(bad));
        }
        // More keys than the packet holds, fewer keys than signatures.
        for keys_byte in [1u8, 0x7f, 0x80] {
            let mut bad = good.clone();
            bad[header + 3] = keys_byte;
            cases.push(Case::new(bad));
        }
        // 64 instructions pass, 65 do not (SIMD-0160).
        for instructions in [63, 64, 65, 66] {
            let keys = signers.pick(1);
            let p = signed(version, &keys, instructions, SYSTEM_PROGRAM);
            if p.len() <= 4096 {
                cases.push(Case::new(p));
            }
        }
        // Versions other than v0 behind the prefix bit.
        for prefix in [0x81u8, 0xff] {
            let mut bad = good.clone();
            bad[message_start(2)] = prefix;
            cases.push(Case::new(bad));
        }
    }
    let seen = compare_every_layout(&cases, "headers");
    assert!(seen.kept > 0, "{seen:?}");
}

#[test]
fn flags_set_before_the_call() {
    let mut signers = Signers::new(6, 20);
    let mut cases = Vec::new();
    for good in [
        signed(Version::Legacy, &signers.pick(1), 1, SYSTEM_PROGRAM),
        vote(Version::Legacy, &signers.pick(2)),
        vote(Version::V0, &signers.pick(1)),
    ] {
        let mut bad = good.clone();
        bad[5] ^= 1;
        for bytes in [good.clone(), bad] {
            for flags in [
                PacketFlags::DISCARD,
                PacketFlags::SIMPLE_VOTE_TX,
                PacketFlags::DISCARD | PacketFlags::SIMPLE_VOTE_TX,
                PacketFlags::FORWARDED,
            ] {
                cases.push(Case {
                    flags,
                    ..Case::new(bytes.clone())
                });
            }
        }
    }
    compare_every_layout(&cases, "pre-set flags");
}

#[test]
fn batch_sizes_and_empty_batches() {
    let mut signers = Signers::new(7, 64);
    let mut rng = ChaCha20Rng::seed_from_u64(7);
    let pool_of: Vec<Case> = (0..64)
        .map(|i| {
            let n = 1 + i % 3;
            let keys = signers.pick(n);
            let mut p = match i % 4 {
                0 => vote(Version::Legacy, &keys[..1]),
                1 => signed(Version::V0, &keys, 1, SYSTEM_PROGRAM),
                _ => signed(Version::Legacy, &keys, 1, SYSTEM_PROGRAM),
            };
            if i % 5 == 0 {
                let at = rng.gen_range(0..p.len());
                p[at] ^= 0x10;
            }
            Case::new(p)
        })
        .collect();
    compare(&[], "no batches");
    for size in [0usize, 1, 127, 128, 129, 1000] {
        let cases: Vec<Case> = (0..size).map(|i| pool_of[i % 64].clone()).collect();
        for layout in [
            Layout::Bytes(size),
            Layout::Pinned(size),
            Layout::Mixed(size),
        ] {
            let mut b = batches(&cases, layout);
            if size == 0 {
                b = vec![
                    PacketBatch::Bytes(Default::default()),
                    PacketBatch::Pinned(solana_perf::packet::RecycledPacketBatch::new(vec![])),
                ];
            }
            compare(&b, &format!("{size} packets, {layout:?}"));
        }
    }
}

/// One mutation of a valid packet: bit flips, byte inserts and deletes, truncation,
/// a byte set to a value the parser branches on, a `meta.size` off the buffer's length.
fn mutate(rng: &mut ChaCha20Rng, good: &[u8]) -> Case {
    let mut p = good.to_vec();
    let mut size = None;
    let edits = 1 + rng.gen_range(0..3);
    for _ in 0..edits {
        if p.is_empty() {
            break;
        }
        let at = rng.gen_range(0..p.len());
        match rng.gen_range(0..10) {
            0..=3 => p[at] ^= 1 << rng.gen_range(0..8),
            4 => p.insert(at, rng.gen()),
            5 => {
                p.remove(at);
            }
            6 => p.truncate(at),
            7 => {
                // Near the front, where the counts and the header are.
                let front = rng.gen_range(0..p.len().clamp(1, 80));
                let at = if rng.gen() {
                    front
                } else {
                    (front + 64) % p.len()
                };
                p[at] = [0, 1, 2, 3, 0x7f, 0x80, 0x81, 0xff][rng.gen_range(0..8)];
            }
            8 => {
                let extra = rng.gen_range(1..40);
                p.extend((0..extra).map(|_| rng.gen::<u8>()));
            }
            _ => size = Some(rng.gen_range(0..p.len() + 64)),
        }
    }
    Case {
        size,
        ..Case::new(p)
    }
}

#[test]
fn seeded_mutations_match_solana_perf() {
    let total: usize = std::env::var("LINESIG_AGAVE_FUZZ_PACKETS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(1_000_000);
    let seed: u64 = std::env::var("LINESIG_AGAVE_FUZZ_SEED")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(8);
    let mut signers = Signers::new(seed, 200);
    let mut rng = ChaCha20Rng::seed_from_u64(seed);
    let bases: Vec<Vec<u8>> = (0..600)
        .map(|i| {
            let n = [1, 1, 1, 2, 2, 3, 5, 8][i % 8];
            let keys = signers.pick(n);
            match i % 6 {
                0 => vote(Version::Legacy, &keys[..n.min(2)]),
                1 => vote(Version::V0, &keys[..1]),
                2 => signed(Version::V0, &keys, 1 + i % 3, SYSTEM_PROGRAM),
                3 => signed(Version::V1, &keys, 1 + i % 2, SYSTEM_PROGRAM),
                _ => signed(Version::Legacy, &keys, 1 + i % 2, SYSTEM_PROGRAM),
            }
        })
        .collect();
    let mut seen = Seen::default();
    let mut done = 0;
    let mut round = 0;
    while done < total {
        let chunk = (total - done).min(4096);
        let cases: Vec<Case> = (0..chunk)
            .map(|_| {
                let base = &bases[rng.gen_range(0..bases.len())];
                // One in eight left intact, so valid packets and votes stay in the mix.
                if rng.gen_range(0..8) == 0 {
                    Case::new(base.clone())
                } else {
                    mutate(&mut rng, base)
                }
            })
            .collect();
        let layout = match round % 3 {
            0 => Layout::Bytes(128),
            1 => Layout::Pinned(64),
            _ => Layout::Mixed(100),
        };
        let s = compare(
            &batches(&cases, layout),
            &format!("seed {seed}, round {round}"),
        );
        seen.packets += s.packets;
        seen.kept += s.kept;
        seen.votes += s.votes;
        done += chunk;
        round += 1;
    }
    eprintln!(
        "linesig-agave: {done} mutated packets (seed {seed}), each both ways of \
         setting of the stage: {} verdicts equal to solana-perf {LINE}'s, {} kept, {} simple \
         votes",
        seen.packets, seen.kept, seen.votes
    );
    assert!(
        seen.kept > 0 && seen.votes > 0 && seen.kept < seen.packets,
        "{seen:?}"
    );
}

#[test]
fn the_vote_program_id_is_agaves() {
    assert_eq!(
        linesig_agave::VOTE_PROGRAM_ID,
        solana_sdk_ids::vote::id().to_bytes()
    );
}
