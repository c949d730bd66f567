//! Tactics mode, headless: ranges under the rules, moves that walk exactly the previewed
//! path, turns, threat and the enemy's moves.

use bevy_tilewalk::Refusal;
use tilewalk::tactics::{
    EndTurn, EnemyTurn, Mode, PerClass, TacticsMove, TacticsRules, ZoneOfControl, with_board,
};
use tilewalk_path::Range;

use super::*;

fn rules(zone_of_control: ZoneOfControl) -> TacticsRules {
    TacticsRules {
        movement_points: PerClass::from([("foot", 5.0), ("horse", 8.0), ("flyer", 6.0)]),
        attack_range: PerClass::from([("*", (1, 1))]),
        zone_of_control,
        ignore_zone_of_control: vec!["flyer".into()],
    }
}

fn tactics_app(map: &str, rules: TacticsRules) -> App {
    let mut app = app(map);
    app.insert_resource(rules);
    app.world_mut()
        .resource_mut::<NextState<Mode>>()
        .set(Mode::Tactics);
    app.update();
    app
}

fn range(app: &mut App, name: &str) -> Range {
    let entity = unit(app, name);
    with_board(app.world_mut(), |board, context| {
        let piece = board.piece(entity).unwrap().clone();
        board.range(context, &piece)
    })
    .unwrap()
}

fn tactics_move(app: &mut App, name: &str, to: Pos) {
    let unit = unit(app, name);
    app.world_mut().write_message(TacticsMove { unit, to });
    run_until_idle(app, 60.0);
}

fn refusals(app: &App) -> Vec<Refusal> {
    refused(app).into_iter().map(|(reason, _)| reason).collect()
}

const FIELD: &str = "\
[terrain]
.......
.,,,...
.......
[units]
knight blue foot 0,1
orc    red  foot 6,1
";

#[test]
fn the_walk_takes_exactly_the_previewed_path_and_cost() {
    let mut app = tactics_app(FIELD, rules(ZoneOfControl::EndsMove));
    let preview = range(&mut app, "knight");
    let goal = Pos::new(4, 1);
    let planned = preview.path_to(goal).expect("in range");
    // Around the mud (3 per tile): (1,0) diagonal, (2,0), (3,0), then (4,1) diagonal.
    assert_eq!(
        planned.cells,
        [
            Pos::new(0, 1),
            Pos::new(1, 0),
            Pos::new(2, 0),
            Pos::new(3, 0),
            Pos::new(4, 1)
        ]
    );
    assert!((preview.cost(goal).unwrap() - (2.0 + 2.0 * std::f64::consts::SQRT_2)).abs() < 1e-9);
    tactics_move(&mut app, "knight", goal);
    let (tile, seconds) = arrival(&app, "knight").expect("it walked");
    assert_eq!(tile, goal);
    // The walk's time is the range's cost at the unit's speed: the same numbers throughout.
    assert!(
        (seconds - planned.cost / SPEED).abs() < 1.0 / 60.0,
        "{seconds}"
    );
}

#[test]
fn a_moved_unit_cannot_move_again_until_the_next_turn() {
    let mut app = tactics_app(FIELD, rules(ZoneOfControl::EndsMove));
    tactics_move(&mut app, "knight", Pos::new(1, 1));
    // Moved: no range to show or preview (the HUD's hint is the refusal below, word for word).
    assert!(range(&mut app, "knight").cells().is_empty());
    tactics_move(&mut app, "knight", Pos::new(2, 2));
    tactics_move(&mut app, "orc", Pos::new(5, 1));
    let reasons = refusals(&app);
    assert!(
        matches!(
            &reasons[..],
            [
                Refusal::AlreadyMoved,
                Refusal::NotYourTurn { turn: Team::Blue },
            ]
        ),
        "{reasons:?}"
    );
    assert_eq!(refused(&app)[1].1, "orc cannot move: it is blue's turn");
    assert_eq!(tile(&mut app, "knight"), Pos::new(1, 1));
    app.world_mut().write_message(EndTurn);
    run_until_idle(&mut app, 60.0);
    tactics_move(&mut app, "knight", Pos::new(2, 2));
    assert_eq!(
        tile(&mut app, "knight"),
        Pos::new(2, 2),
        "a new turn, a new move"
    );
}

#[test]
fn allies_are_walked_through_not_stopped_on_and_enemies_block() {
    let corridor = "\
[terrain]
########
........
########
[units]
knight blue foot 0,1
squire blue foot 1,1
orc    red  foot 5,1
";
    let mut app = tactics_app(corridor, rules(ZoneOfControl::EndsMove));
    let reach = range(&mut app, "knight");
    assert!(
        !reach.get(Pos::new(1, 1)).unwrap().can_stop,
        "the squire's tile"
    );
    assert_eq!(reach.cost(Pos::new(2, 1)), Some(2.0), "through the squire");
    assert!(
        reach.get(Pos::new(4, 1)).is_some_and(|r| r.can_stop),
        "next to the orc: the move ends there"
    );
    assert!(
        !reach.contains(Pos::new(5, 1)) && !reach.contains(Pos::new(6, 1)),
        "the orc blocks"
    );
    tactics_move(&mut app, "knight", Pos::new(1, 1));
    assert_eq!(refusals(&app), [Refusal::Occupied { to: Pos::new(1, 1) }]);
    tactics_move(&mut app, "knight", Pos::new(3, 1));
    assert_eq!(
        tile(&mut app, "knight"),
        Pos::new(3, 1),
        "walked through its ally"
    );
    assert_eq!(tile(&mut app, "squire"), Pos::new(1, 1));
}

#[test]
fn both_zone_of_control_rules() {
    // The orc's zone covers the mud at (3,1): 3 to enter on foot.
    let map = "\
[terrain]
.......
..,,...
.......
[units]
knight blue foot 0,1
orc    red  foot 4,1
";
    // Ends the move: (3,0) is grass in the zone, reached via (1,0) and (2,0) for 2 + √2; the mud
    // at (3,1) would cost at least 2 + √2 + 3√2 > 5 (or 1 + 3 + 3 = 7 straight through the mud).
    let mut ends = tactics_app(map, rules(ZoneOfControl::EndsMove));
    let reach = range(&mut ends, "knight");
    assert!((reach.cost(Pos::new(3, 0)).unwrap() - (2.0 + std::f64::consts::SQRT_2)).abs() < 1e-9);
    assert!(
        reach
            .path_to(Pos::new(3, 0))
            .unwrap()
            .cells
            .ends_with(&[Pos::new(2, 0), Pos::new(3, 0)])
    );
    assert!(
        !reach.contains(Pos::new(3, 1)),
        "the mud in the zone is out of reach"
    );
    assert!(
        !reach.contains(Pos::new(4, 0)) && !reach.contains(Pos::new(5, 0)),
        "the move ends on entering the zone"
    );

    let mut takes = tactics_app(map, rules(ZoneOfControl::TakesAllPoints));
    let reach = range(&mut takes, "knight");
    for zone in [Pos::new(3, 0), Pos::new(3, 1), Pos::new(3, 2)] {
        assert_eq!(
            reach.cost(zone),
            Some(5.0),
            "entering the zone takes all 5 points: {zone}"
        );
    }
    assert!(!reach.contains(Pos::new(4, 0)) && !reach.contains(Pos::new(5, 1)));
}

#[test]
fn threat_on_a_hand_built_board() {
    // On a 4-way board the orc, with 1 movement point on open ground, can stay or take one
    // straight step. With attack range 1 (one orthogonal step), it threatens the diamond of
    // radius 2.
    let mut one_point = rules(ZoneOfControl::EndsMove);
    one_point.movement_points.0.insert("foot".into(), 1.0);
    let mut app = tactics_app(
        "\
board: square-4
[terrain]
.......
.......
.......
.......
.......
[units]
knight blue foot 0,0
orc    red  foot 4,2
",
        one_point,
    );
    let threat = with_board(app.world_mut(), |board, context| {
        board.threat(context, Team::Red)
    })
    .unwrap();
    let diamond: std::collections::BTreeSet<Pos> = (0..7u32)
        .flat_map(|x| (0..5u32).map(move |y| Pos::new(x, y)))
        .filter(|p| p.x.abs_diff(4) + p.y.abs_diff(2) <= 2)
        .collect();
    assert_eq!(threat, diamond);
}

#[test]
fn the_enemy_turn_is_deterministic_and_closes_in() {
    let skirmish = include_str!("../../assets/maps/skirmish.map");
    let play = || {
        let mut app = tactics_app(skirmish, rules(ZoneOfControl::EndsMove));
        app.world_mut().write_message(EndTurn);
        run_until_idle(&mut app, 120.0);
        app.world().resource::<EnemyTurn>().moves.clone()
    };
    let first = play();
    assert_eq!(
        first.len(),
        4,
        "every red unit moves toward blue: {first:?}"
    );
    for (unit, from, to) in &first {
        assert!(
            to.x < from.x,
            "{unit} moved west, toward blue: {from} -> {to}"
        );
    }
    assert_eq!(first, play());
}

#[test]
fn the_enemy_moves_one_unit_at_a_time_and_then_it_is_the_players_turn() {
    use tilewalk::tactics::Turn;
    let skirmish = include_str!("../../assets/maps/skirmish.map");
    let mut app = tactics_app(skirmish, rules(ZoneOfControl::EndsMove));
    app.world_mut().write_message(EndTurn);
    app.update();
    // While red moves, blue cannot.
    let knight = unit(&mut app, "knight");
    app.world_mut().write_message(TacticsMove {
        unit: knight,
        to: Pos::new(3, 5),
    });
    let mut walkers: Vec<Entity> = Vec::new();
    for _ in 0..(120 * 60) {
        app.update();
        let world = app.world_mut();
        let walking: Vec<Entity> = world
            .query_filtered::<Entity, With<Path>>()
            .iter(world)
            .collect();
        assert!(walking.len() <= 1, "two enemy units walk at once");
        if let Some(&walker) = walking.first()
            && walkers.last() != Some(&walker)
        {
            walkers.push(walker);
        }
        if app.world().resource::<Turn>().team == Team::Blue {
            break;
        }
    }
    assert_eq!(walkers.len(), 4, "each red unit walked in its turn");
    assert_eq!(
        *app.world().resource::<Turn>(),
        Turn {
            number: 2,
            team: Team::Blue
        },
        "the turn passes when the enemy is done"
    );
    assert_eq!(refusals(&app), [Refusal::NotYourTurn { turn: Team::Red }]);
}
