//! Property tests on random weighted grids on every board (square-4, the three 8-way rules,
//! the four hex layouts; widths and heights both even and odd), against an independent
//! Dijkstra (`common/reference.rs`), BFS and flood fill: optimal costs (A*, Dijkstra, jump
//! points, and bidirectional A* and Dijkstra, with passage rules too), legal paths, fewest
//! steps, ranges, searches around blocked cells, connectivity after edits.

mod common;
#[path = "common/reference.rs"]
mod reference;

use std::collections::{BTreeSet, VecDeque};

use common::steps;
use proptest::prelude::*;
use reference::{at, dijkstra};
use tilewalk_path::{
    Algorithm, Board, Grid, Heuristic, NoPath, Passage, Pos, SearchContext, SearchOptions,
};

fn fewest_steps(grid: &Grid, start: Pos, goal: Pos, board: Board) -> Option<usize> {
    let mut seen = BTreeSet::from([start]);
    let mut queue = VecDeque::from([(start, 0)]);
    while let Some((a, n)) = queue.pop_front() {
        if a == goal {
            return Some(n);
        }
        for (b, _) in steps(grid, a, board) {
            if seen.insert(b) {
                queue.push_back((b, n + 1));
            }
        }
    }
    None
}

/// The cells connected to `start` (none when it is impassable), by a depth-first fill.
fn flood(grid: &Grid, start: Pos, board: Board) -> BTreeSet<Pos> {
    let mut seen = BTreeSet::new();
    let mut stack = Vec::new();
    if grid.is_passable(start) {
        stack.push(start);
        seen.insert(start);
    }
    while let Some(a) = stack.pop() {
        for (b, _) in steps(grid, a, board) {
            if seen.insert(b) {
                stack.push(b);
            }
        }
    }
    seen
}

/// The cost of `cells` as a walk of legal steps, `None` if a step is illegal.
fn walk_cost(grid: &Grid, cells: &[Pos], board: Board) -> Option<f64> {
    cells.windows(2).try_fold(0.0, |sum, pair| {
        let step = steps(grid, pair[0], board)
            .into_iter()
            .find(|(b, _)| *b == pair[1])?;
        Some(sum + step.1)
    })
}

fn grid_strategy() -> impl Strategy<Value = (Grid, Pos, Pos)> {
    (1u32..=10, 1u32..=10).prop_flat_map(|(w, h)| {
        let cell = prop_oneof![3 => Just(Some(1.0)), 1 => Just(Some(1.5)), 1 => Just(Some(2.0)), 1 => Just(Some(3.0)), 1 => Just(Some(0.5)), 2 => Just(None)];
        (prop::collection::vec(cell, (w * h) as usize), 0..w, 0..h, 0..w, 0..h).prop_map(move |(cells, sx, sy, gx, gy)| {
            let (start, goal) = (Pos::new(sx, sy), Pos::new(gx, gy));
            let grid = Grid::from_fn(w, h, |p| if p == start || p == goal { Some(1.0) } else { cells[(p.y * w + p.x) as usize] }).unwrap();
            (grid, start, goal)
        })
    })
}

fn passage_strategy() -> impl Strategy<Value = Vec<Passage>> {
    let passage = prop_oneof![
        8 => Just(Passage::Open),
        1 => Just(Passage::PassOnly),
        2 => Just(Passage::Blocked),
        1 => Just(Passage::EndsMove),
        1 => Just(Passage::TakesAllPoints),
    ];
    prop::collection::vec(passage, 100)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 200, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn a_walker_stops_on_a_tile_near_a_goal_it_cannot_reach_and_cheap_to_reach((grid, start, goal) in grid_strategy()) {
        for board in Board::ALL {
            let dist = dijkstra(&grid, start, board, &|_| Passage::Open);
            // The goal and its row are out of reach: as if the walker could not enter them.
            let reachable = |p: Pos| dist[at(&grid, p)].is_finite() && p.y != goal.y;
            let stop = grid.stop_near(goal, start, board, reachable);
            let squared = |p: Pos| f64::from(p.x.abs_diff(goal.x).pow(2) + p.y.abs_diff(goal.y).pow(2));
            // Independently: every reachable tile by its distance; of those within the slack
            // of the nearest, the ones within the slack's steps of the cheapest; of those,
            // the nearest to the goal.
            let nearest = grid.cells().filter(|&p| reachable(p)).map(|p| squared(p).sqrt()).min_by(f64::total_cmp);
            prop_assert_eq!(stop.is_some(), nearest.is_some(), "{}", board);
            let (Some(stop), Some(nearest)) = (stop, nearest) else { continue };
            prop_assert!(reachable(stop));
            let slack = tilewalk_path::STOP_NEAR_SLACK;
            let candidates: Vec<Pos> = grid.cells()
                .filter(|&p| reachable(p) && squared(p).sqrt() <= nearest + slack + 1e-9)
                .collect();
            let cheapest = candidates.iter().map(|&p| dist[at(&grid, p)]).min_by(f64::total_cmp).unwrap();
            let weighed = cheapest + slack * grid.min_cost().unwrap();
            prop_assert!(candidates.contains(&stop), "{} at {}", board, stop);
            prop_assert!(dist[at(&grid, stop)] <= weighed + 1e-9, "{}: {} costs {} vs {}", board, stop, dist[at(&grid, stop)], cheapest);
            let nearer = candidates.iter().find(|&&p| dist[at(&grid, p)] <= weighed - 1e-9 && squared(p) < squared(stop) - 1e-9);
            prop_assert!(nearer.is_none(), "{}: {:?} is nearer the goal than {}", board, nearer, stop);
        }
    }

    #[test]
    fn searches_agree_with_the_reference((grid, start, goal) in grid_strategy(), weight in 1.0f64..2.0, budget in 0.0f64..8.0) {
        let mut context = SearchContext::new();
        for board in Board::ALL {
            let dist = dijkstra(&grid, start, board, &|_| Passage::Open);
            let optimal = dist[at(&grid, goal)];
            for algorithm in Algorithm::ALL {
                let options = SearchOptions { algorithm, ..SearchOptions::on(board) };
                let found = context.search(&grid, start, goal, &options);
                if algorithm == Algorithm::JumpPoint && matches!(board, Board::Hex(_)) {
                    prop_assert_eq!(found, Err(NoPath::NeedsSquareBoard { option: "jump point search", board }));
                    continue;
                }
                prop_assert_eq!(found.is_ok(), optimal.is_finite(), "{:?} {}", algorithm, board);
                let Ok(found) = found else { continue };
                let cells = &found.path.cells;
                prop_assert_eq!(cells[0], start);
                prop_assert_eq!(cells[cells.len() - 1], goal);
                let sum = walk_cost(&grid, cells, board);
                prop_assert!(sum.is_some(), "{:?} {}: illegal step in {:?}", algorithm, board, cells);
                prop_assert!((sum.unwrap_or(f64::NAN) - found.path.cost).abs() < 1e-9, "cost is the sum of the steps");
                match algorithm {
                    Algorithm::AStar | Algorithm::Dijkstra | Algorithm::JumpPoint | Algorithm::Bidirectional | Algorithm::BidirectionalDijkstra => prop_assert!((found.path.cost - optimal).abs() < 1e-9, "{:?} {}: {} vs {}", algorithm, board, found.path.cost, optimal),
                    Algorithm::Bfs => prop_assert_eq!(Some(cells.len() - 1), fewest_steps(&grid, start, goal, board)),
                    Algorithm::BestFirst | Algorithm::Dfs => prop_assert!(found.path.cost >= optimal - 1e-9),
                }
            }
            // The heuristics that never overestimate on the board keep A* optimal.
            let admissible: &[Heuristic] = match board {
                Board::Hex(_) => &[Heuristic::Hex, Heuristic::Euclidean, Heuristic::Chebyshev, Heuristic::Zero],
                Board::Square(_) => &[Heuristic::Euclidean, Heuristic::Chebyshev, Heuristic::Hex, Heuristic::Zero],
            };
            for &heuristic in admissible {
                let options = SearchOptions { heuristic: Some(heuristic), ..SearchOptions::on(board) };
                if let Ok(found) = context.search(&grid, start, goal, &options) {
                    prop_assert!((found.path.cost - optimal).abs() < 1e-9, "{:?} on {}: {} vs {}", heuristic, board, found.path.cost, optimal);
                }
            }
            let weighted = context.search(&grid, start, goal, &SearchOptions { weight, ..SearchOptions::on(board) });
            if let Ok(weighted) = weighted {
                prop_assert!(weighted.path.cost <= weight * optimal + 1e-9, "weighted A* is bounded");
            }
            // Bidirectional search ignores the weight, and stays optimal with every heuristic
            // that keeps A* optimal.
            for &heuristic in admissible {
                let options = SearchOptions { algorithm: Algorithm::Bidirectional, heuristic: Some(heuristic), weight, ..SearchOptions::on(board) };
                if let Ok(found) = context.search(&grid, start, goal, &options) {
                    prop_assert!((found.path.cost - optimal).abs() < 1e-9, "bidirectional {:?} on {}: {} vs {}", heuristic, board, found.path.cost, optimal);
                }
            }
            let range = context.range(&grid, start, budget, board).unwrap();
            let expected: BTreeSet<Pos> = grid.cells().filter(|&p| dist[at(&grid, p)] <= budget + 1e-9).collect();
            let got: BTreeSet<Pos> = range.cells().iter().map(|r| r.pos).collect();
            prop_assert_eq!(&got, &expected);
            for r in range.cells() {
                prop_assert!((r.cost - dist[at(&grid, r.pos)]).abs() < 1e-9);
                let path = range.path_to(r.pos).unwrap();
                let sum = walk_cost(&grid, &path.cells, board).unwrap_or(f64::NAN);
                prop_assert!((sum - r.cost).abs() < 1e-9);
            }
        }
    }

    #[test]
    fn searches_around_blocked_cells((grid, start, goal) in grid_strategy(), rules in passage_strategy()) {
        let passage = |p: Pos| rules[at(&grid, p)];
        let mut context = SearchContext::new();
        for board in Board::ALL {
            let dist = dijkstra(&grid, start, board, &passage);
            let optimal = dist[at(&grid, goal)];
            for algorithm in [Algorithm::AStar, Algorithm::Dijkstra, Algorithm::Bfs, Algorithm::Dfs, Algorithm::Bidirectional, Algorithm::BidirectionalDijkstra] {
                let options = SearchOptions { algorithm, ..SearchOptions::on(board) };
                let found = context.search_with(&grid, start, goal, &options, passage);
                if goal != start && passage(goal) == Passage::Blocked {
                    prop_assert_eq!(found, Err(NoPath::GoalBlocked(goal)));
                    continue;
                }
                if goal != start && passage(goal) == Passage::PassOnly {
                    prop_assert_eq!(found, Err(NoPath::GoalPassOnly(goal)));
                    continue;
                }
                prop_assert_eq!(found.is_ok(), optimal.is_finite(), "{:?} {}: {:?}", algorithm, board, found);
                let Ok(found) = found else { continue };
                let cells = &found.path.cells;
                prop_assert_eq!((cells[0], cells[cells.len() - 1]), (start, goal));
                let sum = walk_cost(&grid, cells, board).unwrap_or(f64::NAN);
                prop_assert!((sum - found.path.cost).abs() < 1e-9, "cost is the sum of the steps");
                for &p in cells.iter().skip(1).take(cells.len().saturating_sub(2)) {
                    prop_assert!(matches!(passage(p), Passage::Open | Passage::PassOnly), "{:?} {}: walked through {:?} ({:?})", algorithm, board, p, passage(p));
                }
                if matches!(algorithm, Algorithm::AStar | Algorithm::Dijkstra | Algorithm::Bidirectional | Algorithm::BidirectionalDijkstra) {
                    prop_assert!((found.path.cost - optimal).abs() < 1e-9, "{:?} {}: {} vs {}", algorithm, board, found.path.cost, optimal);
                }
            }
        }
    }

    #[test]
    fn connectivity_follows_edits((mut grid, start, _goal) in grid_strategy(), edits in prop::collection::vec((0u32..10, 0u32..10, prop::bool::ANY), 0..30), ask_first in prop::bool::ANY) {
        // Asking before the edits builds the hex labelings early, so that the edits must
        // repair them; asking only after builds them from the edited grid.
        if ask_first {
            for board in Board::ALL {
                grid.connected(start, start, board);
            }
        }
        for (x, y, open) in edits {
            let p = Pos::new(x % grid.width(), y % grid.height());
            grid.set_cost(p, open.then_some(1.0)).unwrap();
        }
        for board in Board::ALL {
            let reachable = flood(&grid, start, board);
            for p in grid.cells() {
                prop_assert_eq!(grid.connected(start, p, board), reachable.contains(&p), "{} {:?}", board, p);
            }
        }
    }
}
