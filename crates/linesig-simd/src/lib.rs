//! linesig's SIMD layer: what the CPU runs, and how a kernel is compiled for it.
//!
//! Everything CPU-specific that more than one scheme needs lives here, below the schemes
//! and Paillier, so that none of them selects a path its own way:
//!
//! - [`cpu`]: the features linesig's paths use ([`Feature`]), sets of them ([`Isa`]),
//!   and the one place the CPU is asked ([`Isa::detected`]).
//! - [`isa_path!`]: declares a module as one ISA path from **one** feature literal — its
//!   `FEATURES` guard, its `supported()` check and a `kernels!` macro that compiles
//!   functions with `#[target_feature(enable = <that literal>)]`. A guard and the code it
//!   guards cannot drift apart, because they are written once.
//! - One vector type per ISA and lane width, which the schemes' lane traits are
//!   implemented over, each with its safety argument made once: [`u32x8::U32x8`] and
//!   [`u64x4::U64x4`] (AVX2), [`u32x16::U32x16`] and [`u64x8::U64x8`] (AVX-512F); and
//!   the raw lane shims more than one scheme shares.
//! - [`arx`]: the add-rotate-xor lanes of BLAKE2s and BLAKE3 (their shared quarter-round),
//!   written once as element-wise loops that each kernel compiles for its features.
//! - [`UnknownName`]: the error every linesig crate gives for a name it does not know
//!   (a scheme, a backend's path, a Paillier kernel).

pub mod arx;
pub mod cpu;
mod name;
mod path;
mod vector;
mod word;

#[cfg(target_arch = "x86_64")]
pub mod u32x16;
#[cfg(target_arch = "x86_64")]
pub mod u32x8;
#[cfg(target_arch = "x86_64")]
pub mod u64x4;
#[cfg(target_arch = "x86_64")]
pub mod u64x8;

pub use cpu::{Feature, Isa};
pub use name::UnknownName;
pub use word::{Word32, Word64};
