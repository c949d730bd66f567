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
    /// For `<data>` and `<chunk>`: where each CSV entry is (line, column), one per
    /// comma-separated piece; for XML-encoded `<data>`, where each `<tile>` is.
    pub entries: Vec<(usize, usize)>,
    /// For `<data>` and `<chunk>`: the text `tiled` decodes (its first text or CDATA,
    /// unescaped).
    pub text: String,
    /// For XML-encoded `<data>`: the gid of each `<tile>` child.
    pub gids: Vec<u32>,
    /// Its bytes in the file, from `<` to the end of its end tag.
    pub span: (usize, usize),
    /// How deep it is (the root is 0).
    pub depth: usize,
    /// Its parent element's index.
    pub parent: Option<usize>,
    /// The index past its last descendant: its subtree is `elements[index..end]`.
    pub end: usize,
    /// Whether a text or CDATA event has been read into `text`.
    has_text: bool,
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

    /// How many tiles this `<data>` (or `<chunk>`, with its `<data>`'s `encoding` and
    /// `compression`) holds, decoded the way `tiled` decodes it; decompression stops past
    /// `cap` tiles, which is then an error. A CSV entry `tiled` would refuse is an error at
    /// its place.
    pub fn tile_count(
        &self,
        encoding: Option<&str>,
        compression: Option<&str>,
        cap: u64,
    ) -> Result<u64, ((usize, usize), String)> {
        let here = |message: String| Err((self.at(), message));
        match (encoding, compression) {
            (Some("csv"), None) => {
                for (i, entry) in self.text.split(',').enumerate() {
                    if let Err(e) = entry.trim().parse::<u32>() {
                        let at = self.entries.get(i).copied().unwrap_or(self.at());
                        let entry = entry.trim();
                        let shown: String = entry.chars().take(20).collect();
                        return Err((
                            at,
                            format!("CSV entry {} `{shown}` is no tile gid: {e}", i + 1),
                        ));
                    }
                }
                Ok(self.text.split(',').count() as u64)
            }
            // The old XML encoding, which `tiled` reads as the CSV it is rewritten to.
            (None, None) if !self.gids.is_empty() => Ok(self.gids.len() as u64),
            (Some("base64"), compression) => {
                let bytes = match base64::engine::general_purpose::STANDARD
                    .decode(self.text.trim().as_bytes())
                {
                    Ok(bytes) => bytes,
                    Err(e) => return here(format!("its base64 data does not decode: {e}")),
                };
                // One byte past the cap's is enough to know it is too much.
                let limit = cap.saturating_mul(4).saturating_add(1);
                let counted = match compression {
                    None => Ok(bytes.len() as u64),
                    Some("zlib") => count(flate2::read::ZlibDecoder::new(&bytes[..]), limit),
                    Some("gzip") => count(flate2::read::GzDecoder::new(&bytes[..]), limit),
                    Some("zstd") => {
                        zstd::stream::read::Decoder::new(&bytes[..]).and_then(|d| count(d, limit))
                    }
                    Some(other) => {
                        return here(format!(
                            "unknown compression `{other}` (Tiled writes zlib, gzip or zstd)"
                        ));
                    }
                };
                let counted = match counted {
                    Ok(counted) => counted,
                    Err(e) => {
                        return here(format!("its compressed data does not decompress: {e}"));
                    }
                };
                if counted > cap.saturating_mul(4) {
                    return here(format!(
                        "its data holds more than the {cap} tiles it is for (decompression stopped there)"
                    ));
                }
                Ok(counted / 4)
            }
            (encoding, compression) => here(format!(
                "encoding `{}` with compression `{}` is not a layer encoding (Tiled writes csv, or base64 uncompressed or with zlib, gzip or zstd)",
                encoding.unwrap_or("none"),
                compression.unwrap_or("none")
            )),
        }
    }
}

/// The bytes a reader yields, up to `limit`, without keeping them.
fn count(reader: impl Read, limit: u64) -> std::io::Result<u64> {
    std::io::copy(&mut reader.take(limit), &mut std::io::sink())
}

/// The most attributes an element may have (Tiled writes at most about 20): `tiled`'s
/// XML parser checks each attribute against every one before it.
pub(super) const MAX_ATTRIBUTES: usize = 64;
/// How deep elements may nest (`tiled` reads group layers and class properties
/// recursively).
pub(super) const MAX_DEPTH: usize = 64;
/// The most elements a file may have (layer data in the old XML encoding aside).
pub(super) const MAX_ELEMENTS: usize = 1 << 20;

/// Line and column (in characters) of byte offsets asked for in increasing order, in time
/// linear in the text whatever the number of questions: each one counts only from the
/// one before.
struct Locator<'a> {
    text: &'a [u8],
    /// The last offset asked for, and its line and column.
    offset: usize,
    line: usize,
    column: usize,
}

impl<'a> Locator<'a> {
    fn new(text: &'a str) -> Self {
        Self {
            text: text.as_bytes(),
            offset: 0,
            line: 1,
            column: 1,
        }
    }

    fn at(&mut self, offset: usize) -> (usize, usize) {
        let offset = offset.min(self.text.len());
        if offset < self.offset {
            *self = Self {
                text: self.text,
                offset: 0,
                line: 1,
                column: 1,
            };
        }
        for &byte in &self.text[self.offset..offset] {
            if byte == b'\n' {
                (self.line, self.column) = (self.line + 1, 1);
            } else if byte & 0xC0 != 0x80 {
                // Not a UTF-8 continuation byte: a character starts here.
                self.column += 1;
            }
        }
        self.offset = offset;
        (self.line, self.column)
    }
}

/// Reads `text` as XML, returning its elements (in document order; the `<tile>` cells of
/// XML-encoded layer data are kept in their `<data>` instead), or the first syntax error
/// at its `line:col`, or an element beyond [`MAX_ATTRIBUTES`], [`MAX_DEPTH`] or
/// [`MAX_ELEMENTS`] at its place.
pub(super) fn scan(text: &str) -> Result<Vec<Element>, ParseError> {
    let mut reader = quick_xml::Reader::from_str(text);
    reader.check_end_names(true);
    let mut locator = Locator::new(text);
    let mut found: Vec<Element> = Vec::new();
    // The open elements: name, start, and the index of the element it is (`None` for a cell).
    let mut open: Vec<(String, usize, Option<usize>)> = Vec::new();
    loop {
        let start = reader.buffer_position();
        let event = reader.read_event().map_err(|e| {
            let (line, column) = locator.at(reader.buffer_position());
            ParseError::new(line, column, format!("malformed XML: {e}"))
        })?;
        let opens = matches!(event, Event::Start(_));
        match event {
            Event::Start(element) | Event::Empty(element) => {
                let name = String::from_utf8_lossy(element.local_name().as_ref()).into_owned();
                let (line, column) = locator.at(start);
                let fail = |message: String| ParseError::new(line, column, message);
                if open.len() >= MAX_DEPTH {
                    return Err(fail(format!(
                        "<{name}> is nested more than {MAX_DEPTH} elements deep (tilewalk reads up to {MAX_DEPTH})"
                    )));
                }
                let mut attributes = Vec::new();
                for attribute in element.attributes() {
                    if attributes.len() == MAX_ATTRIBUTES {
                        return Err(fail(format!(
                            "<{name}> has more than {MAX_ATTRIBUTES} attributes (Tiled writes at most about 20)"
                        )));
                    }
                    let attribute = attribute.map_err(|e| fail(format!("malformed XML: {e}")))?;
                    let value = attribute
                        .unescape_value()
                        .map_err(|e| fail(format!("malformed XML: {e}")))?;
                    attributes.push((
                        String::from_utf8_lossy(attribute.key.local_name().as_ref()).into_owned(),
                        value.into_owned(),
                    ));
                }
                let parent = open.last().and_then(|(_, _, index)| *index);
                // A `<tile>` in `<data>` is a cell of XML-encoded layer data: counted.
                let data = parent.filter(|&p| found[p].name == "data");
                let mut noted = None;
                if let (Some(data), "tile") = (data, name.as_str()) {
                    let gid = attributes
                        .iter()
                        .find(|(k, _)| k == "gid")
                        .map_or(Ok(0), |(_, v)| v.trim().parse::<u32>())
                        .map_err(|e| fail(format!("the tile's gid: {e}")))?;
                    found[data].gids.push(gid);
                    found[data].entries.push((line, column));
                } else {
                    if found.len() == MAX_ELEMENTS {
                        return Err(fail(format!(
                            "the file has more than {MAX_ELEMENTS} elements (tilewalk reads up to {MAX_ELEMENTS})"
                        )));
                    }
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
                        parent,
                        end: found.len() + 1,
                        has_text: false,
                    });
                }
                if opens {
                    open.push((name, start, noted));
                }
            }
            Event::End(_) => {
                if let Some((_, _, Some(index))) = open.pop() {
                    found[index].span.1 = reader.buffer_position();
                    found[index].end = found.len();
                }
            }
            // `tiled` decodes the first text or CDATA of a `<data>` or `<chunk>`.
            Event::Text(_) | Event::CData(_) => {
                let Some((name, _, Some(index))) = open.last() else {
                    continue;
                };
                if !matches!(name.as_str(), "data" | "chunk") || found[*index].has_text {
                    continue;
                }
                let index = *index;
                let (line, column) = locator.at(start);
                let (content, raw) = match &event {
                    Event::Text(text) => (
                        text.unescape()
                            .map_err(|e| {
                                ParseError::new(line, column, format!("malformed XML: {e}"))
                            })?
                            .into_owned(),
                        start,
                    ),
                    Event::CData(data) => (
                        String::from_utf8_lossy(data).into_owned(),
                        start + "<![CDATA[".len(),
                    ),
                    _ => unreachable!("a text or CDATA event"),
                };
                let encoding = match found[index].name.as_str() {
                    "chunk" => found[index].parent.and_then(|p| found[p].attr("encoding")),
                    _ => found[index].attr("encoding"),
                };
                if encoding == Some("csv") {
                    found[index].entries = csv_entries(&mut locator, raw, &content);
                }
                let element = &mut found[index];
                element.has_text = true;
                element.text = content;
            }
            Event::Eof => break,
            _ => {}
        }
    }
    if let Some((name, at, _)) = open.last() {
        let (open_line, open_column) = locator.at(*at);
        let (line, column) = locator.at(text.len());
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

/// Where each comma-separated piece of CSV layer data `text` (its first non-blank
/// character, else where it starts) is, the data written from byte `start` on. Counted on
/// the text itself; written with entities, the pieces are where the file's commas are.
fn csv_entries(locator: &mut Locator, start: usize, text: &str) -> Vec<(usize, usize)> {
    let mut entries = Vec::new();
    let mut piece = 0;
    let mut blank = true;
    for (i, byte) in text.bytes().enumerate() {
        if byte == b',' {
            if blank {
                entries.push(locator.at(start + piece));
            }
            piece = i + 1;
            blank = true;
        } else if blank && !byte.is_ascii_whitespace() {
            entries.push(locator.at(start + i));
            blank = false;
        }
    }
    if blank {
        entries.push(locator.at(start + piece));
    }
    entries
}

/// `text` as `tiled` reads it: every image tileset without a `tilecount` given one (Tiled
/// wrote tilesets without one before version 1.0; `tiled` needs it), the tiles its image
/// holds from the image's size (its `width` and `height`, else `image_size` of its
/// `source`), the tile size, margin and spacing; and layer data in the old XML encoding
/// written as CSV (`tiled` reads only CSV and base64). Elements before each change stay at
/// their line and column. Fails with the `<image>` elements whose size is needed and
/// unknown, or at a tileset whose repaired `tilecount` is beyond [`MAX_TILESET_TILES`] or
/// whose columns `tiled` cannot work out (see [`uncountable_columns`]).
pub(super) fn repaired<'a>(
    text: &'a str,
    elements: &[Element],
    image_size: impl Fn(&str) -> Option<(u64, u64)>,
) -> Result<Patched<'a>, Unrepaired> {
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
        if element.name != "tileset" || element.attr("source").is_some() {
            continue;
        }
        // `tiled` keeps the last `<image>` of a tileset.
        let Some(image) = elements[i + 1..element.end]
            .iter()
            .rfind(|e| e.name == "image" && e.depth == element.depth + 1)
        else {
            continue;
        };
        if element.attr("columns").is_none()
            && let Some(message) = uncountable_columns(element, image, size_of)
        {
            return Err(Unrepaired::Refused(ParseError::new(
                element.line,
                element.column,
                message,
            )));
        }
        if element.attr("tilecount").is_some() {
            continue;
        }
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
            size.saturating_sub(margin.saturating_mul(2))
                .saturating_add(spacing)
                / tile.saturating_add(spacing).max(1)
        };
        let count = fit(width, tile_width).saturating_mul(fit(height, tile_height));
        if count > MAX_TILESET_TILES {
            return Err(Unrepaired::Refused(ParseError::new(
                element.line,
                element.column,
                format!(
                    "the tileset has no tilecount, and its {width}x{height} px image holds {count} tiles of {tile_width}x{tile_height} px: more than tilewalk reads ({MAX_TILESET_TILES} tiles a tileset)"
                ),
            )));
        }
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
        return Err(Unrepaired::Images(unknown));
    }
    if changes.is_empty() {
        return Ok(Patched {
            text: Cow::Borrowed(text),
            changes: Vec::new(),
        });
    }
    changes.sort_by_key(|c| c.0);
    let mut out = String::with_capacity(text.len());
    let mut done = 0;
    let mut moved = Vec::with_capacity(changes.len());
    for (from, to, insert) in changes {
        out.push_str(&text[done..from]);
        moved.push((from, to, out.len(), insert.len()));
        out.push_str(&insert);
        done = to;
    }
    out.push_str(&text[done..]);
    Ok(Patched {
        text: Cow::Owned(out),
        changes: moved,
    })
}

/// Why `tiled` cannot work out the columns of an image tileset without `columns`, if it
/// cannot: it computes them in `u32` as (image width − margin + spacing) / (tile width +
/// spacing), from the values as it reads them (the width as an `i32`), and a margin wider
/// than the image, or sums past `u32`, overflow. Values `tiled` cannot read are its own
/// errors, reported where it finds them.
fn uncountable_columns(
    tileset: &Element,
    image: &Element,
    size_of: impl Fn(&Element) -> Option<(u64, u64)>,
) -> Option<String> {
    let setting = |name| match tileset.attr(name) {
        None => Some(0),
        Some(value) => value.parse::<u32>().ok().map(u64::from),
    };
    let (margin, spacing) = (setting("margin")?, setting("spacing")?);
    let tile_width = u64::from(tileset.attr("tilewidth")?.parse::<u32>().ok()?);
    let width = match image.attr("width") {
        Some(width) => width.parse::<i32>().ok()?,
        None => i32::try_from(size_of(image)?.0).ok()?,
    };
    // `as u32`, as `tiled` converts it: a negative width wraps.
    let width = u64::from(width as u32);
    if margin > width {
        return Some(format!(
            "the tileset has no columns, and its margin of {margin} px is wider than its {width} px image"
        ));
    }
    let most = u64::from(u32::MAX);
    (width - margin + spacing > most || tile_width + spacing > most).then(|| {
        format!(
            "the tileset has no columns, and its {width} px image, margin of {margin} px, spacing of {spacing} px and {tile_width} px tiles make more columns than can be counted"
        )
    })
}

/// The most tiles a tileset may declare: `tiled` reserves room for `tilecount` tiles before
/// reading them (65,536 is an 8192 × 8192 image of 32 px tiles).
pub(super) const MAX_TILESET_TILES: u64 = 1 << 16;

/// Why a file could not be repaired.
#[derive(Debug, PartialEq)]
pub(super) enum Unrepaired {
    /// The `<image>` elements whose size is needed and unknown.
    Images(Vec<usize>),
    /// A repair that `tiled` could not read.
    Refused(ParseError),
}

/// A file as `tiled` reads it: its text with the repairs.
#[derive(Debug)]
pub(super) struct Patched<'a> {
    pub text: Cow<'a, str>,
    /// Each change: the original bytes it replaced (from, to), and where its text starts
    /// in the repaired text and how long it is.
    changes: Vec<(usize, usize, usize, usize)>,
}

impl Patched<'_> {
    /// The byte of the original file that an offset in the repaired text comes from (the
    /// start of a change for an offset inside it).
    pub fn original(&self, offset: usize) -> usize {
        let mut shift: isize = 0;
        for &(from, to, at, len) in &self.changes {
            if offset < at {
                break;
            }
            if offset < at + len {
                return from;
            }
            shift = (at + len) as isize - to as isize;
        }
        (offset as isize - shift).max(0) as usize
    }
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
        assert_eq!(found[2].tile_count(Some("csv"), None, 3), Ok(3));
        assert_eq!(found[4].attr("id"), Some("5"));
        assert_eq!((found[0].end, found[1].end, found[4].end), (5, 3, 5));
        assert_eq!((found[2].parent, found[3].parent), (Some(1), Some(0)));
        // A CSV entry `tiled` cannot read, where it is written.
        let bad = scan("<data encoding=\"csv\">1,\n -1,2</data>").unwrap();
        assert_eq!(
            bad[0].tile_count(Some("csv"), None, 3),
            Err((
                (2, 2),
                "CSV entry 2 `-1` is no tile gid: invalid digit found in string".into()
            ))
        );
        assert_eq!(
            Locator::new("ab\ncé\nx").at(6),
            (2, 3),
            "columns count characters"
        );
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
            let (encoding, compression) = (found[2].attr("encoding"), found[2].attr("compression"));
            assert_eq!(
                found[2].tile_count(encoding, compression, 2),
                Ok(2),
                "{attributes}"
            );
            // Data beyond what it is for is refused, whatever it inflates to.
            let refused = found[2].tile_count(encoding, compression, 1);
            if compression.is_some() {
                assert!(refused.unwrap_err().1.contains("more than the 1 tiles"));
            }
        }
        let bad = scan("<map><data encoding=\"base64\">!!</data></map>").unwrap();
        assert!(
            bad[1]
                .tile_count(Some("base64"), None, 9)
                .unwrap_err()
                .1
                .contains("base64")
        );
        // Only the first text is read, as `tiled` does, unescaped.
        let split = scan("<data encoding=\"csv\">1&#44;2<!-- -->,3</data>").unwrap();
        assert_eq!(split[0].tile_count(Some("csv"), None, 9), Ok(2));
        assert!(
            split[0]
                .tile_count(Some("CSV"), None, 9)
                .unwrap_err()
                .1
                .starts_with("encoding `CSV` with compression `none` is not a layer encoding")
        );
    }

    #[test]
    fn old_image_tilesets_get_their_tilecount() {
        // 106 x 72 px of 18 px tiles: 5 columns and 4 rows (hexagonal-mini.tmx in Tiled's examples).
        let text = "<map>\n <tileset firstgid=\"1\" name=\"hex\" tilewidth=\"18\" tileheight=\"18\">\n  <image source=\"h.png\" width=\"106\" height=\"72\"/>\n </tileset>\n</map>";
        let found = scan(text).unwrap();
        let patched = repaired(text, &found, |_| None).unwrap();
        // Offsets after the repair are where they were before it.
        let after = patched.text.find("<image").unwrap();
        assert_eq!(patched.original(after), text.find("<image").unwrap());
        let patched = patched.text;
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
                .text
                .contains("tilecount=\"15\"")
        );
        let counted = text.replace(" name=", " tilecount=\"3\" name=");
        let found = scan(&counted).unwrap();
        assert!(matches!(
            repaired(&counted, &found, |_| None).map(|p| p.text),
            Ok(Cow::Borrowed(_))
        ));
        // An image whose size makes more tiles than `tiled` may reserve room for.
        let vast = text.replace(
            "width=\"106\" height=\"72\"",
            "width=\"2000000\" height=\"2000000\"",
        );
        let found = scan(&vast).unwrap();
        let Err(Unrepaired::Refused(error)) = repaired(&vast, &found, |_| None) else {
            panic!("repaired");
        };
        assert_eq!((error.line, error.column), (2, 2));
        assert!(error.message.contains("holds 12345654321 tiles"), "{error}");
        // An image without its size: from the file, else asked for.
        let unsized_image = text.replace(" width=\"106\" height=\"72\"", "");
        let found = scan(&unsized_image).unwrap();
        assert_eq!(
            repaired(&unsized_image, &found, |_| None).unwrap_err(),
            Unrepaired::Images(vec![2])
        );
        let sized = repaired(&unsized_image, &found, |source| {
            (source == "h.png").then_some((106, 72))
        });
        let sized = sized.unwrap().text;
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
            repaired(xml, &found, |_| None).unwrap().text,
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
