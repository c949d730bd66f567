//! The crowd-flow scenario families, shared by `examples/flow` (which prints them) and the
//! game's tests (`tests/game/armies.rs`, which assert them).
//!
//! A family is a generator with parameters; its seed changes the map, where the units stand
//! and where they are sent. Each is measured by the last arrival of its units (the makespan)
//! over the ideal: the free-path makespan (the longest of the arrived units' cheapest walks
//! from where they started to where they ended, with no other unit on the map:
//! [`bevy_tilewalk::free_walk_seconds`], what `simulate --stats` prints as
//! `free_makespan_s`), or, where every unit passes narrows (a gap, a bridge), the narrows'
//! bound ([`Narrows`]).
//!
//! The seeds: [`TUNING_SEEDS`] were used while the crowd rules were chosen; [`SEEDS`] were
//! not, and are what the tests assert and the example reports.

use std::fmt::Write as _;

use bevy::prelude::*;
use bevy_tilewalk::{
    MoveOrder, MovementClass, Navigation, Path, Pending, Refusal, Team, Tile, Unit,
    free_walk_seconds,
};
use pathfinding::directed::edmonds_karp::edmonds_karp_sparse;
use rand::rngs::StdRng;
use rand::seq::SliceRandom;
use rand::{Rng, SeedableRng};
use std::collections::{HashMap, HashSet};
use tilewalk::headless_app;
use tilewalk::journal::{Entry, Journal};
use tilewalk::map::MapAsset;
use tilewalk::map::generate::generate;
use tilewalk::terrain::TerrainTable;
use tilewalk_path::{Pos, SearchContext};

/// Seeds the crowd rules were tuned on.
pub const TUNING_SEEDS: [u64; 2] = [1, 2];
/// Seeds never tuned on: what is reported and tested.
pub const SEEDS: [u64; 5] = [31, 32, 33, 34, 35];

/// A map as text, and the orders given on it in one frame.
pub struct Scenario {
    pub map: String,
    /// Group orders: every unit of a team, to a point.
    pub orders: Vec<(Team, Pos)>,
    /// Whether the units are ordered one by one instead.
    pub alone: Alone,
    /// The narrows each team's units pass, if any: the scenario's ideal is then the
    /// narrows' bound ([`Narrows`]) instead of the free-path makespan.
    pub narrows: Vec<(Team, Narrows)>,
    /// Whether the teams' ways cross: the ideal is then no less than the crossing bound
    /// ([`crossing_bound`]).
    pub crossing: bool,
}

/// How a scenario's units are ordered.
pub enum Alone {
    /// By the group orders of [`Scenario::orders`].
    No,
    /// Each alone (one order a unit), to the tile the group orders of
    /// [`Scenario::orders`] would give it: the same goals, with no squadmates to trade with.
    GroupTiles,
    /// Each alone to its own goal, by the units' order in the map.
    Goals(Vec<Pos>),
}

/// A family of scenarios: one generator, one scenario a seed.
pub struct Family {
    pub name: &'static str,
    /// The largest ratio of the makespan to the ideal that the flow issue asks for.
    pub target: f64,
    pub build: fn(u64) -> Scenario,
}

/// A stretch every unit of a team passes, `width` tiles wide, entered at `entry` and left at
/// `exit` (the same cells for a gap in a wall; a bridge's two ends). Its bound on the team's
/// last arrival: the team's first unit's free walk to the nearest `entry` cell, plus one unit
/// a tile of width per step for every unit that passes the narrows, whichever team and way
/// (`units ÷ (width × speed)` seconds: a tile holds one unit at a time, so two teams crossing
/// a bridge in opposite ways share its tiles, passing each other two by two), plus the free
/// walk from `entry` to `exit`, plus the shortest free walk from an `exit` cell to a tile the
/// team ended on. The scenario's bound is its teams' latest.
pub struct Narrows {
    pub entry: Vec<Pos>,
    pub exit: Vec<Pos>,
    pub width: f64,
}

/// The families: the fast ones first, then, with `all`, the large armies (minutes each).
pub fn families(all: bool) -> Vec<Family> {
    let mut list = vec![
        Family {
            name: "armies: gen 80x60, 300 a side, through each other",
            target: 2.0,
            build: |seed| armies(seed, 80, 60, 300),
        },
        Family {
            name: "armies: the same, one order a unit",
            target: 2.0,
            build: |seed| Scenario {
                alone: Alone::GroupTiles,
                ..armies(seed, 80, 60, 300)
            },
        },
        Family {
            name: "land: 300 foot + 300 horse to one point, 128x128",
            target: 1.5,
            build: |seed| land(seed, 600, |i| if i % 2 == 0 { "foot" } else { "horse" }),
        },
        Family {
            name: "land: 400 foot to one point, 128x128",
            target: 1.3,
            build: |seed| land(seed, 400, |_| "foot"),
        },
        Family {
            name: "gap: 300 foot through three tiles",
            target: 1.5,
            build: gap,
        },
        Family {
            name: "bridge: 50 + 50 foot, one tile, both ways",
            target: 1.5,
            build: bridge,
        },
        Family {
            name: "own goals: random 32x32, a fifth blocked, 400, 4-way",
            target: 2.0,
            build: |seed| own_goals(seed, 32, 32, 400, random_blocks),
        },
        Family {
            name: "own goals: warehouse 161x63, 500, 4-way",
            target: 2.0,
            build: |seed| own_goals(seed, 161, 63, 500, warehouse),
        },
    ];
    if all {
        list.push(Family {
            name: "armies: gen 112x84, 1,500 a side, through each other",
            target: 2.0,
            build: |seed| armies(seed, 112, 84, 1500),
        });
        list.push(Family {
            name: "armies: the same 1,500 a side, one order a unit",
            target: 2.0,
            build: |seed| Scenario {
                alone: Alone::GroupTiles,
                ..armies(seed, 112, 84, 1500)
            },
        });
        // With `--seed 9`, what `tools/armies_arrive.py` plays in the window: `tilewalk gen
        // --seed 9 --width 128 --height 96 --units 1500`, blue sent to the grass nearest
        // (107,48) and red to the grass nearest (21,48).
        list.push(Family {
            name: "armies: gen 128x96, 1,500 a side, through each other",
            target: 2.0,
            build: |seed| armies(seed, 128, 96, 1500),
        });
    }
    list
}

/// A grid of `width` × `height` tiles from `glyph(x, y)`, and units.
fn map_text(
    width: u32,
    height: u32,
    glyph: impl Fn(u32, u32) -> char,
    units: &[(Team, &str, Pos)],
) -> String {
    let mut text = String::from("[terrain]\n");
    for y in 0..height {
        text.extend((0..width).map(|x| glyph(x, y)));
        text.push('\n');
    }
    text.push_str("[units]\n");
    for (i, (team, class, pos)) in units.iter().enumerate() {
        let team = if *team == Team::BLUE { "blue" } else { "red" };
        writeln!(text, "u{i} {team} {class} {},{}", pos.x, pos.y).unwrap();
    }
    text
}

/// Units of `team` and `class(i)` on every tile of the block from `corner`, `width` wide.
fn block(
    team: Team,
    class: impl Fn(u32) -> &'static str,
    corner: Pos,
    width: u32,
    count: u32,
) -> Vec<(Team, &'static str, Pos)> {
    (0..count)
        .map(|i| {
            let pos = Pos::new(corner.x + i % width, corner.y + i / width);
            (team, class(i), pos)
        })
        .collect()
}

/// Both armies of `tilewalk gen --seed S --width W --height H --units N`, sent through each
/// other in one frame: blue to the grass tile nearest a point a sixth of the width from the
/// east edge, red to the one nearest a point as far from the west edge (both mid-height).
fn armies(seed: u64, width: u32, height: u32, units: u32) -> Scenario {
    let map = generate(seed, width, height, units);
    let rows: Vec<&str> = map
        .lines()
        .skip_while(|l| *l != "[terrain]")
        .skip(1)
        .take(height as usize)
        .collect();
    let grass = |target: Pos| {
        (0..height)
            .flat_map(|y| (0..width).map(move |x| Pos::new(x, y)))
            .filter(|p| rows[p.y as usize].as_bytes()[p.x as usize] == b'.')
            .min_by_key(|p| {
                let (dx, dy) = (p.x.abs_diff(target.x), p.y.abs_diff(target.y));
                (dx * dx + dy * dy, p.y, p.x)
            })
            .expect("a generated map has grass")
    };
    let orders = vec![
        (Team::BLUE, grass(Pos::new(width - width / 6, height / 2))),
        (Team::RED, grass(Pos::new(width / 6, height / 2))),
    ];
    Scenario {
        map,
        orders,
        alone: Alone::No,
        narrows: Vec::new(),
        crossing: true,
    }
}

/// `count` units of `class(i)` in a block 30 wide on the west of 128×128 grass with woods
/// (one tile in 12) and mud (one in 25) where the seed puts them, one group order to a point
/// on the east side.
fn land(seed: u64, count: u32, class: fn(u32) -> &'static str) -> Scenario {
    let mut rng = StdRng::seed_from_u64(seed);
    let side = 128;
    let glyphs: Vec<char> = (0..side * side)
        .map(|_| match rng.random_range(0..300) {
            0..25 => 'f',
            25..37 => ',',
            _ => '.',
        })
        .collect();
    let (columns, rows) = (30, count.div_ceil(30));
    let corner = Pos::new(
        rng.random_range(2..12),
        rng.random_range(10..side - rows - 10),
    );
    let goal = Pos::new(rng.random_range(96..120), rng.random_range(20..side - 20));
    let under = |x: u32, y: u32| {
        (corner.x..corner.x + columns).contains(&x) && (corner.y..corner.y + rows).contains(&y)
    };
    Scenario {
        map: map_text(
            side,
            side,
            // No woods or mud under the units or on the goal: they start and end on grass.
            |x, y| {
                if under(x, y) || Pos::new(x, y) == goal {
                    '.'
                } else {
                    glyphs[(y * side + x) as usize]
                }
            },
            &block(Team::BLUE, class, corner, columns, count),
        ),
        orders: vec![(Team::BLUE, goal)],
        alone: Alone::No,
        narrows: Vec::new(),
        crossing: false,
    }
}

/// 300 foot in a 15×20 block, sent through a three-tile gap in a wall across 64×40 grass;
/// the seed moves the gap, the block and the goal.
fn gap(seed: u64) -> Scenario {
    let mut rng = StdRng::seed_from_u64(seed);
    let gap = rng.random_range(8..29);
    let corner = Pos::new(rng.random_range(0..8), rng.random_range(0..20));
    let goal = Pos::new(rng.random_range(46..58), rng.random_range(10..30));
    let cells: Vec<Pos> = (gap..gap + 3).map(|y| Pos::new(32, y)).collect();
    Scenario {
        map: map_text(
            64,
            40,
            |x, y| {
                if x == 32 && !(gap..gap + 3).contains(&y) {
                    '#'
                } else {
                    '.'
                }
            },
            &block(Team::BLUE, |_| "foot", corner, 15, 300),
        ),
        orders: vec![(Team::BLUE, goal)],
        alone: Alone::No,
        narrows: vec![(
            Team::BLUE,
            Narrows {
                entry: cells.clone(),
                exit: cells,
                width: 3.0,
            },
        )],
        crossing: false,
    }
}

/// 50 blue foot and 50 red on either side of a five-tile bridge over rock across 41×21,
/// each side sent to the other's bank; the seed moves the bridge, the blocks and the goals.
fn bridge(seed: u64) -> Scenario {
    let mut rng = StdRng::seed_from_u64(seed);
    let row = rng.random_range(3..18);
    let blue = Pos::new(rng.random_range(1..6), rng.random_range(0..11));
    let red = Pos::new(rng.random_range(30..36), rng.random_range(0..11));
    let goals = (
        Pos::new(rng.random_range(32..39), rng.random_range(2..19)),
        Pos::new(rng.random_range(2..9), rng.random_range(2..19)),
    );
    let (west, east) = (Pos::new(18, row), Pos::new(22, row));
    Scenario {
        map: map_text(
            41,
            21,
            |x, y| match (x, y) {
                (18..=22, y) if y == row => '=',
                (18..=22, _) => '#',
                _ => '.',
            },
            &[
                block(Team::BLUE, |_| "foot", blue, 5, 50),
                block(Team::RED, |_| "foot", red, 5, 50),
            ]
            .concat(),
        ),
        orders: vec![(Team::BLUE, goals.0), (Team::RED, goals.1)],
        alone: Alone::No,
        narrows: vec![
            (
                Team::BLUE,
                Narrows {
                    entry: vec![west],
                    exit: vec![east],
                    width: 1.0,
                },
            ),
            (
                Team::RED,
                Narrows {
                    entry: vec![east],
                    exit: vec![west],
                    width: 1.0,
                },
            ),
        ],
        crossing: false,
    }
}

/// Rock on a fifth of the tiles, where the seed puts them (the layout of the multi-agent
/// pathfinding benchmark's `random-32-32-20`).
fn random_blocks(rng: &mut StdRng, _: u32, _: u32) -> bool {
    rng.random_range(0..5) == 0
}

/// A warehouse (the layout of the multi-agent pathfinding benchmark's `warehouse` maps):
/// rows of shelves ten tiles long and two deep, one tile apart along a row and three between
/// rows, with an open band of ten tiles on either side.
fn warehouse(_: &mut StdRng, x: u32, y: u32) -> bool {
    let (width, _) = (161, 63);
    let inside = (10..width - 10).contains(&x) && (3..60).contains(&y);
    inside && (y - 3) % 5 < 2 && (x - 10) % 11 < 10
}

/// `count` foot soldiers on a `width` × `height` grass map with rock where `blocked(rng, x, y)`
/// says, on a 4-way board: random distinct starts in the largest region of grass, and random
/// distinct goals there, each unit ordered alone to its own (a goal may be another unit's
/// start).
fn own_goals(
    seed: u64,
    width: u32,
    height: u32,
    count: u32,
    blocked: fn(&mut StdRng, u32, u32) -> bool,
) -> Scenario {
    let mut rng = StdRng::seed_from_u64(seed);
    let rock: Vec<bool> = (0..height)
        .flat_map(|y| (0..width).map(move |x| (x, y)))
        .map(|(x, y)| blocked(&mut rng, x, y))
        .collect();
    // The largest region, 4-way.
    let mut region = vec![usize::MAX; rock.len()];
    let mut largest: Vec<Pos> = Vec::new();
    for start in 0..rock.len() {
        if rock[start] || region[start] != usize::MAX {
            continue;
        }
        let mut cells = vec![start];
        region[start] = start;
        let mut i = 0;
        while i < cells.len() {
            let c = cells[i];
            i += 1;
            let (x, y) = ((c as u32) % width, (c as u32) / width);
            let around = [
                (x > 0).then(|| c - 1),
                (x + 1 < width).then(|| c + 1),
                (y > 0).then(|| c - width as usize),
                (y + 1 < height).then(|| c + width as usize),
            ];
            for n in around.into_iter().flatten() {
                if !rock[n] && region[n] == usize::MAX {
                    region[n] = start;
                    cells.push(n);
                }
            }
        }
        if cells.len() > largest.len() {
            largest = cells
                .iter()
                .map(|&c| Pos::new((c as u32) % width, (c as u32) / width))
                .collect();
        }
    }
    largest.sort_by_key(|p| (p.y, p.x));
    let mut starts = largest.clone();
    let mut goals = largest;
    starts.shuffle(&mut rng);
    goals.shuffle(&mut rng);
    let units: Vec<(Team, &str, Pos)> = starts[..count as usize]
        .iter()
        .map(|&p| (Team::BLUE, "foot", p))
        .collect();
    Scenario {
        map: format!(
            "board: square-4\n{}",
            map_text(
                width,
                height,
                |x, y| if rock[(y * width + x) as usize] {
                    '#'
                } else {
                    '.'
                },
                &units,
            )
        ),
        orders: Vec::new(),
        alone: Alone::Goals(goals[..count as usize].to_vec()),
        narrows: Vec::new(),
        crossing: false,
    }
}

/// What a scenario measured.
pub struct Flow {
    pub units: usize,
    /// Units refused at the order because they cannot reach the goal (or no free tile near
    /// it is left for them).
    pub unreachable: usize,
    pub arrived: usize,
    /// Units that gave up on the way.
    pub gave_up: usize,
    pub makespan: f64,
    /// The free-path makespan: the longest of the arrived units' cheapest walks from where
    /// they started to where they ended, with no other unit on the map.
    pub free: f64,
    /// The ideal: the narrows' bound where there are narrows; where the teams' ways cross,
    /// the later of the free-path makespan and the crossing bound ([`crossing_bound`]);
    /// elsewhere the free-path makespan.
    pub ideal: f64,
}

impl Flow {
    /// The last arrival over the ideal.
    pub fn ratio(&self) -> f64 {
        self.makespan / self.ideal
    }

    /// The last arrival over the free-path makespan.
    pub fn free_ratio(&self) -> f64 {
        self.makespan / self.free
    }
}

/// A lower bound on the last arrival of units that cross from where they start to where
/// they end, from the capacity of the land between: a tile holds one unit at a time, and a
/// unit of `class` entering a tile of cost `c` holds it at least `c ÷ speed` seconds (a
/// straight step), so at most `speed ÷ c` units a second pass through it. For each class,
/// every set of tiles that separates the tiles its units start on from those they end on
/// (red's and blue's, each way: a vertex cut) is crossed by each of its units; the cut of
/// least capacity, `C` units a second (a maximum flow, Edmonds–Karp from the `pathfinding`
/// crate, on each tile split into an entry and an exit joined by its capacity, with the
/// board's steps and corner rule), passes the class's `n` units in no less than `n ÷ C`
/// seconds (less the units that start on the cut's tiles, which need not enter one). The
/// bound is the latest class's. `units`: (team, start, end, class) of the arrived units.
pub fn crossing_bound(nav: &Navigation, units: &[(Team, Pos, Pos, MovementClass)]) -> f64 {
    let mut bound = 0.0_f64;
    let mut classes: Vec<MovementClass> = units.iter().map(|u| u.3).collect();
    classes.sort_unstable_by_key(|c| c.0);
    classes.dedup();
    for class in classes {
        let grid = nav.grid(class);
        let (width, height) = (grid.width(), grid.height());
        let index = |p: Pos| p.y * width + p.x;
        let cells = width * height;
        let (source, sink) = (2 * cells, 2 * cells + 1);
        // Units a second, in millionths, rounded up: a larger capacity keeps the bound low.
        let scale = 1e6;
        // More than all the tiles' capacities together.
        const INFINITE: i64 = 1 << 50;
        let mut edges: Vec<((u32, u32), i64)> = Vec::new();
        for p in grid.cells() {
            let Some(cost) = grid.cost(p) else {
                continue;
            };
            let rate = 1.0 / nav.step_seconds(class, 1.0, cost);
            edges.push((
                (2 * index(p), 2 * index(p) + 1),
                (rate * scale).ceil() as i64,
            ));
            for q in nav.board().neighbours(p, width, height) {
                if grid.is_passable(q) && nav.can_step(class, p, q) {
                    edges.push(((2 * index(p) + 1, 2 * index(q)), INFINITE));
                }
            }
        }
        let mine: Vec<_> = units.iter().filter(|u| u.3 == class).collect();
        for &&(team, start, end, _) in &mine {
            let (from, to) = if team == Team::BLUE {
                (start, end)
            } else {
                (end, start)
            };
            edges.push(((source, 2 * index(from)), INFINITE));
            edges.push(((2 * index(to) + 1, sink), INFINITE));
        }
        let vertices: Vec<u32> = (0..2 * cells + 2).collect();
        let (_, capacity, cut) = edmonds_karp_sparse(&vertices, &source, &sink, edges);
        if capacity <= 0 {
            continue;
        }
        let on_cut: HashSet<u32> = cut.iter().map(|((from, _), _)| from / 2).collect();
        let crossing = mine
            .iter()
            .filter(|u| !on_cut.contains(&index(u.1)))
            .count();
        bound = bound.max(crossing as f64 / (capacity as f64 / scale));
    }
    bound
}

/// A unit as a scenario sees it: its entity, name, team, starting tile and class.
type Started = (Entity, String, Team, Pos, MovementClass);

/// A headless app playing `map`, past its first frame, and its units in the world's order.
fn started(map: &MapAsset, table: &TerrainTable) -> (App, Vec<Started>) {
    let mut app = headless_app(map, table).expect("the scenario's map builds");
    app.update();
    let world = app.world_mut();
    let units = world
        .query_filtered::<(Entity, &Name, &Team, &Tile, &MovementClass), With<Unit>>()
        .iter(world)
        .map(|(e, n, t, p, c)| (e, n.as_str().to_owned(), *t, p.0, *c))
        .collect();
    (app, units)
}

/// One group order a team: every unit of the team, to the order's point.
fn group_orders(orders: &[(Team, Pos)], units: &[Started]) -> Vec<MoveOrder> {
    orders
        .iter()
        .map(|&(team, goal)| {
            MoveOrder::new(units.iter().filter(|u| u.2 == team).map(|u| u.0), goal)
        })
        .collect()
}

/// The tile `orders` (group orders) send each unit of `map` to, by name: planned in an app
/// of its own, until no unit waits for its path.
fn group_tiles(
    map: &MapAsset,
    table: &TerrainTable,
    orders: &[(Team, Pos)],
) -> HashMap<String, Pos> {
    let (mut app, units) = started(map, table);
    app.world_mut()
        .write_message_batch(group_orders(orders, &units));
    app.update();
    while app
        .world_mut()
        .query_filtered::<(), With<Pending>>()
        .iter(app.world())
        .next()
        .is_some()
    {
        app.update();
    }
    let world = app.world_mut();
    world
        .query::<(&Name, &Path)>()
        .iter(world)
        .map(|(name, path)| (name.as_str().to_owned(), path.goal()))
        .collect()
}

/// Runs `scenario` headless (fixed 1/60 s steps) until every unit is idle or `seconds` of
/// simulated time have passed. `each_frame` sees the world after every frame.
pub fn run(
    scenario: &Scenario,
    table: &TerrainTable,
    seconds: f64,
    mut each_frame: impl FnMut(&mut World),
) -> Flow {
    let map = MapAsset::parse(&scenario.map).expect("the scenario's map parses");
    let (mut app, units) = started(&map, table);
    let alone = |unit: Entity, goal: Pos| MoveOrder::new([unit], goal);
    let orders: Vec<MoveOrder> = match &scenario.alone {
        Alone::No => group_orders(&scenario.orders, &units),
        Alone::GroupTiles => {
            let tiles = group_tiles(&map, table, &scenario.orders);
            units
                .iter()
                .filter_map(|u| Some(alone(u.0, *tiles.get(&u.1)?)))
                .collect()
        }
        Alone::Goals(goals) => units
            .iter()
            .map(|u| {
                let index: usize = u.1[1..].parse().expect("units are named u{index}");
                alone(u.0, goals[index])
            })
            .collect(),
    };
    let world = app.world_mut();
    world.write_message_batch(orders);
    let frames = (seconds * 60.0) as usize;
    for frame in 0..frames {
        app.update();
        each_frame(app.world_mut());
        if frame > 0 && tilewalk::all_idle(app.world_mut()) {
            break;
        }
    }
    let world = app.world();
    let journal = &world.resource::<Journal>().0;
    let nav = world.resource::<Navigation>();
    let mut context = SearchContext::new();
    let (mut unreachable, mut gave_up) = (0, 0);
    for entry in journal {
        match entry {
            Entry::Refused {
                reason: Refusal::GaveUp { .. },
                ..
            } => gave_up += 1,
            Entry::Refused { .. } => unreachable += 1,
            _ => {}
        }
    }
    let (mut makespan, mut free) = (0.0_f64, 0.0_f64);
    let mut arrived = 0;
    let mut ended: Vec<(Team, Pos, Pos, MovementClass)> = Vec::new();
    for (entity, name, team, start, class) in &units {
        // Its one order's arrival, if it arrived.
        let Some(seconds) = journal.iter().rev().find_map(|e| match e {
            Entry::Arrived { unit, seconds, .. } if unit == name => Some(*seconds),
            _ => None,
        }) else {
            continue;
        };
        let end = world.get::<Tile>(*entity).map_or(*start, |t| t.0);
        ended.push((*team, *start, end, *class));
        arrived += 1;
        makespan = makespan.max(seconds);
        free = free.max(free_walk_seconds(&mut context, nav, *class, *start, end));
    }
    let mut walk = |class, from: Pos, to: &[Pos]| {
        to.iter()
            .map(|&to| free_walk_seconds(&mut context, nav, class, from, to))
            .fold(f64::INFINITY, f64::min)
    };
    // Every unit that passes the narrows, of whichever team.
    let passing = ended
        .iter()
        .filter(|u| scenario.narrows.iter().any(|(team, _)| *team == u.0))
        .count();
    let bound = scenario
        .narrows
        .iter()
        .map(|(team, narrows)| {
            let mine: Vec<_> = ended.iter().filter(|u| u.0 == *team).collect();
            let Some(&&(_, _, _, class)) = mine.first() else {
                return 0.0;
            };
            let to_entry = mine
                .iter()
                .map(|u| walk(class, u.1, &narrows.entry))
                .fold(f64::INFINITY, f64::min);
            let across = narrows
                .entry
                .iter()
                .map(|&e| walk(class, e, &narrows.exit))
                .fold(f64::INFINITY, f64::min);
            let beyond = mine
                .iter()
                .map(|u| {
                    narrows
                        .exit
                        .iter()
                        .map(|&x| walk(class, x, &[u.2]))
                        .fold(f64::INFINITY, f64::min)
                })
                .fold(f64::INFINITY, f64::min);
            let pass = passing as f64 / (narrows.width * nav.speed(class));
            to_entry + pass + across + beyond
        })
        .reduce(f64::max);
    // The crossing bound counts the units still on their way too, at the tile they are
    // going to: a run cut short by its time limit still shows what the land allows.
    let crossing = if scenario.crossing {
        let going = units.iter().filter_map(|(entity, _, team, start, class)| {
            let path = world.get::<Path>(*entity)?;
            Some((*team, *start, path.goal(), *class))
        });
        let all: Vec<_> = ended.iter().copied().chain(going).collect();
        crossing_bound(nav, &all)
    } else {
        0.0
    };
    Flow {
        units: units.len(),
        unreachable,
        arrived,
        gave_up,
        makespan,
        free,
        ideal: bound.unwrap_or(free.max(crossing)),
    }
}
