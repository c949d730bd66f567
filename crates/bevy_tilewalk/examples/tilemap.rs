//! bevy_tilewalk on a bevy_ecs_tilemap map built in code: the navigation comes from the
//! map's `TileStorage` and a cost per tile texture, and the map's `TileLayout` from its size,
//! grid and type, so the plugin places the units' sprites as they walk; left-click a unit to
//! select it, right-click a tile to send it there. Units walk slower through forest and water.
//! The debug plugin draws each path, its goal, refused orders and the cells the last search
//! expanded, with the same layout. The textures are the crate's `assets/textures`.
//!
//! `cargo run --example tilemap` (from the repository's root)

use bevy::platform::collections::HashMap;
use bevy::prelude::*;
use bevy_ecs_tilemap::prelude::*;
use bevy_tilewalk::board_of;
use bevy_tilewalk::prelude::*;

/// The units the player has selected (the example's own marker: selection is the game's).
#[derive(Component)]
struct Selected;

const SIZE: TilemapSize = TilemapSize { x: 20, y: 12 };
const TILE: TilemapTileSize = TilemapTileSize { x: 32.0, y: 32.0 };
// Tiles of the terrain atlas and what entering them costs: grass, forest, water, rock.
const GRASS: u32 = 0;
const FOREST: u32 = 2;
const WATER: u32 = 5;
const ROCK: u32 = 6;

fn main() {
    App::new()
        .add_plugins((
            DefaultPlugins.set(ImagePlugin::default_nearest()),
            TilemapPlugin,
            TilewalkPlugin::default(),
            TilewalkDebugPlugin::default(),
        ))
        .add_systems(Startup, setup)
        .add_systems(Update, click.before(TilewalkSystems::Plan))
        .add_systems(Update, color.after(TilewalkSystems::Move))
        .run();
}

fn cost(texture: u32) -> Option<f64> {
    match texture {
        GRASS => Some(1.0),
        FOREST => Some(2.0),
        WATER => Some(5.0),
        _ => None,
    }
}

fn setup(mut commands: Commands, server: Res<AssetServer>) {
    commands.spawn(Camera2d);
    let tilemap = commands.spawn_empty().id();
    let mut storage = TileStorage::empty(SIZE);
    let mut textures = HashMap::new();
    for x in 0..SIZE.x {
        for y in 0..SIZE.y {
            let texture = match (x, y) {
                (9..=10, 2..=11) => WATER,
                (4..=6, 0..=5) => FOREST,
                (14, 0..=8) => ROCK,
                _ => GRASS,
            };
            let position = TilePos { x, y };
            let tile = commands
                .spawn(TileBundle {
                    position,
                    tilemap_id: TilemapId(tilemap),
                    texture_index: TileTextureIndex(texture),
                    ..default()
                })
                .id();
            storage.set(&position, tile);
            textures.insert(tile, texture);
        }
    }
    // One movement class; a tile's cost follows its texture.
    let map_type = TilemapType::Square;
    let board = board_of(&map_type).expect("square maps have a board");
    let classes = vec![ClassSpec::new("foot", 4.0)];
    let nav = Navigation::from_tilemap(&storage, board, classes, |_, tile| {
        tile.and_then(|t| cost(textures[&t]))
    })
    .expect("a map of known costs");
    commands.insert_resource(nav);
    // Where the map draws its tiles: the plugin puts the units' sprites there.
    let anchor = TilemapAnchor::Center;
    let layout = TileLayout::from_tilemap(&map_type, &SIZE, &TILE.into(), &TILE, &anchor)
        .expect("square maps have a layout");
    commands.entity(tilemap).insert((
        layout,
        TilemapBundle {
            grid_size: TILE.into(),
            map_type,
            size: SIZE,
            storage,
            texture: TilemapTexture::Single(server.load("textures/terrain.png")),
            tile_size: TILE,
            anchor,
            ..default()
        },
    ));
    for (x, y) in [(1, 1), (1, 5), (2, 9)] {
        commands.spawn((
            Unit,
            Tile(Pos::new(x, y)),
            Sprite::from_image(server.load("textures/unit_foot.png")),
            // Above the map; the plugin sets x and y from the tile.
            Transform::from_xyz(0.0, 0.0, 1.0),
        ));
    }
}

/// The tile under the cursor, if any.
fn tile_under_cursor(window: &Window, camera: (&Camera, &GlobalTransform)) -> Option<Pos> {
    let cursor = window.cursor_position()?;
    let world = camera.0.viewport_to_world_2d(camera.1, cursor).ok()?;
    let tile = TilePos::from_world_pos(
        &world,
        &SIZE,
        &TILE.into(),
        &TILE,
        &TilemapType::Square,
        &TilemapAnchor::Center,
    )?;
    Some(Pos::new(tile.x, tile.y))
}

/// Left click selects the unit on a tile (or none); right click sends the selected there.
fn click(
    mut commands: Commands,
    buttons: Res<ButtonInput<MouseButton>>,
    window: Single<&Window>,
    camera: Single<(&Camera, &GlobalTransform)>,
    units: Query<(Entity, &Tile, Has<Selected>), With<Unit>>,
    mut orders: MessageWriter<MoveOrder>,
) {
    let Some(at) = tile_under_cursor(&window, *camera) else {
        return;
    };
    if buttons.just_pressed(MouseButton::Left) {
        for (unit, tile, selected) in &units {
            match (tile.0 == at, selected) {
                (true, _) => commands.entity(unit).insert(Selected),
                (false, true) => commands.entity(unit).remove::<Selected>(),
                (false, false) => continue,
            };
        }
    }
    if buttons.just_pressed(MouseButton::Right) {
        let selected = units.iter().filter(|u| u.2).map(|u| u.0);
        orders.write(MoveOrder::new(selected, at));
    }
}

/// The selected units' sprites are yellow.
fn color(mut units: Query<(Has<Selected>, &mut Sprite), With<Unit>>) {
    for (selected, mut sprite) in &mut units {
        sprite.color = if selected {
            Color::srgb(1.0, 0.9, 0.2)
        } else {
            Color::WHITE
        };
    }
}
