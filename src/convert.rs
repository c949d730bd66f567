//! The one place where core grid cells meet Bevy's world and bevy_ecs_tilemap's coordinates,
//! on square and hex boards, drawn flat or isometric, alike; and where a staggered isometric
//! map's cells become diamond cells ([`Stagger`]).
//!
//! Grid cells count rows from the top (`y = 0` is the first row of a map file, as in Moving
//! AI); Bevy's world and bevy_ecs_tilemap's `TilePos` count up from the bottom. So a file row
//! `y` is tilemap row `height - 1 - y`, and on `r` hex layouts that flip can turn odd rows
//! into even ones: [`Geometry::map_type`] picks the `HexCoordSystem` that draws the file's
//! layout. The map's bottom-left corner is the world's origin.

use bevy::prelude::*;
use bevy_ecs_tilemap::helpers::hex_grid::axial::AxialPos;
use bevy_ecs_tilemap::helpers::hex_grid::offset::{ColEvenPos, ColOddPos, RowEvenPos, RowOddPos};
use bevy_ecs_tilemap::helpers::square_grid::SquarePos;
use bevy_ecs_tilemap::helpers::square_grid::diamond::DiamondPos;
use bevy_ecs_tilemap::helpers::square_grid::staggered::StaggeredPos;
use bevy_ecs_tilemap::prelude::*;
use tilewalk_path::{Board, HexLayout, Pos};

/// The side of a square tile, and the width of a pointy-top hex (the height of a flat-top
/// one), in world units: one atlas tile is 32 pixels across.
pub const TILE_SIZE: f32 = 32.0;
/// The long side of a hex tile image: a regular hexagon 32 across its flats is 36.95 across
/// its corners.
pub const HEX_LONG: f32 = 37.0;

/// How a map is drawn: its cells side by side, or as isometric diamonds.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub enum Projection {
    /// Squares or hexes, as the board is.
    #[default]
    Flat,
    /// A square board drawn as diamonds (Tiled's `isometric` orientation): a cell's column
    /// runs down to the right on screen and its row down to the left. `aspect` is a
    /// diamond's width over its height (2 for Tiled's usual 64x32 tiles).
    Isometric {
        aspect: f32,
        /// For a map Tiled draws `staggered`, the rectangle of its cells among the diamond
        /// cells; the others are not on the map.
        stagger: Option<Stagger>,
    },
}

impl Projection {
    /// A staggered map's stagger (`None` for the other projections).
    pub fn stagger(self) -> Option<Stagger> {
        match self {
            Self::Isometric { stagger, .. } => stagger,
            Self::Flat => None,
        }
    }
}

/// Which lines of a staggered map Tiled shifts by half a tile: rows to the right (axis Y)
/// or columns down (axis X), the odd or the even ones.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StaggerAxis {
    Rows,
    Columns,
}

/// A staggered isometric map of `columns` x `rows` cells, which tilewalk reads as the
/// diamond (isometric) cells it covers: on screen each staggered cell is one diamond cell,
/// and the neighbours a player sees are the diamond neighbours. A diamond cell `(x, y)` is
/// drawn `(x - y)` half-tiles right and `(x + y)` half-tiles down of the top one, as in
/// Tiled's isometric maps.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Stagger {
    pub axis: StaggerAxis,
    /// Whether the odd lines are the shifted ones (Tiled's `staggerindex="odd"`).
    pub odd: bool,
    pub columns: u32,
    pub rows: u32,
}

impl Stagger {
    /// Whether line `i` (a row for axis Y, a column for axis X) is shifted.
    fn shifted(self, i: i64) -> i64 {
        i64::from((i.rem_euclid(2) == 1) == self.odd)
    }

    /// A staggered cell's diamond coordinates before they are moved to start at 0: twice
    /// the diamond `x` and `y`, up to a constant.
    fn raw(self, column: i64, row: i64) -> (i64, i64) {
        match self.axis {
            StaggerAxis::Rows => {
                let p = self.shifted(row);
                (row + 2 * column + p, row - 2 * column - p)
            }
            StaggerAxis::Columns => {
                let p = self.shifted(column);
                (column + 2 * row + p, 2 * row + p - column)
            }
        }
    }

    /// The lowest raw coordinates and the diamond grid's size.
    fn bounds(self) -> ((i64, i64), (u32, u32)) {
        let (w, h) = (i64::from(self.columns), i64::from(self.rows));
        // The extremes lie in the first two or last two rows and columns.
        let near = |n: i64| {
            [0, 1, n - 2, n - 1]
                .into_iter()
                .filter(move |&i| (0..n).contains(&i))
        };
        let (mut low, mut high) = ((i64::MAX, i64::MAX), (i64::MIN, i64::MIN));
        for (c, r) in near(w).flat_map(|c| near(h).map(move |r| (c, r))) {
            let (a, b) = self.raw(c, r);
            low = (low.0.min(a), low.1.min(b));
            high = (high.0.max(a), high.1.max(b));
        }
        let size = |lo: i64, hi: i64| u32::try_from((hi - lo) / 2 + 1).unwrap_or(0);
        (low, (size(low.0, high.0), size(low.1, high.1)))
    }

    /// The size of the diamond grid that holds the map.
    pub fn diamond_size(self) -> (u32, u32) {
        if self.columns == 0 || self.rows == 0 {
            return (0, 0);
        }
        self.bounds().1
    }

    /// The diamond cell of staggered cell (`column`, `row`).
    pub fn to_diamond(self, column: u32, row: u32) -> Pos {
        let (low, _) = self.bounds();
        let (a, b) = self.raw(i64::from(column), i64::from(row));
        Pos::new(((a - low.0) / 2) as u32, ((b - low.1) / 2) as u32)
    }

    /// The staggered cell (column, row) a diamond cell is, if it is on the map.
    pub fn from_diamond(self, pos: Pos) -> Option<(u32, u32)> {
        if self.columns == 0 || self.rows == 0 {
            return None;
        }
        let (low, _) = self.bounds();
        let a = 2 * i64::from(pos.x) + low.0;
        let b = 2 * i64::from(pos.y) + low.1;
        // Twice a column (rows staggered) or a row (columns staggered), and whether it is
        // whole: a diamond cell between two staggered lines is not on the map.
        let (column, row, whole) = match self.axis {
            StaggerAxis::Rows => {
                let row = (a + b) / 2;
                let twice = (a - b) / 2 - self.shifted(row);
                (twice.div_euclid(2), row, twice.rem_euclid(2) == 0)
            }
            StaggerAxis::Columns => {
                let column = (a - b) / 2;
                let twice = (a + b) / 2 - self.shifted(column);
                (column, twice.div_euclid(2), twice.rem_euclid(2) == 0)
            }
        };
        let inside = whole
            && (0..i64::from(self.columns)).contains(&column)
            && (0..i64::from(self.rows)).contains(&row);
        inside.then_some((column as u32, row as u32))
    }
}

/// Where a map's cells are in the world: its board shape, projection and size.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Geometry {
    pub board: Board,
    pub projection: Projection,
    pub width: u32,
    pub height: u32,
    /// Moves bevy_ecs_tilemap's layout (the bottom-left tile's centre at the origin) so that
    /// the map's bottom-left corner is there instead.
    offset: Vec2,
}

impl Geometry {
    /// A board drawn flat.
    pub fn new(board: Board, width: u32, height: u32) -> Self {
        Self::projected(board, Projection::Flat, width, height)
    }

    /// A board drawn with `projection` (an isometric one is square: `board` says whether
    /// diagonal steps are allowed).
    pub fn projected(board: Board, projection: Projection, width: u32, height: u32) -> Self {
        let mut geometry = Self {
            board,
            projection,
            width,
            height,
            offset: Vec2::ZERO,
        };
        let half = Vec2::new(geometry.tile_size().x, geometry.tile_size().y) / 2.0;
        geometry.offset = -geometry
            .extremes()
            .into_iter()
            .map(|pos| geometry.unanchored(geometry.tile_pos(pos)) - half)
            .fold(Vec2::splat(f32::INFINITY), Vec2::min);
        geometry
    }

    /// The cells whose tiles reach farthest out on some side: among them are the lowest,
    /// leftmost, highest and rightmost tile edges.
    fn extremes(&self) -> Vec<Pos> {
        let (w, h) = (self.width, self.height);
        if w == 0 || h == 0 {
            return Vec::new();
        }
        let near = |n: u32| {
            [0, 1, n.saturating_sub(2), n - 1]
                .into_iter()
                .filter(move |&i| i < n)
        };
        match self.projection.stagger() {
            // A shifted line starts half a tile further: the first two and last two.
            None => near(w)
                .flat_map(|x| near(h).map(move |y| Pos::new(x, y)))
                .collect(),
            Some(stagger) => near(stagger.columns)
                .flat_map(|c| near(stagger.rows).map(move |r| stagger.to_diamond(c, r)))
                .collect(),
        }
    }

    /// Whether a cell is on the map: inside its grid and, on a staggered map, one of its
    /// cells.
    pub fn on_map(&self, pos: Pos) -> bool {
        let inside = pos.x < self.width && pos.y < self.height;
        inside
            && self
                .projection
                .stagger()
                .is_none_or(|s| s.from_diamond(pos).is_some())
    }

    /// A tile's centre in bevy_ecs_tilemap's own layout (`TilemapAnchor::None`).
    fn unanchored(&self, tile: TilePos) -> Vec2 {
        unanchored_centre(tile, &self.grid_size(), self.map_type())
    }

    /// Where the tilemap entity goes (its tiles laid out with `TilemapAnchor::None`) so that
    /// the map's bottom-left corner is at the origin.
    pub fn offset(&self) -> Vec2 {
        self.offset
    }

    /// The tilemap type that draws this board, file rows flipped to tilemap rows.
    pub fn map_type(&self) -> TilemapType {
        if let Projection::Isometric { .. } = self.projection {
            return TilemapType::Isometric(IsoCoordSystem::Diamond);
        }
        let odd_height = self.height % 2 == 1;
        match self.board {
            Board::Square(_) => TilemapType::Square,
            // A row keeps its parity under the flip when the height is odd.
            Board::Hex(HexLayout::OddR) if odd_height => hex(HexCoordSystem::RowOdd),
            Board::Hex(HexLayout::OddR) => hex(HexCoordSystem::RowEven),
            Board::Hex(HexLayout::EvenR) if odd_height => hex(HexCoordSystem::RowEven),
            Board::Hex(HexLayout::EvenR) => hex(HexCoordSystem::RowOdd),
            // Columns are not flipped; "shifted down" in the file is down on screen, which is
            // bevy_ecs_tilemap's `ColumnEven` for odd columns.
            Board::Hex(HexLayout::OddQ) => hex(HexCoordSystem::ColumnEven),
            Board::Hex(HexLayout::EvenQ) => hex(HexCoordSystem::ColumnOdd),
        }
    }

    /// The size of one tile's image.
    pub fn tile_size(&self) -> TilemapTileSize {
        if let Projection::Isometric { aspect, .. } = self.projection {
            return TilemapTileSize::new(TILE_SIZE * aspect, TILE_SIZE);
        }
        match self.board {
            Board::Square(_) => TilemapTileSize::new(TILE_SIZE, TILE_SIZE),
            Board::Hex(HexLayout::OddR | HexLayout::EvenR) => {
                TilemapTileSize::new(TILE_SIZE, HEX_LONG)
            }
            Board::Hex(HexLayout::OddQ | HexLayout::EvenQ) => {
                TilemapTileSize::new(HEX_LONG, TILE_SIZE)
            }
        }
    }

    /// The grid's spacing. bevy_ecs_tilemap puts hex rows (or columns) three quarters of a
    /// grid cell apart, so a grid cell the size of the hex image lays regular hexes edge to edge.
    pub fn grid_size(&self) -> TilemapGridSize {
        let tile = self.tile_size();
        TilemapGridSize::new(tile.x, tile.y)
    }

    pub fn map_size(&self) -> TilemapSize {
        TilemapSize::new(self.width, self.height)
    }

    /// The bevy_ecs_tilemap position of a cell.
    pub fn tile_pos(&self, pos: Pos) -> TilePos {
        TilePos::new(pos.x, self.height - 1 - pos.y)
    }

    /// The world position of a cell's centre.
    pub fn center(&self, pos: Pos) -> Vec2 {
        self.offset + self.unanchored(self.tile_pos(pos))
    }

    /// The cell under a world position, if it lies on the map.
    pub fn cell_at(&self, world: Vec2) -> Option<Pos> {
        if !world.is_finite() {
            return None;
        }
        let tile = TilePos::from_world_pos(
            &(world - self.offset),
            &self.map_size(),
            &self.grid_size(),
            &self.tile_size(),
            &self.map_type(),
            &TilemapAnchor::None,
        )?;
        let pos = Pos::new(tile.x, self.height - 1 - tile.y);
        self.on_map(pos).then_some(pos)
    }

    /// The world size of the whole map, from the origin (its bottom-left corner).
    pub fn extent(&self) -> Vec2 {
        let half = Vec2::new(self.tile_size().x, self.tile_size().y) / 2.0;
        self.extremes()
            .into_iter()
            .map(|pos| self.center(pos) + half)
            .fold(Vec2::ZERO, Vec2::max)
    }

    /// The length of a step from `from` to the adjacent `to` ([`step_length`]).
    pub fn step_length(&self, from: Pos, to: Pos) -> f64 {
        step_length(self.board, from, to)
    }
}

/// The length of a step on `board` from `from` to the adjacent `to`: 1 straight or across a
/// hex side, √2 diagonally on a square board.
pub fn step_length(board: Board, from: Pos, to: Pos) -> f64 {
    match board {
        Board::Square(_) if from.x != to.x && from.y != to.y => std::f64::consts::SQRT_2,
        _ => 1.0,
    }
}

fn hex(system: HexCoordSystem) -> TilemapType {
    TilemapType::Hexagon(system)
}

/// What `TilePos::center_in_world` gives with `TilemapAnchor::None`, from the same coordinate
/// helpers. That method also works out the whole map's bounds on every call (for the anchors
/// that need them): five times the work, and every walking unit's sprite asks for two centres
/// a frame.
fn unanchored_centre(tile: TilePos, grid: &TilemapGridSize, map_type: TilemapType) -> Vec2 {
    match map_type {
        TilemapType::Square => SquarePos::from(&tile).center_in_world(grid),
        TilemapType::Hexagon(HexCoordSystem::RowEven) => {
            RowEvenPos::from(&tile).center_in_world(grid)
        }
        TilemapType::Hexagon(HexCoordSystem::RowOdd) => {
            RowOddPos::from(&tile).center_in_world(grid)
        }
        TilemapType::Hexagon(HexCoordSystem::ColumnEven) => {
            ColEvenPos::from(&tile).center_in_world(grid)
        }
        TilemapType::Hexagon(HexCoordSystem::ColumnOdd) => {
            ColOddPos::from(&tile).center_in_world(grid)
        }
        TilemapType::Hexagon(HexCoordSystem::Row) => {
            AxialPos::from(&tile).center_in_world_row(grid)
        }
        TilemapType::Hexagon(HexCoordSystem::Column) => {
            AxialPos::from(&tile).center_in_world_col(grid)
        }
        TilemapType::Isometric(IsoCoordSystem::Diamond) => {
            DiamondPos::from(&tile).center_in_world(grid)
        }
        TilemapType::Isometric(IsoCoordSystem::Staggered) => {
            StaggeredPos::from(&tile).center_in_world(grid)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tilewalk_path::Diagonal;

    #[test]
    fn centres_are_bevy_ecs_tilemaps_for_every_map_type() {
        let grid = TilemapGridSize::new(32.0, 37.0);
        let tile = TilemapTileSize::new(32.0, 37.0);
        let size = TilemapSize::new(7, 6);
        let hex = [
            HexCoordSystem::RowEven,
            HexCoordSystem::RowOdd,
            HexCoordSystem::ColumnEven,
            HexCoordSystem::ColumnOdd,
            HexCoordSystem::Row,
            HexCoordSystem::Column,
        ];
        let iso = [IsoCoordSystem::Diamond, IsoCoordSystem::Staggered];
        let types = std::iter::once(TilemapType::Square)
            .chain(hex.map(TilemapType::Hexagon))
            .chain(iso.map(TilemapType::Isometric));
        for map_type in types {
            for (x, y) in (0..size.x).flat_map(|x| (0..size.y).map(move |y| (x, y))) {
                let at = TilePos::new(x, y);
                let theirs =
                    at.center_in_world(&size, &grid, &tile, &map_type, &TilemapAnchor::None);
                assert_eq!(
                    unanchored_centre(at, &grid, map_type),
                    theirs,
                    "{map_type:?} {x},{y}"
                );
            }
        }
    }

    #[test]
    fn square_centres_and_clicks_round_trip() {
        let geometry = Geometry::new(Board::Square(Diagonal::NoObstacles), 6, 5);
        let pos = Pos::new(3, 1);
        let centre = geometry.center(pos);
        assert_eq!(centre, Vec2::new(3.5 * TILE_SIZE, 3.5 * TILE_SIZE));
        assert_eq!(
            geometry.cell_at(centre + Vec2::splat(TILE_SIZE * 0.49)),
            Some(pos)
        );
        assert_eq!(geometry.cell_at(Vec2::new(-1.0, 10.0)), None);
        assert_eq!(geometry.cell_at(Vec2::new(10.0, 5.0 * TILE_SIZE)), None);
        assert_eq!(geometry.extent(), Vec2::new(6.0, 5.0) * TILE_SIZE);
    }

    #[test]
    fn hex_centres_and_clicks_round_trip_and_the_map_starts_at_the_origin() {
        for layout in HexLayout::ALL {
            for (width, height) in [(5, 4), (4, 5), (1, 1), (2, 3)] {
                let geometry = Geometry::new(Board::Hex(layout), width, height);
                let cells: Vec<Pos> = (0..height)
                    .flat_map(|y| (0..width).map(move |x| Pos::new(x, y)))
                    .collect();
                let mut low = Vec2::splat(f32::INFINITY);
                for &pos in &cells {
                    let centre = geometry.center(pos);
                    assert_eq!(geometry.cell_at(centre), Some(pos), "{layout:?} {pos}");
                    // A point well inside the hex (a third of the way to its flat side).
                    assert_eq!(
                        geometry.cell_at(centre + Vec2::new(TILE_SIZE / 6.0, 0.0)),
                        Some(pos)
                    );
                    let half = Vec2::new(geometry.tile_size().x, geometry.tile_size().y) / 2.0;
                    low = low.min(centre - half);
                    assert!((centre + half).cmple(geometry.extent() + 0.01).all());
                }
                assert!(low.abs().max_element() < 0.01, "{layout:?}: {low}");
            }
        }
    }

    /// Tiled's centre of a staggered cell, in pixels (y down).
    fn staggered_centre(stagger: Stagger, (tw, th): (f32, f32), c: u32, r: u32) -> Vec2 {
        let shifted = |i: u32| (i % 2 == 1) == stagger.odd;
        match stagger.axis {
            StaggerAxis::Rows => Vec2::new(
                c as f32 * tw + tw / 2.0 + if shifted(r) { tw / 2.0 } else { 0.0 },
                r as f32 * th / 2.0 + th / 2.0,
            ),
            StaggerAxis::Columns => Vec2::new(
                c as f32 * tw / 2.0 + tw / 2.0,
                r as f32 * th + th / 2.0 + if shifted(c) { th / 2.0 } else { 0.0 },
            ),
        }
    }

    #[test]
    fn staggered_cells_are_diamond_cells_with_the_neighbours_tiled_draws_touching() {
        use bevy_ecs_tilemap::helpers::square_grid::neighbors::Neighbors;
        use std::collections::BTreeSet;
        let (tw, th) = (64.0, 32.0);
        for axis in [StaggerAxis::Rows, StaggerAxis::Columns] {
            for odd in [true, false] {
                for (columns, rows) in [(4, 5), (5, 4), (3, 3), (4, 4), (1, 3), (2, 1)] {
                    let stagger = Stagger {
                        axis,
                        odd,
                        columns,
                        rows,
                    };
                    let case = format!("{stagger:?}");
                    let (width, height) = stagger.diamond_size();
                    let cells: Vec<(u32, u32)> = (0..rows)
                        .flat_map(|r| (0..columns).map(move |c| (c, r)))
                        .collect();
                    let on_map: BTreeSet<Pos> = (0..height)
                        .flat_map(|y| (0..width).map(move |x| Pos::new(x, y)))
                        .filter(|&p| stagger.from_diamond(p).is_some())
                        .collect();
                    assert_eq!(on_map.len(), cells.len(), "{case}");
                    let geometry = Geometry::projected(
                        Board::Square(Diagonal::NoObstacles),
                        Projection::Isometric {
                            aspect: 2.0,
                            stagger: Some(stagger),
                        },
                        width,
                        height,
                    );
                    let scale = TILE_SIZE / th;
                    let first = stagger.to_diamond(0, 0);
                    let mut low = Vec2::splat(f32::INFINITY);
                    for &(c, r) in &cells {
                        let pos = stagger.to_diamond(c, r);
                        assert!(pos.x < width && pos.y < height, "{case}: {c},{r}");
                        assert_eq!(stagger.from_diamond(pos), Some((c, r)), "{case}");
                        // Drawn where Tiled draws it (y flipped), relative to cell 0,0.
                        let tiled = staggered_centre(stagger, (tw, th), c, r)
                            - staggered_centre(stagger, (tw, th), 0, 0);
                        let drawn = geometry.center(pos) - geometry.center(first);
                        assert!(
                            (drawn - Vec2::new(tiled.x, -tiled.y) * scale).length() < 0.01,
                            "{case}: {c},{r} drawn at {drawn}, Tiled {tiled}"
                        );
                        // Clicks round-trip, off the centre too (0.6 of the way to the edge).
                        let centre = geometry.center(pos);
                        assert_eq!(geometry.cell_at(centre), Some(pos), "{case}");
                        let inside = Vec2::new(TILE_SIZE * 0.4, -TILE_SIZE * 0.1);
                        assert_eq!(geometry.cell_at(centre + inside), Some(pos), "{case}");
                        let half = Vec2::new(TILE_SIZE, TILE_SIZE / 2.0);
                        low = low.min(centre - half);
                        assert!((centre + half).cmple(geometry.extent() + 0.01).all());
                        // The neighbours: edge to edge for square-4, corners too for
                        // square-8, as Tiled draws the cells and bevy_ecs_tilemap counts.
                        let here = staggered_centre(stagger, (tw, th), c, r);
                        let touching = |corners: bool| -> BTreeSet<Pos> {
                            cells
                                .iter()
                                .filter(|&&(nc, nr)| {
                                    let d = staggered_centre(stagger, (tw, th), nc, nr) - here;
                                    let edge = d.x.abs() == tw / 2.0 && d.y.abs() == th / 2.0;
                                    let corner = d.x.abs() == tw && d.y == 0.0
                                        || d.x == 0.0 && d.y.abs() == th;
                                    edge || corners && corner
                                })
                                .map(|&(nc, nr)| stagger.to_diamond(nc, nr))
                                .collect()
                        };
                        for (diagonal, corners) in
                            [(Diagonal::Never, false), (Diagonal::Always, true)]
                        {
                            let ours: BTreeSet<Pos> = Board::Square(diagonal)
                                .neighbours(pos, width, height)
                                .filter(|p| on_map.contains(p))
                                .collect();
                            assert_eq!(ours, touching(corners), "{case}: {c},{r}");
                            let theirs: BTreeSet<Pos> =
                                Neighbors::get_square_neighboring_positions(
                                    &geometry.tile_pos(pos),
                                    &geometry.map_size(),
                                    corners,
                                )
                                .iter()
                                .map(|t| Pos::new(t.x, height - 1 - t.y))
                                .filter(|p| on_map.contains(p))
                                .collect();
                            assert_eq!(ours, theirs, "{case}: {c},{r}");
                        }
                    }
                    assert!(low.abs().max_element() < 0.01, "{case}: {low}");
                    // The diamond cells between the map's are not on it.
                    for y in 0..height {
                        for x in 0..width {
                            let pos = Pos::new(x, y);
                            if !on_map.contains(&pos) {
                                assert_eq!(geometry.cell_at(geometry.center(pos)), None);
                            }
                        }
                    }
                }
            }
        }
    }

    #[test]
    fn isometric_cells_are_drawn_and_picked_where_tiled_draws_them() {
        for (width, height) in [(5, 4), (4, 5), (1, 1), (3, 3)] {
            let geometry = Geometry::projected(
                Board::Square(Diagonal::NoObstacles),
                Projection::Isometric {
                    aspect: 2.0,
                    stagger: None,
                },
                width,
                height,
            );
            assert_eq!(
                geometry.map_type(),
                TilemapType::Isometric(IsoCoordSystem::Diamond)
            );
            let origin = geometry.center(Pos::new(0, 0));
            for y in 0..height {
                for x in 0..width {
                    let pos = Pos::new(x, y);
                    let centre = geometry.center(pos);
                    // Tiled: (x - y) half-tiles right, (x + y) half-tiles down of cell 0,0.
                    let tiled = Vec2::new(
                        (x as f32 - y as f32) * TILE_SIZE,
                        -(x as f32 + y as f32) * TILE_SIZE / 2.0,
                    );
                    assert!((centre - origin - tiled).length() < 0.01, "{pos}");
                    assert_eq!(geometry.cell_at(centre), Some(pos));
                    let inside = Vec2::new(-TILE_SIZE / 2.0, TILE_SIZE / 5.0);
                    assert_eq!(geometry.cell_at(centre + inside), Some(pos));
                }
            }
            let extent = geometry.extent();
            let expected = Vec2::new(
                (width + height) as f32 * TILE_SIZE,
                (width + height) as f32 * TILE_SIZE / 2.0,
            );
            assert!((extent - expected).length() < 0.01, "{extent} {expected}");
        }
    }

    #[test]
    fn file_row_zero_is_drawn_on_top() {
        for board in [
            Board::Square(Diagonal::Never),
            Board::Hex(HexLayout::OddR),
            Board::Hex(HexLayout::EvenQ),
        ] {
            let geometry = Geometry::new(board, 3, 4);
            assert!(geometry.center(Pos::new(0, 0)).y > geometry.center(Pos::new(0, 1)).y);
        }
    }

    /// The plugin's `TileLayout` for a map's geometry: the same tiles, rows counted from the
    /// top, the cell (0, 0) where the game draws it.
    #[test]
    fn the_plugins_tile_layout_puts_cells_where_the_game_draws_them() {
        use bevy_tilewalk::TileLayout;

        let isometric = Projection::Isometric {
            aspect: 2.0,
            stagger: None,
        };
        let flat = Board::ALL.map(|board| (board, Projection::Flat));
        let maps = flat.into_iter().chain([(Board::default(), isometric)]);
        for (board, projection) in maps {
            // An even and an odd height: the game's flip of rows changes the hex coordinate
            // system with the height's parity.
            for (width, height) in [(7, 6), (6, 5)] {
                let geometry = Geometry::projected(board, projection, width, height);
                let size = geometry.grid_size();
                let size = Vec2::new(size.x, size.y);
                let layout = match projection {
                    Projection::Flat => TileLayout::new(board, size),
                    Projection::Isometric { .. } => TileLayout::isometric(size),
                }
                .with_y_down(true)
                .with_origin(geometry.center(Pos::new(0, 0)));
                for pos in (0..width).flat_map(|x| (0..height).map(move |y| Pos::new(x, y))) {
                    let (ours, plugins) = (geometry.center(pos), layout.center(pos));
                    assert!(
                        ours.distance(plugins) < 1e-3,
                        "{board} {projection:?} {width}x{height} {pos}: {ours} != {plugins}"
                    );
                }
            }
        }
    }
}
