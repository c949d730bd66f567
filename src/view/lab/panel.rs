//! The lab's panel: the configuration (each line a button that does what its key does),
//! the terrain palette, the replay's position with a slider and transport buttons, and with
//! compare on, what each configuration's search did, a wrapped line each. It fills the lab's
//! column at the right of the window (view::layout) and scrolls with the wheel.

use bevy::input::mouse::{AccumulatedMouseScroll, MouseScrollUnit};
use bevy::prelude::*;
use bevy::ui::RelativeCursorPosition;
use tilewalk_path::{Board, Direction, TraceEvent};

use super::draw::{BACKWARD_CLOSED, BACKWARD_OPEN, FORWARD_CLOSED, FORWARD_OPEN, PATHS};
use super::{Lab, LabAction, LabAlgorithm};
use crate::AppSystems;
use crate::level::{Level, MapHistory};
use crate::tactics::Mode;
use crate::view::TakesClicks;
use crate::view::hud::show;
use crate::view::layout::{HudPanel, LabSlot};
use crate::view::minimap::terrain_color;
use crate::view::paint::Painter;

#[derive(Component)]
struct Panel;

/// A line of the configuration, showing its current value.
#[derive(Component, Clone, Copy)]
enum Setting {
    Class,
    Algorithm,
    Heuristic,
    Board,
    Weight,
    Compare,
}

#[derive(Component)]
struct PaletteButton(usize);

#[derive(Component)]
struct ReplayText;

#[derive(Component)]
struct FooterText;

#[derive(Component)]
struct Slider;

#[derive(Component)]
struct SliderFill;

/// A line of the compare table: what one configuration's search did.
#[derive(Component)]
struct RunText(usize);

const FONT: f32 = 13.0;
const TABLE_FONT: f32 = 10.5;
const BUTTON: Color = Color::srgb(0.2, 0.27, 0.4);

pub(super) fn plugin(app: &mut App) {
    app.add_systems(OnExit(Mode::Lab), despawn_panel)
        .add_systems(
            Update,
            spawn_panel
                .in_set(AppSystems::Load)
                .run_if(in_state(Mode::Lab).and_then(resource_exists::<Level>)),
        )
        .add_systems(
            Update,
            (scrub, scroll_panel)
                .in_set(AppSystems::RecordInput)
                .run_if(in_state(Mode::Lab).and_then(resource_exists::<Lab>)),
        )
        .add_systems(
            Update,
            (update_settings, update_palette, update_replay, update_table)
                .in_set(AppSystems::Hud)
                .run_if(
                    in_state(Mode::Lab)
                        .and_then(resource_exists::<Lab>)
                        .and_then(resource_exists::<Level>),
                ),
        );
}

fn text(value: impl Into<String>) -> impl Bundle {
    (Text::new(value), TextFont::from_font_size(FONT))
}

/// A button that does what a key does.
fn button(parent: &mut ChildSpawnerCommands, action: LabAction, label: impl Bundle) {
    parent
        .spawn((
            Button,
            Node {
                padding: UiRect::axes(px(6), px(2)),
                ..default()
            },
            BackgroundColor(BUTTON),
            children![label],
        ))
        .observe(
            // On the press, where the pointer is this frame (a click's release is matched
            // with the frame before's hover, and lost when the pointer moved and clicked
            // within one frame).
            move |press: On<Pointer<Press>>, mut actions: MessageWriter<LabAction>| {
                if press.button == PointerButton::Primary {
                    actions.write(action);
                }
            },
        );
}

fn row() -> Node {
    Node {
        flex_direction: FlexDirection::Row,
        flex_wrap: FlexWrap::Wrap,
        column_gap: px(4),
        row_gap: px(4),
        ..default()
    }
}

/// Spawns the panel once the level is there (its palette is the level's terrains).
fn spawn_panel(
    mut commands: Commands,
    level: Res<Level>,
    panels: Query<(), With<Panel>>,
    slot: Single<(Entity, &mut Node), With<LabSlot>>,
) {
    if !panels.is_empty() {
        return;
    }
    let (slot, mut slot_node) = slot.into_inner();
    show(&mut slot_node, true);
    let settings = [
        (Setting::Class, LabAction::Class),
        (Setting::Algorithm, LabAction::Algorithm),
        (Setting::Heuristic, LabAction::Heuristic),
        (Setting::Board, LabAction::Board),
        (Setting::Weight, LabAction::Weight(1.25)),
        (Setting::Compare, LabAction::Compare),
    ];
    let terrains: Vec<(usize, String, u32)> = level
        .table
        .terrains
        .iter()
        .take(9)
        .enumerate()
        .map(|(i, t)| (i, t.name.clone(), t.tile))
        .collect();
    commands
        .spawn((
            Panel,
            HudPanel("lab"),
            ChildOf(slot),
            TakesClicks,
            RelativeCursorPosition::default(),
            // In the lab's column, the window's height at most; the wheel scrolls the rest.
            Node {
                max_height: percent(100),
                padding: UiRect::all(px(8)),
                flex_direction: FlexDirection::Column,
                row_gap: px(5),
                overflow: Overflow::scroll_y(),
                ..default()
            },
            ScrollPosition::default(),
            BackgroundColor(Color::srgba(0.05, 0.06, 0.08, 0.85)),
        ))
        .with_children(|panel| {
            panel.spawn(text("SEARCH LAB   (L: leave, Tab: other search)"));
            for (setting, action) in settings {
                button(panel, action, (setting, text("")));
            }
            panel.spawn(text("paint (1-9, left-drag; right-drag erases):"));
            panel.spawn(row()).with_children(|palette| {
                for (i, name, tile) in terrains {
                    let [r, g, b, _] = terrain_color(tile);
                    palette
                        .spawn((
                            PaletteButton(i),
                            Button,
                            Node {
                                padding: UiRect::axes(px(5), px(2)),
                                border: UiRect::all(px(2)),
                                ..default()
                            },
                            BorderColor::all(Color::NONE),
                            BackgroundColor(Color::srgb_u8(r, g, b)),
                            children![text(format!("{} {name}", i + 1))],
                        ))
                        .observe(
                            move |press: On<Pointer<Press>>, mut painter: ResMut<Painter>| {
                                if press.button == PointerButton::Primary {
                                    painter.terrain = i;
                                }
                            },
                        );
                }
            });
            panel.spawn((ReplayText, text("")));
            panel
                .spawn((
                    Slider,
                    RelativeCursorPosition::default(),
                    Node {
                        width: percent(100),
                        height: px(14),
                        ..default()
                    },
                    BackgroundColor(Color::srgb(0.25, 0.25, 0.3)),
                ))
                .with_child((
                    SliderFill,
                    Node {
                        width: percent(0),
                        height: percent(100),
                        ..default()
                    },
                    BackgroundColor(Color::srgb(0.45, 0.7, 1.0)),
                ));
            panel.spawn(row()).with_children(|transport| {
                for (label, action) in [
                    ("|<", LabAction::Jump(false)),
                    ("<", LabAction::Step(-1)),
                    ("play/pause", LabAction::PlayPause),
                    (">", LabAction::Step(1)),
                    (">|", LabAction::Jump(true)),
                    ("slower", LabAction::Faster(false)),
                    ("faster", LabAction::Faster(true)),
                ] {
                    button(transport, action, text(label));
                }
            });
            panel.spawn(row()).with_children(|legend| {
                for (label, color) in [
                    ("frontier", FORWARD_OPEN),
                    ("expanded", FORWARD_CLOSED),
                    ("back frontier", BACKWARD_OPEN),
                    ("back expanded", BACKWARD_CLOSED),
                ] {
                    legend.spawn((
                        Node {
                            padding: UiRect::axes(px(4), px(1)),
                            ..default()
                        },
                        BackgroundColor(color.with_alpha(0.9)),
                        children![(text(label), TextColor(Color::BLACK))],
                    ));
                }
            });
            panel.spawn(text(
                "tiles (zoom in): g h / priority (A*: f = g + h; bidirectional: its key), arrows to parents; white: the cell being expanded",
            ));
            // What each configuration's search did, a line each (wrapped to the panel).
            for run in 0..2 {
                panel.spawn((
                    RunText(run),
                    Text::new(""),
                    TextFont::from_font_size(TABLE_FONT),
                ));
            }
            panel.spawn((FooterText, text("")));
        });
}

fn despawn_panel(
    mut commands: Commands,
    panels: Query<Entity, With<Panel>>,
    mut slot: Single<&mut Node, With<LabSlot>>,
) {
    for panel in &panels {
        commands.entity(panel).despawn();
    }
    show(&mut slot, false);
}

/// The wheel over the panel scrolls it (a short window cannot show all of it).
fn scroll_panel(
    wheel: Res<AccumulatedMouseScroll>,
    panel: Single<(&mut ScrollPosition, &RelativeCursorPosition), With<Panel>>,
) {
    let (mut scroll, over) = panel.into_inner();
    if wheel.delta.y == 0.0 || !over.cursor_over() {
        return;
    }
    let pixels = match wheel.unit {
        MouseScrollUnit::Line => wheel.delta.y * 3.0 * FONT,
        MouseScrollUnit::Pixel => wheel.delta.y,
    };
    scroll.y = (scroll.y - pixels).max(0.0);
}

/// Pressing or dragging on the slider scrubs the replay.
fn scrub(
    buttons: Res<ButtonInput<MouseButton>>,
    slider: Single<&RelativeCursorPosition, With<Slider>>,
    mut actions: MessageWriter<LabAction>,
    mut last: Local<Option<f32>>,
) {
    if !buttons.pressed(MouseButton::Left) {
        *last = None;
        return;
    }
    let Some(at) = slider.normalized.filter(|_| slider.cursor_over()) else {
        return;
    };
    // `normalized` runs from -0.5 to 0.5 across the node.
    let fraction = (at.x + 0.5).clamp(0.0, 1.0);
    if *last != Some(fraction) {
        *last = Some(fraction);
        actions.write(LabAction::Seek(fraction));
    }
}

fn update_settings(lab: Res<Lab>, level: Res<Level>, mut texts: Query<(&Setting, &mut Text)>) {
    if !(lab.is_changed() || level.is_changed()) {
        return;
    }
    let config = lab.config();
    for (setting, mut text) in &mut texts {
        let value = match setting {
            Setting::Class => format!("class: {}  (C)", level.class_name(lab.class)),
            Setting::Algorithm => format!("algorithm: {}  (G)", config.algorithm.name()),
            Setting::Heuristic if config.algorithm.guided() => {
                format!("heuristic: {}  (H)", config.heuristic_name(level.board))
            }
            Setting::Heuristic => format!("heuristic: none for {}  (H)", config.algorithm.name()),
            Setting::Board => match level.board {
                Board::Square(_) => format!("board: {}  (B)", config.board(level.board)),
                hex => format!("board: {hex} (the map's)"),
            },
            Setting::Weight if config.algorithm == LabAlgorithm::WeightedAStar => {
                format!("weight: {}  (= / -)", config.weight)
            }
            Setting::Weight => format!("weight: 1 (weighted A*: {})", config.weight),
            Setting::Compare if lab.compare => {
                format!("compare: on, showing {} of 2  (V, Tab)", lab.active + 1)
            }
            Setting::Compare => "compare: off  (V)".to_owned(),
        };
        if text.0 != value {
            text.0 = value;
        }
    }
}

fn update_palette(painter: Res<Painter>, mut buttons: Query<(&PaletteButton, &mut BorderColor)>) {
    if !painter.is_changed() {
        return;
    }
    for (button, mut border) in &mut buttons {
        *border = BorderColor::all(if button.0 == painter.terrain {
            Color::WHITE
        } else {
            Color::NONE
        });
    }
}

fn update_replay(
    lab: Res<Lab>,
    level: Res<Level>,
    history: Res<MapHistory>,
    mut replay: Single<&mut Text, (With<ReplayText>, Without<FooterText>)>,
    mut footer: Single<&mut Text, (With<FooterText>, Without<ReplayText>)>,
    mut fill: Single<&mut Node, With<SliderFill>>,
) {
    if !(lab.is_changed() || history.is_changed()) {
        return;
    }
    let (step, end) = (lab.replay.step(), lab.events());
    let last = step
        .checked_sub(1)
        .and_then(|i| lab.run()?.trace.events().get(i).copied());
    let what = match last {
        None => "not started".to_owned(),
        Some(event) => describe(&event),
    };
    let (expanded, pushed) = lab.replay.counts();
    replay.0 = format!(
        "event {step} of {end}: {what}\nexpanded {expanded}, pushed {pushed}; {} at {:.0} events/s  (Space, , . [ ])",
        if lab.playing { "playing" } else { "paused" },
        lab.speed()
    );
    fill.width = percent(if end == 0 {
        0.0
    } else {
        step as f32 * 100.0 / end as f32
    });
    footer.0 = format!(
        "S {} to G {} ({})   Ctrl+S save{}   Ctrl+Z undo",
        lab.start,
        lab.goal,
        level.class_name(lab.class),
        if history.unsaved {
            " (unsaved changes)"
        } else {
            ""
        }
    );
}

/// One line for a trace event.
fn describe(event: &TraceEvent) -> String {
    let side = |d: Direction| match d {
        Direction::Forward => "",
        Direction::Backward => "back: ",
    };
    match *event {
        TraceEvent::Push {
            direction,
            pos,
            g,
            h,
            f,
            ..
        } => format!("{}push {pos} g {g:.2} h {h:.2} f {f:.2}", side(direction)),
        TraceEvent::Relax {
            direction,
            pos,
            old_g,
            g,
            ..
        } => format!(
            "{}cheaper way to {pos}: g {old_g:.2} -> {g:.2}",
            side(direction)
        ),
        TraceEvent::Expand { direction, pos, g } => {
            format!("{}expand {pos} (g {g:.2} is final)", side(direction))
        }
        TraceEvent::Scan { from, found, .. } => match found {
            Some(to) => format!("scan from {from} found jump point {to}"),
            None => format!("scan from {from} hit a wall"),
        },
        TraceEvent::Meet { cost, .. } => format!("the searches meet: a path of cost {cost:.2}"),
        TraceEvent::Stop { best, bound } => {
            format!("stop: nothing left can beat {best:.2} (bound {bound:.2})")
        }
    }
}

fn update_table(
    lab: Res<Lab>,
    level: Res<Level>,
    mut lines: Query<(&RunText, &mut Text, &mut TextColor)>,
) {
    if !lab.is_changed() {
        return;
    }
    for (line, mut text, mut color) in &mut lines {
        let value = lab.runs.get(line.0).map_or_else(String::new, |run| {
            let label = run.config.label(level.board);
            let time = format!("{:.0} us", run.time.as_secs_f64() * 1e6);
            let Ok(found) = run.result.as_ref() else {
                return format!("{label}: no path, {time}");
            };
            let optimal = match (run.optimal(), run.optimum) {
                (Some(true), _) => ", optimal".to_owned(),
                (Some(false), Some(best)) => {
                    format!(", not optimal (+{:.2})", found.path.cost - best)
                }
                _ => String::new(),
            };
            format!(
                "{label}: {} expanded, {} pushed, cost {:.2}, {time}{optimal}",
                found.stats.expanded, found.stats.pushed, found.path.cost
            )
        });
        if text.0 != value {
            text.0 = value;
        }
        color.0 = PATHS[line.0];
    }
}
