//! The army benchmark: 10,000 units on a generated 512×512 map, in the headless game (the
//! simulation plugins under `MinimalPlugins`, a fixed 1/60 s step), ordered three ways in
//! the same process:
//!
//! - (a) one group order of every unit to one point (the open tile nearest the centre);
//! - (b) 100 group orders of 100 units each, to 100 points on a lattice;
//! - (c) the baseline: every unit ordered alone to the same point, one A* each to the free
//!   tile nearest the click in a straight line (what a game without group orders does). Its
//!   A*s take about as long each, so by default only one unit in 10 is ordered and its time
//!   until every path is multiplied by 10 (`--baseline-every 1` orders them all: 10,000 A*s
//!   on this map take tens of minutes).
//!
//! For each it prints the wall time until every unit has a path (or was refused), the frames
//! that took and the work done in them (cells searched or settled, as the budget counts),
//! the wall time of each update (p50/p99) while paths are planned and while the army walks,
//! and how many arrived; then the baseline's planning time over (a)'s and (b)'s.
//!
//! Planning runs on as many workers as the process has cores (each with `--budget` work a
//! frame, group orders side by side, `bevy_tilewalk::PathBudget`); `--workers N` fixes their
//! number. The searches run on Bevy's compute task pool, whose threads it prints: by default
//! fewer than the cores (1 of 2, 8 of 16). Run the same binary under `taskset` to compare
//! core counts.
//!
//! `cargo run --release --example army [-- --units N --walk SECONDS --budget WORK --workers N --only abc
//! --baseline-every K]` (`--only ab` skips the baseline, which takes minutes).

use std::time::Instant;

use bevy::app::TaskPoolOptions;
use bevy::prelude::*;
use bevy::tasks::ComputeTaskPool;
use bevy_tilewalk::debug::PathWork;
use bevy_tilewalk::{MoveOrder, PathBudget, PlannerMemory, Tile, Unit};
use tilewalk::headless_app;
use tilewalk::journal::{Entry, Journal};
use tilewalk::level::Level;
use tilewalk::map::MapAsset;
use tilewalk::map::generate::generate;
use tilewalk::terrain::TerrainTable;
use tilewalk_path::Pos;

const SIDE: u32 = 512;
const SEED: u64 = 7;

struct Options {
    units: u32,
    walk_seconds: f64,
    budget: PathBudget,
    /// The scenarios to run, by letter.
    only: String,
    /// The baseline orders one unit in this many.
    baseline_every: usize,
}

fn options() -> Options {
    let mut options = Options {
        units: 10_000,
        walk_seconds: 10.0,
        budget: PathBudget::default(),
        only: "abc".to_owned(),
        baseline_every: 10,
    };
    let args: Vec<String> = std::env::args().skip(1).collect();
    for pair in args.chunks(2) {
        let value = pair.get(1).map(String::as_str).unwrap_or_default();
        match pair[0].as_str() {
            "--units" => options.units = value.parse().unwrap_or_else(|_| usage()),
            "--walk" => options.walk_seconds = value.parse().unwrap_or_else(|_| usage()),
            "--budget" => options.budget.work = value.parse().unwrap_or_else(|_| usage()),
            "--workers" => {
                options.budget.workers = Some(value.parse().unwrap_or_else(|_| usage()));
            }
            "--baseline-every" => {
                options.baseline_every = value.parse().unwrap_or_else(|_| usage());
                if options.baseline_every == 0 {
                    usage()
                }
            }
            "--only" if !value.is_empty() && value.chars().all(|c| "abc".contains(c)) => {
                options.only = value.to_owned();
            }
            _ => usage(),
        }
    }
    options
}

fn usage() -> ! {
    eprintln!(
        "usage: army [--units N] [--walk SECONDS] [--budget WORK] [--workers N] [--only abc] \
         [--baseline-every K]"
    );
    std::process::exit(2)
}

/// What one scenario measured.
struct Run {
    plan_ms: f64,
    plan_frames: usize,
    /// Cells searched or settled while planning, all frames together.
    plan_work: usize,
    plan_ticks: Vec<f64>,
    walk_ticks: Vec<f64>,
    arrived: usize,
    refused: usize,
}

fn main() {
    let options = options();
    let text = generate(SEED, SIDE, SIDE, options.units / 2);
    let map = MapAsset::parse(&text).expect("a generated map parses");
    let table = TerrainTable::parse(include_str!("../assets/terrain.ron"))
        .expect("the shipped terrain table parses");
    let (_, nav) = Level::build(&map, &table).expect("a generated map builds");
    // Points every class can stand on, so no unit is refused for its class.
    let open_near = |x: u32, y: u32| {
        (0..SIDE as i64)
            .flat_map(|r| (-r..=r).flat_map(move |dy| (-r..=r).map(move |dx| (dx, dy))))
            .filter_map(|(dx, dy)| {
                let p = Pos::new(
                    x.checked_add_signed(dx as i32)?,
                    y.checked_add_signed(dy as i32)?,
                );
                nav.grids()
                    .iter()
                    .all(|grid| grid.is_passable(p))
                    .then_some(p)
            })
            .next()
            .expect("the map has open ground")
    };
    let centre = open_near(SIDE / 2, SIDE / 2);
    let cores = std::thread::available_parallelism().map_or(1, usize::from);
    // Bevy's task pools, as `MinimalPlugins` make them for every scenario's app: the searches
    // run on the compute pool's threads.
    TaskPoolOptions::default().create_default_pools();
    let threads = match ComputeTaskPool::get().thread_num() {
        1 => "1 compute thread".to_owned(),
        n => format!("{n} compute threads"),
    };
    println!(
        "army benchmark: {SIDE}x{SIDE} map (tilewalk gen --seed {SEED} --width {SIDE} --height \
         {SIDE} --units {}), {} units, {cores} cores ({threads}); budget {} \
         work a frame for each of {} workers ({} group orders side by side); walk {} s",
        options.units / 2,
        options.units,
        options.budget.work,
        options.budget.workers(),
        options.budget.orders_side_by_side(),
        options.walk_seconds
    );
    println!(
        "{:<34} {:>10} {:>7} {:>11} {:>11} {:>20} {:>20} {:>8} {:>8}",
        "scenario",
        "paths ms",
        "frames",
        "work",
        "first tick",
        "plan tick p50/p99",
        "walk tick p50/p99",
        "arrived",
        "refused"
    );
    // `scale`: how many units each ordered unit stands for (the baseline's sample).
    let scenario = |name: &str, scale: usize, orders: &dyn Fn(&[Entity]) -> Vec<MoveOrder>| {
        if !options.only.contains(&name[1..2]) {
            return None;
        }
        let mut app = headless_app(&map, &table).expect("a generated map builds");
        app.insert_resource(options.budget);
        let mut run = measure(&mut app, orders, options.walk_seconds);
        run.plan_ms *= scale as f64;
        run.plan_frames *= scale;
        run.plan_work *= scale;
        println!(
            "{name:<34} {:>10.1} {:>7} {:>11} {:>11} {:>20} {:>20} {:>8} {:>8}",
            run.plan_ms,
            run.plan_frames,
            run.plan_work,
            run.plan_ticks
                .first()
                .map_or("-".to_owned(), |ms| format!("{ms:.1} ms")),
            percentiles(&run.plan_ticks),
            percentiles(&run.walk_ticks),
            run.arrived,
            run.refused
        );
        Some(run)
    };
    let one = scenario("(a) one group, one point", 1, &|units| {
        vec![MoveOrder::new(units.to_vec(), centre)]
    });
    let hundred = scenario("(b) 100 groups, 100 points", 1, &|units| {
        let size = units.len().div_ceil(100).max(1);
        units
            .chunks(size)
            .enumerate()
            .map(|(i, group)| {
                // A 10×10 lattice of points across the map's middle half.
                let goal = open_near(
                    SIDE / 4 + (i as u32 % 10) * SIDE / 20,
                    SIDE / 4 + (i as u32 / 10) * SIDE / 20,
                );
                MoveOrder::new(group.iter().copied(), goal)
            })
            .collect()
    });
    let every = options.baseline_every;
    let baseline_name = format!("(c) baseline, 1 in {every}, x{every}");
    let baseline = scenario(&baseline_name, every, &|units| {
        units
            .iter()
            .step_by(every)
            .map(|&unit| MoveOrder::new([unit], centre))
            .collect()
    });
    let ratio = |run: &Option<Run>| match (&baseline, run) {
        (Some(baseline), Some(run)) => format!("{:.1}x", baseline.plan_ms / run.plan_ms),
        _ => "-".to_owned(),
    };
    println!(
        "baseline / (a): {}   baseline / (b): {}   (time until every unit has a path)",
        ratio(&one),
        ratio(&hundred)
    );
}

/// Runs the frame in which the level is in place (the startup systems run), then one in
/// which the group planner's memory is sized ([`PlannerMemory::Reserved`], as the game sets
/// it when a player box-selects an army before ordering it); orders the units (sorted by name, so every
/// run is the same), updates until no unit waits for a path, then walks for `walk_seconds`
/// of simulated time.
fn measure(app: &mut App, orders: &dyn Fn(&[Entity]) -> Vec<MoveOrder>, walk_seconds: f64) -> Run {
    app.update();
    app.insert_resource(PlannerMemory::Reserved);
    app.update();
    let world = app.world_mut();
    let mut units: Vec<(String, Entity)> = world
        .query_filtered::<(&Name, Entity), (With<Unit>, With<Tile>)>()
        .iter(world)
        .map(|(n, e)| (n.as_str().to_owned(), e))
        .collect();
    units.sort();
    let entities: Vec<Entity> = units.into_iter().map(|u| u.1).collect();
    world.write_message_batch(orders(&entities));
    let started = Instant::now();
    let mut plan_ticks = Vec::new();
    let mut plan_work = 0;
    loop {
        let tick = Instant::now();
        app.update();
        plan_ticks.push(tick.elapsed().as_secs_f64() * 1000.0);
        let work = app.world().resource::<PathWork>();
        plan_work += work.work;
        if work.pending == 0 && work.queued == 0 {
            break;
        }
    }
    let plan_ms = started.elapsed().as_secs_f64() * 1000.0;
    let mut walk_ticks = Vec::new();
    for _ in 0..(walk_seconds * 60.0) as usize {
        let tick = Instant::now();
        app.update();
        walk_ticks.push(tick.elapsed().as_secs_f64() * 1000.0);
    }
    let journal = &app.world().resource::<Journal>().0;
    let arrived = journal
        .iter()
        .filter(|e| matches!(e, Entry::Arrived { .. }))
        .count();
    let refused = journal
        .iter()
        .filter(|e| matches!(e, Entry::Refused { .. }))
        .count();
    Run {
        plan_ms,
        plan_frames: plan_ticks.len(),
        plan_work,
        plan_ticks,
        walk_ticks,
        arrived,
        refused,
    }
}

/// "p50 / p99" of `ticks` in milliseconds (nearest rank).
fn percentiles(ticks: &[f64]) -> String {
    if ticks.is_empty() {
        return "-".to_owned();
    }
    let mut sorted = ticks.to_vec();
    sorted.sort_by(f64::total_cmp);
    let rank =
        |p: f64| sorted[((p * sorted.len() as f64).ceil() as usize).clamp(1, sorted.len()) - 1];
    format!("{:.2} / {:.2}", rank(0.5), rank(0.99))
}
