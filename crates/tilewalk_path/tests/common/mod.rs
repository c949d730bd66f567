//! The tests' own model of every board: which steps exist and what they cost, written
//! from the definitions (Red Blob Games' offset tables for hex), not from the crate's code.

use std::f64::consts::SQRT_2;

use tilewalk_path::{Board, Diagonal, Grid, HexLayout, Pos};

/// Red Blob Games' neighbour offsets `[dcol, drow]` for offset coordinates ("Hexagonal
/// Grids", offset coordinates), indexed by the parity of the row (`r` layouts) or column
/// (`q` layouts): `[even, odd]`. Their y grows downward too.
const ODD_R: [[(i64, i64); 6]; 2] = [
    [(1, 0), (0, -1), (-1, -1), (-1, 0), (-1, 1), (0, 1)],
    [(1, 0), (1, -1), (0, -1), (-1, 0), (0, 1), (1, 1)],
];
const EVEN_R: [[(i64, i64); 6]; 2] = [
    [(1, 0), (1, -1), (0, -1), (-1, 0), (0, 1), (1, 1)],
    [(1, 0), (0, -1), (-1, -1), (-1, 0), (-1, 1), (0, 1)],
];
const ODD_Q: [[(i64, i64); 6]; 2] = [
    [(1, 0), (1, -1), (0, -1), (-1, -1), (-1, 0), (0, 1)],
    [(1, 1), (1, 0), (0, -1), (-1, 0), (-1, 1), (0, 1)],
];
const EVEN_Q: [[(i64, i64); 6]; 2] = [
    [(1, 1), (1, 0), (0, -1), (-1, 0), (-1, 1), (0, 1)],
    [(1, 0), (1, -1), (0, -1), (-1, -1), (-1, 0), (0, 1)],
];

/// The legal steps from `a` on `board`, with their costs (`cost(entered) × length`).
pub fn steps(grid: &Grid, a: Pos, board: Board) -> Vec<(Pos, f64)> {
    let at = |dx: i64, dy: i64| {
        let (x, y) = (i64::from(a.x) + dx, i64::from(a.y) + dy);
        let b = Pos::new(u32::try_from(x).ok()?, u32::try_from(y).ok()?);
        grid.contains(b).then_some(b)
    };
    let mut out = Vec::new();
    match board {
        Board::Hex(layout) => {
            let (table, parity) = match layout {
                HexLayout::OddR => (ODD_R, a.y % 2),
                HexLayout::EvenR => (EVEN_R, a.y % 2),
                HexLayout::OddQ => (ODD_Q, a.x % 2),
                HexLayout::EvenQ => (EVEN_Q, a.x % 2),
            };
            for (dx, dy) in table[parity as usize] {
                if let Some(b) = at(dx, dy)
                    && let Some(cost) = grid.cost(b)
                {
                    out.push((b, cost));
                }
            }
        }
        Board::Square(mode) => {
            for dy in -1..=1 {
                for dx in -1..=1 {
                    let Some(b) = at(dx, dy).filter(|_| (dx, dy) != (0, 0)) else {
                        continue;
                    };
                    let Some(cost) = grid.cost(b) else { continue };
                    if dx != 0 && dy != 0 {
                        let sides = (
                            grid.is_passable(Pos::new(b.x, a.y)),
                            grid.is_passable(Pos::new(a.x, b.y)),
                        );
                        let allowed = match mode {
                            Diagonal::Never => false,
                            Diagonal::NoObstacles => sides.0 && sides.1,
                            Diagonal::AtMostOneObstacle => sides.0 || sides.1,
                            Diagonal::Always => true,
                        };
                        if allowed {
                            out.push((b, cost * SQRT_2));
                        }
                    } else {
                        out.push((b, cost));
                    }
                }
            }
        }
    }
    out
}
