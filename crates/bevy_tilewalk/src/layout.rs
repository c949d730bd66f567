//! Where tiles are in the world: [`TileLayout`] (a map's tile size, origin and projection) and
//! the system that places units' `Transform`s with it while they walk.

use bevy::ecs::query::QueryData;
use bevy::ecs::schedule::InternedScheduleLabel;
use bevy::prelude::*;
use tilewalk_path::{Board, HexLayout, Pos};

use crate::maps::{MapKey, MapNavigation, OnMap, map_of};
use crate::units::{Motion, Tile, Unit};

/// How a board's cells are drawn side by side.
#[derive(Reflect, Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
#[reflect(opaque, Debug, Default, Clone, PartialEq, Hash)]
#[cfg_attr(
    feature = "serialize",
    derive(serde::Serialize, serde::Deserialize),
    reflect(Serialize, Deserialize)
)]
pub enum TileProjection {
    /// Square tiles in rows and columns (`Board::Square`, any diagonal rule).
    #[default]
    Square,
    /// Hex tiles stored as the layout says (`Board::Hex`): pointy-top hexes in rows
    /// (`r` layouts, rows three quarters of a tile's height apart) or flat-top hexes in
    /// columns (`q` layouts, columns three quarters of a tile's width apart); the shifted
    /// rows go half a tile right, the shifted columns half a tile towards a larger `y`.
    Hex(HexLayout),
    /// A square board drawn as diamonds (isometric): with y up, a step to a larger `x` goes
    /// down and right, one to a larger `y` up and right (bevy_ecs_tilemap's `Diamond`
    /// maps); with y down, a larger `y` goes down and left (Tiled's isometric maps).
    Isometric,
}

/// The projection that draws `board` flat: squares for a square board, its hex layout for a
/// hex one.
impl From<Board> for TileProjection {
    fn from(board: Board) -> Self {
        match board {
            Board::Square(_) => Self::Square,
            Board::Hex(layout) => Self::Hex(layout),
        }
    }
}

/// Where a map's tiles are in the world: their projection, size and the centre of the tile
/// (0, 0). Spawn it (on the map's entity, or an entity of its own) and the plugin places the
/// `Transform` of every [`Unit`] that has one at its tile's centre, and between two tiles
/// while it steps from one to the other (x and y; z is kept), in
/// [`TilewalkSystems::Move`](crate::TilewalkSystems::Move) after the units walk. The debug
/// plugin (feature `debug`, in [`debug`](mod@crate::debug)) draws with it too, from its
/// `default()`.
///
/// ```
/// use bevy::prelude::*;
/// use bevy_tilewalk::prelude::*;
///
/// // 32-unit squares, the tile (0, 0) centred on the world's origin, y up.
/// let layout = TileLayout::square(32.0);
/// assert_eq!(layout.center(Pos::new(2, 1)), Vec2::new(64.0, 32.0));
/// // Rows counted from the top, as in a map file, the top-left tile at (16, -16).
/// let layout = layout.with_y_down(true).with_origin(Vec2::new(16.0, -16.0));
/// assert_eq!(layout.center(Pos::new(2, 1)), Vec2::new(80.0, -48.0));
/// ```
///
/// A layout on a map's entity ([`MapNavigation`](crate::MapNavigation)) places the units on
/// that map ([`OnMap`](crate::OnMap)); a layout elsewhere places the units of the default
/// map (the [`Navigation`](crate::Navigation) resource). The default map has one layout; if
/// there are several off the maps' entities, its units are placed by none of them and a
/// warning says so once.
#[derive(Component, Reflect, Clone, Copy, Debug, PartialEq)]
#[reflect(Component, Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct TileLayout {
    /// How the cells are drawn side by side.
    pub projection: TileProjection,
    /// The size of a tile's cell in world units, width and height: a square's sides, a
    /// hex's width and height (corner to corner along its long axis), a diamond's width and
    /// height. It is bevy_ecs_tilemap's grid size (`TilemapGridSize`).
    pub tile_size: Vec2,
    /// The world position of the centre of the tile (0, 0).
    pub origin: Vec2,
    /// Whether a larger `y` is lower on the screen (rows counted from the top, as a map
    /// file counts them), instead of higher (bevy_ecs_tilemap's `TilePos`, the default).
    pub y_down: bool,
}

impl TileLayout {
    /// Square tiles `size` world units wide, the tile (0, 0) centred on the world's origin,
    /// y up.
    pub fn square(size: f32) -> Self {
        Self::new(Board::default(), Vec2::splat(size))
    }

    /// The tiles of `board` drawn flat ([`TileProjection::from`] the board), each
    /// `tile_size` ([`TileLayout::tile_size`]), the tile (0, 0) centred on the world's
    /// origin, y up.
    pub fn new(board: Board, tile_size: Vec2) -> Self {
        Self::projected(TileProjection::from(board), tile_size)
    }

    /// The cells of a square board drawn as diamonds `tile_size` wide and high
    /// ([`TileProjection::Isometric`]), the tile (0, 0) centred on the world's origin, y up.
    pub fn isometric(tile_size: Vec2) -> Self {
        Self::projected(TileProjection::Isometric, tile_size)
    }

    fn projected(projection: TileProjection, tile_size: Vec2) -> Self {
        Self {
            projection,
            tile_size,
            origin: Vec2::ZERO,
            y_down: false,
        }
    }

    /// The same layout with the tile (0, 0) centred at `origin`.
    pub fn with_origin(self, origin: Vec2) -> Self {
        Self { origin, ..self }
    }

    /// The same layout with a larger `y` lower on the screen (`true`) or higher (`false`).
    pub fn with_y_down(self, y_down: bool) -> Self {
        Self { y_down, ..self }
    }

    /// The centre of `tile` in the world.
    pub fn center(&self, tile: Pos) -> Vec2 {
        let (x, y) = (tile.x as f32, tile.y as f32);
        let odd = |n: u32| (n % 2) as f32;
        let up = if self.y_down { -1.0 } else { 1.0 };
        let Vec2 { x: w, y: h } = self.tile_size;
        let offset = match self.projection {
            TileProjection::Square => Vec2::new(x * w, up * y * h),
            // bevy_ecs_tilemap's offset hex coordinates, its (0, 0) on the origin: a shifted
            // line is half a tile further than the tile (0, 0)'s lines, the others in line.
            TileProjection::Hex(HexLayout::OddR) => {
                Vec2::new((x + 0.5 * odd(tile.y)) * w, up * 0.75 * y * h)
            }
            TileProjection::Hex(HexLayout::EvenR) => {
                Vec2::new((x - 0.5 * odd(tile.y)) * w, up * 0.75 * y * h)
            }
            TileProjection::Hex(HexLayout::OddQ) => {
                Vec2::new(0.75 * x * w, up * (y + 0.5 * odd(tile.x)) * h)
            }
            TileProjection::Hex(HexLayout::EvenQ) => {
                Vec2::new(0.75 * x * w, up * (y - 0.5 * odd(tile.x)) * h)
            }
            TileProjection::Isometric => {
                let y = up * y;
                Vec2::new(0.5 * (x + y) * w, 0.5 * (y - x) * h)
            }
        };
        self.origin + offset
    }

    /// Where a unit holding `tile` and moving as `motion` says is drawn: its tile's centre,
    /// or between the centres of the two tiles of its step ([`Motion::position`]).
    pub fn position(&self, tile: Pos, motion: &Motion) -> Vec2 {
        motion.position(tile, |p| self.center(p))
    }

    /// The size marks are drawn at: the tile's smaller side.
    #[cfg(feature = "debug")]
    pub(crate) fn mark_size(&self) -> f32 {
        self.tile_size.min_element()
    }
}

#[cfg(feature = "bevy_ecs_tilemap")]
mod tilemap {
    use bevy::math::Vec2;
    use bevy_ecs_tilemap::prelude::{
        HexCoordSystem, IsoCoordSystem, TilePos, TilemapAnchor, TilemapGridSize, TilemapSize,
        TilemapTileSize, TilemapType,
    };
    use tilewalk_path::HexLayout;

    use super::{TileLayout, TileProjection};

    impl TileLayout {
        /// The layout of a bevy_ecs_tilemap map, a cell's `Pos` its tile's `TilePos` (as in
        /// [`Navigation::from_tilemap`](crate::Navigation::from_tilemap)): tiles where
        /// `TilePos::center_in_world` puts them, in the map's own space (add the map's
        /// `Transform` translation to [`TileLayout::origin`] where it is not at the world's
        /// origin). `None` for the map types the plugin has no board for: hex maps in axial
        /// coordinates and staggered isometric maps.
        pub fn from_tilemap(
            map_type: &TilemapType,
            size: &TilemapSize,
            grid_size: &TilemapGridSize,
            tile_size: &TilemapTileSize,
            anchor: &TilemapAnchor,
        ) -> Option<Self> {
            let projection = match map_type {
                TilemapType::Square => TileProjection::Square,
                TilemapType::Hexagon(HexCoordSystem::RowOdd) => {
                    TileProjection::Hex(HexLayout::OddR)
                }
                TilemapType::Hexagon(HexCoordSystem::RowEven) => {
                    TileProjection::Hex(HexLayout::EvenR)
                }
                TilemapType::Hexagon(HexCoordSystem::ColumnOdd) => {
                    TileProjection::Hex(HexLayout::OddQ)
                }
                TilemapType::Hexagon(HexCoordSystem::ColumnEven) => {
                    TileProjection::Hex(HexLayout::EvenQ)
                }
                TilemapType::Isometric(IsoCoordSystem::Diamond) => TileProjection::Isometric,
                TilemapType::Hexagon(_) | TilemapType::Isometric(_) => return None,
            };
            let origin =
                TilePos::new(0, 0).center_in_world(size, grid_size, tile_size, map_type, anchor);
            Some(
                Self::projected(projection, Vec2::new(grid_size.x, grid_size.y))
                    .with_origin(origin),
            )
        }
    }
}

pub(crate) fn plugin(app: &mut App, schedule: InternedScheduleLabel) {
    app.register_type::<TileLayout>().add_systems(
        schedule,
        place_units
            .after(crate::movement::follow_paths)
            .in_set(crate::TilewalkSystems::Move),
    );
}

/// Which layout placed the default map's units last, and whether several layouts were told
/// once.
#[derive(Default)]
struct Placing {
    with: Option<Entity>,
    warned: bool,
}

/// What placing reads and moves of a unit.
#[derive(QueryData)]
#[query_data(mutable)]
struct Placed {
    tile: Ref<'static, Tile>,
    motion: Ref<'static, Motion>,
    transform: &'static mut Transform,
    on_map: Option<Ref<'static, OnMap>>,
}

/// Moves each unit's `Transform` to where its map's [`TileLayout`] draws it: the units whose
/// tile, step, map or `Transform` is new, and all of a map's units when its layout is.
fn place_units(
    layouts: Query<(Entity, Ref<TileLayout>, Has<MapNavigation>)>,
    mut units: Query<Placed, With<Unit>>,
    mut placing: Local<Placing>,
) {
    if layouts.is_empty() {
        placing.with = None;
        return;
    }
    // The default map's layout: the one layout off the maps' entities.
    let mut found = layouts.iter().filter(|(.., on_a_map)| !on_a_map);
    let default = match (found.next(), found.next()) {
        (Some((holder, layout, _)), None) => Some((holder, layout)),
        (None, _) => None,
        (Some(_), Some(_)) => {
            if !placing.warned {
                placing.warned = true;
                let holders: Vec<Entity> = layouts
                    .iter()
                    .filter(|(.., on_a_map)| !on_a_map)
                    .map(|(entity, ..)| entity)
                    .collect();
                warn!(
                    "bevy_tilewalk: {} `TileLayout`s off the maps' entities (on {holders:?}): \
                     the default map's units are placed by none; keep one",
                    holders.len()
                );
            }
            None
        }
    };
    let default_all = default
        .as_ref()
        .is_some_and(|(holder, layout)| layout.is_changed() || placing.with != Some(*holder));
    placing.with = default.as_ref().map(|(holder, _)| *holder);
    let map_layouts = layouts.iter().any(|(.., on_a_map)| on_a_map);
    for mut unit in &mut units {
        let key: MapKey = map_of(unit.on_map.as_deref());
        let (layout, all): (&TileLayout, bool) = match key {
            None => match &default {
                Some((_, layout)) => (&**layout, default_all),
                None => continue,
            },
            Some(map) if map_layouts => match layouts.get(map) {
                Ok((_, layout, true)) => {
                    let all = layout.is_changed();
                    (layout.into_inner(), all)
                }
                _ => continue,
            },
            Some(_) => continue,
        };
        let moved = unit.tile.is_changed()
            || unit.motion.is_changed()
            || unit.on_map.as_ref().is_some_and(|on| on.is_changed());
        if !(all || moved || unit.transform.is_added()) {
            continue;
        }
        let at = layout.position(unit.tile.0, &unit.motion);
        if unit.transform.translation.truncate() != at {
            unit.transform.translation = at.extend(unit.transform.translation.z);
        }
    }
}
