//! Bidirectional A* and Dijkstra: a forward search from the start and a backward search
//! from the goal, with balanced potentials and a stopping rule that returns the optimum.
//!
//! # The backward search walks edges backwards
//!
//! Stepping from `u` into a neighbour `v` costs `cost(v) × length`: the price is the
//! *entered* cell's. The backward search labels each cell `v` with `g_B(v)`, the cost of
//! the cheapest way from `v` to the goal, so when it expands `v` and looks at a neighbour
//! `w`, it prices the forward step `w → v`: `cost(v) × length`, the cost of the cell being
//! left towards the goal, not `cost(w)`. Which steps exist is symmetric (a diagonal's
//! corner rule looks at the same two cells from either end; hex adjacency is mutual), so
//! the backward search finds the same neighbours. Passage rules ([`Passage`]) make the
//! graph one-way: a `Blocked` cell is never entered and a cell that ends the move is never
//! left, so the backward search takes `w` as a predecessor only if `w` may be left (or is
//! the start, whose own passage never applies).
//!
//! # Balanced potentials
//!
//! Let `h_t(v)` estimate the way from `v` to the goal `t` and `h_s(v)` the way from the
//! start `s` to `v` (the same heuristic, both ways), and `H = h_s(t)`. The forward search
//! orders cells by `k_F(v) = g_F(v) + (h_t(v) − h_s(v) − H) / 2` and the backward one by
//! `k_B(v) = g_B(v) + (h_s(v) − h_t(v) − H) / 2`. These are Dijkstra's two searches on the
//! *reduced* step costs `c'(u, v) = c(u, v) − p(u) + p(v)` with `p = (h_t − h_s) / 2`
//! (Ikeda et al. 1994; Goldberg and Harrelson's "average" potentials): `k_F(v)` is the
//! reduced cost from `s` to `v` along the forward search's way, `k_B(v)` the reduced cost
//! from `v` to `t`, and a path's reduced cost is its cost minus `H`. When both heuristics
//! are consistent (every step costs at least the drop in the estimate: the default
//! heuristics, scaled by the cheapest cost, and every heuristic [`Board::heuristic`] calls
//! admissible on the board), `c(u, v) ≥ h_t(u) − h_t(v)` and `c(u, v) ≥ h_s(v) − h_s(u)`;
//! their average is `c'(u, v) ≥ 0`. Reduced costs are never negative, so each search
//! expands cells in the order of their reduced cost and a cell's `g` is final when it is
//! expanded, exactly as in Dijkstra. With the zero heuristic `k = g`: bidirectional
//! Dijkstra.
//!
//! # When to stop
//!
//! `μ` is the cost of the cheapest path found so far. It is updated on **every** step a
//! search looks at, `u → w`, whose far end the other search has reached (on its frontier
//! or expanded): `μ = min(μ, g_F(u) + c(u, w) + g_B(w))` (mirrored for backward steps),
//! even when the step does not improve `w`. The searches stop when
//! `top_F + top_B + H ≥ μ`, where `top_F` and `top_B` are the smallest keys on the two
//! frontiers (or as soon as a frontier is empty). Then `μ` is the optimum:
//!
//! Suppose a path `P = (s = v_0, …, v_n = t)` cost less than `μ`; take it cheapest, so its
//! reduced cost `d'` is less than `μ − H ≤ top_F + top_B`. Along `P` the reduced cost from
//! `s`, `a_i`, never decreases and the one to `t` is `b_i = d' − a_i`; so for every `i`,
//! `a_i < top_F` or `b_i < top_B`. A Dijkstra search whose smallest key is `top` has
//! expanded every cell closer than `top`, with its final `g`. Let `j` be the last index
//! with `a_j < top_F`. If `j = n`, the forward search expanded `v_(n−1)` and, looking at
//! the step into `t` (on the backward frontier from the start, `g_B = 0`), set `μ` to at
//! most `P`'s cost. If there is no such `j`, every `b_i < top_B` and the mirror argument
//! holds at `s`. Otherwise `v_j` was expanded forward and `v_(j+1)` backward, both with
//! final costs; whichever was expanded second looked at the step between them while the
//! other end was already reached, and set `μ ≤ g_F(v_j) + c + g_B(v_(j+1))`, `P`'s cost.
//! Each case contradicts `μ` exceeding `P`'s cost. An empty frontier counts as an infinite
//! top: every cell reachable that way was expanded, the case `j = n` (or its mirror).
//!
//! Stopping as soon as some cell has been reached, or expanded, by both searches is *not*
//! enough: the cheapest path may run between a cell only the forward search expanded and
//! its neighbour that only the backward search expanded, while a dearer path passes through
//! a cell both expanded first (`tests/bidirectional.rs` has such a grid).
//!
//! Keys are compared as the open list stores them, rounded down (a relative 2^-40), which
//! can only make the searches stop later. Costs within [`STOP_SLACK`] of `μ` (relative)
//! count as equal, so that sums of the same steps in another order, which differ in their
//! last bits, do not keep the searches expanding cells whose reduced cost is zero.

use super::trace::{Direction, TraceEvent, Tracer};
use super::{
    CellPath, HexMoves, Moves, Node, Passage, Search, SearchContext, SearchStats, SquareMoves,
    Stamp,
};
use crate::board::Board;
use crate::grid::Grid;
use crate::memory::zeroed;
use crate::moves::Step;
use crate::open_list::{HeapEntry, OpenList};
use crate::pos::Pos;

/// The relative slack of the stopping rule: a path found is returned once no other can be
/// cheaper by more than this fraction of its cost.
const STOP_SLACK: f64 = 1e-10;

/// A complete path found where the searches met: the forward search's way to `forward`,
/// the step to its neighbour `backward` (costing `step`), and the backward search's way from
/// there to the goal, `cost` in all. `forward == backward` only when the start is the goal.
#[derive(Clone, Copy, Debug)]
pub(super) struct Meeting {
    forward: usize,
    backward: usize,
    step: f64,
    cost: f64,
}

/// One of the two searches: its per-cell memory and frontier, and its two ends.
struct Side<'a> {
    stamps: &'a mut [Stamp],
    nodes: &'a mut [Node],
    heap: &'a mut OpenList,
    /// The cell it starts from (the start, or the goal).
    root: Pos,
    /// The cell it heads for (the goal, or the start).
    toward: Pos,
}

impl Side<'_> {
    /// The smallest key on the frontier, dropping entries of expanded cells on the way
    /// (they were pushed again more cheaply); `None` when the frontier is empty.
    #[inline]
    fn top(&mut self, closed: Stamp) -> Option<f64> {
        loop {
            let entry = self.heap.peek()?;
            if self.stamps[entry.index() as usize] != closed {
                return Some(entry.priority());
            }
            self.heap.pop();
        }
    }

    /// Whether the search has reached `index` (it is on the frontier or expanded): stamps
    /// of this search's generation are `open` or `open + 1`, older ones are smaller.
    #[inline]
    fn reached(&self, index: usize, open: Stamp) -> bool {
        self.stamps[index] >= open
    }
}

/// What both searches read: the board, the rules and the heuristic.
struct Walk<'a, M: Moves> {
    grid: &'a Grid,
    moves: M,
    tables: [[Step; 8]; 2],
    offsets: [[isize; 8]; 2],
    /// The price of each step where every passable cell costs the same.
    prices: Option<[[f64; 8]; 2]>,
    passage: Option<&'a dyn Fn(Pos) -> Passage>,
    heuristic: crate::moves::Heuristic,
    scale: f64,
    /// The estimate from the start to the goal, `H`.
    span: f64,
    start: usize,
    open: Stamp,
    record: bool,
}

/// What the searches share as they run: the best meeting so far and the counters.
struct Shared<'a, T> {
    best: Option<Meeting>,
    stats: &'a mut SearchStats,
    expansions: &'a mut Vec<Pos>,
    tracer: &'a mut T,
}

impl<M: Moves> Walk<'_, M> {
    #[inline]
    fn estimate(&self, a: Pos, b: Pos) -> f64 {
        self.scale * self.moves.estimate(self.heuristic, a, b)
    }

    /// `g` and the heuristic estimate of a cell, turned into `(key, h)` for `side`.
    #[inline]
    fn key(&self, side: &Side, pos: Pos, g: f64) -> (f64, f64) {
        let h = self.estimate(pos, side.toward);
        let key = g + (h - self.estimate(side.root, pos) - self.span) / 2.0;
        // Never below 0 but for rounding; the open list needs non-negative keys.
        (if key > 0.0 { key } else { 0.0 }, h)
    }

    /// Puts `side`'s root on its frontier.
    fn seed<T: Tracer>(&self, side: &mut Side, shared: &mut Shared<T>, direction: Direction) {
        let index = self.grid.index(side.root);
        side.nodes[index] = Node {
            g: 0.0,
            parent: index as u32,
        };
        side.stamps[index] = self.open;
        let (key, h) = self.key(side, side.root, 0.0);
        side.heap.clear();
        side.heap.push(HeapEntry::new(index as u32, key, h));
        shared.stats.pushed += 1;
        shared.tracer.record(|| TraceEvent::Push {
            direction,
            pos: side.root,
            parent: None,
            g: 0.0,
            h,
            f: key,
        });
    }

    /// Expands the cell on top of `side`'s frontier (`FORWARD` says which search it is),
    /// relaxing the steps out of it (forward) or into it (backward), and recording every
    /// step whose far end `other` has reached as a meeting.
    #[inline]
    fn expand<const FORWARD: bool, T: Tracer>(
        &self,
        side: &mut Side,
        other: &Side,
        shared: &mut Shared<T>,
    ) {
        let direction = if FORWARD {
            Direction::Forward
        } else {
            Direction::Backward
        };
        let (grid, open) = (self.grid, self.open);
        let closed = open + 1;
        let Some(entry) = side.heap.pop() else {
            return;
        };
        let index = entry.index() as usize;
        side.stamps[index] = closed;
        let node = side.nodes[index];
        shared.stats.expanded += 1;
        let pos = grid.pos(index);
        if self.record {
            shared.expansions.push(pos);
        }
        shared.tracer.record(|| TraceEvent::Expand {
            direction,
            pos,
            g: node.g,
        });
        // Forward: a cell that ends the move is reached but not left.
        if FORWARD
            && let Some(passage) = self.passage
            && index != self.start
            && matches!(passage(pos), Passage::EndsMove | Passage::TakesAllPoints)
        {
            return;
        }
        let costs = grid.costs();
        let table = self.moves.table(pos);
        let (steps, offsets) = (&self.tables[table], &self.offsets[table]);
        let prices = self.prices.as_ref().map(|prices| &prices[table]);
        let mut allowed = self.moves.allowed_at(grid, offsets, index);
        while allowed != 0 {
            let d = allowed.trailing_zeros() as usize;
            allowed &= allowed - 1;
            let next = index.wrapping_add_signed(offsets[d]);
            let to = || {
                Pos::new(
                    pos.x.wrapping_add_signed(steps[d].dx),
                    pos.y.wrapping_add_signed(steps[d].dy),
                )
            };
            if let Some(passage) = self.passage {
                // Forward: `next` is entered. Backward: `next` is left towards `pos`.
                let refused = if FORWARD {
                    passage(to()) == Passage::Blocked
                } else {
                    next != self.start
                        && matches!(
                            passage(to()),
                            Passage::Blocked | Passage::EndsMove | Passage::TakesAllPoints
                        )
                };
                if refused {
                    continue;
                }
            }
            // The step's price is the entered cell's: `next` going forward, `pos` backward.
            let step = match prices {
                Some(prices) => prices[d],
                None if FORWARD => costs[next] * steps[d].length,
                None => costs[index] * steps[d].length,
            };
            let g = node.g + step;
            if other.reached(next, open) {
                let cost = g + other.nodes[next].g;
                if shared.best.is_none_or(|best| cost < best.cost) {
                    let (forward, backward) = if FORWARD {
                        (index, next)
                    } else {
                        (next, index)
                    };
                    shared.best = Some(Meeting {
                        forward,
                        backward,
                        step,
                        cost,
                    });
                    shared.tracer.record(|| TraceEvent::Meet {
                        forward: grid.pos(forward),
                        backward: grid.pos(backward),
                        cost,
                    });
                }
            }
            let stamp = side.stamps[next];
            if stamp == closed {
                continue;
            }
            let on_frontier = stamp == open;
            let old_g = side.nodes[next].g;
            if on_frontier && g >= old_g {
                continue;
            }
            side.nodes[next] = Node {
                g,
                parent: index as u32,
            };
            side.stamps[next] = open;
            shared.stats.pushed += 1;
            let (key, h) = self.key(side, to(), g);
            shared.tracer.record(|| {
                let (pos, parent) = (to(), pos);
                if on_frontier {
                    TraceEvent::Relax {
                        direction,
                        pos,
                        parent,
                        old_g,
                        g,
                        h,
                        f: key,
                    }
                } else {
                    TraceEvent::Push {
                        direction,
                        pos,
                        parent: Some(parent),
                        g,
                        h,
                        f: key,
                    }
                }
            });
            // As in the one-way loop: an entry already waiting with the same key stands for
            // the cheaper way too.
            if on_frontier {
                let (old_key, _) = self.key(side, to(), old_g);
                if HeapEntry::new(0, old_key, h) == HeapEntry::new(0, key, h) {
                    continue;
                }
            }
            side.heap.push(HeapEntry::new(next as u32, key, h));
        }
    }
}

impl SearchContext {
    /// Bidirectional search to `search`'s target. Returns where the cheapest path met,
    /// `None` when there is no path.
    pub(super) fn bidirectional<T: Tracer>(
        &mut self,
        search: &Search,
        start: usize,
        tracer: &mut T,
    ) -> Option<Meeting> {
        match search.board {
            Board::Square(diagonal) => {
                self.bidirectional_on(search, SquareMoves(diagonal), start, tracer)
            }
            Board::Hex(layout) => self.bidirectional_on(search, HexMoves(layout), start, tracer),
        }
    }

    fn bidirectional_on<M: Moves, T: Tracer>(
        &mut self,
        search: &Search,
        moves: M,
        start: usize,
        tracer: &mut T,
    ) -> Option<Meeting> {
        let target = search.target?;
        let grid = search.grid;
        let cells = grid.costs().len();
        let open = self.begin(cells);
        let closed = open + 1;
        if self.back_stamps.len() != cells {
            self.back_stamps = zeroed(cells);
            self.back_nodes = zeroed(cells);
            self.back_heap.reserve(cells);
        }
        let tables = moves.tables();
        let start_pos = grid.pos(start);
        let estimate = |a, b| target.scale * moves.estimate(target.heuristic, a, b);
        let walk = Walk {
            grid,
            moves,
            tables,
            offsets: moves.offsets(grid),
            prices: grid
                .uniform_cost()
                .map(|c| tables.map(|t| t.map(|s| c * s.length))),
            passage: search.passage,
            heuristic: target.heuristic,
            scale: target.scale,
            span: estimate(start_pos, target.pos),
            start,
            open,
            record: search.record,
        };
        let Self {
            stamps,
            nodes,
            heap,
            back_stamps,
            back_nodes,
            back_heap,
            expansions,
            stats,
            ..
        } = self;
        let mut forward = Side {
            stamps,
            nodes,
            heap,
            root: start_pos,
            toward: target.pos,
        };
        let mut backward = Side {
            stamps: back_stamps,
            nodes: back_nodes,
            heap: back_heap,
            root: target.pos,
            toward: start_pos,
        };
        let mut shared = Shared {
            best: None,
            stats,
            expansions,
            tracer,
        };
        walk.seed(&mut forward, &mut shared, Direction::Forward);
        walk.seed(&mut backward, &mut shared, Direction::Backward);
        if start == target.index {
            shared.best = Some(Meeting {
                forward: start,
                backward: start,
                step: 0.0,
                cost: 0.0,
            });
            shared.tracer.record(|| TraceEvent::Meet {
                forward: start_pos,
                backward: start_pos,
                cost: 0.0,
            });
        }
        // On equal keys the searches take turns.
        let mut forward_next = true;
        loop {
            let best = shared.best.map_or(f64::INFINITY, |m| m.cost);
            let (Some(top_f), Some(top_b)) = (forward.top(closed), backward.top(closed)) else {
                // A frontier ran dry: every path from its end was looked at.
                let bound = f64::INFINITY;
                shared.tracer.record(|| TraceEvent::Stop { best, bound });
                return shared.best;
            };
            let bound = top_f + top_b + walk.span;
            if best < f64::INFINITY && bound >= best - STOP_SLACK * best {
                shared.tracer.record(|| TraceEvent::Stop { best, bound });
                return shared.best;
            }
            let go_forward = if top_f == top_b {
                forward_next = !forward_next;
                !forward_next
            } else {
                top_f < top_b
            };
            if go_forward {
                walk.expand::<true, T>(&mut forward, &backward, &mut shared);
            } else {
                walk.expand::<false, T>(&mut backward, &forward, &mut shared);
            }
        }
    }

    /// Writes the path of `meeting` into `path`: the forward search's parents lead from
    /// `meeting.forward` back to the start, the backward search's from `meeting.backward`
    /// on to the goal. Its cost is summed from the labels the path is read from.
    pub(super) fn meeting_path(
        &self,
        grid: &Grid,
        start: usize,
        goal: usize,
        meeting: Meeting,
        path: &mut CellPath,
    ) {
        let mut index = meeting.forward;
        path.cells.push(grid.pos(index));
        while index != start {
            index = self.nodes[index].parent as usize;
            path.cells.push(grid.pos(index));
        }
        path.cells.reverse();
        path.cost = self.nodes[meeting.forward].g;
        if meeting.backward != meeting.forward {
            path.cost += meeting.step + self.back_nodes[meeting.backward].g;
            index = meeting.backward;
            path.cells.push(grid.pos(index));
            while index != goal {
                index = self.back_nodes[index].parent as usize;
                path.cells.push(grid.pos(index));
            }
        }
    }
}
