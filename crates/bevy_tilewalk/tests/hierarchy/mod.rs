//! Long orders served by a contraction hierarchy ([`LongOrders::Hierarchy`]) on maps below
//! `LANDMARK_CELLS`: a long order's path costs what the core's Dijkstra says, on every board;
//! its search is a hierarchy query (`CCH` in `Searches`) once the class's weights are used,
//! its work counted in the frame's; after `Navigation::replace` the next long orders are
//! exact for the new costs (plain A* until the re-customized weights are used); an order on
//! a map entity uses that map's own hierarchy; an edit during the build is re-customized
//! before the weights are used, and a map of another size gets a hierarchy of its own;
//! without the setting, long orders stay A*.

use bevy::prelude::*;
use bevy_tilewalk::debug::{PathWork, Searches};
use bevy_tilewalk::path::{Board, HexLayout};
use bevy_tilewalk::prelude::*;
use bevy_tilewalk::{LANDMARK_DISTANCE, LANDMARK_FRAMES, LongOrders};

use super::{dijkstra, new_app, order, replace_navigation, spawn};

/// 256 × 24: grass (1) with mud (3) in a scatter, and walls at columns 64, 128 and 192,
/// each with one gap (rows 2, 21 and 5), then `edit` for some cells.
fn walled(
    board: Board,
    edit: impl Fn(Pos) -> Option<Option<f64>> + Send + Sync + 'static,
) -> Navigation {
    let classes = vec![ClassSpec::new("foot", 3.0)];
    Navigation::from_fn(board, 256, 24, classes, move |_, p| {
        if let Some(cost) = edit(p) {
            return cost;
        }
        match (p.x, p.y) {
            (64, y) if y != 2 => None,
            (128, y) if y != 21 => None,
            (192, y) if y != 5 => None,
            (x, y) if (x * 7 + y * 13) % 5 == 0 => Some(3.0),
            _ => Some(1.0),
        }
    })
    .unwrap()
}

/// An app whose long orders are served by the hierarchy.
fn hierarchy_app(nav: Navigation) -> App {
    let mut app = new_app(nav);
    app.insert_resource(LongOrders::Hierarchy);
    app
}

/// A goal on row `y` at the far end of a 256-wide map from where `unit` stands.
fn far(app: &App, unit: Entity, y: u32) -> (u32, u32) {
    let at = app.world().get::<Tile>(unit).unwrap().0;
    (if at.x < 128 { 251 } else { 3 }, y)
}

/// Runs [`LANDMARK_FRAMES`] frames.
fn wait(app: &mut App) {
    for _ in 0..LANDMARK_FRAMES {
        app.update();
    }
}

/// Orders `unit` to `goal` and serves it in one frame: the search's name, and the path's
/// cost checked against Dijkstra on `nav` (the map the unit is on).
fn long_order(app: &mut App, nav: &Navigation, unit: Entity, goal: (u32, u32)) -> &'static str {
    order(app, &[unit], goal);
    app.update();
    let path = app
        .world()
        .get::<Path>(unit)
        .expect("served in its frame")
        .clone();
    let (from, to) = (path.cells[0], path.goal());
    assert_eq!(to, Pos::new(goal.0, goal.1));
    assert!(
        nav.board().distance(from, to) >= LANDMARK_DISTANCE,
        "a long order"
    );
    let best = dijkstra(nav.grid(MovementClass(0)), nav.board(), from, to).unwrap();
    assert!(
        (path.cost - best).abs() < 1e-9 * best,
        "{:?} {from} to {to}: {} vs Dijkstra's {best}",
        nav.board(),
        path.cost
    );
    let searches = &app.world().resource::<Searches>().0;
    let record = searches.back().unwrap();
    assert_eq!(record.unit, Some(unit));
    assert!(record.found);
    record.algorithm
}

#[test]
fn long_orders_by_the_hierarchy_cost_what_dijkstra_says_on_every_board() {
    for board in Board::ALL {
        let nav = walled(board, |_| None);
        let mut app = hierarchy_app(nav.clone());
        let unit = spawn(&mut app, MovementClass(0), (2, 12));
        // The first long order is plain A*, and starts the build; the hierarchy serves from
        // the LANDMARK_FRAMES-th frame on.
        assert_eq!(
            long_order(&mut app, &nav, unit, (250, 12)),
            "A*",
            "{board:?}"
        );
        wait(&mut app);
        let at = app.world().get::<Tile>(unit).unwrap().0;
        let goal = if at.x < 128 { (252, 20) } else { (3, 3) };
        assert_eq!(long_order(&mut app, &nav, unit, goal), "CCH", "{board:?}");
        // The query's work is the frame's work: counted against the budget.
        let record = app.world().resource::<Searches>().0.back().unwrap().clone();
        assert!(record.expanded > 0, "{board:?}");
        assert_eq!(
            app.world().resource::<PathWork>().work,
            record.expanded,
            "{board:?}"
        );
    }
}

#[test]
fn after_a_replace_the_next_long_orders_are_exact_for_the_new_costs() {
    let board = Board::Hex(HexLayout::OddR);
    for board in [Board::default(), board] {
        let nav = walled(board, |_| None);
        let mut app = hierarchy_app(nav.clone());
        let unit = spawn(&mut app, MovementClass(0), (2, 12));
        long_order(&mut app, &nav, unit, (250, 12));
        wait(&mut app);
        assert_eq!(
            long_order(&mut app, &nav, unit, (251, 20)),
            "CCH",
            "{board:?}"
        );
        // A new gap in the middle wall (cheaper: it opens) and the first wall's gap in deep
        // mud (dearer).
        let edited = walled(board, |p| match (p.x, p.y) {
            (128, 12) => Some(Some(1.0)),
            (64, 2) => Some(Some(40.0)),
            _ => None,
        });
        let (from, to) = (Pos::new(2, 12), Pos::new(250, 12));
        let foot = MovementClass(0);
        let before = dijkstra(nav.grid(foot), board, from, to).unwrap();
        let after = dijkstra(edited.grid(foot), board, from, to).unwrap();
        assert!((before - after).abs() > 1.0, "the edit changes the way");
        replace_navigation(&mut app, edited.clone());
        // Until the re-customized weights are used, plain A*; then the hierarchy: both exact
        // for the new costs.
        let at = app.world().get::<Tile>(unit).unwrap().0;
        let goal = if at.x < 128 { (250, 12) } else { (2, 12) };
        assert_eq!(long_order(&mut app, &edited, unit, goal), "A*", "{board:?}");
        wait(&mut app);
        let at = app.world().get::<Tile>(unit).unwrap().0;
        let goal = if at.x < 128 { (251, 13) } else { (2, 13) };
        assert_eq!(
            long_order(&mut app, &edited, unit, goal),
            "CCH",
            "{board:?}"
        );
    }
}

#[test]
fn an_order_on_a_map_entity_uses_that_maps_hierarchy() {
    // The default map is 300 × 20 and the map entity 256 × 24: each unit's hierarchy must be
    // its own map's to serve it (another's does not fit its grid).
    let board = Board::default();
    let own = walled(board, |_| None);
    let classes = vec![ClassSpec::new("foot", 3.0)];
    let other = Navigation::from_fn(board, 300, 20, classes, |_, p| {
        Some(if (p.x + p.y) % 4 == 0 { 2.0 } else { 1.0 })
    })
    .unwrap();
    let mut app = hierarchy_app(other.clone());
    let map = app.world_mut().spawn(MapNavigation(own.clone())).id();
    let on_map = spawn(&mut app, MovementClass(0), (2, 12));
    app.world_mut().entity_mut(on_map).insert(OnMap(map));
    let on_default = spawn(&mut app, MovementClass(0), (2, 2));
    assert_eq!(long_order(&mut app, &own, on_map, (250, 12)), "A*");
    assert_eq!(long_order(&mut app, &other, on_default, (290, 15)), "A*");
    wait(&mut app);
    let at = app.world().get::<Tile>(on_map).unwrap().0;
    let goal = if at.x < 128 { (251, 20) } else { (3, 3) };
    assert_eq!(long_order(&mut app, &own, on_map, goal), "CCH");
    let at = app.world().get::<Tile>(on_default).unwrap().0;
    let goal = if at.x < 150 { (295, 3) } else { (3, 18) };
    assert_eq!(long_order(&mut app, &other, on_default, goal), "CCH");
}

#[test]
fn without_the_setting_long_orders_on_a_small_map_stay_plain_a_star() {
    let nav = walled(Board::default(), |_| None);
    let mut app = new_app(nav.clone());
    assert_eq!(*app.world().resource::<LongOrders>(), LongOrders::Landmarks);
    let unit = spawn(&mut app, MovementClass(0), (2, 12));
    assert_eq!(long_order(&mut app, &nav, unit, (250, 12)), "A*");
    wait(&mut app);
    assert_eq!(long_order(&mut app, &nav, unit, (251, 20)), "A*");
}

#[test]
fn an_edit_during_the_build_and_a_new_size_keep_long_orders_exact() {
    let board = Board::default();
    let nav = walled(board, |_| None);
    let mut app = hierarchy_app(nav.clone());
    let unit = spawn(&mut app, MovementClass(0), (2, 12));
    // The build starts; halfway through it, the middle wall opens at row 12 and the first
    // wall's gap turns to deep mud: the weights it builds are for the old costs, and are
    // re-customized for the edit before they are used.
    long_order(&mut app, &nav, unit, (250, 12));
    for _ in 0..LANDMARK_FRAMES / 2 {
        app.update();
    }
    let edited = walled(board, |p| match (p.x, p.y) {
        (128, 12) => Some(Some(1.0)),
        (64, 2) => Some(Some(40.0)),
        _ => None,
    });
    replace_navigation(&mut app, edited.clone());
    // When the build is used, its weights are re-customized; LANDMARK_FRAMES later they
    // serve, exact for the new costs.
    for _ in 0..LANDMARK_FRAMES {
        app.update();
    }
    let goal = far(&app, unit, 12);
    assert_eq!(long_order(&mut app, &edited, unit, goal), "A*");
    wait(&mut app);
    let goal = far(&app, unit, 14);
    assert_eq!(long_order(&mut app, &edited, unit, goal), "CCH");
    // A map of another size: the hierarchy is dropped, and the next long order builds one
    // for the new map.
    let wider = Navigation::from_fn(board, 300, 24, vec![ClassSpec::new("foot", 3.0)], |_, p| {
        Some(if p.y % 3 == 0 { 2.0 } else { 1.0 })
    })
    .unwrap();
    replace_navigation(&mut app, wider.clone());
    let at = app.world().get::<Tile>(unit).unwrap().0;
    let goal = (if at.x < 150 { 295 } else { 3 }, 10);
    assert_eq!(long_order(&mut app, &wider, unit, goal), "A*");
    wait(&mut app);
    let at = app.world().get::<Tile>(unit).unwrap().0;
    let goal = (if at.x < 150 { 296 } else { 2 }, 11);
    assert_eq!(long_order(&mut app, &wider, unit, goal), "CCH");
}
