//! What the aggregation prover (`linesig-aggregate`) needs of leanSig's verifier: the
//! KoalaBear lanes it runs its kernels on, the hash's tweaks and steps its AIR and
//! tests mirror, and the decoders that turn an item into a claim. Hidden and not a
//! stable API: it changes with that crate, in the same workspace (as Plonky3's field
//! crates expose their packing to the prover crates).

/// KoalaBear lanes: the field's vectors and conversions.
pub mod lanes {
    #[cfg(target_arch = "x86_64")]
    pub use crate::leansig::lanes::avx2::KoalaAvx2x2;
    pub use crate::leansig::lanes::portable::Portable;
    pub use crate::leansig::lanes::{add_mod, from_monty, to_monty, KoalaLanes, P};
}

/// The tweakable hash's steps, one signature per lane.
pub mod hash {
    pub use crate::leansig::hash::{
        leaf, message_elements, message_hash, tree_node, tree_tweak, ChainWalk, EpochTweak,
    };
}

/// SSZ decoding of keys.
pub mod ssz {
    pub use crate::leansig::ssz::{decode_public_key, PublicKey};
}

pub use crate::leansig::verify::encode;
pub use crate::leansig::{decode, decode_epoch_and_message, verify_unit, Params};

use super::{Instance, CAPACITY};

/// The instance's parameters.
pub fn params(instance: Instance) -> &'static Params {
    instance.params()
}

/// The sponge capacity the instance's leaf hash starts from (Montgomery form).
pub fn capacity(instance: Instance) -> &'static [u32; CAPACITY] {
    instance.capacity()
}
