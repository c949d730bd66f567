//! The one place where core grid cells meet Bevy's world and bevy_ecs_tilemap's coordinates,
//! on square and hex boards alike.
//!
//! Grid cells count rows from the top (`y = 0` is the first row of a map file, as in Moving
//! AI); Bevy's world and bevy_ecs_tilemap's `TilePos` count up from the bottom. So a file row
//! `y` is tilemap row `height - 1 - y`, and on `r` hex layouts that flip can turn odd rows
//! into even ones: [`Geometry::map_type`] picks the `HexCoordSystem` that draws the file's
//! layout. The map's bottom-left corner is the world's origin.

use bevy::prelude::*;
use bevy_ecs_tilemap::prelude::*;
use tilewalk_path::{Board, HexLayout, Pos};

/// The side of a square tile, and the width of a pointy-top hex (the height of a flat-top
/// one), in world units: one atlas tile is 32 pixels across.
pub const TILE_SIZE: f32 = 32.0;
/// The long side of a hex tile image: a regular hexagon 32 across its flats is 36.95 across
/// its corners.
pub const HEX_LONG: f32 = 37.0;

/// Where a map's cells are in the world: its board shape and size.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Geometry {
    pub board: Board,
    pub width: u32,
    pub height: u32,
    /// Moves bevy_ecs_tilemap's layout (the bottom-left tile's centre at the origin) so that
    /// the map's bottom-left corner is there instead.
    offset: Vec2,
}

impl Geometry {
    pub fn new(board: Board, width: u32, height: u32) -> Self {
        let mut geometry = Self {
            board,
            width,
            height,
            offset: Vec2::ZERO,
        };
        // The lowest and leftmost tile edges lie in the first two rows and columns (a shifted
        // line starts half a tile further).
        let half = Vec2::new(geometry.tile_size().x, geometry.tile_size().y) / 2.0;
        let edges = [(0, 0), (0, 1), (1, 0)]
            .into_iter()
            .filter(|&(x, y)| x < width && y < height)
            .map(|(x, y)| geometry.unanchored(TilePos::new(x, y)) - half);
        geometry.offset = -edges.fold(Vec2::splat(f32::INFINITY), Vec2::min);
        geometry
    }

    /// A tile's centre in bevy_ecs_tilemap's own layout (`TilemapAnchor::None`).
    fn unanchored(&self, tile: TilePos) -> Vec2 {
        tile.center_in_world(
            &self.map_size(),
            &self.grid_size(),
            &self.tile_size(),
            &self.map_type(),
            &TilemapAnchor::None,
        )
    }

    /// Where the tilemap entity goes (its tiles laid out with `TilemapAnchor::None`) so that
    /// the map's bottom-left corner is at the origin.
    pub fn offset(&self) -> Vec2 {
        self.offset
    }

    /// The tilemap type that draws this board, file rows flipped to tilemap rows.
    pub fn map_type(&self) -> TilemapType {
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
        Some(Pos::new(tile.x, self.height - 1 - tile.y))
    }

    /// The world size of the whole map, from the origin (its bottom-left corner).
    pub fn extent(&self) -> Vec2 {
        let (w, h) = (self.width.saturating_sub(1), self.height.saturating_sub(1));
        // The farthest centres lie on the last row and column, and one row or column in
        // (a shifted line reaches half a tile further).
        let corners = [
            Pos::new(w, 0),
            Pos::new(w, h.min(1)),
            Pos::new(w.saturating_sub(1), 0),
            Pos::new(w, h),
            Pos::new(w.saturating_sub(1), h),
            Pos::new(w, h.saturating_sub(1)),
        ];
        let far = corners
            .iter()
            .map(|&p| self.center(p))
            .fold(Vec2::ZERO, Vec2::max);
        let top = self
            .center(Pos::new(0, 0))
            .max(self.center(Pos::new(w.min(1), 0)));
        let tile = Vec2::new(self.tile_size().x, self.tile_size().y) / 2.0;
        far.max(top) + tile
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

#[cfg(test)]
mod tests {
    use super::*;
    use tilewalk_path::Diagonal;

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
}
