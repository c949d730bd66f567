//! `tilewalk gen`: a map generated from a seed. Value noise lays out hills (rock), lakes
//! with muddy shores and woods; a river crosses the map with a few fords; roads between
//! villages are routed by the core's own A*, so they bend around hills and bridge the river
//! where it is cheapest. The same seed always gives the same file.

use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use tilewalk_path::{Grid, Pos, SearchContext, SearchOptions};

/// Smooth noise in [0, 1]: random values on a lattice `spacing` cells apart, blended.
struct ValueNoise {
    lattice: Vec<f64>,
    columns: usize,
    spacing: f64,
}

impl ValueNoise {
    fn new(rng: &mut StdRng, width: u32, height: u32, spacing: u32) -> Self {
        let columns = (width / spacing + 2) as usize;
        let rows = (height / spacing + 2) as usize;
        Self {
            lattice: (0..columns * rows).map(|_| rng.random::<f64>()).collect(),
            columns,
            spacing: f64::from(spacing),
        }
    }

    fn at(&self, pos: Pos) -> f64 {
        let (fx, fy) = (
            f64::from(pos.x) / self.spacing,
            f64::from(pos.y) / self.spacing,
        );
        let (x0, y0) = (fx.floor() as usize, fy.floor() as usize);
        let smooth = |t: f64| t * t * (3.0 - 2.0 * t);
        let (tx, ty) = (smooth(fx.fract()), smooth(fy.fract()));
        let v = |x: usize, y: usize| self.lattice[y * self.columns + x];
        let top = v(x0, y0) * (1.0 - tx) + v(x0 + 1, y0) * tx;
        let bottom = v(x0, y0 + 1) * (1.0 - tx) + v(x0 + 1, y0 + 1) * tx;
        top * (1.0 - ty) + bottom * ty
    }
}

/// The sizes (width and height alike) a map can be generated at: up to 4096 × 4096, the
/// 16M-tile cap of map files.
pub const SIZES: std::ops::RangeInclusive<u32> = 1..=4096;

/// How many units a side a generated map gets unless asked for more.
pub const DEFAULT_UNITS: u32 = 3;

/// The most units a side `gen --units` places (both sides stay within the map format's
/// unit limit).
pub const MAX_UNITS_A_SIDE: u32 = 50_000;

/// The text of a generated map, in the tilewalk map format, with `units` a side (as many as
/// there is open ground for). Small maps get what fits: the river needs 6 columns, villages
/// and roads a 25 × 9 map.
pub fn generate(seed: u64, width: u32, height: u32, units: u32) -> String {
    let mut rng = StdRng::seed_from_u64(seed);
    let octaves = |rng: &mut StdRng, spacing: u32| {
        let (coarse, fine) = (
            ValueNoise::new(rng, width, height, spacing),
            ValueNoise::new(rng, width, height, spacing / 2),
        );
        move |p: Pos| 0.65 * coarse.at(p) + 0.35 * fine.at(p)
    };
    let elevation = octaves(&mut rng, 24);
    let moisture = octaves(&mut rng, 20);
    let cells: Vec<Pos> = Grid::new(width, height)
        .expect("a generated map has a valid size")
        .cells()
        .collect();
    let mut glyphs: Vec<char> = cells
        .iter()
        .map(|&p| {
            let (e, m) = (elevation(p), moisture(p));
            match () {
                _ if e > 0.72 => '#',
                _ if e < 0.28 => '~',
                _ if e < 0.33 => ',',
                _ if m > 0.76 => 'T',
                _ if m > 0.63 => 'f',
                _ => '.',
            }
        })
        .collect();
    let index = |p: Pos| (p.y * width + p.x) as usize;

    // A river meandering from the top edge to the bottom, two tiles wide, with fords.
    if width >= 6 {
        let mut x = rng.random_range(width / 3..2 * width / 3) as i64;
        for y in 0..height {
            x = (x + rng.random_range(-1..=1)).clamp(2, i64::from(width) - 3);
            let ford = y % 37 == 18;
            for dx in 0..2 {
                glyphs[index(Pos::new((x + dx) as u32, y))] = if ford { ',' } else { '~' };
            }
        }
    }

    // Villages joined by roads that A* routes over the terrain as a road builder would price it.
    let band = width / 5;
    let villages: Vec<Pos> = if band >= 5 && height >= 9 {
        (0..5)
            .map(|i| {
                Pos::new(
                    rng.random_range(i * band + 2..(i + 1) * band - 2),
                    rng.random_range(4..height - 4),
                )
            })
            .collect()
    } else {
        Vec::new()
    };
    let build_cost = |g: char| match g {
        '.' | '=' => Some(1.0),
        'f' => Some(3.0),
        ',' => Some(4.0),
        'T' => Some(8.0),
        '~' => Some(12.0),
        _ => None,
    };
    let mut context = SearchContext::new();
    for pair in villages.windows(2) {
        let grid = Grid::from_fn(width, height, |p| build_cost(glyphs[index(p)]))
            .expect("a generated map has a valid size");
        let (from, to) = (pair[0], pair[1]);
        if let Ok(found) = context.search(&grid, from, to, &SearchOptions::default()) {
            for p in found.path.cells {
                glyphs[index(p)] = '=';
            }
        }
    }
    for &village in &villages {
        glyphs[index(village)] = '=';
    }

    // `units` a side in a formation on open ground near the west and east edges: the open
    // tiles nearest the formation's centre, rows first. The first three of a side carry the
    // classic names; the classes take turns.
    let mut open: Vec<Pos> = cells
        .iter()
        .copied()
        .filter(|&p| glyphs[index(p)] == '.')
        .collect();
    let mut roster = String::new();
    let sides = [
        (
            "blue",
            Pos::new(4.min(width - 1), height / 2),
            ["knight", "lancer", "griffin"],
        ),
        (
            "red",
            Pos::new(width.saturating_sub(5), height / 2),
            ["brute", "raider", "wyvern"],
        ),
    ];
    for (team, around, names) in sides {
        open.sort_by_key(|p| {
            (
                p.x.abs_diff(around.x).pow(2) + p.y.abs_diff(around.y).pow(2),
                p.y,
                p.x,
            )
        });
        let placed = (units as usize).min(open.len());
        for (i, p) in open.drain(..placed).enumerate() {
            let class = ["foot", "horse", "flyer"][i % 3];
            let name = names
                .get(i)
                .map_or_else(|| format!("{team}{}", i + 1), |n| (*n).to_owned());
            roster.push_str(&format!("{name:<8} {team:<5} {class:<6} {},{}\n", p.x, p.y));
        }
    }

    let army = if units == DEFAULT_UNITS {
        String::new()
    } else {
        format!(" --units {units}")
    };
    let mut text = format!(
        "// Generated by `tilewalk gen --seed {seed} --width {width} --height {height}{army}`.\n[terrain]\n"
    );
    for row in glyphs.chunks(width as usize) {
        text.extend(row);
        text.push('\n');
    }
    text.push_str("[units]\n");
    text.push_str(&roster);
    text
}

/// The units a side `gen --skirmish` places at most.
pub const MAX_SKIRMISH_UNITS: u32 = 200;

/// The size `gen --skirmish` picks for `units` a side: room for both armies to deploy apart,
/// even in both directions (so the half-turn that mirrors the map keeps hex rows and columns
/// in step).
pub fn skirmish_size(units: u32) -> (u32, u32) {
    let even = |n: u32| n + n % 2;
    (even(24 + units), even(14 + units / 2))
}

/// The text of a fair skirmish for tactics: terrain turned a half-turn about the map's centre
/// onto itself (the tile `(x, y)` is the tile `(w-1-x, h-1-y)`), so each side sees the same
/// ground; blue deploys in the west, red on the tiles that mirror blue's, class for class;
/// the classes are those of the shipped terrain table and rules (foot, some of it archers
/// with attack range 2-3, horse and flyer) in an order drawn from the seed. `board` is the
/// map's `board:` line; `width` and `height` are rounded up to even numbers (at least 12 × 8).
pub fn skirmish(
    seed: u64,
    board: tilewalk_path::Board,
    width: u32,
    height: u32,
    units: u32,
) -> String {
    let even = |n: u32| n + n % 2;
    let (width, height) = (even(width.max(12)), even(height.max(8)));
    let mut rng = StdRng::seed_from_u64(seed);
    let (coarse, fine) = (
        ValueNoise::new(&mut rng, width, height, 8),
        ValueNoise::new(&mut rng, width, height, 4),
    );
    let cover = ValueNoise::new(&mut rng, width, height, 5);
    let index = |p: Pos| (p.y * width + p.x) as usize;
    let mirror = |p: Pos| Pos::new(width - 1 - p.x, height - 1 - p.y);
    let mut glyphs = vec!['.'; (width * height) as usize];
    // Each tile and its mirror image get the glyph of whichever comes first in row order.
    for y in 0..height {
        for x in 0..width {
            let p = Pos::new(x, y);
            let m = mirror(p);
            if (m.y, m.x) < (p.y, p.x) {
                glyphs[index(p)] = glyphs[index(m)];
                continue;
            }
            let e = 0.6 * coarse.at(p) + 0.4 * fine.at(p);
            let c = cover.at(p);
            glyphs[index(p)] = match () {
                _ if e > 0.8 => '#',
                _ if e < 0.2 => '~',
                _ if e < 0.26 => ',',
                _ if c > 0.74 => 'T',
                _ if c > 0.6 => 'f',
                _ => '.',
            };
        }
    }
    // The deployment zones stay open: the western and eastern fifths.
    let zone = width / 5;
    let deploy: Vec<Pos> = (0..height)
        .flat_map(|y| (1..=zone).map(move |x| Pos::new(x, y)))
        .collect();
    for &p in &deploy {
        if matches!(glyphs[index(p)], '#' | '~' | 'T') {
            glyphs[index(p)] = '.';
            glyphs[index(mirror(p))] = '.';
        }
    }
    // Every tile a rider can stand on is reachable from every other: the ones cut off from
    // the west's centre turn to rock, mirrored; if the east's centre is among them, a road
    // crosses the middle rows first.
    let open = |g: char| !matches!(g, '#' | '~' | 'T');
    let reached = |glyphs: &[char]| {
        let start = Pos::new(zone / 2 + 1, height / 2);
        let mut seen = vec![false; glyphs.len()];
        let mut stack = vec![start];
        seen[index(start)] = true;
        while let Some(p) = stack.pop() {
            for next in board.neighbours(p, width, height) {
                if !seen[index(next)] && open(glyphs[index(next)]) {
                    seen[index(next)] = true;
                    stack.push(next);
                }
            }
        }
        seen
    };
    let mut seen = reached(&glyphs);
    if !seen[index(mirror(Pos::new(zone / 2 + 1, height / 2)))] {
        for x in 0..width {
            for y in [height / 2 - 1, height / 2] {
                glyphs[index(Pos::new(x, y))] = '=';
            }
        }
        seen = reached(&glyphs);
    }
    for (i, g) in glyphs.iter_mut().enumerate() {
        if !seen[i] && open(*g) {
            *g = '#';
        }
    }
    // Blue's tiles: the open ones of its zone nearest its centre; red's mirror them.
    let centre = Pos::new(zone / 2 + 1, height / 2);
    let mut tiles: Vec<Pos> = deploy
        .iter()
        .copied()
        .filter(|&p| seen[index(p)] && open(glyphs[index(p)]))
        .collect();
    tiles.sort_by_key(|p| {
        (
            p.x.abs_diff(centre.x).pow(2) + p.y.abs_diff(centre.y).pow(2),
            p.y,
            p.x,
        )
    });
    tiles.truncate(units.min(MAX_SKIRMISH_UNITS) as usize);
    // The class mix: a third horse and flyer, two thirds foot, a third of the foot archers.
    let mut roster: Vec<(&str, &str)> = (0..tiles.len())
        .map(|i| match i % 6 {
            0 | 3 => ("foot", ""),
            1 => ("horse", ""),
            2 => ("foot", " 2-3"),
            4 => ("flyer", ""),
            _ => ("foot", ""),
        })
        .collect();
    for i in (1..roster.len()).rev() {
        roster.swap(i, rng.random_range(0..=i));
    }
    let mut text = format!(
        "// Generated by `tilewalk gen --skirmish --seed {seed} --board {board} --width {width} --height {height} --units {units}`.\n\
         // A fair skirmish: the terrain is the same turned a half-turn; red mirrors blue.\n\
         board: {board}\n[terrain]\n"
    );
    for row in glyphs.chunks(width as usize) {
        text.extend(row);
        text.push('\n');
    }
    text.push_str("[units]\n");
    for (team, flip) in [("blue", false), ("red", true)] {
        for (i, (&p, (class, attack))) in tiles.iter().zip(&roster).enumerate() {
            let p = if flip { mirror(p) } else { p };
            let name = format!("{team}{}", i + 1);
            text.push_str(&format!(
                "{name:<8} {team:<5} {class:<6} {},{}{attack}\n",
                p.x, p.y
            ));
        }
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::map::MapAsset;

    #[test]
    fn every_size_generates_a_map_that_parses() {
        for width in (1..=40).chain([63, 64, 65]) {
            for height in [1, 2, 3, 8, 9, 10, 17, 40] {
                let text = generate(
                    u64::from(width * 100 + height),
                    width,
                    height,
                    DEFAULT_UNITS,
                );
                let map =
                    MapAsset::parse(&text).unwrap_or_else(|e| panic!("{width}x{height}: {e}"));
                assert_eq!((map.width, map.height), (width, height));
            }
        }
    }

    #[test]
    fn same_seed_same_map_and_it_parses() {
        let a = generate(7, 64, 48, DEFAULT_UNITS);
        assert_eq!(a, generate(7, 64, 48, DEFAULT_UNITS));
        assert_ne!(a, generate(8, 64, 48, DEFAULT_UNITS));
        let map = MapAsset::parse(&a).unwrap();
        assert_eq!((map.width, map.height), (64, 48));
        assert_eq!(map.units.len(), 6);
        for glyph in ['.', '=', '~', '#'] {
            assert!(a.contains(glyph), "a 64x48 map has some `{glyph}`");
        }
    }

    #[test]
    fn a_skirmish_is_the_same_for_both_sides() {
        for board in ["square-8", "square-4", "hex-odd-r", "hex-even-q"] {
            let board: tilewalk_path::Board = board.parse().unwrap();
            for seed in [1, 2, 3] {
                let text = skirmish(seed, board, 31, 17, 9);
                assert_eq!(
                    text,
                    skirmish(seed, board, 31, 17, 9),
                    "same seed, same map"
                );
                let map = MapAsset::parse(&text).unwrap_or_else(|e| panic!("{e}\n{text}"));
                assert_eq!((map.width, map.height, map.board), (32, 18, board));
                let mirror = |p: Pos| Pos::new(31 - p.x, 17 - p.y);
                for p in Grid::new(32, 18).unwrap().cells() {
                    assert_eq!(map.glyph(p), map.glyph(mirror(p)), "{p:?} is its mirror's");
                }
                let (blue, red) = map.units.split_at(9);
                assert_eq!(blue.len(), red.len());
                for (b, r) in blue.iter().zip(red) {
                    assert_eq!(b.team, bevy_tilewalk::Team::BLUE);
                    assert_eq!(r.team, bevy_tilewalk::Team::RED);
                    assert_eq!(r.pos, mirror(b.pos));
                    assert_eq!(
                        (b.class.to_string(), b.attack),
                        (r.class.to_string(), r.attack)
                    );
                    assert!(b.pos.x < 16, "blue deploys in the west");
                }
            }
        }
    }

    #[test]
    fn armies_stand_in_formation_on_open_ground() {
        let text = generate(5, 96, 64, 200);
        assert!(text.starts_with(
            "// Generated by `tilewalk gen --seed 5 --width 96 --height 64 --units 200`."
        ));
        let map = MapAsset::parse(&text).unwrap();
        assert_eq!(map.units.len(), 400);
        let mut tiles = std::collections::HashSet::new();
        for (i, unit) in map.units.iter().enumerate() {
            assert!(tiles.insert(unit.pos), "one unit a tile");
            assert_eq!(
                map.glyph(unit.pos),
                Some('.'),
                "{} on open ground",
                unit.name
            );
            let west = unit.team == bevy_tilewalk::Team::BLUE;
            assert_eq!(west, unit.pos.x < 48, "{} on its side", unit.name);
            assert_eq!(
                unit.class.to_string(),
                ["foot", "horse", "flyer"][i % 200 % 3]
            );
        }
        // A formation: the 200 tiles of a side are the open ones nearest its centre, so
        // they fit in a disc of about their own area (allowing for water and rock).
        let blue_centre = Pos::new(4, 32);
        let reach = map.units[..200]
            .iter()
            .map(|u| {
                u.pos.x.abs_diff(blue_centre.x).pow(2) + u.pos.y.abs_diff(blue_centre.y).pow(2)
            })
            .max()
            .unwrap();
        assert!(reach < 30 * 30, "{reach}");
        assert_eq!(map.units[0].name, "knight");
        assert_eq!(map.units[3].name, "blue4");
        // The default is the classic three a side.
        assert!(
            generate(5, 96, 64, DEFAULT_UNITS)
                .starts_with("// Generated by `tilewalk gen --seed 5 --width 96 --height 64`.")
        );
    }
}
