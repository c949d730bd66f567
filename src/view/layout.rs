//! Where every panel sits on screen, in one flex layout so that no panel covers another: a
//! top bar (status, notice, file errors, the tactics turn), the map area with the minimap at
//! its left, the help bar at the bottom, and the lab's column at the right. The camera fits
//! the map into the map area ([`MapArea`]).

use bevy::prelude::*;
use bevy::ui::UiGlobalTransform;

/// The top bar's height: the status panel's five lines (tile, selection, search, frame,
/// paths) and its padding.
const TOP_BAR_PX: f32 = 104.0;
/// The bottom bar's height: two lines of help (it wraps in a narrow window).
const BOTTOM_BAR_PX: f32 = 44.0;
/// The lab's column, beside everything else.
pub(super) const LAB_COLUMN_PX: f32 = 360.0;

/// The row at the top: status, notice, file errors and the tactics turn, left to right.
#[derive(Component)]
pub(super) struct TopBar;

/// The column at the left of the map area that holds the minimap, at its bottom.
#[derive(Component)]
pub(super) struct MinimapSlot;

/// The part of the window where the map shows, between and beside the panels.
#[derive(Component)]
pub(super) struct MapArea;

/// The bar at the bottom: the controls.
#[derive(Component)]
pub(super) struct BottomBar;

/// The lab's column at the right, shown only in the lab.
#[derive(Component)]
pub(super) struct LabSlot;

/// A panel on screen, by name (`--events` reports where each one is).
#[derive(Component, Clone, Copy, Debug)]
pub struct HudPanel(pub &'static str);

/// The background of the HUD's panels.
pub(super) const PANEL_BACKGROUND: Color = Color::srgba(0.05, 0.06, 0.08, 0.72);

pub(super) fn plugin(app: &mut App) {
    app.add_systems(PreStartup, spawn_layout);
}

fn spawn_layout(mut commands: Commands) {
    let slot = |node: Node| (node, Pickable::IGNORE);
    commands.spawn((
        Name::new("Layout"),
        slot(Node {
            width: percent(100),
            height: percent(100),
            ..default()
        }),
        children![
            (
                slot(Node {
                    flex_grow: 1.0,
                    min_width: px(0),
                    flex_direction: FlexDirection::Column,
                    padding: UiRect::axes(px(8), px(6)),
                    row_gap: px(6),
                    ..default()
                }),
                children![
                    (
                        TopBar,
                        slot(Node {
                            height: px(TOP_BAR_PX),
                            flex_shrink: 0.0,
                            column_gap: px(10),
                            align_items: AlignItems::FlexStart,
                            ..default()
                        }),
                    ),
                    (
                        slot(Node {
                            flex_grow: 1.0,
                            min_height: px(0),
                            column_gap: px(8),
                            ..default()
                        }),
                        children![
                            (
                                MinimapSlot,
                                slot(Node {
                                    flex_direction: FlexDirection::Column,
                                    justify_content: JustifyContent::FlexEnd,
                                    ..default()
                                }),
                            ),
                            (
                                MapArea,
                                slot(Node {
                                    flex_grow: 1.0,
                                    ..default()
                                })
                            ),
                        ],
                    ),
                    (
                        BottomBar,
                        slot(Node {
                            height: px(BOTTOM_BAR_PX),
                            flex_shrink: 0.0,
                            flex_direction: FlexDirection::Column,
                            justify_content: JustifyContent::FlexEnd,
                            align_items: AlignItems::FlexStart,
                            ..default()
                        }),
                    ),
                ],
            ),
            (
                LabSlot,
                slot(Node {
                    display: Display::None,
                    width: px(LAB_COLUMN_PX),
                    flex_shrink: 0.0,
                    flex_direction: FlexDirection::Column,
                    padding: UiRect::axes(px(8), px(6)),
                    ..default()
                }),
            ),
        ],
    ));
}

/// A node's rectangle on screen, in logical pixels; `None` before it is laid out.
pub(super) fn screen_rect(node: &ComputedNode, place: &UiGlobalTransform) -> Option<Rect> {
    let scale = node.inverse_scale_factor();
    let size = node.size() * scale;
    (size.x > 0.0 && size.y > 0.0).then(|| Rect::from_center_size(place.translation * scale, size))
}
