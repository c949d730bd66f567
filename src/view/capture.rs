//! Screenshots (F12) and, with `--events`, what the player's input did: where the map is on
//! screen, where each panel and the map area are, the tile under the pointer, the selection,
//! the paths and steps walked, each tactics turn, and the frame rate once a second (the
//! orders, arrivals, refusals, strikes and the end of a game are the journal's lines). A
//! player uses F12 to share a moment; the end-to-end test clicks tiles and waits on these
//! events instead of sleeping, so it holds on a slow, busy machine.

use std::path::PathBuf;

use bevy::prelude::*;
use bevy::render::view::screenshot::{Screenshot, ScreenshotCaptured, save_to_disk};
use bevy::ui::UiGlobalTransform;

use bevy_tilewalk::tactics::Turn;
use bevy_tilewalk::{Path, Tile};
use tilewalk_path::Pos;

use super::Cursor;
use super::camera::LastFit;
use super::layout::{HudPanel, MapArea, screen_rect};
use crate::AppSystems;
use crate::convert::TILE_SIZE;
use crate::journal::EventLog;
use crate::level::Level;
use crate::tactics::Mode;
use crate::units::Selected;

/// Where F12 saves the next screenshot (`play --screenshot FILE`); by default
/// `screenshots/tilewalk-N.png` in the current folder.
#[derive(Resource, Clone, Debug, Default)]
pub struct ScreenshotPath(pub Option<PathBuf>);

pub(super) fn plugin(app: &mut App) {
    app.init_resource::<ScreenshotPath>().add_systems(
        Update,
        (
            take_screenshot,
            (
                report_view,
                report_hover,
                report_selection,
                report_paths,
                report_steps,
                report_frames,
                report_panels,
                report_turns,
            )
                .run_if(resource_exists::<EventLog>.and_then(resource_exists::<Level>)),
        )
            .in_set(AppSystems::Present),
    );
}

fn take_screenshot(
    mut commands: Commands,
    keys: Res<ButtonInput<KeyCode>>,
    path: Res<ScreenshotPath>,
    mut taken: Local<u32>,
) {
    if !keys.just_pressed(KeyCode::F12) {
        return;
    }
    *taken += 1;
    let path = path
        .0
        .clone()
        .unwrap_or_else(|| PathBuf::from(format!("screenshots/tilewalk-{}.png", *taken)));
    if let Some(folder) = path.parent().filter(|f| !f.as_os_str().is_empty())
        && let Err(e) = std::fs::create_dir_all(folder)
    {
        warn!("cannot save a screenshot in {}: {e}", folder.display());
        return;
    }
    // Write beside the target and rename, so nobody ever reads a half-written file.
    let partial = path.with_extension("partial.png");
    let mut save = save_to_disk(partial.clone());
    commands.spawn(Screenshot::primary_window()).observe(
        move |captured: On<ScreenshotCaptured>, log: Option<ResMut<EventLog>>| {
            save(captured);
            let saved = std::fs::rename(&partial, &path);
            if let (Ok(()), Some(mut log)) = (saved, log) {
                log.write(&serde_json::json!({"event": "screenshot", "path": path}))
                    .ok();
            }
        },
    );
}

/// Reports where the map's top-left corner is in the window and how many logical pixels
/// `TILE_SIZE` world units span, whenever that changes, from the camera's first fit to the
/// map area on (nothing for the frame or two before the layout places the map area). A
/// tile's centre is then at `origin + (centre.x, extent.y - centre.y) * tile_px / TILE_SIZE`
/// for its world centre ([`crate::convert::Geometry::center`]) and the map's world extent.
fn report_view(
    level: Res<Level>,
    camera: Single<(&Camera, &GlobalTransform)>,
    window: Single<&Window>,
    mut log: ResMut<EventLog>,
    mut last: Local<Option<(Vec2, f32)>>,
    fit: Res<LastFit>,
) -> Result {
    if !super::camera::fitted(fit) {
        return Ok(());
    }
    let (camera, transform) = *camera;
    let top_left = Vec2::new(0.0, level.geometry().extent().y);
    let origin = camera.world_to_viewport(transform, top_left.extend(0.0))?;
    let next = camera.world_to_viewport(
        transform,
        (top_left + Vec2::new(TILE_SIZE, 0.0)).extend(0.0),
    )?;
    let view = (origin, next.x - origin.x);
    if *last != Some(view) {
        *last = Some(view);
        log.write(&serde_json::json!({
            "event": "view",
            "window": [window.width(), window.height()],
            "origin": [origin.x, origin.y],
            "tile_px": view.1,
        }))?;
    }
    Ok(())
}

/// Once a second of real time: how many frames were drawn in it and the longest, e.g.
/// `{"event":"frames","fps":58.9,"worst_ms":21.4}`, so a script can tell whether a scene
/// keeps its frame rate without reading the HUD.
fn report_frames(
    time: Res<Time<Real>>,
    mut log: ResMut<EventLog>,
    mut window: Local<(f64, u32, f64)>,
) -> Result {
    let (since, frames, worst) = &mut *window;
    let now = time.elapsed_secs_f64();
    *frames += 1;
    *worst = worst.max(time.delta_secs_f64());
    if now - *since >= 1.0 {
        let fps = f64::from(*frames) / (now - *since);
        log.write(&serde_json::json!({
            "event": "frames",
            "fps": (fps * 10.0).round() / 10.0,
            "worst_ms": (*worst * 10_000.0).round() / 10.0,
        }))?;
        *window = (now, 0, 0.0);
    }
    Ok(())
}

/// The tile under the pointer, whenever it changes (`null` off the map).
fn report_hover(
    cursor: Res<Cursor>,
    mut log: ResMut<EventLog>,
    mut last: Local<Option<Pos>>,
) -> Result {
    if *last != cursor.tile {
        *last = cursor.tile;
        let tile = cursor.tile.map(|p| [p.x, p.y]);
        log.write(&serde_json::json!({"event": "hover", "tile": tile}))?;
    }
    Ok(())
}

/// The selected units by name, whenever the selection changes.
fn report_selection(
    added: Query<(), Added<Selected>>,
    mut removed: RemovedComponents<Selected>,
    selected: Query<&Name, With<Selected>>,
    mut log: ResMut<EventLog>,
) -> Result {
    // Read the removals every frame, or they would be reported again with the next change.
    let removed = removed.read().count() > 0;
    if added.is_empty() && !removed {
        return Ok(());
    }
    let mut names: Vec<&str> = selected.iter().map(Name::as_str).collect();
    names.sort_unstable();
    log.write(&serde_json::json!({"event": "selected", "units": names}))?;
    Ok(())
}

/// Every new path a unit starts to walk (after an order, a re-plan, a tactics move).
fn report_paths(paths: Query<(&Name, &Path), Added<Path>>, mut log: ResMut<EventLog>) -> Result {
    for (name, path) in &paths {
        let goal = path.goal();
        log.write(&serde_json::json!({"event": "path", "unit": name.as_str(), "goal": [goal.x, goal.y], "steps": path.cells.len() - 1}))?;
    }
    Ok(())
}

/// Every tile a unit steps into: the game has drawn frames since its path began.
fn report_steps(steps: Query<(&Name, &Tile), Changed<Tile>>, mut log: ResMut<EventLog>) -> Result {
    for (name, tile) in &steps {
        log.write(&serde_json::json!({"event": "step", "unit": name.as_str(), "tile": [tile.0.x, tile.0.y]}))?;
    }
    Ok(())
}

/// A panel on screen: `[left, top, right, bottom]` in logical pixels, to a tenth.
type ScreenRect = [f32; 4];

fn corners(rect: Rect) -> ScreenRect {
    [rect.min.x, rect.min.y, rect.max.x, rect.max.y].map(|v| (v * 10.0).round() / 10.0)
}

/// Where each shown panel ([`HudPanel`]) and the map area are, whenever that changes, e.g.
/// `{"event":"panels","mode":"Lab","map_area":[8,116,912,670],"panels":{"help":[8,680,…],…}}`.
fn report_panels(
    panels: Query<(
        &HudPanel,
        &ComputedNode,
        &UiGlobalTransform,
        &InheritedVisibility,
    )>,
    area: Single<(&ComputedNode, &UiGlobalTransform), With<MapArea>>,
    mode: Res<State<Mode>>,
    mut log: ResMut<EventLog>,
    mut last: Local<String>,
) -> Result {
    let shown: serde_json::Map<String, serde_json::Value> = panels
        .iter()
        .filter(|(.., visible)| visible.get())
        .filter_map(|(panel, node, place, _)| {
            let rect = screen_rect(node, place)?;
            Some((panel.0.to_owned(), serde_json::json!(corners(rect))))
        })
        .collect();
    let map_area = screen_rect(area.0, area.1).map(corners);
    let event = serde_json::json!({
        "event": "panels",
        "mode": format!("{:?}", mode.get()),
        "map_area": map_area,
        "panels": shown,
    });
    let text = event.to_string();
    if *last != text {
        log.write(&event)?;
        *last = text;
    }
    Ok(())
}

/// Each tactics turn as it begins: its number and the side moving.
fn report_turns(
    turn: Option<Res<Turn>>,
    mode: Res<State<Mode>>,
    mut log: ResMut<EventLog>,
) -> Result {
    if let Some(turn) = turn.filter(|t| t.is_changed() && *mode.get() == Mode::Tactics) {
        log.write(
            &serde_json::json!({"event": "turn", "number": turn.number, "team": turn.team.to_string()}),
        )?;
    }
    Ok(())
}
