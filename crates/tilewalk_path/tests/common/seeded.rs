//! What the exact searches' tests share: the reference's optimum, the check of a found
//! path against it, weighted maps and start-goal pairs from seeds, and proptest's random
//! grids and edits.

use proptest::prelude::*;
use tilewalk_path::{Board, CellPath, Grid, Passage, Pos};

use super::common::steps;
use super::reference::{at, dijkstra};

/// The optimal cost from `start` to `goal` by the reference Dijkstra.
fn optimum(grid: &Grid, start: Pos, goal: Pos, board: Board) -> Option<f64> {
    if !grid.is_passable(start) || !grid.is_passable(goal) {
        return None;
    }
    let cost = dijkstra(grid, start, board, &|_| Passage::Open)[at(grid, goal)];
    cost.is_finite().then_some(cost)
}

/// Checks what a search `name` found (`None`: no path) against the reference: the same cost
/// (or both no path), and a path of legal steps from start to goal that costs what it says.
pub fn check_found(
    grid: &Grid,
    board: Board,
    (start, goal): (Pos, Pos),
    found: Option<&CellPath>,
    name: &str,
) -> Result<(), String> {
    let expected = optimum(grid, start, goal, board);
    match (found, expected) {
        (Some(path), Some(cost)) => {
            let cells = &path.cells;
            if cells.first() != Some(&start) || cells.last() != Some(&goal) {
                return Err(format!("{start} to {goal}: path {cells:?}"));
            }
            let mut walked = 0.0;
            for pair in cells.windows(2) {
                let Some((_, c)) = steps(grid, pair[0], board)
                    .into_iter()
                    .find(|(b, _)| *b == pair[1])
                else {
                    return Err(format!("{} to {} is no step on {board}", pair[0], pair[1]));
                };
                walked += c;
            }
            let tolerance = 1e-9 * cost.max(1.0);
            if (path.cost - cost).abs() > tolerance || (walked - cost).abs() > tolerance {
                return Err(format!(
                    "{start} to {goal} on {board}: {name} {} (walked {walked}), Dijkstra {cost}",
                    path.cost
                ));
            }
            Ok(())
        }
        (None, None) => Ok(()),
        (found, expected) => Err(format!(
            "{start} to {goal} on {board}: {name} {:?}, Dijkstra {expected:?}",
            found.map(|p| p.cost)
        )),
    }
}

/// A weighted map of hills, forests and lakes from a seed: costs 1 to 8, about a tenth
/// impassable, in blobs (value noise on an 8-cell lattice).
pub fn weighted(width: u32, height: u32, seed: u64) -> Grid {
    let hash = |x: u32, y: u32| {
        let mut h = seed ^ (u64::from(x) << 32 | u64::from(y)).wrapping_mul(0x9e37_79b9_7f4a_7c15);
        h ^= h >> 29;
        h = h.wrapping_mul(0xbf58_476d_1ce4_e5b9);
        h ^= h >> 32;
        (h % 1000) as f64 / 1000.0
    };
    let noise = |p: Pos| {
        let (gx, gy) = (p.x / 8, p.y / 8);
        let (fx, fy) = (f64::from(p.x % 8) / 8.0, f64::from(p.y % 8) / 8.0);
        let top = hash(gx, gy) * (1.0 - fx) + hash(gx + 1, gy) * fx;
        let bottom = hash(gx, gy + 1) * (1.0 - fx) + hash(gx + 1, gy + 1) * fx;
        top * (1.0 - fy) + bottom * fy
    };
    Grid::from_fn(width, height, |p| {
        let n = noise(p);
        (n < 0.85).then(|| 1.0 + (n * 8.0).floor().min(7.0) + hash(p.x, p.y + 7777) * 0.5)
    })
    .unwrap()
}

/// Random starts and goals on `grid` from a seed.
pub fn pairs(grid: &Grid, seed: u64, count: usize) -> Vec<(Pos, Pos)> {
    let mut state = seed | 1;
    let mut next = |n: u32| {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        (state % u64::from(n)) as u32
    };
    (0..count)
        .map(|_| {
            let (w, h) = (grid.width(), grid.height());
            let a = Pos::new(next(w), next(h));
            let b = Pos::new(next(w), next(h));
            (a, b)
        })
        .collect()
}

/// A random grid of 1 to 12 cells a side (costs from 0.5 to 7.25, about a fifth impassable)
/// with a start and a goal on it; with `open_ends`, those two are passable (cost 1).
pub fn grid_strategy(open_ends: bool) -> impl Strategy<Value = (Grid, Pos, Pos)> {
    (1u32..=12, 1u32..=12).prop_flat_map(move |(w, h)| {
        let cell = prop_oneof![3 => Just(Some(1.0)), 1 => Just(Some(1.5)), 1 => Just(Some(2.0)), 1 => Just(Some(3.0)), 1 => Just(Some(0.5)), 1 => Just(Some(7.25)), 2 => Just(None)];
        (prop::collection::vec(cell, (w * h) as usize), 0..w, 0..h, 0..w, 0..h).prop_map(
            move |(cells, sx, sy, gx, gy)| {
                let (start, goal) = (Pos::new(sx, sy), Pos::new(gx, gy));
                let grid = Grid::from_fn(w, h, |p| match open_ends && (p == start || p == goal) {
                    true => Some(1.0),
                    false => cells[(p.y * w + p.x) as usize],
                })
                .unwrap();
                (grid, start, goal)
            },
        )
    })
}

/// A random edit: a cell and its new cost (`None`: impassable).
pub fn edits_strategy() -> impl Strategy<Value = Vec<(u32, u32, Option<f64>)>> {
    let cost = prop_oneof![2 => Just(None), 1 => Just(Some(0.5)), 2 => Just(Some(1.0)), 2 => Just(Some(4.0))];
    prop::collection::vec((0u32..12, 0u32..12, cost), 0..12)
}
