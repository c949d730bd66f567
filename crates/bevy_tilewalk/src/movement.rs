//! Walking units along their `Path`, tile centre to tile centre, at the speed the cost model
//! gives: a step takes step length × the entered tile's cost ÷ the unit's speed.
//!
//! # Crowds
//!
//! A unit holds one tile: the one it stands on or is stepping into (the tile it leaves is free
//! at once, so a column walks nose to tail). Two units never hold the same tile (but for a
//! tactics move, which passes through allies; its range checked every tile). Every frame
//! the units whose step has ended decide, and the units under way keep the tile they step
//! into. The rules are priority inheritance with backtracking (PIBT, Okumura et al., AIJ
//! 2022) in continuous time, as Causal-PIBT (AAAI 2021) has it for moves of different
//! durations, with goal swaps between squadmates (TSWAP, Okumura and Défago, AIJ 2023):
//!
//! - **priority**: the waiting units decide oldest walk first ([`Walk`]'s age: the seconds
//!   since its order, kept while it waits, so no unit waits forever), then in [`Precedence`]
//!   order (so a run replays identically, whatever order the world stores them in); units
//!   walking back after making way decide after every walker;
//! - **a free tile** is theirs;
//! - **a sidestep**: when the next tile is held, a free neighbour from which the tile after
//!   it costs no more in two steps is taken instead (the cheapest; among equals the one with
//!   the fewest units heading the other way around it). The path costs no more, so a
//!   cheapest path stays one: a column waiting to join one file walks beside it on the
//!   equally cheap tiles, and units funnelling into a gap spread over it;
//! - **a push**: a standing unit on the next tile, of any side, at rest or waiting, is
//!   pushed. A waiting one steps on along its own way if it can (pushing in turn); one that
//!   waits for a unit under way keeps its place, as it moves on by itself, and the pusher
//!   queues; otherwise it steps aside, onto a free tile no waiting unit wants first, then
//!   onto any free tile, fewest units heading against it around first, then onto a tile
//!   whose standing holder it pushes in turn, and as a last resort onto its pusher's tile
//!   (the two pass each other). Never onto the tile where its pusher goes next. A push that
//!   fails comes back (backtracking), and the pusher tries its next choice; the pushed unit
//!   stays, and is not pushed again that frame (each unit decides once a frame, as in PIBT,
//!   so a frame's pushes cost O(units) however packed the crowd). A unit at rest
//!   (on its goal, stopped, or never ordered) pushed aside walks back to its tile once the
//!   way is clear ([`Path::aside`]; no second arrival); a pushed walker walks back onto its
//!   way from where it was pushed;
//! - **squadmates trade goals** (two units are **squadmates** when one group order
//!   ([`Squad`]) sent them and they are of one movement class: their tiles came from one
//!   order, so either may end on either's; a unit sent alone has none, nor has a unit whose
//!   walk ended short of its tile, [`StoppedShort`]). A squadmate at rest on the next tile
//!   takes over the rest of the walk ([`Path::rest`], with the walker's [`Walk`]) and the
//!   walker ends on its tile; a waiting squadmate pushed while stuck, or heading across the
//!   pusher, takes over the pusher's walk from its own tile (it steps on to the pusher's
//!   tile after) and the pusher goes on with its walk; a ring of waiting squadmates, each
//!   wanting the next one's tile, rotate their walks: each takes the walk of the one behind
//!   it from where it stands;
//! - **a ring** of other standing units, each waiting for the next one's tile, steps at
//!   once (two units meeting head-on on a bridge pass each other on the edge between their
//!   tiles);
//! - **a queue**: a tile held by a unit under way, by one moving into it this frame, or by a
//!   unit waiting for one of those, or for its path ([`Pending`]), is waited for;
//! - **a lane** (units of group orders only): a walker that has queued `LANE_WAIT_SECS`
//!   (a quarter second) or more shifts the rest of its path one tile sideways onto a free
//!   neighbour, all its tiles by the same offset, and comes back to its path as late as the
//!   lane's extra cost, in seconds of walking, stays within the seconds it has queued. A
//!   lane beside units heading against it costs a step more for each of them (continuum
//!   crowds' discomfort, Treuille et al. 2006), so two streams meeting head-on shift apart
//!   and pass side by side. The walk still ends on its tile; it is no longer a cheapest path;
//! - **blocked**: a unit at rest that cannot be pushed (no tile it can enter is free or
//!   frees, nor its pusher's), or any unit at rest on the way of a unit walking back after
//!   making way: after [`WAIT_FOR_IDLE_SECS`] the walker re-plans around units (to the nearest
//!   free tile when its own is taken), and gives up after [`MAX_REPLANS`] tries without
//!   getting nearer its goal, once more after it is walled in ([`Walk::walled`]: its
//!   re-plans then walk through the other side's units). A unit walking back after making
//!   way pushes walkers only: it waits for a unit making way too, and stays where it is
//!   once a unit at rest holds its tile.
//!
//! Why every unit arrives: the unit with the oldest walk is never pushed, and every frame
//! it stands it steps: its next tile is free, held by a unit under way (which stands a step
//! later and can be pushed), or held by a standing unit that is pushed (a pushed unit can
//! always step onto its pusher's tile, unless its class cannot enter it). So it reaches its
//! goal, and the next oldest walk is the oldest. What PIBT needs a graph's cycles for, a
//! pass on the edge between two tiles gives here, on corridors and dead ends too.
//!
//! Why these rules and not space-time reservations (cooperative A*, WHCA*, Silver 2005)?
//! Reservations plan every unit in space and time, a search per unit per window, and need
//! the time of every step in advance, which a designer's hot reload of the terrain costs
//! changes mid-march. These rules are local, cost O(units) a frame plus the pushes, and
//! keep the planned paths of units sent alone but for the detours of pushes.

use bevy::ecs::entity::{EntityHashMap, EntityHashSet};
use bevy::ecs::query::QueryData;
use bevy::ecs::schedule::InternedScheduleLabel;
use bevy::platform::collections::HashMap;
use bevy::prelude::*;
use tilewalk_path::{Board, Pos, SearchContext, SearchOptions};

use crate::TilewalkSystems;
use crate::maps::{MapKey, Maps, OnMap, any_map, map_of};
use crate::navigation::Navigation;
use crate::pathing::{
    OrderRefused, Path, Pending, Refusal, Replan, ShortOfGoal, Side, Squad, StoppedShort,
};
use crate::units::{Motion, MovementClass, Precedence, Stride, Team, Tile, Unit, Walk, precedence};

/// How long a unit waits for a tile held by a unit at rest that will not make way (another
/// side or class) before it looks for a way around.
pub const WAIT_FOR_IDLE_SECS: f32 = 0.5;
/// Re-plans around units at rest a unit may make without getting nearer its goal before it
/// gives up its order. Each step nearer its goal than it has been since the order (in
/// tiles, the larger of the column and row differences) gives it these re-plans again, so
/// a long march through a crowd, blocked many times on the way, does not spend them before
/// its last tile; that distance only shrinks from one fresh count to the next, so a walk
/// still ends. A walker walled in by the other side ([`Walk::walled`]) has them once more.
/// More lets a walker try more ways around a crowd that keeps moving; fewer gives up sooner
/// on a way that stays shut (each re-plan is a search, and waits [`WAIT_FOR_IDLE_SECS`]
/// first).
pub const MAX_REPLANS: u32 = 3;

/// How long `class` takes to walk from `start` to `end` on `nav` with no other unit on the
/// map, the ideal a crowd's walks are measured against (`simulate --stats`'s
/// `free_makespan_s`): the cost of its cheapest path over its speed (a step takes its length
/// times the entered tile's cost over the class's speed in seconds). 0 when it has none.
pub fn free_walk_seconds(
    context: &mut SearchContext,
    nav: &Navigation,
    class: MovementClass,
    start: Pos,
    end: Pos,
) -> f64 {
    context
        .search(nav.grid(class), start, end, &SearchOptions::on(nav.board()))
        .map_or(0.0, |found| found.path.cost / nav.speed(class))
}

/// A unit reached the end of its path: a message and, on the unit, an entity event
/// (`commands.entity(unit).observe(|arrived: On<Arrived>| ...)`).
#[derive(Message, EntityEvent, Reflect, Clone, Copy, Debug, PartialEq)]
#[reflect(opaque, Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct Arrived {
    /// The unit.
    #[event_target]
    pub unit: Entity,
    /// The tile it stands on.
    pub tile: Pos,
    /// Simulated seconds since the app started, exact to the step (not to the frame).
    pub seconds: f64,
    /// It was sent as near as it could get to a goal it cannot reach, and stopped short of
    /// it ([`UnreachableGoals::Nearest`](crate::UnreachableGoals::Nearest)): the goal, and why.
    pub short_of_goal: Option<ShortOfGoal>,
}

pub(crate) fn plugin(app: &mut App, schedule: InternedScheduleLabel) {
    app.add_message::<Arrived>().add_systems(
        schedule,
        follow_paths.in_set(TilewalkSystems::Move).run_if(any_map),
    );
}

/// What walking reads and moves of a unit.
#[derive(QueryData)]
#[query_data(mutable)]
pub(crate) struct Walker {
    entity: Entity,
    team: &'static Team,
    class: &'static MovementClass,
    tile: &'static mut Tile,
    motion: &'static mut Motion,
    path: Option<&'static mut Path>,
    walk: Option<&'static mut Walk>,
    precedence: Option<&'static Precedence>,
    pending: Has<Pending>,
    squad: Option<&'static Squad>,
    stopped_short: Has<StoppedShort>,
    short_of_goal: Option<&'static ShortOfGoal>,
    on_map: Option<&'static OnMap>,
}

/// What a unit is doing this frame, as the others see it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Doing {
    /// No path and no step under way.
    Resting,
    /// Standing, waiting for its path (see [`Pending`]).
    Pending,
    /// A step under way.
    Stepping,
    /// Standing with a next tile to enter: the index in the frame's waiting units.
    Waiting(usize),
}

/// A unit standing still this frame with a next tile to enter.
#[derive(Clone, Copy, Debug)]
struct Waiter {
    /// Where it comes in the units' order: its [`Precedence`], then its entity's index.
    rank: (u32, u32),
    entity: Entity,
    from: Pos,
    want: Pos,
    /// The cost of entering `want` for its class, `None` when it became impassable.
    cost: Option<f64>,
    /// Simulated time left over in this frame after its last step ended.
    left: f64,
    /// `want` is the last tile of its path.
    last: bool,
    /// The tile after `want`, if any.
    after: Option<Pos>,
    pass_through: bool,
    /// It is making way ([`Path::aside`]): it yields its tiles to the units walking on.
    making_way: bool,
    /// Seconds since its walk began ([`Walk::age`]): its priority.
    age: f32,
}

impl Waiter {
    /// Where it is heading: the step from its tile to the one it wants.
    fn heading(&self) -> (i32, i32) {
        heading(self.from, self.want)
    }
}

/// What a waiting unit does this frame.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Outcome {
    Step,
    /// Steps onto this free tile instead of its next one, which is held: from there the
    /// tile after its next one costs what it would have through the next one
    /// ([`sidestep`]).
    Sidestep(Pos),
    /// Pushed off its way by a unit of higher priority: steps onto this tile, and walks
    /// back to its way from there.
    Aside(Pos),
    /// Waits behind a unit that is walking or waiting itself.
    Queue,
    /// Waits for a unit at rest that cannot make way this frame.
    Blocked {
        holder: Entity,
    },
    /// One of a ring of squadmates each waiting for the next one's tile: takes the walk of
    /// the squadmate at this index, which waits for its tile, from its own tile on.
    Rotate(usize),
    /// A squadmate blocked on its way, pushed by the squadmate at this index: takes over
    /// that one's walk from its own tile (it steps on to the tile after) and hands its own on.
    TakeOver(usize),
    /// Hands the rest of its walk to the squadmate resting on its next tile.
    HandOver {
        holder: Entity,
    },
}

/// Walks the units of each map by the crowd rules, map by map: a unit meets only the units
/// of its own map. The units of a map without a navigation stand.
pub(crate) fn follow_paths(
    mut commands: Commands,
    time: Res<Time>,
    maps: Maps,
    mut units: Query<Walker, With<Unit>>,
    mut arrived: MessageWriter<Arrived>,
    mut replan: MessageWriter<Replan>,
    mut refused: MessageWriter<OrderRefused>,
    mut scratch: Local<EntityHashMap<Scratch>>,
    mut world_scratch: Local<Scratch>,
) {
    for map in maps.iter() {
        let memory = match map.key {
            None => &mut *world_scratch,
            Some(entity) => scratch.entry(entity).or_default(),
        };
        walk_map(
            &mut commands,
            &time,
            map.nav,
            map.key,
            &mut units,
            memory,
            (&mut arrived, &mut replan, &mut refused),
        );
    }
    // A map that is gone leaves its memory.
    if !scratch.is_empty() {
        scratch.retain(|&map, _| maps.get(Some(map)).is_some());
    }
}

/// [`follow_paths`] on the map `key`.
fn walk_map(
    commands: &mut Commands,
    time: &Time,
    nav: &Navigation,
    key: MapKey,
    units: &mut Query<Walker, With<Unit>>,
    scratch: &mut Scratch,
    (arrived, replan, refused): (
        &mut MessageWriter<Arrived>,
        &mut MessageWriter<Replan>,
        &mut MessageWriter<OrderRefused>,
    ),
) {
    let Scratch {
        holders,
        doing,
        waiters,
        arrivals,
        headings,
        claimed,
        wanted,
    } = scratch;
    // 1. Steps under way go on; units whose path is done arrive; the others want a tile.
    take_stock(
        commands, time, nav, key, units, holders, doing, waiters, arrivals, headings,
    );
    arrived.write_batch(arrivals.iter().map(|a| a.1));
    // 2. Who steps, who waits, who is pushed, who trades.
    let settled = Resolver::new(
        nav,
        waiters,
        holders,
        doing,
        headings,
        std::mem::take(claimed),
        std::mem::take(wanted),
    )
    .settle();
    // 3. Walks change hands, steps start, waits run out.
    let rewrites = trade_walks(commands, nav, units, waiters, doing, &settled);
    (*claimed, *wanted) = act(
        commands, nav, units, waiters, settled, rewrites, holders, doing, headings, replan, refused,
    );
}

/// Phase 1 of [`follow_paths`]: every unit's step under way goes on, units whose path is
/// done arrive (into `arrivals`, in [`Precedence`] order), and the others want their next
/// tile (`waiters`, in that order); `holders` and `doing` say who holds each tile and what
/// each unit is doing, `headings` which way the units on each tile are going.
fn take_stock(
    commands: &mut Commands,
    time: &Time,
    nav: &Navigation,
    key: MapKey,
    units: &mut Query<Walker, With<Unit>>,
    holders: &mut TileMap<Entity>,
    doing: &mut EntityHashMap<Doer>,
    waiters: &mut Vec<Waiter>,
    arrivals: &mut Vec<((u32, u32), Arrived)>,
    headings: &mut TileMap<(i32, i32)>,
) {
    let now = time.elapsed_secs_f64();
    let delta = time.delta_secs();
    // Only the map's units: with one map, every unit.
    let count = match key {
        None => units.iter().len(),
        Some(_) => units.iter().filter(|u| map_of(u.on_map) == key).count(),
    };
    holders.clear(nav, count);
    doing.clear();
    waiters.clear();
    arrivals.clear();
    headings.clear(nav, count);
    for mut unit in units.iter_mut() {
        if map_of(unit.on_map) != key {
            continue;
        }
        let (precedence, index, _) = precedence(unit.entity, unit.precedence);
        let rank = (precedence, index);
        holders.insert(unit.tile.0, unit.entity);
        let mut left = time.delta_secs_f64();
        // `Motion` changes only for units under way: `Changed<Motion>` finds them.
        if unit.motion.stride.is_some() {
            let motion = &mut *unit.motion;
            if let Some(stride) = &mut motion.stride {
                stride.elapsed += left;
                left = stride.elapsed - stride.duration;
                if left >= 0.0 {
                    motion.stride = None;
                } else {
                    headings.insert(stride.to, heading(stride.from, stride.to));
                }
            }
        }
        let age = match (unit.path.as_deref(), unit.walk.as_deref_mut()) {
            (Some(path), Some(walk)) if !path.making_way => {
                walk.age += delta;
                walk.age
            }
            (_, walk) => walk.map_or(0.0, |w| w.age),
        };
        let what = match (&unit.motion.stride, unit.path.as_deref()) {
            (Some(_), _) => Doing::Stepping,
            (None, _) if unit.pending => Doing::Pending,
            (None, None) => Doing::Resting,
            (None, Some(path)) => match path.cells.get(path.next) {
                None => {
                    if !path.making_way {
                        let arrival = Arrived {
                            unit: unit.entity,
                            tile: unit.tile.0,
                            seconds: now - left,
                            short_of_goal: unit.short_of_goal.copied(),
                        };
                        arrivals.push((rank, arrival));
                    }
                    commands.entity(unit.entity).remove::<Path>();
                    Doing::Resting
                }
                Some(&want) => {
                    headings.insert(unit.tile.0, heading(unit.tile.0, want));
                    waiters.push(Waiter {
                        rank,
                        entity: unit.entity,
                        from: unit.tile.0,
                        want,
                        cost: nav.grid(*unit.class).cost(want),
                        left,
                        last: path.next + 1 == path.cells.len(),
                        after: path.cells.get(path.next + 1).copied(),
                        pass_through: path.pass_through,
                        making_way: path.making_way,
                        age,
                    });
                    Doing::Waiting(waiters.len() - 1)
                }
            },
        };
        doing.insert(
            unit.entity,
            Doer {
                what,
                side: Side {
                    team: *unit.team,
                    squad: unit.squad.copied(),
                },
                class: *unit.class,
                stopped_short: unit.stopped_short,
                tile: unit.tile.0,
            },
        );
    }
    // Units take their turns in `Precedence` order, not in the order the world happens to
    // store them: who steps first into a tile decides the rest. Only the waiting units and
    // the arrivals are sorted, not every unit.
    arrivals.sort_unstable_by_key(|a| a.0);
    waiters.sort_unstable_by_key(|w| w.rank);
    for (i, w) in waiters.iter().enumerate() {
        if let Some(doer) = doing.get_mut(&w.entity) {
            doer.what = Doing::Waiting(i);
        }
    }
}

/// The step from `from` to `to`, as a direction.
fn heading(from: Pos, to: Pos) -> (i32, i32) {
    (
        (i64::from(to.x) - i64::from(from.x)).signum() as i32,
        (i64::from(to.y) - i64::from(from.y)).signum() as i32,
    )
}

/// How many units on `at` and the tiles around it head against `heading` (the angle
/// between their ways over a right angle): the discomfort of walking there, as continuum
/// crowds price a cell by the crowd's flow through it (Treuille et al. 2006).
fn opposing(headings: &TileMap<(i32, i32)>, at: Pos, heading: (i32, i32)) -> u32 {
    let mut count = 0;
    for dy in -1..=1_i64 {
        for dx in -1..=1_i64 {
            let (Ok(x), Ok(y)) = (
                u32::try_from(i64::from(at.x) + dx),
                u32::try_from(i64::from(at.y) + dy),
            ) else {
                continue;
            };
            if let Some(&(hx, hy)) = headings.get(&Pos::new(x, y))
                && hx * heading.0 + hy * heading.1 < 0
            {
                count += 1;
            }
        }
    }
    count
}

/// The new walks of phase 3, read before any is changed: the rings of squadmates take each
/// other's walks (from the next frame: inserted as components), and the squadmates that
/// trade walks while stepping on ([`Outcome::TakeOver`] and its pusher) get their new
/// tiles, returned by waiting unit's index, which [`act`] puts in place before they step.
fn trade_walks(
    commands: &mut Commands,
    nav: &Navigation,
    units: &Query<Walker, With<Unit>>,
    waiters: &[Waiter],
    doing: &EntityHashMap<Doer>,
    settled: &Settled,
) -> HashMap<usize, (Vec<Pos>, usize)> {
    let path = |i: usize| units.get(waiters[i].entity).ok().and_then(|u| u.path);
    for (w, outcome) in waiters.iter().zip(&settled.outcomes) {
        let Outcome::Rotate(other) = *outcome else {
            continue;
        };
        // Takes the other's walk from the tile it stands on: the other's next tile.
        if let Ok(theirs) = units.get(waiters[other].entity)
            && let Some(path) = theirs.path
        {
            let cost = walk_cost(nav, doing[&w.entity].class, &path.cells[path.next..]);
            let walk = theirs.walk.cloned().unwrap_or_default();
            commands
                .entity(w.entity)
                .insert((path.rest(path.next, cost), walk));
        }
    }
    let mut rewrites = HashMap::default();
    for &(pusher, taker) in &settled.handed {
        let (Some(mine), Some(theirs)) = (path(pusher), path(taker)) else {
            continue;
        };
        // The pusher goes on from the taker's tile along the taker's way; the taker from its
        // own tile along the pusher's.
        let mut cells = mine.cells[..=mine.next].to_vec();
        cells.extend_from_slice(theirs.remaining());
        rewrites.insert(pusher, (cells, mine.next));
        rewrites.insert(taker, (mine.cells[mine.next..].to_vec(), 1));
    }
    rewrites
}

/// Phase 3 of [`follow_paths`]: each waiting unit does what [`Resolver::settle`] decided:
/// steps (aside, past or pushed), queues (and may take a lane), has a squadmate take over
/// its walk, or waits for a unit at rest and re-plans or gives up; the units at rest that
/// were pushed step aside, to come back once the way is clear.
fn act(
    commands: &mut Commands,
    nav: &Navigation,
    units: &mut Query<Walker, With<Unit>>,
    waiters: &[Waiter],
    settled: Settled,
    mut rewrites: HashMap<usize, (Vec<Pos>, usize)>,
    holders: &TileMap<Entity>,
    doing: &EntityHashMap<Doer>,
    headings: &TileMap<(i32, i32)>,
    replan: &mut MessageWriter<Replan>,
    refused: &mut MessageWriter<OrderRefused>,
) -> (TileMap<Entity>, TileMap<()>) {
    let Settled {
        outcomes,
        aside,
        mut claimed,
        leaving,
        wanted,
        ..
    } = settled;
    for (i, (w, outcome)) in waiters.iter().zip(outcomes).enumerate() {
        let Ok(unit) = units.get_mut(w.entity) else {
            continue;
        };
        let WalkerItem {
            class,
            mut tile,
            mut motion,
            path: Some(mut path),
            walk: Some(mut walk),
            squad,
            ..
        } = unit
        else {
            continue;
        };
        let class = *class;
        if let Some((cells, next)) = rewrites.remove(&i) {
            path.cost = walk_cost(nav, class, &cells);
            path.waypoints = vec![cells.len() - 1];
            path.cells = cells;
            path.next = next;
        }
        match outcome {
            Outcome::Step | Outcome::Sidestep(_) | Outcome::Aside(_) | Outcome::TakeOver(_) => {
                if !matches!(outcome, Outcome::Aside(_)) {
                    walk.waited = 0.0;
                    walk.queued = 0.0;
                }
                let from = w.from;
                match outcome {
                    Outcome::Sidestep(beside) => {
                        let next = path.next;
                        path.cells[next] = beside;
                    }
                    Outcome::Aside(onto) => {
                        // Back to its way from there: onto its next tile if it is a step
                        // away, else back onto the tile it left first.
                        let mut detour = vec![onto];
                        if !(nav.board().distance(onto, w.want) == 1
                            && nav.can_step(class, onto, w.want))
                        {
                            detour.push(from);
                        }
                        path.detour(&detour);
                        path.cost = walk_cost(nav, class, &path.cells);
                    }
                    _ => {}
                }
                let to = path.cells[path.next];
                begin_step(
                    nav,
                    class,
                    &mut path,
                    &mut walk,
                    &mut tile,
                    &mut motion,
                    from,
                    to,
                    w.left,
                );
            }
            Outcome::Queue => {
                walk.waited = 0.0;
                walk.queued += w.left as f32;
                let queued = f64::from(walk.queued);
                if queued >= LANE_WAIT_SECS
                    && squad.is_some()
                    && !w.making_way
                    && !w.pass_through
                    && let Some((cells, extra)) = lane(
                        nav,
                        // The tiles held once this frame's steps have started.
                        |p| {
                            claimed.contains_key(&p)
                                || holders.get(&p).is_some_and(|u| !leaving.contains(u))
                        },
                        headings,
                        class,
                        w.from,
                        path.remaining(),
                        queued * nav.speed(class),
                    )
                {
                    let next = path.next;
                    path.cells.truncate(next);
                    path.cells.extend(cells);
                    path.cost += extra;
                    let to = path.cells[next];
                    claimed.insert(to, w.entity);
                    walk.queued = 0.0;
                    begin_step(
                        nav,
                        class,
                        &mut path,
                        &mut walk,
                        &mut tile,
                        &mut motion,
                        w.from,
                        to,
                        w.left,
                    );
                }
            }
            Outcome::Rotate(_) => walk.waited = 0.0,
            Outcome::HandOver { holder } => {
                let at = path.next;
                let rest = walk_cost(nav, class, &path.cells[at..]);
                commands
                    .entity(holder)
                    .insert((path.rest(at, rest), walk.clone()));
                let head = walk_cost(nav, class, &path.cells[..=at]);
                path.stop_at(at, head);
            }
            Outcome::Blocked { holder } => {
                walk.waited += w.left as f32;
                if walk.waited < WAIT_FOR_IDLE_SECS {
                    continue;
                }
                walk.waited = 0.0;
                // A unit coming back after making way whose tile was taken meanwhile by a
                // unit at rest stays where it is.
                if w.making_way {
                    commands.entity(w.entity).remove::<Path>();
                    continue;
                }
                if walk.replans < MAX_REPLANS {
                    walk.replans += 1;
                    if !walk.blockers.contains(&w.want) {
                        walk.blockers.push(w.want);
                    }
                    replan.write(Replan {
                        unit: w.entity,
                        avoid_units: true,
                    });
                    continue;
                }
                // Its ways around them ran out: the other side's units at rest make way
                // from now on, and it has its re-plans again (once).
                if walk.wall_in() {
                    continue;
                }
                let goal = path.goal();
                commands
                    .entity(w.entity)
                    .remove::<Path>()
                    .insert(StoppedShort);
                refused.write(OrderRefused {
                    unit: w.entity,
                    goal,
                    reason: Refusal::GaveUp {
                        blocker: holder,
                        at: w.want,
                    },
                });
            }
        }
    }
    // Units at rest pushed aside step off at once (the pusher steps onto their tile this
    // frame) and come back once the way is clear.
    for (unit, from, to) in aside {
        let class = doing[&unit].class;
        let Ok(mut pushed) = units.get_mut(unit) else {
            continue;
        };
        let cost = walk_cost(nav, class, &[from, to, from]);
        let mut path = Path::aside(from, to, cost);
        let mut walk = Walk::default();
        begin_step(
            nav,
            class,
            &mut path,
            &mut walk,
            &mut pushed.tile,
            &mut pushed.motion,
            from,
            to,
            0.0,
        );
        commands.entity(unit).insert((path, walk));
    }
    (claimed, wanted)
}

/// Starts the step from `from` onto `to`, the path's next tile, `left` seconds into it.
fn begin_step(
    nav: &Navigation,
    class: MovementClass,
    path: &mut Path,
    walk: &mut Walk,
    tile: &mut Tile,
    motion: &mut Motion,
    from: Pos,
    to: Pos,
    left: f64,
) {
    path.next += 1;
    let goal = path.goal();
    let away = to.x.abs_diff(goal.x).max(to.y.abs_diff(goal.y));
    if away < walk.nearest {
        walk.nearest = away;
        walk.replans = 0;
        walk.blockers.clear();
    }
    let cost = nav
        .grid(class)
        .cost(to)
        .expect("only passable tiles are stepped onto");
    tile.0 = to;
    motion.stride = Some(Stride {
        from,
        to,
        elapsed: left,
        duration: nav.step_seconds(class, nav.step_length(from, to), cost),
    });
}

/// How long a walker of a group order queues before it looks for a lane beside its path:
/// a file walking nose to tail queues for a frame at most, a stalled one longer.
const LANE_WAIT_SECS: f64 = 0.25;

/// A lane beside a queued walker's path: its remaining tiles `rest` shifted one tile
/// sideways (all by the same offset, so the lane runs beside the path), entered from `from`
/// onto a free tile, and left for the path again where the lane's tile is a step from the
/// path's next one, as late as the lane's extra cost stays within `slack`. A lane whose
/// first tiles have units heading against the walker beside them costs a step more for
/// each ([`opposing`]), so two streams meeting head-on shift apart and pass side by side.
/// Returns the new remaining tiles and their extra cost. Square boards only (on hexes an
/// offset is no translation).
fn lane(
    nav: &Navigation,
    held: impl Fn(Pos) -> bool,
    headings: &TileMap<(i32, i32)>,
    class: MovementClass,
    from: Pos,
    rest: &[Pos],
    slack: f64,
) -> Option<(Vec<Pos>, f64)> {
    if !matches!(nav.board(), Board::Square(_)) || rest.len() < 3 {
        return None;
    }
    let grid = nav.grid(class);
    let (width, height) = (grid.width(), grid.height());
    let step = |a: Pos, b: Pos| {
        grid.cost(b)
            .filter(|_| nav.can_step(class, a, b))
            .map(|c| c * nav.step_length(a, b))
    };
    let adjacent = |a: Pos, b: Pos| a != b && a.x.abs_diff(b.x) <= 1 && a.y.abs_diff(b.y) <= 1;
    let shift = |p: Pos, d: (i64, i64)| {
        let x = u32::try_from(i64::from(p.x) + d.0).ok()?;
        let y = u32::try_from(i64::from(p.y) + d.1).ok()?;
        (x < width && y < height).then(|| Pos::new(x, y))
    };
    let way = heading(from, rest[0]);
    // Against the stream on the path's own next tile, the lane's discomfort is what it
    // saves: a lane beside an opposing file costs no more than queuing in front of it.
    // Counted once a free tile beside the walker is found (most queued walkers have none).
    let mut ahead = None;
    // The path's own steps, the same for every lane: `path_steps[i]` enters `rest[i + 1]`.
    let mut path_steps: Vec<Option<f64>> = Vec::new();
    let mut path_step = |i: usize| {
        while path_steps.len() <= i {
            let k = path_steps.len();
            path_steps.push(step(rest[k], rest[k + 1]));
        }
        path_steps[i]
    };
    // (tiles in the lane, extra cost with the discomfort, the offset, the discomfort's cost)
    let mut best: Option<(usize, f64, (i64, i64), f64)> = None;
    for n in nav.board().neighbours(from, width, height) {
        let d = (
            i64::from(n.x) - i64::from(rest[0].x),
            i64::from(n.y) - i64::from(rest[0].y),
        );
        if n == rest[0] || d.0.abs() > 1 || d.1.abs() > 1 || held(n) {
            continue;
        }
        let Some(mut lane_cost) = step(from, n) else {
            continue;
        };
        let ahead = *ahead.get_or_insert_with(|| opposing(headings, rest[0], way));
        let discomfort = f64::from(opposing(headings, n, way).saturating_sub(ahead)) * lane_cost;
        lane_cost += discomfort;
        let mut path_cost = step(from, rest[0])?;
        let mut at = n;
        // The lane's tiles so far: `rest[..=i]` shifted.
        for i in 0..rest.len() - 1 {
            if adjacent(at, rest[i + 1])
                && let Some(back) = step(at, rest[i + 1])
            {
                let extra = lane_cost + back - path_cost - path_step(i)?;
                if i >= 2 && extra <= slack && best.is_none_or(|b| i + 1 > b.0) {
                    best = Some((i + 1, extra, d, discomfort));
                }
            }
            let Some(q) = shift(rest[i + 1], d).filter(|&q| q != rest[i + 1]) else {
                break;
            };
            let Some(c) = step(at, q) else {
                break;
            };
            lane_cost += c;
            path_cost += path_step(i)?;
            at = q;
        }
    }
    let (len, extra, d, discomfort) = best?;
    let mut cells: Vec<Pos> = rest[..len]
        .iter()
        .map(|&p| shift(p, d).expect("checked"))
        .collect();
    cells.extend_from_slice(&rest[len..]);
    // The path's cost counts walking only.
    Some((cells, extra - discomfort))
}

/// What [`follow_paths`] builds every frame, kept so that its memory is reused.
#[derive(Default)]
pub(crate) struct Scratch {
    /// Who holds each tile.
    holders: TileMap<Entity>,
    doing: EntityHashMap<Doer>,
    waiters: Vec<Waiter>,
    /// This frame's arrivals, with their units' ranks, written in that order.
    arrivals: Vec<((u32, u32), Arrived)>,
    /// Which way the unit on each tile is going, for the units under way or waiting.
    headings: TileMap<(i32, i32)>,
    /// [`Resolver::claimed`]'s memory between frames.
    claimed: TileMap<Entity>,
    /// [`Resolver::wanted`]'s memory between frames.
    wanted: TileMap<()>,
}

/// A map of [`DENSE_TILES_A_UNIT`] tiles a unit or fewer keeps a [`TileMap`] in a flat array;
/// a bigger one, where few units stand on many tiles, in a hash map (a 4-million-tile map
/// with a few units would otherwise take tens of bytes a tile for them).
const DENSE_TILES_A_UNIT: usize = 64;

/// A value for some tiles of the map, looked up by the walkers' rules many times a frame. A
/// map crowded enough ([`DENSE_TILES_A_UNIT`]) keeps them in a flat array the size of the
/// map, emptied between frames at no cost (an entry counts only while it carries the
/// current round); the tiles off the map (a unit holds one only after the map shrank under
/// it) and a sparse map's tiles are in a hash map.
struct TileMap<T> {
    width: u32,
    height: u32,
    round: u32,
    cells: Vec<(u32, Option<T>)>,
    outside: HashMap<Pos, T>,
}

impl<T> Default for TileMap<T> {
    fn default() -> Self {
        Self {
            width: 0,
            height: 0,
            round: 0,
            cells: Vec::new(),
            outside: HashMap::default(),
        }
    }
}

impl<T: Copy> TileMap<T> {
    /// Empties the map, for `nav`'s map with `units` units on it.
    fn clear(&mut self, nav: &Navigation, units: usize) {
        let tiles = nav.width() as usize * nav.height() as usize;
        let (width, height) = if tiles <= DENSE_TILES_A_UNIT.saturating_mul(units) {
            (nav.width(), nav.height())
        } else {
            (0, 0)
        };
        if (width, height) != (self.width, self.height) || self.round == u32::MAX {
            self.cells = vec![(0, None); width as usize * height as usize];
            (self.width, self.height, self.round) = (width, height, 0);
        }
        self.round += 1;
        self.outside.clear();
    }

    fn index(&self, tile: Pos) -> Option<usize> {
        (tile.x < self.width && tile.y < self.height)
            .then(|| tile.y as usize * self.width as usize + tile.x as usize)
    }

    fn get(&self, tile: &Pos) -> Option<&T> {
        match self.index(*tile) {
            Some(i) => match &self.cells[i] {
                (round, value) if *round == self.round => value.as_ref(),
                _ => None,
            },
            None => self.outside.get(tile),
        }
    }

    fn contains_key(&self, tile: &Pos) -> bool {
        self.get(tile).is_some()
    }

    fn insert(&mut self, tile: Pos, value: T) {
        match self.index(tile) {
            Some(i) => self.cells[i] = (self.round, Some(value)),
            None => {
                self.outside.insert(tile, value);
            }
        }
    }

    fn remove(&mut self, tile: &Pos) {
        match self.index(*tile) {
            Some(i) => self.cells[i] = (0, None),
            None => {
                self.outside.remove(tile);
            }
        }
    }
}

/// A unit as the others see it this frame.
#[derive(Clone, Copy, Debug)]
struct Doer {
    what: Doing,
    side: Side,
    class: MovementClass,
    /// Its last walk ended before its goal ([`StoppedShort`]).
    stopped_short: bool,
    /// The tile it holds.
    tile: Pos,
}

impl Doer {
    /// Units that can take over each other's walks: sent by one group order, of one class,
    /// and neither stopped short of its tile. Their tiles came from one order, so either may
    /// end on either's; a unit sent alone, or one that is not of the order, keeps its own
    /// walk to its own tile, and one stopped on the way (by the player, or given up) stays
    /// stopped: a walker ending in its place would end off the order's tiles.
    fn squadmate_of(&self, other: &Doer) -> bool {
        let squad = self.side.squad;
        squad.is_some()
            && squad == other.side.squad
            && self.class == other.class
            && !self.stopped_short
            && !other.stopped_short
    }
}

/// Pushes deeper than this fail (the pusher tries its other tiles): a bound on the
/// recursion far beyond what a crowd needs, as a pushed unit steps onto its pusher's tile
/// when nothing nearer is free.
const MAX_PUSH_DEPTH: usize = 96;

/// How a push on a standing unit ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Push {
    /// It leaves its tile this frame.
    Moved,
    /// It stays, waiting for a tile that a unit under way is entering or leaving: it moves
    /// on by itself, so it is not pushed off its way.
    Queues,
    /// It stays: it cannot move this frame.
    Stuck,
}

/// A unit pushing a standing unit off the tile it wants.
#[derive(Clone, Copy, Debug)]
struct Pusher {
    /// The pusher's index among the waiting units.
    index: usize,
    /// Its tile, which it leaves: the pushed unit may step onto it, passing the pusher.
    from: Pos,
    /// Where it goes after the pushed unit's tile, which the pushed unit keeps clear.
    after: Option<Pos>,
}

/// What a tile is to a unit that would step onto it this frame.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Room {
    /// Nobody holds it, or its holder leaves it this frame.
    Free,
    /// Somebody ends the frame on it: a unit under way or moving in (`queue`: the tile is
    /// worth waiting for), or one that stays there.
    Taken { queue: bool },
    /// A standing unit that has not moved this frame holds it: it can be pushed.
    Standing(Entity),
}

/// What [`Resolver::settle`] decided.
struct Settled {
    /// What each waiting unit does.
    outcomes: Vec<Outcome>,
    /// Units at rest pushed off their tile: the unit, its tile and where it steps.
    aside: Vec<(Entity, Pos, Pos)>,
    /// Squadmates trading walks while they step ([`Outcome::TakeOver`]): the pusher's
    /// index, and the index of the one that takes its walk over.
    handed: Vec<(usize, usize)>,
    /// Who ends the frame on each tile it claimed ([`Resolver::claimed`]).
    claimed: TileMap<Entity>,
    /// The standing units that leave their tile this frame.
    leaving: EntityHashSet,
    /// [`Resolver::wanted`], handed back for the next frame.
    wanted: TileMap<()>,
}

/// Priority inheritance with backtracking (PIBT, Okumura et al. 2022), in continuous time
/// as Causal-PIBT (2021) has it: only standing units decide, units under way hold the tile
/// they step into. In order of priority (the oldest walk first), each waiting unit steps
/// onto its next tile if it is free; if a standing unit holds it, that unit is pushed: it
/// steps on along its own way if it can, or aside onto a free tile (a squadmate takes over
/// the pusher's walk instead), or onto its pusher's tile as a last resort, and a tile it
/// needs that another standing unit holds pushes that one in turn. A push that fails comes
/// back up, and the pusher tries its next tile. A pushed unit that waits for a unit under
/// way stays in its queue: it moves by itself soon.
struct Resolver<'a> {
    nav: &'a Navigation,
    waiters: &'a [Waiter],
    /// Who holds each tile at the frame's start (a unit under way: the tile it steps into).
    holders: &'a TileMap<Entity>,
    doing: &'a EntityHashMap<Doer>,
    headings: &'a TileMap<(i32, i32)>,
    /// Who ends the frame on each tile, as decided so far.
    claimed: TileMap<Entity>,
    /// The standing units that leave their tile this frame (or are about to, while a push
    /// they started is tried).
    leaving: EntityHashSet,
    /// The standing units that stay, waiting for a unit under way.
    queueing: EntityHashSet,
    /// The units at rest decided on this frame.
    rested: EntityHashSet,
    /// The tiles the waiting units want: a unit pushed aside prefers one nobody wants.
    wanted: TileMap<()>,
    outcomes: Vec<Option<Outcome>>,
    aside: Vec<(Entity, Pos, Pos)>,
    handed: Vec<(usize, usize)>,
}

impl<'a> Resolver<'a> {
    fn new(
        nav: &'a Navigation,
        waiters: &'a [Waiter],
        holders: &'a TileMap<Entity>,
        doing: &'a EntityHashMap<Doer>,
        headings: &'a TileMap<(i32, i32)>,
        mut claimed: TileMap<Entity>,
        mut wanted: TileMap<()>,
    ) -> Self {
        claimed.clear(nav, doing.len());
        for (&unit, doer) in doing {
            if matches!(doer.what, Doing::Stepping | Doing::Pending)
                && holders.get(&doer.tile) == Some(&unit)
            {
                claimed.insert(doer.tile, unit);
            }
        }
        wanted.clear(nav, doing.len());
        for w in waiters {
            wanted.insert(w.want, ());
        }
        Self {
            nav,
            waiters,
            holders,
            doing,
            headings,
            claimed,
            leaving: EntityHashSet::default(),
            queueing: EntityHashSet::default(),
            rested: EntityHashSet::default(),
            wanted,
            outcomes: vec![None; waiters.len()],
            aside: Vec::new(),
            handed: Vec::new(),
        }
    }

    /// Decides what every waiting unit does this frame.
    fn settle(mut self) -> Settled {
        // Tactics moves pass through whoever stands on their way, and a unit whose next
        // tile became impassable waits for the re-plan that change brings.
        for (i, w) in self.waiters.iter().enumerate() {
            if w.pass_through {
                self.outcomes[i] = Some(Outcome::Step);
                if !self.claimed.contains_key(&w.want) {
                    self.claimed.insert(w.want, w.entity);
                }
                self.leaving.insert(w.entity);
            } else if w.cost.is_none() {
                self.stay(i, Outcome::Queue);
            }
        }
        // Rings of standing units, each waiting for the next one's tile: squadmates take
        // over each other's walks where they stand (goals rotate, as in TSWAP: Okumura and
        // Défago 2023); any other ring steps at once.
        let behind: Vec<Option<usize>> = self
            .waiters
            .iter()
            .map(
                |w| match self.holders.get(&w.want).map(|h| self.doing[h].what) {
                    Some(Doing::Waiting(i)) if self.free_to_decide(w) => {
                        self.free_to_decide(&self.waiters[i]).then_some(i)
                    }
                    _ => None,
                },
            )
            .collect();
        for ring in rings(&behind) {
            let squad = ring.iter().all(|&i| {
                let next = behind[i].expect("in a ring");
                self.doing[&self.waiters[i].entity]
                    .squadmate_of(&self.doing[&self.waiters[next].entity])
            });
            for (k, &i) in ring.iter().enumerate() {
                let w = self.waiters[i];
                if squad {
                    // Takes the walk of the one waiting for its tile: the one before it.
                    let before = ring[(k + ring.len() - 1) % ring.len()];
                    self.stay(i, Outcome::Rotate(before));
                } else {
                    self.outcomes[i] = Some(Outcome::Step);
                    self.leaving.insert(w.entity);
                    self.claimed.insert(w.want, w.entity);
                }
            }
        }
        // The oldest walks first; units making way after every walker, so a column passes
        // before they step back.
        let mut order: Vec<usize> = (0..self.waiters.len())
            .filter(|&i| self.outcomes[i].is_none())
            .collect();
        order.sort_by(|&a, &b| {
            let (a, b) = (&self.waiters[a], &self.waiters[b]);
            a.making_way
                .cmp(&b.making_way)
                .then(b.age.total_cmp(&a.age))
                .then(a.rank.cmp(&b.rank))
        });
        for i in order {
            if self.outcomes[i].is_none() {
                self.walker(i, None, 0);
            }
        }
        Settled {
            outcomes: self
                .outcomes
                .into_iter()
                .map(|o| o.expect("every waiting unit has an outcome"))
                .collect(),
            aside: self.aside,
            handed: self.handed,
            claimed: self.claimed,
            leaving: self.leaving,
            wanted: self.wanted,
        }
    }

    /// Whether a waiting unit takes part in the pushes: not a tactics move, not on its way
    /// onto a tile that became impassable.
    fn free_to_decide(&self, w: &Waiter) -> bool {
        !w.pass_through && w.cost.is_some()
    }

    /// What `tile` is to `unit`, which would step onto it.
    fn room(&self, tile: Pos, unit: Entity) -> Room {
        if let Some(&taker) = self.claimed.get(&tile) {
            let queue = match self.doing[&taker].what {
                Doing::Stepping | Doing::Pending => true,
                // Moving in this frame, or staying to wait for a unit under way.
                _ => self.leaving.contains(&taker) || self.queueing.contains(&taker),
            };
            return Room::Taken { queue };
        }
        match self.holders.get(&tile) {
            None => Room::Free,
            Some(&holder) if holder == unit => Room::Taken { queue: false },
            Some(&holder) if self.leaving.contains(&holder) => Room::Free,
            Some(&holder) => Room::Standing(holder),
        }
    }

    /// Waiting unit `i` stays on its tile this frame, doing `outcome`.
    fn stay(&mut self, i: usize, outcome: Outcome) {
        let w = self.waiters[i];
        self.claimed.insert(w.from, w.entity);
        self.outcomes[i] = Some(outcome);
    }

    /// Waiting unit `i` steps onto `to` this frame, doing `outcome`.
    fn moves(&mut self, i: usize, to: Pos, outcome: Outcome) -> Push {
        let w = self.waiters[i];
        self.leaving.insert(w.entity);
        self.claimed.insert(to, w.entity);
        self.outcomes[i] = Some(outcome);
        Push::Moved
    }

    /// Tries to step standing unit `unit` onto `to`, held by standing unit `holder`, by
    /// pushing the holder (`pusher` describes `unit` to it).
    fn push_through(
        &mut self,
        unit: Entity,
        to: Pos,
        holder: Entity,
        pusher: Pusher,
        depth: usize,
    ) -> Push {
        if depth >= MAX_PUSH_DEPTH {
            return Push::Stuck;
        }
        self.leaving.insert(unit);
        self.claimed.insert(to, unit);
        let push = match self.doing[&holder].what {
            // A waiting unit decides once a frame, as in PIBT: one that has chosen to stay
            // is not pushed again.
            Doing::Waiting(j) if self.outcomes[j].is_some() => Push::Stuck,
            Doing::Waiting(j) => self.walker(j, Some(pusher), depth + 1),
            Doing::Resting => self.resting(holder, to, pusher, depth + 1),
            Doing::Stepping | Doing::Pending => Push::Queues,
        };
        if push != Push::Moved {
            self.leaving.remove(&unit);
            // A holder that stays claims its own tile again: that claim is kept, so that no
            // other unit pushes it again this frame (each push would search its asides
            // anew, exponentially in the push depth in a packed crowd).
            if self.claimed.get(&to) == Some(&unit) {
                self.claimed.remove(&to);
            }
        }
        push
    }

    /// Waiting unit `i` decides, pushed by `pusher` or on its own turn.
    fn walker(&mut self, i: usize, pusher: Option<Pusher>, depth: usize) -> Push {
        let w = self.waiters[i];
        let me = Pusher {
            index: i,
            from: w.from,
            after: w.after,
        };
        let class = self.doing[&w.entity].class;
        // 1. Its next tile.
        let mut queue = false;
        let holder;
        let mut sidestepped = false;
        match self.room(w.want, w.entity) {
            Room::Free => return self.moves(i, w.want, Outcome::Step),
            Room::Taken { queue: q } => {
                queue = q;
                holder = self.holders.get(&w.want).copied();
            }
            Room::Standing(h) => {
                let theirs = self.doing[&h];
                let mine = self.doing[&w.entity];
                if pusher.is_none()
                    && theirs.what == Doing::Resting
                    && !w.last
                    && mine.squadmate_of(&theirs)
                {
                    // A squadmate at rest on its next tile takes over its walk from there,
                    // and it stops on that squadmate's tile (TSWAP's goal swap).
                    self.rested.insert(h);
                    self.claimed.insert(w.want, h);
                    self.queueing.insert(h);
                    self.queueing.insert(w.entity);
                    self.stay(i, Outcome::HandOver { holder: h });
                    return Push::Queues;
                }
                // A unit coming back after making way pushes walkers only: it waits for a
                // unit making way too, and stays where it is once a unit at rest holds its
                // tile. Were units making way to push each other, they would push, through
                // each other's asides, the units at rest around them, and those in turn,
                // for ever when no walker is left to make way for.
                let at_rest_or_making_way = |what| match what {
                    Doing::Resting => true,
                    Doing::Waiting(j) => self.waiters[j].making_way,
                    Doing::Pending | Doing::Stepping => false,
                };
                let pushes = !(w.making_way && at_rest_or_making_way(theirs.what));
                holder = Some(h);
                if pushes && pusher.is_none() {
                    sidestepped = true;
                    if let Some(beside) = self.sidestep(i) {
                        return self.moves(i, beside, Outcome::Sidestep(beside));
                    }
                }
                if pushes {
                    match self.push_through(w.entity, w.want, h, me, depth) {
                        Push::Moved => {
                            self.outcomes[i] = Some(Outcome::Step);
                            return Push::Moved;
                        }
                        Push::Queues => queue = true,
                        Push::Stuck => {}
                    }
                }
            }
        }
        let Some(pusher) = pusher else {
            // On its own turn: an equally cheap tile beside its next one, else it waits.
            if !sidestepped && let Some(beside) = self.sidestep(i) {
                return self.moves(i, beside, Outcome::Sidestep(beside));
            }
            let outcome = match holder {
                Some(h) if !queue && self.doing[&h].what == Doing::Resting => {
                    Outcome::Blocked { holder: h }
                }
                _ => Outcome::Queue,
            };
            if outcome == Outcome::Queue {
                self.queueing.insert(w.entity);
            }
            self.stay(i, outcome);
            return if queue { Push::Queues } else { Push::Stuck };
        };
        // 2. Pushed by a squadmate: takes over the pusher's walk from its own tile, on to
        // the tile after, and hands its own walk to the pusher (TSWAP's goal swap), when it
        // is stuck or the two head different ways.
        let mate =
            self.doing[&self.waiters[pusher.index].entity].squadmate_of(&self.doing[&w.entity]);
        let across = {
            let (a, b) = (w.heading(), self.waiters[pusher.index].heading());
            a.0 * b.0 + a.1 * b.1 <= 0
        };
        if mate
            && (!queue || across)
            && let Some(after) = pusher.after
            && self.nav.grid(class).is_passable(after)
            && self.nav.board().distance(w.from, after) == 1
            && self.nav.can_step(class, w.from, after)
            && self.room(after, w.entity) == Room::Free
        {
            self.handed.push((pusher.index, i));
            return self.moves(i, after, Outcome::TakeOver(pusher.index));
        }
        // 3. Waiting for a unit under way: it moves by itself soon, so it keeps its place.
        if queue {
            self.queueing.insert(w.entity);
            self.stay(i, Outcome::Queue);
            return Push::Queues;
        }
        // 4. Aside: a free tile first, then one whose standing holder can be pushed in
        // turn, then its pusher's tile.
        if let Some(beside) = self.sidestep(i) {
            return self.moves(i, beside, Outcome::Sidestep(beside));
        }
        let heading = w.heading();
        for to in self.asides(w.from, class, pusher, heading) {
            match self.room(to, w.entity) {
                Room::Free => return self.moves(i, to, Outcome::Aside(to)),
                Room::Standing(h) => {
                    // Off its way there: the unit it pushes takes over no walk of its.
                    let off = Pusher { after: None, ..me };
                    if self.push_through(w.entity, to, h, off, depth) == Push::Moved {
                        self.outcomes[i] = Some(Outcome::Aside(to));
                        return Push::Moved;
                    }
                }
                Room::Taken { .. } => {}
            }
        }
        if self.onto_pusher(w.from, class, pusher, w.entity) {
            return self.moves(i, pusher.from, Outcome::Aside(pusher.from));
        }
        let outcome = match holder {
            Some(h) if self.doing[&h].what == Doing::Resting => Outcome::Blocked { holder: h },
            _ => Outcome::Queue,
        };
        self.stay(i, outcome);
        Push::Stuck
    }

    /// Unit `unit`, at rest on `tile`, is pushed by `pusher`: it steps aside (a free tile
    /// nobody wants first, then any free tile, then one whose standing holder can be pushed
    /// in turn) or onto the pusher's tile, to come back once the way is clear.
    fn resting(&mut self, unit: Entity, tile: Pos, pusher: Pusher, depth: usize) -> Push {
        if !self.rested.insert(unit) {
            return Push::Stuck;
        }
        let class = self.doing[&unit].class;
        let heading = heading(pusher.from, tile);
        let me = Pusher {
            index: pusher.index,
            from: tile,
            after: None,
        };
        for to in self.asides(tile, class, pusher, heading) {
            match self.room(to, unit) {
                Room::Free => return self.rest_moves(unit, tile, to),
                Room::Standing(h) => {
                    if self.push_through(unit, to, h, me, depth) == Push::Moved {
                        return self.rest_moves(unit, tile, to);
                    }
                }
                Room::Taken { .. } => {}
            }
        }
        if self.onto_pusher(tile, class, pusher, unit) {
            return self.rest_moves(unit, tile, pusher.from);
        }
        self.claimed.insert(tile, unit);
        Push::Stuck
    }

    fn rest_moves(&mut self, unit: Entity, from: Pos, to: Pos) -> Push {
        self.leaving.insert(unit);
        self.claimed.insert(to, unit);
        self.aside.push((unit, from, to));
        Push::Moved
    }

    /// Whether a unit of `class` pushed off `tile` may step onto its pusher's tile, passing
    /// it.
    fn onto_pusher(&self, tile: Pos, class: MovementClass, pusher: Pusher, unit: Entity) -> bool {
        self.nav.grid(class).is_passable(pusher.from)
            && self.nav.can_step(class, tile, pusher.from)
            && self.room(pusher.from, unit) == Room::Free
    }

    /// The tiles a unit of `class` pushed off `tile` may step aside onto, best first: not
    /// its pusher's tile or where its pusher goes next, tiles no waiting unit wants first,
    /// then those with the fewest units heading against `heading` around them, in the
    /// board's order among equals.
    fn asides(
        &self,
        tile: Pos,
        class: MovementClass,
        pusher: Pusher,
        heading: (i32, i32),
    ) -> Vec<Pos> {
        let grid = self.nav.grid(class);
        let mut tiles: Vec<(bool, u32, usize, Pos)> = self
            .nav
            .board()
            .neighbours(tile, grid.width(), grid.height())
            .enumerate()
            .filter(|&(_, n)| {
                n != pusher.from
                    && Some(n) != pusher.after
                    && grid.is_passable(n)
                    && self.nav.can_step(class, tile, n)
            })
            .map(|(k, n)| {
                let taken = !matches!(self.room(n, Entity::PLACEHOLDER), Room::Free);
                let wanted = self.wanted.contains_key(&n);
                (taken || wanted, opposing(self.headings, n, heading), k, n)
            })
            .collect();
        tiles.sort_unstable();
        tiles.into_iter().map(|t| t.3).collect()
    }

    /// Where waiting unit `i`, whose next tile is held, can step instead and still be on a
    /// cheapest path: the free neighbour of its tile from which the tile after its next one
    /// is a step away, such that the two steps cost no more than the two through its next
    /// tile (the cheapest; among equals the one with the fewest units heading against it
    /// around, then the first in the board's order). Its path costs no more, so a cheapest
    /// path stays one. A column waiting to funnel into one file (units merging into one line
    /// of tiles, or hugging the corner of a gap) spreads over the equally cheap tiles beside
    /// it instead. A unit making way, or stepping onto its path's last tile, does not.
    fn sidestep(&self, i: usize) -> Option<Pos> {
        let w = &self.waiters[i];
        if w.making_way {
            return None;
        }
        let (after, through) = (w.after?, w.cost?);
        let nav = self.nav;
        let class = self.doing[&w.entity].class;
        let grid = nav.grid(class);
        let step = |from: Pos, to: Pos| {
            grid.cost(to)
                .filter(|_| nav.can_step(class, from, to))
                .map(|cost| cost * nav.step_length(from, to))
        };
        let cost = nav.step_length(w.from, w.want) * through + step(w.want, after)?;
        let (width, height) = (grid.width(), grid.height());
        let heading = w.heading();
        // The cheapest, then the least opposed, then the first in the board's order.
        let mut best: Option<(f64, u32, Pos)> = None;
        for n in nav.board().neighbours(w.from, width, height) {
            if n == w.want
                || n == after
                || nav.board().distance(n, after) != 1
                || self.room(n, w.entity) != Room::Free
            {
                continue;
            }
            let Some(c) = step(w.from, n).zip(step(n, after)).map(|(a, b)| a + b) else {
                continue;
            };
            if c > cost * (1.0 + 1e-9) {
                continue;
            }
            let against = opposing(self.headings, n, heading);
            let better = best.is_none_or(|(b, o, _)| {
                c < b * (1.0 - 1e-9) || (c <= b * (1.0 + 1e-9) && against < o)
            });
            if better {
                best = Some((c, against, n));
            }
        }
        best.map(|(_, _, n)| n)
    }
}

/// The rings of a graph in which every node points to at most one other (`next`): each ring
/// once, from its member met first. One pass, O(nodes).
fn rings(next: &[Option<usize>]) -> Vec<Vec<usize>> {
    const NEW: u8 = 0;
    const ON_WALK: u8 = 1;
    const DONE: u8 = 2;
    let mut state = vec![NEW; next.len()];
    let mut rings = Vec::new();
    let mut walk = Vec::new();
    for start in 0..next.len() {
        let mut at = Some(start);
        while let Some(i) = at.filter(|&i| state[i] == NEW) {
            state[i] = ON_WALK;
            walk.push(i);
            at = next[i];
        }
        if let Some(i) = at
            && state[i] == ON_WALK
        {
            let from = walk.iter().position(|&j| j == i).expect("on the walk");
            rings.push(walk[from..].to_vec());
        }
        for j in walk.drain(..) {
            state[j] = DONE;
        }
    }
    rings
}

/// What walking `cells` costs `class` on the navigation now (the first cell is where it starts).
fn walk_cost(nav: &Navigation, class: MovementClass, cells: &[Pos]) -> f64 {
    let grid = nav.grid(class);
    cells
        .windows(2)
        .map(|w| grid.cost(w[1]).unwrap_or(f64::INFINITY) * nav.step_length(w[0], w[1]))
        .sum()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::navigation::ClassSpec;

    #[test]
    fn rings_are_found_once_each_and_tails_are_not_rings() {
        // 0 → 1 → 2 → 0 is a ring; 3 → 1 leads into it; 4 ↔ 5 is a ring of two; 6 → none.
        let next = [Some(1), Some(2), Some(0), Some(1), Some(5), Some(4), None];
        assert_eq!(rings(&next), vec![vec![0, 1, 2], vec![4, 5]]);
        assert_eq!(rings(&[Some(1), Some(2), None]), Vec::<Vec<usize>>::new());
    }

    /// Settles one frame on a `side`×`side` map of one foot class: each of `waiters` stands
    /// on its tile waiting for the next, each of `resting` stands at rest on its tile; all
    /// of one team, sent by no group order.
    fn settle(side: u32, waiters: &[Waiter], resting: &[(Entity, Pos)]) -> Settled {
        let nav = Navigation::uniform(Board::default(), side, side, ClassSpec::new("foot", 1.0))
            .expect("a uniform map");
        let (mut holders, mut headings) = (TileMap::default(), TileMap::default());
        holders.clear(&nav, (side * side) as usize);
        headings.clear(&nav, (side * side) as usize);
        let mut doing = EntityHashMap::default();
        let standing = waiters
            .iter()
            .enumerate()
            .map(|(i, w)| (w.entity, w.from, Doing::Waiting(i)))
            .chain(
                resting
                    .iter()
                    .map(|&(unit, tile)| (unit, tile, Doing::Resting)),
            );
        for (unit, tile, what) in standing {
            holders.insert(tile, unit);
            if let Doing::Waiting(i) = what {
                headings.insert(tile, waiters[i].heading());
            }
            let side = Side {
                team: Team::BLUE,
                squad: None,
            };
            let (class, stopped_short) = (MovementClass(0), false);
            doing.insert(
                unit,
                Doer {
                    what,
                    side,
                    class,
                    stopped_short,
                    tile,
                },
            );
        }
        Resolver::new(
            &nav,
            waiters,
            &holders,
            &doing,
            &headings,
            TileMap::default(),
            TileMap::default(),
        )
        .settle()
    }

    #[test]
    fn a_packed_crowd_is_settled_with_each_unit_deciding_once() {
        // Every tile of a 12×12 map holds a unit: the eleven western columns wait for the
        // tile east of them, the eastern column is at rest. No tile is free, so every push
        // backtracks through the asides until a pushed unit passes its pusher; a unit that
        // stayed when pushed must not be pushed again (pushed again, the tries explore
        // every order of the asides, exponentially in the push depth, and the frame never
        // ends).
        let (sender, receiver) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            let side = 12;
            let entity = |x: u32, y: u32| Entity::from_raw_u32(y * side + x + 1).expect("an index");
            let (mut waiters, mut resting) = (Vec::new(), Vec::new());
            for y in 0..side {
                for x in 0..side {
                    let (unit, tile) = (entity(x, y), Pos::new(x, y));
                    if x + 1 < side {
                        waiters.push(Waiter {
                            rank: (0, unit.index_u32()),
                            entity: unit,
                            from: tile,
                            want: Pos::new(x + 1, y),
                            cost: Some(1.0),
                            left: 0.0,
                            last: x + 2 == side,
                            after: (x + 2 < side).then(|| Pos::new(x + 2, y)),
                            pass_through: false,
                            making_way: false,
                            age: 1.0,
                        });
                    } else {
                        resting.push((unit, tile));
                    }
                }
            }
            let _ = sender.send(settle(side, &waiters, &resting).outcomes);
        });
        let outcomes = receiver
            .recv_timeout(std::time::Duration::from_secs(60))
            .expect("the frame is settled in well under a minute");
        assert_eq!(outcomes.len(), 132);
        // The first to decide is never pushed, and steps: its pushes end in a pass.
        assert_eq!(outcomes[0], Outcome::Step);
    }

    #[test]
    fn units_walking_back_after_making_way_push_neither_each_other_nor_units_at_rest() {
        // On a 3×3 map with free tiles around: a unit walking back after making way at (0,1)
        // wants (1,1), where another walking back wants (2,1), where a unit rests. With no
        // walker left, nobody is to move: the first waits, the second is blocked by the unit
        // at rest, and the unit at rest stays (were they to push, the second would step
        // aside, or push the unit at rest, and each unit pushed would walk back and push in
        // turn, for ever).
        let unit = |x: u32| Entity::from_raw_u32(x + 1).expect("an index");
        let walking_back = |x: u32| Waiter {
            rank: (0, unit(x).index_u32()),
            entity: unit(x),
            from: Pos::new(x, 1),
            want: Pos::new(x + 1, 1),
            cost: Some(1.0),
            left: 0.0,
            last: true,
            after: None,
            pass_through: false,
            making_way: true,
            age: 0.0,
        };
        let settled = settle(
            3,
            &[walking_back(0), walking_back(1)],
            &[(unit(2), Pos::new(2, 1))],
        );
        assert_eq!(
            settled.outcomes,
            [Outcome::Queue, Outcome::Blocked { holder: unit(2) }]
        );
        assert!(settled.aside.is_empty(), "no unit at rest pushed");
        assert!(settled.leaving.is_empty(), "nobody leaves its tile");
    }
}
