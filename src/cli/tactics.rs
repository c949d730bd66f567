//! `tilewalk tactics`: a scripted tactics session, headless. Actions run in the order given
//! and each prints one JSON line: ranges, moves (or why they were refused), enemy turns and
//! threat, so the rules can be checked without a window.

use std::path::PathBuf;
use std::process::ExitCode;

use bevy::prelude::*;
use bevy_tilewalk::Path;
use serde_json::{Value, json};
use tilewalk_path::Pos;

use super::{Failure, say};
use crate::assets::AssetFileError;
use crate::journal::{Entry, Journal};
use crate::map::parse_pos;
use crate::tactics::{EndTurn, EnemyTurn, Mode, TacticsMove, TacticsRules, Turn, with_board};
use crate::units::{Team, Unit};

#[derive(clap::Args, Debug)]
pub struct TacticsArgs {
    /// A tilewalk, Moving AI or Tiled (`.tmx`) map.
    #[arg(long)]
    map: PathBuf,
    /// The tactics rules (default: assets/tactics.ron, or the built-in rules where it is not).
    #[arg(long)]
    rules: Option<PathBuf>,
    /// The terrain table (default: assets/terrain.ron, or the built-in table where it is not).
    #[arg(long)]
    terrain: Option<PathBuf>,
    /// Actions, in order: `--range NAME`, `--attack NAME` (tiles it could attack after
    /// moving), `--move NAME:X,Y`, `--end-turn`, `--threat blue|red`.
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
            "--end-turn" => Action::EndTurn,
            "--threat" => {
                let text = value()?;
                Action::Threat(Team::parse(&text).ok_or_else(|| format!("--threat expects blue or red, got `{text}`"))?)
            }
            other => return Err(format!("unknown action `{other}` (expected --range, --attack, --move, --end-turn or --threat)")),
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
/// are none, unless another file is given).
pub(crate) fn read_rules(file: Option<&std::path::Path>) -> Result<TacticsRules, String> {
    let (file, text) = RULES.read(file)?;
    crate::tactics::parse_rules(&text).map_err(|e| AssetFileError::in_file(&file, e).to_string())
}

pub fn run(args: &TacticsArgs) -> Result<ExitCode, Failure> {
    let actions = parse_actions(&args.actions)?;
    let map = super::read_map(&args.map)?;
    let table = super::read_terrain(args.terrain.as_deref())?;
    let rules = read_rules(args.rules.as_deref())?;
    let mut app = super::headless_map_app(&args.map, &map, &table)?;
    app.insert_resource(rules);
    app.world_mut()
        .resource_mut::<NextState<Mode>>()
        .set(Mode::Tactics);
    app.update();
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
    for action in actions {
        let line = match action {
            Action::Range(name) => {
                let piece = unit(&mut app, &name)?;
                with_board(app.world_mut(), |board, context| {
                    let started = std::time::Instant::now();
                    let range = board.range(context, &piece);
                    let micros = started.elapsed().as_secs_f64() * 1e6;
                    let cells: Vec<Value> = range.cells().iter().map(|r| json!({"tile": [r.pos.x, r.pos.y], "cost": r.cost, "stop": r.can_stop})).collect();
                    json!({"action": "range", "unit": name, "points": board.rules.movement_points(board.nav.name(piece.class)), "micros": micros, "tiles": cells})
                })?
            }
            Action::Attack(name) => {
                let piece = unit(&mut app, &name)?;
                with_board(app.world_mut(), |board, context| {
                    let range = board.range(context, &piece);
                    json!({"action": "attack", "unit": name, "tiles": tiles(board.attack_tiles(&piece, &range))})
                })?
            }
            Action::Threat(team) => with_board(
                app.world_mut(),
                |board, context| json!({"action": "threat", "team": team.name(), "tiles": tiles(board.threat(context, team))}),
            )?,
            Action::Move(name, to) => {
                let piece = unit(&mut app, &name)?;
                let seen = app.world().resource::<Journal>().0.len();
                app.world_mut().write_message(TacticsMove {
                    unit: piece.entity,
                    to,
                });
                let planned = settle(&mut app);
                let refusal = app.world().resource::<Journal>().0[seen..]
                    .iter()
                    .find_map(|e| match e {
                        Entry::Refused { message, .. } => Some(message.clone()),
                        Entry::Arrived { .. } | Entry::SteppingOff { .. } => None,
                    });
                match (
                    refusal,
                    planned.into_iter().find(|(e, _)| *e == piece.entity),
                ) {
                    (None, Some((_, path))) => {
                        json!({"action": "move", "unit": name, "to": [to.x, to.y], "moved": true, "cost": path.cost, "path": tiles(path.cells)})
                    }
                    (reason, _) => {
                        json!({"action": "move", "unit": name, "to": [to.x, to.y], "moved": false, "reason": reason})
                    }
                }
            }
            Action::EndTurn => {
                app.world_mut().write_message(EndTurn);
                settle(&mut app);
                let world = app.world();
                let name = |e: Entity| {
                    world
                        .get::<Name>(e)
                        .map_or_else(|| e.to_string(), |n| n.as_str().to_owned())
                };
                let moves: Vec<Value> = world.resource::<EnemyTurn>().moves.iter().map(|&(unit, from, to)| json!({"unit": name(unit), "from": [from.x, from.y], "to": [to.x, to.y]})).collect();
                json!({"action": "end_turn", "turn": app.world().resource::<Turn>().number, "enemy_moves": moves})
            }
        };
        say(line)?;
    }
    Ok(ExitCode::SUCCESS)
}

/// Runs frames until every unit stands still; returns the paths that were walked.
fn settle(app: &mut App) -> Vec<(Entity, Path)> {
    let mut walked = Vec::new();
    for frame in 0..(600.0 / crate::FIXED_STEP_SECS) as usize {
        app.update();
        let world = app.world_mut();
        let paths: Vec<(Entity, Path)> = world
            .query::<(Entity, &Path)>()
            .iter(world)
            .map(|(e, p)| (e, p.clone()))
            .collect();
        for (entity, path) in paths {
            if !walked.iter().any(|(e, _)| *e == entity) {
                walked.push((entity, path));
            }
        }
        if frame > 0 && crate::all_idle(world) {
            break;
        }
    }
    walked
}
