//! Engine-free grid pathfinding for tile games: A*, Dijkstra, BFS, greedy best-first, DFS
//! and jump point search over weighted square and hex grids, movement ranges and
//! connectivity, with no game-engine dependency.
//!
//! # The cost model
//!
//! Each cell of a [`Grid`] has a movement cost (from [`MIN_COST`] to [`MAX_COST`]) or is
//! impassable. **Stepping into cell `b` costs `cost(b) × step length`**, where a step is 1
//! long orthogonally and √2 diagonally on a square board, and 1 between hexes. A path's
//! cost is the sum of its steps; the start cell's own cost is never paid. The same model prices movement ranges ([`SearchContext::range`])
//! and, in the game, the time a unit takes to walk a path, so the cheapest path is always
//! the fastest walk.
//!
//! # Boards, neighbourhoods and heuristics
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
//! # Jump point search
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
//! # Reuse
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

mod bits;
mod board;
mod connectivity;
pub mod formats;
mod grid;
mod moves;
mod open_list;
mod search;

pub use board::{Board, HexLayout, UnknownBoard};
pub use grid::{Grid, GridError, MAX_COST, MIN_COST, Pos};
pub use moves::{Diagonal, Heuristic};
pub use search::{
    Algorithm, Found, NoPath, Passage, Path, Range, Reached, SearchContext, SearchOptions,
    SearchStats, find_path,
};
