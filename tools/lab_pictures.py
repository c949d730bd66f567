#!/usr/bin/env python3
"""Retakes the pictures of docs/pathfinding.md and docs/tactics.md with the game itself:

    docs/lab.png                A* half way through a search on the meadow, zoomed in (g, h, f)
    docs/lab-compare.png        compare on assets/maps/corner.map: octile against Manhattan
    docs/lab-bidirectional.png  bidirectional A* across the meadow's river, at its stop
    docs/tactics.png            tactics mode: the knight's range and reach beside the enemy

    cargo build && python3 tools/lab_pictures.py [NAME ...]

Runs target/debug/tilewalk in Xvfb (apt-get install -y xvfb mesa-vulkan-drivers xdotool) and
drives it with xdotool, waiting on the game's --events lines. Python 3 standard library only.
"""

import json
import os
import pathlib
import re
import signal
import subprocess
import sys
import tempfile
import time

ROOT = pathlib.Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"


class Game:
    def __init__(self, folder, out, map_file, *more):
        self.events_file = folder / "events.jsonl"
        display_file = folder / "display"
        self.process = subprocess.Popen(
            [
                "xvfb-run", "-a", "-s", "-screen 0 1280x720x24", "sh", "-c",
                f'printf "%s\\n%s\\n" "$DISPLAY" "$XAUTHORITY" > {display_file}; exec "$0" "$@"',
                str(ROOT / "target/debug/tilewalk"), "play", "--map", str(map_file),
                "--events", str(self.events_file), "--screenshot", str(out), *more,
            ],
            cwd=ROOT,
            stdout=subprocess.DEVNULL,
            stderr=open(folder / "game.err.log", "w"),
            start_new_session=True,
        )
        # The first view is before the camera fits the map; wait for the fitted one.
        self.wait("the map fitted", lambda e: e["event"] == "view" and e["origin"][1] > 0)
        display, xauthority = display_file.read_text().split("\n")[:2]
        self.env = dict(os.environ, DISPLAY=display, XAUTHORITY=xauthority)
        # Keys reach the window only once it has the keyboard focus.
        window = self.xdotool("search", "--sync", "--name", "^tilewalk").split()[0]
        self.xdotool("windowfocus", "--sync", window)

    def events(self):
        if not self.events_file.exists():
            return []
        return [json.loads(line) for line in self.events_file.read_text().splitlines() if line]

    def wait(self, what, matches, timeout=120):
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            found = [e for e in self.events() if matches(e)]
            if found:
                return found[-1]
            time.sleep(0.2)
        sys.exit(f"timed out waiting for {what}")

    def lab(self):
        return [e for e in self.events() if e["event"] == "lab"][-1]

    def xdotool(self, *args):
        return subprocess.run(
            ["xdotool", *args], env=self.env, check=True, capture_output=True, text=True
        ).stdout

    def tile(self, x, y):
        """The window pixel at the centre of square tile (x, y), from the last view event."""
        view = [e for e in self.events() if e["event"] == "view"][-1]
        size = view["tile_px"]
        return (
            str(int(view["origin"][0] + (x + 0.5) * size)),
            str(int(view["origin"][1] + (y + 0.5) * size)),
        )

    def key(self, name, then=None):
        """Presses a key and, if given, waits for a lab event that `then` accepts."""
        self.xdotool("key", name)
        if then:
            self.wait(f"{name} to act", lambda e: e["event"] == "lab" and then(e))

    def zoom_in(self, x, y, notches):
        self.xdotool("mousemove", *self.tile(x, y))
        for _ in range(notches):
            before = len(self.events())
            self.xdotool("click", "4")  # wheel up: zoom in toward the cursor
            self.wait("the zoom", lambda e: e["event"] == "view" and len(self.events()) > before)

    def screenshot(self):
        before = len(self.events())
        time.sleep(1.0)  # a few frames for the gizmos
        self.xdotool("key", "F12")
        self.wait("the screenshot", lambda e: e["event"] == "screenshot" and len(self.events()) > before)

    def stop(self):
        os.killpg(self.process.pid, signal.SIGTERM)


def lab(folder, out):
    meadow = ROOT / "assets/maps/meadow.map"
    game = Game(folder, out, meadow, "--mode", "lab", "--from", "7,5", "--to", "14,8")
    try:
        game.wait("the search", lambda e: e["event"] == "lab" and e["step"] == e["events"] > 0)
        game.zoom_in(10, 6, 3)
        game.key("Prior", lambda e: e["step"] == 0)
        for step in range(1, 81):
            game.key("period", lambda e, s=step: e["step"] == s)
        game.xdotool("mousemove", "5", "5")
        game.screenshot()
    finally:
        game.stop()


def compare(folder, out):
    corner = ROOT / "assets/maps/corner.map"
    game = Game(folder, out, corner, "--mode", "lab", "--from", "0,0", "--to", "4,4")
    try:
        game.wait("the search", lambda e: e["event"] == "lab" and e["cost"] is not None)
        game.key("v")
        time.sleep(1.0)
        game.xdotool("mousemove", "5", "5")
        game.screenshot()
    finally:
        game.stop()


def bidirectional(folder, out):
    meadow = ROOT / "assets/maps/meadow.map"
    game = Game(folder, out, meadow, "--mode", "lab", "--from", "2,5", "--to", "24,12")
    try:
        game.wait("the search", lambda e: e["event"] == "lab" and e["cost"] is not None)
        game.key("g", lambda e: e["search"].startswith("A* w"))
        game.key("g", lambda e: e["search"].startswith("bidir. A*"))
        game.xdotool("mousemove", "5", "5")
        game.screenshot()
    finally:
        game.stop()


def tactics(folder, out):
    # The skirmish with the knight brought up to the river, facing the brute across it.
    text = (ROOT / "assets/maps/skirmish.map").read_text()
    text = re.sub(r"(?m)^knight(\s+blue\s+foot\s+)2,5", r"knight\g<1>14,5", text)
    text = re.sub(r"(?m)^brute(\s+red\s+foot\s+)21,5", r"brute\g<1>17,5", text)
    skirmish = folder / "skirmish.map"
    skirmish.write_text(text)
    game = Game(folder, out, skirmish, "--mode", "tactics")
    try:
        game.xdotool("mousemove", *game.tile(14, 5))
        time.sleep(0.5)
        game.xdotool("click", "1")
        game.wait("the selection", lambda e: e["event"] == "selected" and e["units"] == ["knight"])
        game.xdotool("mousemove", *game.tile(15, 7))
        game.screenshot()
    finally:
        game.stop()


PICTURES = {"lab": lab, "lab-compare": compare, "lab-bidirectional": bidirectional, "tactics": tactics}


def main():
    names = sys.argv[1:] or list(PICTURES)
    for name in names:
        out = DOCS / f"{name}.png"
        with tempfile.TemporaryDirectory() as folder:
            PICTURES[name](pathlib.Path(folder), out)
        print(out)


if __name__ == "__main__":
    main()
