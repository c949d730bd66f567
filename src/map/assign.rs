//! A tile kind's terrain written where the designer's tool keeps it: a Tiled tile's Class
//! (in its `.tsx` / `.tsj` tileset, or in the map's embedded tileset), an LDtk IntGrid
//! value's identifier, or an LDtk level's `default_terrain` field. The file's text is edited
//! where the tile kind is written, so every other byte stays as it was and Tiled or LDtk
//! opens it as before.

mod level_field;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde_json::Value;
use tilewalk_path::formats::ParseError;

use super::json::{JsonPath, Written, locate, value_span, written_members};
use super::tmx::{is_json, write_xml_class};
use crate::assets::{AssetFileError, normalize, read_file};

pub use level_field::FIELD as LEVEL_FIELD;

/// The texts of the files a save edits, by path.
pub type Texts = BTreeMap<PathBuf, String>;

/// Where a tile kind's terrain is written.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum ClassHome {
    /// Tile `id`'s Class, in the tileset file `file` (`.tsx`, `.tsj`), or, for
    /// `embedded: Some(i)`, in the map `file`'s `i`th tileset (`.tmx`, `.tmj`).
    TiledTile {
        file: PathBuf,
        embedded: Option<usize>,
        id: u32,
    },
    /// The identifier of value `value` of the IntGrid layer definition whose uid is
    /// `layer`, in the LDtk project `file`.
    IntGrid {
        file: PathBuf,
        layer: i64,
        value: u32,
    },
    /// The `default_terrain` field of level `level` of the LDtk project `file`: the terrain
    /// of the level's cells that no IntGrid value names. Its String definition among the
    /// project's level fields (added, with the project's next uid, when it has none) and
    /// its value in the level: in the project's entry for it and, for a level kept in its
    /// own file (`.ldtkl`), in that file too.
    LevelField { file: PathBuf, level: String },
}

impl ClassHome {
    /// The file it is in.
    pub fn file(&self) -> &Path {
        match self {
            Self::TiledTile { file, .. }
            | Self::IntGrid { file, .. }
            | Self::LevelField { file, .. } => file,
        }
    }

    /// `text`, the content of [`Self::file`], with the tile kind's Class (or identifier)
    /// set to `class`, or taken off for `None` (an IntGrid value's identifier becomes
    /// `null`; a level field's value goes, and its definition with it when no level has a
    /// value of it). For a level field, the project's part only: [`Self::write_into`] writes
    /// the level's own file too. Errors say where in the text.
    pub fn write(&self, text: &str, class: Option<&str>) -> Result<String, ParseError> {
        match self {
            Self::TiledTile { file, embedded, id } => {
                if is_json(file) {
                    write_json_class(text, *embedded, *id, class)
                } else {
                    write_xml_class(text, *embedded, *id, class)
                }
            }
            Self::IntGrid { layer, value, .. } => write_identifier(text, *layer, *value, class),
            Self::LevelField { level, .. } => {
                let entry = level_field::find_level(text, level)?;
                level_field::write_project(text, &entry.path, class)
            }
        }
    }

    /// Writes the Class into `texts`, the files' contents by path (a file not there yet is
    /// read from disk): [`Self::file`], and a level field's level file. Returns the files
    /// written into; nothing in `texts` changes when it fails.
    pub fn write_into(
        &self,
        texts: &mut Texts,
        class: Option<&str>,
    ) -> Result<Vec<PathBuf>, AssetFileError> {
        let file = self.file().to_owned();
        let text = match texts.get(&file) {
            Some(text) => text.clone(),
            None => read_file(&file)?,
        };
        let Self::LevelField { level, .. } = self else {
            let edited = self.write(&text, class).map_err(in_file(&file))?;
            texts.insert(file.clone(), edited);
            return Ok(vec![file]);
        };
        let entry = level_field::find_level(&text, level).map_err(in_file(&file))?;
        let project =
            level_field::write_project(&text, &entry.path, class).map_err(in_file(&file))?;
        let mut files = Vec::new();
        if let Some(relative) = entry.external {
            let folder = file.parent().unwrap_or(Path::new(""));
            let level_file = normalize(&folder.join(relative));
            let level_text = match texts.get(&level_file) {
                Some(text) => text.clone(),
                None => read_file(&level_file)?,
            };
            let edited = level_field::write_level_file(&level_text, &project, class)
                .map_err(in_file(&level_file))?;
            texts.insert(level_file.clone(), edited);
            files.push(level_file);
        }
        texts.insert(file.clone(), project);
        files.push(file);
        Ok(files)
    }

    /// Reads the files it is written in, writes the Class in and saves each that changed
    /// atomically (a level's own file before its project).
    pub fn save(&self, class: Option<&str>) -> Result<(), AssetFileError> {
        let mut texts = Texts::new();
        self.write_into(&mut texts, class)?;
        save_texts(&texts).into_iter().try_for_each(|(_, r)| r)
    }
}

/// Saves each of `texts` atomically, a file that already holds its text aside; a project
/// (`.ldtk`) after the others, so that a reload of the project reads its levels' files as
/// saved. Says how each went, in the order of `texts`.
pub fn save_texts(texts: &Texts) -> Vec<(PathBuf, Result<(), AssetFileError>)> {
    let mut order: Vec<(&PathBuf, &String)> = texts.iter().collect();
    order.sort_by_key(|(f, _)| f.extension().is_some_and(|e| e == "ldtk"));
    let mut results: BTreeMap<&PathBuf, Result<(), AssetFileError>> = BTreeMap::new();
    for (file, text) in order {
        let result = if read_file(file).ok().as_ref() == Some(text) {
            Ok(())
        } else {
            super::write_atomically(file, text).map_err(|e| AssetFileError::Io {
                file: file.display().to_string(),
                message: e.to_string(),
            })
        };
        results.insert(file, result);
    }
    results
        .into_iter()
        .map(|(file, result)| (file.clone(), result))
        .collect()
}

/// An error in the text of `file`.
fn in_file(file: &Path) -> impl Fn(ParseError) -> AssetFileError + '_ {
    move |e| AssetFileError::in_file(file, e)
}

/// A JSON text read with serde, its syntax errors at their line and column.
fn parse(text: &str) -> Result<Value, ParseError> {
    serde_json::from_str(text).map_err(|e| {
        let message = e.to_string();
        let message = message
            .rsplit_once(" at line ")
            .map_or(message.as_str(), |(m, _)| m)
            .to_owned();
        ParseError::new(e.line().max(1), e.column().max(1), message)
    })
}

/// A fault at `path` of `text`.
fn fault(text: &str, path: &JsonPath, message: impl Into<String>) -> ParseError {
    let (line, column) = locate(text, path);
    ParseError::new(line, column, format!("{} (at {path})", message.into()))
}

/// The members of the object at `path`, as written.
fn members<'t>(
    text: &'t str,
    path: &JsonPath,
) -> Result<Vec<(Option<&'t str>, Written)>, ParseError> {
    value_span(text, path)
        .and_then(|(at, _)| written_members(text, at))
        .ok_or_else(|| fault(text, path, "cannot find this value in the text"))
}

/// A Tiled JSON tileset (`embedded: None`) or map's `embedded`th tileset with tile `id`'s
/// Class set: its `type` or `class` member (both if it has both), else a `type` member
/// (Tiled 1.10 on writes and reads it); a tile with no entry in `tiles` gets one.
fn write_json_class(
    text: &str,
    embedded: Option<usize>,
    id: u32,
    class: Option<&str>,
) -> Result<String, ParseError> {
    let root = parse(text)?;
    let (tileset, path) = match embedded {
        None => (&root, JsonPath::default()),
        Some(index) => {
            let path = JsonPath::default().field("tilesets").index(index);
            match root.get("tilesets").and_then(|t| t.get(index)) {
                Some(tileset) => (tileset, path),
                None => return Err(fault(text, &path, "the map has no such tileset")),
            }
        }
    };
    if !tileset.is_object() {
        return Err(fault(text, &path, "expected a tileset object"));
    }
    if tileset.get("source").is_some() {
        return Err(fault(
            text,
            &path,
            "this tileset is in its own file: its tiles' Class is written there",
        ));
    }
    let class_json = class.map(|c| Value::String(c.to_owned()).to_string());
    let tiles = match tileset.get("tiles") {
        None => None,
        Some(Value::Array(tiles)) => Some(tiles),
        Some(_) => {
            return Err(fault(
                text,
                &path.field("tiles"),
                "expected an array of tiles (a tileset from before Tiled 1.2: open and save it in Tiled first)",
            ));
        }
    };
    let found = tiles.and_then(|tiles| {
        tiles
            .iter()
            .position(|t| t.get("id").and_then(Value::as_u64) == Some(u64::from(id)))
    });
    if let Some(index) = found {
        let tile = path.field("tiles").index(index);
        let written = members(text, &tile)?;
        let named: Vec<Written> = written
            .iter()
            .filter(|(k, _)| matches!(k, Some("type" | "class")))
            .map(|&(_, w)| w)
            .collect();
        let mut out = text.to_owned();
        match (&class_json, named.is_empty()) {
            (Some(json), false) => {
                for w in named.iter().rev() {
                    out.replace_range(w.value.0..w.value.1, json);
                }
            }
            (Some(json), true) => {
                return add_member(text, &tile, &written, "type", json);
            }
            (None, _) => {
                // A tile left with its id only says nothing: it goes.
                if !named.is_empty()
                    && written
                        .iter()
                        .all(|(k, _)| matches!(k, Some("id" | "type" | "class")))
                {
                    let items = members(text, &path.field("tiles"))?;
                    if items.len() == 1 {
                        // No tiles left to say anything: the array goes too.
                        let own = members(text, &path)?;
                        if let Some(&(_, tiles)) = own.iter().find(|(k, _)| *k == Some("tiles")) {
                            return Ok(remove_member(text, &own, tiles));
                        }
                    }
                    let (_, item) = items[index];
                    return Ok(remove_member(text, &items, item));
                }
                for w in named.iter().rev() {
                    out = remove_member(&out, &written, *w);
                }
            }
        }
        return Ok(out);
    }
    let Some(json) = class_json else {
        return Ok(text.to_owned());
    };
    let new = format!("{{\"id\":{id}, \"type\":{json}}}");
    let tiles_path = path.field("tiles");
    match tiles {
        Some(_) => level_field::add_item(text, &tiles_path, &new, false),
        None => {
            let written = members(text, &path)?;
            add_member(text, &path, &written, "tiles", &format!("[{new}]"))
        }
    }
}

/// An LDtk project with the identifier of value `value` of IntGrid layer definition
/// `layer` set (`null` for `None`). LDtk before 0.9 writes no `value`: the entry's index
/// plus one, as its loader counts.
fn write_identifier(
    text: &str,
    layer: i64,
    value: u32,
    identifier: Option<&str>,
) -> Result<String, ParseError> {
    let root = parse(text)?;
    let layers_path = JsonPath::default().field("defs").field("layers");
    let layers = root
        .get("defs")
        .and_then(|d| d.get("layers"))
        .and_then(Value::as_array)
        .ok_or_else(|| {
            fault(
                text,
                &layers_path,
                "expected the project's layer definitions",
            )
        })?;
    let index = layers
        .iter()
        .position(|l| l.get("uid").and_then(Value::as_i64) == Some(layer))
        .ok_or_else(|| {
            fault(
                text,
                &layers_path,
                format!("no layer definition has uid {layer}"),
            )
        })?;
    let values_path = layers_path.index(index).field("intGridValues");
    let values = layers[index]
        .get("intGridValues")
        .and_then(Value::as_array)
        .ok_or_else(|| fault(text, &values_path, "expected the layer's IntGrid values"))?;
    let entry = values
        .iter()
        .enumerate()
        .position(|(i, v)| match v.get("value") {
            Some(number) => number.as_u64() == Some(u64::from(value)),
            None => i as u64 + 1 == u64::from(value),
        })
        .ok_or_else(|| {
            fault(
                text,
                &values_path,
                format!("the layer has no IntGrid value {value}"),
            )
        })?;
    let entry_path = values_path.index(entry);
    let json = identifier.map_or_else(
        || "null".to_owned(),
        |i| Value::String(i.to_owned()).to_string(),
    );
    let written = members(text, &entry_path)?;
    match written.iter().find(|(k, _)| *k == Some("identifier")) {
        Some((_, w)) => Ok(splice(text, w.value.0, w.value.1, &json)),
        None if identifier.is_none() => Ok(text.to_owned()),
        None => add_member(text, &entry_path, &written, "identifier", &json),
    }
}

/// `text` with member `key: json` added last to the object at `path` (whose members are
/// `written`), spaced as its members are.
fn add_member(
    text: &str,
    path: &JsonPath,
    written: &[(Option<&str>, Written)],
    key: &str,
    json: &str,
) -> Result<String, ParseError> {
    let key = Value::String(key.to_owned()).to_string();
    match written.last() {
        Some((_, last)) => {
            // The colon as the last member writes it (`:` or `: `).
            let key_end = text[last.start..]
                .find(':')
                .map_or(last.start, |i| last.start + i);
            let colon = &text[key_end..last.value.0];
            let gap = gap_before(text, written);
            let at = last.value.1;
            Ok(splice(text, at, at, &format!(",{gap}{key}{colon}{json}")))
        }
        None => {
            let (at, _) = value_span(text, path)
                .ok_or_else(|| fault(text, path, "cannot find this value in the text"))?;
            Ok(splice(text, at + 1, at + 1, &format!("{key}:{json}")))
        }
    }
}

/// The blanks between two members of a container, as it writes them (`written` has at
/// least one member): after the last comma, else after its opening bracket.
fn gap_before<'t>(text: &'t str, written: &[(Option<&str>, Written)]) -> &'t str {
    let last = written[written.len() - 1].1;
    let before = &text[..last.start];
    let cut = before.rfind([',', '{', '[']).map_or(0, |i| i + 1);
    &text[cut..last.start]
}

/// `text` without member `w` of an object whose members are `written`: with the comma
/// before it, or the one after it when it is first.
fn remove_member(text: &str, written: &[(Option<&str>, Written)], w: Written) -> String {
    let index = written
        .iter()
        .position(|(_, m)| m.start == w.start)
        .unwrap_or_default();
    if index > 0 {
        let previous = written[index - 1].1.value.1;
        splice(text, previous, w.value.1, "")
    } else if let Some((_, next)) = written.get(1) {
        splice(text, w.start, next.start, "")
    } else {
        splice(text, w.start, w.value.1, "")
    }
}

fn splice(text: &str, from: usize, to: usize, with: &str) -> String {
    let mut out = String::with_capacity(text.len() + with.len());
    out.push_str(&text[..from]);
    out.push_str(with);
    out.push_str(&text[to..]);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_json_tile_class_is_replaced_added_or_taken_off_in_place() {
        let tsj = "{ \"name\":\"t\",\n \"tiles\":[\n        {\n         \"id\":1,\n         \"type\":\"rock\"\n        }, \n        {\n         \"id\":3,\n         \"probability\":0.5\n        }],\n \"type\":\"tileset\"\n}";
        let set = |id, class| write_json_class(tsj, None, id, class).unwrap();
        assert_eq!(set(1, Some("water")), tsj.replace("\"rock\"", "\"water\""));
        assert_eq!(
            set(3, Some("sa\"nd")),
            tsj.replace(
                "\"probability\":0.5",
                "\"probability\":0.5,\n         \"type\":\"sa\\\"nd\""
            )
        );
        // Tile 1 had nothing but its Class: it goes.
        assert_eq!(
            set(1, None),
            tsj.replace(
                "\n        {\n         \"id\":1,\n         \"type\":\"rock\"\n        }, ",
                ""
            )
        );
        assert_eq!(
            set(4, Some("sand")),
            tsj.replace(
                "0.5\n        }]",
                "0.5\n        }, \n        {\"id\":4, \"type\":\"sand\"}]"
            )
        );
        assert_eq!(set(4, None), tsj);
        // A tile given a Class and taken it off again is as it was.
        let added = set(4, Some("sand"));
        assert_eq!(write_json_class(&added, None, 4, None).unwrap(), tsj);
        let bare = "{\"name\":\"t\"}";
        let added = write_json_class(bare, None, 0, Some("sand")).unwrap();
        assert_eq!(
            added,
            "{\"name\":\"t\",\"tiles\":[{\"id\":0, \"type\":\"sand\"}]}"
        );
        assert_eq!(write_json_class(&added, None, 0, None).unwrap(), bare);
        let map = "{\"tilesets\":[{\"source\":\"a.tsj\"}, {\"name\":\"b\", \"tiles\":[]}]}";
        assert_eq!(
            write_json_class(map, Some(1), 2, Some("x")).unwrap(),
            map.replace("[]", "[{\"id\":2, \"type\":\"x\"}]")
        );
        let err = |text: &str, embedded| {
            write_json_class(text, embedded, 0, Some("x"))
                .unwrap_err()
                .to_string()
        };
        assert_eq!(
            err(map, Some(0)),
            "1:14: this tileset is in its own file: its tiles' Class is written there (at $.tilesets[0])"
        );
        assert_eq!(
            err(map, Some(2)),
            "1:13: the map has no such tileset (at $.tilesets[2])"
        );
        assert!(
            err("{\n\"a\" 1}", None).starts_with("2:5: expected `:`"),
            "{}",
            err("{\n\"a\" 1}", None)
        );
        assert_eq!(
            err("{\"tiles\":{\"0\":{}}}", None),
            "1:10: expected an array of tiles (a tileset from before Tiled 1.2: open and save it in Tiled first) (at $.tiles)"
        );
    }

    #[test]
    fn an_int_grid_identifier_is_set_in_place() {
        let ldtk = "{\"defs\": {\"layers\": [{\"uid\": 7, \"intGridValues\": [\n  { \"value\": 1, \"identifier\": null, \"color\": \"#000\" },\n  { \"value\": 4, \"identifier\": \"wall\" }\n]}, {\"uid\": 9, \"intGridValues\": [{\"color\": \"#fff\"}]}]}}";
        let set = |layer, value, id| write_identifier(ldtk, layer, value, id);
        assert_eq!(
            set(7, 1, Some("water")).unwrap(),
            ldtk.replacen("null", "\"water\"", 1)
        );
        assert_eq!(set(7, 4, None).unwrap(), ldtk.replace("\"wall\"", "null"));
        // Before LDtk 0.9: no value, the index plus one; no identifier member yet.
        assert_eq!(
            set(9, 1, Some("sand")).unwrap(),
            ldtk.replace("\"#fff\"}", "\"#fff\",\"identifier\": \"sand\"}")
        );
        assert_eq!(
            set(7, 2, Some("x")).unwrap_err().to_string(),
            "1:50: the layer has no IntGrid value 2 (at $.defs.layers[0].intGridValues)"
        );
        assert_eq!(
            set(8, 1, Some("x")).unwrap_err().to_string(),
            "1:21: no layer definition has uid 8 (at $.defs.layers)"
        );
    }
}
