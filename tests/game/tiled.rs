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
            let expected = if name == "ford" { "water" } else { name };
            assert_eq!(from_tiled.terrain(pos).unwrap().name, expected, "{pos}");
        }
        let image = from_tiled.tileset.clone().expect("drawn with its tileset");
        assert!(
            example("assets/tiled").join(&image.path).is_file(),
            "{image:?}"
        );
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
    assert_eq!(level.terrain(Pos::new(3, 0)).unwrap().name, "tile 3");
    // The tile drawn is the tileset's own.
    assert_eq!(level.terrain(Pos::new(3, 0)).unwrap().tile, 3);
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

    // A terrain the table does not have: the map parses, the level cannot be built.
    let swamp = tsx_text(&[" type=\"swamp\">"]);
    let map = tiled(&good, &swamp).unwrap();
    let error = Level::build(&map, &table()).unwrap_err().to_string();
    assert!(
        error.starts_with(&format!("{}:2: tile 0 of tiles.tsx (tiles.tsx:4:2) names terrain `swamp`, which is unknown (the terrain table has grass, road,", line_of(&good, "<tileset"))),
        "{error}"
    );

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
    // A unit without a team, two on one tile.
    let no_team = good.replace("<property name=\"team\" value=\"blue\"/>", "");
    assert!(
        tiled(&no_team, &grass)
            .unwrap_err()
            .contains("object 1 (`k`): the `team` property must be blue or red, got ``")
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

    // An empty cell, at its entry in the CSV data.
    let empty = good.replace("\n1,1\n", "\n1,0\n");
    assert_eq!(
        tiled(&empty, &grass).unwrap_err(),
        format!(
            "t/m.tmx:{}:3: layer `ground`: cell 1,0 is empty (every cell needs a tile)",
            line_of(&empty, "1,0")
        )
    );
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
            "t/m.tmx:{}:3: layer `ground`: cell 1,0 has tile 8, which its tileset does not have (1 tiles)",
            line_of(&beyond, "1,9")
        )
    );
    let base64 = good.replace(
        "<data encoding=\"csv\">\n1,1\n",
        "<data encoding=\"base64\">\nAQAAAAEAAAA=\n",
    );
    assert!(
        tiled(&base64, &grass)
            .unwrap_err()
            .contains("layer `ground`: only CSV tile data is read"),
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

    // Isometric maps and a second tile layer are refused, by name.
    let iso = good.replace("orthogonal", "isometric");
    assert!(tiled(&iso, &grass).unwrap_err().ends_with(
        "isometric maps are not supported (tilewalk reads orthogonal and hexagonal maps)"
    ));
    let two_layers = good.replace(" <objectgroup", " <layer id=\"3\" name=\"more\" width=\"2\" height=\"1\"><data encoding=\"csv\">1,1</data></layer>\n <objectgroup");
    assert!(
        tiled(&two_layers, &grass)
            .unwrap_err()
            .contains("the map has 2 tile layers; tilewalk reads exactly one")
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
