//! The proof system under every aggregate: Plonky3's `p3-uni-stark` over KoalaBear,
//! and the versioned byte format its proofs travel in.
//!
//! Parameters, and the security they are chosen for:
//! - traces over KoalaBear (p = 2^31 − 2^24 + 1), challenges from its degree-4
//!   extension (|F| ≈ 2^124);
//! - commitments: Merkle trees of BLAKE3 (32-byte digests; rows hashed as the
//!   canonical little-endian bytes of their elements), the top [`MERKLE_CAP_HEIGHT`]
//!   levels sent whole; the Fiat–Shamir transcript is BLAKE3 too, from
//!   [`DOMAIN_SEPARATOR`] and the format version;
//! - FRI with blowup 8 (`LOG_BLOWUP` = 3: the permutation blocks commit two full rounds
//!   at a time, constraints of degree 9, a quotient of degree 8), folding up to 8
//!   evaluations a round down to a final polynomial of 8 coefficients,
//!   [`NUM_QUERIES`] queries and [`QUERY_POW_BITS`] bits of grinding before them.
//!
//! Conjectured security (the ethSTARK conjecture: each query is worth log2(blowup)
//! bits): `NUM_QUERIES · LOG_BLOWUP + QUERY_POW_BITS` = [`CONJECTURED_SECURITY_BITS`]
//! = 100 bits; BLAKE3's 256-bit digests give 128 bits against collisions. Proven
//! (Johnson-bound) security is lower, about half; these are the parameters of a
//! throughput-oriented deployment. The format version names them: a proof made under
//! other parameters does not decode.
//!
//! Why blowup 8 and not 2: a proof opens every committed column at every query, so its
//! size is about queries × width. Blowup 2 needs 84 queries over the 1,639 columns of
//! one-round-per-commit blocks (0.95–1.4 MB); blowup 8 needs 28 over 920 columns
//! (162–215 KB, N = 2 … 1,024), for a prover that works over a 4× wider LDE.
//!
//! Byte format (linesig's own; not leanMultisig's): `b"LSAG"`, the format version
//! ([`FORMAT_VERSION`], one byte), the number of signatures the proof covers (u32
//! little-endian), then `p3_uni_stark::Proof` (no preprocessed openings: the verifier
//! evaluates the public columns itself; version 3 opened committed ones) in bincode 1 with fixed-width
//! little-endian integers (a field element is its Montgomery form as 4 bytes, a length
//! 8 bytes), with nothing after it. Decoding is strict: a wrong magic or version, a
//! short or malformed body, a field element ≥ p, or trailing bytes are typed errors.

use super::challenger::Transcript;
use super::lanes::dft::LanesDft;
use super::lanes::ProverPath;
use bincode::Options;
use p3_blake3::Blake3;
use p3_commit::ExtensionMmcs;
use p3_field::{Field, PackedValue, PrimeField32};
use p3_fri::{FriParameters, TwoAdicFriPcs};
use p3_koala_bear::KoalaBear;
use p3_merkle_tree::MerkleTreeMmcs;
use p3_symmetric::{CompressionFunctionFromHasher, CryptographicHasher};
use p3_uni_stark::{Proof, StarkConfig};

/// Rows and nodes are hashed with BLAKE3 (32-byte digests): the proof is verified
/// natively, never inside another circuit, so the commitment hash need not be
/// arithmetic, and BLAKE3 on bytes runs several times faster than Poseidon2 on field
/// elements where Plonky3 has no SIMD packing (any build not compiled for the CPU).
pub(crate) type NodeCompress = CompressionFunctionFromHasher<Blake3, 2, 32>;
pub(crate) type ValMmcs = MerkleTreeMmcs<KoalaBear, u8, Blake3Rows, NodeCompress, 2, 32>;

/// BLAKE3 of a row: its elements' canonical values as 4 little-endian bytes each,
/// hashed in one call. A 920-column row is four BLAKE3 chunks, which one call hashes
/// side by side in SIMD lanes; fed piecewise (`p3_symmetric::SerializingHasher` over
/// `p3_blake3`, 512 bytes at a time) they are compressed one block after another.
#[derive(Clone, Copy, Debug, Default)]
pub struct Blake3Rows;

impl CryptographicHasher<KoalaBear, [u8; 32]> for Blake3Rows {
    /// The row's bytes go through one buffer per thread: the Merkle tree hands each row
    /// over as a chained iterator with no length hint, and a fresh vector would grow
    /// (reallocate and copy) a dozen times per row, for each of the LDE's rows.
    fn hash_iter<I: IntoIterator<Item = KoalaBear>>(&self, input: I) -> [u8; 32] {
        thread_local! {
            static ROW_BYTES: core::cell::RefCell<Vec<u8>> = const { core::cell::RefCell::new(Vec::new()) };
        }
        ROW_BYTES.with_borrow_mut(|bytes| {
            bytes.clear();
            for x in input {
                bytes.extend_from_slice(&x.as_canonical_u32().to_le_bytes());
            }
            blake3::hash(bytes).into()
        })
    }
}
pub use crate::field::{Challenge, NUM_QUERIES};
pub(crate) type ChallengeMmcs = ExtensionMmcs<KoalaBear, Challenge, ValMmcs>;
type Pcs = TwoAdicFriPcs<KoalaBear, LanesDft, ValMmcs, ChallengeMmcs>;
/// The STARK configuration of every aggregate proof.
pub type Config = StarkConfig<Pcs, Challenge, Transcript>;
/// A proof under [`Config`].
pub type StarkProof = Proof<Config>;

/// log2 of the FRI blowup.
pub const LOG_BLOWUP: usize = 3;
/// Proof-of-work bits ground before the queries are drawn.
pub const QUERY_POW_BITS: usize = 16;
/// Levels of each Merkle tree sent whole, so that no opening proof repeats them.
pub const MERKLE_CAP_HEIGHT: usize = 4;
/// FRI folds up to 2^3 = 8 evaluations per round (fewer rounds, fewer openings).
pub const MAX_LOG_FOLDING_ARITY: usize = 3;
/// FRI stops at a polynomial of 2^3 coefficients, sent whole.
pub const LOG_FINAL_POLY_LEN: usize = 3;
/// Conjectured security of the parameters above, in bits.
pub const CONJECTURED_SECURITY_BITS: usize = NUM_QUERIES * LOG_BLOWUP + QUERY_POW_BITS;

/// The transcript's first bytes, followed by [`FORMAT_VERSION`]: a proof for any other
/// statement or format starts from another state.
const DOMAIN_SEPARATOR: &[u8] = b"linesig leansig-devnet4 aggregate";

/// The magic every proof starts with.
pub const MAGIC: [u8; 4] = *b"LSAG";
/// The byte format's version: bumped with any change to the format, the parameters
/// or the statement.
pub const FORMAT_VERSION: u8 = 4;

/// The configuration: deterministic (BLAKE3 has no keys, the transcript a fixed start,
/// the proof-of-work witness the least one: [`Transcript`]), so a statement always
/// proves to the same bytes. Its low-degree extensions run on the lanes this CPU has ([`LanesDft`]).
pub fn config() -> Config {
    config_on(ProverPath::best())
}

/// [`config`] with the extensions on `path` (which this CPU must run): the same
/// commitments whichever path.
pub(crate) fn config_on(path: ProverPath) -> Config {
    let pcs = Pcs::new(LanesDft::on(path), input_mmcs(), fri_parameters());
    Config::new(pcs, Transcript::new(DOMAIN_SEPARATOR.to_vec()))
}

/// The commitment scheme of the trace, preprocessed and quotient matrices ([`Config`]'s).
pub(crate) fn input_mmcs() -> ValMmcs {
    ValMmcs::new(Blake3Rows, node_compress(), MERKLE_CAP_HEIGHT)
}

/// The compression of a Merkle tree's two children into their parent ([`ValMmcs`]'s).
pub(crate) fn node_compress() -> NodeCompress {
    NodeCompress::new(Blake3)
}

/// The FRI parameters ([`Config`]'s).
pub(crate) fn fri_parameters() -> FriParameters<ChallengeMmcs> {
    FriParameters {
        log_blowup: LOG_BLOWUP,
        log_final_poly_len: LOG_FINAL_POLY_LEN,
        max_log_arity: MAX_LOG_FOLDING_ARITY,
        num_queries: NUM_QUERIES,
        commit_proof_of_work_bits: 0,
        query_proof_of_work_bits: QUERY_POW_BITS,
        mmcs: ChallengeMmcs::new(input_mmcs()),
    }
}

/// The KoalaBear arithmetic this build proves with, for reports: the lanes the trace
/// fill, the constraints, the opening, the extensions and the proof-of-work search run
/// on (chosen at run time, [`super::lanes`]), and Plonky3's compile-time packing, which
/// the rest (FRI folding; every transform in a build with Plonky3's packing) runs on.
pub fn field_arithmetic() -> String {
    let lanes = ProverPath::best().name();
    match <<KoalaBear as Field>::Packing as PackedValue>::WIDTH {
        1 => format!(
            "constraints, openings, extensions' inverse and forward transforms and proof-of-work search on {lanes} lanes and the trace fill compiled for {lanes} (chosen at run time), FRI folding in Plonky3's scalar code (not built for the CPU)"
        ),
        width => format!(
            "constraints, openings and proof-of-work search on {lanes} lanes and the trace fill compiled for {lanes} (chosen at run time), transforms and FRI folding in Plonky3's packing of {width} lanes"
        ),
    }
}

/// Why proof bytes did not decode.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ProofFormatError {
    #[error("not a linesig aggregate proof (the first bytes are not \"LSAG\")")]
    BadMagic,
    #[error("proof format version {found}; this linesig reads version {FORMAT_VERSION}")]
    UnsupportedVersion { found: u8 },
    #[error("malformed proof body: {0}")]
    Malformed(String),
    #[error("truncated proof: its bytes end before its body does")]
    Truncated,
    #[error("{0} bytes after the end of the proof")]
    TrailingBytes(usize),
}

/// The proof's bytes: magic, version, signature count, body.
pub fn encode(count: u32, proof: &StarkProof) -> Vec<u8> {
    let mut out = Vec::with_capacity(256 * 1024);
    out.extend_from_slice(&MAGIC);
    out.push(FORMAT_VERSION);
    out.extend_from_slice(&count.to_le_bytes());
    body_options()
        .serialize_into(&mut out, proof)
        .expect("a proof serializes into a Vec");
    out
}

/// The body's encoding: bincode with fixed-width little-endian integers, no more bytes
/// read than the body has.
fn body_options() -> impl Options {
    bincode::DefaultOptions::new()
        .with_fixint_encoding()
        .with_little_endian()
        .allow_trailing_bytes()
}

/// The signature count and the proof in `bytes`, decoded strictly.
pub fn decode(bytes: &[u8]) -> Result<(u32, StarkProof), ProofFormatError> {
    let body = bytes
        .strip_prefix(&MAGIC[..])
        .ok_or(ProofFormatError::BadMagic)?;
    let (&version, body) = body
        .split_first()
        .ok_or(ProofFormatError::Malformed("no version byte".into()))?;
    if version != FORMAT_VERSION {
        return Err(ProofFormatError::UnsupportedVersion { found: version });
    }
    let (count, body) = body
        .split_first_chunk::<4>()
        .ok_or(ProofFormatError::Malformed("no signature count".into()))?;
    let mut rest = body;
    let proof: StarkProof = body_options()
        .with_limit(body.len() as u64)
        .deserialize_from(&mut rest)
        .map_err(|e| match *e {
            // The limit is the bytes there are: a body that wants more is cut short.
            bincode::ErrorKind::SizeLimit => ProofFormatError::Truncated,
            bincode::ErrorKind::Io(ref io) if io.kind() == std::io::ErrorKind::UnexpectedEof => {
                ProofFormatError::Truncated
            }
            e => ProofFormatError::Malformed(e.to_string()),
        })?;
    if !rest.is_empty() {
        return Err(ProofFormatError::TrailingBytes(rest.len()));
    }
    Ok((u32::from_le_bytes(*count), proof))
}
