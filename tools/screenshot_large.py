#!/usr/bin/env python3
"""Retakes docs/large.png: large.map zoomed in, the blue units box-selected and ordered east,
so the picture shows the unit sprites, the names, each path's own tint and the minimap.

    cargo build && python3 tools/screenshot_large.py docs/large.png

Runs target/debug/tilewalk in Xvfb (apt-get install -y xvfb mesa-vulkan-drivers xdotool) and
drives it with xdotool, waiting on the game's --events lines. Python 3 standard library only.
"""

import json
import os
import pathlib
import signal
import subprocess
import sys
import tempfile
import time

ROOT = pathlib.Path(__file__).resolve().parent.parent


class Game:
    def __init__(self, folder, out):
        self.events_file = folder / "events.jsonl"
        display_file = folder / "display"
        self.process = subprocess.Popen(
            [
                "xvfb-run", "-a", "-s", "-screen 0 1280x720x24", "sh", "-c",
                f'printf "%s\\n%s\\n" "$DISPLAY" "$XAUTHORITY" > {display_file}; exec "$0" "$@"',
                str(ROOT / "target/debug/tilewalk"), "play",
                "--map", str(ROOT / "assets/maps/large.map"),
                "--events", str(self.events_file), "--screenshot", str(out),
            ],
            cwd=ROOT,
            stdout=subprocess.DEVNULL,
            stderr=open(folder / "game.err.log", "w"),
            start_new_session=True,
        )
        self.wait("the first view", lambda e: e["event"] == "view")
        display, xauthority = display_file.read_text().split("\n")[:2]
        self.env = dict(os.environ, DISPLAY=display, XAUTHORITY=xauthority)

    def events(self):
        if not self.events_file.exists():
            return []
        return [json.loads(line) for line in self.events_file.read_text().splitlines() if line]

    def wait(self, what, matches, timeout=60):
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if any(matches(e) for e in self.events()):
                return
            time.sleep(0.2)
        sys.exit(f"timed out waiting for {what}")

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

    def stop(self):
        os.killpg(self.process.pid, signal.SIGTERM)


def main():
    out = pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else "docs/large.png").resolve()
    with tempfile.TemporaryDirectory() as folder:
        game = Game(pathlib.Path(folder), out)
        try:
            game.xdotool("mousemove", *game.tile(6, 64))
            for _ in range(4):
                game.xdotool("click", "4")  # wheel up: zoom in toward the cursor
                time.sleep(0.3)
            time.sleep(1.5)
            game.xdotool("mousemove", *game.tile(1, 61))
            game.xdotool("mousedown", "1")
            game.xdotool("mousemove", *game.tile(4, 64))
            game.xdotool("mousemove", *game.tile(7, 67))
            game.xdotool("mouseup", "1")
            game.wait("the selection", lambda e: e["event"] == "selected")
            game.xdotool("mousemove", *game.tile(24, 60))
            time.sleep(0.5)
            game.xdotool("click", "3")
            game.wait("the order", lambda e: e["event"] == "ordered")
            time.sleep(2.5)
            # Keys reach the window only once it has the keyboard focus.
            window = game.xdotool("search", "--name", "tilewalk").split()[0]
            game.xdotool("windowfocus", window)
            game.xdotool("key", "F12")
            game.wait("the screenshot", lambda e: e["event"] == "screenshot")
        finally:
            game.stop()
    print(out)


if __name__ == "__main__":
    main()
