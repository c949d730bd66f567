#![doc = include_str!("../README.md")]
//!
//! # How it works
//!
//! - **Orders are served under a budget.** A [`MoveOrder`] of one unit is an A* search; of two
//!   or more, one group order: cost-to-goal fields share the work, and each unit gets its own
//!   free tile nearest the click by travel cost. Requests wait in a queue and are served on
//!   Bevy's compute task pool while a step's work (cells expanded, see [`PathBudget`]) is under
//!   [`TilewalkPlugin::path_budget`]: a worker's share for each core (or for the workers it
//!   names), group orders side by side; the units of an order that is not served yet carry
//!   [`Pending`]. Work, not time, is counted, so with the same number of workers the same
//!   orders are served in the same steps on any machine.
//! - **Walking** takes a step's length × the entered tile's cost ÷ the class's speed. A unit
//!   holds one tile, and no two units hold the same one. Crowds follow a few rules, each frame
//!   in [`Precedence`] order: free tiles are taken, rings of waiting units step at once, a
//!   walker whose next tile is held sidesteps onto an equally cheap one, a unit at rest of the
//!   walker's side makes way (a squadmate of the same group order takes
//!   over the walk), a queue behind moving units waits, and a unit blocked by one that will
//!   not make way re-plans around it up to [`MAX_REPLANS`] times before it gives up
//!   ([`Refusal::GaveUp`]).
//! - **Re-plans**: a [`NavigationChanged`] re-plans the paths that cross a changed tile, and
//!   every path of a class that got cheaper somewhere, on the map that changed.
//! - **Several maps**: the [`Navigation`] resource is the world's default map; an entity
//!   with a [`MapNavigation`] is a map of its own, and units join it with [`OnMap`]. Each
//!   map's units are planned, walk and make way on their own map only.
//! - **Outcomes** are messages and entity events on their unit: [`Arrived`] and
//!   [`OrderRefused`] are triggered last in [`TilewalkSystems::Move`], so an observer on a
//!   unit runs in the frame its message is written.
//!
//! The repository's [`docs/armies.md`] tells the crowd rules in full, and
//! [`docs/design/plugin.md`] why the interface is the one it is.
//!
//! [`docs/armies.md`]: https://github.com/tilewalk/tilewalk/blob/main/docs/armies.md
//! [`docs/design/plugin.md`]: https://github.com/tilewalk/tilewalk/blob/main/docs/design/plugin.md
#![deny(missing_docs)]

pub mod debug;
mod events;
mod layout;
mod maps;
mod movement;
mod navigation;
mod pathing;
mod reflection;
mod remote;
mod sides;
#[cfg(feature = "tactics")]
pub mod tactics;
#[cfg(feature = "tactics")]
pub use tactics::TilewalkTacticsPlugin;
mod units;

use bevy::ecs::schedule::{InternedScheduleLabel, ScheduleLabel};
use bevy::prelude::*;

pub use events::MoveCommands;
pub use layout::{TileLayout, TileProjection};
pub use maps::{MapNavigation, MapUnits, OnMap};
pub use movement::{Arrived, MAX_REPLANS, WAIT_FOR_IDLE_SECS, free_walk_seconds};
#[cfg(feature = "bevy_ecs_tilemap")]
pub use navigation::board_of;
pub use navigation::{
    ClassSpec, MAX_CLASSES, Navigation, NavigationChanged, NavigationError, step_length,
};
pub use pathing::{
    DEFAULT_PATH_WORK, LANDMARK_CELLS, LANDMARK_DISTANCE, LANDMARK_FRAMES, LANDMARKS, Labels,
    LongOrders, MoveOrder, OrderRefused, Path, PathBudget, Pending, PlannerMemory, Refusal,
    ShortOfGoal, ShortOfWhy, SteppingOff, StopOrder, UnreachableGoals,
};
pub use remote::PosReflect;
pub use sides::{Side, Sides};
pub use tilewalk_path::{self as path, Pos};
pub use units::{Motion, MovementClass, Precedence, Stride, Team, Tile, Unit, Walk};

/// The types a game uses most: `use bevy_tilewalk::prelude::*;`. The tactics types are in
/// [`tactics`], what the plugin did (searches, work) and its debug drawing in
/// [`debug`](mod@debug).
pub mod prelude {
    #[cfg(feature = "debug")]
    pub use crate::debug::TilewalkDebugPlugin;
    pub use crate::path::Board;
    pub use crate::{
        Arrived, ClassSpec, MapNavigation, Motion, MoveCommands, MoveOrder, MovementClass,
        Navigation, NavigationChanged, OnMap, OrderRefused, Path, Pending, Pos, Refusal,
        ShortOfGoal, Side, Sides, StopOrder, Team, Tile, TileLayout, TilewalkPlugin,
        TilewalkSystems, Unit, UnreachableGoals,
    };
}

/// Where the plugin's systems run each step, in this order. A host orders its own systems
/// against them: input that writes [`MoveOrder`]s before [`TilewalkSystems::Plan`], drawing
/// that reads [`Tile`] and [`Motion`] after [`TilewalkSystems::Move`].
#[derive(SystemSet, Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum TilewalkSystems {
    /// Tactics turns (feature `tactics`, added by [`TilewalkTacticsPlugin`]): [`TacticsMove`]s are made (at once:
    /// [`TacticsMoved`]), [`EndTurn`]s hand the turn to the next side (an AI side plays its own), [`Strike`]s, [`Wait`]s and
    /// [`CancelMove`]s are resolved (when [`TacticsRules`] exist). A host that has a real-time
    /// mode too gates this set with its own run condition.
    ///
    /// [`TilewalkTacticsPlugin`]: crate::tactics::TilewalkTacticsPlugin
    /// [`TacticsMove`]: crate::tactics::TacticsMove
    /// [`TacticsMoved`]: crate::tactics::TacticsMoved
    /// [`EndTurn`]: crate::tactics::EndTurn
    /// [`Strike`]: crate::tactics::Strike
    /// [`Wait`]: crate::tactics::Wait
    /// [`CancelMove`]: crate::tactics::CancelMove
    /// [`TacticsRules`]: crate::tactics::TacticsRules
    Turns,
    /// Orders and navigation changes become path requests, served under the
    /// [`PathBudget`]: [`Pending`] until a [`Path`] arrives. Without a [`Navigation`], move
    /// orders for the units of the default map are kept here until one is inserted.
    Plan,
    /// Units walk their paths with the crowd rules; [`Arrived`] and [`OrderRefused`] come out,
    /// as messages and, last in the set, as entity events on their units (for observers).
    /// Where a [`TileLayout`] exists, the units' `Transform`s are then placed where they
    /// walk.
    Move,
}

/// The simulation of tile-based unit movement: add it, insert a [`Navigation`], spawn
/// [`Unit`]s and write [`MoveOrder`]s (or [`MoveCommands::move_to`] on a unit). It needs no
/// window: `MinimalPlugins` are enough. Orders written before the navigation is inserted
/// wait for it. It has no game rules: tactics turns, hit points and strikes are
/// [`TilewalkTacticsPlugin`]'s (feature `tactics`), added after it.
///
/// [`TilewalkTacticsPlugin`]: crate::tactics::TilewalkTacticsPlugin
#[derive(Clone, Debug)]
#[non_exhaustive]
pub struct TilewalkPlugin {
    /// The schedule the systems run in: `Update` walks units by the frame's time, a fixed
    /// schedule such as `FixedUpdate` by fixed steps (the same walks at any frame rate).
    pub schedule: InternedScheduleLabel,
    /// The work path searches may do a step, and how many workers share it ([`PathBudget`]).
    pub path_budget: PathBudget,
}

impl Default for TilewalkPlugin {
    fn default() -> Self {
        Self {
            schedule: Update.intern(),
            path_budget: PathBudget::default(),
        }
    }
}

impl TilewalkPlugin {
    /// The plugin running its systems in `schedule`.
    pub fn in_schedule(schedule: impl ScheduleLabel) -> Self {
        Self {
            schedule: schedule.intern(),
            ..default()
        }
    }

    /// The plugin with another [`PathBudget`] ([`TilewalkPlugin::path_budget`]).
    pub fn with_path_budget(self, path_budget: PathBudget) -> Self {
        Self {
            path_budget,
            ..self
        }
    }
}

impl Plugin for TilewalkPlugin {
    fn build(&self, app: &mut App) {
        use TilewalkSystems::*;
        app.configure_sets(self.schedule, (Turns, Plan, Move).chain())
            .insert_resource(self.path_budget)
            .init_resource::<Sides>()
            .add_message::<NavigationChanged>();
        #[cfg(feature = "tactics")]
        app.insert_resource(TilewalkSchedule(self.schedule));
        reflection::plugin(app);
        pathing::plugin(app, self.schedule);
        movement::plugin(app, self.schedule);
        layout::plugin(app, self.schedule);
        events::plugin(app, self.schedule);
    }
}

/// The schedule [`TilewalkPlugin`] runs in, for [`TilewalkTacticsPlugin`], which adds its
/// systems to the same sets.
#[cfg(feature = "tactics")]
#[derive(Resource, Clone, Copy, Debug)]
pub(crate) struct TilewalkSchedule(pub(crate) InternedScheduleLabel);
