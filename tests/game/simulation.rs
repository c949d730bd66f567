//! Orders, paths and movement in a headless app with a fixed time step.

use bevy_tilewalk::{MAX_REPLANS, MovementClass, Navigation, Refusal, UnreachableGoals};
use tilewalk::convert::step_length;
use tilewalk::journal::Entry;
use tilewalk::level::Level;
use tilewalk_path::{Algorithm, NoPath, Pos, SearchOptions, find_path};

use super::*;

const FIELD: &str = "\
[terrain]
..........
..,,,,,...
..,,,,,...
....=====.
..........
[units]
knight  blue foot  0,1
lancer  blue horse 0,3
griffin blue flyer 0,4
";

/// What walking `cells` costs `class` on `nav`, checking that each step goes to a passable
/// neighbour.
fn walked_cost(nav: &Navigation, class: MovementClass, cells: &[Pos]) -> f64 {
    let grid = nav.grid(class);
    cells
        .windows(2)
        .map(|step| {
            let (from, to) = (step[0], step[1]);
            assert!(
                nav.board()
                    .neighbours(from, grid.width(), grid.height())
                    .any(|n| n == to),
                "{from} to {to} is not a step"
            );
            let cost = grid
                .cost(to)
                .unwrap_or_else(|| panic!("{to} is impassable"));
            cost * step_length(nav.board(), from, to)
        })
        .sum()
}

#[test]
fn an_order_stores_the_cores_path_for_the_units_class() {
    let mut app = app(FIELD);
    order(&mut app, &["knight"], Pos::new(8, 1), false);
    order(&mut app, &["lancer"], Pos::new(8, 2), false);
    app.update();
    let level = nav(&app).clone();
    for (name, class, from, to) in [
        ("knight", FOOT, Pos::new(0, 1), Pos::new(8, 1)),
        ("lancer", HORSE, Pos::new(0, 3), Pos::new(8, 2)),
    ] {
        let stored = path(&mut app, name).expect("an order gives a path");
        let core = find_path(level.grid(class), from, to, &SearchOptions::default()).unwrap();
        // The group planner may break a tie between cheapest paths another way than A*.
        assert_eq!(stored.cells.first(), Some(&from), "{name}");
        assert_eq!(stored.goal(), to, "{name}");
        assert!(
            (walked_cost(&level, class, &stored.cells) - core.path.cost).abs() < 1e-9,
            "{name}: {:?}",
            stored.cells
        );
        assert!((stored.cost - core.path.cost).abs() < 1e-9, "{name}");
    }
    // The knight avoids the mud (3 per tile): over it the straight line would cost 2 + 5·3 + 1 = 18.
    let knight = path(&mut app, "knight").unwrap();
    assert!(
        knight
            .cells
            .iter()
            .all(|p| !(2..=6).contains(&p.x) || p.y == 0 || p.y >= 3),
        "{:?}",
        knight.cells
    );
    assert!(
        (knight.cost - (6.0 + 2.0 * std::f64::consts::SQRT_2)).abs() < 1e-9,
        "{}",
        knight.cost
    );
}

#[test]
fn a_unit_arrives_on_its_goal_when_the_cost_model_says() {
    let mut app = app(FIELD);
    order(&mut app, &["griffin"], Pos::new(9, 4), false);
    run_until_idle(&mut app, 30.0);
    assert_eq!(tile(&mut app, "griffin"), Pos::new(9, 4));
    let (at, seconds) = arrival(&app, "griffin").expect("it arrived");
    assert_eq!(at, Pos::new(9, 4));
    // Nine grass tiles at cost 1 for a flyer.
    assert!((seconds - 9.0 / SPEED).abs() < 1e-6, "{seconds}");
    assert!(path(&mut app, "griffin").is_none(), "the path is done");
}

#[test]
fn crossing_mud_takes_three_times_as_long_as_grass() {
    let mut app = app("\
[terrain]
.....
#####
.,,,,
[units]
dry  blue foot 0,0
wet  blue foot 0,2
");
    order(&mut app, &["dry"], Pos::new(4, 0), false);
    order(&mut app, &["wet"], Pos::new(4, 2), false);
    run_until_idle(&mut app, 30.0);
    let (_, dry) = arrival(&app, "dry").unwrap();
    let (_, wet) = arrival(&app, "wet").unwrap();
    assert!((dry - 4.0 / SPEED).abs() < 1e-6, "{dry}");
    assert!(
        (wet / dry - 3.0).abs() < 1e-6,
        "mud costs 3, grass 1: {wet} vs {dry}"
    );
}

#[test]
fn off_map_impassable_and_unreachable_goals_give_no_path_and_say_why() {
    let mut app = app("\
[terrain]
...#...
...#.#.
...#.#~
[units]
knight blue foot  0,0
lancer blue horse 0,1
");
    // The game sends such units as near as they can get; one that wants refusals says so.
    app.insert_resource(UnreachableGoals::Refuse);
    order(&mut app, &["knight"], Pos::new(3, 1), false);
    order(&mut app, &["knight"], Pos::new(4, 1), false);
    order(&mut app, &["lancer"], Pos::new(6, 2), false);
    order(&mut app, &["lancer"], Pos::new(7, 0), false);
    app.update();
    assert!(path(&mut app, "knight").is_none());
    assert!(path(&mut app, "lancer").is_none());
    let (reasons, messages): (Vec<Refusal>, Vec<String>) = refused(&app).into_iter().unzip();
    assert_eq!(
        reasons,
        [
            Refusal::Impassable {
                goal: Pos::new(3, 1),
                class: FOOT
            },
            Refusal::Unreachable {
                goal: Pos::new(4, 1),
                why: NoPath::DifferentRegions
            },
            Refusal::Impassable {
                goal: Pos::new(6, 2),
                class: HORSE
            },
            Refusal::OutsideMap {
                goal: Pos::new(7, 0),
            },
        ]
    );
    assert_eq!(
        messages,
        [
            "knight: rock at (3,1) is impassable for foot",
            "knight: (4,1) cannot be reached: start and goal are in different regions",
            "lancer: water at (6,2) is impassable for horse",
            "lancer: (7,0) is outside the map",
        ]
    );
    app.update();
    assert_eq!(
        tile(&mut app, "knight"),
        Pos::new(0, 0),
        "a refused unit stays"
    );
}

#[test]
fn impassable_and_unreachable_goals_send_units_as_near_as_they_can_get() {
    // The same map as above, in the game's default: the rock column at x = 3 walls the two
    // units in, so each stops on the tile of its side nearest its goal, and says why.
    let mut app = app("\
[terrain]
...#...
...#.#.
...#.#~
[units]
knight blue foot  0,0
lancer blue horse 0,1
");
    order(&mut app, &["knight"], Pos::new(4, 1), false);
    order(&mut app, &["lancer"], Pos::new(6, 2), false);
    run_until_idle(&mut app, 30.0);
    assert!(refused(&app).is_empty());
    let short_of = |name: &str| {
        journal(&app).into_iter().find_map(|e| match e {
            Entry::Arrived {
                unit,
                tile,
                short_of,
                ..
            } if unit == name => Some((tile, short_of)),
            _ => None,
        })
    };
    assert_eq!(
        short_of("knight"),
        Some((
            Pos::new(2, 1),
            Some((
                Pos::new(4, 1),
                "knight: (4,1) cannot be reached: start and goal are in different regions".into()
            ))
        ))
    );
    assert_eq!(
        short_of("lancer"),
        Some((
            Pos::new(2, 2),
            Some((
                Pos::new(6, 2),
                "lancer: water at (6,2) is impassable for horse".into()
            ))
        ))
    );
}

#[test]
fn a_group_order_ends_on_distinct_tiles_near_the_goal() {
    let mut app = app("\
[terrain]
........
........
........
........
[units]
a blue foot  0,0
b blue horse 0,1
c blue flyer 0,2
d blue foot  0,3
");
    order(&mut app, &["a", "b", "c", "d"], Pos::new(6, 1), false);
    run_until_idle(&mut app, 30.0);
    let tiles: Vec<Pos> = ["a", "b", "c", "d"]
        .iter()
        .map(|n| tile(&mut app, n))
        .collect();
    let distinct: std::collections::HashSet<Pos> = tiles.iter().copied().collect();
    assert_eq!(distinct.len(), 4, "{tiles:?}");
    // Classes pick in order (foot, horse, flyer), each the free tiles of least travel cost,
    // ties first by row: foot gets the click and (6,0), one grass step above it; the horse
    // (5,1), the first of the three left at one step; the flyer (7,1), the next. Among the
    // foot units the farther, d (4 straight steps and 2 diagonal ones from the click), takes
    // the tile nearest it, the click, and a gets (6,0).
    assert_eq!(
        tiles,
        [
            Pos::new(6, 0),
            Pos::new(5, 1),
            Pos::new(7, 1),
            Pos::new(6, 1)
        ]
    );
    for t in &tiles {
        assert!(
            t.x.abs_diff(6) <= 1 && t.y.abs_diff(1) <= 1,
            "{t} is next to the goal"
        );
    }
    // Every unit arrived and none was refused. (A foot unit that arrived first may take over
    // the other's walk, and arrive again.)
    let entries = journal(&app);
    assert!(
        entries.iter().all(|e| matches!(e, Entry::Arrived { .. })),
        "{entries:?}"
    );
    for name in ["a", "b", "c", "d"] {
        assert!(arrival(&app, name).is_some(), "{name} arrived");
    }
}

#[test]
fn a_group_order_takes_the_free_tiles_nearest_by_travel_cost_on_cheapest_paths() {
    // Mud, forest, a pond (impassable for horses) and a wall of rock around the click at
    // (5,4); red units hold two tiles next to it.
    let mut app = app("\
[terrain]
............
..ff,,,.....
..ff,~~~....
....#~~~=...
....#.......
..,,#..ff...
....#.......
............
[units]
f1 blue foot  0,0
f2 blue foot  0,2
f3 blue foot  0,4
f4 blue foot  0,6
f5 blue foot  11,7
h1 blue horse 0,1
h2 blue horse 0,7
h3 blue horse 11,0
r1 red  foot  6,4
r2 red  foot  5,5
");
    let blue = ["f1", "f2", "f3", "f4", "f5", "h1", "h2", "h3"];
    let click = Pos::new(5, 4);
    let starts: Vec<Pos> = blue.iter().map(|n| tile(&mut app, n)).collect();
    order(&mut app, &blue, click, false);
    app.update();
    let level = nav(&app).clone();
    let dijkstra = SearchOptions {
        algorithm: Algorithm::Dijkstra,
        ..SearchOptions::on(level.board())
    };
    let cheapest = |class: MovementClass, from: Pos, to: Pos| {
        find_path(level.grid(class), from, to, &dijkstra).map(|f| f.path.cost)
    };
    let mut taken: Vec<Pos> = vec![Pos::new(6, 4), Pos::new(5, 5)];
    // Classes pick in order: foot first, then horse from the tiles foot left.
    for (class, units) in [(FOOT, 0..5), (HORSE, 5..8)] {
        // The free tiles' travel costs, each by its own search to the click: the tiles of
        // the class must cost what the cheapest of them cost.
        let mut free: Vec<f64> = level
            .grid(class)
            .cells()
            .filter(|p| !taken.contains(p))
            .filter_map(|p| cheapest(class, p, click).ok())
            .collect();
        free.sort_by(f64::total_cmp);
        let mut costs = Vec::new();
        for (name, start) in blue[units.clone()].iter().zip(&starts[units.clone()]) {
            let planned = path(&mut app, name).unwrap_or_else(|| panic!("{name} has a path"));
            let goal = planned.goal();
            assert_eq!(planned.cells[0], *start, "{name}");
            assert!(!taken.contains(&goal), "{name}: {goal} is taken");
            taken.push(goal);
            let best = cheapest(class, *start, goal).unwrap();
            assert!(
                (planned.cost - best).abs() < 1e-9,
                "{name}: {} to {goal}, the cheapest is {best}",
                planned.cost
            );
            assert!((walked_cost(&level, class, &planned.cells) - best).abs() < 1e-9);
            costs.push(cheapest(class, goal, click).unwrap());
        }
        costs.sort_by(f64::total_cmp);
        assert_eq!(costs, free[..units.len()], "{class:?}");
    }
}

#[test]
fn shift_orders_append_waypoints() {
    let mut app = app(FIELD);
    order(&mut app, &["griffin"], Pos::new(4, 4), false);
    order(&mut app, &["griffin"], Pos::new(4, 0), true);
    app.update();
    let planned = path(&mut app, "griffin").unwrap();
    assert_eq!(planned.cells[planned.waypoints[0]], Pos::new(4, 4));
    assert_eq!(planned.goal(), Pos::new(4, 0));
    assert_eq!(planned.cost, 8.0);
    run_until_idle(&mut app, 30.0);
    assert_eq!(tile(&mut app, "griffin"), Pos::new(4, 0));
}

#[test]
fn a_blocked_unit_waits_replans_around_and_never_deadlocks() {
    // `idle` blocks the short way along the middle row; `walker` goes around it.
    let mut app = app("\
[terrain]
.......
.......
.......
[units]
walker blue foot 0,1
idle   red  foot 3,1
");
    order(&mut app, &["walker"], Pos::new(6, 1), false);
    run_until_idle(&mut app, 30.0);
    assert_eq!(tile(&mut app, "walker"), Pos::new(6, 1));
    assert_eq!(tile(&mut app, "idle"), Pos::new(3, 1));

    // In a one-tile corridor there is no way around: `idle` walls the walker in, so it makes
    // way (onto the walker's tile and back), and the walker goes on.
    let corridor = |terrain: &str, idle: &str| {
        let mut app = super::app(&format!(
            "[terrain]\n{terrain}\n[units]\nwalker blue foot 0,0\nidle red {idle} 3,0\n"
        ));
        order(&mut app, &["walker"], Pos::new(6, 0), false);
        run_until_idle(&mut app, 30.0);
        app
    };
    let mut app = corridor(".......", "foot");
    assert_eq!(tile(&mut app, "walker"), Pos::new(6, 0));
    assert_eq!(tile(&mut app, "idle"), Pos::new(3, 0));
    assert_eq!(arrival(&app, "walker").map(|a| a.0), Some(Pos::new(6, 0)));

    // A horse beyond a ford can make way for nobody (it can stand neither beside its tile nor
    // in the water): a bounded number of retries, then the walker stops.
    let mut app = corridor("..~....", "horse");
    assert_eq!(tile(&mut app, "walker"), Pos::new(2, 0));
    assert_eq!(tile(&mut app, "idle"), Pos::new(3, 0));
    assert!(
        journal(&app).iter().any(|e| matches!(
            e,
            Entry::Refused {
                reason: Refusal::NoWayOn { .. } | Refusal::GaveUp { .. },
                ..
            }
        )),
        "{:?}",
        journal(&app)
    );
}

#[test]
fn a_walker_that_gets_nearer_its_goal_has_its_replans_again() {
    // `idle`, a horse beyond a ford, blocks a one-tile corridor and can make way for nobody
    // (it can stand neither beside its tile nor in the water): the walker's re-plans find no
    // way around. Then `idle` is sent on, and the walker follows it to its goal, on which
    // `guard` rests. The walk got nearer its goal since those re-plans, so it re-plans once
    // more, to the nearest free tile. (With the three re-plans of the whole order spent in
    // the corridor, it gave up one tile short of its goal.)
    let mut app = app("\
[terrain]
#####....
..~......
#####....
[units]
walker blue foot  0,1
idle   red  horse 3,1
guard  red  foot  8,1
");
    order(&mut app, &["walker"], Pos::new(8, 1), false);
    for frame in 0.. {
        assert!(frame < 600, "the walker never re-planned three times");
        app.update();
        let walker = unit(&mut app, "walker");
        if app
            .world()
            .get::<bevy_tilewalk::Walk>(walker)
            .is_some_and(|w| w.replans() == MAX_REPLANS)
        {
            break;
        }
    }
    assert_eq!(tile(&mut app, "walker"), Pos::new(2, 1));
    order(&mut app, &["idle"], Pos::new(6, 0), false);
    run_until_idle(&mut app, 30.0);
    assert_eq!(tile(&mut app, "idle"), Pos::new(6, 0));
    assert_eq!(tile(&mut app, "guard"), Pos::new(8, 1));
    // Of the tiles next to (8,1), (8,0) is the first by row.
    assert_eq!(arrival(&app, "walker").map(|a| a.0), Some(Pos::new(8, 0)));
    assert_eq!(tile(&mut app, "walker"), Pos::new(8, 0));
}

#[test]
fn the_same_orders_replay_identically() {
    let run = || {
        let mut app = app(include_str!("../../assets/maps/meadow.map"));
        order(
            &mut app,
            &["knight", "archer", "lancer", "griffin"],
            Pos::new(28, 7),
            false,
        );
        run_until_idle(&mut app, 120.0);
        journal(&app)
    };
    let first = run();
    assert_eq!(first.len(), 4);
    assert_eq!(first, run());
}

#[test]
fn crowded_orders_replay_identically() {
    // Two armies crossing each other on the large map: units wait, re-plan around each other
    // and contest tiles, and every run must settle those contests the same way.
    let run = || {
        let mut app = app(include_str!("../../assets/maps/large.map"));
        for (name, goal) in [
            ("knight", Pos::new(150, 60)),
            ("lancer", Pos::new(150, 61)),
            ("griffin", Pos::new(150, 62)),
            ("brute", Pos::new(5, 60)),
            ("raider", Pos::new(5, 61)),
            ("wyvern", Pos::new(5, 62)),
        ] {
            order(&mut app, &[name], goal, false);
        }
        run_until_idle(&mut app, 200.0);
        journal(&app)
    };
    let first = run();
    assert_eq!(first.len(), 6);
    for _ in 0..3 {
        assert_eq!(first, run());
    }
}

#[test]
fn a_cost_decrease_off_the_path_replans_onto_the_cheaper_route() {
    // The archer swings north around the mud field (3 per tile on foot) to (18,2). A second
    // after the order the designer makes mud cost 0.5: the line through the mud is now the
    // cheapest, though the old path crosses no changed tile.
    let meadow = include_str!("../../assets/maps/meadow.map");
    let cheap_mud =
        tilewalk::terrain::TerrainTable::parse(&include_str!("../../assets/terrain.ron").replace(
            r#"(name: "mud", glyphs: ",S", tile: 4, cost: {"foot": 3.0,"#,
            r#"(name: "mud", glyphs: ",S", tile: 4, cost: {"foot": 0.5,"#,
        ))
        .unwrap();
    let goal = Pos::new(18, 2);
    let walk = |edit: bool| {
        let mut app = app(meadow);
        order(&mut app, &["archer"], goal, false);
        while app.world().resource::<Time>().elapsed_secs_f64() < 1.0 {
            app.update();
        }
        let expected = edit.then(|| {
            let map = tilewalk::map::MapAsset::parse(meadow).unwrap();
            let (_, new) = Level::build(&map, &cheap_mud).unwrap();
            let from = tile(&mut app, "archer");
            let entity = unit(&mut app, "archer");
            let stride = app
                .world()
                .get::<bevy_tilewalk::Motion>(entity)
                .unwrap()
                .stride;
            let left = stride.map_or(0.0, |s| s.duration - s.elapsed);
            let options = SearchOptions::on(new.board());
            let rest = find_path(new.grid(FOOT), from, goal, &options).unwrap();
            let now = app.world().resource::<Time>().elapsed_secs_f64();
            let change = rebuild(&mut app, meadow, &cheap_mud);
            assert!(change.cheaper.contains(&FOOT));
            now + left + rest.path.cost / SPEED
        });
        run_until_idle(&mut app, 60.0);
        let (at, seconds) = arrival(&app, "archer").unwrap();
        assert_eq!(at, goal);
        (seconds, expected)
    };
    let (unedited, _) = walk(false);
    let (edited, expected) = walk(true);
    assert!(edited < unedited - 1.0, "{edited} vs {unedited}");
    let expected = expected.unwrap();
    assert!(
        (edited - expected).abs() < 1e-6,
        "{edited} vs the optimum {expected}"
    );
}

#[test]
fn a_unit_on_terrain_made_impassable_steps_off_and_says_so() {
    // The knight stands on a field that turns to rock under it; ordered on, it first steps
    // onto the neighbour that makes its way cheapest, and the journal says so.
    let mut app = app("[terrain]\n......\n......\n......\n[units]\nknight blue foot 1,1\n");
    rebuild(&mut app, "[terrain]\n......\n.#....\n......\n", &table());
    order(&mut app, &["knight"], Pos::new(5, 1), false);
    run_until_idle(&mut app, 30.0);
    assert_eq!(tile(&mut app, "knight"), Pos::new(5, 1));
    let entries = journal(&app);
    assert!(
        matches!(
            &entries[..],
            [
                Entry::SteppingOff { from, onto, terrain, .. },
                Entry::Arrived { .. },
            ] if *from == Pos::new(1, 1) && *onto == Pos::new(2, 1) && terrain == "rock"
        ),
        "{entries:?}"
    );
    // In a group, the group planner takes the units on passable ground (the archer gets the
    // click); the knight steps off as before, to the free tile nearest the click in a straight
    // line that the archer left (ties by row: (5,0) before (4,1) and (5,2)).
    let mut app = super::app(
        "[terrain]\n......\n......\n......\n[units]\nknight blue foot 1,1\narcher blue foot 0,2\n",
    );
    rebuild(&mut app, "[terrain]\n......\n.#....\n......\n", &table());
    order(&mut app, &["knight", "archer"], Pos::new(5, 1), false);
    run_until_idle(&mut app, 30.0);
    assert_eq!(tile(&mut app, "archer"), Pos::new(5, 1));
    assert_eq!(tile(&mut app, "knight"), Pos::new(5, 0));
    let entries = journal(&app);
    assert!(
        entries.iter().any(|e| matches!(
            e,
            Entry::SteppingOff { from, .. } if *from == Pos::new(1, 1)
        )),
        "{entries:?}"
    );
    // Boxed in by rock, it cannot leave, and the refusal says why.
    let mut boxed = super::app("[terrain]\n###..\n#.#..\n###..\n[units]\nknight blue foot 1,1\n");
    rebuild(&mut boxed, "[terrain]\n###..\n###..\n###..\n", &table());
    order(&mut boxed, &["knight"], Pos::new(4, 1), false);
    boxed.update();
    assert!(matches!(
        &journal(&boxed)[..],
        [Entry::Refused {
            reason: Refusal::StandsOnImpassable { .. },
            ..
        }]
    ));
}
