//! Turn-based tactics (SLG) on the same simulation: movement points, movement ranges
//! shaped by tactics rules inside the search (allies passable but not stoppable, enemies
//! blocking, zones of control), moves that walk exactly the previewed path, turns, threat,
//! and a simple deterministic enemy.
//!
//! Range, preview and move can never disagree: all three read one [`Range`] from the
//! core's bounded Dijkstra, and a move inserts the path stored in it.

use std::collections::BTreeSet;

use bevy::prelude::*;
use serde::Deserialize;
use tilewalk_path::formats::ParseError;
use tilewalk_path::{Passage, Pos, Range, SearchContext, SearchOptions};

use crate::AppSystems;
use crate::level::Level;
use crate::pathing::{OrderRefused, Path};
use crate::terrain::MovementClass;
use crate::units::{AttackRange, Team, Tile, Unit};

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
        let rules: Self = ron::from_str(text).map_err(crate::ron_error)?;
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
            if !(points.is_finite() && points >= 0.0) {
                return Err(at(
                    "movement_points",
                    format!(
                        "{} movement points must be a number of at least 0, got {points}",
                        class.name()
                    ),
                ));
            }
            let (min, max) = rules.attack_range.get(class);
            if !(1 <= min && min <= max) {
                return Err(at(
                    "attack_range",
                    format!(
                        "{} attack range must be (min, max) with 1 <= min <= max, got ({min}, {max})",
                        class.name()
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

/// One enemy move of the last enemy turn, for the HUD and the `tactics` command.
#[derive(Resource, Clone, Debug, Default)]
pub struct EnemyTurn(pub Vec<(String, Pos, Pos)>);

pub(super) fn plugin(app: &mut App) {
    app.init_state::<Mode>()
        .add_message::<TacticsMove>()
        .add_message::<EndTurn>()
        .init_resource::<Turn>()
        .init_resource::<EnemyTurn>()
        .add_systems(
            Update,
            (apply_moves, end_turn)
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

/// The query a [`Board`] is built from.
pub type PieceQuery<'w, 's> = Query<
    'w,
    's,
    (
        Entity,
        &'static Unit,
        &'static Team,
        &'static MovementClass,
        &'static Tile,
        Option<&'static AttackRange>,
        Has<Moved>,
    ),
>;

impl<'a> Board<'a> {
    pub fn new(level: &'a Level, rules: &'a TacticsRules, units: &PieceQuery) -> Self {
        let mut pieces: Vec<Piece> = units
            .iter()
            .map(|(entity, unit, &team, &class, tile, attack, moved)| Piece {
                entity,
                name: unit.name.clone(),
                team,
                class,
                tile: tile.0,
                attack: attack.map_or(rules.attack_range.get(class), |a| (a.0, a.1)),
                moved,
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

    /// The movement range of a piece under the rules: its reachable tiles, with where it may stop.
    pub fn range(&self, context: &mut SearchContext, piece: &Piece) -> Range {
        let zone = |pos: Pos| {
            self.pieces.iter().any(|p| {
                p.team != piece.team && p.tile.x.abs_diff(pos.x).max(p.tile.y.abs_diff(pos.y)) == 1
            })
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
                SearchOptions::default().diagonal,
                passage,
            )
            .unwrap_or_default()
    }

    /// Every tile a piece could attack after a move within `range` (or standing still).
    pub fn attack_tiles(&self, piece: &Piece, range: &Range) -> BTreeSet<Pos> {
        let (min, max) = piece.attack;
        let from = range
            .cells()
            .iter()
            .filter(|r| r.can_stop)
            .map(|r| r.pos)
            .chain([piece.tile]);
        let mut tiles = BTreeSet::new();
        for stand in from {
            let max = i64::from(max);
            for dy in -max..=max {
                for dx in -max..=max {
                    let distance = (dx.abs() + dy.abs()) as u32;
                    let (x, y) = (i64::from(stand.x) + dx, i64::from(stand.y) + dy);
                    if (min..=piece.attack.1).contains(&distance) && x >= 0 && y >= 0 {
                        let pos = Pos::new(x as u32, y as u32);
                        if self.level.contains(pos) {
                            tiles.insert(pos);
                        }
                    }
                }
            }
        }
        tiles
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
    ) -> Result<Path, String> {
        if piece.team != turn.team {
            return Err(
                format!("{} cannot move: it is {:?}'s turn", piece.name, turn.team).to_lowercase(),
            );
        }
        if piece.moved {
            return Err(format!("{} has already moved this turn", piece.name));
        }
        match range.get(to) {
            Some(reached) if reached.can_stop => {
                let planned = range
                    .path_to(to)
                    .ok_or_else(|| format!("{to} is not in {}'s range", piece.name))?;
                Ok(Path::through(planned.cells, planned.cost))
            }
            Some(_) => Err(format!(
                "{} cannot stop on {to}: a unit stands there",
                piece.name
            )),
            None => Err(format!("{to} is out of {}'s range", piece.name)),
        }
    }

    /// The enemy's turn: each `team` piece, by name, moves as close as its range allows to the
    /// nearest other-team piece (straight-line distance; ties: cheaper, then by row and column).
    /// Moves are planned one after another, each seeing where the earlier ones went.
    pub fn plan_turn(&mut self, context: &mut SearchContext, team: Team) -> Vec<(Entity, Path)> {
        let mut moves = Vec::new();
        for i in 0..self.pieces.len() {
            let piece = self.pieces[i].clone();
            if piece.team != team {
                continue;
            }
            let distance =
                |a: Pos, b: Pos| f64::from(a.x.abs_diff(b.x)).hypot(f64::from(a.y.abs_diff(b.y)));
            let Some(target) = self
                .pieces
                .iter()
                .filter(|p| p.team != team)
                .min_by(|a, b| {
                    distance(piece.tile, a.tile)
                        .total_cmp(&distance(piece.tile, b.tile))
                        .then(a.name.cmp(&b.name))
                })
                .map(|p| p.tile)
            else {
                break;
            };
            let range = self.range(context, &piece);
            let best = range.cells().iter().filter(|r| r.can_stop).min_by(|a, b| {
                distance(a.pos, target)
                    .total_cmp(&distance(b.pos, target))
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

/// Whether any unit is still walking.
fn anyone_walking(paths: &Query<(), With<Path>>) -> bool {
    !paths.is_empty()
}

#[expect(
    clippy::too_many_arguments,
    reason = "a system: each parameter is one piece of world state"
)]
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
        let checked = if anyone_walking(&walking) {
            Err("wait: units are still moving".to_owned())
        } else {
            board.check_move(&piece, &range, order.to, *turn)
        };
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

#[expect(
    clippy::too_many_arguments,
    reason = "a system: each parameter is one piece of world state"
)]
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
    let mut board = Board::new(&level, &rules, &units);
    let enemy = match turn.team {
        Team::Blue => Team::Red,
        Team::Red => Team::Blue,
    };
    let moves = board.plan_turn(&mut context, enemy);
    enemy_turn.0 = moves
        .iter()
        .filter_map(|(entity, path)| {
            board
                .piece(*entity)
                .map(|p| (p.name.clone(), path.cells[0], p.tile))
        })
        .collect();
    for (entity, path) in moves {
        commands.entity(entity).insert(path);
    }
    for piece in &board.pieces {
        commands.entity(piece.entity).remove::<Moved>();
    }
    turn.number += 1;
}

/// Runs `f` on the board of a world (for commands and tests; systems build their own).
/// Fails when the world has no level or no tactics rules.
pub fn with_board<R>(
    world: &mut World,
    f: impl FnOnce(&mut Board, &mut SearchContext) -> R,
) -> Result<R, String> {
    let mut state: bevy::ecs::system::SystemState<(Res<Level>, Res<TacticsRules>, PieceQuery)> =
        bevy::ecs::system::SystemState::new(world);
    let (level, rules, units) = state.get(world).map_err(|e| e.to_string())?;
    let mut board = Board::new(&level, &rules, &units);
    Ok(f(&mut board, &mut SearchContext::new()))
}
