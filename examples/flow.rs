//! Crowd flow: how much later a crowd arrives than its units would alone.
//!
//! Runs the headless game (fixed 1/60 s steps, deterministic) on crowd scenarios built in
//! code and prints, for each, the last arrival of its units (the makespan) beside the ideal,
//! the free-path makespan: the longest of the arrived units' cheapest walks from where they
//! started to where they ended, with no other unit on the map
//! ([`bevy_tilewalk::free_walk_seconds`], what `simulate --stats` prints as
//! `free_makespan_s`). Their ratio is how much the crowd slowed its slowest walk. Where the
//! units must pass narrows (a gap, a bridge), no crowd can do better than the narrows let
//! through, and the ratio is to the narrows' bound instead ([`Narrows`]). Each line ends with
//! the flow issue's target for that ratio.
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
    /// The narrows each team's units pass, if any: the scenario's ideal is then the
    /// narrows' bound ([`Narrows`]) instead of the free-path makespan.
    narrows: Vec<(Team, Narrows)>,
    /// The largest ratio of the makespan to the ideal that the flow issue asks for.
    target: f64,
}

/// A stretch every unit of a team passes, `width` tiles wide, entered at `entry` and left at
/// `exit` (the same cells for a gap in a wall; a bridge's two ends). Its bound on the team's
/// last arrival: the team's first unit's free walk to the nearest `entry` cell, plus one unit
/// a tile of width per step for every unit that passes the narrows, whichever team and way
/// (`units ÷ (width × speed)` seconds: a tile holds one unit at a time, so two teams crossing
/// a bridge in opposite ways share its tiles, passing each other two by two), plus the free
/// walk from `entry` to `exit`, plus the shortest free walk from an `exit` cell to a tile the
/// team ended on. The scenario's bound is its teams' latest.
struct Narrows {
    entry: Vec<Pos>,
    exit: Vec<Pos>,
    width: f64,
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
            narrows: Vec::new(),
            target: 1.3,
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
                narrows: Vec::new(),
                target: 1.3,
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
            narrows: vec![(
                Team::Blue,
                Narrows {
                    entry: (19..22).map(|y| Pos::new(32, y)).collect(),
                    exit: (19..22).map(|y| Pos::new(32, y)).collect(),
                    width: 3.0,
                },
            )],
            target: 1.5,
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
            narrows: vec![
                (
                    Team::Blue,
                    Narrows {
                        entry: vec![Pos::new(18, 10)],
                        exit: vec![Pos::new(22, 10)],
                        width: 1.0,
                    },
                ),
                (
                    Team::Red,
                    Narrows {
                        entry: vec![Pos::new(22, 10)],
                        exit: vec![Pos::new(18, 10)],
                        width: 1.0,
                    },
                ),
            ],
            target: 1.5,
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
            narrows: Vec::new(),
            target: 2.0,
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
    /// The narrows' bound, where the scenario has narrows.
    bound: Option<f64>,
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
    Flow {
        units: units.len(),
        arrived,
        makespan,
        free,
        bound,
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
        "{:<42} {:>7} {:>8} {:>12} {:>8} {:>8} {:>7} {:>7}",
        "scenario", "units", "arrived", "makespan s", "free s", "bound s", "ratio", "target"
    );
    for scenario in scenarios(all) {
        let flow = run(&scenario, &table, seconds);
        let ideal = flow.bound.unwrap_or(flow.free);
        println!(
            "{:<42} {:>7} {:>8} {:>12.1} {:>8.1} {:>8} {:>7.2} {:>7.1}",
            scenario.name,
            flow.units,
            flow.arrived,
            flow.makespan,
            flow.free,
            flow.bound.map_or("-".to_owned(), |b| format!("{b:.1}")),
            flow.makespan / ideal,
            scenario.target,
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
