//! Property tests on random weighted grids in every diagonal mode, against an independent
//! Dijkstra and BFS written here: optimal costs, legal paths, fewest steps, ranges,
//! connectivity after edits.

use std::collections::{BTreeSet, VecDeque};
use std::f64::consts::SQRT_2;

use proptest::prelude::*;
use tilewalk_path::{Algorithm, Diagonal, Grid, Pos, SearchContext, SearchOptions};

/// The legal steps from `a` in `mode`, with their costs.
fn steps(grid: &Grid, a: Pos, mode: Diagonal) -> Vec<(Pos, f64)> {
    let mut out = Vec::new();
    for dy in -1i64..=1 {
        for dx in -1i64..=1 {
            let (x, y) = (i64::from(a.x) + dx, i64::from(a.y) + dy);
            if (dx, dy) == (0, 0) || x < 0 || y < 0 {
                continue;
            }
            let b = Pos::new(x as u32, y as u32);
            let Some(cost) = grid.cost(b) else { continue };
            if dx != 0 && dy != 0 {
                let sides = (
                    grid.is_passable(Pos::new(b.x, a.y)),
                    grid.is_passable(Pos::new(a.x, b.y)),
                );
                let allowed = match mode {
                    Diagonal::Never => false,
                    Diagonal::NoObstacles => sides.0 && sides.1,
                    Diagonal::AtMostOneObstacle => sides.0 || sides.1,
                    Diagonal::Always => true,
                };
                if !allowed {
                    continue;
                }
                out.push((b, cost * SQRT_2));
            } else {
                out.push((b, cost));
            }
        }
    }
    out
}

/// Cheapest cost from `start` to every cell (O(n²) Dijkstra, no heap).
fn reference(grid: &Grid, start: Pos, mode: Diagonal) -> Vec<f64> {
    let (w, h) = (grid.width(), grid.height());
    let index = |p: Pos| (p.y * w + p.x) as usize;
    let mut dist = vec![f64::INFINITY; (w * h) as usize];
    let mut done = vec![false; dist.len()];
    dist[index(start)] = 0.0;
    while let Some(i) = (0..dist.len())
        .filter(|&i| !done[i] && dist[i].is_finite())
        .min_by(|&a, &b| dist[a].total_cmp(&dist[b]))
    {
        done[i] = true;
        let a = Pos::new(i as u32 % w, i as u32 / w);
        for (b, c) in steps(grid, a, mode) {
            dist[index(b)] = dist[index(b)].min(dist[i] + c);
        }
    }
    dist
}

fn fewest_steps(grid: &Grid, start: Pos, goal: Pos, mode: Diagonal) -> Option<usize> {
    let mut seen = BTreeSet::from([start]);
    let mut queue = VecDeque::from([(start, 0)]);
    while let Some((a, n)) = queue.pop_front() {
        if a == goal {
            return Some(n);
        }
        for (b, _) in steps(grid, a, mode) {
            if seen.insert(b) {
                queue.push_back((b, n + 1));
            }
        }
    }
    None
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

proptest! {
    #![proptest_config(ProptestConfig { cases: 200, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn searches_agree_with_the_reference((grid, start, goal) in grid_strategy(), weight in 1.0f64..2.0, budget in 0.0f64..8.0) {
        let mut context = SearchContext::new();
        for mode in Diagonal::ALL {
            let dist = reference(&grid, start, mode);
            let optimal = dist[(goal.y * grid.width() + goal.x) as usize];
            for algorithm in Algorithm::ALL {
                let options = SearchOptions { algorithm, diagonal: mode, ..SearchOptions::default() };
                let found = context.search(&grid, start, goal, &options);
                prop_assert_eq!(found.is_ok(), optimal.is_finite(), "{:?} {:?}", algorithm, mode);
                let Ok(found) = found else { continue };
                let cells = &found.path.cells;
                prop_assert_eq!(cells[0], start);
                prop_assert_eq!(cells[cells.len() - 1], goal);
                let mut sum = 0.0;
                for pair in cells.windows(2) {
                    let step = steps(&grid, pair[0], mode).into_iter().find(|(b, _)| *b == pair[1]);
                    prop_assert!(step.is_some(), "{:?} {:?}: illegal step {:?} -> {:?}", algorithm, mode, pair[0], pair[1]);
                    sum += step.map_or(0.0, |s| s.1);
                }
                prop_assert!((sum - found.path.cost).abs() < 1e-9, "cost is the sum of the steps");
                match algorithm {
                    Algorithm::AStar | Algorithm::Dijkstra | Algorithm::JumpPoint => prop_assert!((found.path.cost - optimal).abs() < 1e-9, "{:?} {:?}: {} vs {}", algorithm, mode, found.path.cost, optimal),
                    Algorithm::Bfs => prop_assert_eq!(Some(cells.len() - 1), fewest_steps(&grid, start, goal, mode)),
                    Algorithm::BestFirst | Algorithm::Dfs => prop_assert!(found.path.cost >= optimal - 1e-9),
                }
            }
            let weighted = context.search(&grid, start, goal, &SearchOptions { weight, diagonal: mode, ..SearchOptions::default() });
            if let Ok(weighted) = weighted {
                prop_assert!(weighted.path.cost <= weight * optimal + 1e-9, "weighted A* is bounded");
            }
            let range = context.range(&grid, start, budget, mode).unwrap();
            let expected: BTreeSet<Pos> = (0..grid.height()).flat_map(|y| (0..grid.width()).map(move |x| Pos::new(x, y))).filter(|p| dist[(p.y * grid.width() + p.x) as usize] <= budget + 1e-9).collect();
            let got: BTreeSet<Pos> = range.cells().iter().map(|r| r.pos).collect();
            prop_assert_eq!(&got, &expected);
            for r in range.cells() {
                prop_assert!((r.cost - dist[(r.pos.y * grid.width() + r.pos.x) as usize]).abs() < 1e-9);
                let path = range.path_to(r.pos).unwrap();
                let sum: f64 = path.cells.windows(2).map(|p| steps(&grid, p[0], mode).into_iter().find(|(b, _)| *b == p[1]).map_or(f64::NAN, |s| s.1)).sum();
                prop_assert!((sum - r.cost).abs() < 1e-9);
            }
        }
    }

    #[test]
    fn connectivity_follows_edits((mut grid, start, _goal) in grid_strategy(), edits in prop::collection::vec((0u32..10, 0u32..10, prop::bool::ANY), 0..30)) {
        for (x, y, open) in edits {
            let p = Pos::new(x % grid.width(), y % grid.height());
            grid.set_cost(p, open.then_some(1.0)).unwrap();
        }
        for mode in Diagonal::ALL {
            let dist = reference(&grid, start, mode);
            for y in 0..grid.height() {
                for x in 0..grid.width() {
                    let p = Pos::new(x, y);
                    let reachable = grid.is_passable(start) && dist[(y * grid.width() + x) as usize].is_finite();
                    prop_assert_eq!(grid.connected(start, p, mode), reachable, "{:?} {:?}", mode, p);
                }
            }
        }
    }
}
