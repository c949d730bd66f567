//! Cost-to-goal fields and group orders against the tests' reference: a plain Dijkstra
//! (`common/reference.rs`) from every cell over their own model of the boards, on every
//! board, with passage rules for fields and several movement classes for orders.

mod common;
#[path = "common/reference.rs"]
mod reference;

use std::collections::BTreeSet;

use common::steps;
use proptest::prelude::*;
use reference::{at, dijkstra};
use tilewalk_path::{
    Advance, Board, CostField, Diagonal, FieldError, FieldOptions, Grid, GroupError, GroupOrder,
    GroupPlanner, HexLayout, PATH_CELLS_PER_WORK, Passage, Pos, Route, SearchContext, Stranded,
    Unit, Way, plan_group, spread_by_load,
};

/// The cheapest cost from every cell to the nearest of `goals`: a forward Dijkstra from each
/// cell, so the walk is the one the forward search would take.
fn to_goals(
    grid: &Grid,
    goals: &[Pos],
    board: Board,
    passage: &dyn Fn(Pos) -> Passage,
) -> Vec<f64> {
    grid.cells()
        .map(|from| {
            if !grid.is_passable(from) {
                return f64::INFINITY;
            }
            let dist = dijkstra(grid, from, board, passage);
            goals
                .iter()
                .map(|&g| dist[at(grid, g)])
                .fold(f64::INFINITY, f64::min)
        })
        .collect()
}

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() <= 1e-9 * a.abs().max(b.abs()).max(1.0)
}

/// Checks that `cells` is a legal walk on `grid` and returns its cost.
fn walk_cost(grid: &Grid, cells: &[Pos], board: Board) -> f64 {
    cells
        .windows(2)
        .map(|pair| {
            let step = steps(grid, pair[0], board)
                .into_iter()
                .find(|&(b, _)| b == pair[1]);
            step.unwrap_or_else(|| panic!("{} -> {} is no legal step on {board}", pair[0], pair[1]))
                .1
        })
        .sum()
}

/// The centre of a cell, one step between neighbouring centres.
fn centre(board: Board, p: Pos) -> (f64, f64) {
    let (x, y) = (f64::from(p.x), f64::from(p.y));
    let half = |shifted: bool| if shifted { 0.5 } else { 0.0 };
    let row = 3f64.sqrt() / 2.0;
    match board {
        Board::Square(_) => (x, y),
        Board::Hex(HexLayout::OddR) => (x + half(p.y % 2 == 1), y * row),
        Board::Hex(HexLayout::EvenR) => (x + half(p.y.is_multiple_of(2)), y * row),
        Board::Hex(HexLayout::OddQ) => (x * row, y + half(p.x % 2 == 1)),
        Board::Hex(HexLayout::EvenQ) => (x * row, y + half(p.x.is_multiple_of(2))),
    }
}

/// Where a class walks to: the click, or the passable cells nearest it in a straight line.
fn anchors(grid: &Grid, click: Pos, board: Board) -> Vec<Pos> {
    if grid.is_passable(click) {
        return vec![click];
    }
    let (cx, cy) = centre(board, click);
    let distance = |p: Pos| {
        let (x, y) = centre(board, p);
        ((x - cx).powi(2) + (y - cy).powi(2)).sqrt()
    };
    let passable: Vec<Pos> = grid.cells().filter(|&p| grid.is_passable(p)).collect();
    let best = passable
        .iter()
        .map(|&p| distance(p))
        .fold(f64::INFINITY, f64::min);
    passable
        .into_iter()
        .filter(|&p| distance(p) <= best + 1e-9)
        .collect()
}

fn open(_: Pos) -> Passage {
    Passage::Open
}

/// Checks every rule of a group order against the reference: distinct tiles, the nearest
/// free ones by travel cost for each class, legal paths on the unit's class grid, each
/// optimal to its tile, and errors only for units that could not have a tile.
fn check_order(grids: &[Grid], order: &GroupOrder, results: &[Result<Route, Stranded>]) {
    check_routes(grids, order, results);
    let board = order.board;
    // Tile choice, class by class in index order: every tile a class took is at least as
    // near the click (walking) as any free tile it left in the same region.
    let mut taken: BTreeSet<Pos> = order.occupied.iter().copied().collect();
    for (class, grid) in grids.iter().enumerate() {
        let members: Vec<(&Unit, &Result<Route, Stranded>)> = order
            .units
            .iter()
            .zip(results)
            .filter(|(u, _)| u.class == class)
            .collect();
        let goals = anchors(grid, order.click, board);
        let travel = to_goals(grid, &goals, board, &open);
        let mine: BTreeSet<Pos> = members
            .iter()
            .filter_map(|(_, r)| r.as_ref().ok().map(|r| r.tile))
            .collect();
        for (unit, result) in &members {
            if let Err(Stranded::StartOutside { .. } | Stranded::StartBlocked(_)) = result {
                assert!(!grid.is_passable(unit.start));
                continue;
            }
            let reach = dijkstra(grid, unit.start, board, &open);
            let free_in_reach = grid
                .cells()
                .filter(|&p| reach[at(grid, p)].is_finite() && travel[at(grid, p)].is_finite())
                .filter(|p| !taken.contains(p));
            match result {
                Ok(route) => {
                    let worst = travel[at(grid, route.tile)];
                    for p in free_in_reach.filter(|p| !mine.contains(p)) {
                        assert!(
                            worst <= travel[at(grid, p)] + 1e-9,
                            "class {class} took {} ({worst}) over free {p} ({})",
                            route.tile,
                            travel[at(grid, p)]
                        );
                    }
                }
                Err(Stranded::Unreachable(_)) => {
                    assert_eq!(
                        free_in_reach.count()
                            + mine
                                .iter()
                                .filter(|&&t| reach[at(grid, t)].is_finite())
                                .count(),
                        0
                    );
                }
                Err(Stranded::NoFreeTile(_)) => {
                    assert!(free_in_reach.filter(|p| !mine.contains(p)).count() == 0);
                }
                Err(other) => panic!("unexpected {other}"),
            }
        }
        taken.extend(mine);
    }
}

/// The routes of [`check_order`]: distinct free tiles, and legal paths on the unit's class
/// grid, each optimal to its tile.
fn check_routes(grids: &[Grid], order: &GroupOrder, results: &[Result<Route, Stranded>]) {
    let board = order.board;
    assert_eq!(results.len(), order.units.len());
    let mut ends = BTreeSet::new();
    for (unit, result) in order.units.iter().zip(results) {
        let Ok(route) = result else { continue };
        let grid = &grids[unit.class];
        assert!(ends.insert(route.tile), "two units end on {}", route.tile);
        assert!(
            !order.occupied.contains(&route.tile),
            "{} is occupied",
            route.tile
        );
        assert_eq!(route.path.cells.first(), Some(&unit.start));
        assert_eq!(route.path.cells.last(), Some(&route.tile));
        let cost = walk_cost(grid, &route.path.cells, board);
        assert!(
            close(cost, route.path.cost),
            "{cost} != {}",
            route.path.cost
        );
        let best = dijkstra(grid, unit.start, board, &open)[at(grid, route.tile)];
        assert!(
            close(best, route.path.cost),
            "{} to {}: {} > {best}",
            unit.start,
            route.tile,
            route.path.cost
        );
    }
}

#[test]
fn field_matches_reference_on_a_small_map() {
    let grid = Grid::from_fn(6, 4, |p| {
        (p.x != 2 || p.y == 3).then_some(1.0 + f64::from(p.y))
    })
    .unwrap();
    for board in Board::ALL {
        let goals = [Pos::new(5, 0), Pos::new(0, 3)];
        let mut field = CostField::new();
        field
            .build(&grid, &goals, &FieldOptions::on(board))
            .unwrap();
        let reference = to_goals(&grid, &goals, board, &open);
        for p in grid.cells() {
            let expected = reference[at(&grid, p)];
            match field.cost(p) {
                Some(cost) => assert!(close(cost, expected), "{board} {p}: {cost} vs {expected}"),
                None => assert!(expected.is_infinite(), "{board} {p} missing"),
            }
        }
    }
}

#[test]
fn field_errors_and_bounds() {
    let grid = Grid::from_fn(4, 1, |p| (p.x != 3).then_some(1.0)).unwrap();
    let mut field = CostField::new();
    let options = FieldOptions::on(Diagonal::Never);
    assert_eq!(
        field.build(&grid, &[Pos::new(4, 0)], &options),
        Err(FieldError::GoalOutside {
            pos: Pos::new(4, 0),
            width: 4,
            height: 1
        })
    );
    assert_eq!(
        field.build(&grid, &[Pos::new(3, 0)], &options),
        Err(FieldError::GoalBlocked(Pos::new(3, 0)))
    );
    let pass_only = |p: Pos| {
        if p.x == 0 {
            Passage::PassOnly
        } else {
            Passage::Open
        }
    };
    assert_eq!(
        field.build_with(&grid, &[Pos::new(0, 0)], &options, pass_only),
        Err(FieldError::GoalPassOnly(Pos::new(0, 0)))
    );
    // Bounded by cost: (2, 0) is 2 away from (0, 0), beyond a bound of 1.5.
    let bounded = FieldOptions {
        max_cost: 1.5,
        ..options
    };
    field.build(&grid, &[Pos::new(0, 0)], &bounded).unwrap();
    assert_eq!(field.cost(Pos::new(1, 0)), Some(1.0));
    assert_eq!(field.cost(Pos::new(2, 0)), None);
    // Stopped on the second settled cell.
    let mut seen = 0;
    field
        .build_until(&grid, &[Pos::new(0, 0)], &options, |_, _| {
            seen += 1;
            seen == 2
        })
        .unwrap();
    assert_eq!(
        field.settled().collect::<Vec<_>>(),
        [Pos::new(0, 0), Pos::new(1, 0)]
    );
    assert_eq!(field.next(Pos::new(1, 0)), Some(Pos::new(0, 0)));
    assert_eq!(field.next(Pos::new(0, 0)), None);
    assert_eq!(field.path(Pos::new(2, 0)), None);
    // No goals: an empty field.
    field.build(&grid, &[], &options).unwrap();
    assert_eq!(field.settled().len(), 0);
}

#[test]
fn units_in_another_region_are_stranded_and_the_others_routed() {
    // A wall down column 3 cuts the map in two.
    let grid = Grid::from_fn(7, 5, |p| (p.x != 3).then_some(1.0)).unwrap();
    let units = [
        Unit {
            start: Pos::new(0, 0),
            class: 0,
        },
        Unit {
            start: Pos::new(6, 4),
            class: 0,
        },
        Unit {
            start: Pos::new(1, 4),
            class: 0,
        },
        Unit {
            start: Pos::new(3, 2),
            class: 0,
        },
        Unit {
            start: Pos::new(0, 2),
            class: 1,
        },
        Unit {
            start: Pos::new(9, 9),
            class: 0,
        },
    ];
    let order = GroupOrder {
        units: &units,
        click: Pos::new(1, 2),
        occupied: &[Pos::new(1, 2)],
        board: Board::default(),
    };
    let results = plan_group(&[&grid], &order).unwrap();
    assert!(results[0].is_ok() && results[2].is_ok());
    assert_eq!(results[1], Err(Stranded::Unreachable(Pos::new(6, 4))));
    assert_eq!(results[3], Err(Stranded::StartBlocked(Pos::new(3, 2))));
    assert_eq!(
        results[4],
        Err(Stranded::UnknownClass {
            class: 1,
            classes: 1
        })
    );
    assert_eq!(
        results[5],
        Err(Stranded::StartOutside {
            pos: Pos::new(9, 9),
            width: 7,
            height: 5
        })
    );
    check_order(&[grid], &order, &results);
}

#[test]
fn a_full_region_leaves_its_farthest_units_without_a_tile() {
    // A pocket of three cells, (0,0)-(2,0), closed by walls, holding four units... of which
    // only three fit: the one farthest from the click gets none.
    let grid = Grid::from_fn(3, 2, |p| (p.y == 0).then_some(1.0)).unwrap();
    let units = [0, 1, 2, 2].map(|x| Unit {
        start: Pos::new(x, 0),
        class: 0,
    });
    let order = GroupOrder {
        units: &units,
        click: Pos::new(0, 0),
        occupied: &[],
        board: Board::default(),
    };
    let results = plan_group(&[&grid], &order).unwrap();
    assert_eq!(results[3], Err(Stranded::NoFreeTile(Pos::new(2, 0))));
    let tiles: BTreeSet<Pos> = results
        .iter()
        .filter_map(|r| r.as_ref().ok().map(|r| r.tile))
        .collect();
    assert_eq!(tiles.len(), 3);
    check_order(&[grid], &order, &results);
}

#[test]
fn a_horse_never_enters_water_and_a_click_in_water_sends_it_to_the_shore() {
    // Row 2 is water: boats sail it, horses cannot. The click is in the water.
    let water = |p: Pos| p.y == 2;
    let land = Grid::from_fn(6, 5, |p| (!water(p)).then_some(1.0)).unwrap();
    let sea = Grid::from_fn(6, 5, |p| Some(if water(p) { 1.0 } else { 3.0 })).unwrap();
    let units = [
        Unit {
            start: Pos::new(0, 0),
            class: 0,
        },
        Unit {
            start: Pos::new(5, 0),
            class: 0,
        },
        Unit {
            start: Pos::new(0, 4),
            class: 1,
        },
        Unit {
            start: Pos::new(5, 4),
            class: 1,
        },
    ];
    let order = GroupOrder {
        units: &units,
        click: Pos::new(2, 2),
        occupied: &[],
        board: Board::default(),
    };
    let results = plan_group(&[&land, &sea], &order).unwrap();
    for (unit, result) in units.iter().zip(&results) {
        let route = result.as_ref().unwrap();
        if unit.class == 0 {
            assert!(
                route.path.cells.iter().all(|&p| !water(p)),
                "a horse swam: {:?}",
                route.path.cells
            );
        }
    }
    // Both horses stand north of the water: the shore cell nearest the click there, (2, 1),
    // then one of the cells one step from it ((2, 0) first, row by row).
    let horses: Vec<Pos> = results[..2]
        .iter()
        .map(|r| r.as_ref().unwrap().tile)
        .collect();
    assert!(
        horses.contains(&Pos::new(2, 1)) && horses.contains(&Pos::new(2, 0)),
        "{horses:?}"
    );
    check_order(&[land, sea], &order, &results);
}

#[test]
fn whole_order_errors() {
    let (small, big) = (Grid::new(3, 3).unwrap(), Grid::new(4, 3).unwrap());
    let units = [Unit {
        start: Pos::new(0, 0),
        class: 0,
    }];
    let order = GroupOrder {
        units: &units,
        click: Pos::new(3, 0),
        occupied: &[],
        board: Board::default(),
    };
    assert_eq!(
        plan_group(&[&small], &order),
        Err(GroupError::ClickOutside {
            pos: Pos::new(3, 0),
            width: 3,
            height: 3
        })
    );
    assert_eq!(
        plan_group(&[&small, &big], &order),
        Err(GroupError::GridSizes {
            class: 1,
            expected: (3, 3),
            found: (4, 3)
        })
    );
}

/// A random small map: `(width, height, costs)` with `None` for walls.
fn map() -> impl Strategy<Value = (u32, u32, Vec<Option<f64>>)> {
    map_within(8)
}

/// A random map of 2 to `side - 1` cells a side.
fn map_within(side: u32) -> impl Strategy<Value = (u32, u32, Vec<Option<f64>>)> {
    (2u32..side, 2u32..side).prop_flat_map(|(w, h)| {
        let cell =
            prop_oneof![1 => Just(None), 4 => (1u32..5).prop_map(|c| Some(f64::from(c) * 0.5))];
        (
            Just(w),
            Just(h),
            proptest::collection::vec(cell, (w * h) as usize),
        )
    })
}

fn board() -> impl Strategy<Value = Board> {
    (0..Board::ALL.len()).prop_map(|i| Board::ALL[i])
}

fn passage() -> impl Strategy<Value = Vec<Passage>> {
    let one = prop_oneof![
        6 => Just(Passage::Open),
        1 => Just(Passage::PassOnly),
        1 => Just(Passage::Blocked),
        1 => Just(Passage::EndsMove),
        1 => Just(Passage::TakesAllPoints),
    ];
    proptest::collection::vec(one, 64)
}

/// A random order on a random map: class 0 walks on land only, class 1 sails water and
/// walks land dearer; units on distinct cells, other units on a few cells. In some, every
/// cell of class 0's land costs the same (its units are then searched one at a time on the
/// 8-way board without corner cutting).
#[derive(Clone, Debug)]
struct Case {
    grids: [Grid; 2],
    units: Vec<Unit>,
    occupied: Vec<Pos>,
    click: Pos,
    board: Board,
}

impl Case {
    fn order(&self) -> GroupOrder<'_> {
        GroupOrder {
            units: &self.units,
            click: self.click,
            occupied: &self.occupied,
            board: self.board,
        }
    }
}

/// A [`Case`] on a map of less than `side` cells a side, with less than `most` units.
fn case(side: u32, most: usize) -> impl Strategy<Value = Case> {
    (
        map_within(side),
        board(),
        proptest::collection::vec(any::<bool>(), (side * side) as usize),
        proptest::collection::vec((0..side, 0..side, 0usize..2), 1..most),
        proptest::collection::vec((0..side, 0..side), 0..6),
        (0..side, 0..side),
        any::<bool>(),
    )
        .prop_map(
            move |((w, h, costs), board, water, picks, occupied, click, uniform)| {
                let cost =
                    |p: Pos| costs[(p.y * w + p.x) as usize].map(|c| if uniform { 1.0 } else { c });
                let wet = |p: Pos| water[(p.y * side + p.x) as usize];
                let grids = [
                    Grid::from_fn(w, h, |p| cost(p).filter(|_| !wet(p))).unwrap(),
                    Grid::from_fn(w, h, |p| {
                        if wet(p) {
                            Some(1.0)
                        } else {
                            cost(p).map(|c| c * 2.0)
                        }
                    })
                    .unwrap(),
                ];
                let mut starts = BTreeSet::new();
                let units: Vec<Unit> = picks
                    .iter()
                    .map(|&(x, y, class)| Unit {
                        start: Pos::new(x % w, y % h),
                        class,
                    })
                    .filter(|u| starts.insert(u.start))
                    .collect();
                let occupied: Vec<Pos> = occupied
                    .iter()
                    .map(|&(x, y)| Pos::new(x % w, y % h))
                    .filter(|p| !starts.contains(p))
                    .collect();
                Case {
                    grids,
                    units,
                    occupied,
                    click: Pos::new(click.0 % w, click.1 % h),
                    board,
                }
            },
        )
}

/// The work a route's path counts: its cells over `PATH_CELLS_PER_WORK`, rounded up.
fn path_work(route: &Route) -> usize {
    route.path.cells.len().div_ceil(PATH_CELLS_PER_WORK)
}

/// Plans the order under way in `planner` with `budgets`, cycled, checking every call's
/// bounds: each unit decided once, the budget overshot by one unit's path a class at most
/// (fields and waves stop at the budget), all the work counted in the stats. Returns the
/// results, per unit, and the calls.
fn advance_all<G: std::borrow::Borrow<Grid>>(
    planner: &mut GroupPlanner,
    grids: &[G],
    units: usize,
    budgets: &[usize],
) -> (Vec<Result<Route, Stranded>>, Vec<Advance>) {
    let mut results = vec![None; units];
    let mut calls: Vec<Advance> = Vec::new();
    // The most jump points a unit's own search on a grid of one cost can expand: its cells.
    let searches = grids
        .iter()
        .map(|g| g.borrow())
        .filter(|g| g.uniform_cost().is_some())
        .map(|g| (g.width() * g.height()) as usize)
        .max()
        .unwrap_or(0);
    for &budget in budgets.iter().cycle() {
        assert!(planner.is_planning(), "not done, yet not planning");
        let call = planner.advance(grids, budget);
        if call.work > 0 {
            assert!(
                call.work - call.last < budget.max(1),
                "worked {} with a last step of {} on a budget of {budget}",
                call.work,
                call.last
            );
            assert!(call.last > 0, "a step did no work");
            // Past its budget only by whole units: writing a unit's path is the one step not
            // cut in two, and it counts an eighth of its cells, rounded up, plus the jump
            // points of the unit's own search on a grid of one cost (at most its cells).
            // The classes are routed side by side, each on its share of the budget, so by
            // one unit per class at most.
            let longest = call
                .decided
                .iter()
                .filter_map(|(_, r)| r.as_ref().ok())
                .map(|route| path_work(route) + searches)
                .max()
                .unwrap_or(0);
            assert!(
                call.work < budget.max(1) + grids.len() * longest.max(1),
                "worked {} on a budget of {budget}, longest path {longest}",
                call.work
            );
        } else {
            assert_eq!(call.last, 0);
            assert!(call.done, "a call made no progress");
        }
        for (unit, result) in &call.decided {
            assert!(results[*unit].is_none(), "unit {unit} decided twice");
            results[*unit] = Some(result.clone());
        }
        let done = call.done;
        calls.push(call);
        if done {
            break;
        }
    }
    assert!(!planner.is_planning(), "done, yet still planning");
    let work: usize = calls.iter().map(|c| c.work).sum();
    let stats = planner.stats();
    assert_eq!(
        work,
        stats.settled + stats.searched + stats.paths,
        "work not counted"
    );
    let results = results
        .into_iter()
        .enumerate()
        .map(|(unit, r)| r.unwrap_or_else(|| panic!("unit {unit} never decided")))
        .collect();
    (results, calls)
}

/// Plans `order` (planned by `planner` as `planned`) again, split over calls of budgets 0,
/// then 1, 7, 50 and 3 in turn, then 300 and 2, then 5,000: each split gives the routes and
/// the stats of the plan. Returns the calls of the budget of 0.
fn split_over_any_budget(
    planner: &mut GroupPlanner,
    grid: &Grid,
    order: &GroupOrder,
    planned: &[Result<Route, Stranded>],
) -> Vec<Advance> {
    let stats = planner.stats();
    let mut by_one = Vec::new();
    for budgets in [&[0][..], &[1, 7, 50, 3], &[300, 2], &[5000]] {
        planner.start(&[grid], order).unwrap();
        let (advanced, calls) = advance_all(planner, &[grid], order.units.len(), budgets);
        assert_eq!(advanced, planned, "{}, budgets {budgets:?}", order.board);
        assert_eq!(planner.stats(), stats);
        if budgets == [0] {
            by_one = calls;
        }
    }
    by_one
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    #[test]
    fn fields_give_optimal_costs_and_legal_paths(
        (w, h, costs) in map(),
        board in board(),
        goal_picks in proptest::collection::vec((0u32..8, 0u32..8), 1..4),
        rules in passage(),
        with_rules in any::<bool>(),
    ) {
        let grid = Grid::from_fn(w, h, |p| costs[(p.y * w + p.x) as usize]).unwrap();
        let rule = |p: Pos| if with_rules { rules[(p.y * 8 + p.x) as usize] } else { Passage::Open };
        let goals: Vec<Pos> = goal_picks
            .iter()
            .map(|&(x, y)| Pos::new(x % w, y % h))
            .filter(|&g| grid.is_passable(g) && matches!(rule(g), Passage::Open | Passage::EndsMove | Passage::TakesAllPoints))
            .collect();
        let mut field = CostField::new();
        field.build_with(&grid, &goals, &FieldOptions::on(board), rule).unwrap();
        let reference = to_goals(&grid, &goals, board, &rule);
        let mut last = 0.0;
        for p in field.settled() {
            let cost = field.cost(p).unwrap();
            prop_assert!(cost >= last - 1e-9, "settled out of order");
            last = cost;
        }
        for p in grid.cells() {
            let expected = reference[at(&grid, p)];
            let Some(cost) = field.cost(p) else {
                prop_assert!(expected.is_infinite(), "{} missing, reference {}", p, expected);
                continue;
            };
            prop_assert!(close(cost, expected), "{}: {} vs {}", p, cost, expected);
            let path = field.path(p).unwrap();
            prop_assert_eq!(path.cells[0], p);
            let end = *path.cells.last().unwrap();
            prop_assert!(goals.contains(&end));
            prop_assert_eq!(field.goal(p), Some(end));
            prop_assert!(close(walk_cost(&grid, &path.cells, board), cost));
            // The way never enters a blocked cell nor goes on from a cell ending the move.
            for &q in &path.cells[1..] {
                prop_assert!(rule(q) != Passage::Blocked);
            }
            for &q in path.cells.iter().skip(1).take(path.cells.len().saturating_sub(2)) {
                prop_assert!(matches!(rule(q), Passage::Open | Passage::PassOnly));
            }
        }
    }

    #[test]
    fn group_orders_follow_every_rule(case in case(8, 10)) {
        let (grids, order) = (&case.grids, case.order());
        let mut planner = GroupPlanner::new();
        let results = planner.plan(grids, &order).unwrap();
        check_order(grids, &order, &results);
        // Deterministic: again with the same planner, and with a fresh one.
        prop_assert_eq!(&planner.plan(grids, &order).unwrap(), &results);
        prop_assert_eq!(&plan_group(grids, &order).unwrap(), &results);
    }

    #[test]
    fn advancing_in_small_budgets_gives_the_routes_of_one_plan(
        case in prop_oneof![case(8, 10), case(16, 60)],
        budgets in proptest::collection::vec(1usize..200, 1..8),
    ) {
        let (grids, order) = (&case.grids, case.order());
        let mut planner = GroupPlanner::new();
        let planned = planner.plan(grids, &order).unwrap();
        let stats = planner.stats();
        // The same planner, warm from `plan`: the work is split, the routes are not.
        planner.start(grids, &order).unwrap();
        prop_assert!(planner.is_planning());
        let (advanced, calls) = advance_all(&mut planner, grids, case.units.len(), &budgets);
        prop_assert_eq!(&advanced, &planned);
        prop_assert_eq!(planner.stats(), stats);
        // Refusals that need no work come out of the first call.
        for (unit, result) in planned.iter().enumerate() {
            if let Err(Stranded::UnknownClass { .. } | Stranded::StartOutside { .. } | Stranded::StartBlocked(_) | Stranded::Unreachable(_)) = result {
                prop_assert!(calls[0].decided.iter().any(|(u, _)| *u == unit), "unit {} refused late", unit);
            }
        }
    }

    #[test]
    fn advance_overshoots_its_budget_by_one_path_a_class_at_most(
        case in case(16, 60),
        budgets in proptest::collection::vec(0usize..200, 1..8),
    ) {
        let (grids, order) = (&case.grids, case.order());
        let mut planner = GroupPlanner::new();
        planner.start(grids, &order).unwrap();
        let (_, calls) = advance_all(&mut planner, grids, case.units.len(), &budgets);
        // Every call but the last went on until its budget ran out.
        let (_, before_last) = calls.split_last().unwrap();
        for (call, &budget) in before_last.iter().zip(budgets.iter().cycle()) {
            prop_assert!(call.work >= budget.max(1), "stopped at {} of {}", call.work, budget);
        }
        prop_assert_eq!(calls.iter().filter(|c| c.done).count(), 1);
    }
}

/// A 24×24 weighted map with walls, and 40 units on both sides of its middle wall.
fn large_order() -> (Grid, Vec<Unit>) {
    let grid = Grid::from_fn(24, 24, |p| {
        let wall = (p.x == 12 && p.y != 5 && p.y != 18) || (p.x * 7 + p.y * 13) % 11 == 0;
        (!wall).then_some(1.0 + f64::from((p.x * 3 + p.y) % 4))
    })
    .unwrap();
    let units: Vec<Unit> = grid
        .cells()
        .filter(|&p| grid.is_passable(p) && (p.x < 5 || p.x > 19) && p.y % 2 == 0)
        .take(40)
        .map(|start| Unit { start, class: 0 })
        .collect();
    (grid, units)
}

#[test]
fn classes_are_routed_side_by_side_on_shares_of_the_budget() {
    // The large order's units as two classes on the same map, taking turns: once both have
    // their tiles, every call routes both, so units of the second class are decided long
    // before the first is done, and the routes are those of one plan.
    let (grid, mut units) = large_order();
    for (i, unit) in units.iter_mut().enumerate() {
        unit.class = i % 2;
    }
    let grids = [grid.clone(), grid];
    let order = GroupOrder {
        units: &units,
        click: Pos::new(12, 5),
        occupied: &[],
        board: Board::default(),
    };
    let planned = plan_group(&grids, &order).unwrap();
    check_order(&grids, &order, &planned);
    let mut planner = GroupPlanner::new();
    planner.start(&grids, &order).unwrap();
    let (advanced, calls) = advance_all(&mut planner, &grids, units.len(), &[40]);
    assert_eq!(advanced, planned);
    // The calls that routed a unit of each class: first and last.
    let span = |class: usize| {
        let calls: Vec<usize> = calls
            .iter()
            .enumerate()
            .filter(|(_, call)| {
                call.decided
                    .iter()
                    .any(|(unit, route)| route.is_ok() && units[*unit].class == class)
            })
            .map(|(i, _)| i)
            .collect();
        (calls[0], calls[calls.len() - 1])
    };
    assert!(calls.len() > 10, "{} calls", calls.len());
    let (first, second) = (span(0), span(1));
    assert!(
        second.0 < first.1 && first.0 < second.1,
        "class 0 routed in calls {first:?}, class 1 in {second:?}"
    );
}

#[test]
fn a_large_order_on_every_board() {
    // 40 units to one click: the searches after the first field and its rebuilds are
    // exercised for real.
    let (grid, units) = large_order();
    for board in Board::ALL {
        let order = GroupOrder {
            units: &units,
            click: Pos::new(12, 5),
            occupied: &[Pos::new(11, 5)],
            board,
        };
        let results = plan_group(&[&grid], &order).unwrap();
        check_order(std::slice::from_ref(&grid), &order, &results);
        let routed = results.iter().filter(|r| r.is_ok()).count();
        assert!(routed >= 30, "{board}: {routed} routed");
    }
}

#[test]
fn a_squad_sent_across_the_map_settles_the_way_there_not_the_whole_map() {
    // 16 units in one corner of a 64×64 weighted map with walls, sent to the far corner:
    // the route fields are filled toward the squad, so they settle the cells between it and
    // its tiles, not every cell as near the tiles as the squad is (nearly the whole map).
    let grid = Grid::from_fn(64, 64, |p| {
        let wall = (p.x == 32 && p.y % 20 != 7) || (p.y == 44 && p.x % 16 == 3);
        (!wall).then_some(1.0 + f64::from((p.x + 2 * p.y) % 3) * 0.25)
    })
    .unwrap();
    let units: Vec<Unit> = (0..16)
        .map(|i| Unit {
            start: Pos::new(2 + i % 4, 3 + i / 4),
            class: 0,
        })
        .collect();
    for board in Board::ALL {
        let order = GroupOrder {
            units: &units,
            click: Pos::new(58, 59),
            occupied: &[],
            board,
        };
        let mut planner = GroupPlanner::new();
        let results = planner.plan(&[&grid], &order).unwrap();
        // The tiles' choice is checked on smaller maps: its reference is a search from
        // every cell.
        check_routes(std::slice::from_ref(&grid), &order, &results);
        assert!(results.iter().all(Result::is_ok), "{board}");
        // Filled from the tiles until it reaches the squad in order of cost alone, the
        // route field would settle every open cell, about 4,000 (checked); toward the squad
        // it settles 1,100 to 3,500 (square-4's guide, Manhattan at the cheapest cost, is
        // the weakest).
        let stats = planner.stats();
        assert_eq!(
            stats.fields, 2,
            "{board}: the click field and one route field"
        );
        assert!(
            stats.settled < 64 * 64 * 9 / 10,
            "{board}: {} cells settled",
            stats.settled
        );
    }
}

#[test]
fn two_squads_far_apart_are_each_headed_for_and_routed_exactly() {
    // Two squads of 12 in the left corners of the same map, sent to the middle of its right
    // edge: the route fields head for each squad's own box, not for the box around both
    // (the whole left edge), and every route is still a cheapest path to its tile.
    let grid = Grid::from_fn(64, 64, |p| {
        let wall = (p.x == 32 && p.y % 20 != 7) || (p.y == 44 && p.x % 16 == 3);
        (!wall).then_some(1.0 + f64::from((p.x + 2 * p.y) % 3) * 0.25)
    })
    .unwrap();
    let units: Vec<Unit> = (0..24)
        .map(|i| Unit {
            start: Pos::new(2 + i % 4, if i < 12 { 3 + i / 4 } else { 55 + i / 4 }),
            class: 0,
        })
        .collect();
    for board in Board::ALL {
        let order = GroupOrder {
            units: &units,
            click: Pos::new(60, 32),
            occupied: &[],
            board,
        };
        let mut planner = GroupPlanner::new();
        let results = planner.plan(&[&grid], &order).unwrap();
        check_routes(std::slice::from_ref(&grid), &order, &results);
        assert!(results.iter().all(Result::is_ok), "{board}");
        // One box around both squads settles 3,470 to 3,490 cells on 8-way boards, a box
        // each 2,620 to 2,650 (checked; on the other boards the gain is smaller).
        if matches!(board, Board::Square(d) if d != Diagonal::Never) {
            let settled = planner.stats().settled;
            assert!(settled < 3_000, "{board}: {settled} cells settled");
        }
    }
}

/// A block of 118 units at the west edge of a 48×48 map sent to a point east of its middle:
/// the tiles the first waves leave are reached from the block's flanks, so later waves on
/// one route field serve few and the field is rebuilt (on most boards).
fn block_order() -> (Grid, Vec<Unit>) {
    let grid = Grid::from_fn(48, 48, |p| {
        let wall = (p.x * 7 + p.y * 13) % 11 == 0;
        (!wall).then_some(1.0 + f64::from((p.x * 3 + p.y) % 4))
    })
    .unwrap();
    let units: Vec<Unit> = grid
        .cells()
        .filter(|&p| grid.is_passable(p) && p.x < 8 && (16..32).contains(&p.y))
        .map(|start| Unit { start, class: 0 })
        .collect();
    (grid, units)
}

#[test]
fn a_large_order_advanced_a_little_at_a_time_gives_the_routes_of_one_plan() {
    let mut rebuilt = false;
    // The large order runs a second wave on every board; the block rebuilds its field.
    let orders = [
        (large_order(), Pos::new(12, 5), vec![Pos::new(11, 5)]),
        (block_order(), Pos::new(36, 24), Vec::new()),
    ];
    for (k, ((grid, units), click, occupied)) in orders.iter().enumerate() {
        for board in Board::ALL {
            let order = GroupOrder {
                units,
                click: *click,
                occupied,
                board,
            };
            let mut planner = GroupPlanner::new();
            let planned = planner.plan(&[grid], &order).unwrap();
            let stats = planner.stats();
            assert!(k > 0 || stats.waves > 1, "{board}: no second wave to split");
            rebuilt |= stats.fields > 2;
            let calls = split_over_any_budget(&mut planner, grid, &order, &planned);
            // A budget of 0 acts as 1: each call settles or expands one cell of a field or a
            // wave, or writes one unit's path.
            let routes = planned.iter().filter_map(|r| r.as_ref().ok());
            let written: usize = routes.clone().map(path_work).sum();
            assert_eq!(stats.paths, written);
            let work = stats.settled + stats.searched + stats.paths;
            assert_eq!(calls.len(), work - written + routes.count());
            for call in &calls {
                let path = call.decided.iter().find_map(|(_, r)| r.as_ref().ok());
                match path {
                    Some(route) => assert_eq!(call.work, path_work(route)),
                    None => assert_eq!(call.work, 1),
                }
            }
        }
    }
    assert!(rebuilt, "no board rebuilt the route field");
}

#[test]
fn an_order_dropped_in_the_middle_of_any_step_leaves_nothing_behind() {
    // Cut the first order after every call of a small budget, in the middle of its fields,
    // rivers and waves: the next order still plans as on a fresh planner.
    let (grid, units) = large_order();
    let grids = [&grid];
    let first = GroupOrder {
        units: &units,
        click: Pos::new(12, 5),
        occupied: &[],
        board: Board::default(),
    };
    let few: Vec<Unit> = units.iter().step_by(3).copied().collect();
    let second = GroupOrder {
        units: &few,
        click: Pos::new(14, 18),
        occupied: &[Pos::new(14, 18)],
        board: Board::default(),
    };
    let expected = plan_group(&grids, &second).unwrap();
    let mut planner = GroupPlanner::new();
    for cut in 0.. {
        planner.start(&grids, &first).unwrap();
        let mut done = false;
        for _ in 0..cut {
            done = planner.advance(&grids, 37).done;
            if done {
                break;
            }
        }
        planner.start(&grids, &second).unwrap();
        let (advanced, _) = advance_all(&mut planner, &grids, few.len(), &[23]);
        assert_eq!(advanced, expected, "cut after {cut} calls");
        if done {
            break;
        }
    }
}

#[test]
fn start_drops_the_order_under_way_and_advance_without_one_is_done() {
    let (grid, units) = large_order();
    let grids = [&grid];
    let mut planner = GroupPlanner::new();
    // Nothing started: an empty, done call.
    let nothing = Advance {
        done: true,
        ..Advance::default()
    };
    assert!(!planner.is_planning());
    assert_eq!(planner.advance(&grids, 100), nothing);
    // An order half planned, then another started: only the second one's units come out.
    let first = GroupOrder {
        units: &units,
        click: Pos::new(12, 5),
        occupied: &[],
        board: Board::default(),
    };
    planner.start(&grids, &first).unwrap();
    let call = planner.advance(&grids, 200);
    assert!(!call.done && planner.is_planning());
    let expected = {
        // The second order's units live only here: `start` copies them.
        let few: Vec<Unit> = units.iter().rev().take(5).copied().collect();
        let second = GroupOrder {
            units: &few,
            click: Pos::new(3, 20),
            occupied: &[Pos::new(3, 20)],
            board: Board::Hex(HexLayout::OddR),
        };
        let expected = plan_group(&grids, &second).unwrap();
        planner.start(&grids, &second).unwrap();
        expected
    };
    // A budget of 0 still takes a step each call, so this loop ends.
    let (advanced, calls) = advance_all(&mut planner, &grids, expected.len(), &[0]);
    assert_eq!(advanced, expected);
    assert!(expected.iter().any(Result::is_ok));
    assert!(calls.iter().all(|c| c.work == c.last));
    // Done: nothing more to do, and again nothing.
    assert!(!planner.is_planning());
    assert_eq!(planner.advance(&grids, 0), nothing);
    // A refused order drops the one under way too.
    planner.start(&grids, &first).unwrap();
    let outside = GroupOrder {
        click: Pos::new(30, 0),
        ..first
    };
    assert!(planner.start(&grids, &outside).is_err());
    assert!(!planner.is_planning());
    assert_eq!(planner.advance(&grids, 10), nothing);
}

#[test]
fn an_order_that_needs_no_work_is_done_in_one_call() {
    let grid = Grid::from_fn(4, 4, |p| (p.x != 1).then_some(1.0)).unwrap();
    let units = [
        Unit {
            start: Pos::new(1, 1),
            class: 0,
        },
        Unit {
            start: Pos::new(0, 0),
            class: 3,
        },
        Unit {
            start: Pos::new(3, 0),
            class: 0,
        },
    ];
    let order = GroupOrder {
        units: &units,
        click: Pos::new(0, 2),
        occupied: &[],
        board: Board::Square(Diagonal::Never),
    };
    let mut planner = GroupPlanner::new();
    planner.start(&[&grid], &order).unwrap();
    let call = planner.advance(&[&grid], 0);
    assert_eq!(
        call,
        Advance {
            decided: vec![
                (0, Err(Stranded::StartBlocked(Pos::new(1, 1)))),
                (
                    1,
                    Err(Stranded::UnknownClass {
                        class: 3,
                        classes: 1
                    })
                ),
                (2, Err(Stranded::Unreachable(Pos::new(3, 0)))),
            ],
            work: 0,
            last: 0,
            done: true,
        }
    );
    // No grids at all: every unit of an unknown class.
    planner.start::<Grid>(&[], &order).unwrap();
    let call = planner.advance::<Grid>(&[], 5);
    assert!(call.done && call.work == 0 && call.decided.len() == units.len());
}

/// An open field of one cost with a few walls, and 24 units at each end of it.
fn open_field_order() -> (Grid, Vec<Unit>) {
    let grid = Grid::from_fn(40, 30, |p| {
        let wall = p.x == 12 && (8..22).contains(&p.y);
        (!wall).then_some(2.0)
    })
    .unwrap();
    let units: Vec<Unit> = (0..48)
        .map(|i| Unit {
            start: Pos::new(
                if i < 24 { i % 4 } else { 36 + i % 4 },
                9 + (i % 24) / 4 * 2,
            ),
            class: 0,
        })
        .collect();
    (grid, units)
}

#[test]
fn on_a_grid_of_one_cost_each_unit_is_searched_alone_and_armies_keep_to_their_side() {
    // Every cell costs the same: on the 8-way board without corner cutting the units are
    // paired with the tiles by bearing from the click and each gets a jump point search, no
    // route field and no wave; the rules hold all the same. Coming from both ends, each army
    // takes the tiles on its side of the click. Other boards run waves.
    let (grid, units) = open_field_order();
    let click = Pos::new(20, 15);
    for board in Board::ALL {
        let order = GroupOrder {
            units: &units,
            click,
            occupied: &[Pos::new(20, 16)],
            board,
        };
        let mut planner = GroupPlanner::new();
        let results = planner.plan(&[&grid], &order).unwrap();
        check_order(std::slice::from_ref(&grid), &order, &results);
        assert!(results.iter().all(Result::is_ok), "{board}");
        let stats = planner.stats();
        if board == Board::Square(Diagonal::NoObstacles) {
            assert_eq!((stats.fields, stats.waves), (1, 0), "{board}");
            // A few jump points a unit, against hundreds of cells for a field or a wave.
            assert!(stats.searched < 48 * 40, "{} jump points", stats.searched);
            for (unit, route) in units.iter().zip(&results) {
                let tile = route.as_ref().unwrap().tile;
                if unit.start.x < click.x {
                    assert!(
                        tile.x <= click.x,
                        "{} from the west took {tile}",
                        unit.start
                    );
                } else {
                    assert!(
                        tile.x >= click.x,
                        "{} from the east took {tile}",
                        unit.start
                    );
                }
            }
            // A budget of 0 (acting as 1) settles one cell of the click field or routes one
            // unit a call.
            let calls = split_over_any_budget(&mut planner, &grid, &order, &results);
            assert_eq!(calls.len(), stats.settled + units.len());
            assert!(calls.iter().all(|c| c.decided.len() <= 1));
        } else {
            assert!(stats.waves > 0, "{board}");
        }
    }
}

#[test]
fn a_block_sent_over_open_ground_keeps_its_ranks_and_its_front_fills_the_far_side() {
    // A 3×3 block at the west end of a field of one cost, sent to (15, 5): the 9 tiles
    // nearest the click are the 3×3 square around it. Paired in ranks, the block arrives as
    // the block it was: the front rank (x = 2) on the far side (x = 16), each unit in its
    // own row, every unit 14 tiles east of where it stood, on a straight path. Paired by
    // bearing from the click, units of one row would end in other rows, their paths crossing.
    let grid = Grid::from_fn(20, 11, |_| Some(1.0)).unwrap();
    let units: Vec<Unit> = (0..9)
        .map(|i| Unit {
            start: Pos::new(i % 3, 4 + i / 3),
            class: 0,
        })
        .collect();
    let order = GroupOrder {
        units: &units,
        click: Pos::new(15, 5),
        occupied: &[],
        board: Board::default(),
    };
    let results = GroupPlanner::new().plan(&[&grid], &order).unwrap();
    check_order(std::slice::from_ref(&grid), &order, &results);
    for (unit, route) in units.iter().zip(&results) {
        let route = route.as_ref().unwrap();
        let moved = Pos::new(unit.start.x + 14, unit.start.y);
        assert_eq!(route.tile, moved, "{}", unit.start);
        assert!(
            route.path.cells.iter().all(|c| c.y == unit.start.y),
            "{}",
            unit.start
        );
    }
}

#[test]
fn a_second_order_started_once_the_first_has_picked_its_tiles_plans_what_it_would_after_it() {
    // Two orders of 12 units to clicks 3 tiles apart, on grass and mud. Planned one after
    // the other, the second takes the first's tiles as occupied. Side by side, the first
    // picks its tiles (`advance_picking`), the second starts as soon as they are known
    // (`picked_tiles`) and takes those: it decides the same routes, and no tile is picked
    // twice.
    let grid = Grid::from_fn(30, 20, |p| {
        Some(if (p.x + p.y) % 5 == 0 { 3.0 } else { 1.0 })
    })
    .unwrap();
    let grids = [&grid];
    let first: Vec<Unit> = (0..12)
        .map(|i| Unit {
            start: Pos::new(i % 4, i / 4),
            class: 0,
        })
        .collect();
    let second: Vec<Unit> = (0..12)
        .map(|i| Unit {
            start: Pos::new(i % 4, 10 + i / 4),
            class: 0,
        })
        .collect();
    let order = |units, click, occupied| GroupOrder {
        units,
        click,
        occupied,
        board: Board::default(),
    };
    let tiles = |routes: &[Result<Route, Stranded>]| -> Vec<Pos> {
        routes.iter().map(|r| r.as_ref().unwrap().tile).collect()
    };
    // One after the other.
    let a = GroupPlanner::new()
        .plan(&grids, &order(&first, Pos::new(20, 8), &[]))
        .unwrap();
    let after = tiles(&a);
    let b = GroupPlanner::new()
        .plan(&grids, &order(&second, Pos::new(20, 11), &after))
        .unwrap();
    // Side by side, a little work a call.
    let mut one = GroupPlanner::new();
    one.start(&grids, &order(&first, Pos::new(20, 8), &[]))
        .unwrap();
    let mut decided = Vec::new();
    let picked = loop {
        if let Some(picked) = one.picked_tiles(&grids) {
            break picked;
        }
        // Up to the tiles only: no unit is routed yet.
        let call = one.advance_picking(&grids, 5);
        assert!(call.decided.is_empty() && call.work > 0, "{call:?}");
    };
    assert!(
        one.advance_picking(&grids, 5).work == 0,
        "nothing left to pick"
    );
    let mut sorted = picked.clone();
    sorted.sort();
    let mut expected = after.clone();
    expected.sort();
    assert_eq!(
        sorted, expected,
        "the first order's tiles, known before its routes"
    );
    let mut two = GroupPlanner::new();
    two.start(&grids, &order(&second, Pos::new(20, 11), &picked))
        .unwrap();
    let mut b_side = vec![None; second.len()];
    while one.is_planning() || two.is_planning() {
        decided.extend(one.advance(&grids, 5).decided);
        for (unit, route) in two.advance(&grids, 5).decided {
            b_side[unit] = Some(route);
        }
    }
    let b_side: Vec<_> = b_side.into_iter().map(Option::unwrap).collect();
    assert_eq!(b_side, b);
    decided.sort_by_key(|d| d.0);
    assert_eq!(decided.into_iter().map(|d| d.1).collect::<Vec<_>>(), a);
}

/// A river (columns 14 and 15) with two fords one tile wide, at rows 4 and 12, and 40
/// units west of it in rows 1 to 8: every cheapest way goes by the north ford.
fn two_fords() -> (Grid, Vec<Unit>) {
    two_fords_on(30, 18)
}

/// [`two_fords`] on a grid of another size (at least 30x18), the rest open.
fn two_fords_on(width: u32, height: u32) -> (Grid, Vec<Unit>) {
    let grid = Grid::from_fn(width, height, |p| {
        let river = (14..=15).contains(&p.x) && p.y != 4 && p.y != 12;
        (!river).then_some(1.0)
    })
    .unwrap();
    let units = (1..=8)
        .flat_map(|y| {
            (2..=6).map(move |x| Unit {
                start: Pos::new(x, y),
                class: 0,
            })
        })
        .collect();
    (grid, units)
}

/// The ways a group order of `units` to `click` plans on `grid`, none of their cells fixed.
fn planned_ways(grid: &Grid, units: &[Unit], click: Pos, board: Board) -> Vec<Way> {
    let order = GroupOrder {
        units,
        click,
        occupied: &[],
        board,
    };
    plan_group(&[grid], &order)
        .unwrap()
        .into_iter()
        .map(|r| Way {
            cells: r.unwrap().path.cells,
            fixed: 1,
        })
        .collect()
}

/// How many ways cross the river at row `row`.
fn through(ways: &[Way], row: u32) -> usize {
    ways.iter()
        .filter(|w| w.cells.iter().any(|p| p.x == 14 && p.y == row))
        .count()
}

#[test]
fn a_crowded_ford_sends_some_units_by_the_other() {
    let (grid, units) = two_fords();
    let board = Board::Square(Diagonal::NoObstacles);
    let mut ways = planned_ways(&grid, &units, Pos::new(24, 4), board);
    let planned = ways.clone();
    assert_eq!((through(&ways, 4), through(&ways, 12)), (40, 0));
    let spread = spread_by_load(
        &grid,
        board,
        &mut ways,
        &mut SearchContext::new(),
        usize::MAX,
    );
    // The north ford passes a unit a step: the last of 40 waits about 40 steps less the
    // spread of their arrivals; the detour by the south ford is 16 steps there and back.
    let south = through(&ways, 12);
    assert!(
        (4..=20).contains(&south),
        "{south} by the south ford: {spread:?}"
    );
    assert_eq!(through(&ways, 4) + south, 40);
    assert!(spread.worst_after < 0.7 * spread.worst_before, "{spread:?}");
    assert!(
        spread.rerouted >= south && spread.searched > 0,
        "{spread:?}"
    );
    for (way, before) in ways.iter().zip(&planned) {
        // The same start and goal, and legal steps.
        assert_eq!(way.cells.first(), before.cells.first());
        assert_eq!(way.cells.last(), before.cells.last());
        for pair in way.cells.windows(2) {
            assert!(
                steps(&grid, pair[0], board)
                    .iter()
                    .any(|(b, _)| *b == pair[1]),
                "{} to {}",
                pair[0],
                pair[1]
            );
        }
    }
    // The same ways again give the same spread.
    let mut again = planned.clone();
    spread_by_load(
        &grid,
        board,
        &mut again,
        &mut SearchContext::new(),
        usize::MAX,
    );
    assert_eq!(again, ways);
    // On a grid past SPREAD_MAX_CELLS (a copy of it a round would cost too much), the same
    // ways are left as they are.
    let (large, _) = two_fords_on(2049, 1024);
    const { assert!(2049 * 1024 > tilewalk_path::SPREAD_MAX_CELLS) };
    let mut kept = planned.clone();
    let none = spread_by_load(
        &large,
        board,
        &mut kept,
        &mut SearchContext::new(),
        usize::MAX,
    );
    assert_eq!((kept, none.rounds), (planned, 0));
}

#[test]
fn a_file_makes_no_queue_and_odd_ways_are_kept() {
    let open = Grid::from_fn(30, 3, |_| Some(1.0)).unwrap();
    let board = Board::Square(Diagonal::NoObstacles);
    // Ten units in a file on row 1 of open ground, each sent 12 tiles east along it: each
    // reaches a tile a step after the one ahead has left it, so nobody waits and no way
    // changes.
    let planned: Vec<Way> = (2..12)
        .map(|x| Way {
            cells: (x..=x + 12).map(|x| Pos::new(x, 1)).collect(),
            fixed: 1,
        })
        .collect();
    let mut ways = planned.clone();
    let spread = spread_by_load(
        &open,
        board,
        &mut ways,
        &mut SearchContext::new(),
        usize::MAX,
    );
    assert_eq!(ways, planned, "{spread:?}");
    assert_eq!((spread.rerouted, spread.worst_before), (0, 0.0));
    // The 40 of the two fords, all planned by the north ford, do queue there.
    let (grid, units) = two_fords();
    let mut crowded = planned_ways(&grid, &units, Pos::new(24, 4), board);
    let spread = spread_by_load(&grid, board, &mut crowded, &mut SearchContext::new(), 0);
    assert!(spread.worst_before >= 20.0, "{spread:?}");
    // With no work allowed, nothing is searched or changed.
    assert_eq!((spread.searched, spread.rerouted), (0, 0));
    // Sixty units sent across open ground to one click queue where their ways converge,
    // but no other way is faster there: nothing is a crossing, nothing changes.
    let field = Grid::from_fn(40, 40, |_| Some(1.0)).unwrap();
    let units: Vec<Unit> = (0..60)
        .map(|i| Unit {
            start: Pos::new(2 + i % 6, 10 + i / 6 * 2),
            class: 0,
        })
        .collect();
    let converging = planned_ways(&field, &units, Pos::new(32, 20), board);
    let mut kept = converging.clone();
    let spread = spread_by_load(
        &field,
        board,
        &mut kept,
        &mut SearchContext::new(),
        usize::MAX,
    );
    assert!(spread.worst_before > 0.0, "{spread:?}");
    assert_eq!((kept == converging, spread.rerouted), (true, 0));
    // A way whose cells are all fixed, or none given as fixed, or with no cells, is taken
    // as it is, without a panic.
    let mut odd = vec![
        Way {
            cells: planned[0].cells.clone(),
            fixed: 0,
        },
        Way {
            cells: planned[1].cells.clone(),
            fixed: 999,
        },
        Way {
            cells: Vec::new(),
            fixed: 0,
        },
    ];
    spread_by_load(
        &open,
        board,
        &mut odd,
        &mut SearchContext::new(),
        usize::MAX,
    );
    assert_eq!(odd[1].cells, planned[1].cells);
    assert!(odd[2].cells.is_empty());
}
