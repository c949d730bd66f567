//! Saves (feature `serialize`): a world of units walking through a gap, saved mid-path as RON
//! through reflection's serializers (what Bevy's scenes and remote tools use) and loaded into
//! a fresh app, walks on to the same tiles as the app it was saved from.

use bevy::ecs::reflect::ReflectComponent;
use bevy::prelude::*;
use bevy::reflect::serde::{ReflectDeserializer, ReflectSerializer};
use bevy::reflect::{FromReflect, TypeRegistry};
use bevy_tilewalk::path::{Board, Diagonal};
use bevy_tilewalk::prelude::*;
use bevy_tilewalk::{Precedence, Walk};
use serde::de::DeserializeSeed;

use super::{STEP, new_app};

/// A 12x7 field cut by a wall at column 6 with a gap at row 3, and a ford of cost 3 for foot
/// soldiers at row 5.
fn gap_map() -> Navigation {
    Navigation::from_fn(
        Board::Square(Diagonal::NoObstacles),
        12,
        7,
        vec![ClassSpec::new("foot", 3.0), ClassSpec::new("horse", 5.0)],
        |class, p| match (p.x, p.y) {
            (6, 3) => Some(1.0),
            (6, 5) if class.name == "foot" => Some(3.0),
            (6, _) => None,
            _ => Some(1.0),
        },
    )
    .unwrap()
}

/// The units' tiles by their [`Precedence`] (each unit's is its own).
fn tiles(app: &mut App) -> Vec<(u32, Pos)> {
    let world = app.world_mut();
    let mut tiles: Vec<(u32, Pos)> = world
        .query_filtered::<(&Precedence, &Tile), With<Unit>>()
        .iter(world)
        .map(|(p, t)| (p.0, t.0))
        .collect();
    tiles.sort();
    tiles
}

/// The units' paths and walks by their [`Precedence`].
fn walks(app: &mut App) -> Vec<(u32, Path, Walk)> {
    let world = app.world_mut();
    let mut walks: Vec<(u32, Path, Walk)> = world
        .query::<(&Precedence, &Path, &Walk)>()
        .iter(world)
        .map(|(p, path, walk)| (p.0, path.clone(), walk.clone()))
        .collect();
    walks.sort_by_key(|w| w.0);
    walks
}

/// The number of units still walking or waiting for a path.
fn busy(app: &mut App) -> usize {
    let world = app.world_mut();
    world
        .query_filtered::<(), Or<(With<Path>, With<Pending>)>>()
        .iter(world)
        .count()
}

/// The save: the navigation, then each unit's plugin components, as RON.
fn save(world: &World, registry: &TypeRegistry) -> (String, Vec<Vec<String>>) {
    let ron = |value: &dyn PartialReflect| {
        ron::to_string(&ReflectSerializer::new(value, registry)).unwrap()
    };
    let nav = ron(world.resource::<Navigation>());
    let mut units: Vec<Entity> = world
        .iter_entities()
        .filter(|e| e.contains::<Unit>())
        .map(|e| e.id())
        .collect();
    units.sort();
    let units = units
        .into_iter()
        .map(|unit| {
            let components = world.inspect_entity(unit).unwrap();
            components
                .filter_map(|info| registry.get(info.type_id()?))
                .filter(|r| r.type_info().type_path().starts_with("bevy_tilewalk::"))
                .filter_map(|r| {
                    let component = r.data::<ReflectComponent>()?.reflect(world.entity(unit))?;
                    Some(ron(component.as_partial_reflect()))
                })
                .collect()
        })
        .collect();
    (nav, units)
}

/// Reads one value of the save back.
fn read(text: &str, registry: &TypeRegistry) -> Box<dyn PartialReflect> {
    let mut deserializer = ron::de::Deserializer::from_str(text).unwrap();
    ReflectDeserializer::new(registry)
        .deserialize(&mut deserializer)
        .unwrap_or_else(|e| panic!("{text}: {e}"))
}

#[test]
fn units_saved_mid_path_and_loaded_in_a_fresh_app_arrive_where_the_original_do() {
    let mut original = new_app(gap_map());
    // Eight of one side through the gap eastward, by one group order; two riders of the
    // other side westward, each ordered alone: they meet in the gap.
    let mut blue = Vec::new();
    for y in 1..5 {
        for x in 0..2 {
            let unit = original.world_mut().spawn((
                Unit,
                Tile(Pos::new(x, y)),
                Precedence(blue.len() as u32),
            ));
            blue.push(unit.id());
        }
    }
    original
        .world_mut()
        .write_message(MoveOrder::new(blue.clone(), Pos::new(10, 3)));
    for (i, y) in [2, 4].into_iter().enumerate() {
        let rider = original
            .world_mut()
            .spawn((
                Unit,
                Team::RED,
                MovementClass(1),
                Tile(Pos::new(11, y)),
                Precedence(100 + i as u32),
            ))
            .id();
        original
            .world_mut()
            .entity_mut(rider)
            .move_to(Pos::new(1, 3));
    }
    // Mid-path: every order served, every unit walking.
    for _ in 0..45 {
        original.update();
    }
    assert_eq!(busy(&mut original), 10, "all ten still on their way");

    let (nav, units) = {
        let world = original.world();
        let registry = world.resource::<AppTypeRegistry>().read();
        save(world, &registry)
    };
    // The walks went into the save as they were: the paths' next tiles and the crowd's
    // bookkeeping, not only the tiles.
    let all = units.concat().join("\n");
    for part in [
        "bevy_tilewalk::pathing::types::Path",
        "bevy_tilewalk::units::Walk",
    ] {
        assert_eq!(all.matches(part).count(), 10, "{part} in {all}");
    }

    // A fresh app with no navigation of its own: the save brings it.
    let mut loaded = App::new();
    loaded
        .add_plugins((MinimalPlugins, TilewalkPlugin::default()))
        .insert_resource(bevy::time::TimeUpdateStrategy::ManualDuration(
            std::time::Duration::from_secs_f64(STEP),
        ));
    loaded.update();
    {
        let world = loaded.world_mut();
        let registry = world.resource::<AppTypeRegistry>().clone();
        let registry = registry.read();
        let nav = Navigation::from_reflect(&*read(&nav, &registry)).unwrap();
        world.insert_resource(nav);
        for components in &units {
            let mut unit = world.spawn_empty();
            for text in components {
                let value = read(text, &registry);
                let type_id = value.get_represented_type_info().unwrap().type_id();
                let reflect = registry.get_type_data::<ReflectComponent>(type_id).unwrap();
                reflect.insert(&mut unit, &*value, &registry);
            }
        }
    }
    assert_eq!(tiles(&mut loaded), tiles(&mut original));
    assert_eq!(walks(&mut loaded), walks(&mut original));

    for _ in 0..60 * 30 {
        original.update();
        loaded.update();
        if busy(&mut original) == 0 && busy(&mut loaded) == 0 {
            break;
        }
    }
    assert_eq!(busy(&mut original), 0, "the original's walks end");
    let arrived = tiles(&mut original);
    // The blue ones gather east of the wall, the riders west of it.
    assert!(
        arrived.iter().all(|&(p, t)| (p < 100) == (t.x > 6)),
        "{arrived:?}"
    );
    assert_eq!(tiles(&mut loaded), arrived);
}

#[test]
fn a_tile_layout_is_saved_and_read_back_through_reflection() {
    use bevy_tilewalk::path::HexLayout;

    let app = new_app(gap_map());
    let registry = app.world().resource::<AppTypeRegistry>().read();
    let layout = TileLayout::new(Board::Hex(HexLayout::EvenQ), Vec2::new(37.0, 32.0))
        .with_origin(Vec2::new(-5.0, 7.5))
        .with_y_down(true);
    let text = ron::to_string(&ReflectSerializer::new(&layout, &registry)).unwrap();
    let read = TileLayout::from_reflect(read(&text, &registry).as_ref());
    assert_eq!(read, Some(layout), "{text}");
}
