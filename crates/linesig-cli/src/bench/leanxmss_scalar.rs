//! The yardstick `linesig bench --scheme leanxmss` measures against in the same run: the
//! spec's algorithms (cryptography-specs `Xmss/*.lean`) one signature, epoch or attempt
//! at a time, every hash through RustCrypto's `blake2` crate: what a client that wraps
//! a scalar BLAKE2s would run. It shares no code with linesig's lanes (only the
//! constants the spec fixes), so its results also check linesig's in the benchmark.

use blake2::{Blake2s256, Digest as _};
use linesig::leanxmss::{
    Instance, TweakKind, CHAINS, CHAIN_LENGTH, DIGEST_BYTES, LOG_LIFETIME, RANDOMNESS_BYTES,
    TARGET_SUM,
};

type Node = [u8; DIGEST_BYTES];

/// `BLAKE2s-256(tweak ‖ pp ‖ payload…)`: the tweak's bytes as linesig's instance
/// names them (the one thing taken from linesig: which bytes the call sites are).
fn hash(
    instance: Instance,
    pp: &[u8],
    kind: TweakKind,
    sub: u32,
    index: u32,
    payload: &[&[u8]],
) -> [u8; 32] {
    let mut tweak = [0u8; 16];
    tweak[1] = instance.tweak_type_byte(kind);
    tweak[4..8].copy_from_slice(&sub.to_le_bytes());
    tweak[12..16].copy_from_slice(&index.to_le_bytes());
    let mut h = Blake2s256::new();
    h.update(tweak);
    h.update(pp);
    for part in payload {
        h.update(part);
    }
    h.finalize().into()
}

fn node(
    instance: Instance,
    pp: &[u8],
    kind: TweakKind,
    sub: u32,
    index: u32,
    payload: &[&[u8]],
) -> Node {
    hash(instance, pp, kind, sub, index, payload)[..DIGEST_BYTES]
        .try_into()
        .expect("16 bytes")
}

/// `wotsEncode`: the digits, if admissible.
fn encode(
    instance: Instance,
    pp: &[u8],
    message: &[u8],
    rnd: &[u8],
    epoch: u32,
) -> Option<[u8; CHAINS]> {
    let d = node(
        instance,
        pp,
        TweakKind::Encoding,
        0,
        epoch,
        &[message, rnd, &[0; 8]],
    );
    let halves = [
        u64::from_le_bytes(d[..8].try_into().expect("8 bytes")),
        u64::from_le_bytes(d[8..].try_into().expect("8 bytes")),
    ];
    if halves.iter().any(|h| h >> 63 != 0) {
        return None;
    }
    let digits: [u8; CHAINS] =
        core::array::from_fn(|i| ((halves[i / 21] >> (3 * (i % 21))) & 7) as u8);
    (digits.iter().map(|&d| d as usize).sum::<usize>() == TARGET_SUM).then_some(digits)
}

fn chain(
    instance: Instance,
    pp: &[u8],
    epoch: u32,
    index: usize,
    from: usize,
    steps: usize,
    mut value: Node,
) -> Node {
    for position in from..from + steps {
        let sub = (index * CHAIN_LENGTH + position) as u32;
        value = node(instance, pp, TweakKind::Chain, sub, epoch, &[&value]);
    }
    value
}

/// The spec's `verify`, one signature (sizes checked by the caller).
pub fn verify(
    instance: Instance,
    public_key: &[u8],
    epoch: u32,
    message: &[u8],
    signature: &[u8],
) -> bool {
    let (root, pp) = public_key.split_at(DIGEST_BYTES);
    let tips_end = CHAINS * DIGEST_BYTES;
    let rnd = &signature[tips_end..tips_end + RANDOMNESS_BYTES];
    let Some(digits) = encode(instance, pp, message, rnd, epoch) else {
        return false;
    };
    let mut leaf_input = Vec::with_capacity(tips_end);
    for (i, tip) in signature[..tips_end].chunks_exact(DIGEST_BYTES).enumerate() {
        let x = digits[i] as usize;
        let end = chain(
            instance,
            pp,
            epoch,
            i,
            x,
            CHAIN_LENGTH - 1 - x,
            tip.try_into().expect("16 bytes"),
        );
        leaf_input.extend_from_slice(&end);
    }
    let mut current = node(instance, pp, TweakKind::Leaf, 0, epoch, &[&leaf_input]);
    let path = &signature[tips_end + RANDOMNESS_BYTES..];
    for (level, sibling) in path.chunks_exact(DIGEST_BYTES).enumerate() {
        let parent = (epoch as u64 >> (level + 1)) as u32;
        let (l, r) = if (epoch >> level) & 1 == 0 {
            (&current[..], sibling)
        } else {
            (sibling, &current[..])
        };
        current = node(
            instance,
            pp,
            TweakKind::Merkle,
            level as u32 + 1,
            parent,
            &[l, r],
        );
    }
    current == root
}

/// The signer's randomizer search (`findRandomness`): attempts from 0 until one
/// encodes; the attempt number.
pub fn randomizer_search(
    instance: Instance,
    seed: &[u8; 32],
    pp: &[u8],
    message: &[u8],
    epoch: u32,
) -> u32 {
    (0..=u32::MAX)
        .find(|&trial| {
            let full = hash(
                instance,
                pp,
                TweakKind::Randomizer,
                trial,
                epoch,
                &[seed, message],
            );
            encode(instance, pp, message, &full[..RANDOMNESS_BYTES], epoch).is_some()
        })
        .expect("an admissible attempt within 2^32 (probability of none below 2^-256)")
}

/// `keyGen`: the public key of `seed` over epochs `start..=end`, every leaf and node
/// computed one at a time.
pub fn key_gen(instance: Instance, seed: &[u8; 32], start: u32, end: u32) -> [u8; 32] {
    let pp = node(instance, &[0; 16], TweakKind::Parameter, 0, 0, &[seed]);
    let mut level: Vec<Node> = (start..=end)
        .map(|epoch| {
            let mut ends = Vec::with_capacity(CHAINS * DIGEST_BYTES);
            for i in 0..CHAINS {
                let secret = node(instance, &pp, TweakKind::Prf, i as u32, epoch, &[seed]);
                ends.extend_from_slice(&chain(
                    instance,
                    &pp,
                    epoch,
                    i,
                    0,
                    CHAIN_LENGTH - 1,
                    secret,
                ));
            }
            node(instance, &pp, TweakKind::Leaf, 0, epoch, &[&ends])
        })
        .collect();
    for l in 0..LOG_LIFETIME {
        let first_below = start as u64 >> l;
        let child = |i: u64| -> Node {
            match i
                .checked_sub(first_below)
                .and_then(|k| level.get(k as usize))
            {
                Some(n) => *n,
                None => node(
                    instance,
                    &pp,
                    TweakKind::Filler,
                    l as u32,
                    i as u32,
                    &[seed],
                ),
            }
        };
        level = (start as u64 >> (l + 1)..=end as u64 >> (l + 1))
            .map(|j| {
                node(
                    instance,
                    &pp,
                    TweakKind::Merkle,
                    l as u32 + 1,
                    j as u32,
                    &[&child(2 * j), &child(2 * j + 1)],
                )
            })
            .collect();
    }
    let mut out = [0u8; 32];
    out[..16].copy_from_slice(&level[0]);
    out[16..].copy_from_slice(&pp);
    out
}
