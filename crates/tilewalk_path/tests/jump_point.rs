//! Jump point search against plain A* on random uniform-cost grids: the same optimal cost,
//! and a legal, contiguous path (JPS links jump points; the search fills in the lines).
//! The grids are up to 150 cells wide, so the scans cross the 64-cell words they read.

use proptest::prelude::*;
use tilewalk_path::{Algorithm, Diagonal, Grid, Pos, SearchContext, SearchOptions};

fn legal_step(grid: &Grid, a: Pos, b: Pos) -> bool {
    let (dx, dy) = (a.x.abs_diff(b.x), a.y.abs_diff(b.y));
    let adjacent = dx <= 1 && dy <= 1 && (dx, dy) != (0, 0);
    let corner_free = dx == 0
        || dy == 0
        || (grid.is_passable(Pos::new(b.x, a.y)) && grid.is_passable(Pos::new(a.x, b.y)));
    adjacent && grid.is_passable(b) && corner_free
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 300, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn jps_matches_astar_on_uniform_grids(
        width in 1u32..150,
        height in 1u32..24,
        density in prop_oneof![Just(0.05), Just(0.3)],
        seed in any::<u64>(),
        cost in prop_oneof![Just(1.0), Just(2.5)],
        ends in (0u32..150, 0u32..24, 0u32..150, 0u32..24),
    ) {
        // Walls from a seeded generator: a proptest vector of 150 × 24 would shrink slowly.
        let mut state = seed;
        let grid = Grid::from_fn(width, height, |_| {
            state = state.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407);
            ((state >> 11) as f64 / (1u64 << 53) as f64 >= density).then_some(cost)
        }).unwrap();
        let start = Pos::new(ends.0 % width, ends.1 % height);
        let goal = Pos::new(ends.2 % width, ends.3 % height);
        let mut context = SearchContext::new();
        let astar = context.search(&grid, start, goal, &SearchOptions::default());
        let jps = context.search(&grid, start, goal, &SearchOptions { algorithm: Algorithm::JumpPoint, ..SearchOptions::default() });
        match (astar, jps) {
            (Ok(astar), Ok(jps)) => {
                prop_assert!((astar.path.cost - jps.path.cost).abs() < 1e-9, "A* {} vs JPS {}", astar.path.cost, jps.path.cost);
                let cells = &jps.path.cells;
                prop_assert_eq!(cells[0], start);
                prop_assert_eq!(cells[cells.len() - 1], goal);
                let mut sum = 0.0;
                for pair in cells.windows(2) {
                    prop_assert!(legal_step(&grid, pair[0], pair[1]), "illegal step {:?} -> {:?}", pair[0], pair[1]);
                    sum += cost * if pair[0].x != pair[1].x && pair[0].y != pair[1].y { std::f64::consts::SQRT_2 } else { 1.0 };
                }
                prop_assert!((sum - jps.path.cost).abs() < 1e-9, "steps sum to {} but the cost is {}", sum, jps.path.cost);
            }
            (Err(a), Err(j)) => prop_assert_eq!(a, j),
            (a, j) => prop_assert!(false, "A* {:?} but JPS {:?}", a.map(|f| f.path.cost), j.map(|f| f.path.cost)),
        }
    }
}

#[test]
fn jps_falls_back_to_astar_on_weighted_grids_and_other_rules() {
    let grid = Grid::from_fn(6, 3, |p| {
        Some(if p.y == 1 && (1..5).contains(&p.x) {
            3.0
        } else {
            1.0
        })
    })
    .unwrap();
    let (start, goal) = (Pos::new(0, 1), Pos::new(5, 1));
    let mut context = SearchContext::new();
    for diagonal in Diagonal::ALL {
        let astar = context
            .search(&grid, start, goal, &SearchOptions::with_diagonal(diagonal))
            .unwrap();
        let jps = context
            .search(
                &grid,
                start,
                goal,
                &SearchOptions {
                    algorithm: Algorithm::JumpPoint,
                    ..SearchOptions::with_diagonal(diagonal)
                },
            )
            .unwrap();
        assert_eq!(astar, jps, "{diagonal:?}");
    }
}
