//! Move orders become path requests, served under a per-frame budget ([`requests`]'s docs),
//! and then `Path` components; paths are re-planned when the terrain under them changes or a
//! unit is blocked.

mod requests;

use std::collections::{HashMap, HashSet, VecDeque};
use std::time::Instant;

use bevy::ecs::query::QueryData;
use bevy::ecs::schedule::InternedScheduleLabel;
use bevy::prelude::*;
use tilewalk_path::{Board, Grid, Landmarks, NoPath, Passage, Pos, SearchContext, SearchOptions};

pub use requests::{
    DEFAULT_PATH_WORK, LANDMARK_CELLS, LANDMARK_FRAMES, LANDMARKS, PathBudget, PathWork, Pending,
};
use requests::{Kind, Requests};

use crate::TilewalkSystems;
use crate::navigation::step_length;
use crate::navigation::{Navigation, NavigationChanged};
use crate::units::{MovementClass, Precedence, Selected, Team, Tile, Unit, precedence};

/// Orders units to a tile. Each unit gets its own free tile: the free tiles nearest the click
/// by travel cost (what walking from the tile to the click costs its class), planned for the
/// whole group at once (a unit alone gets its own A*, the clicked tile when it is free). With
/// `append`, the trip is added after each unit's current path, to the free tile nearest the
/// click in a straight line. The units wait ([`Pending`]) until their paths are served.
#[derive(Message, Reflect, Clone, Debug)]
#[reflect(opaque, Debug, Clone)]
pub struct MoveOrder {
    /// The units ordered; the order they are listed in does not matter.
    pub units: Vec<Entity>,
    /// The tile clicked.
    pub goal: Pos,
    /// Add the trip after each unit's current path instead of replacing it.
    pub append: bool,
}

/// Drops the units' paths and the requests they wait for; a step under way is finished.
#[derive(Message, Reflect, Clone, Debug)]
#[reflect(Debug, Clone)]
pub struct StopOrder {
    /// The units stopped.
    pub units: Vec<Entity>,
}

/// An order, or a path, that could not be carried out, and why.
#[derive(Message, Reflect, Clone, Debug)]
#[reflect(opaque, Debug, Clone)]
pub struct OrderRefused {
    /// The unit refused.
    pub unit: Entity,
    /// The tile it was ordered to.
    pub goal: Pos,
    /// Why.
    pub reason: Refusal,
}

/// Why an order (real-time or tactics) was refused or given up. Its [`Refusal::message`]
/// names the unit, the classes and the terrain as the host labels them ([`Labels`]).
#[derive(Clone, Debug, PartialEq)]
pub enum Refusal {
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
    /// Tactics: it is the other side's turn.
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
    /// Tactics: the target of a strike is on the attacker's side.
    NotAnEnemy {
        /// The target.
        target: Entity,
    },
}

/// What a real-time [`MoveOrder`] to a tile its unit cannot reach does: by default the unit
/// goes as near as it can get ([`ShortOfGoal`]); a game that wants the order refused instead
/// ([`Refusal::Impassable`], [`Refusal::Unreachable`]) inserts [`UnreachableGoals::Refuse`].
/// Tactics moves ([`TacticsMove`](crate::TacticsMove)) are always refused.
#[derive(Resource, Reflect, Clone, Copy, Debug, Default, PartialEq, Eq)]
#[reflect(Resource, Default, Debug, Clone, PartialEq)]
pub enum UnreachableGoals {
    /// The unit goes to the reachable tile nearest the goal: of the tiles its class can walk
    /// to from where it stands, the one nearest the goal in a straight line (the squared
    /// column and row differences); of equally near ones, the one nearest the unit the same
    /// way, then the first by row, then by column. A group order
    /// does so per movement class (and per region its units stand in), so each goes as near
    /// as it can while the others reach the goal.
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
pub struct ShortOfGoal {
    /// The tile ordered.
    pub goal: Pos,
    /// Why the unit cannot get there.
    pub why: ShortOfWhy,
}

/// Why a unit stops short of its goal ([`ShortOfGoal`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
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
        match *self {
            Self::OutsideMap { goal } => format!("{unit}: {goal} is outside the map"),
            Self::Impassable { goal, class } => {
                let class = labels.class(class);
                match labels.terrain(goal) {
                    Some(terrain) => {
                        format!("{unit}: {terrain} at {goal} is impassable for {class}")
                    }
                    None => format!("{unit}: {goal} is impassable for {class}"),
                }
            }
            Self::StandsOnImpassable { class } => format!(
                "{unit}: it stands on terrain impassable for {}",
                labels.class(class)
            ),
            Self::Unreachable { goal, why } => format!("{unit}: {goal} cannot be reached: {why}"),
            Self::NoFreeTile => format!("{unit}: no free tile near there"),
            Self::NoPath { why } => format!("{unit}: {why}"),
            Self::NoWayOn { goal, why } => format!("{unit}: no way on to {goal}: {why}"),
            Self::GaveUp { blocker, at } => format!(
                "{unit}: gave up, {} blocks the way at {at}",
                labels.unit(blocker)
            ),
            Self::NotYourTurn { turn } => format!("{unit} cannot move: it is {turn}'s turn"),
            Self::AlreadyMoved => format!("{unit} has already moved this turn"),
            Self::Occupied { to } => format!("{unit} cannot stop on {to}: a unit stands there"),
            Self::OutOfRange { to } => format!("{to} is out of {unit}'s range"),
            Self::StillMoving => "wait: units are still moving".to_owned(),
            Self::AlreadyActed => format!("{unit} has already acted this turn"),
            Self::NotMoved => format!("{unit} has not moved this turn"),
            Self::OutOfReach { target } => {
                format!("{} is out of {unit}'s reach", labels.unit(target))
            }
            Self::NotAnEnemy { target } => {
                format!("{unit} cannot strike {}: not an enemy", labels.unit(target))
            }
        }
    }
}

/// A unit standing on terrain impassable for its class (a designer made it so, or the map
/// placed it there) leaves it by its first step, onto the neighbour that makes its way cheapest.
#[derive(Message, Reflect, Clone, Copy, Debug)]
#[reflect(opaque, Debug, Clone)]
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
    fn of(unit: Entity, path: &Path, nav: &Navigation, class: MovementClass) -> Option<Self> {
        let (&from, &onto) = (path.cells.first()?, path.cells.get(1)?);
        (!nav.grid(class).is_passable(from)).then_some(Self { unit, from, onto })
    }
}

/// Asks for a new path through the unit's remaining waypoints.
#[derive(Message, Reflect, Clone, Copy, Debug)]
#[reflect(Debug, Clone)]
pub struct Replan {
    /// The unit.
    pub unit: Entity,
    /// Go around units (sent when the unit is blocked): the other side's units at rest and
    /// the one on its next tile are walls; its own side's crowd makes way.
    pub avoid_units: bool,
}

/// The route a unit follows. `cells[0]` is where it started; `next` indexes the next tile
/// to enter; `cost` is the whole route's cost under the unit's class. How the walk along it
/// is going is the unit's [`Walk`].
#[derive(Component, Reflect, Clone, Debug, PartialEq)]
#[reflect(opaque, Component, Debug, Clone, PartialEq)]
#[require(Walk)]
pub struct Path {
    /// The tiles, from the one it started on to the goal.
    pub cells: Vec<Pos>,
    /// What the whole route costs the unit's class.
    pub cost: f64,
    /// The index in `cells` of the next tile to enter.
    pub next: usize,
    /// Indices in `cells` of the tiles the player ordered, in order; the last is the goal.
    pub waypoints: Vec<usize>,
    /// Tactics moves may pass through allies (the range already checked every tile); a
    /// real-time path waits for whoever holds its next tile.
    pub pass_through: bool,
    /// A step aside and back to let a walker of its side pass ([`Path::aside`]): no order of
    /// the unit's, so walking it to the end is no arrival.
    pub making_way: bool,
}

/// How a unit's walk along its [`Path`] is going, as the crowd rules keep it: the state of
/// the walk, not of the route. A new order starts it afresh; a re-plan keeps it; a walk handed
/// on to another unit takes it along.
#[derive(Component, Reflect, Clone, Debug, PartialEq)]
#[reflect(opaque, Component, Default, Debug, Clone, PartialEq)]
pub struct Walk {
    /// Seconds spent waiting for a unit at rest that will not make way to leave the next tile.
    pub waited: f32,
    /// Re-plans caused by blocking units since the walk last got nearer its goal than
    /// `nearest` (see [`MAX_REPLANS`](crate::MAX_REPLANS)).
    pub replans: u32,
    /// The fewest tiles the unit has stood from its goal since the order, counted as the
    /// larger of the column and row differences (`u32::MAX` before its first step).
    pub nearest: u32,
    /// The tiles of the units at rest that stopped it (and will not make way) since it last
    /// got nearer its goal: a re-plan around units goes around every one of them, so two
    /// such units, one on each side of its way, cannot send it back and forth between them
    /// until it gives up.
    pub blockers: Vec<Pos>,
    /// A re-plan around units found no way, or its re-plans ran out: units at rest wall it
    /// in (the other side's on a bridge's far end, say), so for the rest of its walk the
    /// other side's units at rest make way for it as its own side's do, and its re-plans
    /// walk through them.
    pub walled: bool,
    /// Seconds spent in a queue since its last step. A unit of a group order that has queued
    /// a quarter second takes a lane beside its path if one costs no more walking time than
    /// it has queued (the crowd rules).
    pub queued: f32,
}

impl Default for Walk {
    fn default() -> Self {
        Self {
            queued: 0.0,
            waited: 0.0,
            replans: 0,
            nearest: u32::MAX,
            blockers: Vec::new(),
            walled: false,
        }
    }
}

impl Walk {
    /// Walls the walker in ([`Walk::walled`]), once: from now on the other side's units at
    /// rest make way for it, so those that stopped it are no longer in its way, and it has
    /// its re-plans again. False, changing nothing, when it was walled in already.
    pub fn wall_in(&mut self) -> bool {
        if self.walled {
            return false;
        }
        self.walled = true;
        self.blockers.clear();
        self.replans = 0;
        true
    }
}

/// The group order a unit was last sent with (the number of its request). Units of one
/// group order walk as one side, whatever their teams: they make way for each other and,
/// those of one class, hand each other their walks (the crowd rules of `movement`; units of
/// different orders never do, so a unit keeps its own goal), so an order of both teams
/// (`simulate --group all:X,Y`) packs around its click like one army. A new trip of the
/// unit alone ends it.
#[derive(Component, Reflect, Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[reflect(Component, Debug, Clone, PartialEq, Hash)]
pub struct Squad(pub u64);

/// A unit whose last walk ended before its goal: stopped (`S`), given up, or left with no
/// way on. It stands on none of its order's tiles, so it takes over no squadmate's walk (the
/// walker would end in its place, off the order's tiles, and it would walk on after being
/// stopped); it still makes way for its side like any unit at rest. Its next path from an
/// order ends it.
#[derive(Component, Reflect, Clone, Copy, Debug, Default)]
#[reflect(Component, Default, Debug, Clone)]
pub struct StoppedShort;

/// Which units a unit makes way for, and they for it: its team, and the group order it was
/// last sent with ([`Squad`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Side {
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

    /// Ends the walk on `cells[at]`, which now costs `cost` in all.
    pub fn stop_at(&mut self, at: usize, cost: f64) {
        self.cells.truncate(at + 1);
        self.waypoints.retain(|&i| i < at);
        self.waypoints.push(at);
        self.cost = cost;
    }

    fn remaining_waypoints(&self) -> Vec<Pos> {
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
    /// The search's name (`A*`, `group order`).
    pub algorithm: &'static str,
    /// Whether it found a path.
    pub found: bool,
    /// The path's cost.
    pub cost: f64,
    /// The path's steps.
    pub steps: usize,
    /// Cells expanded.
    pub expanded: usize,
    /// Microseconds it took.
    pub micros: f64,
    /// The expanded cells in order (kept while the search view is on, and for selected units).
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
    fn push(&mut self, record: SearchRecord) {
        if self.0.len() == KEPT_SEARCHES {
            self.0.pop_front();
        }
        self.0.push_back(record);
    }
}

/// Whether searches keep their expanded cells for the search view: off headless; the
/// view turns it on while it shows them. The selected units' searches are always kept.
#[derive(Resource, Reflect, Clone, Copy, Debug, Default)]
#[reflect(Resource, Default, Debug, Clone)]
pub struct RecordSearches(pub bool);

pub(crate) fn plugin(app: &mut App, schedule: InternedScheduleLabel) {
    app.add_message::<MoveOrder>()
        .add_message::<StopOrder>()
        .add_message::<OrderRefused>()
        .add_message::<Replan>()
        .add_message::<SteppingOff>()
        .init_resource::<UnreachableGoals>()
        .init_resource::<Searches>()
        .init_resource::<RecordSearches>()
        .init_resource::<Requests>()
        .init_resource::<PathWork>()
        .add_systems(
            schedule,
            (
                requests::reserve_planner,
                stop_units,
                plan_orders,
                replan_paths,
                requests::serve_requests,
            )
                .chain()
                .in_set(TilewalkSystems::Plan)
                .run_if(resource_exists::<Navigation>),
        );
}

fn stop_units(
    mut commands: Commands,
    mut stops: MessageReader<StopOrder>,
    mut requests: ResMut<Requests>,
    walking: Query<(), With<Path>>,
) {
    for stop in stops.read() {
        for &unit in &stop.units {
            let waited = requests.cancel(&mut commands, unit);
            if waited || walking.contains(unit) {
                commands.entity(unit).remove::<Path>().insert(StoppedShort);
            }
        }
    }
}

/// What planning reads of a unit.
#[derive(QueryData)]
struct Planned {
    entity: Entity,
    class: &'static MovementClass,
    tile: &'static Tile,
    path: Option<&'static Path>,
    walk: Option<&'static Walk>,
    precedence: Option<&'static Precedence>,
    selected: Has<Selected>,
    team: &'static Team,
    squad: Option<&'static Squad>,
    pending: Has<Pending>,
}

impl PlannedItem<'_, '_> {
    fn side(&self) -> Side {
        Side {
            team: *self.team,
            squad: self.squad.copied(),
        }
    }

    /// No path, and none on its way: it stays where it is until ordered.
    fn at_rest(&self) -> bool {
        self.path.is_none() && !self.pending
    }
}

/// Checks each order's goal (a refusal says why at once) and queues the request: one group
/// order for a new trip of two or more units, one request per unit otherwise. A goal a unit
/// cannot reach is replaced by the reachable tile nearest it ([`UnreachableGoals`]): units
/// that share a replacement share a request.
fn plan_orders(
    mut commands: Commands,
    mut orders: MessageReader<MoveOrder>,
    mut refused: MessageWriter<OrderRefused>,
    mut requests: ResMut<Requests>,
    mut searches: ResMut<Searches>,
    nav: Res<Navigation>,
    rule: Option<Res<UnreachableGoals>>,
    units: Query<Planned, With<Unit>>,
) {
    if !orders.is_empty() {
        searches.0.clear();
    }
    let rule = rule.map_or_else(UnreachableGoals::default, |r| *r);
    for order in orders.read() {
        let mut ordered: Vec<PlannedItem> = order
            .units
            .iter()
            .filter_map(|&e| units.get(e).ok())
            .collect();
        ordered.sort_by_key(|u| precedence(u.entity, u.precedence));
        // The units by where they go: the goal first, then each nearest tile in the order
        // first met (units of one class in one region share one).
        let mut aims: Vec<(Pos, Option<ShortOfGoal>, Vec<Entity>)> =
            vec![(order.goal, None, Vec::new())];
        let mut nearest: HashMap<(MovementClass, Vec<u32>), Option<Pos>> = HashMap::new();
        for unit in &ordered {
            let from = match unit.path {
                Some(path) if order.append => path.goal(),
                _ => unit.tile.0,
            };
            let class = *unit.class;
            let aim = match check_goal(&nav, class, from, order.goal) {
                Ok(()) => Ok((order.goal, None)),
                Err(reason) => match short_of(&reason, rule) {
                    None => Err(reason),
                    Some(why) => {
                        let grid = nav.grid(class);
                        let board = nav.board();
                        let regions = exits(grid, board, from, None)
                            .filter_map(|e| grid.region(e, board))
                            .collect();
                        let near = *nearest
                            .entry((class, regions))
                            .or_insert_with(|| nearest_reachable(grid, board, from, order.goal));
                        let short = ShortOfGoal {
                            goal: order.goal,
                            why,
                        };
                        near.map(|tile| (tile, Some(short))).ok_or(reason)
                    }
                },
            };
            match aim {
                Ok((tile, short)) => match aims.iter_mut().find(|a| a.0 == tile && a.1 == short) {
                    Some(aim) => aim.2.push(unit.entity),
                    None => aims.push((tile, short, vec![unit.entity])),
                },
                Err(reason) => {
                    refused.write(OrderRefused {
                        unit: unit.entity,
                        goal: order.goal,
                        reason,
                    });
                }
            }
        }
        for (goal, short, units) in aims {
            // A new trip for a group is one plan; waypoints extend each unit's own path, and
            // a unit alone gets its own A* (whose expanded cells the search view can show).
            if order.append || units.len() < 2 {
                for unit in units {
                    let kind = Kind::Trip {
                        unit,
                        append: order.append,
                    };
                    requests.push(&mut commands, goal, kind, short);
                }
            } else {
                requests.push(&mut commands, goal, Kind::Group(units), short);
            }
        }
    }
}

/// Why a unit would stop short of its goal, for a refusal that [`UnreachableGoals::Nearest`]
/// turns into an order to the nearest reachable tile (`None`: the refusal stands).
fn short_of(reason: &Refusal, rule: UnreachableGoals) -> Option<ShortOfWhy> {
    match (rule, reason) {
        (UnreachableGoals::Refuse, _) => None,
        (_, Refusal::Impassable { class, .. }) => Some(ShortOfWhy::Impassable { class: *class }),
        (_, Refusal::Unreachable { .. }) => Some(ShortOfWhy::Unreachable),
        _ => None,
    }
}

/// Why a goal cannot be ordered. (Called for every unit of an order: it allocates nothing
/// unless it refuses.)
fn check_goal(nav: &Navigation, class: MovementClass, from: Pos, goal: Pos) -> Result<(), Refusal> {
    let grid = nav.grid(class);
    if !nav.contains(goal) {
        return Err(Refusal::OutsideMap { goal });
    }
    if !grid.is_passable(goal) {
        return Err(Refusal::Impassable { goal, class });
    }
    let mut exits = exits(grid, nav.board(), from, None).peekable();
    if exits.peek().is_none() {
        return Err(Refusal::StandsOnImpassable { class });
    }
    if !exits.any(|e| grid.connected(e, goal, nav.board())) {
        return Err(Refusal::Unreachable {
            goal,
            why: NoPath::DifferentRegions,
        });
    }
    Ok(())
}

/// The tile nearest to `goal` (by straight-line distance, ties by row then column) that is
/// passable, reachable from `from` and not claimed. `goal` itself when it is free. For what
/// one unit plans alone: a waypoint, a unit stepping off, a re-plan around units.
fn free_goal(
    grid: &Grid,
    board: Board,
    from: Pos,
    goal: Pos,
    claimed: &HashSet<Pos>,
) -> Option<Pos> {
    let exits: Vec<Pos> = exits(grid, board, from, None).collect();
    let free = |p: Pos| {
        (p == from || !claimed.contains(&p)) && exits.iter().any(|&e| grid.connected(e, p, board))
    };
    let reach = grid.width().max(grid.height()) as i64;
    (0..=reach).find_map(|r| {
        let mut ring: Vec<(i64, Pos)> = (-r..=r)
            .flat_map(|dy| (-r..=r).map(move |dx| (dx, dy)))
            .filter(|&(dx, dy)| dx.abs().max(dy.abs()) == r)
            .filter_map(|(dx, dy)| {
                let x = u32::try_from(i64::from(goal.x) + dx).ok()?;
                let y = u32::try_from(i64::from(goal.y) + dy).ok()?;
                Some((dx * dx + dy * dy, Pos::new(x, y)))
            })
            .filter(|&(_, p)| grid.contains(p))
            .collect();
        ring.sort_by_key(|&(d, p)| (d, p.y, p.x));
        ring.into_iter().map(|(_, p)| p).find(|&p| free(p))
    })
}

impl Navigation {
    /// The tile an order to `goal` sends a unit of `class` standing on `from` to when it
    /// cannot reach `goal` ([`UnreachableGoals::Nearest`]): of the tiles it can walk to, the
    /// one nearest `goal` in a straight line; of equally near ones, the one nearest `from`,
    /// then by row, then by column. `None` when it can walk nowhere.
    pub fn nearest_reachable(&self, class: MovementClass, from: Pos, goal: Pos) -> Option<Pos> {
        nearest_reachable(self.grid(class), self.board(), from, goal)
    }
}

/// The tile an order to a `goal` the unit on `from` cannot reach sends it to
/// ([`UnreachableGoals::Nearest`]): of the tiles it can walk to, the one nearest `goal` in a
/// straight line; of equally near ones, the one nearest `from`, then by row, then by column
/// ([`Grid::nearest`]).
fn nearest_reachable(grid: &Grid, board: Board, from: Pos, goal: Pos) -> Option<Pos> {
    let exits: Vec<Pos> = exits(grid, board, from, None).collect();
    grid.nearest(goal, from, |p| {
        exits.iter().any(|&e| grid.connected(e, p, board))
    })
}

impl Path {
    fn extended(mut self, leg: Path) -> Path {
        let offset = self.cells.len() - 1;
        self.cells.extend_from_slice(&leg.cells[1..]);
        self.cost += leg.cost;
        self.waypoints
            .extend(leg.waypoints.iter().map(|i| i + offset));
        // A waypoint the player added makes a step aside a journey of its own.
        self.making_way = false;
        self
    }
}

/// Whose search this is, and whether to keep its expanded cells for the search view.
#[derive(Clone, Copy)]
struct Recorder {
    unit: Entity,
    record: bool,
}

/// Searches `from` → each waypoint in turn with A* and joins the legs into one path.
/// `avoid` says which tiles to treat as walls (units' tiles, on a re-plan around units;
/// `from` is never one): an overlay on the grid, which is not copied. With `landmarks` (and
/// no `avoid`), the legs are searched by ALT, as exact and quicker on long ways.
fn search_legs(
    context: &mut SearchContext,
    records: &mut Vec<SearchRecord>,
    recorder: Recorder,
    grid: &Grid,
    board: Board,
    from: Pos,
    waypoints: &[Pos],
    avoid: Option<&dyn Fn(Pos) -> bool>,
    landmarks: Option<&Landmarks>,
) -> Result<Path, NoPath> {
    let options = SearchOptions {
        record_expansions: recorder.record,
        ..SearchOptions::on(board)
    };
    let passage = |p: Pos| match avoid {
        Some(avoid) if p != from && avoid(p) => Passage::Blocked,
        _ => Passage::Open,
    };
    // The legs extend this start: no waypoint yet.
    let mut path = Path {
        waypoints: Vec::new(),
        ..Path::to_end(vec![from], 0.0)
    };
    let mut leg = |context: &mut SearchContext, from: Pos, to: Pos| {
        let started = Instant::now();
        let (found, algorithm) = match landmarks {
            Some(tables) if avoid.is_none() && tables.fits(grid) => {
                let found =
                    context.search_landmarks_recorded(grid, tables, from, to, recorder.record);
                (found, "ALT")
            }
            _ => (context.search_with(grid, from, to, &options, passage), "A*"),
        };
        records.push(SearchRecord {
            unit: Some(recorder.unit),
            algorithm,
            found: found.is_ok(),
            cost: found.as_ref().map_or(0.0, |f| f.path.cost),
            steps: found.as_ref().map_or(0, |f| f.path.cells.len() - 1),
            expanded: context.stats().expanded,
            micros: started.elapsed().as_secs_f64() * 1e6,
            expansions: context.expansions().to_vec(),
        });
        found.map(|f| f.path)
    };
    let mut legs = Vec::with_capacity(waypoints.len());
    let mut at = from;
    for (i, &waypoint) in waypoints.iter().enumerate() {
        let found = if i == 0 && !grid.is_passable(from) {
            // Standing on terrain that became impassable: step off onto the neighbour that
            // makes the whole leg cheapest (the tile itself is only ever left).
            let mut best: Option<tilewalk_path::Path> = None;
            for exit in exits(grid, board, from, avoid) {
                let step =
                    grid.cost(exit).unwrap_or(f64::INFINITY) * step_length(board, from, exit);
                if let Ok(mut rest) = leg(context, exit, waypoint) {
                    rest.cost += step;
                    rest.cells.insert(0, from);
                    if best.as_ref().is_none_or(|b| rest.cost < b.cost) {
                        best = Some(rest);
                    }
                }
            }
            best.ok_or(NoPath::StartBlocked(from))?
        } else {
            leg(context, at, waypoint)?
        };
        at = waypoint;
        legs.push(found);
    }
    for found in legs {
        path.cells.extend_from_slice(&found.cells[1..]);
        path.cost += found.cost;
        path.waypoints.push(path.cells.len() - 1);
    }
    Ok(path)
}

/// The tiles a unit on `from` can move off to: `from` itself when it is passable, else its
/// passable neighbours on the board that `avoid` leaves open.
fn exits<'a>(
    grid: &'a Grid,
    board: Board,
    from: Pos,
    avoid: Option<&'a dyn Fn(Pos) -> bool>,
) -> impl Iterator<Item = Pos> + 'a {
    let stands = grid.is_passable(from);
    let around = (!stands).then(|| {
        board
            .neighbours(from, grid.width(), grid.height())
            .filter(move |&n| grid.is_passable(n) && avoid.is_none_or(|a| !a(n)))
    });
    stands
        .then_some(from)
        .into_iter()
        .chain(around.into_iter().flatten())
}

/// Queues re-plans of the paths a terrain change crosses, and of units movement found blocked.
fn replan_paths(
    mut commands: Commands,
    mut changes: MessageReader<NavigationChanged>,
    mut replans: MessageReader<Replan>,
    mut requests: ResMut<Requests>,
    units: Query<Planned, With<Unit>>,
) {
    // Paths crossing a changed cell may be blocked or dearer; a class that got cheaper
    // anywhere may now have a better way off its path, so all of its paths are re-planned.
    let mut changed: HashSet<Pos> = HashSet::new();
    let mut cheaper: Vec<MovementClass> = Vec::new();
    for change in changes.read() {
        changed.extend(change.cells.iter().copied());
        cheaper.extend(change.cheaper.iter().copied());
    }
    let mut wanted: Vec<Replan> = replans.read().copied().collect();
    if wanted.is_empty() && changed.is_empty() && cheaper.is_empty() {
        return;
    }
    wanted.extend(
        units
            .iter()
            .filter(|u| {
                u.path.is_some_and(|p| {
                    !p.pass_through
                        && (cheaper.contains(u.class)
                            || p.remaining().iter().any(|c| changed.contains(c)))
                })
            })
            .map(|u| Replan {
                unit: u.entity,
                avoid_units: false,
            }),
    );
    // One re-plan per unit, around units if any asked for it.
    let mut once: Vec<Replan> = Vec::new();
    let mut at: HashMap<Entity, usize> = HashMap::new();
    for replan in wanted {
        match at.get(&replan.unit) {
            Some(&i) => once[i].avoid_units |= replan.avoid_units,
            None => {
                at.insert(replan.unit, once.len());
                once.push(replan);
            }
        }
    }
    for Replan { unit, avoid_units } in once {
        let Some(goal) = units.get(unit).ok().and_then(|u| u.path).map(Path::goal) else {
            continue;
        };
        requests.push(
            &mut commands,
            goal,
            Kind::Replan { unit, avoid_units },
            None,
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn free_goal_spirals_out_from_a_claimed_tile() {
        let grid = Grid::new(5, 5).unwrap();
        let claimed: HashSet<Pos> = [Pos::new(2, 2), Pos::new(2, 1)].into();
        assert_eq!(
            free_goal(
                &grid,
                Board::default(),
                Pos::new(0, 0),
                Pos::new(4, 4),
                &claimed
            ),
            Some(Pos::new(4, 4))
        );
        assert_eq!(
            free_goal(
                &grid,
                Board::default(),
                Pos::new(0, 0),
                Pos::new(2, 2),
                &claimed
            ),
            Some(Pos::new(1, 2))
        );
        assert_eq!(
            free_goal(
                &grid,
                Board::default(),
                Pos::new(2, 2),
                Pos::new(2, 2),
                &claimed
            ),
            Some(Pos::new(2, 2)),
            "a unit's own tile is free for it"
        );
    }

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

    #[test]
    fn appending_a_leg_keeps_waypoints_and_costs() {
        let a = Path::to_end(vec![Pos::new(0, 0), Pos::new(1, 0)], 1.0);
        let b = Path::to_end(vec![Pos::new(1, 0), Pos::new(1, 1), Pos::new(1, 2)], 2.5);
        assert_eq!(
            (a.next, &a.waypoints, b.next, &b.waypoints),
            (1, &vec![1], 1, &vec![2])
        );
        let joined = a.extended(b);
        assert_eq!(joined.cells.len(), 4);
        assert_eq!(joined.waypoints, vec![1, 3]);
        assert_eq!(joined.cost, 3.5);
        assert_eq!(joined.goal(), Pos::new(1, 2));
    }
}
