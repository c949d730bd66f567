//! The plugin as a game uses it: `MinimalPlugins` + `TilewalkPlugin`, a navigation filled by
//! hand, unnamed units. Paths are checked against the core's Dijkstra, arrival times against
//! cost ÷ speed. `layout` checks where units' `Transform`s are placed, `interop` runs the
//! interop examples' map readers on the maps they open.

use std::time::Duration;

use bevy::prelude::*;
use bevy::time::TimeUpdateStrategy;
use bevy_tilewalk::debug::{RecordSearch, Searches};
use bevy_tilewalk::path::{Algorithm, Board, Diagonal, Grid, SearchOptions, find_path};
use bevy_tilewalk::prelude::*;
use bevy_tilewalk::tactics::{
    Acted, Defeated, EndTurn, Health, HoldEnemyTurn, PerClass, RulesError, Strike, Struck,
    TacticsRules, TerrainDefence, TilewalkTacticsPlugin, Turn, with_board,
};
use bevy_tilewalk::{Refusal, ShortOfGoal, ShortOfWhy, UnreachableGoals, Walk};

mod hierarchy;
mod interop;
mod layout;
mod maps;
#[cfg(feature = "serialize")]
mod scene;
mod sides;

const STEP: f64 = 1.0 / 60.0;

fn new_app(nav: Navigation) -> App {
    let mut app = App::new();
    app.add_plugins((MinimalPlugins, TilewalkPlugin::default()))
        .insert_resource(TimeUpdateStrategy::ManualDuration(Duration::from_secs_f64(
            STEP,
        )))
        .insert_resource(nav);
    app
}

/// [`new_app`] with the tactics rules' plugin.
fn tactics_app(nav: Navigation) -> App {
    let mut app = new_app(nav);
    app.add_plugins(TilewalkTacticsPlugin);
    app
}

fn spawn(app: &mut App, class: MovementClass, at: (u32, u32)) -> Entity {
    let tile = Tile(Pos::new(at.0, at.1));
    app.world_mut().spawn((Unit, class, tile)).id()
}

fn order(app: &mut App, units: &[Entity], goal: (u32, u32)) {
    app.world_mut()
        .write_message(MoveOrder::new(units.to_vec(), Pos::new(goal.0, goal.1)));
}

/// Runs until no unit has a path or waits for one (at most `seconds`), collecting arrivals.
fn run(app: &mut App, seconds: f64) -> Vec<Arrived> {
    let mut arrivals = Vec::new();
    let mut cursor = app
        .world_mut()
        .resource_mut::<Messages<Arrived>>()
        .get_cursor();
    for _ in 0..(seconds / STEP) as usize {
        app.update();
        let messages = app.world().resource::<Messages<Arrived>>();
        arrivals.extend(cursor.read(messages).copied());
        let world = app.world_mut();
        let busy = world
            .query_filtered::<(), Or<(With<Path>, With<Pending>)>>()
            .iter(world)
            .next()
            .is_some();
        if !busy {
            break;
        }
    }
    arrivals
}

/// Replaces the default map's navigation with `nav` and writes the change it makes.
fn replace_navigation(app: &mut App, nav: Navigation) {
    let change = app.world_mut().resource_mut::<Navigation>().replace(nav);
    app.world_mut().write_message(change);
}

fn dijkstra(grid: &Grid, board: Board, from: Pos, to: Pos) -> Option<f64> {
    let options = SearchOptions {
        algorithm: Algorithm::Dijkstra,
        ..SearchOptions::on(board)
    };
    find_path(grid, from, to, &options)
        .ok()
        .map(|f| f.path.cost)
}

/// What walking `cells` costs on `grid`, each step onto a passable neighbour.
fn walked(grid: &Grid, board: Board, cells: &[Pos]) -> f64 {
    cells
        .windows(2)
        .map(|w| {
            assert!(
                board
                    .neighbours(w[0], grid.width(), grid.height())
                    .any(|n| n == w[1]),
                "{} to {} is no step",
                w[0],
                w[1]
            );
            let cost = grid.cost(w[1]).expect("a path only enters passable tiles");
            cost * bevy_tilewalk::step_length(board, w[0], w[1])
        })
        .sum()
}

/// 12x8: grass (1), a band of woods (3 on foot, 2 for horses) and a pond only foot wades (5).
fn meadow() -> Navigation {
    let classes = vec![ClassSpec::new("foot", 3.0), ClassSpec::new("horse", 5.0)];
    Navigation::from_fn(Board::default(), 12, 8, classes, |class, p| {
        let woods = p.x == 5 || p.x == 6;
        let pond = (3..=4).contains(&p.x) && (2..=5).contains(&p.y);
        match (class.name.as_str(), woods, pond) {
            ("foot", _, true) => Some(5.0),
            ("horse", _, true) => None,
            ("foot", true, _) => Some(3.0),
            ("horse", true, _) => Some(2.0),
            _ => Some(1.0),
        }
    })
    .unwrap()
}

/// One unit's order and a group order, as (unit index, path cells, path cost, arrival).
type Outcome = Vec<(usize, Vec<Pos>, f64, Option<f64>)>;

fn play_meadow() -> Outcome {
    let nav = meadow();
    let (foot, horse) = (nav.class("foot").unwrap(), nav.class("horse").unwrap());
    let mut app = new_app(nav.clone());
    let alone = spawn(&mut app, foot, (0, 0));
    let group: Vec<Entity> = (0..6)
        .map(|i| {
            let class = if i % 2 == 0 { foot } else { horse };
            spawn(&mut app, class, (0, i + 2))
        })
        .collect();
    // The lone unit walks first, with nobody in its way; then the group.
    let mut outcome: Outcome = Vec::new();
    let units: Vec<Entity> = [alone].into_iter().chain(group.iter().copied()).collect();
    for (ordered, goal) in [(vec![alone], (11, 0)), (group.clone(), (10, 5))] {
        order(&mut app, &ordered, goal);
        app.update();
        let first = outcome.len();
        for &unit in &ordered {
            let path = app
                .world()
                .get::<Path>(unit)
                .expect("every unit got a path");
            outcome.push((outcome.len(), path.cells.clone(), path.cost, None));
        }
        let arrivals = run(&mut app, 60.0);
        for (i, &unit) in ordered.iter().enumerate() {
            outcome[first + i].3 = arrivals.iter().find(|a| a.unit == unit).map(|a| a.seconds);
        }
    }
    // Each path is the cheapest there is to its tile for its class, and the walk took its
    // cost over its class's speed.
    let mut goals = Vec::new();
    for (i, cells, cost, arrival) in &outcome {
        let class = *app.world().get::<MovementClass>(units[*i]).unwrap();
        let (grid, board) = (nav.grid(class), nav.board());
        let (from, to) = (cells[0], *cells.last().unwrap());
        let best = dijkstra(grid, board, from, to).unwrap();
        assert!((cost - best).abs() < 1e-9, "unit {i}: {cost} vs {best}");
        assert!((walked(grid, board, cells) - best).abs() < 1e-9);
        goals.push(to);
        if *i == 0 {
            // Alone on its way: nobody slows it down.
            let expected = best / nav.speed(class);
            assert!(
                (arrival.unwrap() - expected).abs() < 1e-9,
                "{arrival:?} vs {expected}"
            );
        } else {
            assert!(arrival.is_some(), "unit {i} arrives");
        }
        assert!(cells.iter().all(|&p| grid.is_passable(p)));
    }
    goals.sort_by_key(|p| (p.y, p.x));
    goals.dedup();
    assert_eq!(goals.len(), outcome.len(), "every unit has its own tile");
    outcome
}

#[test]
fn unnamed_units_walk_the_cheapest_paths_at_their_speed_and_replay_identically() {
    let first = play_meadow();
    let second = play_meadow();
    assert_eq!(first, second);
}

/// Advance Wars' five movement classes over plains `.`, woods `f`, mountains `^` and a river
/// `~` (the costs of its movement chart; mountains and rivers stop vehicles).
fn five_classes() -> (Navigation, Vec<&'static str>) {
    let rows = [
        "..........",
        "..ffff....",
        "..ffff.^^.",
        "~~~~~..^^.",
        ".......^^.",
        "..........",
    ];
    let names = vec!["infantry", "mech", "tires", "treads", "air"];
    let classes = vec![
        ClassSpec::new("infantry", 3.0),
        ClassSpec::new("mech", 2.0),
        ClassSpec::new("tires", 6.0),
        ClassSpec::new("treads", 5.0),
        ClassSpec::new("air", 6.0),
    ];
    let nav = Navigation::from_fn(Board::default(), 10, 6, classes, |class, p| {
        let glyph = rows[p.y as usize].as_bytes()[p.x as usize];
        let table: [Option<f64>; 5] = match glyph {
            b'.' => [Some(1.0), Some(1.0), Some(2.0), Some(1.0), Some(1.0)],
            b'f' => [Some(1.0), Some(1.0), Some(3.0), Some(2.0), Some(1.0)],
            b'^' => [Some(2.0), Some(1.0), None, None, Some(1.0)],
            _ => [Some(2.0), Some(1.0), None, None, Some(1.0)],
        };
        table[names.iter().position(|&n| n == class.name).unwrap()]
    })
    .unwrap();
    (nav, names)
}

#[test]
fn five_classes_keep_their_own_costs_in_paths_ranges_and_group_orders() {
    let (nav, names) = five_classes();
    let class = |name: &str| nav.class(name).unwrap();
    // Vehicles cannot be sent onto a mountain; infantry and copters can. (A game that wants
    // such orders refused says so; by default the tank would go as near as it can.)
    let mut app = new_app(nav.clone());
    app.insert_resource(UnreachableGoals::Refuse);
    let tank = spawn(&mut app, class("treads"), (0, 0));
    let soldier = spawn(&mut app, class("infantry"), (0, 1));
    order(&mut app, &[tank], (8, 3));
    order(&mut app, &[soldier], (8, 3));
    app.update();
    let refused: Vec<OrderRefused> = app
        .world_mut()
        .resource_mut::<Messages<OrderRefused>>()
        .drain()
        .collect();
    assert!(
        matches!(&refused[..], [OrderRefused { unit, reason: Refusal::Impassable { .. }, .. }] if *unit == tank),
        "{refused:?}"
    );
    assert!(app.world().get::<Path>(soldier).is_some());

    // A group order of all five from the west to the south-east corner: each path is its
    // class's cheapest to its tile, none enters a tile impassable for it, and all arrive.
    let mut app = new_app(nav.clone());
    let rows = [0, 1, 2, 4, 5];
    let units: Vec<Entity> = names
        .iter()
        .zip(rows)
        .map(|(name, y)| spawn(&mut app, class(name), (0, y)))
        .collect();
    order(&mut app, &units, (9, 5));
    app.update();
    for ((&unit, name), y) in units.iter().zip(&names).zip(rows) {
        let grid = nav.grid(class(name));
        let path = app
            .world()
            .get::<Path>(unit)
            .expect("a path for every class");
        let best = dijkstra(grid, nav.board(), Pos::new(0, y), path.goal()).unwrap();
        assert!(
            (path.cost - best).abs() < 1e-9,
            "{name}: {} vs {best}",
            path.cost
        );
        assert!((walked(grid, nav.board(), &path.cells) - best).abs() < 1e-9);
    }
    let arrivals = run(&mut app, 120.0);
    for (&unit, name) in units.iter().zip(&names) {
        assert!(arrivals.iter().any(|a| a.unit == unit), "{name} arrives");
    }

    // Movement ranges: five points from the same tile, every tile at its class's cost.
    let start = Pos::new(6, 4);
    for name in &names {
        let mut app = new_app(nav.clone());
        app.insert_resource(TacticsRules {
            movement_points: PerClass::from([("*", 5.0)]),
            ..default()
        });
        let unit = spawn(&mut app, class(name), (start.x, start.y));
        let range = with_board(app.world_mut(), |board, context| {
            let piece = board.piece(unit).unwrap().clone();
            board.range(context, &piece)
        })
        .unwrap();
        let grid = nav.grid(class(name));
        let best = |p: Pos| dijkstra(grid, nav.board(), start, p);
        for reached in range.cells() {
            assert!(
                (reached.cost - best(reached.pos).unwrap()).abs() < 1e-9,
                "{name} {}",
                reached.pos
            );
        }
        // Exactly the tiles within its points (its own tile aside).
        for p in grid.cells().filter(|&p| p != start) {
            let within = best(p).is_some_and(|c| c <= 5.0);
            assert_eq!(range.get(p).is_some(), within, "{name} {p}");
        }
        let on_the_mountain = range.get(Pos::new(7, 4)).is_some();
        assert_eq!(
            on_the_mountain,
            !["tires", "treads"].contains(name),
            "{name}"
        );
    }
}

#[test]
fn a_changed_navigation_replans_the_paths_that_cross_it() {
    let nav = Navigation::from_fn(
        Board::Square(Diagonal::Never),
        9,
        5,
        vec![ClassSpec::new("foot", 3.0)],
        |_, _| Some(1.0),
    )
    .unwrap();
    let mut app = new_app(nav);
    let walker = spawn(&mut app, MovementClass(0), (0, 2));
    order(&mut app, &[walker], (8, 2));
    app.update();
    let before = app.world().get::<Path>(walker).unwrap().clone();
    assert!(before.cells.contains(&Pos::new(4, 2)));
    // A wall goes up across its way, but for a gap at the top.
    let walled = Navigation::from_fn(
        Board::Square(Diagonal::Never),
        9,
        5,
        vec![ClassSpec::new("foot", 3.0)],
        |_, p| (p.x != 4 || p.y == 0).then_some(1.0),
    )
    .unwrap();
    let change = app.world_mut().resource_mut::<Navigation>().replace(walled);
    assert!(change.cells.contains(&Pos::new(4, 2)));
    app.world_mut().write_message(change);
    app.update();
    let after = app.world().get::<Path>(walker).unwrap().clone();
    assert!(after.cells.contains(&Pos::new(4, 0)), "{:?}", after.cells);
    assert!(after.remaining().iter().all(|p| p.x != 4 || p.y == 0));
    let arrivals = run(&mut app, 30.0);
    assert_eq!(arrivals.len(), 1);
    assert_eq!(arrivals[0].tile, Pos::new(8, 2));
    assert_eq!(app.world().get::<Walk>(walker).unwrap().replans(), 0);
}

#[test]
fn a_tactics_turn_moves_within_the_range_and_the_enemy_closes_in() {
    let nav = Navigation::from_fn(
        Board::Square(Diagonal::Never),
        10,
        3,
        vec![ClassSpec::new("foot", 3.0)],
        |_, _| Some(1.0),
    )
    .unwrap();
    let mut app = tactics_app(nav);
    app.insert_resource(TacticsRules {
        movement_points: PerClass::from([("foot", 3.0)]),
        ..default()
    });
    let knight = spawn(&mut app, MovementClass(0), (0, 1));
    let orc = spawn(&mut app, MovementClass(0), (9, 1));
    app.world_mut().entity_mut(orc).insert(Team::RED);
    // Four steps is beyond three points: refused; three is a move.
    let send = |app: &mut App, x| {
        app.world_mut()
            .write_message(bevy_tilewalk::tactics::TacticsMove::new(
                knight,
                Pos::new(x, 1),
            ));
        run(app, 10.0);
    };
    send(&mut app, 4);
    assert_eq!(app.world().get::<Tile>(knight).unwrap().0, Pos::new(0, 1));
    send(&mut app, 3);
    assert_eq!(app.world().get::<Tile>(knight).unwrap().0, Pos::new(3, 1));
    // The orc closes in by its three points, stopping in the knight's zone of control or
    // short of it: it ends three steps nearer.
    app.world_mut()
        .write_message(bevy_tilewalk::tactics::EndTurn);
    for _ in 0..600 {
        app.update();
    }
    assert_eq!(app.world().get::<Tile>(orc).unwrap().0, Pos::new(6, 1));
    let turn = app.world().resource::<bevy_tilewalk::tactics::Turn>();
    assert_eq!((turn.number, turn.team), (2, Team::BLUE));
}

#[test]
fn a_host_without_terrain_defence_gets_full_damage_and_with_it_less() {
    let nav = Navigation::from_fn(
        Board::Square(Diagonal::Never),
        4,
        1,
        vec![ClassSpec::new("foot", 3.0)],
        |_, _| Some(1.0),
    )
    .unwrap();
    let strike = |defence: Option<TerrainDefence>| {
        let mut app = tactics_app(nav.clone());
        app.insert_resource(TacticsRules {
            hit_points: PerClass::from([("*", 10)]),
            damage: PerClass::from([("foot", 4)]),
            ..default()
        });
        if let Some(defence) = defence {
            app.insert_resource(defence);
        }
        let knight = spawn(&mut app, MovementClass(0), (1, 0));
        let orc = spawn(&mut app, MovementClass(0), (2, 0));
        app.world_mut().entity_mut(orc).insert(Team::RED);
        app.world_mut().write_message(Strike::new(knight, orc));
        app.update();
        let struck: Vec<Struck> = app
            .world()
            .resource::<Messages<Struck>>()
            .iter_current_update_messages()
            .cloned()
            .collect();
        assert_eq!(struck.len(), 1);
        assert!(app.world().get::<Acted>(knight).is_some());
        (struck[0].damage, struck[0].counter, struck[0].target_hp)
    };
    assert_eq!(strike(None), (4, Some(4), 6));
    // The orc's tile, (2,0), defends 3; the knight's, (1,0), none; off the grid, none.
    let defence = TerrainDefence::from_fn(3, 1, |p| if p.x == 2 { 3 } else { 0 });
    assert_eq!(
        (defence.at(Pos::new(2, 0)), defence.at(Pos::new(3, 0))),
        (3, 0)
    );
    assert_eq!(strike(Some(defence)), (1, Some(4), 9));
}

#[test]
fn a_walker_whose_next_tile_is_held_steps_beside_it_onto_an_equally_cheap_way() {
    // Its path goes diagonally up onto (1,0), then right to (2,0); a unit rests on (1,0).
    // Through (1,1) the same two tiles cost the same (1 + √2): it steps there at once, and
    // the resting unit is not disturbed. Had (1,1) cost more (mud), it would have asked the
    // resting unit to make way instead.
    for mud in [false, true] {
        let classes = vec![ClassSpec::new("foot", 3.0)];
        let nav = Navigation::from_fn(Board::default(), 4, 3, classes, |_, p| {
            Some(if mud && p == Pos::new(1, 1) { 3.0 } else { 1.0 })
        })
        .unwrap();
        let mut app = new_app(nav);
        let foot = MovementClass(0);
        let walker = spawn(&mut app, foot, (0, 1));
        let resting = spawn(&mut app, foot, (1, 0));
        app.update();
        let cells = vec![Pos::new(0, 1), Pos::new(1, 0), Pos::new(2, 0)];
        app.world_mut()
            .entity_mut(walker)
            .insert(Path::to_end(cells, 1.0 + std::f64::consts::SQRT_2));
        let mut walked = vec![Pos::new(0, 1)];
        let mut resting_moved = false;
        for _ in 0..120 {
            app.update();
            let tile = app.world().get::<Tile>(walker).unwrap().0;
            if walked.last() != Some(&tile) {
                walked.push(tile);
            }
            resting_moved |= app.world().get::<Tile>(resting).unwrap().0 != Pos::new(1, 0);
        }
        let end = Pos::new(2, 0);
        if mud {
            assert_eq!(walked, [Pos::new(0, 1), Pos::new(1, 0), end]);
            assert!(resting_moved, "the resting unit made way");
        } else {
            assert_eq!(walked, [Pos::new(0, 1), Pos::new(1, 1), end]);
            assert!(!resting_moved, "the resting unit stayed");
        }
    }
}

#[test]
fn rules_naming_an_unknown_class_or_leaving_one_out_are_refused() {
    let classes = vec![ClassSpec::new("foot", 3.0), ClassSpec::new("horse", 5.0)];
    let rules = |points: &[(&str, f64)]| TacticsRules {
        movement_points: PerClass(points.iter().map(|&(k, v)| (k.to_owned(), v)).collect()),
        ..default()
    };
    assert_eq!(
        rules(&[("foot", 3.0), ("horse", 5.0)]).check(&classes),
        Ok(())
    );
    assert_eq!(rules(&[("*", 3.0)]).check(&classes), Ok(()));
    // Left empty on purpose: every class has the default.
    assert_eq!(rules(&[]).check(&classes), Ok(()));
    // A misspelt class is named as such, not as the class it left out.
    let misspelt = rules(&[("foot", 3.0), ("hrose", 5.0)]).check(&classes);
    assert_eq!(
        misspelt,
        Err(RulesError::UnknownClass {
            field: "movement_points",
            class: "hrose".into(),
            known: "foot, horse".into(),
        })
    );
    assert_eq!(
        misspelt.unwrap_err().to_string(),
        "`movement_points` names `hrose`, which is not a movement class (the classes: foot, horse)"
    );
    assert_eq!(
        rules(&[("foot", 3.0)]).check(&classes),
        Err(RulesError::MissingClass {
            field: "movement_points",
            class: "horse".into(),
        })
    );
    let combat = TacticsRules {
        hit_points: PerClass::from([("*", 10)]),
        damage: PerClass::from([("horse", 4)]),
        ignore_zone_of_control: vec!["horse".into()],
        ..default()
    };
    assert_eq!(
        combat.check(&classes),
        Err(RulesError::MissingClass {
            field: "damage",
            class: "foot".into(),
        })
    );
    let flyer = TacticsRules {
        ignore_zone_of_control: vec!["flyer".into()],
        ..default()
    };
    assert!(matches!(
        flyer.check(&classes),
        Err(RulesError::UnknownClass {
            field: "ignore_zone_of_control",
            ..
        })
    ));
}

#[test]
fn tactics_wait_while_the_rules_do_not_fit_the_classes() {
    let nav = Navigation::from_fn(
        Board::Square(Diagonal::Never),
        6,
        1,
        vec![ClassSpec::new("foot", 3.0), ClassSpec::new("horse", 5.0)],
        |_, _| Some(1.0),
    )
    .unwrap();
    let mut app = tactics_app(nav);
    // The horse has no movement points: a mistake, not a horse that cannot move.
    app.insert_resource(TacticsRules {
        movement_points: PerClass::from([("foot", 3.0)]),
        ..default()
    });
    let knight = spawn(&mut app, MovementClass(0), (0, 0));
    let error = with_board(app.world_mut(), |_, _| ()).unwrap_err();
    assert!(error.contains("`horse`"), "{error}");
    let send = |app: &mut App| {
        app.world_mut()
            .write_message(bevy_tilewalk::tactics::TacticsMove::new(
                knight,
                Pos::new(2, 0),
            ));
        run(app, 5.0);
        app.world().get::<Tile>(knight).unwrap().0
    };
    assert_eq!(send(&mut app), Pos::new(0, 0), "no move under broken rules");
    // Fixed, the same move is played.
    app.world_mut()
        .resource_mut::<TacticsRules>()
        .movement_points
        .0
        .insert("horse".into(), 5.0);
    assert!(with_board(app.world_mut(), |_, _| ()).is_ok());
    assert_eq!(send(&mut app), Pos::new(2, 0));
}

/// The crate's public components, resources and messages, read off its sources: each
/// `pub struct` or `pub enum` whose derive names `Component`, `Resource` or `Message`, with
/// the file it is in.
fn declared_types() -> Vec<(String, &'static str, String)> {
    let mut files = vec![std::path::PathBuf::from(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/src"
    ))];
    let mut found = Vec::new();
    while let Some(path) = files.pop() {
        if path.is_dir() {
            files.extend(std::fs::read_dir(&path).unwrap().map(|e| e.unwrap().path()));
            continue;
        }
        let text = std::fs::read_to_string(&path).unwrap();
        let lines: Vec<&str> = text.lines().map(str::trim_start).collect();
        for (i, line) in lines.iter().enumerate() {
            let Some(derives) = line.strip_prefix("#[derive(") else {
                continue;
            };
            let derives: Vec<&str> = derives
                .trim_end_matches(")]")
                .split(',')
                .map(str::trim)
                .collect();
            let Some(kind) = ["Component", "Resource", "Message"]
                .into_iter()
                .find(|k| derives.contains(k))
            else {
                continue;
            };
            // The item after the attributes (some span lines: `#[cfg_attr(`).
            let item = lines[i + 1..]
                .iter()
                .find(|l| {
                    ["pub ", "pub(", "struct ", "enum "]
                        .iter()
                        .any(|p| l.starts_with(p))
                })
                .unwrap();
            let Some(rest) = item
                .strip_prefix("pub struct ")
                .or_else(|| item.strip_prefix("pub enum "))
            else {
                continue;
            };
            let name: String = rest
                .chars()
                .take_while(|c| c.is_alphanumeric() || *c == '_')
                .collect();
            let file = path.file_name().unwrap().to_string_lossy().into_owned();
            found.push((name, kind, file));
        }
    }
    found
}

#[test]
fn every_public_component_resource_and_message_is_registered_for_reflection() {
    use bevy::ecs::reflect::{ReflectComponent, ReflectResource};

    let mut app = App::new();
    app.add_plugins((
        MinimalPlugins,
        TilewalkPlugin::default(),
        TilewalkTacticsPlugin,
    ));
    #[cfg(feature = "debug")]
    app.add_plugins(bevy_tilewalk::debug::TilewalkDebugPlugin::square(
        32.0,
        Vec2::ZERO,
    ));
    let unit = app.world_mut().spawn((Unit, Tile(Pos::new(3, 4)))).id();
    let declared = declared_types();
    let names: Vec<&str> = declared.iter().map(|d| d.0.as_str()).collect();
    for expected in [
        "Unit",
        "Tile",
        "Path",
        "Navigation",
        "MoveOrder",
        "TacticsRules",
    ] {
        assert!(names.contains(&expected), "{expected} in {names:?}");
    }
    let registry = app.world().resource::<AppTypeRegistry>().read();
    for (name, kind, file) in &declared {
        if (file == "gizmos.rs" && !cfg!(feature = "debug"))
            || (file == "tactics.rs" && !cfg!(feature = "tactics"))
        {
            continue;
        }
        let registration = registry
            .iter()
            .find(|r| {
                let path = r.type_info().type_path_table();
                path.ident() == Some(name.as_str()) && path.path().starts_with("bevy_tilewalk::")
            })
            .unwrap_or_else(|| panic!("{kind} {name} ({file}) is not registered"));
        let data = match *kind {
            "Component" => registration.data::<ReflectComponent>().is_some(),
            "Resource" => registration.data::<ReflectResource>().is_some(),
            _ => true,
        };
        assert!(
            data,
            "{kind} {name} ({file}) is registered without Reflect{kind}"
        );
    }
    // A unit's components are seen through reflection: its tile's x and y.
    let tile = registry
        .get_type_data::<ReflectComponent>(std::any::TypeId::of::<Tile>())
        .unwrap()
        .reflect(app.world().entity(unit))
        .unwrap();
    let bevy::reflect::ReflectRef::TupleStruct(tile) = tile.reflect_ref() else {
        panic!("Tile is a tuple struct");
    };
    let bevy::reflect::ReflectRef::Struct(pos) = tile.field(0).unwrap().reflect_ref() else {
        panic!("a Pos reflects as a struct");
    };
    let y = pos.field("y").unwrap().try_downcast_ref::<u32>();
    assert_eq!(y, Some(&4));
}

/// Where `unit` stands.
fn tile_of(app: &App, unit: Entity) -> Pos {
    app.world().get::<Tile>(unit).unwrap().0
}

/// The refusals written so far.
fn refusals(app: &mut App) -> Vec<OrderRefused> {
    app.world_mut()
        .resource_mut::<Messages<OrderRefused>>()
        .drain()
        .collect()
}

#[test]
fn a_unit_sent_onto_a_tile_it_cannot_enter_goes_as_near_as_it_can_and_says_so() {
    let nav = meadow();
    let horse = nav.class("horse").unwrap();
    let grid = nav.grid(horse).clone();
    let mut app = new_app(nav);
    // A rider west of the pond (x 3-4, y 2-5) sent into it, at (4,3): the nearest tile it
    // can stand on is (5,3), one to the east, across the pond from it; (2,3), on its own
    // side, is one tile further (within the 1.5 weighed) and two grass steps away: it stops
    // there.
    let rider = spawn(&mut app, horse, (0, 3));
    order(&mut app, &[rider], (4, 3));
    app.update();
    assert!(refusals(&mut app).is_empty());
    let path = app.world().get::<Path>(rider).unwrap().clone();
    assert_eq!(path.goal(), Pos::new(2, 3));
    let cheapest = dijkstra(&grid, Board::default(), Pos::new(0, 3), Pos::new(2, 3)).unwrap();
    assert!(
        (path.cost - cheapest).abs() < 1e-9,
        "{} vs {cheapest}",
        path.cost
    );
    let short = ShortOfGoal {
        goal: Pos::new(4, 3),
        why: ShortOfWhy::Impassable { class: horse },
    };
    let arrivals = run(&mut app, 30.0);
    assert_eq!(arrivals.len(), 1);
    assert_eq!(
        (arrivals[0].tile, arrivals[0].short_of_goal),
        (Pos::new(2, 3), Some(short))
    );
    assert_eq!(
        short.message("rider", app.world().resource::<Navigation>()),
        "rider: (4,3) is impassable for horse"
    );
    // A tile it can reach: no longer short. (`run` reads the messages still kept, the last
    // arrival's among them.)
    order(&mut app, &[rider], (8, 3));
    let arrival = *run(&mut app, 30.0).last().unwrap();
    assert_eq!(
        (arrival.tile, arrival.short_of_goal),
        (Pos::new(8, 3), None)
    );

    // The same order in a game that refuses it.
    let mut app = new_app(meadow());
    app.insert_resource(UnreachableGoals::Refuse);
    let rider = spawn(&mut app, horse, (0, 3));
    order(&mut app, &[rider], (4, 3));
    app.update();
    let refused = refusals(&mut app);
    assert_eq!(refused.len(), 1);
    assert_eq!(refused[0].reason, short.refusal());
    assert!(app.world().get::<Path>(rider).is_none());
}

#[test]
fn a_walled_in_goal_sends_the_unit_to_the_nearest_tile_outside_the_wall() {
    // 11x11 grass; a ring of rock at one tile from (5,5) walls in the goal and its ring.
    let classes = vec![ClassSpec::new("foot", 3.0)];
    let nav = Navigation::from_fn(Board::default(), 11, 11, classes, |_, p| {
        let ring = p.x.abs_diff(5).max(p.y.abs_diff(5)) == 2;
        (!ring).then_some(1.0)
    })
    .unwrap();
    let mut app = new_app(nav);
    // From the south-west: (5,8), (2,5), (5,2) and (8,5) are the nearest tiles outside the
    // wall, 3 from the goal; of the tiles at most 4.5 from it, the corner (2,8) is the
    // cheapest to walk to (two diagonal steps, 2.83), and of those within a step and a half
    // of that, (2,7) and (3,8) are the nearest to the goal (3.61; a diagonal and a straight
    // step, 3.83): (2,7), on the first row of the two.
    let walker = spawn(&mut app, MovementClass(0), (0, 10));
    order(&mut app, &[walker], (5, 5));
    let arrivals = run(&mut app, 60.0);
    assert!(refusals(&mut app).is_empty());
    assert_eq!(arrivals.len(), 1);
    assert_eq!(arrivals[0].tile, Pos::new(2, 7));
    assert_eq!(
        arrivals[0].short_of_goal,
        Some(ShortOfGoal {
            goal: Pos::new(5, 5),
            why: ShortOfWhy::Unreachable
        })
    );
    // From the east: (9,4) is one step away (4.12 from the goal), and (8,5), one of the
    // four nearest (3 from it), a diagonal and a straight step (2.41): within a step and a
    // half of the cheapest, the nearest wins.
    let east = spawn(&mut app, MovementClass(0), (10, 4));
    order(&mut app, &[east], (5, 5));
    let arrival = *run(&mut app, 60.0).last().unwrap();
    assert_eq!((arrival.unit, arrival.tile), (east, Pos::new(8, 5)));
    assert_eq!(tile_of(&app, walker), Pos::new(2, 7));
}

#[test]
fn a_mixed_group_sends_each_class_as_near_as_it_can_get() {
    // Two on foot and two riders sent into the pond at (3,3): foot wade in (the pond costs
    // them 5), riders, two of a group, gather on the tiles nearest (2,3), the nearest tile to the
    // click they can stand on in a straight line (a group is not sent where one rider's
    // way is cheapest).
    let nav = meadow();
    let (foot, horse) = (nav.class("foot").unwrap(), nav.class("horse").unwrap());
    let mut app = new_app(nav);
    let walkers = [
        spawn(&mut app, foot, (10, 0)),
        spawn(&mut app, foot, (11, 0)),
    ];
    let riders = [
        spawn(&mut app, horse, (10, 7)),
        spawn(&mut app, horse, (11, 7)),
    ];
    let all: Vec<Entity> = walkers.iter().chain(&riders).copied().collect();
    order(&mut app, &all, (3, 3));
    let arrivals = run(&mut app, 60.0);
    assert!(refusals(&mut app).is_empty());
    assert_eq!(arrivals.len(), 4);
    let short = ShortOfGoal {
        goal: Pos::new(3, 3),
        why: ShortOfWhy::Impassable { class: horse },
    };
    for arrival in &arrivals {
        let rider = riders.contains(&arrival.unit);
        assert_eq!(arrival.short_of_goal, rider.then_some(short), "{arrival:?}");
        let tile = arrival.tile;
        if rider {
            // Each its own tile, the two of least travel cost from (2,3) for a horse: (2,3)
            // itself and one beside it off the pond.
            let beside = tile.x.abs_diff(2).max(tile.y.abs_diff(3)) <= 1;
            assert!(beside && !(3..=4).contains(&tile.x), "{arrival:?}");
        } else {
            // The clicked tile and one beside it, in the pond.
            assert!(
                tile.x.abs_diff(3).max(tile.y.abs_diff(3)) <= 1,
                "{arrival:?}"
            );
        }
    }
    let tiles: std::collections::HashSet<Pos> = arrivals.iter().map(|a| a.tile).collect();
    assert_eq!(tiles.len(), 4);
    assert!(tiles.contains(&Pos::new(3, 3)) && tiles.contains(&Pos::new(2, 3)));
}

#[test]
fn single_orders_on_a_large_map_get_landmarks_and_stay_exact_through_a_cheaper_edit() {
    use bevy_tilewalk::LANDMARK_FRAMES;
    use bevy_tilewalk::path::find_path;
    // 1024 x 1024 (the smallest map that gets landmark tables): grass with blocks of forest.
    let forest = |p: Pos| (p.x / 7 + p.y / 5).is_multiple_of(3);
    let make = |cost: f64| {
        let classes = vec![ClassSpec::new("foot", 3.0)];
        Navigation::from_fn(Board::default(), 1024, 1024, classes, move |_, p| {
            Some(if forest(p) { cost } else { 1.0 })
        })
        .unwrap()
    };
    let mut app = new_app(make(3.0));
    let unit = spawn(&mut app, MovementClass(0), (10, 10));
    // What the last order's search was, and whether its path is a cheapest one.
    let last = |app: &mut App, goal: (u32, u32)| {
        order(app, &[unit], goal);
        app.update();
        let record = app.world().resource::<Searches>().0.back().unwrap().clone();
        let path = app.world().get::<Path>(unit).unwrap().clone();
        let nav = app.world().resource::<Navigation>();
        let grid = nav.grid(MovementClass(0));
        let optimum = find_path(grid, path.cells[0], path.goal(), &SearchOptions::default())
            .unwrap()
            .path
            .cost;
        assert!(
            (path.cost - optimum).abs() < 1e-9 * optimum,
            "{} vs {optimum}",
            path.cost
        );
        record.algorithm
    };
    // The first order is plain A*, and starts the build; the tables serve from the
    // LANDMARK_FRAMES-th frame on.
    assert_eq!(last(&mut app, (1000, 900)), "A*");
    for _ in 0..LANDMARK_FRAMES {
        app.update();
    }
    assert_eq!(last(&mut app, (20, 1000)), "ALT");
    // The forest gets cheaper: the old tables could overestimate, so the next order is plain
    // A* again, until the new tables serve.
    replace_navigation(&mut app, make(1.5));
    assert_eq!(last(&mut app, (900, 30)), "A*");
    for _ in 0..LANDMARK_FRAMES {
        app.update();
    }
    assert_eq!(last(&mut app, (30, 900)), "ALT");
}

#[test]
fn on_a_large_map_only_a_long_order_builds_landmark_tables() {
    use bevy_tilewalk::{LANDMARK_CELLS, LANDMARK_DISTANCE, LANDMARK_FRAMES};
    // 1024 x 1024 (the smallest map that gets landmark tables): grass with blocks of forest.
    let classes = vec![ClassSpec::new("foot", 3.0)];
    let nav = Navigation::from_fn(Board::default(), 1024, 1024, classes, |_, p| {
        Some(if (p.x / 7 + p.y / 5).is_multiple_of(3) {
            3.0
        } else {
            1.0
        })
    })
    .unwrap();
    const { assert!(1024 * 1024 >= LANDMARK_CELLS) };
    let mut app = new_app(nav);
    let unit = spawn(&mut app, MovementClass(0), (100, 500));
    // An order `steps` to the east of where the unit stands (give or take the step under
    // way), and what its search was.
    let east = |app: &mut App, steps: u32| {
        let at = app.world().get::<Tile>(unit).unwrap().0;
        order(app, &[unit], (at.x + steps, at.y));
        app.update();
        let searches = &app.world().resource::<Searches>().0;
        let record = searches.back().unwrap();
        assert_eq!(record.unit, Some(unit));
        assert!(record.found);
        record.algorithm
    };
    let wait = |app: &mut App| {
        for _ in 0..LANDMARK_FRAMES {
            app.update();
        }
    };
    // A short order is plain A*, and starts no build: a second later, a long order is still
    // plain A* (had the short one started a build, its tables would serve by now).
    assert_eq!(east(&mut app, LANDMARK_DISTANCE - 8), "A*");
    wait(&mut app);
    assert_eq!(east(&mut app, LANDMARK_DISTANCE + 8), "A*");
    // The long order started it: the next long order is ALT, and a short one stays plain
    // A* with the tables in use.
    wait(&mut app);
    assert_eq!(east(&mut app, LANDMARK_DISTANCE + 8), "ALT");
    assert_eq!(east(&mut app, LANDMARK_DISTANCE - 8), "A*");
    assert_eq!(east(&mut app, 2 * LANDMARK_DISTANCE), "ALT");
}

#[test]
fn units_of_one_class_walled_in_together_go_as_one_group_to_distinct_tiles() {
    // A yard (columns 0 to 4) walled off by a rock column (5), and a corridor (row 3 of
    // columns 6 to 9) behind the rock: the click at (9,3) is out of reach of the yard.
    let classes = vec![ClassSpec::new("foot", 3.0)];
    let nav = Navigation::from_fn(Board::default(), 10, 7, classes, |_, p| {
        (p.x < 5 || (p.x > 5 && p.y == 3)).then_some(1.0)
    })
    .unwrap();
    let mut app = new_app(nav);
    let units: Vec<Entity> = [(0, 1), (1, 3), (2, 3), (3, 3), (0, 5)]
        .into_iter()
        .map(|at| spawn(&mut app, MovementClass(0), at))
        .collect();
    order(&mut app, &units, (9, 3));
    // Each unit's first path of the order (one that ends where it stands is none).
    let mut first: Vec<Option<Pos>> = vec![None; units.len()];
    let mut arrivals = Vec::new();
    // The units whose path a group order planned.
    let mut grouped = std::collections::HashSet::new();
    let mut cursor = app
        .world_mut()
        .resource_mut::<Messages<Arrived>>()
        .get_cursor();
    for _ in 0..(60.0 / STEP) as usize {
        app.update();
        let messages = app.world().resource::<Messages<Arrived>>();
        arrivals.extend(cursor.read(messages).copied());
        let searches = app.world().resource::<Searches>();
        grouped.extend(
            searches
                .0
                .iter()
                .filter(|r| r.algorithm == "group order")
                .filter_map(|r| r.unit),
        );
        for (k, &unit) in units.iter().enumerate() {
            if let Some(path) = app.world().get::<Path>(unit)
                && !path.making_way()
                && first[k].is_none()
            {
                first[k] = Some(path.goal());
            }
        }
    }
    assert!(refusals(&mut app).is_empty());
    // One group order planned them all.
    assert_eq!(grouped, units.iter().copied().collect(), "{grouped:?}");
    let short = ShortOfGoal {
        goal: Pos::new(9, 3),
        why: ShortOfWhy::Unreachable,
    };
    let tiles: Vec<Pos> = units.iter().map(|&u| tile_of(&app, u)).collect();
    for (&unit, tile) in units.iter().zip(&tiles) {
        assert_eq!(app.world().get::<ShortOfGoal>(unit), Some(&short));
        // The yard's tile nearest the click is (4,3): the five end on it and around it.
        assert!(tile.x.abs_diff(4) + tile.y.abs_diff(3) <= 2, "{tiles:?}");
    }
    let distinct: std::collections::HashSet<Pos> = tiles.iter().copied().collect();
    assert_eq!(distinct.len(), units.len(), "{tiles:?}");
    let sent: Vec<Pos> = first.iter().flatten().copied().collect();
    let distinct: std::collections::HashSet<Pos> = sent.iter().copied().collect();
    assert_eq!(
        distinct.len(),
        sent.len(),
        "two units sent to one tile: {first:?}"
    );
    assert!(arrivals.iter().all(|a| a.short_of_goal == Some(short)));
}

#[test]
fn order_goal_tells_what_an_order_does_and_why_it_is_refused() {
    // One row: (0,0) and (1,0) passable, rock at (2,0), a lone passable (3,0), rock from
    // (4,0) on. From (0,0), (3,0) is in another region; (6,0) is rock walled in by rock.
    let classes = vec![ClassSpec::new("foot", 3.0)];
    let nav = Navigation::from_fn(Board::default(), 7, 1, classes, |_, p| {
        (p.x < 2 || p.x == 3).then_some(1.0)
    })
    .unwrap();
    let foot = MovementClass(0);
    let near = UnreachableGoals::Nearest;
    let refuse = UnreachableGoals::Refuse;
    let at = |x| Pos::new(x, 0);
    let short = |x, why| Some(ShortOfGoal { goal: at(x), why });
    assert_eq!(nav.order_goal(foot, at(0), at(1), near), Ok((at(1), None)));
    assert_eq!(
        nav.order_goal(foot, at(0), Pos::new(9, 0), near),
        Err(Refusal::OutsideMap {
            goal: Pos::new(9, 0)
        })
    );
    let impassable = ShortOfWhy::Impassable { class: foot };
    assert_eq!(
        nav.order_goal(foot, at(0), at(2), near),
        Ok((at(1), short(2, impassable)))
    );
    assert_eq!(
        nav.order_goal(foot, at(0), at(2), refuse),
        Err(Refusal::Impassable {
            goal: at(2),
            class: foot
        })
    );
    assert_eq!(
        nav.order_goal(foot, at(0), at(3), near),
        Ok((at(1), short(3, ShortOfWhy::Unreachable)))
    );
    assert!(matches!(
        nav.order_goal(foot, at(0), at(3), refuse),
        Err(Refusal::Unreachable { goal, .. }) if goal == at(3)
    ));
    assert_eq!(
        nav.order_goal(foot, at(6), at(0), near),
        Err(Refusal::StandsOnImpassable { class: foot })
    );
    // The order does what it said: the unit ends on (1,0), short of (3,0) for that reason.
    let mut app = new_app(nav);
    let unit = spawn(&mut app, foot, (0, 0));
    order(&mut app, &[unit], (3, 0));
    run(&mut app, 3.0);
    assert!(refusals(&mut app).is_empty());
    assert_eq!(tile_of(&app, unit), at(1));
    assert_eq!(
        app.world().get::<ShortOfGoal>(unit).copied(),
        short(3, ShortOfWhy::Unreachable)
    );
}

/// A field of one class, cost 1 everywhere, walked at 4 tiles a second.
fn field(width: u32, height: u32) -> Navigation {
    Navigation::uniform(Board::default(), width, height, ClassSpec::new("foot", 4.0)).unwrap()
}

/// What observers saw, in the order they ran.
#[derive(Resource, Default)]
struct Seen(Vec<String>);

#[test]
fn observers_on_a_unit_see_its_own_arrival_and_refusals_and_a_global_one_every_unit() {
    let mut app = new_app(field(8, 3));
    app.init_resource::<Seen>();
    let knight = spawn(&mut app, MovementClass(0), (0, 0));
    let squire = spawn(&mut app, MovementClass(0), (0, 2));
    app.world_mut()
        .entity_mut(knight)
        .observe(|arrived: On<Arrived>, mut seen: ResMut<Seen>| {
            seen.0.push(format!("knight arrived at {}", arrived.tile));
        });
    app.world_mut().entity_mut(knight).observe(
        |refused: On<OrderRefused>, mut seen: ResMut<Seen>| {
            seen.0.push(format!("knight refused: {}", refused.reason));
        },
    );
    app.add_observer(|arrived: On<Arrived>, mut seen: ResMut<Seen>| {
        seen.0
            .push(format!("{} arrived at {}", arrived.unit, arrived.tile));
    });
    // Each unit is ordered on its own entity: the squire by command, the knight on the world.
    app.world_mut()
        .commands()
        .entity(squire)
        .move_to(Pos::new(7, 2));
    app.world_mut().flush();
    app.world_mut().entity_mut(knight).move_to(Pos::new(5, 0));
    let arrivals = run(&mut app, 10.0);
    assert_eq!(arrivals.len(), 2, "{arrivals:?}");
    let mut seen = std::mem::take(&mut app.world_mut().resource_mut::<Seen>().0);
    seen.sort();
    // The knight's own observer runs once, with the tile it stands on; the global one runs
    // for both units.
    let mut expected = [
        "knight arrived at (5,0)".to_owned(),
        format!("{knight} arrived at (5,0)"),
        format!("{squire} arrived at (7,2)"),
    ];
    expected.sort();
    assert_eq!(seen, expected);
    assert_eq!(tile_of(&app, knight), Pos::new(5, 0));
    // A refusal reaches the knight's observer with its reason, and the squire's does not.
    app.world_mut().entity_mut(knight).move_to(Pos::new(9, 9));
    app.world_mut().entity_mut(squire).move_to(Pos::new(9, 9));
    app.update();
    assert_eq!(
        app.world().resource::<Seen>().0,
        ["knight refused: (9,9) is outside the map"]
    );
}

#[test]
fn a_struck_unit_observes_the_strike_then_its_defeat_and_stays_for_the_game_to_remove() {
    let mut app = tactics_app(field(4, 1));
    app.init_resource::<Seen>();
    app.insert_resource(TacticsRules {
        hit_points: PerClass::from([("*", 4)]),
        damage: PerClass::from([("foot", 4)]),
        ..default()
    });
    let knight = spawn(&mut app, MovementClass(0), (1, 0));
    let orc = spawn(&mut app, MovementClass(0), (2, 0));
    app.world_mut()
        .entity_mut(orc)
        .insert(Team::RED)
        .observe(
            |struck: On<Struck>, mut seen: ResMut<Seen>, units: Query<(), With<Unit>>| {
                let here = units.contains(struck.target);
                seen.0.push(format!(
                    "struck for {}, {} hp left, removed {:?}, still here: {here}",
                    struck.damage,
                    struck.target_hp,
                    struck.removed == [struck.target]
                ));
            },
        )
        .observe(
            |defeated: On<Defeated>, mut seen: ResMut<Seen>, health: Query<&Health>| {
                let hp = health.get(defeated.unit).map(|h| h.0);
                seen.0.push(format!("defeated with {hp:?} hp"));
            },
        );
    app.world_mut().write_message(Strike::new(knight, orc));
    app.update();
    assert_eq!(
        app.world().resource::<Seen>().0,
        [
            "struck for 4, 0 hp left, removed true, still here: true",
            "defeated with Ok(0) hp"
        ]
    );
    let defeated: Vec<Entity> = app
        .world()
        .resource::<Messages<Defeated>>()
        .iter_current_update_messages()
        .map(|d| d.unit)
        .collect();
    assert_eq!(defeated, [orc]);
    // The plugin despawns nothing: the orc stays, at 0 hit points, off the board, and blue
    // is the only side left.
    assert_eq!(app.world().get::<Health>(orc), Some(&Health(0)));
    let (on_board, winner) = with_board(app.world_mut(), |board, _| {
        (board.piece(orc).is_some(), board.winner())
    })
    .unwrap();
    assert_eq!((on_board, winner), (false, Some(Team::BLUE)));
}

#[test]
fn without_the_tactics_plugin_there_are_no_turns_hit_points_or_strikes() {
    let mut app = new_app(field(4, 1));
    app.insert_resource(TacticsRules {
        hit_points: PerClass::from([("*", 4)]),
        damage: PerClass::from([("foot", 4)]),
        ..default()
    });
    let knight = spawn(&mut app, MovementClass(0), (1, 0));
    let orc = spawn(&mut app, MovementClass(0), (2, 0));
    app.world_mut().entity_mut(orc).insert(Team::RED);
    app.update();
    // No turn, no enemy turn, and the tactics messages are not even registered: a strike
    // cannot be written, so nothing can take hit points.
    assert!(!app.world().contains_resource::<Turn>());
    assert!(
        !app.world()
            .contains_resource::<bevy_tilewalk::tactics::EnemyTurn>()
    );
    assert!(!app.world().contains_resource::<Messages<Strike>>());
    assert!(!app.world().contains_resource::<Messages<Struck>>());
    // Real-time orders still walk both units.
    order(&mut app, &[knight], (0, 0));
    let arrivals = run(&mut app, 5.0);
    assert_eq!(arrivals.len(), 1);
    assert!(app.world().get::<Health>(orc).is_none());
    assert!(app.world().get_entity(orc).is_ok());
}

#[test]
fn orders_written_before_the_navigation_wait_for_it_and_stops_take_units_out() {
    let mut app = App::new();
    app.add_plugins((MinimalPlugins, TilewalkPlugin::default()))
        .insert_resource(TimeUpdateStrategy::ManualDuration(Duration::from_secs_f64(
            STEP,
        )));
    let knight = spawn(&mut app, MovementClass(0), (0, 0));
    let squire = spawn(&mut app, MovementClass(0), (0, 2));
    order(&mut app, &[knight], (5, 1));
    order(&mut app, &[squire], (6, 2));
    // The map is still loading: many frames pass, longer than a message lives. The squire is
    // stopped (a frame after its order: a stop and an order of one frame leave the order).
    for frame in 0..10 {
        app.update();
        if frame == 3 {
            app.world_mut().write_message(StopOrder::new([squire]));
        }
    }
    assert!(app.world().get::<Path>(knight).is_none());
    app.insert_resource(field(8, 3));
    let arrivals = run(&mut app, 10.0);
    let arrived: Vec<(Entity, Pos)> = arrivals.iter().map(|a| (a.unit, a.tile)).collect();
    assert_eq!(arrived, [(knight, Pos::new(5, 1))]);
    assert_eq!(
        tile_of(&app, squire),
        Pos::new(0, 2),
        "the stopped squire stays"
    );
}

#[test]
fn an_ordered_entity_that_is_no_unit_is_refused_and_the_others_go() {
    let mut app = new_app(field(8, 3));
    let knight = spawn(&mut app, MovementClass(0), (0, 0));
    let no_tile = app.world_mut().spawn(Unit).id();
    let no_unit = app.world_mut().spawn(Tile(Pos::new(0, 1))).id();
    let gone = spawn(&mut app, MovementClass(0), (0, 2));
    app.world_mut().despawn(gone);
    for _ in 0..2 {
        order(&mut app, &[no_tile, knight, no_unit, gone], (6, 1));
        app.update();
        // Each order refuses the two, whatever was told before; the despawned one is left out.
        let refused: Vec<(Entity, Refusal)> = refusals(&mut app)
            .into_iter()
            .map(|r| (r.unit, r.reason))
            .collect();
        assert_eq!(
            refused,
            [
                (no_tile, Refusal::MissingComponent { component: "Tile" }),
                (no_unit, Refusal::MissingComponent { component: "Unit" }),
            ]
        );
    }
    assert_eq!(
        Refusal::MissingComponent { component: "Tile" }.to_string(),
        "it has no Tile component, so it cannot move"
    );
    let arrivals = run(&mut app, 10.0);
    assert_eq!(arrivals.len(), 1);
    assert_eq!(
        (arrivals[0].unit, arrivals[0].tile),
        (knight, Pos::new(6, 1))
    );
}

#[test]
fn a_unit_of_a_class_the_navigation_lacks_moves_as_the_first_class() {
    // One class, walked at 4 tiles a second; the unit claims class 5.
    let mut app = new_app(field(8, 1));
    let stray = spawn(&mut app, MovementClass(5), (0, 0));
    order(&mut app, &[stray], (4, 0));
    let arrivals = run(&mut app, 10.0);
    assert_eq!(arrivals.len(), 1, "it is warned of, and walks");
    assert_eq!(arrivals[0].tile, Pos::new(4, 0));
    // Four tiles at the first class's speed: a second.
    assert!(
        (arrivals[0].seconds - 1.0).abs() < 1e-6,
        "{}",
        arrivals[0].seconds
    );
}

#[test]
fn refusals_read_without_the_hosts_names_and_are_errors() {
    let nav = field(3, 3);
    let refusals = [
        (
            Refusal::OutsideMap {
                goal: Pos::new(9, 9),
            },
            "(9,9) is outside the map",
            "knight: (9,9) is outside the map",
        ),
        (
            Refusal::Impassable {
                goal: Pos::new(1, 1),
                class: MovementClass(0),
            },
            "(1,1) is impassable for class 0",
            "knight: (1,1) is impassable for foot",
        ),
        (
            Refusal::AlreadyMoved,
            "the unit has already moved this turn",
            "knight has already moved this turn",
        ),
        (
            Refusal::OutOfRange { to: Pos::new(2, 0) },
            "(2,0) is out of the unit's range",
            "(2,0) is out of knight's range",
        ),
    ];
    for (refusal, plain, labelled) in refusals {
        assert_eq!(refusal.to_string(), plain);
        assert_eq!(refusal.message("knight", &nav), labelled);
        let error: Box<dyn std::error::Error> = Box::new(refusal);
        assert_eq!(error.to_string(), plain);
    }
}

#[test]
fn a_uniform_navigation_is_one_open_class_and_refuses_a_bad_speed() {
    let nav = field(5, 2);
    assert_eq!(nav.classes(), [ClassSpec::new("foot", 4.0)]);
    assert!(
        nav.cells()
            .all(|p| nav.grid(MovementClass(0)).cost(p) == Some(1.0))
    );
    assert_eq!((nav.width(), nav.height()), (5, 2));
    assert!(matches!(
        Navigation::uniform(Board::default(), 5, 2, ClassSpec::new("foot", 0.0)),
        Err(bevy_tilewalk::NavigationError::Speed { .. })
    ));
}

#[test]
fn the_enemy_turn_waits_while_the_host_holds_it_for_a_show() {
    let mut app = tactics_app(field(8, 1));
    app.insert_resource(TacticsRules {
        movement_points: PerClass::from([("foot", 2.0)]),
        ..default()
    });
    let knight = spawn(&mut app, MovementClass(0), (0, 0));
    let orc = spawn(&mut app, MovementClass(0), (7, 0));
    app.world_mut().entity_mut(orc).insert(Team::RED);
    app.update();
    // The host shows something (a move drawn step by step): the enemy's turn starts but its
    // units wait.
    app.insert_resource(HoldEnemyTurn(true));
    app.world_mut().write_message(EndTurn);
    for _ in 0..60 {
        app.update();
    }
    assert_eq!(app.world().resource::<Turn>().team, Team::RED);
    assert_eq!(
        tile_of(&app, orc),
        Pos::new(7, 0),
        "the orc waits for the show"
    );
    // The show ends: the orc closes in by its two points, and the turn is blue's again.
    app.insert_resource(HoldEnemyTurn(false));
    for _ in 0..10 {
        app.update();
    }
    assert_eq!(tile_of(&app, orc), Pos::new(5, 0));
    let turn = app.world().resource::<Turn>();
    assert_eq!((turn.number, turn.team), (2, Team::BLUE));
    assert_eq!(tile_of(&app, knight), Pos::new(0, 0));
}

#[test]
fn a_unit_with_record_search_keeps_its_searched_cells_and_the_others_do_not() {
    let mut app = new_app(field(12, 5));
    let watched = spawn(&mut app, MovementClass(0), (0, 0));
    let other = spawn(&mut app, MovementClass(0), (0, 4));
    app.world_mut().entity_mut(watched).insert(RecordSearch);
    order(&mut app, &[watched], (11, 0));
    order(&mut app, &[other], (11, 4));
    app.update();
    let searches = app.world().resource::<Searches>();
    let expansions = |unit| {
        let record = searches.0.iter().find(|r| r.unit == Some(unit)).unwrap();
        assert!(record.found && record.expanded > 0);
        record.expansions.len()
    };
    let (kept, dropped) = (expansions(watched), expansions(other));
    assert!(kept > 0, "the watched unit's search keeps its cells");
    assert_eq!(
        dropped, 0,
        "the other's keeps none while RecordSearches is off"
    );
}
