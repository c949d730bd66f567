//! The parsers take any text: arbitrary bytes and structured damage to valid files (flipped,
//! inserted and deleted characters and lines, huge header numbers, a byte order mark, CRLF
//! endings) never panic, and every error points at a line and column of at least 1, on a
//! line that exists (or just past the last).

use proptest::prelude::*;
use tilewalk_path::Board;
use tilewalk_path::formats::{
    ParseError, is_movingai_map, parse_movingai_map, parse_plain_grid, parse_scenarios,
};

const MAP: &str = "type octile\nheight 4\nwidth 6\nmap\n..@@T.\n.G..S.\nW..O..\n......\n";
const SCEN: &str =
    "version 1\n0\tmaps/a.map\t6\t4\t0\t0\t5\t3\t6.41421356\n1\ta.map\t6\t4\t1\t1\t4\t2\t3.41\n";
const PLAIN: &str = "OOSO\nOXXO\nOOEO\n";

/// One piece of damage to a text.
#[derive(Clone, Debug)]
enum Damage {
    /// Replace the character at (a fraction of the length) with another.
    Flip(f64, char),
    Insert(f64, char),
    Delete(f64),
    DeleteLine(f64),
    DuplicateLine(f64),
    /// Replace the number on the `height` or `width` line.
    Header(bool, String),
    Bom,
    Crlf,
}

fn damage() -> impl Strategy<Value = Damage> {
    let glyph = prop_oneof![
        Just('\n'),
        Just('\r'),
        Just(' '),
        Just('\t'),
        Just('.'),
        Just('@'),
        Just('0'),
        Just('9'),
        Just('-'),
        Just('é'),
        Just('\u{feff}'),
        any::<char>(),
    ];
    let number = prop_oneof![
        Just("0".to_owned()),
        Just("16777216".to_owned()),
        Just("16777217".to_owned()),
        Just("715827881".to_owned()),
        Just("4294967295".to_owned()),
        Just("4294967296".to_owned()),
        Just("99999999999999999999999".to_owned()),
        Just("-3".to_owned()),
        Just("1e9".to_owned()),
        (1u64..100_000).prop_map(|n| n.to_string()),
    ];
    let at = 0.0f64..1.0;
    prop_oneof![
        (at.clone(), glyph.clone()).prop_map(|(a, c)| Damage::Flip(a, c)),
        (at.clone(), glyph).prop_map(|(a, c)| Damage::Insert(a, c)),
        at.clone().prop_map(Damage::Delete),
        at.clone().prop_map(Damage::DeleteLine),
        at.prop_map(Damage::DuplicateLine),
        (any::<bool>(), number).prop_map(|(h, n)| Damage::Header(h, n)),
        Just(Damage::Bom),
        Just(Damage::Crlf),
    ]
}

fn apply(text: &str, damage: &[Damage]) -> String {
    let mut chars: Vec<char> = text.chars().collect();
    let pick = |len: usize, at: f64| ((len as f64 * at) as usize).min(len.saturating_sub(1));
    for d in damage {
        match d {
            Damage::Flip(at, c) if !chars.is_empty() => {
                let i = pick(chars.len(), *at);
                chars[i] = *c;
            }
            Damage::Insert(at, c) => {
                let i = pick(chars.len() + 1, *at);
                chars.insert(i, *c);
            }
            Damage::Delete(at) if !chars.is_empty() => {
                chars.remove(pick(chars.len(), *at));
            }
            Damage::Flip(..) | Damage::Delete(_) => {}
            Damage::DeleteLine(at) | Damage::DuplicateLine(at) => {
                let text: String = chars.iter().collect();
                let mut lines: Vec<&str> = text.split('\n').collect();
                let i = pick(lines.len(), *at);
                if matches!(d, Damage::DeleteLine(_)) {
                    lines.remove(i);
                } else {
                    lines.insert(i, lines[i]);
                }
                chars = lines.join("\n").chars().collect();
            }
            Damage::Header(height, number) => {
                let key = if *height { "height" } else { "width" };
                let text: String = chars.iter().collect();
                let lines: Vec<String> = text
                    .split('\n')
                    .map(|l| {
                        if l.starts_with(key) {
                            format!("{key} {number}")
                        } else {
                            l.to_owned()
                        }
                    })
                    .collect();
                chars = lines.join("\n").chars().collect();
            }
            Damage::Bom => chars.insert(0, '\u{feff}'),
            Damage::Crlf => {
                let text: String = chars.iter().collect();
                chars = text.replace('\n', "\r\n").chars().collect();
            }
        }
    }
    chars.into_iter().collect()
}

/// An error's position is 1-based and on a line of the text (or just past its end).
fn well_placed<T>(text: &str, result: Result<T, ParseError>) -> Result<(), TestCaseError> {
    if let Err(e) = result {
        let lines = text.lines().count();
        prop_assert!(e.line >= 1 && e.column >= 1, "{e}");
        prop_assert!(e.line <= lines + 1, "{e}: the text has {lines} lines");
    }
    Ok(())
}

fn every_parser(text: &str) -> Result<(), TestCaseError> {
    let _ = is_movingai_map(text);
    let _ = text.parse::<Board>();
    let map = parse_movingai_map(text);
    if let Ok(map) = &map {
        let grid = map.grid();
        prop_assert_eq!((grid.width(), grid.height()), (map.width(), map.height()));
    }
    well_placed(text, map)?;
    well_placed(text, parse_scenarios(text))?;
    well_placed(text, parse_plain_grid(text))
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 500, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn arbitrary_bytes(bytes in prop::collection::vec(any::<u8>(), 0..300)) {
        every_parser(&String::from_utf8_lossy(&bytes))?;
    }

    #[test]
    fn damaged_files(base in prop_oneof![Just(MAP), Just(SCEN), Just(PLAIN)], damage in prop::collection::vec(damage(), 0..6)) {
        every_parser(&apply(base, &damage))?;
    }
}

#[test]
fn the_undamaged_files_parse() {
    assert!(is_movingai_map(MAP));
    let map = parse_movingai_map(MAP).unwrap();
    assert_eq!((map.width(), map.height()), (6, 4));
    assert_eq!(parse_scenarios(SCEN).unwrap().len(), 2);
    assert!(parse_plain_grid(PLAIN).unwrap().goal.is_some());
    // The damage reaches the parsers: a BOM and CRLF endings keep the map readable.
    let reread = parse_movingai_map(&apply(MAP, &[Damage::Bom, Damage::Crlf])).unwrap();
    assert_eq!(reread, map);
}
