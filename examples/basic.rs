//! The smallest use of bevy_tilewalk, headless: a navigation built in code, two units, one
//! group order, and their paths printed.
//!
//! `cargo run --example basic`

use bevy::prelude::*;
use bevy_tilewalk::path::Board;
use bevy_tilewalk::prelude::*;

fn main() {
    let mut app = App::new();
    app.add_plugins((MinimalPlugins, TilewalkPlugin::default()));

    // An 8x4 field with a pond (`~`): wading costs 4, grass 1.
    let rows = ["........", "..~~~...", "..~~~...", "........"];
    let classes = vec![ClassSpec::new("foot", 3.0)];
    let nav = Navigation::from_fn(Board::default(), 8, 4, classes, |_, p| {
        match rows[p.y as usize].as_bytes()[p.x as usize] {
            b'~' => Some(4.0),
            _ => Some(1.0),
        }
    })
    .expect("costs within the core's bounds");
    app.insert_resource(nav);

    // Two units on the west side (no names needed), sent together to the east.
    let units: Vec<Entity> = [Pos::new(0, 1), Pos::new(0, 2)]
        .into_iter()
        .map(|tile| app.world_mut().spawn((Unit, Tile(tile))).id())
        .collect();
    app.world_mut()
        .write_message(MoveOrder::new(units.clone(), Pos::new(7, 1)));
    app.update();

    for (i, unit) in units.into_iter().enumerate() {
        let path = app
            .world()
            .get::<Path>(unit)
            .expect("a path after one update");
        let cells: Vec<String> = path.cells.iter().map(ToString::to_string).collect();
        println!("unit {}: cost {:.2}: {}", i + 1, path.cost, cells.join(" "));
    }
}
