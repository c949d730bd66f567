//! The one integration-test binary: headless simulation, hot reload from real files, and
//! the command line. (One binary, so Bevy is linked once.)

mod armies;
mod assign;
mod boards;
mod cli;
mod fuzz;
mod golden;
mod hot_reload;
mod ldtk;
mod memory;
mod simulation;
mod tactics;
mod tiled;
mod tiled_json;
mod vs_northstar;
mod window;

use bevy::prelude::*;
use bevy_tilewalk::{MoveOrder, MovementClass, Path, Team, Tile, Unit};
use tilewalk::headless_app;
use tilewalk::journal::{Entry, Journal};
use tilewalk::map::MapAsset;
use tilewalk::terrain::TerrainTable;
use tilewalk_path::Pos;

/// Counts the bytes allocated, for the memory tests.
#[global_allocator]
static ALLOCATOR: memory::Counting = memory::Counting;

/// The shipped table's classes, in its order.
pub const FOOT: MovementClass = MovementClass(0);
pub const HORSE: MovementClass = MovementClass(1);
pub const FLYER: MovementClass = MovementClass(2);

/// The speed of every class of the shipped table, in cost-1 tiles a second.
pub const SPEED: f64 = 3.0;

/// The shipped tactics rules.
pub fn rules() -> bevy_tilewalk::tactics::TacticsRules {
    tilewalk::tactics::parse_rules(include_str!("../../assets/tactics.ron"))
        .expect("the shipped rules parse")
}

/// Swaps in the level and navigation of `map` under `table`, as a hot reload does, and
/// returns what changed for paths.
pub fn rebuild(app: &mut App, map: &str, table: &TerrainTable) -> bevy_tilewalk::NavigationChanged {
    let map = MapAsset::parse(map).expect("test map parses");
    let (level, nav) = tilewalk::level::Level::build(&map, table).expect("test map builds");
    let world = app.world_mut();
    let costs = world
        .resource_mut::<bevy_tilewalk::Navigation>()
        .replace(nav);
    let change = world
        .resource_mut::<tilewalk::level::Level>()
        .replace(level, &costs);
    world.write_message(change);
    world.write_message(costs.clone());
    costs
}

/// The navigation the app's units walk on.
pub fn nav(app: &App) -> &bevy_tilewalk::Navigation {
    app.world().resource::<bevy_tilewalk::Navigation>()
}

pub fn table() -> TerrainTable {
    TerrainTable::parse(include_str!("../../assets/terrain.ron"))
        .expect("the shipped terrain table parses")
}

/// A headless app on a map given as text.
pub fn app(map: &str) -> App {
    headless_app(&MapAsset::parse(map).expect("test map parses"), &table())
        .expect("test map builds")
}

pub fn unit(app: &mut App, name: &str) -> Entity {
    let world = app.world_mut();
    world
        .query_filtered::<(Entity, &Name), With<Unit>>()
        .iter(world)
        .find(|(_, n)| n.as_str() == name)
        .map(|(e, _)| e)
        .unwrap_or_else(|| panic!("no unit {name}"))
}

pub fn order(app: &mut App, names: &[&str], goal: Pos, append: bool) {
    let units: Vec<Entity> = names.iter().map(|n| unit(app, n)).collect();
    app.world_mut()
        .write_message(MoveOrder::new(units, goal).with_append(append));
}

pub fn tile(app: &mut App, name: &str) -> Pos {
    let entity = unit(app, name);
    app.world()
        .get::<Tile>(entity)
        .expect("units have a tile")
        .0
}

pub fn path(app: &mut App, name: &str) -> Option<Path> {
    let entity = unit(app, name);
    app.world().get::<Path>(entity).cloned()
}

pub fn journal(app: &App) -> Vec<Entry> {
    app.world().resource::<Journal>().0.clone()
}

/// The journal's refusals, each with the message a player reads.
pub fn refused(app: &App) -> Vec<(bevy_tilewalk::Refusal, String)> {
    journal(app)
        .into_iter()
        .filter_map(|e| match e {
            Entry::Refused {
                reason, message, ..
            } => Some((reason, message)),
            _ => None,
        })
        .collect()
}

/// Updates until no unit has a path or a step under way (at most `seconds` of simulated time).
pub fn run_until_idle(app: &mut App, seconds: f64) {
    for frame in 0..(seconds * 60.0) as usize {
        app.update();
        if frame > 0 && tilewalk::all_idle(app.world_mut()) {
            return;
        }
    }
    panic!("units still moving after {seconds} simulated seconds");
}

/// When `name` arrived, from the journal.
pub fn arrival(app: &App, name: &str) -> Option<(Pos, f64)> {
    journal(app).into_iter().find_map(|e| match e {
        Entry::Arrived {
            unit,
            tile,
            seconds,
            ..
        } if unit == name => Some((tile, seconds)),
        _ => None,
    })
}
