//! A [`TiledMap`] put together by another reader (LDtk's levels are drawn and resolved as
//! Tiled maps are), and what the rest of the game asks of its parts.

use std::collections::BTreeMap;

use super::{LayerCell, TileKind, TiledLayer, TiledMap, TiledTileset, TilesetImages};

impl TiledTileset {
    /// Where the map names this tileset (line, column in the map file).
    pub fn named_at(&self) -> (usize, usize) {
        self.at
    }

    /// A tileset read from another format: its images, and the tiles whose cells are the
    /// terrain a name gives (exactly, else letter case aside; a name the terrain table lacks
    /// says nothing), each with where it is written. `at` is where the map names it;
    /// `int_grid`, for an LDtk IntGrid layer's values, the uid of its definition.
    pub(crate) fn from_parts(
        name: String,
        images: TilesetImages,
        terrains: Vec<(u32, String, (usize, usize))>,
        at: (usize, usize),
        int_grid: Option<i64>,
    ) -> Self {
        let tiles = terrains
            .into_iter()
            .map(|(id, terrain, at)| {
                let kind = TileKind {
                    terrain: None,
                    costs: Vec::new(),
                    colours: vec![(terrain, 1)],
                    at,
                };
                (id, kind)
            })
            .collect::<BTreeMap<_, _>>();
        Self {
            name,
            images,
            offset: (0, 0),
            tiles,
            file: None,
            at,
            int_grid,
        }
    }
}

impl TiledLayer {
    /// A layer read from another format; `terrain` says whether its tiles name the terrain
    /// (false: drawn only).
    pub(crate) fn from_parts(
        name: String,
        (visible, opacity): (bool, f32),
        offset: (f32, f32),
        terrain: bool,
        cells: Vec<Option<LayerCell>>,
    ) -> Self {
        Self {
            name,
            visible,
            opacity,
            offset,
            terrain,
            above_units: false,
            cells,
        }
    }
}

impl TiledMap {
    /// An orthogonal map read from another format (`level`, of a project of several):
    /// `width` cells a row, each `grid` pixels; `at` is where its warnings point.
    pub(crate) fn from_parts(
        level: Option<String>,
        grid: (u32, u32),
        width: u32,
        tilesets: Vec<TiledTileset>,
        layers: Vec<TiledLayer>,
        default_terrain: Option<(String, (usize, usize))>,
        at: (usize, usize),
    ) -> Self {
        Self {
            grid,
            hex_side: 0,
            tilesets,
            layers,
            stagger: None,
            origin: (0, 0),
            width,
            default_terrain,
            at,
            level,
        }
    }
}
