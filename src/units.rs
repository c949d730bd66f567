//! Units as plain components: a unit's name (Bevy's `Name`), team and movement class, the
//! tile it holds, how it is moving and whether it is selected. Every simulation module reads
//! these; this module imports nothing of the game.

use bevy::prelude::*;
use serde::Deserialize;
use tilewalk_path::Pos;

/// A unit on the map. Its name is its `Name`, unique on the map.
#[derive(Component, Clone, Copy, Debug, Default)]
#[require(Transform, Visibility, Motion)]
pub struct Unit;

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

    pub fn name(self) -> &'static str {
        match self {
            Self::Blue => "blue",
            Self::Red => "red",
        }
    }

    /// The other side.
    pub fn opponent(self) -> Self {
        match self {
            Self::Blue => Self::Red,
            Self::Red => Self::Blue,
        }
    }
}

impl std::fmt::Display for Team {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// How a unit moves; each class has its own cost for every terrain.
#[derive(
    Component, Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord, Deserialize,
)]
#[serde(rename_all = "lowercase")]
pub enum MovementClass {
    #[default]
    Foot,
    Horse,
    Flyer,
}

impl MovementClass {
    pub const ALL: [Self; 3] = [Self::Foot, Self::Horse, Self::Flyer];

    pub fn name(self) -> &'static str {
        match self {
            Self::Foot => "foot",
            Self::Horse => "horse",
            Self::Flyer => "flyer",
        }
    }

    pub fn parse(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|c| c.name() == name)
    }
}

impl std::fmt::Display for MovementClass {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
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

/// The longest attack reach a class or a unit may have, in steps.
pub const MAX_ATTACK_RANGE: u32 = 1000;

/// Marks the units the player has selected.
#[derive(Component, Clone, Copy, Debug, Default)]
pub struct Selected;

/// A step under way from one tile into the next.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Stride {
    pub from: Pos,
    pub to: Pos,
    pub elapsed: f64,
    pub duration: f64,
}

/// How a unit is moving right now.
#[derive(Component, Clone, Copy, Debug, Default, PartialEq)]
pub struct Motion {
    pub stride: Option<Stride>,
}

/// A unit standing on `tile`, drawn at `translation`.
pub fn unit(
    name: &str,
    team: Team,
    class: MovementClass,
    tile: Pos,
    translation: Vec3,
) -> impl Bundle {
    (
        Unit,
        Name::new(name.to_owned()),
        team,
        class,
        Tile(tile),
        Transform::from_translation(translation),
    )
}

/// Units draw above the tilemap and the overlays.
pub const UNIT_Z: f32 = 10.0;
