//! The reflection of the core's types, which have no Bevy in them.

use bevy::prelude::*;
use bevy::reflect::reflect_remote;
use tilewalk_path::Pos;

/// The reflection of the core's [`Pos`]: a field `#[reflect(remote = PosReflect)] pos: Pos`
/// in a type of your own derives `Reflect` with `x` and `y` showing, as [`Tile`] does.
#[reflect_remote(Pos)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
#[reflect(Debug, Default, Clone, PartialEq, Hash)]
pub struct PosReflect {
    /// The column, 0 at the left edge.
    pub x: u32,
    /// The row, 0 at the top edge.
    pub y: u32,
}
