//! Traces against the searches' own results, on random weighted and uniform grids on every
//! board, for every algorithm, with and without passage rules: replaying the events keeps
//! every cell's state consistent, the counts match `SearchStats`, one-way searches end by
//! expanding the goal, the recorded parents give exactly the returned path, and a
//! bidirectional search's last meeting is the returned path and cost.

use std::collections::HashMap;

use proptest::prelude::*;
use tilewalk_path::{
    Algorithm, Board, CellState, CellView, Diagonal, Direction, Found, Grid, Passage, Pos, Replay,
    SearchContext, SearchOptions, Trace, TraceEvent,
};

/// What a replay knows of a cell, per direction.
#[derive(Clone, Copy, Debug, PartialEq)]
enum State {
    Open { g: f64, f: f64 },
    Expanded { g: f64 },
}

/// Replays `trace` cell by cell and checks it against the search's result `found`.
fn check(
    grid: &Grid,
    options: &SearchOptions,
    start: Pos,
    goal: Pos,
    found: &Found,
    trace: &Trace,
) -> Result<(), TestCaseError> {
    let algorithm = options.algorithm;
    // Jump point search jumps on uniform grids without corner cutting (and without passage
    // rules, which the test using them does not ask it for); elsewhere it is plain A*.
    let jumps = algorithm == Algorithm::JumpPoint
        && grid.uniform_cost().is_some()
        && options.board == Board::Square(Diagonal::NoObstacles);
    let events = trace.events();
    let mut state: HashMap<(Direction, Pos), State> = HashMap::new();
    let mut parent: HashMap<(Direction, Pos), Pos> = HashMap::new();
    let mut expanding: HashMap<Direction, Pos> = HashMap::new();
    let mut last_f: HashMap<Direction, f64> = HashMap::new();
    let mut scanned: Vec<Pos> = Vec::new();
    let (mut expanded, mut pushed) = (0, 0);
    let mut meeting = None;
    // Searches whose frontier is ordered by a consistent priority expand it in order
    // (weighted A* is not consistent; the others ignore the weight).
    let ordered = match algorithm {
        Algorithm::AStar | Algorithm::JumpPoint => options.weight == 1.0,
        Algorithm::Bfs | Algorithm::BestFirst | Algorithm::Dfs => false,
        Algorithm::Dijkstra | Algorithm::Bidirectional | Algorithm::BidirectionalDijkstra => true,
    };
    for (i, event) in events.iter().enumerate() {
        match *event {
            TraceEvent::Push {
                direction,
                pos,
                parent: from,
                g,
                h,
                f,
            } => {
                pushed += 1;
                prop_assert_eq!(
                    state.get(&(direction, pos)),
                    None,
                    "{}: push of a seen cell",
                    i
                );
                match from {
                    None => {
                        let root = if direction == Direction::Forward {
                            start
                        } else {
                            goal
                        };
                        prop_assert_eq!(
                            (pos, g),
                            (root, 0.0),
                            "{}: only the root has no parent",
                            i
                        );
                    }
                    Some(from) => {
                        prop_assert_eq!(
                            expanding.get(&direction),
                            Some(&from),
                            "{}: parent is the expanded cell",
                            i
                        );
                        parent.insert((direction, pos), from);
                    }
                }
                if jumps && from.is_some() {
                    prop_assert!(scanned.contains(&pos), "{}: a jump point no scan found", i);
                }
                if matches!(algorithm, Algorithm::AStar | Algorithm::JumpPoint) {
                    prop_assert!((f - (g + h)).abs() < 1e-9, "{}: A*'s f = g + h", i);
                }
                if matches!(
                    algorithm,
                    Algorithm::Dijkstra | Algorithm::BidirectionalDijkstra
                ) {
                    prop_assert_eq!(h, 0.0);
                }
                if algorithm == Algorithm::Dijkstra {
                    prop_assert_eq!(f, g);
                }
                state.insert((direction, pos), State::Open { g, f });
            }
            TraceEvent::Relax {
                direction,
                pos,
                parent: from,
                old_g,
                g,
                f,
                ..
            } => {
                pushed += 1;
                let Some(&State::Open { g: was, .. }) = state.get(&(direction, pos)) else {
                    return Err(TestCaseError::fail(format!(
                        "{i}: relax of a cell not on the frontier"
                    )));
                };
                prop_assert_eq!(was, old_g);
                prop_assert!(g < old_g, "{}: relaxed to a dearer g", i);
                prop_assert_eq!(expanding.get(&direction), Some(&from));
                parent.insert((direction, pos), from);
                state.insert((direction, pos), State::Open { g, f });
            }
            TraceEvent::Expand { direction, pos, g } => {
                expanded += 1;
                let Some(&State::Open { g: was, f }) = state.get(&(direction, pos)) else {
                    return Err(TestCaseError::fail(format!(
                        "{i}: expanded a cell not on the frontier"
                    )));
                };
                prop_assert_eq!(was, g, "{}: expanded with another g", i);
                if ordered {
                    let before = last_f.insert(direction, f).unwrap_or(0.0);
                    prop_assert!(
                        f >= before - 1e-9 * (1.0 + before),
                        "{}: f went down, {} after {}",
                        i,
                        f,
                        before
                    );
                }
                state.insert((direction, pos), State::Expanded { g });
                expanding.insert(direction, pos);
                scanned.clear();
            }
            TraceEvent::Scan { from, step, found } => {
                prop_assert!(jumps, "{}: a scan outside jump point search", i);
                prop_assert_eq!(expanding.get(&Direction::Forward), Some(&from));
                prop_assert!(step.0.abs() <= 1 && step.1.abs() <= 1 && step != (0, 0));
                if let Some(to) = found {
                    // The jump point lies on the scan's line.
                    let (dx, dy) = (
                        i64::from(to.x) - i64::from(from.x),
                        i64::from(to.y) - i64::from(from.y),
                    );
                    let n = dx.abs().max(dy.abs());
                    prop_assert!(
                        n > 0 && (dx, dy) == (n * i64::from(step.0), n * i64::from(step.1)),
                        "{}: {:?}",
                        i,
                        event
                    );
                    scanned.push(to);
                }
            }
            TraceEvent::Meet {
                forward,
                backward,
                cost,
            } => {
                prop_assert!(algorithm.is_bidirectional());
                let reached = |d, p| state.contains_key(&(d, p));
                prop_assert!(
                    reached(Direction::Forward, forward) && reached(Direction::Backward, backward),
                    "{}: met at unreached cells",
                    i
                );
                if let Some((_, _, before)) = meeting {
                    prop_assert!(cost < before, "{}: a meeting no cheaper than the last", i);
                }
                meeting = Some((forward, backward, cost));
            }
            TraceEvent::Stop { best, bound } => {
                prop_assert!(algorithm.is_bidirectional());
                prop_assert_eq!(i, events.len() - 1, "the stop is the last event");
                prop_assert!(
                    bound == f64::INFINITY || bound >= best * (1.0 - 1e-9),
                    "stopped early: {} < {}",
                    bound,
                    best
                );
                prop_assert_eq!(best, meeting.map_or(f64::INFINITY, |m| m.2));
            }
        }
    }
    prop_assert_eq!(expanded, found.stats.expanded, "expansions");
    prop_assert_eq!(pushed, found.stats.pushed, "pushes");
    let chain = |direction: Direction, mut at: Pos| {
        let mut cells = vec![at];
        while let Some(&p) = parent.get(&(direction, at)) {
            // Jump point search links cells a straight or diagonal line apart.
            while at != p {
                at = Pos::new(step_towards(at.x, p.x), step_towards(at.y, p.y));
                cells.push(at);
            }
        }
        cells
    };
    if algorithm.is_bidirectional() {
        let Some((forward, backward, cost)) = meeting else {
            return Err(TestCaseError::fail(
                "a bidirectional search found a path with no meeting",
            ));
        };
        prop_assert!(
            (cost - found.path.cost).abs() < 1e-9,
            "meeting {} vs path {}",
            cost,
            found.path.cost
        );
        let mut cells = chain(Direction::Forward, forward);
        cells.reverse();
        if backward != forward {
            cells.extend(chain(Direction::Backward, backward));
        }
        prop_assert_eq!(&cells, &found.path.cells);
    } else {
        let last = events.last();
        prop_assert!(
            matches!(last, Some(TraceEvent::Expand { pos, .. }) if *pos == goal),
            "last event {:?}",
            last
        );
        let mut cells = chain(Direction::Forward, goal);
        cells.reverse();
        prop_assert_eq!(&cells, &found.path.cells);
    }
    Ok(())
}

fn step_towards(from: u32, to: u32) -> u32 {
    match from.cmp(&to) {
        std::cmp::Ordering::Less => from + 1,
        std::cmp::Ordering::Equal => from,
        std::cmp::Ordering::Greater => from - 1,
    }
}

/// Grids up to 24x24: weighted, or uniform (where jump point search runs its own loop).
fn grid_strategy() -> impl Strategy<Value = (Grid, Pos, Pos)> {
    (
        1u32..=24,
        1u32..=24,
        any::<u64>(),
        prop::bool::ANY,
        any::<(u32, u32, u32, u32)>(),
    )
        .prop_map(|(w, h, seed, uniform, ends)| {
            let start = Pos::new(ends.0 % w, ends.1 % h);
            let goal = Pos::new(ends.2 % w, ends.3 % h);
            let mut state = seed;
            let grid = Grid::from_fn(w, h, |p| {
                state = state
                    .wrapping_mul(6_364_136_223_846_793_005)
                    .wrapping_add(1_442_695_040_888_963_407);
                let r = (state >> 33) % 10;
                if p == start || p == goal {
                    Some(1.0)
                } else if r < 2 {
                    None
                } else if uniform {
                    Some(1.0)
                } else {
                    Some([0.5, 1.0, 1.0, 1.5, 2.0, 3.0, 1.0, 4.0][r as usize - 2])
                }
            })
            .unwrap();
            (grid, start, goal)
        })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 120, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn traces_replay_into_the_searches_results((grid, start, goal) in grid_strategy(), weight in prop_oneof![Just(1.0), 1.0f64..3.0]) {
        let mut context = SearchContext::new();
        let mut trace = Trace::new();
        for board in Board::ALL {
            for algorithm in Algorithm::ALL {
                if algorithm == Algorithm::JumpPoint && matches!(board, Board::Hex(_)) {
                    continue;
                }
                let options = SearchOptions { algorithm, weight, ..SearchOptions::on(board) };
                let plain = context.search(&grid, start, goal, &options);
                let traced = context.search_traced(&grid, start, goal, &options, &mut trace);
                prop_assert_eq!(&traced, &plain, "tracing changed the search");
                if let Ok(found) = traced {
                    check(&grid, &options, start, goal, &found, &trace)?;
                }
            }
        }
    }

    #[test]
    fn traces_under_passage_rules((grid, start, goal) in grid_strategy(), rules in prop::collection::vec(0u8..12, 24 * 24)) {
        let passage = |p: Pos| match rules[(p.y * 24 + p.x) as usize] {
            0 => Passage::Blocked,
            1 => Passage::PassOnly,
            2 => Passage::EndsMove,
            3 => Passage::TakesAllPoints,
            _ => Passage::Open,
        };
        let mut context = SearchContext::new();
        let mut trace = Trace::new();
        for board in Board::ALL {
            for algorithm in [Algorithm::AStar, Algorithm::Dijkstra, Algorithm::Bidirectional, Algorithm::BidirectionalDijkstra] {
                let options = SearchOptions { algorithm, ..SearchOptions::on(board) };
                let plain = context.search_with(&grid, start, goal, &options, passage);
                let traced = context.search_traced_with(&grid, start, goal, &options, &mut trace, passage);
                prop_assert_eq!(&traced, &plain, "tracing changed the search");
                if let Ok(found) = traced {
                    check(&grid, &options, start, goal, &found, &trace)?;
                }
            }
        }
    }
}

/// Everything a replay shows: both directions' cells, the current cell, the meeting.
fn snapshot(replay: &Replay) -> impl PartialEq + std::fmt::Debug {
    let cells = |d| {
        replay
            .reached(d)
            .map(|(p, c)| (p, *c))
            .collect::<Vec<(Pos, CellView)>>()
    };
    (
        cells(Direction::Forward),
        cells(Direction::Backward),
        replay.current(),
        replay.meeting(),
        replay.stop(),
        replay.counts(),
    )
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 60, failure_persistence: None, ..ProptestConfig::default() })]

    /// A replay at its end shows the search's result; seeking to a step gives the same
    /// state whether it comes from the beginning, from further on or from before.
    #[test]
    fn replays_agree_with_the_search_and_seek_both_ways((grid, start, goal) in grid_strategy(), algorithm in prop::sample::select(Algorithm::ALL.to_vec()), steps in any::<(usize, usize)>()) {
        let options = SearchOptions { algorithm, ..SearchOptions::default() };
        let mut trace = Trace::new();
        let Ok(found) = SearchContext::new().search_traced(&grid, start, goal, &options, &mut trace) else {
            return Ok(());
        };
        let end = trace.events().len();
        let mut replay = Replay::new(grid.width(), grid.height());
        replay.seek(&trace, usize::MAX);
        prop_assert_eq!(replay.step(), end);
        prop_assert_eq!(replay.counts(), (found.stats.expanded, found.stats.pushed));
        let closed = replay.reached(Direction::Forward).filter(|(_, c)| c.state == CellState::Closed).count()
            + replay.reached(Direction::Backward).filter(|(_, c)| c.state == CellState::Closed).count();
        prop_assert_eq!(closed, found.stats.expanded);
        if algorithm.is_bidirectional() {
            let meeting = replay.meeting().expect("a meeting");
            prop_assert!((meeting.cost - found.path.cost).abs() < 1e-9);
            let mut cells = replay.path_to(Direction::Forward, meeting.forward);
            let mut back = replay.path_to(Direction::Backward, meeting.backward);
            back.reverse();
            if meeting.forward == meeting.backward {
                back.remove(0);
            }
            cells.extend(back);
            prop_assert_eq!(cells, found.path.cells.clone());
        } else {
            prop_assert_eq!(replay.current(), Some((Direction::Forward, goal)));
            let jumps = replay.path_to(Direction::Forward, goal);
            prop_assert_eq!(jumps.first(), Some(&start));
            // Jump point search's parents are jump points along the path; others are every cell.
            prop_assert!(jumps.iter().all(|p| found.path.cells.contains(p)));
            if algorithm != Algorithm::JumpPoint {
                prop_assert_eq!(jumps, found.path.cells.clone());
            }
        }
        let (a, b) = (steps.0 % (end + 1), steps.1 % (end + 1));
        let mut fresh = Replay::new(grid.width(), grid.height());
        fresh.seek(&trace, a);
        replay.seek(&trace, a); // back from the end
        prop_assert_eq!(snapshot(&replay), snapshot(&fresh));
        replay.seek(&trace, b);
        replay.seek(&trace, a); // from b, either side of a
        prop_assert_eq!(snapshot(&replay), snapshot(&fresh));
    }
}

#[test]
fn a_start_that_is_the_goal_meets_at_once() {
    let grid = Grid::new(3, 3).unwrap();
    let at = Pos::new(1, 1);
    let mut trace = Trace::new();
    let options = SearchOptions {
        algorithm: Algorithm::Bidirectional,
        ..SearchOptions::default()
    };
    let found = SearchContext::new()
        .search_traced(&grid, at, at, &options, &mut trace)
        .unwrap();
    assert_eq!(found.path.cells, [at]);
    assert_eq!(found.path.cost, 0.0);
    assert_eq!(found.stats.expanded, 0);
    assert!(trace.events().contains(&TraceEvent::Meet {
        forward: at,
        backward: at,
        cost: 0.0
    }));
}
