//! A tile's Class written into a tileset's XML (a `.tsx`, or a tileset embedded in a
//! `.tmx`), by editing the text where the tile is: every other byte stays as it was.

use tilewalk_path::formats::ParseError;

use super::tmj::escape;
use super::xml::{Element, scan};

/// `text` (a `.tsx` when `embedded` is `None`, else a `.tmx` whose `embedded`th `<tileset>`
/// is meant) with tile `id`'s Class set to `class`, or taken off for `None`. A `<tile>`
/// that has a `type` or `class` attribute gets the new value in it (in both, if it has
/// both); one with neither gets `type` (what every Tiled version reads, and `tiled`); a tile
/// without a `<tile>` element gets one, among its siblings in id order.
pub(crate) fn write_xml_class(
    text: &str,
    embedded: Option<usize>,
    id: u32,
    class: Option<&str>,
) -> Result<String, ParseError> {
    let elements = scan(text)?;
    let tileset = match embedded {
        None => elements
            .first()
            .filter(|e| e.name == "tileset")
            .ok_or_else(|| {
                let at = elements.first().map_or((1, 1), Element::at);
                ParseError::new(
                    at.0,
                    at.1,
                    "expected a <tileset> as the file's root element",
                )
            })?,
        Some(index) => elements
            .iter()
            .filter(|e| e.name == "tileset" && e.depth == 1)
            .nth(index)
            .ok_or_else(|| ParseError::new(1, 1, format!("the map has no tileset {index}")))?,
    };
    if tileset.attr("source").is_some() {
        return Err(ParseError::new(
            tileset.line,
            tileset.column,
            "this tileset is in its own file: its tiles' Class is written there",
        ));
    }
    let first = elements
        .iter()
        .position(|e| std::ptr::eq(e, tileset))
        .unwrap_or_default();
    let children: Vec<&Element> = elements[first + 1..tileset.end]
        .iter()
        .filter(|e| e.depth == tileset.depth + 1)
        .collect();
    let tile_id = |e: &Element| e.attr("id").and_then(|i| i.trim().parse::<u32>().ok());
    let tiles: Vec<&Element> = children
        .iter()
        .copied()
        .filter(|e| e.name == "tile")
        .collect();
    if let Some(tile) = tiles.iter().find(|e| tile_id(e) == Some(id)) {
        return edit_tag(text, tile, class);
    }
    let Some(class) = class else {
        return Ok(text.to_owned());
    };
    let new = format!("<tile id=\"{id}\" type=\"{}\"/>", escape(class));
    // Before the first tile of a greater id, else after the last tile, else before the
    // sets Tiled writes after the tiles, else after the last child.
    let next = tiles.iter().find(|e| tile_id(e).is_some_and(|t| t > id));
    if let Some(next) = next {
        let indent = indent_of(text, next.span.0);
        let at = next.span.0;
        return Ok(splice(text, at, at, &format!("{new}\n{indent}")));
    }
    let sets = children
        .iter()
        .find(|e| matches!(e.name.as_str(), "wangsets" | "terraintypes"));
    if let (None, Some(sets)) = (tiles.last(), sets) {
        let indent = indent_of(text, sets.span.0);
        let at = sets.span.0;
        return Ok(splice(text, at, at, &format!("{new}\n{indent}")));
    }
    if let Some(after) = tiles.last().or(children.last()) {
        let indent = indent_of(text, after.span.0);
        let at = after.span.1;
        return Ok(splice(text, at, at, &format!("\n{indent}{new}")));
    }
    // A tileset with no child element: its end tag, or its empty tag opened.
    let own = &text[tileset.span.0..tileset.span.1];
    let indent = indent_of(text, tileset.span.0);
    if own.trim_end().ends_with("/>") {
        let close = tileset.span.0 + own.trim_end().len() - 2;
        return Ok(splice(
            text,
            close,
            tileset.span.0 + own.trim_end().len(),
            &format!(">\n{indent} {new}\n{indent}</tileset>"),
        ));
    }
    let end = tileset.span.0 + own.rfind("</").unwrap_or(own.len());
    Ok(splice(text, end, end, &format!(" {new}\n{indent}")))
}

/// `tile`'s start tag with its `type` / `class` set to `class`, or removed.
fn edit_tag(text: &str, tile: &Element, class: Option<&str>) -> Result<String, ParseError> {
    let tag = attributes(text, tile.span.0)
        .ok_or_else(|| ParseError::new(tile.line, tile.column, "malformed <tile> tag"))?;
    let named: Vec<&Attribute> = tag
        .iter()
        .filter(|a| matches!(a.name, "type" | "class"))
        .collect();
    let mut out = text.to_owned();
    match (class, named.is_empty()) {
        (Some(class), false) => {
            // Last first, so that the earlier offsets hold.
            for attribute in named.iter().rev() {
                let (from, to) = attribute.value;
                out.replace_range(from..to, &escape(class));
            }
        }
        (Some(class), true) => {
            let after = tag
                .iter()
                .find(|a| a.name == "id")
                .or(tag.last())
                .map_or(tile.span.0 + "<tile".len(), |a| a.value.1 + 1);
            out.insert_str(after, &format!(" type=\"{}\"", escape(class)));
        }
        (None, _) => {
            // A `<tile/>` left with its id only says nothing: it goes, with its line.
            let own = &text[tile.span.0..tile.span.1];
            let bare = tag
                .iter()
                .all(|a| matches!(a.name, "id" | "type" | "class"));
            if !named.is_empty() && bare && own.ends_with("/>") {
                let indent = indent_of(text, tile.span.0);
                let mut from = tile.span.0 - indent.len();
                let before = &text[..from];
                if let Some(rest) = before.strip_suffix('\n') {
                    from = rest.strip_suffix('\r').unwrap_or(rest).len();
                }
                out.replace_range(from..tile.span.1, "");
                return Ok(out);
            }
            for attribute in named.iter().rev() {
                out.replace_range(attribute.whole.0..attribute.whole.1 + 1, "");
            }
        }
    }
    Ok(out)
}

/// An attribute of a start tag as written.
struct Attribute<'a> {
    name: &'a str,
    /// From the blank before its name to its value's closing quote.
    whole: (usize, usize),
    /// Its value between the quotes.
    value: (usize, usize),
}

/// The attributes of the start tag at `at` (its `<`), as written.
fn attributes(text: &str, at: usize) -> Option<Vec<Attribute<'_>>> {
    let bytes = text.as_bytes();
    let mut i = at + 1;
    while i < bytes.len() && !bytes[i].is_ascii_whitespace() && !matches!(bytes[i], b'>' | b'/') {
        i += 1;
    }
    let mut out = Vec::new();
    loop {
        let blank = i;
        while i < bytes.len() && bytes[i].is_ascii_whitespace() {
            i += 1;
        }
        match bytes.get(i)? {
            b'>' | b'/' => return Some(out),
            _ => {}
        }
        let name_start = i;
        while i < bytes.len() && !bytes[i].is_ascii_whitespace() && bytes[i] != b'=' {
            i += 1;
        }
        let name = text.get(name_start..i)?;
        while bytes.get(i)?.is_ascii_whitespace() {
            i += 1;
        }
        if bytes[i] != b'=' {
            return None;
        }
        i += 1;
        while bytes.get(i)?.is_ascii_whitespace() {
            i += 1;
        }
        let quote = *bytes.get(i)?;
        if !matches!(quote, b'"' | b'\'') {
            return None;
        }
        let value_start = i + 1;
        let value_end = value_start + text.get(value_start..)?.find(char::from(quote))?;
        out.push(Attribute {
            name,
            whole: (blank, value_end),
            value: (value_start, value_end),
        });
        i = value_end + 1;
    }
}

/// The blanks that start the line of byte `at`, up to it (none when text comes first).
fn indent_of(text: &str, at: usize) -> &str {
    let line = text[..at].rfind('\n').map_or(0, |i| i + 1);
    let before = &text[line..at];
    if before.chars().all(|c| c == ' ' || c == '\t') {
        before
    } else {
        ""
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

    const TSX: &str = "<?xml version=\"1.0\"?>\n<tileset name=\"t\" tilewidth=\"8\" tileheight=\"8\" tilecount=\"4\" columns=\"2\">\n <image source=\"t.png\" width=\"16\" height=\"16\"/>\n <tile id=\"1\" type='rock'>\n  <properties><property name=\"x\" value=\"1\"/></properties>\n </tile>\n <tile id=\"3\" probability=\"0.5\"/>\n <wangsets/>\n</tileset>\n";

    #[test]
    fn a_class_is_replaced_added_or_taken_off_in_place() {
        let set = |id, class| write_xml_class(TSX, None, id, class).unwrap();
        assert_eq!(set(1, Some("water")), TSX.replace("'rock'", "'water'"));
        assert_eq!(
            set(3, Some("a<\"b\"")),
            TSX.replace(
                "<tile id=\"3\" probability",
                "<tile id=\"3\" type=\"a&lt;&quot;b&quot;\" probability"
            )
        );
        assert_eq!(set(1, None), TSX.replace(" type='rock'", ""));
        // A tile given a Class and taken it off again is as it was.
        let added = set(2, Some("sand"));
        assert_eq!(write_xml_class(&added, None, 2, None).unwrap(), TSX);
        let crlf = TSX.replace('\n', "\r\n");
        let added = write_xml_class(&crlf, None, 5, Some("sand")).unwrap();
        assert_eq!(write_xml_class(&added, None, 5, None).unwrap(), crlf);
        assert_eq!(set(0, None), TSX);
        // A tile without a <tile> goes among the others in id order.
        assert_eq!(
            set(2, Some("sand")),
            TSX.replace(
                " <tile id=\"3\"",
                " <tile id=\"2\" type=\"sand\"/>\n <tile id=\"3\""
            )
        );
        assert_eq!(
            set(0, Some("sand")),
            TSX.replace(
                " <tile id=\"1\"",
                " <tile id=\"0\" type=\"sand\"/>\n <tile id=\"1\""
            )
        );
        // No tiles at all: after the image, before the sets.
        let bare = "<tileset name=\"t\">\n <image source=\"t.png\"/>\n <wangsets/>\n</tileset>";
        assert_eq!(
            write_xml_class(bare, None, 5, Some("sand")).unwrap(),
            "<tileset name=\"t\">\n <image source=\"t.png\"/>\n <tile id=\"5\" type=\"sand\"/>\n <wangsets/>\n</tileset>"
        );
        let empty = "<map>\n <tileset firstgid=\"1\" name=\"t\"/>\n</map>";
        assert_eq!(
            write_xml_class(empty, Some(0), 2, Some("sand")).unwrap(),
            "<map>\n <tileset firstgid=\"1\" name=\"t\">\n  <tile id=\"2\" type=\"sand\"/>\n </tileset>\n</map>"
        );
    }

    #[test]
    fn odd_files_are_errors_at_their_place() {
        let err = |text: &str, embedded| {
            write_xml_class(text, embedded, 0, Some("x"))
                .unwrap_err()
                .to_string()
        };
        assert!(err("<tileset>", None).starts_with("1:10: malformed XML"));
        assert_eq!(
            err("<map/>", None),
            "1:1: expected a <tileset> as the file's root element"
        );
        assert_eq!(err("<map/>", Some(1)), "1:1: the map has no tileset 1");
        assert_eq!(
            err(
                "<map>\n <tileset firstgid=\"1\" source=\"a.tsx\"/></map>",
                Some(0)
            ),
            "2:2: this tileset is in its own file: its tiles' Class is written there"
        );
    }
}
