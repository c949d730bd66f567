//! Where a map's files are: the folder the game serves them from (the map's folder, or the
//! ancestor that holds every tileset, template and image the map names), and the images a
//! map draws, checked before it is played.
//!
//! A Tiled project is often laid out as `maps/…/level.tmx` beside `tiles/…/tileset.tsx`:
//! the map's asset source is then rooted at the folder that holds both, so every file is
//! read, drawn and hot-reloaded through the asset server without paths leaving the source.

use std::path::{Component, Path, PathBuf};

use bevy::asset::io::AssetSourceBuilder;
use bevy::prelude::*;
use tilewalk_path::formats::ParseError;

use super::MapAsset;
use super::tmx::{TiledMap, TilesetImages};
use crate::assets::{AssetFileError, MAP_SOURCE, MapSource, normalize, relative_to};

/// Registers the asset source that serves `map`'s files ([`source_root`]) and inserts its
/// [`MapSource`]. Must run before `AssetPlugin` is added.
pub fn register_map_source(app: &mut App, map: &Path) {
    let (root, map) = source_root(map);
    app.register_asset_source(
        MAP_SOURCE,
        AssetSourceBuilder::platform_default(&root.to_string_lossy(), None),
    );
    app.insert_resource(MapSource { root, map });
}

/// The deepest folder holding both `a` and `b` (absolute, normalized paths), if any but
/// the file system's root.
fn common_ancestor(a: &Path, b: &Path) -> Option<PathBuf> {
    let shared: PathBuf = a
        .components()
        .zip(b.components())
        .take_while(|(x, y)| x == y)
        .map(|(x, _)| x)
        .collect();
    (shared
        .components()
        .any(|c| matches!(c, Component::Normal(_))))
    .then_some(shared)
}

/// The folder the game serves a map's files from, and the map's path in it: the map's
/// folder, or its nearest ancestor that holds every file the map names (read as the
/// command line reads them; a map that does not read names only itself). Files under the
/// file system's root alone are not served: those the map's folder does not hold stay
/// unreadable to the game, and are reported where the map names them.
pub fn source_root(map: &Path) -> (PathBuf, PathBuf) {
    let map = normalize(&std::path::absolute(map).unwrap_or_else(|_| map.to_path_buf()));
    let folder = map.parent().map(Path::to_path_buf).unwrap_or_default();
    let mut root = folder.clone();
    for file in named_files(&map) {
        let named = normalize(&folder.join(file));
        if let Some(shared) = named
            .parent()
            .and_then(|parent| common_ancestor(&root, parent))
        {
            root = shared;
        }
    }
    let inside = map.strip_prefix(&root).map_or_else(
        |_| map.file_name().map(PathBuf::from).unwrap_or_default(),
        Path::to_path_buf,
    );
    (root, inside)
}

/// Every file a map names, relative to its folder: tilesets, templates, external levels
/// and images. Only Tiled and LDtk maps name any.
fn named_files(map: &Path) -> Vec<PathBuf> {
    let extension = map
        .extension()
        .and_then(|e| e.to_str())
        .map(str::to_ascii_lowercase);
    match extension.as_deref() {
        Some("tmx" | "tmj") => {
            let mut named = Vec::new();
            let read = super::tmx::read_tmx_naming(map, &mut named);
            let folder = map.parent().unwrap_or(Path::new(""));
            let mut files: Vec<PathBuf> = named.iter().map(|f| relative_to(f, folder)).collect();
            if let Ok(map) = read {
                files.extend(images(&map).into_iter().map(|(path, _)| path));
            }
            files
        }
        Some("ldtk") => super::ldtk::named_files(map),
        _ => Vec::new(),
    }
}

/// The images a map draws, relative to its folder, with where the map names each (its
/// tileset's line and column in the map file).
pub fn images(map: &MapAsset) -> Vec<(PathBuf, (usize, usize))> {
    map.tiles.as_ref().map(tiled_images).unwrap_or_default()
}

/// The images a Tiled map (or LDtk level) draws, as [`images`].
pub fn tiled_images(tiles: &TiledMap) -> Vec<(PathBuf, (usize, usize))> {
    let mut out = Vec::new();
    for tileset in &tiles.tilesets {
        match &tileset.images {
            TilesetImages::Atlas(image) => out.push((image.path.clone(), tileset.named_at())),
            TilesetImages::Collection(own) => out.extend(
                own.iter()
                    .map(|(_, image)| (image.path.clone(), tileset.named_at())),
            ),
        }
    }
    out
}

/// Each image of `map` (written in `map_file`) that `exists` says is not there, as an error
/// where the map names it, once each: a window would draw its tiles white, while paths and
/// costs need no pixel of it.
pub fn missing_images(
    map_file: &Path,
    map: &MapAsset,
    exists: impl FnMut(&Path) -> bool,
) -> Vec<AssetFileError> {
    map.tiles
        .as_ref()
        .map(|tiles| missing_tiled_images(map_file, tiles, exists))
        .unwrap_or_default()
}

/// [`missing_images`] of a Tiled map (or LDtk level).
pub fn missing_tiled_images(
    map_file: &Path,
    tiles: &TiledMap,
    mut exists: impl FnMut(&Path) -> bool,
) -> Vec<AssetFileError> {
    let mut seen = std::collections::HashSet::new();
    tiled_images(tiles)
        .into_iter()
        .filter(|(path, _)| seen.insert(path.clone()) && !exists(path))
        .map(|(path, (line, column))| {
            AssetFileError::in_file(
                map_file,
                ParseError::new(
                    line,
                    column,
                    format!("cannot read the image {}: not found", path.display()),
                ),
            )
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::assets::relative_to;

    #[test]
    fn paths_relative_to_a_folder_climb_out_of_it() {
        let rel = |p: &str, f: &str| relative_to(Path::new(p), Path::new(f));
        assert_eq!(
            rel("/a/tiles/t.png", "/a/maps/one"),
            Path::new("../../tiles/t.png")
        );
        assert_eq!(rel("maps/one/t.png", "maps/one"), Path::new("t.png"));
        assert_eq!(rel("maps/x/../t.png", "maps/./"), Path::new("t.png"));
        assert_eq!(rel("../t.png", ""), Path::new("../t.png"));
        assert_eq!(rel("t.png", "../up"), Path::new("t.png"));
    }

    #[test]
    fn the_common_ancestor_is_never_the_root() {
        let common = |a: &str, b: &str| common_ancestor(Path::new(a), Path::new(b));
        assert_eq!(
            common("/w/maps/orthogonal", "/w/tiles"),
            Some(PathBuf::from("/w"))
        );
        assert_eq!(common("/w/maps", "/usr/share"), None);
    }
}
