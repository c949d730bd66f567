//! The level's files: the map and the terrain table loaded through the asset server, the
//! level rebuilt (and diffed) whenever either changes, the units spawned the first time;
//! the map painted in the game ([`EditMap`]), or a Tiled or LDtk map's tile kinds given
//! terrains, undone, and saved back to its files.

use std::collections::{BTreeMap, HashSet};
use std::path::PathBuf;

use bevy::asset::AssetPath;
use bevy::prelude::*;
use bevy_tilewalk::{MovementClass, Navigation, NavigationChanged, Path, Unit};
use tilewalk_path::Pos;

use super::{Level, LevelChanged, spawn_units, warnings};
use crate::AppSystems;
use crate::assets::{
    AssetFileError, FileErrors, MAP_SOURCE, MapFile, MapLevel, MapSource, TextLoader, Tracks,
    report_failed_loads, touches,
};
use crate::map::assign::{Texts, save_texts};
use crate::map::tmx::{KindBefore, TileKindId, TiledMap};
use crate::map::{LdtkLoader, MapAsset, TmxLoader, repaint, write_atomically};
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
/// [`register_map_source`](crate::map::register_map_source); an LDtk project's level is
/// the [`MapLevel`] resource inserted before this plugin (else its first).
pub fn plugin(app: &mut App) {
    let level = app
        .world()
        .get_resource::<MapLevel>()
        .and_then(|l| l.0.clone());
    app.init_resource::<FileErrors>()
        .init_asset::<MapAsset>()
        .init_asset::<TerrainTable>()
        .init_asset_loader::<TextLoader<MapAsset>>()
        .init_asset_loader::<TmxLoader>()
        .register_asset_loader(LdtkLoader { level })
        .init_asset_loader::<TextLoader<TerrainTable>>()
        .init_resource::<MapHistory>()
        .add_message::<EditMap>()
        .add_message::<MapEdited>()
        .add_message::<RestartLevel>()
        .add_message::<Reloaded>()
        .add_systems(Startup, load_level_files)
        .add_systems(
            Update,
            (
                edit_map,
                report_failed_loads::<MapAsset, LevelHandles>,
                report_failed_loads::<TerrainTable, LevelHandles>,
                rebuild_level,
                restart_level.run_if(resource_exists::<Level>),
            )
                .chain()
                .in_set(AppSystems::Load),
        );
}

/// Starts the map afresh: every unit as the map places it (and, in the tactics plugin, blue's
/// turn 1).
#[derive(Message, Clone, Copy, Debug, Default)]
pub struct RestartLevel;

fn restart_level(
    mut commands: Commands,
    mut restarts: MessageReader<RestartLevel>,
    handles: Option<Res<LevelHandles>>,
    maps: Res<Assets<MapAsset>>,
    level: Res<Level>,
    units: Query<Entity, With<Unit>>,
) {
    if restarts.read().count() == 0 {
        return;
    }
    let Some(map) = handles.and_then(|h| maps.get(&h.map)) else {
        return;
    };
    for unit in &units {
        commands.entity(unit).despawn();
    }
    spawn_units(&mut commands, map, &level);
    info!("the map starts afresh");
}

fn load_level_files(
    mut commands: Commands,
    server: Res<AssetServer>,
    map: Res<MapFile>,
    source: Option<Res<MapSource>>,
) {
    // The map's path in the map source: its name when the source is its folder.
    let path = match source {
        Some(source) => source.map.clone(),
        None => map.0.file_name().map(PathBuf::from).unwrap_or_default(),
    };
    commands.insert_resource(LevelHandles {
        map: server.load(AssetPath::from(path).with_source(MAP_SOURCE)),
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
    nav: Option<ResMut<Navigation>>,
    mut errors: ResMut<FileErrors>,
    mut changed: MessageWriter<LevelChanged>,
    mut costs_changed: MessageWriter<NavigationChanged>,
    mut units: Query<(&mut MovementClass, Option<&Path>), With<Unit>>,
    map_file: Res<MapFile>,
    mut reloaded: MessageWriter<Reloaded>,
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
    let (built, built_nav) = match Level::build(map, table) {
        Ok(built) => built,
        Err(error) => {
            let message = AssetFileError::in_file(&map_file.0, error).to_string();
            warn!("{message} (keeping the last good level)");
            errors.0.insert(map_file.0.display().to_string(), message);
            return;
        }
    };
    match (level, nav) {
        (Some(mut level), Some(mut nav)) => {
            for warning in warnings(map, &built, &built_nav) {
                warn!("{}", AssetFileError::in_file(&map_file.0, warning));
            }
            let renamed = level.renamed_classes(&built);
            for (mut class, _) in &mut units {
                if let Some(new) = renamed(*class)
                    && new != *class
                {
                    *class = new;
                }
            }
            let costs = nav.replace(built_nav);
            let change = level.replace(built, &costs);
            info!("level reloaded: {} cells changed", change.cells.len());
            // The paths the plugin plans again: those across a changed tile, and every path
            // of a class that got cheaper somewhere.
            let cells: HashSet<Pos> = costs.cells.iter().copied().collect();
            let replanned = units
                .iter()
                .filter_map(|(class, path)| Some((class, path?)))
                .filter(|(class, path)| {
                    costs.cheaper.contains(*class)
                        || path.remaining().iter().any(|p| cells.contains(p))
                })
                .count();
            let mut files = Vec::new();
            if map_touched {
                files.push(map_file.0.file_name().map_or_else(
                    || map_file.0.display().to_string(),
                    |n| n.to_string_lossy().into_owned(),
                ));
            }
            if terrain_touched {
                files.push("terrain.ron".to_owned());
            }
            let message = Reloaded {
                files: files.join(" and "),
                replanned,
            };
            info!("{message}");
            reloaded.write(message);
            changed.write(change);
            costs_changed.write(costs);
        }
        _ => {
            for warning in warnings(map, &built, &built_nav) {
                warn!("{}", AssetFileError::in_file(&map_file.0, warning));
            }
            spawn_units(&mut commands, map, &built);
            commands.insert_resource(built);
            commands.insert_resource(built_nav);
        }
    }
}

/// The map or the terrain table was saved and the level rebuilt from it: what the player is
/// told (`terrain.ron reloaded: 3 paths re-planned`).
#[derive(Message, Clone, Debug, PartialEq)]
pub struct Reloaded {
    /// The files reloaded, by name (`terrain.ron`, `meadow.map and terrain.ron`).
    pub files: String,
    /// The walking units' paths planned again: those across a tile whose cost changed, and
    /// those of a class that got cheaper somewhere.
    pub replanned: usize,
}

impl std::fmt::Display for Reloaded {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let paths = match self.replanned {
            1 => "path",
            _ => "paths",
        };
        write!(
            f,
            "{} reloaded: {} {paths} re-planned",
            self.files, self.replanned
        )
    }
}

/// An edit of the map being played, as a designer makes it in the game. Painted cells and
/// assigned tile kinds change the map in memory, and the level is rebuilt and paths
/// re-planned as on a hot reload; `Save` writes them back where they came from.
#[derive(Message, Clone, Debug, PartialEq)]
pub enum EditMap {
    /// Paints `cells` with the terrain `glyph`. `stroke` starts a new stroke (one undo
    /// step); otherwise the cells join the last stroke, as a drag paints them frame by frame.
    Paint {
        cells: Vec<Pos>,
        glyph: char,
        stroke: bool,
    },
    /// Gives every cell drawn with a tile kind of a Tiled or LDtk map the terrain named
    /// `terrain` (of the terrain table): the tile's Class, the IntGrid value's identifier.
    Assign { kind: TileKindId, terrain: String },
    /// Takes back the last stroke or assignment.
    Undo,
    /// Writes the map back: a map file atomically, keeping every byte but the painted
    /// glyphs (comments, the units section, line endings); a Tiled or LDtk map's assigned
    /// tile kinds into the files that keep them ([`crate::map::assign::ClassHome`]), every
    /// other byte kept.
    Save,
}

/// What an [`EditMap`] did, for the player: `Ok` says what happened, `Err` why nothing did.
#[derive(Message, Clone, Debug, PartialEq)]
pub struct MapEdited(pub Result<String, String>);

/// One undo step.
#[derive(Debug)]
enum Step {
    /// The cells of a stroke with their glyphs before it.
    Stroke(Vec<(Pos, char)>),
    /// A tile kind given a terrain, as it was before.
    Assign(TileKindId, KindBefore),
}

/// The strokes painted and tile kinds assigned since the map loaded, for undo. `unsaved`
/// says whether the map in memory differs from its files.
#[derive(Resource, Default, Debug)]
pub struct MapHistory {
    steps: Vec<Step>,
    pub unsaved: bool,
    /// After a save, until the file watcher has reloaded the saved file: the glyphs painted
    /// since (undo included), to paint again over the reload, which would drop them.
    since_save: Option<Vec<(Pos, char)>>,
    /// The tile kinds assigned or undone since the last save, with the Class each has now:
    /// what a save writes, and what a reload of the files (which lack it) gets again.
    assigned: BTreeMap<TileKindId, Option<String>>,
}

impl MapHistory {
    fn painted(&mut self, pos: Pos, glyph: char) {
        if let Some(since) = &mut self.since_save {
            since.push((pos, glyph));
        }
    }
}

fn edit_map(
    mut edits: MessageReader<EditMap>,
    mut map_events: MessageReader<AssetEvent<MapAsset>>,
    handles: Option<Res<LevelHandles>>,
    mut maps: ResMut<Assets<MapAsset>>,
    map_file: Res<MapFile>,
    level: Option<Res<super::Level>>,
    mut history: ResMut<MapHistory>,
    mut reports: MessageWriter<MapEdited>,
) {
    let Some(handles) = handles else { return };
    let modified = map_events
        .read()
        .any(|e| matches!(e, AssetEvent::Modified { id } if *id == handles.map.id()));
    if modified {
        repaint_after_reload(&mut maps, &handles.map, &mut history);
        assign_after_reload(&mut maps, &handles.map, &history);
    }
    for edit in edits.read() {
        let report = match edit {
            EditMap::Paint {
                cells,
                glyph,
                stroke,
            } => paint(
                &mut maps,
                &handles.map,
                cells,
                *glyph,
                *stroke,
                &mut history,
            ),
            EditMap::Assign { kind, terrain } => match &level {
                Some(level) if !level.terrain_names.contains(terrain) => Some(Err(format!(
                    "cannot assign: `{terrain}` is no terrain of the terrain table ({})",
                    level.terrain_names.join(", ")
                ))),
                _ => assign(&mut maps, &handles.map, *kind, terrain, &mut history),
            },
            EditMap::Undo => undo(&mut maps, &handles.map, &mut history),
            EditMap::Save => save(&maps, &handles.map, &map_file.0, &mut history),
        };
        if let Some(report) = report {
            reports.write(MapEdited(report));
        }
    }
}

/// Paints the cells whose glyph differs (a map untouched by the stroke is not rebuilt).
/// Says nothing unless it fails.
fn paint(
    maps: &mut Assets<MapAsset>,
    handle: &Handle<MapAsset>,
    cells: &[Pos],
    glyph: char,
    stroke: bool,
    history: &mut MapHistory,
) -> Option<Result<String, String>> {
    if stroke || !matches!(history.steps.last(), Some(Step::Stroke(_))) {
        history.steps.push(Step::Stroke(Vec::new()));
    }
    let map = maps.get(handle)?;
    let changed: Vec<Pos> = cells
        .iter()
        .copied()
        .filter(|&p| map.glyph(p).is_some_and(|g| g != glyph))
        .collect();
    if let Some(error) = cells.iter().find_map(|&p| map.paintable(p).err()) {
        return Some(Err(format!("cannot paint: {error}")));
    }
    if changed.is_empty() {
        return None;
    }
    let mut map = maps.get_mut(handle)?;
    let Some(Step::Stroke(stroke)) = history.steps.last_mut() else {
        return None;
    };
    for &pos in &changed {
        if let Ok(old) = map.paint(pos, glyph) {
            stroke.push((pos, old));
        }
    }
    for pos in changed {
        history.painted(pos, glyph);
    }
    history.unsaved = true;
    None
}

/// Gives a tile kind a terrain of the table: says how many cells took it, or why not.
fn assign(
    maps: &mut Assets<MapAsset>,
    handle: &Handle<MapAsset>,
    kind: TileKindId,
    terrain: &str,
    history: &mut MapHistory,
) -> Option<Result<String, String>> {
    let map = maps.get(handle)?;
    let Some(tiles) = &map.tiles else {
        return Some(Err(
            "a map file's cells are painted, not assigned by tile kind (P paints)".to_owned(),
        ));
    };
    let name = tiles.kind_name(kind);
    let cells = tiles.cells_of(kind).len();
    if tiles.class(kind) == Some(terrain) {
        let is = verb(kind, "is", "are");
        return Some(Ok(format!("{name} {is} {terrain} already")));
    }
    let mut map = maps.get_mut(handle)?;
    let tiles = map.tiles.as_mut()?;
    Some(match tiles.assign(kind, terrain) {
        Ok(before) => {
            history.steps.push(Step::Assign(kind, before));
            history.assigned.insert(kind, Some(terrain.to_owned()));
            history.unsaved = true;
            let is = verb(kind, "is", "are");
            // The level's `default_terrain` names every cell nothing else names.
            let also = if kind == TileKindId::NO_VALUE {
                ", and those of IntGrid values that name no terrain"
            } else {
                ""
            };
            Ok(format!("{name} {is} {terrain}: {cells} cells{also}"))
        }
        Err(why) => Err(format!("cannot assign: {why}")),
    })
}

/// A verb whose subject is `kind`'s name: a tile kind is one, the cells without an IntGrid
/// value are many.
fn verb(kind: TileKindId, one: &'static str, many: &'static str) -> &'static str {
    if kind == TileKindId::NO_VALUE {
        many
    } else {
        one
    }
}

/// A map modified while tile kinds assigned since the last save are not in its files (a
/// reload): they are given their terrain again. Our own edits change nothing here.
fn assign_after_reload(
    maps: &mut Assets<MapAsset>,
    handle: &Handle<MapAsset>,
    history: &MapHistory,
) {
    let Some(tiles) = maps.get(handle).and_then(|m| m.tiles.as_ref()) else {
        return;
    };
    let lost: Vec<(TileKindId, &str)> = history
        .assigned
        .iter()
        .filter_map(|(&kind, class)| Some((kind, class.as_deref()?)))
        .filter(|&(kind, class)| tiles.class(kind) != Some(class))
        .collect();
    if lost.is_empty() {
        return;
    }
    let Some(mut map) = maps.get_mut(handle) else {
        return;
    };
    let Some(tiles) = map.tiles.as_mut() else {
        return;
    };
    for (kind, class) in lost {
        let _ = tiles.assign(kind, class);
    }
}

/// A map modified while a save's reload is due: if it no longer shows what was painted
/// since the save, it is the reload of the saved file, and those glyphs go back on.
fn repaint_after_reload(
    maps: &mut Assets<MapAsset>,
    handle: &Handle<MapAsset>,
    history: &mut MapHistory,
) {
    let Some(since) = &history.since_save else {
        return;
    };
    let Some(map) = maps.get(handle) else { return };
    // The last glyph painted on each cell is the one it must show.
    let mut last = std::collections::BTreeMap::new();
    last.extend(since.iter().copied());
    if last
        .iter()
        .all(|(&pos, &glyph)| map.glyph(pos) == Some(glyph))
        && !since.is_empty()
    {
        // Our own edit's event: the reload is still to come.
        return;
    }
    if let Some(mut map) = maps.get_mut(handle).filter(|_| !last.is_empty()) {
        for (pos, glyph) in last {
            let _ = map.paint(pos, glyph);
        }
    }
    history.since_save = None;
}

fn undo(
    maps: &mut Assets<MapAsset>,
    handle: &Handle<MapAsset>,
    history: &mut MapHistory,
) -> Option<Result<String, String>> {
    // Strokes that changed nothing are no undo step.
    while matches!(history.steps.last(), Some(Step::Stroke(s)) if s.is_empty()) {
        history.steps.pop();
    }
    let Some(step) = history.steps.pop() else {
        return Some(Err("nothing to undo".to_owned()));
    };
    let mut map = maps.get_mut(handle)?;
    history.unsaved = true;
    match step {
        Step::Stroke(stroke) => {
            for &(pos, glyph) in stroke.iter().rev() {
                // A map reloaded smaller from its file since may have lost the cell.
                if map.paint(pos, glyph).is_ok() {
                    history.painted(pos, glyph);
                }
            }
            Some(Ok(format!("undid a stroke of {} tiles", stroke.len())))
        }
        Step::Assign(kind, before) => {
            let tiles = map.tiles.as_mut()?;
            tiles.restore(kind, before);
            let class = tiles.class(kind).map(str::to_owned);
            let name = tiles.kind_name(kind);
            let now = match &class {
                Some(class) => format!("{name} {} {class} again", verb(kind, "is", "are")),
                None if kind == TileKindId::NO_VALUE => format!("{name} have no terrain again"),
                None => format!("{name} has no Class again"),
            };
            history.assigned.insert(kind, class);
            Some(Ok(format!("undone: {now}")))
        }
    }
}

fn save(
    maps: &Assets<MapAsset>,
    handle: &Handle<MapAsset>,
    file: &std::path::Path,
    history: &mut MapHistory,
) -> Option<Result<String, String>> {
    let map = maps.get(handle)?;
    if let Some(tiles) = &map.tiles {
        return Some(save_assigned(tiles, file, history));
    }
    let saved = crate::assets::read_file(file)
        .map_err(|e| e.to_string())
        .and_then(|text| repaint(&text, map).map_err(|e| format!("{}: {e}", file.display())))
        .and_then(|text| {
            write_atomically(file, &text).map_err(|e| format!("{}: {e}", file.display()))
        });
    Some(match saved {
        Ok(()) => {
            history.unsaved = false;
            history.since_save = Some(Vec::new());
            // Where on disk, whatever folder the game was started from.
            let at = std::path::absolute(file).unwrap_or_else(|_| file.to_owned());
            Ok(format!("saved {}", at.display()))
        }
        Err(error) => Err(format!("not saved: {error}")),
    })
}

/// Writes the Class of every tile kind assigned (or undone) since the last save into the
/// files that keep it, each file read and written once. A kind whose file fails stays for
/// the next save.
fn save_assigned(
    tiles: &TiledMap,
    map_file: &std::path::Path,
    history: &mut MapHistory,
) -> Result<String, String> {
    if history.assigned.is_empty() {
        return Err(
            "nothing to save: give a tile kind a terrain first (P, then a tile and a terrain)"
                .to_owned(),
        );
    }
    // Every file's new text first (a file read once however many kinds it keeps), then
    // each file saved; a kind whose text or file fails stays for the next save.
    let mut texts = Texts::new();
    let mut written: Vec<(TileKindId, Vec<PathBuf>)> = Vec::new();
    let mut failed = Vec::new();
    for &kind in history.assigned.keys() {
        let Some(home) = tiles.class_home(map_file, kind) else {
            return Err(format!(
                "not saved: {} keeps no terrain in a file",
                tiles.kind_name(kind)
            ));
        };
        match home.write_into(&mut texts, tiles.class(kind)) {
            Ok(files) => written.push((kind, files)),
            Err(error) => failed.push(error.to_string()),
        }
    }
    let mut saved = Vec::new();
    let mut lost = Vec::new();
    for (file, result) in save_texts(&texts) {
        match result {
            Ok(()) => {
                let at = std::path::absolute(&file).unwrap_or(file);
                saved.push(at.display().to_string());
            }
            Err(error) => {
                failed.push(error.to_string());
                lost.push(file);
            }
        }
    }
    for (kind, files) in written {
        if !files.iter().any(|f| lost.contains(f)) {
            history.assigned.remove(&kind);
        }
    }
    history.unsaved = !history.assigned.is_empty();
    if failed.is_empty() {
        Ok(format!("saved {}", saved.join(", ")))
    } else if saved.is_empty() {
        Err(format!("not saved: {}", failed.join("; ")))
    } else {
        Err(format!(
            "saved {}; not saved: {}",
            saved.join(", "),
            failed.join("; ")
        ))
    }
}
