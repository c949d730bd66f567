//! The terrain as bevy_ecs_tilemap tilemaps, kept in step with the level on hot reload: the
//! terrain atlas, or a Tiled map drawn as Tiled draws it (every visible tile layer in order,
//! each tileset's own image or images, flips, layer opacity and offsets; the layers after
//! the first object layer above the units).

use bevy::asset::{AssetPath, RenderAssetUsages};
use bevy::image::TextureFormatPixelInfo;
use bevy::prelude::*;
use bevy::render::render_resource::{Extent3d, TextureDimension, TextureFormat};
use bevy_ecs_tilemap::prelude::*;
use tilewalk_path::{Board, HexLayout, Pos};

use crate::AppSystems;
use crate::assets::{MAP_SOURCE, MapSource};
use crate::convert::{Geometry, Projection};
use crate::level::{Level, LevelChanged};
use crate::map::tmx::{LayerCell, TiledMap, TilesetImage, TilesetImages};
use crate::units::UNIT_Z;

/// Marks every entity that draws the level's terrain (tilemaps, and sprites for tiles of
/// image collections).
#[derive(Component)]
struct TerrainTilemap;

/// What the drawn terrain was made from: when it changes, the terrain is drawn anew.
#[derive(Resource, PartialEq)]
struct Drawn {
    geometry: Geometry,
    tiled: Option<TiledMap>,
}

/// A tileset image whose margin differs from its spacing, laid out again for
/// bevy_ecs_tilemap (which reads a margin as wide as the spacing) whenever it loads.
#[derive(Component)]
struct Relaid {
    source: Handle<Image>,
    target: Handle<Image>,
    /// The pixels to add (or, negative, to take) at the image's left and top.
    shift: i32,
}

pub(super) fn plugin(app: &mut App) {
    app.add_systems(
        Update,
        (
            spawn_tilemap.run_if(resource_added::<Level>),
            update_tiles.run_if(resource_exists::<Level>),
            relay_images,
        )
            .chain()
            .in_set(AppSystems::Present),
    );
}

fn spawn_tilemap(
    mut commands: Commands,
    level: Res<Level>,
    server: Res<AssetServer>,
    source: Option<Res<MapSource>>,
    mut images: ResMut<Assets<Image>>,
) {
    let files = MapFiles(&server, source.as_deref());
    spawn(&mut commands, &level, files, &mut images);
}

/// Where a map's images are read from: the map source, each image's path relative to the
/// map's folder made a path of the source.
#[derive(Clone, Copy)]
struct MapFiles<'a>(&'a AssetServer, Option<&'a MapSource>);

impl MapFiles<'_> {
    fn load(self, path: &std::path::Path) -> Handle<Image> {
        let path = self.1.map_or_else(|| path.to_path_buf(), |s| s.path(path));
        self.0.load(AssetPath::from(path).with_source(MAP_SOURCE))
    }

    /// Whether the image at `path` (relative to the map's folder) is missing from the map's
    /// folder on disk: its tiles are drawn as a [`checker`] (the map panel names it).
    fn missing(self, path: &std::path::Path) -> bool {
        self.1.is_some_and(|s| !s.root.join(s.path(path)).is_file())
    }
}

/// The side of a checker image's squares: two a tile across.
fn checker_square(tile: UVec2) -> u32 {
    (tile.max_element() / 2).max(1)
}

/// The most pixels a checker image is on a side (a texture's limit on most GPUs).
const MAX_CHECKER_SIDE: u32 = 8192;

/// A `size` image of magenta and near-black squares `square` pixels wide: what a tile whose
/// image is missing is drawn with, so that it shows as missing art rather than as terrain.
fn checker(size: UVec2, square: u32) -> Image {
    let size = size.clamp(UVec2::ONE, UVec2::splat(MAX_CHECKER_SIDE));
    let square = square.max(1);
    let mut data = Vec::with_capacity((size.x * size.y * 4) as usize);
    for y in 0..size.y {
        for x in 0..size.x {
            let light = (x / square + y / square).is_multiple_of(2);
            data.extend(if light {
                [230, 40, 200, 255]
            } else {
                [30, 20, 35, 255]
            });
        }
    }
    Image::new(
        Extent3d {
            width: size.x,
            height: size.y,
            depth_or_array_layers: 1,
        },
        TextureDimension::D2,
        data,
        TextureFormat::Rgba8UnormSrgb,
        RenderAssetUsages::default(),
    )
}

/// The checker in place of a missing tileset image: room for all its tiles, laid out
/// square-ish with the tileset's spacing (its margin read as the spacing, as
/// bevy_ecs_tilemap reads it), a checker in every tile.
fn checker_atlas(image: &TilesetImage) -> Image {
    let count = image.count.max(1);
    let columns = count.isqrt().max(1) + u32::from(count.isqrt().pow(2) < count);
    let rows = count.div_ceil(columns);
    let (tile_w, tile_h) = (image.tile_width.max(1), image.tile_height.max(1));
    let size = UVec2::new(
        image.spacing + columns.saturating_mul(tile_w + image.spacing),
        image.spacing + rows.saturating_mul(tile_h + image.spacing),
    );
    checker(size, checker_square(UVec2::new(tile_w, tile_h)))
}

/// The terrain atlas drawn for a board: square tiles, or hexes with their points up or flat.
fn atlas(board: Board) -> &'static str {
    match board {
        Board::Square(_) => "textures/terrain.png",
        Board::Hex(HexLayout::OddR | HexLayout::EvenR) => "textures/terrain_hex_pointy.png",
        Board::Hex(HexLayout::OddQ | HexLayout::EvenQ) => "textures/terrain_hex_flat.png",
    }
}

fn spawn(commands: &mut Commands, level: &Level, files: MapFiles, images: &mut Assets<Image>) {
    let geometry = level.geometry();
    commands.insert_resource(Drawn {
        geometry,
        tiled: level.tiled.clone(),
    });
    match &level.tiled {
        Some(tiled) => spawn_tiled(commands, level, tiled, files, images),
        None => spawn_atlas(commands, level, files.0),
    }
}

fn spawn_atlas(commands: &mut Commands, level: &Level, server: &AssetServer) {
    let geometry = level.geometry();
    let size = geometry.map_size();
    let tilemap = commands.spawn_empty().id();
    let tiles = level.cells().map(|pos| {
        let texture_index = TileTextureIndex(level.terrain(pos).map_or(0, |t| t.tile));
        (
            pos,
            TileBundle {
                texture_index,
                ..default()
            },
        )
    });
    let storage = spawn_tiles(commands, tilemap, &geometry, tiles);
    commands.entity(tilemap).insert((
        Name::new("Terrain tilemap"),
        TerrainTilemap,
        TilemapBundle {
            grid_size: geometry.grid_size(),
            map_type: geometry.map_type(),
            size,
            storage,
            texture: TilemapTexture::Single(server.load(atlas(level.board))),
            tile_size: geometry.tile_size(),
            anchor: TilemapAnchor::None,
            transform: Transform::from_translation(geometry.offset().extend(0.0)),
            ..default()
        },
    ));
}

/// Spawns `tiles` as children of `tilemap`, each at its cell's position, and stores them.
fn spawn_tiles(
    commands: &mut Commands,
    tilemap: Entity,
    geometry: &Geometry,
    tiles: impl Iterator<Item = (Pos, TileBundle)>,
) -> TileStorage {
    let mut storage = TileStorage::empty(geometry.map_size());
    for (pos, tile) in tiles {
        let position = geometry.tile_pos(pos);
        let bundle = TileBundle {
            position,
            tilemap_id: TilemapId(tilemap),
            ..tile
        };
        let tile = commands.spawn((bundle, ChildOf(tilemap))).id();
        storage.set(&position, tile);
    }
    storage
}

/// The grid a Tiled map's tiles are laid out on, in Tiled's pixels, as bevy_ecs_tilemap
/// spaces it: hex rows (or columns) sit three quarters of a grid cell apart there, where
/// Tiled puts them `(size + side) / 2` apart.
fn tiled_grid(level: &Level, tiled: &TiledMap, side: f32) -> Vec2 {
    let (w, h) = (tiled.grid.0 as f32, tiled.grid.1 as f32);
    match (level.projection, level.board) {
        (Projection::Flat, Board::Hex(HexLayout::OddR | HexLayout::EvenR)) => {
            Vec2::new(w, (h + side) / 2.0 / 0.75)
        }
        (Projection::Flat, Board::Hex(HexLayout::OddQ | HexLayout::EvenQ)) => {
            Vec2::new((w + side) / 2.0 / 0.75, h)
        }
        _ => Vec2::new(w, h),
    }
}

fn spawn_tiled(
    commands: &mut Commands,
    level: &Level,
    tiled: &TiledMap,
    files: MapFiles,
    images: &mut Assets<Image>,
) {
    let geometry = level.geometry();
    let world = geometry.grid_size();
    let grid = tiled_grid(level, tiled, tiled.hex_side as f32);
    let scale = Vec2::new(world.x / grid.x, world.y / grid.y);
    let cell = Vec2::new(tiled.grid.0 as f32, tiled.grid.1 as f32);
    let diamond = matches!(
        level.projection,
        Projection::Isometric { stagger: None, .. }
    );
    let load = |path: &std::path::Path| files.load(path);
    // A missing image's checker, made once for all its layers.
    let mut checkers: std::collections::HashMap<std::path::PathBuf, Handle<Image>> =
        std::collections::HashMap::new();
    let layers = tiled.layers.len() as f32;
    for (index, layer) in tiled.layers.iter().enumerate() {
        if !layer.visible {
            continue;
        }
        // Below the overlays and units, or above them, in the layers' order.
        let order = (index as f32 + 1.0) / (layers + 1.0);
        let z = if layer.above_units {
            UNIT_Z + 3.0 + order
        } else {
            order - 1.0
        };
        let colour = Color::srgba(1.0, 1.0, 1.0, layer.opacity);
        let layer_offset = Vec2::new(layer.offset.0, -layer.offset.1);
        for (t, tileset) in tiled.tilesets.iter().enumerate() {
            let cells: Vec<(Pos, LayerCell)> = level
                .cells()
                .filter_map(|pos| {
                    let cell = layer.cells[(pos.y * level.width + pos.x) as usize]?;
                    (cell.tileset as usize == t).then_some((pos, cell))
                })
                .collect();
            if cells.is_empty() {
                continue;
            }
            let tileset_offset = Vec2::new(tileset.offset.0 as f32, -(tileset.offset.1 as f32));
            // Tiled draws a tile from its cell's bottom-left corner (bottom centre on an
            // isometric map); bevy_ecs_tilemap centres it on the cell.
            let align = |size: Vec2| {
                let x = if diamond {
                    0.0
                } else {
                    (size.x - cell.x) / 2.0
                };
                Vec2::new(x, (size.y - cell.y) / 2.0) + tileset_offset + layer_offset
            };
            match &tileset.images {
                TilesetImages::Atlas(image) => {
                    let size = Vec2::new(image.tile_width as f32, image.tile_height as f32);
                    let translation = geometry.offset() + align(size) * scale;
                    let texture = if files.missing(&image.path) {
                        let checker = checkers
                            .entry(image.path.clone())
                            .or_insert_with(|| images.add(checker_atlas(image)));
                        TilemapTexture::Single(checker.clone())
                    } else {
                        atlas_texture(commands, image, load(&image.path), images)
                    };
                    let tilemap = commands.spawn_empty().id();
                    let tiles = cells.into_iter().map(|(pos, cell)| {
                        let tile = TileBundle {
                            texture_index: TileTextureIndex(cell.id),
                            flip: TileFlip {
                                x: cell.flip_h,
                                y: cell.flip_v,
                                d: cell.flip_d,
                            },
                            color: TileColor(colour),
                            ..default()
                        };
                        (pos, tile)
                    });
                    let storage = spawn_tiles(commands, tilemap, &geometry, tiles);
                    commands.entity(tilemap).insert((
                        Name::new(format!("Layer `{}`: {}", layer.name, tileset.name)),
                        TerrainTilemap,
                        TilemapBundle {
                            grid_size: TilemapGridSize::new(grid.x, grid.y),
                            map_type: geometry.map_type(),
                            size: geometry.map_size(),
                            storage,
                            texture,
                            tile_size: TilemapTileSize::new(size.x, size.y),
                            spacing: TilemapSpacing::new(
                                image.spacing as f32,
                                image.spacing as f32,
                            ),
                            anchor: TilemapAnchor::None,
                            transform: Transform::from_translation(translation.extend(z))
                                .with_scale(scale.extend(1.0)),
                            ..default()
                        },
                    ));
                }
                TilesetImages::Collection(own) => {
                    for (pos, cell) in cells {
                        let Some((_, image)) = own.iter().find(|(id, _)| *id == cell.id) else {
                            continue;
                        };
                        let size = Vec2::new(image.width as f32, image.height as f32);
                        let at = geometry.center(pos) + align(size) * scale;
                        let handle = if files.missing(&image.path) {
                            let pixels = UVec2::new(image.width, image.height);
                            checkers
                                .entry(image.path.clone())
                                .or_insert_with(|| {
                                    images.add(checker(pixels, checker_square(pixels)))
                                })
                                .clone()
                        } else {
                            load(&image.path)
                        };
                        commands.spawn((
                            Name::new(format!("Layer `{}`: tile {}", layer.name, cell.id)),
                            TerrainTilemap,
                            Sprite {
                                image: handle,
                                color: colour,
                                flip_x: cell.flip_h,
                                flip_y: cell.flip_v,
                                custom_size: Some(size * scale),
                                ..default()
                            },
                            Transform::from_translation(at.extend(z)),
                        ));
                    }
                }
            }
        }
    }
}

/// The texture of a tileset image: the image itself, or when its margin differs from its
/// spacing, a copy laid out as bevy_ecs_tilemap reads it ([`Relaid`]).
fn atlas_texture(
    commands: &mut Commands,
    image: &TilesetImage,
    source: Handle<Image>,
    images: &mut Assets<Image>,
) -> TilemapTexture {
    if image.margin == image.spacing {
        return TilemapTexture::Single(source);
    }
    let target = images.reserve_handle();
    commands.spawn((
        TerrainTilemap,
        Relaid {
            source,
            target: target.clone(),
            shift: image.spacing as i32 - image.margin as i32,
        },
    ));
    TilemapTexture::Single(target)
}

/// Lays out again every [`Relaid`] image whose source has loaded or changed.
fn relay_images(
    mut events: MessageReader<AssetEvent<Image>>,
    relaid: Query<&Relaid>,
    mut images: ResMut<Assets<Image>>,
) {
    let changed: Vec<AssetId<Image>> = events
        .read()
        .filter_map(|event| match event {
            AssetEvent::LoadedWithDependencies { id } | AssetEvent::Modified { id } => Some(*id),
            _ => None,
        })
        .collect();
    for relay in &relaid {
        let fresh = changed.contains(&relay.source.id())
            || images.get(&relay.target).is_none() && images.get(&relay.source).is_some();
        if !fresh {
            continue;
        }
        let Some(copy) = images
            .get(&relay.source)
            .and_then(|s| shifted(s, relay.shift))
        else {
            continue;
        };
        let _ = images.insert(relay.target.id(), copy);
    }
}

/// `image` with `shift` columns and rows of transparent pixels added at its left and top
/// (or taken away, when negative); `None` for a compressed or data-less image.
fn shifted(image: &Image, shift: i32) -> Option<Image> {
    let bytes = image.texture_descriptor.format.pixel_size().ok()?;
    let data = image.data.as_ref()?;
    let (width, height) = (image.width() as i32, image.height() as i32);
    let (new_width, new_height) = (width + shift, height + shift);
    if new_width <= 0 || new_height <= 0 {
        return None;
    }
    let mut out = vec![0u8; new_width as usize * new_height as usize * bytes];
    for y in 0..new_height {
        let from_y = y - shift;
        if !(0..height).contains(&from_y) {
            continue;
        }
        for x in 0..new_width {
            let from_x = x - shift;
            if !(0..width).contains(&from_x) {
                continue;
            }
            let from = (from_y as usize * width as usize + from_x as usize) * bytes;
            let to = (y as usize * new_width as usize + x as usize) * bytes;
            out[to..to + bytes].copy_from_slice(&data[from..from + bytes]);
        }
    }
    let mut copy = image.clone();
    copy.texture_descriptor.size.width = new_width as u32;
    copy.texture_descriptor.size.height = new_height as u32;
    copy.data = Some(out);
    Some(copy)
}

/// Repaints the changed tiles; another size, board, projection or Tiled map is drawn anew
/// (as bevy_ecs_tilemap's own hot-reload examples do).
fn update_tiles(
    mut commands: Commands,
    mut changes: MessageReader<LevelChanged>,
    level: Res<Level>,
    server: Res<AssetServer>,
    source: Option<Res<MapSource>>,
    mut images: ResMut<Assets<Image>>,
    drawn: Option<Res<Drawn>>,
    tilemaps: Query<Entity, With<TerrainTilemap>>,
    mut tiles: Query<&TileStorage, With<TerrainTilemap>>,
) {
    let geometry = level.geometry();
    for change in changes.read() {
        let same = drawn
            .as_ref()
            .is_some_and(|d| d.geometry == geometry && d.tiled == level.tiled);
        if !same {
            for tilemap in &tilemaps {
                commands.entity(tilemap).despawn();
            }
            let files = MapFiles(&server, source.as_deref());
            spawn(&mut commands, &level, files, &mut images);
            return;
        }
        if level.tiled.is_some() {
            continue;
        }
        for storage in &mut tiles {
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_margin_is_shifted_to_the_spacing() {
        // A 3x2 image, one byte a pixel: its values are their positions.
        let image = Image::new(
            Extent3d {
                width: 3,
                height: 2,
                depth_or_array_layers: 1,
            },
            TextureDimension::D2,
            vec![0, 1, 2, 10, 11, 12],
            TextureFormat::R8Unorm,
            RenderAssetUsages::default(),
        );
        let less = shifted(&image, -1).unwrap();
        assert_eq!((less.width(), less.height()), (2, 1));
        assert_eq!(less.data.as_deref(), Some(&[11u8, 12][..]));
        let more = shifted(&image, 1).unwrap();
        assert_eq!((more.width(), more.height()), (4, 3));
        assert_eq!(
            more.data.as_deref(),
            Some(&[0u8, 0, 0, 0, 0, 0, 1, 2, 0, 10, 11, 12][..])
        );
    }

    #[test]
    fn a_missing_tileset_image_is_a_checker_with_room_for_every_tile() {
        // 10 tiles of 16x8 with 2 pixels between: 4 columns and 3 rows.
        let image = TilesetImage {
            path: "gone.png".into(),
            tile_width: 16,
            tile_height: 8,
            margin: 1,
            spacing: 2,
            count: 10,
        };
        let atlas = checker_atlas(&image);
        assert_eq!((atlas.width(), atlas.height()), (2 + 4 * 18, 2 + 3 * 10));
        // Squares 8 pixels wide, two colours, alternating along a row and down a column.
        let pixel = |x: u32, y: u32| {
            let at = ((y * atlas.width() + x) * 4) as usize;
            atlas.data.as_ref().unwrap()[at..at + 4].to_vec()
        };
        assert_eq!(pixel(0, 0), pixel(7, 7));
        assert_ne!(pixel(0, 0), pixel(8, 0));
        assert_ne!(pixel(0, 0), pixel(0, 8));
        assert_eq!(pixel(0, 0), pixel(8, 8));
        assert_eq!(
            checker_atlas(&TilesetImage { count: 9, ..image }).width(),
            2 + 3 * 18
        );
    }
}
