//! Software prefetches: hints that bring a value's cache lines in ahead of a read the
//! hardware prefetchers cannot foresee (rows picked by digits, entries sorted by key).
//! A prefetch changes no result.

/// Ask for the cache lines at `value`'s start and every 64 bytes on. A key row is one
/// whole line; a base row is 120 bytes on IFMA and starts at any multiple of 8, so six
/// in eight straddle three lines and this asks for two of them (asking for the third
/// too measured slower on Zen 4; docs/results.md).
#[inline(always)]
pub(super) fn prefetch<T>(value: &T) {
    #[cfg(target_arch = "x86_64")]
    for offset in (0..size_of::<T>()).step_by(64) {
        // SAFETY: a prefetch never faults and reads nothing architecturally; the
        // address lies inside `value`.
        unsafe {
            core::arch::x86_64::_mm_prefetch::<{ core::arch::x86_64::_MM_HINT_T0 }>(
                (value as *const T).cast::<i8>().add(offset),
            )
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = value;
}
