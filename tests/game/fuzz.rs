//! Bad input, as a hostile tester would write it: arbitrary bytes and structured mutations of
//! the shipped maps, Tiled maps with their tilesets and templates, terrain table and tactics
//! rules, and mangled command lines. Nothing may panic, and every error from a file names a
//! line and column inside it. (The long campaign that runs the release binary on 100,000
//! inputs is `fuzz/campaign.py`.)

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use clap::Parser;
use proptest::prelude::*;
use tilewalk::assets::{AssetFileError, TextError, decode_text};
use tilewalk::cli::Cli;
use tilewalk::level::{Level, warnings};
use tilewalk::map::{MapAsset, tmx};
use tilewalk::tactics::parse_rules;
use tilewalk::terrain::TerrainTable;
use tilewalk_path::formats::ParseError;

const MAPS: [&str; 4] = [
    include_str!("../../assets/maps/meadow.map"),
    include_str!("../../assets/maps/skirmish.map"),
    include_str!("../../assets/maps/maze.map"),
    "type octile\nheight 3\nwidth 4\nmap\n@...\n.TW.\n...S\n",
];
const TERRAIN: &str = include_str!("../../assets/terrain.ron");
const RULES: &str = include_str!("../../assets/tactics.ron");

/// Pieces a mutation inserts: glyphs, brackets, separators, numbers a parser may choke on.
const PIECES: [&str; 24] = [
    "#",
    "~",
    "?",
    "[units]",
    "[terrain]",
    "(",
    ")",
    "[",
    "]",
    ",",
    ":",
    "\n",
    "\r\n",
    "-",
    "1e308",
    "1e-320",
    "NaN",
    "-1",
    "4294967296",
    "99999999999999999999",
    "\u{feff}",
    "é",
    "Some(",
    "//",
];

/// The example Tiled maps, each with its tileset's file name and text.
const TILED: [(&str, &str, &str); 2] = [
    (
        include_str!("../../assets/tiled/square.tmx"),
        "terrain.tsx",
        include_str!("../../assets/tiled/terrain.tsx"),
    ),
    (
        include_str!("../../assets/tiled/hex.tmx"),
        "terrain_hex.tsx",
        include_str!("../../assets/tiled/terrain_hex.tsx"),
    ),
];

/// Pieces of Tiled XML a mutation inserts: nesting, second data, encodings, compression,
/// templates, cycles, sizes, orientations, entities.
const XML_PIECES: [&str; 24] = [
    "<group id=\"9\">",
    "</group>",
    "<group><group><group>",
    "<data encoding=\"csv\">1,1</data>",
    "<layer id=\"7\" name=\"x\" width=\"4\" height=\"4\">",
    " compression=\"zlib\"",
    " compression=\"zstd\"",
    " encoding=\"base64\"",
    "eJzt0DENAAAMw6D5N727T1pA",
    "<objectgroup id=\"8\"><object id=\"9\" template=\"t.tx\"/></objectgroup>",
    " template=\"t.tx\"",
    "<tileset firstgid=\"50\" name=\"old\" tilewidth=\"1\" tileheight=\"1\"><image source=\"x.png\" width=\"70000\" height=\"70000\"/></tileset>",
    " tilecount=\"4294967295\"",
    " width=\"100000\"",
    " orientation=\"staggered\"",
    " infinite=\"1\"",
    "<chunk x=\"0\" y=\"0\" width=\"16\" height=\"16\">1</chunk>",
    "&#44;",
    "<![CDATA[1,2]]>",
    "-1,",
    " hexsidelength=\"x\"",
    " a=\"1\" b=\"2\"",
    "<properties><property name=\"foot\" type=\"int\" value=\"x\"/></properties>",
    "=\"",
];

/// One edit of a Tiled file: where (a fraction of its length) and what.
#[derive(Clone, Debug)]
enum XmlEdit {
    Text(Edit),
    Insert(f64, usize),
}

fn xml_edit() -> impl Strategy<Value = XmlEdit> {
    prop_oneof![
        edit().prop_map(XmlEdit::Text),
        (0.0..1.0, 0..XML_PIECES.len()).prop_map(|(at, i)| XmlEdit::Insert(at, i)),
        (0.0..1.0, 0..XML_PIECES.len()).prop_map(|(at, i)| XmlEdit::Insert(at, i)),
    ]
}

/// `text` with Tiled edits applied (on character boundaries).
fn mutate_xml(text: &str, edits: &[XmlEdit]) -> String {
    let mut text = text.to_owned();
    for edit in edits {
        text = match edit {
            XmlEdit::Text(edit) => mutate(&text, std::slice::from_ref(edit)),
            &XmlEdit::Insert(f, i) => {
                let chars: Vec<char> = text.chars().collect();
                let at = ((f * chars.len() as f64) as usize).min(chars.len());
                let mut out: String = chars[..at].iter().collect();
                out.push_str(XML_PIECES[i]);
                out.extend(&chars[at..]);
                out
            }
        };
    }
    text
}

/// A template naming the tileset and, maybe, itself.
const TEMPLATE: &str = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<template>\n <tileset firstgid=\"1\" source=\"terrain.tsx\"/>\n <object gid=\"1\" width=\"32\" height=\"32\"/>\n</template>\n";

/// One edit of a text: where (a fraction of its length) and what.
#[derive(Clone, Debug)]
enum Edit {
    Delete(f64, usize),
    Insert(f64, usize),
    DuplicateLine(f64),
    DeleteLine(f64),
}

fn edit() -> impl Strategy<Value = Edit> {
    prop_oneof![
        (0.0..1.0, 1..8usize).prop_map(|(at, n)| Edit::Delete(at, n)),
        (0.0..1.0, 0..PIECES.len()).prop_map(|(at, i)| Edit::Insert(at, i)),
        (0.0..1.0).prop_map(Edit::DuplicateLine),
        (0.0..1.0).prop_map(Edit::DeleteLine),
    ]
}

/// `text` with `edits` applied (on character boundaries).
fn mutate(text: &str, edits: &[Edit]) -> String {
    let mut chars: Vec<char> = text.chars().collect();
    for edit in edits {
        let at = |f: f64, len: usize| ((f * len as f64) as usize).min(len);
        match *edit {
            Edit::Delete(f, n) => {
                let start = at(f, chars.len());
                chars.drain(start..(start + n).min(chars.len()));
            }
            Edit::Insert(f, i) => {
                let start = at(f, chars.len());
                chars.splice(start..start, PIECES[i].chars());
            }
            Edit::DuplicateLine(f) | Edit::DeleteLine(f) => {
                let text: String = chars.iter().collect();
                let mut lines: Vec<&str> = text.split('\n').collect();
                let i = at(f, lines.len() - 1);
                if matches!(edit, Edit::DuplicateLine(_)) {
                    lines.insert(i, lines[i]);
                } else {
                    lines.remove(i);
                }
                chars = lines.join("\n").chars().collect();
            }
        }
    }
    chars.into_iter().collect()
}

/// The error points inside the text (a line one past the end is allowed: "expected more").
fn located(error: &ParseError, text: &str) {
    let lines = text.lines().count().max(1);
    assert!(
        error.line >= 1 && error.column >= 1 && error.line <= lines + 1,
        "{error} is not inside the {lines} lines"
    );
}

fn table() -> TerrainTable {
    TerrainTable::parse(TERRAIN).expect("the shipped table parses")
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 400, ..ProptestConfig::default() })]

    #[test]
    fn mutated_maps_parse_or_fail_at_a_place(
        base in 0..MAPS.len(),
        edits in prop::collection::vec(edit(), 1..6),
    ) {
        let text = mutate(MAPS[base], &edits);
        match MapAsset::parse(&text) {
            Ok(map) => match Level::build(&map, &table()) {
                Ok((level, nav)) => {
                    for warning in warnings(&map, &level, &nav) {
                        located(&warning, &text);
                    }
                }
                Err(error) => located(&error, &text),
            },
            Err(error) => located(&error, &text),
        }
    }

    #[test]
    fn mutated_tiled_maps_tilesets_and_templates_open_or_fail_at_a_place(
        base in 0..TILED.len(),
        map_edits in prop::collection::vec(xml_edit(), 1..6),
        tileset_edits in prop::collection::vec(xml_edit(), 0..3),
        template_edits in prop::collection::vec(xml_edit(), 0..3),
    ) {
        let (map, tileset_name, tileset) = TILED[base];
        let map = mutate_xml(map, &map_edits);
        let files: HashMap<PathBuf, String> = HashMap::from([
            (Path::new("t").join(tileset_name), mutate_xml(tileset, &tileset_edits)),
            (PathBuf::from("t/t.tx"), mutate_xml(TEMPLATE, &template_edits)),
        ]);
        match tmx::parse(Path::new("t/m.tmx"), &map, &files) {
            Ok(map) => {
                if let Err(error) = Level::build(&map, &table()) {
                    prop_assert!(error.line >= 1 && error.column >= 1, "{error}");
                }
            }
            Err(AssetFileError::Parse { file, error }) => {
                let text = if file == "t/m.tmx" { Some(&map) } else { files.get(Path::new(&file)) };
                let text = text.unwrap_or_else(|| panic!("{file}:{error} is in no file of the map"));
                located(&error, text);
            }
            Err(other) => panic!("no line and column: {other}"),
        }
    }

    #[test]
    fn mutated_terrain_tables_and_rules_parse_or_fail_at_a_place(
        edits in prop::collection::vec(edit(), 1..6),
    ) {
        let terrain = mutate(TERRAIN, &edits);
        if let Err(error) = TerrainTable::parse(&terrain) {
            located(&error, &terrain);
        }
        let rules = mutate(RULES, &edits);
        if let Err(error) = parse_rules(&rules) {
            located(&error, &rules);
        }
    }

    #[test]
    fn arbitrary_bytes_are_refused_at_a_place(bytes in prop::collection::vec(any::<u8>(), 0..400)) {
        match decode_text(bytes) {
            Ok(text) => {
                let errors = [
                    MapAsset::parse(&text).err(),
                    TerrainTable::parse(&text).err(),
                    parse_rules(&text).err(),
                ];
                for error in errors.iter().flatten() {
                    located(error, &text);
                }
            }
            Err(TextError::NotUtf8(error)) => assert!(error.line >= 1 && error.column >= 1),
            Err(TextError::TooLarge) => panic!("400 bytes are not too large"),
        }
    }

    #[test]
    fn mangled_command_lines_are_parsed_or_refused(
        words in prop::collection::vec(
            prop_oneof![
                Just("path".to_owned()), Just("simulate".to_owned()), Just("tactics".to_owned()),
                Just("gen".to_owned()), Just("play".to_owned()), Just("--map".to_owned()),
                Just("--from".to_owned()), Just("--to".to_owned()), Just("--order".to_owned()),
                Just("--width".to_owned()), Just("--seconds".to_owned()), Just("--json".to_owned()),
                Just("--diagonal".to_owned()), Just("--algorithm".to_owned()),
                Just("-1,0".to_owned()), Just("4294967296,1".to_owned()), Just("NaN".to_owned()),
                "[ -~]{0,12}",
            ],
            0..8,
        ),
    ) {
        // Parsing either succeeds or gives clap's error; it never panics.
        let _ = Cli::try_parse_from(std::iter::once("tilewalk".to_owned()).chain(words));
    }
}

#[test]
fn the_cases_the_fuzz_campaign_found_stay_fixed() {
    // A Moving AI header that lies about its size: no allocation from the claim.
    let liar = "type octile\nheight 715827881\nwidth 1\nmap\n.\n";
    assert!(MapAsset::parse(liar).is_err());
    let huge = "type octile\nheight 65536\nwidth 65536\nmap\n...\n";
    assert!(
        MapAsset::parse(huge)
            .unwrap_err()
            .to_string()
            .contains("too large")
    );
    // A byte order mark and a damaged header.
    let bom = "\u{feff}type octile\nheight 1\nwidth 2\nmap\n..\n";
    assert_eq!(MapAsset::parse(bom).unwrap().width, 2);
    let damaged = MapAsset::parse("tpye octile\nheight 1\nwidth 2\nmap\n..\n").unwrap_err();
    assert_eq!(
        damaged.to_string(),
        "1:1: expected the header `type octile`, got `tpye octile`"
    );
    // Invalid UTF-8 is located.
    let TextError::NotUtf8(error) = decode_text(b"[terrain]\n..\xff.\n".to_vec()).unwrap_err()
    else {
        panic!("not a UTF-8 error");
    };
    assert_eq!((error.line, error.column), (2, 3));
    // Costs the search cannot order, and tactics numbers beyond any map.
    assert!(TerrainTable::parse(&TERRAIN.replace(r#""foot": 6.0"#, r#""foot": 1e308"#)).is_err());
    assert!(parse_rules(&RULES.replace(r#""foot": 5.0"#, r#""foot": 1e300"#)).is_err());
    let far = "[terrain]\n...\n[units]\nk blue foot 0,0 1-10000\n";
    assert!(
        MapAsset::parse(far)
            .unwrap_err()
            .to_string()
            .contains("<= 1000")
    );
}

#[test]
fn a_key_written_twice_in_a_table_map_is_an_error_at_the_second() {
    // Where `needle` is in `text` (ASCII text).
    let position = |text: &str, needle: &str| {
        let at = text.find(needle).unwrap();
        let line_start = text[..at].rfind('\n').map_or(0, |i| i + 1);
        (text[..at].matches('\n').count() + 1, at - line_start + 1)
    };
    let terrain = TERRAIN.replacen(
        r#"cost: {"foot": 1.0, "horse": 0.75"#,
        r#"cost: {"foot": 9.0, "foot": 1.0, "horse": 0.75"#,
        1,
    );
    let error = TerrainTable::parse(&terrain).unwrap_err();
    assert_eq!(
        (error.line, error.column),
        position(&terrain, r#""foot": 1.0, "horse": 0.75"#),
        "{error}"
    );
    assert!(error.message.contains("`foot` is written twice"), "{error}");
    for (field, map) in [
        (
            "movement_points",
            r#"{"foot": 5.0, "horse": 8.0, "horse": 1.0, "flyer": 6.0}"#,
        ),
        (
            "attack_range",
            r#"{"foot": (1, 1), "horse": (1, 1), "horse": (1, 1), "flyer": (1, 1)}"#,
        ),
        (
            "hit_points",
            r#"{"foot": 20, "horse": 24, "horse": 2, "flyer": 16}"#,
        ),
        (
            "damage",
            r#"{"foot": 7, "horse": 8, "horse": 9, "flyer": 6}"#,
        ),
    ] {
        let line = RULES
            .lines()
            .find(|l| l.trim_start().starts_with(field))
            .unwrap();
        let start = line.find('{').unwrap();
        let rules = RULES.replacen(line, &format!("{}{map}", &line[..start]), 1);
        let error = parse_rules(&rules).unwrap_err();
        let field_at = rules.find(&format!("{field}:")).unwrap();
        let horse = field_at
            + rules[field_at..]
                .match_indices("\"horse\"")
                .nth(1)
                .unwrap()
                .0;
        let line_start = rules[..horse].rfind('\n').map_or(0, |i| i + 1);
        let expected = (
            rules[..horse].matches('\n').count() + 1,
            horse - line_start + 1,
        );
        assert_eq!((error.line, error.column), expected, "{field}: {error}");
        assert!(
            error.message.contains("`horse` is written twice"),
            "{error}"
        );
    }
}
