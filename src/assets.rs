//! The files behind the game: errors that name a file, line and column, reading an asset as
//! text, which map file is being played, and reporting files that failed to (re)load.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use bevy::asset::io::{AssetSourceBuilder, Reader};
use bevy::asset::{AssetLoadError, AssetLoadFailedEvent, LoadContext};
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

    /// The same error, named after a file path given on the command line.
    pub fn in_file(file: &Path, error: ParseError) -> Self {
        Self::Parse {
            file: file.display().to_string(),
            error,
        }
    }
}

/// Reads an asset as UTF-8 text.
pub async fn read_text(
    reader: &mut dyn Reader,
    context: &LoadContext<'_>,
) -> Result<String, AssetFileError> {
    let file = || context.path().path().display().to_string();
    let mut bytes = Vec::new();
    reader
        .read_to_end(&mut bytes)
        .await
        .map_err(|e| AssetFileError::Io {
            file: file(),
            message: e.to_string(),
        })?;
    String::from_utf8(bytes).map_err(|e| AssetFileError::Io {
        file: file(),
        message: format!("not UTF-8 text ({e})"),
    })
}

/// A RON syntax error as a [`ParseError`] at its line and column.
pub fn ron_error(error: ron::error::SpannedError) -> ParseError {
    ParseError::new(
        error.span.start.line,
        error.span.start.col,
        error.code.to_string(),
    )
}

/// The latest problem with each file, `file:line:col: message`; cleared when the file loads.
#[derive(Resource, Default, Debug)]
pub struct FileErrors(pub BTreeMap<String, String>);

/// Where the map being played lives; the terrain table and the tactics rules are in `assets/`.
#[derive(Resource, Clone, Debug)]
pub struct MapFile(pub PathBuf);

/// The asset source that serves the map's folder, so any map file can be played and hot-reloaded.
pub const MAP_SOURCE: &str = "map";

/// Registers the map's folder as an asset source. Must run before `AssetPlugin` is added.
pub fn register_map_source(app: &mut App, map: &Path) {
    let folder = map.parent().map(PathBuf::from).unwrap_or_default();
    app.register_asset_source(
        MAP_SOURCE,
        AssetSourceBuilder::platform_default(&folder.to_string_lossy(), None),
    );
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
    handles: Option<Res<H>>,
) {
    let Some(handles) = handles else { return };
    for failure in failures.read().filter(|f| handles.tracks(f.id)) {
        let file = match failure.path.source().as_str() {
            Some(MAP_SOURCE) => map_file.0.clone(),
            _ => PathBuf::from("assets").join(failure.path.path()),
        };
        let message = match &failure.error {
            AssetLoadError::AssetLoaderError(e) => match e.error().downcast_ref::<AssetFileError>()
            {
                Some(AssetFileError::Parse { error, .. }) => {
                    AssetFileError::in_file(&file, error.clone()).to_string()
                }
                _ => format!("{}: {}", file.display(), e.error()),
            },
            other => format!("{}: {other}", file.display()),
        };
        warn!("{message} (keeping the last good version)");
        errors
            .0
            .insert(file.display().to_string(), message.trim_end().to_owned());
    }
}

/// Whether an asset event means new content for `id`.
pub fn touches<A: Asset>(event: &AssetEvent<A>, id: AssetId<A>) -> bool {
    matches!(event, AssetEvent::LoadedWithDependencies { id: i } | AssetEvent::Modified { id: i } if *i == id)
}
