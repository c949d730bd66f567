//! The outcome messages as entity events on their units, and a move order given per entity.

use bevy::ecs::schedule::InternedScheduleLabel;
use bevy::prelude::*;
use tilewalk_path::Pos;

use crate::TilewalkSystems;
use crate::movement::{Arrived, follow_paths};
use crate::pathing::{MoveOrder, OrderRefused};

pub(crate) fn plugin(app: &mut App, schedule: InternedScheduleLabel) {
    app.add_systems(
        schedule,
        trigger_outcomes
            .after(follow_paths)
            .in_set(TilewalkSystems::Move),
    );
}

/// Triggers each [`Arrived`] and [`OrderRefused`] written this frame (by the plugin's
/// systems or by anyone else) as an entity event on its unit, so that the unit's observers
/// and the global ones run. Runs last in [`TilewalkSystems::Move`](crate::TilewalkSystems):
/// the observers run at the sync point after it, in the frame the messages were written.
fn trigger_outcomes(
    mut commands: Commands,
    mut arrived: MessageReader<Arrived>,
    mut refused: MessageReader<OrderRefused>,
) {
    for arrival in arrived.read() {
        commands.trigger(*arrival);
    }
    for refusal in refused.read() {
        commands.trigger(refusal.clone());
    }
}

/// A move order for one unit, given on its entity:
/// `commands.entity(knight).move_to(Pos::new(5, 3))` writes `MoveOrder::new([knight], goal)`,
/// served with the frame's other orders. The unit's [`Arrived`] or [`OrderRefused`] can be
/// observed on the same entity (`.observe(|arrived: On<Arrived>| ...)`).
pub trait MoveCommands {
    /// Orders this unit to `goal`, replacing its path ([`MoveOrder::new`]).
    fn move_to(&mut self, goal: Pos) -> &mut Self;
}

impl MoveCommands for EntityCommands<'_> {
    fn move_to(&mut self, goal: Pos) -> &mut Self {
        let order = MoveOrder::new([self.id()], goal);
        self.commands().write_message(order);
        self
    }
}

impl MoveCommands for EntityWorldMut<'_> {
    fn move_to(&mut self, goal: Pos) -> &mut Self {
        let order = MoveOrder::new([self.id()], goal);
        self.world_scope(|world| world.write_message(order));
        self
    }
}
