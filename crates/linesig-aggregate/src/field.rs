//! The prover's fields, the bottom layer every other module may import and that imports
//! none of them: the base field (KoalaBear), the degree-4 extension the challenges live
//! in, and the query count that the opening kernels size their accumulators by.

use p3_field::extension::BinomialExtensionField;
use p3_koala_bear::KoalaBear;

/// The base field.
pub type Val = KoalaBear;

/// The extension the challenges live in: KoalaBear⁴, ~124 bits.
pub type Challenge = BinomialExtensionField<Val, 4>;

/// FRI queries (see [`crate::stark`] for the security count they enter).
pub const NUM_QUERIES: usize = 28;
