//! Real time's preview of a move: with units selected, the path the lead unit (the first by
//! name, whose path is drawn yellow) would take to the tile under the pointer, before the
//! right click; where it cannot go, the way to the tile nearest it that the order would take
//! instead and why (or, where the game refuses such orders, the refusal cross and why). The
//! goal is checked by the plugin's own check of an order's goal
//! ([`Navigation::order_goal`]), so the preview and the order agree. A group order gives each
//! unit its own tile when it is given, so only the lead's way is previewed: one search, not
//! one a unit.

use bevy::ecs::query::QueryData;
use bevy::prelude::*;
use bevy_tilewalk::{MovementClass, Navigation, Refusal, Tile, Unit, UnreachableGoals};
use tilewalk_path::{CellPath, Pos, SearchContext, SearchOptions};

use super::hud::PATH_TINTS;
use super::input::not_painting;
use super::sprites::RefusalCross;
use super::{Cursor, DragBox, Notice, route_line};
use crate::AppSystems;
use crate::level::{GameLabels, Level};
use crate::tactics::Mode;
use crate::units::Selected;

pub(super) fn plugin(app: &mut App) {
    app.init_gizmo_group::<PreviewLine>()
        .init_resource::<MovePreview>()
        .add_systems(Startup, dash_preview_lines)
        .add_systems(
            Update,
            (
                plan_preview.run_if(resource_exists::<Navigation>),
                show_preview.run_if(resource_exists::<Level>),
            )
                .chain()
                .in_set(AppSystems::Present)
                .run_if(in_state(Mode::RealTime).and_then(not_painting)),
        );
}

/// The preview's line: dashed, so it reads apart from the solid line of a path being walked.
#[derive(Default, Reflect, GizmoConfigGroup)]
struct PreviewLine;

fn dash_preview_lines(mut store: ResMut<GizmoConfigStore>) {
    let (config, _) = store.config_mut::<PreviewLine>();
    config.line.width = 3.0;
    config.line.style = GizmoLineStyle::Dashed {
        gap_scale: 2.0,
        line_scale: 3.0,
    };
}

/// What the preview shows: the lead unit, the tile it stands on and the tile under the
/// pointer it was searched for, and the way there or why there is none. Searched again only
/// when one of the three or the navigation changes.
#[derive(Resource, Default, Debug, PartialEq)]
pub(super) struct MovePreview {
    asked: Option<Asked>,
    route: Option<Result<Route, Refusal>>,
}

/// The way an order would take the lead unit: to the tile asked, or, when it cannot get
/// there, to the tile nearest it ([`UnreachableGoals::Nearest`]), with why it stops short.
#[derive(Debug, PartialEq)]
struct Route {
    path: CellPath,
    short_of: Option<Refusal>,
}

/// A preview's question: from where the lead unit stands to the hovered tile.
#[derive(Clone, Copy, Debug, PartialEq)]
struct Asked {
    unit: Entity,
    from: Pos,
    to: Pos,
}

/// What the preview needs of a selected unit.
#[derive(QueryData)]
struct Candidate {
    entity: Entity,
    name: &'static Name,
    tile: &'static Tile,
    class: &'static MovementClass,
}

fn plan_preview(
    cursor: Res<Cursor>,
    drag: Res<DragBox>,
    nav: Res<Navigation>,
    rule: Option<Res<UnreachableGoals>>,
    selected: Query<Candidate, (With<Selected>, With<Unit>)>,
    mut preview: ResMut<MovePreview>,
    mut context: Local<SearchContext>,
) {
    // The lead: the first by name, the one whose path is drawn yellow.
    let lead = selected
        .iter()
        .min_by(|a, b| a.name.as_str().cmp(b.name.as_str()));
    let asked = match (&lead, cursor.tile) {
        // Over a panel, or the lead's own tile: nothing to preview; nor during a box drag,
        // which is about to change the selection.
        (Some(lead), Some(to)) if !cursor.over_ui && !drag.dragging && to != lead.tile.0 => {
            Some(Asked {
                unit: lead.entity,
                from: lead.tile.0,
                to,
            })
        }
        _ => None,
    };
    let rule = rule.map_or_else(UnreachableGoals::default, |r| *r);
    if preview.asked == asked && !nav.is_changed() {
        return;
    }
    let route = lead.zip(asked).map(|(lead, asked)| {
        let class = *lead.class;
        // The plugin's own check of an order's goal: the preview shows what the order does.
        let (tile, short) = nav.order_goal(class, asked.from, asked.to, rule)?;
        let path = context
            .search(
                nav.grid(class),
                asked.from,
                tile,
                &SearchOptions::on(nav.board()),
            )
            .map_err(|why| Refusal::NoPath { why })?
            .path;
        Ok(Route {
            path,
            short_of: short.map(|s| s.refusal()),
        })
    });
    preview.set_if_neq(MovePreview { asked, route });
}

/// Draws the previewed way, or the refusal cross on the tile and why in the hint.
fn show_preview(
    mut gizmos: Gizmos<PreviewLine>,
    preview: Res<MovePreview>,
    level: Res<Level>,
    names: Query<&Name>,
    mut cross: ResMut<RefusalCross>,
    mut notice: ResMut<Notice>,
) {
    let (Some(asked), Some(route)) = (preview.asked, &preview.route) else {
        return;
    };
    let name_of = |unit: Entity| {
        names
            .get(unit)
            .map_or_else(|_| String::new(), |n| n.to_string())
    };
    let name = name_of(asked.unit);
    let labels = GameLabels {
        level: &level,
        name_of,
    };
    match route {
        Ok(Route {
            path,
            short_of: None,
        }) => {
            route_line(&mut gizmos, &level.geometry(), &path.cells, PATH_TINTS[0]);
            notice.hint(format!(
                "right-click: {name} to {}: cost {:.2}",
                asked.to, path.cost
            ));
        }
        Ok(Route {
            path,
            short_of: Some(why),
        }) => {
            route_line(&mut gizmos, &level.geometry(), &path.cells, PATH_TINTS[0]);
            notice.hint(format!(
                "right-click: {name} as near as it can get, to {}: cost {:.2} ({})",
                path.cells.last().copied().unwrap_or(asked.to),
                path.cost,
                why.message(&name, &labels)
            ));
        }
        Err(refusal) => {
            cross.0 = Some(asked.to);
            notice.hint(refusal.message(&name, &labels));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::headless_app;
    use crate::map::MapAsset;
    use crate::terrain::TerrainTable;

    /// A ford across a river, and a grass tile walled in by rock at the bottom right.
    const FORD: &str = "[terrain]
...~...
...=...
...~.##
..####.
[units]
knight blue foot  0,0
rider  blue horse 0,2
";

    /// A headless app on [`FORD`] with the preview's planning and the pointer at `tile`.
    fn app_with(selected: &[&str], tile: Option<Pos>) -> App {
        app_under(UnreachableGoals::Nearest, selected, tile)
    }

    /// [`app_with`] for a game whose orders to unreachable tiles follow `rule`.
    fn app_under(rule: UnreachableGoals, selected: &[&str], tile: Option<Pos>) -> App {
        let table =
            TerrainTable::parse(&std::fs::read_to_string("assets/terrain.ron").unwrap()).unwrap();
        let mut app = headless_app(&MapAsset::parse(FORD).unwrap(), &table).unwrap();
        app.init_resource::<MovePreview>()
            .init_resource::<DragBox>()
            .insert_resource(rule)
            .insert_resource(Cursor { tile, ..default() })
            .add_systems(Update, plan_preview.in_set(AppSystems::Present));
        app.update();
        let world = app.world_mut();
        let units: Vec<(Entity, String)> = world
            .query_filtered::<(Entity, &Name), With<Unit>>()
            .iter(world)
            .map(|(e, n)| (e, n.to_string()))
            .collect();
        for (unit, name) in units {
            if selected.contains(&name.as_str()) {
                world.entity_mut(unit).insert(Selected);
            }
        }
        app.update();
        app
    }

    fn preview(app: &App) -> &MovePreview {
        app.world().resource::<MovePreview>()
    }

    #[test]
    fn the_lead_units_way_to_the_hovered_tile_is_previewed_and_follows_the_pointer() {
        let mut app = app_with(&["rider", "knight"], Some(Pos::new(6, 1)));
        // The lead is the first by name: the knight, over the ford.
        let Some(Ok(Route { path, .. })) = &preview(&app).route else {
            panic!("a way: {:?}", preview(&app));
        };
        assert_eq!(path.cells.first(), Some(&Pos::new(0, 0)));
        assert_eq!(path.cells.last(), Some(&Pos::new(6, 1)));
        assert!(path.cells.contains(&Pos::new(3, 1)), "{:?}", path.cells);
        // Another tile: searched again, from where the knight stands.
        app.world_mut().resource_mut::<Cursor>().tile = Some(Pos::new(1, 2));
        app.update();
        let Some(Ok(Route { path, .. })) = &preview(&app).route else {
            panic!("a way: {:?}", preview(&app));
        };
        assert_eq!(path.cells.last(), Some(&Pos::new(1, 2)));
        // The knight's own tile, off the map, or over a panel: nothing.
        app.world_mut().resource_mut::<Cursor>().tile = Some(Pos::new(0, 0));
        app.update();
        assert_eq!(*preview(&app), MovePreview::default());
        app.world_mut().resource_mut::<Cursor>().tile = None;
        app.update();
        assert_eq!(*preview(&app), MovePreview::default());
        // During a box drag, none; once it ends, the way again.
        app.world_mut().resource_mut::<Cursor>().tile = Some(Pos::new(1, 2));
        app.world_mut().resource_mut::<DragBox>().dragging = true;
        app.update();
        assert_eq!(*preview(&app), MovePreview::default(), "while dragging");
        app.world_mut().resource_mut::<DragBox>().dragging = false;
        app.update();
        assert!(
            matches!(preview(&app).route, Some(Ok(_))),
            "{:?}",
            preview(&app)
        );
    }

    #[test]
    fn a_tile_the_lead_cannot_reach_is_previewed_as_the_way_to_the_nearest_tile_it_can() {
        // Rock, water for a horse, grass walled in by rock: each previewed as the way the
        // order takes instead, to the tile the plugin sends the unit to, and why.
        for (unit, to) in [
            ("rider", Pos::new(3, 3)),
            ("rider", Pos::new(3, 2)),
            ("knight", Pos::new(6, 3)),
        ] {
            let app = app_with(&[unit], Some(to));
            let Some(Ok(Route {
                path,
                short_of: Some(why),
            })) = &preview(&app).route
            else {
                panic!("{unit} to {to}: {:?}", preview(&app));
            };
            let world = app.world();
            let nav = world.resource::<Navigation>();
            let asked = preview(&app).asked.unwrap();
            let class = *world.get::<MovementClass>(asked.unit).unwrap();
            let near = nav.nearest_reachable(class, asked.from, to).unwrap();
            assert_ne!(near, to);
            assert_eq!(path.cells.last(), Some(&near), "{unit} to {to}");
            assert_eq!(path.cells.first(), Some(&asked.from));
            assert!(
                matches!(why, Refusal::Impassable { goal, .. } | Refusal::Unreachable { goal, .. } if *goal == to),
                "{why:?}"
            );
        }
    }

    #[test]
    fn where_orders_are_refused_a_tile_the_lead_cannot_reach_is_previewed_as_the_refusal() {
        // Rock: impassable.
        let app = app_under(UnreachableGoals::Refuse, &["rider"], Some(Pos::new(3, 3)));
        assert!(
            matches!(
                preview(&app).route,
                Some(Err(Refusal::Impassable { goal, .. })) if goal == Pos::new(3, 3)
            ),
            "{:?}",
            preview(&app)
        );
        // Water: impassable for a horse.
        let app = app_under(UnreachableGoals::Refuse, &["rider"], Some(Pos::new(3, 2)));
        assert!(
            matches!(preview(&app).route, Some(Err(Refusal::Impassable { .. }))),
            "{:?}",
            preview(&app)
        );
        // Grass walled in by rock: no way there.
        let app = app_under(UnreachableGoals::Refuse, &["knight"], Some(Pos::new(6, 3)));
        assert!(
            matches!(
                preview(&app).route,
                Some(Err(Refusal::Unreachable { goal, .. })) if goal == Pos::new(6, 3)
            ),
            "{:?}",
            preview(&app)
        );
        // Nothing selected: nothing previewed.
        let app = app_with(&[], Some(Pos::new(6, 1)));
        assert_eq!(*preview(&app), MovePreview::default());
    }
}
