//! The level: the map's terrain under the current terrain table, and the plugin's
//! [`Navigation`] built from it (one cost grid per movement class); the diff between two
//! levels when a file changes. The files behind it (loading, hot reload, errors) are
//! `files`.

mod files;

pub use files::{EditMap, MapEdited, MapHistory, Reloaded, RestartLevel, plugin as assets_plugin};

use bevy::prelude::*;
use bevy_tilewalk::tactics::AttackRange;
use bevy_tilewalk::{
    Labels, Motion, MovementClass, Navigation, NavigationChanged, Precedence, Tile, Unit,
};
use tilewalk_path::formats::ParseError;
use tilewalk_path::{Board, Grid, Pos};

use crate::convert::Geometry;
use crate::convert::Projection;
use crate::map::MapAsset;
use crate::map::tmx::TiledMap;
use crate::terrain::{Terrain, TerrainTable};
use crate::units::{UNIT_Z, unit};

/// The most cells a level's grids may store, the map's cells with the one-cell border around
/// them: 2^25. It only limits maps one or two tiles high or wide, whose border is up to two
/// thirds of the storage (a map one tile high may be 11,184,808 tiles long); every map of at
/// most 2^24 tiles with at least three rows and columns fits. With it, a level of the
/// longest such map loads in 1.2 GB and stays under 2 GB with a search or a group order
/// along all of it (`docs/benchmarks.md`, memory and load time).
pub const MAX_STORED_CELLS: u64 = 1 << 25;

/// The terrain of every cell: what the view draws and names. What it costs each movement
/// class is the [`Navigation`] built with it.
#[derive(Resource, Clone, Debug)]
pub struct Level {
    pub width: u32,
    pub height: u32,
    /// The board's shape, from the map: which tiles are adjacent, for every search.
    pub board: Board,
    /// How it is drawn: flat, or isometric.
    pub projection: Projection,
    /// The terrains the cells index into: the terrain table, or for a Tiled map the terrains
    /// its tiles name ([`MapAsset::resolve`]).
    pub table: TerrainTable,
    /// A Tiled map's layers and tilesets, which draw it instead of the terrain atlas.
    pub tiled: Option<TiledMap>,
    /// The terrain table's terrains, by name, in its order: what a tile kind of a Tiled or
    /// LDtk map can be given in the game (the terrain mode).
    pub terrain_names: Vec<String>,
    /// The terrain table's terrains' atlas tiles, in its order: the colour a Tiled or LDtk
    /// map's cell of that terrain has on the minimap.
    pub terrain_tiles: Vec<u32>,
    terrain: Vec<usize>,
    /// Where the cells are in the world, worked out once: every cell's lookup asks whether
    /// it is on the map.
    geometry: Geometry,
    /// What a designer should know about the map, which still plays (cells no tile names).
    warnings: Vec<ParseError>,
}

impl Level {
    /// Combines a map with a terrain table into the level and its navigation; fails on a
    /// glyph, terrain or class name the table does not know.
    pub fn build(map: &MapAsset, table: &TerrainTable) -> Result<(Self, Navigation), ParseError> {
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
        map.check_classes(table)?;
        let terrain_names = table.terrains.iter().map(|t| t.name.clone()).collect();
        let terrain_tiles = table.terrains.iter().map(|t| t.tile).collect();
        let resolved = map.resolve(table)?;
        let (table, terrain) = (resolved.table, resolved.terrain);
        // One grid a class, each built and its regions labelled (what `Navigation::new`
        // would do next, one grid after another) on a thread of its own: on a large map
        // most of the load.
        let grids = std::thread::scope(|scope| {
            let (table, terrain) = (&table, &terrain);
            let builders: Vec<_> = table
                .all_classes()
                .map(|class| {
                    scope.spawn(move || {
                        let grid = Grid::from_fn(map.width, map.height, |p| {
                            table.terrains[terrain[(p.y * map.width + p.x) as usize]].cost(class)
                        })
                        .map_err(|e| ParseError::new(1, 1, e.to_string()))?;
                        grid.label_regions(map.board);
                        Ok(grid)
                    })
                })
                .collect();
            builders
                .into_iter()
                .map(|builder| {
                    builder
                        .join()
                        .unwrap_or_else(|e| std::panic::resume_unwind(e))
                })
                .collect::<Result<Vec<_>, ParseError>>()
        })?;
        let nav = Navigation::new(map.board, table.classes.clone(), grids)
            .map_err(|e| ParseError::new(1, 1, e.to_string()))?;
        let level = Self {
            width: map.width,
            height: map.height,
            board: map.board,
            projection: map.projection,
            table,
            tiled: map.tiles.clone(),
            terrain_names,
            terrain_tiles,
            terrain,
            geometry: Geometry::projected(map.board, map.projection, map.width, map.height),
            warnings: resolved.warnings,
        };
        Ok((level, nav))
    }

    /// Where the cells are in the world.
    pub fn geometry(&self) -> Geometry {
        self.geometry
    }

    /// Whether a cell is on the map (a staggered map's grid holds cells that are not).
    pub fn contains(&self, pos: Pos) -> bool {
        self.geometry.on_map(pos)
    }

    pub fn terrain(&self, pos: Pos) -> Option<&Terrain> {
        self.contains(pos)
            .then(|| &self.table.terrains[self.terrain[(pos.y * self.width + pos.x) as usize]])
    }

    /// What a designer should know about the map, which still plays (cells no tile names).
    pub fn notes(&self) -> &[ParseError] {
        &self.warnings
    }

    /// A movement class's name.
    pub fn class_name(&self, class: MovementClass) -> &str {
        self.table.class_name(class)
    }

    /// Every cell on the map, row by row.
    pub fn cells(&self) -> impl Iterator<Item = Pos> + use<> {
        let geometry = self.geometry();
        let width = self.width;
        (0..self.width * self.height)
            .map(move |i| Pos::new(i % width, i / width))
            .filter(move |&p| geometry.on_map(p))
    }

    /// Where each class of this level is in `new`'s table, by name: units keep their class
    /// across a reload that declares the classes in another order. `None` for a class `new`
    /// does not declare.
    pub fn renamed_classes(
        &self,
        new: &Level,
    ) -> impl Fn(MovementClass) -> Option<MovementClass> + use<> {
        let renamed: Vec<Option<MovementClass>> = self
            .table
            .classes
            .iter()
            .map(|c| new.table.class(&c.name))
            .collect();
        move |class| renamed.get(class.index()).copied().flatten()
    }

    /// Replaces this level with `new` and says which cells the view redraws: those whose
    /// terrain's tile changed, with those whose costs changed (`costs`), or every cell when
    /// the size or the board changed.
    pub fn replace(&mut self, new: Level, costs: &NavigationChanged) -> LevelChanged {
        let cells = if (self.width, self.height, self.board, self.projection)
            != (new.width, new.height, new.board, new.projection)
        {
            new.cells().collect()
        } else {
            let mut cells: Vec<Pos> = self
                .cells()
                .filter(|&p| self.terrain(p).map(|t| t.tile) != new.terrain(p).map(|t| t.tile))
                .chain(costs.cells.iter().copied())
                .collect();
            cells.sort_by_key(|p| (p.y, p.x));
            cells.dedup();
            cells
        };
        *self = new;
        LevelChanged { cells }
    }
}

/// The level was rebuilt after a file changed: the cells to redraw.
#[derive(Message, Clone, Debug, Default, PartialEq)]
pub struct LevelChanged {
    /// The cells whose terrain or costs changed (all of them when the size or board changed).
    pub cells: Vec<Pos>,
}

pub(super) fn plugin(app: &mut App) {
    app.add_message::<LevelChanged>().add_systems(
        Update,
        place_units
            .in_set(crate::AppSystems::Place)
            .run_if(resource_exists::<Level>),
    );
}

/// Sprites follow their units: those under way are between their step's tiles, those whose
/// step ended stand on their tile. The others have not moved, unless the level changed, and
/// are left alone: a still army costs nothing.
fn place_units(
    level: Res<Level>,
    mut units: Query<(Ref<Motion>, &Tile, &mut Transform), With<Unit>>,
) {
    let geometry = level.geometry();
    let everyone = level.is_changed();
    for (motion, tile, mut transform) in &mut units {
        if everyone || motion.is_changed() {
            let at = motion.position(tile.0, |p| geometry.center(p));
            transform.translation = at.extend(UNIT_Z);
        }
    }
}

/// What a designer should know about a map that plays: the level's own warnings (cells no
/// tile names), and units the map places on terrain impassable for their class, at their
/// tile's `line:col` (they are not lost: an order makes them step off first).
pub fn warnings(map: &MapAsset, level: &Level, nav: &Navigation) -> Vec<ParseError> {
    let stranded = map
        .units
        .iter()
        .filter_map(|u| Some((u, level.table.class(&u.class)?)))
        .filter(|(u, class)| !nav.grid(*class).is_passable(u.pos))
        .map(|(u, _)| u)
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
        });
    level.warnings.iter().cloned().chain(stranded).collect()
}

/// Spawns the units a map places, in the map's order, each with its name's place in
/// alphabetical order as its [`Precedence`]: the units of an order are planned, and a tactics
/// side's units move, in the order of their names.
pub fn spawn_units(commands: &mut Commands, map: &MapAsset, level: &Level) {
    let mut names: Vec<&str> = map.units.iter().map(|u| u.name.as_str()).collect();
    names.sort_unstable();
    for spawn in &map.units {
        let rank = names
            .binary_search(&spawn.name.as_str())
            .unwrap_or_default();
        // `Level::build` checked every unit's class.
        let class = level.table.class(&spawn.class).unwrap_or_default();
        let at = level.geometry().center(spawn.pos).extend(UNIT_Z);
        let mut entity = commands.spawn((
            unit(&spawn.name, spawn.team, class, spawn.pos, at),
            Precedence(rank as u32),
        ));
        if let Some((min, max)) = spawn.attack {
            entity.insert(AttackRange(min, max));
        }
    }
}

/// The names the game gives in messages: units by their `Name` (`name_of`), classes and
/// terrains as the level names them.
pub struct GameLabels<'a, F> {
    pub level: &'a Level,
    pub name_of: F,
}

impl<F: Fn(Entity) -> String> Labels for GameLabels<'_, F> {
    fn unit(&self, unit: Entity) -> String {
        (self.name_of)(unit)
    }

    fn class(&self, class: MovementClass) -> String {
        self.level.class_name(class).to_owned()
    }

    fn terrain(&self, pos: Pos) -> Option<String> {
        self.level.terrain(pos).map(|t| t.name.clone())
    }
}
