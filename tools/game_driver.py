"""The real game under Xvfb, driven by xdotool: the pictures in docs/ are taken with it
(tools/lab_pictures.py, tools/screenshot_large.py, tools/army_picture.py). It waits on the
game's --events lines, never on the clock alone. Needs target/debug/tilewalk (cargo build; or
the binary given) and apt-get install -y xvfb mesa-vulkan-drivers xdotool. Python 3 standard
library only.
"""

import json
import os
import pathlib
import signal
import subprocess
import sys
import time

ROOT = pathlib.Path(__file__).resolve().parent.parent


class Game:
    def __init__(self, folder, out, map_file, *more, binary="target/debug/tilewalk"):
        self.events_file = folder / "events.jsonl"
        display_file = folder / "display"
        self.process = subprocess.Popen(
            [
                "xvfb-run", "-a", "-s", "-screen 0 1280x720x24", "sh", "-c",
                f'printf "%s\\n%s\\n" "$DISPLAY" "$XAUTHORITY" > {display_file}; exec "$0" "$@"',
                str(ROOT / binary), "play", "--map", str(map_file),
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
        text = self.events_file.read_text()
        # The game may be writing the last line right now: only whole lines count.
        lines = text.split("\n")[:-1]
        return [json.loads(line) for line in lines if line]

    def wait(self, what, matches, after=0, timeout=120):
        """The last event, of those after the first `after`, that `matches`; waits for one."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            found = [e for e in self.events()[after:] if matches(e)]
            if found:
                return found[-1]
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

    def point(self, x, y):
        """Moves the pointer to square tile (x, y) and waits until the game has seen it there."""
        before = len(self.events())
        self.xdotool("mousemove", *self.tile(x, y))
        self.wait(f"the pointer on ({x}, {y})", lambda e: e["event"] == "hover" and e["tile"] == [x, y], after=before)

    def drag_select(self, corner, other):
        """Box-selects the units between two tiles with a left-button drag; returns their names.
        Each step waits for the game to see the pointer, so a slow frame cannot merge the press
        and the release into one frame (which would be a click)."""
        self.point(*corner)
        before = len(self.events())
        self.xdotool("mousedown", "1")
        self.point(corner[0] + 1, corner[1] + 1)
        self.point(*other)
        self.xdotool("mouseup", "1")
        return self.wait("the selection", lambda e: e["event"] == "selected", after=before)["units"]

    def key(self, name, then=None):
        """Presses a key and, if given, waits for a later lab event that `then` accepts."""
        before = len(self.events())
        self.xdotool("key", name)
        if then:
            self.wait(f"{name} to act", lambda e: e["event"] == "lab" and then(e), after=before)

    def zoom_in(self, x, y, notches):
        self.xdotool("mousemove", *self.tile(x, y))
        for _ in range(notches):
            before = len(self.events())
            self.xdotool("click", "4")  # wheel up: zoom in toward the cursor
            self.wait("the zoom", lambda e: e["event"] == "view", after=before)

    def screenshot(self):
        before = len(self.events())
        time.sleep(1.0)  # a few frames for the gizmos
        self.xdotool("key", "F12")
        self.wait("the screenshot", lambda e: e["event"] == "screenshot", after=before)

    def stop(self):
        os.killpg(self.process.pid, signal.SIGTERM)
