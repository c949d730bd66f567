//! Crowd flow: how much later a crowd arrives than its units would alone, over families of
//! scenarios and the seeds of each.
//!
//! Runs the headless game (fixed 1/60 s steps, deterministic) on the scenario families of
//! [`scenarios`] and prints, for each family, one line a seed, worst first: the units, those
//! refused at the order as unable to reach the goal, those that arrived and that gave up,
//! the last arrival (the makespan), the free-path makespan and the makespan over it, the
//! ideal (the narrows' bound where the units pass a gap or a bridge; where two armies cross,
//! the later of the free-path makespan and the crossing bound,
//! [`scenarios::crossing_bound`]; elsewhere the free-path makespan), the makespan over the
//! ideal and the flow issue's target for it. Simulated time, so the same figures on every
//! machine.
//!
//! - `armies`: both armies of `tilewalk gen --seed S` sent through each other, by one
//!   group order a side, and each unit ordered alone to the tile its group order would give
//!   it;
//! - `land`: one group order across 128×128 grass with woods and mud, foot and horse mixed,
//!   and foot alone;
//! - `gap`: 300 foot through a three-tile gap in a wall;
//! - `bridge`: 50 + 50 foot across a one-tile bridge over rock, in opposite directions;
//! - `own goals`: units ordered alone to their own goals on a 4-way board, on a random
//!   32×32 map with a fifth of its tiles blocked and on a 161×63 warehouse.
//!
//! `cargo run --release --example flow [-- --all] [--tuning] [--seed N] [--only TEXT]
//! [--seconds S]`: `--all` adds the armies of 1,500 a side on 112×84 maps, by group and one
//! order a unit, and by group on 128×96 maps (with `--seed 9`, the map and orders that
//! `tools/armies_arrive.py` plays in the window), minutes each; `--tuning` runs the seeds the crowd rules were tuned on
//! instead of the others; `--seed` runs the one seed N (so that the long families can run
//! a seed a process, side by side); `--only` runs the families whose name holds TEXT; S is
//! the simulated time limit of each run (default 1,800).

mod scenarios;

use scenarios::{SEEDS, TUNING_SEEDS, families, run};
use tilewalk::terrain::TerrainTable;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (mut all, mut tuning, mut only, mut seconds) = (false, false, String::new(), 1800.0);
    let mut seed = None;
    let mut args = args.iter();
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--all" => all = true,
            "--tuning" => tuning = true,
            "--seed" => seed = Some(parse_seed(args.next().map_or("", String::as_str))),
            "--only" => only = args.next().cloned().unwrap_or_else(|| usage()),
            "--seconds" => seconds = parse_seconds(args.next().map_or("", String::as_str)),
            _ => usage(),
        }
    }
    let table = TerrainTable::parse(include_str!("../../assets/terrain.ron"))
        .expect("the shipped terrain table parses");
    let seeds: Vec<u64> = match seed {
        Some(seed) => vec![seed],
        None if tuning => TUNING_SEEDS.to_vec(),
        None => SEEDS.to_vec(),
    };
    println!(
        "{:<52} {:>5} {:>6} {:>8} {:>7} {:>5} {:>9} {:>6} {:>6} {:>7} {:>6} {:>6}",
        "family",
        "seed",
        "units",
        "refused",
        "arrived",
        "gave",
        "makespan",
        "free",
        "/free",
        "ideal",
        "ratio",
        "target"
    );
    for family in families(all).iter().filter(|f| f.name.contains(&only)) {
        let mut flows: Vec<_> = seeds
            .iter()
            .map(|&seed| (seed, run(&(family.build)(seed), &table, seconds, |_| {})))
            .collect();
        // Worst first: fewest of the reachable units arrived, then the highest ratio.
        flows.sort_by(|a, b| {
            let missing = |f: &scenarios::Flow| f.units - f.unreachable - f.arrived;
            missing(&b.1)
                .cmp(&missing(&a.1))
                .then(b.1.ratio().total_cmp(&a.1.ratio()))
        });
        for (seed, flow) in flows {
            println!(
                "{:<52} {:>5} {:>6} {:>8} {:>7} {:>5} {:>9.1} {:>6.1} {:>6.2} {:>7.1} {:>6.2} {:>6.1}",
                family.name,
                seed,
                flow.units,
                flow.unreachable,
                flow.arrived,
                flow.gave_up,
                flow.makespan,
                flow.free,
                flow.free_ratio(),
                flow.ideal,
                flow.ratio(),
                family.target,
            );
        }
    }
}

fn usage() -> ! {
    eprintln!("usage: flow [--all] [--tuning] [--seed N] [--only TEXT] [--seconds S]");
    std::process::exit(2)
}

fn parse_seed(value: &str) -> u64 {
    value.parse().unwrap_or_else(|_| {
        eprintln!("--seed takes a whole number");
        std::process::exit(2)
    })
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
