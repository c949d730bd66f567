//! tilewalk: tile-based unit movement for RPG and tactics games.
//!
//! The simulation (terrain, level, units, orders, pathing, movement) is a set of plugins
//! that run headless under `MinimalPlugins`; [`game_plugin`] adds rendering, input, camera
//! and UI on top. The pathfinding itself lives in the engine-free `tilewalk_path` crate.

pub mod cli;
pub mod convert;
pub mod journal;
pub mod level;
pub mod map;
pub mod movement;
pub mod pathing;
pub mod tactics;
pub mod terrain;
pub mod units;
mod view;

use bevy::asset::{LoadContext, io::Reader};
use bevy::prelude::*;
use tilewalk_path::formats::ParseError;

/// The order in which the simulation's systems run each frame, set once here.
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
    /// Everything that only shows the state: HUD, overlays, sprites following units.
    Present,
}

/// The headless simulation: everything needed to load a level, order units and walk them.
pub fn simulation_plugin(app: &mut App) {
    app.configure_sets(
        Update,
        (
            AppSystems::Load,
            AppSystems::RecordInput,
            AppSystems::Plan,
            AppSystems::Move,
            AppSystems::Present,
        )
            .chain(),
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

/// A headless app (no window, no renderer) playing `map` under `table`, with a fixed
/// 1/60 s time step so runs are deterministic: what the `simulate` command and the tests use.
pub fn headless_app(map: &map::MapAsset, table: &terrain::TerrainTable) -> Result<App, ParseError> {
    let level = level::Level::build(map, table)?;
    let mut app = App::new();
    app.add_plugins((MinimalPlugins, simulation_plugin))
        .insert_resource(bevy::time::TimeUpdateStrategy::ManualDuration(
            std::time::Duration::from_secs_f64(FIXED_STEP_SECS),
        ));
    let world = app.world_mut();
    units::spawn_units(&mut world.commands(), map, &level);
    world.insert_resource(level);
    world.flush();
    Ok(app)
}

/// Whether every unit stands still: no path to follow and no step under way.
pub fn all_idle(world: &mut World) -> bool {
    world
        .query_filtered::<(), With<pathing::Path>>()
        .iter(world)
        .next()
        .is_none()
        && world
            .query::<&movement::Motion>()
            .iter(world)
            .all(|m| m.stride.is_none())
}

/// A RON syntax error as a [`ParseError`] at its line and column.
pub(crate) fn ron_error(error: ron::error::SpannedError) -> ParseError {
    ParseError::new(
        error.span.start.line,
        error.span.start.col,
        error.code.to_string(),
    )
}

/// The simulated time one headless frame advances.
pub const FIXED_STEP_SECS: f64 = 1.0 / 60.0;

/// The playable game on top of the simulation: tilemap, sprites, camera, input, HUD.
pub fn game_plugin(app: &mut App) {
    app.add_plugins((simulation_plugin, level::assets_plugin, view::plugin));
}

/// A file that could not be read or parsed, as `file:line:col: message`.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum AssetFileError {
    #[error("{file}: {message}")]
    Io { file: String, message: String },
    #[error("{file}:{error}")]
    Parse { file: String, error: ParseError },
}

impl AssetFileError {
    pub fn parse(context: &LoadContext, error: ParseError) -> Self {
        Self::Parse {
            file: context.path().path().display().to_string(),
            error,
        }
    }

    /// The same error, named after a file path given on the command line.
    pub fn in_file(file: &std::path::Path, error: ParseError) -> Self {
        Self::Parse {
            file: file.display().to_string(),
            error,
        }
    }
}

/// Reads an asset as UTF-8 text.
pub(crate) async fn read_text(
    reader: &mut dyn Reader,
    context: &LoadContext<'_>,
) -> Result<String, AssetFileError> {
    let file = || context.path().path().display().to_string();
    let mut bytes = Vec::new();
    reader
        .read_to_end(&mut bytes)
        .await
        .map_err(|e| AssetFileError::Io {
            file: file(),
            message: e.to_string(),
        })?;
    String::from_utf8(bytes).map_err(|e| AssetFileError::Io {
        file: file(),
        message: format!("not UTF-8 text ({e})"),
    })
}
