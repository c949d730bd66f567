//! `tilewalk tactics`: a scripted tactics session, headless. Actions run in the order given
//! and each prints one JSON line: ranges, moves, strikes, waits and cancelled moves (or why
//! one was refused, which ends the run), enemy turns (with the enemy's strikes) and threat,
//! so the rules can be checked without a window. The last line names the winner, if a side
//! has won.

use std::collections::HashMap;
use std::path::PathBuf;
use std::process::ExitCode;

use bevy::prelude::*;
use bevy_tilewalk::tactics::{
    CancelMove, EndTurn, EnemyTurn, MoveCancelled, Strike, Struck, TacticsMove, TacticsMoved,
    TacticsRules, Turn, Wait, Waited, with_board,
};
use bevy_tilewalk::{Path, Team, Unit};
use serde_json::{Value, json};
use tilewalk_path::Pos;

use super::{Failure, say};
use crate::assets::AssetFileError;
use crate::journal::{Entry, Journal};
use crate::map::parse_pos;
use crate::tactics::Mode;

#[derive(clap::Args, Debug)]
pub struct TacticsArgs {
    /// A tilewalk, Moving AI or Tiled (`.tmx`, `.tmj`) or LDtk (`.ldtk`) map.
    #[arg(long)]
    map: PathBuf,
    /// The LDtk project's level, by its identifier (default: the first).
    #[arg(long)]
    level: Option<String>,
    /// The tactics rules (default: assets/tactics.ron, or the built-in rules where it is not).
    #[arg(long)]
    rules: Option<PathBuf>,
    /// The terrain table (default: assets/terrain.ron, or the built-in table where it is not).
    #[arg(long)]
    terrain: Option<PathBuf>,
    /// Actions, in order: `--range NAME`, `--attack NAME` (tiles it could attack after
    /// moving), `--move NAME:X,Y`, `--strike NAME:TARGET` (NAME attacks TARGET from where it
    /// stands), `--wait NAME`, `--cancel NAME` (back to where it stood, points restored),
    /// `--end-turn`, `--threat blue|red`. A refused move, strike, wait or cancel prints why
    /// and ends the run with exit status 1. With no action, the map is read and checked,
    /// and its units are listed on stderr.
    #[arg(
        trailing_var_arg = true,
        allow_hyphen_values = true,
        value_name = "ACTION"
    )]
    actions: Vec<String>,
}

enum Action {
    Range(String),
    Attack(String),
    Move(String, Pos),
    Strike(String, String),
    Wait(String),
    Cancel(String),
    EndTurn,
    Threat(Team),
}

fn parse_actions(words: &[String]) -> Result<Vec<Action>, String> {
    let mut actions = Vec::new();
    let mut words = words.iter();
    while let Some(word) = words.next() {
        let mut value = || {
            words
                .next()
                .cloned()
                .ok_or_else(|| format!("{word} needs a value"))
        };
        actions.push(match word.as_str() {
            "--range" => Action::Range(value()?),
            "--attack" => Action::Attack(value()?),
            "--move" => {
                let text = value()?;
                let (name, pos) = text.split_once(':').and_then(|(n, p)| Some((n, parse_pos(p)?))).ok_or_else(|| format!("--move expects NAME:X,Y, got `{text}`"))?;
                Action::Move(name.to_owned(), pos)
            }
            "--strike" => {
                let text = value()?;
                let (name, target) = text.split_once(':').filter(|(n, t)| !n.is_empty() && !t.is_empty()).ok_or_else(|| format!("--strike expects NAME:TARGET, got `{text}`"))?;
                Action::Strike(name.to_owned(), target.to_owned())
            }
            "--wait" => Action::Wait(value()?),
            "--cancel" => Action::Cancel(value()?),
            "--end-turn" => Action::EndTurn,
            "--threat" => {
                let text = value()?;
                Action::Threat(Team::parse(&text).ok_or_else(|| format!("--threat expects blue or red, got `{text}`"))?)
            }
            other => return Err(format!("unknown action `{other}` (expected --range, --attack, --move, --strike, --wait, --cancel, --end-turn or --threat)")),
        });
    }
    Ok(actions)
}

fn tiles(tiles: impl IntoIterator<Item = Pos>) -> Value {
    tiles.into_iter().map(|p| json!([p.x, p.y])).collect()
}

/// The shipped tactics rules.
const RULES: super::Settings = super::Settings {
    name: "tactics.ron",
    built_in: include_str!("../../assets/tactics.ron"),
};

/// Reads and parses the tactics rules (`assets/tactics.ron`, or the built-in ones where there
/// are none, unless another file is given) and checks them against the movement classes.
pub(crate) fn read_rules(
    file: Option<&std::path::Path>,
    classes: &[bevy_tilewalk::ClassSpec],
) -> Result<TacticsRules, String> {
    let (file, text) = RULES.read(file)?;
    let rules = crate::tactics::parse_rules(&text)
        .and_then(|rules| crate::tactics::check_rules(&text, &rules, classes).map(|()| rules));
    rules.map_err(|e| AssetFileError::in_file(&file, e).to_string())
}

pub fn run(args: &TacticsArgs) -> Result<ExitCode, Failure> {
    let actions = parse_actions(&args.actions)?;
    let map = super::read_map(&args.map, args.level.as_deref())?;
    let table = super::read_terrain(args.terrain.as_deref())?;
    let rules = read_rules(args.rules.as_deref(), &table.classes)?;
    let mut app = super::headless_map_app(&args.map, &map, &table)?;
    app.insert_resource(rules)
        .init_resource::<Outcomes>()
        .init_resource::<Walked>()
        .add_systems(Last, collect_outcomes);
    app.world_mut()
        .resource_mut::<NextState<Mode>>()
        .set(Mode::Tactics);
    app.update();
    // Every unit's name, kept for the units a strike removes.
    let names: HashMap<Entity, String> = {
        let world = app.world_mut();
        world
            .query_filtered::<(Entity, &Name), With<Unit>>()
            .iter(world)
            .map(|(e, n)| (e, n.as_str().to_owned()))
            .collect()
    };
    let name_of = |e: Entity| names.get(&e).cloned().unwrap_or_else(|| e.to_string());
    if actions.is_empty() {
        let mut listed: Vec<&str> = map.units.iter().map(|u| u.name.as_str()).collect();
        if listed.is_empty() {
            listed.push("none");
        }
        eprintln!(
            "note: no actions given: {} was read and nothing was played (units: {}); give \
             actions such as --range NAME, --move NAME:X,Y or --end-turn",
            args.map.display(),
            listed.join(", ")
        );
    }
    let unit = |app: &mut App, name: &str| {
        let world = app.world_mut();
        let entity = world
            .query_filtered::<(Entity, &Name), With<Unit>>()
            .iter(world)
            .find_map(|(e, n)| (n.as_str() == name).then_some(e));
        entity
            .and_then(|e| with_board(world, |board, _| board.piece(e).cloned()).ok()?)
            .ok_or_else(|| format!("no unit named `{name}` on {}", args.map.display()))
    };
    let mut status = ExitCode::SUCCESS;
    for action in actions {
        let seen = app.world().resource::<Journal>().0.len();
        // A refused action: its line, and the run stops.
        let mut refused = |line: Value| {
            status = ExitCode::from(1);
            vec![line]
        };
        let lines = match action {
            Action::Range(name) => {
                let piece = unit(&mut app, &name)?;
                vec![with_board(app.world_mut(), |board, context| {
                    let started = std::time::Instant::now();
                    let range = board.range(context, &piece);
                    let micros = started.elapsed().as_secs_f64() * 1e6;
                    let cells: Vec<Value> = range.cells().iter().map(|r| json!({"tile": [r.pos.x, r.pos.y], "cost": r.cost, "stop": r.can_stop})).collect();
                    json!({"action": "range", "unit": name, "points": board.rules.movement_points(board.nav.name(piece.class)), "micros": micros, "tiles": cells})
                })?]
            }
            Action::Attack(name) => {
                let piece = unit(&mut app, &name)?;
                vec![with_board(app.world_mut(), |board, context| {
                    let range = board.range(context, &piece);
                    json!({"action": "attack", "unit": name, "tiles": tiles(board.attack_tiles(&piece, &range))})
                })?]
            }
            Action::Threat(team) => vec![with_board(
                app.world_mut(),
                |board, context| json!({"action": "threat", "team": team.to_string(), "tiles": tiles(board.threat(context, team))}),
            )?],
            Action::Move(name, to) => {
                let piece = unit(&mut app, &name)?;
                app.world_mut()
                    .write_message(TacticsMove::new(piece.entity, to));
                let planned = settle(&mut app);
                match (
                    refusal(&app, seen),
                    planned.into_iter().find(|(e, _)| *e == piece.entity),
                ) {
                    (None, Some((_, path))) => {
                        vec![
                            json!({"action": "move", "unit": name, "to": [to.x, to.y], "moved": true, "cost": path.cost, "path": tiles(path.cells)}),
                        ]
                    }
                    (reason, _) => refused(
                        json!({"action": "move", "unit": name, "to": [to.x, to.y], "moved": false, "reason": reason}),
                    ),
                }
            }
            Action::Strike(name, target) => {
                let attacker = unit(&mut app, &name)?.entity;
                let target_unit = unit(&mut app, &target)?.entity;
                app.world_mut()
                    .write_message(Strike::new(attacker, target_unit));
                settle(&mut app);
                match refusal(&app, seen) {
                    Some(reason) => {
                        refused(json!({"strike": name, "target": target, "refused": reason}))
                    }
                    None => outcomes(&mut app, name_of),
                }
            }
            Action::Wait(name) => {
                let piece = unit(&mut app, &name)?;
                app.world_mut().write_message(Wait::new(piece.entity));
                settle(&mut app);
                match refusal(&app, seen) {
                    Some(reason) => refused(json!({"wait": name, "refused": reason})),
                    None => outcomes(&mut app, name_of),
                }
            }
            Action::Cancel(name) => {
                let piece = unit(&mut app, &name)?;
                app.world_mut().write_message(CancelMove::new(piece.entity));
                settle(&mut app);
                match refusal(&app, seen) {
                    Some(reason) => refused(json!({"cancel": name, "refused": reason})),
                    None => outcomes(&mut app, name_of),
                }
            }
            Action::EndTurn => {
                app.world_mut().write_message(EndTurn);
                settle(&mut app);
                let world = app.world();
                let moves: Vec<Value> = world.resource::<EnemyTurn>().moves.iter().map(|&(unit, from, to)| json!({"unit": name_of(unit), "from": [from.x, from.y], "to": [to.x, to.y]})).collect();
                let turn = json!({"action": "end_turn", "turn": world.resource::<Turn>().number, "enemy_moves": moves});
                // Then the enemy's strikes, in the order they came.
                std::iter::once(turn)
                    .chain(outcomes(&mut app, name_of))
                    .collect()
            }
        };
        for line in lines {
            say(line)?;
        }
        if status != ExitCode::SUCCESS {
            break;
        }
    }
    let winner = with_board(app.world_mut(), |board, _| board.winner())?;
    say(json!({"winner": winner.map(|t| t.to_string())}))?;
    Ok(status)
}

/// Why the action written after the journal's first `seen` entries was refused, if it was.
fn refusal(app: &App, seen: usize) -> Option<String> {
    app.world().resource::<Journal>().0[seen..]
        .iter()
        .find_map(|e| match e {
            Entry::Refused { message, .. } => Some(message.clone()),
            Entry::Arrived { .. }
            | Entry::SteppingOff { .. }
            | Entry::Moved { .. }
            | Entry::TakenBack { .. }
            | Entry::Struck { .. }
            | Entry::Won { .. } => None,
        })
}

/// What strikes, waits and cancelled moves came to, as the plugin reports them.
#[derive(Resource, Default)]
struct Outcomes(Vec<Outcome>);

/// The moves made since [`settle`] last took them, with the way each went.
#[derive(Resource, Default)]
struct Walked(Vec<(Entity, Path)>);

enum Outcome {
    Struck(Struck),
    Waited(Waited),
    Cancelled(MoveCancelled),
}

fn collect_outcomes(
    (mut outcomes, mut walked): (ResMut<Outcomes>, ResMut<Walked>),
    mut moved: MessageReader<TacticsMoved>,
    mut struck: MessageReader<Struck>,
    mut waited: MessageReader<Waited>,
    mut cancelled: MessageReader<MoveCancelled>,
) {
    walked
        .0
        .extend(moved.read().map(|m| (m.unit, m.path.clone())));
    outcomes
        .0
        .extend(struck.read().cloned().map(Outcome::Struck));
    outcomes
        .0
        .extend(waited.read().copied().map(Outcome::Waited));
    outcomes
        .0
        .extend(cancelled.read().copied().map(Outcome::Cancelled));
}

/// The outcomes since the last call, one JSON line each:
/// `{"strike":NAME,"target":TARGET,"damage":D,"counter":C,"hp":{NAME:H1,TARGET:H2},"removed":[..]}`
/// (`counter` null when the target did not strike back), `{"wait":NAME}`,
/// `{"cancel":NAME,"tile":[X,Y]}`.
fn outcomes(app: &mut App, name: impl Fn(Entity) -> String) -> Vec<Value> {
    std::mem::take(&mut app.world_mut().resource_mut::<Outcomes>().0)
        .into_iter()
        .map(|outcome| match outcome {
            Outcome::Struck(s) => {
                let mut hp = serde_json::Map::new();
                hp.insert(name(s.attacker), json!(s.attacker_hp));
                hp.insert(name(s.target), json!(s.target_hp));
                let removed: Vec<String> = s.removed.iter().map(|&e| name(e)).collect();
                json!({"strike": name(s.attacker), "target": name(s.target), "damage": s.damage, "counter": s.counter, "hp": hp, "removed": removed})
            }
            Outcome::Waited(w) => json!({"wait": name(w.unit)}),
            Outcome::Cancelled(c) => json!({"cancel": name(c.unit), "tile": [c.to.x, c.to.y]}),
        })
        .collect()
}

/// Runs frames until the action is resolved: the player's action takes one frame, and an
/// enemy turn two a unit (its move, then its strike). Moves resolve in turn time (the unit
/// is on its tile at once, whatever its class's speed), so nothing walks and no frame or
/// time cap decides where a turn ends. Returns the moves made, with the way each went.
fn settle(app: &mut App) -> Vec<(Entity, Path)> {
    app.update();
    while !crate::all_idle(app.world_mut()) {
        app.update();
    }
    std::mem::take(&mut app.world_mut().resource_mut::<Walked>().0)
}
