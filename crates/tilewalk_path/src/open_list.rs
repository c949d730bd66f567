//! The priority queue of the cost-ordered searches: a binary min-heap of packed integer keys
//! that holds its smallest entry aside, so the common "expand the child just found" costs no
//! heap operation.

use crate::memory::{map_pages, zeroed};

/// A frontier entry, ordered by one packed integer key: lowest priority first; among
/// priorities equal up to rounding, the lower `h` (the deeper cell: far fewer expansions on
/// open ground); then the lower index, so the order is total and the result deterministic.
/// Key and index share one 128-bit integer, the key above the index, so that comparing two
/// entries is one integer comparison.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) struct HeapEntry(u128);

/// Mantissa bits of the priority dropped from the key, so that sums which differ only by
/// rounding (the same steps added in another order) tie, and the `h` tie-break applies.
/// The priority keeps a relative precision of 2^-40.
const PRIORITY_ROUNDING_BITS: u32 = 12;
/// Key bits for the tie-break on `h` (in eighths of a step, capped).
const TIE_BITS: u32 = 13;

impl HeapEntry {
    /// `priority` and `h` must be non-negative (they are sums of positive costs).
    #[inline]
    pub(crate) fn new(index: u32, priority: f64, h: f64) -> Self {
        // Non-negative floats order like their bit patterns; the sign bit is 0, so the
        // rounded priority has 51 bits and fits beside the tie bits.
        let rounded = priority.to_bits() >> PRIORITY_ROUNDING_BITS;
        // In range before the conversion, which then truncates (NaN becomes 0).
        let tie = (h * 8.0).clamp(0.0, f64::from((1 << TIE_BITS) - 1)) as u64;
        let key = (rounded << TIE_BITS) | tie;
        Self((u128::from(key) << 32) | u128::from(index))
    }

    /// The cell it stands for.
    #[inline]
    pub(crate) fn index(self) -> u32 {
        self.0 as u32
    }

    #[inline]
    fn key(self) -> u64 {
        (self.0 >> 32) as u64
    }

    /// Whether two priorities are equal up to the key's rounding: what sums of the same
    /// steps in another order differ by.
    #[inline]
    pub(crate) fn ties(a: f64, b: f64) -> bool {
        Self::new(0, a, 0.0).key() == Self::new(0, b, 0.0).key()
    }

    /// The priority it was made with, rounded down to the key's precision: never more than
    /// that priority, and less by at most a relative 2^-40.
    #[inline]
    pub(crate) fn priority(self) -> f64 {
        f64::from_bits((self.key() >> TIE_BITS) << PRIORITY_ROUNDING_BITS)
    }
}

/// A min-priority queue of [`HeapEntry`]s holding at most one entry per cell: a push for a
/// cell already queued keeps the smaller of the two (a decrease-key), so nothing stale is
/// ever popped. It pops the entries a binary heap with lazy deletion would pop first for
/// each cell, in the same order (the order is total). And it keeps the smallest entry out of
/// the heap when it can: an A* expansion usually finds a child that is the very next cell to
/// expand (same priority, deeper), and that child then never enters the heap.
#[derive(Clone, Debug, Default)]
pub(crate) struct OpenList {
    /// When set, no larger than any entry of `heap`.
    best: Option<HeapEntry>,
    /// A binary min-heap: `heap[i] <= heap[2i + 1]` and `heap[i] <= heap[2i + 2]`.
    heap: Vec<HeapEntry>,
    /// Per cell: where its entry is (one more than its index into `heap`, or `IN_BEST`), or
    /// `ABSENT`. `ABSENT` is 0, so that fresh memory is all absent and a search touches only
    /// the pages of the cells it reaches.
    at: Vec<u32>,
}

/// `OpenList::at` of a cell with no entry.
const ABSENT: u32 = 0;
/// `OpenList::at` of the cell whose entry is `OpenList::best`.
const IN_BEST: u32 = u32::MAX;

impl OpenList {
    pub(crate) fn clear(&mut self) {
        if let Some(best) = self.best.take() {
            self.at[best.index() as usize] = ABSENT;
        }
        for entry in self.heap.drain(..) {
            self.at[entry.index() as usize] = ABSENT;
        }
    }

    /// Sizes the per-cell memory for cells `0..cells` now rather than at the first pushes.
    #[inline]
    pub(crate) fn reserve(&mut self, cells: usize) {
        if self.at.len() < cells {
            self.grow(cells);
        }
    }

    /// Maps the pages of the per-cell memory now (see [`crate::memory::map_pages`]): only
    /// while the list is empty, when every cell is `ABSENT`, so it changes nothing.
    pub(crate) fn map_pages(&mut self) {
        if self.best.is_none() && self.heap.is_empty() {
            map_pages(&mut self.at);
        }
    }

    #[cold]
    fn grow(&mut self, cells: usize) {
        let mut at = zeroed(cells.max(2 * self.at.len()));
        at[..self.at.len()].copy_from_slice(&self.at);
        self.at = at;
    }

    /// Queues `entry`, or lowers its cell's entry to it; a push no smaller than the cell's
    /// entry changes nothing.
    #[inline]
    pub(crate) fn push(&mut self, entry: HeapEntry) {
        let cell = entry.index() as usize;
        self.reserve(cell + 1);
        match self.at[cell] {
            ABSENT => {}
            IN_BEST => {
                let best = self.best.as_mut().expect("the cell's entry is the best");
                *best = (*best).min(entry);
                return;
            }
            slot => {
                let slot = slot as usize - 1;
                if self.heap[slot] <= entry {
                    return;
                }
                self.sift_up(slot, entry);
                // Only the root can have gone below the best.
                if let Some(best) = self.best
                    && self.heap[0] < best
                {
                    let top = self.heap[0];
                    self.best = Some(top);
                    self.at[top.index() as usize] = IN_BEST;
                    self.sift_down(0, best);
                }
                return;
            }
        }
        match self.best {
            Some(best) if entry < best => {
                self.best = Some(entry);
                self.at[cell] = IN_BEST;
                self.heap_push(best);
            }
            Some(_) => self.heap_push(entry),
            None if self.heap.first().is_none_or(|&top| entry < top) => {
                self.best = Some(entry);
                self.at[cell] = IN_BEST;
            }
            None => self.heap_push(entry),
        }
    }

    #[inline]
    pub(crate) fn pop(&mut self) -> Option<HeapEntry> {
        let entry = self.best.take().or_else(|| self.heap_pop())?;
        self.at[entry.index() as usize] = ABSENT;
        Some(entry)
    }

    /// The entry [`Self::pop`] would take, left in place.
    #[inline]
    pub(crate) fn peek(&self) -> Option<HeapEntry> {
        self.best.or_else(|| self.heap.first().copied())
    }

    /// Pops entries until one whose cell is not stamped `closed` and returns it (a cell
    /// closed while queued, by a search that closes cells itself); `None` once the queue is
    /// empty.
    #[inline]
    pub(crate) fn pop_open(&mut self, stamps: &[u32], closed: u32) -> Option<HeapEntry> {
        while let Some(entry) = self.pop() {
            if stamps[entry.index() as usize] != closed {
                return Some(entry);
            }
        }
        None
    }

    /// Drops the closed entries in front (as [`Self::pop_open`] skips them) and says whether
    /// that emptied the queue: a search that stopped at its budget is finished exactly then.
    pub(crate) fn only_stale_left(&mut self, stamps: &[u32], closed: u32) -> bool {
        while let Some(entry) = self.peek() {
            if stamps[entry.index() as usize] != closed {
                return false;
            }
            self.pop();
        }
        true
    }

    #[inline]
    fn heap_push(&mut self, entry: HeapEntry) {
        self.heap.push(entry);
        self.sift_up(self.heap.len() - 1, entry);
    }

    /// Puts `entry` in the hole at `hole` or above it, moving larger parents down.
    #[inline]
    fn sift_up(&mut self, mut hole: usize, entry: HeapEntry) {
        while hole > 0 {
            let parent = (hole - 1) / 2;
            let above = self.heap[parent];
            if above <= entry {
                break;
            }
            self.place(hole, above);
            hole = parent;
        }
        self.place(hole, entry);
    }

    /// Puts `entry` in the hole at `hole` or below it, moving smaller children up.
    #[inline]
    fn sift_down(&mut self, mut hole: usize, entry: HeapEntry) {
        let len = self.heap.len();
        loop {
            let mut child = 2 * hole + 1;
            if child >= len {
                break;
            }
            if child + 1 < len && self.heap[child + 1] < self.heap[child] {
                child += 1;
            }
            if self.heap[child] >= entry {
                break;
            }
            self.place(hole, self.heap[child]);
            hole = child;
        }
        self.place(hole, entry);
    }

    #[inline]
    fn place(&mut self, slot: usize, entry: HeapEntry) {
        self.heap[slot] = entry;
        self.at[entry.index() as usize] = slot as u32 + 1;
    }

    /// Removes the root: its hole sinks to a leaf along the smaller children (one comparison
    /// per level), then the last entry fills it and sifts up, usually not far (Floyd's
    /// bottom-up deletion, as `std`'s `BinaryHeap` does).
    #[inline]
    fn heap_pop(&mut self) -> Option<HeapEntry> {
        let last = self.heap.pop()?;
        let Some(&top) = self.heap.first() else {
            return Some(last);
        };
        let len = self.heap.len();
        let mut hole = 0;
        let mut child = 1;
        while child + 1 < len {
            // Branch-free: take the right child when it is smaller.
            child += usize::from(self.heap[child + 1] < self.heap[child]);
            self.place(hole, self.heap[child]);
            hole = child;
            child = 2 * hole + 1;
        }
        if child < len {
            self.place(hole, self.heap[child]);
            hole = child;
        }
        self.sift_up(hole, last);
        Some(top)
    }
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use super::*;

    #[test]
    fn keys_order_by_priority_then_h_then_index() {
        let a = HeapEntry::new(9, 3.0, 2.0);
        assert!(a < HeapEntry::new(0, 3.5, 0.0), "lower priority first");
        assert!(a < HeapEntry::new(0, 3.0, 2.5), "then lower h");
        assert!(a < HeapEntry::new(10, 3.0, 2.0), "then lower index");
        let rounded = HeapEntry::new(9, 3.0 + 4.0 * f64::EPSILON, 2.0);
        assert_eq!(a, rounded, "priorities equal up to rounding tie");
    }

    #[test]
    fn the_priority_read_back_is_rounded_down() {
        assert_eq!(HeapEntry::new(1, 3.0, 2.0).priority(), 3.0);
        assert_eq!(HeapEntry::new(1, 0.0, 0.0).priority(), 0.0);
        let third = 1.0 / 3.0;
        let read = HeapEntry::new(1, third, 0.0).priority();
        assert!(
            read <= third && third - read <= third * 2f64.powi(-40),
            "{read}"
        );
        assert!(
            read < third,
            "1/3 has more mantissa bits than the key keeps"
        );
    }

    #[test]
    fn pops_each_cells_least_entry_in_sorted_order_whatever_the_pushes() {
        // A deterministic scramble of pushes and pops, some of the same cells again, against
        // a reference that keeps each cell's least entry and pops the least of them.
        let mut open = OpenList::default();
        let mut reference: BTreeMap<u32, HeapEntry> = BTreeMap::new();
        let least = |reference: &BTreeMap<u32, HeapEntry>| reference.values().min().copied();
        let mut state = 99u64;
        let mut lowered = 0;
        for round in 0..5000 {
            state = state
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1_442_695_040_888_963_407);
            let r = (state >> 33) as u32;
            if r.is_multiple_of(3) {
                let expected = least(&reference);
                if let Some(entry) = expected {
                    reference.remove(&entry.index());
                }
                assert_eq!(open.peek(), expected, "round {round}");
                assert_eq!(open.pop(), expected, "round {round}");
            } else {
                let entry = HeapEntry::new(r % 64, f64::from(r % 17) / 4.0, f64::from(r % 5));
                open.push(entry);
                let queued = reference.entry(entry.index()).or_insert(entry);
                if entry < *queued {
                    *queued = entry;
                    lowered += 1;
                }
            }
        }
        assert!(lowered > 100, "{lowered} entries lowered");
        while let Some(expected) = least(&reference) {
            reference.remove(&expected.index());
            assert_eq!(open.pop(), Some(expected));
        }
        assert_eq!(open.pop(), None);
        // Cleared with cells queued, it forgets them: they are new again.
        open.push(HeapEntry::new(3, 1.0, 0.0));
        open.push(HeapEntry::new(4, 2.0, 0.0));
        open.clear();
        open.push(HeapEntry::new(4, 5.0, 0.0));
        assert_eq!(open.pop(), Some(HeapEntry::new(4, 5.0, 0.0)));
        assert_eq!(open.pop(), None);
    }
}
