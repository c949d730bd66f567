//! The planner's public types: orders, routes, why a unit was left out, errors, statistics.

use crate::board::Board;
use crate::pos::Pos;
use crate::search::CellPath;

/// A unit of a group order: where it stands and which movement class it walks as (an
/// index into the grids given to [`GroupPlanner::plan`](super::GroupPlanner::plan) or [`GroupPlanner::start`](super::GroupPlanner::start)).
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
    pub path: CellPath,
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
    pub(super) fn plus(self, other: Self) -> Self {
        Self {
            fields: self.fields + other.fields,
            settled: self.settled + other.settled,
            waves: self.waves + other.waves,
            searched: self.searched + other.searched,
            paths: self.paths + other.paths,
        }
    }

    pub(super) fn work(&self) -> usize {
        self.settled + self.searched + self.paths
    }
}

/// Cells of a route's path that count as one unit of work. A path is written a cell at a
/// time, down the route field and back along the wave, which costs several times less than
/// a cell settled by a field or expanded by a wave (a heap pop and up to eight neighbours).
/// It is the ratio of those two costs, so that a budget of work stays close to a budget of
/// time: counted one for one, paths would be a large share of the work and a small share of
/// the time (the measurement: [`docs/design/group-orders.md`], "A budget of work, not time").
///
/// [`docs/design/group-orders.md`]: https://github.com/tilewalk/tilewalk/blob/main/docs/design/group-orders.md
pub const PATH_CELLS_PER_WORK: usize = 8;

/// What one [`GroupPlanner::advance`](super::GroupPlanner::advance) decided and did.
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
