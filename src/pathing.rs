//! Move orders become searches and `Path` components; paths are re-planned when the
//! terrain under them changes or a unit is blocked.

use std::collections::{HashMap, HashSet};
use std::time::Instant;

use bevy::prelude::*;
use tilewalk_path::{Grid, NoPath, Pos, SearchContext, SearchOptions};

use crate::AppSystems;
use crate::level::{Level, LevelChanged};
use crate::terrain::MovementClass;
use crate::units::{Tile, Unit};

/// Orders units to a tile. Each unit gets its own free tile: the clicked one, or the nearest
/// free one it can reach. With `append`, the trip is added after the unit's current path.
#[derive(Message, Clone, Debug)]
pub struct MoveOrder {
    pub units: Vec<Entity>,
    pub goal: Pos,
    pub append: bool,
}

/// Drops the units' paths; a step under way is finished.
#[derive(Message, Clone, Debug)]
pub struct StopOrder {
    pub units: Vec<Entity>,
}

/// An order, or a path, that could not be carried out, and why.
#[derive(Message, Clone, Debug)]
pub struct OrderRefused {
    pub unit: Entity,
    pub goal: Pos,
    pub reason: String,
}

/// Asks for a new path through the unit's remaining waypoints.
#[derive(Message, Clone, Copy, Debug)]
pub struct Replan {
    pub unit: Entity,
    /// Treat the tiles other units hold as walls (sent when the unit is blocked).
    pub avoid_units: bool,
}

/// The route a unit follows. `cells[0]` is where it started; `next` indexes the next tile
/// to enter; `cost` is the whole route's cost under the unit's class.
#[derive(Component, Clone, Debug, PartialEq)]
pub struct Path {
    pub cells: Vec<Pos>,
    pub cost: f64,
    pub next: usize,
    /// Indices in `cells` of the tiles the player ordered, in order; the last is the goal.
    pub waypoints: Vec<usize>,
    /// Seconds spent waiting for the next tile to free up.
    pub waited: f32,
    /// Re-plans caused by blocking units since the order.
    pub replans: u32,
    /// Tactics moves may pass through allies (the range already checked every tile); a
    /// real-time path waits for whoever holds its next tile.
    pub pass_through: bool,
}

impl Path {
    /// A path planned by a movement range, walked as it is: through allies, never re-planned
    /// around units.
    pub fn through(cells: Vec<Pos>, cost: f64) -> Self {
        let goal = cells.len() - 1;
        Self {
            cells,
            cost,
            next: 1,
            waypoints: vec![goal],
            waited: 0.0,
            replans: 0,
            pass_through: true,
        }
    }

    pub fn goal(&self) -> Pos {
        self.cells[self.cells.len() - 1]
    }

    /// The tiles still to enter.
    pub fn remaining(&self) -> &[Pos] {
        &self.cells[self.next.min(self.cells.len())..]
    }

    fn remaining_waypoints(&self) -> Vec<Pos> {
        self.waypoints
            .iter()
            .filter(|&&i| i >= self.next)
            .map(|&i| self.cells[i])
            .collect()
    }
}

/// What the last search did, for the HUD and the search overlay.
#[derive(Resource, Clone, Debug, Default)]
pub struct LastSearch {
    pub unit: String,
    pub algorithm: &'static str,
    pub found: bool,
    pub cost: f64,
    pub steps: usize,
    pub expanded: usize,
    pub micros: f64,
    /// The expanded cells in order.
    pub expansions: Vec<Pos>,
}

/// One reusable search context for every order.
#[derive(Resource, Default)]
struct Pathfinder(SearchContext);

pub(super) fn plugin(app: &mut App) {
    app.add_message::<MoveOrder>()
        .add_message::<StopOrder>()
        .add_message::<OrderRefused>()
        .add_message::<Replan>()
        .init_resource::<LastSearch>()
        .init_resource::<Pathfinder>()
        .add_systems(
            Update,
            (stop_units, plan_orders, replan_paths)
                .chain()
                .in_set(AppSystems::Plan)
                .run_if(resource_exists::<Level>),
        );
}

fn stop_units(mut commands: Commands, mut stops: MessageReader<StopOrder>) {
    for stop in stops.read() {
        for &unit in &stop.units {
            commands.entity(unit).remove::<Path>();
        }
    }
}

type UnitState<'a> = (
    Entity,
    &'a Unit,
    &'a MovementClass,
    &'a Tile,
    Option<&'a Path>,
);

fn plan_orders(
    mut commands: Commands,
    mut orders: MessageReader<MoveOrder>,
    mut refused: MessageWriter<OrderRefused>,
    mut finder: ResMut<Pathfinder>,
    mut last: ResMut<LastSearch>,
    level: Res<Level>,
    units: Query<UnitState>,
) {
    // Paths planned this frame: they are not in the world until commands apply, yet a
    // second order in the same frame (a shift+click waypoint) must build on them.
    let mut planned: HashMap<Entity, Path> = HashMap::new();
    for order in orders.read() {
        let mut ordered: Vec<UnitState> = order
            .units
            .iter()
            .filter_map(|&e| units.get(e).ok())
            .collect();
        ordered.sort_by(|a, b| a.1.name.cmp(&b.1.name));
        // Tiles others will hold: where idle units stand and where moving ones are going.
        let mut claimed: HashSet<Pos> = units
            .iter()
            .filter(|u| !order.units.contains(&u.0))
            .map(|(entity, _, _, tile, path)| {
                planned.get(&entity).or(path).map_or(tile.0, Path::goal)
            })
            .collect();
        for (entity, unit, &class, tile, path) in ordered {
            let path = planned.get(&entity).or(path).cloned();
            let from = match &path {
                Some(path) if order.append => path.goal(),
                _ => tile.0,
            };
            let grid = level.grid(class);
            let refuse = |reason: String| OrderRefused {
                unit: entity,
                goal: order.goal,
                reason: format!("{}: {reason}", unit.name),
            };
            if let Err(reason) = check_goal(&level, grid, class, from, order.goal) {
                refused.write(refuse(reason));
                continue;
            }
            let Some(goal) = free_goal(grid, from, order.goal, &claimed) else {
                refused.write(refuse("no free tile near there".into()));
                continue;
            };
            match search_legs(&mut finder.0, &mut last, &unit.name, grid, from, &[goal]) {
                Ok(leg) => {
                    claimed.insert(goal);
                    let new = match path {
                        Some(old) if order.append => old.extended(leg),
                        _ => leg,
                    };
                    planned.insert(entity, new);
                }
                Err(reason) => {
                    refused.write(refuse(reason.to_string()));
                }
            }
        }
    }
    for (entity, path) in planned {
        commands.entity(entity).insert(path);
    }
}

/// Why a goal cannot be ordered, in the player's words.
fn check_goal(
    level: &Level,
    grid: &Grid,
    class: MovementClass,
    from: Pos,
    goal: Pos,
) -> Result<(), String> {
    let Some(terrain) = level.terrain(goal) else {
        return Err(format!("{goal} is outside the map"));
    };
    if !grid.is_passable(goal) {
        return Err(format!(
            "{} at {goal} is impassable for {}",
            terrain.name,
            class.name()
        ));
    }
    if !grid.is_passable(from) {
        return Err(format!(
            "it stands on terrain impassable for {}",
            class.name()
        ));
    }
    if !grid.connected(from, goal, SearchOptions::default().diagonal) {
        return Err(format!(
            "{goal} cannot be reached: {}",
            NoPath::DifferentRegions
        ));
    }
    Ok(())
}

/// The tile nearest to `goal` (by straight-line distance, ties by row then column) that is
/// passable, reachable from `from` and not claimed. `goal` itself when it is free.
fn free_goal(grid: &Grid, from: Pos, goal: Pos, claimed: &HashSet<Pos>) -> Option<Pos> {
    let diagonal = SearchOptions::default().diagonal;
    let free = |p: Pos| (p == from || !claimed.contains(&p)) && grid.connected(from, p, diagonal);
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

impl Path {
    fn extended(mut self, leg: Path) -> Path {
        let offset = self.cells.len() - 1;
        self.cells.extend_from_slice(&leg.cells[1..]);
        self.cost += leg.cost;
        self.waypoints
            .extend(leg.waypoints.iter().map(|i| i + offset));
        self
    }
}

/// Searches `from` → each waypoint in turn with A* and joins the legs into one path.
fn search_legs(
    context: &mut SearchContext,
    last: &mut LastSearch,
    unit: &str,
    grid: &Grid,
    from: Pos,
    waypoints: &[Pos],
) -> Result<Path, NoPath> {
    let options = SearchOptions {
        record_expansions: true,
        ..SearchOptions::default()
    };
    let mut path = Path {
        cells: vec![from],
        cost: 0.0,
        next: 1,
        waypoints: Vec::new(),
        waited: 0.0,
        replans: 0,
        pass_through: false,
    };
    for &waypoint in waypoints {
        let started = Instant::now();
        let found = context.search(grid, path.goal(), waypoint, &options);
        *last = LastSearch {
            unit: unit.to_owned(),
            algorithm: "A*",
            found: found.is_ok(),
            cost: found.as_ref().map_or(0.0, |f| f.path.cost),
            steps: found.as_ref().map_or(0, |f| f.path.cells.len() - 1),
            expanded: context.stats().expanded,
            micros: started.elapsed().as_secs_f64() * 1e6,
            expansions: context.expansions().to_vec(),
        };
        let found = found?;
        path.cells.extend_from_slice(&found.path.cells[1..]);
        path.cost += found.path.cost;
        path.waypoints.push(path.cells.len() - 1);
    }
    Ok(path)
}

/// Re-plans paths that a terrain change crosses, and paths of units that movement found blocked.
#[expect(
    clippy::too_many_arguments,
    reason = "a system: each parameter is one piece of world state"
)]
fn replan_paths(
    mut commands: Commands,
    mut changes: MessageReader<LevelChanged>,
    mut replans: MessageReader<Replan>,
    mut refused: MessageWriter<OrderRefused>,
    mut finder: ResMut<Pathfinder>,
    mut last: ResMut<LastSearch>,
    level: Res<Level>,
    units: Query<UnitState>,
) {
    let changed: HashSet<Pos> = changes
        .read()
        .flat_map(|c| c.cells.iter().copied())
        .collect();
    let mut requests: Vec<Replan> = replans.read().copied().collect();
    requests.extend(
        units
            .iter()
            .filter(|(_, _, _, _, path)| {
                path.is_some_and(|p| p.remaining().iter().any(|c| changed.contains(c)))
            })
            .map(|(unit, ..)| Replan {
                unit,
                avoid_units: false,
            }),
    );
    for request in requests {
        let Ok((entity, unit, &class, tile, Some(path))) = units.get(request.unit) else {
            continue;
        };
        let mut grid = level.grid(class).clone();
        let mut waypoints = path.remaining_waypoints();
        if request.avoid_units {
            let others: HashSet<Pos> = units
                .iter()
                .filter(|u| u.0 != entity)
                .map(|u| u.3.0)
                .collect();
            for &other in &others {
                // Editing a valid cell of our own clone cannot fail.
                grid.set_cost(other, None).ok();
            }
            // A goal someone else now stands on: settle for the nearest free tile.
            if let Some(goal) = waypoints.last_mut()
                && others.contains(goal)
                && let Some(free) = free_goal(&grid, tile.0, *goal, &others)
            {
                *goal = free;
            }
        }
        match search_legs(
            &mut finder.0,
            &mut last,
            &unit.name,
            &grid,
            tile.0,
            &waypoints,
        ) {
            Ok(new) => {
                commands.entity(entity).insert(Path {
                    replans: path.replans,
                    ..new
                });
            }
            Err(reason) => {
                commands.entity(entity).remove::<Path>();
                refused.write(OrderRefused {
                    unit: entity,
                    goal: path.goal(),
                    reason: format!("{}: no way on to {}: {reason}", unit.name, path.goal()),
                });
            }
        }
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
            free_goal(&grid, Pos::new(0, 0), Pos::new(4, 4), &claimed),
            Some(Pos::new(4, 4))
        );
        assert_eq!(
            free_goal(&grid, Pos::new(0, 0), Pos::new(2, 2), &claimed),
            Some(Pos::new(1, 2))
        );
        assert_eq!(
            free_goal(&grid, Pos::new(2, 2), Pos::new(2, 2), &claimed),
            Some(Pos::new(2, 2)),
            "a unit's own tile is free for it"
        );
    }

    #[test]
    fn appending_a_leg_keeps_waypoints_and_costs() {
        let a = Path {
            cells: vec![Pos::new(0, 0), Pos::new(1, 0)],
            cost: 1.0,
            next: 1,
            waypoints: vec![1],
            waited: 0.0,
            replans: 0,
            pass_through: false,
        };
        let b = Path {
            cells: vec![Pos::new(1, 0), Pos::new(1, 1), Pos::new(1, 2)],
            cost: 2.5,
            next: 1,
            waypoints: vec![2],
            waited: 0.0,
            replans: 0,
            pass_through: false,
        };
        let joined = a.extended(b);
        assert_eq!(joined.cells.len(), 4);
        assert_eq!(joined.waypoints, vec![1, 3]);
        assert_eq!(joined.cost, 3.5);
        assert_eq!(joined.goal(), Pos::new(1, 2));
    }
}
