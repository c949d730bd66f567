//! Board shapes: square grids under a diagonal rule and the four offset layouts of hex
//! grids; which cells are adjacent, in what order, and how many steps apart two cells are.

use std::fmt;
use std::str::FromStr;

use crate::moves::{Diagonal, Heuristic, STEPS};
use crate::pos::Pos;

/// The four ways of storing a hex map in rows and columns (Red Blob Games, "Hexagonal
/// Grids", offset coordinates). Coordinates are the map file's: `x` is the column, `y` the
/// row, and row 0 is the top line of the file, so "down" means a larger `y`.
///
/// ```text
/// odd-r, cells labelled x,y        odd-q, cells labelled x,y
///  0,0 1,0 2,0 3,0                  0,0     2,0
///    0,1 1,1 2,1 3,1                    1,0     3,0
///  0,2 1,2 2,2 3,2                  0,1     2,1
///                                       1,1     3,1
/// ```
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum HexLayout {
    /// Pointy-top hexes in rows; odd rows are drawn shifted right by half a hex.
    OddR,
    /// Pointy-top hexes in rows; even rows are drawn shifted right by half a hex.
    EvenR,
    /// Flat-top hexes in columns; odd columns are drawn shifted down by half a hex.
    OddQ,
    /// Flat-top hexes in columns; even columns are drawn shifted down by half a hex.
    EvenQ,
}

/// The steps out of a pointy-top cell whose row is not shifted, clockwise from north-east:
/// NE, E, SE, SW, W, NW. Above and below it lie the cells of columns `x - 1` and `x`.
const ROW_UNSHIFTED: [(i32, i32); 6] = [(0, -1), (1, 0), (0, 1), (-1, 1), (-1, 0), (-1, -1)];
/// The same for a cell of a shifted row: above and below lie columns `x` and `x + 1`.
const ROW_SHIFTED: [(i32, i32); 6] = [(1, -1), (1, 0), (1, 1), (0, 1), (-1, 0), (0, -1)];
/// The steps out of a flat-top cell whose column is not shifted, clockwise from north:
/// N, NE, SE, S, SW, NW. Left and right of it lie the cells of rows `y - 1` and `y`.
const COLUMN_UNSHIFTED: [(i32, i32); 6] = [(0, -1), (1, -1), (1, 0), (0, 1), (-1, 0), (-1, -1)];
/// The same for a cell of a shifted column: left and right lie rows `y` and `y + 1`.
const COLUMN_SHIFTED: [(i32, i32); 6] = [(0, -1), (1, 0), (1, 1), (0, 1), (-1, 1), (-1, 0)];

impl HexLayout {
    /// Every layout.
    pub const ALL: [Self; 4] = [Self::OddR, Self::EvenR, Self::OddQ, Self::EvenQ];

    /// Whether the layout stores rows of pointy-top hexes (`r`), not columns of flat-top ones.
    fn in_rows(self) -> bool {
        matches!(self, Self::OddR | Self::EvenR)
    }

    /// Whether the row `y` (`r` layouts) or the column `x` (`q` layouts) is drawn shifted.
    #[inline]
    pub(crate) fn shifted(self, x: u32, y: u32) -> bool {
        match self {
            Self::OddR => y % 2 == 1,
            Self::EvenR => y.is_multiple_of(2),
            Self::OddQ => x % 2 == 1,
            Self::EvenQ => x.is_multiple_of(2),
        }
    }

    /// The six steps `(dx, dy)` out of a cell, for unshifted (`false`) or shifted (`true`)
    /// cells, in the board's neighbour order.
    #[inline]
    pub(crate) fn steps(self, shifted: bool) -> [(i32, i32); 6] {
        match (self.in_rows(), shifted) {
            (true, false) => ROW_UNSHIFTED,
            (true, true) => ROW_SHIFTED,
            (false, false) => COLUMN_UNSHIFTED,
            (false, true) => COLUMN_SHIFTED,
        }
    }

    /// Axial coordinates `(q, r)` of a cell: a hex step changes `q`, `r` or `q + r` by one
    /// and leaves one of them unchanged (Red Blob Games' offset-to-axial conversions).
    #[inline]
    fn axial(self, pos: Pos) -> (i64, i64) {
        let (x, y) = (i64::from(pos.x), i64::from(pos.y));
        // Going down (or right) two lines moves the axial coordinate across by one: odd
        // layouts count the lines before `along` rounding down, even layouts rounding up.
        let half = |along: i64, odd_shifted: bool| {
            if odd_shifted {
                (along - (along & 1)) / 2
            } else {
                (along + (along & 1)) / 2
            }
        };
        match self {
            Self::OddR => (x - half(y, true), y),
            Self::EvenR => (x - half(y, false), y),
            Self::OddQ => (x, y - half(x, true)),
            Self::EvenQ => (x, y - half(x, false)),
        }
    }

    /// `(dq, dr)` from `a` to `b` in axial coordinates.
    #[inline]
    fn axial_delta(self, a: Pos, b: Pos) -> (i64, i64) {
        let ((qa, ra), (qb, rb)) = (self.axial(a), self.axial(b));
        (qb - qa, rb - ra)
    }

    /// Steps between two cells on an empty hex board.
    #[inline]
    fn distance(self, a: Pos, b: Pos) -> u32 {
        let (dq, dr) = self.axial_delta(a, b);
        // Cube coordinates (q, r, -q-r): the distance is the largest of the three deltas,
        // which is half their sum.
        ((dq.abs() + dr.abs() + (dq + dr).abs()) / 2) as u32
    }

    /// The distance between the centres of two cells, one step being 1: in axial
    /// coordinates the centres lie at `q·u + r·v` with `u`, `v` unit vectors 60° apart.
    #[inline]
    fn centre_distance(self, a: Pos, b: Pos) -> f64 {
        let (dq, dr) = self.axial_delta(a, b);
        let (dq, dr) = (dq as f64, dr as f64);
        (dq * dq + dq * dr + dr * dr).sqrt()
    }
}

/// The shape of a board: which cells are adjacent, and how long a step is.
///
/// A square board moves by [`Diagonal`]'s rule, orthogonal steps 1 long and diagonal ones
/// √2. A hex board has six neighbours per cell, each step 1 long, so a step costs the
/// entered cell's cost. Names ([`FromStr`], [`Display`](fmt::Display)): `square-8` (the
/// default, [`Diagonal::NoObstacles`]), `square-4` ([`Diagonal::Never`]), `hex-odd-r`,
/// `hex-even-r`, `hex-odd-q`, `hex-even-q`. The two other square rules are named
/// `square-8 (one-obstacle)` and `square-8 (always)`.
///
/// # Neighbour order
///
/// The order in which a search looks at a cell's neighbours is part of its deterministic
/// tie-breaking. Square boards: N, E, S, W, then NE, SE, SW, NW. Pointy-top hexes (`r`
/// layouts): clockwise from north-east, NE, E, SE, SW, W, NW. Flat-top hexes (`q`
/// layouts): clockwise from north, N, NE, SE, S, SW, NW.
///
/// ```
/// use tilewalk_path::{Board, HexLayout, Pos};
///
/// let board: Board = "hex-odd-r".parse().unwrap();
/// assert_eq!(board, Board::Hex(HexLayout::OddR));
/// // Row 1 is odd, so drawn shifted right: above and below it lie columns 2 and 3.
/// let around: Vec<Pos> = board.neighbours(Pos::new(2, 1), 6, 4).collect();
/// assert_eq!(around, [(3, 0), (3, 1), (3, 2), (2, 2), (1, 1), (2, 0)].map(Pos::from));
/// assert_eq!(board.distance(Pos::new(0, 0), Pos::new(3, 3)), 5);
/// ```
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Board {
    /// A square grid whose moves the diagonal rule picks.
    Square(Diagonal),
    /// A hex grid stored in rows or columns as the layout says.
    Hex(HexLayout),
}

impl Default for Board {
    fn default() -> Self {
        Self::Square(Diagonal::default())
    }
}

impl From<Diagonal> for Board {
    fn from(diagonal: Diagonal) -> Self {
        Self::Square(diagonal)
    }
}

impl From<HexLayout> for Board {
    fn from(layout: HexLayout) -> Self {
        Self::Hex(layout)
    }
}

/// A board name that [`Board::from_str`] does not know.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error(
    "unknown board `{0}` (expected square-8, square-4, hex-odd-r, hex-even-r, hex-odd-q or hex-even-q)"
)]
pub struct UnknownBoard(pub String);

impl FromStr for Board {
    type Err = UnknownBoard;

    /// The board whose name (its [`Display`](fmt::Display)) is `name`.
    fn from_str(name: &str) -> Result<Self, Self::Err> {
        Self::ALL
            .into_iter()
            .find(|board| board.to_string() == name)
            .ok_or_else(|| UnknownBoard(name.to_owned()))
    }
}

impl fmt::Display for Board {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Self::Square(Diagonal::NoObstacles) => "square-8",
            Self::Square(Diagonal::Never) => "square-4",
            Self::Square(Diagonal::AtMostOneObstacle) => "square-8 (one-obstacle)",
            Self::Square(Diagonal::Always) => "square-8 (always)",
            Self::Hex(HexLayout::OddR) => "hex-odd-r",
            Self::Hex(HexLayout::EvenR) => "hex-even-r",
            Self::Hex(HexLayout::OddQ) => "hex-odd-q",
            Self::Hex(HexLayout::EvenQ) => "hex-even-q",
        })
    }
}

impl Board {
    /// Every board: the four square rules, then the four hex layouts.
    pub const ALL: [Self; 8] = [
        Self::Square(Diagonal::Never),
        Self::Square(Diagonal::NoObstacles),
        Self::Square(Diagonal::AtMostOneObstacle),
        Self::Square(Diagonal::Always),
        Self::Hex(HexLayout::OddR),
        Self::Hex(HexLayout::EvenR),
        Self::Hex(HexLayout::OddQ),
        Self::Hex(HexLayout::EvenQ),
    ];

    /// The steps `(dx, dy)` out of a cell in neighbour order, ignoring passability and
    /// corner rules, and how many of the eight slots are used. `cell` gives the cell's
    /// `(x, y)`; only hex boards ask, their steps depending on the row or column.
    #[inline]
    pub(crate) fn steps_at(self, cell: impl FnOnce() -> (u32, u32)) -> ([(i32, i32); 8], usize) {
        let mut steps = STEPS.map(|s| (s.dx, s.dy));
        match self {
            Self::Square(Diagonal::Never) => (steps, 4),
            Self::Square(_) => (steps, 8),
            Self::Hex(layout) => {
                let (x, y) = cell();
                steps[..6].copy_from_slice(&layout.steps(layout.shifted(x, y)));
                (steps, 6)
            }
        }
    }

    /// The cells adjacent to `pos` on a `width` × `height` board, in neighbour order (see
    /// [`Board`]), whether passable or not and whatever the corner rule: 8 on a square
    /// board with diagonals, 4 on `square-4`, 6 on a hex board (fewer at the edges).
    pub fn neighbours(self, pos: Pos, width: u32, height: u32) -> impl Iterator<Item = Pos> {
        let (steps, count) = self.steps_at(|| (pos.x, pos.y));
        steps.into_iter().take(count).filter_map(move |(dx, dy)| {
            let x = pos.x.checked_add_signed(dx).filter(|&x| x < width)?;
            let y = pos.y.checked_add_signed(dy).filter(|&y| y < height)?;
            Some(Pos::new(x, y))
        })
    }

    /// Steps between `a` and `b` on an empty board: Manhattan on `square-4`, Chebyshev on
    /// the 8-way square boards, the hex distance on hex boards.
    pub fn distance(self, a: Pos, b: Pos) -> u32 {
        let (dx, dy) = (a.x.abs_diff(b.x), a.y.abs_diff(b.y));
        match self {
            Self::Square(Diagonal::Never) => dx + dy,
            Self::Square(_) => dx.max(dy),
            Self::Hex(layout) => layout.distance(a, b),
        }
    }

    /// `heuristic`'s estimate of the step length from `a` to `b` on this board (before the
    /// search scales it by the cheapest cost). On a square board it is
    /// [`Heuristic::distance`] of the offsets. On a hex board, `Hex` is the exact hex
    /// distance, `Euclidean` the distance between the cells' centres (a step being 1),
    /// `Zero` is 0, and `Manhattan`, `Octile` and `Chebyshev` read the offsets `(dx, dy)`
    /// of the stored rows and columns as a square grid would: a hex step changes each by at
    /// most 1, so `Chebyshev` never overestimates, while `Manhattan` and `Octile` can
    /// (one step that changes both counts 2 or √2).
    #[inline]
    pub fn heuristic(self, heuristic: Heuristic, a: Pos, b: Pos) -> f64 {
        match (self, heuristic) {
            (Self::Hex(layout), Heuristic::Hex) => f64::from(layout.distance(a, b)),
            (Self::Hex(layout), Heuristic::Euclidean) => layout.centre_distance(a, b),
            _ => heuristic.distance(a.x.abs_diff(b.x), a.y.abs_diff(b.y)),
        }
    }
}

// The heuristic a board calls for is defined with the boards, so that `moves` (steps and
// heuristics) needs nothing of them.
impl Heuristic {
    /// The tightest admissible heuristic for a board: Manhattan on `square-4`, octile on
    /// the 8-way square boards, the hex distance on hex boards.
    pub fn tightest_for(board: impl Into<Board>) -> Self {
        match board.into() {
            Board::Square(Diagonal::Never) => Self::Manhattan,
            Board::Square(_) => Self::Octile,
            Board::Hex(_) => Self::Hex,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip() {
        let names = [
            ("square-8", Board::Square(Diagonal::NoObstacles)),
            ("square-4", Board::Square(Diagonal::Never)),
            ("hex-odd-r", Board::Hex(HexLayout::OddR)),
            ("hex-even-r", Board::Hex(HexLayout::EvenR)),
            ("hex-odd-q", Board::Hex(HexLayout::OddQ)),
            ("hex-even-q", Board::Hex(HexLayout::EvenQ)),
        ];
        for (name, board) in names {
            assert_eq!(name.parse::<Board>(), Ok(board));
            assert_eq!(board.to_string(), name);
        }
        for board in Board::ALL {
            assert_eq!(board.to_string().parse::<Board>(), Ok(board));
        }
        assert_eq!(Board::default().to_string(), "square-8");
        assert_eq!(
            Board::Square(Diagonal::AtMostOneObstacle).to_string(),
            "square-8 (one-obstacle)"
        );
        assert_eq!(
            Board::Square(Diagonal::Always).to_string(),
            "square-8 (always)"
        );
        let err = "hex".parse::<Board>().unwrap_err().to_string();
        assert_eq!(
            err,
            "unknown board `hex` (expected square-8, square-4, hex-odd-r, hex-even-r, hex-odd-q or hex-even-q)"
        );
    }

    #[test]
    fn every_hex_step_is_one_step_away_and_steps_are_symmetric() {
        for layout in HexLayout::ALL {
            let board = Board::Hex(layout);
            for y in 0..6 {
                for x in 0..6 {
                    let a = Pos::new(x, y);
                    let around: Vec<Pos> = board.neighbours(a, 6, 6).collect();
                    for &b in &around {
                        assert_eq!(board.distance(a, b), 1, "{layout:?} {a} {b}");
                        assert!((layout.centre_distance(a, b) - 1.0).abs() < 1e-12);
                        assert!(board.neighbours(b, 6, 6).any(|c| c == a), "{layout:?}");
                    }
                    if (1..5).contains(&x) && (1..5).contains(&y) {
                        assert_eq!(around.len(), 6);
                    }
                }
            }
        }
    }

    #[test]
    fn square_distances() {
        let (a, b) = (Pos::new(1, 5), Pos::new(4, 1));
        assert_eq!(Board::Square(Diagonal::Never).distance(a, b), 7);
        assert_eq!(Board::Square(Diagonal::Always).distance(a, b), 4);
        assert_eq!(Board::default().neighbours(Pos::new(0, 0), 3, 3).count(), 3);
    }
}
