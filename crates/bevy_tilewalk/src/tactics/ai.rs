//! The minds that play a side of a tactics game: [`Mind::Greedy`] (each unit closes in on the
//! nearest enemy and strikes the weakest in reach) and [`Mind::Planner`] (every move and
//! strike of every unit scored by what it gains, what it risks and where it leaves the unit;
//! strikes first, best first, each seeing the ones before it). Both plan on a
//! [`TacticsBoard`] and resolve their own moves and strikes on it, so the plan a host plays
//! out is the one that was scored. Deterministic: the same board gives the same turn.
//!
//! The method, the weights and the designs set aside are in [`docs/design/tactics-ai.md`].
//!
//! [`docs/design/tactics-ai.md`]: https://github.com/tilewalk/tilewalk/blob/main/docs/design/tactics-ai.md

use std::cmp::Reverse;
use std::collections::{BinaryHeap, HashMap, HashSet};

use bevy::prelude::*;
use serde::{Deserialize, Serialize};
use tilewalk_path::{Heuristic, Pos, Range, SearchContext};

use super::{Piece, TacticsBoard};
use crate::pathing::Path;
use crate::units::{MovementClass, Team};

pub use crate::sides::Mind;

impl Mind {
    /// Every mind, in the order their names are listed.
    pub const ALL: [Mind; 2] = [Mind::Planner, Mind::Greedy];

    /// The mind a name (`planner`, `greedy`) stands for.
    pub fn parse(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|m| m.name() == name)
    }

    /// Its name: `planner` or `greedy`.
    pub fn name(self) -> &'static str {
        match self {
            Self::Planner => "planner",
            Self::Greedy => "greedy",
        }
    }
}

/// How a unit plays under the [`Mind::Planner`]: given per side or per unit in the rules
/// ([`TacticsRules::personality`](super::TacticsRules::personality)), or as a component on the
/// unit, which comes first. In a rules file (serde): `balanced`, `aggressive`, `defensive` or
/// `hold`.
#[derive(
    Component, Reflect, Serialize, Deserialize, Clone, Copy, Debug, Default, PartialEq, Eq, Hash,
)]
#[reflect(Component, Debug, Default, Clone, PartialEq)]
#[serde(rename_all = "lowercase")]
pub enum Personality {
    /// Weighs gain and risk evenly: closes in, but not alone into a reach that would remove
    /// it; strikes when the trade is good.
    #[default]
    Balanced,
    /// Counts risk at half and kills at one and a half: closes in faster, trades more
    /// readily (still no strike whose counter removes it for less than it takes).
    Aggressive,
    /// Holds its tile until an enemy stands where it could strike it this turn (its movement
    /// range, then its attack range); from then on plays [`Personality::Balanced`].
    Defensive,
    /// Never moves; strikes what comes into reach when the forecast is good.
    Hold,
}

impl Personality {
    /// Its name in a rules file.
    pub fn name(self) -> &'static str {
        match self {
            Self::Balanced => "balanced",
            Self::Aggressive => "aggressive",
            Self::Defensive => "defensive",
            Self::Hold => "hold",
        }
    }

    /// How much it counts risk, kills and closing in.
    fn weights(self) -> Weights {
        match self {
            Self::Aggressive => Weights {
                caution: 0.5,
                kill: 1.5,
                approach: 1.5,
            },
            Self::Balanced | Self::Defensive | Self::Hold => Weights {
                caution: 1.0,
                kill: 1.0,
                approach: 1.0,
            },
        }
    }
}

/// What a planned unit does, for a host to tell ("raider pulls back (wounded)").
#[derive(Reflect, Clone, Copy, Debug, PartialEq, Eq)]
#[reflect(Debug, Clone, PartialEq)]
pub enum Intent {
    /// It closes in on the other side.
    Advance,
    /// It strikes ([`Order::strike`] says whom).
    Strike,
    /// It is wounded and pulls back, out of reach or into cover.
    PullBack,
    /// It stays where it stands: nothing it could do is better.
    Hold,
    /// It could strike, but the counter-attack would remove it for less than it takes.
    Spare,
}

/// One unit's part of a side's turn: its move, if it moves, then its strike, if it strikes.
#[derive(Clone, Debug)]
pub struct Order {
    /// The unit.
    pub unit: Entity,
    /// Its way, `cells[0]` the tile it leaves; `None` when it stays.
    pub path: Option<Path>,
    /// The unit it strikes after its move.
    pub strike: Option<Entity>,
    /// Why.
    pub intent: Intent,
}

/// How many stand tiles the planner scores in a turn before it stops looking for the best
/// strike among all its units and lets each remaining unit take its own best option in
/// order. A count, not a clock, so the same board gives the same turn on any machine.
pub const THINK_BUDGET: u64 = 200_000;

/// What a strike's damage counts for, against the same damage taken back.
const INITIATIVE: f64 = 1.25;

/// The most enemies counted as able to strike one tile next turn.
const ATTACKERS_COUNTED: usize = 3;

/// The most enemies counted as able to strike one tile next turn, for a bold side's unit.
const BOLD_ATTACKERS_COUNTED: usize = 2;

/// Steps within which an ally supports a unit.
const SUPPORT_STEPS: u32 = 3;

/// How many times the other side's strength a side's must be for it to hunt the other down.
const UPPER_HAND: f64 = 1.1;

/// What a turn of movement closer to the enemy is worth, as a share of the unit's worth, to
/// a sound unit of a side weaker than the other.
const APPROACH: f64 = 0.15;

/// What a turn of movement closer to the enemy is worth to a sound unit of a bold side, and
/// to a wounded unit of a hunting side.
const BOLD_APPROACH: f64 = 0.6;

/// What a turn of movement closer to the enemy is worth to a sound unit of a hunting side.
const HUNTING_APPROACH: f64 = 1.5;

#[derive(Clone, Copy)]
struct Weights {
    caution: f64,
    kill: f64,
    approach: f64,
}

impl TacticsBoard<'_> {
    /// Plans and plays `team`'s turn with `mind` on this board: the orders, in the order they
    /// are to be played; each unit's move and strike are already resolved on the board. Every
    /// unit of the side gets an order (a unit that stays and does not strike holds), until a
    /// side has won.
    pub fn play_side(&mut self, context: &mut SearchContext, team: Team, mind: Mind) -> Vec<Order> {
        for piece in self.pieces.iter_mut().filter(|p| p.team == team) {
            piece.moved = false;
            piece.acted = false;
        }
        match mind {
            Mind::Greedy => self.play_greedy(context, team),
            Mind::Planner => Planner::new(self, context, team).play(context),
        }
    }

    /// The greedy turn: each unit, in [`Precedence`](crate::units::Precedence) order, moves
    /// as [`TacticsBoard::greedy_move`] says, then strikes [`TacticsBoard::strike_target`].
    fn play_greedy(&mut self, context: &mut SearchContext, team: Team) -> Vec<Order> {
        let units: Vec<Entity> = self
            .pieces
            .iter()
            .filter(|p| p.team == team)
            .map(|p| p.entity)
            .collect();
        let mut orders = Vec::new();
        for unit in units {
            if self.winner().is_some() {
                break;
            }
            let Some(piece) = self.piece(unit).cloned() else {
                continue;
            };
            let path = self.greedy_move(context, &piece);
            if let Some(path) = &path {
                self.place(unit, path.goal());
            }
            let strike = self.strike(unit, |board, attacker| {
                board.strike_target(attacker).map(|t| t.entity)
            });
            let intent = match (strike, &path) {
                (Some(_), _) => Intent::Strike,
                (None, Some(_)) => Intent::Advance,
                (None, None) => Intent::Hold,
            };
            orders.push(Order {
                unit,
                path,
                strike,
                intent,
            });
        }
        orders
    }

    /// Where the greedy AI moves `piece`: as close as its range allows to the nearest unit of
    /// the other side, counting steps on the board (ties: the straight line between tile
    /// centres, then cheaper, then by row and column). `None` when it stays.
    pub fn greedy_move(&self, context: &mut SearchContext, piece: &Piece) -> Option<Path> {
        let board = self.nav.board();
        let distance = |a: Pos, b: Pos| {
            let line = board.heuristic(Heuristic::Euclidean, a, b);
            (board.distance(a, b), line)
        };
        let closer = |a: (u32, f64), b: (u32, f64)| a.0.cmp(&b.0).then(a.1.total_cmp(&b.1));
        let target = self
            .pieces
            .iter()
            .filter(|p| self.hostile(p.team, piece.team))
            .min_by(|a, b| {
                closer(distance(piece.tile, a.tile), distance(piece.tile, b.tile))
                    .then(a.order.cmp(&b.order))
            })?
            .tile;
        let range = self.range(context, piece);
        let best = range.cells().iter().filter(|r| r.can_stop).min_by(|a, b| {
            closer(distance(a.pos, target), distance(b.pos, target))
                .then(a.cost.total_cmp(&b.cost))
                .then((a.pos.y, a.pos.x).cmp(&(b.pos.y, b.pos.x)))
        })?;
        let planned = range.path_to(best.pos).filter(|_| best.pos != piece.tile)?;
        Some(Path::through(planned.cells, planned.cost))
    }

    /// Puts a unit on `tile`, its move made.
    fn place(&mut self, unit: Entity, tile: Pos) {
        if let Some(p) = self.pieces.iter_mut().find(|p| p.entity == unit) {
            p.tile = tile;
            p.moved = true;
        }
    }

    /// Resolves the strike `pick` chooses for `unit` from where it stands, if any and if the
    /// rules allow it; the target struck.
    fn strike(
        &mut self,
        unit: Entity,
        pick: impl FnOnce(&Self, &Piece) -> Option<Entity>,
    ) -> Option<Entity> {
        let attacker = self.piece(unit)?.clone();
        let target = self.piece(pick(self, &attacker)?)?.clone();
        if !self.hostile(target.team, attacker.team)
            || attacker.acted
            || !self.in_reach(&attacker, &target)
        {
            return None;
        }
        let forecast = self.forecast(&attacker, &target);
        self.resolve_strike(unit, target.entity, forecast);
        Some(target.entity)
    }

    /// What a unit of `piece`'s class is worth: its full hit points and twice its damage.
    fn worth(&self, piece: &Piece) -> f64 {
        let class = self.nav.name(piece.class);
        f64::from(self.full_hp(piece)) + 2.0 * f64::from(self.rules.damage(class))
    }

    /// A unit's full hit points: its class's, or more if it has more.
    fn full_hp(&self, piece: &Piece) -> u32 {
        self.rules
            .hit_points(self.nav.name(piece.class))
            .max(piece.hp)
            .max(1)
    }

    /// The damage `from`'s strike deals to a unit standing on `at`.
    fn hit(&self, from: &Piece, at: Pos) -> u32 {
        self.rules
            .damage(self.nav.name(from.class))
            .saturating_sub(self.defence.at(at))
    }
}

/// One option of a unit: where it ends its move and whom it strikes from there.
#[derive(Clone, Copy, Debug)]
struct Choice {
    stand: Pos,
    strike: Option<Entity>,
    score: f64,
    /// Whether a strike was in reach that the counter-attack would have made a loss.
    spared: bool,
}

/// The planner's view of one turn: the enemies' reach next turn and how far each tile is
/// from them, kept up to date as its own strikes remove enemies.
struct Planner<'b, 'a> {
    board: &'b mut TacticsBoard<'a>,
    team: Team,
    /// The enemies that could strike each tile next turn.
    reach: HashMap<Pos, Vec<Entity>>,
    /// By movement class: the cost of the cheapest way from each tile to an enemy.
    fields: HashMap<MovementClass, Vec<f64>>,
    /// Each of the side's units' movement range, kept until an enemy is removed.
    ranges: HashMap<Entity, Range>,
    /// Stand tiles scored so far.
    thought: u64,
    /// Whether the side is at least as strong as the other (the worth of its hit points):
    /// then it closes in on the enemy's reach instead of waiting outside it.
    bold: bool,
    /// Whether the side has the upper hand ([`UPPER_HAND`] times the other's strength): then
    /// it hunts the other side down, its wounded too, instead of letting it run out the turns.
    hunting: bool,
}

impl<'b, 'a> Planner<'b, 'a> {
    fn new(board: &'b mut TacticsBoard<'a>, context: &mut SearchContext, team: Team) -> Self {
        let mut planner = Self {
            board,
            team,
            reach: HashMap::new(),
            fields: HashMap::new(),
            ranges: HashMap::new(),
            thought: 0,
            bold: false,
            hunting: false,
        };
        planner.survey(context);
        planner
    }

    /// Works out the enemies' reach and the distance fields from the board as it stands.
    fn survey(&mut self, context: &mut SearchContext) {
        let board = &*self.board;
        let nav = board.nav;
        let (width, height) = (nav.width(), nav.height());
        let distance = |a: Pos, b: Pos| nav.board().distance(a, b);
        let mut reach: HashMap<Pos, Vec<Entity>> = HashMap::new();
        // The enemies' ranges as if this side were not in their way: its units will have
        // moved (and their zones of control with them) by the time the enemy moves.
        let enemies = TacticsBoard {
            pieces: board
                .pieces
                .iter()
                .filter(|p| board.hostile(p.team, self.team))
                .map(|p| Piece {
                    // Next turn it moves afresh, whatever it did this one.
                    moved: false,
                    acted: false,
                    ..p.clone()
                })
                .collect(),
            ..*board
        };
        for enemy in &enemies.pieces {
            let range = enemies.range(context, enemy);
            let (min, max) = enemy.attack;
            let max = max.min(width + height);
            let mut tiles = HashSet::new();
            let stands = range
                .cells()
                .iter()
                .filter(|r| r.can_stop)
                .map(|r| r.pos)
                .chain([enemy.tile]);
            for stand in stands {
                let xs = stand.x.saturating_sub(max)..=stand.x.saturating_add(max).min(width - 1);
                let ys = stand.y.saturating_sub(max)..=stand.y.saturating_add(max).min(height - 1);
                for y in ys {
                    for x in xs.clone() {
                        let tile = Pos::new(x, y);
                        if (min..=max).contains(&distance(stand, tile)) {
                            tiles.insert(tile);
                        }
                    }
                }
            }
            for tile in tiles {
                reach.entry(tile).or_default().push(enemy.entity);
            }
        }
        self.reach = reach;
        let strength = |mine: bool| -> f64 {
            board
                .pieces
                .iter()
                .filter(|p| match mine {
                    true => p.team == self.team,
                    false => board.hostile(p.team, self.team),
                })
                .map(|p| board.worth(p) * f64::from(p.hp) / f64::from(board.full_hp(p)))
                .sum()
        };
        self.bold = strength(true) >= strength(false);
        self.hunting = strength(true) >= UPPER_HAND * strength(false);
        let classes: HashSet<MovementClass> = board
            .pieces
            .iter()
            .filter(|p| p.team == self.team)
            .map(|p| p.class)
            .collect();
        let enemies: Vec<Pos> = board
            .pieces
            .iter()
            .filter(|p| board.hostile(p.team, self.team))
            .map(|p| p.tile)
            .collect();
        self.fields = classes
            .into_iter()
            .map(|class| (class, distance_field(board, class, &enemies)))
            .collect();
        self.ranges.clear();
    }

    fn field(&self, class: MovementClass, pos: Pos) -> f64 {
        let width = self.board.nav.width();
        self.fields
            .get(&class)
            .and_then(|f| f.get((pos.y * width + pos.x) as usize))
            .copied()
            .unwrap_or(f64::INFINITY)
    }

    /// Plays the side's turn: while the budget lasts, the best strike of any unit, again and
    /// again; then each unit left, the wounded first, its own best option.
    fn play(mut self, context: &mut SearchContext) -> Vec<Order> {
        let mut orders = Vec::new();
        let mut left: Vec<Entity> = self
            .board
            .pieces
            .iter()
            .filter(|p| p.team == self.team)
            .map(|p| p.entity)
            .collect();
        while self.thought < THINK_BUDGET && self.board.winner().is_none() {
            left.retain(|&e| self.board.piece(e).is_some());
            let best = left
                .iter()
                .filter_map(|&unit| Some((unit, self.choose(context, unit)?)))
                .filter(|(_, choice)| choice.strike.is_some())
                .max_by(|a, b| a.1.score.total_cmp(&b.1.score));
            let Some((unit, choice)) = best else {
                break;
            };
            left.retain(|&e| e != unit);
            orders.push(self.carry_out(context, unit, choice));
        }
        // The wounded first, so they find their cover before the others fill it.
        left.sort_by_key(|&e| self.board.piece(e).is_none_or(|p| !self.wounded(p, p.hp)));
        for unit in left {
            if self.board.winner().is_some() {
                break;
            }
            if let Some(choice) = self.choose(context, unit) {
                orders.push(self.carry_out(context, unit, choice));
            }
        }
        orders
    }

    fn wounded(&self, piece: &Piece, hp: u32) -> bool {
        hp * 2 <= self.board.full_hp(piece)
    }

    /// Makes a choice on the board; after a kill, looks at the board afresh.
    fn carry_out(&mut self, context: &mut SearchContext, unit: Entity, choice: Choice) -> Order {
        let Some(piece) = self.board.piece(unit).cloned() else {
            return Order {
                unit,
                path: None,
                strike: None,
                intent: Intent::Hold,
            };
        };
        let path = (choice.stand != piece.tile)
            .then(|| self.ranges.get(&unit)?.path_to(choice.stand))
            .flatten()
            .map(|planned| Path::through(planned.cells, planned.cost));
        if let Some(path) = &path {
            self.board.place(unit, path.goal());
        }
        let before = self.board.pieces.len();
        let strike = choice
            .strike
            .and_then(|target| self.board.strike(unit, |_, _| Some(target)));
        if self.board.pieces.len() != before {
            self.survey(context);
        }
        // A wounded unit that ends no nearer the enemy pulls back; one that closes in (its
        // side hunting) advances.
        let nearer = self.field(piece.class, choice.stand) < self.field(piece.class, piece.tile);
        let intent = match (strike, &path) {
            (Some(_), _) => Intent::Strike,
            (None, Some(_)) if self.wounded(&piece, piece.hp) && !nearer => Intent::PullBack,
            (None, Some(_)) => Intent::Advance,
            (None, None) if choice.spared => Intent::Spare,
            (None, None) => Intent::Hold,
        };
        Order {
            unit,
            path,
            strike,
            intent,
        }
    }

    /// The best option of a unit: every tile it may end on (its own among them) with every
    /// strike from there and none, scored; ties go to staying, then the earlier tile by row
    /// and column, then the earlier target.
    fn choose(&mut self, context: &mut SearchContext, unit: Entity) -> Option<Choice> {
        let piece = self.board.piece(unit)?.clone();
        let personality = piece.personality;
        if !self.ranges.contains_key(&unit) {
            let range = self.board.range(context, &piece);
            self.ranges.insert(unit, range);
        }
        let occupied: HashSet<Pos> = self
            .board
            .pieces
            .iter()
            .filter(|p| p.entity != unit)
            .map(|p| p.tile)
            .collect();
        let mut stands: Vec<Pos> = vec![piece.tile];
        if personality != Personality::Hold {
            let range = &self.ranges[&unit];
            stands.extend(
                range
                    .cells()
                    .iter()
                    .filter(|r| r.can_stop && r.pos != piece.tile && !occupied.contains(&r.pos))
                    .map(|r| r.pos),
            );
        }
        let board = &*self.board;
        let distance = |a: Pos, b: Pos| board.nav.board().distance(a, b);
        let enemies: Vec<&Piece> = board
            .pieces
            .iter()
            .filter(|p| board.hostile(p.team, self.team))
            .collect();
        let in_reach = |stand: Pos, target: &Piece| {
            let (min, max) = piece.attack;
            (min..=max).contains(&distance(stand, target.tile))
        };
        if personality == Personality::Defensive
            && !stands
                .iter()
                .any(|&s| enemies.iter().any(|&e| in_reach(s, e)))
        {
            stands.truncate(1);
        }
        let weights = personality.weights();
        let mut best: Option<Choice> = None;
        let mut spared = false;
        for &stand in &stands {
            self.thought += 1;
            let options = std::iter::once(None).chain(
                enemies
                    .iter()
                    .filter(|&&e| in_reach(stand, e))
                    .map(|&e| Some(e)),
            );
            for target in options {
                let Some(score) = self.score(&piece, stand, target, weights, &mut spared) else {
                    continue;
                };
                let choice = Choice {
                    stand,
                    strike: target.map(|t| t.entity),
                    score,
                    spared: false,
                };
                if best.is_none_or(|b| score > b.score + 1e-9) {
                    best = Some(choice);
                }
            }
        }
        best.map(|b| Choice { spared, ..b })
    }

    /// The score of `piece` ending its move on `stand` and striking `target` from there (or
    /// not striking): what the strike gains less what the counter-attack costs, then what the
    /// tile risks next turn, its defence, the support of allies and, for a sound unit, the
    /// way closed in. `None` for a strike whose counter-attack would remove
    /// the unit for less than it takes (and `spared` is set).
    fn score(
        &self,
        piece: &Piece,
        stand: Pos,
        target: Option<&Piece>,
        weights: Weights,
        spared: &mut bool,
    ) -> Option<f64> {
        let board = &*self.board;
        let distance = |a: Pos, b: Pos| board.nav.board().distance(a, b);
        let worth = board.worth(piece);
        let full = f64::from(board.full_hp(piece));
        let mut score = 0.0;
        let mut hp = piece.hp;
        let mut killed = None;
        if let Some(target) = target {
            let damage = board.hit(piece, target.tile);
            let kills = damage >= target.hp;
            let (min, max) = target.attack;
            let counter = if !kills && (min..=max).contains(&distance(target.tile, stand)) {
                board.hit(target, stand)
            } else {
                0
            };
            let target_worth = board.worth(target);
            let gain = target_worth * f64::from(damage.min(target.hp))
                / f64::from(board.full_hp(target))
                + if kills {
                    weights.kill * target_worth
                } else {
                    0.0
                };
            let mut loss = worth * f64::from(counter.min(hp)) / full;
            hp = hp.saturating_sub(counter);
            if hp == 0 {
                loss += worth;
                if gain <= loss {
                    *spared = true;
                    return None;
                }
            }
            if damage == 0 {
                return None;
            }
            // The initiative: what a strike deals is dealt now, and an even trade started
            // is a trade the enemy cannot open on its own terms.
            score += INITIATIVE * gain - loss;
            if kills {
                killed = Some(target.entity);
            }
        }
        if hp == 0 {
            return Some(score);
        }
        // Wounds do not heal: a wounded unit weighs the threat as a sound one does (a tile
        // where it would be removed still costs its whole worth), so it is not chased round
        // the map by a threat it overrates.
        let wounded = self.wounded(piece, hp);
        let allies = board
            .pieces
            .iter()
            .filter(|p| {
                p.team == self.team
                    && p.entity != piece.entity
                    && distance(p.tile, stand) <= SUPPORT_STEPS
            })
            .count();
        // The strikes it could take next turn: the hardest few.
        let mut hits: Vec<(u32, Entity)> = self
            .reach
            .get(&stand)
            .into_iter()
            .flatten()
            .filter(|&&e| Some(e) != killed)
            .filter_map(|&e| board.piece(e))
            .map(|e| (board.hit(e, stand), e.entity))
            .collect();
        hits.sort_by_key(|&(h, e)| (Reverse(h), e));
        // A bold side enters the enemy's reach together: the enemy's blows are spread, one a
        // unit where allies stand near, two where none does.
        let bold = self.bold && !wounded;
        hits.truncate(match (bold, allies) {
            (false, _) => ATTACKERS_COUNTED,
            (true, 0) => BOLD_ATTACKERS_COUNTED,
            (true, _) => 1,
        });
        let taken: u32 = hits.iter().map(|h| h.0).sum();
        let mut risk = worth * f64::from(taken.min(hp)) / full;
        // What its counter-attacks would take back from those who strike it.
        let back: f64 = hits
            .iter()
            .filter_map(|&(_, e)| board.piece(e))
            .filter(|e| e.attack.0 <= 1 && piece.attack.0 <= 1)
            .map(|e| {
                // Where it would strike from is not known: no defence counted.
                let damage = board.rules.damage(board.nav.name(piece.class));
                board.worth(e) * f64::from(damage.min(e.hp)) / f64::from(board.full_hp(e))
            })
            .sum();
        risk -= 0.5 * back.min(risk);
        if taken >= hp {
            // Removed next turn unless the enemy blunders: the more alone, the surer.
            risk += worth
                * match (allies, bold) {
                    (0, _) => 1.0,
                    (_, false) => 0.6,
                    (_, true) => 0.3,
                };
        } else if taken > 0 && allies == 0 {
            risk += 0.25 * worth;
        }
        score -= weights.caution * risk;
        let defence = f64::from(board.defence.at(stand));
        score += (if wounded { 0.3 } else { 0.1 }) * worth * defence / full;
        score += 0.03 * worth * allies.min(2) as f64;
        let points = board
            .rules
            .movement_points(board.nav.name(piece.class))
            .max(1.0);
        let (here, there) = (
            self.field(piece.class, piece.tile),
            self.field(piece.class, stand),
        );
        // What a turn of movement closer to the enemy is worth, as a share of the unit's
        // worth. A wounded unit gains nothing for the way it closes in, nor for the way it
        // runs: it ends out of a reach that would remove it, in cover where it can, and no
        // further; unless its side is hunting, when it closes in as a bold unit does (never
        // enough to pay for a tile where it would be removed: that costs 0.6 of its worth at
        // least), and the sound units close in hard, so a beaten side cannot run out the turns.
        let approach = match (self.hunting, wounded, bold) {
            (true, false, _) => HUNTING_APPROACH,
            (true, true, _) | (false, false, true) => BOLD_APPROACH,
            (false, true, _) => 0.0,
            (false, false, false) => APPROACH,
        };
        if approach > 0.0 && here.is_finite() && there.is_finite() {
            let closed_in = (here - there) / points;
            score += approach * weights.approach * worth * closed_in;
        }
        Some(score)
    }
}

/// The cost of the cheapest way from each tile to one of `to` for a unit of `class`, tile by
/// tile as its range pays it (units not counted): `INFINITY` where there is none.
fn distance_field(board: &TacticsBoard, class: MovementClass, to: &[Pos]) -> Vec<f64> {
    let nav = board.nav;
    let (width, height) = (nav.width(), nav.height());
    let grid = nav.grid(class);
    let index = |p: Pos| (p.y * width + p.x) as usize;
    let mut cost = vec![f64::INFINITY; (width * height) as usize];
    let mut open = BinaryHeap::new();
    for &p in to {
        cost[index(p)] = 0.0;
        open.push(Reverse((Cost(0.0), p.y, p.x)));
    }
    while let Some(Reverse((Cost(c), y, x))) = open.pop() {
        let p = Pos::new(x, y);
        if c > cost[index(p)] {
            continue;
        }
        // Stepping from `next` onto `p` costs what entering `p` costs (an enemy's own tile,
        // where a unit never stops, at least 1).
        let enter = grid.cost(p).unwrap_or(1.0);
        for next in nav.board().neighbours(p, width, height) {
            if !grid.is_passable(next) || !nav.can_step(class, next, p) {
                continue;
            }
            let step = c + enter * nav.step_length(next, p);
            if step < cost[index(next)] {
                cost[index(next)] = step;
                open.push(Reverse((Cost(step), next.y, next.x)));
            }
        }
    }
    cost
}

/// A cost that orders (never NaN here).
#[derive(Clone, Copy)]
struct Cost(f64);

impl PartialEq for Cost {
    fn eq(&self, other: &Self) -> bool {
        self.cmp(other).is_eq()
    }
}

impl Eq for Cost {}

impl PartialOrd for Cost {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Cost {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        self.0.total_cmp(&other.0)
    }
}
