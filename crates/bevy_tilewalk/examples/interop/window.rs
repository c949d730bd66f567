//! The window side the interop examples share: the navigation and units of a map the peer
//! plugin has spawned, a [`TileLayout`] where the peer draws its tiles (the plugin places the
//! units' sprites with it as they walk), left click to select a unit, right click to send
//! the selected to a tile.

use bevy::ecs::system::SystemParam;
use bevy::prelude::*;
use bevy_tilewalk::prelude::*;

use super::terrain::PeerMap;

/// The units the player has selected (the example's own marker: selection is the game's).
#[derive(Component)]
struct Selected;

/// Where the map's cells are in the world: the centre of cell (0, 0) and the step from one
/// cell to the next (x to the right, y up, as bevy_ecs_tilemap's `TilePos`), for the clicks;
/// the same as a square [`TileLayout`], which places the sprites.
#[derive(Resource, Clone, Copy, Debug)]
pub struct Cells {
    pub origin: Vec2,
    pub step: Vec2,
    pub width: u32,
    pub height: u32,
}

impl Cells {
    /// The centre of cell `p` in the world.
    pub fn center(&self, p: Pos) -> Vec2 {
        self.origin + Vec2::new(p.x as f32, p.y as f32) * self.step
    }

    /// The cell under a world position, if the map has one there.
    pub fn at(&self, world: Vec2) -> Option<Pos> {
        let cell = ((world - self.origin) / self.step).round();
        let inside = cell.x >= 0.0
            && cell.y >= 0.0
            && cell.x < self.width as f32
            && cell.y < self.height as f32;
        inside.then(|| Pos::new(cell.x as u32, cell.y as u32))
    }
}

/// Clicks become selections and move orders; sprites show who is selected.
pub struct InteropWindowPlugin;

impl Plugin for InteropWindowPlugin {
    fn build(&self, app: &mut App) {
        app.add_systems(Startup, camera)
            .add_systems(Update, click.before(TilewalkSystems::Plan))
            .add_systems(Update, colour.after(TilewalkSystems::Move));
    }
}

fn camera(mut commands: Commands) {
    commands.spawn((
        Camera2d,
        Projection::Orthographic(OrthographicProjection {
            scale: 0.5,
            ..OrthographicProjection::default_2d()
        }),
    ));
}

/// What a map's arrival changes: the navigation and cells, units the first time.
#[derive(SystemParam)]
pub struct Start<'w, 's> {
    commands: Commands<'w, 's>,
    server: Res<'w, AssetServer>,
    navigation: Option<ResMut<'w, Navigation>>,
    changed: MessageWriter<'w, NavigationChanged>,
    units: Query<'w, 's, (), With<Unit>>,
    layout: Option<Single<'w, 's, &'static mut TileLayout>>,
    camera: Single<'w, 's, &'static mut Transform, With<Camera2d>>,
}

impl Start<'_, '_> {
    /// Installs a map the peer plugin has spawned (again, after a reload): its navigation
    /// replaces the last one, so paths across changed tiles are planned again, its layout the
    /// last one; its units are spawned once.
    pub fn map(&mut self, map: PeerMap, cells: Cells) {
        let layout = TileLayout::new(map.navigation.board(), cells.step).with_origin(cells.origin);
        match self.layout.as_mut() {
            Some(last) => ***last = layout,
            None => {
                self.commands.spawn(layout);
            }
        }
        let classes: Vec<_> = map
            .units
            .iter()
            .map(|unit| map.navigation.class(&unit.class))
            .collect();
        match self.navigation.as_mut() {
            Some(navigation) => {
                let changed = navigation.replace(map.navigation);
                self.changed.write(changed);
            }
            None => self.commands.insert_resource(map.navigation),
        }
        let last = Pos::new(cells.width - 1, cells.height - 1);
        let middle = (cells.center(Pos::new(0, 0)) + cells.center(last)) / 2.0;
        self.camera.translation = middle.extend(self.camera.translation.z);
        self.commands.insert_resource(cells);
        if !self.units.is_empty() {
            return;
        }
        for (unit, class) in map.units.into_iter().zip(classes) {
            let Some(class) = class else {
                warn!("{}: no movement class {:?}", unit.name, unit.class);
                continue;
            };
            let image = self
                .server
                .load(format!("textures/unit_{}.png", unit.class));
            self.commands.spawn((
                Unit,
                class,
                unit.team,
                Tile(unit.tile),
                Name::new(unit.name),
                Sprite::from_image(image),
                Transform::from_translation(cells.center(unit.tile).extend(500.0)),
            ));
        }
    }
}

/// Left click selects the unit on a tile (or none); right click sends the selected there.
fn click(
    mut commands: Commands,
    buttons: Res<ButtonInput<MouseButton>>,
    window: Single<&Window>,
    camera: Single<(&Camera, &GlobalTransform)>,
    cells: Option<Res<Cells>>,
    units: Query<(Entity, &Tile, Has<Selected>), With<Unit>>,
    mut orders: MessageWriter<MoveOrder>,
) {
    let Some(cells) = cells else {
        return;
    };
    let (camera, at) = *camera;
    let cursor = window.cursor_position();
    let world = cursor.and_then(|c| camera.viewport_to_world_2d(at, c).ok());
    let Some(tile) = world.and_then(|w| cells.at(w)) else {
        return;
    };
    if buttons.just_pressed(MouseButton::Left) {
        for (unit, on, selected) in &units {
            match (on.0 == tile, selected) {
                (true, _) => commands.entity(unit).insert(Selected),
                (false, true) => commands.entity(unit).remove::<Selected>(),
                (false, false) => continue,
            };
        }
    }
    if buttons.just_pressed(MouseButton::Right) {
        let selected = units.iter().filter(|u| u.2).map(|u| u.0);
        orders.write(MoveOrder::new(selected, tile));
    }
}

/// The selected units' sprites are yellow, the red side's reddish.
fn colour(mut units: Query<(&Team, Has<Selected>, &mut Sprite), With<Unit>>) {
    for (team, selected, mut sprite) in &mut units {
        sprite.color = match (selected, team) {
            (true, _) => Color::srgb(1.0, 0.9, 0.2),
            (false, &Team::BLUE) => Color::WHITE,
            (false, _) => Color::srgb(1.0, 0.55, 0.55),
        };
    }
}
