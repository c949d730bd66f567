//! Tactics mode: which game is played ([`Mode`]), who plays each side ([`Players`]: blue
//! played by an AI, red by another AI than the rules file's), the rules file
//! `assets/tactics.ron` read into the plugin's [`TacticsRules`] and kept in step with it, and
//! the plugin's [`TerrainDefence`] kept in step with the level's terrain. Ranges, moves,
//! combat and turns are `bevy_tilewalk`'s.

use std::collections::{BTreeMap, VecDeque};

use bevy::prelude::*;
use bevy_tilewalk::tactics::{
    Defeated, EndTurn, EnemyTurn, HoldEnemyTurn, MAX_ATTACK_RANGE, MAX_MOVEMENT_POINTS, Mind,
    PerClass, Personality, Piece, PieceQuery, Player, RulesError, Strike, TacticsBoard,
    TacticsMove, TacticsRules, TerrainDefence, Turn, ZoneOfControl,
};
use bevy_tilewalk::{ClassSpec, Navigation, Path, Sides, Team};
use serde::Deserialize;
use tilewalk_path::SearchContext;
use tilewalk_path::formats::ParseError;

use crate::AppSystems;
use crate::assets::{
    AssetFileError, FileErrors, TextAsset, TextLoader, Tracks, report_failed_loads, ron_error,
    touches, unique_keys,
};
use crate::level::{Level, RestartLevel};

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
    zone_of_control: ZoneOfControl,
    #[serde(default)]
    ignore_zone_of_control: Vec<String>,
    #[serde(default, deserialize_with = "unique_keys")]
    hit_points: BTreeMap<String, u32>,
    #[serde(default, deserialize_with = "unique_keys")]
    damage: BTreeMap<String, u32>,
    #[serde(default)]
    ai: Mind,
    #[serde(default, deserialize_with = "unique_keys")]
    personality: BTreeMap<String, Personality>,
}

/// The tactics rules file, as an asset: the rules and the text they were read from (to
/// point at an entry when the rules do not fit the level's classes).
#[derive(Asset, TypePath, Clone, Debug, PartialEq)]
pub struct RulesAsset {
    /// The rules.
    pub rules: TacticsRules,
    /// The file's text.
    pub text: String,
}

/// Parses and checks a tactics rules file (`assets/tactics.ron`): movement points from 0 to
/// [`MAX_MOVEMENT_POINTS`], attack ranges `(min, max)` with
/// `1 <= min <= max <=` [`MAX_ATTACK_RANGE`], hit points from 1 and damage from 0, per class
/// name (`*` for every class not named); the enemy's mind (`ai`: `planner`, the default, or
/// `greedy`) and personalities by side or unit name (`balanced`, `aggressive`, `defensive`,
/// `hold`).
pub fn parse_rules(text: &str) -> Result<TacticsRules, ParseError> {
    let file: RulesFile = ron::from_str(text).map_err(|e| ron_error(text, e))?;
    let at = |key: &str, class: &str, message: String| entry_at(text, key, class, message);
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
        zone_of_control: file.zone_of_control,
        ignore_zone_of_control: file.ignore_zone_of_control,
        hit_points: PerClass(file.hit_points),
        damage: PerClass(file.damage),
        ai: file.ai,
        personality: file.personality,
    })
}

/// What hovering `target` with `attacker` selected offers: the strike's forecast (damage
/// both ways, the hit points it leaves), or, when the strike would be refused (the attacker
/// has acted, it is not its side's turn, the target is out of reach or an ally), the
/// refusal's own words. `name` names units.
pub fn strike_hint(
    board: &TacticsBoard,
    attacker: &Piece,
    target: &Piece,
    turn: Turn,
    name: impl Fn(Entity) -> String,
) -> String {
    let (who, whom) = (name(attacker.entity), name(target.entity));
    match board.check_strike(attacker, target, turn) {
        Ok(forecast) => {
            let back = forecast
                .counter
                .map_or_else(|| "no counter".to_owned(), |c| format!("{c} back"));
            format!(
                "right-click: {who} strikes {whom} for {} ({} hp left), {back}",
                forecast.damage,
                target.hp.saturating_sub(forecast.damage)
            )
        }
        Err(refusal) => refusal.message(&who, &Names(name)),
    }
}

/// Unit names for a refusal's message.
struct Names<F>(F);

impl<F: Fn(Entity) -> String> bevy_tilewalk::Labels for Names<F> {
    fn unit(&self, unit: Entity) -> String {
        (self.0)(unit)
    }
}

/// Checks rules read from `text` against the movement classes (those of the terrain table):
/// a name that is not a class is reported at its entry, a class missing from a field that
/// names others at the field ([`TacticsRules::check`]).
pub fn check_rules(
    text: &str,
    rules: &TacticsRules,
    classes: &[ClassSpec],
) -> Result<(), ParseError> {
    rules.check(classes).map_err(|mistake| {
        let class = match mistake {
            RulesError::UnknownClass { .. } => mistake.class(),
            RulesError::MissingClass { .. } => "",
        };
        entry_at(text, mistake.field(), class, mistake.to_string())
    })
}

/// `message` at the entry of `class` (its quoted name) in the field `key` of a rules file, or
/// at the field itself where the entry is not found or `class` is empty. Comments are
/// skipped, so a comment that mentions the field is not taken for it.
fn entry_at(text: &str, key: &str, class: &str, message: String) -> ParseError {
    let code: Vec<&str> = text
        .lines()
        .map(|line| line.find("//").map_or(line, |c| &line[..c]))
        .collect();
    let is_key = |line: &str, at: usize| {
        let before = line[..at].chars().next_back();
        let after = line[at + key.len()..].trim_start();
        !before.is_some_and(|c| c.is_alphanumeric() || c == '_') && after.starts_with(':')
    };
    let field = code.iter().enumerate().find_map(|(i, line)| {
        line.match_indices(key)
            .find(|&(at, _)| is_key(line, at))
            .map(|(at, _)| (i, at))
    });
    let Some((line, column)) = field else {
        return ParseError::new(1, 1, message);
    };
    let needle = format!("\"{class}\"");
    let entry = (!class.is_empty())
        .then(|| {
            // The first quoted name after the field's key: the field's own entry.
            let from = |i: usize| if i == line { column + key.len() } else { 0 };
            code.iter().enumerate().skip(line).find_map(|(i, l)| {
                l.get(from(i)..)
                    .and_then(|rest| rest.find(&needle))
                    .map(|c| (i, from(i) + c))
            })
        })
        .flatten();
    let (line, column) = entry.unwrap_or((line, column));
    let chars = code[line][..column].chars().count();
    ParseError::new(line + 1, chars + 1, message)
}

/// Who plays each side of a tactics game (`play --mode tactics --blue NAME --red NAME`).
#[derive(Resource, Clone, Copy, Debug, PartialEq, Eq)]
pub struct Players {
    /// The AI that plays blue's turns (each unit's move and strike, then the end of the
    /// turn, sent as a person's orders are, so the window shows them); `None`: a person
    /// plays blue.
    pub blue: Option<Mind>,
    /// Who plays red's turns, as the plugin's [`Sides`] have it: the rules file's `ai`
    /// ([`Player::RulesAi`], the default), another AI, or a person ([`Player::Person`]: two
    /// persons take turns at one screen when a person plays blue too).
    pub red: Player,
}

impl Default for Players {
    fn default() -> Self {
        Self {
            blue: None,
            red: Player::RulesAi,
        }
    }
}

impl Players {
    /// Whether a person plays `team`'s turns.
    pub fn person_plays(&self, team: Team) -> bool {
        match team {
            Team::BLUE => self.blue.is_none(),
            Team::RED => self.red == Player::Person,
            _ => false,
        }
    }

    /// The side the window speaks to as "you": the one side a person plays. `None` when
    /// persons play both (two at one screen) or neither (AI against AI): then the words name
    /// the sides.
    pub fn addressed(&self) -> Option<Team> {
        match (self.person_plays(Team::BLUE), self.person_plays(Team::RED)) {
            (true, false) => Some(Team::BLUE),
            (false, true) => Some(Team::RED),
            _ => None,
        }
    }
}

/// The game's other side: red for blue, blue for red (the game has these two).
pub fn other_side(team: Team) -> Team {
    match team {
        Team::BLUE => Team::RED,
        _ => Team::BLUE,
    }
}

/// Blue's turn as its AI planned it: the moves, strikes and the end of the turn still to
/// send, one at a time, each once every unit stands still.
#[derive(Resource, Default)]
struct BlueAiTurn {
    /// The turn planned.
    turn: Option<u32>,
    steps: VecDeque<Step>,
}

/// Marks a unit (or a flash) whose move or strike the window is still showing: while any
/// does, the enemy's turn waits ([`HoldEnemyTurn`]) and so does blue's AI. Removing it (a
/// player skipping the show) lets the turn go on.
#[derive(Component, Clone, Copy, Debug, Default)]
pub struct Presenting;

/// A unit walking a path, or one whose move or strike the window is still showing.
type Busy = Or<(With<Path>, With<Presenting>)>;

enum Step {
    Move(TacticsMove),
    Strike(Strike),
    End,
}

pub(super) fn plugin(app: &mut App) {
    app.init_state::<Mode>()
        .init_resource::<Players>()
        .init_resource::<BlueAiTurn>()
        .add_message::<RestartLevel>()
        .add_observer(on_unit_defeated)
        .add_systems(
            Update,
            hold_enemy_turn.before(bevy_tilewalk::TilewalkSystems::Turns),
        )
        .configure_sets(
            Update,
            bevy_tilewalk::TilewalkSystems::Turns.run_if(in_state(Mode::Tactics)),
        )
        .add_systems(
            Update,
            (
                sync_defence.run_if(resource_exists_and_changed::<Level>),
                restart_turns,
                apply_red_player,
            )
                .in_set(AppSystems::Load),
        )
        .add_systems(
            Update,
            play_blue_ai
                .before(bevy_tilewalk::TilewalkSystems::Turns)
                .run_if(
                    in_state(Mode::Tactics)
                        .and_then(resource_exists::<Navigation>)
                        .and_then(resource_exists::<TacticsRules>),
                ),
        );
}

/// The plugin's enemy turn waits while the window shows a move or a strike ([`Presenting`]).
fn hold_enemy_turn(shows: Query<(), With<Presenting>>, hold: Option<ResMut<HoldEnemyTurn>>) {
    if let Some(mut hold) = hold {
        hold.set_if_neq(HoldEnemyTurn(!shows.is_empty()));
    }
}

/// A unit at 0 hit points leaves the map: the game's rule (the plugin keeps it).
fn on_unit_defeated(defeated: On<Defeated>, mut commands: Commands) {
    commands.entity(defeated.unit).despawn();
}

/// The map started afresh ([`RestartLevel`]): blue's turn 1, no enemy turn under way.
fn restart_turns(
    mut commands: Commands,
    mut restarts: MessageReader<RestartLevel>,
    mut blue: ResMut<BlueAiTurn>,
) {
    if restarts.read().count() > 0 {
        commands.insert_resource(Turn::default());
        commands.insert_resource(EnemyTurn::default());
        *blue = BlueAiTurn::default();
    }
}

/// Red is played as [`Players::red`] says: the plugin's [`Sides`] get it.
fn apply_red_player(players: Res<Players>, mut sides: ResMut<Sides>) {
    if sides
        .get(Team::RED)
        .is_some_and(|red| red.player != players.red)
        && let Some(red) = sides.get_mut(Team::RED)
    {
        red.player = players.red;
    }
}

/// Plays blue's turn when an AI plays blue ([`Players::blue`]): the plan made at the turn's
/// start, sent one move or strike a frame once every unit stands still, as a player's orders
/// are; then the end of the turn. Nothing once a side has won.
fn play_blue_ai(
    (players, turn, mut plan): (Res<Players>, Res<Turn>, ResMut<BlueAiTurn>),
    (nav, rules, defence, sides): (
        Res<Navigation>,
        Res<TacticsRules>,
        Option<Res<TerrainDefence>>,
        Res<Sides>,
    ),
    units: PieceQuery,
    busy: Query<(), Busy>,
    (mut moves, mut strikes, mut ends): (
        MessageWriter<TacticsMove>,
        MessageWriter<Strike>,
        MessageWriter<EndTurn>,
    ),
    mut context: Local<SearchContext>,
) {
    let Some(mind) = players.blue else {
        return;
    };
    if turn.team != Team::BLUE || !busy.is_empty() {
        return;
    }
    let mut board =
        TacticsBoard::new(&nav, &rules, &sides, &units).with_defence(defence.as_deref());
    if board.winner().is_some() {
        return;
    }
    if plan.turn != Some(turn.number) {
        let orders = board.play_side(&mut context, Team::BLUE, mind);
        plan.turn = Some(turn.number);
        plan.steps = orders
            .into_iter()
            .flat_map(|o| {
                let to = o.path.map(|p| p.goal());
                [
                    to.map(|to| Step::Move(TacticsMove::new(o.unit, to))),
                    o.strike
                        .map(|target| Step::Strike(Strike::new(o.unit, target))),
                ]
            })
            .flatten()
            .chain([Step::End])
            .collect();
    }
    match plan.steps.pop_front() {
        Some(Step::Move(order)) => {
            moves.write(order);
        }
        Some(Step::Strike(order)) => {
            strikes.write(order);
        }
        Some(Step::End) => {
            ends.write(EndTurn);
        }
        None => {}
    }
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
        parse_rules(text).map(|rules| Self {
            rules,
            text: text.to_owned(),
        })
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

/// Applies a (re)loaded rules file, and checks the rules again when the level's classes
/// change: rules that name a class the level does not have, or leave one out, are reported
/// at the entry (`assets/tactics.ron:line:col`) and not applied; the last good rules stay.
fn apply_rules_file(
    mut commands: Commands,
    mut events: MessageReader<AssetEvent<RulesAsset>>,
    handle: Res<RulesHandle>,
    assets: Res<Assets<RulesAsset>>,
    (nav, current): (Option<Res<Navigation>>, Option<Res<TacticsRules>>),
    mut errors: ResMut<FileErrors>,
    mut mistaken: Local<bool>,
) {
    let loaded = events.read().any(|e| touches(e, handle.0.id()));
    if !loaded && !nav.as_ref().is_some_and(|n| n.is_changed()) {
        return;
    }
    let Some(asset) = assets.get(&handle.0) else {
        return;
    };
    let file = std::path::Path::new("assets").join("tactics.ron");
    if let Some(nav) = &nav
        && let Err(error) = check_rules(&asset.text, &asset.rules, nav.classes())
    {
        let message = AssetFileError::in_file(&file, error).to_string();
        warn!("{message} (keeping the last good rules)");
        errors.0.insert(file.display().to_string(), message);
        *mistaken = true;
        return;
    }
    // A level change alone leaves a broken edit's error (the file still fails to load).
    if loaded || *mistaken {
        errors.0.retain(|file, _| !file.ends_with("tactics.ron"));
    }
    *mistaken = false;
    if current.as_deref() != Some(&asset.rules) {
        commands.insert_resource(asset.rules.clone());
    }
}
