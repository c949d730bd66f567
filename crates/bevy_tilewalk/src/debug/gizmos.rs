//! Debug drawing: gizmos for each unit's path and goal, orders refused, and
//! the cells the last search expanded, on any map layout. It draws with Bevy's gizmos, so the
//! host needs a camera and Bevy's gizmo rendering (its default features have both).

use std::sync::Arc;

use bevy::ecs::system::SystemParam;
use bevy::prelude::*;
use tilewalk_path::Pos;

use crate::layout::TileLayout;
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
/// [`TilewalkPlugin`](crate::TilewalkPlugin). Its `default()` draws where the world's
/// [`TileLayout`] puts tiles (nothing while there is none); [`TilewalkDebugPlugin::new`]
/// takes a function of your own for a layout it does not know.
///
/// ```no_run
/// use bevy::prelude::*;
/// use bevy_tilewalk::prelude::*;
///
/// App::new()
///     .add_plugins((DefaultPlugins, TilewalkPlugin::default(), TilewalkDebugPlugin::default()))
///     // 32-pixel tiles, the tile (0, 0) centred on the world's origin, y up: the debug
///     // plugin draws there, and units' `Transform`s are placed there.
///     .add_systems(Startup, |mut commands: Commands| {
///         commands.spawn(TileLayout::square(32.0));
///     })
///     .run();
/// ```
///
/// What it draws can be switched at run time in the [`TilewalkDebug`] resource.
#[derive(Clone, Default)]
pub struct TilewalkDebugPlugin {
    /// The host's own layout: the marks' size and each tile's centre.
    custom: Option<(f32, Center)>,
}

/// A tile's centre in the world.
type Center = Arc<dyn Fn(Pos) -> Vec2 + Send + Sync>;

impl TilewalkDebugPlugin {
    /// Square tiles `tile_size` world units wide, the tile (0, 0) centred at `origin`, x to
    /// the right and y up (bevy_ecs_tilemap's square maps, where a `Pos` is a `TilePos`),
    /// whatever [`TileLayout`] the world has.
    pub fn square(tile_size: f32, origin: Vec2) -> Self {
        let layout = TileLayout::square(tile_size).with_origin(origin);
        Self::new(tile_size, move |p| layout.center(p))
    }

    /// Any layout (a projection of your own, several maps side by side): `center(tile)` is
    /// the tile's centre in the world, and `tile_size` the size the marks are drawn at,
    /// whatever [`TileLayout`] the world has.
    pub fn new(tile_size: f32, center: impl Fn(Pos) -> Vec2 + Send + Sync + 'static) -> Self {
        Self {
            custom: Some((tile_size, Arc::new(center))),
        }
    }
}

impl Plugin for TilewalkDebugPlugin {
    fn build(&self, app: &mut App) {
        app.insert_resource(Custom(self.custom.clone()))
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

/// The host's own layout, if it gave one ([`TilewalkDebugPlugin::new`]).
#[derive(Resource, Clone)]
struct Custom(Option<(f32, Center)>);

/// Where tiles are drawn: the host's own layout, else the world's one [`TileLayout`].
#[derive(SystemParam)]
struct Layout<'w, 's> {
    custom: Res<'w, Custom>,
    layouts: Query<'w, 's, &'static TileLayout>,
}

/// The marks' size and each tile's centre, for one frame's drawing.
enum Drawn<'a> {
    Custom(f32, &'a (dyn Fn(Pos) -> Vec2 + Send + Sync)),
    Layout(&'a TileLayout),
}

impl Layout<'_, '_> {
    /// How to draw this frame; `None` without a layout (or with several).
    fn get(&self) -> Option<Drawn<'_>> {
        match &self.custom.0 {
            Some((size, center)) => Some(Drawn::Custom(*size, center.as_ref())),
            None => self.layouts.single().ok().map(Drawn::Layout),
        }
    }
}

impl Drawn<'_> {
    fn tile_size(&self) -> f32 {
        match self {
            Self::Custom(size, _) => *size,
            Self::Layout(layout) => layout.mark_size(),
        }
    }

    fn center(&self, tile: Pos) -> Vec2 {
        match self {
            Self::Custom(_, center) => center(tile),
            Self::Layout(layout) => layout.center(tile),
        }
    }
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
    layout: Layout,
    units: Query<(&Path, &Tile, &Motion, Option<&Team>)>,
    sides: Res<Sides>,
) {
    let Some(layout) = layout.get() else {
        return;
    };
    let center = |p: Pos| layout.center(p);
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
            gizmos.circle_2d(center(goal), layout.tile_size() * 0.35, color);
            for &i in &path.waypoints {
                if path.cells[i] != goal {
                    gizmos.circle_2d(center(path.cells[i]), layout.tile_size() * 0.1, color);
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
    layout: Layout,
    refused: Res<Refused>,
) {
    let Some(layout) = layout.get().filter(|_| settings.refusals) else {
        return;
    };
    let half = layout.tile_size() * 0.35;
    for &(goal, _) in &refused.0 {
        let c = layout.center(goal);
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
    layout: Layout,
    searches: Option<Res<Searches>>,
) {
    let (Some(layout), Some(searches)) = (layout.get(), searches.filter(|_| settings.searched))
    else {
        return;
    };
    let Some(newest) = searches.0.iter().rev().find(|s| !s.expansions.is_empty()) else {
        return;
    };
    let size = Vec2::splat(layout.tile_size() * 0.6);
    for &cell in &newest.expansions {
        gizmos.rect_2d(layout.center(cell), size, colors::SEARCHED);
    }
}
