//! Move orders become path requests, served under a per-frame budget ([`requests`]'s docs),
//! and then `Path` components; a group order once planned, and the one-unit orders planned
//! in one frame, have their units' ways spread over the crossings by the queues they would
//! make there ([`spread_crossings`]); paths are re-planned when the terrain under them
//! changes or a unit is blocked.

mod legs;
mod requests;
mod types;

use std::collections::{BTreeMap, HashMap, HashSet};

use bevy::ecs::entity::EntityHashSet;
use bevy::ecs::message::MessageCursor;
use bevy::ecs::schedule::InternedScheduleLabel;
use bevy::prelude::*;
use tilewalk_path::{Pos, SearchContext, Way, spread_by_load, walk_cost};

use legs::{exits, nearest_for_group, nearest_reachable};
pub use requests::{
    DEFAULT_PATH_WORK, LANDMARK_CELLS, LANDMARK_DISTANCE, LANDMARK_FRAMES, LANDMARKS, LongOrders,
    PathBudget, PathWork,
};
use requests::{Kind, MapRequests};
pub use types::{
    Labels, MoveOrder, OrderRefused, Path, Pending, PlannerMemory, RecordSearch, RecordSearches,
    Refusal, SearchRecord, Searches, ShortOfGoal, ShortOfWhy, SteppingOff, StopOrder,
    UnreachableGoals,
};
use types::{Planned, PlannedItem};
pub(crate) use types::{Replan, Side, Squad, StoppedShort};

use crate::TilewalkSystems;
use crate::maps::{MapKey, Maps, OnMap, any_map};
use crate::navigation::{Navigation, NavigationChanged};
use crate::units::{MovementClass, Team, Tile, Unit, precedence};

pub(crate) fn plugin(app: &mut App, schedule: InternedScheduleLabel) {
    app.add_message::<MoveOrder>()
        .add_message::<StopOrder>()
        .add_message::<OrderRefused>()
        .add_message::<Replan>()
        .add_message::<SteppingOff>()
        .init_resource::<UnreachableGoals>()
        .init_resource::<Searches>()
        .init_resource::<RecordSearches>()
        .init_resource::<PlannerMemory>()
        .init_resource::<MapRequests>()
        .init_resource::<PathWork>()
        .init_resource::<LongOrders>()
        .init_resource::<Inbox>()
        .add_systems(
            schedule,
            (
                (requests::reserve_planner, spread_crossings)
                    .chain()
                    .run_if(any_map),
                stop_units,
                keep_orders.run_if(not(any_map)),
                (
                    check_classes,
                    plan_orders,
                    replan_paths,
                    requests::serve_requests,
                )
                    .chain()
                    .run_if(any_map),
            )
                .chain()
                .in_set(TilewalkSystems::Plan),
        );
}

/// The move orders planning has read: one cursor, so that an order is read once whichever
/// system reads it, and the orders written while there was no map (a map still loading), or
/// for the units of the default map while there is no [`Navigation`] resource, which wait
/// here until one is inserted and are then planned first.
#[derive(Resource, Default)]
struct Inbox {
    cursor: MessageCursor<MoveOrder>,
    waiting: Vec<MoveOrder>,
}

/// Keeps the move orders written while there is no navigation, for when there is one.
fn keep_orders(mut inbox: ResMut<Inbox>, orders: Res<Messages<MoveOrder>>) {
    let Inbox { cursor, waiting } = &mut *inbox;
    waiting.extend(cursor.read(&orders).cloned());
}

/// A unit's class and the map it is on.
type ClassOnMap = (Entity, Ref<'static, MovementClass>, Option<&'static OnMap>);

/// Warns, once per unit and class, of a unit whose [`MovementClass`] its map's navigation
/// does not have: it walks, and its orders are planned, as the first class (whose grid and
/// speed [`Navigation::grid`] and [`Navigation::speed`] give for a class past the list).
/// Units are checked when their class is set and, after their map's navigation changes, all
/// of them.
fn check_classes(
    maps: Maps,
    units: Query<ClassOnMap, With<Unit>>,
    mut warned: Local<HashSet<(Entity, MovementClass)>>,
) {
    let default = maps.get(None);
    for (unit, class, on) in &units {
        let map = match on {
            None => default,
            Some(on) => maps.get(Some(on.0)),
        };
        let Some(map) = map else {
            continue;
        };
        let nav = map.nav;
        let count = nav.classes().len();
        if class.index() < count || !(map.changed || class.is_changed()) {
            continue;
        }
        if warned.insert((unit, *class)) {
            warn!(
                "unit {unit} has movement class {}, but the navigation has {count} classes \
                 ({}): it moves as the first, `{}`",
                class.0,
                nav.classes()
                    .iter()
                    .map(|c| c.name.as_str())
                    .collect::<Vec<_>>()
                    .join(", "),
                nav.name(MovementClass(0)),
            );
        }
    }
}

/// How much one movement class of a group order may search to spread its ways over the
/// crossings, in frames of one worker's [`PathBudget::work`].
const SPREAD_FRAMES: usize = 4;

/// Crossings chosen by load: each group order planned to the end last frame, and the units
/// given trips of their own last frame (taken together, as if one order had sent them),
/// have the ways of each of their movement classes spread over the crossings the land
/// offers, by the queues they would make there ([`tilewalk_path::spread_by_load`]): the
/// units that would wait longest at a crowded ford or gap take another one when it is
/// sooner, waits counted. A unit keeps the tile it is stepping into and its goal; units that
/// have arrived, make way for another, were given waypoints or another order since are left
/// out.
fn spread_crossings(
    mut requests: ResMut<MapRequests>,
    maps: Maps,
    budget: Option<Res<PathBudget>>,
    mut paths: Query<(&mut Path, &MovementClass, Option<&Squad>)>,
    mut context: Local<SearchContext>,
) {
    let work = budget.map_or(DEFAULT_PATH_WORK, |b| b.work).max(1);
    for (&key, requests) in &mut requests.maps {
        if requests.planned_orders.is_empty() && requests.planned_alone.is_empty() {
            continue;
        }
        let orders = std::mem::take(&mut requests.planned_orders);
        let alone = std::mem::take(&mut requests.planned_alone);
        if let Some(map) = maps.get(key) {
            spread_map(map.nav, work, orders, alone, &mut paths, &mut context);
        }
    }
}

/// [`spread_crossings`] on one map: its group orders planned last frame, and its units given
/// trips of their own.
fn spread_map(
    nav: &Navigation,
    work: usize,
    orders: Vec<(u64, Vec<Entity>)>,
    mut alone: Vec<Entity>,
    paths: &mut Query<(&mut Path, &MovementClass, Option<&Squad>)>,
    context: &mut SearchContext,
) {
    let board = nav.board();
    let orders = orders.into_iter().map(|(id, members)| (Some(id), members));
    let mut seen = EntityHashSet::default();
    alone.retain(|&unit| seen.insert(unit));
    for (id, members) in orders.chain([(None, alone)]) {
        let mut classes: BTreeMap<MovementClass, Vec<Entity>> = BTreeMap::new();
        for &unit in &members {
            if let Ok((path, class, squad)) = paths.get(unit)
                && squad.map(|s| s.0) == id
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
                context,
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

/// Stops units: their requests are dropped, their paths removed, and they leave the orders
/// waiting for a navigation. Runs with or without one.
fn stop_units(
    mut commands: Commands,
    mut stops: MessageReader<StopOrder>,
    mut requests: ResMut<MapRequests>,
    mut inbox: ResMut<Inbox>,
    walking: Query<(), With<Path>>,
) {
    for stop in stops.read() {
        for order in &mut inbox.waiting {
            order.units.retain(|unit| !stop.units.contains(unit));
        }
        inbox.waiting.retain(|order| !order.units.is_empty());
        for &unit in &stop.units {
            let waited = requests.cancel(&mut commands, unit);
            if waited || walking.contains(unit) {
                commands.entity(unit).remove::<Path>().insert(StoppedShort);
            }
        }
    }
}

/// Which of a unit's components an entity has: `Unit`, `Tile`, `MovementClass`, `Team`.
type UnitParts = (Has<Unit>, Has<Tile>, Has<MovementClass>, Has<Team>);

/// Checks each order's goal (a refusal says why at once) and queues the request: one group
/// order for a new trip of two or more units, one request per unit otherwise. A goal a unit
/// cannot reach is replaced by the reachable tile nearest it ([`UnreachableGoals`]): units
/// that share a replacement share a request. The orders that waited for the navigation
/// come first. An ordered entity that lacks a unit's components is refused and named in a
/// warning (once per entity); one that does not exist is left out. The units of an order
/// on different maps are planned map by map, as one order a map to the same goal tile; those
/// of a map entity without a navigation are refused (a warning names each, once), and those
/// of the default map wait while there is no [`Navigation`] resource.
fn plan_orders(
    mut commands: Commands,
    (mut inbox, orders): (ResMut<Inbox>, Res<Messages<MoveOrder>>),
    mut refused: MessageWriter<OrderRefused>,
    mut requests: ResMut<MapRequests>,
    mut searches: ResMut<Searches>,
    maps: Maps,
    rule: Option<Res<UnreachableGoals>>,
    units: Query<Planned, With<Unit>>,
    parts: Query<UnitParts>,
    mut warned: Local<EntityHashSet>,
) {
    let waited = std::mem::take(&mut inbox.waiting);
    if !waited.is_empty() || !inbox.cursor.is_empty(&orders) {
        searches.0.clear();
    }
    let rule = rule.map_or_else(UnreachableGoals::default, |r| *r);
    let mut still_waiting = Vec::new();
    for order in waited.iter().chain(inbox.cursor.read(&orders)) {
        let mut ordered: Vec<PlannedItem> = Vec::with_capacity(order.units.len());
        for &entity in &order.units {
            if let Ok(unit) = units.get(entity) {
                ordered.push(unit);
                continue;
            }
            // An entity that does not exist is left out; one that lacks a component is told.
            let Ok((unit, tile, class, team)) = parts.get(entity) else {
                continue;
            };
            let Some(component) = [
                (unit, "Unit"),
                (tile, "Tile"),
                (class, "MovementClass"),
                (team, "Team"),
            ]
            .into_iter()
            .find_map(|(has, name)| (!has).then_some(name)) else {
                continue;
            };
            if warned.insert(entity) {
                warn!(
                    "entity {entity} was ordered to move, but it has no `{component}` \
                     component: the order is refused for it (a unit needs `Unit` and `Tile`)"
                );
            }
            refused.write(OrderRefused::new(
                entity,
                order.goal,
                Refusal::MissingComponent { component },
            ));
        }
        ordered.sort_by_key(|u| precedence(u.entity, u.precedence));
        // The units by the map they are on, in precedence order on each.
        let mut by_map: BTreeMap<MapKey, Vec<PlannedItem>> = BTreeMap::new();
        for unit in ordered {
            by_map.entry(unit.map()).or_default().push(unit);
        }
        for (key, ordered) in by_map {
            if let Some(map) = maps.get(key) {
                let mut planning = Planning {
                    commands: &mut commands,
                    refused: &mut refused,
                    requests: &mut requests,
                    key,
                    nav: map.nav,
                    rule,
                };
                planning.plan(order, &ordered);
                continue;
            }
            match key {
                // The default map's units wait for the `Navigation` resource.
                None => still_waiting.push(MoveOrder {
                    units: ordered.iter().map(|u| u.entity).collect(),
                    ..order.clone()
                }),
                Some(map) => {
                    for unit in &ordered {
                        if warned.insert(unit.entity) {
                            warn!(
                                "unit {} was ordered to move, but the map it is on (`OnMap`), \
                                 entity {map}, has no `MapNavigation`: the order is refused",
                                unit.entity
                            );
                        }
                        refused.write(OrderRefused::new(
                            unit.entity,
                            order.goal,
                            Refusal::NoMapNavigation { map },
                        ));
                    }
                }
            }
        }
    }
    inbox.waiting = still_waiting;
}

/// What planning one order's units on one map shares.
struct Planning<'a, 'w, 's, 'm> {
    commands: &'a mut Commands<'w, 's>,
    refused: &'a mut MessageWriter<'m, OrderRefused>,
    requests: &'a mut MapRequests,
    key: MapKey,
    nav: &'a Navigation,
    rule: UnreachableGoals,
}

impl Planning<'_, '_, '_, '_> {
    /// Plans `order` for `ordered`, its units on this map, in precedence order.
    fn plan(&mut self, order: &MoveOrder, ordered: &[PlannedItem]) {
        let nav = self.nav;
        // The units by where they go: the goal first, then each nearest tile in the order
        // first met (units of one class in one region share one).
        let mut aims: Vec<(Pos, Option<ShortOfGoal>, Vec<Entity>)> =
            vec![(order.goal, None, Vec::new())];
        let mut nearest: HashMap<(MovementClass, Vec<u32>), Option<Pos>> = HashMap::new();
        // A new trip for several units is a group order (below).
        let group = !order.append && ordered.len() > 1;
        for unit in ordered {
            let from = match unit.path {
                Some(path) if order.append => path.goal(),
                _ => unit.tile.0,
            };
            let class = *unit.class;
            let aim = nav.aim(class, from, order.goal, self.rule, || {
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
                    self.refused
                        .write(OrderRefused::new(unit.entity, order.goal, reason));
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
                    self.requests
                        .push(self.key, self.commands, goal, kind, short);
                }
            } else {
                self.requests
                    .push(self.key, self.commands, goal, Kind::Group(units), short);
            }
        }
    }
}

/// Queues re-plans of the paths a terrain change crosses (on the map that changed), and of
/// units movement found blocked.
fn replan_paths(
    mut commands: Commands,
    mut changes: MessageReader<NavigationChanged>,
    mut replans: MessageReader<Replan>,
    mut requests: ResMut<MapRequests>,
    maps: Maps,
    units: Query<Planned, With<Unit>>,
) {
    // Paths crossing a changed cell may be blocked or dearer; a class that got cheaper
    // anywhere on a map may now have a better way off its path, so all of its paths on that
    // map are re-planned.
    let mut changed: HashMap<MapKey, (HashSet<Pos>, Vec<MovementClass>)> = HashMap::new();
    for change in changes.read() {
        let (cells, cheaper) = changed.entry(change.map).or_default();
        cells.extend(change.cells.iter().copied());
        cheaper.extend(change.cheaper.iter().copied());
    }
    let mut wanted: Vec<Replan> = replans.read().copied().collect();
    if wanted.is_empty() && changed.is_empty() {
        return;
    }
    if !changed.is_empty() {
        wanted.extend(
            units
                .iter()
                .filter(|u| {
                    let Some((cells, cheaper)) = changed.get(&u.map()) else {
                        return false;
                    };
                    u.path.is_some_and(|p| {
                        !p.pass_through
                            && (cheaper.contains(u.class)
                                || p.remaining().iter().any(|c| cells.contains(c)))
                    })
                })
                .map(|u| Replan {
                    unit: u.entity,
                    avoid_units: false,
                }),
        );
    }
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
        let Some((key, goal)) = units
            .get(unit)
            .ok()
            .and_then(|u| Some((u.map(), u.path?.goal())))
        else {
            continue;
        };
        if maps.get(key).is_none() {
            continue;
        }
        requests.push(
            key,
            &mut commands,
            goal,
            Kind::Replan { unit, avoid_units },
            None,
        );
    }
}
