//! Walking units along their `Path`, tile centre to tile centre, at the speed the cost model
//! gives: a step takes step length × the entered tile's cost ÷ the unit's speed.

use std::collections::{HashMap, HashSet};

use bevy::ecs::query::QueryData;
use bevy::prelude::*;
use tilewalk_path::Pos;

use crate::AppSystems;
use crate::level::Level;
use crate::pathing::{OrderRefused, Path, Refusal, Replan};
use crate::units::{Motion, MovementClass, Stride, Tile, UNIT_Z, Unit};

/// How many cost-1 tiles a unit crosses per second (straight steps).
pub const UNIT_SPEED_TILES_PER_SEC: f64 = 3.0;
/// How long a unit waits for a tile held by an idle unit before it looks for a way around.
pub const WAIT_FOR_IDLE_SECS: f32 = 0.5;
/// How long it waits for a unit that is itself moving (it usually moves on) before re-planning.
pub const WAIT_FOR_MOVING_SECS: f32 = 2.0;
/// Re-plans around blocking units before a unit gives up its order.
pub const MAX_REPLANS: u32 = 3;

/// A unit reached the end of its path.
#[derive(Message, Clone, Copy, Debug)]
pub struct Arrived {
    pub unit: Entity,
    pub tile: Pos,
    /// Simulated seconds since the app started, exact to the step (not to the frame).
    pub seconds: f64,
}

/// How long a step of `length` (1 straight or across a hex side, √2 diagonally) into a tile
/// of cost `cost` takes.
pub fn step_seconds(length: f64, cost: f64) -> f64 {
    length * cost / UNIT_SPEED_TILES_PER_SEC
}

pub(super) fn plugin(app: &mut App) {
    app.add_message::<Arrived>().add_systems(
        Update,
        follow_paths
            .in_set(AppSystems::Move)
            .run_if(resource_exists::<Level>),
    );
}

/// What walking reads and moves of a unit.
#[derive(QueryData)]
#[query_data(mutable)]
struct Walker {
    entity: Entity,
    name: &'static Name,
    class: &'static MovementClass,
    tile: &'static mut Tile,
    motion: &'static mut Motion,
    path: Option<&'static mut Path>,
    transform: &'static mut Transform,
}

fn follow_paths(
    mut commands: Commands,
    time: Res<Time>,
    level: Res<Level>,
    mut units: Query<Walker, With<Unit>>,
    mut arrived: MessageWriter<Arrived>,
    mut replan: MessageWriter<Replan>,
    mut refused: MessageWriter<OrderRefused>,
    names: Query<&Name, With<Unit>>,
) {
    let mut holders: HashMap<Pos, Entity> = units.iter().map(|u| (u.tile.0, u.entity)).collect();
    let moving: HashSet<Entity> = units
        .iter()
        .filter(|u| u.path.is_some())
        .map(|u| u.entity)
        .collect();
    let now = time.elapsed_secs_f64();
    let geometry = level.geometry();
    for walker in &mut units {
        let WalkerItem {
            entity,
            name,
            class,
            mut tile,
            mut motion,
            mut path,
            mut transform,
        } = walker;
        let mut left = time.delta_secs_f64();
        loop {
            if let Some(stride) = &mut motion.stride {
                stride.elapsed += left;
                left = 0.0;
                if stride.elapsed < stride.duration {
                    break;
                }
                left = stride.elapsed - stride.duration;
                motion.stride = None;
            }
            let Some(path) = path.as_deref_mut() else {
                break;
            };
            let Some(&to) = path.cells.get(path.next) else {
                commands.entity(entity).remove::<Path>();
                arrived.write(Arrived {
                    unit: entity,
                    tile: tile.0,
                    seconds: now - left,
                });
                break;
            };
            if let Some(&holder) = holders.get(&to)
                && holder != entity
                && !path.pass_through
            {
                path.waited += left as f32;
                let patience = if moving.contains(&holder) {
                    WAIT_FOR_MOVING_SECS
                } else {
                    WAIT_FOR_IDLE_SECS
                };
                if path.waited >= patience {
                    path.waited = 0.0;
                    if path.replans >= MAX_REPLANS {
                        commands.entity(entity).remove::<Path>();
                        let blocker = names.get(holder).map_or("another unit", |n| n.as_str());
                        refused.write(OrderRefused {
                            unit: entity,
                            goal: path.goal(),
                            reason: Refusal::GaveUp {
                                unit: name.as_str().into(),
                                blocker: blocker.into(),
                                at: to,
                            },
                        });
                    } else {
                        path.replans += 1;
                        replan.write(Replan {
                            unit: entity,
                            avoid_units: true,
                        });
                    }
                }
                break;
            }
            // A tile that became impassable: the re-plan for that change is on its way.
            let Some(cost) = level.grid(*class).cost(to) else {
                break;
            };
            path.waited = 0.0;
            // Passing through an ally leaves its hold on its own tile alone.
            if holders.get(&tile.0) == Some(&entity) {
                holders.remove(&tile.0);
            }
            holders.entry(to).or_insert(entity);
            motion.stride = Some(Stride {
                from: tile.0,
                to,
                elapsed: 0.0,
                duration: step_seconds(geometry.step_length(tile.0, to), cost),
            });
            tile.0 = to;
            path.next += 1;
        }
        let position = match motion.stride {
            Some(s) => geometry
                .center(s.from)
                .lerp(geometry.center(s.to), (s.elapsed / s.duration) as f32),
            None => geometry.center(tile.0),
        };
        transform.translation = position.extend(UNIT_Z);
    }
}
