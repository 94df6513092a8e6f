//! The four vector types (`U32x8`, `U64x4` on AVX2; `U32x16`, `U64x8` on AVX-512F) from
//! one definition: a register, its lanes, splat, load and store, and the safety argument
//! they all rest on.

/// A vector type `$name`: `$register` as `$lanes` lanes of a `$word` word, with the
/// `$set1`, `$load` and `$store` intrinsics of `$isa`.
///
/// Safety, for every such type once: a value is made only by code reached from a kernel
/// of an `$isa` path (or a wider one), which runs after that path's `supported()` held:
/// the schemes' lane traits over these types are used by nothing else. So the
/// intrinsics of its methods, and of the schemes' impls over it, execute only on CPUs
/// with `$isa`.
macro_rules! vector_type {
    (
        $(#[$doc:meta])*
        $name:ident($register:ty): $lanes:literal lanes of $word:ident, $isa:literal,
        $set1:ident, $load:ident, $store:ident
    ) => {
        $(#[$doc])*
        #[derive(Clone, Copy)]
        #[repr(transparent)]
        pub struct $name(pub $register);

        impl $name {
            pub const LANES: usize = $lanes;

            /// Every lane `x`.
            #[inline(always)]
            pub fn splat<W: $crate::word::$word>(x: W) -> Self {
                // SAFETY: the type's note (`vector_type!`).
                $name(unsafe { $set1(x.bits()) })
            }

            /// Lanes from `words[..LANES]` (panics if shorter).
            #[inline(always)]
            pub fn load<W: $crate::word::$word>(words: &[W]) -> Self {
                let words = &words[..$lanes];
                // SAFETY: `LANES` readable words (the slice above), unaligned load; the
                // type's note.
                $name(unsafe { $load(words.as_ptr().cast()) })
            }

            /// Lanes into `words[..LANES]` (panics if shorter).
            #[inline(always)]
            pub fn store<W: $crate::word::$word>(self, words: &mut [W]) {
                let words = &mut words[..$lanes];
                // SAFETY: `LANES` writable words (the slice above), unaligned store; the
                // type's note.
                unsafe { $store(words.as_mut_ptr().cast(), self.0) }
            }
        }
    };
}
pub(crate) use vector_type;
