//! LDtk projects (`.ldtk`, their levels in the project or in `.ldtkl` files beside it),
//! one level at a time, read into the same [`MapAsset`] as a Tiled map: the level's layers
//! become tilesets and per-cell tile layers, drawn and resolved as Tiled's are.
//!
//! The rules (`docs/ldtk.md` says the same for designers):
//! - The level is the one named (`--level NAME`), else the project's first (worlds'
//!   levels after the project's own). It is a `square-8` board, or what its `board` field
//!   (a string) names, `square-8` or `square-4`.
//! - The level's cells are its finest layer grid; every IntGrid, Tiles and AutoLayer
//!   layer's grid must be a whole multiple of it (a coarser layer's cell covers several).
//! - A cell's terrain: across IntGrid layers, the topmost value there (0 is empty) whose
//!   identifier names a terrain of the terrain table (exactly, else letter case aside);
//!   else the level's `default_terrain` field; else impassable, with a warning.
//! - Tiles, auto-layer tiles (IntGrid layers' too) are drawn in the layers' order, tiles
//!   stacked on a cell in the order LDtk lists them; a tile larger than a cell hangs from
//!   its cell's bottom-left corner, as in Tiled. Tilesets are PNG images; one with no image
//!   (LDtk's built-in icons) draws nothing.
//! - An entity with a `team` field (`blue` or `red`) is a unit: `name` field (else the
//!   entity's identifier), `class` field (else the identifier), optional `attack` (`N` or
//!   `MIN-MAX`). It stands on the cell under its centre.
//!
//! Errors name the file, its line and column, and the JSON path of the value.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use bevy_tilewalk::Team;
use serde_json::Value;
use tilewalk_path::formats::ParseError;
use tilewalk_path::{Board, Pos};

use super::json::{Fault, Node, Owned, kind, syntax_error};
use super::tmx::{LayerCell, TiledLayer, TiledMap, TiledTileset, TilesetImage, TilesetImages};
use super::{MAX_UNITS, MapAsset, UnitSpawn, parse_attack};
use crate::assets::{AssetFileError, normalize, read_file};
use crate::convert::Projection;

pub use super::json::{JsonPath, locate};

/// The most cells a level may have (as a Tiled map).
const MAX_CELLS: u64 = 1 << 24;
/// The most cells of all the level's layers together (a layer per stack of tiles).
const MAX_LAYER_CELLS: u64 = 1 << 26;

/// What [`parse_step`] got to: the map, or the level's file it needs first.
#[derive(Debug)]
pub enum Step {
    Done(Box<MapAsset>),
    Read(LevelFile),
}

/// An external level file (`.ldtkl`) the project names, and where.
#[derive(Clone, Debug, PartialEq)]
pub struct LevelFile {
    /// The file, relative to where the project is (as the project's path is given).
    pub path: PathBuf,
    project: PathBuf,
    at: (usize, usize),
}

impl LevelFile {
    /// The error for a level file that cannot be read, where the project names it.
    pub fn unreadable(&self, why: impl std::fmt::Display) -> AssetFileError {
        AssetFileError::in_file(
            &self.project,
            ParseError::new(
                self.at.0,
                self.at.1,
                format!("cannot read the level file {}: {why}", self.path.display()),
            ),
        )
    }
}

/// Reads a level of an LDtk project (`level`, else the first) and its level file from
/// disk.
pub fn read_ldtk(path: &Path, level: Option<&str>) -> Result<MapAsset, AssetFileError> {
    let text = read_file(path)?;
    let mut external: Option<(PathBuf, String)> = None;
    loop {
        let given = external.as_ref().map(|(p, t)| (p.as_path(), t.as_str()));
        match parse_step(path, &text, level, given)? {
            Step::Done(map) => return Ok(*map),
            Step::Read(file) => {
                let read = match read_file(&file.path) {
                    Ok(read) => read,
                    Err(AssetFileError::Io { message, .. }) => {
                        return Err(file.unreadable(message));
                    }
                    Err(other) => return Err(other),
                };
                external = Some((file.path, read));
            }
        }
    }
}

/// Every file an LDtk project names, whichever level is played, relative to its folder:
/// its tilesets' images and its levels' files. A project that does not read names none.
pub fn named_files(path: &Path) -> Vec<PathBuf> {
    let read = read_file(path).ok();
    let Some(project) = read.and_then(|text| serde_json::from_str::<Value>(&text).ok()) else {
        return Vec::new();
    };
    let list = |value: &Value| value.as_array().cloned().unwrap_or_default();
    let mut levels = list(&project["levels"]);
    for world in list(&project["worlds"]) {
        levels.extend(list(&world["levels"]));
    }
    let images = list(&project["defs"]["tilesets"])
        .into_iter()
        .map(|t| t["relPath"].clone());
    let files = levels.into_iter().map(|l| l["externalRelPath"].clone());
    images
        .chain(files)
        .filter_map(|v| v.as_str().map(PathBuf::from))
        .collect()
}

/// Which text a fault is in.
#[derive(Clone, Copy)]
enum In {
    Project,
    Level,
}

/// Parses a level of an LDtk project from the project's text and, for a level kept in its
/// own file, that file (its path, as [`LevelFile::path`], and text); or says which file it
/// needs.
pub fn parse_step(
    project: &Path,
    text: &str,
    level: Option<&str>,
    external: Option<(&Path, &str)>,
) -> Result<Step, AssetFileError> {
    let root: Value = serde_json::from_str(text).map_err(|e| syntax_error(project, &e))?;
    let in_project = |f: Fault| AssetFileError::in_file(project, f.in_text(text));
    let root = Owned::root(&root);
    let chosen = choose_level(root.node(), level).map_err(in_project)?;
    let chosen_node = chosen.node();
    // The level's body: in the project, or in its own file.
    let (body, body_text, body_file, external_value);
    if chosen_node.opt("layerInstances").is_some() {
        body = Owned {
            value: chosen.value,
            path: chosen.path.clone(),
        };
        (body_text, body_file) = (text, project.to_path_buf());
    } else {
        let relative = chosen_node.get("externalRelPath").map_err(|f| {
            in_project(Fault {
                message: "the level has neither `layerInstances` nor `externalRelPath`".into(),
                ..f
            })
        })?;
        let name = relative.node().str().map_err(in_project)?;
        let folder = project.parent().unwrap_or(Path::new(""));
        let path = normalize(&folder.join(name));
        let Some((_, level_text)) = external.filter(|(p, _)| normalize(p) == path) else {
            let at = locate(text, &relative.path);
            return Ok(Step::Read(LevelFile {
                path,
                project: project.to_path_buf(),
                at,
            }));
        };
        external_value =
            serde_json::from_str::<Value>(level_text).map_err(|e| syntax_error(&path, &e))?;
        body = Owned::root(&external_value);
        (body_text, body_file) = (level_text, path);
    }
    let fail = |(place, fault): (In, Fault)| match place {
        In::Project => in_project(fault),
        In::Level => AssetFileError::in_file(&body_file, fault.in_text(body_text)),
    };
    let defs = Defs::read(root.node()).map_err(|f| fail((In::Project, f)))?;
    let name = chosen_node
        .get("identifier")
        .and_then(|n| n.node().str().map(str::to_owned))
        .map_err(|f| fail((In::Project, f)))?;
    let map = build(&defs, &name, body.node(), body_text, text).map_err(fail)?;
    Ok(Step::Done(Box::new(map)))
}

/// The project's levels (worlds' after its own), and the one asked for.
fn choose_level<'a>(root: Node<'a, '_>, name: Option<&str>) -> Result<Owned<'a>, Fault> {
    if root.value.get("defs").is_none() {
        let what = match root.value.pointer("/__header__/fileType") {
            Some(Value::String(kind)) if kind == "LDtk Level" => {
                "this is one level of an LDtk project: open the project (.ldtk) instead"
            }
            _ => "not an LDtk project (it has no `defs`)",
        };
        return Err(root.fault(what));
    }
    let mut levels = root.get("levels")?.node().items()?;
    if let Some(worlds) = root.opt("worlds") {
        for world in worlds.node().items()? {
            levels.extend(world.node().get("levels")?.node().items()?);
        }
    }
    let mut names = Vec::with_capacity(levels.len());
    for level in &levels {
        names.push(level.node().get("identifier")?.node().str()?.to_owned());
    }
    let index = match name {
        None if levels.is_empty() => {
            return Err(root.get("levels")?.node().fault("the project has no level"));
        }
        None => 0,
        Some(name) => names.iter().position(|n| n == name).ok_or_else(|| {
            let fault = root.fault(format!(
                "the project has no level `{name}` (its levels: {})",
                names.join(", ")
            ));
            root.get("levels").map_or(fault.clone(), |l| Fault {
                path: l.path,
                ..fault
            })
        })?,
    };
    Ok(levels.swap_remove(index))
}

/// The project's layer and tileset definitions.
struct Defs {
    /// Each IntGrid layer's values' identifiers, by layer uid.
    values: HashMap<i64, Vec<(u32, String)>>,
    /// The tilesets, by uid.
    tilesets: HashMap<i64, TilesetDef>,
}

struct TilesetDef {
    identifier: String,
    /// Its image, relative to the project, and the path of `relPath`.
    image: Option<(String, JsonPath)>,
    size: (u32, u32),
    grid: u32,
    spacing: u32,
    padding: u32,
}

impl TilesetDef {
    /// How many tiles fit across a side of `size` pixels.
    fn fit(&self, size: u32) -> u32 {
        (size.saturating_sub(2 * self.padding) + self.spacing) / (self.grid + self.spacing)
    }

    fn count(&self) -> u32 {
        self.fit(self.size.0) * self.fit(self.size.1)
    }

    /// The id of the tile whose top-left corner is at `(x, y)` in the image, as LDtk counts
    /// them (rows of the image's width); `u32::MAX` off the image.
    fn tile_at(&self, (x, y): (i64, i64)) -> u32 {
        let step = i64::from(self.grid + self.spacing);
        let (column, row) = (
            (x - i64::from(self.padding)).div_euclid(step),
            (y - i64::from(self.padding)).div_euclid(step),
        );
        let columns = i64::from(self.fit(self.size.0));
        if column < 0 || row < 0 || column >= columns {
            return u32::MAX;
        }
        u32::try_from(row * columns + column).unwrap_or(u32::MAX)
    }
}

impl Defs {
    fn read(root: Node) -> Result<Self, Fault> {
        let defs = root.get("defs")?;
        let defs = defs.node();
        let mut values = HashMap::new();
        for layer in defs.get("layers")?.node().items()? {
            let layer = layer.node();
            let uid = layer.get("uid")?.node().int()?;
            let mut named = Vec::new();
            if let Some(list) = layer.opt("intGridValues") {
                for (index, value) in list.node().items()?.into_iter().enumerate() {
                    let value = value.node();
                    // LDtk before 0.9 writes no `value`: its loader counts from 1.
                    let number = match value.opt("value") {
                        Some(number) => number.node().int_in(0..=i64::from(u32::MAX))?,
                        None => index as i64 + 1,
                    };
                    if let Some(identifier) = value.opt("identifier") {
                        named.push((number as u32, identifier.node().str()?.to_owned()));
                    }
                }
            }
            values.insert(uid, named);
        }
        let mut tilesets = HashMap::new();
        for tileset in defs.get("tilesets")?.node().items()? {
            let node = tileset.node();
            let int = |name: &str, range| -> Result<u32, Fault> {
                Ok(node.get(name)?.node().int_in(range)? as u32)
            };
            // Older LDtk writes no spacing or padding: LDtk's loader reads them as 0.
            let int_or_0 = |name: &str, range| -> Result<u32, Fault> {
                match node.opt(name) {
                    Some(_) => int(name, range),
                    None => Ok(0),
                }
            };
            let image = match node.opt("relPath") {
                Some(path) => Some((path.node().str()?.to_owned(), path.path)),
                None => None,
            };
            tilesets.insert(
                node.get("uid")?.node().int()?,
                TilesetDef {
                    identifier: node.get("identifier")?.node().str()?.to_owned(),
                    image,
                    size: (int("pxWid", 0..=1 << 16)?, int("pxHei", 0..=1 << 16)?),
                    grid: int("tileGridSize", 1..=4096)?,
                    spacing: int_or_0("spacing", 0..=4096)?,
                    padding: int_or_0("padding", 0..=4096)?,
                },
            );
        }
        Ok(Self { values, tilesets })
    }
}

/// The map of level `name` from its body (`level`, written in `level_text`).
fn build(
    defs: &Defs,
    name: &str,
    level: Node,
    level_text: &str,
    project_text: &str,
) -> Result<MapAsset, (In, Fault)> {
    let here = |f: Fault| (In::Level, f);
    let layers = level.get("layerInstances").map_err(here)?;
    let layers = layers.node().items().map_err(here)?;
    let drawn = |layer: &Owned| {
        layer
            .node()
            .get("__type")
            .and_then(|t| t.node().str().map(|t| t != "Entities"))
    };
    // The level's grid: its finest layer's.
    let mut grid: Option<u32> = None;
    for layer in &layers {
        if drawn(layer).map_err(here)? {
            let size = layer.node().get("__gridSize").map_err(here)?;
            let size = size.node().int_in(1..=4096).map_err(here)? as u32;
            grid = Some(grid.map_or(size, |g| g.min(size)));
        }
    }
    let Some(grid) = grid else {
        return Err(here(level.fault(format!(
            "the level `{name}` has no IntGrid, Tiles or AutoLayer layer (tilewalk needs one for the terrain)"
        ))));
    };
    let px = |field: &str| -> Result<u32, (In, Fault)> {
        let n = level.get(field).map_err(here)?;
        Ok(n.node().int_in(1..=1 << 24).map_err(here)? as u32)
    };
    let (width, height) = (px("pxWid")?.div_ceil(grid), px("pxHei")?.div_ceil(grid));
    if u64::from(width) * u64::from(height) > MAX_CELLS {
        return Err(here(level.fault(format!(
            "the level is {width}x{height} cells of {grid} px: too large (at most 16M cells)"
        ))));
    }
    let cells = (width * height) as usize;
    let mut out = Layers {
        tilesets: Vec::new(),
        by_uid: HashMap::new(),
        layers: Vec::new(),
        units: Vec::new(),
        width,
        height,
        grid,
    };
    // LDtk lists the layers top first.
    for layer in layers.iter().rev() {
        let node = layer.node();
        let kind = node.get("__type").map_err(here)?;
        let kind = kind.node().str().map_err(here)?;
        let layer_name = node.get("__identifier").map_err(here)?;
        let layer_name = layer_name.node().str().map_err(here)?.to_owned();
        let offset = |axis: &str| -> Result<f32, (In, Fault)> {
            match node.opt(axis) {
                Some(n) => Ok(n.node().int_in(-(1 << 24)..=1 << 24).map_err(here)? as f32),
                None => Ok(0.0),
            }
        };
        let offset = (offset("__pxTotalOffsetX")?, offset("__pxTotalOffsetY")?);
        let visible = node
            .opt("visible")
            .is_none_or(|v| v.value != &Value::Bool(false));
        let opacity = match node.opt("__opacity") {
            Some(n) => n.node().number().map_err(here)?.clamp(0.0, 1.0) as f32,
            None => 1.0,
        };
        let look = Look {
            name: layer_name,
            visible,
            opacity,
            offset,
        };
        if kind == "Entities" {
            out.units(node, offset, level_text).map_err(here)?;
            continue;
        }
        let layer_grid = node.get("__gridSize").map_err(here)?;
        let layer_grid = layer_grid.node().int().map_err(here)? as u32;
        if !layer_grid.is_multiple_of(grid) {
            return Err(here(layer_grid_fault(node, layer_grid, grid)));
        }
        if kind == "IntGrid" {
            out.int_grid(defs, node, &look, layer_grid / grid, cells, level_text)
                .map_err(here)?;
        }
        let tiles = match kind {
            "Tiles" => node.opt("gridTiles"),
            _ => node.opt("autoLayerTiles"),
        };
        if let Some(tiles) = tiles {
            out.tiles(defs, node, &tiles, &look, project_text)?;
        }
        let total: u64 = out.layers.iter().map(|l| l.cells.len() as u64).sum();
        if total > MAX_LAYER_CELLS {
            return Err(here(node.fault(format!(
                "the level's layers hold more than {MAX_LAYER_CELLS} cells (tiles stacked on cells count once per stack)"
            ))));
        }
    }
    let fields = level.opt("fieldInstances");
    let field = |wanted: &str| -> Result<Option<(String, Owned)>, (In, Fault)> {
        let Some(fields) = &fields else {
            return Ok(None);
        };
        field_text(fields.node(), wanted).map_err(here)
    };
    let default_terrain =
        field("default_terrain")?.map(|(name, at)| (name, locate(level_text, &at.path)));
    let board = match field("board")? {
        None => Board::default(),
        Some((text, at)) => match text.parse::<Board>() {
            Ok(board @ Board::Square(_)) => board,
            Ok(other) => {
                return Err(here(at.node().fault(format!(
                    "the `board` field says {other}, but an LDtk level is square (square-8 or square-4)"
                ))));
            }
            Err(e) => return Err(here(at.node().fault(format!("the `board` field: {e}")))),
        },
    };
    let at = locate(level_text, level.path());
    let units = std::mem::take(&mut out.units);
    Ok(MapAsset {
        width,
        height,
        board,
        projection: Projection::Flat,
        glyphs: Vec::new(),
        rows: Vec::new(),
        units,
        tiles: Some(TiledMap::from_parts(
            Some(name.to_owned()),
            (grid, grid),
            width,
            out.tilesets,
            out.layers,
            default_terrain,
            at,
        )),
    })
}

/// An IntGrid layer's values, `columns` x `rows` of them (0 where empty): its `intGridCsv`,
/// or in a project older than LDtk 0.7 its `intGrid` list of `{coordId, v}`, where `v`
/// counts values from 0 (LDtk's loader reads it as `v + 1`).
fn int_grid_values(node: Node, columns: u32, rows: u32) -> Result<Vec<u64>, Fault> {
    let cells = u64::from(columns) * u64::from(rows);
    if node.opt("intGridCsv").is_none()
        && let Some(list) = node.opt("intGrid")
    {
        if cells > MAX_CELLS {
            return Err(node.fault(format!(
                "the layer has more than {MAX_CELLS} cells ({columns}x{rows})"
            )));
        }
        let mut values = vec![0; cells as usize];
        for entry in list.node().items()? {
            let entry = entry.node();
            let coord = entry.get("coordId")?.node().int()?;
            let Some(cell) = u64::try_from(coord).ok().filter(|&c| c < cells) else {
                return Err(entry.fault(format!(
                    "coordId {coord} is outside the layer's {columns}x{rows} cells"
                )));
            };
            let v = entry.get("v")?.node().int_in(0..=i64::from(u32::MAX) - 1)?;
            values[cell as usize] = v as u64 + 1;
        }
        return Ok(values);
    }
    let csv = node.get("intGridCsv")?;
    let Some(values) = csv.value.as_array() else {
        return Err(csv
            .node()
            .fault(format!("expected an array, got {}", kind(csv.value))));
    };
    if values.len() as u64 != cells {
        return Err(csv.node().fault(format!(
            "{} values for a layer of {columns}x{rows} cells",
            values.len()
        )));
    }
    values
        .iter()
        .enumerate()
        .map(|(index, value)| {
            value
                .as_u64()
                .ok_or_else(|| csv.node().index_fault(index, value))
        })
        .collect()
}

fn layer_grid_fault(node: Node, layer_grid: u32, grid: u32) -> Fault {
    let at = node
        .get("__gridSize")
        .map_or_else(|f| f, |n| n.node().fault(""));
    Fault {
        message: format!(
            "this layer's grid is {layer_grid} px, not a whole multiple of the level's finest grid ({grid} px): tilewalk lays every layer on one grid"
        ),
        ..at
    }
}

/// A field of `fieldInstances` by identifier (letter case aside) whose value is a string
/// (an enum value too), and the value's node; `None` when absent or `null`.
fn field_text<'a>(
    fields: Node<'a, '_>,
    wanted: &str,
) -> Result<Option<(String, Owned<'a>)>, Fault> {
    for field in fields.items()? {
        let node = field.node();
        let identifier = node.get("__identifier")?;
        if !identifier.node().str()?.eq_ignore_ascii_case(wanted) {
            continue;
        }
        let Some(value) = node.opt("__value") else {
            return Ok(None);
        };
        let text = match value.value {
            Value::String(text) => text.clone(),
            Value::Number(n) if wanted == "attack" => n.to_string(),
            other => {
                return Err(value.node().fault(format!(
                    "the `{wanted}` field must be a string, got {}",
                    kind(other)
                )));
            }
        };
        return Ok(Some((text, value)));
    }
    Ok(None)
}

/// How a layer is shown.
struct Look {
    name: String,
    visible: bool,
    opacity: f32,
    offset: (f32, f32),
}

/// The level's parts as they are read, bottom layer first.
struct Layers {
    tilesets: Vec<TiledTileset>,
    /// The index in `tilesets` of each LDtk tileset used, by uid.
    by_uid: HashMap<i64, u16>,
    layers: Vec<TiledLayer>,
    units: Vec<UnitSpawn>,
    width: u32,
    height: u32,
    grid: u32,
}

impl Layers {
    /// An IntGrid layer's values as a terrain layer; `scale` level cells a layer cell.
    fn int_grid(
        &mut self,
        defs: &Defs,
        node: Node,
        look: &Look,
        scale: u32,
        cells: usize,
        text: &str,
    ) -> Result<(), Fault> {
        let size = |field: &str| -> Result<u32, Fault> {
            Ok(node.get(field)?.node().int_in(0..=1 << 24)? as u32)
        };
        let (columns, rows) = (size("__cWid")?, size("__cHei")?);
        let values = int_grid_values(node, columns, rows)?;
        let uid = node.get("layerDefUid")?.node().int()?;
        let tileset = self.tilesets.len();
        if tileset >= usize::from(u16::MAX) {
            return Err(node.fault("too many layers and tilesets (at most 65535)"));
        }
        let named = defs.values.get(&uid).cloned().unwrap_or_default();
        let at = locate(text, node.path());
        self.tilesets.push(TiledTileset::from_parts(
            format!("IntGrid `{}`", look.name),
            TilesetImages::Collection(Vec::new()),
            named
                .into_iter()
                .map(|(value, identifier)| (value, identifier, at))
                .collect(),
            at,
            Some(uid),
        ));
        let mut out = vec![None; cells];
        for y in 0..self.height {
            for x in 0..self.width {
                let (cx, cy) = (x / scale, y / scale);
                if cx >= columns || cy >= rows {
                    continue;
                }
                let value = values[(cy * columns + cx) as usize];
                if value == 0 {
                    continue;
                }
                out[(y * self.width + x) as usize] = Some(LayerCell {
                    tileset: tileset as u16,
                    id: u32::try_from(value).unwrap_or(u32::MAX),
                    flip_h: false,
                    flip_v: false,
                    flip_d: false,
                });
            }
        }
        self.layers.push(TiledLayer::from_parts(
            look.name.clone(),
            (look.visible, look.opacity),
            look.offset,
            true,
            out,
        ));
        Ok(())
    }

    /// A layer's tiles (`tiles`, LDtk's `gridTiles` or `autoLayerTiles`), drawn only: as
    /// many layers as tiles are stacked on one cell.
    fn tiles(
        &mut self,
        defs: &Defs,
        node: Node,
        tiles: &Owned,
        look: &Look,
        project_text: &str,
    ) -> Result<(), (In, Fault)> {
        let here = |f: Fault| (In::Level, f);
        let tiles = tiles.node().items().map_err(here)?;
        if tiles.is_empty() {
            return Ok(());
        }
        let Some(uid) = node.opt("__tilesetDefUid") else {
            return Ok(());
        };
        let uid = uid.node().int().map_err(here)?;
        let Some(def) = defs.tilesets.get(&uid) else {
            return Err(here(node.fault(format!("no tileset has uid {uid}"))));
        };
        // A tileset without an image (LDtk's built-in icons) draws nothing.
        let Some(tileset) = self.tileset(uid, def, project_text)? else {
            return Ok(());
        };
        let count = def.count();
        let cells = (self.width * self.height) as usize;
        let first = self.layers.len();
        for tile in &tiles {
            let tile = tile.node();
            let pair = |field: &str| -> Result<(i64, i64), Fault> {
                let pair = tile.get(field)?;
                let items = pair.node().items()?;
                match items.as_slice() {
                    [x, y] => Ok((x.node().int()?, y.node().int()?)),
                    _ => Err(pair.node().fault("expected [x, y]")),
                }
            };
            let (x, y) = pair("px").map_err(here)?;
            let id = match tile.opt("t") {
                Some(id) => id.node().int_in(0..=i64::from(u32::MAX)).map_err(here)? as u32,
                // LDtk before 0.8 writes the tile's corner in the image, not its id.
                None => def.tile_at(pair("src").map_err(here)?),
            };
            if id >= count {
                return Err(here(tile.fault(format!(
                    "tile {id} is beyond the {count} tiles of tileset `{}`",
                    def.identifier
                ))));
            }
            let flips = match tile.opt("f") {
                Some(f) => f.node().int_in(0..=3).map_err(here)?,
                None => 0,
            };
            // The cell whose bottom-left corner the tile hangs from.
            let grid = i64::from(self.grid);
            let (column, row) = (
                x.div_euclid(grid),
                (y + i64::from(def.grid)).div_euclid(grid) - 1,
            );
            if !(0..i64::from(self.width)).contains(&column)
                || !(0..i64::from(self.height)).contains(&row)
            {
                continue;
            }
            let cell = (row * i64::from(self.width) + column) as usize;
            let stack = (first..self.layers.len()).find(|&l| self.layers[l].cells[cell].is_none());
            let stack = match stack {
                Some(stack) => stack,
                None => {
                    let total = self.layers.len() as u64 * cells as u64;
                    if total > MAX_LAYER_CELLS {
                        return Err(here(tile.fault(format!(
                            "the level's layers hold more than {MAX_LAYER_CELLS} cells (tiles stacked on cells count once per stack)"
                        ))));
                    }
                    self.layers.push(TiledLayer::from_parts(
                        look.name.clone(),
                        (look.visible, look.opacity),
                        look.offset,
                        false,
                        vec![None; cells],
                    ));
                    self.layers.len() - 1
                }
            };
            self.layers[stack].cells[cell] = Some(LayerCell {
                tileset,
                id,
                flip_h: flips & 1 != 0,
                flip_v: flips & 2 != 0,
                flip_d: false,
            });
        }
        Ok(())
    }

    /// The index of LDtk tileset `uid` among the map's tilesets, added on first use; `None`
    /// for a tileset without an image.
    fn tileset(
        &mut self,
        uid: i64,
        def: &TilesetDef,
        project_text: &str,
    ) -> Result<Option<u16>, (In, Fault)> {
        if let Some(&index) = self.by_uid.get(&uid) {
            return Ok(Some(index));
        }
        let Some((image, path)) = &def.image else {
            return Ok(None);
        };
        let png = Path::new(image)
            .extension()
            .is_some_and(|e| e.eq_ignore_ascii_case("png"));
        if !png {
            return Err((
                In::Project,
                Fault {
                    path: path.clone(),
                    message: format!(
                        "the tileset `{}` is drawn from {image}: tilewalk draws PNG images (export it to a PNG and point the tileset at that)",
                        def.identifier
                    ),
                },
            ));
        }
        let index = self.tilesets.len();
        if index >= usize::from(u16::MAX) {
            return Err((
                In::Project,
                Fault {
                    path: path.clone(),
                    message: "too many layers and tilesets (at most 65535)".into(),
                },
            ));
        }
        self.tilesets.push(TiledTileset::from_parts(
            def.identifier.clone(),
            TilesetImages::Atlas(TilesetImage {
                path: PathBuf::from(image),
                tile_width: def.grid,
                tile_height: def.grid,
                margin: def.padding,
                spacing: def.spacing,
                count: def.count(),
            }),
            Vec::new(),
            locate(project_text, path),
            None,
        ));
        self.by_uid.insert(uid, index as u16);
        Ok(Some(index as u16))
    }

    /// The units of an Entities layer: its entities with a `team` field.
    fn units(&mut self, node: Node, offset: (f32, f32), text: &str) -> Result<(), Fault> {
        let Some(entities) = node.opt("entityInstances") else {
            return Ok(());
        };
        for entity in entities.node().items()? {
            let entity = entity.node();
            let Some(fields) = entity.opt("fieldInstances") else {
                continue;
            };
            let fields = fields.node();
            let Some((team, team_at)) = field_text(fields, "team")? else {
                continue;
            };
            let identifier = entity.get("__identifier")?.node().str()?.to_owned();
            let name = field_text(fields, "name")?.map_or_else(|| identifier.clone(), |(n, _)| n);
            let unit = |message: String| entity.fault(format!("entity `{name}`: {message}"));
            let team = Team::parse(&team).ok_or_else(|| {
                let fault = unit(format!(
                    "the `team` field must be blue or red, got `{team}`"
                ));
                Fault {
                    path: team_at.path.clone(),
                    ..fault
                }
            })?;
            let class = field_text(fields, "class")?.map_or_else(|| identifier.clone(), |(c, _)| c);
            let attack = field_text(fields, "attack")?
                .map(|(range, _)| parse_attack(&range))
                .transpose()
                .map_err(|e| unit(format!("the `attack` field: {e}")))?;
            let number = |value: Option<Owned>, fallback: f64| match value {
                Some(v) => v.node().number(),
                None => Ok(fallback),
            };
            let px = entity.get("px")?;
            let px = px.node().items()?;
            let [x, y] = px.as_slice() else {
                return Err(unit("`px` must be [x, y]".into()));
            };
            let (x, y) = (x.node().number()?, y.node().number()?);
            let (pivot_x, pivot_y) = match entity.opt("__pivot") {
                Some(pivot) => match pivot.node().items()?.as_slice() {
                    [a, b] => (a.node().number()?, b.node().number()?),
                    _ => return Err(pivot.node().fault("expected [x, y]")),
                },
                None => (0.0, 0.0),
            };
            let (w, h) = (
                number(entity.opt("width"), 0.0)?,
                number(entity.opt("height"), 0.0)?,
            );
            let centre = (
                x + (0.5 - pivot_x) * w + f64::from(offset.0),
                y + (0.5 - pivot_y) * h + f64::from(offset.1),
            );
            let grid = f64::from(self.grid);
            let (column, row) = ((centre.0 / grid).floor(), (centre.1 / grid).floor());
            if !(0.0..f64::from(self.width)).contains(&column)
                || !(0.0..f64::from(self.height)).contains(&row)
            {
                return Err(unit(format!(
                    "its centre ({}, {}) px is outside the {}x{} level",
                    centre.0, centre.1, self.width, self.height
                )));
            }
            let pos = Pos::new(column as u32, row as u32);
            if let Some(other) = self.units.iter().find(|u| u.name == name) {
                return Err(unit(format!(
                    "a second unit named `{name}` (the first is on line {})",
                    other.line
                )));
            }
            if let Some(other) = self.units.iter().find(|u| u.pos == pos) {
                return Err(unit(format!("stands on tile {pos}, like `{}`", other.name)));
            }
            if self.units.len() == MAX_UNITS {
                return Err(unit(format!(
                    "too many units (a map places at most {MAX_UNITS})"
                )));
            }
            let (line, column) = locate(text, entity.path());
            self.units.push(UnitSpawn {
                name,
                team,
                class,
                pos,
                attack,
                line,
                column,
                class_column: column,
            });
        }
        Ok(())
    }
}
