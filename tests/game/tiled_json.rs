//! Maps in Tiled's JSON format (`.tmj` maps, `.tsj` tilesets, `.tj` templates): Tiled's own
//! JSON exports of the Tiled corpus give the levels their `.tmx` twins give, broken JSON
//! files are refused at the JSON value at fault, and the game loads `.tmj` as `.tmx`.

use std::collections::HashMap;
use std::path::{Path as FsPath, PathBuf};

use tilewalk::level::Level;
use tilewalk::map::tmx::{self, TilesetImages};
use tilewalk::terrain::TerrainTable;

use super::tiled::{Outcome, corpus, desert_table, example, played, tilewalk};
use super::*;

/// A file of `../shared/tiled-corpus-json/` (Tiled 1.8.2's JSON exports of the Tiled corpus).
fn json_corpus(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../shared/tiled-corpus-json")
        .join(name)
}

/// Everything a map gives the game, where its values are written aside: its size, board,
/// projection and units, every cell's terrain under `table` with the warnings, and what
/// draws each cell.
fn level(map: &MapAsset, table: &TerrainTable) -> String {
    let units: Vec<_> = map
        .units
        .iter()
        .map(|u| (&u.name, u.team, &u.class, u.pos, u.attack))
        .collect();
    let resolved = map.resolve(table).map(|r| {
        let warnings: Vec<String> = r.warnings.iter().map(|w| w.message.clone()).collect();
        (r.table, r.terrain, warnings)
    });
    let tiles = map.tiles.as_ref().map(|t| {
        let tilesets: Vec<_> = t
            .tilesets
            .iter()
            .map(|s| {
                // An image collection's tiles in id order (`tiled` lists them in no order).
                let mut images = s.images.clone();
                if let TilesetImages::Collection(tiles) = &mut images {
                    tiles.sort_by_key(|(id, _)| *id);
                }
                (&s.name, images, s.offset)
            })
            .collect();
        (t.grid, t.hex_side, &t.layers, tilesets)
    });
    format!(
        "{:?}",
        (
            map.width,
            map.height,
            map.board,
            map.projection,
            units,
            resolved,
            tiles
        )
    )
}

/// Asserts that two levels are the same, showing where they first differ.
fn same(name: &str, json: &str, xml: &str) {
    let Some(at) = json.bytes().zip(xml.bytes()).position(|(a, b)| a != b) else {
        assert_eq!(json.len(), xml.len(), "{name}");
        return;
    };
    let near = |text: &str| {
        String::from_utf8_lossy(
            &text.as_bytes()[at.saturating_sub(150)..(at + 150).min(text.len())],
        )
        .into_owned()
    };
    panic!(
        "{name}: the JSON map's level differs from the TMX's at {at}:\n{}\nvs\n{}",
        near(json),
        near(xml)
    );
}

/// Where a JSON map's level differs from its TMX twin's: what the JSON's shows, and the
/// TMX's instead. `templates/grass_walls.tsx` says 18 tiles (6 columns of a 192x96 image)
/// where its image is 448x192: Tiled recounted them (84, 14 columns) when it exported the
/// `.tsj`. What `SOURCES.md` lists as lost (capsules, list and class properties, tile
/// sub-rectangles, render options) changes no level: tilewalk reads none of it.
const DIFFERENT: &[(&str, &str, &str)] = &[(
    "rs-tiled/templates/example.tmj",
    "spacing: 0, count: 84 }",
    "spacing: 0, count: 18 }",
)];

/// How each JSON map of the corpus opens (`Ok` with its size, or the end of the message that
/// refuses it), and what differs from its `.tmx` twin: nothing, or what `SOURCES.md` says
/// Tiled 1.8.2 dropped and the level shows.
const JSON_CORPUS: &[(&str, Outcome)] = &[
    ("rs-tiled/folder/tiled_relative_paths.tmj", Ok((16, 16))),
    ("rs-tiled/ldk_tiled_export.tmj", Ok((8, 8))),
    ("rs-tiled/templates/example.tmj", Ok((100, 100))),
    ("rs-tiled/tiled_base64.tmj", Ok((100, 100))),
    ("rs-tiled/tiled_base64_external.tmj", Ok((100, 100))),
    ("rs-tiled/tiled_base64_gzip.tmj", Ok((100, 100))),
    ("rs-tiled/tiled_base64_zlib.tmj", Ok((100, 100))),
    ("rs-tiled/tiled_base64_zlib_infinite.tmj", Ok((64, 64))),
    ("rs-tiled/tiled_base64_zstandard.tmj", Ok((100, 100))),
    ("rs-tiled/tiled_class_property.tmj", Ok((2, 2))),
    ("rs-tiled/tiled_csv.tmj", Ok((100, 100))),
    ("rs-tiled/tiled_csv_wangsets.tmj", Ok((30, 20))),
    ("rs-tiled/tiled_flipped.tmj", Ok((2, 2))),
    ("rs-tiled/tiled_group_layers.tmj", Ok((8, 8))),
    (
        "rs-tiled/tiled_image_layers.tmj",
        Err(":1:1: the map has no tile layer (tilewalk needs one for the terrain) (at $)"),
    ),
    ("rs-tiled/tiled_object_capsule.tmj", Ok((2, 2))),
    ("rs-tiled/tiled_object_groups.tmj", Ok((10, 10))),
    ("rs-tiled/tiled_object_list_property.tmj", Ok((2, 2))),
    ("rs-tiled/tiled_object_nested_list_property.tmj", Ok((2, 2))),
    ("rs-tiled/tiled_object_property.tmj", Ok((2, 2))),
    ("rs-tiled/tiled_object_template.tmj", Ok((3, 3))),
    ("rs-tiled/tiled_parallax.tmj", Ok((10, 10))),
    ("rs-tiled/tiled_repeat.tmj", Ok((10, 10))),
    (
        "rs-tiled/tiled_text_object.tmj",
        Err(":1:1: the map has no tile layer (tilewalk needs one for the terrain) (at $)"),
    ),
    ("rs-tiled/tiled_xml.tmj", Ok((100, 100))),
    ("tiled-examples/desert.tmj", Ok((40, 40))),
    ("tiled-examples/forest/forest.tmj", Ok((40, 16))),
    ("tiled-examples/hexagonal-mini.tmj", Ok((20, 20))),
    ("tiled-examples/isometric_grass_and_water.tmj", Ok((25, 25))),
    (
        "tiled-examples/isometric_staggered_grass_and_water.tmj",
        Ok((64, 63)),
    ),
    ("tiled-examples/orthogonal-outside.tmj", Ok((45, 31))),
    ("tiled-examples/perspective_walls.tmj", Ok((32, 32))),
    ("tiled-examples/rpg/island.tmj", Ok((58, 47))),
    ("tiled-examples/sewers.tmj", Ok((50, 50))),
    (
        "tiled-examples/sticker-knight/map/sandbox.tmj",
        Err(":1:1: the map has no tile layer (tilewalk needs one for the terrain) (at $)"),
    ),
    (
        "tiled-examples/sticker-knight/map/sandbox2.tmj",
        Err(":1:1: the map has no tile layer (tilewalk needs one for the terrain) (at $)"),
    ),
    (
        "tiled-examples/sticker-knight/ui/title.json",
        Err(":1:1: the map has no tile layer (tilewalk needs one for the terrain) (at $)"),
    ),
    (
        "tiled-examples/test_hexagonal_tile_60x60x30.tmj",
        Ok((20, 20)),
    ),
];

#[test]
fn every_json_map_of_the_corpus_gives_the_level_of_its_tmx_twin() {
    let mut listed: Vec<&str> = JSON_CORPUS.iter().map(|(name, _)| *name).collect();
    listed.sort_unstable();
    let mut found: Vec<String> = Vec::new();
    let mut folders = vec![json_corpus("")];
    while let Some(folder) = folders.pop() {
        for entry in std::fs::read_dir(&folder).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                folders.push(path);
            } else if path.extension().is_some_and(|e| e == "tmj" || e == "json") {
                let name = path.strip_prefix(json_corpus("")).unwrap();
                found.push(name.to_string_lossy().replace('\\', "/"));
            }
        }
    }
    found.sort_unstable();
    assert_eq!(found, listed, "the test lists every JSON map of the corpus");

    let tables = [table(), desert_table()];
    let mut compared = 0;
    for (name, expected) in JSON_CORPUS {
        let file = json_corpus(name);
        let twin = corpus(&name.replace(".tmj", ".tmx"));
        match (tmx::read_tmx(&file), expected) {
            (Ok(map), Ok(size)) => {
                assert_eq!((map.width, map.height), *size, "{name}");
                let tmx = tmx::read_tmx(&twin).unwrap();
                for table in &tables {
                    let mut json = level(&map, table);
                    if let Some(&(_, from, to)) = DIFFERENT.iter().find(|(n, _, _)| n == name) {
                        assert!(json.contains(from), "{name}: {from}");
                        json = json.replace(from, to);
                    }
                    same(name, &json, &level(&tmx, table));
                }
                compared += 1;
                let mut app =
                    headless_app(&map, &table()).unwrap_or_else(|e| panic!("{name}: {e}"));
                app.update();
                assert!(
                    app.world().resource::<Level>().cells().count() > 0,
                    "{name}"
                );
            }
            (Err(error), Err(end)) => {
                let error = error.to_string();
                assert!(
                    error.starts_with(&file.display().to_string()) && error.ends_with(end),
                    "{name}: {error}"
                );
                if twin.exists() {
                    let twin_error = tmx::read_tmx(&twin).unwrap_err().to_string();
                    let says = |e: &str| e.split(": ").skip(1).collect::<Vec<_>>().join(": ");
                    assert!(says(&error).starts_with(&says(&twin_error)), "{name}");
                }
            }
            (got, want) => panic!("{name}: {:?}, expected {want:?}", got.map(|m| m.width)),
        }
    }
    assert_eq!(compared, 33);

    // `play` loads them through the asset server, as the game does.
    let assets = std::env::temp_dir().join(format!("tilewalk-json-corpus-{}", std::process::id()));
    std::fs::create_dir_all(&assets).unwrap();
    for file in ["terrain.ron", "tactics.ron"] {
        std::fs::copy(example(&format!("assets/{file}")), assets.join(file)).unwrap();
    }
    for (name, expected) in JSON_CORPUS {
        if !name.ends_with(".tmj") {
            continue;
        }
        match (played(&json_corpus(name), &assets), expected) {
            (Ok(size), Ok(want)) => assert_eq!(size, *want, "{name}"),
            (Err(error), Err(end)) => assert!(error.ends_with(end), "{name}: {error}"),
            (got, want) => panic!("{name}: {got:?}, expected {want:?}"),
        }
    }
    let _ = std::fs::remove_dir_all(assets);
}

#[test]
fn the_example_json_map_is_its_tmx_twin() {
    let json = tmx::read_tmx(&example("assets/tiled/square.tmj")).unwrap();
    let xml = tmx::read_tmx(&example("assets/tiled/square.tmx")).unwrap();
    let table = super::tiled::table_with_ford();
    same("square.tmj", &level(&json, &table), &level(&xml, &table));
    assert_eq!(json.units.len(), 6);
    // Each unit is where its object is written in the JSON.
    let text = std::fs::read_to_string(example("assets/tiled/square.tmj")).unwrap();
    let archer = text.find("\"name\":\"archer\"").unwrap();
    let object = text[..archer].rfind('{').unwrap();
    let unit = json.units.iter().find(|u| u.name == "archer").unwrap();
    assert_eq!((unit.line, unit.column), ascii_at(&text, object));
}

/// Line and column of byte `offset` of an ASCII text.
fn ascii_at(text: &str, offset: usize) -> (usize, usize) {
    let line_start = text[..offset].rfind('\n').map_or(0, |i| i + 1);
    (
        text[..offset].matches('\n').count() + 1,
        offset - line_start + 1,
    )
}

/// Line and column of the first `needle` in `text`, after the first `after`.
fn at_of(text: &str, after: &str, needle: &str) -> (usize, usize) {
    let from = text
        .find(after)
        .unwrap_or_else(|| panic!("`{after}` in {text}"));
    let at = from
        + text[from..]
            .find(needle)
            .unwrap_or_else(|| panic!("`{needle}`"));
    ascii_at(text, at)
}

/// A 4x2 JSON map of a 4-tile tileset (grass, road, water, rock), embedded or in `t.tsj`,
/// with `layers` (the text of its layers' items).
fn tmj(tileset: &str, layers: &str) -> String {
    format!(
        "{{ \"type\": \"map\", \"version\": \"1.10\", \"orientation\": \"orthogonal\",\n \"width\": 4, \"height\": 2, \"tilewidth\": 32, \"tileheight\": 32, \"infinite\": false,\n \"tilesets\": [{tileset}],\n \"layers\": [\n{layers}\n ]\n}}\n"
    )
}

const EMBEDDED: &str = "{\"firstgid\": 1, \"name\": \"t\", \"tilewidth\": 32, \"tileheight\": 32, \"tilecount\": 4, \"columns\": 4,\n   \"image\": \"t.png\", \"imagewidth\": 128, \"imageheight\": 32,\n   \"tiles\": [{\"id\": 0, \"type\": \"grass\"}, {\"id\": 1, \"type\": \"road\"}, {\"id\": 2, \"type\": \"water\"}, {\"id\": 3, \"type\": \"rock\"}]}";

const LAYER: &str = "  {\"type\": \"tilelayer\", \"name\": \"ground\", \"width\": 4, \"height\": 2,\n   \"data\": [1, 1, 2, 2,\n            3, 3, 4, 1]}";

fn units(objects: &str) -> String {
    format!(",\n  {{\"type\": \"objectgroup\", \"name\": \"units\", \"objects\": [\n{objects}]}}")
}

fn unit(id: u32, name: &str, x: u32) -> String {
    format!(
        "   {{\"id\": {id}, \"name\": \"{name}\", \"type\": \"foot\", \"x\": {x}, \"y\": 0, \"width\": 32, \"height\": 32,\n    \"properties\": [{{\"name\": \"team\", \"type\": \"string\", \"value\": \"blue\"}}]}}"
    )
}

/// The error parsing `map` (as `t/m.tmj`) with `files` (each in `t/`).
fn refused(map: &str, files: &[(&str, &str)]) -> String {
    let files: HashMap<PathBuf, String> = files
        .iter()
        .map(|(name, text)| (PathBuf::from("t").join(name), (*text).to_owned()))
        .collect();
    tmx::parse(FsPath::new("t/m.tmj"), map, &files)
        .unwrap_err()
        .to_string()
}

fn starts(error: &str, file: &str, at: (usize, usize), says: &str) {
    let head = format!("t/{file}:{}:{}: ", at.0, at.1);
    assert!(
        error.starts_with(&head) && error.contains(says),
        "expected `{head}…{says}…`, got {error}"
    );
}

#[test]
fn broken_json_files_are_refused_at_the_value_at_fault() {
    // The good map opens, its units at their objects.
    let good = tmj(EMBEDDED, &(LAYER.to_owned() + &units(&unit(1, "ann", 0))));
    let files = HashMap::new();
    let map = tmx::parse(FsPath::new("t/m.tmj"), &good, &files).unwrap();
    assert_eq!((map.width, map.height, map.units.len()), (4, 2, 1));
    assert_eq!(
        (map.units[0].line, map.units[0].column),
        at_of(&good, "\"objects\"", "{\"id\": 1")
    );

    // A syntax error, where the JSON reader stops.
    let broken = good.replacen("\"width\": 4,", "\"width\": 4,,", 1);
    let error = refused(&broken, &[]);
    starts(
        &error,
        "m.tmj",
        at_of(&broken, "\"width\": 4,", ", \"height\""),
        "key must be a string",
    );
    let error = refused(&good[..good.len() - 4], &[]);
    assert!(error.contains("EOF while parsing"), "{error}");

    // A value of the wrong type, at the value.
    let wrong = good.replacen(
        "\"width\": 4, \"height\": 2,\n   \"data\"",
        "\"width\": \"four\", \"height\": 2,\n   \"data\"",
        1,
    );
    starts(
        &refused(&wrong, &[]),
        "m.tmj",
        at_of(&wrong, "\"ground\"", "\"four\""),
        "expected a whole number, got `four` (at $.layers[0].width)",
    );
    let wrong = good.replacen(
        "\"name\": \"ground\",",
        "\"name\": \"ground\", \"visible\": \"yes\",",
        1,
    );
    starts(
        &refused(&wrong, &[]),
        "m.tmj",
        at_of(&wrong, "\"visible\"", "\"yes\""),
        "expected true or false, got `yes` (at $.layers[0].visible)",
    );

    // A field that is missing, at the object that lacks it.
    let missing = good.replacen(" \"height\": 2,\n   \"data\"", "\n   \"data\"", 1);
    starts(
        &refused(&missing, &[]),
        "m.tmj",
        at_of(&missing, "\"layers\"", "{\"type\": \"tilelayer\""),
        "the field `height` is missing (at $.layers[0])",
    );

    // A huge map, at its width; data short of its layer, at the data.
    let huge = good.replacen(
        "\"width\": 4, \"height\": 2, \"tilewidth\"",
        "\"width\": 100000, \"height\": 100000, \"tilewidth\"",
        1,
    );
    starts(
        &refused(&huge, &[]),
        "m.tmj",
        at_of(&huge, "\"width\"", "100000"),
        "the map is too large (at most 16M tiles) (at $.width)",
    );
    let short = good.replacen("3, 3, 4, 1]", "3, 3, 4]", 1);
    starts(
        &refused(&short, &[]),
        "m.tmj",
        at_of(&short, "\"data\"", "["),
        "layer `ground`: 4x2 with 7 tiles of data; the 4x2 map needs 8 (at $.layers[0].data)",
    );

    // Bad base64, at the data; a gid beyond the tileset, at its entry.
    let base64 = good.replacen(
        "\"data\": [1, 1, 2, 2,\n            3, 3, 4, 1]",
        "\"encoding\": \"base64\", \"compression\": \"zlib\", \"data\": \"eJ!!\"",
        1,
    );
    starts(
        &refused(&base64, &[]),
        "m.tmj",
        at_of(&base64, "\"zlib\"", "\"eJ!!\""),
        "layer `ground`: its base64 data does not decode",
    );
    let beyond = good.replacen("3, 3, 4, 1]", "3, 3, 9, 1]", 1);
    starts(
        &refused(&beyond, &[]),
        "m.tmj",
        at_of(&beyond, "3, 3, ", "9"),
        "(at $.layers[0].data[6])",
    );

    // A second unit of a name, the first's line in the JSON.
    let twins = tmj(
        EMBEDDED,
        &(LAYER.to_owned() + &units(&format!("{},\n{}", unit(1, "ann", 0), unit(2, "ann", 32)))),
    );
    let first = at_of(&twins, "\"objects\"", "{\"id\": 1").0;
    starts(
        &refused(&twins, &[]),
        "m.tmj",
        at_of(&twins, "\"objects\"", "{\"id\": 2"),
        &format!(
            "a second unit named `ann` (the first is on line {first}) (at $.layers[1].objects[1])"
        ),
    );

    // In a tileset file: a syntax error, and a property `tiled` cannot read, there.
    let tsj = "{\"type\": \"tileset\", \"name\": \"t\", \"tilewidth\": 32, \"tileheight\": 32, \"tilecount\": 4, \"columns\": 4,\n \"image\": \"t.png\", \"imagewidth\": 128, \"imageheight\": 32,\n \"tiles\": [\n  {\"id\": 0, \"type\": \"grass\"},\n  {\"id\": 3, \"properties\": [{\"name\": \"terrain\", \"type\": \"string\", \"value\": \"lava\"}]}\n ]}\n";
    let external = tmj("{\"firstgid\": 1, \"source\": \"t.tsj\"}", LAYER);
    let broken_tsj = tsj.replace("\"grass\"}", "\"grass\"");
    let error = refused(&external, &[("t.tsj", &broken_tsj)]);
    assert!(error.starts_with("t/t.tsj:5:3: "), "{error}");
    let vector = tsj.replace("\"type\": \"string\"", "\"type\": \"vector\"");
    starts(
        &refused(&external, &[("t.tsj", &vector)]),
        "t.tsj",
        at_of(&vector, "\"id\": 3", "{\"name\""),
        "(at $.tiles[1].properties[0])",
    );
    // A terrain the table lacks, found when the level is built: at the map's `source`,
    // saying where in the tileset.
    let files = HashMap::from([(PathBuf::from("t/t.tsj"), tsj.to_owned())]);
    let map = tmx::parse(FsPath::new("t/m.tmj"), &external, &files).unwrap();
    let error = map.resolve(&table()).unwrap_err().to_string();
    let (line, column) = at_of(&external, "\"source\"", "\"t.tsj\"");
    let (tile_line, tile_column) = at_of(tsj, "\"id\": 0", "{\"id\": 3");
    assert!(
        error.starts_with(&format!(
            "{line}:{column}: tile 3 of t.tsj (t.tsj:{tile_line}:{tile_column})"
        )),
        "{error}"
    );

    // A template naming itself: refused where it does.
    let template = "{\"type\": \"template\",\n \"object\": {\"template\": \"c.tj\", \"width\": 32, \"height\": 32}}\n";
    let templated = tmj(
        EMBEDDED,
        &(LAYER.to_owned() + &units("   {\"id\": 1, \"template\": \"c.tj\", \"x\": 0, \"y\": 0}")),
    );
    starts(
        &refused(&templated, &[("c.tj", template)]),
        "c.tj",
        (2, 12),
        "t/c.tj is already being read here (t/m.tmj → t/c.tj → t/c.tj): files must not name each other in a cycle (at $.object)",
    );
    // A template file that is missing, where the map names it.
    starts(
        &refused(&templated, &[]),
        "m.tmj",
        at_of(&templated, "\"objects\"", "{\"id\": 1"),
        "cannot read the template t/c.tj: not found",
    );
}

#[test]
fn path_takes_a_json_map_and_refuses_a_broken_one_at_its_line() {
    let (code, output) = tilewalk(&[
        "path",
        "--map",
        example("assets/tiled/square.tmj").to_str().unwrap(),
        "--from",
        "0,3",
        "--to",
        "15,3",
    ]);
    let (_, from_tmx) = tilewalk(&[
        "path",
        "--map",
        example("assets/tiled/square.tmx").to_str().unwrap(),
        "--from",
        "0,3",
        "--to",
        "15,3",
    ]);
    assert_eq!(code, Some(0), "{output}");
    let untimed = |text: &str| text.split("  time").next().unwrap().to_owned();
    assert_eq!(untimed(&output), untimed(&from_tmx));

    let dir = std::env::temp_dir().join(format!("tilewalk-tmj-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let map = dir.join("m.tmj");
    let text = tmj(EMBEDDED, &LAYER.replace("\"width\": 4,", "\"width\": -4,"));
    std::fs::write(&map, &text).unwrap();
    let (code, output) = tilewalk(&[
        "path",
        "--map",
        map.to_str().unwrap(),
        "--from",
        "0,0",
        "--to",
        "1,0",
    ]);
    let (line, column) = at_of(&text, "\"ground\"", "-4");
    assert_eq!(code, Some(2), "{output}");
    assert!(
        output.starts_with(&format!("error: {}:{line}:{column}: ", map.display())),
        "{output}"
    );
    let _ = std::fs::remove_dir_all(dir);
}
