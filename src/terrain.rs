//! The terrain table asset (`assets/terrain.ron`): the movement classes, and each terrain's
//! glyphs, tile, movement cost per class and defence in tactics combat.

use std::collections::BTreeMap;

use bevy::prelude::*;
use bevy_tilewalk::{ClassSpec, MAX_CLASSES, MovementClass};
use serde::Deserialize;
use tilewalk_path::formats::ParseError;
use tilewalk_path::{MAX_COST, MIN_COST};

use crate::assets::{TextAsset, ron_error, unique_keys};

/// One kind of ground.
#[derive(Clone, Debug, PartialEq)]
pub struct Terrain {
    pub name: String,
    /// The characters that stand for this terrain in map files.
    pub glyphs: String,
    /// Index of its tile in the terrain atlas.
    pub tile: u32,
    /// The cost of entering it, by class index; `None` = impassable.
    pub costs: Vec<Option<f64>>,
    /// What it takes off the damage of a tactics strike at a unit standing on it.
    pub defence: u32,
}

impl Terrain {
    /// The cost of entering this terrain for `class`; `None` = impassable.
    pub fn cost(&self, class: MovementClass) -> Option<f64> {
        self.costs.get(class.index()).copied().flatten()
    }
}

/// The terrain table: the movement classes and a validated list of terrains.
#[derive(Asset, TypePath, Clone, Debug, PartialEq)]
pub struct TerrainTable {
    /// The movement classes, in index order.
    pub classes: Vec<ClassSpec>,
    pub terrains: Vec<Terrain>,
}

/// `terrain.ron` as written.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct TableFile {
    classes: Vec<ClassFile>,
    terrains: Vec<TerrainFile>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ClassFile {
    name: String,
    speed: f64,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct TerrainFile {
    name: String,
    glyphs: String,
    tile: u32,
    #[serde(default, deserialize_with = "unique_keys")]
    cost: BTreeMap<String, f64>,
    #[serde(default)]
    defence: u32,
}

/// Tiles in `assets/textures/terrain.png`.
pub const ATLAS_TILES: u32 = 7;

impl TerrainTable {
    /// Parses and validates a table: 1 to [`MAX_CLASSES`] classes with unique names and
    /// positive speeds; unique terrain names and glyphs, known tiles, costs within
    /// `[MIN_COST, MAX_COST]` for declared classes.
    pub fn parse(text: &str) -> Result<Self, ParseError> {
        let file: TableFile = ron::from_str(text).map_err(|e| ron_error(text, e))?;
        // Point at the line that names `needle` (a terrain's or a class's entry), from line
        // `from` on.
        let find = |needle: &str, from: usize| {
            text.lines()
                .enumerate()
                .skip(from)
                .find_map(|(i, l)| l.find(needle).map(|c| (i + 1, c + 1)))
        };
        let at = |name: &str, message: String| {
            let (line, column) = find(&format!("\"{name}\""), 0).unwrap_or((1, 1));
            ParseError::new(line, column, message)
        };
        if file.classes.is_empty() || file.classes.len() > MAX_CLASSES {
            let (line, column) = find("classes", 0).unwrap_or((1, 1));
            return Err(ParseError::new(
                line,
                column,
                format!(
                    "the table must declare from 1 to {MAX_CLASSES} movement classes, got {}",
                    file.classes.len()
                ),
            ));
        }
        for (i, class) in file.classes.iter().enumerate() {
            if file.classes[..i].iter().any(|c| c.name == class.name) {
                return Err(at(
                    &class.name,
                    format!("movement class `{}` is declared twice", class.name),
                ));
            }
            if !(class.speed.is_finite() && class.speed > 0.0) {
                return Err(at(
                    &class.name,
                    format!(
                        "movement class `{}`: the speed must be a positive number, got {}",
                        class.name, class.speed
                    ),
                ));
            }
        }
        let names: Vec<&str> = file.classes.iter().map(|c| c.name.as_str()).collect();
        if file.terrains.is_empty() {
            return Err(ParseError::new(1, 1, "the table has no terrains"));
        }
        let mut terrains: Vec<Terrain> = Vec::with_capacity(file.terrains.len());
        for terrain in file.terrains {
            let earlier = &terrains;
            if earlier.iter().any(|t| t.name == terrain.name) {
                return Err(at(
                    &terrain.name,
                    format!("terrain `{}` is defined twice", terrain.name),
                ));
            }
            if terrain.glyphs.is_empty() {
                return Err(at(
                    &terrain.name,
                    format!("terrain `{}` has no glyphs", terrain.name),
                ));
            }
            for glyph in terrain.glyphs.chars() {
                if glyph.is_whitespace() || glyph == '/' || glyph == '[' {
                    return Err(at(
                        &terrain.name,
                        format!(
                            "terrain `{}`: `{glyph}` cannot be a glyph (whitespace, `/` and `[` mark comments and sections in maps)",
                            terrain.name
                        ),
                    ));
                }
                if let Some(other) = earlier.iter().find(|t| t.glyphs.contains(glyph)) {
                    return Err(at(
                        &terrain.name,
                        format!(
                            "glyph `{glyph}` stands for both `{}` and `{}`",
                            other.name, terrain.name
                        ),
                    ));
                }
            }
            if terrain.tile >= ATLAS_TILES {
                return Err(at(
                    &terrain.name,
                    format!(
                        "terrain `{}`: tile {} is not in the atlas (0..{ATLAS_TILES})",
                        terrain.name, terrain.tile
                    ),
                ));
            }
            // A cost's class, at its own key on the terrain's line (or after it).
            let cost_at = |class: &str, message: String| {
                let entry = find(&format!("\"{}\"", terrain.name), 0).map_or(0, |(l, _)| l - 1);
                let (line, column) = find(&format!("\"{class}\""), entry).unwrap_or((entry + 1, 1));
                ParseError::new(line, column, message)
            };
            let mut costs = vec![None; names.len()];
            for (class, &cost) in &terrain.cost {
                let Some(index) = names.iter().position(|n| n == class) else {
                    return Err(cost_at(
                        class,
                        format!(
                            "terrain `{}`: unknown movement class `{class}` (the table declares {})",
                            terrain.name,
                            names.join(", ")
                        ),
                    ));
                };
                // The bounds the search can order exactly (see `tilewalk_path::MIN_COST`).
                if !(MIN_COST..=MAX_COST).contains(&cost) {
                    return Err(cost_at(
                        class,
                        format!(
                            "terrain `{}`: the {class} cost must be between {MIN_COST} and {MAX_COST}, got {cost}",
                            terrain.name,
                        ),
                    ));
                }
                costs[index] = Some(cost);
            }
            terrains.push(Terrain {
                name: terrain.name,
                glyphs: terrain.glyphs,
                tile: terrain.tile,
                costs,
                defence: terrain.defence,
            });
        }
        Ok(Self {
            classes: file
                .classes
                .into_iter()
                .map(|c| ClassSpec::new(c.name, c.speed))
                .collect(),
            terrains,
        })
    }

    /// The class named `name`.
    pub fn class(&self, name: &str) -> Option<MovementClass> {
        ClassSpec::find(&self.classes, name)
    }

    /// Every class, in index order.
    pub fn all_classes(&self) -> impl Iterator<Item = MovementClass> + use<> {
        MovementClass::all(self.classes.len())
    }

    /// A class's name (`?` for one the table does not declare).
    pub fn class_name(&self, class: MovementClass) -> &str {
        ClassSpec::name_of(&self.classes, class)
    }

    /// The classes' names, for error messages: `foot, horse or flyer`.
    pub fn class_list(&self) -> String {
        let names: Vec<&str> = self.classes.iter().map(|c| c.name.as_str()).collect();
        match names.split_last() {
            Some((last, rest)) if !rest.is_empty() => format!("{} or {last}", rest.join(", ")),
            _ => names.join(""),
        }
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
        let cost = |name: &str, class: &str| {
            table
                .terrains
                .iter()
                .find(|t| t.name == name)
                .unwrap()
                .cost(table.class(class).unwrap())
        };
        assert_eq!(table.class_list(), "foot, horse or flyer");
        assert_eq!(cost("mud", "foot"), Some(3.0));
        assert_eq!(cost("water", "horse"), None, "horses cannot swim");
        assert_eq!(cost("rock", "flyer"), None);
        assert_eq!(cost("forest", "flyer"), Some(1.0));
        for glyph in ".GSWT@O".chars() {
            assert!(table.by_glyph(glyph).is_some(), "Moving AI glyph {glyph}");
        }
    }

    #[test]
    fn the_advance_wars_table_gives_each_of_its_five_classes_its_own_costs() {
        let text = std::fs::read_to_string("assets/classes/advance_wars.ron").unwrap();
        let table = TerrainTable::parse(&text).unwrap();
        let names: Vec<&str> = table.classes.iter().map(|c| c.name.as_str()).collect();
        assert_eq!(names, ["infantry", "mech", "tires", "treads", "air"]);
        let cost = |name: &str, class: &str| {
            let terrain = table.terrains.iter().find(|t| t.name == name).unwrap();
            terrain.cost(table.class(class).unwrap())
        };
        // Advance Wars' movement costs: mountains (rock) only for foot soldiers, woods cost
        // tires 3 and treads 2, rivers (water) foot only, air 1 everywhere.
        assert_eq!(cost("rock", "infantry"), Some(2.0));
        assert_eq!(cost("rock", "mech"), Some(1.0));
        assert_eq!(cost("rock", "tires"), None);
        assert_eq!(cost("forest", "tires"), Some(3.0));
        assert_eq!(cost("forest", "treads"), Some(2.0));
        assert_eq!(cost("water", "treads"), None);
        assert!(
            table
                .terrains
                .iter()
                .all(|t| t.cost(table.class("air").unwrap()) == Some(1.0))
        );
    }

    #[test]
    fn errors_point_at_the_fault() {
        let err = |text: &str| TerrainTable::parse(text).unwrap_err().to_string();
        let classes = "classes: [(name: \"foot\", speed: 3.0), (name: \"horse\", speed: 3.0)],";
        let table = |terrains: &str| format!("({classes}\nterrains: [\n{terrains}\n])");
        assert_eq!(
            err(&table(
                " (name: \"a\", glyphs: \".\", tile: 0, cost: {\"boat\": 1.0}),"
            )),
            "3:43: terrain `a`: unknown movement class `boat` (the table declares foot, horse)"
        );
        let unclosed = "(classes: [(name: \"foot\", speed: 3.0)], terrains: [\n (name: \"a\", glyphs: \".\", tile: 0,\n (name: \"b\", glyphs: \"x\", tile: 1),\n])";
        assert_eq!(
            err(unclosed),
            "3:2: Expected identifier (unclosed `(` opened at 2:2)"
        );
        assert_eq!(
            err(&table(
                " (name: \"a\", glyphs: \".\", tile: 0)\n (name: \"b\", glyphs: \"x\", tile: 1),"
            )),
            "4:2: Expected comma: a `,` is missing before this"
        );
        assert_eq!(
            err(&table(
                " (name: \"a\", glyphs: \".\", tile: 0),\n (name: \"b\", glyphs: \"x.\", tile: 1),"
            )),
            "4:9: glyph `.` stands for both `a` and `b`"
        );
        let negative = table(" (name: \"a\", glyphs: \".\", tile: 0, cost: {\"horse\": -1.0}),");
        assert_eq!(
            err(&negative),
            "3:43: terrain `a`: the horse cost must be between 0.001 and 1000000, got -1"
        );
        for bad in ["1e308", "1e-320", "0.0", "inf", "NaN"] {
            let text = negative.replace("-1.0", bad);
            assert!(
                err(&text).starts_with("3:43: terrain `a`: the horse cost must be between"),
                "{bad}: {}",
                err(&text)
            );
        }
        assert_eq!(
            err(&table(" (name: \"a\", glyphs: \".\", tile: 9),")),
            "3:9: terrain `a`: tile 9 is not in the atlas (0..7)"
        );
        assert_eq!(
            err("(classes: [], terrains: [(name: \"a\", glyphs: \".\", tile: 0)])"),
            "1:2: the table must declare from 1 to 64 movement classes, got 0"
        );
        assert_eq!(
            err(
                "(classes: [(name: \"foot\", speed: 3.0), (name: \"foot\", speed: 1.0)], terrains: [])"
            ),
            "1:19: movement class `foot` is declared twice"
        );
        assert_eq!(
            err("(classes: [(name: \"foot\", speed: 0.0)], terrains: [])"),
            "1:19: movement class `foot`: the speed must be a positive number, got 0"
        );
        assert!(
            err("(classes: [], terrains: [(name: \"a\", glyph: \".\", tile: 0)])")
                .starts_with("1:")
        );
    }
}
