//! The searches behind an order: whether a unit can be sent to a goal, the tiles near it a
//! unit can take, and the A* legs of a path through waypoints, recorded for the search view.

use std::collections::HashSet;
use std::time::Instant;

use bevy::prelude::*;
use tilewalk_path::{
    Board, Cch, CchMetric, CchQuery, Grid, Landmarks, NoPath, Passage, Pos, SearchContext,
    SearchOptions,
};

use super::types::{Path, Refusal, SearchRecord, ShortOfGoal, ShortOfWhy, UnreachableGoals};
use crate::navigation::{Navigation, step_length};
use crate::units::MovementClass;

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
pub(super) fn free_goal(
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
    /// Where a real-time [`MoveOrder`](super::MoveOrder) to `goal` sends a unit of `class`
    /// setting out from `from` (the tile it holds, or its path's end for a waypoint), as the
    /// plugin's orders decide it: `goal` itself when the unit can get there; when it cannot
    /// and `rule` is [`UnreachableGoals::Nearest`], the tile nearest `goal` it can reach
    /// ([`Navigation::nearest_reachable`]) and why it stops short; else why the order is
    /// refused: `goal` off the map, impassable for the class, in a region the unit cannot
    /// reach, or the unit standing on impassable terrain with no way off. A move preview
    /// that asks this shows what the order will do.
    pub fn order_goal(
        &self,
        class: MovementClass,
        from: Pos,
        goal: Pos,
        rule: UnreachableGoals,
    ) -> Result<(Pos, Option<ShortOfGoal>), Refusal> {
        self.aim(class, from, goal, rule, || {
            nearest_reachable(self.grid(class), self.board(), from, goal)
        })
    }

    /// [`Navigation::order_goal`], the nearest reachable tile found by `nearest` (an order of
    /// many units finds it once per class and region).
    pub(super) fn aim(
        &self,
        class: MovementClass,
        from: Pos,
        goal: Pos,
        rule: UnreachableGoals,
        nearest: impl FnOnce() -> Option<Pos>,
    ) -> Result<(Pos, Option<ShortOfGoal>), Refusal> {
        let reason = match check_goal(self, class, from, goal) {
            Ok(()) => return Ok((goal, None)),
            Err(reason) => reason,
        };
        let Some(why) = short_of(&reason, rule) else {
            return Err(reason);
        };
        nearest()
            .map(|tile| (tile, Some(ShortOfGoal { goal, why })))
            .ok_or(reason)
    }

    /// The tile an order to `goal` sends a unit of `class` standing on `from` to when it
    /// cannot reach `goal` ([`UnreachableGoals::Nearest`]): of the tiles it can walk to, the
    /// one nearest `goal` in a straight line and those at most
    /// [`STOP_NEAR_SLACK`](tilewalk_path::STOP_NEAR_SLACK) tiles further are candidates,
    /// those within a step and a half of the cheapest to walk to from `from` are weighed,
    /// and the nearest `goal` wins ([`Grid::stop_near`]). `None` when it can
    /// walk nowhere.
    pub fn nearest_reachable(&self, class: MovementClass, from: Pos, goal: Pos) -> Option<Pos> {
        nearest_reachable(self.grid(class), self.board(), from, goal)
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

/// The tile an order to a `goal` the unit on `from` cannot reach sends it to
/// ([`UnreachableGoals::Nearest`]): of the tiles it can walk to, those at most
/// [`STOP_NEAR_SLACK`](tilewalk_path::STOP_NEAR_SLACK) tiles further from `goal` than the
/// nearest one are candidates, those within a step and a half of the cheapest to walk to are
/// weighed, and the nearest `goal` wins ([`Grid::stop_near`]).
pub(super) fn nearest_reachable(grid: &Grid, board: Board, from: Pos, goal: Pos) -> Option<Pos> {
    let exits: Vec<Pos> = exits(grid, board, from, None).collect();
    grid.stop_near(goal, from, board, |p| {
        exits.iter().any(|&e| grid.connected(e, p, board))
    })
}

/// The tile a group order to a `goal` its units on `from`'s side cannot reach gathers them
/// around: of the tiles they can walk to, the nearest to `goal` in a straight line
/// ([`Grid::nearest`]). Their tiles are then picked around it by travel cost, so no one
/// unit's way decides where the others stop.
pub(super) fn nearest_for_group(grid: &Grid, board: Board, from: Pos, goal: Pos) -> Option<Pos> {
    let exits: Vec<Pos> = exits(grid, board, from, None).collect();
    grid.nearest(goal, from, |p| {
        exits.iter().any(|&e| grid.connected(e, p, board))
    })
}

impl Path {
    pub(super) fn extended(mut self, leg: Path) -> Path {
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
pub(super) struct Recorder {
    pub(super) unit: Entity,
    pub(super) record: bool,
}

/// What guides a long order's legs: its class's landmark tables, or the map's contraction
/// hierarchy with the class's weights and a worker's query memory.
pub(super) enum Guide<'a> {
    Landmarks(&'a Landmarks),
    Hierarchy {
        cch: &'a Cch,
        metric: &'a CchMetric,
        query: &'a mut CchQuery,
    },
}

/// The work of a hierarchy query: the arcs it scanned ([`CchQuery::scanned`]), four to a
/// unit, rounded up, so that a unit of its work takes about the time of a cell A* expands
/// (measured on the plugin's tests' 256 × 24 maps, all eight boards: a long query scans
/// 6,000 to 7,000 arcs in 250 to 330 µs, where A* expands about 5,400 cells in 600 to
/// 840 µs, in a test build).
pub(super) fn hierarchy_work(scanned: usize) -> usize {
    scanned.div_ceil(4)
}

/// Searches `from` → each waypoint in turn with A* and joins the legs into one path.
/// `avoid` says which tiles to treat as walls (units' tiles, on a re-plan around units;
/// `from` is never one): an overlay on the grid, which is not copied. With a `guide` (and
/// no `avoid`), the legs are searched by ALT with landmark tables, or queried on the
/// contraction hierarchy (`CCH`): as exact, and quicker on long ways. A query the hierarchy
/// cannot answer (no way, or weights that do not fit the grid) is searched by A*, its
/// work counted too.
pub(super) fn search_legs(
    context: &mut SearchContext,
    records: &mut Vec<SearchRecord>,
    recorder: Recorder,
    grid: &Grid,
    board: Board,
    from: Pos,
    waypoints: &[Pos],
    avoid: Option<&dyn Fn(Pos) -> bool>,
    mut guide: Option<Guide>,
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
        let mut queried = 0;
        if let Some(Guide::Hierarchy { cch, metric, query }) = &mut guide
            && avoid.is_none()
        {
            let found = query.path(cch, metric, grid, from, to);
            queried = hierarchy_work(query.scanned());
            if let Ok(path) = found {
                records.push(SearchRecord {
                    unit: Some(recorder.unit),
                    algorithm: "CCH",
                    found: true,
                    cost: path.cost,
                    steps: path.cells.len() - 1,
                    expanded: queried,
                    micros: started.elapsed().as_secs_f64() * 1e6,
                    expansions: Vec::new(),
                });
                return Ok(path);
            }
        }
        let (found, algorithm) = match &guide {
            Some(Guide::Landmarks(tables)) if avoid.is_none() && tables.fits(grid) => {
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
            expanded: context.stats().expanded + queried,
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
            let mut best: Option<tilewalk_path::CellPath> = None;
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
pub(super) fn exits<'a>(
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
