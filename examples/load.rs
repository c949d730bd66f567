//! The load-time benchmark: what `tilewalk simulate --map M --seconds 0` does on a generated
//! map (`tilewalk gen --seed 2`, 4096×4096 by default: 16.8 M cells), timed stage by stage
//! in one process: the map file read and parsed, the level and its navigation built (one cost
//! grid per class, the board's regions labelled), the headless app made, and its first
//! simulated frame (the terrain's defence and every per-level resource filled). It prints
//! the total against the bound, 2 s to the first simulated frame for 16.8 M cells, scaled to
//! the map's cells, and the total over the time it takes to read and parse the file alone
//! (what no load can skip), side by side; it exits with status 1 over the bound.
//!
//! `cargo run --release --example load [-- --side N --seed S --runs K]`

use std::time::Instant;

use tilewalk::headless_app;
use tilewalk::level::Level;
use tilewalk::map::MapAsset;
use tilewalk::map::generate::{DEFAULT_UNITS, generate};
use tilewalk::terrain::TerrainTable;

/// The bound: 16.8 M cells to the first simulated frame within 2 s.
const BOUND_SECS_PER_CELL: f64 = 2.0 / (4096.0 * 4096.0);

struct Options {
    side: u32,
    seed: u64,
    runs: usize,
}

fn options() -> Options {
    let mut options = Options {
        side: 4096,
        seed: 2,
        runs: 3,
    };
    let args: Vec<String> = std::env::args().skip(1).collect();
    for pair in args.chunks(2) {
        let value = pair.get(1).map(String::as_str).unwrap_or_default();
        match pair[0].as_str() {
            "--side" => options.side = value.parse().unwrap_or_else(|_| usage()),
            "--seed" => options.seed = value.parse().unwrap_or_else(|_| usage()),
            "--runs" => options.runs = value.parse().unwrap_or_else(|_| usage()),
            _ => usage(),
        }
    }
    if !tilewalk::map::generate::SIZES.contains(&options.side) || options.runs == 0 {
        usage()
    }
    options
}

fn usage() -> ! {
    eprintln!("usage: load [--side 1..=4096] [--seed S] [--runs K (at least 1)]");
    std::process::exit(2)
}

/// Seconds since `start`.
fn since(start: Instant) -> f64 {
    start.elapsed().as_secs_f64()
}

fn main() {
    let options = options();
    let side = options.side;
    let cells = f64::from(side) * f64::from(side);
    let file = std::env::temp_dir().join(format!(
        "tilewalk-load-{}-{side}-{}.map",
        std::process::id(),
        options.seed
    ));
    std::fs::write(
        &file,
        generate(options.seed, side, side, DEFAULT_UNITS).as_bytes(),
    )
    .expect("the generated map is written");
    let table = TerrainTable::parse(include_str!("../assets/terrain.ron"))
        .expect("the shipped terrain table parses");
    let bound = BOUND_SECS_PER_CELL * cells;
    println!(
        "gen --seed {} {side}x{side}: {} cells, bound {bound:.2} s to the first simulated frame",
        options.seed, cells as u64
    );
    let mut worst: f64 = 0.0;
    for run in 1..=options.runs {
        let start = Instant::now();
        let text = std::fs::read_to_string(&file).expect("the map is read");
        let map = MapAsset::parse(&text).expect("a generated map parses");
        drop(text);
        let parsed = since(start);
        let built = Instant::now();
        Level::build(&map, &table).expect("a generated map builds");
        let build = since(built);
        let made = Instant::now();
        let mut app = headless_app(&map, &table).expect("a generated map builds");
        drop(map);
        let app_secs = since(made);
        let framed = Instant::now();
        app.update();
        let frame = since(framed);
        // The level is built twice above (once alone, to time it); the load is one build.
        let total = parsed + app_secs + frame;
        worst = worst.max(total);
        println!(
            "run {run}: load {total:.3} s (bound {bound:.2} s, {:.0}% of it; {:.1}x the read \
             and parse alone): read and parse {parsed:.3} s, level and app {app_secs:.3} s \
             (the level alone {build:.3} s), first frame {frame:.3} s",
            100.0 * total / bound,
            total / parsed
        );
    }
    let _ = std::fs::remove_file(&file);
    println!(
        "worst load {worst:.3} s of {} runs, bound {bound:.2} s: {}",
        options.runs,
        if worst <= bound { "within" } else { "OVER" }
    );
    if worst > bound {
        std::process::exit(1);
    }
}
