//! Route fields filled toward the units: the boxes around their starts that guide a field
//! ([`Toward`]), and the bound a wave keeps beyond a field ([`Beyond`]).

use super::member::*;
use crate::board::Board;
use crate::grid::Grid;
use crate::moves::Heuristic;
use crate::pos::Pos;

/// Where a route field is filled toward: the boxes around its members' starts. Its value
/// at a cell, the board's step distance from the nearest box at the grid's cheapest cost, is
/// no more than any member's walk to the cell costs, and a step changes it by no more than
/// the step costs, so the field can settle its cells in the order of an A* search from the
/// tiles to the members ([`CostField::fill_toward`]). The members are split into boxes at
/// the widest stretches of columns or rows that none of them stands in (two armies at both
/// ends of the map get a box each), up to [`TOWARD_BOXES`]. When the members stand in one
/// corner of the map (a squad sent across it) that leaves out most of the cells a field
/// stopped at their starts would settle; when they stand all around the tiles it changes
/// nothing.
#[derive(Clone, Copy, Debug)]
pub(super) struct Toward {
    /// `(min, max)` corners; the first `count` are used.
    pub(super) boxes: [(Pos, Pos); TOWARD_BOXES],
    pub(super) count: usize,
    pub(super) heuristic: Heuristic,
    pub(super) scale: f64,
}

/// The most boxes a [`Toward`] splits its members into: each costs a little on every cell a
/// field reaches.
pub(super) const TOWARD_BOXES: usize = 4;

/// Members are split into two boxes only where more than this many columns (or rows) in a
/// row hold none of them.
pub(super) const TOWARD_GAP: u32 = 16;

impl Toward {
    pub(super) fn new(grid: &Grid, board: Board, members: &[Member]) -> Self {
        let mut groups: Vec<Vec<Pos>> = vec![members.iter().map(|m| grid.pos(m.start)).collect()];
        let coordinate = |p: &Pos, along_x: bool| if along_x { p.x } else { p.y };
        while groups.len() < TOWARD_BOXES {
            // The widest gap in any group, along either axis: (gap, group, axis, where the
            // far side starts); the first of equals.
            let mut widest: Option<(u32, usize, bool, u32)> = None;
            for (i, group) in groups.iter().enumerate() {
                for along_x in [true, false] {
                    let mut values: Vec<u32> =
                        group.iter().map(|p| coordinate(p, along_x)).collect();
                    values.sort_unstable();
                    values.dedup();
                    for pair in values.windows(2) {
                        let gap = pair[1] - pair[0] - 1;
                        if gap > TOWARD_GAP && widest.is_none_or(|w| gap > w.0) {
                            widest = Some((gap, i, along_x, pair[1]));
                        }
                    }
                }
            }
            let Some((_, i, along_x, split)) = widest else {
                break;
            };
            let (far, near) = groups[i]
                .iter()
                .partition(|p| coordinate(p, along_x) >= split);
            groups[i] = near;
            groups.push(far);
        }
        let mut boxes = [(Pos::new(u32::MAX, u32::MAX), Pos::new(0, 0)); TOWARD_BOXES];
        for (group, (min, max)) in groups.iter().zip(&mut boxes) {
            for p in group {
                (min.x, min.y) = (min.x.min(p.x), min.y.min(p.y));
                (max.x, max.y) = (max.x.max(p.x), max.y.max(p.y));
            }
        }
        // A hex step changes a column and a row by at most one each.
        let heuristic = match board {
            Board::Square(_) => Heuristic::tightest_for(board),
            Board::Hex(_) => Heuristic::Chebyshev,
        };
        Self {
            boxes,
            count: groups.len(),
            heuristic,
            scale: grid.min_cost().unwrap_or(1.0),
        }
    }

    #[inline]
    pub(super) fn at(&self, pos: Pos) -> f64 {
        let nearest = self.boxes[..self.count]
            .iter()
            .map(|(min, max)| {
                let dx = (min.x.saturating_sub(pos.x)).max(pos.x.saturating_sub(max.x));
                let dy = (min.y.saturating_sub(pos.y)).max(pos.y.saturating_sub(max.y));
                self.heuristic.distance(dx, dy)
            })
            .fold(f64::INFINITY, f64::min);
        self.scale * nearest
    }
}

/// What a route field filled [`Toward`] its members knows of the cells it did not settle:
/// each costs at least the last settled cell's cost plus guide, less its own guide (and
/// at least 0). That is a lower bound that grows by no more than a step costs, and no more
/// than the settled cells' costs, so the waves can be guided by it off the field.
#[derive(Clone, Copy, Debug)]
pub(super) struct Beyond {
    pub(super) last: f64,
    pub(super) toward: Toward,
}

impl Beyond {
    #[inline]
    pub(super) fn at(&self, pos: Pos) -> f64 {
        (self.last - self.toward.at(pos)).max(0.0)
    }
}
