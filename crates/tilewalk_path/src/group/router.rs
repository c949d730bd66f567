//! Routing a class's units down its route field by waves ([`Router`]).

use super::class::*;
use super::member::*;
use super::rivers::*;
use super::toward::*;
use super::types::*;
use crate::board::Board;
use crate::field::CostField;
use crate::grid::Grid;
use crate::memory::{map_pages, zeroed};
use crate::open_list::{HeapEntry, OpenList};
use crate::search::{
    Algorithm, CellPath, HexMoves, Moves, SearchContext, SearchOptions, SquareMoves,
};

/// The memory that routes the units of one class once their tiles are picked: its route
/// fields and waves. Each class has its own, so the classes of an order are routed side by
/// side, on threads of their own ([`GroupPlanner::advance`]).
#[derive(Debug, Default)]
pub(super) struct Router {
    pub(super) route_field: CostField,
    /// Per cell (storage index): whether it is one of the class's free tiles.
    pub(super) is_tile: Vec<bool>,
    /// Per cell: how many of the class's unrouted units start there.
    pub(super) starts_at: Vec<u32>,
    /// The cells this order set in `is_tile` or `starts_at`: what the next order clears.
    pub(super) marked: Vec<usize>,
    /// The tiles still free when the route field is rebuilt.
    pub(super) free: Vec<usize>,
    /// The wave ([`Router::start_wave`]): the rivers (the members' ways down the route
    /// field), per cell `(cost, parent)`, the first river cell on its way back, stamps,
    /// frontier.
    pub(super) rivers: Rivers,
    pub(super) nodes: Vec<(f64, u32)>,
    pub(super) wave_root: Vec<u32>,
    pub(super) stamps: Vec<u32>,
    pub(super) generation: u32,
    pub(super) heap: OpenList,
    /// The free tiles the wave reached, each with the one reached before it from the same
    /// river cell (an index into this, or `NONE`).
    pub(super) reached: Vec<(u32, u32)>,
    /// The searches of a class routed one unit at a time ([`searches_each_unit`]).
    pub(super) search: SearchContext,
    /// The work of routing: route fields' cells, waves' cells, searches and paths.
    pub(super) stats: GroupStats,
}
/// What a [`Router`] did in one call: as [`Advance`], for its class alone.
pub(super) struct Routed {
    pub(super) decided: Vec<(usize, Result<Route, Stranded>)>,
    pub(super) work: usize,
    pub(super) last: usize,
}

impl Router {
    /// Sizes the waves' per-cell memory for `cells` cells (a new size forgets every wave).
    pub(super) fn size_waves(&mut self, cells: usize) {
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
    pub(super) fn reserve(&mut self, grid: &Grid) {
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
    pub(super) fn reset(&mut self, cells: usize) {
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
    pub(super) fn run(
        &mut self,
        grid: &Grid,
        board: Board,
        class: &mut ClassPlan,
        budget: usize,
    ) -> Routed {
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
    pub(super) fn step(
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
                let mut path = CellPath::default();
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
    pub(super) fn start_wave(&mut self, grid: &Grid, class: &ClassPlan, beyond: Beyond) -> usize {
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
    pub(super) fn spread<M: Moves>(
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
    pub(super) fn hand_out(&mut self, class: &mut ClassPlan) {
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
