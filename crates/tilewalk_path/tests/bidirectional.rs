//! Bidirectional A* and Dijkstra: a grid where stopping when the two searches first touch
//! returns a dearer path (worked out by hand below, and by a small touch-stopping search
//! written here) while ours returns the optimum; and agreement with Dijkstra on larger
//! random weighted grids on every board, where the stopping rule has more to decide.

use std::cmp::Reverse;
use std::collections::{BinaryHeap, HashMap};

use proptest::prelude::*;
use tilewalk_path::{
    Algorithm, Board, Diagonal, Direction, Grid, NoPath, Passage, Pos, SearchContext,
    SearchOptions, Trace, TraceEvent,
};

/// The counterexample, 4-way (entering a cell costs its number; the start's is never paid):
///
/// ```text
/// S=1  4  6
///   1  7  5
///   3  6  G=1
/// ```
///
/// The six shortest walks from S to G (two steps right, two down) cost RRDD 4+6+5+1 = 16,
/// RDRD 4+7+5+1 = 17, RDDR 4+7+6+1 = 18, DRRD 1+7+5+1 = 14, DRDR 1+7+6+1 = 15 and
/// DDRR 1+3+6+1 = 11, the optimum, down the left column and along the bottom row; longer
/// walks cost more.
///
/// A bidirectional Dijkstra that takes turns and stops at the first cell both searches
/// have expanded: forward expands S (0), backward G (0), forward (0,1) at 1, backward
/// (2,1) or (1,2) at 1 (a tie), forward (1,0) and (0,2) at 4, backward the other of the
/// two at 1 and then (2,0) and (1,1) at 6 (backward costs: (1,1) → (2,1) → G = 5 + 1),
/// while forward's next cheapest is (1,1) at 8. In every order the ties allow, (1,1) is the
/// first cell both have expanded, before (0,2) (backward cost 7) or (1,2) (forward cost 10):
/// it returns 8 + 6 = 14, the path DRRD. The optimal path crosses from (0,2), expanded only
/// forward, to (1,2), expanded only backward: a search that meets only at cells never
/// sees it.
const COSTS: [[f64; 3]; 3] = [[1.0, 4.0, 6.0], [1.0, 7.0, 5.0], [3.0, 6.0, 1.0]];

fn counterexample() -> Grid {
    Grid::from_fn(3, 3, |p| Some(COSTS[p.y as usize][p.x as usize])).unwrap()
}

/// Bidirectional Dijkstra, 4-way, that takes turns (forward first) and stops at the first
/// cell expanded by both searches, returning the cost through that cell.
fn touch_stopping(grid: &Grid, start: Pos, goal: Pos) -> Option<f64> {
    // Costs in thousandths, so that the heaps order integers.
    let millis = |p: Pos| grid.cost(p).map(|c| (c * 1000.0).round() as u64);
    let mut g: [HashMap<Pos, u64>; 2] = [HashMap::from([(start, 0)]), HashMap::from([(goal, 0)])];
    let mut heaps = [
        BinaryHeap::from([Reverse((0, start))]),
        BinaryHeap::from([Reverse((0, goal))]),
    ];
    let mut expanded: [Vec<Pos>; 2] = [Vec::new(), Vec::new()];
    for side in (0..2).cycle() {
        let at = loop {
            let Reverse((_, at)) = heaps[side].pop()?;
            if !expanded[side].contains(&at) {
                break at;
            }
        };
        expanded[side].push(at);
        if expanded[1 - side].contains(&at) {
            return Some((g[0][&at] + g[1][&at]) as f64 / 1000.0);
        }
        for (dx, dy) in [(0, -1), (1, 0), (0, 1), (-1, 0)] {
            let (Some(x), Some(y)) = (at.x.checked_add_signed(dx), at.y.checked_add_signed(dy))
            else {
                continue;
            };
            let next = Pos::new(x, y);
            let Some(entered) = millis(next) else {
                continue;
            };
            // Forward pays for the cell entered; backward for the cell it steps back from.
            let step = if side == 0 { entered } else { millis(at)? };
            let cost = g[side][&at] + step;
            if g[side].get(&next).is_none_or(|&old| cost < old) {
                g[side].insert(next, cost);
                heaps[side].push(Reverse((cost, next)));
            }
        }
    }
    None
}

#[test]
fn stopping_when_the_searches_touch_is_wrong_and_ours_is_right() {
    let grid = counterexample();
    let (start, goal) = (Pos::new(0, 0), Pos::new(2, 2));
    assert_eq!(touch_stopping(&grid, start, goal), Some(14.0));
    let mut context = SearchContext::new();
    let four_way = SearchOptions::with_diagonal(Diagonal::Never);
    let dijkstra = SearchOptions {
        algorithm: Algorithm::Dijkstra,
        ..four_way
    };
    assert_eq!(
        context
            .search(&grid, start, goal, &dijkstra)
            .unwrap()
            .path
            .cost,
        11.0
    );
    for algorithm in [Algorithm::Bidirectional, Algorithm::BidirectionalDijkstra] {
        let options = SearchOptions {
            algorithm,
            ..four_way
        };
        let mut trace = Trace::new();
        let found = context
            .search_traced(&grid, start, goal, &options, &mut trace)
            .unwrap();
        assert_eq!(found.path.cost, 11.0, "{algorithm:?}");
        assert_eq!(
            found.path.cells,
            [(0, 0), (0, 1), (0, 2), (1, 2), (2, 2)].map(Pos::from),
            "{algorithm:?}"
        );
        // Neither search expanded (1,1): ours stopped first.
        assert!(
            !trace
                .events()
                .iter()
                .any(|e| matches!(e, TraceEvent::Expand { pos, .. } if *pos == Pos::new(1, 1))),
            "{algorithm:?}"
        );
        if algorithm == Algorithm::BidirectionalDijkstra {
            // Worked out by hand: the smaller top goes next, ties take turns (forward
            // first), equal keys pop the lower cell index (row by row).
            let (f, b) = (Direction::Forward, Direction::Backward);
            let expanded: Vec<(Direction, Pos)> = trace
                .events()
                .iter()
                .filter_map(|e| match *e {
                    TraceEvent::Expand { direction, pos, .. } => Some((direction, pos)),
                    _ => None,
                })
                .collect();
            let order = [(f, (0, 0)), (b, (2, 2)), (b, (2, 1)), (f, (0, 1))];
            let order = order
                .into_iter()
                .chain([(b, (1, 2)), (f, (1, 0)), (f, (0, 2))]);
            assert_eq!(
                expanded,
                order.map(|(d, p)| (d, Pos::from(p))).collect::<Vec<_>>()
            );
            // Forward's (0,1) looks at (1,1), which backward reached at 6: 1 + 7 + 6 = 14.
            // Backward's (1,2) looks at (0,2), which forward reached at 4: 4 + 6 + 1 = 11.
            // With tops 8 and 6 after that, nothing can beat 11.
            let meetings: Vec<TraceEvent> = trace
                .events()
                .iter()
                .filter(|e| matches!(e, TraceEvent::Meet { .. }))
                .copied()
                .collect();
            let meet = |forward: (u32, u32), backward: (u32, u32), cost| TraceEvent::Meet {
                forward: forward.into(),
                backward: backward.into(),
                cost,
            };
            assert_eq!(
                meetings,
                [meet((0, 1), (1, 1), 14.0), meet((0, 2), (1, 2), 11.0)]
            );
        }
        let Some(TraceEvent::Stop { best, .. }) = trace.events().last() else {
            panic!("no stop event");
        };
        assert_eq!(*best, 11.0);
    }
}

/// Grids up to 40x40 of mixed costs, with walls.
fn grid_strategy() -> impl Strategy<Value = (Grid, Pos, Pos)> {
    (
        1u32..=40,
        1u32..=40,
        any::<u64>(),
        any::<(u32, u32, u32, u32)>(),
    )
        .prop_map(|(w, h, seed, ends)| {
            let start = Pos::new(ends.0 % w, ends.1 % h);
            let goal = Pos::new(ends.2 % w, ends.3 % h);
            let mut state = seed;
            let grid = Grid::from_fn(w, h, |p| {
                state = state
                    .wrapping_mul(6_364_136_223_846_793_005)
                    .wrapping_add(1_442_695_040_888_963_407);
                let r = (state >> 33) % 12;
                if p == start || p == goal {
                    Some(1.0)
                } else {
                    [
                        None,
                        None,
                        Some(0.25),
                        Some(1.0),
                        Some(1.0),
                        Some(1.0),
                        Some(1.5),
                        Some(2.0),
                        Some(3.0),
                        Some(5.0),
                        Some(9.0),
                        Some(1.0),
                    ][r as usize]
                }
            })
            .unwrap();
            (grid, start, goal)
        })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 150, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn bidirectional_costs_equal_dijkstra_on_every_board((grid, start, goal) in grid_strategy(), rules in prop::collection::vec(0u8..16, 40 * 40)) {
        let passage = |p: Pos| match rules[(p.y * 40 + p.x) as usize] {
            0 => Passage::Blocked,
            1 => Passage::PassOnly,
            2 => Passage::EndsMove,
            _ => Passage::Open,
        };
        let mut context = SearchContext::new();
        for board in Board::ALL {
            let dijkstra = SearchOptions { algorithm: Algorithm::Dijkstra, ..SearchOptions::on(board) };
            let expected = context.search(&grid, start, goal, &dijkstra).map(|f| f.path.cost);
            let expected_with = context.search_with(&grid, start, goal, &dijkstra, passage).map(|f| f.path.cost);
            for algorithm in [Algorithm::Bidirectional, Algorithm::BidirectionalDijkstra] {
                let options = SearchOptions { algorithm, ..SearchOptions::on(board) };
                let got = context.search(&grid, start, goal, &options).map(|f| f.path.cost);
                match (expected, got) {
                    (Ok(e), Ok(g)) => prop_assert!((e - g).abs() < 1e-9, "{:?} on {}: {} vs {}", algorithm, board, g, e),
                    (e, g) => prop_assert_eq!(e, g, "{:?} on {}", algorithm, board),
                }
                let got = context.search_with(&grid, start, goal, &options, passage).map(|f| f.path.cost);
                match (expected_with, got) {
                    (Ok(e), Ok(g)) => prop_assert!((e - g).abs() < 1e-9, "{:?} on {} with passages: {} vs {}", algorithm, board, g, e),
                    (e, g) => prop_assert_eq!(e, g, "{:?} on {} with passages", algorithm, board),
                }
            }
        }
    }
}

#[test]
fn a_hex_board_and_an_unreachable_goal() {
    // A wall across a hex map: the goal's side is another region.
    let grid = Grid::from_fn(6, 5, |p| (p.y != 2).then_some(1.0)).unwrap();
    let options = SearchOptions {
        algorithm: Algorithm::Bidirectional,
        ..SearchOptions::on(Board::Hex(tilewalk_path::HexLayout::OddR))
    };
    let mut context = SearchContext::new();
    assert_eq!(
        context.search(&grid, Pos::new(0, 0), Pos::new(5, 4), &options),
        Err(NoPath::DifferentRegions)
    );
    // Cells held by other units cut the same map: both frontiers run dry.
    let open = Grid::new(6, 5).unwrap();
    let held = |p: Pos| {
        if p.y == 2 {
            Passage::Blocked
        } else {
            Passage::Open
        }
    };
    assert_eq!(
        context.search_with(&open, Pos::new(0, 0), Pos::new(5, 4), &options, held),
        Err(NoPath::Exhausted)
    );
}
