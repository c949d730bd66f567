//! The asset loaders for map files: [`MapAsset::parse`] for `.map` (a
//! [`crate::assets::TextAsset`]) and [`tmx::parse`] for `.tmx`, whose tilesets are read as
//! loader dependencies, so saving one reloads the map.

use std::collections::HashMap;

use bevy::asset::{AssetLoader, AssetPath, LoadContext, io::Reader};
use bevy::prelude::*;
use tilewalk_path::formats::ParseError;

use super::{MapAsset, tmx};
use crate::assets::{AssetFileError, TextAsset, decode_text, read_text};

impl TextAsset for MapAsset {
    const EXTENSIONS: &'static [&'static str] = &["map"];

    fn from_text(text: &str) -> Result<Self, ParseError> {
        Self::parse(text)
    }
}

/// Loads Tiled maps; the tilesets they name are read through the asset server as loader
/// dependencies, so the map reloads when one of them is saved.
#[derive(Default, TypePath)]
pub struct TmxLoader;

impl AssetLoader for TmxLoader {
    type Asset = MapAsset;
    type Settings = ();
    type Error = AssetFileError;

    async fn load(
        &self,
        reader: &mut dyn Reader,
        _settings: &(),
        context: &mut LoadContext<'_>,
    ) -> Result<MapAsset, AssetFileError> {
        let text = read_text(reader, context).await?;
        let map_path = context.path().path().to_path_buf();
        let source = context.path().source().clone_owned();
        let refs =
            tmx::tileset_refs(&map_path, &text).map_err(|e| AssetFileError::parse(context, e))?;
        let mut tilesets = HashMap::new();
        for tileset in refs {
            let path = AssetPath::from(tileset.path.clone()).with_source(source.clone());
            let bytes = match context.read_asset_bytes(path).await {
                Ok(bytes) => bytes,
                Err(e) => return Err(AssetFileError::parse(context, tileset.unreadable(e))),
            };
            let file = tileset.path.display().to_string();
            let text = decode_text(bytes).map_err(|e| AssetFileError::text(&file, e))?;
            tilesets.insert(tileset.path, text);
        }
        tmx::parse(&map_path, &text, &tilesets)
    }

    fn extensions(&self) -> &[&str] {
        &["tmx"]
    }
}
