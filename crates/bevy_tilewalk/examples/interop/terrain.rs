//! The terrain table of the interop examples (`with_bevy_ecs_tiled`, `with_bevy_ecs_ldtk`):
//! what entering each terrain costs each movement class, the numbers of the repository's
//! `assets/terrain.ron`. A game keeps such a table where its designers edit it; the examples
//! keep it in code to stay short. The plugin's tests include this file with the examples' map
//! readers.

use bevy::math::Vec2;
use bevy_tilewalk::prelude::*;

/// The movement classes: a name and a speed (cost-1 tiles a second).
const CLASSES: [(&str, f64); 3] = [("foot", 3.0), ("horse", 3.0), ("flyer", 3.0)];

/// What entering a tile of each terrain costs each class; a class the terrain leaves out
/// cannot enter it.
const TERRAINS: [(&str, &[(&str, f64)]); 7] = [
    ("grass", &[("foot", 1.0), ("horse", 0.75), ("flyer", 1.0)]),
    ("road", &[("foot", 1.0), ("horse", 0.5), ("flyer", 1.0)]),
    ("forest", &[("foot", 2.0), ("horse", 3.0), ("flyer", 1.0)]),
    ("thicket", &[("flyer", 1.0)]),
    ("mud", &[("foot", 3.0), ("horse", 4.0), ("flyer", 1.0)]),
    ("water", &[("foot", 6.0), ("flyer", 1.0)]),
    ("rock", &[]),
];

/// The classes, in the order of their `MovementClass` indices.
pub fn classes() -> Vec<ClassSpec> {
    CLASSES
        .iter()
        .map(|&(name, speed)| ClassSpec::new(name, speed))
        .collect()
}

/// A terrain of the table.
#[derive(Clone, Copy, Debug)]
pub struct Terrain(&'static [(&'static str, f64)]);

impl Terrain {
    /// The terrain `name` names (letter case aside), if any.
    pub fn named(name: &str) -> Option<Self> {
        let (_, costs) = TERRAINS
            .iter()
            .find(|(terrain, _)| terrain.eq_ignore_ascii_case(name))?;
        Some(Self(costs))
    }

    /// What entering it costs `class`: `None` where the class cannot enter.
    pub fn cost(self, class: &str) -> Option<f64> {
        self.0
            .iter()
            .find(|(c, _)| *c == class)
            .map(|&(_, cost)| cost)
    }
}

/// A unit the map places.
#[derive(Debug, Clone, PartialEq)]
pub struct UnitStart {
    /// Its name in the map.
    pub name: String,
    /// Its movement class, by name.
    pub class: String,
    /// Its side.
    pub team: Team,
    /// The cell it starts on.
    pub tile: Pos,
}

/// What an interop example builds from a map the peer plugin loaded: the plugin's navigation
/// and the units to spawn.
pub struct PeerMap {
    /// One cost grid per class of [`classes`].
    pub navigation: Navigation,
    /// The map's units, in the map's order.
    pub units: Vec<UnitStart>,
    /// A cell's width and height in the map's pixels.
    pub cell_size: Vec2,
}
