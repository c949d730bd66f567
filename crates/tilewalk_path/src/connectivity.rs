//! Connected-component labels, kept correct as cells switch between passable and impassable.
//!
//! The labels read only passability, one byte per cell of the grid's padded storage (rows
//! `stride` long, framed by an impassable border), so this module knows nothing of costs.
//! They are stored one per cell of the grid itself, not of the padded storage: on a map one
//! cell high, the border is two thirds of the storage.
//!
//! Square boards need two labelings. With `Never`, `NoObstacles` and `AtMostOneObstacle`
//! every allowed diagonal step has a passable orthogonal cell beside it, so those
//! neighbourhoods connect exactly the 4-connected cells; only `Always` (squeezing between
//! walls) connects more, the 8-connected cells. Each hex layout connects different cells
//! (which six touch a cell depends on the layout), so each needs its own labeling too.
//!
//! A program uses one kind of move, if any, so a labeling is built on the first question
//! about its kind (O(cells), 4 bytes a cell) and from then on repaired by every edit. It
//! sits in a [`OnceLock`], so that a shared `&Grid` can build it (and searches on one grid
//! from several threads stay possible).

use std::sync::OnceLock;

use crate::board::{Board, HexLayout};
use crate::moves::Diagonal;

#[derive(Clone, Debug, Default)]
pub(crate) struct Components {
    /// By kind of move: four-way squares, eight-way squares, then the [`HexLayout`]s in the
    /// order of [`HexLayout::ALL`].
    labels: [OnceLock<Labels>; 6],
}

/// One labeling: a label per cell of the grid (row by row, without the border), 0 meaning
/// "impassable".
#[derive(Clone, Debug, Default)]
pub(crate) struct Labels {
    of: Vec<u32>,
    /// The last label handed out.
    last: u32,
    /// Which cells touch: `Square(Never)`, `Square(Always)` or a hex layout.
    adjacency: Board,
}

impl Components {
    /// The label of the passable cell at padded index `index` under `board`'s moves (`open`
    /// and `stride` are the grid's, to build the labeling on first use).
    pub(crate) fn label_of(&self, open: &[bool], stride: usize, index: usize, board: Board) -> u32 {
        self.labels(open, stride, board).of[cell(stride, index)]
    }

    /// The labeling for `board`'s moves, built now if it was not yet.
    pub(crate) fn labels(&self, open: &[bool], stride: usize, board: Board) -> &Labels {
        let (slot, adjacency) = match board {
            Board::Square(Diagonal::Always) => (1, board),
            Board::Square(_) => (0, Board::Square(Diagonal::Never)),
            Board::Hex(layout) => (2 + layout_slot(layout), board),
        };
        self.labels[slot].get_or_init(|| Labels::new(open, stride, adjacency))
    }

    /// Repairs every labeling built so far after the cell at `index` switched passability.
    pub(crate) fn update(&mut self, open: &[bool], stride: usize, index: usize) {
        for labels in self.labels.iter_mut().filter_map(OnceLock::get_mut) {
            labels.update(open, stride, index);
        }
    }
}

fn layout_slot(layout: HexLayout) -> usize {
    match layout {
        HexLayout::OddR => 0,
        HexLayout::EvenR => 1,
        HexLayout::OddQ => 2,
        HexLayout::EvenQ => 3,
    }
}

/// The grid cell (row by row, without the border) of the padded index `index` inside the
/// border.
fn cell(stride: usize, index: usize) -> usize {
    let width = stride - 2;
    (index / stride - 1) * width + index % stride - 1
}

impl Labels {
    fn new(open: &[bool], stride: usize, adjacency: Board) -> Self {
        let width = stride - 2;
        let height = open.len() / stride - 2;
        let mut labels = Self {
            of: vec![0; width * height],
            last: 0,
            adjacency,
        };
        for y in 1..=height {
            for x in 1..=width {
                let index = y * stride + x;
                if open[index] && labels.of[(y - 1) * width + x - 1] == 0 {
                    let label = labels.fresh();
                    labels.fill(open, stride, index, label);
                }
            }
        }
        labels
    }

    fn fresh(&mut self) -> u32 {
        self.last += 1;
        self.last
    }

    fn update(&mut self, open: &[bool], stride: usize, index: usize) {
        let around = neighbours(open, stride, index, self.adjacency);
        if open[index] {
            // Join the neighbouring regions: reuse the label when there is only one.
            let mut distinct = around.iter().flatten().map(|&n| self.of[cell(stride, n)]);
            if let Some(first) = distinct.next()
                && distinct.all(|l| l == first)
            {
                self.of[cell(stride, index)] = first;
            } else {
                let label = self.fresh();
                self.fill(open, stride, index, label);
            }
        } else {
            // The old region may have split: give each piece touching the cell its own label.
            let old = std::mem::replace(&mut self.of[cell(stride, index)], 0);
            if around.iter().flatten().count() > 1 {
                for &n in around.iter().flatten() {
                    if self.of[cell(stride, n)] == old {
                        let label = self.fresh();
                        self.fill(open, stride, n, label);
                    }
                }
            }
        }
    }

    /// Flood-fills `label` over the passable cells connected to `seed` that do not carry it
    /// yet.
    fn fill(&mut self, open: &[bool], stride: usize, seed: usize, label: u32) {
        if let Board::Square(diagonal) = self.adjacency {
            return self.fill_square(open, stride, seed, label, diagonal == Diagonal::Always);
        }
        let mut stack = vec![seed];
        self.of[cell(stride, seed)] = label;
        while let Some(index) = stack.pop() {
            for n in neighbours(open, stride, index, self.adjacency)
                .into_iter()
                .flatten()
            {
                if self.of[cell(stride, n)] != label {
                    self.of[cell(stride, n)] = label;
                    stack.push(n);
                }
            }
        }
    }

    /// [`Self::fill`] on a square board, where the steps are the same from every cell: each
    /// cell on the stack carries its index in both layouts, so no step divides.
    fn fill_square(&mut self, open: &[bool], stride: usize, seed: usize, label: u32, eight: bool) {
        const STEPS: [(isize, isize); 8] = [
            (1, 0),
            (-1, 0),
            (0, 1),
            (0, -1),
            (1, 1),
            (-1, 1),
            (1, -1),
            (-1, -1),
        ];
        let steps = &STEPS[..if eight { 8 } else { 4 }];
        let (padded, width) = (stride as isize, stride as isize - 2);
        let start = cell(stride, seed);
        self.of[start] = label;
        let mut stack = vec![(seed as u32, start as u32)];
        while let Some((index, at)) = stack.pop() {
            for &(dx, dy) in steps {
                let n = (index as usize).wrapping_add_signed(dy * padded + dx);
                if open[n] {
                    // A passable cell is inside the border, so its grid cell is too.
                    let c = (at as usize).wrapping_add_signed(dy * width + dx);
                    if self.of[c] != label {
                        self.of[c] = label;
                        stack.push((n as u32, c as u32));
                    }
                }
            }
        }
    }
}

/// The passable cells adjacent to the cell at padded index `index` (inside the border).
fn neighbours(open: &[bool], stride: usize, index: usize, adjacency: Board) -> [Option<usize>; 8] {
    let (steps, count) =
        adjacency.steps_at(|| ((index % stride) as u32 - 1, (index / stride) as u32 - 1));
    let mut out = [None; 8];
    for (slot, (dx, dy)) in out.iter_mut().zip(&steps[..count]) {
        let n = index.wrapping_add_signed(*dy as isize * stride as isize + *dx as isize);
        if open[n] {
            *slot = Some(n);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use crate::{Diagonal, Grid, HexLayout, Pos};

    fn wall_column(grid: &mut Grid, x: u32, passable: bool) {
        for y in 0..grid.height() {
            grid.set_cost(Pos::new(x, y), passable.then_some(1.0))
                .unwrap();
        }
    }

    #[test]
    fn a_wall_splits_and_a_gap_rejoins() {
        let mut grid = Grid::new(5, 3).unwrap();
        let (a, b) = (Pos::new(0, 1), Pos::new(4, 1));
        assert!(grid.connected(a, b, Diagonal::NoObstacles));
        wall_column(&mut grid, 2, false);
        for diagonal in Diagonal::ALL {
            assert!(!grid.connected(a, b, diagonal), "{diagonal:?}");
        }
        grid.set_cost(Pos::new(2, 2), Some(4.0)).unwrap();
        for diagonal in Diagonal::ALL {
            assert!(grid.connected(a, b, diagonal), "{diagonal:?}");
        }
    }

    #[test]
    fn only_always_squeezes_between_diagonal_walls() {
        // .#
        // #.
        let grid = Grid::from_fn(2, 2, |p| (p.x == p.y).then_some(1.0)).unwrap();
        let (a, b) = (Pos::new(0, 0), Pos::new(1, 1));
        assert!(grid.connected(a, b, Diagonal::Always));
        for diagonal in [
            Diagonal::Never,
            Diagonal::NoObstacles,
            Diagonal::AtMostOneObstacle,
        ] {
            assert!(!grid.connected(a, b, diagonal), "{diagonal:?}");
        }
    }

    #[test]
    fn hex_layouts_connect_different_cells_and_follow_edits() {
        // .#
        // #.
        let mut grid = Grid::from_fn(2, 2, |p| (p.x == p.y).then_some(1.0)).unwrap();
        let (a, b) = (Pos::new(0, 0), Pos::new(1, 1));
        // Where row 0 (column 0) is drawn shifted, (1, 1) lies just below (beside) (0, 0).
        let touching = [
            (HexLayout::OddR, false),
            (HexLayout::EvenR, true),
            (HexLayout::OddQ, false),
            (HexLayout::EvenQ, true),
        ];
        for (layout, connected) in touching {
            assert_eq!(grid.connected(a, b, layout), connected, "{layout:?}");
        }
        // The labelings built above are repaired by edits: a bridge joins, a wall splits.
        grid.set_cost(Pos::new(1, 0), Some(2.0)).unwrap();
        for layout in HexLayout::ALL {
            assert!(grid.connected(a, b, layout), "{layout:?}");
        }
        grid.set_cost(Pos::new(1, 0), None).unwrap();
        for (layout, connected) in touching {
            assert_eq!(grid.connected(a, b, layout), connected, "{layout:?}");
        }
    }

    #[test]
    fn incremental_labels_match_a_fresh_labeling() {
        let mut grid = Grid::new(7, 6).unwrap();
        // A deterministic scramble of edits.
        let mut state = 12345u32;
        for _ in 0..400 {
            state = state.wrapping_mul(1_103_515_245).wrapping_add(12345);
            let pos = Pos::new((state >> 8) % 7, (state >> 16) % 6);
            let passable = !(state >> 4).is_multiple_of(3);
            grid.set_cost(pos, passable.then_some(1.0)).unwrap();
            let fresh = Grid::from_fn(7, 6, |p| grid.cost(p)).unwrap();
            for diagonal in [Diagonal::NoObstacles, Diagonal::Always] {
                for a in (0..42).map(|i| Pos::new(i % 7, i / 7)) {
                    for b in (0..42).map(|i| Pos::new(i % 7, i / 7)) {
                        assert_eq!(
                            grid.connected(a, b, diagonal),
                            fresh.connected(a, b, diagonal)
                        );
                    }
                }
            }
        }
    }
}
