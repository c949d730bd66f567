//! What the pathing systems share: the orders and what comes of them (messages, refusals),
//! the components of a unit's way, what planning reads of a unit, and the records of the
//! searches. The systems that plan (`pathing`) and serve (`requests`) both build on these.

use std::collections::VecDeque;

use bevy::ecs::query::QueryData;
use bevy::prelude::*;
use tilewalk_path::{NoPath, Pos};

use crate::maps::{MapKey, OnMap, map_of};
use crate::navigation::Navigation;
use crate::units::{MovementClass, Precedence, Team, Tile, Walk};

/// Orders units to a tile. Each unit gets its own free tile: the free tiles nearest the click
/// by travel cost (what walking from the tile to the click costs its class), planned for the
/// whole group at once (a unit alone gets its own A*, the clicked tile when it is free). With
/// `append`, the trip is added after each unit's current path, to the free tile nearest the
/// click in a straight line. The units wait ([`Pending`]) until their paths are served.
///
/// Build one with [`MoveOrder::new`] (and [`MoveOrder::with_append`]), or order one unit
/// with [`MoveCommands::move_to`](crate::MoveCommands::move_to). An order written before the
/// [`Navigation`] exists waits for it, and is served once it is inserted. An entity of the
/// order that is no unit (it lacks [`Unit`](crate::Unit) or [`Tile`]) is refused
/// ([`Refusal::MissingComponent`]) and named in a warning, once per entity; an entity that
/// no longer exists (a unit that died between the click and the order) is left out.
#[derive(Message, Reflect, Clone, Debug, PartialEq)]
#[reflect(opaque, Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct MoveOrder {
    /// The units ordered; the order they are listed in does not matter.
    pub units: Vec<Entity>,
    /// The tile clicked.
    pub goal: Pos,
    /// Add the trip after each unit's current path instead of replacing it.
    pub append: bool,
}

impl MoveOrder {
    /// Orders `units` to `goal`, replacing their paths.
    pub fn new(units: impl IntoIterator<Item = Entity>, goal: Pos) -> Self {
        Self {
            units: units.into_iter().collect(),
            goal,
            append: false,
        }
    }

    /// With `append`, the trip comes after each unit's current path instead of replacing it
    /// (a waypoint).
    pub fn with_append(mut self, append: bool) -> Self {
        self.append = append;
        self
    }
}

/// Drops the units' paths and the requests they wait for; a step under way is finished.
/// Build one with [`StopOrder::new`]. It also takes the units out of the orders still
/// waiting for the [`Navigation`].
#[derive(Message, Reflect, Clone, Debug, PartialEq)]
#[reflect(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct StopOrder {
    /// The units stopped.
    pub units: Vec<Entity>,
}

impl StopOrder {
    /// Stops `units`.
    pub fn new(units: impl IntoIterator<Item = Entity>) -> Self {
        Self {
            units: units.into_iter().collect(),
        }
    }
}

/// An order, or a path, that could not be carried out, and why. It is a message and, on the
/// unit, an entity event: `commands.entity(unit).observe(|refused: On<OrderRefused>| ...)`
/// runs for this unit's refusals, an observer added with `App::add_observer` for every
/// unit's. The observers run in the frame the message is written, after
/// [`TilewalkSystems::Move`](crate::TilewalkSystems::Move).
#[derive(Message, EntityEvent, Reflect, Clone, Debug, PartialEq)]
#[reflect(opaque, Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct OrderRefused {
    /// The unit refused.
    #[event_target]
    pub unit: Entity,
    /// The tile it was ordered to.
    pub goal: Pos,
    /// Why.
    pub reason: Refusal,
}

impl OrderRefused {
    /// `unit`'s order to `goal` refused for `reason`.
    pub fn new(unit: Entity, goal: Pos, reason: Refusal) -> Self {
        Self { unit, goal, reason }
    }
}

/// Why an order (real-time or tactics) was refused or given up. Its [`Refusal::message`]
/// names the unit, the classes and the terrain as the host labels them ([`Labels`]); its
/// `Display` is the same sentence without the host's names: the refused unit's name and
/// colon left out (`(3,4) is outside the map`), or "the unit" where the sentence names it
/// (`the unit has already moved this turn`), classes by index and other units by entity. It
/// implements `std::error::Error`.
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub enum Refusal {
    /// The ordered entity is no unit the plugin can move: it lacks this component
    /// ([`Unit`](crate::Unit), or [`Tile`], or a component a unit requires that was removed).
    MissingComponent {
        /// The component's name.
        component: &'static str,
    },
    /// The unit is [`OnMap`](crate::OnMap) an entity that has no
    /// [`MapNavigation`](crate::MapNavigation).
    NoMapNavigation {
        /// The entity its `OnMap` names.
        map: Entity,
    },
    /// The goal is off the map.
    OutsideMap {
        /// The goal.
        goal: Pos,
    },
    /// The goal is impassable for the unit's class.
    Impassable {
        /// The goal.
        goal: Pos,
        /// The unit's class.
        class: MovementClass,
    },
    /// The unit stands on terrain impassable for its class with no way off it.
    StandsOnImpassable {
        /// The unit's class.
        class: MovementClass,
    },
    /// The goal is in a region the unit cannot reach.
    Unreachable {
        /// The goal.
        goal: Pos,
        /// Why no path exists.
        why: NoPath,
    },
    /// Every tile near the goal that the unit can reach is taken.
    NoFreeTile,
    /// The search found no path.
    NoPath {
        /// Why.
        why: NoPath,
    },
    /// A re-plan found no way on to the goal.
    NoWayOn {
        /// The goal.
        goal: Pos,
        /// Why.
        why: NoPath,
    },
    /// The unit gave up: a unit at rest that will not make way blocks it, and its
    /// re-plans ran out ([`MAX_REPLANS`](crate::MAX_REPLANS)).
    GaveUp {
        /// The unit in the way.
        blocker: Entity,
        /// The tile it holds.
        at: Pos,
    },
    /// Tactics: it is another side's turn.
    NotYourTurn {
        /// Whose turn it is.
        turn: Team,
    },
    /// Tactics: the unit has moved this turn.
    AlreadyMoved,
    /// Tactics: a unit stands on the tile.
    Occupied {
        /// The tile.
        to: Pos,
    },
    /// Tactics: the tile is outside the unit's movement range.
    OutOfRange {
        /// The tile.
        to: Pos,
    },
    /// Tactics: the turn cannot end while units are still moving.
    StillMoving,
    /// Tactics: the unit has struck or waited this turn.
    AlreadyActed,
    /// Tactics: a move is cancelled, but the unit has not moved this turn.
    NotMoved,
    /// Tactics: the target of a strike is out of the attacker's reach from where it stands.
    OutOfReach {
        /// The target.
        target: Entity,
    },
    /// Tactics: the target of a strike is not of a side hostile to the attacker's
    /// ([`Sides::hostile`](crate::Sides::hostile)): its own, an ally or a neutral side.
    NotAnEnemy {
        /// The target.
        target: Entity,
    },
}

/// What a real-time [`MoveOrder`] to a tile its unit cannot reach does: by default the unit
/// goes as near as it can get ([`ShortOfGoal`]); a game that wants the order refused instead
/// ([`Refusal::Impassable`], [`Refusal::Unreachable`]) inserts [`UnreachableGoals::Refuse`].
/// Tactics moves ([`TacticsMove`](crate::tactics::TacticsMove)) are always refused.
#[derive(Resource, Reflect, Clone, Copy, Debug, Default, PartialEq, Eq)]
#[reflect(Resource, Default, Debug, Clone, PartialEq)]
pub enum UnreachableGoals {
    /// The unit goes as near the goal as it can get, weighing the way there: of the tiles
    /// its class can walk to from where it stands, the one nearest the goal in a straight
    /// line and every one at most [`STOP_NEAR_SLACK`](tilewalk_path::STOP_NEAR_SLACK) tiles
    /// further are candidates, those within a step and a half of the cheapest to walk to
    /// are weighed, and the nearest the goal wins
    /// ([`Grid::stop_near`](tilewalk_path::Grid::stop_near)): a rider sent into a river
    /// stops on its own bank rather than riding round by a ford to the far one, a tile
    /// nearer the click. A group order gathers each movement class (and each region its
    /// units stand in) around the tile nearest the goal it can reach, in a straight line
    /// ([`Grid::nearest`](tilewalk_path::Grid::nearest)), so each goes as near as it can
    /// while the others reach the goal.
    #[default]
    Nearest,
    /// The order is refused with the reason.
    Refuse,
}

/// A unit sent as near as it can get to a goal it cannot reach ([`UnreachableGoals::Nearest`]):
/// on the unit from the order that sent it until its next order, and in its [`Arrived`].
///
/// [`Arrived`]: crate::Arrived
#[derive(Component, Reflect, Clone, Copy, Debug, PartialEq, Eq)]
#[reflect(opaque, Component, Debug, Clone, PartialEq)]
#[cfg_attr(
    feature = "serialize",
    derive(serde::Serialize, serde::Deserialize),
    reflect(Serialize, Deserialize)
)]
pub struct ShortOfGoal {
    /// The tile ordered.
    pub goal: Pos,
    /// Why the unit cannot get there.
    pub why: ShortOfWhy,
}

/// Why a unit stops short of its goal ([`ShortOfGoal`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serialize", derive(serde::Serialize, serde::Deserialize))]
pub enum ShortOfWhy {
    /// The goal is impassable for the unit's class.
    Impassable {
        /// The unit's class.
        class: MovementClass,
    },
    /// The goal is in a region the unit's class cannot reach from where it stands.
    Unreachable,
}

impl ShortOfGoal {
    /// The refusal a game that refuses such orders ([`UnreachableGoals::Refuse`]) gives.
    pub fn refusal(&self) -> Refusal {
        let goal = self.goal;
        match self.why {
            ShortOfWhy::Impassable { class } => Refusal::Impassable { goal, class },
            ShortOfWhy::Unreachable => Refusal::Unreachable {
                goal,
                why: NoPath::DifferentRegions,
            },
        }
    }

    /// Why, as a player reads it: `unit` is the unit's name (e.g. `rider: water at (6,2) is
    /// impassable for horse`).
    pub fn message(&self, unit: &str, labels: &impl Labels) -> String {
        self.refusal().message(unit, labels)
    }
}

/// The names a refusal's message uses; every method has a plain default.
pub trait Labels {
    /// A unit's name.
    fn unit(&self, unit: Entity) -> String {
        unit.to_string()
    }

    /// A movement class's name.
    fn class(&self, class: MovementClass) -> String {
        format!("class {}", class.0)
    }

    /// The terrain at a tile, if the host names terrains.
    fn terrain(&self, _pos: Pos) -> Option<String> {
        None
    }
}

impl Labels for Navigation {
    fn class(&self, class: MovementClass) -> String {
        self.name(class).to_owned()
    }
}

impl Refusal {
    /// What a player reads: `unit` is the refused unit's name.
    pub fn message(&self, unit: &str, labels: &impl Labels) -> String {
        let mut message = String::new();
        // Writing into a `String` does not fail.
        let _ = self.write(&mut message, Some(unit), labels);
        message
    }

    /// The sentence, about `unit` or, with none, "the unit" (a sentence that starts with the
    /// unit's name and a colon leaves both out).
    fn write(
        &self,
        out: &mut impl std::fmt::Write,
        unit: Option<&str>,
        labels: &impl Labels,
    ) -> std::fmt::Result {
        let who = unit.unwrap_or("the unit");
        if let Some(unit) = unit.filter(|_| self.starts_with_unit()) {
            write!(out, "{unit}: ")?;
        }
        match *self {
            Self::MissingComponent { component } => {
                write!(out, "it has no {component} component, so it cannot move")
            }
            Self::NoMapNavigation { map } => {
                write!(out, "it is on map {map}, which has no navigation")
            }
            Self::OutsideMap { goal } => write!(out, "{goal} is outside the map"),
            Self::Impassable { goal, class } => {
                let class = labels.class(class);
                match labels.terrain(goal) {
                    Some(terrain) => write!(out, "{terrain} at {goal} is impassable for {class}"),
                    None => write!(out, "{goal} is impassable for {class}"),
                }
            }
            Self::StandsOnImpassable { class } => write!(
                out,
                "it stands on terrain impassable for {}",
                labels.class(class)
            ),
            Self::Unreachable { goal, why } => write!(out, "{goal} cannot be reached: {why}"),
            Self::NoFreeTile => write!(out, "no free tile near there"),
            Self::NoPath { why } => write!(out, "{why}"),
            Self::NoWayOn { goal, why } => write!(out, "no way on to {goal}: {why}"),
            Self::GaveUp { blocker, at } => write!(
                out,
                "gave up, {} blocks the way at {at}",
                labels.unit(blocker)
            ),
            Self::NotYourTurn { turn } => write!(out, "{who} cannot move: it is {turn}'s turn"),
            Self::AlreadyMoved => write!(out, "{who} has already moved this turn"),
            Self::Occupied { to } => write!(out, "{who} cannot stop on {to}: a unit stands there"),
            Self::OutOfRange { to } => write!(out, "{to} is out of {who}'s range"),
            Self::StillMoving => write!(out, "wait: units are still moving"),
            Self::AlreadyActed => write!(out, "{who} has already acted this turn"),
            Self::NotMoved => write!(out, "{who} has not moved this turn"),
            Self::OutOfReach { target } => {
                write!(out, "{} is out of {who}'s reach", labels.unit(target))
            }
            Self::NotAnEnemy { target } => {
                write!(
                    out,
                    "{who} cannot strike {}: not an enemy",
                    labels.unit(target)
                )
            }
        }
    }

    /// Whether its message is the unit's name, a colon and the reason (the real-time
    /// refusals); the tactics ones name the unit inside the sentence.
    fn starts_with_unit(&self) -> bool {
        matches!(
            self,
            Self::MissingComponent { .. }
                | Self::NoMapNavigation { .. }
                | Self::OutsideMap { .. }
                | Self::Impassable { .. }
                | Self::StandsOnImpassable { .. }
                | Self::Unreachable { .. }
                | Self::NoFreeTile
                | Self::NoPath { .. }
                | Self::NoWayOn { .. }
                | Self::GaveUp { .. }
        )
    }
}

/// The labels of `Refusal`'s `Display`: every default.
struct PlainLabels;

impl Labels for PlainLabels {}

impl std::fmt::Display for Refusal {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.write(f, None, &PlainLabels)
    }
}

impl std::error::Error for Refusal {}

/// A unit standing on terrain impassable for its class (a designer made it so, or the map
/// placed it there) leaves it by its first step, onto the neighbour that makes its way cheapest.
#[derive(Message, Reflect, Clone, Copy, Debug)]
#[reflect(opaque, Debug, Clone)]
#[non_exhaustive]
pub struct SteppingOff {
    /// The unit.
    pub unit: Entity,
    /// The impassable tile it leaves.
    pub from: Pos,
    /// The tile it steps onto.
    pub onto: Pos,
}

impl SteppingOff {
    /// The message when `path` starts on a tile `nav` makes impassable for `class`.
    pub(super) fn of(
        unit: Entity,
        path: &Path,
        nav: &Navigation,
        class: MovementClass,
    ) -> Option<Self> {
        let (&from, &onto) = (path.cells.first()?, path.cells.get(1)?);
        (!nav.grid(class).is_passable(from)).then_some(Self { unit, from, onto })
    }
}

/// Asks for a new path through the unit's remaining waypoints.
#[derive(Message, Reflect, Clone, Copy, Debug)]
#[reflect(Debug, Clone)]
pub(crate) struct Replan {
    /// The unit.
    pub unit: Entity,
    /// Go around units (sent when the unit is blocked): the other side's units at rest and
    /// the one on its next tile are walls; its own side's crowd makes way.
    pub avoid_units: bool,
}

/// The route a unit follows. `cells[0]` is where it started; [`Path::next`] indexes the next
/// tile to enter; `cost` is the whole route's cost under the unit's class. How the walk along
/// it is going is the unit's [`Walk`]. Built with [`Path::to_end`], [`Path::through`] or
/// [`Path::aside`]; the walkers' bookkeeping (`next`, `pass_through`, `making_way`) is read
/// through its methods.
#[derive(Component, Reflect, Clone, Debug, PartialEq)]
#[reflect(opaque, Component, Debug, Clone, PartialEq)]
#[require(Walk)]
#[cfg_attr(
    feature = "serialize",
    derive(serde::Serialize, serde::Deserialize),
    reflect(Serialize, Deserialize)
)]
pub struct Path {
    /// The tiles, from the one it started on to the goal.
    pub cells: Vec<Pos>,
    /// What the whole route costs the unit's class.
    pub cost: f64,
    /// The index in `cells` of the next tile to enter.
    pub(crate) next: usize,
    /// Indices in `cells` of the tiles the player ordered, in order; the last is the goal.
    pub waypoints: Vec<usize>,
    /// Tactics moves may pass through allies (the range already checked every tile); a
    /// real-time path waits for whoever holds its next tile.
    pub(crate) pass_through: bool,
    /// A step aside and back to let a walker of its side pass ([`Path::aside`]): no order of
    /// the unit's, so walking it to the end is no arrival.
    pub(crate) making_way: bool,
}

/// The group order a unit was last sent with (the number of its request). Units of one
/// group order walk as one side, whatever their teams: they make way for each other and,
/// those of one class, hand each other their walks (the crowd rules of `movement`; units of
/// different orders never do, so a unit keeps its own goal), so an order of both teams
/// (`simulate --group all:X,Y`) packs around its click like one army. A new trip of the
/// unit alone ends it.
#[derive(Component, Reflect, Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[reflect(Component, Debug, Clone, PartialEq, Hash)]
pub(crate) struct Squad(pub u64);

/// A unit whose last walk ended before its goal: stopped (`S`), given up, or left with no
/// way on. It stands on none of its order's tiles, so it takes over no squadmate's walk (the
/// walker would end in its place, off the order's tiles, and it would walk on after being
/// stopped); it still makes way for its side like any unit at rest. Its next path from an
/// order ends it.
#[derive(Component, Reflect, Clone, Copy, Debug, Default)]
#[reflect(Component, Default, Debug, Clone)]
pub(crate) struct StoppedShort;

/// Which units a unit makes way for, and they for it: its team, and the group order it was
/// last sent with ([`Squad`]). Other sides that make way for it are in the
/// [`Sides`](crate::Sides).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Side {
    /// The unit's team.
    pub team: Team,
    /// The group order it was last sent with.
    pub squad: Option<Squad>,
}

impl Side {
    /// Units that make way for each other: one team, or sent by one group order.
    pub fn makes_way_for(&self, other: &Side) -> bool {
        self.team == other.team || (self.squad.is_some() && self.squad == other.squad)
    }
}

impl Path {
    /// A path planned by a movement range, walked as it is: through allies, never re-planned
    /// around units.
    pub fn through(cells: Vec<Pos>, cost: f64) -> Self {
        Self {
            pass_through: true,
            ..Self::to_end(cells, cost)
        }
    }

    /// A unit at rest on `from` stepping onto `to` (aside, or onto the walker's tile) and
    /// back, to let a walker pass; `cost` is what the two steps cost it.
    pub fn aside(from: Pos, to: Pos, cost: f64) -> Self {
        Self {
            making_way: true,
            ..Self::to_end(vec![from, to, from], cost)
        }
    }

    /// A real-time path to its last cell (the one goal), waiting for whoever holds its next
    /// tile.
    pub fn to_end(cells: Vec<Pos>, cost: f64) -> Self {
        let goal = cells.len() - 1;
        Self {
            cells,
            cost,
            next: 1,
            waypoints: vec![goal],
            pass_through: false,
            making_way: false,
        }
    }

    /// The index in `cells` of the next tile to enter.
    pub fn next(&self) -> usize {
        self.next
    }

    /// Whether it passes through allies: a tactics move (its range checked every tile),
    /// where a real-time path waits for whoever holds its next tile.
    pub fn pass_through(&self) -> bool {
        self.pass_through
    }

    /// Whether it is a step aside and back to let a walker of its side pass ([`Path::aside`]):
    /// no order of the unit's, so walking it to the end is no arrival.
    pub fn making_way(&self) -> bool {
        self.making_way
    }

    /// The last tile.
    pub fn goal(&self) -> Pos {
        self.cells[self.cells.len() - 1]
    }

    /// The tiles still to enter.
    pub fn remaining(&self) -> &[Pos] {
        &self.cells[self.next.min(self.cells.len())..]
    }

    /// The walk from `cells[at]` on, as a unit standing there takes it over (when a walker
    /// hands it to an ally, or two allies trade); `cost` is what it costs that unit. The
    /// walker's [`Walk`] goes with it: a walk handed on from unit to unit at a blockage that
    /// started each with none would never be given up.
    pub fn rest(&self, at: usize, cost: f64) -> Path {
        Path {
            waypoints: self
                .waypoints
                .iter()
                .filter(|&&i| i > at)
                .map(|&i| i - at)
                .collect(),
            ..Path::to_end(self.cells[at..].to_vec(), cost)
        }
    }

    /// Puts `cells` in before the next tile: a unit pushed off its way walks them first.
    pub(crate) fn detour(&mut self, cells: &[Pos]) {
        let next = self.next;
        self.cells.splice(next..next, cells.iter().copied());
        for i in &mut self.waypoints {
            if *i >= next {
                *i += cells.len();
            }
        }
    }

    /// Ends the walk on `cells[at]`, which now costs `cost` in all.
    pub fn stop_at(&mut self, at: usize, cost: f64) {
        self.cells.truncate(at + 1);
        self.waypoints.retain(|&i| i < at);
        self.waypoints.push(at);
        self.cost = cost;
    }

    pub(super) fn remaining_waypoints(&self) -> Vec<Pos> {
        self.waypoints
            .iter()
            .filter(|&&i| i >= self.next)
            .map(|&i| self.cells[i])
            .collect()
    }
}

/// What one search did, for a HUD or a search view. A unit of a group order has one
/// record with its own path; `expanded` and `micros` are then the whole order's (the group
/// planner works for all its units at once), and there are no expansions to show.
#[derive(Clone, Debug, Default)]
pub struct SearchRecord {
    /// The unit searched for.
    pub unit: Option<Entity>,
    /// The search's name (`A*`, `ALT` with landmark tables, `CCH` for a query on a contraction
    /// hierarchy ([`LongOrders::Hierarchy`](crate::LongOrders::Hierarchy)), `group order`).
    pub algorithm: &'static str,
    /// Whether it found a path.
    pub found: bool,
    /// The path's cost.
    pub cost: f64,
    /// The path's steps.
    pub steps: usize,
    /// Cells expanded; for a `CCH` query, its work: the arcs it scanned, four to a unit
    /// ([`LongOrders`](crate::LongOrders)).
    pub expanded: usize,
    /// Microseconds it took.
    pub micros: f64,
    /// The expanded cells in order (kept while [`RecordSearches`] is on, and for the units
    /// with [`RecordSearch`]).
    pub expansions: Vec<Pos>,
}

/// The searches of the last order (one per unit of a group order, one per leg of a waypoint),
/// then of any re-plans since; the last is the newest.
#[derive(Resource, Reflect, Clone, Debug, Default)]
#[reflect(opaque, Resource, Default, Debug, Clone)]
pub struct Searches(pub VecDeque<SearchRecord>);

/// How many search records are kept: a group order of a whole army keeps its newest ones.
const KEPT_SEARCHES: usize = 256;

impl Searches {
    pub(super) fn push(&mut self, record: SearchRecord) {
        if self.0.len() == KEPT_SEARCHES {
            self.0.pop_front();
        }
        self.0.push_back(record);
    }
}

/// Whether searches keep their expanded cells for a search view: off by default (a view
/// turns it on while it shows them). The searches of units with [`RecordSearch`] keep theirs
/// whatever it says.
#[derive(Resource, Reflect, Clone, Copy, Debug, Default)]
#[reflect(Resource, Default, Debug, Clone)]
pub struct RecordSearches(pub bool);

/// A unit whose searches keep their expanded cells ([`SearchRecord::expansions`]) even
/// while [`RecordSearches`] is off: the units a player has selected, say, whose searches a
/// HUD shows.
#[derive(Component, Reflect, Clone, Copy, Debug, Default, PartialEq, Eq)]
#[reflect(Component, Default, Debug, Clone, PartialEq)]
pub struct RecordSearch;

/// When the group planner's memory (a few bytes a tile, for each worker planning group
/// orders side by side) is sized for the [`Navigation`](crate::Navigation).
#[derive(Resource, Reflect, Clone, Copy, Debug, Default, PartialEq, Eq)]
#[reflect(Resource, Default, Debug, Clone, PartialEq)]
pub enum PlannerMemory {
    /// By the first group order, in its first frames: a game that never orders a group never
    /// pays for it.
    #[default]
    OnFirstGroupOrder,
    /// Now, and again whenever the navigation is replaced, so that the next group order does
    /// not pay for it: a game sets it when a group order becomes likely (two or more units
    /// selected, say).
    Reserved,
}

/// A unit waiting for its path: a request of its is queued or under way. It stands still
/// (after the step under way) until the path arrives. Stored in a sparse set: an order of
/// thousands of units adds it to each and every arriving path takes it away, and a table
/// component would move each unit's whole row both times.
#[derive(Component, Reflect, Clone, Copy, Debug, Default, PartialEq, Eq)]
#[reflect(Component, Default, Debug, Clone, PartialEq)]
#[component(storage = "SparseSet")]
pub struct Pending;

/// What planning reads of a unit.
#[derive(QueryData)]
pub(super) struct Planned {
    pub(super) entity: Entity,
    pub(super) class: &'static MovementClass,
    pub(super) tile: &'static Tile,
    pub(super) path: Option<&'static Path>,
    pub(super) walk: Option<&'static Walk>,
    pub(super) precedence: Option<&'static Precedence>,
    pub(super) record: Has<RecordSearch>,
    pub(super) team: &'static Team,
    pub(super) squad: Option<&'static Squad>,
    pub(super) pending: Has<Pending>,
    pub(super) on_map: Option<&'static OnMap>,
}

impl PlannedItem<'_, '_> {
    /// The map it is on.
    pub(super) fn map(&self) -> MapKey {
        map_of(self.on_map)
    }

    pub(super) fn side(&self) -> Side {
        Side {
            team: *self.team,
            squad: self.squad.copied(),
        }
    }

    /// No path, and none on its way: it stays where it is until ordered.
    pub(super) fn at_rest(&self) -> bool {
        self.path.is_none() && !self.pending
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_rest_of_a_walk_starts_where_it_is_taken_over() {
        let walk = Path {
            waypoints: vec![1, 3, 5],
            ..Path::to_end((0..6).map(|x| Pos::new(x, 0)).collect(), 5.0)
        };
        let rest = walk.rest(2, 3.0);
        assert_eq!(
            rest.cells,
            (2..6).map(|x| Pos::new(x, 0)).collect::<Vec<_>>()
        );
        assert_eq!((rest.next, rest.cost, rest.waypoints), (1, 3.0, vec![1, 3]));
    }
}
