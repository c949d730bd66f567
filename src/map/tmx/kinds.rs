//! A map's tile kinds, for the game's terrain mode: which tiles (Tiled) or IntGrid values
//! (LDtk) its terrain layers draw and on how many cells, the Class each has, a Class given
//! in memory, and where the file keeps it ([`ClassHome`]).

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

/// A tile kind as it was before [`TiledMap::assign`], to put back.
#[derive(Clone, Debug, PartialEq)]
pub struct KindBefore(Option<TileKind>);

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

    /// The cells drawn with `kind` on a terrain layer, row by row.
    pub fn cells_of(&self, kind: TileKindId) -> Vec<Pos> {
        let width = self.width.max(1);
        let cells = self.layers.first().map_or(0, |l| l.cells.len());
        (0..cells)
            .filter(|&i| {
                self.layers.iter().filter(|l| l.terrain).any(|l| {
                    l.cells[i].is_some_and(|c| c.tileset == kind.tileset && c.id == kind.id)
                })
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

    /// How a designer knows `kind`: `tile 12 of desert`, `IntGrid Collisions value 1`.
    pub fn kind_name(&self, kind: TileKindId) -> String {
        match self.tilesets.get(usize::from(kind.tileset)) {
            Some(tileset) if tileset.int_grid.is_some() => {
                format!("{} value {}", tileset.name, kind.id)
            }
            Some(tileset) => format!("tile {} of {}", kind.id, tileset.name),
            None => format!("tile {}", kind.id),
        }
    }

    /// The Class of `kind` (an IntGrid value's identifier) as its file would say it now.
    pub fn class(&self, kind: TileKindId) -> Option<&str> {
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
        Ok(KindBefore(before))
    }

    /// Puts `kind` back as it was before an [`Self::assign`].
    pub fn restore(&mut self, kind: TileKindId, before: KindBefore) {
        let Some(tileset) = self.tilesets.get_mut(usize::from(kind.tileset)) else {
            return;
        };
        match before.0 {
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
    /// definition). `None` for a kind no file gives a terrain (LDtk's drawn tiles).
    pub fn class_home(&self, map_file: &Path, kind: TileKindId) -> Option<ClassHome> {
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
