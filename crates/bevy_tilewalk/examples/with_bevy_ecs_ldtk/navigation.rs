//! From a level bevy_ecs_ldtk loaded (the `LdtkJson` of its `LdtkProject` asset) to the
//! plugin's navigation and units. The plugin's tests run it on the level the example opens.

use bevy::math::Vec2;
use bevy_ecs_ldtk::ldtk::{FieldValue, LdtkJson, Level, Type};
use bevy_tilewalk::path::Board;
use bevy_tilewalk::prelude::*;

use super::terrain::{self, PeerMap, Terrain, UnitStart};

/// The navigation and units of one level. Cells are the IntGrid layers' cells as
/// bevy_ecs_ldtk's `GridCoords` count them: x from the left, y from the bottom (LDtk's row 0
/// is the top row). Every IntGrid layer of the level must have the same grid.
///
/// A cell's terrain is the identifier of its value in the topmost IntGrid layer whose value
/// there names a terrain of the table (letter case aside); a cell no value names is
/// impassable. Entities with a string field `team` (`blue` or `red`) are units: the field
/// `class` names the movement class (else the entity's identifier), `name` the unit (else the
/// identifier), and a unit stands on the cell under its centre.
pub fn navigation(project: &LdtkJson, level: &Level) -> Result<PeerMap, String> {
    let at = format!("level {}", level.identifier);
    let layers = level
        .layer_instances
        .as_deref()
        .ok_or_else(|| format!("{at}: its layers are in another file"))?;
    // Layers are listed top first; each IntGrid layer with its definition (its values' names).
    let mut grids = Vec::new();
    for layer in layers
        .iter()
        .filter(|l| l.layer_instance_type == Type::IntGrid)
    {
        let definition = project
            .defs
            .layers
            .iter()
            .find(|d| d.uid == layer.layer_def_uid)
            .ok_or_else(|| format!("{at}: layer {} has no definition", layer.identifier))?;
        grids.push((layer, definition));
    }
    let Some(&(first, _)) = grids.first() else {
        return Err(format!("{at}: no IntGrid layer"));
    };
    let (grid, width, height) = (first.grid_size, first.c_wid, first.c_hei);
    if let Some((other, _)) = grids
        .iter()
        .find(|(l, _)| (l.grid_size, l.c_wid, l.c_hei) != (grid, width, height))
    {
        return Err(format!(
            "{at}: IntGrid layers {} and {} have different grids",
            first.identifier, other.identifier
        ));
    }
    let (width, height) = (width as u32, height as u32);
    let cost = |class: &ClassSpec, p: Pos| {
        let index = ((height - 1 - p.y) * width + p.x) as usize;
        let terrain = grids.iter().find_map(|(layer, definition)| {
            let value = *layer.int_grid_csv.get(index)?;
            let value = definition
                .int_grid_values
                .iter()
                .find(|v| v.value == value)?;
            Terrain::named(value.identifier.as_deref()?)
        })?;
        terrain.cost(&class.name)
    };
    let classes = terrain::classes();
    let navigation = Navigation::from_fn(Board::default(), width, height, classes, cost)
        .map_err(|e| format!("{at}: {e}"))?;

    let mut units = Vec::new();
    for entity in layers.iter().flat_map(|l| &l.entity_instances) {
        let field = |name: &str| {
            let field = entity
                .field_instances
                .iter()
                .find(|f| f.identifier.eq_ignore_ascii_case(name))?;
            match &field.value {
                FieldValue::String(Some(s)) | FieldValue::Enum(Some(s)) => Some(s.clone()),
                _ => None,
            }
        };
        let Some(team) = field("team") else {
            continue;
        };
        let name = field("name").unwrap_or_else(|| entity.identifier.clone());
        let team = Team::parse(&team)
            .ok_or_else(|| format!("{at}: entity {name}: team {team:?} is not blue or red"))?;
        let class = field("class").unwrap_or_else(|| entity.identifier.clone());
        if navigation.class(&class).is_none() {
            return Err(format!("{at}: entity {name}: no movement class {class:?}"));
        }
        // The entity's centre, from its pivot point.
        let size = Vec2::new(entity.width as f32, entity.height as f32);
        let centre = entity.px.as_vec2() + (Vec2::splat(0.5) - entity.pivot) * size;
        let cell = (centre / grid as f32).floor();
        if cell.x < 0.0 || cell.y < 0.0 || cell.x >= width as f32 || cell.y >= height as f32 {
            return Err(format!("{at}: entity {name} stands outside the level"));
        }
        units.push(UnitStart {
            name,
            class,
            team,
            tile: Pos::new(cell.x as u32, height - 1 - cell.y as u32),
        });
    }
    Ok(PeerMap {
        navigation,
        units,
        cell_size: Vec2::splat(grid as f32),
    })
}
