//! The asset loaders for map files: [`MapAsset::parse`] for `.map` (a
//! [`crate::assets::TextAsset`]) and [`tmx::parse_step`] for `.tmx`, whose tilesets and
//! templates are read as loader dependencies, so saving one reloads the map.

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

/// Loads Tiled maps; the tilesets and templates they need are read through the asset server
/// as loader dependencies, so the map reloads when one of them is saved.
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
        let mut files = tmx::Files::default();
        loop {
            match tmx::parse_step(&map_path, &text, &files)? {
                tmx::Step::Done(map) => return Ok(*map),
                tmx::Step::Read(file) => {
                    let path = AssetPath::from(file.path.clone()).with_source(source.clone());
                    let bytes = match context.read_asset_bytes(path).await {
                        Ok(bytes) => bytes,
                        Err(e) => return Err(file.unreadable(e)),
                    };
                    let key = tmx::normalize(&file.path);
                    if file.image {
                        let size = tmx::png_size(&bytes)
                            .ok_or_else(|| file.unreadable("not a PNG image"))?;
                        files.image_sizes.insert(key, size);
                    } else {
                        let name = file.path.display().to_string();
                        let text =
                            decode_text(bytes).map_err(|e| AssetFileError::text(&name, e))?;
                        files.text.insert(key, text);
                    }
                }
            }
        }
    }

    fn extensions(&self) -> &[&str] {
        &["tmx"]
    }
}
