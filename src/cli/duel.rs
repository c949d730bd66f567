//! `tilewalk duel`: two tactics AIs play whole games on a map, headless, under the same rules
//! and turns as the window (blue moves first); each game prints one JSON line, then a summary.

use std::path::PathBuf;
use std::process::ExitCode;

use bevy::prelude::*;
use bevy_tilewalk::Team;
use bevy_tilewalk::tactics::{Mind, with_board};
use serde_json::json;

use super::{Failure, say};
use crate::tactics::Mode;

#[derive(clap::Args, Debug)]
pub struct DuelArgs {
    /// A tilewalk, Moving AI, Tiled (`.tmx`, `.tmj`) or LDtk (`.ldtk`) map with units of both
    /// sides.
    #[arg(long)]
    map: PathBuf,
    /// The first AI: `planner` or `greedy`. It plays blue in the odd games, red in the even.
    #[arg(long, value_parser = mind_arg)]
    ai: Mind,
    /// The second AI: `planner` or `greedy`.
    #[arg(long, value_parser = mind_arg)]
    against: Mind,
    /// How many games.
    #[arg(long, default_value_t = 2, value_parser = clap::value_parser!(u32).range(1..=100_000))]
    games: u32,
    /// The turns a game lasts at most (blue's and red's move make one); a game not won by
    /// then is a draw.
    #[arg(long, default_value_t = 50, value_parser = clap::value_parser!(u32).range(1..=100_000))]
    turns: u32,
    /// The tactics rules (default: assets/tactics.ron, or the built-in rules where it is not).
    #[arg(long)]
    rules: Option<PathBuf>,
    /// The terrain table (default: assets/terrain.ron, or the built-in table where it is not).
    #[arg(long)]
    terrain: Option<PathBuf>,
}

fn mind_arg(name: &str) -> Result<Mind, String> {
    Mind::parse(name).ok_or_else(|| {
        let known: Vec<&str> = Mind::ALL.iter().map(|m| m.name()).collect();
        format!("`{name}` is not an AI (the AIs: {})", known.join(", "))
    })
}

pub fn run(args: &DuelArgs) -> Result<ExitCode, Failure> {
    let map = super::read_map(&args.map, None)?;
    let table = super::read_terrain(args.terrain.as_deref())?;
    let rules = super::tactics::read_rules(args.rules.as_deref(), &table.classes)?;
    let mut app = super::headless_map_app(&args.map, &map, &table)?;
    app.insert_resource(rules);
    app.world_mut()
        .resource_mut::<NextState<Mode>>()
        .set(Mode::Tactics);
    app.update();
    // Every game starts from the map's own board; the AIs play on a copy of it.
    let results = with_board(app.world_mut(), |board, context| {
        let start = board.pieces.clone();
        (1..=args.games)
            .map(|game| {
                board.pieces.clone_from(&start);
                let (blue, red) = match game % 2 {
                    1 => (args.ai, args.against),
                    _ => (args.against, args.ai),
                };
                let mut outcome = (board.winner(), 0);
                'game: for turn in 1..=args.turns {
                    for (team, mind) in [(Team::BLUE, blue), (Team::RED, red)] {
                        if outcome.0.is_some() {
                            break 'game;
                        }
                        board.play_side(context, team, mind);
                        outcome = (board.winner(), turn);
                    }
                }
                (game, blue, red, outcome)
            })
            .collect::<Vec<_>>()
    })?;
    let mut won = serde_json::Map::new();
    for mind in [args.ai, args.against] {
        won.insert(mind.name().to_owned(), json!(0));
    }
    let mut draws = 0;
    for (game, blue, red, (winner, turns)) in results {
        say(json!({
            "game": game,
            "blue": blue.name(),
            "red": red.name(),
            "winner": winner.map(|t| t.to_string()),
            "turns": turns,
        }))?;
        match winner {
            Some(team) => {
                let mind = if team == Team::BLUE { blue } else { red };
                let count = won.entry(mind.name()).or_insert(json!(0));
                *count = json!(count.as_u64().unwrap_or(0) + 1);
            }
            None => draws += 1,
        }
    }
    say(json!({"games": args.games, "won": won, "draws": draws}))?;
    Ok(ExitCode::SUCCESS)
}
