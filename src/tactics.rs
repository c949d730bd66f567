//! Tactics mode: which game is played ([`Mode`]), the rules file `assets/tactics.ron`
//! read into the plugin's [`TacticsRules`] and kept in step with it, and the plugin's
//! [`TerrainDefence`] kept in step with the level's terrain. Ranges, moves, combat and turns
//! are `bevy_tilewalk`'s.

use std::collections::BTreeMap;

use bevy::prelude::*;
pub use bevy_tilewalk::TacticsRules;
pub use bevy_tilewalk::{PerClass, ZoneOfControl};
use serde::Deserialize;
use tilewalk_path::formats::ParseError;

pub use bevy_tilewalk::{
    Acted, Board, CancelMove, EndTurn, EnemyTurn, Forecast, Health, MAX_MOVEMENT_POINTS,
    MoveCancelled, Moved, Piece, PieceQuery, Strike, Struck, TacticsMove, TerrainDefence, Turn,
    Wait, Waited, with_board,
};

use crate::AppSystems;
use crate::assets::{
    FileErrors, TextAsset, TextLoader, Tracks, report_failed_loads, ron_error, touches, unique_keys,
};
use crate::level::Level;
use crate::units::MAX_ATTACK_RANGE;

/// Which game is being played.
#[derive(States, Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Mode {
    /// Click to move; units walk at once.
    #[default]
    RealTime,
    /// Turn-based: each unit moves once per turn within its movement range.
    Tactics,
    /// The search lab: no orders; searches between two markers on the map's terrain,
    /// replayed step by step (the view's `lab`). Units that were walking walk on.
    Lab,
}

/// `assets/tactics.ron` as written.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RulesFile {
    #[serde(deserialize_with = "unique_keys")]
    movement_points: BTreeMap<String, f64>,
    #[serde(deserialize_with = "unique_keys")]
    attack_range: BTreeMap<String, (u32, u32)>,
    zone_of_control: ZoneOfControlFile,
    #[serde(default)]
    ignore_zone_of_control: Vec<String>,
    #[serde(default, deserialize_with = "unique_keys")]
    hit_points: BTreeMap<String, u32>,
    #[serde(default, deserialize_with = "unique_keys")]
    damage: BTreeMap<String, u32>,
}

#[derive(Deserialize)]
enum ZoneOfControlFile {
    EndsMove,
    TakesAllPoints,
}

/// The tactics rules file, as an asset.
#[derive(Asset, TypePath, Clone, Debug, PartialEq)]
pub struct RulesAsset(pub TacticsRules);

/// Parses and checks a tactics rules file (`assets/tactics.ron`): movement points from 0 to
/// [`MAX_MOVEMENT_POINTS`], attack ranges `(min, max)` with
/// `1 <= min <= max <=` [`MAX_ATTACK_RANGE`], hit points from 1 and damage from 0, per class
/// name (`*` for every class not named).
pub fn parse_rules(text: &str) -> Result<TacticsRules, ParseError> {
    let file: RulesFile = ron::from_str(text).map_err(|e| ron_error(text, e))?;
    // Point at the class's entry in the field's map, or at the field.
    let at = |key: &str, class: &str, message: String| {
        let needle = format!("\"{class}\"");
        let lines: Vec<&str> = text.lines().collect();
        let start = lines.iter().position(|l| l.contains(key)).unwrap_or(0);
        let (line, column) = lines
            .iter()
            .enumerate()
            .skip(start)
            .find_map(|(i, l)| l.find(&needle).map(|c| (i + 1, c + 1)))
            .unwrap_or((start + 1, 1));
        ParseError::new(line, column, message)
    };
    for (class, &points) in &file.movement_points {
        if !(0.0..=MAX_MOVEMENT_POINTS).contains(&points) {
            return Err(at(
                "movement_points",
                class,
                format!(
                    "{class} movement points must be a number from 0 to {MAX_MOVEMENT_POINTS}, got {points}"
                ),
            ));
        }
    }
    for (class, &(min, max)) in &file.attack_range {
        if !(1 <= min && min <= max && max <= MAX_ATTACK_RANGE) {
            return Err(at(
                "attack_range",
                class,
                format!(
                    "{class} attack range must be (min, max) with 1 <= min <= max <= {MAX_ATTACK_RANGE}, got ({min}, {max})"
                ),
            ));
        }
    }
    if let Some((class, _)) = file.hit_points.iter().find(|&(_, &hp)| hp == 0) {
        return Err(at(
            "hit_points",
            class,
            format!("{class} hit points must be at least 1, got 0"),
        ));
    }
    Ok(TacticsRules {
        movement_points: PerClass(file.movement_points),
        attack_range: PerClass(file.attack_range),
        zone_of_control: match file.zone_of_control {
            ZoneOfControlFile::EndsMove => ZoneOfControl::EndsMove,
            ZoneOfControlFile::TakesAllPoints => ZoneOfControl::TakesAllPoints,
        },
        ignore_zone_of_control: file.ignore_zone_of_control,
        hit_points: PerClass(file.hit_points),
        damage: PerClass(file.damage),
    })
}

pub(super) fn plugin(app: &mut App) {
    app.init_state::<Mode>()
        .configure_sets(
            Update,
            bevy_tilewalk::TilewalkSystems::Turns.run_if(in_state(Mode::Tactics)),
        )
        .add_systems(
            Update,
            sync_defence
                .in_set(AppSystems::Load)
                .run_if(resource_exists_and_changed::<Level>),
        );
}

/// Each tile's defence in combat is its terrain's (`defence` in the terrain table): rebuilt
/// whenever the level is, so a saved terrain table or map applies at once.
fn sync_defence(mut commands: Commands, level: Res<Level>) {
    commands.insert_resource(TerrainDefence::from_fn(level.width, level.height, |p| {
        level.terrain(p).map_or(0, |t| t.defence)
    }));
}

/// Loads `assets/tactics.ron` through the asset server and keeps the [`TacticsRules`]
/// resource in step with it: an edit applies at once (the shown range is recomputed); a
/// broken edit is reported and the last good rules stay.
pub fn assets_plugin(app: &mut App) {
    app.init_asset::<RulesAsset>()
        .init_asset_loader::<TextLoader<RulesAsset>>()
        .add_systems(Startup, load_rules_file)
        .add_systems(
            Update,
            (
                report_failed_loads::<RulesAsset, RulesHandle>,
                apply_rules_file,
            )
                .chain()
                .in_set(AppSystems::Load),
        );
}

impl TextAsset for RulesAsset {
    const EXTENSIONS: &'static [&'static str] = &["ron"];

    fn from_text(text: &str) -> Result<Self, ParseError> {
        parse_rules(text).map(Self)
    }
}

#[derive(Resource)]
struct RulesHandle(Handle<RulesAsset>);

impl Tracks<RulesAsset> for RulesHandle {
    fn tracks(&self, id: AssetId<RulesAsset>) -> bool {
        id == self.0.id()
    }
}

fn load_rules_file(mut commands: Commands, server: Res<AssetServer>) {
    commands.insert_resource(RulesHandle(server.load("tactics.ron")));
}

fn apply_rules_file(
    mut commands: Commands,
    mut events: MessageReader<AssetEvent<RulesAsset>>,
    handle: Res<RulesHandle>,
    assets: Res<Assets<RulesAsset>>,
    mut errors: ResMut<FileErrors>,
) {
    if !events.read().any(|e| touches(e, handle.0.id())) {
        return;
    }
    if let Some(rules) = assets.get(&handle.0) {
        errors.0.retain(|file, _| !file.ends_with("tactics.ron"));
        commands.insert_resource(rules.0.clone());
    }
}
