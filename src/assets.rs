//! The files behind the game: errors that name a file, line and column, reading an asset as
//! text, which map file is being played, and reporting files that failed to (re)load.

use std::collections::BTreeMap;
use std::path::{Component, Path, PathBuf};

use bevy::asset::io::Reader;
use bevy::asset::{AssetLoadError, AssetLoadFailedEvent, AssetLoader, LoadContext};
use bevy::prelude::*;
use tilewalk_path::formats::ParseError;

/// A file that could not be read or parsed, as `file:line:col: message`.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum AssetFileError {
    #[error("{file}: {message}")]
    Io { file: String, message: String },
    #[error("{file}:{error}")]
    Parse { file: String, error: ParseError },
}

impl AssetFileError {
    pub fn parse(context: &LoadContext, error: ParseError) -> Self {
        Self::Parse {
            file: context.path().path().display().to_string(),
            error,
        }
    }

    pub fn text(file: &str, error: TextError) -> Self {
        match error {
            TextError::NotUtf8(error) => Self::Parse {
                file: file.to_owned(),
                error,
            },
            TextError::TooLarge => Self::Io {
                file: file.to_owned(),
                message: error.to_string(),
            },
        }
    }

    /// The same error, named after a file path given on the command line.
    pub fn in_file(file: &Path, error: ParseError) -> Self {
        Self::Parse {
            file: file.display().to_string(),
            error,
        }
    }
}

/// The largest file the game reads (maps, terrain tables, tactics rules): 64 MiB, four times
/// a map at the 16M-tile cap. Files are read through a bounded reader, so a huge file or an
/// endless one (`/dev/zero`) is refused after this many bytes instead of filling memory.
pub const MAX_FILE_BYTES: usize = 64 << 20;

/// Why a file's bytes are not text the game can read.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum TextError {
    #[error("the file is larger than {} MiB", MAX_FILE_BYTES >> 20)]
    TooLarge,
    #[error("{0}")]
    NotUtf8(ParseError),
}

/// UTF-8 text from a file's bytes, without a leading byte order mark; the first byte that is
/// not UTF-8 is reported at its line and column (and byte offset).
pub fn decode_text(bytes: Vec<u8>) -> Result<String, TextError> {
    if bytes.len() > MAX_FILE_BYTES {
        return Err(TextError::TooLarge);
    }
    let text = String::from_utf8(bytes).map_err(|e| {
        let bytes = e.as_bytes();
        let at = e.utf8_error().valid_up_to();
        let good = std::str::from_utf8(&bytes[..at]).unwrap_or_default();
        let line = good.matches('\n').count() + 1;
        let column = good.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
        TextError::NotUtf8(ParseError::new(
            line,
            column,
            format!(
                "not UTF-8 text: byte 0x{:02x} at byte offset {at} is not valid UTF-8",
                bytes[at]
            ),
        ))
    })?;
    Ok(match text.strip_prefix('\u{feff}') {
        Some(rest) => rest.to_owned(),
        None => text,
    })
}

/// Reads a file from disk as text, refusing it beyond [`MAX_FILE_BYTES`] without reading on.
pub fn read_file(file: &Path) -> Result<String, AssetFileError> {
    use std::io::Read;
    let io = |e: std::io::Error| AssetFileError::Io {
        file: file.display().to_string(),
        message: e.to_string(),
    };
    let mut bytes = Vec::new();
    std::fs::File::open(file)
        .map_err(io)?
        .take(MAX_FILE_BYTES as u64 + 1)
        .read_to_end(&mut bytes)
        .map_err(io)?;
    decode_text(bytes).map_err(|e| AssetFileError::text(&file.display().to_string(), e))
}

/// Reads an asset as text, the same way as [`read_file`].
pub async fn read_text(
    reader: &mut dyn Reader,
    context: &LoadContext<'_>,
) -> Result<String, AssetFileError> {
    use bevy::asset::AsyncReadExt;
    let file = context.path().path().display().to_string();
    let mut bytes = Vec::new();
    let mut chunk = vec![0; 64 << 10];
    loop {
        let read = reader
            .read(&mut chunk)
            .await
            .map_err(|e| AssetFileError::Io {
                file: file.clone(),
                message: e.to_string(),
            })?;
        if read == 0 || bytes.len() > MAX_FILE_BYTES {
            break;
        }
        bytes.extend_from_slice(&chunk[..read]);
    }
    decode_text(bytes).map_err(|e| AssetFileError::text(&file, e))
}

/// An asset that is one text file read by its own parser: the map format, the terrain table,
/// the tactics rules.
pub trait TextAsset: Asset + Sized {
    /// The file name endings its loader claims.
    const EXTENSIONS: &'static [&'static str];

    fn from_text(text: &str) -> Result<Self, ParseError>;
}

/// Loads any [`TextAsset`]: a bounded UTF-8 read, then its parser, its errors at
/// `file:line:col`.
#[derive(TypePath)]
pub struct TextLoader<A: TextAsset>(std::marker::PhantomData<fn() -> A>);

impl<A: TextAsset> Default for TextLoader<A> {
    fn default() -> Self {
        Self(std::marker::PhantomData)
    }
}

impl<A: TextAsset> AssetLoader for TextLoader<A> {
    type Asset = A;
    type Settings = ();
    type Error = AssetFileError;

    async fn load(
        &self,
        reader: &mut dyn Reader,
        _settings: &(),
        context: &mut LoadContext<'_>,
    ) -> Result<A, AssetFileError> {
        let text = read_text(reader, context).await?;
        A::from_text(&text).map_err(|e| AssetFileError::parse(context, e))
    }

    fn extensions(&self) -> &[&str] {
        A::EXTENSIONS
    }
}

/// Reads a RON map whose keys must all differ: a key written twice is an error at the
/// second (serde's maps would keep the last without a word). For `deserialize_with`.
pub fn unique_keys<'de, D, V>(deserializer: D) -> Result<BTreeMap<String, V>, D::Error>
where
    D: serde::Deserializer<'de>,
    V: serde::Deserialize<'de>,
{
    struct Keys<V>(std::marker::PhantomData<V>);
    impl<'de, V: serde::Deserialize<'de>> serde::de::Visitor<'de> for Keys<V> {
        type Value = BTreeMap<String, V>;

        fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
            f.write_str("a map")
        }

        fn visit_map<A: serde::de::MapAccess<'de>>(
            self,
            mut map: A,
        ) -> Result<Self::Value, A::Error> {
            let mut out = BTreeMap::new();
            while let Some(key) = map.next_key::<String>()? {
                if out.contains_key(&key) {
                    return Err(serde::de::Error::custom(format_args!(
                        "`{key}` is written twice in this map (a key may be written once)"
                    )));
                }
                let value = map.next_value()?;
                out.insert(key, value);
            }
            Ok(out)
        }
    }
    deserializer.deserialize_map(Keys(std::marker::PhantomData))
}

/// A RON error in `text` as a [`ParseError`] at its line and column, with a hint where the
/// parser's own words do not say what to write: which field wants `Some(..)`, and which
/// bracket is still open when the parser stumbles lines after the real mistake.
pub fn ron_error(text: &str, error: ron::error::SpannedError) -> ParseError {
    use ron::Error as E;
    let (line, mut column) = (error.span.start.line, error.span.start.col);
    let mut at = offset_of(text, line, column);
    // A key written twice ([`unique_keys`]): at its opening quote.
    if matches!(&error.code, E::Message(m) if m.contains(" is written twice"))
        && text[..at].ends_with('"')
    {
        (column, at) = (column - 1, at - 1);
    }
    let mut message = error.code.to_string();
    match &error.code {
        E::ExpectedOption => {
            let before = text[..at].trim_end().trim_end_matches(':');
            let field = before
                .rsplit(|c: char| !(c.is_alphanumeric() || c == '_'))
                .next()
                .unwrap_or_default();
            let value: String = text[at..]
                .chars()
                .take_while(|c| !matches!(c, ',' | ')' | '\n'))
                .collect();
            message = format!(
                "`{field}` is optional: write `{field}: Some({})`, or put `#![enable(implicit_some)]` before the file's opening `(` ({message})",
                value.trim()
            );
        }
        E::ExpectedComma => message.push_str(": a `,` is missing before this"),
        E::Eof
        | E::ExpectedIdentifier
        | E::ExpectedStructLikeEnd
        | E::ExpectedArrayEnd
        | E::ExpectedMapEnd
        | E::ExpectedOptionEnd
        | E::TrailingCharacters
        | E::UnexpectedChar(_) => {
            if let Some((open, open_line, open_column)) = unclosed_bracket(&text[..at])
                && open_line < line
            {
                message.push_str(&format!(
                    " (unclosed `{open}` opened at {open_line}:{open_column})"
                ));
            }
        }
        _ => {}
    }
    ParseError::new(line, column, message)
}

/// The byte offset of a 1-based line and column (in characters), clamped to the text.
fn offset_of(text: &str, line: usize, column: usize) -> usize {
    let start: usize = text
        .split_inclusive('\n')
        .take(line.saturating_sub(1))
        .map(str::len)
        .sum();
    let rest = &text[start.min(text.len())..];
    start
        + rest
            .char_indices()
            .nth(column.saturating_sub(1))
            .map_or(rest.len(), |(i, _)| i)
}

/// The innermost bracket left open at the end of `text` (RON strings and comments skipped),
/// with its 1-based line and column.
fn unclosed_bracket(text: &str) -> Option<(char, usize, usize)> {
    let mut open = Vec::new();
    let (mut line, mut column) = (1, 0);
    let mut chars = text.chars().peekable();
    let (mut in_string, mut in_comment) = (false, false);
    while let Some(c) = chars.next() {
        column += 1;
        if c == '\n' {
            (line, column, in_comment) = (line + 1, 0, false);
            continue;
        }
        match c {
            _ if in_comment => {}
            '\\' if in_string => {
                chars.next();
                column += 1;
            }
            '"' => in_string = !in_string,
            _ if in_string => {}
            '/' if chars.peek() == Some(&'/') => in_comment = true,
            '(' | '[' | '{' => open.push((c, line, column)),
            ')' | ']' | '}' => {
                open.pop();
            }
            _ => {}
        }
    }
    open.pop()
}

/// The latest problem with each file, `file:line:col: message`; cleared when the file loads.
#[derive(Resource, Default, Debug)]
pub struct FileErrors(pub BTreeMap<String, String>);

/// Where the map being played lives; the terrain table and the tactics rules are in `assets/`.
#[derive(Resource, Clone, Debug)]
pub struct MapFile(pub PathBuf);

/// Which level of a project of several (an LDtk project) is played; `None`: the first.
#[derive(Resource, Clone, Debug, Default, PartialEq)]
pub struct MapLevel(pub Option<String>);

/// The asset source that serves the map's files, so any map file can be played and
/// hot-reloaded.
pub const MAP_SOURCE: &str = "map";

/// Where the [`MAP_SOURCE`] is on disk: the map's folder, or the ancestor that holds every
/// file the map names (the map module's `register_map_source` finds it), and the map's path
/// in it.
#[derive(Resource, Clone, Debug, PartialEq)]
pub struct MapSource {
    pub root: PathBuf,
    /// The map file, relative to `root`.
    pub map: PathBuf,
}

impl MapSource {
    /// A file named relative to the map's folder, as a path of the map source.
    pub fn path(&self, relative: &Path) -> PathBuf {
        normalize(&self.map.parent().unwrap_or(Path::new("")).join(relative))
    }

    /// A path of the map source as the player knows it: beside `map_file`, the map as given.
    pub fn named(&self, map_file: &Path, path: &Path) -> PathBuf {
        if path == self.map {
            return map_file.to_path_buf();
        }
        let relative = relative_to(path, self.map.parent().unwrap_or(Path::new("")));
        let beside = map_file.parent().unwrap_or(Path::new("")).join(relative);
        normalize(&beside)
    }
}

/// `path` with `.` and `name/..` taken out, as a key for the files a map names.
pub fn normalize(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for component in path.components() {
        match component {
            Component::CurDir => {}
            Component::ParentDir
                if matches!(out.components().next_back(), Some(Component::Normal(_))) =>
            {
                out.pop();
            }
            other => out.push(other),
        }
    }
    out
}

/// `path` relative to `folder` (both taken as they are written, after [`normalize`]): with
/// `..` where `path` is outside `folder`. A path that cannot be made relative (one absolute
/// and the other not) is returned normalized.
pub fn relative_to(path: &Path, folder: &Path) -> PathBuf {
    let (path, folder) = (normalize(path), normalize(folder));
    if path.is_absolute() != folder.is_absolute() {
        return path;
    }
    let (mut rest, mut up) = (path.components().peekable(), folder.components().peekable());
    while let (Some(a), Some(b)) = (rest.peek(), up.peek()) {
        if a != b {
            break;
        }
        rest.next();
        up.next();
    }
    let mut out = PathBuf::new();
    for component in up {
        match component {
            // A folder that climbs above where the path starts: no way back down.
            Component::ParentDir => return path,
            _ => out.push(".."),
        }
    }
    out.extend(rest);
    out
}

/// The handles of the files a plugin loads, so that only their failures are reported.
pub trait Tracks<A: Asset>: Resource {
    fn tracks(&self, id: AssetId<A>) -> bool;
}

/// Records why a tracked asset of type `A` failed to load, named as the player knows the file;
/// the asset server keeps the last good version. Failures of other loads are not ours: when a
/// typed reload fails, the asset server retries the file with whichever loader its extension
/// picks (`terrain.ron` and `tactics.ron` share `.ron`), and that attempt's error is noise.
pub fn report_failed_loads<A: Asset, H: Tracks<A>>(
    mut failures: MessageReader<AssetLoadFailedEvent<A>>,
    mut errors: ResMut<FileErrors>,
    map_file: Res<MapFile>,
    source: Option<Res<MapSource>>,
    handles: Option<Res<H>>,
) {
    let Some(handles) = handles else { return };
    for failure in failures.read().filter(|f| handles.tracks(f.id)) {
        // A path in the failed asset's source as the player knows it (a Tiled map's error
        // may be in its tileset, beside it).
        let named = |path: &Path| match failure.path.source().as_str() {
            Some(MAP_SOURCE) => match &source {
                Some(source) => source.named(&map_file.0, path),
                None => map_file.0.with_file_name(path),
            },
            _ => PathBuf::from("assets").join(path),
        };
        let file = named(failure.path.path());
        let message = match &failure.error {
            AssetLoadError::AssetLoaderError(e) => match e.error().downcast_ref::<AssetFileError>()
            {
                Some(AssetFileError::Parse { file, error }) => {
                    AssetFileError::in_file(&named(Path::new(file)), error.clone()).to_string()
                }
                Some(AssetFileError::Io { file, message }) => {
                    format!("{}: {message}", named(Path::new(file)).display())
                }
                None => format!("{}: {}", file.display(), e.error()),
            },
            other => format!("{}: {other}", file.display()),
        };
        warn!("{message} (keeping the last good version)");
        errors
            .0
            .insert(file.display().to_string(), message.trim_end().to_owned());
    }
}

/// The terminal's log: Bevy's, less the asset server's own lines about a file that one of
/// the game's loaders failed to load. The game reports the failures of its map, terrain table
/// and tactics rules itself ([`report_failed_loads`]), once, at `file:line:col`, without the
/// backtrace the asset server's error carries; and when a typed reload of `terrain.ron` fails,
/// the asset server retries it with whichever `.ron` loader it finds, whose error would name
/// the tactics rules for a terrain table. For [`LogPlugin::fmt_layer`](bevy::log::LogPlugin).
pub fn terminal_log(_: &mut App) -> Option<bevy::log::BoxedFmtLayer> {
    use bevy::log::tracing_subscriber::{Layer, fmt};
    Some(Box::new(
        fmt::Layer::default()
            .with_writer(std::io::stderr)
            .with_filter(ReportedLoads),
    ))
}

/// Leaves out the asset server's errors about a load by one of the game's loaders.
struct ReportedLoads;

impl<S: bevy::log::tracing::Subscriber> bevy::log::tracing_subscriber::layer::Filter<S>
    for ReportedLoads
{
    fn enabled(
        &self,
        _: &bevy::log::tracing::Metadata<'_>,
        _: &bevy::log::tracing_subscriber::layer::Context<'_, S>,
    ) -> bool {
        true
    }

    fn event_enabled(
        &self,
        event: &bevy::log::tracing::Event<'_>,
        _: &bevy::log::tracing_subscriber::layer::Context<'_, S>,
    ) -> bool {
        if !event.metadata().target().starts_with("bevy_asset") {
            return true;
        }
        let mut message = Message(String::new());
        event.record(&mut message);
        !is_reported_load(&message.0)
    }
}

/// A log event's message.
struct Message(String);

impl bevy::log::tracing::field::Visit for Message {
    fn record_debug(
        &mut self,
        field: &bevy::log::tracing::field::Field,
        value: &dyn std::fmt::Debug,
    ) {
        if field.name() == "message" {
            self.0 = format!("{value:?}");
        }
    }
}

/// Whether an asset server's log line is about a failed load by one of the game's loaders.
fn is_reported_load(message: &str) -> bool {
    message.starts_with("Failed to load asset") && message.contains("with asset loader 'tilewalk::")
}

/// Whether an asset event means new content for `id`.
pub fn touches<A: Asset>(event: &AssetEvent<A>, id: AssetId<A>) -> bool {
    matches!(event, AssetEvent::LoadedWithDependencies { id: i } | AssetEvent::Modified { id: i } if *i == id)
}

#[cfg(test)]
mod tests {
    use std::sync::{Arc, Mutex};

    use bevy::log::tracing_subscriber::layer::SubscriberExt;
    use bevy::log::tracing_subscriber::{Layer, fmt, registry};

    use super::*;

    /// What a log layer wrote.
    #[derive(Clone, Default)]
    struct Captured(Arc<Mutex<Vec<u8>>>);

    impl std::io::Write for Captured {
        fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
            self.0.lock().unwrap().extend_from_slice(bytes);
            Ok(bytes.len())
        }

        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }

    #[test]
    fn the_terminal_leaves_out_the_asset_servers_errors_about_the_games_own_loads() {
        let captured = Captured::default();
        let writer = captured.clone();
        let subscriber = registry().with(
            fmt::Layer::default()
                .with_ansi(false)
                .with_writer(move || writer.clone())
                .with_filter(ReportedLoads),
        );
        bevy::log::tracing::subscriber::with_default(subscriber, || {
            // As a broken terrain.ron logs them: the typed reload, then the retry with the
            // tactics rules' loader; the game's own report after them.
            error!(
                target: "bevy_asset::server",
                "Failed to load asset 'terrain.ron' with asset loader 'tilewalk::assets::TextLoader<tilewalk::terrain::TerrainTable>': terrain.ron:23:67: Expected string"
            );
            error!(
                target: "bevy_asset::server",
                "Failed to load asset 'terrain.ron' with asset loader 'tilewalk::assets::TextLoader<tilewalk::tactics::RulesAsset>': terrain.ron:16:5: Unexpected field named `classes` in `RulesFile`"
            );
            warn!("assets/terrain.ron:23:67: Expected string (keeping the last good version)");
            // The asset server's other errors stay.
            error!(
                target: "bevy_asset::server",
                "Failed to load asset 'textures/unit.png' with asset loader 'bevy_image::image_loader::ImageLoader': bad PNG"
            );
            error!(target: "bevy_asset::server", "Asset path x.png is unapproved.");
        });
        let text = String::from_utf8(captured.0.lock().unwrap().clone()).unwrap();
        assert_eq!(text.matches("Expected string").count(), 1, "{text}");
        assert!(text.contains("(keeping the last good version)"), "{text}");
        assert!(!text.contains("RulesFile"), "{text}");
        assert!(
            text.contains("bad PNG") && text.contains("unapproved"),
            "{text}"
        );
    }
}
