//! Tiled's JSON formats (`.tmj` maps, `.tsj` tilesets, `.tj` templates) written as the TMX
//! the rest of this module reads, so that a JSON map follows the same rules, limits and
//! errors as an XML one, and a map of either format may name files of the other.
//!
//! Each element of the TMX starts a line of its own (and so does each entry of layer data
//! written as a JSON array), and each line remembers the JSON value it was written from:
//! an error found on the TMX is reported at that value's line and column in the JSON file,
//! with its JSON path. Values the TMX reader would refuse (a width that is no whole number,
//! an orientation Tiled does not write) are refused here, at the value.

use std::borrow::Cow;
use std::collections::HashMap;
use std::fmt::Write;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use serde_json::Value;
use tilewalk_path::formats::ParseError;

use super::{FileRef, Files, MAX_CELLS, normalize};
use crate::assets::AssetFileError;
use crate::map::MapAsset;
use crate::map::json::{Fault, JsonPath, Node, Owned, kind, locate, locate_all, syntax_error};

/// Whether a Tiled file is JSON, by its extension (as Tiled tells its formats apart).
pub(crate) fn is_json(path: &Path) -> bool {
    path.extension().and_then(|e| e.to_str()).is_some_and(|e| {
        ["tmj", "tsj", "tj", "json"]
            .iter()
            .any(|j| e.eq_ignore_ascii_case(j))
    })
}

/// A Tiled JSON file written as TMX.
#[derive(Debug)]
pub(super) struct Converted {
    pub xml: String,
    /// From which line of `xml` on each JSON value is written, in the order of the lines.
    marks: Vec<(usize, Mark)>,
}

/// What the lines from a mark on are written from.
#[derive(Debug)]
enum Mark {
    /// This value.
    Value(JsonPath),
    /// One item each of this array, from its first on.
    Items(JsonPath),
}

impl Converted {
    /// The JSON path of the value that line `line` of the TMX is written from.
    fn origin(&self, line: usize) -> JsonPath {
        let after = self.marks.partition_point(|(first, _)| *first <= line);
        match after.checked_sub(1).map(|i| &self.marks[i]) {
            Some((_, Mark::Value(path))) => path.clone(),
            Some((first, Mark::Items(path))) => path.index(line - first),
            None => JsonPath::default(),
        }
    }
}

/// Writes the Tiled JSON file `text` (at `path`) as TMX. A map, a tileset and a template are
/// told apart by their `type` field, else by the file's extension.
pub(super) fn convert(path: &Path, text: &str) -> Result<Converted, AssetFileError> {
    let value: Value = serde_json::from_str(text).map_err(|e| syntax_error(path, &e))?;
    let in_file = |fault: Fault| AssetFileError::in_file(path, fault.in_text(text));
    let root = Owned::root(&value);
    let root = root.node();
    object(root).map_err(in_file)?;
    let by_extension = match path.extension().and_then(|e| e.to_str()) {
        Some(e) if e.eq_ignore_ascii_case("tsj") => "tileset",
        Some(e) if e.eq_ignore_ascii_case("tj") => "template",
        _ => "map",
    };
    let file_type = match root.opt("type") {
        Some(named) => named.node().str().map_err(in_file)?,
        None => by_extension,
    };
    let mut xml = Xml::default();
    match file_type {
        "map" => xml.map(root),
        "tileset" => xml.tileset(root, None),
        "template" => xml.template(root),
        other => Err(root.get("type").map_err(in_file)?.node().fault(format!(
            "`{other}` is no Tiled file type (a Tiled JSON file is a map, a tileset or a template)"
        ))),
    }
    .map_err(in_file)?;
    Ok(Converted {
        xml: xml.out,
        marks: xml.marks,
    })
}

/// The Tiled JSON files of a map that have been written as TMX, each with its JSON text:
/// what is found on their TMX is moved to their JSON.
pub(super) struct Sources<'a> {
    /// The name an error gives the file, its JSON text and its TMX.
    files: Vec<(String, &'a str, Arc<Converted>)>,
    folder: PathBuf,
}

impl<'a> Sources<'a> {
    /// The JSON files among the map (`map_path`, `text`) and the files read for it.
    pub fn new(map_path: &Path, text: &'a str, files: &'a Files) -> Self {
        let map_key = normalize(map_path);
        let converted = files.json.borrow();
        let files = converted
            .iter()
            .filter_map(|(key, tmx)| {
                if *key == map_key {
                    return Some((map_path.display().to_string(), text, tmx.clone()));
                }
                let json = files.text.get(key)?;
                Some((key.display().to_string(), json.as_str(), tmx.clone()))
            })
            .collect();
        Self {
            files,
            folder: map_path.parent().unwrap_or(Path::new("")).to_path_buf(),
        }
    }

    fn find(&self, file: &str) -> Option<(&'a str, &Converted)> {
        self.files
            .iter()
            .find(|(name, _, _)| name == file)
            .map(|(_, json, tmx)| (*json, tmx.as_ref()))
    }

    /// An error found on the TMX of a JSON file, at the JSON value it points at, with that
    /// value's path; other errors as they are.
    pub fn error(&self, error: AssetFileError) -> AssetFileError {
        let (file, error) = match error {
            AssetFileError::Parse { file, error } => (file, error),
            other => return other,
        };
        let Some((json, tmx)) = self.find(&file) else {
            return AssetFileError::Parse { file, error };
        };
        let path = tmx.origin(error.line);
        let (line, column) = locate(json, &path);
        let mut message = error.message;
        // A message naming another line of the file (a unit's twin): that line's in the JSON.
        const TWIN: &str = "(the first is on line ";
        if let Some((head, rest)) = message.split_once(TWIN)
            && let Some((number, tail)) = rest.split_once(')')
            && let Ok(number) = number.parse::<usize>()
        {
            let twin = locate(json, &tmx.origin(number)).0;
            message = format!("{head}{TWIN}{twin}){tail}");
        }
        AssetFileError::Parse {
            file,
            error: ParseError::new(line, column, format!("{message} (at {path})")),
        }
    }

    /// A file named in a JSON file, named at its JSON value.
    pub fn file_ref(&self, mut file: FileRef) -> FileRef {
        if let Some((json, tmx)) = self.find(&file.named_in.display().to_string()) {
            (file.line, file.column) = locate(json, &tmx.origin(file.line));
        }
        file
    }

    /// Moves every place a map read from TMX keeps (its units, tilesets, tiles and their
    /// properties) to the JSON it was written from, where it is in a JSON file.
    pub fn map(&self, map_path: &Path, map: &mut MapAsset) {
        let map_name = map_path.display().to_string();
        if let Some((json, tmx)) = self.find(&map_name) {
            let paths: Vec<JsonPath> = map.units.iter().map(|u| tmx.origin(u.line)).collect();
            for (unit, (line, column)) in map.units.iter_mut().zip(locate_all(json, &paths)) {
                (unit.line, unit.column, unit.class_column) = (line, column, column);
            }
        }
        let Some(tiles) = &mut map.tiles else { return };
        // The places in each file, by the name its errors give it.
        let mut places: HashMap<String, Vec<&mut (usize, usize)>> = HashMap::new();
        let in_map = places.entry(map_name.clone()).or_default();
        in_map.push(&mut tiles.at);
        if let Some((_, at)) = &mut tiles.default_terrain {
            in_map.push(at);
        }
        for tileset in &mut tiles.tilesets {
            places
                .entry(map_name.clone())
                .or_default()
                .push(&mut tileset.at);
            let file = match &tileset.file {
                Some(file) => normalize(&self.folder.join(file)).display().to_string(),
                None => map_name.clone(),
            };
            let in_file = places.entry(file).or_default();
            for tile in tileset.tiles.values_mut() {
                in_file.push(&mut tile.at);
                in_file.extend(tile.costs.iter_mut().map(|cost| &mut cost.at));
            }
        }
        for (file, places) in places {
            let Some((json, tmx)) = self.find(&file) else {
                continue;
            };
            let paths: Vec<JsonPath> = places.iter().map(|at| tmx.origin(at.0)).collect();
            for (place, found) in places.into_iter().zip(locate_all(json, &paths)) {
                *place = found;
            }
        }
    }
}

/// A JSON value's type, as the TMX attribute written from it needs it.
#[derive(Clone, Copy)]
enum Ty {
    /// A string or a number, written as it is.
    Text,
    Str,
    /// A whole number from .. to.
    Whole(i64, i64),
    Number,
    /// `true` or `false`, written `1` or `0`.
    Bool,
    /// One of these strings.
    Choice(&'static [&'static str]),
}

const U32: Ty = Ty::Whole(0, u32::MAX as i64);
const I32: Ty = Ty::Whole(i32::MIN as i64, i32::MAX as i64);

/// The fields every layer has.
const LAYER: &[(&str, Ty)] = &[
    ("id", U32),
    ("name", Ty::Str),
    ("class", Ty::Str),
    ("opacity", Ty::Number),
    ("visible", Ty::Bool),
    ("offsetx", Ty::Number),
    ("offsety", Ty::Number),
    ("parallaxx", Ty::Number),
    ("parallaxy", Ty::Number),
    ("tintcolor", Ty::Str),
];

/// An object's fields.
const OBJECT: &[(&str, Ty)] = &[
    ("id", U32),
    ("name", Ty::Str),
    ("type", Ty::Str),
    ("class", Ty::Str),
    ("x", Ty::Number),
    ("y", Ty::Number),
    ("width", Ty::Number),
    ("height", Ty::Number),
    ("rotation", Ty::Number),
    ("visible", Ty::Bool),
    ("opacity", Ty::Number),
    ("gid", U32),
    ("template", Ty::Str),
];

/// A text object's fields.
const TEXT: &[(&str, Ty)] = &[
    ("fontfamily", Ty::Str),
    ("pixelsize", I32),
    ("wrap", Ty::Bool),
    ("color", Ty::Str),
    ("bold", Ty::Bool),
    ("italic", Ty::Bool),
    ("underline", Ty::Bool),
    ("strikeout", Ty::Bool),
    ("kerning", Ty::Bool),
    (
        "halign",
        Ty::Choice(&["left", "center", "right", "justify"]),
    ),
    ("valign", Ty::Choice(&["top", "center", "bottom"])),
];

/// A value as the attribute it is written as.
fn scalar(node: Node, ty: Ty) -> Result<String, Fault> {
    Ok(match (ty, node.value) {
        (Ty::Text, Value::Number(n)) => n.to_string(),
        (Ty::Text | Ty::Str, _) => node.str()?.to_owned(),
        (Ty::Whole(low, high), _) => node.int_in(low..=high)?.to_string(),
        (Ty::Number, Value::Number(n)) => n.to_string(),
        (Ty::Number, _) => node.number()?.to_string(),
        (Ty::Bool, Value::Bool(b)) => (if *b { "1" } else { "0" }).into(),
        (Ty::Bool, other) => {
            return Err(node.fault(format!("expected true or false, got {}", kind(other))));
        }
        (Ty::Choice(names), _) => {
            let name = node.str()?;
            if !names.contains(&name) {
                return Err(node.fault(format!(
                    "`{name}` is not one of {} (what Tiled writes there)",
                    names.join(", ")
                )));
            }
            name.to_owned()
        }
    })
}

/// The attributes written from an object's `fields` (each its name in JSON and TMX) that
/// it has (a `null` field is none).
fn attributes(node: Node, fields: &[(&'static str, Ty)]) -> Result<Attrs, Fault> {
    let mut out = Vec::new();
    for &(name, ty) in fields {
        if let Some(field) = node.opt(name) {
            out.push((name, scalar(field.node(), ty)?));
        }
    }
    Ok(out)
}

/// Fails unless the value is an object.
fn object(node: Node) -> Result<(), Fault> {
    match node.value {
        Value::Object(_) => Ok(()),
        other => Err(node.fault(format!("expected an object, got {}", kind(other)))),
    }
}

/// The items of an array, each an object.
fn objects<'a>(node: Node<'a, '_>) -> Result<Vec<Owned<'a>>, Fault> {
    let items = node.items()?;
    for item in &items {
        object(item.node())?;
    }
    Ok(items)
}

type Attrs = Vec<(&'static str, String)>;

/// The TMX being written, a line an element.
#[derive(Default)]
struct Xml {
    out: String,
    /// The line being written (0 before the first).
    line: usize,
    marks: Vec<(usize, Mark)>,
}

impl Xml {
    /// Starts a line, written from what `mark` says.
    fn line(&mut self, mark: Mark) {
        if self.line > 0 {
            self.out.push('\n');
        }
        self.line += 1;
        self.marks.push((self.line, mark));
    }

    /// Starts element `name` on a line of its own, written from the value at `from`.
    fn start(&mut self, name: &str, from: &JsonPath, attributes: &[(&str, String)], empty: bool) {
        self.line(Mark::Value(from.clone()));
        self.out.push('<');
        self.out.push_str(name);
        for (key, value) in attributes {
            let _ = write!(self.out, " {key}=\"{}\"", escape(value));
        }
        self.out.push_str(if empty { "/>" } else { ">" });
    }

    fn end(&mut self, name: &str) {
        let _ = write!(self.out, "</{name}>");
    }

    fn map(&mut self, node: Node) -> Result<(), Fault> {
        for required in ["orientation", "width", "height", "tilewidth", "tileheight"] {
            node.get(required)?;
        }
        let mut attributes = attributes(
            node,
            &[
                ("version", Ty::Text),
                ("tiledversion", Ty::Text),
                ("class", Ty::Str),
                (
                    "orientation",
                    Ty::Choice(&[
                        "orthogonal",
                        "isometric",
                        "staggered",
                        "hexagonal",
                        "oblique",
                    ]),
                ),
                (
                    "renderorder",
                    Ty::Choice(&["right-down", "right-up", "left-down", "left-up"]),
                ),
                ("width", U32),
                ("height", U32),
                ("tilewidth", U32),
                ("tileheight", U32),
                ("hexsidelength", I32),
                ("staggeraxis", Ty::Choice(&["x", "y"])),
                ("staggerindex", Ty::Choice(&["odd", "even"])),
                ("parallaxoriginx", Ty::Number),
                ("parallaxoriginy", Ty::Number),
                ("backgroundcolor", Ty::Str),
                ("infinite", Ty::Bool),
            ],
        )?;
        // The limit `limits::check_map` puts on the map element, here at the value.
        let size = |name: &str| node.get(name).and_then(|n| n.node().int());
        if (size("width")? as u64).saturating_mul(size("height")? as u64) > MAX_CELLS {
            return Err(node
                .get("width")?
                .node()
                .fault("the map is too large (at most 16M tiles)"));
        }
        if !attributes.iter().any(|(key, _)| *key == "version") {
            attributes.push(("version", String::new()));
        }
        let infinite = node
            .opt("infinite")
            .is_some_and(|i| *i.value == Value::Bool(true));
        self.start("map", node.path(), &attributes, false);
        // Tilesets first: the TMX reader needs them before the layers.
        if let Some(tilesets) = node.opt("tilesets") {
            for tileset in objects(tilesets.node())? {
                self.tileset_reference(tileset.node())?;
            }
        }
        self.properties(node)?;
        if let Some(layers) = node.opt("layers") {
            for layer in objects(layers.node())? {
                self.layer(layer.node(), infinite)?;
            }
        }
        self.end("map");
        Ok(())
    }

    /// A tileset of a map or a template: a file (named at its `source`), or embedded.
    fn tileset_reference(&mut self, node: Node) -> Result<(), Fault> {
        let first = scalar(node.get("firstgid")?.node(), U32)?;
        match node.opt("source") {
            Some(source) => {
                let attributes = [("firstgid", first), ("source", source.node().str()?.into())];
                self.start("tileset", &source.path, &attributes, true);
                Ok(())
            }
            None => self.tileset(node, Some(first)),
        }
    }

    fn tileset(&mut self, node: Node, first: Option<String>) -> Result<(), Fault> {
        let mut all: Attrs = first.map(|gid| ("firstgid", gid)).into_iter().collect();
        all.extend(attributes(
            node,
            &[
                ("name", Ty::Str),
                ("class", Ty::Str),
                ("tilewidth", U32),
                ("tileheight", U32),
                ("spacing", U32),
                ("margin", U32),
                ("tilecount", U32),
                ("columns", U32),
                (
                    "objectalignment",
                    Ty::Choice(&[
                        "unspecified",
                        "topleft",
                        "top",
                        "topright",
                        "left",
                        "center",
                        "right",
                        "bottomleft",
                        "bottom",
                        "bottomright",
                    ]),
                ),
            ],
        )?);
        self.start("tileset", node.path(), &all, false);
        if let Some(offset) = node.opt("tileoffset") {
            object(offset.node())?;
            let at = attributes(offset.node(), &[("x", I32), ("y", I32)])?;
            self.start("tileoffset", &offset.path, &at, true);
        }
        self.image(node)?;
        self.properties(node)?;
        if let Some(tiles) = node.opt("tiles") {
            for tile in objects(tiles.node())? {
                let tile = tile.node();
                tile.get("id")?;
                let at = attributes(
                    tile,
                    &[
                        ("id", U32),
                        ("type", Ty::Str),
                        ("class", Ty::Str),
                        ("probability", Ty::Number),
                        ("x", U32),
                        ("y", U32),
                        ("width", U32),
                        ("height", U32),
                    ],
                )?;
                self.start("tile", tile.path(), &at, false);
                self.image(tile)?;
                self.properties(tile)?;
                // Its collision shapes, objects that may be templates.
                if let Some(group) = tile.opt("objectgroup") {
                    object(group.node())?;
                    self.layer(group.node(), false)?;
                }
                self.end("tile");
            }
        }
        if let Some(sets) = node.opt("wangsets") {
            let sets_list = objects(sets.node())?;
            self.start("wangsets", &sets.path, &[], false);
            for set in sets_list {
                self.wang_set(set.node())?;
            }
            self.end("wangsets");
        }
        self.end("tileset");
        Ok(())
    }

    /// The image of a tileset, a tile or an image layer (`image`, `imagewidth`,
    /// `imageheight`, `transparentcolor`); none where `image` is missing or empty.
    fn image(&mut self, node: Node) -> Result<(), Fault> {
        let Some(image) = node.opt("image") else {
            return Ok(());
        };
        let source = image.node().str()?;
        if source.is_empty() {
            return Ok(());
        }
        let mut at = vec![("source", source.to_owned())];
        for (json, xml) in [("imagewidth", "width"), ("imageheight", "height")] {
            if let Some(size) = node.opt(json) {
                at.push((xml, scalar(size.node(), I32)?));
            }
        }
        if let Some(colour) = node.opt("transparentcolor") {
            at.push(("trans", colour.node().str()?.to_owned()));
        }
        self.start("image", &image.path, &at, true);
        Ok(())
    }

    fn wang_set(&mut self, node: Node) -> Result<(), Fault> {
        let at = attributes(
            node,
            &[
                ("name", Ty::Str),
                ("class", Ty::Str),
                ("type", Ty::Choice(&["corner", "edge", "mixed"])),
                ("tile", I32),
            ],
        )?;
        self.start("wangset", node.path(), &at, false);
        self.properties(node)?;
        if let Some(colours) = node.opt("colors") {
            for colour in objects(colours.node())? {
                let colour = colour.node();
                let at = attributes(
                    colour,
                    &[
                        ("name", Ty::Str),
                        ("class", Ty::Str),
                        ("color", Ty::Str),
                        ("tile", I32),
                        ("probability", Ty::Number),
                    ],
                )?;
                self.start("wangcolor", colour.path(), &at, false);
                self.properties(colour)?;
                self.end("wangcolor");
            }
        }
        if let Some(tiles) = node.opt("wangtiles") {
            for tile in objects(tiles.node())? {
                let tile = tile.node();
                let mut at = attributes(tile, &[("tileid", U32)])?;
                let mut ids = Vec::new();
                for id in tile.get("wangid")?.node().items()? {
                    ids.push(id.node().int_in(0..=255)?.to_string());
                }
                at.push(("wangid", ids.join(",")));
                self.start("wangtile", tile.path(), &at, true);
            }
        }
        self.end("wangset");
        Ok(())
    }

    fn layer(&mut self, node: Node, infinite: bool) -> Result<(), Fault> {
        let layer_type = node.get("type")?;
        let mut at = attributes(node, LAYER)?;
        match layer_type.node().str()? {
            "tilelayer" => {
                for (name, value) in [
                    ("width", node.get("width")?),
                    ("height", node.get("height")?),
                ] {
                    at.push((name, scalar(value.node(), U32)?));
                }
                self.start("layer", node.path(), &at, false);
                self.properties(node)?;
                self.data(node, infinite)?;
                self.end("layer");
            }
            "objectgroup" => {
                at.extend(attributes(
                    node,
                    &[
                        ("color", Ty::Str),
                        ("draworder", Ty::Choice(&["topdown", "index"])),
                    ],
                )?);
                self.start("objectgroup", node.path(), &at, false);
                self.properties(node)?;
                if let Some(list) = node.opt("objects") {
                    for object in objects(list.node())? {
                        self.object(object.node())?;
                    }
                }
                self.end("objectgroup");
            }
            "imagelayer" => {
                at.extend(attributes(
                    node,
                    &[("repeatx", Ty::Bool), ("repeaty", Ty::Bool)],
                )?);
                self.start("imagelayer", node.path(), &at, false);
                self.image(node)?;
                self.properties(node)?;
                self.end("imagelayer");
            }
            "group" => {
                self.start("group", node.path(), &at, false);
                self.properties(node)?;
                if let Some(layers) = node.opt("layers") {
                    for layer in objects(layers.node())? {
                        self.layer(layer.node(), infinite)?;
                    }
                }
                self.end("group");
            }
            other => {
                return Err(layer_type.node().fault(format!(
                    "`{other}` is no layer type (Tiled writes tilelayer, objectgroup, imagelayer or group)"
                )));
            }
        }
        Ok(())
    }

    /// A tile layer's `<data>`: its `data`, or on an infinite map its `chunks`.
    fn data(&mut self, node: Node, infinite: bool) -> Result<(), Fault> {
        let encoding = match node.opt("encoding") {
            Some(e) => scalar(e.node(), Ty::Choice(&["csv", "base64"]))?,
            None => "csv".into(),
        };
        let compression = match node.opt("compression") {
            Some(c) => scalar(c.node(), Ty::Choice(&["", "zlib", "gzip", "zstd"]))?,
            None => String::new(),
        };
        let mut at = vec![("encoding", encoding.clone())];
        if !compression.is_empty() {
            at.push(("compression", compression));
        }
        let base64 = encoding == "base64";
        if !infinite {
            let data = node.get("data")?;
            self.start("data", &data.path, &at, false);
            self.tiles(data.node(), base64)?;
            self.end("data");
            return Ok(());
        }
        let chunks = match node.opt("chunks") {
            Some(chunks) => {
                let list = objects(chunks.node())?;
                self.start("data", &chunks.path, &at, false);
                list
            }
            None => {
                self.start("data", node.path(), &at, false);
                Vec::new()
            }
        };
        for chunk in chunks {
            let chunk = chunk.node();
            let mut at = Vec::new();
            for (name, ty) in [("x", I32), ("y", I32), ("width", U32), ("height", U32)] {
                at.push((name, scalar(chunk.get(name)?.node(), ty)?));
            }
            self.start("chunk", chunk.path(), &at, false);
            self.tiles(chunk.get("data")?.node(), base64)?;
            self.end("chunk");
        }
        self.end("data");
        Ok(())
    }

    /// Layer data: a base64 string on a line of its own, or an array of gids written as
    /// CSV, a line a gid.
    fn tiles(&mut self, data: Node, base64: bool) -> Result<(), Fault> {
        if base64 {
            let text = data.str().map_err(|f| Fault {
                message: format!("{} (the layer's encoding is base64)", f.message),
                ..f
            })?;
            self.line(Mark::Value(data.path().clone()));
            self.out.push_str(&escape(text));
            return Ok(());
        }
        let Value::Array(gids) = data.value else {
            return Err(data.fault(format!(
                "expected an array of tile gids (the layer's encoding is csv), got {}",
                kind(data.value)
            )));
        };
        self.marks
            .push((self.line + 1, Mark::Items(data.path().clone())));
        for (i, gid) in gids.iter().enumerate() {
            let gid = gid
                .as_u64()
                .filter(|&g| g <= u64::from(u32::MAX))
                .ok_or_else(|| data.index_fault(i, gid))?;
            self.out.push('\n');
            self.line += 1;
            let _ = write!(self.out, "{gid}");
            if i + 1 < gids.len() {
                self.out.push(',');
            }
        }
        Ok(())
    }

    fn object(&mut self, node: Node) -> Result<(), Fault> {
        let at = attributes(node, OBJECT)?;
        self.start("object", node.path(), &at, false);
        self.properties(node)?;
        for shape in ["ellipse", "point", "capsule"] {
            if let Some(flag) = node.opt(shape)
                && scalar(flag.node(), Ty::Bool)? == "1"
            {
                self.start(shape, &flag.path, &[], true);
            }
        }
        for shape in ["polygon", "polyline"] {
            let Some(points) = node.opt(shape) else {
                continue;
            };
            let mut written = Vec::new();
            for point in objects(points.node())? {
                let point = point.node();
                let coordinate = |c: &str| point.get(c).and_then(|v| v.node().number());
                written.push(format!("{},{}", coordinate("x")?, coordinate("y")?));
            }
            self.start(shape, &points.path, &[("points", written.join(" "))], true);
        }
        if let Some(text) = node.opt("text") {
            let text_node = text.node();
            object(text_node)?;
            let at = attributes(text_node, TEXT)?;
            let content = match text_node.opt("text") {
                Some(content) => content.node().str()?,
                None => "",
            };
            self.start("text", &text.path, &at, false);
            self.out.push_str(&escape(content));
            self.end("text");
        }
        self.end("object");
        Ok(())
    }

    fn template(&mut self, node: Node) -> Result<(), Fault> {
        self.start("template", node.path(), &[], false);
        if let Some(tileset) = node.opt("tileset") {
            object(tileset.node())?;
            self.tileset_reference(tileset.node())?;
        }
        let body = node.get("object")?;
        object(body.node())?;
        self.object(body.node())?;
        self.end("template");
        Ok(())
    }

    /// The `properties` of a map, layer, tileset, tile, object or terrain colour.
    fn properties(&mut self, node: Node) -> Result<(), Fault> {
        let Some(list) = node.opt("properties") else {
            return Ok(());
        };
        let items = objects(list.node())?;
        self.start("properties", &list.path, &[], false);
        for property in items {
            let property = property.node();
            let name = property.get("name")?.node().str()?.to_owned();
            self.property(property, Some(name))?;
        }
        self.end("properties");
        Ok(())
    }

    /// A `<property>` (`name` given) or a list's `<item>`, from an object with `type`
    /// (else `string`), `value` and `propertytype`.
    fn property(&mut self, node: Node, name: Option<String>) -> Result<(), Fault> {
        let tag = if name.is_some() { "property" } else { "item" };
        let mut at: Attrs = name.map(|name| ("name", name)).into_iter().collect();
        let value_type = match node.opt("type") {
            Some(t) => t.node().str()?,
            None => "string",
        };
        at.push(("type", value_type.to_owned()));
        if let Some(named) = node.opt("propertytype") {
            at.push(("propertytype", named.node().str()?.to_owned()));
        }
        let value = node.opt("value");
        match (value_type, value) {
            ("class", Some(members)) => {
                self.start(tag, node.path(), &at, false);
                self.members(members.node())?;
                self.end(tag);
            }
            ("list", Some(items)) => {
                let items = items.node().items()?;
                self.start(tag, node.path(), &at, false);
                for item in items {
                    let item = item.node();
                    match item.value {
                        Value::Object(_) => self.property(item, None)?,
                        _ => self.inferred(item, None)?,
                    }
                }
                self.end(tag);
            }
            (_, Some(value)) => {
                at.push(("value", property_value(value.node(), value_type)?));
                self.start(tag, node.path(), &at, true);
            }
            (_, None) => self.start(tag, node.path(), &at, true),
        }
        Ok(())
    }

    /// A class property's members, an object of name → value: their types are the
    /// project's, which the file does not hold, so each is the type its JSON value is.
    fn members(&mut self, node: Node) -> Result<(), Fault> {
        let Value::Object(members) = node.value else {
            return Err(node.fault(format!(
                "expected an object of the class's members, got {}",
                kind(node.value)
            )));
        };
        self.start("properties", node.path(), &[], false);
        for (name, value) in members {
            let member = Owned {
                value,
                path: node.path().field(name),
            };
            self.inferred(member.node(), Some(name.clone()))?;
        }
        self.end("properties");
        Ok(())
    }

    /// A property (or list item) of the type its JSON value is.
    fn inferred(&mut self, node: Node, name: Option<String>) -> Result<(), Fault> {
        let tag = if name.is_some() { "property" } else { "item" };
        let mut at: Attrs = name.map(|name| ("name", name)).into_iter().collect();
        let value_type = match node.value {
            Value::Bool(_) => "bool",
            Value::Number(n) if n.is_i64() => "int",
            Value::Number(_) => "float",
            Value::Object(_) => "class",
            Value::Array(_) => "list",
            Value::String(_) | Value::Null => "string",
        };
        at.push(("type", value_type.to_owned()));
        match node.value {
            Value::Object(_) => {
                self.start(tag, node.path(), &at, false);
                self.members(node)?;
                self.end(tag);
            }
            Value::Array(_) => {
                self.start(tag, node.path(), &at, false);
                for item in node.items()? {
                    self.inferred(item.node(), None)?;
                }
                self.end(tag);
            }
            Value::Null => self.start(tag, node.path(), &at, true),
            _ => {
                at.push(("value", property_value(node, value_type)?));
                self.start(tag, node.path(), &at, true);
            }
        }
        Ok(())
    }
}

/// A property's value, as its type needs it.
fn property_value(node: Node, value_type: &str) -> Result<String, Fault> {
    match (value_type, node.value) {
        ("bool", Value::Bool(b)) => Ok(b.to_string()),
        ("bool", other) => Err(node.fault(format!(
            "a bool property's value is true or false, got {}",
            kind(other)
        ))),
        ("int", _) => scalar(node, I32),
        ("object", _) => scalar(node, U32),
        ("float", _) => scalar(node, Ty::Number),
        ("string" | "file" | "color", _) => scalar(node, Ty::Str),
        // A type Tiled does not write: the TMX reader says so, at the property.
        (_, Value::Bool(b)) => Ok(b.to_string()),
        _ => scalar(node, Ty::Text),
    }
}

/// Text as an attribute value or element text, on the line it starts.
pub(super) fn escape(text: &str) -> Cow<'_, str> {
    if !text.contains(['&', '<', '>', '"', '\'', '\n', '\r', '\t']) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&apos;"),
            '\n' => out.push_str("&#10;"),
            '\r' => out.push_str("&#13;"),
            '\t' => out.push_str("&#9;"),
            c => out.push(c),
        }
    }
    Cow::Owned(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_element_is_a_line_that_knows_its_json_value() {
        let text = r#"{"type": "map", "orientation": "orthogonal", "width": 2, "height": 1,
 "tilewidth": 8, "tileheight": 8, "infinite": false, "version": "1.8",
 "tilesets": [{"firstgid": 1, "source": "t.tsj"}],
 "layers": [{"type": "tilelayer", "name": "a & b", "width": 2, "height": 1,
   "data": [1,
     2]}]}"#;
        let converted = convert(Path::new("m.tmj"), text).unwrap();
        assert_eq!(
            converted.xml,
            "<map version=\"1.8\" orientation=\"orthogonal\" width=\"2\" height=\"1\" tilewidth=\"8\" tileheight=\"8\" infinite=\"0\">\n\
             <tileset firstgid=\"1\" source=\"t.tsj\"/>\n\
             <layer name=\"a &amp; b\" width=\"2\" height=\"1\">\n\
             <data encoding=\"csv\">\n1,\n2</data></layer></map>"
        );
        let at = |line| locate(text, &converted.origin(line));
        assert_eq!(at(1), (1, 1));
        assert_eq!(at(2), (3, 41), "a tileset file is named at its source");
        assert_eq!(at(3), (4, 13));
        assert_eq!(at(4), (5, 12));
        assert_eq!((at(5), at(6)), ((5, 13), (6, 6)), "each gid at its place");
    }

    #[test]
    fn values_of_the_wrong_type_are_refused_at_the_value() {
        let refused = |text: &str| convert(Path::new("m.tmj"), text).unwrap_err().to_string();
        assert_eq!(
            refused("{\"type\": \"map\",\n \"width\": \"ten\"}"),
            "m.tmj:1:1: the field `orientation` is missing (at $)"
        );
        let head = "{\"orientation\": \"orthogonal\", \"tilewidth\": 8, \"tileheight\": 8,\n";
        assert_eq!(
            refused(&format!("{head} \"width\": -1, \"height\": 1}}")),
            "m.tmj:2:11: expected a whole number from 0 to 4294967295, got -1 (at $.width)"
        );
        assert_eq!(
            refused(&format!("{head} \"width\": 5000, \"height\": 5000}}")),
            "m.tmj:2:11: the map is too large (at most 16M tiles) (at $.width)"
        );
        assert_eq!(
            refused(&format!(
                "{head} \"width\": 1, \"height\": 1, \"layers\": [{{\"type\": \"tiles\"}}]}}"
            )),
            "m.tmj:2:47: `tiles` is no layer type (Tiled writes tilelayer, objectgroup, imagelayer or group) (at $.layers[0].type)"
        );
        assert!(refused("{\"a\": [1,}").starts_with("m.tmj:1:10: "));
    }
}
