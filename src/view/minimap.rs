//! The minimap, for maps larger than the window: the whole map in a corner, one pixel per
//! tile (sampled down for very large maps), units as dots of their team's colour, the
//! camera's view as a frame, at the left of the map area (view::layout). Clicking (or
//! dragging) on it moves the camera there.

use bevy::asset::RenderAssetUsages;
use bevy::prelude::*;
use bevy::render::render_resource::{Extent3d, TextureDimension, TextureFormat};
use bevy::ui::RelativeCursorPosition;
use bevy::window::PrimaryWindow;
use bevy_tilewalk::{Team, Tile, Unit};

use super::layout::{HudPanel, MinimapSlot};
use super::sprites::team_color;
use crate::AppSystems;
use crate::level::{Level, LevelChanged};

/// The minimap's longest side on screen, in logical pixels.
const MINIMAP_PX: f32 = 200.0;
/// The most pixels the minimap image has on a side; larger maps are sampled.
const MAX_IMAGE_SIDE: u32 = 256;

/// The minimap's UI node.
#[derive(Component)]
pub(super) struct Minimap {
    image: Handle<Image>,
    /// Terrain colours, before units and the view frame are drawn over them.
    ground: Vec<[u8; 4]>,
    size: UVec2,
}

pub(super) fn plugin(app: &mut App) {
    app.add_systems(
        Update,
        (
            (spawn_minimap, paint_ground)
                .chain()
                .in_set(AppSystems::Load)
                .run_if(resource_exists::<Level>),
            jump_to_click
                .in_set(AppSystems::RecordInput)
                .run_if(resource_exists::<Level>),
            draw_minimap
                .in_set(AppSystems::Present)
                .run_if(resource_exists::<Level>),
        ),
    );
}

/// A colour for each tile of the terrain atlas, close to the tile's own.
pub(super) fn terrain_color(tile: u32) -> [u8; 4] {
    match tile {
        0 => [86, 140, 62, 255],
        1 => [176, 150, 104, 255],
        2 => [38, 92, 44, 255],
        3 => [24, 60, 32, 255],
        4 => [112, 84, 54, 255],
        5 => [52, 104, 170, 255],
        _ => [110, 110, 112, 255],
    }
}

fn spawn_minimap(
    mut commands: Commands,
    level: Res<Level>,
    mut images: ResMut<Assets<Image>>,
    existing: Query<Entity, With<Minimap>>,
    slot: Single<Entity, With<MinimapSlot>>,
) {
    if !existing.is_empty() {
        return;
    }
    let size = UVec2::new(level.width, level.height).min(UVec2::splat(MAX_IMAGE_SIDE));
    let image = Image::new_fill(
        Extent3d {
            width: size.x,
            height: size.y,
            depth_or_array_layers: 1,
        },
        TextureDimension::D2,
        &[0, 0, 0, 255],
        TextureFormat::Rgba8UnormSrgb,
        RenderAssetUsages::default(),
    );
    let image = images.add(image);
    let aspect = level.geometry().extent();
    let scale = MINIMAP_PX / aspect.max_element();
    let minimap = commands
        .spawn((
            Name::new("Minimap"),
            HudPanel("minimap"),
            Minimap {
                image: image.clone(),
                ground: Vec::new(),
                size,
            },
            Node {
                display: Display::None,
                width: px(aspect.x * scale),
                height: px(aspect.y * scale),
                border: UiRect::all(px(2)),
                ..default()
            },
            BorderColor::all(Color::srgba(0.9, 0.92, 0.95, 0.8)),
            ImageNode::new(image),
            super::TakesClicks,
            RelativeCursorPosition::default(),
        ))
        .id();
    commands.entity(*slot).add_child(minimap);
}

/// Samples the terrain into the minimap's ground layer (again after every reload).
fn paint_ground(
    level: Res<Level>,
    mut changes: MessageReader<LevelChanged>,
    mut minimaps: Query<&mut Minimap>,
) {
    let changed = changes.read().count() > 0;
    for mut minimap in &mut minimaps {
        if !minimap.ground.is_empty() && !changed {
            continue;
        }
        let size = minimap.size;
        minimap.ground = (0..size.y)
            .flat_map(|y| (0..size.x).map(move |x| (x, y)))
            .map(|(x, y)| {
                let pos =
                    tilewalk_path::Pos::new(x * level.width / size.x, y * level.height / size.y);
                level
                    .terrain(pos)
                    .map_or([0, 0, 0, 255], |t| ground_color(&level, t))
            })
            .collect();
    }
}

/// A cell's colour on the minimap: its terrain's tile's. A Tiled or LDtk map's terrains are
/// the terrain table's by name (their `tile` there numbers the map's own terrains); a cell no
/// terrain names (impassable) is dark grey.
fn ground_color(level: &Level, terrain: &crate::terrain::Terrain) -> [u8; 4] {
    if level.tiled.is_none() {
        return terrain_color(terrain.tile);
    }
    level
        .terrain_names
        .iter()
        .position(|name| *name == terrain.name)
        .and_then(|i| level.terrain_tiles.get(i))
        .map_or(NO_TERRAIN_COLOR, |&tile| terrain_color(tile))
}

/// The minimap's colour of a cell without terrain.
const NO_TERRAIN_COLOR: [u8; 4] = [44, 44, 48, 255];

/// Ground, unit dots and the camera's view, every frame it is shown.
fn draw_minimap(
    level: Res<Level>,
    window: Single<&Window, With<PrimaryWindow>>,
    camera: Single<(&Transform, &Projection), With<Camera2d>>,
    units: Query<(&Tile, &Team), With<Unit>>,
    mut minimaps: Query<(&Minimap, &mut Node)>,
    mut images: ResMut<Assets<Image>>,
) {
    let extent = level.geometry().extent();
    for (minimap, mut node) in &mut minimaps {
        // Only maps that do not fit the window at their own size need one.
        let needed = extent.x > window.width() || extent.y > window.height();
        super::hud::show(&mut node, needed);
        if !needed || minimap.ground.is_empty() {
            continue;
        }
        let Some(mut image) = images.get_mut(&minimap.image) else {
            continue;
        };
        let size = minimap.size;
        let mut pixels = minimap.ground.clone();
        let mut put = |x: u32, y: u32, rgba: [u8; 4]| {
            if x < size.x && y < size.y {
                pixels[(y * size.x + x) as usize] = rgba;
            }
        };
        for (tile, &team) in &units {
            let x = tile.0.x * size.x / level.width;
            let y = tile.0.y * size.y / level.height;
            let rgba = team_color(team).to_srgba().to_u8_array();
            for (dx, dy) in [(0, 0), (1, 0), (0, 1), (1, 1)] {
                put(x + dx, y + dy, rgba);
            }
        }
        // The camera's view: world rectangle → minimap pixels (y flipped: row 0 on top).
        let (transform, projection) = *camera;
        if let Projection::Orthographic(ortho) = projection {
            let half = Vec2::new(window.width(), window.height()) * ortho.scale / 2.0;
            let centre = transform.translation.truncate();
            let to_pixel = |w: Vec2| {
                let n = (w / extent).clamp(Vec2::ZERO, Vec2::ONE);
                UVec2::new(
                    (n.x * (size.x - 1) as f32) as u32,
                    ((1.0 - n.y) * (size.y - 1) as f32) as u32,
                )
            };
            let (a, b) = (to_pixel(centre - half), to_pixel(centre + half));
            let white = [255, 255, 255, 255];
            for x in a.x..=b.x {
                put(x, a.y, white);
                put(x, b.y, white);
            }
            for y in b.y..=a.y {
                put(a.x, y, white);
                put(b.x, y, white);
            }
        }
        if let Some(data) = image.data.as_mut() {
            for (out, pixel) in data.chunks_exact_mut(4).zip(&pixels) {
                out.copy_from_slice(pixel);
            }
        }
    }
}

/// Click or drag on the minimap: the camera centres on that point of the map.
fn jump_to_click(
    buttons: Res<ButtonInput<MouseButton>>,
    level: Res<Level>,
    minimaps: Query<(&RelativeCursorPosition, &Node), With<Minimap>>,
    mut camera: Single<&mut Transform, With<Camera2d>>,
) {
    // A quick click presses and releases the button between two frames: it is no longer
    // pressed, but was just pressed.
    if !buttons.pressed(MouseButton::Left) && !buttons.just_pressed(MouseButton::Left) {
        return;
    }
    for (cursor, node) in &minimaps {
        let (true, Some(at), false) = (
            cursor.cursor_over(),
            cursor.normalized,
            node.display == Display::None,
        ) else {
            continue;
        };
        let extent = level.geometry().extent();
        let world = Vec2::new((at.x + 0.5) * extent.x, (0.5 - at.y) * extent.y);
        camera.translation = world.extend(camera.translation.z);
    }
}

#[cfg(test)]
mod tests {
    use bevy::ecs::system::RunSystemOnce;

    use super::*;
    use crate::map::MapAsset;
    use crate::terrain::TerrainTable;

    fn table() -> TerrainTable {
        TerrainTable::parse(include_str!("../../assets/terrain.ron")).unwrap()
    }

    #[test]
    fn a_tiled_maps_cells_take_their_terrains_colours_and_cells_without_one_are_dark() {
        // Tile 0 names no terrain, tile 1 is road.
        let map = r#"<map version="1.10" orientation="orthogonal" width="2" height="1" tilewidth="8" tileheight="8">
 <tileset firstgid="1" name="t" tilewidth="8" tileheight="8" tilecount="2" columns="2">
  <image source="t.png" width="16" height="8"/>
  <tile id="1" type="road"/>
 </tileset>
 <layer id="1" name="ground" width="2" height="1">
  <data encoding="csv">1,2</data>
 </layer>
</map>"#;
        let map = crate::map::tmx::parse(std::path::Path::new("m.tmx"), map, &Default::default())
            .unwrap();
        let table = table();
        let road = table
            .terrains
            .iter()
            .find(|t| t.name == "road")
            .unwrap()
            .tile;
        let (level, _) = Level::build(&map, &table).unwrap();
        let colour = |x| {
            ground_color(
                &level,
                level.terrain(tilewalk_path::Pos::new(x, 0)).unwrap(),
            )
        };
        assert_eq!(colour(0), NO_TERRAIN_COLOR);
        assert_eq!(colour(1), terrain_color(road));
        assert_ne!(terrain_color(road), terrain_color(0), "road is not grass");
        // A tilewalk map's cells are their terrain's tile.
        let text = MapAsset::parse("[terrain]\n.=\n[units]\n").unwrap();
        let (level, _) = Level::build(&text, &table).unwrap();
        let colour = |x| {
            ground_color(
                &level,
                level.terrain(tilewalk_path::Pos::new(x, 0)).unwrap(),
            )
        };
        assert_eq!(colour(1), terrain_color(road));
    }

    #[test]
    fn a_click_on_the_minimap_pressed_and_released_within_a_frame_moves_the_camera() {
        let map = MapAsset::parse("[terrain]\n........\n........\n[units]\n").unwrap();
        let (level, _) = Level::build(&map, &table()).unwrap();
        let extent = level.geometry().extent();
        let mut world = World::new();
        world.insert_resource(level);
        let mut buttons = ButtonInput::<MouseButton>::default();
        buttons.press(MouseButton::Left);
        buttons.release(MouseButton::Left);
        world.insert_resource(buttons);
        // The pointer at the minimap's top-right quarter point.
        world.spawn((
            Minimap {
                image: Handle::default(),
                ground: Vec::new(),
                size: UVec2::ONE,
            },
            Node::default(),
            RelativeCursorPosition {
                cursor_over: true,
                normalized: Some(Vec2::new(0.25, -0.25)),
            },
        ));
        let camera = world.spawn((Camera2d, Transform::default())).id();
        world.run_system_once(jump_to_click).unwrap();
        let at = world
            .get::<Transform>(camera)
            .unwrap()
            .translation
            .truncate();
        assert_eq!(at, Vec2::new(0.75 * extent.x, 0.75 * extent.y));
    }
}
