//! The HUD (tile under the cursor, selection, the search shown, frame time, units waiting for
//! paths, notices, file errors, controls) and the gizmo overlays (the hovered tile, each
//! selected unit's path in its own tint, or a selected army's goal tiles, the drag box, a
//! search's expanded cells).

use bevy::prelude::*;
use bevy_tilewalk::debug::{PathWork, SearchRecord, Searches};
use bevy_tilewalk::{Motion, MovementClass, Path};
use tilewalk_path::{Board, HexLayout};

use super::input::GROUP_ORDER;
use super::layout::{BottomBar, HudPanel, PANEL_BACKGROUND, TopBar};
use super::paint::Painter;
use super::progress::SideOrders;
use super::tactics::HoveredUnit;
use super::{
    ARMY_AT, Cursor, DragBox, LastOrder, NOTICE_SECS, Notice, Redrawing, SearchView, outline,
};
use crate::AppSystems;
use crate::assets::FileErrors;
use crate::convert::{Projection, TILE_SIZE};
use crate::journal::{Entry, EventLog, Journal};
use crate::level::{Level, Reloaded};
use crate::tactics::Mode;
use crate::terrain::TerrainTable;
use crate::units::Selected;

#[derive(Component)]
struct StatusText;

#[derive(Component)]
struct ErrorText;

const HELP: &str = "left: select (shift: add, drag: box)  right: move (shift: waypoint)  S: stop  E: searches  P: paint  M: map  L: lab\nWASD/arrows/middle: pan  wheel: zoom  Home: fit  F: find";
const LAB_HELP: &str = "drag S/G: move  left-drag: paint  right-drag: erase  1-9: terrain  C G H B = -: settings  Space , . [ ]: replay  V Tab: compare  L: leave";
const TACTICS_HELP: &str = "left: select  hover: preview  right: move there / strike an enemy  Space: wait  Backspace: undo move  T: threat  Enter: end turn\nred's turn: Space/Esc/click skips the show  game over: R plays again  L: lab  WASD/arrows/middle: pan  wheel: zoom  Home: fit  F: find";

const TERRAIN_MODE_HELP: &str = "TERRAIN MODE  left: pick the tile kind of a cell or in the panel  Tab/Shift+Tab: next/previous kind  1-9 or a terrain in the panel: give it that terrain\nCtrl+Z: undo  Ctrl+S: save into the tileset (Tiled) or the project (LDtk)  P: leave  WASD/arrows/middle: pan  wheel: zoom";

/// The tints of the selected units' paths, in the order of their names.
pub(super) const PATH_TINTS: [Color; 6] = [
    Color::srgb(1.0, 0.9, 0.2),
    Color::srgb(0.3, 0.9, 1.0),
    Color::srgb(1.0, 0.45, 0.9),
    Color::srgb(0.6, 1.0, 0.3),
    Color::srgb(1.0, 0.6, 0.2),
    Color::srgb(0.85, 0.75, 1.0),
];

/// The most of the top bar's width the status panel takes.
const STATUS_MAX_PERCENT: f32 = 42.0;

/// The controls line at the bottom.
#[derive(Component)]
struct HelpText;

pub(super) fn plugin(app: &mut App) {
    // After view::layout made the bars (in PreStartup).
    app.add_systems(Startup, spawn_hud).add_systems(
        Update,
        (
            (draw_hover, draw_paths, draw_drag_box, draw_search).in_set(AppSystems::Present),
            // A new notice keeps the game drawing (view::keep_drawing); the frame line says
            // whether it does. What writes the notice runs before it is shown, so a notice
            // (`saved …`) is on screen the frame it is said.
            (
                (
                    notice_journal,
                    say_reloads,
                    super::paint::report_edits,
                    show_help,
                )
                    .before(super::keep_drawing),
                (update_status, update_notice, update_errors).after(super::keep_drawing),
                report_hud.run_if(resource_exists::<EventLog>),
            )
                .chain()
                .in_set(AppSystems::Hud),
        )
            .run_if(resource_exists::<Level>),
    );
}

/// The notice and the hint under the pointer, in the top bar beside the status.
#[derive(Component)]
struct NoticeText;

fn spawn_hud(
    mut commands: Commands,
    top: Single<Entity, With<TopBar>>,
    bottom: Single<Entity, With<BottomBar>>,
) {
    let panel = || Node {
        padding: UiRect::all(px(6)),
        flex_direction: FlexDirection::Column,
        ..default()
    };
    let background = BackgroundColor(PANEL_BACKGROUND);
    let status = commands
        .spawn((
            HudPanel("status"),
            // It does not shrink for a long notice (which wraps instead), so its short lines
            // (the frame time) never wrap; only a line longer than its share wraps.
            Node {
                flex_shrink: 0.0,
                max_width: percent(STATUS_MAX_PERCENT),
                ..panel()
            },
            background,
            children![(
                StatusText,
                Text::new("loading…"),
                TextFont::from_font_size(15.0)
            )],
        ))
        .id();
    let notice = commands
        .spawn((
            HudPanel("notice"),
            Node {
                display: Display::None,
                max_width: percent(40),
                ..panel()
            },
            background,
            children![(NoticeText, Text::new(""), TextFont::from_font_size(15.0))],
        ))
        .id();
    // File errors beside the notice, right-aligned, hidden while there is none.
    let errors = commands
        .spawn((
            HudPanel("errors"),
            Node {
                display: Display::None,
                margin: UiRect::left(auto()),
                max_width: percent(40),
                ..panel()
            },
            background,
            children![(
                ErrorText,
                Text::new(""),
                TextFont::from_font_size(14.0),
                TextColor(Color::srgb(1.0, 0.5, 0.45))
            )],
        ))
        .id();
    commands
        .entity(*top)
        .add_children(&[status, notice, errors]);
    let help = commands
        .spawn((
            HudPanel("help"),
            panel(),
            background,
            children![(
                HelpText,
                Text::new(HELP),
                TextFont::from_font_size(13.0),
                TextColor(Color::srgb(0.75, 0.78, 0.8))
            )],
        ))
        .id();
    commands.entity(*bottom).add_child(help);
}

/// The controls of the mode being played; while painting, the painter's, with the palette
/// and the terrain being painted.
fn show_help(
    mode: Res<State<Mode>>,
    painter: Res<Painter>,
    level: Res<Level>,
    mut help: Single<&mut Text, With<HelpText>>,
) {
    let wanted = match mode.get() {
        Mode::RealTime if painter.on && level.tiled.is_some() => TERRAIN_MODE_HELP.to_owned(),
        Mode::RealTime if painter.on => paint_help(&level, painter.terrain),
        Mode::RealTime => HELP.to_owned(),
        Mode::Tactics => TACTICS_HELP.to_owned(),
        Mode::Lab => LAB_HELP.to_owned(),
    };
    if help.0 != wanted {
        help.0 = wanted;
    }
}

/// The help bar while painting: `PAINTING grass  left-drag: paint  ...` and the palette.
fn paint_help(level: &Level, terrain: usize) -> String {
    let palette: Vec<String> = level
        .table
        .terrains
        .iter()
        .take(9)
        .enumerate()
        .map(|(i, t)| {
            let mark = if i == terrain { "*" } else { "" };
            format!("{}: {mark}{}", i + 1, t.name)
        })
        .collect();
    let name = level
        .table
        .terrains
        .get(terrain)
        .map_or("?", |t| t.name.as_str());
    format!(
        "PAINTING {name}  left-drag: paint  right-drag: erase  Ctrl+Z: undo  Ctrl+S: save  P: stop painting\npalette  {}",
        palette.join("  ")
    )
}

/// A good reload of the map or the terrain table is said, with the paths it re-planned.
fn say_reloads(mut reloads: MessageReader<Reloaded>, mut notice: ResMut<Notice>) {
    if let Some(reloaded) = reloads.read().last() {
        notice.say(reloaded.to_string());
    }
}

/// Refusals become the notice; so do arrivals, briefly. Refusals of one group order are
/// summed up: "3 of 4 units cannot go to (9,2): …".
fn notice_journal(
    journal: Res<Journal>,
    last: Res<LastOrder>,
    mut seen: Local<usize>,
    mut notice: ResMut<Notice>,
    time: Res<Time>,
) {
    let new = &journal.0[*seen..];
    let refused: Vec<&String> = new
        .iter()
        .filter_map(|e| match e {
            Entry::Refused { goal, message, .. } if Some(*goal) == last.goal => Some(message),
            _ => None,
        })
        .collect();
    let summed = last.units > 1 && !refused.is_empty();
    for entry in new {
        match entry {
            Entry::Refused { .. } if summed => {}
            Entry::Refused { message, .. } => notice.say(format!("order refused: {message}")),
            Entry::Arrived {
                tile,
                short_of: Some((_, why)),
                ..
            } => notice.say(format!("{why}: it stopped as near as it gets, at {tile}")),
            Entry::Arrived { unit, tile, .. } => notice.say(format!("{unit} arrived at {tile}")),
            Entry::SteppingOff {
                unit,
                from,
                terrain,
                ..
            } => notice.say(format!(
                "{unit} stands on {terrain} at {from}, impassable for it now: it steps off first"
            )),
            // Moves are drawn (and logged in the turn log, which a move taken back leaves);
            // strikes and a win are said.
            Entry::Moved { .. } | Entry::TakenBack { .. } => {}
            Entry::Struck { .. } | Entry::Won { .. } => {
                if let Some(line) = entry.tactics_line() {
                    notice.say(line);
                }
            }
        }
    }
    if summed && let Some(goal) = last.goal {
        let more = match refused.len() {
            1 => String::new(),
            n => format!(" (and {} more)", n - 1),
        };
        notice.say(format!(
            "{} of {} units cannot go to {goal}: {}{more}",
            refused.len(),
            last.units,
            refused[0]
        ));
    }
    *seen = journal.0.len();
    notice.shown_for += time.delta_secs();
}

fn update_status(
    cursor: Res<Cursor>,
    level: Res<Level>,
    searches: Res<Searches>,
    view: Res<SearchView>,
    work: Res<PathWork>,
    time: Res<Time>,
    mut frame_ms: Local<f32>,
    redrawing: Res<Redrawing>,
    selected: Query<(&Name, &MovementClass), With<Selected>>,
    names: Query<&Name>,
    (mode, hovered, last): (Res<State<Mode>>, Res<HoveredUnit>, Res<LastOrder>),
    mut text: Single<&mut Text, With<StatusText>>,
) {
    let classes: Vec<MovementClass> = {
        let mut c: Vec<MovementClass> = selected.iter().map(|(_, c)| *c).collect();
        c.sort();
        c.dedup();
        if c.is_empty() {
            vec![MovementClass::default()]
        } else {
            c
        }
    };
    let mut lines = Vec::new();
    // The level played, of a project of several (LDtk's).
    if let Some(name) = level.tiled.as_ref().and_then(|t| t.level.as_deref()) {
        lines.push(format!("level: {name}"));
    }
    lines.push(
        match cursor.tile.and_then(|p| level.terrain(p).map(|t| (p, t))) {
            Some((pos, terrain)) => {
                let costs: Vec<String> = classes
                    .iter()
                    .map(|&c| match terrain.cost(c) {
                        Some(cost) => format!("{} {cost}", level.class_name(c)),
                        None => format!("{} impassable", level.class_name(c)),
                    })
                    .collect();
                // A staggered map's cell, as Tiled numbers it too.
                let tiled = match (&level.tiled, level.projection.stagger()) {
                    (Some(tiled), Some(_)) => tiled
                        .tiled_cell(pos)
                        .map_or_else(String::new, |(c, r)| format!(" (Tiled {c},{r})")),
                    _ => String::new(),
                };
                format!("tile {pos}{tiled} {}: {}", terrain.name, costs.join(", "))
            }
            None => "tile: -".to_owned(),
        },
    );
    lines.push(selected_line(&selected, &level.table));
    // Tactics: the unit under the pointer, its hit points and state, where the search is
    // shown in real time.
    let tactics = *mode.get() == Mode::Tactics;
    if tactics && !hovered.0.is_empty() {
        lines.push(format!("unit: {}", hovered.0));
    }
    let shown = match view.0 {
        _ if tactics => None,
        Some(i) => searches
            .0
            .get(i)
            .map(|s| (format!("search view {} of {}", i + 1, searches.0.len()), s)),
        // After a group order, what the group order did, even when a unit of it that
        // cannot reach the click searched on its own afterwards for the nearest tile.
        None if last.units > 1 => searches
            .0
            .iter()
            .rev()
            .find(|s| s.algorithm == GROUP_ORDER)
            .or(searches.0.back())
            .map(|s| ("last search".to_owned(), s)),
        None => searches.0.back().map(|s| ("last search".to_owned(), s)),
    };
    if let Some((label, search)) = shown {
        lines.push(match search.algorithm {
            GROUP_ORDER => describe_group(search, &last),
            _ => describe(&label, search, &names),
        });
    }
    // Frame time, smoothed; long gaps mean nothing changed and nothing was drawn.
    let delta = time.delta_secs() * 1000.0;
    *frame_ms = if *frame_ms == 0.0 {
        delta
    } else {
        0.9 * *frame_ms + 0.1 * delta
    };
    // Nothing asked for the next frame: this one stays on screen until something changes.
    lines.push(if delta > 250.0 || !redrawing.0 {
        "frame: idle (drawn when something changes)".to_owned()
    } else {
        format!(
            "frame: {:.1} ms ({:.0} fps)",
            *frame_ms,
            1000.0 / frame_ms.max(0.001)
        )
    });
    if work.pending > 0 {
        lines.push(format!(
            "paths: {} units waiting, {} requests queued, {} work this frame",
            work.pending, work.queued, work.work
        ));
    }
    text.0 = lines.join("\n");
}

/// The notice while it lasts, and this frame's hint about what is under the pointer.
fn update_notice(
    mut notice: ResMut<Notice>,
    sides: Res<SideOrders>,
    text: Single<(&mut Text, &ChildOf), With<NoticeText>>,
    mut panels: Query<&mut Node>,
) {
    let mut lines = Vec::new();
    // Each side's last order of several units, as it goes.
    if !sides.text.is_empty() {
        lines.push(sides.text.clone());
    }
    if notice.shown_for < NOTICE_SECS && !notice.text.is_empty() {
        lines.push(notice.text.clone());
    }
    if !notice.hint.is_empty() {
        lines.push(std::mem::take(&mut notice.hint));
    }
    let (mut text, parent) = text.into_inner();
    let wanted = lines.join("\n");
    if text.0 != wanted {
        text.0 = wanted;
    }
    if let Ok(mut node) = panels.get_mut(parent.parent()) {
        show(&mut node, !lines.is_empty());
    }
}

/// With `--events`, what the top bar says, whenever it changes: the notice box's lines (each
/// side's last group order, the notice, the hint under the pointer) and the status's line
/// about the last search or group order, e.g. `{"event":"hud","notice":["blue 4/4 arrived"],
/// "search":"last order: group order of 4 units to (9,2), …"}`, so a script reads what the
/// player reads.
fn report_hud(
    status: Single<&Text, With<StatusText>>,
    notice: Single<&Text, With<NoticeText>>,
    mut log: ResMut<EventLog>,
    mut last: Local<String>,
) -> Result {
    let search = status.0.lines().find(|l| {
        ["last search", "search view", "last order"]
            .iter()
            .any(|p| l.starts_with(p))
    });
    let notice: Vec<&str> = notice.0.lines().collect();
    let event = serde_json::json!({"event": "hud", "notice": notice, "search": search});
    let text = event.to_string();
    if *last != text {
        log.write(&event)?;
        *last = text;
    }
    Ok(())
}

/// Shows or hides a panel; a hidden one takes no room in the layout.
pub(super) fn show(node: &mut Mut<Node>, shown: bool) {
    let display = if shown { Display::Flex } else { Display::None };
    if node.display != display {
        node.display = display;
    }
}

/// The units selected, by name; an army box-selected (more than [`NAMED_AT_MOST`]) as a
/// count per class, e.g. `selected: 2500 units (1875 foot, 625 horse)`.
fn selected_line(
    selected: &Query<(&Name, &MovementClass), With<Selected>>,
    table: &TerrainTable,
) -> String {
    let count = selected.iter().len();
    if count == 0 {
        return "selected: none".to_owned();
    }
    if count > NAMED_AT_MOST {
        let per_class: Vec<String> = table
            .all_classes()
            .map(|class| (class, selected.iter().filter(|u| *u.1 == class).count()))
            .filter(|&(_, n)| n > 0)
            .map(|(class, n)| format!("{n} {}", table.class_name(class)))
            .collect();
        return format!("selected: {count} units ({})", per_class.join(", "));
    }
    let mut names: Vec<String> = selected
        .iter()
        .map(|(n, &c)| format!("{n} ({})", table.class_name(c)))
        .collect();
    names.sort();
    format!("selected: {}", names.join(", "))
}

/// Selections larger than this are counted per class in the HUD instead of named.
const NAMED_AT_MOST: usize = 8;

/// One search, in a line.
fn describe(label: &str, s: &SearchRecord, names: &Query<&Name>) -> String {
    let ms = s.micros / 1000.0;
    let unit = s
        .unit
        .and_then(|e| names.get(e).ok())
        .map_or("", |n| n.as_str());
    if s.found {
        format!(
            "{label}: {} for {}: cost {:.2}, {} steps, {} nodes expanded, {ms:.3} ms",
            s.algorithm, unit, s.cost, s.steps, s.expanded
        )
    } else {
        format!(
            "{label}: {} for {}: no path, {} nodes expanded, {ms:.3} ms",
            s.algorithm, unit, s.expanded
        )
    }
}

/// What the last group order did, in a line: its units, where to, and the planner's work for
/// all of them (each unit's record of it holds the whole order's work).
fn describe_group(s: &SearchRecord, last: &LastOrder) -> String {
    let goal = last.goal.map_or_else(String::new, |g| format!(" to {g}"));
    format!(
        "last order: group order of {} units{goal}, planned at once: {} nodes expanded, {:.3} ms",
        super::grouped(last.units),
        super::grouped(s.expanded),
        s.micros / 1000.0
    )
}

fn update_errors(
    errors: Res<FileErrors>,
    mut text: Single<(&mut Text, &ChildOf), With<ErrorText>>,
    mut panels: Query<&mut Node>,
) {
    if !errors.is_changed() {
        return;
    }
    let (text, parent) = &mut *text;
    text.0 = errors
        .0
        .values()
        .map(|e| format!("{e} (the last good version stays)"))
        .collect::<Vec<_>>()
        .join("\n");
    if let Ok(mut node) = panels.get_mut(parent.parent()) {
        show(&mut node, !errors.0.is_empty());
    }
}

/// A white frame with a dark edge around the tile under the pointer, in the tile's shape.
#[derive(Component)]
struct HoverFrame(Board);

fn hover_image(board: Board) -> &'static str {
    match board {
        Board::Square(_) => "textures/hover.png",
        Board::Hex(HexLayout::OddR | HexLayout::EvenR) => "textures/hover_hex_pointy.png",
        Board::Hex(HexLayout::OddQ | HexLayout::EvenQ) => "textures/hover_hex_flat.png",
    }
}

fn draw_hover(
    mut commands: Commands,
    mut gizmos: Gizmos,
    cursor: Res<Cursor>,
    level: Res<Level>,
    server: Res<AssetServer>,
    mut frames: Query<(Entity, &HoverFrame, &mut Transform, &mut Visibility)>,
) {
    let geometry = level.geometry();
    // The frame's image is a square or a hex; an isometric map's diamond is outlined.
    let diamond = matches!(level.projection, Projection::Isometric { .. });
    if diamond && let Some(tile) = cursor.tile {
        outline(&mut gizmos, &geometry, tile, 1.0, Color::WHITE);
    }
    let Ok((entity, frame, mut transform, mut visibility)) = frames.single_mut() else {
        commands.spawn((
            HoverFrame(level.board),
            Sprite::from_image(server.load(hover_image(level.board))),
            Transform::from_xyz(0.0, 0.0, 4.0),
            Visibility::Hidden,
        ));
        return;
    };
    if frame.0 != level.board {
        commands.entity(entity).despawn();
        return;
    }
    match cursor.tile {
        Some(tile) if !diamond => {
            transform.translation = geometry.center(tile).extend(4.0);
            visibility.set_if_neq(Visibility::Inherited);
        }
        _ => {
            visibility.set_if_neq(Visibility::Hidden);
        }
    }
}

fn draw_paths(
    mut gizmos: Gizmos,
    level: Res<Level>,
    units: Query<(&Name, &Transform, &Path, &Motion), With<Selected>>,
) {
    let geometry = level.geometry();
    if units.iter().len() > ARMY_AT {
        // An army: where each unit goes, a small square on its tile.
        for (_, _, path, _) in &units {
            outline(&mut gizmos, &geometry, path.goal(), 0.4, PATH_TINTS[0]);
        }
        return;
    }
    let mut walking: Vec<_> = units.iter().collect();
    walking.sort_by(|a, b| a.0.as_str().cmp(b.0.as_str()));
    for (i, (_, transform, path, motion)) in walking.into_iter().enumerate() {
        let tint = PATH_TINTS[i % PATH_TINTS.len()];
        let from = transform.translation.truncate();
        let ahead = motion.stride.map(|s| s.to);
        let points = std::iter::once(from)
            .chain(ahead.map(|p| geometry.center(p)))
            .chain(path.remaining().iter().map(|&p| geometry.center(p)));
        gizmos.linestrip_2d(points, tint);
        for &waypoint in &path.waypoints {
            if waypoint >= path.next() {
                gizmos.circle_2d(
                    Isometry2d::from_translation(geometry.center(path.cells[waypoint])),
                    TILE_SIZE * 0.3,
                    tint,
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

/// The shown search's expanded cells, coloured from blue (first) to orange (last).
fn draw_search(
    mut gizmos: Gizmos,
    view: Res<SearchView>,
    searches: Res<Searches>,
    level: Res<Level>,
) {
    let Some(search) = view.0.and_then(|i| searches.0.get(i)) else {
        return;
    };
    let geometry = level.geometry();
    let count = search.expansions.len().max(1) as f32;
    for (i, &pos) in search.expansions.iter().enumerate() {
        let t = i as f32 / count;
        let color = Color::srgba(0.2 + 0.8 * t, 0.5, 1.0 - 0.8 * t, 0.9);
        outline(&mut gizmos, &geometry, pos, 0.6, color);
    }
}

#[cfg(test)]
mod tests {
    use bevy::ecs::system::RunSystemOnce;

    use super::*;

    /// The HUD's selection line for units of these classes, all selected.
    fn line_for(classes: &[&str]) -> String {
        let text = std::fs::read_to_string("assets/terrain.ron").unwrap();
        let table = TerrainTable::parse(&text).unwrap();
        let classes: Vec<MovementClass> = classes.iter().map(|c| table.class(c).unwrap()).collect();
        let mut world = World::new();
        for (i, &class) in classes.iter().enumerate() {
            world.spawn((Name::new(format!("u{i:02}")), class, Selected));
        }
        world.spawn((Name::new("idle"), MovementClass::default()));
        world
            .run_system_once(
                move |selected: Query<(&Name, &MovementClass), With<Selected>>| {
                    selected_line(&selected, &table)
                },
            )
            .unwrap()
    }

    #[test]
    fn a_few_selected_units_are_named_and_an_army_is_counted_per_class() {
        assert_eq!(line_for(&[]), "selected: none");
        assert_eq!(
            line_for(&["horse", "foot"]),
            "selected: u00 (horse), u01 (foot)"
        );
        let named = line_for(&["foot"; NAMED_AT_MOST]);
        assert!(
            named.starts_with("selected: u00 (foot), u01 (foot)"),
            "{named}"
        );
        let mut army = vec!["foot"; 1200];
        army.extend(["flyer"; 300]);
        assert_eq!(
            line_for(&army),
            "selected: 1500 units (1200 foot, 300 flyer)"
        );
    }

    /// A world with the level of `map` (on the shipped terrain table), its units, and an
    /// empty notice and help bar.
    fn world_of(map: &str) -> World {
        let table =
            TerrainTable::parse(&std::fs::read_to_string("assets/terrain.ron").unwrap()).unwrap();
        let mut app =
            crate::headless_app(&crate::map::MapAsset::parse(map).unwrap(), &table).unwrap();
        app.update();
        let mut world = std::mem::take(app.world_mut());
        world.init_resource::<Notice>();
        world.init_resource::<Painter>();
        world.insert_resource(State::new(Mode::RealTime));
        world.spawn((HelpText, Text::new("")));
        world
    }

    #[test]
    fn while_painting_the_help_bar_shows_the_painter_and_its_palette() {
        let mut world = world_of("[terrain]\n...\n[units]\nknight blue foot 0,0\n");
        let help = |world: &mut World| {
            world.run_system_once(show_help).unwrap();
            let mut texts = world.query_filtered::<&Text, With<HelpText>>();
            texts.single(world).unwrap().0.clone()
        };
        assert_eq!(help(&mut world), HELP);
        let second = world.resource::<Level>().table.terrains[1].name.clone();
        let mut painter = world.resource_mut::<Painter>();
        (painter.on, painter.terrain) = (true, 1);
        let painting = help(&mut world);
        assert!(
            painting.starts_with(&format!("PAINTING {second}  left-drag: paint")),
            "{painting}"
        );
        assert!(
            painting.contains("palette  1: ") && painting.contains(&format!("2: *{second}")),
            "{painting}"
        );
        world.resource_mut::<Painter>().on = false;
        assert_eq!(help(&mut world), HELP, "painting off: the controls again");
    }
}
