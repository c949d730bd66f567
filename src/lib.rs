//! tilewalk: tile-based unit movement for RPG and tactics games.
//!
//! The movement itself (orders, pathing, walking, tactics turns) is the `bevy_tilewalk`
//! plugin, which this game uses through its public API; [`simulation_plugin`] adds the
//! terrain, the level and the journal, headless under `MinimalPlugins`, and [`game_plugin`]
//! the files, rendering, input, camera and UI on top. The pathfinding itself lives in the
//! engine-free `tilewalk_path` crate.

pub mod assets;
pub mod cli;
pub mod convert;
mod headless;
pub mod journal;
pub mod level;
pub mod map;
pub mod shipped;
pub mod tactics;
pub mod terrain;
pub mod units;
mod view;

use bevy::prelude::*;
use bevy_tilewalk::{TilewalkPlugin, TilewalkSystems, TilewalkTacticsPlugin};

pub use headless::{FIXED_STEP_SECS, all_idle, headless_app};

/// The order in which the systems run each frame, set once here.
#[derive(SystemSet, Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum AppSystems {
    /// Turn files into the level; spawn units.
    Load,
    /// Find where the pointer is, and where it was at each click of the frame (the view).
    TrackPointer,
    /// Turn pointer and keyboard input into orders.
    RecordInput,
    /// Place the units' sprites on their tiles and steps (after the plugin's
    /// [`TilewalkSystems::Move`]).
    Place,
    /// Record what happened and show the state: overlays, sprites, hints for the HUD.
    Present,
    /// The HUD's text, from what `Present` left.
    Hud,
}

/// The headless simulation: everything needed to load a level, order units and walk them.
pub fn simulation_plugin(app: &mut App) {
    use AppSystems::*;
    app.configure_sets(
        Update,
        (
            Load,
            TrackPointer,
            RecordInput,
            TilewalkSystems::Turns,
            TilewalkSystems::Plan,
            TilewalkSystems::Move,
            Place,
            Present,
            Hud,
        )
            .chain(),
    );
    // Tactics mode is a state; `DefaultPlugins` bring the states plugin, `MinimalPlugins` do not.
    if !app.is_plugin_added::<bevy::state::app::StatesPlugin>() {
        app.add_plugins(bevy::state::app::StatesPlugin);
    }
    app.add_plugins((
        TilewalkPlugin::default(),
        TilewalkTacticsPlugin,
        level::plugin,
        journal::plugin,
        tactics::plugin,
        units::plugin,
    ));
}

/// The playable game on top of the simulation: files, tilemap, sprites, camera, input, HUD.
pub fn game_plugin(app: &mut App) {
    app.add_plugins((
        simulation_plugin,
        level::assets_plugin,
        tactics::assets_plugin,
        view::plugin,
    ));
}
