//! SSZ encoding of leanSig public keys and signatures (leanSig `serialization.rs`,
//! leanSpec `containers/signature.py`), with every field element canonical.
//!
//! public key = root[HASH_LEN] ‖ parameter[5], each element a u32 LE;
//! signature  = offset(path) ‖ rho[RAND_LEN] ‖ offset(hashes) ‖ path ‖ hashes, with
//! path = offset(4) ‖ siblings[LOG_LIFETIME][HASH_LEN] and hashes = [DIMENSION][HASH_LEN].
//!
//! Canonical elements: leanSpec's `Fp.deserialize` rejects a limb ≥ p, while the Rust
//! reference reduces it mod p (`KoalaBear::new`), so there every element has two or
//! three encodings. linesig follows the spec: a limb ≥ p is `NonCanonicalEncoding`.
//! Lengths are checked explicitly: the co-path must hold exactly LOG_LIFETIME siblings
//! (the reference takes the tree depth from the path and fails only at the root) and
//! there must be exactly DIMENSION chain hashes; any other size or offset is `BadLength`.

use super::lanes::{from_monty, to_monty, P};
use super::{Digest, Params, PARAMETER_LEN};
use crate::verdict::Reject;

/// A decoded public key; elements in Montgomery form.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PublicKey {
    pub root: Digest,
    pub parameter: [u32; PARAMETER_LEN],
}

/// A decoded signature; elements in Montgomery form, digests zero past HASH_LEN.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Signature {
    pub rho: [u32; 8],
    pub path: Vec<Digest>,
    pub hashes: Vec<Digest>,
}

fn element(bytes: &[u8]) -> Result<u32, Reject> {
    let x = u32::from_le_bytes(bytes.try_into().expect("4 bytes"));
    if x >= P {
        return Err(Reject::NonCanonicalEncoding);
    }
    Ok(to_monty(x))
}

fn digests(params: &Params, bytes: &[u8]) -> Result<Vec<Digest>, Reject> {
    bytes
        .chunks_exact(4 * params.hash_len)
        .map(|chunk| {
            let mut digest = [0u32; 8];
            for (d, b) in digest.iter_mut().zip(chunk.chunks_exact(4)) {
                *d = element(b)?;
            }
            Ok(digest)
        })
        .collect()
}

pub fn decode_public_key(params: &Params, bytes: &[u8]) -> Result<PublicKey, Reject> {
    if bytes.len() != params.public_key_len() {
        return Err(Reject::BadLength);
    }
    let root = digests(params, &bytes[..4 * params.hash_len])?[0];
    let mut parameter = [0u32; PARAMETER_LEN];
    for (p, b) in parameter
        .iter_mut()
        .zip(bytes[4 * params.hash_len..].chunks_exact(4))
    {
        *p = element(b)?;
    }
    Ok(PublicKey { root, parameter })
}

fn offset(bytes: &[u8], at: usize) -> usize {
    u32::from_le_bytes(bytes[at..at + 4].try_into().expect("4 bytes")) as usize
}

pub fn decode_signature(params: &Params, bytes: &[u8]) -> Result<Signature, Reject> {
    if bytes.len() != params.signature_len() {
        return Err(Reject::BadLength);
    }
    let rho_end = 4 + 4 * params.rand_len;
    let path_start = rho_end + 4;
    let hashes_start = path_start + 4 + 4 * params.log_lifetime * params.hash_len;
    // The three offsets are the SSZ encoding of the part lengths; with the total length
    // fixed, any other value gives a wrong co-path or hash count.
    if offset(bytes, 0) != path_start
        || offset(bytes, rho_end) != hashes_start
        || offset(bytes, path_start) != 4
    {
        return Err(Reject::BadLength);
    }
    let mut rho = [0u32; 8];
    for (r, b) in rho.iter_mut().zip(bytes[4..rho_end].chunks_exact(4)) {
        *r = element(b)?;
    }
    let path = digests(params, &bytes[path_start + 4..hashes_start])?;
    let hashes = digests(params, &bytes[hashes_start..])?;
    Ok(Signature { rho, path, hashes })
}

fn push_elements(out: &mut Vec<u8>, elements: &[u32]) {
    for &x in elements {
        out.extend_from_slice(&from_monty(x).to_le_bytes());
    }
}

pub fn encode_public_key(params: &Params, key: &PublicKey) -> Vec<u8> {
    let mut out = Vec::with_capacity(params.public_key_len());
    push_elements(&mut out, &key.root[..params.hash_len]);
    push_elements(&mut out, &key.parameter);
    out
}

pub fn encode_signature(params: &Params, signature: &Signature) -> Vec<u8> {
    let mut out = Vec::with_capacity(params.signature_len());
    let path_start = 8 + 4 * params.rand_len;
    let hashes_start = path_start + 4 + 4 * signature.path.len() * params.hash_len;
    out.extend_from_slice(&(path_start as u32).to_le_bytes());
    push_elements(&mut out, &signature.rho[..params.rand_len]);
    out.extend_from_slice(&(hashes_start as u32).to_le_bytes());
    out.extend_from_slice(&4u32.to_le_bytes());
    for digest in signature.path.iter().chain(&signature.hashes) {
        push_elements(&mut out, &digest[..params.hash_len]);
    }
    out
}
