//! When to try a unit's batch equation (docs/design.md §3, "The batch equation"): one
//! randomized check over a whole work unit costs a fraction of checking each signature,
//! but a unit whose check fails must find its invalid items, and a unit with many of
//! them pays for the check and then for nearly every signature on its own. A source that
//! keeps sending such units (an attacker who puts bad signatures in every batch) must
//! not make the engine slower than the per-signature path.
//!
//! The gate is shared by the engine's workers. A unit whose check held keeps it open. A
//! unit that fell back for many of its items closes it for the next `backoff` units,
//! which go straight to the per-signature path; `backoff` doubles on every such unit in
//! a row (1, 2, 4, … up to [`MAX_BACKOFF`]) and resets on the first unit whose check
//! holds. A unit whose few invalid items were found cheaply still cost a little more
//! than the per-signature path (a failed check, its parts' checks, the failing parts
//! alone): one is let pass, a second in a row closes the gate as a fallback does, so a
//! source with a bad signature in every unit pays the per-signature rate, not more.
//! Under a steady flood of bad units one unit in `MAX_BACKOFF + 1` pays the check, a few
//! per cent of the per-signature cost; a burst costs at most its own units. Verdicts
//! never depend on the gate: it only chooses between two paths that give the same ones.

use std::sync::atomic::{AtomicU32, AtomicU64, Ordering::Relaxed};

/// Most units skipped after one that fell back for many of its items.
pub(crate) const MAX_BACKOFF: u32 = 64;

/// How a unit's batch equation went, as the gate counts it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Outcome {
    /// The unit's check held: every item that passed its prechecks is valid.
    Held,
    /// The check failed and the unit's parts found the invalid items with the
    /// per-signature path run on few of them.
    FoundFew,
    /// The check failed and many parts failed too: most of the unit ran per signature.
    FellBack,
}

/// Work units by how the batch equation went, since the engine was built: what an
/// operator reads to see whether the batch path pays on its traffic.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct BatchEquationStats {
    /// Units whose check held: each of their well-formed signatures valid at once.
    pub held: u64,
    /// Units whose check failed and whose parts found the invalid signatures, with the
    /// per-signature path run on few of them.
    pub found_few: u64,
    /// Units whose check failed with most of their parts (most signatures ran alone).
    pub fell_back: u64,
    /// Units sent straight to the per-signature path while the gate backed off.
    pub skipped: u64,
}

/// The shared state: units left to skip, the backoff the next failure sets, and the
/// counts of [`BatchEquationStats`].
#[derive(Debug, Default)]
pub(crate) struct BatchGate {
    skip: AtomicU32,
    backoff: AtomicU32,
    /// Units in a row whose check failed (reset by one that held).
    failed_in_a_row: AtomicU32,
    counts: [AtomicU64; 4],
}

impl BatchGate {
    pub(crate) fn new() -> Self {
        Self::default()
    }

    /// Whether this unit should try the batch equation (`false` while backing off: the
    /// unit goes straight to the per-signature path, and is counted off).
    pub(crate) fn admit(&self) -> bool {
        // A lost race between workers skips one unit more or fewer: harmless.
        let skip = self.skip.load(Relaxed);
        if skip == 0 {
            return true;
        }
        self.skip.store(skip - 1, Relaxed);
        self.counts[3].fetch_add(1, Relaxed);
        false
    }

    /// Whether an admitted unit should check its survivors whole before checking them in
    /// parts: not while the units tried last failed (a backoff is set and no check has
    /// held since). Such a unit is likely bad too, and its whole check would only be
    /// paid before the parts' checks that find its invalid items; if it is honest after
    /// all, its parts all hold and cost a little more than one check of the whole (at
    /// units of 64 with one bad signature in 1,024, where that is the common case, the
    /// rate was the same within the host's noise either way; docs/results.md).
    pub(crate) fn whole_first(&self) -> bool {
        self.backoff.load(Relaxed) == 0
    }

    pub(crate) fn stats(&self) -> BatchEquationStats {
        let [held, found_few, fell_back, skipped] = self.counts.each_ref().map(|c| c.load(Relaxed));
        BatchEquationStats {
            held,
            found_few,
            fell_back,
            skipped,
        }
    }

    /// Count a unit that tried the batch equation.
    pub(crate) fn record(&self, outcome: Outcome) {
        self.counts[outcome as usize].fetch_add(1, Relaxed);
        let failed_in_a_row = match outcome {
            Outcome::Held => 0,
            Outcome::FoundFew | Outcome::FellBack => self.failed_in_a_row.load(Relaxed) + 1,
        };
        self.failed_in_a_row.store(failed_in_a_row, Relaxed);
        match outcome {
            Outcome::Held => self.backoff.store(0, Relaxed),
            Outcome::FoundFew if failed_in_a_row < 2 => {}
            Outcome::FoundFew | Outcome::FellBack => {
                let backoff = (self.backoff.load(Relaxed) * 2).clamp(1, MAX_BACKOFF);
                self.backoff.store(backoff, Relaxed);
                self.skip.store(backoff, Relaxed);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The units a run of outcomes lets through, of `units` in all.
    fn admitted(gate: &BatchGate, units: usize, outcome: Outcome) -> usize {
        (0..units)
            .filter(|_| {
                let admitted = gate.admit();
                if admitted {
                    gate.record(outcome);
                }
                admitted
            })
            .count()
    }

    #[test]
    fn a_flood_of_bad_units_pays_the_check_rarely() {
        let gate = BatchGate::new();
        assert!(gate.whole_first());
        // Backoffs 1, 2, 4, …, 64, then 64 for good: 1,000 units try ~20 checks.
        let tried = admitted(&gate, 1000, Outcome::FellBack);
        assert!(
            (8..=24).contains(&tried),
            "{tried} of 1000 units tried the check"
        );
    }

    #[test]
    fn held_checks_keep_the_gate_open() {
        let gate = BatchGate::new();
        assert_eq!(admitted(&gate, 100, Outcome::Held), 100);
    }

    #[test]
    fn one_cheap_find_keeps_it_open_and_a_run_of_them_closes_it() {
        let gate = BatchGate::new();
        for _ in 0..50 {
            assert!(gate.admit());
            gate.record(Outcome::FoundFew);
            assert!(gate.admit());
            gate.record(Outcome::Held);
        }
        let tried = admitted(&gate, 1000, Outcome::FoundFew);
        assert!(
            (8..=24).contains(&tried),
            "{tried} of 1000 units tried the check"
        );
    }

    #[test]
    fn a_held_check_resets_the_backoff() {
        let gate = BatchGate::new();
        admitted(&gate, 200, Outcome::FellBack);
        assert_eq!(gate.backoff.load(Relaxed), MAX_BACKOFF);
        assert!(!gate.whole_first(), "after failures, parts first");
        while !gate.admit() {}
        gate.record(Outcome::Held);
        assert_eq!(gate.backoff.load(Relaxed), 0);
        assert!(gate.whole_first(), "after a held check, the whole first");
        assert!(gate.admit());
        gate.record(Outcome::FellBack);
        assert_eq!(
            gate.skip.load(Relaxed),
            1,
            "the backoff starts again at one unit"
        );
    }
}
