//! ALT: A* with landmarks and the triangle inequality (Goldberg and Harrelson 2005).
//!
//! A few cells, the *landmarks*, each get two tables: every cell's cost to walk to the
//! landmark, and from it. For any cells `v` and `t` and a landmark `L`, a cheapest way from
//! `v` to `L` is no dearer than a cheapest way from `v` to `t` and on to `L`, so
//! `d(v, t) ≥ d(v, L) − d(t, L)`, and likewise `d(v, t) ≥ d(L, t) − d(L, v)`. The largest of
//! these bounds is a lower bound of the rest of the way that knows the terrain (a lake, a
//! wall, a belt of forest between `v` and the goal) where the straight-line heuristic knows
//! only the distance: A* guided by it stays exact and expands far fewer cells on long,
//! weighted ways.
//!
//! The tables are built over a grid a little cheaper than the real one (each step's cost
//! rounded down to a 32nd of the grid's smallest cost), so that the searches that build them
//! are bucket queues over integers (Dial's algorithm) instead of a heap; the
//! bounds of a cheaper grid are bounds of this one. Each entry is then stored in 16 bits, a
//! multiple of its table's quantum rounded down, so a bound loses at most a quantum and a
//! cell's entries share a cache line. Rounded bounds are admissible but may be inconsistent
//! by up to a quantum a step, so the search re-opens a cell it finds a cheaper way to after
//! expanding it: it stays exact.
//!
//! A cost that rises leaves every bound admissible (the tables' costs are then no more than
//! the new ones, and `d_old(v, L) − d_old(t, L) ≤ d_old(v, t) ≤ d_new(v, t)`); a cost that
//! falls, or a cell that opens, may make a bound overestimate. [`Landmarks::invalidate`]
//! marks the tables out of date, and searches then run plain A* until they are rebuilt.

use crate::board::Board;
use crate::grid::Grid;
use crate::moves::Heuristic;
use crate::open_list::HeapEntry;
use crate::pos::Pos;

use super::{
    CellPath, Found, HexMoves, Moves, NoPath, Node, SearchContext, SearchOptions, SearchStats,
    SquareMoves, check_endpoints,
};

/// A table entry for a cell that cannot walk to the landmark (or be reached from it).
const UNREACHABLE: u16 = u16::MAX;
/// A table entry for a cell at least this many quanta from the landmark.
const SATURATED: u16 = u16::MAX - 1;
/// How many tables bound a search: those that bound its start best (the others rarely beat
/// them on the way, and each costs a load and a comparison per cell reached).
pub const ACTIVE_LANDMARKS: usize = 4;

/// The landmark tables of one grid, for [`SearchContext::search_landmarks`]: an exact A* that
/// expands far fewer cells than plain A* on long, weighted ways. Build them once per grid
/// (for a movement class, on a map), keep them while costs only rise, and rebuild them when
/// a cost falls ([`Self::invalidate`]). They take 4 bytes a cell a landmark (2 tables).
///
/// ```
/// use tilewalk_path::{Board, Grid, Landmarks, Pos, SearchContext, SearchOptions};
///
/// // Grass with a wall of rock down the middle, open at the bottom.
/// let grid = Grid::from_fn(64, 64, |p| (p.x != 32 || p.y == 63).then_some(1.0)).unwrap();
/// let landmarks = Landmarks::build(&grid, Board::default(), 8);
/// let mut context = SearchContext::new();
/// let (start, goal) = (Pos::new(30, 0), Pos::new(34, 0));
/// let alt = context.search_landmarks(&grid, &landmarks, start, goal).unwrap();
/// let plain = context.search(&grid, start, goal, &SearchOptions::default()).unwrap();
/// assert!((alt.path.cost - plain.path.cost).abs() < 1e-9);
/// assert!(alt.stats.expanded * 4 < plain.stats.expanded);
/// ```
#[derive(Clone, Debug)]
pub struct Landmarks {
    board: Board,
    width: u32,
    height: u32,
    /// The grid's storage size (with its border), which the tables are indexed by.
    cells: usize,
    landmarks: Vec<Pos>,
    /// Per cell (storage index), per column: the cell's cost to walk to a landmark (the first
    /// half of the columns) or from it (the second half), in quanta, rounded down
    /// (`UNREACHABLE`, `SATURATED`).
    table: Vec<u16>,
    /// Per column: the cost of one quantum of its entries.
    quanta: Vec<f64>,
    valid: bool,
    stats: SearchStats,
}

impl Landmarks {
    /// Builds the tables of `count` landmarks (at least 1) on `grid` for moves on `board`,
    /// spread evenly around the map's edge (each on the passable cell nearest its point of
    /// the edge), two searches each, side by side on the threads the machine has.
    pub fn build(grid: &Grid, board: impl Into<Board>, count: usize) -> Self {
        let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
        Self::build_on(grid, board, count, threads)
    }

    /// [`Self::build`] on at most `threads` threads (at least 1).
    pub fn build_on(grid: &Grid, board: impl Into<Board>, count: usize, threads: usize) -> Self {
        let board = board.into();
        let landmarks = places(grid, count.max(1));
        let cells = grid.costs().len();
        // Columns: each landmark's costs to it, then each one's costs from it.
        let jobs: Vec<(Pos, bool)> = landmarks
            .iter()
            .map(|&l| (l, true))
            .chain(landmarks.iter().map(|&l| (l, false)))
            .collect();
        let threads = threads.clamp(1, jobs.len());
        let columns = jobs.len();
        // Each search writes its column into the table as soon as it is done, from its
        // thread's distances: the build holds the table and one distance per cell per
        // thread, never the finished columns apart from the table.
        let table = std::sync::Mutex::new(vec![UNREACHABLE; cells * columns]);
        let mut results: Vec<(usize, Column)> = std::thread::scope(|scope| {
            let handles: Vec<_> = (0..threads)
                .map(|t| {
                    let (jobs, table) = (&jobs, &table);
                    scope.spawn(move || {
                        let mut fill = Fill::default();
                        (t..jobs.len())
                            .step_by(threads)
                            .map(|j| {
                                let (landmark, to) = jobs[j];
                                let column = fill.column(grid, board, landmark, to);
                                let mut table = table.lock().unwrap_or_else(|e| e.into_inner());
                                fill.write(column.per, &mut table, columns, j);
                                (j, column)
                            })
                            .collect::<Vec<_>>()
                    })
                })
                .collect();
            handles
                .into_iter()
                .flat_map(|h| h.join().expect("a landmark's search does not panic"))
                .collect()
        });
        results.sort_by_key(|r| r.0);
        let table = table.into_inner().unwrap_or_else(|e| e.into_inner());
        let mut quanta = Vec::with_capacity(columns);
        let mut stats = SearchStats::default();
        for (_, column) in results {
            stats.expanded += column.settled;
            quanta.push(column.quantum);
        }
        Self {
            board,
            width: grid.width(),
            height: grid.height(),
            cells,
            landmarks,
            table,
            quanta,
            valid: true,
            stats,
        }
    }

    /// The landmarks.
    pub fn landmarks(&self) -> &[Pos] {
        &self.landmarks
    }

    /// The board the tables were built for.
    pub fn board(&self) -> Board {
        self.board
    }

    /// The bytes the tables take.
    pub fn bytes(&self) -> usize {
        self.table.len() * std::mem::size_of::<u16>()
    }

    /// Cells the build settled, all its searches together.
    pub fn build_stats(&self) -> SearchStats {
        self.stats
    }

    /// Marks the tables out of date: a cost fell or a cell opened since they were built, so
    /// a bound may overestimate. [`SearchContext::search_landmarks`] then runs plain A*
    /// (exact, and slower) until they are rebuilt. Costs that only rose need no call.
    pub fn invalidate(&mut self) {
        self.valid = false;
    }

    /// Whether the tables bound searches on `grid`: built for its size and not out of date.
    pub fn fits(&self, grid: &Grid) -> bool {
        self.valid
            && (self.width, self.height) == (grid.width(), grid.height())
            && self.cells == grid.costs().len()
    }

    /// The columns that bound a search from storage index `s` to `t` best, at most
    /// [`ACTIVE_LANDMARKS`]: those whose bound at the start is largest, among those with an
    /// entry for the goal.
    fn active(&self, s: usize, t: usize) -> Vec<Active> {
        let columns = self.quanta.len();
        let count = columns / 2;
        let mut ranked: Vec<(f64, Active)> = (0..columns)
            .filter_map(|column| {
                let goal = self.table[t * columns + column];
                (goal < SATURATED).then(|| Active {
                    column,
                    goal,
                    to: column < count,
                    quantum: self.quanta[column],
                })
            })
            .map(|a| (a.bound(self.table[s * columns + a.column]), a))
            .collect();
        ranked.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.column.cmp(&b.1.column)));
        ranked
            .into_iter()
            .take(ACTIVE_LANDMARKS)
            .map(|r| r.1)
            .collect()
    }

    /// The lower bound of the way from `v` (storage index) to the goal, by the `active`
    /// columns.
    #[inline(always)]
    fn bound(&self, v: usize, active: &[Active]) -> f64 {
        let columns = self.quanta.len();
        let row = &self.table[v * columns..v * columns + columns];
        active
            .iter()
            .map(|a| a.bound(row[a.column]))
            .fold(0.0, f64::max)
    }
}

/// A column that bounds a search, with the goal's entry in it.
#[derive(Clone, Copy, Debug)]
struct Active {
    column: usize,
    goal: u16,
    /// A column of costs to its landmark (else from it).
    to: bool,
    quantum: f64,
}

impl Active {
    /// The bound from a cell with entry `q` in the column to the goal: `d(v, L) − d(t, L)`
    /// (costs to `L`) or `d(L, t) − d(L, v)` (costs from `L`), each entry rounded down, so
    /// one quantum less. A cell that cannot reach the landmark, or that it cannot reach,
    /// cannot reach the goal either (the goal has an entry): its bound is infinite.
    #[inline(always)]
    fn bound(self, q: u16) -> f64 {
        if q == UNREACHABLE {
            return f64::INFINITY;
        }
        let quanta = if self.to {
            q.saturating_sub(self.goal)
        } else {
            self.goal.saturating_sub(q)
        };
        f64::from(quanta.saturating_sub(1)) * self.quantum
    }
}

/// What one landmark search found, besides its distances (in [`Fill`] until it writes them
/// into the table as a column of quanta, [`Fill::write`]).
struct Column {
    /// Units of distance a quantum.
    per: u32,
    quantum: f64,
    settled: usize,
}

/// Each step's cost is rounded down to a multiple of the grid's smallest cost over this:
/// the columns are the costs of a grid a little cheaper everywhere (whose bounds are bounds
/// of this one), in integers that a bucket queue orders.
const STEP_FRACTION: f64 = 32.0;

/// The memory of one thread's landmark searches.
#[derive(Default)]
struct Fill {
    dist: Vec<u32>,
    buckets: Vec<Vec<u32>>,
}

impl Fill {
    fn column(&mut self, grid: &Grid, board: Board, landmark: Pos, to: bool) -> Column {
        match board {
            Board::Square(diagonal) => self.fill(grid, SquareMoves(diagonal), landmark, to),
            Board::Hex(layout) => self.fill(grid, HexMoves(layout), landmark, to),
        }
    }

    /// Dial's algorithm from `landmark` over integer step costs (each step's cost rounded
    /// down to a unit), forward (each cell's cost from the landmark) or, with `to`, backward
    /// (its cost to walk to the landmark), into `self.dist`; the column's quanta are those
    /// that fit the farthest cost in a `u16`.
    fn fill<M: Moves>(&mut self, grid: &Grid, moves: M, landmark: Pos, to: bool) -> Column {
        let cells = grid.costs().len();
        let costs = grid.costs();
        let unit = grid.min_cost().unwrap_or(1.0) / STEP_FRACTION;
        let dearest = costs
            .iter()
            .copied()
            .filter(|c| c.is_finite())
            .fold(0.0, f64::max);
        let tables = moves.tables();
        let offsets = moves.offsets(grid);
        // One bucket per cost up to the dearest step's (a ring).
        let ring = (dearest * std::f64::consts::SQRT_2 / unit).ceil() as usize + 2;
        self.dist.clear();
        self.dist.resize(cells, u32::MAX);
        self.buckets.resize_with(ring, Vec::new);
        self.buckets.truncate(ring);
        self.buckets.iter_mut().for_each(Vec::clear);
        let (dist, buckets) = (&mut self.dist[..], &mut self.buckets[..]);
        let mut waiting = 0usize;
        if grid.is_passable(landmark) {
            let start = grid.index(landmark);
            dist[start] = 0;
            buckets[0].push(start as u32);
            waiting = 1;
        }
        let (mut current, mut settled, mut farthest) = (0u32, 0usize, 0u32);
        while waiting > 0 {
            let slot = current as usize % ring;
            while let Some(index) = buckets[slot].pop() {
                waiting -= 1;
                let index = index as usize;
                if dist[index] != current {
                    continue;
                }
                settled += 1;
                farthest = current;
                let pos = grid.pos(index);
                let table = moves.table(pos);
                let (steps, offsets) = (&tables[table], &offsets[table]);
                let mut allowed = moves.allowed_at(grid, offsets, index);
                while allowed != 0 {
                    let d = allowed.trailing_zeros() as usize;
                    allowed &= allowed - 1;
                    let next = index.wrapping_add_signed(offsets[d]);
                    // Forward, the step enters `next`; backward, it is walked from `next`
                    // into this cell, and costs this cell's cost.
                    let entered = if to { costs[index] } else { costs[next] };
                    let reached = current + (entered * steps[d].length / unit) as u32;
                    if reached < dist[next] {
                        dist[next] = reached;
                        buckets[reached as usize % ring].push(next as u32);
                        waiting += 1;
                    }
                }
            }
            current += 1;
        }
        // Quanta of whole units, as few as fit the farthest cost below `SATURATED`.
        let per = (farthest / u32::from(SATURATED - 1)) + 1;
        Column {
            per,
            quantum: unit * f64::from(per),
            settled,
        }
    }

    /// Writes the last search's distances into column `column` of `table` (of `columns`
    /// columns a cell), in quanta of `per` units, rounded down.
    fn write(&self, per: u32, table: &mut [u16], columns: usize, column: usize) {
        for (entry, &d) in table[column..].iter_mut().step_by(columns).zip(&self.dist) {
            *entry = match d {
                u32::MAX => UNREACHABLE,
                d => (d / per).min(u32::from(SATURATED)) as u16,
            };
        }
    }
}

/// `count` passable cells spread evenly around the edge of `grid`, clockwise from the
/// top-left corner, each the passable cell nearest its point of the edge (no two alike).
fn places(grid: &Grid, count: usize) -> Vec<Pos> {
    let (w, h) = (i64::from(grid.width()), i64::from(grid.height()));
    let perimeter = 2 * (w - 1) + 2 * (h - 1);
    let mut places = Vec::new();
    for i in 0..count as i64 {
        let mut along = perimeter.max(1) * i / count as i64;
        let point = if along < w - 1 {
            (along, 0)
        } else {
            along -= w - 1;
            if along < h - 1 {
                (w - 1, along)
            } else {
                along -= h - 1;
                if along < w - 1 {
                    (w - 1 - along, h - 1)
                } else {
                    (0, h - 1 - (along - (w - 1)))
                }
            }
        };
        let point = Pos::new(point.0.max(0) as u32, point.1.max(0) as u32);
        if let Some(cell) = grid.nearest(point, point, |p| grid.is_passable(p))
            && !places.contains(&cell)
        {
            places.push(cell);
        }
    }
    if places.is_empty() {
        // Nothing passable: one landmark anywhere, whose table is all unreachable.
        places.push(Pos::new(0, 0));
    }
    places
}

impl SearchContext {
    /// An exact A* from `start` to `goal` guided by `landmarks` (ALT, [`Landmarks`]) as well
    /// as by the board's straight-line heuristic: the cheapest path, as
    /// [`Self::search`] with the default options on the landmarks' board finds, expanding far
    /// fewer cells on long, weighted ways. Where the landmarks do not fit `grid`
    /// ([`Landmarks::fits`]) it is that plain A*. With `record`, the expanded cells are kept
    /// ([`Self::expansions`]).
    pub fn search_landmarks(
        &mut self,
        grid: &Grid,
        landmarks: &Landmarks,
        start: Pos,
        goal: Pos,
    ) -> Result<Found, NoPath> {
        self.search_landmarks_recorded(grid, landmarks, start, goal, false)
    }

    /// [`Self::search_landmarks`], keeping the expanded cells when `record` is set.
    pub fn search_landmarks_recorded(
        &mut self,
        grid: &Grid,
        landmarks: &Landmarks,
        start: Pos,
        goal: Pos,
        record: bool,
    ) -> Result<Found, NoPath> {
        let board = landmarks.board;
        if !landmarks.fits(grid) {
            let options = SearchOptions {
                record_expansions: record,
                ..SearchOptions::on(board)
            };
            return self.search(grid, start, goal, &options);
        }
        self.stats = SearchStats::default();
        self.expansions.clear();
        check_endpoints(grid, start, goal)?;
        if !grid.connected(start, goal, board) {
            return Err(NoPath::DifferentRegions);
        }
        let (s, t) = (grid.index(start), grid.index(goal));
        let active = landmarks.active(s, t);
        let reached = match board {
            Board::Square(diagonal) => self.alt_loop(
                grid,
                landmarks,
                &active,
                SquareMoves(diagonal),
                s,
                goal,
                record,
            ),
            Board::Hex(layout) => {
                self.alt_loop(grid, landmarks, &active, HexMoves(layout), s, goal, record)
            }
        };
        if !reached {
            return Err(NoPath::Exhausted);
        }
        let mut path = CellPath {
            cells: vec![goal],
            cost: self.nodes[t].g,
        };
        let mut index = t;
        while index != s {
            index = self.nodes[index].parent as usize;
            path.cells.push(grid.pos(index));
        }
        path.cells.reverse();
        Ok(Found {
            path,
            stats: self.stats,
        })
    }

    /// The search loop of [`Self::search_landmarks`]: A* whose priority's estimate is the
    /// larger of the board's heuristic and the landmarks' bound, re-opening an expanded cell
    /// that a cheaper way reaches (the rounded bounds may be inconsistent by a quantum).
    fn alt_loop<M: Moves>(
        &mut self,
        grid: &Grid,
        landmarks: &Landmarks,
        active: &[Active],
        moves: M,
        start: usize,
        goal: Pos,
        record: bool,
    ) -> bool {
        let open = self.begin(grid.costs().len());
        let closed = open + 1;
        let target = grid.index(goal);
        let costs = grid.costs();
        let tables = moves.tables();
        let offsets = moves.offsets(grid);
        let heuristic = Heuristic::tightest_for(landmarks.board);
        let scale = grid.min_cost().unwrap_or(1.0);
        let estimate = |index: usize, pos: Pos| {
            let straight = scale * moves.estimate(heuristic, pos, goal);
            straight.max(landmarks.bound(index, active))
        };
        let mut heap = std::mem::take(&mut self.heap);
        heap.clear();
        let (stamps, nodes) = (&mut self.stamps[..], &mut self.nodes[..]);
        let (mut expanded, mut pushed) = (0, 1);
        nodes[start] = Node {
            g: 0.0,
            parent: start as u32,
        };
        stamps[start] = open;
        heap.push(HeapEntry::new(start as u32, 0.0, 0.0));
        let mut reached = false;
        while let Some(entry) = heap.pop() {
            let index = entry.index() as usize;
            if stamps[index] == closed {
                continue;
            }
            stamps[index] = closed;
            let node = nodes[index];
            expanded += 1;
            let pos = grid.pos(index);
            if record {
                self.expansions.push(pos);
            }
            if index == target {
                reached = true;
                break;
            }
            let table = moves.table(pos);
            let (steps, offsets) = (&tables[table], &offsets[table]);
            let mut allowed = moves.allowed_at(grid, offsets, index);
            while allowed != 0 {
                let d = allowed.trailing_zeros() as usize;
                allowed &= allowed - 1;
                let next = index.wrapping_add_signed(offsets[d]);
                let g = node.g + costs[next] * steps[d].length;
                let stamp = stamps[next];
                let seen = stamp == open || stamp == closed;
                // A cell seen before is pushed again only for a cheaper way (re-opened if it
                // was expanded).
                if seen && (g >= nodes[next].g || HeapEntry::ties(g, nodes[next].g)) {
                    continue;
                }
                nodes[next] = Node {
                    g,
                    parent: index as u32,
                };
                stamps[next] = open;
                pushed += 1;
                let to = Pos::new(
                    pos.x.wrapping_add_signed(steps[d].dx),
                    pos.y.wrapping_add_signed(steps[d].dy),
                );
                let h = estimate(next, to);
                heap.push(HeapEntry::new(next as u32, g + h, h));
            }
        }
        self.heap = heap;
        self.stats.expanded += expanded;
        self.stats.pushed += pushed;
        reached
    }
}
