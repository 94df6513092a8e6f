//! The aggregate proofs' Fiat–Shamir transcript: byte for byte Plonky3's
//! `SerializingChallenger32` over a BLAKE3 `HashChallenger` (what the proofs were made
//! with before this module; a test runs the two side by side), with a proof-of-work
//! search that always returns the same witness, the least one, on sixteen lanes.
//!
//! The transcript absorbs bytes (a field element as its Montgomery form, little-endian;
//! a Merkle root as its bytes), and a squeeze hashes everything absorbed since the last
//! one, keeps the digest as the next input (the chaining) and hands out its bytes last
//! first. It is written here rather than wrapped because the search needs the pending
//! bytes, which Plonky3's challenger keeps private.
//!
//! Why the least witness: Plonky3's `grind` hands the whole field to rayon's `find_any`,
//! which returns whichever valid witness a thread reaches first. With two or more
//! threads the same statement then proves to different bytes from run to run (each
//! proof valid), so a proof could not be compared byte for byte, reproduced from its
//! inputs, or cached by its hash. The least witness is what a one-thread search in
//! ascending order finds; this search tries ascending batches across the threads and
//! stops at the first batch that holds one. Each candidate costs one BLAKE3 compression
//! of the block holding it, sixteen at a time ([`super::lanes::pow`]), where
//! Plonky3's search copied the transcript and hashed all its pending bytes per
//! candidate. The verifier only checks the witness, so proofs verify exactly as before.

use super::lanes::pow::{self, PowJob};
use super::lanes::ProverPath;
use p3_challenger::{CanObserve, CanSample, CanSampleBits, FieldChallenger, GrindingChallenger};
use p3_field::{BasedVectorSpace, PrimeCharacteristicRing, PrimeField32};
use p3_koala_bear::KoalaBear;
use p3_merkle_tree::MerkleCap;
use rayon::prelude::*;

/// Candidates tried per batch: at 16 bits of grinding about four batches, each split
/// across the threads; a batch costs a core about 0.2 ms on sixteen lanes.
const GRIND_BATCH: u32 = 1 << 14;

/// The transcript of every aggregate proof (see the module documentation): the bytes
/// absorbed since the last squeeze, and what is left of the last digest.
#[derive(Clone, Debug)]
pub struct Transcript {
    /// Hashed at the next squeeze; a squeeze leaves its digest here (the chaining).
    input: Vec<u8>,
    /// The last digest's unread bytes, read from the end.
    output: Vec<u8>,
}

impl Transcript {
    /// A transcript that starts by absorbing `domain_separator`.
    pub fn new(domain_separator: Vec<u8>) -> Self {
        Transcript {
            input: domain_separator,
            output: Vec::new(),
        }
    }

    fn absorb(&mut self, bytes: &[u8]) {
        self.output.clear();
        self.input.extend_from_slice(bytes);
    }

    /// The next byte: the digest of everything absorbed, last byte first (Plonky3's
    /// `HashChallenger::sample`).
    fn squeeze_byte(&mut self) -> u8 {
        if self.output.is_empty() {
            let digest = *blake3::hash(&self.input).as_bytes();
            self.input.clear();
            self.input.extend_from_slice(&digest);
            self.output.extend_from_slice(&digest);
        }
        self.output.pop().expect("a digest was just squeezed")
    }

    /// Four bytes as a little-endian word, in the order they are squeezed.
    fn squeeze_word(&mut self) -> u32 {
        u32::from_le_bytes(core::array::from_fn(|_| self.squeeze_byte()))
    }
}

impl CanObserve<KoalaBear> for Transcript {
    /// The element's Montgomery form, little-endian (Plonky3's `to_unique_u32`).
    fn observe(&mut self, value: KoalaBear) {
        self.absorb(&value.to_unique_u32().to_le_bytes());
    }
}

impl<const N: usize> CanObserve<MerkleCap<KoalaBear, [u8; N]>> for Transcript {
    fn observe(&mut self, value: MerkleCap<KoalaBear, [u8; N]>) {
        for digest in value.roots() {
            self.absorb(digest);
        }
    }
}

impl CanObserve<[u8; 32]> for Transcript {
    /// A digest's bytes as they are (Plonky3's `CanObserve<Hash<F, u8, 32>>`).
    fn observe(&mut self, digest: [u8; 32]) {
        self.absorb(&digest);
    }
}

impl<E: BasedVectorSpace<KoalaBear>> CanSample<E> for Transcript {
    /// Each coordinate by rejection: a squeezed word's low 31 bits, again while they
    /// are not below p.
    fn sample(&mut self) -> E {
        let bound = (1u32 << 31) - 1;
        E::from_basis_coefficients_fn(|_| loop {
            let value = self.squeeze_word() & bound;
            if value < KoalaBear::ORDER_U32 {
                break KoalaBear::from_u32(value);
            }
        })
    }
}

impl CanSampleBits<usize> for Transcript {
    fn sample_bits(&mut self, bits: usize) -> usize {
        assert!(bits < 32 && (1u64 << bits) <= u64::from(KoalaBear::ORDER_U32));
        (self.squeeze_word() & ((1u64 << bits) - 1) as u32) as usize
    }
}

impl FieldChallenger<KoalaBear> for Transcript {}

impl GrindingChallenger for Transcript {
    type Witness = KoalaBear;

    /// The least witness after which `bits` sampled bits are zero, absorbed.
    fn grind(&mut self, bits: usize) -> KoalaBear {
        let witness = self.least_witness(ProverPath::best(), bits);
        assert!(self.check_witness(bits, witness));
        witness
    }
}

impl Transcript {
    /// The least witness for `bits`, not absorbed: ascending batches, each searched
    /// across the threads on `path`'s lanes, the first batch with one ending the search.
    fn least_witness(&self, path: ProverPath, bits: usize) -> KoalaBear {
        if bits == 0 {
            return KoalaBear::ZERO;
        }
        let order = KoalaBear::ORDER_U32;
        // Past one BLAKE3 chunk of pending bytes there is no lane job (none of linesig's
        // proofs gets there); the candidates are then checked one by one.
        let job = PowJob::new(&self.input, bits);
        let mut start = 0;
        loop {
            // Under 2^bits < p a witness exists with overwhelming probability long
            // before the field runs out; the last batch is where the search gives up.
            assert!(start < order, "no proof-of-work witness of {bits} bits");
            let end = start.saturating_add(GRIND_BATCH).min(order);
            let found = match &job {
                Some(job) => pow::least_witness(path, job, start, end),
                None => (start..end).into_par_iter().find_first(|&candidate| {
                    self.clone()
                        .check_witness(bits, KoalaBear::from_u32(candidate))
                }),
            };
            if let Some(found) = found {
                return KoalaBear::from_u32(found);
            }
            start = end;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::field::Challenge;
    use p3_blake3::Blake3;
    use p3_challenger::{HashChallenger, SerializingChallenger32};
    use rand::{Rng, SeedableRng};
    use rand_chacha::ChaCha8Rng;

    /// Plonky3's transcript over the same hash, the oracle.
    type Plonky3 = SerializingChallenger32<KoalaBear, HashChallenger<u8, Blake3, 32>>;

    /// The same random run of observations, samples and witness checks gives the same
    /// samples and verdicts from both transcripts.
    #[test]
    fn the_transcript_is_plonky3s() {
        let mut rng = ChaCha8Rng::seed_from_u64(54);
        for run in 0..40 {
            let start: Vec<u8> = (0..rng.gen_range(0..80)).map(|_| rng.gen()).collect();
            let (mut ours, mut theirs) = (
                Transcript::new(start.clone()),
                Plonky3::from_hasher(start, Blake3),
            );
            for step in 0..200 {
                match rng.gen_range(0..6) {
                    0 => {
                        let x = KoalaBear::from_u32(rng.gen_range(0..KoalaBear::ORDER_U32));
                        ours.observe(x);
                        theirs.observe(x);
                    }
                    1 => {
                        let roots: Vec<[u8; 32]> =
                            (0..1 << rng.gen_range(0..3)).map(|_| rng.gen()).collect();
                        ours.observe(MerkleCap::new(roots.clone()));
                        theirs.observe(MerkleCap::<KoalaBear, [u8; 32]>::new(roots));
                    }
                    2 => {
                        let (a, b): (KoalaBear, KoalaBear) = (ours.sample(), theirs.sample());
                        assert_eq!(a, b, "run {run} step {step}");
                    }
                    3 => {
                        let (a, b): (Challenge, Challenge) = (ours.sample(), theirs.sample());
                        assert_eq!(a, b, "run {run} step {step}");
                    }
                    4 => {
                        let bits = rng.gen_range(0..31);
                        assert_eq!(
                            ours.sample_bits(bits),
                            theirs.sample_bits(bits),
                            "run {run} step {step}"
                        );
                    }
                    _ => {
                        let (bits, w) = (rng.gen_range(0..4), rng.gen_range(0..64));
                        let w = KoalaBear::from_u32(w);
                        assert_eq!(
                            ours.check_witness(bits, w),
                            theirs.check_witness(bits, w),
                            "run {run} step {step}"
                        );
                    }
                }
            }
        }
    }

    /// The lanes' BLAKE3 over every length of pending bytes that fits one chunk (the
    /// witness in each position of its block, across two blocks, after whole blocks)
    /// finds on every path the least witness Plonky3's check accepts.
    #[test]
    fn the_lanes_search_agrees_with_plonky3s_check_at_every_length() {
        let mut rng = ChaCha8Rng::seed_from_u64(1);
        let bits = 6;
        for len in 0..=1020 {
            let pending: Vec<u8> = (0..len).map(|_| rng.gen()).collect();
            let accepts = |w: u32| {
                Plonky3::from_hasher(pending.clone(), Blake3)
                    .check_witness(bits, KoalaBear::from_u32(w))
            };
            let expected = (0..KoalaBear::ORDER_U32)
                .find(|&w| accepts(w))
                .expect("a witness");
            let job = PowJob::new(&pending, bits).expect("one chunk");
            for path in ProverPath::supported() {
                let found = pow::least_witness(path, &job, 0, expected + 37);
                assert_eq!(found, Some(expected), "{len} bytes on {}", path.name());
                assert_eq!(
                    pow::least_witness(path, &job, 0, expected),
                    None,
                    "{len} bytes on {}",
                    path.name()
                );
            }
            if len % 61 == 0 {
                for w in 0..256 {
                    assert_eq!(job.is_witness(w), accepts(w), "{len} bytes, candidate {w}");
                }
            }
        }
        assert!(PowJob::new(&[0; 1021], bits).is_none());
    }

    /// The witness is the least valid one, whichever batch it falls in and whichever
    /// way it is searched (lanes on each path, or one candidate at a time past one
    /// chunk): every smaller candidate fails the check the verifier makes, and grinding
    /// absorbs it as the verifier's check does.
    #[test]
    fn grinding_finds_the_least_witness() {
        for (bits, prefix, extra) in [
            (4, 0u32, 0),
            (11, 1, 0),
            (14, 2, 0),
            (15, 3, 0),
            (9, 4, 1100),
        ] {
            let transcript = transcript_before(prefix, extra);
            let least = transcript
                .least_witness(ProverPath::Plonky3, bits)
                .as_canonical_u32();
            for path in ProverPath::supported() {
                let witness = transcript.least_witness(path, bits).as_canonical_u32();
                assert_eq!(witness, least, "{bits} bits on {}", path.name());
            }
            for smaller in 0..least {
                let mut oracle = transcript_before(prefix, extra);
                assert!(
                    !oracle.check_witness(bits, KoalaBear::from_u32(smaller)),
                    "{bits} bits: {smaller} < {least} is valid"
                );
            }
            let (mut prover, mut verifier) = (transcript.clone(), transcript);
            assert_eq!(prover.grind(bits).as_canonical_u32(), least);
            assert!(verifier.check_witness(bits, KoalaBear::from_u32(least)));
            let (next, expected): (KoalaBear, KoalaBear) = (prover.sample(), verifier.sample());
            assert_eq!(next, expected, "{bits} bits: the witness is absorbed");
        }
    }

    /// A transcript after `prefix` and `extra` more bytes (past one chunk at 1,100).
    fn transcript_before(prefix: u32, extra: usize) -> Transcript {
        let mut transcript = Transcript::new(b"linesig grinding test".to_vec());
        transcript.observe(KoalaBear::from_u32(prefix));
        for i in 0..extra {
            transcript.observe(KoalaBear::from_u32(i as u32));
        }
        transcript
    }
}
