//! The stages of a work unit and the clock that times them: a no-op in production
//! (`()`), the time-stamp counter when profiling ([`CycleClock`]).

/// The stages of a work unit on the lane path: what [`crate::ed25519::stage_profile`]
/// reports cycles for. `Hash` runs first, then (`HalfSize`) `Halve`; then each pass of
/// `Keys` is followed by the signatures it made ready (`HalfSize`: `DecodeR`, `Ladder`,
/// `Finish` per batch; `FullSize`: `Ladder`, with `Finish` once at the end).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stage {
    /// Byte checks on keys and signatures, k = SHA-512(R ‖ A ‖ M) on the multi-buffer
    /// hash, and its reduction mod L.
    Hash,
    /// The half-size scalars c, d, e of each signature (`half_size`; `HalfSize` only).
    Halve,
    /// Decoding keys in lanes (a square root each), the small-order test and each key's
    /// table of multiples.
    Keys,
    /// Decoding R in lanes (a square root each) and each R's table of multiples
    /// (`HalfSize` only: `FullSize` decodes R in `Finish`, where it does at all).
    DecodeR,
    /// The digit recoding and the loop: [S]B − [k]A (`FullSize`, ~253 doublings) or
    /// [d]R + [c]A + [e]B (`HalfSize`, ~128).
    Ladder,
    /// The policy's final check. `FullSize`: encode the sums and compare bytes with R
    /// (`strict`), or decode R and test [8]([S]B − [k]A − R) = O. `HalfSize`: the sum is
    /// O (`strict`) or of small order.
    Finish,
}

#[cfg(any(test, feature = "profile"))]
impl Stage {
    /// In the order a unit first meets them (keys, R, the loop and the check then
    /// alternate).
    pub const ALL: [Stage; 6] = [
        Stage::Hash,
        Stage::Halve,
        Stage::Keys,
        Stage::DecodeR,
        Stage::Ladder,
        Stage::Finish,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Stage::Hash => "SHA-512 + mod L",
            Stage::Halve => "half-size scalars",
            Stage::Keys => "decode keys + tables",
            Stage::DecodeR => "decode R + tables",
            Stage::Ladder => "scalar loop",
            Stage::Finish => "final check",
        }
    }
}

/// Told when each stage of a unit ends (`None`: the unit starts). The engine's clock is
/// `()`, which compiles to nothing.
pub(crate) trait StageClock {
    fn lap(&mut self, ended: Option<Stage>);
}

impl StageClock for () {
    #[inline(always)]
    fn lap(&mut self, _: Option<Stage>) {}
}

/// Time-stamp-counter ticks spent in each stage, summed over units. The counter runs at
/// a constant rate (the CPU's nominal clock, not its boosted core clock), so compare
/// stages within one run rather than with another machine's figures.
#[cfg(all(target_arch = "x86_64", any(test, feature = "profile")))]
#[derive(Default)]
pub(crate) struct CycleClock {
    pub(super) last: u64,
    pub cycles: [u64; Stage::ALL.len()],
}

#[cfg(all(target_arch = "x86_64", any(test, feature = "profile")))]
impl StageClock for CycleClock {
    #[inline(always)]
    fn lap(&mut self, ended: Option<Stage>) {
        // SAFETY: RDTSC exists on every x86-64 CPU.
        let now = unsafe { core::arch::x86_64::_rdtsc() };
        if let Some(stage) = ended {
            self.cycles[stage as usize] += now.wrapping_sub(self.last);
        }
        self.last = now;
    }
}
