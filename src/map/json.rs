//! JSON read with its place: values walked with their JSON path, and a path found again
//! in the text (line and column) only when a message needs it. LDtk projects and Tiled's
//! JSON files are read with it.

use std::fmt;
use std::path::Path;

use serde_json::Value;
use tilewalk_path::formats::ParseError;

use crate::assets::AssetFileError;

/// A JSON syntax error at its line and column.
pub fn syntax_error(file: &Path, error: &serde_json::Error) -> AssetFileError {
    let message = error.to_string();
    let message = message
        .rsplit_once(" at line ")
        .map_or(message.as_str(), |(m, _)| m);
    AssetFileError::in_file(
        file,
        ParseError::new(error.line().max(1), error.column().max(1), message),
    )
}

/// One step of a JSON path.
#[derive(Clone, Debug, PartialEq)]
pub enum Key {
    Field(String),
    Index(usize),
}

/// A JSON path, `$.levels[0].layerInstances[2]`.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct JsonPath(pub Vec<Key>);

impl JsonPath {
    pub fn field(&self, name: &str) -> Self {
        let mut keys = self.0.clone();
        keys.push(Key::Field(name.to_owned()));
        Self(keys)
    }

    pub fn index(&self, index: usize) -> Self {
        let mut keys = self.0.clone();
        keys.push(Key::Index(index));
        Self(keys)
    }
}

impl fmt::Display for JsonPath {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("$")?;
        for key in &self.0 {
            match key {
                Key::Field(name) => write!(f, ".{name}")?,
                Key::Index(i) => write!(f, "[{i}]")?,
            }
        }
        Ok(())
    }
}

/// Something wrong at a JSON path.
#[derive(Clone, Debug, PartialEq)]
pub struct Fault {
    pub path: JsonPath,
    pub message: String,
}

impl Fault {
    /// The fault at its line and column of `text`, its path after the message.
    pub fn in_text(&self, text: &str) -> ParseError {
        let (line, column) = locate(text, &self.path);
        ParseError::new(line, column, format!("{} (at {})", self.message, self.path))
    }
}

/// A JSON value and its path.
#[derive(Clone, Copy)]
pub struct Node<'a, 'p> {
    pub value: &'a Value,
    path: &'p JsonPath,
}

/// A value read from a [`Node`], owning its path so it can be walked further.
pub struct Owned<'a> {
    pub value: &'a Value,
    pub path: JsonPath,
}

impl<'a> Owned<'a> {
    pub fn root(value: &'a Value) -> Self {
        Self {
            value,
            path: JsonPath::default(),
        }
    }

    pub fn node(&self) -> Node<'a, '_> {
        Node {
            value: self.value,
            path: &self.path,
        }
    }
}

impl<'a> Node<'a, '_> {
    pub fn path(&self) -> &JsonPath {
        self.path
    }

    pub fn fault(&self, message: impl Into<String>) -> Fault {
        Fault {
            path: self.path.clone(),
            message: message.into(),
        }
    }

    /// An array's item `index` is no whole number.
    pub fn index_fault(&self, index: usize, value: &Value) -> Fault {
        Fault {
            path: self.path.index(index),
            message: format!("expected a whole number, got {}", kind(value)),
        }
    }

    /// A field, `None` when missing or `null`.
    pub fn opt(&self, name: &str) -> Option<Owned<'a>> {
        match self.value.get(name) {
            None | Some(Value::Null) => None,
            Some(value) => Some(Owned {
                value,
                path: self.path.field(name),
            }),
        }
    }

    /// A field that must be there (and not `null`).
    pub fn get(&self, name: &str) -> Result<Owned<'a>, Fault> {
        self.opt(name)
            .ok_or_else(|| self.fault(format!("the field `{name}` is missing")))
    }

    /// The items of an array.
    pub fn items(&self) -> Result<Vec<Owned<'a>>, Fault> {
        let items = self
            .value
            .as_array()
            .ok_or_else(|| self.fault(format!("expected an array, got {}", kind(self.value))))?;
        Ok(items
            .iter()
            .enumerate()
            .map(|(i, value)| Owned {
                value,
                path: self.path.index(i),
            })
            .collect())
    }

    pub fn str(&self) -> Result<&'a str, Fault> {
        self.value
            .as_str()
            .ok_or_else(|| self.fault(format!("expected a string, got {}", kind(self.value))))
    }

    pub fn int(&self) -> Result<i64, Fault> {
        self.value
            .as_i64()
            .ok_or_else(|| self.fault(format!("expected a whole number, got {}", kind(self.value))))
    }

    /// A whole number within `range`.
    pub fn int_in(&self, range: std::ops::RangeInclusive<i64>) -> Result<i64, Fault> {
        let n = self.int()?;
        if range.contains(&n) {
            Ok(n)
        } else {
            Err(self.fault(format!(
                "expected a whole number from {} to {}, got {n}",
                range.start(),
                range.end()
            )))
        }
    }

    pub fn number(&self) -> Result<f64, Fault> {
        self.value
            .as_f64()
            .ok_or_else(|| self.fault(format!("expected a number, got {}", kind(self.value))))
    }
}

/// What a JSON value is, for messages.
pub fn kind(value: &Value) -> String {
    match value {
        Value::Null => "null".into(),
        Value::Bool(b) => format!("`{b}`"),
        Value::Number(n) => format!("`{n}`"),
        Value::String(s) => format!("`{s}`"),
        Value::Array(_) => "an array".into(),
        Value::Object(_) => "an object".into(),
    }
}

/// Where the value at `path` starts in `text` (line, column; columns count characters), or
/// where the walk stopped when the text does not hold the path.
pub fn locate(text: &str, path: &JsonPath) -> (usize, usize) {
    let bytes = text.as_bytes();
    let mut at = skip_space(bytes, 0);
    for key in &path.0 {
        match find(bytes, at, key) {
            Some(next) => at = next,
            None => break,
        }
    }
    line_column(text, at)
}

/// The bytes of the value at `path` in `text` (from its first byte to past its last), as
/// [`locate`] walks to it (the first of a repeated key); `None` when the text does not hold
/// the path.
pub fn value_span(text: &str, path: &JsonPath) -> Option<(usize, usize)> {
    let bytes = text.as_bytes();
    let mut at = skip_space(bytes, 0);
    for key in &path.0 {
        at = find(bytes, at, key)?;
    }
    Some((at, skip_value(bytes, at)?))
}

/// A member of an object or an item of an array, as written: where it starts (an object
/// member's key's opening quote) and its value's bytes.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Written {
    pub start: usize,
    pub value: (usize, usize),
}

/// The members of the object, or the items of the array, whose value starts at `at`, in
/// order, each with its key's bytes between the quotes (`None` for an array's item).
pub fn written_members(text: &str, at: usize) -> Option<Vec<(Option<&str>, Written)>> {
    let bytes = text.as_bytes();
    let close = match bytes.get(at)? {
        b'{' => b'}',
        b'[' => b']',
        _ => return None,
    };
    let mut out = Vec::new();
    let mut at = skip_space(bytes, at + 1);
    if bytes.get(at) == Some(&close) {
        return Some(out);
    }
    loop {
        let start = at;
        let key = if close == b'}' {
            let end = skip_string(bytes, at)?;
            let key = text.get(at + 1..end - 1)?;
            at = skip_space(bytes, end);
            if bytes.get(at) != Some(&b':') {
                return None;
            }
            at = skip_space(bytes, at + 1);
            Some(key)
        } else {
            None
        };
        let end = skip_value(bytes, at)?;
        // A number's end is where the next delimiter is: its trailing blanks are not its own.
        let value_end = at + text.get(at..end)?.trim_end().len();
        out.push((
            key,
            Written {
                start,
                value: (at, value_end),
            },
        ));
        at = skip_space(bytes, end);
        match bytes.get(at) {
            Some(b',') => at = skip_space(bytes, at + 1),
            Some(&b) if b == close => return Some(out),
            _ => return None,
        }
    }
}

/// Where each value at `paths` starts in `text` (line, column), as [`locate`] finds one, in
/// time linear in the text however many there are: its objects and arrays are indexed in
/// one pass, and the lines counted in another.
pub fn locate_all(text: &str, paths: &[JsonPath]) -> Vec<(usize, usize)> {
    let bytes = text.as_bytes();
    let index = Index::new(bytes);
    let offsets: Vec<usize> = paths.iter().map(|path| index.find(bytes, path)).collect();
    // Counted in the order of the text: each from the one before.
    let mut order: Vec<usize> = (0..offsets.len()).collect();
    order.sort_unstable_by_key(|&i| offsets[i]);
    let mut out = vec![(1, 1); offsets.len()];
    let (mut line, mut column, mut done) = (1, 1, 0);
    for i in order {
        let to = offsets[i].min(bytes.len());
        for &byte in &bytes[done..to] {
            if byte == b'\n' {
                (line, column) = (line + 1, 1);
            } else if byte & 0xC0 != 0x80 {
                // Not a UTF-8 continuation byte: a character starts here.
                column += 1;
            }
        }
        done = to;
        out[i] = (line, column);
    }
    out
}

/// The members of every object and array of a JSON text, by where they start. An array's
/// items that are neither objects nor arrays are not kept (layer data holds millions);
/// [`find`] counts them out of the text when one is asked for.
struct Index {
    /// Each object and array, in the order they open, with its members in order.
    containers: Vec<Vec<Member>>,
    /// Where the text's value starts.
    root: usize,
}

/// A member of an object or array.
struct Member {
    /// An object member's key: its bytes between the quotes.
    key: Option<(usize, usize)>,
    /// An array item's index.
    index: usize,
    /// Where its value starts.
    at: usize,
    /// Its value's place in [`Index::containers`], if it is an object or array.
    child: Option<usize>,
}

/// An object or array being indexed.
struct Open {
    /// Its place in [`Index::containers`].
    id: usize,
    object: bool,
    /// An object's key read and not yet given its value.
    key: Option<(usize, usize)>,
    /// How many values it has so far.
    count: usize,
}

impl Index {
    /// Indexes a text that is valid JSON (read with serde first): one pass, no recursion.
    fn new(bytes: &[u8]) -> Self {
        let mut containers: Vec<Vec<Member>> = Vec::new();
        let mut open: Vec<Open> = Vec::new();
        let root = skip_space(bytes, 0);
        let mut at = root;
        // Adds a value starting at `at` to the innermost open container.
        let add = |containers: &mut Vec<Vec<Member>>,
                   open: &mut Vec<Open>,
                   at: usize,
                   child: Option<usize>| {
            if let Some(parent) = open.last_mut() {
                if parent.object || child.is_some() {
                    containers[parent.id].push(Member {
                        key: parent.key.take(),
                        index: parent.count,
                        at,
                        child,
                    });
                }
                parent.count += 1;
            }
        };
        while at < bytes.len() {
            match bytes[at] {
                byte @ (b'{' | b'[') => {
                    let id = containers.len();
                    containers.push(Vec::new());
                    add(&mut containers, &mut open, at, Some(id));
                    open.push(Open {
                        id,
                        object: byte == b'{',
                        key: None,
                        count: 0,
                    });
                    at += 1;
                }
                b'}' | b']' => {
                    open.pop();
                    at += 1;
                }
                b'"' => {
                    let end = skip_string(bytes, at).unwrap_or(bytes.len());
                    match open.last_mut() {
                        Some(parent) if parent.object && parent.key.is_none() => {
                            parent.key = Some((at + 1, end.saturating_sub(1)));
                        }
                        _ => add(&mut containers, &mut open, at, None),
                    }
                    at = end;
                }
                b',' | b':' => at += 1,
                byte if byte.is_ascii_whitespace() => at += 1,
                _ => {
                    add(&mut containers, &mut open, at, None);
                    while at < bytes.len()
                        && !matches!(bytes[at], b',' | b'}' | b']')
                        && !bytes[at].is_ascii_whitespace()
                    {
                        at += 1;
                    }
                }
            }
        }
        Self { containers, root }
    }

    /// Where the value at `path` starts, or where the walk stopped.
    fn find(&self, bytes: &[u8], path: &JsonPath) -> usize {
        let mut at = self.root;
        let mut node = matches!(bytes.get(at), Some(b'{' | b'[')).then_some(0);
        for key in &path.0 {
            let Some(members) = node.and_then(|n| self.containers.get(n)) else {
                break;
            };
            let found = match key {
                // The last of a key, as serde reads it.
                Key::Field(name) => members
                    .iter()
                    .rev()
                    .find(|m| m.key.is_some_and(|(a, b)| key_is(bytes, (a, b), name))),
                Key::Index(i) => members
                    .binary_search_by_key(i, |m| m.index)
                    .ok()
                    .map(|j| &members[j]),
            };
            match (found, key) {
                (Some(member), _) => (at, node) = (member.at, member.child),
                // An item that is no object or array, counted out of the text.
                (None, Key::Index(_)) => match find(bytes, at, key) {
                    Some(item) => (at, node) = (item, None),
                    None => break,
                },
                (None, Key::Field(_)) => break,
            }
        }
        at
    }
}

/// Whether the key written in `bytes[a..b]` is `name` (read as JSON when it has escapes).
fn key_is(bytes: &[u8], (a, b): (usize, usize), name: &str) -> bool {
    let raw = &bytes[a..b];
    if !raw.contains(&b'\\') {
        return raw == name.as_bytes();
    }
    std::str::from_utf8(&bytes[a - 1..=b])
        .ok()
        .and_then(|quoted| serde_json::from_str::<String>(quoted).ok())
        .is_some_and(|key| key == name)
}

/// 1-based line and character column of a byte offset.
fn line_column(text: &str, at: usize) -> (usize, usize) {
    let before = &text[..at.min(text.len())];
    let line = before.matches('\n').count() + 1;
    let column = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
    (line, column)
}

fn skip_space(bytes: &[u8], mut at: usize) -> usize {
    while at < bytes.len() && bytes[at].is_ascii_whitespace() {
        at += 1;
    }
    at
}

/// The start of the member `key` of the object or array whose value starts at `at`.
fn find(bytes: &[u8], at: usize, key: &Key) -> Option<usize> {
    let (open, close) = match key {
        Key::Field(_) => (b'{', b'}'),
        Key::Index(_) => (b'[', b']'),
    };
    if bytes.get(at) != Some(&open) {
        return None;
    }
    let mut at = skip_space(bytes, at + 1);
    let mut index = 0;
    loop {
        if bytes.get(at) == Some(&close) {
            return None;
        }
        match key {
            Key::Field(name) => {
                let end = skip_string(bytes, at)?;
                let found = &bytes[at + 1..end - 1] == name.as_bytes();
                at = skip_space(bytes, end);
                if bytes.get(at) != Some(&b':') {
                    return None;
                }
                at = skip_space(bytes, at + 1);
                if found {
                    return Some(at);
                }
            }
            Key::Index(i) => {
                if index == *i {
                    return Some(at);
                }
                index += 1;
            }
        }
        at = skip_space(bytes, skip_value(bytes, at)?);
        match bytes.get(at) {
            Some(b',') => at = skip_space(bytes, at + 1),
            _ => return None,
        }
    }
}

/// The end of the string starting at `at` (after its closing quote).
fn skip_string(bytes: &[u8], at: usize) -> Option<usize> {
    if bytes.get(at) != Some(&b'"') {
        return None;
    }
    let mut i = at + 1;
    while i < bytes.len() {
        match bytes[i] {
            b'\\' => i += 2,
            b'"' => return Some(i + 1),
            _ => i += 1,
        }
    }
    None
}

/// The end of the value starting at `at`.
fn skip_value(bytes: &[u8], at: usize) -> Option<usize> {
    match bytes.get(at)? {
        b'"' => skip_string(bytes, at),
        b'{' | b'[' => {
            let mut depth = 0usize;
            let mut i = at;
            while i < bytes.len() {
                match bytes[i] {
                    b'"' => {
                        i = skip_string(bytes, i)?;
                        continue;
                    }
                    b'{' | b'[' => depth += 1,
                    b'}' | b']' => {
                        depth -= 1;
                        if depth == 0 {
                            return Some(i + 1);
                        }
                    }
                    _ => {}
                }
                i += 1;
            }
            None
        }
        _ => {
            let mut i = at;
            while i < bytes.len() && !matches!(bytes[i], b',' | b'}' | b']') {
                i += 1;
            }
            Some(i)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_path_is_found_at_its_line_and_column() {
        let text = "{\n  \"a\": [1, {\"b\": \"x,]}\"}, 3],\n  \"c\": {\"d\": [true, null]}\n}";
        let path = |keys: Vec<Key>| locate(text, &JsonPath(keys));
        let field = |s: &str| Key::Field(s.into());
        assert_eq!(path(vec![]), (1, 1));
        assert_eq!(path(vec![field("a")]), (2, 8));
        assert_eq!(path(vec![field("a"), Key::Index(2)]), (2, 27));
        assert_eq!(path(vec![field("c"), field("d"), Key::Index(1)]), (3, 21));
        // A path the text does not hold stops where the walk does.
        assert_eq!(path(vec![field("c"), field("zz")]), (3, 8));
        // Many at once, as one at a time; scalar items are counted out of the text.
        let paths = [
            vec![field("c"), field("d"), Key::Index(1)],
            vec![],
            vec![field("a"), Key::Index(2)],
            vec![field("a"), Key::Index(1), field("b")],
            vec![field("c"), field("zz")],
        ]
        .map(JsonPath);
        let one_by_one: Vec<_> = paths.iter().map(|p| locate(text, p)).collect();
        assert_eq!(locate_all(text, &paths), one_by_one);
        assert_eq!(one_by_one[3], (2, 18));
        // The last of a repeated key, as serde reads it; keys with escapes.
        let twice = "{\"k\": 1,\n \"k\": [7, {\"\\u0078\": 2}]}";
        let x = JsonPath(vec![field("k"), Key::Index(1), field("x")]);
        assert_eq!(locate_all(twice, &[x]), [(2, 22)]);
        assert_eq!(
            JsonPath(vec![field("levels"), Key::Index(0), field("uid")]).to_string(),
            "$.levels[0].uid"
        );
    }
}
