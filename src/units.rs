//! Units as the game spawns and draws them: the plugin's unit components (`bevy_tilewalk`'s
//! [`Unit`], [`Team`], [`MovementClass`], [`Tile`]) with a name and a place in the world, and
//! which of them the player has selected ([`Selected`]).

use bevy::prelude::*;
use bevy_tilewalk::debug::RecordSearch;
use bevy_tilewalk::{MovementClass, PlannerMemory, Team, Tile, Unit};
use tilewalk_path::Pos;

pub(super) fn plugin(app: &mut App) {
    app.register_type::<Selected>()
        .add_observer(on_unit_selected)
        .add_observer(on_unit_deselected);
}

/// Marks the units the player has selected. Their searches keep their expanded cells for the
/// HUD ([`RecordSearch`]), and selecting two or more readies the group planner's memory
/// before their order ([`PlannerMemory::Reserved`]).
#[derive(Component, Reflect, Clone, Copy, Debug, Default)]
#[reflect(Component, Default, Debug, Clone)]
pub struct Selected;

fn on_unit_selected(
    selected: On<Add, Selected>,
    mut commands: Commands,
    all: Query<(), With<Selected>>,
    memory: Option<Res<PlannerMemory>>,
) {
    commands.entity(selected.entity).try_insert(RecordSearch);
    if all.iter().nth(1).is_some() && memory.is_some_and(|m| *m != PlannerMemory::Reserved) {
        commands.insert_resource(PlannerMemory::Reserved);
    }
}

fn on_unit_deselected(deselected: On<Remove, Selected>, mut commands: Commands) {
    commands
        .entity(deselected.entity)
        .try_remove::<RecordSearch>();
}

/// A unit standing on `tile`, drawn at `translation`. Its name is unique on the map.
pub fn unit(
    name: &str,
    team: Team,
    class: MovementClass,
    tile: Pos,
    translation: Vec3,
) -> impl Bundle {
    (
        Unit,
        Name::new(name.to_owned()),
        team,
        class,
        Tile(tile),
        Transform::from_translation(translation),
        Visibility::default(),
    )
}

/// Units draw above the tilemap and the overlays.
pub const UNIT_Z: f32 = 10.0;
