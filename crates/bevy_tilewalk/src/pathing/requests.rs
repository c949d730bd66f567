//! Path requests: orders and re-plans wait in a queue and are served under a per-frame
//! budget, side by side on Bevy's compute task pool, and applied in the order they were made.
//!
//! - **What is counted**: *work*, the cells a search expands plus the cells a group order's
//!   fields settle and its waves expand (or, for a movement class of one cost, the jump
//!   points of its units' searches), and its units' paths at an eighth of a unit a cell
//!   (the core's [`GroupStats`](tilewalk_path::GroupStats) and
//!   [`SearchStats`](tilewalk_path::SearchStats) count these; writing a path cell costs about
//!   an eighth of expanding one). Work, not time, so with the same number of workers the
//!   same orders are served in the same frames on any machine, and `simulate` (two workers
//!   everywhere) replays identically.
//! - **The budget** ([`PathBudget`]): each of its workers may do its `work` a frame (one
//!   worker a core, unless it names how many). A frame stops taking one-unit requests once
//!   their work reached `work × workers`. The search that crossed it is finished, so a frame
//!   does at most the budget plus one search (for a group order, whose fields and waves stop
//!   at the budget, one unit's path, and search when it has one of its own, per movement
//!   class). A budget of 0 still serves one search a frame, so the queue always drains.
//! - **Side by side**: consecutive one-unit requests (a unit alone, a waypoint, a re-plan) run
//!   on the compute task pool, one [`SearchContext`] per worker, each worker taking the next
//!   request while the frame's finished work is under the budget. The frame keeps the requests
//!   whose earlier requests' work is under the budget, in order: always the same ones, however
//!   the threads raced (any extra result is dropped and searched again next frame). Group
//!   orders are planned one per two workers side by side on the pool, each by a
//!   [`GroupPlanner`] of its own resumed frame after frame, its movement classes in two lanes
//!   (threads) of a worker's work: its units get their paths farthest first, as the planner
//!   decides them, so the front of an army sets off while the rest is still planned. A later
//!   order starts once those under way have picked their tiles ([`start_groups`]).
//! - **Long orders on large maps**: on a map of at least [`LANDMARK_CELLS`] cells, the first
//!   *long* one-unit request of a movement class (a leg of at least [`LANDMARK_DISTANCE`]
//!   steps on the board, from the unit or a waypoint to the next) starts building its
//!   landmark tables ([`Landmarks`](tilewalk_path::Landmarks), on the async compute task
//!   pool); from the [`LANDMARK_FRAMES`]th frame after, the class's long one-unit searches
//!   are ALT (A* with landmarks): exact, and far fewer cells expanded on long ways, so more
//!   orders fit a frame's budget. (The frame that reaches it waits for a build not yet done,
//!   so the same orders are served in the same frames on every run.) A shorter request is
//!   plain A*, at once, and never builds tables: its search is small, and the tables cost
//!   seconds and 32 bytes a cell. A navigation change rebuilds the tables; until the new
//!   ones are used, a class whose costs only rose keeps its old ones (their bounds are still
//!   bounds), and one that got cheaper somewhere searches with plain A*.
//! - **Long orders with a hierarchy** ([`LongOrders::Hierarchy`], opt-in): on a map of fewer
//!   than [`LANDMARK_CELLS`] cells, a class's first long one-unit request starts building the
//!   map's contraction hierarchy ([`Cch`](tilewalk_path::Cch), one a map) and the class's
//!   weights on it ([`CchMetric`](tilewalk_path::CchMetric)) on the async compute task
//!   pool, used from the [`LANDMARK_FRAMES`]th frame after as the tables are; from then on the
//!   class's long legs are hierarchy queries (`CCH` in [`Searches`]), exact, their work the
//!   arcs they scan, four to a unit. A navigation change re-customizes the weights for the
//!   changed tiles only ([`CchMetric::recustomize`](tilewalk_path::CchMetric::recustomize)),
//!   on the pool, used from the [`LANDMARK_FRAMES`]th frame after; meanwhile the class's long
//!   orders are plain A*. A navigation of another size or board drops the hierarchy.
//! - **Pending**: a unit with a request not yet served carries [`Pending`]; it finishes the
//!   step under way, then stands (drawn faded) until its path arrives, and walks in that frame.
//!   A new trip replaces the unit's earlier requests; a waypoint or a re-plan comes after them.

use std::collections::{BTreeMap, HashMap, HashSet, VecDeque};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Instant;

use bevy::ecs::entity::{EntityHashMap, EntityHashSet};
use bevy::prelude::*;
use bevy::tasks::{AsyncComputeTaskPool, ComputeTaskPool, Task, TaskPool, block_on};
use tilewalk_path::{
    Advance, Board, Cch, CchError, CchMetric, CchQuery, GroupOrder, GroupPlanner, Landmarks,
    NoPath, Pos, Route, SearchContext, Stranded, Unit as GroupUnit,
};

use super::legs::{Guide, Recorder, free_goal, search_legs};
use super::types::{
    OrderRefused, Path, Pending, Planned, PlannedItem, PlannerMemory, RecordSearches, Refusal,
    SearchRecord, Searches, ShortOfGoal, Side, Squad, SteppingOff, StoppedShort,
};
use crate::maps::{MapKey, Maps};
use crate::navigation::{Navigation, NavigationChanged};
use crate::sides::Sides;
use crate::units::{MovementClass, Team, Unit, Walk, precedence};

/// The work a frame's path searches may do, and how many workers share it. Work is cells
/// expanded by searches and settled by group orders' fields, and group orders' paths at an
/// eighth of a unit a cell. Each of `workers` workers may do `work` a frame, side by side on
/// Bevy's compute task pool: a frame stops taking one-unit requests once their work reached
/// `work × workers` (the search that crossed it is finished, and a budget of 0 still serves
/// one search a frame), and plans up to `workers ÷ 2` group orders side by side (at least
/// one), each in two lanes of `work` ([`GroupPlanner::advance`]). Work, not time, is
/// counted, so the same budget with the same number of workers gives the same frames on any
/// machine; with `workers` left to the cores, a machine with more cores plans more a frame.
/// The searches run on Bevy's compute task pool, which by default has the cores the IO and
/// async compute pools leave (Bevy's `TaskPoolOptions`); with more workers than its
/// threads, a frame's lanes take turns on them: frames are longer, and orders are planned
/// in fewer of them (the repository's [`docs/benchmarks.md`], "Every core", has the figures).
///
/// [`docs/benchmarks.md`]: https://github.com/tilewalk/tilewalk/blob/main/docs/benchmarks.md
#[derive(Resource, Reflect, Clone, Copy, Debug, PartialEq, Eq)]
#[reflect(Resource, Default, Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct PathBudget {
    /// The work one worker may do a frame.
    pub work: usize,
    /// How many workers share a frame's planning; `None`: one per core the process may run
    /// on (`std::thread::available_parallelism`, which follows `taskset`). Set it to replay
    /// the same frames on every machine, as the headless commands do.
    pub workers: Option<usize>,
}

impl PathBudget {
    /// A budget of `work` a worker, with a worker a core
    /// (`PathBudget::new(work).with_workers(1)` for the same frames on every machine).
    pub fn new(work: usize) -> Self {
        Self { work, ..default() }
    }

    /// The budget shared by `workers` workers instead of one a core.
    pub fn with_workers(self, workers: usize) -> Self {
        Self {
            workers: Some(workers),
            ..self
        }
    }

    /// The workers that share a frame's planning: [`Self::workers`], or the cores the process
    /// may run on (at least 1).
    pub fn workers(&self) -> usize {
        self.workers
            .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()))
            .max(1)
    }

    /// The work a frame may do: `work × workers`.
    pub fn frame_work(&self) -> usize {
        self.work.saturating_mul(self.workers())
    }

    /// How many group orders a frame plans side by side: one per two workers, at least one.
    pub fn orders_side_by_side(&self) -> usize {
        (self.workers() / 2).max(1)
    }
}

/// The default [`PathBudget::work`] of one worker: chosen so that a frame that plans group
/// orders stays within a 60 Hz frame's time with the rest of the game's work. A larger
/// budget plans an order in fewer frames but makes each of them longer; a smaller one keeps
/// frames short and spreads the order over more of them. To choose one for another machine,
/// time the frames with `cargo run --release --example army -- --budget WORK` (the
/// repository's [`docs/benchmarks.md`], "What a unit of work costs", has the figures that
/// chose this one).
///
/// [`docs/benchmarks.md`]: https://github.com/tilewalk/tilewalk/blob/main/docs/benchmarks.md
pub const DEFAULT_PATH_WORK: usize = 20_000;

impl Default for PathBudget {
    fn default() -> Self {
        Self {
            work: DEFAULT_PATH_WORK,
            workers: None,
        }
    }
}

/// What serving path requests did in the last frame (for a HUD, statistics and tests).
#[derive(Resource, Reflect, Clone, Copy, Debug, Default, PartialEq, Eq)]
#[reflect(Resource, Default, Debug, Clone, PartialEq)]
pub struct PathWork {
    /// Requests still queued after the frame (a group order under way counts as one).
    pub queued: usize,
    /// Units waiting for a path after the frame.
    pub pending: usize,
    /// Work done in the frame.
    pub work: usize,
    /// Work of the frame's last search: `work - last` is under the budget.
    pub last: usize,
}

/// What a request asks for.
#[derive(Clone, Debug)]
pub(super) enum Kind {
    /// A new trip for two or more units: one group order.
    Group(Vec<Entity>),
    /// A new trip for one unit, or with `append` one more waypoint after its path.
    Trip { unit: Entity, append: bool },
    /// The unit's path again, from its tile through its remaining waypoints.
    Replan { unit: Entity, avoid_units: bool },
}

#[derive(Clone, Debug)]
pub(super) struct Request {
    id: u64,
    goal: Pos,
    kind: Kind,
}

/// A group order being planned across frames, by a planner of its own.
struct GroupUnderWay {
    id: u64,
    goal: Pos,
    /// The units given to the planner, in its order.
    members: Vec<Entity>,
    decided: Vec<bool>,
    started: Instant,
    planner: GroupPlanner,
}

/// Each map's [`Requests`], the default map's under `None`, and the next request's id: ids
/// are unique across maps (a group order's id is its units' [`Squad`]).
#[derive(Resource, Default)]
pub(super) struct MapRequests {
    pub(super) maps: BTreeMap<MapKey, Requests>,
    next_id: u64,
}

impl MapRequests {
    /// Queues a request on map `key` ([`Requests::push`]).
    pub(super) fn push(
        &mut self,
        key: MapKey,
        commands: &mut Commands,
        goal: Pos,
        kind: Kind,
        short: Option<ShortOfGoal>,
    ) {
        let id = self.next_id;
        self.next_id += 1;
        let requests = self.maps.entry(key).or_default();
        requests.push(commands, id, goal, kind, short);
    }

    /// Drops the unit's requests on every map (a stop order): their results will not count.
    /// True when it was waiting for one.
    pub(super) fn cancel(&mut self, commands: &mut Commands, unit: Entity) -> bool {
        let mut waited = false;
        for requests in self.maps.values_mut() {
            waited |= requests.cancel(commands, unit);
        }
        waited
    }
}

/// One map's queue, the group orders under way (the first requests of the queue) with their
/// planners, spare planners, and one search context per worker.
#[derive(Default)]
pub(super) struct Requests {
    queue: VecDeque<Request>,
    /// Per unit with requests not yet served: the id of its latest new trip (earlier results
    /// are dropped) and of its latest request (its path has arrived when that one is served).
    waiting: EntityHashMap<(u64, u64)>,
    /// The group orders under way, in queue order: the first `groups.len()` requests.
    groups: Vec<GroupUnderWay>,
    /// Planners of finished orders, whose memory the next orders reuse.
    spare: Vec<GroupPlanner>,
    contexts: Vec<SearchContext>,
    /// The requests (by id) that send their units as near as they can get to a goal they
    /// cannot reach, while queued.
    shorts: HashMap<u64, ShortOfGoal>,
    /// Per movement class: its landmark tables, on a large map.
    tables: Vec<ClassTables>,
    /// The map's contraction hierarchy, with [`LongOrders::Hierarchy`].
    hierarchy: MapHierarchy,
    /// One hierarchy query's memory per worker.
    queries: Vec<CchQuery>,
    /// Group orders planned to the end, with their units, whose ways are spread over the
    /// crossings next frame ([`spread_crossings`](super::spread_crossings)).
    pub(super) planned_orders: Vec<(u64, Vec<Entity>)>,
    /// The units given a trip of their own this frame (one-unit orders), whose ways are
    /// spread over the crossings next frame as if one order had sent them.
    pub(super) planned_alone: Vec<Entity>,
}

/// Maps of at least this many cells (1024 × 1024) get landmark tables for the one-unit
/// searches of each movement class that is given one: 32 bytes a
/// cell a class ([`LANDMARKS`] landmarks, two 16-bit tables each). On smaller maps plain
/// A* serves a long order in a few frames' budget, and the tables would cost more memory
/// than the searches.
pub const LANDMARK_CELLS: usize = 1 << 20;

/// The steps on the board (Chebyshev on the 8-way square boards, Manhattan on `square-4`,
/// the hex distance on hex boards: [`Board::distance`](tilewalk_path::Board::distance))
/// from which a leg of a one-unit search is a long order: on a map of at least
/// [`LANDMARK_CELLS`] cells it starts its class's landmark tables, and it is searched by
/// ALT once they are used. A shorter one is plain A*, at once, and builds nothing. On a
/// generated map (`tilewalk gen`, foot costs), nine orders in ten shorter than this take
/// plain A* less than a worker's default budget ([`DEFAULT_PATH_WORK`], 20,000 cells
/// expanded): the 90th percentile is 10,084 cells at 128 steps and reaches the budget here
/// (20,440 at 192 steps), then grows fast (25,969 at 256, 58,095 at 384, 311,913 at 1,024):
/// from here on an order takes frames of the budget, and the tables (seconds to build, 32
/// bytes a cell) pay for themselves. (The repository's [`docs/benchmarks.md`], "Short orders
/// on large maps", has the measurement.)
///
/// [`docs/benchmarks.md`]: https://github.com/tilewalk/tilewalk/blob/main/docs/benchmarks.md
pub const LANDMARK_DISTANCE: u32 = 192;

/// Landmarks per table: eight, spread around the map's edge.
pub const LANDMARKS: usize = 8;

/// The frame after a build of landmark tables starts from which they are used: a second at
/// 60 frames a second. A build not yet done is waited for then.
pub const LANDMARK_FRAMES: u32 = 60;

/// What serves the long one-unit orders (a leg of at least [`LANDMARK_DISTANCE`] steps) on
/// a map of fewer than [`LANDMARK_CELLS`] cells. On larger maps they are always served by
/// landmark tables (ALT, [`LANDMARK_CELLS`]). Every choice finds exact paths; they differ in
/// memory and in the work a long order costs.
///
/// - [`LongOrders::Landmarks`] (the default): plain A*. Such a map gets no landmark tables:
///   a long order takes a few frames' budget, and nothing is built.
/// - [`LongOrders::Hierarchy`]: a customizable contraction hierarchy
///   ([`Cch`](tilewalk_path::Cch)) for each map, and its weights
///   ([`CchMetric`](tilewalk_path::CchMetric)) for each movement class that gets a long
///   order, built on the async compute task pool from the class's first long order and used
///   from the [`LANDMARK_FRAMES`]th frame after (that frame waits for a build not yet done,
///   so replays stay identical); until then the class's long orders are plain A*. A long leg
///   is then a query on the hierarchy (`CCH` in [`Searches`]): its work is the arcs
///   it scans ([`CchQuery::scanned`](tilewalk_path::CchQuery::scanned)), four to a unit of
///   the [`PathBudget`] (a unit then takes about the time of a cell A* expands): on a
///   256 × 24 map with walls, about 1,500 where A* expands about 5,400 cells. A navigation change
///   re-customizes the weights of each class for the changed tiles only
///   ([`CchMetric::recustomize`](tilewalk_path::CchMetric::recustomize), all of them anew
///   when every tile changed) on the pool, used from the [`LANDMARK_FRAMES`]th frame after;
///   until then the class's long orders are plain A* (the old weights are never used for
///   the new costs). A navigation of another size or board drops the hierarchy (the next
///   long order builds one for the new map).
///
/// The hierarchy is opt-in for its costs: about 500 to 700 bytes a cell for the structure
/// and 600 to 900 for each class's weights (on a 256 × 256 map about 32 MB and 40 MB a
/// class, where the plugin keeps to 64 MiB plus 128 bytes a cell, 72 MiB there; on
/// 512 × 512, 150 MB and 190 MB a class against 96 MiB), and a customization takes about
/// a second at 256 × 256 and ten at 512 × 512 on a loaded two-core machine, a re-customization
/// after a 10 × 10 paint a fraction of a second to seconds (the repository's
/// [`docs/design/long-orders.md`] has the measurements).
///
/// [`docs/design/long-orders.md`]: https://github.com/tilewalk/tilewalk/blob/main/docs/design/long-orders.md
#[derive(Resource, Reflect, Clone, Copy, Debug, Default, PartialEq, Eq)]
#[reflect(Resource, Default, Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum LongOrders {
    /// Plain A* below [`LANDMARK_CELLS`] cells, landmark tables from there.
    #[default]
    Landmarks,
    /// A contraction hierarchy below [`LANDMARK_CELLS`] cells, landmark tables from there.
    Hierarchy,
}

/// A map's contraction hierarchy and its classes' weights, for long orders
/// ([`LongOrders::Hierarchy`]).
#[derive(Default)]
struct MapHierarchy {
    /// The structure, once built, shared with the customizations under way.
    cch: Option<Arc<Cch>>,
    /// Its build under way (with the weights of the class that asked first), the frames left
    /// until it is used, and the class.
    building: Option<(Task<Built>, u32, MovementClass)>,
    /// The size and board of the structure, built or under way.
    shape: Option<(u32, u32, Board)>,
    /// The map could not get one (too large): its long orders stay plain A*.
    refused: bool,
    /// Per movement class: its weights.
    classes: Vec<Weights>,
}

/// A map's hierarchy and the weights of the class that asked first, or why it has none.
type Built = Result<(Cch, CchMetric), CchError>;

/// A movement class's weights on its map's hierarchy.
#[derive(Default)]
enum Weights {
    /// No long order asked for them.
    #[default]
    Unasked,
    /// Asked for while the structure was built: customized once it is.
    Waiting,
    /// A customization under way (`task`, or the structure's build when `None`) with the
    /// frames left until it is used, and the tiles changed since it read its grid.
    Building {
        task: Option<Task<Result<CchMetric, CchError>>>,
        frames: u32,
        edited: Vec<Pos>,
    },
    /// Current for the navigation's costs.
    Ready(CchMetric),
}

impl MapHierarchy {
    /// Whether its structure (built or under way) is for `nav`'s size and board.
    fn fits(&self, nav: &Navigation) -> bool {
        self.shape
            .is_none_or(|shape| shape == (nav.width(), nav.height(), nav.board()))
    }

    /// A long order of `class` asks for its weights: they start building if not yet asked
    /// for (with the structure, if no class asked before).
    fn want(&mut self, nav: &Navigation, class: MovementClass) {
        if self.refused {
            return;
        }
        if self.classes.len() < nav.classes().len() {
            self.classes
                .resize_with(nav.classes().len(), Weights::default);
        }
        let Some(weights) = self.classes.get_mut(class.index()) else {
            return;
        };
        if !matches!(weights, Weights::Unasked) {
            return;
        }
        *weights = if let Some(cch) = &self.cch {
            customizing(cch, nav.grid(class))
        } else if self.building.is_some() {
            Weights::Waiting
        } else {
            let pool = AsyncComputeTaskPool::get_or_init(TaskPool::default);
            let grid = nav.grid(class).clone();
            let shape = (nav.width(), nav.height(), nav.board());
            let task = pool.spawn(async move {
                let cch = Cch::new(shape.0, shape.1, shape.2)?;
                let metric = cch.customize(&grid)?;
                Ok((cch, metric))
            });
            self.shape = Some(shape);
            self.building = Some((task, LANDMARK_FRAMES, class));
            Weights::Building {
                task: None,
                frames: LANDMARK_FRAMES,
                edited: Vec::new(),
            }
        };
    }

    /// After a navigation change of `cells`: a hierarchy for another size or board is
    /// dropped (a build under way too, which cancels it); else each class's current weights
    /// start re-customizing for the cells, and a customization under way notes them, to
    /// re-customize them once it is done.
    fn changed(&mut self, nav: &Navigation, cells: &[Pos]) {
        if !self.fits(nav) {
            *self = MapHierarchy::default();
            return;
        }
        if cells.is_empty() {
            return;
        }
        self.classes.truncate(nav.classes().len());
        for (index, weights) in self.classes.iter_mut().enumerate() {
            match weights {
                Weights::Ready(_) => {
                    let Some(cch) = &self.cch else { continue };
                    if let Weights::Ready(metric) = std::mem::take(weights) {
                        let grid = nav.grid(MovementClass(index as u8));
                        *weights = recustomizing(cch, grid, metric, cells.to_vec());
                    }
                }
                Weights::Building { edited, .. } => edited.extend_from_slice(cells),
                Weights::Unasked | Weights::Waiting => {}
            }
        }
    }

    /// Counts a frame for the builds under way; those whose frame has come are used (waited
    /// for if not done): weights with tiles changed since they read their grid re-customize
    /// them first (from this frame, for [`LANDMARK_FRAMES`] more).
    fn tick(&mut self, nav: &Navigation) {
        let mut done: Vec<(usize, Result<CchMetric, CchError>)> = Vec::new();
        if let Some((_, frames, _)) = &mut self.building {
            *frames = frames.saturating_sub(1);
            if *frames == 0
                && let Some((task, _, class)) = self.building.take()
            {
                match block_on(task) {
                    Ok((cch, metric)) => {
                        self.cch = Some(Arc::new(cch));
                        done.push((class.index(), Ok(metric)));
                    }
                    Err(why) => {
                        warn!(
                            "bevy_tilewalk: no contraction hierarchy for a {} × {} map \
                             ({why:?}): its long orders are searched by A*",
                            nav.width(),
                            nav.height()
                        );
                        *self = MapHierarchy {
                            refused: true,
                            ..default()
                        };
                        return;
                    }
                }
            }
        }
        for (index, weights) in self.classes.iter_mut().enumerate() {
            match weights {
                Weights::Waiting => {
                    let Some(cch) = &self.cch else { continue };
                    *weights = customizing(cch, nav.grid(MovementClass(index as u8)));
                }
                Weights::Building {
                    task: task @ Some(_),
                    frames,
                    ..
                } => {
                    *frames = frames.saturating_sub(1);
                    if *frames == 0
                        && let Some(task) = task.take()
                    {
                        done.push((index, block_on(task)));
                    }
                }
                _ => {}
            }
        }
        for (index, built) in done {
            let Some(weights) = self.classes.get_mut(index) else {
                continue;
            };
            let edited = match std::mem::take(weights) {
                Weights::Building { edited, .. } => edited,
                _ => Vec::new(),
            };
            *weights = match (built, &self.cch) {
                (Ok(metric), _) if edited.is_empty() => Weights::Ready(metric),
                (Ok(metric), Some(cch)) => {
                    recustomizing(cch, nav.grid(MovementClass(index as u8)), metric, edited)
                }
                (Ok(_), None) => Weights::Unasked,
                (Err(why), _) => {
                    warn!(
                        "bevy_tilewalk: the hierarchy's weights of movement class {index} \
                         failed ({why:?}): its long orders are searched by A* until its next"
                    );
                    Weights::Unasked
                }
            };
        }
    }

    /// The structure and each class's current weights, if any class has them.
    fn ready(&self) -> Option<(&Cch, Vec<Option<&CchMetric>>)> {
        let cch = self.cch.as_deref()?;
        let weights = self
            .classes
            .iter()
            .map(|w| match w {
                Weights::Ready(metric) => Some(metric),
                _ => None,
            })
            .collect();
        Some((cch, weights))
    }
}

/// Starts customizing `cch` for `grid` on the pool: the class's weights until they are used,
/// [`LANDMARK_FRAMES`] from now.
fn customizing(cch: &Arc<Cch>, grid: &tilewalk_path::Grid) -> Weights {
    let (cch, grid) = (Arc::clone(cch), grid.clone());
    building(async move { cch.customize(&grid) })
}

/// Starts re-customizing `metric` on the pool for the `edited` tiles of `grid` (in full when
/// they are every tile): the class's weights until it is used, [`LANDMARK_FRAMES`] from now.
fn recustomizing(
    cch: &Arc<Cch>,
    grid: &tilewalk_path::Grid,
    mut metric: CchMetric,
    mut edited: Vec<Pos>,
) -> Weights {
    edited.sort_unstable_by_key(|p| (p.y, p.x));
    edited.dedup();
    let (cch, grid) = (Arc::clone(cch), grid.clone());
    building(async move {
        if edited.len() >= grid.width() as usize * grid.height() as usize {
            cch.customize(&grid)
        } else {
            metric.recustomize(&cch, &grid, &edited).map(|_| metric)
        }
    })
}

/// Weights under way: `work` on the async compute task pool, used [`LANDMARK_FRAMES`] from
/// now.
fn building(work: impl Future<Output = Result<CchMetric, CchError>> + Send + 'static) -> Weights {
    let pool = AsyncComputeTaskPool::get_or_init(TaskPool::default);
    Weights::Building {
        task: Some(pool.spawn(work)),
        frames: LANDMARK_FRAMES,
        edited: Vec::new(),
    }
}

/// A movement class's landmark tables: those in use, and a build under way (with the frames
/// left until it is used).
#[derive(Default)]
struct ClassTables {
    ready: Option<Landmarks>,
    building: Option<(Task<Landmarks>, u32)>,
}

impl Requests {
    /// Starts building `class`'s landmark tables from its grid now.
    fn build_tables(&mut self, nav: &Navigation, class: MovementClass) {
        if self.tables.len() < nav.classes().len() {
            self.tables
                .resize_with(nav.classes().len(), ClassTables::default);
        }
        let grid = nav.grid(class).clone();
        let board = nav.board();
        let pool = AsyncComputeTaskPool::get_or_init(TaskPool::default);
        let task = pool.spawn(async move { Landmarks::build(&grid, board, LANDMARKS) });
        // A build under way is dropped, which cancels it.
        self.tables[class.index()].building = Some((task, LANDMARK_FRAMES));
    }

    /// After a navigation change: the tables of a class that got cheaper somewhere may
    /// overestimate, so they are set aside; every class with tables builds them anew.
    fn tables_changed(&mut self, nav: &Navigation, cheaper: &HashSet<MovementClass>) {
        for index in 0..self.tables.len() {
            let class = MovementClass(index as u8);
            let tables = &mut self.tables[index];
            if cheaper.contains(&class)
                && let Some(ready) = &mut tables.ready
            {
                ready.invalidate();
            }
            if (tables.ready.is_some() || tables.building.is_some()) && index < nav.classes().len()
            {
                self.build_tables(nav, class);
            }
        }
    }

    /// Counts a frame for the builds under way; those whose frame has come are used (waited
    /// for if not done).
    fn tick_tables(&mut self) {
        for tables in &mut self.tables {
            let due = match &mut tables.building {
                Some((_, frames)) => {
                    *frames = frames.saturating_sub(1);
                    *frames == 0
                }
                None => false,
            };
            if due && let Some((task, _)) = tables.building.take() {
                tables.ready = Some(block_on(task));
            }
        }
    }
}

impl Requests {
    /// Queues request `id`; its units are pending from now on. With `short`, `goal` is the
    /// tile nearest the goal ordered, which they cannot reach.
    fn push(
        &mut self,
        commands: &mut Commands,
        id: u64,
        goal: Pos,
        kind: Kind,
        short: Option<ShortOfGoal>,
    ) {
        if let Some(short) = short {
            self.shorts.insert(id, short);
        }
        let (units, new_trip): (&[Entity], bool) = match &kind {
            Kind::Group(units) => (units, true),
            Kind::Trip { unit, append } => (std::slice::from_ref(unit), !append),
            Kind::Replan { unit, .. } => (std::slice::from_ref(unit), false),
        };
        for &unit in units {
            let waiting = self.waiting.entry(unit).or_insert((id, id));
            if new_trip {
                waiting.0 = id;
            }
            waiting.1 = id;
        }
        let pending: Vec<(Entity, Pending)> = units.iter().map(|&unit| (unit, Pending)).collect();
        commands.insert_batch(pending);
        self.queue.push_back(Request { id, goal, kind });
    }

    /// Drops the unit's requests (a stop order): their results will not count. True when it
    /// was waiting for one.
    fn cancel(&mut self, commands: &mut Commands, unit: Entity) -> bool {
        let waited = self.waiting.remove(&unit).is_some();
        if waited {
            commands.entity(unit).remove::<Pending>();
        }
        waited
    }

    /// Whether request `id`'s result for `unit` still counts (no new trip came after it).
    fn counts(&self, unit: Entity, id: u64) -> bool {
        self.waiting.get(&unit).is_some_and(|w| id >= w.0)
    }

    /// Request `id` for `unit` is served: the unit stops waiting if it was its latest.
    fn served(&mut self, commands: &mut Commands, unit: Entity, id: u64) {
        if self.waiting.get(&unit).is_some_and(|w| w.1 == id) {
            self.waiting.remove(&unit);
            if let Ok(mut entity) = commands.get_entity(unit) {
                entity.remove::<Pending>();
            }
        }
    }
}

/// A one-unit request ready to search: its legs, or why it needs none.
struct Prepared {
    id: u64,
    /// The order's goal, for refusals.
    goal: Pos,
    unit: Entity,
    class: MovementClass,
    what: Prepare,
}

impl Prepared {
    /// Whether it is a long order: a search with a leg (from the unit's tile, or the path it
    /// extends, to its first waypoint, or between two waypoints) of at least
    /// [`LANDMARK_DISTANCE`] steps on `board`.
    fn long(&self, board: Board) -> bool {
        let Prepare::Search {
            from, waypoints, ..
        } = &self.what
        else {
            return false;
        };
        let mut at = *from;
        waypoints.iter().any(|&to| {
            let leg = board.distance(at, to);
            at = to;
            leg >= LANDMARK_DISTANCE
        })
    }
}

enum Prepare {
    /// Nothing to search (the unit is gone, or has no path to re-plan).
    Nothing,
    Refuse(Refusal),
    Search {
        from: Pos,
        waypoints: Vec<Pos>,
        /// On a re-plan around units: what it walks around.
        avoid: Option<Around>,
        record: bool,
        /// What a waypoint is appended to; what a re-plan replaces (its re-plan count stays).
        base: Option<Path>,
        replan: bool,
    },
}

/// What a re-plan around units treats as walls: the units at rest that will not make way
/// for the walker: those of the other sides but the ones that make way for its side
/// ([`Sides::makes_way_for`]) (unless they wall it in, [`Walk::walled`]: then
/// they make way, and it walks through them); the one in its way that stopped it (of its
/// side, but unable to make way: of a class that cannot stand where the walker stands, say,
/// with no free tile beside it) and those that stopped it before since it last got nearer
/// its goal; and, when it stands where they cannot, all those of its side that cannot make
/// way for it from some tile beside them ([`Around::stuck`]). A wader stopped by a horse on
/// a packed bank (a whole bank of horses, where an order of both teams packs in at a river)
/// so goes around them all at once, through the water to a tile it can land on; going
/// around only the ones beside it and those that stopped it would lead it into the next
/// horse along the bank, and the next, until it gave up. The rest of its own side's crowd,
/// walking or at rest, is walked through: units walking move on, and those at rest make way
/// or hand over (`movement`'s rules). Were every unit a wall, a walker in a packed crowd of
/// its own side would find no way at all, and give up.
#[derive(Clone, Debug)]
struct Around {
    side: Side,
    class: MovementClass,
    /// Where the walker stands.
    at: Pos,
    /// The tiles of the one in its way and of those that stopped it before
    /// ([`Walk::blockers`]).
    blockers: Vec<Pos>,
    /// The walker is walled in ([`Walk::walled`]): the other side's units at rest make way
    /// for it, so they are no walls.
    walled: bool,
    /// The other teams whose units at rest make way for the walker's ([`Sides`]).
    yielders: Vec<Team>,
}

impl Around {
    /// Whether the re-plan treats `pos` as a wall, in the frame's `crowd` (the tiles units
    /// stand on, and the units at rest by tile).
    fn walls(&self, nav: &Navigation, crowd: Crowd, pos: Pos) -> bool {
        let (held, resting) = crowd;
        if self.blockers.contains(&pos) {
            return true;
        }
        match resting.get(&pos) {
            None => false,
            Some(unit)
                if unit.side.makes_way_for(&self.side)
                    || self.yielders.contains(&unit.side.team) =>
            {
                self.stuck(nav, held, unit.class, pos)
            }
            Some(_) => !self.walled,
        }
    }

    /// Whether a unit of `class` at rest on `pos` cannot make way for the walker, which
    /// stands on ground the unit cannot stand on: the unit cannot stand on some tile beside
    /// it the walker can come from (to step onto it as the walker steps onto its own), and
    /// has no free tile beside it (to step aside onto), `held` holding the tiles units
    /// stand on. A horse on a packed river bank, for a soldier in the river: `movement`
    /// cannot move it out of such a walker's way. A walker on ground every class stands on
    /// finds nobody stuck: it walks through its side, which makes way.
    fn stuck(&self, nav: &Navigation, held: &HashSet<Pos>, class: MovementClass, pos: Pos) -> bool {
        let (theirs, grid) = (nav.grid(class), nav.grid(self.class));
        let beside = || nav.board().neighbours(pos, grid.width(), grid.height());
        !theirs.is_passable(self.at)
            && beside().any(|n| grid.is_passable(n) && !theirs.is_passable(n))
            && beside().all(|n| !theirs.is_passable(n) || held.contains(&n))
    }
}

/// The other teams whose units at rest make way for `team`'s walkers
/// ([`Sides::makes_way_for`]).
fn yielders(sides: &Sides, team: Team) -> Vec<Team> {
    sides
        .teams()
        .filter(|&t| t != team && sides.makes_way_for(t, team))
        .collect()
}

/// The tiles units stand on, and the units at rest by tile ([`Frame::crowd`]).
type Crowd<'a> = (&'a HashSet<Pos>, &'a HashMap<Pos, Resting>);

/// What a search gave.
struct Searched {
    found: Result<Path, NoPath>,
    records: Vec<SearchRecord>,
    work: usize,
}

/// What one frame's serving shares between its steps.
struct Frame<'a, 'w, 's> {
    commands: Commands<'w, 's>,
    nav: &'a Navigation,
    sides: &'a Sides,
    /// The units of the map served: planning sees no other.
    units: OnTheMap<'a, 'w, 's>,
    record: bool,
    long_orders: LongOrders,
    /// Paths planned this frame, inserted at the end in entity order (so movement visits
    /// units in the same order every run).
    planned: BTreeMap<Entity, Path>,
    /// Tiles units stand on or are going to, gathered when a one-unit order first needs them
    /// (a group order's planner has its own: a frame that only plans a group skips this).
    claimed: Option<HashSet<Pos>>,
    refused: Vec<OrderRefused>,
    stepping: Vec<SteppingOff>,
    records: Vec<SearchRecord>,
    /// The tiles units stand on, and the units at rest by tile, gathered when a re-plan
    /// around units first needs them ([`Frame::crowd`]).
    crowd: Option<(HashSet<Pos>, HashMap<Pos, Resting>)>,
    /// Whether an order got a new planner this frame ([`start_groups`]).
    planner_made: bool,
}

/// The units of one map, out of a query of all units.
#[derive(Clone, Copy)]
struct OnTheMap<'a, 'w, 's> {
    units: &'a Query<'w, 's, Planned, With<Unit>>,
    map: MapKey,
}

impl<'a, 's> OnTheMap<'a, '_, 's> {
    /// The unit, if it is on the map.
    fn get(self, unit: Entity) -> Option<PlannedItem<'a, 's>> {
        self.units.get(unit).ok().filter(|u| u.map() == self.map)
    }

    /// The units on the map.
    fn iter(self) -> impl Iterator<Item = PlannedItem<'a, 's>> {
        let map = self.map;
        self.units.iter().filter(move |u| u.map() == map)
    }
}

/// A unit at rest, as a re-plan around units sees it.
#[derive(Clone, Copy, Debug)]
struct Resting {
    side: Side,
    class: MovementClass,
}

impl Frame<'_, '_, '_> {
    /// The tiles units stand on, and the units at rest by tile.
    fn crowd(&mut self) -> Crowd<'_> {
        let units = self.units;
        let (held, resting) = self.crowd.get_or_insert_with(|| {
            let held = units.iter().map(|u| u.tile.0).collect();
            let resting = units
                .iter()
                .filter(|u| u.at_rest())
                .map(|u| {
                    let (side, class) = (u.side(), *u.class);
                    (u.tile.0, Resting { side, class })
                })
                .collect();
            (held, resting)
        });
        (held, resting)
    }

    /// The tiles units stand on or are going to. A unit at rest that waits for the path of a
    /// new trip claims none: it is leaving its tile, so a unit ordered onto that tile in the
    /// same frame (two units sent onto each other's tiles) goes there, and they trade
    /// places; its own tile is claimed when its request is served.
    fn claimed(&mut self) -> &mut HashSet<Pos> {
        let (units, planned) = (self.units, &self.planned);
        self.claimed.get_or_insert_with(|| {
            units
                .iter()
                .filter(|u| u.path.is_some() || !u.pending)
                .map(|u| u.path.map_or(u.tile.0, Path::goal))
                .chain(planned.values().map(Path::goal))
                .collect()
        })
    }

    fn path_of(&self, unit: Entity) -> Option<&Path> {
        self.planned
            .get(&unit)
            .or_else(|| self.units.get(unit).and_then(|u| u.path))
    }

    fn refuse(&mut self, unit: Entity, goal: Pos, reason: Refusal) {
        self.refused.push(OrderRefused { unit, goal, reason });
    }
}

/// Sizes each map's group planner's memory for its navigation once the host asks for it
/// ([`PlannerMemory::Reserved`]), and again when the navigation is replaced, so that the next
/// group order does not pay for it in its first frames ([`GroupPlanner::reserve`]). Memory
/// already sized for the navigation is kept.
pub(super) fn reserve_planner(
    mut requests: ResMut<MapRequests>,
    maps: Maps,
    memory: Res<PlannerMemory>,
) {
    if *memory != PlannerMemory::Reserved {
        return;
    }
    for map in maps.iter() {
        if !(memory.is_changed() || map.changed) {
            continue;
        }
        let requests = requests.maps.entry(map.key).or_default();
        if requests.spare.is_empty() {
            requests.spare.push(GroupPlanner::new());
        }
        requests.spare[0].reserve(map.nav.grids());
    }
}

/// Serves each map's requests, the default map first, then the map entities in entity
/// order. With several maps with requests queued, each gets an equal share of the frame's
/// work (and at least one search); with one, the whole of it. The requests of a map that is
/// gone (its entity despawned, or its [`MapNavigation`](crate::MapNavigation) removed) are
/// dropped, and their units no longer wait.
pub(super) fn serve_requests(
    mut commands: Commands,
    mut requests: ResMut<MapRequests>,
    budget: Res<PathBudget>,
    mut work: ResMut<PathWork>,
    mut searches: ResMut<Searches>,
    mut changes: MessageReader<NavigationChanged>,
    (mut refused, mut stepping): (MessageWriter<OrderRefused>, MessageWriter<SteppingOff>),
    (record, long_orders): (Res<RecordSearches>, Res<LongOrders>),
    maps: Maps,
    sides: Res<Sides>,
    units: Query<Planned, With<Unit>>,
) {
    let mut changed: HashMap<MapKey, (HashSet<MovementClass>, Vec<Pos>)> = HashMap::new();
    for change in changes.read() {
        let (cheaper, cells) = changed.entry(change.map).or_default();
        cheaper.extend(change.cheaper.iter().copied());
        cells.extend_from_slice(&change.cells);
    }
    let requests = &mut *requests;
    requests.maps.retain(|&key, queued| {
        let here = key.is_none() || maps.get(key).is_some();
        if !here {
            for &unit in queued.waiting.keys() {
                if let Ok(mut entity) = commands.get_entity(unit) {
                    entity.remove::<Pending>();
                }
            }
        }
        here
    });
    let busy = maps
        .iter()
        .filter(|m| {
            requests
                .maps
                .get(&m.key)
                .is_some_and(|r| !r.queue.is_empty())
        })
        .count();
    // A budget of 0 still serves one search a frame.
    let share = (budget.frame_work() / busy.max(1)).max(1);
    let mut done = PathWork::default();
    for map in maps.iter() {
        let Some(queued) = requests.maps.get_mut(&map.key) else {
            continue;
        };
        queued.tick_tables();
        queued.hierarchy.tick(map.nav);
        if let Some((cheaper, cells)) = changed.get(&map.key) {
            queued.tables_changed(map.nav, cheaper);
            queued.hierarchy.changed(map.nav, cells);
            // The planners' fields are the old navigation's: plan the undecided units again.
            for (at, group) in queued.groups.drain(..).enumerate() {
                let undecided = group
                    .members
                    .iter()
                    .zip(&group.decided)
                    .filter(|(_, d)| !**d)
                    .map(|(e, _)| *e)
                    .collect();
                queued.queue[at].kind = Kind::Group(undecided);
                queued.spare.push(group.planner);
            }
        }
        if queued.queue.is_empty() {
            continue;
        }
        let mut frame = Frame {
            commands: commands.reborrow(),
            nav: map.nav,
            sides: &sides,
            units: OnTheMap {
                units: &units,
                map: map.key,
            },
            record: record.0,
            long_orders: *long_orders,
            planned: BTreeMap::new(),
            claimed: None,
            refused: Vec::new(),
            stepping: Vec::new(),
            records: Vec::new(),
            crowd: None,
            planner_made: false,
        };
        let (spent, last) = serve_map(queued, &mut frame, &budget, share);
        done.work += spent;
        done.last = last;
        let Frame {
            mut commands,
            planned,
            refused: refusals,
            stepping: stepping_off,
            records,
            ..
        } = frame;
        commands.insert_batch(planned);
        refused.write_batch(refusals);
        stepping.write_batch(stepping_off);
        for record in records {
            searches.push(record);
        }
        if !queued.shorts.is_empty() {
            let ids: HashSet<u64> = queued.queue.iter().map(|r| r.id).collect();
            queued.shorts.retain(|id, _| ids.contains(id));
        }
    }
    for queued in requests.maps.values() {
        done.queued += queued.queue.len();
        done.pending += queued.waiting.len();
    }
    *work = done;
}

/// Serves one map's queue with `frame_work` of the frame's work: one-unit requests and group
/// orders in queue order until the work is spent or group orders are under way. Returns the
/// work done and that of the last search.
fn serve_map(
    requests: &mut Requests,
    frame: &mut Frame,
    budget: &PathBudget,
    frame_work: usize,
) -> (usize, usize) {
    let (mut work, mut last) = (0, 0);
    while let Some(front) = requests.queue.front() {
        if work >= frame_work {
            break;
        }
        let left = frame_work - work;
        let (spent, its_last) = match front.kind {
            Kind::Group(_) => serve_groups(requests, frame, budget, left),
            Kind::Trip { .. } | Kind::Replan { .. } => serve_singles(requests, frame, left),
        };
        work += spent;
        last = its_last;
        // Orders still under way had their share of the frame.
        if !requests.groups.is_empty() {
            break;
        }
    }
    (work, last)
}

/// Starts the group orders at the front of the queue that can be planned side by side, one
/// after the other, each picking its tiles before the next starts, all in at most one order's
/// share of the frame ([`start_groups`]); then goes on with every order under way, side by
/// side on the compute task pool, each with what picking left of that share (two lanes of a
/// worker's work, less when less of `left` is left); applies what they decided in
/// queue order and pops the orders whose every unit is decided. Returns the work done and
/// that of the last step.
fn serve_groups(
    requests: &mut Requests,
    frame: &mut Frame,
    budget: &PathBudget,
    left: usize,
) -> (usize, usize) {
    let grids = frame.nav.grids();
    let mut singles = Vec::new();
    // Orders pick their tiles one after the other: at most one order's share of the frame.
    let picking = left.min(budget.work.saturating_mul(2));
    let (mut spent, mut last) = start_groups(
        requests,
        frame,
        budget.orders_side_by_side(),
        picking,
        &mut singles,
    );
    // Picking ran before the routing, on this thread: the orders route with what is left of
    // one order's share, so a frame takes no longer than one order's share of work.
    let count = requests.groups.len();
    let share = picking
        .saturating_sub(spent)
        .min((left - spent.min(left)) / count.max(1));
    let advances: Vec<Advance> = match &mut requests.groups[..] {
        // Picking the tiles took the frame's work.
        _ if share == 0 => Vec::new(),
        [] => Vec::new(),
        [group] => vec![group.planner.advance(grids, share)],
        groups => {
            let pool = ComputeTaskPool::get_or_init(TaskPool::default);
            pool.scope(|scope| {
                for group in groups {
                    let planner = &mut group.planner;
                    scope.spawn(async move { planner.advance(grids, share) });
                }
            })
        }
    };
    let mut finished = Vec::new();
    let groups = std::mem::take(&mut requests.groups);
    let mut advances = advances.into_iter();
    for (at, mut group) in groups.into_iter().enumerate() {
        let Some(advance) = advances.next() else {
            requests.groups.push(group);
            continue;
        };
        spent += advance.work;
        if advance.work > 0 {
            last = advance.last;
        }
        let done = advance.done;
        apply_group(requests, frame, &mut group, advance, &mut singles);
        if done {
            finished.push(at);
            requests.planned_orders.push((group.id, group.members));
            requests.spare.push(group.planner);
        } else {
            requests.groups.push(group);
        }
    }
    for at in finished.into_iter().rev() {
        requests.queue.remove(at);
    }
    // Units a group could not plan (they stand where their class cannot) go alone, right
    // after the orders still under way.
    let at = requests.groups.len();
    for (i, (id, goal, unit)) in singles.into_iter().enumerate() {
        let kind = Kind::Trip {
            unit,
            append: false,
        };
        requests.queue.insert(at + i, Request { id, goal, kind });
    }
    (spent, last)
}

/// Starts group orders from the front of the queue while fewer than `side_by_side` are under
/// way, every order under way has picked its tiles, the next request is a group order none of
/// whose units is in an order under way, the frame has work `left`, and a spare planner is
/// left or none was made this frame; each one picks its tiles
/// ([`GroupPlanner::advance_picking`]) before the next starts. Its planner sees as occupied
/// the tiles the orders under way picked and where their decided units go, and where every
/// other unit stands or goes: the tiles it would see had those orders been planned to the end
/// first, so no two orders pick one tile. An order that cannot start (a click outside the
/// map, after a navigation change) becomes one trip per unit, each refused with its own
/// reason. Returns the work done and that of the last step; units to plan alone go onto
/// `singles`.
fn start_groups(
    requests: &mut Requests,
    frame: &mut Frame,
    side_by_side: usize,
    left: usize,
    singles: &mut Vec<(u64, Pos, Entity)>,
) -> (usize, usize) {
    let nav = frame.nav;
    let grids = nav.grids();
    let (mut spent, mut last) = (0, 0);
    while requests.groups.len() < side_by_side && spent < left {
        // A new planner's memory is mapped as its first order plans (tens of megabytes on a
        // large map): one new planner a frame, so that a frame starting many orders side by
        // side does not map them all at once.
        if frame.planner_made && requests.spare.is_empty() {
            break;
        }
        let at = requests.groups.len();
        let Some(Request {
            id,
            goal,
            kind: Kind::Group(units),
        }) = requests.queue.get(at)
        else {
            break;
        };
        let (id, goal) = (*id, *goal);
        let mut picked = Vec::new();
        for group in &requests.groups {
            match group.planner.picked_tiles(grids) {
                Some(tiles) => picked.extend(tiles),
                None => return (spent, last),
            }
        }
        let under_way: EntityHashSet = requests
            .groups
            .iter()
            .flat_map(|g| g.members.iter().copied())
            .collect();
        if units.iter().any(|u| under_way.contains(u)) {
            break;
        }
        let mut members: Vec<((u32, u32, Entity), GroupUnit)> = units
            .iter()
            .filter(|&&e| requests.counts(e, id))
            .filter_map(|&e| frame.units.get(e))
            .map(|u| {
                let unit = GroupUnit {
                    start: u.tile.0,
                    class: u.class.index(),
                };
                (precedence(u.entity, u.precedence), unit)
            })
            .collect();
        members.sort_by_key(|m| m.0);
        let entities: Vec<Entity> = members.iter().map(|m| m.0.2).collect();
        let in_order: EntityHashSet = entities.iter().copied().collect();
        // The decided units of the orders under way go where their new paths end.
        let decided: EntityHashSet = requests
            .groups
            .iter()
            .flat_map(|g| {
                g.members
                    .iter()
                    .zip(&g.decided)
                    .filter(|(_, d)| **d)
                    .map(|(e, _)| *e)
            })
            .collect();
        // Tiles of units outside the order: where they stand, or where they are going.
        let occupied: Vec<Pos> = frame
            .units
            .iter()
            .filter(|u| !in_order.contains(&u.entity))
            .filter(|u| !under_way.contains(&u.entity) || decided.contains(&u.entity))
            .map(|u| frame.path_of(u.entity).map_or(u.tile.0, Path::goal))
            .chain(picked)
            .collect();
        let order_units: Vec<GroupUnit> = members.iter().map(|m| m.1).collect();
        let mut planner = requests.spare.pop().unwrap_or_else(|| {
            frame.planner_made = true;
            GroupPlanner::new()
        });
        let started = planner.start(
            grids,
            &GroupOrder {
                units: &order_units,
                click: goal,
                occupied: &occupied,
                board: nav.board(),
            },
        );
        if started.is_err() {
            // A click outside the map or grids of different sizes: orders are checked
            // before they are queued, so this only follows a navigation change; one by one
            // each unit still gets its reason.
            requests.spare.push(planner);
            requests.queue.remove(at);
            for unit in entities {
                let kind = Kind::Trip {
                    unit,
                    append: false,
                };
                requests.queue.insert(at, Request { id, goal, kind });
            }
            break;
        }
        let mut group = GroupUnderWay {
            id,
            goal,
            decided: vec![false; entities.len()],
            members: entities,
            started: Instant::now(),
            planner,
        };
        let advance = group.planner.advance_picking(grids, left - spent);
        spent += advance.work;
        if advance.work > 0 {
            last = advance.last;
        }
        let done = advance.done;
        apply_group(requests, frame, &mut group, advance, singles);
        if done {
            // Every unit refused or stranded.
            requests.spare.push(group.planner);
            requests.queue.remove(at);
        } else {
            requests.groups.push(group);
        }
    }
    (spent, last)
}

/// Applies what a group order's planner decided in one call: paths for the routed units,
/// refusals for the stranded ones; units standing where their class cannot are pushed onto
/// `singles` (`(order id, goal, unit)`), to be planned alone.
fn apply_group(
    requests: &mut Requests,
    frame: &mut Frame,
    group: &mut GroupUnderWay,
    advance: Advance,
    singles: &mut Vec<(u64, Pos, Entity)>,
) {
    let stats = group.planner.stats();
    let micros = group.started.elapsed().as_secs_f64() * 1e6;
    let (id, goal) = (group.id, group.goal);
    for (index, route) in advance.decided {
        group.decided[index] = true;
        let unit = group.members[index];
        if !requests.counts(unit, id) {
            continue;
        }
        if frame.units.get(unit).is_none() {
            requests.served(&mut frame.commands, unit, id);
            continue;
        }
        let reason = match route {
            Ok(Route { tile, path }) => {
                // (Its path, planned below, claims it for a set gathered later.)
                if let Some(claimed) = &mut frame.claimed {
                    claimed.insert(tile);
                }
                frame.records.push(SearchRecord {
                    unit: Some(unit),
                    algorithm: "group order",
                    found: true,
                    cost: path.cost,
                    steps: path.cells.len() - 1,
                    expanded: stats.settled + stats.searched,
                    micros,
                    expansions: Vec::new(),
                });
                frame
                    .planned
                    .insert(unit, Path::to_end(path.cells, path.cost));
                let mut entity = frame.commands.entity(unit);
                match requests.shorts.get(&id) {
                    Some(&short) => entity.insert(short),
                    None => entity.remove::<ShortOfGoal>(),
                };
                entity
                    .insert(Squad(id))
                    .remove::<StoppedShort>()
                    .entry::<Walk>()
                    .and_modify(|mut walk| *walk = Walk::default());
                requests.served(&mut frame.commands, unit, id);
                continue;
            }
            Err(Stranded::NoFreeTile(_)) => Refusal::NoFreeTile,
            Err(Stranded::Unreachable(_)) => Refusal::Unreachable {
                goal,
                why: NoPath::DifferentRegions,
            },
            // On ground its class cannot stand on: it steps off first, which the planner
            // does not model; planned alone, right after the group.
            Err(
                Stranded::StartBlocked(_)
                | Stranded::StartOutside { .. }
                | Stranded::UnknownClass { .. },
            ) => {
                singles.push((id, goal, unit));
                continue;
            }
        };
        frame.refuse(unit, goal, reason);
        requests.served(&mut frame.commands, unit, id);
    }
}

/// Serves the one-unit requests at the front of the queue side by side, as many as the
/// budget takes (see the [module docs](self)). Returns the work done and that of the last
/// search kept.
fn serve_singles(requests: &mut Requests, frame: &mut Frame, budget: usize) -> (usize, usize) {
    let (nav, long_orders) = (frame.nav, frame.long_orders);
    // The batch: the one-unit requests up to the next group order or the next request of a
    // unit already in it (a waypoint builds on the path before it), prepared in order (each
    // claims its goal, so the next picks another).
    let mut in_batch = HashSet::new();
    let batch: Vec<Prepared> = requests
        .queue
        .iter()
        .map_while(|r| match r.kind {
            Kind::Trip { unit, .. } | Kind::Replan { unit, .. } => {
                in_batch.insert(unit).then_some(r)
            }
            Kind::Group(_) => None,
        })
        .take(MAX_BATCH)
        .map(|r| prepare(r, frame))
        .collect();
    let around_units = batch
        .iter()
        .any(|p| matches!(p.what, Prepare::Search { avoid: Some(_), .. }));
    let (no_tiles, nobody) = (HashSet::new(), HashMap::new());
    let crowd = if around_units {
        frame.crowd()
    } else {
        (&no_tiles, &nobody)
    };
    // A large map's classes get landmark tables for their long searches, from their first.
    let large = nav.width() as usize * nav.height() as usize >= LANDMARK_CELLS;
    if large {
        for prepared in &batch {
            let index = prepared.class.index();
            let has = requests
                .tables
                .get(index)
                .is_some_and(|t| t.ready.is_some() || t.building.is_some());
            if prepared.long(nav.board()) && !has {
                requests.build_tables(nav, prepared.class);
            }
        }
    }
    // A smaller map's classes get its hierarchy's weights, from their first long search.
    if !large && long_orders == LongOrders::Hierarchy && requests.hierarchy.fits(nav) {
        for prepared in &batch {
            if prepared.long(nav.board()) {
                requests.hierarchy.want(nav, prepared.class);
            }
        }
    } else {
        // Not asked for, or for another map: dropped (a build under way is cancelled).
        requests.hierarchy = MapHierarchy::default();
    }
    let tables: Vec<Option<&Landmarks>> =
        requests.tables.iter().map(|t| t.ready.as_ref()).collect();
    let tables = &tables;
    let hierarchy = requests.hierarchy.ready();
    let hierarchy = &hierarchy;
    let pool = ComputeTaskPool::get_or_init(TaskPool::default);
    let workers = pool.thread_num().max(1);
    requests.contexts.resize_with(workers, SearchContext::new);
    requests.queries.resize_with(workers, CchQuery::new);
    let (next, finished) = (AtomicUsize::new(0), AtomicUsize::new(0));
    let batch_ref = &batch;
    let mut results: Vec<(usize, Option<Searched>)> = pool
        .scope(|scope| {
            for (context, query) in requests.contexts.iter_mut().zip(&mut requests.queries) {
                let (next, finished) = (&next, &finished);
                scope.spawn(async move {
                    let mut out = Vec::new();
                    while finished.load(Ordering::Acquire) < budget {
                        let i = next.fetch_add(1, Ordering::AcqRel);
                        let Some(prepared) = batch_ref.get(i) else {
                            break;
                        };
                        let long = prepared.long(nav.board());
                        let index = prepared.class.index();
                        let landmarks = tables.get(index).copied().flatten().filter(|_| long);
                        let guide = match (landmarks, hierarchy) {
                            (Some(tables), _) => Some(Guide::Landmarks(tables)),
                            (None, Some((cch, weights))) if long => {
                                weights.get(index).copied().flatten().map(|metric| {
                                    Guide::Hierarchy {
                                        cch,
                                        metric,
                                        query: &mut *query,
                                    }
                                })
                            }
                            _ => None,
                        };
                        let searched = search(context, nav, prepared, crowd, guide);
                        if let Some(s) = &searched {
                            finished.fetch_add(s.work, Ordering::AcqRel);
                        }
                        out.push((i, searched));
                    }
                    out
                });
            }
        })
        .into_iter()
        .flatten()
        .collect();
    results.sort_by_key(|r| r.0);
    // Keep the requests whose earlier requests' work is under the budget: the same ones
    // however the workers raced.
    let (mut spent, mut last) = (0, 0);
    let mut kept = 0;
    for ((i, searched), prepared) in results.into_iter().zip(batch) {
        debug_assert_eq!(i, kept, "every request before the cut was searched");
        if spent >= budget {
            break;
        }
        if let Some(s) = &searched {
            spent += s.work;
            last = s.work;
        }
        apply(requests, frame, prepared, searched);
        kept += 1;
    }
    requests.queue.drain(..kept);
    (spent, last)
}

/// The most one-unit requests prepared in one go (each claims a goal tile).
const MAX_BATCH: usize = 4096;

/// Picks a request's start and waypoints from the world as it is now.
fn prepare(request: &Request, frame: &mut Frame) -> Prepared {
    let (unit, append, replan, avoid_units) = match request.kind {
        Kind::Trip { unit, append } => (unit, append, false, false),
        Kind::Replan { unit, avoid_units } => (unit, false, true, avoid_units),
        Kind::Group(_) => unreachable!("groups are served by serve_group"),
    };
    let Some(u) = frame.units.get(unit) else {
        return Prepared {
            id: request.id,
            goal: request.goal,
            unit,
            class: MovementClass::default(),
            what: Prepare::Nothing,
        };
    };
    let class = *u.class;
    let grid = frame.nav.grid(class);
    let board = frame.nav.board();
    let record = frame.record || u.record;
    let what = if replan {
        match frame.path_of(unit).cloned() {
            None => Prepare::Nothing,
            Some(path) => {
                let mut waypoints = path.remaining_waypoints();
                // A goal someone else now stands on: settle for the nearest free tile.
                if avoid_units && let Some(goal) = waypoints.last_mut() {
                    let others = frame.crowd().0;
                    if *goal != u.tile.0
                        && others.contains(goal)
                        && let Some(free) = free_goal(grid, board, u.tile.0, *goal, others)
                    {
                        *goal = free;
                    }
                }
                // The unit in its way stands on its next tile; those that stopped it
                // before are walls too (and those that cannot make way: `Around::walls`).
                let avoid = avoid_units.then(|| {
                    let walk = u.walk.cloned().unwrap_or_default();
                    let mut blockers = walk.blockers;
                    blockers.extend(path.cells.get(path.next).copied());
                    let side = u.side();
                    Around {
                        yielders: yielders(frame.sides, side.team),
                        side,
                        class,
                        at: u.tile.0,
                        blockers,
                        walled: walk.walled,
                    }
                });
                Prepare::Search {
                    from: u.tile.0,
                    waypoints,
                    avoid,
                    record,
                    base: Some(path),
                    replan: true,
                }
            }
        }
    } else {
        let base = append.then(|| frame.path_of(unit).cloned()).flatten();
        let from = base.as_ref().map_or(u.tile.0, Path::goal);
        // A new trip gives up the tile the unit was going to.
        let own = frame.path_of(unit).map_or(u.tile.0, Path::goal);
        let claimed = frame.claimed();
        let released = !append && claimed.remove(&own);
        let goal = free_goal(grid, board, from, request.goal, claimed);
        if released {
            claimed.insert(own);
        }
        match goal {
            None => Prepare::Refuse(Refusal::NoFreeTile),
            Some(goal) => {
                claimed.insert(goal);
                Prepare::Search {
                    from,
                    waypoints: vec![goal],
                    avoid: None,
                    record,
                    base,
                    replan: false,
                }
            }
        }
    };
    Prepared {
        id: request.id,
        goal: request.goal,
        unit,
        class,
        what,
    }
}

/// Runs a prepared request's searches (on a worker), guided by its class's landmark tables
/// or its map's hierarchy when it has them.
fn search(
    context: &mut SearchContext,
    nav: &Navigation,
    prepared: &Prepared,
    crowd: Crowd,
    guide: Option<Guide>,
) -> Option<Searched> {
    let Prepare::Search {
        from,
        waypoints,
        avoid,
        record,
        ..
    } = &prepared.what
    else {
        return None;
    };
    let mut records = Vec::new();
    let recorder = Recorder {
        unit: prepared.unit,
        record: *record,
    };
    let walls = avoid
        .as_ref()
        .map(|around| move |pos: Pos| around.walls(nav, crowd, pos));
    let found = search_legs(
        context,
        &mut records,
        recorder,
        nav.grid(prepared.class),
        nav.board(),
        *from,
        waypoints,
        walls.as_ref().map(|w| w as &dyn Fn(Pos) -> bool),
        guide,
    );
    let work = records.iter().map(|r| r.expanded).sum();
    Some(Searched {
        found,
        records,
        work,
    })
}

/// Applies a served one-unit request.
fn apply(
    requests: &mut Requests,
    frame: &mut Frame,
    prepared: Prepared,
    searched: Option<Searched>,
) {
    let Prepared {
        id,
        goal,
        unit,
        class,
        what,
    } = prepared;
    if requests.counts(unit, id) {
        match (what, searched) {
            (Prepare::Refuse(reason), _) => frame.refuse(unit, goal, reason),
            (
                Prepare::Search {
                    base,
                    replan,
                    avoid,
                    from,
                    ..
                },
                Some(searched),
            ) => {
                frame.records.extend(searched.records);
                match searched.found {
                    Ok(new) => {
                        if let Some(message) = SteppingOff::of(unit, &new, frame.nav, class) {
                            frame.stepping.push(message);
                        }
                        let path = match base {
                            // The walk goes on: its `Walk` stays, but for the wait, which
                            // was for the old way's next tile.
                            Some(old) if replan => {
                                frame
                                    .commands
                                    .entity(unit)
                                    .entry::<Walk>()
                                    .and_modify(|mut walk| walk.waited = 0.0);
                                Path {
                                    making_way: old.making_way,
                                    ..new
                                }
                            }
                            Some(old) if old.goal() == from => old.extended(new),
                            _ => {
                                // A trip of its own: it leaves its group order's side.
                                frame
                                    .commands
                                    .entity(unit)
                                    .remove::<(Squad, StoppedShort)>()
                                    .entry::<Walk>()
                                    .and_modify(|mut walk| *walk = Walk::default());
                                requests.planned_alone.push(unit);
                                new
                            }
                        };
                        if !replan {
                            // The trip's last goal decides whether it stops short.
                            let mut entity = frame.commands.entity(unit);
                            match requests.shorts.get(&id) {
                                Some(&short) => entity.insert(short),
                                None => entity.remove::<ShortOfGoal>(),
                            };
                        }
                        frame.claimed().insert(path.goal());
                        frame.planned.insert(unit, path);
                    }
                    // No way around the units now: it keeps its path and waits, and the
                    // other side's units at rest in it make way from now on, as they wall
                    // it in (movement counts the tries and gives up after the last).
                    Err(_) if avoid.is_some() => {
                        frame
                            .commands
                            .entity(unit)
                            .entry::<Walk>()
                            .and_modify(|mut walk| {
                                walk.wall_in();
                            });
                    }
                    Err(why) if replan => {
                        let goal = base.as_ref().map_or(goal, Path::goal);
                        frame.planned.remove(&unit);
                        frame
                            .commands
                            .entity(unit)
                            .remove::<Path>()
                            .insert(StoppedShort);
                        frame.refuse(unit, goal, Refusal::NoWayOn { goal, why });
                    }
                    Err(why) => frame.refuse(unit, goal, Refusal::NoPath { why }),
                }
            }
            _ => {}
        }
    }
    requests.served(&mut frame.commands, unit, id);
}

#[cfg(test)]
mod tests {
    use tilewalk_path::Board;

    use super::*;
    use crate::navigation::ClassSpec;
    use crate::{MoveOrder, Tile, TilewalkPlugin};

    /// A re-plan around units walks through the units at rest of the sides that make way
    /// for the walker's, as the [`Sides`] say, and goes around the others'.
    #[test]
    fn a_replan_walks_through_the_sides_that_make_way_for_the_walker() {
        let nav = Navigation::uniform(Board::default(), 3, 1, ClassSpec::new("foot", 3.0));
        let nav = nav.unwrap();
        let mut sides = Sides::default();
        let villagers = sides.push(crate::Side::new("villagers").makes_way_for([Team::BLUE]));
        let at = Pos::new(1, 0);
        let walls = |walker: Team, resting: Team| {
            let held = HashSet::from_iter([at]);
            let side = |team| Side { team, squad: None };
            let class = MovementClass(0);
            let rest = HashMap::from_iter([(
                at,
                Resting {
                    side: side(resting),
                    class,
                },
            )]);
            let around = Around {
                side: side(walker),
                class,
                at: Pos::new(0, 0),
                blockers: Vec::new(),
                walled: false,
                yielders: yielders(&sides, walker),
            };
            around.walls(&nav, (&held, &rest), at)
        };
        // The villagers make way for blue, not for red; blue and red make way for nobody else.
        assert!(!walls(Team::BLUE, villagers));
        assert!(walls(Team::RED, villagers));
        assert!(walls(Team::BLUE, Team::RED));
        assert!(walls(villagers, Team::BLUE));
        assert!(!walls(Team::RED, Team::RED));
    }

    #[test]
    fn a_frame_makes_one_new_planner_and_orders_reuse_the_spare_ones() {
        // Eight orders of two units each, with 16 workers (eight orders side by side) and the
        // work for each to pick its tiles in a frame but take several to route: the first
        // frame makes one planner and starts one order, each later frame one more until a
        // planner is spare, and the next eight orders start in one frame, seven of them with
        // the planners made before.
        let classes = vec![ClassSpec::new("foot", 3.0)];
        // Grass and mud in stripes: a weighted class's order builds fields.
        let nav = Navigation::from_fn(Board::default(), 256, 64, classes, |_, p| {
            Some(if p.x % 3 == 0 { 2.0 } else { 1.0 })
        });
        let mut app = App::new();
        let budget = PathBudget {
            work: 50,
            workers: Some(16),
        };
        app.add_plugins((
            MinimalPlugins,
            TilewalkPlugin {
                path_budget: budget,
                ..default()
            },
        ))
        .insert_resource(nav.unwrap());
        let orders = |app: &mut App, row: u32| {
            let orders: Vec<MoveOrder> = (0..8)
                .map(|i| {
                    let class = MovementClass(0);
                    let mut unit = |x| {
                        let tile = Tile(Pos::new(x, row));
                        app.world_mut().spawn((Unit, class, tile)).id()
                    };
                    let units = vec![unit(i * 32), unit(i * 32 + 1)];
                    let goal = Pos::new(i * 32 + 4, row + 40);
                    MoveOrder::new(units, goal)
                })
                .collect();
            app.world_mut().write_message_batch(orders);
        };
        let planners = |app: &App| {
            let requests = &app.world().resource::<MapRequests>().maps[&None];
            requests.groups.len() + requests.spare.len()
        };
        let planned = |app: &App| {
            let work = app.world().resource::<PathWork>();
            work.queued == 0 && work.pending == 0
        };
        orders(&mut app, 0);
        let mut made = Vec::new();
        while !planned(&app) || made.is_empty() {
            app.update();
            made.push(planners(&app));
            assert!(made.len() < 100, "still planning: {made:?}");
        }
        // One more planner a frame until an order finishes and leaves its planner spare.
        assert_eq!(made[..6], [1, 2, 3, 4, 5, 6], "{made:?}");
        assert!(made.windows(2).all(|w| w[1] <= w[0] + 1), "{made:?}");
        assert_eq!(made.last(), Some(&7), "{made:?}");
        orders(&mut app, 1);
        app.update();
        let requests = &app.world().resource::<MapRequests>().maps[&None];
        assert_eq!((requests.groups.len(), requests.spare.len()), (8, 0));
    }
}
