//! What a 32-bit lane holds: a signed (ML-DSA's coefficients) or unsigned (KoalaBear's
//! elements) word, loaded and stored as the same four bytes.

/// A 4-byte word a 32-bit lane holds.
pub trait Word32: Copy + sealed::Sealed {
    /// The word's bits, as the intrinsics take them.
    fn bits(self) -> i32;
}

impl Word32 for i32 {
    #[inline(always)]
    fn bits(self) -> i32 {
        self
    }
}

impl Word32 for u32 {
    #[inline(always)]
    fn bits(self) -> i32 {
        self as i32
    }
}

mod sealed {
    pub trait Sealed {}
    impl Sealed for i32 {}
    impl Sealed for u32 {}
}
