//! A map's tile kinds, for the game's terrain mode: which tiles (Tiled) or IntGrid values
//! (LDtk; and a level's cells without one, [`TileKindId::NO_VALUE`]) its terrain layers
//! draw and on how many cells, the Class each has, a Class given in memory, and where the
//! file keeps it ([`ClassHome`]).

use std::collections::BTreeMap;
use std::path::Path;

use tilewalk_path::Pos;

use super::{TileKind, TiledMap};
use crate::map::assign::ClassHome;

/// A kind of tile whose cells take one terrain: a tile of one of the map's tilesets (an
/// IntGrid value, for an LDtk level).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct TileKindId {
    /// Index into [`TiledMap::tilesets`].
    pub tileset: u16,
    /// The tile's id in its tileset (the IntGrid value).
    pub id: u32,
}

impl TileKindId {
    /// An LDtk level's cells without an IntGrid value: their terrain is the level's
    /// `default_terrain` field. No tileset has this index (a map has fewer than 65,535).
    pub const NO_VALUE: Self = Self {
        tileset: u16::MAX,
        id: 0,
    };
}

/// A tile kind as it was before [`TiledMap::assign`], to put back.
#[derive(Clone, Debug, PartialEq)]
pub struct KindBefore(Before);

#[derive(Clone, Debug, PartialEq)]
enum Before {
    Tile(Option<TileKind>),
    /// The level's `default_terrain` and where it is written.
    Default(Option<(String, (usize, usize))>),
}

impl TiledMap {
    /// The tile kinds the map's terrain layers draw, each with the number of cells drawn
    /// with it (on any terrain layer), in tileset and id order.
    pub fn tile_kinds(&self) -> Vec<(TileKindId, usize)> {
        let mut counts: BTreeMap<TileKindId, usize> = BTreeMap::new();
        for layer in self.layers.iter().filter(|l| l.terrain) {
            for cell in layer.cells.iter().flatten() {
                *counts
                    .entry(TileKindId {
                        tileset: cell.tileset,
                        id: cell.id,
                    })
                    .or_default() += 1;
            }
        }
        counts.into_iter().collect()
    }

    /// For an LDtk level with cells that no IntGrid layer gives a value:
    /// [`TileKindId::NO_VALUE`] and how many cells.
    pub fn no_value_kind(&self) -> Option<(TileKindId, usize)> {
        if !self.is_ldtk() {
            return None;
        }
        let cells = self.layers.first().map_or(0, |l| l.cells.len());
        let count = (0..cells)
            .filter(|&i| {
                self.layers
                    .iter()
                    .filter(|l| l.terrain)
                    .all(|l| l.cells[i].is_none())
            })
            .count();
        (count > 0).then_some((TileKindId::NO_VALUE, count))
    }

    /// Whether the map is a level of an LDtk project.
    fn is_ldtk(&self) -> bool {
        self.level.is_some()
    }

    /// The cells drawn with `kind` on a terrain layer (for [`TileKindId::NO_VALUE`], those
    /// without a value on any), row by row.
    pub fn cells_of(&self, kind: TileKindId) -> Vec<Pos> {
        let width = self.width.max(1);
        let cells = self.layers.first().map_or(0, |l| l.cells.len());
        let is_kind = |cell: &Option<super::LayerCell>| {
            cell.is_some_and(|c| c.tileset == kind.tileset && c.id == kind.id)
        };
        (0..cells)
            .filter(|&i| {
                let mut terrain = self.layers.iter().filter(|l| l.terrain);
                if kind == TileKindId::NO_VALUE {
                    self.is_ldtk() && terrain.all(|l| l.cells[i].is_none())
                } else {
                    terrain.any(|l| is_kind(&l.cells[i]))
                }
            })
            .map(|i| Pos::new(i as u32 % width, i as u32 / width))
            .collect()
    }

    /// The tile kind drawn on top of cell `pos` among the terrain layers.
    pub fn top_kind(&self, pos: Pos) -> Option<TileKindId> {
        let index = (pos.y as usize)
            .checked_mul(self.width as usize)?
            .checked_add(pos.x as usize)?;
        self.layers
            .iter()
            .rev()
            .filter(|l| l.terrain)
            .find_map(|l| *l.cells.get(index)?)
            .map(|c| TileKindId {
                tileset: c.tileset,
                id: c.id,
            })
    }

    /// The tile kind drawn on top of cell `pos` among the terrain layers; on an LDtk
    /// level's cell without an IntGrid value, [`TileKindId::NO_VALUE`].
    pub fn kind_at(&self, pos: Pos) -> Option<TileKindId> {
        let cells = self.layers.first().map_or(0, |l| l.cells.len());
        let on_map = pos.x < self.width
            && (pos.y as usize)
                .checked_mul(self.width as usize)
                .and_then(|i| i.checked_add(pos.x as usize))
                .is_some_and(|i| i < cells);
        match self.top_kind(pos) {
            Some(kind) => Some(kind),
            None if on_map && self.is_ldtk() => Some(TileKindId::NO_VALUE),
            None => None,
        }
    }

    /// How a designer knows `kind`: `tile 12 of desert`, `IntGrid Collisions value 1`,
    /// `cells without an IntGrid value`.
    pub fn kind_name(&self, kind: TileKindId) -> String {
        if kind == TileKindId::NO_VALUE {
            return "cells without an IntGrid value".to_owned();
        }
        match self.tilesets.get(usize::from(kind.tileset)) {
            Some(tileset) if tileset.int_grid.is_some() => {
                format!("{} value {}", tileset.name, kind.id)
            }
            Some(tileset) => format!("tile {} of {}", kind.id, tileset.name),
            None => format!("tile {}", kind.id),
        }
    }

    /// The Class of `kind` (an IntGrid value's identifier, the level's `default_terrain`)
    /// as its file would say it now.
    pub fn class(&self, kind: TileKindId) -> Option<&str> {
        if kind == TileKindId::NO_VALUE {
            return self.default_terrain.as_ref().map(|(name, _)| name.as_str());
        }
        let tileset = self.tilesets.get(usize::from(kind.tileset))?;
        let tile = tileset.tiles.get(&kind.id)?;
        match &tile.terrain {
            Some((name, _)) => Some(name),
            // An IntGrid value's identifier is read as its colour.
            None if tileset.int_grid.is_some() => tile.colours.first().map(|(n, _)| n.as_str()),
            None => None,
        }
    }

    /// Gives `kind` the Class `class` (the name of a terrain), in memory: every cell drawn
    /// with it resolves to that terrain. Refused for a tile whose `terrain` property names
    /// its terrain (the property wins over a Class: it is changed in Tiled). Returns what to
    /// put back for an undo.
    pub fn assign(&mut self, kind: TileKindId, class: &str) -> Result<KindBefore, String> {
        if kind == TileKindId::NO_VALUE && self.is_ldtk() {
            let at = self.default_terrain.as_ref().map_or(self.at, |(_, at)| *at);
            let before = self.default_terrain.replace((class.to_owned(), at));
            return Ok(KindBefore(Before::Default(before)));
        }
        let name = self.kind_name(kind);
        let tileset = self
            .tilesets
            .get_mut(usize::from(kind.tileset))
            .ok_or_else(|| format!("the map has no {name}"))?;
        let before = tileset.tiles.get(&kind.id).cloned();
        if let Some(TileKind {
            terrain: Some((property, true)),
            at,
            ..
        }) = &before
        {
            return Err(format!(
                "{name} names terrain `{property}` with its `terrain` property (at {}:{}): change it in Tiled",
                at.0, at.1
            ));
        }
        let at = tileset.at;
        let tile = tileset.tiles.entry(kind.id).or_insert_with(|| TileKind {
            terrain: None,
            costs: Vec::new(),
            colours: Vec::new(),
            at,
        });
        tile.terrain = Some((class.to_owned(), false));
        Ok(KindBefore(Before::Tile(before)))
    }

    /// Puts `kind` back as it was before an [`Self::assign`].
    pub fn restore(&mut self, kind: TileKindId, before: KindBefore) {
        let before = match before.0 {
            Before::Default(default) => {
                self.default_terrain = default;
                return;
            }
            Before::Tile(before) => before,
        };
        let Some(tileset) = self.tilesets.get_mut(usize::from(kind.tileset)) else {
            return;
        };
        match before {
            Some(tile) => {
                tileset.tiles.insert(kind.id, tile);
            }
            None => {
                tileset.tiles.remove(&kind.id);
            }
        }
    }

    /// Where `kind`'s Class is written, for the map file at `map_file`: its tileset's file,
    /// or the map itself (its embedded tileset, an LDtk project's IntGrid layer
    /// definition, the level's `default_terrain` field). `None` for a kind no file gives a
    /// terrain (LDtk's drawn tiles).
    pub fn class_home(&self, map_file: &Path, kind: TileKindId) -> Option<ClassHome> {
        if kind == TileKindId::NO_VALUE {
            return self.level.as_ref().map(|level| ClassHome::LevelField {
                file: map_file.to_owned(),
                level: level.clone(),
            });
        }
        let index = usize::from(kind.tileset);
        let tileset = self.tilesets.get(index)?;
        let folder = map_file.parent().unwrap_or(Path::new(""));
        match (&tileset.file, tileset.int_grid, &self.level) {
            (_, Some(layer), _) => Some(ClassHome::IntGrid {
                file: map_file.to_owned(),
                layer,
                value: kind.id,
            }),
            (Some(file), None, None) => Some(ClassHome::TiledTile {
                file: folder.join(file),
                embedded: None,
                id: kind.id,
            }),
            (None, None, None) => Some(ClassHome::TiledTile {
                file: map_file.to_owned(),
                embedded: Some(index),
                id: kind.id,
            }),
            (_, None, Some(_)) => None,
        }
    }
}
