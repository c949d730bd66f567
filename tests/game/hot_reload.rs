//! Hot reload from real files: the asset server watches a temporary folder while the
//! headless app runs; edits re-plan paths, broken edits are reported and change nothing.

use std::path::{Path as FsPath, PathBuf};
use std::time::Duration;

use bevy::time::TimeUpdateStrategy;
use bevy_tilewalk::Navigation;
use bevy_tilewalk::tactics::TacticsRules;
use tilewalk::assets::{FileErrors, MapFile};
use tilewalk::level::{EditMap, Level, MapEdited, MapHistory, Reloaded, assets_plugin};
use tilewalk::map::register_map_source;
use tilewalk::simulation_plugin;
use tilewalk::tactics;
use tilewalk_path::{SearchOptions, find_path};

use super::*;

const TERRAIN: &str = include_str!("../../assets/terrain.ron");
const RULES: &str = include_str!("../../assets/tactics.ron");
const GRASS: &str = r#"(name: "grass", glyphs: ".G", tile: 0, cost: {"foot": 1.0,"#;
const MAP: &str = "\
[terrain]
==========
..........
..........
[units]
knight blue foot 0,2
";

/// A fresh folder holding `terrain.ron` and `field.map`.
fn folder(test: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("tilewalk-{test}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("terrain.ron"), TERRAIN).unwrap();
    std::fs::write(dir.join("field.map"), MAP).unwrap();
    std::fs::write(dir.join("tactics.ron"), RULES).unwrap();
    dir
}

/// The game's loading path, headless, with time frozen so units stay where they are.
fn watching_app(dir: &FsPath) -> App {
    watching(dir.join("field.map"))
}

/// The same on any map file.
fn watching(map: PathBuf) -> App {
    let dir = map.parent().unwrap().to_path_buf();
    let mut app = App::new();
    register_map_source(&mut app, &map);
    app.add_plugins((
        MinimalPlugins,
        AssetPlugin {
            file_path: dir.display().to_string(),
            watch_for_changes_override: Some(true),
            ..default()
        },
        simulation_plugin,
        assets_plugin,
        tactics::assets_plugin,
    ))
    .insert_resource(MapFile(map))
    .insert_resource(TimeUpdateStrategy::ManualDuration(Duration::ZERO));
    update_until(&mut app, "the level loads", |app| {
        app.world().contains_resource::<Level>()
    });
    app
}

/// Updates (in real time: the file watcher runs on its own thread) until `done`, for at most 20 s.
fn update_until(app: &mut App, what: &str, mut done: impl FnMut(&mut App) -> bool) {
    for _ in 0..800 {
        app.update();
        if done(app) {
            return;
        }
        std::thread::sleep(Duration::from_millis(25));
    }
    panic!("timed out waiting until {what}");
}

/// Rewrites a file so the watcher sees it (a pause first: watchers debounce by time).
fn edit(file: PathBuf, text: &str) {
    std::thread::sleep(Duration::from_millis(400));
    std::fs::write(file, text).unwrap();
}

#[test]
fn a_terrain_cost_edit_replans_paths_through_the_changed_cells() {
    let dir = folder("replan");
    let mut app = watching_app(&dir);
    order(&mut app, &["knight"], Pos::new(9, 2), false);
    app.update();
    let before = path(&mut app, "knight").expect("ordered");
    assert!(
        before.cells.iter().all(|p| p.y == 2),
        "straight along the grass: {:?}",
        before.cells
    );

    edit(
        dir.join("terrain.ron"),
        &TERRAIN.replace(GRASS, &GRASS.replace(r#""foot": 1.0"#, r#""foot": 5.0"#)),
    );
    let mut reloads = app
        .world()
        .resource::<Messages<Reloaded>>()
        .get_cursor_current();
    let mut said: Vec<String> = Vec::new();
    update_until(&mut app, "the path is re-planned", |app| {
        let messages = app.world().resource::<Messages<Reloaded>>();
        said.extend(reloads.read(messages).map(ToString::to_string));
        path(app, "knight").is_some_and(|p| p != before)
    });
    // The reload says so, with the one path it re-planned.
    assert_eq!(said, ["terrain.ron reloaded: 1 path re-planned"]);
    let after = path(&mut app, "knight").unwrap();
    let level = nav(&app).clone();
    assert_eq!(level.grid(FOOT).cost(Pos::new(5, 2)), Some(5.0));
    // From the tile it holds now (it may have started its first step).
    let from = tile(&mut app, "knight");
    let core = find_path(
        level.grid(FOOT),
        from,
        Pos::new(9, 2),
        &SearchOptions::default(),
    )
    .unwrap();
    assert_eq!(after.cells, core.path.cells);
    assert!(
        after.cells.iter().any(|p| p.y == 0),
        "the new path takes the road: {:?}",
        after.cells
    );
    let _ = std::fs::remove_dir_all(dir);
}

#[test]
fn broken_edits_are_reported_with_file_line_col_and_keep_the_last_good_level() {
    let dir = folder("broken");
    let mut app = watching_app(&dir);
    let grass = |app: &App| {
        app.world()
            .resource::<Navigation>()
            .grid(FOOT)
            .cost(Pos::new(1, 1))
    };
    assert_eq!(grass(&app), Some(1.0));
    let errors = |app: &App| {
        app.world()
            .resource::<FileErrors>()
            .0
            .values()
            .cloned()
            .collect::<Vec<_>>()
    };

    // A syntax error in the terrain table.
    edit(
        dir.join("terrain.ron"),
        &TERRAIN.replace(GRASS, &GRASS.replace(r#""foot": 1.0,"#, r#""foot": 5.0"#)),
    );
    update_until(&mut app, "the terrain error shows", |app| {
        !errors(app).is_empty()
    });
    let message = errors(&app).join("\n");
    let expected = format!(
        "{}:{}:",
        PathBuf::from("assets").join("terrain.ron").display(),
        1 + TERRAIN.lines().position(|l| l.contains(GRASS)).unwrap()
    );
    assert!(message.starts_with(&expected), "{message}");
    assert_eq!(grass(&app), Some(1.0), "the last good table stays");

    // A ragged map row.
    edit(
        dir.join("field.map"),
        &MAP.replace("..........\n[units]", ".......\n[units]"),
    );
    update_until(&mut app, "the map error shows", |app| {
        errors(app).iter().any(|e| e.contains("field.map"))
    });
    let map_error = errors(&app)
        .into_iter()
        .find(|e| e.contains("field.map"))
        .unwrap();
    assert!(
        map_error.ends_with("field.map:4:8: row has 7 tiles, the first row has 10"),
        "{map_error}"
    );

    // A glyph the terrain table does not know: the map parses, the level cannot be built.
    edit(
        dir.join("field.map"),
        &MAP.replace("..........\n[units]", "....?.....\n[units]"),
    );
    update_until(&mut app, "the glyph error shows", |app| {
        errors(app)
            .iter()
            .any(|e| e.contains("unknown terrain glyph"))
    });
    let glyph_error = errors(&app)
        .into_iter()
        .find(|e| e.contains("field.map"))
        .unwrap();
    assert!(
        glyph_error.contains("field.map:4:5: unknown terrain glyph `?`"),
        "{glyph_error}"
    );
    assert_eq!(
        app.world().resource::<Level>().width,
        10,
        "the last good map stays"
    );
    assert_eq!(tile(&mut app, "knight"), Pos::new(0, 2), "nothing was lost");

    // A board the game does not know, then a valid one: the shape changes only when valid.
    edit(dir.join("field.map"), &format!("board: hex-odd\n{MAP}"));
    update_until(&mut app, "the board error shows", |app| {
        errors(app)
            .iter()
            .any(|e| e.contains("field.map:1:8: unknown board `hex-odd`"))
    });
    assert_eq!(
        app.world().resource::<Level>().board,
        tilewalk_path::Board::default(),
        "the last good map stays"
    );
    edit(dir.join("field.map"), &format!("board: hex-odd-q\n{MAP}"));
    update_until(&mut app, "the hex board loads", |app| {
        app.world().resource::<Level>().board
            == tilewalk_path::Board::Hex(tilewalk_path::HexLayout::OddQ)
    });

    // Fixing both files clears the errors and applies the fix.
    edit(
        dir.join("terrain.ron"),
        &TERRAIN.replace(GRASS, &GRASS.replace(r#""foot": 1.0"#, r#""foot": 2.0"#)),
    );
    edit(dir.join("field.map"), MAP);
    update_until(&mut app, "the fixes load", |app| {
        errors(app).is_empty() && grass(app) == Some(2.0)
    });
    let _ = std::fs::remove_dir_all(dir);
}

#[test]
fn tactics_rules_hot_reload_and_a_broken_edit_keeps_the_last_good_rules() {
    let dir = folder("rules");
    let mut app = watching_app(&dir);
    let foot_points = |app: &App| {
        app.world()
            .get_resource::<TacticsRules>()
            .and_then(|r| r.movement_points.get("foot"))
    };
    update_until(&mut app, "the rules load", |app| {
        foot_points(app) == Some(5.0)
    });
    edit(
        dir.join("tactics.ron"),
        &RULES.replace(r#""foot": 5.0"#, r#""foot": 7.0"#),
    );
    update_until(&mut app, "the edit applies", |app| {
        foot_points(app) == Some(7.0)
    });

    edit(
        dir.join("tactics.ron"),
        &RULES.replace(r#""foot": 5.0"#, r#""foot": -1.0"#),
    );
    update_until(&mut app, "the error shows", |app| {
        !app.world().resource::<FileErrors>().0.is_empty()
    });
    let errors = app.world().resource::<FileErrors>().0.clone();
    let (file, message) = errors.iter().next().unwrap();
    assert!(file.ends_with("tactics.ron"), "{file}");
    let line = 1 + RULES
        .lines()
        .position(|l| l.contains("movement_points"))
        .unwrap();
    assert!(
        message.contains(&format!("tactics.ron:{line}:"))
            && message.contains("foot movement points"),
        "{message}"
    );
    assert_eq!(foot_points(&app), Some(7.0), "the last good rules stay");
    let _ = std::fs::remove_dir_all(dir);
}

#[test]
fn hostile_edits_while_playing_are_reported_and_change_nothing() {
    let dir = folder("hostile");
    let mut app = watching_app(&dir);
    let errors = |app: &App| app.world().resource::<FileErrors>().0.clone();
    let wait_for = |app: &mut App, file: &str, needle: &str| {
        update_until(app, needle, |app| {
            errors(app)
                .iter()
                .any(|(f, e)| f.ends_with(file) && e.contains(needle))
        });
        errors(app)
            .into_iter()
            .find(|(f, _)| f.ends_with(file))
            .unwrap()
            .1
    };

    // A byte that is not UTF-8, in the first row of the terrain.
    std::thread::sleep(Duration::from_millis(400));
    let mut bytes = MAP.as_bytes().to_vec();
    bytes[13] = 0xff;
    std::fs::write(dir.join("field.map"), bytes).unwrap();
    let message = wait_for(&mut app, "field.map", "not UTF-8");
    assert!(
        message.contains("field.map:2:4: not UTF-8 text: byte 0xff"),
        "{message}"
    );

    // A cost the search cannot order, at the terrain's line.
    edit(
        dir.join("terrain.ron"),
        &TERRAIN.replace(GRASS, &GRASS.replace(r#""foot": 1.0"#, r#""foot": 1e308"#)),
    );
    let message = wait_for(&mut app, "terrain.ron", "between 0.001 and 1000000");
    let line = 1 + TERRAIN.lines().position(|l| l.contains(GRASS)).unwrap();
    assert!(
        message.contains(&format!("terrain.ron:{line}:")),
        "{message}"
    );

    let level = nav(&app);
    assert_eq!(level.grid(FOOT).cost(Pos::new(1, 1)), Some(1.0));
    assert_eq!(tile(&mut app, "knight"), Pos::new(0, 2), "nothing was lost");
    let _ = std::fs::remove_dir_all(dir);
}

const TMX: &str = include_str!("../../assets/tiled/square.tmx");
const TSX: &str = include_str!("../../assets/tiled/terrain.tsx");
const FORD_FOOT: &str = r#"<property name="foot" type="float" value="2"/>"#;

#[test]
fn a_tiled_map_reloads_when_it_or_its_tileset_is_saved_and_broken_saves_keep_the_last_good_map() {
    let dir = folder("tiled");
    std::fs::write(dir.join("square.tmx"), TMX).unwrap();
    std::fs::write(dir.join("terrain.tsx"), TSX).unwrap();
    // Its tileset image beside it (saving the image reloads the map).
    let image = concat!(env!("CARGO_MANIFEST_DIR"), "/assets/tiled/terrain.png");
    std::fs::copy(image, dir.join("terrain.png")).unwrap();
    let mut app = watching(dir.join("square.tmx"));
    let ford = Pos::new(9, 3);
    let foot = |app: &App, pos| app.world().resource::<Navigation>().grid(FOOT).cost(pos);
    assert_eq!(foot(&app, ford), Some(2.0), "the ford's own cost");
    // Beside the brute, who holds (15,3).
    let goal = Pos::new(14, 3);
    order(&mut app, &["knight"], goal, false);
    app.update();
    let before = path(&mut app, "knight").expect("ordered");
    assert!(
        before.cells.contains(&ford),
        "through the ford: {:?}",
        before.cells
    );

    // The designer makes the ford deep in the tileset: the path goes round by the bridge.
    edit(
        dir.join("terrain.tsx"),
        &TSX.replace(FORD_FOOT, &FORD_FOOT.replace("\"2\"", "\"9\"")),
    );
    update_until(&mut app, "the path is re-planned", |app| {
        path(app, "knight").is_some_and(|p| p != before)
    });
    assert_eq!(foot(&app, ford), Some(9.0));
    let after = path(&mut app, "knight").unwrap();
    let level = nav(&app).clone();
    let from = tile(&mut app, "knight");
    let core = find_path(level.grid(FOOT), from, goal, &SearchOptions::default()).unwrap();
    assert_eq!(after.cells, core.path.cells);
    assert!(
        after.cells.contains(&Pos::new(9, 8)),
        "over the bridge: {:?}",
        after.cells
    );

    // Broken XML in the tileset: reported at its line, the last good map stays.
    let errors = |app: &App| app.world().resource::<FileErrors>().0.clone();
    edit(
        dir.join("terrain.tsx"),
        &TSX.replace("type=\"water\">\n", "type=\"water\"></tilee>\n"),
    );
    update_until(&mut app, "the tileset error shows", |app| {
        errors(app).values().any(|e| e.contains("terrain.tsx"))
    });
    let message = errors(&app).into_values().next().unwrap();
    let line = 1 + TSX
        .lines()
        .position(|l| l.contains("<tile id=\"7\""))
        .unwrap();
    assert!(
        message.starts_with(&format!("{}:{line}:", dir.join("terrain.tsx").display()))
            && message.contains("malformed XML"),
        "{message}"
    );
    assert_eq!(foot(&app, ford), Some(9.0), "the last good map stays");

    // Fixed, and the map itself saved with its top-left cell repainted as rock.
    edit(dir.join("terrain.tsx"), TSX);
    update_until(&mut app, "the fix loads", |app| {
        errors(app).is_empty() && foot(app, ford) == Some(2.0)
    });
    edit(
        dir.join("square.tmx"),
        &TMX.replacen("\n1,1,3,3,", "\n7,1,3,3,", 1),
    );
    update_until(&mut app, "the repainted cell loads", |app| {
        app.world()
            .resource::<Level>()
            .terrain(Pos::new(0, 0))
            .is_some_and(|t| t.name == "rock")
    });
    assert_eq!(foot(&app, Pos::new(0, 0)), None);
    let _ = std::fs::remove_dir_all(dir);
}

const TMJ: &str = include_str!("../../assets/tiled/square.tmj");
const TSJ: &str = include_str!("../../assets/tiled/terrain.tsj");

#[test]
fn a_json_map_reloads_when_it_or_its_json_tileset_is_saved_and_a_broken_save_is_at_its_line() {
    let dir = folder("tiled-json");
    std::fs::write(dir.join("square.tmj"), TMJ).unwrap();
    std::fs::write(dir.join("terrain.tsj"), TSJ).unwrap();
    let image = concat!(env!("CARGO_MANIFEST_DIR"), "/assets/tiled/terrain.png");
    std::fs::copy(image, dir.join("terrain.png")).unwrap();
    let mut app = watching(dir.join("square.tmj"));
    let ford = Pos::new(9, 3);
    let foot = |app: &App, pos| app.world().resource::<Navigation>().grid(FOOT).cost(pos);
    assert_eq!(foot(&app, ford), Some(2.0), "the ford's own cost");

    // The ford made deep in the JSON tileset (its first `value` is its foot cost).
    edit(
        dir.join("terrain.tsj"),
        &TSJ.replacen("\"value\":2", "\"value\":9", 1),
    );
    update_until(&mut app, "the tileset reloads", |app| {
        foot(app, ford) == Some(9.0)
    });

    // Broken JSON in the tileset: at its line, the last good map stays.
    let errors = |app: &App| app.world().resource::<FileErrors>().0.clone();
    edit(
        dir.join("terrain.tsj"),
        &TSJ.replacen("\"type\":\"rock\"", "\"type\":rock", 1),
    );
    update_until(&mut app, "the tileset error shows", |app| {
        errors(app).values().any(|e| e.contains("terrain.tsj"))
    });
    let message = errors(&app).into_values().next().unwrap();
    let line = 1 + TSJ.lines().position(|l| l.contains("\"rock\"")).unwrap();
    assert!(
        message.starts_with(&format!("{}:{line}:", dir.join("terrain.tsj").display())),
        "{message}"
    );
    assert_eq!(foot(&app, ford), Some(9.0), "the last good map stays");

    // Fixed, and the map itself saved with its top-left cell repainted as rock.
    edit(dir.join("terrain.tsj"), TSJ);
    update_until(&mut app, "the fix loads", |app| {
        errors(app).is_empty() && foot(app, ford) == Some(2.0)
    });
    edit(
        dir.join("square.tmj"),
        &TMJ.replacen("\"data\":[1, ", "\"data\":[7, ", 1),
    );
    update_until(&mut app, "the repainted cell loads", |app| {
        app.world()
            .resource::<Level>()
            .terrain(Pos::new(0, 0))
            .is_some_and(|t| t.name == "rock")
    });
    let _ = std::fs::remove_dir_all(dir);
}

/// The messages of a kind written since the last call, read with the test's own cursor.
fn reports(app: &App, cursor: &mut bevy::ecs::message::MessageCursor<MapEdited>) -> Vec<MapEdited> {
    let messages = app
        .world()
        .resource::<bevy::ecs::message::Messages<MapEdited>>();
    cursor.read(messages).cloned().collect()
}

#[test]
fn painting_replans_undoes_and_saves_only_the_painted_glyphs() {
    let dir = folder("paint");
    // A file with comments, CRLF line endings, an indented row and units, all to be kept.
    let original = "// Field, painted in the game\r\n[terrain]\r\n==========\r\n  ..........\r\n..........   \r\n[units]\r\n// the one unit\r\nknight blue foot 0,2\r\n";
    std::fs::write(dir.join("field.map"), original).unwrap();
    let mut app = watching_app(&dir);
    let mut cursor = bevy::ecs::message::MessageCursor::<MapEdited>::default();
    order(&mut app, &["knight"], Pos::new(9, 2), false);
    app.update();
    assert!(
        path(&mut app, "knight")
            .unwrap()
            .cells
            .iter()
            .all(|p| p.y == 2)
    );

    // A rock wall across the grass, painted in one stroke of two messages (a drag).
    let paint = |app: &mut App, cells: &[(u32, u32)], glyph, stroke| {
        app.world_mut().write_message(EditMap::Paint {
            cells: cells.iter().map(|&c| Pos::from(c)).collect(),
            glyph,
            stroke,
        });
    };
    paint(&mut app, &[(5, 1)], '#', true);
    paint(&mut app, &[(5, 2)], '#', false);
    update_until(
        &mut app,
        "the wall is built and the knight re-planned",
        |app| path(app, "knight").is_some_and(|p| p.cells.iter().any(|p| p.y == 0)),
    );
    let foot = |app: &App, p: (u32, u32)| {
        app.world()
            .resource::<Navigation>()
            .grid(FOOT)
            .cost(p.into())
    };
    assert_eq!((foot(&app, (5, 1)), foot(&app, (5, 2))), (None, None));
    let level = nav(&app).clone();
    let optimal = find_path(
        level.grid(FOOT),
        tile(&mut app, "knight"),
        Pos::new(9, 2),
        &SearchOptions::default(),
    )
    .unwrap();
    assert_eq!(path(&mut app, "knight").unwrap().cells, optimal.path.cells);

    // A second stroke (water on the road), then undo takes back only that stroke.
    paint(&mut app, &[(7, 0), (8, 0)], '~', true);
    update_until(&mut app, "the water is painted", |app| {
        foot(app, (7, 0)) == Some(6.0)
    });
    app.world_mut().write_message(EditMap::Undo);
    update_until(&mut app, "the water is undone", |app| {
        foot(app, (7, 0)) == Some(1.0) && foot(app, (8, 0)) == Some(1.0)
    });
    assert_eq!(foot(&app, (5, 1)), None, "the first stroke stays");
    assert!(app.world().resource::<MapHistory>().unsaved);

    // Save: the file is the original but for the two painted glyphs.
    app.world_mut().write_message(EditMap::Save);
    app.update();
    let saved = std::fs::read_to_string(dir.join("field.map")).unwrap();
    let expected = original
        .replace("  ..........\r\n", "  .....#....\r\n")
        .replace("\r\n..........   \r\n", "\r\n.....#....   \r\n");
    assert_eq!(saved, expected);
    assert!(!app.world().resource::<MapHistory>().unsaved);
    // The notice says where on disk.
    let file = std::path::absolute(dir.join("field.map")).unwrap();
    assert_eq!(
        reports(&app, &mut cursor).last(),
        Some(&MapEdited(Ok(format!("saved {}", file.display()))))
    );

    // Painting outside the map, and undoing more than was painted, say why and change nothing.
    paint(&mut app, &[(10, 0)], '#', true);
    app.world_mut().write_message(EditMap::Undo);
    app.world_mut().write_message(EditMap::Undo);
    app.update();
    let said = reports(&app, &mut cursor);
    assert_eq!(
        said,
        [
            MapEdited(Err("cannot paint: (10,0) is outside the map".into())),
            MapEdited(Ok("undid a stroke of 2 tiles".into())),
            MapEdited(Err("nothing to undo".into())),
        ]
    );
    update_until(&mut app, "the wall is undone", |app| {
        foot(app, (5, 1)) == Some(1.0)
    });
    // The save stays as it was until the next Ctrl+S.
    assert_eq!(
        std::fs::read_to_string(dir.join("field.map")).unwrap(),
        expected
    );
    let _ = std::fs::remove_dir_all(dir);
}

#[test]
fn a_tile_kind_given_a_terrain_replans_undoes_and_saves_into_the_tileset() {
    use tilewalk::map::tmx::read_tmx;
    // Tiled's desert example, which names no terrain (every cell impassable), with a scout
    // placed on a cell of its most drawn tile.
    let dir = std::env::temp_dir().join(format!("tilewalk-terrain-mode-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let corpus =
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../shared/tiled-corpus/tiled-examples");
    for file in ["desert.tmx", "desert.tsx", "tmw_desert_spacing.png"] {
        std::fs::copy(corpus.join(file), dir.join(file)).unwrap();
    }
    std::fs::write(dir.join("terrain.ron"), TERRAIN).unwrap();
    std::fs::write(dir.join("tactics.ron"), RULES).unwrap();
    let map = read_tmx(&dir.join("desert.tmx")).unwrap();
    let tiles = map.tiles.as_ref().unwrap();
    let &(sand, count) = tiles.tile_kinds().iter().max_by_key(|(_, n)| *n).unwrap();
    let cells = tiles.cells_of(sand);
    assert_eq!(cells.len(), count);
    let start = cells[0];
    let tmx = std::fs::read_to_string(dir.join("desert.tmx")).unwrap();
    let unit = format!(
        " <objectgroup id=\"9\" name=\"units\">\n  <object id=\"99\" name=\"scout\" x=\"{}\" y=\"{}\">\n   <properties>\n    <property name=\"team\" value=\"blue\"/>\n    <property name=\"class\" value=\"foot\"/>\n   </properties>\n   <point/>\n  </object>\n </objectgroup>\n</map>",
        start.x * 32 + 16,
        start.y * 32 + 16
    );
    std::fs::write(dir.join("desert.tmx"), tmx.replace("</map>", &unit)).unwrap();
    let tsx = std::fs::read_to_string(dir.join("desert.tsx")).unwrap();

    let mut app = watching(dir.join("desert.tmx"));
    let mut cursor = bevy::ecs::message::MessageCursor::<MapEdited>::default();
    let terrain = |app: &App, p: Pos| {
        app.world()
            .resource::<Level>()
            .terrain(p)
            .map(|t| t.name.clone())
    };
    assert_eq!(terrain(&app, start).as_deref(), Some("no terrain"));
    assert_eq!(tile(&mut app, "scout"), start);

    // The most drawn tile becomes grass: every cell drawn with it at once.
    let assign = |app: &mut App, name: &str| {
        app.world_mut().write_message(EditMap::Assign {
            kind: sand,
            terrain: name.into(),
        });
    };
    assign(&mut app, "grass");
    app.update();
    assert_eq!(
        reports(&app, &mut cursor),
        [MapEdited(Ok(format!(
            "tile {} of Desert is grass: {count} cells",
            sand.id
        )))]
    );
    update_until(&mut app, "the tile kind is grass", |app| {
        cells
            .iter()
            .all(|&p| terrain(app, p).as_deref() == Some("grass"))
    });
    // A goal of the same tile, as far as the scout can go.
    let goal = cells
        .iter()
        .rev()
        .copied()
        .find(|&g| find_path(nav(&app).grid(FOOT), start, g, &SearchOptions::default()).is_ok())
        .unwrap();
    assert!(
        goal.x.abs_diff(start.x) + goal.y.abs_diff(start.y) >= 10,
        "{goal}"
    );
    order(&mut app, &["scout"], goal, false);
    app.update();
    // The best way to the goal from where a path starts (a re-planned one starts where
    // the scout's step under way ends).
    let optimal = |app: &mut App| {
        let from = path(app, "scout").unwrap().cells[0];
        find_path(nav(app).grid(FOOT), from, goal, &SearchOptions::default())
            .unwrap()
            .path
    };
    let on_grass = path(&mut app, "scout").unwrap();
    assert_eq!(on_grass.cost, optimal(&mut app).cost);

    // Mud costs foot three times grass: the scout's path is planned again.
    assign(&mut app, "mud");
    update_until(&mut app, "the scout re-planned over mud", |app| {
        path(app, "scout").is_some_and(|p| p.cost > 2.0 * on_grass.cost)
    });
    let on_mud = path(&mut app, "scout").unwrap();
    assert_eq!(on_mud.cells, optimal(&mut app).cells);
    assert_eq!(on_mud.cost, optimal(&mut app).cost);

    // Undo: grass again, and a grass route.
    app.world_mut().write_message(EditMap::Undo);
    update_until(&mut app, "the grass is back", |app| {
        path(app, "scout").is_some_and(|p| p.cost <= on_grass.cost)
    });
    assert!(
        cells
            .iter()
            .all(|&p| terrain(&app, p).as_deref() == Some("grass"))
    );
    let back = path(&mut app, "scout").unwrap();
    assert_eq!(back.cost, optimal(&mut app).cost);
    assert!(app.world().resource::<MapHistory>().unsaved);

    // Save: the tileset gains the tile's Class, every other byte kept; the map did not change.
    app.world_mut().write_message(EditMap::Save);
    app.update();
    let saved = std::fs::read_to_string(dir.join("desert.tsx")).unwrap();
    let element = format!("<tile id=\"{}\" type=\"grass\"", sand.id);
    assert!(saved.contains(&element), "{saved}");
    assert!(!app.world().resource::<MapHistory>().unsaved);
    let reported = reports(&app, &mut cursor);
    let file = std::path::absolute(dir.join("desert.tsx")).unwrap();
    assert_eq!(
        reported.last(),
        Some(&MapEdited(Ok(format!("saved {}", file.display()))))
    );
    assert_eq!(
        std::fs::read_to_string(dir.join("desert.tmx")).unwrap(),
        tmx.replace("</map>", &unit)
    );
    // Taking the Class off gives back the tileset as it was.
    let home = tilewalk::map::assign::ClassHome::TiledTile {
        file: dir.join("desert.tsx"),
        embedded: None,
        id: sand.id,
    };
    assert_eq!(home.write(&saved, None).unwrap(), tsx);

    // After the reload of the saved tileset, the cells are still grass; a second save with
    // nothing new says so.
    std::thread::sleep(Duration::from_millis(600));
    for _ in 0..20 {
        app.update();
        std::thread::sleep(Duration::from_millis(25));
    }
    assert!(
        cells
            .iter()
            .all(|&p| terrain(&app, p).as_deref() == Some("grass"))
    );
    app.world_mut().write_message(EditMap::Save);
    app.update();
    assert!(matches!(
        reports(&app, &mut cursor).last(),
        Some(MapEdited(Err(why))) if why.starts_with("nothing to save")
    ));
    let _ = std::fs::remove_dir_all(dir);
}

/// LDtk's top-down example with its images, the shipped terrain table and rules, in a fresh
/// temporary folder (`test` names it): the folder and the project.
fn top_down_copy(test: &str) -> (PathBuf, PathBuf) {
    let dir = std::env::temp_dir().join(format!("tilewalk-{test}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(dir.join("atlas")).unwrap();
    let corpus = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../shared/ldtk-corpus");
    std::fs::copy(
        corpus.join("Typical_TopDown_example.ldtk"),
        dir.join("Typical_TopDown_example.ldtk"),
    )
    .unwrap();
    for entry in std::fs::read_dir(corpus.join("atlas")).unwrap() {
        let entry = entry.unwrap();
        std::fs::copy(entry.path(), dir.join("atlas").join(entry.file_name())).unwrap();
    }
    std::fs::write(dir.join("terrain.ron"), TERRAIN).unwrap();
    std::fs::write(dir.join("tactics.ron"), RULES).unwrap();
    let project = dir.join("Typical_TopDown_example.ldtk");
    (dir, project)
}

#[test]
fn an_int_grid_value_given_a_terrain_is_saved_as_its_identifier_in_the_ldtk_project() {
    // LDtk's top-down example: its one IntGrid value, `walls`, names no terrain.
    let (dir, project) = top_down_copy("terrain-mode-ldtk");
    let original = std::fs::read_to_string(&project).unwrap();
    let mut app = watching(project.clone());
    let mut cursor = bevy::ecs::message::MessageCursor::<MapEdited>::default();
    let level = |app: &App| app.world().resource::<Level>().clone();
    let tiled = level(&app).tiled.unwrap();
    let kinds = tiled.tile_kinds();
    assert_eq!(kinds.len(), 1, "{kinds:?}");
    let (walls, count) = kinds[0];
    assert_eq!(tiled.class(walls), Some("walls"));
    let cells = tiled.cells_of(walls);
    assert_eq!(cells.len(), count);
    let terrain = |app: &App, p: Pos| level(app).terrain(p).map(|t| t.name.clone());
    assert_eq!(terrain(&app, cells[0]).as_deref(), Some("no terrain"));

    // A name the terrain table lacks is refused; a terrain of it is given at once.
    for name in ["lava", "rock"] {
        app.world_mut().write_message(EditMap::Assign {
            kind: walls,
            terrain: name.into(),
        });
    }
    app.update();
    assert_eq!(
        reports(&app, &mut cursor),
        [
            MapEdited(Err(
                "cannot assign: `lava` is no terrain of the terrain table (grass, road, forest, thicket, mud, water, rock)".into()
            )),
            MapEdited(Ok(format!(
                "IntGrid `Collisions` value 1 is rock: {count} cells"
            )))
        ]
    );
    update_until(&mut app, "the walls are rock", |app| {
        cells
            .iter()
            .all(|&p| terrain(app, p).as_deref() == Some("rock"))
    });
    app.world_mut().write_message(EditMap::Save);
    app.update();
    let file = std::path::absolute(&project).unwrap();
    assert_eq!(
        reports(&app, &mut cursor).last(),
        Some(&MapEdited(Ok(format!("saved {}", file.display()))))
    );
    // The value's identifier, and nothing else, changed in the project.
    let saved = std::fs::read_to_string(&project).unwrap();
    let root: serde_json::Value = serde_json::from_str(&saved).unwrap();
    let collisions = root["defs"]["layers"]
        .as_array()
        .unwrap()
        .iter()
        .find(|l| l["identifier"] == "Collisions")
        .unwrap();
    assert_eq!(collisions["intGridValues"][0]["identifier"], "rock");
    assert_eq!(saved.matches("\"rock\"").count(), 1);
    assert_eq!(saved.replacen("\"rock\"", "\"walls\"", 1), original);

    // The reload of the saved project keeps the walls rock; undo makes them walls again.
    reload_undo_and_save_back(&mut app, &cells, "rock", &project, &original);
    let _ = std::fs::remove_dir_all(dir);
}

/// After a save that gave `cells` the terrain `given`: the reload of the saved project keeps
/// it; undo takes it off again, and a save gives back the `original` text byte for byte.
fn reload_undo_and_save_back(
    app: &mut App,
    cells: &[Pos],
    given: &str,
    project: &FsPath,
    original: &str,
) {
    let all = |app: &App, name: &str| {
        let level = app.world().resource::<Level>();
        cells
            .iter()
            .all(|&p| level.terrain(p).is_some_and(|t| t.name == name))
    };
    std::thread::sleep(Duration::from_millis(600));
    for _ in 0..20 {
        app.update();
        std::thread::sleep(Duration::from_millis(25));
    }
    assert!(all(app, given), "the reload keeps the cells {given}");
    app.world_mut().write_message(EditMap::Undo);
    update_until(app, "the cells have no terrain again", |app| {
        all(app, "no terrain")
    });
    app.world_mut().write_message(EditMap::Save);
    app.update();
    assert_eq!(std::fs::read_to_string(project).unwrap(), original);
}

#[test]
fn the_cells_without_an_int_grid_value_given_a_terrain_are_saved_as_the_levels_default_terrain() {
    // LDtk's top-down example: 312 cells of its first level have no IntGrid value.
    let (dir, project) = top_down_copy("terrain-mode-level-field");
    let original = std::fs::read_to_string(&project).unwrap();
    let mut app = watching(project.clone());
    let mut cursor = bevy::ecs::message::MessageCursor::<MapEdited>::default();
    let level = |app: &App| app.world().resource::<Level>().clone();
    let tiled = level(&app).tiled.unwrap();
    let (kind, count) = tiled.no_value_kind().unwrap();
    assert_eq!(count, 312);
    let cells = tiled.cells_of(kind);
    let terrain = |app: &App, p: Pos| level(app).terrain(p).map(|t| t.name.clone());
    assert_eq!(terrain(&app, cells[0]).as_deref(), Some("no terrain"));

    app.world_mut().write_message(EditMap::Assign {
        kind,
        terrain: "road".into(),
    });
    app.update();
    assert_eq!(
        reports(&app, &mut cursor),
        [MapEdited(Ok(
            "cells without an IntGrid value are road: 312 cells, and those of IntGrid values that name no terrain".into()
        ))]
    );
    update_until(&mut app, "the cells are road", |app| {
        cells
            .iter()
            .all(|&p| terrain(app, p).as_deref() == Some("road"))
    });
    app.world_mut().write_message(EditMap::Save);
    app.update();
    let file = std::path::absolute(&project).unwrap();
    assert_eq!(
        reports(&app, &mut cursor).last(),
        Some(&MapEdited(Ok(format!("saved {}", file.display()))))
    );
    let saved = std::fs::read_to_string(&project).unwrap();
    let root: serde_json::Value = serde_json::from_str(&saved).unwrap();
    assert_eq!(root["levels"][0]["fieldInstances"][0]["__value"], "road");
    assert_eq!(
        root["defs"]["levelFields"][0]["identifier"],
        "default_terrain"
    );

    // The reload of the saved project keeps them road; undo and a save give back the
    // project byte for byte.
    reload_undo_and_save_back(&mut app, &cells, "road", &project, &original);
    let _ = std::fs::remove_dir_all(dir);
}
