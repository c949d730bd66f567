//! Where a walker stops when sent to a tile it cannot reach ([`Grid::stop_near`]).

use crate::board::Board;
use crate::field::{CostField, FieldOptions};
use crate::grid::{Grid, MIN_COST};
use crate::pos::Pos;
use crate::search::SearchContext;

/// How much further from an unreachable goal than the nearest reachable tile a tile may be
/// and still be where the walker stops, if cheaper to reach ([`Grid::stop_near`]), in tiles.
pub const STOP_NEAR_SLACK: f64 = 1.5;

impl Grid {
    /// Where a walker on `from` stops when sent to `to`, which it cannot reach: of the cells
    /// `accept` takes (those it can reach), the one nearest `to` in a straight line
    /// ([`Grid::nearest`]) and every one at most [`STOP_NEAR_SLACK`] tiles further from
    /// `to` are the candidates; of those, the ones cheapest to walk to from `from` on `board`
    /// (within [`STOP_NEAR_SLACK`] steps of the grid's cheapest cell of the cheapest) are
    /// weighed, and the one nearest `to` wins (of equally near ones, the cheaper, then the
    /// first in row order). So a click
    /// on a river one tile from the far bank and two from the walker's own stops it on its
    /// own bank, not round by a distant ford; and a walker next to the nearest tile steps
    /// onto it rather than stopping where it stands. `None` when `accept` takes no cell.
    ///
    /// ```
    /// use tilewalk_path::{Board, Grid, Pos};
    ///
    /// // A river in columns 3 and 4 with a ford on the bottom row.
    /// let grid = Grid::from_fn(8, 6, |p| (!(3..=4).contains(&p.x) || p.y == 5).then_some(1.0))
    ///     .unwrap();
    /// let (walker, click) = (Pos::new(7, 0), Pos::new(3, 0));
    /// let dry = |p: Pos| grid.is_passable(p);
    /// // (2,0) is the nearest dry tile to the click, but across the river: (5,0) is one
    /// // tile further and two steps away.
    /// assert_eq!(grid.nearest(click, walker, dry), Some(Pos::new(2, 0)));
    /// assert_eq!(grid.stop_near(click, walker, Board::default(), dry), Some(Pos::new(5, 0)));
    /// ```
    pub fn stop_near(
        &self,
        to: Pos,
        from: Pos,
        board: Board,
        accept: impl Fn(Pos) -> bool,
    ) -> Option<Pos> {
        let nearest = self.nearest(to, from, &accept)?;
        if !self.is_passable(from) {
            return Some(nearest);
        }
        let squared = |p: Pos| {
            let (dx, dy) = (
                i64::from(p.x) - i64::from(to.x),
                i64::from(p.y) - i64::from(to.y),
            );
            dx * dx + dy * dy
        };
        // No cell nearer `to` than `nearest` is taken: the candidates lie in the ring
        // between its distance and the limit.
        let inner = squared(nearest);
        let limit = (inner as f64).sqrt() + STOP_NEAR_SLACK;
        let reach = limit.floor() as i64;
        let limit = limit * limit;
        let mut candidates = Vec::new();
        for dy in -reach..=reach {
            let outer = (limit - (dy * dy) as f64).max(0.0).sqrt().floor() as i64;
            let near = inner - dy * dy;
            let near = if near > 0 {
                (near as f64).sqrt().ceil() as i64
            } else {
                0
            };
            let columns = (-outer..=-near.max(1)).chain(near.max(1)..=outer);
            let columns = columns.chain((near == 0 && outer >= 0).then_some(0));
            for dx in columns {
                let (x, y) = (i64::from(to.x) + dx, i64::from(to.y) + dy);
                let (Ok(x), Ok(y)) = (u32::try_from(x), u32::try_from(y)) else {
                    continue;
                };
                let p = Pos::new(x, y);
                if self.contains(p) && accept(p) {
                    candidates.push(p);
                }
            }
        }
        if candidates.len() < 2 {
            return Some(nearest);
        }
        let mut field = CostField::new();
        let built = field.build_until(self, &candidates, &FieldOptions::on(board), |p, _| {
            p == from
        });
        let Some(cheapest) = built.ok().and_then(|_| field.cost(from)) else {
            return Some(nearest);
        };
        // Of the candidates within one weighed step of the cheapest, the nearest to `to`
        // (then the cheaper): a diagonal step that ends a tile nearer the click is worth
        // taking, and standing still is no stop when a step brings the walker nearer.
        // A tile exactly a step and a half dearer is within it, whatever the rounding.
        let slack = cheapest + STOP_NEAR_SLACK * self.min_cost().unwrap_or(MIN_COST);
        let slack = slack + 1e-9 * slack.max(1.0);
        let Ok(range) = SearchContext::new().range(self, from, slack, board) else {
            return field.goal(from).or(Some(nearest));
        };
        candidates
            .iter()
            .filter_map(|&p| range.cost(p).map(|cost| (squared(p), cost, p)))
            .min_by(|a, b| {
                let row_order = |p: Pos| (p.y, p.x);
                (a.0.cmp(&b.0).then(a.1.total_cmp(&b.1))).then(row_order(a.2).cmp(&row_order(b.2)))
            })
            .map(|(_, _, p)| p)
            .or_else(|| field.goal(from))
            .or(Some(nearest))
    }
}
