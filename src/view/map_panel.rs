//! The map panel: what the map being played lacks (cells without terrain, counted by tile
//! kind; units), named with its file, and how to fix it for that kind of file, the game's
//! terrain mode included. It opens by itself when the map lacks something, stays until
//! closed, and `M` opens and closes it.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use bevy::prelude::*;
use bevy_tilewalk::Unit;

use super::layout::{HudPanel, MinimapSlot, PANEL_BACKGROUND};
use super::paint::Painter;
use super::{TakesClicks, grouped};
use crate::AppSystems;
use crate::assets::{MapFile, MapSource};
use crate::level::Level;
use crate::map::sources::tiled_images;
use crate::map::tmx::{TileKindId, UNNAMED_TERRAIN};
use crate::tactics::Mode;

/// The key that opens and closes the panel.
pub(super) const MAP_PANEL_KEY: KeyCode = KeyCode::KeyM;
/// The most tile kinds without terrain the panel names (the most cells first); the rest are
/// counted together.
const SHOWN_KINDS: usize = 6;
const FONT: f32 = 13.0;

/// The kind of file a map is, which decides the fix the panel gives.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum MapFormat {
    /// A Tiled map (`.tmx`, `.tmj`).
    Tiled,
    /// An LDtk project (`.ldtk`).
    Ldtk,
    /// tilewalk's own text format (`.map`, and any other name).
    Text,
}

impl MapFormat {
    /// The format of the map file `file`, by its extension.
    pub(super) fn of(file: Option<&Path>) -> Self {
        let extension = file
            .and_then(|f| f.extension())
            .and_then(|e| e.to_str())
            .map(str::to_ascii_lowercase);
        match extension.as_deref() {
            Some("tmx" | "tmj") => Self::Tiled,
            Some("ldtk") => Self::Ldtk,
            _ => Self::Text,
        }
    }

    /// How a map of this format gets units.
    pub(super) fn units_fix(self) -> &'static str {
        match self {
            Self::Tiled => {
                "in Tiled, add objects with a string property `team` (blue or red), and `class` (a movement class) as their Class or a property (docs/tiled.md)"
            }
            Self::Ldtk => {
                "in LDtk, add entities with a String field `team` (blue or red), and a `class` field naming a movement class (docs/ldtk.md)"
            }
            Self::Text => {
                "add some to its [units] section, one a line: name team class x,y (e.g. `knight blue foot 3,4`; docs/playing.md)"
            }
        }
    }
}

/// What the panel says about a map.
#[derive(Clone, Debug, Default, PartialEq)]
pub(super) struct MapReport {
    pub text: String,
    /// Whether the map lacks anything to be played (the panel opens by itself).
    pub lacking: bool,
}

/// The panel's text for the level of the map file `file` with `units` units on it and the
/// images `missing` (each with the line and column where the map names it): the file's name
/// and size, the cells without terrain counted by the tile kind drawn on top of them (most
/// cells first), no units, the missing images, and for each the fix in the map's own format.
pub(super) fn report(
    file: Option<&Path>,
    level: &Level,
    units: usize,
    missing: &[(PathBuf, (usize, usize))],
) -> MapReport {
    let format = MapFormat::of(file);
    let name = file.and_then(|f| f.file_name()).map_or_else(
        || "the map".to_owned(),
        |n| n.to_string_lossy().into_owned(),
    );
    let kind = match format {
        MapFormat::Tiled => "Tiled map",
        MapFormat::Ldtk => "LDtk level",
        MapFormat::Text => "tilewalk map",
    };
    let level_name = level
        .tiled
        .as_ref()
        .and_then(|t| t.level.as_deref())
        .map_or_else(String::new, |l| format!(" `{l}`"));
    let unit_count = match units {
        0 => "no units".to_owned(),
        1 => "1 unit".to_owned(),
        n => format!("{} units", grouped(n)),
    };
    let mut lines = vec![format!(
        "{name}: {kind}{level_name}, {}x{}, {unit_count}",
        level.width, level.height
    )];
    let (without, by_kind, empty) = cells_without_terrain(level);
    if without > 0 {
        lines.push(format!(
            "{} of {} have no terrain (impassable):",
            grouped(without),
            cells(level.cells().count())
        ));
        if let Some(tiled) = &level.tiled {
            for &(kind, count) in by_kind.iter().take(SHOWN_KINDS) {
                lines.push(format!("  {}: {}", tiled.kind_name(kind), cells(count)));
            }
        }
        if by_kind.len() > SHOWN_KINDS {
            let rest: usize = by_kind[SHOWN_KINDS..].iter().map(|(_, n)| n).sum();
            lines.push(format!(
                "  {} more tile kinds: {}",
                by_kind.len() - SHOWN_KINDS,
                cells(rest)
            ));
        }
        if empty > 0 {
            lines.push(format!("  no tile: {}", cells(empty)));
        }
        lines.extend(terrain_fix(format, level));
    } else if format == MapFormat::Text {
        lines.push(
            "every cell has a terrain: a glyph of its [terrain] section (P paints)".to_owned(),
        );
    } else {
        lines.push("every cell has a terrain (P: the terrain mode changes them)".to_owned());
    }
    if units == 0 {
        lines.push(format!("no units to order: {}", format.units_fix()));
    }
    if !missing.is_empty() {
        lines.push(format!(
            "{} missing, its tiles drawn as a checker (put it where the map names it):",
            match missing.len() {
                1 => "1 image".to_owned(),
                n => format!("{n} images"),
            }
        ));
        for (image, (line, column)) in missing {
            lines.push(format!("  {} ({name}:{line}:{column})", image.display()));
        }
    }
    let lacking = without > 0 || units == 0 || !missing.is_empty();
    if !lacking {
        lines.push("nothing lacking: ready to play".to_owned());
    }
    lines.push(format!(
        "{}: close (again to open)",
        key_name(MAP_PANEL_KEY)
    ));
    MapReport {
        text: lines.join("\n"),
        lacking,
    }
}

/// `1 cell`, `1,600 cells`.
fn cells(n: usize) -> String {
    match n {
        1 => "1 cell".to_owned(),
        n => format!("{} cells", grouped(n)),
    }
}

/// The fix for cells without terrain in the map's format: the terrain mode, then the map's
/// own tool.
fn terrain_fix(format: MapFormat, level: &Level) -> Vec<String> {
    let mut names: Vec<&str> = level
        .terrain_names
        .iter()
        .take(4)
        .map(String::as_str)
        .collect();
    if level.terrain_names.len() > 4 {
        names.push("...");
    }
    let names = names.join(", ");
    match format {
        MapFormat::Tiled => vec![
            "fix in the game: P (terrain mode), pick a tile kind, give it a terrain (1-9), Ctrl+S saves it as the tile's Class in its tileset".to_owned(),
            format!(
                "or in Tiled: give the tile a Class naming a terrain ({names}), or the map a `default_terrain` property (docs/tiled.md)"
            ),
        ],
        MapFormat::Ldtk => vec![
            "fix in the game: P (terrain mode), pick an IntGrid value or the cells without one, give it a terrain (1-9), Ctrl+S saves it as the value's identifier or the level's `default_terrain` field".to_owned(),
            format!(
                "or in LDtk: name an IntGrid value after a terrain ({names}), or give the level a `default_terrain` field (docs/ldtk.md)"
            ),
        ],
        MapFormat::Text => vec![format!(
            "fix: glyphs of its [terrain] section name terrains ({names}); P paints cells"
        )],
    }
}

/// The cells no terrain names: how many, how many of them each tile kind drawn on top (most
/// first, then in kind order; an LDtk level's cells without an IntGrid value are one kind),
/// and how many have no tile on a terrain layer.
fn cells_without_terrain(level: &Level) -> (usize, Vec<(TileKindId, usize)>, usize) {
    let Some(tiled) = &level.tiled else {
        return (0, Vec::new(), 0);
    };
    let (mut without, mut empty) = (0, 0);
    let mut by_kind: BTreeMap<TileKindId, usize> = BTreeMap::new();
    for pos in level.cells() {
        if level.terrain(pos).is_none_or(|t| t.name != UNNAMED_TERRAIN) {
            continue;
        }
        without += 1;
        match tiled.kind_at(pos) {
            Some(kind) => *by_kind.entry(kind).or_default() += 1,
            None => empty += 1,
        }
    }
    let mut by_kind: Vec<_> = by_kind.into_iter().collect();
    by_kind.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
    (without, by_kind, empty)
}

/// A key as the help bar names it: `M`.
fn key_name(key: KeyCode) -> String {
    format!("{key:?}").trim_start_matches("Key").to_owned()
}

/// The panel's state: open or not, and its report of the level now played.
#[derive(Resource, Default, Debug)]
struct MapPanel {
    open: bool,
    report: MapReport,
}

/// The panel's box and its text.
#[derive(Component)]
struct MapPanelBox;

#[derive(Component)]
struct MapPanelText;

pub(super) fn plugin(app: &mut App) {
    app.init_resource::<MapPanel>()
        .add_systems(Startup, spawn_panel)
        .add_systems(
            Update,
            (
                (refresh_report, toggle_panel)
                    .chain()
                    .in_set(AppSystems::RecordInput),
                show_panel.in_set(AppSystems::Hud),
            )
                .run_if(resource_exists::<Level>),
        );
}

fn spawn_panel(mut commands: Commands, slot: Single<Entity, With<MinimapSlot>>) {
    let panel = commands
        .spawn((
            MapPanelBox,
            HudPanel("map"),
            TakesClicks,
            Node {
                display: Display::None,
                flex_direction: FlexDirection::Column,
                align_items: AlignItems::FlexStart,
                padding: UiRect::all(px(6)),
                row_gap: px(4),
                margin: UiRect::bottom(px(6)),
                width: px(360),
                min_height: px(0),
                overflow: Overflow::clip(),
                ..default()
            },
            BackgroundColor(PANEL_BACKGROUND),
            children![(MapPanelText, Text::new(""), TextFont::from_font_size(FONT))],
        ))
        .id();
    commands.entity(*slot).insert_children(0, &[panel]);
}

/// Works the report out again when the level or the number of units changes; a map that
/// comes to lack something opens the panel.
fn refresh_report(
    level: Res<Level>,
    units: Query<(), With<Unit>>,
    map_file: Option<Res<MapFile>>,
    source: Option<Res<MapSource>>,
    mut panel: ResMut<MapPanel>,
    mut counted: Local<Option<usize>>,
) {
    let count = units.iter().count();
    if !level.is_changed() && *counted == Some(count) {
        return;
    }
    *counted = Some(count);
    let missing = missing_images(&level, source.as_deref());
    let file = map_file.as_deref().map(|m| m.0.as_path());
    let report = report(file, &level, count, &missing);
    if report.lacking && !panel.report.lacking {
        panel.open = true;
    }
    if panel.report != report {
        panel.report = report;
    }
}

/// The images the level draws that are not in the map's folder on disk, once each, with
/// where the map names them.
fn missing_images(level: &Level, source: Option<&MapSource>) -> Vec<(PathBuf, (usize, usize))> {
    let (Some(tiled), Some(source)) = (&level.tiled, source) else {
        return Vec::new();
    };
    let mut seen = std::collections::HashSet::new();
    tiled_images(tiled)
        .into_iter()
        .filter(|(image, _)| {
            seen.insert(image.clone()) && !source.root.join(source.path(image)).is_file()
        })
        .collect()
}

/// `M` opens and closes the panel.
fn toggle_panel(keys: Res<ButtonInput<KeyCode>>, mut panel: ResMut<MapPanel>) {
    if keys.just_pressed(MAP_PANEL_KEY) {
        panel.open = !panel.open;
    }
}

/// Shows the panel while it is open, in real time and tactics, outside the terrain mode
/// (whose own panel takes its place).
fn show_panel(
    panel: Res<MapPanel>,
    painter: Res<Painter>,
    mode: Res<State<Mode>>,
    boxed: Single<&mut Node, With<MapPanelBox>>,
    mut text: Single<&mut Text, With<MapPanelText>>,
) {
    let mut node = boxed.into_inner();
    let shown = panel.open && !painter.on && *mode.get() != Mode::Lab;
    super::hud::show(&mut node, shown);
    if text.0 != panel.report.text {
        text.0.clone_from(&panel.report.text);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::map::MapAsset;
    use crate::map::tmx;
    use crate::terrain::TerrainTable;

    fn table() -> TerrainTable {
        TerrainTable::parse(include_str!("../../assets/terrain.ron")).unwrap()
    }

    fn level_of(map: &MapAsset) -> Level {
        Level::build(map, &table()).unwrap().0
    }

    /// Four cells: tile 0, tile 1, tile 0, and an empty one; tile 1 is road.
    const TILED: &str = r#"<map version="1.10" orientation="orthogonal" width="4" height="1" tilewidth="8" tileheight="8">
 <tileset firstgid="1" name="t" tilewidth="8" tileheight="8" tilecount="2" columns="2">
  <image source="t.png" width="16" height="8"/>
  <tile id="1" type="road"/>
 </tileset>
 <layer id="1" name="ground" width="4" height="1">
  <data encoding="csv">1,2,1,0</data>
 </layer>
</map>"#;

    #[test]
    fn a_tiled_map_counts_its_cells_without_terrain_by_tile_kind_and_gives_tileds_fix() {
        let map = tmx::parse(Path::new("m.tmx"), TILED, &Default::default()).unwrap();
        let level = level_of(&map);
        let report = report(Some(Path::new("/maps/desert.tmx")), &level, 0, &[]);
        assert!(report.lacking);
        assert_eq!(
            report.text,
            "desert.tmx: Tiled map, 4x1, no units\n\
             3 of 4 cells have no terrain (impassable):\n  \
             tile 0 of t: 2 cells\n  \
             no tile: 1 cell\n\
             fix in the game: P (terrain mode), pick a tile kind, give it a terrain (1-9), Ctrl+S saves it as the tile's Class in its tileset\n\
             or in Tiled: give the tile a Class naming a terrain (grass, road, forest, thicket, ...), or the map a `default_terrain` property (docs/tiled.md)\n\
             no units to order: in Tiled, add objects with a string property `team` (blue or red), and `class` (a movement class) as their Class or a property (docs/tiled.md)\n\
             M: close (again to open)"
        );
    }

    #[test]
    fn an_ldtk_level_is_told_ldtks_fix_and_a_text_map_its_units_section() {
        let map = tmx::parse(Path::new("m.tmx"), TILED, &Default::default()).unwrap();
        let level = level_of(&map);
        let text = report(Some(Path::new("valley.ldtk")), &level, 3, &[]).text;
        assert!(
            text.starts_with("valley.ldtk: LDtk level, 4x1, 3 units\n"),
            "{text}"
        );
        assert!(
            text.contains("or in LDtk: name an IntGrid value after a terrain (grass, road"),
            "{text}"
        );
        assert!(
            text.contains("give the level a `default_terrain` field"),
            "{text}"
        );
        assert!(!text.contains("no units"), "{text}");

        let map = MapAsset::parse("[terrain]\n.~.\n[units]\n").unwrap();
        let report = report(
            Some(Path::new("assets/maps/mine.map")),
            &level_of(&map),
            0,
            &[],
        );
        assert!(report.lacking);
        assert_eq!(
            report.text,
            "mine.map: tilewalk map, 3x1, no units\n\
             every cell has a terrain: a glyph of its [terrain] section (P paints)\n\
             no units to order: add some to its [units] section, one a line: name team class x,y (e.g. `knight blue foot 3,4`; docs/playing.md)\n\
             M: close (again to open)"
        );
    }

    #[test]
    fn a_map_that_lacks_nothing_says_so_and_does_not_open_the_panel() {
        let map = MapAsset::parse("[terrain]\n...\n[units]\nknight blue foot 0,0\n").unwrap();
        let report = report(Some(Path::new("mine.map")), &level_of(&map), 1, &[]);
        assert!(!report.lacking);
        assert_eq!(
            report.text,
            "mine.map: tilewalk map, 3x1, 1 unit\n\
             every cell has a terrain: a glyph of its [terrain] section (P paints)\n\
             nothing lacking: ready to play\n\
             M: close (again to open)"
        );
    }

    #[test]
    fn the_most_drawn_kinds_are_named_and_the_rest_counted_together() {
        // Ten tile kinds without terrain, tile k on k+1 cells.
        let mut data = Vec::new();
        for k in 0..10u32 {
            data.extend(std::iter::repeat_n((k + 1).to_string(), k as usize + 1));
        }
        let width = data.len();
        let map = format!(
            r#"<map version="1.10" orientation="orthogonal" width="{width}" height="1" tilewidth="8" tileheight="8">
 <tileset firstgid="1" name="t" tilewidth="8" tileheight="8" tilecount="10" columns="10">
  <image source="t.png" width="80" height="8"/>
 </tileset>
 <layer id="1" name="ground" width="{width}" height="1">
  <data encoding="csv">{}</data>
 </layer>
</map>"#,
            data.join(",")
        );
        let map = tmx::parse(Path::new("m.tmx"), &map, &Default::default()).unwrap();
        let text = report(Some(Path::new("m.tmx")), &level_of(&map), 2, &[]).text;
        let kinds: Vec<&str> = text.lines().filter(|l| l.starts_with("  ")).collect();
        assert_eq!(
            kinds,
            [
                "  tile 9 of t: 10 cells",
                "  tile 8 of t: 9 cells",
                "  tile 7 of t: 8 cells",
                "  tile 6 of t: 7 cells",
                "  tile 5 of t: 6 cells",
                "  tile 4 of t: 5 cells",
                "  4 more tile kinds: 10 cells",
            ]
        );
        assert!(text.contains("\n55 of 55 cells have no terrain"), "{text}");
    }

    #[test]
    fn missing_images_are_named_where_the_map_names_them() {
        let map = tmx::parse(Path::new("m.tmx"), TILED, &Default::default()).unwrap();
        let level = level_of(&map);
        let gone = [(PathBuf::from("../art/t.png"), (2, 2))];
        let report = report(Some(Path::new("/maps/m.tmx")), &level, 1, &gone);
        assert!(report.lacking);
        assert!(
            report.text.contains(
                "\n1 image missing, its tiles drawn as a checker (put it where the map names it):\n  ../art/t.png (m.tmx:2:2)\n"
            ),
            "{}",
            report.text
        );
        // The level's own images, found missing beside a map in a folder without them.
        let dir = std::env::temp_dir().join(format!("tilewalk-panel-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let source = MapSource {
            root: dir.clone(),
            map: "m.tmx".into(),
        };
        assert_eq!(
            missing_images(&level, Some(&source)),
            [(PathBuf::from("t.png"), (2, 2))]
        );
        std::fs::write(dir.join("t.png"), b"").unwrap();
        assert_eq!(missing_images(&level, Some(&source)), []);
        let _ = std::fs::remove_dir_all(dir);
    }

    #[test]
    fn counts_are_grouped_by_thousands() {
        assert_eq!(grouped(0), "0");
        assert_eq!(grouped(999), "999");
        assert_eq!(grouped(1_500), "1,500");
        assert_eq!(grouped(1_234_567), "1,234,567");
    }
}
