//! Debug drawing: gizmos for each unit's path and goal, orders refused, and
//! the cells the last search expanded, on any map layout. It draws with Bevy's gizmos, so the
//! host needs a camera and Bevy's gizmo rendering (its default features have both).

use std::sync::Arc;

use bevy::prelude::*;
use tilewalk_path::Pos;

use crate::pathing::{OrderRefused, Path, RecordSearches, Searches};
use crate::sides::Sides;
use crate::units::{Motion, Team, Tile};

/// How long a refused order's mark stays, in seconds.
pub const REFUSAL_SECONDS: f32 = 2.0;

/// The colours the debug plugin draws with.
pub mod colors {
    use bevy::prelude::Color;

    /// A blue unit's path and goal (the default [`Sides`](crate::Sides)' blue).
    pub const BLUE: Color = crate::sides::palette::BLUE;
    /// A red unit's path and goal (the default [`Sides`](crate::Sides)' red).
    pub const RED: Color = crate::sides::palette::RED;
    /// A new [`Side`](crate::Side)'s path and goal, and a team's past the sides.
    pub const NEUTRAL: Color = crate::sides::palette::NEUTRAL;
    /// The mark on a refused order's goal.
    pub const REFUSED: Color = Color::srgb(1.0, 0.1, 0.6);
    /// The cells the last search expanded.
    pub const SEARCHED: Color = Color::srgb(0.55, 1.0, 0.3);
}

/// Draws what the plugin does with gizmos, over any map: add it beside
/// [`TilewalkPlugin`](crate::TilewalkPlugin), telling it where tiles are in the world.
///
/// ```no_run
/// use bevy::prelude::*;
/// use bevy_tilewalk::prelude::*;
/// use bevy_tilewalk::debug::TilewalkDebugPlugin;
///
/// App::new()
///     .add_plugins((DefaultPlugins, TilewalkPlugin::default()))
///     // 32-pixel tiles, the tile (0, 0) centred on the world's origin, y up.
///     .add_plugins(TilewalkDebugPlugin::square(32.0, Vec2::ZERO))
///     .run();
/// ```
///
/// What it draws can be switched at run time in the [`TilewalkDebug`] resource.
#[derive(Clone)]
pub struct TilewalkDebugPlugin {
    tile_size: f32,
    center: Arc<dyn Fn(Pos) -> Vec2 + Send + Sync>,
}

impl TilewalkDebugPlugin {
    /// Square tiles `tile_size` world units wide, the tile (0, 0) centred at `origin`, x to
    /// the right and y up (bevy_ecs_tilemap's square maps, where a `Pos` is a `TilePos`).
    pub fn square(tile_size: f32, origin: Vec2) -> Self {
        Self::new(tile_size, move |p| {
            origin + Vec2::new(p.x as f32, p.y as f32) * tile_size
        })
    }

    /// Any layout (hex, isometric, y down): `center(tile)` is the tile's centre in the world,
    /// and `tile_size` the size the marks are drawn at.
    pub fn new(tile_size: f32, center: impl Fn(Pos) -> Vec2 + Send + Sync + 'static) -> Self {
        Self {
            tile_size,
            center: Arc::new(center),
        }
    }
}

impl Plugin for TilewalkDebugPlugin {
    fn build(&self, app: &mut App) {
        app.insert_resource(Layout {
            tile_size: self.tile_size,
            center: self.center.clone(),
        })
        .init_resource::<TilewalkDebug>()
        .init_resource::<Refused>()
        .register_type::<TilewalkDebug>()
        .add_systems(
            PostUpdate,
            (
                record_searches,
                draw_searched,
                draw_paths,
                (collect_refusals, draw_refusals).chain(),
            ),
        );
    }
}

/// What the debug plugin draws; all of it by default.
#[derive(Resource, Reflect, Clone, Copy, Debug, PartialEq, Eq)]
#[reflect(Resource, Default, Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct TilewalkDebug {
    /// Each walking unit's way on, from where it is drawn through the tiles left.
    pub paths: bool,
    /// A ring on each path's goal and a dot on its other waypoints.
    pub goals: bool,
    /// A cross on a refused order's goal, for [`REFUSAL_SECONDS`].
    pub refusals: bool,
    /// The cells the newest recorded search expanded (turns [`RecordSearches`] on).
    pub searched: bool,
}

impl Default for TilewalkDebug {
    fn default() -> Self {
        Self {
            paths: true,
            goals: true,
            refusals: true,
            searched: true,
        }
    }
}

/// Where tiles are in the world.
#[derive(Resource, Clone)]
struct Layout {
    tile_size: f32,
    center: Arc<dyn Fn(Pos) -> Vec2 + Send + Sync>,
}

/// The refused orders' goals still marked, with the seconds each has left.
#[derive(Resource, Default)]
struct Refused(Vec<(Pos, f32)>);

/// A unit's colour: its side's ([`Side::color`](crate::Side::color)); grey for a team past
/// the sides.
fn team_color(sides: &Sides, team: Option<&Team>) -> Color {
    let team = team.copied().unwrap_or_default();
    sides.get(team).map_or(colors::NEUTRAL, |s| s.color)
}

fn record_searches(settings: Res<TilewalkDebug>, record: Option<ResMut<RecordSearches>>) {
    if let Some(mut record) = record
        && settings.searched
        && !record.0
    {
        record.0 = true;
    }
}

fn draw_paths(
    mut gizmos: Gizmos,
    settings: Res<TilewalkDebug>,
    layout: Res<Layout>,
    units: Query<(&Path, &Tile, &Motion, Option<&Team>)>,
    sides: Res<Sides>,
) {
    let center = |p: Pos| (layout.center)(p);
    for (path, tile, motion, team) in &units {
        let color = team_color(&sides, team);
        if settings.paths {
            let here = motion.position(tile.0, center);
            let ahead = path.remaining().iter().copied().filter(|&p| p != tile.0);
            gizmos.linestrip_2d(
                std::iter::once(here)
                    .chain(std::iter::once(center(tile.0)).chain(ahead.map(center))),
                color,
            );
        }
        if settings.goals && !path.making_way {
            let goal = path.goal();
            gizmos.circle_2d(center(goal), layout.tile_size * 0.35, color);
            for &i in &path.waypoints {
                if path.cells[i] != goal {
                    gizmos.circle_2d(center(path.cells[i]), layout.tile_size * 0.1, color);
                }
            }
        }
    }
}

fn collect_refusals(
    mut refusals: MessageReader<OrderRefused>,
    mut refused: ResMut<Refused>,
    time: Res<Time>,
) {
    let elapsed = time.delta_secs();
    refused.0.retain_mut(|(_, left)| {
        *left -= elapsed;
        *left > 0.0
    });
    refused
        .0
        .extend(refusals.read().map(|r| (r.goal, REFUSAL_SECONDS)));
}

fn draw_refusals(
    mut gizmos: Gizmos,
    settings: Res<TilewalkDebug>,
    layout: Res<Layout>,
    refused: Res<Refused>,
) {
    if !settings.refusals {
        return;
    }
    let half = layout.tile_size * 0.35;
    for &(goal, _) in &refused.0 {
        let c = (layout.center)(goal);
        gizmos.line_2d(
            c + Vec2::new(-half, -half),
            c + Vec2::new(half, half),
            colors::REFUSED,
        );
        gizmos.line_2d(
            c + Vec2::new(-half, half),
            c + Vec2::new(half, -half),
            colors::REFUSED,
        );
    }
}

fn draw_searched(
    mut gizmos: Gizmos,
    settings: Res<TilewalkDebug>,
    layout: Res<Layout>,
    searches: Option<Res<Searches>>,
) {
    let Some(searches) = searches.filter(|_| settings.searched) else {
        return;
    };
    let Some(newest) = searches.0.iter().rev().find(|s| !s.expansions.is_empty()) else {
        return;
    };
    let size = Vec2::splat(layout.tile_size * 0.6);
    for &cell in &newest.expansions {
        gizmos.rect_2d((layout.center)(cell), size, colors::SEARCHED);
    }
}
