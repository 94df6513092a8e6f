//! In-batch grouping of repeated public keys: on a chain a few keys sign most traffic
//! (fee payers, votes, bots), so sorting a work unit by key lets every distinct key be
//! decoded (and, in lane backends, its table built) once per unit.

use std::ops::Range;

/// Sort `entries` by key and return the ranges of equal keys, in order (none empty).
/// Sorting costs ~n·log n 32-byte comparisons, noise beside n verifications.
pub(crate) fn key_groups<T>(entries: &mut [T], key: impl Fn(&T) -> &[u8; 32]) -> Vec<Range<usize>> {
    entries.sort_unstable_by(|a, b| key(a).cmp(key(b)));
    let mut groups = Vec::new();
    let mut start = 0;
    for group in entries.chunk_by(|a, b| key(a) == key(b)) {
        groups.push(start..start + group.len());
        start += group.len();
    }
    groups
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn groups_cover_every_entry_once_with_equal_keys() {
        let keys: Vec<[u8; 32]> = (0..50u8).map(|i| [i % 7; 32]).collect();
        let mut entries: Vec<(usize, &[u8; 32])> = keys.iter().enumerate().collect();
        let mut seen = vec![0; keys.len()];
        let groups = key_groups(&mut entries, |e| e.1);
        for range in &groups {
            let group = &entries[range.clone()];
            assert!(!group.is_empty());
            assert!(group.iter().all(|e| e.1 == group[0].1));
            for e in group {
                seen[e.0] += 1;
            }
        }
        assert_eq!(groups.len(), 7);
        assert!(seen.iter().all(|&n| n == 1));
    }
}
