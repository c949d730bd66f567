//! The 2D camera: fits the map when a level starts and on `Home`; centres on the selection
//! with `F`; pans with WASD/arrows and middle-drag; zooms toward the cursor with the wheel.
//! It never leaves the map: the screen's centre always shows a tile.

use bevy::input::mouse::{AccumulatedMouseMotion, AccumulatedMouseScroll, MouseScrollUnit};
use bevy::prelude::*;
use bevy::window::PrimaryWindow;

use super::Cursor;
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
    app.add_systems(Startup, spawn_camera).add_systems(
        Update,
        (
            fit_level.run_if(resource_added::<Level>.or_else(fit_requested)),
            centre_on_selection,
            (pan_with_keys, pan_with_middle_drag, zoom_with_wheel),
            clamp_to_map,
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

/// Screen pixels kept free for the HUD above and below the map when it is fitted.
const HUD_TOP_PX: f32 = 96.0;
const HUD_BOTTOM_PX: f32 = 40.0;

fn fit_requested(keys: Res<ButtonInput<KeyCode>>) -> bool {
    keys.just_pressed(KeyCode::Home)
}

/// The scale at which the whole map shows between the HUD panels.
fn fitting_scale(level: &Level, window: &Window) -> f32 {
    let room = Vec2::new(
        window.width() - 16.0,
        window.height() - HUD_TOP_PX - HUD_BOTTOM_PX,
    )
    .max(Vec2::splat(100.0));
    (level.geometry().extent() / room).max_element()
}

/// Zooms so all of the map shows between the HUD panels, and centres it there.
fn fit_level(
    level: Res<Level>,
    window: Single<&Window, With<PrimaryWindow>>,
    camera: Single<(&mut Transform, &mut Projection), With<Camera2d>>,
) {
    let (mut transform, mut projection) = camera.into_inner();
    let Projection::Orthographic(ortho) = &mut *projection else {
        return;
    };
    ortho.scale = fitting_scale(&level, &window);
    // Shift the view up so the map sits midway between the panels, not under the top one.
    let shift = (HUD_TOP_PX - HUD_BOTTOM_PX) / 2.0 * ortho.scale;
    let size = level.geometry().extent();
    transform.translation = (size / 2.0 + Vec2::Y * shift).extend(transform.translation.z);
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
    // `S` stops selected units; with nothing selected it pans like the others.
    let s_pans = selected.is_empty();
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
    window: Single<&Window, With<PrimaryWindow>>,
    camera: Single<(&mut Transform, &mut Projection), With<Camera2d>>,
) {
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
    let most = fitting_scale(&level, &window).max(1.0) * MAX_SCALE_OVER_FIT;
    let scale = (ortho.scale * (1.0 - ZOOM_STEP).powf(notches)).clamp(MIN_SCALE, most);
    if let Some(anchor) = cursor.world {
        let centre = transform.translation.truncate();
        let moved = anchor + (centre - anchor) * (scale / ortho.scale);
        transform.translation = moved.extend(transform.translation.z);
    }
    ortho.scale = scale;
}

/// Keeps the screen's centre over the map, wherever panning, zooming or `F` took it.
fn clamp_to_map(level: Res<Level>, mut camera: Single<&mut Transform, With<Camera2d>>) {
    let extent = level.geometry().extent();
    let centre = camera.translation.truncate().clamp(Vec2::ZERO, extent);
    if centre != camera.translation.truncate() {
        camera.translation = centre.extend(camera.translation.z);
    }
}
