//! Tactics mode on screen: the selected unit's movement range (blue: stop here; pale: walk
//! through only) and the tiles it could attack after moving (red outlines), the exact path
//! and cost under the cursor, the enemy's threat (T), greyed units that have moved or acted,
//! the turn counter, a moved unit's action (right-click an enemy in reach to strike it,
//! Space to wait, Backspace to take the move back), what each strike did, and ending the
//! turn (Enter or the button).

use std::collections::BTreeSet;

use bevy::prelude::*;
use bevy_tilewalk::{Navigation, Refusal};
use tilewalk_path::{Pos, Range, SearchContext};

use super::layout::{HudPanel, PANEL_BACKGROUND, TopBar};
use super::sprites::{RefusalCross, team_color};
use super::{Cursor, Notice, TileShape, outline, route_line};
use crate::AppSystems;
use crate::level::Level;
use crate::tactics::{
    Acted, Board, CancelMove, EndTurn, EnemyTurn, Mode, Moved, PieceQuery, Strike, Struck,
    TacticsMove, TacticsRules, TerrainDefence, Turn, Wait,
};
use crate::units::{MovementClass, Selected, Team, Tile, Unit};

/// The range shown for the selected unit, computed when the board, the rules, the selection
/// or the threat toggle change, and read by the highlight, the preview and the move alike.
#[derive(Resource, Default)]
struct ShownRange {
    unit: Option<Entity>,
    /// The unit has moved this turn: no range, no preview, only its attack tiles.
    moved: bool,
    range: Range,
    attack: BTreeSet<Pos>,
    threat: BTreeSet<Pos>,
}

/// The enemy's threat outlines.
const THREAT: Color = Color::srgb(1.0, 0.55, 0.1);

/// Whether the enemy's threat is drawn.
#[derive(Resource, Default)]
struct ShowThreat(bool);

/// A translucent tile highlight, respawned when the shown range changes.
#[derive(Component)]
struct Highlight;

#[derive(Component)]
struct TurnText;

#[derive(Component)]
struct EndTurnButton;

pub(super) fn plugin(app: &mut App) {
    app.init_resource::<ShownRange>()
        .init_resource::<ShowThreat>()
        .add_systems(
            Update,
            spawn_turn_panel
                .in_set(AppSystems::Load)
                .run_if(in_state(Mode::Tactics)),
        )
        .add_systems(
            Update,
            (order_moves, end_turn_with_key, act_with_keys)
                .in_set(AppSystems::RecordInput)
                .run_if(
                    in_state(Mode::Tactics)
                        .and_then(resource_exists::<Level>)
                        .and_then(resource_exists::<TacticsRules>),
                ),
        )
        .add_systems(
            Update,
            (
                update_range,
                highlight_tiles,
                draw_preview,
                grey_moved_units,
                say_strikes,
                update_turn_text,
            )
                .chain()
                .in_set(AppSystems::Present)
                .run_if(
                    in_state(Mode::Tactics)
                        .and_then(resource_exists::<Level>)
                        .and_then(resource_exists::<TacticsRules>),
                ),
        );
}

/// The turn and the end-turn button at the right of the top bar, while in tactics mode (again
/// after the lab).
fn spawn_turn_panel(
    mut commands: Commands,
    existing: Query<(), With<TurnText>>,
    top: Single<Entity, With<TopBar>>,
) {
    if !existing.is_empty() {
        return;
    }
    commands
        .spawn((
            HudPanel("turn"),
            DespawnOnExit(Mode::Tactics),
            ChildOf(*top),
            Node {
                margin: UiRect::left(auto()),
                padding: UiRect::all(px(6)),
                column_gap: px(10),
                align_items: AlignItems::Center,
                flex_shrink: 0.0,
                ..default()
            },
            BackgroundColor(PANEL_BACKGROUND),
        ))
        .with_children(|panel| {
            panel.spawn((
                TurnText,
                Text::new("turn 1"),
                TextFont::from_font_size(15.0),
            ));
            panel
                .spawn((
                    EndTurnButton,
                    Button,
                    Node {
                        padding: UiRect::axes(px(10), px(4)),
                        ..default()
                    },
                    BackgroundColor(Color::srgb(0.22, 0.35, 0.6)),
                    children![(
                        Text::new("End turn (Enter)"),
                        TextFont::from_font_size(15.0)
                    )],
                ))
                .observe(
                    |press: On<Pointer<Press>>, mut end: MessageWriter<EndTurn>| {
                        // On the press, where the pointer is this frame (see view::input).
                        if press.button == PointerButton::Primary {
                            end.write(EndTurn);
                        }
                    },
                );
        });
}

fn end_turn_with_key(
    keys: Res<ButtonInput<KeyCode>>,
    mut end: MessageWriter<EndTurn>,
    mut show: ResMut<ShowThreat>,
) {
    if keys.any_just_pressed([KeyCode::Enter, KeyCode::NumpadEnter]) {
        end.write(EndTurn);
    }
    if keys.just_pressed(KeyCode::KeyT) {
        show.0 = !show.0;
    }
}

/// The one selected unit, if exactly one is selected.
fn single(selected: &Query<Entity, With<Selected>>) -> Option<Entity> {
    let mut all = selected.iter();
    let first = all.next()?;
    all.next().is_none().then_some(first)
}

/// Anything that changes what the range shows: units moving or (de)selected, turns passing
/// (and units removed in combat, below).
type BoardChanged = Or<(Changed<Tile>, Added<Selected>, Added<Moved>, Added<Unit>)>;

fn update_range(
    level: Res<Level>,
    nav: Res<Navigation>,
    rules: Res<TacticsRules>,
    units: PieceQuery,
    selected: Query<Entity, With<Selected>>,
    (show, turn): (Res<ShowThreat>, Res<Turn>),
    changed: Query<(), BoardChanged>,
    (mut deselected, mut unmoved, mut fallen): (
        RemovedComponents<Selected>,
        RemovedComponents<Moved>,
        RemovedComponents<Unit>,
    ),
    mut shown: ResMut<ShownRange>,
    mut context: Local<SearchContext>,
) {
    let removed = deselected.read().count() + unmoved.read().count() + fallen.read().count() > 0;
    let resources = level.is_changed() || rules.is_changed() || show.is_changed();
    if !(resources || turn.is_changed() || removed || !changed.is_empty()) {
        return;
    }
    let board = Board::new(&nav, &rules, &units);
    let piece = single(&selected).and_then(|e| board.piece(e));
    let (range, attack) = match piece {
        Some(piece) => {
            let range = board.range(&mut context, piece);
            let attack = board.attack_tiles(piece, &range);
            (range, attack)
        }
        None => Default::default(),
    };
    let threat = if show.0 {
        board.threat(&mut context, turn.team.opponent())
    } else {
        BTreeSet::new()
    };
    let unit = piece.map(|p| p.entity);
    let moved = piece.is_some_and(|p| p.moved);
    // Only touch the resource when something changed, so highlights are rebuilt rarely.
    if shown.unit != unit
        || shown.moved != moved
        || shown.range != range
        || shown.attack != attack
        || shown.threat != threat
    {
        *shown = ShownRange {
            unit,
            moved,
            range,
            attack,
            threat,
        };
    }
}

fn highlight_tiles(
    mut commands: Commands,
    shown: Res<ShownRange>,
    level: Res<Level>,
    shape: Option<Res<TileShape>>,
    old: Query<Entity, With<Highlight>>,
) {
    let Some(shape) = shape.filter(|s| shown.is_changed() || s.is_changed()) else {
        return;
    };
    for entity in &old {
        commands.entity(entity).despawn();
    }
    let geometry = level.geometry();
    // Each tile: a translucent fill, and a frame whose dark outer line shows on light
    // terrain and whose tinted inner line shows on dark terrain and water, where a blue
    // fill alone reads as more water.
    let mut tile = |pos: Pos, fill: Color, frame: Color| {
        let centre = geometry.center(pos);
        for (image, color, z) in [(&shape.image, fill, 2.0), (&shape.frame, frame, 2.1)] {
            commands.spawn((
                Highlight,
                Sprite {
                    image: image.clone(),
                    color,
                    custom_size: Some(shape.size - 2.0),
                    ..default()
                },
                Transform::from_translation(centre.extend(z)),
            ));
        }
    };
    // Blue where the unit may stop; a paler, whiter blue where it may only pass (an ally
    // stands there). The enemy's threat is drawn as outlines (see `draw_preview`): a red
    // fill over green grass reads as olive and hides the terrain.
    for reached in shown.range.cells() {
        if reached.can_stop {
            tile(
                reached.pos,
                Color::srgba(0.2, 0.5, 1.0, 0.4),
                Color::srgb(0.55, 0.8, 1.0),
            );
        } else {
            tile(
                reached.pos,
                Color::srgba(0.85, 0.95, 1.0, 0.5),
                Color::WHITE,
            );
        }
    }
}

/// The exact path and cost to the tile under the cursor, read from the shown range; or why
/// that tile cannot be chosen.
fn draw_preview(
    mut gizmos: Gizmos,
    shown: Res<ShownRange>,
    cursor: Res<Cursor>,
    level: Res<Level>,
    (nav, rules, defence): (
        Res<Navigation>,
        Res<TacticsRules>,
        Option<Res<TerrainDefence>>,
    ),
    units: Query<(&Name, &MovementClass), With<Unit>>,
    pieces: PieceQuery,
    (mut cross, mut notice): (ResMut<RefusalCross>, ResMut<Notice>),
) {
    let geometry = level.geometry();
    // The enemy's threat: two orange rings inside each tile, readable on grass, water and mud.
    for &pos in &shown.threat {
        for scale in [0.9, 0.8] {
            outline(&mut gizmos, &geometry, pos, scale, THREAT);
        }
    }
    for &pos in shown.attack.iter().filter(|p| !shown.range.contains(**p)) {
        outline(
            &mut gizmos,
            &geometry,
            pos,
            0.8,
            Color::srgb(0.95, 0.3, 0.25),
        );
    }
    let (Some(unit), Some(pos)) = (shown.unit, cursor.tile) else {
        return;
    };
    let Ok((name, &class)) = units.get(unit) else {
        return;
    };
    // Over an enemy: the strike's forecast, damage both ways, or why there is none.
    let board = Board::new(&nav, &rules, &pieces).with_defence(defence.as_deref());
    let attacker = board.piece(unit);
    let target = board
        .pieces
        .iter()
        .find(|p| p.tile == pos && attacker.is_some_and(|a| a.team != p.team));
    if let (Some(attacker), Some(target)) = (attacker, target) {
        let target_name = units.get(target.entity).map_or("", |(n, _)| n.as_str());
        if !board.in_reach(attacker, target) {
            notice.hint(format!("{target_name} is out of {name}'s reach"));
            return;
        }
        let forecast = board.forecast(attacker, target);
        let back = forecast
            .counter
            .map_or_else(|| "no counter".to_owned(), |c| format!("{c} back"));
        notice.hint(format!(
            "right-click: {name} strikes {target_name} for {} ({} hp left), {back}",
            forecast.damage,
            target.hp.saturating_sub(forecast.damage)
        ));
        return;
    }
    // The hints are the refusals a move there would get, word for word.
    let unit = name.as_str();
    if shown.moved {
        notice.hint(Refusal::AlreadyMoved.message(unit, &*nav));
        return;
    }
    match (shown.range.get(pos), shown.range.path_to(pos)) {
        (Some(reached), Some(path)) if reached.can_stop => {
            route_line(
                &mut gizmos,
                &geometry,
                &path.cells,
                Color::srgb(1.0, 0.9, 0.2),
            );
            notice.hint(format!(
                "{name} to {pos}: cost {:.2} of {} points",
                reached.cost,
                rules.movement_points(nav.name(class))
            ));
        }
        (Some(_), _) => notice.hint(Refusal::Occupied { to: pos }.message(unit, &*nav)),
        _ => {
            cross.0 = Some(pos);
            notice.hint(Refusal::OutOfRange { to: pos }.message(unit, &*nav));
        }
    }
}

/// A right click moves the selected unit to the tile, or strikes the enemy standing on it.
fn order_moves(
    cursor: Res<Cursor>,
    shown: Res<ShownRange>,
    units: Query<(Entity, &Tile, &Team), With<Unit>>,
    mut moves: MessageWriter<TacticsMove>,
    mut strikes: MessageWriter<Strike>,
    mut notice: ResMut<Notice>,
) {
    let Some(at) = cursor.pressed(MouseButton::Right).filter(|at| !at.over_ui) else {
        return;
    };
    match (shown.unit, at.tile) {
        (Some(unit), Some(to)) => {
            let side = units.get(unit).map(|(_, _, team)| *team).ok();
            let enemy = units
                .iter()
                .find(|(_, tile, team)| tile.0 == to && Some(**team) != side);
            match enemy {
                Some((target, _, _)) => {
                    strikes.write(Strike {
                        attacker: unit,
                        target,
                    });
                }
                None => {
                    moves.write(TacticsMove { unit, to });
                }
            }
        }
        (None, _) => notice.say("select one unit of yours first"),
        (_, None) => notice.say("that is outside the map"),
    }
}

/// Space: the selected unit waits (its action ends); Backspace: its move is taken back.
fn act_with_keys(
    keys: Res<ButtonInput<KeyCode>>,
    shown: Res<ShownRange>,
    mut waits: MessageWriter<Wait>,
    mut cancels: MessageWriter<CancelMove>,
    mut notice: ResMut<Notice>,
) {
    let (wait, cancel) = (
        keys.just_pressed(KeyCode::Space),
        keys.just_pressed(KeyCode::Backspace),
    );
    if !(wait || cancel) {
        return;
    }
    let Some(unit) = shown.unit else {
        notice.say("select one unit of yours first");
        return;
    };
    if wait {
        waits.write(Wait { unit });
    } else {
        cancels.write(CancelMove { unit });
    }
}

/// Says what each strike did, with the units' names.
fn say_strikes(mut struck: MessageReader<Struck>, names: Query<&Name>, mut notice: ResMut<Notice>) {
    for strike in struck.read() {
        let name = |e: Entity| {
            names
                .get(e)
                .map_or("a unit".to_owned(), ToString::to_string)
        };
        let (attacker, target) = (name(strike.attacker), name(strike.target));
        let mut text = format!("{attacker} strikes {target}: {} damage", strike.damage);
        if let Some(counter) = strike.counter {
            text += &format!(", {counter} back");
        }
        text += &format!(
            " ({attacker} {} hp, {target} {} hp)",
            strike.attacker_hp, strike.target_hp
        );
        notice.say(text);
    }
}

/// A unit's side, whether it has moved and acted, and its sprite.
type Dress<'a> = (&'a Team, Has<Moved>, Has<Acted>, &'a mut Sprite);

fn grey_moved_units(mut units: Query<Dress, With<Unit>>) {
    for (&team, moved, acted, mut sprite) in &mut units {
        let color = if moved || acted {
            team_color(team).mix(&Color::srgb(0.35, 0.35, 0.35), 0.7)
        } else {
            team_color(team)
        };
        if sprite.color != color {
            sprite.color = color;
        }
    }
}

fn update_turn_text(
    turn: Res<Turn>,
    enemy: Res<EnemyTurn>,
    text: Single<(&mut Text, Ref<TurnText>)>,
) {
    let (mut text, panel) = text.into_inner();
    if !(turn.is_changed() || enemy.is_changed() || panel.is_added()) {
        return;
    }
    let moving = enemy.moves.len();
    text.0 = match turn.team {
        Team::Red => format!(
            "turn {}: red is moving ({} of {moving})",
            turn.number,
            moving - enemy.waiting.len()
        ),
        Team::Blue if moving > 0 => {
            format!(
                "turn {}: your move (blue); red moved {moving} units",
                turn.number
            )
        }
        Team::Blue => format!("turn {}: your move (blue)", turn.number),
    };
}
