//! In-batch grouping of repeated public keys: on a chain a few keys sign most traffic
//! (fee payers, votes, bots), so sorting a work unit by key lets every distinct key be
//! decoded (and, in lane backends, its table built) once per unit.

/// Sort `entries` by key and call `each_group` once per run of equal keys (never empty).
/// Sorting costs ~n·log n 32-byte comparisons, noise beside n verifications.
pub(crate) fn for_each_key_group<T>(
    entries: &mut [T],
    key: impl Fn(&T) -> &[u8; 32],
    mut each_group: impl FnMut(&[T]),
) {
    entries.sort_unstable_by(|a, b| key(a).cmp(key(b)));
    for group in entries.chunk_by(|a, b| key(a) == key(b)) {
        each_group(group);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn groups_cover_every_entry_once_with_equal_keys() {
        let keys: Vec<[u8; 32]> = (0..50u8).map(|i| [i % 7; 32]).collect();
        let mut entries: Vec<(usize, &[u8; 32])> = keys.iter().enumerate().collect();
        let mut seen = vec![0; keys.len()];
        let mut groups = 0;
        for_each_key_group(
            &mut entries,
            |e| e.1,
            |group| {
                groups += 1;
                assert!(group.iter().all(|e| e.1 == group[0].1));
                for e in group {
                    seen[e.0] += 1;
                }
            },
        );
        assert_eq!(groups, 7);
        assert!(seen.iter().all(|&n| n == 1));
    }
}
