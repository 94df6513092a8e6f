//! The Poseidon1 and Poseidon2 constants over KoalaBear, taken from Plonky3 so they are
//! the reference's: `default_koalabear_poseidon1_{16,24}` (leanSig c08a3ba, devnet-4)
//! and `default_koalabear_poseidon2_{16,24}` (leanSig 73bedc2, the legacy instances),
//! as Plonky3 publishes them; `lanes::constants` converts them once to the Montgomery
//! and matrix forms the lanes compute with.
//!
//! Poseidon1's partial rounds use Plonky3's sparse-matrix constants
//! (`Poseidon1Constants::to_optimized`); Poseidon2's internal diagonal is read off
//! Plonky3's own internal linear layer, applied to unit vectors.
//!
//! Poseidon2's round constants moved between the Plonky3 the legacy instances were made
//! with (d421e32) and the crates.io release: both take the same Grain LFSR stream, but
//! d421e32 cut it as initial ‖ terminal ‖ internal, while 0.5 cuts it as initial ‖
//! internal ‖ terminal. [`legacy_poseidon2_split`] recuts 0.5's constants the old way
//! (checked against d421e32's tables and, end to end, by the L18/L32 vectors).

use p3_koala_bear::KoalaBear;

/// Poseidon2 round constants: initial external, internal, terminal external.
pub(crate) type Poseidon2Rounds<const W: usize> =
    (Vec<[KoalaBear; W]>, Vec<KoalaBear>, Vec<[KoalaBear; W]>);

/// Plonky3 0.5's Poseidon2 constants (initial ‖ internal ‖ terminal of one stream)
/// recut as Plonky3 d421e32 used them (initial ‖ terminal ‖ internal).
pub(crate) fn legacy_poseidon2_split<const W: usize>(
    initial: &[[KoalaBear; W]],
    internal: &[KoalaBear],
    terminal: &[[KoalaBear; W]],
) -> Poseidon2Rounds<W> {
    let stream: Vec<KoalaBear> = initial
        .iter()
        .flatten()
        .chain(internal)
        .chain(terminal.iter().flatten())
        .copied()
        .collect();
    let rows = |flat: &[KoalaBear]| -> Vec<[KoalaBear; W]> {
        flat.chunks_exact(W)
            .map(|row| row.try_into().expect("W elements"))
            .collect()
    };
    let full = initial.len() * W;
    (
        rows(&stream[..full]),
        stream[2 * full..].to_vec(),
        rows(&stream[full..2 * full]),
    )
}
