//! An LDtk level's `default_terrain` field, written as LDtk writes a String level field: its
//! definition among the project's level fields (added with the project's next uid when it
//! has none) and its value among the level's field instances, in the project and, for a
//! level kept in its own file, in that file too.

use serde_json::Value;
use tilewalk_path::formats::ParseError;

use super::{Written, add_member, fault, gap_before, members, parse, remove_member, splice};
use crate::map::json::{JsonPath, Key, value_span};

/// The field's identifier (read letter case aside, as the loader reads it).
pub const FIELD: &str = "default_terrain";

/// A level of a project, as the project lists it.
pub(super) struct LevelEntry {
    /// Its entry in `levels` or a world's `levels`.
    pub path: JsonPath,
    /// Its own file (`externalRelPath`), relative to the project's folder, when its layers
    /// are kept there.
    pub external: Option<String>,
}

/// The field's definition in the project: its identifier as written and its uid.
struct Definition {
    identifier: String,
    uid: i64,
}

/// Finds level `name` among the project's levels (worlds' after its own).
pub(super) fn find_level(text: &str, name: &str) -> Result<LevelEntry, ParseError> {
    let root = parse(text)?;
    let mut lists = vec![(JsonPath::default().field("levels"), root.get("levels"))];
    if let Some(Value::Array(worlds)) = root.get("worlds") {
        for (w, world) in worlds.iter().enumerate() {
            let path = JsonPath::default().field("worlds").index(w).field("levels");
            lists.push((path, world.get("levels")));
        }
    }
    for (path, list) in lists {
        let Some(Value::Array(levels)) = list else {
            continue;
        };
        for (i, level) in levels.iter().enumerate() {
            if level.get("identifier").and_then(Value::as_str) != Some(name) {
                continue;
            }
            let external = match level.get("layerInstances") {
                Some(Value::Array(_)) => None,
                _ => level
                    .get("externalRelPath")
                    .and_then(Value::as_str)
                    .map(str::to_owned),
            };
            return Ok(LevelEntry {
                path: path.index(i),
                external,
            });
        }
    }
    Err(fault(
        text,
        &JsonPath::default().field("levels"),
        format!("the project has no level `{name}`"),
    ))
}

/// The project's `default_terrain` level field definition; an error for one that holds no
/// text (an enum's, a number's).
fn definition(text: &str, root: &Value) -> Result<Option<(usize, Definition)>, ParseError> {
    let Some(Value::Array(fields)) = root.get("defs").and_then(|d| d.get("levelFields")) else {
        return Ok(None);
    };
    let Some(index) = fields.iter().position(|f| {
        f.get("identifier")
            .and_then(Value::as_str)
            .is_some_and(|i| i.eq_ignore_ascii_case(FIELD))
    }) else {
        return Ok(None);
    };
    let field = &fields[index];
    let path = JsonPath::default()
        .field("defs")
        .field("levelFields")
        .index(index);
    // LDtk before 0.7 writes only `type`.
    let kind = ["__type", "type"]
        .iter()
        .find_map(|k| field.get(*k).and_then(Value::as_str))
        .unwrap_or("unknown");
    if !matches!(kind, "String" | "Multilines" | "F_String" | "F_Text") {
        return Err(fault(
            text,
            &path,
            format!(
                "the level field `{FIELD}` is a {kind} field: make it a String field in LDtk to name a terrain"
            ),
        ));
    }
    let uid = field
        .get("uid")
        .and_then(Value::as_i64)
        .ok_or_else(|| fault(text, &path, "the field definition has no uid"))?;
    let identifier = field
        .get("identifier")
        .and_then(Value::as_str)
        .unwrap_or(FIELD)
        .to_owned();
    Ok(Some((index, Definition { identifier, uid })))
}

/// The project `text` with the level at `level` given the field's value `class` (`None`:
/// none). For a project without the field's definition, `class` adds it (its uid the
/// project's `nextUid`, which counts on); `None` takes off a definition that no level has a
/// value of any more, and gives its uid back when it was the last one given.
pub(super) fn write_project(
    text: &str,
    level: &JsonPath,
    class: Option<&str>,
) -> Result<String, ParseError> {
    let root = parse(text)?;
    let found = definition(text, &root)?;
    let Some(class) = class else {
        let Some((index, def)) = found else {
            return Ok(text.to_owned());
        };
        let others = levels_using(&root, def.uid, Some(level));
        let text = write_instance(text, level, &def, None, others > 0)?;
        if others > 0 {
            return Ok(text);
        }
        // No level has a value of it any more: it goes, as it came.
        let fields = JsonPath::default().field("defs").field("levelFields");
        let items = members(&text, &fields)?;
        let (_, item) = items[index];
        let text = remove_item(&text, &fields, &items, item)?;
        let next = root.get("nextUid").and_then(Value::as_i64);
        if next == Some(def.uid + 1) {
            return set_next_uid(&text, def.uid);
        }
        return Ok(text);
    };
    let (text, def) = match found {
        Some((_, def)) => (text.to_owned(), def),
        None => {
            let uid = root.get("nextUid").and_then(Value::as_i64).ok_or_else(|| {
                fault(
                    text,
                    &JsonPath::default(),
                    "the project has no `nextUid` to number a new level field (open and save it in LDtk first)",
                )
            })?;
            let text = add_definition(text, uid)?;
            let text = set_next_uid(&text, uid + 1)?;
            let def = Definition {
                identifier: FIELD.to_owned(),
                uid,
            };
            (text, def)
        }
    };
    write_instance(&text, level, &def, Some(class), false)
}

/// The level's own file `text` (an `.ldtkl`) with the field's value `class`, as the project
/// (`project`, already written) defines the field.
pub(super) fn write_level_file(
    text: &str,
    project: &str,
    class: Option<&str>,
) -> Result<String, ParseError> {
    let root = parse(project)?;
    let Some((_, def)) = definition(project, &root)? else {
        // No definition: the level has no value of it, or it goes with the definition.
        return write_instance(text, &JsonPath::default(), &orphan(), None, false);
    };
    // The project's entries mirror the levels' files: one with a value of it keeps it.
    let others = levels_using(&root, def.uid, None);
    write_instance(text, &JsonPath::default(), &def, class, others > 0)
}

/// A definition no project has: a level's value of it is found by identifier only.
fn orphan() -> Definition {
    Definition {
        identifier: FIELD.to_owned(),
        uid: i64::MIN,
    }
}

/// How many of the project's levels (`but` aside) have a value of field `uid`.
fn levels_using(root: &Value, uid: i64, but: Option<&JsonPath>) -> usize {
    let mut lists = vec![(JsonPath::default().field("levels"), root.get("levels"))];
    if let Some(Value::Array(worlds)) = root.get("worlds") {
        for (w, world) in worlds.iter().enumerate() {
            let path = JsonPath::default().field("worlds").index(w).field("levels");
            lists.push((path, world.get("levels")));
        }
    }
    let mut count = 0;
    for (path, list) in lists {
        let Some(Value::Array(levels)) = list else {
            continue;
        };
        for (i, level) in levels.iter().enumerate() {
            if but == Some(&path.index(i)) {
                continue;
            }
            let Some(Value::Array(fields)) = level.get("fieldInstances") else {
                continue;
            };
            if fields
                .iter()
                .any(|f| f.get("defUid").and_then(Value::as_i64) == Some(uid))
            {
                count += 1;
            }
        }
    }
    count
}

/// The field's value as LDtk writes it: `__value` and the editor's `realEditorValues`.
fn values(class: Option<&str>) -> (String, String) {
    match class {
        Some(class) => {
            let json = Value::String(class.to_owned()).to_string();
            let editor = format!("[{{ \"id\": \"V_String\", \"params\": [{json}] }}]");
            (json, editor)
        }
        None => ("null".to_owned(), "[]".to_owned()),
    }
}

/// `text` with the level object at `level` given the field's value: its instance of the
/// field set, added, or for `None` set to `null` when `keep`, else taken off.
fn write_instance(
    text: &str,
    level: &JsonPath,
    def: &Definition,
    class: Option<&str>,
    keep: bool,
) -> Result<String, ParseError> {
    let root = parse(text)?;
    let Some(object) = root.pointer(&pointer(level)) else {
        return Err(fault(text, level, "cannot find the level"));
    };
    let fields_path = level.field("fieldInstances");
    let found = match object.get("fieldInstances") {
        Some(Value::Array(fields)) => fields.iter().position(|f| {
            f.get("defUid").and_then(Value::as_i64) == Some(def.uid)
                || f.get("__identifier")
                    .and_then(Value::as_str)
                    .is_some_and(|i| i.eq_ignore_ascii_case(&def.identifier))
        }),
        Some(Value::Null) | None => None,
        Some(_) => {
            return Err(fault(
                text,
                &fields_path,
                "expected an array of field instances",
            ));
        }
    };
    let (value, editor) = values(class);
    match (found, class) {
        (Some(index), None) if !keep => {
            let items = members(text, &fields_path)?;
            let (_, item) = items[index];
            remove_item(text, &fields_path, &items, item)
        }
        (Some(index), _) => {
            let instance = fields_path.index(index);
            let text = set_member(text, &instance, "__value", &value)?;
            set_member(&text, &instance, "realEditorValues", &editor)
        }
        (None, None) => Ok(text.to_owned()),
        (None, Some(_)) => {
            let identifier = Value::String(def.identifier.clone()).to_string();
            let new = format!(
                "{{ \"__identifier\": {identifier}, \"__type\": \"String\", \"__value\": {value}, \"__tile\": null, \"defUid\": {}, \"realEditorValues\": {editor} }}",
                def.uid
            );
            match object.get("fieldInstances") {
                Some(Value::Array(_)) => add_item(text, &fields_path, &new, false),
                _ => {
                    let written = members(text, level)?;
                    let array = format!("[{new}]");
                    match written.iter().find(|(k, _)| *k == Some("fieldInstances")) {
                        // `null`, as some exporters write it.
                        Some((_, w)) => Ok(splice(text, w.value.0, w.value.1, &array)),
                        None => add_member(text, level, &written, "fieldInstances", &array),
                    }
                }
            }
        }
    }
}

/// `text` with member `key` of the object at `path` set to `json` (added last when absent).
fn set_member(text: &str, path: &JsonPath, key: &str, json: &str) -> Result<String, ParseError> {
    let written = members(text, path)?;
    match written.iter().find(|(k, _)| *k == Some(key)) {
        Some((_, w)) => Ok(splice(text, w.value.0, w.value.1, json)),
        None => add_member(text, path, &written, key, json),
    }
}

/// The project `text` with its `nextUid` set to `uid`.
fn set_next_uid(text: &str, uid: i64) -> Result<String, ParseError> {
    set_member(text, &JsonPath::default(), "nextUid", &uid.to_string())
}

/// The project `text` with the field's String definition added last to its level fields,
/// as LDtk writes a new one (LDtk 1.5's members, in its order).
fn add_definition(text: &str, uid: i64) -> Result<String, ParseError> {
    let defs = JsonPath::default().field("defs");
    let fields = defs.field("levelFields");
    let members_of = [
        ("identifier", format!("\"{FIELD}\"")),
        (
            "doc",
            "\"The terrain (of tilewalk's terrain table) of the cells no IntGrid value names\""
                .to_owned(),
        ),
        ("__type", "\"String\"".to_owned()),
        ("uid", uid.to_string()),
        ("type", "\"F_String\"".to_owned()),
        ("isArray", "false".to_owned()),
        ("canBeNull", "true".to_owned()),
        ("arrayMinLength", "null".to_owned()),
        ("arrayMaxLength", "null".to_owned()),
        ("editorDisplayMode", "\"NameAndValue\"".to_owned()),
        ("editorDisplayScale", "1".to_owned()),
        ("editorDisplayPos", "\"Above\"".to_owned()),
        ("editorLinkStyle", "\"StraightArrow\"".to_owned()),
        ("editorDisplayColor", "null".to_owned()),
        ("editorAlwaysShow", "false".to_owned()),
        ("editorShowInWorld", "true".to_owned()),
        ("editorCutLongValues", "true".to_owned()),
        ("editorTextSuffix", "null".to_owned()),
        ("editorTextPrefix", "null".to_owned()),
        ("useForSmartColor", "false".to_owned()),
        ("exportToToc", "false".to_owned()),
        ("searchable", "false".to_owned()),
        ("min", "null".to_owned()),
        ("max", "null".to_owned()),
        ("regex", "null".to_owned()),
        ("acceptFileTypes", "null".to_owned()),
        ("defaultOverride", "null".to_owned()),
        ("textLanguageMode", "null".to_owned()),
        ("symmetricalRef", "false".to_owned()),
        ("autoChainRef", "true".to_owned()),
        ("allowOutOfLevelRef", "true".to_owned()),
        ("allowedRefs", "\"OnlySame\"".to_owned()),
        ("allowedRefsEntityUid", "null".to_owned()),
        ("allowedRefTags", "[]".to_owned()),
        ("tilesetUid", "null".to_owned()),
    ];
    let root = parse(text)?;
    match root.get("defs").and_then(|d| d.get("levelFields")) {
        Some(Value::Array(_)) => {
            // Laid out as the text lays out its objects: LDtk's tabs, or one line when the
            // project is written on one (LDtk's "minify").
            let pretty = text.contains("\n\t");
            let (item_indent, member_indent) = if pretty {
                let indent = item_indent(text, &fields)?;
                let members = format!("{indent}\t");
                (indent, members)
            } else {
                (String::new(), String::new())
            };
            let (open, separator, close) = if pretty {
                (
                    format!("{{\n{member_indent}"),
                    format!(",\n{member_indent}"),
                    format!("\n{item_indent}}}"),
                )
            } else {
                ("{ ".to_owned(), ", ".to_owned(), " }".to_owned())
            };
            let body: Vec<String> = members_of
                .iter()
                .map(|(key, value)| format!("\"{key}\": {value}"))
                .collect();
            let new = format!("{open}{}{close}", body.join(&separator));
            add_item(text, &fields, &new, pretty)
        }
        Some(_) => Err(fault(text, &fields, "expected an array of level fields")),
        None => {
            // LDtk before 0.8 has no level fields: the list starts with this one.
            let body: Vec<String> = members_of
                .iter()
                .map(|(key, value)| format!("\"{key}\": {value}"))
                .collect();
            let written = members(text, &defs)?;
            let list = format!("[{{ {} }}]", body.join(", "));
            add_member(text, &defs, &written, "levelFields", &list)
        }
    }
}

/// The indent of a new item of the array at `path`: its last item's, else one tab more
/// than the line the array opens on.
fn item_indent(text: &str, path: &JsonPath) -> Result<String, ParseError> {
    let items = members(text, path)?;
    if !items.is_empty() {
        let gap = gap_before(text, &items);
        return Ok(gap.rsplit('\n').next().unwrap_or("").to_owned());
    }
    let (at, _) =
        value_span(text, path).ok_or_else(|| fault(text, path, "cannot find this value"))?;
    let line = text[..at].rfind('\n').map_or(0, |i| i + 1);
    let indent: String = text[line..at]
        .chars()
        .take_while(|c| c.is_whitespace())
        .collect();
    Ok(format!("{indent}\t"))
}

/// `text` with `new` added last to the array at `path`: after a comma and the blanks its
/// items are spaced with; in an empty array, alone (on a line of its own for `pretty`).
pub(super) fn add_item(
    text: &str,
    path: &JsonPath,
    new: &str,
    pretty: bool,
) -> Result<String, ParseError> {
    let items = members(text, path)?;
    match items.last() {
        Some((_, last)) => {
            let gap = gap_before(text, &items);
            let at = last.value.1;
            Ok(splice(text, at, at, &format!(",{gap}{new}")))
        }
        None => {
            let (at, end) =
                value_span(text, path).ok_or_else(|| fault(text, path, "cannot find the array"))?;
            let inside = if pretty {
                let indent = item_indent(text, path)?;
                let close = indent.strip_suffix('\t').unwrap_or("");
                format!("\n{indent}{new}\n{close}")
            } else {
                new.to_owned()
            };
            Ok(splice(text, at + 1, end - 1, &inside))
        }
    }
}

/// `text` without item `item` of the array at `path` (whose items are `items`); the last
/// one leaves the array empty, `[]`, as LDtk writes it.
fn remove_item(
    text: &str,
    path: &JsonPath,
    items: &[(Option<&str>, Written)],
    item: Written,
) -> Result<String, ParseError> {
    if items.len() > 1 {
        return Ok(remove_member(text, items, item));
    }
    let (at, end) =
        value_span(text, path).ok_or_else(|| fault(text, path, "cannot find the array"))?;
    Ok(splice(text, at + 1, end - 1, ""))
}

/// A JSON pointer (`/levels/0`) to the value at `path`.
fn pointer(path: &JsonPath) -> String {
    path.0
        .iter()
        .map(|key| match key {
            Key::Field(name) => {
                format!("/{}", name.replace('~', "~0").replace('/', "~1"))
            }
            Key::Index(i) => format!("/{i}"),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Two levels, laid out as LDtk lays out a project.
    const PROJECT: &str = "{\n\t\"nextUid\": 5,\n\t\"defs\": { \"layers\": [], \"levelFields\": [] },\n\t\"levels\": [\n\t\t{\n\t\t\t\"identifier\": \"A\",\n\t\t\t\"fieldInstances\": [],\n\t\t\t\"layerInstances\": []\n\t\t},\n\t\t{ \"identifier\": \"B\", \"fieldInstances\": [], \"layerInstances\": [] }\n\t]\n}";

    fn write(text: &str, level: &str, class: Option<&str>) -> Result<String, String> {
        let entry = find_level(text, level).map_err(|e| e.to_string())?;
        write_project(text, &entry.path, class).map_err(|e| e.to_string())
    }

    fn instance(uid: i64, value: &str) -> String {
        format!(
            "{{ \"__identifier\": \"default_terrain\", \"__type\": \"String\", \"__value\": \"{value}\", \"__tile\": null, \"defUid\": {uid}, \"realEditorValues\": [{{ \"id\": \"V_String\", \"params\": [\"{value}\"] }}] }}"
        )
    }

    #[test]
    fn a_level_given_a_default_terrain_gets_ldtks_string_field_and_taking_it_off_restores_the_bytes()
     {
        let grass = write(PROJECT, "A", Some("grass")).unwrap();
        let root: Value = serde_json::from_str(&grass).unwrap();
        assert_eq!(root["nextUid"], 6);
        let def = &root["defs"]["levelFields"][0];
        assert_eq!(def["identifier"], FIELD);
        assert_eq!(def["__type"], "String");
        assert_eq!(def["type"], "F_String");
        assert_eq!(def["uid"], 5);
        assert_eq!(def.as_object().unwrap().len(), 35);
        // The definition on lines of its own, indented as LDtk indents them.
        assert!(
            grass.contains(
                "\"levelFields\": [\n\t\t{\n\t\t\t\"identifier\": \"default_terrain\",\n"
            ),
            "{grass}"
        );
        assert!(
            grass.contains("\"tilesetUid\": null\n\t\t}\n\t] },"),
            "{grass}"
        );
        assert!(
            grass.contains(&format!("\"fieldInstances\": [{}],", instance(5, "grass"))),
            "{grass}"
        );
        assert_eq!(root["levels"][1]["fieldInstances"], serde_json::json!([]));
        // A second terrain changes the value only.
        let water = write(&grass, "A", Some("water")).unwrap();
        assert_eq!(water, grass.replace("\"grass\"", "\"water\""));
        // Taken off: the project as it was, its uid given back.
        assert_eq!(write(&water, "A", None).unwrap(), PROJECT);
        assert_eq!(write(PROJECT, "B", None).unwrap(), PROJECT);

        // Another level with a value keeps the definition: the first's value is null, as
        // LDtk writes a field without one.
        let both = write(&grass, "B", Some("sand")).unwrap();
        assert_eq!(serde_json::from_str::<Value>(&both).unwrap()["nextUid"], 6);
        assert!(both.contains(&instance(5, "sand")), "{both}");
        let b_only = write(&both, "A", None).unwrap();
        assert!(
            b_only.contains(
                "\"__value\": null, \"__tile\": null, \"defUid\": 5, \"realEditorValues\": [] }"
            ),
            "{b_only}"
        );
        assert!(b_only.contains("\"levelFields\": [\n\t\t{"), "{b_only}");
    }

    #[test]
    fn a_field_of_another_type_or_a_project_without_next_uid_is_refused() {
        let enumerated = PROJECT.replace(
            "\"levelFields\": []",
            "\"levelFields\": [{\"identifier\": \"Default_Terrain\", \"__type\": \"LocalEnum.Ground\", \"uid\": 3}]",
        );
        assert_eq!(
            write(&enumerated, "A", Some("grass")).unwrap_err(),
            "3:42: the level field `default_terrain` is a LocalEnum.Ground field: make it a String field in LDtk to name a terrain (at $.defs.levelFields[0])"
        );
        let old = PROJECT.replace("\t\"nextUid\": 5,\n", "");
        assert!(
            write(&old, "A", Some("grass"))
                .unwrap_err()
                .contains("the project has no `nextUid`"),
        );
        assert_eq!(
            write(PROJECT, "C", Some("grass")).unwrap_err(),
            "4:12: the project has no level `C` (at $.levels)"
        );
    }

    #[test]
    fn a_levels_own_file_takes_the_value_the_project_defines() {
        let level =
            "{\n\t\"identifier\": \"A\",\n\t\"fieldInstances\": [],\n\t\"layerInstances\": []\n}";
        let project = PROJECT.replace(
            "\t\t\t\"layerInstances\": []\n",
            "\t\t\t\"externalRelPath\": \"p/A.ldtkl\",\n\t\t\t\"layerInstances\": null\n",
        );
        let entry = find_level(&project, "A").unwrap();
        assert_eq!(entry.external.as_deref(), Some("p/A.ldtkl"));
        let written = write_project(&project, &entry.path, Some("grass")).unwrap();
        let level_grass = write_level_file(level, &written, Some("grass")).unwrap();
        assert_eq!(
            level_grass,
            level.replace("[],", &format!("[{}],", instance(5, "grass")))
        );
        let unwritten = write_project(&written, &entry.path, None).unwrap();
        assert_eq!(unwritten, project);
        assert_eq!(
            write_level_file(&level_grass, &unwritten, None).unwrap(),
            level
        );
    }
}
