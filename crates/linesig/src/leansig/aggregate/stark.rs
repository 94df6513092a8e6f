//! The proof system under every aggregate: Plonky3's `p3-uni-stark` over KoalaBear,
//! and the versioned byte format its proofs travel in.
//!
//! Parameters, and the security they are chosen for:
//! - traces over KoalaBear (p = 2^31 − 2^24 + 1), challenges from its degree-4
//!   extension (|F| ≈ 2^124);
//! - commitments: Merkle trees of Poseidon2-16 (Plonky3's KoalaBear constants), rows
//!   hashed by a padding-free sponge of rate 8, nodes by the truncated permutation;
//! - FRI with blowup 2 (`LOG_BLOWUP` = 1: the constraints have degree 3, so the
//!   quotient has degree 2), binary folding, [`NUM_QUERIES`] queries and
//!   [`QUERY_POW_BITS`] bits of grinding before them.
//!
//! Conjectured security (the ethSTARK conjecture: each query is worth log2(blowup)
//! bits): `NUM_QUERIES · LOG_BLOWUP + QUERY_POW_BITS` = [`CONJECTURED_SECURITY_BITS`]
//! = 100 bits. Proven (Johnson-bound) security is lower, about half; these are the
//! parameters of a throughput-oriented deployment, and they are written in every
//! proof's header so a verifier can refuse others.
//!
//! Byte format (linesig's own; not leanMultisig's): `b"LSAG"`, the format version
//! ([`FORMAT_VERSION`], one byte), the number of signatures the proof covers (u32
//! little-endian), then the `postcard` encoding of `p3_uni_stark::Proof` with nothing
//! after it. Decoding is strict: a wrong magic or version, a short or malformed
//! body, or trailing bytes are typed errors.

use p3_challenger::DuplexChallenger;
use p3_commit::ExtensionMmcs;
use p3_dft::Radix2DitParallel;
use p3_field::extension::BinomialExtensionField;
use p3_field::Field;
use p3_fri::{FriParameters, TwoAdicFriPcs};
use p3_koala_bear::{default_koalabear_poseidon2_16, KoalaBear, Poseidon2KoalaBear};
use p3_merkle_tree::MerkleTreeMmcs;
use p3_symmetric::{PaddingFreeSponge, TruncatedPermutation};
use p3_uni_stark::{Proof, StarkConfig};

type Perm = Poseidon2KoalaBear<16>;
type RowHash = PaddingFreeSponge<Perm, 16, 8, 8>;
type NodeCompress = TruncatedPermutation<Perm, 2, 8, 16>;
type ValMmcs = MerkleTreeMmcs<
    <KoalaBear as Field>::Packing,
    <KoalaBear as Field>::Packing,
    RowHash,
    NodeCompress,
    2,
    8,
>;
/// The extension field challenges are drawn from.
pub type Challenge = BinomialExtensionField<KoalaBear, 4>;
type ChallengeMmcs = ExtensionMmcs<KoalaBear, Challenge, ValMmcs>;
type Challenger = DuplexChallenger<KoalaBear, Perm, 16, 8>;
type Pcs = TwoAdicFriPcs<KoalaBear, Radix2DitParallel<KoalaBear>, ValMmcs, ChallengeMmcs>;
/// The STARK configuration of every aggregate proof.
pub type Config = StarkConfig<Pcs, Challenge, Challenger>;
/// A proof under [`Config`].
pub type StarkProof = Proof<Config>;

/// log2 of the FRI blowup.
pub const LOG_BLOWUP: usize = 1;
/// FRI queries.
pub const NUM_QUERIES: usize = 84;
/// Proof-of-work bits ground before the queries are drawn.
pub const QUERY_POW_BITS: usize = 16;
/// Conjectured security of the parameters above, in bits.
pub const CONJECTURED_SECURITY_BITS: usize = NUM_QUERIES * LOG_BLOWUP + QUERY_POW_BITS;

/// The magic every proof starts with.
pub const MAGIC: [u8; 4] = *b"LSAG";
/// The byte format's version: bumped with any change to the format, the parameters
/// or the statement.
pub const FORMAT_VERSION: u8 = 1;

/// The configuration: deterministic (its Poseidon2 constants are Plonky3's fixed ones).
pub fn config() -> Config {
    let perm = default_koalabear_poseidon2_16();
    let mmcs = ValMmcs::new(
        RowHash::new(perm.clone()),
        NodeCompress::new(perm.clone()),
        0,
    );
    let fri = FriParameters {
        log_blowup: LOG_BLOWUP,
        log_final_poly_len: 0,
        max_log_arity: 1,
        num_queries: NUM_QUERIES,
        commit_proof_of_work_bits: 0,
        query_proof_of_work_bits: QUERY_POW_BITS,
        mmcs: ChallengeMmcs::new(mmcs.clone()),
    };
    let pcs = Pcs::new(Radix2DitParallel::default(), mmcs, fri);
    Config::new(pcs, Challenger::new(perm))
}

/// Why proof bytes did not decode.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ProofFormatError {
    #[error("not a linesig aggregate proof (the first bytes are not \"LSAG\")")]
    BadMagic,
    #[error("proof format version {found}; this linesig reads version {FORMAT_VERSION}")]
    UnsupportedVersion { found: u8 },
    #[error("malformed proof body: {0}")]
    Malformed(String),
    #[error("{0} bytes after the end of the proof")]
    TrailingBytes(usize),
}

/// The proof's bytes: magic, version, signature count, body.
pub fn encode(count: u32, proof: &StarkProof) -> Vec<u8> {
    let mut out = Vec::with_capacity(64 * 1024);
    out.extend_from_slice(&MAGIC);
    out.push(FORMAT_VERSION);
    out.extend_from_slice(&count.to_le_bytes());
    postcard::to_extend(proof, out).expect("a Vec grows to any size")
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
    let (proof, rest) = postcard::take_from_bytes::<StarkProof>(body)
        .map_err(|e| ProofFormatError::Malformed(e.to_string()))?;
    if !rest.is_empty() {
        return Err(ProofFormatError::TrailingBytes(rest.len()));
    }
    Ok((u32::from_le_bytes(*count), proof))
}
