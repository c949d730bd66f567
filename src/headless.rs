//! The simulation without a window: a deterministic app for the headless commands and the
//! tests, and the question they keep asking it (has everything stopped moving?).

use bevy::prelude::*;
use bevy_tilewalk::tactics::Turn;
use bevy_tilewalk::{Motion, Path, PathBudget, Pending, Team};
use tilewalk_path::formats::ParseError;

use crate::level::{Level, spawn_units};
use crate::map::MapAsset;
use crate::simulation_plugin;
use crate::terrain::TerrainTable;

/// The simulated time one headless frame advances.
pub const FIXED_STEP_SECS: f64 = 1.0 / 60.0;

/// The workers a headless app plans with ([`PathBudget::workers`]): fixed, so that a run
/// replays identically on machines with any number of cores.
const HEADLESS_WORKERS: usize = 2;

/// A headless app (no window, no renderer) playing `map` under `table`, with a fixed
/// 1/60 s time step and two planning workers ([`PathBudget::workers`]) so runs are
/// deterministic on every machine: what the `simulate` command and the tests use.
pub fn headless_app(map: &MapAsset, table: &TerrainTable) -> Result<App, ParseError> {
    let (level, nav) = Level::build(map, table)?;
    let mut app = App::new();
    app.add_plugins((MinimalPlugins, simulation_plugin))
        .insert_resource(bevy::time::TimeUpdateStrategy::ManualDuration(
            std::time::Duration::from_secs_f64(FIXED_STEP_SECS),
        ))
        .insert_resource(PathBudget::default().with_workers(HEADLESS_WORKERS));
    let world = app.world_mut();
    spawn_units(&mut world.commands(), map, &level);
    world.insert_resource(level);
    world.insert_resource(nav);
    world.flush();
    Ok(app)
}

/// Whether every unit stands still: no path to follow or waited for, no step under way, and
/// no AI's red turn of tactics mode under way (a won game, whose turn stays where it ended,
/// has none; a person's red turn waits for the person).
pub fn all_idle(world: &mut World) -> bool {
    let mut teams = world.query_filtered::<&Team, With<bevy_tilewalk::Unit>>();
    let sides: std::collections::BTreeSet<Team> = teams.iter(world).copied().collect();
    let red_person = world
        .get_resource::<crate::tactics::Players>()
        .is_some_and(|p| p.person_plays(Team::RED));
    world
        .get_resource::<Turn>()
        .is_none_or(|t| t.team == Team::BLUE || sides.len() < 2 || red_person)
        && world
            .query_filtered::<(), Or<(With<Path>, With<Pending>)>>()
            .iter(world)
            .next()
            .is_none()
        && world
            .query::<&Motion>()
            .iter(world)
            .all(|m| m.stride.is_none())
}
