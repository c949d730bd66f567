//! JSON read with its place: values walked with their JSON path, and a path found again
//! in the text (line and column) only when a message needs it.

use std::fmt;

use serde_json::Value;
use tilewalk_path::formats::ParseError;

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
        assert_eq!(
            JsonPath(vec![field("levels"), Key::Index(0), field("uid")]).to_string(),
            "$.levels[0].uid"
        );
    }
}
