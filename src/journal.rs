//! A record of what happened to orders (arrivals and refusals), for the HUD, the headless
//! `simulate` command and the `--events` log the end-to-end test reads.

use std::io::Write;

use bevy::prelude::*;
use bevy_tilewalk::{Arrived, OrderRefused, Refusal, SteppingOff};
use tilewalk_path::Pos;

use crate::AppSystems;
use crate::level::{GameLabels, Level};
use crate::units::Unit;

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
}

impl Entry {
    pub fn unit(&self) -> &str {
        match self {
            Self::Arrived { unit, .. }
            | Self::Refused { unit, .. }
            | Self::SteppingOff { unit, .. } => unit,
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

pub(super) fn plugin(app: &mut App) {
    app.init_resource::<Journal>()
        .add_systems(Update, record_entries.in_set(AppSystems::Present))
        .add_systems(Last, flush_event_log.run_if(resource_exists::<EventLog>));
}

/// The frame's event lines, written out at its end so a reader sees them.
fn flush_event_log(mut log: ResMut<EventLog>) -> Result {
    Ok(log.0.flush()?)
}

fn record_entries(
    mut arrived: MessageReader<Arrived>,
    mut refused: MessageReader<OrderRefused>,
    mut stepping: MessageReader<SteppingOff>,
    units: Query<&Name, With<Unit>>,
    level: Option<Res<Level>>,
    mut journal: ResMut<Journal>,
    log: Option<ResMut<EventLog>>,
) -> Result {
    let Some(level) = level else {
        return Ok(());
    };
    let name = |e: Entity| {
        units
            .get(e)
            .map_or_else(|_| format!("{e}"), |n| n.as_str().to_owned())
    };
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
    if let Some(mut log) = log {
        for entry in &journal.0[start..] {
            log.write(&entry.to_json())?;
        }
    }
    Ok(())
}
