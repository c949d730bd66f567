//! Terrain given by tile kind and saved where the designer's tool keeps it: a Tiled tile's
//! Class (in a `.tsx`, a `.tsj`, a tileset embedded in a `.tmx` or a `.tmj`), an LDtk
//! IntGrid value's identifier and an LDtk level's `default_terrain` field. On corpus maps nobody here made, copied to a temporary
//! folder: read back with the `tiled` crate, serde_json and tilewalk's own loaders, every
//! byte outside the edited entry unchanged, and taken off again to the original bytes.

use std::path::{Path as FsPath, PathBuf};

use serde_json::Value;
use tilewalk::level::Level;
use tilewalk::map::assign::ClassHome;
use tilewalk::map::tmx::{TileKindId, TiledMap};
use tilewalk::map::{ldtk, tmx};

use super::*;

/// A corpus folder (`../shared/...` beside the repository) copied to a fresh temporary one.
pub(super) fn copied(corpus: &str, test: &str) -> PathBuf {
    let from = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../shared")
        .join(corpus);
    let to = std::env::temp_dir().join(format!("tilewalk-assign-{test}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&to);
    copy_dir(&from, &to);
    to
}

fn copy_dir(from: &FsPath, to: &FsPath) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap_or_else(|e| panic!("{}: {e}", from.display())) {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            copy_dir(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), target).unwrap();
        }
    }
}

/// What changed from `before` to `after`: the bytes of `before` replaced (their common
/// beginning and end aside), and what replaced them.
pub(super) fn changed<'a>(before: &'a str, after: &'a str) -> (&'a str, &'a str) {
    let prefix = before
        .bytes()
        .zip(after.bytes())
        .take_while(|(a, b)| a == b)
        .count();
    let most = before.len().min(after.len()) - prefix;
    let suffix = before
        .bytes()
        .rev()
        .zip(after.bytes().rev())
        .take(most)
        .take_while(|(a, b)| a == b)
        .count();
    (
        &before[prefix..before.len() - suffix],
        &after[prefix..after.len() - suffix],
    )
}

/// The terrain name of every cell of a map under the shipped table.
fn terrains(map: &MapAsset) -> Vec<String> {
    let (level, _) = Level::build(map, &table()).unwrap_or_else(|e| panic!("{e}"));
    (0..map.height)
        .flat_map(|y| (0..map.width).map(move |x| Pos::new(x, y)))
        .map(|p| level.terrain(p).map_or(String::new(), |t| t.name.clone()))
        .collect()
}

/// The kind drawn on the most cells, and the cells where it is on top.
pub(super) fn most_drawn(tiles: &TiledMap, width: u32, height: u32) -> (TileKindId, Vec<usize>) {
    let kinds = tiles.tile_kinds();
    let &(kind, _) = kinds
        .iter()
        .max_by_key(|(k, n)| (*n, *k))
        .expect("a tile kind");
    let on_top = (0..height)
        .flat_map(|y| (0..width).map(move |x| Pos::new(x, y)))
        .enumerate()
        .filter(|&(_, p)| tiles.top_kind(p) == Some(kind))
        .map(|(i, _)| i)
        .collect();
    (kind, on_top)
}

/// Gives the most drawn tile kind of `map` terrain `water`, then `rock`, then its Class as
/// it was; after each save, `read_back` (the `tiled` crate or serde_json) says the Class the
/// file holds for the kind, and the map read again has the terrain on every cell where the
/// kind is on top, and no cell without it changed. The last save gives back the original
/// bytes.
fn round_trip(map_path: &FsPath, read_back: impl Fn(&ClassHome) -> Option<String>) {
    let read = |path: &FsPath| {
        match path.extension().and_then(|e| e.to_str()) {
            Some("ldtk") => ldtk::read_ldtk(path, None),
            _ => tmx::read_tmx(path),
        }
        .unwrap_or_else(|e| panic!("{e}"))
    };
    let map = read(map_path);
    let tiles = map.tiles.as_ref().expect("a tiled map");
    let (kind, on_top) = most_drawn(tiles, map.width, map.height);
    assert!(!on_top.is_empty(), "{}", map_path.display());
    let drawn: Vec<usize> = tiles
        .cells_of(kind)
        .iter()
        .map(|p| (p.y * map.width + p.x) as usize)
        .collect();
    let original_class = tiles.class(kind).map(str::to_owned);
    let home = tiles.class_home(map_path, kind).expect("a file keeps it");
    let file = home.file().to_owned();
    let original = std::fs::read_to_string(&file).unwrap();
    let before = terrains(&map);
    let mut last = original.clone();
    for terrain in ["water", "rock"] {
        home.save(Some(terrain)).unwrap_or_else(|e| panic!("{e}"));
        let text = std::fs::read_to_string(&file).unwrap();
        let (removed, added) = changed(&last, &text);
        assert!(
            added.len() < 80 && removed.len() <= 12,
            "{}: `{removed}` became `{added}`",
            file.display()
        );
        assert_eq!(
            read_back(&home).as_deref(),
            Some(terrain),
            "{}",
            file.display()
        );
        // Where the kind is on top, the cell has the terrain; where a tile above it names
        // none, too, else the terrain it names; a cell without it is as it was.
        let after = terrains(&read(map_path));
        for (i, (old, new)) in before.iter().zip(&after).enumerate() {
            if on_top.contains(&i) {
                assert_eq!(new, terrain, "{} cell {i}", map_path.display());
            } else if drawn.contains(&i) {
                assert!(
                    new == terrain || new == old,
                    "{} cell {i}",
                    map_path.display()
                );
            } else {
                assert_eq!(new, old, "{} cell {i}", map_path.display());
            }
        }
        last = text;
    }
    home.save(original_class.as_deref()).unwrap();
    assert_eq!(
        std::fs::read_to_string(&file).unwrap(),
        original,
        "{}",
        file.display()
    );
}

/// The Class of the tile a home names, as the `tiled` crate reads the file.
pub(super) fn tiled_class(home: &ClassHome) -> Option<String> {
    let ClassHome::TiledTile { file, embedded, id } = home else {
        panic!("not a Tiled tile: {home:?}");
    };
    let mut loader = ::tiled::Loader::new();
    let tile_type = |tileset: &::tiled::Tileset| tileset.get_tile(*id).map(|t| t.user_type.clone());
    match embedded {
        None => tile_type(&loader.load_tsx_tileset(file).unwrap()),
        Some(i) => tile_type(&loader.load_tmx_map(file).unwrap().tilesets()[*i]),
    }
}

/// The Class of the tile a home names, as serde_json reads the Tiled JSON file.
fn json_class(home: &ClassHome) -> Option<String> {
    let ClassHome::TiledTile { file, embedded, id } = home else {
        panic!("not a Tiled tile: {home:?}");
    };
    let root: Value = serde_json::from_str(&std::fs::read_to_string(file).unwrap()).unwrap();
    let tileset = match embedded {
        None => &root,
        Some(i) => &root["tilesets"][*i],
    };
    tileset["tiles"]
        .as_array()?
        .iter()
        .find(|t| t["id"] == *id)
        .and_then(|t| t.get("type").or(t.get("class")))
        .and_then(Value::as_str)
        .map(str::to_owned)
}

/// The identifier of the IntGrid value a home names, as serde_json reads the project.
pub(super) fn ldtk_identifier(home: &ClassHome) -> Option<String> {
    let ClassHome::IntGrid { file, layer, value } = home else {
        panic!("not an IntGrid value: {home:?}");
    };
    let root: Value = serde_json::from_str(&std::fs::read_to_string(file).unwrap()).unwrap();
    let layer = root["defs"]["layers"]
        .as_array()?
        .iter()
        .find(|l| l["uid"] == *layer)?;
    layer["intGridValues"]
        .as_array()?
        .iter()
        .find(|v| v["value"] == *value)?["identifier"]
        .as_str()
        .map(str::to_owned)
}

#[test]
fn a_tile_class_is_saved_in_the_tsx_and_the_tileset_embedded_in_a_tmx() {
    let dir = copied("tiled-corpus/tiled-examples", "tmx");
    // desert.tsx: the tile has no <tile> element yet.
    round_trip(&dir.join("desert.tmx"), tiled_class);
    round_trip(&dir.join("rpg/island.tmx"), tiled_class);
    let _ = std::fs::remove_dir_all(dir);
    // Tilesets in the map (hexagonal-mini.tmx's lacks the tile count `tiled` needs: the
    // tests of the JSON maps cover it).
    let dir = copied("tiled-corpus/rs-tiled", "rs-tiled");
    round_trip(&dir.join("tiled_base64.tmx"), tiled_class);
    round_trip(&dir.join("tiled_csv.tmx"), tiled_class);
    let _ = std::fs::remove_dir_all(dir);
}

#[test]
fn a_tile_class_is_saved_in_the_tsj_and_the_tileset_embedded_in_a_tmj() {
    let dir = copied("tiled-corpus-json/tiled-examples", "tmj");
    round_trip(&dir.join("desert.tmj"), json_class);
    round_trip(&dir.join("hexagonal-mini.tmj"), json_class);
    round_trip(&dir.join("orthogonal-outside.tmj"), json_class);
    let _ = std::fs::remove_dir_all(dir);
}

#[test]
fn an_int_grid_value_identifier_is_saved_in_the_ldtk_project() {
    let dir = copied("ldtk-corpus", "ldtk");
    for project in [
        "Typical_TopDown_example.ldtk",
        "AutoLayers_5_Advanced.ldtk",
        "WorldMap_GridVania_layout.ldtk",
        // Levels in files of their own: the values are the project's.
        "SeparateLevelFiles.ldtk",
    ] {
        round_trip(&dir.join(project), ldtk_identifier);
    }
    let _ = std::fs::remove_dir_all(dir);
}

#[test]
fn a_save_into_an_odd_file_is_an_error_at_its_place_and_changes_nothing() {
    let dir = copied("tiled-corpus/tiled-examples", "odd");
    let map = tmx::read_tmx(&dir.join("desert.tmx")).unwrap();
    let tiles = map.tiles.as_ref().unwrap();
    let (kind, _) = most_drawn(tiles, map.width, map.height);
    let home = tiles.class_home(&dir.join("desert.tmx"), kind).unwrap();
    // The tileset broken since the map was read: the save says where, and keeps the file.
    let broken =
        "<?xml version=\"1.0\"?>\n<tileset name=\"Desert\">\n <tile id=\"3\">\n</tileset>\n";
    std::fs::write(dir.join("desert.tsx"), broken).unwrap();
    let error = home.save(Some("water")).unwrap_err().to_string();
    assert!(
        error.contains("desert.tsx:4:") && error.contains("malformed XML"),
        "{error}"
    );
    assert_eq!(
        std::fs::read_to_string(dir.join("desert.tsx")).unwrap(),
        broken
    );
    std::fs::write(dir.join("desert.tsx"), "<map/>").unwrap();
    let error = home.save(Some("water")).unwrap_err().to_string();
    assert!(
        error.ends_with("desert.tsx:1:1: expected a <tileset> as the file's root element"),
        "{error}"
    );
    std::fs::remove_file(dir.join("desert.tsx")).unwrap();
    let error = home.save(Some("water")).unwrap_err().to_string();
    assert!(error.contains("desert.tsx"), "{error}");
    let _ = std::fs::remove_dir_all(dir);
}

#[test]
fn a_tile_whose_terrain_property_names_its_terrain_keeps_it() {
    let text = r#"<?xml version="1.0"?>
<map version="1.10" orientation="orthogonal" renderorder="right-down" width="3" height="1" tilewidth="8" tileheight="8" infinite="0">
 <tileset firstgid="1" name="t" tilewidth="8" tileheight="8" tilecount="2" columns="2">
  <image source="t.png" width="16" height="8"/>
  <tile id="1">
   <properties>
    <property name="terrain" value="water"/>
   </properties>
  </tile>
 </tileset>
 <layer id="1" name="ground" width="3" height="1">
  <data encoding="csv">1,2,1</data>
 </layer>
</map>"#;
    let path = FsPath::new("m.tmx");
    let mut map = tmx::parse(path, text, &Default::default()).unwrap();
    let tiles = map.tiles.as_mut().unwrap();
    let water = tiles.top_kind(Pos::new(1, 0)).unwrap();
    assert_eq!(
        tiles.assign(water, "grass").unwrap_err(),
        "tile 1 of t names terrain `water` with its `terrain` property (at 5:3): change it in Tiled"
    );
    let plain = tiles.top_kind(Pos::new(0, 0)).unwrap();
    assert_eq!(tiles.cells_of(plain), [Pos::new(0, 0), Pos::new(2, 0)]);
    assert_eq!(tiles.tile_kinds(), [(plain, 2), (water, 1)]);
    let before = tiles.assign(plain, "grass").unwrap();
    assert_eq!(terrains(&map), ["grass", "water", "grass"]);
    let tiles = map.tiles.as_mut().unwrap();
    tiles.restore(plain, before);
    assert_eq!(tiles.class(plain), None);
    assert_eq!(terrains(&map), ["no terrain", "water", "no terrain"]);
    assert_eq!(
        map.tiles.as_ref().unwrap().class_home(path, plain),
        Some(ClassHome::TiledTile {
            file: path.to_owned(),
            embedded: Some(0),
            id: 0
        })
    );
}

/// The project `text` read by serde_json without the level field `default_terrain` the
/// terrain mode adds: its definition, its value in every level (in `levels` and in a level
/// file's own `fieldInstances`), and `nextUid` set back to `next`.
pub(super) fn without_level_field(text: &str, next: i64) -> Value {
    let mut root: Value = serde_json::from_str(text).unwrap();
    let not_ours = |f: &Value| f["__identifier"] != "default_terrain";
    if let Some(fields) = root
        .pointer_mut("/defs/levelFields")
        .and_then(Value::as_array_mut)
    {
        fields.retain(|f| f["identifier"] != "default_terrain");
    }
    if let Some(levels) = root.get_mut("levels").and_then(Value::as_array_mut) {
        for level in levels {
            level["fieldInstances"]
                .as_array_mut()
                .unwrap()
                .retain(not_ours);
        }
    }
    if let Some(fields) = root.get_mut("fieldInstances").and_then(Value::as_array_mut) {
        fields.retain(not_ours);
    }
    if root.get("nextUid").is_some() {
        root["nextUid"] = next.into();
    }
    root
}

/// The level field's value as LDtk writes it, for `uid`.
pub(super) fn field_instance(uid: i64, terrain: &str) -> Value {
    serde_json::json!({
        "__identifier": "default_terrain",
        "__type": "String",
        "__value": terrain,
        "__tile": null,
        "defUid": uid,
        "realEditorValues": [{"id": "V_String", "params": [terrain]}],
    })
}

/// Gives the cells without an IntGrid value of `project`'s first level terrain `grass` (its
/// `default_terrain` field) and checks, read back with serde_json and the game's loader,
/// that the `cells` of them now have it and a foot unit walks across them; then takes it off,
/// and every file is as it was. Returns the files the save wrote in.
fn level_field_round_trip(project: &FsPath, cells: usize) -> Vec<PathBuf> {
    let map = ldtk::read_ldtk(project, None).unwrap_or_else(|e| panic!("{e}"));
    let tiles = map.tiles.as_ref().unwrap();
    let (kind, count) = tiles
        .no_value_kind()
        .expect("cells without an IntGrid value");
    assert_eq!((kind, count), (TileKindId::NO_VALUE, cells));
    assert_eq!(tiles.kind_name(kind), "cells without an IntGrid value");
    assert_eq!(tiles.class(kind), None);
    let empty = tiles.cells_of(kind);
    assert_eq!(empty.len(), cells);
    let home = tiles.class_home(project, kind).unwrap();
    assert_eq!(
        home,
        ClassHome::LevelField {
            file: project.to_owned(),
            level: tiles.level.clone().unwrap(),
        }
    );
    let before = terrains(&map);
    let (level, nav) = Level::build(&map, &table()).unwrap();
    let start = empty[0];
    let far = |p: &Pos| p.x.abs_diff(start.x) + p.y.abs_diff(start.y);
    assert!(level.terrain(start).is_some_and(|t| t.name == "no terrain"));

    let mut texts = tilewalk::map::assign::Texts::new();
    let files = home
        .write_into(&mut texts, Some("grass"))
        .unwrap_or_else(|e| panic!("{e}"));
    let originals: Vec<String> = files
        .iter()
        .map(|f| std::fs::read_to_string(f).unwrap())
        .collect();
    home.save(Some("grass")).unwrap_or_else(|e| panic!("{e}"));
    let next = serde_json::from_str::<Value>(&originals[files.len() - 1]).unwrap()["nextUid"]
        .as_i64()
        .unwrap();
    for (file, original) in files.iter().zip(&originals) {
        let saved = std::fs::read_to_string(file).unwrap();
        assert_ne!(&saved, original, "{}", file.display());
        assert_eq!(saved, texts[file]);
        // serde_json reads the same project but for the new definition, nextUid and the
        // level's value.
        assert_eq!(
            without_level_field(&saved, next),
            serde_json::from_str::<Value>(original).unwrap(),
            "{}",
            file.display()
        );
        let root: Value = serde_json::from_str(&saved).unwrap();
        let level = match root.get("levels") {
            Some(levels) => {
                assert_eq!(root["nextUid"], next + 1);
                let def = root["defs"]["levelFields"]
                    .as_array()
                    .unwrap()
                    .last()
                    .unwrap();
                assert_eq!(def["identifier"], "default_terrain");
                assert_eq!(
                    (&def["__type"], &def["type"]),
                    (&"String".into(), &"F_String".into())
                );
                assert_eq!(def["uid"], next);
                levels[0].clone()
            }
            None => root,
        };
        assert_eq!(
            level["fieldInstances"].as_array().unwrap().last(),
            Some(&field_instance(next, "grass"))
        );
    }
    // The game reads it: those cells are grass, and so is every other cell that had no
    // terrain (the field names the cells nothing else names); the others are as they were.
    // A foot unit walks across them where it could not before.
    let again = ldtk::read_ldtk(project, None).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(
        again.tiles.as_ref().unwrap().class(TileKindId::NO_VALUE),
        Some("grass")
    );
    let after = terrains(&again);
    for (i, (old, new)) in before.iter().zip(&after).enumerate() {
        let pos = Pos::new(i as u32 % map.width, i as u32 / map.width);
        if empty.contains(&pos) || old == "no terrain" {
            assert_eq!(new, "grass", "{pos}");
        } else {
            assert_eq!(new, old, "{pos}");
        }
    }
    let (_, nav_after) = Level::build(&again, &table()).unwrap();
    let goal = empty
        .iter()
        .copied()
        .filter(|g| {
            tilewalk_path::find_path(
                nav_after.grid(FOOT),
                start,
                *g,
                &tilewalk_path::SearchOptions::default(),
            )
            .is_ok()
        })
        .max_by_key(far)
        .unwrap();
    assert!(far(&goal) >= 10, "{start} to {goal}");
    assert!(
        tilewalk_path::find_path(
            nav.grid(FOOT),
            start,
            goal,
            &tilewalk_path::SearchOptions::default()
        )
        .is_err()
    );
    // Taken off again: every byte as it was.
    home.save(None).unwrap_or_else(|e| panic!("{e}"));
    for (file, original) in files.iter().zip(&originals) {
        assert_eq!(
            &std::fs::read_to_string(file).unwrap(),
            original,
            "{}",
            file.display()
        );
    }
    files
}

#[test]
fn the_cells_without_an_int_grid_value_are_given_the_levels_default_terrain_field() {
    let dir = copied("ldtk-corpus", "level-field");
    // LDtk's top-down example: 312 of its first level's 512 cells have no IntGrid value.
    let project = dir.join("Typical_TopDown_example.ldtk");
    assert_eq!(level_field_round_trip(&project, 312), [project]);
    // Levels in files of their own: the value in the level's file and the project's
    // entry for it, the definition in the project.
    let project = dir.join("SeparateLevelFiles.ldtk");
    assert_eq!(
        level_field_round_trip(&project, 207),
        [dir.join("SeparateLevelFiles/World_Level_0.ldtkl"), project]
    );
    let _ = std::fs::remove_dir_all(dir);
}
