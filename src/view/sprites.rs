//! Unit sprites (a shape per unit kind, a colour per team, never smaller than a few pixels on
//! screen), name labels for the selected unit and the hovered one,
//! selection rings, and refusal markers that stand out on any terrain at any zoom.

use bevy::ecs::query::QueryData;
use bevy::prelude::*;
use bevy_tilewalk::tactics::AttackRange;
use bevy_tilewalk::{MovementClass, OrderRefused, Pending, Refusal, Team, Tile, Unit};

use super::Cursor;
use super::input::UNIT_SPRITE_TILES;
use crate::AppSystems;
use crate::convert::TILE_SIZE;
use crate::level::Level;
use crate::units::Selected;
use tilewalk_path::Pos;

pub const BLUE: Color = Color::srgb(0.30, 0.55, 1.0);
pub const RED: Color = Color::srgb(0.95, 0.30, 0.28);
const RING: Color = Color::srgb(1.0, 0.9, 0.2);
/// A unit is drawn at least this many pixels across, however far out the camera zooms.
const MIN_UNIT_PX: f32 = 14.0;
/// A refusal marker is at least this many pixels across.
const MIN_MARKER_PX: f32 = 28.0;

/// The ring drawn around a selected unit (a child of the unit).
#[derive(Component)]
struct SelectionRing;

/// The unit's name, shown above it while it is the one selected unit and below it while it
/// is hovered (a child of the unit).
#[derive(Component)]
struct NameLabel;

/// A marker on a tile an order was refused for; fades out.
#[derive(Component)]
pub(super) struct RefusalMarker(Timer);

/// The tile under the pointer that a move there would be refused for, set for this frame by
/// the move's preview (real time, tactics); the refusal cross is drawn on it.
#[derive(Resource, Default, Debug)]
pub(super) struct RefusalCross(pub Option<Pos>);

/// The cross on the hovered tile a move would be refused for.
#[derive(Component)]
struct HoverCross;

pub(super) fn plugin(app: &mut App) {
    app.init_resource::<RefusalCross>().add_systems(
        Update,
        place_hover_cross
            .in_set(AppSystems::Hud)
            .run_if(resource_exists::<Level>),
    );
    app.add_systems(
        Update,
        (
            dress_units.run_if(resource_exists::<Level>),
            show_rings_and_labels,
            keep_units_visible,
            fade_pending,
            mark_refusals.run_if(resource_exists::<Level>),
            fade_markers,
        )
            .in_set(AppSystems::Present),
    );
}

pub fn team_color(team: Team) -> Color {
    match team {
        Team::BLUE => BLUE,
        // The game's other side.
        _ => RED,
    }
}

/// What a unit looks like: its movement class's name (`horse`, `flyer`; any other class is
/// drawn as a soldier on foot), and for soldiers whether they fight from a distance (an
/// attack reach beyond 1 makes an archer).
fn sprite_file(class: &str, attack: Option<&AttackRange>) -> &'static str {
    match class {
        "horse" => "textures/unit_horse.png",
        "flyer" => "textures/unit_flyer.png",
        _ if attack.is_some_and(|a| a.1 > 1) => "textures/unit_archer.png",
        _ => "textures/unit_foot.png",
    }
}

/// What a new unit's look is made from.
#[derive(QueryData)]
struct NewUnit {
    entity: Entity,
    name: &'static Name,
    team: &'static Team,
    class: &'static MovementClass,
    attack: Option<&'static AttackRange>,
}

fn dress_units(
    mut commands: Commands,
    server: Res<AssetServer>,
    level: Res<Level>,
    units: Query<NewUnit, Added<Unit>>,
) {
    for NewUnitItem {
        entity,
        name,
        team,
        class,
        attack,
    } in &units
    {
        commands
            .entity(entity)
            .insert(Sprite {
                image: server.load(sprite_file(level.class_name(*class), attack)),
                color: team_color(*team),
                custom_size: Some(Vec2::splat(TILE_SIZE * UNIT_SPRITE_TILES)),
                ..default()
            })
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
            .with_child((
                NameLabel,
                Text2d::new(name.as_str()),
                TextFont::from_font_size(13.0),
                TextColor(Color::WHITE),
                TextBackgroundColor(Color::srgba(0.05, 0.06, 0.08, 0.75)),
                // Under every unit sprite (all units stand at one depth): a name never
                // hides a unit.
                Transform::from_xyz(0.0, LABEL_OFFSET, -0.3),
                Visibility::Hidden,
            ));
    }
}

/// The selection rings, apart from the name labels.
type RingsOnly = (With<SelectionRing>, Without<NameLabel>);

/// How far above (or below) its unit's centre a name label sits.
const LABEL_OFFSET: f32 = TILE_SIZE * 0.85;

/// Rings around selected units. Names: above the one selected unit, and below the unit under
/// the pointer (when that is another), so two names never share a line; a larger selection
/// is named in the HUD instead.
fn show_rings_and_labels(
    cursor: Res<Cursor>,
    units: Query<(Has<Selected>, &Tile), With<Unit>>,
    selected: Query<(), (With<Selected>, With<Unit>)>,
    mut rings: Query<(&ChildOf, &mut Visibility), RingsOnly>,
    mut labels: Query<(&ChildOf, &mut Visibility, &mut Transform), With<NameLabel>>,
) {
    let shown = |visible: bool| {
        if visible {
            Visibility::Inherited
        } else {
            Visibility::Hidden
        }
    };
    for (parent, mut visibility) in &mut rings {
        let selected = units.get(parent.parent()).is_ok_and(|u| u.0);
        visibility.set_if_neq(shown(selected));
    }
    let one_selected = selected.iter().len() == 1;
    for (parent, mut visibility, mut transform) in &mut labels {
        let (named, above) = match units.get(parent.parent()) {
            Ok((true, _)) if one_selected => (true, true),
            Ok((_, tile)) => (cursor.tile == Some(tile.0), false),
            Err(_) => (false, false),
        };
        visibility.set_if_neq(shown(named));
        let y = if above { LABEL_OFFSET } else { -LABEL_OFFSET };
        if named && transform.translation.y != y {
            transform.translation.y = y;
        }
    }
}

/// How opaque a unit waiting for its path is drawn.
const PENDING_ALPHA: f32 = 0.45;

/// Units waiting for their path ([`Pending`]) are drawn faded until it arrives.
fn fade_pending(mut units: Query<(&mut Sprite, Has<Pending>), With<Unit>>) {
    for (mut sprite, pending) in &mut units {
        let alpha = if pending { PENDING_ALPHA } else { 1.0 };
        if sprite.color.alpha() != alpha {
            sprite.color.set_alpha(alpha);
        }
    }
}

/// Zoomed far out, units would shrink to specks: scale them up to a minimum on screen.
fn keep_units_visible(
    projection: Query<&Projection, (With<Camera2d>, Changed<Projection>)>,
    mut units: Query<&mut Transform, With<Unit>>,
) {
    let Ok(Projection::Orthographic(ortho)) = projection.single() else {
        return;
    };
    let scale = (MIN_UNIT_PX * ortho.scale / (TILE_SIZE * UNIT_SPRITE_TILES)).max(1.0);
    for mut transform in &mut units {
        transform.scale = Vec3::splat(scale);
    }
}

/// A high-contrast cross on the refused goal (or on the unit, when what stops it is the
/// ground it stands on), at least [`MIN_MARKER_PX`] across on screen.
fn mark_refusals(
    mut commands: Commands,
    mut refused: MessageReader<OrderRefused>,
    level: Res<Level>,
    server: Res<AssetServer>,
    tiles: Query<&Tile>,
    projection: Single<&Projection, With<Camera2d>>,
) {
    let scale = match *projection {
        Projection::Orthographic(ortho) => ortho.scale,
        _ => 1.0,
    };
    let size = TILE_SIZE.max(MIN_MARKER_PX * scale);
    for refusal in refused.read() {
        let at = match refusal.reason {
            Refusal::StandsOnImpassable { .. } => {
                tiles.get(refusal.unit).map_or(refusal.goal, |t| t.0)
            }
            _ => refusal.goal,
        };
        if level.contains(at) {
            commands.spawn((
                RefusalMarker(Timer::from_seconds(2.0, TimerMode::Once)),
                Sprite {
                    image: server.load("textures/marker.png"),
                    color: RED,
                    custom_size: Some(Vec2::splat(size)),
                    ..default()
                },
                Transform::from_translation(level.geometry().center(at).extend(12.0)),
            ));
        }
    }
}

/// The refusal marker, unfaded, on this frame's [`RefusalCross`] tile; hidden when there is
/// none.
fn place_hover_cross(
    mut commands: Commands,
    mut wanted: ResMut<RefusalCross>,
    level: Res<Level>,
    server: Res<AssetServer>,
    mut cross: Query<(&mut Transform, &mut Visibility), With<HoverCross>>,
) {
    let at = wanted.0.take();
    let Ok((mut transform, mut visibility)) = cross.single_mut() else {
        commands.spawn((
            HoverCross,
            Sprite {
                image: server.load("textures/marker.png"),
                color: RED,
                custom_size: Some(Vec2::splat(TILE_SIZE * 0.8)),
                ..default()
            },
            Transform::from_xyz(0.0, 0.0, 12.0),
            Visibility::Hidden,
        ));
        return;
    };
    match at {
        Some(pos) => {
            transform.translation = level.geometry().center(pos).extend(12.0);
            visibility.set_if_neq(Visibility::Inherited);
        }
        None => {
            visibility.set_if_neq(Visibility::Hidden);
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
