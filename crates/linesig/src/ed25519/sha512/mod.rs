//! Multi-buffer SHA-512 (FIPS 180-4 §6.4) for k = SHA-512(R ‖ A ‖ M): one message per
//! 64-bit lane, every lane running the same 80 rounds on its own block, so a vector of
//! eight (AVX-512) or four (AVX2) digests costs about what one costs in scalar code.
//!
//! Written once over [`LaneWords`]; each backend supplies the lane operations. Messages
//! of different lengths share a vector: a lane whose message has no more blocks keeps
//! its state (masked) while the others go on, and the caller groups messages by block
//! count so few lanes idle.

/// One 64-bit word per lane. As with the field, every method is an `#[inline(always)]`
/// shim over a `#[target_feature]` function, only reached on CPUs with the features.
pub(crate) trait LaneWords: Copy {
    const LANES: usize;
    fn splat(x: u64) -> Self;
    /// Each lane into `out[..LANES]`.
    fn to_lanes(&self, out: &mut [u64]);
    fn add(self, rhs: Self) -> Self;
    fn xor(self, rhs: Self) -> Self;
    fn and(self, rhs: Self) -> Self;
    /// !self & rhs.
    fn andnot(self, rhs: Self) -> Self;
    fn rotr(self, n: u32) -> Self;
    fn shr(self, n: u32) -> Self;
    /// Lane i from `a` where bit i of `mask` is set, else from `b`.
    fn select(mask: u8, a: Self, b: Self) -> Self;
    /// Word i of every lane's block (lane j's from `rows[j]`, `rows.len() == LANES`),
    /// read big-endian (§3.1): the message schedule's W_0..W_15, one vector each.
    fn load_block(rows: &[&[u8; BLOCK]]) -> [Self; 16];
}

/// `impl LaneWords` for a backend's word type, as `#[inline(always)]` shims over the
/// module's `#[target_feature]` functions of the same names (`splat`, `store`, `add`,
/// `xor`, `and`, `andnot`, `rotr`, `shr`, `select`, `load_block`): LLVM inlines an
/// intrinsic only into a caller that has its features, so the features sit on those
/// functions.
macro_rules! lane_words_shims {
    ($words:ident, $lanes:expr) => {
        // SAFETY (every `unsafe` here): the module's values exist only on CPUs with its
        // features (module note).
        impl super::LaneWords for $words {
            const LANES: usize = $lanes;
            #[inline(always)]
            fn splat(x: u64) -> Self {
                $words(unsafe { splat(x) })
            }
            #[inline(always)]
            fn to_lanes(&self, out: &mut [u64]) {
                unsafe { store(self.0, out) }
            }
            #[inline(always)]
            fn add(self, rhs: Self) -> Self {
                $words(unsafe { add(self.0, rhs.0) })
            }
            #[inline(always)]
            fn xor(self, rhs: Self) -> Self {
                $words(unsafe { xor(self.0, rhs.0) })
            }
            #[inline(always)]
            fn and(self, rhs: Self) -> Self {
                $words(unsafe { and(self.0, rhs.0) })
            }
            #[inline(always)]
            fn andnot(self, rhs: Self) -> Self {
                $words(unsafe { andnot(self.0, rhs.0) })
            }
            #[inline(always)]
            fn rotr(self, n: u32) -> Self {
                $words(unsafe { rotr(self.0, n) })
            }
            #[inline(always)]
            fn shr(self, n: u32) -> Self {
                $words(unsafe { shr(self.0, n) })
            }
            #[inline(always)]
            fn select(mask: u8, a: Self, b: Self) -> Self {
                $words(unsafe { select(mask, a.0, b.0) })
            }
            #[inline(always)]
            fn load_block(rows: &[&[u8; super::BLOCK]]) -> [Self; 16] {
                unsafe { load_block(rows) }.map($words)
            }
        }
    };
}
pub(crate) use lane_words_shims;

#[cfg(target_arch = "x86_64")]
pub(crate) mod avx2;
#[cfg(target_arch = "x86_64")]
pub(crate) mod avx512;
pub(crate) mod portable;

/// The most lanes any backend has.
const MAX_LANES: usize = 8;
const BLOCK: usize = 128;

// FIPS 180-4 §4.2.3 (K: the first 64 bits of the fractional parts of the cube roots of
// the first 80 primes) and §5.3.5 (H0: of the square roots of the first 8 primes);
// generated with exact integer roots and checked by the tests against the sha2 crate.
const K: [u64; 80] = [
    0x428a2f98d728ae22,
    0x7137449123ef65cd,
    0xb5c0fbcfec4d3b2f,
    0xe9b5dba58189dbbc,
    0x3956c25bf348b538,
    0x59f111f1b605d019,
    0x923f82a4af194f9b,
    0xab1c5ed5da6d8118,
    0xd807aa98a3030242,
    0x12835b0145706fbe,
    0x243185be4ee4b28c,
    0x550c7dc3d5ffb4e2,
    0x72be5d74f27b896f,
    0x80deb1fe3b1696b1,
    0x9bdc06a725c71235,
    0xc19bf174cf692694,
    0xe49b69c19ef14ad2,
    0xefbe4786384f25e3,
    0x0fc19dc68b8cd5b5,
    0x240ca1cc77ac9c65,
    0x2de92c6f592b0275,
    0x4a7484aa6ea6e483,
    0x5cb0a9dcbd41fbd4,
    0x76f988da831153b5,
    0x983e5152ee66dfab,
    0xa831c66d2db43210,
    0xb00327c898fb213f,
    0xbf597fc7beef0ee4,
    0xc6e00bf33da88fc2,
    0xd5a79147930aa725,
    0x06ca6351e003826f,
    0x142929670a0e6e70,
    0x27b70a8546d22ffc,
    0x2e1b21385c26c926,
    0x4d2c6dfc5ac42aed,
    0x53380d139d95b3df,
    0x650a73548baf63de,
    0x766a0abb3c77b2a8,
    0x81c2c92e47edaee6,
    0x92722c851482353b,
    0xa2bfe8a14cf10364,
    0xa81a664bbc423001,
    0xc24b8b70d0f89791,
    0xc76c51a30654be30,
    0xd192e819d6ef5218,
    0xd69906245565a910,
    0xf40e35855771202a,
    0x106aa07032bbd1b8,
    0x19a4c116b8d2d0c8,
    0x1e376c085141ab53,
    0x2748774cdf8eeb99,
    0x34b0bcb5e19b48a8,
    0x391c0cb3c5c95a63,
    0x4ed8aa4ae3418acb,
    0x5b9cca4f7763e373,
    0x682e6ff3d6b2b8a3,
    0x748f82ee5defb2fc,
    0x78a5636f43172f60,
    0x84c87814a1f0ab72,
    0x8cc702081a6439ec,
    0x90befffa23631e28,
    0xa4506cebde82bde9,
    0xbef9a3f7b2c67915,
    0xc67178f2e372532b,
    0xca273eceea26619c,
    0xd186b8c721c0c207,
    0xeada7dd6cde0eb1e,
    0xf57d4f7fee6ed178,
    0x06f067aa72176fba,
    0x0a637dc5a2c898a6,
    0x113f9804bef90dae,
    0x1b710b35131c471b,
    0x28db77f523047d84,
    0x32caab7b40c72493,
    0x3c9ebe0a15c9bebc,
    0x431d67c49c100d4c,
    0x4cc5d4becb3e42b6,
    0x597f299cfc657e2a,
    0x5fcb6fab3ad6faec,
    0x6c44198c4a475817,
];
const H0: [u64; 8] = [
    0x6a09e667f3bcc908,
    0xbb67ae8584caa73b,
    0x3c6ef372fe94f82b,
    0xa54ff53a5f1d36f1,
    0x510e527fade682d1,
    0x9b05688c2b3e6c1f,
    0x1f83d9abfb41bd6b,
    0x5be0cd19137e2179,
];

/// One message, in the three pieces Ed25519 hashes.
#[derive(Clone, Copy)]
pub(crate) struct Parts<'a> {
    pub r: &'a [u8; 32],
    pub a: &'a [u8; 32],
    pub m: &'a [u8],
}

impl Parts<'_> {
    fn len(&self) -> usize {
        64 + self.m.len()
    }

    /// Padded blocks (§5.1.2: a 1 bit, zeros, and the 128-bit bit length).
    pub fn blocks(&self) -> usize {
        (self.len() + 17).div_ceil(BLOCK)
    }

    /// Block `b` of the padded message: a view of M where the block lies wholly within
    /// it (every block of a long message but its first and last one or two), else
    /// assembled in `scratch`.
    fn block<'s>(&'s self, b: usize, scratch: &'s mut [u8; BLOCK]) -> &'s [u8; BLOCK] {
        let start = b * BLOCK;
        if let Some(inside) = start
            .checked_sub(64)
            .and_then(|from| self.m.get(from..))
            .and_then(|m| m.first_chunk::<BLOCK>())
        {
            return inside;
        }
        *scratch = [0; BLOCK];
        // Copy whatever part of R ‖ A ‖ M falls in [start, start + 128).
        let mut offset = 0;
        for piece in [&self.r[..], &self.a[..], self.m] {
            let (lo, hi) = (offset, offset + piece.len());
            let (from, to) = (lo.max(start), hi.min(start + BLOCK));
            if from < to {
                scratch[from - start..to - start].copy_from_slice(&piece[from - lo..to - lo]);
            }
            offset = hi;
        }
        let len = self.len();
        if (start..start + BLOCK).contains(&len) {
            scratch[len - start] = 0x80;
        }
        if b + 1 == self.blocks() {
            let bits = (len as u128) * 8;
            scratch[BLOCK - 16..].copy_from_slice(&bits.to_be_bytes());
        }
        scratch
    }
}

/// The compression function (§6.4.2) on one block per lane: rounds 0..16 on the
/// block's words, then four passes of 16 rounds that first extend the schedule in place
/// (W_t overwrites W_(t−16)). Every pass is unrolled by hand so that the schedule's
/// indices are constants and its 16 words stay in registers (as a rolled loop over
/// t mod 16, LLVM kept them in memory, and it measured slower).
#[inline(always)]
fn compress<W: LaneWords>(state: &mut [W; 8], mut w: [W; 16]) {
    macro_rules! pass {
        ($v:ident, $pass:expr, $extend:expr, [$($i:literal)*]) => {
            $(
                if $extend {
                    w[$i] = extend(&w, $i);
                }
                round(&mut $v, w[$i], K[16 * $pass + $i]);
            )*
        };
    }
    let mut v = *state;
    pass!(v, 0, false, [0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15]);
    for p in 1..5 {
        pass!(v, p, true, [0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15]);
    }
    for (s, x) in state.iter_mut().zip(v) {
        *s = s.add(x);
    }
}

/// W_t = σ1(W_(t−2)) + W_(t−7) + σ0(W_(t−15)) + W_(t−16) (§6.4.2 step 1), with the
/// schedule's last 16 words in `w[t mod 16]`; `i` = t mod 16.
#[inline(always)]
fn extend<W: LaneWords>(w: &[W; 16], i: usize) -> W {
    let (w15, w2) = (w[(i + 1) % 16], w[(i + 14) % 16]);
    let s0 = w15.rotr(1).xor(w15.rotr(8)).xor(w15.shr(7));
    let s1 = w2.rotr(19).xor(w2.rotr(61)).xor(w2.shr(6));
    w[i].add(s0).add(w[(i + 9) % 16]).add(s1)
}

/// One round (§6.4.2 step 3) on v = [a, b, c, d, e, f, g, h]. The sums are ordered so
/// that what does not depend on this round's e (h + K_t + W_t, and d) is added before
/// Σ1(e) + Ch(e, f, g) joins: the chain from e to the next e is Σ1 and two additions,
/// where T1 summed left to right and then added to d makes it Σ1 and five.
#[inline(always)]
fn round<W: LaneWords>(v: &mut [W; 8], w: W, k: u64) {
    let [a, b, c, d, e, f, g, h] = *v;
    let hkw = h.add(W::splat(k)).add(w);
    let s1_ch = e
        .rotr(14)
        .xor(e.rotr(18))
        .xor(e.rotr(41))
        .add(e.and(f).xor(e.andnot(g)));
    let s0_maj = a
        .rotr(28)
        .xor(a.rotr(34))
        .xor(a.rotr(39))
        .add(a.and(b).xor(a.and(c)).xor(b.and(c)));
    // T1 = hkw + s1_ch; e' = d + T1; a' = T1 + T2.
    *v = [
        hkw.add(s0_maj).add(s1_ch),
        a,
        b,
        c,
        d.add(hkw).add(s1_ch),
        e,
        f,
        g,
    ];
}

/// The digests of up to `W::LANES` messages (spare lanes repeat the last message).
#[inline(always)]
fn digest_lanes<W: LaneWords>(msgs: &[Parts<'_>], out: &mut [[u8; 64]]) {
    let msg = |lane: usize| &msgs[lane.min(msgs.len() - 1)];
    let blocks: [usize; MAX_LANES] = core::array::from_fn(|i| msg(i).blocks());
    let most = blocks[..W::LANES].iter().copied().max().unwrap_or(0);
    let mut state: [W; 8] = core::array::from_fn(|i| W::splat(H0[i]));
    let mut scratch = [[0u8; BLOCK]; MAX_LANES];
    for b in 0..most {
        // A lane past its last block hashes zeros, and keeps its state (below).
        let mut rows = [&[0u8; BLOCK]; MAX_LANES];
        for (lane, (row, scratch)) in rows.iter_mut().zip(&mut scratch).enumerate() {
            if lane < W::LANES && b < blocks[lane] {
                *row = msg(lane).block(b, scratch);
            }
        }
        let words = W::load_block(&rows[..W::LANES]);
        let live = (0..W::LANES).fold(0u8, |m, lane| m | (u8::from(b < blocks[lane]) << lane));
        let before = state;
        compress(&mut state, words);
        for (s, old) in state.iter_mut().zip(before) {
            *s = W::select(live, *s, old);
        }
    }
    let mut lanes = [[0u64; MAX_LANES]; 8];
    for (i, s) in state.iter().enumerate() {
        s.to_lanes(&mut lanes[i][..W::LANES]);
    }
    for (lane, digest) in out.iter_mut().enumerate().take(msgs.len()) {
        for i in 0..8 {
            digest[8 * i..8 * i + 8].copy_from_slice(&lanes[i][lane].to_be_bytes());
        }
    }
}

/// SHA-512 of every message into `out` (same length), `W::LANES` at a time, messages
/// of equal block counts together.
#[inline(always)]
pub(crate) fn digests<W: LaneWords>(msgs: &[Parts<'_>], out: &mut [[u8; 64]]) {
    let mut order: Vec<u32> = (0..msgs.len() as u32).collect();
    order.sort_by_key(|&i| msgs[i as usize].blocks());
    let mut group = Vec::with_capacity(W::LANES);
    let mut digests = [[0u8; 64]; MAX_LANES];
    for chunk in order.chunks(W::LANES) {
        group.clear();
        group.extend(chunk.iter().map(|&i| msgs[i as usize]));
        digest_lanes::<W>(&group, &mut digests[..chunk.len()]);
        for (&i, d) in chunk.iter().zip(&digests) {
            out[i as usize] = *d;
        }
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use rand::{Rng, RngCore, SeedableRng};
    use sha2::{Digest, Sha512};

    /// Every message length class against the sha2 crate: the padding edges (111, 112,
    /// 127, 128 bytes in all), mixed lengths in one vector, ragged counts.
    pub fn digests_match_sha2<W: LaneWords>() {
        let mut rng = rand_chacha::ChaCha20Rng::seed_from_u64(512);
        let mut lens: Vec<usize> = (0..300).collect();
        lens.extend([1000, 1024, 1232, 4096, 10_000]);
        for round in 0..40 {
            let count = rng.gen_range(1..=3 * W::LANES + 1);
            let owned: Vec<([u8; 32], [u8; 32], Vec<u8>)> = (0..count)
                .map(|i| {
                    let len = if round == 0 {
                        (i * 7) % 200
                    } else {
                        lens[rng.gen_range(0..lens.len())]
                    };
                    let mut r = [0u8; 32];
                    let mut a = [0u8; 32];
                    let mut m = vec![0u8; len];
                    rng.fill_bytes(&mut r);
                    rng.fill_bytes(&mut a);
                    rng.fill_bytes(&mut m);
                    (r, a, m)
                })
                .collect();
            let parts: Vec<Parts<'_>> = owned.iter().map(|(r, a, m)| Parts { r, a, m }).collect();
            let mut out = vec![[0u8; 64]; count];
            digests::<W>(&parts, &mut out);
            for ((r, a, m), got) in owned.iter().zip(&out) {
                let want: [u8; 64] = Sha512::new()
                    .chain_update(r)
                    .chain_update(a)
                    .chain_update(m)
                    .finalize()
                    .into();
                assert_eq!(*got, want, "message of {} bytes", m.len());
            }
        }
    }
}
