//! The asset loader for `.map` files: a thin wrapper over [`MapAsset::parse`].

use bevy::asset::{AssetLoader, LoadContext, io::Reader};
use bevy::prelude::*;

use super::MapAsset;
use crate::assets::{AssetFileError, read_text};

#[derive(Default, TypePath)]
pub struct MapLoader;

impl AssetLoader for MapLoader {
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
        MapAsset::parse(&text).map_err(|e| AssetFileError::parse(context, e))
    }

    fn extensions(&self) -> &[&str] {
        &["map"]
    }
}
