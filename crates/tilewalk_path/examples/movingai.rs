//! Moving AI conformance and speed: every problem of every `*.map.scen` in a folder, solved
//! by our A* and by the `pathfinding` crate's `astar` in the same process.
//!
//! `cargo run --release -p tilewalk_path --example movingai -- ../shared/benchmarks/movingai`
//!
//! Costs of our three exact searches, A*, A* with jump point pruning (JPS, exact on these
//! uniform-cost maps) and bidirectional A* (Bi), are checked against each scenario's optimal
//! length (8-way, no corner cutting); times are per problem (small problems repeated until
//! 200 µs have passed), then the median per map, and each search's ratio to the peer (`x`:
//! peer time / ours, above 1 is faster). `exp/s` is the cells a search expanded (taken off
//! its frontier and expanded; stale entries skipped are not counted) over its time, summed
//! over the map's problems. `Bi/A* long` compares bidirectional A* with our A* on the long
//! half of the map's problems (by optimal length, the longer half): A*'s median time over
//! Bi's on those, above 1 when Bi is faster. The last line is one JSON object: `ours_*` and
//! `speedup` are JPS (our fastest exact search here), `astar_*` plain A*,
//! `bidirectional_*` bidirectional A*, `bidirectional_vs_astar_long_half` the `Bi/A* long`
//! column; `mismatches` counts all three.

use std::path::{Path as FsPath, PathBuf};
use std::process::ExitCode;
use std::time::{Duration, Instant};

use pathfinding::prelude::astar;
use tilewalk_path::formats::{Scenario, parse_movingai_map, parse_scenarios};
use tilewalk_path::{Algorithm, CellPath, Grid, Pos, SearchContext, SearchOptions};

/// Repeat a problem until this much time has passed, for a stable per-problem time.
const MIN_SAMPLE: Duration = Duration::from_micros(200);

struct MapResult {
    map: String,
    problems: usize,
    /// Each problem's optimal length, in the order of the times.
    lengths: Vec<f64>,
    astar: Ours,
    jps: Ours,
    bidirectional: Ours,
    peer_mismatches: usize,
    peer_us: Vec<f64>,
}

/// One of our searches on one map.
#[derive(Default)]
struct Ours {
    mismatches: usize,
    /// Microseconds per problem.
    us: Vec<f64>,
    /// Cells expanded on the problems it solved right.
    expanded: u64,
    total_s: f64,
}

impl Ours {
    /// Solves `problem` with `options`, timing it and checking the cost against `tolerance`.
    fn run(
        &mut self,
        context: &mut SearchContext,
        path: &mut CellPath,
        grid: &Grid,
        problem: &Scenario,
        options: &SearchOptions,
        tolerance: f64,
    ) {
        let (found, seconds) = time(|| {
            context
                .search_into(grid, problem.start, problem.goal, options, path)
                .map(|s| (s, path.cost))
        });
        match found {
            Ok((stats, cost)) if (cost - problem.optimal).abs() <= tolerance => {
                self.expanded += stats.expanded as u64;
            }
            _ => self.mismatches += 1,
        }
        self.us.push(seconds * 1e6);
        self.total_s += seconds;
    }

    /// Expansions per second over all its problems.
    fn rate(&self) -> f64 {
        self.expanded as f64 / self.total_s
    }
}

/// The median time of `ours` over `theirs` on the longer half of the problems (by `lengths`).
fn long_half_ratio(lengths: &[f64], ours: &[f64], theirs: &[f64]) -> f64 {
    let mut order: Vec<usize> = (0..lengths.len()).collect();
    order.sort_by(|&a, &b| lengths[a].total_cmp(&lengths[b]));
    let long = &order[order.len() / 2..];
    let pick = |times: &[f64]| long.iter().map(|&i| times[i]).collect::<Vec<_>>();
    median(&mut pick(ours)) / median(&mut pick(theirs))
}

fn median(values: &mut [f64]) -> f64 {
    values.sort_by(f64::total_cmp);
    match values.len() {
        0 => 0.0,
        n if n % 2 == 1 => values[n / 2],
        n => (values[n / 2 - 1] + values[n / 2]) / 2.0,
    }
}

/// Mean seconds of one run of `f`, repeating it until [`MIN_SAMPLE`] has passed.
fn time<T>(mut f: impl FnMut() -> T) -> (T, f64) {
    let started = Instant::now();
    let mut runs = 0u32;
    loop {
        let out = std::hint::black_box(f());
        runs += 1;
        let elapsed = started.elapsed();
        if elapsed >= MIN_SAMPLE {
            return (out, elapsed.as_secs_f64() / f64::from(runs));
        }
    }
}

/// The peer: `pathfinding::astar` over cell indices with integer octile costs (10000 straight,
/// 14142 diagonal, no corner cutting) and the octile heuristic in the same units.
fn peer(open: &[bool], width: usize, start: Pos, goal: Pos) -> Option<u64> {
    let height = open.len() / width;
    let index = |p: Pos| p.y as usize * width + p.x as usize;
    let (gx, gy) = (goal.x as i64, goal.y as i64);
    let goal = index(goal);
    astar(
        &index(start),
        |&i| {
            let (x, y) = ((i % width) as i64, (i / width) as i64);
            let free = |x: i64, y: i64| {
                x >= 0
                    && y >= 0
                    && (x as usize) < width
                    && (y as usize) < height
                    && open[y as usize * width + x as usize]
            };
            let mut next = Vec::with_capacity(8);
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
                let (nx, ny) = (x + dx, y + dy);
                if !free(nx, ny) || (dx != 0 && dy != 0 && !(free(nx, y) && free(x, ny))) {
                    continue;
                }
                next.push((
                    ny as usize * width + nx as usize,
                    if dx != 0 && dy != 0 { 14142u64 } else { 10000 },
                ));
            }
            next
        },
        |&i| {
            let (dx, dy) = (
                ((i % width) as i64 - gx).unsigned_abs(),
                ((i / width) as i64 - gy).unsigned_abs(),
            );
            10000 * dx.max(dy) + 4142 * dx.min(dy)
        },
        |&i| i == goal,
    )
    .map(|(_, cost)| cost)
}

/// Decimal places of the scenario file's lengths (the 2011 BG files round to 2).
fn length_decimals(scen: &str) -> usize {
    scen.lines()
        .nth(1)
        .and_then(|l| l.split_whitespace().last())
        .and_then(|f| f.split_once('.'))
        .map_or(0, |(_, d)| d.len())
}

fn run_map(scen_file: &FsPath) -> Result<MapResult, String> {
    let read = |f: &FsPath| std::fs::read_to_string(f).map_err(|e| format!("{}: {e}", f.display()));
    let scen_text = read(scen_file)?;
    let problems =
        parse_scenarios(&scen_text).map_err(|e| format!("{}:{e}", scen_file.display()))?;
    let first = problems
        .first()
        .ok_or_else(|| format!("{}: no problems", scen_file.display()))?;
    let map_name = FsPath::new(&first.map)
        .file_name()
        .ok_or_else(|| format!("{}: no map name", scen_file.display()))?;
    let map_file = scen_file.with_file_name(map_name);
    let map =
        parse_movingai_map(&read(&map_file)?).map_err(|e| format!("{}:{e}", map_file.display()))?;
    let grid: Grid = map.grid();
    let width = map.width() as usize;
    let open: Vec<bool> = grid.cells().map(|p| grid.is_passable(p)).collect();
    let slack = if length_decimals(&scen_text) <= 2 {
        0.005
    } else {
        0.0
    };
    let tolerance = |opt: f64| 1e-3 + 6e-5 * opt + slack;

    let mut context = SearchContext::new();
    let mut path = CellPath::default();
    let astar = SearchOptions::default();
    let jps = SearchOptions {
        algorithm: Algorithm::JumpPoint,
        ..astar
    };
    let bidirectional = SearchOptions {
        algorithm: Algorithm::Bidirectional,
        ..astar
    };
    let mut result = MapResult {
        map: map_name
            .to_string_lossy()
            .trim_end_matches(".map")
            .to_owned(),
        problems: problems.len(),
        lengths: problems.iter().map(|p| p.optimal).collect(),
        astar: Ours::default(),
        jps: Ours::default(),
        bidirectional: Ours::default(),
        peer_mismatches: 0,
        peer_us: Vec::new(),
    };
    for problem in &problems {
        if (problem.width, problem.height) != (map.width(), map.height()) {
            return Err(format!(
                "{}: a problem for a {}x{} map, but {} is {}x{}",
                scen_file.display(),
                problem.width,
                problem.height,
                map_file.display(),
                map.width(),
                map.height()
            ));
        }
        let allowed = tolerance(problem.optimal);
        let (context, path) = (&mut context, &mut path);
        result
            .astar
            .run(context, path, &grid, problem, &astar, allowed);
        result.jps.run(context, path, &grid, problem, &jps, allowed);
        result
            .bidirectional
            .run(context, path, &grid, problem, &bidirectional, allowed);
        let (cost, seconds) = time(|| peer(&open, width, problem.start, problem.goal));
        if cost.is_none_or(|c| (c as f64 / 10000.0 - problem.optimal).abs() > allowed) {
            result.peer_mismatches += 1;
        }
        result.peer_us.push(seconds * 1e6);
    }
    Ok(result)
}

fn main() -> ExitCode {
    let Some(dir) = std::env::args().nth(1).map(PathBuf::from) else {
        eprintln!("usage: movingai DIR   (a folder of Moving AI .map and .map.scen files)");
        return ExitCode::from(2);
    };
    let mut scens: Vec<PathBuf> = match std::fs::read_dir(&dir) {
        Ok(entries) => entries
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.to_string_lossy().ends_with(".map.scen"))
            .collect(),
        Err(e) => {
            eprintln!("error: {}: {e}", dir.display());
            return ExitCode::from(2);
        }
    };
    scens.sort();
    if scens.is_empty() {
        eprintln!("error: {}: no *.map.scen files", dir.display());
        return ExitCode::from(2);
    }
    println!(
        "ours: A* (octile, no corner cutting), A* with jump point pruning (JPS) and bidirectional A* (Bi); peer: pathfinding::astar; x = peer time / ours; Bi/A* long = A* time / Bi time on the longer half of the problems"
    );
    println!(
        "{:<16} {:>8} {:>8} {:>9} {:>9} {:>9} {:>9} {:>7} {:>7} {:>7} {:>11} {:>11} {:>11} {:>10}",
        "map",
        "problems",
        "mismatch",
        "A* µs",
        "JPS µs",
        "Bi µs",
        "peer µs",
        "A* x",
        "JPS x",
        "Bi x",
        "A* exp/s",
        "JPS exp/s",
        "Bi exp/s",
        "Bi/A* long"
    );
    let (mut maps, mut problems, mut mismatches) = (Vec::new(), 0, 0);
    for scen in &scens {
        let mut r = match run_map(scen) {
            Ok(r) => r,
            Err(e) => {
                eprintln!("error: {e}");
                return ExitCode::from(2);
            }
        };
        // Before the medians below sort the times.
        let long_half = long_half_ratio(&r.lengths, &r.astar.us, &r.bidirectional.us);
        let (astar, jps, bi, peer) = (
            median(&mut r.astar.us),
            median(&mut r.jps.us),
            median(&mut r.bidirectional.us),
            median(&mut r.peer_us),
        );
        let (astar_rate, jps_rate, bi_rate) =
            (r.astar.rate(), r.jps.rate(), r.bidirectional.rate());
        let wrong = r.astar.mismatches + r.jps.mismatches + r.bidirectional.mismatches;
        println!(
            "{:<16} {:>8} {:>8} {:>9.1} {:>9.1} {:>9.1} {:>9.1} {:>6.2}x {:>6.2}x {:>6.2}x {:>11.0} {:>11.0} {:>11.0} {:>9.2}x",
            r.map,
            r.problems,
            wrong,
            astar,
            jps,
            bi,
            peer,
            peer / astar,
            peer / jps,
            peer / bi,
            astar_rate,
            jps_rate,
            bi_rate,
            long_half
        );
        problems += r.problems;
        mismatches += wrong;
        if r.peer_mismatches > 0 {
            println!(
                "  (the peer disagreed with the scenario on {} problems)",
                r.peer_mismatches
            );
        }
        maps.push(format!(
            "{{\"map\":\"{}\",\"problems\":{},\"mismatches\":{},\"ours_us_median\":{:.3},\"peer_us_median\":{:.3},\"speedup\":{:.3},\"expansions_per_sec\":{:.0},\"astar_us_median\":{:.3},\"astar_speedup\":{:.3},\"astar_expansions_per_sec\":{:.0},\"bidirectional_us_median\":{:.3},\"bidirectional_speedup\":{:.3},\"bidirectional_expansions_per_sec\":{:.0},\"bidirectional_vs_astar_long_half\":{:.3}}}",
            r.map, r.problems, wrong, jps, peer, peer / jps, jps_rate, astar, peer / astar, astar_rate, bi, peer / bi, bi_rate, long_half
        ));
    }
    println!(
        "{{\"problems\":{problems},\"mismatches\":{mismatches},\"maps\":[{}]}}",
        maps.join(",")
    );
    if mismatches == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}
