//! What a lane holds: a 32-bit word, signed (ML-DSA's coefficients) or unsigned
//! (KoalaBear's elements), loaded and stored as the same four bytes; or a 64-bit word.

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

/// An 8-byte word a 64-bit lane holds.
pub trait Word64: Copy + sealed::Sealed {
    /// The word's bits, as the intrinsics take them.
    fn bits(self) -> i64;
}

impl Word64 for u64 {
    #[inline(always)]
    fn bits(self) -> i64 {
        self as i64
    }
}

mod sealed {
    pub trait Sealed {}
    impl Sealed for i32 {}
    impl Sealed for u32 {}
    impl Sealed for u64 {}
}
