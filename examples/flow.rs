//! Crowd flow: how much later a crowd arrives than its units would alone.
//!
//! Runs the headless game (fixed 1/60 s steps, deterministic) on crowd scenarios built in
//! code and prints, for each, the last arrival of its units (the makespan) beside the ideal,
//! the free-path makespan: the longest of the arrived units' cheapest walks from where they
//! started to where they ended, with no other unit on the map
//! ([`bevy_tilewalk::free_walk_seconds`], what `simulate --stats` prints as
//! `free_makespan_s`). Their ratio is how much the crowd slowed its slowest walk.
//!
//! - `open`: 400 foot in a 20×20 block, one group order to a point 55 tiles east, 96×96 grass;
//! - `land`: 1,000 foot and 1,000 horse, one group order across 256×256 land with woods and
//!   mud (one tile in 12 forest, one in 25 mud, from a fixed seed);
//! - `gap`: 300 foot through a three-tile gap in a wall;
//! - `bridge`: 50 + 50 foot across a one-tile bridge over rock, in opposite directions;
//! - `armies`: both armies of `tilewalk gen --seed 1 --width 128 --height 96 --units 2500`
//!   sent through each other (`--group blue:106,25 --group red:13,25`); only with `--all`,
//!   as it takes minutes.
//!
//! `cargo run --release --example flow [-- --all] [--seconds S]` (S: simulated time limit
//! for each scenario, default 1,800).

use std::fmt::Write as _;

use bevy::prelude::*;
use bevy_tilewalk::{MoveOrder, Navigation, free_walk_seconds};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use tilewalk::headless_app;
use tilewalk::journal::{Entry, Journal};
use tilewalk::map::MapAsset;
use tilewalk::map::generate::generate;
use tilewalk::terrain::TerrainTable;
use tilewalk::units::{MovementClass, Team, Tile, Unit};
use tilewalk_path::{Pos, SearchContext};

/// A map as text: a grid and its units.
struct Scenario {
    name: &'static str,
    map: String,
    /// Group orders: every unit of a team, to a point.
    orders: Vec<(Team, Pos)>,
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
        let team = if *team == Team::Blue { "blue" } else { "red" };
        writeln!(text, "u{i} {team} {class} {},{}", pos.x, pos.y).unwrap();
    }
    text
}

/// Units of `team` and `class` on every tile of the block from `corner`, `width` wide.
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

fn scenarios(all: bool) -> Vec<Scenario> {
    let foot = |_| "foot";
    let mut list = vec![
        Scenario {
            name: "open: 400 foot, 96x96 grass",
            map: map_text(
                96,
                96,
                |_, _| '.',
                &block(Team::Blue, foot, Pos::new(5, 38), 20, 400),
            ),
            orders: vec![(Team::Blue, Pos::new(80, 48))],
        },
        {
            let mut rng = StdRng::seed_from_u64(50);
            let glyphs: Vec<char> = (0..256 * 256)
                .map(|_| match rng.random_range(0..300) {
                    0..25 => 'f',
                    25..37 => ',',
                    _ => '.',
                })
                .collect();
            let class = |i: u32| {
                if i.is_multiple_of(2) { "foot" } else { "horse" }
            };
            let units = block(Team::Blue, class, Pos::new(4, 103), 40, 2000);
            Scenario {
                name: "land: 1,000 foot + 1,000 horse, 256x256",
                map: map_text(
                    256,
                    256,
                    |x, y| {
                        // No woods or mud under the units: they start on grass.
                        if units_start(x, y) {
                            '.'
                        } else {
                            glyphs[(y * 256 + x) as usize]
                        }
                    },
                    &units,
                ),
                orders: vec![(Team::Blue, Pos::new(200, 128))],
            }
        },
        Scenario {
            name: "gap: 300 foot, a three-tile gap",
            map: map_text(
                64,
                40,
                |x, y| {
                    if x == 32 && !(19..22).contains(&y) {
                        '#'
                    } else {
                        '.'
                    }
                },
                &block(Team::Blue, foot, Pos::new(2, 10), 15, 300),
            ),
            orders: vec![(Team::Blue, Pos::new(50, 20))],
        },
        Scenario {
            name: "bridge: 50 + 50 foot, one tile wide",
            map: map_text(
                41,
                21,
                |x, y| match (x, y) {
                    (18..=22, 10) => '=',
                    (18..=22, _) => '#',
                    _ => '.',
                },
                &[
                    block(Team::Blue, foot, Pos::new(2, 5), 5, 50),
                    block(Team::Red, foot, Pos::new(34, 5), 5, 50),
                ]
                .concat(),
            ),
            orders: vec![(Team::Blue, Pos::new(36, 10)), (Team::Red, Pos::new(4, 10))],
        },
    ];
    if all {
        list.push(Scenario {
            name: "armies: gen --seed 1, 2,500 a side",
            map: generate(1, 128, 96, 2500),
            orders: vec![
                (Team::Blue, Pos::new(106, 25)),
                (Team::Red, Pos::new(13, 25)),
            ],
        });
    }
    list
}

/// Whether `(x, y)` is under the `land` scenario's block of units.
fn units_start(x: u32, y: u32) -> bool {
    (4..44).contains(&x) && (103..153).contains(&y)
}

/// What a scenario measured.
struct Flow {
    units: usize,
    arrived: usize,
    makespan: f64,
    free: f64,
}

fn run(scenario: &Scenario, table: &TerrainTable, seconds: f64) -> Flow {
    let map = MapAsset::parse(&scenario.map).expect("the scenario's map parses");
    let mut app = headless_app(&map, table).expect("the scenario's map builds");
    app.update();
    let world = app.world_mut();
    let units: Vec<(Entity, String, Team, Pos, MovementClass)> = world
        .query_filtered::<(Entity, &Name, &Team, &Tile, &MovementClass), With<Unit>>()
        .iter(world)
        .map(|(e, n, t, p, c)| (e, n.as_str().to_owned(), *t, p.0, *c))
        .collect();
    let orders: Vec<MoveOrder> = scenario
        .orders
        .iter()
        .map(|&(team, goal)| MoveOrder {
            units: units.iter().filter(|u| u.2 == team).map(|u| u.0).collect(),
            goal,
            append: false,
        })
        .collect();
    world.write_message_batch(orders);
    let frames = (seconds * 60.0) as usize;
    for frame in 0..frames {
        app.update();
        if frame > 0 && tilewalk::all_idle(app.world_mut()) {
            break;
        }
    }
    let world = app.world();
    let journal = &world.resource::<Journal>().0;
    let nav = world.resource::<Navigation>();
    let mut context = SearchContext::new();
    let (mut makespan, mut free) = (0.0_f64, 0.0_f64);
    let mut arrived = 0;
    for (entity, name, _, start, class) in &units {
        // Its one order's arrival, if it arrived.
        let Some(seconds) = journal.iter().rev().find_map(|e| match e {
            Entry::Arrived { unit, seconds, .. } if unit == name => Some(*seconds),
            _ => None,
        }) else {
            continue;
        };
        let end = world.get::<Tile>(*entity).map_or(*start, |t| t.0);
        arrived += 1;
        makespan = makespan.max(seconds);
        free = free.max(free_walk_seconds(&mut context, nav, *class, *start, end));
    }
    Flow {
        units: units.len(),
        arrived,
        makespan,
        free,
    }
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (mut all, mut seconds) = (false, 1800.0);
    let mut args = args.iter();
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--all" => all = true,
            "--seconds" => seconds = parse_seconds(args.next().map_or("", String::as_str)),
            _ => {
                eprintln!("usage: flow [--all] [--seconds S]");
                std::process::exit(2)
            }
        }
    }
    let table = TerrainTable::parse(include_str!("../assets/terrain.ron"))
        .expect("the shipped terrain table parses");
    println!(
        "{:<42} {:>7} {:>8} {:>12} {:>12} {:>7}",
        "scenario", "units", "arrived", "makespan s", "free s", "ratio"
    );
    for scenario in scenarios(all) {
        let flow = run(&scenario, &table, seconds);
        println!(
            "{:<42} {:>7} {:>8} {:>12.1} {:>12.1} {:>7.2}",
            scenario.name,
            flow.units,
            flow.arrived,
            flow.makespan,
            flow.free,
            flow.makespan / flow.free
        );
    }
}

fn parse_seconds(value: &str) -> f64 {
    value
        .parse()
        .ok()
        .filter(|s: &f64| s.is_finite() && *s > 0.0)
        .unwrap_or_else(|| {
            eprintln!("--seconds takes a positive number of simulated seconds");
            std::process::exit(2)
        })
}
