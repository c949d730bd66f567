//! Jump point search (Harabor and Grastien, 2011) for grids whose passable cells all cost
//! the same, without corner cutting.
//!
//! From each expanded cell the search runs in straight lines (rows, columns, diagonals)
//! and pushes only the first "jump point" on each: a cell where an optimal path may turn,
//! because a side cell is forced (passable, with the side cell behind it blocked: no
//! equally cheap path reaches it without passing here), or a diagonal cell whose straight
//! runs find a jump point, or the goal. Between jump points lie straight or diagonal lines,
//! which [`SearchContext::search_into`] fills in; a jump costs the cell cost times its octile
//! length.
//!
//! Two things make it fast. Straight runs read passability 64 cells at a time from bit
//! rows and columns ([`BitLines`]), the "block-based" scans of the authors' "Improving
//! Jump Point Search" (2014). And a cell reached by a straight run keeps only its forced
//! sides, as in the original paper; PathFinding.js, whose scan rules these are, keeps both
//! sides always, which pushes more cells.

use super::trace::{Direction, TraceEvent, Tracer};
use super::{Node, Search, SearchContext, trace_push};
use crate::bits::BitLines;
use crate::moves::{Heuristic, STEPS};
use crate::open_list::{HeapEntry, OpenList};

/// What the scans read: passability by cell, by row and by column, in padded coordinates
/// (`x + 1`, `y + 1`), where every line ends with the blocked border.
struct Scans<'a> {
    stride: usize,
    open: &'a [bool],
    rows: &'a BitLines,
    columns: &'a BitLines,
    goal: (usize, usize),
}

impl Scans<'_> {
    #[inline]
    fn free(&self, x: usize, y: usize) -> bool {
        self.open[y * self.stride + x]
    }

    /// The jump point found by a straight scan from `(x, y)` (included) in direction `dx`
    /// along the row, or `dy` along the column (one of them 0).
    #[inline]
    fn straight(&self, x: usize, y: usize, dx: isize, dy: isize) -> Option<(usize, usize)> {
        let (gx, gy) = self.goal;
        match (dx, dy) {
            (1, _) => self
                .rows
                .jump_up(y, x, (gy == y).then_some(gx))
                .map(|x| (x, y)),
            (-1, _) => self
                .rows
                .jump_down(y, x, (gy == y).then_some(gx))
                .map(|x| (x, y)),
            (_, 1) => self
                .columns
                .jump_up(x, y, (gx == x).then_some(gy))
                .map(|y| (x, y)),
            _ => self
                .columns
                .jump_down(x, y, (gx == x).then_some(gy))
                .map(|y| (x, y)),
        }
    }

    /// The first jump point from `(x, y)` in direction `(dx, dy)`, the cell itself excluded.
    /// Always inlined into its one caller: the search loop is where its speed matters, and
    /// left to itself the compiler stops inlining it once the loop reports to a tracer.
    #[inline(always)]
    fn jump(&self, (x, y): (usize, usize), (dx, dy): (isize, isize)) -> Option<(usize, usize)> {
        let step = |x: usize, y: usize| (x.wrapping_add_signed(dx), y.wrapping_add_signed(dy));
        if dx == 0 || dy == 0 {
            let (x, y) = step(x, y);
            return self.straight(x, y, dx, dy);
        }
        // A diagonal run: each step needs both cells beside it free (no corner cutting).
        let (mut x, mut y) = (x, y);
        loop {
            let (nx, ny) = step(x, y);
            if !(self.free(nx, y) && self.free(x, ny) && self.free(nx, ny)) {
                return None;
            }
            (x, y) = (nx, ny);
            if (x, y) == self.goal
                || self
                    .straight(nx.wrapping_add_signed(dx), ny, dx, 0)
                    .is_some()
                || self
                    .straight(nx, ny.wrapping_add_signed(dy), 0, dy)
                    .is_some()
            {
                return Some((x, y));
            }
        }
    }
}

impl SearchContext {
    /// Jump point search on a grid whose passable cells all cost `cost`, without corner
    /// cutting. Parents link jump points; `search_into` fills in the cells between them.
    pub(super) fn jump_points(
        &mut self,
        search: &Search,
        start: usize,
        cost: f64,
        heap: &mut OpenList,
        tracer: &mut impl Tracer,
    ) -> bool {
        let Some(target) = search.target else {
            return false;
        };
        let grid = search.grid;
        let open = self.begin(grid.costs().len());
        let closed = open + 1;
        let stride = grid.stride();
        let (rows, columns) = grid.bit_lines();
        let scans = Scans {
            stride,
            open: grid.open(),
            rows,
            columns,
            goal: (target.index % stride, target.index / stride),
        };
        let (gx, gy) = scans.goal;
        let octile = |dx: usize, dy: usize| Heuristic::Octile.distance(dx as u32, dy as u32);
        // The start's successors lie every way.
        let every_direction = STEPS.map(|s| (s.dx as isize, s.dy as isize));
        heap.clear();
        self.nodes[start] = Node {
            g: 0.0,
            parent: start as u32,
        };
        self.stamps[start] = open;
        heap.push(HeapEntry::new(start as u32, 0.0, 0.0));
        self.stats.pushed += 1;
        tracer.record(|| {
            let h =
                target.scale * octile((start % stride).abs_diff(gx), (start / stride).abs_diff(gy));
            TraceEvent::Push {
                direction: Direction::Forward,
                pos: grid.pos(start),
                parent: None,
                g: 0.0,
                h,
                f: h,
            }
        });
        while let Some(entry) = heap.pop() {
            let index = entry.index() as usize;
            if self.stamps[index] == closed {
                continue;
            }
            self.stamps[index] = closed;
            let node = self.nodes[index];
            self.stats.expanded += 1;
            if search.record {
                self.expansions.push(grid.pos(index));
            }
            tracer.record(|| TraceEvent::Expand {
                direction: Direction::Forward,
                pos: grid.pos(index),
                g: node.g,
            });
            if index == target.index {
                return true;
            }
            let (x, y) = (index % stride, index / stride);
            // Pruned neighbours: where an optimal path through this cell can go next. The
            // runs check that each step is open (and that a diagonal one cuts no corner).
            let mut directions = every_direction;
            let mut count = directions.len();
            if index != start {
                // The direction of arrival: parents link cells a straight or diagonal line apart.
                let parent = node.parent as usize;
                let sign = |to: usize, from: usize| (to > from) as isize - (to < from) as isize;
                let (dx, dy) = (sign(x, parent % stride), sign(y, parent / stride));
                count = 0;
                let mut add = |direction| {
                    directions[count] = direction;
                    count += 1;
                };
                if dx != 0 && dy != 0 {
                    add((dx, 0));
                    add((0, dy));
                    add((dx, dy));
                } else {
                    add((dx, dy));
                    // A forced side: the straight run stopped here for it. Unforced sides are
                    // reached as cheaply from the cell behind, through a diagonal step.
                    for (sx, sy) in [(dy, dx), (-dy, -dx)] {
                        let side = scans.free(x.wrapping_add_signed(sx), y.wrapping_add_signed(sy));
                        let behind = scans.free(
                            x.wrapping_add_signed(sx - dx),
                            y.wrapping_add_signed(sy - dy),
                        );
                        if side && !behind {
                            add((sx, sy));
                            add((dx + sx, dy + sy));
                        }
                    }
                }
            }
            for &direction in &directions[..count] {
                let found = scans.jump((x, y), direction);
                tracer.record(|| TraceEvent::Scan {
                    from: grid.pos(index),
                    step: (direction.0 as i32, direction.1 as i32),
                    found: found.map(|(jx, jy)| grid.pos(jy * stride + jx)),
                });
                let Some((jx, jy)) = found else {
                    continue;
                };
                let next = jy * stride + jx;
                let stamp = self.stamps[next];
                if stamp == closed {
                    continue;
                }
                let g = node.g + cost * octile(jx.abs_diff(x), jy.abs_diff(y));
                let on_frontier = stamp == open;
                if on_frontier && g >= self.nodes[next].g {
                    continue;
                }
                // Read only for a trace: an untraced search never loads it.
                let old_g = self.nodes[next].g;
                self.nodes[next] = Node {
                    g,
                    parent: index as u32,
                };
                self.stamps[next] = open;
                let h = target.scale * octile(jx.abs_diff(gx), jy.abs_diff(gy));
                heap.push(HeapEntry::new(next as u32, g + h, h));
                self.stats.pushed += 1;
                tracer.record(|| {
                    let (pos, parent) = (grid.pos(next), grid.pos(index));
                    trace_push(on_frontier, pos, parent, old_g, g, h, g + h)
                });
            }
        }
        false
    }
}
