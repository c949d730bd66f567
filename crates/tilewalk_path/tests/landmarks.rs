//! ALT (A* with landmarks, `Landmarks`) against an independent Dijkstra
//! (`common/reference.rs`): optimal costs and legal paths on random weighted grids on every
//! board, on larger weighted maps with walls, and after costs change: rises keep the tables
//! (their bounds stay admissible), falls and openings invalidate them until rebuilt.

mod common;
#[path = "common/reference.rs"]
mod reference;
#[path = "common/seeded.rs"]
mod seeded;

use proptest::prelude::*;
use seeded::{check_found, edits_strategy, grid_strategy, pairs, weighted};
use tilewalk_path::{Board, Grid, Landmarks, NoPath, Pos, SearchContext};

/// Checks one ALT search against the reference ([`check_found`]).
fn check(grid: &Grid, landmarks: &Landmarks, start: Pos, goal: Pos) -> Result<(), String> {
    let found = SearchContext::new().search_landmarks(grid, landmarks, start, goal);
    let path = found.as_ref().ok().map(|f| &f.path);
    check_found(grid, landmarks.board(), (start, goal), path, "ALT")
}

#[test]
fn alt_finds_the_optimal_cost_on_weighted_maps_on_every_board() {
    for seed in 1..=3 {
        let grid = weighted(36, 30, seed);
        for board in Board::ALL {
            let landmarks = Landmarks::build(&grid, board, 6);
            for (start, goal) in pairs(&grid, seed * 31 + 7, 10) {
                check(&grid, &landmarks, start, goal).unwrap();
            }
        }
    }
}

#[test]
fn alt_expands_fewer_cells_than_plain_a_star_on_long_weighted_ways() {
    // The worst over seeds of the ratio of cells expanded, on the long queries.
    let mut worst = 0.0f64;
    for seed in 1..=4 {
        let grid = weighted(128, 128, seed);
        let board = Board::default();
        let landmarks = Landmarks::build(&grid, board, 8);
        let mut context = SearchContext::new();
        let options = tilewalk_path::SearchOptions::on(board);
        let (mut alt, mut plain) = (0, 0);
        for (start, goal) in pairs(&grid, seed, 200) {
            if board.distance(start, goal) < 64 || !grid.connected(start, goal, board) {
                continue;
            }
            let found = context
                .search_landmarks(&grid, &landmarks, start, goal)
                .unwrap();
            alt += found.stats.expanded;
            let reference = context.search(&grid, start, goal, &options).unwrap();
            plain += reference.stats.expanded;
            assert!((found.path.cost - reference.path.cost).abs() < 1e-9 * reference.path.cost);
        }
        worst = worst.max(alt as f64 / plain as f64);
    }
    assert!(worst < 0.5, "ALT expanded {worst:.2} of A*'s cells");
}

#[test]
fn costs_that_rise_keep_the_tables_exact_and_falls_need_a_rebuild() {
    for seed in 1..=3 {
        let mut grid = weighted(32, 32, seed);
        let board = Board::default();
        let mut landmarks = Landmarks::build(&grid, board, 6);
        let queries = pairs(&grid, seed + 100, 12);
        // Rises: a band of costs tripled, and a wall across the map with one gap. The old
        // tables still bound every way from below.
        for x in 0..32 {
            for y in 14..18 {
                let p = Pos::new(x, y);
                if let Some(cost) = grid.cost(p) {
                    grid.set_cost(p, Some((cost * 3.0).min(tilewalk_path::MAX_COST)))
                        .unwrap();
                }
            }
            if x != 5 {
                grid.set_cost(Pos::new(x, 25), None).unwrap();
            }
        }
        assert!(landmarks.fits(&grid));
        for &(start, goal) in &queries {
            check(&grid, &landmarks, start, goal).unwrap();
        }
        // Falls: the band becomes road (cost 0.5) and the wall opens. The tables may now
        // overestimate: invalidated, searches are plain A* (exact); rebuilt, ALT again.
        for x in 0..32 {
            for y in 14..18 {
                grid.set_cost(Pos::new(x, y), Some(0.5)).unwrap();
            }
            grid.set_cost(Pos::new(x, 25), Some(1.0)).unwrap();
        }
        landmarks.invalidate();
        assert!(!landmarks.fits(&grid));
        for &(start, goal) in &queries {
            check(&grid, &landmarks, start, goal).unwrap();
        }
        let landmarks = Landmarks::build(&grid, board, 6);
        assert!(landmarks.fits(&grid));
        for &(start, goal) in &queries {
            check(&grid, &landmarks, start, goal).unwrap();
        }
    }
}

#[test]
fn tables_of_another_size_or_no_way_fall_back_and_refuse_as_a_star_does() {
    let grid = weighted(20, 20, 5);
    let other = weighted(21, 20, 5);
    let landmarks = Landmarks::build(&other, Board::default(), 4);
    assert!(!landmarks.fits(&grid));
    for (start, goal) in pairs(&grid, 9, 20) {
        check(&grid, &landmarks, start, goal).unwrap();
    }
    // Two islands.
    let islands = Grid::from_fn(9, 3, |p| (p.x != 4).then_some(1.0)).unwrap();
    let landmarks = Landmarks::build(&islands, Board::default(), 4);
    let mut context = SearchContext::new();
    let found = context.search_landmarks(&islands, &landmarks, Pos::new(0, 0), Pos::new(8, 2));
    assert_eq!(found.unwrap_err(), NoPath::DifferentRegions);
    let found = context.search_landmarks(&islands, &landmarks, Pos::new(0, 0), Pos::new(4, 1));
    assert_eq!(found.unwrap_err(), NoPath::GoalBlocked(Pos::new(4, 1)));
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn alt_costs_equal_dijkstra_on_every_board(
        (grid, start, goal) in grid_strategy(true),
        count in 1usize..7,
    ) {
        for board in Board::ALL {
            let landmarks = Landmarks::build(&grid, board, count);
            check(&grid, &landmarks, start, goal).map_err(TestCaseError::fail)?;
        }
    }

    #[test]
    fn alt_stays_exact_after_edits_rises_kept_falls_invalidated(
        (grid, start, goal) in grid_strategy(true),
        edits in edits_strategy(),
        count in 1usize..7,
    ) {
        for board in Board::ALL {
            let mut grid = grid.clone();
            let mut landmarks = Landmarks::build(&grid, board, count);
            for &(x, y, cost) in &edits {
                let p = Pos::new(x, y);
                if !grid.contains(p) || p == start || p == goal {
                    continue;
                }
                let old = grid.cost(p).unwrap_or(f64::INFINITY);
                grid.set_cost(p, cost).unwrap();
                // A fall or an opening: the host tells the tables.
                if cost.unwrap_or(f64::INFINITY) < old {
                    landmarks.invalidate();
                }
            }
            check(&grid, &landmarks, start, goal).map_err(TestCaseError::fail)?;
        }
    }
}
