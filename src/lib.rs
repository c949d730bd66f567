//! tilewalk: tile-based unit movement for RPG and tactics games.
//!
//! The simulation (terrain, level, units, orders, pathing, movement, tactics) is a set of
//! plugins that run headless under `MinimalPlugins`; [`game_plugin`] adds the files, rendering,
//! input, camera and UI on top. The pathfinding itself lives in the engine-free
//! `tilewalk_path` crate.

pub mod assets;
pub mod cli;
pub mod convert;
mod headless;
pub mod journal;
pub mod level;
pub mod map;
pub mod movement;
pub mod pathing;
pub mod tactics;
pub mod terrain;
pub mod units;
mod view;

use bevy::prelude::*;

pub use headless::{FIXED_STEP_SECS, all_idle, headless_app};

/// The order in which the systems run each frame, set once here.
#[derive(SystemSet, Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum AppSystems {
    /// Turn files into the level; spawn units.
    Load,
    /// Turn pointer and keyboard input into orders.
    RecordInput,
    /// Turn orders and level changes into paths.
    Plan,
    /// Walk units along their paths.
    Move,
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
        (Load, RecordInput, Plan, Move, Present, Hud).chain(),
    );
    // Tactics mode is a state; `DefaultPlugins` bring the states plugin, `MinimalPlugins` do not.
    if !app.is_plugin_added::<bevy::state::app::StatesPlugin>() {
        app.add_plugins(bevy::state::app::StatesPlugin);
    }
    app.add_plugins((
        level::plugin,
        pathing::plugin,
        movement::plugin,
        journal::plugin,
        tactics::plugin,
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
