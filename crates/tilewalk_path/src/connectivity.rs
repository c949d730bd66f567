//! Connected-component labels, kept correct as cells switch between passable and impassable.
//!
//! The labels read only passability, one byte per cell of the grid's padded storage (rows
//! `stride` long, framed by an impassable border), so this module knows nothing of costs.
//!
//! Square boards need two labelings. With `Never`, `NoObstacles` and `AtMostOneObstacle`
//! every allowed diagonal step has a passable orthogonal cell beside it, so those
//! neighbourhoods connect exactly the 4-connected cells; only `Always` (squeezing between
//! walls) connects more, the 8-connected cells. Both are built with the grid.
//!
//! Each hex layout connects different cells (which six touch a cell depends on the layout),
//! so each needs its own labeling. A program uses one layout, if any, so a hex labeling is
//! built on the first question about its layout and from then on repaired by every edit
//! like the square ones. It sits in a [`OnceLock`], so that a shared `&Grid` can build it
//! (and searches on one grid from several threads stay possible).

use std::sync::OnceLock;

use crate::board::{Board, HexLayout};
use crate::moves::Diagonal;

#[derive(Clone, Debug, Default)]
pub(crate) struct Components {
    four: Labels,
    eight: Labels,
    /// By [`HexLayout`], in the order of [`HexLayout::ALL`].
    hex: [OnceLock<Labels>; 4],
}

/// One labeling: a label per cell of the padded storage, 0 meaning "impassable".
#[derive(Clone, Debug, Default)]
struct Labels {
    of: Vec<u32>,
    /// The last label handed out.
    last: u32,
    /// Which cells touch: `Square(Never)`, `Square(Always)` or a hex layout.
    adjacency: Board,
}

impl Components {
    pub(crate) fn new(open: &[bool], stride: usize) -> Self {
        Self {
            four: Labels::new(open, stride, Board::Square(Diagonal::Never)),
            eight: Labels::new(open, stride, Board::Square(Diagonal::Always)),
            hex: Default::default(),
        }
    }

    /// The label of the passable cell at `index` under `board`'s moves (`open` and `stride`
    /// are the grid's, to build a hex labeling on first use).
    pub(crate) fn label_of(&self, open: &[bool], stride: usize, index: usize, board: Board) -> u32 {
        match board {
            Board::Square(Diagonal::Always) => self.eight.of[index],
            Board::Square(_) => self.four.of[index],
            Board::Hex(layout) => {
                self.hex[layout_slot(layout)]
                    .get_or_init(|| Labels::new(open, stride, board))
                    .of[index]
            }
        }
    }

    /// Repairs every labeling built so far after the cell at `index` switched passability.
    pub(crate) fn update(&mut self, open: &[bool], stride: usize, index: usize) {
        self.four.update(open, stride, index);
        self.eight.update(open, stride, index);
        for labels in self.hex.iter_mut().filter_map(OnceLock::get_mut) {
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

impl Labels {
    fn new(open: &[bool], stride: usize, adjacency: Board) -> Self {
        let mut labels = Self {
            of: vec![0; open.len()],
            last: 0,
            adjacency,
        };
        for index in 0..open.len() {
            if open[index] && labels.of[index] == 0 {
                let label = labels.fresh();
                labels.fill(open, stride, index, label);
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
            let mut distinct = around.iter().flatten().map(|&n| self.of[n]);
            if let Some(first) = distinct.next()
                && distinct.all(|l| l == first)
            {
                self.of[index] = first;
            } else {
                let label = self.fresh();
                self.fill(open, stride, index, label);
            }
        } else {
            // The old region may have split: give each piece touching the cell its own label.
            let old = std::mem::replace(&mut self.of[index], 0);
            if around.iter().flatten().count() > 1 {
                for &n in around.iter().flatten() {
                    if self.of[n] == old {
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
        let mut stack = vec![seed];
        self.of[seed] = label;
        while let Some(index) = stack.pop() {
            for n in neighbours(open, stride, index, self.adjacency)
                .into_iter()
                .flatten()
            {
                if self.of[n] != label {
                    self.of[n] = label;
                    stack.push(n);
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
