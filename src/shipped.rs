//! The shipped `assets/` folder built into the binary: the game plays from any folder. When
//! no `assets/` folder is found, the asset server's default source serves these files from
//! memory (Bevy's in-memory asset reader, which its `embedded://` source uses too), and the
//! default map is the built-in meadow. A folder on disk takes their place entirely, and
//! hot-reloads.

use std::path::{Path, PathBuf};

use bevy::asset::io::AssetSourceBuilder;
use bevy::asset::io::memory::{Dir, MemoryAssetReader};

/// One file of `assets/`: its path there, and its bytes.
macro_rules! shipped {
    ($path:literal) => {
        (
            $path,
            include_bytes!(concat!("../assets/", $path)).as_slice(),
        )
    };
}

/// Every file of `assets/`, by its path there (a test checks that none is missing).
pub const FILES: &[(&str, &[u8])] = &[
    shipped!("classes/advance_wars.ron"),
    shipped!("ldtk/valley.ldtk"),
    shipped!("maps/corner.map"),
    shipped!("maps/hex_skirmish.map"),
    shipped!("maps/hex_valley.map"),
    shipped!("maps/large.map"),
    shipped!("maps/maze.map"),
    shipped!("maps/meadow.map"),
    shipped!("maps/skirmish.map"),
    shipped!("tactics.ron"),
    shipped!("terrain.ron"),
    shipped!("textures/hover.png"),
    shipped!("textures/hover_hex_flat.png"),
    shipped!("textures/hover_hex_pointy.png"),
    shipped!("textures/marker.png"),
    shipped!("textures/ring.png"),
    shipped!("textures/terrain.png"),
    shipped!("textures/terrain_hex_flat.png"),
    shipped!("textures/terrain_hex_pointy.png"),
    shipped!("textures/unit_archer.png"),
    shipped!("textures/unit_flyer.png"),
    shipped!("textures/unit_foot.png"),
    shipped!("textures/unit_horse.png"),
    shipped!("tiled/hex.tmx"),
    shipped!("tiled/iso.tmx"),
    shipped!("tiled/square.tmj"),
    shipped!("tiled/square.tmx"),
    shipped!("tiled/staggered.tmx"),
    shipped!("tiled/terrain.png"),
    shipped!("tiled/terrain.tsj"),
    shipped!("tiled/terrain.tsx"),
    shipped!("tiled/terrain_hex.png"),
    shipped!("tiled/terrain_hex.tsx"),
    shipped!("tiled/terrain_iso.png"),
    shipped!("tiled/terrain_iso.tsx"),
    shipped!("tiled/terrain_set.tmx"),
    shipped!("tiled/terrain_set.tsx"),
];

/// The map played when none is given.
pub const DEFAULT_MAP: &str = "maps/meadow.map";

/// The shipped files as an in-memory folder.
pub fn folder() -> Dir {
    let root = Dir::new(PathBuf::new());
    for &(path, bytes) in FILES {
        root.insert_asset(Path::new(path), bytes);
    }
    root
}

/// An asset source serving the shipped files.
pub fn source() -> AssetSourceBuilder {
    let root = folder();
    AssetSourceBuilder::new(move || Box::new(MemoryAssetReader { root: root.clone() }))
}

/// The text of a shipped file.
pub fn text(path: &str) -> Option<&'static str> {
    let (_, bytes) = FILES.iter().find(|(p, _)| *p == path)?;
    std::str::from_utf8(bytes).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_file_of_the_assets_folder_is_built_in() {
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("assets");
        let mut found = Vec::new();
        let mut folders = vec![root.clone()];
        while let Some(folder) = folders.pop() {
            for entry in std::fs::read_dir(folder).unwrap() {
                let path = entry.unwrap().path();
                if path.is_dir() {
                    folders.push(path);
                } else {
                    let name = path.strip_prefix(&root).unwrap();
                    found.push(name.to_string_lossy().replace('\\', "/"));
                }
            }
        }
        found.sort();
        let built_in: Vec<&str> = FILES.iter().map(|(p, _)| *p).collect();
        assert_eq!(found, built_in);
    }
}
