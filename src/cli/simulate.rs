//! `tilewalk simulate`: orders applied at t = 0 to a headless app with a fixed time step;
//! prints where each unit ends up, whether it arrived and when.

use std::path::PathBuf;
use std::process::ExitCode;

use bevy::prelude::*;
use tilewalk_path::Pos;

use super::{Failure, say};
use crate::FIXED_STEP_SECS;
use crate::assets::AssetFileError;
use crate::journal::{Entry, Journal, round_seconds};
use crate::level::Level;
use crate::map::parse_pos;
use crate::pathing::MoveOrder;
use crate::units::{Tile, Unit};

#[derive(clap::Args, Debug)]
pub struct SimulateArgs {
    /// A tilewalk, Moving AI or Tiled (`.tmx`) map.
    #[arg(long)]
    map: PathBuf,
    /// NAME:X,Y: send unit NAME to tile X,Y. Repeat for more units; a unit named twice
    /// goes through the first tile to the second.
    #[arg(long = "order", value_parser = order_arg)]
    orders: Vec<(String, Pos)>,
    /// Simulated seconds to run at most (the run stops early once every unit is idle).
    #[arg(long, default_value_t = 120.0)]
    seconds: f64,
    /// One JSON object per unit per line.
    #[arg(long)]
    json: bool,
    /// The terrain table (default: assets/terrain.ron).
    #[arg(long)]
    terrain: Option<PathBuf>,
    /// SECONDS:FILE: at that simulated time, switch to the terrain table FILE, as a designer
    /// saving `terrain.ron` in the running game would (paths re-plan the same way). Repeat
    /// for several edits.
    #[arg(long = "reload-terrain", value_parser = reload_arg)]
    reloads: Vec<(f64, PathBuf)>,
}

fn reload_arg(text: &str) -> Result<(f64, PathBuf), String> {
    let bad = || format!("expected SECONDS:FILE, got `{text}`");
    let (seconds, file) = text.split_once(':').ok_or_else(bad)?;
    let seconds: f64 = seconds.trim().parse().map_err(|_| bad())?;
    if !(seconds.is_finite() && seconds >= 0.0) || file.is_empty() {
        return Err(bad());
    }
    Ok((seconds, PathBuf::from(file)))
}

fn order_arg(text: &str) -> Result<(String, Pos), String> {
    let (name, pos) = text
        .split_once(':')
        .ok_or_else(|| format!("expected NAME:X,Y, got `{text}`"))?;
    let pos = parse_pos(pos).ok_or_else(|| format!("expected NAME:X,Y, got `{text}`"))?;
    Ok((name.to_owned(), pos))
}

pub fn run(args: &SimulateArgs) -> Result<ExitCode, Failure> {
    if !(args.seconds.is_finite() && args.seconds >= 0.0) {
        return Err(format!(
            "--seconds must be a non-negative number, got {}",
            args.seconds
        )
        .into());
    }
    let map = super::read_map(&args.map)?;
    let table = super::read_terrain(args.terrain.as_deref())?;
    let mut app = super::headless_map_app(&args.map, &map, &table)?;
    // Every edit is read and checked before the run: a broken one is bad input.
    let mut reloads = Vec::new();
    for (seconds, file) in &args.reloads {
        let table = super::read_terrain(Some(file))?;
        let level =
            Level::build(&map, &table).map_err(|e| AssetFileError::in_file(&args.map, e))?;
        reloads.push((*seconds, level));
    }
    reloads.sort_by(|a, b| a.0.total_cmp(&b.0));
    let mut reloads = reloads.into_iter().peekable();
    let world = app.world_mut();
    let units: Vec<(Entity, String)> = world
        .query_filtered::<(Entity, &Name), With<Unit>>()
        .iter(world)
        .map(|(e, n)| (e, n.as_str().to_owned()))
        .collect();
    for (i, (name, goal)) in args.orders.iter().enumerate() {
        let Some(&(unit, _)) = units.iter().find(|(_, n)| n == name) else {
            let known: Vec<&str> = units.iter().map(|(_, n)| n.as_str()).collect();
            return Err(format!(
                "no unit named `{name}` on {} (units: {})",
                args.map.display(),
                known.join(", ")
            )
            .into());
        };
        if goal.x >= map.width || goal.y >= map.height {
            return Err(format!(
                "order {name}:{},{}: the tile is outside the {}x{} map",
                goal.x, goal.y, map.width, map.height
            )
            .into());
        }
        let append = args.orders[..i].iter().any(|(earlier, _)| earlier == name);
        world.write_message(MoveOrder {
            units: vec![unit],
            goal: *goal,
            append,
        });
    }
    let frames = (args.seconds / FIXED_STEP_SECS).round() as u64;
    for frame in 0..=frames {
        let now = app.world().resource::<Time>().elapsed_secs_f64();
        while let Some((_, level)) = reloads.next_if(|(at, _)| *at <= now) {
            let change = app.world_mut().resource_mut::<Level>().replace(level);
            app.world_mut().write_message(change);
        }
        app.update();
        if frame > 0 && reloads.peek().is_none() && crate::all_idle(app.world_mut()) {
            break;
        }
    }
    let world = app.world_mut();
    let journal = world.resource::<Journal>().0.clone();
    let mut finals: Vec<(Entity, String, Pos)> = world
        .query_filtered::<(Entity, &Name, &Tile), With<Unit>>()
        .iter(world)
        .map(|(e, n, t)| (e, n.as_str().to_owned(), t.0))
        .collect();
    finals.sort_by_key(|(e, ..)| units.iter().position(|(u, _)| u == e));
    for (_, name, tile) in finals {
        // How its last order ended: an arrival or a refusal (stepping off is on the way).
        let ended = journal.iter().rev().find_map(|e| match e {
            Entry::Arrived { unit, seconds, .. } if *unit == name => {
                Some((true, Some(round_seconds(*seconds)), None))
            }
            Entry::Refused { unit, reason, .. } if *unit == name => {
                Some((false, None, Some(reason.to_string())))
            }
            _ => None,
        });
        let (arrived, seconds, reason) = ended.unwrap_or((false, None, None));
        if args.json {
            let mut json = serde_json::json!({"unit": name, "tile": [tile.x, tile.y], "arrived": arrived, "seconds": seconds});
            if let Some(reason) = reason {
                json["reason"] = reason.into();
            }
            say(json)?;
        } else {
            let outcome = match (seconds, reason) {
                (Some(s), _) => format!("arrived after {s} s"),
                (None, Some(reason)) => format!("refused: {reason}"),
                (None, None) => "no order".to_owned(),
            };
            say(format!("{name:<12} ({},{})  {outcome}", tile.x, tile.y))?;
        }
    }
    Ok(ExitCode::SUCCESS)
}
