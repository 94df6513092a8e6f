//! Paillier's additively homomorphic encryption (Paillier, EUROCRYPT 1999), on GMP through
//! `rug`, with array calls that run on all cores (docs/design.md §7).
//!
//! Keys use g = n + 1, so (1 + n)^m = 1 + m·n (mod n²): the plaintext part of a
//! ciphertext is one multiplication, and the cost of encrypting is the *obfuscator*, a
//! random n-th residue mod n². Two ways to draw it ([`Mode`]):
//!
//! - **Textbook**: r^n mod n² with r uniform in [1, n). The distribution python-paillier
//!   (`phe`) produces; the default.
//! - **DJN** (Damgård, Jurik, Nielsen, "A generalization of Paillier's public-key system
//!   with applications to electronic voting", 2010, §4.2): hs^α mod n², where hs = h^n
//!   mod n² is published with the key (h = −x² mod n for a random x) and α is uniform
//!   below 2^⌈bits(n)/2⌉. hs is fixed, so hs^α runs on a fixed-base table with no
//!   squarings. Its security rests on an extra assumption: that hs^α with this short α is
//!   indistinguishable from a uniform n-th residue. Opt in per key with
//!   [`PublicKey::with_djn`].
//!
//! Decryption uses the CRT over p² and q² (two half-size exponentiations with half-size
//! exponents), as phe does, so plaintexts, ciphertexts and keys interoperate with phe.
//!
//! Plaintexts are integers in [0, n); signed and fixed-point encodings (phe's
//! `EncodedNumber`) live in the Python layer. Every function checks its inputs' ranges
//! and returns a typed [`Error`]; none panics on any input.
//!
//! **Kernels.** Single calls run on GMP. The array calls of [`Pool`] run their
//! exponentiations (r^n and hs^α for encryption, c^(p−1) mod p² and c^(q−1) mod q² for
//! decryption) eight at a time on the radix-2^52 Montgomery kernel of `montgomery/`
//! when the pool's [`Kernel`] has one: AVX-512 IFMA by default where the CPU has it, the
//! kernel's exact portable model when asked for (tests), GMP otherwise. An array's last,
//! partial group (the tail) runs as one kernel call padded to eight when it has at least
//! [`PADDED_TAIL_FROM`] items, on GMP otherwise. Every path returns the same integers.
//!
//! **Constant time.** The kernel's ladder for decryption's secret exponents has a fixed
//! schedule and reads its table by masked scans, so neither its branches nor its
//! addresses depend on the exponent: the exponentiations by p − 1 and q − 1 of an array
//! call's decryption do not leak p or q through timing or cache (the reductions, digit
//! splits and CRT steps around them run on GMP, which is not constant-time). Textbook
//! encryption's exponent is the public n: its sliding windows and in-place table reads
//! depend on n alone, never on the secret r. DJN's
//! fixed-base product reads one table entry per digit of α by address (as the GMP table
//! does), and everything on GMP (single calls, short tails, `mul_plain`, key generation) is not
//! constant-time.

mod fixed_base;
mod keys;
mod montgomery;
mod pool;

pub use fixed_base::FixedBaseTable;
pub use keys::{generate_keypair, PrivateKey, PublicKey};
pub use linesig_simd::UnknownName;
pub use pool::{Pool, GROUP, MAX_WORKERS, PADDED_TAIL_FROM};
pub use rug::Integer;

use rand::{CryptoRng, RngCore};

/// How an encryption draws its obfuscator; see the module documentation.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Mode {
    /// r^n mod n² (phe's distribution).
    #[default]
    Textbook,
    /// hs^α mod n² on the key's fixed-base table (opt-in; extra assumption).
    Djn,
}

impl Mode {
    pub fn name(self) -> &'static str {
        match self {
            Mode::Textbook => "textbook",
            Mode::Djn => "djn",
        }
    }
}

impl std::str::FromStr for Mode {
    type Err = UnknownName;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s.to_ascii_lowercase().as_str() {
            "textbook" => Ok(Mode::Textbook),
            "djn" => Ok(Mode::Djn),
            _ => Err(UnknownName::new("Paillier mode", s, "textbook, djn")),
        }
    }
}

/// The arithmetic behind a [`Pool`]'s exponentiations; see the module documentation.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Kernel {
    /// GMP's `mpz_powm`, one value at a time.
    Gmp,
    /// The eight-lane Montgomery kernel on its exact portable model of the IFMA
    /// instructions: any CPU, slower than GMP; for tests and cross-checks.
    Portable,
    /// The eight-lane Montgomery kernel on AVX-512 IFMA.
    Ifma,
}

impl Kernel {
    pub const ALL: [Kernel; 3] = [Kernel::Gmp, Kernel::Portable, Kernel::Ifma];

    /// IFMA where the CPU has it, else GMP.
    pub fn best() -> Kernel {
        if Kernel::Ifma.is_supported() {
            Kernel::Ifma
        } else {
            Kernel::Gmp
        }
    }

    pub fn is_supported(self) -> bool {
        match self {
            Kernel::Gmp | Kernel::Portable => true,
            #[cfg(target_arch = "x86_64")]
            Kernel::Ifma => montgomery::ifma::supported(),
            #[cfg(not(target_arch = "x86_64"))]
            Kernel::Ifma => false,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Kernel::Gmp => "gmp",
            Kernel::Portable => "portable",
            Kernel::Ifma => "ifma",
        }
    }

    /// The kernel's lanes, `None` for GMP. Only called on a supported kernel.
    pub(crate) fn lanes(self) -> Option<montgomery::Lanes> {
        match self {
            Kernel::Gmp => None,
            Kernel::Portable => Some(montgomery::Lanes::Portable),
            #[cfg(target_arch = "x86_64")]
            Kernel::Ifma => Some(montgomery::Lanes::Ifma),
            #[cfg(not(target_arch = "x86_64"))]
            Kernel::Ifma => None,
        }
    }
}

impl std::fmt::Display for Kernel {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

impl std::str::FromStr for Kernel {
    type Err = UnknownName;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Kernel::ALL
            .into_iter()
            .find(|k| k.name().eq_ignore_ascii_case(s))
            .ok_or_else(|| UnknownName::new("Paillier kernel", s, "gmp, portable, ifma"))
    }
}

/// Smallest modulus [`generate_keypair`] makes. Smaller keys are useless for security;
/// this bound exists so that tests can use fast keys.
pub const MIN_KEY_BITS: u32 = 64;

/// What a Paillier call can reject.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    #[error("key size must be an even number of bits, at least {MIN_KEY_BITS}; got {0}")]
    KeySize(u32),
    #[error("the modulus n must be odd and at least 3")]
    BadModulus,
    #[error("p·q does not equal the public key's n")]
    FactorsMismatch,
    #[error("p and q must be different")]
    EqualFactors,
    #[error("plaintext out of range: must lie in [0, n)")]
    PlaintextOutOfRange,
    #[error("ciphertext out of range: must lie in [0, n²)")]
    CiphertextOutOfRange,
    #[error("ciphertext has no inverse mod n² (it shares a factor with n)")]
    NotInvertible,
    #[error("DJN hs must lie in (0, n²) and be invertible mod n²")]
    BadDjnBase,
    #[error("DJN encryption needs a key with hs (PublicKey::with_djn)")]
    DjnNotEnabled,
    #[error("arrays differ in length: {0} and {1}")]
    LengthMismatch(usize, usize),
    #[error("item {index}: {error}")]
    Item { index: usize, error: Box<Error> },
    #[error("workers must be at least 1")]
    ZeroWorkers,
    #[error("workers must be at most {max}, not {requested}")]
    TooManyWorkers { requested: usize, max: usize },
    #[error("could not start the worker pool: {0}")]
    ThreadPool(String),
    #[error("the {0} kernel needs CPU features this machine lacks")]
    KernelUnsupported(Kernel),
}

impl Error {
    fn at(self, index: usize) -> Error {
        Error::Item {
            index,
            error: Box::new(self),
        }
    }
}

/// A uniform integer in [0, bound) (bound > 0), by rejection on ⌈bits(bound)⌉ random bits:
/// fewer than two draws expected, and no modular bias.
fn random_below<R: RngCore + CryptoRng + ?Sized>(bound: &Integer, rng: &mut R) -> Integer {
    let bits = bound.significant_bits();
    let mut bytes = vec![0u8; bits.div_ceil(8) as usize];
    let top_mask = match bits % 8 {
        0 => 0xff,
        b => (1u8 << b) - 1,
    };
    loop {
        rng.fill_bytes(&mut bytes);
        if let Some(top) = bytes.last_mut() {
            *top &= top_mask;
        }
        let candidate = Integer::from_digits(&bytes, rug::integer::Order::Lsf);
        if candidate < *bound {
            return candidate;
        }
    }
}

/// A uniform integer in [1, bound).
fn random_nonzero_below<R: RngCore + CryptoRng + ?Sized>(bound: &Integer, rng: &mut R) -> Integer {
    loop {
        let r = random_below(bound, rng);
        if r != 0 {
            return r;
        }
    }
}

/// The Rust example of docs/paillier.md, run as a doctest.
#[cfg(doctest)]
#[doc = include_str!("../../../docs/paillier.md")]
struct PaillierDocs;
