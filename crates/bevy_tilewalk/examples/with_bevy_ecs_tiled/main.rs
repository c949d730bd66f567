//! bevy_tilewalk on a map that bevy_ecs_tiled loads and draws, as its users already do
//! (`TiledPlugin`, a `TiledMap` entity): when the map has spawned, the example reads the
//! `tiled::Map` bevy_ecs_tiled loaded into the plugin's `Navigation` (each tile's Class names a
//! terrain; numeric tile properties named after a movement class override its cost) and
//! spawns the units of the map's object layer. Left-click a unit to select it, right-click a
//! tile to send it there: the knight fords the river, the lancer's horse only where the ford's
//! own cost lets it, the griffin flies over the thicket. The map is the crate's
//! `assets/tiled/square.tmx`; edit it in Tiled while the example runs and the navigation
//! follows.
//!
//! `cargo run --example with_bevy_ecs_tiled` (from the repository's root)

#[path = "../interop/terrain.rs"]
mod terrain;
#[path = "../interop/window.rs"]
mod window;

mod navigation;

use bevy::prelude::*;
use bevy_ecs_tiled::prelude::*;
use bevy_tilewalk::prelude::*;

use window::{Cells, InteropWindowPlugin, Start};

fn main() {
    App::new()
        .add_plugins((
            DefaultPlugins.set(ImagePlugin::default_nearest()),
            TiledPlugin::default(),
            TilewalkPlugin::default(),
            InteropWindowPlugin,
        ))
        .add_systems(Startup, spawn_map)
        .run();
}

fn spawn_map(mut commands: Commands, server: Res<AssetServer>) {
    commands
        .spawn((
            TiledMap(server.load("tiled/square.tmx")),
            TilemapAnchor::Center,
        ))
        .observe(map_created);
}

/// Once bevy_ecs_tiled has spawned the map, and again after each reload, its data becomes the
/// navigation.
fn map_created(
    created: On<TiledEvent<MapCreated>>,
    maps: Res<Assets<TiledMapAsset>>,
    transforms: Query<&Transform, Without<Camera2d>>,
    mut start: Start,
) {
    let Some(asset) = created.event().get_map_asset(&maps) else {
        return;
    };
    let map = match navigation::navigation(&asset.map) {
        Ok(map) => map,
        Err(error) => {
            error!("{error}");
            return;
        }
    };
    // Where bevy_ecs_tiled draws tile (0, 0), anchored as the map entity says.
    let grid_size = grid_size_from_map(&asset.map);
    let origin = TilePos::new(0, 0).center_in_world(
        &asset.tilemap_size,
        &grid_size,
        &asset.largest_tile_size,
        &tilemap_type_from_map(&asset.map),
        &TilemapAnchor::Center,
    );
    let shift = transforms
        .get(created.event().origin)
        .map_or(Vec2::ZERO, |t| t.translation.truncate());
    let cells = Cells {
        origin: origin + shift,
        step: map.cell_size,
        width: asset.tilemap_size.x,
        height: asset.tilemap_size.y,
    };
    start.map(map, cells);
}
