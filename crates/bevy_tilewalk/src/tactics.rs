//! Tactics (SLG) queries and turns: movement ranges under the rules (movement points,
//! allies passed through, enemies blocking, zones of control), attack tiles, the threat of a
//! side, checked moves, a unit's action after its move (strike, wait or cancel the move),
//! combat (hit points, damage, terrain defence, counter-attacks), and the turns of any number
//! of sides ([`Sides`]), each played by a person or by a [`Mind`]: the [`Mind::Planner`] (by
//! default) or the [`Mind::Greedy`] baseline.
//!
//! Behind the cargo feature `tactics` (off by default). [`TilewalkTacticsPlugin`], added after
//! [`TilewalkPlugin`](crate::TilewalkPlugin), adds the turns and registers these types for
//! reflection; inserting [`TacticsRules`] as a resource then starts the turns. [`with_board`]
//! answers queries (ranges, threat, forecasts) on a [`TacticsBoard`] of the units as they
//! stand, with or without the plugin. Tactics play on the default map (the [`Navigation`]
//! resource): the board and the turns see no unit [`OnMap`] an entity, and
//! their walks do not hold up the turns.

mod ai;

use std::collections::{BTreeMap, BTreeSet};

use bevy::ecs::query::QueryData;
use bevy::ecs::schedule::InternedScheduleLabel;
use bevy::ecs::system::{SystemParam, SystemState};
use bevy::prelude::*;
use serde::{Deserialize, Serialize};
use tilewalk_path::{Passage, Pos, Range, SearchContext};

use crate::maps::OnMap;
use crate::navigation::{ClassSpec, Navigation};
use crate::pathing::{OrderRefused, Path, Refusal};
use crate::remote::PosReflect;
use crate::sides::Sides;
use crate::units::{Motion, MovementClass, Precedence, Team, Tile, Unit, precedence};
use crate::{TilewalkSchedule, TilewalkSystems};

pub use ai::{Intent, Mind, Order, Personality, THINK_BUDGET};

/// A value for each movement class, by the class's name; the entry `*` is that of every
/// class not named.
#[derive(Reflect, Clone, Debug, Default, PartialEq)]
pub struct PerClass<T>(pub BTreeMap<String, T>);

impl<T: Copy> PerClass<T> {
    /// The value of the class named `name`, or the `*` entry's.
    pub fn get(&self, name: &str) -> Option<T> {
        self.0.get(name).or_else(|| self.0.get("*")).copied()
    }
}

impl<T> PerClass<T> {
    /// The names it has entries for, `*` among them, in sorted order.
    pub fn names(&self) -> impl Iterator<Item = &str> {
        self.0.keys().map(String::as_str)
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

/// What entering an enemy's zone of control (the tiles next to it) does. In a rules file
/// (serde), a variant's name: `EndsMove` or `TakesAllPoints`.
#[derive(Reflect, Serialize, Deserialize, Clone, Copy, Debug, Default, PartialEq, Eq)]
#[reflect(Debug, Default, Clone, PartialEq)]
pub enum ZoneOfControl {
    /// Pay the tile's cost as usual; the move ends there.
    #[default]
    EndsMove,
    /// Entering costs every point left, whatever the terrain; the move ends there.
    TakesAllPoints,
}

/// A unit's own attack range for tactics (min, max), instead of its class's in the
/// [`TacticsRules`].
#[derive(Component, Reflect, Clone, Copy, Debug, PartialEq, Eq)]
#[reflect(Component, Debug, Clone, PartialEq)]
pub struct AttackRange(pub u32, pub u32);

/// The longest attack reach a class or a unit may have, in steps.
pub const MAX_ATTACK_RANGE: u32 = 1000;

/// The most movement points a class may have: far more than any map needs (a range never
/// leaves the map), and small enough that costs summed up to it stay exact.
pub const MAX_MOVEMENT_POINTS: f64 = 1e6;

/// The rules of tactics: insert them as a resource and the tactics systems run, as long as
/// the rules fit the [`Navigation`]'s classes ([`TacticsRules::check`]): while they do not,
/// the plugin logs the mistake once and leaves tactics messages unread, and
/// [`with_board`] fails with it.
///
/// Each per-class field is either left empty, on purpose (then every class has its default:
/// no movement points, attack range (1, 1), 1 hit point, no damage), or covers every class,
/// by name or with a `*` entry.
#[derive(Resource, Reflect, Clone, Debug, Default, PartialEq)]
#[reflect(Resource, Debug, Default, Clone, PartialEq)]
pub struct TacticsRules {
    /// Movement points per turn.
    pub movement_points: PerClass<f64>,
    /// Attack range (min, max) in steps on the board.
    pub attack_range: PerClass<(u32, u32)>,
    /// What entering an enemy's zone of control does.
    pub zone_of_control: ZoneOfControl,
    /// The classes zones of control do not stop (enemies still block them).
    pub ignore_zone_of_control: Vec<String>,
    /// Hit points a unit starts with; at 0 it is [`Defeated`].
    pub hit_points: PerClass<u32>,
    /// The damage a strike deals, before the defence of the defender's tile.
    pub damage: PerClass<u32>,
    /// The mind that plays the sides played by [`Player::RulesAi`] (red, by default).
    pub ai: Mind,
    /// How units play under the [`Mind::Planner`], by a unit's [`Name`] or by its side's
    /// name ([`Sides`]: `blue`, `red`); a unit's own [`Personality`] component comes first,
    /// its name next, then its side; else [`Personality::Balanced`].
    pub personality: BTreeMap<String, Personality>,
}

/// A mistake in [`TacticsRules`] for a navigation's classes, found by
/// [`TacticsRules::check`].
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum RulesError {
    /// The rules name a class the navigation does not have (a typo, or a class renamed).
    #[error("`{field}` names `{class}`, which is not a movement class (the classes: {known})")]
    UnknownClass {
        /// The field: `movement_points`, `attack_range`, `hit_points`, `damage` or
        /// `ignore_zone_of_control`.
        field: &'static str,
        /// The name.
        class: String,
        /// The navigation's classes, in index order, separated by `, `.
        known: String,
    },
    /// A field names some classes but not this one, and has no `*` entry.
    #[error("`{field}` has no entry for the movement class `{class}` (and no \"*\" entry)")]
    MissingClass {
        /// The field: `movement_points`, `attack_range`, `hit_points` or `damage`.
        field: &'static str,
        /// The class.
        class: String,
    },
}

impl RulesError {
    /// The field the mistake is in.
    pub fn field(&self) -> &'static str {
        match self {
            Self::UnknownClass { field, .. } | Self::MissingClass { field, .. } => field,
        }
    }

    /// The class name the mistake is about.
    pub fn class(&self) -> &str {
        match self {
            Self::UnknownClass { class, .. } | Self::MissingClass { class, .. } => class,
        }
    }
}

impl TacticsRules {
    /// Checks the rules against a navigation's classes ([`Navigation::classes`]): every name
    /// they use must be a class (or `*` in a per-class field), and each per-class field that
    /// names any class must cover all of them, by name or with `*`. Unknown names are
    /// reported first (a misspelt class is then named as such, not as a missing one), in the
    /// order `movement_points`, `attack_range`, `hit_points`, `damage`,
    /// `ignore_zone_of_control`, each field's names in sorted order.
    pub fn check(&self, classes: &[ClassSpec]) -> Result<(), RulesError> {
        let per_class: [(&'static str, Vec<&str>); 4] = [
            ("movement_points", self.movement_points.names().collect()),
            ("attack_range", self.attack_range.names().collect()),
            ("hit_points", self.hit_points.names().collect()),
            ("damage", self.damage.names().collect()),
        ];
        let is_class = |name: &str| classes.iter().any(|c| c.name == name);
        let unknown = |field: &'static str, name: &str| RulesError::UnknownClass {
            field,
            class: name.to_owned(),
            known: classes
                .iter()
                .map(|c| c.name.as_str())
                .collect::<Vec<_>>()
                .join(", "),
        };
        for &(field, ref names) in &per_class {
            if let Some(&name) = names.iter().find(|&&n| n != "*" && !is_class(n)) {
                return Err(unknown(field, name));
            }
        }
        let ignored = &self.ignore_zone_of_control;
        if let Some(name) = ignored.iter().find(|n| !is_class(n)) {
            return Err(unknown("ignore_zone_of_control", name.as_str()));
        }
        for &(field, ref names) in &per_class {
            if names.is_empty() || names.contains(&"*") {
                continue;
            }
            if let Some(class) = classes.iter().find(|c| !names.contains(&c.name.as_str())) {
                return Err(RulesError::MissingClass {
                    field,
                    class: class.name.clone(),
                });
            }
        }
        Ok(())
    }

    /// A class's movement points (0 when the rules do not name it).
    pub fn movement_points(&self, class: &str) -> f64 {
        self.movement_points.get(class).unwrap_or(0.0)
    }

    /// A class's attack range ((1, 1) when the rules do not name it).
    pub fn attack_range(&self, class: &str) -> (u32, u32) {
        self.attack_range.get(class).unwrap_or((1, 1))
    }

    /// A class's hit points (1 when the rules do not name it).
    pub fn hit_points(&self, class: &str) -> u32 {
        self.hit_points.get(class).unwrap_or(1)
    }

    /// A class's damage (0 when the rules do not name it).
    pub fn damage(&self, class: &str) -> u32 {
        self.damage.get(class).unwrap_or(0)
    }
}

/// The defence of each tile: what it takes off the damage of a strike at a unit standing
/// there. The host inserts it from its terrain (the game: each terrain's `defence` in its
/// terrain table); without it, or off its grid, a tile's defence is 0.
#[derive(Resource, Reflect, Clone, Debug, Default, PartialEq, Eq)]
#[reflect(Resource, Debug, Default, Clone, PartialEq)]
pub struct TerrainDefence {
    width: u32,
    values: Vec<u32>,
}

/// No defence anywhere: the board's defence when the host inserts none.
static NO_DEFENCE: TerrainDefence = TerrainDefence {
    width: 0,
    values: Vec::new(),
};

impl TerrainDefence {
    /// A `width` × `height` grid whose tile at `pos` has the defence `defence(pos)`.
    pub fn from_fn(width: u32, height: u32, mut defence: impl FnMut(Pos) -> u32) -> Self {
        let values = (0..height)
            .flat_map(|y| (0..width).map(move |x| Pos::new(x, y)))
            .map(&mut defence)
            .collect();
        Self { width, values }
    }

    /// The defence of the tile at `pos` (0 off the grid).
    pub fn at(&self, pos: Pos) -> u32 {
        if pos.x >= self.width {
            return 0;
        }
        let index = u64::from(pos.y) * u64::from(self.width) + u64::from(pos.x);
        usize::try_from(index)
            .ok()
            .and_then(|i| self.values.get(i))
            .copied()
            .unwrap_or(0)
    }
}

/// A unit's hit points left. A unit without it has its class's full
/// [`TacticsRules::hit_points`]; a strike inserts it. At 0 the unit is [`Defeated`] and off
/// the [`TacticsBoard`].
#[derive(Component, Reflect, Clone, Copy, Debug, PartialEq, Eq)]
#[reflect(Component, Debug, Clone, PartialEq)]
pub struct Health(pub u32);

/// Whose turn it is. The sides take turns in [`Sides`] order, from `Team(0)` (blue), each
/// side with units on the board once a round; the number counts rounds.
#[derive(Resource, Reflect, Clone, Copy, Debug, PartialEq, Eq)]
#[reflect(Resource, Default, Debug, Clone, PartialEq)]
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
            team: Team::BLUE,
        }
    }
}

/// Marks a unit that has moved this turn, with the tile it stood on before: a
/// [`CancelMove`] puts it back there.
#[derive(Component, Reflect, Clone, Copy, Debug, PartialEq, Eq)]
#[reflect(Component, Debug, Clone, PartialEq)]
pub struct Moved {
    /// Where it stood when the turn began.
    #[reflect(remote = PosReflect)]
    pub from: Pos,
}

/// Marks a unit that has ended its action this turn (it struck or waited): it may not move,
/// strike, wait or cancel its move until its side's next turn.
#[derive(Component, Reflect, Clone, Copy, Debug, Default)]
#[reflect(Component, Default, Debug, Clone)]
pub struct Acted;

pub use crate::sides::Player;

impl Player {
    /// The AI it is, under `rules`; `None` for a person.
    pub fn mind(self, rules: &TacticsRules) -> Option<Mind> {
        match self {
            Self::Person => None,
            Self::RulesAi => Some(rules.ai),
            Self::Ai(mind) => Some(mind),
        }
    }
}

/// Moves a unit to a tile of its movement range, along the range's path. A move resolves in
/// turn time, not walking time: the unit stands on the tile at once, whatever its class's
/// speed, and [`TacticsMoved`] says which way it went (for a host to draw the walk).
#[derive(Message, Reflect, Clone, Copy, Debug)]
#[reflect(Debug, Clone)]
#[non_exhaustive]
pub struct TacticsMove {
    /// The unit.
    pub unit: Entity,
    /// The tile.
    #[reflect(remote = PosReflect)]
    pub to: Pos,
}

impl TacticsMove {
    /// `unit` to move to `to`.
    pub fn new(unit: Entity, to: Pos) -> Self {
        Self { unit, to }
    }
}

/// Ends the turn of the side whose turn it is, when a person plays it ([`Player::Person`]):
/// the next side's turn begins. Ignored during an AI's turn and once a side has won.
#[derive(Message, Reflect, Clone, Copy, Debug, Default)]
#[reflect(Debug, Default, Clone)]
pub struct EndTurn;

/// A unit strikes a unit of a side hostile to its own ([`Sides::hostile`]) from where it
/// stands: [`Struck`] comes out, or an [`OrderRefused`] (its `goal` the target's tile). It
/// ends the attacker's action.
#[derive(Message, Reflect, Clone, Copy, Debug)]
#[reflect(Debug, Clone)]
#[non_exhaustive]
pub struct Strike {
    /// The attacker.
    pub attacker: Entity,
    /// The unit it strikes.
    pub target: Entity,
}

impl Strike {
    /// `attacker` to strike `target`.
    pub fn new(attacker: Entity, target: Entity) -> Self {
        Self { attacker, target }
    }
}

/// A unit ends its action where it stands without striking: [`Waited`] comes out, or an
/// [`OrderRefused`] (its `goal` the unit's tile).
#[derive(Message, Reflect, Clone, Copy, Debug)]
#[reflect(Debug, Clone)]
#[non_exhaustive]
pub struct Wait {
    /// The unit.
    pub unit: Entity,
}

impl Wait {
    /// `unit` to wait.
    pub fn new(unit: Entity) -> Self {
        Self { unit }
    }
}

/// Takes back a unit's move of this turn, before it acts: it stands again where it stood,
/// its movement points whole. [`MoveCancelled`] comes out, or an [`OrderRefused`].
#[derive(Message, Reflect, Clone, Copy, Debug)]
#[reflect(Debug, Clone)]
#[non_exhaustive]
pub struct CancelMove {
    /// The unit.
    pub unit: Entity,
}

impl CancelMove {
    /// `unit`'s move to be taken back.
    pub fn new(unit: Entity) -> Self {
        Self { unit }
    }
}

/// A tactics move was made (the player's [`TacticsMove`] or the enemy's turn): the unit
/// stands on `path`'s last tile already; `path` is the way it went, from the tile it left.
#[derive(Message, Reflect, Clone, Debug)]
#[reflect(Debug, Clone)]
#[non_exhaustive]
pub struct TacticsMoved {
    /// The unit.
    pub unit: Entity,
    /// Its way, `cells[0]` the tile it left.
    pub path: Path,
}

/// The game is won ([`TacticsBoard::winner`]): no units left are hostile to each other. Written
/// once, by the strike that ended the game.
#[derive(Message, Reflect, Clone, Copy, Debug, PartialEq, Eq)]
#[reflect(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct Won {
    /// The side left standing; when allied sides are (sides not hostile to each other), the
    /// first of them in turn order that is hostile to anyone ([`TacticsBoard::winner`]).
    pub team: Team,
}

/// Whether the enemy's turn waits before its next step: a host that shows each move or strike
/// (a walk drawn step by step, a strike's flash) sets it while a show lasts, and clears it
/// when the show ends or the player skips it. Off by default: a host that draws nothing (a
/// headless one) leaves it off, and an enemy turn resolves in two frames a unit.
#[derive(Resource, Reflect, Clone, Copy, Debug, Default, PartialEq, Eq)]
#[reflect(Resource, Default, Debug, Clone, PartialEq)]
pub struct HoldEnemyTurn(pub bool);

/// A strike was resolved: a message and, on the unit struck (`target`), an entity event
/// (`commands.entity(unit).observe(|struck: On<Struck>| ...)`). Its observers run before the
/// strike is applied to the world ([`apply_strike`]), so they run for a unit the strike
/// removes too, while it still exists.
#[derive(Message, EntityEvent, Reflect, Clone, Debug, PartialEq, Eq)]
#[reflect(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct Struck {
    /// The attacker.
    pub attacker: Entity,
    /// The unit struck.
    #[event_target]
    pub target: Entity,
    /// The damage the strike dealt.
    pub damage: u32,
    /// The damage of the target's counter-attack; `None` when there was none.
    pub counter: Option<u32>,
    /// The attacker's hit points after the strike.
    pub attacker_hp: u32,
    /// The target's hit points after the strike.
    pub target_hp: u32,
    /// The units removed at 0 hit points: the target, the attacker, or neither. Each is
    /// [`Defeated`] too.
    pub removed: Vec<Entity>,
}

/// A unit's hit points fell to 0 in a strike: a message and an entity event on the unit
/// (`commands.entity(unit).observe(|defeated: On<Defeated>| ...)`), after its [`Struck`].
/// The unit keeps its components, [`Health`]`(0)` among them, and tactics no longer counts it
/// (not on the [`TacticsBoard`], not a side's unit for [`TacticsBoard::winner`]); what becomes
/// of its entity is the game's choice: despawn it in an observer, or leave a body that
/// still holds its [`Tile`].
#[derive(Message, EntityEvent, Reflect, Clone, Copy, Debug, PartialEq, Eq)]
#[reflect(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct Defeated {
    /// The unit.
    #[event_target]
    pub unit: Entity,
}

/// A unit waited: its action is over.
#[derive(Message, Reflect, Clone, Copy, Debug, PartialEq, Eq)]
#[reflect(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct Waited {
    /// The unit.
    pub unit: Entity,
}

/// A unit's move was taken back.
#[derive(Message, Reflect, Clone, Copy, Debug, PartialEq, Eq)]
#[reflect(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct MoveCancelled {
    /// The unit.
    pub unit: Entity,
    /// The tile it stands on again.
    #[reflect(remote = PosReflect)]
    pub to: Pos,
}

/// The last turn an AI played ([`Player`]): its plan, its moves `(unit, from, to)`, the paths
/// still to take and the units still to act. The AI's units act one after another, in the
/// plan's order, as a player watching expects: each moves along its path, if it has one, then
/// strikes the unit its order names, if any (each a frame of its own, after the host's show
/// of the last, [`HoldEnemyTurn`]); while they do, the turn is their side's. A strike that
/// ends the game ends the turn there: the units still to act do not, and the turn's number
/// stays.
#[derive(Resource, Reflect, Clone, Debug, Default)]
#[reflect(opaque, Resource, Default, Debug, Clone)]
pub struct EnemyTurn {
    /// The plan: each unit's order, in the order they are played.
    pub orders: Vec<Order>,
    /// Each move: the unit, where it stood, where it goes.
    pub moves: Vec<(Entity, Pos, Pos)>,
    /// The paths not yet taken, in order.
    pub waiting: std::collections::VecDeque<(Entity, Path)>,
    /// Every unit of the side still to act, in the plan's order.
    pub queue: std::collections::VecDeque<Entity>,
    /// The unit acting now: it strikes once it stands still.
    pub acting: Option<Entity>,
    /// The turn this plan is for.
    planned: Option<Turn>,
}

/// Tactics turns, strikes and hit points on top of [`TilewalkPlugin`](crate::TilewalkPlugin): add it after that
/// plugin (`app.add_plugins((TilewalkPlugin::default(), TilewalkTacticsPlugin))`); its
/// systems run in [`TilewalkSystems::Turns`] of the same schedule, once [`TacticsRules`] are
/// inserted. A unit whose hit points fall to 0 is [`Defeated`], not despawned: the game
/// decides what becomes of it.
///
/// # Panics
///
/// Its `build` panics when [`TilewalkPlugin`](crate::TilewalkPlugin) was not added before it.
#[derive(Clone, Copy, Debug, Default)]
pub struct TilewalkTacticsPlugin;

impl Plugin for TilewalkTacticsPlugin {
    fn build(&self, app: &mut App) {
        let Some(&TilewalkSchedule(schedule)) = app.world().get_resource::<TilewalkSchedule>()
        else {
            panic!("add TilewalkPlugin before TilewalkTacticsPlugin: tactics run in its schedule");
        };
        plugin(app, schedule);
    }
}

fn plugin(app: &mut App, schedule: InternedScheduleLabel) {
    app.register_type::<TacticsRules>()
        .register_type::<PerClass<f64>>()
        .register_type::<PerClass<(u32, u32)>>()
        .register_type::<PerClass<u32>>()
        .register_type::<ZoneOfControl>()
        .register_type::<TerrainDefence>()
        .register_type::<AttackRange>()
        .register_type::<Turn>()
        .register_type::<EnemyTurn>()
        .register_type::<Health>()
        .register_type::<Moved>()
        .register_type::<Acted>()
        .register_type::<TacticsMove>()
        .register_type::<EndTurn>()
        .register_type::<Strike>()
        .register_type::<Wait>()
        .register_type::<CancelMove>()
        .register_type::<Struck>()
        .register_type::<Defeated>()
        .register_type::<Waited>()
        .register_type::<MoveCancelled>()
        .register_type::<TacticsMoved>()
        .register_type::<Won>()
        .register_type::<HoldEnemyTurn>()
        .register_type::<Mind>()
        .register_type::<Player>()
        .register_type::<Personality>()
        .register_type::<Intent>()
        .add_message::<TacticsMove>()
        .add_message::<EndTurn>()
        .add_message::<Strike>()
        .add_message::<Wait>()
        .add_message::<CancelMove>()
        .add_message::<Struck>()
        .add_message::<Defeated>()
        .add_message::<Waited>()
        .add_message::<MoveCancelled>()
        .add_message::<TacticsMoved>()
        .add_message::<Won>()
        .init_resource::<Turn>()
        .init_resource::<EnemyTurn>()
        .init_resource::<HoldEnemyTurn>()
        .add_systems(
            schedule,
            (apply_moves, apply_actions, end_turn, walk_enemy_moves)
                .chain()
                .in_set(TilewalkSystems::Turns)
                .run_if(
                    resource_exists::<Navigation>
                        .and_then(resource_exists::<TacticsRules>)
                        .and_then(rules_fit),
                ),
        );
}

/// Whether the rules fit the navigation's classes, checked again whenever either changes;
/// a mistake is logged once, when it is found.
fn rules_fit(
    nav: Res<Navigation>,
    rules: Res<TacticsRules>,
    mut checked: Local<Option<Result<(), RulesError>>>,
) -> bool {
    if checked.is_none() || nav.is_changed() || rules.is_changed() {
        let check = rules.check(nav.classes());
        if let Err(mistake) = &check {
            error!("tactics rules: {mistake}; tactics orders wait until the rules are fixed");
        }
        *checked = Some(check);
    }
    checked.as_ref().is_some_and(Result::is_ok)
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
    /// Whether it has ended its action this turn (struck or waited).
    pub acted: bool,
    /// Its hit points left.
    pub hp: u32,
    /// Where it comes in the board's order: its [`Precedence`], then its entity's index.
    pub order: (u32, u32),
    /// How it plays under the [`Mind::Planner`].
    pub personality: Personality,
}

/// The state of the board: the navigation, the rules and every unit.
pub struct TacticsBoard<'a> {
    /// The navigation.
    pub nav: &'a Navigation,
    /// The rules.
    pub rules: &'a TacticsRules,
    /// The sides: who is hostile to whom, who makes way for whom.
    pub sides: &'a Sides,
    /// Every unit, in [`Precedence`] order.
    pub pieces: Vec<Piece>,
    /// The defence of each tile.
    pub defence: &'a TerrainDefence,
}

/// What a strike would do, as a forecast shows it before the player commits.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Forecast {
    /// The damage the strike deals: the attacker's damage less the defence of the
    /// defender's tile, never below 0.
    pub damage: u32,
    /// The damage of the defender's counter-attack, worked out the same way at the
    /// attacker's tile; `None` when there is none: the strike removes the defender, or the
    /// attacker stands out of the defender's reach.
    pub counter: Option<u32>,
}

/// What a [`TacticsBoard`] reads of each unit.
#[derive(QueryData)]
pub struct PieceData {
    entity: Entity,
    team: &'static Team,
    class: &'static MovementClass,
    tile: &'static Tile,
    attack: Option<&'static AttackRange>,
    precedence: Option<&'static Precedence>,
    moved: Has<Moved>,
    acted: Has<Acted>,
    health: Option<&'static Health>,
    personality: Option<&'static Personality>,
    name: Option<&'static Name>,
    on_map: Has<OnMap>,
}

/// The query a [`TacticsBoard`] is built from.
pub type PieceQuery<'w, 's> = Query<'w, 's, PieceData, With<Unit>>;

impl<'a> TacticsBoard<'a> {
    /// The board of `units` of `sides` on `nav` under `rules`.
    /// Units at 0 hit points ([`Defeated`]) are not on it, nor units on a map entity
    /// ([`OnMap`]): the board is the default map's.
    pub fn new(
        nav: &'a Navigation,
        rules: &'a TacticsRules,
        sides: &'a Sides,
        units: &PieceQuery,
    ) -> Self {
        let mut pieces: Vec<Piece> = units
            .iter()
            .filter(|u| !u.on_map)
            .map(|u| Piece {
                entity: u.entity,
                team: *u.team,
                class: *u.class,
                tile: u.tile.0,
                attack: u
                    .attack
                    .map_or_else(|| rules.attack_range(nav.name(*u.class)), |a| (a.0, a.1)),
                moved: u.moved,
                acted: u.acted,
                hp: u
                    .health
                    .map_or_else(|| rules.hit_points(nav.name(*u.class)), |h| h.0),
                order: {
                    let (precedence, index, _) = precedence(u.entity, u.precedence);
                    (precedence, index)
                },
                personality: u.personality.copied().unwrap_or_else(|| {
                    let named = u.name.and_then(|n| rules.personality.get(n.as_str()));
                    named
                        .or_else(|| {
                            let side = sides.get(*u.team)?;
                            rules.personality.get(side.name.as_str())
                        })
                        .copied()
                        .unwrap_or_default()
                }),
            })
            .filter(|p| p.hp > 0)
            .collect();
        pieces.sort_by_key(|p| p.order);
        Self {
            nav,
            rules,
            sides,
            pieces,
            defence: &NO_DEFENCE,
        }
    }

    /// Whether units of `a` and `b` are enemies ([`Sides::hostile`]).
    pub fn hostile(&self, a: Team, b: Team) -> bool {
        self.sides.hostile(a, b)
    }

    /// The board with the defence of each tile (none: every tile's is 0).
    pub fn with_defence(mut self, defence: Option<&'a TerrainDefence>) -> Self {
        self.defence = defence.unwrap_or(&NO_DEFENCE);
        self
    }

    /// The piece of a unit.
    pub fn piece(&self, entity: Entity) -> Option<&Piece> {
        self.pieces.iter().find(|p| p.entity == entity)
    }

    /// The movement range of a piece under the rules: its reachable tiles, with where it may
    /// stop. A piece that has moved or acted this turn has none (its attack tiles are then
    /// those of its own tile), so the range shown, the preview and the move agree.
    pub fn range(&self, context: &mut SearchContext, piece: &Piece) -> Range {
        if piece.moved || piece.acted {
            return Range::default();
        }
        // An enemy's zone of control: the tiles adjacent to it on the board (4, 8 or 6).
        let board = self.nav.board();
        let zone = |pos: Pos| {
            self.pieces
                .iter()
                .any(|p| self.hostile(p.team, piece.team) && board.distance(p.tile, pos) == 1)
        };
        let class = self.nav.name(piece.class);
        let obeys_zone = !self.rules.ignore_zone_of_control.iter().any(|c| c == class);
        let passage = |pos: Pos| match self
            .pieces
            .iter()
            .find(|p| p.tile == pos && p.entity != piece.entity)
        {
            // Enemies block; so do units of a side that does not make way for it (a neutral
            // side's, say); its own side's and those that make way it passes through.
            Some(other) if !self.sides.makes_way_for(other.team, piece.team) => Passage::Blocked,
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

    /// Every tile `team`'s units could attack next turn (at anyone: the host picks out its
    /// enemies).
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
        if piece.acted {
            return Err(Refusal::AlreadyActed);
        }
        match (range.get(to), range.path_to(to)) {
            (Some(reached), Some(planned)) if reached.can_stop => {
                Ok(Path::through(planned.cells, planned.cost))
            }
            (Some(_), _) => Err(Refusal::Occupied { to }),
            (None, _) => Err(Refusal::OutOfRange { to }),
        }
    }

    /// Whether `target` stands within `attacker`'s attack range of `attacker`'s tile.
    pub fn in_reach(&self, attacker: &Piece, target: &Piece) -> bool {
        let (min, max) = attacker.attack;
        (min..=max).contains(&self.nav.board().distance(attacker.tile, target.tile))
    }

    /// What `attacker` striking `defender` from where they stand would do: the damage, then
    /// the counter-attack if the defender is left standing and the attacker is within its
    /// reach. Each is the striker's [`TacticsRules::damage`] less the
    /// [`TerrainDefence`] of the struck unit's tile, never below 0. Deterministic: no dice.
    pub fn forecast(&self, attacker: &Piece, defender: &Piece) -> Forecast {
        let hit = |from: &Piece, at: &Piece| {
            self.rules
                .damage(self.nav.name(from.class))
                .saturating_sub(self.defence.at(at.tile))
        };
        let damage = hit(attacker, defender);
        let counter = (damage < defender.hp && self.in_reach(defender, attacker))
            .then(|| hit(defender, attacker));
        Forecast { damage, counter }
    }

    /// Why `piece` may not act (strike, wait or cancel its move) now, if it may not.
    fn check_action(piece: &Piece, turn: Turn) -> Result<(), Refusal> {
        if piece.team != turn.team {
            return Err(Refusal::NotYourTurn { turn: turn.team });
        }
        if piece.acted {
            return Err(Refusal::AlreadyActed);
        }
        Ok(())
    }

    /// Why `attacker` may not strike `target` now, if it may not; else the forecast.
    pub fn check_strike(
        &self,
        attacker: &Piece,
        target: &Piece,
        turn: Turn,
    ) -> Result<Forecast, Refusal> {
        Self::check_action(attacker, turn)?;
        if !self.hostile(attacker.team, target.team) {
            return Err(Refusal::NotAnEnemy {
                target: target.entity,
            });
        }
        if !self.in_reach(attacker, target) {
            return Err(Refusal::OutOfReach {
                target: target.entity,
            });
        }
        Ok(self.forecast(attacker, target))
    }

    /// Why `piece` may not wait now, if it may not.
    pub fn check_wait(&self, piece: &Piece, turn: Turn) -> Result<(), Refusal> {
        Self::check_action(piece, turn)
    }

    /// Why `piece`'s move may not be cancelled now, if it may not; else the tile it goes
    /// back to, `from` (where it stood when the turn began).
    pub fn check_cancel(
        &self,
        piece: &Piece,
        from: Option<Pos>,
        turn: Turn,
    ) -> Result<Pos, Refusal> {
        Self::check_action(piece, turn)?;
        let Some(from) = from.filter(|_| piece.moved) else {
            return Err(Refusal::NotMoved);
        };
        if self
            .pieces
            .iter()
            .any(|p| p.tile == from && p.entity != piece.entity)
        {
            return Err(Refusal::Occupied { to: from });
        }
        Ok(from)
    }

    /// Resolves a strike on the board (check it first, [`TacticsBoard::check_strike`]): the
    /// forecast's damage and counter-attack, the attacker's action ended, the units at 0
    /// hit points taken off the board. [`apply_strike`] does the same to the world.
    pub fn resolve_strike(
        &mut self,
        attacker: Entity,
        target: Entity,
        forecast: Forecast,
    ) -> Struck {
        let hp = |entity| self.piece(entity).map_or(0, |p| p.hp);
        let target_hp = hp(target).saturating_sub(forecast.damage);
        let attacker_hp = hp(attacker).saturating_sub(forecast.counter.unwrap_or(0));
        for piece in &mut self.pieces {
            if piece.entity == attacker {
                piece.hp = attacker_hp;
                piece.acted = true;
            } else if piece.entity == target {
                piece.hp = target_hp;
            }
        }
        let removed = [(target, target_hp), (attacker, attacker_hp)]
            .into_iter()
            .filter(|&(_, hp)| hp == 0)
            .map(|(entity, _)| entity)
            .collect();
        self.pieces.retain(|p| p.hp > 0);
        Struck {
            attacker,
            target,
            damage: forecast.damage,
            counter: forecast.counter,
            attacker_hp,
            target_hp,
            removed,
        }
    }

    /// The unit `attacker` strikes in the greedy AI's turn: of the hostile units within its
    /// reach from where it stands, the one with the fewest hit points left, then the first
    /// in [`Precedence`] order. `None` when none is in reach.
    pub fn strike_target(&self, attacker: &Piece) -> Option<&Piece> {
        self.pieces
            .iter()
            .filter(|p| self.hostile(p.team, attacker.team) && self.in_reach(attacker, p))
            .min_by_key(|p| (p.hp, p.order))
    }

    /// The side that has won: one hostile camp is left. The game is won once no two units
    /// left are hostile to each other ([`Sides::hostile`]) and some side left fights (is
    /// hostile to anyone: a neutral side left alone wins nothing); the winner is the first
    /// such side in turn order (its allies left, sides not hostile to it, won with it).
    /// `None` while enemies face each other, or when only neutral sides (or no units) are
    /// left.
    pub fn winner(&self) -> Option<Team> {
        let left: BTreeSet<Team> = self.pieces.iter().map(|p| p.team).collect();
        let at_war = left
            .iter()
            .any(|&a| left.iter().any(|&b| self.hostile(a, b)));
        if at_war {
            return None;
        }
        left.into_iter().find(|&team| self.sides.fights(team))
    }

    /// The side whose turn follows `team`'s: the next in [`Sides`] order (by [`Team`] id)
    /// with units on the board, and whether a new round begins (it comes before `team`, or
    /// is `team` itself). `None` when no unit is on the board.
    pub fn next_side(&self, team: Team) -> Option<(Team, bool)> {
        let present: BTreeSet<Team> = self.pieces.iter().map(|p| p.team).collect();
        match present.range(Team(team.0.saturating_add(1))..).next() {
            Some(&next) if next > team => Some((next, false)),
            _ => present.first().map(|&first| (first, true)),
        }
    }
}

fn apply_moves(
    mut commands: Commands,
    mut moves: MessageReader<TacticsMove>,
    (mut refused, mut made): (MessageWriter<OrderRefused>, MessageWriter<TacticsMoved>),
    inputs: BoardInputs,
    turn: Res<Turn>,
    walking: Query<(), Walking>,
    mut context: Local<SearchContext>,
) {
    let mut board = inputs.board();
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
                // In turn time: on the tile at once, whatever the class's speed.
                commands.entity(piece.entity).insert((
                    Tile(order.to),
                    Motion::default(),
                    Moved { from: piece.tile },
                ));
                made.write(TacticsMoved {
                    unit: piece.entity,
                    path,
                });
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

/// A person's [`EndTurn`]: when a person plays the side whose turn it is and nobody has won,
/// the next side's turn begins.
fn end_turn(
    mut commands: Commands,
    mut ends: MessageReader<EndTurn>,
    inputs: BoardInputs,
    mut turn: ResMut<Turn>,
    mut ai_turn: ResMut<EnemyTurn>,
    mut context: Local<SearchContext>,
) {
    if ends.read().count() == 0 {
        return;
    }
    let mut board = inputs.board();
    // A won game has no more turns; an AI ends its own.
    if inputs.player(turn.team) != Player::Person || board.winner().is_some() {
        return;
    }
    pass_turn(
        &mut commands,
        &inputs,
        &mut board,
        &mut turn,
        &mut ai_turn,
        &mut context,
    );
}

/// The next side's turn begins ([`TacticsBoard::next_side`]): every unit's move and action
/// are its own again, and an AI side's turn is planned at once.
fn pass_turn(
    commands: &mut Commands,
    inputs: &BoardInputs,
    board: &mut TacticsBoard,
    turn: &mut Turn,
    ai_turn: &mut EnemyTurn,
    context: &mut SearchContext,
) {
    for entity in &inputs.marked {
        commands.entity(entity).remove::<(Moved, Acted)>();
    }
    let Some((next, round)) = board.next_side(turn.team) else {
        return;
    };
    turn.team = next;
    turn.number += u32::from(round);
    if let Some(mind) = inputs.player(next).mind(&inputs.rules) {
        plan_turn(board, *turn, mind, ai_turn, context);
    }
}

/// Plans the turn `turn` of an AI side with `mind`: its orders, played one unit at a time
/// ([`EnemyTurn`]).
fn plan_turn(
    board: &mut TacticsBoard,
    turn: Turn,
    mind: Mind,
    ai_turn: &mut EnemyTurn,
    context: &mut SearchContext,
) {
    let starts: Vec<(Entity, Pos)> = board.pieces.iter().map(|p| (p.entity, p.tile)).collect();
    let orders = board.play_side(context, turn.team, mind);
    ai_turn.moves = orders
        .iter()
        .filter(|o| o.path.is_some())
        .filter_map(|o| {
            let from = starts.iter().find(|s| s.0 == o.unit)?.1;
            Some((o.unit, from, o.path.as_ref()?.goal()))
        })
        .collect();
    ai_turn.waiting = orders
        .iter()
        .filter_map(|o| Some((o.unit, o.path.clone()?)))
        .collect();
    ai_turn.queue = orders.iter().map(|o| o.unit).collect();
    ai_turn.orders = orders;
    ai_turn.acting = None;
    ai_turn.planned = Some(turn);
}

/// Does to the world what a resolved strike did on the board: hit points kept in
/// [`Health`], the attacker marked [`Acted`], each unit at 0 hit points [`Defeated`] (a
/// message and an entity event on it; the entity stays).
pub fn apply_strike(commands: &mut Commands, struck: &Struck) {
    for (entity, hp) in [
        (struck.target, struck.target_hp),
        (struck.attacker, struck.attacker_hp),
    ] {
        commands.entity(entity).insert(Health(hp));
        if hp == 0 {
            commands.trigger(Defeated { unit: entity });
            commands.write_message(Defeated { unit: entity });
        }
    }
    if struck.attacker_hp > 0 {
        commands.entity(struck.attacker).insert(Acted);
    }
}

/// Whether every unit stands still, for the actions that wait for walks to end.
struct Stillness(bool);

impl Stillness {
    fn check<T>(&self, checked: Result<T, Refusal>) -> Result<T, Refusal> {
        checked.and_then(|ok| match self.0 {
            true => Ok(ok),
            false => Err(Refusal::StillMoving),
        })
    }
}

/// The units walking on the default map: the walks tactics actions wait for.
type Walking = (With<Path>, Without<OnMap>);

/// The units that moved or acted this turn.
type Marked = Or<(With<Moved>, With<Acted>)>;

/// What a [`TacticsBoard`] with the tiles' defence is built from.
#[derive(SystemParam)]
struct BoardInputs<'w, 's> {
    nav: Res<'w, Navigation>,
    rules: Res<'w, TacticsRules>,
    sides: Res<'w, Sides>,
    defence: Option<Res<'w, TerrainDefence>>,
    units: PieceQuery<'w, 's>,
    /// The units that moved or acted this turn.
    marked: Query<'w, 's, Entity, Marked>,
}

impl BoardInputs<'_, '_> {
    fn board(&self) -> TacticsBoard<'_> {
        TacticsBoard::new(&self.nav, &self.rules, &self.sides, &self.units)
            .with_defence(self.defence.as_deref())
    }

    /// Who plays `team` (a person for a team without a side).
    fn player(&self, team: Team) -> Player {
        self.sides.get(team).map_or(Player::Person, |s| s.player)
    }
}

/// The actions after a move: strikes, waits and cancelled moves, checked against the board.
fn apply_actions(
    mut commands: Commands,
    (mut strikes, mut waits, mut cancels): (
        MessageReader<Strike>,
        MessageReader<Wait>,
        MessageReader<CancelMove>,
    ),
    (mut struck, mut waited, mut cancelled, mut refused): (
        MessageWriter<Struck>,
        MessageWriter<Waited>,
        MessageWriter<MoveCancelled>,
        MessageWriter<OrderRefused>,
    ),
    mut won: MessageWriter<Won>,
    (inputs, turn): (BoardInputs, Res<Turn>),
    moved: Query<&Moved>,
    walking: Query<(), Walking>,
) {
    let mut board = inputs.board();
    // Strikes and cancels wait for every walk to end, as moves do.
    let still = Stillness(walking.is_empty());
    for order in strikes.read() {
        let (Some(attacker), Some(target)) = (
            board.piece(order.attacker).cloned(),
            board.piece(order.target).cloned(),
        ) else {
            continue;
        };
        match still.check(board.check_strike(&attacker, &target, *turn)) {
            Ok(forecast) => {
                let outcome = board.resolve_strike(attacker.entity, target.entity, forecast);
                commands.trigger(outcome.clone());
                apply_strike(&mut commands, &outcome);
                let ended = !outcome.removed.is_empty();
                struck.write(outcome);
                if let Some(team) = board.winner().filter(|_| ended) {
                    won.write(Won { team });
                }
            }
            Err(reason) => {
                refused.write(OrderRefused {
                    unit: attacker.entity,
                    goal: target.tile,
                    reason,
                });
            }
        }
    }
    for order in waits.read() {
        let Some(piece) = board.piece(order.unit).cloned() else {
            continue;
        };
        match board.check_wait(&piece, *turn) {
            Ok(()) => {
                commands.entity(piece.entity).insert(Acted);
                if let Some(p) = board.pieces.iter_mut().find(|p| p.entity == piece.entity) {
                    p.acted = true;
                }
                waited.write(Waited { unit: piece.entity });
            }
            Err(reason) => {
                refused.write(OrderRefused {
                    unit: piece.entity,
                    goal: piece.tile,
                    reason,
                });
            }
        }
    }
    for order in cancels.read() {
        let Some(piece) = board.piece(order.unit).cloned() else {
            continue;
        };
        let from = moved.get(piece.entity).ok().map(|m| m.from);
        match still.check(board.check_cancel(&piece, from, *turn)) {
            Ok(to) => {
                commands
                    .entity(piece.entity)
                    .insert((Tile(to), Motion::default()))
                    .remove::<Moved>();
                if let Some(p) = board.pieces.iter_mut().find(|p| p.entity == piece.entity) {
                    p.tile = to;
                    p.moved = false;
                }
                cancelled.write(MoveCancelled {
                    unit: piece.entity,
                    to,
                });
            }
            Err(reason) => {
                refused.write(OrderRefused {
                    unit: piece.entity,
                    goal: piece.tile,
                    reason,
                });
            }
        }
    }
}

/// An AI side's turn on the board ([`Player`]): planned when it begins, then its units act
/// one after another, in the plan's order; each moves along its path, if it has one, then (the
/// next frame) strikes the unit its order names, if any. Each step waits for the host's show
/// of the last ([`HoldEnemyTurn`]). When the last unit is done, the next side's turn begins;
/// when a strike ends the game, the turn stops there and its number stays.
fn walk_enemy_moves(
    mut commands: Commands,
    inputs: BoardInputs,
    (mut turn, mut enemy_turn): (ResMut<Turn>, ResMut<EnemyTurn>),
    (walking, hold): (Query<(), Walking>, Res<HoldEnemyTurn>),
    (mut struck, mut made, mut won): (
        MessageWriter<Struck>,
        MessageWriter<TacticsMoved>,
        MessageWriter<Won>,
    ),
    mut context: Local<SearchContext>,
) {
    let Some(mind) = inputs.player(turn.team).mind(&inputs.rules) else {
        return;
    };
    if !walking.is_empty() || hold.0 {
        return;
    }
    // An AI side's turn that began without a person's end of turn (the first turn, or after
    // another AI's): planned now.
    if enemy_turn.planned != Some(*turn) {
        let mut board = inputs.board();
        if board.winner().is_none() {
            plan_turn(&mut board, *turn, mind, &mut enemy_turn, &mut context);
        }
        return;
    }
    if let Some(unit) = enemy_turn.acting.take() {
        let mut board = inputs.board();
        let planned = enemy_turn.orders.iter().find(|o| o.unit == unit);
        let target = planned
            .and_then(|o| o.strike)
            .and_then(|target| Some((board.piece(unit)?.clone(), board.piece(target)?.clone())));
        if let Some((attacker, target)) = target
            && let Ok(forecast) = board.check_strike(&attacker, &target, *turn)
        {
            let outcome = board.resolve_strike(attacker.entity, target.entity, forecast);
            commands.trigger(outcome.clone());
            apply_strike(&mut commands, &outcome);
            let ended = !outcome.removed.is_empty();
            struck.write(outcome);
            if let Some(team) = board.winner().filter(|_| ended) {
                won.write(Won { team });
                // The game is over: nobody else acts, and the turn stays this one.
                enemy_turn.queue.clear();
                enemy_turn.waiting.clear();
            }
        }
        return;
    }
    if inputs.board().winner().is_some() {
        return;
    }
    match enemy_turn.queue.pop_front() {
        Some(unit) => {
            if enemy_turn.waiting.front().is_some_and(|(e, _)| *e == unit)
                && let Some((_, path)) = enemy_turn.waiting.pop_front()
            {
                // In turn time, as the player's moves.
                commands
                    .entity(unit)
                    .insert((Tile(path.goal()), Motion::default()));
                made.write(TacticsMoved { unit, path });
            }
            enemy_turn.acting = Some(unit);
        }
        None => {
            let mut board = inputs.board();
            pass_turn(
                &mut commands,
                &inputs,
                &mut board,
                &mut turn,
                &mut enemy_turn,
                &mut context,
            );
        }
    }
}

/// Runs `f` on the board of a world (for commands and tests; systems build their own).
/// Fails when the world has no navigation, no tactics rules or no [`Sides`] (which
/// `TilewalkPlugin` adds), or the rules do not fit the navigation's classes
/// ([`TacticsRules::check`]).
pub fn with_board<R>(
    world: &mut World,
    f: impl FnOnce(&mut TacticsBoard, &mut SearchContext) -> R,
) -> Result<R, String> {
    let mut state: SystemState<BoardInputs> = SystemState::new(world);
    let inputs = state.get(world).map_err(|e| e.to_string())?;
    inputs
        .rules
        .check(inputs.nav.classes())
        .map_err(|e| format!("tactics rules: {e}"))?;
    let mut board = inputs.board();
    Ok(f(&mut board, &mut SearchContext::new()))
}
