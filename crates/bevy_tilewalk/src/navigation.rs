//! What the units walk on: the board's shape and one cost grid per movement class, filled by
//! the host from whatever map it has, and the message that says which tiles changed.

use bevy::prelude::*;
use tilewalk_path::{Board, Diagonal, Grid, GridError, Pos};

use crate::units::MovementClass;

/// The most movement classes a navigation may declare.
pub const MAX_CLASSES: usize = 64;

/// A movement class: its name and how fast it walks.
#[derive(Reflect, Clone, Debug, PartialEq)]
#[reflect(Debug, Clone, PartialEq)]
#[cfg_attr(feature = "serialize", derive(serde::Serialize, serde::Deserialize))]
pub struct ClassSpec {
    /// The name maps, orders and messages use (`foot`, `infantry`, `air`, ...).
    pub name: String,
    /// Cost-1 tiles crossed per second on straight steps: a step takes its length (1
    /// straight or across a hex side, √2 diagonally) × the entered tile's cost ÷ the speed.
    pub speed: f64,
}

impl ClassSpec {
    /// A class named `name` walking `speed` cost-1 tiles a second.
    pub fn new(name: impl Into<String>, speed: f64) -> Self {
        Self {
            name: name.into(),
            speed,
        }
    }

    /// The class named `name` in a list of classes (in index order).
    pub fn find(classes: &[ClassSpec], name: &str) -> Option<MovementClass> {
        let i = classes.iter().position(|c| c.name == name)?;
        Some(MovementClass(i as u8))
    }

    /// The name of `class` in a list of classes; `?` for an index past its end.
    pub fn name_of(classes: &[ClassSpec], class: MovementClass) -> &str {
        classes.get(class.index()).map_or("?", |c| &c.name)
    }
}

/// Why a navigation could not be built.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum NavigationError {
    /// No classes, or more than [`MAX_CLASSES`].
    #[error("a navigation needs from 1 to {MAX_CLASSES} movement classes, got {0}")]
    ClassCount(usize),
    /// Two classes share a name.
    #[error("movement class `{0}` is declared twice")]
    DuplicateClass(String),
    /// A speed that is not a positive finite number.
    #[error("movement class `{name}`: the speed must be a positive number, got {speed}")]
    Speed {
        /// The class.
        name: String,
        /// Its speed.
        speed: f64,
    },
    /// The grids are not one per class, or differ in size.
    #[error("one cost grid per class, all of one size, is needed")]
    Grids,
    /// A cost grid could not be built.
    #[error(transparent)]
    Grid(#[from] GridError),
}

/// The navigation input: the board's shape and one cost grid per movement class. The host
/// inserts it (from its own map, a file, or `Navigation::from_tilemap` with the
/// `bevy_ecs_tilemap` feature) and, when tiles change, replaces it with
/// [`Navigation::replace`] and writes the [`NavigationChanged`] that returns, so the paths
/// crossing the changed tiles are planned again. As a resource it is the world's default
/// map; a world of several maps puts one on each map's entity in a
/// [`MapNavigation`](crate::MapNavigation).
#[derive(Resource, Reflect, Clone, Debug)]
#[reflect(opaque, Resource, Debug, Clone)]
#[cfg_attr(
    feature = "serialize",
    derive(serde::Serialize, serde::Deserialize),
    serde(into = "serial::NavigationData", try_from = "serial::NavigationData"),
    reflect(Serialize, Deserialize)
)]
pub struct Navigation {
    board: Board,
    classes: Vec<ClassSpec>,
    grids: Vec<Grid>,
}

impl Navigation {
    /// A navigation from one grid per class (in the classes' order). Labels the regions of
    /// every grid at once, so that the first order does not pay for it.
    pub fn new(
        board: Board,
        classes: Vec<ClassSpec>,
        grids: Vec<Grid>,
    ) -> Result<Self, NavigationError> {
        if classes.is_empty() || classes.len() > MAX_CLASSES {
            return Err(NavigationError::ClassCount(classes.len()));
        }
        for (i, class) in classes.iter().enumerate() {
            if classes[..i].iter().any(|c| c.name == class.name) {
                return Err(NavigationError::DuplicateClass(class.name.clone()));
            }
            if !(class.speed.is_finite() && class.speed > 0.0) {
                return Err(NavigationError::Speed {
                    name: class.name.clone(),
                    speed: class.speed,
                });
            }
        }
        let size = |g: &Grid| (g.width(), g.height());
        if grids.len() != classes.len() || grids.iter().any(|g| size(g) != size(&grids[0])) {
            return Err(NavigationError::Grids);
        }
        for grid in &grids {
            grid.label_regions(board);
        }
        Ok(Self {
            board,
            classes,
            grids,
        })
    }

    /// A `width` × `height` navigation whose costs come from `cost(class, tile)`, where
    /// `class` is the [`ClassSpec`] (name and speed) whose grid is being filled: `None` is
    /// impassable, a cost from [`tilewalk_path::MIN_COST`] to [`tilewalk_path::MAX_COST`] is
    /// what entering the tile costs that class.
    pub fn from_fn(
        board: Board,
        width: u32,
        height: u32,
        classes: Vec<ClassSpec>,
        mut cost: impl FnMut(&ClassSpec, Pos) -> Option<f64>,
    ) -> Result<Self, NavigationError> {
        if classes.is_empty() || classes.len() > MAX_CLASSES {
            return Err(NavigationError::ClassCount(classes.len()));
        }
        let grids = classes
            .iter()
            .map(|class| Grid::from_fn(width, height, |p| cost(class, p)))
            .collect::<Result<Vec<_>, _>>()?;
        Self::new(board, classes, grids)
    }

    /// A `width` × `height` navigation of one movement class, every tile passable at cost 1:
    /// an open field, the shortest start (`Navigation::uniform(Board::default(), 8, 8,
    /// ClassSpec::new("foot", 3.0))`). Fails on a speed that is not a positive number or a
    /// size the core's grids refuse.
    pub fn uniform(
        board: Board,
        width: u32,
        height: u32,
        class: ClassSpec,
    ) -> Result<Self, NavigationError> {
        Self::from_fn(board, width, height, vec![class], |_, _| Some(1.0))
    }

    /// The board's shape: which tiles are adjacent.
    pub fn board(&self) -> Board {
        self.board
    }

    /// Tiles across.
    pub fn width(&self) -> u32 {
        self.grids[0].width()
    }

    /// Tiles down.
    pub fn height(&self) -> u32 {
        self.grids[0].height()
    }

    /// Whether `pos` lies on the map.
    pub fn contains(&self, pos: Pos) -> bool {
        self.grids[0].contains(pos)
    }

    /// Every tile, row by row.
    pub fn cells(&self) -> impl Iterator<Item = Pos> + use<> {
        self.grids[0].cells()
    }

    /// The movement classes, in index order.
    pub fn classes(&self) -> &[ClassSpec] {
        &self.classes
    }

    /// The class named `name`.
    pub fn class(&self, name: &str) -> Option<MovementClass> {
        ClassSpec::find(&self.classes, name)
    }

    /// Every class, in index order.
    pub fn all_classes(&self) -> impl Iterator<Item = MovementClass> + use<> {
        MovementClass::all(self.classes.len())
    }

    /// A class's name; `?` for a class this navigation does not have.
    pub fn name(&self, class: MovementClass) -> &str {
        ClassSpec::name_of(&self.classes, class)
    }

    /// A class's speed (cost-1 tiles a second); that of the first class for a class this
    /// navigation does not have.
    pub fn speed(&self, class: MovementClass) -> f64 {
        self.spec(class).speed
    }

    /// The cost grid searches use for a class; the first class's for a class this
    /// navigation does not have.
    pub fn grid(&self, class: MovementClass) -> &Grid {
        self.grids.get(class.index()).unwrap_or(&self.grids[0])
    }

    /// Every class's grid, in index order: what a group order is planned on.
    pub fn grids(&self) -> &[Grid] {
        &self.grids
    }

    /// The grid of one class, keeping nothing else.
    pub fn into_grid(mut self, class: MovementClass) -> Grid {
        let i = class.index().min(self.grids.len() - 1);
        self.grids.swap_remove(i)
    }

    fn spec(&self, class: MovementClass) -> &ClassSpec {
        self.classes.get(class.index()).unwrap_or(&self.classes[0])
    }

    /// How long a step of `length` (1 straight or across a hex side, √2 diagonally) into a
    /// tile of cost `cost` takes `class`, in seconds.
    pub fn step_seconds(&self, class: MovementClass, length: f64, cost: f64) -> f64 {
        length * cost / self.speed(class)
    }

    /// Whether a unit of `class` may step from `from` to its neighbour `to`: on a square board
    /// a diagonal step follows the board's corner rule against `class`'s impassable tiles.
    pub fn can_step(&self, class: MovementClass, from: Pos, to: Pos) -> bool {
        let Board::Square(diagonal) = self.board else {
            return true;
        };
        if from.x == to.x || from.y == to.y {
            return true;
        }
        let grid = self.grid(class);
        let open = [Pos::new(to.x, from.y), Pos::new(from.x, to.y)]
            .into_iter()
            .filter(|&p| grid.is_passable(p))
            .count();
        match diagonal {
            Diagonal::Never => false,
            Diagonal::NoObstacles => open == 2,
            Diagonal::AtMostOneObstacle => open >= 1,
            Diagonal::Always => true,
        }
    }

    /// The length of a step between adjacent tiles: √2 diagonally on a square board, 1
    /// otherwise.
    pub fn step_length(&self, from: Pos, to: Pos) -> f64 {
        step_length(self.board, from, to)
    }

    /// Replaces this navigation with `new` and says what changed: the message to write.
    pub fn replace(&mut self, new: Navigation) -> NavigationChanged {
        let changed = self.diff(&new);
        *self = new;
        changed
    }

    /// What differs in `new`: the tiles whose cost for some class changed (all of them when
    /// the size, the board or the classes changed), and the classes for which some tile got
    /// cheaper or passable.
    pub fn diff(&self, new: &Navigation) -> NavigationChanged {
        let shape = |n: &Navigation| (n.width(), n.height(), n.board, n.classes.len());
        if shape(self) != shape(new) {
            return NavigationChanged {
                cells: new.cells().collect(),
                cheaper: new.all_classes().collect(),
                map: None,
            };
        }
        let cells: Vec<Pos> = self
            .cells()
            .filter(|&p| {
                self.grids
                    .iter()
                    .zip(&new.grids)
                    .any(|(a, b)| a.cost(p) != b.cost(p))
            })
            .collect();
        let cheaper = self
            .all_classes()
            .filter(|&c| {
                let (old, new) = (self.grid(c), new.grid(c));
                cells.iter().any(|&p| match (old.cost(p), new.cost(p)) {
                    (Some(old), Some(new)) => new < old,
                    (None, Some(_)) => true,
                    (_, None) => false,
                })
            })
            .collect();
        NavigationChanged {
            cells,
            cheaper,
            map: None,
        }
    }
}

/// The length of a step on `board` from `from` to the adjacent `to`: 1 straight or across a
/// hex side, √2 diagonally on a square board.
pub fn step_length(board: Board, from: Pos, to: Pos) -> f64 {
    match board {
        Board::Square(_) if from.x != to.x && from.y != to.y => std::f64::consts::SQRT_2,
        _ => 1.0,
    }
}

/// A map's navigation changed: the paths of its units that cross these tiles, and every
/// path of a class that got cheaper somewhere, are planned again; the units of other maps
/// keep theirs. [`Navigation::replace`] and [`Navigation::diff`] return one for the default
/// map (the [`Navigation`] resource); [`NavigationChanged::on_map`] names a map entity
/// instead ([`MapNavigation`](crate::MapNavigation)).
#[derive(Message, Reflect, Clone, Debug, Default, PartialEq)]
#[reflect(opaque, Debug, Default, Clone, PartialEq)]
#[non_exhaustive]
pub struct NavigationChanged {
    /// The tiles whose costs changed (all of them when the size or board changed).
    pub cells: Vec<Pos>,
    /// The classes for which some tile got cheaper or passable: any of their paths may now
    /// have a cheaper way, wherever it runs.
    pub cheaper: Vec<MovementClass>,
    /// The map that changed: `None` for the [`Navigation`] resource, `Some(entity)` for the
    /// [`MapNavigation`](crate::MapNavigation) on that entity.
    pub map: Option<Entity>,
}

impl NavigationChanged {
    /// The same change, of the map on `map`'s entity
    /// ([`MapNavigation`](crate::MapNavigation)): `map_nav.0.replace(new).on_map(map)`.
    pub fn on_map(self, map: Entity) -> Self {
        Self {
            map: Some(map),
            ..self
        }
    }
}

#[cfg(feature = "bevy_ecs_tilemap")]
mod tilemap {
    use bevy::prelude::*;
    use bevy_ecs_tilemap::prelude::{HexCoordSystem, TilePos, TileStorage, TilemapType};
    use tilewalk_path::{Board, HexLayout, Pos};

    use super::{ClassSpec, Navigation, NavigationError};

    /// The board whose neighbours are those of a bevy_ecs_tilemap map type, with a cell's
    /// `Pos` the tile's `TilePos` (x right, y up): 8-way for square maps (`Board::Square`
    /// with another `Diagonal` reads the same cells 4-way), the hex layout for hex maps in
    /// offset coordinates. `None` for isometric maps and hex maps in axial coordinates.
    pub fn board_of(map_type: &TilemapType) -> Option<Board> {
        match map_type {
            TilemapType::Square => Some(Board::default()),
            TilemapType::Hexagon(HexCoordSystem::RowOdd) => Some(Board::Hex(HexLayout::OddR)),
            TilemapType::Hexagon(HexCoordSystem::RowEven) => Some(Board::Hex(HexLayout::EvenR)),
            // Columns shifted up (y grows upwards) are the core's columns shifted towards
            // larger y.
            TilemapType::Hexagon(HexCoordSystem::ColumnOdd) => Some(Board::Hex(HexLayout::OddQ)),
            TilemapType::Hexagon(HexCoordSystem::ColumnEven) => Some(Board::Hex(HexLayout::EvenQ)),
            TilemapType::Hexagon(_) | TilemapType::Isometric(_) => None,
        }
    }

    impl Navigation {
        /// The navigation of a bevy_ecs_tilemap map: a cell's `Pos` is its tile's `TilePos`,
        /// `board` says which tiles touch ([`board_of`] gives the one a map type draws), and
        /// `cost(class, tile)` gives each tile's cost for each class (its [`ClassSpec`]),
        /// from the tile entity at that position (`None` where the storage has none).
        pub fn from_tilemap(
            storage: &TileStorage,
            board: Board,
            classes: Vec<ClassSpec>,
            mut cost: impl FnMut(&ClassSpec, Option<Entity>) -> Option<f64>,
        ) -> Result<Self, NavigationError> {
            let (width, height) = (storage.size.x, storage.size.y);
            Self::from_fn(board, width, height, classes, |class, p: Pos| {
                cost(class, storage.get(&TilePos::new(p.x, p.y)))
            })
        }
    }
}

#[cfg(feature = "bevy_ecs_tilemap")]
pub use tilemap::board_of;

/// A navigation as saved: the board, the classes and each class's costs row by row
/// (`None` impassable). Loading builds it again with [`Navigation::new`], so a saved one
/// that is no longer valid is refused with its [`NavigationError`].
#[cfg(feature = "serialize")]
mod serial {
    use serde::{Deserialize, Serialize};
    use tilewalk_path::{Board, Grid};

    use super::{ClassSpec, Navigation, NavigationError};

    #[derive(Serialize, Deserialize)]
    pub(super) struct NavigationData {
        board: Board,
        width: u32,
        height: u32,
        classes: Vec<ClassSpec>,
        costs: Vec<Vec<Option<f64>>>,
    }

    impl From<Navigation> for NavigationData {
        fn from(nav: Navigation) -> Self {
            let costs = nav
                .grids
                .iter()
                .map(|grid| grid.cells().map(|p| grid.cost(p)).collect())
                .collect();
            Self {
                board: nav.board,
                width: nav.width(),
                height: nav.height(),
                classes: nav.classes,
                costs,
            }
        }
    }

    impl TryFrom<NavigationData> for Navigation {
        type Error = NavigationError;

        fn try_from(data: NavigationData) -> Result<Self, NavigationError> {
            let cells = u64::from(data.width) * u64::from(data.height);
            if data.costs.iter().any(|c| c.len() as u64 != cells) {
                return Err(NavigationError::Grids);
            }
            let grids = data
                .costs
                .iter()
                .map(|costs| {
                    let mut cost = costs.iter().copied();
                    Grid::from_fn(data.width, data.height, |_| cost.next().flatten())
                })
                .collect::<Result<Vec<_>, _>>()?;
            Navigation::new(data.board, data.classes, grids)
        }
    }
}
