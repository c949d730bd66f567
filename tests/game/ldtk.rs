//! LDtk projects: LDtk's own samples (`../shared/ldtk-corpus/`) open or are refused at
//! their line, through the command line's reader and the asset server alike; the terrain
//! of a level checked cell by cell against its IntGrid CSV read here on its own; units from
//! entities; errors at their line, column and JSON path.

use std::collections::HashMap;
use std::path::{Path as FsPath, PathBuf};
use std::process::Command;

use bevy::prelude::*;
use bevy_tilewalk::Team;
use serde_json::Value;
use tilewalk::level::Level;
use tilewalk::map::ldtk::read_ldtk;
use tilewalk::terrain::TerrainTable;
use tilewalk_path::Pos;

use super::{FOOT, table};

/// A file of `../shared/ldtk-corpus/` (LDtk's sample projects).
fn corpus(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../shared/ldtk-corpus")
        .join(name)
}

/// How a project's first level opens: `Ok` with its size in cells, or the end of the
/// message that refuses it.
type Outcome = Result<(u32, u32), &'static str>;

/// The refusal of a level drawn from an Aseprite file.
const ASEPRITE: &str = "the tileset `NuclearBlaze_by_deepnight` is drawn from atlas/NuclearBlaze_by_deepnight.aseprite: tilewalk draws PNG images (export it to a PNG and point the tileset at that) (at $.defs.tilesets[1].relPath)";

/// Every project of the corpus, and how its first level opens.
const CORPUS: &[(&str, Outcome)] = &[
    ("AutoLayers_1_basic.ldtk", Ok((37, 26))),
    ("AutoLayers_2_stamps.ldtk", Ok((17, 16))),
    ("AutoLayers_3_Mosaic.ldtk", Ok((23, 17))),
    ("AutoLayers_4_Assistant.ldtk", Ok((23, 14))),
    ("AutoLayers_5_Advanced.ldtk", Ok((37, 38))),
    ("AutoLayers_6_OptionalRules.ldtk", Ok((32, 32))),
    ("AutoLayers_7_Biomes.ldtk", Ok((59, 44))),
    ("Entities.ldtk", Ok((51, 29))),
    ("SeparateLevelFiles.ldtk", Ok((15, 15))),
    ("Test_file_for_API_showing_all_features.ldtk", Ok((85, 71))),
    ("Typical_2D_platformer_example.ldtk", Ok((53, 21))),
    ("Typical_TopDown_example.ldtk", Ok((32, 16))),
    // Its first level is drawn from an Aseprite file.
    ("WorldMap_Free_layout.ldtk", Err(ASEPRITE)),
    ("WorldMap_GridVania_layout.ldtk", Ok((32, 16))),
];

/// Loads `map` as `play` does (through the asset server, the level `level`): the level's
/// size and name, or the error the game reports.
fn played(map: &FsPath, level: Option<&str>, assets: &FsPath) -> Result<(u32, u32), String> {
    use tilewalk::assets::{FileErrors, MapFile, MapLevel};
    let mut app = App::new();
    tilewalk::map::register_map_source(&mut app, map);
    app.insert_resource(MapLevel(level.map(str::to_owned)));
    app.add_plugins((
        MinimalPlugins,
        AssetPlugin {
            file_path: assets.display().to_string(),
            ..default()
        },
        tilewalk::simulation_plugin,
        tilewalk::level::assets_plugin,
        tilewalk::tactics::assets_plugin,
    ))
    .insert_resource(MapFile(map.to_path_buf()));
    for _ in 0..4000 {
        app.update();
        if let Some(level) = app.world().get_resource::<Level>() {
            return Ok((level.width, level.height));
        }
        if let Some((_, error)) = app.world().resource::<FileErrors>().0.iter().next() {
            return Err(error.clone());
        }
        std::thread::sleep(std::time::Duration::from_millis(5));
    }
    panic!("{} neither loads nor fails", map.display());
}

/// Every level's identifier of a project, read here with serde_json.
fn level_names(file: &FsPath) -> Vec<String> {
    let project: Value = serde_json::from_str(&std::fs::read_to_string(file).unwrap()).unwrap();
    project["levels"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| l["identifier"].as_str().unwrap().to_owned())
        .collect()
}

#[test]
fn every_project_of_the_corpus_opens_or_is_refused_at_its_line_for_a_real_limit() {
    let mut found: Vec<String> = std::fs::read_dir(corpus(""))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "ldtk"))
        .map(|p| p.file_name().unwrap().to_string_lossy().into_owned())
        .collect();
    found.sort_unstable();
    let listed: Vec<&str> = CORPUS.iter().map(|(name, _)| *name).collect();
    assert_eq!(found, listed, "the test lists every project of the corpus");
    for (name, expected) in CORPUS {
        let file = corpus(name);
        match (read_ldtk(&file, None), expected) {
            (Ok(map), Ok(size)) => {
                assert_eq!((map.width, map.height), *size, "{name}");
                let mut app = tilewalk::headless_app(&map, &table())
                    .unwrap_or_else(|e| panic!("{name}: {e}"));
                app.update();
                assert!(app.world().resource::<Level>().cells().count() > 0);
            }
            (Err(error), Err(end)) => {
                let error = error.to_string();
                assert!(
                    error.starts_with(&file.display().to_string()) && error.ends_with(end),
                    "{name}: {error}"
                );
            }
            (got, want) => panic!("{name}: {:?}, expected {want:?}", got.map(|m| m.width)),
        }
        // Every other level opens too, or is refused for the same limit.
        for level in level_names(&file) {
            match read_ldtk(&file, Some(&level)) {
                Ok(map) => assert!(map.width > 0 && map.height > 0, "{name} {level}"),
                Err(error) => assert!(
                    error.to_string().ends_with(ASEPRITE),
                    "{name} {level}: {error}"
                ),
            }
        }
    }
    // `play` loads them through the asset server, as the game does.
    let assets = std::env::temp_dir().join(format!("tilewalk-ldtk-corpus-{}", std::process::id()));
    std::fs::create_dir_all(&assets).unwrap();
    for file in ["terrain.ron", "tactics.ron"] {
        std::fs::copy(
            PathBuf::from(env!("CARGO_MANIFEST_DIR"))
                .join("assets")
                .join(file),
            assets.join(file),
        )
        .unwrap();
    }
    for (name, expected) in CORPUS {
        match (played(&corpus(name), None, &assets), expected) {
            (Ok(size), Ok(want)) => assert_eq!(size, *want, "{name}"),
            (Err(error), Err(end)) => assert!(error.ends_with(end), "{name}: {error}"),
            (got, want) => panic!("{name}: {got:?}, expected {want:?}"),
        }
    }
    // An external level (`.ldtkl`), by name.
    let separate = corpus("SeparateLevelFiles.ldtk");
    assert_eq!(
        played(&separate, Some("World_Level_2"), &assets),
        Ok((15, 15))
    );
    let _ = std::fs::remove_dir_all(assets);
}

/// A table whose terrains are named like AutoLayers_5_Advanced's IntGrid values (letter
/// case changed: names match case aside), each with its own cost for foot.
fn advanced_table() -> TerrainTable {
    TerrainTable::parse(ADVANCED_TABLE).unwrap()
}

/// The text of [`advanced_table`].
const ADVANCED_TABLE: &str = r#"(
    classes: [(name: "foot", speed: 3.0)],
    terrains: [
        (name: "Walls", glyphs: "w", tile: 0, cost: {}),
        (name: "water", glyphs: "~", tile: 1, cost: {"foot": 6.0}),
        (name: "LADDER", glyphs: "l", tile: 2, cost: {"foot": 2.0}),
        (name: "lava", glyphs: "v", tile: 3, cost: {"foot": 9.5}),
    ],
)"#;

#[test]
fn a_levels_costs_are_its_intgrid_values_cell_by_cell() {
    let file = corpus("AutoLayers_5_Advanced.ldtk");
    // The IntGrid CSV and the values' identifiers, read here on their own.
    let project: Value = serde_json::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap();
    let names: HashMap<u64, String> = project["defs"]["layers"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|l| l["intGridValues"].as_array().unwrap())
        .map(|v| {
            let name = v["identifier"].as_str().unwrap().to_owned();
            (v["value"].as_u64().unwrap(), name)
        })
        .collect();
    let layer = project["levels"][0]["layerInstances"]
        .as_array()
        .unwrap()
        .iter()
        .find(|l| l["__type"] == "IntGrid")
        .unwrap();
    let columns = layer["__cWid"].as_u64().unwrap() as u32;
    let csv: Vec<u64> = layer["intGridCsv"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_u64().unwrap())
        .collect();
    let expected_cost = |value: u64| match names.get(&value).map(String::as_str) {
        Some("water") => Some(6.0),
        Some("ladder") => Some(2.0),
        Some("lava") => Some(9.5),
        // Walls and empty cells are impassable.
        _ => None,
    };

    let map = read_ldtk(&file, None).unwrap();
    let table = advanced_table();
    let (level, nav) = Level::build(&map, &table).unwrap();
    assert_eq!(level.cells().count(), csv.len());
    let mut seen = [0; 5];
    for (i, value) in csv.iter().enumerate() {
        let pos = Pos::new(i as u32 % columns, i as u32 / columns);
        let cost = level.terrain(pos).and_then(|t| t.cost(FOOT));
        assert_eq!(cost, expected_cost(*value), "cell {pos} holds {value}");
        assert_eq!(
            nav.grid(FOOT).cost(pos),
            cost,
            "the navigation's cost of {pos}"
        );
        seen[*value as usize] += 1;
    }
    assert!(
        seen.iter().all(|&n| n > 0),
        "every value and empty cells are met: {seen:?}"
    );
}

/// A small LDtk project, written to `dir`: one 4x3 level of 16 px cells, an IntGrid layer
/// (1 = Grass, 2 = Water) and an entity layer whose `entities` go in as they are.
fn small_project(dir: &FsPath, entities: &str) -> PathBuf {
    let text = format!(
        r#"{{
  "jsonVersion": "1.5.3",
  "defs": {{
    "layers": [
      {{ "uid": 1, "identifier": "Ground", "type": "IntGrid", "gridSize": 16,
         "intGridValues": [ {{ "value": 1, "identifier": "Grass" }}, {{ "value": 2, "identifier": "water" }} ] }},
      {{ "uid": 2, "identifier": "Things", "type": "Entities", "gridSize": 16, "intGridValues": [] }}
    ],
    "tilesets": []
  }},
  "levels": [
    {{
      "identifier": "Meadow", "pxWid": 64, "pxHei": 48, "fieldInstances": [],
      "layerInstances": [
        {{ "__identifier": "Things", "__type": "Entities", "__gridSize": 16, "__cWid": 4, "__cHei": 3,
           "layerDefUid": 2, "entityInstances": [{entities}] }},
        {{ "__identifier": "Ground", "__type": "IntGrid", "__gridSize": 16, "__cWid": 4, "__cHei": 3,
           "layerDefUid": 1, "intGridCsv": [1,1,2,1, 1,2,2,1, 1,1,1,1], "autoLayerTiles": [] }}
      ]
    }}
  ]
}}
"#
    );
    let file = dir.join("small.ldtk");
    std::fs::write(&file, text).unwrap();
    file
}

/// An entity of [`small_project`] at pixel (x, y), 16 px square, pivot at its centre.
fn entity(identifier: &str, (x, y): (u32, u32), fields: &str) -> String {
    format!(
        r#"{{ "__identifier": "{identifier}", "__pivot": [0.5, 0.5], "width": 16, "height": 16,
            "px": [{x}, {y}], "fieldInstances": [{fields}] }}"#
    )
}

fn field(name: &str, value: &str) -> String {
    format!(r#"{{ "__identifier": "{name}", "__type": "String", "__value": {value} }}"#)
}

fn folder(test: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("tilewalk-ldtk-{test}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

#[test]
fn entities_with_a_team_field_are_units() {
    let dir = folder("units");
    let knight = entity(
        "Hero",
        (24, 8),
        &[
            field("team", "\"blue\""),
            field("name", "\"knight\""),
            field("class", "\"foot\""),
        ]
        .join(","),
    );
    let raider = entity(
        "Raider",
        (56, 40),
        &[field("Team", "\"red\""), field("class", "\"horse\"")].join(","),
    );
    let chest = entity("Chest", (8, 40), &field("loot", "\"gold\""));
    let file = small_project(&dir, &[knight, raider, chest].join(","));
    let map = read_ldtk(&file, None).unwrap();
    let units: Vec<(&str, Team, &str, Pos)> = map
        .units
        .iter()
        .map(|u| (u.name.as_str(), u.team, u.class.as_str(), u.pos))
        .collect();
    assert_eq!(
        units,
        [
            ("knight", Team::BLUE, "foot", Pos::new(1, 0)),
            ("Raider", Team::RED, "horse", Pos::new(3, 2)),
        ]
    );
    // The terrain: Grass and water by name, letter case aside.
    let (level, _) = Level::build(&map, &table()).unwrap();
    assert_eq!(level.terrain(Pos::new(0, 0)).unwrap().name, "grass");
    assert_eq!(level.terrain(Pos::new(2, 1)).unwrap().name, "water");

    // A bad team is refused at its value, with its JSON path.
    let wrong = entity("Hero", (24, 8), &field("team", "\"green\""));
    let file = small_project(&dir, &wrong);
    let error = read_ldtk(&file, None).unwrap_err().to_string();
    assert_eq!(
        error,
        format!(
            "{}:17:104: entity `Hero`: the `team` field must be blue or red, got `green` (at $.levels[0].layerInstances[0].entityInstances[0].fieldInstances[0].__value)",
            file.display()
        )
    );
    let _ = std::fs::remove_dir_all(dir);
}

#[test]
fn errors_name_the_line_column_and_json_path() {
    let dir = folder("errors");
    let file = small_project(&dir, "");
    let text = std::fs::read_to_string(&file).unwrap();
    let error = |text: &str, level: Option<&str>| {
        std::fs::write(&file, text).unwrap();
        read_ldtk(&file, level)
            .unwrap_err()
            .to_string()
            .strip_prefix(&format!("{}:", file.display()))
            .unwrap()
            .to_owned()
    };
    assert_eq!(
        error(&text.replace("\"pxWid\": 64", "\"pxWid\": \"wide\""), None),
        "13:40: expected a whole number, got `wide` (at $.levels[0].pxWid)"
    );
    assert_eq!(
        error(&text.replace("1,1,2,1, ", ""), None),
        "18:44: 8 values for a layer of 4x3 cells (at $.levels[0].layerInstances[1].intGridCsv)"
    );
    assert_eq!(
        error(&text.replace("\"Meadow\",", "\"Meadow\""), None),
        "13:30: expected `,` or `}`"
    );
    assert_eq!(
        error(&text, Some("Cave")),
        "11:13: the project has no level `Cave` (its levels: Meadow) (at $.levels)"
    );
    let _ = std::fs::remove_dir_all(dir);
}

fn tilewalk(args: &[&str]) -> (Option<i32>, String) {
    let output = Command::new(env!("CARGO_BIN_EXE_tilewalk"))
        .args(args)
        .output()
        .expect("the binary runs");
    let text = String::from_utf8_lossy(&output.stdout).into_owned()
        + &String::from_utf8_lossy(&output.stderr);
    (output.status.code(), text)
}

#[test]
fn path_simulate_and_tactics_take_an_ldtk_level() {
    let dir = folder("cli");
    let knight = entity(
        "Hero",
        (8, 8),
        &[field("team", "\"blue\""), field("class", "\"foot\"")].join(","),
    );
    let file = small_project(&dir, &knight);
    let map = file.to_str().unwrap();
    // Around the water, over grass: two straight steps and two diagonal ones.
    let (code, output) = tilewalk(&[
        "path", "--map", map, "--from", "0,0", "--to", "3,1", "--json",
    ]);
    assert_eq!(code, Some(0), "{output}");
    let path: Value = serde_json::from_str(output.lines().next().unwrap()).unwrap();
    let cost = path["cost"].as_f64().unwrap();
    assert!(
        (cost - (2.0 + 2.0 * std::f64::consts::SQRT_2)).abs() < 1e-9,
        "{output}"
    );
    assert_eq!(path["steps"][2], serde_json::json!([1, 2]), "{output}");
    let (code, output) = tilewalk(&[
        "simulate", "--map", map, "--level", "Meadow", "--order", "Hero:3,2", "--json",
    ]);
    assert_eq!(code, Some(0), "{output}");
    assert!(output.contains("\"tile\":[3,2]"), "{output}");
    let (code, output) = tilewalk(&["tactics", "--map", map, "--range", "Hero"]);
    assert_eq!(code, Some(0), "{output}");
    let (code, output) = tilewalk(&[
        "path", "--map", map, "--level", "Cave", "--from", "0,0", "--to", "1,0",
    ]);
    assert_eq!(code, Some(2), "{output}");
    assert!(
        output.contains("the project has no level `Cave`"),
        "{output}"
    );
    let _ = std::fs::remove_dir_all(dir);
}

/// `project` written as LDtk 0.6 wrote it: IntGrid values without `value` (counted from
/// 1), IntGrid cells as a list of `{coordId, v}` with `v` counted from 0 in place of
/// `intGridCsv`, tiles without their id `t` (only their corner `src` in the image), and
/// tilesets without `spacing` and `padding` (0). Only for a project whose values are 1, 2,
/// 3… in order and whose tilesets have neither spacing nor padding.
fn as_ldtk_0_6(mut project: Value) -> Value {
    for layer in project["defs"]["layers"].as_array_mut().unwrap() {
        for (i, value) in layer["intGridValues"]
            .as_array_mut()
            .unwrap()
            .iter_mut()
            .enumerate()
        {
            let value = value.as_object_mut().unwrap();
            assert_eq!(value.remove("value"), Some(Value::from(i + 1)));
        }
    }
    for tileset in project["defs"]["tilesets"].as_array_mut().unwrap() {
        let tileset = tileset.as_object_mut().unwrap();
        assert_eq!(tileset.remove("spacing"), Some(Value::from(0)));
        assert_eq!(tileset.remove("padding"), Some(Value::from(0)));
    }
    for level in project["levels"].as_array_mut().unwrap() {
        for layer in level["layerInstances"].as_array_mut().unwrap() {
            let layer = layer.as_object_mut().unwrap();
            for tiles in ["gridTiles", "autoLayerTiles"] {
                for tile in layer[tiles].as_array_mut().unwrap() {
                    tile.as_object_mut().unwrap().remove("t").unwrap();
                }
            }
            let csv = layer.remove("intGridCsv").unwrap();
            let cells: Vec<Value> = csv
                .as_array()
                .unwrap()
                .iter()
                .enumerate()
                .filter(|(_, v)| v.as_u64() != Some(0))
                .map(|(i, v)| serde_json::json!({"coordId": i, "v": v.as_u64().unwrap() - 1}))
                .collect();
            layer.insert("intGrid".into(), Value::from(cells));
        }
    }
    project["jsonVersion"] = Value::from("0.6.2");
    project
}

#[test]
fn projects_of_ldtk_0_6_open_as_ldtk_reads_them() {
    let dir = folder("old");
    for name in [
        "AutoLayers_5_Advanced.ldtk",
        "Test_file_for_API_showing_all_features.ldtk",
        "Typical_TopDown_example.ldtk",
    ] {
        let file = corpus(name);
        let project: Value =
            serde_json::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap();
        let old = dir.join(name);
        std::fs::write(
            &old,
            serde_json::to_string_pretty(&as_ldtk_0_6(project)).unwrap(),
        )
        .unwrap();
        let (new, old) = (read_ldtk(&file, None).unwrap(), read_ldtk(&old, None));
        let old = old.unwrap_or_else(|e| panic!("{name}: {e}"));
        let (new_tiles, old_tiles) = (new.tiles.as_ref().unwrap(), old.tiles.as_ref().unwrap());
        assert!(!new_tiles.layers.is_empty(), "{name}");
        assert_eq!(
            new_tiles.layers, old_tiles.layers,
            "{name}: every cell's tile"
        );
        let table = advanced_table();
        let (level, _) = Level::build(&new, &table).unwrap();
        let (old_level, _) = Level::build(&old, &table).unwrap();
        for pos in level.cells() {
            assert_eq!(
                level.terrain(pos).map(|t| t.name.clone()),
                old_level.terrain(pos).map(|t| t.name.clone()),
                "{name}: the terrain of {pos}"
            );
        }
    }
    let _ = std::fs::remove_dir_all(dir);
}

#[test]
fn headless_commands_read_a_project_whose_images_are_missing_and_name_each() {
    let dir = folder("no-art");
    let name = "AutoLayers_5_Advanced.ldtk";
    std::fs::copy(corpus(name), dir.join(name)).unwrap();
    assert!(corpus("atlas/Cavernas_by_Adam_Saltsman.png").is_file());
    let table = dir.join("advanced.ron");
    std::fs::write(&table, ADVANCED_TABLE).unwrap();
    // Where the project names the image: the value of the tileset's `relPath`.
    let text = std::fs::read_to_string(corpus(name)).unwrap();
    let image = "atlas/Cavernas_by_Adam_Saltsman.png";
    let line = text
        .lines()
        .position(|l| l.contains(&format!("\"relPath\": \"{image}\"")))
        .unwrap();
    let column = text.lines().nth(line).unwrap().find("\"atlas").unwrap() + 1;
    // Down the water of the level's west side and along the bottom.
    let args = [
        "path",
        "--terrain",
        table.to_str().unwrap(),
        "--from",
        "5,8",
        "--to",
        "21,35",
        "--json",
    ];
    super::tiled::reads_without_art(
        &corpus(name),
        &dir.join(name),
        &args,
        image,
        (line + 1, column),
    );
    let (_, output) = tilewalk(
        &[
            &args[..1],
            &["--map", dir.join(name).to_str().unwrap()],
            &args[1..],
        ]
        .concat(),
    );
    let path: Value = serde_json::from_str(output.lines().next().unwrap()).unwrap();
    assert!(path["cost"].as_f64().unwrap() > 0.0, "{output}");
    let _ = std::fs::remove_dir_all(dir);
}

#[test]
fn cells_without_terrain_are_told_the_fix_in_ldtk() {
    let map = read_ldtk(&corpus("Typical_TopDown_example.ldtk"), None).unwrap();
    let (level, _) = Level::build(&map, &advanced_table()).unwrap();
    let note = level.notes()[0].to_string();
    assert!(
        note.contains("no terrain and are impassable")
            && note.ends_with(
                "(give its IntGrid values terrains in the game (`play`, then P), name an IntGrid value after a terrain of the terrain table in LDtk, or give the level a `default_terrain` field naming one)"
            ),
        "{note}"
    );
    assert!(!note.contains("Class"), "{note}");
}
