//! Units as the game spawns and draws them: the plugin's unit components (`bevy_tilewalk`'s
//! [`Unit`], [`Team`], [`MovementClass`], [`Tile`]) with a name and a place in the world.

use bevy::prelude::*;
use bevy_tilewalk::{MovementClass, Team, Tile, Unit};
use tilewalk_path::Pos;

/// A unit standing on `tile`, drawn at `translation`. Its name is unique on the map.
pub fn unit(
    name: &str,
    team: Team,
    class: MovementClass,
    tile: Pos,
    translation: Vec3,
) -> impl Bundle {
    (
        Unit,
        Name::new(name.to_owned()),
        team,
        class,
        Tile(tile),
        Transform::from_translation(translation),
        Visibility::default(),
    )
}

/// Units draw above the tilemap and the overlays.
pub const UNIT_Z: f32 = 10.0;
