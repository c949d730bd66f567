//! Crossings chosen by load: the ways of many units of one movement class, re-routed so
//! that the queues they would make at a narrow crossing (a ford, a gap, a bridge) spread
//! over the crossings the land offers ([`spread_by_load`]).
//!
//! Cheapest paths are each unit's best alone: a hundred riders sent over a river all take
//! the ford on their cheapest way, and the last of them waits for the ninety-nine before
//! it, while a second ford a few steps further stands empty. Traffic assignment's answer
//! (Wardrop's user equilibrium, by the method of successive averages) is to price each
//! cell with the queue the others make there and let a share of the units that wait most
//! choose again, round after round.
//!
//! The queue model: every unit of the class walks at one speed, so time is counted in cost
//! units (a step takes its cost). A unit reaches each cell of its way when the steps before
//! it are walked (its free-flow time); a cell holds one unit at a time, for its own cost,
//! so the units reaching it are served in the order they come, each after the one before
//! has held it (a deterministic point queue). A unit's wait at a cell is how long it stands
//! before entering; a cell's price is the mean wait of the units through it.

use crate::board::Board;
use crate::grid::{Grid, MAX_COST};
use crate::pos::Pos;
use crate::search::{SearchContext, SearchOptions};

/// The rounds of [`spread_by_load`] at most: in round `r` (from 0), at most one unit in
/// `r + 2` of each bottleneck's queue chooses again, those that wait longest first.
pub const SPREAD_ROUNDS: usize = 4;

/// A cell is a bottleneck when a unit waits there at least this many times the cell's own
/// cost: the queue of a crossing, not two units meeting on open ground.
pub const BOTTLENECK_STEPS: f64 = 4.0;

/// A cell is part of a crossing when it lies in a passage at most this many tiles wide:
/// along a row, a column or a diagonal, impassable cells (or the map's edge) on both sides
/// of it within this many passable cells in all. Only a queue at a crossing makes units
/// choose again: where units converge on open ground (onto a click, say) no other way is
/// faster.
pub const NARROWS_WIDTH: u32 = 4;

/// The most cells all the ways of one call may have past their fixed part, and the most
/// cells of its grid: a call on more leaves the ways as they are (its queue model sorts
/// every cell of every way, and each round prices a copy of the grid).
pub const SPREAD_MAX_CELLS: usize = 1 << 21;

/// One unit's way for [`spread_by_load`]: the cells of its path, and how many of them are
/// fixed (the tile it stands on or is stepping into, and those before it): a new way starts
/// at `cells[fixed - 1]`. The last cell is the unit's goal, which the spread keeps.
#[derive(Clone, Debug, PartialEq)]
pub struct Way {
    /// The path's cells, from the start to the goal.
    pub cells: Vec<Pos>,
    /// How many leading cells the spread leaves as they are (at least 1).
    pub fixed: usize,
}

/// What [`spread_by_load`] did.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Spread {
    /// Rounds run (the last one found no bottleneck, or changed no way, or was the last).
    pub rounds: usize,
    /// Ways changed, counted once a round.
    pub rerouted: usize,
    /// Cells expanded by its searches.
    pub searched: usize,
    /// The longest wait of any unit at any cell, in cost units, before and after.
    pub worst_before: f64,
    /// See `worst_before`.
    pub worst_after: f64,
}

/// Re-routes `ways` (the units of one movement class, all on `grid`, setting out together)
/// so that fewer of them queue at the same crossings: in each round, the queues the ways
/// make are priced (module docs); if a bottleneck is left ([`BOTTLENECK_STEPS`]), a share of
/// the units that wait there longest search again on the grid with every cell's cost raised
/// by its price, and take the new way when it is cheaper, waits counted, than what they wait
/// and walk now. Each way keeps its fixed cells and its goal; a new way is a legal path on
/// `board`. The searches stop once they expanded `max_work` cells (the round under way ends
/// there). Grids and orders past [`SPREAD_MAX_CELLS`] are left as they are. Deterministic:
/// the same ways give the same result.
pub fn spread_by_load(
    grid: &Grid,
    board: Board,
    ways: &mut [Way],
    context: &mut SearchContext,
    max_work: usize,
) -> Spread {
    let mut spread = Spread::default();
    for way in ways.iter_mut() {
        way.fixed = way.fixed.clamp(1, way.cells.len().max(1));
    }
    let cells: usize = ways
        .iter()
        .map(|w| w.cells.len().saturating_sub(w.fixed))
        .sum();
    let grid_cells = u64::from(grid.width()) * u64::from(grid.height());
    if ways.len() < 2 || cells > SPREAD_MAX_CELLS || grid_cells > SPREAD_MAX_CELLS as u64 {
        return spread;
    }
    let mut queues = Queues::of(grid, board, ways);
    spread.worst_before = queues.worst;
    while spread.rounds < SPREAD_ROUNDS && spread.searched < max_work {
        let round = spread.rounds;
        spread.rounds += 1;
        let movers = queues.longest_waits(grid, round + 2);
        if movers.is_empty() {
            break;
        }
        let Ok(priced) = queues.priced(grid) else {
            break;
        };
        let options = SearchOptions::on(board);
        let mut changed = 0;
        for way in movers {
            if spread.searched >= max_work {
                break;
            }
            let Way { cells, fixed } = &ways[way];
            let (Some(&from), Some(&goal)) = (cells.get(fixed - 1), cells.last()) else {
                continue;
            };
            // What the unit walks and waits now, from where its way may change.
            let now: f64 = (*fixed..cells.len())
                .map(|i| {
                    grid.step_cost(board, cells[i - 1], cells[i]) + queues.wait(way, *fixed, i)
                })
                .sum();
            let Ok(found) = context.search(&priced, from, goal, &options) else {
                continue;
            };
            spread.searched += found.stats.expanded;
            if found.path.cost < now - 1e-9 * now.max(1.0) {
                let way = &mut ways[way];
                way.cells.truncate(way.fixed - 1);
                way.cells.extend_from_slice(&found.path.cells);
                changed += 1;
            }
        }
        spread.rerouted += changed;
        queues = Queues::of(grid, board, ways);
        if changed == 0 {
            break;
        }
    }
    spread.worst_after = queues.worst;
    spread
}

/// The queues the ways make: each way's wait at each of its cells past the fixed ones, and
/// per cell its units' waits.
struct Queues {
    /// Per way: the index of its first cell past the fixed ones in `waits`.
    first: Vec<usize>,
    /// Per way, its cells past the fixed ones: the wait before entering.
    waits: Vec<f64>,
    /// Per cell with any wait (`y × width + x`): its units' total wait, their number, the
    /// longest wait, and the ways that wait there with how long.
    cells: Vec<(u32, CellQueue)>,
    worst: f64,
}

#[derive(Default)]
struct CellQueue {
    total: f64,
    units: usize,
    waiting: Vec<(f64, usize)>,
    /// Whether the cell is part of a crossing ([`NARROWS_WIDTH`]).
    narrows: bool,
}

impl Queues {
    fn of(grid: &Grid, board: Board, ways: &[Way]) -> Self {
        let width = grid.width();
        let key = |p: Pos| p.y * width + p.x;
        let mut first = Vec::with_capacity(ways.len());
        // (cell, free-flow time, way, slot in `waits`)
        let mut arrivals = Vec::new();
        let mut slots = 0;
        for (w, way) in ways.iter().enumerate() {
            first.push(slots);
            let mut time = 0.0;
            for i in way.fixed..way.cells.len() {
                time += grid.step_cost(board, way.cells[i - 1], way.cells[i]);
                arrivals.push((key(way.cells[i]), time, w, slots));
                slots += 1;
            }
        }
        arrivals.sort_by(|a, b| a.0.cmp(&b.0).then(a.1.total_cmp(&b.1)).then(a.2.cmp(&b.2)));
        let mut waits = vec![0.0; slots];
        let mut cells = Vec::new();
        let mut worst: f64 = 0.0;
        for run in arrivals.chunk_by(|a, b| a.0 == b.0) {
            let cell = run[0].0;
            let hold = grid
                .cost(Pos::new(cell % width, cell / width))
                .unwrap_or(0.0);
            let mut free_at = f64::NEG_INFINITY;
            let mut queue = CellQueue::default();
            for &(_, time, way, slot) in run {
                let enters = time.max(free_at);
                let wait = enters - time;
                free_at = enters + hold;
                waits[slot] = wait;
                queue.units += 1;
                if wait > 0.0 {
                    queue.total += wait;
                    queue.waiting.push((wait, way));
                    worst = worst.max(wait);
                }
            }
            if !queue.waiting.is_empty() {
                queue.narrows = narrows(grid, Pos::new(cell % width, cell / width));
                cells.push((cell, queue));
            }
        }
        Self {
            first,
            waits,
            cells,
            worst,
        }
    }

    /// Way `way`'s wait before entering its cell `i` (`i >= fixed`, its fixed cells).
    fn wait(&self, way: usize, fixed: usize, i: usize) -> f64 {
        self.waits[self.first[way] + i - fixed]
    }

    /// The ways to search again this round: at each bottleneck, one in `share` of its units
    /// (rounded up), those that wait longest; in way order, each once.
    fn longest_waits(&self, grid: &Grid, share: usize) -> Vec<usize> {
        let width = grid.width();
        let mut movers = Vec::new();
        for (cell, queue) in &self.cells {
            let hold = grid
                .cost(Pos::new(cell % width, cell / width))
                .unwrap_or(0.0);
            let longest = queue.waiting.iter().map(|w| w.0).fold(0.0, f64::max);
            if longest < BOTTLENECK_STEPS * hold || !queue.narrows {
                continue;
            }
            let mut waiting = queue.waiting.clone();
            waiting.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)));
            movers.extend(
                waiting
                    .iter()
                    .take(queue.units.div_ceil(share))
                    .map(|&(_, way)| way),
            );
        }
        movers.sort_unstable();
        movers.dedup();
        movers
    }

    /// The grid with each cell's cost raised by the mean wait of its units.
    fn priced(&self, grid: &Grid) -> Result<Grid, crate::grid::GridError> {
        let width = grid.width();
        let mut price = std::collections::HashMap::with_capacity(self.cells.len());
        for (cell, queue) in &self.cells {
            price.insert(*cell, queue.total / queue.units as f64);
        }
        Grid::from_fn(width, grid.height(), |p| {
            let cost = grid.cost(p)?;
            let raised = cost + price.get(&(p.y * width + p.x)).copied().unwrap_or(0.0);
            Some(raised.min(MAX_COST))
        })
    }
}

/// Whether `p` lies in a passage at most [`NARROWS_WIDTH`] tiles wide: along a row, a
/// column or a diagonal of the grid (of the offset layout, on a hex board), blocked on both
/// sides within that many passable cells.
fn narrows(grid: &Grid, p: Pos) -> bool {
    let open = |x: i64, y: i64| {
        u32::try_from(x)
            .ok()
            .zip(u32::try_from(y).ok())
            .is_some_and(|(x, y)| grid.is_passable(Pos::new(x, y)))
    };
    let (x, y) = (i64::from(p.x), i64::from(p.y));
    [(1, 0), (0, 1), (1, 1), (1, -1)]
        .into_iter()
        .any(|(dx, dy)| {
            let reach = |sign: i64| {
                (1..=i64::from(NARROWS_WIDTH))
                    .take_while(|&k| open(x + sign * k * dx, y + sign * k * dy))
                    .count() as u32
            };
            let (ahead, behind) = (reach(1), reach(-1));
            ahead + behind < NARROWS_WIDTH
        })
}

/// What walking `cells` costs on `grid`: the sum of its steps, each the cost of the cell
/// stepped into, times √2 for a diagonal step of a square board (the searches' cost model);
/// infinite when a step is not a legal move on `board`.
pub fn walk_cost(grid: &Grid, board: Board, cells: &[Pos]) -> f64 {
    cells
        .windows(2)
        .map(|s| grid.step_cost(board, s[0], s[1]))
        .sum()
}
