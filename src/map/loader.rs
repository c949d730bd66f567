//! The asset loaders for map files: [`MapAsset::parse`] for `.map` (a
//! [`crate::assets::TextAsset`]) and [`tmx::parse_step`] for Tiled's `.tmx` and `.tmj`,
//! whose tilesets and templates are read as loader dependencies, so saving one reloads the
//! map.

use std::path::Path;

use bevy::asset::io::{AssetSourceId, Reader};
use bevy::asset::{AssetLoader, AssetPath, LoadContext};
use bevy::prelude::*;
use tilewalk_path::formats::ParseError;

use super::{MapAsset, ldtk, sources, tmx};
use crate::assets::{AssetFileError, TextAsset, decode_text, normalize, read_text};

impl TextAsset for MapAsset {
    const EXTENSIONS: &'static [&'static str] = &["map"];

    fn from_text(text: &str) -> Result<Self, ParseError> {
        Self::parse(text)
    }
}

/// Loads Tiled maps (`.tmx`, and `.tmj` in Tiled's JSON); the tilesets and templates they
/// need are read through the asset server as loader dependencies, so the map reloads when
/// one of them is saved.
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
                tmx::Step::Done(map) => {
                    read_images(&map, &map_path, &source, context).await;
                    return Ok(*map);
                }
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
        &["tmx", "tmj"]
    }
}

/// Loads a level of an LDtk project (`.ldtk`): `level`, else the first. The level's file
/// (`.ldtkl`) and the images are read through the asset server as loader dependencies, so
/// the map reloads when one of them is saved.
#[derive(Default, TypePath)]
pub struct LdtkLoader {
    pub level: Option<String>,
}

impl AssetLoader for LdtkLoader {
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
        let mut external: Option<(std::path::PathBuf, String)> = None;
        loop {
            let given = external.as_ref().map(|(p, t)| (p.as_path(), t.as_str()));
            match ldtk::parse_step(&map_path, &text, self.level.as_deref(), given)? {
                ldtk::Step::Done(map) => {
                    read_images(&map, &map_path, &source, context).await;
                    return Ok(*map);
                }
                ldtk::Step::Read(file) => {
                    let path = AssetPath::from(file.path.clone()).with_source(source.clone());
                    let bytes = match context.read_asset_bytes(path).await {
                        Ok(bytes) => bytes,
                        Err(e) => return Err(file.unreadable(e)),
                    };
                    let name = file.path.display().to_string();
                    let text = decode_text(bytes).map_err(|e| AssetFileError::text(&name, e))?;
                    external = Some((file.path, text));
                }
            }
        }
    }

    fn extensions(&self) -> &[&str] {
        &["ldtk"]
    }
}

/// Reads each image of `map` that the asset source holds: the images read are the map's
/// dependencies, so saving one reloads the map. An image it does not hold is no error: the
/// window draws its tiles as a checker and the map panel names it where the map does.
pub(super) async fn read_images(
    map: &MapAsset,
    map_path: &Path,
    source: &AssetSourceId<'static>,
    context: &mut LoadContext<'_>,
) {
    let folder = map_path.parent().unwrap_or(Path::new(""));
    for (image, _) in sources::images(map) {
        let path = AssetPath::from(normalize(&folder.join(&image))).with_source(source.clone());
        if let Err(e) = context.read_asset_bytes(path).await {
            debug!(
                "{}: cannot read the image {}: {e}",
                map_path.display(),
                image.display()
            );
        }
    }
}
