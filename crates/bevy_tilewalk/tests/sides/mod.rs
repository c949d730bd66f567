//! Sides as data: three sides, one of them neutral (hostile to nobody). The neutral side is
//! never struck nor stops the game from being won, and the tactics turns go round all three,
//! each side played as its `Side::player` says.

use bevy::prelude::*;
use bevy_tilewalk::prelude::*;
use bevy_tilewalk::tactics::{
    EndTurn, Mind, PerClass, Player, Strike, Struck, TacticsRules, Turn, with_board,
};
use bevy_tilewalk::{OrderRefused, Refusal};

use super::{field, refusals, spawn, tactics_app, tile_of};

/// Blue and red fight; the villagers, played by `villagers`, are hostile to nobody and
/// nobody to them.
fn three_sides(villagers: Player) -> (Sides, Team) {
    let mut sides = Sides::default();
    let team = sides.push(Side::new("villagers").played_by(villagers));
    (sides, team)
}

/// A 10×3 field: the knight (blue) at the west end, a villager beside it, the orc (red) at
/// the east end with a villager in its way.
fn village(sides: Sides) -> (App, [Entity; 4]) {
    let mut app = tactics_app(field(10, 3));
    app.insert_resource(sides).insert_resource(TacticsRules {
        ai: Mind::Greedy,
        movement_points: PerClass::from([("foot", 3.0)]),
        hit_points: PerClass::from([("*", 10)]),
        damage: PerClass::from([("foot", 4)]),
        ..default()
    });
    let knight = spawn(&mut app, MovementClass(0), (0, 1));
    let villager = spawn(&mut app, MovementClass(0), (1, 1));
    let orc = spawn(&mut app, MovementClass(0), (9, 1));
    let elder = spawn(&mut app, MovementClass(0), (8, 1));
    let team = app.world().resource::<Sides>().find("villagers").unwrap();
    for (unit, side) in [(villager, team), (orc, Team::RED), (elder, team)] {
        app.world_mut().entity_mut(unit).insert(side);
    }
    app.update();
    (app, [knight, villager, orc, elder])
}

#[test]
fn a_neutral_side_is_not_struck_and_the_turns_go_round_all_three_sides() {
    let (sides, villagers) = three_sides(Player::Ai(Mind::Planner));
    assert!(!sides.hostile(Team::BLUE, villagers) && !sides.hostile(Team::RED, villagers));
    let (mut app, [knight, villager, orc, elder]) = village(sides);
    // The knight may not strike the villager beside it: not an enemy.
    app.world_mut().write_message(Strike::new(knight, villager));
    app.update();
    assert!(matches!(
        refusals(&mut app).as_slice(),
        [OrderRefused {
            reason: Refusal::NotAnEnemy { .. },
            ..
        }]
    ));
    // Blue ends its turn: red's, then the villagers', then blue's turn 2.
    let mut turns = vec![*app.world().resource::<Turn>()];
    let mut struck = Vec::new();
    app.world_mut().write_message(EndTurn);
    for _ in 0..200 {
        app.update();
        let turn = *app.world().resource::<Turn>();
        if turns.last() != Some(&turn) {
            turns.push(turn);
        }
        let messages = app.world().resource::<Messages<Struck>>();
        struck.extend(messages.iter_current_update_messages().cloned());
    }
    let order: Vec<(u32, Team)> = turns.iter().map(|t| (t.number, t.team)).collect();
    assert_eq!(
        order,
        [
            (1, Team::BLUE),
            (1, Team::RED),
            (1, villagers),
            (2, Team::BLUE)
        ]
    );
    // The orc went round the elder in its way towards the knight, and struck nobody: the
    // elder beside it is no enemy.
    assert!(struck.is_empty(), "{struck:?}");
    let orc_at = tile_of(&app, orc);
    assert!(orc_at.x < 8, "the orc closes in on the knight: {orc_at:?}");
    assert_eq!(
        tile_of(&app, elder),
        Pos::new(8, 1),
        "the villagers have no enemy to close in on"
    );
    // Blue is a person: the turn waits for its end.
    for _ in 0..60 {
        app.update();
    }
    assert_eq!(app.world().resource::<Turn>().team, Team::BLUE);
    // One hostile camp left: with red gone, blue has won, though villagers remain.
    app.world_mut().despawn(orc);
    let winner = with_board(app.world_mut(), |board, _| board.winner()).unwrap();
    assert_eq!(winner, Some(Team::BLUE));
}

#[test]
fn two_persons_take_turns_and_each_ends_its_own() {
    let (mut sides, villagers) = three_sides(Player::Person);
    sides.get_mut(Team::RED).unwrap().player = Player::Person;
    let (mut app, [knight, _, orc, _]) = village(sides);
    let end = |app: &mut App| {
        app.world_mut().write_message(EndTurn);
        for _ in 0..10 {
            app.update();
        }
        let turn = app.world().resource::<Turn>();
        (turn.number, turn.team)
    };
    // Three persons in turn.
    assert_eq!(end(&mut app), (1, Team::RED));
    // Red's orc is a person's: it waits, and moves when told.
    assert_eq!(tile_of(&app, orc), Pos::new(9, 1));
    app.world_mut()
        .write_message(bevy_tilewalk::tactics::TacticsMove::new(
            orc,
            Pos::new(9, 0),
        ));
    app.update();
    assert_eq!(tile_of(&app, orc), Pos::new(9, 0));
    // Blue's knight may not move during red's turn.
    app.world_mut()
        .write_message(bevy_tilewalk::tactics::TacticsMove::new(
            knight,
            Pos::new(0, 0),
        ));
    app.update();
    assert_eq!(tile_of(&app, knight), Pos::new(0, 1));
    assert_eq!(end(&mut app), (1, villagers));
    assert_eq!(end(&mut app), (2, Team::BLUE));
}
