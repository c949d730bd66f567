//! Customizable contraction hierarchies (Dibbelt, Strasser and Wagner, "Customizable
//! Contraction Hierarchies", 2016): one metric-independent structure per map shape and
//! board, customized per movement class and re-customized after terrain edits.
//!
//! **Order.** The cells are ranked by nested dissection: a rectangle is cut in two by its
//! middle column (or row, whichever is across its longer side), each half is ranked first,
//! recursively, and the cut line last. A full column or row separates its two sides on every
//! board (a step changes a coordinate by at most one), so the order fits square and hex
//! boards alike, whatever the terrain.
//!
//! **Contraction.** Eliminating the cells in rank order, each joins all its higher
//! neighbours to one another; what results is a chordal supergraph of the board's
//! adjacency, its *arcs* each joining a lower cell to a higher one. It depends on the shape
//! of the map and the board only: impassable cells and corner rules are a matter of the
//! metric, where they weigh infinity. The lowest higher neighbour of a cell is its parent
//! in the *elimination tree*; all higher neighbours of a cell are its ancestors there.
//!
//! **Customization.** An arc's two weights (the walk from its lower cell to its higher one,
//! and back) start as the step's cost where the two cells are adjacent and the step is
//! legal (`cost(entered) × length`, infinite into an impassable cell, or a diagonal step
//! cutting an impassable corner where the board forbids it), infinity otherwise. Then, cell
//! by cell upwards, every *lower triangle* `{u, v, w}` with `u` below `v` and `w` offers the
//! way `v → u → w` to the arc `v–w`; afterwards an arc weighs the cheapest walk between its
//! ends through lower cells only. A terrain edit changes the weights of the steps touching
//! the edited cells; those arcs are weighed again, and each arc above them takes a cheaper
//! way a changed arc offers, or is computed again from all its lower triangles when the
//! way it had got dearer ([`CchMetric::recustomize`]).
//!
//! **Query.** The walk up the elimination tree from the start relaxes the arcs out of each
//! ancestor with the upward weights, the walk up from the goal with the downward weights;
//! the cheapest sum over the ancestors both share is the optimum (every cheapest path has a
//! highest cell, reached upwards from both ends). Arcs are unpacked into steps by finding
//! the lower triangle whose sum made their weight.

use std::cmp::Reverse;
use std::collections::{BinaryHeap, HashMap};

use crate::board::Board;
use crate::grid::Grid;
use crate::moves::Diagonal;
use crate::pos::Pos;
use crate::search::{CellPath, NoPath, check_endpoints};

/// No cell: the end of the elimination tree, or a start or goal not yet reached.
const NONE: u32 = u32::MAX;

/// Why a hierarchy cannot serve a grid.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum CchError {
    /// The grid's size is not the one the hierarchy was built for.
    #[error("the hierarchy was built for a {built_width}x{built_height} map, not {width}x{height}")]
    SizeMismatch {
        /// The width the hierarchy was built for.
        built_width: u32,
        /// The height the hierarchy was built for.
        built_height: u32,
        /// The grid's width.
        width: u32,
        /// The grid's height.
        height: u32,
    },
    /// The contraction of a map this large has more arcs than 32-bit arc numbers can name.
    #[error(
        "a {width}x{height} map contracts to {arcs} arcs or more, more than a hierarchy can number"
    )]
    TooLarge {
        /// The map's width.
        width: u32,
        /// The map's height.
        height: u32,
        /// The arcs its contraction has (at least).
        arcs: usize,
    },
    /// An edited cell outside the map.
    #[error("edited cell {pos} is outside the {width}x{height} map")]
    EditOutside {
        /// The cell.
        pos: Pos,
        /// The map's width.
        width: u32,
        /// The map's height.
        height: u32,
    },
    /// The metric's weights do not match the grid's costs: a cell changed since the last
    /// customization and was not re-customized ([`CchMetric::recustomize`]).
    #[error("the hierarchy's weights are out of date for this grid: re-customize after edits")]
    Stale,
    /// The metric was customized on another hierarchy (its arcs are not this one's).
    #[error("the weights were customized for another hierarchy ({metric} arcs, not {arcs})")]
    OtherHierarchy {
        /// The arcs the metric has weights for.
        metric: usize,
        /// The arcs of the hierarchy it was given with.
        arcs: usize,
    },
    /// The start and goal are not a query this grid can answer.
    #[error(transparent)]
    NoPath(#[from] NoPath),
}

/// The metric-independent part of a customizable contraction hierarchy: the order of the
/// cells of a `width` × `height` map and the arcs of its contraction on one [`Board`].
/// Build it once per map shape; give each movement class its weights with
/// [`Self::customize`], and query them with a [`CchQuery`].
///
/// **What it costs.** A grid's separators are whole lines of cells, so the contraction has
/// `O(cells × log cells)` arcs: on square-8 about 39 a cell at 256×256, 54 at 1024×1024
/// and 62 at 2048×2048 ([`Self::arcs`]). The structure takes 12 bytes an arc, each class's
/// weights 16, and a customization enumerates `O(cells^1.5)` triangles (under a second at
/// 256×256, near a minute at 1024×1024 on a slow 2-core machine). A query walks up the
/// elimination tree from both ends ([`Self::height_of_tree`] cells at most each), so its
/// worst case stays near its median. [`docs/design/long-orders.md`] in the repository has
/// the measurements.
///
/// ```
/// use tilewalk_path::{Board, Cch, CchQuery, Grid, Pos, SearchOptions, find_path};
///
/// // Grass with a wall of rock down the middle, open at the bottom.
/// let mut grid = Grid::from_fn(32, 32, |p| (p.x != 16 || p.y == 31).then_some(1.0)).unwrap();
/// let cch = Cch::new(32, 32, Board::default()).unwrap();
/// let mut metric = cch.customize(&grid).unwrap();
/// let mut query = CchQuery::new();
/// let (start, goal) = (Pos::new(14, 0), Pos::new(18, 0));
/// let path = query.path(&cch, &metric, &grid, start, goal).unwrap();
/// let astar = find_path(&grid, start, goal, &SearchOptions::default()).unwrap();
/// assert!((path.cost - astar.path.cost).abs() < 1e-9);
/// // Open a gap at the top and re-customize only what the edit touched.
/// grid.set_cost(Pos::new(16, 0), Some(1.0)).unwrap();
/// metric.recustomize(&cch, &grid, &[Pos::new(16, 0)]).unwrap();
/// assert_eq!(query.path(&cch, &metric, &grid, start, goal).unwrap().cost, 4.0);
/// ```
///
/// [`docs/design/long-orders.md`]: https://github.com/tilewalk/tilewalk/blob/main/docs/design/long-orders.md
#[derive(Clone, Debug)]
pub struct Cch {
    board: Board,
    width: u32,
    height: u32,
    /// Per cell (`y × width + x`), its rank.
    rank: Vec<u32>,
    /// Per rank, its cell.
    cell: Vec<u32>,
    /// Per rank `v`, where its arcs to higher cells start in `head` (one more entry at the end).
    up_first: Vec<usize>,
    /// The higher end of each arc, sorted by rank within a cell's arcs.
    head: Vec<u32>,
    /// Per rank `w`, where its arcs from lower cells start in `down_tail`/`down_arc`.
    down_first: Vec<usize>,
    /// The lower end of each arc into a cell, sorted by rank.
    down_tail: Vec<u32>,
    /// The arc's index in `head`.
    down_arc: Vec<u32>,
}

/// The weights of one movement class on a [`Cch`]: per arc, the cheapest walk from its
/// lower cell to its higher one and back, through lower cells only. 16 bytes an arc.
#[derive(Clone, Debug)]
pub struct CchMetric {
    up: Vec<f64>,
    down: Vec<f64>,
}

/// Reusable memory for [`Cch`] queries: the tentative costs of both walks up the
/// elimination tree (16 bytes a cell, allocated at the first query on a map).
#[derive(Clone, Debug, Default)]
pub struct CchQuery {
    forward: Vec<f64>,
    backward: Vec<f64>,
    forward_arc: Vec<u32>,
    backward_arc: Vec<u32>,
    from_start: Vec<u32>,
    from_goal: Vec<u32>,
    stack: Vec<(u32, bool)>,
    /// The arcs the last query scanned ([`CchQuery::scanned`]).
    scanned: usize,
}

impl Cch {
    /// Orders the cells of a `width` × `height` map by nested dissection and contracts them
    /// for the moves of `board` (a [`Board`] or a [`Diagonal`] rule). A map whose
    /// contraction has more than `u32::MAX` arcs is refused ([`CchError::TooLarge`]).
    pub fn new(width: u32, height: u32, board: impl Into<Board>) -> Result<Self, CchError> {
        let board = board.into();
        // Every board joins each cell to the cells beside it in its row and column.
        let (w, h) = (u64::from(width), u64::from(height));
        let at_least = w * h.saturating_sub(1) + h * w.saturating_sub(1);
        if at_least > u64::from(u32::MAX) {
            return Err(CchError::TooLarge {
                width,
                height,
                arcs: at_least as usize,
            });
        }
        let cells = width as usize * height as usize;
        let mut cell = Vec::with_capacity(cells);
        dissect(width, 0, 0, width, height, &mut cell);
        let mut rank = vec![0; cells];
        for (r, &c) in cell.iter().enumerate() {
            rank[c as usize] = r as u32;
        }
        // Each cell's higher neighbours; eliminating a cell adds the rest of them to its
        // lowest one's (its parent's), which is then eliminated later.
        let mut higher: Vec<Vec<u32>> = vec![Vec::new(); cells];
        for (r, &c) in cell.iter().enumerate() {
            let pos = Pos::new(c % width, c / width);
            for n in board.neighbours(pos, width, height) {
                let other = rank[(n.y * width + n.x) as usize];
                if other > r as u32 {
                    higher[r].push(other);
                }
            }
        }
        let mut up_first = Vec::with_capacity(cells + 1);
        let mut head = Vec::new();
        for r in 0..cells {
            let mut list = std::mem::take(&mut higher[r]);
            list.sort_unstable();
            list.dedup();
            up_first.push(head.len());
            head.extend_from_slice(&list);
            if let Some((&parent, rest)) = list.split_first() {
                higher[parent as usize].extend_from_slice(rest);
            }
        }
        up_first.push(head.len());
        drop(higher);
        if u32::try_from(head.len()).is_err() {
            return Err(CchError::TooLarge {
                width,
                height,
                arcs: head.len(),
            });
        }
        // The same arcs from their higher ends: counted, then filled in order of their lower
        // ends, so each cell's list comes out sorted.
        let mut down_first = vec![0usize; cells + 1];
        for &h in &head {
            down_first[h as usize + 1] += 1;
        }
        for r in 0..cells {
            down_first[r + 1] += down_first[r];
        }
        let mut fill = down_first.clone();
        let mut down_tail = vec![0; head.len()];
        let mut down_arc = vec![0; head.len()];
        for v in 0..cells {
            let first = up_first[v];
            for (a, &w) in head[first..up_first[v + 1]].iter().enumerate() {
                let w = w as usize;
                down_tail[fill[w]] = v as u32;
                down_arc[fill[w]] = (first + a) as u32;
                fill[w] += 1;
            }
        }
        Ok(Self {
            board,
            width,
            height,
            rank,
            cell,
            up_first,
            head,
            down_first,
            down_tail,
            down_arc,
        })
    }

    /// The board it was built for.
    pub fn board(&self) -> Board {
        self.board
    }

    /// How many arcs the contraction has (each weighs 16 bytes in a [`CchMetric`]).
    pub fn arcs(&self) -> usize {
        self.head.len()
    }

    /// The memory it holds, in bytes (the metrics not included).
    pub fn bytes(&self) -> usize {
        (self.rank.len() + self.cell.len() + self.head.len() * 3) * 4
            + (self.up_first.len() + self.down_first.len()) * size_of::<usize>()
    }

    /// How many cells the longest walk up the elimination tree visits: what a query walks
    /// at most from each end.
    pub fn height_of_tree(&self) -> usize {
        let mut depth = vec![0u32; self.cell.len()];
        let mut deepest = 0;
        for v in (0..self.cell.len()).rev() {
            let d = self.parent(v as u32).map_or(1, |p| depth[p as usize] + 1);
            depth[v] = d;
            deepest = deepest.max(d);
        }
        deepest as usize
    }

    /// The weights of `grid`'s costs (one movement class): the full customization.
    pub fn customize(&self, grid: &Grid) -> Result<CchMetric, CchError> {
        self.check(grid)?;
        let arcs = self.head.len();
        let mut metric = CchMetric {
            up: vec![f64::INFINITY; arcs],
            down: vec![f64::INFINITY; arcs],
        };
        for v in 0..self.cell.len() {
            for a in self.up_first[v]..self.up_first[v + 1] {
                (metric.up[a], metric.down[a]) = self.input(grid, v as u32, self.head[a]);
            }
        }
        let (up, down) = (&mut metric.up, &mut metric.down);
        for u in 0..self.cell.len() {
            let end = self.up_first[u + 1];
            for i in self.up_first[u]..end {
                let v = self.head[i] as usize;
                // The walks v → u and u → v.
                let (to_u, from_u) = (down[i], up[i]);
                if to_u == f64::INFINITY && from_u == f64::INFINITY {
                    continue;
                }
                // Every higher neighbour w of u above v is a higher neighbour of v too.
                let mut k = self.up_first[v];
                for j in i + 1..end {
                    let w = self.head[j];
                    while self.head[k] < w {
                        k += 1;
                    }
                    up[k] = up[k].min(to_u + up[j]);
                    down[k] = down[k].min(down[j] + from_u);
                }
            }
        }
        Ok(metric)
    }

    /// Whether `metric` has weights for this hierarchy's arcs.
    fn check_metric(&self, metric: &CchMetric) -> Result<(), CchError> {
        if metric.up.len() == self.head.len() {
            Ok(())
        } else {
            Err(CchError::OtherHierarchy {
                metric: metric.up.len(),
                arcs: self.head.len(),
            })
        }
    }

    fn check(&self, grid: &Grid) -> Result<(), CchError> {
        if (grid.width(), grid.height()) == (self.width, self.height) {
            Ok(())
        } else {
            Err(CchError::SizeMismatch {
                built_width: self.width,
                built_height: self.height,
                width: grid.width(),
                height: grid.height(),
            })
        }
    }

    fn parent(&self, v: u32) -> Option<u32> {
        let first = self.up_first[v as usize];
        (first < self.up_first[v as usize + 1]).then(|| self.head[first])
    }

    fn pos(&self, rank: u32) -> Pos {
        let c = self.cell[rank as usize];
        Pos::new(c % self.width, c / self.width)
    }

    fn rank_of(&self, pos: Pos) -> u32 {
        self.rank[(pos.y * self.width + pos.x) as usize]
    }

    /// The arc joining ranks `a` and `b`, if the contraction has one.
    fn arc(&self, a: u32, b: u32) -> Option<usize> {
        let (low, high) = if a < b { (a, b) } else { (b, a) };
        let range = self.up_first[low as usize]..self.up_first[low as usize + 1];
        let arcs = &self.head[range.clone()];
        arcs.binary_search(&high).ok().map(|i| range.start + i)
    }

    /// The input weights of the arc from rank `v` up to rank `w`: the steps `v → w` and
    /// `w → v` where the cells are adjacent, infinity otherwise.
    fn input(&self, grid: &Grid, v: u32, w: u32) -> (f64, f64) {
        let (a, b) = (self.pos(v), self.pos(w));
        if !self.adjacent(a, b) {
            return (f64::INFINITY, f64::INFINITY);
        }
        (
            grid.step_cost(self.board, a, b),
            grid.step_cost(self.board, b, a),
        )
    }

    fn adjacent(&self, a: Pos, b: Pos) -> bool {
        a.x.abs_diff(b.x) <= 1
            && a.y.abs_diff(b.y) <= 1
            && self
                .board
                .neighbours(a, self.width, self.height)
                .any(|n| n == b)
    }

    /// The arc's two weights from its input and its lower triangles, as the full
    /// customization computes them (the same sums, so the same bits).
    fn recompute(&self, metric: &CchMetric, grid: &Grid, a: usize, v: u32) -> (f64, f64) {
        let w = self.head[a];
        let (mut up, mut down) = self.input(grid, v, w);
        self.lower_triangles(v, w, |uv, uw| {
            up = up.min(metric.down[uv] + metric.up[uw]);
            down = down.min(metric.down[uw] + metric.up[uv]);
            false
        });
        (up, down)
    }

    /// Calls `visit(arc u–v, arc u–w)` for each cell `u` below both `v` and `w` joined to
    /// both, lowest first, until it returns true.
    fn lower_triangles(&self, v: u32, w: u32, mut visit: impl FnMut(usize, usize) -> bool) {
        let (v, w) = (v as usize, w as usize);
        let (mut i, end_i) = (self.down_first[v], self.down_first[v + 1]);
        let (mut j, end_j) = (self.down_first[w], self.down_first[w + 1]);
        while i < end_i && j < end_j {
            let (a, b) = (self.down_tail[i], self.down_tail[j]);
            if a < b {
                i += 1;
            } else if b < a {
                j += 1;
            } else {
                if visit(self.down_arc[i] as usize, self.down_arc[j] as usize) {
                    return;
                }
                i += 1;
                j += 1;
            }
        }
    }
}

/// Orders the cells of the rectangle by nested dissection, appending them to `out` lowest
/// rank first.
fn dissect(stride: u32, x0: u32, y0: u32, width: u32, height: u32, out: &mut Vec<u32>) {
    if width == 0 || height == 0 {
        return;
    }
    if width * height <= 4 || width.max(height) < 3 {
        for y in y0..y0 + height {
            out.extend((x0..x0 + width).map(|x| y * stride + x));
        }
        return;
    }
    if width >= height {
        let cut = width / 2;
        dissect(stride, x0, y0, cut, height, out);
        dissect(stride, x0 + cut + 1, y0, width - cut - 1, height, out);
        out.extend((y0..y0 + height).map(|y| y * stride + x0 + cut));
    } else {
        let cut = height / 2;
        dissect(stride, x0, y0, width, cut, out);
        dissect(stride, x0, y0 + cut + 1, width, height - cut - 1, out);
        out.extend((x0..x0 + width).map(|x| (y0 + cut) * stride + x));
    }
}

impl CchMetric {
    /// The memory it holds, in bytes.
    pub fn bytes(&self) -> usize {
        (self.up.len() + self.down.len()) * size_of::<f64>()
    }

    /// Brings the weights up to date after the costs of `edited` cells changed in `grid`
    /// (any other cell must be as it was at the last customization), and returns how many
    /// arcs changed. The steps into, out of and (for the corner rules of square boards) past
    /// each edited cell are weighed again; then, upwards from the lowest cell, each arc that
    /// changed offers its new way to the arcs across its triangles. An arc across takes a
    /// cheaper way at once; it is computed again from all its lower triangles only when the
    /// way it had was through a triangle that got dearer.
    pub fn recustomize(
        &mut self,
        cch: &Cch,
        grid: &Grid,
        edited: &[Pos],
    ) -> Result<usize, CchError> {
        cch.check(grid)?;
        cch.check_metric(self)?;
        let (width, height) = (cch.width, cch.height);
        let mut round = Round::default();
        for &pos in edited {
            if !grid.contains(pos) {
                return Err(CchError::EditOutside { pos, width, height });
            }
            let around: Vec<Pos> = cch.board.neighbours(pos, width, height).collect();
            for &n in &around {
                if let Some(a) = cch.arc(cch.rank_of(pos), cch.rank_of(n)) {
                    round.touch(self, cch, a, true);
                }
            }
            // Diagonal steps whose corner this cell is: between its orthogonal neighbours.
            if matches!(cch.board, Board::Square(rule) if rule != Diagonal::Never) {
                let orthogonal = |n: &&Pos| n.x == pos.x || n.y == pos.y;
                let sides: Vec<Pos> = around.iter().filter(orthogonal).copied().collect();
                for (i, &a) in sides.iter().enumerate() {
                    for &b in &sides[i + 1..] {
                        if a.x != b.x
                            && a.y != b.y
                            && let Some(arc) = cch.arc(cch.rank_of(a), cch.rank_of(b))
                        {
                            round.touch(self, cch, arc, true);
                        }
                    }
                }
            }
        }
        let mut changed = 0;
        let mut moved = Vec::new();
        while let Some(Reverse(low)) = round.lows.pop() {
            moved.clear();
            for a in round.by_low.remove(&low).unwrap_or_default() {
                let before = round.touched[&a];
                if before.recompute {
                    (self.up[a], self.down[a]) = cch.recompute(self, grid, a, low);
                }
                if (self.up[a], self.down[a]) != before.weights {
                    moved.push(a);
                }
            }
            changed += moved.len();
            if moved.is_empty() {
                continue;
            }
            let first = cch.up_first[low as usize];
            let arcs = first..cch.up_first[low as usize + 1];
            // The weights of `low`'s arcs before the round.
            let old: Vec<(f64, f64)> = arcs
                .clone()
                .map(|b| {
                    round
                        .touched
                        .get(&b)
                        .map_or((self.up[b], self.down[b]), |t| t.weights)
                })
                .collect();
            for &a in &moved {
                for b in arcs.clone().filter(|&b| b != a) {
                    let (p, q) = (cch.head[a], cch.head[b]);
                    let Some(top) = cch.arc(p, q) else { continue };
                    // The arcs from `low` to the lower and the higher end of `top`.
                    let (to_lower, to_higher) = if p < q { (a, b) } else { (b, a) };
                    let (lower_old, higher_old) = (old[to_lower - first], old[to_higher - first]);
                    let was = (lower_old.1 + higher_old.0, higher_old.1 + lower_old.0);
                    let now = (
                        self.down[to_lower] + self.up[to_higher],
                        self.down[to_higher] + self.up[to_lower],
                    );
                    let current = (self.up[top], self.down[top]);
                    let before = round.touched.get(&top).map_or(current, |t| t.weights);
                    let lost = (now.0 > was.0 && was.0 == before.0)
                        || (now.1 > was.1 && was.1 == before.1);
                    if lost || now.0 < current.0 || now.1 < current.1 {
                        round.touch(self, cch, top, lost);
                        self.up[top] = current.0.min(now.0);
                        self.down[top] = current.1.min(now.1);
                    }
                }
            }
        }
        Ok(changed)
    }
}

/// What one re-customization has touched.
#[derive(Default)]
struct Round {
    /// Per arc touched: its weights before, and whether it must be computed again from its
    /// input and all its lower triangles.
    touched: HashMap<usize, Touched>,
    /// The arcs touched, by their lower ends.
    by_low: HashMap<u32, Vec<usize>>,
    /// The lower ends of arcs touched and not yet settled, lowest first.
    lows: BinaryHeap<Reverse<u32>>,
}

#[derive(Clone, Copy)]
struct Touched {
    weights: (f64, f64),
    recompute: bool,
}

impl Round {
    /// Notes arc `a` as touched (and to compute again if `recompute`).
    fn touch(&mut self, metric: &CchMetric, cch: &Cch, a: usize, recompute: bool) {
        let entry = self.touched.entry(a).or_insert_with(|| {
            let low = cch.up_first.partition_point(|&f| f <= a) as u32 - 1;
            let list = self.by_low.entry(low).or_default();
            if list.is_empty() {
                self.lows.push(Reverse(low));
            }
            list.push(a);
            Touched {
                weights: (metric.up[a], metric.down[a]),
                recompute: false,
            }
        });
        entry.recompute |= recompute;
    }
}

impl CchQuery {
    /// Fresh memory; it grows to the map at the first query.
    pub fn new() -> Self {
        Self::default()
    }

    /// A cheapest path from `start` to `goal` under `metric` (customized from `grid`, which
    /// unpacking reads): the same cost as any exact search on `grid` with `cch`'s board.
    pub fn path(
        &mut self,
        cch: &Cch,
        metric: &CchMetric,
        grid: &Grid,
        start: Pos,
        goal: Pos,
    ) -> Result<CellPath, CchError> {
        self.scanned = 0;
        cch.check(grid)?;
        cch.check_metric(metric)?;
        check_endpoints(grid, start, goal)?;
        let cells = cch.cell.len();
        if self.forward.len() != cells {
            self.forward = vec![f64::INFINITY; cells];
            self.backward = vec![f64::INFINITY; cells];
            self.forward_arc = vec![NONE; cells];
            self.backward_arc = vec![NONE; cells];
        }
        let (s, t) = (cch.rank_of(start), cch.rank_of(goal));
        self.from_start.clear();
        self.from_goal.clear();
        let mut v = Some(s);
        while let Some(r) = v {
            self.from_start.push(r);
            v = cch.parent(r);
        }
        let mut v = Some(t);
        while let Some(r) = v {
            self.from_goal.push(r);
            v = cch.parent(r);
        }
        self.forward[s as usize] = 0.0;
        self.backward[t as usize] = 0.0;
        // Both walks in rank order, so that a shared ancestor is met with both of its costs
        // final, and a cell no cheaper than the best path found is not relaxed from.
        let (mut i, mut j) = (0, 0);
        let mut best = (f64::INFINITY, NONE);
        while i < self.from_start.len() || j < self.from_goal.len() {
            let a = self.from_start.get(i).copied().unwrap_or(NONE);
            let b = self.from_goal.get(j).copied().unwrap_or(NONE);
            let v = a.min(b);
            let arcs = cch.up_first[v as usize]..cch.up_first[v as usize + 1];
            if a == v {
                i += 1;
                let here = self.forward[v as usize];
                if here < best.0 {
                    self.scanned += arcs.len();
                    for k in arcs.clone() {
                        let w = cch.head[k] as usize;
                        let through = here + metric.up[k];
                        if through < self.forward[w] {
                            self.forward[w] = through;
                            self.forward_arc[w] = k as u32;
                        }
                    }
                }
            }
            if b == v {
                j += 1;
                let here = self.backward[v as usize];
                if here < best.0 {
                    self.scanned += arcs.len();
                    for k in arcs {
                        let w = cch.head[k] as usize;
                        let through = here + metric.down[k];
                        if through < self.backward[w] {
                            self.backward[w] = through;
                            self.backward_arc[w] = k as u32;
                        }
                    }
                }
            }
            if a == v && b == v {
                let total = self.forward[v as usize] + self.backward[v as usize];
                if total < best.0 {
                    best = (total, v);
                }
            }
        }
        let found = if best.1 == NONE {
            Err(CchError::NoPath(NoPath::DifferentRegions))
        } else {
            self.unpack(cch, metric, grid, s, best.1)
                .ok_or(CchError::Stale)
        };
        for &v in &self.from_start {
            self.forward[v as usize] = f64::INFINITY;
            self.forward_arc[v as usize] = NONE;
        }
        for &v in &self.from_goal {
            self.backward[v as usize] = f64::INFINITY;
            self.backward_arc[v as usize] = NONE;
        }
        found
    }

    /// The arcs the last query ([`Self::path`]) scanned: those it relaxed walking up the
    /// elimination tree from both ends, and those it looked at unpacking its path (each arc
    /// of the path, and each lower triangle tried for a shortcut). Deterministic: the same
    /// query on the same weights scans the same arcs, so a caller can count it as work.
    pub fn scanned(&self) -> usize {
        self.scanned
    }

    /// The cells of the path through `meet`, with its cost summed step by step in walking
    /// order (as a search sums it); `None` when an arc's weight is neither its step's nor a
    /// lower triangle's (the metric is stale).
    fn unpack(
        &mut self,
        cch: &Cch,
        metric: &CchMetric,
        grid: &Grid,
        s: u32,
        meet: u32,
    ) -> Option<CellPath> {
        // The arcs from the start up to `meet`, then down to the goal, in walking order:
        // `(arc, true)` walked upwards, `(arc, false)` downwards.
        let mut up_arcs = Vec::new();
        let mut v = meet;
        while v != s {
            let a = self.forward_arc[v as usize];
            up_arcs.push(a);
            v = cch.up_first.partition_point(|&f| f <= a as usize) as u32 - 1;
        }
        self.stack.clear();
        let mut v = meet;
        while self.backward_arc[v as usize] != NONE {
            let a = self.backward_arc[v as usize];
            self.stack.push((a, false));
            v = cch.up_first.partition_point(|&f| f <= a as usize) as u32 - 1;
        }
        self.stack.reverse();
        self.stack.extend(up_arcs.iter().map(|&a| (a, true)));
        // Now the stack pops the first arc of the walk first.
        let mut cells = vec![cch.pos(s)];
        let mut cost = 0.0;
        while let Some((a, upwards)) = self.stack.pop() {
            self.scanned += 1;
            let a = a as usize;
            let low = cch.up_first.partition_point(|&f| f <= a) as u32 - 1;
            let high = cch.head[a];
            let (from, to, weight) = if upwards {
                (low, high, metric.up[a])
            } else {
                (high, low, metric.down[a])
            };
            let step = grid.step_cost(cch.board, cch.pos(from), cch.pos(to));
            if cch.adjacent(cch.pos(from), cch.pos(to)) && step == weight {
                cells.push(cch.pos(to));
                cost += step;
                continue;
            }
            // The lower triangle whose way made the weight: from → u → to.
            let mut middle = None;
            let scanned = &mut self.scanned;
            cch.lower_triangles(low, high, |ul, uh| {
                *scanned += 1;
                let (first, second, sum) = if upwards {
                    ((ul, false), (uh, true), metric.down[ul] + metric.up[uh])
                } else {
                    ((uh, false), (ul, true), metric.down[uh] + metric.up[ul])
                };
                if sum == weight {
                    middle = Some((first, second));
                }
                middle.is_some()
            });
            let ((first, first_up), (second, second_up)) = middle?;
            self.stack.push((second as u32, second_up));
            self.stack.push((first as u32, first_up));
        }
        Some(CellPath { cells, cost })
    }
}
