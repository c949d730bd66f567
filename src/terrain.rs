//! The terrain table asset (`assets/terrain.ron`): glyphs, tiles and movement costs per class.

use bevy::prelude::*;
use serde::Deserialize;
use tilewalk_path::formats::ParseError;
use tilewalk_path::{MAX_COST, MIN_COST};

use crate::assets::{TextAsset, ron_error};
use crate::units::MovementClass;

/// One kind of ground.
#[derive(Clone, Debug, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Terrain {
    pub name: String,
    /// The characters that stand for this terrain in map files.
    pub glyphs: String,
    /// Index of its tile in the terrain atlas.
    pub tile: u32,
    #[serde(default)]
    pub foot: Option<f64>,
    #[serde(default)]
    pub horse: Option<f64>,
    #[serde(default)]
    pub flyer: Option<f64>,
}

impl Terrain {
    /// The cost of entering this terrain for `class`; `None` = impassable.
    pub fn cost(&self, class: MovementClass) -> Option<f64> {
        match class {
            MovementClass::Foot => self.foot,
            MovementClass::Horse => self.horse,
            MovementClass::Flyer => self.flyer,
        }
    }
}

/// The terrain table: a validated list of terrains.
#[derive(Asset, TypePath, Clone, Debug, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TerrainTable {
    pub terrains: Vec<Terrain>,
}

/// Tiles in `assets/textures/terrain.png`.
pub const ATLAS_TILES: u32 = 7;

impl TerrainTable {
    /// Parses and validates a table: unique names and glyphs, known tiles, costs within
    /// `[MIN_COST, MAX_COST]`.
    pub fn parse(text: &str) -> Result<Self, ParseError> {
        let table: Self = ron::from_str(text).map_err(|e| ron_error(text, e))?;
        let at = |terrain: &Terrain, message: String| {
            // Point at the terrain's entry: the line that names it.
            let needle = format!("\"{}\"", terrain.name);
            let (line, column) = text
                .lines()
                .enumerate()
                .find_map(|(i, l)| l.find(&needle).map(|c| (i + 1, c + 1)))
                .unwrap_or((1, 1));
            ParseError::new(line, column, message)
        };
        if table.terrains.is_empty() {
            return Err(ParseError::new(1, 1, "the table has no terrains"));
        }
        for (i, terrain) in table.terrains.iter().enumerate() {
            let earlier = &table.terrains[..i];
            if earlier.iter().any(|t| t.name == terrain.name) {
                return Err(at(
                    terrain,
                    format!("terrain `{}` is defined twice", terrain.name),
                ));
            }
            if terrain.glyphs.is_empty() {
                return Err(at(
                    terrain,
                    format!("terrain `{}` has no glyphs", terrain.name),
                ));
            }
            for glyph in terrain.glyphs.chars() {
                if glyph.is_whitespace() || glyph == '/' || glyph == '[' {
                    return Err(at(
                        terrain,
                        format!(
                            "terrain `{}`: `{glyph}` cannot be a glyph (whitespace, `/` and `[` mark comments and sections in maps)",
                            terrain.name
                        ),
                    ));
                }
                if let Some(other) = earlier.iter().find(|t| t.glyphs.contains(glyph)) {
                    return Err(at(
                        terrain,
                        format!(
                            "glyph `{glyph}` stands for both `{}` and `{}`",
                            other.name, terrain.name
                        ),
                    ));
                }
            }
            if terrain.tile >= ATLAS_TILES {
                return Err(at(
                    terrain,
                    format!(
                        "terrain `{}`: tile {} is not in the atlas (0..{ATLAS_TILES})",
                        terrain.name, terrain.tile
                    ),
                ));
            }
            for class in MovementClass::ALL {
                // The bounds the search can order exactly (see `tilewalk_path::MIN_COST`).
                if let Some(cost) = terrain.cost(class)
                    && !(MIN_COST..=MAX_COST).contains(&cost)
                {
                    return Err(at(
                        terrain,
                        format!(
                            "terrain `{}`: the {class} cost must be between {MIN_COST} and {MAX_COST}, got {cost}",
                            terrain.name,
                        ),
                    ));
                }
            }
        }
        Ok(table)
    }

    /// The terrain a glyph stands for, by index.
    pub fn by_glyph(&self, glyph: char) -> Option<usize> {
        self.terrains.iter().position(|t| t.glyphs.contains(glyph))
    }

    /// Every glyph the table knows, for error messages.
    pub fn glyphs(&self) -> String {
        self.terrains.iter().map(|t| t.glyphs.as_str()).collect()
    }
}

impl TextAsset for TerrainTable {
    const EXTENSIONS: &'static [&'static str] = &["ron"];

    fn from_text(text: &str) -> Result<Self, ParseError> {
        Self::parse(text)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_shipped_table_parses_and_says_what_the_defaults_promise() {
        let text = std::fs::read_to_string("assets/terrain.ron").unwrap();
        let table = TerrainTable::parse(&text).unwrap();
        let cost = |name: &str, class| {
            table
                .terrains
                .iter()
                .find(|t| t.name == name)
                .unwrap()
                .cost(class)
        };
        assert_eq!(cost("mud", MovementClass::Foot), Some(3.0));
        assert_eq!(
            cost("water", MovementClass::Horse),
            None,
            "horses cannot swim"
        );
        assert_eq!(cost("rock", MovementClass::Flyer), None);
        assert_eq!(cost("forest", MovementClass::Flyer), Some(1.0));
        for glyph in ".GSWT@O".chars() {
            assert!(table.by_glyph(glyph).is_some(), "Moving AI glyph {glyph}");
        }
    }

    #[test]
    fn errors_point_at_the_fault() {
        let err = |text: &str| TerrainTable::parse(text).unwrap_err().to_string();
        assert_eq!(
            err("(terrains: [(name: \"a\", glyphs: \".\", tile: 0, foot: 1.0)"),
            "1:52: `foot` is optional: write `foot: Some(1.0)`, or put `#![enable(implicit_some)]` before the file's opening `(` (Expected option)"
        );
        let unclosed = "#![enable(implicit_some)]\n(terrains: [\n (name: \"a\", glyphs: \".\", tile: 0,\n (name: \"b\", glyphs: \"x\", tile: 1),\n])";
        assert_eq!(
            err(unclosed),
            "4:2: Expected identifier (unclosed `(` opened at 3:2)"
        );
        let comma = "(terrains: [\n (name: \"a\", glyphs: \".\", tile: 0)\n (name: \"b\", glyphs: \"x\", tile: 1),\n])";
        assert_eq!(
            err(comma),
            "3:2: Expected comma: a `,` is missing before this"
        );
        let twice = "(terrains: [\n (name: \"a\", glyphs: \".\", tile: 0),\n (name: \"b\", glyphs: \"x.\", tile: 1),\n])";
        assert_eq!(err(twice), "3:9: glyph `.` stands for both `a` and `b`");
        let negative = "#![enable(implicit_some)]\n(terrains: [\n (name: \"a\", glyphs: \".\", tile: 0, horse: -1.0),\n])";
        assert_eq!(
            err(negative),
            "3:9: terrain `a`: the horse cost must be between 0.001 and 1000000, got -1"
        );
        for bad in ["1e308", "1e-320", "0.0", "inf", "NaN"] {
            let text = negative.replace("-1.0", bad);
            assert!(
                err(&text).starts_with("3:9: terrain `a`: the horse cost must be between"),
                "{bad}: {}",
                err(&text)
            );
        }
        let tile = "(terrains: [(name: \"a\", glyphs: \".\", tile: 9)])";
        assert_eq!(
            err(tile),
            "1:20: terrain `a`: tile 9 is not in the atlas (0..7)"
        );
        assert!(err("(terrains: [(name: \"a\", glyph: \".\", tile: 0)])").starts_with("1:"));
    }
}
