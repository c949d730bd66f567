//! Movement classes of your own naming: five Advance Wars-like classes (infantry, mech, tires,
//! treads, air), each with its speed and its own cost for every terrain, declared in code by
//! name. One of each crosses the same map, headless; the table printed shows how differently
//! each one goes. Tactics rules keyed by the same names are checked against the classes: a
//! misspelt name is refused with a message, not given silent defaults.
//!
//! `cargo run --example classes` (from the repository's root)

use std::time::Duration;

use bevy::prelude::*;
use bevy::time::TimeUpdateStrategy;
use bevy_tilewalk::path::Board;
use bevy_tilewalk::prelude::*;
use bevy_tilewalk::tactics::{PerClass, TacticsRules};

const STEP: f64 = 1.0 / 60.0;

/// The map: `.` plain, `f` forest, `^` mountain, `~` river, `=` road (and a bridge).
const MAP: [&str; 8] = [
    "....ff....^^......",
    "..ffff...^^^..ff..",
    "==========^^======",
    "...ff.....~~......",
    "~~~~~~~~=~~~~~~~~~",
    ".....ff..^^..ff...",
    "....fff..^^.......",
    "..................",
];

/// Each class's speed and its cost on plain, forest, mountain, river and road (`None`:
/// impassable).
const CLASSES: [(&str, f64, [Option<f64>; 5]); 5] = [
    (
        "infantry",
        3.0,
        [Some(1.0), Some(1.0), Some(2.0), Some(2.0), Some(1.0)],
    ),
    (
        "mech",
        2.0,
        [Some(1.0), Some(1.0), Some(1.0), Some(1.0), Some(1.0)],
    ),
    ("tires", 6.0, [Some(2.0), Some(3.0), None, None, Some(1.0)]),
    ("treads", 5.0, [Some(1.0), Some(2.0), None, None, Some(1.0)]),
    (
        "air",
        6.0,
        [Some(1.0), Some(1.0), Some(1.0), Some(1.0), Some(1.0)],
    ),
];

fn terrain(p: Pos) -> usize {
    match MAP[p.y as usize].as_bytes()[p.x as usize] {
        b'f' => 1,
        b'^' => 2,
        b'~' => 3,
        b'=' => 4,
        _ => 0,
    }
}

fn main() {
    let specs = CLASSES
        .iter()
        .map(|&(name, speed, _)| ClassSpec::new(name, speed))
        .collect();
    let (width, height) = (MAP[0].len() as u32, MAP.len() as u32);
    // The closure gets each class's `ClassSpec`: its costs are looked up by its name.
    let nav = Navigation::from_fn(Board::default(), width, height, specs, |class, p| {
        let (_, _, costs) = CLASSES.iter().find(|c| c.0 == class.name)?;
        costs[terrain(p)]
    })
    .expect("costs within the core's bounds");

    let mut app = App::new();
    app.add_plugins((MinimalPlugins, TilewalkPlugin::default()))
        .insert_resource(TimeUpdateStrategy::ManualDuration(Duration::from_secs_f64(
            STEP,
        )))
        .insert_resource(nav.clone());
    // One unit of each class in the north-west, each sent alone to the south-east.
    let goals: Vec<(Entity, MovementClass, Pos)> = nav
        .all_classes()
        .map(|class| {
            let unit = app
                .world_mut()
                .spawn((Unit, class, Tile(Pos::new(0, u32::from(class.0)))))
                .id();
            let goal = Pos::new(width - 1, 3 + u32::from(class.0));
            app.world_mut().write_message(MoveOrder::new([unit], goal));
            (unit, class, goal)
        })
        .collect();
    app.update();
    let paths: Vec<Option<Path>> = goals
        .iter()
        .map(|&(unit, _, _)| app.world().get::<Path>(unit).cloned())
        .collect();
    let mut arrived = Vec::new();
    for _ in 0..(120.0 / STEP) as usize {
        app.update();
        arrived.extend(app.world_mut().resource_mut::<Messages<Arrived>>().drain());
    }

    println!("class     speed   cost  steps  arrived");
    for (&(unit, class, goal), path) in goals.iter().zip(&paths) {
        let (name, speed) = (nav.name(class), nav.speed(class));
        match path {
            Some(path) => {
                let seconds = arrived.iter().find(|a| a.unit == unit).map(|a| a.seconds);
                println!(
                    "{name:<9} {speed:>5} {:>6.2} {:>6}  {:>6}",
                    path.cost,
                    path.cells.len() - 1,
                    seconds.map_or("-".to_owned(), |s| format!("{s:.2}s")),
                );
            }
            None => println!("{name:<9} {speed:>5}  no path to {goal}"),
        }
    }

    // Rules by the same names: one misspelt, and the check says which.
    let rules = TacticsRules {
        movement_points: PerClass::from([
            ("infantry", 3.0),
            ("mech", 2.0),
            ("tires", 8.0),
            ("treds", 6.0),
            ("air", 9.0),
        ]),
        ..default()
    };
    match rules.check(nav.classes()) {
        Ok(()) => println!("the rules fit the classes"),
        Err(mistake) => println!("the rules are refused: {mistake}"),
    }
}
