//! One movement class of an order being planned, and its phases.

use super::member::*;
use super::toward::*;
use super::types::*;
use crate::board::Board;
use crate::grid::Grid;
use crate::moves::Heuristic;
use crate::pos::Pos;

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
pub(super) const FIELD_KEPT_WHILE_ONE_IN: usize = 12;

/// One movement class of an order under way: its units and how far planning them got.
#[derive(Clone, Debug)]
pub(super) struct ClassPlan {
    pub(super) class: usize,
    /// The cells the class walks to in place of the click ([`anchors`]).
    pub(super) anchors: Vec<usize>,
    /// Per region holding an anchor, by region: how many tiles are still to be picked there.
    pub(super) quotas: Vec<(u32, usize)>,
    /// Its units that may get a tile and have none yet, in unit order.
    pub(super) members: Vec<Member>,
    /// The members the last wave gave a tile, as (member, the river cell where its path
    /// leaves its way down the route field, tile).
    pub(super) routed: Vec<(Member, usize, usize)>,
    /// For a class searched one unit at a time ([`searches_each_unit`]): its members, each
    /// with its tile ([`pair_in_ranks`]), in the order they are searched: front rank first.
    pub(super) pairs: Vec<(Member, usize)>,
    /// The click, which the pairs are made around.
    pub(super) click: Pos,
    /// The tiles the click field picked, as many as the members it left.
    pub(super) tiles: Vec<usize>,
    pub(super) phase: Phase,
    /// The route field under way: its bound for the cells it did not settle, once it is
    /// built and waves run on it.
    pub(super) field: Option<Beyond>,
}

/// The next step of a class. The field builds and the wave go on a limited number of cells
/// at a time ([`GroupPlanner::advance`]), so each of them is a phase that starts it and one
/// (or two) that it goes on in, with what it needs to resume.
#[derive(Clone, Copy, Debug)]
pub(super) enum Phase {
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

impl ClassPlan {
    /// Whether its tiles are picked.
    pub(super) fn picked(&self) -> bool {
        !matches!(self.phase, Phase::PickTiles | Phase::PickingTiles)
    }

    /// Whether every unit is decided: routed, with its path written, or stranded.
    pub(super) fn finished(&self) -> bool {
        self.picked() && self.members.is_empty() && self.routed.is_empty() && self.pairs.is_empty()
    }

    /// The units of `class` that may get a tile, to plan from its click field on: those in a
    /// region without an anchor are refused onto `refused`.
    pub(super) fn new(
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
pub(super) fn anchors(grid: &Grid, click: Pos, board: Board) -> Vec<usize> {
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
