//! Units on screen: a `TileLayout` places each unit's `Transform` on its tile's centre and
//! along its step, on every board; its centres are bevy_ecs_tilemap's.

use bevy::prelude::*;
#[cfg(feature = "bevy_ecs_tilemap")]
use bevy_ecs_tilemap::prelude::{
    HexCoordSystem, IsoCoordSystem, TilePos, TilemapAnchor, TilemapGridSize, TilemapSize,
    TilemapTileSize, TilemapType,
};
use bevy_tilewalk::TileProjection;
#[cfg(feature = "bevy_ecs_tilemap")]
use bevy_tilewalk::board_of;
use bevy_tilewalk::path::Board;
use bevy_tilewalk::prelude::*;

use super::new_app;

const CLOSE: f32 = 1e-3;

/// Every layout the plugin draws: each board flat, and a square board drawn isometric; y up
/// and y down, the tile (0, 0) off the world's origin.
fn layouts() -> Vec<TileLayout> {
    let flat = Board::ALL
        .into_iter()
        .map(|board| TileLayout::new(board, Vec2::new(32.0, 37.0)));
    let all: Vec<TileLayout> = flat
        .chain([TileLayout::isometric(Vec2::new(64.0, 32.0))])
        .collect();
    all.iter()
        .flat_map(|&layout| {
            [false, true].map(|down| {
                layout
                    .with_y_down(down)
                    .with_origin(Vec2::new(100.0, -40.0))
            })
        })
        .collect()
}

/// The board a layout's map walks on.
fn board(layout: &TileLayout) -> Board {
    match layout.projection {
        TileProjection::Hex(hex) => Board::Hex(hex),
        _ => Board::default(),
    }
}

fn translation(app: &App, unit: Entity) -> Vec3 {
    app.world().get::<Transform>(unit).unwrap().translation
}

#[test]
fn a_walking_unit_is_placed_on_its_tile_then_between_then_on_the_next_on_every_board() {
    // (1, 1) and (2, 1) are neighbours on every board: east on square boards and `r`
    // layouts, one column over on `q` layouts.
    let (from, to) = (Pos::new(1, 1), Pos::new(2, 1));
    for layout in layouts() {
        let nav = Navigation::uniform(board(&layout), 4, 3, ClassSpec::new("foot", 2.0)).unwrap();
        let mut app = new_app(nav);
        let unit = app
            .world_mut()
            .spawn((Unit, Tile(from), Transform::from_xyz(0.0, 0.0, 5.0)))
            .id();
        app.world_mut().spawn(layout);
        app.update();
        let (a, b) = (layout.center(from), layout.center(to));
        assert!(a.distance(b) > 10.0, "{layout:?}: {a} {b}");
        assert_eq!(translation(&app, unit), a.extend(5.0), "{layout:?}");

        app.world_mut().entity_mut(unit).move_to(to);
        let mut between = 0;
        for _ in 0..120 {
            app.update();
            let here = translation(&app, unit);
            assert_eq!(here.z, 5.0, "{layout:?}: z is kept");
            let here = here.truncate();
            let on_segment = (a.distance(here) + here.distance(b) - a.distance(b)).abs() < CLOSE;
            assert!(on_segment, "{layout:?}: {here} off the step {a} -> {b}");
            if a.distance(here) > CLOSE && b.distance(here) > CLOSE {
                between += 1;
            }
            if app.world().get::<Tile>(unit) == Some(&Tile(to))
                && app.world().get::<Motion>(unit).unwrap().stride.is_none()
            {
                break;
            }
        }
        // Half a second's step at 60 updates a second: about 30 updates between.
        assert!(
            between >= 20,
            "{layout:?}: {between} updates between the tiles"
        );
        assert!(
            translation(&app, unit).truncate().distance(b) < CLOSE,
            "{layout:?}: {} is not on {b}",
            translation(&app, unit)
        );
    }
}

#[test]
fn a_changed_layout_moves_units_at_rest_and_two_layouts_place_none() {
    let nav = Navigation::uniform(Board::default(), 4, 3, ClassSpec::new("foot", 2.0)).unwrap();
    let mut app = new_app(nav);
    let unit = app
        .world_mut()
        .spawn((Unit, Tile(Pos::new(3, 2)), Transform::default()))
        .id();
    let layout = app.world_mut().spawn(TileLayout::square(10.0)).id();
    app.update();
    assert_eq!(translation(&app, unit), Vec3::new(30.0, 20.0, 0.0));
    app.world_mut()
        .entity_mut(layout)
        .insert(TileLayout::square(10.0).with_y_down(true));
    app.update();
    assert_eq!(translation(&app, unit), Vec3::new(30.0, -20.0, 0.0));
    // A second map's layout: which one places the unit is not known, so none does.
    app.world_mut().spawn(TileLayout::square(50.0));
    app.world_mut()
        .entity_mut(unit)
        .insert(Tile(Pos::new(1, 2)));
    app.update();
    assert_eq!(translation(&app, unit), Vec3::new(30.0, -20.0, 0.0));
    // The first one gone, the second one places the unit.
    app.world_mut().entity_mut(layout).despawn();
    app.update();
    assert_eq!(translation(&app, unit), Vec3::new(50.0, 100.0, 0.0));
}

#[cfg(feature = "bevy_ecs_tilemap")]
#[test]
fn tilemap_layouts_put_centres_where_bevy_ecs_tilemap_draws_its_tiles() {
    let size = TilemapSize::new(7, 6);
    let grid = TilemapGridSize::new(32.0, 37.0);
    let tile = TilemapTileSize::new(30.0, 36.0);
    let offset_hexes = [
        HexCoordSystem::RowOdd,
        HexCoordSystem::RowEven,
        HexCoordSystem::ColumnOdd,
        HexCoordSystem::ColumnEven,
    ];
    let drawn = std::iter::once(TilemapType::Square)
        .chain(offset_hexes.map(TilemapType::Hexagon))
        .chain([TilemapType::Isometric(IsoCoordSystem::Diamond)]);
    let anchors = [
        TilemapAnchor::None,
        TilemapAnchor::Center,
        TilemapAnchor::TopLeft,
    ];
    for map_type in drawn {
        for anchor in &anchors {
            let layout = TileLayout::from_tilemap(&map_type, &size, &grid, &tile, anchor)
                .unwrap_or_else(|| panic!("{map_type:?} has a layout"));
            // Its projection draws the board whose neighbours the map type has.
            if let Some(board) = board_of(&map_type) {
                assert_eq!(
                    layout.projection,
                    TileProjection::from(board),
                    "{map_type:?}"
                );
            }
            for (x, y) in (0..size.x).flat_map(|x| (0..size.y).map(move |y| (x, y))) {
                let theirs =
                    TilePos::new(x, y).center_in_world(&size, &grid, &tile, &map_type, anchor);
                let ours = layout.center(Pos::new(x, y));
                assert!(
                    ours.distance(theirs) < CLOSE,
                    "{map_type:?} {anchor:?} ({x}, {y}): {ours} != {theirs}"
                );
            }
        }
    }
    for undrawn in [
        TilemapType::Hexagon(HexCoordSystem::Row),
        TilemapType::Hexagon(HexCoordSystem::Column),
        TilemapType::Isometric(IsoCoordSystem::Staggered),
    ] {
        let layout = TileLayout::from_tilemap(&undrawn, &size, &grid, &tile, &TilemapAnchor::None);
        assert_eq!(layout, None, "{undrawn:?}");
    }
}
