//! Connected-component labels, kept correct as cells switch between passable and impassable.
//!
//! Only two labelings are needed. With `Never`, `NoObstacles` and `AtMostOneObstacle` every
//! allowed diagonal step has a passable orthogonal cell beside it, so those neighbourhoods
//! connect exactly the 4-connected cells; only `Always` (squeezing between walls) connects
//! more, the 8-connected cells.

use crate::grid::{BLOCKED, Grid};
use crate::moves::{Diagonal, STEPS};

/// Label 0 means "impassable".
#[derive(Clone, Debug, Default)]
pub(crate) struct Components {
    four: Vec<u32>,
    eight: Vec<u32>,
    next: u32,
}

impl Components {
    pub(crate) fn new(grid: &Grid) -> Self {
        let mut components = Self {
            four: vec![0; grid.costs().len()],
            eight: vec![0; grid.costs().len()],
            next: 0,
        };
        for index in 0..grid.costs().len() {
            if grid.costs()[index] == BLOCKED {
                continue;
            }
            if components.four[index] == 0 {
                components.next += 1;
                fill(grid, &mut components.four, 4, index, components.next);
            }
            if components.eight[index] == 0 {
                components.next += 1;
                fill(grid, &mut components.eight, 8, index, components.next);
            }
        }
        components
    }

    pub(crate) fn label_of(&self, index: usize, diagonal: Diagonal) -> u32 {
        if diagonal == Diagonal::Always {
            self.eight[index]
        } else {
            self.four[index]
        }
    }

    /// Repairs both labelings after the cell at `index` switched passability.
    pub(crate) fn update(&mut self, grid: &Grid, index: usize) {
        let passable = grid.costs()[index] != BLOCKED;
        for (labels, steps) in [(&mut self.four, 4), (&mut self.eight, 8)] {
            let neighbours = neighbours(grid, index, steps);
            let mut next = || {
                self.next += 1;
                self.next
            };
            if passable {
                // Join the neighbouring regions: reuse the label when there is only one.
                let mut distinct = neighbours.iter().flatten().map(|&n| labels[n]);
                if let Some(first) = distinct.next()
                    && distinct.all(|l| l == first)
                {
                    labels[index] = first;
                } else {
                    fill(grid, labels, steps, index, next());
                }
            } else {
                // The old region may have split: give each piece touching the cell its own label.
                let old = std::mem::replace(&mut labels[index], 0);
                if neighbours.iter().flatten().count() > 1 {
                    for &n in neighbours.iter().flatten() {
                        if labels[n] == old {
                            fill(grid, labels, steps, n, next());
                        }
                    }
                }
            }
        }
    }
}

/// The passable cells among the first `steps` of [`STEPS`] around `index`.
fn neighbours(grid: &Grid, index: usize, steps: usize) -> [Option<usize>; 8] {
    let mut out = [None; 8];
    for (slot, step) in out.iter_mut().zip(&STEPS[..steps]) {
        let n = offset(grid, index, step.dx, step.dy);
        if grid.costs()[n] != BLOCKED {
            *slot = Some(n);
        }
    }
    out
}

fn offset(grid: &Grid, index: usize, dx: i32, dy: i32) -> usize {
    index.wrapping_add_signed(dy as isize * grid.stride() as isize + dx as isize)
}

/// Flood-fills `label` over the passable cells connected to `seed` that do not carry it yet.
fn fill(grid: &Grid, labels: &mut [u32], steps: usize, seed: usize, label: u32) {
    let mut stack = vec![seed];
    labels[seed] = label;
    while let Some(index) = stack.pop() {
        for n in neighbours(grid, index, steps).into_iter().flatten() {
            if labels[n] != label {
                labels[n] = label;
                stack.push(n);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::{Diagonal, Grid, Pos};

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
