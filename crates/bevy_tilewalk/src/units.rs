//! Units as plain components: the team and movement class of a unit, the tile it holds and
//! how it is moving. A unit is any entity with [`Unit`], [`Team`],
//! [`MovementClass`] and [`Tile`]; a `Name` is an optional label for messages.

use bevy::prelude::*;
use tilewalk_path::Pos;

use crate::remote::PosReflect;

/// A unit on the map: an entity that holds a [`Tile`] and walks [`Path`](crate::Path)s. Spawn
/// it with its [`Tile`]: an order for a unit without one is refused
/// ([`Refusal::MissingComponent`](crate::Refusal::MissingComponent)).
#[derive(Component, Reflect, Clone, Copy, Debug, Default)]
#[reflect(Component, Default, Debug, Clone)]
#[require(Motion, Walk, Team, MovementClass)]
pub struct Unit;

/// Which side a unit is on: an id into the [`Sides`](crate::Sides), which say each side's
/// name, who it is hostile to and who it makes way for. Any number of sides: the default
/// [`Sides`](crate::Sides) are [`Team::BLUE`] (first) and [`Team::RED`], hostile to each
/// other.
#[derive(Component, Reflect, Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[reflect(Component, Default, Debug, Clone, PartialEq, Hash)]
#[cfg_attr(feature = "serialize", derive(serde::Serialize, serde::Deserialize))]
pub struct Team(pub u8);

impl Team {
    /// The first side of the default [`Sides`](crate::Sides): `blue`, the player's.
    pub const BLUE: Self = Self(0);
    /// The second side of the default [`Sides`](crate::Sides): `red`.
    pub const RED: Self = Self(1);

    /// The side's index in the [`Sides`](crate::Sides).
    pub fn index(self) -> usize {
        usize::from(self.0)
    }

    /// The team one of the default [`Sides`](crate::Sides)' names stands for: `blue` or
    /// `red` (other sides' names: [`Sides::find`](crate::Sides::find)).
    pub fn parse(name: &str) -> Option<Self> {
        match name {
            "blue" => Some(Self::BLUE),
            "red" => Some(Self::RED),
            _ => None,
        }
    }
}

/// Its name in the default [`Sides`](crate::Sides) (`blue`, `red`), else `team N` (other
/// sides' names: [`Sides::name`](crate::Sides::name)).
impl std::fmt::Display for Team {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match *self {
            Self::BLUE => f.write_str("blue"),
            Self::RED => f.write_str("red"),
            Self(id) => write!(f, "team {id}"),
        }
    }
}

/// How a unit moves: an index into the [`Navigation`](crate::Navigation)'s classes, each
/// with its own cost grid and speed. [`Navigation::class`](crate::Navigation::class) finds one
/// by name. A class past the navigation's list is named in a warning, once per unit and
/// class, and the unit moves as the first class.
#[derive(Component, Reflect, Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[reflect(Component, Default, Debug, Clone, PartialEq, Hash)]
#[cfg_attr(feature = "serialize", derive(serde::Serialize, serde::Deserialize))]
pub struct MovementClass(pub u8);

impl MovementClass {
    /// The class's index in the navigation's classes.
    pub fn index(self) -> usize {
        usize::from(self.0)
    }

    /// The first `count` classes, in index order.
    pub fn all(count: usize) -> impl Iterator<Item = Self> + use<> {
        (0..count).map(|i| Self(i as u8))
    }
}

/// The tile a unit holds: the one it stands on, or the one it is stepping into. No two
/// units hold the same tile.
#[derive(Component, Reflect, Clone, Copy, Debug, Default, PartialEq, Eq)]
#[reflect(Component, Default, Debug, Clone, PartialEq)]
pub struct Tile(#[reflect(remote = PosReflect)] pub Pos);

/// Which units go first where units are handled one after another (planning an order's
/// paths, stepping into tiles each frame, taking a tactics side's turn): the lower first,
/// then the earlier spawned (by entity index). A unit without it counts as 0. The same units spawned in the same order are
/// handled the same way; this lets a host choose the order (by a unit's rank, say) without
/// spawning in it.
#[derive(Component, Reflect, Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[reflect(Component, Default, Debug, Clone, PartialEq, Hash)]
pub struct Precedence(pub u32);

/// Where a unit comes in the order units are handled in ([`Precedence`]); the entity last,
/// to find it.
pub(crate) fn precedence(entity: Entity, precedence: Option<&Precedence>) -> (u32, u32, Entity) {
    (precedence.map_or(0, |p| p.0), entity.index_u32(), entity)
}

/// A step under way from one tile into the next.
#[derive(Reflect, Clone, Copy, Debug, PartialEq)]
#[reflect(Debug, Clone, PartialEq)]
pub struct Stride {
    /// The tile it leaves.
    #[reflect(remote = PosReflect)]
    pub from: Pos,
    /// The tile it enters (its [`Tile`]).
    #[reflect(remote = PosReflect)]
    pub to: Pos,
    /// Seconds since the step began.
    pub elapsed: f64,
    /// Seconds the whole step takes.
    pub duration: f64,
}

impl Stride {
    /// How far along the step is, from 0 to 1.
    pub fn progress(&self) -> f32 {
        (self.elapsed / self.duration).min(1.0) as f32
    }
}

/// How a unit is moving right now. It changes only while a step is under way and when one
/// ends, so `Changed<Motion>` finds the units whose drawing must move.
#[derive(Component, Reflect, Clone, Copy, Debug, Default, PartialEq)]
#[reflect(Component, Default, Debug, Clone, PartialEq)]
pub struct Motion {
    /// The step under way, if any.
    pub stride: Option<Stride>,
}

impl Motion {
    /// Where a unit holding `tile` is drawn, given where each tile's centre is: between the
    /// two tiles of its step, or on its tile.
    pub fn position(&self, tile: Pos, center: impl Fn(Pos) -> Vec2) -> Vec2 {
        match self.stride {
            Some(s) => center(s.from).lerp(center(s.to), s.progress()),
            None => center(tile),
        }
    }
}

/// How a unit's walk along its [`Path`](crate::Path) is going, as the crowd rules keep it:
/// the state of the walk, not of the route. A new order starts it afresh; a re-plan keeps it;
/// a walk handed on to another unit takes it along. Its fields are the crowd rules'
/// bookkeeping: read them through its methods.
#[derive(Component, Reflect, Clone, Debug, PartialEq)]
#[reflect(opaque, Component, Default, Debug, Clone, PartialEq)]
#[cfg_attr(
    feature = "serialize",
    derive(serde::Serialize, serde::Deserialize),
    reflect(Serialize, Deserialize)
)]
pub struct Walk {
    /// Seconds spent waiting for a unit at rest that will not make way to leave the next tile.
    pub(crate) waited: f32,
    /// Re-plans caused by blocking units since the walk last got nearer its goal than
    /// `nearest` (see [`MAX_REPLANS`](crate::MAX_REPLANS)).
    pub(crate) replans: u32,
    /// The fewest tiles the unit has stood from its goal since the order, counted as the
    /// larger of the column and row differences (`u32::MAX` before its first step).
    pub(crate) nearest: u32,
    /// The tiles of the units at rest that stopped it (and will not make way) since it last
    /// got nearer its goal: a re-plan around units goes around every one of them, so two
    /// such units, one on each side of its way, cannot send it back and forth between them
    /// until it gives up.
    pub(crate) blockers: Vec<Pos>,
    /// A re-plan around units found no way, or its re-plans ran out: units at rest wall it
    /// in (the other side's on a bridge's far end, say), so for the rest of its walk the
    /// other side's units at rest make way for it as its own side's do, and its re-plans
    /// walk through them.
    pub(crate) walled: bool,
    /// Seconds spent in a queue since its last step. A unit of a group order that has queued
    /// a quarter second takes a lane beside its path if one costs no more walking time than
    /// it has queued (the crowd rules).
    pub(crate) queued: f32,
    /// Seconds since the walk began, its priority in the crowd: of two units that want one
    /// tile, the one walking longer pushes the other (a walk handed on keeps its age).
    pub(crate) age: f32,
}

impl Default for Walk {
    fn default() -> Self {
        Self {
            queued: 0.0,
            age: 0.0,
            waited: 0.0,
            replans: 0,
            nearest: u32::MAX,
            blockers: Vec::new(),
            walled: false,
        }
    }
}

impl Walk {
    /// Seconds spent waiting for a unit at rest that will not make way to leave the next
    /// tile.
    pub fn waited(&self) -> f32 {
        self.waited
    }

    /// Re-plans caused by blocking units since the walk last got nearer its goal (at
    /// [`MAX_REPLANS`](crate::MAX_REPLANS) it gives up).
    pub fn replans(&self) -> u32 {
        self.replans
    }

    /// The fewest tiles the unit has stood from its goal since the order, counted as the
    /// larger of the column and row differences (`u32::MAX` before its first step).
    pub fn nearest(&self) -> u32 {
        self.nearest
    }

    /// Whether units at rest walled the walker in, so that the other side's units at rest
    /// make way for it for the rest of its walk.
    pub fn walled(&self) -> bool {
        self.walled
    }

    /// Seconds spent in a queue since its last step.
    pub fn queued(&self) -> f32 {
        self.queued
    }

    /// Walls the walker in ([`Walk::walled`]), once: from now on the other side's units at
    /// rest make way for it, so those that stopped it are no longer in its way, and it has
    /// its re-plans again. False, changing nothing, when it was walled in already.
    pub(crate) fn wall_in(&mut self) -> bool {
        if self.walled {
            return false;
        }
        self.walled = true;
        self.blockers.clear();
        self.replans = 0;
        true
    }
}
