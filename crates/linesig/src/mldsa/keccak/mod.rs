//! Keccak-f[1600] (FIPS 202 §3) on several independent states at once, one state per
//! vector lane, and the SHAKE128 squeeze ExpandA needs: 4 states per AVX2 `__m256i`,
//! 8 per AVX-512 `__m512i`, arrays of u64 elsewhere. The permutation is written once
//! over [`KeccakLanes`]; backends supply five lane-wise operations.
//!
//! libcrux-sha3 offers a four-way AVX2 Keccak too, but called from here it ran barely
//! faster than its one-way code (docs/results.md); this one is plain enough for LLVM
//! to keep every state word in registers or L1.

pub(crate) mod portable;

#[cfg(target_arch = "x86_64")]
pub(crate) mod avx2;
#[cfg(target_arch = "x86_64")]
pub(crate) mod avx512;

/// One 64-bit word of `N` Keccak states.
pub(crate) trait KeccakLanes: Copy {
    /// States per vector.
    const N: usize;
    /// Lane i is `words[i]` (panics if `words` is shorter than N).
    fn from_words(words: &[u64]) -> Self;
    /// Lane i into `words[i]`.
    fn to_words(self, words: &mut [u64]);
    fn splat(x: u64) -> Self;
    fn xor(self, rhs: Self) -> Self;
    /// `!self & rhs`.
    fn andnot(self, rhs: Self) -> Self;
    /// Lane-wise rotation left by `L` in 1..64; `R` = 64 − `L` (stable Rust cannot
    /// compute it from `L` in a const argument, and AVX2 shifts need both).
    fn rotl<const L: i32, const R: i32>(self) -> Self;

    /// The sponge step: XOR `absorb[w][i]` into word w of state i, permute (Keccak-f),
    /// then copy the first `extract.len()` words of every state out (`extract[w][i]`).
    /// SIMD backends run it as one kernel with their target features.
    fn absorb_permute_extract(
        state: &mut [Self; 25],
        absorb: &[[u64; 8]],
        extract: &mut [[u64; 8]],
    ) {
        sponge_step(state, absorb, extract)
    }
}

#[inline(always)]
pub(crate) fn sponge_step<K: KeccakLanes>(
    state: &mut [K; 25],
    absorb: &[[u64; 8]],
    extract: &mut [[u64; 8]],
) {
    for (s, words) in state.iter_mut().zip(absorb) {
        *s = s.xor(K::from_words(words));
    }
    keccak_f(state);
    for (s, words) in state.iter().zip(extract.iter_mut()) {
        s.to_words(words);
    }
}

/// A SIMD backend's [`KeccakLanes::absorb_permute_extract`]: the generic sponge step
/// in a function compiled with the features of the `isa_path!` module it expands in
/// (LLVM inlines intrinsics only into such functions reliably), after checking the CPU
/// has them (a cached flag).
macro_rules! simd_permute {
    ($lanes:ty) => {
        fn absorb_permute_extract(
            state: &mut [$lanes; 25],
            absorb: &[[u64; 8]],
            extract: &mut [[u64; 8]],
        ) {
            kernels! {
                fn kernel(state: &mut [$lanes; 25], absorb: &[[u64; 8]], extract: &mut [[u64; 8]]) {
                    $crate::mldsa::keccak::sponge_step(state, absorb, extract)
                }
            }
            assert_supported();
            // SAFETY: the CPU has the features, asserted just above.
            unsafe { kernel(state, absorb, extract) }
        }
    };
}
pub(crate) use simd_permute;

/// ι's round constants, from the LFSR of FIPS 202 Algorithm 5.
const ROUND_CONSTANTS: [u64; 24] = {
    let mut rc = [0u64; 24];
    let mut lfsr: u8 = 1;
    let mut round = 0;
    while round < 24 {
        let mut j = 0;
        while j < 7 {
            if lfsr & 1 == 1 {
                rc[round] |= 1 << ((1 << j) - 1);
            }
            // x^8 + x^6 + x^5 + x^4 + 1.
            lfsr = if lfsr & 0x80 != 0 {
                (lfsr << 1) ^ 0x71
            } else {
                lfsr << 1
            };
            j += 1;
        }
        round += 1;
    }
    rc
};

/// Keccak-f[1600] on every lane's state (FIPS 202 Algorithm 7, 24 rounds).
///
/// θ, then plane by plane: the five lanes that ρ and π move into output plane y
/// (lane (x, y) at index x + 5y goes to (y, 2x + 3y), rotated by its Table 2 offset),
/// then χ on that plane, into a fresh state; ι on lane 0. Working a plane at a time
/// keeps about a dozen vectors live, so the state is read once and written once a
/// round instead of spilling a whole intermediate state; literal offsets make every
/// rotation an immediate shift.
#[inline(always)]
pub(crate) fn keccak_f<K: KeccakLanes>(state: &mut [K; 25]) {
    // Rounds alternate between two arrays, so no round ends with a 25-lane copy.
    let mut other = [K::splat(0); 25];
    for pair in ROUND_CONSTANTS.chunks_exact(2) {
        keccak_round(state, &mut other, pair[0]);
        keccak_round(&other, state, pair[1]);
    }
}

/// One round from `a` into `e`.
#[inline(always)]
#[allow(clippy::needless_range_loop)]
fn keccak_round<K: KeccakLanes>(a: &[K; 25], e: &mut [K; 25], rc: u64) {
    // θ (loops, not closures: a closure would not inherit the kernel's features)
    let mut c = [K::splat(0); 5];
    for x in 0..5 {
        c[x] = a[x]
            .xor(a[x + 5])
            .xor(a[x + 10])
            .xor(a[x + 15])
            .xor(a[x + 20]);
    }
    let mut d = [K::splat(0); 5];
    for x in 0..5 {
        d[x] = c[(x + 4) % 5].xor(c[(x + 1) % 5].rotl::<1, 63>());
    }
    // ρ and π into plane y, then χ on it.
    macro_rules! plane {
        ($y:literal; $b0:expr, $b1:expr, $b2:expr, $b3:expr, $b4:expr) => {{
            let b = [$b0, $b1, $b2, $b3, $b4];
            for x in 0..5 {
                e[5 * $y + x] = b[x].xor(b[(x + 1) % 5].andnot(b[(x + 2) % 5]));
            }
        }};
    }
    plane!(
        0;
        a[0].xor(d[0]),
        a[6].xor(d[1]).rotl::<44, 20>(),
        a[12].xor(d[2]).rotl::<43, 21>(),
        a[18].xor(d[3]).rotl::<21, 43>(),
        a[24].xor(d[4]).rotl::<14, 50>()
    );
    plane!(
        1;
        a[3].xor(d[3]).rotl::<28, 36>(),
        a[9].xor(d[4]).rotl::<20, 44>(),
        a[10].xor(d[0]).rotl::<3, 61>(),
        a[16].xor(d[1]).rotl::<45, 19>(),
        a[22].xor(d[2]).rotl::<61, 3>()
    );
    plane!(
        2;
        a[1].xor(d[1]).rotl::<1, 63>(),
        a[7].xor(d[2]).rotl::<6, 58>(),
        a[13].xor(d[3]).rotl::<25, 39>(),
        a[19].xor(d[4]).rotl::<8, 56>(),
        a[20].xor(d[0]).rotl::<18, 46>()
    );
    plane!(
        3;
        a[4].xor(d[4]).rotl::<27, 37>(),
        a[5].xor(d[0]).rotl::<36, 28>(),
        a[11].xor(d[1]).rotl::<10, 54>(),
        a[17].xor(d[2]).rotl::<15, 49>(),
        a[23].xor(d[3]).rotl::<56, 8>()
    );
    plane!(
        4;
        a[2].xor(d[2]).rotl::<62, 2>(),
        a[8].xor(d[3]).rotl::<55, 9>(),
        a[14].xor(d[4]).rotl::<39, 25>(),
        a[15].xor(d[0]).rotl::<41, 23>(),
        a[21].xor(d[1]).rotl::<2, 62>()
    );
    // ι
    e[0] = e[0].xor(K::splat(rc));
}

/// SHAKE128's rate in bytes and words.
pub(crate) const SHAKE128_RATE: usize = 168;
const SHAKE128_RATE_WORDS: usize = SHAKE128_RATE / 8;

/// `K::N` SHAKE128 instances, each absorbing one short input and squeezing blocks.
pub(crate) struct Shake128Lanes<K: KeccakLanes> {
    state: [K; 25],
}

impl<K: KeccakLanes> Shake128Lanes<K> {
    /// Absorbs `inputs[i]` (each shorter than the rate; missing lanes absorb nothing)
    /// with SHAKE's padding (suffix 1111, then pad10*1, FIPS 202 §6.2 and B.2).
    #[inline(always)]
    pub(crate) fn absorb_short(inputs: &[&[u8]]) -> Self {
        let mut words = [[0u64; 16]; SHAKE128_RATE_WORDS];
        for (lane, input) in inputs.iter().enumerate().take(K::N) {
            debug_assert!(input.len() < SHAKE128_RATE);
            let mut block = [0u8; SHAKE128_RATE];
            block[..input.len()].copy_from_slice(input);
            block[input.len()] ^= 0x1f;
            block[SHAKE128_RATE - 1] ^= 0x80;
            for (w, bytes) in block.chunks_exact(8).enumerate() {
                words[w][lane] = u64::from_le_bytes(bytes.try_into().expect("8 bytes"));
            }
        }
        let mut state = [K::splat(0); 25];
        for (s, w) in state.iter_mut().zip(&words) {
            *s = K::from_words(w);
        }
        Shake128Lanes { state }
    }

    /// Permutes, then writes the next rate-sized block of lane i into `out[i]` (lanes
    /// past `out.len()` are dropped).
    #[inline(always)]
    pub(crate) fn squeeze_block(&mut self, out: &mut [[u8; SHAKE128_RATE]]) {
        let mut words = [[0u64; 8]; SHAKE128_RATE_WORDS];
        K::absorb_permute_extract(&mut self.state, &[], &mut words);
        for (lane, block) in out.iter_mut().enumerate().take(K::N) {
            for (bytes, word) in block.chunks_exact_mut(8).zip(&words) {
                bytes.copy_from_slice(&word[lane].to_le_bytes());
            }
        }
    }
}

/// SHAKE256's rate in bytes and words.
const SHAKE256_RATE: usize = 136;
const SHAKE256_RATE_WORDS: usize = SHAKE256_RATE / 8;

/// SHAKE256 of up to `K::N` inputs of one length, one per lane, each squeezing at most
/// one block: `outputs[i] = SHAKE256(inputs[i], 8·outputs[i].len())`. Verification hashes
/// the public keys (tr) and the commitment preimages (μ ‖ w1Encode) of several
/// signatures this way, at the cost of one. A single input takes libcrux's one-lane
/// SHAKE256 instead.
#[inline(always)]
pub(crate) fn shake256_lanes<K: KeccakLanes>(inputs: &[&[u8]], outputs: &mut [&mut [u8]]) {
    let lanes = inputs.len();
    assert!(
        lanes <= K::N && outputs.len() == lanes,
        "{lanes} inputs for {} lanes",
        K::N
    );
    let len = inputs.first().map_or(0, |i| i.len());
    assert!(
        inputs.iter().all(|i| i.len() == len),
        "inputs of one length"
    );
    assert!(outputs.iter().all(|o| o.len() <= SHAKE256_RATE));
    if lanes <= 1 {
        // One input alone: the one-lane SHAKE256 is cheaper than a vector of one.
        for (input, output) in inputs.iter().zip(outputs.iter_mut()) {
            libcrux_sha3::shake256_ema(output, input);
        }
        return;
    }
    let mut state = [K::splat(0); 25];
    let mut words = [[0u64; 8]; SHAKE256_RATE_WORDS];
    let mut squeezed = [[0u64; 8]; SHAKE256_RATE_WORDS];
    let full_blocks = len / SHAKE256_RATE;
    for block in 0..=full_blocks {
        for (lane, input) in inputs.iter().enumerate() {
            let mut padded = [0u8; SHAKE256_RATE];
            let bytes = if block < full_blocks {
                &input[block * SHAKE256_RATE..(block + 1) * SHAKE256_RATE]
            } else {
                // The last, partial block: SHAKE's suffix and pad10*1 (FIPS 202 §6.2).
                let tail = &input[block * SHAKE256_RATE..];
                padded[..tail.len()].copy_from_slice(tail);
                padded[tail.len()] ^= 0x1f;
                padded[SHAKE256_RATE - 1] ^= 0x80;
                &padded
            };
            for (w, chunk) in words.iter_mut().zip(bytes.chunks_exact(8)) {
                w[lane] = u64::from_le_bytes(chunk.try_into().expect("8 bytes"));
            }
        }
        let extract: &mut [[u64; 8]] = if block == full_blocks {
            &mut squeezed
        } else {
            &mut []
        };
        K::absorb_permute_extract(&mut state, &words, extract);
    }
    for (lane, out) in outputs.iter_mut().enumerate() {
        for (bytes, word) in out.chunks_mut(8).zip(&squeezed) {
            bytes.copy_from_slice(&word[lane].to_le_bytes()[..bytes.len()]);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every lane of every backend squeezes what libcrux's SHAKE128 squeezes.
    pub(super) fn check_against_libcrux<K: KeccakLanes>() {
        let inputs: Vec<Vec<u8>> = (0..K::N)
            .map(|i| (0..34 + i).map(|b| (b * 7 + i) as u8).collect())
            .collect();
        let refs: Vec<&[u8]> = inputs.iter().map(Vec::as_slice).collect();
        let mut sponge = Shake128Lanes::<K>::absorb_short(&refs);
        let mut blocks = vec![[0u8; SHAKE128_RATE]; K::N];
        let mut got = vec![Vec::new(); K::N];
        for _ in 0..3 {
            sponge.squeeze_block(&mut blocks);
            for (g, b) in got.iter_mut().zip(&blocks) {
                g.extend_from_slice(b);
            }
        }
        for (input, g) in inputs.iter().zip(&got) {
            let mut want = vec![0u8; 3 * SHAKE128_RATE];
            libcrux_sha3::shake128_ema(&mut want, input);
            assert_eq!(*g, want, "N = {}", K::N);
        }
    }

    /// SHAKE256 over every lane count and lengths around block boundaries.
    fn check_shake256<K: KeccakLanes>() {
        for len in [0, 1, 64, 135, 136, 137, 271, 272, 832, 1312, 2592] {
            for lanes in 1..=K::N {
                let inputs: Vec<Vec<u8>> = (0..lanes)
                    .map(|i| (0..len).map(|b| (b * 13 + i * 5) as u8).collect())
                    .collect();
                let refs: Vec<&[u8]> = inputs.iter().map(Vec::as_slice).collect();
                let mut outs = vec![[0u8; 64]; lanes];
                let mut out_refs: Vec<&mut [u8]> =
                    outs.iter_mut().map(|o| &mut o[..48 + lanes]).collect();
                shake256_lanes::<K>(&refs, &mut out_refs);
                for (input, out) in inputs.iter().zip(&outs) {
                    let mut want = [0u8; 64];
                    libcrux_sha3::shake256_ema(&mut want[..48 + lanes], input);
                    assert_eq!(
                        out[..],
                        want[..],
                        "N = {}, {lanes} lanes, {len} bytes",
                        K::N
                    );
                }
            }
        }
    }

    #[test]
    fn every_lane_matches_libcrux_shake() {
        check_against_libcrux::<portable::PortableKeccak<1>>();
        check_against_libcrux::<portable::PortableKeccak<4>>();
        check_shake256::<portable::PortableKeccak<4>>();
        #[cfg(target_arch = "x86_64")]
        {
            if avx2::supported() {
                check_against_libcrux::<linesig_simd::u64x4::U64x4>();
                check_shake256::<linesig_simd::u64x4::U64x4>();
            }
            if avx512::supported() {
                check_against_libcrux::<linesig_simd::u64x8::U64x8>();
                check_shake256::<linesig_simd::u64x8::U64x8>();
            }
        }
    }
}
