//! One search loop for A*, Dijkstra, BFS, greedy best-first and DFS, over a reusable context.
//!
//! The algorithms differ only in their frontier (a priority queue, a FIFO queue or a stack)
//! and in the priority they give a cell, so they share one loop, monomorphised per frontier.
//! Per-cell state lives in a generation-stamped array inside [`SearchContext`]: starting a
//! new search bumps the generation instead of clearing memory, so after the first query on
//! a grid of a given size a search allocates nothing.

use std::cmp::Ordering;
use std::collections::{BinaryHeap, VecDeque};

use crate::grid::{BLOCKED, Grid, Pos};
use crate::moves::{Diagonal, Heuristic, STEPS};

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
    /// usually far faster. Any other grid or rule falls back to plain A*.
    JumpPoint,
}

impl Algorithm {
    pub const ALL: [Self; 6] = [
        Self::AStar,
        Self::Dijkstra,
        Self::Bfs,
        Self::BestFirst,
        Self::Dfs,
        Self::JumpPoint,
    ];
}

/// How to search. `SearchOptions::default()` is optimal 8-way A* without corner cutting.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SearchOptions {
    pub algorithm: Algorithm,
    pub diagonal: Diagonal,
    /// `None` picks [`Heuristic::tightest_for`] the neighbourhood.
    pub heuristic: Option<Heuristic>,
    /// Weighted A*: `f = g + weight·h`. With an admissible heuristic the path costs at most
    /// `weight` times the optimum (bounded-suboptimal) and usually expands far fewer cells.
    /// Values below 1 (and NaN) count as 1.
    pub weight: f64,
    /// Keep the order in which cells were expanded, for a visual debugger
    /// ([`SearchContext::expansions`]).
    pub record_expansions: bool,
}

impl Default for SearchOptions {
    fn default() -> Self {
        Self {
            algorithm: Algorithm::AStar,
            diagonal: Diagonal::default(),
            heuristic: None,
            weight: 1.0,
            record_expansions: false,
        }
    }
}

impl SearchOptions {
    /// Default options with another diagonal rule.
    pub fn with_diagonal(diagonal: Diagonal) -> Self {
        Self {
            diagonal,
            ..Self::default()
        }
    }
}

/// A path: its cells from start to goal, both included, and its cost (the sum of its steps).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Path {
    pub cells: Vec<Pos>,
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
    pub path: Path,
    pub stats: SearchStats,
}

/// Why there is no path.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
pub enum NoPath {
    #[error("start {pos} is outside the {width}x{height} map")]
    StartOutside { pos: Pos, width: u32, height: u32 },
    #[error("goal {pos} is outside the {width}x{height} map")]
    GoalOutside { pos: Pos, width: u32, height: u32 },
    #[error("start {0} is impassable")]
    StartBlocked(Pos),
    #[error("goal {0} is impassable")]
    GoalBlocked(Pos),
    #[error("start and goal are in different regions")]
    DifferentRegions,
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

#[derive(Clone, Copy, Debug, Default)]
struct Node {
    g: f64,
    parent: u32,
    /// `generation` = on the frontier, `generation + 1` = expanded, anything else = unseen.
    stamp: u32,
}

/// Reusable memory for searches: keep one per thread (or per system) and query it many times.
#[derive(Debug, Default)]
pub struct SearchContext {
    nodes: Vec<Node>,
    generation: u32,
    heap: BinaryHeap<HeapEntry>,
    queue: VecDeque<u32>,
    stack: Vec<u32>,
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
        let mut path = Path::default();
        let stats = self.search_into(grid, start, goal, options, &mut path)?;
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
        path: &mut Path,
    ) -> Result<SearchStats, NoPath> {
        path.cells.clear();
        path.cost = 0.0;
        self.stats = SearchStats::default();
        self.expansions.clear();
        check_endpoints(grid, start, goal)?;
        if !grid.connected(start, goal, options.diagonal) {
            return Err(NoPath::DifferentRegions);
        }
        let weight = if options.weight >= 1.0 {
            options.weight
        } else {
            1.0
        };
        let heuristic = match options.algorithm {
            Algorithm::Dijkstra => Heuristic::Zero,
            _ => options
                .heuristic
                .unwrap_or_else(|| Heuristic::tightest_for(options.diagonal)),
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
            diagonal: options.diagonal,
            target: Some(target),
            budget: f64::INFINITY,
            passage: None,
            record: options.record_expansions,
        };
        let jump =
            options.algorithm == Algorithm::JumpPoint && options.diagonal == Diagonal::NoObstacles;
        let reached = match (options.algorithm, grid.uniform_cost()) {
            (Algorithm::JumpPoint, Some(cost)) if jump => {
                let mut heap = std::mem::take(&mut self.heap);
                let reached = self.jump_points(&search, start_index, cost, &mut heap);
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
                let reached = self.run(&search, start_index, &mut Heap(&mut heap));
                self.heap = heap;
                reached
            }
            (Algorithm::Bfs, _) => {
                let mut queue = std::mem::take(&mut self.queue);
                let reached = self.run(&search, start_index, &mut Fifo(&mut queue));
                self.queue = queue;
                reached
            }
            (Algorithm::Dfs, _) => {
                let mut stack = std::mem::take(&mut self.stack);
                let reached = self.run(&search, start_index, &mut Lifo(&mut stack));
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
    pub fn range(
        &mut self,
        grid: &Grid,
        start: Pos,
        budget: f64,
        diagonal: Diagonal,
    ) -> Result<Range, NoPath> {
        self.bounded(grid, start, budget, diagonal, None)
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
        diagonal: Diagonal,
        passage: impl Fn(Pos) -> Passage,
    ) -> Result<Range, NoPath> {
        self.bounded(grid, start, budget, diagonal, Some(&passage))
    }

    fn bounded(
        &mut self,
        grid: &Grid,
        start: Pos,
        budget: f64,
        diagonal: Diagonal,
        passage: Option<&dyn Fn(Pos) -> Passage>,
    ) -> Result<Range, NoPath> {
        self.stats = SearchStats::default();
        self.expansions.clear();
        check_endpoints(grid, start, start)?;
        let search = Search {
            grid,
            diagonal,
            target: None,
            budget,
            passage,
            record: true,
        };
        let mut heap = std::mem::take(&mut self.heap);
        self.run(&search, grid.index(start), &mut Heap(&mut heap));
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

    /// Starts a generation: stamps from older searches no longer mean anything.
    fn begin(&mut self, cells: usize) -> u32 {
        if self.nodes.len() != cells || self.generation >= u32::MAX - 2 {
            self.nodes.clear();
            self.nodes.resize(cells, Node::default());
            self.generation = 0;
        }
        self.generation += 2;
        self.generation
    }

    /// Jump point search on a grid whose passable cells all cost `cost`, without corner
    /// cutting. Parents link jump points; `search_into` fills in the lines between them.
    fn jump_points(
        &mut self,
        search: &Search,
        start: usize,
        cost: f64,
        heap: &mut BinaryHeap<HeapEntry>,
    ) -> bool {
        let Some(target) = search.target else {
            return false;
        };
        let grid = search.grid;
        let open = self.begin(grid.costs().len());
        let closed = open + 1;
        let stride = grid.stride() as i64;
        let open_cells = grid.open();
        // Coordinates may be -1 or the width/height: the blocked border is part of the storage.
        let at = |x: i64, y: i64| ((y + 1) * stride + x + 1) as usize;
        let free = |x: i64, y: i64| open_cells[at(x, y)];
        let (gx, gy) = (i64::from(target.pos.x), i64::from(target.pos.y));
        let octile = |dx: u64, dy: u64| Heuristic::Octile.distance(dx as u32, dy as u32);
        // The first jump point from (x, y), stepping in (dx, dy) (PathFinding.js's rules for
        // "diagonal only when no obstacles").
        let jump = |mut x: i64, mut y: i64, dx: i64, dy: i64| -> Option<(i64, i64)> {
            let straight = |mut x: i64, mut y: i64, dx: i64, dy: i64| loop {
                if !free(x, y) {
                    return None;
                }
                let forced = (dx != 0
                    && ((free(x, y - 1) && !free(x - dx, y - 1))
                        || (free(x, y + 1) && !free(x - dx, y + 1))))
                    || (dy != 0
                        && ((free(x - 1, y) && !free(x - 1, y - dy))
                            || (free(x + 1, y) && !free(x + 1, y - dy))));
                if (x, y) == (gx, gy) || forced {
                    return Some((x, y));
                }
                x += dx;
                y += dy;
            };
            loop {
                if !free(x, y) {
                    return None;
                }
                if (x, y) == (gx, gy) {
                    return Some((x, y));
                }
                if dx == 0 || dy == 0 {
                    return straight(x, y, dx, dy);
                }
                if straight(x + dx, y, dx, 0).is_some() || straight(x, y + dy, 0, dy).is_some() {
                    return Some((x, y));
                }
                if !(free(x + dx, y) && free(x, y + dy)) {
                    return None;
                }
                x += dx;
                y += dy;
            }
        };
        heap.clear();
        self.nodes[start] = Node {
            g: 0.0,
            parent: start as u32,
            stamp: open,
        };
        heap.push(HeapEntry::new(start as u32, 0.0, 0.0));
        self.stats.pushed += 1;
        while let Some(HeapEntry { index, .. }) = heap.pop() {
            let index = index as usize;
            let node = self.nodes[index];
            if node.stamp == closed {
                continue;
            }
            self.nodes[index].stamp = closed;
            self.stats.expanded += 1;
            let pos = grid.pos(index);
            if search.record {
                self.expansions.push(pos);
            }
            if index == target.index {
                return true;
            }
            let (x, y) = (i64::from(pos.x), i64::from(pos.y));
            // Pruned neighbours: where an optimal path through this cell can go next.
            let mut directions: [(i64, i64); 8] = [(0, 0); 8];
            let mut count = 0;
            let mut add = |d: (i64, i64)| {
                directions[count] = d;
                count += 1;
            };
            if index == start {
                for step in &STEPS {
                    let (dx, dy) = (i64::from(step.dx), i64::from(step.dy));
                    if free(x + dx, y + dy)
                        && (dx == 0 || dy == 0 || (free(x + dx, y) && free(x, y + dy)))
                    {
                        add((dx, dy));
                    }
                }
            } else {
                let parent = grid.pos(node.parent as usize);
                let dx = (x - i64::from(parent.x)).signum();
                let dy = (y - i64::from(parent.y)).signum();
                if dx != 0 && dy != 0 {
                    let (side_y, side_x) = (free(x, y + dy), free(x + dx, y));
                    if side_y {
                        add((0, dy));
                    }
                    if side_x {
                        add((dx, 0));
                    }
                    if side_y && side_x {
                        add((dx, dy));
                    }
                } else if dx != 0 {
                    let (ahead, up, down) = (free(x + dx, y), free(x, y - 1), free(x, y + 1));
                    if ahead {
                        add((dx, 0));
                        if up {
                            add((dx, -1));
                        }
                        if down {
                            add((dx, 1));
                        }
                    }
                    if up {
                        add((0, -1));
                    }
                    if down {
                        add((0, 1));
                    }
                } else {
                    let (ahead, left, right) = (free(x, y + dy), free(x - 1, y), free(x + 1, y));
                    if ahead {
                        add((0, dy));
                        if right {
                            add((1, dy));
                        }
                        if left {
                            add((-1, dy));
                        }
                    }
                    if right {
                        add((1, 0));
                    }
                    if left {
                        add((-1, 0));
                    }
                }
            }
            for &(dx, dy) in &directions[..count] {
                let Some((jx, jy)) = jump(x + dx, y + dy, dx, dy) else {
                    continue;
                };
                let next = at(jx, jy);
                let seen = self.nodes[next];
                if seen.stamp == closed {
                    continue;
                }
                let g = node.g + cost * octile(jx.abs_diff(x), jy.abs_diff(y));
                if seen.stamp == open && g >= seen.g {
                    continue;
                }
                self.nodes[next] = Node {
                    g,
                    parent: index as u32,
                    stamp: open,
                };
                let h = target.scale * octile(jx.abs_diff(gx), jy.abs_diff(gy));
                heap.push(HeapEntry::new(next as u32, g + h, h));
                self.stats.pushed += 1;
            }
        }
        false
    }

    /// The shared loop. Returns whether the target was reached (always false for a range).
    fn run<F: Frontier>(&mut self, search: &Search, start: usize, frontier: &mut F) -> bool {
        let open = self.begin(search.grid.costs().len());
        let closed = open + 1;
        let costs = search.grid.costs();
        let stride = search.grid.stride() as isize;
        let offsets = STEPS.map(|s| s.dy as isize * stride + s.dx as isize);
        let steps = search.diagonal.step_count();
        frontier.clear();
        self.nodes[start] = Node {
            g: 0.0,
            parent: start as u32,
            stamp: open,
        };
        frontier.push(start as u32, 0.0, 0.0);
        self.stats.pushed += 1;
        while let Some(index) = frontier.pop() {
            let index = index as usize;
            let node = self.nodes[index];
            if node.stamp == closed {
                continue; // a stale entry: the cell was expanded through a cheaper push
            }
            self.nodes[index].stamp = closed;
            self.stats.expanded += 1;
            let pos = search.grid.pos(index);
            if search.record {
                self.expansions.push(pos);
            }
            if search.target.is_some_and(|t| t.index == index) {
                return true;
            }
            // A cell that ends the move is reached but not left.
            if let Some(passage) = search.passage
                && index != start
                && matches!(passage(pos), Passage::EndsMove | Passage::TakesAllPoints)
            {
                continue;
            }
            let open_at = |d: usize| costs[index.wrapping_add_signed(offsets[d])] != BLOCKED;
            let orthogonal_open = [open_at(0), open_at(1), open_at(2), open_at(3)];
            for d in 0..steps {
                if d >= 4
                    && !search
                        .diagonal
                        .allows(orthogonal_open[d - 4], orthogonal_open[(d - 3) % 4])
                {
                    continue;
                }
                let next = index.wrapping_add_signed(offsets[d]);
                let cost = costs[next];
                if cost == BLOCKED {
                    continue;
                }
                let seen = self.nodes[next];
                if seen.stamp == closed || (seen.stamp == open && !F::RELAXES) {
                    continue;
                }
                let mut g = node.g + cost * STEPS[d].length;
                if let Some(passage) = search.passage {
                    let to = Pos::new(
                        pos.x.wrapping_add_signed(STEPS[d].dx),
                        pos.y.wrapping_add_signed(STEPS[d].dy),
                    );
                    match passage(to) {
                        Passage::Blocked => continue,
                        // Any points left buy the step, and it spends them all.
                        Passage::TakesAllPoints if node.g < search.budget - BUDGET_SLACK => {
                            g = search.budget;
                        }
                        Passage::TakesAllPoints => continue,
                        Passage::Open | Passage::PassOnly | Passage::EndsMove => {}
                    }
                }
                if (seen.stamp == open && g >= seen.g) || g > search.budget + BUDGET_SLACK {
                    continue;
                }
                self.nodes[next] = Node {
                    g,
                    parent: index as u32,
                    stamp: open,
                };
                let (priority, h) = match search.target {
                    Some(t) => {
                        let x = pos.x.wrapping_add_signed(STEPS[d].dx);
                        let y = pos.y.wrapping_add_signed(STEPS[d].dy);
                        let h = t.scale
                            * t.heuristic
                                .distance(x.abs_diff(t.pos.x), y.abs_diff(t.pos.y));
                        (t.mix.0 * g + t.mix.1 * h, h)
                    }
                    None => (g, 0.0),
                };
                frontier.push(next as u32, priority, h);
                self.stats.pushed += 1;
            }
        }
        false
    }
}

fn check_endpoints(grid: &Grid, start: Pos, goal: Pos) -> Result<(), NoPath> {
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
    diagonal: Diagonal,
    target: Option<Target>,
    /// Cells costing more than this are not entered (infinite for point-to-point searches).
    budget: f64,
    /// Tactics rules for a movement range.
    passage: Option<&'a dyn Fn(Pos) -> Passage>,
    record: bool,
}

/// Sums of √2 steps are inexact: a cell costing the budget up to rounding is in range.
const BUDGET_SLACK: f64 = 1e-9;

/// What tactics rules make of a cell in a movement range ([`SearchContext::range_with`]).
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
    /// Entering costs every point left, whatever the terrain; the move ends there.
    TakesAllPoints,
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

/// A frontier entry ordered for `BinaryHeap` (a max-heap) by one packed integer key: lowest
/// priority first; among priorities equal up to rounding, the lower `h` (the deeper cell:
/// far fewer expansions on open ground); then the lower index, so the order is total and
/// the result deterministic.
#[derive(Clone, Copy, Debug)]
struct HeapEntry {
    key: u64,
    index: u32,
}

/// Mantissa bits of the priority dropped from the key, so that sums which differ only by
/// rounding (the same steps added in another order) tie, and the `h` tie-break applies.
/// The priority keeps a relative precision of 2^-40.
const PRIORITY_ROUNDING_BITS: u32 = 12;
/// Key bits for the tie-break on `h` (in eighths of a step, capped).
const TIE_BITS: u32 = 13;

impl HeapEntry {
    #[inline]
    fn new(index: u32, priority: f64, h: f64) -> Self {
        // Non-negative floats order like their bit patterns.
        let rounded = priority.to_bits() >> PRIORITY_ROUNDING_BITS;
        let tie = ((h * 8.0) as u64).min((1 << TIE_BITS) - 1);
        Self {
            key: (rounded << TIE_BITS) | tie,
            index,
        }
    }
}

impl Ord for HeapEntry {
    #[inline]
    fn cmp(&self, other: &Self) -> Ordering {
        other.key.cmp(&self.key).then(other.index.cmp(&self.index))
    }
}

impl PartialOrd for HeapEntry {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl PartialEq for HeapEntry {
    fn eq(&self, other: &Self) -> bool {
        self.cmp(other) == Ordering::Equal
    }
}

impl Eq for HeapEntry {}

struct Heap<'a>(&'a mut BinaryHeap<HeapEntry>);

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
        self.0.pop().map(|e| e.index)
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

    pub fn get(&self, pos: Pos) -> Option<&Reached> {
        self.lookup.get(&pos).map(|&i| &self.cells[i])
    }

    pub fn contains(&self, pos: Pos) -> bool {
        self.lookup.contains_key(&pos)
    }

    /// The cheapest cost from the origin to `pos`, if it is in range.
    pub fn cost(&self, pos: Pos) -> Option<f64> {
        self.get(pos).map(|r| r.cost)
    }

    /// The cheapest path from the origin to `pos`, if it is in range.
    pub fn path_to(&self, pos: Pos) -> Option<Path> {
        let mut reached = self.get(pos)?;
        let cost = reached.cost;
        let mut cells = vec![reached.pos];
        while let Some(parent) = reached.parent {
            reached = self.get(parent)?;
            cells.push(parent);
        }
        cells.reverse();
        Some(Path { cells, cost })
    }
}
