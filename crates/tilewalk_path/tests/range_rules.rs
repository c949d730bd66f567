//! Movement ranges under tactics rules against a brute force over every simple path, on
//! the 8-way and 4-way square boards and on every hex layout.

mod common;

use std::collections::HashMap;

use common::steps;
use proptest::prelude::*;
use tilewalk_path::{Board, Diagonal, Grid, HexLayout, Passage, Pos, SearchContext};

/// An odd width and an even height, so both parities of rows and columns occur.
const WIDTH: u32 = 5;
const HEIGHT: u32 = 4;

const BOARDS: [Board; 6] = [
    Board::Square(Diagonal::NoObstacles),
    Board::Square(Diagonal::Never),
    Board::Hex(HexLayout::OddR),
    Board::Hex(HexLayout::EvenR),
    Board::Hex(HexLayout::OddQ),
    Board::Hex(HexLayout::EvenQ),
];

/// The cheapest cost of every cell a move may reach, and whether it may stop there, by
/// walking every simple path within `budget`.
fn brute_force(
    grid: &Grid,
    board: Board,
    start: Pos,
    budget: f64,
    passage: &dyn Fn(Pos) -> Passage,
) -> HashMap<Pos, (f64, bool)> {
    struct Walk<'a> {
        grid: &'a Grid,
        board: Board,
        budget: f64,
        passage: &'a dyn Fn(Pos) -> Passage,
        visited: Vec<Pos>,
        best: HashMap<Pos, (f64, bool)>,
    }
    fn walk(w: &mut Walk, at: Pos, cost: f64) {
        let can_stop = w.visited.len() == 1 || (w.passage)(at) != Passage::PassOnly;
        let entry = w.best.entry(at).or_insert((f64::INFINITY, can_stop));
        entry.0 = entry.0.min(cost);
        if w.visited.len() > 1
            && matches!((w.passage)(at), Passage::EndsMove | Passage::TakesAllPoints)
        {
            return;
        }
        for (to, step) in steps(w.grid, at, w.board) {
            if w.visited.contains(&to) {
                continue;
            }
            let next = match (w.passage)(to) {
                Passage::Blocked => continue,
                Passage::TakesAllPoints if cost < w.budget - 1e-9 => w.budget,
                Passage::TakesAllPoints => continue,
                _ => cost + step,
            };
            if next > w.budget + 1e-9 {
                continue;
            }
            w.visited.push(to);
            walk(w, to, next);
            w.visited.pop();
        }
    }
    let mut w = Walk {
        grid,
        board,
        budget,
        passage,
        visited: vec![start],
        best: HashMap::new(),
    };
    walk(&mut w, start, 0.0);
    w.best
}

fn cell() -> impl Strategy<Value = (Option<f64>, Passage)> {
    (
        prop_oneof![4 => Just(Some(1.0)), 2 => Just(Some(1.5)), 2 => Just(Some(2.0)), 1 => Just(None)],
        prop_oneof![
            6 => Just(Passage::Open),
            1 => Just(Passage::PassOnly),
            1 => Just(Passage::Blocked),
            1 => Just(Passage::EndsMove),
            1 => Just(Passage::TakesAllPoints),
        ],
    )
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 200, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn range_with_rules_matches_every_simple_path(cells in prop::collection::vec(cell(), (WIDTH * HEIGHT) as usize), budget in 1.0f64..4.0, start in (0..WIDTH, 0..HEIGHT)) {
        let at = |p: Pos| cells[(p.y * WIDTH + p.x) as usize];
        let start = Pos::new(start.0, start.1);
        let grid = Grid::from_fn(WIDTH, HEIGHT, |p| if p == start { Some(1.0) } else { at(p).0 }).unwrap();
        let passage = |p: Pos| at(p).1;
        let mut context = SearchContext::new();
        for board in BOARDS {
            let expected = brute_force(&grid, board, start, budget, &passage);
            let range = context.range_with(&grid, start, budget, board, passage).unwrap();
            let got: HashMap<Pos, (f64, bool)> = range.cells().iter().map(|r| (r.pos, (r.cost, r.can_stop))).collect();
            prop_assert_eq!(got.len(), expected.len(), "{}: {:?} vs {:?}", board, got, expected);
            for reached in range.cells() {
                let (cost, can_stop) = expected.get(&reached.pos).copied().unwrap_or((f64::NAN, false));
                prop_assert!((reached.cost - cost).abs() < 1e-9, "{} {:?}: {} vs {}", board, reached.pos, reached.cost, cost);
                prop_assert_eq!(reached.can_stop, can_stop, "{} {:?}", board, reached.pos);
                let path = range.path_to(reached.pos).unwrap();
                prop_assert_eq!(path.cells[0], start);
                prop_assert!(path.cells.iter().skip(1).take(path.cells.len().saturating_sub(2)).all(|&p| !matches!(passage(p), Passage::Blocked | Passage::EndsMove | Passage::TakesAllPoints)), "only the last step may end the move: {:?}", path.cells);
            }
        }
    }
}

#[test]
fn the_two_zone_of_control_rules_differ_on_costly_ground() {
    // Start with 2 points next to mud (cost 3) in an enemy's zone: ending the move there
    // costs 3 (out of reach); taking all points needs only some points left (reached, cost 2).
    let grid = Grid::from_fn(3, 1, |p| Some(if p.x == 1 { 3.0 } else { 1.0 })).unwrap();
    let mut context = SearchContext::new();
    let zone = |rule| move |p: Pos| if p.x == 1 { rule } else { Passage::Open };
    let ends = context
        .range_with(
            &grid,
            Pos::new(0, 0),
            2.0,
            Diagonal::NoObstacles,
            zone(Passage::EndsMove),
        )
        .unwrap();
    assert!(!ends.contains(Pos::new(1, 0)));
    let takes = context
        .range_with(
            &grid,
            Pos::new(0, 0),
            2.0,
            Diagonal::NoObstacles,
            zone(Passage::TakesAllPoints),
        )
        .unwrap();
    assert_eq!(takes.cost(Pos::new(1, 0)), Some(2.0));
    assert!(
        !takes.contains(Pos::new(2, 0)),
        "the move ended in the zone"
    );
}

#[test]
fn allies_are_passed_but_not_stopped_on_and_enemies_block() {
    // A corridor: start, ally, open, enemy, open.
    let grid = Grid::new(5, 1).unwrap();
    let passage = |p: Pos| match p.x {
        1 => Passage::PassOnly,
        3 => Passage::Blocked,
        _ => Passage::Open,
    };
    let range = SearchContext::new()
        .range_with(&grid, Pos::new(0, 0), 10.0, Diagonal::NoObstacles, passage)
        .unwrap();
    assert!(!range.get(Pos::new(1, 0)).unwrap().can_stop);
    assert_eq!(range.cost(Pos::new(2, 0)), Some(2.0));
    assert!(range.get(Pos::new(2, 0)).unwrap().can_stop);
    assert!(!range.contains(Pos::new(3, 0)) && !range.contains(Pos::new(4, 0)));
}

#[test]
fn budgets_that_are_not_finite_or_negative() {
    // A corridor: start, a zone of control, open ground.
    let grid = Grid::from_fn(4, 1, |p| Some(if p.x == 1 { 3.0 } else { 1.0 })).unwrap();
    let zone = |p: Pos| {
        if p.x == 1 {
            Passage::TakesAllPoints
        } else {
            Passage::Open
        }
    };
    let mut context = SearchContext::new();
    let start = Pos::new(0, 0);
    for budget in [f64::NAN, -1.0, f64::NEG_INFINITY, 0.0] {
        let range = context
            .range_with(&grid, start, budget, Diagonal::Never, zone)
            .unwrap();
        assert_eq!(range.cells().len(), 1, "{budget}: the start alone");
    }
    // Unlimited points: the zone is entered at its terrain cost and ends the move there.
    let range = context
        .range_with(&grid, start, f64::INFINITY, Diagonal::Never, zone)
        .unwrap();
    assert_eq!(range.cost(Pos::new(1, 0)), Some(3.0));
    assert!(!range.contains(Pos::new(2, 0)));
    let range = context
        .range(&grid, start, f64::INFINITY, Diagonal::Never)
        .unwrap();
    assert_eq!(range.cost(Pos::new(3, 0)), Some(5.0));
    // A finite budget far beyond every cost reaches the same cells.
    let range = context.range(&grid, start, 1e300, Diagonal::Never).unwrap();
    assert_eq!(range.cells().len(), 4);
}
