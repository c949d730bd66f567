//! What the player sees and touches: the tilemap, unit sprites, the camera, input and the
//! HUD. Everything here only reads the simulation or sends it orders.

mod camera;
mod capture;
mod hud;
mod input;
mod lab;
mod layout;
mod map_panel;
mod minimap;
mod paint;
mod preview;
mod progress;
mod sprites;
mod tactics;
mod terrain_mode;
mod tilemap;

use std::time::Duration;

use bevy::asset::RenderAssetUsages;
use bevy::prelude::*;
use bevy::render::render_resource::{Extent3d, TextureDimension, TextureFormat};
use bevy::render::view::screenshot::Screenshot;
use bevy::window::RequestRedraw;
use bevy::winit::{UpdateMode, WinitSettings};
use bevy_tilewalk::debug::Searches;
use tilewalk_path::{Board, HexLayout, Pos};

use crate::AppSystems;
use crate::convert::{Geometry, Projection, TILE_SIZE};
use crate::level::Level;

pub use capture::ScreenshotPath;
pub use lab::LabEnds;

pub(super) fn plugin(app: &mut App) {
    // Draw on demand: a frame when there is input, while anything moves, and twice a second
    // otherwise (so a file saved in an editor shows up), instead of as fast as possible.
    app.insert_resource(WinitSettings {
        focused_mode: UpdateMode::reactive(Duration::from_millis(500)),
        unfocused_mode: UpdateMode::reactive_low_power(Duration::from_secs(1)),
    })
    .add_systems(Update, keep_drawing.in_set(AppSystems::Hud))
    .add_systems(
        Update,
        fit_search_view
            .run_if(resource_changed::<Searches>)
            .in_set(AppSystems::Present),
    );
    app.init_resource::<Cursor>()
        .init_resource::<Redrawing>()
        .init_resource::<DragBox>()
        .init_resource::<SearchView>()
        .init_resource::<LastOrder>()
        .init_resource::<Notice>()
        .add_systems(
            Update,
            shape_tiles
                .run_if(resource_exists_and_changed::<Level>)
                .in_set(AppSystems::Load),
        )
        .add_plugins((
            bevy_ecs_tilemap::TilemapPlugin,
            tilemap::plugin,
            sprites::plugin,
            layout::plugin,
            camera::plugin,
            capture::plugin,
            input::plugin,
            hud::plugin,
            tactics::plugin,
            minimap::plugin,
        ))
        .add_plugins((
            paint::plugin,
            terrain_mode::plugin,
            map_panel::plugin,
            preview::plugin,
            progress::plugin,
            lab::plugin,
        ));
}

/// Whether Ctrl is held, went down this frame or came up this frame: at a low frame rate a
/// quick Ctrl+S presses and releases both keys between two frames, and only `just_pressed`
/// still says so; or Ctrl goes down before one frame and S goes down and both come up
/// before the next, and only `just_released` does.
pub(super) fn ctrl(keys: &ButtonInput<KeyCode>) -> bool {
    let both = [KeyCode::ControlLeft, KeyCode::ControlRight];
    keys.any_pressed(both) || keys.any_just_pressed(both) || keys.any_just_released(both)
}

/// A panel that takes the clicks over it (the minimap, the lab's panel): they never reach
/// the map.
#[derive(Component, Default)]
pub struct TakesClicks;

/// The pointer at one place: the world point and tile under it, or that it is over a panel
/// that takes clicks ([`TakesClicks`]), where it is on neither.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Spot {
    pub world: Option<Vec2>,
    pub tile: Option<Pos>,
    /// Over a panel that takes clicks: clicks are not for the map.
    pub over_ui: bool,
}

/// Where the pointer is now, and where it was at each mouse button press and release of
/// this frame. At a low frame rate the pointer may move and click within one frame: a
/// click acts where it happened, read from the window's events in their order.
#[derive(Resource, Default, Debug)]
pub struct Cursor {
    pub world: Option<Vec2>,
    pub tile: Option<Pos>,
    /// Over a panel that takes clicks: clicks are not for the map.
    pub over_ui: bool,
    /// This frame's button presses (`true`) and releases, in order, with where they were.
    buttons: Vec<(MouseButton, bool, Spot)>,
}

impl Cursor {
    /// Where `button` was first pressed this frame.
    pub fn pressed(&self, button: MouseButton) -> Option<Spot> {
        self.buttons
            .iter()
            .find(|(b, down, _)| *b == button && *down)
            .map(|(.., spot)| *spot)
    }

    /// Where `button` was last released this frame.
    pub fn released(&self, button: MouseButton) -> Option<Spot> {
        self.buttons
            .iter()
            .rfind(|(b, down, _)| *b == button && !*down)
            .map(|(.., spot)| *spot)
    }
}

/// Whether the game asked for the next frame at once (something moves on screen); if not,
/// the next frame waits for input or a file change, and the HUD says the game is idle.
#[derive(Resource, Default, Debug, PartialEq)]
pub struct Redrawing(pub bool);

/// Units walking or waiting for a path.
type Walking = Or<(With<bevy_tilewalk::Path>, With<bevy_tilewalk::Pending>)>;

/// Asks for the next frame while something on screen changes by itself: units walking or
/// waiting for their paths, a tactics move or strike being shown, an enemy turn, a key held to pan, a marker fading, a notice on screen, a screenshot pending.
fn keep_drawing(
    walking: Query<(), Walking>,
    shows: Query<(), With<crate::tactics::Presenting>>,
    turn: Option<Res<bevy_tilewalk::tactics::Turn>>,
    markers: Query<(), With<sprites::RefusalMarker>>,
    screenshots: Query<(), With<Screenshot>>,
    keys: Res<ButtonInput<KeyCode>>,
    buttons: Res<ButtonInput<MouseButton>>,
    notice: Res<Notice>,
    mut redraw: MessageWriter<RequestRedraw>,
    mut redrawing: ResMut<Redrawing>,
) {
    let enemy_turn = turn.is_some_and(|t| t.team == bevy_tilewalk::Team::RED);
    let busy = !walking.is_empty()
        || !shows.is_empty()
        || enemy_turn
        || !markers.is_empty()
        || !screenshots.is_empty()
        || keys.get_pressed().len() > 0
        || buttons.get_pressed().len() > 0
        || notice.showing();
    if busy {
        redraw.write(RequestRedraw);
    }
    redrawing.set_if_neq(Redrawing(busy));
}

/// A left-button drag under way, from where it started (world coordinates).
#[derive(Resource, Default, Debug)]
pub struct DragBox {
    pub start: Option<Vec2>,
    pub dragging: bool,
}

/// Which search of the last order the search view draws (`E` steps through them and off).
#[derive(Resource, Default, Debug, PartialEq)]
pub struct SearchView(pub Option<usize>);

impl SearchView {
    /// `E`: off, then each of the `searches` in turn, then off again.
    fn step(&mut self, searches: usize) {
        self.0 = match self.0 {
            None => Some(0),
            Some(i) if i + 1 < searches => Some(i + 1),
            Some(_) => None,
        };
    }

    /// Keeps a view that is on pointed at one of the `searches`: a new order replaces the
    /// last one's searches, often with fewer, and a view left past the end would draw
    /// nothing while `E` still stepped through the missing ones before hiding. It shows the
    /// last search instead. (While the new order's searches are still to come there are
    /// none, and the view waits for them.)
    fn fit(&mut self, searches: usize) {
        if let Some(i) = self.0
            && searches > 0
            && i >= searches
        {
            self.0 = Some(searches - 1);
        }
    }
}

/// The search view stays on a search that exists when the searches change.
fn fit_search_view(searches: Res<Searches>, mut view: ResMut<SearchView>) {
    let mut fitted = SearchView(view.0);
    fitted.fit(searches.0.len());
    view.set_if_neq(fitted);
}

/// The player's last move order: how many units it went to, for a summary of refusals.
#[derive(Resource, Default, Debug)]
pub struct LastOrder {
    pub units: usize,
    pub goal: Option<Pos>,
}

/// A selection of more units than this is an army: the view outlines where each unit goes
/// instead of drawing every path (thousands of lines would hide the map and slow every
/// frame).
pub(super) const ARMY_AT: usize = 64;

/// How long a notice stays on screen.
pub(super) const NOTICE_SECS: f32 = 5.0;

/// A short message for the player (why an order was refused, what to do next).
#[derive(Resource, Default, Debug)]
pub struct Notice {
    pub(super) text: String,
    pub(super) shown_for: f32,
    pub(super) hint: String,
}

impl Notice {
    pub fn say(&mut self, text: impl Into<String>) {
        self.text = text.into();
        self.shown_for = 0.0;
    }

    /// Whether a notice is on screen (it goes after [`NOTICE_SECS`]).
    pub fn showing(&self) -> bool {
        self.shown_for < NOTICE_SECS && !self.text.is_empty()
    }

    /// A line about what is under the cursor, shown for this frame only.
    pub fn hint(&mut self, text: impl Into<String>) {
        self.hint = text.into();
    }
}

/// A count with its thousands grouped, as the HUD writes it: `1,500`.
pub(super) fn grouped(n: usize) -> String {
    let digits = n.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, digit) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(digit);
    }
    out
}

/// Images of one tile's shape (a square, a hexagon or a diamond), tinted for tile
/// highlights: the whole tile in white, and its frame.
#[derive(Resource, Debug)]
pub struct TileShape {
    pub image: Handle<Image>,
    /// A frame along the tile's edge: a near-black outer line and a white inner line, clear
    /// inside. Tinted, the inner line takes the tint and the outer one stays dark, so a
    /// framed tile stands out on light terrain and on dark or blue terrain (water) alike.
    pub frame: Handle<Image>,
    pub size: Vec2,
    board: Board,
    projection: Projection,
}

/// How wide each of a [`TileShape`] frame's two lines is, in pixels of the 32 px tile.
const FRAME_LINE_PX: f32 = 2.0;

/// Makes the [`TileShape`] of the level's board (again when the board changes).
fn shape_tiles(
    mut commands: Commands,
    level: Res<Level>,
    shape: Option<Res<TileShape>>,
    mut images: ResMut<Assets<Image>>,
) {
    if shape.is_some_and(|s| s.board == level.board && s.projection == level.projection) {
        return;
    }
    let geometry = level.geometry();
    let size = Vec2::new(geometry.tile_size().x, geometry.tile_size().y);
    let inside = |point: Vec2, inset: f32| {
        // The tile's shape shrunk by `inset` pixels on each side (its scaled copy).
        let point = point * size.x / (size.x - 2.0 * inset);
        (point.abs() * 2.0).cmple(size).all()
            && inside_tile(level.board, level.projection, point, size)
    };
    let tile = paint_tile(size, |point| inside(point, 0.0).then_some([255; 4]));
    let frame = paint_tile(size, |point| {
        if inside(point, 2.0 * FRAME_LINE_PX) || !inside(point, 0.0) {
            None
        } else if inside(point, FRAME_LINE_PX) {
            Some([255, 255, 255, 255])
        } else {
            Some([15, 15, 20, 235])
        }
    });
    commands.insert_resource(TileShape {
        image: images.add(tile),
        frame: images.add(frame),
        size,
        board: level.board,
        projection: level.projection,
    });
}

/// An image of `size` whose pixels `paint` gives from their centre's offset from the
/// image's centre (transparent where it gives none).
fn paint_tile(size: Vec2, paint: impl Fn(Vec2) -> Option<[u8; 4]>) -> Image {
    let (width, height) = (size.x as u32, size.y as u32);
    let mut pixels = Vec::with_capacity((width * height * 4) as usize);
    for y in 0..height {
        for x in 0..width {
            let point = Vec2::new(x as f32 + 0.5, y as f32 + 0.5) - size / 2.0;
            pixels.extend_from_slice(&paint(point).unwrap_or([255, 255, 255, 0]));
        }
    }
    Image::new(
        Extent3d {
            width,
            height,
            depth_or_array_layers: 1,
        },
        TextureDimension::D2,
        pixels,
        TextureFormat::Rgba8UnormSrgb,
        RenderAssetUsages::RENDER_WORLD,
    )
}

/// Whether `point` (from the tile's centre) lies inside a tile of `size` on `board`.
fn inside_tile(board: Board, projection: Projection, point: Vec2, size: Vec2) -> bool {
    if let Projection::Isometric { .. } = projection {
        return point.x.abs() / (size.x / 2.0) + point.y.abs() / (size.y / 2.0) <= 1.0;
    }
    let Board::Hex(layout) = board else {
        return true;
    };
    // A pointy-top hexagon: |x| within the flats, and the two slanted sides.
    let p = match layout {
        HexLayout::OddR | HexLayout::EvenR => point,
        HexLayout::OddQ | HexLayout::EvenQ => Vec2::new(point.y, point.x),
    };
    let (half_width, radius) = (size.x.min(size.y) / 2.0, size.x.max(size.y) / 2.0);
    p.x.abs() <= half_width && p.y.abs() <= radius - p.x.abs() * (radius / 2.0) / half_width
}

/// Draws a way through `cells` (a move's preview) as a line from centre to centre.
pub fn route_line<C: GizmoConfigGroup>(
    gizmos: &mut Gizmos<C>,
    geometry: &Geometry,
    cells: &[Pos],
    color: Color,
) {
    gizmos.linestrip_2d(cells.iter().map(|&p| geometry.center(p)), color);
}

/// Draws the outline of tile `pos`, scaled by `scale` (1 = the tile's own size).
pub fn outline(gizmos: &mut Gizmos, geometry: &Geometry, pos: Pos, scale: f32, color: Color) {
    let centre = geometry.center(pos);
    if let Projection::Isometric { .. } = geometry.projection {
        let size = geometry.tile_size();
        let (x, y) = (size.x / 2.0 * scale, size.y / 2.0 * scale);
        let corners = [
            Vec2::new(0.0, y),
            Vec2::new(x, 0.0),
            Vec2::new(0.0, -y),
            Vec2::new(-x, 0.0),
            Vec2::new(0.0, y),
        ];
        gizmos.linestrip_2d(corners.map(|c| centre + c), color);
        return;
    }
    match geometry.board {
        Board::Square(_) => {
            gizmos.rect_2d(
                Isometry2d::from_translation(centre),
                Vec2::splat(TILE_SIZE * scale),
                color,
            );
        }
        Board::Hex(layout) => {
            // `RegularPolygon`'s first corner points up: a pointy-top hex; turn it for flat tops.
            let turn = match layout {
                HexLayout::OddR | HexLayout::EvenR => 0.0,
                HexLayout::OddQ | HexLayout::EvenQ => std::f32::consts::FRAC_PI_6,
            };
            gizmos.primitive_2d(
                &RegularPolygon::new(TILE_SIZE / 3f32.sqrt() * scale, 6),
                Isometry2d::new(centre, Rot2::radians(turn)),
                color,
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn e_shows_each_search_then_hides() {
        let mut view = SearchView::default();
        let mut presses = Vec::new();
        for _ in 0..4 {
            view.step(3);
            presses.push(view.0);
        }
        assert_eq!(presses, [Some(0), Some(1), Some(2), None]);
        view.step(1);
        view.step(1);
        assert_eq!(view, SearchView(None), "one search: E shows it, E hides it");
    }

    #[test]
    fn after_an_order_with_fewer_searches_one_press_of_e_hides_the_view() {
        // The view on the third search of a group order; then a unit alone is ordered.
        let mut app = App::new();
        app.init_resource::<Searches>()
            .insert_resource(SearchView(Some(2)))
            .add_systems(Update, fit_search_view.run_if(resource_changed::<Searches>));
        let order = |app: &mut App, searches: usize| {
            let mut all = app.world_mut().resource_mut::<Searches>();
            all.0.clear();
            all.0
                .extend((0..searches).map(|_| bevy_tilewalk::debug::SearchRecord::default()));
            app.update();
        };
        order(&mut app, 3);
        assert_eq!(*app.world().resource::<SearchView>(), SearchView(Some(2)));
        // While the new order's search is still to come, the view waits...
        order(&mut app, 0);
        assert_eq!(*app.world().resource::<SearchView>(), SearchView(Some(2)));
        // ...then shows it, and one press of E hides it.
        order(&mut app, 1);
        let mut view = app.world_mut().resource_mut::<SearchView>();
        assert_eq!(*view, SearchView(Some(0)));
        view.step(1);
        assert_eq!(*view, SearchView(None));
    }
}
