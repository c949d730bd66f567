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
use tilewalk_path::Pos;

pub use capture::ScreenshotPath;

pub(super) fn plugin(app: &mut App) {
    app.init_resource::<Cursor>()
        .init_resource::<DragBox>()
        .init_resource::<ShowSearch>()
        .init_resource::<Notice>()
        .add_plugins((
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

/// Where the pointer is, in the world and on the map.
#[derive(Resource, Default, Debug)]
pub struct Cursor {
    pub world: Option<Vec2>,
    pub tile: Option<Pos>,
}

/// A left-button drag under way, from where it started (world coordinates).
#[derive(Resource, Default, Debug)]
pub struct DragBox {
    pub start: Option<Vec2>,
    pub dragging: bool,
}

/// Whether the last search's expanded cells are drawn.
#[derive(Resource, Default, Debug)]
pub struct ShowSearch(pub bool);

/// How long a notice stays on screen.
pub(super) const NOTICE_SECS: f32 = 5.0;

/// A short message for the player (why an order was refused, what to do next).
#[derive(Resource, Default, Debug)]
pub struct Notice {
    pub(super) text: String,
    pub(super) shown_for: f32,
    pub(super) hint: String,
}

impl Notice {
    pub fn say(&mut self, text: impl Into<String>) {
        self.text = text.into();
        self.shown_for = 0.0;
    }

    /// A line about what is under the cursor, shown for this frame only.
    pub fn hint(&mut self, text: impl Into<String>) {
        self.hint = text.into();
    }
}
