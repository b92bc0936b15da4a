//! The store's previous representation, kept for tests only: two offset arrays, lowest-free
//! labels, a full copy of the array per update and a linear translate scan. The property tests
//! of the parent module check the current representation against it, sync for sync.

use super::SYNCS_PER_PARTITION;

/// One stored sync while the array is being rewritten; `label` stands in for Java's object
/// identity and is unique among the syncs of one array (plus the sync being applied).
#[derive(Clone, Copy, Debug)]
struct Sync {
    up: i64,
    down: i64,
    label: u8,
}

/// The 64-slot sync history of one upstream partition.
///
/// Invariants kept after every update (slot `i < j`, both holding different syncs):
/// A: slot 0 is the newest sync; B: `up[i] <= up[j] + 2^j - 2^i`; C: `up[i] >= up[j] +
/// 2^max(i-2,0)`; D: slot 63 keeps the oldest usable sync until a reset.
///
/// Layout is fixed and heap-free: two `[i64; 64]` offset arrays and a `[u8; 64]` identity label
/// array, **1088 bytes** in total (checked by a test). Labels only need to tell apart the at
/// most 65 syncs involved in one update, so a fresh sync takes the lowest label unused by the
/// array, keeping every label in `0..=64`; a global sequence number would need 4–8 bytes a slot.
#[derive(Clone, Debug)]
pub(super) struct ReferenceSyncs {
    upstream: [i64; SYNCS_PER_PARTITION],
    downstream: [i64; SYNCS_PER_PARTITION],
    labels: [u8; SYNCS_PER_PARTITION],
}

impl ReferenceSyncs {
    /// An array holding `first` in every slot, which satisfies all invariants trivially.
    pub(super) fn filled(up: i64, down: i64) -> Self {
        ReferenceSyncs {
            upstream: [up; SYNCS_PER_PARTITION],
            downstream: [down; SYNCS_PER_PARTITION],
            labels: [0; SYNCS_PER_PARTITION],
        }
    }

    /// `(upstream, downstream)` of the sync in slot `i` (0 = newest), or `None` past slot 63.
    pub fn slot(&self, i: usize) -> Option<(i64, i64)> {
        Some((*self.upstream.get(i)?, *self.downstream.get(i)?))
    }

    /// True when slots `i` and `j` hold the very same ingested sync (not merely equal offsets).
    pub fn same_sync(&self, i: usize, j: usize) -> bool {
        matches!((self.labels.get(i), self.labels.get(j)), (Some(a), Some(b)) if a == b)
    }

    /// The identity label of slot `i` (its value is arbitrary; only equality matters).
    pub(super) fn label(&self, i: usize) -> u8 {
        self.labels[i]
    }

    fn get(&self, i: usize) -> Sync {
        Sync {
            up: self.upstream[i],
            down: self.downstream[i],
            label: self.labels[i],
        }
    }

    fn set(&mut self, i: usize, sync: Sync) {
        self.upstream[i] = sync.up;
        self.downstream[i] = sync.down;
        self.labels[i] = sync.label;
    }

    /// The lowest label no slot uses. At most 64 labels are in use and all are `<= 64`, so the
    /// answer is always `<= 64` and the shift below never leaves the 128-bit mask.
    fn fresh_label(&self) -> u8 {
        let used = self.labels.iter().fold(0u128, |mask, &l| {
            mask | 1u128.checked_shl(u32::from(l)).unwrap_or(0)
        });
        // `!used` has at least 64 set bits, so trailing_zeros is at most 64 and fits in u8.
        u8::try_from((!used).trailing_zeros()).unwrap_or(u8::MAX)
    }

    /// Slot to translate `g` with: the newest sync at or before `g`, else the oldest one.
    pub(super) fn lookup(&self, g: i64) -> (i64, i64) {
        let i = self
            .upstream
            .iter()
            .position(|&up| up <= g)
            .unwrap_or(SYNCS_PER_PARTITION - 1);
        (self.upstream[i], self.downstream[i])
    }

    /// Java's `updateSyncArray` for a partition that already has history: makes the new sync
    /// slot 0 and repairs invariants B and C towards the tail, preferring to keep old syncs.
    pub(super) fn apply(&mut self, up: i64, down: i64, reset: bool) {
        // Java also resets on a rewind only against the newest sync; an equal upstream offset
        // goes through the normal path.
        if reset || up < self.upstream[0] {
            *self = ReferenceSyncs::filled(up, down);
            return;
        }
        let incoming = Sync {
            up,
            down,
            label: self.fresh_label(),
        };
        let original = self.clone();
        let mut replacement = incoming;
        let mut candidate = 0usize;
        self.set(0, incoming);
        for current in 1..SYNCS_PER_PARTITION {
            let previous = self.get(current - 1);
            loop {
                let old = original.get(candidate);
                let recent = not_too_stale(previous, old, current - 1, current);
                let apart_from_previous = spread_out(previous, old, current - 1);
                // `current + 1` still holds the untouched old tail at this point.
                let apart_from_next = current + 1 >= SYNCS_PER_PARTITION
                    || spread_out(old, self.get(current + 1), current);
                let repeated =
                    candidate + 1 < SYNCS_PER_PARTITION && same(old, original.get(candidate + 1));
                let usable = recent && apart_from_previous && apart_from_next;
                if usable {
                    replacement = old;
                }
                // A repeated or too-close old sync can never be used further down the array.
                let skip = repeated || !apart_from_previous;
                if usable || skip {
                    candidate += 1;
                }
                if !(candidate < current && skip) {
                    break;
                }
            }
            if not_too_stale(previous, self.get(current), current - 1, current) {
                // The rest of the old tail still satisfies B; Java keeps it untouched.
                break;
            }
            self.set(current, replacement);
        }
    }
}

/// Java's `1L << n` for `n` in `0..64`: `2^63` wraps to `i64::MIN`.
fn pow2(n: usize) -> i64 {
    1i64.wrapping_shl(n as u32)
}

fn same(a: Sync, b: Sync) -> bool {
    a.label == b.label
}

/// Invariant B between `a` in slot `i` and `b` in slot `j`; a bound that wraps negative counts as
/// satisfied, as in Java.
fn not_too_stale(a: Sync, b: Sync, i: usize, j: usize) -> bool {
    let bound = b.up.wrapping_add(pow2(j)).wrapping_sub(pow2(i));
    same(a, b) || bound < 0 || a.up <= bound
}

/// Invariant C between `a` in slot `i` and the older `b`; a bound that wraps negative counts as
/// violated, as in Java.
fn spread_out(a: Sync, b: Sync, i: usize) -> bool {
    let bound = b.up.wrapping_add(pow2(i.saturating_sub(2)));
    same(a, b) || (bound >= 0 && a.up >= bound)
}
