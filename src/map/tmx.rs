//! Tiled maps (`.tmx`, Tiled's XML format) and their `.tsx` tilesets, read with the `tiled`
//! crate into a [`MapAsset`]: orthogonal and staggered hex maps, terrain and costs from the
//! tileset's tiles, units from object layers.
//!
//! The rules (`docs/tiled.md` says the same for designers):
//! - Orientation `orthogonal` is `square-8`, or `square-4` when the map has a string
//!   property `board` naming it; `hexagonal` maps are `hex-odd-r` / `hex-even-r` (stagger
//!   axis Y, odd or even rows shifted right) and `hex-odd-q` / `hex-even-q` (stagger axis X,
//!   columns shifted down). Tiled's row 0 is the top row, as in map files.
//! - One tileset with one image, one finite tile layer with a tile in every cell.
//! - A tile's terrain is its `terrain` string property, else its Class; a numeric property
//!   named like a movement class of the terrain table (`foot`, `horse`, `flyer` in the
//!   shipped one) overrides that terrain's cost for this tile (a tile with costs may name no
//!   terrain; a class missing from both is impassable).
//! - Every object of every object layer is a unit: `name` property (else the object's
//!   name), `team` property, `class` property (else the object's Class), optional `attack`
//!   (`N` or `MIN-MAX`). It stands on the tile under its centre (tile objects hang up from
//!   their bottom-left corner, as Tiled draws them).
//!
//! The XML is read twice: once with quick-xml (the parser inside `tiled`), to report syntax
//! errors at their `line:col` and to know where each tile and object is written, then by
//! `tiled`. Files are read by the caller (std for the commands, the asset server for the
//! game), so the same code serves both.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use ::tiled::{
    LayerType, Loader, ObjectShape, Orientation, PropertyValue, StaggerAxis, StaggerIndex,
    TileLayer,
};
use quick_xml::events::Event;
use tilewalk_path::formats::ParseError;
use tilewalk_path::{Board, HexLayout, MAX_COST, MIN_COST, Pos};

use super::{MAX_UNITS, MapAsset, UnitSpawn, parse_attack};
use crate::assets::{AssetFileError, read_file};
use crate::terrain::{Terrain, TerrainTable};
use crate::units::Team;

/// The tileset image that draws a Tiled map.
#[derive(Clone, Debug, PartialEq)]
pub struct TilesetImage {
    /// The image file, as Tiled names it, relative to the map's folder.
    pub path: PathBuf,
    /// One tile's size in the image, in pixels.
    pub tile_width: u32,
    pub tile_height: u32,
    /// Pixels between tiles in the image.
    pub spacing: u32,
}

/// What one tileset tile stands for.
#[derive(Clone, Debug, PartialEq)]
struct TileKind {
    /// The terrain of the terrain table it names.
    terrain: Option<String>,
    /// Its properties other than `terrain`, by name: one named like a movement class of the
    /// terrain table is that class's cost over the terrain's.
    costs: Vec<CostProperty>,
    /// Where its `<tile>` element is (line, column) in the file that holds the tileset.
    at: (usize, usize),
}

/// A tile property read as a cost.
#[derive(Clone, Debug, PartialEq)]
struct CostProperty {
    name: String,
    /// The cost, or why the value is none.
    cost: Result<f64, String>,
    /// Where it is written.
    at: (usize, usize),
}

/// A Tiled map's terrain: the tileset tile of every cell and what each tile stands for.
#[derive(Clone, Debug, PartialEq)]
pub struct TiledTerrain {
    /// The local tile id of every cell, row by row.
    cells: Vec<u32>,
    /// Every tile of the tileset, by local id.
    tiles: Vec<TileKind>,
    /// The tileset's file, relative to the map's folder; `None` when embedded in the map.
    tileset_file: Option<PathBuf>,
    /// Where the map names its tileset (line, column).
    tileset_at: (usize, usize),
    pub image: TilesetImage,
}

impl TiledTerrain {
    /// One terrain per tileset tile (its `tile` is the tile's id in the tileset image, so
    /// repainting a cell is a change), and every cell's tile. Fails on a terrain name the
    /// table does not have.
    pub fn resolve(&self, table: &TerrainTable) -> Result<(TerrainTable, Vec<usize>), ParseError> {
        let terrains = self
            .tiles
            .iter()
            .enumerate()
            .map(|(id, kind)| {
                let base = match &kind.terrain {
                    Some(name) => Some(
                        table
                            .terrains
                            .iter()
                            .find(|t| &t.name == name)
                            .ok_or_else(|| self.unknown_terrain(id, kind, name, table))?,
                    ),
                    None => None,
                };
                let costs = table
                    .all_classes()
                    .zip(&table.classes)
                    .map(
                        |(class, spec)| match kind.costs.iter().find(|p| p.name == spec.name) {
                            Some(CostProperty { cost: Ok(cost), .. }) => Ok(Some(*cost)),
                            Some(CostProperty {
                                cost: Err(e), at, ..
                            }) => Err(self.in_tileset(id, *at, e)),
                            None => Ok(base.and_then(|t| t.cost(class))),
                        },
                    )
                    .collect::<Result<_, ParseError>>()?;
                Ok(Terrain {
                    name: base.map_or_else(|| format!("tile {id}"), |t| t.name.clone()),
                    glyphs: base.map_or_else(String::new, |t| t.glyphs.clone()),
                    tile: id as u32,
                    costs,
                })
            })
            .collect::<Result<_, ParseError>>()?;
        Ok((
            TerrainTable {
                classes: table.classes.clone(),
                terrains,
            },
            self.cells.iter().map(|&id| id as usize).collect(),
        ))
    }

    /// The error for a tile naming a terrain the table lacks, at the tile in an embedded
    /// tileset, else at the map's `<tileset>` with the tileset file's own position.
    /// An error about tile `id` written at `at` in the tileset: there, or for an external
    /// tileset at the line of the map that names it, saying where in the tileset.
    fn in_tileset(&self, id: usize, at: (usize, usize), message: &str) -> ParseError {
        match &self.tileset_file {
            None => ParseError::new(at.0, at.1, format!("tile {id}: {message}")),
            Some(file) => ParseError::new(
                self.tileset_at.0,
                self.tileset_at.1,
                format!(
                    "tile {id} of {} ({}:{}:{}): {message}",
                    file.display(),
                    file.display(),
                    at.0,
                    at.1
                ),
            ),
        }
    }

    fn unknown_terrain(
        &self,
        id: usize,
        kind: &TileKind,
        name: &str,
        table: &TerrainTable,
    ) -> ParseError {
        let names: Vec<&str> = table.terrains.iter().map(|t| t.name.as_str()).collect();
        let known = format!("the terrain table has {}", names.join(", "));
        match &self.tileset_file {
            None => ParseError::new(
                kind.at.0,
                kind.at.1,
                format!("tile {id} names terrain `{name}`, which is unknown ({known})"),
            ),
            Some(file) => ParseError::new(
                self.tileset_at.0,
                self.tileset_at.1,
                format!(
                    "tile {id} of {} ({}:{}:{}) names terrain `{name}`, which is unknown ({known})",
                    file.display(),
                    file.display(),
                    kind.at.0,
                    kind.at.1
                ),
            ),
        }
    }
}

/// A `<tileset source="...">` the map names, resolved against the map's path the way the
/// `tiled` crate resolves it.
#[derive(Clone, Debug, PartialEq)]
pub struct TilesetRef {
    pub path: PathBuf,
    /// Where the map names it (line, column).
    pub line: usize,
    pub column: usize,
}

impl TilesetRef {
    /// The error for a tileset file that cannot be read.
    pub fn unreadable(&self, why: impl std::fmt::Display) -> ParseError {
        ParseError::new(
            self.line,
            self.column,
            format!("cannot read the tileset {}: {why}", self.path.display()),
        )
    }
}

/// The external tilesets a map's text names (checking the XML on the way).
pub fn tileset_refs(map_path: &Path, text: &str) -> Result<Vec<TilesetRef>, ParseError> {
    let folder = map_path.parent().unwrap_or(Path::new(""));
    Ok(scan(text)?
        .into_iter()
        .filter(|e| e.name == "tileset")
        .filter_map(|e| {
            let source = e.attr("source")?;
            Some(TilesetRef {
                path: folder.join(source),
                line: e.line,
                column: e.column,
            })
        })
        .collect())
}

/// Reads a Tiled map and its tilesets from disk (bounded reads, like every game file).
pub fn read_tmx(path: &Path) -> Result<MapAsset, AssetFileError> {
    let text = read_file(path)?;
    let refs = tileset_refs(path, &text).map_err(|e| AssetFileError::in_file(path, e))?;
    let mut tilesets = HashMap::new();
    for tileset in refs {
        let file = match read_file(&tileset.path) {
            Ok(file) => file,
            Err(AssetFileError::Io { message, .. }) => {
                let error = tileset.unreadable(message);
                return Err(AssetFileError::in_file(path, error));
            }
            Err(other) => return Err(other),
        };
        tilesets.insert(tileset.path, file);
    }
    parse(path, &text, &tilesets)
}

/// Parses a Tiled map from its text and the text of every tileset file it names (keyed by
/// [`TilesetRef::path`]). Errors name the map or the tileset file, with `line:col` where
/// there is one.
pub fn parse(
    map_path: &Path,
    text: &str,
    tilesets: &HashMap<PathBuf, String>,
) -> Result<MapAsset, AssetFileError> {
    let in_map = |e: ParseError| AssetFileError::in_file(map_path, e);
    let elements = scan(text).map_err(in_map)?;
    let root = elements.first().map_or((1, 1), Element::at);
    let fail = |at: (usize, usize), message: String| in_map(ParseError::new(at.0, at.1, message));
    // Refuse a huge map before `tiled` reads its tiles.
    let size = |name| {
        elements
            .first()
            .and_then(|e| e.attr(name))
            .and_then(|v| v.parse::<u64>().ok())
    };
    if let (Some(width), Some(height)) = (size("width"), size("height"))
        && width.saturating_mul(height) > 1 << 24
    {
        return Err(fail(
            root,
            "the map is too large (at most 16M tiles)".into(),
        ));
    }
    too_many_tiles(&elements).map_err(in_map)?;
    let mut scanned = HashMap::new();
    for (path, tileset) in tilesets {
        let found = scan(tileset).map_err(|e| AssetFileError::in_file(path, e))?;
        too_many_tiles(&found).map_err(|e| AssetFileError::in_file(path, e))?;
        scanned.insert(path.as_path(), found);
    }
    let reader = |path: &Path| -> Result<&[u8], std::io::Error> {
        if path == map_path {
            return Ok(text.as_bytes());
        }
        tilesets.get(path).map(|t| t.as_bytes()).ok_or_else(|| {
            std::io::Error::other("tilewalk reads a map and its tilesets only (no templates)")
        })
    };
    // Each tileset on its own first, so that its errors name its file.
    for path in tilesets.keys() {
        Loader::with_reader(reader)
            .load_tsx_tileset(path)
            .map_err(|e| tiled_error(path, &e))?;
    }
    let map = Loader::with_reader(reader)
        .load_tmx_map(map_path)
        .map_err(|e| tiled_error(map_path, &e))?;

    let board = board(&map).map_err(|m| fail(root, m))?;
    if map.infinite() {
        return Err(fail(
            root,
            "infinite maps are not supported (untick Infinite in the map's properties)".into(),
        ));
    }
    let [tileset] = map.tilesets() else {
        return Err(fail(
            root,
            format!(
                "the map uses {} tilesets; tilewalk reads maps with exactly one",
                map.tilesets().len()
            ),
        ));
    };
    // The tileset's own elements: in its file, or embedded in the map.
    let folder = map_path.parent().unwrap_or(Path::new(""));
    let reference = elements.iter().find(|e| e.name == "tileset");
    let tileset_at = reference.map_or(root, Element::at);
    let (tileset_file, tileset_elements) = match reference.and_then(|e| e.attr("source")) {
        Some(source) => {
            let path = folder.join(source);
            let Some(found) = scanned.get(path.as_path()) else {
                return Err(fail(
                    tileset_at,
                    format!("cannot read the tileset {}", path.display()),
                ));
            };
            (Some(path), found)
        }
        None => (None, &elements),
    };
    let in_tileset = |at: (usize, usize), message: String| match &tileset_file {
        Some(path) => AssetFileError::in_file(path, ParseError::new(at.0, at.1, message)),
        None => fail(at, message),
    };
    let tileset_root = tileset_elements
        .iter()
        .find(|e| e.name == "tileset")
        .map_or(tileset_at, Element::at);
    let Some(image) = &tileset.image else {
        return Err(in_tileset(
            tileset_root,
            "the tileset has no single image (image collections are not supported)".into(),
        ));
    };
    if tileset.margin != 0 {
        return Err(in_tileset(
            tileset_root,
            format!(
                "the tileset has a {} px margin; tilewalk draws tilesets without one",
                tileset.margin
            ),
        ));
    }
    let tiles = (0..tileset.tilecount)
        .map(|id| tile_kind(tileset, id, tileset_elements, tileset_root))
        .collect::<Result<Vec<_>, _>>()
        .map_err(|(at, message)| in_tileset(at, message))?;

    let cells = terrain_cells(&map, &tiles, &elements).map_err(|(at, m)| fail(at, m))?;
    let units = units(&map, board, &elements).map_err(|(at, m)| fail(at, m))?;
    Ok(MapAsset {
        width: map.width,
        height: map.height,
        board,
        glyphs: Vec::new(),
        rows: Vec::new(),
        units,
        tiles: Some(TiledTerrain {
            cells,
            tiles,
            tileset_file: tileset_file.map(|path| {
                path.strip_prefix(folder)
                    .map_or(path.clone(), Path::to_path_buf)
            }),
            tileset_at,
            image: TilesetImage {
                path: image
                    .source
                    .strip_prefix(folder)
                    .unwrap_or(&image.source)
                    .to_path_buf(),
                tile_width: tileset.tile_width,
                tile_height: tileset.tile_height,
                spacing: tileset.spacing,
            },
        }),
    })
}

/// A position in a file and the message for it.
type Fault = ((usize, usize), String);

/// The board a Tiled map's orientation, stagger and `board` property make.
fn board(map: &::tiled::Map) -> Result<Board, String> {
    let named = match map.properties.get("board") {
        None => None,
        Some(PropertyValue::StringValue(name)) => Some(
            name.parse::<Board>()
                .map_err(|e| format!("the `board` property: {e}"))?,
        ),
        Some(other) => {
            return Err(format!(
                "the `board` property must be a string, got {}",
                describe(other)
            ));
        }
    };
    match map.orientation {
        Orientation::Orthogonal => match named {
            None => Ok(Board::default()),
            Some(board @ Board::Square(_)) => Ok(board),
            Some(board) => Err(format!(
                "the `board` property says {board}, but an orthogonal map is square (square-8 or square-4)"
            )),
        },
        Orientation::Hexagonal => {
            let layout = match (map.stagger_axis, map.stagger_index) {
                (StaggerAxis::Y, StaggerIndex::Odd) => HexLayout::OddR,
                (StaggerAxis::Y, StaggerIndex::Even) => HexLayout::EvenR,
                (StaggerAxis::X, StaggerIndex::Odd) => HexLayout::OddQ,
                (StaggerAxis::X, StaggerIndex::Even) => HexLayout::EvenQ,
            };
            match named {
                Some(board) if board != Board::Hex(layout) => Err(format!(
                    "the `board` property says {board}, but the map's stagger axis and index make it {}",
                    Board::Hex(layout)
                )),
                _ => Ok(Board::Hex(layout)),
            }
        }
        other => Err(format!(
            "{} maps are not supported (tilewalk reads orthogonal and hexagonal maps)",
            format!("{other:?}").to_lowercase()
        )),
    }
}

/// What tileset tile `id` stands for, from its Class and properties.
fn tile_kind(
    tileset: &::tiled::Tileset,
    id: u32,
    elements: &[Element],
    tileset_root: (usize, usize),
) -> Result<TileKind, Fault> {
    let index = elements
        .iter()
        .position(|e| e.name == "tile" && e.attr("id") == Some(&id.to_string()));
    let at = index.map_or(tileset_root, |i| elements[i].at());
    let Some(tile) = tileset.get_tile(id) else {
        return Ok(TileKind {
            terrain: None,
            costs: Vec::new(),
            at,
        });
    };
    // A property's own line, else the tile's.
    let property_at = |name: &str| {
        index
            .and_then(|i| {
                elements[i + 1..]
                    .iter()
                    .take_while(|e| e.name != "tile")
                    .find(|e| e.name == "property" && e.attr("name") == Some(name))
            })
            .map_or(at, Element::at)
    };
    let terrain = match tile.properties.get("terrain") {
        Some(PropertyValue::StringValue(name)) => Some(name.clone()),
        Some(other) => {
            return Err((
                property_at("terrain"),
                format!(
                    "tile {id}: the `terrain` property must be a string naming a terrain, got {}",
                    describe(other)
                ),
            ));
        }
        None => (!tile.user_type.is_empty()).then(|| tile.user_type.clone()),
    };
    // Which are costs depends on the terrain table's classes: every other property is kept
    // with its reading as a cost, and used if a class has its name.
    let mut costs: Vec<_> = tile
        .properties
        .iter()
        .filter(|(name, _)| *name != "terrain")
        .map(|(name, value)| CostProperty {
            name: name.clone(),
            cost: cost(value),
            at: property_at(name),
        })
        .collect();
    costs.sort_by(|a, b| a.name.cmp(&b.name));
    Ok(TileKind { terrain, costs, at })
}

/// A cost property's value: a number (or a string holding one) the search can order.
fn cost(value: &PropertyValue) -> Result<f64, String> {
    let number = match value {
        // Through its shortest decimal form, so that a float property of 1.1 costs 1.1.
        PropertyValue::FloatValue(v) => v.to_string().parse().ok(),
        PropertyValue::IntValue(v) => Some(f64::from(*v)),
        PropertyValue::StringValue(text) => text.trim().parse().ok(),
        _ => None,
    };
    match number {
        Some(cost) if (MIN_COST..=MAX_COST).contains(&cost) => Ok(cost),
        Some(cost) => Err(format!(
            "the cost must be between {MIN_COST} and {MAX_COST}, got {cost}"
        )),
        None => Err(format!(
            "the cost must be a number, got {}",
            describe(value)
        )),
    }
}

fn describe(value: &PropertyValue) -> String {
    match value {
        PropertyValue::StringValue(text) | PropertyValue::FileValue(text) => format!("`{text}`"),
        PropertyValue::BoolValue(b) => format!("`{b}` (a bool)"),
        PropertyValue::ColorValue(_) => "a color".into(),
        other => format!("{other:?}"),
    }
}

/// The tile of every cell, from the map's one tile layer.
fn terrain_cells(
    map: &::tiled::Map,
    tiles: &[TileKind],
    elements: &[Element],
) -> Result<Vec<u32>, Fault> {
    let root = elements.first().map_or((1, 1), Element::at);
    let mut layers = Vec::new();
    for layer in map.layers() {
        match layer.layer_type() {
            LayerType::Tiles(tiles) => layers.push((layer.name.clone(), tiles)),
            LayerType::Group(_) => {
                return Err((
                    root,
                    format!("layer `{}`: group layers are not supported", layer.name),
                ));
            }
            LayerType::Objects(_) | LayerType::Image(_) => {}
        }
    }
    let [(name, layer)] = &layers[..] else {
        return Err((
            root,
            format!(
                "the map has {} tile layers; tilewalk reads exactly one (the terrain)",
                layers.len()
            ),
        ));
    };
    let layer_at = elements
        .iter()
        .find(|e| e.name == "layer")
        .map_or(root, Element::at);
    let TileLayer::Finite(layer) = layer else {
        return Err((layer_at, format!("layer `{name}` is infinite")));
    };
    let data = elements.iter().find(|e| e.name == "data");
    // `tiled` indexes a layer's data without checking its length: check it here, on the
    // one encoding read (Tiled's default).
    let Some(data) = data.filter(|d| d.attr("encoding") == Some("csv")) else {
        return Err((
            data.map_or(layer_at, Element::at),
            format!(
                "layer `{name}`: only CSV tile data is read (in Tiled: Map > Map Properties > Tile Layer Format > CSV)"
            ),
        ));
    };
    let needed = (map.width * map.height) as usize;
    if (layer.width(), layer.height()) != (map.width, map.height) || data.entries.len() != needed {
        return Err((
            data.at(),
            format!(
                "layer `{name}`: {}x{} with {} tiles of data; the {}x{} map needs {needed}",
                layer.width(),
                layer.height(),
                data.entries.len(),
                map.width,
                map.height
            ),
        ));
    }
    // Where a cell is written: its entry in the CSV data.
    let cell_at = |index: usize| data.entries[index];
    let mut cells = Vec::with_capacity(needed);
    for y in 0..map.height {
        for x in 0..map.width {
            let index = (y * map.width + x) as usize;
            let Some(tile) = layer.get_tile(x as i32, y as i32) else {
                return Err((
                    cell_at(index),
                    format!("layer `{name}`: cell {x},{y} is empty (every cell needs a tile)"),
                ));
            };
            let Some(kind) = tiles.get(tile.id() as usize) else {
                return Err((
                    cell_at(index),
                    format!(
                        "layer `{name}`: cell {x},{y} has tile {}, which its tileset does not have ({} tiles)",
                        tile.id(),
                        tiles.len()
                    ),
                ));
            };
            if kind.terrain.is_none() && kind.costs.iter().all(|p| p.cost.is_err()) {
                return Err((
                    cell_at(index),
                    format!(
                        "layer `{name}`: cell {x},{y} has tile {}, which names no terrain (give it a Class or `terrain` property from the terrain table, or costs named after movement classes)",
                        tile.id()
                    ),
                ));
            }
            cells.push(tile.id());
        }
    }
    Ok(cells)
}

/// The units: every object of every object layer.
fn units(map: &::tiled::Map, board: Board, elements: &[Element]) -> Result<Vec<UnitSpawn>, Fault> {
    let root = elements.first().map_or((1, 1), Element::at);
    let mut units: Vec<UnitSpawn> = Vec::new();
    for layer in map.layers() {
        let LayerType::Objects(objects) = layer.layer_type() else {
            continue;
        };
        for object in objects.objects() {
            let id = object.id();
            let at = elements
                .iter()
                .find(|e| e.name == "object" && e.attr("id") == Some(&id.to_string()))
                .map_or(root, Element::at);
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
            let name = text("name")?
                .or_else(|| (!object.name.is_empty()).then(|| object.name.clone()))
                .ok_or_else(|| {
                    (
                        at,
                        format!("object {id} has no name (set its Name or a `name` property)"),
                    )
                })?;
            let unit = |message: String| (at, format!("object {id} (`{name}`): {message}"));
            let team = text("team")?.unwrap_or_default();
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
            let (x, y) = centre(&object);
            let (x, y) = (x + f64::from(layer.offset_x), y + f64::from(layer.offset_y));
            let pos = cell_at_pixel(map, board, x, y).ok_or_else(|| {
                unit(format!(
                    "its centre ({x}, {y}) px is outside the {}x{} map",
                    map.width, map.height
                ))
            })?;
            if let Some(other) = units.iter().find(|u| u.name == name) {
                return Err(unit(format!(
                    "a second unit named `{name}` (the first is on line {})",
                    other.line
                )));
            }
            if let Some(other) = units.iter().find(|u| u.pos == pos) {
                return Err(unit(format!("stands on tile {pos}, like `{}`", other.name)));
            }
            if units.len() == MAX_UNITS {
                return Err(unit(format!(
                    "too many units (a map places at most {MAX_UNITS})"
                )));
            }
            units.push(UnitSpawn {
                name,
                team,
                class,
                pos,
                attack,
                line: at.0,
                column: at.1,
                class_column: at.1,
            });
        }
    }
    Ok(units)
}

/// An object's centre in the map's pixels. Tile objects hang up from their bottom-left
/// corner; rectangles and ellipses hang down from their top-left; points are where they are.
fn centre(object: &::tiled::Object) -> (f64, f64) {
    let (x, y) = (f64::from(object.x), f64::from(object.y));
    match object.shape {
        ObjectShape::Rect { width, height }
        | ObjectShape::Ellipse { width, height }
        | ObjectShape::Capsule { width, height }
        | ObjectShape::Text { width, height, .. } => {
            let (w, h) = (f64::from(width), f64::from(height));
            match object.tile_data() {
                Some(_) => (x + w / 2.0, y - h / 2.0),
                None => (x + w / 2.0, y + h / 2.0),
            }
        }
        _ => (x, y),
    }
}

/// The cell under a point in a Tiled map's pixels, if it lies on the map.
fn cell_at_pixel(map: &::tiled::Map, board: Board, x: f64, y: f64) -> Option<Pos> {
    if !(x.is_finite() && y.is_finite()) {
        return None;
    }
    let (tw, th) = (f64::from(map.tile_width), f64::from(map.tile_height));
    let (column, row) = match board {
        Board::Square(_) => ((x / tw).floor(), (y / th).floor()),
        Board::Hex(layout) => {
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
    let inside =
        column >= 0.0 && row >= 0.0 && column < f64::from(map.width) && row < f64::from(map.height);
    inside.then(|| Pos::new(column as u32, row as u32))
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

/// A `tiled` error as a message about `file` (`tiled` gives no line for its own checks).
fn tiled_error(file: &Path, error: &::tiled::Error) -> AssetFileError {
    let message = match error {
        ::tiled::Error::ResourceLoadingError { path, err } => {
            format!("cannot read {}: {err}", path.display())
        }
        other => other.to_string(),
    };
    AssetFileError::Io {
        file: file.display().to_string(),
        message,
    }
}

/// The most tiles a tileset may declare: `tiled` reserves room for `tilecount` tiles before
/// reading them (65,536 is an 8192 × 8192 image of 32 px tiles).
const MAX_TILESET_TILES: u64 = 1 << 16;

/// Refuses a `<tileset>` whose `tilecount` is beyond [`MAX_TILESET_TILES`], at its place.
fn too_many_tiles(elements: &[Element]) -> Result<(), ParseError> {
    for tileset in elements.iter().filter(|e| e.name == "tileset") {
        let count = tileset.attr("tilecount").unwrap_or("0");
        if count
            .trim()
            .parse::<u64>()
            .is_ok_and(|n| n > MAX_TILESET_TILES)
        {
            return Err(ParseError::new(
                tileset.line,
                tileset.column,
                format!(
                    "tilecount {count} is more than tilewalk reads ({MAX_TILESET_TILES} tiles a tileset)"
                ),
            ));
        }
    }
    Ok(())
}

/// An XML element the parser met: its name, attributes and position.
#[derive(Debug)]
struct Element {
    name: String,
    attributes: Vec<(String, String)>,
    line: usize,
    column: usize,
    /// For CSV `<data>`: where each entry is (line, column).
    entries: Vec<(usize, usize)>,
}

impl Element {
    fn at(&self) -> (usize, usize) {
        (self.line, self.column)
    }

    fn attr(&self, name: &str) -> Option<&str> {
        self.attributes
            .iter()
            .find(|(key, _)| key == name)
            .map(|(_, value)| value.as_str())
    }
}

/// The elements a Tiled file's messages point at.
const NOTED: [&str; 7] = [
    "map", "tileset", "tile", "property", "object", "layer", "data",
];

/// Reads `text` as XML, returning the elements messages point at (in document order), or
/// the first syntax error at its `line:col`.
fn scan(text: &str) -> Result<Vec<Element>, ParseError> {
    let mut reader = quick_xml::Reader::from_str(text);
    reader.check_end_names(true);
    let mut found: Vec<Element> = Vec::new();
    let mut open: Vec<(String, usize)> = Vec::new();
    loop {
        let start = reader.buffer_position();
        let event = reader.read_event().map_err(|e| {
            let (line, column) = line_col(text, reader.buffer_position());
            ParseError::new(line, column, format!("malformed XML: {e}"))
        })?;
        let opens = matches!(event, Event::Start(_));
        match event {
            Event::Start(element) | Event::Empty(element) => {
                let name = String::from_utf8_lossy(element.local_name().as_ref()).into_owned();
                // `<tile>` without an id is a cell of XML-encoded layer data: not noted.
                if NOTED.contains(&name.as_str()) {
                    let (line, column) = line_col(text, start);
                    let mut attributes = Vec::new();
                    for attribute in element.attributes() {
                        let attribute = attribute.map_err(|e| {
                            ParseError::new(line, column, format!("malformed XML: {e}"))
                        })?;
                        let value = attribute.unescape_value().map_err(|e| {
                            ParseError::new(line, column, format!("malformed XML: {e}"))
                        })?;
                        attributes.push((
                            String::from_utf8_lossy(attribute.key.local_name().as_ref())
                                .into_owned(),
                            value.into_owned(),
                        ));
                    }
                    if name != "tile" || attributes.iter().any(|(k, _)| k == "id") {
                        found.push(Element {
                            name: name.clone(),
                            attributes,
                            line,
                            column,
                            entries: Vec::new(),
                        });
                    }
                }
                if opens {
                    open.push((name, start));
                }
            }
            Event::End(_) => {
                open.pop();
            }
            Event::Text(data) => {
                if let Some(last) = found.last_mut()
                    && last.name == "data"
                    && last.entries.is_empty()
                    && open.last().is_some_and(|(name, _)| name == "data")
                {
                    last.entries = csv_entries(text, start, data.len());
                }
            }
            Event::Eof => break,
            _ => {}
        }
    }
    if let Some((name, at)) = open.last() {
        let (line, column) = line_col(text, text.len());
        let (open_line, open_column) = line_col(text, *at);
        return Err(ParseError::new(
            line,
            column,
            format!(
                "malformed XML: the file ends inside <{name}> (opened at {open_line}:{open_column})"
            ),
        ));
    }
    Ok(found)
}

/// Where each comma-separated entry of CSV layer data starts.
fn csv_entries(text: &str, start: usize, len: usize) -> Vec<(usize, usize)> {
    let data = &text.as_bytes()[start..(start + len).min(text.len())];
    let mut entries = Vec::new();
    let mut at_entry = true;
    let (mut line, mut column) = line_col(text, start);
    for &byte in data {
        if at_entry && !byte.is_ascii_whitespace() {
            entries.push((line, column));
            at_entry = false;
        }
        if byte == b',' {
            at_entry = true;
        }
        if byte == b'\n' {
            (line, column) = (line + 1, 1);
        } else {
            column += 1;
        }
    }
    entries
}

/// The 1-based line and column (in characters) of a byte offset.
fn line_col(text: &str, offset: usize) -> (usize, usize) {
    let before = &text.as_bytes()[..offset.min(text.len())];
    let line_start = before
        .iter()
        .rposition(|&b| b == b'\n')
        .map_or(0, |i| i + 1);
    let line = before.iter().filter(|&&b| b == b'\n').count() + 1;
    let column = String::from_utf8_lossy(&before[line_start..])
        .chars()
        .count()
        + 1;
    (line, column)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn elements_and_csv_entries_are_found_at_their_line_and_column() {
        let text = "<map a=\"1\">\n <layer>\n  <data encoding=\"csv\">\n1,2,\n 3</data>\n </layer>\n<object id=\"4\"/><object id=\"5\">\n</object></map>";
        let found = scan(text).unwrap();
        let at: Vec<(&str, (usize, usize))> =
            found.iter().map(|e| (e.name.as_str(), e.at())).collect();
        assert_eq!(
            at,
            [
                ("map", (1, 1)),
                ("layer", (2, 2)),
                ("data", (3, 3)),
                ("object", (7, 1)),
                ("object", (7, 17))
            ]
        );
        assert_eq!(found[2].entries, [(4, 1), (4, 3), (5, 2)]);
        assert_eq!(found[4].attr("id"), Some("5"));
        assert_eq!(line_col("ab\ncé\nx", 6), (2, 3), "columns count characters");
    }

    #[test]
    fn syntax_errors_are_found_at_their_line() {
        let error = scan("<map>\n <layer>\n </layr>\n</map>").unwrap_err();
        assert_eq!(error.line, 3, "{error}");
        assert!(error.message.starts_with("malformed XML"), "{error}");
        let open = scan("<map>\n <layer>\n").unwrap_err();
        assert_eq!(
            open.to_string(),
            "3:1: malformed XML: the file ends inside <layer> (opened at 2:2)"
        );
    }
}
