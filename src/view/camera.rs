//! The 2D camera: fits the map when a level starts and on `Home`; centres on the selection
//! with `F`; pans with WASD/arrows and middle-drag; zooms toward the cursor with the wheel.
//! It never leaves the map: the map area's centre (view::layout) always shows a tile.

use bevy::ecs::system::SystemParam;
use bevy::input::mouse::{AccumulatedMouseMotion, AccumulatedMouseScroll, MouseScrollUnit};
use bevy::prelude::*;
use bevy::ui::UiGlobalTransform;
use bevy::window::PrimaryWindow;

use super::Cursor;
use super::layout::{MapArea, screen_rect};
use crate::AppSystems;
use crate::level::Level;
use crate::units::Selected;

const PAN_SCREENS_PER_SEC: f32 = 0.8;
const ZOOM_STEP: f32 = 0.12;
/// The closest zoom: a tile 8 times its art's size.
const MIN_SCALE: f32 = 1.0 / 8.0;
/// How far out the wheel zooms, as a multiple of the scale that fits the whole map.
const MAX_SCALE_OVER_FIT: f32 = 2.0;

pub(super) fn plugin(app: &mut App) {
    app.init_resource::<LastFit>()
        .add_systems(Startup, spawn_camera)
        .add_systems(
            Update,
            (
                fit_level,
                (
                    centre_on_selection,
                    (pan_with_keys, pan_with_middle_drag, zoom_with_wheel),
                    clamp_to_map,
                )
                    .chain()
                    .run_if(fitted),
            )
                .chain()
                .in_set(AppSystems::RecordInput)
                .run_if(resource_exists::<Level>),
        );
}

/// The camera draws without multisampling: tiles and units are squares on the tile grid,
/// with no slanted edges to smooth, and on a machine without a GPU (lavapipe draws in
/// software) Bevy's default of 4 samples a pixel takes most of each frame's time.
fn spawn_camera(mut commands: Commands) {
    commands.spawn((Name::new("Camera"), Camera2d, Msaa::Off));
}

/// Logical pixels left free around the map when it is fitted, inside the map area.
const FIT_MARGIN_PX: f32 = 8.0;

/// The map area's rectangle in the window (view::layout), in logical pixels; the whole
/// window before the layout is first computed.
#[derive(SystemParam)]
struct MapRect<'w, 's> {
    window: Single<'w, 's, &'static Window, With<PrimaryWindow>>,
    area: Single<'w, 's, (&'static ComputedNode, &'static UiGlobalTransform), With<MapArea>>,
}

impl MapRect<'_, '_> {
    fn get(&self) -> Rect {
        self.laid_out().unwrap_or(Rect::new(
            0.0,
            0.0,
            self.window.width(),
            self.window.height(),
        ))
    }

    /// The map area's rectangle once the UI layout has placed it.
    fn laid_out(&self) -> Option<Rect> {
        let (node, place) = *self.area;
        screen_rect(node, place)
    }

    /// How far the map area's centre is from the window's, in world units at `scale`
    /// (world y points up, screen y down).
    fn offset(&self, scale: f32) -> Vec2 {
        let centre = self.get().center();
        let window = Vec2::new(self.window.width(), self.window.height()) / 2.0;
        Vec2::new(centre.x - window.x, window.y - centre.y) * scale
    }
}

/// The scale at which the whole map shows in the map area.
fn fitting_scale(level: &Level, area: Rect) -> f32 {
    let room = (area.size() - 2.0 * FIT_MARGIN_PX).max(Vec2::splat(100.0));
    (level.geometry().extent() / room).max_element()
}

/// The camera as the last fit left it, so that a change of the layout (a panel shown, the
/// window resized) fits again while nobody has moved the camera since. `None` until the
/// first fit: the camera stays put, and the view is not reported, until then.
#[derive(Resource, Default)]
pub(super) struct LastFit {
    camera: Option<(Vec3, f32)>,
    area: Rect,
}

/// Whether the camera has been fitted to the map area once.
pub(super) fn fitted(last: Res<LastFit>) -> bool {
    last.camera.is_some()
}

/// Zooms so all of the map shows in the map area, and centres it there: when a level starts
/// (once the UI layout has placed the map area: a fit to the whole window first would show
/// the map under the panels for a frame, and report a view that is not the player's), on
/// `Home`, and when the map area changes while the view is still the fitted one.
fn fit_level(
    level: Res<Level>,
    keys: Res<ButtonInput<KeyCode>>,
    area: MapRect,
    camera: Single<(&mut Transform, &mut Projection), With<Camera2d>>,
    mut last: ResMut<LastFit>,
) {
    let (mut transform, mut projection) = camera.into_inner();
    let Projection::Orthographic(ortho) = &mut *projection else {
        return;
    };
    let Some(rect) = area.laid_out() else {
        return;
    };
    let still_fitted = last.camera == Some((transform.translation, ortho.scale));
    let asked = last.camera.is_none() || level.is_added() || keys.just_pressed(KeyCode::Home);
    if !(asked || (still_fitted && last.area != rect)) {
        return;
    }
    ortho.scale = fitting_scale(&level, rect);
    let centre = level.geometry().extent() / 2.0 - area.offset(ortho.scale);
    transform.translation = centre.extend(transform.translation.z);
    *last = LastFit {
        camera: Some((transform.translation, ortho.scale)),
        area: rect,
    };
}

/// `F`: the camera centres on the selected units.
fn centre_on_selection(
    keys: Res<ButtonInput<KeyCode>>,
    selected: Query<&Transform, (With<Selected>, Without<Camera2d>)>,
    mut camera: Single<&mut Transform, With<Camera2d>>,
) {
    if !keys.just_pressed(KeyCode::KeyF) || selected.is_empty() {
        return;
    }
    let sum: Vec2 = selected.iter().map(|t| t.translation.truncate()).sum();
    let centre = sum / selected.iter().len() as f32;
    camera.translation = centre.extend(camera.translation.z);
}

fn pan_with_keys(
    keys: Res<ButtonInput<KeyCode>>,
    time: Res<Time>,
    window: Single<&Window, With<PrimaryWindow>>,
    selected: Query<(), With<Selected>>,
    camera: Single<(&mut Transform, &Projection), With<Camera2d>>,
) {
    let (mut transform, projection) = camera.into_inner();
    let Projection::Orthographic(ortho) = projection else {
        return;
    };
    // `S` stops selected units; with nothing selected it pans like the others (Ctrl+S saves).
    let s_pans = selected.is_empty() && !super::ctrl(&keys);
    let mut direction = Vec2::ZERO;
    for (key, step) in [
        (KeyCode::KeyW, Vec2::Y),
        (KeyCode::ArrowUp, Vec2::Y),
        (KeyCode::ArrowDown, -Vec2::Y),
        (KeyCode::KeyA, -Vec2::X),
        (KeyCode::ArrowLeft, -Vec2::X),
        (KeyCode::KeyD, Vec2::X),
        (KeyCode::ArrowRight, Vec2::X),
    ] {
        if keys.pressed(key) {
            direction += step;
        }
    }
    if s_pans && keys.pressed(KeyCode::KeyS) {
        direction -= Vec2::Y;
    }
    let speed = PAN_SCREENS_PER_SEC * window.width().max(window.height()) * ortho.scale;
    transform.translation +=
        (direction.normalize_or_zero() * speed * time.delta_secs()).extend(0.0);
}

fn pan_with_middle_drag(
    buttons: Res<ButtonInput<MouseButton>>,
    motion: Res<AccumulatedMouseMotion>,
    camera: Single<(&mut Transform, &Projection), With<Camera2d>>,
) {
    let (mut transform, projection) = camera.into_inner();
    if let Projection::Orthographic(ortho) = projection
        && buttons.pressed(MouseButton::Middle)
    {
        transform.translation += Vec3::new(-motion.delta.x, motion.delta.y, 0.0) * ortho.scale;
    }
}

/// Zooms toward the cursor: the world point under it stays under it.
fn zoom_with_wheel(
    scroll: Res<AccumulatedMouseScroll>,
    cursor: Res<Cursor>,
    level: Res<Level>,
    area: MapRect,
    camera: Single<(&mut Transform, &mut Projection), With<Camera2d>>,
) {
    // The wheel over a panel is the panel's (the lab's scrolls).
    if cursor.over_ui {
        return;
    }
    let notches = match scroll.unit {
        MouseScrollUnit::Line => scroll.delta.y,
        MouseScrollUnit::Pixel => scroll.delta.y / 40.0,
    };
    let (mut transform, mut projection) = camera.into_inner();
    let Projection::Orthographic(ortho) = &mut *projection else {
        return;
    };
    if notches == 0.0 {
        return;
    }
    let most = fitting_scale(&level, area.get()).max(1.0) * MAX_SCALE_OVER_FIT;
    let scale = (ortho.scale * (1.0 - ZOOM_STEP).powf(notches)).clamp(MIN_SCALE, most);
    if let Some(anchor) = cursor.world {
        let centre = transform.translation.truncate();
        let moved = anchor + (centre - anchor) * (scale / ortho.scale);
        transform.translation = moved.extend(transform.translation.z);
    }
    ortho.scale = scale;
}

/// Keeps the map area's centre over the map, wherever panning, zooming or `F` took it.
fn clamp_to_map(
    level: Res<Level>,
    area: MapRect,
    camera: Single<(&mut Transform, &Projection), With<Camera2d>>,
) {
    let (mut transform, projection) = camera.into_inner();
    let Projection::Orthographic(ortho) = projection else {
        return;
    };
    let offset = area.offset(ortho.scale);
    let extent = level.geometry().extent();
    let seen = transform.translation.truncate() + offset;
    let clamped = seen.clamp(Vec2::ZERO, extent);
    if clamped != seen {
        transform.translation = (clamped - offset).extend(transform.translation.z);
    }
}
