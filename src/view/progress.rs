//! Each side's last order of several units, counted as it goes for the top bar:
//! `blue 741/1,500 arrived · 600 walking · 14 cannot reach`.

use std::collections::{HashMap, HashSet};

use bevy::prelude::*;
use bevy_tilewalk::Team;

use super::{Walking, grouped};
use crate::AppSystems;
use crate::journal::{Entry, Journal};

/// One side's last order of more than one unit.
#[derive(Debug)]
struct SideOrder {
    team: Team,
    /// The units ordered, by entity and name.
    units: Vec<(Entity, String)>,
    /// The units stopped (`S`) since.
    stopped: HashSet<Entity>,
    /// The names of the units that cannot reach the click: refused, or stopped short of it.
    cannot_reach: HashSet<String>,
    /// How many journal entries were read for it.
    read: usize,
}

/// The last order of several units of each side, and its line for the top bar.
#[derive(Resource, Default, Debug)]
pub(super) struct SideOrders {
    orders: Vec<SideOrder>,
    /// One line a side, as the last [`count_progress`] counted.
    pub text: String,
}

impl SideOrders {
    /// A new order of `units` (entity, team, name), whose outcomes the journal tells from its
    /// entry `from` on: it replaces the last order of each side it moves. A side that moved
    /// one unit has no line (the notice tells how that unit does).
    pub(super) fn ordered(&mut self, units: &[(Entity, Team, String)], from: usize) {
        let mut teams: Vec<Team> = Vec::new();
        for &(_, team, _) in units {
            if !teams.contains(&team) {
                teams.push(team);
            }
        }
        for team in teams {
            self.orders.retain(|o| o.team != team);
            let side: Vec<(Entity, String)> = units
                .iter()
                .filter(|u| u.1 == team)
                .map(|(e, _, n)| (*e, n.clone()))
                .collect();
            if side.len() > 1 {
                self.orders.push(SideOrder {
                    team,
                    units: side,
                    stopped: HashSet::new(),
                    cannot_reach: HashSet::new(),
                    read: from,
                });
            }
        }
        self.orders.sort_by_key(|o| o.team != Team::BLUE);
    }

    /// `units` were stopped (`S`): they count as stopped, not arrived.
    pub(super) fn stopped(&mut self, units: impl IntoIterator<Item = Entity> + Clone) {
        for order in &mut self.orders {
            let mine: HashSet<Entity> = order.units.iter().map(|u| u.0).collect();
            order
                .stopped
                .extend(units.clone().into_iter().filter(|u| mine.contains(u)));
        }
    }

    /// Reads the journal's new entries: a refusal or a stop short of the click is a unit that
    /// cannot reach it; an arrival at the click takes that back (a re-plan found a way).
    fn read(&mut self, journal: &[Entry]) {
        for order in &mut self.orders {
            let new = journal.get(order.read..).unwrap_or_default();
            order.read = journal.len();
            for entry in new {
                let (unit, cannot) = match entry {
                    Entry::Refused { unit, .. } => (unit, true),
                    Entry::Arrived { unit, short_of, .. } => (unit, short_of.is_some()),
                    _ => continue,
                };
                if !order.units.iter().any(|(_, n)| n == unit) {
                    continue;
                }
                if cannot {
                    order.cannot_reach.insert(unit.clone());
                } else {
                    order.cannot_reach.remove(unit);
                }
            }
        }
    }

    /// One line a side: of its order's units, those walking (or waiting for their path),
    /// those that cannot reach the click, those stopped, and the others arrived.
    fn lines(&self, walking: impl Fn(Entity) -> bool) -> Vec<String> {
        self.orders
            .iter()
            .map(|order| {
                let mut counts: HashMap<&str, usize> = HashMap::new();
                for (entity, name) in &order.units {
                    let state = if walking(*entity) {
                        "walking"
                    } else if order.stopped.contains(entity) {
                        "stopped"
                    } else if order.cannot_reach.contains(name) {
                        "cannot reach"
                    } else {
                        "arrived"
                    };
                    *counts.entry(state).or_default() += 1;
                }
                let count = |state| counts.get(state).copied().unwrap_or_default();
                let mut line = format!(
                    "{} {}/{} arrived",
                    order.team,
                    grouped(count("arrived")),
                    grouped(order.units.len())
                );
                for state in ["walking", "cannot reach", "stopped"] {
                    if count(state) > 0 {
                        line.push_str(&format!(" · {} {state}", grouped(count(state))));
                    }
                }
                line
            })
            .collect()
    }
}

pub(super) fn plugin(app: &mut App) {
    app.init_resource::<SideOrders>().add_systems(
        Update,
        count_progress
            .in_set(AppSystems::Hud)
            .before(super::keep_drawing),
    );
}

/// Counts each side's order again (while it has any).
fn count_progress(
    journal: Res<Journal>,
    walking: Query<(), Walking>,
    mut orders: ResMut<SideOrders>,
) {
    if orders.orders.is_empty() && orders.text.is_empty() {
        return;
    }
    orders.read(&journal.0);
    let text = orders.lines(|e| walking.contains(e)).join("\n");
    if orders.text != text {
        orders.text = text;
    }
}

#[cfg(test)]
mod tests {
    use tilewalk_path::Pos;

    use super::*;

    fn arrived(unit: &str, short: bool) -> Entry {
        Entry::Arrived {
            unit: unit.into(),
            tile: Pos::new(1, 1),
            seconds: 1.0,
            short_of: short.then(|| (Pos::new(2, 2), "water".into())),
        }
    }

    #[test]
    fn each_side_counts_its_orders_units_arrived_walking_unable_and_stopped() {
        let mut world = World::new();
        let units: Vec<(Entity, Team, String)> = (0..6)
            .map(|i| {
                let team = if i < 5 { Team::RED } else { Team::BLUE };
                (world.spawn_empty().id(), team, format!("u{i}"))
            })
            .collect();
        let mut orders = SideOrders::default();
        // Blue moved one unit: no line; red five.
        orders.ordered(&units, 0);
        let walking: HashSet<Entity> = [units[0].0, units[1].0].into();
        let journal = [
            arrived("u2", false),
            arrived("u3", true),
            arrived("u5", false),
        ];
        orders.read(&journal);
        orders.stopped([units[4].0]);
        assert_eq!(
            orders.lines(|e| walking.contains(&e)),
            ["red 1/5 arrived · 2 walking · 1 cannot reach · 1 stopped"]
        );
        // A re-plan brings u3 to the click after all; the walkers arrive.
        orders.read(&[journal.as_slice(), &[arrived("u3", false)]].concat());
        assert_eq!(orders.lines(|_| false), ["red 4/5 arrived · 1 stopped"]);
        // Blue's new order of two comes first; red's own new order replaces its last.
        orders.ordered(
            &[
                (units[5].0, Team::BLUE, "u5".into()),
                (units[0].0, Team::BLUE, "u0".into()),
            ],
            4,
        );
        orders.ordered(&units[..2], 4);
        assert_eq!(
            orders.lines(|_| true),
            [
                "blue 0/2 arrived · 2 walking",
                "red 0/2 arrived · 2 walking"
            ]
        );
    }

    #[test]
    fn an_army_is_counted_with_thousands_grouped() {
        let mut world = World::new();
        let units: Vec<(Entity, Team, String)> = (0..1500)
            .map(|i| (world.spawn_empty().id(), Team::BLUE, format!("b{i}")))
            .collect();
        let mut orders = SideOrders::default();
        orders.ordered(&units, 0);
        let journal: Vec<Entry> = (0..14).map(|i| arrived(&format!("b{i}"), true)).collect();
        orders.read(&journal);
        let walking: HashSet<Entity> = units[14..614].iter().map(|u| u.0).collect();
        assert_eq!(
            orders.lines(|e| walking.contains(&e)),
            ["blue 886/1,500 arrived · 600 walking · 14 cannot reach"]
        );
    }
}
