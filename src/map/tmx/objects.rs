//! The units of a Tiled map: the objects with a `team` property, on the cell under their
//! centre, whatever the map's orientation.

use std::collections::HashMap;

use ::tiled::{LayerType, ObjectShape, PropertyValue};
use bevy_tilewalk::Team;
use tilewalk_path::{Board, HexLayout, Pos};

use super::{Bounds, Element, Fault, describe};
use crate::convert::Projection;
use crate::map::{MAX_UNITS, UnitSpawn, parse_attack};

/// The units: every object with a `team` property, in every object layer (group layers
/// included).
pub(super) fn units(
    map: &::tiled::Map,
    projection: Projection,
    board: Board,
    bounds: Bounds,
    elements: &[Element],
) -> Result<Vec<UnitSpawn>, Fault> {
    let mut units: Vec<UnitSpawn> = Vec::new();
    // Where each object is written, by id (the first of an id).
    let mut written: HashMap<&str, (usize, usize)> = HashMap::new();
    for e in elements.iter().filter(|e| e.name == "object") {
        if let Some(id) = e.attr("id") {
            written.entry(id).or_insert(e.at());
        }
    }
    let root = elements.first().map_or((1, 1), Element::at);
    let mut placed = Placed::default();
    let mut layers: Vec<(::tiled::Layer, (f32, f32))> =
        map.layers().map(|l| (l, (0.0, 0.0))).collect();
    // Depth first, each layer with its groups' offsets.
    layers.reverse();
    while let Some((layer, parent)) = layers.pop() {
        let offset = (parent.0 + layer.offset_x, parent.1 + layer.offset_y);
        let objects = match layer.layer_type() {
            LayerType::Objects(objects) => objects,
            LayerType::Group(group) => {
                let mut children: Vec<_> = group.layers().map(|l| (l, offset)).collect();
                children.reverse();
                layers.extend(children);
                continue;
            }
            LayerType::Tiles(_) | LayerType::Image(_) => continue,
        };
        for object in objects.objects() {
            let at = written
                .get(object.id().to_string().as_str())
                .copied()
                .unwrap_or(root);
            if let Some(unit) = unit(
                map,
                &object,
                offset,
                (projection, board, bounds),
                at,
                &placed,
            )? {
                placed.names.insert(unit.name.clone(), unit.line);
                placed.cells.insert(unit.pos, units.len());
                placed.by_index.push(unit.name.clone());
                units.push(unit);
            }
        }
    }
    Ok(units)
}

/// The units placed so far: the line of each name, the unit on each cell, and their names
/// by index.
#[derive(Default)]
struct Placed {
    names: HashMap<String, usize>,
    cells: HashMap<Pos, usize>,
    by_index: Vec<String>,
}

/// The unit an object is, if it has a `team` property; `at` is where the object is written.
fn unit(
    map: &::tiled::Map,
    object: &::tiled::Object,
    offset: (f32, f32),
    (projection, board, bounds): (Projection, Board, Bounds),
    at: (usize, usize),
    placed: &Placed,
) -> Result<Option<UnitSpawn>, Fault> {
    let id = object.id();
    let text = |key: &str| match object.properties.get(key) {
        None => Ok(None),
        Some(PropertyValue::StringValue(text)) => Ok(Some(text.clone())),
        Some(PropertyValue::IntValue(n)) if key == "attack" => Ok(Some(n.to_string())),
        Some(other) => Err((
            at,
            format!(
                "object {id}: the `{key}` property must be a string, got {}",
                describe(other)
            ),
        )),
    };
    let Some(team) = text("team")? else {
        return Ok(None);
    };
    let name = text("name")?
        .or_else(|| (!object.name.is_empty()).then(|| object.name.clone()))
        .ok_or_else(|| {
            (
                at,
                format!("object {id} has no name (set its Name or a `name` property)"),
            )
        })?;
    let unit = |message: String| (at, format!("object {id} (`{name}`): {message}"));
    let team = Team::parse(&team).ok_or_else(|| {
        unit(format!(
            "the `team` property must be blue or red, got `{team}`"
        ))
    })?;
    let class = text("class")?.unwrap_or_else(|| object.user_type.clone());
    let attack = text("attack")?
        .map(|range| parse_attack(&range))
        .transpose()
        .map_err(|e| unit(format!("the `attack` property: {e}")))?;
    let (x, y) = centre(object, projection, map.tile_height);
    let (x, y) = (x + f64::from(offset.0), y + f64::from(offset.1));
    let pos = cell_at_pixel(map, (projection, board, bounds), x, y).ok_or_else(|| {
        unit(format!(
            "its centre ({x}, {y}) px is outside the {}x{} map",
            bounds.columns, bounds.rows
        ))
    })?;
    if let Some(line) = placed.names.get(&name) {
        return Err(unit(format!(
            "a second unit named `{name}` (the first is on line {line})"
        )));
    }
    if let Some(&other) = placed.cells.get(&pos) {
        return Err(unit(format!(
            "stands on tile {pos}, like `{}`",
            placed.by_index[other]
        )));
    }
    if placed.by_index.len() == MAX_UNITS {
        return Err(unit(format!(
            "too many units (a map places at most {MAX_UNITS})"
        )));
    }
    Ok(Some(UnitSpawn {
        name,
        team,
        class,
        pos,
        attack,
        line: at.0,
        column: at.1,
        class_column: at.1,
    }))
}

/// An object's centre in the map's object coordinates. Tile objects hang up from their
/// bottom-left corner (bottom centre on an isometric map); rectangles and ellipses hang
/// down from their top-left; points are where they are.
fn centre(object: &::tiled::Object, projection: Projection, tile_height: u32) -> (f64, f64) {
    let (x, y) = (f64::from(object.x), f64::from(object.y));
    let size = match object.shape {
        ObjectShape::Rect { width, height }
        | ObjectShape::Ellipse { width, height }
        | ObjectShape::Capsule { width, height }
        | ObjectShape::Text { width, height, .. } => Some((f64::from(width), f64::from(height))),
        _ => None,
    };
    let Some((w, h)) = size else { return (x, y) };
    let diamond = matches!(projection, Projection::Isometric { stagger: None, .. });
    match (object.tile_data(), diamond) {
        // Half a tile up the screen from its bottom corner: half a tile back along both
        // axes, which an isometric map's object coordinates measure in tile heights.
        (Some(_), true) => {
            let half = f64::from(tile_height) / 2.0;
            (x - half, y - half)
        }
        (Some(_), false) => (x + w / 2.0, y - h / 2.0),
        (None, _) => (x + w / 2.0, y + h / 2.0),
    }
}

/// The level's cell under a point in a Tiled map's object coordinates, if it lies on the
/// map.
fn cell_at_pixel(
    map: &::tiled::Map,
    (projection, board, bounds): (Projection, Board, Bounds),
    x: f64,
    y: f64,
) -> Option<Pos> {
    if !(x.is_finite() && y.is_finite()) {
        return None;
    }
    let (tw, th) = (f64::from(map.tile_width), f64::from(map.tile_height));
    let (column, row) = match (projection, board) {
        // An isometric map's object coordinates run along its axes, a tile height a cell.
        (Projection::Isometric { stagger: None, .. }, _) => ((x / th).floor(), (y / th).floor()),
        (
            Projection::Isometric {
                stagger: Some(stagger),
                ..
            },
            _,
        ) => {
            // Screen pixels: the diamond around the point is the nearest centre's, measured
            // in half-tiles along each axis.
            let (column, row) = staggered_cell(stagger, (tw, th), x, y);
            let (column, row) = (column - f64::from(bounds.x), row - f64::from(bounds.y));
            let inside = column >= 0.0
                && row >= 0.0
                && column < f64::from(bounds.columns)
                && row < f64::from(bounds.rows);
            return inside.then(|| stagger.to_diamond(column as u32, row as u32));
        }
        (Projection::Flat, Board::Square(_)) => ((x / tw).floor(), (y / th).floor()),
        (Projection::Flat, Board::Hex(layout)) => {
            let side = f64::from(map.hex_side_length.unwrap_or(0));
            // The nearest centre around the estimate is the hex the point is in.
            let (row, column) = match layout {
                HexLayout::OddR | HexLayout::EvenR => {
                    ((y / ((th + side) / 2.0)).floor(), (x / tw).floor())
                }
                HexLayout::OddQ | HexLayout::EvenQ => {
                    ((y / th).floor(), (x / ((tw + side) / 2.0)).floor())
                }
            };
            let mut best = (f64::INFINITY, column, row);
            for dy in -1..=1 {
                for dx in -1..=1 {
                    let (c, r) = (column + f64::from(dx), row + f64::from(dy));
                    let (cx, cy) = hex_centre(layout, (tw, th, side), c, r);
                    let distance = (cx - x).powi(2) + (cy - y).powi(2);
                    if distance < best.0 {
                        best = (distance, c, r);
                    }
                }
            }
            (best.1, best.2)
        }
    };
    let (column, row) = (column - f64::from(bounds.x), row - f64::from(bounds.y));
    let inside = column >= 0.0
        && row >= 0.0
        && column < f64::from(bounds.width)
        && row < f64::from(bounds.height);
    inside.then(|| Pos::new(column as u32, row as u32))
}

/// The staggered cell (Tiled's column and row) whose diamond holds a point, in pixels.
fn staggered_cell(
    stagger: crate::convert::Stagger,
    (tw, th): (f64, f64),
    x: f64,
    y: f64,
) -> (f64, f64) {
    use crate::convert::StaggerAxis;
    let shifted = |i: f64| (i.rem_euclid(2.0) == 1.0) == stagger.odd;
    let centre = |c: f64, r: f64| match stagger.axis {
        StaggerAxis::Rows => (
            c * tw + tw / 2.0 + if shifted(r) { tw / 2.0 } else { 0.0 },
            r * th / 2.0 + th / 2.0,
        ),
        StaggerAxis::Columns => (
            c * tw / 2.0 + tw / 2.0,
            r * th + th / 2.0 + if shifted(c) { th / 2.0 } else { 0.0 },
        ),
    };
    let (column, row) = match stagger.axis {
        StaggerAxis::Rows => ((x / tw).floor(), (y / (th / 2.0)).floor()),
        StaggerAxis::Columns => ((x / (tw / 2.0)).floor(), (y / th).floor()),
    };
    let mut best = (f64::INFINITY, column, row);
    for dy in -2..=2 {
        for dx in -2..=2 {
            let (c, r) = (column + f64::from(dx), row + f64::from(dy));
            let (cx, cy) = centre(c, r);
            let distance = ((cx - x) / (tw / 2.0)).abs() + ((cy - y) / (th / 2.0)).abs();
            if distance < best.0 {
                best = (distance, c, r);
            }
        }
    }
    (best.1, best.2)
}

/// A hex cell's centre in Tiled's pixels, as Tiled's hexagonal renderer lays them out:
/// rows `(height + side) / 2` apart with shifted rows half a tile to the right (stagger
/// axis Y), or columns `(width + side) / 2` apart with shifted columns half a tile down.
fn hex_centre(
    layout: HexLayout,
    (tw, th, side): (f64, f64, f64),
    column: f64,
    row: f64,
) -> (f64, f64) {
    let odd = |i: f64| i.rem_euclid(2.0) == 1.0;
    match layout {
        HexLayout::OddR | HexLayout::EvenR => {
            let shifted = odd(row) == (layout == HexLayout::OddR);
            let x = column * tw + tw / 2.0 + if shifted { tw / 2.0 } else { 0.0 };
            (x, row * (th + side) / 2.0 + th / 2.0)
        }
        HexLayout::OddQ | HexLayout::EvenQ => {
            let shifted = odd(column) == (layout == HexLayout::OddQ);
            let y = row * th + th / 2.0 + if shifted { th / 2.0 } else { 0.0 };
            (column * (tw + side) / 2.0 + tw / 2.0, y)
        }
    }
}
