#!/usr/bin/env python3
"""Takes docs/army.png: two armies of 2,500 units each (`tilewalk gen --seed 1 --width 128
--height 96 --units 2500`) box-selected and ordered across each other, a few seconds into the
march, with the HUD's frame time and the units still waiting for their paths.

    cargo build --release && python3 tools/army_picture.py docs/army.png

Runs target/release/tilewalk in Xvfb and drives it with xdotool (tools/game_driver.py).
"""

import pathlib
import subprocess
import sys
import tempfile
import time

from game_driver import ROOT, Game

BINARY = "target/release/tilewalk"


def order(game, corner, other_corner, goal):
    """Box-selects the units between two tiles and right-clicks `goal`."""
    before = len(game.events())
    game.xdotool("mousemove", *game.tile(*corner))
    game.xdotool("mousedown", "1")
    game.xdotool("mousemove", *game.tile((corner[0] + other_corner[0]) // 2, corner[1]))
    game.xdotool("mousemove", *game.tile(*other_corner))
    game.xdotool("mouseup", "1")
    game.wait("the selection", lambda e: e["event"] == "selected", after=before)
    game.xdotool("mousemove", *game.tile(*goal))
    time.sleep(0.5)
    game.xdotool("click", "3")
    game.wait("the order", lambda e: e["event"] == "ordered", after=before)


def main():
    out = pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else "docs/army.png").resolve()
    with tempfile.TemporaryDirectory() as folder:
        folder = pathlib.Path(folder)
        map_file = folder / "armies.map"
        map_file.write_bytes(
            subprocess.run(
                [ROOT / BINARY, "gen", "--seed", "1", "--width", "128", "--height", "96",
                 "--units", "2500"],
                check=True, capture_output=True,
            ).stdout
        )
        game = Game(folder, out, map_file, binary=BINARY)
        try:
            time.sleep(2.0)
            # Blue stands west of x = 50, red east of x = 78.
            order(game, (0, 0), (50, 95), (96, 30))
            order(game, (78, 0), (127, 95), (32, 66))
            time.sleep(6.0)
            game.screenshot()
        finally:
            game.stop()
    print(out)


if __name__ == "__main__":
    main()
