//! The interop examples' map readers (`examples/with_bevy_ecs_tiled`, `with_bevy_ecs_ldtk`)
//! on the maps the examples open, loaded by the peer crates' own readers: `tiled` as
//! bevy_ecs_tiled re-exports it, bevy_ecs_ldtk's `LdtkJson`. Costs are checked cell by cell
//! against an independent read of each file's tiles and a table written here; then a unit
//! walks across the river in a headless app, along the cheapest way.

#[path = "../../examples/with_bevy_ecs_ldtk/navigation.rs"]
mod from_ldtk;
#[path = "../../examples/with_bevy_ecs_tiled/navigation.rs"]
mod from_tiled;
#[path = "../../examples/interop/terrain.rs"]
mod terrain;

use bevy::math::Vec2;
use bevy_ecs_ldtk::ldtk::LdtkJson;
use bevy_ecs_tiled::prelude::tiled::Loader;
use bevy_tilewalk::path::Grid;
use bevy_tilewalk::prelude::*;

use super::{dijkstra, new_app, order, run, spawn, walked};
use terrain::UnitStart;

/// Each class's cost (foot, horse, flyer) of each terrain, as `assets/terrain.ron` has them.
fn expected_cost(terrain: &str, class: usize) -> Option<f64> {
    let costs = match terrain {
        "grass" => [Some(1.0), Some(0.75), Some(1.0)],
        "road" => [Some(1.0), Some(0.5), Some(1.0)],
        "forest" => [Some(2.0), Some(3.0), Some(1.0)],
        "thicket" => [None, None, Some(1.0)],
        "mud" => [Some(3.0), Some(4.0), Some(1.0)],
        "water" => [Some(6.0), None, Some(1.0)],
        // The ford of `square.tmx`: a water tile with its own `foot` and `horse` costs.
        "ford" => [Some(2.0), Some(3.0), Some(1.0)],
        "rock" => [None, None, None],
        other => panic!("no terrain {other}"),
    };
    costs[class]
}

/// The rows of numbers after `start` up to the next `]` or `<`, as text, top row first.
fn number_rows(text: &str, start: &str) -> Vec<Vec<u32>> {
    let from = text.find(start).expect("the marker") + start.len();
    let block = &text[from..];
    let block = &block[..block.find(['<', ']']).expect("the end of the data")];
    block
        .lines()
        .map(|line| line.trim().trim_end_matches(','))
        .filter(|line| !line.is_empty())
        .map(|line| line.split(',').map(|n| n.trim().parse().unwrap()).collect())
        .collect()
}

/// Checks every cell of every class against `terrain_at(column, row)` (row 0 at the top).
fn check_costs(nav: &Navigation, terrain_at: impl Fn(usize, usize) -> &'static str) {
    let height = nav.height();
    for (class, name) in ["foot", "horse", "flyer"].into_iter().enumerate() {
        let grid = nav.grid(nav.class(name).unwrap());
        for p in grid.cells() {
            let terrain = terrain_at(p.x as usize, (height - 1 - p.y) as usize);
            let expected = expected_cost(terrain, class);
            assert_eq!(grid.cost(p), expected, "{name} at {p} ({terrain})");
        }
    }
}

/// The grid of `class` (an index of foot, horse, flyer) built from the independent read.
fn expected_grid(
    width: u32,
    height: u32,
    class: usize,
    terrain_at: impl Fn(usize, usize) -> &'static str,
) -> Grid {
    Grid::from_fn(width, height, |p| {
        expected_cost(terrain_at(p.x as usize, (height - 1 - p.y) as usize), class)
    })
    .unwrap()
}

/// Sends `unit` of `class` from its tile to `goal` and checks its path: the cheapest on the
/// independently built grid, walked in its cost over the class's speed. Returns the path.
fn walk(nav: &Navigation, class: &str, from: Pos, goal: Pos, expected: &Grid) -> Vec<Pos> {
    let class = nav.class(class).unwrap();
    let mut app = new_app(nav.clone());
    let unit = spawn(&mut app, class, (from.x, from.y));
    order(&mut app, &[unit], (goal.x, goal.y));
    app.update();
    let path = app.world().get::<Path>(unit).expect("a path").clone();
    let best = dijkstra(expected, nav.board(), from, goal).expect("a way");
    assert!((path.cost - best).abs() < 1e-9, "{} vs {best}", path.cost);
    assert!((walked(expected, nav.board(), &path.cells) - best).abs() < 1e-9);
    let arrivals = run(&mut app, 30.0);
    let arrived = arrivals
        .iter()
        .find(|a| a.unit == unit)
        .expect("it arrives");
    assert_eq!(arrived.tile, goal);
    let seconds = best / nav.speed(class);
    assert!(
        (arrived.seconds - seconds).abs() < 1e-6,
        "{} vs {seconds}",
        arrived.seconds
    );
    path.cells
}

fn unit(name: &str, class: &str, team: Team, tile: (u32, u32)) -> UnitStart {
    UnitStart {
        name: name.into(),
        class: class.into(),
        team,
        tile: Pos::new(tile.0, tile.1),
    }
}

#[test]
fn a_bevy_ecs_tiled_map_gives_each_tile_its_class_or_own_costs_and_a_knight_fords_the_river() {
    const MAP: &str = "assets/tiled/square.tmx";
    let map = Loader::new().load_tmx_map(MAP).unwrap();
    let read = from_tiled::navigation(&map).unwrap();
    let nav = &read.navigation;
    assert_eq!((nav.width(), nav.height()), (16, 10));
    assert_eq!(read.cell_size, Vec2::splat(32.0));

    // The map's one layer, read as text; the tileset's tiles in id order (terrain.tsx).
    let text = std::fs::read_to_string(MAP).unwrap();
    let gids = number_rows(&text, "<data encoding=\"csv\">");
    let tiles = [
        "grass", "road", "forest", "thicket", "mud", "water", "rock", "ford",
    ];
    let terrain_at = |column: usize, row: usize| tiles[gids[row][column] as usize - 1];
    check_costs(nav, terrain_at);

    let blue = Team::BLUE;
    let red = Team::RED;
    assert_eq!(
        read.units,
        [
            unit("knight", "foot", blue, (0, 6)),
            unit("lancer", "horse", blue, (0, 1)),
            unit("griffin", "flyer", blue, (1, 9)),
            unit("brute", "foot", red, (15, 6)),
            unit("raider", "horse", red, (15, 1)),
            unit("archer", "foot", red, (14, 3)),
        ]
    );

    // Straight along its row: eleven grass tiles and the two ford tiles at 2 each cost 15;
    // any other way is longer, or wades at 6.
    let foot = expected_grid(16, 10, 0, terrain_at);
    let cells = walk(nav, "foot", Pos::new(0, 6), Pos::new(13, 6), &foot);
    assert_eq!(cells, (0..=13).map(|x| Pos::new(x, 6)).collect::<Vec<_>>());
    let cost = dijkstra(&foot, nav.board(), Pos::new(0, 6), Pos::new(13, 6));
    assert_eq!(cost, Some(15.0));
}

#[test]
fn a_bevy_ecs_ldtk_level_gives_each_cell_its_int_grid_terrain_and_a_rider_takes_the_bridge() {
    const PROJECT: &str = "assets/ldtk/valley.ldtk";
    let text = std::fs::read_to_string(PROJECT).unwrap();
    let project: LdtkJson = serde_json::from_str(&text).unwrap();
    let read = from_ldtk::navigation(&project, &project.levels[0]).unwrap();
    let nav = &read.navigation;
    assert_eq!((nav.width(), nav.height()), (16, 10));
    assert_eq!(read.cell_size, Vec2::splat(32.0));

    // The IntGrid CSV as text, its values named in the layer's definition order.
    let csv = number_rows(&text, "\"intGridCsv\": [\n");
    let values = ["grass", "road", "forest", "thicket", "mud", "water", "rock"];
    let terrain_at = |column: usize, row: usize| values[csv[row][column] as usize - 1];
    check_costs(nav, terrain_at);

    let blue = Team::BLUE;
    let red = Team::RED;
    assert_eq!(
        read.units,
        [
            unit("knight", "foot", blue, (0, 6)),
            unit("lancer", "horse", blue, (0, 1)),
            unit("griffin", "flyer", blue, (1, 9)),
            unit("brute", "foot", red, (15, 6)),
            unit("raider", "horse", red, (15, 1)),
        ]
    );

    // Horses cannot enter water: the lancer crosses by the bridge, row 8 of the file.
    let horse = expected_grid(16, 10, 1, terrain_at);
    let cells = walk(nav, "horse", Pos::new(0, 1), Pos::new(13, 1), &horse);
    assert!(cells.contains(&Pos::new(9, 1)) && cells.contains(&Pos::new(10, 1)));
}
