//! Pointer and keyboard input turned into selection and orders: left click selects the unit
//! under the pointer, shift adds, a dragged box selects several, clicking empty ground
//! deselects; right click orders, shift+right click adds a waypoint; `S` stops. Every click
//! acts where the pointer was when the button went down or up, not where it was a frame
//! before.

use bevy::prelude::*;
use bevy::ui::UiGlobalTransform;
use bevy::window::{PrimaryWindow, WindowEvent};
use bevy_tilewalk::debug::{RecordSearches, Searches};
use bevy_tilewalk::{MoveOrder, StopOrder, Team, Unit};

use super::paint::Painter;
use super::progress::SideOrders;
use super::{Cursor, DragBox, LastOrder, Notice, SearchView, Spot, TakesClicks, ctrl};
use crate::AppSystems;
use crate::assets::MapFile;
use crate::convert::TILE_SIZE;
use crate::journal::Journal;
use crate::level::Level;
use crate::tactics::Mode;
use crate::units::Selected;

/// A drag shorter than this (in screen pixels) is a click.
const DRAG_THRESHOLD_PX: f32 = 6.0;

/// A unit's sprite is this many tiles across (times its transform's scale): a click inside
/// it is a click on the unit.
pub(super) const UNIT_SPRITE_TILES: f32 = 1.1;

pub(super) fn plugin(app: &mut App) {
    app.add_systems(
        Update,
        track_cursor
            .in_set(AppSystems::TrackPointer)
            .run_if(resource_exists::<Level>),
    )
    .add_systems(
        Update,
        (
            // Drags paint while painting (view::paint); the lab has no units to select.
            select.run_if(not_painting),
            // Tactics mode gives its own orders (view::tactics).
            (order_selected.run_if(not_painting), keyboard_commands)
                .run_if(in_state(Mode::RealTime)),
        )
            .chain()
            .in_set(AppSystems::RecordInput)
            .run_if(resource_exists::<Level>),
    );
}

pub(super) fn not_painting(painter: Res<Painter>, mode: Res<State<Mode>>) -> bool {
    !painter.painting(mode.get())
}

fn shift(keys: &ButtonInput<KeyCode>) -> bool {
    keys.any_pressed([KeyCode::ShiftLeft, KeyCode::ShiftRight])
}

/// The panels that take clicks: where they are on screen and whether they show.
type Panels<'w, 's> = Query<
    'w,
    's,
    (
        &'static ComputedNode,
        &'static UiGlobalTransform,
        &'static InheritedVisibility,
    ),
    With<TakesClicks>,
>;

/// Reads the window's pointer events of this frame in their order, so that each press and
/// release is placed where it happened, then where the pointer is now.
fn track_cursor(
    mut cursor: ResMut<Cursor>,
    mut events: MessageReader<WindowEvent>,
    mut last_seen: Local<Option<Vec2>>,
    level: Res<Level>,
    window: Single<&Window, With<PrimaryWindow>>,
    camera: Single<(&Camera, &GlobalTransform)>,
    panels: Panels,
) {
    let (camera, transform) = *camera;
    let geometry = level.geometry();
    let spot = |at: Option<Vec2>| {
        let Some(at) = at else {
            return Spot::default();
        };
        // UI nodes are laid out in physical pixels, the pointer in logical ones.
        let physical = at * window.scale_factor();
        let over_ui = panels
            .iter()
            .any(|(node, place, shown)| shown.get() && node.contains_point(*place, physical));
        let world = camera
            .viewport_to_world_2d(transform, at)
            .ok()
            .filter(|_| !over_ui);
        Spot {
            world,
            tile: world.and_then(|w| geometry.cell_at(w)),
            over_ui,
        }
    };
    cursor.buttons.clear();
    for event in events.read() {
        match event {
            WindowEvent::CursorMoved(moved) => *last_seen = Some(moved.position),
            WindowEvent::CursorLeft(_) => *last_seen = None,
            WindowEvent::MouseButtonInput(input) => {
                let at = spot(last_seen.or(window.cursor_position()));
                cursor
                    .buttons
                    .push((input.button, input.state.is_pressed(), at));
            }
            _ => {}
        }
    }
    let now = spot(window.cursor_position());
    (cursor.world, cursor.tile, cursor.over_ui) = (now.world, now.tile, now.over_ui);
}

/// Clicks and box selection: a click on a unit selects it (with shift, adds it to or takes
/// it out of the selection); a click on empty ground deselects; a drag selects the units
/// inside its box.
fn select(
    mut commands: Commands,
    keys: Res<ButtonInput<KeyCode>>,
    cursor: Res<Cursor>,
    mut drag: ResMut<DragBox>,
    projection: Single<&Projection, With<Camera2d>>,
    units: Query<(Entity, &Transform, Has<Selected>), With<Unit>>,
) {
    if let Some(pressed) = cursor.pressed(MouseButton::Left) {
        *drag = DragBox {
            start: pressed.world,
            dragging: false,
        };
    }
    let Some(start) = drag.start else { return };
    let released = cursor.released(MouseButton::Left);
    let Some(world) = released.map_or(cursor.world, |at| at.world) else {
        if released.is_some() {
            *drag = DragBox::default();
        }
        return;
    };
    let scale = match *projection {
        Projection::Orthographic(ortho) => ortho.scale,
        _ => 1.0,
    };
    if world.distance(start) / scale > DRAG_THRESHOLD_PX {
        drag.dragging = true;
    }
    if released.is_none() {
        return;
    }
    let shift = shift(&keys);
    if drag.dragging {
        let area = Rect::from_corners(start, world);
        for (entity, transform, selected) in &units {
            let inside = area.contains(transform.translation.truncate());
            if inside {
                commands.entity(entity).insert(Selected);
            } else if selected && !shift {
                commands.entity(entity).remove::<Selected>();
            }
        }
    } else {
        click_unit(&mut commands, &units, world, shift);
    }
    *drag = DragBox::default();
}

/// A click at `world`: the unit whose sprite is under it (the nearest, where sprites
/// overlap) becomes the selection, or with `shift` is added to or taken out of it; a click
/// on no unit deselects all, unless with `shift`.
fn click_unit(
    commands: &mut Commands,
    units: &Query<(Entity, &Transform, Has<Selected>), With<Unit>>,
    world: Vec2,
    shift: bool,
) {
    let hit = units
        .iter()
        .filter_map(|(entity, transform, selected)| {
            let offset = (transform.translation.truncate() - world).abs();
            let half = TILE_SIZE * UNIT_SPRITE_TILES / 2.0 * transform.scale.x;
            (offset.max_element() <= half).then_some((offset.length(), entity, selected))
        })
        .min_by(|a, b| a.0.total_cmp(&b.0));
    match hit {
        Some((_, unit, was_selected)) if shift => {
            if was_selected {
                commands.entity(unit).remove::<Selected>();
            } else {
                commands.entity(unit).insert(Selected);
            }
        }
        Some((_, unit, _)) => {
            for (other, ..) in units.iter().filter(|u| u.2 && u.0 != unit) {
                commands.entity(other).remove::<Selected>();
            }
            commands.entity(unit).insert(Selected);
        }
        None if !shift => {
            for (entity, ..) in units.iter().filter(|u| u.2) {
                commands.entity(entity).remove::<Selected>();
            }
        }
        None => {}
    }
}

fn order_selected(
    keys: Res<ButtonInput<KeyCode>>,
    cursor: Res<Cursor>,
    selected: Query<(Entity, &Team, &Name), With<Selected>>,
    any_unit: Query<(), With<Unit>>,
    mut orders: MessageWriter<MoveOrder>,
    mut notice: ResMut<Notice>,
    (mut last, mut sides, journal): (ResMut<LastOrder>, ResMut<SideOrders>, Res<Journal>),
    map_file: Option<Res<MapFile>>,
) {
    let Some(at) = cursor.pressed(MouseButton::Right) else {
        return;
    };
    let units: Vec<Entity> = selected.iter().map(|u| u.0).collect();
    if any_unit.is_empty() {
        notice.say(no_units(map_file.as_deref().map(|m| m.0.as_path())));
        return;
    }
    if units.is_empty() {
        notice.say("select a unit first (left click, or drag a box)");
        return;
    }
    if at.over_ui {
        return;
    }
    let Some(goal) = at.tile else {
        notice.say("that is outside the map");
        return;
    };
    *last = LastOrder {
        units: units.len(),
        goal: Some(goal),
    };
    let named: Vec<(Entity, Team, String)> = selected
        .iter()
        .map(|(e, &team, name)| (e, team, name.as_str().to_owned()))
        .collect();
    sides.ordered(&named, journal.0.len());
    orders.write(MoveOrder::new(units, goal).with_append(shift(&keys)));
}

/// What a map without units is told: how to add some in the tool the map is made with.
pub(super) fn no_units(map: Option<&std::path::Path>) -> String {
    format!(
        "this map has no units to order: {}",
        super::map_panel::MapFormat::of(map).units_fix()
    )
}

fn keyboard_commands(
    keys: Res<ButtonInput<KeyCode>>,
    selected: Query<(Entity, &Name), With<Selected>>,
    walking: Query<(), super::Walking>,
    mut stops: MessageWriter<StopOrder>,
    (mut view, searches, mut record): (ResMut<SearchView>, Res<Searches>, ResMut<RecordSearches>),
    (mut notice, mut sides): (ResMut<Notice>, ResMut<SideOrders>),
) {
    // Ctrl+S saves a painted map (view::paint).
    if keys.just_pressed(KeyCode::KeyS) && !ctrl(&keys) && !selected.is_empty() {
        stops.write(StopOrder::new(selected.iter().map(|u| u.0)));
        let moving: Vec<(Entity, &str)> = selected
            .iter()
            .filter(|u| walking.contains(u.0))
            .map(|(e, name)| (e, name.as_str()))
            .collect();
        let names: Vec<&str> = moving.iter().map(|u| u.1).collect();
        notice.say(stopped(&names, selected.iter().len()));
        sides.stopped(moving.iter().map(|u| u.0).collect::<Vec<_>>());
    }
    if keys.just_pressed(KeyCode::KeyE) {
        // A group order is planned for all its units at once: its searches have no cells.
        if searches
            .0
            .back()
            .is_some_and(|s| s.algorithm == GROUP_ORDER)
        {
            view.0 = None;
            notice.say(
                "the last order was a group order, planned for all its units at once: it has no search cells to show (an order of one unit has)",
            );
        } else {
            view.step(searches.0.len());
        }
        // Keep every search's expanded cells only while they are shown.
        record.0 = view.0.is_some();
    }
}

/// The name the plugin gives a group order's search records.
pub(super) const GROUP_ORDER: &str = "group order";

/// What `S` says: the units it stopped (named, or counted past [`NAMED_STOPPED`]), or that
/// none of the `selected` was moving.
fn stopped(walking: &[&str], selected: usize) -> String {
    let mut names = walking.to_vec();
    names.sort_unstable();
    match names.len() {
        0 if selected == 1 => "nothing to stop: the selected unit stands still".to_owned(),
        0 => "nothing to stop: the selected units stand still".to_owned(),
        n if n > NAMED_STOPPED => format!("stopped {} units", super::grouped(n)),
        _ => format!("stopped {}", names.join(", ")),
    }
}

/// The most units `S` names; more are counted.
const NAMED_STOPPED: usize = 6;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn s_names_the_units_it_stopped_or_counts_an_army() {
        assert_eq!(stopped(&["knight", "archer"], 3), "stopped archer, knight");
        assert_eq!(
            stopped(&[], 1),
            "nothing to stop: the selected unit stands still"
        );
        assert_eq!(
            stopped(&[], 4),
            "nothing to stop: the selected units stand still"
        );
        let army: Vec<String> = (0..1500).map(|i| format!("u{i}")).collect();
        let army: Vec<&str> = army.iter().map(String::as_str).collect();
        assert_eq!(stopped(&army, 1500), "stopped 1,500 units");
    }
}
