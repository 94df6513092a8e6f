//! A secret key as bytes, so that a signer can persist its state and load it back:
//! linesig's own format (the reference serializes its key with serde; we do not claim
//! its bytes).
//!
//! Layout (integers little-endian, field elements canonical u32 < p, `h` = the
//! instance's hash length in elements):
//!
//! | bytes | field |
//! |---|---|
//! | 4 | magic `LSSK` |
//! | 2 | format version, 1 |
//! | 1 | instance: 1 devnet-4, 2 L18, 3 L32 |
//! | 1 | zero |
//! | 32 | PRF key |
//! | 4 · 5 | public parameter |
//! | 8 · 4 | active start, active end, left bottom tree's index, next epoch |
//! | … | three trees (top, left bottom, right bottom), each: u32 layer count, then per layer u64 start, u32 node count, nodes of 4 · h bytes |
//! | 32 | SHA-256 of everything before |
//!
//! Loading checks, in order: length and magic (a foreign blob), version, instance,
//! checksum (a truncated or altered blob), then the structure itself: every element
//! below p, the intervals as a key made by [`super::key_gen`] has them, every tree
//! layer the hash of the one below, the bottom trees' roots the top tree's leaves, and
//! the top tree's root the public key's. A blob that passes is a key that signs
//! exactly as the one that was saved, from the same next epoch.
//!
//! Size: the two prepared bottom trees dominate, 2 · (2^(L/2+1) − 1) nodes: about
//! 8 MiB for devnet-4 and L32, 57 KiB for L18.

use super::{Layer, SecretKey, Tree};
use crate::leansig::lanes::{from_monty, to_monty, KoalaLanes, P};
use crate::leansig::{Digest, Instance, Params, PARAMETER_LEN};
use crate::Backend;
use sha2::{Digest as _, Sha256};

const MAGIC: [u8; 4] = *b"LSSK";
/// The format version this code writes; it reads this one only.
pub const SECRET_KEY_FORMAT_VERSION: u16 = 1;
const HEADER_LEN: usize = 4 + 2 + 1 + 1;
const CHECKSUM_LEN: usize = 32;

/// Why bytes are not a secret key.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum KeyFormatError {
    #[error("not a linesig leanSig secret key (no `LSSK` header)")]
    Foreign,
    #[error("secret key format version {0}; this build reads version {SECRET_KEY_FORMAT_VERSION}")]
    UnsupportedVersion(u16),
    #[error("unknown leanSig instance number {0} in the secret key")]
    UnknownInstance(u8),
    #[error("the secret key is truncated or altered: its checksum does not match")]
    Checksum,
    #[error("the secret key is for {found}, not {expected}")]
    WrongInstance { expected: Instance, found: Instance },
    #[error("the secret key is inconsistent: {0}")]
    Inconsistent(&'static str),
}

/// The header's instance byte, both ways.
const INSTANCE_CODES: [(u8, Instance); 3] = [
    (1, Instance::Devnet4),
    (2, Instance::L18),
    (3, Instance::L32),
];

fn instance_code(instance: Instance) -> u8 {
    INSTANCE_CODES
        .iter()
        .find(|(_, i)| *i == instance)
        .expect("every instance has a code")
        .0
}

fn put_digest(out: &mut Vec<u8>, params: &Params, digest: &Digest) {
    for &x in &digest[..params.hash_len] {
        out.extend_from_slice(&from_monty(x).to_le_bytes());
    }
}

fn put_tree(out: &mut Vec<u8>, params: &Params, tree: &Tree) {
    out.extend_from_slice(&(tree.layers.len() as u32).to_le_bytes());
    for layer in &tree.layers {
        out.extend_from_slice(&layer.start.to_le_bytes());
        out.extend_from_slice(&(layer.nodes.len() as u32).to_le_bytes());
        for node in &layer.nodes {
            put_digest(out, params, node);
        }
    }
}

impl SecretKey {
    /// The key and its signing state as bytes (see the module's layout). Save them
    /// after every signature, before the signature leaves: a key loaded from bytes
    /// saved earlier would sign an epoch it has already signed.
    pub fn to_bytes(&self) -> Vec<u8> {
        let params = self.instance.params();
        let mut out = Vec::new();
        out.extend_from_slice(&MAGIC);
        out.extend_from_slice(&SECRET_KEY_FORMAT_VERSION.to_le_bytes());
        out.push(instance_code(self.instance));
        out.push(0);
        out.extend_from_slice(&self.prf_key);
        for &x in &self.key.parameter {
            out.extend_from_slice(&from_monty(x).to_le_bytes());
        }
        for x in [
            self.active.start,
            self.active.end,
            self.left_index,
            self.next_epoch,
        ] {
            out.extend_from_slice(&x.to_le_bytes());
        }
        for tree in [&self.top, &self.left, &self.right] {
            put_tree(&mut out, params, tree);
        }
        let checksum = Sha256::digest(&out);
        out.extend_from_slice(&checksum);
        out
    }

    /// The instance a saved key is for, from its header alone (magic, version and
    /// instance checked; the rest is [`SecretKey::from_bytes`]'s to check).
    pub fn instance_in(bytes: &[u8]) -> Result<Instance, KeyFormatError> {
        if bytes.len() < HEADER_LEN + CHECKSUM_LEN || bytes[..4] != MAGIC {
            return Err(KeyFormatError::Foreign);
        }
        let version = u16::from_le_bytes([bytes[4], bytes[5]]);
        if version != SECRET_KEY_FORMAT_VERSION {
            return Err(KeyFormatError::UnsupportedVersion(version));
        }
        INSTANCE_CODES
            .iter()
            .find(|(code, _)| *code == bytes[6])
            .map(|(_, instance)| *instance)
            .ok_or(KeyFormatError::UnknownInstance(bytes[6]))
    }

    /// Load a key saved by [`SecretKey::to_bytes`]; it signs on `backend`'s lanes (as
    /// [`super::key_gen`]'s `backend`). Every check in the module's list runs; the tree
    /// checks hash each saved node once (a few milliseconds for devnet-4).
    pub fn from_bytes(bytes: &[u8], backend: Backend) -> Result<SecretKey, KeyFormatError> {
        let instance = SecretKey::instance_in(bytes)?;
        let (body, checksum) = bytes.split_at(bytes.len() - CHECKSUM_LEN);
        if Sha256::digest(body).as_slice() != checksum {
            return Err(KeyFormatError::Checksum);
        }
        let key = Reader {
            bytes: &body[HEADER_LEN..],
            params: instance.params(),
        }
        .secret_key(instance, backend)?;
        with_lanes!(backend, L => check_trees::<L>(&key))?;
        Ok(key)
    }
}

/// Reads the body after the header; every shortfall is `Inconsistent` (the checksum
/// matched, so the writer wrote a short body).
struct Reader<'a> {
    bytes: &'a [u8],
    params: &'static Params,
}

const SHORT: KeyFormatError = KeyFormatError::Inconsistent("a field runs past the end");

impl Reader<'_> {
    fn take(&mut self, n: usize) -> Result<&[u8], KeyFormatError> {
        if self.bytes.len() < n {
            return Err(SHORT);
        }
        let (head, rest) = self.bytes.split_at(n);
        self.bytes = rest;
        Ok(head)
    }

    fn u32(&mut self) -> Result<u32, KeyFormatError> {
        Ok(u32::from_le_bytes(
            self.take(4)?.try_into().expect("4 bytes"),
        ))
    }

    fn u64(&mut self) -> Result<u64, KeyFormatError> {
        Ok(u64::from_le_bytes(
            self.take(8)?.try_into().expect("8 bytes"),
        ))
    }

    fn element(&mut self) -> Result<u32, KeyFormatError> {
        let x = self.u32()?;
        if x >= P {
            return Err(KeyFormatError::Inconsistent(
                "a field element is not below p",
            ));
        }
        Ok(to_monty(x))
    }

    fn digest(&mut self) -> Result<Digest, KeyFormatError> {
        let mut d = [0u32; 8];
        for x in &mut d[..self.params.hash_len] {
            *x = self.element()?;
        }
        Ok(d)
    }

    fn tree(&mut self) -> Result<Tree, KeyFormatError> {
        let count = self.u32()? as usize;
        if count == 0 || count > self.params.log_lifetime + 1 {
            return Err(KeyFormatError::Inconsistent(
                "a tree has no layers or too many",
            ));
        }
        let mut layers = Vec::with_capacity(count);
        for _ in 0..count {
            let start = self.u64()?;
            let len = self.u32()? as usize;
            // Bound the allocation by the bytes there are before reading a node.
            if len == 0 || len > self.bytes.len() / (4 * self.params.hash_len) {
                return Err(SHORT);
            }
            let nodes = (0..len)
                .map(|_| self.digest())
                .collect::<Result<Vec<_>, _>>()?;
            layers.push(Layer { start, nodes });
        }
        Ok(Tree { layers })
    }

    fn secret_key(
        mut self,
        instance: Instance,
        backend: Backend,
    ) -> Result<SecretKey, KeyFormatError> {
        let prf_key: [u8; 32] = self.take(32)?.try_into().expect("32 bytes");
        let mut parameter = [0u32; PARAMETER_LEN];
        for x in &mut parameter {
            *x = self.element()?;
        }
        let (start, end, left_index, next_epoch) =
            (self.u64()?, self.u64()?, self.u64()?, self.u64()?);
        let top = self.tree()?;
        let left = self.tree()?;
        let right = self.tree()?;
        if !self.bytes.is_empty() {
            return Err(KeyFormatError::Inconsistent("bytes follow the last tree"));
        }
        let half = self.params.log_lifetime / 2;
        let trees = 1u64 << half;
        let aligned = |e: u64| e.is_multiple_of(trees);
        if !(aligned(start) && aligned(end) && start < end && end <= instance.lifetime())
            || end - start < 2 * trees
        {
            return Err(KeyFormatError::Inconsistent(
                "the active epochs are not whole bottom trees inside the lifetime",
            ));
        }
        if left_index < start >> half || (left_index + 2) << half > end {
            return Err(KeyFormatError::Inconsistent(
                "the prepared bottom trees lie outside the active epochs",
            ));
        }
        if next_epoch < start || next_epoch > end {
            return Err(KeyFormatError::Inconsistent(
                "the next epoch lies outside the active epochs",
            ));
        }
        let key = crate::leansig::ssz::PublicKey {
            root: top.root(),
            parameter,
        };
        Ok(SecretKey {
            instance,
            prf_key,
            key,
            active: start..end,
            top,
            left_index,
            left,
            right,
            next_epoch,
            backend,
        })
    }
}

const NOT_A_TREE: KeyFormatError =
    KeyFormatError::Inconsistent("a tree node is not the hash of its children");

/// Every layer above `lowest` (the level of `tree.layers[0]`) holds the parents of the
/// layer below at their positions, with at most one padding node either side.
fn check_tree<L: KoalaLanes>(
    params: &Params,
    parameter: &[u32; PARAMETER_LEN],
    lowest: usize,
    tree: &Tree,
) -> Result<(), KeyFormatError> {
    for (i, pair) in tree.layers.windows(2).enumerate() {
        let (below, above) = (&pair[0], &pair[1]);
        if below.start % 2 != 0 || below.nodes.len() % 2 != 0 {
            return Err(NOT_A_TREE);
        }
        let up = super::parents::<L>(params, parameter, lowest + i + 1, below.start, &below.nodes);
        let offset = (below.start >> 1)
            .checked_sub(above.start)
            .filter(|&o| o <= 1)
            .ok_or(NOT_A_TREE)? as usize;
        let extra = above
            .nodes
            .len()
            .checked_sub(offset + up.len())
            .ok_or(NOT_A_TREE)?;
        if extra > 1 || above.nodes[offset..offset + up.len()] != up[..] {
            return Err(NOT_A_TREE);
        }
    }
    Ok(())
}

/// The trees hash together and to the public key (see the module's list).
fn check_trees<L: KoalaLanes>(key: &SecretKey) -> Result<(), KeyFormatError> {
    let params = key.instance.params();
    let half = params.log_lifetime / 2;
    let parameter = &key.key.parameter;
    // The top tree: its lowest layer the roots of the active bottom trees (padded), up
    // to the root at level L.
    let first = key.active.start >> half;
    let count = ((key.active.end - key.active.start) >> half) as usize;
    let leaves = &key.top.layers[0];
    if key.top.layers.len() != half + 1
        || leaves.start > first
        || first - leaves.start > 1
        || leaves.nodes.len() < count + (first - leaves.start) as usize
    {
        return Err(KeyFormatError::Inconsistent(
            "the top tree does not cover the active bottom trees",
        ));
    }
    check_tree::<L>(params, parameter, half, &key.top)?;
    // The bottom trees: 2^(L/2) leaves from their first epoch, root at level L/2.
    for (tree, index) in [
        (&key.left, key.left_index),
        (&key.right, key.left_index + 1),
    ] {
        let lowest = &tree.layers[0];
        if tree.layers.len() != half + 1
            || lowest.start != index << half
            || lowest.nodes.len() != 1 << half
            || tree.layers[half].nodes.len() != 1
        {
            return Err(KeyFormatError::Inconsistent(
                "a bottom tree has the wrong shape",
            ));
        }
        check_tree::<L>(params, parameter, 0, tree)?;
        if leaves.nodes[(index - leaves.start) as usize] != tree.root() {
            return Err(KeyFormatError::Inconsistent(
                "a bottom tree's root is not the top tree's leaf",
            ));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::leansig::keys::key_gen;
    use rand::SeedableRng;

    fn key(instance: Instance) -> SecretKey {
        let mut rng = rand::rngs::StdRng::seed_from_u64(7);
        key_gen(
            instance,
            Backend::best_for(crate::Scheme::LeanSig(instance)),
            &mut rng,
            0,
            100,
        )
        .unwrap()
        .1
    }

    /// Rewrite the checksum so a structural change reaches the structural checks.
    fn reseal(mut bytes: Vec<u8>) -> Vec<u8> {
        let n = bytes.len() - CHECKSUM_LEN;
        let sum = Sha256::digest(&bytes[..n]);
        bytes[n..].copy_from_slice(&sum);
        bytes
    }

    #[test]
    fn a_loaded_key_signs_on_from_its_next_epoch() {
        let mut original = key(Instance::L18);
        let message = [5u8; 32];
        let first = original.sign(3, &message).unwrap();
        let bytes = original.to_bytes();
        let mut loaded = SecretKey::from_bytes(&bytes, Backend::Portable).unwrap();
        assert_eq!(loaded.public_key(), original.public_key());
        assert_eq!(loaded.to_bytes(), bytes);
        assert!(matches!(
            loaded.sign(3, &message),
            Err(crate::leansig::SignError::EpochUsed { epoch: 3, next: 4 })
        ));
        // Same key, same epoch and message: the same signature (rho and chains are PRF
        // outputs), so the loaded trees are the saved ones.
        let second = original.sign(9, &message).unwrap();
        assert_eq!(loaded.sign(9, &message).unwrap(), second);
        assert_ne!(first, second);
    }

    #[test]
    fn damaged_blobs_are_typed_errors() {
        let bytes = key(Instance::L18).to_bytes();
        assert_eq!(
            SecretKey::from_bytes(&[], Backend::Portable).unwrap_err(),
            KeyFormatError::Foreign
        );
        assert_eq!(
            SecretKey::from_bytes(&bytes[..bytes.len() - 1], Backend::Portable).unwrap_err(),
            KeyFormatError::Checksum
        );
        let mut foreign = bytes.clone();
        foreign[0] = b'X';
        assert_eq!(
            SecretKey::from_bytes(&foreign, Backend::Portable).unwrap_err(),
            KeyFormatError::Foreign
        );
        let mut version = bytes.clone();
        version[4] = 9;
        assert_eq!(
            SecretKey::from_bytes(&version, Backend::Portable).unwrap_err(),
            KeyFormatError::UnsupportedVersion(9)
        );
        let mut instance = bytes.clone();
        instance[6] = 7;
        assert_eq!(
            SecretKey::from_bytes(&instance, Backend::Portable).unwrap_err(),
            KeyFormatError::UnknownInstance(7)
        );
        // Every single-bit flip in the body is caught by the checksum; resealed, by the
        // structure (a flipped node, parameter or interval).
        let tree_node = bytes.len() - CHECKSUM_LEN - 5;
        for at in [HEADER_LEN + 3, HEADER_LEN + 40, tree_node, bytes.len() / 2] {
            let mut flipped = bytes.clone();
            flipped[at] ^= 0x10;
            assert_eq!(
                SecretKey::from_bytes(&flipped, Backend::Portable).unwrap_err(),
                KeyFormatError::Checksum
            );
        }
        for at in [
            HEADER_LEN + 40,
            tree_node,
            bytes.len() / 2,
            HEADER_LEN + 32 + 20 + 1,
        ] {
            let mut flipped = bytes.clone();
            flipped[at] ^= 0x10;
            assert!(
                matches!(
                    SecretKey::from_bytes(&reseal(flipped), Backend::Portable),
                    Err(KeyFormatError::Inconsistent(_))
                ),
                "byte {at}"
            );
        }
        // Resealed truncation: a short body.
        let short = reseal(bytes[..bytes.len() - 9].to_vec());
        assert!(matches!(
            SecretKey::from_bytes(&short, Backend::Portable),
            Err(KeyFormatError::Inconsistent(_))
        ));
    }

    #[test]
    fn every_lane_width_loads_what_another_saved() {
        let bytes = key(Instance::L18).to_bytes();
        // A backend this CPU lacks runs the portable lanes (`with_lanes!`).
        for backend in Backend::ALL {
            let loaded = SecretKey::from_bytes(&bytes, backend).unwrap();
            assert_eq!(loaded.to_bytes(), bytes, "{backend:?}");
        }
    }
}
