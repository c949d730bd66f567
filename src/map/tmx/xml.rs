//! The XML side of Tiled files, read with quick-xml (the parser inside `tiled`): syntax
//! errors at their `line:col`, where each element that messages point at is written, the
//! length of every finite layer's data, and the one repair old files need before `tiled`
//! reads them (an image tileset without `tilecount`).

use std::borrow::Cow;
use std::io::Read;

use base64::Engine;
use quick_xml::events::Event;
use tilewalk_path::formats::ParseError;

/// An XML element the parser met: its name, attributes and position.
#[derive(Debug)]
pub(super) struct Element {
    pub name: String,
    attributes: Vec<(String, String)>,
    pub line: usize,
    pub column: usize,
    /// For `<data>`: where each CSV entry is (line, column).
    pub entries: Vec<(usize, usize)>,
    /// For `<data>`: its text (base64 data), or the gid of each `<tile>` child (the XML
    /// encoding, whose entries are then where each `<tile>` is).
    pub text: String,
    pub gids: Vec<u32>,
    /// Its bytes in the file, from `<` to the end of its end tag.
    pub span: (usize, usize),
    /// How deep it is (the root is 0).
    pub depth: usize,
}

impl Element {
    pub fn at(&self) -> (usize, usize) {
        (self.line, self.column)
    }

    pub fn attr(&self, name: &str) -> Option<&str> {
        self.attributes
            .iter()
            .find(|(key, _)| key == name)
            .map(|(_, value)| value.as_str())
    }

    /// How many tiles this `<data>` element holds, decoding base64 (and its compression)
    /// to count them: `tiled` indexes a finite layer's data without checking its length.
    pub fn data_len(&self) -> Result<usize, String> {
        match (self.attr("encoding"), self.attr("compression")) {
            (Some("csv"), _) => Ok(self.entries.len()),
            (None, _) => Ok(self.gids.len()),
            (Some("base64"), compression) => {
                let bytes = base64::engine::general_purpose::STANDARD
                    .decode(self.text.trim())
                    .map_err(|e| format!("its base64 data does not decode: {e}"))?;
                let counted = match compression {
                    None | Some("") => Ok(bytes.len() as u64),
                    Some("zlib") => count(flate2::read::ZlibDecoder::new(&bytes[..])),
                    Some("gzip") => count(flate2::read::GzDecoder::new(&bytes[..])),
                    Some("zstd") => zstd::stream::read::Decoder::new(&bytes[..]).and_then(count),
                    Some(other) => return Err(format!("unknown compression `{other}`")),
                }
                .map_err(|e| format!("its compressed data does not decompress: {e}"))?;
                Ok((counted / 4) as usize)
            }
            (Some(other), _) => Err(format!(
                "unknown encoding `{other}` (Tiled writes csv or base64)"
            )),
        }
    }
}

/// The bytes a reader yields, without keeping them.
fn count(mut reader: impl Read) -> std::io::Result<u64> {
    std::io::copy(&mut reader, &mut std::io::sink())
}

/// The elements a Tiled file's messages point at.
const NOTED: [&str; 11] = [
    "map",
    "tileset",
    "tile",
    "property",
    "object",
    "layer",
    "data",
    "chunk",
    "objectgroup",
    "group",
    "image",
];

/// Reads `text` as XML, returning the elements messages point at (in document order), or
/// the first syntax error at its `line:col`.
pub(super) fn scan(text: &str) -> Result<Vec<Element>, ParseError> {
    let mut reader = quick_xml::Reader::from_str(text);
    reader.check_end_names(true);
    let mut found: Vec<Element> = Vec::new();
    // The open elements: name, start, and the index of the noted element it is.
    let mut open: Vec<(String, usize, Option<usize>)> = Vec::new();
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
                        String::from_utf8_lossy(attribute.key.local_name().as_ref()).into_owned(),
                        value.into_owned(),
                    ));
                }
                // `<tile>` without an id is a cell of XML-encoded layer data: counted.
                let cell = name == "tile" && !attributes.iter().any(|(k, _)| k == "id");
                let mut noted = None;
                if cell {
                    if let Some((_, _, Some(data))) = open.last().filter(|(n, _, _)| n == "data") {
                        let gid = attributes
                            .iter()
                            .find(|(k, _)| k == "gid")
                            .map_or(Ok(0), |(_, v)| v.trim().parse::<u32>())
                            .map_err(|e| {
                                ParseError::new(line, column, format!("the tile's gid: {e}"))
                            })?;
                        found[*data].gids.push(gid);
                        found[*data].entries.push((line, column));
                    }
                } else if NOTED.contains(&name.as_str()) {
                    noted = Some(found.len());
                    found.push(Element {
                        name: name.clone(),
                        attributes,
                        line,
                        column,
                        entries: Vec::new(),
                        text: String::new(),
                        gids: Vec::new(),
                        span: (start, reader.buffer_position()),
                        depth: open.len(),
                    });
                }
                if opens {
                    open.push((name, start, noted));
                }
            }
            Event::End(_) => {
                if let Some((_, _, Some(index))) = open.pop() {
                    found[index].span.1 = reader.buffer_position();
                }
            }
            Event::Text(data) => {
                if let Some((name, _, Some(index))) = open.last()
                    && name == "data"
                {
                    let element = &mut found[*index];
                    match element.attr("encoding") {
                        Some("csv") if element.entries.is_empty() => {
                            element.entries = csv_entries(text, start, data.len());
                        }
                        Some("base64") => {
                            element.text.push_str(&String::from_utf8_lossy(&data));
                        }
                        _ => {}
                    }
                }
            }
            Event::Eof => break,
            _ => {}
        }
    }
    if let Some((name, at, _)) = open.last() {
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
pub(super) fn line_col(text: &str, offset: usize) -> (usize, usize) {
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

/// `text` as `tiled` reads it: every image tileset without a `tilecount` given one (Tiled
/// wrote tilesets without one before version 1.0; `tiled` needs it), the tiles its image
/// holds from the image's size (its `width` and `height`, else `image_size` of its
/// `source`), the tile size, margin and spacing; and layer data in the old XML encoding
/// written as CSV (`tiled` reads only CSV and base64). Elements before each change stay at
/// their line and column. Fails with the `<image>` elements whose size is needed and
/// unknown.
pub(super) fn repaired<'a>(
    text: &'a str,
    elements: &[Element],
    image_size: impl Fn(&str) -> Option<(u64, u64)>,
) -> Result<Cow<'a, str>, Vec<usize>> {
    let mut changes: Vec<(usize, usize, String)> = Vec::new();
    let mut unknown = Vec::new();
    let number = |e: &Element, name| e.attr(name).and_then(|v| v.trim().parse::<u64>().ok());
    let size_of = |image: &Element| match (number(image, "width"), number(image, "height")) {
        (Some(width), Some(height)) => Some((width, height)),
        _ => image.attr("source").and_then(&image_size),
    };
    for (i, element) in elements.iter().enumerate() {
        // `tiled` needs every image's size.
        if element.name == "image"
            && (element.attr("width").is_none() || element.attr("height").is_none())
        {
            match size_of(element) {
                Some((width, height)) => {
                    let start = element.span.0 + "<image".len();
                    changes.push((
                        start,
                        start,
                        format!(" width=\"{width}\" height=\"{height}\""),
                    ));
                }
                None => unknown.push(i),
            }
        }
        if element.name == "data" && element.attr("encoding").is_none() && !element.gids.is_empty()
        {
            let csv: Vec<String> = element.gids.iter().map(u32::to_string).collect();
            changes.push((
                element.span.0,
                element.span.1,
                format!("<data encoding=\"csv\">{}</data>", csv.join(",")),
            ));
        }
        if element.name != "tileset"
            || element.attr("tilecount").is_some()
            || element.attr("source").is_some()
        {
            continue;
        }
        let Some(image) = elements[i + 1..]
            .iter()
            .take_while(|e| e.depth > element.depth)
            .find(|e| e.name == "image" && e.depth == element.depth + 1)
        else {
            continue;
        };
        let Some((width, height)) = size_of(image) else {
            continue;
        };
        let (Some(tile_width), Some(tile_height)) =
            (number(element, "tilewidth"), number(element, "tileheight"))
        else {
            continue;
        };
        let margin = number(element, "margin").unwrap_or(0);
        let spacing = number(element, "spacing").unwrap_or(0);
        let fit = |size: u64, tile: u64| {
            (size.saturating_sub(2 * margin) + spacing) / (tile + spacing).max(1)
        };
        let count = fit(width, tile_width) * fit(height, tile_height);
        // At the end of the start tag: the first `>` after the element's start.
        let start = element.span.0;
        let Some(end) = text[start..].find('>').map(|i| start + i) else {
            continue;
        };
        let end = if text[..end].ends_with('/') {
            end - 1
        } else {
            end
        };
        changes.push((end, end, format!(" tilecount=\"{count}\"")));
    }
    if !unknown.is_empty() {
        return Err(unknown);
    }
    if changes.is_empty() {
        return Ok(Cow::Borrowed(text));
    }
    changes.sort_by_key(|c| c.0);
    let mut out = String::with_capacity(text.len());
    let mut done = 0;
    for (from, to, insert) in changes {
        out.push_str(&text[done..from]);
        out.push_str(&insert);
        done = to;
    }
    out.push_str(&text[done..]);
    Ok(Cow::Owned(out))
}

/// The width and height of a PNG image from its first 24 bytes (tilewalk draws PNG images).
pub fn png_size(bytes: &[u8]) -> Option<(u32, u32)> {
    let header = bytes.get(..24)?;
    if &header[..8] != b"\x89PNG\r\n\x1a\n" || &header[12..16] != b"IHDR" {
        return None;
    }
    let number = |at: usize| {
        u32::from_be_bytes([header[at], header[at + 1], header[at + 2], header[at + 3]])
    };
    Some((number(16), number(20)))
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
        assert_eq!(found[2].data_len(), Ok(3));
        assert_eq!(found[4].attr("id"), Some("5"));
        assert_eq!(line_col("ab\ncé\nx", 6), (2, 3), "columns count characters");
        let mut png = b"\x89PNG\r\n\x1a\n\0\0\0\x0dIHDR".to_vec();
        png.extend_from_slice(&[0, 0, 1, 9, 0, 0, 0, 72]);
        assert_eq!(png_size(&png), Some((265, 72)));
        assert_eq!(png_size(b"GIF89a"), None);
    }

    #[test]
    fn every_encoding_tells_its_length() {
        // Two tiles (gids 1 and 2), as Tiled writes them in each encoding.
        let raw: Vec<u8> = [1u32, 2].iter().flat_map(|g| g.to_le_bytes()).collect();
        let b64 = |bytes: &[u8]| base64::engine::general_purpose::STANDARD.encode(bytes);
        let mut zlib = flate2::write::ZlibEncoder::new(Vec::new(), flate2::Compression::best());
        std::io::Write::write_all(&mut zlib, &raw).unwrap();
        let mut gzip = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::best());
        std::io::Write::write_all(&mut gzip, &raw).unwrap();
        let zstd = zstd::encode_all(&raw[..], 3).unwrap();
        for (attributes, body) in [
            ("encoding=\"base64\"", b64(&raw)),
            (
                "encoding=\"base64\" compression=\"zlib\"",
                b64(&zlib.finish().unwrap()),
            ),
            (
                "encoding=\"base64\" compression=\"gzip\"",
                b64(&gzip.finish().unwrap()),
            ),
            ("encoding=\"base64\" compression=\"zstd\"", b64(&zstd)),
            ("", "<tile gid=\"1\"/><tile/>".to_owned()),
        ] {
            let text =
                format!("<map><layer><data {attributes}>\n   {body}\n  </data></layer></map>");
            let found = scan(&text).unwrap();
            assert_eq!(found[2].data_len(), Ok(2), "{attributes}");
        }
        let bad = scan("<map><data encoding=\"base64\">!!</data></map>").unwrap();
        assert!(bad[1].data_len().unwrap_err().contains("base64"));
    }

    #[test]
    fn old_image_tilesets_get_their_tilecount() {
        // 106 x 72 px of 18 px tiles: 5 columns and 4 rows (hexagonal-mini.tmx in Tiled's examples).
        let text = "<map>\n <tileset firstgid=\"1\" name=\"hex\" tilewidth=\"18\" tileheight=\"18\">\n  <image source=\"h.png\" width=\"106\" height=\"72\"/>\n </tileset>\n</map>";
        let found = scan(text).unwrap();
        let patched = repaired(text, &found, |_| None).unwrap();
        assert!(
            patched.contains("tileheight=\"18\" tilecount=\"20\">"),
            "{patched}"
        );
        // With a margin and spacing of 1 px: (106 - 2 + 1) / 19 = 5 columns, (72 - 2 + 1) / 19 = 3 rows.
        let spaced = text.replace(" tilewidth", " margin=\"1\" spacing=\"1\" tilewidth");
        let found = scan(&spaced).unwrap();
        assert!(
            repaired(&spaced, &found, |_| None)
                .unwrap()
                .contains("tilecount=\"15\"")
        );
        let counted = text.replace(" name=", " tilecount=\"3\" name=");
        let found = scan(&counted).unwrap();
        assert!(matches!(
            repaired(&counted, &found, |_| None),
            Ok(Cow::Borrowed(_))
        ));
        // An image without its size: from the file, else asked for.
        let unsized_image = text.replace(" width=\"106\" height=\"72\"", "");
        let found = scan(&unsized_image).unwrap();
        assert_eq!(repaired(&unsized_image, &found, |_| None), Err(vec![2]));
        let sized = repaired(&unsized_image, &found, |source| {
            (source == "h.png").then_some((106, 72))
        });
        let sized = sized.unwrap();
        assert!(sized.contains("tilecount=\"20\""), "{sized}");
        assert!(
            sized.contains("<image width=\"106\" height=\"72\" source"),
            "{sized}"
        );
        // XML-encoded data becomes CSV, its cells still where each `<tile>` is.
        let xml = "<map>\n <layer>\n  <data>\n   <tile gid=\"3\"/>\n   <tile/>\n  </data>\n </layer>\n</map>";
        let found = scan(xml).unwrap();
        assert_eq!(found[2].entries, [(4, 4), (5, 4)]);
        assert_eq!(
            repaired(xml, &found, |_| None).unwrap(),
            "<map>\n <layer>\n  <data encoding=\"csv\">3,0</data>\n </layer>\n</map>"
        );
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
