//! From the map bevy_ecs_tiled loaded (its `TiledMapAsset::map`, a `tiled::Map`) to the
//! plugin's navigation and units. The plugin's tests run it on the map the example opens.

use bevy::math::Vec2;
use bevy_ecs_tiled::prelude::tiled;
use bevy_tilewalk::path::Board;
use bevy_tilewalk::prelude::*;

use super::terrain::{self, PeerMap, Terrain, UnitStart};

/// The navigation and units of an orthogonal, finite Tiled map. Cells are bevy_ecs_tilemap's
/// `TilePos`: x from the left, y from the bottom (Tiled's row 0 is the top row).
///
/// A cell's cost for a class comes from the topmost tile layer with a tile there (layers in
/// group layers are not read): the tile's numeric property named after the class if it has
/// one (a ford's `foot` = 2), else its Class in Tiled (`water`) looked up in the terrain
/// table. A cell without a tile, or whose tile says nothing for the class, is impassable.
/// Objects with a string property `team` (`blue` or `red`) are units: the object's Class names
/// its movement class, and it stands on the cell under its centre.
pub fn navigation(map: &tiled::Map) -> Result<PeerMap, String> {
    let file = map.source.display();
    if map.orientation != tiled::Orientation::Orthogonal || map.infinite() {
        return Err(format!("{file}: this example reads finite orthogonal maps"));
    }
    let (width, height) = (map.width, map.height);
    // Tiled lists layers bottom to top; the topmost tile decides.
    let mut layers: Vec<tiled::TileLayer> = map
        .layers()
        .filter_map(|layer| layer.as_tile_layer())
        .collect();
    layers.reverse();
    let cost = |class: &ClassSpec, p: Pos| {
        let (x, row) = (p.x as i32, (height - 1 - p.y) as i32);
        let tile = layers.iter().find_map(|l| l.get_tile(x, row))?.get_tile()?;
        match tile.properties.get(&class.name) {
            Some(tiled::PropertyValue::FloatValue(cost)) => Some(f64::from(*cost)),
            Some(tiled::PropertyValue::IntValue(cost)) => Some(f64::from(*cost)),
            _ => Terrain::named(&tile.user_type)?.cost(&class.name),
        }
    };
    let classes = terrain::classes();
    let navigation = Navigation::from_fn(Board::default(), width, height, classes, cost)
        .map_err(|e| format!("{file}: {e}"))?;

    let mut units = Vec::new();
    for layer in map.layers().filter_map(|layer| layer.as_object_layer()) {
        for object in layer.objects() {
            let Some(tiled::PropertyValue::StringValue(team)) = object.properties.get("team")
            else {
                continue;
            };
            let name = &object.name;
            let team = Team::parse(team).ok_or_else(|| {
                format!("{file}: object {name}: team {team:?} is not blue or red")
            })?;
            if navigation.class(&object.user_type).is_none() {
                return Err(format!(
                    "{file}: object {name}: no movement class {:?}",
                    object.user_type
                ));
            }
            // Tiled places a rectangle by its top-left corner, a tile object by its
            // bottom-left one.
            let (w, h) = match object.shape {
                tiled::ObjectShape::Rect { width, height } => (width, height),
                _ => (0.0, 0.0),
            };
            let top = if object.tile_data().is_some() {
                object.y - h
            } else {
                object.y
            };
            let (cx, cy) = (object.x + w / 2.0, top + h / 2.0);
            let (column, row) = (
                (cx / map.tile_width as f32).floor(),
                (cy / map.tile_height as f32).floor(),
            );
            if column < 0.0 || row < 0.0 || column >= width as f32 || row >= height as f32 {
                return Err(format!("{file}: object {name} stands outside the map"));
            }
            units.push(UnitStart {
                name: name.clone(),
                class: object.user_type.clone(),
                team,
                tile: Pos::new(column as u32, height - 1 - row as u32),
            });
        }
    }
    let cell_size = Vec2::new(map.tile_width as f32, map.tile_height as f32);
    Ok(PeerMap {
        navigation,
        units,
        cell_size,
    })
}
