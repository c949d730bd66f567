//! Move orders become path requests, served under a per-frame budget ([`requests`]'s docs),
//! and then `Path` components; a group order once planned has its units' ways spread over
//! the crossings by the queues they would make there ([`spread_crossings`]); paths are
//! re-planned when the terrain under them changes or a unit is blocked.

mod legs;
mod requests;
mod types;

use std::collections::{BTreeMap, HashMap, HashSet};

use bevy::ecs::schedule::InternedScheduleLabel;
use bevy::prelude::*;
use tilewalk_path::{Pos, SearchContext, Way, spread_by_load, walk_cost};

use legs::{exits, nearest_for_group, nearest_reachable};
pub use requests::{
    DEFAULT_PATH_WORK, LANDMARK_CELLS, LANDMARK_FRAMES, LANDMARKS, PathBudget, PathWork,
};
use requests::{Kind, Requests};
pub use types::{
    Labels, MoveOrder, OrderRefused, Path, Pending, RecordSearches, Refusal, SearchRecord,
    Searches, ShortOfGoal, ShortOfWhy, SteppingOff, StopOrder, UnreachableGoals,
};
use types::{Planned, PlannedItem};
pub(crate) use types::{Replan, Side, Squad, StoppedShort};

use crate::TilewalkSystems;
use crate::navigation::{Navigation, NavigationChanged};
use crate::units::{MovementClass, Unit, precedence};

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
                spread_crossings,
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

/// How much one movement class of a group order may search to spread its ways over the
/// crossings, in frames of one worker's [`PathBudget::work`].
const SPREAD_FRAMES: usize = 4;

/// Crossings chosen by load: each group order planned to the end last frame has the ways of
/// each of its movement classes spread over the crossings the land offers, by the queues
/// they would make there ([`tilewalk_path::spread_by_load`]): the units that would wait
/// longest at a crowded ford or gap take another one when it is sooner, waits counted. A
/// unit keeps the tile it is stepping into and its goal; units of the order that have
/// arrived, make way for another, were given waypoints or another order since are left out.
fn spread_crossings(
    mut requests: ResMut<Requests>,
    nav: Res<Navigation>,
    budget: Option<Res<PathBudget>>,
    mut paths: Query<(&mut Path, &MovementClass, &Squad)>,
    mut context: Local<SearchContext>,
) {
    if requests.planned_orders.is_empty() {
        return;
    }
    let work = budget.map_or(DEFAULT_PATH_WORK, |b| b.work).max(1);
    let board = nav.board();
    for (id, members) in std::mem::take(&mut requests.planned_orders) {
        let mut classes: BTreeMap<MovementClass, Vec<Entity>> = BTreeMap::new();
        for &unit in &members {
            if let Ok((path, class, squad)) = paths.get(unit)
                && squad.0 == id
                && !path.making_way
                && !path.pass_through
                && path.waypoints.len() == 1
            {
                classes.entry(*class).or_default().push(unit);
            }
        }
        for (class, units) in classes {
            let mut ways: Vec<Way> = units
                .iter()
                .filter_map(|&u| paths.get(u).ok())
                .map(|(path, ..)| Way {
                    cells: path.cells.clone(),
                    fixed: (path.next + 1).min(path.cells.len()),
                })
                .collect();
            let grid = nav.grid(class);
            let spread = spread_by_load(
                grid,
                board,
                &mut ways,
                &mut context,
                work.saturating_mul(SPREAD_FRAMES),
            );
            if spread.rerouted == 0 {
                continue;
            }
            for (&unit, way) in units.iter().zip(ways) {
                if let Ok((mut path, ..)) = paths.get_mut(unit)
                    && path.cells != way.cells
                {
                    path.cost = walk_cost(grid, board, &way.cells);
                    path.waypoints = vec![way.cells.len() - 1];
                    path.cells = way.cells;
                }
            }
        }
    }
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
        // A new trip for several units is a group order (below).
        let group = !order.append && ordered.len() > 1;
        for unit in &ordered {
            let from = match unit.path {
                Some(path) if order.append => path.goal(),
                _ => unit.tile.0,
            };
            let class = *unit.class;
            let aim = nav.aim(class, from, order.goal, rule, || {
                let grid = nav.grid(class);
                let board = nav.board();
                let regions = exits(grid, board, from, None)
                    .filter_map(|e| grid.region(e, board))
                    .collect();
                *nearest
                    .entry((class, regions))
                    .or_insert_with(|| match group {
                        true => nearest_for_group(grid, board, from, order.goal),
                        false => nearest_reachable(grid, board, from, order.goal),
                    })
            });
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
