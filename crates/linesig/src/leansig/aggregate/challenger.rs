//! The aggregate proofs' Fiat–Shamir transcript: Plonky3's `SerializingChallenger32`
//! over BLAKE3, unchanged in everything it observes and samples, with a proof-of-work
//! search that always returns the same witness: the least one.
//!
//! Why: Plonky3's `grind` hands the whole field to rayon's `find_any`, which returns
//! whichever valid witness a thread reaches first. With two or more threads the same
//! statement then proves to different bytes from run to run (each proof valid), so a
//! proof could not be compared byte for byte, reproduced from its inputs, or cached by
//! its hash. The least witness is what a one-thread search in ascending order finds;
//! this search tries ascending batches across the threads and stops at the first batch
//! that holds one. The verifier only checks the witness (`check_witness`, untouched), so
//! proofs verify exactly as before.

use p3_blake3::Blake3;
use p3_challenger::{
    CanObserve, CanSample, CanSampleBits, FieldChallenger, GrindingChallenger, HashChallenger,
    SerializingChallenger32,
};
use p3_field::{BasedVectorSpace, PrimeCharacteristicRing, PrimeField32};
use p3_koala_bear::KoalaBear;
use p3_merkle_tree::MerkleCap;
use rayon::prelude::*;

type Inner = SerializingChallenger32<KoalaBear, HashChallenger<u8, Blake3, 32>>;

/// Candidates tried per batch: at 16 bits of grinding about 16 batches, each split
/// across the threads; a batch costs a thread about a millisecond.
const GRIND_BATCH: u32 = 1 << 12;

/// The transcript of every aggregate proof (see the module documentation).
#[derive(Clone, Debug)]
pub struct Transcript(Inner);

impl Transcript {
    /// A transcript that starts by absorbing `domain_separator`.
    pub fn new(domain_separator: Vec<u8>) -> Self {
        Transcript(Inner::from_hasher(domain_separator, Blake3))
    }
}

impl CanObserve<KoalaBear> for Transcript {
    fn observe(&mut self, value: KoalaBear) {
        self.0.observe(value);
    }
}

impl<const N: usize> CanObserve<MerkleCap<KoalaBear, [u8; N]>> for Transcript {
    fn observe(&mut self, value: MerkleCap<KoalaBear, [u8; N]>) {
        self.0.observe(value);
    }
}

impl<E: BasedVectorSpace<KoalaBear>> CanSample<E> for Transcript {
    fn sample(&mut self) -> E {
        self.0.sample()
    }
}

impl CanSampleBits<usize> for Transcript {
    fn sample_bits(&mut self, bits: usize) -> usize {
        self.0.sample_bits(bits)
    }
}

impl FieldChallenger<KoalaBear> for Transcript {}

impl GrindingChallenger for Transcript {
    type Witness = KoalaBear;

    /// The least witness after which `bits` sampled bits are zero, absorbed.
    fn grind(&mut self, bits: usize) -> KoalaBear {
        let order = KoalaBear::ORDER_U32;
        let valid = |candidate: &u32| {
            self.clone()
                .check_witness(bits, KoalaBear::from_u32(*candidate))
        };
        let mut start = 0;
        let witness = loop {
            // Under 2^bits < p a witness exists with overwhelming probability long
            // before the field runs out; the last batch is where the search gives up.
            assert!(start < order, "no proof-of-work witness of {bits} bits");
            let end = start.saturating_add(GRIND_BATCH).min(order);
            if let Some(found) = (start..end).into_par_iter().find_first(valid) {
                break KoalaBear::from_u32(found);
            }
            start = end;
        };
        assert!(self.check_witness(bits, witness));
        witness
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The witness is the least valid one, whichever batch it falls in: every smaller
    /// candidate fails the check the verifier makes, and grinding absorbs it as the
    /// verifier's check does.
    #[test]
    fn grinding_finds_the_least_witness() {
        for (bits, prefix) in [(4, 0u32), (11, 1), (14, 2)] {
            let mut transcript = transcript_before(prefix);
            let mut verifier = transcript.clone();
            let witness = transcript.grind(bits).as_canonical_u32();
            for smaller in 0..witness {
                assert!(
                    !transcript_before(prefix).check_witness(bits, KoalaBear::from_u32(smaller)),
                    "{bits} bits: {smaller} < {witness} is valid"
                );
            }
            assert!(verifier.check_witness(bits, KoalaBear::from_u32(witness)));
            let (next, expected): (KoalaBear, KoalaBear) = (transcript.sample(), verifier.sample());
            assert_eq!(next, expected, "{bits} bits: the witness is absorbed");
        }
    }

    fn transcript_before(prefix: u32) -> Transcript {
        let mut transcript = Transcript::new(b"linesig grinding test".to_vec());
        transcript.observe(KoalaBear::from_u32(prefix));
        transcript
    }
}
