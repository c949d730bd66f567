//! The game a player runs: the real binary in a real window under Xvfb, rendered by
//! lavapipe, driven by real pointer and key events from xdotool. It checks what the game
//! itself reports (`--events`) and what it shows (an F12 screenshot). Every step waits on an
//! event the game reports (the hovered tile, the selection, the order, the screenshot), never
//! on a fixed sleep: on a busy machine a lavapipe frame can take a second.
//!
//! Set `TILEWALK_SCREENSHOT_OUT=docs/screenshot.png` to keep the screenshot for the README.

use std::collections::HashMap;
use std::os::unix::process::CommandExt;
use std::path::{Path as FsPath, PathBuf};
use std::process::{Child, Command};
use std::time::{Duration, Instant};

use serde_json::Value;
use tilewalk::convert::{Geometry, TILE_SIZE};
use tilewalk::map::{MapAsset, ldtk, tmx};
use tilewalk_path::Pos;

/// Lavapipe renders on the CPU: the first frames take a while on a 2-core machine.
const STARTUP: Duration = Duration::from_secs(180);
const WALK: Duration = Duration::from_secs(240);

/// The game under xvfb-run, in its own process group so the whole group is ended on drop.
struct Game {
    child: Child,
    /// Where the map's tiles are in the world, to find them on screen.
    geometry: Geometry,
    dir: PathBuf,
    events: PathBuf,
    display: Vec<(String, String)>,
    window: String,
}

impl Drop for Game {
    fn drop(&mut self) {
        let group = format!("-{}", self.child.id());
        let _ = Command::new("kill").args(["-TERM", "--", &group]).status();
        let _ = self.child.wait();
    }
}

impl Game {
    fn start(dir: &FsPath, map: &str) -> Self {
        Self::start_with(dir, map, &[])
    }

    /// The game with more `play` arguments (`--mode lab`, ...).
    fn start_with(dir: &FsPath, map: &str, more: &[&str]) -> Self {
        let events = dir.join("events.jsonl");
        let display_file = dir.join("display");
        // A game started before in the same folder left its display there.
        let _ = std::fs::remove_file(&display_file);
        let _ = std::fs::remove_file(&events);
        // xvfb-run gives its child a private display; the child writes where that is so
        // xdotool can reach the same display, then becomes the game.
        let child = Command::new("xvfb-run")
            .args(["-a", "-s", "-screen 0 1280x720x24", "sh", "-c"])
            .arg(format!(
                "printf '%s\\n%s\\n' \"$DISPLAY\" \"$XAUTHORITY\" > {}; exec \"$0\" \"$@\"",
                display_file.display()
            ))
            .arg(env!("CARGO_BIN_EXE_tilewalk"))
            .args(["play", "--map", map, "--events"])
            .arg(&events)
            .arg("--screenshot")
            .arg(dir.join("screenshot.png"))
            .args(more)
            .stdout(std::fs::File::create(dir.join("game.log")).unwrap())
            .stderr(std::fs::File::create(dir.join("game.err.log")).unwrap())
            .process_group(0)
            .spawn()
            .expect("xvfb-run starts (apt-get install xvfb mesa-vulkan-drivers xdotool)");
        let parsed = match FsPath::new(map).extension().and_then(|e| e.to_str()) {
            Some("tmx") => tmx::read_tmx(FsPath::new(map)).unwrap(),
            Some("ldtk") => ldtk::read_ldtk(FsPath::new(map), None).unwrap(),
            _ => MapAsset::parse(&std::fs::read_to_string(map).unwrap()).unwrap(),
        };
        let mut game = Self {
            geometry: Geometry::projected(
                parsed.board,
                parsed.projection,
                parsed.width,
                parsed.height,
            ),
            child,
            dir: dir.to_owned(),
            events,
            display: Vec::new(),
            window: String::new(),
        };
        let display = wait_for("the display", STARTUP, || {
            let text = std::fs::read_to_string(&display_file).ok()?;
            let mut lines = text.lines();
            Some(vec![
                ("DISPLAY".to_owned(), lines.next()?.to_owned()),
                ("XAUTHORITY".to_owned(), lines.next()?.to_owned()),
            ])
        });
        game.display = display;
        let window = game.xdotool(&["search", "--sync", "--name", "^tilewalk"]);
        game.window = window.lines().next().expect("the game's window").to_owned();
        game.xdotool(&["windowfocus", "--sync", &game.window.clone()]);
        game
    }

    fn xdotool(&self, args: &[&str]) -> String {
        let output = Command::new("xdotool")
            .args(args)
            .envs(self.display.iter().cloned())
            .output()
            .expect("xdotool runs");
        assert!(
            output.status.success(),
            "xdotool {args:?}: {}",
            String::from_utf8_lossy(&output.stderr)
        );
        String::from_utf8_lossy(&output.stdout).into_owned()
    }

    /// Events after the first `from`.
    fn events_from(&self, from: usize) -> Vec<Value> {
        self.events().into_iter().skip(from).collect()
    }

    fn events(&self) -> Vec<Value> {
        let text = std::fs::read_to_string(&self.events).unwrap_or_default();
        text.lines()
            .filter_map(|l| serde_json::from_str(l).ok())
            .collect()
    }

    /// Waits for an event after the first `from` that `matches`.
    fn wait_event_from(
        &mut self,
        from: usize,
        what: &str,
        timeout: Duration,
        matches: impl Fn(&Value) -> bool,
    ) -> Value {
        let deadline = Instant::now() + timeout;
        loop {
            if let Some(event) = self.events_from(from).into_iter().find(&matches) {
                return event;
            }
            assert!(
                self.child.try_wait().expect("status").is_none(),
                "the game exited while waiting for {what}:\n{}",
                self.log()
            );
            assert!(
                Instant::now() < deadline,
                "timed out waiting for {what}; events: {:?}\n{}",
                self.events(),
                self.log()
            );
            std::thread::sleep(Duration::from_millis(200));
        }
    }

    fn wait_event(
        &mut self,
        what: &str,
        timeout: Duration,
        matches: impl Fn(&Value) -> bool,
    ) -> Value {
        self.wait_event_from(0, what, timeout, matches)
    }

    /// The end of the game's log, for failure messages.
    fn log(&self) -> String {
        let log = std::fs::read_to_string(self.dir.join("game.err.log")).unwrap_or_default();
        log.lines()
            .rev()
            .take(30)
            .collect::<Vec<_>>()
            .into_iter()
            .rev()
            .collect::<Vec<_>>()
            .join("\n")
    }

    /// Where the centre of tile (x, y) is in the window, from the game's last `view` event:
    /// the map's top-left corner on screen and the pixels of `TILE_SIZE` world units.
    fn tile_center(&self, x: u32, y: u32) -> (i64, i64) {
        let view = self
            .events()
            .into_iter()
            .rfind(|e| e["event"] == "view")
            .expect("a view event");
        let origin = (
            view["origin"][0].as_f64().unwrap(),
            view["origin"][1].as_f64().unwrap(),
        );
        let scale = view["tile_px"].as_f64().unwrap() / f64::from(TILE_SIZE);
        let centre = self.geometry.center(Pos::new(x, y));
        let top = self.geometry.extent().y;
        (
            (origin.0 + f64::from(centre.x) * scale) as i64,
            (origin.1 + f64::from(top - centre.y) * scale) as i64,
        )
    }

    /// A real click on tile (x, y): move the pointer there, wait until the game reports it
    /// hovers that tile, press, release. Returns how many events there were before the press,
    /// so the caller can wait for what the click did.
    fn click(&mut self, x: u32, y: u32, button: &str) -> usize {
        let pressed = self.click_and_hold(x, y, button);
        self.xdotool(&["mouseup", button]);
        pressed
    }

    /// Moves the pointer to tile (x, y) and waits until the game reports it hovers there.
    fn hover(&mut self, x: u32, y: u32) {
        let tile = serde_json::json!([x, y]);
        let deadline = Instant::now() + STARTUP;
        loop {
            // Aimed from the latest view; when the view changes before the game reports
            // the tile (the camera was still fitting the map), aim again.
            let (px, py) = self.tile_center(x, y);
            let before = self.events().len();
            self.xdotool(&["mousemove", &px.to_string(), &py.to_string()]);
            loop {
                let last = self.events().into_iter().rfind(|e| e["event"] == "hover");
                if last.is_some_and(|e| e["tile"] == tile) {
                    return;
                }
                assert!(
                    self.child.try_wait().expect("status").is_none(),
                    "the game exited while hovering {x},{y}:\n{}",
                    self.log()
                );
                assert!(
                    Instant::now() < deadline,
                    "timed out hovering {x},{y}; events: {:?}\n{}",
                    self.events(),
                    self.log()
                );
                if self
                    .events_from(before)
                    .iter()
                    .any(|e| e["event"] == "view")
                {
                    break;
                }
                std::thread::sleep(Duration::from_millis(200));
            }
        }
    }

    /// Presses `button` over tile (x, y) and keeps it down (for a drag); returns how many
    /// events there were before the press.
    fn click_and_hold(&mut self, x: u32, y: u32, button: &str) -> usize {
        self.hover(x, y);
        let pressed = self.events().len();
        self.xdotool(&["mousedown", button]);
        pressed
    }
}

/// An empty folder of the test's own for the game's files (events, logs, screenshots).
fn fresh_dir(test: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("tilewalk-{test}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// The window tests take turns: two lavapipe windows at once would halve each one's speed.
static WINDOWS: std::sync::Mutex<()> = std::sync::Mutex::new(());

impl Game {
    /// The last `view` event: where the map's top-left corner is and how big a tile is.
    fn view(&self) -> Value {
        self.events()
            .into_iter()
            .rfind(|e| e["event"] == "view")
            .expect("a view event")
    }

    /// Whether the map covers the window's centre in the last reported view.
    fn map_covers_the_centre(&self) -> bool {
        let view = self.view();
        let (x, y) = (
            view["origin"][0].as_f64().unwrap(),
            view["origin"][1].as_f64().unwrap(),
        );
        let scale = view["tile_px"].as_f64().unwrap() / f64::from(TILE_SIZE);
        let extent = self.geometry.extent();
        let (w, h) = (f64::from(extent.x) * scale, f64::from(extent.y) * scale);
        let centre = (
            view["window"][0].as_f64().unwrap() / 2.0,
            view["window"][1].as_f64().unwrap() / 2.0,
        );
        (x..=x + w).contains(&centre.0) && (y..=y + h).contains(&centre.1)
    }
}

fn wait_for<T>(what: &str, timeout: Duration, mut ready: impl FnMut() -> Option<T>) -> T {
    let deadline = Instant::now() + timeout;
    loop {
        if let Some(value) = ready() {
            return value;
        }
        assert!(Instant::now() < deadline, "timed out waiting for {what}");
        std::thread::sleep(Duration::from_millis(200));
    }
}

/// RGB pixels of a PNG.
fn decode(path: &FsPath) -> (u32, u32, Vec<[u8; 3]>) {
    let decoder = png::Decoder::new(std::io::BufReader::new(std::fs::File::open(path).unwrap()));
    let mut reader = decoder.read_info().unwrap();
    let mut buffer = vec![0; reader.output_buffer_size().unwrap()];
    let info = reader.next_frame(&mut buffer).unwrap();
    let channels = info.color_type.samples();
    let pixels = buffer[..info.buffer_size()]
        .chunks(channels)
        .map(|p| [p[0], p[1], p[2]])
        .collect();
    (info.width, info.height, pixels)
}

/// The gizmo colour of a selected unit's path: srgb(1.0, 0.9, 0.2).
fn is_path_yellow(p: [u8; 3]) -> bool {
    p[0] > 230 && (200..=250).contains(&p[1]) && p[2] < 110
}

#[test]
#[ignore = "needs xvfb-run, mesa-vulkan-drivers, xdotool"]
fn a_player_selects_orders_and_sees_the_path_in_a_real_window() {
    let _one_window_at_a_time = WINDOWS.lock().unwrap_or_else(|e| e.into_inner());
    let dir = fresh_dir("window");
    let meadow = concat!(env!("CARGO_MANIFEST_DIR"), "/assets/maps/meadow.map");
    let mut game = Game::start(&dir, meadow);
    game.wait_fitted();

    // Select the knight, order it across the river; the cheapest way is over the ford.
    let pressed = game.click(2, 5, "1");
    game.wait_event_from(pressed, "the knight selected", STARTUP, |e| {
        e["event"] == "selected" && e["units"] == serde_json::json!(["knight"])
    });
    let pressed = game.click(28, 5, "3");
    game.wait_event_from(pressed, "the order", STARTUP, |e| {
        e["event"] == "ordered" && e["goal"] == serde_json::json!([28, 5])
    });
    let planned = game.wait_event_from(pressed, "the path", STARTUP, |e| {
        e["event"] == "path" && e["unit"] == "knight"
    });
    assert_eq!(planned["goal"], serde_json::json!([28, 5]));
    // The first line gizmo of a session reaches the screen some frames after it is first
    // drawn (its render buffers are made then): wait until the knight is two steps along,
    // a few frames later, before the screenshot.
    let first = game.wait_event_from(pressed, "the knight's first step", WALK, |e| {
        e["event"] == "step" && e["unit"] == "knight"
    });
    game.wait_event_from(pressed, "the knight's second step", WALK, |e| {
        e["event"] == "step" && e["unit"] == "knight" && e["tile"] != first["tile"]
    });
    let shot = game.screenshot().path;

    // An order onto rock, impassable for the knight: it goes as near as it can get, and its
    // arrival says why it stopped short. Of the tiles at most 1.5 further from (31,0) than
    // the nearest, (29,0), the cheapest to walk to is (28,1); within a step and a half of
    // it, (29,1) and (30,2) are the nearest to the rock, and (29,1) comes first by row.
    let pressed = game.click(31, 0, "3");
    let arrived = game.wait_event_from(pressed, "the knight to arrive", WALK, |e| {
        e["event"] == "arrived"
    });
    assert_eq!(arrived["unit"], "knight");
    assert_eq!(arrived["tile"], serde_json::json!([29, 1]));
    assert_eq!(arrived["short_of_goal"], true, "{arrived}");
    assert_eq!(arrived["goal"], serde_json::json!([31, 0]));
    assert!(
        arrived["reason"]
            .as_str()
            .unwrap()
            .contains("rock at (31,0) is impassable for foot"),
        "{arrived}"
    );
    assert!(
        game.child.try_wait().unwrap().is_none(),
        "the game still runs"
    );
    // Once a second the game reports its frame rate: frames were drawn while it walked.
    let frames = game.wait_event("a frame rate", STARTUP, |e| e["event"] == "frames");
    let (fps, worst) = (
        frames["fps"].as_f64().unwrap(),
        frames["worst_ms"].as_f64().unwrap(),
    );
    assert!(fps > 0.0 && worst > 0.0 && worst <= 60_000.0, "{frames}");

    // The frame shows the map: several terrains, each covering a good part of it...
    let (width, height, pixels) = decode(&shot);
    assert_eq!((width, height), (1280, 720));
    let mut buckets: HashMap<[u8; 3], usize> = HashMap::new();
    for p in &pixels {
        *buckets.entry(p.map(|c| c / 48)).or_default() += 1;
    }
    let large = buckets
        .values()
        .filter(|&&n| n > pixels.len() / 100)
        .count();
    assert!(
        large >= 5,
        "expected several distinct terrain colours, found {large}: {buckets:?}"
    );
    // ...and the knight's path drawn over the ford (tiles (19,10) and (20,10)).
    let ford = [game.tile_center(19, 10), game.tile_center(20, 10)];
    let yellow_at_ford = ford
        .iter()
        .flat_map(|&(cx, cy)| {
            (-6..=6).flat_map(move |dy| (-16..=16).map(move |dx| (cx + dx, cy + dy)))
        })
        .filter(|&(x, y)| is_path_yellow(pixels[(y * i64::from(width) + x) as usize]))
        .count();
    assert!(
        yellow_at_ford >= 10,
        "the path crosses the ford: {yellow_at_ford} path pixels there"
    );
    let yellow = pixels.iter().filter(|&&p| is_path_yellow(p)).count();
    assert!(
        yellow >= 800,
        "a path of ~26 tiles is drawn: {yellow} path pixels"
    );

    if let Ok(out) = std::env::var("TILEWALK_SCREENSHOT_OUT") {
        std::fs::copy(&shot, PathBuf::from(env!("CARGO_MANIFEST_DIR")).join(out)).unwrap();
    }

    // The camera: a long hold of an arrow key pans until the map's edge reaches the screen's
    // centre, and no further; `Home` fits the whole map again.
    let fitted = game.view();
    let before = game.events().len();
    game.xdotool(&["keydown", "Right"]);
    game.wait_event_from(before, "the camera to pan", STARTUP, |e| {
        e["event"] == "view"
    });
    std::thread::sleep(Duration::from_secs(3));
    game.xdotool(&["keyup", "Right"]);
    assert!(
        game.map_covers_the_centre(),
        "panned off the map: {}",
        game.view()
    );
    assert_ne!(game.view()["origin"], fitted["origin"], "the camera moved");
    let before = game.events().len();
    game.xdotool(&["key", "Home"]);
    game.wait_event_from(before, "the map fitted again", STARTUP, |e| {
        e["event"] == "view" && e["origin"] == fitted["origin"] && e["tile_px"] == fitted["tile_px"]
    });
    drop(game);
    let _ = std::fs::remove_dir_all(dir);
}

/// A screenshot's pixels.
struct Shot {
    path: PathBuf,
    width: u32,
    pixels: Vec<[u8; 3]>,
}

impl Shot {
    fn pixel(&self, (x, y): (i64, i64)) -> [u8; 3] {
        self.pixels[(y * i64::from(self.width) + x) as usize]
    }

    /// How many of the 13 x 13 pixels around a point are a blue unit's.
    fn blue_around(&self, (cx, cy): (i64, i64)) -> usize {
        (-6..=6)
            .flat_map(|dy| (-6..=6).map(move |dx| (cx + dx, cy + dy)))
            .filter(|&p| {
                let p = self.pixel(p);
                p[2] > 150 && p[2] > p[0] + 60
            })
            .count()
    }

    /// Copies the screenshot to the file an environment variable names, if it is set.
    fn keep_as(&self, variable: &str) {
        if let Ok(out) = std::env::var(variable) {
            std::fs::copy(
                &self.path,
                PathBuf::from(env!("CARGO_MANIFEST_DIR")).join(out),
            )
            .unwrap();
        }
    }
}

impl Game {
    /// Waits until the map is fitted to the window (a view event with the map's origin on
    /// screen).
    fn wait_fitted(&mut self) {
        self.wait_event("the map to be fitted to the window", STARTUP, |e| {
            e["event"] == "view" && e["origin"][1].as_f64().is_some_and(|y| y > 0.0)
        });
    }

    /// The game in tactics mode on a map written to `dir` as `name` from `text`, once the
    /// map is fitted and blue's first turn has begun.
    fn tactics(dir: &FsPath, name: &str, text: &str) -> Self {
        let map = dir.join(name);
        std::fs::write(&map, text).unwrap();
        let mut game = Self::start_with(dir, map.to_str().unwrap(), &["--mode", "tactics"]);
        game.wait_fitted();
        game.wait_event("turn 1", STARTUP, |e| {
            e["event"] == "turn" && e["number"] == 1 && e["team"] == "blue"
        });
        game
    }

    /// Once the map is fitted to the window: selects the knight on `from` with a real left
    /// click, sends it to `to` with a right click, waits until it arrives there and takes a
    /// screenshot (F12) of the 1280 x 720 window.
    fn send_knight(&mut self, from: (u32, u32), to: (u32, u32)) -> Shot {
        self.wait_fitted();
        let pressed = self.click(from.0, from.1, "1");
        self.wait_event_from(pressed, "the knight selected", STARTUP, |e| {
            e["event"] == "selected" && e["units"] == serde_json::json!(["knight"])
        });
        let goal = serde_json::json!([to.0, to.1]);
        let pressed = self.click(to.0, to.1, "3");
        self.wait_event_from(pressed, "the order", STARTUP, |e| {
            e["event"] == "ordered" && e["goal"] == goal
        });
        let arrived = self.wait_event("the knight to arrive", WALK, |e| e["event"] == "arrived");
        assert_eq!(arrived["unit"], "knight");
        assert_eq!(arrived["tile"], goal);
        self.screenshot()
    }
}

#[test]
#[ignore = "needs xvfb-run, mesa-vulkan-drivers, xdotool"]
fn a_unit_on_a_hex_map_walks_to_the_hex_clicked() {
    let _one_window_at_a_time = WINDOWS.lock().unwrap_or_else(|e| e.into_inner());
    let dir = fresh_dir("hex-window");
    let valley = concat!(env!("CARGO_MANIFEST_DIR"), "/assets/maps/hex_valley.map");
    let mut game = Game::start(&dir, valley);
    // Picking: the knight's hex selects it; a hex across the ford is the goal.
    let shot = game.send_knight((2, 5), (25, 9));
    // Hex tiles are drawn, and the knight stands on the hex it was sent to (its blue
    // sprite at that hex's centre).
    let blue = shot.blue_around(game.tile_center(25, 9));
    assert!(
        blue >= 20,
        "the knight is drawn on (25,9): {blue} blue pixels"
    );
    shot.keep_as("TILEWALK_HEX_SCREENSHOT_OUT");
    drop(game);
    let _ = std::fs::remove_dir_all(dir);
}

#[test]
#[ignore = "needs xvfb-run, mesa-vulkan-drivers, xdotool"]
fn a_unit_on_an_isometric_tiled_map_walks_to_the_tile_clicked() {
    let _one_window_at_a_time = WINDOWS.lock().unwrap_or_else(|e| e.into_inner());
    let dir = fresh_dir("iso-window");
    let map = concat!(env!("CARGO_MANIFEST_DIR"), "/assets/tiled/iso.tmx");
    let mut game = Game::start(&dir, map);
    // Picking on diamonds: the knight's tile selects it; a tile across the river's ford
    // is the goal.
    let shot = game.send_knight((1, 10), (9, 5));
    // Drawn as Tiled draws it: diamonds, the river's water blue down the map's column 6,
    // grass green at the map's top cell, the window's background beside that cell's
    // diamond (its bounding box's corner), and the knight on its goal.
    let water = shot.pixel(game.tile_center(6, 3));
    assert!(
        water[2] > 150 && water[2] > water[0] + 80,
        "water {water:?}"
    );
    let grass = shot.pixel(game.tile_center(0, 0));
    assert!(
        grass[1] > 120 && grass[1] > grass[2] + 40,
        "grass {grass:?}"
    );
    let (cx, cy) = game.tile_center(0, 0);
    let scale = game.view()["tile_px"].as_f64().unwrap();
    let corner = shot.pixel((cx - (scale * 0.9) as i64, cy - (scale * 0.4) as i64));
    assert!(corner != grass, "beside the diamond: {corner:?}");
    let blue = shot.blue_around(game.tile_center(9, 5));
    assert!(
        blue >= 20,
        "the knight is drawn on (9,5): {blue} blue pixels"
    );
    shot.keep_as("TILEWALK_ISO_SCREENSHOT_OUT");
    drop(game);
    let _ = std::fs::remove_dir_all(dir);
}

#[test]
#[ignore = "needs xvfb-run, mesa-vulkan-drivers, xdotool"]
fn a_unit_on_a_staggered_tiled_map_walks_to_the_tile_clicked() {
    use tilewalk::convert::{Stagger, StaggerAxis};
    let _one_window_at_a_time = WINDOWS.lock().unwrap_or_else(|e| e.into_inner());
    let dir = fresh_dir("staggered-window");
    let map = concat!(env!("CARGO_MANIFEST_DIR"), "/assets/tiled/staggered.tmx");
    // Tiled's cells (column, row) of the 8 x 16 map, odd rows shifted, as diamond cells.
    let stagger = Stagger {
        axis: StaggerAxis::Rows,
        odd: true,
        columns: 8,
        rows: 16,
    };
    let (knight, goal) = (stagger.to_diamond(0, 10), stagger.to_diamond(5, 9));
    let mut game = Game::start(&dir, map);
    // Across the river (Tiled's column 3), over its ford.
    let shot = game.send_knight((knight.x, knight.y), (goal.x, goal.y));
    // The river's water where Tiled draws column 3, and the knight on its goal.
    let river = stagger.to_diamond(3, 2);
    let water = shot.pixel(game.tile_center(river.x, river.y));
    assert!(
        water[2] > 150 && water[2] > water[0] + 80,
        "water {water:?}"
    );
    let blue = shot.blue_around(game.tile_center(goal.x, goal.y));
    assert!(
        blue >= 20,
        "the knight is drawn on its goal: {blue} blue pixels"
    );
    drop(game);
    let _ = std::fs::remove_dir_all(dir);
}

/// Whether a screenshot pixel shows the lab's expanded tint over grass (blue), or its
/// frontier tint (green); untinted grass is neither.
fn is_lab_closed(p: [u8; 3]) -> bool {
    p[2] > 140 && p[2] > p[0] + 50
}

fn is_lab_open(p: [u8; 3]) -> bool {
    p[1] > 180 && p[1] > p[2] + 60
}

#[test]
#[ignore = "needs xvfb-run, mesa-vulkan-drivers, xdotool"]
fn the_lab_replays_a_search_step_by_step_in_a_real_window() {
    use super::FOOT;
    use tilewalk::level::Level;
    use tilewalk_path::{CellState, Direction, Replay, SearchContext, SearchOptions, Trace};

    let _one_window_at_a_time = WINDOWS.lock().unwrap_or_else(|e| e.into_inner());
    let dir = fresh_dir("lab-window");
    let meadow = concat!(env!("CARGO_MANIFEST_DIR"), "/assets/maps/meadow.map");
    let lab = ["--mode", "lab", "--from", "1,4", "--to", "6,4"];
    let mut game = Game::start_with(&dir, meadow, &lab);
    game.wait_fitted();
    game.wait_event("the lab's first search", STARTUP, |e| {
        e["event"] == "lab" && e["goal"] == serde_json::json!([6, 4]) && e["step"] == 0
    });
    // The lab's column comes after the first fit, and the map is fitted again into the map
    // area it leaves: the drag below is aimed at tiles once they are there (aimed before, its
    // press could land beside the goal marker and paint instead).
    let column = game.wait_event("the lab's column", STARTUP, |e| {
        e["event"] == "panels" && e["panels"].get("lab").is_some()
    });
    let right = column["map_area"][2].as_f64().unwrap();
    let map = MapAsset::parse(&std::fs::read_to_string(meadow).unwrap()).unwrap();
    let width = f64::from(map.width);
    game.wait_event("the map fitted beside the lab's column", STARTUP, |e| {
        let (x, px) = (e["origin"][0].as_f64(), e["tile_px"].as_f64());
        e["event"] == "view"
            && x.zip(px)
                .is_some_and(|(x, px)| x + width * px <= right + 1.0)
    });

    // Drag the goal marker from (6,4) to (9,2), through (8,3).
    let pressed = game.click_and_hold(6, 4, "1");
    for (x, y) in [(8, 3), (9, 2)] {
        game.hover(x, y);
    }
    game.xdotool(&["mouseup", "1"]);
    let moved = game.wait_event_from(pressed, "the goal dragged", STARTUP, |e| {
        e["event"] == "lab" && e["goal"] == serde_json::json!([9, 2])
    });
    assert_eq!(moved["start"], serde_json::json!([1, 4]), "the start stays");

    // Back to the beginning, then 24 steps, one key press each.
    let before = game.events().len();
    game.xdotool(&["key", "Prior"]);
    game.wait_event_from(before, "the replay at its beginning", STARTUP, |e| {
        e["event"] == "lab" && e["step"] == 0
    });
    for step in 1..=24 {
        let before = game.events().len();
        game.xdotool(&["key", "period"]);
        game.wait_event_from(before, "one step", STARTUP, |e| {
            e["event"] == "lab" && e["step"] == step
        });
    }
    let shot = game.screenshot().path;

    // The same search, replayed by the core to the same step, says which tiles are expanded
    // and which wait on the frontier; the screenshot must tint exactly those.
    let (_, nav) = Level::build(&map, &super::table()).unwrap();
    let grid = nav.grid(FOOT);
    let mut trace = Trace::new();
    let (start, goal) = (Pos::new(1, 4), Pos::new(9, 2));
    SearchContext::new()
        .search_traced(grid, start, goal, &SearchOptions::default(), &mut trace)
        .unwrap();
    let mut replay = Replay::new(grid.width(), grid.height());
    replay.seek(&trace, 24);
    let (width, _, pixels) = decode(&shot);
    // Sample a patch in each grass tile's lower-right quarter, clear of the lines through
    // the centres and the outlines at the edges.
    let patch = |pos: Pos| -> Vec<[u8; 3]> {
        let (cx, cy) = game.tile_center(pos.x, pos.y);
        (4..=8)
            .flat_map(|dy| (4..=8).map(move |dx| (cx + dx, cy + dy)))
            .map(|(x, y)| pixels[(y * i64::from(width) + x) as usize])
            .collect()
    };
    let grass = |pos: Pos| map.glyph(pos) == Some('.') && pos != start && pos != goal;
    let (mut closed, mut open) = (0, 0);
    for (pos, cell) in replay
        .reached(Direction::Forward)
        .filter(|(p, _)| grass(*p))
    {
        let pixels = patch(pos);
        let (check, name): (fn([u8; 3]) -> bool, _) = match cell.state {
            CellState::Closed => (is_lab_closed, "expanded"),
            CellState::Open => (is_lab_open, "frontier"),
        };
        let tinted = pixels.iter().filter(|&&p| check(p)).count();
        assert!(
            tinted * 2 > pixels.len(),
            "{pos} is {name} but looks otherwise: {:?}",
            &pixels[..3]
        );
        match cell.state {
            CellState::Closed => closed += 1,
            CellState::Open => open += 1,
        }
    }
    assert!(closed >= 2 && open >= 5, "closed {closed}, open {open}");
    // An unreached grass tile far away keeps its own colour.
    let far = patch(Pos::new(3, 13));
    assert!(
        far.iter().all(|&p| !is_lab_closed(p) && !is_lab_open(p)),
        "{:?}",
        &far[..3]
    );
    if let Ok(out) = std::env::var("TILEWALK_LAB_SCREENSHOT_OUT") {
        std::fs::copy(&shot, PathBuf::from(env!("CARGO_MANIFEST_DIR")).join(out)).unwrap();
    }
    drop(game);
    let _ = std::fs::remove_dir_all(dir);
}

#[test]
#[ignore = "needs xvfb-run, mesa-vulkan-drivers, xdotool"]
fn a_click_in_the_same_frame_as_a_move_selects_the_unit_under_the_new_position() {
    let _one_window_at_a_time = WINDOWS.lock().unwrap_or_else(|e| e.into_inner());
    let dir = fresh_dir("click-window");
    let meadow = concat!(env!("CARGO_MANIFEST_DIR"), "/assets/maps/meadow.map");
    let mut game = Game::start(&dir, meadow);
    // The first fit comes before the layout's panels, and the map is fitted again into the
    // map area they leave. These clicks are aimed without waiting for the hover (so they
    // are never aimed again): wait for that second fit.
    let layout = game.wait_event("the layout", STARTUP, |e| {
        e["event"] == "panels" && !e["map_area"].is_null()
    });
    let top = layout["map_area"][1].as_f64().unwrap();
    game.wait_event("the map fitted into the map area", STARTUP, |e| {
        e["event"] == "view" && e["origin"][1].as_f64().is_some_and(|y| y >= top)
    });
    // One xdotool command moves the pointer and clicks at once, with no pause: the game gets
    // the move and the click within one frame, and must select the unit under the new place,
    // not the one it hovered before.
    let units = [("knight", (2, 5)), ("archer", (1, 9))];
    for i in 0..10 {
        let (name, (x, y)) = units[i % 2];
        let (px, py) = game.tile_center(x, y);
        let before = game.events().len();
        game.xdotool(&["mousemove", &px.to_string(), &py.to_string(), "click", "1"]);
        let selected =
            game.wait_event_from(before, "a selection", STARTUP, |e| e["event"] == "selected");
        assert_eq!(
            selected["units"],
            serde_json::json!([name]),
            "click {i} on {name}"
        );
    }
    drop(game);
    let _ = std::fs::remove_dir_all(dir);
}

impl Game {
    /// The map's rectangle on screen `[left, top, right, bottom]`, from the last view.
    fn map_rect(&self) -> [f64; 4] {
        let view = self.view();
        let (x, y) = (
            view["origin"][0].as_f64().unwrap(),
            view["origin"][1].as_f64().unwrap(),
        );
        let scale = view["tile_px"].as_f64().unwrap() / f64::from(TILE_SIZE);
        let extent = self.geometry.extent();
        [
            x,
            y,
            x + f64::from(extent.x) * scale,
            y + f64::from(extent.y) * scale,
        ]
    }

    /// Waits for the panels the game reports to include `panel` (in `mode`), and checks
    /// that no two of them overlap, each lies in the window and none covers the map area.
    fn panels_apart(&mut self, mode: &str, panel: &str) -> Value {
        let event = self.wait_event(&format!("the {panel} panel in {mode}"), STARTUP, |e| {
            e["event"] == "panels" && e["mode"] == mode && e["panels"].get(panel).is_some()
        });
        let window = self.view()["window"].clone();
        let (w, h) = (window[0].as_f64().unwrap(), window[1].as_f64().unwrap());
        let rect = |v: &Value| -> [f64; 4] { std::array::from_fn(|i| v[i].as_f64().unwrap()) };
        let panels: Vec<(&String, [f64; 4])> = event["panels"]
            .as_object()
            .unwrap()
            .iter()
            .map(|(name, r)| (name, rect(r)))
            .collect();
        let overlap = |a: [f64; 4], b: [f64; 4]| {
            (a[2].min(b[2]) - a[0].max(b[0])).min(a[3].min(b[3]) - a[1].max(b[1])) > 0.5
        };
        let area = rect(&event["map_area"]);
        for (i, &(name, r)) in panels.iter().enumerate() {
            assert!(
                r[0] >= 0.0 && r[1] >= 0.0 && r[2] <= w + 0.5 && r[3] <= h + 0.5,
                "{name} {r:?} leaves the {w} x {h} window: {event}"
            );
            assert!(!overlap(r, area), "{name} covers the map area: {event}");
            for &(other, s) in &panels[i + 1..] {
                assert!(!overlap(r, s), "{name} and {other} overlap: {event}");
            }
        }
        event
    }
}

/// Writes a generated map with `units` a side into `dir`, through the game's own `gen`.
fn generated_map(dir: &FsPath, width: u32, height: u32, units: u32) -> String {
    let out = dir.join("army.map");
    let status = Command::new(env!("CARGO_BIN_EXE_tilewalk"))
        .args(["gen", "--seed", "7", "--width", &width.to_string()])
        .args([
            "--height",
            &height.to_string(),
            "--units",
            &units.to_string(),
        ])
        .arg("--out")
        .arg(&out)
        .status()
        .unwrap();
    assert!(status.success());
    out.to_str().unwrap().to_owned()
}

#[test]
#[ignore = "needs xvfb-run, mesa-vulkan-drivers, xdotool"]
fn a_box_dragged_around_the_map_at_home_selects_every_unit() {
    let _one_window_at_a_time = WINDOWS.lock().unwrap_or_else(|e| e.into_inner());
    let dir = fresh_dir("army-window");
    let map = generated_map(&dir, 100, 50, 1250);
    let units = MapAsset::parse(&std::fs::read_to_string(&map).unwrap())
        .unwrap()
        .units
        .len();
    assert!(units > 2000, "{units} units");
    let mut game = Game::start(&dir, &map);
    // The minimap shows (the map is larger than the window) and the map is fitted beside
    // it, between the top bar and the help bar.
    let panels = game.panels_apart("RealTime", "minimap");
    let area = panels["map_area"].clone();
    let inside = |game: &Game| {
        let map = game.map_rect();
        map[0] >= area[0].as_f64().unwrap()
            && map[1] >= area[1].as_f64().unwrap()
            && map[2] <= area[2].as_f64().unwrap()
            && map[3] <= area[3].as_f64().unwrap()
    };
    wait_for("the map fitted in the map area", STARTUP, || {
        inside(&game).then_some(())
    });
    // A box from just outside the map's top-left corner to just outside its bottom-right.
    let [left, top, right, bottom] = game.map_rect();
    let (x0, y0) = ((left - 3.0) as i64, (top - 3.0) as i64);
    let (x1, y1) = ((right + 3.0) as i64, (bottom + 3.0) as i64);
    let before = game.events().len();
    game.xdotool(&[
        "mousemove",
        &x0.to_string(),
        &y0.to_string(),
        "mousedown",
        "1",
    ]);
    game.xdotool(&[
        "mousemove",
        &((x0 + x1) / 2).to_string(),
        &((y0 + y1) / 2).to_string(),
    ]);
    game.xdotool(&[
        "mousemove",
        &x1.to_string(),
        &y1.to_string(),
        "mouseup",
        "1",
    ]);
    let selected = game.wait_event_from(before, "the army selected", STARTUP, |e| {
        e["event"] == "selected"
    });
    assert_eq!(selected["units"].as_array().unwrap().len(), units);
    drop(game);
    let _ = std::fs::remove_dir_all(dir);
}

#[test]
#[ignore = "needs xvfb-run, mesa-vulkan-drivers, xdotool"]
fn no_panel_covers_another_in_any_mode() {
    let _one_window_at_a_time = WINDOWS.lock().unwrap_or_else(|e| e.into_inner());
    let dir = fresh_dir("panels-window");
    let map = generated_map(&dir, 100, 60, 3);
    let mut game = Game::start(&dir, &map);
    game.wait_fitted();
    // Real time: a unit selected and ordered (the search line, a notice), and a file error.
    let blue = MapAsset::parse(&std::fs::read_to_string(&map).unwrap())
        .unwrap()
        .units[0]
        .pos;
    let pressed = game.click(blue.x, blue.y, "1");
    game.wait_event_from(pressed, "a selection", STARTUP, |e| {
        e["event"] == "selected"
    });
    let pressed = game.click(blue.x + 2, blue.y, "3");
    game.wait_event_from(pressed, "the order", STARTUP, |e| e["event"] == "ordered");
    let text = std::fs::read_to_string(&map).unwrap();
    std::fs::write(&map, text.replacen("[units]", "[units]\nbroken", 1)).unwrap();
    game.panels_apart("RealTime", "errors");
    game.panels_apart("RealTime", "notice");
    // The lab, comparing two searches, beside the map: its column fits the window.
    game.xdotool(&["key", "l"]);
    game.panels_apart("Lab", "lab");
    let before = game.events().len();
    game.xdotool(&["key", "v"]);
    game.wait_event_from(before, "compare on", STARTUP, |e| {
        e["event"] == "lab" && e["runs"] == 2
    });
    let panels = game.panels_apart("Lab", "lab");
    assert!(panels["panels"].get("errors").is_some(), "{panels}");
    game.help_keeps_two_lines("RealTime");
    drop(game);

    // Tactics: the turn panel, a unit's hint, a file error.
    std::fs::write(&map, &text).unwrap();
    let mut game = Game::start_with(&dir, &map, &["--mode", "tactics"]);
    game.wait_fitted();
    game.panels_apart("Tactics", "turn");
    let pressed = game.click(blue.x, blue.y, "1");
    game.wait_event_from(pressed, "a selection", STARTUP, |e| {
        e["event"] == "selected"
    });
    game.hover(blue.x + 1, blue.y);
    game.panels_apart("Tactics", "notice");
    std::fs::write(&map, text.replacen("[units]", "[units]\nbroken", 1)).unwrap();
    game.panels_apart("Tactics", "errors");
    game.help_keeps_two_lines("Tactics");
    drop(game);
    let _ = std::fs::remove_dir_all(dir);
}

impl Game {
    /// Checks that in `mode` the help bar kept its two lines of 13 px text in every report
    /// of the panels, whatever the notices and errors beside it (a third line would make it
    /// at least 58 px high).
    fn help_keeps_two_lines(&self, mode: &str) {
        let help: Vec<f64> = self
            .events()
            .iter()
            .filter(|e| e["event"] == "panels" && e["mode"] == mode)
            .filter_map(|e| e["panels"].get("help"))
            .map(|r| r[3].as_f64().unwrap() - r[1].as_f64().unwrap())
            .collect();
        assert!(
            !help.is_empty() && help.iter().all(|&h| h < 52.0),
            "{mode}: the help bar's heights {help:?}"
        );
    }
}

/// A small field for a tactics turn: the knight can reach the tile beside the brute.
const DUEL: &str = "board: square-4
[terrain]
..f.....ff..
..f.........
............
.....~~.....
.....~~.....
[units]
knight  blue foot  1,2
archer  blue foot  1,4  2-3
brute   red  foot  7,2
raider  red  horse 10,1
";

#[test]
#[ignore = "needs xvfb-run, mesa-vulkan-drivers, xdotool"]
fn a_tactics_turn_is_played_with_clicks_in_a_real_window() {
    let _one_window_at_a_time = WINDOWS.lock().unwrap_or_else(|e| e.into_inner());
    let dir = fresh_dir("tactics-window");
    let mut game = Game::tactics(&dir, "duel.map", DUEL);
    // Move the archer, then take the move back (Backspace): it leaves the turn log as well.
    let pressed = game.click(1, 4, "1");
    game.wait_event_from(pressed, "the archer selected", STARTUP, |e| {
        e["event"] == "selected" && e["units"] == serde_json::json!(["archer"])
    });
    let pressed = game.click(2, 4, "3");
    game.wait_event_from(pressed, "the archer's move in the turn log", STARTUP, |e| {
        e["event"] == "turn_log"
            && e["lines"] == serde_json::json!(["turn 1, blue:", "archer moves (1,4) -> (2,4)"])
    });
    let before = game.events().len();
    game.xdotool(&["key", "BackSpace"]);
    game.wait_event_from(before, "the move taken back", STARTUP, |e| {
        e["event"] == "taken_back" && e["unit"] == "archer" && e["to"] == serde_json::json!([1, 4])
    });
    game.wait_event_from(before, "the turn log without it", STARTUP, |e| {
        e["event"] == "turn_log" && e["lines"] == serde_json::json!(["turn 1, blue:"])
    });
    // Select the knight; hover its goal (the preview), right-click it: it walks there.
    let pressed = game.click(1, 2, "1");
    game.wait_event_from(pressed, "the knight selected", STARTUP, |e| {
        e["event"] == "selected" && e["units"] == serde_json::json!(["knight"])
    });
    let pressed = game.click(6, 2, "3");
    game.wait_event_from(pressed, "the move", STARTUP, |e| {
        e["event"] == "ordered" && e["goal"] == serde_json::json!([6, 2])
    });
    game.wait_event_from(pressed, "the knight beside the brute", WALK, |e| {
        e["event"] == "step" && e["unit"] == "knight" && e["tile"] == serde_json::json!([6, 2])
    });
    // Hovering the brute shows the forecast in the notice panel; picture it.
    let before = game.events().len();
    game.hover(7, 2);
    let panels = game.wait_event_from(before, "the forecast shown", STARTUP, |e| {
        e["event"] == "panels" && e["panels"].get("notice").is_some()
    });
    let shot = game.screenshot();
    let notice = &panels["panels"]["notice"];
    let [left, top, right, bottom] = std::array::from_fn(|i| notice[i].as_f64().unwrap() as i64);
    let text = (top..bottom)
        .flat_map(|y| (left..right).map(move |x| (x, y)))
        .filter(|&p| shot.pixel(p).iter().all(|&c| c > 200))
        .count();
    assert!(text >= 150, "the forecast's text: {text} light pixels");
    let (cx, cy) = game.tile_center(7, 2);
    let reach = (game.view()["tile_px"].as_f64().unwrap() * 0.4) as i64;
    let red = (-reach..=reach)
        .flat_map(|dy| (-reach..=reach).map(move |dx| (cx + dx, cy + dy)))
        .filter(|&p| {
            let p = shot.pixel(p);
            p[0] > 150 && p[0] > p[2] + 60
        })
        .count();
    assert!(
        red * 4 >= (reach * reach) as usize,
        "the brute is drawn on (7,2): {red} red pixels"
    );
    shot.keep_as("TILEWALK_FORECAST_SCREENSHOT_OUT");

    // Right-click the brute: the knight strikes, the brute strikes back.
    let pressed = game.click(7, 2, "3");
    let struck = game.wait_event_from(pressed, "the strike", STARTUP, |e| e["event"] == "struck");
    assert_eq!(struck["attacker"], "knight", "{struck}");
    assert_eq!(struck["target"], "brute", "{struck}");
    let damage = struck["damage"].as_u64().unwrap();
    assert!(damage > 0, "{struck}");
    assert_eq!(
        struck["target_hp"].as_u64().unwrap(),
        20 - damage,
        "{struck}"
    );

    // The end-turn button (the turn panel's right end): red moves, then it is blue's turn 2.
    let turn = game.view_panel("turn");
    let (x, y) = ((turn[2] - 40.0) as i64, ((turn[1] + turn[3]) / 2.0) as i64);
    let before = game.events().len();
    game.xdotool(&["mousemove", &x.to_string(), &y.to_string(), "click", "1"]);
    game.wait_event_from(before, "red's turn", STARTUP, |e| {
        e["event"] == "turn" && e["team"] == "red"
    });
    game.wait_event_from(before, "blue's turn 2", WALK, |e| {
        e["event"] == "turn" && e["number"] == 2 && e["team"] == "blue"
    });
    let red_moved = game.events_from(before).iter().any(|e| {
        (e["event"] == "step" && (e["unit"] == "raider" || e["unit"] == "brute"))
            || (e["event"] == "struck" && e["attacker"] == "brute")
    });
    assert!(red_moved, "red acted: {:?}", game.events_from(before));
    drop(game);
    let _ = std::fs::remove_dir_all(dir);
}

impl Game {
    /// A panel's rectangle `[left, top, right, bottom]` from the last report of it.
    fn view_panel(&self, name: &str) -> [f64; 4] {
        let event = self
            .events()
            .into_iter()
            .rfind(|e| e["event"] == "panels" && e["panels"].get(name).is_some())
            .expect("a panels event");
        std::array::from_fn(|i| event["panels"][name][i].as_f64().unwrap())
    }
}

/// A flyer's tactics range over grass, water, mud and forest.
const MARSH: &str = "board: square-4
[terrain]
..,,,ff...
..~~~ff...
..~~~.....
..~~~,,...
..........
[units]
griffin blue flyer 1,2
brute   red  foot  9,4
";

/// A pixel's brightness (Rec. 601 luma).
fn luma(p: [u8; 3]) -> f64 {
    0.299 * f64::from(p[0]) + 0.587 * f64::from(p[1]) + 0.114 * f64::from(p[2])
}

#[test]
#[ignore = "needs xvfb-run, mesa-vulkan-drivers, xdotool"]
fn the_tactics_range_stands_out_on_water_grass_mud_and_forest() {
    let _one_window_at_a_time = WINDOWS.lock().unwrap_or_else(|e| e.into_inner());
    let dir = fresh_dir("range-contrast");
    let mut game = Game::tactics(&dir, "marsh.map", MARSH);
    // The pointer rests on the brute's tile, outside the range, for both pictures.
    game.hover(9, 4);
    let plain = game.screenshot();
    let pressed = game.click(1, 2, "1");
    game.wait_event_from(pressed, "the griffin selected", STARTUP, |e| {
        e["event"] == "selected" && e["units"] == serde_json::json!(["griffin"])
    });
    game.hover(9, 4);
    let view = game.view();
    let ranged = game.screenshot();
    assert_eq!(game.view()["origin"], view["origin"], "the view stayed");
    ranged.keep_as("TILEWALK_RANGE_SCREENSHOT_OUT");
    // On each terrain, a tile in range differs from the same tile unselected by a clearly
    // lighter or darker line around its edge (a blue fill alone barely changes water).
    let tile_px = view["tile_px"].as_f64().unwrap();
    let half = (tile_px / 2.0) as i64;
    for (terrain, (x, y)) in [
        ("water", (3, 2)),
        ("grass", (0, 4)),
        ("mud", (3, 0)),
        ("forest", (5, 1)),
    ] {
        let (cx, cy) = game.tile_center(x, y);
        let contrasting = (-half..half)
            .flat_map(|dy| (-half..half).map(move |dx| (cx + dx, cy + dy)))
            .filter(|&p| (luma(ranged.pixel(p)) - luma(plain.pixel(p))).abs() >= 60.0)
            .count();
        assert!(
            contrasting as f64 >= 2.0 * tile_px,
            "the range on {terrain} ({x},{y}): {contrasting} contrasting pixels, a tile is \
             {tile_px} px; {}",
            ranged.path.display()
        );
    }
    drop(game);
    let _ = std::fs::remove_dir_all(dir);
}

/// Three blue soldiers and one red: three strikes of 7 remove its 20 hit points in blue's
/// first turn (each reaches a tile beside it: 3 or 4 steps of 5 points).
const ROUT: &str = "board: square-4
[terrain]
.......
.......
.......
[units]
ann  blue foot 1,0
bo   blue foot 1,1
cy   blue foot 1,2
orc  red  foot 5,1
";

impl Game {
    /// Selects the unit on `from`, moves it to `to` and strikes the unit on `target`, with
    /// real clicks; returns the strike's event.
    fn move_and_strike(&mut self, from: (u32, u32), to: (u32, u32), target: (u32, u32)) -> Value {
        let pressed = self.click(from.0, from.1, "1");
        self.wait_event_from(pressed, "a selection", STARTUP, |e| {
            e["event"] == "selected" && e["units"].as_array().is_some_and(|u| u.len() == 1)
        });
        let pressed = self.click(to.0, to.1, "3");
        let goal = serde_json::json!([to.0, to.1]);
        self.wait_event_from(pressed, "the move", STARTUP, |e| {
            e["event"] == "moved" && e["to"] == goal
        });
        let pressed = self.click(target.0, target.1, "3");
        self.wait_event_from(pressed, "the strike", STARTUP, |e| e["event"] == "struck")
    }

    /// F12, and the screenshot's pixels.
    fn screenshot(&mut self) -> Shot {
        let before = self.events().len();
        self.xdotool(&["key", "F12"]);
        let shot = self.wait_event_from(before, "the screenshot", STARTUP, |e| {
            e["event"] == "screenshot"
        });
        let path = PathBuf::from(shot["path"].as_str().unwrap());
        let (width, height, pixels) = decode(&path);
        assert_eq!((width, height), (1280, 720));
        Shot {
            path,
            width,
            pixels,
        }
    }
}

#[test]
#[ignore = "needs xvfb-run, mesa-vulkan-drivers, xdotool"]
fn a_skirmish_played_to_a_win_with_clicks_ends_with_the_winner_and_r_starts_it_again() {
    let _one_window_at_a_time = WINDOWS.lock().unwrap_or_else(|e| e.into_inner());
    let dir = fresh_dir("tactics-win");
    let mut game = Game::tactics(&dir, "rout.map", ROUT);
    let first = game.move_and_strike((1, 0), (5, 0), (5, 1));
    assert_eq!(
        (&first["attacker"], &first["target_hp"]),
        (&serde_json::json!("ann"), &serde_json::json!(13))
    );
    game.move_and_strike((1, 1), (4, 1), (5, 1));
    let last = game.move_and_strike((1, 2), (5, 2), (5, 1));
    assert_eq!(last["target"], "orc", "{last}");
    assert_eq!(last["removed"], serde_json::json!(["orc"]), "{last}");
    let won = game.wait_event("the won event", STARTUP, |e| e["event"] == "won");
    assert_eq!(won["team"], "blue");
    let banner = game.wait_event("the banner", STARTUP, |e| e["event"] == "banner");
    let text = banner["text"].as_str().unwrap();
    assert!(text.starts_with("Victory: blue wins"), "{text}");
    assert!(text.contains("R: play the map again"), "{text}");
    // The banner is on screen, over the map's middle: light blue text (blue's colour, lighter)
    // on a dark panel; no terrain or unit there is that light and that blue.
    let shot = game.screenshot();
    shot.keep_as("TILEWALK_WIN_SCREENSHOT_OUT");
    let area = &game.view()["window"];
    let (w, h) = (area[0].as_f64().unwrap(), area[1].as_f64().unwrap());
    let text = ((h * 0.3) as i64..(h * 0.6) as i64)
        .flat_map(|y| ((w * 0.3) as i64..(w * 0.7) as i64).map(move |x| (x, y)))
        .filter(|&p| {
            let p = shot.pixel(p);
            luma(p) > 150.0 && p[2] > 220 && p[2] > p[1] + 20
        })
        .count();
    assert!(text >= 300, "the banner's text: {text} light blue pixels");

    // The game is over: Enter ends no turn.
    let before = game.events().len();
    game.xdotool(&["key", "Return"]);
    game.xdotool(&["key", "F12"]);
    game.wait_event_from(before, "a screenshot after Enter", STARTUP, |e| {
        e["event"] == "screenshot"
    });
    assert!(
        !game
            .events_from(before)
            .iter()
            .any(|e| e["event"] == "turn"),
        "no turn after the game ended: {:?}",
        game.events_from(before)
    );

    // R: the same map afresh, blue's turn 1, every unit back, orders taken again.
    let before = game.events().len();
    game.xdotool(&["key", "r"]);
    game.wait_event_from(before, "the restart", STARTUP, |e| {
        e["event"] == "restarted"
    });
    game.wait_event_from(before, "turn 1 again", STARTUP, |e| {
        e["event"] == "turn" && e["number"] == 1 && e["team"] == "blue"
    });
    let again = game.wait_event_from(before, "the orc back", STARTUP, |e| {
        e["event"] == "step" && e["unit"] == "orc"
    });
    assert_eq!(again["tile"], serde_json::json!([5, 1]));
    let strike = game.move_and_strike((1, 0), (5, 0), (5, 1));
    assert_eq!(strike["target_hp"], 13, "a fresh orc: {strike}");

    // Won again, the button where "End turn" was plays the map again too.
    game.move_and_strike((1, 1), (4, 1), (5, 1));
    game.move_and_strike((1, 2), (5, 2), (5, 1));
    game.wait_event_from(before, "the second win", STARTUP, |e| e["event"] == "won");
    let turn = game.view_panel("turn");
    let (x, y) = ((turn[2] - 40.0) as i64, ((turn[1] + turn[3]) / 2.0) as i64);
    let before = game.events().len();
    game.xdotool(&["mousemove", &x.to_string(), &y.to_string(), "click", "1"]);
    game.wait_event_from(before, "the restart from the button", STARTUP, |e| {
        e["event"] == "restarted"
    });
    drop(game);
    let _ = std::fs::remove_dir_all(dir);
}

#[test]
#[ignore = "needs xvfb-run, mesa-vulkan-drivers, xdotool"]
fn after_the_enemys_turn_the_turn_log_lists_each_strike_with_its_numbers() {
    let _one_window_at_a_time = WINDOWS.lock().unwrap_or_else(|e| e.into_inner());
    let dir = fresh_dir("tactics-log");
    let mut game = Game::tactics(&dir, "duel.map", DUEL);
    // Blue only ends its turns; red's planner closes in and strikes once the trade is
    // worth it (within a few turns on this field).
    let (mut turn, mut before, mut red) = (0, 0, Vec::new());
    while turn < 6 && !red.iter().any(|e: &Value| e["event"] == "struck") {
        turn += 1;
        before = game.events().len();
        game.xdotool(&["key", "Return"]);
        game.wait_event_from(before, "blue's next turn", WALK, |e| {
            e["event"] == "turn" && e["number"] == turn + 1 && e["team"] == "blue"
        });
        // Red's moves and strikes as `--events` wrote them, each as the log words it.
        red = game
            .events_from(before)
            .into_iter()
            .filter(|e| (e["event"] == "struck" || e["event"] == "moved") && e["team"] == "red")
            .collect();
    }
    let strikes = red.iter().filter(|e| e["event"] == "struck").count();
    assert!(strikes > 0, "red struck by turn {turn}: {red:?}");
    let mut expected = vec![format!("turn {turn}, red:")];
    for e in &red {
        let at = |key: &str| format!("({},{})", e[key][0], e[key][1]);
        expected.push(if e["event"] == "moved" {
            format!("{} moves {} -> {}", e["unit"].as_str().unwrap(), at("from"), at("to"))
        } else {
            let (attacker, target) = (e["attacker"].as_str().unwrap(), e["target"].as_str().unwrap());
            let back = match e["counter"].as_u64() {
                Some(c) => format!(", {c} back"),
                None => String::new(),
            };
            let fallen = match e["removed"].as_array().map(Vec::as_slice) {
                Some([]) | None => String::new(),
                Some(names) => format!(
                    ": {} falls",
                    names.iter().map(|n| n.as_str().unwrap()).collect::<Vec<_>>().join(" and ")
                ),
            };
            format!(
                "{attacker} strikes {target}: {} damage{back} ({attacker} {} hp, {target} {} hp){fallen}",
                e["damage"], e["attacker_hp"], e["target_hp"]
            )
        });
    }
    let expected = serde_json::json!(expected);
    game.wait_event_from(before, "the turn log of red's turn", STARTUP, |e| {
        e["event"] == "turn_log" && e["lines"] == expected
    });
    let shot = game.screenshot();
    shot.keep_as("TILEWALK_LOG_SCREENSHOT_OUT");
    // It stays while the player only looks: no turn log event since.
    let last_log = game
        .events()
        .into_iter()
        .rfind(|e| e["event"] == "turn_log")
        .unwrap();
    assert_eq!(
        last_log["lines"], expected,
        "the log stays until the player acts"
    );
    drop(game);
    let _ = std::fs::remove_dir_all(dir);
}

/// The variable that makes the debug plugin's test its own child: the window app under Xvfb,
/// saving its screenshot where the variable says.
const DEBUG_CHILD: &str = "TILEWALK_DEBUG_PLUGIN_SHOT";

/// The debug plugin's scene, in the child: a 12x8 map of 40-pixel tiles centred in a
/// 640x480 window, a blue unit walking (slowly) from (1,1) to (10,1), and a red unit whose
/// order onto the rock at (10,6) is refused every frame. The screenshot is taken once the
/// path, its search and a refusal are there; the app then exits.
fn debug_plugin_scene(shot: PathBuf) {
    use bevy::prelude::*;
    use bevy::render::view::screenshot::{Screenshot, save_to_disk};
    use bevy::winit::WinitPlugin;
    use bevy_tilewalk::UnreachableGoals;
    use bevy_tilewalk::debug::{Searches, TilewalkDebugPlugin};
    use bevy_tilewalk::path::Board;
    use bevy_tilewalk::prelude::*;

    let classes = vec![ClassSpec::new("foot", 0.01)];
    let nav = Navigation::from_fn(Board::default(), 12, 8, classes, |_, p| {
        (p != Pos::new(10, 6)).then_some(1.0)
    })
    .unwrap();
    let mut app = App::new();
    app.add_plugins((
        DefaultPlugins
            .set(WindowPlugin {
                primary_window: Some(Window {
                    title: "tilewalk debug plugin".into(),
                    resolution: (640, 480).into(),
                    ..default()
                }),
                ..default()
            })
            // The test harness runs the test on a thread of its own.
            .set(WinitPlugin {
                run_on_any_thread: true,
            }),
        TilewalkPlugin::default(),
        TilewalkDebugPlugin::square(40.0, Vec2::new(-220.0, -140.0)),
    ))
    .insert_resource(nav)
    // Orders onto impassable tiles are refused (not sent as near as they can get), so the
    // scene has a refusal to draw.
    .insert_resource(UnreachableGoals::Refuse);
    let world = app.world_mut();
    world.spawn(Camera2d);
    let blue = world.spawn((Unit, Tile(Pos::new(1, 1)))).id();
    let red = world.spawn((Unit, Team::RED, Tile(Pos::new(1, 6)))).id();
    app.add_systems(
        Update,
        (move |mut commands: Commands,
               mut orders: MessageWriter<MoveOrder>,
               mut refused: MessageReader<OrderRefused>,
               searches: Res<Searches>,
               paths: Query<(), With<Path>>,
               (mut frame, mut ready_since): (Local<u32>, Local<Option<u32>>),
               mut exit: MessageWriter<AppExit>| {
            *frame += 1;
            // Both orders in one frame, once the window is up: an order clears the search
            // records of the one before.
            if *frame == 10 {
                for (unit, goal) in [(red, Pos::new(10, 6)), (blue, Pos::new(10, 1))] {
                    orders.write(MoveOrder::new([unit], goal));
                }
            }
            let ready = refused.read().count() > 0
                && paths.iter().count() == 1
                && searches.0.iter().any(|s| !s.expansions.is_empty());
            if ready && ready_since.is_none() {
                *ready_since = Some(*frame);
            }
            // A few frames on (the refusal's mark lasts two seconds): new gizmo buffers reach
            // the screen a frame after they are drawn.
            if *ready_since == Some(frame.saturating_sub(5)) {
                commands
                    .spawn(Screenshot::primary_window())
                    .observe(save_to_disk(shot.clone()));
            }
            // One frame after the file appears, for it to be written whole.
            if shot.exists() {
                exit.write(AppExit::Success);
            }
        })
        .after(TilewalkSystems::Plan),
    );
    app.run();
}

#[test]
#[ignore = "needs xvfb-run, mesa-vulkan-drivers"]
fn the_debug_plugin_draws_paths_goals_refusals_and_searches_in_a_real_window() {
    if let Some(shot) = std::env::var_os(DEBUG_CHILD) {
        debug_plugin_scene(PathBuf::from(shot));
        return;
    }
    let _one_window_at_a_time = WINDOWS.lock().unwrap_or_else(|e| e.into_inner());
    let dir = fresh_dir("debug-plugin");
    let shot = dir.join("debug.png");
    let mut child = Command::new("xvfb-run")
        .args(["-a", "-s", "-screen 0 1280x720x24"])
        .arg(std::env::current_exe().unwrap())
        .args([
            "--exact",
            "window::the_debug_plugin_draws_paths_goals_refusals_and_searches_in_a_real_window",
            "--include-ignored",
            "--nocapture",
            "--test-threads=1",
        ])
        .env(DEBUG_CHILD, &shot)
        .stdout(std::fs::File::create(dir.join("child.log")).unwrap())
        .stderr(std::fs::File::create(dir.join("child.err.log")).unwrap())
        .process_group(0)
        .spawn()
        .expect("xvfb-run starts (apt-get install xvfb mesa-vulkan-drivers)");
    let status = wait_for("the debug plugin's screenshot", STARTUP, || {
        child.try_wait().unwrap()
    });
    let log = std::fs::read_to_string(dir.join("child.err.log")).unwrap_or_default();
    assert!(status.success() && shot.exists(), "{status}: {log}");

    let (width, _, pixels) = decode(&shot);
    let pixel = |(x, y): (i64, i64)| pixels[(y * i64::from(width) + x) as usize];
    // A tile's centre on screen: the camera looks at the world's origin, y up.
    let centre = |x: u32, y: u32| {
        let world = (-220.0 + 40.0 * f64::from(x), -140.0 + 40.0 * f64::from(y));
        ((320.0 + world.0) as i64, (240.0 - world.1) as i64)
    };
    // Pixels within `r` of `(cx, cy)` that `is` holds for.
    let near = |(cx, cy): (i64, i64), r: i64, is: &dyn Fn([u8; 3]) -> bool| {
        (-r..=r)
            .flat_map(|dy| (-r..=r).map(move |dx| (cx + dx, cy + dy)))
            .filter(|&p| is(pixel(p)))
            .count()
    };
    let close = |c: bevy::color::Color| {
        let c = c.to_srgba();
        let want = [c.red, c.green, c.blue].map(|v| (v * 255.0) as i32);
        move |p: [u8; 3]| (0..3).all(|i| (i32::from(p[i]) - want[i]).abs() <= 40)
    };
    use bevy_tilewalk::debug::colors;
    let (blue, searched, refused) = (
        close(colors::BLUE),
        close(colors::SEARCHED),
        close(colors::REFUSED),
    );
    let on = |what: &str, at: (i64, i64), r: i64, is: &dyn Fn([u8; 3]) -> bool| {
        let count = near(at, r, is);
        assert!(
            count > 0,
            "no {what} within {r} px of {at:?}: {}",
            shot.display()
        );
        count
    };
    // The path runs straight along row 1: its line crosses the gap between two tiles.
    let (a, b) = (centre(5, 1), centre(6, 1));
    on("path", ((a.0 + b.0) / 2, a.1), 3, &blue);
    // The goal's ring (radius 14): above the goal's centre, where no path line runs.
    let goal = centre(10, 1);
    on("goal ring", (goal.0, goal.1 - 14), 3, &blue);
    assert_eq!(
        near((goal.0, goal.1 - 7), 3, &blue),
        0,
        "the ring is hollow"
    );
    // The search expanded the cells of the path: their 24-pixel squares' edges show above
    // and below the line.
    on("searched cell", (a.0, a.1 - 12), 3, &searched);
    on("searched cell", (a.0, a.1 + 12), 3, &searched);
    // The refused order's cross on the rock, and no cross where nothing was refused.
    let rock = centre(10, 6);
    on("refusal cross", (rock.0 + 7, rock.1 + 7), 3, &refused);
    assert_eq!(
        near(goal, 14, &refused),
        0,
        "no cross on the reachable goal"
    );
    let _ = std::fs::remove_dir_all(dir);
}

/// Writes a PNG of `width` x `height` pixels coloured by `colour(x, y)`.
fn write_png(path: &FsPath, width: u32, height: u32, colour: impl Fn(u32, u32) -> [u8; 3]) {
    let file = std::io::BufWriter::new(std::fs::File::create(path).unwrap());
    let mut encoder = png::Encoder::new(file, width, height);
    encoder.set_color(png::ColorType::Rgb);
    encoder.set_depth(png::BitDepth::Eight);
    let mut pixels = Vec::new();
    for y in 0..height {
        for x in 0..width {
            pixels.extend(colour(x, y));
        }
    }
    encoder
        .write_header()
        .unwrap()
        .write_image_data(&pixels)
        .unwrap();
}

/// An 8×6 Tiled map of the tileset at `source`: columns 0-3 its first tile, 4-7 its second.
fn two_kinds_tmx(source: &str) -> String {
    let rows = ["1,1,1,1,2,2,2,2"; 6].join(",\n");
    format!(
        r#"<?xml version="1.0" encoding="UTF-8"?>
<map version="1.10" orientation="orthogonal" renderorder="right-down" width="8" height="6" tilewidth="16" tileheight="16" infinite="0">
 <tileset firstgid="1" source="{source}"/>
 <layer id="1" name="ground" width="8" height="6">
  <data encoding="csv">
{rows}
</data>
 </layer>
</map>
"#
    )
}

#[test]
#[ignore = "needs xvfb-run, mesa-vulkan-drivers, xdotool"]
fn a_map_draws_its_tileset_from_a_sibling_folder() {
    let _one_window_at_a_time = WINDOWS.lock().unwrap_or_else(|e| e.into_inner());
    let dir = fresh_dir("sibling-tileset");
    // A Tiled project as designers lay it out: the map in maps/…, its tileset and image in
    // tiles/…, beside it.
    let (maps, tiles) = (
        dir.join("project/maps/forest"),
        dir.join("project/tiles/ground"),
    );
    std::fs::create_dir_all(&maps).unwrap();
    std::fs::create_dir_all(&tiles).unwrap();
    const ORANGE: [u8; 3] = [230, 120, 20];
    const PURPLE: [u8; 3] = [150, 40, 200];
    write_png(&tiles.join("ground.png"), 32, 16, |x, _| {
        if x < 16 { ORANGE } else { PURPLE }
    });
    std::fs::write(
        tiles.join("ground.tsx"),
        r#"<?xml version="1.0" encoding="UTF-8"?>
<tileset version="1.10" name="ground" tilewidth="16" tileheight="16" tilecount="2" columns="2">
 <image source="ground.png" width="32" height="16"/>
 <tile id="0" type="grass"/>
 <tile id="1" type="road"/>
</tileset>
"#,
    )
    .unwrap();
    // Columns 0-3 grass (orange), 4-7 road (purple).
    let map = maps.join("level.tmx");
    std::fs::write(&map, two_kinds_tmx("../../tiles/ground/ground.tsx")).unwrap();
    let mut game = Game::start(&dir, map.to_str().unwrap());
    game.wait_fitted();
    let near = |p: [u8; 3], want: [u8; 3]| p.iter().zip(want).all(|(a, b)| a.abs_diff(b) <= 12);
    // The tileset's image loads in the background: until it arrives the tiles draw nothing,
    // so screenshots are taken until the first tile shows its colour or STARTUP runs out.
    let deadline = Instant::now() + STARTUP;
    let shot = loop {
        let shot = game.screenshot();
        if near(shot.pixel(game.tile_center(0, 0)), ORANGE) || Instant::now() >= deadline {
            break shot;
        }
        std::thread::sleep(Duration::from_millis(500));
    };
    for y in 0..6 {
        for x in 0..8 {
            let want = if x < 4 { ORANGE } else { PURPLE };
            let got = shot.pixel(game.tile_center(x, y));
            assert!(
                near(got, want),
                "tile ({x},{y}) is {got:?}, the tileset draws it {want:?}; {}\n{}",
                shot.path.display(),
                game.log()
            );
        }
    }
    assert!(!game.log().contains("unapproved"), "{}", game.log());
    drop(game);
    let _ = std::fs::remove_dir_all(dir);
}

#[test]
#[ignore = "needs xvfb-run, mesa-vulkan-drivers, xdotool"]
fn a_map_that_lacks_terrain_units_and_its_image_opens_the_map_panel_and_draws_a_checker() {
    let _one_window_at_a_time = WINDOWS.lock().unwrap_or_else(|e| e.into_inner());
    let dir = fresh_dir("map-panel");
    // A map from elsewhere: its tileset's image is not there, its tiles name no terrain
    // but one, and it has no units.
    std::fs::write(
        dir.join("ground.tsx"),
        r#"<?xml version="1.0" encoding="UTF-8"?>
<tileset version="1.10" name="ground" tilewidth="16" tileheight="16" tilecount="2" columns="2">
 <image source="ground.png" width="32" height="16"/>
 <tile id="1" type="road"/>
</tileset>
"#,
    )
    .unwrap();
    let map = dir.join("level.tmx");
    std::fs::write(&map, two_kinds_tmx("ground.tsx")).unwrap();
    let mut game = Game::start(&dir, map.to_str().unwrap());
    game.wait_fitted();
    // The panel opens by itself, beside the others and off the map.
    game.panels_apart("RealTime", "map");
    // Every tile is a checker: the left and right halves of a tile are its two colours.
    // On a busy machine the first frames come before lavapipe can draw anything (black):
    // screenshots are taken until the tiles show or STARTUP runs out.
    let magenta = |p: [u8; 3]| p[0] > 150 && p[2] > 130 && p[1] < 90;
    let dark = |p: [u8; 3]| p.iter().all(|&c| c < 70);
    let tiles = [(0, 0), (3, 5), (4, 2), (7, 5)];
    let halves = |game: &Game, shot: &Shot| -> Vec<[[u8; 3]; 2]> {
        let quarter = (game.tile_center(1, 0).0 - game.tile_center(0, 0).0) / 4;
        tiles
            .iter()
            .map(|&(x, y)| {
                let (cx, cy) = game.tile_center(x, y);
                [
                    shot.pixel((cx - quarter, cy - quarter)),
                    shot.pixel((cx + quarter, cy - quarter)),
                ]
            })
            .collect()
    };
    let checker = |h: &[[u8; 3]; 2]| h.iter().any(|&p| magenta(p)) && h.iter().any(|&p| dark(p));
    let deadline = Instant::now() + STARTUP;
    let (shot, seen) = loop {
        let shot = game.screenshot();
        let seen = halves(&game, &shot);
        if seen.iter().all(checker) || Instant::now() >= deadline {
            break (shot, seen);
        }
        std::thread::sleep(Duration::from_millis(500));
    };
    for (&(x, y), tile) in tiles.iter().zip(&seen) {
        assert!(
            checker(tile),
            "tile ({x},{y}) is {tile:?}, not a checker; {}\n{}",
            shot.path.display(),
            game.log()
        );
    }
    let warned = std::fs::read_to_string(dir.join("game.err.log")).unwrap();
    assert!(
        warned.contains(
            "cannot read the image ground.png: not found (its tiles are drawn as a checker)"
        ),
        "{warned}"
    );
    // M closes the panel and opens it again.
    let before = game.events().len();
    game.xdotool(&["key", "m"]);
    game.wait_event_from(before, "the map panel closed", STARTUP, |e| {
        e["event"] == "panels" && e["panels"].get("map").is_none()
    });
    let before = game.events().len();
    game.xdotool(&["key", "m"]);
    game.wait_event_from(before, "the map panel open again", STARTUP, |e| {
        e["event"] == "panels" && e["panels"].get("map").is_some()
    });
    drop(game);
    let _ = std::fs::remove_dir_all(dir);
}

#[test]
#[ignore = "needs xvfb-run, mesa-vulkan-drivers"]
fn the_binary_alone_plays_the_built_in_meadow_from_an_empty_folder() {
    let _window = WINDOWS.lock().unwrap_or_else(|e| e.into_inner());
    // An empty folder, and nothing pointing at the repository: as `cargo install` gives it.
    let dir = fresh_dir("anywhere");
    let events = dir.join("events.jsonl");
    let mut child = Command::new("xvfb-run")
        .args(["-a", "-s", "-screen 0 1280x720x24"])
        .arg(env!("CARGO_BIN_EXE_tilewalk"))
        .args(["play", "--events", "events.jsonl"])
        .current_dir(&dir)
        .env_remove("CARGO_MANIFEST_DIR")
        .env_remove("BEVY_ASSET_ROOT")
        .stdout(std::fs::File::create(dir.join("game.log")).unwrap())
        .stderr(std::fs::File::create(dir.join("game.err.log")).unwrap())
        .process_group(0)
        .spawn()
        .expect("xvfb-run starts (apt-get install xvfb mesa-vulkan-drivers)");
    let log = || std::fs::read_to_string(dir.join("game.err.log")).unwrap_or_default();
    // The map is on screen once its level is built: the meadow, read from the binary.
    wait_for("the map on screen", STARTUP, || {
        assert!(
            child.try_wait().expect("status").is_none(),
            "the game exited:\n{}",
            log()
        );
        let text = std::fs::read_to_string(&events).ok()?;
        text.lines()
            .any(|l| l.contains("\"event\":\"view\""))
            .then_some(())
    });
    let group = format!("-{}", child.id());
    let _ = Command::new("kill").args(["-TERM", "--", &group]).status();
    let _ = child.wait();
    let log = log();
    assert!(
        log.contains("playing with the assets built into the binary"),
        "{log}"
    );
    // Every texture, table and the map came from the binary: nothing failed to load.
    assert!(!log.contains("ERROR"), "{log}");
    assert!(!dir.join("assets").exists());
    let _ = std::fs::remove_dir_all(dir);
}

/// Four blue walkers in the west of a 40-tile field, and `eve` walled in by rock.
const GROUP: &str = "board: square-4
[terrain]
........................................
........................................
........................................
........................................
###.....................................
#.#.....................................
###.....................................
[units]
ann  blue foot  1,1
bo   blue foot  2,1
cy   blue foot  1,2
di   blue foot  2,2
eve  blue foot  1,5
";

impl Game {
    /// Waits for a `hud` event after the first `from` whose notice lines `matches`.
    fn wait_hud_from(
        &mut self,
        from: usize,
        what: &str,
        matches: impl Fn(&[&str]) -> bool,
    ) -> Value {
        self.wait_event_from(from, what, STARTUP, |e| {
            e["event"] == "hud"
                && e["notice"].as_array().is_some_and(|lines| {
                    let lines: Vec<&str> = lines.iter().filter_map(Value::as_str).collect();
                    matches(&lines)
                })
        })
    }
}

impl Game {
    /// Drags a box with the left button from tile `from` to tile `to`; returns the units
    /// the game reports selected.
    fn box_select(&mut self, from: (u32, u32), to: (u32, u32)) -> Value {
        self.hover(from.0, from.1);
        let before = self.events().len();
        self.xdotool(&["mousedown", "1"]);
        let (x0, y0) = self.tile_center(from.0, from.1);
        let (x1, y1) = self.tile_center(to.0, to.1);
        let mid = ((x0 + x1) / 2, (y0 + y1) / 2);
        self.xdotool(&["mousemove", &mid.0.to_string(), &mid.1.to_string()]);
        self.xdotool(&["mousemove", &x1.to_string(), &y1.to_string()]);
        self.xdotool(&["mouseup", "1"]);
        self.wait_event_from(before, "a selection", STARTUP, |e| e["event"] == "selected")["units"]
            .clone()
    }

    /// A right click on tile `to` ordering `units` units; returns the events before it.
    fn group_order(&mut self, to: (u32, u32), units: usize) -> usize {
        let pressed = self.click(to.0, to.1, "3");
        self.wait_event_from(pressed, "the group order", STARTUP, |e| {
            e["event"] == "ordered" && e["units"].as_array().is_some_and(|u| u.len() == units)
        });
        pressed
    }
}

#[test]
#[ignore = "needs xvfb-run, mesa-vulkan-drivers, xdotool"]
fn after_a_group_order_the_top_bar_counts_the_side_and_e_and_s_say_what_they_did() {
    let _one_window_at_a_time = WINDOWS.lock().unwrap_or_else(|e| e.into_inner());
    let dir = fresh_dir("group-hud");
    let map = dir.join("group.map");
    std::fs::write(&map, GROUP).unwrap();
    let mut game = Game::start(&dir, map.to_str().unwrap());
    game.wait_fitted();
    // The four walkers, boxed, sent 35 tiles east (12 s of game time at 3 tiles a second).
    let selected = game.box_select((0, 0), (3, 3));
    assert_eq!(selected, serde_json::json!(["ann", "bo", "cy", "di"]));
    let pressed = game.group_order((36, 2), 4);
    let counted = game.wait_hud_from(pressed, "blue's side counted", |lines| {
        lines.first() == Some(&"blue 0/4 arrived · 4 walking")
    });
    // The search line says what the group order did, not one unit's search.
    let search = counted["search"].as_str().unwrap_or_default().to_owned();
    assert!(
        search.starts_with("last order: group order of 4 units to (36,2), planned at once: "),
        "{counted}"
    );
    // E: a group order has no search cells to show.
    let before = game.events().len();
    game.xdotool(&["key", "e"]);
    game.wait_hud_from(before, "E's answer", |lines| {
        lines.iter().any(|l| {
            *l == "the last order was a group order, planned for all its units at once: it has no search cells to show (an order of one unit has)"
        })
    });
    // S, while the four walk: it names them, and the side's line counts them stopped.
    let arrived: Vec<Value> = game
        .events()
        .into_iter()
        .filter(|e| e["event"] == "arrived")
        .collect();
    assert!(arrived.is_empty(), "{arrived:?}");
    let before = game.events().len();
    game.xdotool(&["key", "s"]);
    let stopped = game.wait_hud_from(before, "S's answer", |lines| {
        lines.iter().any(|l| l.starts_with("stopped "))
    });
    let lines = stopped["notice"].as_array().unwrap();
    assert!(
        lines.iter().any(|l| l == "stopped ann, bo, cy, di"),
        "{stopped}"
    );
    game.wait_hud_from(before, "the four counted stopped", |lines| {
        lines.first() == Some(&"blue 0/4 arrived · 4 stopped")
    });
    // All five, eve walled in by rock: she cannot reach the click, and the search line
    // still says what the group order did after her own search for the nearest tile.
    let selected = game.box_select((0, 0), (39, 6));
    assert_eq!(
        selected,
        serde_json::json!(["ann", "bo", "cy", "di", "eve"])
    );
    let pressed = game.group_order((36, 2), 5);
    let counted = game.wait_hud_from(pressed, "eve counted", |lines| {
        lines.first() == Some(&"blue 0/5 arrived · 4 walking · 1 cannot reach")
    });
    let search = counted["search"].as_str().unwrap_or_default().to_owned();
    assert!(
        search.starts_with("last order: group order of 5 units to (36,2), planned at once: "),
        "{counted}"
    );
    drop(game);
    let _ = std::fs::remove_dir_all(dir);
}

/// The cells of `cells` reached from `from` through their sides (a way along them that
/// any board allows), each with its distance in steps.
fn reached(cells: &std::collections::HashSet<Pos>, from: Pos) -> HashMap<Pos, u32> {
    let mut seen = HashMap::from([(from, 0)]);
    let mut queue = std::collections::VecDeque::from([from]);
    while let Some(p) = queue.pop_front() {
        let next = [
            (p.x.wrapping_sub(1), p.y),
            (p.x + 1, p.y),
            (p.x, p.y.wrapping_sub(1)),
            (p.x, p.y + 1),
        ];
        for (x, y) in next {
            let q = Pos::new(x, y);
            if cells.contains(&q) && !seen.contains_key(&q) {
                seen.insert(q, seen[&p] + 1);
                queue.push_back(q);
            }
        }
    }
    seen
}

#[test]
#[ignore = "needs xvfb-run, mesa-vulkan-drivers, xdotool"]
fn the_terrain_mode_gives_a_corpus_maps_tile_a_terrain_saves_it_and_a_unit_walks_across() {
    terrain_mode_on_the_desert("terrain-mode", false);
}

#[test]
#[ignore = "needs xvfb-run, mesa-vulkan-drivers, xdotool"]
fn the_terrain_mode_works_the_same_on_a_corpus_map_whose_tileset_image_is_missing() {
    terrain_mode_on_the_desert("terrain-mode-no-art", true);
}

/// Tiled's desert example, as Tiled ships it (no tile names a terrain), with a scout added
/// (and, `without_image`, its tileset's image left out: Tiled opens such a map and warns):
/// P, a click on the scout's cell picks the most drawn tile kind, 1 gives it grass, Ctrl+Z
/// takes it back, 1 again, Ctrl+S saves the Class into the .tsx (its other bytes and the map
/// unchanged), P leaves the mode and the scout, ordered across the kind's cells, walks on them.
fn terrain_mode_on_the_desert(test: &str, without_image: bool) {
    let _one_window_at_a_time = WINDOWS.lock().unwrap_or_else(|e| e.into_inner());
    let dir = fresh_dir(test);
    let corpus = super::assign::copied("tiled-corpus/tiled-examples", &format!("{test}-window"));
    let image = "tmw_desert_spacing.png";
    if without_image {
        std::fs::remove_file(corpus.join(image)).unwrap();
    }
    let map_path = corpus.join("desert.tmx");
    let map = tmx::read_tmx(&map_path).unwrap();
    let tiles = map.tiles.as_ref().unwrap();
    let (kind, _) = super::assign::most_drawn(tiles, map.width, map.height);
    let home = tiles.class_home(&map_path, kind).unwrap();
    assert_eq!(super::assign::tiled_class(&home).unwrap_or_default(), "");
    // A scout on the kind, and a cell of it some steps away along it.
    let cells: std::collections::HashSet<Pos> = tiles.cells_of(kind).into_iter().collect();
    let (start, distances) = cells
        .iter()
        .map(|&c| (c, reached(&cells, c)))
        .max_by_key(|(c, r)| (r.len(), std::cmp::Reverse((c.y, c.x))))
        .unwrap();
    let far = (*distances.values().max().unwrap()).min(8);
    assert!(far >= 4, "{far}");
    let goal = *distances
        .iter()
        .filter(|&(_, &d)| d == far)
        .map(|(p, _)| p)
        .min_by_key(|p| (p.y, p.x))
        .unwrap();
    let tmx_text = std::fs::read_to_string(&map_path).unwrap().replacen(
        "</map>",
        &format!(
            r#" <objectgroup id="2" name="units">
  <object id="1" name="scout" type="foot" x="{}" y="{}" width="32" height="32">
   <properties>
    <property name="team" value="blue"/>
   </properties>
  </object>
 </objectgroup>
</map>"#,
            start.x * 32,
            start.y * 32
        ),
        1,
    );
    std::fs::write(&map_path, &tmx_text).unwrap();
    let tsx_before = std::fs::read_to_string(home.file()).unwrap();
    assert!(tsx_before.contains(&format!("<image source=\"{image}\"")));
    let mut game = Game::start(&dir, map_path.to_str().unwrap());
    game.wait_fitted();
    if without_image {
        let warned = std::fs::read_to_string(dir.join("game.err.log")).unwrap();
        assert!(
            warned.contains(&format!("cannot read the image {image}: not found")),
            "{warned}"
        );
    }
    // P: the terrain mode and its panel; a click on the scout's cell picks the kind.
    game.xdotool(&["key", "p"]);
    game.panels_apart("RealTime", "terrain mode");
    let name = tiles.kind_name(kind);
    let pressed = game.click(start.x, start.y, "1");
    game.wait_hud_from(pressed, "the kind picked", |lines| {
        lines.contains(&format!("{name} picked: 1-9 or a terrain gives it one").as_str())
    });
    // 1 gives it grass; Ctrl+Z takes it back; 1 again; Ctrl+S saves.
    let cells_text = format!("{name} is grass: {} cells", cells.len());
    let before = game.events().len();
    game.xdotool(&["key", "1"]);
    game.wait_hud_from(before, "grass given", |l| l.contains(&cells_text.as_str()));
    let before = game.events().len();
    game.xdotool(&["key", "ctrl+z"]);
    let undone = format!("undone: {name} has no Class again");
    game.wait_hud_from(before, "the undo", |l| l.contains(&undone.as_str()));
    let before = game.events().len();
    game.xdotool(&["key", "1"]);
    game.wait_hud_from(before, "grass given again", |l| {
        l.contains(&cells_text.as_str())
    });
    // Ctrl+S: the notice says where it saved (in the frame of the save, before the reload
    // of the saved file says so), and the file holds it.
    let before = game.events().len();
    game.xdotool(&["key", "ctrl+s"]);
    let saved = format!(
        "saved {}",
        std::path::absolute(home.file()).unwrap().display()
    );
    game.wait_hud_from(before, "the save's notice", |l| l.contains(&saved.as_str()));
    // The tileset holds the Class, read back by the `tiled` crate; one tile entry of it
    // changed, and the map file not at all.
    assert_eq!(super::assign::tiled_class(&home).as_deref(), Some("grass"));
    let tsx_after = std::fs::read_to_string(home.file()).unwrap();
    let (removed, added) = super::assign::changed(&tsx_before, &tsx_after);
    assert!(
        removed.is_empty() && added.contains("type=\"grass\"") && added.matches('<').count() <= 1,
        "{removed:?} became {added:?}"
    );
    assert_eq!(
        std::fs::read_to_string(&map_path).unwrap(),
        tmx_text,
        "the map"
    );
    // P leaves the mode; the map area grows and the camera fits the map into it again:
    // the clicks are aimed once the game reports that view. The scout, ordered across the
    // kind's cells, walks only on them.
    let before = game.events().len();
    game.xdotool(&["key", "p"]);
    game.wait_refitted(before, "terrain mode");
    let pressed = game.click(start.x, start.y, "1");
    game.wait_event_from(pressed, "the scout selected", STARTUP, |e| {
        e["event"] == "selected" && e["units"] == serde_json::json!(["scout"])
    });
    let pressed = game.click(goal.x, goal.y, "3");
    let arrived = game.wait_event_from(pressed, "the scout's arrival", WALK, |e| {
        e["event"] == "arrived"
    });
    assert_eq!(
        arrived["tile"],
        serde_json::json!([goal.x, goal.y]),
        "{arrived}"
    );
    let steps: Vec<Pos> = game
        .events_from(pressed)
        .iter()
        .filter(|e| e["event"] == "step")
        .map(|e| {
            Pos::new(
                e["tile"][0].as_u64().unwrap() as u32,
                e["tile"][1].as_u64().unwrap() as u32,
            )
        })
        .collect();
    assert!(steps.len() as u32 >= far, "{steps:?}");
    assert!(steps.iter().all(|p| cells.contains(p)), "{steps:?}");
    drop(game);
    let _ = std::fs::remove_dir_all(dir);
    let _ = std::fs::remove_dir_all(corpus);
}

impl Game {
    /// Waits, after the first `from` events, until the game reports a layout without the
    /// `closed` panel and a view that centres the map in that layout's map area (the camera
    /// fits it again when the area changes), so that clicks are aimed from the view the
    /// player sees.
    fn wait_refitted(&mut self, from: usize, closed: &str) {
        let deadline = Instant::now() + STARTUP;
        loop {
            let events = self.events_from(from);
            let layout = events.iter().rfind(|e| {
                e["event"] == "panels"
                    && e["panels"].get(closed).is_none()
                    && !e["map_area"].is_null()
            });
            if let Some(layout) = layout {
                let area: [f64; 4] =
                    std::array::from_fn(|i| layout["map_area"][i].as_f64().unwrap_or(f64::NAN));
                let [left, top, right, bottom] = self.map_rect();
                // Centred in the area.
                if ((left + right) - (area[0] + area[2])).abs() < 3.0
                    && ((top + bottom) - (area[1] + area[3])).abs() < 3.0
                {
                    return;
                }
            }
            assert!(
                self.child.try_wait().expect("status").is_none(),
                "the game exited while waiting for the map fitted again after {closed}:\n{}",
                self.log()
            );
            assert!(
                Instant::now() < deadline,
                "timed out waiting for the map fitted again after {closed}; events: {:?}\n{}",
                self.events(),
                self.log()
            );
            std::thread::sleep(Duration::from_millis(200));
        }
    }
}

#[test]
#[ignore = "needs xvfb-run, mesa-vulkan-drivers, xdotool"]
fn the_terrain_mode_names_an_ldtk_int_grid_value_after_a_terrain_and_saves_it_in_the_project() {
    let _one_window_at_a_time = WINDOWS.lock().unwrap_or_else(|e| e.into_inner());
    let dir = fresh_dir("terrain-mode-ldtk");
    // LDtk's top-down example, as LDtk ships it: its first level's IntGrid value 1 of
    // `Collisions`, on 200 cells, is named `walls`, which is no terrain, and its 312 cells
    // without a value (the floor) have no `default_terrain`.
    let corpus = super::assign::copied("ldtk-corpus", "terrain-mode-ldtk-window");
    let project = corpus.join("Typical_TopDown_example.ldtk");
    let map = ldtk::read_ldtk(&project, None).unwrap();
    let tiles = map.tiles.as_ref().unwrap();
    let (kind, cells) = tiles
        .tile_kinds()
        .into_iter()
        .max_by_key(|&(k, n)| (n, std::cmp::Reverse(k)))
        .unwrap();
    assert_eq!(
        (tiles.kind_name(kind).as_str(), cells),
        ("IntGrid `Collisions` value 1", 200)
    );
    assert_eq!(
        tiles.no_value_kind(),
        Some((tilewalk::map::tmx::TileKindId::NO_VALUE, 312))
    );
    let home = tiles.class_home(&project, kind).unwrap();
    assert_eq!(
        super::assign::ldtk_identifier(&home).as_deref(),
        Some("walls")
    );
    let before = std::fs::read_to_string(&project).unwrap();
    let mut game = Game::start(&dir, project.to_str().unwrap());
    game.wait_fitted();
    // P; Tab picks the kind on the most cells, the floor, and 1 gives it grass; Tab picks
    // the walls and 7 gives them rock (the table's seventh terrain); Ctrl+S saves.
    game.xdotool(&["key", "p"]);
    game.panels_apart("RealTime", "terrain mode");
    for (terrain, key, given) in [
        (
            "grass",
            "1",
            "cells without an IntGrid value are grass: 312 cells, and those of IntGrid values that name no terrain",
        ),
        (
            "rock",
            "7",
            "IntGrid `Collisions` value 1 is rock: 200 cells",
        ),
    ] {
        game.xdotool(&["key", "Tab"]);
        let before_keys = game.events().len();
        game.xdotool(&["key", key]);
        game.wait_hud_from(before_keys, &format!("{terrain} given"), |l| {
            l.contains(&given)
        });
    }
    let before_save = game.events().len();
    game.xdotool(&["key", "ctrl+s"]);
    // The notice says where, in the frame of the save.
    let saved = format!("saved {}", std::path::absolute(&project).unwrap().display());
    game.wait_hud_from(before_save, "the save's notice", |l| {
        l.contains(&saved.as_str())
    });
    // serde_json reads the project back with the identifier and the level's field, the
    // only things that changed.
    assert_eq!(
        super::assign::ldtk_identifier(&home).as_deref(),
        Some("rock")
    );
    let after = std::fs::read_to_string(&project).unwrap();
    let root: Value = serde_json::from_str(&after).unwrap();
    assert_eq!(
        root["levels"][0]["fieldInstances"][0],
        super::assign::field_instance(170, "grass")
    );
    assert_eq!(
        super::assign::without_level_field(&after.replacen("\"rock\"", "\"walls\"", 1), 170),
        serde_json::from_str::<Value>(&before).unwrap()
    );
    drop(game);
    let _ = std::fs::remove_dir_all(dir);
    let _ = std::fs::remove_dir_all(corpus);
}
