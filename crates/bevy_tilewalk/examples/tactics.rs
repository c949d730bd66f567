//! bevy_tilewalk's tactics queries on a hex board: left-click a blue unit to see its movement
//! range (tinted) and the tiles it could attack from there (red), hover a tile for the path
//! preview, left-click a tile of the range to move there; Enter or a right click ends the turn
//! and red closes in.
//!
//! The textures are the crate's `assets/textures`.
//!
//! `cargo run --example tactics` (from the repository's root)

use bevy::prelude::*;
use bevy_ecs_tilemap::prelude::*;
use bevy_tilewalk::board_of;
use bevy_tilewalk::path::SearchContext;
use bevy_tilewalk::prelude::*;
use bevy_tilewalk::tactics::{
    EndTurn, PerClass, PieceQuery, TacticsBoard, TacticsMove, TacticsRules, TilewalkTacticsPlugin,
};

const SIZE: TilemapSize = TilemapSize { x: 14, y: 10 };
// Pointy-top hexes, 32 across their flats.
const TILE: TilemapTileSize = TilemapTileSize { x: 32.0, y: 37.0 };
const MAP: TilemapType = TilemapType::Hexagon(HexCoordSystem::RowOdd);
const GRASS: u32 = 0;
const FOREST: u32 = 2;
const ROCK: u32 = 6;

/// The unit the player has selected (the example's own marker: selection is the game's).
#[derive(Component)]
struct Selected;

fn main() {
    App::new()
        .add_plugins((
            DefaultPlugins.set(ImagePlugin::default_nearest()),
            TilemapPlugin,
            TilewalkPlugin::default(),
            TilewalkTacticsPlugin,
        ))
        .insert_resource(TacticsRules {
            movement_points: PerClass::from([("foot", 4.0), ("horse", 6.0)]),
            attack_range: PerClass::from([("*", (1, 1))]),
            ..default()
        })
        .add_systems(Startup, setup)
        .add_systems(Update, (click, end_turn).before(TilewalkSystems::Turns))
        .add_systems(Update, show.after(TilewalkSystems::Move))
        .run();
}

fn terrain(x: u32, y: u32) -> u32 {
    match (x, y) {
        (6, 2..=7) => ROCK,
        (3..=4, 4..=8) | (9..=10, 0..=3) => FOREST,
        _ => GRASS,
    }
}

fn setup(mut commands: Commands, server: Res<AssetServer>) {
    commands.spawn(Camera2d);
    let tilemap = commands.spawn_empty().id();
    let mut storage = TileStorage::empty(SIZE);
    for x in 0..SIZE.x {
        for y in 0..SIZE.y {
            let position = TilePos { x, y };
            let tile = commands
                .spawn(TileBundle {
                    position,
                    tilemap_id: TilemapId(tilemap),
                    texture_index: TileTextureIndex(terrain(x, y)),
                    ..default()
                })
                .id();
            storage.set(&position, tile);
        }
    }
    // Foot soldiers pay 2 in forest, riders 3; nobody crosses rock. A `Pos` is a `TilePos`.
    let classes = vec![ClassSpec::new("foot", 3.0), ClassSpec::new("horse", 5.0)];
    let board = board_of(&MAP).expect("offset hex maps have a board");
    let nav = Navigation::from_fn(board, SIZE.x, SIZE.y, classes, |class, p| {
        match (terrain(p.x, p.y), class.name.as_str()) {
            (ROCK, _) => None,
            (FOREST, "foot") => Some(2.0),
            (FOREST, _) => Some(3.0),
            _ => Some(1.0),
        }
    })
    .expect("a map of known costs");
    let horse = nav.class("horse").expect("declared above");
    commands.insert_resource(nav);
    // Where the map draws its hexes: the plugin places the units' sprites there.
    let anchor = TilemapAnchor::Center;
    let layout = TileLayout::from_tilemap(&MAP, &SIZE, &TILE.into(), &TILE, &anchor)
        .expect("offset hex maps have a layout");
    commands.entity(tilemap).insert((
        layout,
        TilemapBundle {
            grid_size: TILE.into(),
            map_type: MAP,
            size: SIZE,
            storage,
            texture: TilemapTexture::Single(server.load("textures/terrain_hex_pointy.png")),
            tile_size: TILE,
            anchor,
            ..default()
        },
    ));
    let units = [
        (
            Team::BLUE,
            MovementClass(0),
            (1, 2),
            "textures/unit_foot.png",
        ),
        (Team::BLUE, horse, (1, 6), "textures/unit_horse.png"),
        (
            Team::RED,
            MovementClass(0),
            (12, 3),
            "textures/unit_foot.png",
        ),
        (
            Team::RED,
            MovementClass(0),
            (11, 7),
            "textures/unit_foot.png",
        ),
    ];
    for (team, class, (x, y), image) in units {
        let color = match team {
            Team::BLUE => Color::srgb(0.5, 0.7, 1.0),
            _ => Color::srgb(1.0, 0.45, 0.4),
        };
        commands.spawn((
            Unit,
            team,
            class,
            Tile(Pos::new(x, y)),
            Sprite {
                color,
                ..Sprite::from_image(server.load(image))
            },
            // Above the map; the plugin sets x and y from the tile.
            Transform::from_xyz(0.0, 0.0, 1.0),
        ));
    }
}

fn hovered(window: &Window, camera: (&Camera, &GlobalTransform)) -> Option<Pos> {
    let world = camera
        .0
        .viewport_to_world_2d(camera.1, window.cursor_position()?)
        .ok()?;
    let tile = TilePos::from_world_pos(
        &world,
        &SIZE,
        &TILE.into(),
        &TILE,
        &MAP,
        &TilemapAnchor::Center,
    )?;
    Some(Pos::new(tile.x, tile.y))
}

/// Left click: a blue unit selects it; a tile of the selected unit's range moves it there.
fn click(
    mut commands: Commands,
    buttons: Res<ButtonInput<MouseButton>>,
    window: Single<&Window>,
    camera: Single<(&Camera, &GlobalTransform)>,
    units: Query<(Entity, &Tile, &Team, Has<Selected>), With<Unit>>,
    mut moves: MessageWriter<TacticsMove>,
) {
    let Some(at) = hovered(&window, *camera).filter(|_| buttons.just_pressed(MouseButton::Left))
    else {
        return;
    };
    let clicked = units.iter().find(|u| u.1.0 == at && *u.2 == Team::BLUE);
    match clicked {
        Some((unit, ..)) => {
            for (other, ..) in &units {
                commands.entity(other).remove::<Selected>();
            }
            commands.entity(unit).insert(Selected);
        }
        None => {
            if let Some((unit, ..)) = units.iter().find(|u| u.3) {
                moves.write(TacticsMove::new(unit, at));
            }
        }
    }
}

fn end_turn(
    keys: Res<ButtonInput<KeyCode>>,
    buttons: Res<ButtonInput<MouseButton>>,
    mut ends: MessageWriter<EndTurn>,
) {
    if keys.just_pressed(KeyCode::Enter) || buttons.just_pressed(MouseButton::Right) {
        ends.write(EndTurn);
    }
}

/// The selected unit's range (white), the tiles it could attack (red) and the path to the
/// hovered tile (yellow), from the plugin's tactics board.
fn show(
    mut gizmos: Gizmos,
    nav: Res<Navigation>,
    (rules, sides): (Res<TacticsRules>, Res<Sides>),
    pieces: PieceQuery,
    selected: Query<Entity, With<Selected>>,
    window: Single<&Window>,
    camera: Single<(&Camera, &GlobalTransform)>,
    layout: Single<&TileLayout>,
    mut context: Local<SearchContext>,
) {
    let center = |p: Pos| layout.center(p);
    let board = TacticsBoard::new(&nav, &rules, &sides, &pieces);
    let Some(piece) = selected.iter().next().and_then(|e| board.piece(e)) else {
        return;
    };
    let range = board.range(&mut context, piece);
    for reached in range.cells().iter().filter(|r| r.can_stop) {
        gizmos.circle_2d(center(reached.pos), 12.0, Color::WHITE);
    }
    for tile in board.attack_tiles(piece, &range) {
        gizmos.circle_2d(center(tile), 6.0, Color::srgb(1.0, 0.2, 0.2));
    }
    if let Some(path) = hovered(&window, *camera).and_then(|at| range.path_to(at)) {
        let points = path.cells.iter().map(|&p| center(p));
        gizmos.linestrip_2d(points, Color::srgb(1.0, 0.9, 0.2));
    }
}
