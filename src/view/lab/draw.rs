//! The lab on the map: reached tiles tinted by state (frontier, expanded, and for the
//! backward half of a bidirectional search their own colours), the cell being expanded, the
//! way to it, the paths found, the markers, and zoomed in, `g`, `h` and the priority on each tile with
//! an arrow to its parent.

use bevy::prelude::*;
use bevy::window::PrimaryWindow;
use tilewalk_path::{CellState, CellView, Direction, Pos, TraceEvent};

use super::{Lab, Replayed};
use crate::AppSystems;
use crate::convert::{Geometry, TILE_SIZE};
use crate::level::Level;
use crate::tactics::Mode;
use crate::view::{TileShape, outline};

pub(super) const FORWARD_OPEN: Color = Color::srgba(0.45, 1.0, 0.55, 0.55);
pub(super) const FORWARD_CLOSED: Color = Color::srgba(0.35, 0.6, 1.0, 0.55);
pub(super) const BACKWARD_OPEN: Color = Color::srgba(1.0, 0.95, 0.35, 0.6);
pub(super) const BACKWARD_CLOSED: Color = Color::srgba(1.0, 0.55, 0.25, 0.55);
/// The active configuration's path, and the other one's when comparing.
pub(super) const PATHS: [Color; 2] = [Color::srgb(1.0, 0.9, 0.2), Color::srgb(1.0, 0.35, 0.95)];
const START: Color = Color::srgb(0.2, 0.95, 0.35);
const GOAL: Color = Color::srgb(1.0, 0.3, 0.3);

/// Tiles at least this many pixels wide on screen show `g`, `h` and the priority.
const LABELS_FROM_PX: f32 = 56.0;
/// The most tiles labelled at once.
const MAX_LABELS: usize = 900;

/// One tinted sprite per reached tile, made when a tile is first reached and hidden after.
#[derive(Resource, Default)]
struct Fills {
    cells: Vec<Option<Entity>>,
    size: (u32, u32),
}

#[derive(Component)]
struct Fill;

/// The `g h / priority` labels, reused from frame to frame: the priority is the cell's
/// place on the frontier, `f = g + h` for A*, a bidirectional search's own key.
#[derive(Resource, Default)]
struct Labels(Vec<Entity>);

#[derive(Component)]
struct Label;

#[derive(Component)]
struct Marker(bool);

pub(super) fn plugin(app: &mut App) {
    app.init_resource::<Fills>()
        .init_resource::<Labels>()
        .add_systems(OnEnter(Mode::Lab), spawn_markers)
        .add_systems(OnExit(Mode::Lab), clear)
        .add_systems(
            Update,
            (draw_fills, draw_labels, draw_overlay, move_markers)
                .in_set(AppSystems::Present)
                .after(Replayed)
                .run_if(in_state(Mode::Lab).and_then(resource_exists::<Lab>)),
        );
}

/// The colour of a tile in the replay: the forward search's state over the backward's,
/// expanded over frontier.
fn tint(forward: Option<&CellView>, backward: Option<&CellView>) -> Option<Color> {
    let closed = |c: Option<&CellView>| c.is_some_and(|c| c.state == CellState::Closed);
    if closed(forward) {
        Some(FORWARD_CLOSED)
    } else if closed(backward) {
        Some(BACKWARD_CLOSED)
    } else if forward.is_some() {
        Some(FORWARD_OPEN)
    } else if backward.is_some() {
        Some(BACKWARD_OPEN)
    } else {
        None
    }
}

fn draw_fills(
    mut commands: Commands,
    lab: Res<Lab>,
    level: Res<Level>,
    shape: Option<Res<TileShape>>,
    mut fills: ResMut<Fills>,
    mut sprites: Query<(&mut Sprite, &mut Visibility), With<Fill>>,
) {
    let Some(shape) = shape else { return };
    let resized = fills.size != (level.width, level.height);
    if resized || shape.is_changed() {
        for entity in fills.cells.drain(..).flatten() {
            commands.entity(entity).despawn();
        }
        fills.size = (level.width, level.height);
        fills.cells = vec![None; level.width as usize * level.height as usize];
    } else if !lab.is_changed() {
        return;
    }
    let geometry = level.geometry();
    for (i, pos) in level.cells().enumerate() {
        let color = tint(
            lab.replay.cell(Direction::Forward, pos),
            lab.replay.cell(Direction::Backward, pos),
        );
        match (color, fills.cells[i]) {
            (Some(color), Some(entity)) => {
                if let Ok((mut sprite, mut visibility)) = sprites.get_mut(entity) {
                    sprite.color = color;
                    visibility.set_if_neq(Visibility::Inherited);
                }
            }
            (Some(color), None) => {
                fills.cells[i] = Some(
                    commands
                        .spawn((
                            Fill,
                            Sprite {
                                image: shape.image.clone(),
                                color,
                                custom_size: Some(shape.size - 2.0),
                                ..default()
                            },
                            Transform::from_translation(geometry.center(pos).extend(2.5)),
                        ))
                        .id(),
                );
            }
            (None, Some(entity)) => {
                if let Ok((_, mut visibility)) = sprites.get_mut(entity) {
                    visibility.set_if_neq(Visibility::Hidden);
                }
            }
            (None, None) => {}
        }
    }
}

/// The world rectangle the camera shows, and how many pixels a tile is wide on screen.
fn view(
    window: &Window,
    projection: &Projection,
    transform: &GlobalTransform,
) -> Option<(Rect, f32)> {
    let Projection::Orthographic(ortho) = projection else {
        return None;
    };
    let centre = transform.translation().truncate();
    let half = window.size() * ortho.scale / 2.0;
    Some((
        Rect::from_center_half_size(centre, half),
        TILE_SIZE / ortho.scale,
    ))
}

fn draw_labels(
    mut commands: Commands,
    lab: Res<Lab>,
    level: Res<Level>,
    window: Single<Ref<Window>, With<PrimaryWindow>>,
    camera: Single<(Ref<Projection>, Ref<GlobalTransform>), With<Camera2d>>,
    mut labels: ResMut<Labels>,
    mut texts: Query<(&mut Text2d, &mut Transform, &mut Visibility, &mut TextColor), With<Label>>,
    mut gizmos: Gizmos,
) {
    let geometry = level.geometry();
    let (projection, transform) = &*camera;
    let shown: Vec<(Pos, Direction, CellView)> = match view(&window, projection, transform) {
        Some((rect, tile_px)) if tile_px >= LABELS_FROM_PX => {
            let rect = rect.inflate(TILE_SIZE);
            [Direction::Forward, Direction::Backward]
                .into_iter()
                .flat_map(|d| lab.replay.reached(d).map(move |(p, c)| (p, d, *c)))
                .filter(|(p, ..)| rect.contains(geometry.center(*p)))
                .take(MAX_LABELS)
                .collect()
        }
        _ => Vec::new(),
    };
    // Arrows to parents every frame (gizmos last one frame); labels only when they change.
    for &(pos, direction, cell) in &shown {
        if let Some(parent) = cell.parent {
            arrow(&mut gizmos, &geometry, pos, parent, direction);
        }
    }
    let moved = projection.is_changed() || transform.is_changed() || window.is_changed();
    if !(lab.is_changed() || moved) {
        return;
    }
    while labels.0.len() < shown.len() {
        labels.0.push(
            commands
                .spawn((
                    Label,
                    Text2d::default(),
                    TextFont::from_font_size(28.0),
                    TextLayout::justify(Justify::Center),
                    TextColor(Color::WHITE),
                    Transform::from_scale(Vec3::splat(0.2)),
                    Visibility::Hidden,
                ))
                .id(),
        );
    }
    for (i, &entity) in labels.0.iter().enumerate() {
        let Ok((mut text, mut transform, mut visibility, mut color)) = texts.get_mut(entity) else {
            continue;
        };
        let Some(&(pos, direction, cell)) = shown.get(i) else {
            visibility.set_if_neq(Visibility::Hidden);
            continue;
        };
        // Two cells' labels may share a tile (a bidirectional search reaches it from both
        // ends): the backward one sits lower.
        let below = if direction == Direction::Backward {
            -9.0
        } else {
            0.0
        };
        text.0 = format!("{:.1} {:.1}\n{:.1}", cell.g, cell.h, cell.f);
        transform.translation = (geometry.center(pos) + Vec2::new(0.0, below)).extend(6.0);
        color.0 = if direction == Direction::Forward {
            Color::WHITE
        } else {
            Color::srgb(1.0, 0.9, 0.6)
        };
        visibility.set_if_neq(Visibility::Inherited);
    }
}

/// A short arrow from a tile towards its parent.
fn arrow(gizmos: &mut Gizmos, geometry: &Geometry, from: Pos, to: Pos, direction: Direction) {
    let (a, b) = (geometry.center(from), geometry.center(to));
    let towards = (b - a).normalize_or_zero();
    let color = match direction {
        Direction::Forward => Color::srgba(1.0, 1.0, 1.0, 0.7),
        Direction::Backward => Color::srgba(1.0, 0.85, 0.5, 0.7),
    };
    gizmos
        .arrow_2d(
            a + towards * TILE_SIZE * 0.3,
            a + towards * TILE_SIZE * 0.55,
            color,
        )
        .with_tip_length(4.0);
}

/// The cell being expanded, the way to it, jump point scans, the paths found, the other
/// configuration's search when comparing, and the markers' rings.
fn draw_overlay(mut gizmos: Gizmos, lab: Res<Lab>, level: Res<Level>) {
    let geometry = level.geometry();
    let centre = |p: Pos| geometry.center(p);
    let at_end = lab.position as usize >= lab.events();
    // The other configuration, whole: its expanded cells as small squares, its path.
    if let Some(other) = lab.runs.get(1) {
        for event in other.trace.events() {
            if let TraceEvent::Expand { pos, .. } = event {
                outline(&mut gizmos, &geometry, *pos, 0.25, PATHS[1].with_alpha(0.8));
            }
        }
        if let Ok(found) = &other.result {
            gizmos.linestrip_2d(
                found
                    .path
                    .cells
                    .iter()
                    .map(|&p| centre(p) + Vec2::splat(3.0)),
                PATHS[1],
            );
        }
    }
    if let Some(run) = lab.run() {
        match (&run.result, at_end) {
            (Ok(found), true) => {
                gizmos.linestrip_2d(found.path.cells.iter().map(|&p| centre(p)), PATHS[0]);
            }
            _ => {
                if let Some((direction, pos)) = lab.replay.current() {
                    let way = lab.replay.path_to(direction, pos);
                    gizmos.linestrip_2d(way.iter().map(|&p| centre(p)), Color::WHITE);
                    for scale in [0.96, 0.88] {
                        outline(&mut gizmos, &geometry, pos, scale, Color::WHITE);
                    }
                }
                if let Some(meeting) = lab.replay.meeting() {
                    gizmos.line_2d(
                        centre(meeting.forward),
                        centre(meeting.backward),
                        Color::srgb(1.0, 0.2, 1.0),
                    );
                }
                // Jump point search: the scans of the jump point being expanded.
                let shown = &run.trace.events()[..lab.replay.step()];
                for event in shown.iter().rev() {
                    match *event {
                        TraceEvent::Expand { .. } => break,
                        TraceEvent::Scan {
                            from,
                            found: Some(to),
                            ..
                        } => {
                            gizmos.line_2d(centre(from), centre(to), Color::srgb(0.6, 1.0, 1.0));
                        }
                        _ => {}
                    }
                }
            }
        }
    }
    for (pos, color) in [(lab.start, START), (lab.goal, GOAL)] {
        gizmos.circle_2d(centre(pos), TILE_SIZE * 0.42, color);
        gizmos.circle_2d(centre(pos), TILE_SIZE * 0.36, color);
    }
}

fn spawn_markers(mut commands: Commands) {
    for (start, letter, color) in [(true, "S", START), (false, "G", GOAL)] {
        commands.spawn((
            Marker(start),
            Text2d::new(letter),
            TextFont::from_font_size(64.0),
            TextColor(color),
            Transform::from_scale(Vec3::splat(0.3)),
        ));
    }
}

fn move_markers(lab: Res<Lab>, level: Res<Level>, mut markers: Query<(&Marker, &mut Transform)>) {
    for (marker, mut transform) in &mut markers {
        let pos = if marker.0 { lab.start } else { lab.goal };
        let at = level.geometry().center(pos).extend(7.0);
        if transform.translation != at {
            transform.translation = at;
        }
    }
}

fn clear(
    mut commands: Commands,
    mut fills: ResMut<Fills>,
    mut labels: ResMut<Labels>,
    markers: Query<Entity, With<Marker>>,
) {
    let entities = fills.cells.drain(..).flatten().chain(labels.0.drain(..));
    for entity in entities.chain(markers.iter()) {
        commands.entity(entity).despawn();
    }
    fills.size = (0, 0);
}
