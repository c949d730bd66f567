//! Tiled maps (`.tmx`, Tiled's XML format) with their tilesets (`.tsx`, or embedded) and
//! object templates (`.tx`), read with the `tiled` crate into a [`MapAsset`]: every tile
//! layer, tileset and encoding Tiled writes, in every orientation but oblique. Tiled's JSON
//! files (`.tmj`, `.tsj`, `.tj`) are written as TMX first and read the same way (`tmj`).
//!
//! The rules (`docs/tiled.md` says the same for designers):
//! - Orientation `orthogonal` is `square-8`, or `square-4` when the map has a string
//!   property `board` naming it; `isometric` is the same square board drawn as diamonds;
//!   `staggered` (isometric) is read as the diamond cells it covers
//!   ([`crate::convert::Stagger`]); `hexagonal` maps are `hex-odd-r` / `hex-even-r` (stagger
//!   axis Y, odd or even rows shifted right) and `hex-odd-q` / `hex-even-q` (stagger axis X,
//!   columns shifted down). Tiled's row 0 is the top row, as in map files.
//! - Tile layers (in group layers too) are drawn in order; those after the first object
//!   layer are drawn above the units. An infinite map's cells are the bounding box of its
//!   chunks.
//! - A cell's terrain, from the topmost tile that says anything about terrain (layers with
//!   a boolean property `terrain` = false are decoration): see [`TiledMap::resolve`].
//! - An object with a `team` property is a unit: `name` property (else the object's name),
//!   `team`, `class` property (else the object's Class), optional `attack` (`N` or
//!   `MIN-MAX`). It stands on the cell under its centre. Other objects are ignored.
//!
//! The XML is read twice: once with quick-xml (the parser inside `tiled`), to report syntax
//! errors at their `line:col`, to know where each tile and object is written and to check
//! everything `tiled` would read against tilewalk's limits before it reads it (`limits`),
//! then by `tiled`, which is handed each file one tag at a time, so that its own errors are
//! reported at the element it was reading. Files are read by the caller (std for the commands, the asset server for the
//! game), so the same code serves both: [`parse_step`] asks for each file `tiled` needs.

mod class;
mod kinds;
mod layers;
mod limits;
mod objects;
mod parts;
mod terrain;
mod tmj;
mod xml;

use std::cell::RefCell;
use std::collections::{BTreeMap, HashMap, HashSet};
use std::io::Read;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use ::tiled::{
    Loader, Orientation, PropertyValue, StaggerAxis as TiledAxis, StaggerIndex, WangSetType,
};
use tilewalk_path::formats::ParseError;
use tilewalk_path::{Board, HexLayout, Pos};

use super::MapAsset;
pub use crate::assets::normalize;
use crate::assets::{AssetFileError, read_file, relative_to};
use crate::convert::{Projection, Stagger, StaggerAxis};
use layers::Bounds;
use xml::{Element, MAX_TILESET_TILES, Patched, Unrepaired, repaired, scan};

pub(crate) use class::write_xml_class;
pub use kinds::{KindBefore, TileKindId};
pub(crate) use tmj::is_json;
pub use xml::png_size;

pub use terrain::{Resolved, UNNAMED_TERRAIN};

/// The most files a map may pull in (tilesets, templates and their tilesets, and images
/// whose size their tileset does not give).
const MAX_FILES: usize = 256;

/// A Tiled map's tiles: its tilesets and tile layers, what each tile says about terrain,
/// and what draws it.
#[derive(Clone, Debug, PartialEq)]
pub struct TiledMap {
    /// One cell of the map's grid, in Tiled's pixels (width, height).
    pub grid: (u32, u32),
    /// A hexagonal map's `hexsidelength`, in pixels (0 for the others).
    pub hex_side: u32,
    pub tilesets: Vec<TiledTileset>,
    /// The tile layers, bottom first.
    pub layers: Vec<TiledLayer>,
    /// For a staggered map, which cells of the level's diamond grid are on the map.
    stagger: Option<Stagger>,
    /// Tiled's cell of the level's first column and row (not 0 for an infinite map).
    origin: (i32, i32),
    /// The level's width: every layer has a cell for each of the level's cells.
    width: u32,
    /// The map's `default_terrain` property, and where it is written.
    default_terrain: Option<(String, (usize, usize))>,
    /// Where the map's root element is.
    at: (usize, usize),
    /// The level of a project of several (LDtk's), by name.
    pub level: Option<String>,
}

/// A tileset: how its tiles are drawn and what they say about terrain.
#[derive(Clone, Debug, PartialEq)]
pub struct TiledTileset {
    pub name: String,
    pub images: TilesetImages,
    /// Where a tile image is drawn from its cell's corner, in Tiled's pixels (x right,
    /// y down): the tileset's `tileoffset`.
    pub offset: (i32, i32),
    /// Its tiles' Class, properties and terrain-set colours, by local id.
    tiles: BTreeMap<u32, TileKind>,
    /// Its file, relative to the map's folder; `None` when embedded in the map.
    file: Option<PathBuf>,
    /// Where the map names it (line, column).
    at: (usize, usize),
    /// For an LDtk IntGrid layer's values: the uid of the layer's definition.
    int_grid: Option<i64>,
}

/// The image(s) a tileset draws its tiles from.
#[derive(Clone, Debug, PartialEq)]
pub enum TilesetImages {
    /// One image, cut into tiles.
    Atlas(TilesetImage),
    /// One image per tile (Tiled's image collections): (local id, image).
    Collection(Vec<(u32, TileImage)>),
}

/// A tileset image cut into tiles.
#[derive(Clone, Debug, PartialEq)]
pub struct TilesetImage {
    /// The image file, relative to the map's folder.
    pub path: PathBuf,
    /// One tile's size in the image, in pixels.
    pub tile_width: u32,
    pub tile_height: u32,
    /// Pixels around the tiles, and between them.
    pub margin: u32,
    pub spacing: u32,
    /// The tiles it holds.
    pub count: u32,
}

/// One tile's own image.
#[derive(Clone, Debug, PartialEq)]
pub struct TileImage {
    /// The image file, relative to the map's folder.
    pub path: PathBuf,
    pub width: u32,
    pub height: u32,
}

/// A tile layer, flattened out of its groups.
#[derive(Clone, Debug, PartialEq)]
pub struct TiledLayer {
    pub name: String,
    /// Whether it is shown (its groups' visibility included).
    pub visible: bool,
    /// Its opacity times its groups'.
    pub opacity: f32,
    /// Its offset plus its groups', in Tiled's pixels (x right, y down).
    pub offset: (f32, f32),
    /// Whether its tiles say what the terrain is (false: decoration only).
    terrain: bool,
    /// Whether it comes after the first object layer, so Tiled draws it above the objects.
    pub above_units: bool,
    /// The tile of every cell of the level, row by row.
    pub cells: Vec<Option<LayerCell>>,
}

/// A tile in a layer's cell: which tileset, which tile, how it is flipped.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct LayerCell {
    /// Index into [`TiledMap::tilesets`].
    pub tileset: u16,
    /// The tile's id in its tileset.
    pub id: u32,
    pub flip_h: bool,
    pub flip_v: bool,
    pub flip_d: bool,
}

/// What one tile says about its cell's terrain.
#[derive(Clone, Debug, PartialEq)]
struct TileKind {
    /// The terrain it names: its `terrain` property (`true`) or its Class (`false`).
    terrain: Option<(String, bool)>,
    /// Its properties other than `terrain`, by name: one named like a movement class of the
    /// terrain table is that class's cost over the terrain's.
    costs: Vec<CostProperty>,
    /// Its terrain-set colours: the terrain each names, and how much of the tile it covers.
    colours: Vec<(String, u32)>,
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

/// The files a map needs, read so far (keyed by [`normalize`]d path): tilesets and
/// templates, and the size of each image whose size its tileset does not give.
#[derive(Clone, Debug, Default)]
pub struct Files {
    pub text: HashMap<PathBuf, String>,
    pub image_sizes: HashMap<PathBuf, (u32, u32)>,
    /// Each file's elements, scanned and checked once (the map's too).
    scans: RefCell<HashMap<PathBuf, Arc<Vec<Element>>>>,
    /// Each Tiled JSON file (the map's too), written as TMX once.
    json: RefCell<HashMap<PathBuf, Arc<tmj::Converted>>>,
}

impl Files {
    /// The TMX of `text`, the file at `path`, when it is a Tiled JSON file (`None` when it
    /// is TMX itself): written the first time it is asked for.
    fn tmx(&self, path: &Path, text: &str) -> Result<Option<Arc<tmj::Converted>>, AssetFileError> {
        if !tmj::is_json(path) {
            return Ok(None);
        }
        let key = normalize(path);
        if let Some(found) = self.json.borrow().get(&key) {
            return Ok(Some(found.clone()));
        }
        let converted = Arc::new(tmj::convert(path, text)?);
        self.json.borrow_mut().insert(key, converted.clone());
        Ok(Some(converted))
    }

    /// The elements of `text`, the file at `path`, scanned and checked the first time they
    /// are asked for: XML syntax and the limits of every file, and a map's
    /// ([`limits::check_map`]) if it is the map.
    fn elements(
        &self,
        path: &Path,
        text: &str,
        map: bool,
    ) -> Result<Arc<Vec<Element>>, AssetFileError> {
        let key = normalize(path);
        if let Some(found) = self.scans.borrow().get(&key) {
            return Ok(found.clone());
        }
        let in_file = |e: ParseError| AssetFileError::in_file(path, e);
        let found = scan(text).map_err(in_file)?;
        check_sizes(&found).map_err(in_file)?;
        if map {
            limits::check_map(&found).map_err(in_file)?;
        }
        let found = Arc::new(found);
        self.scans.borrow_mut().insert(key, found.clone());
        Ok(found)
    }
}

/// A file the map needs that the caller has not given: a tileset or a template (read as
/// text), or an image (only its size is read: [`png_size`]), and where it is named.
#[derive(Clone, Debug, PartialEq)]
pub struct FileRef {
    /// The file, as `tiled` resolves it against the file that names it.
    pub path: PathBuf,
    /// Whether it is an image.
    pub image: bool,
    /// The file that names it, and where (line, column).
    named_in: PathBuf,
    line: usize,
    column: usize,
}

impl FileRef {
    /// The error for a file that cannot be read, where it is named.
    pub fn unreadable(&self, why: impl std::fmt::Display) -> AssetFileError {
        let kind = match self.path.extension().and_then(|e| e.to_str()) {
            _ if self.image => "image",
            Some("tx" | "tj") => "template",
            Some("tsx" | "tsj") => "tileset",
            _ => "file",
        };
        AssetFileError::in_file(
            &self.named_in,
            ParseError::new(
                self.line,
                self.column,
                format!("cannot read the {kind} {}: {why}", self.path.display()),
            ),
        )
    }
}

/// What [`parse_step`] got to: the map, or a file it needs first.
#[derive(Debug)]
pub enum Step {
    Done(Box<MapAsset>),
    Read(FileRef),
}

/// Reads a Tiled map and every file it needs from disk (bounded reads, like every game
/// file).
pub fn read_tmx(path: &Path) -> Result<MapAsset, AssetFileError> {
    read_tmx_naming(path, &mut Vec::new())
}

/// [`read_tmx`], which also lists every file it reads (tilesets, templates, images whose
/// size it needs) in `named`, as far as it gets.
pub fn read_tmx_naming(path: &Path, named: &mut Vec<PathBuf>) -> Result<MapAsset, AssetFileError> {
    let text = read_file(path)?;
    let mut files = Files::default();
    loop {
        let step = parse_step(path, &text, &files)?;
        if let Step::Read(file) = &step {
            named.push(file.path.clone());
        }
        match step {
            Step::Done(map) => return Ok(*map),
            Step::Read(file) if file.image => {
                let mut header = Vec::with_capacity(24);
                let read = std::fs::File::open(&file.path)
                    .and_then(|f| f.take(24).read_to_end(&mut header));
                if let Err(e) = read {
                    return Err(file.unreadable(e));
                }
                let size = png_size(&header).ok_or_else(|| file.unreadable("not a PNG image"))?;
                files.image_sizes.insert(normalize(&file.path), size);
            }
            Step::Read(file) => {
                let read = match read_file(&file.path) {
                    Ok(read) => read,
                    Err(AssetFileError::Io { message, .. }) => {
                        return Err(file.unreadable(message));
                    }
                    Err(other) => return Err(other),
                };
                files.text.insert(normalize(&file.path), read);
            }
        }
    }
}

/// Parses a Tiled map from its text and the files it needs (keyed by [`normalize`]d
/// path); a file missing from `files` is an error where it is named.
pub fn parse(
    map_path: &Path,
    text: &str,
    files: &HashMap<PathBuf, String>,
) -> Result<MapAsset, AssetFileError> {
    let files = Files {
        text: files.clone(),
        ..Files::default()
    };
    match parse_step(map_path, text, &files)? {
        Step::Done(map) => Ok(*map),
        Step::Read(file) => Err(file.unreadable("not found")),
    }
}

/// Parses a Tiled map from its text and the files read so far (keyed by [`normalize`]d
/// path), or says which file it needs next. Errors name the map or the file they are in,
/// with `line:col` where there is one. Maps, tilesets and templates may be TMX (`.tmx`,
/// `.tsx`, `.tx`) or Tiled JSON (`.tmj`, `.tsj`, `.tj`, `.json`), which is written as TMX
/// first (`tmj`): what is found there is moved back to the JSON.
pub fn parse_step(map_path: &Path, text: &str, files: &Files) -> Result<Step, AssetFileError> {
    let step = parse_tmx_step(map_path, text, files);
    if files.json.borrow().is_empty() {
        return step;
    }
    let json = tmj::Sources::new(map_path, text, files);
    match step {
        Err(error) => Err(json.error(error)),
        Ok(Step::Read(file)) => Ok(Step::Read(json.file_ref(file))),
        Ok(Step::Done(mut map)) => {
            json.map(map_path, &mut map);
            Ok(Step::Done(map))
        }
    }
}

/// [`parse_step`] on the TMX of every file.
fn parse_tmx_step(map_path: &Path, file: &str, files: &Files) -> Result<Step, AssetFileError> {
    let in_map = |e: ParseError| AssetFileError::in_file(map_path, e);
    let map_tmx = files.tmx(map_path, file)?;
    let text = map_tmx.as_ref().map_or(file, |tmx| tmx.xml.as_str());
    let elements = files.elements(map_path, text, true)?;
    let root = elements.first().map_or((1, 1), Element::at);
    let fail = |at: (usize, usize), message: String| in_map(ParseError::new(at.0, at.1, message));
    let too_many = || fail(root, format!("the map needs more than {MAX_FILES} files"));
    // Every file with its elements: the map first, then the others by path.
    let mut all: Vec<(&Path, &str, Arc<Vec<Element>>)> = vec![(map_path, text, elements.clone())];
    let mut others: Vec<(&PathBuf, &String)> = files.text.iter().collect();
    others.sort_unstable();
    let others_tmx = others
        .iter()
        .map(|(path, file)| files.tmx(path, file))
        .collect::<Result<Vec<_>, _>>()?;
    for ((path, file), tmx) in others.into_iter().zip(&others_tmx) {
        let file = tmx.as_ref().map_or(file.as_str(), |tmx| tmx.xml.as_str());
        all.push((path.as_path(), file, files.elements(path, file, false)?));
    }
    let listed: Vec<(&Path, &[Element])> = all.iter().map(|(p, _, e)| (*p, e.as_slice())).collect();
    limits::check_files(&listed)?;
    // The files named and not read yet, asked for before `tiled` runs, so that it runs once.
    let read: HashSet<PathBuf> = files
        .text
        .keys()
        .map(PathBuf::as_path)
        .map(normalize)
        .collect();
    for &(file, elements) in &listed {
        for (named, element) in limits::named_files(file, elements) {
            if read.contains(&named) || named == normalize(map_path) {
                continue;
            }
            if files.text.len() + files.image_sizes.len() >= MAX_FILES {
                return Err(too_many());
            }
            return Ok(Step::Read(FileRef {
                path: named,
                image: false,
                named_in: file.to_path_buf(),
                line: element.line,
                column: element.column,
            }));
        }
    }
    // What `tiled` reads: each file repaired, once the sizes of the images it needs are known.
    let mut patched: HashMap<PathBuf, Patched> = HashMap::new();
    for &(path, file, ref found) in &all {
        let folder = path.parent().unwrap_or(Path::new(""));
        let size = |source: &str| {
            let &(w, h) = files.image_sizes.get(&normalize(&folder.join(source)))?;
            Some((u64::from(w), u64::from(h)))
        };
        match repaired(file, found, size) {
            Ok(fixed) => {
                patched.insert(normalize(path), fixed);
            }
            Err(Unrepaired::Images(images)) => {
                if files.text.len() + files.image_sizes.len() >= MAX_FILES {
                    return Err(too_many());
                }
                let image = &found[images[0]];
                return Ok(Step::Read(FileRef {
                    path: normalize(&folder.join(image.attr("source").unwrap_or_default())),
                    image: true,
                    named_in: path.to_path_buf(),
                    line: image.line,
                    column: image.column,
                }));
            }
            Err(Unrepaired::Refused(error)) => return Err(AssetFileError::in_file(path, error)),
        }
    }
    let missing = RefCell::new(None);
    let read_to: ReadTo = RefCell::new(None);
    let reader = |path: &Path| {
        let path = normalize(path);
        match patched.get_key_value(path.as_path()) {
            Some((key, file)) => Ok(Tracked {
                path: key.as_path(),
                bytes: file.text.as_bytes(),
                at: 0,
                read_to: &read_to,
            }),
            None => {
                missing.replace(Some(path));
                Err(std::io::Error::from(std::io::ErrorKind::NotFound))
            }
        }
    };
    // Each tileset file on its own first, so that its errors name it.
    let mut loaded = Ok(());
    for &(path, _, _) in &all[1..] {
        if path.extension().is_some_and(|e| e == "tsx" || e == "tsj")
            && let Err(error) = Loader::with_reader(reader).load_tsx_tileset(path)
        {
            loaded = Err(error);
            break;
        }
    }
    let loaded = loaded.and_then(|()| Loader::with_reader(reader).load_tmx_map(map_path));
    if let Some(path) = missing.take() {
        if files.text.len() + files.image_sizes.len() >= MAX_FILES {
            return Err(too_many());
        }
        let (named_in, (line, column)) =
            named_at(&listed, &path).unwrap_or((map_path.into(), root));
        return Ok(Step::Read(FileRef {
            path,
            image: false,
            named_in,
            line,
            column,
        }));
    }
    let map = loaded.map_err(|error| tiled_error(&error, read_to.take(), &patched, &listed))?;
    let scanned: HashMap<PathBuf, &[Element]> = listed[1..]
        .iter()
        .map(|&(p, e)| (normalize(p), e))
        .collect();
    let elements = elements.as_slice();

    let (board, projection) = board(&map).map_err(|m| fail(root, m))?;
    let folder = map_path.parent().unwrap_or(Path::new(""));
    let tilesets = tilesets(&map, folder, elements, &scanned)?;
    let layers = layers::layers(&map, &tilesets, elements, projection, map_path)?;
    let Some(bounds) = layers.bounds else {
        return Err(fail(
            root,
            "the map has no tile layer (tilewalk needs one for the terrain)".into(),
        ));
    };
    let projection = layers.projection;
    let units =
        objects::units(&map, projection, board, bounds, elements).map_err(|(at, m)| fail(at, m))?;
    let default_terrain = match map.properties.get("default_terrain") {
        None => None,
        Some(PropertyValue::StringValue(name)) => Some((
            name.clone(),
            property_at(elements, 0, "default_terrain").unwrap_or(root),
        )),
        Some(other) => {
            return Err(fail(
                property_at(elements, 0, "default_terrain").unwrap_or(root),
                format!(
                    "the `default_terrain` property must be a string naming a terrain, got {}",
                    describe(other)
                ),
            ));
        }
    };
    Ok(Step::Done(Box::new(MapAsset {
        width: bounds.width,
        height: bounds.height,
        board,
        projection,
        glyphs: Vec::new(),
        rows: Vec::new(),
        units,
        tiles: Some(TiledMap {
            grid: (map.tile_width, map.tile_height),
            hex_side: map.hex_side_length.unwrap_or(0).max(0) as u32,
            tilesets,
            layers: layers.layers,
            stagger: projection.stagger(),
            origin: (bounds.x, bounds.y),
            width: bounds.width,
            default_terrain,
            at: root,
            level: None,
        }),
    })))
}

/// Where a file is named: the element whose `source` (a tileset) or `template` (an object)
/// attribute resolves to `path`, in the map or a file read so far.
fn named_at(files: &[(&Path, &[Element])], path: &Path) -> Option<(PathBuf, (usize, usize))> {
    files.iter().find_map(|&(file, elements)| {
        let folder = file.parent().unwrap_or(Path::new(""));
        elements
            .iter()
            .find(|e| {
                [e.attr("source"), e.attr("template")]
                    .into_iter()
                    .flatten()
                    .any(|name| normalize(&folder.join(name)) == path)
            })
            .map(|e| (file.to_path_buf(), e.at()))
    })
}

/// The most cells a map may have (a layer's chunks included).
pub(super) const MAX_CELLS: u64 = 1 << 24;

/// Refuses, before `tiled` reads it, a `<tileset>` whose `tilecount` is beyond
/// [`MAX_TILESET_TILES`], at its place.
fn check_sizes(elements: &[Element]) -> Result<(), ParseError> {
    for element in elements.iter().filter(|e| e.name == "tileset") {
        let count = element.attr("tilecount").unwrap_or("0");
        if count
            .trim()
            .parse::<u64>()
            .is_ok_and(|n| n > MAX_TILESET_TILES)
        {
            return Err(ParseError::new(
                element.line,
                element.column,
                format!(
                    "tilecount {count} is more than tilewalk reads ({MAX_TILESET_TILES} tiles a tileset)"
                ),
            ));
        }
    }
    Ok(())
}

/// The board a Tiled map's orientation, stagger and `board` property make, and how it is
/// drawn.
fn board(map: &::tiled::Map) -> Result<(Board, Projection), String> {
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
    let square = |kind: &str| match named {
        None => Ok(Board::default()),
        Some(board @ Board::Square(_)) => Ok(board),
        Some(board) => Err(format!(
            "the `board` property says {board}, but an {kind} map is square (square-8 or square-4)"
        )),
    };
    let aspect = map.tile_width as f32 / map.tile_height.max(1) as f32;
    match map.orientation {
        Orientation::Orthogonal => Ok((square("orthogonal")?, Projection::Flat)),
        Orientation::Isometric => Ok((
            square("isometric")?,
            Projection::Isometric {
                aspect,
                stagger: None,
            },
        )),
        Orientation::Staggered => Ok((
            square("isometric")?,
            Projection::Isometric {
                aspect,
                stagger: Some(Stagger {
                    axis: match map.stagger_axis {
                        TiledAxis::X => StaggerAxis::Columns,
                        TiledAxis::Y => StaggerAxis::Rows,
                    },
                    odd: map.stagger_index == StaggerIndex::Odd,
                    // Set from the layers' bounds.
                    columns: 0,
                    rows: 0,
                }),
            },
        )),
        Orientation::Hexagonal => {
            let layout = match (map.stagger_axis, map.stagger_index) {
                (TiledAxis::Y, StaggerIndex::Odd) => HexLayout::OddR,
                (TiledAxis::Y, StaggerIndex::Even) => HexLayout::EvenR,
                (TiledAxis::X, StaggerIndex::Odd) => HexLayout::OddQ,
                (TiledAxis::X, StaggerIndex::Even) => HexLayout::EvenQ,
            };
            match named {
                Some(board) if board != Board::Hex(layout) => Err(format!(
                    "the `board` property says {board}, but the map's stagger axis and index make it {}",
                    Board::Hex(layout)
                )),
                _ => Ok((Board::Hex(layout), Projection::Flat)),
            }
        }
        Orientation::Oblique => Err(
            "oblique maps are not supported (tilewalk reads orthogonal, isometric, staggered and hexagonal maps)"
                .into(),
        ),
    }
}

/// The map's tilesets, each with its tiles' terrain, costs and colours.
fn tilesets(
    map: &::tiled::Map,
    folder: &Path,
    elements: &[Element],
    scanned: &HashMap<PathBuf, &[Element]>,
) -> Result<Vec<TiledTileset>, AssetFileError> {
    let root = elements.first().map_or((1, 1), Element::at);
    // The map's `<tileset>` elements, in the order `tiled` lists the tilesets.
    let references: Vec<usize> = elements
        .iter()
        .enumerate()
        .filter(|(_, e)| e.name == "tileset" && e.depth == 1)
        .map(|(i, _)| i)
        .collect();
    let mut out = Vec::new();
    for (index, tileset) in map.tilesets().iter().enumerate() {
        let reference = references.get(index).map(|&i| &elements[i]);
        let at = reference.map_or(root, Element::at);
        let file = reference
            .and_then(|e| e.attr("source"))
            .map(|source| normalize(&folder.join(source)));
        // The tileset's own elements: in its file, or embedded in the map.
        let own: &[Element] = match (&file, references.get(index)) {
            (Some(path), _) => scanned.get(path.as_path()).copied().unwrap_or(&[]),
            (None, Some(&i)) => &elements[i..elements[i].end],
            (None, None) => &[],
        };
        let own_root = own
            .iter()
            .find(|e| e.name == "tileset")
            .map_or(at, Element::at);
        let relative = |path: &Path| relative_to(path, folder);
        let images = match &tileset.image {
            Some(image) => TilesetImages::Atlas(TilesetImage {
                path: relative(&image.source),
                tile_width: tileset.tile_width,
                tile_height: tileset.tile_height,
                margin: tileset.margin,
                spacing: tileset.spacing,
                count: tileset.tilecount,
            }),
            None => TilesetImages::Collection(
                tileset
                    .tiles()
                    .filter_map(|(id, tile)| {
                        let image = tile.image.as_ref()?;
                        Some((
                            id,
                            TileImage {
                                path: relative(&image.source),
                                width: image.width.max(0) as u32,
                                height: image.height.max(0) as u32,
                            },
                        ))
                    })
                    .collect(),
            ),
        };
        // Each tile's `<tile>` element, by id (the first of an id).
        let mut tile_elements: HashMap<u32, usize> = HashMap::new();
        for (i, e) in own.iter().enumerate().filter(|(_, e)| e.name == "tile") {
            if let Some(id) = e.attr("id").and_then(|id| id.parse().ok()) {
                tile_elements.entry(id).or_insert(i);
            }
        }
        let mut tiles = BTreeMap::new();
        for (id, tile) in tileset.tiles() {
            let index = tile_elements.get(&id).copied();
            let kind =
                tile_kind(id, &tile, own, index, own_root).map_err(
                    |(at, message)| match &file {
                        Some(path) => {
                            AssetFileError::in_file(path, ParseError::new(at.0, at.1, message))
                        }
                        None => AssetFileError::in_file(
                            &map.source,
                            ParseError::new(at.0, at.1, message),
                        ),
                    },
                )?;
            tiles.insert(id, kind);
        }
        for set in &tileset.wang_sets {
            // The corners cover a corner set's tiles, the edges an edge set's, both a
            // mixed set's: each a share of the tile.
            let counted: &[usize] = match set.wang_set_type {
                WangSetType::Corner => &[1, 3, 5, 7],
                WangSetType::Edge => &[0, 2, 4, 6],
                WangSetType::Mixed => &[0, 1, 2, 3, 4, 5, 6, 7],
            };
            for (&id, wang) in &set.wang_tiles {
                let kind = tiles.entry(id).or_insert_with(|| TileKind {
                    terrain: None,
                    costs: Vec::new(),
                    colours: Vec::new(),
                    at: tile_elements.get(&id).map_or(own_root, |&i| own[i].at()),
                });
                for &i in counted {
                    let colour = wang.wang_id.0[i];
                    let Some(colour) = (colour as usize)
                        .checked_sub(1)
                        .and_then(|c| set.wang_colors.get(c))
                    else {
                        continue;
                    };
                    let name = match colour.properties.get("terrain") {
                        Some(PropertyValue::StringValue(name)) => name.clone(),
                        _ => colour.name.clone(),
                    };
                    match kind.colours.iter_mut().find(|(n, _)| *n == name) {
                        Some((_, share)) => *share += 1,
                        None => kind.colours.push((name, 1)),
                    }
                }
            }
        }
        out.push(TiledTileset {
            name: tileset.name.clone(),
            images,
            offset: (tileset.offset_x, tileset.offset_y),
            tiles,
            file: file.map(|path| relative(&path)),
            at,
            int_grid: None,
        });
    }
    Ok(out)
}

/// Where property `name` of the element at `index` (or of its first child that has
/// properties) is written.
fn property_at(elements: &[Element], index: usize, name: &str) -> Option<(usize, usize)> {
    let depth = elements.get(index)?.depth;
    elements[index + 1..]
        .iter()
        .take_while(|e| e.depth > depth)
        .find(|e| e.name == "property" && e.depth == depth + 2 && e.attr("name") == Some(name))
        .map(Element::at)
}

/// A position in a file and the message for it.
type Fault = ((usize, usize), String);

/// What tileset tile `id` says, from its Class and properties; `index` is its `<tile>`
/// among the tileset's `elements`.
fn tile_kind(
    id: u32,
    tile: &::tiled::Tile,
    elements: &[Element],
    index: Option<usize>,
    tileset_root: (usize, usize),
) -> Result<TileKind, Fault> {
    let at = index.map_or(tileset_root, |i| elements[i].at());
    // Where each of its properties is written (the first of a name).
    let mut written: HashMap<&str, (usize, usize)> = HashMap::new();
    if let Some(i) = index {
        let depth = elements[i].depth;
        for e in elements[i + 1..].iter().take_while(|e| e.depth > depth) {
            if let ("property", Some(name)) = (e.name.as_str(), e.attr("name"))
                && e.depth == depth + 2
            {
                written.entry(name).or_insert(e.at());
            }
        }
    }
    // A property's own line, else the tile's.
    let property_at = |name: &str| written.get(name).copied().unwrap_or(at);
    let terrain = match tile.properties.get("terrain") {
        Some(PropertyValue::StringValue(name)) => Some((name.clone(), true)),
        Some(other) => {
            return Err((
                property_at("terrain"),
                format!(
                    "tile {id}: the `terrain` property must be a string naming a terrain, got {}",
                    describe(other)
                ),
            ));
        }
        None => (!tile.user_type.is_empty()).then(|| (tile.user_type.clone(), false)),
    };
    // Which are costs depends on the terrain table's classes: every other property is kept
    // with its reading as a cost, and used if a class has its name.
    let mut costs: Vec<_> = tile
        .properties
        .iter()
        .filter(|(name, _)| *name != "terrain")
        .map(|(name, value)| CostProperty {
            name: name.clone(),
            cost: terrain::cost(value),
            at: property_at(name),
        })
        .collect();
    costs.sort_by(|a, b| a.name.cmp(&b.name));
    Ok(TileKind {
        terrain,
        costs,
        colours: Vec::new(),
        at,
    })
}

pub(super) fn describe(value: &PropertyValue) -> String {
    match value {
        PropertyValue::StringValue(text) | PropertyValue::FileValue(text) => format!("`{text}`"),
        PropertyValue::BoolValue(b) => format!("`{b}` (a bool)"),
        PropertyValue::ColorValue(_) => "a color".into(),
        other => format!("{other:?}"),
    }
}

/// Where `tiled` has read to: the file it read last, and the byte past the last it got.
type ReadTo<'a> = RefCell<Option<(&'a Path, usize)>>;

/// A file for `tiled`, handed out one tag at a time (up to each `>`), so that where it
/// stops on an error is known.
struct Tracked<'a, 'b> {
    path: &'a Path,
    bytes: &'a [u8],
    at: usize,
    read_to: &'b ReadTo<'a>,
}

impl Read for Tracked<'_, '_> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let rest = &self.bytes[self.at..];
        let most = rest.len().min(buf.len());
        let n = rest[..most]
            .iter()
            .position(|&b| b == b'>')
            .map_or(most, |i| i + 1);
        buf[..n].copy_from_slice(&rest[..n]);
        self.at += n;
        self.read_to.replace(Some((self.path, self.at)));
        Ok(n)
    }
}

/// A `tiled` error at the element it concerns: the innermost element of the file `tiled`
/// was reading whose tag it had read when it stopped.
fn tiled_error(
    error: &::tiled::Error,
    read_to: Option<(&Path, usize)>,
    patched: &HashMap<PathBuf, Patched>,
    files: &[(&Path, &[Element])],
) -> AssetFileError {
    let message = match error {
        ::tiled::Error::ResourceLoadingError { path, err } => {
            format!("cannot read {}: {err}", path.display())
        }
        other => other.to_string(),
    };
    let (map_path, map) = files[0];
    let (file, elements, offset) = match read_to {
        Some((path, offset)) => {
            let (file, elements) = files
                .iter()
                .find(|(p, _)| normalize(p) == path)
                .copied()
                .unwrap_or((map_path, map));
            let offset = patched.get(path).map_or(offset, |p| p.original(offset));
            (file, elements, offset)
        }
        None => (map_path, map, 0),
    };
    let mut at = elements
        .partition_point(|e| e.span.0 < offset)
        .checked_sub(1);
    while let Some(i) = at
        && elements[i].span.1 < offset
    {
        at = elements[i].parent;
    }
    let (line, column, message) = match at.map(|i| &elements[i]) {
        Some(element) => (element.line, element.column, about(element, message)),
        None => (1, 1, message),
    };
    AssetFileError::in_file(file, ParseError::new(line, column, message))
}

/// A `tiled` message about an element, in tilewalk's words where they say more.
fn about(element: &Element, message: String) -> String {
    let name = &element.name;
    let quoted = |m: &str| m.split('\'').nth(1).map(str::to_owned);
    if message.starts_with("Error parsing")
        && let Some(attribute) = quoted(&message)
    {
        let value = element.attr(&attribute).unwrap_or_default();
        return format!("<{name}>: `{attribute}=\"{value}\"` is not a valid value");
    }
    if let Some(attribute) = message.strip_prefix("Missing attribute: ") {
        return format!("<{name}> lacks its `{attribute}` attribute");
    }
    format!("<{name}>: {message}")
}

impl TiledMap {
    /// Where a cell of the level is in Tiled: its column and row there.
    pub fn tiled_cell(&self, pos: Pos) -> Option<(i64, i64)> {
        let (column, row) = match self.stagger {
            Some(stagger) => stagger.from_diamond(pos)?,
            None => (pos.x, pos.y),
        };
        Some((
            i64::from(column) + i64::from(self.origin.0),
            i64::from(row) + i64::from(self.origin.1),
        ))
    }
}
