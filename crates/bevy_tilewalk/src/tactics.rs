//! Tactics (SLG) queries and turns: movement ranges under the rules (movement points,
//! allies passed through, enemies blocking, zones of control), attack tiles, the threat of a
//! side, checked moves, and an enemy turn that closes in.

use std::collections::{BTreeMap, BTreeSet};

use bevy::ecs::query::QueryData;
use bevy::ecs::schedule::InternedScheduleLabel;
use bevy::ecs::system::SystemState;
use bevy::prelude::*;
use tilewalk_path::{Heuristic, Passage, Pos, Range, SearchContext};

use crate::TilewalkSystems;
use crate::navigation::Navigation;
use crate::pathing::{OrderRefused, Path, Refusal};
use crate::units::{AttackRange, MovementClass, Precedence, Team, Tile, Unit, precedence};

/// A value for each movement class, by the class's name; the entry `*` is that of every
/// class not named.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct PerClass<T>(pub BTreeMap<String, T>);

impl<T: Copy> PerClass<T> {
    /// The value of the class named `name`, or the `*` entry's.
    pub fn get(&self, name: &str) -> Option<T> {
        self.0.get(name).or_else(|| self.0.get("*")).copied()
    }
}

impl<T, const N: usize> From<[(&str, T); N]> for PerClass<T> {
    fn from(entries: [(&str, T); N]) -> Self {
        Self(
            entries
                .into_iter()
                .map(|(k, v)| (k.to_owned(), v))
                .collect(),
        )
    }
}

/// What entering an enemy's zone of control (the tiles next to it) does.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum ZoneOfControl {
    /// Pay the tile's cost as usual; the move ends there.
    #[default]
    EndsMove,
    /// Entering costs every point left, whatever the terrain; the move ends there.
    TakesAllPoints,
}

/// The most movement points a class may have: far more than any map needs (a range never
/// leaves the map), and small enough that costs summed up to it stay exact.
pub const MAX_MOVEMENT_POINTS: f64 = 1e6;

/// The rules of tactics: insert them as a resource and the tactics systems run. A class the
/// rules do not name (and no `*` entry covers) has no movement points and attacks the tiles
/// next to it.
#[derive(Resource, Clone, Debug, Default, PartialEq)]
pub struct TacticsRules {
    /// Movement points per turn.
    pub movement_points: PerClass<f64>,
    /// Attack range (min, max) in steps on the board.
    pub attack_range: PerClass<(u32, u32)>,
    /// What entering an enemy's zone of control does.
    pub zone_of_control: ZoneOfControl,
    /// The classes zones of control do not stop (enemies still block them).
    pub ignore_zone_of_control: Vec<String>,
}

impl TacticsRules {
    /// A class's movement points (0 when the rules do not name it).
    pub fn movement_points(&self, class: &str) -> f64 {
        self.movement_points.get(class).unwrap_or(0.0)
    }

    /// A class's attack range ((1, 1) when the rules do not name it).
    pub fn attack_range(&self, class: &str) -> (u32, u32) {
        self.attack_range.get(class).unwrap_or((1, 1))
    }
}

/// Whose turn it is. Blue (the player) moves first.
#[derive(Resource, Clone, Copy, Debug, PartialEq, Eq)]
pub struct Turn {
    /// The turn's number, from 1.
    pub number: u32,
    /// The side moving.
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
    /// The unit.
    pub unit: Entity,
    /// The tile.
    pub to: Pos,
}

/// Ends the player's turn: the enemy moves, then the next turn begins.
#[derive(Message, Clone, Copy, Debug, Default)]
pub struct EndTurn;

/// The enemy's moves of the last enemy turn: `(unit, from, to)`, and the paths still to
/// walk. The enemy moves one unit after another, as a player watching expects; while it
/// does, the turn is red's.
#[derive(Resource, Clone, Debug, Default)]
pub struct EnemyTurn {
    /// Each move: the unit, where it stood, where it goes.
    pub moves: Vec<(Entity, Pos, Pos)>,
    /// The paths not yet walked, in order.
    pub waiting: std::collections::VecDeque<(Entity, Path)>,
}

pub(crate) fn plugin(app: &mut App, schedule: InternedScheduleLabel) {
    app.add_message::<TacticsMove>()
        .add_message::<EndTurn>()
        .init_resource::<Turn>()
        .init_resource::<EnemyTurn>()
        .add_systems(
            schedule,
            (apply_moves, end_turn, walk_enemy_moves)
                .chain()
                .in_set(TilewalkSystems::Turns)
                .run_if(resource_exists::<Navigation>.and_then(resource_exists::<TacticsRules>)),
        );
}

/// A unit as tactics sees it.
#[derive(Clone, Debug)]
pub struct Piece {
    /// The unit.
    pub entity: Entity,
    /// Its side.
    pub team: Team,
    /// Its class.
    pub class: MovementClass,
    /// Its tile.
    pub tile: Pos,
    /// Its attack range (min, max): its own, or its class's.
    pub attack: (u32, u32),
    /// Whether it has moved this turn.
    pub moved: bool,
    /// Where it comes in the board's order: its [`Precedence`], then its entity's index.
    pub order: (u32, u32),
}

/// The state of the board: the navigation, the rules and every unit.
pub struct Board<'a> {
    /// The navigation.
    pub nav: &'a Navigation,
    /// The rules.
    pub rules: &'a TacticsRules,
    /// Every unit, in [`Precedence`] order.
    pub pieces: Vec<Piece>,
}

/// What a [`Board`] reads of each unit.
#[derive(QueryData)]
pub struct PieceData {
    entity: Entity,
    team: &'static Team,
    class: &'static MovementClass,
    tile: &'static Tile,
    attack: Option<&'static AttackRange>,
    precedence: Option<&'static Precedence>,
    moved: Has<Moved>,
}

/// The query a [`Board`] is built from.
pub type PieceQuery<'w, 's> = Query<'w, 's, PieceData, With<Unit>>;

impl<'a> Board<'a> {
    /// The board of `units` on `nav` under `rules`.
    pub fn new(nav: &'a Navigation, rules: &'a TacticsRules, units: &PieceQuery) -> Self {
        let mut pieces: Vec<Piece> = units
            .iter()
            .map(|u| Piece {
                entity: u.entity,
                team: *u.team,
                class: *u.class,
                tile: u.tile.0,
                attack: u
                    .attack
                    .map_or_else(|| rules.attack_range(nav.name(*u.class)), |a| (a.0, a.1)),
                moved: u.moved,
                order: {
                    let (precedence, index, _) = precedence(u.entity, u.precedence);
                    (precedence, index)
                },
            })
            .collect();
        pieces.sort_by_key(|p| p.order);
        Self { nav, rules, pieces }
    }

    /// The piece of a unit.
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
        let board = self.nav.board();
        let zone = |pos: Pos| {
            self.pieces
                .iter()
                .any(|p| p.team != piece.team && board.distance(p.tile, pos) == 1)
        };
        let class = self.nav.name(piece.class);
        let obeys_zone = !self.rules.ignore_zone_of_control.iter().any(|c| c == class);
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
        let budget = self.rules.movement_points(class);
        context
            .range_with(
                self.nav.grid(piece.class),
                piece.tile,
                budget,
                self.nav.board(),
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
        let max = max.min(self.nav.width() + self.nav.height());
        let (Some(left), Some(right), Some(top), Some(bottom)) = (
            stands.iter().map(|s| s.x).min(),
            stands.iter().map(|s| s.x).max(),
            stands.iter().map(|s| s.y).min(),
            stands.iter().map(|s| s.y).max(),
        ) else {
            return BTreeSet::new();
        };
        let xs = left.saturating_sub(max)..=right.saturating_add(max).min(self.nav.width() - 1);
        let ys = top.saturating_sub(max)..=bottom.saturating_add(max).min(self.nav.height() - 1);
        // Reach counts steps on the board: Manhattan on square-4, Chebyshev on square-8, hex
        // distance on hexes. No step moves more than one column or row, so the box below
        // holds every tile within `max` of a stand.
        let board = self.nav.board();
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
        if piece.team != turn.team {
            return Err(Refusal::NotYourTurn { turn: turn.team });
        }
        if piece.moved {
            return Err(Refusal::AlreadyMoved);
        }
        match (range.get(to), range.path_to(to)) {
            (Some(reached), Some(planned)) if reached.can_stop => {
                Ok(Path::through(planned.cells, planned.cost))
            }
            (Some(_), _) => Err(Refusal::Occupied { to }),
            (None, _) => Err(Refusal::OutOfRange { to }),
        }
    }

    /// The enemy's turn: each `team` piece, in [`Precedence`] order, moves as close as its range allows to the
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
            let board = self.nav.board();
            let distance = |a: Pos, b: Pos| {
                let line = board.heuristic(Heuristic::Euclidean, a, b);
                (board.distance(a, b), line)
            };
            let closer = |a: (u32, f64), b: (u32, f64)| a.0.cmp(&b.0).then(a.1.total_cmp(&b.1));
            let Some(target) = self
                .pieces
                .iter()
                .filter(|p| p.team != team)
                .min_by(|a, b| {
                    closer(distance(piece.tile, a.tile), distance(piece.tile, b.tile))
                        .then(a.order.cmp(&b.order))
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
    nav: Res<Navigation>,
    rules: Res<TacticsRules>,
    turn: Res<Turn>,
    units: PieceQuery,
    walking: Query<(), With<Path>>,
    mut context: Local<SearchContext>,
) {
    let mut board = Board::new(&nav, &rules, &units);
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
    nav: Res<Navigation>,
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
    let mut board = Board::new(&nav, &rules, &units);
    let moves = board.plan_turn(&mut context, turn.team.opponent());
    enemy_turn.moves = moves
        .iter()
        .filter_map(|(entity, path)| {
            board
                .piece(*entity)
                .map(|p| (p.entity, path.cells[0], p.tile))
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
/// Fails when the world has no navigation or no tactics rules.
pub fn with_board<R>(
    world: &mut World,
    f: impl FnOnce(&mut Board, &mut SearchContext) -> R,
) -> Result<R, String> {
    let mut state: SystemState<(Res<Navigation>, Res<TacticsRules>, PieceQuery)> =
        SystemState::new(world);
    let (nav, rules, units) = state.get(world).map_err(|e| e.to_string())?;
    let mut board = Board::new(&nav, &rules, &units);
    Ok(f(&mut board, &mut SearchContext::new()))
}
