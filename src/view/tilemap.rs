//! The terrain as a bevy_ecs_tilemap tilemap, kept in step with the level on hot reload.

use bevy::prelude::*;
use bevy_ecs_tilemap::prelude::*;

use crate::AppSystems;
use crate::convert::{TILE_SIZE, tile_pos};
use crate::level::{Level, LevelChanged};

/// Marks the tilemap that shows the level's terrain.
#[derive(Component)]
struct TerrainTilemap;

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
    spawn(&mut commands, &level, server.load("textures/terrain.png"));
}

fn spawn(commands: &mut Commands, level: &Level, texture: Handle<Image>) {
    let size = TilemapSize {
        x: level.width,
        y: level.height,
    };
    let tilemap = commands.spawn_empty().id();
    let mut storage = TileStorage::empty(size);
    for pos in level.cells() {
        let position = tile_pos(pos, level.height);
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
    let tile_size = TilemapTileSize {
        x: TILE_SIZE,
        y: TILE_SIZE,
    };
    commands.entity(tilemap).insert((
        Name::new("Terrain tilemap"),
        TerrainTilemap,
        TilemapBundle {
            grid_size: tile_size.into(),
            size,
            storage,
            texture: TilemapTexture::Single(texture),
            tile_size,
            anchor: TilemapAnchor::BottomLeft,
            ..default()
        },
    ));
}

/// Repaints the changed tiles; a resized map gets a new tilemap (as bevy_ecs_tilemap's own
/// hot-reload examples do).
fn update_tiles(
    mut commands: Commands,
    mut changes: MessageReader<LevelChanged>,
    level: Res<Level>,
    tilemaps: Query<(Entity, &TileStorage, &TilemapTexture), With<TerrainTilemap>>,
) {
    for change in changes.read() {
        for (tilemap, storage, texture) in &tilemaps {
            if (storage.size.x, storage.size.y) != (level.width, level.height) {
                let TilemapTexture::Single(image) = texture else {
                    continue;
                };
                commands.entity(tilemap).despawn();
                spawn(&mut commands, &level, image.clone());
                continue;
            }
            for &pos in &change.cells {
                if let (Some(tile), Some(terrain)) = (
                    storage.get(&tile_pos(pos, level.height)),
                    level.terrain(pos),
                ) {
                    commands.entity(tile).insert(TileTextureIndex(terrain.tile));
                }
            }
        }
    }
}
