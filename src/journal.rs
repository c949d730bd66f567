//! A record of what happened to orders (arrivals and refusals) and in tactics (moves,
//! strikes, the end of a game), for the HUD, the headless `simulate` command and the
//! `--events` log the end-to-end test reads; with `--events`, the orders given too (each
//! `ordered`, or a `waypoint` added after a unit's path).

use std::collections::HashMap;
use std::io::Write;

use bevy::prelude::*;
use bevy_tilewalk::tactics::{MoveCancelled, Struck, TacticsMove, TacticsMoved, Won};
use bevy_tilewalk::{Arrived, MoveOrder, OrderRefused, Refusal, SteppingOff, Team, Unit};
use tilewalk_path::Pos;

use crate::AppSystems;
use crate::level::{GameLabels, Level, RestartLevel};

/// One thing that happened to a unit's order.
#[derive(Clone, Debug, PartialEq)]
pub enum Entry {
    Arrived {
        unit: String,
        tile: Pos,
        seconds: f64,
        /// It was sent as near as it could get to a goal it cannot reach: the goal, and why
        /// as the player reads it.
        short_of: Option<(Pos, String)>,
    },
    Refused {
        unit: String,
        goal: Pos,
        reason: Refusal,
        /// The refusal as the player reads it.
        message: String,
    },
    /// It stood on terrain impassable for it and steps off first.
    SteppingOff {
        unit: String,
        from: Pos,
        onto: Pos,
        terrain: String,
    },
    /// Tactics: a unit moved (at once, in turn time) from `from` to `to`.
    Moved {
        unit: String,
        team: Team,
        from: Pos,
        to: Pos,
    },
    /// Tactics: a unit's move was taken back; it stands on `to` again.
    TakenBack { unit: String, team: Team, to: Pos },
    /// Tactics: a strike, with the names of the units it removed (they are gone from the
    /// world by the time anything reads it; their names stay here).
    Struck {
        attacker: String,
        /// The attacker's side.
        team: Team,
        target: String,
        damage: u32,
        counter: Option<u32>,
        attacker_hp: u32,
        target_hp: u32,
        removed: Vec<String>,
    },
    /// Tactics: the other side has no units left.
    Won { team: Team },
}

impl Entry {
    /// The unit the entry is about (the attacker of a strike; empty for a won game).
    pub fn unit(&self) -> &str {
        match self {
            Self::Arrived { unit, .. }
            | Self::Refused { unit, .. }
            | Self::SteppingOff { unit, .. }
            | Self::Moved { unit, .. }
            | Self::TakenBack { unit, .. } => unit,
            Self::Struck { attacker, .. } => attacker,
            Self::Won { .. } => "",
        }
    }

    /// A tactics entry as the player reads it (in the notice and the turn log), e.g.
    /// `brute strikes lancer: 7 damage, 3 back (brute 17 hp, lancer 0 hp): lancer falls`;
    /// `None` for the other entries, which the HUD words itself.
    pub fn tactics_line(&self) -> Option<String> {
        match self {
            Self::Moved { unit, from, to, .. } => Some(format!("{unit} moves {from} -> {to}")),
            Self::Struck {
                attacker,
                target,
                damage,
                counter,
                attacker_hp,
                target_hp,
                removed,
                ..
            } => {
                let back = counter.map_or_else(String::new, |c| format!(", {c} back"));
                let fallen = match removed.as_slice() {
                    [] => String::new(),
                    names => format!(": {} falls", names.join(" and ")),
                };
                Some(format!(
                    "{attacker} strikes {target}: {damage} damage{back} ({attacker} \
                     {attacker_hp} hp, {target} {target_hp} hp){fallen}"
                ))
            }
            Self::Won { team } => Some(format!("{team} wins: the other side has no units left")),
            // A move taken back leaves the turn log instead of adding to it.
            Self::Arrived { .. }
            | Self::Refused { .. }
            | Self::SteppingOff { .. }
            | Self::TakenBack { .. } => None,
        }
    }

    /// One JSON object, e.g. `{"event":"arrived","unit":"knight","tile":[5,3],"seconds":4.25}`;
    /// an arrival short of its goal adds `"short_of_goal":true,"goal":[x,y],"reason":…`.
    pub fn to_json(&self) -> serde_json::Value {
        match self {
            Self::Arrived {
                unit,
                tile,
                seconds,
                short_of,
            } => {
                let mut json = serde_json::json!({
                    "event": "arrived", "unit": unit, "tile": [tile.x, tile.y], "seconds": round_seconds(*seconds),
                });
                if let Some((goal, reason)) = short_of {
                    json["short_of_goal"] = true.into();
                    json["goal"] = serde_json::json!([goal.x, goal.y]);
                    json["reason"] = reason.as_str().into();
                }
                json
            }
            Self::Refused {
                unit,
                goal,
                message,
                ..
            } => serde_json::json!({
                "event": "refused", "unit": unit, "goal": [goal.x, goal.y], "reason": message,
            }),
            Self::SteppingOff {
                unit,
                from,
                onto,
                terrain,
            } => serde_json::json!({
                "event": "stepping_off", "unit": unit, "from": [from.x, from.y], "onto": [onto.x, onto.y], "terrain": terrain,
            }),
            Self::Moved {
                unit,
                team,
                from,
                to,
            } => serde_json::json!({
                "event": "moved", "unit": unit, "team": team.to_string(), "from": [from.x, from.y], "to": [to.x, to.y],
            }),
            Self::TakenBack { unit, team, to } => serde_json::json!({
                "event": "taken_back", "unit": unit, "team": team.to_string(), "to": [to.x, to.y],
            }),
            Self::Struck {
                attacker,
                team,
                target,
                damage,
                counter,
                attacker_hp,
                target_hp,
                removed,
            } => serde_json::json!({
                "event": "struck", "attacker": attacker, "team": team.to_string(), "target": target,
                "damage": damage, "counter": counter, "attacker_hp": attacker_hp,
                "target_hp": target_hp, "removed": removed,
            }),
            Self::Won { team } => serde_json::json!({"event": "won", "team": team.to_string()}),
        }
    }
}

/// Seconds to 4 decimals: exact enough, and stable to print.
pub fn round_seconds(seconds: f64) -> f64 {
    (seconds * 1e4).round() / 1e4
}

/// Everything that happened so far, in order.
#[derive(Resource, Default, Debug)]
pub struct Journal(pub Vec<Entry>);

/// Where to append each entry as a JSON line, when asked for (`play --events FILE`). The
/// view adds its own lines (where the map is on screen, screenshots taken).
#[derive(Resource)]
pub struct EventLog(pub Box<dyn Write + Send + Sync>);

impl EventLog {
    /// Appends one JSON object as a line. The lines of a frame reach the file together at
    /// its end (`flush_event_log`): one write a frame, however many units step in it.
    pub fn write(&mut self, event: &serde_json::Value) -> std::io::Result<()> {
        writeln!(self.0, "{event}")
    }
}

/// The names of the units that left the world (removed in combat), for the entries written
/// after they are gone.
#[derive(Resource, Default, Debug)]
struct Fallen(HashMap<Entity, (String, Team)>);

fn remember_fallen(
    gone: On<Remove, Unit>,
    units: Query<(&Name, &Team)>,
    mut fallen: ResMut<Fallen>,
) {
    if let Ok((name, team)) = units.get(gone.entity) {
        fallen
            .0
            .insert(gone.entity, (name.as_str().to_owned(), *team));
    }
}

pub(super) fn plugin(app: &mut App) {
    app.init_resource::<Journal>()
        .init_resource::<Fallen>()
        .add_message::<RestartLevel>()
        .add_observer(remember_fallen)
        .add_systems(
            Update,
            (
                record_entries,
                log_orders.run_if(resource_exists::<EventLog>),
                log_restarts.run_if(resource_exists::<EventLog>),
            )
                .in_set(AppSystems::Present),
        )
        .add_systems(Last, flush_event_log.run_if(resource_exists::<EventLog>));
}

/// The map started afresh ([`RestartLevel`]): `{"event":"restarted"}`.
fn log_restarts(mut restarts: MessageReader<RestartLevel>, mut log: ResMut<EventLog>) -> Result {
    for _ in restarts.read() {
        log.write(&serde_json::json!({"event": "restarted"}))?;
    }
    Ok(())
}

/// Every order given, with the units it went to:
/// `{"event":"ordered","units":["knight"],"goal":[5,3]}`, or `"event":"waypoint"` for a trip
/// added after the units' paths (shift + right click). A tactics move is an `ordered` of one
/// unit.
fn log_orders(
    mut moves: MessageReader<MoveOrder>,
    mut tactics: MessageReader<TacticsMove>,
    names: Query<&Name>,
    mut log: ResMut<EventLog>,
) -> Result {
    let name = |e: Entity| names.get(e).map_or("?", Name::as_str);
    for order in moves.read() {
        let units: Vec<&str> = order.units.iter().map(|&e| name(e)).collect();
        let event = if order.append { "waypoint" } else { "ordered" };
        log.write(&serde_json::json!({"event": event, "units": units, "goal": [order.goal.x, order.goal.y]}))?;
    }
    for order in tactics.read() {
        log.write(&serde_json::json!({"event": "ordered", "units": [name(order.unit)], "goal": [order.to.x, order.to.y]}))?;
    }
    Ok(())
}

/// The frame's event lines, written out at its end so a reader sees them.
fn flush_event_log(mut log: ResMut<EventLog>) -> Result {
    Ok(log.0.flush()?)
}

fn record_entries(
    mut arrived: MessageReader<Arrived>,
    mut refused: MessageReader<OrderRefused>,
    mut stepping: MessageReader<SteppingOff>,
    (mut moved, mut cancelled, mut struck, mut won): (
        MessageReader<TacticsMoved>,
        MessageReader<MoveCancelled>,
        MessageReader<Struck>,
        MessageReader<Won>,
    ),
    units: Query<(&Name, &Team), With<Unit>>,
    fallen: Res<Fallen>,
    level: Option<Res<Level>>,
    mut journal: ResMut<Journal>,
    log: Option<ResMut<EventLog>>,
) -> Result {
    let Some(level) = level else {
        return Ok(());
    };
    let known = |e: Entity| match units.get(e) {
        Ok((name, team)) => Some((name.as_str().to_owned(), *team)),
        Err(_) => fallen.0.get(&e).cloned(),
    };
    let name = |e: Entity| known(e).map_or_else(|| format!("{e}"), |(name, _)| name);
    let team = |e: Entity| known(e).map_or(Team::RED, |(_, team)| team);
    let start = journal.0.len();
    let labels = GameLabels {
        level: &level,
        name_of: name,
    };
    for a in arrived.read() {
        let unit = name(a.unit);
        let short_of = a
            .short_of_goal
            .map(|short| (short.goal, short.message(&unit, &labels)));
        journal.0.push(Entry::Arrived {
            unit,
            tile: a.tile,
            seconds: a.seconds,
            short_of,
        });
    }
    for s in stepping.read() {
        let terrain = level
            .terrain(s.from)
            .map_or_else(String::new, |t| t.name.clone());
        info!("{} steps off {terrain} at {}", name(s.unit), s.from);
        journal.0.push(Entry::SteppingOff {
            unit: name(s.unit),
            from: s.from,
            onto: s.onto,
            terrain,
        });
    }
    for r in refused.read() {
        let message = r.reason.message(&name(r.unit), &labels);
        info!("order refused: {message}");
        journal.0.push(Entry::Refused {
            unit: name(r.unit),
            goal: r.goal,
            reason: r.reason.clone(),
            message,
        });
    }
    for m in moved.read() {
        journal.0.push(Entry::Moved {
            unit: name(m.unit),
            team: team(m.unit),
            from: m.path.cells[0],
            to: m.path.goal(),
        });
    }
    for c in cancelled.read() {
        journal.0.push(Entry::TakenBack {
            unit: name(c.unit),
            team: team(c.unit),
            to: c.to,
        });
    }
    for s in struck.read() {
        journal.0.push(Entry::Struck {
            attacker: name(s.attacker),
            team: team(s.attacker),
            target: name(s.target),
            damage: s.damage,
            counter: s.counter,
            attacker_hp: s.attacker_hp,
            target_hp: s.target_hp,
            removed: s.removed.iter().map(|&e| name(e)).collect(),
        });
    }
    for w in won.read() {
        info!("{} wins", w.team);
        journal.0.push(Entry::Won { team: w.team });
    }
    if let Some(mut log) = log {
        for entry in &journal.0[start..] {
            log.write(&entry.to_json())?;
        }
    }
    Ok(())
}
