//! Per-cell memory: zeroed allocations, which the OS maps only where a search writes, and a
//! way to map them all ahead of time.
//!
//! Every per-cell array of the searches, fields and the group planner reads all-zero bytes
//! as "nothing here" (stamps of no generation, no entry, no river), so a fresh allocation
//! needs no clearing: it comes from the allocator zeroed (for large arrays, as pages the OS
//! maps on first write), and a search over a small part of a large map touches only the
//! pages of that part.

use bytemuck::Zeroable;

/// Bytes in a page of memory (the smallest on the platforms Rust targets).
const PAGE: usize = 4096;

/// `len` zeroed values.
pub(crate) fn zeroed<T: Zeroable>(len: usize) -> Vec<T> {
    bytemuck::zeroed_vec(len)
}

/// Writes a zero into every page of `cells`, so that the OS maps all of them now rather than
/// at the first search that writes there. For fresh arrays only: it clears what it writes.
pub(crate) fn map_pages<T: Zeroable>(cells: &mut [T]) {
    let per_page = (PAGE / size_of::<T>().max(1)).max(1);
    for page in cells.chunks_mut(per_page) {
        // Opaque to the compiler, which could otherwise drop a store of zero into memory
        // it knows was allocated zeroed.
        page[0] = std::hint::black_box(T::zeroed());
    }
}
