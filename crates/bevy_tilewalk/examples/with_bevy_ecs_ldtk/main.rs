//! bevy_tilewalk on a level that bevy_ecs_ldtk loads and draws, as its users already do
//! (`LdtkPlugin`, an `LdtkWorldBundle`, a `LevelSelection`): when the level has spawned, the
//! example reads its IntGrid layer into the plugin's `Navigation` (each value's identifier
//! names a terrain) and spawns the level's entities that have a `team` field as units.
//! Left-click a unit to select it, right-click a tile to send it there: riders keep to the
//! road and cross the river by the bridge, the knight wades, the griffin flies over the
//! thicket. The level is the crate's `assets/ldtk/valley.ldtk`; edit it in LDtk while
//! the example runs and the navigation follows.
//!
//! `cargo run --example with_bevy_ecs_ldtk` (from the repository's root)

#[path = "../interop/terrain.rs"]
mod terrain;
#[path = "../interop/window.rs"]
mod window;

mod navigation;

use bevy::prelude::*;
use bevy_ecs_ldtk::prelude::*;
use bevy_tilewalk::prelude::*;

use window::{Cells, InteropWindowPlugin, Start};

fn main() {
    App::new()
        .add_plugins((
            DefaultPlugins.set(ImagePlugin::default_nearest()),
            LdtkPlugin,
            TilewalkPlugin::default(),
            InteropWindowPlugin,
        ))
        .insert_resource(LevelSelection::index(0))
        // The IntGrid layer says what the terrain is; the Tiles layer draws it.
        .insert_resource(LdtkSettings {
            int_grid_rendering: IntGridRendering::Invisible,
            ..default()
        })
        .add_systems(Startup, spawn_project)
        .add_systems(Update, level_spawned)
        .run();
}

fn spawn_project(mut commands: Commands, server: Res<AssetServer>) {
    commands.spawn(LdtkWorldBundle {
        ldtk_handle: server.load("ldtk/valley.ldtk").into(),
        ..default()
    });
}

/// Once bevy_ecs_ldtk has spawned the level and placed it, and again after each reload, its
/// data becomes the navigation.
fn level_spawned(
    mut events: MessageReader<LevelEvent>,
    projects: Res<Assets<LdtkProject>>,
    world: Single<&LdtkProjectHandle>,
    levels: Query<(&LevelIid, &GlobalTransform)>,
    mut start: Start,
) {
    for event in events.read() {
        let LevelEvent::Transformed(iid) = event else {
            continue;
        };
        let Some(project) = projects.get(world.id()) else {
            continue;
        };
        let Some(level) = project.as_standalone().get_loaded_level_by_iid(iid.get()) else {
            continue;
        };
        let map = match navigation::navigation(project.json_data(), level.raw()) {
            Ok(map) => map,
            Err(error) => {
                error!("{error}");
                continue;
            }
        };
        // bevy_ecs_ldtk puts the level's bottom-left corner at its entity's translation.
        let Some((_, placed)) = levels.iter().find(|(i, _)| *i == iid) else {
            continue;
        };
        let cells = Cells {
            origin: placed.translation().truncate() + map.cell_size / 2.0,
            step: map.cell_size,
            width: map.navigation.width(),
            height: map.navigation.height(),
        };
        start.map(map, cells);
    }
}
