//! The terrain mode of a Tiled or LDtk map (`P`): a panel lists the map's tile kinds (its
//! tiles, or an LDtk level's IntGrid values and its cells without one) with the cells drawn
//! with each and its Class, beside the terrain table's terrains. A click on a kind, or on a cell of the map, or Tab
//! picks a kind (its cells are outlined); a click on a terrain, or keys 1–9, gives it that
//! terrain at once ([`EditMap::Assign`]). Ctrl+Z and Ctrl+S (the painter's keys) undo and
//! save into the tileset or project (the level's `default_terrain` field, for the cells
//! without an IntGrid value).

use bevy::prelude::*;
use tilewalk_path::Pos;

use super::layout::{HudPanel, MinimapSlot, PANEL_BACKGROUND};
use super::paint::{DIGITS, Painter};
use super::{Cursor, Notice, TakesClicks, outline};
use crate::AppSystems;
use crate::level::{EditMap, Level};
use crate::map::tmx::TileKindId;
use crate::tactics::Mode;

/// The most tile kinds the panel lists at once (around the one picked).
const SHOWN_KINDS: usize = 8;
const FONT: f32 = 12.0;
const PICKED: Color = Color::srgb(0.35, 0.45, 0.8);
const BUTTON: Color = Color::srgb(0.2, 0.22, 0.27);
/// The picked kind's cells: a colour few tilesets draw with.
const OUTLINE: Color = Color::srgb(0.2, 0.95, 1.0);

/// The panel's box.
#[derive(Component)]
struct TerrainPanel;

/// The tile kinds of the level, most cells first, worked out when the level changes.
#[derive(Resource, Default)]
struct Kinds(Vec<(TileKindId, usize)>);

pub(super) fn plugin(app: &mut App) {
    app.init_resource::<Kinds>()
        .add_systems(Startup, spawn_panel)
        .add_systems(
            Update,
            (
                count_kinds.run_if(resource_exists_and_changed::<Level>),
                (pick_on_map, cycle_kinds, assign_keys)
                    .chain()
                    .in_set(AppSystems::RecordInput)
                    .run_if(in_terrain_mode),
                outline_kind
                    .in_set(AppSystems::Present)
                    .run_if(in_terrain_mode),
                fill_panel.in_set(AppSystems::Hud),
            )
                .run_if(resource_exists::<Level>),
        );
}

/// Whether the terrain mode is on: `P` on a Tiled or LDtk map, in real-time play.
fn in_terrain_mode(
    painter: Res<Painter>,
    level: Option<Res<Level>>,
    mode: Res<State<Mode>>,
) -> bool {
    painter.on && level.is_some_and(|l| l.tiled.is_some()) && *mode.get() == Mode::RealTime
}

fn count_kinds(level: Res<Level>, mut kinds: ResMut<Kinds>, mut painter: ResMut<Painter>) {
    let mut found: Vec<(TileKindId, usize)> = level
        .tiled
        .as_ref()
        .map(|t| {
            t.tile_kinds()
                .into_iter()
                .chain(t.no_value_kind())
                .collect()
        })
        .unwrap_or_default();
    found.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
    if painter
        .kind
        .is_some_and(|k| !found.iter().any(|(f, _)| *f == k))
    {
        painter.kind = None;
    }
    kinds.0 = found;
}

fn spawn_panel(mut commands: Commands, slot: Single<Entity, With<MinimapSlot>>) {
    let panel = commands
        .spawn((
            TerrainPanel,
            HudPanel("terrain mode"),
            TakesClicks,
            Node {
                display: Display::None,
                flex_direction: FlexDirection::Column,
                padding: UiRect::all(px(6)),
                row_gap: px(2),
                margin: UiRect::bottom(px(6)),
                width: px(340),
                overflow: Overflow::clip(),
                ..default()
            },
            BackgroundColor(PANEL_BACKGROUND),
        ))
        .id();
    commands.entity(*slot).insert_children(0, &[panel]);
}

/// A left click on a cell of the map picks the tile kind drawn on top there.
fn pick_on_map(
    buttons: Res<ButtonInput<MouseButton>>,
    cursor: Res<Cursor>,
    level: Res<Level>,
    mut painter: ResMut<Painter>,
    mut notice: ResMut<Notice>,
) {
    if !buttons.just_pressed(MouseButton::Left) || cursor.over_ui {
        return;
    }
    let (Some(tile), Some(tiled)) = (cursor.tile, &level.tiled) else {
        return;
    };
    match tiled.kind_at(tile) {
        Some(kind) => {
            painter.kind = Some(kind);
            notice.say(format!(
                "{} picked: 1-9 or a terrain gives it one",
                tiled.kind_name(kind)
            ));
        }
        None => notice.say(format!("no tile on a terrain layer at {tile}")),
    }
}

/// Tab picks the next tile kind of the panel, Shift+Tab the one before.
fn cycle_kinds(keys: Res<ButtonInput<KeyCode>>, kinds: Res<Kinds>, mut painter: ResMut<Painter>) {
    if !keys.just_pressed(KeyCode::Tab) || kinds.0.is_empty() {
        return;
    }
    let back = keys.any_pressed([KeyCode::ShiftLeft, KeyCode::ShiftRight]);
    let count = kinds.0.len();
    let at = painter
        .kind
        .and_then(|k| kinds.0.iter().position(|(f, _)| *f == k));
    let next = match (at, back) {
        (None, false) => 0,
        (None, true) => count - 1,
        (Some(i), false) => (i + 1) % count,
        (Some(i), true) => (i + count - 1) % count,
    };
    painter.kind = Some(kinds.0[next].0);
}

/// Keys 1–9 give the picked tile kind the terrain table's terrain of that place.
fn assign_keys(
    keys: Res<ButtonInput<KeyCode>>,
    level: Res<Level>,
    painter: Res<Painter>,
    mut edits: MessageWriter<EditMap>,
    mut notice: ResMut<Notice>,
) {
    let Some(index) = DIGITS.iter().position(|&k| keys.just_pressed(k)) else {
        return;
    };
    let Some(terrain) = level.terrain_names.get(index) else {
        return;
    };
    match painter.kind {
        Some(kind) => {
            edits.write(EditMap::Assign {
                kind,
                terrain: terrain.clone(),
            });
        }
        None => notice.say("pick a tile kind first: click a cell, a kind in the panel, or Tab"),
    }
}

/// Outlines the cells of the picked tile kind (found again when the pick or the level
/// changes, not every frame).
fn outline_kind(
    mut gizmos: Gizmos,
    level: Res<Level>,
    painter: Res<Painter>,
    mut cells: Local<(Option<TileKindId>, Vec<Pos>)>,
) {
    let (Some(kind), Some(tiled)) = (painter.kind, &level.tiled) else {
        return;
    };
    if cells.0 != Some(kind) || level.is_changed() {
        *cells = (Some(kind), tiled.cells_of(kind));
    }
    let geometry = level.geometry();
    for &pos in &cells.1 {
        outline(&mut gizmos, &geometry, pos, 0.8, OUTLINE);
    }
}

/// The panel, shown in the terrain mode and filled again when the level, the kinds or the
/// pick change.
fn fill_panel(
    mut commands: Commands,
    panel: Single<(Entity, &mut Node), With<TerrainPanel>>,
    painter: Res<Painter>,
    level: Res<Level>,
    kinds: Res<Kinds>,
    mode: Res<State<Mode>>,
) {
    let (entity, mut node) = panel.into_inner();
    let on = painter.on && level.tiled.is_some() && *mode.get() == Mode::RealTime;
    let display = if on { Display::Flex } else { Display::None };
    if node.display != display {
        node.display = display;
    }
    if !on || !(painter.is_changed() || level.is_changed() || kinds.is_changed()) {
        return;
    }
    let Some(tiled) = &level.tiled else { return };
    let picked = painter
        .kind
        .and_then(|k| kinds.0.iter().position(|(f, _)| *f == k));
    let first = picked
        .unwrap_or_default()
        .saturating_sub(SHOWN_KINDS / 2)
        .min(kinds.0.len().saturating_sub(SHOWN_KINDS));
    let mut commands = commands.entity(entity);
    commands.despawn_children();
    commands.with_children(|panel| {
        panel.spawn(text(format!(
            "TERRAIN MODE: {} tile kinds (P: leave)\npick: a kind, a cell or Tab; then a terrain or 1-9",
            kinds.0.len()
        )));
        if first > 0 {
            panel.spawn(text(format!("  ...{first} more above (Shift+Tab)")));
        }
        for (i, &(kind, cells)) in kinds.0.iter().enumerate().skip(first).take(SHOWN_KINDS) {
            let class = match tiled.class(kind) {
                Some(class) if level.terrain_names.iter().any(|t| t.eq_ignore_ascii_case(class)) => {
                    class.to_owned()
                }
                Some(class) => format!("Class `{class}`, no terrain"),
                None => "no terrain".to_owned(),
            };
            let label = format!("{}  {cells} cells  {class}", tiled.kind_name(kind));
            let background = if picked == Some(i) { PICKED } else { BUTTON };
            panel
                .spawn((
                    Button,
                    Node {
                        padding: UiRect::axes(px(5), px(1)),
                        ..default()
                    },
                    BackgroundColor(background),
                    children![text(label)],
                ))
                .observe(
                    move |press: On<Pointer<Press>>, mut painter: ResMut<Painter>| {
                        if press.button == PointerButton::Primary {
                            painter.kind = Some(kind);
                        }
                    },
                );
        }
        let below = kinds.0.len().saturating_sub(first + SHOWN_KINDS);
        if below > 0 {
            panel.spawn(text(format!("  ...{below} more below (Tab)")));
        }
        panel.spawn(text("terrains:"));
        panel
            .spawn(Node {
                flex_wrap: FlexWrap::Wrap,
                column_gap: px(4),
                row_gap: px(4),
                ..default()
            })
            .with_children(|row| {
                for (i, name) in level.terrain_names.iter().enumerate() {
                    let terrain = name.clone();
                    let label = match i {
                        0..9 => format!("{} {name}", i + 1),
                        _ => name.clone(),
                    };
                    row.spawn((
                        Button,
                        Node {
                            padding: UiRect::axes(px(5), px(2)),
                            ..default()
                        },
                        BackgroundColor(BUTTON),
                        children![text(label)],
                    ))
                    .observe(
                        move |press: On<Pointer<Press>>,
                              painter: Res<Painter>,
                              mut edits: MessageWriter<EditMap>,
                              mut notice: ResMut<Notice>| {
                            if press.button != PointerButton::Primary {
                                return;
                            }
                            match painter.kind {
                                Some(kind) => {
                                    edits.write(EditMap::Assign {
                                        kind,
                                        terrain: terrain.clone(),
                                    });
                                }
                                None => notice.say("pick a tile kind first"),
                            }
                        },
                    );
                }
            });
        panel.spawn(text("Ctrl+Z: undo  Ctrl+S: save into the tileset / project"));
    });
}

fn text(value: impl Into<String>) -> impl Bundle {
    (Text::new(value), TextFont::from_font_size(FONT))
}

#[cfg(test)]
mod tests {
    use bevy::state::app::StatesPlugin;

    use super::*;
    use crate::map::tmx;
    use crate::terrain::TerrainTable;

    /// Three cells: tile 0, tile 1, tile 0.
    const MAP: &str = r#"<map version="1.10" orientation="orthogonal" width="3" height="1" tilewidth="8" tileheight="8">
 <tileset firstgid="1" name="t" tilewidth="8" tileheight="8" tilecount="2" columns="2">
  <image source="t.png" width="16" height="8"/>
 </tileset>
 <layer id="1" name="ground" width="3" height="1">
  <data encoding="csv">1,2,1</data>
 </layer>
</map>"#;

    fn app() -> App {
        let map = tmx::parse(std::path::Path::new("m.tmx"), MAP, &Default::default()).unwrap();
        let table = TerrainTable::parse(include_str!("../../assets/terrain.ron")).unwrap();
        let (level, _) = Level::build(&map, &table).unwrap();
        let mut painter = Painter::default();
        painter.on = true;
        let mut app = App::new();
        app.add_plugins(StatesPlugin)
            .insert_state(Mode::RealTime)
            .add_message::<EditMap>()
            .init_resource::<ButtonInput<KeyCode>>()
            .init_resource::<Notice>()
            .init_resource::<Kinds>()
            .insert_resource(painter)
            .insert_resource(level)
            .add_systems(Update, (count_kinds, cycle_kinds, assign_keys).chain());
        app.update();
        app
    }

    /// Presses `keys` together for one frame; returns the edits it sent (those `seen`
    /// has not read).
    fn press(
        app: &mut App,
        seen: &mut bevy::ecs::message::MessageCursor<EditMap>,
        keys: &[KeyCode],
    ) -> Vec<EditMap> {
        let mut input = app.world_mut().resource_mut::<ButtonInput<KeyCode>>();
        for &key in keys {
            input.press(key);
        }
        app.update();
        let mut input = app.world_mut().resource_mut::<ButtonInput<KeyCode>>();
        input.release_all();
        input.clear();
        let messages = app.world().resource::<Messages<EditMap>>();
        seen.read(messages).cloned().collect()
    }

    fn picked(app: &App) -> Option<u32> {
        app.world().resource::<Painter>().kind.map(|k| k.id)
    }

    #[test]
    fn tab_steps_through_the_kinds_most_drawn_first_and_a_digit_gives_a_terrain() {
        let mut app = app();
        let mut seen = Default::default();
        let mut press = |app: &mut App, keys: &[KeyCode]| press(app, &mut seen, keys);
        assert_eq!(press(&mut app, &[KeyCode::Digit2]), []);
        assert_eq!(
            app.world().resource::<Notice>().text,
            "pick a tile kind first: click a cell, a kind in the panel, or Tab"
        );
        press(&mut app, &[KeyCode::Tab]);
        assert_eq!(picked(&app), Some(0), "tile 0 covers two cells");
        press(&mut app, &[KeyCode::Tab]);
        assert_eq!(picked(&app), Some(1));
        press(&mut app, &[KeyCode::Tab]);
        assert_eq!(picked(&app), Some(0), "round again");
        press(&mut app, &[KeyCode::ShiftLeft, KeyCode::Tab]);
        assert_eq!(picked(&app), Some(1));
        let kind = app.world().resource::<Painter>().kind.unwrap();
        assert_eq!(
            press(&mut app, &[KeyCode::Digit2]),
            [EditMap::Assign {
                kind,
                terrain: "road".into()
            }]
        );
        // The table has seven terrains: 8 and 9 give none.
        assert_eq!(press(&mut app, &[KeyCode::Digit8]), []);
    }
}
