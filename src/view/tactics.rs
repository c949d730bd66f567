//! Tactics mode on screen: the selected unit's movement range (blue: stop here; pale: walk
//! through only) and the tiles it could attack after moving (red outlines), the exact path
//! and cost under the cursor, the enemy's threat (T), each unit's state (ready; moved, may
//! still act: an amber frame; done: greyed) and hit points (a bar under it, a line in the
//! status on hover), the turn banner, a moved unit's action (right-click an enemy in reach to
//! strike it, Space to wait, Backspace to take the move back), ending the turn (Enter or the
//! button), the enemy's turn shown move by move and strike by strike (Space, Escape or a
//! click skips the show), the turn log (the last turn's moves and strikes, until the player
//! acts), and the end of a game: a banner naming the winner, `R` or the button (now "Play
//! again") to play the map again.

use std::collections::{BTreeSet, HashMap};
use std::f32::consts::FRAC_1_SQRT_2;

use bevy::prelude::*;
use bevy_tilewalk::tactics::{
    Acted, CancelMove, EndTurn, EnemyTurn, Health, Intent, Moved, PieceQuery, Strike, Struck,
    TacticsBoard, TacticsMove, TacticsMoved, TacticsRules, TerrainDefence, Turn, Wait, Won,
};
use bevy_tilewalk::{MovementClass, Navigation, Refusal, Sides, Team, Tile, Unit};
use tilewalk_path::{Pos, Range, SearchContext};

use super::layout::{HudPanel, MapArea, MinimapSlot, PANEL_BACKGROUND, TopBar};
use super::sprites::{RefusalCross, team_color};
use super::{Cursor, Notice, TileShape, outline, route_line};
use crate::AppSystems;
use crate::convert::{Geometry, Projection as MapProjection};
use crate::journal::{Entry, EventLog, Journal};
use crate::level::{Level, RestartLevel};
use crate::tactics::{Mode, Players, Presenting, other_side, strike_hint};
use crate::units::{Selected, UNIT_Z};

/// The range shown for the selected unit, computed when the board, the rules, the selection
/// or the threat toggle change, and read by the highlight, the preview and the move alike.
#[derive(Resource, Default)]
struct ShownRange {
    unit: Option<Entity>,
    /// The unit's side: its range is drawn in its colour.
    team: Option<Team>,
    /// The unit has moved this turn: no range, no preview, only its attack tiles.
    moved: bool,
    /// The unit is done this turn (it struck or waited): no range and no attack tiles.
    acted: bool,
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

/// The button beside the turn: "End turn" while the game goes on, "Play again" once a side
/// has won.
#[derive(Component)]
struct TurnButton;

/// The text of the [`TurnButton`].
#[derive(Component)]
struct TurnButtonText;

/// The side that won the game being played; `None` while it goes on. Input for the game
/// stops once it is set, but `R` and the Play again button (the map afresh).
#[derive(Resource, Default, Debug, PartialEq)]
struct GameOver(Option<Team>);

/// The player skipped the show of this enemy turn: its remaining moves and strikes are not
/// drawn one by one.
#[derive(Resource, Default)]
struct Skipping(bool);

/// Where each unit removed in combat last stood, for the strike that removed it.
#[derive(Resource, Default)]
struct Gone(HashMap<Entity, Vec2>);

/// How long one step of a shown move takes, and the most a whole move's show takes (a long
/// move's steps go faster).
const SHOW_STEP_SECS: f32 = 0.15;
const SHOW_MOVE_SECS: f32 = 1.5;
/// How long a strike is shown.
const SHOW_STRIKE_SECS: f32 = 0.7;

/// A move being shown: the unit walks its way on screen, tile by tile (it stands on the last
/// tile already).
#[derive(Component)]
struct WalkShow {
    cells: Vec<Pos>,
    elapsed: f32,
    step: f32,
}

/// A strike being shown: a line from the attacker to the target, and a ring on the target.
#[derive(Component)]
struct StrikeShow {
    from: Vec2,
    to: Vec2,
    elapsed: f32,
}

/// The last turn's moves and strikes, as the player reads them: red's stay until the player
/// acts (the player's own then start the next list).
#[derive(Resource, Default, Debug)]
struct TurnLog {
    /// The turn and the side the lines are of.
    turn: Option<(u32, Team)>,
    lines: Vec<String>,
}

/// The lines a turn log shows at most (the latest).
const LOG_LINES: usize = 14;

#[derive(Component)]
struct LogText;

/// The banner over the map at the end of a game.
#[derive(Component)]
struct Banner;

#[derive(Component)]
struct BannerText;

/// A unit's hit-point bar (a child of the unit): its background, and the part left.
#[derive(Component)]
struct HealthBar;

#[derive(Component)]
struct HealthFill;

/// The bar's size, in world units, and how far under the unit's centre it sits.
const BAR_SIZE: Vec2 = Vec2::new(24.0, 4.0);
const BAR_OFFSET: f32 = -15.0;

/// The hovered unit in tactics, as the status panel's line (empty when none).
#[derive(Resource, Default, Debug)]
pub(super) struct HoveredUnit(pub String);

pub(super) fn plugin(app: &mut App) {
    let tactics = || {
        in_state(Mode::Tactics)
            .and_then(resource_exists::<Level>)
            .and_then(resource_exists::<TacticsRules>)
    };
    app.init_resource::<ShownRange>()
        .init_resource::<ShowThreat>()
        .init_resource::<GameOver>()
        .init_resource::<Skipping>()
        .init_resource::<Gone>()
        .init_resource::<TurnLog>()
        .init_resource::<HoveredUnit>()
        .add_observer(remember_gone)
        .add_systems(
            Update,
            (spawn_turn_panel, spawn_turn_log, spawn_banner)
                .in_set(AppSystems::Load)
                .run_if(in_state(Mode::Tactics)),
        )
        .add_systems(
            Update,
            (
                (order_moves, act_with_keys)
                    .run_if(resource_equals(GameOver(None)).and_then(a_person_plays)),
                end_turn_with_key.run_if(resource_equals(GameOver(None))),
                restart_with_r,
                skip_show,
            )
                .in_set(AppSystems::RecordInput)
                .run_if(tactics()),
        )
        .add_systems(
            Update,
            (
                update_range,
                highlight_tiles,
                draw_preview,
                show_unit_states,
                start_shows,
                play_shows,
                dress_health,
                hover_unit,
                finish_game,
                update_turn_log,
                update_turn_text,
                update_turn_button,
                update_banner,
            )
                .chain()
                .in_set(AppSystems::Present)
                .run_if(tactics()),
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
                    TurnButton,
                    Button,
                    Node {
                        padding: UiRect::axes(px(10), px(4)),
                        ..default()
                    },
                    BackgroundColor(Color::srgb(0.22, 0.35, 0.6)),
                    children![(
                        TurnButtonText,
                        Text::new(END_TURN),
                        TextFont::from_font_size(15.0)
                    )],
                ))
                .observe(
                    |press: On<Pointer<Press>>,
                     mut end: MessageWriter<EndTurn>,
                     mut restart: MessageWriter<RestartLevel>,
                     (over, players, turn): (Res<GameOver>, Res<Players>, Res<Turn>)| {
                        // On the press, where the pointer is this frame (see view::input).
                        if press.button != PointerButton::Primary {
                            return;
                        }
                        match over.0 {
                            // An AI ends its own turns.
                            None if !players.person_plays(turn.team) => {}
                            None => {
                                end.write(EndTurn);
                            }
                            Some(_) => {
                                restart.write(RestartLevel);
                            }
                        }
                    },
                );
        });
}

/// The turn log's panel, a column of its own at the left of the map's row (left of the
/// minimap's, when there is one), at its top. Its width is fixed, so the map area keeps its
/// size as the log's lines change.
fn spawn_turn_log(
    mut commands: Commands,
    existing: Query<(), With<LogText>>,
    slot: Single<&ChildOf, With<MinimapSlot>>,
) {
    if !existing.is_empty() {
        return;
    }
    let log = commands
        .spawn((
            HudPanel("log"),
            DespawnOnExit(Mode::Tactics),
            Node {
                width: px(LOG_WIDTH_PX),
                flex_shrink: 0.0,
                align_self: AlignSelf::FlexStart,
                padding: UiRect::all(px(6)),
                ..default()
            },
            BackgroundColor(PANEL_BACKGROUND),
            children![(
                LogText,
                Text::new("turn log: nothing yet"),
                TextFont::from_font_size(13.0),
                TextColor(Color::srgb(0.85, 0.87, 0.9)),
            )],
        ))
        .id();
    commands.entity(slot.parent()).insert_children(0, &[log]);
}

/// The turn log's width.
const LOG_WIDTH_PX: f32 = 290.0;

/// The end-of-game banner over the map, hidden until a side wins.
fn spawn_banner(
    mut commands: Commands,
    existing: Query<(), With<Banner>>,
    area: Single<Entity, With<MapArea>>,
) {
    if !existing.is_empty() {
        return;
    }
    commands.spawn((
        Banner,
        DespawnOnExit(Mode::Tactics),
        ChildOf(*area),
        Node {
            display: Display::None,
            position_type: PositionType::Absolute,
            left: px(0),
            right: px(0),
            top: percent(30),
            justify_content: JustifyContent::Center,
            ..default()
        },
        Pickable::IGNORE,
        children![(
            Node {
                padding: UiRect::axes(px(24), px(14)),
                ..default()
            },
            BackgroundColor(Color::srgba(0.03, 0.04, 0.06, 0.88)),
            children![(
                BannerText,
                Text::new(""),
                TextFont::from_font_size(30.0),
                TextLayout::justify(Justify::Center),
            )],
        )],
    ));
}

/// Where the units removed in combat stood, for the show of the strike that removed them.
fn remember_gone(gone: On<Remove, Unit>, places: Query<&Transform>, mut seen: ResMut<Gone>) {
    if let Ok(place) = places.get(gone.entity) {
        seen.0.insert(gone.entity, place.translation.truncate());
    }
}

/// `R` once a game is over: the same map afresh.
fn restart_with_r(
    keys: Res<ButtonInput<KeyCode>>,
    over: Res<GameOver>,
    mut restart: MessageWriter<RestartLevel>,
) {
    if over.0.is_some() && keys.just_pressed(KeyCode::KeyR) {
        restart.write(RestartLevel);
    }
}

/// Space, Escape or a left click during the enemy's turn: the rest of its show is skipped;
/// its moves and strikes are in the turn log.
fn skip_show(
    mut commands: Commands,
    keys: Res<ButtonInput<KeyCode>>,
    cursor: Res<Cursor>,
    (turn, players): (Res<Turn>, Res<Players>),
    mut skipping: ResMut<Skipping>,
    level: Res<Level>,
    walks: Query<(Entity, &Tile, &mut Transform), With<WalkShow>>,
    shows: Query<Entity, (With<Presenting>, Without<Unit>)>,
) {
    // A person playing red clicks to give orders, not to skip a show.
    if turn.team != Team::RED || players.person_plays(Team::RED) {
        skipping.0 = false;
        return;
    }
    let asked = keys.any_just_pressed([KeyCode::Space, KeyCode::Escape])
        || cursor
            .pressed(MouseButton::Left)
            .is_some_and(|at| !at.over_ui);
    if !asked || skipping.0 {
        return;
    }
    skipping.0 = true;
    let geometry = level.geometry();
    for (unit, tile, mut transform) in walks {
        transform.translation = geometry.center(tile.0).extend(UNIT_Z);
        commands.entity(unit).remove::<(WalkShow, Presenting)>();
    }
    for show in &shows {
        commands.entity(show).despawn();
    }
}

/// Each move made is shown as a walk along its way, and each enemy strike as a flash; the
/// enemy's turn waits for each show ([`Presenting`]) unless the player skipped it.
fn start_shows(
    mut commands: Commands,
    mut moved: MessageReader<TacticsMoved>,
    mut struck: MessageReader<Struck>,
    (level, turn, skipping, gone): (Res<Level>, Res<Turn>, Res<Skipping>, Res<Gone>),
    mut units: Query<&mut Transform, With<Unit>>,
) {
    let geometry = level.geometry();
    for m in moved.read() {
        let steps = m.path.cells.len().saturating_sub(1);
        if skipping.0 || steps == 0 {
            continue;
        }
        let Ok(mut transform) = units.get_mut(m.unit) else {
            continue;
        };
        transform.translation = geometry.center(m.path.cells[0]).extend(UNIT_Z);
        commands.entity(m.unit).insert((
            WalkShow {
                cells: m.path.cells.clone(),
                elapsed: 0.0,
                step: SHOW_STEP_SECS.min(SHOW_MOVE_SECS / steps as f32),
            },
            Presenting,
        ));
    }
    for s in struck.read() {
        if skipping.0 || turn.team != Team::RED {
            continue;
        }
        let place = |e: Entity| {
            units
                .get(e)
                .map(|t| t.translation.truncate())
                .ok()
                .or_else(|| gone.0.get(&e).copied())
        };
        if let (Some(from), Some(to)) = (place(s.attacker), place(s.target)) {
            commands.spawn((
                StrikeShow {
                    from,
                    to,
                    elapsed: 0.0,
                },
                Presenting,
            ));
        }
    }
}

/// Moves the shown walks along and draws the shown strikes; each ends on its own.
fn play_shows(
    mut commands: Commands,
    time: Res<Time>,
    level: Res<Level>,
    mut gizmos: Gizmos,
    mut walks: Query<(Entity, &mut WalkShow, &mut Transform)>,
    mut strikes: Query<(Entity, &mut StrikeShow)>,
) {
    let geometry = level.geometry();
    let delta = time.delta_secs();
    for (unit, mut walk, mut transform) in &mut walks {
        walk.elapsed += delta;
        let at = walk.elapsed / walk.step;
        let last = walk.cells.len() - 1;
        let i = (at.floor() as usize).min(last);
        let spot = match walk.cells.get(i + 1) {
            Some(&next) => geometry
                .center(walk.cells[i])
                .lerp(geometry.center(next), at.fract()),
            None => geometry.center(walk.cells[last]),
        };
        transform.translation = spot.extend(UNIT_Z);
        if i >= last {
            commands.entity(unit).remove::<(WalkShow, Presenting)>();
        }
    }
    for (show, mut strike) in &mut strikes {
        strike.elapsed += delta;
        let color = Color::srgb(1.0, 0.25, 0.2);
        gizmos.line_2d(strike.from, strike.to, color);
        let pulse = 0.3 + 0.2 * (strike.elapsed / SHOW_STRIKE_SECS);
        gizmos.circle_2d(
            Isometry2d::from_translation(strike.to),
            crate::convert::TILE_SIZE * pulse,
            color,
        );
        if strike.elapsed >= SHOW_STRIKE_SECS {
            commands.entity(show).despawn();
        }
    }
}

/// The game ends when a side wins, and lets go of the selection (no range or preview is
/// drawn for a unit that can no longer act); the map afresh ([`RestartLevel`]) starts a new
/// one.
fn finish_game(
    mut commands: Commands,
    mut won: MessageReader<Won>,
    mut restarted: MessageReader<RestartLevel>,
    mut over: ResMut<GameOver>,
    mut log: ResMut<TurnLog>,
    selected: Query<Entity, With<Selected>>,
) {
    if restarted.read().count() > 0 {
        *over = GameOver(None);
        *log = TurnLog::default();
    }
    for w in won.read() {
        *over = GameOver(Some(w.team));
        for unit in &selected {
            commands.entity(unit).remove::<Selected>();
        }
    }
}

/// Whether a person plays a side (blue, red or both): only then do clicks and keys give
/// orders (the plugin refuses those for the side whose turn it is not).
fn a_person_plays(players: Res<Players>) -> bool {
    players.person_plays(Team::BLUE) || players.person_plays(Team::RED)
}

fn end_turn_with_key(
    keys: Res<ButtonInput<KeyCode>>,
    (players, turn): (Res<Players>, Res<Turn>),
    mut end: MessageWriter<EndTurn>,
    mut show: ResMut<ShowThreat>,
) {
    if players.person_plays(turn.team)
        && keys.any_just_pressed([KeyCode::Enter, KeyCode::NumpadEnter])
    {
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
type BoardChanged = Or<(
    Changed<Tile>,
    Added<Selected>,
    Added<Moved>,
    Added<Acted>,
    Added<Unit>,
)>;

fn update_range(
    level: Res<Level>,
    nav: Res<Navigation>,
    rules: Res<TacticsRules>,
    units: PieceQuery,
    selected: Query<Entity, With<Selected>>,
    (show, turn, sides): (Res<ShowThreat>, Res<Turn>, Res<Sides>),
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
    let board = TacticsBoard::new(&nav, &rules, &sides, &units);
    let piece = single(&selected).and_then(|e| board.piece(e));
    let (range, attack) = match piece {
        Some(piece) if !piece.acted => {
            let range = board.range(&mut context, piece);
            let attack = board.attack_tiles(piece, &range);
            (range, attack)
        }
        _ => Default::default(),
    };
    let threat = if show.0 {
        board.threat(&mut context, other_side(turn.team))
    } else {
        BTreeSet::new()
    };
    let unit = piece.map(|p| p.entity);
    let team = piece.map(|p| p.team);
    let moved = piece.is_some_and(|p| p.moved);
    let acted = piece.is_some_and(|p| p.acted);
    // Only touch the resource when something changed, so highlights are rebuilt rarely.
    if shown.unit != unit
        || shown.team != team
        || shown.moved != moved
        || shown.acted != acted
        || shown.range != range
        || shown.attack != attack
        || shown.threat != threat
    {
        *shown = ShownRange {
            unit,
            team,
            moved,
            acted,
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
    // The unit's side's colour where it may stop (blue for blue's units, red for red's); a
    // pale, nearly white tint where it may only pass (an ally stands there). The enemy's
    // threat is drawn as rings (see `draw_preview`): a red fill over green grass reads as
    // olive and hides the terrain.
    for reached in shown.range.cells() {
        let (fill, frame) = range_colors(shown.team, reached.can_stop);
        tile(reached.pos, fill, frame);
    }
}

/// A range tile's fill and frame: the side's colour where the unit may stop, a pale tint
/// where it may only pass.
fn range_colors(team: Option<Team>, can_stop: bool) -> (Color, Color) {
    if !can_stop {
        return (Color::srgba(0.85, 0.95, 1.0, 0.5), Color::WHITE);
    }
    let side = team.map_or(Color::WHITE, team_color);
    (side.with_alpha(0.4), side.mix(&Color::WHITE, 0.45))
}

/// The exact path and cost to the tile under the cursor, read from the shown range; or why
/// that tile cannot be chosen.
fn draw_preview(
    mut gizmos: Gizmos,
    shown: Res<ShownRange>,
    cursor: Res<Cursor>,
    level: Res<Level>,
    (nav, rules, defence, sides): (
        Res<Navigation>,
        Res<TacticsRules>,
        Option<Res<TerrainDefence>>,
        Res<Sides>,
    ),
    units: Query<(&Name, &MovementClass), With<Unit>>,
    (pieces, turn): (PieceQuery, Res<Turn>),
    (mut cross, mut notice): (ResMut<RefusalCross>, ResMut<Notice>),
) {
    let geometry = level.geometry();
    // The enemy's threat: two round orange rings inside each tile, readable on grass, water
    // and mud, and apart from the attack tiles' outlines, which take the tile's own shape.
    for &pos in &shown.threat {
        for scale in [0.9, 0.72] {
            ring(&mut gizmos, &geometry, pos, scale, THREAT);
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
    // A unit that struck or waited has nothing left to choose this turn, wherever the
    // pointer is.
    if shown.acted {
        notice.hint(format!("{name} is done this turn"));
        return;
    }
    // Over an enemy: the strike's forecast, damage both ways, or why there is none (the unit
    // has acted, the enemy is out of reach, it is not the player's turn).
    let board = TacticsBoard::new(&nav, &rules, &sides, &pieces).with_defence(defence.as_deref());
    let attacker = board.piece(unit);
    let target = board
        .pieces
        .iter()
        .find(|p| p.tile == pos && attacker.is_some_and(|a| a.team != p.team));
    if let (Some(attacker), Some(target)) = (attacker, target) {
        let name_of = |e: Entity| {
            units
                .get(e)
                .map_or_else(|_| e.to_string(), |u| u.0.to_string())
        };
        notice.hint(strike_hint(&board, attacker, target, *turn, name_of));
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

/// A circle (an ellipse on an isometric map) inside the tile at `pos`, `scale` of the
/// tile's inscribed circle.
fn ring(gizmos: &mut Gizmos, geometry: &Geometry, pos: Pos, scale: f32, color: Color) {
    let size = geometry.tile_size();
    let half = match geometry.projection {
        // The ellipse inscribed in the tile's diamond.
        MapProjection::Isometric { .. } => Vec2::new(size.x, size.y) / 2.0 * FRAC_1_SQRT_2,
        _ => Vec2::splat(size.x.min(size.y) / 2.0),
    };
    gizmos.ellipse_2d(
        Isometry2d::from_translation(geometry.center(pos)),
        half * scale,
        color,
    );
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
                    strikes.write(Strike::new(unit, target));
                }
                None => {
                    moves.write(TacticsMove::new(unit, to));
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
        waits.write(Wait::new(unit));
    } else {
        cancels.write(CancelMove::new(unit));
    }
}

/// A unit's side, tile, whether it has moved and acted, and its sprite.
type Dress<'a> = (&'a Team, &'a Tile, Has<Moved>, Has<Acted>, &'a mut Sprite);

/// A unit's three states drawn apart: ready (its side's colour), moved and still to act
/// (its colour, a little muted, in an amber frame), done for the turn (grey).
fn show_unit_states(mut gizmos: Gizmos, level: Res<Level>, mut units: Query<Dress, With<Unit>>) {
    let geometry = level.geometry();
    for (&team, tile, moved, acted, mut sprite) in &mut units {
        let (color, framed) = state_look(team, moved, acted);
        if framed {
            outline(&mut gizmos, &geometry, tile.0, 0.92, MOVED_FRAME);
        }
        let color = color.with_alpha(sprite.color.alpha());
        if sprite.color != color {
            sprite.color = color;
        }
    }
}

/// How a unit of `team` looks in each state: its sprite's tint, and whether it is framed.
fn state_look(team: Team, moved: bool, acted: bool) -> (Color, bool) {
    let grey = Color::srgb(0.35, 0.35, 0.35);
    match (moved, acted) {
        (_, true) => (team_color(team).mix(&grey, 0.75), false),
        (true, false) => (team_color(team).mix(&grey, 0.25), true),
        (false, false) => (team_color(team), false),
    }
}

/// The frame around a unit that has moved and may still act.
const MOVED_FRAME: Color = Color::srgb(1.0, 0.75, 0.15);

/// Hit points as a bar under every unit: green, then amber under half, red under a quarter.
fn dress_health(
    mut commands: Commands,
    nav: Res<Navigation>,
    rules: Res<TacticsRules>,
    units: Query<(Entity, &MovementClass, Option<&Health>), With<Unit>>,
    bars: Query<&ChildOf, With<HealthBar>>,
    mut fills: Query<(&ChildOf, &mut Sprite, &mut Transform), With<HealthFill>>,
) {
    let barred: BTreeSet<Entity> = bars.iter().map(ChildOf::parent).collect();
    let fraction = |unit: Entity| {
        let (_, class, health) = units.get(unit).ok()?;
        let full = rules.hit_points(nav.name(*class)).max(1);
        let left = health.map_or(full, |h| h.0);
        Some((left as f32 / full as f32).clamp(0.0, 1.0))
    };
    for (unit, ..) in &units {
        if barred.contains(&unit) {
            continue;
        }
        commands.entity(unit).with_children(|parent| {
            parent.spawn((
                HealthBar,
                DespawnOnExit(Mode::Tactics),
                Sprite::from_color(Color::srgba(0.05, 0.05, 0.07, 0.85), BAR_SIZE + 2.0),
                Transform::from_xyz(0.0, BAR_OFFSET, 0.2),
            ));
            parent.spawn((
                HealthFill,
                DespawnOnExit(Mode::Tactics),
                Sprite::from_color(Color::WHITE, BAR_SIZE),
                Transform::from_xyz(0.0, BAR_OFFSET, 0.3),
            ));
        });
    }
    for (parent, mut sprite, mut transform) in &mut fills {
        let Some(left) = fraction(parent.parent()) else {
            continue;
        };
        let color = match left {
            l if l > 0.5 => Color::srgb(0.3, 0.85, 0.35),
            l if l > 0.25 => Color::srgb(0.95, 0.75, 0.2),
            _ => Color::srgb(0.95, 0.25, 0.2),
        };
        let size = Vec2::new(BAR_SIZE.x * left, BAR_SIZE.y);
        if sprite.custom_size != Some(size) || sprite.color != color {
            sprite.custom_size = Some(size);
            sprite.color = color;
            transform.translation.x = -(BAR_SIZE.x - size.x) / 2.0;
        }
    }
}

/// What the hover line says of a unit: name, side, class, tile, hit points, state.
type Described<'a> = (
    &'a Name,
    &'a Team,
    &'a MovementClass,
    &'a Tile,
    Option<&'a Health>,
    Has<Moved>,
    Has<Acted>,
);

/// The unit under the pointer, for the status panel: `knight (blue foot): 14 of 20 hp,
/// moved: may still act`.
fn hover_unit(
    cursor: Res<Cursor>,
    nav: Res<Navigation>,
    rules: Res<TacticsRules>,
    units: Query<Described, With<Unit>>,
    mut hovered: ResMut<HoveredUnit>,
) {
    let line = cursor
        .tile
        .and_then(|at| units.iter().find(|u| u.3.0 == at))
        .map_or_else(
            String::new,
            |(name, team, class, _, health, moved, acted)| {
                let class = nav.name(*class);
                let full = rules.hit_points(class);
                let left = health.map_or(full, |h| h.0);
                let state = match (moved, acted) {
                    (_, true) => "done this turn",
                    (true, false) => "moved: may still act",
                    (false, false) => "ready",
                };
                format!("{name} ({team} {class}): {left} of {full} hp, {state}")
            },
        );
    if hovered.0 != line {
        hovered.0 = line;
    }
}

/// The last turn's moves and strikes, from the journal: red's stay until the player acts.
/// Red's plan says why: a unit that pulls back says so (`raider pulls back (20,3) -> (22,5)
/// to the forest (wounded)`), and one that could strike but holds back says why at the
/// start of red's turn (`wyvern waits: the strike would lose it`).
fn update_turn_log(
    (journal, turn, enemy): (Res<Journal>, Res<Turn>, Res<EnemyTurn>),
    (names, level): (Query<&Name>, Res<Level>),
    mut seen: Local<usize>,
    mut log: ResMut<TurnLog>,
    text: Single<&mut Text, With<LogText>>,
    events: Option<ResMut<EventLog>>,
) -> Result {
    let mut text = text.into_inner();
    let name = |e: Entity| {
        names
            .get(e)
            .map_or_else(|_| e.to_string(), |n| n.to_string())
    };
    // Once, as red's turn starts: the enemy's turn changes each frame while it plays.
    let red_turn = Some((turn.number, Team::RED));
    if enemy.is_changed()
        && turn.team == Team::RED
        && !enemy.orders.is_empty()
        && log.turn != red_turn
    {
        *log = TurnLog {
            turn: red_turn,
            lines: enemy
                .orders
                .iter()
                .filter(|o| o.intent == Intent::Spare)
                .map(|o| format!("{} waits: the strike would lose it", name(o.unit)))
                .collect(),
        };
    }
    let new = journal.0.get(*seen..).unwrap_or_default();
    *seen = journal.0.len();
    for entry in new {
        // Backspace: the move leaves the log as it left the board.
        if let Entry::TakenBack { unit, .. } = entry {
            let moved = format!("{unit} moves ");
            if let Some(at) = log.lines.iter().rposition(|l| l.starts_with(&moved)) {
                log.lines.remove(at);
            }
            continue;
        }
        let team = match entry {
            Entry::Moved { team, .. } | Entry::Struck { team, .. } => *team,
            Entry::Won { .. } => log.turn.map_or(turn.team, |t| t.1),
            _ => continue,
        };
        // The turn the entry belongs to, when it is read a frame late: blue's turn N comes
        // before red's turn N, and red's before blue's N + 1.
        let number = match (team, turn.team) {
            (Team::RED, Team::BLUE) => turn.number.saturating_sub(1).max(1),
            _ => turn.number,
        };
        if log.turn != Some((number, team)) {
            *log = TurnLog {
                turn: Some((number, team)),
                lines: Vec::new(),
            };
        }
        let pulls_back = match entry {
            Entry::Moved {
                unit,
                team: Team::RED,
                from,
                to,
            } => enemy
                .orders
                .iter()
                .any(|o| o.intent == Intent::PullBack && name(o.unit) == *unit)
                .then(|| {
                    let ground = level.terrain(*to).map_or("", |t| t.name.as_str());
                    format!("{unit} pulls back {from} -> {to} to the {ground} (wounded)")
                }),
            _ => None,
        };
        if let Some(line) = pulls_back.or_else(|| entry.tactics_line()) {
            log.lines.push(line);
        }
    }
    if !log.is_changed() {
        return Ok(());
    }
    let shown = log.lines.len().min(LOG_LINES);
    let mut lines = match log.turn {
        Some((number, team)) => vec![format!("turn {number}, {team}:")],
        None => vec!["turn log: nothing yet".to_owned()],
    };
    if log.lines.len() > shown {
        lines.push(format!("({} earlier lines)", log.lines.len() - shown));
    }
    lines.extend(log.lines[log.lines.len() - shown..].iter().cloned());
    text.0 = lines.join("\n");
    // What the panel shows, for a script: `{"event":"turn_log","lines":["turn 1, red:",…]}`.
    if let Some(mut events) = events {
        events.write(&serde_json::json!({"event": "turn_log", "lines": lines}))?;
    }
    Ok(())
}

fn update_turn_text(
    (turn, enemy, players): (Res<Turn>, Res<EnemyTurn>, Res<Players>),
    over: Res<GameOver>,
    text: Single<(&mut Text, Ref<TurnText>)>,
) {
    let (mut text, panel) = text.into_inner();
    if !(turn.is_changed() || enemy.is_changed() || over.is_changed() || panel.is_added()) {
        return;
    }
    let acting = enemy.queue.len() + usize::from(enemy.acting.is_some());
    let red = enemy.moves.len().max(acting);
    text.0 = turn_line(*turn, over.0, &players, acting, red);
}

/// The top bar's words for the turn: who won, or whose move it is. The side a person plays
/// alone is "you" ([`Players::addressed`]); with persons on both sides (or none) the words
/// name the sides. `acting` is the AI's units left to act, `red_moves` red's moves and
/// strikes of its last turn (in the log).
fn turn_line(
    turn: Turn,
    over: Option<Team>,
    players: &Players,
    acting: usize,
    red_moves: usize,
) -> String {
    let (n, team, you) = (turn.number, turn.team, players.addressed());
    if let Some(winner) = over {
        return match you {
            Some(you) if you == winner => format!("turn {n}: you won ({winner})"),
            Some(_) => format!("turn {n}: you lost: {winner} won"),
            None => format!("turn {n}: {winner} won"),
        };
    }
    if let (Team::BLUE, Some(mind)) = (team, players.blue) {
        return format!("turn {n}: blue's AI ({}) is moving", mind.name());
    }
    if players.person_plays(team) {
        let whose = if you == Some(team) {
            format!("your move ({team})")
        } else {
            format!("{team}'s move")
        };
        let log = if team == Team::BLUE && red_moves > 0 {
            "; red's turn is in the log"
        } else {
            ""
        };
        return format!("turn {n}: {whose}{log}");
    }
    format!("turn {n}: {team} is moving ({acting} units left to act)")
}

/// The banner's first line once `winner` has won: a victory or a defeat for the side a
/// person plays alone, else the winner named.
fn banner_line(winner: Team, players: &Players) -> String {
    match players.addressed() {
        Some(you) if you == winner => format!("Victory: {winner} wins"),
        Some(_) => format!("Defeat: {winner} wins"),
        None => format!("Game over: {winner} wins"),
    }
}

const END_TURN: &str = "End turn (Enter)";
const PLAY_AGAIN: &str = "Play again (R)";

/// The turn button's words: ending the turn, or once the game is over playing it again.
fn update_turn_button(over: Res<GameOver>, text: Single<(&mut Text, Ref<TurnButtonText>)>) {
    let (mut text, button) = text.into_inner();
    if over.is_changed() || button.is_added() {
        text.0 = (if over.0.is_some() {
            PLAY_AGAIN
        } else {
            END_TURN
        })
        .to_owned();
    }
}

/// The banner over the map once a side has won: who, and how to play again.
fn update_banner(
    (over, turn, players): (Res<GameOver>, Res<Turn>, Res<Players>),
    mut banner: Single<&mut Node, With<Banner>>,
    mut text: Single<(&mut Text, &mut TextColor), With<BannerText>>,
    events: Option<ResMut<EventLog>>,
) -> Result {
    if !over.is_changed() && !banner.is_added() {
        return Ok(());
    }
    let (text, color) = &mut *text;
    match over.0 {
        Some(team) => {
            let (line, tint) = (banner_line(team, &players), team_color(team));
            text.0 = format!(
                "{line}\nthe other side has no units left (turn {})\nR: play the map again",
                turn.number
            );
            color.0 = tint.mix(&Color::WHITE, 0.35);
            banner.display = Display::Flex;
            // `{"event":"banner","text":"Victory: blue wins\n…"}`
            if let Some(mut events) = events {
                events.write(&serde_json::json!({"event": "banner", "text": text.0}))?;
            }
        }
        None => banner.display = Display::None,
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use bevy::ecs::system::RunSystemOnce;
    use bevy_tilewalk::tactics::{Mind, PerClass, Player};

    use super::*;
    use crate::map::MapAsset;
    use crate::terrain::TerrainTable;

    /// A knight and an orc of 20 hit points on a field of grass.
    fn app() -> App {
        let map = "board: square-4\n[terrain]\n......\n......\n[units]\nknight blue foot 0,0\norc red foot 5,1\n";
        let table =
            TerrainTable::parse(&std::fs::read_to_string("assets/terrain.ron").unwrap()).unwrap();
        let mut app = crate::headless_app(&MapAsset::parse(map).unwrap(), &table).unwrap();
        app.insert_resource(TacticsRules {
            hit_points: PerClass::from([("*", 20)]),
            ..default()
        })
        .insert_resource(Cursor {
            tile: Some(Pos::new(0, 0)),
            ..default()
        })
        .init_resource::<HoveredUnit>();
        app
    }

    fn knight(app: &mut App) -> Entity {
        let world = app.world_mut();
        world
            .query_filtered::<(Entity, &Name), With<Unit>>()
            .iter(world)
            .find_map(|(e, n)| (n.as_str() == "knight").then_some(e))
            .unwrap()
    }

    fn hover_line(app: &mut App) -> String {
        app.world_mut().run_system_once(hover_unit).unwrap();
        app.world().resource::<HoveredUnit>().0.clone()
    }

    #[test]
    fn the_hover_line_gives_hit_points_and_which_of_the_three_states_a_unit_is_in() {
        let mut app = app();
        assert_eq!(
            hover_line(&mut app),
            "knight (blue foot): 20 of 20 hp, ready"
        );
        let knight = knight(&mut app);
        app.world_mut().entity_mut(knight).insert((
            Health(7),
            Moved {
                from: Pos::new(0, 0),
            },
        ));
        assert_eq!(
            hover_line(&mut app),
            "knight (blue foot): 7 of 20 hp, moved: may still act"
        );
        app.world_mut().entity_mut(knight).insert(Acted);
        assert_eq!(
            hover_line(&mut app),
            "knight (blue foot): 7 of 20 hp, done this turn"
        );
        app.world_mut().resource_mut::<Cursor>().tile = Some(Pos::new(3, 0));
        assert_eq!(hover_line(&mut app), "", "no unit under the pointer");
    }

    #[test]
    fn a_unit_that_is_done_has_no_range_or_attack_tiles_and_says_so_with_no_cross() {
        let mut app = app();
        app.init_gizmo_group::<DefaultGizmoConfigGroup>()
            .init_resource::<ShownRange>()
            .init_resource::<ShowThreat>()
            .init_resource::<Notice>()
            .init_resource::<RefusalCross>();
        let knight = knight(&mut app);
        app.world_mut().entity_mut(knight).insert(Selected);
        // One system, run twice: the second run sees only what changed since the first.
        let update = app.world_mut().register_system(update_range);
        app.world_mut().run_system(update).unwrap();
        let shown = app.world().resource::<ShownRange>();
        assert_eq!(shown.team, Some(Team::BLUE));
        assert!(!shown.range.cells().is_empty() && !shown.attack.is_empty());
        app.world_mut().entity_mut(knight).insert(Acted);
        app.world_mut().run_system(update).unwrap();
        let shown = app.world().resource::<ShownRange>();
        assert!(shown.acted);
        assert!(shown.range.cells().is_empty(), "no range");
        assert!(shown.attack.is_empty(), "no attack outlines");
        // Over an empty tile, over the enemy and over itself: the same line, no cross.
        for pos in [Pos::new(3, 1), Pos::new(5, 1), Pos::new(0, 0)] {
            app.world_mut().resource_mut::<Cursor>().tile = Some(pos);
            app.world_mut().run_system_once(draw_preview).unwrap();
            assert_eq!(
                app.world().resource::<Notice>().hint,
                "knight is done this turn"
            );
            assert_eq!(app.world().resource::<RefusalCross>().0, None, "at {pos}");
        }
    }

    #[test]
    fn a_range_takes_its_units_side_colour_where_it_may_stop() {
        let distance = |a: Color, b: Color| {
            let (a, b) = (a.to_srgba(), b.to_srgba());
            (a.red - b.red).abs() + (a.green - b.green).abs() + (a.blue - b.blue).abs()
        };
        for (team, other) in [(Team::BLUE, Team::RED), (Team::RED, Team::BLUE)] {
            let (fill, frame) = range_colors(Some(team), true);
            for color in [fill, frame] {
                assert!(
                    distance(color, team_color(team)) < distance(color, team_color(other)),
                    "{team:?}'s range drawn nearer {other:?}'s colour"
                );
            }
        }
        assert_eq!(
            range_colors(Some(Team::RED), false),
            range_colors(Some(Team::BLUE), false),
            "a pass-only tile is the same pale tint for every side"
        );
    }

    #[test]
    fn a_move_taken_back_leaves_the_turn_log() {
        let mut app = app();
        app.init_resource::<TurnLog>();
        app.world_mut().spawn((Text::default(), LogText));
        let moved = |unit: &str, from: Pos, to: Pos| Entry::Moved {
            unit: unit.to_owned(),
            team: Team::BLUE,
            from,
            to,
        };
        let (a, b, c) = (Pos::new(0, 0), Pos::new(2, 0), Pos::new(2, 1));
        app.world_mut().resource_mut::<Journal>().0.extend([
            moved("knight", a, b),
            moved("archer", c, a),
            Entry::TakenBack {
                unit: "knight".to_owned(),
                team: Team::BLUE,
                to: a,
            },
        ]);
        let logged: Result = app.world_mut().run_system_once(update_turn_log).unwrap();
        logged.unwrap();
        let world = app.world_mut();
        let text = world
            .query_filtered::<&Text, With<LogText>>()
            .single(world)
            .unwrap();
        assert_eq!(text.0, "turn 1, blue:\narcher moves (2,1) -> (0,0)");
    }

    #[test]
    fn the_three_states_look_apart_and_only_a_moved_unit_is_framed() {
        for team in [Team::BLUE, Team::RED] {
            let looks = [(false, false), (true, false), (true, true)]
                .map(|(moved, acted)| state_look(team, moved, acted));
            let tint = |i: usize| looks[i].0.to_srgba();
            for (a, b) in [(0, 1), (0, 2), (1, 2)] {
                let (x, y) = (tint(a), tint(b));
                let apart =
                    (x.red - y.red).abs() + (x.green - y.green).abs() + (x.blue - y.blue).abs();
                assert!(apart > 0.1, "{team:?}: states {a} and {b} look alike");
            }
            assert_eq!(looks.map(|l| l.1), [false, true, false]);
        }
    }

    #[test]
    fn every_unit_gets_a_bar_of_the_hit_points_it_has_left() {
        let mut app = app();
        let knight = knight(&mut app);
        app.world_mut().entity_mut(knight).insert(Health(5));
        // The first run gives each unit its bar, the next sizes what is left.
        for _ in 0..2 {
            app.world_mut().run_system_once(dress_health).unwrap();
        }
        let world = app.world_mut();
        let mut fills: Vec<(Entity, f32)> = world
            .query_filtered::<(&ChildOf, &Sprite), With<HealthFill>>()
            .iter(world)
            .map(|(parent, sprite)| (parent.parent(), sprite.custom_size.unwrap().x))
            .collect();
        fills.sort_by_key(|&(unit, _)| unit != knight);
        assert_eq!(fills.len(), 2, "one bar a unit");
        assert_eq!(
            fills[0],
            (knight, BAR_SIZE.x * 5.0 / 20.0),
            "a quarter left"
        );
        assert_eq!(fills[1].1, BAR_SIZE.x, "the orc is unhurt");
    }

    /// `play --mode tactics`: a person on blue is "you"; with `--red person` too (two persons
    /// at one screen) the top bar and the banner name the side whose move it is or who won;
    /// with `--red person --blue planner` red is "you".
    #[test]
    fn the_turn_words_speak_to_the_side_a_person_plays_alone_else_name_the_sides() {
        let turn = |number, team| Turn { number, team };
        let alone = Players::default();
        let hot_seat = Players {
            blue: None,
            red: Player::Person,
        };
        let red_alone = Players {
            blue: Some(Mind::Planner),
            red: Player::Person,
        };
        let line = |t, over, players: &Players| turn_line(t, over, players, 2, 0);
        let blue = turn(3, Team::BLUE);
        let red = turn(3, Team::RED);
        assert_eq!(line(blue, None, &alone), "turn 3: your move (blue)");
        assert_eq!(
            turn_line(blue, None, &alone, 0, 4),
            "turn 3: your move (blue); red's turn is in the log"
        );
        assert_eq!(
            line(red, None, &alone),
            "turn 3: red is moving (2 units left to act)"
        );
        assert_eq!(
            line(blue, Some(Team::RED), &alone),
            "turn 3: you lost: red won"
        );
        assert_eq!(banner_line(Team::BLUE, &alone), "Victory: blue wins");
        assert_eq!(banner_line(Team::RED, &alone), "Defeat: red wins");

        assert_eq!(line(blue, None, &hot_seat), "turn 3: blue's move");
        assert_eq!(line(red, None, &hot_seat), "turn 3: red's move");
        assert_eq!(line(red, Some(Team::RED), &hot_seat), "turn 3: red won");
        assert_eq!(banner_line(Team::BLUE, &hot_seat), "Game over: blue wins");
        assert_eq!(banner_line(Team::RED, &hot_seat), "Game over: red wins");

        assert_eq!(line(red, None, &red_alone), "turn 3: your move (red)");
        assert_eq!(
            line(blue, None, &red_alone),
            "turn 3: blue's AI (planner) is moving"
        );
        assert_eq!(
            line(red, Some(Team::RED), &red_alone),
            "turn 3: you won (red)"
        );
        assert_eq!(banner_line(Team::BLUE, &red_alone), "Defeat: blue wins");
        assert_eq!(banner_line(Team::RED, &red_alone), "Victory: red wins");
    }
}
