//! A Tiled map's tile layers: flattened out of their groups, bounded (an infinite map's
//! chunks) and laid on the level's cells (a staggered map's diamond cells). Their sizes and
//! data were checked before `tiled` read them ([`super::limits`]).

use std::path::Path;

use ::tiled::{LayerType, PropertyValue, TileLayer};
use tilewalk_path::formats::ParseError;

use super::{
    Element, Fault, LayerCell, MAX_CELLS, TiledLayer, TiledTileset, TilesetImages, describe,
};
use crate::assets::AssetFileError;
use crate::convert::{Projection, Stagger};

/// The cells a map's tile layers cover: their bounding box, in Tiled's cells.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) struct Bounds {
    /// Tiled's cell of the level's first column and row (not 0 for an infinite map).
    pub x: i32,
    pub y: i32,
    /// The level's size: Tiled's, or the diamond grid of a staggered map.
    pub width: u32,
    pub height: u32,
    /// Tiled's size.
    pub columns: u32,
    pub rows: u32,
}

/// The tile layers, and the cells they cover (`None` without a tile layer).
pub(super) struct Layers {
    pub layers: Vec<TiledLayer>,
    pub bounds: Option<Bounds>,
    /// The map's projection, a staggered map's with its size.
    pub projection: Projection,
}

/// A tile layer with what its groups give it: offset, opacity, visibility, terrain.
struct Flat<'map> {
    layer: TileLayer<'map>,
    name: String,
    visible: bool,
    opacity: f32,
    offset: (f32, f32),
    terrain: bool,
    above_units: bool,
    /// Where its `<layer>` element is among the map's elements.
    element: Option<usize>,
}

/// Every tile layer, in drawing order, with the cells it covers.
pub(super) fn layers(
    map: &::tiled::Map,
    tilesets: &[TiledTileset],
    elements: &[Element],
    projection: Projection,
    map_path: &Path,
) -> Result<Layers, AssetFileError> {
    let root = elements.first().map_or((1, 1), Element::at);
    let fail = |at: (usize, usize), message: String| {
        AssetFileError::in_file(map_path, ParseError::new(at.0, at.1, message))
    };
    let layer_elements = super::limits::tile_layers(elements);
    let mut flat = Vec::new();
    let mut seen_objects = false;
    let top = Parent {
        visible: true,
        opacity: 1.0,
        offset: (0.0, 0.0),
        terrain: true,
    };
    flatten(
        map.layers(),
        top,
        &mut seen_objects,
        &mut flat,
        &layer_elements,
        elements,
    )
    .map_err(|(at, m)| fail(at, m))?;
    if flat.is_empty() {
        return Ok(Layers {
            layers: Vec::new(),
            bounds: None,
            projection,
        });
    }
    // The bounds: a finite map's size, or the chunks' bounding box.
    let (mut low, mut high) = ((i64::MAX, i64::MAX), (i64::MIN, i64::MIN));
    for layer in &flat {
        match layer.layer {
            TileLayer::Finite(_) => {
                low = (low.0.min(0), low.1.min(0));
                high = (
                    high.0.max(i64::from(map.width) - 1),
                    high.1.max(i64::from(map.height) - 1),
                );
            }
            TileLayer::Infinite(infinite) => {
                for ((cx, cy), _) in infinite.chunks() {
                    let (x, y) = (
                        i64::from(cx) * i64::from(::tiled::ChunkData::WIDTH),
                        i64::from(cy) * i64::from(::tiled::ChunkData::HEIGHT),
                    );
                    low = (low.0.min(x), low.1.min(y));
                    high = (
                        high.0.max(x + i64::from(::tiled::ChunkData::WIDTH) - 1),
                        high.1.max(y + i64::from(::tiled::ChunkData::HEIGHT) - 1),
                    );
                }
            }
        }
    }
    if low.0 > high.0 {
        // Infinite layers without a chunk.
        (low, high) = ((0, 0), (0, 0));
    }
    let (columns, rows) = ((high.0 - low.0 + 1) as u64, (high.1 - low.1 + 1) as u64);
    if columns * rows > MAX_CELLS {
        return Err(fail(
            root,
            format!("the map's chunks span {columns}x{rows} tiles (at most 16M tiles)"),
        ));
    }
    let (columns, rows) = (columns as u32, rows as u32);
    // A staggered map's size is known now.
    let projection = match projection {
        Projection::Isometric {
            aspect,
            stagger: Some(stagger),
        } => Projection::Isometric {
            aspect,
            stagger: Some(Stagger {
                columns,
                rows,
                ..stagger
            }),
        },
        other => other,
    };
    let stagger = projection.stagger();
    let (width, height) = stagger.map_or((columns, rows), Stagger::diamond_size);
    let bounds = Bounds {
        x: low.0 as i32,
        y: low.1 as i32,
        width,
        height,
        columns,
        rows,
    };
    let cell_index = |column: u32, row: u32| match stagger {
        Some(stagger) => {
            let pos = stagger.to_diamond(column, row);
            (pos.y * width + pos.x) as usize
        }
        None => (row * width + column) as usize,
    };
    let first_gids: Vec<u32> = elements
        .iter()
        .filter(|e| e.name == "tileset" && e.depth == 1)
        .map(|e| {
            e.attr("firstgid")
                .and_then(|v| v.trim().parse().ok())
                .unwrap_or(1)
        })
        .collect();
    let mut out = Vec::new();
    for layer in flat {
        let layer_at = layer.element.map_or(root, |i| elements[i].at());
        // Its one `<data>`, whose length was checked before `tiled` read it.
        let data = layer.element.and_then(|i| {
            super::limits::children(elements, i)
                .map(|c| &elements[c])
                .find(|e| e.name == "data")
        });
        let mut cells = vec![None; width as usize * height as usize];
        // Where a cell is written: its CSV entry or `<tile>`, else the layer.
        let entry = |index: usize| {
            data.and_then(|d| d.entries.get(index).copied())
                .unwrap_or(layer_at)
        };
        for row in 0..rows {
            for column in 0..columns {
                let (x, y) = (column as i32 + bounds.x, row as i32 + bounds.y);
                let tile = match layer.layer {
                    TileLayer::Finite(finite) => finite.get_tile(x, y),
                    TileLayer::Infinite(infinite) => infinite.get_tile(x, y),
                };
                let Some(tile) = tile else { continue };
                let (index, id) = unrotated(tile.tileset_index(), tile.id(), &first_gids);
                let tileset = &tilesets[index];
                let known = match &tileset.images {
                    TilesetImages::Atlas(image) => id < image.count,
                    TilesetImages::Collection(images) => images.iter().any(|(i, _)| *i == id),
                };
                if !known {
                    let index = (y.max(0) as u32 * map.width + x.max(0) as u32) as usize;
                    return Err(fail(
                        entry(index),
                        format!(
                            "layer `{}`: cell {x},{y} has tile {id}, which its tileset `{}` does not have",
                            layer.name, tileset.name
                        ),
                    ));
                }
                cells[cell_index(column, row)] = Some(LayerCell {
                    tileset: index as u16,
                    id,
                    flip_h: tile.flip_h,
                    flip_v: tile.flip_v,
                    flip_d: tile.flip_d,
                });
            }
        }
        out.push(TiledLayer {
            name: layer.name,
            visible: layer.visible,
            opacity: layer.opacity,
            offset: layer.offset,
            terrain: layer.terrain,
            above_units: layer.above_units,
            cells,
        });
    }
    Ok(Layers {
        layers: out,
        bounds: Some(bounds),
        projection,
    })
}

/// A tile's tileset and id without the flag of a hexagonal map's 120° rotation (bit 28 of
/// its gid), which `tiled` leaves in the gid: the rotation is not drawn.
fn unrotated(tileset: usize, id: u32, first_gids: &[u32]) -> (usize, u32) {
    const ROTATED: u64 = 0x1000_0000;
    let Some(&first) = first_gids.get(tileset) else {
        return (tileset, id);
    };
    let gid = u64::from(first) + u64::from(id);
    if gid & ROTATED == 0 {
        return (tileset, id);
    }
    let gid = gid & !ROTATED;
    match first_gids.iter().rposition(|&f| u64::from(f) <= gid) {
        Some(index) => (index, (gid - u64::from(first_gids[index])) as u32),
        None => (tileset, id),
    }
}

/// What a group layer passes down to its layers.
#[derive(Clone, Copy)]
struct Parent {
    visible: bool,
    opacity: f32,
    offset: (f32, f32),
    terrain: bool,
}

/// Collects the tile layers of `layers` (and of their groups, depth first, which is the
/// order of their `<layer>` elements), noting whether an object layer came first.
fn flatten<'map>(
    layers: impl Iterator<Item = ::tiled::Layer<'map>>,
    parent: Parent,
    seen_objects: &mut bool,
    out: &mut Vec<Flat<'map>>,
    layer_elements: &[usize],
    elements: &[Element],
) -> Result<(), Fault> {
    let root = elements.first().map_or((1, 1), Element::at);
    for layer in layers {
        let terrain = match layer.properties.get("terrain") {
            None => parent.terrain,
            Some(PropertyValue::BoolValue(terrain)) => parent.terrain && *terrain,
            Some(other) => {
                return Err((
                    root,
                    format!(
                        "layer `{}`: the `terrain` property must be a bool, got {}",
                        layer.name,
                        describe(other)
                    ),
                ));
            }
        };
        let own = Parent {
            visible: parent.visible && layer.visible,
            opacity: parent.opacity * layer.opacity,
            offset: (
                parent.offset.0 + layer.offset_x,
                parent.offset.1 + layer.offset_y,
            ),
            terrain,
        };
        match layer.layer_type() {
            LayerType::Tiles(tiles) => {
                let element = layer_elements.get(out.len()).copied();
                out.push(Flat {
                    layer: tiles,
                    name: layer.name.clone(),
                    visible: own.visible,
                    opacity: own.opacity,
                    offset: own.offset,
                    terrain: own.terrain,
                    above_units: *seen_objects,
                    element,
                });
            }
            LayerType::Group(group) => {
                flatten(
                    group.layers(),
                    own,
                    seen_objects,
                    out,
                    layer_elements,
                    elements,
                )?;
            }
            LayerType::Objects(_) => *seen_objects = true,
            LayerType::Image(_) => {}
        }
    }
    Ok(())
}
