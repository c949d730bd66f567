//! The command line: play the game (the default), or run a headless command.

mod duel;
mod path;
mod simulate;
mod tactics;

use std::path::{Path as FsPath, PathBuf};
use std::process::ExitCode;

use bevy::asset::io::AssetSourceId;
use bevy::asset::io::file::FileAssetReader;
use bevy::prelude::*;
use bevy_tilewalk::tactics::{Mind, Player};
use clap::{Parser, Subcommand};
use tilewalk_path::Pos;

use crate::assets::{AssetFileError, MapFile, read_file};
use crate::map::MapAsset;
use crate::terrain::TerrainTable;

#[derive(Parser, Debug)]
#[command(
    name = "tilewalk",
    version,
    about = "Tile-based unit movement for RPG and tactics games"
)]
pub struct Cli {
    #[command(subcommand)]
    command: Option<Command>,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Play a map in a window (the default, on assets/maps/meadow.map).
    Play(PlayArgs),
    /// Find a path on a map and print it (headless).
    Path(path::PathArgs),
    /// Run orders on a map headlessly and print where each unit ends up.
    Simulate(simulate::SimulateArgs),
    /// Run a scripted tactics session and print ranges, moves and enemy turns (headless).
    Tactics(tactics::TacticsArgs),
    /// Generate a map from a seed (same seed, same file).
    Gen(GenArgs),
    /// Two tactics AIs play whole games on a map, headless: one JSON line a game, then a
    /// summary.
    Duel(duel::DuelArgs),
}

#[derive(clap::Args, Debug, Default)]
struct PlayArgs {
    /// The map to play: a tilewalk `.map`, a Moving AI `.map`, a Tiled `.tmx` or `.tmj`, or
    /// an LDtk project `.ldtk`.
    #[arg(long)]
    map: Option<PathBuf>,
    /// The LDtk project's level to play, by its identifier (default: the first).
    #[arg(long)]
    level: Option<String>,
    /// Append every arrival and refused order to this file as JSON lines (`-` for stdout),
    /// with where the map is on screen and each screenshot taken.
    #[arg(long)]
    events: Option<PathBuf>,
    /// Where F12 saves a screenshot (default: screenshots/tilewalk-N.png).
    #[arg(long)]
    screenshot: Option<PathBuf>,
    /// Real-time play, turn-based tactics (rules in assets/tactics.ron), or the search lab.
    #[arg(long, value_enum, default_value_t = ModeArg::Realtime)]
    mode: ModeArg,
    /// Who plays blue in tactics mode: `person` (the default), or an AI (`planner`,
    /// `greedy`) that plays blue's turns itself.
    #[arg(long, value_parser = blue_arg)]
    blue: Option<BluePlayer>,
    /// Who plays red in tactics mode: an AI, `planner` or `greedy` (default: the rules file's
    /// `ai`, `planner` unless it says otherwise), or `person` (with a person playing blue
    /// too, two persons take turns at one screen).
    #[arg(long, value_parser = red_arg)]
    red: Option<Player>,
    /// The lab's start marker (X,Y), instead of a tile near the west edge.
    #[arg(long, value_parser = path::pos_arg, allow_hyphen_values = true)]
    from: Option<Pos>,
    /// The lab's goal marker (X,Y), instead of a tile near the east edge.
    #[arg(long, value_parser = path::pos_arg, allow_hyphen_values = true)]
    to: Option<Pos>,
}

/// Who plays blue: a person (`None`) or an AI.
#[derive(Clone, Copy, Debug)]
struct BluePlayer(Option<Mind>);

fn blue_arg(name: &str) -> Result<BluePlayer, String> {
    match name {
        "person" => Ok(BluePlayer(None)),
        _ => Mind::parse(name)
            .map(|mind| BluePlayer(Some(mind)))
            .ok_or_else(|| {
                format!(
                    "`{name}` cannot play blue (the players: person, {})",
                    minds()
                )
            }),
    }
}

/// Who plays red: a person or an AI.
fn red_arg(name: &str) -> Result<Player, String> {
    match name {
        "person" => Ok(Player::Person),
        _ => Mind::parse(name).map(Player::Ai).ok_or_else(|| {
            format!(
                "`{name}` cannot play red (the players: person, {})",
                minds()
            )
        }),
    }
}

/// The AIs' names, for a message.
fn minds() -> String {
    let names: Vec<&str> = Mind::ALL.iter().map(|m| m.name()).collect();
    names.join(", ")
}

#[derive(clap::ValueEnum, Clone, Copy, Debug, Default)]
enum ModeArg {
    #[default]
    Realtime,
    Tactics,
    Lab,
}

#[derive(clap::Args, Debug)]
struct GenArgs {
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// The width (default 128; for a skirmish, room for its armies).
    #[arg(long)]
    width: Option<u32>,
    /// The height (default 128; for a skirmish, room for its armies).
    #[arg(long)]
    height: Option<u32>,
    /// Units a side, in a formation near the west (blue) and east (red) edges (at most
    /// 50,000, 200 in a skirmish; fewer where the open ground runs out). Default: 3, 8 in a
    /// skirmish.
    #[arg(long, value_parser = clap::value_parser!(u32).range(0..=i64::from(crate::map::generate::MAX_UNITS_A_SIDE)))]
    units: Option<u32>,
    /// A fair tactics skirmish: the terrain is the same turned a half-turn about the centre,
    /// and red's units mirror blue's, class for class.
    #[arg(long)]
    skirmish: bool,
    /// The skirmish's board: square-8, square-4, hex-odd-r, hex-even-r, hex-odd-q or
    /// hex-even-q.
    #[arg(long, requires = "skirmish", default_value = "square-4")]
    board: tilewalk_path::Board,
    /// Where to write the map (stdout when absent).
    #[arg(long)]
    out: Option<PathBuf>,
}

/// Exit status for bad input (unreadable or malformed files, bad arguments).
pub const EXIT_BAD_INPUT: u8 = 2;

/// Why a command stopped before its end.
#[derive(Debug)]
pub(crate) enum Failure {
    /// Bad input (files, arguments): printed as `error: …`, exit status 2.
    BadInput(String),
    /// Whoever reads the output went away (`| head`): stop quietly.
    Closed,
}

impl From<String> for Failure {
    fn from(message: String) -> Self {
        Self::BadInput(message)
    }
}

impl From<AssetFileError> for Failure {
    fn from(error: AssetFileError) -> Self {
        Self::BadInput(error.to_string())
    }
}

/// Prints one line of a command's output; a closed pipe ends the command quietly.
pub(crate) fn say(line: impl std::fmt::Display) -> Result<(), Failure> {
    use std::io::Write;
    writeln!(std::io::stdout().lock(), "{line}").map_err(|e| match e.kind() {
        std::io::ErrorKind::BrokenPipe => Failure::Closed,
        _ => Failure::BadInput(format!("cannot write the output: {e}")),
    })
}

/// Runs a parsed command line.
pub fn run(cli: Cli) -> ExitCode {
    let result = match cli.command.unwrap_or(Command::Play(PlayArgs::default())) {
        Command::Play(args) => play(args),
        Command::Path(args) => path::run(&args),
        Command::Simulate(args) => simulate::run(&args),
        Command::Tactics(args) => tactics::run(&args),
        Command::Gen(args) => generate(&args),
        Command::Duel(args) => duel::run(&args),
    };
    match result {
        Ok(code) => code,
        Err(Failure::Closed) => ExitCode::SUCCESS,
        Err(Failure::BadInput(message)) => {
            eprintln!("error: {message}");
            ExitCode::from(EXIT_BAD_INPUT)
        }
    }
}

/// Where `assets/` is: beside the package when run through cargo (or `BEVY_ASSET_ROOT`),
/// else beside the executable, else in the current folder.
pub fn asset_root() -> PathBuf {
    let beside = FileAssetReader::get_base_path().join("assets");
    if beside.is_dir() {
        beside
    } else {
        std::path::absolute("assets").unwrap_or_else(|_| PathBuf::from("assets"))
    }
}

/// A settings file of `assets/` (the terrain table, the tactics rules) and the text of it
/// built into the binary, for the headless commands run outside a checkout.
pub(crate) struct Settings {
    /// Its name in `assets/`.
    pub name: &'static str,
    pub built_in: &'static str,
}

/// The shipped terrain table.
const TERRAIN: Settings = Settings {
    name: "terrain.ron",
    built_in: include_str!("../../assets/terrain.ron"),
};

impl Settings {
    /// The file to read and its text: `file` when given; else `assets/NAME` when it exists;
    /// else the built-in copy, which is said on stderr (as `(built-in NAME)`, which names it
    /// in error messages too).
    pub(crate) fn read(&self, file: Option<&FsPath>) -> Result<(PathBuf, String), String> {
        let file = match file {
            Some(file) => file.to_path_buf(),
            None => {
                let default = asset_root().join(self.name);
                if !default.exists() {
                    eprintln!(
                        "note: {} not found: using the built-in {}",
                        default.display(),
                        self.name
                    );
                    let built_in = PathBuf::from(format!("(built-in {})", self.name));
                    return Ok((built_in, self.built_in.to_owned()));
                }
                default
            }
        };
        let text = read_file(&file).map_err(|e| e.to_string())?;
        Ok((file, text))
    }
}

/// Reads and parses the terrain table (`assets/terrain.ron`, or the built-in one where there
/// is none, unless another file is given).
pub(crate) fn read_terrain(file: Option<&FsPath>) -> Result<TerrainTable, String> {
    let (file, text) = TERRAIN.read(file)?;
    TerrainTable::parse(&text).map_err(|e| AssetFileError::in_file(&file, e).to_string())
}

/// A headless app playing `file`'s map; units placed on impassable terrain are warned about
/// on stderr, at their line.
pub(crate) fn headless_map_app(
    file: &FsPath,
    map: &MapAsset,
    table: &TerrainTable,
) -> Result<App, Failure> {
    let app = crate::headless_app(map, table).map_err(|e| AssetFileError::in_file(file, e))?;
    let level = app.world().resource::<crate::level::Level>();
    let nav = app.world().resource::<bevy_tilewalk::Navigation>();
    for warning in crate::level::warnings(map, level, nav) {
        eprintln!("warning: {}", AssetFileError::in_file(file, warning));
    }
    Ok(app)
}

/// Reads and parses a tilewalk, Moving AI, Tiled (`.tmx`, `.tmj`) or LDtk (`.ldtk`) map;
/// `level` names an LDtk project's level (else its first), and nothing else. Paths and
/// costs need no pixel: a Tiled or LDtk map whose images are missing is read, and each
/// missing image is warned about on stderr where the map names it.
pub(crate) fn read_map(file: &FsPath, level: Option<&str>) -> Result<MapAsset, String> {
    let map = parse_map(file, level)?;
    for missing in missing_images(file, &map) {
        eprintln!("warning: {missing} (read without it: paths and costs need no pixel)");
    }
    Ok(map)
}

/// [`read_map`], without looking for the images.
fn parse_map(file: &FsPath, level: Option<&str>) -> Result<MapAsset, String> {
    let extension = |e: &str| file.extension().is_some_and(|x| x.eq_ignore_ascii_case(e));
    if level.is_some() && !extension("ldtk") {
        return Err(format!(
            "--level names a level of an LDtk project (.ldtk); {} is not one",
            file.display()
        ));
    }
    let map = if extension("ldtk") {
        crate::map::ldtk::read_ldtk(file, level)
    } else if extension("tmx") || extension("tmj") {
        crate::map::tmx::read_tmx(file)
    } else {
        return MapAsset::parse(&read_file(file).map_err(|e| e.to_string())?)
            .map_err(|e| AssetFileError::in_file(file, e).to_string());
    };
    map.map_err(|e| e.to_string())
}

/// The images `file`'s map draws that are not on disk, each where the map names it.
fn missing_images(file: &FsPath, map: &MapAsset) -> Vec<AssetFileError> {
    let folder = file.parent().unwrap_or(FsPath::new(""));
    crate::map::sources::missing_images(file, map, |image| folder.join(image).is_file())
}

/// Whether a map file is a Tiled or LDtk map, which name other files (by its extension,
/// as the asset server picks loaders).
pub(crate) fn is_tmx(file: &FsPath) -> bool {
    file.extension().is_some_and(|e| {
        ["tmx", "tmj", "ldtk"]
            .iter()
            .any(|x| e.eq_ignore_ascii_case(x))
    })
}

fn play(args: PlayArgs) -> Result<ExitCode, Failure> {
    if !matches!(args.mode, ModeArg::Tactics) && (args.blue.is_some() || args.red.is_some()) {
        return Err("--blue and --red choose the players of --mode tactics"
            .to_owned()
            .into());
    }
    // The window draws with the textures of `assets/`, and reads its terrain table and
    // tactics rules there (hot-reloaded); without that folder, the copies built into the
    // binary serve instead.
    let assets = asset_root();
    let on_disk = assets.join("textures").is_dir();
    if !on_disk {
        let beside = FileAssetReader::get_base_path().join("assets");
        eprintln!(
            "note: no assets/ folder at {} or {}: playing with the assets built into the \
             binary (a folder there takes their place, and hot-reloads)",
            beside.display(),
            assets.display()
        );
    }
    let table = read_terrain(None)?;
    // Check the files before opening a window: a broken map at start is an error here;
    // a broken edit while playing is reported in the game and the last good map stays.
    let map = match args.map {
        Some(map) => Some(map),
        None if on_disk => Some(assets.join(crate::shipped::DEFAULT_MAP)),
        None => None,
    };
    let map = match map {
        Some(map) => {
            let map = map
                .canonicalize()
                .map_err(|e| format!("{}: {e}", map.display()))?;
            // The window draws a missing image's tiles as a checker (the map panel names it).
            let parsed = parse_map(&map, args.level.as_deref())?;
            for missing in missing_images(&map, &parsed) {
                eprintln!("warning: {missing} (its tiles are drawn as a checker)");
            }
            let level = crate::level::Level::build(&parsed, &table);
            level.map_err(|e| AssetFileError::in_file(&map, e).to_string())?;
            map
        }
        None => PathBuf::from(format!("(built-in {})", crate::shipped::DEFAULT_MAP)),
    };
    let rules = tactics::read_rules(None, &table.classes)?;
    let mut app = App::new();
    if on_disk {
        crate::map::register_map_source(&mut app, &map);
    } else {
        app.register_asset_source(AssetSourceId::Default, crate::shipped::source());
        if map.is_file() {
            crate::map::register_map_source(&mut app, &map);
        } else {
            // The built-in meadow, from the built-in maps folder.
            app.register_asset_source(crate::assets::MAP_SOURCE, crate::shipped::source());
            app.insert_resource(crate::assets::MapSource {
                root: PathBuf::from("(built-in)"),
                map: PathBuf::from(crate::shipped::DEFAULT_MAP),
            });
        }
    }
    app.add_plugins(
        DefaultPlugins
            .set(WindowPlugin {
                primary_window: Some(Window {
                    title: format!(
                        "tilewalk: {}",
                        map.file_name().unwrap_or_default().to_string_lossy()
                    ),
                    ..default()
                }),
                ..default()
            })
            .set(ImagePlugin::default_nearest())
            .set(AssetPlugin {
                file_path: asset_root().display().to_string(),
                ..default()
            })
            .set(bevy::log::LogPlugin {
                fmt_layer: crate::assets::terminal_log,
                ..default()
            }),
    )
    .insert_resource(MapFile(map))
    .insert_resource(crate::assets::MapLevel(args.level))
    .insert_resource(crate::view::ScreenshotPath(args.screenshot))
    .insert_resource(rules)
    .add_plugins(crate::game_plugin)
    .insert_resource(crate::tactics::Players {
        blue: args.blue.and_then(|b| b.0),
        red: args.red.unwrap_or(Player::RulesAi),
    });
    app.insert_resource(crate::view::LabEnds {
        start: args.from,
        goal: args.to,
    });
    let mode = match args.mode {
        ModeArg::Realtime => crate::tactics::Mode::RealTime,
        ModeArg::Tactics => crate::tactics::Mode::Tactics,
        ModeArg::Lab => crate::tactics::Mode::Lab,
    };
    if mode != crate::tactics::Mode::RealTime {
        app.world_mut()
            .resource_mut::<NextState<crate::tactics::Mode>>()
            .set(mode);
    }
    if let Some(events) = args.events {
        let sink: Box<dyn std::io::Write + Send + Sync> = if events.as_os_str() == "-" {
            Box::new(std::io::BufWriter::new(std::io::stdout()))
        } else {
            Box::new(std::io::BufWriter::new(
                std::fs::File::create(&events).map_err(|e| format!("{}: {e}", events.display()))?,
            ))
        };
        app.insert_resource(crate::journal::EventLog(sink));
    }
    Ok(match app.run() {
        AppExit::Success => ExitCode::SUCCESS,
        AppExit::Error(code) => ExitCode::from(code.get()),
    })
}

fn generate(args: &GenArgs) -> Result<ExitCode, Failure> {
    use crate::map::generate;
    let units = args.units.unwrap_or(match args.skirmish {
        true => 8,
        false => generate::DEFAULT_UNITS,
    });
    if args.skirmish && units > generate::MAX_SKIRMISH_UNITS {
        return Err(format!(
            "--units must be at most {} in a skirmish, got {units}",
            generate::MAX_SKIRMISH_UNITS
        )
        .into());
    }
    let (fit_width, fit_height) = match args.skirmish {
        true => generate::skirmish_size(units),
        false => (128, 128),
    };
    let (width, height) = (
        args.width.unwrap_or(fit_width),
        args.height.unwrap_or(fit_height),
    );
    let sizes = generate::SIZES;
    if !sizes.contains(&width) || !sizes.contains(&height) {
        return Err(format!(
            "--width and --height must be within {}..={}, got {width}x{height}",
            sizes.start(),
            sizes.end(),
        )
        .into());
    }
    let text = match args.skirmish {
        true => generate::skirmish(args.seed, args.board, width, height, units),
        false => generate::generate(args.seed, width, height, units),
    };
    let (open, [blue, red]) = generated_summary(&text)?;
    let seed = args.seed;
    if open == 0 {
        return Err(format!(
            "seed {seed} gives a {width}x{height} map with no open ground (no tile a unit can \
             walk on): nothing written; try another seed or a larger map"
        )
        .into());
    }
    let summary = format!(
        "{width}x{height} map from seed {seed}: {open} of {} tiles open ground, {blue} blue \
         and {red} red units",
        u64::from(width) * u64::from(height)
    );
    match &args.out {
        Some(out) => {
            std::fs::write(out, text).map_err(|e| format!("{}: {e}", out.display()))?;
            say(format!("wrote {}: {summary}", out.display()))?;
        }
        None => {
            say(text.trim_end())?;
            eprintln!("note: wrote a {summary}");
        }
    }
    if blue == 0 || red == 0 {
        eprintln!(
            "warning: the map has {blue} blue and {red} red units ({units} a side asked for): \
             nothing can be ordered on a side without any; add some in its [units] section, \
             or generate a larger map"
        );
    }
    Ok(ExitCode::SUCCESS)
}

/// A generated map's tiles open to the first class of the shipped terrain table, and its
/// units a side (blue, red).
fn generated_summary(text: &str) -> Result<(u64, [usize; 2]), String> {
    let table = TerrainTable::parse(TERRAIN.built_in).map_err(|e| e.to_string())?;
    let map = MapAsset::parse(text).map_err(|e| e.to_string())?;
    let (level, _) = crate::level::Level::build(&map, &table).map_err(|e| e.to_string())?;
    let walker = bevy_tilewalk::MovementClass(0);
    let open = level
        .cells()
        .filter(|&p| level.terrain(p).and_then(|t| t.cost(walker)).is_some())
        .count() as u64;
    let side = |team| map.units.iter().filter(|u| u.team == team).count();
    Ok((
        open,
        [
            side(bevy_tilewalk::Team::BLUE),
            side(bevy_tilewalk::Team::RED),
        ],
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The players of `play`: a person or an AI for each side; none given: a person plays
    /// blue and the rules file's AI red.
    #[test]
    fn play_takes_the_players_of_each_side() {
        let players = |args: &[&str]| {
            let cli = Cli::try_parse_from(["tilewalk", "play"].iter().chain(args)).unwrap();
            match cli.command {
                Some(Command::Play(play)) => (play.blue.and_then(|b| b.0), play.red),
                other => panic!("{other:?}"),
            }
        };
        assert_eq!(players(&[]), (None, None));
        assert_eq!(
            players(&["--blue", "greedy", "--red", "planner"]),
            (Some(Mind::Greedy), Some(Player::Ai(Mind::Planner)))
        );
        assert_eq!(
            players(&["--blue", "person", "--red", "greedy"]),
            (None, Some(Player::Ai(Mind::Greedy)))
        );
        assert_eq!(
            players(&["--red", "person", "--blue", "person"]),
            (None, Some(Player::Person))
        );
        assert_eq!(players(&["--blue", "planner"]), (Some(Mind::Planner), None));
    }
}
