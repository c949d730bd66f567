//! The command line as a user runs it: `tilewalk path`, `simulate` and `gen`.

use std::path::PathBuf;
use std::process::{Command, Output, Stdio};

const SQRT_2: f64 = std::f64::consts::SQRT_2;

const MAP_A: &str = "\
OOOOOOOO
OOOOXOOO
OOSOXOEO
OOOOXOOO
OOOOOOOO
OOOOOOOO
";

const MAP_B: &str = "\
OXXXXOOO
OXOOXOOO
OOSOXOEX
OOOOXXXO
OOOXOXOO
OOOOOOOO
";

fn tilewalk(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_tilewalk"))
        .args(args)
        .output()
        .expect("the binary runs")
}

/// Writes `text` to a file of the test's own.
fn file(name: &str, text: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("tilewalk-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(name);
    std::fs::write(&path, text).unwrap();
    path
}

fn json(output: &Output) -> serde_json::Value {
    serde_json::from_slice(&output.stdout)
        .unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&output.stdout)))
}

/// The JSON lines a command printed, after checking it succeeded.
fn json_lines(output: &Output) -> Vec<serde_json::Value> {
    assert_eq!(
        output.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8_lossy(&output.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

fn path_json(map: &std::path::Path, extra: &[&str]) -> (Option<i32>, serde_json::Value) {
    let mut args = vec!["path", "--map", map.to_str().unwrap(), "--json"];
    args.extend_from_slice(extra);
    let output = tilewalk(&args);
    (output.status.code(), json(&output))
}

#[test]
fn path_answers_the_seed_cases() {
    let a = file("a.txt", MAP_A);
    let (code, always) = path_json(&a, &["--diagonal", "always"]);
    assert_eq!(code, Some(0));
    assert!(
        (always["cost"].as_f64().unwrap() - 4.0 * SQRT_2).abs() < 1e-9,
        "{always}"
    );
    assert_eq!(
        always["steps"],
        serde_json::json!([[2, 2], [3, 1], [4, 0], [5, 1], [6, 2]])
    );
    let (_, no_obstacles) = path_json(&a, &["--diagonal", "no-obstacles"]);
    assert!((no_obstacles["cost"].as_f64().unwrap() - (4.0 + 2.0 * SQRT_2)).abs() < 1e-9);
    let (_, four) = path_json(&a, &["--four-way"]);
    assert_eq!(four["cost"].as_f64(), Some(8.0));
    for algorithm in ["bidirectional", "bidirectional-dijkstra"] {
        let (code, both_ways) = path_json(
            &a,
            &["--diagonal", "no-obstacles", "--algorithm", algorithm],
        );
        assert_eq!(code, Some(0), "{algorithm}");
        assert!(
            (both_ways["cost"].as_f64().unwrap() - (4.0 + 2.0 * SQRT_2)).abs() < 1e-9,
            "{algorithm}: {both_ways}"
        );
        let (_, four) = path_json(&a, &["--four-way", "--algorithm", algorithm]);
        assert_eq!(four["cost"].as_f64(), Some(8.0), "{algorithm}");
    }

    let b = file("b.txt", MAP_B);
    let (code, always) = path_json(&b, &["--diagonal", "always"]);
    assert_eq!(code, Some(0));
    assert!(
        (always["cost"].as_f64().unwrap() - 6.0 * SQRT_2).abs() < 1e-9,
        "{always}"
    );
    for mode in [
        ["--diagonal", "never"],
        ["--diagonal", "no-obstacles"],
        ["--diagonal", "one-obstacle"],
    ] {
        let (code, none) = path_json(&b, &mode);
        assert_eq!(code, Some(1), "{mode:?}");
        assert_eq!(none["found"], false);
        assert_eq!(none["reason"], "start and goal are in different regions");
        assert_eq!(none["expanded"], 0, "answered from the component labels");
    }
}

#[test]
fn path_draws_the_path() {
    let a = file("a-text.txt", MAP_A);
    let output = tilewalk(&["path", "--map", a.to_str().unwrap(), "--diagonal", "always"]);
    let text = String::from_utf8(output.stdout).unwrap();
    let drawing: Vec<&str> = text.lines().take(3).collect();
    assert_eq!(drawing, ["OOOO*OOO", "OOO*X*OO", "OOSOXOEO"], "{text}");
    assert!(text.contains("cost 5.657  steps 4"), "{text}");
}

#[test]
fn path_reads_movingai_and_tilewalk_maps() {
    let movingai = file(
        "tiny.map",
        "type octile\nheight 3\nwidth 4\nmap\n....\n.@@.\n....\n",
    );
    let (code, found) = path_json(&movingai, &["--from", "0,1", "--to", "3,1"]);
    assert_eq!(code, Some(0));
    // No corner cutting past the `@`s: around the top, 5 straight steps.
    assert_eq!(found["cost"].as_f64(), Some(5.0), "{found}");

    let meadow = concat!(env!("CARGO_MANIFEST_DIR"), "/assets/maps/meadow.map");
    let output = tilewalk(&[
        "path", "--map", meadow, "--from", "2,5", "--to", "28,5", "--class", "horse", "--json",
    ]);
    let horse = json(&output);
    let crossing = horse["steps"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s[0] == 19)
        .expect("it crosses the river");
    assert_eq!(
        crossing[1], 10,
        "horses cannot swim: they take the ford: {horse}"
    );
}

#[test]
fn path_rejects_bad_input_with_file_line_col() {
    let cases = [
        (
            "ragged.txt",
            "OOO\nOO\n",
            vec![],
            ":2:3: row has 2 cells, the map's width is 3",
        ),
        ("glyph.txt", "OOO\nOqO\n", vec![], ":2:2: unknown glyph `q`"),
        ("empty.txt", "", vec![], ":1:1: the map is empty"),
        (
            "header.map",
            "type octile\nwidth 3\nmap\n...\n",
            vec![],
            ":3:1: the header has no `height` line",
        ),
        (
            "outside.txt",
            "SOO\nOOE\n",
            vec!["--to", "9,9"],
            "--to 9,9 is outside the 3x2 map",
        ),
        (
            "nostart.txt",
            "OOO\nOOE\n",
            vec![],
            "give --from X,Y (the map has no `S`)",
        ),
    ];
    for (name, text, extra, expected) in cases {
        let map = file(name, text);
        let mut args = vec!["path", "--map", map.to_str().unwrap()];
        args.extend(extra);
        let output = tilewalk(&args);
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(2), "{name}: {stderr}");
        assert!(stderr.contains(expected), "{name}: {stderr}");
        if expected.starts_with(':') {
            assert!(
                stderr.contains(&format!("{}{expected}", map.display())),
                "{name}: {stderr}"
            );
        }
    }
    let wall = file("wall.txt", "SOX\nOOE\n");
    let (code, none) = path_json(&wall, &["--to", "2,0"]);
    assert_eq!(code, Some(1));
    assert_eq!(none["reason"], "goal (2,0) is impassable");
}

#[test]
fn simulate_is_deterministic_and_reports_each_unit() {
    let meadow = concat!(env!("CARGO_MANIFEST_DIR"), "/assets/maps/meadow.map");
    let args = [
        "simulate",
        "--map",
        meadow,
        "--order",
        "knight:28,5",
        "--order",
        "lancer:20,10",
        "--order",
        "lancer:26,10",
        "--json",
    ];
    let first = tilewalk(&args);
    let lines = json_lines(&first);
    assert_eq!(
        first.stdout,
        tilewalk(&args).stdout,
        "same command, same output"
    );
    let knight = lines.iter().find(|l| l["unit"] == "knight").unwrap();
    assert_eq!(knight["tile"], serde_json::json!([28, 5]));
    assert_eq!(knight["arrived"], true);
    let lancer = lines.iter().find(|l| l["unit"] == "lancer").unwrap();
    assert_eq!(
        lancer["tile"],
        serde_json::json!([26, 10]),
        "through the first waypoint to the second"
    );
    let brute = lines.iter().find(|l| l["unit"] == "brute").unwrap();
    assert_eq!(brute["arrived"], false);

    for (order, expected) in [
        ("nobody:1,1", "no unit named `nobody`"),
        ("knight:99,1", "outside the 32x18 map"),
    ] {
        let output = tilewalk(&["simulate", "--map", meadow, "--order", order]);
        assert_eq!(output.status.code(), Some(2));
        assert!(String::from_utf8_lossy(&output.stderr).contains(expected));
    }
}

#[test]
fn simulate_says_which_units_were_still_on_their_way() {
    let meadow = concat!(env!("CARGO_MANIFEST_DIR"), "/assets/maps/meadow.map");
    let run = |seconds: &str| {
        let output = tilewalk(&[
            "simulate",
            "--map",
            meadow,
            "--order",
            "knight:28,5",
            "--seconds",
            seconds,
        ]);
        assert_eq!(output.status.code(), Some(0));
        String::from_utf8(output.stdout).unwrap()
    };
    let line = |text: &str, unit: &str| -> String {
        let found = text.lines().find(|l| l.starts_with(unit));
        found.unwrap_or_else(|| panic!("{text}")).to_owned()
    };
    // The knight needs about 10 s for the walk: after 3 s it is on its way, a few tiles out.
    let early = run("3");
    let knight = line(&early, "knight");
    assert!(knight.ends_with("on its way"), "{knight}");
    assert!(!knight.contains("(6,5)"), "it set off: {knight}");
    assert!(line(&early, "brute").ends_with("no order"), "{early}");
    let late = run("30");
    assert!(
        line(&late, "knight").starts_with("knight       (28,5)  arrived after"),
        "{late}"
    );
}

#[test]
fn hostile_input_ends_with_a_message_not_a_panic() {
    // A reader that goes away: the command stops quietly instead of panicking.
    let mut child = Command::new(env!("CARGO_BIN_EXE_tilewalk"))
        .args([
            "path",
            "--map",
            concat!(env!("CARGO_MANIFEST_DIR"), "/assets/maps/large.map"),
        ])
        .args(["--from", "0,0", "--to", "159,127"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    drop(child.stdout.take());
    let closed = child.wait_with_output().unwrap();
    assert_eq!(
        closed.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&closed.stderr)
    );
    assert!(
        closed.stderr.is_empty(),
        "{}",
        String::from_utf8_lossy(&closed.stderr)
    );

    // An endless file is read only up to the size limit.
    let zero = tilewalk(&["path", "--map", "/dev/zero"]);
    assert_eq!(zero.status.code(), Some(2));
    assert!(
        String::from_utf8_lossy(&zero.stderr).contains("/dev/zero: the file is larger than 64 MiB")
    );

    // A negative coordinate is a bad coordinate, not an unknown option.
    let map = file(
        "hostile.map",
        "[terrain]\n...\n.#.\n[units]\nk blue foot 1,1\n",
    );
    let negative = tilewalk(&[
        "path",
        "--map",
        map.to_str().unwrap(),
        "--from",
        "-1,0",
        "--to",
        "2,0",
    ]);
    assert_eq!(negative.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&negative.stderr).contains("expected X,Y"));

    // A unit on terrain its class cannot enter loads, with a warning at its line.
    let stranded = tilewalk(&["simulate", "--map", map.to_str().unwrap()]);
    assert_eq!(stranded.status.code(), Some(0));
    let warning = String::from_utf8_lossy(&stranded.stderr);
    assert!(
        warning.starts_with(&format!("warning: {}:5:13:", map.display())),
        "{warning}"
    );

    // The longest attack range on a small map: the attack tiles are bounded by the map, so
    // this answers at once instead of looping over a million cells per tile.
    let mut field = String::from("[terrain]\n");
    for _ in 0..14 {
        field.push_str(&".".repeat(24));
        field.push('\n');
    }
    field.push_str("[units]\na blue foot 0,0 1-1000\nb red foot 23,13 1-1000\n");
    let field = file("far.map", &field);
    let far = tilewalk(&[
        "tactics",
        "--map",
        field.to_str().unwrap(),
        "--attack",
        "a",
        "--threat",
        "red",
    ]);
    let lines = json_lines(&far);
    assert_eq!(lines.len(), 3, "attack, threat and the winner line");
}

#[test]
fn gen_is_reproducible_and_playable() {
    let one = tilewalk(&["gen", "--seed", "42", "--width", "128", "--height", "128"]);
    assert_eq!(one.status.code(), Some(0));
    assert_eq!(
        one.stdout,
        tilewalk(&["gen", "--seed", "42", "--width", "128", "--height", "128"]).stdout
    );
    let map = file("gen.map", &String::from_utf8(one.stdout).unwrap());
    let output = tilewalk(&[
        "simulate",
        "--map",
        map.to_str().unwrap(),
        "--order",
        "griffin:64,64",
        "--json",
    ]);
    assert_eq!(
        output.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let shipped = std::fs::read(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/assets/maps/large.map"
    ))
    .unwrap();
    let regenerated =
        tilewalk(&["gen", "--seed", "2026", "--width", "160", "--height", "128"]).stdout;
    assert_eq!(
        shipped, regenerated,
        "assets/maps/large.map is `tilewalk gen --seed 2026 --width 160 --height 128`"
    );
}

#[test]
fn tactics_runs_a_scripted_turn_in_order() {
    let skirmish = concat!(env!("CARGO_MANIFEST_DIR"), "/assets/maps/skirmish.map");
    let output = tilewalk(&[
        "tactics",
        "--map",
        skirmish,
        "--range",
        "lancer",
        "--move",
        "lancer:9,6",
        "--end-turn",
        "--threat",
        "red",
    ]);
    let lines = json_lines(&output);
    let actions: Vec<&str> = lines.iter().filter_map(|l| l["action"].as_str()).collect();
    assert_eq!(actions, ["range", "move", "end_turn", "threat"]);
    assert_eq!(
        lines.last().unwrap(),
        &serde_json::json!({"winner": null}),
        "the last line names the winner: nobody yet"
    );
    let range_cost = lines[0]["tiles"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["tile"] == serde_json::json!([9, 6]))
        .unwrap()["cost"]
        .clone();
    assert_eq!(lines[1]["moved"], true);
    assert_eq!(
        lines[1]["cost"], range_cost,
        "the move costs what the range said"
    );
    assert_eq!(lines[2]["turn"], 2);

    // A refused move ends the run with status 1, as every refused action does.
    let refused = tilewalk(&[
        "tactics",
        "--map",
        skirmish,
        "--move",
        "lancer:9,6",
        "--move",
        "lancer:8,6",
        "--end-turn",
    ]);
    assert_eq!(refused.status.code(), Some(1));
    let lines: Vec<serde_json::Value> = String::from_utf8_lossy(&refused.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), 3, "{lines:?}");
    assert_eq!(lines[1]["moved"], false);
    assert_eq!(lines[1]["reason"], "lancer has already moved this turn");
    assert_eq!(lines[2], serde_json::json!({"winner": null}));

    // No action: the map is read, and the note says so and names the units.
    let idle = tilewalk(&["tactics", "--map", skirmish]);
    assert_eq!(idle.status.code(), Some(0));
    let note = String::from_utf8_lossy(&idle.stderr);
    assert!(
        note.contains("no actions given") && note.contains("lancer"),
        "{note}"
    );

    let bad = tilewalk(&["tactics", "--map", skirmish, "--jump", "lancer"]);
    assert_eq!(bad.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&bad.stderr).contains("unknown action `--jump`"));
}

#[test]
fn tactics_strikes_waits_and_cancels_print_their_outcomes_and_the_winner() {
    // The shipped rules: foot 20 hit points, 7 damage; the orc stands in forest (defence 2).
    let duel = file(
        "duel.map",
        "board: square-4\n[terrain]\n......\n....f.\n......\n[units]\nknight blue foot 0,1\nsquire blue foot 0,2\norc red foot 4,1\n",
    );
    let duel = duel.to_str().unwrap();
    // The enemy is the greedy baseline, whose strike is worked out below.
    let greedy = file(
        "greedy.ron",
        &include_str!("../../assets/tactics.ron").replace("ai: planner", "ai: greedy"),
    );
    let output = tilewalk(&[
        "tactics",
        "--map",
        duel,
        "--rules",
        greedy.to_str().unwrap(),
        "--move",
        "squire:2,2",
        "--cancel",
        "squire",
        "--wait",
        "squire",
        "--move",
        "knight:3,1",
        "--strike",
        "knight:orc",
        "--end-turn",
    ]);
    let lines = json_lines(&output);
    let json = |text: &str| serde_json::from_str::<serde_json::Value>(text).unwrap();
    assert_eq!(lines[1], json(r#"{"cancel":"squire","tile":[0,2]}"#));
    assert_eq!(lines[2], json(r#"{"wait":"squire"}"#));
    assert_eq!(
        lines[4],
        json(
            r#"{"strike":"knight","target":"orc","damage":5,"counter":7,"hp":{"knight":13,"orc":15},"removed":[]}"#
        )
    );
    // The enemy turn: the orc stays in the forest by the knight and strikes it again; the
    // knight's counter-attack loses 2 to the forest too.
    assert_eq!(lines[5]["action"], "end_turn");
    assert_eq!(
        lines[6],
        json(
            r#"{"strike":"orc","target":"knight","damage":7,"counter":5,"hp":{"orc":10,"knight":6},"removed":[]}"#
        )
    );
    assert_eq!(lines[7], json(r#"{"winner":null}"#));
    assert_eq!(lines.len(), 8);
    // The exact text: the fields in the issue's order.
    let text = String::from_utf8(output.stdout).unwrap();
    assert!(text.contains(r#"{"strike":"knight","target":"orc","damage":5,"counter":7,"hp":{"knight":13,"orc":15},"removed":[]}"#), "{text}");

    // Out of reach: refused with the reason, exit 1, and the winner line still last.
    let refused = tilewalk(&[
        "tactics",
        "--map",
        duel,
        "--strike",
        "knight:orc",
        "--wait",
        "knight",
    ]);
    assert_eq!(refused.status.code(), Some(1));
    assert_eq!(
        String::from_utf8(refused.stdout).unwrap(),
        "{\"strike\":\"knight\",\"target\":\"orc\",\"refused\":\"orc is out of knight's reach\"}\n{\"winner\":null}\n"
    );

    // The orc removed: blue wins.
    let rules = file(
        "deadly.ron",
        &include_str!("../../assets/tactics.ron").replace(r#""foot": 7"#, r#""foot": 40"#),
    );
    let won = tilewalk(&[
        "tactics",
        "--map",
        duel,
        "--rules",
        rules.to_str().unwrap(),
        "--move",
        "knight:3,1",
        "--strike",
        "knight:orc",
    ]);
    let lines = json_lines(&won);
    assert_eq!(lines[1]["removed"], json(r#"["orc"]"#));
    assert_eq!(lines[1]["counter"], serde_json::Value::Null);
    assert_eq!(lines[2], json(r#"{"winner":"blue"}"#));

    let bad = tilewalk(&["tactics", "--map", duel, "--strike", "knight"]);
    assert_eq!(bad.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&bad.stderr).contains("--strike expects NAME:TARGET"));
}

#[test]
fn simulate_group_orders_and_stats() {
    let meadow = concat!(env!("CARGO_MANIFEST_DIR"), "/assets/maps/meadow.map");
    let output = tilewalk(&[
        "simulate",
        "--map",
        meadow,
        "--group",
        "blue:16,8",
        "--group",
        "red:31,0",
        "--json",
        "--stats",
    ]);
    let lines = json_lines(&output);
    let (stats, units) = lines.split_last().unwrap();
    assert_eq!(units.len(), 7);
    // The blue group ends on four distinct tiles around the click, next to it or on it.
    let blue: Vec<&serde_json::Value> = units
        .iter()
        .filter(|u| {
            ["knight", "archer", "lancer", "griffin"].contains(&u["unit"].as_str().unwrap())
        })
        .collect();
    let tiles: std::collections::HashSet<String> =
        blue.iter().map(|u| u["tile"].to_string()).collect();
    assert_eq!(tiles.len(), 4, "{blue:?}");
    for unit in &blue {
        assert_eq!(unit["arrived"], true, "{unit}");
        let (x, y) = (
            unit["tile"][0].as_i64().unwrap(),
            unit["tile"][1].as_i64().unwrap(),
        );
        assert!((x - 16).abs() <= 1 && (y - 8).abs() <= 1, "{unit}");
    }
    // Rock is impassable: the red group goes as near as it can get, each unit saying why.
    for unit in units.iter().filter(|u| !blue.contains(u)) {
        assert_eq!(unit["arrived"], true, "{unit}");
        assert_eq!(unit["short_of_goal"], true, "{unit}");
        assert_eq!(unit["goal"], serde_json::json!([31, 0]), "{unit}");
        assert!(
            unit["reason"].as_str().unwrap().contains("impassable"),
            "{unit}"
        );
    }
    assert!(blue.iter().all(|u| u.get("short_of_goal").is_none()));
    assert_eq!(stats["units"], 7);
    assert_eq!(stats["arrived"], 7);
    assert_eq!(stats["gave_up"], 0);
    assert!(stats["plan_ms"].as_f64().unwrap() >= 0.0, "{stats}");
    let (p50, p99) = (
        stats["tick_ms_p50"].as_f64().unwrap(),
        stats["tick_ms_p99"].as_f64().unwrap(),
    );
    assert!(0.0 <= p50 && p50 <= p99, "{stats}");
    let ticks = stats["ticks"].as_u64().unwrap();
    assert!((60..=60 * 120).contains(&ticks), "{stats}");

    // Names and teams mix; a unit named twice is ordered once.
    let output = tilewalk(&[
        "simulate",
        "--map",
        meadow,
        "--group",
        "knight,archer,knight:20,3",
        "--stats",
    ]);
    let stats: serde_json::Value = serde_json::from_str(
        String::from_utf8(output.stdout)
            .unwrap()
            .lines()
            .last()
            .unwrap(),
    )
    .unwrap();
    assert_eq!(
        (stats["units"].as_u64(), stats["arrived"].as_u64()),
        (Some(2), Some(2))
    );

    for (group, expected) in [
        ("nobody,knight:1,1", "no unit named `nobody`"),
        ("blue:99,1", "outside the 32x18 map"),
        ("blue:", "expected NAMES:X,Y"),
        (",knight:1,1", "expected NAMES:X,Y"),
    ] {
        let output = tilewalk(&["simulate", "--map", meadow, "--group", group]);
        assert_eq!(output.status.code(), Some(2), "{group}");
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(stderr.contains(expected), "{group}: {stderr}");
    }
}

#[test]
fn simulate_reloads_terrain_mid_run_and_cheaper_mud_brings_the_archer_sooner() {
    let meadow = concat!(env!("CARGO_MANIFEST_DIR"), "/assets/maps/meadow.map");
    let cheap = file(
        "cheap-mud.ron",
        &include_str!("../../assets/terrain.ron").replace(
            r#"(name: "mud", glyphs: ",S", tile: 4, cost: {"foot": 3.0,"#,
            r#"(name: "mud", glyphs: ",S", tile: 4, cost: {"foot": 0.5,"#,
        ),
    );
    let seconds = |extra: &[&str]| {
        let mut args = vec![
            "simulate",
            "--map",
            meadow,
            "--order",
            "archer:18,2",
            "--json",
        ];
        args.extend_from_slice(extra);
        let output = tilewalk(&args);
        assert_eq!(output.status.code(), Some(0), "{output:?}");
        let text = String::from_utf8(output.stdout).unwrap();
        let archer: serde_json::Value = text
            .lines()
            .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap())
            .find(|v| v["unit"] == "archer")
            .unwrap();
        archer["seconds"].as_f64().unwrap()
    };
    let reload = format!("1:{}", cheap.display());
    let (before, after) = (seconds(&[]), seconds(&["--reload-terrain", &reload]));
    assert!(after < before - 1.0, "{after} vs {before}");

    // A table that declares the same classes in another order changes nothing: units keep
    // their class by name (a lancer read as a flyer would cross the river anywhere).
    let shuffled = file(
        "shuffled.ron",
        &include_str!("../../assets/terrain.ron").replace(
            "        (name: \"foot\", speed: 3.0),\n        (name: \"horse\", speed: 3.0),\n        (name: \"flyer\", speed: 3.0),",
            "        (name: \"flyer\", speed: 3.0),\n        (name: \"foot\", speed: 3.0),\n        (name: \"horse\", speed: 3.0),",
        ),
    );
    let lancer = |extra: &[&str]| {
        let mut args = vec![
            "simulate",
            "--map",
            meadow,
            "--order",
            "lancer:28,5",
            "--json",
        ];
        args.extend_from_slice(extra);
        let output = tilewalk(&args);
        assert_eq!(output.status.code(), Some(0), "{output:?}");
        String::from_utf8(output.stdout).unwrap()
    };
    let reload = format!("0.5:{}", shuffled.display());
    assert_ne!(
        std::fs::read_to_string(&shuffled).unwrap(),
        include_str!("../../assets/terrain.ron")
    );
    assert_eq!(lancer(&["--reload-terrain", &reload]), lancer(&[]));

    let broken = file("broken.ron", "(terrains: [");
    let output = tilewalk(&[
        "simulate",
        "--map",
        meadow,
        "--reload-terrain",
        &format!("2:{}", broken.display()),
    ]);
    assert_eq!(output.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&output.stderr).contains("broken.ron:1:"));
}

#[test]
fn headless_commands_run_outside_a_checkout_with_the_built_in_table_and_rules() {
    // A folder with no assets/, and no hint of the checkout: the binary looks beside itself
    // (target/, no assets/ there) and in the current folder.
    let dir = std::env::temp_dir().join(format!("tilewalk-outside-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let map = dir.join("skirmish.map");
    std::fs::copy(
        concat!(env!("CARGO_MANIFEST_DIR"), "/assets/maps/skirmish.map"),
        &map,
    )
    .unwrap();
    let map = map.to_str().unwrap();
    let commands: [&[&str]; 3] = [
        &["simulate", "--map", map, "--group", "blue:5,5", "--json"],
        &["tactics", "--map", map, "--range", "knight", "--end-turn"],
        &[
            "path", "--map", map, "--from", "2,5", "--to", "6,5", "--json",
        ],
    ];
    for args in commands {
        let outside = Command::new(env!("CARGO_BIN_EXE_tilewalk"))
            .args(args)
            .current_dir(&dir)
            .env_remove("CARGO_MANIFEST_DIR")
            .env_remove("BEVY_ASSET_ROOT")
            .output()
            .expect("the binary runs");
        let stderr = String::from_utf8_lossy(&outside.stderr);
        assert_eq!(outside.status.code(), Some(0), "{args:?}: {stderr}");
        assert!(
            stderr.contains("not found: using the built-in terrain.ron"),
            "{args:?}: {stderr}"
        );
        assert_eq!(
            stderr.contains("not found: using the built-in tactics.ron"),
            args[0] == "tactics",
            "{args:?}: {stderr}"
        );
        // The built-in table and rules are the shipped files: the same output as in the
        // checkout (but for the timings of `path`).
        let inside = tilewalk(args);
        let strip = |out: &[u8]| {
            String::from_utf8_lossy(out)
                .lines()
                .map(|l| l.split(",\"micros\"").next().unwrap_or(l).to_owned())
                .collect::<Vec<_>>()
        };
        assert_eq!(strip(&outside.stdout), strip(&inside.stdout), "{args:?}");
    }
}

#[test]
fn simulate_stats_give_the_makespan_and_its_free_path_ideal() {
    // A corridor with mud (cost 3 for foot) on the way: alone, the knight's cheapest walk
    // to 5,0 costs 1 + 3 + 1 + 1 + 1 = 7, 7/3 s at 3 tiles a second.
    let corridor = file(
        "corridor.map",
        "[terrain]\n.,....\n######\n[units]\nknight blue foot 0,0\n",
    );
    let corridor = corridor.to_str().unwrap();
    let lines = json_lines(&tilewalk(&[
        "simulate",
        "--map",
        corridor,
        "--order",
        "knight:5,0",
        "--json",
        "--stats",
    ]));
    let (stats, units) = lines.split_last().unwrap();
    assert_eq!(units[0]["arrived"], true);
    assert_eq!(stats["free_makespan_s"], 2.3333);
    // Alone, it walks as fast as its free path: the last arrival is that walk, to the frame.
    let makespan = stats["makespan_s"].as_f64().unwrap();
    assert!((makespan - 7.0 / 3.0).abs() <= 1.0 / 60.0, "{stats}");
    assert_eq!(stats["makespan_s"], units[0]["seconds"]);

    // A second unit queued behind it in the one-tile corridor arrives later than its free
    // walk; the makespan is the later arrival, the ideal the longer free walk (the first
    // unit's, one tile further).
    let queue = file(
        "queue.map",
        "[terrain]\n........\n########\n[units]\na blue foot 1,0\nb blue foot 0,0\n",
    );
    let lines = json_lines(&tilewalk(&[
        "simulate",
        "--map",
        queue.to_str().unwrap(),
        "--group",
        "blue:7,0",
        "--json",
        "--stats",
    ]));
    let (stats, units) = lines.split_last().unwrap();
    assert!(units.iter().all(|u| u["arrived"] == true), "{units:?}");
    let last = units
        .iter()
        .map(|u| u["seconds"].as_f64().unwrap())
        .fold(0.0, f64::max);
    assert_eq!(stats["makespan_s"].as_f64(), Some(last));
    // Along the corridor a walk costs one a tile: the ideal is the longest walk over 3.
    let start = |unit: &serde_json::Value| if unit["unit"] == "a" { 1 } else { 0 };
    let longest = units
        .iter()
        .map(|u| (u["tile"][0].as_i64().unwrap() - start(u)).abs())
        .max()
        .unwrap();
    let ideal = (longest as f64 / 3.0 * 1e4).round() / 1e4;
    assert_eq!(stats["free_makespan_s"].as_f64(), Some(ideal), "{units:?}");
    assert!(last >= ideal - 1.0 / 60.0, "{stats}");

    // No arrival, no makespan.
    let lines = json_lines(&tilewalk(&[
        "simulate", "--map", corridor, "--json", "--stats",
    ]));
    let stats = lines.last().unwrap();
    assert!(
        stats["makespan_s"].is_null() && stats["free_makespan_s"].is_null(),
        "{stats}"
    );
}

#[test]
fn classes_come_from_the_terrain_table_and_an_unknown_one_is_refused_where_it_is_written() {
    // A unit line naming a class the table does not declare: refused at its line and column.
    let map = file("boat.map", "[terrain]\n....\n[units]\nk blue boat 0,0\n");
    let output = tilewalk(&["simulate", "--map", map.to_str().unwrap()]);
    assert_eq!(output.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains(&format!(
            "{}:4:8: unknown movement class `boat` (expected foot, horse or flyer)",
            map.display()
        )),
        "{stderr}"
    );
    // With the Advance Wars table the same classes are unknown and its own are at home: a
    // tank (treads) goes round the mountain a soldier climbs over.
    let table = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/assets/classes/advance_wars.ron"
    );
    let ridge = file(
        "ridge.map",
        "[terrain]\n..#..\n..#..\n.....\n[units]\nsoldier blue infantry 0,0\ntank blue treads 0,1\n",
    );
    let ridge = ridge.to_str().unwrap();
    let run = |unit: &str, goal: &str| {
        let order = format!("{unit}:{goal}");
        let args = [
            "simulate",
            "--map",
            ridge,
            "--terrain",
            table,
            "--order",
            &order,
            "--json",
        ];
        let output = tilewalk(&args);
        assert_eq!(output.status.code(), Some(0), "{output:?}");
        let text = String::from_utf8(output.stdout).unwrap();
        text.lines()
            .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap())
            .find(|v| v["unit"] == unit)
            .unwrap()
    };
    // Straight over the ridge: 1 + 2 (mountain) + 1 + 1 = 5 at 3 tiles a second.
    let soldier = run("soldier", "4,0");
    assert_eq!(soldier["arrived"], true);
    assert!(
        (soldier["seconds"].as_f64().unwrap() - 5.0 / 3.0).abs() < 1e-3,
        "{soldier}"
    );
    let tank = run("tank", "4,1");
    assert_eq!(tank["arrived"], true);
    // Round the ridge's foot at row 2, at 5 tiles a second: more than the 4 straight steps.
    assert!(
        tank["seconds"].as_f64().unwrap() > 4.0 / 5.0 + 0.1,
        "{tank}"
    );
    let path = tilewalk(&[
        "path",
        "--map",
        ridge,
        "--terrain",
        table,
        "--class",
        "boat",
    ]);
    assert_eq!(path.status.code(), Some(2));
    assert!(
        String::from_utf8_lossy(&path.stderr).contains(
            "--class: unknown movement class `boat` (the terrain table has infantry, mech, tires, treads or air)"
        ),
        "{path:?}"
    );
}

/// Issue 63's `tactics-slow-class` finding, generated here: the shipped table with the
/// horse's speed at 0.01. Moves resolve in turn time, so the session is the shipped table's,
/// line for line (but for the range's timing), and quick.
#[test]
fn tactics_with_a_slow_class_resolves_in_turn_time() {
    let shipped = include_str!("../../assets/terrain.ron");
    let horse = "(name: \"horse\", speed: 3.0)";
    assert!(shipped.contains(horse));
    let slow = file(
        "slow-horse.ron",
        &shipped.replace(horse, "(name: \"horse\", speed: 0.01)"),
    );
    let normal = file("normal.ron", shipped);
    let map = concat!(env!("CARGO_MANIFEST_DIR"), "/assets/maps/skirmish.map");
    let run = |table: &std::path::Path| {
        let started = std::time::Instant::now();
        let output = tilewalk(&[
            "tactics",
            "--map",
            map,
            "--terrain",
            table.to_str().unwrap(),
            "--move",
            "lancer:8,3",
            "--end-turn",
            "--range",
            "raider",
        ]);
        let lines: Vec<serde_json::Value> = json_lines(&output)
            .into_iter()
            .map(|mut l| {
                l.as_object_mut().unwrap().remove("micros");
                l
            })
            .collect();
        (lines, started.elapsed())
    };
    let (fast, _) = run(&normal);
    let (slowed, wall) = run(&slow);
    assert_eq!(slowed, fast);
    assert_eq!(slowed[0]["moved"], true, "{}", slowed[0]);
    let end = slowed.iter().find(|l| l["action"] == "end_turn").unwrap();
    assert_eq!(end["turn"], 2, "{end}");
    assert!(wall.as_secs_f64() < 5.0, "{wall:?}");
}

#[test]
fn path_on_a_map_with_units_goes_from_the_first_blue_unit_to_the_first_red_one() {
    let meadow = concat!(env!("CARGO_MANIFEST_DIR"), "/assets/maps/meadow.map");
    // As a newcomer types it: no ends, no class.
    let output = tilewalk(&["path", "--map", meadow, "--json"]);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(0), "{stderr}");
    // meadow.map's [units]: knight (blue, foot) at 2,5 first, brute (red) at 28,4 first.
    assert!(
        stderr.contains("from the first blue unit, knight (foot), (2,5)")
            && stderr.contains("to the first red unit, brute (foot), (28,4)"),
        "{stderr}"
    );
    let (code, given) = path_json(
        std::path::Path::new(meadow),
        &["--from", "2,5", "--to", "28,4", "--class", "foot"],
    );
    assert_eq!(code, Some(0));
    let defaulted = json(&output);
    assert_eq!(defaulted["steps"], given["steps"]);
    assert_eq!(defaulted["cost"], given["cost"]);
    // An end given is kept; the other still comes from the map, and the note names only it.
    let output = tilewalk(&["path", "--map", meadow, "--from", "1,9"]);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(0), "{stderr}");
    assert!(
        stderr.contains("to the first red unit") && !stderr.contains("blue unit"),
        "{stderr}"
    );
    // A map without units nor `S`: the message says what is missing.
    let bare = file("bare.map", "[terrain]\n...\n...\n");
    let output = tilewalk(&["path", "--map", bare.to_str().unwrap()]);
    assert_eq!(output.status.code(), Some(2));
    assert!(
        String::from_utf8_lossy(&output.stderr)
            .contains("give --from X,Y (the map has no blue unit)")
    );
}

#[test]
fn no_path_to_an_impassable_goal_points_to_nearest() {
    let meadow = concat!(env!("CARGO_MANIFEST_DIR"), "/assets/maps/meadow.map");
    // (19,1) is river: a horse cannot enter it.
    let args = [
        "path", "--map", meadow, "--from", "24,2", "--to", "19,1", "--class", "horse",
    ];
    let output = tilewalk(&args);
    assert_eq!(output.status.code(), Some(1));
    let stdout = String::from_utf8_lossy(&output.stdout);
    let lines: Vec<&str> = stdout.lines().collect();
    assert_eq!(
        lines,
        [
            "no path: goal (19,1) is impassable",
            "(--nearest goes to the reachable tile nearest the goal instead)"
        ]
    );
    // With it, the horse stays on its own bank, on (21,1), two tiles from the click and
    // three steps away (the rule of design/near-orders.md).
    let (code, near) = path_json(
        std::path::Path::new(meadow),
        &[
            "--from",
            "24,2",
            "--to",
            "19,1",
            "--class",
            "horse",
            "--nearest",
        ],
    );
    assert_eq!(code, Some(0), "{near}");
    assert_eq!(
        near["steps"],
        serde_json::json!([[24, 2], [23, 2], [22, 2], [21, 1]])
    );
    assert_eq!(near["goal"], serde_json::json!([19, 1]));
    // The hint is for goals out of reach only: a blocked start gets none.
    let output = tilewalk(&[
        "path", "--map", meadow, "--from", "19,1", "--to", "24,2", "--class", "horse",
    ]);
    assert_eq!(
        String::from_utf8_lossy(&output.stdout).trim(),
        "no path: start (19,1) is impassable"
    );
}

#[test]
fn simulate_lists_units_in_map_order_and_says_why_one_stopped_short() {
    let meadow = concat!(env!("CARGO_MANIFEST_DIR"), "/assets/maps/meadow.map");
    let text = std::fs::read_to_string(meadow).unwrap();
    // The [units] section's names, read here on their own.
    let listed: Vec<&str> = text
        .split("[units]")
        .nth(1)
        .unwrap()
        .lines()
        .filter(|l| !l.trim().is_empty() && !l.trim_start().starts_with("//"))
        .map(|l| l.split_whitespace().next().unwrap())
        .collect();
    assert_eq!(listed.len(), 7);
    // The raider moved to the east bank at (24,2), as in the issue, and sent into the river.
    let moved = file(
        "meadow_raider.map",
        &text.replace("raider    red   horse  29,9", "raider    red   horse  24,2"),
    );
    let output = tilewalk(&[
        "simulate",
        "--map",
        moved.to_str().unwrap(),
        "--order",
        "raider:19,1",
        "--order",
        "wyvern:20,2",
    ]);
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert_eq!(output.status.code(), Some(0), "{stdout}");
    let names: Vec<&str> = stdout
        .lines()
        .map(|l| l.split_whitespace().next().unwrap())
        .collect();
    assert_eq!(names, listed, "{stdout}");
    let raider = stdout.lines().find(|l| l.starts_with("raider")).unwrap();
    // Three steps on its own bank, not 31 round by the ford to (18,1).
    assert!(
        raider.starts_with("raider       (21,1)  arrived after")
            && raider.ends_with("short of 19,1: water at (19,1) is impassable for horse"),
        "{raider}"
    );
}

#[test]
fn gen_says_what_it_wrote_and_warns_of_a_side_without_units() {
    let out = std::env::temp_dir().join(format!("tilewalk-gen-{}.map", std::process::id()));
    let output = tilewalk(&[
        "gen",
        "--seed",
        "7",
        "--width",
        "40",
        "--height",
        "30",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert_eq!(output.status.code(), Some(0));
    let said = String::from_utf8_lossy(&output.stdout);
    let written = std::fs::read_to_string(&out).unwrap();
    // The counts, read from the file here: units a side, and tiles a foot soldier can walk.
    let units = written.split("[units]").nth(1).unwrap();
    let side = |team: &str| {
        units
            .lines()
            .filter(|l| l.split_whitespace().nth(1) == Some(team))
            .count()
    };
    let table =
        tilewalk::terrain::TerrainTable::parse(include_str!("../../assets/terrain.ron")).unwrap();
    let map = tilewalk::map::MapAsset::parse(&written).unwrap();
    let (level, _) = tilewalk::level::Level::build(&map, &table).unwrap();
    let open = level
        .cells()
        .filter(|&p| level.terrain(p).and_then(|t| t.cost(super::FOOT)).is_some())
        .count();
    assert_eq!(
        said.trim(),
        format!(
            "wrote {}: 40x30 map from seed 7: {open} of 1200 tiles open ground, {} blue and {} red units",
            out.display(),
            side("blue"),
            side("red")
        )
    );
    assert!(
        output.stderr.is_empty(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    // No units asked for: written, with a warning.
    let output = tilewalk(&[
        "gen", "--seed", "7", "--width", "40", "--height", "30", "--units", "0",
    ]);
    assert_eq!(output.status.code(), Some(0));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("note: wrote a 40x30 map from seed 7"),
        "{stderr}"
    );
    assert!(
        stderr.contains("warning: the map has 0 blue and 0 red units"),
        "{stderr}"
    );
    let _ = std::fs::remove_file(out);
}

/// `gen --skirmish`: the same seed gives the same file; the terrain is its own half-turn and
/// red's units mirror blue's, class for class, on every board.
#[test]
fn gen_skirmish_writes_a_mirrored_fair_map() {
    for board in ["square-8", "square-4", "hex-odd-r", "hex-even-q"] {
        let args = [
            "gen",
            "--skirmish",
            "--seed",
            "11",
            "--board",
            board,
            "--units",
            "7",
        ];
        let output = tilewalk(&args);
        assert_eq!(output.status.code(), Some(0), "{output:?}");
        assert_eq!(output.stdout, tilewalk(&args).stdout, "same seed, same map");
        let text = String::from_utf8(output.stdout).unwrap();
        let map = tilewalk::map::MapAsset::parse(&text).unwrap();
        assert_eq!(map.board.to_string(), board);
        let mirror = |p: tilewalk_path::Pos| {
            tilewalk_path::Pos::new(map.width - 1 - p.x, map.height - 1 - p.y)
        };
        for y in 0..map.height {
            for x in 0..map.width {
                let p = tilewalk_path::Pos::new(x, y);
                assert_eq!(map.glyph(p), map.glyph(mirror(p)), "{board} {p:?}");
            }
        }
        let (blue, red) = map.units.split_at(7);
        assert_eq!(red.len(), 7);
        for (b, r) in blue.iter().zip(red) {
            assert_eq!(
                (b.team.to_string().as_str(), r.team.to_string().as_str()),
                ("blue", "red")
            );
            assert_eq!(r.pos, mirror(b.pos));
            assert_eq!((&b.class, b.attack), (&r.class, r.attack));
        }
    }
    let refused = tilewalk(&["gen", "--board", "hex-odd-r"]);
    assert_eq!(refused.status.code(), Some(2), "--board is for a skirmish");
}

/// `duel`: N whole games, the AIs trading sides each game, one JSON line a game and the
/// summary; exit 0.
#[test]
fn duel_plays_whole_games_and_sums_them_up() {
    let map = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("assets/maps/skirmish.map");
    let map = map.to_str().unwrap();
    let args = [
        "duel",
        "--map",
        map,
        "--ai",
        "planner",
        "--against",
        "greedy",
        "--games",
        "3",
        "--turns",
        "40",
    ];
    let lines = json_lines(&tilewalk(&args));
    assert_eq!(lines.len(), 4, "{lines:?}");
    let mut won = std::collections::BTreeMap::from([("greedy", 0), ("planner", 0)]);
    let mut draws = 0;
    for (i, line) in lines[..3].iter().enumerate() {
        assert_eq!(line["game"], i + 1);
        let (blue, red) = if i % 2 == 0 {
            ("planner", "greedy")
        } else {
            ("greedy", "planner")
        };
        assert_eq!(
            (line["blue"].as_str(), line["red"].as_str()),
            (Some(blue), Some(red))
        );
        let turns = line["turns"].as_u64().unwrap();
        assert!((1..=40).contains(&turns), "{line}");
        match line["winner"].as_str() {
            Some("blue") => *won.get_mut(blue).unwrap() += 1,
            Some("red") => *won.get_mut(red).unwrap() += 1,
            None => {
                assert!(line["winner"].is_null());
                assert_eq!(turns, 40, "a draw plays every turn");
                draws += 1;
            }
            Some(other) => panic!("winner {other}"),
        }
    }
    assert_eq!(
        lines[3],
        serde_json::json!({"games": 3, "won": won, "draws": draws})
    );
    assert_eq!(json_lines(&tilewalk(&args)), lines, "the same games again");
    let unknown = tilewalk(&[
        "duel",
        "--map",
        map,
        "--ai",
        "clever",
        "--against",
        "greedy",
    ]);
    assert_eq!(unknown.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&unknown.stderr).contains("planner, greedy"));
}

/// `play --blue/--red`: a name that is not a player of that side, or players chosen outside
/// tactics mode, are refused before a window opens (exit 2, and what the choices are).
#[test]
fn play_refuses_players_it_does_not_know_before_a_window_opens() {
    let cases = [
        (
            vec!["--mode", "tactics", "--blue", "clever"],
            "`clever` cannot play blue (the players: person, planner, greedy)",
        ),
        (
            vec!["--mode", "tactics", "--red", "clever"],
            "`clever` cannot play red (the players: person, planner, greedy)",
        ),
        (
            vec!["--blue", "planner"],
            "--blue and --red choose the players of --mode tactics",
        ),
    ];
    for (extra, expected) in cases {
        let mut args = vec!["play"];
        args.extend(&extra);
        let output = tilewalk(&args);
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(2), "{extra:?}: {stderr}");
        assert!(stderr.contains(expected), "{extra:?}: {stderr}");
    }
}
