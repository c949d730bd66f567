//! Terrain painting, for designers: in the lab always, in real-time play after `P`. Left-drag
//! paints the palette's terrain (keys 1–9), right-drag erases to the default terrain (the
//! terrain table's first, grass), Ctrl+Z takes back the last stroke and Ctrl+S writes the
//! map back to its file. The level is rebuilt and paths re-planned as on a hot reload
//! ([`EditMap`]). On a Tiled or LDtk map, `P` is the terrain mode instead: terrain by tile
//! kind (`terrain_mode`), with the same Ctrl+Z and Ctrl+S.

use bevy::prelude::*;
use tilewalk_path::Pos;

use super::{Cursor, Notice, ctrl};
use crate::AppSystems;
use crate::level::{EditMap, Level, MapEdited};
use crate::map::tmx::TileKindId;
use crate::tactics::Mode;

/// The painter: whether painting is on outside the lab, the palette's terrain, the stroke
/// under way.
#[derive(Resource, Default, Debug)]
pub struct Painter {
    /// Painting in the game (`P`); the lab paints whatever this says.
    pub on: bool,
    /// The palette's terrain: an index into the level's terrain table.
    pub terrain: usize,
    /// The button of the stroke under way and the last tile it painted.
    stroke: Option<(MouseButton, Pos)>,
    /// The lab took this press (to drag its start or goal marker): no stroke until release.
    pub held: bool,
    /// In the terrain mode of a Tiled or LDtk map: the tile kind picked.
    pub kind: Option<TileKindId>,
}

impl Painter {
    /// Whether left and right drags paint now.
    pub fn painting(&self, mode: &Mode) -> bool {
        self.on || *mode == Mode::Lab
    }
}

/// The keys 1 to 9, which pick the palette's terrain (here and in the terrain mode).
pub(super) const DIGITS: [KeyCode; 9] = [
    KeyCode::Digit1,
    KeyCode::Digit2,
    KeyCode::Digit3,
    KeyCode::Digit4,
    KeyCode::Digit5,
    KeyCode::Digit6,
    KeyCode::Digit7,
    KeyCode::Digit8,
    KeyCode::Digit9,
];

pub(super) fn plugin(app: &mut App) {
    app.init_resource::<Painter>().add_systems(
        Update,
        (toggle_painting, pick_terrain, edit_keys, paint_strokes)
            .chain()
            .in_set(AppSystems::RecordInput)
            .run_if(resource_exists::<Level>),
    );
}

fn toggle_painting(
    keys: Res<ButtonInput<KeyCode>>,
    mode: Res<State<Mode>>,
    mut painter: ResMut<Painter>,
    level: Res<Level>,
    mut notice: ResMut<Notice>,
) {
    if !keys.just_pressed(KeyCode::KeyP) {
        return;
    }
    match mode.get() {
        Mode::RealTime => {}
        // The lab always paints; in tactics, clicks are moves.
        Mode::Lab => return,
        Mode::Tactics => {
            notice.say("painting is for real-time play and the lab (L)");
            return;
        }
    }
    painter.on = !painter.on;
    if level.tiled.is_some() {
        notice.say(if painter.on {
            "terrain mode: pick a tile kind (click a cell or the panel, Tab), then a terrain (1-9 or the panel); Ctrl+Z undo, Ctrl+S save, P leave"
        } else {
            "terrain mode off"
        });
        return;
    }
    notice.say(if painter.on {
        format!(
            "painting {}: left-drag paints, right-drag erases, 1-9 pick, Ctrl+Z undo, Ctrl+S save, P stop",
            terrain_name(&level, painter.terrain)
        )
    } else {
        "painting off".to_owned()
    });
}

fn terrain_name(level: &Level, terrain: usize) -> &str {
    level
        .table
        .terrains
        .get(terrain)
        .map_or("?", |t| t.name.as_str())
}

/// Keys 1–9 pick the palette's terrain, in the terrain table's order.
fn pick_terrain(
    keys: Res<ButtonInput<KeyCode>>,
    mode: Res<State<Mode>>,
    mut painter: ResMut<Painter>,
    level: Res<Level>,
    mut notice: ResMut<Notice>,
) {
    // A Tiled or LDtk map's keys give the picked tile kind a terrain (`terrain_mode`).
    if !painter.painting(mode.get()) || level.tiled.is_some() {
        return;
    }
    let picked = DIGITS.iter().position(|&k| keys.just_pressed(k));
    if let Some(terrain) = picked.filter(|&t| t < level.table.terrains.len()) {
        painter.terrain = terrain;
        notice.say(format!("painting {}", terrain_name(&level, terrain)));
    }
}

/// Ctrl+Z and Ctrl+S, in real time (painting or not: a painted map stays painted after
/// `P`) and in the lab; tactics has no painting.
fn edit_keys(
    keys: Res<ButtonInput<KeyCode>>,
    mode: Res<State<Mode>>,
    mut edits: MessageWriter<EditMap>,
) {
    if *mode.get() == Mode::Tactics || !ctrl(&keys) {
        return;
    }
    if keys.just_pressed(KeyCode::KeyZ) {
        edits.write(EditMap::Undo);
    }
    if keys.just_pressed(KeyCode::KeyS) {
        edits.write(EditMap::Save);
    }
}

/// Left-drag paints, right-drag erases: every tile the pointer crosses, including those it
/// skipped between two frames. One drag is one stroke (one undo step).
pub(super) fn paint_strokes(
    buttons: Res<ButtonInput<MouseButton>>,
    mode: Res<State<Mode>>,
    cursor: Res<Cursor>,
    level: Res<Level>,
    mut painter: ResMut<Painter>,
    mut edits: MessageWriter<EditMap>,
) {
    if buttons.just_released(MouseButton::Left) || buttons.just_released(MouseButton::Right) {
        painter.stroke = None;
        painter.held = false;
    }
    // A Tiled or LDtk map's cells take their tile kind's terrain (`terrain_mode`).
    if !painter.painting(mode.get()) || painter.held || cursor.over_ui || level.tiled.is_some() {
        return;
    }
    let Some(tile) = cursor.tile else { return };
    let pressed = [MouseButton::Left, MouseButton::Right]
        .into_iter()
        .find(|&b| buttons.pressed(b));
    let Some(button) = pressed else { return };
    let terrain = match button {
        MouseButton::Left => painter.terrain,
        _ => 0,
    };
    let Some(glyph) = level
        .table
        .terrains
        .get(terrain)
        .and_then(|t| t.glyphs.chars().next())
    else {
        return;
    };
    let (cells, stroke) = match painter.stroke {
        Some((b, last)) if b == button => {
            if last == tile {
                return;
            }
            (line(last, tile), false)
        }
        // A new stroke starts where the button went down: the pointer may have moved on
        // within the frame.
        _ => {
            let from = cursor
                .pressed(button)
                .and_then(|at| at.tile)
                .unwrap_or(tile);
            (line(from, tile), true)
        }
    };
    painter.stroke = Some((button, tile));
    edits.write(EditMap::Paint {
        cells,
        glyph,
        stroke,
    });
}

/// The cells on the straight line from `a` to `b` (both included), so that a fast drag
/// leaves no gaps.
fn line(a: Pos, b: Pos) -> Vec<Pos> {
    let (dx, dy) = (
        i64::from(b.x) - i64::from(a.x),
        i64::from(b.y) - i64::from(a.y),
    );
    let steps = dx.abs().max(dy.abs());
    if steps == 0 {
        return vec![a];
    }
    (0..=steps)
        .map(|i| {
            let at = |from: u32, d: i64| {
                (i64::from(from) + (d * i + steps / 2 * d.signum()) / steps) as u32
            };
            Pos::new(at(a.x, dx), at(a.y, dy))
        })
        .collect()
}

/// What the map editor did (saved, undone, refused) becomes the notice (the HUD runs it
/// with the notice's other writers, before it shows the notice).
pub(super) fn report_edits(mut reports: MessageReader<MapEdited>, mut notice: ResMut<Notice>) {
    for MapEdited(report) in reports.read() {
        match report {
            Ok(done) => notice.say(done.clone()),
            Err(why) => notice.say(why.clone()),
        }
    }
}

#[cfg(test)]
mod tests {
    use bevy::ecs::system::RunSystemOnce;
    use bevy::state::app::StatesPlugin;

    use super::*;

    /// The edits that `edit_keys` sends for keys pressed (and released) within one frame, in
    /// `mode`.
    fn edits_for(mode: Mode, keys: &[KeyCode]) -> Vec<EditMap> {
        let mut app = App::new();
        app.add_plugins(StatesPlugin)
            .insert_state(mode)
            .add_message::<EditMap>()
            .init_resource::<ButtonInput<KeyCode>>();
        app.update();
        let mut input = app.world_mut().resource_mut::<ButtonInput<KeyCode>>();
        for &key in keys {
            input.press(key);
        }
        for &key in keys {
            input.release(key);
        }
        app.world_mut().run_system_once(edit_keys).unwrap();
        let messages = app.world().resource::<Messages<EditMap>>();
        messages.get_cursor().read(messages).cloned().collect()
    }

    #[test]
    fn a_quick_ctrl_s_or_ctrl_z_within_one_frame_saves_or_undoes() {
        let (ctrl, s, z) = (KeyCode::ControlLeft, KeyCode::KeyS, KeyCode::KeyZ);
        assert_eq!(edits_for(Mode::RealTime, &[ctrl, s]), [EditMap::Save]);
        assert_eq!(edits_for(Mode::Lab, &[ctrl, z]), [EditMap::Undo]);
        assert_eq!(edits_for(Mode::RealTime, &[s]), []);
        assert_eq!(edits_for(Mode::Tactics, &[ctrl, s]), []);
    }

    #[test]
    fn a_ctrl_s_split_over_two_frames_saves() {
        // Ctrl goes down before a frame; S goes down and both come up before the next.
        let mut app = App::new();
        app.add_plugins(StatesPlugin)
            .insert_state(Mode::RealTime)
            .add_message::<EditMap>()
            .init_resource::<ButtonInput<KeyCode>>();
        app.update();
        let mut input = app.world_mut().resource_mut::<ButtonInput<KeyCode>>();
        input.press(KeyCode::ControlLeft);
        app.world_mut().run_system_once(edit_keys).unwrap();
        let mut input = app.world_mut().resource_mut::<ButtonInput<KeyCode>>();
        input.clear();
        input.press(KeyCode::KeyS);
        input.release(KeyCode::KeyS);
        input.release(KeyCode::ControlLeft);
        app.world_mut().run_system_once(edit_keys).unwrap();
        let messages = app.world().resource::<Messages<EditMap>>();
        let sent: Vec<EditMap> = messages.get_cursor().read(messages).cloned().collect();
        assert_eq!(sent, [EditMap::Save]);
    }

    #[test]
    fn a_fast_drag_paints_every_tile_between() {
        assert_eq!(
            line(Pos::new(0, 0), Pos::new(3, 1)),
            [(0, 0), (1, 0), (2, 1), (3, 1)].map(Pos::from)
        );
        assert_eq!(
            line(Pos::new(2, 4), Pos::new(2, 1)),
            [(2, 4), (2, 3), (2, 2), (2, 1)].map(Pos::from)
        );
        assert_eq!(line(Pos::new(1, 1), Pos::new(1, 1)), [Pos::new(1, 1)]);
    }
}
