//! The search lab (`play --mode lab`, or `L` on any map): a search between two markers on
//! the map's terrain, recorded as a trace by the core and replayed event by event.
//!
//! Drag the start (S) or the goal (G); paint terrain with the left button, erase with the
//! right ([`super::paint`]); pick the movement class, algorithm, heuristic, diagonal rule and
//! weight in the panel or with keys; play, pause, step and scrub the replay. With compare on,
//! a second configuration runs on the same map: both paths are drawn and the panel's table
//! says what each cost, how much each searched, and whether its path is the cheapest (against
//! Dijkstra). Everything here reads the core's [`Trace`] and [`Replay`]: the lab shows what
//! the search did, not a re-enactment of it.

mod draw;
mod panel;

use std::time::{Duration, Instant};

use bevy::prelude::*;
use bevy::window::RequestRedraw;
use bevy_tilewalk::{MovementClass, Navigation, Unit};
use tilewalk_path::{
    Algorithm, Board, Diagonal, Found, Heuristic, NoPath, Pos, Replay, SearchContext,
    SearchOptions, Trace,
};

use super::paint::Painter;
use super::{Cursor, Notice};
use crate::AppSystems;
use crate::level::Level;
use crate::tactics::Mode;

/// Where the lab puts its markers when it opens (`play --from X,Y --to X,Y`); by default
/// near the west and east edges of the map, on passable ground.
#[derive(Resource, Clone, Copy, Debug, Default)]
pub struct LabEnds {
    pub start: Option<Pos>,
    pub goal: Option<Pos>,
}

/// The searches the lab offers, in the order `G` cycles through them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum LabAlgorithm {
    Bfs,
    Dfs,
    Dijkstra,
    BestFirst,
    AStar,
    WeightedAStar,
    Bidirectional,
    BidirectionalDijkstra,
    JumpPoint,
}

impl LabAlgorithm {
    const ALL: [Self; 9] = [
        Self::Bfs,
        Self::Dfs,
        Self::Dijkstra,
        Self::BestFirst,
        Self::AStar,
        Self::WeightedAStar,
        Self::Bidirectional,
        Self::BidirectionalDijkstra,
        Self::JumpPoint,
    ];

    fn name(self) -> &'static str {
        match self {
            Self::Bfs => "BFS",
            Self::Dfs => "DFS",
            Self::Dijkstra => "Dijkstra",
            Self::BestFirst => "greedy best-first",
            Self::AStar => "A*",
            Self::WeightedAStar => "weighted A*",
            Self::Bidirectional => "bidirectional A*",
            Self::BidirectionalDijkstra => "bidirectional Dijkstra",
            Self::JumpPoint => "jump point search",
        }
    }

    fn core(self) -> Algorithm {
        match self {
            Self::Bfs => Algorithm::Bfs,
            Self::Dfs => Algorithm::Dfs,
            Self::Dijkstra => Algorithm::Dijkstra,
            Self::BestFirst => Algorithm::BestFirst,
            Self::AStar | Self::WeightedAStar => Algorithm::AStar,
            Self::Bidirectional => Algorithm::Bidirectional,
            Self::BidirectionalDijkstra => Algorithm::BidirectionalDijkstra,
            Self::JumpPoint => Algorithm::JumpPoint,
        }
    }

    /// Whether the heuristic means anything to it.
    fn guided(self) -> bool {
        !matches!(
            self,
            Self::Bfs | Self::Dfs | Self::Dijkstra | Self::BidirectionalDijkstra
        )
    }
}

/// The heuristics `H` cycles through: `None` is the board's tightest admissible one.
const HEURISTICS: [Option<Heuristic>; 6] = [
    None,
    Some(Heuristic::Manhattan),
    Some(Heuristic::Euclidean),
    Some(Heuristic::Chebyshev),
    Some(Heuristic::Octile),
    Some(Heuristic::Zero),
];

/// The diagonal rules `B` cycles through on a square map (a hex map keeps its layout).
const DIAGONALS: [Diagonal; 4] = [
    Diagonal::NoObstacles,
    Diagonal::AtMostOneObstacle,
    Diagonal::Always,
    Diagonal::Never,
];

fn next<T: PartialEq + Copy>(all: &[T], now: T) -> T {
    let i = all.iter().position(|&x| x == now).unwrap_or(0);
    all[(i + 1) % all.len()]
}

/// One configuration of the search.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) struct Config {
    pub algorithm: LabAlgorithm,
    pub heuristic: Option<Heuristic>,
    /// The diagonal rule on a square map.
    pub diagonal: Diagonal,
    /// Weighted A*'s weight (the others run with 1).
    pub weight: f64,
}

impl Config {
    const fn new(heuristic: Option<Heuristic>) -> Self {
        Self {
            algorithm: LabAlgorithm::AStar,
            heuristic,
            diagonal: Diagonal::NoObstacles,
            weight: 2.0,
        }
    }

    /// The board it searches: the map's hex layout, or its square grid under this
    /// configuration's diagonal rule.
    fn board(&self, map: Board) -> Board {
        match map {
            Board::Square(_) => Board::Square(self.diagonal),
            hex @ Board::Hex(_) => hex,
        }
    }

    fn options(&self, map: Board) -> SearchOptions {
        SearchOptions {
            algorithm: self.algorithm.core(),
            board: self.board(map),
            heuristic: self.heuristic,
            weight: if self.algorithm == LabAlgorithm::WeightedAStar {
                self.weight
            } else {
                1.0
            },
            record_expansions: false,
        }
    }

    fn heuristic_name(&self, map: Board) -> String {
        let name = |h: Heuristic| match h {
            Heuristic::Manhattan => "Manhattan",
            Heuristic::Octile => "octile",
            Heuristic::Euclidean => "Euclidean",
            Heuristic::Chebyshev => "Chebyshev",
            Heuristic::Hex => "hex distance",
            Heuristic::Zero => "zero",
        };
        match self.heuristic {
            Some(h) => name(h).to_owned(),
            None => format!(
                "{} (tightest)",
                name(Heuristic::tightest_for(self.board(map)))
            ),
        }
    }

    /// A short name for the compare table: the algorithm, and what sets it apart.
    fn label(&self, map: Board) -> String {
        let algorithm = match self.algorithm {
            LabAlgorithm::BestFirst => "greedy".to_owned(),
            LabAlgorithm::WeightedAStar => format!("A* w{}", self.weight),
            LabAlgorithm::Bidirectional => "bidir. A*".to_owned(),
            LabAlgorithm::BidirectionalDijkstra => "bidir. Dijkstra".to_owned(),
            LabAlgorithm::JumpPoint => "JPS".to_owned(),
            other => other.name().to_owned(),
        };
        if !self.algorithm.guided() {
            return algorithm;
        }
        let heuristic = self.heuristic_name(map);
        format!("{algorithm}, {}", heuristic.trim_end_matches(" (tightest)"))
    }
}

/// One configuration's search of the current map: its trace, its result, and how long the
/// same search takes untraced.
pub(super) struct Run {
    pub config: Config,
    pub trace: Trace,
    pub result: Result<Found, NoPath>,
    pub time: Duration,
    /// The cheapest path's cost on this configuration's board, by Dijkstra: what
    /// "optimal" is checked against.
    pub optimum: Option<f64>,
}

impl Run {
    /// Whether the path found is a cheapest one (`None` when there is no path).
    pub fn optimal(&self) -> Option<bool> {
        let cost = self.result.as_ref().ok()?.path.cost;
        Some(cost <= self.optimum? * (1.0 + 1e-9))
    }
}

/// What the lab shows: the markers, the configurations, their runs and the replay.
#[derive(Resource)]
pub(super) struct Lab {
    pub start: Pos,
    pub goal: Pos,
    pub class: MovementClass,
    pub configs: [Config; 2],
    /// Which configuration the keys change and the replay shows.
    pub active: usize,
    pub compare: bool,
    /// The runs of the active configuration and, comparing, of the other one.
    pub runs: Vec<Run>,
    pub replay: Replay,
    /// Events shown (fractional while playing).
    pub position: f64,
    pub playing: bool,
    /// Events a second; `None` plays any search in about six seconds.
    pub speed: Option<f64>,
    stale: bool,
}

impl Lab {
    fn new(level: &Level, nav: &Navigation, ends: LabEnds) -> Self {
        let class = MovementClass::default();
        let grid = nav.grid(class);
        let near = |want: Pos| {
            level
                .cells()
                .filter(|&p| grid.is_passable(p))
                .min_by_key(|p| (p.x.abs_diff(want.x) + p.y.abs_diff(want.y), p.y, p.x))
                .unwrap_or(want)
        };
        let (w, h) = (level.width, level.height);
        let inside = |p: Option<Pos>| p.filter(|&p| level.contains(p));
        Self {
            start: inside(ends.start).unwrap_or_else(|| near(Pos::new(w / 6, h / 2))),
            goal: inside(ends.goal).unwrap_or_else(|| near(Pos::new(w - 1 - w / 6, h / 2))),
            class,
            // Compare starts with the classic lesson: Manhattan overestimates with diagonals.
            configs: [Config::new(None), Config::new(Some(Heuristic::Manhattan))],
            active: 0,
            compare: false,
            runs: Vec::new(),
            replay: Replay::new(level.width, level.height),
            position: 0.0,
            playing: false,
            speed: None,
            stale: true,
        }
    }

    pub fn config(&self) -> &Config {
        &self.configs[self.active]
    }

    fn config_mut(&mut self) -> &mut Config {
        self.stale = true;
        &mut self.configs[self.active]
    }

    /// The active run, whose trace the replay shows.
    pub fn run(&self) -> Option<&Run> {
        self.runs.first()
    }

    pub fn events(&self) -> usize {
        self.run().map_or(0, |r| r.trace.events().len())
    }

    pub fn speed(&self) -> f64 {
        self.speed
            .unwrap_or_else(|| (self.events() as f64 / 6.0).max(10.0))
    }

    /// Runs the configurations on the level and shows the active one: at its first event
    /// on the lab's first search, at its end on every search after.
    fn search(&mut self, nav: &Navigation, context: &mut SearchContext) {
        let first = self.runs.is_empty();
        let grid = nav.grid(self.class);
        let order = if self.compare {
            vec![self.active, 1 - self.active]
        } else {
            vec![self.active]
        };
        self.runs = order
            .into_iter()
            .map(|i| {
                let config = self.configs[i];
                let options = config.options(nav.board());
                let mut trace = Trace::new();
                let result =
                    context.search_traced(grid, self.start, self.goal, &options, &mut trace);
                let dijkstra = SearchOptions {
                    algorithm: Algorithm::Dijkstra,
                    ..options
                };
                Run {
                    config,
                    trace,
                    result,
                    time: time_search(context, grid, self.start, self.goal, &options),
                    optimum: context
                        .search(grid, self.start, self.goal, &dijkstra)
                        .ok()
                        .map(|f| f.path.cost),
                }
            })
            .collect();
        if self.replay.size() == (nav.width(), nav.height()) {
            self.replay.reset();
        } else {
            self.replay = Replay::new(nav.width(), nav.height());
        }
        // The lab's first search waits at its first event for Space to play it; a search
        // again (a marker moved, another algorithm) shows where it ends at once.
        self.position = if first { 0.0 } else { self.events() as f64 };
        self.playing = false;
        self.seek();
        self.stale = false;
    }

    fn seek(&mut self) {
        if let Some(run) = self.runs.first() {
            self.replay.seek(&run.trace, self.position as usize);
        }
    }
}

/// The time of the search untraced: the median of a few runs, enough to take 2 ms.
fn time_search(
    context: &mut SearchContext,
    grid: &tilewalk_path::Grid,
    start: Pos,
    goal: Pos,
    options: &SearchOptions,
) -> Duration {
    let mut times = Vec::new();
    let began = Instant::now();
    while times.len() < 3 || (began.elapsed() < Duration::from_millis(2) && times.len() < 101) {
        let at = Instant::now();
        let _ = context.search(grid, start, goal, options);
        times.push(at.elapsed());
    }
    times.sort();
    times[times.len() / 2]
}

/// What the keys and the panel's buttons ask of the lab.
#[derive(Message, Clone, Copy, Debug, PartialEq)]
pub(super) enum LabAction {
    Class,
    Algorithm,
    Heuristic,
    Board,
    /// Multiplies weighted A*'s weight (by 1.25 up, 0.8 down).
    Weight(f64),
    PlayPause,
    /// Steps one event forward (1) or back (-1), pausing.
    Step(i64),
    /// To the beginning (`false`) or the end (`true`).
    Jump(bool),
    /// Doubles (`true`) or halves the speed.
    Faster(bool),
    /// Scrubs to a fraction of the search.
    Seek(f32),
    Compare,
    /// Switches which configuration the keys change and the replay shows.
    Switch,
}

/// The lab's state is up to date for this frame: drawing comes after.
#[derive(SystemSet, Debug, Clone, PartialEq, Eq, Hash)]
pub(super) struct Replayed;

/// The mode to go back to when the lab closes.
#[derive(Resource, Default)]
struct ModeBeforeLab(Mode);

pub(super) fn plugin(app: &mut App) {
    app.init_resource::<LabEnds>()
        .init_resource::<ModeBeforeLab>()
        .add_message::<LabAction>()
        .add_systems(
            Update,
            toggle_lab
                .in_set(AppSystems::RecordInput)
                .run_if(resource_exists::<Level>),
        )
        .add_systems(OnExit(Mode::Lab), (close_lab, show_units))
        .add_systems(
            Update,
            // The level may load after the lab opens (`play --mode lab`).
            open_lab.in_set(AppSystems::Load).run_if(
                in_state(Mode::Lab)
                    .and_then(resource_exists::<Level>)
                    .and_then(not(resource_exists::<Lab>)),
            ),
        )
        .add_systems(
            Update,
            (hide_units, lab_keys, drag_markers)
                .in_set(AppSystems::RecordInput)
                .before(super::paint::paint_strokes)
                .run_if(in_state(Mode::Lab).and_then(resource_exists::<Lab>)),
        )
        .add_systems(
            Update,
            (
                act,
                search,
                play,
                report.run_if(resource_exists::<crate::journal::EventLog>),
            )
                .chain()
                .in_set(AppSystems::Present)
                .in_set(Replayed)
                .run_if(in_state(Mode::Lab).and_then(resource_exists::<Lab>)),
        )
        .add_plugins((draw::plugin, panel::plugin));
}

/// `L` opens the lab on any map and closes it again.
fn toggle_lab(
    keys: Res<ButtonInput<KeyCode>>,
    mode: Res<State<Mode>>,
    mut next: ResMut<NextState<Mode>>,
    mut before: ResMut<ModeBeforeLab>,
) {
    if !keys.just_pressed(KeyCode::KeyL) {
        return;
    }
    if *mode.get() == Mode::Lab {
        next.set(before.0);
    } else {
        before.0 = *mode.get();
        next.set(Mode::Lab);
    }
}

fn open_lab(mut commands: Commands, level: Res<Level>, nav: Res<Navigation>, ends: Res<LabEnds>) {
    commands.insert_resource(Lab::new(&level, &nav, *ends));
}

fn close_lab(mut painter: ResMut<Painter>) {
    painter.on = false;
}

/// Units are hidden in the lab (its searches look at terrain only), those spawned after it
/// opened too, and shown again when it closes.
fn hide_units(mut units: Query<&mut Visibility, With<Unit>>) {
    for mut unit in &mut units {
        unit.set_if_neq(Visibility::Hidden);
    }
}

fn show_units(mut units: Query<&mut Visibility, With<Unit>>) {
    for mut unit in &mut units {
        *unit = Visibility::Inherited;
    }
}

fn lab_keys(keys: Res<ButtonInput<KeyCode>>, mut actions: MessageWriter<LabAction>) {
    let ctrl = crate::view::ctrl(&keys);
    let bindings = [
        (KeyCode::KeyC, LabAction::Class),
        (KeyCode::KeyG, LabAction::Algorithm),
        (KeyCode::KeyH, LabAction::Heuristic),
        (KeyCode::KeyB, LabAction::Board),
        (KeyCode::Equal, LabAction::Weight(1.25)),
        (KeyCode::Minus, LabAction::Weight(0.8)),
        (KeyCode::Space, LabAction::PlayPause),
        (KeyCode::Period, LabAction::Step(1)),
        (KeyCode::Comma, LabAction::Step(-1)),
        (KeyCode::BracketRight, LabAction::Faster(true)),
        (KeyCode::BracketLeft, LabAction::Faster(false)),
        (KeyCode::PageUp, LabAction::Jump(false)),
        (KeyCode::PageDown, LabAction::Jump(true)),
        (KeyCode::KeyV, LabAction::Compare),
        (KeyCode::Tab, LabAction::Switch),
    ];
    for (key, action) in bindings {
        if keys.just_pressed(key) && !ctrl {
            actions.write(action);
        }
    }
}

/// A press on the start or goal marker drags it (the painter leaves that press alone): the
/// press is placed where it happened, even when the pointer moved on within the frame.
fn drag_markers(
    buttons: Res<ButtonInput<MouseButton>>,
    cursor: Res<Cursor>,
    mut lab: ResMut<Lab>,
    mut painter: ResMut<Painter>,
    mut dragging: Local<Option<bool>>,
) {
    if let Some(pressed) = cursor.pressed(MouseButton::Left).filter(|at| !at.over_ui) {
        *dragging = match pressed.tile {
            Some(tile) if tile == lab.start => Some(true),
            Some(tile) if tile == lab.goal => Some(false),
            _ => None,
        };
        painter.held = dragging.is_some();
    }
    let Some(tile) = cursor.tile else { return };
    match *dragging {
        Some(true) if tile != lab.start && tile != lab.goal => {
            lab.start = tile;
            lab.stale = true;
        }
        Some(false) if tile != lab.goal && tile != lab.start => {
            lab.goal = tile;
            lab.stale = true;
        }
        _ => {}
    }
    if !buttons.pressed(MouseButton::Left) {
        *dragging = None;
    }
}

fn act(mut actions: MessageReader<LabAction>, mut lab: ResMut<Lab>, level: Res<Level>) {
    for &action in actions.read() {
        let end = lab.events() as f64;
        match action {
            LabAction::Class => {
                let classes: Vec<MovementClass> = level.table.all_classes().collect();
                lab.class = next(&classes, lab.class);
                lab.stale = true;
            }
            LabAction::Algorithm => {
                let config = lab.config_mut();
                config.algorithm = next(&LabAlgorithm::ALL, config.algorithm);
                if config.algorithm == LabAlgorithm::JumpPoint
                    && matches!(level.board, Board::Hex(_))
                {
                    // Jump points are a square-grid idea: on a hex map, go round to BFS.
                    config.algorithm = LabAlgorithm::Bfs;
                }
            }
            LabAction::Heuristic => {
                let config = lab.config_mut();
                config.heuristic = next(&HEURISTICS, config.heuristic);
            }
            LabAction::Board => {
                if matches!(level.board, Board::Square(_)) {
                    let config = lab.config_mut();
                    config.diagonal = next(&DIAGONALS, config.diagonal);
                }
            }
            LabAction::Weight(factor) => {
                let config = lab.config_mut();
                config.weight = ((config.weight * factor * 100.0).round() / 100.0).clamp(1.0, 20.0);
            }
            LabAction::PlayPause => {
                if lab.position >= end {
                    lab.position = 0.0;
                }
                lab.playing = !lab.playing;
            }
            LabAction::Step(by) => {
                lab.playing = false;
                lab.position = (lab.position.floor() + by as f64).clamp(0.0, end);
            }
            LabAction::Jump(to_end) => {
                lab.playing = false;
                lab.position = if to_end { end } else { 0.0 };
            }
            LabAction::Faster(faster) => {
                let speed = lab.speed();
                lab.speed = Some(if faster { speed * 2.0 } else { speed / 2.0 }.clamp(0.5, 1e6));
            }
            LabAction::Seek(fraction) => {
                lab.playing = false;
                lab.position = (f64::from(fraction.clamp(0.0, 1.0)) * end).round();
            }
            LabAction::Compare => {
                lab.compare = !lab.compare;
                lab.stale = true;
            }
            LabAction::Switch if lab.compare => {
                lab.active = 1 - lab.active;
                lab.stale = true;
            }
            LabAction::Switch => {}
        }
        lab.seek();
    }
}

/// Searches again when the map, the markers or a configuration changed.
fn search(
    mut lab: ResMut<Lab>,
    level: Res<Level>,
    nav: Res<Navigation>,
    mut context: Local<SearchContext>,
    mut notice: ResMut<Notice>,
) {
    if !(lab.stale || level.is_changed()) {
        return;
    }
    if !level.contains(lab.start) || !level.contains(lab.goal) {
        // The map shrank under the markers: start over.
        *lab = Lab::new(&level, &nav, LabEnds::default());
    }
    lab.search(&nav, &mut context);
    if let Some(Err(why)) = lab.run().map(|r| &r.result) {
        notice.say(format!("no path: {why}"));
    }
}

/// Plays the replay at its speed (asking for frames: the game otherwise draws only on input).
fn play(mut lab: ResMut<Lab>, time: Res<Time>, mut redraw: MessageWriter<RequestRedraw>) {
    if !lab.playing {
        return;
    }
    redraw.write(RequestRedraw);
    let end = lab.events() as f64;
    lab.position = (lab.position + lab.speed() * time.delta_secs_f64()).min(end);
    if lab.position >= end {
        lab.playing = false;
    }
    lab.seek();
}

/// With `--events`, what the lab shows whenever it changes: the markers, the search and
/// how far its replay is (the end-to-end test waits on these).
fn report(
    lab: Res<Lab>,
    level: Res<Level>,
    mut log: ResMut<crate::journal::EventLog>,
    mut last: Local<Option<serde_json::Value>>,
) -> Result {
    let found = lab.run().and_then(|r| r.result.as_ref().ok());
    let (expanded, pushed) = lab.replay.counts();
    let event = serde_json::json!({
        "event": "lab",
        "start": [lab.start.x, lab.start.y],
        "goal": [lab.goal.x, lab.goal.y],
        "class": level.class_name(lab.class),
        "search": lab.config().label(level.board),
        "step": lab.replay.step(),
        "events": lab.events(),
        "expanded": expanded,
        "pushed": pushed,
        "cost": found.map(|f| f.path.cost),
        "runs": lab.runs.len(),
    });
    if last.as_ref() != Some(&event) {
        log.write(&event)?;
        *last = Some(event);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use std::f64::consts::SQRT_2;

    use super::*;
    use crate::map::MapAsset;
    use crate::terrain::TerrainTable;

    /// The lab on `assets/maps/corner.map` from its top-left to its bottom-right corner,
    /// comparing, before its first search.
    fn corner_lab() -> (Level, Navigation, Lab) {
        let table = TerrainTable::parse(include_str!("../../../assets/terrain.ron")).unwrap();
        let map = MapAsset::parse(include_str!("../../../assets/maps/corner.map")).unwrap();
        let (level, nav) = Level::build(&map, &table).unwrap();
        let ends = LabEnds {
            start: Some(Pos::new(0, 0)),
            goal: Some(Pos::new(4, 4)),
        };
        let mut lab = Lab::new(&level, &nav, ends);
        lab.compare = true;
        (level, nav, lab)
    }

    #[test]
    fn compare_shows_manhattans_costlier_path_on_the_corner_map() {
        let (level, nav, mut lab) = corner_lab();
        let mut context = SearchContext::new();
        lab.search(&nav, &mut context);
        // The first search waits at its beginning.
        assert_eq!((lab.replay.step(), lab.playing), (0, false));
        lab.search(&nav, &mut context);
        let cost = |run: &Run| run.result.as_ref().unwrap().path.cost;
        let [octile, manhattan] = &lab.runs[..] else {
            panic!("two runs when comparing");
        };
        assert!((cost(octile) - (4.0 + 2.0 * SQRT_2)).abs() < 1e-9);
        assert!((cost(manhattan) - (6.0 + SQRT_2)).abs() < 1e-9);
        assert_eq!(
            (octile.optimal(), manhattan.optimal()),
            (Some(true), Some(false))
        );
        assert_eq!(manhattan.config.label(level.board), "A*, Manhattan");
        // Searched again, the replay shows the active run at its end: the goal expanded last.
        assert_eq!(lab.replay.step(), lab.events());
        assert_eq!(
            lab.replay.current(),
            Some((tilewalk_path::Direction::Forward, lab.goal))
        );
    }

    #[test]
    fn each_run_is_checked_against_the_optimum_of_its_own_board() {
        let (level, nav, mut lab) = corner_lab();
        // The second search moves 4-way: its 8 steps are the cheapest there are on its board.
        lab.configs[1] = Config {
            diagonal: Diagonal::Never,
            ..Config::new(None)
        };
        lab.search(&nav, &mut SearchContext::new());
        let four_way = &lab.runs[1];
        assert_eq!(four_way.result.as_ref().unwrap().path.cost, 8.0);
        assert_eq!(four_way.optimal(), Some(true));
        assert_eq!(four_way.config.label(level.board), "A*, Manhattan");
        // Weighted A* carries its weight; the others search with 1.
        let weighted = Config {
            algorithm: LabAlgorithm::WeightedAStar,
            ..Config::new(None)
        };
        assert_eq!(weighted.options(level.board).weight, 2.0);
        assert_eq!(lab.configs[0].options(level.board).weight, 1.0);
    }
}
