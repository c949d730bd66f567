//! Which terrain each cell of a Tiled map is, under a terrain table.

use std::collections::{BTreeSet, HashMap};

use ::tiled::PropertyValue;
use tilewalk_path::formats::ParseError;
use tilewalk_path::{MAX_COST, MIN_COST};

use super::{CostProperty, TileKind, TiledMap, TiledTileset, describe};
use crate::terrain::{Terrain, TerrainTable};

/// A map's cells under a terrain table: the terrains they index into, every cell's, and
/// the warnings a designer should see (the map still plays).
#[derive(Clone, Debug, PartialEq)]
pub struct Resolved {
    pub table: TerrainTable,
    /// The terrain index of every cell, row by row.
    pub terrain: Vec<usize>,
    pub warnings: Vec<ParseError>,
}

/// What a tile says about its cell's terrain.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Says {
    /// Nothing: the layers below decide.
    Nothing,
    /// This terrain of the output table.
    Terrain(usize),
}

/// The name of the terrain of cells no tile names: impassable.
pub const UNNAMED_TERRAIN: &str = "no terrain";
/// The name of the terrain of a staggered map's diamond cells that are not on the map.
const OUTSIDE: &str = "outside the map";

impl TiledMap {
    /// Every cell's terrain, in this order:
    /// 1. a tile's `terrain` property or Class, or its own cost properties (one named like
    ///    a movement class is that class's cost over the terrain's);
    /// 2. the tile's terrain-set colours: a colour named like a terrain of the table
    ///    (case aside), or whose `terrain` property names one, is that terrain; a tile of
    ///    several colours takes the one that covers most of it (ties: the costlier, compared
    ///    class by class in the table's order, impassable costliest);
    /// 3. across layers, the topmost tile that says anything wins; layers whose `terrain`
    ///    property is false are decoration only;
    /// 4. the map's `default_terrain` property.
    ///
    /// A cell still unnamed is impassable, and one warning counts such cells and names
    /// their tiles. Fails on a `terrain` property or `default_terrain` naming a terrain
    /// the table lacks, or a cost that is no number.
    pub fn resolve(&self, table: &TerrainTable) -> Result<Resolved, ParseError> {
        let mut out = Output {
            table,
            terrains: Vec::new(),
            by_name: HashMap::new(),
        };
        // What each tile says, worked out once.
        let mut says: HashMap<(u16, u32), Says> = HashMap::new();
        let default = match &self.default_terrain {
            None => None,
            Some((name, at)) => Some(out.named(name).ok_or_else(|| {
                ParseError::new(
                    at.0,
                    at.1,
                    format!(
                        "`default_terrain` names terrain `{name}`, which is unknown ({})",
                        known(table)
                    ),
                )
            })?),
        };
        let cells = self.layers.first().map_or(0, |l| l.cells.len());
        let mut terrain = Vec::with_capacity(cells);
        let mut unnamed = 0usize;
        let mut unnamed_tiles: BTreeSet<(u16, u32)> = BTreeSet::new();
        let mut empty = 0usize;
        let mut outside = None;
        let width = self.width.max(1) as usize;
        for index in 0..cells {
            let mut found = None;
            let mut top_tile = None;
            for layer in self.layers.iter().rev().filter(|l| l.terrain) {
                let Some(cell) = layer.cells[index] else {
                    continue;
                };
                top_tile.get_or_insert((cell.tileset, cell.id));
                let key = (cell.tileset, cell.id);
                let said = match says.get(&key) {
                    Some(said) => *said,
                    None => {
                        let tileset = &self.tilesets[cell.tileset as usize];
                        let said = match tileset.tiles.get(&cell.id) {
                            Some(kind) => out.says(tileset, cell.id, kind)?,
                            None => Says::Nothing,
                        };
                        says.insert(key, said);
                        said
                    }
                };
                if let Says::Terrain(t) = said {
                    found = Some(t);
                    break;
                }
            }
            let on_map = self.stagger.is_none_or(|s| {
                s.from_diamond(tilewalk_path::Pos::new(
                    (index % width) as u32,
                    (index / width) as u32,
                ))
                .is_some()
            });
            let t = match (found.or(default), on_map) {
                (_, false) => *outside.get_or_insert_with(|| out.impassable(OUTSIDE)),
                (Some(t), true) => t,
                (None, true) => {
                    unnamed += 1;
                    match top_tile {
                        Some(tile) => {
                            unnamed_tiles.insert(tile);
                        }
                        None => empty += 1,
                    }
                    out.impassable(UNNAMED_TERRAIN)
                }
            };
            terrain.push(t);
        }
        let mut warnings = Vec::new();
        if unnamed > 0 {
            warnings.push(self.unnamed_warning(unnamed, empty, &unnamed_tiles));
        }
        Ok(Resolved {
            table: TerrainTable {
                classes: table.classes.clone(),
                terrains: out.terrains,
            },
            terrain,
            warnings,
        })
    }

    /// The warning for cells no tile names.
    fn unnamed_warning(
        &self,
        unnamed: usize,
        empty: usize,
        tiles: &BTreeSet<(u16, u32)>,
    ) -> ParseError {
        const SHOWN: usize = 12;
        let mut named: Vec<String> = tiles
            .iter()
            .take(SHOWN)
            .map(|&(tileset, id)| {
                format!("tile {id} of `{}`", self.tilesets[tileset as usize].name)
            })
            .collect();
        if tiles.len() > SHOWN {
            named.push(format!("{} more tiles", tiles.len() - SHOWN));
        }
        match empty {
            0 => {}
            1 => named.push("1 empty cell".into()),
            _ => named.push(format!("{empty} empty cells")),
        }
        let cells = if unnamed == 1 {
            "cell names"
        } else {
            "cells name"
        };
        // The fix in the designer's own tool: an LDtk project's levels come with a name.
        let fix = match self.level {
            Some(_) => {
                "give its IntGrid values terrains in the game (`play`, then P), name an IntGrid \
                 value after a terrain of the terrain table in LDtk, or give the level a \
                 `default_terrain` field naming one"
            }
            None => {
                "give its tiles terrains in the game (`play`, then P), or in Tiled give a tile a \
                 Class or `terrain` property, paint it with a terrain-set colour named like a \
                 terrain, or give the map a `default_terrain` property"
            }
        };
        ParseError::new(
            self.at.0,
            self.at.1,
            format!(
                "{unnamed} {cells} no terrain and are impassable: {} ({fix})",
                named.join(", ")
            ),
        )
    }
}

/// The terrains a map's cells index into, built as tiles name them.
struct Output<'a> {
    table: &'a TerrainTable,
    terrains: Vec<Terrain>,
    /// The index of each table terrain (and of the impassable ones) by name.
    by_name: HashMap<String, usize>,
}

impl Output<'_> {
    /// The terrain of the table called `name` (exactly, else case aside), as an index of
    /// the output.
    fn named(&mut self, name: &str) -> Option<usize> {
        let found = by_name(self.table, name)?;
        Some(self.add_named(found))
    }

    fn add_named(&mut self, terrain: &Terrain) -> usize {
        if let Some(&index) = self.by_name.get(&terrain.name) {
            return index;
        }
        let index = self.push(terrain.clone());
        self.by_name.insert(terrain.name.clone(), index);
        index
    }

    /// An impassable terrain called `name`.
    fn impassable(&mut self, name: &str) -> usize {
        if let Some(&index) = self.by_name.get(name) {
            return index;
        }
        let index = self.push(Terrain {
            name: name.into(),
            glyphs: String::new(),
            tile: 0,
            costs: vec![None; self.table.classes.len()],
            defence: 0,
        });
        self.by_name.insert(name.into(), index);
        index
    }

    /// Adds a terrain; its `tile` is its index, so that a cell whose terrain changes is
    /// redrawn.
    fn push(&mut self, mut terrain: Terrain) -> usize {
        let index = self.terrains.len();
        terrain.tile = index as u32;
        self.terrains.push(terrain);
        index
    }

    /// What tile `id` of `tileset` says.
    fn says(
        &mut self,
        tileset: &TiledTileset,
        id: u32,
        kind: &TileKind,
    ) -> Result<Says, ParseError> {
        // 1. Its terrain property or Class, and its own costs.
        let base = match &kind.terrain {
            Some((name, explicit)) => {
                let found = self.table.terrains.iter().find(|t| &t.name == name);
                match (found, explicit) {
                    (Some(found), _) => Some(found),
                    (None, true) => {
                        let message = format!(
                            " names terrain `{name}`, which is unknown ({})",
                            known(self.table)
                        );
                        return Err(in_tileset(tileset, id, kind.at, &message));
                    }
                    // A Class that is no terrain of the table is some other use of Tiled's
                    // classes.
                    (None, false) => None,
                }
            }
            None => None,
        };
        let mut own = false;
        let mut costs = Vec::with_capacity(self.table.classes.len());
        for (class, spec) in self.table.all_classes().zip(&self.table.classes) {
            costs.push(match kind.costs.iter().find(|p| p.name == spec.name) {
                Some(CostProperty { cost: Ok(cost), .. }) => {
                    own = true;
                    Some(*cost)
                }
                Some(CostProperty {
                    cost: Err(e), at, ..
                }) => {
                    return Err(in_tileset(tileset, id, *at, &format!(": {e}")));
                }
                None => base.and_then(|t| t.cost(class)),
            });
        }
        if let Some(base) = base
            && !own
        {
            return Ok(Says::Terrain(self.add_named(base)));
        }
        if base.is_some() || own {
            let name = base.map_or_else(
                || format!("tile {id} of {}", tileset.name),
                |t| t.name.clone(),
            );
            return Ok(Says::Terrain(self.push(Terrain {
                name,
                glyphs: base.map_or_else(String::new, |t| t.glyphs.clone()),
                tile: 0,
                costs,
                defence: base.map_or(0, |t| t.defence),
            })));
        }
        // 2. Its terrain-set colours.
        let mut best: Option<(u32, &Terrain)> = None;
        for (name, share) in &kind.colours {
            let Some(terrain) = by_name(self.table, name) else {
                continue;
            };
            let better = match best {
                None => true,
                Some((top, other)) => {
                    *share > top || *share == top && costlier(self.table, terrain, other)
                }
            };
            if better {
                best = Some((*share, terrain));
            }
        }
        Ok(match best {
            Some((_, terrain)) => Says::Terrain(self.add_named(terrain)),
            None => Says::Nothing,
        })
    }
}

/// The terrain of `table` called `name`: exactly, else with letter case aside.
fn by_name<'a>(table: &'a TerrainTable, name: &str) -> Option<&'a Terrain> {
    let terrains = &table.terrains;
    terrains
        .iter()
        .find(|t| t.name == name)
        .or_else(|| terrains.iter().find(|t| t.name.eq_ignore_ascii_case(name)))
}

/// Whether `a` costs more than `b`: class by class in the table's order, the first that
/// differs decides; impassable is the costliest.
fn costlier(table: &TerrainTable, a: &Terrain, b: &Terrain) -> bool {
    for class in table.all_classes() {
        let key = |t: &Terrain| t.cost(class).unwrap_or(f64::INFINITY);
        let (a, b) = (key(a), key(b));
        if a != b {
            return a > b;
        }
    }
    false
}

fn known(table: &TerrainTable) -> String {
    let names: Vec<&str> = table.terrains.iter().map(|t| t.name.as_str()).collect();
    format!("the terrain table has {}", names.join(", "))
}

/// An error about tile `id` written at `at` in its tileset: there, or for a tileset file,
/// at the line of the map that names it, saying where in the tileset. `rest` follows the
/// tile's name (with its own leading `: ` or space).
fn in_tileset(tileset: &TiledTileset, id: u32, at: (usize, usize), rest: &str) -> ParseError {
    match &tileset.file {
        None => ParseError::new(at.0, at.1, format!("tile {id}{rest}")),
        Some(file) => ParseError::new(
            tileset.at.0,
            tileset.at.1,
            format!(
                "tile {id} of {} ({}:{}:{}){rest}",
                file.display(),
                file.display(),
                at.0,
                at.1
            ),
        ),
    }
}

/// A cost property's value: a number (or a string holding one) the search can order.
pub(super) fn cost(value: &PropertyValue) -> Result<f64, String> {
    let number = match value {
        // Through its shortest decimal form, so that a float property of 1.1 costs 1.1.
        PropertyValue::FloatValue(v) => v.to_string().parse().ok(),
        PropertyValue::IntValue(v) => Some(f64::from(*v)),
        PropertyValue::StringValue(text) => text.trim().parse().ok(),
        _ => None,
    };
    match number {
        Some(cost) if (MIN_COST..=MAX_COST).contains(&cost) => Ok(cost),
        Some(cost) => Err(format!(
            "the cost must be between {MIN_COST} and {MAX_COST}, got {cost}"
        )),
        None => Err(format!(
            "the cost must be a number, got {}",
            describe(value)
        )),
    }
}
