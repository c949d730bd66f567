//! Tactics mode, headless: ranges under the rules, moves that walk exactly the previewed
//! path, turns, threat and the enemy's moves; the action after a move (strike, wait, cancel)
//! and combat.

use bevy_tilewalk::Refusal;
use bevy_tilewalk::tactics::{
    CancelMove, EndTurn, EnemyTurn, Forecast, Health, Intent, Mind, PerClass, Personality, Player,
    Strike, Struck, TacticsBoard, TacticsMove, TacticsMoved, TacticsRules, Turn, Wait,
    ZoneOfControl, with_board,
};
use tilewalk::tactics::{Mode, check_rules, parse_rules};
use tilewalk::terrain::TerrainTable;
use tilewalk_path::Range;

use super::*;

/// The rules these tests play under; the enemy is the greedy baseline, whose every move the
/// tests below work out by hand (the planner's own tests name it).
fn rules(zone_of_control: ZoneOfControl) -> TacticsRules {
    TacticsRules {
        ai: Mind::Greedy,
        movement_points: PerClass::from([("foot", 5.0), ("horse", 8.0), ("flyer", 6.0)]),
        attack_range: PerClass::from([("*", (1, 1))]),
        zone_of_control,
        ignore_zone_of_control: vec!["flyer".into()],
        ..TacticsRules::default()
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
    app.world_mut().write_message(TacticsMove::new(unit, to));
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

/// Every move made, with the way it went, in order.
#[derive(Resource, Default)]
struct Moves(Vec<(Entity, bevy_tilewalk::Path)>);

fn record_moves(mut moves: ResMut<Moves>, mut made: MessageReader<TacticsMoved>) {
    moves
        .0
        .extend(made.read().map(|m| (m.unit, m.path.clone())));
}

fn moves_app(map: &str, rules: TacticsRules) -> App {
    let mut app = tactics_app(map, rules);
    app.init_resource::<Moves>().add_systems(Last, record_moves);
    app
}

#[test]
fn the_move_takes_exactly_the_previewed_path_and_cost() {
    let mut app = moves_app(FIELD, rules(ZoneOfControl::EndsMove));
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
    let knight = unit(&mut app, "knight");
    app.world_mut()
        .write_message(TacticsMove::new(knight, goal));
    // In turn time: on its tile after the one frame that makes the move.
    app.update();
    assert_eq!(tile(&mut app, "knight"), goal);
    let moves = &app.world().resource::<Moves>().0;
    assert_eq!(moves.len(), 1);
    let (mover, path) = &moves[0];
    assert_eq!(*mover, knight);
    assert_eq!(
        path.cells, planned.cells,
        "the way it went is the preview's"
    );
    assert!((path.cost - planned.cost).abs() < 1e-9, "{}", path.cost);
}

/// A class of speed 0.01 (issue 63's `tactics-slow-class` finding: its moves walked 8-10 s
/// of wall time each, and a 600 s cap left a unit mid-walk): moves resolve in turn time, so
/// every move, the enemy's turn and the next range are those of a class of any speed.
#[test]
fn a_slow_class_moves_in_turn_time_whatever_its_speed() {
    let skirmish = include_str!("../../assets/maps/skirmish.map");
    let shipped = include_str!("../../assets/terrain.ron");
    let horse = "(name: \"horse\", speed: 3.0)";
    assert!(
        shipped.contains(horse),
        "the shipped table names the horse's speed"
    );
    let slow_text = shipped.replace(horse, "(name: \"horse\", speed: 0.01)");
    let slow = TerrainTable::parse(&slow_text).expect("a speed of 0.01 is accepted");
    // The same actions under both tables, each run until its turn is settled, frame by frame
    // with no cap.
    let play = |table: &TerrainTable| {
        let map = tilewalk::map::MapAsset::parse(skirmish).unwrap();
        let mut app = tilewalk::headless_app(&map, table).unwrap();
        app.insert_resource(
            tilewalk::tactics::parse_rules(include_str!("../../assets/tactics.ron")).unwrap(),
        );
        app.world_mut()
            .resource_mut::<NextState<Mode>>()
            .set(Mode::Tactics);
        app.update();
        app.world_mut().write_message(EndTurn);
        let started = std::time::Instant::now();
        let mut frames = 0;
        loop {
            app.update();
            frames += 1;
            if tilewalk::all_idle(app.world_mut()) {
                break;
            }
            assert!(frames < 1000, "the enemy's turn takes two frames a unit");
        }
        let wall = started.elapsed();
        let enemy = app.world().resource::<EnemyTurn>().moves.clone();
        let raider = unit(&mut app, "raider");
        let moved_to = enemy.iter().find(|m| m.0 == raider).map(|m| m.2);
        let (turn, at) = (
            *app.world().resource::<bevy_tilewalk::tactics::Turn>(),
            tile(&mut app, "raider"),
        );
        let reach: Vec<Pos> = range(&mut app, "raider")
            .cells()
            .iter()
            .map(|r| r.pos)
            .collect();
        (turn, moved_to, at, reach, frames, wall)
    };
    let normal = play(&table());
    let slowed = play(&slow);
    assert_eq!(normal.0.number, 2, "the enemy's turn ended");
    assert_eq!(slowed.0, normal.0, "the same turn after the enemy's");
    assert!(
        normal.1.is_some(),
        "the raider (a horse) moved in red's turn"
    );
    assert_eq!(
        slowed.1, normal.1,
        "the horse went where it would at any speed"
    );
    assert_eq!(
        slowed.2,
        normal.1.unwrap(),
        "and stands there, not mid-walk"
    );
    assert_eq!(slowed.3, normal.3, "its next range starts from there");
    assert_eq!(slowed.4, normal.4, "in as many frames");
    assert!(slowed.5.as_secs_f64() < 5.0, "{:?} of wall time", slowed.5);
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
                Refusal::NotYourTurn { turn: Team::BLUE },
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
        board.threat(context, Team::RED)
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
    use bevy_tilewalk::tactics::Turn;
    let skirmish = include_str!("../../assets/maps/skirmish.map");
    let mut app = moves_app(skirmish, rules(ZoneOfControl::EndsMove));
    app.world_mut().write_message(EndTurn);
    app.update();
    // While red moves, blue cannot.
    let knight = unit(&mut app, "knight");
    app.world_mut()
        .write_message(TacticsMove::new(knight, Pos::new(3, 5)));
    // The frame that ended the turn moved red's first unit.
    let mut frames_moved: Vec<usize> = vec![0];
    assert_eq!(app.world().resource::<Moves>().0.len(), 1);
    for frame in 1..(120 * 60) {
        app.update();
        let moved = app.world().resource::<Moves>().0.len();
        if moved > frames_moved.len() {
            assert_eq!(
                moved,
                frames_moved.len() + 1,
                "two enemy units move at once"
            );
            frames_moved.push(frame);
        }
        if app.world().resource::<Turn>().team == Team::BLUE {
            break;
        }
    }
    assert_eq!(frames_moved.len(), 4, "each red unit moved in its turn");
    // One unit a frame, then its strike (if any) the next: red's moves are two frames apart.
    assert!(
        frames_moved.windows(2).all(|w| w[1] - w[0] == 2),
        "{frames_moved:?}"
    );
    assert_eq!(
        *app.world().resource::<Turn>(),
        Turn {
            number: 2,
            team: Team::BLUE
        },
        "the turn passes when the enemy is done"
    );
    assert_eq!(refusals(&app), [Refusal::NotYourTurn { turn: Team::RED }]);
}

/// The combat numbers of the tests: foot 20 hit points and 7 damage, horse 24 and 9, flyer
/// 16 and 6 (the rules must cover every class of the table).
fn combat_rules() -> TacticsRules {
    TacticsRules {
        hit_points: PerClass::from([("foot", 20), ("horse", 24), ("flyer", 16)]),
        damage: PerClass::from([("foot", 7), ("horse", 9), ("flyer", 6)]),
        ..rules(ZoneOfControl::EndsMove)
    }
}

/// Every strike resolved, in order.
#[derive(Resource, Default)]
struct Strikes(Vec<Struck>);

fn record_strikes(mut strikes: ResMut<Strikes>, mut struck: MessageReader<Struck>) {
    strikes.0.extend(struck.read().cloned());
}

fn combat_app(map: &str) -> App {
    let mut app = tactics_app(map, combat_rules());
    app.init_resource::<Strikes>()
        .add_systems(Last, record_strikes);
    app
}

fn strikes(app: &App) -> Vec<Struck> {
    app.world().resource::<Strikes>().0.clone()
}

/// A strike's attacker, target, damage, counter-attack, hit points left (attacker's, then
/// target's) and removed units.
type Outcome = (Entity, Entity, u32, Option<u32>, u32, u32, Vec<Entity>);

fn outcome(s: &Struck) -> Outcome {
    (
        s.attacker,
        s.target,
        s.damage,
        s.counter,
        s.attacker_hp,
        s.target_hp,
        s.removed.clone(),
    )
}

fn strike(app: &mut App, name: &str, target: &str) {
    let (attacker, target) = (unit(app, name), unit(app, target));
    app.world_mut().write_message(Strike::new(attacker, target));
    run_until_idle(app, 10.0);
}

fn end_turn(app: &mut App) {
    app.world_mut().write_message(EndTurn);
    run_until_idle(app, 120.0);
}

/// A unit's hit points left, `None` once it is removed.
fn hp(app: &mut App, name: &str) -> Option<u32> {
    let world = app.world_mut();
    let entity = world
        .query_filtered::<(Entity, &Name), With<Unit>>()
        .iter(world)
        .find_map(|(e, n)| (n.as_str() == name).then_some(e))?;
    with_board(world, |board, _| board.piece(entity).map(|p| p.hp)).unwrap()
}

fn winner(app: &mut App) -> Option<Team> {
    with_board(app.world_mut(), |board, _| board.winner()).unwrap()
}

/// The orc stands in forest (defence 2 in the shipped terrain table), the knight on grass.
const DUEL: &str = "\
board: square-4
[terrain]
......
....f.
......
[units]
knight blue foot 0,1
orc    red  foot 4,1
";

#[test]
fn a_strike_after_a_move_deals_the_tables_damage_and_the_defender_strikes_back() {
    let mut app = combat_app(DUEL);
    assert_eq!(
        (hp(&mut app, "knight"), hp(&mut app, "orc")),
        (Some(20), Some(20))
    );
    tactics_move(&mut app, "knight", Pos::new(3, 1));
    let (knight, orc) = (unit(&mut app, "knight"), unit(&mut app, "orc"));
    let forecast = with_board(app.world_mut(), |board, _| {
        board.forecast(board.piece(knight).unwrap(), board.piece(orc).unwrap())
    })
    .unwrap();
    // 7 less the forest's 2; the orc reaches back for 7 (grass: no defence).
    assert_eq!(
        forecast,
        Forecast {
            damage: 5,
            counter: Some(7)
        }
    );
    strike(&mut app, "knight", "orc");
    assert_eq!(
        strikes(&app).iter().map(outcome).collect::<Vec<_>>(),
        [(knight, orc, 5, Some(7), 13, 15, vec![])],
        "the strike is what the forecast said"
    );
    assert_eq!(app.world().get::<Health>(orc), Some(&Health(15)));
    assert_eq!(app.world().get::<Health>(knight), Some(&Health(13)));
    // The strike ended the knight's action.
    strike(&mut app, "knight", "orc");
    assert_eq!(refusals(&app), [Refusal::AlreadyActed]);
    assert_eq!(refused(&app)[0].1, "knight has already acted this turn");
    assert_eq!(strikes(&app).len(), 1);
}

#[test]
fn no_counter_from_out_of_reach_or_from_a_removed_defender() {
    // The archer strikes from 2 steps; the orc reaches 1.
    let mut app = combat_app(
        "\
board: square-4
[terrain]
......
[units]
archer blue foot 0,0 2-3
knight blue foot 5,0
orc    red  foot 2,0
",
    );
    strike(&mut app, "archer", "orc");
    let struck = &strikes(&app)[0];
    assert_eq!((struck.damage, struck.counter), (7, None));
    assert_eq!(hp(&mut app, "archer"), Some(20));
    // 13 hit points left: the knight's strike is the orc's end, and nobody strikes back.
    let orc = unit(&mut app, "orc");
    app.world_mut().entity_mut(orc).insert(Health(7));
    tactics_move(&mut app, "knight", Pos::new(3, 0));
    strike(&mut app, "knight", "orc");
    let orc_removed = strikes(&app)[1].clone();
    assert_eq!(
        (
            orc_removed.damage,
            orc_removed.counter,
            orc_removed.target_hp
        ),
        (7, None, 0)
    );
    assert_eq!(orc_removed.removed, [orc_removed.target]);
    assert!(
        app.world().get_entity(orc_removed.target).is_err(),
        "removed at 0 hit points"
    );
    assert_eq!(hp(&mut app, "knight"), Some(20));
}

#[test]
fn a_strike_out_of_reach_or_at_an_ally_is_refused_and_changes_nothing() {
    let mut app = combat_app(DUEL);
    strike(&mut app, "knight", "orc");
    strike(&mut app, "knight", "knight");
    assert_eq!(refused(&app)[0].1, "orc is out of knight's reach");
    assert_eq!(
        refused(&app)[1].1,
        "knight cannot strike knight: not an enemy"
    );
    assert!(strikes(&app).is_empty());
    assert_eq!(
        (hp(&mut app, "knight"), hp(&mut app, "orc")),
        (Some(20), Some(20))
    );
    // Refused, the knight has not acted: it may still move and strike.
    tactics_move(&mut app, "knight", Pos::new(3, 1));
    strike(&mut app, "knight", "orc");
    assert_eq!(strikes(&app).len(), 1);
}

#[test]
fn cancel_restores_the_tile_and_the_points() {
    let mut app = combat_app(FIELD);
    let before = range(&mut app, "knight");
    let knight = unit(&mut app, "knight");
    app.world_mut().write_message(CancelMove::new(knight));
    run_until_idle(&mut app, 10.0);
    assert_eq!(refused(&app)[0].1, "knight has not moved this turn");
    tactics_move(&mut app, "knight", Pos::new(3, 2));
    assert!(
        range(&mut app, "knight").cells().is_empty(),
        "moved: no points left"
    );
    app.world_mut().write_message(CancelMove::new(knight));
    run_until_idle(&mut app, 10.0);
    assert_eq!(
        tile(&mut app, "knight"),
        Pos::new(0, 1),
        "back where it stood"
    );
    assert_eq!(
        range(&mut app, "knight").cells(),
        before.cells(),
        "its points whole again"
    );
    // It may move again, elsewhere, this same turn.
    tactics_move(&mut app, "knight", Pos::new(1, 2));
    assert_eq!(tile(&mut app, "knight"), Pos::new(1, 2));
    assert_eq!(refusals(&app), [Refusal::NotMoved]);

    // Not onto a tile another unit has taken since.
    let mut app = combat_app(
        "\
[terrain]
.......
.......
[units]
knight blue foot 0,0
squire blue foot 3,1
orc    red  foot 6,0
",
    );
    tactics_move(&mut app, "knight", Pos::new(1, 1));
    tactics_move(&mut app, "squire", Pos::new(0, 0));
    let knight = unit(&mut app, "knight");
    app.world_mut().write_message(CancelMove::new(knight));
    run_until_idle(&mut app, 10.0);
    assert_eq!(
        refused(&app)[0].1,
        "knight cannot stop on (0,0): a unit stands there"
    );
    assert_eq!(tile(&mut app, "knight"), Pos::new(1, 1));
}

#[test]
fn wait_ends_the_units_action_until_its_next_turn() {
    let mut app = combat_app(DUEL);
    tactics_move(&mut app, "knight", Pos::new(3, 1));
    let knight = unit(&mut app, "knight");
    app.world_mut().write_message(Wait::new(knight));
    run_until_idle(&mut app, 10.0);
    strike(&mut app, "knight", "orc");
    app.world_mut().write_message(CancelMove::new(knight));
    run_until_idle(&mut app, 10.0);
    app.world_mut().write_message(Wait::new(knight));
    run_until_idle(&mut app, 10.0);
    tactics_move(&mut app, "knight", Pos::new(3, 2));
    assert_eq!(
        refusals(&app),
        [
            Refusal::AlreadyActed,
            Refusal::AlreadyActed,
            Refusal::AlreadyActed,
            Refusal::AlreadyMoved
        ]
    );
    assert_eq!(tile(&mut app, "knight"), Pos::new(3, 1));
    // The enemy turn: the orc strikes the knight; the knight strikes back.
    end_turn(&mut app);
    tactics_move(&mut app, "knight", Pos::new(3, 0));
    assert_eq!(
        tile(&mut app, "knight"),
        Pos::new(3, 0),
        "a new turn, a new action"
    );
}

#[test]
fn the_enemy_turn_strikes_the_weakest_unit_in_reach_after_moving() {
    // The orc stands between the knight and the squire; the squire, hurt by its own strike,
    // is the weaker, although the knight comes first by name.
    let mut app = combat_app(
        "\
board: square-4
[terrain]
.....
.....
[units]
knight blue foot 1,0
squire blue foot 3,0
orc    red  foot 2,0
",
    );
    strike(&mut app, "squire", "orc");
    end_turn(&mut app);
    let (squire, orc) = (unit(&mut app, "squire"), unit(&mut app, "orc"));
    assert_eq!(
        outcome(&strikes(&app)[1]),
        (orc, squire, 7, Some(7), 6, 6, vec![])
    );
    assert_eq!(hp(&mut app, "knight"), Some(20));

    // A red unit that must walk first strikes where its walk ends.
    let mut app = combat_app(DUEL);
    end_turn(&mut app);
    let moves = app.world().resource::<EnemyTurn>().moves.clone();
    let orc = unit(&mut app, "orc");
    assert_eq!(moves, [(orc, Pos::new(4, 1), Pos::new(1, 1))]);
    let struck = strikes(&app);
    assert_eq!(struck.len(), 1, "{struck:?}");
    assert_eq!((struck[0].attacker, struck[0].damage), (orc, 7));
    assert_eq!(hp(&mut app, "knight"), Some(13));
}

#[test]
fn a_side_with_no_units_loses() {
    let mut app = combat_app(DUEL);
    assert_eq!(winner(&mut app), None);
    let orc = unit(&mut app, "orc");
    app.world_mut().entity_mut(orc).insert(Health(5));
    tactics_move(&mut app, "knight", Pos::new(3, 1));
    strike(&mut app, "knight", "orc");
    assert_eq!(hp(&mut app, "orc"), None);
    assert_eq!(winner(&mut app), Some(Team::BLUE));

    // And the other way: the enemy turn removes blue's last unit.
    let mut app = combat_app(DUEL);
    let knight = unit(&mut app, "knight");
    app.world_mut().entity_mut(knight).insert(Health(7));
    end_turn(&mut app);
    assert_eq!(strikes(&app)[0].removed, [knight]);
    assert_eq!(winner(&mut app), Some(Team::RED));
}

#[test]
fn combat_is_deterministic() {
    let play = || {
        let mut app = combat_app(include_str!("../../assets/maps/skirmish.map"));
        for _ in 0..3 {
            end_turn(&mut app);
        }
        let struck = strikes(&app);
        let name = |e: Entity| app.world().get::<Name>(e).map(|n| n.to_string());
        struck
            .iter()
            .map(|s| {
                (
                    name(s.attacker),
                    name(s.target),
                    s.damage,
                    s.counter,
                    s.target_hp,
                )
            })
            .collect::<Vec<_>>()
    };
    let first = play();
    assert!(
        !first.is_empty(),
        "red closes in and strikes within three turns"
    );
    assert_eq!(first, play());
}

#[test]
fn the_rules_file_gives_the_combat_numbers() {
    let shipped = super::rules();
    assert_eq!(shipped.hit_points("foot"), 20);
    assert_eq!(shipped.damage("horse"), 8);
    // A class the rules do not name (they are checked against the classes before use): 1
    // hit point, no damage.
    assert_eq!((shipped.hit_points("boat"), shipped.damage("boat")), (1, 0));
    let rules = include_str!("../../assets/tactics.ron");
    let zero = rules.replace(r#"hit_points: {"foot": 20"#, r#"hit_points: {"foot": 0"#);
    let error = parse_rules(&zero).unwrap_err().to_string();
    let line = zero
        .lines()
        .position(|l| l.contains("hit_points: {"))
        .unwrap()
        + 1;
    assert!(
        error.starts_with(&format!("{line}:"))
            && error.contains("foot hit points must be at least 1"),
        "{error}"
    );
    let negative = rules.replace(r#""horse": 8"#, r#""horse": -8"#);
    assert!(parse_rules(&negative).is_err());
}

/// The journal's tactics entries, as `--events` writes them.
fn tactics_events(app: &App) -> Vec<serde_json::Value> {
    journal(app)
        .iter()
        .filter(|e| e.tactics_line().is_some())
        .map(tilewalk::journal::Entry::to_json)
        .collect()
}

#[test]
fn a_kills_notice_and_event_name_the_killed_unit_and_the_winner() {
    use tilewalk::journal::Entry;
    let mut app = combat_app(DUEL);
    let orc = unit(&mut app, "orc");
    app.world_mut().entity_mut(orc).insert(Health(5));
    tactics_move(&mut app, "knight", Pos::new(3, 1));
    strike(&mut app, "knight", "orc");
    assert!(app.world().get_entity(orc).is_err(), "the orc is gone");
    let events = tactics_events(&app);
    assert_eq!(
        events,
        [
            serde_json::json!({"event": "moved", "unit": "knight", "team": "blue", "from": [0, 1], "to": [3, 1]}),
            serde_json::json!({
                "event": "struck", "attacker": "knight", "team": "blue", "target": "orc",
                "damage": 5, "counter": null, "attacker_hp": 20, "target_hp": 0,
                "removed": ["orc"],
            }),
            serde_json::json!({"event": "won", "team": "blue"}),
        ]
    );
    // The notice (and the turn log) read the same entries.
    let lines: Vec<String> = journal(&app)
        .iter()
        .filter_map(Entry::tactics_line)
        .collect();
    assert_eq!(
        lines,
        [
            "knight moves (0,1) -> (3,1)",
            "knight strikes orc: 5 damage (knight 20 hp, orc 0 hp): orc falls",
            "blue wins: the other side has no units left",
        ]
    );

    // Killed in the enemy's turn: the blue unit's name stays in the strike, and red wins.
    let mut app = combat_app(DUEL);
    let knight = unit(&mut app, "knight");
    app.world_mut().entity_mut(knight).insert(Health(7));
    end_turn(&mut app);
    let events = tactics_events(&app);
    let struck = events
        .iter()
        .find(|e| e["event"] == "struck")
        .expect("a strike");
    assert_eq!(
        (&struck["attacker"], &struck["target"], &struck["removed"]),
        (
            &serde_json::json!("orc"),
            &serde_json::json!("knight"),
            &serde_json::json!(["knight"])
        ),
        "{struck}"
    );
    assert_eq!(
        events.last(),
        Some(&serde_json::json!({"event": "won", "team": "red"}))
    );
    assert_eq!(
        journal(&app)
            .iter()
            .filter(|e| matches!(e, Entry::Won { .. }))
            .count(),
        1,
        "the game is won once"
    );
}

#[test]
fn no_forecast_is_offered_for_a_unit_that_acted() {
    let mut app = combat_app(DUEL);
    tactics_move(&mut app, "knight", Pos::new(3, 1));
    let (knight, orc) = (unit(&mut app, "knight"), unit(&mut app, "orc"));
    let names = |e: Entity| if e == knight { "knight" } else { "orc" }.to_owned();
    let hint = |app: &mut App| {
        let turn = *app.world().resource::<bevy_tilewalk::tactics::Turn>();
        with_board(app.world_mut(), |board, _| {
            let (a, t) = (board.piece(knight).unwrap(), board.piece(orc).unwrap());
            tilewalk::tactics::strike_hint(board, a, t, turn, names)
        })
        .unwrap()
    };
    // Moved, not yet acted: the forecast.
    assert_eq!(
        hint(&mut app),
        "right-click: knight strikes orc for 5 (15 hp left), 7 back"
    );
    strike(&mut app, "knight", "orc");
    // Acted: the refusal a right click would get, word for word, and no forecast.
    let acted = hint(&mut app);
    assert_eq!(acted, "knight has already acted this turn");
    assert_eq!(refused(&app), []);
    strike(&mut app, "knight", "orc");
    assert_eq!(refused(&app)[0].1, acted);
}

/// An `--events` log into memory.
#[derive(Clone, Default)]
struct Lines(std::sync::Arc<std::sync::Mutex<Vec<u8>>>);

impl std::io::Write for Lines {
    fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
        self.0.lock().unwrap().extend_from_slice(bytes);
        Ok(bytes.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

#[test]
fn a_waypoint_is_an_event_of_its_own() {
    let mut app = app(FIELD);
    let lines = Lines::default();
    app.insert_resource(tilewalk::journal::EventLog(Box::new(lines.clone())));
    order(&mut app, &["knight"], Pos::new(3, 0), false);
    order(&mut app, &["knight"], Pos::new(5, 2), true);
    app.update();
    let text = String::from_utf8(lines.0.lock().unwrap().clone()).unwrap();
    let events: Vec<serde_json::Value> = text
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .filter(|e: &serde_json::Value| e["event"] == "ordered" || e["event"] == "waypoint")
        .collect();
    assert_eq!(
        events,
        [
            serde_json::json!({"event": "ordered", "units": ["knight"], "goal": [3, 0]}),
            serde_json::json!({"event": "waypoint", "units": ["knight"], "goal": [5, 2]}),
        ]
    );
}

#[test]
fn rules_that_do_not_fit_the_classes_are_reported_at_their_entry() {
    let shipped = include_str!("../../assets/tactics.ron");
    let classes = TerrainTable::parse(include_str!("../../assets/terrain.ron"))
        .unwrap()
        .classes;
    let check = |text: &str| check_rules(text, &parse_rules(text).unwrap(), &classes);
    assert_eq!(check(shipped), Ok(()));
    // Where a text's `needle` is, 1-based, in the file's code (its comments mention the fields).
    let at = |text: &str, needle: &str| {
        text.lines()
            .enumerate()
            .filter(|(_, l)| !l.trim_start().starts_with("//"))
            .find_map(|(i, l)| l.find(needle).map(|c| (i + 1, c + 1)))
            .unwrap()
    };
    // A misspelt class in `damage`: pointed at, and named as unknown, not as a class missing.
    let typo = shipped.replace(
        r#"damage: {"foot": 7, "horse": 8"#,
        r#"damage: {"foot": 7, "hrose": 8"#,
    );
    let error = check(&typo).unwrap_err();
    assert_eq!(
        (error.line, error.column),
        at(&typo, r#""hrose""#),
        "{error}"
    );
    assert!(
        error
            .to_string()
            .contains("`hrose`, which is not a movement class"),
        "{error}"
    );
    // A class left out of `attack_range`: pointed at the field.
    let missing = shipped.replace(r#", "flyer": (1, 1)}"#, "}");
    let error = check(&missing).unwrap_err();
    assert_eq!(
        (error.line, error.column),
        at(&missing, "attack_range:"),
        "{error}"
    );
    assert!(
        error
            .to_string()
            .contains("no entry for the movement class `flyer`"),
        "{error}"
    );
    // The `tactics` command refuses them too, at file:line:col.
    let dir = std::env::temp_dir().join(format!("tilewalk-rules-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("typo.ron");
    std::fs::write(&file, &typo).unwrap();
    let skirmish = concat!(env!("CARGO_MANIFEST_DIR"), "/assets/maps/skirmish.map");
    let output = std::process::Command::new(env!("CARGO_BIN_EXE_tilewalk"))
        .args(["tactics", "--map", skirmish, "--rules"])
        .arg(&file)
        .arg("--end-turn")
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    let (line, column) = at(&typo, r#""hrose""#);
    assert!(!output.status.success(), "{stderr}");
    assert!(
        stderr.contains(&format!("{}:{line}:{column}", file.display())),
        "{stderr}"
    );
    let _ = std::fs::remove_dir_all(dir);
}

fn planner_app(map: &str) -> App {
    let mut app = tactics_app(
        map,
        TacticsRules {
            ai: Mind::Planner,
            ..combat_rules()
        },
    );
    app.init_resource::<Strikes>()
        .add_systems(Last, record_strikes);
    app
}

/// The playtest's defeat: red's strike removed blue's last unit, and the units after it
/// still moved and the turn went on to the next. The enemy's turn stops at the win, the turn
/// number stays, and ending the turn again does nothing.
#[test]
fn a_win_stops_the_enemy_turn() {
    let map = "\
board: square-4
[terrain]
..........
[units]
knight blue foot 0,0
orc    red  foot 2,0
wolf   red  horse 9,0
";
    let mut app = combat_app(map);
    let knight = unit(&mut app, "knight");
    app.world_mut().entity_mut(knight).insert(Health(7));
    let wolf_from = tile(&mut app, "wolf");
    end_turn(&mut app);
    assert_eq!(strikes(&app)[0].removed, [knight], "the orc's strike wins");
    assert_eq!(winner(&mut app), Some(Team::RED));
    assert_eq!(
        tile(&mut app, "wolf"),
        wolf_from,
        "nobody acts after the win"
    );
    let turn = *app.world().resource::<Turn>();
    assert_eq!(turn.number, 1, "the turn number stays that of the win");
    app.world_mut().write_message(EndTurn);
    run_until_idle(&mut app, 10.0);
    assert_eq!(
        *app.world().resource::<Turn>(),
        turn,
        "a won game has no more turns"
    );
    assert_eq!(tile(&mut app, "wolf"), wolf_from);
}

/// The playtest's raider at 2 hp struck the knight and died to the counter. The planner
/// spares it; the greedy AI, in the same state, makes the strike (so the state tests it).
#[test]
fn the_planner_makes_no_strike_whose_counter_removes_the_attacker() {
    let map = "\
board: square-4
[terrain]
...
[units]
knight blue foot 0,0
raider red  horse 1,0
";
    let play = |mind: Mind| {
        let mut app = tactics_app(
            map,
            TacticsRules {
                ai: mind,
                ..combat_rules()
            },
        );
        app.init_resource::<Strikes>()
            .add_systems(Last, record_strikes);
        let raider = unit(&mut app, "raider");
        app.world_mut().entity_mut(raider).insert(Health(2));
        end_turn(&mut app);
        let orders = app.world().resource::<EnemyTurn>().orders.clone();
        (strikes(&app), orders, hp(&mut app, "raider"))
    };
    let (struck, _, raider) = play(Mind::Greedy);
    assert_eq!(struck.len(), 1, "greedy strikes: {struck:?}");
    assert_eq!(raider, None, "and the counter removes it");
    let (struck, orders, raider) = play(Mind::Planner);
    assert_eq!(struck, [], "the planner does not strike");
    assert_eq!(raider, Some(2));
    assert_eq!(orders.len(), 1);
    assert!(
        matches!(orders[0].intent, Intent::PullBack | Intent::Spare),
        "{orders:?}"
    );
}

/// A wounded rider beside the enemy, with ground out of the enemy's reach within its move:
/// it pulls back there instead of standing or striking.
#[test]
fn a_wounded_unit_that_could_retreat_to_cover_does() {
    let map = "\
[terrain]
..............
........f.....
..............
[units]
knight blue foot  0,1
raider red  horse 1,1
";
    let mut app = planner_app(map);
    let raider = unit(&mut app, "raider");
    app.world_mut().entity_mut(raider).insert(Health(5));
    // It could strike the knight where it stands (7 of its 20), and take 7 back.
    end_turn(&mut app);
    assert_eq!(strikes(&app), [], "no strike");
    let at = tile(&mut app, "raider");
    let threat = with_board(app.world_mut(), |board, context| {
        board.threat(context, Team::BLUE)
    })
    .unwrap();
    assert!(!threat.contains(&at), "out of the knight's reach: {at}");
    let orders = app.world().resource::<EnemyTurn>().orders.clone();
    assert_eq!(orders[0].intent, Intent::PullBack, "{orders:?}");
}

/// A side with the upper hand hunts the other down: three wounded knights (8 of 20 hit
/// points each) and a wounded orc (7) at the far end of an open field. A wounded unit gains
/// nothing for closing in on its own, so left to that both sides would stand for the 50
/// turns, a draw; the knights' side, more than 1.1 times as strong, closes in with its wounded
/// (no tile of the field could remove one: the orc deals 7) and wins. The orc, the weaker
/// side, does not hunt: it keeps out of the reach that would remove it while it can.
#[test]
fn a_side_with_the_upper_hand_hunts_the_other_down() {
    let map = "\
board: square-4
[terrain]
..............
......f.......
..............
.......f......
..............
[units]
knight1 blue foot 0,1
knight2 blue foot 0,2
knight3 blue foot 0,3
orc     red  foot 13,2
";
    let mut app = planner_app(map);
    for name in ["knight1", "knight2", "knight3"] {
        let knight = unit(&mut app, name);
        app.world_mut().entity_mut(knight).insert(Health(8));
    }
    let orc = unit(&mut app, "orc");
    app.world_mut().entity_mut(orc).insert(Health(7));
    let (first, turns) = with_board(app.world_mut(), |board, context| {
        let distance = |board: &TacticsBoard| {
            let orc = board.piece(orc).unwrap().tile;
            board
                .pieces
                .iter()
                .filter(|p| p.team == Team::BLUE)
                .map(|p| board.nav.board().distance(p.tile, orc))
                .min()
                .unwrap()
        };
        let before = distance(board);
        let orders = board.play_side(context, Team::BLUE, Mind::Planner);
        // The turn log says they advance, not that they pull back.
        assert!(
            orders.iter().any(|o| o.intent == Intent::Advance)
                && orders.iter().all(|o| o.intent != Intent::PullBack),
            "{orders:?}"
        );
        let first = (before, distance(board));
        let mut turns = 1;
        while board.winner().is_none() && turns < 50 {
            board.play_side(context, Team::RED, Mind::Planner);
            turns += 1;
            board.play_side(context, Team::BLUE, Mind::Planner);
        }
        assert_eq!(board.winner(), Some(Team::BLUE), "after {turns} turns");
        (first, turns)
    })
    .unwrap();
    assert!(first.1 < first.0, "the wounded knights close in: {first:?}");
    assert!(turns < 50, "{turns}");
}

/// The same state gives the same turn: the skirmish's first red turn, planned twice from
/// scratch, and both sides' moves over three whole turns on the board.
#[test]
fn the_planner_plays_the_same_state_the_same_way() {
    let skirmish = include_str!("../../assets/maps/skirmish.map");
    let play = || {
        let mut app = planner_app(skirmish);
        end_turn(&mut app);
        let orders = app.world().resource::<EnemyTurn>().orders.clone();
        let turns = with_board(app.world_mut(), |board, context| {
            (0..3)
                .flat_map(|_| {
                    let blue = board.play_side(context, Team::BLUE, Mind::Planner);
                    let red = board.play_side(context, Team::RED, Mind::Planner);
                    blue.into_iter().chain(red)
                })
                .map(|o| (o.unit, o.path.map(|p| p.cells), o.strike, o.intent))
                .collect::<Vec<_>>()
        })
        .unwrap();
        let orders: Vec<_> = orders
            .into_iter()
            .map(|o| (o.unit, o.path.map(|p| p.cells), o.strike, o.intent))
            .collect();
        (orders, turns)
    };
    let (orders, turns) = play();
    assert_eq!(orders.len(), 4, "every red unit has an order: {orders:?}");
    assert!(!turns.is_empty());
    assert_eq!((orders, turns), play());
}

/// Personalities from the rules: `hold` never moves; `defensive` holds until an enemy stands
/// where it could strike it this turn, then acts.
#[test]
fn hold_and_defensive_units_keep_their_ground() {
    let map = "\
board: square-4
[terrain]
..................
[units]
knight blue foot 0,0
orc    red  foot 9,0
imp    red  foot 17,0
";
    let mut app = tactics_app(
        map,
        TacticsRules {
            ai: Mind::Planner,
            personality: [
                ("red".to_owned(), Personality::Defensive),
                ("imp".to_owned(), Personality::Hold),
            ]
            .into(),
            ..combat_rules()
        },
    );
    end_turn(&mut app);
    assert_eq!(
        tile(&mut app, "orc"),
        Pos::new(9, 0),
        "nothing in its reach"
    );
    assert_eq!(tile(&mut app, "imp"), Pos::new(17, 0));
    // The knight comes within the orc's move and reach (5 + 1): it strikes.
    tactics_move(&mut app, "knight", Pos::new(4, 0));
    app.init_resource::<Strikes>()
        .add_systems(Last, record_strikes);
    end_turn(&mut app);
    assert_eq!(tile(&mut app, "imp"), Pos::new(17, 0), "hold never moves");
    let struck = strikes(&app);
    assert_eq!(struck.len(), 1, "{struck:?}");
    assert_eq!(struck[0].attacker, unit(&mut app, "orc"));
}

/// Both sides played by AIs (`play --mode tactics --blue planner --red greedy`): blue's AI
/// plays its turns through the orders a player gives and ends them itself, so the game plays
/// itself to its end: the same winner, on the same turn, as the same two AIs on the board
/// (`duel`).
#[test]
fn with_both_sides_played_by_ais_the_game_plays_itself_to_the_end() {
    let shipped = parse_rules(include_str!("../../assets/tactics.ron")).unwrap();
    let map = tilewalk::map::generate::skirmish(7, "square-4".parse().unwrap(), 14, 10, 4);
    let mut app = tactics_app(&map, shipped);
    app.insert_resource(tilewalk::tactics::Players {
        blue: Some(Mind::Planner),
        red: Player::Ai(Mind::Greedy),
    });
    let expected = with_board(app.world_mut(), |board, context| {
        let start = board.pieces.clone();
        let mut outcome = None;
        'game: for turn in 1..=40 {
            for (team, mind) in [(Team::BLUE, Mind::Planner), (Team::RED, Mind::Greedy)] {
                board.play_side(context, team, mind);
                if let Some(winner) = board.winner() {
                    outcome = Some((winner, turn));
                    break 'game;
                }
            }
        }
        board.pieces = start;
        outcome
    })
    .unwrap();
    let (winner, turn) = expected.expect("the planner beats the greedy AI on this map");
    for _ in 0..20_000 {
        app.update();
        if self::winner(&mut app).is_some() {
            break;
        }
    }
    assert_eq!(self::winner(&mut app), Some(winner));
    assert_eq!(app.world().resource::<Turn>().number, turn);
}

/// `play --mode tactics --red person` (hot seat, with a person playing blue): red's turn
/// waits for its person, whose moves are red's, and ends on red's end of turn; no AI moves
/// red's units.
#[test]
fn a_person_playing_red_moves_its_units_and_ends_its_turn() {
    let mut app = moves_app(FIELD, rules(ZoneOfControl::EndsMove));
    app.insert_resource(tilewalk::tactics::Players {
        blue: None,
        red: Player::Person,
    });
    app.update();
    let turn = |app: &App| {
        let turn = app.world().resource::<Turn>();
        (turn.number, turn.team)
    };
    end_turn(&mut app);
    for _ in 0..120 {
        app.update();
    }
    assert_eq!(
        turn(&app),
        (1, Team::RED),
        "red's turn waits for its person"
    );
    assert!(
        app.world().resource::<Moves>().0.is_empty(),
        "no AI moved red"
    );
    // Blue's knight may not move in red's turn; red's orc moves as its person says.
    tactics_move(&mut app, "knight", Pos::new(1, 1));
    assert_eq!(refusals(&app), [Refusal::NotYourTurn { turn: Team::RED }]);
    tactics_move(&mut app, "orc", Pos::new(3, 1));
    let orc = unit(&mut app, "orc");
    assert_eq!(app.world().get::<Tile>(orc).unwrap().0, Pos::new(3, 1));
    end_turn(&mut app);
    assert_eq!(turn(&app), (2, Team::BLUE));
}
