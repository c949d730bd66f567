//! Plain A*'s work by the length of an order: the cells it expands (and its time) on random
//! orders of 32 to 1,024 steps on the board, the figures that chose the plugin's
//! `LANDMARK_DISTANCE` (from which a one-unit order is long enough to build landmark tables).
//!
//! ```text
//! cargo run --release -- gen --seed 1 --width 2048 --height 2048 --out /tmp/gen-2048-1.map
//! cargo run --release -p tilewalk_path --example order_lengths -- /tmp/gen-2048-1.map 100
//! ```
//!
//! MAP is a tilewalk map from `tilewalk gen` (its `[terrain]` rows), read with the shipped
//! `assets/terrain.ron`'s foot costs on the default board (square-8); the second argument is
//! the orders per length (default 100). An order of `d` steps starts on a random cell and
//! ends `d` steps (Chebyshev) from it towards another random cell, both passable and
//! connected. Each line is one length: the nearest-rank p50, p90 and p99 of the cells
//! expanded, and of the time (the search alone).

use std::process::ExitCode;

use tilewalk_path::{Board, Grid, Pos, SearchContext, SearchOptions};

/// The shipped terrain table's foot costs (`assets/terrain.ron`) by map glyph.
fn cost(glyph: char) -> Option<f64> {
    match glyph {
        '.' | 'G' | '=' => Some(1.0),
        'f' => Some(2.0),
        ',' | 'S' => Some(3.0),
        '~' | 'W' => Some(6.0),
        _ => None,
    }
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

fn main() -> ExitCode {
    let mut args = std::env::args().skip(1);
    let (Some(path), orders) = (args.next(), args.next()) else {
        eprintln!("usage: order_lengths MAP [ORDERS]");
        return ExitCode::from(2);
    };
    let Ok(per) = orders.map_or(Ok(100), |s| s.parse::<usize>()) else {
        eprintln!("ORDERS is a number of orders per length");
        return ExitCode::from(2);
    };
    let per = per.max(1);
    let text = match std::fs::read_to_string(&path) {
        Ok(text) => text,
        Err(e) => {
            eprintln!("{path}: {e}");
            return ExitCode::from(2);
        }
    };
    let rows: Vec<Vec<char>> = text
        .lines()
        .skip_while(|l| l.trim() != "[terrain]")
        .skip(1)
        .take_while(|l| !l.trim().starts_with('['))
        .map(|r| r.trim_end().chars().collect())
        .collect();
    let (w, h) = (rows.first().map_or(0, Vec::len) as u32, rows.len() as u32);
    let grid = match Grid::from_fn(w, h, |p| {
        rows[p.y as usize].get(p.x as usize).and_then(|&g| cost(g))
    }) {
        Ok(grid) => grid,
        Err(e) => {
            eprintln!("{path}: {e}");
            return ExitCode::from(2);
        }
    };
    let board = Board::default();
    let options = SearchOptions::on(board);
    let mut context = SearchContext::new();
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    for d in [32u32, 64, 96, 128, 192, 256, 384, 512, 1024] {
        let mut expanded = Vec::new();
        let mut ms = Vec::new();
        let mut tries = 0u64;
        while expanded.len() < per && tries < 100_000_000 {
            tries += 1;
            let a = Pos::new(rng.below(w), rng.below(h));
            let b = Pos::new(rng.below(w), rng.below(h));
            // The cell `d` steps from `a` towards `b`.
            let (dx, dy) = (b.x as f64 - a.x as f64, b.y as f64 - a.y as f64);
            let len = dx.abs().max(dy.abs()).max(1.0);
            let bx = a.x as f64 + dx / len * d as f64;
            let by = a.y as f64 + dy / len * d as f64;
            if bx < 0.0 || by < 0.0 || bx >= w as f64 || by >= h as f64 {
                continue;
            }
            let b = Pos::new(bx as u32, by as u32);
            if !grid.is_passable(a) || !grid.is_passable(b) || !grid.connected(a, b, board) {
                continue;
            }
            let t = std::time::Instant::now();
            if context.search(&grid, a, b, &options).is_ok() {
                ms.push(t.elapsed().as_secs_f64() * 1e3);
                expanded.push(context.stats().expanded);
            }
        }
        if expanded.is_empty() {
            println!("d={d}: no order of this length on the map");
            continue;
        }
        expanded.sort();
        ms.sort_by(f64::total_cmp);
        let p = |q: f64| {
            expanded[((expanded.len() as f64 * q).ceil() as usize).clamp(1, expanded.len()) - 1]
        };
        let pm = |q: f64| ms[((ms.len() as f64 * q).ceil() as usize).clamp(1, ms.len()) - 1];
        println!(
            "d={d}: expanded p50 {} p90 {} p99 {} max {}; ms p50 {:.2} p90 {:.2} p99 {:.2}",
            p(0.5),
            p(0.9),
            p(0.99),
            expanded.last().unwrap(),
            pm(0.5),
            pm(0.9),
            pm(0.99)
        );
    }
    ExitCode::SUCCESS
}
