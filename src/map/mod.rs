//! Map files (`assets/maps/*.map`): a grid of terrain glyphs plus unit placements, and
//! Moving AI benchmark maps opened as playable maps.
//!
//! ```text
//! // Comments start with `//`.
//! board: square-8
//! [terrain]
//! ....==....
//! ..ff==~~..
//! [units]
//! // name   team  class  x,y   [attack range]   (x = column, y = row, 0,0 top-left)
//! knight    blue  foot   1,0
//! archer    blue  foot   2,0   2-3
//! raider    red   horse  8,1
//! ```
//! The optional `board:` line, before `[terrain]`, names the board's shape: `square-8` (the
//! default), `square-4`, `hex-odd-r`, `hex-even-r`, `hex-odd-q` or `hex-even-q`. Glyphs come
//! from the terrain table; teams are `blue` (the player) and `red`; classes are those the
//! terrain table declares (`foot`, `horse` and `flyer` in the shipped one).
//!
//! Tiled maps (`.tmx`, and `.tmj` in Tiled's JSON) become the same [`MapAsset`]: see [`tmx`].

pub mod assign;
mod edit;
pub mod generate;
mod json;
pub mod ldtk;
mod loader;
pub mod sources;
pub mod tmx;

pub use edit::{EditError, repaint, write_atomically};
pub use loader::{LdtkLoader, TmxLoader};
pub use sources::register_map_source;

use std::collections::HashMap;

use bevy::prelude::*;
use bevy_tilewalk::Team;
use bevy_tilewalk::tactics::MAX_ATTACK_RANGE;
use tilewalk_path::formats::{ParseError, is_movingai_map, parse_movingai_map};
use tilewalk_path::{Board, Pos, UnknownBoard};

use crate::convert::Projection;
use crate::terrain::TerrainTable;

/// The most units a map may place.
pub const MAX_UNITS: usize = 100_000;

/// A unit placed by the map.
#[derive(Clone, Debug, PartialEq)]
pub struct UnitSpawn {
    pub name: String,
    pub team: Team,
    /// Its movement class's name, checked against the terrain table when the level is built.
    pub class: String,
    pub pos: Pos,
    /// Its own attack range (min, max) for tactics, instead of its class's.
    pub attack: Option<(u32, u32)>,
    /// Where its tile is written (line, column), for messages.
    pub line: usize,
    pub column: usize,
    /// Where its class is written.
    pub class_column: usize,
}

/// A parsed map: glyphs row by row and the units it places. Glyphs are checked against
/// the terrain table when the level is built ([`MapAsset::terrain`]), so either file can be
/// edited while the game runs.
#[derive(Asset, TypePath, Clone, Debug, PartialEq)]
pub struct MapAsset {
    pub width: u32,
    pub height: u32,
    /// The board's shape: which tiles are adjacent. Moving AI maps are `square-8`.
    pub board: Board,
    /// How it is drawn: flat, or isometric for Tiled's isometric and staggered maps.
    pub projection: Projection,
    glyphs: Vec<char>,
    /// Where each row starts in the file: (line, column of its first glyph).
    /// As `u32`s (a file is at most 64 MiB), as a map may have millions of rows.
    rows: Vec<(u32, u32)>,
    pub units: Vec<UnitSpawn>,
    /// A Tiled map's tiles, instead of glyphs.
    pub tiles: Option<tmx::TiledMap>,
}

impl MapAsset {
    /// Parses either format: a Moving AI map (it starts with `type`) or a tilewalk map. A
    /// leading byte order mark is skipped.
    pub fn parse(text: &str) -> Result<Self, ParseError> {
        let text = text.strip_prefix('\u{feff}').unwrap_or(text);
        if is_movingai_map(text) {
            Self::from_movingai(text)
        } else {
            Self::parse_tilewalk(text)
        }
    }

    /// Where the first terrain row starts in the file (line, column), or 1:1 for a map
    /// without text rows (a Tiled map).
    pub fn first_row_at(&self) -> (usize, usize) {
        self.rows
            .first()
            .map_or((1, 1), |&(line, column)| (line as usize, column as usize))
    }

    /// The glyph of a cell (a Tiled map has none).
    pub fn glyph(&self, pos: Pos) -> Option<char> {
        self.glyphs
            .get(pos.y as usize * self.width as usize + pos.x as usize)
            .copied()
    }

    /// The terrain table this map's cells index into, and the index of every cell (row-major):
    /// the table itself for glyph maps; for a Tiled map, the terrains its tiles name
    /// ([`tmx::TiledMap::resolve`]), with its warnings.
    pub fn resolve(&self, table: &TerrainTable) -> Result<tmx::Resolved, ParseError> {
        match &self.tiles {
            Some(tiles) => tiles.resolve(table),
            None => Ok(tmx::Resolved {
                table: table.clone(),
                terrain: self.terrain(table)?,
                warnings: Vec::new(),
            }),
        }
    }

    /// Fails at the first unit whose class the table does not declare.
    pub fn check_classes(&self, table: &TerrainTable) -> Result<(), ParseError> {
        match self.units.iter().find(|u| table.class(&u.class).is_none()) {
            Some(u) => Err(ParseError::new(
                u.line,
                u.class_column,
                format!(
                    "unknown movement class `{}` (expected {})",
                    u.class,
                    table.class_list()
                ),
            )),
            None => Ok(()),
        }
    }

    /// The terrain index of every cell (row-major), or the first glyph the table does not know.
    pub fn terrain(&self, table: &TerrainTable) -> Result<Vec<usize>, ParseError> {
        // Each ASCII glyph looked up once, not once a cell (a map is up to 2^24 cells).
        let ascii: Vec<Option<usize>> = (0..128u8).map(|b| table.by_glyph(char::from(b))).collect();
        let by_glyph = |glyph: char| match ascii.get(glyph as usize) {
            Some(&known) => known,
            None => table.by_glyph(glyph),
        };
        self.glyphs
            .iter()
            .enumerate()
            .map(|(i, &glyph)| {
                by_glyph(glyph).ok_or_else(|| {
                    let (line, column) = self.rows[i / self.width as usize];
                    ParseError::new(
                        line as usize,
                        column as usize + i % self.width as usize,
                        format!(
                            "unknown terrain glyph `{glyph}` (the terrain table has `{}`)",
                            table.glyphs()
                        ),
                    )
                })
            })
            .collect()
    }

    fn parse_tilewalk(text: &str) -> Result<Self, ParseError> {
        #[derive(PartialEq)]
        enum Section {
            None,
            Terrain,
            Units,
        }
        let mut section = Section::None;
        let mut map = Self {
            width: 0,
            height: 0,
            board: Board::default(),
            glyphs: Vec::new(),
            rows: Vec::new(),
            units: Vec::new(),
            projection: Projection::Flat,
            tiles: None,
        };
        let mut last_line = 0;
        let mut names = HashMap::new();
        for (i, raw) in text.lines().enumerate() {
            let number = i + 1;
            last_line = number;
            let line = raw.trim_end_matches('\r');
            let trimmed = line.trim();
            if trimmed.is_empty() || trimmed.starts_with("//") {
                continue;
            }
            let indent = line.len() - line.trim_start().len();
            match trimmed {
                "[terrain]" => {
                    if !map.rows.is_empty() {
                        return Err(ParseError::new(
                            number,
                            indent + 1,
                            "a second [terrain] section",
                        ));
                    }
                    section = Section::Terrain;
                }
                "[units]" => section = Section::Units,
                _ if trimmed.starts_with('[') => {
                    return Err(ParseError::new(
                        number,
                        indent + 1,
                        format!("unknown section `{trimmed}` (expected [terrain] or [units])"),
                    ));
                }
                _ if trimmed.starts_with("board:") => {
                    if section != Section::None {
                        return Err(ParseError::new(
                            number,
                            indent + 1,
                            "the `board:` line goes before [terrain]",
                        ));
                    }
                    let rest = &trimmed["board:".len()..];
                    let shape = rest.trim();
                    let column = indent + "board:".len() + (rest.len() - rest.trim_start().len());
                    map.board = shape.parse().map_err(|e: UnknownBoard| {
                        ParseError::new(number, column + 1, e.to_string())
                    })?;
                }
                _ => match section {
                    Section::None => {
                        return Err(ParseError::new(
                            number,
                            indent + 1,
                            "expected a [terrain] section first",
                        ));
                    }
                    Section::Terrain => map.push_row(number, indent + 1, trimmed)?,
                    Section::Units => {
                        if map.units.len() == MAX_UNITS {
                            return Err(ParseError::new(
                                number,
                                indent + 1,
                                format!("too many units (a map places at most {MAX_UNITS})"),
                            ));
                        }
                        let unit = parse_unit(number, line)?;
                        if let Some(twin) = names.insert(unit.name.clone(), number) {
                            return Err(ParseError::new(
                                number,
                                indent + 1,
                                format!(
                                    "a second unit named `{}` (the first is on line {twin})",
                                    unit.name
                                ),
                            ));
                        }
                        map.units.push(unit);
                    }
                },
            }
        }
        if map.rows.is_empty() {
            return Err(ParseError::new(
                last_line.max(1),
                1,
                "the map has no [terrain] rows",
            ));
        }
        map.height = map.rows.len() as u32;
        let mut tiles: HashMap<Pos, &str> = HashMap::new();
        for unit in &map.units {
            if unit.pos.x >= map.width || unit.pos.y >= map.height {
                return Err(ParseError::new(
                    unit.line,
                    1,
                    format!(
                        "unit `{}` at {} is outside the {}x{} map",
                        unit.name, unit.pos, map.width, map.height
                    ),
                ));
            }
            if let Some(other) = tiles.insert(unit.pos, &unit.name) {
                return Err(ParseError::new(
                    unit.line,
                    1,
                    format!("unit `{}` stands on the same tile as `{other}`", unit.name),
                ));
            }
        }
        Ok(map)
    }

    fn push_row(&mut self, number: usize, column: usize, row: &str) -> Result<(), ParseError> {
        let width = row.chars().count() as u32;
        if self.rows.is_empty() {
            self.width = width;
        } else if width != self.width {
            return Err(ParseError::new(
                number,
                column + width.min(self.width) as usize,
                format!("row has {width} tiles, the first row has {}", self.width),
            ));
        }
        if u64::from(self.width) * (self.rows.len() as u64 + 1) > 1 << 24 {
            return Err(ParseError::new(
                number,
                column,
                "the map is too large (at most 16M tiles)",
            ));
        }
        self.glyphs.extend(row.chars());
        self.rows.push((number as u32, column as u32));
        Ok(())
    }

    /// A Moving AI map, with three units of each team placed near opposite corners.
    fn from_movingai(text: &str) -> Result<Self, ParseError> {
        let source = parse_movingai_map(text)?;
        let header_lines = text.lines().take_while(|l| l.trim() != "map").count() + 1;
        let (width, height) = (source.width(), source.height());
        let cells: Vec<Pos> = source.grid().cells().collect();
        let open = |p: &&Pos| matches!(source.glyph(**p), '.' | 'G');
        let mut units = Vec::new();
        let teams = [
            (
                Team::BLUE,
                ["knight", "lancer", "griffin"],
                cells.iter().filter(open).take(3).collect::<Vec<_>>(),
            ),
            (
                Team::RED,
                ["brute", "raider", "wyvern"],
                cells.iter().rev().filter(open).take(3).collect(),
            ),
        ];
        for (team, names, spots) in teams {
            for ((name, class), pos) in names.iter().zip(["foot", "horse", "flyer"]).zip(spots) {
                units.push(UnitSpawn {
                    name: (*name).to_owned(),
                    team,
                    class: class.to_owned(),
                    pos: *pos,
                    attack: None,
                    line: 1,
                    column: 1,
                    class_column: 1,
                });
            }
        }
        Ok(Self {
            width,
            height,
            board: Board::default(),
            glyphs: cells.iter().map(|&p| source.glyph(p)).collect(),
            rows: (0..height as usize)
                .map(|y| ((header_lines + y + 1) as u32, 1))
                .collect(),
            units,
            projection: Projection::Flat,
            tiles: None,
        })
    }
}

/// `name team class x,y [attack]`, the attack range as `N` or `MIN-MAX`.
fn parse_unit(number: usize, line: &str) -> Result<UnitSpawn, ParseError> {
    let fields: Vec<(usize, &str)> = line
        .split_whitespace()
        .map(|f| (f.as_ptr() as usize - line.as_ptr() as usize + 1, f))
        .collect();
    let (
        &[
            (_, name),
            (team_col, team),
            (class_col, class),
            (pos_col, pos),
        ],
        attack,
    ) = (&fields[..fields.len().min(4)], fields.get(4))
    else {
        return Err(ParseError::new(
            number,
            1,
            format!(
                "expected `name team class x,y [attack]`, got `{}`",
                line.trim()
            ),
        ));
    };
    if let Some(&(column, _)) = fields.get(5) {
        return Err(ParseError::new(
            number,
            column,
            "unexpected text after the attack range",
        ));
    }
    let team = Team::parse(team).ok_or_else(|| {
        ParseError::new(
            number,
            team_col,
            format!("unknown team `{team}` (expected blue or red)"),
        )
    })?;
    let pos = parse_pos(pos).ok_or_else(|| {
        ParseError::new(
            number,
            pos_col,
            format!("expected a tile as x,y, got `{pos}`"),
        )
    })?;
    let attack = attack
        .map(|&(column, text)| parse_attack(text).map_err(|e| ParseError::new(number, column, e)))
        .transpose()?;
    Ok(UnitSpawn {
        name: name.to_owned(),
        team,
        class: class.to_owned(),
        pos,
        attack,
        line: number,
        column: pos_col,
        class_column: class_col,
    })
}

/// An attack range, `N` or `MIN-MAX`, or what to write instead.
pub(crate) fn parse_attack(text: &str) -> Result<(u32, u32), String> {
    let (min, max) = text.split_once('-').unwrap_or((text, text));
    match (min.parse::<u32>(), max.parse::<u32>()) {
        (Ok(min), Ok(max)) if 1 <= min && min <= max && max <= MAX_ATTACK_RANGE => Ok((min, max)),
        _ => Err(format!(
            "expected an attack range as N or MIN-MAX (1 <= MIN <= MAX <= {MAX_ATTACK_RANGE}), got `{text}`"
        )),
    }
}

/// Parses `x,y` (two whole numbers).
pub fn parse_pos(text: &str) -> Option<Pos> {
    let (x, y) = text.split_once(',')?;
    Some(Pos::new(x.trim().parse().ok()?, y.trim().parse().ok()?))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn table() -> TerrainTable {
        TerrainTable::parse(&std::fs::read_to_string("assets/terrain.ron").unwrap()).unwrap()
    }

    #[test]
    fn reads_terrain_and_units() {
        let map = MapAsset::parse(
            "// demo\n[terrain]\n..=\n~,#\n\n[units]\nknight blue foot 1,0 2-3\nbat red flyer 2,1\n",
        )
        .unwrap();
        assert_eq!((map.width, map.height), (3, 2));
        assert_eq!(map.glyph(Pos::new(2, 0)), Some('='));
        assert_eq!(map.units[0].attack, Some((2, 3)));
        assert_eq!(
            map.units[1],
            UnitSpawn {
                name: "bat".into(),
                team: Team::RED,
                class: "flyer".into(),
                pos: Pos::new(2, 1),
                attack: None,
                line: 8,
                column: 15,
                class_column: 9,
            }
        );
        let terrain = map.terrain(&table()).unwrap();
        assert_eq!(table().terrains[terrain[3]].name, "water");
    }

    #[test]
    fn errors_point_at_the_fault() {
        let err = |text: &str| MapAsset::parse(text).unwrap_err().to_string();
        assert_eq!(err(""), "1:1: the map has no [terrain] rows");
        assert_eq!(err("...\n"), "1:1: expected a [terrain] section first");
        assert_eq!(
            err("[terrain]\n...\n..\n"),
            "3:3: row has 2 tiles, the first row has 3"
        );
        assert_eq!(
            err("[terrain]\n...\n[units]\nk blue foot 3,0\n"),
            "4:1: unit `k` at (3,0) is outside the 3x1 map"
        );
        assert_eq!(
            err("[terrain]\n...\n[units]\nk green foot 0,0\n"),
            "4:3: unknown team `green` (expected blue or red)"
        );
        // Classes are the terrain table's: the level checks them (`check_classes`).
        let boat = MapAsset::parse("[terrain]\n...\n[units]\nk blue boat 0,0\n").unwrap();
        assert_eq!(
            boat.check_classes(&table()).unwrap_err().to_string(),
            "4:8: unknown movement class `boat` (expected foot, horse or flyer)"
        );
        assert_eq!(
            err("[terrain]\n...\n[units]\nk blue foot 0;0\n"),
            "4:13: expected a tile as x,y, got `0;0`"
        );
        assert_eq!(
            err("[terrain]\n...\n[units]\nk blue foot 0,0\nk red foot 1,0\n"),
            "5:1: a second unit named `k` (the first is on line 4)"
        );
        assert_eq!(
            err("[terrain]\n...\n[units]\na blue foot 0,0\nb red foot 0,0\n"),
            "5:1: unit `b` stands on the same tile as `a`"
        );
        assert_eq!(
            err("[terrain]\n...\n[monsters]\n"),
            "3:1: unknown section `[monsters]` (expected [terrain] or [units])"
        );
        let unknown = MapAsset::parse("[terrain]\n...\n.?.\n")
            .unwrap()
            .terrain(&table())
            .unwrap_err();
        assert!(
            unknown
                .to_string()
                .starts_with("3:2: unknown terrain glyph `?`"),
            "{unknown}"
        );
        assert_eq!(
            err("[terrain]\n...\n[units]\nk blue foot 0,0 3-2\n"),
            "4:17: expected an attack range as N or MIN-MAX (1 <= MIN <= MAX <= 1000), got `3-2`"
        );
        assert_eq!(
            err("[terrain]\n...\n[units]\nk blue foot\n"),
            "4:1: expected `name team class x,y [attack]`, got `k blue foot`"
        );
    }

    #[test]
    fn the_board_line_names_the_shape() {
        let parse = |text: &str| MapAsset::parse(text).map(|m| m.board);
        assert_eq!(parse("[terrain]\n..\n"), Ok(Board::default()));
        assert_eq!(
            parse("// hexes\nboard: hex-odd-r\n[terrain]\n..\n"),
            Ok(Board::Hex(tilewalk_path::HexLayout::OddR))
        );
        assert_eq!(
            parse("board: square-4\n[terrain]\n..\n"),
            Ok(Board::Square(tilewalk_path::Diagonal::Never))
        );
        let unknown = parse("board:  hex-odd\n[terrain]\n..\n").unwrap_err();
        assert_eq!((unknown.line, unknown.column), (1, 9));
        assert!(unknown.message.contains("hex-odd-r"), "{unknown}");
        let empty = parse("board:\n[terrain]\n..\n").unwrap_err();
        assert_eq!((empty.line, empty.column), (1, 7));
        assert_eq!(
            parse("[terrain]\n..\nboard: square-4\n")
                .unwrap_err()
                .to_string(),
            "3:1: the `board:` line goes before [terrain]"
        );
    }

    #[test]
    fn movingai_maps_open_with_units_in_opposite_corners() {
        let map =
            MapAsset::parse("type octile\nheight 3\nwidth 4\nmap\n@...\n.TW.\n...S\n").unwrap();
        assert_eq!(map.units.len(), 6);
        assert_eq!(map.units[0].pos, Pos::new(1, 0));
        assert_eq!(
            map.units[3].pos,
            Pos::new(2, 2),
            "S (swamp) is not an open start; the scan goes backwards"
        );
        assert_eq!(
            table().terrains[map.terrain(&table()).unwrap()[6]].name,
            "water"
        );
        let bad =
            MapAsset::parse("type octile\nheight 3\nwidth 4\nmap\n@...\n.TW.\n..?S\n").unwrap_err();
        assert_eq!(
            bad.to_string(),
            "7:3: unknown glyph `?` (expected one of `.GS@OTW`)"
        );
    }
}
