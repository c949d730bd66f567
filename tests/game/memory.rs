//! Memory that fits the map: loading a level and simulating it allocate at most 64 MiB plus
//! 128 bytes a cell, on the worst shapes, maps one cell high or one cell wide (the grids'
//! impassable border is two thirds of their storage there).
//!
//! The test binary's allocator counts every byte ([`Counting`]). Other tests allocate in the
//! same process at the same time, so each measurement runs alone: the test starts this very
//! binary again on [`peak_of_one_second`] and reads the peak it prints.

use std::alloc::{GlobalAlloc, Layout, System};
use std::process::Command;
use std::sync::atomic::{AtomicUsize, Ordering};

use tilewalk::headless_app;
use tilewalk::map::MapAsset;

/// The system allocator, counting the bytes live and their peak.
pub struct Counting;

static LIVE: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);

fn grew(bytes: usize) {
    let live = LIVE.fetch_add(bytes, Ordering::Relaxed) + bytes;
    PEAK.fetch_max(live, Ordering::Relaxed);
}

fn shrank(bytes: usize) {
    LIVE.fetch_sub(bytes, Ordering::Relaxed);
}

// SAFETY: every call is passed to `System` unchanged; only the counters are added.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        // SAFETY: the caller's contract, passed on.
        let block = unsafe { System.alloc(layout) };
        if !block.is_null() {
            grew(layout.size());
        }
        block
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        // SAFETY: the caller's contract, passed on.
        let block = unsafe { System.alloc_zeroed(layout) };
        if !block.is_null() {
            grew(layout.size());
        }
        block
    }

    unsafe fn dealloc(&self, block: *mut u8, layout: Layout) {
        // SAFETY: the caller's contract, passed on.
        unsafe { System.dealloc(block, layout) };
        shrank(layout.size());
    }

    unsafe fn realloc(&self, block: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        // SAFETY: the caller's contract, passed on.
        let moved = unsafe { System.realloc(block, layout, new_size) };
        if !moved.is_null() {
            if new_size > layout.size() {
                grew(new_size - layout.size());
            } else {
                shrank(layout.size() - new_size);
            }
        }
        moved
    }
}

/// The variable that tells [`peak_of_one_second`] which map to load: `row:N` or `column:N`.
const SHAPE: &str = "TILEWALK_MEMORY_SHAPE";

/// A map of `cells` grass cells in one row, or in one column.
fn thin_map(shape: &str, cells: usize) -> String {
    match shape {
        "row" => format!("[terrain]\n{}\n", ".".repeat(cells)),
        _ => format!("[terrain]\n{}", ".\n".repeat(cells)),
    }
}

/// The child half of [`thin_maps_fit_in_64_mib_plus_128_bytes_a_cell`]: loads the map that
/// [`SHAPE`] names, simulates one second, and prints the peak of the bytes allocated. Run
/// alone (without [`SHAPE`] it has nothing to measure).
#[test]
#[ignore = "run alone, in a process of its own, by thin_maps_fit_in_64_mib_plus_128_bytes_a_cell"]
fn peak_of_one_second() {
    let Ok(shape) = std::env::var(SHAPE) else {
        return;
    };
    let (shape, cells) = shape.split_once(':').expect("SHAPE is row:N or column:N");
    let cells: usize = cells.parse().expect("a number of cells");
    let text = thin_map(shape, cells);
    let map = MapAsset::parse(&text).expect("the thin map parses");
    drop(text);
    let mut app = headless_app(&map, &crate::table()).expect("the thin map builds");
    drop(map);
    for _ in 0..60 {
        app.update();
    }
    println!("peak bytes: {}", PEAK.load(Ordering::Relaxed));
}

#[test]
fn thin_maps_fit_in_64_mib_plus_128_bytes_a_cell() {
    for (shape, cells) in [("row", 4_000_000), ("column", 3_000_000)] {
        let out = Command::new(std::env::current_exe().expect("the test binary"))
            .args([
                "memory::peak_of_one_second",
                "--exact",
                "--ignored",
                "--nocapture",
            ])
            .env(SHAPE, format!("{shape}:{cells}"))
            .output()
            .expect("the test binary runs again");
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert!(out.status.success(), "{shape}: {stdout}");
        let peak: usize = stdout
            .lines()
            .find_map(|line| line.strip_prefix("peak bytes: "))
            .unwrap_or_else(|| panic!("{shape}: no peak printed in {stdout}"))
            .parse()
            .expect("a number of bytes");
        let bound = (64 << 20) + 128 * cells;
        assert!(
            peak <= bound,
            "{shape} of {cells} cells: {peak} bytes at the peak, over {bound}"
        );
        // The counter sees the level: its three cost grids alone take 8 bytes a cell each.
        assert!(peak > 3 * 8 * cells, "{shape}: only {peak} bytes counted");
    }
}

#[test]
fn a_map_too_thin_for_its_size_is_refused_before_its_grids_are_built() {
    // One tile high, one tile longer than the border allows: (w + 2) × 3 > 2^25.
    let long = (tilewalk::level::MAX_STORED_CELLS / 3 - 1) as usize;
    let map = MapAsset::parse(&thin_map("row", long)).expect("within the 2^24 tiles of a map");
    let error = headless_app(&map, &crate::table()).expect_err("the thin map is refused");
    assert_eq!((error.line, error.column), (2, 1));
    assert_eq!(
        error.message,
        format!(
            "a {long}x1 map is too thin for its size: with the border of impassable cells \
             around it, its grids would store 33554433 cells (at most 33554432; a map one tile \
             high or wide may be 11184808 tiles long)"
        )
    );
}
