//! The level: the map's terrain under the current terrain table, with one cost grid per
//! movement class, rebuilt (and diffed) whenever either file changes.

use std::collections::BTreeMap;
use std::path::PathBuf;

use bevy::asset::io::AssetSourceBuilder;
use bevy::asset::{AssetLoadError, AssetLoadFailedEvent, AssetPath};
use bevy::prelude::*;
use tilewalk_path::formats::ParseError;
use tilewalk_path::{Grid, Pos};

use crate::map::{MapAsset, MapLoader};
use crate::terrain::{MovementClass, Terrain, TerrainLoader, TerrainTable};
use crate::{AppSystems, AssetFileError};

/// The terrain of every cell and what it costs each movement class.
#[derive(Resource, Clone, Debug)]
pub struct Level {
    pub width: u32,
    pub height: u32,
    pub table: TerrainTable,
    terrain: Vec<usize>,
    grids: [Grid; 3],
}

impl Level {
    /// Combines a map with a terrain table; fails on a glyph the table does not know.
    pub fn build(map: &MapAsset, table: &TerrainTable) -> Result<Self, ParseError> {
        let terrain = map.terrain(table)?;
        let grid = |class| {
            Grid::from_fn(map.width, map.height, |p| {
                table.terrains[terrain[(p.y * map.width + p.x) as usize]].cost(class)
            })
            .map_err(|e| ParseError::new(1, 1, e.to_string()))
        };
        Ok(Self {
            width: map.width,
            height: map.height,
            table: table.clone(),
            grids: [
                grid(MovementClass::Foot)?,
                grid(MovementClass::Horse)?,
                grid(MovementClass::Flyer)?,
            ],
            terrain,
        })
    }

    /// The cost grid searches use for a movement class.
    pub fn grid(&self, class: MovementClass) -> &Grid {
        &self.grids[class as usize]
    }

    pub fn contains(&self, pos: Pos) -> bool {
        pos.x < self.width && pos.y < self.height
    }

    pub fn terrain(&self, pos: Pos) -> Option<&Terrain> {
        self.contains(pos)
            .then(|| &self.table.terrains[self.terrain[(pos.y * self.width + pos.x) as usize]])
    }

    /// Every cell, row by row.
    pub fn cells(&self) -> impl Iterator<Item = Pos> + '_ {
        (0..self.height).flat_map(|y| (0..self.width).map(move |x| Pos::new(x, y)))
    }

    /// The cells whose terrain or cost for some class differs in `new`.
    pub fn changed_cells(&self, new: &Level) -> Vec<Pos> {
        if (self.width, self.height) != (new.width, new.height) {
            return new.cells().collect();
        }
        self.cells()
            .filter(|&p| {
                self.terrain(p).map(|t| t.tile) != new.terrain(p).map(|t| t.tile)
                    || MovementClass::ALL
                        .iter()
                        .any(|&c| self.grid(c).cost(p) != new.grid(c).cost(p))
            })
            .collect()
    }
}

/// The level was rebuilt after a file changed: which cells changed (all of them on a resize).
#[derive(Message, Clone, Debug)]
pub struct LevelChanged {
    pub cells: Vec<Pos>,
}

/// The latest problem with each file, `file:line:col: message`; cleared when the file loads.
#[derive(Resource, Default, Debug)]
pub struct FileErrors(pub BTreeMap<String, String>);

pub(super) fn plugin(app: &mut App) {
    app.add_message::<LevelChanged>();
    app.init_resource::<FileErrors>();
}

/// Where the map being played lives; the terrain table is `assets/terrain.ron`.
#[derive(Resource, Clone, Debug)]
pub struct MapFile(pub PathBuf);

/// The asset source that serves the map's folder, so any map file can be played and hot-reloaded.
const MAP_SOURCE: &str = "map";

/// Registers the map's folder as an asset source. Must run before `AssetPlugin` is added.
pub fn register_map_source(app: &mut App, map: &std::path::Path) {
    let folder = map.parent().map(PathBuf::from).unwrap_or_default();
    app.register_asset_source(
        MAP_SOURCE,
        AssetSourceBuilder::platform_default(&folder.to_string_lossy(), None),
    );
}

#[derive(Resource)]
struct LevelHandles {
    map: Handle<MapAsset>,
    terrain: Handle<TerrainTable>,
}

/// Loads the level from files through the asset server and keeps it in sync with them.
/// Needs `AssetPlugin`, a [`MapFile`] resource and [`register_map_source`].
pub fn assets_plugin(app: &mut App) {
    app.init_asset::<MapAsset>()
        .init_asset::<TerrainTable>()
        .init_asset_loader::<MapLoader>()
        .init_asset_loader::<TerrainLoader>()
        .add_systems(Startup, load_level_files)
        .add_systems(
            Update,
            (
                report_failed_loads::<MapAsset>,
                report_failed_loads::<TerrainTable>,
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

fn report_failed_loads<A: Asset>(
    mut failures: MessageReader<AssetLoadFailedEvent<A>>,
    mut errors: ResMut<FileErrors>,
    map_file: Res<MapFile>,
) {
    for failure in failures.read() {
        // Name the file as the player knows it, not as the asset server does.
        let file = match failure.path.source().as_str() {
            Some(MAP_SOURCE) => map_file.0.clone(),
            _ => PathBuf::from("assets").join(failure.path.path()),
        };
        let message = match &failure.error {
            AssetLoadError::AssetLoaderError(e) => match e.error().downcast_ref::<AssetFileError>()
            {
                Some(AssetFileError::Parse { error, .. }) => {
                    AssetFileError::in_file(&file, error.clone()).to_string()
                }
                _ => format!("{}: {}", file.display(), e.error()),
            },
            other => format!("{}: {other}", file.display()),
        };
        warn!("{message} (keeping the last good version)");
        errors
            .0
            .insert(file.display().to_string(), message.trim_end().to_owned());
    }
}

/// Whether an asset event means new content for `id`.
fn touches<A: Asset>(event: &AssetEvent<A>, id: AssetId<A>) -> bool {
    matches!(event, AssetEvent::LoadedWithDependencies { id: i } | AssetEvent::Modified { id: i } if *i == id)
}

/// Rebuilds the level when the map or the terrain table (re)loads; spawns the map's units
/// the first time. A map that does not fit the table is reported and the old level stays.
#[expect(
    clippy::too_many_arguments,
    reason = "a system: each parameter is one piece of world state"
)]
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
            let cells = level.changed_cells(&built);
            info!("level reloaded: {} cells changed", cells.len());
            *level = built;
            changed.write(LevelChanged { cells });
        }
        None => {
            crate::units::spawn_units(&mut commands, map, &built);
            commands.insert_resource(built);
        }
    }
}
