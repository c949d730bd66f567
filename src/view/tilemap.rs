//! The terrain as a bevy_ecs_tilemap tilemap, kept in step with the level on hot reload:
//! the terrain atlas, or a Tiled map's own tileset image.

use bevy::asset::AssetPath;
use bevy::prelude::*;
use bevy_ecs_tilemap::prelude::*;

use crate::AppSystems;
use tilewalk_path::{Board, HexLayout};

use crate::assets::MAP_SOURCE;
use crate::convert::Geometry;
use crate::level::{Level, LevelChanged};
use crate::map::tmx::TilesetImage;

/// Marks the tilemap that shows the level's terrain, with the Tiled tileset it draws.
#[derive(Component)]
struct TerrainTilemap(Option<TilesetImage>);

pub(super) fn plugin(app: &mut App) {
    app.add_systems(
        Update,
        (
            spawn_tilemap.run_if(resource_added::<Level>),
            update_tiles.run_if(resource_exists::<Level>),
        )
            .in_set(AppSystems::Present),
    );
}

fn spawn_tilemap(mut commands: Commands, level: Res<Level>, server: Res<AssetServer>) {
    spawn(&mut commands, &level, &server);
}

/// The terrain atlas drawn for a board: square tiles, or hexes with their points up or flat.
fn atlas(board: Board) -> &'static str {
    match board {
        Board::Square(_) => "textures/terrain.png",
        Board::Hex(HexLayout::OddR | HexLayout::EvenR) => "textures/terrain_hex_pointy.png",
        Board::Hex(HexLayout::OddQ | HexLayout::EvenQ) => "textures/terrain_hex_flat.png",
    }
}

fn spawn(commands: &mut Commands, level: &Level, server: &AssetServer) {
    let geometry: Geometry = level.geometry();
    let size = geometry.map_size();
    let tilemap = commands.spawn_empty().id();
    let mut storage = TileStorage::empty(size);
    for pos in level.cells() {
        let position = geometry.tile_pos(pos);
        let tile = commands
            .spawn((
                TileBundle {
                    position,
                    tilemap_id: TilemapId(tilemap),
                    texture_index: TileTextureIndex(level.terrain(pos).map_or(0, |t| t.tile)),
                    ..default()
                },
                ChildOf(tilemap),
            ))
            .id();
        storage.set(&position, tile);
    }
    // A Tiled tileset is drawn at its own pixel size, scaled to the board's tiles (tile
    // positions scale along each axis, so the scaled layout is the board's).
    let (texture, tile_size, scale) = match &level.tileset {
        Some(image) => {
            let path = AssetPath::from(image.path.clone()).with_source(MAP_SOURCE);
            let size = TilemapTileSize::new(image.tile_width as f32, image.tile_height as f32);
            let board = geometry.tile_size();
            let scale = Vec2::new(board.x / size.x, board.y / size.y);
            (server.load(path), size, scale)
        }
        None => (
            server.load(atlas(level.board)),
            geometry.tile_size(),
            Vec2::ONE,
        ),
    };
    let spacing = level
        .tileset
        .as_ref()
        .map_or(0.0, |image| image.spacing as f32);
    commands.entity(tilemap).insert((
        Name::new("Terrain tilemap"),
        TerrainTilemap(level.tileset.clone()),
        TilemapBundle {
            grid_size: TilemapGridSize::new(tile_size.x, tile_size.y),
            map_type: geometry.map_type(),
            size,
            storage,
            texture: TilemapTexture::Single(texture),
            tile_size,
            spacing: TilemapSpacing::new(spacing, spacing),
            anchor: TilemapAnchor::None,
            transform: Transform::from_translation(geometry.offset().extend(0.0))
                .with_scale(scale.extend(1.0)),
            ..default()
        },
    ));
}

/// Repaints the changed tiles; a resized map, another board or another tileset gets a new
/// tilemap (as bevy_ecs_tilemap's own hot-reload examples do).
fn update_tiles(
    mut commands: Commands,
    mut changes: MessageReader<LevelChanged>,
    level: Res<Level>,
    server: Res<AssetServer>,
    tilemaps: Query<(Entity, &TileStorage, &TilemapType, &TerrainTilemap)>,
) {
    let geometry = level.geometry();
    for change in changes.read() {
        for (tilemap, storage, map_type, drawn) in &tilemaps {
            if storage.size != geometry.map_size()
                || *map_type != geometry.map_type()
                || drawn.0 != level.tileset
            {
                commands.entity(tilemap).despawn();
                spawn(&mut commands, &level, &server);
                continue;
            }
            for &pos in &change.cells {
                if let (Some(tile), Some(terrain)) =
                    (storage.get(&geometry.tile_pos(pos)), level.terrain(pos))
                {
                    commands.entity(tile).insert(TileTextureIndex(terrain.tile));
                }
            }
        }
    }
}
