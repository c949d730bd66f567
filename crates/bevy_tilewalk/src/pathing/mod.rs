//! Move orders become path requests, served under a per-frame budget ([`requests`]'s docs),
//! and then `Path` components; paths are re-planned when the terrain under them changes or a
//! unit is blocked.

mod legs;
mod requests;
mod types;

use std::collections::{HashMap, HashSet};

use bevy::ecs::schedule::InternedScheduleLabel;
use bevy::prelude::*;
use tilewalk_path::Pos;

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
