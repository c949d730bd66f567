//! Group orders: N units sent to one click end on N distinct tiles near it, each on a
//! cheapest path to its own tile, for the price of a few cost-to-goal fields and a few
//! searches from all the units at once ("waves") instead of N searches (or, on a grid of
//! one cost, N jump point searches, which cost less still).
//!
//! The rules, and the design behind them, are in the [crate docs](crate#group-orders).

use std::borrow::Borrow;
use std::collections::VecDeque;

use crate::board::Board;
use crate::field::CostField;
use crate::grid::Grid;
use crate::memory::{map_pages, zeroed};
use crate::moves::{Diagonal, Heuristic};
use crate::open_list::{HeapEntry, OpenList};
use crate::pos::Pos;
use crate::search::{Algorithm, HexMoves, Moves, Path, SearchContext, SearchOptions, SquareMoves};

/// A unit of a group order: where it stands and which movement class it walks as (an
/// index into the grids given to [`GroupPlanner::plan`] or [`GroupPlanner::start`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Unit {
    /// The cell it stands on.
    pub start: Pos,
    /// Its movement class: the index of the grid it walks on.
    pub class: usize,
}

/// One order: these units to this click.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct GroupOrder<'a> {
    /// The units sent.
    pub units: &'a [Unit],
    /// The cell clicked: the units end on the free tiles nearest it by travel cost.
    pub click: Pos,
    /// Where units that are not part of the order stand: walked through, never chosen as
    /// a unit's tile. The order's own units leave their tiles, so those are free.
    pub occupied: &'a [Pos],
    /// The board's shape, the same for every movement class.
    pub board: Board,
}

/// Where a unit goes: its tile and a cheapest path there (start and tile included).
#[derive(Clone, Debug, PartialEq)]
pub struct Route {
    /// The tile the unit ends on.
    pub tile: Pos,
    /// A cheapest path from the unit's start to `tile`, on its class's grid.
    pub path: Path,
}

/// Why one unit of an order got no route (the others still get theirs).
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
pub enum Stranded {
    /// The unit's movement class has no grid.
    #[error("movement class {class} has no grid (there are {classes})")]
    UnknownClass {
        /// The unit's class.
        class: usize,
        /// How many grids (classes) the order was planned with.
        classes: usize,
    },
    /// The unit stands outside the map.
    #[error("start {pos} is outside the {width}x{height} map")]
    StartOutside {
        /// The unit's start.
        pos: Pos,
        /// The map's width.
        width: u32,
        /// The map's height.
        height: u32,
    },
    /// The unit stands on a cell its class cannot enter.
    #[error("start {0} is impassable for the unit's class")]
    StartBlocked(Pos),
    /// The unit's region (for its class) holds none of the tiles its class walks to: an
    /// island, or the far side of a wall.
    #[error("no tile near the click can be reached from {0}")]
    Unreachable(Pos),
    /// Its region has fewer free tiles than units of its class: the units nearest the click
    /// took them.
    #[error("every free tile that {0} can reach is taken")]
    NoFreeTile(Pos),
}

/// Why a whole order was refused.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
pub enum GroupError {
    /// The click is outside the map.
    #[error("click {pos} is outside the {width}x{height} map")]
    ClickOutside {
        /// The click.
        pos: Pos,
        /// The map's width.
        width: u32,
        /// The map's height.
        height: u32,
    },
    /// The grids of the movement classes are not all of one size.
    #[error("the grid of movement class {class} is {found:?}, not {expected:?} as class 0's")]
    GridSizes {
        /// The first class whose grid differs from class 0's.
        class: usize,
        /// Class 0's grid's `(width, height)`.
        expected: (u32, u32),
        /// That class's grid's `(width, height)`.
        found: (u32, u32),
    },
}

/// What planning an order did.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct GroupStats {
    /// Fields built, the click's included (one per class with units, plus one per wave).
    pub fields: usize,
    /// Cells settled by all of them.
    pub settled: usize,
    /// Waves run: searches from all of a class's units left at once to the free tiles.
    pub waves: usize,
    /// Cells expanded by the waves, plus cells walked down the route field to find the
    /// rivers, plus the jump points expanded by the searches of classes routed one unit at
    /// a time (on uniform-cost 8-way grids).
    pub searched: usize,
    /// Work of writing the routes' paths: a path of `n` cells counts
    /// `n.div_ceil(PATH_CELLS_PER_WORK)` ([`PATH_CELLS_PER_WORK`]).
    pub paths: usize,
}

impl GroupStats {
    fn plus(self, other: Self) -> Self {
        Self {
            fields: self.fields + other.fields,
            settled: self.settled + other.settled,
            waves: self.waves + other.waves,
            searched: self.searched + other.searched,
            paths: self.paths + other.paths,
        }
    }

    fn work(&self) -> usize {
        self.settled + self.searched + self.paths
    }
}

/// Cells of a route's path that count as one unit of work. A path is written a cell at a
/// time, down the route field and back along the wave, which costs several times less than
/// a cell settled by a field or expanded by a wave (a heap pop and up to eight neighbours).
/// It is the ratio of those two costs, so that a budget of work stays close to a budget of
/// time: counted one for one, paths would be a large share of the work and a small share of
/// the time (the measurement: `docs/design/group-orders.md`, "A budget of work, not time").
pub const PATH_CELLS_PER_WORK: usize = 8;

/// Plans one group order with fresh memory. Use a [`GroupPlanner`] for repeated orders.
pub fn plan_group<G: Borrow<Grid>>(
    grids: &[G],
    order: &GroupOrder,
) -> Result<Vec<Result<Route, Stranded>>, GroupError> {
    GroupPlanner::new().plan(grids, order)
}

/// What one [`GroupPlanner::advance`] decided and did.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Advance {
    /// Units decided in this call, as (index into the order's units, result), in the order
    /// decided.
    pub decided: Vec<(usize, Result<Route, Stranded>)>,
    /// Work done in this call: cells settled by fields plus cells expanded by waves or walked.
    pub work: usize,
    /// Work of the call's last step that did any: a stretch of one field build or one wave
    /// (cut where the budget ran out, and gone on with by the next call), or one unit's
    /// path (never cut: its work is its cells over [`PATH_CELLS_PER_WORK`], rounded up, plus
    /// the jump points its search expanded when its class is searched one unit at a time).
    /// When the classes were last routed side by side, each on its share of the budget, it
    /// is the sum of their last steps. The call went on only while under its budget, so
    /// `work - last < budget.max(1)` whenever `work > 0`; and as only a unit's path (and
    /// search) overshoots, a call's work is always less than `budget.max(1)` plus the work
    /// of one unit per class (of one unit when the order has one class).
    pub last: usize,
    /// The order is done: every unit has been decided.
    pub done: bool,
}

/// A per-cell mark valid for one generation.
#[derive(Clone, Debug, Default)]
struct Marks {
    stamps: Vec<u32>,
    generation: u32,
}

impl Marks {
    /// Sizes the marks for `cells` cells and maps their pages, when not of that size yet.
    fn reserve(&mut self, cells: usize) {
        if self.stamps.len() != cells {
            self.begin(cells);
            map_pages(&mut self.stamps);
        }
    }

    fn begin(&mut self, cells: usize) {
        if self.stamps.len() != cells || self.generation == u32::MAX {
            self.stamps = zeroed(cells);
            self.generation = 0;
        }
        self.generation += 1;
    }

    fn set(&mut self, index: usize) {
        self.stamps[index] = self.generation;
    }

    fn get(&self, index: usize) -> bool {
        self.stamps[index] == self.generation
    }
}

/// Reusable memory for group orders: keep one and plan every order with it, at once
/// ([`Self::plan`]) or a budget of work at a time ([`Self::start`], [`Self::advance`]). The
/// rules it plans by are in the [crate docs](crate#group-orders).
#[derive(Debug, Default)]
pub struct GroupPlanner {
    click_field: CostField,
    /// Cells that no unit of this order may end on: occupied, or taken by an earlier class.
    taken: Marks,
    /// Per movement class: the memory its units are routed with, side by side with the
    /// other classes' units ([`Router`]).
    routers: Vec<Router>,
    /// The work of picking the tiles: the click fields' cells.
    stats: GroupStats,
    /// The order under way, if any.
    planning: Option<Planning>,
}

/// The memory that routes the units of one class once their tiles are picked: its route
/// fields and waves. Each class has its own, so the classes of an order are routed side by
/// side, on threads of their own ([`GroupPlanner::advance`]).
#[derive(Debug, Default)]
struct Router {
    route_field: CostField,
    /// Per cell (storage index): whether it is one of the class's free tiles.
    is_tile: Vec<bool>,
    /// Per cell: how many of the class's unrouted units start there.
    starts_at: Vec<u32>,
    /// The cells this order set in `is_tile` or `starts_at`: what the next order clears.
    marked: Vec<usize>,
    /// The tiles still free when the route field is rebuilt.
    free: Vec<usize>,
    /// The wave ([`Router::start_wave`]): the rivers (the members' ways down the route
    /// field), per cell `(cost, parent)`, the first river cell on its way back, stamps,
    /// frontier.
    rivers: Rivers,
    nodes: Vec<(f64, u32)>,
    wave_root: Vec<u32>,
    stamps: Vec<u32>,
    generation: u32,
    heap: OpenList,
    /// The free tiles the wave reached, each with the one reached before it from the same
    /// river cell (an index into this, or `NONE`).
    reached: Vec<(u32, u32)>,
    /// The searches of a class routed one unit at a time ([`searches_each_unit`]).
    search: SearchContext,
    /// The work of routing: route fields' cells, waves' cells, searches and paths.
    stats: GroupStats,
}

const NONE: u32 = u32::MAX;

/// The lanes the movement classes of an order are routed in, side by side: each lane is a
/// thread with an even share of a call's budget, its classes one after the other. Their
/// number changes which units each call decides, so it is fixed rather than read from the
/// machine, and a call's result is the same everywhere (why two:
/// `docs/design/group-orders.md`, "Lanes, budget and memory").
const LANES: usize = 2;

/// Per class being routed, in index order (`searched[c]`: whether class `c` is searched one
/// unit at a time, [`searches_each_unit`]): its lane and its share of `budget`. The classes
/// fill the [`LANES`] lanes as evenly as their number allows, in index order but those
/// searched one unit at a time first: their searches cost little beside the others' fields
/// and waves, so they share a lane with the first of those rather than the last (three
/// classes, the last one searched: it and the first class in one lane, the second alone).
/// Each lane gets an even share of the budget, and each of its classes an even share of the
/// lane's (the first ones one more while any is left over).
fn lane_shares(budget: usize, searched: &[bool]) -> Vec<(usize, usize)> {
    let share =
        |total: usize, parts: usize, part: usize| total / parts + usize::from(part < total % parts);
    let count = searched.len();
    let lanes = LANES.min(count);
    // The classes in the order they fill the lanes.
    let mut order: Vec<usize> = (0..count).collect();
    order.sort_by_key(|&c| !searched[c]);
    let lane_at = |place: usize| place * lanes / count;
    let mut shares = vec![(0, 0); count];
    for (place, &class) in order.iter().enumerate() {
        let lane = lane_at(place);
        let first = (0..count).position(|p| lane_at(p) == lane).unwrap_or(place);
        let in_lane = (0..count).filter(|&p| lane_at(p) == lane).count();
        let lane_budget = share(budget, lanes, lane);
        shares[class] = (lane, share(lane_budget, in_lane, place - first));
    }
    shares
}

/// Whether a class's units are routed one at a time, each by its own jump point search
/// ([`Algorithm::JumpPoint`]), instead of by fields and waves: on a grid where every
/// passable cell costs the same, on the 8-way board without corner cutting (where jump
/// point search works). There a search jumps over the many equally cheap paths and
/// expands only a dozen or so jump points, so a search per unit costs less than the class's
/// fields and waves would.
fn searches_each_unit(grid: &Grid, board: Board) -> bool {
    grid.uniform_cost().is_some() && board == Board::Square(Diagonal::NoObstacles)
}

/// Pairs each member with a tile of its region for a class searched one unit at a time
/// ([`searches_each_unit`]), where any pairing gives cheapest paths: in ranks, so that the
/// members keep their places in the crowd and their paths run side by side.
///
/// In each region whose members stand on one side of the click (their bearings from it fit
/// in a half-turn), the members and the tiles are measured along the line from the click to
/// the members' centre (*depth*: the front of the crowd is nearest the click, the far side of
/// the tiles is beyond it) and across it. The members, front first, and the tiles, far side
/// first, are cut into ranks as wide as the tiles are across the line, and in each rank the
/// k-th member across gets the k-th tile across. The front rank fills the far side of the
/// goal and each rank behind it the tiles behind those, so no rank walks through another
/// that has arrived; members side by side go to tiles side by side, so paths do not cross,
/// and a block marching over open ground moves as a block instead of funnelling into a few
/// files. Equal depths and places go by unit, and tiles by storage order.
///
/// Where the members stand all around the click (two armies from both sides in one order),
/// no line has a front: there the region pairs by bearing ([`pair_by_bearing`]).
fn pair_in_ranks(
    grid: &Grid,
    board: Board,
    click: Pos,
    members: &[Member],
    tiles: &[usize],
) -> Vec<(Member, usize)> {
    let offset = |index: usize| {
        let pos = grid.pos(index);
        (
            f64::from(pos.x) - f64::from(click.x),
            f64::from(pos.y) - f64::from(click.y),
        )
    };
    let mut regions: Vec<u32> = members.iter().map(|m| m.region).collect();
    regions.sort_unstable();
    regions.dedup();
    let mut pairs = Vec::with_capacity(members.len());
    for region in regions {
        let mine: Vec<Member> = members
            .iter()
            .filter(|m| m.region == region)
            .copied()
            .collect();
        let ours: Vec<usize> = tiles
            .iter()
            .copied()
            .filter(|&t| grid.region(grid.pos(t), board) == Some(region))
            .collect();
        debug_assert_eq!(mine.len(), ours.len(), "a tile per member in each region");
        let Some((ux, uy)) = front_line(mine.iter().map(|m| offset(m.start))) else {
            pairs.extend(pair_by_bearing(grid, click, &mine, &ours));
            continue;
        };
        // (depth, across, what): the depth grows away from the click, toward the members.
        let place = |index: usize| {
            let (x, y) = offset(index);
            (x * ux + y * uy, y * ux - x * uy)
        };
        let mut mine: Vec<(f64, f64, Member)> = mine
            .iter()
            .map(|m| {
                let (depth, across) = place(m.start);
                (depth, across, *m)
            })
            .collect();
        mine.sort_by(|a, b| {
            (a.0.total_cmp(&b.0))
                .then(a.1.total_cmp(&b.1))
                .then(a.2.unit.cmp(&b.2.unit))
        });
        let mut ours: Vec<(f64, f64, usize)> = ours
            .iter()
            .map(|&t| {
                let (depth, across) = place(t);
                (depth, across, t)
            })
            .collect();
        ours.sort_by(|a, b| {
            (a.0.total_cmp(&b.0))
                .then(a.1.total_cmp(&b.1))
                .then(a.2.cmp(&b.2))
        });
        let (least, most) = ours
            .iter()
            .fold((f64::INFINITY, f64::NEG_INFINITY), |(least, most), t| {
                (least.min(t.1), most.max(t.1))
            });
        // As many tiles as the goal is wide across the line (at least one).
        let rank = ((most - least).round().max(0.0) as usize + 1).min(ours.len().max(1));
        for (units, tiles) in mine.chunks_mut(rank).zip(ours.chunks_mut(rank)) {
            units.sort_by(|a, b| a.1.total_cmp(&b.1).then(a.2.unit.cmp(&b.2.unit)));
            tiles.sort_by(|a, b| a.1.total_cmp(&b.1).then(a.2.cmp(&b.2)));
            pairs.extend(units.iter().zip(tiles.iter()).map(|(u, t)| (u.2, t.2)));
        }
    }
    pairs
}

/// Pairs one region's members standing all around the click with its tiles
/// ([`pair_in_ranks`]) by bearing from the click, so that paths do not cross: the members and
/// the tiles are sorted by their bearing from `click` (the angle of the line from the click
/// to them), counted round from the middle of the widest gap between the members' bearings,
/// and the k-th member gets the k-th tile. Two armies coming from both sides take a side
/// each, and an army's flanks take the tiles on the far side. Equal bearings go by unit, and
/// tiles by storage order.
fn pair_by_bearing(
    grid: &Grid,
    click: Pos,
    members: &[Member],
    tiles: &[usize],
) -> Vec<(Member, usize)> {
    use std::f64::consts::TAU;
    let bearing = |index: usize| {
        let pos = grid.pos(index);
        let dx = f64::from(pos.x) - f64::from(click.x);
        let dy = f64::from(pos.y) - f64::from(click.y);
        dy.atan2(dx).rem_euclid(TAU)
    };
    let mut mine: Vec<(f64, Member)> = members.iter().map(|m| (bearing(m.start), *m)).collect();
    mine.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.unit.cmp(&b.1.unit)));
    let bearings: Vec<f64> = mine.iter().map(|m| m.0).collect();
    let (from, width) = widest_gap(&bearings);
    let cut = from + width / 2.0;
    let round = |b: f64| (b - cut).rem_euclid(TAU);
    mine.sort_by(|a, b| {
        round(a.0)
            .total_cmp(&round(b.0))
            .then(a.1.unit.cmp(&b.1.unit))
    });
    let mut ours: Vec<(f64, usize)> = tiles.iter().map(|&t| (round(bearing(t)), t)).collect();
    ours.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
    mine.iter()
        .zip(&ours)
        .map(|((_, m), (_, t))| (*m, *t))
        .collect()
}

/// The widest gap between neighbouring bearings (sorted, in `[0, TAU)`) round the circle:
/// the bearing it starts at and its width (a full turn for one bearing or none).
fn widest_gap(sorted: &[f64]) -> (f64, f64) {
    use std::f64::consts::TAU;
    let mut widest = (0.0, TAU);
    for (k, &from) in sorted.iter().enumerate() {
        let to = sorted.get(k + 1).map_or(sorted[0] + TAU, |&next| next);
        if k == 0 || to - from > widest.1 {
            widest = (from, to - from);
        }
    }
    widest
}

/// The unit vector from the click toward the centre of members standing at these offsets
/// from it, when they all stand on one side of the click (their bearings from it fit in a
/// half-turn) and their centre is a tile or more away; `None` when they stand around it.
fn front_line(offsets: impl Iterator<Item = (f64, f64)> + Clone) -> Option<(f64, f64)> {
    use std::f64::consts::{PI, TAU};
    let count = offsets.clone().count() as f64;
    let (sx, sy) = offsets
        .clone()
        .fold((0.0, 0.0), |(sx, sy), (x, y)| (sx + x, sy + y));
    let length = (sx / count).hypot(sy / count);
    // Below a tile, or NaN: no side to come from.
    if length.is_nan() || length < 1.0 {
        return None;
    }
    let mut bearings: Vec<f64> = offsets
        .filter(|&(x, y)| x != 0.0 || y != 0.0)
        .map(|(x, y)| y.atan2(x).rem_euclid(TAU))
        .collect();
    bearings.sort_by(f64::total_cmp);
    let (_, widest) = widest_gap(&bearings);
    (widest >= PI).then_some((sx / count / length, sy / count / length))
}

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
struct Toward {
    /// `(min, max)` corners; the first `count` are used.
    boxes: [(Pos, Pos); TOWARD_BOXES],
    count: usize,
    heuristic: Heuristic,
    scale: f64,
}

/// The most boxes a [`Toward`] splits its members into: each costs a little on every cell a
/// field reaches.
const TOWARD_BOXES: usize = 4;

/// Members are split into two boxes only where more than this many columns (or rows) in a
/// row hold none of them.
const TOWARD_GAP: u32 = 16;

impl Toward {
    fn new(grid: &Grid, board: Board, members: &[Member]) -> Self {
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
    fn at(&self, pos: Pos) -> f64 {
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
struct Beyond {
    last: f64,
    toward: Toward,
}

impl Beyond {
    #[inline]
    fn at(&self, pos: Pos) -> f64 {
        (self.last - self.toward.at(pos)).max(0.0)
    }
}

/// A route field is rebuilt from the tiles still free once a wave on it gave a tile to fewer
/// than one in this many of the members it set out with; until then the next wave runs on
/// it. Any field serves (see [`Router::start_wave`]), and one more wave costs less than a
/// new field and its wave. But a field whose tiles were taken leads the wave a longer way
/// round, and the tiles left after a wave are those no river near them could fill: the
/// next wave on the same field reaches them from the few members on the army's flanks whose
/// ways are best aligned with them, and serves few. A fresh field, whose rivers end on
/// those tiles, serves many again. A smaller number keeps a field for more waves (each
/// cheaper, serving fewer); a larger one rebuilds it sooner. Choose it by the work of the
/// army benchmark's orders (`cargo run --release --example army`), with the core's
/// `group_orders` example as a check.
const FIELD_KEPT_WHILE_ONE_IN: usize = 12;

/// An order under way: what is left of it.
#[derive(Clone, Debug)]
struct Planning {
    board: Board,
    /// The grids' count and size at `start`, to check that `advance` gets the same.
    grids: usize,
    size: (u32, u32),
    /// Units refused before any work, for the next `advance` to hand out.
    refused: Vec<(usize, Result<Route, Stranded>)>,
    /// The classes with units still to decide, in index order: the first is under way.
    classes: VecDeque<ClassPlan>,
}

/// One movement class of an order under way: its units and how far planning them got.
#[derive(Clone, Debug)]
struct ClassPlan {
    class: usize,
    /// The cells the class walks to in place of the click ([`anchors`]).
    anchors: Vec<usize>,
    /// Per region holding an anchor, by region: how many tiles are still to be picked there.
    quotas: Vec<(u32, usize)>,
    /// Its units that may get a tile and have none yet, in unit order.
    members: Vec<Member>,
    /// The members the last wave gave a tile, as (member, the river cell where its path
    /// leaves its way down the route field, tile).
    routed: Vec<(Member, usize, usize)>,
    /// For a class searched one unit at a time ([`searches_each_unit`]): its members, each
    /// with its tile ([`pair_in_ranks`]), in the order they are searched: front rank first.
    pairs: Vec<(Member, usize)>,
    /// The click, which the pairs are made around.
    click: Pos,
    /// The tiles the click field picked, as many as the members it left.
    tiles: Vec<usize>,
    phase: Phase,
    /// The route field under way: its bound for the cells it did not settle, once it is
    /// built and waves run on it.
    field: Option<Beyond>,
}

/// The next step of a class. The field builds and the wave go on a limited number of cells
/// at a time ([`GroupPlanner::advance`]), so each of them is a phase that starts it and one
/// (or two) that it goes on in, with what it needs to resume.
#[derive(Clone, Copy, Debug)]
enum Phase {
    /// The click field is to be started.
    PickTiles,
    /// The click field is being filled: it picks the tiles as it settles them, and once it
    /// has them all (or ran out of cells) strands the units that find none.
    PickingTiles,
    /// A route field from the tiles still free is to be started, for the members left.
    RouteField,
    /// The route field is being filled toward the members ([`Toward`]) until it has
    /// settled every member's start: `left` start cells to go, `beyond` what it knows so
    /// far of the cells it did not settle.
    FillingRouteField { left: usize, beyond: Beyond },
    /// A wave on that field is to be started; `beyond` is the field's bound for the cells
    /// it did not settle.
    Wave { beyond: Beyond },
    /// The wave's rivers are being walked: the members before `member` are done, and
    /// `member`'s way down the route field has got to the cell `at`.
    Rivers {
        beyond: Beyond,
        member: usize,
        at: usize,
    },
    /// The wave is spreading, with `free_left` free tiles still to reach.
    Spreading { beyond: Beyond, free_left: usize },
    /// The path of `routed[next]`.
    Route { next: usize },
    /// The search of `pairs[next]`, for a class searched one unit at a time.
    Search { next: usize },
}

/// One unit of the class being planned.
#[derive(Clone, Copy, Debug)]
struct Member {
    unit: usize,
    start: usize,
    region: u32,
}

impl GroupPlanner {
    /// A planner with no memory yet: the first order (or [`Self::reserve`]) sizes it.
    pub fn new() -> Self {
        Self::default()
    }

    /// What planning the order under way (or the last one) did so far: the whole order's
    /// totals since [`Self::start`].
    pub fn stats(&self) -> GroupStats {
        self.routers
            .iter()
            .fold(self.stats, |total, router| total.plus(router.stats))
    }

    /// Sizes the planner's memory for orders on `grids` (one per movement class, all of one
    /// size) and has the OS map all of it now, so that the first order on them does not pay
    /// for it. Planning needs about 64 bytes a cell per movement class (84 for a class of one
    /// cost, whose units may be searched one at a time) and 28 more.
    ///
    /// Without the call, [`Self::start`] allocates that memory zeroed and the OS maps its
    /// pages as the order first writes them: a program that never gives a group order never
    /// pays for it, and an order over a small part of a large map only for that part; but
    /// the first order's first calls are slower (on the army benchmark's 512x512 map, its
    /// first frame takes over one and a half times as long). Call it when a group order
    /// becomes likely (the game does when two or more units are first selected). Memory
    /// already of the right size is left as it is, and an order under way is never
    /// disturbed: one on grids of this size goes on and plans the same as without the call;
    /// while one on grids of another size or number is under way, the call does nothing
    /// (its memory is in use, and the next [`Self::start`] sizes it anyway).
    pub fn reserve<G: Borrow<Grid>>(&mut self, grids: &[G]) {
        let Some(first) = grids.first().map(Borrow::borrow) else {
            return;
        };
        let size = (first.width(), first.height());
        if self
            .planning
            .as_ref()
            .is_some_and(|p| p.size != size || p.grids != grids.len())
        {
            return;
        }
        let cells = first.costs().len();
        self.click_field.reserve(first);
        self.taken.reserve(cells);
        self.routers.resize_with(grids.len(), Router::default);
        for (router, grid) in self.routers.iter_mut().zip(grids) {
            router.reserve(first);
            if grid.borrow().uniform_cost().is_some() {
                // Its units may be searched one at a time (on the 8-way board).
                router.search.reserve(cells);
            }
        }
    }

    /// Plans `order`: one result per unit, in the order of `order.units`. `grids[c]` is the
    /// map as movement class `c` sees it; all must have the same size. An order under way
    /// ([`Self::start`]) is dropped.
    pub fn plan<G: Borrow<Grid>>(
        &mut self,
        grids: &[G],
        order: &GroupOrder,
    ) -> Result<Vec<Result<Route, Stranded>>, GroupError> {
        self.start(grids, order)?;
        let mut routes: Vec<Option<Result<Route, Stranded>>> = vec![None; order.units.len()];
        while self.is_planning() {
            for (unit, route) in self.advance(grids, usize::MAX).decided {
                routes[unit] = Some(route);
            }
        }
        Ok(routes
            .into_iter()
            .map(|route| route.expect("a done order has decided every unit"))
            .collect())
    }

    /// Starts planning `order` (an order under way is dropped, even when this one is
    /// refused). Nothing is routed yet; the units and occupied tiles are copied, so `order`
    /// need not outlive the call. `grids` as for [`Self::plan`]; [`Self::advance`] does the
    /// work.
    pub fn start<G: Borrow<Grid>>(
        &mut self,
        grids: &[G],
        order: &GroupOrder,
    ) -> Result<(), GroupError> {
        self.planning = None;
        self.stats = GroupStats::default();
        let unknown = |unit: usize, u: &Unit| {
            let error = Stranded::UnknownClass {
                class: u.class,
                classes: grids.len(),
            };
            (unit, Err(error))
        };
        let Some(first) = grids.first().map(Borrow::borrow) else {
            self.planning = Some(Planning {
                board: order.board,
                grids: 0,
                size: (0, 0),
                refused: order
                    .units
                    .iter()
                    .enumerate()
                    .map(|(i, u)| unknown(i, u))
                    .collect(),
                classes: VecDeque::new(),
            });
            return Ok(());
        };
        let (width, height) = (first.width(), first.height());
        for (class, grid) in grids.iter().enumerate() {
            let grid = grid.borrow();
            if (grid.width(), grid.height()) != (width, height) {
                return Err(GroupError::GridSizes {
                    class,
                    expected: (width, height),
                    found: (grid.width(), grid.height()),
                });
            }
        }
        if !first.contains(order.click) {
            return Err(GroupError::ClickOutside {
                pos: order.click,
                width,
                height,
            });
        }
        let cells = first.costs().len();
        self.taken.begin(cells);
        for &pos in order.occupied.iter().filter(|p| first.contains(**p)) {
            self.taken.set(first.index(pos));
        }
        self.routers.resize_with(grids.len(), Router::default);
        for router in &mut self.routers {
            router.reset(cells);
        }
        // Every refusal that needs no work is made here: unknown classes, starts outside
        // the map or impassable, and units in a region without the click (or a shore).
        let mut refused = Vec::new();
        let mut members: Vec<Vec<Member>> = vec![Vec::new(); grids.len()];
        for (unit, u) in order.units.iter().enumerate() {
            let Some(grid) = grids.get(u.class).map(Borrow::borrow) else {
                refused.push(unknown(unit, u));
                continue;
            };
            let error = if !grid.contains(u.start) {
                Stranded::StartOutside {
                    pos: u.start,
                    width,
                    height,
                }
            } else if let Some(region) = grid.region(u.start, order.board) {
                members[u.class].push(Member {
                    unit,
                    start: grid.index(u.start),
                    region,
                });
                continue;
            } else {
                Stranded::StartBlocked(u.start)
            };
            refused.push((unit, Err(error)));
        }
        let mut classes = VecDeque::new();
        for (class, members) in members.into_iter().enumerate() {
            if !members.is_empty() {
                let plan =
                    ClassPlan::new(grids[class].borrow(), order, class, members, &mut refused);
                if !plan.members.is_empty() {
                    classes.push_back(plan);
                }
            }
        }
        refused.sort_by_key(|&(unit, _)| unit);
        self.planning = Some(Planning {
            board: order.board,
            grids: grids.len(),
            size: (width, height),
            refused,
            classes,
        });
        Ok(())
    }

    /// Goes on with the order under way until the work done in this call reaches `budget`
    /// or the order is done. Work is cells settled by fields, plus cells expanded by waves
    /// or walked to find their rivers, plus the jump points expanded by the searches of a
    /// class searched one unit at a time (on a uniform-cost 8-way grid), plus the routes'
    /// paths at [`PATH_CELLS_PER_WORK`] cells a unit (what [`GroupStats::settled`],
    /// [`GroupStats::searched`] and [`GroupStats::paths`] count). Field builds and waves
    /// (the walk of their rivers included) stop on the cell that reaches the budget, and the
    /// next call goes on with them from there; a unit's path (with its search, when it has
    /// one of its own) is written whole, so it is the one step that can cross the budget.
    /// The tiles are picked first, a class at a time in index order; then the classes are
    /// routed side by side, in two lanes on threads of their own, each lane an even share
    /// of what is left of the budget, the classes in a lane an even share of its share (a
    /// class done before its share is used passes the rest on to the others). A call thus
    /// does less than `budget.max(1)` plus one unit's work per class ([`Advance::last`]).
    /// Every call does some work while the order has work left, so a budget of 0 acts as 1
    /// and a caller cannot spin forever. Units refused before any work come out of the
    /// first call. `grids` must be the grids given to [`Self::start`]. With no order under
    /// way it returns an empty, done [`Advance`].
    ///
    /// ```
    /// use tilewalk_path::{Board, Grid, GroupOrder, GroupPlanner, PATH_CELLS_PER_WORK, Pos, Unit};
    ///
    /// // Grass and mud in stripes (on a grid of one cost, each unit would be searched alone,
    /// // its search counting toward the step that can cross the budget).
    /// let grid = Grid::from_fn(16, 16, |p| Some(if p.y % 4 == 0 { 3.0 } else { 1.0 })).unwrap();
    /// let units: Vec<Unit> = (0..16).map(|x| Unit { start: Pos::new(x, 15), class: 0 }).collect();
    /// let order = GroupOrder { units: &units, click: Pos::new(8, 0), occupied: &[], board: Board::default() };
    /// let mut planner = GroupPlanner::new();
    /// planner.start(&[&grid], &order).unwrap();
    /// let mut routes = vec![None; units.len()];
    /// while planner.is_planning() {
    ///     // One frame: about 40 cells of work.
    ///     let frame = planner.advance(&[&grid], 40);
    ///     assert!(frame.work - frame.last < 40);
    ///     if frame.work > 40 {
    ///         // Past the budget only by one unit's path, walked whole: the last route.
    ///         let (_, route) = frame.decided.last().unwrap();
    ///         let cells = route.as_ref().unwrap().path.cells.len();
    ///         assert_eq!(cells.div_ceil(PATH_CELLS_PER_WORK), frame.last);
    ///     }
    ///     for (unit, route) in frame.decided {
    ///         routes[unit] = Some(route); // the unit can start walking now
    ///     }
    /// }
    /// let all_at_once = planner.plan(&[&grid], &order).unwrap();
    /// assert_eq!(routes.into_iter().map(Option::unwrap).collect::<Vec<_>>(), all_at_once);
    /// ```
    pub fn advance<G: Borrow<Grid>>(&mut self, grids: &[G], budget: usize) -> Advance {
        self.go_on(grids, budget, true)
    }

    /// [`Self::advance`] up to the tiles only: goes on with the order under way until every
    /// one of its movement classes has picked its tiles ([`Self::picked_tiles`]) or the work
    /// done in this call reaches `budget`, deciding only the units it refuses or strands. A
    /// host planning several orders side by side picks each order's tiles in turn, one
    /// after the other in a frame (picking is cheap), and then routes them all side by side.
    /// A call once every class has its tiles does nothing.
    pub fn advance_picking<G: Borrow<Grid>>(&mut self, grids: &[G], budget: usize) -> Advance {
        self.go_on(grids, budget, false)
    }

    /// [`Self::advance`], routing the units or not.
    fn go_on<G: Borrow<Grid>>(&mut self, grids: &[G], budget: usize, route: bool) -> Advance {
        let Some(mut planning) = self.planning.take() else {
            return Advance {
                done: true,
                ..Advance::default()
            };
        };
        debug_assert!(
            grids.len() == planning.grids
                && grids
                    .iter()
                    .all(|g| (g.borrow().width(), g.borrow().height()) == planning.size),
            "advance must get the grids that start got"
        );
        let mut advance = Advance {
            decided: std::mem::take(&mut planning.refused),
            ..Advance::default()
        };
        let budget = budget.max(1);
        // The tiles first, a class at a time in index order: each picks from what the
        // classes before it left.
        while advance.work < budget
            && let Some(at) = planning.classes.iter().position(|c| !c.picked())
        {
            let class = &mut planning.classes[at];
            let before = self.stats.work();
            let finished = self.pick(
                grids[class.class].borrow(),
                planning.board,
                class,
                &mut advance.decided,
                budget - advance.work,
            );
            let work = self.stats.work() - before;
            if work > 0 {
                advance.last = work;
                advance.work += work;
            }
            if finished && class.finished() {
                planning.classes.remove(at);
            }
        }
        // Then the units, every class side by side; again with what is left of the budget
        // when a class is done before its share is.
        while route && advance.work < budget && !planning.classes.is_empty() {
            self.route(grids, &mut planning, budget - advance.work, &mut advance);
        }
        advance.done = planning.classes.is_empty();
        if !advance.done {
            self.planning = Some(planning);
        }
        advance
    }

    /// Routes the classes of `planning` (every one has its tiles) side by side, in
    /// [`LANES`] lanes of an even share of `budget` each, each lane on a thread of its own
    /// and its classes one after the other on an even share of the lane's, every class with
    /// its own [`Router`]; and adds what they decided to `advance`, in class order. The
    /// shares depend on the budget and the number of classes alone, not on how the threads
    /// raced, so the same calls decide the same units.
    fn route<G: Borrow<Grid>>(
        &mut self,
        grids: &[G],
        planning: &mut Planning,
        budget: usize,
        advance: &mut Advance,
    ) {
        let board = planning.board;
        let searched: Vec<bool> = planning
            .classes
            .iter()
            .map(|c| matches!(c.phase, Phase::Search { .. }))
            .collect();
        let shares = lane_shares(budget, &searched);
        let mut routers: Vec<Option<&mut Router>> = self.routers.iter_mut().map(Some).collect();
        let mut jobs: Vec<Vec<_>> = Vec::new();
        for (place, (class, (lane, share))) in planning.classes.iter_mut().zip(shares).enumerate() {
            let router = routers[class.class]
                .take()
                .expect("one class of an order per movement class");
            if lane >= jobs.len() {
                jobs.resize_with(lane + 1, Vec::new);
            }
            if share > 0 {
                jobs[lane].push((place, grids[class.class].borrow(), class, router, share));
            }
        }
        // A lane whose every share is 0 (a budget smaller than the classes) gets no thread.
        jobs.retain(|lane| !lane.is_empty());
        type Job<'a> = (usize, &'a Grid, &'a mut ClassPlan, &'a mut Router, usize);
        let run = |lane: Vec<Job>| -> Vec<(usize, Routed)> {
            lane.into_iter()
                .map(|(place, grid, class, router, share)| {
                    (place, router.run(grid, board, class, share))
                })
                .collect()
        };
        // The first lane on this thread, the others on threads of their own.
        let mut routed: Vec<(usize, Routed)> = std::thread::scope(|scope| {
            let mut lanes = jobs.into_iter();
            let first = lanes.next();
            let threads: Vec<_> = lanes.map(|lane| scope.spawn(move || run(lane))).collect();
            let first = first.map(run).unwrap_or_default();
            let others = threads
                .into_iter()
                .flat_map(|thread| thread.join().expect("a router panicked"));
            first.into_iter().chain(others).collect()
        });
        // In class order, however the lanes were filled.
        routed.sort_by_key(|part| part.0);
        let routed = routed.into_iter().map(|part| part.1);
        let mut last = 0;
        for part in routed {
            advance.decided.extend(part.decided);
            advance.work += part.work;
            last += part.last;
        }
        if last > 0 {
            advance.last = last;
        }
        planning.classes.retain(|class| !class.finished());
    }

    /// Whether an order is under way: started, and not every unit decided yet.
    pub fn is_planning(&self) -> bool {
        self.planning.is_some()
    }

    /// The tiles of the order under way once every one of its movement classes has picked
    /// them, `None` while some class is still picking (or no order is under way). A class
    /// whose units are all decided is left out: its units' routes say where they go. A host
    /// planning several orders side by side starts the next one once this is known, and
    /// gives it these tiles as [`GroupOrder::occupied`], so that no two orders pick one tile.
    /// `grids` must be the grids given to [`Self::start`].
    pub fn picked_tiles<G: Borrow<Grid>>(&self, grids: &[G]) -> Option<Vec<Pos>> {
        let planning = self.planning.as_ref()?;
        planning.classes.iter().all(ClassPlan::picked).then(|| {
            planning
                .classes
                .iter()
                .flat_map(|class| {
                    let grid = grids[class.class].borrow();
                    class.tiles.iter().map(|&tile| grid.pos(tile))
                })
                .collect()
        })
    }

    /// Takes `class`'s next step in picking its tiles, doing at most `limit` work and
    /// pushing the units it strands onto `decided`; true once the class has its tiles (and
    /// its [`Router`] knows them). A step may do no work (starting the click field), but
    /// every step moves the class on.
    fn pick(
        &mut self,
        grid: &Grid,
        board: Board,
        class: &mut ClassPlan,
        decided: &mut Vec<(usize, Result<Route, Stranded>)>,
        limit: usize,
    ) -> bool {
        match class.phase {
            Phase::PickTiles => {
                class.tiles.clear();
                self.click_field.begin(grid);
                for &a in &class.anchors {
                    self.click_field.seed(a, 0.0);
                }
                self.stats.fields += 1;
                class.phase = Phase::PickingTiles;
                false
            }
            Phase::PickingTiles => {
                if !self.pick_tiles(grid, board, class, decided, limit) {
                    return false;
                }
                if searches_each_unit(grid, board) {
                    class.pairs =
                        pair_in_ranks(grid, board, class.click, &class.members, &class.tiles);
                    class.members.clear();
                    class.phase = Phase::Search { next: 0 };
                    return true;
                }
                let router = &mut self.routers[class.class];
                for &tile in &class.tiles {
                    router.is_tile[tile] = true;
                }
                router.marked.extend_from_slice(&class.tiles);
                class.phase = Phase::RouteField;
                true
            }
            _ => unreachable!("a class's tiles are picked once"),
        }
    }

    /// Goes on with the click's field for `class` for at most `limit` cells: picks the
    /// nearest free tiles as it settles them, and once every region has its tiles (or the
    /// field ran out of cells) strands the units of a region that ran out of them. True when
    /// it is finished.
    fn pick_tiles(
        &mut self,
        grid: &Grid,
        board: Board,
        class: &mut ClassPlan,
        decided: &mut Vec<(usize, Result<Route, Stranded>)>,
        limit: usize,
    ) -> bool {
        let mut wanted = class.members.len() - class.tiles.len();
        let (quotas, tiles) = (&mut class.quotas, &mut class.tiles);
        let taken = &self.taken;
        let before = self.click_field.stats().expanded;
        let finished =
            self.click_field
                .fill_for(grid, board, None, f64::INFINITY, limit, |index, _| {
                    if taken.get(index) {
                        return false;
                    }
                    let region = grid.region(grid.pos(index), board).unwrap_or(0);
                    if let Ok(at) = quotas.binary_search_by_key(&region, |q| q.0)
                        && quotas[at].1 > 0
                    {
                        quotas[at].1 -= 1;
                        tiles.push(index);
                        wanted -= 1;
                    }
                    wanted == 0
                });
        self.stats.settled += self.click_field.stats().expanded - before;
        if !finished {
            return false;
        }
        let quotas = &mut class.quotas;
        if wanted > 0 {
            // Some region ran out of free tiles: its units nearest the click keep theirs, so
            // the farthest are left out, as many as tiles are missing. The field ran to the
            // end, so every unit has its cost.
            let members = &mut class.members;
            let cost = |m: &Member| self.click_field.cost_at(m.start).unwrap_or(f64::INFINITY);
            members.sort_by(|a, b| cost(b).total_cmp(&cost(a)).then(b.unit.cmp(&a.unit)));
            members.retain(|m| {
                let at = quotas
                    .binary_search_by_key(&m.region, |q| q.0)
                    .expect("members were kept for their region's quota");
                if quotas[at].1 > 0 {
                    quotas[at].1 -= 1;
                    decided.push((m.unit, Err(Stranded::NoFreeTile(grid.pos(m.start)))));
                    false
                } else {
                    true
                }
            });
            members.sort_by_key(|m| m.unit);
        }
        for &tile in &class.tiles {
            self.taken.set(tile);
        }
        true
    }
}

/// What a [`Router`] did in one call: as [`Advance`], for its class alone.
struct Routed {
    decided: Vec<(usize, Result<Route, Stranded>)>,
    work: usize,
    last: usize,
}

impl Router {
    /// Sizes the waves' per-cell memory for `cells` cells (a new size forgets every wave).
    fn size_waves(&mut self, cells: usize) {
        if self.nodes.len() != cells || self.generation >= u32::MAX - 2 {
            self.nodes = zeroed(cells);
            self.stamps = zeroed(cells);
            self.generation = 0;
            self.heap.reserve(cells);
        }
        if self.wave_root.len() != cells {
            self.wave_root = zeroed(cells);
        }
    }

    /// Sizes every per-cell memory that is not of `grid`'s size yet, and maps its pages.
    fn reserve(&mut self, grid: &Grid) {
        let cells = grid.costs().len();
        if self.is_tile.len() != cells {
            self.reset(cells);
            map_pages(&mut self.is_tile);
            map_pages(&mut self.starts_at);
        }
        self.route_field.reserve(grid);
        if self.nodes.len() != cells {
            self.size_waves(cells);
            map_pages(&mut self.nodes);
            map_pages(&mut self.stamps);
            map_pages(&mut self.wave_root);
            self.heap.map_pages();
        }
        if self.rivers.node_at.len() != cells {
            self.rivers.begin(0, cells);
            map_pages(&mut self.rivers.node_at);
        }
    }

    /// Forgets the last order: every cell no tile and no start, no rivers, no work.
    fn reset(&mut self, cells: usize) {
        if self.is_tile.len() == cells {
            for &cell in &self.marked {
                (self.is_tile[cell], self.starts_at[cell]) = (false, 0);
            }
        } else {
            (self.is_tile, self.starts_at) = (zeroed(cells), zeroed(cells));
        }
        self.marked.clear();
        // An order dropped in the middle of a wave leaves its rivers' marks.
        self.rivers.clear();
        self.stats = GroupStats::default();
    }

    /// Goes on routing `class` until the work done in this call reaches `budget` or the
    /// class is done, as [`GroupPlanner::advance`] does for a whole order.
    fn run(&mut self, grid: &Grid, board: Board, class: &mut ClassPlan, budget: usize) -> Routed {
        let mut routed = Routed {
            decided: Vec::new(),
            work: 0,
            last: 0,
        };
        while routed.work < budget {
            let before = self.stats.work();
            let finished = self.step(
                grid,
                board,
                class,
                &mut routed.decided,
                budget - routed.work,
            );
            let work = self.stats.work() - before;
            if work > 0 {
                routed.last = work;
                routed.work += work;
            }
            if finished {
                break;
            }
        }
        routed
    }

    /// Takes `class`'s next step in routing its units (its tiles picked), doing at most
    /// `limit` work (more only for one unit's path), and pushing the units it decides onto
    /// `decided`; true when it decided the class's last unit. A step may do no work
    /// (starting a field or a wave), but every step moves the class on.
    fn step(
        &mut self,
        grid: &Grid,
        board: Board,
        class: &mut ClassPlan,
        decided: &mut Vec<(usize, Result<Route, Stranded>)>,
        limit: usize,
    ) -> bool {
        match class.phase {
            Phase::PickTiles | Phase::PickingTiles => {
                unreachable!("a class is routed once its tiles are picked")
            }
            Phase::RouteField => {
                let mut free = std::mem::take(&mut self.free);
                free.clear();
                free.extend(class.tiles.iter().copied().filter(|&t| self.is_tile[t]));
                let mut left = 0;
                for m in &class.members {
                    if self.starts_at[m.start] == 0 {
                        left += 1;
                        self.marked.push(m.start);
                    }
                    self.starts_at[m.start] += 1;
                }
                let toward = Toward::new(grid, board, &class.members);
                self.route_field.begin(grid);
                for &tile in &free {
                    self.route_field
                        .seed_guided(tile, 0.0, toward.at(grid.pos(tile)));
                }
                self.free = free;
                self.stats.fields += 1;
                let beyond = Beyond { last: 0.0, toward };
                class.phase = Phase::FillingRouteField { left, beyond };
                false
            }
            Phase::FillingRouteField {
                mut left,
                mut beyond,
            } => {
                let starts_at = &self.starts_at;
                let toward = beyond.toward;
                let before = self.route_field.stats().expanded;
                let finished = self.route_field.fill_toward(
                    grid,
                    board,
                    limit,
                    |pos| toward.at(pos),
                    |index, cost| {
                        beyond.last = cost + toward.at(grid.pos(index));
                        if starts_at[index] > 0 {
                            left -= 1;
                        }
                        left == 0
                    },
                );
                self.stats.settled += self.route_field.stats().expanded - before;
                if finished {
                    for m in &class.members {
                        self.starts_at[m.start] = 0;
                    }
                    class.phase = Phase::Wave { beyond };
                    class.field = Some(beyond);
                } else {
                    class.phase = Phase::FillingRouteField { left, beyond };
                }
                false
            }
            Phase::Wave { beyond } => {
                self.stats.waves += 1;
                self.rivers.begin(class.members.len(), grid.costs().len());
                class.phase = Phase::Rivers {
                    beyond,
                    member: 0,
                    at: class.members[0].start,
                };
                false
            }
            Phase::Rivers {
                beyond,
                mut member,
                mut at,
            } => {
                let walked = self.rivers.walk(
                    &self.route_field,
                    &class.members,
                    &mut member,
                    &mut at,
                    limit,
                );
                self.stats.searched += walked;
                if member < class.members.len() {
                    class.phase = Phase::Rivers { beyond, member, at };
                } else {
                    self.rivers.link(&self.route_field);
                    let free_left = self.start_wave(grid, class, beyond);
                    class.phase = Phase::Spreading { beyond, free_left };
                }
                false
            }
            Phase::Spreading {
                beyond,
                mut free_left,
            } => {
                let finished = match board {
                    Board::Square(diagonal) => {
                        self.spread(grid, SquareMoves(diagonal), beyond, &mut free_left, limit)
                    }
                    Board::Hex(layout) => {
                        self.spread(grid, HexMoves(layout), beyond, &mut free_left, limit)
                    }
                };
                if finished {
                    self.hand_out(class);
                    class.phase = Phase::Route { next: 0 };
                } else {
                    class.phase = Phase::Spreading { beyond, free_left };
                }
                false
            }
            Phase::Route { next } => {
                let (m, river, tile) = class.routed[next];
                let field = &self.route_field;
                let next_down = |at: usize| {
                    field
                        .next_at(at)
                        .expect("the river cell is down the member's way")
                };
                // Counted first, so that the path takes exactly its memory: an army's paths
                // are most of what its order keeps.
                let (mut cells, mut at) = (1, m.start);
                while at != river {
                    (cells, at) = (cells + 1, next_down(at));
                }
                at = tile;
                while at != river {
                    (cells, at) = (cells + 1, self.nodes[at].1 as usize);
                }
                let mut path = Path::default();
                path.cells.reserve_exact(cells);
                // Down the route field to the river cell, then on along the wave.
                let mut at = m.start;
                path.cells.push(grid.pos(at));
                while at != river {
                    at = next_down(at);
                    path.cells.push(grid.pos(at));
                }
                let descended = path.cells.len();
                at = tile;
                while at != river {
                    path.cells.push(grid.pos(at));
                    at = self.nodes[at].1 as usize;
                }
                path.cells[descended..].reverse();
                let down = |index| {
                    field
                        .cost_at(index)
                        .expect("ways down the field are settled")
                };
                path.cost =
                    down(m.start) - down(river) + (self.nodes[tile].0 - self.nodes[river].0);
                self.stats.paths += path.cells.len().div_ceil(PATH_CELLS_PER_WORK);
                decided.push((
                    m.unit,
                    Ok(Route {
                        tile: grid.pos(tile),
                        path,
                    }),
                ));
                if next + 1 < class.routed.len() {
                    class.phase = Phase::Route { next: next + 1 };
                    false
                } else {
                    // The members the wave set out with: those it routed and those left.
                    let set_out = class.routed.len() + class.members.len();
                    let served_enough = class.routed.len() * FIELD_KEPT_WHILE_ONE_IN >= set_out;
                    class.routed.clear();
                    class.phase = match class.field {
                        Some(beyond) if served_enough => Phase::Wave { beyond },
                        _ => Phase::RouteField,
                    };
                    class.members.is_empty()
                }
            }
            Phase::Search { next } => {
                let (m, tile) = class.pairs[next];
                let options = SearchOptions {
                    algorithm: Algorithm::JumpPoint,
                    board,
                    ..SearchOptions::default()
                };
                let mut found = self
                    .search
                    .search(grid, grid.pos(m.start), grid.pos(tile), &options)
                    .expect("a member's tile is in its region");
                found.path.cells.shrink_to_fit();
                self.stats.searched += found.stats.expanded;
                self.stats.paths += found.path.cells.len().div_ceil(PATH_CELLS_PER_WORK);
                let route = Route {
                    tile: grid.pos(tile),
                    path: found.path,
                };
                decided.push((m.unit, Ok(route)));
                if next + 1 < class.pairs.len() {
                    class.phase = Phase::Search { next: next + 1 };
                    false
                } else {
                    class.pairs.clear();
                    true
                }
            }
        }
    }

    /// Starts the wave (its rivers walked, [`Rivers::walk`]): one search from all the
    /// members at once, each starting behind by its cost down the route field `F` (from the
    /// tiles that were free when it was built, which bounds the cost to those still free
    /// from below), a multi-source A* (guided by `F`, and off the field by its [`Beyond`]
    /// bound) whose cost at a cell `c`
    /// is the least of `top - F(u) + d(u, c)` over the members `u`, `top` the greatest
    /// `F(u)`. That is never less than `top - F(c)` (`F(u) <= d(u, c) + F(c)`), and it is
    /// exactly that on every river cell `y` (a cell on some member's way down `F`). So for a
    /// member `u` whose way down passes `y`, its way down to `y` (cost `F(u) - F(y)`) and the
    /// wave's way on from `y` to a cell `c` cost `cost(c) - top + F(u)`, which is no more
    /// than `d(u, c)`: a cheapest path to `c`. The wave runs ([`Self::spread`]) until it has
    /// settled every free tile, noting for each the first river cell on its way back; then
    /// the rivers hand the tiles out upstream first ([`Self::hand_out`]). Returns how many
    /// free tiles the wave is to reach.
    fn start_wave(&mut self, grid: &Grid, class: &ClassPlan, beyond: Beyond) -> usize {
        let members = &class.members;
        self.size_waves(grid.costs().len());
        let field = &self.route_field;
        self.generation += 2;
        let open = self.generation;
        let h = |index: usize| {
            field
                .cost_at(index)
                .unwrap_or_else(|| beyond.at(grid.pos(index)))
        };
        let top = members.iter().map(|m| h(m.start)).fold(0.0, f64::max);
        self.heap.clear();
        for m in members {
            let g = top - h(m.start);
            if self.stamps[m.start] == open && self.nodes[m.start].0 <= g {
                continue;
            }
            self.nodes[m.start] = (g, m.start as u32);
            self.stamps[m.start] = open;
            self.wave_root[m.start] = m.start as u32;
            self.heap
                .push(HeapEntry::new(m.start as u32, g + h(m.start), h(m.start)));
        }
        self.reached.clear();
        class.tiles.iter().filter(|&&t| self.is_tile[t]).count()
    }

    /// Goes on with the wave for at most `limit` cells, until it has reached the
    /// `free_left` free tiles left (or run out of cells): true when it is finished. It
    /// resumes where it stopped, so its cells are expanded in the same order however the
    /// limits split them. Of two equally cheap ways to a cell (up to rounding), it keeps
    /// the one whose river cell is further down the route field: the tile is then reached
    /// from where more members pass, and the hand-out can give it to any of them.
    fn spread<M: Moves>(
        &mut self,
        grid: &Grid,
        moves: M,
        beyond: Beyond,
        free_left: &mut usize,
        limit: usize,
    ) -> bool {
        let (open, closed) = (self.generation, self.generation + 1);
        let field = &self.route_field;
        let rivers = &mut self.rivers;
        let costs = grid.costs();
        let tables = moves.tables();
        let offsets = moves.offsets(grid);
        let h = |index: usize| {
            field
                .cost_at(index)
                .unwrap_or_else(|| beyond.at(grid.pos(index)))
        };
        let mut left = limit;
        loop {
            if left == 0 {
                // Out of cells for this call: finished only when none is left to expand.
                return self.heap.only_stale_left(&self.stamps, closed);
            }
            let Some(entry) = self.heap.pop_open(&self.stamps, closed) else {
                return true;
            };
            let index = entry.index() as usize;
            left -= 1;
            self.stamps[index] = closed;
            self.stats.searched += 1;
            let (g, _) = self.nodes[index];
            let root = self.wave_root[index];
            if self.is_tile[index] {
                let id = rivers.node(root as usize);
                let node = &mut rivers.nodes[id];
                self.reached.push((index as u32, node.tiles));
                node.tiles = self.reached.len() as u32 - 1;
                *free_left -= 1;
                if *free_left == 0 {
                    return true;
                }
            }
            let pos = grid.pos(index);
            let table = moves.table(pos);
            let (steps, offsets) = (&tables[table], &offsets[table]);
            let mut allowed = moves.allowed_at(grid, offsets, index);
            while allowed != 0 {
                let d = allowed.trailing_zeros() as usize;
                allowed &= allowed - 1;
                let next = index.wrapping_add_signed(offsets[d]);
                let stamp = self.stamps[next];
                if stamp == closed {
                    continue;
                }
                let g = g + costs[next] * steps[d].length;
                // The first river cell on the way back: `next` itself when it is one.
                let root_at = |next: usize| {
                    if rivers.contains(next) {
                        next as u32
                    } else {
                        root
                    }
                };
                if stamp == open && g >= self.nodes[next].0 {
                    // An equally cheap way from a river cell further down: take it, as a
                    // tile reached from there can go to more members (all those above).
                    if HeapEntry::ties(g, self.nodes[next].0) {
                        let (old, new) = (self.wave_root[next], root_at(next));
                        if h(new as usize) < h(old as usize) {
                            self.nodes[next] = (g, index as u32);
                            self.wave_root[next] = new;
                        }
                    }
                    continue;
                }
                self.nodes[next] = (g, index as u32);
                self.stamps[next] = open;
                self.wave_root[next] = root_at(next);
                let h = h(next);
                self.heap.push(HeapEntry::new(next as u32, g + h, h));
            }
        }
    }

    /// After the wave: upstream first, each river node gives its tiles to the members
    /// waiting at it (its own and those left over upstream), and passes the rest down: a
    /// tile reached from a node can take any member above it, and the members left there
    /// can only go further down, so this gives as many members a tile as can be. Moves the
    /// members given a tile to `class.routed`.
    fn hand_out(&mut self, class: &mut ClassPlan) {
        let rivers = &mut self.rivers;
        let reached = &self.reached;
        let mut given = vec![NONE; class.members.len()];
        for k in 0..rivers.upstream_first.len() {
            let id = rivers.upstream_first[k] as usize;
            let node = rivers.nodes[id];
            let (mut head, tail) = node.members;
            let mut tile = node.tiles;
            while head != NONE && tile != NONE {
                let (cell, older) = reached[tile as usize];
                given[head as usize] = cell;
                self.is_tile[cell as usize] = false;
                head = if head == tail {
                    NONE
                } else {
                    rivers.next_member[head as usize]
                };
                tile = older;
            }
            if head != NONE && node.down != NONE {
                rivers.push_members(node.down as usize, head, tail);
            }
        }
        class.routed.clear();
        let mut i = 0;
        let routed = &mut class.routed;
        let wave_root = &self.wave_root;
        class.members.retain(|&m| {
            let tile = given[i];
            i += 1;
            if tile == NONE {
                return true;
            }
            routed.push((m, wave_root[tile as usize] as usize, tile as usize));
            false
        });
        rivers.clear();
    }
}

/// The members' ways down the route field, merged into a forest rooted at tiles: the
/// rivers of [`Router::start_wave`].
#[derive(Clone, Debug, Default)]
struct Rivers {
    /// Per cell (storage index): one more than the index of its node, or 0 when it has none
    /// (so that fresh zeroed memory has no rivers).
    node_at: Vec<u32>,
    nodes: Vec<RiverNode>,
    /// Per member: the next member in the same list.
    next_member: Vec<u32>,
    /// The nodes, each after every node down its way (a reversed depth-first order).
    upstream_first: Vec<u32>,
    stack: Vec<u32>,
}

#[derive(Clone, Copy, Debug)]
struct RiverNode {
    cell: u32,
    /// The next node down, or `NONE` at a tile.
    down: u32,
    first_child: u32,
    next_sibling: u32,
    /// The members starting here, then those left over upstream: first and last.
    members: (u32, u32),
    /// The free tiles the wave reached from here: first, in `tiles` of the wave.
    tiles: u32,
}

impl Rivers {
    /// Starts the rivers of `members` members on a grid of `cells` cells.
    fn begin(&mut self, members: usize, cells: usize) {
        if self.node_at.len() != cells {
            self.node_at = zeroed(cells);
        }
        self.nodes.clear();
        self.next_member.clear();
        self.next_member.resize(members, NONE);
    }

    /// Walks the members' ways down `field`, from member `*member`, whose way has got to
    /// the cell `*at`, until every member's way is walked or `limit` cells were added;
    /// returns the cells added, and leaves `*member` and `*at` where to go on.
    fn walk(
        &mut self,
        field: &CostField,
        members: &[Member],
        member: &mut usize,
        at: &mut usize,
        limit: usize,
    ) -> usize {
        let mut walked = 0;
        while let Some(m) = members.get(*member) {
            while !self.contains(*at) {
                if walked == limit {
                    return walked;
                }
                walked += 1;
                self.node_at[*at] = self.nodes.len() as u32 + 1;
                self.nodes.push(RiverNode {
                    cell: *at as u32,
                    down: NONE,
                    first_child: NONE,
                    next_sibling: NONE,
                    members: (NONE, NONE),
                    tiles: NONE,
                });
                match field.next_at(*at) {
                    Some(down) => *at = down,
                    None => break,
                }
            }
            let id = self.node(m.start);
            self.push_members(id, *member as u32, *member as u32);
            *member += 1;
            if let Some(m) = members.get(*member) {
                *at = m.start;
            }
        }
        walked
    }

    /// Once every way is walked: links the nodes into the forest and orders them upstream
    /// first.
    fn link(&mut self, field: &CostField) {
        // Children, in creation order; roots on the stack, last first.
        self.stack.clear();
        for id in (0..self.nodes.len()).rev() {
            let cell = self.nodes[id].cell as usize;
            match field.next_at(cell) {
                Some(down) => {
                    let down = self.node(down) as u32;
                    self.nodes[id].down = down;
                    self.nodes[id].next_sibling = self.nodes[down as usize].first_child;
                    self.nodes[down as usize].first_child = id as u32;
                }
                None => self.stack.push(id as u32),
            }
        }
        self.upstream_first.clear();
        while let Some(id) = self.stack.pop() {
            self.upstream_first.push(id);
            let mut child = self.nodes[id as usize].first_child;
            while child != NONE {
                self.stack.push(child);
                child = self.nodes[child as usize].next_sibling;
            }
        }
        self.upstream_first.reverse();
    }

    /// Appends the list `first..=last` (linked by `next_member`) to node `id`'s members.
    fn push_members(&mut self, id: usize, first: u32, last: u32) {
        let (head, tail) = self.nodes[id].members;
        if head == NONE {
            self.nodes[id].members = (first, last);
        } else {
            self.next_member[tail as usize] = first;
            self.nodes[id].members = (head, last);
        }
    }

    fn contains(&self, cell: usize) -> bool {
        self.node_at[cell] != 0
    }

    /// The node of a river cell.
    fn node(&self, cell: usize) -> usize {
        self.node_at[cell] as usize - 1
    }

    /// Forgets the rivers (their cells' marks).
    fn clear(&mut self) {
        for node in &self.nodes {
            self.node_at[node.cell as usize] = 0;
        }
        self.nodes.clear();
    }
}

impl ClassPlan {
    /// Whether its tiles are picked.
    fn picked(&self) -> bool {
        !matches!(self.phase, Phase::PickTiles | Phase::PickingTiles)
    }

    /// Whether every unit is decided: routed, with its path written, or stranded.
    fn finished(&self) -> bool {
        self.picked() && self.members.is_empty() && self.routed.is_empty() && self.pairs.is_empty()
    }

    /// The units of `class` that may get a tile, to plan from its click field on: those in a
    /// region without an anchor are refused onto `refused`.
    fn new(
        grid: &Grid,
        order: &GroupOrder,
        class: usize,
        mut members: Vec<Member>,
        refused: &mut Vec<(usize, Result<Route, Stranded>)>,
    ) -> Self {
        let board = order.board;
        let anchors = anchors(grid, order.click, board);
        // Tiles are only worth picking in regions that hold both an anchor and a unit.
        let mut quotas: Vec<(u32, usize)> = Vec::new();
        for &a in &anchors {
            let region = grid.region(grid.pos(a), board).unwrap_or(0);
            if let Err(at) = quotas.binary_search_by_key(&region, |q| q.0) {
                quotas.insert(at, (region, 0));
            }
        }
        members.retain(|m| match quotas.binary_search_by_key(&m.region, |q| q.0) {
            Ok(at) => {
                quotas[at].1 += 1;
                true
            }
            Err(_) => {
                refused.push((m.unit, Err(Stranded::Unreachable(grid.pos(m.start)))));
                false
            }
        });
        Self {
            class,
            anchors,
            quotas,
            members,
            routed: Vec::new(),
            pairs: Vec::new(),
            click: order.click,
            tiles: Vec::new(),
            phase: Phase::PickTiles,
            field: None,
        }
    }
}

/// The cells a class walks to in place of the click: the click when it can stand there,
/// else the passable cells nearest it in a straight line (centre to centre), all of them
/// when several are as near.
fn anchors(grid: &Grid, click: Pos, board: Board) -> Vec<usize> {
    if grid.is_passable(click) {
        return vec![grid.index(click)];
    }
    let mut best = f64::INFINITY;
    let mut nearest = Vec::new();
    for pos in grid.cells().filter(|&p| grid.is_passable(p)) {
        let distance = board.heuristic(Heuristic::Euclidean, click, pos);
        if distance < best {
            best = distance;
            nearest.clear();
        }
        if distance == best {
            nearest.push(grid.index(pos));
        }
    }
    nearest
}

#[cfg(test)]
mod tests {
    use super::*;

    fn members(grid: &Grid, starts: &[(u32, u32)]) -> Vec<Member> {
        starts
            .iter()
            .enumerate()
            .map(|(unit, &(x, y))| Member {
                unit,
                start: grid.index(Pos::new(x, y)),
                region: 0,
            })
            .collect()
    }

    #[test]
    fn classes_share_two_lanes_in_index_order_searched_ones_first() {
        let waves = |count: usize| vec![false; count];
        assert_eq!(lane_shares(40, &waves(1)), [(0, 40)]);
        assert_eq!(lane_shares(40, &waves(2)), [(0, 20), (1, 20)]);
        // Three classes: the last has a lane (a core) to itself.
        assert_eq!(lane_shares(40, &waves(3)), [(0, 10), (0, 10), (1, 20)]);
        assert_eq!(lane_shares(41, &waves(3)), [(0, 11), (0, 10), (1, 20)]);
        assert_eq!(lane_shares(1, &waves(3)), [(0, 1), (0, 0), (1, 0)]);
        let four = lane_shares(7, &waves(4));
        assert_eq!(four, [(0, 2), (0, 2), (1, 2), (1, 1)]);
        // The last of three searched one unit at a time: it shares the first lane with the
        // first class (placed before it), and the second class has the other to itself.
        assert_eq!(
            lane_shares(40, &[false, false, true]),
            [(0, 10), (1, 20), (0, 10)]
        );
        assert_eq!(lane_shares(40, &[true, false]), [(0, 20), (1, 20)]);
        assert_eq!(
            lane_shares(41, &[false, true, true]),
            [(1, 20), (0, 11), (0, 10)]
        );
        for count in 1..9 {
            for budget in 0..50 {
                for searched in 0..1u32 << count {
                    let searched: Vec<bool> = (0..count).map(|c| searched >> c & 1 == 1).collect();
                    let shares = lane_shares(budget, &searched);
                    assert_eq!(shares.iter().map(|s| s.1).sum::<usize>(), budget);
                    // The classes searched one unit at a time are in lanes no later than
                    // the others, and each kind fills the lanes in index order.
                    for (a, b) in (0..count).flat_map(|a| (a + 1..count).map(move |b| (a, b))) {
                        if searched[a] == searched[b] || searched[a] {
                            assert!(shares[a].0 <= shares[b].0, "{searched:?}: {shares:?}");
                        }
                    }
                }
            }
        }
    }

    #[test]
    fn reserve_sizes_memory_without_changing_an_order_on_the_same_grids() {
        // A band of mud open at its east end, a wall with a gap below it, and a second class
        // that cannot enter the mud.
        let foot = Grid::from_fn(40, 30, |p| match (p.x, p.y) {
            (20, 13..) if p.y != 20 => None,
            (..30, 10..=12) => Some(3.0),
            _ => Some(1.0),
        })
        .unwrap();
        let horse = Grid::from_fn(40, 30, |p| foot.cost(p).filter(|&c| c < 2.0)).unwrap();
        let grids = [&foot, &horse];
        let units: Vec<Unit> = (0..60)
            .map(|i| Unit {
                start: Pos::new(i % 12, [3, 5, 7, 15, 17][i as usize / 12]),
                class: (i % 2) as usize,
            })
            .collect();
        let order = GroupOrder {
            units: &units,
            click: Pos::new(30, 20),
            occupied: &[Pos::new(30, 21)],
            board: Board::default(),
        };
        let fresh = GroupPlanner::new().plan(&grids, &order).unwrap();
        assert!(fresh.iter().all(Result::is_ok));
        let mut planner = GroupPlanner::new();
        planner.reserve(&grids);
        assert_eq!(planner.routers.len(), 2);
        assert_eq!(planner.routers[1].nodes.len(), foot.costs().len());
        assert_eq!(planner.plan(&grids, &order).unwrap(), fresh);
        // Reserved again in the middle of an order on the same grids: it goes on as before.
        planner.start(&grids, &order).unwrap();
        let mut routes = vec![None; units.len()];
        let mut calls = 0;
        while planner.is_planning() {
            for (unit, route) in planner.advance(&grids, 50).decided {
                routes[unit] = Some(route);
            }
            planner.reserve(&grids);
            calls += 1;
        }
        assert!(calls > 10, "the order was cut into {calls} calls");
        let routes: Vec<_> = routes.into_iter().map(Option::unwrap).collect();
        assert_eq!(routes, fresh);
        // Grids of another size leave an order under way alone, and are sized for once it
        // is done; no grids change nothing.
        let small = Grid::new(8, 8).unwrap();
        planner.start(&grids, &order).unwrap();
        let mut routes = vec![None; units.len()];
        for budget in [50, usize::MAX] {
            planner.reserve(&[&small, &small]);
            planner.reserve::<&Grid>(&[]);
            assert!(planner.is_planning());
            for (unit, route) in planner.advance(&grids, budget).decided {
                routes[unit] = Some(route);
            }
        }
        assert!(!planner.is_planning());
        let routes: Vec<_> = routes.into_iter().map(Option::unwrap).collect();
        assert_eq!(routes, fresh);
        planner.reserve(&[&small, &small]);
        assert_eq!(planner.routers[0].is_tile.len(), small.costs().len());
        assert_eq!(planner.plan(&grids, &order).unwrap(), fresh);
    }

    #[test]
    fn toward_splits_members_at_wide_gaps_only() {
        let grid = Grid::new(100, 100).unwrap();
        let board = Board::default();
        // A squad packed in columns 10 to 12 (three to a column): one box.
        let squad: Vec<(u32, u32)> = (0..9).map(|i| (10 + i % 3, 40 + i / 3)).collect();
        let toward = Toward::new(&grid, board, &members(&grid, &squad));
        assert_eq!(toward.count, 1);
        assert_eq!(toward.at(Pos::new(11, 41)), 0.0);
        assert_eq!(toward.at(Pos::new(20, 41)), 8.0);
        // Two armies 17 columns apart, and two rows 16 apart within the right one: the
        // columns split, the rows do not.
        let armies = [(0, 0), (2, 5), (20, 0), (21, 17)];
        let toward = Toward::new(&grid, board, &members(&grid, &armies));
        assert_eq!(toward.count, 2);
        assert_eq!(toward.at(Pos::new(1, 3)), 0.0);
        assert_eq!(toward.at(Pos::new(20, 10)), 0.0);
        assert_eq!(toward.at(Pos::new(11, 3)), 9.0); // 9 columns from either box
        let octile = Heuristic::Octile.distance(2, 3);
        assert!((toward.at(Pos::new(23, 20)) - octile).abs() < 1e-12);
        // Never more than TOWARD_BOXES boxes, whatever the gaps.
        let spread: Vec<(u32, u32)> = (0..5).map(|i| (i * 20, i * 20)).collect();
        let toward = Toward::new(&grid, board, &members(&grid, &spread));
        assert_eq!(toward.count, TOWARD_BOXES);
        for &(x, y) in &spread {
            assert_eq!(toward.at(Pos::new(x, y)), 0.0);
        }
    }
}
