//! The priority queue of the cost-ordered searches: a binary min-heap of packed integer keys
//! that holds its smallest entry aside, so the common "expand the child just found" costs no
//! heap operation.

/// A frontier entry, ordered by one packed integer key: lowest priority first; among
/// priorities equal up to rounding, the lower `h` (the deeper cell: far fewer expansions on
/// open ground); then the lower index, so the order is total and the result deterministic.
/// The derived order compares `key`, then `index`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) struct HeapEntry {
    key: u64,
    pub(crate) index: u32,
}

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
        let tie = ((h * 8.0) as u64).min((1 << TIE_BITS) - 1);
        Self {
            key: (rounded << TIE_BITS) | tie,
            index,
        }
    }

    /// Whether two priorities are equal up to the key's rounding: what sums of the same
    /// steps in another order differ by.
    #[inline]
    pub(crate) fn ties(a: f64, b: f64) -> bool {
        Self::new(0, a, 0.0).key == Self::new(0, b, 0.0).key
    }

    /// The priority it was made with, rounded down to the key's precision: never more than
    /// that priority, and less by at most a relative 2^-40.
    #[inline]
    pub(crate) fn priority(self) -> f64 {
        f64::from_bits((self.key >> TIE_BITS) << PRIORITY_ROUNDING_BITS)
    }
}

/// A min-priority queue of [`HeapEntry`]s. It pops exactly the entries a plain binary heap
/// would, in the same order (the order is total), but keeps the smallest entry out of the
/// heap when it can: an A* expansion usually finds a child that is the very next cell to
/// expand (same priority, deeper), and that child then never enters the heap.
#[derive(Clone, Debug, Default)]
pub(crate) struct OpenList {
    /// When set, no larger than any entry of `heap`.
    best: Option<HeapEntry>,
    /// A binary min-heap: `heap[i] <= heap[2i + 1]` and `heap[i] <= heap[2i + 2]`.
    heap: Vec<HeapEntry>,
}

impl OpenList {
    pub(crate) fn clear(&mut self) {
        self.best = None;
        self.heap.clear();
    }

    #[inline]
    pub(crate) fn push(&mut self, entry: HeapEntry) {
        match self.best {
            Some(best) if entry < best => {
                self.best = Some(entry);
                self.heap_push(best);
            }
            Some(_) => self.heap_push(entry),
            None if self.heap.first().is_none_or(|&top| entry < top) => self.best = Some(entry),
            None => self.heap_push(entry),
        }
    }

    #[inline]
    pub(crate) fn pop(&mut self) -> Option<HeapEntry> {
        self.best.take().or_else(|| self.heap_pop())
    }

    /// The entry [`Self::pop`] would take, left in place.
    #[inline]
    pub(crate) fn peek(&self) -> Option<HeapEntry> {
        self.best.or_else(|| self.heap.first().copied())
    }

    /// Pops entries until one whose cell is not stamped `closed` and returns it (the others
    /// are stale: left behind when their cell was closed through a cheaper push); `None`
    /// once the queue is empty.
    #[inline]
    pub(crate) fn pop_open(&mut self, stamps: &[u32], closed: u32) -> Option<HeapEntry> {
        while let Some(entry) = self.pop() {
            if stamps[entry.index as usize] != closed {
                return Some(entry);
            }
        }
        None
    }

    /// Drops the stale entries in front (as [`Self::pop_open`] skips them) and says whether
    /// that emptied the queue: a search that stopped at its budget is finished exactly then.
    pub(crate) fn only_stale_left(&mut self, stamps: &[u32], closed: u32) -> bool {
        while let Some(entry) = self.peek() {
            if stamps[entry.index as usize] != closed {
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
            self.heap[hole] = above;
            hole = parent;
        }
        self.heap[hole] = entry;
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
            self.heap[hole] = self.heap[child];
            hole = child;
            child = 2 * hole + 1;
        }
        if child < len {
            self.heap[hole] = self.heap[child];
            hole = child;
        }
        self.sift_up(hole, last);
        Some(top)
    }
}

#[cfg(test)]
mod tests {
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
    fn pops_in_sorted_order_whatever_the_pushes() {
        // A deterministic scramble of pushes and pops against a sorted reference.
        let mut open = OpenList::default();
        let mut reference: Vec<HeapEntry> = Vec::new();
        let mut state = 99u64;
        for round in 0..5000 {
            state = state
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1_442_695_040_888_963_407);
            let r = (state >> 33) as u32;
            if r.is_multiple_of(3) {
                reference.sort();
                let expected = (!reference.is_empty()).then(|| reference.remove(0));
                assert_eq!(open.peek(), expected, "round {round}");
                assert_eq!(open.pop(), expected, "round {round}");
            } else {
                let entry = HeapEntry::new(r % 64, f64::from(r % 17) / 4.0, f64::from(r % 5));
                open.push(entry);
                reference.push(entry);
            }
        }
        reference.sort();
        for expected in reference {
            assert_eq!(open.pop(), Some(expected));
        }
        assert_eq!(open.pop(), None);
    }
}
