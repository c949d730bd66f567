//! The weighted grid: flat cost storage with a blocked border, editable one cell at a time.

use std::f64::consts::SQRT_2;
use std::sync::OnceLock;

use crate::bits::BitLines;
use crate::board::Board;
use crate::connectivity::Components;
use crate::moves::{Diagonal, STEPS};
use crate::pos::Pos;

/// The smallest movement cost a passable cell may have.
///
/// Costs are bounded on both sides so that the searches can always order them. The open
/// list compares priorities with a relative precision of 2^-40 (`open_list.rs`): one
/// step of `MIN_COST` stays visible in any priority up to `MIN_COST × 2^40 ≈ 1.1e9`, and
/// the slack a movement budget allows for rounding (1e-9) is a millionth of it, so a budget
/// never admits an extra step. Below `MIN_COST` lie costs that vanish into the sums they
/// are added to (and subnormal numbers, which lose their precision).
pub const MIN_COST: f64 = 0.001;

/// The largest movement cost a passable cell may have.
///
/// The longest path on the largest grid (2^31 cells) costs at most `2^31 × √2 × MAX_COST ≈
/// 3.0e15`, below 2^53 ≈ 9.0e15: every sum a search forms stays finite, with room to spare
/// (where a cost like `1e308` summed to infinity), and `MAX_COST / MIN_COST = 1e9 < 2^30`
/// keeps the cheapest and the dearest step within the key's 40 bits of each other.
pub const MAX_COST: f64 = 1_000_000.0;

/// Why a grid could not be built or edited.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum GridError {
    /// A passable cell was given a cost outside [`MIN_COST`]`..=`[`MAX_COST`] (or NaN).
    #[error(
        "a movement cost must be between {MIN_COST} and {MAX_COST} (or the cell impassable), got {cost:?} at {pos}"
    )]
    BadCost {
        /// The cell.
        pos: Pos,
        /// The cost it was given.
        cost: f64,
    },
    /// [`Grid::set_cost`] was given a cell outside the grid.
    #[error("{pos} is outside the {width}x{height} grid")]
    OutOfBounds {
        /// The cell.
        pos: Pos,
        /// The grid's width.
        width: u32,
        /// The grid's height.
        height: u32,
    },
    /// The grid would have more than 2^31 cells, counting its one-cell blocked border.
    #[error("a {width}x{height} grid is too large (at most 2^31 cells)")]
    TooLarge {
        /// The width asked for.
        width: u32,
        /// The height asked for.
        height: u32,
    },
}

/// Marks an impassable cell in the cost array.
const BLOCKED: f64 = f64::INFINITY;

/// A `width` × `height` grid of movement costs.
///
/// Each cell holds the cost of stepping *into* it (from [`MIN_COST`] to [`MAX_COST`]) or
/// is impassable.
/// Storage is one flat array with a one-cell blocked border, so the searches look up any
/// neighbour without bounds checks. The grid also keeps connected-component labels
/// up to date as cells switch between passable and impassable, so a query between two
/// regions is answered without searching.
#[derive(Clone, Debug)]
pub struct Grid {
    width: u32,
    height: u32,
    /// Row length of the padded storage: `width + 2`.
    stride: usize,
    costs: Vec<f64>,
    /// Passability of the same cells, one byte each: what the searches read to find the open
    /// neighbours of a cell, 8× denser than `costs`.
    open: Vec<bool>,
    /// Per cell inside the grid: which of its eight neighbours on a square board are
    /// passable, bit `d` for the step `d` of [`STEPS`] (0 on the border). One load gives a
    /// search every step it may take from a cell, where reading `open` takes eight.
    around: Vec<u8>,
    /// Passability again, as bits by row and by column of the padded storage: what the
    /// straight scans of jump point search read, 64 cells at a time. Built by the first jump
    /// point search and kept up to date from then on, so a grid never searched that way
    /// does not pay for it (on a map one cell high, the columns take 8 bytes a cell).
    bits: OnceLock<(BitLines, BitLines)>,
    min_cost: f64,
    /// The largest passable cost (0 when nothing is passable).
    max_cost: f64,
    components: Components,
}

impl Grid {
    /// A grid where every cell costs 1.
    pub fn new(width: u32, height: u32) -> Result<Self, GridError> {
        Self::from_fn(width, height, |_| Some(1.0))
    }

    /// A grid whose cell costs come from `cost` (`None` = impassable).
    pub fn from_fn(
        width: u32,
        height: u32,
        mut cost: impl FnMut(Pos) -> Option<f64>,
    ) -> Result<Self, GridError> {
        let cells = (u64::from(width) + 2) * (u64::from(height) + 2);
        if cells > 1 << 31 {
            return Err(GridError::TooLarge { width, height });
        }
        let stride = width as usize + 2;
        let mut costs = vec![BLOCKED; cells as usize];
        for y in 0..height {
            for x in 0..width {
                let pos = Pos::new(x, y);
                costs[(y as usize + 1) * stride + x as usize + 1] = checked_cost(pos, cost(pos))?;
            }
        }
        let open: Vec<bool> = costs.iter().map(|&c| c != BLOCKED).collect();
        let mut around = vec![0; open.len()];
        for y in 1..=height as usize {
            for x in 1..=width as usize {
                around[y * stride + x] = around_of(&open, stride, y * stride + x);
            }
        }
        let mut grid = Self {
            width,
            height,
            stride,
            costs,
            open,
            around,
            bits: OnceLock::new(),
            min_cost: BLOCKED,
            max_cost: 0.0,
            components: Components::default(),
        };
        (grid.min_cost, grid.max_cost) = grid.scan_cost_range();
        Ok(grid)
    }

    /// The number of columns.
    pub fn width(&self) -> u32 {
        self.width
    }

    /// The number of rows.
    pub fn height(&self) -> u32 {
        self.height
    }

    /// Whether `pos` lies inside the grid.
    pub fn contains(&self, pos: Pos) -> bool {
        pos.x < self.width && pos.y < self.height
    }

    /// Every cell of the grid, row by row from the top-left corner.
    pub fn cells(&self) -> impl Iterator<Item = Pos> + use<> {
        let (width, height) = (self.width, self.height);
        (0..height).flat_map(move |y| (0..width).map(move |x| Pos::new(x, y)))
    }

    /// The cell nearest `to` that `accept` takes: nearest in a straight line, by the squared
    /// column and row differences; of cells equally near, the one nearest `from` (the same
    /// way), then the first by row, then by column. `accept` is asked only about cells inside
    /// the grid that would beat the best found, ring by ring outwards, so a near answer is
    /// found in a few questions. `None` when it takes none.
    ///
    /// ```
    /// use tilewalk_path::{Grid, Pos};
    ///
    /// let grid = Grid::new(9, 9).unwrap();
    /// let far = |p: Pos| p.x.abs_diff(4).max(p.y.abs_diff(4)) >= 3;
    /// // (4,1), (1,4), (7,4) and (4,7) are equally near (4,4): the nearest to (8,8) are the
    /// // last two, and (7,4) is on the first row of those.
    /// let (to, from) = (Pos::new(4, 4), Pos::new(8, 8));
    /// assert_eq!(grid.nearest(to, from, far), Some(Pos::new(7, 4)));
    /// assert_eq!(grid.nearest(to, from, |_| false), None);
    /// ```
    pub fn nearest(&self, to: Pos, from: Pos, mut accept: impl FnMut(Pos) -> bool) -> Option<Pos> {
        let (tx, ty) = (i64::from(to.x), i64::from(to.y));
        let (width, height) = (i64::from(self.width), i64::from(self.height));
        // Every cell lies within this many rings of `to`.
        let reach = (tx.max(width - 1 - tx)).max(ty.max(height - 1 - ty)).max(0);
        let (fx, fy) = (i64::from(from.x), i64::from(from.y));
        let mut best: Option<(i64, i64, i64, i64)> = None;
        for r in 0..=reach {
            // A cell of ring `r` is at least `r` away: no nearer than the best found.
            if best.is_some_and(|(d, ..)| r * r > d) {
                break;
            }
            for dy in -r..=r {
                let y = ty + dy;
                if !(0..height).contains(&y) {
                    continue;
                }
                let step = if dy.abs() == r { 1 } else { (2 * r).max(1) };
                for dx in (-r..=r).step_by(step as usize) {
                    let x = tx + dx;
                    let key = (dx * dx + dy * dy, (x - fx).pow(2) + (y - fy).pow(2), y, x);
                    if (0..width).contains(&x)
                        && best.is_none_or(|b| key < b)
                        && accept(Pos::new(x as u32, y as u32))
                    {
                        best = Some(key);
                    }
                }
            }
        }
        best.map(|(_, _, y, x)| Pos::new(x as u32, y as u32))
    }

    /// What the step from `a` into the adjacent cell `b` costs on `board` (the searches'
    /// cost model: the cost of `b`, times √2 for a diagonal), infinity where it is not a
    /// legal move (the corner rule, a diagonal on a hex or 4-way board).
    pub(crate) fn step_cost(&self, board: Board, a: Pos, b: Pos) -> f64 {
        let (Some(_), Some(cost)) = (self.cost(a), self.cost(b)) else {
            return f64::INFINITY;
        };
        let diagonal = matches!(board, Board::Square(_)) && a.x != b.x && a.y != b.y;
        if !diagonal {
            return cost;
        }
        let sides = (
            self.is_passable(Pos::new(b.x, a.y)),
            self.is_passable(Pos::new(a.x, b.y)),
        );
        let legal = match board {
            Board::Square(Diagonal::NoObstacles) => sides.0 && sides.1,
            Board::Square(Diagonal::AtMostOneObstacle) => sides.0 || sides.1,
            Board::Square(Diagonal::Always) => true,
            Board::Square(Diagonal::Never) | Board::Hex(_) => false,
        };
        if legal { cost * SQRT_2 } else { f64::INFINITY }
    }

    /// The cost of stepping into `pos`; `None` when it is impassable or outside the grid.
    pub fn cost(&self, pos: Pos) -> Option<f64> {
        if !self.contains(pos) {
            return None;
        }
        let cost = self.costs[self.index(pos)];
        (cost != BLOCKED).then_some(cost)
    }

    /// Whether `pos` lies inside the grid and can be entered.
    pub fn is_passable(&self, pos: Pos) -> bool {
        self.cost(pos).is_some()
    }

    /// The one cost every passable cell has, if they all have the same (what jump point
    /// search needs).
    pub fn uniform_cost(&self) -> Option<f64> {
        (self.min_cost == self.max_cost).then_some(self.min_cost)
    }

    /// The smallest cost of any passable cell (`None` when nothing is passable). The default
    /// heuristics are scaled by it so that they never overestimate.
    pub fn min_cost(&self) -> Option<f64> {
        (self.min_cost != BLOCKED).then_some(self.min_cost)
    }

    /// Changes one cell in place (`None` = impassable). Component labels are repaired
    /// locally: making a cell passable may merge regions, blocking one may split its region;
    /// either relabels at most the regions touching the cell. A cost change alone costs O(1)
    /// (O(cells) when it raises the smallest cost of the grid, which is rescanned).
    pub fn set_cost(&mut self, pos: Pos, cost: Option<f64>) -> Result<(), GridError> {
        if !self.contains(pos) {
            return Err(GridError::OutOfBounds {
                pos,
                width: self.width,
                height: self.height,
            });
        }
        let new = checked_cost(pos, cost)?;
        let index = self.index(pos);
        let old = std::mem::replace(&mut self.costs[index], new);
        self.open[index] = new != BLOCKED;
        if let Some((rows, columns)) = self.bits.get_mut() {
            let (row, column) = (index / self.stride, index % self.stride);
            rows.set(row, column, new != BLOCKED);
            columns.set(column, row, new != BLOCKED);
        }
        if old != BLOCKED && (old == self.min_cost || old == self.max_cost) {
            (self.min_cost, self.max_cost) = self.scan_cost_range();
        } else if new != BLOCKED {
            self.min_cost = self.min_cost.min(new);
            self.max_cost = self.max_cost.max(new);
        }
        if (old == BLOCKED) != (new == BLOCKED) {
            // The cell's neighbours see it change; its own mask stays.
            for step in STEPS {
                let (x, y) = (
                    pos.x.wrapping_add_signed(step.dx),
                    pos.y.wrapping_add_signed(step.dy),
                );
                if self.contains(Pos::new(x, y)) {
                    let at = self.index(Pos::new(x, y));
                    self.around[at] = around_of(&self.open, self.stride, at);
                }
            }
            self.components.update(&self.open, self.stride, index);
        }
        Ok(())
    }

    /// The connected region of `pos` under the moves of `board` (a [`Board`] or a
    /// [`Diagonal`](crate::Diagonal) rule), `None` when impassable or outside. Two cells are
    /// connected exactly when their regions are equal. The first question under a kind of
    /// move (four-way or eight-way squares, or a hex layout) labels the grid for it
    /// (O(cells), 4 bytes a cell); later ones, and edits, are cheap.
    pub fn region(&self, pos: Pos, board: impl Into<Board>) -> Option<u32> {
        if !self.is_passable(pos) {
            return None;
        }
        let index = self.index(pos);
        Some(
            self.components
                .label_of(&self.open, self.stride, index, board.into()),
        )
    }

    /// Labels the regions under the moves of `board` now (O(cells), 4 bytes a cell), if not
    /// done yet, rather than at the first [`Self::region`] or [`Self::connected`] question.
    pub fn label_regions(&self, board: impl Into<Board>) {
        self.components
            .labels(&self.open, self.stride, board.into());
    }

    /// Whether some path joins `a` and `b` under the moves of `board`.
    pub fn connected(&self, a: Pos, b: Pos, board: impl Into<Board>) -> bool {
        let board = board.into();
        matches!((self.region(a, board), self.region(b, board)), (Some(ra), Some(rb)) if ra == rb)
    }

    pub(crate) fn stride(&self) -> usize {
        self.stride
    }

    pub(crate) fn open(&self) -> &[bool] {
        &self.open
    }

    /// Per cell, which of its eight neighbours are passable ([`STEPS`] order, one bit each).
    pub(crate) fn around(&self) -> &[u8] {
        &self.around
    }

    /// Passability by rows (lines `y + 1`, bits `x + 1`) and by columns (lines `x + 1`, bits
    /// `y + 1`), border included; built on the first call.
    pub(crate) fn bit_lines(&self) -> (&BitLines, &BitLines) {
        let (rows, columns) = self.bits.get_or_init(|| {
            let (stride, lines) = (self.stride, self.height as usize + 2);
            let (mut rows, mut columns) =
                (BitLines::new(lines, stride), BitLines::new(stride, lines));
            for (index, _) in self.open.iter().enumerate().filter(|(_, open)| **open) {
                rows.set(index / stride, index % stride, true);
                columns.set(index % stride, index / stride, true);
            }
            (rows, columns)
        });
        (rows, columns)
    }

    pub(crate) fn costs(&self) -> &[f64] {
        &self.costs
    }

    /// Index of an in-bounds `pos` in the padded storage.
    pub(crate) fn index(&self, pos: Pos) -> usize {
        (pos.y as usize + 1) * self.stride + pos.x as usize + 1
    }

    /// The cell at a padded-storage index that lies inside the grid.
    #[inline]
    pub(crate) fn pos(&self, index: usize) -> Pos {
        // Storage has at most 2^31 cells, so 32-bit division (the faster one) is exact.
        let (index, stride) = (index as u32, self.stride as u32);
        Pos::new(index % stride - 1, index / stride - 1)
    }

    /// The smallest and largest passable costs.
    fn scan_cost_range(&self) -> (f64, f64) {
        self.costs
            .iter()
            .filter(|&&c| c != BLOCKED)
            .fold((BLOCKED, 0.0), |(min, max), &c| (min.min(c), max.max(c)))
    }
}

/// Which of the eight neighbours of the cell at `index` (inside the grid) are passable.
fn around_of(open: &[bool], stride: usize, index: usize) -> u8 {
    STEPS.iter().enumerate().fold(0, |around, (d, step)| {
        let offset = step.dy as isize * stride as isize + step.dx as isize;
        around | (u8::from(open[index.wrapping_add_signed(offset)]) << d)
    })
}

fn checked_cost(pos: Pos, cost: Option<f64>) -> Result<f64, GridError> {
    match cost {
        None => Ok(BLOCKED),
        Some(cost) if (MIN_COST..=MAX_COST).contains(&cost) => Ok(cost),
        Some(cost) => Err(GridError::BadCost { pos, cost }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Algorithm, SearchContext, SearchOptions};

    #[test]
    fn bit_lines_built_by_a_jump_point_search_follow_later_edits() {
        // A 12x1 corridor: a wall after the first jump point search must be seen by the
        // next one, whose bit lines now exist; then a gap opened again.
        let mut grid = Grid::new(12, 3).unwrap();
        let (from, to) = (Pos::new(0, 1), Pos::new(11, 1));
        let jps = SearchOptions {
            algorithm: Algorithm::JumpPoint,
            ..SearchOptions::default()
        };
        let mut context = SearchContext::new();
        let cost = |context: &mut SearchContext, grid: &Grid| {
            context
                .search(grid, from, to, &jps)
                .map(|f| f.path.cost)
                .ok()
        };
        assert_eq!(cost(&mut context, &grid), Some(11.0));
        for y in 0..3 {
            grid.set_cost(Pos::new(6, y), None).unwrap();
        }
        assert_eq!(cost(&mut context, &grid), None);
        grid.set_cost(Pos::new(6, 0), Some(1.0)).unwrap();
        // Up through the gap and down again: 9 straight steps and 2 diagonal ones.
        let found = cost(&mut context, &grid).expect("a way through the gap");
        assert!(
            (found - (9.0 + 2.0 * std::f64::consts::SQRT_2)).abs() < 1e-9,
            "{found}"
        );
    }

    #[test]
    fn regions_are_labelled_once_per_kind_of_move_and_follow_edits() {
        // Two cells touching only at a corner: one region for eight-way moves, two for four.
        let mut grid = Grid::from_fn(2, 2, |p| (p.x == p.y).then_some(1.0)).unwrap();
        let (a, b) = (Pos::new(0, 0), Pos::new(1, 1));
        grid.label_regions(crate::Diagonal::Never);
        assert!(!grid.connected(a, b, crate::Diagonal::Never));
        assert!(grid.connected(a, b, crate::Diagonal::Always));
        grid.set_cost(Pos::new(1, 0), Some(1.0)).unwrap();
        assert!(grid.connected(a, b, crate::Diagonal::Never));
        assert_eq!(grid.region(Pos::new(0, 1), crate::Diagonal::Always), None);
    }

    #[test]
    fn neighbour_masks_follow_edits() {
        let mut grid = Grid::from_fn(5, 4, |p| (p.x != 2).then_some(1.0)).unwrap();
        let check = |grid: &Grid| {
            for pos in grid.cells() {
                let index = grid.index(pos);
                assert_eq!(
                    grid.around()[index],
                    around_of(grid.open(), grid.stride(), index),
                    "{pos}"
                );
            }
        };
        // (1, 1) sees the wall east, north-east and south-east of it (bits 1, 4 and 5).
        assert_eq!(grid.around()[grid.index(Pos::new(1, 1))], 0b1100_1101);
        check(&grid);
        grid.set_cost(Pos::new(2, 1), Some(3.0)).unwrap();
        grid.set_cost(Pos::new(0, 0), None).unwrap();
        grid.set_cost(Pos::new(4, 3), None).unwrap();
        check(&grid);
        assert_eq!(grid.around()[grid.index(Pos::new(1, 1))], 0b0100_1111);
    }

    #[test]
    fn costs_round_trip_and_borders_are_outside() {
        let mut grid = Grid::new(3, 2).unwrap();
        grid.set_cost(Pos::new(2, 1), Some(2.5)).unwrap();
        grid.set_cost(Pos::new(0, 0), None).unwrap();
        assert_eq!(grid.cost(Pos::new(2, 1)), Some(2.5));
        assert_eq!(grid.cost(Pos::new(0, 0)), None);
        assert_eq!(grid.cost(Pos::new(3, 0)), None);
        assert_eq!(grid.pos(grid.index(Pos::new(2, 1))), Pos::new(2, 1));
    }

    #[test]
    fn rejects_bad_costs_and_outside_cells() {
        let mut grid = Grid::new(2, 2).unwrap();
        for bad in [
            0.0,
            -1.0,
            f64::NAN,
            f64::INFINITY,
            1e308,
            1e-310,
            MIN_COST / 2.0,
            MAX_COST * 1.5,
        ] {
            assert!(matches!(
                grid.set_cost(Pos::new(0, 0), Some(bad)),
                Err(GridError::BadCost { .. })
            ));
        }
        assert!(matches!(
            grid.set_cost(Pos::new(2, 0), Some(1.0)),
            Err(GridError::OutOfBounds { .. })
        ));
        assert_eq!(
            grid.cost(Pos::new(0, 0)),
            Some(1.0),
            "a refused edit changes nothing"
        );
        for good in [MIN_COST, MAX_COST] {
            grid.set_cost(Pos::new(0, 0), Some(good)).unwrap();
        }
        assert_eq!(
            Grid::from_fn(2, 1, |_| Some(1e308))
                .unwrap_err()
                .to_string(),
            "a movement cost must be between 0.001 and 1000000 (or the cell impassable), got 1e308 at (0,0)"
        );
    }

    #[test]
    fn min_cost_follows_edits() {
        let mut grid = Grid::from_fn(2, 1, |p| Some(if p.x == 0 { 0.5 } else { 2.0 })).unwrap();
        assert_eq!(grid.min_cost(), Some(0.5));
        grid.set_cost(Pos::new(0, 0), Some(3.0)).unwrap();
        assert_eq!(grid.min_cost(), Some(2.0));
        grid.set_cost(Pos::new(1, 0), None).unwrap();
        assert_eq!(grid.min_cost(), Some(3.0));
        grid.set_cost(Pos::new(0, 0), None).unwrap();
        assert_eq!(grid.min_cost(), None);
        assert_eq!(grid.uniform_cost(), None);
        grid.set_cost(Pos::new(0, 0), Some(2.0)).unwrap();
        assert_eq!(grid.uniform_cost(), Some(2.0));
        grid.set_cost(Pos::new(1, 0), Some(1.0)).unwrap();
        assert_eq!(grid.uniform_cost(), None);
    }
}
