//! The tests' reference search: a plain O(n²) Dijkstra over their own model of the boards
//! ([`steps`]), no heap, no crate code. Included by the tests that compare costs with it
//! (`#[path]`, so that the others do not compile it unused).

use tilewalk_path::{Board, Grid, Passage, Pos};

use crate::common::steps;

/// The index of `p` in a row-major vector of `grid`'s cells.
pub fn at(grid: &Grid, p: Pos) -> usize {
    (p.y * grid.width() + p.x) as usize
}

/// Cheapest cost from `start` to every cell (O(n²) Dijkstra, no heap) under a passage rule:
/// `Blocked` cells are never entered, and cells that end the move (other than the start)
/// are reached but not left.
pub fn dijkstra(
    grid: &Grid,
    start: Pos,
    board: Board,
    passage: &dyn Fn(Pos) -> Passage,
) -> Vec<f64> {
    let (w, h) = (grid.width(), grid.height());
    let mut dist = vec![f64::INFINITY; (w * h) as usize];
    let mut done = vec![false; dist.len()];
    dist[at(grid, start)] = 0.0;
    while let Some(i) = (0..dist.len())
        .filter(|&i| !done[i] && dist[i].is_finite())
        .min_by(|&a, &b| dist[a].total_cmp(&dist[b]))
    {
        done[i] = true;
        let a = Pos::new(i as u32 % w, i as u32 / w);
        if a != start && matches!(passage(a), Passage::EndsMove | Passage::TakesAllPoints) {
            continue;
        }
        for (b, c) in steps(grid, a, board) {
            if passage(b) != Passage::Blocked {
                dist[at(grid, b)] = dist[at(grid, b)].min(dist[i] + c);
            }
        }
    }
    dist
}
