//! The shipped maps' command outputs, byte for byte: `simulate`, `path` and `tactics` on every
//! map in `assets/`, compared with `tests/golden/`. A change to the simulation's code that is not meant to change what it
//! does (a refactor, a faster search, less memory) must leave them all as they are.
//!
//! Wall-clock fields (`micros`, `plan_ms`, `tick_ms_*`) are the only ones that vary from run
//! to run; they are written as 0. After a change that is meant to change behaviour,
//! `TILEWALK_BLESS=1 cargo test --test game golden` rewrites the files: the diff of
//! `tests/golden/` is then the change in behaviour, for review.

use std::path::Path;
use std::process::Command;

use serde_json::Value;

/// Each case: its file in `tests/golden/`, and the command's arguments (run in the package's
/// folder, so the paths are the same everywhere).
const CASES: &[(&str, &[&str])] = &[
    (
        "meadow_simulate",
        &[
            "simulate",
            "--map",
            "assets/maps/meadow.map",
            "--group",
            "all:16,9",
            "--json",
            "--stats",
            "--seconds",
            "60",
        ],
    ),
    (
        // A rider sent into the river, and a group of three sent there: riders stop on the
        // nearest bank (`short_of_goal`), the soldier wades in, the wyvern flies there.
        "meadow_short_simulate",
        &[
            "simulate",
            "--map",
            "assets/maps/meadow.map",
            "--order",
            "lancer:19,4",
            "--group",
            "brute,raider,wyvern:20,2",
            "--json",
            "--seconds",
            "60",
        ],
    ),
    (
        "meadow_path",
        &[
            "path",
            "--map",
            "assets/maps/meadow.map",
            "--from",
            "0,0",
            "--to",
            "31,17",
            "--json",
        ],
    ),
    (
        "maze_simulate",
        &[
            "simulate",
            "--map",
            "assets/maps/maze.map",
            "--group",
            "blue:15,9",
            "--group",
            "red:1,1",
            "--json",
            "--seconds",
            "60",
        ],
    ),
    (
        "maze_path",
        &[
            "path",
            "--map",
            "assets/maps/maze.map",
            "--from",
            "1,1",
            "--to",
            "29,17",
            "--json",
        ],
    ),
    (
        "large_simulate",
        &[
            "simulate",
            "--map",
            "assets/maps/large.map",
            "--group",
            "all:80,64",
            "--json",
            "--seconds",
            "120",
        ],
    ),
    (
        "large_path_horse",
        &[
            "path",
            "--map",
            "assets/maps/large.map",
            "--from",
            "2,2",
            "--to",
            "150,120",
            "--class",
            "horse",
            "--json",
        ],
    ),
    (
        "corner_path",
        &[
            "path",
            "--map",
            "assets/maps/corner.map",
            "--from",
            "0,0",
            "--to",
            "4,4",
            "--json",
        ],
    ),
    (
        "hex_valley_simulate",
        &[
            "simulate",
            "--map",
            "assets/maps/hex_valley.map",
            "--group",
            "all:16,8",
            "--json",
            "--seconds",
            "60",
        ],
    ),
    (
        "hex_valley_path",
        &[
            "path",
            "--map",
            "assets/maps/hex_valley.map",
            "--from",
            "0,0",
            "--to",
            "31,15",
            "--json",
        ],
    ),
    (
        "skirmish_tactics",
        &[
            "tactics",
            "--map",
            "assets/maps/skirmish.map",
            "--range",
            "knight",
            "--attack",
            "lancer",
            "--move",
            "knight:5,5",
            "--end-turn",
            "--threat",
            "red",
            "--threat",
            "blue",
        ],
    ),
    (
        "skirmish_simulate",
        &[
            "simulate",
            "--map",
            "assets/maps/skirmish.map",
            "--group",
            "blue:20,7",
            "--json",
            "--seconds",
            "60",
        ],
    ),
    (
        "hex_skirmish_tactics",
        &[
            "tactics",
            "--map",
            "assets/maps/hex_skirmish.map",
            "--end-turn",
            "--threat",
            "red",
        ],
    ),
    (
        "tiled_square_simulate",
        &[
            "simulate",
            "--map",
            "assets/tiled/square.tmx",
            "--group",
            "all:8,5",
            "--json",
            "--seconds",
            "60",
        ],
    ),
    (
        "tiled_hex_path",
        &[
            "path",
            "--map",
            "assets/tiled/hex.tmx",
            "--from",
            "0,0",
            "--to",
            "11,7",
            "--json",
        ],
    ),
    (
        "tiled_hex_simulate",
        &[
            "simulate",
            "--map",
            "assets/tiled/hex.tmx",
            "--group",
            "all:6,4",
            "--json",
            "--seconds",
            "60",
        ],
    ),
];

/// The fields that hold wall-clock times.
const TIMINGS: [&str; 4] = ["micros", "plan_ms", "tick_ms_p50", "tick_ms_p99"];

/// What a command printed, with its exit code first and its timings written as 0.
fn run(args: &[&str]) -> String {
    let out = Command::new(env!("CARGO_BIN_EXE_tilewalk"))
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("the binary runs");
    let mut text = format!("exit {:?}\n", out.status.code());
    for line in String::from_utf8_lossy(&out.stdout).lines() {
        match serde_json::from_str::<Value>(line) {
            Ok(Value::Object(mut object)) => {
                for field in TIMINGS {
                    if let Some(value) = object.get_mut(field)
                        && !value.is_null()
                    {
                        *value = Value::from(0);
                    }
                }
                text.push_str(&Value::Object(object).to_string());
            }
            _ => text.push_str(line),
        }
        text.push('\n');
    }
    for line in String::from_utf8_lossy(&out.stderr).lines() {
        text.push_str("stderr: ");
        text.push_str(line);
        text.push('\n');
    }
    text
}

#[test]
fn shipped_maps_give_the_outputs_in_tests_golden() {
    let folder = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/golden");
    let bless = std::env::var_os("TILEWALK_BLESS").is_some();
    let mut changed = Vec::new();
    for (name, args) in CASES {
        let file = folder.join(format!("{name}.txt"));
        let now = run(args);
        if bless {
            std::fs::create_dir_all(&folder).unwrap();
            std::fs::write(&file, &now).unwrap();
            continue;
        }
        let kept = std::fs::read_to_string(&file)
            .unwrap_or_else(|e| panic!("{}: {e} (TILEWALK_BLESS=1 writes it)", file.display()));
        if kept != now {
            changed.push(format!("{name}: tilewalk {}\n{now}", args.join(" ")));
        }
    }
    assert!(
        changed.is_empty(),
        "outputs differ from tests/golden/ (TILEWALK_BLESS=1 rewrites them):\n{}",
        changed.join("\n")
    );
}
