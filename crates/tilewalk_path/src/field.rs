//! Cost-to-goal fields (integration fields): from a set of goal cells, the cheapest cost of
//! walking from every cell to the nearest goal, the next step of that walk and its goal.
//!
//! A field is one Dijkstra search run *backwards* from the goals: each cell settled, in
//! order of its cost to the nearest goal, offers that cost to the cells that can step into
//! it. The step from `v` into `w` costs what it costs a walker, `cost(w) × length`, and is
//! allowed exactly when the forward searches allow it (corner rules, passage rules), so
//! walking down the field from any cell is a cheapest path to the goals. Of equally cheap
//! next cells, a cell keeps the one a shorter step away (a straight step rather than a
//! diagonal): a walk down the field goes straight first and turns diagonal only as it nears
//! its goal ([`CostField::next`] says why). The memory is
//! generation-stamped like [`SearchContext`](crate::SearchContext)'s: after the first
//! field on a grid of a given size, building another allocates nothing.

use crate::board::Board;
use crate::grid::Grid;
use crate::memory::{map_pages, zeroed};
use crate::open_list::{HeapEntry, OpenList};
use crate::pos::Pos;
use crate::search::{CellPath, HexMoves, Moves, Passage, SearchStats, SquareMoves};

/// Marks "no next cell": a cell settled as a goal (a root of the field).
const ROOT: u32 = u32::MAX;

/// How a fill goes: the passage rule and bound it keeps to, and its guide (0 everywhere for
/// a plain fill, by cost alone).
struct Rules<'a, G> {
    passage: Option<&'a dyn Fn(Pos) -> Passage>,
    max_cost: f64,
    guide: G,
}

/// How to build a field.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct FieldOptions {
    /// The board's shape: which steps exist.
    pub board: Board,
    /// Cells whose cost to the nearest goal exceeds this are left out of the field: a
    /// bounded field, for when only the surroundings of the goals matter. Infinite (the
    /// default) reaches every cell that can walk to a goal. NaN counts as 0.
    pub max_cost: f64,
}

impl Default for FieldOptions {
    fn default() -> Self {
        Self {
            board: Board::default(),
            max_cost: f64::INFINITY,
        }
    }
}

impl FieldOptions {
    /// An unbounded field on `board`.
    pub fn on(board: impl Into<Board>) -> Self {
        Self {
            board: board.into(),
            ..Self::default()
        }
    }
}

/// Why a field could not be built.
#[derive(Clone, Copy, Debug, PartialEq, thiserror::Error)]
pub enum FieldError {
    /// A goal is outside the grid.
    #[error("goal {pos} is outside the {width}x{height} map")]
    GoalOutside {
        /// The goal.
        pos: Pos,
        /// The grid's width.
        width: u32,
        /// The grid's height.
        height: u32,
    },
    /// A goal is impassable, or the passage rule of [`CostField::build_with`] blocks it
    /// ([`Passage::Blocked`]).
    #[error("goal {0} is impassable")]
    GoalBlocked(Pos),
    /// The passage rule of [`CostField::build_with`] lets the goal be walked through, never
    /// stopped on.
    #[error("goal {0} may be passed through but not stopped on")]
    GoalPassOnly(Pos),
}

/// What the field knows of a cell (meaningful while its stamp is current).
#[derive(Clone, Copy, Debug, Default, bytemuck::Zeroable)]
struct Cell {
    /// The cheapest cost from this cell to its goal.
    cost: f64,
    /// The next cell on that way (storage index), [`ROOT`] for a goal.
    next: u32,
    /// The goal it leads to (storage index).
    goal: u32,
}

/// A cost-to-goal field over one grid, and the reusable memory to build it: keep one per
/// thread (or per system) and rebuild it for every order.
///
/// ```
/// use tilewalk_path::{CostField, Diagonal, FieldOptions, Grid, Pos};
///
/// // A wall between x = 0..2 and x = 3..5, open at the bottom row.
/// let grid = Grid::from_fn(6, 4, |p| (p.x != 2 || p.y == 3).then_some(1.0)).unwrap();
/// let mut field = CostField::new();
/// let options = FieldOptions::on(Diagonal::Never);
/// field.build(&grid, &[Pos::new(5, 0), Pos::new(0, 3)], &options).unwrap();
/// // (0, 0) is 3 steps from the goal (0, 3); (4, 0) is 1 step from (5, 0).
/// assert_eq!(field.cost(Pos::new(0, 0)), Some(3.0));
/// assert_eq!(field.goal(Pos::new(4, 0)), Some(Pos::new(5, 0)));
/// let path = field.path(Pos::new(1, 0)).unwrap();
/// assert_eq!(path.cells, [(1, 0), (0, 0), (0, 1), (0, 2), (0, 3)].map(Pos::from));
/// assert_eq!(path.cost, 4.0);
/// assert_eq!(field.cost(Pos::new(2, 0)), None); // the wall
/// ```
#[derive(Clone, Debug, Default)]
pub struct CostField {
    /// Per cell: `generation` = reached, `generation + 1` = settled, anything else = not in
    /// the field.
    stamps: Vec<u32>,
    cells: Vec<Cell>,
    generation: u32,
    heap: OpenList,
    /// The settled cells in the order they were settled: by increasing cost.
    settled: Vec<u32>,
    /// The grid's padded row length and size, to read positions without it.
    stride: usize,
    width: u32,
    height: u32,
    stats: SearchStats,
}

impl CostField {
    /// An empty field: its memory grows to fit the first grid it is built on.
    pub fn new() -> Self {
        Self::default()
    }

    /// Builds the field of `goals` on `grid`: every cell that can walk to a goal gets the
    /// cost of its cheapest way to the nearest one. Duplicate goals count once; no goals
    /// make an empty field.
    pub fn build(
        &mut self,
        grid: &Grid,
        goals: &[Pos],
        options: &FieldOptions,
    ) -> Result<SearchStats, FieldError> {
        self.seed_goals(grid, goals, None)?;
        self.fill(grid, options.board, None, options.max_cost, |_, _| false);
        Ok(self.stats)
    }

    /// [`Self::build`] under a passage rule, walked exactly as
    /// [`SearchContext::search_with`](crate::SearchContext::search_with) walks it: no way
    /// enters a `Blocked` cell or leaves an `EndsMove` or `TakesAllPoints` one, and a
    /// `Blocked` or `PassOnly` goal is refused. A cell's own passage never stops a walk
    /// from it (a unit may stand anywhere), so such cells still get their cost; they are
    /// just never on the way of others.
    pub fn build_with(
        &mut self,
        grid: &Grid,
        goals: &[Pos],
        options: &FieldOptions,
        passage: impl Fn(Pos) -> Passage,
    ) -> Result<SearchStats, FieldError> {
        self.seed_goals(grid, goals, Some(&passage))?;
        self.fill(
            grid,
            options.board,
            Some(&passage),
            options.max_cost,
            |_, _| false,
        );
        Ok(self.stats)
    }

    /// [`Self::build`], stopping as soon as `stop` returns true for a settled cell (it is
    /// asked once per cell, in order of increasing cost, and that cell stays in the field):
    /// the nearest cells of some kind around the goals, without paying for the rest.
    pub fn build_until(
        &mut self,
        grid: &Grid,
        goals: &[Pos],
        options: &FieldOptions,
        mut stop: impl FnMut(Pos, f64) -> bool,
    ) -> Result<SearchStats, FieldError> {
        self.seed_goals(grid, goals, None)?;
        self.fill(
            grid,
            options.board,
            None,
            options.max_cost,
            |index, cost| stop(grid.pos(index), cost),
        );
        Ok(self.stats)
    }

    /// The cheapest cost of walking from `pos` to the nearest goal; `None` when `pos` is
    /// not in the field (no way to a goal, beyond the bound, or not settled before a stop).
    pub fn cost(&self, pos: Pos) -> Option<f64> {
        self.settled_cell(pos).map(|cell| cell.cost)
    }

    /// The next cell of a cheapest way from `pos` to a goal; `None` at a goal and outside
    /// the field.
    ///
    /// Where several next cells are as cheap (up to rounding), it is one a shortest step
    /// away: on a square board a straight step before a diagonal, so that a walk keeps to
    /// one straight line as long as a cheapest way allows and takes its diagonals last.
    /// A way that turns late stays a cheapest way to more places beside its goal for
    /// longer (on open ground, to every cell the remaining diagonals could reach instead):
    /// that is what lets a group order's units share one way and still spread over
    /// many tiles at its end ([`GroupPlanner`](crate::GroupPlanner)). The army benchmark
    /// (`cargo run --release --example army`, figures in the repository's
    /// [`docs/benchmarks.md`]) measures the work it takes.
    ///
    /// [`docs/benchmarks.md`]: https://github.com/tilewalk/tilewalk/blob/main/docs/benchmarks.md
    pub fn next(&self, pos: Pos) -> Option<Pos> {
        self.settled_cell(pos)
            .filter(|cell| cell.next != ROOT)
            .map(|cell| self.pos(cell.next as usize))
    }

    /// The goal that walking down the field from `pos` reaches.
    pub fn goal(&self, pos: Pos) -> Option<Pos> {
        self.settled_cell(pos)
            .map(|cell| self.pos(cell.goal as usize))
    }

    /// The cheapest path from `from` to its goal, read off the field.
    pub fn path(&self, from: Pos) -> Option<CellPath> {
        let mut path = CellPath::default();
        self.path_into(from, &mut path).then_some(path)
    }

    /// [`Self::path`] into a reused buffer; false (and an empty path) when `from` is not in
    /// the field.
    pub fn path_into(&self, from: Pos, path: &mut CellPath) -> bool {
        path.cells.clear();
        path.cost = 0.0;
        if self.settled_cell(from).is_none() {
            return false;
        }
        let index = self.index(from);
        path.cost = self.cells[index].cost - self.cells[self.cells[index].goal as usize].cost;
        self.walk(index, path);
        true
    }

    /// The cells of the field in the order they were settled, which is by increasing cost
    /// (ties by storage order: row by row).
    pub fn settled(&self) -> impl ExactSizeIterator<Item = Pos> + '_ {
        self.settled.iter().map(|&index| self.pos(index as usize))
    }

    /// What the last build did: cells settled (`expanded`) and pushed.
    pub fn stats(&self) -> SearchStats {
        self.stats
    }

    /// Starts a new field of `grid`'s size and seeds it with `goals` at cost 0.
    fn seed_goals(
        &mut self,
        grid: &Grid,
        goals: &[Pos],
        passage: Option<&dyn Fn(Pos) -> Passage>,
    ) -> Result<(), FieldError> {
        for &pos in goals {
            if !grid.contains(pos) {
                return Err(FieldError::GoalOutside {
                    pos,
                    width: grid.width(),
                    height: grid.height(),
                });
            }
            if !grid.is_passable(pos) {
                return Err(FieldError::GoalBlocked(pos));
            }
            match passage.map(|p| p(pos)) {
                Some(Passage::Blocked) => return Err(FieldError::GoalBlocked(pos)),
                Some(Passage::PassOnly) => return Err(FieldError::GoalPassOnly(pos)),
                _ => {}
            }
        }
        self.begin(grid);
        for &pos in goals {
            self.seed(grid.index(pos), 0.0);
        }
        Ok(())
    }

    /// Sizes the memory for `grid` and maps its pages now, when it is not of its size yet
    /// (which forgets the field), rather than at the next [`Self::begin`] and as the field
    /// spreads.
    pub(crate) fn reserve(&mut self, grid: &Grid) {
        if self.cells.len() != grid.costs().len() {
            self.begin(grid);
            map_pages(&mut self.cells);
            map_pages(&mut self.stamps);
            self.heap.map_pages();
        }
    }

    /// Starts a new field of `grid`'s size: stamps from older fields no longer mean anything.
    pub(crate) fn begin(&mut self, grid: &Grid) {
        let cells = grid.costs().len();
        if self.cells.len() != cells || self.generation >= u32::MAX - 2 {
            // Zeroed memory: a field touches only the pages of the cells it settles.
            self.cells = zeroed(cells);
            self.stamps = zeroed(cells);
            self.generation = 0;
            self.heap.reserve(cells);
        }
        self.generation += 2;
        self.stride = grid.stride();
        (self.width, self.height) = (grid.width(), grid.height());
        self.heap.clear();
        self.settled.clear();
        self.stats = SearchStats::default();
    }

    /// Makes the passable cell at `index` a goal with a head start of `cost` (0 for a plain
    /// goal; a goal seeded dearer is only the root of the cells for which it stays the
    /// cheapest way out). A cell seeded twice keeps the cheaper seed.
    pub(crate) fn seed(&mut self, index: usize, cost: f64) {
        self.seed_guided(index, cost, 0.0);
    }

    /// [`Self::seed`] for a field filled by [`Self::fill_toward`]: `guide` is the guide's
    /// value at the cell.
    pub(crate) fn seed_guided(&mut self, index: usize, cost: f64, guide: f64) {
        if self.stamps[index] == self.generation && self.cells[index].cost <= cost {
            return;
        }
        self.stamps[index] = self.generation;
        self.cells[index] = Cell {
            cost,
            next: ROOT,
            goal: index as u32,
        };
        self.heap
            .push(HeapEntry::new(index as u32, cost + guide, guide));
        self.stats.pushed += 1;
    }

    /// Settles cells in order of cost from the seeds, until the frontier is empty or `stop`
    /// says so for a settled cell (by storage index, with its cost).
    pub(crate) fn fill(
        &mut self,
        grid: &Grid,
        board: Board,
        passage: Option<&dyn Fn(Pos) -> Passage>,
        max_cost: f64,
        stop: impl FnMut(usize, f64) -> bool,
    ) {
        self.fill_for(grid, board, passage, max_cost, usize::MAX, stop);
    }

    /// [`Self::fill`], settling at most `limit` cells: true when the field is finished (the
    /// frontier ran empty, or `stop` said so), false when it stopped at the limit with cells
    /// left to settle. A field left unfinished goes on where it stopped at the next call,
    /// which must pass the same grid, board, passage and bound; `stop` is asked of the
    /// cells of this call only. The cells are settled in the same order, with the same
    /// results, however the limits split them.
    pub(crate) fn fill_for(
        &mut self,
        grid: &Grid,
        board: Board,
        passage: Option<&dyn Fn(Pos) -> Passage>,
        max_cost: f64,
        limit: usize,
        stop: impl FnMut(usize, f64) -> bool,
    ) -> bool {
        let rules = Rules {
            passage,
            // `max` turns NaN into 0.
            max_cost: max_cost.max(0.0),
            guide: |_: Pos| 0.0,
        };
        self.fill_on_board(grid, board, rules, limit, stop)
    }

    /// [`Self::fill_for`] (no passage rule, no bound) in the order of an A* search from the
    /// seeds toward some cells: by cost plus `guide`, a lower bound on the cost of walking
    /// from those cells to the cell that may grow by no more than a step costs (a
    /// consistent heuristic; seed with [`Self::seed_guided`]). Every cell it settles gets
    /// its exact cost, next cell and goal, as in a plain fill, but cells far from where the
    /// guide points are left for last, so a fill that stops once it has settled the cells
    /// it was guided to settles fewer. A cell it did not settle costs at least the last
    /// settled cell's cost plus guide, less its own guide. [`Self::settled`] lists the
    /// cells by cost plus guide.
    pub(crate) fn fill_toward(
        &mut self,
        grid: &Grid,
        board: Board,
        limit: usize,
        guide: impl Fn(Pos) -> f64,
        stop: impl FnMut(usize, f64) -> bool,
    ) -> bool {
        let rules = Rules {
            passage: None,
            max_cost: f64::INFINITY,
            guide,
        };
        self.fill_on_board(grid, board, rules, limit, stop)
    }

    /// [`Self::fill_on`] for `board`'s moves.
    fn fill_on_board(
        &mut self,
        grid: &Grid,
        board: Board,
        rules: Rules<impl Fn(Pos) -> f64>,
        limit: usize,
        stop: impl FnMut(usize, f64) -> bool,
    ) -> bool {
        match board {
            Board::Square(diagonal) => {
                self.fill_on(grid, SquareMoves(diagonal), rules, limit, stop)
            }
            Board::Hex(layout) => self.fill_on(grid, HexMoves(layout), rules, limit, stop),
        }
    }

    /// The backward Dijkstra loop (A* when the guide is not 0), monomorphised per board
    /// shape.
    fn fill_on<M: Moves>(
        &mut self,
        grid: &Grid,
        moves: M,
        rules: Rules<impl Fn(Pos) -> f64>,
        limit: usize,
        mut stop: impl FnMut(usize, f64) -> bool,
    ) -> bool {
        let Rules {
            passage,
            max_cost,
            guide,
        } = rules;
        let (reached, settled) = (self.generation, self.generation + 1);
        let costs = grid.costs();
        let tables = moves.tables();
        let offsets = moves.offsets(grid);
        let mut left = limit;
        loop {
            if left == 0 {
                // Out of cells for this call: finished only when nothing is left to settle.
                return self.heap.only_stale_left(&self.stamps, settled);
            }
            let Some(entry) = self.heap.pop_open(&self.stamps, settled) else {
                return true;
            };
            let index = entry.index() as usize;
            left -= 1;
            self.stamps[index] = settled;
            self.settled.push(index as u32);
            self.stats.expanded += 1;
            let cell = self.cells[index];
            if stop(index, cell.cost) {
                return true;
            }
            let pos = grid.pos(index);
            // Walkers step into this cell and go on from it: not when it cannot be entered
            // or left. A goal is where walks end, so only its being entered matters, and
            // `seed_goals` checked that.
            if cell.next != ROOT
                && let Some(passage) = passage
                && !matches!(passage(pos), Passage::Open | Passage::PassOnly)
            {
                continue;
            }
            let table = moves.table(pos);
            let (steps, offsets) = (&tables[table], &offsets[table]);
            // Steps are symmetric on every board, corner rules included (a diagonal's two
            // side cells are the same both ways), so the cells that may step into this one
            // are the ones it may step to.
            let mut allowed = moves.allowed_at(grid, offsets, index);
            let entering = costs[index];
            while allowed != 0 {
                let d = allowed.trailing_zeros() as usize;
                allowed &= allowed - 1;
                let from = index.wrapping_add_signed(offsets[d]);
                let stamp = self.stamps[from];
                if stamp == settled {
                    continue;
                }
                let cost = cell.cost + entering * steps[d].length;
                if stamp == reached && cost >= self.cells[from].cost {
                    self.prefer_shorter_step(from, index, cost, steps[d].length, costs);
                    continue;
                }
                if cost > max_cost {
                    continue;
                }
                self.stamps[from] = reached;
                self.cells[from] = Cell {
                    cost,
                    next: index as u32,
                    goal: cell.goal,
                };
                let step = &steps[d];
                let h = guide(Pos::new(
                    pos.x.wrapping_add_signed(step.dx),
                    pos.y.wrapping_add_signed(step.dy),
                ));
                self.heap.push(HeapEntry::new(from as u32, cost + h, h));
                self.stats.pushed += 1;
            }
        }
    }

    /// Of two equally cheap ways out of the reached cell `from`, its next cell and a step of
    /// `length` into the settled cell `into` at `cost`, keeps the shorter step (see
    /// [`Self::next`]). The length of the step it has is its cost over the cost of entering
    /// its next cell: `1` or `√2` on a square board, always `1` on a hex board (where no
    /// step is ever preferred). A goal stays a goal.
    #[inline]
    fn prefer_shorter_step(
        &mut self,
        from: usize,
        into: usize,
        cost: f64,
        length: f64,
        entering: &[f64],
    ) {
        let old = self.cells[from];
        if old.next == ROOT || !HeapEntry::ties(cost, old.cost) {
            return;
        }
        let old_length =
            (old.cost - self.cells[old.next as usize].cost) / entering[old.next as usize];
        // Lengths are 1 and √2: a margin far above the rounding and far below their gap.
        if length * (1.0 + 1e-6) < old_length {
            self.cells[from].next = into as u32;
            self.cells[from].goal = self.cells[into].goal;
        }
    }

    /// Pushes the cells from `index` down the field to its goal onto `path.cells`.
    fn walk(&self, mut index: usize, path: &mut CellPath) {
        loop {
            path.cells.push(self.pos(index));
            let next = self.cells[index].next;
            if next == ROOT {
                return;
            }
            index = next as usize;
        }
    }

    /// The cost of a settled cell, by storage index.
    #[inline]
    pub(crate) fn cost_at(&self, index: usize) -> Option<f64> {
        (self.stamps.get(index) == Some(&(self.generation + 1))).then(|| self.cells[index].cost)
    }

    /// The next cell down the field from a settled cell, by storage index; `None` at a goal
    /// (or outside the field).
    #[inline]
    pub(crate) fn next_at(&self, index: usize) -> Option<usize> {
        let next = self.cells[index].next;
        (self.stamps[index] == self.generation + 1 && next != ROOT).then_some(next as usize)
    }

    fn settled_cell(&self, pos: Pos) -> Option<&Cell> {
        if pos.x >= self.width || pos.y >= self.height {
            return None;
        }
        let index = self.index(pos);
        (self.stamps[index] == self.generation + 1).then(|| &self.cells[index])
    }

    fn index(&self, pos: Pos) -> usize {
        (pos.y as usize + 1) * self.stride + pos.x as usize + 1
    }

    fn pos(&self, index: usize) -> Pos {
        Pos::new(
            (index % self.stride) as u32 - 1,
            (index / self.stride) as u32 - 1,
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A settled cell, with its cost, next cell and goal.
    type Seen = (Pos, Option<f64>, Option<Pos>, Option<Pos>);

    /// The settled cells, in order, with what the field says of each.
    fn cells(field: &CostField) -> Vec<Seen> {
        field
            .settled()
            .map(|p| (p, field.cost(p), field.next(p), field.goal(p)))
            .collect()
    }

    #[test]
    fn of_equally_cheap_ways_a_walk_takes_its_straight_steps_first() {
        // Open ground of one cost: from (5, 2) every way of three straight steps west and
        // two diagonals to the goal (0, 0) costs 3 + 2√2; the walk keeps to row 2 while it
        // can and takes its diagonals last.
        let grid = Grid::from_fn(8, 5, |_| Some(1.0)).unwrap();
        let mut field = CostField::new();
        field
            .build(&grid, &[Pos::new(0, 0)], &FieldOptions::default())
            .unwrap();
        let path = field.path(Pos::new(5, 2)).unwrap();
        assert_eq!(
            path.cells,
            [(5, 2), (4, 2), (3, 2), (2, 2), (1, 1), (0, 0)].map(Pos::from)
        );
        assert!((path.cost - (3.0 + 2.0 * std::f64::consts::SQRT_2)).abs() < 1e-9);
        // From (2, 4), the straight steps are toward row 0.
        let path = field.path(Pos::new(2, 4)).unwrap();
        assert_eq!(
            path.cells,
            [(2, 4), (2, 3), (2, 2), (1, 1), (0, 0)].map(Pos::from)
        );
    }

    #[test]
    fn a_fill_cut_into_pieces_settles_what_one_fill_does() {
        let grid = Grid::from_fn(13, 9, |p| {
            let wall = p.x == 6 && p.y != 2;
            (!wall).then_some(1.0 + f64::from((p.x * 5 + p.y * 3) % 4))
        })
        .unwrap();
        let goals = [grid.index(Pos::new(1, 1)), grid.index(Pos::new(11, 7))];
        for board in Board::ALL {
            for stop_after in [usize::MAX, 40] {
                let mut whole = CostField::new();
                whole.begin(&grid);
                for &g in &goals {
                    whole.seed(g, 0.0);
                }
                let mut seen = 0;
                whole.fill(&grid, board, None, 30.0, |_, _| {
                    seen += 1;
                    seen == stop_after
                });
                for limit in [1, 2, 7, 50] {
                    let mut pieces = CostField::new();
                    pieces.begin(&grid);
                    for &g in &goals {
                        pieces.seed(g, 0.0);
                    }
                    let (mut seen, mut calls) = (0, 0);
                    loop {
                        calls += 1;
                        let before = pieces.stats().expanded;
                        let finished = pieces.fill_for(&grid, board, None, 30.0, limit, |_, _| {
                            seen += 1;
                            seen == stop_after
                        });
                        assert!(pieces.stats().expanded - before <= limit);
                        if finished {
                            break;
                        }
                        assert_eq!(pieces.stats().expanded - before, limit);
                    }
                    assert_eq!(cells(&pieces), cells(&whole), "{board}, limit {limit}");
                    assert_eq!(pieces.stats(), whole.stats());
                    // Finished on the call that settled the last cell.
                    assert_eq!(calls, whole.stats().expanded.div_ceil(limit));
                }
            }
        }
    }

    #[test]
    fn a_guided_fill_settles_exact_costs_and_fewer_cells() {
        // Costs 1 to 4, a wall with one gap; the goal in one corner, the guide (the board's
        // step distance to the far corner, at the cheapest cost) toward the other.
        let grid = Grid::from_fn(40, 30, |p| {
            let wall = p.x == 20 && p.y != 25;
            (!wall).then_some(1.0 + f64::from((p.x * 5 + p.y * 3) % 4))
        })
        .unwrap();
        let (goal, far) = (Pos::new(1, 1), Pos::new(38, 28));
        for board in Board::ALL {
            let heuristic = match board {
                Board::Square(_) => crate::Heuristic::tightest_for(board),
                Board::Hex(_) => crate::Heuristic::Chebyshev,
            };
            let guide = |p: Pos| heuristic.distance(p.x.abs_diff(far.x), p.y.abs_diff(far.y));
            let mut plain = CostField::new();
            plain
                .build(&grid, &[goal], &FieldOptions::on(board))
                .unwrap();
            let mut guided = CostField::new();
            guided.begin(&grid);
            guided.seed_guided(grid.index(goal), 0.0, guide(goal));
            let target = grid.index(far);
            let mut last = 0.0;
            assert!(
                guided.fill_toward(&grid, board, usize::MAX, guide, |index, cost| {
                    let priority = cost + guide(grid.pos(index));
                    assert!(priority >= last - 1e-9, "{board}: A* order");
                    last = priority;
                    index == target
                })
            );
            let settled: Vec<Pos> = guided.settled().collect();
            assert!(settled.contains(&far));
            assert!(
                settled.len() < plain.settled().len() * 3 / 4,
                "{board}: {} of {}",
                settled.len(),
                plain.settled().len()
            );
            for p in settled {
                let cost = guided.cost(p).unwrap();
                assert!((cost - plain.cost(p).unwrap()).abs() < 1e-9, "{board} {p}");
                // Its way down is made of steps into settled cells and costs what it says.
                let path = guided.path(p).unwrap();
                assert_eq!(path.cells.last(), Some(&goal));
                let walked: f64 = path
                    .cells
                    .windows(2)
                    .map(|pair| {
                        let (a, b) = (pair[0], pair[1]);
                        let diagonal =
                            matches!(board, Board::Square(_)) && a.x != b.x && a.y != b.y;
                        let length = if diagonal {
                            std::f64::consts::SQRT_2
                        } else {
                            1.0
                        };
                        assert!(guided.cost(b).is_some());
                        grid.cost(b).unwrap() * length
                    })
                    .sum();
                assert!((walked - cost).abs() < 1e-9, "{board} {p}");
            }
            // Cells it did not settle cost at least the last priority less their guide.
            for p in grid.cells().filter(|&p| guided.cost(p).is_none()) {
                if let Some(cost) = plain.cost(p) {
                    assert!(cost >= last - guide(p) - 1e-9, "{board} {p}");
                }
            }
        }
    }
}
