//! `tilewalk path`: one search on a map file, printed as a drawing or as JSON.

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Instant;

use clap::ValueEnum;
use tilewalk_path::formats::{is_movingai_map, parse_movingai_map, parse_plain_grid};
use tilewalk_path::{Algorithm, Board, Diagonal, Grid, NoPath, Pos, SearchContext, SearchOptions};

use super::{Failure, say};
use crate::assets::{AssetFileError, read_file};
use crate::level::Level;
use crate::map::{MapAsset, parse_pos};

#[derive(clap::Args, Debug)]
pub struct PathArgs {
    /// A Moving AI `.map`, a plain grid (`O` open, `X` wall, `S` start, `E` end), a tilewalk
    /// map, a Tiled `.tmx` or `.tmj` map or an LDtk project `.ldtk`.
    #[arg(long)]
    map: PathBuf,
    /// The LDtk project's level, by its identifier (default: the first).
    #[arg(long)]
    level: Option<String>,
    /// Start tile as X,Y (X = column, Y = row, 0,0 top-left); defaults to the map's `S`, or
    /// on a map with units to its first blue unit's tile.
    #[arg(long, value_parser = pos_arg, allow_hyphen_values = true)]
    from: Option<Pos>,
    /// Goal tile as X,Y; defaults to the map's `E`, or on a map with units to its first red
    /// unit's tile.
    #[arg(long, value_parser = pos_arg, allow_hyphen_values = true)]
    to: Option<Pos>,
    /// The board's shape, instead of the map's own (`square-8` for Moving AI maps and plain
    /// grids): square-8, square-4, hex-odd-r, hex-even-r, hex-odd-q or hex-even-q.
    #[arg(long, value_parser = board_arg)]
    board: Option<Board>,
    /// Only orthogonal steps: the same as `--board square-4`.
    #[arg(long, conflicts_with_all = ["board", "diagonal"])]
    four_way: bool,
    /// When a diagonal step is allowed on a square board (default: no-obstacles).
    #[arg(long, value_enum)]
    diagonal: Option<DiagonalArg>,
    #[arg(long, value_enum, default_value_t = AlgorithmArg::Astar)]
    algorithm: AlgorithmArg,
    /// Print one JSON object instead of a drawing.
    #[arg(long)]
    json: bool,
    /// When the goal is impassable or cannot be reached from the start, search to the tile a
    /// real-time order stops on instead: of the reachable tiles at most 1.5 further from the
    /// goal than the nearest one, the cheapest to walk to.
    #[arg(long)]
    nearest: bool,
    /// The movement class whose costs apply on a tilewalk, Tiled or LDtk map, by its name in
    /// the terrain table (default: the class of the first blue unit when the path starts
    /// from it, else foot).
    #[arg(long)]
    class: Option<String>,
    /// The terrain table for a tilewalk map (default: assets/terrain.ron, or the built-in table
    /// where it is not).
    #[arg(long)]
    terrain: Option<PathBuf>,
}

#[derive(Clone, Copy, Debug, ValueEnum)]
enum DiagonalArg {
    Never,
    NoObstacles,
    OneObstacle,
    Always,
}

#[derive(Clone, Copy, Debug, ValueEnum)]
enum AlgorithmArg {
    Astar,
    Dijkstra,
    Bfs,
    BestFirst,
    Dfs,
    /// A* with jump point pruning (uniform costs, `no-obstacles`; otherwise plain A*).
    Jps,
    /// Bidirectional A*: searches from both ends, stops when no cheaper meeting can exist.
    Bidirectional,
    /// Bidirectional Dijkstra (bidirectional with no heuristic).
    BidirectionalDijkstra,
}

pub(super) fn pos_arg(text: &str) -> Result<Pos, String> {
    parse_pos(text).ok_or_else(|| format!("expected X,Y (two whole numbers from 0), got `{text}`"))
}

fn board_arg(text: &str) -> Result<Board, String> {
    text.parse()
        .map_err(|e: tilewalk_path::UnknownBoard| e.to_string())
}

/// A map in any of the three formats, reduced to what a search and a drawing need.
struct Loaded {
    grid: Grid,
    /// The map's own board (`square-8` but for tilewalk maps that name another).
    board: Board,
    glyphs: Vec<char>,
    /// The ends the map marks (`S` and `E`, or its first blue and red units).
    start: Option<Marked>,
    goal: Option<Marked>,
    /// What marks the start and the goal on this kind of map, for the message when none does.
    marks: [&'static str; 2],
}

/// A tile the map marks as an end of the path, and what it is, for the note that says so.
struct Marked {
    pos: Pos,
    what: String,
}

/// The first unit of `team` on `map`, as a path's end.
fn first_unit(map: &MapAsset, team: bevy_tilewalk::Team, side: &str) -> Option<Marked> {
    let unit = map.units.iter().find(|u| u.team == team)?;
    Some(Marked {
        pos: unit.pos,
        what: format!("the first {side} unit, {} ({})", unit.name, unit.class),
    })
}

/// The ends a plain grid marks with `S` and `E`.
fn marked(pos: Option<Pos>, glyph: char) -> Option<Marked> {
    pos.map(|pos| Marked {
        pos,
        what: format!("the map's {glyph}"),
    })
}

fn load(args: &PathArgs) -> Result<Loaded, String> {
    let in_file = |e| AssetFileError::in_file(&args.map, e).to_string();
    // Tilewalk and Tiled maps have a terrain table; the other formats are plain grids.
    let text = match super::is_tmx(&args.map) || args.level.is_some() {
        true => None,
        false => Some(read_file(&args.map).map_err(|e| e.to_string())?),
    };
    let map = match &text {
        None => Some(super::read_map(&args.map, args.level.as_deref())?),
        Some(text) if text.lines().any(|l| l.trim() == "[terrain]") => {
            Some(MapAsset::parse(text).map_err(in_file)?)
        }
        Some(_) => None,
    };
    if let Some(map) = map {
        let table = super::read_terrain(args.terrain.as_deref())?;
        let start = first_unit(&map, bevy_tilewalk::Team::BLUE, "blue");
        let goal = first_unit(&map, bevy_tilewalk::Team::RED, "red");
        // The blue unit's own class when the path starts from it.
        let from_unit = args
            .from
            .is_none()
            .then(|| {
                map.units
                    .iter()
                    .find(|u| u.team == bevy_tilewalk::Team::BLUE)
            })
            .flatten();
        let name = match (&args.class, from_unit) {
            (Some(class), _) => class.as_str(),
            (None, Some(unit)) => unit.class.as_str(),
            (None, None) => "foot",
        };
        let class = table.class(name).ok_or_else(|| {
            format!(
                "--class: unknown movement class `{name}` (the terrain table has {})",
                table.class_list()
            )
        })?;
        let (level, nav) = Level::build(&map, &table).map_err(in_file)?;
        for warning in crate::level::warnings(&map, &level, &nav) {
            eprintln!("warning: {}", AssetFileError::in_file(&args.map, warning));
        }
        // A Tiled cell is drawn with its terrain's first glyph (`?` for a tile without one,
        // or a staggered map's cell that is not on the map).
        let glyphs = (0..level.height)
            .flat_map(|y| (0..level.width).map(move |x| Pos::new(x, y)))
            .map(|p| {
                map.glyph(p)
                    .or_else(|| level.terrain(p).and_then(|t| t.glyphs.chars().next()))
                    .unwrap_or('?')
            })
            .collect();
        let board = level.board;
        return Ok(Loaded {
            grid: nav.into_grid(class),
            board,
            glyphs,
            start,
            goal,
            marks: ["blue unit", "red unit"],
        });
    }
    let text = text.unwrap_or_default();
    if is_movingai_map(&text) {
        let map = parse_movingai_map(&text).map_err(in_file)?;
        let grid = map.grid();
        let glyphs = grid.cells().map(|p| map.glyph(p)).collect();
        Ok(Loaded {
            grid,
            board: Board::default(),
            glyphs,
            start: None,
            goal: None,
            marks: ["`S`", "`E`"],
        })
    } else {
        let plain = parse_plain_grid(&text).map_err(in_file)?;
        let glyphs = text
            .lines()
            .filter(|l| !l.trim().is_empty())
            .flat_map(|l| l.trim_end_matches('\r').chars())
            .collect();
        Ok(Loaded {
            grid: plain.grid,
            board: Board::default(),
            glyphs,
            start: marked(plain.start, 'S'),
            goal: marked(plain.goal, 'E'),
            marks: ["`S`", "`E`"],
        })
    }
}

/// The board to search: the map's, or `--board` / `--four-way`, with `--diagonal`'s rule on
/// a square board.
fn board(args: &PathArgs, map: Board) -> Result<Board, String> {
    let board = match (args.four_way, args.board) {
        (true, _) => Board::Square(Diagonal::Never),
        (false, Some(board)) => board,
        (false, None) => map,
    };
    match (board, args.diagonal) {
        (_, None) => Ok(board),
        (Board::Square(_), Some(rule)) => Ok(Board::Square(match rule {
            DiagonalArg::Never => Diagonal::Never,
            DiagonalArg::NoObstacles => Diagonal::NoObstacles,
            DiagonalArg::OneObstacle => Diagonal::AtMostOneObstacle,
            DiagonalArg::Always => Diagonal::Always,
        })),
        (Board::Hex(_), Some(_)) => Err(format!(
            "--diagonal is for square boards; this search is on {board}"
        )),
    }
}

pub fn run(args: &PathArgs) -> Result<ExitCode, Failure> {
    let map = load(args)?;
    let (width, height) = (map.grid.width(), map.grid.height());
    let endpoint = |given: Option<Pos>, marked: &Option<Marked>, flag: &str, what: &str| {
        let pos = given
            .or(marked.as_ref().map(|m| m.pos))
            .ok_or_else(|| format!("give --{flag} X,Y (the map has no {what})"))?;
        if map.grid.contains(pos) {
            Ok(pos)
        } else {
            Err(format!(
                "--{flag} {},{} is outside the {width}x{height} map",
                pos.x, pos.y
            ))
        }
    };
    let start = endpoint(args.from, &map.start, "from", map.marks[0])?;
    let ordered = endpoint(args.to, &map.goal, "to", map.marks[1])?;
    // Say which ends the map gave (on stderr: the output stays the path).
    let said: Vec<String> = [(args.from, &map.start, "from"), (args.to, &map.goal, "to")]
        .into_iter()
        .filter_map(|(given, marked, word)| match (given, marked) {
            (None, Some(m)) => Some(format!("{word} {}, {}", m.what, m.pos)),
            _ => None,
        })
        .collect();
    if !said.is_empty() {
        eprintln!(
            "note: {} (--from X,Y and --to X,Y choose others)",
            said.join(", ")
        );
    }
    let options = SearchOptions {
        algorithm: match args.algorithm {
            AlgorithmArg::Astar => Algorithm::AStar,
            AlgorithmArg::Dijkstra => Algorithm::Dijkstra,
            AlgorithmArg::Bfs => Algorithm::Bfs,
            AlgorithmArg::BestFirst => Algorithm::BestFirst,
            AlgorithmArg::Dfs => Algorithm::Dfs,
            AlgorithmArg::Jps => Algorithm::JumpPoint,
            AlgorithmArg::Bidirectional => Algorithm::Bidirectional,
            AlgorithmArg::BidirectionalDijkstra => Algorithm::BidirectionalDijkstra,
        },
        board: board(args, map.board)?,
        ..SearchOptions::default()
    };
    // With --nearest, a goal out of reach gives way to the reachable tile nearest it.
    let grid = &map.grid;
    let goal = match args.nearest && !grid.connected(start, ordered, options.board) {
        true if grid.is_passable(start) => grid
            .stop_near(ordered, start, options.board, |p| {
                grid.connected(start, p, options.board)
            })
            .unwrap_or(ordered),
        _ => ordered,
    };
    let short = (goal != ordered).then_some(ordered);
    let mut context = SearchContext::new();
    let started = Instant::now();
    let found = context.search(&map.grid, start, goal, &options);
    let micros = started.elapsed().as_secs_f64() * 1e6;
    let expanded = context.stats().expanded;
    match found {
        Ok(found) => {
            if args.json {
                let steps: Vec<[u32; 2]> = found.path.cells.iter().map(|p| [p.x, p.y]).collect();
                let mut json = serde_json::json!({"found": true, "cost": found.path.cost, "steps": steps, "expanded": expanded, "micros": micros});
                if let Some(ordered) = short {
                    json["short_of_goal"] = true.into();
                    json["goal"] = serde_json::json!([ordered.x, ordered.y]);
                }
                say(json)?;
            } else {
                let mut glyphs = map.glyphs;
                for (i, p) in found.path.cells.iter().enumerate() {
                    glyphs[(p.y * width + p.x) as usize] = match i {
                        0 => 'S',
                        _ if i + 1 == found.path.cells.len() => 'E',
                        _ => '*',
                    };
                }
                for row in glyphs.chunks(width as usize) {
                    say(row.iter().collect::<String>())?;
                }
                if let Some(ordered) = short {
                    say(format!(
                        "{ordered} cannot be reached: the nearest tile that can is {goal}"
                    ))?;
                }
                say(format!(
                    "cost {:.3}  steps {}  expanded {expanded}  time {micros:.0} µs",
                    found.path.cost,
                    found.path.cells.len() - 1
                ))?;
            }
            Ok(ExitCode::SUCCESS)
        }
        Err(reason @ NoPath::NeedsSquareBoard { .. }) => Err(reason.to_string().into()),
        Err(reason) => {
            if args.json {
                say(
                    serde_json::json!({"found": false, "reason": reason.to_string(), "expanded": expanded, "micros": micros}),
                )?;
            } else {
                say(format!("no path: {reason}"))?;
                let out_of_reach =
                    matches!(reason, NoPath::GoalBlocked(_) | NoPath::DifferentRegions);
                if out_of_reach && !args.nearest && grid.is_passable(start) {
                    say("(--nearest goes to the reachable tile nearest the goal instead)")?;
                }
            }
            Ok(ExitCode::from(1))
        }
    }
}
