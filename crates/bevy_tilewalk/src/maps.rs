//! Several maps in one world: a map is an entity holding its [`MapNavigation`], units join it
//! with [`OnMap`]; a unit without one walks on the [`Navigation`] resource, the world's
//! default map. [`Maps`] gives the systems each map's navigation by its key.

use bevy::ecs::system::SystemParam;
use bevy::prelude::*;

use crate::navigation::Navigation;

/// A map of its own: the navigation of the units that are [`OnMap`] this entity. Spawn one
/// entity per map (a dungeon floor, a battle, a match on a server); its units plan, walk,
/// make way and trade tiles on it only, and never meet the units of another map, even on
/// the same [`Pos`](crate::Pos). The [`Navigation`] resource stays the world's default map,
/// for the units without [`OnMap`]; a world may have both, or only maps on entities.
///
/// To change a map's tiles, replace its navigation and write the change with the map named:
/// `commands.write_message(map_nav.0.replace(new).on_map(map))`
/// ([`NavigationChanged::on_map`](crate::NavigationChanged::on_map)). A
/// [`TileLayout`](crate::TileLayout) on the map's entity places its units.
#[derive(Component, Reflect, Clone, Debug, Deref, DerefMut)]
#[reflect(Component, Debug, Clone)]
pub struct MapNavigation(pub Navigation);

/// The map a unit is on: an entity with a [`MapNavigation`]. A relationship: the map's
/// [`MapUnits`] lists its units, and despawning the map despawns them (their tiles mean
/// nothing on another map). A unit without it is on the world's default map, the
/// [`Navigation`] resource. An order for a unit whose map has no [`MapNavigation`] is
/// refused ([`Refusal::NoMapNavigation`](crate::Refusal::NoMapNavigation)) and a warning
/// names the unit and the map, once a unit. To move a unit to another map, stop it
/// ([`StopOrder`](crate::StopOrder)), then set its `OnMap` and its [`Tile`](crate::Tile).
#[derive(Component, Reflect, Clone, Copy, Debug, PartialEq, Eq)]
#[reflect(Component, Debug, Clone, PartialEq)]
#[relationship(relationship_target = MapUnits)]
pub struct OnMap(#[entities] pub Entity);

/// The units on a map ([`OnMap`] them), kept by Bevy on the map's entity.
#[derive(Component, Reflect, Debug, Default, PartialEq, Eq)]
#[reflect(Component, Debug, Default)]
#[relationship_target(relationship = OnMap, linked_spawn)]
pub struct MapUnits(Vec<Entity>);

/// Which map: `None` the [`Navigation`] resource, `Some(entity)` the [`MapNavigation`] on
/// that entity.
pub(crate) type MapKey = Option<Entity>;

/// The map of a unit with this [`OnMap`], or none.
pub(crate) fn map_of(on: Option<&OnMap>) -> MapKey {
    on.map(|on| on.0)
}

/// One map as the systems see it.
#[derive(Clone, Copy)]
pub(crate) struct MapView<'a> {
    pub(crate) key: MapKey,
    pub(crate) nav: &'a Navigation,
    /// Its navigation was inserted or changed since the system last ran.
    pub(crate) changed: bool,
}

/// Every map of the world: the [`Navigation`] resource (the default map) and the entities
/// with a [`MapNavigation`].
#[derive(SystemParam)]
pub(crate) struct Maps<'w, 's> {
    world_map: Option<Res<'w, Navigation>>,
    entities: Query<'w, 's, (Entity, Ref<'static, MapNavigation>)>,
}

impl Maps<'_, '_> {
    /// The map `key`, if it has a navigation.
    pub(crate) fn get(&self, key: MapKey) -> Option<MapView<'_>> {
        match key {
            None => self.world_map.as_ref().map(|nav| MapView {
                key,
                changed: nav.is_changed(),
                nav,
            }),
            Some(map) => self.entities.get(map).ok().map(|(_, nav)| MapView {
                key,
                changed: nav.is_changed(),
                nav: &nav.into_inner().0,
            }),
        }
    }

    /// Every map with a navigation: the default map first, then the map entities in entity
    /// order (the same order every run).
    pub(crate) fn iter(&self) -> impl Iterator<Item = MapView<'_>> {
        let mut maps: Vec<MapView> = self
            .entities
            .iter()
            .map(|(map, nav)| MapView {
                key: Some(map),
                changed: nav.is_changed(),
                nav: &nav.into_inner().0,
            })
            .collect();
        maps.sort_unstable_by_key(|m| m.key);
        self.get(None).into_iter().chain(maps)
    }
}

/// Whether the world has a map: the [`Navigation`] resource or an entity with a
/// [`MapNavigation`] (a run condition).
pub(crate) fn any_map(
    world_map: Option<Res<Navigation>>,
    entities: Query<(), With<MapNavigation>>,
) -> bool {
    world_map.is_some() || !entities.is_empty()
}
