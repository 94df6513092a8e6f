//! The tweakable hash, the leaf sponge and the message hash of both leanSig layouts,
//! over lanes: lane k of every call belongs to signature (or leaf) k.
//!
//! Layouts (leanSig `symmetric/tweak_hash/poseidon.rs`, `message_hash/*.rs`):
//!
//! | | devnet-4 (c08a3ba, Poseidon1) | legacy (73bedc2, Poseidon2) |
//! |---|---|---|
//! | chain step, width 16 | value ‖ parameter ‖ tweak | parameter ‖ tweak ‖ value |
//! | tree node, width 24 | parameter ‖ tweak ‖ left ‖ right | the same |
//! | leaf sponge, width 24 | [capacity 9 ‖ rate 15], input replaces the rate | [rate 15 ‖ capacity 9], input is added |
//! | message hash, width 24 | message ‖ parameter ‖ epoch ‖ rho → 8 | rho ‖ parameter ‖ epoch ‖ message ‖ 0 → 15 |
//!
//! Every compression is C(x) = (Perm(pad(x)) + pad(x))[..out], zero-padded to the width.

use super::lanes::{add_mod, monty_mul, to_monty, KoalaLanes, P, R2};
use super::{Digest, HashFamily, Params, CAPACITY, MESSAGE_LEN, PARAMETER_LEN};

/// Most lanes of any backend (AVX-512: 16).
pub const MAX_LANES: usize = 16;

/// A state of width W, one column of lane values per element.
pub type Columns<const W: usize> = [[u32; MAX_LANES]; W];

const TWEAK_TREE: u64 = 0x01;
const TWEAK_MESSAGE: u64 = 0x02;

/// A tweak's integer as two base-p digits, least significant first, in Montgomery form.
fn tweak_elements(value: u64) -> [u32; 2] {
    let p = P as u64;
    [to_monty((value % p) as u32), to_monty((value / p) as u32)]
}

pub fn tree_tweak(level: usize, position: u32) -> [u32; 2] {
    tweak_elements((level as u64) << 40 | (position as u64) << 8 | TWEAK_TREE)
}

fn message_tweak(epoch: u32) -> [u32; 2] {
    tweak_elements((epoch as u64) << 8 | TWEAK_MESSAGE)
}

/// The 32-byte message as a little-endian integer in base p: 9 digits, Montgomery form.
pub fn message_elements(message: &[u8; 32]) -> [u32; MESSAGE_LEN] {
    // Long division of 8 little-endian u32 limbs by p, once per digit.
    let mut limbs: [u32; 8] =
        core::array::from_fn(|i| u32::from_le_bytes(message[4 * i..4 * i + 4].try_into().unwrap()));
    core::array::from_fn(|_| {
        let mut remainder = 0u64;
        for limb in limbs.iter_mut().rev() {
            let current = remainder << 32 | *limb as u64;
            *limb = (current / P as u64) as u32;
            remainder = current % P as u64;
        }
        to_monty(remainder as u32)
    })
}

fn permute24<L: KoalaLanes>(family: HashFamily, state: &mut Columns<24>) {
    let mut lanes: [L; 24] = core::array::from_fn(|i| L::load(&state[i]));
    family.permute24(&mut lanes);
    for (column, lane) in state.iter_mut().zip(lanes) {
        lane.store(column);
    }
}

/// Feed-forward compression in place: on return the first elements hold C(input).
pub fn compress24<L: KoalaLanes>(family: HashFamily, state: &mut Columns<24>) {
    let input: [L; 24] = core::array::from_fn(|i| L::load(&state[i]));
    let mut lanes = input;
    family.permute24(&mut lanes);
    for ((column, lane), x) in state.iter_mut().zip(lanes).zip(input) {
        lane.add(x).store(column);
    }
}

impl HashFamily {
    /// The family's width-16 permutation on lanes.
    fn permute16<L: KoalaLanes>(self, state: &mut [L; 16]) {
        match self {
            HashFamily::Poseidon1 => L::poseidon1_16(state),
            HashFamily::Poseidon2 => L::poseidon2_16(state),
        }
    }

    /// The family's width-24 permutation on lanes.
    fn permute24<L: KoalaLanes>(self, state: &mut [L; 24]) {
        match self {
            HashFamily::Poseidon1 => L::poseidon1_24(state),
            HashFamily::Poseidon2 => L::poseidon2_24(state),
        }
    }
}

/// The chain tweaks of one epoch, epoch·2^24 + chain·2^16 + position·2^8 + 0x00 (the
/// chain separator) in two base-p digits, without divisions: epoch·2^24 = high·p + low
/// is split once, and chain·2^16 + position·2^8 (< 2^24) is added to `low`.
#[derive(Clone, Copy, Default)]
pub struct EpochTweak {
    low: u32,
    high: u32,
}

impl EpochTweak {
    pub fn new(epoch: u32) -> Self {
        let v = (epoch as u64) << 24;
        EpochTweak {
            low: (v % P as u64) as u32,
            high: (v / P as u64) as u32,
        }
    }

    /// The tweak of step `position` of chain `chain`, Montgomery form.
    pub fn chain(self, chain: usize, position: usize) -> [u32; 2] {
        let mut low = self.low as u64 + ((chain as u64) << 16 | (position as u64) << 8);
        let mut high = self.high;
        if low >= P as u64 {
            low -= P as u64;
            high += 1;
        }
        [monty_mul(low as u32, R2), monty_mul(high, R2)]
    }
}

/// Chain steps on lanes, the chain values staying in vectors from one step to the next
/// (a lane's value is written only when it starts a chain, read only when it ends one).
pub struct ChainWalk<L: KoalaLanes> {
    family: HashFamily,
    hash_len: usize,
    parameter: [L; PARAMETER_LEN],
    epochs: [EpochTweak; MAX_LANES],
    value: [L; 8],
    /// The values as columns, as of the last step or `set`.
    columns: Columns<8>,
    /// `columns` holds values `value` lacks.
    dirty: bool,
}

impl<L: KoalaLanes> ChainWalk<L> {
    /// Lane k walks chains of the key with `parameters[k]` at `epochs[k]`.
    pub fn new(params: &Params, parameters: &[[u32; PARAMETER_LEN]], epochs: &[u32]) -> Self {
        let mut columns: Columns<PARAMETER_LEN> = [[0; MAX_LANES]; PARAMETER_LEN];
        for (k, parameter) in parameters.iter().enumerate() {
            for (i, &x) in parameter.iter().enumerate() {
                columns[i][k] = x;
            }
        }
        let mut tweaks = [EpochTweak::default(); MAX_LANES];
        for (t, &e) in tweaks.iter_mut().zip(epochs) {
            *t = EpochTweak::new(e);
        }
        ChainWalk {
            family: params.family,
            hash_len: params.hash_len,
            parameter: core::array::from_fn(|i| L::load(&columns[i])),
            epochs: tweaks,
            value: [L::splat(0); 8],
            columns: [[0; MAX_LANES]; 8],
            dirty: false,
        }
    }

    /// Lane k's value before its next step.
    pub fn set(&mut self, k: usize, value: &Digest) {
        for (column, &x) in self.columns.iter_mut().zip(value) {
            column[k] = x;
        }
        self.dirty = true;
    }

    /// Lane k's value after the last step.
    pub fn get(&self, k: usize) -> Digest {
        core::array::from_fn(|i| self.columns[i][k])
    }

    /// One step on every lane: lane k hashes its value as step `positions[k]` of chain
    /// `chains[k]` (lanes past the slices' end, or idle ones, compute something unused).
    pub fn step(&mut self, chains: &[usize], positions: &[usize]) {
        let h = self.hash_len;
        if self.dirty {
            for i in 0..h {
                self.value[i] = L::load(&self.columns[i]);
            }
            self.dirty = false;
        }
        let mut tweak: Columns<2> = [[0; MAX_LANES]; 2];
        for (k, (&chain, &position)) in chains.iter().zip(positions).enumerate() {
            let t = self.epochs[k].chain(chain, position);
            tweak[0][k] = t[0];
            tweak[1][k] = t[1];
        }
        let zero = L::splat(0);
        let mut state = [zero; 16];
        let (value_at, parameter_at, tweak_at) = match self.family {
            HashFamily::Poseidon1 => (0, h, h + PARAMETER_LEN),
            HashFamily::Poseidon2 => (PARAMETER_LEN + 2, 0, PARAMETER_LEN),
        };
        state[value_at..value_at + h].copy_from_slice(&self.value[..h]);
        state[parameter_at..parameter_at + PARAMETER_LEN].copy_from_slice(&self.parameter);
        state[tweak_at] = L::load(&tweak[0]);
        state[tweak_at + 1] = L::load(&tweak[1]);
        let input = state;
        self.family.permute16(&mut state);
        for i in 0..h {
            self.value[i] = state[i].add(input[i]);
            self.value[i].store(&mut self.columns[i]);
        }
    }
}

/// One tree node for every lane: `inputs[k]` = (parameter, tweak, left, right).
pub fn tree_node<L: KoalaLanes>(
    params: &Params,
    inputs: &[([u32; PARAMETER_LEN], [u32; 2], Digest, Digest)],
) -> [Digest; MAX_LANES] {
    let h = params.hash_len;
    let mut state: Columns<24> = [[0; MAX_LANES]; 24];
    for (k, (parameter, tweak, left, right)) in inputs.iter().enumerate() {
        for i in 0..PARAMETER_LEN {
            state[i][k] = parameter[i];
        }
        state[PARAMETER_LEN][k] = tweak[0];
        state[PARAMETER_LEN + 1][k] = tweak[1];
        for i in 0..h {
            state[PARAMETER_LEN + 2 + i][k] = left[i];
            state[PARAMETER_LEN + 2 + h + i][k] = right[i];
        }
    }
    compress24::<L>(params.family, &mut state);
    core::array::from_fn(|k| core::array::from_fn(|i| if i < h { state[i][k] } else { 0 }))
}

/// The sponge's capacity value: the compression of the lengths (5, 2, DIMENSION,
/// HASH_LEN) read as one 128-bit integer in base p.
pub fn sponge_capacity(params: &Params) -> [u32; CAPACITY] {
    let mut acc: u128 = (PARAMETER_LEN as u128) << 96
        | 2u128 << 64
        | (params.dimension as u128) << 32
        | params.hash_len as u128;
    let mut state: Columns<24> = [[0; MAX_LANES]; 24];
    for column in state.iter_mut() {
        column[0] = to_monty((acc % P as u128) as u32);
        acc /= P as u128;
    }
    compress24::<super::lanes::portable::Portable<1>>(params.family, &mut state);
    core::array::from_fn(|i| state[i][0])
}

/// The leaf: the sponge over parameter ‖ tree tweak (level 0, epoch) ‖ chain ends, for
/// every lane. `ends[k]` holds lane k's DIMENSION chain ends.
pub fn leaf<L: KoalaLanes>(
    params: &Params,
    capacity: &[u32; CAPACITY],
    parameters: &[[u32; PARAMETER_LEN]],
    epochs: &[u32],
    ends: &[Vec<Digest>],
) -> [Digest; MAX_LANES] {
    const RATE: usize = 24 - CAPACITY;
    let h = params.hash_len;
    let (rate_at, capacity_at) = match params.family {
        HashFamily::Poseidon1 => (CAPACITY, 0),
        HashFamily::Poseidon2 => (0, RATE),
    };
    let input_len = PARAMETER_LEN + 2 + params.dimension * h;
    let element = |k: usize, i: usize| -> u32 {
        if i < PARAMETER_LEN {
            parameters[k][i]
        } else if i < PARAMETER_LEN + 2 {
            tree_tweak(0, epochs[k])[i - PARAMETER_LEN]
        } else {
            let j = i - PARAMETER_LEN - 2;
            ends[k][j / h][j % h]
        }
    };
    let mut state: Columns<24> = [[0; MAX_LANES]; 24];
    for (i, &c) in capacity.iter().enumerate() {
        state[capacity_at + i] = [c; MAX_LANES];
    }
    for block in 0..input_len.div_ceil(RATE) {
        for r in 0..RATE {
            let i = block * RATE + r;
            for (k, slot) in state[rate_at + r][..parameters.len()]
                .iter_mut()
                .enumerate()
            {
                let x = if i < input_len { element(k, i) } else { 0 };
                *slot = match params.family {
                    // Replacement sponge: the rate is overwritten (zeros past the end).
                    HashFamily::Poseidon1 => x,
                    // Additive sponge: zero padding adds nothing.
                    HashFamily::Poseidon2 => add_mod(*slot, x),
                };
            }
        }
        permute24::<L>(params.family, &mut state);
    }
    core::array::from_fn(|k| {
        core::array::from_fn(|i| if i < h { state[rate_at + i][k] } else { 0 })
    })
}

/// What one lane's message hash takes: the key's parameter, the epoch, rho (RAND_LEN
/// elements, zero past them) and the message's elements.
pub type MessageHashInput = ([u32; PARAMETER_LEN], u32, [u32; 8], [u32; MESSAGE_LEN]);

/// The message hash's field elements, canonical, for every lane.
pub fn message_hash<L: KoalaLanes>(params: &Params, inputs: &[MessageHashInput]) -> Vec<Vec<u32>> {
    let mut state: Columns<24> = [[0; MAX_LANES]; 24];
    let r = params.rand_len;
    for (k, (parameter, epoch, rho, message)) in inputs.iter().enumerate() {
        let tweak = message_tweak(*epoch);
        let order: [&[u32]; 4] = match params.family {
            HashFamily::Poseidon1 => [message, parameter, &tweak, &rho[..r]],
            HashFamily::Poseidon2 => [&rho[..r], parameter, &tweak, message],
        };
        // The legacy layout ends with the iteration index 0: the zero padding.
        for (i, &x) in order.iter().flat_map(|part| part.iter()).enumerate() {
            state[i][k] = x;
        }
    }
    compress24::<L>(params.family, &mut state);
    let out = params.message_hash_len();
    (0..inputs.len())
        .map(|k| {
            (0..out)
                .map(|i| super::lanes::from_monty(state[i][k]))
                .collect()
        })
        .collect()
}
