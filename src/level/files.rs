//! The level's files: the map and the terrain table loaded through the asset server, the
//! level rebuilt (and diffed) whenever either changes, the units spawned the first time.

use bevy::asset::AssetPath;
use bevy::prelude::*;

use super::{Level, LevelChanged, spawn_units, stranded_units};
use crate::AppSystems;
use crate::assets::{
    AssetFileError, FileErrors, MAP_SOURCE, MapFile, TextLoader, Tracks, report_failed_loads,
    touches,
};
use crate::map::{MapAsset, TmxLoader};
use crate::terrain::TerrainTable;

#[derive(Resource)]
struct LevelHandles {
    map: Handle<MapAsset>,
    terrain: Handle<TerrainTable>,
}

impl Tracks<MapAsset> for LevelHandles {
    fn tracks(&self, id: AssetId<MapAsset>) -> bool {
        id == self.map.id()
    }
}

impl Tracks<TerrainTable> for LevelHandles {
    fn tracks(&self, id: AssetId<TerrainTable>) -> bool {
        id == self.terrain.id()
    }
}

/// Loads the level from files through the asset server and keeps it in sync with them.
/// Needs `AssetPlugin`, a [`MapFile`] resource and
/// [`register_map_source`](crate::assets::register_map_source).
pub fn plugin(app: &mut App) {
    app.init_resource::<FileErrors>()
        .init_asset::<MapAsset>()
        .init_asset::<TerrainTable>()
        .init_asset_loader::<TextLoader<MapAsset>>()
        .init_asset_loader::<TmxLoader>()
        .init_asset_loader::<TextLoader<TerrainTable>>()
        .add_systems(Startup, load_level_files)
        .add_systems(
            Update,
            (
                report_failed_loads::<MapAsset, LevelHandles>,
                report_failed_loads::<TerrainTable, LevelHandles>,
                rebuild_level,
            )
                .chain()
                .in_set(AppSystems::Load),
        );
}

fn load_level_files(mut commands: Commands, server: Res<AssetServer>, map: Res<MapFile>) {
    let name = map
        .0
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    commands.insert_resource(LevelHandles {
        map: server.load(AssetPath::from(name).with_source(MAP_SOURCE)),
        terrain: server.load("terrain.ron"),
    });
}

/// Rebuilds the level when the map or the terrain table (re)loads; spawns the map's units
/// the first time. A map that does not fit the table is reported and the old level stays.
fn rebuild_level(
    mut commands: Commands,
    mut map_events: MessageReader<AssetEvent<MapAsset>>,
    mut terrain_events: MessageReader<AssetEvent<TerrainTable>>,
    handles: Option<Res<LevelHandles>>,
    maps: Res<Assets<MapAsset>>,
    tables: Res<Assets<TerrainTable>>,
    level: Option<ResMut<Level>>,
    mut errors: ResMut<FileErrors>,
    mut changed: MessageWriter<LevelChanged>,
    map_file: Res<MapFile>,
) {
    let Some(handles) = handles else { return };
    let map_touched = map_events
        .read()
        .fold(false, |any, e| any | touches(e, handles.map.id()));
    let terrain_touched = terrain_events
        .read()
        .fold(false, |any, e| any | touches(e, handles.terrain.id()));
    if !map_touched && !terrain_touched {
        return;
    }
    let (Some(map), Some(table)) = (maps.get(&handles.map), tables.get(&handles.terrain)) else {
        return;
    };
    // A file that loaded is no longer in error.
    let map_name = map_file.0.display().to_string();
    errors.0.retain(|file, _| {
        !(map_touched && *file == map_name || terrain_touched && file.ends_with("terrain.ron"))
    });
    let built = match Level::build(map, table) {
        Ok(built) => built,
        Err(error) => {
            let message = AssetFileError::in_file(&map_file.0, error).to_string();
            warn!("{message} (keeping the last good level)");
            errors.0.insert(map_file.0.display().to_string(), message);
            return;
        }
    };
    match level {
        Some(mut level) => {
            let change = level.replace(built);
            info!("level reloaded: {} cells changed", change.cells.len());
            changed.write(change);
        }
        None => {
            for warning in stranded_units(map, &built) {
                warn!("{}", AssetFileError::in_file(&map_file.0, warning));
            }
            spawn_units(&mut commands, map, &built);
            commands.insert_resource(built);
        }
    }
}
