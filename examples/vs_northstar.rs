//! tilewalk and bevy_northstar 0.7 side by side: the same maps, the same queries and the same
//! crowds for both, in one run, printed as ratios (tilewalk / northstar: below 1, tilewalk
//! is faster or smaller).
//!
//! ```text
//! cargo run --release --example vs_northstar            # the benchmark (many minutes)
//! cargo run --example vs_northstar -- --smoke           # a small map, a few seconds
//! ```
//!
//! Options: `--smoke`; `--chunk N` (northstar's chunk side, default 16, its own default);
//! `--queries N` (per map; by default 200 on the Moving AI maps, 60 on 1024×1024, 30 on
//! 2048×2048); `--agents N,N,...` (default 100,1000,5000); `--no-single`, `--no-crowds`,
//! `--no-cch` (skip the hierarchy).
//!
//! **One cost model for both.** northstar's grid has an integer cost per cell
//! (`Nav::Passable(u32)`, walls `Nav::Impassable`) and a step costs the cell entered, the
//! same for a diagonal step as for a straight one; tilewalk's 8-way board charges √2 on a
//! diagonal. Only the 4-way board is the same problem for both: tilewalk's
//! `Board::Square(Diagonal::Never)` and northstar's `CardinalNeighborhood` (whose Manhattan
//! heuristic keeps its A* exact). Every map runs 4-way, and tilewalk's costs are converted
//! exactly: each cost times the smallest whole factor that makes all of a map's costs whole
//! (1 for the shipped table's foot costs 1, 2, 3 and 6 and for Moving AI maps), impassable
//! tiles `Nav::Impassable`; costs are divided back before they are compared.
//!
//! - **Single queries**: Moving AI maps from `../shared/benchmarks/movingai` (problems of
//!   their `.scen` files, spread over its buckets) and maps from `tilewalk gen` (1024×1024 and
//!   2048×2048, seed 1, the shipped table's foot costs; random pairs in one region). Each query
//!   is solved by tilewalk's A* (the optimum), tilewalk's ALT (8 landmarks), northstar's A*,
//!   its HPA* with refinement (its default mode) and its coarse HPA*, and, on maps of at
//!   most [`CCH_CELLS`] cells, tilewalk's customizable contraction hierarchy (`Cch`, exact;
//!   above that its customization takes minutes and gigabytes, docs/design/long-orders.md).
//!   Every path is checked (adjacent steps on open cells from start to goal) and costed on
//!   tilewalk's grid. Times
//!   are of the query alone; preprocessing is building the structure from the costs
//!   (tilewalk: the grid, plus the landmark tables for ALT, or the hierarchy's order and
//!   contraction and its customization for the map's costs; northstar: `Grid::new`, every
//!   `set_nav` and `build`) and memory the bytes it holds (the allocator's count).
//! - **Crowds**: N units of the foot class in the first open columns of a generated 256×256
//!   map, each ordered to its own tile in the last open columns (the i-th start to the i-th
//!   goal, the same pairs for both), speed 3 cost-1 tiles a second, in a headless app
//!   (`MinimalPlugins`, 1/60 s steps set by hand). tilewalk: its plugin, one `MoveOrder` a
//!   unit. northstar: its plugin with collision avoidance (`enable_collision`, `Blocking`
//!   agents), a system that walks each agent into its `NextPos` in cost/speed seconds, and
//!   the retry its demo does when a path fails; `max_collision_avoidance_agents_per_frame`
//!   is the crowd's size (at its default of 128 most agents could not take a step each
//!   frame), `max_pathfinding_agents_per_frame` its default 128.
//! - **A map change under moving agents**: 5 s after the crowd's orders, a wall (the middle
//!   half of the map's middle column, the cells no agent stands on) becomes impassable.
//!   tilewalk: `Navigation::replace` and its `NavigationChanged`; northstar: `set_nav`,
//!   `build` and its documented reroute (remove `Path` and `NextPos`, insert `Pathfind`) for
//!   each agent whose path crosses the wall. Measured: the frames and the time until every
//!   agent whose path crossed the wall has a path that does not.

use std::collections::HashSet;
use std::process::ExitCode;
use std::time::{Duration, Instant};

use bevy::prelude::*;
use bevy::time::TimeUpdateStrategy;
use bevy_northstar::prelude as ns;
use bevy_tilewalk::{
    Arrived, ClassSpec, LANDMARK_CELLS, MoveOrder, Navigation, NavigationChanged, OrderRefused,
    Pending, Tile, TilewalkPlugin, Unit,
};
use tilewalk_path::{
    Board, Cch, CchQuery, Diagonal, Grid, Landmarks, Pos, SearchContext, SearchOptions,
};

/// The board both searches run on (see the module's docs).
const BOARD: Board = Board::Square(Diagonal::Never);

/// One simulated step.
const STEP: f64 = 1.0 / 60.0;

/// The crowds' speed, in cost-1 tiles a second (the shipped table's).
const SPEED: f64 = 3.0;

/// Landmarks for tilewalk's ALT (the plugin's count).
const LANDMARKS: usize = bevy_tilewalk::LANDMARKS;

/// The largest map, in cells, on which tilewalk's hierarchy (`Cch`) is measured: 1024×1024,
/// whose customization takes about a minute on 2 cores (2048×2048: minutes and gigabytes).
const CCH_CELLS: usize = 1024 * 1024;

fn main() -> ExitCode {
    match run(std::env::args().skip(1)) {
        Ok(report) => {
            let problems = report.problems();
            for p in &problems {
                eprintln!("problem: {p}");
            }
            if problems.is_empty() {
                ExitCode::SUCCESS
            } else {
                ExitCode::FAILURE
            }
        }
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::from(2)
        }
    }
}

/// What a run measured, for the smoke test's checks.
#[derive(Default)]
pub struct Report {
    pub single: Vec<MapResult>,
    pub crowds: Vec<[CrowdResult; 2]>,
    pub changes: Vec<[ChangeResult; 2]>,
}

impl Report {
    /// What must hold and does not: tilewalk's A*, ALT and hierarchy exact and every path a walk from
    /// start to goal, northstar's A* (exact on the 4-way board) at the same costs (else the
    /// costs were not converted faithfully), every tilewalk unit whose path crossed the
    /// wall re-planned, some unit of every crowd arrived.
    pub fn problems(&self) -> Vec<String> {
        let mut out = Vec::new();
        for map in &self.single {
            for m in &map.methods {
                if m.invalid > 0 {
                    out.push(format!(
                        "{}: {}: {} invalid paths",
                        map.name, m.name, m.invalid
                    ));
                }
            }
            let exact = [0, 1, 2].into_iter().chain(map.hierarchy);
            for m in exact.map(|i| &map.methods[i]) {
                let worst = m.excess.iter().copied().fold(0.0, f64::max);
                if m.failed > 0 || worst > 1e-9 {
                    out.push(format!(
                        "{}: {}: {} failed, {:.4}% above the optimum",
                        map.name,
                        m.name,
                        m.failed,
                        100.0 * worst
                    ));
                }
            }
        }
        for crowd in self.crowds.iter().flatten() {
            if crowd.arrived == 0 {
                out.push(format!("{}: no unit of the crowd arrived", crowd.plugin));
            }
        }
        for [tilewalk, _] in &self.changes {
            if tilewalk.replanned < tilewalk.affected {
                out.push(format!(
                    "tilewalk: {} of {} units not re-planned around the wall",
                    tilewalk.affected - tilewalk.replanned,
                    tilewalk.affected
                ));
            }
        }
        out
    }
}

/// The options of a run.
struct Options {
    smoke: bool,
    chunk: u32,
    queries: Option<usize>,
    agents: Vec<usize>,
    single: bool,
    crowds: bool,
    cch: bool,
}

fn options(mut args: impl Iterator<Item = String>) -> Result<Options, String> {
    let mut o = Options {
        smoke: false,
        chunk: 16,
        queries: None,
        agents: vec![100, 1000, 5000],
        single: true,
        crowds: true,
        cch: true,
    };
    while let Some(arg) = args.next() {
        let mut value = |name: &str| args.next().ok_or_else(|| format!("{name} needs a value"));
        match arg.as_str() {
            "--smoke" => o.smoke = true,
            "--no-single" => o.single = false,
            "--no-crowds" => o.crowds = false,
            "--no-cch" => o.cch = false,
            "--chunk" => {
                o.chunk = value("--chunk")?
                    .parse::<u32>()
                    .ok()
                    .filter(|&c| c >= 3)
                    .ok_or("--chunk needs a whole number of at least 3")?;
            }
            "--queries" => {
                o.queries = Some(
                    value("--queries")?
                        .parse::<usize>()
                        .ok()
                        .filter(|&n| n > 0)
                        .ok_or("--queries needs a positive whole number")?,
                );
            }
            "--agents" => {
                o.agents = value("--agents")?
                    .split(',')
                    .map(|n| n.trim().parse::<usize>().ok().filter(|&n| n > 0))
                    .collect::<Option<Vec<usize>>>()
                    .ok_or("--agents needs positive whole numbers separated by commas")?;
            }
            _ => return Err(format!("unknown argument `{arg}`")),
        }
    }
    if o.smoke {
        o.agents = vec![12];
    }
    Ok(o)
}

/// Runs the comparison the arguments ask for and prints it.
pub fn run(args: impl Iterator<Item = String>) -> Result<Report, String> {
    let o = options(args)?;
    let mut report = Report::default();
    if o.single {
        println!(
            "single queries, 4-way; northstar chunks {}x{} (times in ms; tw/ns = tilewalk / northstar)",
            o.chunk, o.chunk
        );
        let movingai: &[&str] = if o.smoke {
            &["arena"]
        } else {
            &["den312d", "lak303d", "brc202d", "random512-10-0"]
        };
        for name in movingai {
            let count = o.queries.unwrap_or(if o.smoke { 20 } else { 200 });
            let (grid, problems) = movingai_map(name, count)?;
            report
                .single
                .push(compare_queries(name, &grid, &problems, o.chunk, o.cch));
        }
        let generated: &[(u32, usize)] = if o.smoke {
            &[(48, 10)]
        } else {
            &[(1024, 60), (2048, 30)]
        };
        for &(side, count) in generated {
            let grid = generated_map(1, side)?;
            let problems = random_pairs(&grid, o.queries.unwrap_or(count), 1);
            let name = format!("gen {side}x{side}");
            report
                .single
                .push(compare_queries(&name, &grid, &problems, o.chunk, o.cch));
        }
    }
    if o.crowds {
        let side = if o.smoke { 40 } else { 256 };
        let grid = generated_map(1, side)?;
        let cap = if o.smoke { 60.0 } else { 200.0 };
        println!(
            "\ncrowds on gen {side}x{side} (4-way, foot): each unit to its own tile across the map; at most {cap} simulated s"
        );
        println!(
            "  {:>6} {:<10} {:>9} {:>13} {:>9} {:>9} {:>9}",
            "units", "plugin", "arrived", "last (sim s)", "frames", "mean ms", "p99 ms"
        );
        for &n in &o.agents {
            let (starts, goals) = crowd(&grid, n);
            let tw = tilewalk_crowd(&grid, &starts, &goals, cap, None);
            let ns = northstar_crowd(&grid, &starts, &goals, cap, None, o.chunk);
            for r in [&tw, &ns] {
                println!(
                    "  {:>6} {:<10} {:>9} {:>13.1} {:>9} {:>9.3} {:>9.3}",
                    starts.len(),
                    r.plugin,
                    r.arrived,
                    r.last_arrival,
                    r.frames,
                    r.frame_mean_ms,
                    r.frame_p99_ms
                );
            }
            println!(
                "  {:>6} {:<10} {:>9} {:>13.2} {:>9} {:>9.2} {:>9.2}",
                "",
                "tw/ns",
                "",
                tw.last_arrival / ns.last_arrival,
                "",
                tw.frame_mean_ms / ns.frame_mean_ms,
                tw.frame_p99_ms / ns.frame_p99_ms
            );
            report.crowds.push([tw, ns]);
        }
        let n = if o.smoke { 12 } else { 1000 };
        let (starts, goals) = crowd(&grid, n);
        println!(
            "\na wall across the middle 5 s after {} units' orders: until every agent whose path crossed it has one that does not",
            starts.len()
        );
        let wall_after = 5.0;
        let mut change = [ChangeResult::default(), ChangeResult::default()];
        tilewalk_crowd(
            &grid,
            &starts,
            &goals,
            wall_after + 20.0,
            Some((wall_after, &mut change[0])),
        );
        northstar_crowd(
            &grid,
            &starts,
            &goals,
            wall_after + 20.0,
            Some((wall_after, &mut change[1])),
            o.chunk,
        );
        println!(
            "  {:<10} {:>9} {:>11} {:>9} {:>9}",
            "plugin", "affected", "re-planned", "frames", "ms"
        );
        for (plugin, c) in ["tilewalk", "northstar"].iter().zip(&change) {
            println!(
                "  {:<10} {:>9} {:>11} {:>9} {:>9.2}",
                plugin, c.affected, c.replanned, c.frames, c.ms
            );
        }
        println!(
            "  {:<10} {:>9} {:>11} {:>9} {:>9.2}",
            "tw/ns",
            "",
            "",
            "",
            change[0].ms / change[1].ms
        );
        report.changes.push(change);
    }
    Ok(report)
}

// ---------------------------------------------------------------------------------------
// Maps and problems

/// `../shared/benchmarks/movingai/NAME.map` and up to `count` of its `.scen` problems, taken
/// evenly through the file (its buckets run from short to long).
fn movingai_map(name: &str, count: usize) -> Result<(Grid, Vec<(Pos, Pos)>), String> {
    let path = format!("../shared/benchmarks/movingai/{name}.map");
    let read = |p: &str| std::fs::read_to_string(p).map_err(|e| format!("{p}: {e}"));
    let map = tilewalk_path::formats::parse_movingai_map(&read(&path)?)
        .map_err(|e| format!("{path}:{e}"))?;
    let grid = map.grid();
    let scen = format!("{path}.scen");
    let all = tilewalk_path::formats::parse_scenarios(&read(&scen)?)
        .map_err(|e| format!("{scen}:{e}"))?;
    grid.label_regions(BOARD);
    let usable: Vec<(Pos, Pos)> = all
        .iter()
        .map(|s| (s.start, s.goal))
        .filter(|&(a, b)| a != b && grid.connected(a, b, BOARD))
        .collect();
    let every = usable.len().div_ceil(count).max(1);
    Ok((
        grid,
        usable.into_iter().step_by(every).take(count).collect(),
    ))
}

/// A map of `tilewalk gen` with the shipped table's foot costs.
fn generated_map(seed: u64, side: u32) -> Result<Grid, String> {
    let table = tilewalk::terrain::TerrainTable::parse(include_str!("../assets/terrain.ron"))
        .map_err(|e| format!("assets/terrain.ron: {e}"))?;
    let foot = table
        .class("foot")
        .ok_or("the shipped table has no foot class")?;
    let text = tilewalk::map::generate::generate(seed, side, side, 0);
    let rows: Vec<Vec<char>> = text
        .lines()
        .skip_while(|l| l.trim() != "[terrain]")
        .skip(1)
        .take_while(|l| !l.trim().starts_with('['))
        .filter(|l| !l.trim().is_empty())
        .map(|l| l.trim_end().chars().collect())
        .collect();
    let grid = Grid::from_fn(side, side, |p| {
        let glyph = *rows.get(p.y as usize)?.get(p.x as usize)?;
        table.terrains[table.by_glyph(glyph)?].cost(foot)
    })
    .map_err(|e| e.to_string())?;
    grid.label_regions(BOARD);
    Ok(grid)
}

/// A small deterministic random number generator (xorshift64*).
struct Rng(u64);

impl Rng {
    fn below(&mut self, n: u32) -> u32 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        (self.0.wrapping_mul(0x2545_f491_4f6c_dd1d) % u64::from(n)) as u32
    }
}

/// `count` random pairs of distinct cells in one region.
fn random_pairs(grid: &Grid, count: usize, seed: u64) -> Vec<(Pos, Pos)> {
    let mut rng = Rng(seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1);
    let (w, h) = (grid.width(), grid.height());
    let mut out = Vec::with_capacity(count);
    while out.len() < count {
        let a = Pos::new(rng.below(w), rng.below(h));
        let b = Pos::new(rng.below(w), rng.below(h));
        if a != b && grid.connected(a, b, BOARD) {
            out.push((a, b));
        }
    }
    out
}

/// The smallest whole factor (up to 1000) that makes every cost of `grid` whole.
fn cost_scale(grid: &Grid) -> Result<f64, String> {
    let mut costs: Vec<f64> = grid.cells().filter_map(|p| grid.cost(p)).collect();
    costs.sort_by(f64::total_cmp);
    costs.dedup();
    (1..=1000)
        .map(f64::from)
        .find(|k| {
            costs
                .iter()
                .all(|c| ((c * k) - (c * k).round()).abs() < 1e-9)
        })
        .ok_or_else(|| "costs with no whole multiple below 1000".to_owned())
}

/// northstar's grid of the same cells and costs (times `scale`).
fn northstar_grid(grid: &Grid, scale: f64, chunk: u32, collision: bool) -> ns::CardinalGrid {
    let mut settings =
        ns::GridSettingsBuilder::new_2d(grid.width(), grid.height()).chunk_size(chunk);
    if collision {
        settings = settings.enable_collision();
    }
    let mut out = ns::CardinalGrid::new(&settings.build());
    for p in grid.cells() {
        let nav = match grid.cost(p) {
            Some(c) => ns::Nav::Passable((c * scale).round() as u32),
            None => ns::Nav::Impassable,
        };
        out.set_nav(UVec3::new(p.x, p.y, 0), nav);
    }
    out.build();
    out
}

fn cell(p: Pos) -> UVec3 {
    UVec3::new(p.x, p.y, 0)
}

fn pos(c: UVec3) -> Pos {
    Pos::new(c.x, c.y)
}

// ---------------------------------------------------------------------------------------
// Single queries

/// One method's results over a map's queries.
pub struct Method {
    pub name: String,
    ms: Vec<f64>,
    /// Cost over the optimum, per query found.
    pub excess: Vec<f64>,
    /// Queries with no path.
    pub failed: usize,
    /// Paths that are not a walk from start to goal over open, adjacent cells.
    pub invalid: usize,
    build_s: f64,
    bytes: Option<usize>,
}

impl Method {
    fn new(name: impl Into<String>, build_s: f64, bytes: Option<usize>) -> Self {
        Self {
            name: name.into(),
            ms: Vec::new(),
            excess: Vec::new(),
            failed: 0,
            invalid: 0,
            build_s,
            bytes,
        }
    }

    /// Records one query: its time and its cells (`None`: no path).
    fn push(
        &mut self,
        grid: &Grid,
        ms: f64,
        a: Pos,
        b: Pos,
        cells: Option<Vec<Pos>>,
        optimum: f64,
    ) {
        self.ms.push(ms);
        match cells.map(|c| walk_cost(grid, a, b, &c)) {
            None => self.failed += 1,
            Some(None) => self.invalid += 1,
            Some(Some(cost)) => self.excess.push(cost / optimum - 1.0),
        }
    }

    fn sort(&mut self) {
        self.ms.sort_by(f64::total_cmp);
        self.excess.sort_by(f64::total_cmp);
    }

    fn p(&self, q: f64) -> f64 {
        percentile(&self.ms, q)
    }
}

/// The cost on `grid` (4-way) of walking `cells` from `a` to `b` (the start may be left out),
/// or `None` if it is no such walk.
fn walk_cost(grid: &Grid, a: Pos, b: Pos, cells: &[Pos]) -> Option<f64> {
    let cells = cells.strip_prefix(&[a]).unwrap_or(cells);
    if cells.last() != Some(&b) {
        return None;
    }
    let mut at = a;
    let mut cost = 0.0;
    for &next in cells {
        if at.x.abs_diff(next.x) + at.y.abs_diff(next.y) != 1 {
            return None;
        }
        cost += grid.cost(next)?;
        at = next;
    }
    Some(cost)
}

/// Nearest-rank percentile of sorted values.
fn percentile(sorted: &[f64], p: f64) -> f64 {
    if sorted.is_empty() {
        return f64::NAN;
    }
    let rank = (p * sorted.len() as f64).ceil() as usize;
    sorted[rank.clamp(1, sorted.len()) - 1]
}

/// A map's single-query results: tilewalk A*, tilewalk ALT, northstar A*, HPA* refined and
/// coarse, then tilewalk's hierarchy where it was measured.
pub struct MapResult {
    pub name: String,
    pub methods: Vec<Method>,
    /// The index of tilewalk's hierarchy in `methods`, if it was measured on this map.
    pub hierarchy: Option<usize>,
}

/// Measures how long `f` takes and how many bytes what it returns holds (the live bytes it
/// left allocated).
fn built<T>(f: impl FnOnce() -> T) -> (T, f64, Option<usize>) {
    let before = live_bytes();
    let started = Instant::now();
    let value = f();
    let seconds = started.elapsed().as_secs_f64();
    let bytes = live_bytes().zip(before).map(|(a, b)| a.saturating_sub(b));
    (value, seconds, bytes)
}

fn compare_queries(
    name: &str,
    grid: &Grid,
    problems: &[(Pos, Pos)],
    chunk: u32,
    cch: bool,
) -> MapResult {
    let scale = cost_scale(grid).expect("the shipped costs and Moving AI maps are whole");
    let (tw_grid, tw_build, tw_bytes) = built(|| {
        let g = Grid::from_fn(grid.width(), grid.height(), |p| grid.cost(p)).expect("a copy");
        g.label_regions(BOARD);
        g
    });
    let (landmarks, alt_build, alt_bytes) = built(|| Landmarks::build(&tw_grid, BOARD, LANDMARKS));
    let (ns_grid, ns_build, ns_bytes) = built(|| northstar_grid(grid, scale, chunk, false));
    let mut methods = vec![
        Method::new("tilewalk A*", tw_build, tw_bytes),
        Method::new(
            format!("tilewalk ALT ({LANDMARKS})"),
            tw_build + alt_build,
            tw_bytes.zip(alt_bytes).map(|(a, b)| a + b),
        ),
        Method::new("northstar A*", ns_build, ns_bytes),
        Method::new("northstar HPA* refined", ns_build, ns_bytes),
        Method::new("northstar HPA* coarse", ns_build, ns_bytes),
    ];
    let cells = f64::from(grid.width()) * f64::from(grid.height());
    // The structure, then its customization for the map's costs, both counted as building.
    let mut hierarchy = (cch && cells as usize <= CCH_CELLS).then(|| {
        let (cch, order_s, order_bytes) =
            built(|| Cch::new(grid.width(), grid.height(), BOARD).expect("the contraction fits"));
        let (metric, customize_s, metric_bytes) =
            built(|| cch.customize(&tw_grid).expect("the same size"));
        methods.push(Method::new(
            "tilewalk CCH",
            tw_build + order_s + customize_s,
            [tw_bytes, order_bytes, metric_bytes]
                .into_iter()
                .sum::<Option<usize>>(),
        ));
        (cch, metric, CchQuery::new())
    });
    let mut context = SearchContext::new();
    let options = SearchOptions::on(BOARD);
    let to_cells = |p: Option<ns::Path>| p.map(|p| p.path().iter().map(|&c| pos(c)).collect());
    for &(a, b) in problems {
        let started = Instant::now();
        let found = context.search(&tw_grid, a, b, &options).ok();
        let ms = started.elapsed().as_secs_f64() * 1e3;
        let Some(found) = found else {
            methods[0].failed += 1;
            continue;
        };
        let optimum = found.path.cost;
        methods[0].push(grid, ms, a, b, Some(found.path.cells), optimum);

        let started = Instant::now();
        let found = context.search_landmarks(&tw_grid, &landmarks, a, b).ok();
        let ms = started.elapsed().as_secs_f64() * 1e3;
        methods[1].push(grid, ms, a, b, found.map(|f| f.path.cells), optimum);

        for i in 0..3 {
            let args = ns::PathfindArgs::new(cell(a), cell(b));
            let mut args = match i {
                0 => args.astar(),
                1 => args.refined(),
                _ => args.coarse(),
            };
            let started = Instant::now();
            let path = ns_grid.pathfind(&mut args);
            let ms = started.elapsed().as_secs_f64() * 1e3;
            methods[2 + i].push(grid, ms, a, b, to_cells(path), optimum);
        }

        if let Some((cch, metric, query)) = &mut hierarchy {
            let started = Instant::now();
            let path = query.path(cch, metric, &tw_grid, a, b).ok();
            let ms = started.elapsed().as_secs_f64() * 1e3;
            methods[5].push(grid, ms, a, b, path.map(|p| p.cells), optimum);
        }
    }
    for m in &mut methods {
        m.sort();
    }
    let plugin = usize::from(cells as usize >= LANDMARK_CELLS);
    println!(
        "{name}: {}x{}, {} queries; cost factor {scale}; the plugin's search here: {}",
        grid.width(),
        grid.height(),
        problems.len(),
        methods[plugin].name
    );
    println!(
        "  {:<24} {:>9} {:>9} {:>10} {:>10} {:>7} {:>8} {:>9} {:>7}",
        "method", "p50 ms", "p99 ms", "cost p50", "cost max", "failed", "invalid", "build s", "MB"
    );
    for m in &methods {
        println!(
            "  {:<24} {:>9.3} {:>9.3} {:>9.2}% {:>9.2}% {:>7} {:>8} {:>9.3} {:>7}",
            m.name,
            m.p(0.5),
            m.p(0.99),
            100.0 * percentile(&m.excess, 0.5),
            100.0 * m.excess.last().copied().unwrap_or(f64::NAN),
            m.failed,
            m.invalid,
            m.build_s,
            m.bytes
                .map_or("-".to_owned(), |b| format!("{:.1}", b as f64 / 1e6))
        );
    }
    let hierarchy = hierarchy.is_some().then_some(5);
    let pairs = [(plugin, 2), (plugin, 3)]
        .into_iter()
        .chain(hierarchy.map(|h| (h, 3)));
    for (tw, peer) in pairs.map(|(t, p)| (&methods[t], &methods[p])) {
        println!(
            "  tw/ns {:<10} / {:<18} p50 {:>7.2}  p99 {:>7.2}  build {:>7.2}  memory {}",
            tw.name.trim_start_matches("tilewalk "),
            peer.name.trim_start_matches("northstar "),
            tw.p(0.5) / peer.p(0.5),
            tw.p(0.99) / peer.p(0.99),
            tw.build_s / peer.build_s,
            tw.bytes
                .zip(peer.bytes)
                .map_or("-".to_owned(), |(a, b)| format!(
                    "{:.2}",
                    a as f64 / b as f64
                ))
        );
    }
    MapResult {
        name: name.to_owned(),
        methods,
        hierarchy,
    }
}

// ---------------------------------------------------------------------------------------
// Crowds

/// `n` starts in the first open columns of the map's largest region (column by column) and
/// `n` goals in its last ones (fewer if the region is smaller).
fn crowd(grid: &Grid, n: usize) -> (Vec<Pos>, Vec<Pos>) {
    let mut sizes = std::collections::HashMap::new();
    for p in grid.cells() {
        if let Some(r) = grid.region(p, BOARD) {
            *sizes.entry(r).or_insert(0usize) += 1;
        }
    }
    let largest = sizes.into_iter().max_by_key(|&(r, n)| (n, r)).map(|e| e.0);
    let open = |x: u32| {
        (0..grid.height())
            .map(move |y| Pos::new(x, y))
            .filter(move |&p| grid.region(p, BOARD) == largest)
    };
    let half = grid.width() / 2;
    let starts: Vec<Pos> = (0..half).flat_map(&open).take(n).collect();
    let goals: Vec<Pos> = (half..grid.width()).rev().flat_map(&open).take(n).collect();
    let n = starts.len().min(goals.len());
    (starts[..n].to_vec(), goals[..n].to_vec())
}

/// A crowd's walk.
pub struct CrowdResult {
    pub plugin: &'static str,
    pub arrived: usize,
    /// Simulated seconds of the last arrival.
    pub last_arrival: f64,
    pub frames: usize,
    frame_mean_ms: f64,
    frame_p99_ms: f64,
}

/// The map change's outcome.
#[derive(Default)]
pub struct ChangeResult {
    /// Agents whose path crossed the wall.
    pub affected: usize,
    /// Of them, those that got a path that does not.
    pub replanned: usize,
    frames: usize,
    ms: f64,
}

impl ChangeResult {
    /// The wall's result once `replanned` of the `affected` agents are clear of it, `frames`
    /// frames and the time since `started` after it went up.
    fn after(affected: usize, replanned: usize, frames: usize, started: Instant) -> Self {
        Self {
            affected,
            replanned,
            frames,
            ms: started.elapsed().as_secs_f64() * 1e3,
        }
    }
}

fn crowd_result(plugin: &'static str, arrivals: &[f64], mut frame_ms: Vec<f64>) -> CrowdResult {
    let frames = frame_ms.len();
    let frame_mean_ms = frame_ms.iter().sum::<f64>() / frames.max(1) as f64;
    frame_ms.sort_by(f64::total_cmp);
    CrowdResult {
        plugin,
        arrived: arrivals.len(),
        last_arrival: arrivals.iter().copied().fold(0.0, f64::max),
        frames,
        frame_mean_ms,
        frame_p99_ms: percentile(&frame_ms, 0.99),
    }
}

/// The wall of the map change: the middle half of the middle column, less `occupied` cells
/// and cells already closed.
fn wall(grid: &Grid, occupied: &HashSet<Pos>) -> Vec<Pos> {
    let x = grid.width() / 2;
    (grid.height() / 4..grid.height() * 3 / 4)
        .map(|y| Pos::new(x, y))
        .filter(|p| grid.is_passable(*p) && !occupied.contains(p))
        .collect()
}

fn headless(app: &mut App) {
    app.add_plugins(MinimalPlugins)
        .insert_resource(TimeUpdateStrategy::ManualDuration(Duration::from_secs_f64(
            STEP,
        )));
}

/// Whether the rest of `path` (the tiles still to enter) enters one of `cells`.
fn crosses(path: &bevy_tilewalk::Path, cells: &[Pos]) -> bool {
    path.cells[path.next().min(path.cells.len())..]
        .iter()
        .any(|c| cells.contains(c))
}

/// tilewalk's plugin walks the crowd for at most `cap` simulated seconds; with `change`, the
/// wall goes up at that time and the run ends once every affected unit has re-planned.
fn tilewalk_crowd(
    grid: &Grid,
    starts: &[Pos],
    goals: &[Pos],
    cap: f64,
    mut change: Option<(f64, &mut ChangeResult)>,
) -> CrowdResult {
    let mut app = App::new();
    headless(&mut app);
    app.add_plugins(TilewalkPlugin::default());
    let navigation = |closed: &HashSet<Pos>| {
        Navigation::from_fn(
            BOARD,
            grid.width(),
            grid.height(),
            vec![ClassSpec::new("foot", SPEED)],
            |_, p| grid.cost(p).filter(|_| !closed.contains(&p)),
        )
        .expect("a generated map's costs are in the core's bounds")
    };
    let nav = navigation(&HashSet::new());
    let class = nav.class("foot").expect("declared above");
    app.insert_resource(nav);
    let units: Vec<Entity> = starts
        .iter()
        .map(|&p| app.world_mut().spawn((Unit, class, Tile(p))).id())
        .collect();
    for (&unit, &goal) in units.iter().zip(goals) {
        app.world_mut().write_message(MoveOrder::new([unit], goal));
    }
    let goal_of: std::collections::HashMap<Entity, Pos> =
        units.iter().copied().zip(goals.iter().copied()).collect();
    let (mut arrivals, mut refused, mut frame_ms) = (Vec::new(), 0, Vec::new());
    // The wall, once up, and the units it affected.
    let mut walled: Option<(Vec<Pos>, Vec<Entity>, Instant, usize)> = None;
    let frames = (cap / STEP).round() as usize;
    for frame in 0..frames {
        if let Some((at, _)) = &change
            && walled.is_none()
            && frame as f64 * STEP >= *at
        {
            let occupied: HashSet<Pos> = app
                .world_mut()
                .query::<&Tile>()
                .iter(app.world())
                .map(|t| t.0)
                .collect();
            let cells = wall(grid, &occupied);
            let affected: Vec<Entity> = app
                .world_mut()
                .query::<(Entity, &bevy_tilewalk::Path)>()
                .iter(app.world())
                .filter(|(_, path)| crosses(path, &cells))
                .map(|(e, _)| e)
                .collect();
            let started = Instant::now();
            let closed: HashSet<Pos> = cells.iter().copied().collect();
            let new = navigation(&closed);
            let changed = app.world_mut().resource_mut::<Navigation>().replace(new);
            app.world_mut().write_message::<NavigationChanged>(changed);
            walled = Some((cells, affected, started, frame));
        }
        let started = Instant::now();
        app.update();
        frame_ms.push(started.elapsed().as_secs_f64() * 1e3);
        let world = app.world_mut();
        for a in world.resource_mut::<Messages<Arrived>>().drain() {
            if goal_of.get(&a.unit) == Some(&a.tile) {
                arrivals.push(a.seconds);
            }
        }
        refused += world
            .resource_mut::<Messages<OrderRefused>>()
            .drain()
            .count();
        if let (Some((cells, affected, started, at)), Some((_, result))) = (&walled, &mut change) {
            let replanned = affected
                .iter()
                .filter(|&&e| {
                    // Served (no longer pending), on a path clear of the wall or at rest.
                    let entity = world.entity(e);
                    entity.get::<Pending>().is_none()
                        && entity
                            .get::<bevy_tilewalk::Path>()
                            .is_none_or(|p| !crosses(p, cells))
                })
                .count();
            **result = ChangeResult::after(affected.len(), replanned, frame + 1 - at, *started);
            if replanned == affected.len() {
                break;
            }
        }
        if change.is_none() && arrivals.len() + refused >= units.len() {
            break;
        }
    }
    crowd_result("tilewalk", &arrivals, frame_ms)
}

/// A northstar agent: its goal, the seconds left of its step into `NextPos`, its arrival.
#[derive(Component)]
struct Agent {
    goal: UVec3,
    walking: Option<f64>,
    arrived: Option<f64>,
}

/// The factor northstar's costs were multiplied by.
#[derive(Resource)]
struct Scale(f64);

/// Walks each agent into its `NextPos` in the entered cell's cost over the speed, as
/// tilewalk walks its units; a step into a cell closed meanwhile asks for a new path, as
/// northstar's demo does.
fn walk_agents(
    mut commands: Commands,
    time: Res<Time>,
    scale: Res<Scale>,
    grid: Single<&ns::CardinalGrid>,
    mut agents: Query<(Entity, &mut ns::AgentPos, &mut Agent, Option<&ns::NextPos>)>,
) {
    let dt = time.delta_secs_f64();
    for (entity, mut at, mut agent, next) in &mut agents {
        if let Some(left) = agent.walking {
            let left = left - dt;
            if left <= 1e-9 {
                agent.walking = None;
                commands.entity(entity).remove::<ns::NextPos>();
            } else {
                agent.walking = Some(left);
            }
            continue;
        }
        match next {
            Some(next) => match grid.nav(next.0) {
                Some(ns::Nav::Passable(cost)) => {
                    at.0 = next.0;
                    agent.walking = Some(f64::from(cost) / scale.0 / SPEED);
                }
                _ => {
                    commands
                        .entity(entity)
                        .insert(ns::Pathfind::new(agent.goal))
                        .remove::<ns::NextPos>();
                }
            },
            None if at.0 == agent.goal && agent.arrived.is_none() => {
                agent.arrived = Some(time.elapsed_secs_f64());
            }
            None => {}
        }
    }
}

/// A failed path or reroute is asked for again, as northstar's demo does.
#[allow(
    clippy::type_complexity,
    reason = "one query filter, as northstar's demo writes it"
)]
fn retry_failed(
    mut commands: Commands,
    failed: Query<(Entity, &Agent), Or<(With<ns::PathfindingFailed>, With<ns::RerouteFailed>)>>,
) {
    for (entity, agent) in &failed {
        commands
            .entity(entity)
            .insert(ns::Pathfind::new(agent.goal))
            .remove::<(ns::PathfindingFailed, ns::RerouteFailed)>();
    }
}

/// northstar's plugin walks the crowd; see [`tilewalk_crowd`].
fn northstar_crowd(
    grid: &Grid,
    starts: &[Pos],
    goals: &[Pos],
    cap: f64,
    mut change: Option<(f64, &mut ChangeResult)>,
    chunk: u32,
) -> CrowdResult {
    let scale = cost_scale(grid).expect("the shipped costs are whole");
    let mut app = App::new();
    headless(&mut app);
    app.add_plugins(ns::NorthstarPlugin::<ns::CardinalNeighborhood>::default())
        .insert_resource(Scale(scale))
        .add_systems(
            Update,
            (walk_agents, retry_failed).chain().after(ns::PathingSet),
        );
    app.world_mut()
        .resource_mut::<ns::NorthstarPluginSettings>()
        .max_collision_avoidance_agents_per_frame = starts.len();
    app.world_mut()
        .spawn(northstar_grid(grid, scale, chunk, true));
    let agents: Vec<Entity> = starts
        .iter()
        .zip(goals)
        .map(|(&a, &b)| {
            app.world_mut()
                .spawn((
                    ns::AgentPos(cell(a)),
                    ns::Pathfind::new(cell(b)),
                    ns::Blocking,
                    Agent {
                        goal: cell(b),
                        walking: None,
                        arrived: None,
                    },
                ))
                .id()
        })
        .collect();
    let mut frame_ms = Vec::new();
    let mut walled: Option<(Vec<UVec3>, Vec<Entity>, Instant, usize)> = None;
    let frames = (cap / STEP).round() as usize;
    for frame in 0..frames {
        if let Some((at, _)) = &change
            && walled.is_none()
            && frame as f64 * STEP >= *at
        {
            let world = app.world_mut();
            let occupied: HashSet<Pos> = world
                .query::<&ns::AgentPos>()
                .iter(world)
                .map(|p| pos(p.0))
                .collect();
            let cells: Vec<UVec3> = wall(grid, &occupied).into_iter().map(cell).collect();
            let crosses = |path: Option<&ns::Path>, next: Option<&ns::NextPos>| {
                cells.iter().any(|&c| {
                    path.is_some_and(|p| p.is_position_in_path(c)) || next.is_some_and(|n| n.0 == c)
                })
            };
            let affected: Vec<Entity> = world
                .query::<(Entity, Option<&ns::Path>, Option<&ns::NextPos>)>()
                .iter(world)
                .filter(|&(_, p, n)| crosses(p, n))
                .map(|(e, ..)| e)
                .collect();
            let started = Instant::now();
            let mut state = world.query::<&mut ns::CardinalGrid>();
            let mut ns_grid = state.single_mut(world).expect("one grid");
            for &c in &cells {
                ns_grid.set_nav(c, ns::Nav::Impassable);
            }
            ns_grid.build();
            for &e in &affected {
                let goal = world.get::<Agent>(e).expect("an agent").goal;
                world
                    .entity_mut(e)
                    .remove::<(ns::Path, ns::NextPos)>()
                    .insert(ns::Pathfind::new(goal));
            }
            walled = Some((cells, affected, started, frame));
        }
        let started = Instant::now();
        app.update();
        frame_ms.push(started.elapsed().as_secs_f64() * 1e3);
        let world = app.world_mut();
        if let (Some((cells, affected, started, at)), Some((_, result))) = (&walled, &mut change) {
            let replanned = affected
                .iter()
                .filter(|&&e| {
                    let entity = world.entity(e);
                    let done = entity.get::<Agent>().is_some_and(|a| {
                        entity.get::<ns::AgentPos>().is_some_and(|p| p.0 == a.goal)
                    });
                    let path = entity.get::<ns::Path>();
                    let next = entity.get::<ns::NextPos>();
                    done || (path.is_some()
                        && !cells.iter().any(|&c| {
                            path.is_some_and(|p| p.is_position_in_path(c))
                                || next.is_some_and(|n| n.0 == c)
                        }))
                })
                .count();
            **result = ChangeResult::after(affected.len(), replanned, frame + 1 - at, *started);
            if replanned == affected.len() {
                break;
            }
        }
        if change.is_none()
            && world
                .query::<&Agent>()
                .iter(world)
                .all(|a| a.arrived.is_some())
        {
            break;
        }
    }
    let world = app.world_mut();
    let arrivals: Vec<f64> = agents
        .iter()
        .filter_map(|&e| world.get::<Agent>(e).and_then(|a| a.arrived))
        .collect();
    crowd_result("northstar", &arrivals, frame_ms)
}

// ---------------------------------------------------------------------------------------
// Memory

/// The bytes allocated and not yet freed, from the example's counting allocator (`None`
/// where another binary, the test one, includes this file with its own allocator).
#[cfg(not(test))]
fn live_bytes() -> Option<usize> {
    Some(counting::LIVE.load(std::sync::atomic::Ordering::Relaxed))
}

#[cfg(test)]
fn live_bytes() -> Option<usize> {
    None
}

#[cfg(not(test))]
mod counting {
    use std::alloc::{GlobalAlloc, Layout, System};
    use std::sync::atomic::{AtomicUsize, Ordering};

    /// The system allocator, counting the bytes live.
    struct Counting;

    pub static LIVE: AtomicUsize = AtomicUsize::new(0);

    #[global_allocator]
    static ALLOCATOR: Counting = Counting;

    // SAFETY: every call is passed to `System` unchanged; only the counter is added.
    unsafe impl GlobalAlloc for Counting {
        unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
            // SAFETY: the caller's contract, passed on.
            let block = unsafe { System.alloc(layout) };
            if !block.is_null() {
                LIVE.fetch_add(layout.size(), Ordering::Relaxed);
            }
            block
        }

        unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
            // SAFETY: the caller's contract, passed on.
            let block = unsafe { System.alloc_zeroed(layout) };
            if !block.is_null() {
                LIVE.fetch_add(layout.size(), Ordering::Relaxed);
            }
            block
        }

        unsafe fn dealloc(&self, block: *mut u8, layout: Layout) {
            // SAFETY: the caller's contract, passed on.
            unsafe { System.dealloc(block, layout) };
            LIVE.fetch_sub(layout.size(), Ordering::Relaxed);
        }

        unsafe fn realloc(&self, block: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
            // SAFETY: the caller's contract, passed on.
            let moved = unsafe { System.realloc(block, layout, new_size) };
            if !moved.is_null() {
                LIVE.fetch_sub(layout.size(), Ordering::Relaxed);
                LIVE.fetch_add(new_size, Ordering::Relaxed);
            }
            moved
        }
    }
}
