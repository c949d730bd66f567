//! The HUD (tile under the cursor, selection, last search, notices, file errors, controls)
//! and the gizmo overlays (selected units' paths, the drag box, the last search's expansions).

use bevy::prelude::*;

use super::{Cursor, DragBox, NOTICE_SECS, Notice, ShowSearch, outline};
use crate::AppSystems;
use crate::assets::FileErrors;
use crate::convert::TILE_SIZE;
use crate::journal::{Entry, Journal};
use crate::level::Level;
use crate::pathing::{LastSearch, Path};
use crate::tactics::Mode;
use crate::units::{Motion, MovementClass, Selected};

#[derive(Component)]
struct StatusText;

#[derive(Component)]
struct ErrorText;

const HELP: &str = "left click: select  shift: add  drag: box select  right click: move  shift+right: waypoint  S: stop  E: search view  WASD/arrows/middle-drag: pan  wheel: zoom";
const TACTICS_HELP: &str = "left click: select  hover: preview path  right click: move there  T: enemy threat  Enter: end turn  WASD/arrows/middle-drag: pan  wheel: zoom";

/// The controls line at the bottom.
#[derive(Component)]
struct HelpText;

pub(super) fn plugin(app: &mut App) {
    app.add_systems(Startup, spawn_hud).add_systems(
        Update,
        (
            (draw_paths, draw_drag_box, draw_search).in_set(AppSystems::Present),
            (notice_journal, show_help, update_status, update_errors)
                .chain()
                .in_set(AppSystems::Hud),
        )
            .run_if(resource_exists::<Level>),
    );
}

fn spawn_hud(mut commands: Commands) {
    let panel = |top: bool| Node {
        position_type: PositionType::Absolute,
        left: px(8),
        top: if top { px(6) } else { auto() },
        bottom: if top { auto() } else { px(6) },
        padding: UiRect::all(px(6)),
        flex_direction: FlexDirection::Column,
        ..default()
    };
    let background = BackgroundColor(Color::srgba(0.05, 0.06, 0.08, 0.72));
    commands.spawn((
        panel(true),
        background,
        children![(
            StatusText,
            Text::new("loading…"),
            TextFont::from_font_size(15.0)
        )],
    ));
    commands.spawn((
        panel(false),
        background,
        children![
            (
                ErrorText,
                Text::new(""),
                TextFont::from_font_size(15.0),
                TextColor(Color::srgb(1.0, 0.45, 0.4))
            ),
            (
                HelpText,
                Text::new(HELP),
                TextFont::from_font_size(13.0),
                TextColor(Color::srgb(0.75, 0.78, 0.8))
            ),
        ],
    ));
}

/// The controls of the mode being played.
fn show_help(mode: Res<State<Mode>>, mut help: Single<&mut Text, With<HelpText>>) {
    let wanted = match mode.get() {
        Mode::RealTime => HELP,
        Mode::Tactics => TACTICS_HELP,
    };
    if help.0 != wanted {
        help.0 = wanted.to_owned();
    }
}

/// Refusals become the notice; so do arrivals, briefly.
fn notice_journal(
    journal: Res<Journal>,
    mut seen: Local<usize>,
    mut notice: ResMut<Notice>,
    time: Res<Time>,
) {
    for entry in &journal.0[*seen..] {
        match entry {
            Entry::Refused { reason, .. } => notice.say(format!("order refused: {reason}")),
            Entry::Arrived { unit, tile, .. } => notice.say(format!("{unit} arrived at {tile}")),
            Entry::SteppingOff {
                unit,
                from,
                terrain,
                ..
            } => notice.say(format!(
                "{unit} stands on {terrain} at {from}, impassable for it now: it steps off first"
            )),
        }
    }
    *seen = journal.0.len();
    notice.shown_for += time.delta_secs();
}

fn update_status(
    cursor: Res<Cursor>,
    level: Res<Level>,
    last: Res<LastSearch>,
    mut notice: ResMut<Notice>,
    selected: Query<(&Name, &MovementClass), With<Selected>>,
    mut text: Single<&mut Text, With<StatusText>>,
) {
    let classes: Vec<MovementClass> = {
        let mut c: Vec<MovementClass> = selected.iter().map(|(_, c)| *c).collect();
        c.sort();
        c.dedup();
        if c.is_empty() {
            vec![MovementClass::Foot]
        } else {
            c
        }
    };
    let mut lines = Vec::new();
    lines.push(
        match cursor.tile.and_then(|p| level.terrain(p).map(|t| (p, t))) {
            Some((pos, terrain)) => {
                let costs: Vec<String> = classes
                    .iter()
                    .map(|&c| match terrain.cost(c) {
                        Some(cost) => format!("{} {cost}", c.name()),
                        None => format!("{} impassable", c.name()),
                    })
                    .collect();
                format!("tile {pos} {}: {}", terrain.name, costs.join(", "))
            }
            None => "tile: -".to_owned(),
        },
    );
    let mut names: Vec<String> = selected.iter().map(|(n, c)| format!("{n} ({c})")).collect();
    names.sort();
    lines.push(if names.is_empty() {
        "selected: none".to_owned()
    } else {
        format!("selected: {}", names.join(", "))
    });
    if !last.unit.is_empty() {
        lines.push(if last.found {
            format!(
                "last search: {} for {}: cost {:.2}, {} steps, {} nodes expanded, {:.3} ms",
                last.algorithm,
                last.unit,
                last.cost,
                last.steps,
                last.expanded,
                last.micros / 1000.0
            )
        } else {
            format!(
                "last search: {} for {}: no path, {} nodes expanded, {:.3} ms",
                last.algorithm,
                last.unit,
                last.expanded,
                last.micros / 1000.0
            )
        });
    }
    if notice.shown_for < NOTICE_SECS && !notice.text.is_empty() {
        lines.push(notice.text.clone());
    }
    if !notice.hint.is_empty() {
        lines.push(std::mem::take(&mut notice.hint));
    }
    text.0 = lines.join("\n");
}

fn update_errors(errors: Res<FileErrors>, mut text: Single<&mut Text, With<ErrorText>>) {
    if errors.is_changed() {
        text.0 = errors
            .0
            .values()
            .map(|e| format!("{e} (the last good version stays)"))
            .collect::<Vec<_>>()
            .join("\n");
    }
}

fn draw_paths(
    mut gizmos: Gizmos,
    level: Res<Level>,
    units: Query<(&Transform, &Path, &Motion), With<Selected>>,
) {
    let geometry = level.geometry();
    for (transform, path, motion) in &units {
        let from = transform.translation.truncate();
        let ahead = motion.stride.map(|s| s.to);
        let points = std::iter::once(from)
            .chain(ahead.map(|p| geometry.center(p)))
            .chain(path.remaining().iter().map(|&p| geometry.center(p)));
        gizmos.linestrip_2d(points, Color::srgb(1.0, 0.9, 0.2));
        for &waypoint in &path.waypoints {
            if waypoint >= path.next {
                gizmos.circle_2d(
                    Isometry2d::from_translation(geometry.center(path.cells[waypoint])),
                    TILE_SIZE * 0.3,
                    Color::srgb(1.0, 0.9, 0.2),
                );
            }
        }
    }
}

fn draw_drag_box(mut gizmos: Gizmos, drag: Res<DragBox>, cursor: Res<Cursor>) {
    if let (true, Some(start), Some(now)) = (drag.dragging, drag.start, cursor.world) {
        let area = Rect::from_corners(start, now);
        gizmos.rect_2d(
            Isometry2d::from_translation(area.center()),
            area.size(),
            Color::srgb(0.6, 0.9, 1.0),
        );
    }
}

/// The last search's expanded cells, coloured from blue (first) to orange (last).
fn draw_search(
    mut gizmos: Gizmos,
    show: Res<ShowSearch>,
    last: Res<LastSearch>,
    level: Res<Level>,
) {
    if !show.0 {
        return;
    }
    let geometry = level.geometry();
    let count = last.expansions.len().max(1) as f32;
    for (i, &pos) in last.expansions.iter().enumerate() {
        let t = i as f32 / count;
        let color = Color::srgba(0.2 + 0.8 * t, 0.5, 1.0 - 0.8 * t, 0.9);
        outline(&mut gizmos, &geometry, pos, 0.6, color);
    }
}
