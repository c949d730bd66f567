//! The 2D camera: fits the map when a level starts; pans with WASD/arrows and middle-drag,
//! zooms with the wheel.

use bevy::input::mouse::{AccumulatedMouseMotion, AccumulatedMouseScroll, MouseScrollUnit};
use bevy::prelude::*;
use bevy::window::PrimaryWindow;

use crate::AppSystems;
use crate::level::Level;
use crate::units::Selected;

const PAN_SCREENS_PER_SEC: f32 = 0.8;
const ZOOM_STEP: f32 = 0.12;
const MIN_SCALE: f32 = 0.05;
const MAX_SCALE: f32 = 40.0;

pub(super) fn plugin(app: &mut App) {
    app.add_systems(Startup, spawn_camera).add_systems(
        Update,
        (
            fit_level.run_if(resource_added::<Level>),
            (pan_with_keys, pan_with_middle_drag, zoom_with_wheel),
        )
            .chain()
            .in_set(AppSystems::RecordInput),
    );
}

fn spawn_camera(mut commands: Commands) {
    commands.spawn((Name::new("Camera"), Camera2d));
}

/// Screen pixels kept free for the HUD above and below the map when it is fitted.
const HUD_TOP_PX: f32 = 96.0;
const HUD_BOTTOM_PX: f32 = 40.0;

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
    let size = level.geometry().extent();
    let room = Vec2::new(
        window.width() - 16.0,
        window.height() - HUD_TOP_PX - HUD_BOTTOM_PX,
    )
    .max(Vec2::splat(100.0));
    ortho.scale = (size / room).max_element();
    // Shift the view up so the map sits midway between the panels, not under the top one.
    let shift = (HUD_TOP_PX - HUD_BOTTOM_PX) / 2.0 * ortho.scale;
    transform.translation = (size / 2.0 + Vec2::Y * shift).extend(transform.translation.z);
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

fn zoom_with_wheel(
    scroll: Res<AccumulatedMouseScroll>,
    mut projection: Single<&mut Projection, With<Camera2d>>,
) {
    let notches = match scroll.unit {
        MouseScrollUnit::Line => scroll.delta.y,
        MouseScrollUnit::Pixel => scroll.delta.y / 40.0,
    };
    if notches != 0.0
        && let Projection::Orthographic(ortho) = &mut **projection
    {
        ortho.scale = (ortho.scale * (1.0 - ZOOM_STEP).powf(notches)).clamp(MIN_SCALE, MAX_SCALE);
    }
}
