//! Several maps in one world: entities with a `MapNavigation`, units `OnMap` them. Each unit
//! gets its own map's cheapest path (checked against the core's Dijkstra), walks through
//! the units of other maps as if they were not there, is re-planned by its own map's changes
//! only, and is placed by its own map's layout; an order across maps is planned on each.

use bevy::prelude::*;
use bevy_tilewalk::path::{Board, Diagonal};
use bevy_tilewalk::prelude::*;
use bevy_tilewalk::tactics::{Mind, PerClass, Strike, Struck, TacticsRules, with_board};
use bevy_tilewalk::{MapUnits, Refusal, Walk};

use super::{dijkstra, field, new_app, order, refusals, run, spawn, tactics_app, walked};

/// A unit of `class` at `at` on `map`.
fn spawn_on(app: &mut App, map: Entity, class: MovementClass, at: (u32, u32)) -> Entity {
    let unit = spawn(app, class, at);
    app.world_mut().entity_mut(unit).insert(OnMap(map));
    unit
}

/// A map entity holding `nav`.
fn map(app: &mut App, nav: Navigation) -> Entity {
    app.world_mut().spawn(MapNavigation(nav)).id()
}

/// 12x8 on an 8-way board: a band of woods (cost 4) at columns 4 to 6 but for a pass at
/// row 7, walked at 3 tiles a second.
fn woods() -> Navigation {
    let classes = vec![ClassSpec::new("foot", 3.0)];
    Navigation::from_fn(Board::default(), 12, 8, classes, |_, p| {
        Some(if (4..=6).contains(&p.x) && p.y != 7 {
            4.0
        } else {
            1.0
        })
    })
    .unwrap()
}

/// 9x5 on a 4-way board: a wall at column 4 but for a gap at row 0 and a marsh (cost 2)
/// at row 1, walked at 2 tiles a second.
fn walled() -> Navigation {
    let classes = vec![ClassSpec::new("foot", 2.0)];
    Navigation::from_fn(
        Board::Square(Diagonal::Never),
        9,
        5,
        classes,
        |_, p| match (p.x, p.y) {
            (4, 0) => Some(1.0),
            (4, _) => None,
            (_, 1) => Some(2.0),
            _ => Some(1.0),
        },
    )
    .unwrap()
}

/// An app with no `Navigation` resource and two maps on entities, `woods` and `walled`,
/// a foot soldier on (0, 2) of each: the maps and the units, in that order.
fn two_maps() -> (App, [Entity; 2], [Entity; 2]) {
    let mut app = new_app(field(1, 1));
    app.world_mut().remove_resource::<Navigation>();
    let maps = [map(&mut app, woods()), map(&mut app, walled())];
    let units = maps.map(|on| spawn_on(&mut app, on, MovementClass(0), (0, 2)));
    (app, maps, units)
}

/// The cheapest cost of a foot soldier's way from (0, 2) to (8, 2) on `nav`, by the
/// core's Dijkstra.
fn across(nav: &Navigation) -> f64 {
    let foot = MovementClass(0);
    dijkstra(nav.grid(foot), nav.board(), Pos::new(0, 2), Pos::new(8, 2)).unwrap()
}

/// Where `unit` stands.
fn tile(app: &App, unit: Entity) -> Pos {
    app.world().get::<Tile>(unit).unwrap().0
}

#[test]
fn units_on_two_maps_walk_the_cheapest_paths_of_their_own_map_through_each_other() {
    // No `Navigation` resource: two maps on entities only. Both units on (0, 2), both sent
    // to (8, 2): on one map they would share the tiles of the way.
    let (mut app, [_, walled_map], [a, b]) = two_maps();
    let foot = MovementClass(0);
    order(&mut app, &[a], (8, 2));
    order(&mut app, &[b], (8, 2));
    app.update();
    let arrivals = run(&mut app, 30.0);
    for (unit, nav) in [(a, woods()), (b, walled())] {
        let arrival = arrivals
            .iter()
            .find(|x| x.unit == unit)
            .expect("it arrives");
        assert_eq!(arrival.tile, Pos::new(8, 2));
        // Nobody slowed it down: it took its map's cheapest cost over its speed.
        let expected = across(&nav) / nav.speed(foot);
        assert!(
            (arrival.seconds - expected).abs() < 1e-9,
            "{unit}: {} vs {expected}",
            arrival.seconds
        );
    }
    // The two maps' cheapest ways differ: each unit walked its own map's.
    let (woods_best, walled_best) = (across(&woods()), across(&walled()));
    assert!(
        (woods_best - walled_best).abs() > 0.1,
        "{woods_best} {walled_best}"
    );
    assert_eq!(
        app.world().get::<MapUnits>(walled_map).map(|u| u.len()),
        Some(1)
    );
}

#[test]
fn one_order_over_two_maps_gives_each_unit_its_own_maps_cheapest_path_to_the_tile() {
    let (mut app, _, [a, b]) = two_maps();
    let foot = MovementClass(0);
    order(&mut app, &[a, b], (8, 2));
    app.update();
    for (unit, nav) in [(a, woods()), (b, walled())] {
        let path = app.world().get::<Path>(unit).expect("a path").clone();
        let (grid, board) = (nav.grid(foot), nav.board());
        let best = across(&nav);
        assert!(
            (path.cost - best).abs() < 1e-9,
            "{}: {} vs {best}",
            unit,
            path.cost
        );
        assert!((walked(grid, board, &path.cells) - best).abs() < 1e-9);
        assert!(path.cells.iter().all(|&p| grid.is_passable(p)));
        // One order over two maps: each unit is alone on its own, and gets the clicked tile.
        assert_eq!(path.goal(), Pos::new(8, 2));
    }
    // The walled map's way goes through its gap at (4, 0).
    let path = app.world().get::<Path>(b).unwrap();
    assert!(path.cells.contains(&Pos::new(4, 0)), "{:?}", path.cells);
}

/// A 9x1 corridor: with the five red units at rest on it, a blue walker on the same map
/// could not pass (they do not make way for another side, and there is no way around).
fn corridor() -> Navigation {
    Navigation::uniform(
        Board::Square(Diagonal::Never),
        9,
        1,
        ClassSpec::new("foot", 4.0),
    )
    .unwrap()
}

#[test]
fn a_crowd_on_one_map_does_not_stop_a_unit_on_another() {
    let mut app = new_app(corridor());
    let other = map(&mut app, corridor());
    let foot = MovementClass(0);
    // The crowd: red units at rest on the default map, at columns 2 to 6.
    let crowd: Vec<Entity> = (2..=6)
        .map(|x| {
            let unit = spawn(&mut app, foot, (x, 0));
            app.world_mut().entity_mut(unit).insert(Team::RED);
            unit
        })
        .collect();
    let walker = spawn_on(&mut app, other, foot, (0, 0));
    order(&mut app, &[walker], (8, 0));
    app.update();
    let arrivals = run(&mut app, 10.0);
    assert_eq!(arrivals.len(), 1, "{arrivals:?}");
    assert_eq!(arrivals[0].tile, Pos::new(8, 0));
    // Eight tiles at 4 a second, never held up.
    assert!((arrivals[0].seconds - 2.0).abs() < 1e-9, "{arrivals:?}");
    assert_eq!(app.world().get::<Walk>(walker).unwrap().replans(), 0);
    for (x, unit) in (2..=6).zip(&crowd) {
        assert_eq!(tile(&app, *unit), Pos::new(x, 0), "the crowd stayed");
    }
    assert!(refusals(&mut app).is_empty());
}

#[test]
fn units_on_two_maps_on_the_same_tiles_head_on_do_not_meet() {
    let mut app = new_app(corridor());
    let other = map(&mut app, corridor());
    let foot = MovementClass(0);
    // Head-on in a one-tile corridor: on one map, one would have to give way.
    let east = spawn(&mut app, foot, (0, 0));
    let west = spawn_on(&mut app, other, foot, (8, 0));
    app.world_mut().entity_mut(west).insert(Team::RED);
    order(&mut app, &[east], (8, 0));
    order(&mut app, &[west], (0, 0));
    app.update();
    let arrivals = run(&mut app, 10.0);
    assert_eq!(arrivals.len(), 2, "{arrivals:?}");
    for arrival in &arrivals {
        assert!((arrival.seconds - 2.0).abs() < 1e-9, "{arrivals:?}");
    }
    assert_eq!(tile(&app, east), Pos::new(8, 0));
    assert_eq!(tile(&app, west), Pos::new(0, 0));
}

#[test]
fn an_order_across_maps_is_one_order_a_map_to_the_same_tile() {
    let mut app = new_app(field(8, 4));
    let other = map(&mut app, field(8, 4));
    let foot = MovementClass(0);
    let home = [spawn(&mut app, foot, (0, 0)), spawn(&mut app, foot, (0, 1))];
    let away = [
        spawn_on(&mut app, other, foot, (0, 0)),
        spawn_on(&mut app, other, foot, (0, 1)),
    ];
    let third = map(&mut app, field(8, 4));
    let alone = spawn_on(&mut app, third, foot, (0, 3));
    let all: Vec<Entity> = home.iter().chain(&away).copied().chain([alone]).collect();
    order(&mut app, &all, (6, 2));
    app.update();
    let arrivals = run(&mut app, 10.0);
    assert_eq!(arrivals.len(), 5, "{arrivals:?}");
    // Each map's pair is a group order of its own: on distinct tiles, the clicked tile
    // taken on both maps (one order over all four would have sent them to four tiles).
    for pair in [home, away] {
        let tiles = pair.map(|u| tile(&app, u));
        assert_ne!(tiles[0], tiles[1]);
        assert!(tiles.contains(&Pos::new(6, 2)), "{tiles:?}");
    }
    // Alone on its map, the third map's unit gets the clicked tile too.
    assert_eq!(tile(&app, alone), Pos::new(6, 2));
    assert!(refusals(&mut app).is_empty());
}

#[test]
fn a_change_on_one_map_replans_its_units_and_leaves_the_other_maps_paths() {
    let open = || {
        Navigation::uniform(
            Board::Square(Diagonal::Never),
            9,
            5,
            ClassSpec::new("foot", 3.0),
        )
        .unwrap()
    };
    let mut app = new_app(open());
    let (first, second) = (map(&mut app, open()), map(&mut app, open()));
    let foot = MovementClass(0);
    let units = [
        spawn(&mut app, foot, (0, 2)),
        spawn_on(&mut app, first, foot, (0, 2)),
        spawn_on(&mut app, second, foot, (0, 2)),
    ];
    for unit in units {
        order(&mut app, &[unit], (8, 2));
    }
    app.update();
    let path = |app: &App, unit: Entity| app.world().get::<Path>(unit).unwrap().clone();
    let before = units.map(|u| path(&app, u));
    assert!(before.iter().all(|p| p.cells.contains(&Pos::new(4, 2))));
    // A wall goes up across the second map's way, but for a gap at the top.
    let wall = Navigation::from_fn(
        Board::Square(Diagonal::Never),
        9,
        5,
        vec![ClassSpec::new("foot", 3.0)],
        |_, p| (p.x != 4 || p.y == 0).then_some(1.0),
    )
    .unwrap();
    let change = {
        let mut nav = app.world_mut().get_mut::<MapNavigation>(second).unwrap();
        nav.0.replace(wall).on_map(second)
    };
    assert_eq!(change.map, Some(second));
    app.world_mut().write_message(change);
    app.update();
    let after = units.map(|u| path(&app, u));
    // The second map's unit goes through the gap; the others keep their paths as planned.
    assert!(
        after[2].cells.contains(&Pos::new(4, 0)),
        "{:?}",
        after[2].cells
    );
    assert!(after[2].remaining().iter().all(|p| p.x != 4 || p.y == 0));
    assert_eq!(after[0].cells, before[0].cells);
    assert_eq!(after[1].cells, before[1].cells);
    let arrivals = run(&mut app, 30.0);
    assert_eq!(arrivals.len(), 3);
    assert!(arrivals.iter().all(|a| a.tile == Pos::new(8, 2)));
}

#[test]
fn a_unit_on_an_entity_without_a_navigation_is_refused_and_the_others_go() {
    let mut app = new_app(field(6, 1));
    let nowhere = app.world_mut().spawn(Name::new("not a map")).id();
    let foot = MovementClass(0);
    let lost = spawn_on(&mut app, nowhere, foot, (0, 0));
    let home = spawn(&mut app, foot, (0, 0));
    order(&mut app, &[lost, home], (5, 0));
    app.update();
    let refused = refusals(&mut app);
    assert!(app.world().get::<Path>(home).is_some());
    assert_eq!(refused.len(), 1, "{refused:?}");
    assert_eq!(refused[0].unit, lost);
    assert_eq!(refused[0].reason, Refusal::NoMapNavigation { map: nowhere });
    assert!(
        refused[0].reason.to_string().contains("no navigation"),
        "{}",
        refused[0].reason
    );
    // Asked again, it is refused again (the warning is given once), and never walks.
    order(&mut app, &[lost], (3, 0));
    app.update();
    assert_eq!(refusals(&mut app).len(), 1);
    let arrivals = run(&mut app, 5.0);
    assert_eq!(arrivals.len(), 1);
    assert_eq!(arrivals[0].unit, home);
    assert_eq!(tile(&app, lost), Pos::new(0, 0));
    assert!(app.world().get::<Path>(lost).is_none());
}

#[test]
fn each_maps_layout_places_its_own_units_and_despawning_a_map_despawns_them() {
    let mut app = new_app(field(4, 4));
    app.world_mut().spawn(TileLayout::square(32.0));
    let other = map(&mut app, field(4, 4));
    app.world_mut()
        .entity_mut(other)
        .insert(TileLayout::square(10.0).with_origin(Vec2::new(500.0, 0.0)));
    let foot = MovementClass(0);
    let home = spawn(&mut app, foot, (2, 1));
    let away = spawn_on(&mut app, other, foot, (2, 1));
    for unit in [home, away] {
        app.world_mut()
            .entity_mut(unit)
            .insert(Transform::default());
    }
    app.update();
    let at = |app: &App, unit: Entity| app.world().get::<Transform>(unit).unwrap().translation;
    assert_eq!(at(&app, home).truncate(), Vec2::new(64.0, 32.0));
    assert_eq!(at(&app, away).truncate(), Vec2::new(520.0, 10.0));
    // A second layout off the maps' entities: the default map's units are placed by none,
    // the map's by its own still.
    app.world_mut().spawn(TileLayout::square(8.0));
    order(&mut app, &[home], (3, 1));
    order(&mut app, &[away], (3, 1));
    run(&mut app, 5.0);
    assert_eq!(at(&app, home).truncate(), Vec2::new(64.0, 32.0));
    assert_eq!(at(&app, away).truncate(), Vec2::new(530.0, 10.0));
    // The map's units go with it.
    app.world_mut().entity_mut(other).despawn();
    assert!(app.world().get_entity(away).is_err());
    assert!(app.world().get_entity(home).is_ok());
    app.update();
}

#[test]
fn tactics_see_the_default_maps_units_only_and_other_maps_walks_do_not_hold_them_up() {
    let mut app = tactics_app(field(6, 3));
    app.insert_resource(TacticsRules {
        ai: Mind::Greedy,
        movement_points: PerClass::from([("foot", 3.0)]),
        hit_points: PerClass::from([("*", 10)]),
        damage: PerClass::from([("foot", 4)]),
        ..default()
    });
    let other = map(&mut app, field(6, 3));
    let foot = MovementClass(0);
    let knight = spawn(&mut app, foot, (0, 1));
    let orc = spawn(&mut app, foot, (1, 1));
    app.world_mut().entity_mut(orc).insert(Team::RED);
    let away = spawn_on(&mut app, other, foot, (0, 1));
    order(&mut app, &[away], (5, 1));
    app.update();
    assert!(
        app.world().get::<Path>(away).is_some(),
        "it walks on its map"
    );
    let pieces = with_board(app.world_mut(), |board, _| {
        board.pieces.iter().map(|p| p.entity).collect::<Vec<_>>()
    })
    .unwrap();
    assert_eq!(pieces, vec![knight, orc]);
    // A strike waits for the walks of its own map only.
    app.world_mut().write_message(Strike::new(knight, orc));
    app.update();
    assert!(refusals(&mut app).is_empty());
    let struck: Vec<Struck> = app
        .world_mut()
        .resource_mut::<Messages<Struck>>()
        .drain()
        .collect();
    assert_eq!(struck.len(), 1, "{struck:?}");
    assert!(app.world().get::<Path>(away).is_some(), "still walking");
}
