//! Movement classes from data: the Advance Wars-like table `assets/classes/advance_wars.ron`
//! declares five classes (infantry, mech, tires, treads, air), each with its speed and its
//! cost for every terrain. One of each crosses the meadow map from the west bank to the east,
//! headless, and the table printed shows how differently each one goes.
//!
//! `cargo run --example custom_classes`

use bevy::prelude::*;
use bevy::time::TimeUpdateStrategy;
use bevy_tilewalk::prelude::*;
use tilewalk::level::Level;
use tilewalk::map::MapAsset;
use tilewalk::terrain::TerrainTable;

const STEP: f64 = 1.0 / 60.0;

fn main() {
    let table = TerrainTable::parse(include_str!("../assets/classes/advance_wars.ron"))
        .expect("the shipped table parses");
    let meadow = include_str!("../assets/maps/meadow.map");
    let terrain = &meadow[..meadow.find("[units]").expect("the map places units")];
    let map = MapAsset::parse(terrain).expect("the meadow parses");
    let (level, nav) = Level::build(&map, &table).expect("every glyph is in the table");

    let mut app = App::new();
    app.add_plugins((MinimalPlugins, TilewalkPlugin::default()))
        .insert_resource(TimeUpdateStrategy::ManualDuration(
            std::time::Duration::from_secs_f64(STEP),
        ))
        .insert_resource(nav.clone());
    // One unit of each class on the west bank, each sent alone to the same tile in the east.
    let goal = Pos::new(28, 5);
    let units: Vec<(Entity, MovementClass)> = nav
        .all_classes()
        .map(|class| {
            let start = Pos::new(0, 3 + u32::from(class.0));
            let unit = app.world_mut().spawn((Unit, class, Tile(start))).id();
            app.world_mut().write_message(MoveOrder::new([unit], goal));
            (unit, class)
        })
        .collect();
    app.update();
    let paths: Vec<Option<Path>> = units
        .iter()
        .map(|&(unit, _)| app.world().get::<Path>(unit).cloned())
        .collect();
    let mut arrived = Vec::new();
    let mut cursor = app
        .world_mut()
        .resource_mut::<Messages<Arrived>>()
        .get_cursor();
    for _ in 0..(120.0 / STEP) as usize {
        app.update();
        arrived.extend(
            cursor
                .read(app.world().resource::<Messages<Arrived>>())
                .copied(),
        );
    }

    println!("from the west bank to {goal} on the meadow, one unit of each class:");
    println!("class      speed   cost  steps  arrived  crosses");
    for ((unit, class), path) in units.iter().zip(&paths) {
        let name = nav.name(*class);
        let speed = nav.speed(*class);
        let Some(path) = path else {
            println!("{name:<9} {speed:>6}  no path");
            continue;
        };
        let seconds = arrived.iter().find(|a| a.unit == *unit).map(|a| a.seconds);
        let mut crossed: Vec<&str> = path
            .cells
            .iter()
            .filter_map(|&p| level.terrain(p).map(|t| t.name.as_str()))
            .collect();
        crossed.sort_unstable();
        crossed.dedup();
        println!(
            "{name:<9} {speed:>6} {:>6.2} {:>6}  {:>6}s  {}",
            path.cost,
            path.cells.len() - 1,
            seconds.map_or("-".to_owned(), |s| format!("{s:.2}")),
            crossed.join(", ")
        );
    }
}
