//! Unit sprites (shape per class, colour per team), selection rings and refusal markers.

use bevy::prelude::*;

use crate::AppSystems;
use crate::convert::TILE_SIZE;
use crate::level::Level;
use crate::pathing::OrderRefused;
use crate::units::{MovementClass, Selected, Team, Unit};

pub const BLUE: Color = Color::srgb(0.30, 0.55, 1.0);
pub const RED: Color = Color::srgb(0.95, 0.30, 0.28);
const RING: Color = Color::srgb(1.0, 0.9, 0.2);

/// The ring drawn around a selected unit (a child of the unit).
#[derive(Component)]
struct SelectionRing;

/// A marker on a tile an order was refused for; fades out.
#[derive(Component)]
struct RefusalMarker(Timer);

pub(super) fn plugin(app: &mut App) {
    app.add_systems(
        Update,
        (
            dress_units,
            show_rings,
            mark_refusals.run_if(resource_exists::<Level>),
            fade_markers,
        )
            .in_set(AppSystems::Present),
    );
}

pub fn team_color(team: Team) -> Color {
    match team {
        Team::Blue => BLUE,
        Team::Red => RED,
    }
}

fn dress_units(
    mut commands: Commands,
    server: Res<AssetServer>,
    units: Query<(Entity, &Team, &MovementClass), Added<Unit>>,
) {
    for (entity, &team, &class) in &units {
        let image = server.load(format!("textures/unit_{}.png", class.name()));
        commands
            .entity(entity)
            .insert((
                Sprite {
                    image,
                    color: team_color(team),
                    custom_size: Some(Vec2::splat(TILE_SIZE * 1.1)),
                    ..default()
                },
                Pickable::default(),
            ))
            .with_child((
                SelectionRing,
                Sprite {
                    image: server.load("textures/ring.png"),
                    color: RING,
                    custom_size: Some(Vec2::splat(TILE_SIZE * 1.3)),
                    ..default()
                },
                Transform::from_xyz(0.0, 0.0, -0.5),
                Visibility::Hidden,
            ))
            .observe(super::input::on_unit_click);
    }
}

fn show_rings(
    units: Query<Has<Selected>, With<Unit>>,
    mut rings: Query<(&ChildOf, &mut Visibility), With<SelectionRing>>,
) {
    for (parent, mut visibility) in &mut rings {
        let selected = units.get(parent.parent()).unwrap_or(false);
        visibility.set_if_neq(if selected {
            Visibility::Inherited
        } else {
            Visibility::Hidden
        });
    }
}

fn mark_refusals(
    mut commands: Commands,
    mut refused: MessageReader<OrderRefused>,
    level: Res<Level>,
    server: Res<AssetServer>,
) {
    for refusal in refused.read() {
        if level.contains(refusal.goal) {
            commands.spawn((
                RefusalMarker(Timer::from_seconds(2.0, TimerMode::Once)),
                Sprite {
                    image: server.load("textures/marker.png"),
                    color: RED,
                    custom_size: Some(Vec2::splat(TILE_SIZE)),
                    ..default()
                },
                Transform::from_translation(level.geometry().center(refusal.goal).extend(5.0)),
            ));
        }
    }
}

fn fade_markers(
    mut commands: Commands,
    time: Res<Time>,
    mut markers: Query<(Entity, &mut RefusalMarker, &mut Sprite)>,
) {
    for (entity, mut marker, mut sprite) in &mut markers {
        marker.0.tick(time.delta());
        sprite.color.set_alpha(marker.0.fraction_remaining());
        if marker.0.is_finished() {
            commands.entity(entity).despawn();
        }
    }
}
