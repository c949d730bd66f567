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

fn table_with_ford() -> TerrainTable {
    TerrainTable::parse(&table_with_ford_text()).unwrap()
}

fn example(name: &str) -> PathBuf {
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
        "2:1: 2 cells name no terrain and are impassable: tile 0 of `t` (give a tile a Class or `terrain` property, paint it with a terrain-set colour named like a terrain, or give the map a `default_terrain` property)"
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
            let (_, from_map) = tilewalk(&[&twin[..], &args[..]].concat());
            assert_eq!(code, Some(0), "{command} {args:?} {tmx_file}: {from_tmx}");
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
fn corpus(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../shared/tiled-corpus")
        .join(name)
}

/// How a map of the corpus opens: `Ok` with its size, or the end of the message that
/// refuses it.
type Outcome = Result<(u32, u32), &'static str>;

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
fn played(map: &FsPath, assets: &FsPath) -> Result<(u32, u32), String> {
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
fn desert_table() -> TerrainTable {
    TerrainTable::parse(
        r#"(
            classes: [(name: "foot", speed: 3.0)],
            terrains: [
                (name: "desert", glyphs: "d", tile: 0, cost: {"foot": 3.0}),
                (name: "brick", glyphs: "b", tile: 1, cost: {"foot": 9.0}),
                (name: "cobblestone", glyphs: "c", tile: 2, cost: {"foot": 1.0}),
                (name: "dirt", glyphs: "t", tile: 3, cost: {"foot": 2.0}),
            ],
        )"#,
    )
    .unwrap()
}

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
