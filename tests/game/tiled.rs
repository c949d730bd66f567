//! Maps from Tiled: the example `.tmx` maps against equivalent `.map` fixtures, per-tile
//! cost overrides, the hex stagger variants, object placement, errors, and the commands.

use std::collections::{BTreeSet, HashMap};
use std::path::{Path as FsPath, PathBuf};
use std::process::Command;

use tilewalk::level::Level;
use tilewalk::map::tmx;
use tilewalk::terrain::TerrainTable;

use tilewalk_path::{Board, HexLayout};

use super::*;

/// The ford of the example tileset (tile 7: water with its own foot and horse costs) as a
/// terrain of its own, for the `.map` fixtures.
const FORD: &str = "(name: \"ford\", glyphs: \"F\", tile: 5, cost: {\"foot\": 2.0, \"horse\": 3.0, \"flyer\": 1.0}),\n";

fn table_with_ford_text() -> String {
    let shipped = include_str!("../../assets/terrain.ron");
    let at = shipped.find("        (name: \"rock\"").unwrap();
    format!("{}        {FORD}{}", &shipped[..at], &shipped[at..])
}

pub(super) fn table_with_ford() -> TerrainTable {
    TerrainTable::parse(&table_with_ford_text()).unwrap()
}

pub(super) fn example(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join(name)
}

#[test]
fn the_example_tiled_maps_load_like_their_map_fixtures() {
    for (tmx_file, fixture, board) in [
        (
            "assets/tiled/square.tmx",
            "tests/fixtures/tiled_square.map",
            Board::default(),
        ),
        (
            "assets/tiled/hex.tmx",
            "tests/fixtures/tiled_hex.map",
            Board::Hex(HexLayout::OddR),
        ),
        // The same map painted with a terrain set's colours, a rock-strewn decoration
        // layer (`terrain` = false) above it, and a ford tile with only its own costs.
        (
            "assets/tiled/terrain_set.tmx",
            "tests/fixtures/tiled_square.map",
            Board::default(),
        ),
    ] {
        let tiled = tmx::read_tmx(&example(tmx_file)).unwrap_or_else(|e| panic!("{e}"));
        let text = std::fs::read_to_string(example(fixture)).unwrap();
        let plain = MapAsset::parse(&text).unwrap();
        assert_eq!(tiled.board, board, "{tmx_file}");
        assert_eq!((tiled.width, tiled.height), (plain.width, plain.height));
        let strip = |map: &MapAsset| {
            map.units
                .iter()
                .map(|u| (u.name.clone(), u.team, u.class.clone(), u.pos, u.attack))
                .collect::<Vec<_>>()
        };
        assert_eq!(strip(&tiled), strip(&plain), "{tmx_file}");
        assert_eq!(tiled.units.len(), plain.units.len());

        let (from_tiled, tiled_nav) = Level::build(&tiled, &table()).unwrap();
        let (from_fixture, fixture_nav) = Level::build(&plain, &table_with_ford()).unwrap();
        for pos in from_fixture.cells() {
            for class in [FOOT, HORSE, FLYER] {
                assert_eq!(
                    tiled_nav.grid(class).cost(pos),
                    fixture_nav.grid(class).cost(pos),
                    "{tmx_file} {pos} {class:?}"
                );
            }
            let name = from_fixture.terrain(pos).unwrap().name.as_str();
            let expected = match (name, tmx_file.ends_with("terrain_set.tmx")) {
                ("ford", true) => "tile 7 of terrain_set",
                ("ford", false) => "water",
                (name, _) => name,
            };
            assert_eq!(from_tiled.terrain(pos).unwrap().name, expected, "{pos}");
        }
        let drawn = from_tiled.tiled.as_ref().expect("drawn with its tilesets");
        for tileset in &drawn.tilesets {
            let tmx::TilesetImages::Atlas(image) = &tileset.images else {
                panic!("{tmx_file}: one image a tileset");
            };
            assert!(
                example("assets/tiled").join(&image.path).is_file(),
                "{image:?}"
            );
        }
    }
}

/// A map and its tileset from text, as files in a folder `t`.
fn tiled(map: &str, tileset: &str) -> Result<MapAsset, String> {
    let tilesets = HashMap::from([(PathBuf::from("t/tiles.tsx"), tileset.to_owned())]);
    tmx::parse(FsPath::new("t/m.tmx"), map, &tilesets).map_err(|e| e.to_string())
}

/// A Tiled map: `header` completes the `<map>` element; cells are local tile ids.
fn tmx_text(header: &str, width: u32, cells: &[u32], objects: &str) -> String {
    let csv: Vec<String> = cells.iter().map(|c| (c + 1).to_string()).collect();
    let height = cells.len() as u32 / width;
    let rows: Vec<String> = csv
        .chunks(width as usize)
        .map(|row| row.join(","))
        .collect();
    format!(
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n\
         <map version=\"1.10\" {header} width=\"{width}\" height=\"{height}\" infinite=\"0\">\n \
         <tileset firstgid=\"1\" source=\"tiles.tsx\"/>\n \
         <layer id=\"1\" name=\"ground\" width=\"{width}\" height=\"{height}\">\n  \
         <data encoding=\"csv\">\n{}\n</data>\n </layer>\n \
         <objectgroup id=\"2\" name=\"units\">\n{objects} </objectgroup>\n</map>\n",
        rows.join(",\n")
    )
}

const ORTHOGONAL: &str = "orientation=\"orthogonal\" tilewidth=\"32\" tileheight=\"32\"";

/// A tileset of `tiles` (the inside of each `<tile>` element, or its attributes after `id`).
fn tsx_text(tiles: &[&str]) -> String {
    let body: Vec<String> = tiles
        .iter()
        .enumerate()
        .map(|(id, tile)| format!(" <tile id=\"{id}\"{tile}</tile>"))
        .collect();
    format!(
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n\
         <tileset version=\"1.10\" name=\"t\" tilewidth=\"32\" tileheight=\"32\" tilecount=\"{}\" columns=\"{}\">\n \
         <image source=\"tiles.png\" width=\"{}\" height=\"32\"/>\n{}\n</tileset>\n",
        tiles.len(),
        tiles.len(),
        32 * tiles.len(),
        body.join("\n")
    )
}

fn unit_object(id: u32, name: &str, class: &str, team: &str, x: f32, y: f32) -> String {
    format!(
        "  <object id=\"{id}\" name=\"{name}\" type=\"{class}\" x=\"{x}\" y=\"{y}\">\n   <point/>\n   \
         <properties>\n    <property name=\"team\" value=\"{team}\"/>\n   </properties>\n  </object>\n"
    )
}

#[test]
fn per_tile_costs_override_the_table_and_a_tile_may_bring_its_own() {
    let tileset = tsx_text(&[
        // 0: plain grass.
        " type=\"grass\">",
        // 1: grass whose foot cost is 4 (a string property holding a number counts).
        " type=\"grass\"><properties><property name=\"foot\" value=\"4\"/></properties>",
        // 2: water that horses may cross at 2.5, through a `terrain` property (over the Class).
        " type=\"rock\"><properties><property name=\"terrain\" value=\"water\"/>\
         <property name=\"horse\" type=\"float\" value=\"2.5\"/></properties>",
        // 3: no terrain, only a foot cost: impassable for the other classes.
        "><properties><property name=\"foot\" type=\"int\" value=\"7\"/></properties>",
    ]);
    let map = tiled(&tmx_text(ORTHOGONAL, 4, &[0, 1, 2, 3], ""), &tileset).unwrap();
    let (level, nav) = Level::build(&map, &table()).unwrap();
    let cost = |x, class| nav.grid(class).cost(Pos::new(x, 0));
    assert_eq!(
        [cost(0, FOOT), cost(0, HORSE), cost(0, FLYER)],
        [Some(1.0), Some(0.75), Some(1.0)]
    );
    assert_eq!(
        [cost(1, FOOT), cost(1, HORSE), cost(1, FLYER)],
        [Some(4.0), Some(0.75), Some(1.0)]
    );
    assert_eq!(
        [cost(2, FOOT), cost(2, HORSE), cost(2, FLYER)],
        [Some(6.0), Some(2.5), Some(1.0)]
    );
    assert_eq!(
        [cost(3, FOOT), cost(3, HORSE), cost(3, FLYER)],
        [Some(7.0), None, None]
    );
    assert_eq!(level.terrain(Pos::new(2, 0)).unwrap().name, "water");
    assert_eq!(level.terrain(Pos::new(3, 0)).unwrap().name, "tile 3 of t");
    // The tile drawn is the tileset's own.
    let drawn = &level.tiled.as_ref().unwrap().layers[0];
    assert_eq!(drawn.cells[3].map(|c| c.id), Some(3));
}

/// Where Tiled draws a hex cell's centre: its renderer shifts the staggered rows right (axis
/// Y) or columns down (axis X) by half a tile, and spaces rows (columns) by
/// `(tile side + hexsidelength) / 2`.
fn tiled_centre(axis_y: bool, odd: bool, (tw, th, side): (f32, f32, f32), x: u32, y: u32) -> Vec2 {
    let staggered = |i: u32| (i % 2 == 1) == odd;
    if axis_y {
        let shift = if staggered(y) { tw / 2.0 } else { 0.0 };
        Vec2::new(
            x as f32 * tw + shift + tw / 2.0,
            y as f32 * (th + side) / 2.0 + th / 2.0,
        )
    } else {
        let shift = if staggered(x) { th / 2.0 } else { 0.0 };
        Vec2::new(
            x as f32 * (tw + side) / 2.0 + tw / 2.0,
            y as f32 * th + shift + th / 2.0,
        )
    }
}

#[test]
fn hex_stagger_variants_map_to_the_board_whose_neighbours_tiled_draws_touching() {
    let (width, height) = (5, 4);
    for (axis_y, odd, layout) in [
        (true, true, HexLayout::OddR),
        (true, false, HexLayout::EvenR),
        (false, true, HexLayout::OddQ),
        (false, false, HexLayout::EvenQ),
    ] {
        // Regular hexes: 32 across the flats, 37 across the corners.
        let size = if axis_y {
            (32.0, 37.0, 18.0)
        } else {
            (37.0, 32.0, 18.0)
        };
        let header = format!(
            "orientation=\"hexagonal\" tilewidth=\"{}\" tileheight=\"{}\" hexsidelength=\"18\" staggeraxis=\"{}\" staggerindex=\"{}\"",
            size.0,
            size.1,
            if axis_y { "y" } else { "x" },
            if odd { "odd" } else { "even" }
        );
        // One unit on the centre of every cell.
        let mut objects = String::new();
        for y in 0..height {
            for x in 0..width {
                let c = tiled_centre(axis_y, odd, size, x, y);
                let id = y * width + x + 1;
                objects += &unit_object(id, &format!("u{x}_{y}"), "foot", "blue", c.x, c.y);
            }
        }
        let cells = vec![0; (width * height) as usize];
        let map = tiled(
            &tmx_text(&header, width, &cells, &objects),
            &tsx_text(&[" type=\"grass\">"]),
        )
        .unwrap();
        assert_eq!(map.board, Board::Hex(layout), "axis y {axis_y}, odd {odd}");
        for unit in &map.units {
            assert_eq!(
                unit.name,
                format!("u{}_{}", unit.pos.x, unit.pos.y),
                "{layout:?}"
            );
        }
        // The board's neighbours are the cells Tiled draws one hex across.
        for y in 0..height {
            for x in 0..width {
                let here = tiled_centre(axis_y, odd, size, x, y);
                let touching: BTreeSet<Pos> = (0..height)
                    .flat_map(|ny| (0..width).map(move |nx| Pos::new(nx, ny)))
                    .filter(|&n| n != Pos::new(x, y))
                    .filter(|n| tiled_centre(axis_y, odd, size, n.x, n.y).distance(here) < 34.0)
                    .collect();
                let neighbours: BTreeSet<Pos> = map
                    .board
                    .neighbours(Pos::new(x, y), width, height)
                    .collect();
                assert_eq!(neighbours, touching, "{layout:?} at {x},{y}");
            }
        }
    }
}

#[test]
fn units_stand_on_the_tile_under_their_centre_whatever_the_object_shape() {
    let objects = "\
  <object id=\"1\" name=\"rect\" type=\"foot\" x=\"32\" y=\"0\" width=\"32\" height=\"32\">\
<properties><property name=\"team\" value=\"blue\"/></properties></object>
  <object id=\"2\" name=\"tile\" gid=\"1\" x=\"64\" y=\"64\" width=\"32\" height=\"32\">\
<properties><property name=\"team\" value=\"red\"/><property name=\"class\" value=\"horse\"/>\
<property name=\"attack\" type=\"int\" value=\"2\"/></properties></object>
  <object id=\"3\" type=\"flyer\" x=\"10\" y=\"40\">\
<point/><properties><property name=\"name\" value=\"bat\"/><property name=\"team\" value=\"red\"/></properties></object>
";
    let text = tmx_text(ORTHOGONAL, 3, &[0; 6], objects);
    let map = tiled(&text, &tsx_text(&[" type=\"grass\">"])).unwrap();
    let placed: Vec<_> = map
        .units
        .iter()
        .map(|u| (u.name.as_str(), u.pos, u.class.as_str(), u.attack))
        .collect();
    assert_eq!(
        placed,
        [
            ("rect", Pos::new(1, 0), "foot", None),
            // A tile object's y is its bottom edge: it covers row 1, not row 2.
            ("tile", Pos::new(2, 1), "horse", Some((2, 2))),
            ("bat", Pos::new(0, 1), "flyer", None),
        ]
    );
    let rect_line = 1 + text.lines().position(|l| l.contains("\"rect\"")).unwrap();
    assert_eq!(
        (map.units[0].line, map.units[0].column),
        (rect_line, 1),
        "the object's own place, for messages"
    );
}

#[test]
fn broken_tiled_files_are_reported_at_their_file_line_and_column() {
    let grass = tsx_text(&[" type=\"grass\">"]);
    let good = tmx_text(
        ORTHOGONAL,
        2,
        &[0, 0],
        &unit_object(1, "k", "foot", "blue", 16.0, 16.0),
    );
    assert!(tiled(&good, &grass).is_ok());
    let line_of =
        |text: &str, needle: &str| 1 + text.lines().position(|l| l.contains(needle)).unwrap();

    // Broken XML in the map: a closing tag that does not match.
    let broken = good.replace("</layer>", "</layr>");
    let message = tiled(&broken, &grass).unwrap_err();
    let line = line_of(&broken, "</layr>");
    assert!(
        message.starts_with(&format!("t/m.tmx:{line}:")),
        "{message}"
    );
    assert!(message.contains("malformed XML"), "{message}");
    // ... and in the tileset, cut off.
    let message = tiled(&good, &grass[..grass.len() - 12]).unwrap_err();
    assert!(message.starts_with("t/tiles.tsx:"), "{message}");
    assert!(
        message.contains("ends inside <tileset> (opened at 2:1)"),
        "{message}"
    );

    // A `terrain` property naming a terrain the table does not have: the map parses, the
    // level cannot be built. A Class that is no terrain names nothing: the cell is
    // impassable, and the level says so.
    let swamp =
        tsx_text(&["><properties>\n  <property name=\"terrain\" value=\"swamp\"/></properties>"]);
    let map = tiled(&good, &swamp).unwrap();
    let error = Level::build(&map, &table()).unwrap_err().to_string();
    assert!(
        error.starts_with(&format!("{}:2: tile 0 of tiles.tsx (tiles.tsx:4:2) names terrain `swamp`, which is unknown (the terrain table has grass, road,", line_of(&good, "<tileset"))),
        "{error}"
    );
    let classed = tiled(&good, &tsx_text(&[" type=\"swamp\">"])).unwrap();
    let (level, nav) = Level::build(&classed, &table()).unwrap();
    let warnings: Vec<String> = tilewalk::level::warnings(&classed, &level, &nav)
        .iter()
        .map(ToString::to_string)
        .collect();
    assert_eq!(
        warnings[0],
        "2:1: 2 cells name no terrain and are impassable: tile 0 of `t` (give its tiles terrains in the game (`play`, then P), or in Tiled give a tile a Class or `terrain` property, paint it with a terrain-set colour named like a terrain, or give the map a `default_terrain` property)"
    );
    assert!(!nav.grid(FOOT).is_passable(Pos::new(0, 0)));

    // A cost that is not a number, at the property's line: a property is a cost when the
    // terrain table has a class of its name, so the level says so.
    let fast = tsx_text(&[
        " type=\"grass\"><properties>\n  <property name=\"foot\" value=\"fast\"/></properties>",
    ]);
    let cost_error = |tsx: &str| {
        let map = tiled(&good, tsx).unwrap();
        Level::build(&map, &table()).unwrap_err().to_string()
    };
    assert_eq!(
        cost_error(&fast),
        format!(
            "{}:2: tile 0 of tiles.tsx (tiles.tsx:5:3): the cost must be a number, got `fast`",
            line_of(&good, "<tileset")
        )
    );
    let negative = fast.replace("fast", "-1");
    assert!(cost_error(&negative).contains(
        "tile 0 of tiles.tsx (tiles.tsx:5:3): the cost must be between 0.001 and 1000000, got -1"
    ),);
    // A property no class is named after is no cost, whatever it holds.
    let other = fast.replace("name=\"foot\"", "name=\"speed\"");
    assert!(Level::build(&tiled(&good, &other).unwrap(), &table()).is_ok());

    // A unit outside the map.
    let outside = tmx_text(
        ORTHOGONAL,
        2,
        &[0, 0],
        &unit_object(1, "k", "foot", "blue", 80.0, 16.0),
    );
    assert_eq!(
        tiled(&outside, &grass).unwrap_err(),
        format!(
            "t/m.tmx:{}:3: object 1 (`k`): its centre (80, 16) px is outside the 2x1 map",
            line_of(&outside, "<object id")
        )
    );
    // An object without a team is no unit; a unit of no known team, two on one tile.
    let no_team = good.replace("<property name=\"team\" value=\"blue\"/>", "");
    assert!(tiled(&no_team, &grass).unwrap().units.is_empty());
    let green = good.replace("value=\"blue\"", "value=\"green\"");
    assert!(
        tiled(&green, &grass)
            .unwrap_err()
            .contains("object 1 (`k`): the `team` property must be blue or red, got `green`")
    );
    let twins = tmx_text(
        ORTHOGONAL,
        2,
        &[0, 0],
        &(unit_object(1, "a", "foot", "blue", 1.0, 1.0)
            + &unit_object(2, "b", "foot", "red", 30.0, 30.0)),
    );
    assert!(
        tiled(&twins, &grass)
            .unwrap_err()
            .contains("object 2 (`b`): stands on tile (0,0), like `a`")
    );

    // An empty cell is impassable; the map opens, with a warning.
    let empty = good.replace("\n1,1\n", "\n1,0\n");
    let map = tiled(&empty, &grass).unwrap();
    let (level, nav) = Level::build(&map, &table()).unwrap();
    let warning = tilewalk::level::warnings(&map, &level, &nav)[0].to_string();
    assert!(
        warning.starts_with("2:1: 1 cell names no terrain and are impassable: 1 empty cell ("),
        "{warning}"
    );
    assert_eq!(level.terrain(Pos::new(1, 0)).unwrap().name, "no terrain");
    // Found by the fuzz campaign (each panicked inside `tiled` or here): data shorter than
    // the layer, a tile beyond the tileset's last, and data in another encoding.
    let short = good.replace("\n1,1\n", "\n1\n");
    assert_eq!(
        tiled(&short, &grass).unwrap_err(),
        format!(
            "t/m.tmx:{}:3: layer `ground`: 2x1 with 1 tiles of data; the 2x1 map needs 2",
            line_of(&short, "<data")
        )
    );
    let beyond = good.replace("\n1,1\n", "\n1,9\n");
    assert_eq!(
        tiled(&beyond, &grass).unwrap_err(),
        format!(
            "t/m.tmx:{}:3: layer `ground`: cell 1,0 has tile 8, which its tileset `t` does not have",
            line_of(&beyond, "1,9")
        )
    );
    // Base64 data (two tiles of gid 1) reads as its CSV twin; one tile short is refused.
    let base64 = good.replace(
        "<data encoding=\"csv\">\n1,1\n",
        "<data encoding=\"base64\">\nAQAAAAEAAAA=\n",
    );
    assert_eq!(tiled(&base64, &grass), tiled(&good, &grass));
    let short64 = base64.replace("AQAAAAEAAAA=", "AQAAAA==");
    assert!(
        tiled(&short64, &grass)
            .unwrap_err()
            .contains("layer `ground`: 2x1 with 1 tiles of data; the 2x1 map needs 2"),
    );

    // A tileset that claims more tiles than memory holds: `tiled` would reserve them.
    let greedy = grass.replace("tilecount=\"1\"", "tilecount=\"4294967295\"");
    assert_eq!(
        tiled(&good, &greedy).unwrap_err(),
        "t/tiles.tsx:2:1: tilecount 4294967295 is more than tilewalk reads (65536 tiles a tileset)"
    );
    let vast = good.replace(
        "width=\"2\" height=\"1\" infinite",
        "width=\"4294967296\" height=\"4294967296\" infinite",
    );
    assert!(
        tiled(&vast, &grass)
            .unwrap_err()
            .contains("the map is too large")
    );

    // Oblique maps and maps without a tile layer are refused, by name.
    let oblique = good.replace("orthogonal", "oblique");
    assert!(
        tiled(&oblique, &grass)
            .unwrap_err()
            .ends_with("oblique maps are not supported (tilewalk reads orthogonal, isometric, staggered and hexagonal maps)")
    );
    let start = good.find(" <layer").unwrap();
    let end = good.find(" <objectgroup").unwrap();
    let objects_only = format!("{}{}", &good[..start], &good[end..]);
    assert_eq!(
        tiled(&objects_only, &grass).unwrap_err(),
        "t/m.tmx:2:1: the map has no tile layer (tilewalk needs one for the terrain)"
    );
}

#[test]
fn a_missing_tileset_file_is_reported_where_the_map_names_it() {
    let dir = std::env::temp_dir().join(format!("tilewalk-tiled-missing-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let map = dir.join("m.tmx");
    std::fs::write(&map, tmx_text(ORTHOGONAL, 2, &[0, 0], "")).unwrap();
    let error = tmx::read_tmx(&map).unwrap_err().to_string();
    let expected = format!(
        "{}:3:2: cannot read the tileset {}: ",
        map.display(),
        dir.join("tiles.tsx").display()
    );
    assert!(error.starts_with(&expected), "{error}");
    let _ = std::fs::remove_dir_all(dir);
}

#[test]
fn every_cut_of_the_example_map_and_tileset_is_an_error_not_a_panic() {
    let map = std::fs::read_to_string(example("assets/tiled/square.tmx")).unwrap();
    let tileset = std::fs::read_to_string(example("assets/tiled/terrain.tsx")).unwrap();
    for cut in (0..map.rfind("</map>").unwrap()).step_by(7) {
        assert!(tiled(&map[..cut], &tileset).is_err(), "map cut at {cut}");
    }
    for cut in (0..tileset.len()).step_by(3) {
        let _ = tiled(&map, &tileset[..cut]);
    }
}

pub(super) fn tilewalk(args: &[&str]) -> (Option<i32>, String) {
    let output = Command::new(env!("CARGO_BIN_EXE_tilewalk"))
        .args(args)
        .output()
        .expect("the binary runs");
    let text = String::from_utf8_lossy(&output.stdout).into_owned()
        + &String::from_utf8_lossy(&output.stderr);
    (output.status.code(), text)
}

#[test]
fn path_simulate_and_tactics_read_tmx_maps_as_their_map_twins() {
    let dir = std::env::temp_dir().join(format!("tilewalk-tiled-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let ford = dir.join("terrain.ron");
    std::fs::write(&ford, table_with_ford_text()).unwrap();
    let ford = ford.to_str().unwrap();
    for (tmx_file, fixture, order) in [
        (
            "assets/tiled/square.tmx",
            "tests/fixtures/tiled_square.map",
            "knight:15,2",
        ),
        (
            "assets/tiled/hex.tmx",
            "tests/fixtures/tiled_hex.map",
            "knight:11,3",
        ),
        // Tiled's JSON: square.tmx saved as .tmj with its tileset as .tsj.
        (
            "assets/tiled/square.tmj",
            "tests/fixtures/tiled_square.map",
            "knight:15,2",
        ),
    ] {
        let (tmx_file, fixture) = (example(tmx_file), example(fixture));
        let (tmx_file, fixture) = (tmx_file.to_str().unwrap(), fixture.to_str().unwrap());
        for (command, args) in [
            (
                "path",
                vec![
                    "--json", "--from", "0,0", "--to", "11,7", "--class", "horse",
                ],
            ),
            ("simulate", vec!["--json", "--order", order]),
            (
                "tactics",
                vec!["--range", "knight", "--move", order, "--end-turn"],
            ),
        ] {
            let (code, from_tmx) = tilewalk(&[&[command, "--map", tmx_file], &args[..]].concat());
            let twin = [command, "--map", fixture, "--terrain", ford];
            let (twin_code, from_map) = tilewalk(&[&twin[..], &args[..]].concat());
            // A refused tactics move (out of the knight's range) exits 1, on both.
            let expected = i32::from(from_tmx.contains("\"moved\":false"));
            assert_eq!(
                code,
                Some(expected),
                "{command} {args:?} {tmx_file}: {from_tmx}"
            );
            assert_eq!(twin_code, code, "{command} {args:?} {fixture}: {from_map}");
            let strip_micros = |text: &str| {
                text.lines()
                    .map(|l| l.split("\"micros\"").next().unwrap().to_owned())
                    .collect::<Vec<_>>()
            };
            assert_eq!(
                strip_micros(&from_tmx),
                strip_micros(&from_map),
                "{command} {args:?} {tmx_file}"
            );
        }
    }
    let (code, text) = tilewalk(&[
        "path",
        "--map",
        &example("assets/tiled/square.tmx").display().to_string(),
        "--from",
        "0,3",
        "--to",
        "15,3",
    ]);
    assert_eq!(code, Some(0), "{text}");
    assert!(
        text.lines().nth(3).unwrap().starts_with('S'),
        "drawn with the terrain's glyphs: {text}"
    );
    let _ = std::fs::remove_dir_all(dir);
}

/// A Tiled map of `../shared/tiled-corpus/` (maps nobody on the project made).
pub(super) fn corpus(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../shared/tiled-corpus")
        .join(name)
}

/// How a map of the corpus opens: `Ok` with its size, or the end of the message that
/// refuses it.
pub(super) type Outcome = Result<(u32, u32), &'static str>;

/// Every map of the corpus, and how it opens.
const CORPUS: &[(&str, Outcome)] = &[
    ("rs-tiled/folder/tiled_relative_paths.tmx", Ok((16, 16))),
    ("rs-tiled/ldk_tiled_export.tmx", Ok((8, 8))),
    ("rs-tiled/templates/example.tmx", Ok((100, 100))),
    ("rs-tiled/tiled_base64.tmx", Ok((100, 100))),
    ("rs-tiled/tiled_base64_external.tmx", Ok((100, 100))),
    ("rs-tiled/tiled_base64_gzip.tmx", Ok((100, 100))),
    ("rs-tiled/tiled_base64_zlib.tmx", Ok((100, 100))),
    ("rs-tiled/tiled_base64_zlib_infinite.tmx", Ok((64, 64))),
    ("rs-tiled/tiled_base64_zstandard.tmx", Ok((100, 100))),
    ("rs-tiled/tiled_class_property.tmx", Ok((2, 2))),
    ("rs-tiled/tiled_csv.tmx", Ok((100, 100))),
    ("rs-tiled/tiled_csv_wangsets.tmx", Ok((30, 20))),
    ("rs-tiled/tiled_flipped.tmx", Ok((2, 2))),
    ("rs-tiled/tiled_group_layers.tmx", Ok((8, 8))),
    (
        "rs-tiled/tiled_image_layers.tmx",
        Err(":2:1: the map has no tile layer (tilewalk needs one for the terrain)"),
    ),
    ("rs-tiled/tiled_object_capsule.tmx", Ok((2, 2))),
    ("rs-tiled/tiled_object_groups.tmx", Ok((10, 10))),
    ("rs-tiled/tiled_object_list_property.tmx", Ok((2, 2))),
    ("rs-tiled/tiled_object_nested_list_property.tmx", Ok((2, 2))),
    ("rs-tiled/tiled_object_property.tmx", Ok((2, 2))),
    ("rs-tiled/tiled_object_template.tmx", Ok((3, 3))),
    (
        "rs-tiled/tiled_oblique.tmx",
        Err(
            ":2:1: oblique maps are not supported (tilewalk reads orthogonal, isometric, staggered and hexagonal maps)",
        ),
    ),
    ("rs-tiled/tiled_parallax.tmx", Ok((10, 10))),
    ("rs-tiled/tiled_repeat.tmx", Ok((10, 10))),
    (
        "rs-tiled/tiled_text_object.tmx",
        Err(":2:1: the map has no tile layer (tilewalk needs one for the terrain)"),
    ),
    ("rs-tiled/tiled_xml.tmx", Ok((100, 100))),
    ("tiled-examples/desert.tmx", Ok((40, 40))),
    ("tiled-examples/forest/forest.tmx", Ok((40, 16))),
    ("tiled-examples/hexagonal-mini.tmx", Ok((20, 20))),
    ("tiled-examples/isometric_grass_and_water.tmx", Ok((25, 25))),
    (
        "tiled-examples/isometric_staggered_grass_and_water.tmx",
        Ok((64, 63)),
    ),
    ("tiled-examples/orthogonal-outside.tmx", Ok((45, 31))),
    ("tiled-examples/perspective_walls.tmx", Ok((32, 32))),
    ("tiled-examples/rpg/island.tmx", Ok((58, 47))),
    ("tiled-examples/sewers.tmx", Ok((50, 50))),
    (
        "tiled-examples/sticker-knight/map/sandbox.tmx",
        Err(":2:1: the map has no tile layer (tilewalk needs one for the terrain)"),
    ),
    (
        "tiled-examples/sticker-knight/map/sandbox2.tmx",
        Err(":2:1: the map has no tile layer (tilewalk needs one for the terrain)"),
    ),
    (
        "tiled-examples/test_hexagonal_tile_60x60x30.tmx",
        Ok((20, 20)),
    ),
];

#[test]
fn every_map_of_the_corpus_opens_or_is_refused_at_its_line_for_a_real_limit() {
    let mut listed: Vec<&str> = CORPUS.iter().map(|(name, _)| *name).collect();
    listed.sort_unstable();
    let mut found: Vec<String> = Vec::new();
    let mut folders = vec![corpus("")];
    while let Some(folder) = folders.pop() {
        for entry in std::fs::read_dir(&folder).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                folders.push(path);
            } else if path.extension().is_some_and(|e| e == "tmx") {
                let name = path.strip_prefix(corpus("")).unwrap();
                found.push(name.to_string_lossy().replace('\\', "/"));
            }
        }
    }
    found.sort_unstable();
    assert_eq!(found, listed, "the test lists every map of the corpus");

    for (name, expected) in CORPUS {
        let file = corpus(name);
        match (tmx::read_tmx(&file), expected) {
            (Ok(map), Ok(size)) => {
                assert_eq!((map.width, map.height), *size, "{name}");
                // It plays: the level builds and the simulation runs.
                let mut app =
                    headless_app(&map, &table()).unwrap_or_else(|e| panic!("{name}: {e}"));
                for _ in 0..3 {
                    app.update();
                }
                let level = app.world().resource::<Level>();
                assert!(level.cells().count() > 0, "{name}");
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
    }
    // `play` loads them through the asset server, as the game does.
    let assets = std::env::temp_dir().join(format!("tilewalk-corpus-{}", std::process::id()));
    std::fs::create_dir_all(&assets).unwrap();
    std::fs::write(
        assets.join("terrain.ron"),
        include_str!("../../assets/terrain.ron"),
    )
    .unwrap();
    std::fs::write(
        assets.join("tactics.ron"),
        include_str!("../../assets/tactics.ron"),
    )
    .unwrap();
    for (name, expected) in CORPUS {
        let level = played(&corpus(name), &assets);
        match (level, expected) {
            (Ok((width, height)), Ok(size)) => assert_eq!((width, height), *size, "{name}"),
            (Err(error), Err(end)) => assert!(error.ends_with(end), "{name}: {error}"),
            (got, want) => panic!("{name}: {got:?}, expected {want:?}"),
        }
    }
    let _ = std::fs::remove_dir_all(assets);
    // `path` reads them too, and says which cells no tile names.
    let (code, output) = tilewalk(&[
        "path",
        "--map",
        corpus("tiled-examples/desert.tmx").to_str().unwrap(),
        "--from",
        "0,0",
        "--to",
        "1,0",
    ]);
    assert_eq!(code, Some(1), "{output}");
    assert!(
        output.contains("1600 cells name no terrain and are impassable: tile 0 of `Desert`"),
        "{output}"
    );
}

/// Loads `map` as `play` does (through the asset server, the terrain table and tactics
/// rules from `assets`): the level's size, or the error the game reports.
pub(super) fn played(map: &FsPath, assets: &FsPath) -> Result<(u32, u32), String> {
    use tilewalk::assets::{FileErrors, MapFile};
    use tilewalk::map::register_map_source;
    let mut app = App::new();
    register_map_source(&mut app, map);
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
    for _ in 0..2000 {
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

/// A terrain table naming the four colours of `desert.tsx`'s terrain set, for foot:
/// cobblestone is the road, brick the wall.
pub(super) fn desert_table() -> TerrainTable {
    TerrainTable::parse(DESERT_TABLE).unwrap()
}

/// The text of [`desert_table`].
const DESERT_TABLE: &str = r#"(
    classes: [(name: "foot", speed: 3.0)],
    terrains: [
        (name: "desert", glyphs: "d", tile: 0, cost: {"foot": 3.0}),
        (name: "brick", glyphs: "b", tile: 1, cost: {"foot": 9.0}),
        (name: "cobblestone", glyphs: "c", tile: 2, cost: {"foot": 1.0}),
        (name: "dirt", glyphs: "t", tile: 3, cost: {"foot": 2.0}),
    ],
)"#;

/// `desert.tsx`'s terrain set as the file writes it: each tile's eight colour slots
/// (colour 1 Desert, 2 Brick, 3 Cobblestone, 4 Dirt).
fn desert_wang_ids() -> HashMap<u32, [usize; 8]> {
    let tsx = std::fs::read_to_string(corpus("tiled-examples/desert.tsx")).unwrap();
    tsx.lines()
        .filter_map(|line| {
            let line = line.trim().strip_prefix("<wangtile tileid=\"")?;
            let (id, rest) = line.split_once('"')?;
            let ids = rest.split('"').nth(1)?;
            let slots: Vec<usize> = ids.split(',').map(|v| v.parse().unwrap()).collect();
            Some((id.parse().unwrap(), slots.try_into().unwrap()))
        })
        .collect()
}

#[test]
fn desert_takes_its_costs_from_the_terrain_set_colours_and_paths_prefer_the_cheap_one() {
    use tilewalk_path::{Algorithm, Grid, SearchContext, SearchOptions, find_path};
    let map = tmx::read_tmx(&corpus("tiled-examples/desert.tmx")).unwrap();
    let table = desert_table();
    let (level, nav) = Level::build(&map, &table).unwrap();
    // The grid we expect, worked out here from the files: the tile of each cell (`tiled`
    // decodes the layer), and the colour covering most of its four corners (ties: the
    // costlier).
    let tiled_map = ::tiled::Loader::new()
        .load_tmx_map(corpus("tiled-examples/desert.tmx"))
        .unwrap();
    let layer = tiled_map.get_layer(0).unwrap().as_tile_layer().unwrap();
    let wang = desert_wang_ids();
    let colour_cost = [3.0, 9.0, 1.0, 2.0];
    let expected = Grid::from_fn(40, 40, |p| {
        let tile = layer.get_tile(p.x as i32, p.y as i32)?;
        let slots = wang.get(&tile.id())?;
        let mut counts = [0; 4];
        for corner in [1, 3, 5, 7] {
            if slots[corner] > 0 {
                counts[slots[corner] - 1] += 1;
            }
        }
        let best = (0..4).filter(|&c| counts[c] > 0).max_by(|&a, &b| {
            (counts[a], colour_cost[a])
                .partial_cmp(&(counts[b], colour_cost[b]))
                .unwrap()
        })?;
        Some(colour_cost[best])
    })
    .unwrap();
    let mut cheap_cells = 0;
    for y in 0..40 {
        for x in 0..40 {
            let pos = Pos::new(x, y);
            assert_eq!(nav.grid(FOOT).cost(pos), expected.cost(pos), "{pos}");
            cheap_cells += usize::from(expected.cost(pos) == Some(1.0));
        }
    }
    assert!(cheap_cells > 50, "the map has a cobblestone road");
    assert_eq!(
        level.terrain(Pos::new(0, 0)).map(|t| t.name.as_str()),
        Some("desert")
    );
    // Across the map: the game's path costs what the reference Dijkstra finds on the
    // expected grid, and it keeps to the cobblestones more than a path ignoring costs.
    let (from, to) = (Pos::new(0, 0), Pos::new(39, 39));
    let ours = find_path(nav.grid(FOOT), from, to, &SearchOptions::default()).unwrap();
    let dijkstra = SearchOptions {
        algorithm: Algorithm::Dijkstra,
        ..SearchOptions::default()
    };
    let reference = SearchContext::new()
        .search(&expected, from, to, &dijkstra)
        .unwrap()
        .path;
    assert!((ours.path.cost - reference.cost).abs() < 1e-9);
    let flat = Grid::from_fn(40, 40, |p| expected.cost(p).map(|_| 1.0)).unwrap();
    let shortest = find_path(&flat, from, to, &SearchOptions::default()).unwrap();
    let on_cobbles = |cells: &[Pos]| {
        cells
            .iter()
            .filter(|&&p| expected.cost(p) == Some(1.0))
            .count() as f64
            / cells.len() as f64
    };
    assert!(
        on_cobbles(&ours.path.cells) > on_cobbles(&shortest.path.cells),
        "{} against {}",
        on_cobbles(&ours.path.cells),
        on_cobbles(&shortest.path.cells)
    );
}

#[test]
fn the_topmost_tile_that_names_a_terrain_wins_and_decoration_layers_name_none() {
    let path = corpus("tiled-examples/desert.tmx");
    let text = std::fs::read_to_string(&path).unwrap();
    let tileset = std::fs::read_to_string(corpus("tiled-examples/desert.tsx")).unwrap();
    let files = HashMap::from([(corpus("tiled-examples/desert.tsx"), tileset)]);
    // Desert's tiles (local ids): 29 is all Desert, 9 all Brick, 14 all Dirt.
    let layer = |name: &str, properties: &str, cells: &[(u32, u32, u32)]| {
        let mut gids = vec![0; 40 * 40];
        for &(x, y, id) in cells {
            gids[(y * 40 + x) as usize] = id + 1;
        }
        let csv: Vec<String> = gids.iter().map(u32::to_string).collect();
        format!(
            " <layer id=\"9\" name=\"{name}\" width=\"40\" height=\"40\">{properties}\n  <data encoding=\"csv\">{}</data>\n </layer>\n",
            csv.join(",")
        )
    };
    let top = layer("top", "", &[(0, 0, 9), (1, 0, 14)]);
    let decoration = layer(
        "decoration",
        "<properties><property name=\"terrain\" type=\"bool\" value=\"false\"/></properties>",
        &[(2, 0, 9)],
    );
    let end = text.rfind("</map>").unwrap();
    let layered = format!("{}{top}{decoration}{}", &text[..end], &text[end..]);
    // Without Dirt in the table, the all-Dirt tile names nothing: the layer below decides.
    let mut table = desert_table();
    table.terrains.retain(|t| t.name != "dirt");
    let map = tmx::parse(&path, &layered, &files).unwrap();
    let (level, nav) = Level::build(&map, &table).unwrap();
    let plain = tmx::parse(&path, &text, &files).unwrap();
    let (below, _) = Level::build(&plain, &table).unwrap();
    let name = |level: &Level, x| level.terrain(Pos::new(x, 0)).unwrap().name.clone();
    assert_eq!(name(&level, 0), "brick", "the top layer's tile names brick");
    assert_eq!(nav.grid(FOOT).cost(Pos::new(0, 0)), Some(9.0));
    assert_eq!(name(&level, 1), name(&below, 1), "dirt names nothing here");
    assert_eq!(name(&level, 2), name(&below, 2), "decoration names nothing");
    assert_eq!(name(&below, 2), "desert");
    // The layers are drawn all the same, in order.
    let drawn = level.tiled.as_ref().unwrap();
    let names: Vec<&str> = drawn.layers.iter().map(|l| l.name.as_str()).collect();
    assert_eq!(names, ["Ground", "top", "decoration"]);

    // A `default_terrain` names the cells no tile names: with dirt gone, the all-dirt tiles.
    let defaulted = text.replace(
        " <tileset",
        " <properties><property name=\"default_terrain\" value=\"Cobblestone\"/></properties>\n <tileset",
    );
    let map = tmx::parse(&path, &defaulted, &files).unwrap();
    let (level, nav) = Level::build(&map, &table).unwrap();
    let unnamed = (0..40 * 40)
        .map(|i| Pos::new(i % 40, i / 40))
        .filter(|&p| below.terrain(p).unwrap().name == "no terrain")
        .collect::<Vec<_>>();
    assert!(!unnamed.is_empty());
    for pos in unnamed {
        assert_eq!(level.terrain(pos).unwrap().name, "cobblestone", "{pos}");
        assert_eq!(nav.grid(FOOT).cost(pos), Some(1.0));
    }
    assert!(tilewalk::level::warnings(&map, &level, &nav).is_empty());
    let wrong = defaulted.replace("Cobblestone", "lava");
    let error = Level::build(&tmx::parse(&path, &wrong, &files).unwrap(), &table)
        .unwrap_err()
        .to_string();
    assert!(
        error.starts_with("3:14: `default_terrain` names terrain `lava`, which is unknown"),
        "{error}"
    );
}

#[test]
fn the_isometric_examples_place_their_units_where_tiled_draws_them() {
    use tilewalk::convert::Projection;
    // The isometric map: units on point objects at their cells' centres, in tile heights.
    let iso = tmx::read_tmx(&example("assets/tiled/iso.tmx")).unwrap();
    assert!(matches!(
        iso.projection,
        Projection::Isometric {
            aspect: 2.0,
            stagger: None
        }
    ));
    let at = |map: &MapAsset, name: &str| map.units.iter().find(|u| u.name == name).unwrap().pos;
    assert_eq!(at(&iso, "knight"), Pos::new(1, 10));
    assert_eq!(at(&iso, "raider"), Pos::new(10, 2));
    // The staggered map: units at Tiled's cells (column, row), read as diamond cells.
    let staggered = tmx::read_tmx(&example("assets/tiled/staggered.tmx")).unwrap();
    let Projection::Isometric {
        stagger: Some(stagger),
        ..
    } = staggered.projection
    else {
        panic!("staggered: {:?}", staggered.projection);
    };
    assert_eq!((stagger.columns, stagger.rows), (8, 16));
    assert_eq!((staggered.width, staggered.height), stagger.diamond_size());
    for (name, cell) in [
        ("knight", (0, 10)),
        ("lancer", (1, 13)),
        ("raider", (6, 5)),
        ("archer", (7, 2)),
    ] {
        assert_eq!(
            at(&staggered, name),
            stagger.to_diamond(cell.0, cell.1),
            "{name}"
        );
    }
    let (level, nav) = Level::build(&staggered, &table()).unwrap();
    assert_eq!(level.cells().count(), 8 * 16);
    let tiled = level.tiled.as_ref().unwrap();
    assert_eq!(tiled.tiled_cell(stagger.to_diamond(3, 7)), Some((3, 7)));
    // Every cell is on the map or impassable to all.
    for y in 0..level.height {
        for x in 0..level.width {
            let pos = Pos::new(x, y);
            if !level.contains(pos) {
                assert!(!nav.grid(FLYER).is_passable(pos), "{pos}");
            }
        }
    }
}

// Hostile map files, one test per reproducer of `../shared/fuzz-findings/tmx-*.py`, each
// input built here: each is refused at its place (or opens), quickly and within 2.5 GB.

/// A folder for hostile maps, with the example tilesets beside them.
fn hostile_folder(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("tilewalk-hostile-{name}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    for file in [
        "terrain.tsx",
        "terrain.png",
        "terrain_iso.tsx",
        "terrain_iso.png",
    ] {
        std::fs::copy(example(&format!("assets/tiled/{file}")), dir.join(file)).unwrap();
    }
    dir
}

/// The seconds a hostile map may take in this (debug) build; the release binary's times
/// are in docs/benchmarks.md.
const HOSTILE_SECONDS: f64 = 10.0;

/// Runs `tilewalk path` on `map` under a 2.5 GB address-space limit: its exit status, what
/// it printed, and the seconds it took.
fn hostile_path(map: &FsPath, from: &str, to: &str) -> (Option<i32>, String, f64) {
    let started = std::time::Instant::now();
    let output = Command::new("sh")
        .arg("-c")
        .arg("ulimit -v 2560000 && exec timeout 60 \"$0\" \"$@\"")
        .arg(env!("CARGO_BIN_EXE_tilewalk"))
        .args([
            "path",
            "--map",
            map.to_str().unwrap(),
            "--from",
            from,
            "--to",
            to,
        ])
        .output()
        .expect("the binary runs");
    let seconds = started.elapsed().as_secs_f64();
    let text = String::from_utf8_lossy(&output.stdout).into_owned()
        + &String::from_utf8_lossy(&output.stderr);
    (output.status.code(), text, seconds)
}

/// Asserts that `path` refuses `map` with `error: FILE:AT: …SAYS…` (FILE is `file`, or the
/// map), in time and memory.
fn refused_at(map: &FsPath, file: Option<&FsPath>, at: (usize, usize), says: &str) {
    let (code, output, seconds) = hostile_path(map, "0,0", "1,1");
    let file = file.unwrap_or(map);
    let expected = format!("error: {}:{}:{}: ", file.display(), at.0, at.1);
    assert!(
        code == Some(2) && output.starts_with(&expected) && output.contains(says),
        "{}: exit {code:?}, expected `{expected}…{says}`, got {output}",
        map.display()
    );
    assert!(seconds < HOSTILE_SECONDS, "{}: {seconds} s", map.display());
}

/// Line and column of byte `offset` of an ASCII text.
fn ascii_at(text: &str, offset: usize) -> (usize, usize) {
    let line_start = text[..offset].rfind('\n').map_or(0, |i| i + 1);
    (
        text[..offset].matches('\n').count() + 1,
        offset - line_start + 1,
    )
}

/// A 4x4 orthogonal map of the example tileset around `layer` (the `<layer>` element and
/// what follows it before `</map>`).
fn four_by_four(layer: &str) -> String {
    format!(
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n\
         <map version=\"1.10\" orientation=\"orthogonal\" renderorder=\"right-down\" width=\"4\" height=\"4\" tilewidth=\"32\" tileheight=\"32\" infinite=\"0\">\n \
         <tileset firstgid=\"1\" source=\"terrain.tsx\"/>\n{layer}</map>\n"
    )
}

const SIXTEEN: &str = "1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1";

#[test]
fn a_template_naming_itself_or_a_cycle_of_files_is_refused_where_it_closes() {
    let dir = hostile_folder("template");
    std::fs::write(
        dir.join("t.tx"),
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<template>\n <object template=\"t.tx\" name=\"x\" type=\"foot\" width=\"32\" height=\"32\"/>\n</template>\n",
    )
    .unwrap();
    let map = dir.join("m.tmx");
    std::fs::write(
        &map,
        four_by_four(&format!(
            " <layer id=\"1\" name=\"t\" width=\"4\" height=\"4\">\n  <data encoding=\"csv\">{SIXTEEN}</data>\n </layer>\n \
             <objectgroup id=\"2\" name=\"objs\">\n  <object id=\"1\" template=\"t.tx\" x=\"8\" y=\"8\"/>\n </objectgroup>\n"
        )),
    )
    .unwrap();
    refused_at(
        &map,
        Some(&dir.join("t.tx")),
        (3, 2),
        "files must not name each other in a cycle",
    );

    // A tileset whose tile's collision object is a template whose tileset is that tileset.
    let tileset = "<tileset version=\"1.10\" name=\"t\" tilewidth=\"32\" tileheight=\"32\" tilecount=\"1\" columns=\"1\">\n \
        <image source=\"tiles.png\" width=\"32\" height=\"32\"/>\n \
        <tile id=\"0\" type=\"grass\">\n  <objectgroup>\n   <object id=\"1\" template=\"b.tx\"/>\n  </objectgroup>\n </tile>\n</tileset>\n";
    let template = "<template>\n <tileset firstgid=\"1\" source=\"tiles.tsx\"/>\n <object gid=\"1\" width=\"32\" height=\"32\"/>\n</template>\n";
    let files = HashMap::from([
        (PathBuf::from("t/tiles.tsx"), tileset.to_owned()),
        (PathBuf::from("t/b.tx"), template.to_owned()),
    ]);
    let good = tmx_text(ORTHOGONAL, 2, &[0, 0], "");
    let error = tmx::parse(FsPath::new("t/m.tmx"), &good, &files)
        .unwrap_err()
        .to_string();
    assert_eq!(
        error,
        "t/b.tx:2:2: t/tiles.tsx is already being read here (t/m.tmx → t/tiles.tsx → t/b.tx → t/tiles.tsx): files must not name each other in a cycle"
    );

    // A chain of templates, each naming the next: refused past 16 files.
    let mut files = HashMap::from([(
        PathBuf::from("t/tiles.tsx"),
        tsx_text(&[" type=\"grass\">"]),
    )]);
    for i in 0..40 {
        files.insert(
            PathBuf::from(format!("t/c{i}.tx")),
            format!("<template>\n <object template=\"c{}.tx\" width=\"32\" height=\"32\"/>\n</template>\n", i + 1),
        );
    }
    let chained = tmx_text(
        ORTHOGONAL,
        2,
        &[0, 0],
        "  <object id=\"1\" template=\"c0.tx\" x=\"8\" y=\"8\"/>\n",
    );
    let error = tmx::parse(FsPath::new("t/m.tmx"), &chained, &files)
        .unwrap_err()
        .to_string();
    assert!(
        error.starts_with(
            "t/c14.tx:2:2: files name each other more than 16 deep (t/m.tmx → t/c0.tx → "
        ),
        "{error}"
    );
    let _ = std::fs::remove_dir_all(dir);
}

#[test]
fn group_layers_nested_past_the_limit_are_refused_and_deep_ones_within_it_open() {
    let dir = hostile_folder("groups");
    let square = std::fs::read_to_string(example("assets/tiled/square.tmx")).unwrap();
    let start = square.find(" <layer").unwrap();
    let end = square[start..].find("</layer>\n").unwrap() + start + "</layer>\n".len();
    let nested = |n: usize| {
        let opens: String = (0..n)
            .map(|i| format!("<group id=\"{}\" name=\"g{i}\">", 100 + i))
            .collect();
        format!(
            "{}{opens}{}{}{}",
            &square[..start],
            &square[start..end],
            "</group>".repeat(n),
            &square[end..]
        )
    };
    for n in [5000, 20000] {
        let text = nested(n);
        let map = dir.join(format!("deep{n}.tmx"));
        std::fs::write(&map, &text).unwrap();
        // The map is depth 0: the 64th group is the first too deep.
        let at = text.match_indices("<group").nth(63).unwrap().0;
        refused_at(
            &map,
            None,
            ascii_at(&text, at),
            "<group> is nested more than 64 elements deep",
        );
    }
    // 60 groups deep (Tiled's own maps nest a few) open, on a test thread's small stack.
    let text = nested(60);
    let tilesets = HashMap::from([(
        PathBuf::from("t/terrain.tsx"),
        std::fs::read_to_string(example("assets/tiled/terrain.tsx")).unwrap(),
    )]);
    let deep = tmx::parse(FsPath::new("t/m.tmx"), &text, &tilesets).unwrap();
    let flat = tmx::parse(FsPath::new("t/m.tmx"), &square, &tilesets).unwrap();
    assert_eq!(deep.tiles.unwrap().layers, flat.tiles.unwrap().layers);
    let _ = std::fs::remove_dir_all(dir);
}

#[test]
fn a_tileset_whose_image_claims_a_huge_size_or_holds_no_column_is_refused_at_the_tileset() {
    let dir = hostile_folder("image-size");
    let tileset = |image: &str| {
        format!(
            "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n\
             <map version=\"1.10\" orientation=\"orthogonal\" renderorder=\"right-down\" width=\"2\" height=\"2\" tilewidth=\"32\" tileheight=\"32\" infinite=\"0\">\n \
             <tileset firstgid=\"1\" name=\"old\" tilewidth=\"32\" tileheight=\"32\">\n  {image}\n </tileset>\n \
             <layer id=\"1\" name=\"t\" width=\"2\" height=\"2\">\n  <data encoding=\"csv\">1,1,1,1</data>\n </layer>\n</map>\n"
        )
    };
    let map = dir.join("m.tmx");
    std::fs::write(
        &map,
        tileset("<image source=\"terrain.png\" width=\"2000000\" height=\"2000000\"/>"),
    )
    .unwrap();
    refused_at(
        &map,
        None,
        (3, 2),
        "the tileset has no tilecount, and its 2000000x2000000 px image holds 3906250000 tiles of 32x32 px: more than tilewalk reads (65536 tiles a tileset)",
    );
    // The same size from the PNG file's header, the image element giving none.
    let png = |side: u32| {
        let mut png = b"\x89PNG\r\n\x1a\n\0\0\0\x0dIHDR".to_vec();
        png.extend_from_slice(&side.to_be_bytes());
        png.extend_from_slice(&side.to_be_bytes());
        png
    };
    std::fs::write(dir.join("huge.png"), png(2_000_000)).unwrap();
    let from_file = dir.join("png.tmx");
    std::fs::write(&from_file, tileset("<image source=\"huge.png\"/>")).unwrap();
    refused_at(&from_file, None, (3, 2), "holds 3906250000 tiles");
    // A margin wider than the image (here a PNG of 0x0 px, as the fuzz campaign wrote one),
    // or a spacing past what `tiled` counts columns in (`u32`): its sum overflows, a panic
    // in a debug build and nonsense columns in a release one. Refused at the tileset.
    std::fs::write(dir.join("empty.png"), png(0)).unwrap();
    let narrow = dir.join("narrow.tmx");
    let with = |settings: &str, image: &str| {
        tileset(image).replace(" name=\"old\"", &format!(" name=\"old\" {settings}"))
    };
    std::fs::write(
        &narrow,
        with("margin=\"1\"", "<image source=\"empty.png\"/>"),
    )
    .unwrap();
    refused_at(
        &narrow,
        None,
        (3, 2),
        "the tileset has no columns, and its margin of 1 px is wider than its 0 px image",
    );
    let spaced = dir.join("spaced.tmx");
    let image = "<image source=\"terrain.png\" width=\"64\" height=\"64\"/>";
    std::fs::write(&spaced, with("spacing=\"4294967295\"", image)).unwrap();
    refused_at(
        &spaced,
        None,
        (3, 2),
        "make more columns than can be counted",
    );
    // With its columns given, `tiled` works none out: the margin is the tileset's own affair.
    std::fs::write(
        &narrow,
        with(
            "margin=\"1\" columns=\"1\"",
            "<image source=\"empty.png\"/>",
        ),
    )
    .unwrap();
    let (code, output, _) = hostile_path(&narrow, "0,0", "1,1");
    assert!(
        matches!(code, Some(0..=2)) && !output.contains("columns"),
        "exit {code:?}: {output}"
    );
    let _ = std::fs::remove_dir_all(dir);
}

#[test]
fn a_thin_staggered_strip_is_refused_for_the_diamond_grid_it_covers() {
    use base64::Engine;
    let dir = hostile_folder("staggered");
    let rows = 100_000;
    let mut zlib = flate2::write::ZlibEncoder::new(Vec::new(), flate2::Compression::best());
    std::io::Write::write_all(&mut zlib, &1u32.to_le_bytes().repeat(rows)).unwrap();
    let data = base64::engine::general_purpose::STANDARD.encode(zlib.finish().unwrap());
    let map = dir.join("stag.tmx");
    std::fs::write(
        &map,
        format!(
            "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n\
             <map version=\"1.10\" orientation=\"staggered\" renderorder=\"right-down\" width=\"1\" height=\"{rows}\" tilewidth=\"64\" tileheight=\"32\" infinite=\"0\" staggeraxis=\"y\" staggerindex=\"odd\">\n \
             <tileset firstgid=\"1\" source=\"terrain_iso.tsx\"/>\n \
             <layer id=\"1\" name=\"t\" width=\"1\" height=\"{rows}\">\n  <data encoding=\"base64\" compression=\"zlib\">{data}</data>\n </layer>\n</map>\n"
        ),
    )
    .unwrap();
    refused_at(
        &map,
        None,
        (2, 1),
        "the staggered 1x100000 map covers a 50001x50000 grid of diamond cells (at most 16M cells)",
    );
    let _ = std::fs::remove_dir_all(dir);
}

#[test]
fn compressed_layer_data_is_inflated_only_up_to_what_the_layer_needs() {
    use base64::Engine;
    let dir = hostile_folder("bomb");
    // zstd: a frame of 128 KiB blocks of zeros (RLE), 4 GiB in 128 KB.
    let (size, block) = (4u64 << 30, 1u64 << 17);
    let mut zstd = b"\x28\xb5\x2f\xfd\x00\x38".to_vec();
    let blocks = size / block;
    for i in 0..blocks {
        let header = ((block << 3) | 2 | u64::from(i == blocks - 1)) as u32;
        zstd.extend_from_slice(&header.to_le_bytes()[..3]);
        zstd.push(0);
    }
    // zlib: 2 GiB of zeros.
    let mut zlib = flate2::write::ZlibEncoder::new(Vec::new(), flate2::Compression::best());
    let zeros = vec![0u8; 1 << 24];
    for _ in 0..128 {
        std::io::Write::write_all(&mut zlib, &zeros).unwrap();
    }
    for (kind, payload) in [("zstd", zstd), ("zlib", zlib.finish().unwrap())] {
        let data = base64::engine::general_purpose::STANDARD.encode(payload);
        let map = dir.join(format!("{kind}.tmx"));
        std::fs::write(
            &map,
            four_by_four(&format!(
                " <layer id=\"1\" name=\"t\" width=\"4\" height=\"4\">\n  <data encoding=\"base64\" compression=\"{kind}\">{data}</data>\n </layer>\n"
            )),
        )
        .unwrap();
        refused_at(
            &map,
            None,
            (5, 3),
            "layer `t`: its data holds more than the 16 tiles it is for (decompression stopped there)",
        );
    }
    let _ = std::fs::remove_dir_all(dir);
}

#[test]
fn the_data_checked_is_the_data_tiled_reads() {
    let dir = hostile_folder("data");
    let two = dir.join("two-data.tmx");
    std::fs::write(
        &two,
        four_by_four(&format!(
            " <layer id=\"1\" name=\"t\" width=\"4\" height=\"4\">\n  <data encoding=\"csv\">{SIXTEEN}</data>\n  <data encoding=\"csv\">1,1</data>\n </layer>\n"
        )),
    )
    .unwrap();
    refused_at(
        &two,
        None,
        (6, 3),
        "layer `t` has a second <data> element (a layer has one)",
    );
    // A `<layer>` inside an object layer, which `tiled` skips, is not the one checked.
    let decoy = |data: &str| {
        four_by_four(&format!(
            " <objectgroup id=\"3\" name=\"decoy\"><layer id=\"9\" name=\"decoy\" width=\"4\" height=\"4\"><data encoding=\"csv\">{SIXTEEN}</data></layer></objectgroup>\n \
             <layer id=\"1\" name=\"t\" width=\"4\" height=\"4\">\n  <data encoding=\"csv\">{data}</data>\n </layer>\n"
        ))
    };
    let map = dir.join("decoy.tmx");
    std::fs::write(&map, decoy("1,1")).unwrap();
    refused_at(
        &map,
        None,
        (6, 3),
        "layer `t`: 4x4 with 2 tiles of data; the 4x4 map needs 16",
    );
    // With its own 16 tiles, the real layer opens.
    std::fs::write(&map, decoy(SIXTEEN)).unwrap();
    let (code, output, _) = hostile_path(&map, "0,0", "1,1");
    assert_eq!(code, Some(0), "{output}");
    let _ = std::fs::remove_dir_all(dir);
}

#[test]
fn line_and_column_take_linear_time() {
    let dir = hostile_folder("xml");
    // A valid 300x300 map in the old XML encoding (1.4 MB): it opens, every cell read.
    let n = 300;
    let map = dir.join("xml300.tmx");
    std::fs::write(
        &map,
        format!(
            "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n\
             <map version=\"1.10\" orientation=\"orthogonal\" renderorder=\"right-down\" width=\"{n}\" height=\"{n}\" tilewidth=\"32\" tileheight=\"32\" infinite=\"0\">\n \
             <tileset firstgid=\"1\" source=\"terrain.tsx\"/>\n \
             <layer id=\"1\" name=\"t\" width=\"{n}\" height=\"{n}\">\n  <data>\n{}  </data>\n </layer>\n</map>\n",
            "<tile gid=\"1\"/>\n".repeat(n * n)
        ),
    )
    .unwrap();
    let (code, output, seconds) = hostile_path(&map, "0,0", "299,299");
    assert_eq!(code, Some(0), "{output}");
    assert!(seconds < HOSTILE_SECONDS, "{seconds} s");
    // 100,000 attributes on `<map>` (1.2 MB), which Tiled would ignore: refused at the map.
    let square = std::fs::read_to_string(example("assets/tiled/square.tmx")).unwrap();
    let attributes: String = (0..100_000).map(|i| format!(" a{i}=\"1\"")).collect();
    let many = dir.join("attrs.tmx");
    std::fs::write(
        &many,
        square.replacen("<map ", &format!("<map{attributes} "), 1),
    )
    .unwrap();
    let at = square.find("<map ").unwrap();
    refused_at(
        &many,
        None,
        ascii_at(&square, at),
        "<map> has more than 64 attributes",
    );
    let _ = std::fs::remove_dir_all(dir);
}

#[test]
fn errors_tiled_finds_are_located_at_their_element() {
    let dir = hostile_folder("located");
    for file in ["terrain_hex.tsx", "terrain_hex.png"] {
        std::fs::copy(example(&format!("assets/tiled/{file}")), dir.join(file)).unwrap();
    }
    let square = std::fs::read_to_string(example("assets/tiled/square.tmx")).unwrap();
    let hex = std::fs::read_to_string(example("assets/tiled/hex.tmx")).unwrap();
    let data = square.find("<data").unwrap();
    let cases = [
        (
            "hexside",
            hex.replace("hexsidelength=\"18\"", "hexsidelength=\"x\""),
            ascii_at(&hex, hex.find("<map").unwrap()),
            "<map>: `hexsidelength=\"x\"` is not a valid value",
        ),
        (
            "gid",
            square.replacen("1,1,3,3,3,3,", "-1,1,3,3,3,3,", 1),
            ascii_at(&square, square.find("1,1,3,3,3,3,").unwrap()),
            "layer `terrain`: CSV entry 1 `-1` is no tile gid: invalid digit found in string",
        ),
        (
            "encoding",
            square.replace("<data encoding=\"csv\">", "<data encoding=\"CSV\">"),
            ascii_at(&square, data),
            "encoding `CSV` with compression `none` is not a layer encoding",
        ),
        (
            "base64",
            square.replace("<data encoding=\"csv\">", "<data encoding=\"base64\">"),
            ascii_at(&square, data),
            "its base64 data does not decode",
        ),
        (
            "tileset-attribute",
            square.replace("firstgid=\"1\"", "firstgid=\"one\""),
            ascii_at(&square, square.find("<tileset").unwrap()),
            "<tileset>: `firstgid=\"one\"` is not a valid value",
        ),
    ];
    for (name, text, at, says) in cases {
        assert!(text != hex && text != square, "{name}");
        let map = dir.join(format!("{name}.tmx"));
        std::fs::write(&map, text).unwrap();
        refused_at(&map, None, at, says);
    }
    let _ = std::fs::remove_dir_all(dir);
}

/// Runs `args` with `--map` on `with_art`, then on `without_art` (the same map without its
/// images): the same exit status and output, and on stderr a warning for `image`, which
/// `without_art` names at `at` (line, column).
pub(super) fn reads_without_art(
    with_art: &FsPath,
    without_art: &FsPath,
    args: &[&str],
    image: &str,
    at: (usize, usize),
) {
    let run = |map: &FsPath| {
        Command::new(env!("CARGO_BIN_EXE_tilewalk"))
            .args(&args[..1])
            .args(["--map", map.to_str().unwrap()])
            .args(&args[1..])
            .output()
            .expect("the binary runs")
    };
    let (art, none) = (run(with_art), run(without_art));
    let stderr = String::from_utf8_lossy(&none.stderr);
    assert_eq!(art.status.code(), none.status.code(), "{args:?}: {stderr}");
    // The same answer, but for the wall-clock timings.
    let answer = |out: &[u8]| {
        String::from_utf8_lossy(out)
            .lines()
            .map(|l| l.split("\"micros\"").next().unwrap().to_owned())
            .map(|l| l.split("  time ").next().unwrap().to_owned())
            .collect::<Vec<_>>()
    };
    assert_eq!(
        answer(&art.stdout),
        answer(&none.stdout),
        "{args:?}: the same answer with its art or without"
    );
    let warning = format!(
        "warning: {}:{}:{}: cannot read the image {image}: not found",
        without_art.display(),
        at.0,
        at.1
    );
    assert_eq!(
        stderr.matches(&warning).count(),
        1,
        "{args:?}: {warning} in {stderr}"
    );
    let art_stderr = String::from_utf8_lossy(&art.stderr);
    assert!(
        !art_stderr.contains("cannot read the image"),
        "{args:?}: {art_stderr}"
    );
}

#[test]
fn headless_commands_read_a_tiled_map_whose_images_are_missing_and_name_each() {
    let dir = std::env::temp_dir().join(format!("tilewalk-no-art-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    // Tiled's desert example, its map and tileset without the image.
    for file in ["desert.tmx", "desert.tsx"] {
        std::fs::copy(corpus("tiled-examples").join(file), dir.join(file)).unwrap();
    }
    let table = dir.join("desert.ron");
    std::fs::write(&table, DESERT_TABLE).unwrap();
    let table = table.to_str().unwrap();
    // The map names its tileset on line 3, column 2 (`<tileset firstgid="1" source=…`).
    let desert = (corpus("tiled-examples/desert.tmx"), dir.join("desert.tmx"));
    assert!(desert.0.with_file_name("tmw_desert_spacing.png").is_file());
    for args in [
        &[
            "path",
            "--terrain",
            table,
            "--from",
            "0,0",
            "--to",
            "39,39",
            "--json",
        ][..],
        &["path", "--terrain", table, "--from", "3,4", "--to", "30,20"],
    ] {
        reads_without_art(&desert.0, &desert.1, args, "tmw_desert_spacing.png", (3, 2));
    }
    // The example map with units, for `simulate` and `tactics`: a warning where the map
    // names the tileset whose image is missing.
    for file in ["square.tmx", "terrain.tsx"] {
        std::fs::copy(example("assets/tiled").join(file), dir.join(file)).unwrap();
    }
    let square = (example("assets/tiled/square.tmx"), dir.join("square.tmx"));
    for args in [
        &["simulate", "--json", "--order", "knight:15,2"][..],
        &[
            "tactics",
            "--range",
            "knight",
            "--move",
            "knight:3,3",
            "--end-turn",
        ],
        &["path", "--from", "0,0", "--to", "11,7", "--class", "horse"],
    ] {
        let text = std::fs::read_to_string(&square.1).unwrap();
        let line = text
            .lines()
            .position(|l| l.contains("terrain.tsx"))
            .unwrap()
            + 1;
        let column = text.lines().nth(line - 1).unwrap().find('<').unwrap() + 1;
        reads_without_art(&square.0, &square.1, args, "terrain.png", (line, column));
    }
    let _ = std::fs::remove_dir_all(dir);
}
