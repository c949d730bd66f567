#![doc = include_str!("../README.md")]
//!
//! # How it works
//!
//! ## The cost model
//!
//! Each cell of a [`Grid`] has a movement cost (from [`MIN_COST`] to [`MAX_COST`]) or is
//! impassable. **Stepping into cell `b` costs `cost(b) × step length`**, where a step is 1
//! long orthogonally and √2 diagonally on a square board, and 1 between hexes. A path's
//! cost is the sum of its steps; the start cell's own cost is never paid. The same model prices movement ranges ([`SearchContext::range`])
//! and, in the game, the time a unit takes to walk a path, so the cheapest path is always
//! the fastest walk.
//!
//! ## Boards, neighbourhoods and heuristics
//!
//! The same grid of costs can be read as different [`Board`]s. On a square board,
//! [`Diagonal`] picks the moves: `Never` is 4-way (`square-4`); the others are 8-way and
//! differ at corners (`square-8` is `NoObstacles`, no corner cutting). On a hex board each
//! cell has six neighbours; the rows and columns are the stored ones, and a [`HexLayout`]
//! says which rows (pointy-top hexes) or columns (flat-top hexes) are drawn shifted by half
//! a hex, which decides who touches whom. By default A* uses the tightest admissible
//! [`Heuristic`] for the board (Manhattan for 4-way, octile for 8-way, the hex distance on
//! hexes) multiplied by the grid's smallest passable cost, so it stays optimal when some
//! terrain costs less than 1.
//!
//! Why not Manhattan everywhere? With diagonal moves it overestimates: two cells one
//! diagonal apart are √2 away, Manhattan says 2. An overestimating heuristic makes A*
//! return a costlier path. On this map, going from `S` to `E` with 8-way moves:
//!
//! ```text
//! S....
//! .....
//! ..#..
//! ....#
//! ....E
//! ```
//!
//! ```
//! use tilewalk_path::{find_path, Grid, Heuristic, Pos, SearchOptions};
//!
//! let walls = [Pos::new(2, 2), Pos::new(4, 3)];
//! let grid = Grid::from_fn(5, 5, |p| (!walls.contains(&p)).then_some(1.0)).unwrap();
//! let (start, goal) = (Pos::new(0, 0), Pos::new(4, 4));
//! let octile = find_path(&grid, start, goal, &SearchOptions::default()).unwrap();
//! let manhattan = SearchOptions { heuristic: Some(Heuristic::Manhattan), ..Default::default() };
//! let manhattan = find_path(&grid, start, goal, &manhattan).unwrap();
//! let sqrt2 = 2f64.sqrt();
//! assert!((octile.path.cost - (4.0 + 2.0 * sqrt2)).abs() < 1e-9); // optimal: 6.828
//! assert!((manhattan.path.cost - (6.0 + sqrt2)).abs() < 1e-9); // 7.414: a longer path
//! ```
//!
//! The same trap exists on hexes. Read with its rows and columns as a square grid, a hex
//! map has cells one step apart that differ by one column *and* one row: Manhattan counts
//! 2 for them, octile √2. Only the hex distance, Chebyshev, the straight line between
//! centres and zero never overestimate there; see [`Board::heuristic`]. Here `S` reaches
//! `E` in two steps down-right, but Manhattan makes that way look dearer than going right
//! first:
//!
//! ```text
//! odd-r: odd rows drawn shifted right      S . #
//!                                           . . .
//!                                          . E .
//! ```
//!
//! ```
//! use tilewalk_path::{find_path, Board, Grid, Heuristic, HexLayout, Pos, SearchOptions};
//!
//! let grid = Grid::from_fn(3, 3, |p| (p != Pos::new(2, 0)).then_some(1.0)).unwrap();
//! let board = Board::Hex(HexLayout::OddR);
//! let (start, goal) = (Pos::new(0, 0), Pos::new(1, 2));
//! assert_eq!(board.distance(start, goal), 2);
//! let hex = find_path(&grid, start, goal, &SearchOptions::on(board)).unwrap();
//! assert_eq!(hex.path.cells, [(0, 0), (0, 1), (1, 2)].map(Pos::from));
//! let manhattan = SearchOptions { heuristic: Some(Heuristic::Manhattan), ..SearchOptions::on(board) };
//! let manhattan = find_path(&grid, start, goal, &manhattan).unwrap();
//! assert_eq!(manhattan.path.cells, [(0, 0), (1, 0), (1, 1), (1, 2)].map(Pos::from));
//! ```
//!
//! ## Jump point search
//!
//! Where every passable cell costs the same and corners are not cut (Moving AI maps, mazes,
//! open fields), [`Algorithm::JumpPoint`] returns A*'s optimal cost while expanding only the
//! cells where an optimal path may turn, and scans the straight lines between them 64 cells
//! at a time. Elsewhere on a square board it falls back to plain A*. Its pruning rules are
//! those of square grids, so on a hex board it is an error ([`NoPath::NeedsSquareBoard`])
//! rather than a quiet A*. The `movingai` example checks both searches against every
//! Moving AI scenario in a folder and times them against the `pathfinding` crate's `astar`:
//! `cargo run --release -p tilewalk_path --example movingai -- ../shared/benchmarks/movingai`.
//!
//! ## Bidirectional search
//!
//! A* grows a tree of cheapest ways out from the start. It keeps a *frontier*: the cells
//! reached but not yet expanded, each with `g`, the cost of the cheapest way found to it,
//! and `h`, an estimate of the rest of the way that is never too high. It always expands
//! the frontier cell with the smallest `f = g + h`: looks at each neighbour, and where the
//! way through this cell is cheaper than the neighbour's `g`, writes down the new `g` and
//! this cell as its parent. With the heuristics here, a cell's `g` is final once it is
//! expanded, so when the goal is expanded its parents spell out a cheapest path.
//!
//! [`Algorithm::Bidirectional`] grows two such trees at once, one from the start and one
//! from the goal, expanding from whichever frontier has the smaller priority;
//! [`Algorithm::BidirectionalDijkstra`] does the same with `h = 0`. Three things make it
//! right:
//!
//! 1. **The backward tree walks steps backwards.** Stepping into a cell costs *that* cell's
//!    cost. The backward search labels each cell with the cost of the way from it to the
//!    goal, so a step from `w` to `v`, `v` nearer the goal, costs `cost(v)` (times the step's
//!    length): the cell being left towards the goal, not `w`, the one the backward search
//!    steps onto. Passage rules ([`Passage`]) make some steps one-way, and the backward
//!    search follows them backwards too: it never steps back onto a cell that cannot be left.
//! 2. **Meetings are steps, not cells.** Whenever a search looks at a step whose far end
//!    the other search has reached, it has found a whole path (start to here, the step,
//!    there to the goal), and it keeps the cheapest such path, `μ`.
//! 3. **It stops on a proof, not on contact.** It is tempting to stop as soon as the two
//!    trees touch, but the first cell both have expanded need not lie on the cheapest path.
//!    Here (4-way, entering a cell costs its number, the goal `G` costs 1), the cheapest path
//!    runs down the left column and along the bottom row, 1 + 3 + 6 + 1 = 11, but two
//!    Dijkstra searches taking turns first both expand the 7, whose path costs 14
//!    (`tests/bidirectional.rs` works it out).
//!
//! ```text
//! S 4 6
//! 1 7 5
//! 3 6 G
//! ```
//!
//! The two searches use *balanced* priorities (Ikeda et al., 1994): the forward search
//! orders cell `v` by `g(v) + (h_goal(v) − h_start(v) − H) / 2`, where `h_goal(v)` estimates
//! the way from `v` to the goal, `h_start(v)` the way from the start to `v` and `H` the way
//! from start to goal; the backward search swaps `h_goal` and `h_start`. Both then measure
//! in one currency, a *reduced cost* that no step makes negative, in which every path costs
//! its real cost minus `H`; a search expands cells in order of reduced cost, as Dijkstra
//! does. A path the searches have not yet found has a stretch from the start that reaches
//! beyond what the forward search has expanded, and a stretch to the goal beyond what the
//! backward search has, and these overlap (or the path would have been seen at the step
//! between them): its reduced cost is at least the smallest forward priority plus the
//! smallest backward priority. The search stops when that sum plus `H` reaches `μ`: no
//! path left to find can be cheaper. (With `h = 0` this is
//! the classic rule of bidirectional Dijkstra: stop when the two smallest costs add up to
//! the best path found.) The full argument is in `src/search/bidirectional.rs`.
//!
//! ```
//! use tilewalk_path::{Algorithm, Diagonal, Grid, Pos, SearchContext, SearchOptions};
//! use tilewalk_path::{Trace, TraceEvent};
//!
//! let costs = [[1.0, 4.0, 6.0], [1.0, 7.0, 5.0], [3.0, 6.0, 1.0]];
//! let grid = Grid::from_fn(3, 3, |p| Some(costs[p.y as usize][p.x as usize])).unwrap();
//! let options = SearchOptions {
//!     algorithm: Algorithm::BidirectionalDijkstra,
//!     ..SearchOptions::with_diagonal(Diagonal::Never)
//! };
//! let mut trace = Trace::new();
//! let (start, goal) = (Pos::new(0, 0), Pos::new(2, 2));
//! let found = SearchContext::new().search_traced(&grid, start, goal, &options, &mut trace).unwrap();
//! assert_eq!(found.path.cost, 11.0);
//! assert_eq!(found.path.cells, [(0, 0), (0, 1), (0, 2), (1, 2), (2, 2)].map(Pos::from));
//! // It met through the 7 first (14), then found 11, and stopped before expanding the 7.
//! let meetings: Vec<f64> = trace.events().iter().filter_map(|e| match e {
//!     TraceEvent::Meet { cost, .. } => Some(*cost),
//!     _ => None,
//! }).collect();
//! assert_eq!(meetings, [14.0, 11.0]);
//! ```
//!
//! It is not a faster A*. Balanced priorities pull each search towards its end half as hard
//! as A*'s `h` does, so both searches together usually expand more cells than A* alone, and
//! it is usually slower (the `movingai` example times both on the Moving AI maps). It is
//! here as a correct reference for the lab, where a [`Trace`] shows the two frontiers meet
//! and the bound close in on the best path.
//!
//! ## Traces
//!
//! [`SearchContext::search_traced`] records a search as a [`Trace`]: every push onto the
//! frontier (with `g`, `h` and `f`), every cheaper `g` found for a cell waiting there, every
//! expansion, jump point search's scans, and a bidirectional search's meetings and the
//! bound it stopped on ([`TraceEvent`]). A [`Replay`] rebuilds the search's state after any
//! number of events, forward or back. Searches that are not traced run the same code with a recorder that does
//! nothing, which compiles away.
//!
//! ## Reuse
//!
//! A [`SearchContext`] holds the per-cell memory of a search in generation-stamped arrays:
//! once warmed up on a grid, [`SearchContext::search_into`] allocates nothing. Ties are
//! broken deterministically (lowest `f`, then highest `g`, then lowest cell index, with
//! neighbours visited in the board's fixed order, see [`Board`]), so the same query on the
//! same grid always returns the same path.
//!
//! ```
//! use tilewalk_path::{Diagonal, Grid, Pos, SearchContext, SearchOptions};
//!
//! let mut grid = Grid::new(8, 6).unwrap();
//! for y in 1..4 {
//!     grid.set_cost(Pos::new(4, y), None).unwrap(); // a wall
//! }
//! let mut context = SearchContext::new();
//! let four_way = SearchOptions::with_diagonal(Diagonal::Never);
//! let found = context.search(&grid, Pos::new(2, 2), Pos::new(6, 2), &four_way).unwrap();
//! assert_eq!(found.path.cost, 8.0);
//! let range = context.range(&grid, Pos::new(2, 2), 3.0, Diagonal::Never).unwrap();
//! assert_eq!(range.cost(Pos::new(3, 0)), Some(3.0));
//! ```
//!
//! Tactics rules ([`Passage`]: allies to walk through, enemies that block, zones of
//! control) act inside the search, for ranges ([`SearchContext::range_with`]) and for
//! point-to-point searches ([`SearchContext::search_with`]) alike, so re-planning around
//! other units needs no copy of the grid.
//!
//! ## Customizable contraction hierarchies
//!
//! A [`Cch`] (Dibbelt, Strasser and Wagner, 2016) ranks the cells by nested dissection (a
//! rectangle cut by its middle line, each half first, the line last) and contracts them in
//! that order, whatever the terrain: one structure per map shape and board. A
//! [`CchMetric`] gives its arcs one movement class's costs (impassable cells and cut
//! corners weigh infinity), and [`CchMetric::recustomize`] updates them after edits, where
//! they changed. A [`CchQuery`] walks up the elimination tree from both ends and unpacks the
//! cheapest meeting into cells: exact, with a worst case near its median. On grids the
//! contraction has `O(cells × log cells)` arcs (see [`Cch`] for what that costs), which
//! suits small and medium maps.
//!
//! ## Fields
//!
//! A [`CostField`] is an *integration field* in the sense of Supreme Commander 2's flow
//! fields (Emerson, "Crowd Pathfinding and Steering Using Flow Field Tiles", Game AI Pro,
//! 2013): one Dijkstra search run backwards from a set of goal cells gives every cell the
//! cost of its cheapest walk to the nearest goal, the next step of that walk and the goal it
//! reaches. Backwards means the step from `v` into `w` is priced as a walker pays it,
//! `cost(w) × length`, and allowed exactly when the forward searches allow it (corner rules,
//! and passage rules with [`CostField::build_with`], which make some steps one-way), so
//! walking down the field from any cell is a cheapest path. It can stop early: at a cost
//! bound ([`FieldOptions::max_cost`]) or when the caller has seen enough cells
//! ([`CostField::build_until`]); its memory is generation-stamped like a [`SearchContext`].
//!
//! ## Group orders
//!
//! A [`GroupPlanner`] plans an order of N units to one click ([`GroupOrder`]). Each unit has
//! a movement class, an index into one [`Grid`] per class (the same map as a horse and as a
//! boat see it). The rules:
//!
//! - **Every unit ends on its own tile**, never on a tile in [`GroupOrder::occupied`] (units
//!   outside the order stand there; paths may pass them).
//! - **Travel cost** of a tile, for a class, is the cost of walking from the tile to the
//!   click on that class's grid: a tile across a river is far from the click even when it
//!   is next to it. The tiles of a class are the free tiles of least travel cost, as many as
//!   it has units that can reach the click. Ties go to the tile first in storage order (row
//!   by row). Classes choose in the order of their index; a tile an earlier class took is no
//!   longer free.
//! - **A click a class cannot stand on** (water, for a horse) is replaced, for that class,
//!   by the passable cells nearest it in a straight line between cell centres (all of them
//!   when several are as near): a horse sent into the lake stops on its nearest shore.
//! - **Reachable for the unit's class**: tiles are picked per region (the cells a class can
//!   walk between), as many in each region as it holds units, so a horse is never given a
//!   tile it cannot walk to. A unit whose region holds no click (or shore) gets
//!   [`Stranded::Unreachable`]; when a region has fewer free tiles than units, the units
//!   nearest the click get them and the others [`Stranded::NoFreeTile`]. Units outside the
//!   map, on a cell their class cannot stand on, or of a class without a grid get their own
//!   errors; the rest of the order is planned as usual.
//! - **Each unit's path is a cheapest path to the tile it ends on** (not merely to the group).
//! - Deterministic: the same order on the same grids gives the same routes.
//!
//! How: one field from the click per class settles cells by travel cost, picking free tiles
//! as it meets them, and stops as soon as every region has its tiles: about the area the
//! group will cover. Then a route field `F`, from all of the class's free tiles at once,
//! gives every cell its exact cost to the nearest one, and each unit's way down it is a
//! cheapest path to the tile it ends on. It is filled until it has every unit's start, in
//! the order of an A* search from the tiles toward the units (cost plus the board's step
//! distance to the nearest of a few boxes around them, split where wide stretches of the
//! map hold none, at the grid's cheapest cost): a squad sent across the map gets the cells
//! between it and its tiles, not every cell as near the tiles as it is. Those ways merge into rivers (units from one side
//! soon share one), and a river ends on one tile, so the units are routed by a *wave*: one
//! A* search (guided by `F`) from all of them at once, each unit starting behind by its own
//! `F`, so that they all reach every cell of their rivers at the same cost, and the wave
//! spreads on from the rivers into the tiles. A tile the wave reaches from a river cell `y`
//! can go to any unit whose way down passes `y`: its way down to `y` and the wave's way on
//! cost what the wave says, which is no more than any path of that unit to the tile, so
//! together they are a cheapest path. Once the wave has reached every free tile, the tiles
//! are handed out upstream first, each to a unit waiting above its river cell (those not
//! served wait on downstream), which serves as many units as the wave's ways allow. Of
//! equally cheap ways to a cell, the wave keeps the one from the river cell furthest down,
//! as more units wait above it. Units left without a tile (their rivers' tiles went to
//! others) get another wave, until every unit has its tile: a few rounds, each serving a
//! share of the units left. Any field would do for the argument above, so a route field
//! serves wave after wave (its tiles being taken only makes the later waves go a longer way
//! round) until one gives a tile to fewer than one in twelve of its units: the tiles left
//! are then those only the units on the army's flanks reach cheaply enough, each wave
//! serves a few of them, and a field rebuilt from the tiles still free serves many again.
//! Once every class has its tiles, the classes share nothing, so they are routed side by
//! side, each with its own fields and waves, in two lanes (threads) of half the budget
//! each.
//!
//! **A class of one cost** (every cell it can enter costs the same: flyers, over all but
//! rock) on the 8-way board without corner cutting skips the route fields and waves. There
//! jump point search ([`Algorithm::JumpPoint`]) finds a cheapest path between any two cells
//! expanding a dozen or so jump points, so any pairing of units with tiles is cheap to
//! route, one search per unit. The pairing is in ranks, region by region, where the units
//! stand on one side of the click (their bearings from it fit in a half-turn): units and
//! tiles are measured along the line from the click to the units' centre and across it; the
//! units, front first, and the tiles, far side first, are cut into ranks as wide as the tiles
//! are across the line, and in each rank the k-th unit across gets the k-th tile across
//! (equal places by unit, and by storage order for tiles). The front rank fills the far side
//! of the goal, units side by side go to tiles side by side, and a block sent over open
//! ground marches as a block instead of funnelling into a few files. Where the units stand
//! all around the click, the pairing is by bearing from it: units and tiles sorted by the
//! angle of the line from the click to them, counted round from the middle of the widest gap
//! between the units' angles, the k-th unit to the k-th tile, so that two armies from both
//! sides take a side each. Routed
//! this way, a class costs a small fraction of what its fields and waves would (the army
//! benchmark, `cargo run --release --example army`, measures it). Those classes go first
//! when the classes are shared out among the lanes: three classes, the last of one cost,
//! run as it and the first class in one lane, the second in the other.
//!
//! Why not only fields, as flow-field games do? A field routes a unit to the nearest goal,
//! and every prefix of its way is a cheapest way to where it ends, so one field from the
//! tiles can serve many units at once. But units coming from the same side share their way
//! once it merges, and in any one field (whatever head start each goal gets) they then reach
//! the same tile: one field serves one unit per merged stream. Planning in rounds of fields
//! over the still-free tiles needs hundreds of fields for an army of thousands, where waves
//! need a few fields and a few dozen waves ([`docs/design/group-orders.md`] in the repository
//! has the figures).
//!
//! ```
//! use tilewalk_path::{Board, Grid, GroupOrder, GroupPlanner, Pos, Unit};
//!
//! // Rows 2 and 3 are water: horses (class 0) cannot enter it, boats (class 1) only sail it.
//! let water = |p: Pos| (2..4).contains(&p.y) && p.x < 5;
//! let horse = Grid::from_fn(6, 5, |p| (!water(p)).then_some(1.0)).unwrap();
//! let boat = Grid::from_fn(6, 5, |p| water(p).then_some(1.0)).unwrap();
//! let units = [
//!     Unit { start: Pos::new(0, 0), class: 0 },
//!     Unit { start: Pos::new(1, 0), class: 0 },
//!     Unit { start: Pos::new(0, 2), class: 1 },
//! ];
//! let order = GroupOrder { units: &units, click: Pos::new(3, 2), occupied: &[], board: Board::default() };
//! let routes = GroupPlanner::new().plan(&[&horse, &boat], &order).unwrap();
//! let boat_route = routes[2].as_ref().unwrap();
//! assert_eq!(boat_route.tile, Pos::new(3, 2)); // the boat sails to the click
//! assert_eq!(boat_route.path.cost, 3.0);
//! for route in &routes[..2] {
//!     let route = route.as_ref().unwrap();
//!     assert!(route.path.cells.iter().all(|&p| !water(p))); // horses stay dry
//!     assert!(route.tile.y < 2); // on the shore nearest the click, (3, 1), and beside it
//! }
//! ```
//!
//! A big order need not be planned in one go: [`GroupPlanner::start`] takes the order (and
//! copies what it needs of it), then each [`GroupPlanner::advance`] goes on under a budget
//! of *work* (what [`GroupStats`] counts): the cells settled by fields, plus the cells
//! expanded by waves or walked, plus the cells of the routes' paths at
//! [`PATH_CELLS_PER_WORK`] (8) a unit, as writing one costs about an eighth as much. It
//! returns the units it decided ([`Advance`]), so a game can spend a few milliseconds a
//! frame and let each unit walk as soon as its route is out. Units refused before any work
//! (outside the map, on a cell they cannot stand on, of an unknown class, in a region
//! without the click) come out of the first call, those left without a free tile as soon as
//! their class's click field has found it, and the others, a wave's units after it, as they
//! are routed; the classes side by side, in two lanes of an even share of the budget each
//! (what a class done early leaves goes to the others), their units in class order within a
//! call. A call stops as soon as its work reaches the budget, in the middle of a field
//! build or a wave if need be: the next call goes on with it from the very cell where it
//! stopped. Only a unit's path, written in one go, is never cut, so a call overshoots its
//! budget by less than one path's work per class and never by a field's or a wave's worth.
//! A call always does some work, so even a budget of 0 (taken as 1) moves on. The cells are
//! settled and expanded in the same order whatever the budgets: any sequence of budgets
//! gives the same routes as one [`GroupPlanner::plan`] call (which is `start` and one
//! unbounded `advance`). A planner keeps its memory from order to order;
//! [`GroupPlanner::reserve`] sizes it for a map (and has the OS map its pages) ahead of the
//! first order, so that order's first calls do not pay for it.
//!
//! ## Crossings chosen by load
//!
//! Cheapest paths are each unit's best alone: a hundred riders all take the ford on their
//! cheapest way while a second ford stands empty. [`spread_by_load`] takes the ways of one
//! class's units once planned ([`Way`]) and, round after round, prices every cell with the
//! mean wait the units would queue there (a point queue per cell: a unit holds a cell for its
//! cost, all walk at one speed), then lets a share of the units that wait longest at a
//! crossing (a passage at most [`NARROWS_WIDTH`] tiles wide) search again on the priced
//! grid, and take the new way when it is sooner, waits counted: traffic assignment's method
//! of successive averages. The game runs it on each group order once planned.
//!
//! [`docs/design/group-orders.md`]: https://github.com/tilewalk/tilewalk/blob/main/docs/design/group-orders.md

#![deny(missing_docs)]

mod bits;
mod board;
mod connectivity;
mod crossings;
mod field;
pub mod formats;
mod grid;
mod group;
mod hierarchy;
mod memory;
mod moves;
mod near;
mod open_list;
mod pos;
mod search;

pub use board::{Board, HexLayout, UnknownBoard};
pub use crossings::{
    BOTTLENECK_STEPS, NARROWS_WIDTH, SPREAD_MAX_CELLS, SPREAD_ROUNDS, Spread, Way, spread_by_load,
    walk_cost,
};
pub use field::{CostField, FieldError, FieldOptions};
pub use grid::{Grid, GridError, MAX_COST, MIN_COST};
pub use group::{
    Advance, GroupError, GroupOrder, GroupPlanner, GroupStats, PATH_CELLS_PER_WORK, Route,
    Stranded, Unit, plan_group,
};
pub use hierarchy::{Cch, CchError, CchMetric, CchQuery};
pub use moves::{Diagonal, Heuristic};
pub use near::STOP_NEAR_SLACK;
pub use pos::Pos;
pub use search::{
    ACTIVE_LANDMARKS, Algorithm, CellPath, CellState, CellView, Direction, Found, Landmarks,
    Meeting, NoPath, Passage, Range, Reached, Replay, SearchContext, SearchOptions, SearchStats,
    Trace, TraceEvent, find_path,
};
