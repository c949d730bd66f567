//! Pointer and keyboard input turned into selection and orders: left click selects (through
//! bevy_picking), shift adds, a dragged box selects several, clicking empty ground
//! deselects; right click orders, shift+right click adds a waypoint; `S` stops.

use bevy::prelude::*;
use bevy::ui::RelativeCursorPosition;
use bevy::window::PrimaryWindow;
use bevy_tilewalk::{MoveOrder, RecordSearches, Searches, StopOrder};

use super::paint::Painter;
use super::{Cursor, DragBox, LastOrder, Notice, SearchView, TakesClicks};
use crate::AppSystems;
use crate::convert::TILE_SIZE;
use crate::level::Level;
use crate::tactics::Mode;
use crate::units::{Selected, Unit};

/// A drag shorter than this (in screen pixels) is a click.
const DRAG_THRESHOLD_PX: f32 = 6.0;

pub(super) fn plugin(app: &mut App) {
    app.add_systems(
        Update,
        (
            track_cursor,
            // Drags paint while painting (view::paint); the lab has no units to select.
            select_with_box.run_if(not_painting),
            // Tactics mode gives its own orders (view::tactics).
            (order_selected.run_if(not_painting), keyboard_commands)
                .run_if(in_state(Mode::RealTime)),
        )
            .chain()
            .in_set(AppSystems::RecordInput)
            .run_if(resource_exists::<Level>),
    );
}

fn not_painting(painter: Res<Painter>, mode: Res<State<Mode>>) -> bool {
    !painter.painting(mode.get())
}

fn shift(keys: &ButtonInput<KeyCode>) -> bool {
    keys.any_pressed([KeyCode::ShiftLeft, KeyCode::ShiftRight])
}

fn track_cursor(
    mut cursor: ResMut<Cursor>,
    level: Res<Level>,
    window: Single<&Window, With<PrimaryWindow>>,
    camera: Single<(&Camera, &GlobalTransform)>,
    panels: Query<(&RelativeCursorPosition, &Visibility), With<TakesClicks>>,
) {
    let (camera, transform) = *camera;
    cursor.over_ui = panels
        .iter()
        .any(|(over, visibility)| over.cursor_over() && visibility != Visibility::Hidden);
    cursor.world = window
        .cursor_position()
        .filter(|_| !cursor.over_ui)
        .and_then(|p| camera.viewport_to_world_2d(transform, p).ok());
    cursor.tile = cursor.world.and_then(|w| level.geometry().cell_at(w));
}

/// Left click on a unit (bevy_picking): select it; with shift, add it to (or take it out of)
/// the selection.
pub(super) fn on_unit_click(
    mut click: On<Pointer<Click>>,
    mut commands: Commands,
    keys: Res<ButtonInput<KeyCode>>,
    selected: Query<Entity, With<Selected>>,
) {
    if click.button != PointerButton::Primary {
        return;
    }
    click.propagate(false);
    let unit = click.entity;
    let was_selected = selected.contains(unit);
    if shift(&keys) {
        if was_selected {
            commands.entity(unit).remove::<Selected>();
        } else {
            commands.entity(unit).insert(Selected);
        }
        return;
    }
    for other in &selected {
        commands.entity(other).remove::<Selected>();
    }
    commands.entity(unit).insert(Selected);
}

/// Box selection, and deselection by clicking empty ground.
fn select_with_box(
    mut commands: Commands,
    buttons: Res<ButtonInput<MouseButton>>,
    keys: Res<ButtonInput<KeyCode>>,
    cursor: Res<Cursor>,
    mut drag: ResMut<DragBox>,
    projection: Single<&Projection, With<Camera2d>>,
    units: Query<(Entity, &Transform, Has<Selected>), With<Unit>>,
) {
    let Some(world) = cursor.world else { return };
    if buttons.just_pressed(MouseButton::Left) {
        *drag = DragBox {
            start: Some(world),
            dragging: false,
        };
    }
    let Some(start) = drag.start else { return };
    let scale = match *projection {
        Projection::Orthographic(ortho) => ortho.scale,
        _ => 1.0,
    };
    if world.distance(start) / scale > DRAG_THRESHOLD_PX {
        drag.dragging = true;
    }
    if !buttons.just_released(MouseButton::Left) {
        return;
    }
    let over_unit = |p: Vec2| {
        units
            .iter()
            .any(|(_, t, _)| t.translation.truncate().distance(p) < TILE_SIZE * 0.45)
    };
    if drag.dragging {
        let area = Rect::from_corners(start, world);
        for (entity, transform, selected) in &units {
            let inside = area.contains(transform.translation.truncate());
            if inside {
                commands.entity(entity).insert(Selected);
            } else if selected && !shift(&keys) {
                commands.entity(entity).remove::<Selected>();
            }
        }
    } else if !over_unit(world) && !shift(&keys) {
        for (entity, ..) in units.iter().filter(|u| u.2) {
            commands.entity(entity).remove::<Selected>();
        }
    }
    *drag = DragBox::default();
}

fn order_selected(
    buttons: Res<ButtonInput<MouseButton>>,
    keys: Res<ButtonInput<KeyCode>>,
    cursor: Res<Cursor>,
    selected: Query<Entity, With<Selected>>,
    mut orders: MessageWriter<MoveOrder>,
    mut notice: ResMut<Notice>,
    mut last: ResMut<LastOrder>,
) {
    if !buttons.just_pressed(MouseButton::Right) {
        return;
    }
    let units: Vec<Entity> = selected.iter().collect();
    if units.is_empty() {
        notice.say("select a unit first (left click, or drag a box)");
        return;
    }
    if cursor.over_ui {
        return;
    }
    let Some(goal) = cursor.tile else {
        notice.say("that is outside the map");
        return;
    };
    *last = LastOrder {
        units: units.len(),
        goal: Some(goal),
    };
    orders.write(MoveOrder {
        units,
        goal,
        append: shift(&keys),
    });
}

fn keyboard_commands(
    keys: Res<ButtonInput<KeyCode>>,
    selected: Query<Entity, With<Selected>>,
    mut stops: MessageWriter<StopOrder>,
    mut view: ResMut<SearchView>,
    searches: Res<Searches>,
    mut record: ResMut<RecordSearches>,
) {
    let ctrl = keys.any_pressed([KeyCode::ControlLeft, KeyCode::ControlRight]);
    // Ctrl+S saves a painted map (view::paint).
    if keys.just_pressed(KeyCode::KeyS) && !ctrl && !selected.is_empty() {
        stops.write(StopOrder {
            units: selected.iter().collect(),
        });
    }
    if keys.just_pressed(KeyCode::KeyE) {
        // Off, then each search of the last order in turn, then off again.
        view.0 = match view.0 {
            None => Some(0),
            Some(i) if i + 1 < searches.0.len() => Some(i + 1),
            Some(_) => None,
        };
        // Keep every search's expanded cells only while they are shown.
        record.0 = view.0.is_some();
    }
}
