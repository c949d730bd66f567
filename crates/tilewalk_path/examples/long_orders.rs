//! Long single orders on large weighted maps: ALT (A* with landmarks, [`Landmarks`]),
//! customizable contraction hierarchies ([`Cch`]) and a one-level HPA* (Botea et al. 2004)
//! side by side with plain A*, on the same random long queries, in one run.
//!
//! ```text
//! cargo run --release -- gen --seed 1 --width 2048 --height 2048 --out /tmp/gen-2048-1.map
//! cargo run --release -p tilewalk_path --example long_orders -- /tmp/gen-2048-1.map
//! ```
//!
//! MAP is a tilewalk map from `tilewalk gen` (its `[terrain]` rows), read with the costs of
//! the shipped `assets/terrain.ron` for the class given (`--class foot`, the default, or
//! `horse`). Options: `--queries N` (default 1000), `--seed S` (of the queries, default 1),
//! `--landmarks K` (default 8), `--cluster C` (HPA*'s cluster side, default 32),
//! `--paints P` (10×10 paints re-customized into the hierarchy, default 20),
//! `--no-hpa` (skip HPA*), `--no-alt` (skip ALT), `--no-cch` (skip the hierarchy),
//! `--one-class` (customize the hierarchy for the run's class only, not for the other too).
//!
//! A query is a start and a goal drawn at random among the passable cells of one region, at
//! least half the map's side apart (on the board's 8-way distance). Each is solved by plain
//! A* (exact: the optimum), by ALT, by the hierarchy and by HPA*; times are of the query
//! alone (for the hierarchy: the query and the unpacking into cells; for HPA*:
//! inserting start and goal into the abstract graph, the abstract search and the refinement
//! into cells). It prints each method's p50 and p99 query time, its ratio to A*'s (above 1
//! is faster), cells expanded, cost against the optimum, preprocessing time and memory (for
//! the hierarchy: its order and contraction plus one class's customization, then a line of
//! its parts and one of its paints), and ends with one JSON line.

use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::process::ExitCode;
use std::time::Instant;

use tilewalk_path::{
    Board, Cch, CchMetric, CchQuery, Grid, Landmarks, Pos, SearchContext, SearchOptions,
};

/// The shipped terrain table's costs (`assets/terrain.ron`) by map glyph: foot, horse.
fn cost(glyph: char, horse: bool) -> Option<f64> {
    let (foot, riding) = match glyph {
        '.' | 'G' => (Some(1.0), Some(0.75)),
        '=' => (Some(1.0), Some(0.5)),
        'f' => (Some(2.0), Some(3.0)),
        ',' | 'S' => (Some(3.0), Some(4.0)),
        '~' | 'W' => (Some(6.0), None),
        _ => (None, None),
    };
    if horse { riding } else { foot }
}

fn read_map(path: &str, horse: bool) -> Result<Grid, String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("{path}: {e}"))?;
    let rows: Vec<&str> = text
        .lines()
        .skip_while(|l| l.trim() != "[terrain]")
        .skip(1)
        .take_while(|l| !l.trim().starts_with('['))
        .filter(|l| !l.trim().is_empty())
        .collect();
    let chars: Vec<Vec<char>> = rows
        .iter()
        .map(|r| r.trim_end().chars().collect())
        .collect();
    let (width, height) = (chars.first().map_or(0, Vec::len), chars.len());
    Grid::from_fn(width as u32, height as u32, |p| {
        chars[p.y as usize]
            .get(p.x as usize)
            .and_then(|&g| cost(g, horse))
    })
    .map_err(|e| format!("{path}: {e}"))
}

/// A small deterministic random number generator (xorshift64*).
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    fn below(&mut self, n: u32) -> u32 {
        (self.next() % u64::from(n)) as u32
    }
}

fn queries(grid: &Grid, board: Board, count: usize, seed: u64) -> Vec<(Pos, Pos)> {
    let mut rng = Rng(seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1);
    let (w, h) = (grid.width(), grid.height());
    let apart = w.min(h) / 2;
    let mut out = Vec::with_capacity(count);
    let mut tries = 0u64;
    while out.len() < count && tries < 1_000_000_000 {
        tries += 1;
        let a = Pos::new(rng.below(w), rng.below(h));
        let b = Pos::new(rng.below(w), rng.below(h));
        if board.distance(a, b) >= apart && grid.connected(a, b, board) {
            out.push((a, b));
        }
    }
    out
}

/// Nearest-rank percentile of sorted values.
fn percentile(sorted: &[f64], p: f64) -> f64 {
    if sorted.is_empty() {
        return 0.0;
    }
    let rank = (p * sorted.len() as f64).ceil() as usize;
    sorted[rank.clamp(1, sorted.len()) - 1]
}

/// One method's results over the queries.
#[derive(Default)]
struct Method {
    ms: Vec<f64>,
    expanded: Vec<f64>,
    /// Cost over the optimum, per query.
    excess: Vec<f64>,
}

impl Method {
    fn push(&mut self, ms: f64, expanded: usize, cost: f64, optimum: f64) {
        self.ms.push(ms);
        self.expanded.push(expanded as f64);
        self.excess.push(cost / optimum - 1.0);
    }

    fn sort(&mut self) {
        self.ms.sort_by(f64::total_cmp);
        self.expanded.sort_by(f64::total_cmp);
        self.excess.sort_by(f64::total_cmp);
    }

    fn p(&self, q: f64) -> f64 {
        percentile(&self.ms, q)
    }
}

fn main() -> ExitCode {
    let mut args = std::env::args().skip(1);
    let mut maps = Vec::new();
    let (mut count, mut seed, mut landmarks, mut cluster) = (1000usize, 1u64, 8usize, 32u32);
    let (mut paints, mut other_class) = (20usize, true);
    let (mut horse, mut hpa, mut use_alt, mut use_cch) = (false, true, true, true);
    while let Some(arg) = args.next() {
        let mut number = |name: &str| -> Option<u64> {
            let value = args.next().and_then(|v| v.parse().ok());
            if value.is_none() {
                eprintln!("{name} needs a whole number");
            }
            value
        };
        match arg.as_str() {
            "--queries" => match number("--queries") {
                Some(n) => count = n as usize,
                None => return ExitCode::from(2),
            },
            "--seed" => match number("--seed") {
                Some(n) => seed = n,
                None => return ExitCode::from(2),
            },
            "--landmarks" => match number("--landmarks") {
                Some(n) => landmarks = n as usize,
                None => return ExitCode::from(2),
            },
            "--paints" => match number("--paints") {
                Some(n) => paints = n as usize,
                None => return ExitCode::from(2),
            },
            "--cluster" => match number("--cluster") {
                Some(n) => cluster = n.max(4) as u32,
                None => return ExitCode::from(2),
            },
            "--class" => match args.next().as_deref() {
                Some("foot") => horse = false,
                Some("horse") => horse = true,
                _ => {
                    eprintln!("--class is foot or horse");
                    return ExitCode::from(2);
                }
            },
            "--no-hpa" => hpa = false,
            "--no-alt" => use_alt = false,
            "--no-cch" => use_cch = false,
            "--one-class" => other_class = false,
            _ => maps.push(arg),
        }
    }
    if maps.is_empty() {
        eprintln!(
            "usage: long_orders MAP... [--queries N] [--seed S] [--landmarks K] [--cluster C] [--paints P] [--class foot|horse] [--no-hpa] [--no-alt] [--no-cch] [--one-class]"
        );
        return ExitCode::from(2);
    }
    let board = Board::default();
    let mut json = Vec::new();
    for map in &maps {
        let mut grid = match read_map(map, horse) {
            Ok(grid) => grid,
            Err(e) => {
                eprintln!("error: {e}");
                return ExitCode::from(2);
            }
        };
        grid.label_regions(board);
        let problems = queries(&grid, board, count, seed);
        let started = Instant::now();
        let alt_tables = use_alt.then(|| Landmarks::build(&grid, board, landmarks));
        let alt_build = started.elapsed().as_secs_f64();
        let started = Instant::now();
        let cch = use_cch
            .then(|| Cch::new(grid.width(), grid.height(), board).expect("the contraction fits"));
        let cch_build = started.elapsed().as_secs_f64();
        let started = Instant::now();
        let mut metric = cch
            .as_ref()
            .map(|cch| cch.customize(&grid).expect("same size"));
        let cch_customize = started.elapsed().as_secs_f64();
        let started = Instant::now();
        let abstract_graph = hpa.then(|| Hpa::build(&grid, cluster));
        let hpa_build = started.elapsed().as_secs_f64();
        let (mut astar, mut alt, mut hier, mut hierarchy) = (
            Method::default(),
            Method::default(),
            Method::default(),
            Method::default(),
        );
        let mut cch_query = CchQuery::new();
        let mut cch_mismatches = 0;
        let mut context = SearchContext::new();
        let options = SearchOptions::on(board);
        let mut mismatches = 0;
        for &(a, b) in &problems {
            let started = Instant::now();
            let plain = context.search(&grid, a, b, &options).expect("connected");
            let ms = started.elapsed().as_secs_f64() * 1e3;
            let optimum = plain.path.cost;
            astar.push(ms, plain.stats.expanded, optimum, optimum);
            if let Some(tables) = &alt_tables {
                let started = Instant::now();
                let found = context
                    .search_landmarks(&grid, tables, a, b)
                    .expect("connected");
                let ms = started.elapsed().as_secs_f64() * 1e3;
                if (found.path.cost - optimum).abs() > 1e-9 * optimum.max(1.0) {
                    mismatches += 1;
                }
                alt.push(ms, found.stats.expanded, found.path.cost, optimum);
            }
            if let (Some(cch), Some(metric)) = (&cch, &metric) {
                let started = Instant::now();
                let path = cch_query.path(cch, metric, &grid, a, b).expect("connected");
                let ms = started.elapsed().as_secs_f64() * 1e3;
                if (path.cost - optimum).abs() > 1e-9 * optimum.max(1.0) {
                    cch_mismatches += 1;
                }
                hierarchy.push(ms, 0, path.cost, optimum);
            }
            if let Some(graph) = &abstract_graph {
                let started = Instant::now();
                let (cells, cost, expanded) = graph.query(&grid, a, b);
                let ms = started.elapsed().as_secs_f64() * 1e3;
                assert_eq!(cells.first().copied(), Some(a));
                assert_eq!(cells.last().copied(), Some(b));
                hier.push(ms, expanded, cost, optimum);
            }
        }
        for m in [&mut astar, &mut alt, &mut hier, &mut hierarchy] {
            m.sort();
        }
        let cells = f64::from(grid.width()) * f64::from(grid.height());
        println!(
            "{map}: {}x{}, {} long queries (seed {seed}), class {}",
            grid.width(),
            grid.height(),
            problems.len(),
            if horse { "horse" } else { "foot" }
        );
        println!(
            "  {:<22} {:>9} {:>9} {:>8} {:>8} {:>11} {:>10} {:>10} {:>9} {:>8}",
            "method",
            "p50 ms",
            "p99 ms",
            "x p50",
            "x p99",
            "exp p50",
            "cost p99",
            "cost max",
            "build s",
            "B/cell"
        );
        let row = |name: &str, m: &Method, build: f64, bytes: f64| {
            println!(
                "  {:<22} {:>9.2} {:>9.2} {:>8.1} {:>8.1} {:>11.0} {:>9.3}% {:>9.3}% {:>9.2} {:>8.1}",
                name,
                m.p(0.5),
                m.p(0.99),
                astar.p(0.5) / m.p(0.5),
                astar.p(0.99) / m.p(0.99),
                percentile(&m.expanded, 0.5),
                100.0 * percentile(&m.excess, 0.99),
                100.0 * m.excess.last().copied().unwrap_or(0.0),
                build,
                bytes / cells
            );
        };
        row("A*", &astar, 0.0, 0.0);
        if let Some(tables) = &alt_tables {
            row(
                &format!("ALT ({} landmarks)", tables.landmarks().len()),
                &alt,
                alt_build,
                tables.bytes() as f64,
            );
        }
        if let Some(graph) = &abstract_graph {
            row(
                &format!("HPA* (clusters {cluster})"),
                &hier,
                hpa_build,
                graph.bytes() as f64,
            );
        }
        let mut cch_json = String::new();
        if let (Some(cch), Some(metric)) = (&cch, &mut metric) {
            let bytes = cch.bytes() + metric.bytes();
            row("CCH", &hierarchy, cch_build + cch_customize, bytes as f64);
            // The other class customized on the same structure.
            let mut other_customize = None;
            if other_class {
                let other = read_map(map, !horse).expect("read once already");
                let started = Instant::now();
                let other_metric = cch.customize(&other).expect("same size");
                other_customize = Some(started.elapsed().as_secs_f64());
                drop(other_metric);
            }
            let (paint_ms, paint_arcs, paint_mismatches) = paint(
                &mut grid,
                cch,
                metric,
                &mut cch_query,
                &problems,
                seed,
                paints,
            );
            println!(
                "  CCH: order and contraction {cch_build:.2} s ({} arcs, {:.1} a cell, tree height {}, {:.1} B/cell); customization {cch_customize:.2} s ({}), {} ({}), {:.1} B/cell a class",
                cch.arcs(),
                cch.arcs() as f64 / cells,
                cch.height_of_tree(),
                cch.bytes() as f64 / cells,
                if horse { "horse" } else { "foot" },
                other_customize.map_or("not run".to_owned(), |s| format!("{s:.2} s")),
                if horse { "foot" } else { "horse" },
                metric.bytes() as f64 / cells,
            );
            println!(
                "  CCH: 10x10 paints re-customized in p50 {:.2} ms, max {:.2} ms ({} paints, arcs changed p50 {:.0}, max {:.0}); cost mismatches after them: {paint_mismatches}",
                percentile(&paint_ms, 0.5),
                paint_ms.last().copied().unwrap_or(0.0),
                paint_ms.len(),
                percentile(&paint_arcs, 0.5),
                paint_arcs.last().copied().unwrap_or(0.0),
            );
            println!("  CCH cost mismatches against A*: {cch_mismatches}");
            cch_json = format!(
                ",\"cch_p50_ms\":{:.3},\"cch_p99_ms\":{:.3},\"cch_mismatches\":{cch_mismatches},\"cch_build_s\":{cch_build:.3},\"cch_customize_s\":{cch_customize:.3},\"cch_customize_other_s\":{},\"cch_bytes\":{bytes},\"cch_metric_bytes\":{},\"cch_paint_p50_ms\":{:.3},\"cch_paint_max_ms\":{:.3},\"cch_paint_mismatches\":{paint_mismatches}",
                hierarchy.p(0.5),
                hierarchy.p(0.99),
                other_customize.map_or("null".to_owned(), |s| format!("{s:.3}")),
                metric.bytes(),
                percentile(&paint_ms, 0.5),
                paint_ms.last().copied().unwrap_or(0.0),
            );
        }
        if alt_tables.is_some() {
            println!("  ALT cost mismatches against A*: {mismatches}");
        }
        json.push(format!(
            "{{\"map\":\"{map}\",\"queries\":{},\"astar_p50_ms\":{:.3},\"astar_p99_ms\":{:.3},\"alt_p50_ms\":{:.3},\"alt_p99_ms\":{:.3},\"alt_mismatches\":{mismatches},\"alt_build_s\":{alt_build:.3},\"alt_bytes\":{},\"hpa_p50_ms\":{:.3},\"hpa_p99_ms\":{:.3},\"hpa_cost_excess_max\":{:.5},\"hpa_build_s\":{hpa_build:.3}{cch_json}}}",
            problems.len(),
            astar.p(0.5),
            astar.p(0.99),
            alt.p(0.5),
            alt.p(0.99),
            alt_tables.as_ref().map_or(0, Landmarks::bytes),
            hier.p(0.5),
            hier.p(0.99),
            hier.excess.last().copied().unwrap_or(0.0),
        ));
    }
    println!("[{}]", json.join(","));
    ExitCode::SUCCESS
}

/// The 8-way steps without corner cutting, as the core's default board takes them.
/// Paints `paints` 10x10 squares of the map, one after another, each with the cost of another
/// terrain than it had (road on forest, forest on the rest, rock on every fifth), and
/// re-customizes the hierarchy for each: the times (ms, sorted), the arcs changed (sorted),
/// and how many of ten queries after each paint cost other than A* says. None on a map of
/// 10 cells or fewer a side.
fn paint(
    grid: &mut Grid,
    cch: &Cch,
    metric: &mut CchMetric,
    query: &mut CchQuery,
    problems: &[(Pos, Pos)],
    seed: u64,
    paints: usize,
) -> (Vec<f64>, Vec<f64>, usize) {
    let mut rng = Rng(seed.wrapping_mul(0x2545_f491_4f6c_dd1d) | 1);
    let (mut times, mut arcs, mut mismatches) = (Vec::new(), Vec::new(), 0);
    let mut context = SearchContext::new();
    let options = SearchOptions::on(cch.board());
    let paints = if grid.width() > 10 && grid.height() > 10 {
        paints
    } else {
        0
    };
    for round in 0..paints {
        let (x0, y0) = (rng.below(grid.width() - 10), rng.below(grid.height() - 10));
        let mut edited = Vec::new();
        for y in y0..y0 + 10 {
            for x in x0..x0 + 10 {
                let p = Pos::new(x, y);
                let cost = match grid.cost(p) {
                    _ if round % 5 == 4 => None,
                    Some(2.0) => Some(1.0),
                    _ => Some(2.0),
                };
                grid.set_cost(p, cost).expect("inside");
                edited.push(p);
            }
        }
        let started = Instant::now();
        let changed = metric.recustomize(cch, grid, &edited).expect("same size");
        times.push(started.elapsed().as_secs_f64() * 1e3);
        arcs.push(changed as f64);
        for &(a, b) in problems.iter().skip(round * 10).take(10) {
            let astar = context.search(grid, a, b, &options).map(|f| f.path.cost);
            let found = query.path(cch, metric, grid, a, b).map(|p| p.cost);
            match (astar, found) {
                (Ok(x), Ok(y)) if (x - y).abs() <= 1e-9 * x.max(1.0) => {}
                (Err(_), Err(_)) => {}
                _ => mismatches += 1,
            }
        }
    }
    times.sort_by(f64::total_cmp);
    arcs.sort_by(f64::total_cmp);
    (times, arcs, mismatches)
}

const STEPS: [(i32, i32); 8] = [
    (0, -1),
    (1, 0),
    (0, 1),
    (-1, 0),
    (1, -1),
    (1, 1),
    (-1, 1),
    (-1, -1),
];

/// The cost of stepping from `a` by `d` on `grid`, if the step exists (both cells passable,
/// and for a diagonal both orthogonal neighbours too) and stays inside `bounds`.
fn step(grid: &Grid, a: Pos, d: (i32, i32), bounds: (u32, u32, u32, u32)) -> Option<(Pos, f64)> {
    let (x0, y0, x1, y1) = bounds;
    let x = a.x.checked_add_signed(d.0)?;
    let y = a.y.checked_add_signed(d.1)?;
    if x < x0 || y < y0 || x >= x1 || y >= y1 {
        return None;
    }
    let to = Pos::new(x, y);
    let cost = grid.cost(to)?;
    if d.0 != 0 && d.1 != 0 {
        grid.cost(Pos::new(x, a.y))?;
        grid.cost(Pos::new(a.x, y))?;
        return Some((to, cost * std::f64::consts::SQRT_2));
    }
    Some((to, cost))
}

/// A key of a non-negative cost that orders like it.
fn key(cost: f64) -> u64 {
    cost.to_bits()
}

/// Dijkstra inside `bounds`, from `from` (forward: the cost of walking from it) or to it
/// (backward: the cost of walking to it): the cost of each target reached, and the cells
/// expanded. With `stop`, it stops at that cell and returns its path too.
fn local(
    grid: &Grid,
    bounds: (u32, u32, u32, u32),
    from: Pos,
    backward: bool,
    stop: Option<Pos>,
    scratch: &mut Scratch,
) -> usize {
    let (x0, y0, x1, y1) = bounds;
    let width = (x1 - x0) as usize;
    let cells = width * (y1 - y0) as usize;
    scratch.reset(cells);
    let at = |p: Pos| (p.y - y0) as usize * width + (p.x - x0) as usize;
    let mut heap = BinaryHeap::new();
    scratch.g[at(from)] = 0.0;
    scratch.parent[at(from)] = at(from) as u32;
    heap.push(Reverse((key(0.0), at(from) as u32)));
    let mut expanded = 0;
    while let Some(Reverse((k, i))) = heap.pop() {
        let i = i as usize;
        if scratch.done[i] || f64::from_bits(k) > scratch.g[i] {
            continue;
        }
        scratch.done[i] = true;
        expanded += 1;
        let pos = Pos::new(x0 + (i % width) as u32, y0 + (i / width) as u32);
        if Some(pos) == stop {
            break;
        }
        for d in STEPS {
            let Some((to, forward_cost)) = step(grid, pos, d, bounds) else {
                continue;
            };
            // Backward, the step is walked from `to` into `pos`: it costs `pos`'s cost.
            let cost = if backward {
                let length = if d.0 != 0 && d.1 != 0 {
                    std::f64::consts::SQRT_2
                } else {
                    1.0
                };
                grid.cost(pos).unwrap_or(f64::INFINITY) * length
            } else {
                forward_cost
            };
            let j = at(to);
            let g = scratch.g[i] + cost;
            if g < scratch.g[j] {
                scratch.g[j] = g;
                scratch.parent[j] = i as u32;
                heap.push(Reverse((key(g), j as u32)));
            }
        }
    }
    expanded
}

/// The memory of [`local`] searches.
#[derive(Default)]
struct Scratch {
    g: Vec<f64>,
    parent: Vec<u32>,
    done: Vec<bool>,
}

impl Scratch {
    fn reset(&mut self, cells: usize) {
        self.g.clear();
        self.g.resize(cells, f64::INFINITY);
        self.parent.clear();
        self.parent.resize(cells, u32::MAX);
        self.done.clear();
        self.done.resize(cells, false);
    }
}

/// A one-level HPA* graph: square clusters; entrances on the borders between neighbouring
/// clusters (runs of cells open on both sides, one transition in the middle of a short run
/// and one at each end of a run of 6 or more); inside each cluster, an edge between each pair
/// of its transitions with the cost of the cheapest way between them inside the cluster.
struct Hpa {
    side: u32,
    width: u32,
    height: u32,
    nodes: Vec<Pos>,
    /// Per node: (node, cost) of its out-edges.
    edges: Vec<Vec<(u32, f64)>>,
    /// Per cluster: its nodes.
    members: Vec<Vec<u32>>,
}

impl Hpa {
    fn cluster(&self, p: Pos) -> usize {
        let across = self.width.div_ceil(self.side);
        ((p.y / self.side) * across + p.x / self.side) as usize
    }

    fn bounds(&self, cluster: usize) -> (u32, u32, u32, u32) {
        let across = self.width.div_ceil(self.side) as usize;
        let (cx, cy) = ((cluster % across) as u32, (cluster / across) as u32);
        let (x0, y0) = (cx * self.side, cy * self.side);
        (
            x0,
            y0,
            (x0 + self.side).min(self.width),
            (y0 + self.side).min(self.height),
        )
    }

    fn node(&mut self, p: Pos) -> u32 {
        self.nodes.push(p);
        self.edges.push(Vec::new());
        let cluster = self.cluster(p);
        let id = (self.nodes.len() - 1) as u32;
        self.members[cluster].push(id);
        id
    }

    fn build(grid: &Grid, side: u32) -> Self {
        let (width, height) = (grid.width(), grid.height());
        let clusters = (width.div_ceil(side) * height.div_ceil(side)) as usize;
        let mut graph = Self {
            side,
            width,
            height,
            nodes: Vec::new(),
            edges: Vec::new(),
            members: vec![Vec::new(); clusters],
        };
        // Entrances: vertical borders (x = k·side − 1 | k·side), then horizontal ones.
        for vertical in [true, false] {
            let (lines, along) = if vertical {
                (width, height)
            } else {
                (height, width)
            };
            let mut line = side;
            while line < lines {
                let mut start = 0;
                while start < along {
                    // Runs within one cluster's stretch of the border.
                    let end = ((start / side) + 1) * side;
                    let end = end.min(along);
                    let mut i = start;
                    while i < end {
                        let open = |i: u32| {
                            let (a, b) = if vertical {
                                (Pos::new(line - 1, i), Pos::new(line, i))
                            } else {
                                (Pos::new(i, line - 1), Pos::new(i, line))
                            };
                            grid.is_passable(a) && grid.is_passable(b)
                        };
                        if !open(i) {
                            i += 1;
                            continue;
                        }
                        let run_start = i;
                        while i < end && open(i) {
                            i += 1;
                        }
                        let run_end = i - 1;
                        let picks = if run_end - run_start + 1 >= 6 {
                            vec![run_start, run_end]
                        } else {
                            vec![(run_start + run_end) / 2]
                        };
                        for k in picks {
                            let (a, b) = if vertical {
                                (Pos::new(line - 1, k), Pos::new(line, k))
                            } else {
                                (Pos::new(k, line - 1), Pos::new(k, line))
                            };
                            let (na, nb) = (graph.node(a), graph.node(b));
                            graph.edges[na as usize].push((nb, grid.cost(b).unwrap_or(0.0)));
                            graph.edges[nb as usize].push((na, grid.cost(a).unwrap_or(0.0)));
                        }
                    }
                    start = end;
                }
                line += side;
            }
        }
        // Intra-cluster edges: one bounded Dijkstra per node.
        let mut scratch = Scratch::default();
        for cluster in 0..clusters {
            let bounds = graph.bounds(cluster);
            let width = (bounds.2 - bounds.0) as usize;
            let members = graph.members[cluster].clone();
            for &n in &members {
                local(
                    grid,
                    bounds,
                    graph.nodes[n as usize],
                    false,
                    None,
                    &mut scratch,
                );
                for &m in &members {
                    let p = graph.nodes[m as usize];
                    let i = (p.y - bounds.1) as usize * width + (p.x - bounds.0) as usize;
                    if m != n && scratch.g[i].is_finite() {
                        graph.edges[n as usize].push((m, scratch.g[i]));
                    }
                }
            }
        }
        graph
    }

    fn bytes(&self) -> usize {
        self.nodes.len() * std::mem::size_of::<Pos>()
            + self
                .edges
                .iter()
                .map(|e| e.len() * std::mem::size_of::<(u32, f64)>() + 24)
                .sum::<usize>()
            + self.members.iter().map(|m| m.len() * 4 + 24).sum::<usize>()
    }

    /// The path from `a` to `b`: inserted into their clusters, searched on the abstract graph
    /// (A* with the octile distance at the grid's smallest cost), refined cluster by cluster.
    /// Returns its cells, its cost and the cells and nodes expanded.
    fn query(&self, grid: &Grid, a: Pos, b: Pos) -> (Vec<Pos>, f64, usize) {
        let mut scratch = Scratch::default();
        let mut expanded = 0;
        let (ca, cb) = (self.cluster(a), self.cluster(b));
        // Start edges: from `a` to its cluster's nodes; goal edges: from `b`'s nodes to it.
        let bounds_a = self.bounds(ca);
        expanded += local(grid, bounds_a, a, false, None, &mut scratch);
        let wa = (bounds_a.2 - bounds_a.0) as usize;
        let index = |bounds: (u32, u32, u32, u32), w: usize, p: Pos| {
            (p.y - bounds.1) as usize * w + (p.x - bounds.0) as usize
        };
        let mut from_start: Vec<(u32, f64)> = self.members[ca]
            .iter()
            .map(|&n| (n, scratch.g[index(bounds_a, wa, self.nodes[n as usize])]))
            .filter(|e| e.1.is_finite())
            .collect();
        // Start and goal in one cluster: the way between them inside it is an edge too.
        let (start, goal) = (self.nodes.len() as u32, self.nodes.len() as u32 + 1);
        if ca == cb && scratch.g[index(bounds_a, wa, b)].is_finite() {
            from_start.push((goal, scratch.g[index(bounds_a, wa, b)]));
        }
        let bounds_b = self.bounds(cb);
        expanded += local(grid, bounds_b, b, true, None, &mut scratch);
        let wb = (bounds_b.2 - bounds_b.0) as usize;
        let to_goal: Vec<(u32, f64)> = self.members[cb]
            .iter()
            .map(|&n| (n, scratch.g[index(bounds_b, wb, self.nodes[n as usize])]))
            .filter(|e| e.1.is_finite())
            .collect();
        // Abstract A*: node ids, then START and GOAL.
        let count = self.nodes.len();
        let pos = |n: u32| match n {
            n if n == start => a,
            n if n == goal => b,
            n => self.nodes[n as usize],
        };
        let min = grid.min_cost().unwrap_or(1.0);
        let h = |n: u32| {
            let p = pos(n);
            let (dx, dy) = (p.x.abs_diff(b.x), p.y.abs_diff(b.y));
            let (lo, hi) = (dx.min(dy), dx.max(dy));
            min * (f64::from(hi - lo) + std::f64::consts::SQRT_2 * f64::from(lo))
        };
        let mut g = vec![f64::INFINITY; count + 2];
        let mut parent = vec![u32::MAX; count + 2];
        let mut heap = BinaryHeap::new();
        g[start as usize] = 0.0;
        heap.push(Reverse((key(h(start)), start)));
        while let Some(Reverse((k, n))) = heap.pop() {
            if f64::from_bits(k) > g[n as usize] + h(n) + 1e-9 {
                continue;
            }
            expanded += 1;
            if n == goal {
                break;
            }
            let out: Vec<(u32, f64)> = if n == start {
                from_start.clone()
            } else {
                let mut out = self.edges[n as usize].clone();
                if self.cluster(pos(n)) == cb
                    && let Some(&(_, c)) = to_goal.iter().find(|e| e.0 == n)
                {
                    out.push((goal, c));
                }
                out
            };
            for (m, c) in out {
                let ng = g[n as usize] + c;
                if ng < g[m as usize] {
                    g[m as usize] = ng;
                    parent[m as usize] = n;
                    heap.push(Reverse((key(ng + h(m)), m)));
                }
            }
        }
        // Refinement: each abstract edge inside a cluster becomes that cluster's cheapest
        // way; an edge across a border is one step.
        let mut route = vec![goal];
        while let Some(&last) = route.last() {
            let p = parent[last as usize];
            if p == u32::MAX {
                break;
            }
            route.push(p);
        }
        route.reverse();
        let mut cells = vec![a];
        let mut cost = 0.0;
        for pair in route.windows(2) {
            let (from, to) = (pos(pair[0]), pos(pair[1]));
            let (cf, ct) = (self.cluster(from), self.cluster(to));
            if cf != ct {
                cells.push(to);
                cost += grid.cost(to).unwrap_or(0.0);
                continue;
            }
            let bounds = self.bounds(cf);
            let w = (bounds.2 - bounds.0) as usize;
            expanded += local(grid, bounds, from, false, Some(to), &mut scratch);
            cost += scratch.g[index(bounds, w, to)];
            let mut leg = Vec::new();
            let mut i = index(bounds, w, to);
            let first = index(bounds, w, from);
            while i != first {
                leg.push(Pos::new(
                    bounds.0 + (i % w) as u32,
                    bounds.1 + (i / w) as u32,
                ));
                i = scratch.parent[i] as usize;
            }
            cells.extend(leg.into_iter().rev());
        }
        (cells, cost, expanded)
    }
}
