//! After warm-up, `search_into` and `search_into_with` allocate nothing, on square and hex
//! boards, for every search (bidirectional ones included); and a traced search reusing its
//! trace allocates no more than an untraced `search` (the returned path): counted by a
//! global allocator.

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering};

use tilewalk_path::{
    Algorithm, Board, CellPath, Grid, HexLayout, Passage, Pos, SearchContext, SearchOptions, Trace,
};

struct Counting;

static ALLOCATIONS: AtomicUsize = AtomicUsize::new(0);

// SAFETY: forwards every call to the system allocator unchanged; it only counts.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        ALLOCATIONS.fetch_add(1, Ordering::Relaxed);
        // SAFETY: the caller's contract is passed on as it is.
        unsafe { System.alloc(layout) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: the caller's contract is passed on as it is.
        unsafe { System.dealloc(ptr, layout) }
    }
}

#[global_allocator]
static COUNTING: Counting = Counting;

/// The only test in this binary, so no other thread allocates while it counts.
#[test]
fn warmed_up_searches_allocate_nothing() {
    // Weighted, and uniform (where jump point search runs rather than falling back to A*).
    let walls = |p: Pos| p.x % 8 == 4 && !p.y.is_multiple_of(16);
    let grids = [
        Grid::from_fn(64, 64, |p| (!walls(p)).then_some(1.0 + f64::from(p.y % 3))).unwrap(),
        Grid::from_fn(64, 64, |p| (!walls(p)).then_some(1.0)).unwrap(),
    ];
    let queries = [
        (Pos::new(0, 0), Pos::new(63, 63)),
        (Pos::new(63, 0), Pos::new(0, 63)),
        (Pos::new(10, 30), Pos::new(50, 31)),
    ];
    let mut context = SearchContext::new();
    let mut path = CellPath::default();
    let options = [
        SearchOptions::default(),
        SearchOptions {
            algorithm: Algorithm::Dijkstra,
            ..SearchOptions::default()
        },
        SearchOptions {
            algorithm: Algorithm::Bfs,
            ..SearchOptions::default()
        },
        SearchOptions {
            algorithm: Algorithm::JumpPoint,
            ..SearchOptions::default()
        },
        SearchOptions {
            algorithm: Algorithm::Bidirectional,
            ..SearchOptions::default()
        },
        SearchOptions {
            algorithm: Algorithm::BidirectionalDijkstra,
            ..SearchOptions::default()
        },
    ];
    // Other units hold a few cells: the search goes around them.
    let held = |p: Pos| {
        if p.y == 32 && p.x % 5 == 1 {
            Passage::Blocked
        } else {
            Passage::Open
        }
    };
    let mut run_all = || {
        for grid in &grids {
            for board in [
                Board::default(),
                Board::Hex(HexLayout::OddR),
                Board::Hex(HexLayout::EvenQ),
            ] {
                for options in &options {
                    let options = SearchOptions { board, ..*options };
                    if matches!(board, Board::Hex(_)) && options.algorithm == Algorithm::JumpPoint {
                        continue;
                    }
                    for &(start, goal) in &queries {
                        context
                            .search_into(grid, start, goal, &options, &mut path)
                            .unwrap();
                        context
                            .search_into_with(grid, start, goal, &options, &mut path, held)
                            .unwrap();
                    }
                }
            }
        }
    };
    run_all();
    let before = ALLOCATIONS.load(Ordering::Relaxed);
    for _ in 0..3 {
        run_all();
    }
    assert_eq!(
        ALLOCATIONS.load(Ordering::Relaxed) - before,
        0,
        "searches after warm-up allocated"
    );
    let mut trace = Trace::new();
    for grid in &grids {
        for options in &options {
            for &(start, goal) in &queries {
                context
                    .search_traced(grid, start, goal, options, &mut trace)
                    .unwrap();
                let count = |search: &mut dyn FnMut()| {
                    let before = ALLOCATIONS.load(Ordering::Relaxed);
                    search();
                    ALLOCATIONS.load(Ordering::Relaxed) - before
                };
                let plain = count(&mut || {
                    context.search(grid, start, goal, options).unwrap();
                });
                let traced = count(&mut || {
                    context
                        .search_traced(grid, start, goal, options, &mut trace)
                        .unwrap();
                });
                assert!(plain > 0, "the returned path is allocated");
                assert_eq!(traced, plain, "{:?}: tracing allocated", options.algorithm);
            }
        }
    }
}
