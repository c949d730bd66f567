//! The one place where core grid cells meet Bevy's world and tilemap coordinates.
//!
//! Grid cells count rows from the top (`y = 0` is the first row of a map file, as in Moving
//! AI); Bevy's world and bevy_ecs_tilemap's `TilePos` count up from the bottom.

use bevy::prelude::*;
use tilewalk_path::Pos;

/// The side of a tile in world units (one atlas tile is 32 pixels).
pub const TILE_SIZE: f32 = 32.0;

/// The world position of a cell's centre, with the map's bottom-left corner at the origin.
pub fn cell_center(pos: Pos, map_height: u32) -> Vec2 {
    Vec2::new(
        (pos.x as f32 + 0.5) * TILE_SIZE,
        ((map_height - 1 - pos.y) as f32 + 0.5) * TILE_SIZE,
    )
}

/// The cell under a world position, if it lies on the map.
pub fn world_to_cell(world: Vec2, map_width: u32, map_height: u32) -> Option<Pos> {
    let x = (world.x / TILE_SIZE).floor();
    let row_from_bottom = (world.y / TILE_SIZE).floor();
    if x < 0.0
        || row_from_bottom < 0.0
        || x >= map_width as f32
        || row_from_bottom >= map_height as f32
    {
        return None;
    }
    Some(Pos::new(x as u32, map_height - 1 - row_from_bottom as u32))
}

/// The bevy_ecs_tilemap position of a cell.
pub fn tile_pos(pos: Pos, map_height: u32) -> bevy_ecs_tilemap::prelude::TilePos {
    bevy_ecs_tilemap::prelude::TilePos::new(pos.x, map_height - 1 - pos.y)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn centres_and_clicks_round_trip() {
        let pos = Pos::new(3, 1);
        let centre = cell_center(pos, 5);
        assert_eq!(centre, Vec2::new(3.5 * TILE_SIZE, 3.5 * TILE_SIZE));
        assert_eq!(
            world_to_cell(centre + Vec2::splat(TILE_SIZE * 0.49), 6, 5),
            Some(pos)
        );
        assert_eq!(world_to_cell(Vec2::new(-1.0, 10.0), 6, 5), None);
        assert_eq!(world_to_cell(Vec2::new(10.0, 5.0 * TILE_SIZE), 6, 5), None);
    }
}
