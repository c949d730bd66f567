//! Movement ranges under tactics rules against a brute force over every simple path.

use std::collections::HashMap;

use proptest::prelude::*;
use tilewalk_path::{Diagonal, Grid, Passage, Pos, SearchContext};

const SIZE: u32 = 5;

/// The cheapest cost of every cell a move may reach, and whether it may stop there, by
/// walking every simple path within `budget` (8-way, no corner cutting).
fn brute_force(
    grid: &Grid,
    start: Pos,
    budget: f64,
    passage: &dyn Fn(Pos) -> Passage,
) -> HashMap<Pos, (f64, bool)> {
    fn walk(
        grid: &Grid,
        at: Pos,
        cost: f64,
        budget: f64,
        passage: &dyn Fn(Pos) -> Passage,
        visited: &mut Vec<Pos>,
        best: &mut HashMap<Pos, (f64, bool)>,
    ) {
        let can_stop = visited.len() == 1 || passage(at) != Passage::PassOnly;
        let entry = best.entry(at).or_insert((f64::INFINITY, can_stop));
        entry.0 = entry.0.min(cost);
        if visited.len() > 1 && matches!(passage(at), Passage::EndsMove | Passage::TakesAllPoints) {
            return;
        }
        for (dx, dy) in [
            (0, -1),
            (1, 0),
            (0, 1),
            (-1, 0),
            (1, -1),
            (1, 1),
            (-1, 1),
            (-1, -1),
        ] {
            let (x, y) = (i64::from(at.x) + dx, i64::from(at.y) + dy);
            if x < 0 || y < 0 || x >= i64::from(SIZE) || y >= i64::from(SIZE) {
                continue;
            }
            let to = Pos::new(x as u32, y as u32);
            let Some(terrain) = grid.cost(to) else {
                continue;
            };
            if dx != 0
                && dy != 0
                && !(grid.is_passable(Pos::new(to.x, at.y))
                    && grid.is_passable(Pos::new(at.x, to.y)))
            {
                continue;
            }
            if visited.contains(&to) {
                continue;
            }
            let length = if dx != 0 && dy != 0 {
                std::f64::consts::SQRT_2
            } else {
                1.0
            };
            let next = match passage(to) {
                Passage::Blocked => continue,
                Passage::TakesAllPoints if cost < budget - 1e-9 => budget,
                Passage::TakesAllPoints => continue,
                _ => cost + terrain * length,
            };
            if next > budget + 1e-9 {
                continue;
            }
            visited.push(to);
            walk(grid, to, next, budget, passage, visited, best);
            visited.pop();
        }
    }
    let mut best = HashMap::new();
    walk(
        grid,
        start,
        0.0,
        budget,
        passage,
        &mut vec![start],
        &mut best,
    );
    best
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
    fn range_with_rules_matches_every_simple_path(cells in prop::collection::vec(cell(), (SIZE * SIZE) as usize), budget in 1.0f64..4.0) {
        let at = |p: Pos| cells[(p.y * SIZE + p.x) as usize];
        let start = Pos::new(2, 2);
        let grid = Grid::from_fn(SIZE, SIZE, |p| if p == start { Some(1.0) } else { at(p).0 }).unwrap();
        let passage = |p: Pos| at(p).1;
        let expected = brute_force(&grid, start, budget, &passage);
        let range = SearchContext::new().range_with(&grid, start, budget, Diagonal::NoObstacles, passage).unwrap();
        prop_assert_eq!(range.cells().len(), expected.len());
        for reached in range.cells() {
            let (cost, can_stop) = expected[&reached.pos];
            prop_assert!((reached.cost - cost).abs() < 1e-9, "{:?}: {} vs {}", reached.pos, reached.cost, cost);
            prop_assert_eq!(reached.can_stop, can_stop, "{:?}", reached.pos);
            let path = range.path_to(reached.pos).unwrap();
            prop_assert_eq!(path.cells[0], start);
            prop_assert!(path.cells.iter().skip(1).take(path.cells.len().saturating_sub(2)).all(|&p| !matches!(passage(p), Passage::Blocked | Passage::EndsMove | Passage::TakesAllPoints)), "only the last step may end the move: {:?}", path.cells);
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
