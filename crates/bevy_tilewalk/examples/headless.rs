//! bevy_tilewalk headless, with time stepped by hand: a field with a pond, a foot soldier who
//! wades through it and a rider who goes round, sent to the far side of the field. Each
//! update is 1/60 s (`TimeUpdateStrategy::ManualDuration`), so the walks take the same
//! number of updates on any machine; the paths and arrival times are printed.
//!
//! `cargo run --example headless` (from the repository's root)

use std::time::Duration;

use bevy::prelude::*;
use bevy::time::TimeUpdateStrategy;
use bevy_tilewalk::path::Board;
use bevy_tilewalk::prelude::*;

const STEP: f64 = 1.0 / 60.0;

fn main() {
    let mut app = App::new();
    app.add_plugins((MinimalPlugins, TilewalkPlugin::default()))
        .insert_resource(TimeUpdateStrategy::ManualDuration(Duration::from_secs_f64(
            STEP,
        )));

    // An 8x4 field with a pond (`~`): foot soldiers wade (cost 4), riders go round.
    let rows = ["........", "..~~~...", "..~~~...", "........"];
    let pond = |p: Pos| rows[p.y as usize].as_bytes()[p.x as usize] == b'~';
    let classes = vec![ClassSpec::new("foot", 3.0), ClassSpec::new("horse", 6.0)];
    let nav = Navigation::from_fn(Board::default(), 8, 4, classes, |class, p| {
        match (class.name.as_str(), pond(p)) {
            ("foot", true) => Some(4.0),
            ("horse", true) => None,
            _ => Some(1.0),
        }
    })
    .expect("costs within the core's bounds");
    let units: Vec<(&str, Entity)> = [("foot", Pos::new(0, 1)), ("horse", Pos::new(0, 2))]
        .into_iter()
        .map(|(name, tile)| {
            let class = nav.class(name).expect("declared above");
            (name, app.world_mut().spawn((Unit, class, Tile(tile))).id())
        })
        .collect();
    app.insert_resource(nav);
    for (&(_, unit), goal) in units.iter().zip([Pos::new(7, 1), Pos::new(7, 2)]) {
        app.world_mut().write_message(MoveOrder::new([unit], goal));
    }
    app.update();
    for &(name, unit) in &units {
        let path = app
            .world()
            .get::<Path>(unit)
            .expect("a path after one update");
        let cells: Vec<String> = path.cells.iter().map(ToString::to_string).collect();
        println!("{name}: cost {:.2}: {}", path.cost, cells.join(" "));
    }

    // Walk until both have arrived (at most a minute of game time).
    let mut arrived = Vec::new();
    for _ in 0..(60.0 / STEP) as usize {
        app.update();
        let mut messages = app.world_mut().resource_mut::<Messages<Arrived>>();
        arrived.extend(messages.drain());
        if arrived.len() == units.len() {
            break;
        }
    }
    for a in &arrived {
        let name = units.iter().find(|u| u.1 == a.unit).map_or("?", |u| u.0);
        println!("{name} arrived on {} after {:.2} s", a.tile, a.seconds);
    }
}
