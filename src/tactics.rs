//! Turn-based tactics (SLG) on the same simulation: movement points, movement ranges
//! shaped by tactics rules inside the search (allies passable but not stoppable, enemies
//! blocking, zones of control), moves that walk exactly the previewed path, turns, threat,
//! and a simple deterministic enemy.
//!
//! Range, preview and move can never disagree: all three read one [`Range`] from the
//! core's bounded Dijkstra, and a move inserts the path stored in it.

use std::collections::BTreeSet;

use bevy::ecs::query::QueryData;
use bevy::ecs::system::SystemState;
use bevy::prelude::*;
use serde::Deserialize;
use tilewalk_path::formats::ParseError;
use tilewalk_path::{Passage, Pos, Range, SearchContext};

use crate::AppSystems;
use crate::assets::{
    FileErrors, TextAsset, TextLoader, Tracks, report_failed_loads, ron_error, touches,
};
use crate::level::Level;
use crate::pathing::{OrderRefused, Path, Refusal};
use crate::units::{AttackRange, MAX_ATTACK_RANGE, MovementClass, Team, Tile, Unit};

/// A value for each movement class.
#[derive(Clone, Copy, Debug, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PerClass<T> {
    pub foot: T,
    pub horse: T,
    pub flyer: T,
}

impl<T: Copy> PerClass<T> {
    pub fn get(&self, class: MovementClass) -> T {
        match class {
            MovementClass::Foot => self.foot,
            MovementClass::Horse => self.horse,
            MovementClass::Flyer => self.flyer,
        }
    }
}

/// What entering an enemy's zone of control (the tiles next to it) does.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize)]
pub enum ZoneOfControl {
    /// Pay the tile's cost as usual; the move ends there.
    EndsMove,
    /// Entering costs every point left, whatever the terrain; the move ends there.
    TakesAllPoints,
}

/// The most movement points a class may have: far more than any map needs (a range never
/// leaves the map), and small enough that costs summed up to it stay exact.
pub const MAX_MOVEMENT_POINTS: f64 = 1e6;

/// The rules of tactics mode (`assets/tactics.ron`).
#[derive(Asset, TypePath, Resource, Clone, Debug, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TacticsRules {
    pub movement_points: PerClass<f64>,
    pub attack_range: PerClass<(u32, u32)>,
    pub zone_of_control: ZoneOfControl,
    pub flyers_obey_zone_of_control: bool,
}

impl TacticsRules {
    pub fn parse(text: &str) -> Result<Self, ParseError> {
        let rules: Self = ron::from_str(text).map_err(|e| ron_error(text, e))?;
        let at = |key: &str, message: String| {
            let (line, column) = text
                .lines()
                .enumerate()
                .find_map(|(i, l)| l.find(key).map(|c| (i + 1, c + 1)))
                .unwrap_or((1, 1));
            ParseError::new(line, column, message)
        };
        for class in MovementClass::ALL {
            let points = rules.movement_points.get(class);
            if !(0.0..=MAX_MOVEMENT_POINTS).contains(&points) {
                return Err(at(
                    "movement_points",
                    format!(
                        "{class} movement points must be a number from 0 to {MAX_MOVEMENT_POINTS}, got {points}"
                    ),
                ));
            }
            let (min, max) = rules.attack_range.get(class);
            if !(1 <= min && min <= max && max <= MAX_ATTACK_RANGE) {
                return Err(at(
                    "attack_range",
                    format!(
                        "{class} attack range must be (min, max) with 1 <= min <= max <= {MAX_ATTACK_RANGE}, got ({min}, {max})"
                    ),
                ));
            }
        }
        Ok(rules)
    }
}

/// Which game is being played.
#[derive(States, Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Mode {
    /// Click to move; units walk at once.
    #[default]
    RealTime,
    /// Turn-based: each unit moves once per turn within its movement range.
    Tactics,
    /// The search lab: no orders; searches between two markers on the map's terrain,
    /// replayed step by step (the view's `lab`). Units that were walking walk on.
    Lab,
}

/// Whose turn it is. Blue (the player) moves first.
#[derive(Resource, Clone, Copy, Debug, PartialEq, Eq)]
pub struct Turn {
    pub number: u32,
    pub team: Team,
}

impl Default for Turn {
    fn default() -> Self {
        Self {
            number: 1,
            team: Team::Blue,
        }
    }
}

/// Marks a unit that has moved this turn.
#[derive(Component, Clone, Copy, Debug, Default)]
pub struct Moved;

/// Moves a unit to a tile of its movement range, along the range's path.
#[derive(Message, Clone, Copy, Debug)]
pub struct TacticsMove {
    pub unit: Entity,
    pub to: Pos,
}

/// Ends the player's turn: the enemy moves, then the next turn begins.
#[derive(Message, Clone, Copy, Debug, Default)]
pub struct EndTurn;

/// The enemy's moves of the last enemy turn: `(name, from, to)` for the HUD and the
/// `tactics` command, and the paths still to walk. The enemy moves one unit after another,
/// as a player watching expects; while it does, the turn is red's.
#[derive(Resource, Clone, Debug, Default)]
pub struct EnemyTurn {
    pub moves: Vec<(String, Pos, Pos)>,
    pub waiting: std::collections::VecDeque<(Entity, Path)>,
}

pub(super) fn plugin(app: &mut App) {
    app.init_state::<Mode>()
        .add_message::<TacticsMove>()
        .add_message::<EndTurn>()
        .init_resource::<Turn>()
        .init_resource::<EnemyTurn>()
        .add_systems(
            Update,
            (apply_moves, end_turn, walk_enemy_moves)
                .chain()
                .in_set(AppSystems::Plan)
                .run_if(
                    in_state(Mode::Tactics)
                        .and_then(resource_exists::<Level>)
                        .and_then(resource_exists::<TacticsRules>),
                ),
        );
}

/// A unit as tactics sees it.
#[derive(Clone, Debug)]
pub struct Piece {
    pub entity: Entity,
    pub name: String,
    pub team: Team,
    pub class: MovementClass,
    pub tile: Pos,
    pub attack: (u32, u32),
    pub moved: bool,
}

/// The state of the board: the level, the rules and every unit.
pub struct Board<'a> {
    pub level: &'a Level,
    pub rules: &'a TacticsRules,
    pub pieces: Vec<Piece>,
}

/// What a [`Board`] reads of each unit.
#[derive(QueryData)]
pub struct PieceData {
    entity: Entity,
    name: &'static Name,
    team: &'static Team,
    class: &'static MovementClass,
    tile: &'static Tile,
    attack: Option<&'static AttackRange>,
    moved: Has<Moved>,
}

/// The query a [`Board`] is built from.
pub type PieceQuery<'w, 's> = Query<'w, 's, PieceData, With<Unit>>;

impl<'a> Board<'a> {
    pub fn new(level: &'a Level, rules: &'a TacticsRules, units: &PieceQuery) -> Self {
        let mut pieces: Vec<Piece> = units
            .iter()
            .map(|u| Piece {
                entity: u.entity,
                name: u.name.as_str().to_owned(),
                team: *u.team,
                class: *u.class,
                tile: u.tile.0,
                attack: u
                    .attack
                    .map_or(rules.attack_range.get(*u.class), |a| (a.0, a.1)),
                moved: u.moved,
            })
            .collect();
        pieces.sort_by(|a, b| a.name.cmp(&b.name));
        Self {
            level,
            rules,
            pieces,
        }
    }

    pub fn piece(&self, entity: Entity) -> Option<&Piece> {
        self.pieces.iter().find(|p| p.entity == entity)
    }

    /// The movement range of a piece under the rules: its reachable tiles, with where it may
    /// stop. A piece that has moved this turn has none (its attack tiles are then those of
    /// its own tile), so the range shown, the preview and the move agree.
    pub fn range(&self, context: &mut SearchContext, piece: &Piece) -> Range {
        if piece.moved {
            return Range::default();
        }
        // An enemy's zone of control: the tiles adjacent to it on the board (4, 8 or 6).
        let board = self.level.board;
        let zone = |pos: Pos| {
            self.pieces
                .iter()
                .any(|p| p.team != piece.team && board.distance(p.tile, pos) == 1)
        };
        let obeys_zone =
            piece.class != MovementClass::Flyer || self.rules.flyers_obey_zone_of_control;
        let passage = |pos: Pos| match self
            .pieces
            .iter()
            .find(|p| p.tile == pos && p.entity != piece.entity)
        {
            Some(other) if other.team != piece.team => Passage::Blocked,
            Some(_) if obeys_zone && zone(pos) => Passage::Blocked,
            Some(_) => Passage::PassOnly,
            None if obeys_zone && zone(pos) => match self.rules.zone_of_control {
                ZoneOfControl::EndsMove => Passage::EndsMove,
                ZoneOfControl::TakesAllPoints => Passage::TakesAllPoints,
            },
            None => Passage::Open,
        };
        let budget = self.rules.movement_points.get(piece.class);
        context
            .range_with(
                self.level.grid(piece.class),
                piece.tile,
                budget,
                self.level.board,
                passage,
            )
            .unwrap_or_default()
    }

    /// Every tile a piece could attack after a move within `range` (or standing still).
    pub fn attack_tiles(&self, piece: &Piece, range: &Range) -> BTreeSet<Pos> {
        let (min, max) = piece.attack;
        let stands: Vec<Pos> = range
            .cells()
            .iter()
            .filter(|r| r.can_stop)
            .map(|r| r.pos)
            .chain([piece.tile])
            .collect();
        // No two tiles are farther apart than the map's width + height, so a longer reach is
        // the same reach: the work stays proportional to the tiles that matter.
        let max = max.min(self.level.width + self.level.height);
        let (Some(left), Some(right), Some(top), Some(bottom)) = (
            stands.iter().map(|s| s.x).min(),
            stands.iter().map(|s| s.x).max(),
            stands.iter().map(|s| s.y).min(),
            stands.iter().map(|s| s.y).max(),
        ) else {
            return BTreeSet::new();
        };
        let xs = left.saturating_sub(max)..=right.saturating_add(max).min(self.level.width - 1);
        let ys = top.saturating_sub(max)..=bottom.saturating_add(max).min(self.level.height - 1);
        // Reach counts steps on the board: Manhattan on square-4, Chebyshev on square-8, hex
        // distance on hexes. No step moves more than one column or row, so the box below
        // holds every tile within `max` of a stand.
        let board = self.level.board;
        let distance = |a: Pos, b: Pos| board.distance(a, b);
        ys.flat_map(|y| xs.clone().map(move |x| Pos::new(x, y)))
            .filter(|&tile| {
                stands
                    .iter()
                    .any(|&s| (min..=max).contains(&distance(s, tile)))
            })
            .collect()
    }

    /// Every tile `team` could attack next turn.
    pub fn threat(&self, context: &mut SearchContext, team: Team) -> BTreeSet<Pos> {
        self.pieces
            .iter()
            .filter(|p| p.team == team)
            .flat_map(|p| {
                let range = self.range(context, p);
                self.attack_tiles(p, &range)
            })
            .collect()
    }

    /// Why `piece` may not move to `to` now, if it may not.
    pub fn check_move(
        &self,
        piece: &Piece,
        range: &Range,
        to: Pos,
        turn: Turn,
    ) -> Result<Path, Refusal> {
        let unit = piece.name.clone();
        if piece.team != turn.team {
            return Err(Refusal::NotYourTurn {
                unit,
                turn: turn.team,
            });
        }
        if piece.moved {
            return Err(Refusal::AlreadyMoved { unit });
        }
        match (range.get(to), range.path_to(to)) {
            (Some(reached), Some(planned)) if reached.can_stop => {
                Ok(Path::through(planned.cells, planned.cost))
            }
            (Some(_), _) => Err(Refusal::Occupied { unit, to }),
            (None, _) => Err(Refusal::OutOfRange { unit, to }),
        }
    }

    /// The enemy's turn: each `team` piece, by name, moves as close as its range allows to the
    /// nearest other-team piece, counting steps on the board (ties: the straight line between
    /// tile centres, then cheaper, then by row and column).
    /// Moves are planned one after another, each seeing where the earlier ones went.
    pub fn plan_turn(&mut self, context: &mut SearchContext, team: Team) -> Vec<(Entity, Path)> {
        let mut moves = Vec::new();
        for i in 0..self.pieces.len() {
            let piece = self.pieces[i].clone();
            if piece.team != team {
                continue;
            }
            let geometry = self.level.geometry();
            let distance = |a: Pos, b: Pos| {
                let line = geometry.center(a).distance(geometry.center(b));
                (self.level.board.distance(a, b), line)
            };
            let closer = |a: (u32, f32), b: (u32, f32)| a.0.cmp(&b.0).then(a.1.total_cmp(&b.1));
            let Some(target) = self
                .pieces
                .iter()
                .filter(|p| p.team != team)
                .min_by(|a, b| {
                    closer(distance(piece.tile, a.tile), distance(piece.tile, b.tile))
                        .then(a.name.cmp(&b.name))
                })
                .map(|p| p.tile)
            else {
                break;
            };
            let range = self.range(context, &piece);
            let best = range.cells().iter().filter(|r| r.can_stop).min_by(|a, b| {
                closer(distance(a.pos, target), distance(b.pos, target))
                    .then(a.cost.total_cmp(&b.cost))
                    .then((a.pos.y, a.pos.x).cmp(&(b.pos.y, b.pos.x)))
            });
            if let Some(best) = best
                && best.pos != piece.tile
                && let Some(planned) = range.path_to(best.pos)
            {
                self.pieces[i].tile = best.pos;
                moves.push((piece.entity, Path::through(planned.cells, planned.cost)));
            }
        }
        moves
    }
}

fn apply_moves(
    mut commands: Commands,
    mut moves: MessageReader<TacticsMove>,
    mut refused: MessageWriter<OrderRefused>,
    level: Res<Level>,
    rules: Res<TacticsRules>,
    turn: Res<Turn>,
    units: PieceQuery,
    walking: Query<(), With<Path>>,
    mut context: Local<SearchContext>,
) {
    let mut board = Board::new(&level, &rules, &units);
    for order in moves.read() {
        let Some(piece) = board.piece(order.unit).cloned() else {
            continue;
        };
        let range = board.range(&mut context, &piece);
        // Whose turn it is comes first: during red's turn blue waits for it, not for a walk.
        let checked = board
            .check_move(&piece, &range, order.to, *turn)
            .and_then(|path| match walking.is_empty() {
                true => Ok(path),
                false => Err(Refusal::StillMoving),
            });
        match checked {
            Ok(path) => {
                commands.entity(piece.entity).insert((path, Moved));
                // Later moves this frame see this one.
                if let Some(p) = board.pieces.iter_mut().find(|p| p.entity == piece.entity) {
                    p.tile = order.to;
                    p.moved = true;
                }
            }
            Err(reason) => {
                refused.write(OrderRefused {
                    unit: piece.entity,
                    goal: order.to,
                    reason,
                });
            }
        }
    }
}

fn end_turn(
    mut commands: Commands,
    mut ends: MessageReader<EndTurn>,
    level: Res<Level>,
    rules: Res<TacticsRules>,
    mut turn: ResMut<Turn>,
    mut enemy_turn: ResMut<EnemyTurn>,
    units: PieceQuery,
    mut context: Local<SearchContext>,
) {
    if ends.read().count() == 0 {
        return;
    }
    if turn.team != Team::Blue {
        return;
    }
    let mut board = Board::new(&level, &rules, &units);
    let moves = board.plan_turn(&mut context, turn.team.opponent());
    enemy_turn.moves = moves
        .iter()
        .filter_map(|(entity, path)| {
            board
                .piece(*entity)
                .map(|p| (p.name.clone(), path.cells[0], p.tile))
        })
        .collect();
    enemy_turn.waiting = moves.into();
    for piece in &board.pieces {
        commands.entity(piece.entity).remove::<Moved>();
    }
    turn.team = Team::Red;
}

/// The enemy's turn on the board: its units walk one after another; when the last stops,
/// the next turn is the player's.
fn walk_enemy_moves(
    mut commands: Commands,
    mut turn: ResMut<Turn>,
    mut enemy_turn: ResMut<EnemyTurn>,
    walking: Query<(), With<Path>>,
) {
    if turn.team != Team::Red || !walking.is_empty() {
        return;
    }
    match enemy_turn.waiting.pop_front() {
        Some((entity, path)) => {
            commands.entity(entity).insert(path);
        }
        None => {
            turn.team = Team::Blue;
            turn.number += 1;
        }
    }
}

/// Runs `f` on the board of a world (for commands and tests; systems build their own).
/// Fails when the world has no level or no tactics rules.
pub fn with_board<R>(
    world: &mut World,
    f: impl FnOnce(&mut Board, &mut SearchContext) -> R,
) -> Result<R, String> {
    let mut state: SystemState<(Res<Level>, Res<TacticsRules>, PieceQuery)> =
        SystemState::new(world);
    let (level, rules, units) = state.get(world).map_err(|e| e.to_string())?;
    let mut board = Board::new(&level, &rules, &units);
    Ok(f(&mut board, &mut SearchContext::new()))
}

/// Loads `assets/tactics.ron` through the asset server and keeps the [`TacticsRules`]
/// resource in step with it: an edit applies at once (the shown range is recomputed); a
/// broken edit is reported and the last good rules stay.
pub fn assets_plugin(app: &mut App) {
    app.init_asset::<TacticsRules>()
        .init_asset_loader::<TextLoader<TacticsRules>>()
        .add_systems(Startup, load_rules_file)
        .add_systems(
            Update,
            (
                report_failed_loads::<TacticsRules, RulesHandle>,
                apply_rules_file,
            )
                .chain()
                .in_set(AppSystems::Load),
        );
}

impl TextAsset for TacticsRules {
    const EXTENSIONS: &'static [&'static str] = &["ron"];

    fn from_text(text: &str) -> Result<Self, ParseError> {
        Self::parse(text)
    }
}

#[derive(Resource)]
struct RulesHandle(Handle<TacticsRules>);

impl Tracks<TacticsRules> for RulesHandle {
    fn tracks(&self, id: AssetId<TacticsRules>) -> bool {
        id == self.0.id()
    }
}

fn load_rules_file(mut commands: Commands, server: Res<AssetServer>) {
    commands.insert_resource(RulesHandle(server.load("tactics.ron")));
}

fn apply_rules_file(
    mut commands: Commands,
    mut events: MessageReader<AssetEvent<TacticsRules>>,
    handle: Res<RulesHandle>,
    assets: Res<Assets<TacticsRules>>,
    mut errors: ResMut<FileErrors>,
) {
    if !events.read().any(|e| touches(e, handle.0.id())) {
        return;
    }
    if let Some(rules) = assets.get(&handle.0) {
        errors.0.retain(|file, _| !file.ends_with("tactics.ron"));
        commands.insert_resource(rules.clone());
    }
}
