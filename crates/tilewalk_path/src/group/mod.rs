//! Group orders: N units sent to one click end on N distinct tiles near it, each on a
//! cheapest path to its own tile, for the price of a few cost-to-goal fields and a few
//! searches from all the units at once ("waves") instead of N searches (or, on a grid of
//! one cost, N jump point searches, which cost less still).
//!
//! The rules, and the design behind them, are in the [crate docs](crate#group-orders).

use std::borrow::Borrow;
use std::collections::VecDeque;

use crate::board::Board;
use crate::field::CostField;
use crate::grid::Grid;
use crate::memory::{map_pages, zeroed};
use crate::pos::Pos;

mod class;
mod member;
mod pairing;
mod rivers;
mod router;
mod toward;
mod types;

use class::*;
use member::*;
use pairing::*;
use router::*;
pub use types::*;

/// Plans one group order with fresh memory. Use a [`GroupPlanner`] for repeated orders.
pub fn plan_group<G: Borrow<Grid>>(
    grids: &[G],
    order: &GroupOrder,
) -> Result<Vec<Result<Route, Stranded>>, GroupError> {
    GroupPlanner::new().plan(grids, order)
}

/// A per-cell mark valid for one generation.
#[derive(Clone, Debug, Default)]
struct Marks {
    stamps: Vec<u32>,
    generation: u32,
}

impl Marks {
    /// Sizes the marks for `cells` cells and maps their pages, when not of that size yet.
    fn reserve(&mut self, cells: usize) {
        if self.stamps.len() != cells {
            self.begin(cells);
            map_pages(&mut self.stamps);
        }
    }

    fn begin(&mut self, cells: usize) {
        if self.stamps.len() != cells || self.generation == u32::MAX {
            self.stamps = zeroed(cells);
            self.generation = 0;
        }
        self.generation += 1;
    }

    fn set(&mut self, index: usize) {
        self.stamps[index] = self.generation;
    }

    fn get(&self, index: usize) -> bool {
        self.stamps[index] == self.generation
    }
}

/// Reusable memory for group orders: keep one and plan every order with it, at once
/// ([`Self::plan`]) or a budget of work at a time ([`Self::start`], [`Self::advance`]). The
/// rules it plans by are in the [crate docs](crate#group-orders).
#[derive(Debug, Default)]
pub struct GroupPlanner {
    click_field: CostField,
    /// Cells that no unit of this order may end on: occupied, or taken by an earlier class.
    taken: Marks,
    /// Per movement class: the memory its units are routed with, side by side with the
    /// other classes' units ([`Router`]).
    routers: Vec<Router>,
    /// The work of picking the tiles: the click fields' cells.
    stats: GroupStats,
    /// The order under way, if any.
    planning: Option<Planning>,
}

/// The lanes the movement classes of an order are routed in, side by side: each lane is a
/// thread with an even share of a call's budget, its classes one after the other. Their
/// number changes which units each call decides, so it is fixed rather than read from the
/// machine, and a call's result is the same everywhere (why two:
/// [`docs/design/group-orders.md`], "Lanes, budget and memory").
///
/// [`docs/design/group-orders.md`]: https://github.com/tilewalk/tilewalk/blob/main/docs/design/group-orders.md
const LANES: usize = 2;

/// Per class being routed, in index order (`searched[c]`: whether class `c` is searched one
/// unit at a time, [`searches_each_unit`]): its lane and its share of `budget`. The classes
/// fill the [`LANES`] lanes as evenly as their number allows, in index order but those
/// searched one unit at a time first: their searches cost little beside the others' fields
/// and waves, so they share a lane with the first of those rather than the last (three
/// classes, the last one searched: it and the first class in one lane, the second alone).
/// Each lane gets an even share of the budget, and each of its classes an even share of the
/// lane's (the first ones one more while any is left over).
fn lane_shares(budget: usize, searched: &[bool]) -> Vec<(usize, usize)> {
    let share =
        |total: usize, parts: usize, part: usize| total / parts + usize::from(part < total % parts);
    let count = searched.len();
    let lanes = LANES.min(count);
    // The classes in the order they fill the lanes.
    let mut order: Vec<usize> = (0..count).collect();
    order.sort_by_key(|&c| !searched[c]);
    let lane_at = |place: usize| place * lanes / count;
    let mut shares = vec![(0, 0); count];
    for (place, &class) in order.iter().enumerate() {
        let lane = lane_at(place);
        let first = (0..count).position(|p| lane_at(p) == lane).unwrap_or(place);
        let in_lane = (0..count).filter(|&p| lane_at(p) == lane).count();
        let lane_budget = share(budget, lanes, lane);
        shares[class] = (lane, share(lane_budget, in_lane, place - first));
    }
    shares
}

/// An order under way: what is left of it.
#[derive(Clone, Debug)]
struct Planning {
    board: Board,
    /// The grids' count and size at `start`, to check that `advance` gets the same.
    grids: usize,
    size: (u32, u32),
    /// Units refused before any work, for the next `advance` to hand out.
    refused: Vec<(usize, Result<Route, Stranded>)>,
    /// The classes with units still to decide, in index order: the first is under way.
    classes: VecDeque<ClassPlan>,
}

impl GroupPlanner {
    /// A planner with no memory yet: the first order (or [`Self::reserve`]) sizes it.
    pub fn new() -> Self {
        Self::default()
    }

    /// What planning the order under way (or the last one) did so far: the whole order's
    /// totals since [`Self::start`].
    pub fn stats(&self) -> GroupStats {
        self.routers
            .iter()
            .fold(self.stats, |total, router| total.plus(router.stats))
    }

    /// Sizes the planner's memory for orders on `grids` (one per movement class, all of one
    /// size) and has the OS map all of it now, so that the first order on them does not pay
    /// for it. Planning needs about 64 bytes a cell per movement class (84 for a class of one
    /// cost, whose units may be searched one at a time) and 28 more.
    ///
    /// Without the call, [`Self::start`] allocates that memory zeroed and the OS maps its
    /// pages as the order first writes them: a program that never gives a group order never
    /// pays for it, and an order over a small part of a large map only for that part; but
    /// the first order's first calls are slower (on the army benchmark's 512x512 map, its
    /// first frame takes over one and a half times as long). Call it when a group order
    /// becomes likely (the game does when two or more units are first selected). Memory
    /// already of the right size is left as it is, and an order under way is never
    /// disturbed: one on grids of this size goes on and plans the same as without the call;
    /// while one on grids of another size or number is under way, the call does nothing
    /// (its memory is in use, and the next [`Self::start`] sizes it anyway).
    pub fn reserve<G: Borrow<Grid>>(&mut self, grids: &[G]) {
        let Some(first) = grids.first().map(Borrow::borrow) else {
            return;
        };
        let size = (first.width(), first.height());
        if self
            .planning
            .as_ref()
            .is_some_and(|p| p.size != size || p.grids != grids.len())
        {
            return;
        }
        let cells = first.costs().len();
        self.click_field.reserve(first);
        self.taken.reserve(cells);
        self.routers.resize_with(grids.len(), Router::default);
        for (router, grid) in self.routers.iter_mut().zip(grids) {
            router.reserve(first);
            if grid.borrow().uniform_cost().is_some() {
                // Its units may be searched one at a time (on the 8-way board).
                router.search.reserve(cells);
            }
        }
    }

    /// Plans `order`: one result per unit, in the order of `order.units`. `grids[c]` is the
    /// map as movement class `c` sees it; all must have the same size. An order under way
    /// ([`Self::start`]) is dropped.
    pub fn plan<G: Borrow<Grid>>(
        &mut self,
        grids: &[G],
        order: &GroupOrder,
    ) -> Result<Vec<Result<Route, Stranded>>, GroupError> {
        self.start(grids, order)?;
        let mut routes: Vec<Option<Result<Route, Stranded>>> = vec![None; order.units.len()];
        while self.is_planning() {
            for (unit, route) in self.advance(grids, usize::MAX).decided {
                routes[unit] = Some(route);
            }
        }
        Ok(routes
            .into_iter()
            .map(|route| route.expect("a done order has decided every unit"))
            .collect())
    }

    /// Starts planning `order` (an order under way is dropped, even when this one is
    /// refused). Nothing is routed yet; the units and occupied tiles are copied, so `order`
    /// need not outlive the call. `grids` as for [`Self::plan`]; [`Self::advance`] does the
    /// work.
    pub fn start<G: Borrow<Grid>>(
        &mut self,
        grids: &[G],
        order: &GroupOrder,
    ) -> Result<(), GroupError> {
        self.planning = None;
        self.stats = GroupStats::default();
        let unknown = |unit: usize, u: &Unit| {
            let error = Stranded::UnknownClass {
                class: u.class,
                classes: grids.len(),
            };
            (unit, Err(error))
        };
        let Some(first) = grids.first().map(Borrow::borrow) else {
            self.planning = Some(Planning {
                board: order.board,
                grids: 0,
                size: (0, 0),
                refused: order
                    .units
                    .iter()
                    .enumerate()
                    .map(|(i, u)| unknown(i, u))
                    .collect(),
                classes: VecDeque::new(),
            });
            return Ok(());
        };
        let (width, height) = (first.width(), first.height());
        for (class, grid) in grids.iter().enumerate() {
            let grid = grid.borrow();
            if (grid.width(), grid.height()) != (width, height) {
                return Err(GroupError::GridSizes {
                    class,
                    expected: (width, height),
                    found: (grid.width(), grid.height()),
                });
            }
        }
        if !first.contains(order.click) {
            return Err(GroupError::ClickOutside {
                pos: order.click,
                width,
                height,
            });
        }
        let cells = first.costs().len();
        self.taken.begin(cells);
        for &pos in order.occupied.iter().filter(|p| first.contains(**p)) {
            self.taken.set(first.index(pos));
        }
        self.routers.resize_with(grids.len(), Router::default);
        for router in &mut self.routers {
            router.reset(cells);
        }
        // Every refusal that needs no work is made here: unknown classes, starts outside
        // the map or impassable, and units in a region without the click (or a shore).
        let mut refused = Vec::new();
        let mut members: Vec<Vec<Member>> = vec![Vec::new(); grids.len()];
        for (unit, u) in order.units.iter().enumerate() {
            let Some(grid) = grids.get(u.class).map(Borrow::borrow) else {
                refused.push(unknown(unit, u));
                continue;
            };
            let error = if !grid.contains(u.start) {
                Stranded::StartOutside {
                    pos: u.start,
                    width,
                    height,
                }
            } else if let Some(region) = grid.region(u.start, order.board) {
                members[u.class].push(Member {
                    unit,
                    start: grid.index(u.start),
                    region,
                });
                continue;
            } else {
                Stranded::StartBlocked(u.start)
            };
            refused.push((unit, Err(error)));
        }
        let mut classes = VecDeque::new();
        for (class, members) in members.into_iter().enumerate() {
            if !members.is_empty() {
                let plan =
                    ClassPlan::new(grids[class].borrow(), order, class, members, &mut refused);
                if !plan.members.is_empty() {
                    classes.push_back(plan);
                }
            }
        }
        refused.sort_by_key(|&(unit, _)| unit);
        self.planning = Some(Planning {
            board: order.board,
            grids: grids.len(),
            size: (width, height),
            refused,
            classes,
        });
        Ok(())
    }

    /// Goes on with the order under way until the work done in this call reaches `budget`
    /// or the order is done. Work is cells settled by fields, plus cells expanded by waves
    /// or walked to find their rivers, plus the jump points expanded by the searches of a
    /// class searched one unit at a time (on a uniform-cost 8-way grid), plus the routes'
    /// paths at [`PATH_CELLS_PER_WORK`] cells a unit (what [`GroupStats::settled`],
    /// [`GroupStats::searched`] and [`GroupStats::paths`] count). Field builds and waves
    /// (the walk of their rivers included) stop on the cell that reaches the budget, and the
    /// next call goes on with them from there; a unit's path (with its search, when it has
    /// one of its own) is written whole, so it is the one step that can cross the budget.
    /// The tiles are picked first, a class at a time in index order; then the classes are
    /// routed side by side, in two lanes on threads of their own, each lane an even share
    /// of what is left of the budget, the classes in a lane an even share of its share (a
    /// class done before its share is used passes the rest on to the others). A call thus
    /// does less than `budget.max(1)` plus one unit's work per class ([`Advance::last`]).
    /// Every call does some work while the order has work left, so a budget of 0 acts as 1
    /// and a caller cannot spin forever. Units refused before any work come out of the
    /// first call. `grids` must be the grids given to [`Self::start`]. With no order under
    /// way it returns an empty, done [`Advance`].
    ///
    /// ```
    /// use tilewalk_path::{Board, Grid, GroupOrder, GroupPlanner, PATH_CELLS_PER_WORK, Pos, Unit};
    ///
    /// // Grass and mud in stripes (on a grid of one cost, each unit would be searched alone,
    /// // its search counting toward the step that can cross the budget).
    /// let grid = Grid::from_fn(16, 16, |p| Some(if p.y % 4 == 0 { 3.0 } else { 1.0 })).unwrap();
    /// let units: Vec<Unit> = (0..16).map(|x| Unit { start: Pos::new(x, 15), class: 0 }).collect();
    /// let order = GroupOrder { units: &units, click: Pos::new(8, 0), occupied: &[], board: Board::default() };
    /// let mut planner = GroupPlanner::new();
    /// planner.start(&[&grid], &order).unwrap();
    /// let mut routes = vec![None; units.len()];
    /// while planner.is_planning() {
    ///     // One frame: about 40 cells of work.
    ///     let frame = planner.advance(&[&grid], 40);
    ///     assert!(frame.work - frame.last < 40);
    ///     if frame.work > 40 {
    ///         // Past the budget only by one unit's path, walked whole: the last route.
    ///         let (_, route) = frame.decided.last().unwrap();
    ///         let cells = route.as_ref().unwrap().path.cells.len();
    ///         assert_eq!(cells.div_ceil(PATH_CELLS_PER_WORK), frame.last);
    ///     }
    ///     for (unit, route) in frame.decided {
    ///         routes[unit] = Some(route); // the unit can start walking now
    ///     }
    /// }
    /// let all_at_once = planner.plan(&[&grid], &order).unwrap();
    /// assert_eq!(routes.into_iter().map(Option::unwrap).collect::<Vec<_>>(), all_at_once);
    /// ```
    pub fn advance<G: Borrow<Grid>>(&mut self, grids: &[G], budget: usize) -> Advance {
        self.go_on(grids, budget, true)
    }

    /// [`Self::advance`] up to the tiles only: goes on with the order under way until every
    /// one of its movement classes has picked its tiles ([`Self::picked_tiles`]) or the work
    /// done in this call reaches `budget`, deciding only the units it refuses or strands. A
    /// host planning several orders side by side picks each order's tiles in turn, one
    /// after the other in a frame (picking is cheap), and then routes them all side by side.
    /// A call once every class has its tiles does nothing.
    pub fn advance_picking<G: Borrow<Grid>>(&mut self, grids: &[G], budget: usize) -> Advance {
        self.go_on(grids, budget, false)
    }

    /// [`Self::advance`], routing the units or not.
    fn go_on<G: Borrow<Grid>>(&mut self, grids: &[G], budget: usize, route: bool) -> Advance {
        let Some(mut planning) = self.planning.take() else {
            return Advance {
                done: true,
                ..Advance::default()
            };
        };
        debug_assert!(
            grids.len() == planning.grids
                && grids
                    .iter()
                    .all(|g| (g.borrow().width(), g.borrow().height()) == planning.size),
            "advance must get the grids that start got"
        );
        let mut advance = Advance {
            decided: std::mem::take(&mut planning.refused),
            ..Advance::default()
        };
        let budget = budget.max(1);
        // The tiles first, a class at a time in index order: each picks from what the
        // classes before it left.
        while advance.work < budget
            && let Some(at) = planning.classes.iter().position(|c| !c.picked())
        {
            let class = &mut planning.classes[at];
            let before = self.stats.work();
            let finished = self.pick(
                grids[class.class].borrow(),
                planning.board,
                class,
                &mut advance.decided,
                budget - advance.work,
            );
            let work = self.stats.work() - before;
            if work > 0 {
                advance.last = work;
                advance.work += work;
            }
            if finished && class.finished() {
                planning.classes.remove(at);
            }
        }
        // Then the units, every class side by side; again with what is left of the budget
        // when a class is done before its share is.
        while route && advance.work < budget && !planning.classes.is_empty() {
            self.route(grids, &mut planning, budget - advance.work, &mut advance);
        }
        advance.done = planning.classes.is_empty();
        if !advance.done {
            self.planning = Some(planning);
        }
        advance
    }

    /// Routes the classes of `planning` (every one has its tiles) side by side, in
    /// [`LANES`] lanes of an even share of `budget` each, each lane on a thread of its own
    /// and its classes one after the other on an even share of the lane's, every class with
    /// its own [`Router`]; and adds what they decided to `advance`, in class order. The
    /// shares depend on the budget and the number of classes alone, not on how the threads
    /// raced, so the same calls decide the same units.
    fn route<G: Borrow<Grid>>(
        &mut self,
        grids: &[G],
        planning: &mut Planning,
        budget: usize,
        advance: &mut Advance,
    ) {
        let board = planning.board;
        let searched: Vec<bool> = planning
            .classes
            .iter()
            .map(|c| matches!(c.phase, Phase::Search { .. }))
            .collect();
        let shares = lane_shares(budget, &searched);
        let mut routers: Vec<Option<&mut Router>> = self.routers.iter_mut().map(Some).collect();
        let mut jobs: Vec<Vec<_>> = Vec::new();
        for (place, (class, (lane, share))) in planning.classes.iter_mut().zip(shares).enumerate() {
            let router = routers[class.class]
                .take()
                .expect("one class of an order per movement class");
            if lane >= jobs.len() {
                jobs.resize_with(lane + 1, Vec::new);
            }
            if share > 0 {
                jobs[lane].push((place, grids[class.class].borrow(), class, router, share));
            }
        }
        // A lane whose every share is 0 (a budget smaller than the classes) gets no thread.
        jobs.retain(|lane| !lane.is_empty());
        type Job<'a> = (usize, &'a Grid, &'a mut ClassPlan, &'a mut Router, usize);
        let run = |lane: Vec<Job>| -> Vec<(usize, Routed)> {
            lane.into_iter()
                .map(|(place, grid, class, router, share)| {
                    (place, router.run(grid, board, class, share))
                })
                .collect()
        };
        // The first lane on this thread, the others on threads of their own.
        let mut routed: Vec<(usize, Routed)> = std::thread::scope(|scope| {
            let mut lanes = jobs.into_iter();
            let first = lanes.next();
            let threads: Vec<_> = lanes.map(|lane| scope.spawn(move || run(lane))).collect();
            let first = first.map(run).unwrap_or_default();
            let others = threads
                .into_iter()
                .flat_map(|thread| thread.join().expect("a router panicked"));
            first.into_iter().chain(others).collect()
        });
        // In class order, however the lanes were filled.
        routed.sort_by_key(|part| part.0);
        let routed = routed.into_iter().map(|part| part.1);
        let mut last = 0;
        for part in routed {
            advance.decided.extend(part.decided);
            advance.work += part.work;
            last += part.last;
        }
        if last > 0 {
            advance.last = last;
        }
        planning.classes.retain(|class| !class.finished());
    }

    /// Whether an order is under way: started, and not every unit decided yet.
    pub fn is_planning(&self) -> bool {
        self.planning.is_some()
    }

    /// The tiles of the order under way once every one of its movement classes has picked
    /// them, `None` while some class is still picking (or no order is under way). A class
    /// whose units are all decided is left out: its units' routes say where they go. A host
    /// planning several orders side by side starts the next one once this is known, and
    /// gives it these tiles as [`GroupOrder::occupied`], so that no two orders pick one tile.
    /// `grids` must be the grids given to [`Self::start`].
    pub fn picked_tiles<G: Borrow<Grid>>(&self, grids: &[G]) -> Option<Vec<Pos>> {
        let planning = self.planning.as_ref()?;
        planning.classes.iter().all(ClassPlan::picked).then(|| {
            planning
                .classes
                .iter()
                .flat_map(|class| {
                    let grid = grids[class.class].borrow();
                    class.tiles.iter().map(|&tile| grid.pos(tile))
                })
                .collect()
        })
    }

    /// Takes `class`'s next step in picking its tiles, doing at most `limit` work and
    /// pushing the units it strands onto `decided`; true once the class has its tiles (and
    /// its [`Router`] knows them). A step may do no work (starting the click field), but
    /// every step moves the class on.
    fn pick(
        &mut self,
        grid: &Grid,
        board: Board,
        class: &mut ClassPlan,
        decided: &mut Vec<(usize, Result<Route, Stranded>)>,
        limit: usize,
    ) -> bool {
        match class.phase {
            Phase::PickTiles => {
                class.tiles.clear();
                self.click_field.begin(grid);
                for &a in &class.anchors {
                    self.click_field.seed(a, 0.0);
                }
                self.stats.fields += 1;
                class.phase = Phase::PickingTiles;
                false
            }
            Phase::PickingTiles => {
                if !self.pick_tiles(grid, board, class, decided, limit) {
                    return false;
                }
                if searches_each_unit(grid, board) {
                    class.pairs =
                        pair_in_ranks(grid, board, class.click, &class.members, &class.tiles);
                    class.members.clear();
                    class.phase = Phase::Search { next: 0 };
                    return true;
                }
                let router = &mut self.routers[class.class];
                for &tile in &class.tiles {
                    router.is_tile[tile] = true;
                }
                router.marked.extend_from_slice(&class.tiles);
                class.phase = Phase::RouteField;
                true
            }
            _ => unreachable!("a class's tiles are picked once"),
        }
    }

    /// Goes on with the click's field for `class` for at most `limit` cells: picks the
    /// nearest free tiles as it settles them, and once every region has its tiles (or the
    /// field ran out of cells) strands the units of a region that ran out of them. True when
    /// it is finished.
    fn pick_tiles(
        &mut self,
        grid: &Grid,
        board: Board,
        class: &mut ClassPlan,
        decided: &mut Vec<(usize, Result<Route, Stranded>)>,
        limit: usize,
    ) -> bool {
        let mut wanted = class.members.len() - class.tiles.len();
        let (quotas, tiles) = (&mut class.quotas, &mut class.tiles);
        let taken = &self.taken;
        let before = self.click_field.stats().expanded;
        let finished =
            self.click_field
                .fill_for(grid, board, None, f64::INFINITY, limit, |index, _| {
                    if taken.get(index) {
                        return false;
                    }
                    let region = grid.region(grid.pos(index), board).unwrap_or(0);
                    if let Ok(at) = quotas.binary_search_by_key(&region, |q| q.0)
                        && quotas[at].1 > 0
                    {
                        quotas[at].1 -= 1;
                        tiles.push(index);
                        wanted -= 1;
                    }
                    wanted == 0
                });
        self.stats.settled += self.click_field.stats().expanded - before;
        if !finished {
            return false;
        }
        let quotas = &mut class.quotas;
        if wanted > 0 {
            // Some region ran out of free tiles: its units nearest the click keep theirs, so
            // the farthest are left out, as many as tiles are missing. The field ran to the
            // end, so every unit has its cost.
            let members = &mut class.members;
            let cost = |m: &Member| self.click_field.cost_at(m.start).unwrap_or(f64::INFINITY);
            members.sort_by(|a, b| cost(b).total_cmp(&cost(a)).then(b.unit.cmp(&a.unit)));
            members.retain(|m| {
                let at = quotas
                    .binary_search_by_key(&m.region, |q| q.0)
                    .expect("members were kept for their region's quota");
                if quotas[at].1 > 0 {
                    quotas[at].1 -= 1;
                    decided.push((m.unit, Err(Stranded::NoFreeTile(grid.pos(m.start)))));
                    false
                } else {
                    true
                }
            });
            members.sort_by_key(|m| m.unit);
        }
        for &tile in &class.tiles {
            self.taken.set(tile);
        }
        true
    }
}

#[cfg(test)]
mod tests {
    use super::toward::*;
    use super::*;
    use crate::moves::Heuristic;

    fn members(grid: &Grid, starts: &[(u32, u32)]) -> Vec<Member> {
        starts
            .iter()
            .enumerate()
            .map(|(unit, &(x, y))| Member {
                unit,
                start: grid.index(Pos::new(x, y)),
                region: 0,
            })
            .collect()
    }

    #[test]
    fn classes_share_two_lanes_in_index_order_searched_ones_first() {
        let waves = |count: usize| vec![false; count];
        assert_eq!(lane_shares(40, &waves(1)), [(0, 40)]);
        assert_eq!(lane_shares(40, &waves(2)), [(0, 20), (1, 20)]);
        // Three classes: the last has a lane (a core) to itself.
        assert_eq!(lane_shares(40, &waves(3)), [(0, 10), (0, 10), (1, 20)]);
        assert_eq!(lane_shares(41, &waves(3)), [(0, 11), (0, 10), (1, 20)]);
        assert_eq!(lane_shares(1, &waves(3)), [(0, 1), (0, 0), (1, 0)]);
        let four = lane_shares(7, &waves(4));
        assert_eq!(four, [(0, 2), (0, 2), (1, 2), (1, 1)]);
        // The last of three searched one unit at a time: it shares the first lane with the
        // first class (placed before it), and the second class has the other to itself.
        assert_eq!(
            lane_shares(40, &[false, false, true]),
            [(0, 10), (1, 20), (0, 10)]
        );
        assert_eq!(lane_shares(40, &[true, false]), [(0, 20), (1, 20)]);
        assert_eq!(
            lane_shares(41, &[false, true, true]),
            [(1, 20), (0, 11), (0, 10)]
        );
        for count in 1..9 {
            for budget in 0..50 {
                for searched in 0..1u32 << count {
                    let searched: Vec<bool> = (0..count).map(|c| searched >> c & 1 == 1).collect();
                    let shares = lane_shares(budget, &searched);
                    assert_eq!(shares.iter().map(|s| s.1).sum::<usize>(), budget);
                    // The classes searched one unit at a time are in lanes no later than
                    // the others, and each kind fills the lanes in index order.
                    for (a, b) in (0..count).flat_map(|a| (a + 1..count).map(move |b| (a, b))) {
                        if searched[a] == searched[b] || searched[a] {
                            assert!(shares[a].0 <= shares[b].0, "{searched:?}: {shares:?}");
                        }
                    }
                }
            }
        }
    }

    #[test]
    fn reserve_sizes_memory_without_changing_an_order_on_the_same_grids() {
        // A band of mud open at its east end, a wall with a gap below it, and a second class
        // that cannot enter the mud.
        let foot = Grid::from_fn(40, 30, |p| match (p.x, p.y) {
            (20, 13..) if p.y != 20 => None,
            (..30, 10..=12) => Some(3.0),
            _ => Some(1.0),
        })
        .unwrap();
        let horse = Grid::from_fn(40, 30, |p| foot.cost(p).filter(|&c| c < 2.0)).unwrap();
        let grids = [&foot, &horse];
        let units: Vec<Unit> = (0..60)
            .map(|i| Unit {
                start: Pos::new(i % 12, [3, 5, 7, 15, 17][i as usize / 12]),
                class: (i % 2) as usize,
            })
            .collect();
        let order = GroupOrder {
            units: &units,
            click: Pos::new(30, 20),
            occupied: &[Pos::new(30, 21)],
            board: Board::default(),
        };
        let fresh = GroupPlanner::new().plan(&grids, &order).unwrap();
        assert!(fresh.iter().all(Result::is_ok));
        let mut planner = GroupPlanner::new();
        planner.reserve(&grids);
        assert_eq!(planner.routers.len(), 2);
        assert_eq!(planner.routers[1].nodes.len(), foot.costs().len());
        assert_eq!(planner.plan(&grids, &order).unwrap(), fresh);
        // Reserved again in the middle of an order on the same grids: it goes on as before.
        planner.start(&grids, &order).unwrap();
        let mut routes = vec![None; units.len()];
        let mut calls = 0;
        while planner.is_planning() {
            for (unit, route) in planner.advance(&grids, 50).decided {
                routes[unit] = Some(route);
            }
            planner.reserve(&grids);
            calls += 1;
        }
        assert!(calls > 10, "the order was cut into {calls} calls");
        let routes: Vec<_> = routes.into_iter().map(Option::unwrap).collect();
        assert_eq!(routes, fresh);
        // Grids of another size leave an order under way alone, and are sized for once it
        // is done; no grids change nothing.
        let small = Grid::new(8, 8).unwrap();
        planner.start(&grids, &order).unwrap();
        let mut routes = vec![None; units.len()];
        for budget in [50, usize::MAX] {
            planner.reserve(&[&small, &small]);
            planner.reserve::<&Grid>(&[]);
            assert!(planner.is_planning());
            for (unit, route) in planner.advance(&grids, budget).decided {
                routes[unit] = Some(route);
            }
        }
        assert!(!planner.is_planning());
        let routes: Vec<_> = routes.into_iter().map(Option::unwrap).collect();
        assert_eq!(routes, fresh);
        planner.reserve(&[&small, &small]);
        assert_eq!(planner.routers[0].is_tile.len(), small.costs().len());
        assert_eq!(planner.plan(&grids, &order).unwrap(), fresh);
    }

    #[test]
    fn toward_splits_members_at_wide_gaps_only() {
        let grid = Grid::new(100, 100).unwrap();
        let board = Board::default();
        // A squad packed in columns 10 to 12 (three to a column): one box.
        let squad: Vec<(u32, u32)> = (0..9).map(|i| (10 + i % 3, 40 + i / 3)).collect();
        let toward = Toward::new(&grid, board, &members(&grid, &squad));
        assert_eq!(toward.count, 1);
        assert_eq!(toward.at(Pos::new(11, 41)), 0.0);
        assert_eq!(toward.at(Pos::new(20, 41)), 8.0);
        // Two armies 17 columns apart, and two rows 16 apart within the right one: the
        // columns split, the rows do not.
        let armies = [(0, 0), (2, 5), (20, 0), (21, 17)];
        let toward = Toward::new(&grid, board, &members(&grid, &armies));
        assert_eq!(toward.count, 2);
        assert_eq!(toward.at(Pos::new(1, 3)), 0.0);
        assert_eq!(toward.at(Pos::new(20, 10)), 0.0);
        assert_eq!(toward.at(Pos::new(11, 3)), 9.0); // 9 columns from either box
        let octile = Heuristic::Octile.distance(2, 3);
        assert!((toward.at(Pos::new(23, 20)) - octile).abs() < 1e-12);
        // Never more than TOWARD_BOXES boxes, whatever the gaps.
        let spread: Vec<(u32, u32)> = (0..5).map(|i| (i * 20, i * 20)).collect();
        let toward = Toward::new(&grid, board, &members(&grid, &spread));
        assert_eq!(toward.count, TOWARD_BOXES);
        for &(x, y) in &spread {
            assert_eq!(toward.at(Pos::new(x, y)), 0.0);
        }
    }
}
