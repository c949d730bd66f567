//! Group orders: N units sent to one click end on N distinct tiles near it, each on a
//! cheapest path to its own tile, for the price of a few cost-to-goal fields and N short,
//! well-guided searches instead of N blind ones.
//!
//! The rules, and the design behind them, are in the [crate docs](crate#group-orders).

use std::borrow::Borrow;

use crate::board::Board;
use crate::field::CostField;
use crate::grid::{Grid, Pos};
use crate::moves::Heuristic;
use crate::open_list::{HeapEntry, OpenList};
use crate::search::{HexMoves, Moves, Path, SquareMoves};

/// A unit of a group order: where it stands and which movement class it walks as (an
/// index into the grids given to [`GroupPlanner::plan`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Unit {
    pub start: Pos,
    pub class: usize,
}

/// One order: these units to this click.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct GroupOrder<'a> {
    pub units: &'a [Unit],
    pub click: Pos,
    /// Where units that are not part of the order stand: walked through, never chosen as
    /// a unit's tile. The order's own units leave their tiles, so those are free.
    pub occupied: &'a [Pos],
    pub board: Board,
}

/// Where a unit goes: its tile and a cheapest path there (start and tile included).
#[derive(Clone, Debug, PartialEq)]
pub struct Route {
    pub tile: Pos,
    pub path: Path,
}

/// Why one unit of an order got no route (the others still get theirs).
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
pub enum Stranded {
    #[error("movement class {class} has no grid (there are {classes})")]
    UnknownClass { class: usize, classes: usize },
    #[error("start {pos} is outside the {width}x{height} map")]
    StartOutside { pos: Pos, width: u32, height: u32 },
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
    #[error("click {pos} is outside the {width}x{height} map")]
    ClickOutside { pos: Pos, width: u32, height: u32 },
    #[error("the grid of movement class {class} is {found:?}, not {expected:?} as class 0's")]
    GridSizes {
        class: usize,
        expected: (u32, u32),
        found: (u32, u32),
    },
}

/// What planning an order did.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct GroupStats {
    /// Fields built, the click's included (one per class with units, plus routing rounds).
    pub fields: usize,
    /// Cells settled by all of them.
    pub settled: usize,
    /// Cells expanded by the searches from units to their tiles.
    pub searched: usize,
}

/// Plans one group order with fresh memory. Use a [`GroupPlanner`] for repeated orders.
pub fn plan_group<G: Borrow<Grid>>(
    grids: &[G],
    order: &GroupOrder,
) -> Result<Vec<Result<Route, Stranded>>, GroupError> {
    GroupPlanner::new().plan(grids, order)
}

/// A per-cell mark valid for one generation.
#[derive(Clone, Debug, Default)]
struct Marks {
    stamps: Vec<u32>,
    generation: u32,
}

impl Marks {
    fn begin(&mut self, cells: usize) {
        if self.stamps.len() != cells || self.generation == u32::MAX {
            self.stamps.clear();
            self.stamps.resize(cells, 0);
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

/// Reusable memory for group orders: keep one and plan every order with it. The rules it
/// plans by are in the [crate docs](crate#group-orders).
#[derive(Clone, Debug, Default)]
pub struct GroupPlanner {
    click_field: CostField,
    route_field: CostField,
    /// Cells that no unit of this order may end on: occupied, or taken by an earlier class.
    taken: Marks,
    /// Per cell (storage index) during one class: the free tile's number, or `NONE`.
    tile_at: Vec<u32>,
    /// Per cell: how many of the class's unrouted units start there.
    starts_at: Vec<u32>,
    /// The searches from units to free tiles: per cell `(g, parent)`, stamps, frontier.
    nodes: Vec<(f64, u32)>,
    stamps: Vec<u32>,
    generation: u32,
    heap: OpenList,
    stats: GroupStats,
}

const NONE: u32 = u32::MAX;

/// One unit of the class being planned.
#[derive(Clone, Copy, Debug)]
struct Member {
    unit: usize,
    start: usize,
    region: u32,
}

impl GroupPlanner {
    pub fn new() -> Self {
        Self::default()
    }

    /// What the last order's planning did.
    pub fn stats(&self) -> GroupStats {
        self.stats
    }

    /// Plans `order`: one result per unit, in the order of `order.units`. `grids[c]` is the
    /// map as movement class `c` sees it; all must have the same size.
    pub fn plan<G: Borrow<Grid>>(
        &mut self,
        grids: &[G],
        order: &GroupOrder,
    ) -> Result<Vec<Result<Route, Stranded>>, GroupError> {
        self.stats = GroupStats::default();
        let mut routes: Vec<Option<Result<Route, Stranded>>> = vec![None; order.units.len()];
        let Some(first) = grids.first().map(Borrow::borrow) else {
            let classes = 0;
            return Ok(order
                .units
                .iter()
                .map(|u| {
                    Err(Stranded::UnknownClass {
                        class: u.class,
                        classes,
                    })
                })
                .collect());
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
        self.tile_at.clear();
        self.tile_at.resize(cells, NONE);
        self.starts_at.clear();
        self.starts_at.resize(cells, 0);
        for (class, grid) in grids.iter().enumerate() {
            let grid = grid.borrow();
            let mut members = Vec::new();
            for (unit, u) in order
                .units
                .iter()
                .enumerate()
                .filter(|(_, u)| u.class == class)
            {
                let error = if !grid.contains(u.start) {
                    Stranded::StartOutside {
                        pos: u.start,
                        width,
                        height,
                    }
                } else if let Some(region) = grid.region(u.start, order.board) {
                    members.push(Member {
                        unit,
                        start: grid.index(u.start),
                        region,
                    });
                    continue;
                } else {
                    Stranded::StartBlocked(u.start)
                };
                routes[unit] = Some(Err(error));
            }
            if !members.is_empty() {
                self.plan_class(grid, order, &mut members, &mut routes);
            }
        }
        Ok(routes
            .into_iter()
            .zip(order.units)
            .map(|(route, u)| {
                route.unwrap_or(Err(Stranded::UnknownClass {
                    class: u.class,
                    classes: grids.len(),
                }))
            })
            .collect())
    }

    /// Picks the tiles of one class and routes its units to them.
    fn plan_class(
        &mut self,
        grid: &Grid,
        order: &GroupOrder,
        members: &mut Vec<Member>,
        routes: &mut [Option<Result<Route, Stranded>>],
    ) {
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
                routes[m.unit] = Some(Err(Stranded::Unreachable(grid.pos(m.start))));
                false
            }
        });
        if members.is_empty() {
            return;
        }
        // The click's field, until every region's tiles are found: the nearest free tiles.
        let mut wanted = members.len();
        let mut tiles: Vec<usize> = Vec::new();
        self.click_field.begin(grid);
        for &a in &anchors {
            self.click_field.seed(a, 0.0);
        }
        let taken = &self.taken;
        self.click_field
            .fill(grid, board, None, f64::INFINITY, |index, _| {
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
        self.stats.fields += 1;
        self.stats.settled += self.click_field.stats().expanded;
        if wanted > 0 {
            // Some region ran out of free tiles: its units nearest the click keep theirs, so
            // the farthest are left out, as many as tiles are missing. The field ran to the
            // end, so every unit has its cost.
            let cost = |m: &Member| self.click_field.cost_at(m.start).unwrap_or(f64::INFINITY);
            members.sort_by(|a, b| cost(b).total_cmp(&cost(a)).then(b.unit.cmp(&a.unit)));
            members.retain(|m| {
                let at = quotas
                    .binary_search_by_key(&m.region, |q| q.0)
                    .expect("members were kept for their region's quota");
                if quotas[at].1 > 0 {
                    quotas[at].1 -= 1;
                    routes[m.unit] = Some(Err(Stranded::NoFreeTile(grid.pos(m.start))));
                    false
                } else {
                    true
                }
            });
            members.sort_by_key(|m| m.unit);
        }
        for (number, &tile) in tiles.iter().enumerate() {
            self.tile_at[tile] = number as u32;
            self.taken.set(tile);
        }
        self.route(grid, board, &tiles, members, routes);
    }

    /// Routes `members` to `tiles` (as many): farthest unit first, a search from each unit
    /// to the nearest tile still free, guided by a field from the free tiles, built again
    /// whenever the searches since the last one settled more cells than it did.
    fn route(
        &mut self,
        grid: &Grid,
        board: Board,
        tiles: &[usize],
        members: &mut [Member],
        routes: &mut [Option<Result<Route, Stranded>>],
    ) {
        let mut beyond = self.build_route_field(grid, board, tiles, members);
        let field = &self.route_field;
        let cost = |m: &Member| field.cost_at(m.start).unwrap_or(f64::INFINITY);
        members.sort_by(|a, b| cost(b).total_cmp(&cost(a)).then(a.unit.cmp(&b.unit)));
        let mut free: Vec<usize> = Vec::new();
        let mut since = 0;
        for at in 0..members.len() {
            if since > self.route_field.stats().expanded {
                free.clear();
                free.extend(tiles.iter().copied().filter(|&t| self.tile_at[t] != NONE));
                beyond = self.build_route_field(grid, board, &free, &members[at..]);
                since = 0;
            }
            let m = members[at];
            let mut path = Path::default();
            let before = self.stats.searched;
            let tile = match board {
                Board::Square(diagonal) => {
                    self.nearest_free(grid, SquareMoves(diagonal), m.start, beyond, &mut path)
                }
                Board::Hex(layout) => {
                    self.nearest_free(grid, HexMoves(layout), m.start, beyond, &mut path)
                }
            };
            since += self.stats.searched - before;
            self.tile_at[tile] = NONE;
            routes[m.unit] = Some(Ok(Route {
                tile: grid.pos(tile),
                path,
            }));
        }
    }

    /// Builds the route field from `tiles` until it has settled every member's start;
    /// returns the cost of the last cell settled, a lower bound for the cells it left out.
    fn build_route_field(
        &mut self,
        grid: &Grid,
        board: Board,
        tiles: &[usize],
        members: &[Member],
    ) -> f64 {
        let mut left = 0;
        for m in members {
            if self.starts_at[m.start] == 0 {
                left += 1;
            }
            self.starts_at[m.start] += 1;
        }
        self.route_field.begin(grid);
        for &tile in tiles {
            self.route_field.seed(tile, 0.0);
        }
        let starts_at = &self.starts_at;
        let mut last = 0.0;
        self.route_field
            .fill(grid, board, None, f64::INFINITY, |index, cost| {
                last = cost;
                if starts_at[index] > 0 {
                    left -= 1;
                }
                left == 0
            });
        self.stats.fields += 1;
        self.stats.settled += self.route_field.stats().expanded;
        for m in members {
            self.starts_at[m.start] = 0;
        }
        last
    }

    /// A* from `start` to the nearest tile still free, guided by the route field (the cost
    /// to the nearest of all the tiles, never more than to a free one; `beyond` for cells
    /// the field did not settle, which cost at least that). Returns the tile.
    fn nearest_free<M: Moves>(
        &mut self,
        grid: &Grid,
        moves: M,
        start: usize,
        beyond: f64,
        path: &mut Path,
    ) -> usize {
        let cells = grid.costs().len();
        if self.nodes.len() != cells || self.generation >= u32::MAX - 2 {
            self.nodes.clear();
            self.nodes.resize(cells, (0.0, 0));
            self.stamps.clear();
            self.stamps.resize(cells, 0);
            self.generation = 0;
        }
        self.generation += 2;
        let (open, closed) = (self.generation, self.generation + 1);
        let costs = grid.costs();
        let passable = grid.open();
        let tables = moves.tables();
        let offsets = moves.offsets(grid);
        let field = &self.route_field;
        let h = |index: usize| field.cost_at(index).unwrap_or(beyond);
        self.heap.clear();
        self.nodes[start] = (0.0, start as u32);
        self.stamps[start] = open;
        self.heap
            .push(HeapEntry::new(start as u32, h(start), h(start)));
        while let Some(entry) = self.heap.pop() {
            let index = entry.index as usize;
            if self.stamps[index] == closed {
                continue;
            }
            self.stamps[index] = closed;
            self.stats.searched += 1;
            let (g, _) = self.nodes[index];
            if self.tile_at[index] != NONE {
                path.cost = g;
                let mut at = index;
                path.cells.push(grid.pos(at));
                while at != start {
                    at = self.nodes[at].1 as usize;
                    path.cells.push(grid.pos(at));
                }
                path.cells.reverse();
                return index;
            }
            let pos = grid.pos(index);
            let table = moves.table(pos);
            let (steps, offsets) = (&tables[table], &offsets[table]);
            let mut allowed = moves.allowed_at(passable, offsets, index);
            while allowed != 0 {
                let d = allowed.trailing_zeros() as usize;
                allowed &= allowed - 1;
                let next = index.wrapping_add_signed(offsets[d]);
                let stamp = self.stamps[next];
                if stamp == closed {
                    continue;
                }
                let g = g + costs[next] * steps[d].length;
                if stamp == open && g >= self.nodes[next].0 {
                    continue;
                }
                self.nodes[next] = (g, index as u32);
                self.stamps[next] = open;
                let h = h(next);
                self.heap.push(HeapEntry::new(next as u32, g + h, h));
            }
        }
        unreachable!("a free tile is left in the unit's region")
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
