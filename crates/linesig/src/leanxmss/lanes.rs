//! Where leanXMSS's lane code is compiled for each ISA and which a backend runs: the
//! same generic functions ([`super::verify`], [`super::signer_lanes`]) as `isa_path!` kernels
//! over 16 lanes with AVX-512F (one `zmm` per state word: the 16 state and 16 message
//! words fill the 32 registers) and 8 with AVX2 (one `ymm`), and one signature at a
//! time on the portable path.

use super::blake2s::{compress_inline, Compress, One, BLOCK_WORDS};
use super::signer_lanes::{
    attempts_lanes, leaves_lanes, parents_lanes, MAX_RANDOMIZER_TRIALS, SEED_WORDS,
};
use super::tweak::Digest;
use super::verify::{verify_lanes, Decoded, MESSAGE_WORDS, RANDOMNESS_WORDS};
use super::{Instance, CHAINS};
use crate::Backend;
use linesig_simd::arx::Words;

/// One path's entry points: each generic lane algorithm at `$n` lanes on the
/// compression `$c` (of type `$C`), inside this path's `kernels!`.
macro_rules! lane_algorithms {
    ($n:literal, $C:ty, $c:expr) => {
        /// Lanes per call.
        pub(crate) const LANES: usize = $n;

        kernels! {
            pub(crate) fn verify(instance: Instance, signatures: &[&Decoded]) -> [bool; $n] {
                verify_lanes::<$n, $C>($c, instance, signatures)
            }

            pub(crate) fn leaves(
                instance: Instance,
                pp: &Digest,
                seed: &[u32; SEED_WORDS],
                epochs: &[u32],
            ) -> [Digest; $n] {
                leaves_lanes::<$n, $C>($c, instance, pp, seed, epochs)
            }

            pub(crate) fn parents(
                instance: Instance,
                pp: &Digest,
                level: usize,
                first: u64,
                pairs: &[(Digest, Digest)],
            ) -> [Digest; $n] {
                parents_lanes::<$n, $C>($c, instance, pp, level, first, pairs)
            }

            pub(crate) fn attempts(
                instance: Instance,
                pp: &Digest,
                seed: &[u32; SEED_WORDS],
                message: &[u32; MESSAGE_WORDS],
                epoch: u32,
                first: u64,
            ) -> Option<(u64, [u32; RANDOMNESS_WORDS], [u8; CHAINS])> {
                attempts_lanes::<$n, $C>($c, instance, pp, seed, message, epoch, first)
            }
        }
    };
}

/// A SIMD path's compression over its vector type `$lanes`, compiled once as one of
/// its kernels, and the token (`Lanes`) its lane algorithms call it through.
macro_rules! simd_compression {
    ($n:literal, $lanes:ty) => {
        /// This path's compression. A value exists only inside this path's kernels (its
        /// field is private to the module), which run only where the CPU has the
        /// path's features: that is the SAFETY argument of its calls.
        #[derive(Clone, Copy)]
        pub(crate) struct Lanes(());

        impl Compress<$n> for Lanes {
            #[inline(always)]
            fn compress(
                self,
                h: &mut [Words<$n>; 8],
                m: &[Words<$n>; BLOCK_WORDS],
                t: u64,
                last: bool,
            ) {
                // SAFETY: see `Lanes`: this runs inside one of this path's kernels.
                unsafe { compress(h, m, t, last) }
            }
        }

        kernels! {
            /// The ten rounds, compiled once for this path.
            #[inline(never)]
            fn compress(h: &mut [Words<$n>; 8], m: &[Words<$n>; BLOCK_WORDS], t: u64, last: bool) {
                compress_inline::<$lanes, $n>(h, m, t, last)
            }
        }

        lane_algorithms!($n, Lanes, Lanes(()));
    };
}

#[cfg(target_arch = "x86_64")]
pub(crate) mod avx512 {
    use super::*;
    linesig_simd::isa_path!("avx512f");
    simd_compression!(16, linesig_simd::u32x16::U32x16);
}

#[cfg(target_arch = "x86_64")]
pub(crate) mod avx2 {
    use super::*;
    linesig_simd::isa_path!("avx2");
    simd_compression!(8, linesig_simd::u32x8::U32x8);
}

/// The portable path: one signature at a time on the scalar compression ([`One`]).
/// Arrays of four lanes ran as four scalar hashes with their words spilled, slower
/// than one at a time; the lane bookkeeping's portable model at other widths is
/// `testing`'s.
pub(crate) mod portable {
    use super::*;
    macro_rules! kernels {
        ($($item:item)*) => { $($item)* };
    }
    lane_algorithms!(1, One, One);
}

/// Which kernels `backend` runs here: its own where the CPU has them, else portable
/// (the engine has refused a backend the CPU lacks before it gets here).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Path {
    #[cfg(target_arch = "x86_64")]
    Avx512,
    #[cfg(target_arch = "x86_64")]
    Avx2,
    Portable,
}

impl Path {
    pub(crate) fn of(backend: Backend) -> Path {
        match backend {
            #[cfg(target_arch = "x86_64")]
            Backend::Avx512 if avx512::supported() => Path::Avx512,
            #[cfg(target_arch = "x86_64")]
            Backend::Avx2 if avx2::supported() => Path::Avx2,
            _ => Path::Portable,
        }
    }

    pub(crate) fn lanes(self) -> usize {
        match self {
            #[cfg(target_arch = "x86_64")]
            Path::Avx512 => avx512::LANES,
            #[cfg(target_arch = "x86_64")]
            Path::Avx2 => avx2::LANES,
            Path::Portable => portable::LANES,
        }
    }
}

/// Run `$kernel` of `$path`'s module with `$args`, its result as a slice.
macro_rules! on_path {
    ($path:expr, $kernel:ident($($arg:expr),*)) => {
        match $path {
            // SAFETY: `Path::of` picked this path only where its `supported()` holds.
            #[cfg(target_arch = "x86_64")]
            Path::Avx512 => unsafe { avx512::$kernel($($arg),*) }.to_vec(),
            #[cfg(target_arch = "x86_64")]
            Path::Avx2 => unsafe { avx2::$kernel($($arg),*) }.to_vec(),
            Path::Portable => portable::$kernel($($arg),*).to_vec(),
        }
    };
}

/// Whether each signature verifies, `group` at most per kernel call (clamped to the
/// path's lanes).
pub(crate) fn verify(
    path: Path,
    group: usize,
    instance: Instance,
    signatures: &[&Decoded],
) -> Vec<bool> {
    let group = group.clamp(1, path.lanes());
    let mut out = Vec::with_capacity(signatures.len());
    for chunk in signatures.chunks(group) {
        let results = on_path!(path, verify(instance, chunk));
        out.extend_from_slice(&results[..chunk.len()]);
    }
    out
}

/// The leaves of `epochs`.
pub(crate) fn leaves(
    backend: Backend,
    instance: Instance,
    pp: &Digest,
    seed: &[u32; SEED_WORDS],
    epochs: &[u32],
) -> Vec<Digest> {
    let path = Path::of(backend);
    let mut out = Vec::with_capacity(epochs.len());
    for chunk in epochs.chunks(path.lanes()) {
        let results = on_path!(path, leaves(instance, pp, seed, chunk));
        out.extend_from_slice(&results[..chunk.len()]);
    }
    out
}

/// The parents on `level` from index `first` of the children `pairs`.
pub(crate) fn parents(
    backend: Backend,
    instance: Instance,
    pp: &Digest,
    level: usize,
    first: u64,
    pairs: &[(Digest, Digest)],
) -> Vec<Digest> {
    let path = Path::of(backend);
    let mut out = Vec::with_capacity(pairs.len());
    for (k, chunk) in pairs.chunks(path.lanes()).enumerate() {
        let at = first + (k * path.lanes()) as u64;
        let results = on_path!(path, parents(instance, pp, level, at, chunk));
        out.extend_from_slice(&results[..chunk.len()]);
    }
    out
}

/// The spec's randomizer search: the first admissible attempt from 0 on, with its
/// digits; `None` after `MAX_RANDOMIZER_TRIALS` attempts.
pub(crate) fn find_randomness(
    backend: Backend,
    instance: Instance,
    pp: &Digest,
    seed: &[u32; SEED_WORDS],
    message: &[u32; MESSAGE_WORDS],
    epoch: u32,
) -> Option<([u32; RANDOMNESS_WORDS], [u8; CHAINS])> {
    let path = Path::of(backend);
    let lanes = path.lanes() as u64;
    let mut first = 0u64;
    while first < MAX_RANDOMIZER_TRIALS {
        let found = match path {
            // SAFETY: `Path::of` picked this path only where its `supported()` holds.
            #[cfg(target_arch = "x86_64")]
            Path::Avx512 => unsafe { avx512::attempts(instance, pp, seed, message, epoch, first) },
            #[cfg(target_arch = "x86_64")]
            Path::Avx2 => unsafe { avx2::attempts(instance, pp, seed, message, epoch, first) },
            Path::Portable => portable::attempts(instance, pp, seed, message, epoch, first),
        };
        // 2^32 is a multiple of every lane count: the last group ends at the bound.
        if let Some((_trial, randomness, digits)) = found {
            return Some((randomness, digits));
        }
        first += lanes;
    }
    None
}
