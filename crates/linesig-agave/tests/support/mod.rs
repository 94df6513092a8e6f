//! Packets for the comparison with solana-perf: honest transactions of every shape the
//! stage meets, the adversarial ones, the three batch kinds, and the comparison itself.

#![allow(dead_code)] // each test binary uses its own part

use curve25519_dalek::constants::{ED25519_BASEPOINT_POINT, EIGHT_TORSION};
use curve25519_dalek::{EdwardsPoint, Scalar};
use ed25519_dalek::{Signer as _, SigningKey};
use linesig::wire::build::{Instruction, Message};
use linesig::wire::Version;
use linesig_agave::{Verifier, VOTE_PROGRAM_ID};
use rand::{Rng, RngCore, SeedableRng};
use rand_chacha::ChaCha20Rng;
use sha2::{Digest, Sha512};
use solana_perf::packet::bytes::Bytes;
use solana_perf::packet::{
    BytesPacket, BytesPacketBatch, Meta, Packet, PacketBatch, PacketFlags, RecycledPacketBatch,
    PACKET_DATA_SIZE,
};

pub const SYSTEM_PROGRAM: [u8; 32] = [0; 32];

/// The `enable_tx_v1` settings the line's `ed25519_verify` takes (4.0 has no such
/// argument: one run, the value unused).
#[cfg(feature = "solana-perf-4-0")]
pub const TX_V1: &[bool] = &[false];
#[cfg(not(feature = "solana-perf-4-0"))]
pub const TX_V1: &[bool] = &[false, true];

/// The line's solana-perf version, for messages.
pub const LINE: &str = if cfg!(feature = "solana-perf-4-0") {
    "4.0"
} else if cfg!(feature = "solana-perf-4-1") {
    "4.1"
} else {
    "4.2"
};

fn packets(batches: &[PacketBatch]) -> usize {
    batches.iter().map(PacketBatch::len).sum()
}

/// solana-perf's own `sigverify::ed25519_verify`, with the line's arguments.
pub fn oracle(pool: &rayon::ThreadPool, b: &mut [PacketBatch], reject_non_vote: bool, tx_v1: bool) {
    let count = packets(b);
    #[cfg(feature = "solana-perf-4-0")]
    {
        let _ = tx_v1;
        solana_perf::sigverify::ed25519_verify(pool, b, reject_non_vote, count);
    }
    #[cfg(not(feature = "solana-perf-4-0"))]
    solana_perf::sigverify::ed25519_verify(pool, b, reject_non_vote, count, tx_v1);
}

/// linesig-agave's free function, with the line's arguments.
pub fn ours(pool: &rayon::ThreadPool, b: &mut [PacketBatch], reject_non_vote: bool, tx_v1: bool) {
    let count = packets(b);
    #[cfg(feature = "solana-perf-4-0")]
    {
        let _ = tx_v1;
        linesig_agave::ed25519_verify(pool, b, reject_non_vote, count);
    }
    #[cfg(not(feature = "solana-perf-4-0"))]
    linesig_agave::ed25519_verify(pool, b, reject_non_vote, count, tx_v1);
}

/// `Verifier::ed25519_verify` on `pool`, with the line's arguments.
pub fn ours_on(
    v: &Verifier,
    pool: &rayon::ThreadPool,
    b: &mut [PacketBatch],
    reject_non_vote: bool,
    tx_v1: bool,
) {
    let count = packets(b);
    #[cfg(feature = "solana-perf-4-0")]
    {
        let _ = tx_v1;
        v.ed25519_verify(pool, b, reject_non_vote, count);
    }
    #[cfg(not(feature = "solana-perf-4-0"))]
    v.ed25519_verify(pool, b, reject_non_vote, count, tx_v1);
}

/// `Verifier::verify` on its own pool, with the line's arguments.
pub fn ours_own(v: &Verifier, b: &mut [PacketBatch], reject_non_vote: bool, tx_v1: bool) {
    #[cfg(feature = "solana-perf-4-0")]
    {
        let _ = tx_v1;
        v.verify(b, reject_non_vote);
    }
    #[cfg(not(feature = "solana-perf-4-0"))]
    v.verify(b, reject_non_vote, tx_v1);
}

/// One packet before it is put in a batch: its bytes, `meta.size` when it is not the
/// length (a `BytesPacket` whose size disagrees with its buffer), and flags set before
/// the call (`DISCARD`, `SIMPLE_VOTE_TX`).
#[derive(Clone, Debug)]
pub struct Case {
    pub bytes: Vec<u8>,
    pub size: Option<usize>,
    pub flags: PacketFlags,
}

impl Case {
    pub fn new(bytes: Vec<u8>) -> Case {
        Case {
            bytes,
            size: None,
            flags: PacketFlags::empty(),
        }
    }

    fn meta(&self) -> Meta {
        let mut meta = Meta::default();
        meta.size = self.size.unwrap_or(self.bytes.len());
        meta.flags = self.flags;
        meta
    }

    pub fn bytes_packet(&self) -> BytesPacket {
        BytesPacket::new(Bytes::from(self.bytes.clone()), self.meta())
    }

    /// A pinned `Packet`, where the bytes fit its 1,232-byte buffer and the size does
    /// not exceed it (else `None`).
    pub fn pinned(&self) -> Option<Packet> {
        let meta = self.meta();
        if self.bytes.len() > PACKET_DATA_SIZE || meta.size > PACKET_DATA_SIZE {
            return None;
        }
        let mut buffer = [0u8; PACKET_DATA_SIZE];
        buffer[..self.bytes.len()].copy_from_slice(&self.bytes);
        Some(Packet::new(buffer, meta))
    }
}

/// How a list of cases is cut into batches.
#[derive(Clone, Copy, Debug)]
pub enum Layout {
    Bytes(usize),
    /// Pinned batches; a case that does not fit a pinned packet goes in a bytes batch.
    Pinned(usize),
    Single,
    /// Batches of every kind in turn, with an empty one of each kind between.
    Mixed(usize),
}

pub fn batches(cases: &[Case], layout: Layout) -> Vec<PacketBatch> {
    let bytes_batch = |c: &[Case]| {
        PacketBatch::Bytes(
            c.iter()
                .map(Case::bytes_packet)
                .collect::<BytesPacketBatch>(),
        )
    };
    let pinned_batch = |c: &[Case]| -> Vec<PacketBatch> {
        let (fit, rest): (Vec<_>, Vec<_>) = c.iter().partition(|c| c.pinned().is_some());
        let mut out = vec![PacketBatch::Pinned(RecycledPacketBatch::new(
            fit.iter().map(|c| c.pinned().unwrap()).collect(),
        ))];
        if !rest.is_empty() {
            out.push(PacketBatch::Bytes(
                rest.iter().map(|c| c.bytes_packet()).collect(),
            ));
        }
        out
    };
    match layout {
        Layout::Bytes(n) => cases.chunks(n.max(1)).map(bytes_batch).collect(),
        Layout::Pinned(n) => cases.chunks(n.max(1)).flat_map(pinned_batch).collect(),
        Layout::Single => cases
            .iter()
            .map(|c| PacketBatch::Single(c.bytes_packet()))
            .collect(),
        Layout::Mixed(n) => {
            let mut out = Vec::new();
            for (i, chunk) in cases.chunks(n.max(1)).enumerate() {
                match i % 3 {
                    0 => {
                        out.push(PacketBatch::Bytes(BytesPacketBatch::new()));
                        out.push(bytes_batch(chunk));
                    }
                    1 => {
                        out.push(PacketBatch::Pinned(RecycledPacketBatch::new(Vec::new())));
                        out.extend(pinned_batch(chunk));
                    }
                    _ => out.extend(chunk.iter().map(|c| PacketBatch::Single(c.bytes_packet()))),
                }
            }
            out
        }
    }
}

/// Every packet's flags, in batch order.
pub fn flags(batches: &[PacketBatch]) -> Vec<PacketFlags> {
    batches
        .iter()
        .flat_map(|b| b.iter().map(|p| p.meta().flags))
        .collect()
}

/// A signer set, seeded.
pub struct Signers {
    pub keys: Vec<SigningKey>,
    pub rng: ChaCha20Rng,
}

impl Signers {
    pub fn new(seed: u64, count: usize) -> Signers {
        let mut rng = ChaCha20Rng::seed_from_u64(seed);
        let keys = (0..count)
            .map(|_| {
                let mut secret = [0u8; 32];
                rng.fill_bytes(&mut secret);
                SigningKey::from_bytes(&secret)
            })
            .collect();
        Signers { keys, rng }
    }

    /// `n` distinct signers drawn from the set.
    pub fn pick(&mut self, n: usize) -> Vec<SigningKey> {
        let mut picked: Vec<usize> = Vec::with_capacity(n);
        while picked.len() < n {
            let k = self.rng.gen_range(0..self.keys.len());
            if !picked.contains(&k) {
                picked.push(k);
            }
        }
        picked.into_iter().map(|k| self.keys[k].clone()).collect()
    }
}

/// A transfer-like transaction: `signers` sign, two more accounts (a recipient and the
/// program), `instructions` instructions to the last account.
pub fn message(
    version: Version,
    signers: &[SigningKey],
    instructions: usize,
    program: [u8; 32],
) -> Message {
    let mut keys: Vec<[u8; 32]> = signers
        .iter()
        .map(|k| k.verifying_key().to_bytes())
        .collect();
    keys.push([0xab; 32]);
    keys.push(program);
    let n = signers.len() as u8;
    let mut m = Message::new(version, keys, n);
    m.header = [n, 0, 1];
    m.recent_blockhash = [0x5b; 32];
    for i in 0..instructions {
        m.instructions.push(Instruction {
            program: n + 1,
            accounts: vec![0, n],
            data: vec![2, 0, 0, 0, i as u8],
        });
    }
    m
}

/// The packet of `m` signed by `signers` (the first `signers.len()` keys).
pub fn sign(m: &Message, signers: &[SigningKey]) -> Vec<u8> {
    let bytes = m.signed_bytes();
    let signatures: Vec<[u8; 64]> = signers.iter().map(|k| k.sign(&bytes).to_bytes()).collect();
    m.to_packet(&signatures)
}

pub fn signed(
    version: Version,
    signers: &[SigningKey],
    instructions: usize,
    program: [u8; 32],
) -> Vec<u8> {
    sign(&message(version, signers, instructions, program), signers)
}

/// A simple vote: legacy or v0, one or two signers, one instruction to the vote program.
pub fn vote(version: Version, signers: &[SigningKey]) -> Vec<u8> {
    signed(version, signers, 1, VOTE_PROGRAM_ID)
}

/// Where a v1 packet's first address lies: version, header, config mask, lifetime,
/// instruction and address counts come first (SIMD-0385).
pub const V1_KEY_START: usize = 1 + 3 + 4 + 32 + 1 + 1;

/// Where the signed message of a legacy or v0 packet with `n` signatures starts.
pub fn message_start(n: usize) -> usize {
    1 + 64 * n
}

/// Encodings of small-order points: the eight canonical ones, and the non-canonical
/// encodings of those with a y that has one (y + p < 2^255: y = 0 and y = 1) and of the
/// sign bit set on x = 0.
pub fn small_order_encodings() -> Vec<[u8; 32]> {
    let mut out: Vec<[u8; 32]> = EIGHT_TORSION
        .iter()
        .map(|p| p.compress().to_bytes())
        .collect();
    // p = 2^255 − 19; y + p for y = 0 and 1.
    let mut p_bytes = [0xffu8; 32];
    p_bytes[0] = 0xed;
    p_bytes[31] = 0x7f;
    let mut p_plus_one = p_bytes;
    p_plus_one[0] = 0xee;
    out.push(p_bytes);
    out.push(p_plus_one);
    // x = 0 with the sign bit set, y = 1 and y = −1.
    let mut one_neg = [0u8; 32];
    one_neg[0] = 1;
    one_neg[31] = 0x80;
    out.push(one_neg);
    let mut minus_one = p_bytes;
    minus_one[0] = 0xec;
    minus_one[31] |= 0x80;
    out.push(minus_one);
    out
}

/// Non-canonical encodings of points that are not small order (y ≥ p), and bytes that
/// decode to no point.
pub fn non_canonical_encodings() -> Vec<[u8; 32]> {
    let mut out = Vec::new();
    for low in [0xefu8, 0xf0, 0xff] {
        let mut e = [0xffu8; 32];
        e[0] = low;
        e[31] = 0x7f;
        out.push(e);
        e[31] = 0xff;
        out.push(e);
    }
    let mut not_a_point = [0u8; 32];
    not_a_point[0] = 2; // y = 2 has no x on the curve
    out.push(not_a_point);
    out
}

/// A packet whose one signer's key has order 8L (a key plus an order-8 point) and whose
/// signature still holds under the cofactorless equation: the blockhash is varied until
/// k ≡ 0 (mod 8), so [k]T vanishes. `verify_strict` accepts it.
pub fn mixed_order_valid(rng: &mut ChaCha20Rng, version: Version) -> Vec<u8> {
    let a = Scalar::from(rng.gen::<u64>()) * Scalar::from(rng.gen::<u64>() | 1);
    let key = a * ED25519_BASEPOINT_POINT + EIGHT_TORSION[1];
    let key_bytes = key.compress().to_bytes();
    let r = Scalar::from(rng.gen::<u64>()) + Scalar::from(7u8);
    let big_r = (r * ED25519_BASEPOINT_POINT).compress().to_bytes();
    let mut m = Message::new(version, vec![key_bytes, [0xab; 32], SYSTEM_PROGRAM], 1);
    m.header = [1, 0, 1];
    m.instructions.push(Instruction {
        program: 2,
        accounts: vec![0, 1],
        data: vec![2, 0, 0, 0],
    });
    for nonce in 0u32.. {
        m.recent_blockhash[..4].copy_from_slice(&nonce.to_le_bytes());
        let bytes = m.signed_bytes();
        let digest: [u8; 64] = Sha512::new()
            .chain_update(big_r)
            .chain_update(key_bytes)
            .chain_update(&bytes)
            .finalize()
            .into();
        let k = Scalar::from_bytes_mod_order_wide(&digest);
        if !k.as_bytes()[0].is_multiple_of(8) {
            continue;
        }
        let s = r + k * a;
        let mut sig = [0u8; 64];
        sig[..32].copy_from_slice(&big_r);
        sig[32..].copy_from_slice(s.as_bytes());
        return m.to_packet(&[sig]);
    }
    unreachable!()
}

/// `s` + L as bytes (S ≥ L, still below 2^256 for s < 2^253).
pub fn plus_l(s: &[u8]) -> [u8; 32] {
    const L: [u8; 32] = [
        0xed, 0xd3, 0xf5, 0x5c, 0x1a, 0x63, 0x12, 0x58, 0xd6, 0x9c, 0xf7, 0xa2, 0xde, 0xf9, 0xde,
        0x14, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x10,
    ];
    let mut out = [0u8; 32];
    let mut carry = 0u16;
    for i in 0..32 {
        let v = u16::from(s[i]) + u16::from(L[i]) + carry;
        out[i] = v as u8;
        carry = v >> 8;
    }
    out
}

pub fn is_point(bytes: &[u8; 32]) -> Option<EdwardsPoint> {
    curve25519_dalek::edwards::CompressedEdwardsY(*bytes).decompress()
}
