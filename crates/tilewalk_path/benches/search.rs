//! Criterion benches: A* and jump point search on a Moving AI map, A* on one weighted map
//! read as a square-8 and as a hex board (in expansions per second), and a movement range
//! on a weighted grid.
//!
//! `cargo bench -p tilewalk_path` (reads `../shared/benchmarks/movingai`; the Moving AI bench
//! is skipped when that folder is absent).

use std::hint::black_box;
use std::path::Path as FsPath;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use tilewalk_path::formats::{parse_movingai_map, parse_scenarios};
use tilewalk_path::{
    Algorithm, Board, Diagonal, Grid, HexLayout, Pos, SearchContext, SearchOptions,
};

fn astar(c: &mut Criterion) {
    let dir = FsPath::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/benchmarks/movingai");
    let (Ok(map), Ok(scen)) = (
        std::fs::read_to_string(dir.join("den312d.map")),
        std::fs::read_to_string(dir.join("den312d.map.scen")),
    ) else {
        eprintln!(
            "skipping the A* bench: no Moving AI data in {}",
            dir.display()
        );
        return;
    };
    let grid = parse_movingai_map(&map).expect("den312d.map parses").grid();
    let problems = parse_scenarios(&scen).expect("den312d.map.scen parses");
    let mut context = SearchContext::new();
    let mut path = tilewalk_path::CellPath::default();
    for (name, algorithm) in [("astar", Algorithm::AStar), ("jps", Algorithm::JumpPoint)] {
        let options = SearchOptions {
            algorithm,
            ..SearchOptions::default()
        };
        c.bench_function(&format!("{name} den312d all problems"), |b| {
            b.iter(|| {
                for p in &problems {
                    let _ =
                        black_box(context.search_into(&grid, p.start, p.goal, &options, &mut path));
                }
            });
        });
    }
}

/// A 256×256 map of mixed costs 1–4 with scattered walls (one cell in 16), the same for
/// both boards.
fn weighted_map() -> Grid {
    Grid::from_fn(256, 256, |p| {
        let hash = (p.x.wrapping_mul(73_856_093) ^ p.y.wrapping_mul(19_349_663)) % 16;
        (hash != 0).then_some(f64::from(1 + hash % 4))
    })
    .expect("valid grid")
}

fn boards(c: &mut Criterion) {
    let grid = weighted_map();
    let square = Board::default();
    let hex = Board::Hex(HexLayout::OddR);
    // 40 fixed start/goal pairs, open and connected on both boards.
    let mut state = 2026u64;
    let mut next = || {
        state = state
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        (state >> 33) as u32 % 256
    };
    let mut pairs = Vec::new();
    while pairs.len() < 40 {
        let (start, goal) = (Pos::new(next(), next()), Pos::new(next(), next()));
        if grid.connected(start, goal, square) && grid.connected(start, goal, hex) {
            pairs.push((start, goal));
        }
    }
    let mut context = SearchContext::new();
    let mut path = tilewalk_path::CellPath::default();
    let mut group = c.benchmark_group("astar 256x256 weighted");
    for board in [square, hex] {
        let options = SearchOptions::on(board);
        let expanded: usize = pairs
            .iter()
            .map(|&(start, goal)| {
                context
                    .search_into(&grid, start, goal, &options, &mut path)
                    .expect("the pairs are connected")
                    .expanded
            })
            .sum();
        group.throughput(Throughput::Elements(expanded as u64));
        group.bench_function(board.to_string(), |b| {
            b.iter(|| {
                for &(start, goal) in &pairs {
                    let _ = black_box(context.search_into(&grid, start, goal, &options, &mut path));
                }
            });
        });
    }
    group.finish();
}

fn range(c: &mut Criterion) {
    // A 128×128 grid of mixed costs 1–4 with scattered walls, like a generated map; the
    // centre, where the ranges start, is open.
    let centre = Pos::new(64, 64);
    let grid = Grid::from_fn(128, 128, |p| {
        let hash = (p.x.wrapping_mul(73_856_093) ^ p.y.wrapping_mul(19_349_663)) % 16;
        (hash != 0 || p == centre).then_some(f64::from(1 + hash % 4))
    })
    .expect("valid grid");
    let mut context = SearchContext::new();
    for budget in [8.0, 30.0] {
        let cells = context
            .range(&grid, centre, budget, Diagonal::NoObstacles)
            .expect("the centre is open")
            .cells()
            .len();
        c.bench_function(
            &format!("range 128x128 budget {budget} ({cells} cells)"),
            |b| {
                b.iter(|| black_box(context.range(&grid, centre, budget, Diagonal::NoObstacles)));
            },
        );
    }
}

criterion_group!(benches, astar, boards, range);
criterion_main!(benches);
