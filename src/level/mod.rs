//! The level: the map's terrain under the current terrain table, with one cost grid per
//! movement class, and the diff between two levels when a file changes. The files behind it
//! (loading, hot reload, errors) are [`files`].

mod files;

pub use files::{EditMap, MapEdited, MapHistory, plugin as assets_plugin};

use bevy::prelude::*;
use tilewalk_path::formats::ParseError;
use tilewalk_path::{Board, Grid, Pos};

use crate::convert::Geometry;
use crate::map::MapAsset;
use crate::map::tmx::TilesetImage;
use crate::terrain::{Terrain, TerrainTable};
use crate::units::{AttackRange, MovementClass, UNIT_Z, unit};

/// The most cells a level's grids may store, the map's cells with the one-cell border around
/// them: 2^25. It only limits maps one or two tiles high or wide, whose border is up to two
/// thirds of the storage (a map one tile high may be 11,184,808 tiles long); every map of at
/// most 2^24 tiles with at least three rows and columns fits. With it, a level of the
/// longest such map loads in 1.2 GB and stays under 2 GB with a search or a group order
/// along all of it (`docs/benchmarks.md`, memory and load time).
pub const MAX_STORED_CELLS: u64 = 1 << 25;

/// The terrain of every cell and what it costs each movement class.
#[derive(Resource, Clone, Debug)]
pub struct Level {
    pub width: u32,
    pub height: u32,
    /// The board's shape, from the map: which tiles are adjacent, for every search.
    pub board: Board,
    /// The terrains the cells index into: the terrain table, or for a Tiled map one terrain per
    /// tileset tile ([`MapAsset::resolve`]).
    pub table: TerrainTable,
    /// A Tiled map's tileset image, which draws it instead of the terrain atlas.
    pub tileset: Option<TilesetImage>,
    terrain: Vec<usize>,
    grids: [Grid; 3],
}

impl Level {
    /// Combines a map with a terrain table; fails on a glyph or terrain name the table does
    /// not know.
    pub fn build(map: &MapAsset, table: &TerrainTable) -> Result<Self, ParseError> {
        let stored = (u64::from(map.width) + 2) * (u64::from(map.height) + 2);
        if stored > MAX_STORED_CELLS {
            let (line, column) = map.first_row_at();
            return Err(ParseError::new(
                line,
                column,
                format!(
                    "a {}x{} map is too thin for its size: with the border of impassable cells \
                     around it, its grids would store {stored} cells (at most \
                     {MAX_STORED_CELLS}; a map one tile high or wide may be {} tiles long)",
                    map.width,
                    map.height,
                    MAX_STORED_CELLS / 3 - 2
                ),
            ));
        }
        let (table, terrain) = map.resolve(table)?;
        let grid = |class| {
            Grid::from_fn(map.width, map.height, |p| {
                table.terrains[terrain[(p.y * map.width + p.x) as usize]].cost(class)
            })
            .map_err(|e| ParseError::new(1, 1, e.to_string()))
        };
        let grids = [
            grid(MovementClass::Foot)?,
            grid(MovementClass::Horse)?,
            grid(MovementClass::Flyer)?,
        ];
        // Every order asks which region its units and goal are in: label the board's
        // regions now, not in the frame of the first order.
        for grid in &grids {
            grid.label_regions(map.board);
        }
        Ok(Self {
            width: map.width,
            height: map.height,
            board: map.board,
            table,
            tileset: map.tiles.as_ref().map(|t| t.image.clone()),
            grids,
            terrain,
        })
    }

    /// Where the cells are in the world.
    pub fn geometry(&self) -> Geometry {
        Geometry::new(self.board, self.width, self.height)
    }

    /// The cost grid searches use for a movement class.
    pub fn grid(&self, class: MovementClass) -> &Grid {
        &self.grids[class as usize]
    }

    /// The grid of one movement class, keeping no other part of the level.
    pub fn into_grid(self, class: MovementClass) -> Grid {
        let [foot, horse, flyer] = self.grids;
        match class {
            MovementClass::Foot => foot,
            MovementClass::Horse => horse,
            MovementClass::Flyer => flyer,
        }
    }

    /// Every movement class's grid, indexed by class: what a group order is planned on.
    pub fn grids(&self) -> &[Grid] {
        &self.grids
    }

    pub fn contains(&self, pos: Pos) -> bool {
        pos.x < self.width && pos.y < self.height
    }

    pub fn terrain(&self, pos: Pos) -> Option<&Terrain> {
        self.contains(pos)
            .then(|| &self.table.terrains[self.terrain[(pos.y * self.width + pos.x) as usize]])
    }

    /// Every cell, row by row.
    pub fn cells(&self) -> impl Iterator<Item = Pos> + use<> {
        self.grids[0].cells()
    }

    /// Replaces this level with `new` and says what changed.
    pub fn replace(&mut self, new: Level) -> LevelChanged {
        let changed = self.diff(&new);
        *self = new;
        changed
    }

    /// What differs in `new`: the cells whose terrain or cost for some class changed (all of
    /// them when the size or the board changed), and the classes for which some cell got
    /// cheaper (or passable).
    pub fn diff(&self, new: &Level) -> LevelChanged {
        if (self.width, self.height, self.board) != (new.width, new.height, new.board) {
            return LevelChanged {
                cells: new.cells().collect(),
                cheaper: MovementClass::ALL.to_vec(),
            };
        }
        let cheaper = |class: MovementClass, p: Pos| match (
            self.grid(class).cost(p),
            new.grid(class).cost(p),
        ) {
            (Some(old), Some(new)) => new < old,
            (None, Some(_)) => true,
            (_, None) => false,
        };
        let cells: Vec<Pos> = self
            .cells()
            .filter(|&p| {
                self.terrain(p).map(|t| t.tile) != new.terrain(p).map(|t| t.tile)
                    || MovementClass::ALL
                        .iter()
                        .any(|&c| self.grid(c).cost(p) != new.grid(c).cost(p))
            })
            .collect();
        let cheaper = MovementClass::ALL
            .into_iter()
            .filter(|&c| cells.iter().any(|&p| cheaper(c, p)))
            .collect();
        LevelChanged { cells, cheaper }
    }
}

/// The level was rebuilt after a file changed.
#[derive(Message, Clone, Debug, Default, PartialEq)]
pub struct LevelChanged {
    /// The cells whose terrain or costs changed (all of them when the size or board changed).
    pub cells: Vec<Pos>,
    /// The classes for which some cell got cheaper or passable: any of their paths may now
    /// have a cheaper way, wherever it runs.
    pub cheaper: Vec<MovementClass>,
}

pub(super) fn plugin(app: &mut App) {
    app.add_message::<LevelChanged>();
}

/// Units the map places on terrain impassable for their class, as warnings at their tile's
/// `line:col` (they are not lost: an order makes them step off first).
pub fn stranded_units(map: &MapAsset, level: &Level) -> Vec<ParseError> {
    map.units
        .iter()
        .filter(|u| !level.grid(u.class).is_passable(u.pos))
        .map(|u| {
            let terrain = level.terrain(u.pos).map_or("?", |t| t.name.as_str());
            ParseError::new(
                u.line,
                u.column,
                format!(
                    "unit `{}` stands on {terrain} at {}, impassable for {}: an order makes it step off first",
                    u.name, u.pos, u.class
                ),
            )
        })
        .collect()
}

/// Spawns the units a map places.
pub fn spawn_units(commands: &mut Commands, map: &MapAsset, level: &Level) {
    for spawn in &map.units {
        let at = level.geometry().center(spawn.pos).extend(UNIT_Z);
        let mut entity = commands.spawn(unit(&spawn.name, spawn.team, spawn.class, spawn.pos, at));
        if let Some((min, max)) = spawn.attack {
            entity.insert(AttackRange(min, max));
        }
    }
}
