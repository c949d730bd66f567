//! Screenshots (F12) and, with `--events`, where the map is on screen: what a player uses
//! to share a moment, and what the end-to-end test uses to click tiles and check the frame.

use std::path::PathBuf;

use bevy::prelude::*;
use bevy::render::view::screenshot::{Screenshot, ScreenshotCaptured, save_to_disk};

use crate::AppSystems;
use crate::convert::TILE_SIZE;
use crate::journal::EventLog;
use crate::level::Level;

/// Where F12 saves the next screenshot (`play --screenshot FILE`); by default
/// `screenshots/tilewalk-N.png` in the current folder.
#[derive(Resource, Clone, Debug, Default)]
pub struct ScreenshotPath(pub Option<PathBuf>);

pub(super) fn plugin(app: &mut App) {
    app.init_resource::<ScreenshotPath>().add_systems(
        Update,
        (
            take_screenshot,
            report_view.run_if(resource_exists::<EventLog>.and_then(resource_exists::<Level>)),
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

/// Reports where the map's top-left corner is in the window and how big a tile is, in
/// logical pixels, whenever that changes.
fn report_view(
    level: Res<Level>,
    camera: Single<(&Camera, &GlobalTransform)>,
    window: Single<&Window>,
    mut log: ResMut<EventLog>,
    mut last: Local<Option<(Vec2, f32)>>,
) -> Result {
    let (camera, transform) = *camera;
    let top_left = Vec2::new(0.0, level.height as f32 * TILE_SIZE);
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
