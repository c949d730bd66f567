//! Customizable contraction hierarchies (`Cch`) against an independent Dijkstra
//! (`common/reference.rs`): optimal costs and legal paths on every board, with impassable
//! cells, on random weighted maps from seeds, and after terrain edits re-customized in part
//! (checked against the reference and against a full customization of the edited grid).

mod common;
#[path = "common/reference.rs"]
mod reference;
#[path = "common/seeded.rs"]
mod seeded;

use proptest::prelude::*;
use seeded::{check_found, edits_strategy, grid_strategy, pairs, weighted};
use tilewalk_path::{
    Board, Cch, CchError, CchMetric, CchQuery, Grid, NoPath, Pos, SearchContext, SearchOptions,
};

/// Checks one query against the reference ([`check_found`]); an error other than no path
/// is a failure.
fn check(grid: &Grid, cch: &Cch, metric: &CchMetric, start: Pos, goal: Pos) -> Result<(), String> {
    let path = match CchQuery::new().path(cch, metric, grid, start, goal) {
        Ok(path) => Some(path),
        Err(CchError::NoPath(_)) => None,
        Err(error) => return Err(format!("{start} to {goal}: {error}")),
    };
    check_found(grid, cch.board(), (start, goal), path.as_ref(), "CCH")
}

#[test]
fn optimal_on_weighted_maps_on_every_board() {
    for seed in 1..=3 {
        let grid = weighted(37, 29, seed);
        for board in Board::ALL {
            let cch = Cch::new(37, 29, board).unwrap();
            let metric = cch.customize(&grid).unwrap();
            for (start, goal) in pairs(&grid, seed * 31 + 7, 40) {
                check(&grid, &cch, &metric, start, goal).unwrap();
            }
        }
    }
}

#[test]
fn same_cost_as_a_star_on_a_larger_map_with_walls() {
    let grid = weighted(160, 120, 11);
    for board in [Board::default(), "hex-odd-q".parse().unwrap()] {
        let cch = Cch::new(160, 120, board).unwrap();
        let metric = cch.customize(&grid).unwrap();
        let mut query = CchQuery::new();
        let mut context = SearchContext::new();
        let mut answered = 0;
        for (start, goal) in pairs(&grid, 5, 200) {
            let astar = context.search(&grid, start, goal, &SearchOptions::on(board));
            let found = query.path(&cch, &metric, &grid, start, goal);
            match (astar, found) {
                (Ok(astar), Ok(path)) => {
                    answered += 1;
                    let cost = astar.path.cost;
                    assert!((path.cost - cost).abs() <= 1e-9 * cost, "{start} {goal}");
                }
                (Err(_), Err(_)) => {}
                (astar, found) => panic!("{start} to {goal}: A* {astar:?}, CCH {found:?}"),
            }
        }
        assert!(answered > 100, "{answered} queries had a path");
    }
}

#[test]
fn a_painted_band_re_customized_in_part_equals_a_full_customization() {
    for board in Board::ALL {
        let mut grid = weighted(48, 40, 3);
        let cch = Cch::new(48, 40, board).unwrap();
        let mut metric = cch.customize(&grid).unwrap();
        let queries = pairs(&grid, 77, 30);
        // A road across the map, then a wall with one gap, then the road flooded.
        let road: Vec<Pos> = (0..48).map(|x| Pos::new(x, 20)).collect();
        for &p in &road {
            grid.set_cost(p, Some(0.5)).unwrap();
        }
        assert!(metric.recustomize(&cch, &grid, &road).unwrap() > 0);
        for &(start, goal) in &queries {
            check(&grid, &cch, &metric, start, goal).unwrap();
        }
        let wall: Vec<Pos> = (0..40)
            .filter(|&y| y != 7)
            .map(|y| Pos::new(30, y))
            .collect();
        for &p in &wall {
            grid.set_cost(p, None).unwrap();
        }
        metric.recustomize(&cch, &grid, &wall).unwrap();
        for &(start, goal) in &queries {
            check(&grid, &cch, &metric, start, goal).unwrap();
        }
        let mut query = CchQuery::new();
        let full = cch.customize(&grid).unwrap();
        for &(start, goal) in &queries {
            let a = query.path(&cch, &metric, &grid, start, goal);
            let b = query.path(&cch, &full, &grid, start, goal);
            assert_eq!(a, b, "{board}: {start} to {goal}");
        }
        // Nothing changed: nothing to do.
        assert_eq!(metric.recustomize(&cch, &grid, &wall).unwrap(), 0);
    }
}

#[test]
fn refuses_what_a_search_refuses_and_other_sizes() {
    // Two islands.
    let islands = Grid::from_fn(9, 3, |p| (p.x != 4).then_some(1.0)).unwrap();
    let cch = Cch::new(9, 3, Board::default()).unwrap();
    let metric = cch.customize(&islands).unwrap();
    let mut query = CchQuery::new();
    let (a, b) = (Pos::new(0, 0), Pos::new(8, 2));
    assert_eq!(
        query.path(&cch, &metric, &islands, a, b),
        Err(CchError::NoPath(NoPath::DifferentRegions))
    );
    assert_eq!(
        query.path(&cch, &metric, &islands, a, Pos::new(4, 1)),
        Err(CchError::NoPath(NoPath::GoalBlocked(Pos::new(4, 1))))
    );
    assert!(matches!(
        query.path(&cch, &metric, &islands, Pos::new(9, 0), b),
        Err(CchError::NoPath(NoPath::StartOutside { .. }))
    ));
    let same = query.path(&cch, &metric, &islands, a, a).unwrap();
    assert_eq!((same.cells, same.cost), (vec![a], 0.0));
    assert_eq!(
        Cch::new(70_000, 70_000, Board::default())
            .unwrap_err()
            .to_string(),
        "a 70000x70000 map contracts to 9799860000 arcs or more, more than a hierarchy can number"
    );
    let four_way = Cch::new(9, 3, Board::Square(tilewalk_path::Diagonal::Never)).unwrap();
    assert!(matches!(
        query.path(&four_way, &metric, &islands, a, b),
        Err(CchError::OtherHierarchy { .. })
    ));
    let other = Grid::new(10, 3).unwrap();
    assert_eq!(
        cch.customize(&other).unwrap_err().to_string(),
        "the hierarchy was built for a 9x3 map, not 10x3"
    );
    // A grid edited without re-customizing: the weights are refused, not trusted.
    let mut bridged = islands.clone();
    bridged.set_cost(Pos::new(4, 1), Some(1.0)).unwrap();
    let mut stale_metric = cch.customize(&bridged).unwrap();
    assert!(query.path(&cch, &stale_metric, &bridged, a, b).is_ok());
    assert_eq!(
        query.path(&cch, &stale_metric, &islands, a, b),
        Err(CchError::Stale)
    );
    assert!(matches!(
        stale_metric.recustomize(&cch, &islands, &[Pos::new(9, 9)]),
        Err(CchError::EditOutside { .. })
    ));
    stale_metric
        .recustomize(&cch, &islands, &[Pos::new(4, 1)])
        .unwrap();
    assert_eq!(
        query.path(&cch, &stale_metric, &islands, a, b),
        Err(CchError::NoPath(NoPath::DifferentRegions))
    );
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn costs_equal_dijkstra_on_every_board((grid, start, goal) in grid_strategy(false)) {
        for board in Board::ALL {
            let cch = Cch::new(grid.width(), grid.height(), board).unwrap();
            let metric = cch.customize(&grid).unwrap();
            check(&grid, &cch, &metric, start, goal).map_err(TestCaseError::fail)?;
        }
    }

    #[test]
    fn costs_equal_dijkstra_after_edits_re_customized(
        (grid, start, goal) in grid_strategy(false),
        edits in edits_strategy(),
        one_by_one in any::<bool>(),
    ) {
        for board in Board::ALL {
            let mut grid = grid.clone();
            let cch = Cch::new(grid.width(), grid.height(), board).unwrap();
            let mut metric = cch.customize(&grid).unwrap();
            let mut edited = Vec::new();
            for &(x, y, cost) in &edits {
                let p = Pos::new(x, y);
                if !grid.contains(p) {
                    continue;
                }
                grid.set_cost(p, cost).unwrap();
                if one_by_one {
                    metric.recustomize(&cch, &grid, &[p]).unwrap();
                } else {
                    edited.push(p);
                }
            }
            metric.recustomize(&cch, &grid, &edited).unwrap();
            check(&grid, &cch, &metric, start, goal).map_err(TestCaseError::fail)?;
        }
    }
}

#[test]
fn a_query_counts_the_arcs_it_scans() {
    let grid = weighted(48, 40, 5);
    let cch = Cch::new(48, 40, Board::default()).unwrap();
    let metric = cch.customize(&grid).unwrap();
    let mut query = CchQuery::new();
    let mut counts = Vec::new();
    for (start, goal) in pairs(&grid, 11, 10) {
        let Ok(path) = query.path(&cch, &metric, &grid, start, goal) else {
            continue;
        };
        let scanned = query.scanned();
        // Unpacking alone looks at each arc of the path: at least one a step. Each walk up
        // the tree scans a cell's arcs at most once: at most all the arcs twice.
        assert!(
            scanned >= path.cells.len() - 1,
            "{scanned} for {start} to {goal}"
        );
        assert!(scanned <= 2 * cch.arcs() + 2 * cch.arcs(), "{scanned}");
        // The same query scans the same arcs.
        query.path(&cch, &metric, &grid, start, goal).unwrap();
        assert_eq!(query.scanned(), scanned);
        counts.push(scanned);
    }
    assert!(counts.len() >= 5, "{counts:?}");
    // A query refused before it walks scans nothing.
    let outside = Pos::new(48, 0);
    assert!(
        query
            .path(&cch, &metric, &grid, outside, Pos::new(0, 0))
            .is_err()
    );
    assert_eq!(query.scanned(), 0);
}
