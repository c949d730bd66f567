//! One search loop for A*, Dijkstra, BFS, greedy best-first and DFS, over a reusable context.
//!
//! The algorithms differ only in their frontier (a priority queue, a FIFO queue or a stack)
//! and in the priority they give a cell, so they share one loop, monomorphised per frontier.
//! Per-cell state lives in a generation-stamped array inside [`SearchContext`]: starting a
//! new search bumps the generation instead of clearing memory, so after the first query on
//! a grid of a given size a search allocates nothing. Bidirectional searches run two such
//! searches at once (`bidirectional.rs`); every search reports its steps to a [`Tracer`],
//! which is a no-op unless a trace was asked for (`trace.rs`).

use std::collections::VecDeque;

use crate::board::{Board, HexLayout};
use crate::grid::Grid;
use crate::moves::{Diagonal, Heuristic, STEPS, Step};
use crate::open_list::{HeapEntry, OpenList};
use crate::pos::Pos;
use bytemuck::Zeroable;

use crate::memory::{map_pages, zeroed};

mod bidirectional;
mod jump;
mod landmarks;
mod replay;
mod trace;

pub use landmarks::{ACTIVE_LANDMARKS, Landmarks};
pub use replay::{CellState, CellView, Meeting, Replay};
pub use trace::{Direction, Trace, TraceEvent};
use trace::{NoTrace, Tracer};

/// Which search to run.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Algorithm {
    /// Cheapest path, guided by the heuristic. Optimal with the default heuristic and weight 1.
    #[default]
    AStar,
    /// Cheapest path, no heuristic: expands every cell cheaper than the goal.
    Dijkstra,
    /// Fewest steps, ignoring costs (the reported cost is still that path's real cost).
    Bfs,
    /// Greedy best-first: always expands the cell that looks closest to the goal. Fast, not optimal.
    BestFirst,
    /// Naive depth-first walk: finds *a* path, usually a long one. A teaching baseline.
    Dfs,
    /// A* with jump point pruning (Harabor and Grastien): on a grid where every passable
    /// cell costs the same, with [`Diagonal::NoObstacles`], it jumps over the many equally
    /// cheap symmetric paths and expands only "jump points". Same optimal costs as A*,
    /// usually far faster. Any other square grid or rule, or a search with a passage rule
    /// ([`SearchContext::search_with`]), falls back to plain A*. A hex board has no jump
    /// points: asking for them there is the error [`NoPath::NeedsSquareBoard`].
    JumpPoint,
    /// Bidirectional A*: one A* from the start towards the goal and one from the goal back
    /// towards the start, each step expanding from the frontier whose smallest priority is
    /// lower (taking turns on ties), until no path they have not yet found can beat the
    /// cheapest one found where they met. Optimal on every board,
    /// with every heuristic that keeps A* optimal, under passage rules too
    /// ([`SearchContext::search_with`]); [`SearchOptions::weight`] is ignored.
    ///
    /// Both searches order their frontiers by *balanced* potentials (Ikeda et al. 1994): a
    /// cell `v` with forward cost `g` has the priority `f = g + (h_goal(v) − h_start(v) −
    /// h_start(goal)) / 2` in the forward search (`h_goal` estimates the way from `v` to the
    /// goal, `h_start` the way from the start to `v`), and the mirror image in the backward
    /// search. The search stops when the two smallest priorities, plus `h_start(goal)`, reach
    /// the cost of the cheapest path found: the module `search/bidirectional.rs` and the
    /// [crate docs](crate#bidirectional-search) say why that is right, and why stopping when
    /// the two searches first touch is not.
    ///
    /// A teaching algorithm, not a faster A*: the balanced potentials guide each search half
    /// as hard as A*'s heuristic, and together they expand more cells than A* alone, long
    /// paths included. The `movingai` example prints its time against A*'s on the longer
    /// half of each map's problems (`Bi/A* long`); on the Moving AI maps it is slower on
    /// every one ([`docs/benchmarks.md`]).
    ///
    /// [`docs/benchmarks.md`]: https://github.com/tilewalk/tilewalk/blob/main/docs/benchmarks.md
    Bidirectional,
    /// Bidirectional Dijkstra: [`Algorithm::Bidirectional`] with the zero heuristic. Its
    /// priorities are plain costs, and it stops once the smallest forward cost plus the
    /// smallest backward cost reach the cheapest path found.
    BidirectionalDijkstra,
}

impl Algorithm {
    /// Every algorithm, in the order they are declared.
    pub const ALL: [Self; 8] = [
        Self::AStar,
        Self::Dijkstra,
        Self::Bfs,
        Self::BestFirst,
        Self::Dfs,
        Self::JumpPoint,
        Self::Bidirectional,
        Self::BidirectionalDijkstra,
    ];

    /// Whether it runs two searches, one from each end.
    pub fn is_bidirectional(self) -> bool {
        matches!(self, Self::Bidirectional | Self::BidirectionalDijkstra)
    }
}

/// How to search. `SearchOptions::default()` is optimal 8-way A* without corner cutting.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SearchOptions {
    /// Which search to run.
    pub algorithm: Algorithm,
    /// The board's shape: which steps exist.
    pub board: Board,
    /// `None` picks [`Heuristic::tightest_for`] the board.
    pub heuristic: Option<Heuristic>,
    /// Weighted A*: `f = g + weight·h`. With an admissible heuristic the path costs at most
    /// `weight` times the optimum (bounded-suboptimal) and usually expands far fewer cells.
    /// Values below 1 (and NaN) count as 1. Bidirectional searches ignore it: they are
    /// always optimal.
    pub weight: f64,
    /// Keep the order in which cells were expanded, for a visual debugger
    /// ([`SearchContext::expansions`]).
    pub record_expansions: bool,
}

impl Default for SearchOptions {
    fn default() -> Self {
        Self {
            algorithm: Algorithm::AStar,
            board: Board::default(),
            heuristic: None,
            weight: 1.0,
            record_expansions: false,
        }
    }
}

impl SearchOptions {
    /// Default options on a square board with another diagonal rule.
    pub fn with_diagonal(diagonal: Diagonal) -> Self {
        Self::on(Board::Square(diagonal))
    }

    /// Default options on another board.
    pub fn on(board: impl Into<Board>) -> Self {
        Self {
            board: board.into(),
            ..Self::default()
        }
    }
}

/// A path: its cells from start to goal, both included, and its cost (the sum of its steps).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct CellPath {
    /// The cells in walking order, start and goal included.
    pub cells: Vec<Pos>,
    /// What walking it costs: the sum of its steps, each `cost(cell stepped into) × step
    /// length` ([crate docs](crate#the-cost-model)); the start cell's own cost is not paid.
    pub cost: f64,
}

/// What a search did.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SearchStats {
    /// Cells taken off the frontier and expanded.
    pub expanded: usize,
    /// Cells put on the frontier (a cell is pushed again when a cheaper way to it is found).
    pub pushed: usize,
}

/// A found path with the statistics of the search that found it.
#[derive(Clone, Debug, PartialEq)]
pub struct Found {
    /// The path found.
    pub path: CellPath,
    /// What the search did to find it.
    pub stats: SearchStats,
}

/// Why there is no path.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
pub enum NoPath {
    /// An option this board does not offer (jump point search on a hex board).
    #[error("{option} needs a square board, not {board}")]
    NeedsSquareBoard {
        /// The option asked for, by name.
        option: &'static str,
        /// The board it was asked for on.
        board: Board,
    },
    /// The start is outside the grid.
    #[error("start {pos} is outside the {width}x{height} map")]
    StartOutside {
        /// The start.
        pos: Pos,
        /// The grid's width.
        width: u32,
        /// The grid's height.
        height: u32,
    },
    /// The goal is outside the grid.
    #[error("goal {pos} is outside the {width}x{height} map")]
    GoalOutside {
        /// The goal.
        pos: Pos,
        /// The grid's width.
        width: u32,
        /// The grid's height.
        height: u32,
    },
    /// The start cell is impassable.
    #[error("start {0} is impassable")]
    StartBlocked(Pos),
    /// The goal cell is impassable, or the passage rule of [`SearchContext::search_with`]
    /// blocks it ([`Passage::Blocked`]).
    #[error("goal {0} is impassable")]
    GoalBlocked(Pos),
    /// The passage rule of [`SearchContext::search_with`] lets the goal be walked through,
    /// never stopped on.
    #[error("goal {0} may be passed through but not stopped on")]
    GoalPassOnly(Pos),
    /// Start and goal lie in different regions of the grid under the board's moves
    /// ([`Grid::connected`]): known without searching.
    #[error("start and goal are in different regions")]
    DifferentRegions,
    /// The search expanded every cell it could reach without reaching the goal: a passage
    /// rule ([`SearchContext::search_with`]) blocked every way there.
    #[error("the search ran out of cells before reaching the goal")]
    Exhausted,
}

/// Runs a single search with a fresh context. Use a [`SearchContext`] for repeated queries.
pub fn find_path(
    grid: &Grid,
    start: Pos,
    goal: Pos,
    options: &SearchOptions,
) -> Result<Found, NoPath> {
    SearchContext::new().search(grid, start, goal, options)
}

/// What a search knows of a cell it has reached (meaningful while its stamp is current).
#[derive(Clone, Copy, Debug, Default, Zeroable)]
struct Node {
    g: f64,
    parent: u32,
}

/// A cell's stamp: which search saw it last, and how far (see `SearchContext::stamps`).
type Stamp = u8;

/// Reusable memory for searches: keep one per thread (or per system) and query it many times.
#[derive(Debug, Default)]
pub struct SearchContext {
    /// Per cell: `generation` = on the frontier, `generation + 1` = expanded, anything else =
    /// unseen. Apart from `nodes`, and one byte a cell, so that the common question "seen
    /// yet?" reads a sixteenth of the memory, which stays in cache.
    stamps: Vec<Stamp>,
    nodes: Vec<Node>,
    generation: Stamp,
    heap: OpenList,
    queue: VecDeque<u32>,
    stack: Vec<u32>,
    /// The backward search of a bidirectional search: its stamps (same generations as
    /// `stamps`), its cells' costs to the goal and next cells towards it, and its frontier.
    /// Grown on the first bidirectional search, so other searches never pay for them.
    back_stamps: Vec<Stamp>,
    back_nodes: Vec<Node>,
    back_heap: OpenList,
    expansions: Vec<Pos>,
    stats: SearchStats,
}

/// The goal-directed part of a query, absent for a movement range.
#[derive(Clone, Copy)]
struct Target {
    index: usize,
    pos: Pos,
    heuristic: Heuristic,
    /// Multiplies the heuristic's step estimate: smallest cost × weight.
    scale: f64,
    /// `(weight of g, weight of h)` in the priority.
    mix: (f64, f64),
}

impl SearchContext {
    /// An empty context: its memory grows to fit the first grid it searches.
    pub fn new() -> Self {
        Self::default()
    }

    /// Finds a path from `start` to `goal`, allocating only the returned path.
    pub fn search(
        &mut self,
        grid: &Grid,
        start: Pos,
        goal: Pos,
        options: &SearchOptions,
    ) -> Result<Found, NoPath> {
        let mut path = CellPath::default();
        let stats =
            self.point_to_point(grid, start, goal, options, None, &mut path, &mut NoTrace)?;
        Ok(Found { path, stats })
    }

    /// [`Self::search`], recording every step it takes in `trace` (cleared first): what
    /// it pushed, relaxed and expanded, with `g`, `h` and `f`, the scans of jump point
    /// search, and where a bidirectional search met and why it stopped ([`TraceEvent`]).
    /// The search itself is the same: same path, same [`SearchStats`]. Searches without a
    /// trace pay nothing for this.
    pub fn search_traced(
        &mut self,
        grid: &Grid,
        start: Pos,
        goal: Pos,
        options: &SearchOptions,
        trace: &mut Trace,
    ) -> Result<Found, NoPath> {
        trace.clear();
        let mut path = CellPath::default();
        let stats = self.point_to_point(grid, start, goal, options, None, &mut path, trace)?;
        Ok(Found { path, stats })
    }

    /// [`Self::search_with`], recording every step in `trace` as [`Self::search_traced`] does.
    pub fn search_traced_with(
        &mut self,
        grid: &Grid,
        start: Pos,
        goal: Pos,
        options: &SearchOptions,
        trace: &mut Trace,
        passage: impl Fn(Pos) -> Passage,
    ) -> Result<Found, NoPath> {
        trace.clear();
        let mut path = CellPath::default();
        let stats =
            self.point_to_point(grid, start, goal, options, Some(&passage), &mut path, trace)?;
        Ok(Found { path, stats })
    }

    /// Like [`Self::search`], writing the path into `path` (its buffer is reused): once the
    /// context and the buffer have grown to the grid's size, this allocates nothing.
    pub fn search_into(
        &mut self,
        grid: &Grid,
        start: Pos,
        goal: Pos,
        options: &SearchOptions,
        path: &mut CellPath,
    ) -> Result<SearchStats, NoPath> {
        self.point_to_point(grid, start, goal, options, None, path, &mut NoTrace)
    }

    /// [`Self::search`] under a passage rule for each cell, as in a movement range
    /// ([`Self::range_with`]) without a budget: the way to re-plan around other units
    /// without editing the grid. `Blocked` cells are never entered; `PassOnly` cells are
    /// walked through, and a `PassOnly` goal is refused ([`NoPath::GoalPassOnly`]);
    /// `EndsMove` and `TakesAllPoints` cells are entered at their usual cost but never
    /// left, so only the goal may be one. The start's own passage never applies (nor the
    /// goal's, when it is the start). The region check before the search ignores the rule,
    /// so cells it blocks may leave the search to run out of cells
    /// ([`NoPath::Exhausted`]). Jump point search falls back to A* here.
    ///
    /// ```
    /// use tilewalk_path::{Grid, Passage, Pos, SearchContext, SearchOptions};
    ///
    /// let grid = Grid::new(3, 2).unwrap();
    /// // Another unit holds (1, 0): go around it.
    /// let held = |p: Pos| if p == Pos::new(1, 0) { Passage::Blocked } else { Passage::Open };
    /// let options = SearchOptions::with_diagonal(tilewalk_path::Diagonal::Never);
    /// let found = SearchContext::new()
    ///     .search_with(&grid, Pos::new(0, 0), Pos::new(2, 0), &options, held)
    ///     .unwrap();
    /// assert_eq!(found.path.cost, 4.0);
    /// ```
    pub fn search_with(
        &mut self,
        grid: &Grid,
        start: Pos,
        goal: Pos,
        options: &SearchOptions,
        passage: impl Fn(Pos) -> Passage,
    ) -> Result<Found, NoPath> {
        let mut path = CellPath::default();
        let stats = self.point_to_point(
            grid,
            start,
            goal,
            options,
            Some(&passage),
            &mut path,
            &mut NoTrace,
        )?;
        Ok(Found { path, stats })
    }

    /// [`Self::search_with`] writing into `path`, as [`Self::search_into`] does: once warmed
    /// up, this allocates nothing either.
    pub fn search_into_with(
        &mut self,
        grid: &Grid,
        start: Pos,
        goal: Pos,
        options: &SearchOptions,
        path: &mut CellPath,
        passage: impl Fn(Pos) -> Passage,
    ) -> Result<SearchStats, NoPath> {
        self.point_to_point(
            grid,
            start,
            goal,
            options,
            Some(&passage),
            path,
            &mut NoTrace,
        )
    }

    fn point_to_point(
        &mut self,
        grid: &Grid,
        start: Pos,
        goal: Pos,
        options: &SearchOptions,
        passage: Option<&dyn Fn(Pos) -> Passage>,
        path: &mut CellPath,
        tracer: &mut impl Tracer,
    ) -> Result<SearchStats, NoPath> {
        path.cells.clear();
        path.cost = 0.0;
        self.stats = SearchStats::default();
        self.expansions.clear();
        let board = options.board;
        if options.algorithm == Algorithm::JumpPoint && matches!(board, Board::Hex(_)) {
            return Err(NoPath::NeedsSquareBoard {
                option: "jump point search",
                board,
            });
        }
        check_endpoints(grid, start, goal)?;
        if let Some(passage) = passage
            && goal != start
        {
            match passage(goal) {
                Passage::Blocked => return Err(NoPath::GoalBlocked(goal)),
                Passage::PassOnly => return Err(NoPath::GoalPassOnly(goal)),
                Passage::Open | Passage::EndsMove | Passage::TakesAllPoints => {}
            }
        }
        if !grid.connected(start, goal, board) {
            return Err(NoPath::DifferentRegions);
        }
        let weight = if options.weight >= 1.0 && !options.algorithm.is_bidirectional() {
            options.weight
        } else {
            1.0
        };
        let heuristic = match options.algorithm {
            Algorithm::Dijkstra | Algorithm::BidirectionalDijkstra => Heuristic::Zero,
            _ => options
                .heuristic
                .unwrap_or_else(|| Heuristic::tightest_for(board)),
        };
        let target = Target {
            index: grid.index(goal),
            pos: goal,
            heuristic,
            scale: grid.min_cost().unwrap_or(1.0) * weight,
            mix: match options.algorithm {
                Algorithm::BestFirst => (0.0, 1.0),
                _ => (1.0, 1.0),
            },
        };
        let start_index = grid.index(start);
        let search = Search {
            grid,
            board,
            target: Some(target),
            budget: f64::INFINITY,
            passage,
            record: options.record_expansions,
        };
        let jump = options.algorithm == Algorithm::JumpPoint
            && board == Board::Square(Diagonal::NoObstacles)
            && passage.is_none();
        let reached = match (options.algorithm, grid.uniform_cost()) {
            (Algorithm::JumpPoint, Some(cost)) if jump => {
                let mut heap = std::mem::take(&mut self.heap);
                let reached = self.jump_points(&search, start_index, cost, &mut heap, tracer);
                self.heap = heap;
                reached
            }
            (
                Algorithm::AStar
                | Algorithm::Dijkstra
                | Algorithm::BestFirst
                | Algorithm::JumpPoint,
                _,
            ) => {
                let mut heap = std::mem::take(&mut self.heap);
                let reached = self.run(&search, start_index, &mut Heap(&mut heap), tracer);
                self.heap = heap;
                reached
            }
            (Algorithm::Bidirectional | Algorithm::BidirectionalDijkstra, _) => {
                // Its path is read off two searches: it ends here.
                let meeting = self
                    .bidirectional(&search, start_index, tracer)
                    .ok_or(NoPath::Exhausted)?;
                self.meeting_path(grid, start_index, target.index, meeting, path);
                return Ok(self.stats);
            }
            (Algorithm::Bfs, _) => {
                let mut queue = std::mem::take(&mut self.queue);
                let reached = self.run(&search, start_index, &mut Fifo(&mut queue), tracer);
                self.queue = queue;
                reached
            }
            (Algorithm::Dfs, _) => {
                let mut stack = std::mem::take(&mut self.stack);
                let reached = self.run(&search, start_index, &mut Lifo(&mut stack), tracer);
                self.stack = stack;
                reached
            }
        };
        if !reached {
            return Err(NoPath::Exhausted);
        }
        let mut index = target.index;
        path.cost = self.nodes[index].g;
        path.cells.push(goal);
        while index != start_index {
            let parent = self.nodes[index].parent as usize;
            // Jump point search links cells a straight or diagonal line apart: walk the line.
            // Every other search links neighbours, which differ by at most one column and
            // one row on any board, so the walk is a single step.
            let (from, to) = (grid.pos(index), grid.pos(parent));
            let (dx, dy) = (to.x.cmp(&from.x) as i32, to.y.cmp(&from.y) as i32);
            let mut at = from;
            while at != to {
                at = Pos::new(at.x.wrapping_add_signed(dx), at.y.wrapping_add_signed(dy));
                path.cells.push(at);
            }
            index = parent;
        }
        path.cells.reverse();
        Ok(self.stats)
    }

    /// Every cell reachable from `start` within `budget` movement points, with its cost and
    /// the cheapest way there (a bounded Dijkstra under the same cost model as the searches).
    /// A negative or NaN budget counts as 0 (the range is the start alone); an infinite one
    /// reaches every cell of the start's region.
    pub fn range(
        &mut self,
        grid: &Grid,
        start: Pos,
        budget: f64,
        board: impl Into<Board>,
    ) -> Result<Range, NoPath> {
        self.bounded(grid, start, budget, board.into(), None)
    }

    /// A movement range under tactics rules: `passage` says, for each cell, whether it may be
    /// entered, passed through, stopped on, or ends the move ([`Passage`]). The rules act
    /// inside the search, so every cell's cost and path respect them; the start cell is
    /// never "entered", so its own passage does not apply.
    pub fn range_with(
        &mut self,
        grid: &Grid,
        start: Pos,
        budget: f64,
        board: impl Into<Board>,
        passage: impl Fn(Pos) -> Passage,
    ) -> Result<Range, NoPath> {
        self.bounded(grid, start, budget, board.into(), Some(&passage))
    }

    fn bounded(
        &mut self,
        grid: &Grid,
        start: Pos,
        budget: f64,
        board: Board,
        passage: Option<&dyn Fn(Pos) -> Passage>,
    ) -> Result<Range, NoPath> {
        self.stats = SearchStats::default();
        self.expansions.clear();
        check_endpoints(grid, start, start)?;
        let search = Search {
            grid,
            board,
            target: None,
            // `max` turns NaN into 0 too.
            budget: budget.max(0.0),
            passage,
            record: true,
        };
        let mut heap = std::mem::take(&mut self.heap);
        self.run(
            &search,
            grid.index(start),
            &mut Heap(&mut heap),
            &mut NoTrace,
        );
        self.heap = heap;
        let cells: Vec<Reached> = self
            .expansions
            .iter()
            .map(|&pos| {
                let node = self.nodes[grid.index(pos)];
                let at_start = pos == start;
                Reached {
                    pos,
                    cost: node.g,
                    parent: (!at_start).then(|| grid.pos(node.parent as usize)),
                    can_stop: at_start || passage.is_none_or(|p| p(pos) != Passage::PassOnly),
                }
            })
            .collect();
        let lookup = cells.iter().enumerate().map(|(i, r)| (r.pos, i)).collect();
        Ok(Range { cells, lookup })
    }

    /// The cells the last search expanded, in order (recorded when
    /// [`SearchOptions::record_expansions`] was set; always recorded by [`Self::range`]).
    pub fn expansions(&self) -> &[Pos] {
        &self.expansions
    }

    /// Statistics of the last search, failed ones included.
    pub fn stats(&self) -> SearchStats {
        self.stats
    }

    /// Sizes the per-cell memory for grids of `cells` cells and maps its pages now, so that
    /// the first search on them does not pay for it ([`crate::GroupPlanner::reserve`]).
    pub(crate) fn reserve(&mut self, cells: usize) {
        if self.nodes.len() != cells {
            self.begin(cells);
            map_pages(&mut self.nodes);
            map_pages(&mut self.stamps);
            self.heap.map_pages();
        }
    }

    /// Starts a generation: stamps from older searches no longer mean anything.
    fn begin(&mut self, cells: usize) -> Stamp {
        if self.nodes.len() != cells {
            // Zeroed memory: a search touches only the pages of the cells it reaches.
            self.nodes = zeroed(cells);
            self.stamps = zeroed(cells);
            self.heap.reserve(cells);
            // Stale generations in the backward stamps would read as current: the next
            // bidirectional search grows them afresh.
            self.back_stamps.clear();
            self.generation = 0;
        } else if self.generation >= Stamp::MAX - 2 {
            // Out of generations (every 127th search): forget them all, in place.
            self.stamps.fill(0);
            self.back_stamps.fill(0);
            self.generation = 0;
        }
        self.generation += 2;
        self.generation
    }

    /// The shared loop on the search's board. Returns whether the target was reached
    /// (always false for a range).
    fn run<F: Frontier, T: Tracer>(
        &mut self,
        search: &Search,
        start: usize,
        frontier: &mut F,
        tracer: &mut T,
    ) -> bool {
        match search.board {
            Board::Square(diagonal) => {
                self.run_on(search, SquareMoves(diagonal), start, frontier, tracer)
            }
            Board::Hex(layout) => self.run_on(search, HexMoves(layout), start, frontier, tracer),
        }
    }

    /// The shared loop, monomorphised per frontier, per board shape and per tracer, and
    /// once more for plain point-to-point searches, which it runs without the code of
    /// passage rules, budgets and recorded expansions.
    fn run_on<F: Frontier, M: Moves, T: Tracer>(
        &mut self,
        search: &Search,
        moves: M,
        start: usize,
        frontier: &mut F,
        tracer: &mut T,
    ) -> bool {
        match search.target {
            Some(target)
                if search.passage.is_none() && search.budget == f64::INFINITY && !search.record =>
            {
                self.run_loop::<F, M, T, false>(search, target, moves, start, frontier, tracer)
            }
            target => {
                // A range has no target: the priority is `g`.
                let target = target.unwrap_or(Target {
                    index: usize::MAX,
                    pos: Pos::default(),
                    heuristic: Heuristic::Zero,
                    scale: 0.0,
                    mix: (1.0, 0.0),
                });
                self.run_loop::<F, M, T, true>(search, target, moves, start, frontier, tracer)
            }
        }
    }

    /// [`Self::run_on`]'s loop; `RULES` says whether the search may have passage rules, a
    /// budget or recorded expansions (without, their code is compiled out).
    #[inline(always)]
    fn run_loop<F: Frontier, M: Moves, T: Tracer, const RULES: bool>(
        &mut self,
        search: &Search,
        target: Target,
        moves: M,
        start: usize,
        frontier: &mut F,
        tracer: &mut T,
    ) -> bool {
        let open = self.begin(search.grid.costs().len());
        let closed = open + 1;
        let grid = search.grid;
        let costs = grid.costs();
        let tables = moves.tables();
        let offsets = moves.offsets(grid);
        // Where every passable cell costs the same, each step has a fixed price.
        let step_costs = grid
            .uniform_cost()
            .map(|c| tables.map(|t| t.map(|s| c * s.length)));
        let estimate = |pos: Pos| target.scale * moves.estimate(target.heuristic, pos, target.pos);
        let (g_weight, h_weight) = target.mix;
        let budget = if RULES { search.budget } else { f64::INFINITY };
        frontier.clear();
        let (stamps, nodes) = (&mut self.stamps[..], &mut self.nodes[..]);
        let (mut expanded, mut pushed) = (0, 1);
        nodes[start] = Node {
            g: 0.0,
            parent: start as u32,
        };
        stamps[start] = open;
        frontier.push(start as u32, 0.0, 0.0);
        tracer.record(|| {
            let pos = grid.pos(start);
            let h = estimate(pos);
            TraceEvent::Push {
                direction: Direction::Forward,
                pos,
                parent: None,
                g: 0.0,
                h,
                f: h_weight * h,
            }
        });
        let mut reached = false;
        while let Some(index) = frontier.pop() {
            let index = index as usize;
            if stamps[index] == closed {
                continue; // a stale entry: the cell was expanded through a cheaper push
            }
            stamps[index] = closed;
            let node = nodes[index];
            expanded += 1;
            let pos = grid.pos(index);
            if RULES && search.record {
                self.expansions.push(pos);
            }
            tracer.record(|| TraceEvent::Expand {
                direction: Direction::Forward,
                pos,
                g: node.g,
            });
            if index == target.index {
                reached = true;
                break;
            }
            // A cell that ends the move is reached but not left.
            if RULES
                && let Some(passage) = search.passage
                && index != start
                && matches!(passage(pos), Passage::EndsMove | Passage::TakesAllPoints)
            {
                continue;
            }
            let table = moves.table(pos);
            let (steps, offsets) = (&tables[table], &offsets[table]);
            let prices = step_costs.as_ref().map(|prices| &prices[table]);
            // The allowed steps as a bit mask, visited in the board's neighbour order.
            let mut allowed = moves.allowed_at(grid, offsets, index);
            while allowed != 0 {
                let d = allowed.trailing_zeros() as usize;
                allowed &= allowed - 1;
                let next = index.wrapping_add_signed(offsets[d]);
                let stamp = stamps[next];
                let on_frontier = stamp == open;
                if stamp == closed || (on_frontier && !F::RELAXES) {
                    continue;
                }
                let step = match prices {
                    Some(prices) => prices[d],
                    None => costs[next] * steps[d].length,
                };
                let mut g = node.g + step;
                let to = || {
                    Pos::new(
                        pos.x.wrapping_add_signed(steps[d].dx),
                        pos.y.wrapping_add_signed(steps[d].dy),
                    )
                };
                if RULES && let Some(passage) = search.passage {
                    match passage(to()) {
                        Passage::Blocked => continue,
                        // Without a budget (infinite) there are no points to take: the
                        // step costs what the terrain costs, and the move ends there.
                        Passage::TakesAllPoints if budget == f64::INFINITY => {}
                        // Any points left buy the step, and it spends them all.
                        Passage::TakesAllPoints if node.g < budget - BUDGET_SLACK => {
                            g = budget;
                        }
                        Passage::TakesAllPoints => continue,
                        Passage::Open | Passage::PassOnly | Passage::EndsMove => {}
                    }
                }
                // Only a cell on the frontier has a `g` to beat: an unseen one's is not read.
                let old_g = if on_frontier {
                    nodes[next].g
                } else {
                    f64::INFINITY
                };
                if g >= old_g || (RULES && g > budget + BUDGET_SLACK) {
                    continue;
                }
                nodes[next] = Node {
                    g,
                    parent: index as u32,
                };
                stamps[next] = open;
                pushed += 1;
                let h = estimate(to());
                let priority = g_weight * g + h_weight * h;
                tracer.record(|| trace_push(on_frontier, to(), pos, old_g, g, h, priority));
                // A cheaper way whose priority rounds to the old one (the same steps summed in
                // another order) leaves the open list as it is: the entry already waiting
                // stands for it, pops at the same moment, and finds the new `g` and parent.
                frontier.push(next as u32, priority, h);
            }
        }
        self.stats.expanded += expanded;
        self.stats.pushed += pushed;
        reached
    }
}

/// The event of a forward push: a first `Push`, or a `Relax` of a cell on the frontier.
fn trace_push(
    on_frontier: bool,
    pos: Pos,
    parent: Pos,
    old_g: f64,
    g: f64,
    h: f64,
    f: f64,
) -> TraceEvent {
    let direction = Direction::Forward;
    if on_frontier {
        TraceEvent::Relax {
            direction,
            pos,
            parent,
            old_g,
            g,
            h,
            f,
        }
    } else {
        TraceEvent::Push {
            direction,
            pos,
            parent: Some(parent),
            g,
            h,
            f,
        }
    }
}

/// Why a search from `start` to `goal` on `grid` cannot start: an end outside the grid or
/// impassable.
pub(crate) fn check_endpoints(grid: &Grid, start: Pos, goal: Pos) -> Result<(), NoPath> {
    let (width, height) = (grid.width(), grid.height());
    if !grid.contains(start) {
        return Err(NoPath::StartOutside {
            pos: start,
            width,
            height,
        });
    }
    if !grid.contains(goal) {
        return Err(NoPath::GoalOutside {
            pos: goal,
            width,
            height,
        });
    }
    if !grid.is_passable(start) {
        return Err(NoPath::StartBlocked(start));
    }
    if !grid.is_passable(goal) {
        return Err(NoPath::GoalBlocked(goal));
    }
    Ok(())
}

/// What one run of the loop needs to know.
struct Search<'a> {
    grid: &'a Grid,
    board: Board,
    target: Option<Target>,
    /// Cells costing more than this are not entered (infinite for point-to-point searches).
    budget: f64,
    /// Tactics rules: for a movement range, or a search around other units.
    passage: Option<&'a dyn Fn(Pos) -> Passage>,
    record: bool,
}

/// Sums of √2 steps are inexact: a cell costing the budget up to rounding is in range.
const BUDGET_SLACK: f64 = 1e-9;

/// What tactics rules make of a cell in a movement range ([`SearchContext::range_with`]) or
/// a search around other units ([`SearchContext::search_with`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Passage {
    /// Enter, stop, go on.
    Open,
    /// Walk through, never stop (an ally stands there).
    PassOnly,
    /// Never enter (an enemy stands there).
    Blocked,
    /// Enter at the usual cost; the move ends there (a zone of control).
    EndsMove,
    /// Entering costs every point left, whatever the terrain; the move ends there. Without
    /// a budget ([`SearchContext::search_with`], or an infinite range budget) there are no
    /// points to take: it is entered at the usual cost, like `EndsMove`.
    TakesAllPoints,
}

/// A board shape as the shared loop sees it, so that the loop is monomorphised per shape:
/// a square board has one table of eight steps, a hex board two tables of six, picked by
/// whether the cell's row (or column) is shifted. Both stay within one row and one column,
/// so the padded storage's one-cell border makes every neighbour index valid.
pub(crate) trait Moves: Copy {
    /// Steps per cell: the first `COUNT` entries of each table.
    const COUNT: usize;
    /// The step tables, in the board's neighbour order.
    fn tables(self) -> [[Step; 8]; 2];
    /// Which table applies at `pos`.
    fn table(self, pos: Pos) -> usize;
    /// The steps allowed from a cell, as a bit mask (bit `d` for step `d`), given the same
    /// mask of its passable neighbours.
    fn allowed(self, passable: u32) -> u32;
    /// The steps allowed from the cell at `index` of `grid`, as [`Self::allowed`] gives
    /// them, reading its neighbours' passability through `offsets` (its table's, from
    /// [`Self::offsets`]).
    #[inline(always)]
    fn allowed_at(self, grid: &Grid, offsets: &[isize; 8], index: usize) -> u32 {
        let passable = grid.open();
        let mut around = 0;
        for (d, offset) in offsets.iter().enumerate().take(Self::COUNT) {
            around |= u32::from(passable[index.wrapping_add_signed(*offset)]) << d;
        }
        self.allowed(around)
    }
    /// The step tables as offsets between cell indices in `grid`'s padded storage.
    fn offsets(self, grid: &Grid) -> [[isize; 8]; 2] {
        let stride = grid.stride() as isize;
        self.tables()
            .map(|t| t.map(|s| s.dy as isize * stride + s.dx as isize))
    }
    /// The heuristic's step estimate from `a` to `b`.
    fn estimate(self, heuristic: Heuristic, a: Pos, b: Pos) -> f64;
}

#[derive(Clone, Copy)]
pub(crate) struct SquareMoves(pub(crate) Diagonal);

impl Moves for SquareMoves {
    const COUNT: usize = 8;
    fn tables(self) -> [[Step; 8]; 2] {
        [STEPS, STEPS]
    }
    #[inline]
    fn table(self, _: Pos) -> usize {
        0
    }
    #[inline]
    fn allowed(self, passable: u32) -> u32 {
        self.0.allowed_steps(passable)
    }
    /// The grid keeps each cell's passable neighbours in [`STEPS`] order: one load.
    #[inline(always)]
    fn allowed_at(self, grid: &Grid, _: &[isize; 8], index: usize) -> u32 {
        self.allowed(u32::from(grid.around()[index]))
    }
    #[inline]
    fn estimate(self, heuristic: Heuristic, a: Pos, b: Pos) -> f64 {
        heuristic.distance(a.x.abs_diff(b.x), a.y.abs_diff(b.y))
    }
}

#[derive(Clone, Copy)]
pub(crate) struct HexMoves(pub(crate) HexLayout);

impl Moves for HexMoves {
    const COUNT: usize = 6;
    fn tables(self) -> [[Step; 8]; 2] {
        [false, true].map(|shifted| {
            // The last two slots are never allowed.
            let mut table = [Step {
                dx: 0,
                dy: 0,
                length: 1.0,
            }; 8];
            for (step, (dx, dy)) in table.iter_mut().zip(self.0.steps(shifted)) {
                (step.dx, step.dy) = (dx, dy);
            }
            table
        })
    }
    #[inline]
    fn table(self, pos: Pos) -> usize {
        usize::from(self.0.shifted(pos.x, pos.y))
    }
    #[inline]
    fn allowed(self, passable: u32) -> u32 {
        // Hex steps have no corner rule: every passable neighbour.
        passable
    }
    #[inline]
    fn estimate(self, heuristic: Heuristic, a: Pos, b: Pos) -> f64 {
        Board::Hex(self.0).heuristic(heuristic, a, b)
    }
}

/// Where discovered cells wait to be expanded.
trait Frontier {
    /// Whether a cheaper way to a cell already on the frontier replaces the old one
    /// (priority queues), or the first discovery is final (BFS, DFS).
    const RELAXES: bool;
    fn clear(&mut self);
    /// `h` only breaks ties between equal priorities (lower first).
    fn push(&mut self, index: u32, priority: f64, h: f64);
    fn pop(&mut self) -> Option<u32>;
}

struct Heap<'a>(&'a mut OpenList);

impl Frontier for Heap<'_> {
    const RELAXES: bool = true;
    fn clear(&mut self) {
        self.0.clear();
    }
    #[inline]
    fn push(&mut self, index: u32, priority: f64, h: f64) {
        self.0.push(HeapEntry::new(index, priority, h));
    }
    #[inline]
    fn pop(&mut self) -> Option<u32> {
        self.0.pop().map(HeapEntry::index)
    }
}

struct Fifo<'a>(&'a mut VecDeque<u32>);

impl Frontier for Fifo<'_> {
    const RELAXES: bool = false;
    fn clear(&mut self) {
        self.0.clear();
    }
    fn push(&mut self, index: u32, _: f64, _: f64) {
        self.0.push_back(index);
    }
    fn pop(&mut self) -> Option<u32> {
        self.0.pop_front()
    }
}

struct Lifo<'a>(&'a mut Vec<u32>);

impl Frontier for Lifo<'_> {
    const RELAXES: bool = false;
    fn clear(&mut self) {
        self.0.clear();
    }
    fn push(&mut self, index: u32, _: f64, _: f64) {
        self.0.push(index);
    }
    fn pop(&mut self) -> Option<u32> {
        self.0.pop()
    }
}

/// A cell inside a movement range.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Reached {
    /// The cell.
    pub pos: Pos,
    /// The cheapest cost from the range's origin.
    pub cost: f64,
    /// The previous cell on a cheapest way here; `None` for the origin.
    pub parent: Option<Pos>,
    /// Whether a move may end here ([`Passage::PassOnly`] cells are only walked through).
    pub can_stop: bool,
}

/// Every cell reachable within a budget, from [`SearchContext::range`]. The path to any
/// cell in it is read off the stored parents, without another search.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Range {
    cells: Vec<Reached>,
    lookup: std::collections::HashMap<Pos, usize>,
}

impl Range {
    /// The reached cells in order of increasing cost; the first is the origin.
    pub fn cells(&self) -> &[Reached] {
        &self.cells
    }

    /// What the range knows of `pos`, if it is in range.
    pub fn get(&self, pos: Pos) -> Option<&Reached> {
        self.lookup.get(&pos).map(|&i| &self.cells[i])
    }

    /// Whether `pos` is in range.
    pub fn contains(&self, pos: Pos) -> bool {
        self.lookup.contains_key(&pos)
    }

    /// The cheapest cost from the origin to `pos`, if it is in range.
    pub fn cost(&self, pos: Pos) -> Option<f64> {
        self.get(pos).map(|r| r.cost)
    }

    /// The cheapest path from the origin to `pos`, if it is in range.
    pub fn path_to(&self, pos: Pos) -> Option<CellPath> {
        let mut reached = self.get(pos)?;
        let cost = reached.cost;
        let mut cells = vec![reached.pos];
        while let Some(parent) = reached.parent {
            reached = self.get(parent)?;
            cells.push(parent);
        }
        cells.reverse();
        Some(CellPath { cells, cost })
    }
}
