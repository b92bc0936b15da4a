//! Splits consumer groups between `task.count` independent processes with rendezvous (highest
//! random weight) hashing: each group goes to the task index with the highest hash of
//! (group, index). A group appearing or disappearing moves only that group, and every process
//! computes the same answer without talking to the others.

/// True when task `index` of `count` owns `group`.
pub fn owns_group(group: &str, index: u32, count: u32) -> bool {
    count <= 1 || owner_of(group, count) == index
}

/// The task index (0..count) that owns `group`.
pub fn owner_of(group: &str, count: u32) -> u32 {
    (0..count.max(1))
        .max_by_key(|i| (weight(group, *i), std::cmp::Reverse(*i)))
        .unwrap_or(0)
}

/// FNV-1a over the group bytes and the index, then a 64-bit finaliser (splitmix64) so nearby
/// indexes get unrelated weights. Stable across processes, versions and platforms.
use crate::splitmix::mix64;

fn weight(group: &str, index: u32) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in group.bytes().chain(index.to_be_bytes()) {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    mix64(h)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_group_has_exactly_one_owner() {
        for g in (0..500).map(|i| format!("group-{i}")) {
            let owners: Vec<u32> = (0..5).filter(|i| owns_group(&g, *i, 5)).collect();
            assert_eq!(owners.len(), 1, "{g}");
        }
    }

    #[test]
    fn groups_spread_over_tasks() {
        let mut counts = [0u32; 4];
        for g in (0..4000).map(|i| format!("g{i}")) {
            counts[owner_of(&g, 4) as usize] += 1;
        }
        for c in counts {
            assert!((800..1200).contains(&c), "{counts:?}");
        }
    }

    #[test]
    fn adding_a_task_moves_only_groups_to_the_new_task() {
        for g in (0..2000).map(|i| format!("g{i}")) {
            let before = owner_of(&g, 4);
            let after = owner_of(&g, 5);
            assert!(after == before || after == 4, "{g}: {before} -> {after}");
        }
    }

    #[test]
    fn assignment_is_pinned_across_versions() {
        // Processes of different versions must agree; these values must never change.
        assert_eq!(
            (0..8)
                .map(|i| owner_of(&format!("orders-{i}"), 3))
                .collect::<Vec<_>>(),
            PINNED
        );
    }

    const PINNED: [u32; 8] = [0, 1, 0, 1, 1, 0, 2, 0];
}
