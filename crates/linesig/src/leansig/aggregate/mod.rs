//! leanSig aggregation (issue 21): many devnet-4 signatures, one STARK proof that all
//! of them verify. **In progress** — behind the `aggregate` cargo feature, off by
//! default, until the statement below is complete; no `prove`/`verify_aggregate` yet.
//!
//! Built (and tested) so far, bottom up:
//! - [`poseidon1_air`]: one Poseidon1 permutation of width 16 or 24 as trace columns
//!   with degree-3 constraints (a third of `p3-poseidon1-air`'s columns at width 24);
//! - [`stark`]: the proof system (Plonky3 uni-stark over KoalaBear, FRI parameters and
//!   their conjectured 100-bit security) and the versioned, strictly decoded byte format.
//!
//! The statement still to build on them, per signature, in a fixed schedule of rows
//! (one width-16 and one width-24 permutation per row, side by side; the row's role
//! given by preprocessed selectors):
//! - the message hash (width 24, feed-forward) and the aborting encoding of its first
//!   six elements: a = 127·d + r with r ∈ [0, 127) (7 bits, r ≠ 127) and d peeled into
//!   base-8 digits, two left over in the sixth element;
//! - the chains on 46 × 7 fixed slots: a slot is active iff its position exceeds the
//!   chain's digit (active flags monotone per chain, inactive slots counted: the digit;
//!   their sum 200), an active slot hashing with tweak (epoch, chain, position), an
//!   inactive one passing its value through, so every chain end lands on a fixed row;
//! - the leaf sponge (25 width-24 permutations, rate 15) fed from a shift register of
//!   the last three chain ends, and the 32 tree levels, left and right chosen by the
//!   epoch's bits, to the key's root;
//! - the public inputs (each signer's key, message and epoch, and the tweak values the
//!   verifier derives from the epoch) absorbed into one running hash whose final value
//!   is the proof's public value; the verifier recomputes it from the list.

pub mod poseidon1_air;
pub mod stark;

#[cfg(test)]
mod tests;
