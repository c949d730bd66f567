//! Units: who they are (name, team, movement class), which tile they hold, and selection.

use bevy::prelude::*;
use tilewalk_path::Pos;

use crate::convert::cell_center;
use crate::level::Level;
use crate::map::MapAsset;
use crate::movement::Motion;

/// A unit on the map, named by the map file.
#[derive(Component, Clone, Debug)]
#[require(Transform, Visibility, Motion)]
pub struct Unit {
    pub name: String,
}

/// Which side a unit is on. Blue is the player's.
#[derive(Component, Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Team {
    Blue,
    Red,
}

impl Team {
    pub fn parse(name: &str) -> Option<Self> {
        match name {
            "blue" => Some(Self::Blue),
            "red" => Some(Self::Red),
            _ => None,
        }
    }
}

/// The tile a unit holds: the one it stands on, or the one it is stepping into. No two
/// units hold the same tile.
#[derive(Component, Clone, Copy, Debug, PartialEq, Eq)]
pub struct Tile(pub Pos);

/// A unit's own attack range for tactics (min, max), when the map gives one; otherwise its
/// class's range from the tactics rules applies.
#[derive(Component, Clone, Copy, Debug, PartialEq, Eq)]
pub struct AttackRange(pub u32, pub u32);

/// Marks the units the player has selected.
#[derive(Component, Clone, Copy, Debug, Default)]
pub struct Selected;

/// Spawns the units a map places.
pub fn spawn_units(commands: &mut Commands, map: &MapAsset, level: &Level) {
    for spawn in &map.units {
        let mut unit = commands.spawn((
            Name::new(spawn.name.clone()),
            Unit {
                name: spawn.name.clone(),
            },
            spawn.team,
            spawn.class,
            Tile(spawn.pos),
            Transform::from_translation(cell_center(spawn.pos, level.height).extend(UNIT_Z)),
        ));
        if let Some((min, max)) = spawn.attack {
            unit.insert(AttackRange(min, max));
        }
    }
}

/// Units draw above the tilemap and the overlays.
pub const UNIT_Z: f32 = 10.0;
