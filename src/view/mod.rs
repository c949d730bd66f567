//! What the player sees and touches: the tilemap, unit sprites, the camera, input and the
//! HUD. Everything here only reads the simulation or sends it orders.

mod camera;
mod capture;
mod hud;
mod input;
mod sprites;
mod tactics;
mod tilemap;

use bevy::prelude::*;

pub use capture::ScreenshotPath;

pub(super) fn plugin(app: &mut App) {
    app.add_plugins((
        bevy_ecs_tilemap::TilemapPlugin,
        tilemap::plugin,
        sprites::plugin,
        camera::plugin,
        capture::plugin,
        input::plugin,
        hud::plugin,
        tactics::plugin,
    ));
}
