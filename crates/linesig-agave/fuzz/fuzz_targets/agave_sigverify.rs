//! Arbitrary packets through linesig-agave and through solana-perf's `ed25519_verify`:
//! every packet ends with the same flags. The input is cut into packets at each 0xFE 0xFE
//! pair (so the fuzzer can grow several packets); the first byte picks the batch kind,
//! `reject_non_vote`, `enable_tx_v1` and whether the first packet's `meta.size`
//! overstates its buffer. Built for the default line (solana-perf 4.2).
#![no_main]

use libfuzzer_sys::fuzz_target;
use solana_perf::packet::bytes::Bytes;
use solana_perf::packet::{BytesPacket, Meta, Packet, PacketBatch, RecycledPacketBatch};
use std::sync::OnceLock;

fn pool() -> &'static rayon::ThreadPool {
    static POOL: OnceLock<rayon::ThreadPool> = OnceLock::new();
    POOL.get_or_init(|| rayon::ThreadPoolBuilder::new().num_threads(2).build().unwrap())
}

fuzz_target!(|input: &[u8]| {
    let Some((&control, rest)) = input.split_first() else {
        return;
    };
    let mut packets: Vec<&[u8]> = Vec::new();
    let mut start = 0;
    let mut i = 0;
    while i + 1 < rest.len() {
        if rest[i] == 0xfe && rest[i + 1] == 0xfe {
            packets.push(&rest[start..i]);
            start = i + 2;
            i += 2;
        } else {
            i += 1;
        }
    }
    packets.push(&rest[start..]);
    let meta = |len: usize, extra: usize| {
        let mut meta = Meta::default();
        meta.size = len + extra;
        meta
    };
    let overstate = usize::from(control & 4 != 0) * 7;
    let batches: Vec<PacketBatch> = if control & 1 == 0 {
        vec![PacketBatch::Bytes(
            packets
                .iter()
                .enumerate()
                .map(|(i, p)| {
                    BytesPacket::new(Bytes::copy_from_slice(p), meta(p.len(), if i == 0 { overstate } else { 0 }))
                })
                .collect(),
        )]
    } else {
        vec![PacketBatch::Pinned(RecycledPacketBatch::new(
            packets
                .iter()
                .filter(|p| p.len() <= solana_perf::packet::PACKET_DATA_SIZE)
                .map(|p| {
                    let mut buffer = [0u8; solana_perf::packet::PACKET_DATA_SIZE];
                    buffer[..p.len()].copy_from_slice(p);
                    Packet::new(buffer, meta(p.len(), 0))
                })
                .collect(),
        ))]
    };
    let reject_non_vote = control & 2 != 0;
    let tx_v1 = control & 8 != 0;
    let mut oracle = batches.clone();
    solana_perf::sigverify::ed25519_verify(pool(), &mut oracle, reject_non_vote, packets.len(), tx_v1);
    let mut ours = batches;
    linesig_agave::ed25519_verify(pool(), &mut ours, reject_non_vote, packets.len(), tx_v1);
    let flags = |b: &[PacketBatch]| -> Vec<_> {
        b.iter().flat_map(|b| b.iter().map(|p| p.meta().flags)).collect()
    };
    assert_eq!(flags(&ours), flags(&oracle));
});
