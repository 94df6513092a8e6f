//! `linesig gen`'s generator: seeded Solana transfer-like transactions, and the mix of
//! invalid, duplicate and malformed packets a pipeline must sort out, each labelled with
//! the verdict the pipeline owes it.

pub use crate::workload::KeyDistribution;
use crate::workload::{seed32, stream, KeySampler};
use ed25519_dalek::{Signer as _, SigningKey};
use linesig::wire::build::{compact_len, Instruction, Message};
use linesig::wire::Version;
use rand::Rng;
use rayon::prelude::*;

/// What the pipeline must conclude about a packet.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Label {
    Valid,
    /// Well-formed, but one signature has a flipped bit.
    Invalid,
    /// A byte-for-byte copy of an earlier well-formed packet.
    Duplicate,
    /// Breaks a sanitize rule (truncated, trailing bytes, bad version, count mismatch).
    Malformed,
}

#[derive(Clone, Debug)]
pub struct GenSpec {
    pub count: usize,
    pub seed: u64,
    pub keys: KeyDistribution,
    pub signatures: (usize, usize),
    pub size: (usize, usize),
    pub versions: Vec<Version>,
    pub invalid: f64,
    pub duplicate: f64,
    pub malformed: f64,
    /// Fraction carrying an Ed25519 precompile instruction with one more signature.
    pub precompile: f64,
}

/// Most signatures a legacy or v0 transfer fits in 1232 bytes (its signers' keys, a
/// recipient and the system program take 96 bytes per signer plus ~120 bytes).
pub const MAX_LEGACY_SIGNATURES: usize = 11;

pub struct Generated {
    pub packet: Vec<u8>,
    pub label: Label,
    pub version: Version,
    pub signatures: usize,
}

// Stream domains, apart from the benchmark's (1–4).
const DOMAIN_SHAPE: u64 = 10;
const DOMAIN_KEY: u64 = 11;
const DOMAIN_MIX: u64 = 12;
const DOMAIN_PRECOMPILE_KEY: u64 = 13;

/// The `i`-th transaction, honest: its packet, version and signature count.
fn honest(spec: &GenSpec, sampler: &KeySampler, i: usize) -> (Vec<u8>, Version, usize) {
    let mut rng = stream(spec.seed, DOMAIN_SHAPE, i);
    let version = spec.versions[rng.gen_range(0..spec.versions.len())];
    let n = rng.gen_range(spec.signatures.0..=spec.signatures.1);
    // Signer slots are numbered i × MAX + j so `distinct` never repeats a key; a repeat
    // inside one transaction is replaced by a fresh key (addresses must be distinct).
    let mut indices: Vec<u64> = Vec::with_capacity(n);
    for j in 0..n {
        let slot = i * linesig::wire::MAX_SIGNATURES + j;
        let mut k = sampler.key(slot, &mut rng);
        if indices.contains(&k) {
            k = u64::MAX - slot as u64;
        }
        indices.push(k);
    }
    let signers: Vec<SigningKey> = indices
        .iter()
        .map(|&k| SigningKey::from_bytes(&seed32(spec.seed, DOMAIN_KEY, k as usize)))
        .collect();
    let mut accounts: Vec<[u8; 32]> = signers
        .iter()
        .map(|k| k.verifying_key().to_bytes())
        .collect();
    accounts.push(rng.gen()); // recipient
    accounts.push([0u8; 32]); // system program (read-only, unsigned)
    let mut m = Message::new(version, accounts, n as u8);
    m.header[2] = 1;
    m.recent_blockhash = rng.gen();
    // System transfer: u32 instruction 2, u64 lamports; then memo-like padding up to the
    // target size.
    let mut data = vec![2, 0, 0, 0];
    data.extend_from_slice(&rng.gen_range(1u64..1_000_000_000).to_le_bytes());
    m.instructions.push(Instruction {
        program: n as u8 + 1,
        accounts: vec![0, n as u8],
        data,
    });
    let limit = match version {
        Version::V1 => linesig::wire::V1_MAX_SIZE,
        _ => linesig::wire::PACKET_DATA_SIZE,
    };
    let count_prefix = usize::from(version != Version::V1);
    if rng.gen::<f64>() < spec.precompile {
        let signer = SigningKey::from_bytes(&seed32(spec.seed, DOMAIN_PRECOMPILE_KEY, i));
        add_precompile(&mut m, &signer, &rng.gen::<[u8; 32]>());
        if m.signed_bytes().len() + n * 64 + count_prefix > limit {
            // Too many signers to fit one more instruction: leave this one without.
            m.instructions.pop();
            m.account_keys.pop();
            m.header[2] -= 1;
        }
    }
    // Pad the instruction data up to the target packet size; the data's length prefix
    // grows by a byte past 127, so step back when that overshoots.
    let target = rng.gen_range(spec.size.0..=spec.size.1).min(limit);
    let base = m.signed_bytes().len() + n * 64 + count_prefix;
    let data_len = m.instructions[0].data.len();
    let grown = |pad: usize| base + pad + compact_len(data_len + pad) - compact_len(data_len);
    let mut pad = target.saturating_sub(base);
    while pad > 0 && grown(pad) > target {
        pad -= 1;
    }
    m.instructions[0].data.resize(data_len + pad, 0x6d);
    let bytes = m.signed_bytes();
    let sigs: Vec<[u8; 64]> = signers.iter().map(|k| k.sign(&bytes).to_bytes()).collect();
    let packet = linesig::wire::build::packet_from_signed(version, &bytes, &sigs);
    (packet, version, n)
}

/// Append an Ed25519 precompile instruction verifying `signer`'s signature on `message`,
/// with signature, key and message in the instruction's own data (offsets relative to
/// it, instruction indices `u16::MAX`), as wallets lay it out; the program id joins the
/// read-only unsigned accounts.
fn add_precompile(m: &mut Message, signer: &SigningKey, message: &[u8; 32]) {
    m.account_keys.push(linesig::wire::ED25519_PROGRAM_ID);
    m.header[2] += 1;
    const RECORDS_END: u16 = 2 + 14;
    let (signature, public_key, msg) = (RECORDS_END, RECORDS_END + 64, RECORDS_END + 96);
    let mut data = vec![1, 0];
    for v in [signature, u16::MAX, public_key, u16::MAX, msg, 32, u16::MAX] {
        data.extend_from_slice(&v.to_le_bytes());
    }
    data.extend_from_slice(&signer.sign(message).to_bytes());
    data.extend_from_slice(signer.verifying_key().as_bytes());
    data.extend_from_slice(message);
    m.instructions.push(Instruction {
        program: (m.account_keys.len() - 1) as u8,
        accounts: Vec::new(),
        data,
    });
}

/// A corruption that breaks exactly one sanitize rule.
fn malform(packet: &mut Vec<u8>, version: Version, rng: &mut impl Rng) {
    match rng.gen_range(0..4) {
        0 => {
            let cut = rng.gen_range(1..=10.min(packet.len() - 1));
            packet.truncate(packet.len() - cut);
        }
        1 => packet.push(rng.gen()),
        // An unknown message version.
        2 => {
            let at = if version == Version::V1 {
                0
            } else {
                1 + 64 * usize::from(packet[0])
            };
            packet[at] = 0x85;
        }
        // The signature count no longer matches the header.
        _ => {
            if version == Version::V1 {
                packet.truncate(packet.len() - 64);
            } else {
                // num_required_signatures: the message's first byte, after 0x80 for v0.
                let n = usize::from(packet[0]);
                let at = 1 + 64 * n + usize::from(version == Version::V0);
                packet[at] ^= if n == 1 { 0x03 } else { 0x01 };
            }
        }
    }
}

/// Generate the whole mix in parallel (signing dominates). Packet `i`'s bytes depend
/// only on (seed, i), whatever the thread count.
pub fn generate(spec: &GenSpec, progress: &(dyn Fn(usize) + Sync)) -> Vec<Generated> {
    let sampler = spec.keys.sampler();
    let mut out: Vec<Generated> = (0..spec.count)
        .into_par_iter()
        .map(|i| {
            let (mut packet, version, signatures) = honest(spec, &sampler, i);
            let mut rng = stream(spec.seed, DOMAIN_MIX, i);
            let roll: f64 = rng.gen();
            let label = if roll < spec.malformed {
                malform(&mut packet, version, &mut rng);
                Label::Malformed
            } else if roll < spec.malformed + spec.invalid {
                let sig = rng.gen_range(0..signatures);
                let at = if version == Version::V1 {
                    packet.len() - 64 * (signatures - sig)
                } else {
                    1 + 64 * sig
                };
                packet[at + rng.gen_range(0..64)] ^= 1 << rng.gen_range(0..8);
                Label::Invalid
            } else {
                Label::Valid
            };
            progress(1);
            Generated {
                packet,
                label,
                version,
                signatures,
            }
        })
        .collect();
    // Duplicates replace packets with copies of an earlier well-formed one.
    let mut rng = stream(spec.seed, DOMAIN_MIX, usize::MAX >> 16);
    for i in 1..out.len() {
        if rng.gen::<f64>() < spec.duplicate {
            let j = rng.gen_range(0..i);
            if matches!(out[j].label, Label::Valid | Label::Invalid) {
                out[i] = Generated {
                    packet: out[j].packet.clone(),
                    label: Label::Duplicate,
                    version: out[j].version,
                    signatures: out[j].signatures,
                };
            }
        }
    }
    out
}
