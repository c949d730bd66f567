//! Group orders on a 512×512 weighted map with 10,000 units, against one A* per unit.
//!
//! `cargo run --release -p tilewalk_path --example group_orders`
//!
//! Three timings, each until every unit has its path: (a) one order of all 10,000 units to
//! one click; (b) 100 orders of 100 units (one squad each) to 100 clicks, the other units
//! standing where they are; (c) the baseline without group orders: one A*
//! ([`SearchContext::search`]) per unit of (a) to the tile (a) gave it. Every route of (a)
//! is checked against its A*: the same cost, up to rounding. The last line is one JSON
//! object with the numbers.

use std::time::{Duration, Instant};

use tilewalk_path::{
    Board, Grid, GroupOrder, GroupPlanner, Pos, Route, SearchContext, SearchOptions, Stranded, Unit,
};

const SIZE: u32 = 512;
const SQUADS: usize = 100;
const SQUAD_SIZE: usize = 100;

/// A deterministic hash of a cell and a salt (splitmix64's finaliser).
fn hash(x: u32, y: u32, salt: u64) -> u64 {
    let mut z = (u64::from(x) << 32 | u64::from(y)) ^ salt.wrapping_mul(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// Costs 1 to 4 in patches of 8×8 cells with noise on top, one cell in 12 a lone wall, and
/// long walls every 64 rows and columns with a gap every 32 cells.
fn map() -> Grid {
    Grid::from_fn(SIZE, SIZE, |p| {
        let long_wall = (p.x % 64 == 40 && p.y % 32 > 3) || (p.y % 64 == 20 && p.x % 32 > 3);
        let lone_wall = hash(p.x, p.y, 1).is_multiple_of(12);
        if long_wall || lone_wall {
            return None;
        }
        let patch = hash(p.x / 8, p.y / 8, 2) % 4;
        let noise = hash(p.x, p.y, 3) % 3;
        Some(1.0 + ((patch + noise) % 4) as f64)
    })
    .expect("a valid map")
}

/// `SQUADS` squads of `SQUAD_SIZE` units, each on distinct cells of the click's region
/// within a few cells of the squad's centre.
fn units(grid: &Grid, board: Board, region: u32) -> Vec<Unit> {
    let mut used = vec![false; (SIZE * SIZE) as usize];
    let mut units = Vec::new();
    let mut draw = 0u64;
    let mut next = |bound: u32| {
        draw += 1;
        (hash(draw as u32, (draw >> 32) as u32, 4) % u64::from(bound)) as u32
    };
    for _ in 0..SQUADS {
        let centre = Pos::new(next(SIZE), next(SIZE));
        let mut placed = 0;
        while placed < SQUAD_SIZE {
            let (dx, dy) = (next(31), next(31));
            let pos = Pos::new(
                (centre.x + dx).saturating_sub(15).min(SIZE - 1),
                (centre.y + dy).saturating_sub(15).min(SIZE - 1),
            );
            let at = (pos.y * SIZE + pos.x) as usize;
            if !used[at] && grid.region(pos, board) == Some(region) {
                used[at] = true;
                units.push(Unit {
                    start: pos,
                    class: 0,
                });
                placed += 1;
            }
        }
    }
    units
}

fn routed(results: &[Result<Route, Stranded>]) -> usize {
    results.iter().filter(|r| r.is_ok()).count()
}

fn main() {
    let board = Board::default();
    let grid = map();
    let click = Pos::new(256, 256);
    let region = grid.region(click, board).expect("the click is passable");
    let units = units(&grid, board, region);
    let grids = [&grid];
    let mut planner = GroupPlanner::new();

    // (a) One order: every unit to one click.
    let began = Instant::now();
    let order = GroupOrder {
        units: &units,
        click,
        occupied: &[],
        board,
    };
    let one = planner
        .plan(&grids, &order)
        .expect("the click is on the map");
    let time_a = began.elapsed();
    let stats_a = planner.stats();
    assert_eq!(routed(&one), units.len(), "every unit of (a) has a route");

    // (b) One order per squad, to its own click; the other squads stand where they are.
    let clicks: Vec<Pos> = (0..SQUADS as u32)
        .map(|i| {
            let mut at = Pos::new(hash(i, 0, 5) as u32 % SIZE, hash(i, 1, 5) as u32 % SIZE);
            // The nearest passable cell of the click's region along the row.
            while grid.region(at, board) != Some(region) {
                at.x = (at.x + 1) % SIZE;
            }
            at
        })
        .collect();
    let starts: Vec<Pos> = units.iter().map(|u| u.start).collect();
    let mut occupied = Vec::with_capacity(units.len());
    let began = Instant::now();
    let mut squads_routed = 0;
    let mut fields_b = 0;
    for (squad, &click) in clicks.iter().enumerate() {
        let mine = squad * SQUAD_SIZE..(squad + 1) * SQUAD_SIZE;
        occupied.clear();
        occupied.extend_from_slice(&starts[..mine.start]);
        occupied.extend_from_slice(&starts[mine.end..]);
        let order = GroupOrder {
            units: &units[mine],
            click,
            occupied: &occupied,
            board,
        };
        let results = planner
            .plan(&grids, &order)
            .expect("the click is on the map");
        squads_routed += routed(&results);
        fields_b += planner.stats().fields;
    }
    let time_b = began.elapsed();

    // (c) One A* per unit to the tile (a) gave it.
    let options = SearchOptions::on(board);
    let mut context = SearchContext::new();
    let began = Instant::now();
    let searched: Vec<f64> = units
        .iter()
        .zip(&one)
        .map(|(u, route)| {
            let tile = route.as_ref().expect("routed").tile;
            let found = context
                .search(&grid, u.start, tile, &options)
                .expect("a path to its tile");
            found.path.cost
        })
        .collect();
    let time_c = began.elapsed();
    let worst = one
        .iter()
        .zip(&searched)
        .map(|(route, &cost)| {
            let route = route.as_ref().expect("routed");
            (route.path.cost - cost).abs() / cost.max(1.0)
        })
        .fold(0.0, f64::max);
    assert!(worst < 1e-9, "a route of (a) is dearer than A*: {worst}");

    let ms = |d: Duration| d.as_secs_f64() * 1e3;
    println!(
        "map {SIZE}x{SIZE} {board}, {} units in {SQUADS} squads",
        units.len()
    );
    println!(
        "(a) one order of {} units:        {:9.1} ms  ({} fields, {} cells settled, {} waves, {} cells searched)",
        units.len(),
        ms(time_a),
        stats_a.fields,
        stats_a.settled,
        stats_a.waves,
        stats_a.searched
    );
    println!(
        "(b) {SQUADS} orders of {SQUAD_SIZE} units:        {:9.1} ms  ({fields_b} fields, {squads_routed} routed)",
        ms(time_b)
    );
    println!("(c) one A* per unit of (a):      {:9.1} ms", ms(time_c));
    println!(
        "baseline/(a) = {:.1}x, baseline/(b) = {:.1}x, worst relative cost difference {worst:.1e}",
        time_c.as_secs_f64() / time_a.as_secs_f64(),
        time_c.as_secs_f64() / time_b.as_secs_f64()
    );
    println!(
        "{{\"units\":{},\"a_ms\":{:.1},\"b_ms\":{:.1},\"c_ms\":{:.1},\"a_fields\":{},\"b_fields\":{fields_b}}}",
        units.len(),
        ms(time_a),
        ms(time_b),
        ms(time_c),
        stats_a.fields
    );
}
