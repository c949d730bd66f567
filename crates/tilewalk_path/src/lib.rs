//! Engine-free grid pathfinding for tile games: A*, Dijkstra, BFS, greedy best-first, DFS
//! and jump point search over weighted grids, movement ranges and connectivity, with no
//! game-engine dependency.
//!
//! # The cost model
//!
//! Each cell of a [`Grid`] has a movement cost (positive and finite) or is impassable.
//! **Stepping into cell `b` costs `cost(b) × step length`**, where a step is 1 long
//! orthogonally and √2 diagonally. A path's cost is the sum of its steps; the start cell's
//! own cost is never paid. The same model prices movement ranges ([`SearchContext::range`])
//! and, in the game, the time a unit takes to walk a path, so the cheapest path is always
//! the fastest walk.
//!
//! # Neighbourhoods and heuristics
//!
//! [`Diagonal`] picks the moves: `Never` is 4-way; the others are 8-way and differ at
//! corners. By default A* uses the tightest admissible [`Heuristic`] for the neighbourhood
//! (Manhattan for 4-way, octile for 8-way) multiplied by the grid's smallest passable cost,
//! so it stays optimal when some terrain costs less than 1.
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
//! # Jump point search
//!
//! Where every passable cell costs the same and corners are not cut (Moving AI maps, mazes,
//! open fields), [`Algorithm::JumpPoint`] returns A*'s optimal cost while expanding only the
//! cells where an optimal path may turn, and scans the straight lines between them 64 cells
//! at a time. Elsewhere it falls back to plain A*. The `movingai` example checks both
//! searches against every Moving AI scenario in a folder and times them against the
//! `pathfinding` crate's `astar`:
//! `cargo run --release -p tilewalk_path --example movingai -- ../shared/benchmarks/movingai`.
//!
//! # Reuse
//!
//! A [`SearchContext`] holds the per-cell memory of a search in generation-stamped arrays:
//! once warmed up on a grid, [`SearchContext::search_into`] allocates nothing. Ties are
//! broken deterministically (lowest `f`, then highest `g`, then lowest cell index), so the
//! same query on the same grid always returns the same path.
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

mod bits;
mod connectivity;
pub mod formats;
mod grid;
mod moves;
mod open_list;
mod search;

pub use grid::{Grid, GridError, Pos};
pub use moves::{Diagonal, Heuristic};
pub use search::{
    Algorithm, Found, NoPath, Passage, Path, Range, Reached, SearchContext, SearchOptions,
    SearchStats, find_path,
};
