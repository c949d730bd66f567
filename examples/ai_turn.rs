//! The tactics AI's think time: one side's turn planned by the `planner` and by the `greedy`
//! baseline, side by side in the same process, on generated fair skirmishes (`gen
//! --skirmish`, 32×32, 20 units a side by default) under the shipped rules. Each seed's game
//! is played planner against planner for `--turns` turns; every turn of it, both minds plan
//! the moving side's turn from the same board, timed; the planner's plan is the one played.
//! It prints the median and the worst turn of each mind, per board and over all, and the
//! planner's time over the greedy AI's.
//!
//! `cargo run --release --example ai_turn [-- --seeds 101..111 --units 20 --size 32 --turns 12]`

use std::time::Instant;

use bevy::prelude::*;
use bevy_tilewalk::Team;
use bevy_tilewalk::tactics::{Mind, with_board};
use tilewalk::map::MapAsset;
use tilewalk::map::generate::skirmish;
use tilewalk::tactics::{Mode, parse_rules};
use tilewalk::terrain::TerrainTable;

struct Options {
    seeds: std::ops::Range<u64>,
    units: u32,
    size: u32,
    turns: u32,
}

fn options() -> Result<Options, String> {
    let mut options = Options {
        seeds: 101..111,
        units: 20,
        size: 32,
        turns: 12,
    };
    let mut args = std::env::args().skip(1);
    while let Some(flag) = args.next() {
        let value = args.next().ok_or_else(|| format!("{flag} needs a value"))?;
        let number = |v: &str| v.parse::<u32>().map_err(|e| format!("{flag} {v}: {e}"));
        match flag.as_str() {
            "--seeds" => {
                let (a, b) = value
                    .split_once("..")
                    .ok_or_else(|| format!("--seeds expects A..B, got {value}"))?;
                let parse = |v: &str| v.parse::<u64>().map_err(|e| format!("--seeds {v}: {e}"));
                options.seeds = parse(a)?..parse(b)?;
            }
            "--units" => options.units = number(&value)?,
            "--size" => options.size = number(&value)?,
            "--turns" => options.turns = number(&value)?,
            _ => return Err(format!("unknown option {flag}")),
        }
    }
    Ok(options)
}

/// Median and worst of some durations, in milliseconds.
fn summary(times: &mut [f64]) -> (f64, f64) {
    times.sort_by(f64::total_cmp);
    let median = times.get(times.len() / 2).copied().unwrap_or(0.0);
    (median, times.last().copied().unwrap_or(0.0))
}

fn main() -> Result<(), String> {
    let options = options()?;
    let table =
        TerrainTable::parse(include_str!("../assets/terrain.ron")).map_err(|e| e.to_string())?;
    let rules = parse_rules(include_str!("../assets/tactics.ron")).map_err(|e| e.to_string())?;
    println!(
        "one side's turn, {0}x{0}, {1} units a side, seeds {2}..{3}, {4} turns a game",
        options.size, options.units, options.seeds.start, options.seeds.end, options.turns
    );
    println!(
        "{:<10} {:>6} {:>13} {:>13} {:>13} {:>13} {:>8}",
        "board", "turns", "planner p50", "planner max", "greedy p50", "greedy max", "p50 x"
    );
    let (mut all_planner, mut all_greedy) = (Vec::new(), Vec::new());
    for board in ["square-8", "square-4", "hex-odd-r"] {
        let shape = board.parse().map_err(|e| format!("{e}"))?;
        let (mut planner, mut greedy) = (Vec::new(), Vec::new());
        for seed in options.seeds.clone() {
            let text = skirmish(seed, shape, options.size, options.size, options.units);
            let map = MapAsset::parse(&text).map_err(|e| e.to_string())?;
            let mut app = tilewalk::headless_app(&map, &table).map_err(|e| e.to_string())?;
            app.insert_resource(rules.clone());
            app.world_mut()
                .resource_mut::<NextState<Mode>>()
                .set(Mode::Tactics);
            app.update();
            with_board(app.world_mut(), |board, context| {
                'game: for _ in 0..options.turns {
                    for team in [Team::BLUE, Team::RED] {
                        if board.winner().is_some() {
                            break 'game;
                        }
                        let before = board.pieces.clone();
                        let started = Instant::now();
                        board.play_side(context, team, Mind::Greedy);
                        greedy.push(started.elapsed().as_secs_f64() * 1e3);
                        board.pieces = before;
                        let started = Instant::now();
                        board.play_side(context, team, Mind::Planner);
                        planner.push(started.elapsed().as_secs_f64() * 1e3);
                    }
                }
            })?;
        }
        all_planner.extend(&planner);
        all_greedy.extend(&greedy);
        let turns = planner.len();
        let (p50, pmax) = summary(&mut planner);
        let (g50, gmax) = summary(&mut greedy);
        println!(
            "{board:<10} {turns:>6} {p50:>10.2} ms {pmax:>10.2} ms {g50:>10.2} ms {gmax:>10.2} ms {:>8.1}",
            p50 / g50.max(1e-9)
        );
    }
    let turns = all_planner.len();
    let (p50, pmax) = summary(&mut all_planner);
    let (g50, gmax) = summary(&mut all_greedy);
    println!(
        "{:<10} {turns:>6} {p50:>10.2} ms {pmax:>10.2} ms {g50:>10.2} ms {gmax:>10.2} ms {:>8.1}",
        "all",
        p50 / g50.max(1e-9)
    );
    Ok(())
}
