//! `tilewalk simulate`: orders applied at t = 0 to a headless app with a fixed time step;
//! prints where each unit ends up, whether it arrived and when.

use std::collections::{HashMap, HashSet};
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Instant;

use bevy::prelude::*;
use bevy_tilewalk::{
    MoveOrder, MovementClass, Navigation, Path, Pending, Team, Tile, Unit, free_walk_seconds,
};
use tilewalk_path::{Pos, SearchContext};

use super::{Failure, say};
use crate::FIXED_STEP_SECS;
use crate::assets::AssetFileError;
use crate::journal::{Entry, Journal, round_seconds};
use crate::level::Level;
use crate::map::parse_pos;

#[derive(clap::Args, Debug)]
pub struct SimulateArgs {
    /// A tilewalk, Moving AI or Tiled (`.tmx`, `.tmj`) or LDtk (`.ldtk`) map.
    #[arg(long)]
    map: PathBuf,
    /// The LDtk project's level, by its identifier (default: the first).
    #[arg(long)]
    level: Option<String>,
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
    /// The terrain table (default: assets/terrain.ron, or the built-in table where it is not).
    #[arg(long)]
    terrain: Option<PathBuf>,
    /// SECONDS:FILE: at that simulated time, switch to the terrain table FILE, as a designer
    /// saving `terrain.ron` in the running game would (paths re-plan the same way). Repeat
    /// for several edits.
    #[arg(long = "reload-terrain", value_parser = reload_arg)]
    reloads: Vec<(f64, PathBuf)>,
    /// NAMES:X,Y: one group order, as a right click with those units selected gives (each
    /// unit gets its own free tile, the free tiles nearest X,Y by travel cost). NAMES: unit
    /// names separated by commas, or `blue`, `red` or `all`. Group orders apply after the
    /// `--order`s, in the order given, and replace the earlier orders of their units. Repeat
    /// for more groups.
    #[arg(long = "group", value_parser = group_arg, allow_hyphen_values = true)]
    groups: Vec<(Vec<String>, Pos)>,
    /// End with one JSON line of statistics: {"units", "arrived", "gave_up", "plan_ms",
    /// "tick_ms_p50", "tick_ms_p99", "ticks" (wall-clock milliseconds), "makespan_s" (the
    /// last arrival, simulated seconds), "free_makespan_s" (the longest of the arrived
    /// units' walks from start to final tile with no other unit on the map)}.
    #[arg(long)]
    stats: bool,
}

fn group_arg(text: &str) -> Result<(Vec<String>, Pos), String> {
    let bad = || format!("expected NAMES:X,Y (NAMES: a,b,c or blue, red, all), got `{text}`");
    let (names, pos) = text.split_once(':').ok_or_else(bad)?;
    let names: Vec<String> = names.split(',').map(|n| n.trim().to_owned()).collect();
    if names.iter().any(String::is_empty) {
        return Err(bad());
    }
    Ok((names, parse_pos(pos).ok_or_else(bad)?))
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
    let map = super::read_map(&args.map, args.level.as_deref())?;
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
    let mut units: Vec<(Entity, String, Team)> = world
        .query_filtered::<(Entity, &Name, &Team), With<Unit>>()
        .iter(world)
        .map(|(e, n, t)| (e, n.as_str().to_owned(), *t))
        .collect();
    // In the order the map lists them (names are unique on a map).
    units.sort_by_key(|(_, name, _)| map.units.iter().position(|u| &u.name == name));
    let unit_named = |name: &str| {
        units
            .iter()
            .find(|(_, n, _)| n == name)
            .map(|u| u.0)
            .ok_or_else(|| {
                let known: Vec<&str> = units.iter().map(|(_, n, _)| n.as_str()).collect();
                format!(
                    "no unit named `{name}` on {} (units: {})",
                    args.map.display(),
                    known.join(", ")
                )
            })
    };
    let on_map = |what: &str, goal: Pos| {
        if goal.x >= map.width || goal.y >= map.height {
            return Err(format!(
                "{what}:{},{}: the tile is outside the {}x{} map",
                goal.x, goal.y, map.width, map.height
            ));
        }
        Ok(())
    };
    let mut orders = Vec::new();
    for (i, (name, goal)) in args.orders.iter().enumerate() {
        let unit = unit_named(name)?;
        on_map(&format!("order {name}"), *goal)?;
        let append = args.orders[..i].iter().any(|(earlier, _)| earlier == name);
        orders.push(MoveOrder::new([unit], *goal).with_append(append));
    }
    for (names, goal) in &args.groups {
        on_map(&format!("group {}", names.join(",")), *goal)?;
        let mut group = Vec::new();
        for name in names {
            match (name.as_str(), Team::parse(name)) {
                ("all", _) => group.extend(units.iter().map(|u| u.0)),
                (_, Some(team)) => group.extend(units.iter().filter(|u| u.2 == team).map(|u| u.0)),
                (_, None) => group.push(unit_named(name)?),
            }
        }
        let mut seen = HashSet::new();
        group.retain(|e| seen.insert(*e));
        orders.push(MoveOrder::new(group, *goal));
    }
    let ordered: HashSet<Entity> = orders.iter().flat_map(|o| o.units.clone()).collect();
    let starts: HashMap<Entity, (Pos, MovementClass)> = world
        .query_filtered::<(Entity, &Tile, &MovementClass), With<Unit>>()
        .iter(world)
        .filter(|(e, ..)| ordered.contains(e))
        .map(|(e, tile, class)| (e, (tile.0, *class)))
        .collect();
    world.write_message_batch(orders);
    let frames = (args.seconds / FIXED_STEP_SECS).round() as u64;
    let mut ticks = Vec::new();
    let mut planned = None;
    let started = Instant::now();
    for frame in 0..=frames {
        let now = app.world().resource::<Time>().elapsed_secs_f64();
        while let Some((_, (level, nav))) = reloads.next_if(|(at, _)| *at <= now) {
            let renamed = app.world().resource::<Level>().renamed_classes(&level);
            let world = app.world_mut();
            for mut class in world.query::<&mut MovementClass>().iter_mut(world) {
                if let Some(new) = renamed(*class) {
                    *class = new;
                }
            }
            let costs = app.world_mut().resource_mut::<Navigation>().replace(nav);
            let change = app
                .world_mut()
                .resource_mut::<Level>()
                .replace(level, &costs);
            app.world_mut().write_message(change);
            app.world_mut().write_message(costs);
        }
        let tick = Instant::now();
        app.update();
        ticks.push(tick.elapsed().as_secs_f64() * 1000.0);
        if planned.is_none() && all_have_paths(app.world_mut(), &ordered) {
            planned = Some(started.elapsed().as_secs_f64() * 1000.0);
        }
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
    finals.sort_by_key(|(e, ..)| units.iter().position(|(u, ..)| u == e));
    let (mut arrived_units, mut gave_up) = (0, 0);
    let (mut makespan, mut free_makespan) = (None::<f64>, None::<f64>);
    let nav = world.resource::<Navigation>();
    let mut context = SearchContext::new();
    for (entity, name, tile) in finals {
        // How its last order ended: an arrival or a refusal (stepping off is on the way).
        let ended = journal.iter().rev().find_map(|e| match e {
            Entry::Arrived {
                unit,
                seconds,
                short_of,
                ..
            } if *unit == name => Some((true, Some(round_seconds(*seconds)), None, short_of)),
            Entry::Refused { unit, message, .. } if *unit == name => {
                Some((false, None, Some(message.clone()), &None))
            }
            _ => None,
        });
        let (arrived, seconds, reason, short_of) = ended.unwrap_or((false, None, None, &None));
        if ordered.contains(&entity) {
            arrived_units += usize::from(arrived);
            gave_up += usize::from(reason.is_some());
            if let (Some(seconds), Some(&(start, class))) = (seconds, starts.get(&entity)) {
                makespan = Some(makespan.map_or(seconds, |m| m.max(seconds)));
                let free = free_walk_seconds(&mut context, nav, class, start, tile);
                free_makespan = Some(free_makespan.map_or(free, |m| m.max(free)));
            }
        }
        if args.json {
            let mut json = serde_json::json!({"unit": name, "tile": [tile.x, tile.y], "arrived": arrived, "seconds": seconds});
            if let Some(reason) = reason {
                json["reason"] = reason.into();
            }
            if let Some((goal, why)) = short_of {
                json["short_of_goal"] = true.into();
                json["goal"] = serde_json::json!([goal.x, goal.y]);
                json["reason"] = why.as_str().into();
            }
            say(json)?;
        } else {
            let outcome = match (seconds, reason) {
                (Some(s), _) => match short_of {
                    Some((goal, why)) => {
                        let why = why.strip_prefix(&format!("{name}: ")).unwrap_or(why);
                        format!("arrived after {s} s, short of {},{}: {why}", goal.x, goal.y)
                    }
                    None => format!("arrived after {s} s"),
                },
                (None, Some(reason)) => format!("refused: {reason}"),
                // Ordered, but the time ran out before it arrived.
                (None, None) if ordered.contains(&entity) => "on its way".to_owned(),
                (None, None) => "no order".to_owned(),
            };
            say(format!("{name:<12} ({},{})  {outcome}", tile.x, tile.y))?;
        }
    }
    if args.stats {
        let milliseconds = |ms: f64| (ms * 1000.0).round() / 1000.0;
        ticks.sort_by(f64::total_cmp);
        say(serde_json::json!({
            "units": ordered.len(),
            "arrived": arrived_units,
            "gave_up": gave_up,
            "plan_ms": planned.map(milliseconds),
            "tick_ms_p50": milliseconds(percentile(&ticks, 0.5)),
            "tick_ms_p99": milliseconds(percentile(&ticks, 0.99)),
            "ticks": ticks.len(),
            "makespan_s": makespan,
            "free_makespan_s": free_makespan.map(round_seconds),
        }))?;
    }
    Ok(ExitCode::SUCCESS)
}

/// Whether every unit of `ordered` waits for no path and has one to walk or its order has
/// ended (arrived or refused): planning is over.
fn all_have_paths(world: &mut World, ordered: &HashSet<Entity>) -> bool {
    let ended: HashSet<String> = world
        .resource::<Journal>()
        .0
        .iter()
        .filter_map(|e| match e {
            Entry::Arrived { unit, .. } | Entry::Refused { unit, .. } => Some(unit.clone()),
            _ => None,
        })
        .collect();
    world
        .query::<(Entity, &Name, Has<Path>, Has<Pending>)>()
        .iter(world)
        .filter(|(e, ..)| ordered.contains(e))
        .all(|(_, name, has_path, pending)| !pending && (has_path || ended.contains(name.as_str())))
}

/// The nearest-rank percentile `p` (0 to 1) of sorted `values` (0 for none).
fn percentile(sorted: &[f64], p: f64) -> f64 {
    if sorted.is_empty() {
        return 0.0;
    }
    let rank = (p * sorted.len() as f64).ceil() as usize;
    sorted[rank.clamp(1, sorted.len()) - 1]
}
