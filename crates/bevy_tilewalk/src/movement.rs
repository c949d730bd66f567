//! Walking units along their `Path`, tile centre to tile centre, at the speed the cost model
//! gives: a step takes step length × the entered tile's cost ÷ the unit's speed.
//!
//! # Crowds
//!
//! A unit holds one tile: the one it stands on or is stepping into (the tile it leaves is free
//! at once, so a column walks nose to tail). Two units never hold the same tile (but for a
//! tactics move, which passes through allies; its range checked every tile). Every frame
//! the units whose step has ended ask for the next tile of their path, in [`Precedence`]
//! order (so a run replays identically, whatever order the world stores them in), and:
//!
//! (Two units are of one **side** when they are of one team, or were sent by one group order
//! ([`Squad`]): an order of both teams walks as one army. **Squadmates** were sent by one
//! group order and are of one movement class: their tiles came from one order, so either may
//! end on the other's. A unit sent alone has no squadmates: it walks to its own goal itself,
//! as the player who sent it expects, and units in its way make way for it. Nor has a unit
//! whose walk ended short of its tile ([`StoppedShort`]: stopped by the player, or given
//! up): it stands on none of its order's tiles, and stays where it stopped.)
//!
//! - **a free tile** is theirs;
//! - **a sidestep**: when the next tile is held, a free neighbour from which the tile after
//!   it costs no more in two steps is taken instead (the cheapest, the first in the board's
//!   order among equals). The path costs no more, so a cheapest path stays one: a column waiting to join one
//!   file walks beside it on the equally cheap tiles, and units funnelling into a gap spread
//!   over it. A unit making way, stepping onto its path's last tile, or passing through
//!   allies does not sidestep;
//! - **passing** (units of group orders only): a walker whose next tile is held by a unit
//!   of a group order that waits for another tile, heading against or across the walker
//!   (not after it), and that can step from the walker's tile onto the tile it waits for,
//!   trades tiles with it at once: the walker steps on, the other steps onto the walker's
//!   tile, one step from where it was going. Priority inheritance of one step, as in PIBT
//!   (Okumura et al. 2019): the waiting unit is pushed on instead of blocking, so two crowds
//!   pass through each other where they meet, not only where two units face each other
//!   exactly (a ring of two);
//! - **a lane** (units of group orders only): a walker that has queued `LANE_WAIT_SECS`
//!   (a quarter second) or more shifts the rest of its path one tile sideways onto a free neighbour, all its
//!   tiles by the same offset, and comes back to its path as late as the lane's extra cost,
//!   in seconds of walking, stays within the seconds it has queued (the cost of a tile
//!   counts the crowd on it, as in continuum crowds, Treuille et al. 2006: a queue that
//!   stands is dearer than a detour). A column that merged into one file, or that meets
//!   another head-on, spreads over parallel lanes and stays in them: the group uses the
//!   land's width. The walk still ends on its tile; it is no longer a cheapest path;
//! - **a ring**: units standing still that each want the tile of the next, back to the first
//!   (two units meeting head-on on a bridge, or a ring in a packed crowd), all step at once.
//!   Two squadmates meeting head-on trade the rest of their walks instead: each goes on to
//!   where the other was going, so neither has to pass the other; any other two pass each
//!   other on the edge between their tiles;
//! - **a squadmate at rest** in the way (no path, and on its tile: not stopped short)
//!   takes over the rest of the walk ([`Path::rest`], with the walker's [`Walk`]: its
//!   re-plans spent so far included, or a walk blocked for good would pass from one to the
//!   other forever), and the walker
//!   stops on its tile: the pair ends on the two tiles the walker and the squadmate would
//!   have ended on, and both paths stay cheapest paths to where they end (any part of a
//!   cheapest path is one). A crowd
//!   converging on one point packs in this way: whoever got there first shuffles on
//!   inwards;
//! - **a queue**: a tile held by a unit that is walking, that waits itself, or that waits for
//!   its path ([`Pending`]), is waited for as long as it takes, with no re-plan: every chain
//!   of waiting units ends in a free tile, a ring, a squadmate at rest, a unit under way or
//!   about to be, or another unit at rest, and only the last one stops it;
//! - **a unit of its side at rest** that cannot take over the walk (of another class, not
//!   sent by the walker's group order, a teammate standing by, say, or stopped short of its
//!   tile) steps aside onto a free neighbour that no waiting unit wants and that is not
//!   where the walker stands or goes next (the first in the board's order), and back onto
//!   its tile once the walker has passed (units making way choose their tiles after the
//!   walking ones each frame, so a column passes before they step back, and a tile a walker
//!   waits for is never taken from it by units making way, which could pass it from one to
//!   the next forever); in a packed formation, with no free neighbour, it steps onto the
//!   walker's tile instead (it turns to it, and the next frame the two step at once, a ring
//!   of two) and back the same way, so a unit ordered out of the middle of its army gets
//!   out. Either way it comes back: the tile it made way onto may be where another unit is
//!   going, or the tile another unit stepped aside from, and a unit that stayed there would
//!   block that one's way home. Neither is an order: the unit's journey's arrival stays the
//!   one it made before;
//! - **anyone else at rest** in the way (the other side, a unit of its side that cannot
//!   stand on the walker's tile, or any unit at rest on the walker's last tile): after
//!   [`WAIT_FOR_IDLE_SECS`] the walker re-plans around units (to the nearest free tile when
//!   its own is taken), and gives up after [`MAX_REPLANS`] tries without getting nearer its
//!   goal; a re-plan that finds no way keeps the walker waiting on its path. It goes around
//!   the units at rest of the other side, the one in its way, those that stopped it before
//!   since it last got nearer its goal ([`Walk::blockers`](crate::Walk::blockers)), and, when it stands where they
//!   cannot, those of its side that cannot make way for it from some tile beside them (they
//!   cannot stand there, and have no free tile beside them); and through the rest of its
//!   own side's crowd, walking or at rest, which the rules above move out of its way: a
//!   soldier wading in a ford, whose next tile on the bank holds a horse that can neither
//!   step into the water nor aside (its side packed around it), gets out through the
//!   soldiers beside it, and one facing a whole bank of such horses goes around them all
//!   through the water to a tile it can land on (going around only the ones that stopped
//!   it, it would turn from one horse to the next until it gave up). Had the re-plan taken
//!   every unit for a wall, it would find no way out of a crowd of its own side;
//! - **walled in**: a walker whose re-plan around units finds no way, or whose re-plans run
//!   out, is walled in by the other side ([`Walk::walled`]): for the rest of its walk the
//!   other side's units at rest make way for it as its own side's do (aside and back, or
//!   onto its tile and back), its re-plans walk through them, and it has its
//!   [`MAX_REPLANS`] again; it gives up only when those run out too, at a unit that cannot
//!   make way for it (that can stand neither beside its own tile nor on the walker's). Two
//!   sides sent across a one-tile bridge, each to just past its far end, both arrive,
//!   though the first there rest on the bridge's far end, in the other side's only way.
//!   Going around the other side first keeps a unit from pushing through an army it can
//!   walk past.
//!
//! Why these rules and not space-time reservations (cooperative A*, WHCA*, Silver 2005)?
//! Reservations plan every unit in space and time, a search per unit per window, and need the
//! time of every step in advance, which a designer's hot reload of the terrain costs changes
//! mid-march. These rules are local, cost O(units) a frame (the rings are found in one pass
//! over the waiting units; a lane walks the rest of one path, for a unit that has queued),
//! never deadlock (see the list), and keep the planned paths of units sent alone: their walks
//! only change by trades that leave each unit on a cheapest path. A group order's units give
//! that up for passing and lanes: a crowd that keeps to cheapest paths funnels into the few
//! files its paths share.

use bevy::ecs::entity::EntityHashMap;
use bevy::ecs::query::QueryData;
use bevy::ecs::schedule::InternedScheduleLabel;
use bevy::platform::collections::{HashMap, HashSet};
use bevy::prelude::*;
use tilewalk_path::{Board, Pos, SearchContext, SearchOptions};

use crate::TilewalkSystems;
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

/// A unit reached the end of its path.
#[derive(Message, Reflect, Clone, Copy, Debug)]
#[reflect(opaque, Debug, Clone)]
pub struct Arrived {
    /// The unit.
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
        follow_paths
            .in_set(TilewalkSystems::Move)
            .run_if(resource_exists::<Navigation>),
    );
}

/// What walking reads and moves of a unit.
#[derive(QueryData)]
#[query_data(mutable)]
struct Walker {
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
    /// Units at rest wall it in ([`Walk::walled`]): the other side's make way for it too.
    walled: bool,
}

/// What a waiting unit does this frame.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Outcome {
    Step,
    /// Steps onto this free tile instead of its next one, which is held: from there the
    /// tile after its next one costs what it would have through the next one
    /// ([`sidestep`]).
    Sidestep(Pos),
    /// Waits behind a unit that is walking or waiting itself.
    Queue,
    /// Waits for a unit at rest that will not make way.
    Blocked {
        holder: Entity,
    },
    /// Trades walks with the ally at this index (a ring of two allies).
    Trade(usize),
    /// Steps onto the tile of the waiting unit at this index, which steps onto the walker's
    /// tile at once ([`Outcome::Shoved`]): the two pass each other.
    Pass(usize),
    /// Shoved by a walker passing it: steps onto `to` (the walker's tile), from which its
    /// next tile is a step away, and goes on from there.
    Shoved(Pos),
    /// Hands the rest of its walk to the ally resting on its next tile.
    HandOver {
        holder: Entity,
    },
    /// Waits while the unit of its side resting on its next tile steps aside onto `to` and
    /// back once the way is clear; with no room to step aside, `to` is the walker's own tile
    /// (next frame the two step at once, a ring of two), and back the same way.
    MakeWay {
        holder: Entity,
        to: Pos,
    },
}

fn follow_paths(
    mut commands: Commands,
    time: Res<Time>,
    nav: Res<Navigation>,
    mut units: Query<Walker, With<Unit>>,
    mut arrived: MessageWriter<Arrived>,
    mut replan: MessageWriter<Replan>,
    mut refused: MessageWriter<OrderRefused>,
    mut scratch: Local<Scratch>,
) {
    let Scratch {
        holders,
        doing,
        waiters,
        arrivals,
    } = &mut *scratch;
    // 1. Steps under way go on; units whose path is done arrive; the others want a tile.
    take_stock(
        &mut commands,
        &time,
        &nav,
        &mut units,
        holders,
        doing,
        waiters,
        arrivals,
    );
    arrived.write_batch(arrivals.iter().map(|a| a.1));
    // 2. Who steps, who waits, who trades.
    let outcomes = settle(&nav, waiters, holders, doing);
    // 3. Walks change hands, steps start, waits run out.
    trade_walks(&mut commands, &nav, &units, waiters, doing, &outcomes);
    act(
        &mut commands,
        &nav,
        &mut units,
        waiters,
        outcomes,
        holders,
        doing,
        &mut replan,
        &mut refused,
    );
}

/// Phase 1 of [`follow_paths`]: every unit's step under way goes on, units whose path is
/// done arrive (into `arrivals`, in [`Precedence`] order), and the others want their next
/// tile (`waiters`, in that order); `holders` and `doing` say who holds each tile and what
/// each unit is doing.
fn take_stock(
    commands: &mut Commands,
    time: &Time,
    nav: &Navigation,
    units: &mut Query<Walker, With<Unit>>,
    holders: &mut HashMap<Pos, Entity>,
    doing: &mut EntityHashMap<Doer>,
    waiters: &mut Vec<Waiter>,
    arrivals: &mut Vec<((u32, u32), Arrived)>,
) {
    let now = time.elapsed_secs_f64();
    holders.clear();
    doing.clear();
    waiters.clear();
    arrivals.clear();
    for mut unit in units.iter_mut() {
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
                }
            }
        }
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
                        walled: unit.walk.as_ref().is_some_and(|w| w.walled),
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

/// Phase 3 of [`follow_paths`], first part: two squadmates meeting head-on each take the
/// other's walk from the tile it stands on.
fn trade_walks(
    commands: &mut Commands,
    nav: &Navigation,
    units: &Query<Walker, With<Unit>>,
    waiters: &[Waiter],
    doing: &EntityHashMap<Doer>,
    outcomes: &[Outcome],
) {
    for (w, outcome) in waiters.iter().zip(outcomes) {
        let Outcome::Trade(other) = *outcome else {
            continue;
        };
        // Each takes the other's walk from the tile it stands on: the other's next tile.
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
}

/// Phase 3 of [`follow_paths`]: each waiting unit does what [`settle`] decided: steps (aside,
/// past or shoved), queues (and may take a lane), has a unit make way or take over its walk,
/// or waits for a unit at rest and re-plans or gives up.
fn act(
    commands: &mut Commands,
    nav: &Navigation,
    units: &mut Query<Walker, With<Unit>>,
    waiters: &[Waiter],
    outcomes: Vec<Outcome>,
    holders: &mut HashMap<Pos, Entity>,
    doing: &EntityHashMap<Doer>,
    replan: &mut MessageWriter<Replan>,
    refused: &mut MessageWriter<OrderRefused>,
) {
    for (w, outcome) in waiters.iter().zip(outcomes) {
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
        match outcome {
            Outcome::Step | Outcome::Sidestep(_) | Outcome::Pass(_) | Outcome::Shoved(_) => {
                if !matches!(outcome, Outcome::Shoved(_)) {
                    walk.waited = 0.0;
                    walk.queued = 0.0;
                }
                let (from, mut to) = (w.from, w.want);
                if let Outcome::Sidestep(beside) = outcome {
                    let next = path.next;
                    path.cells[next] = beside;
                    to = beside;
                }
                if let Outcome::Shoved(onto) = outcome {
                    let next = path.next;
                    path.cells.insert(next, onto);
                    path.cost = walk_cost(nav, class, &path.cells);
                    to = onto;
                }
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
                        holders,
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
                    holders.insert(to, w.entity);
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
            Outcome::Trade(_) => walk.waited = 0.0,
            Outcome::MakeWay { holder, to } => {
                walk.waited = 0.0;
                // Aside (or onto the walker's tile) and back once the way is clear.
                let (class, from) = (doing[&holder].class, w.want);
                let cost = walk_cost(nav, class, &[from, to, from]);
                commands
                    .entity(holder)
                    .insert((Path::aside(from, to, cost), Walk::default()));
            }
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
/// path's next one, as late as the lane's extra cost stays within `slack`. Returns the new
/// remaining tiles and their extra cost. Square boards only (on hexes an offset is no
/// translation).
fn lane(
    nav: &Navigation,
    holders: &HashMap<Pos, Entity>,
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
    // (tiles in the lane, extra cost, the offset)
    let mut best: Option<(usize, f64, (i64, i64))> = None;
    for n in nav.board().neighbours(from, width, height) {
        let d = (
            i64::from(n.x) - i64::from(rest[0].x),
            i64::from(n.y) - i64::from(rest[0].y),
        );
        if n == rest[0] || d.0.abs() > 1 || d.1.abs() > 1 || holders.contains_key(&n) {
            continue;
        }
        let Some(mut lane_cost) = step(from, n) else {
            continue;
        };
        let mut path_cost = step(from, rest[0])?;
        let mut at = n;
        // The lane's tiles so far: `rest[..=i]` shifted.
        for i in 0..rest.len() - 1 {
            if adjacent(at, rest[i + 1])
                && let Some(back) = step(at, rest[i + 1])
            {
                let extra = lane_cost + back - path_cost - step(rest[i], rest[i + 1])?;
                if i >= 2 && extra <= slack && best.is_none_or(|b| i + 1 > b.0) {
                    best = Some((i + 1, extra, d));
                }
            }
            let Some(q) = shift(rest[i + 1], d).filter(|&q| q != rest[i + 1]) else {
                break;
            };
            let Some(c) = step(at, q) else {
                break;
            };
            lane_cost += c;
            path_cost += step(rest[i], rest[i + 1])?;
            at = q;
        }
    }
    let (len, extra, d) = best?;
    let mut cells: Vec<Pos> = rest[..len]
        .iter()
        .map(|&p| shift(p, d).expect("checked"))
        .collect();
    cells.extend_from_slice(&rest[len..]);
    Some((cells, extra))
}

/// What [`follow_paths`] builds every frame, kept so that its memory is reused.
#[derive(Default)]
struct Scratch {
    /// Who holds each tile.
    holders: HashMap<Pos, Entity>,
    doing: EntityHashMap<Doer>,
    waiters: Vec<Waiter>,
    /// This frame's arrivals, with their units' ranks, written in that order.
    arrivals: Vec<((u32, u32), Arrived)>,
}

/// A unit as the others see it this frame.
#[derive(Clone, Copy, Debug)]
struct Doer {
    what: Doing,
    side: Side,
    class: MovementClass,
    /// Its last walk ended before its goal ([`StoppedShort`]).
    stopped_short: bool,
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

/// Decides, in the waiting units' order, what each does this frame; `holders` and `doing`
/// follow the decisions (a tile stepped off is free for the next unit in the order).
fn settle(
    nav: &Navigation,
    waiters: &[Waiter],
    holders: &mut HashMap<Pos, Entity>,
    doing: &mut EntityHashMap<Doer>,
) -> Vec<Outcome> {
    let waits = |w: &Waiter| !w.pass_through && w.cost.is_some();
    // The waiting unit each waiting unit waits for.
    let behind: Vec<Option<usize>> = waiters
        .iter()
        .map(|w| match holders.get(&w.want).map(|h| doing[h].what) {
            Some(Doing::Waiting(i)) if waits(w) && waits(&waiters[i]) => Some(i),
            _ => None,
        })
        .collect();
    let mut outcomes: Vec<Option<Outcome>> = vec![None; waiters.len()];
    for ring in rings(&behind) {
        if let [a, b] = ring[..]
            && doing[&waiters[a].entity].squadmate_of(&doing[&waiters[b].entity])
        {
            outcomes[a] = Some(Outcome::Trade(b));
            outcomes[b] = Some(Outcome::Trade(a));
            continue;
        }
        for &i in &ring {
            outcomes[i] = Some(Outcome::Step);
            holders.insert(waiters[i].want, waiters[i].entity);
        }
    }
    // The tiles the waiting units want, gathered the first time a unit is to step aside: it
    // does not step onto one.
    let mut wanted: Option<HashSet<Pos>> = None;
    // Units walking on first, then the units making way: a free tile goes to a walker before
    // it goes to a unit stepping aside or back, which waits until the walkers have passed.
    let order = (0..waiters.len())
        .filter(|&i| !waiters[i].making_way)
        .chain((0..waiters.len()).filter(|&i| waiters[i].making_way));
    for i in order {
        let w = &waiters[i];
        if outcomes[i].is_some() {
            continue;
        }
        let holder = holders.get(&w.want).copied();
        if holder.is_some_and(|h| h != w.entity)
            && waits(w)
            && !w.making_way
            && let Some(beside) = sidestep(nav, holders, doing[&w.entity].class, w)
        {
            if holders.get(&w.from) == Some(&w.entity) {
                holders.remove(&w.from);
            }
            holders.insert(beside, w.entity);
            outcomes[i] = Some(Outcome::Sidestep(beside));
            continue;
        }
        outcomes[i] = Some(match holder {
            // A tile that became impassable: the re-plan for that change is on its way.
            _ if w.cost.is_none() => Outcome::Queue,
            Some(holder) if holder != w.entity && !w.pass_through => {
                let (mine, theirs) = (doing[&w.entity], doing[&holder]);
                match theirs.what {
                    Doing::Resting if mine.side.makes_way_for(&theirs.side) || w.walled => {
                        let outcome = if mine.squadmate_of(&theirs) && !w.last {
                            Outcome::HandOver { holder }
                        } else if !w.last
                            && let Some(to) = aside(
                                nav,
                                holders,
                                wanted.get_or_insert_with(|| {
                                    waiters
                                        .iter()
                                        .filter(|other| waits(other))
                                        .map(|other| other.want)
                                        .collect()
                                }),
                                theirs.class,
                                w,
                            )
                        {
                            holders.insert(to, holder);
                            Outcome::MakeWay { holder, to }
                        } else if !w.last && nav.grid(theirs.class).is_passable(w.from) {
                            // No room: onto the walker's tile (it holds `from`) and back.
                            Outcome::MakeWay { holder, to: w.from }
                        } else {
                            Outcome::Blocked { holder }
                        };
                        // It is under way from now on: nobody else hands it a walk.
                        if outcome != (Outcome::Blocked { holder })
                            && let Some(d) = doing.get_mut(&holder)
                        {
                            d.what = Doing::Stepping;
                        }
                        outcome
                    }
                    Doing::Resting => Outcome::Blocked { holder },
                    Doing::Waiting(j)
                        if !w.making_way
                            && mine.side.squad.is_some()
                            && theirs.side.squad.is_some()
                            && outcomes[j].is_none_or(|o| o == Outcome::Queue)
                            && passes(nav, w, &waiters[j], theirs.class) =>
                    {
                        outcomes[j] = Some(Outcome::Shoved(w.from));
                        holders.insert(w.want, w.entity);
                        holders.insert(w.from, holder);
                        if let Some(d) = doing.get_mut(&holder) {
                            d.what = Doing::Stepping;
                        }
                        Outcome::Pass(j)
                    }
                    Doing::Stepping | Doing::Waiting(_) | Doing::Pending => Outcome::Queue,
                }
            }
            _ => {
                // Passing through an ally leaves its hold on its own tile alone.
                if holders.get(&w.from) == Some(&w.entity) {
                    holders.remove(&w.from);
                }
                holders.entry(w.want).or_insert(w.entity);
                Outcome::Step
            }
        });
    }
    outcomes
        .into_iter()
        .map(|o| o.expect("every waiting unit has an outcome"))
        .collect()
}

/// Whether walker `w` may pass `other`, a unit waiting on `w`'s next tile for a tile of its
/// own: `other` steps onto `w`'s tile, from which its next tile is a step away, while `w`
/// steps onto `other`'s. Only units heading against each other or across pass (not one
/// that follows the other), so a queue keeps its order.
fn passes(nav: &Navigation, w: &Waiter, other: &Waiter, class: MovementClass) -> bool {
    if other.making_way || other.pass_through || other.want == w.from || other.cost.is_none() {
        return false;
    }
    let d = |a: Pos, b: Pos| {
        (
            i64::from(b.x) - i64::from(a.x),
            i64::from(b.y) - i64::from(a.y),
        )
    };
    let (mine, theirs) = (d(w.from, w.want), d(other.from, other.want));
    if mine.0 * theirs.0 + mine.1 * theirs.1 > 0 {
        return false;
    }
    let grid = nav.grid(class);
    let (width, height) = (grid.width(), grid.height());
    grid.is_passable(w.from)
        && nav
            .board()
            .neighbours(other.want, width, height)
            .any(|n| n == w.from)
        && nav.can_step(class, other.from, w.from)
        && nav.can_step(class, w.from, other.want)
}

/// Where a unit of `class` resting on `w.want` can step aside to let `w` pass: the first
/// neighbour (in the board's order) it can enter that nobody holds, that no waiting unit
/// wants, and that is neither where `w` stands nor where it goes next.
fn aside(
    nav: &Navigation,
    holders: &HashMap<Pos, Entity>,
    wanted: &HashSet<Pos>,
    class: MovementClass,
    w: &Waiter,
) -> Option<Pos> {
    let grid = nav.grid(class);
    nav.board()
        .neighbours(w.want, grid.width(), grid.height())
        .find(|&n| {
            n != w.from
                && Some(n) != w.after
                && grid.is_passable(n)
                && !holders.contains_key(&n)
                && !wanted.contains(&n)
        })
}

/// Where a walker whose next tile is held can step instead and still be on a cheapest path:
/// the neighbour of its tile that nobody holds, from which the tile after its next one is a
/// step away, and such that the two steps cost no more than the two through its next tile
/// (the cheapest, the first in the board's order among equals; cheaper only where a lane or
/// a pass left the path). Its path costs no more, so a cheapest path stays one.
/// A column waiting to funnel into one file (units merging into one line of tiles, or
/// hugging the corner of a gap) spreads over the equally cheap tiles beside it instead.
fn sidestep(
    nav: &Navigation,
    holders: &HashMap<Pos, Entity>,
    class: MovementClass,
    w: &Waiter,
) -> Option<Pos> {
    let (after, through) = (w.after?, w.cost?);
    let grid = nav.grid(class);
    let step = |from: Pos, to: Pos| {
        grid.cost(to)
            .filter(|_| nav.can_step(class, from, to))
            .map(|cost| cost * nav.step_length(from, to))
    };
    let cost = nav.step_length(w.from, w.want) * through + step(w.want, after)?;
    let (width, height) = (grid.width(), grid.height());
    // The cheapest, the first in the board's order among equals.
    let mut best: Option<(f64, Pos)> = None;
    for n in nav.board().neighbours(w.from, width, height) {
        if n == w.want
            || n == after
            || holders.contains_key(&n)
            || !nav.board().neighbours(after, width, height).any(|m| m == n)
        {
            continue;
        }
        let Some(c) = step(w.from, n).zip(step(n, after)).map(|(a, b)| a + b) else {
            continue;
        };
        if c <= cost * (1.0 + 1e-9) && best.is_none_or(|(b, _)| c < b * (1.0 - 1e-9)) {
            best = Some((c, n));
        }
    }
    best.map(|(_, n)| n)
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

    #[test]
    fn rings_are_found_once_each_and_tails_are_not_rings() {
        // 0 → 1 → 2 → 0 is a ring; 3 → 1 leads into it; 4 ↔ 5 is a ring of two; 6 → none.
        let next = [Some(1), Some(2), Some(0), Some(1), Some(5), Some(4), None];
        assert_eq!(rings(&next), vec![vec![0, 1, 2], vec![4, 5]]);
        assert_eq!(rings(&[Some(1), Some(2), None]), Vec::<Vec<usize>>::new());
    }
}
