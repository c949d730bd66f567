//! A cell's coordinates.

/// A cell of the grid: `x` is the column, `y` the row, `(0, 0)` the top-left corner.
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Pos {
    /// The column, 0 at the left edge.
    pub x: u32,
    /// The row, 0 at the top edge.
    pub y: u32,
}

impl Pos {
    /// The cell in column `x`, row `y`.
    pub const fn new(x: u32, y: u32) -> Self {
        Self { x, y }
    }
}

impl From<(u32, u32)> for Pos {
    fn from((x, y): (u32, u32)) -> Self {
        Self { x, y }
    }
}

impl std::fmt::Display for Pos {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "({},{})", self.x, self.y)
    }
}
