//! Board shapes in the game: what is drawn and what is searched agree on hex boards (the
//! core's neighbours against bevy_ecs_tilemap's own), and real-time play and tactics follow
//! the board (4-way, 8-way and hex moves, step times, zones of control, attack reach).

use std::collections::BTreeSet;

use bevy_ecs_tilemap::helpers::hex_grid::neighbors::HexNeighbors;
use bevy_ecs_tilemap::prelude::*;
use bevy_tilewalk::tactics::{PerClass, TacticsRules, ZoneOfControl, with_board};
use tilewalk::convert::{Geometry, TILE_SIZE};
use tilewalk::tactics::Mode;
use tilewalk_path::{Board, HexLayout};

use super::*;

#[test]
fn the_cores_hex_neighbours_are_the_tilemaps_on_every_layout_and_both_parities() {
    for layout in HexLayout::ALL {
        for (width, height) in [(6, 5), (6, 4), (5, 6), (7, 7), (1, 2)] {
            let geometry = Geometry::new(Board::Hex(layout), width, height);
            let TilemapType::Hexagon(system) = geometry.map_type() else {
                panic!("{layout:?} is drawn as hexes");
            };
            for y in 0..height {
                for x in 0..width {
                    let pos = Pos::new(x, y);
                    let core: BTreeSet<Pos> =
                        Board::Hex(layout).neighbours(pos, width, height).collect();
                    let drawn: BTreeSet<Pos> = HexNeighbors::get_neighboring_positions(
                        &geometry.tile_pos(pos),
                        &geometry.map_size(),
                        &system,
                    )
                    .iter()
                    .map(|t| Pos::new(t.x, height - 1 - t.y))
                    .collect();
                    assert_eq!(core, drawn, "{layout:?} {width}x{height} at {pos}");
                    // And on screen they touch: every neighbour's centre is one hex across.
                    for n in core {
                        let gap = geometry.center(pos).distance(geometry.center(n));
                        assert!((gap - TILE_SIZE).abs() < 0.5, "{layout:?} {pos}-{n}: {gap}");
                    }
                }
            }
        }
    }
}

#[test]
fn the_plugins_tilemap_boards_have_the_tilemaps_neighbours_with_tile_positions_as_cells() {
    use bevy_tilewalk::{ClassSpec, Navigation, board_of};
    let systems = [
        HexCoordSystem::RowOdd,
        HexCoordSystem::RowEven,
        HexCoordSystem::ColumnOdd,
        HexCoordSystem::ColumnEven,
    ];
    for system in systems {
        let board = board_of(&TilemapType::Hexagon(system)).expect("an offset hex layout");
        for (width, height) in [(6, 5), (6, 4), (5, 6), (1, 2)] {
            let size = TilemapSize::new(width, height);
            for y in 0..height {
                for x in 0..width {
                    let core: BTreeSet<Pos> =
                        board.neighbours(Pos::new(x, y), width, height).collect();
                    let drawn: BTreeSet<Pos> = HexNeighbors::get_neighboring_positions(
                        &TilePos::new(x, y),
                        &size,
                        &system,
                    )
                    .iter()
                    .map(|t| Pos::new(t.x, t.y))
                    .collect();
                    assert_eq!(core, drawn, "{system:?} {width}x{height} at ({x},{y})");
                }
            }
        }
    }
    assert_eq!(board_of(&TilemapType::Square), Some(Board::default()));
    assert_eq!(board_of(&TilemapType::Hexagon(HexCoordSystem::Row)), None);
    assert_eq!(
        board_of(&TilemapType::Isometric(IsoCoordSystem::Diamond)),
        None
    );

    // A navigation from a tile storage: each tile's cost from its own entity.
    let mut world = World::new();
    let size = TilemapSize::new(3, 2);
    let mut storage = TileStorage::empty(size);
    for x in 0..3 {
        for y in 0..2 {
            let tile = world.spawn(TileTextureIndex(x + 3 * y)).id();
            storage.set(&TilePos::new(x, y), tile);
        }
    }
    let classes = vec![ClassSpec::new("foot", 3.0)];
    let nav = Navigation::from_tilemap(&storage, Board::default(), classes, |_, tile| {
        let index = world.get::<TileTextureIndex>(tile?)?.0;
        (index != 4).then_some(f64::from(index + 1))
    })
    .unwrap();
    assert_eq!((nav.width(), nav.height()), (3, 2));
    let foot = nav.class("foot").unwrap();
    assert_eq!(nav.grid(foot).cost(Pos::new(2, 0)), Some(3.0));
    assert_eq!(nav.grid(foot).cost(Pos::new(2, 1)), Some(6.0));
    assert_eq!(
        nav.grid(foot).cost(Pos::new(1, 1)),
        None,
        "tile 4 is a wall"
    );
}

const HEX_FIELD: &str = "\
board: hex-odd-r
[terrain]
........
..,,,,..
........
[units]
a blue foot 0,1
b blue foot 0,0
c blue foot 0,2
";

#[test]
fn units_walk_hex_steps_in_cost_over_speed_and_a_group_gets_distinct_tiles() {
    let mut app = app(HEX_FIELD);
    order(&mut app, &["a"], Pos::new(7, 1), false);
    app.update();
    let planned = path(&mut app, "a").unwrap();
    // Around the mud: odd row 1 is shifted right, so (0,1) goes (1,1), up to row 0, along it
    // and down again: 8 steps, each one hex side long, on grass.
    assert_eq!(planned.cells.len() - 1, 8, "{:?}", planned.cells);
    assert_eq!(planned.cost, 8.0);
    for w in planned.cells.windows(2) {
        assert!(
            Board::Hex(HexLayout::OddR)
                .neighbours(w[0], 8, 3)
                .any(|n| n == w[1])
        );
    }
    run_until_idle(&mut app, 60.0);
    let (_, seconds) = arrival(&app, "a").expect("a arrived");
    assert!((seconds - 8.0 / SPEED).abs() < 1e-6, "{seconds}");

    order(&mut app, &["a", "b", "c"], Pos::new(3, 0), false);
    run_until_idle(&mut app, 60.0);
    let tiles: BTreeSet<Pos> = ["a", "b", "c"].iter().map(|n| tile(&mut app, n)).collect();
    assert_eq!(tiles.len(), 3, "{tiles:?}");
    assert!(tiles.contains(&Pos::new(3, 0)));
}

#[test]
fn four_way_boards_never_step_diagonally() {
    let mut app = app("board: square-4\n[terrain]\n.....\n.....\n[units]\nk blue foot 0,0\n");
    order(&mut app, &["k"], Pos::new(4, 1), false);
    app.update();
    let walked = path(&mut app, "k").unwrap();
    assert!(
        walked
            .cells
            .windows(2)
            .all(|w| w[0].x.abs_diff(w[1].x) + w[0].y.abs_diff(w[1].y) == 1)
    );
    assert_eq!(walked.cost, 5.0);
    run_until_idle(&mut app, 30.0);
    let (_, seconds) = arrival(&app, "k").unwrap();
    assert!((seconds - 5.0 / SPEED).abs() < 1e-6, "{seconds}");
}

fn tactics(map: &str) -> App {
    let mut app = app(map);
    app.insert_resource(TacticsRules {
        movement_points: PerClass::from([("*", 9.0)]),
        attack_range: PerClass::from([("foot", (2, 3)), ("*", (1, 1))]),
        zone_of_control: ZoneOfControl::EndsMove,
        ignore_zone_of_control: Vec::new(),
        ..TacticsRules::default()
    });
    app.world_mut()
        .resource_mut::<NextState<Mode>>()
        .set(Mode::Tactics);
    app.update();
    app
}

/// Tile distance by hand, independent of the core: Manhattan, Chebyshev, or odd-r hexes
/// through cube coordinates.
fn steps(board: &str, a: Pos, b: Pos) -> u32 {
    let (dx, dy) = (a.x.abs_diff(b.x), a.y.abs_diff(b.y));
    match board {
        "square-4" => dx + dy,
        "square-8" => dx.max(dy),
        _ => {
            let cube = |p: Pos| {
                let (x, y) = (i64::from(p.x), i64::from(p.y));
                let q = x - (y - (y & 1)) / 2;
                (q, y, -q - y)
            };
            let (a, b) = (cube(a), cube(b));
            ((a.0 - b.0)
                .abs()
                .max((a.1 - b.1).abs())
                .max((a.2 - b.2).abs())) as u32
        }
    }
}

#[test]
fn zones_of_control_and_attack_reach_follow_the_board() {
    let (knight, orc) = (Pos::new(0, 2), Pos::new(4, 2));
    for (board, zone_size) in [("square-4", 4), ("square-8", 8), ("hex-odd-r", 6)] {
        let mut app = tactics(&format!(
            "board: {board}\n[terrain]\n.........\n.........\n.........\n.........\n.........\n[units]\nknight blue foot 0,2\norc red foot 4,2\n"
        ));
        let knight_unit = unit(&mut app, "knight");
        let (zone, reach) = with_board(app.world_mut(), |b, context| {
            let piece = b.piece(knight_unit).unwrap().clone();
            let range = b.range(context, &piece);
            // The orc's zone: the tiles next to it, entered but never left.
            let zone: BTreeSet<Pos> = range
                .cells()
                .iter()
                .filter(|r| steps(board, r.pos, orc) == 1)
                .inspect(|r| {
                    assert!(
                        range.cells().iter().all(|o| o.parent != Some(r.pos)),
                        "{board}: a move goes on from {} next to the orc",
                        r.pos
                    );
                })
                .map(|r| r.pos)
                .collect();
            let standing = b.attack_tiles(&piece, &tilewalk_path::Range::default());
            (zone, standing)
        })
        .unwrap();
        assert_eq!(zone.len(), zone_size, "{board}: {zone:?}");
        let expected: BTreeSet<Pos> = (0..5)
            .flat_map(|y| (0..9).map(move |x| Pos::new(x, y)))
            .filter(|&t| (2..=3).contains(&steps(board, knight, t)))
            .collect();
        assert_eq!(reach, expected, "{board}");
    }
}
