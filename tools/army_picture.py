#!/usr/bin/env python3
"""Takes docs/army.png: two armies of 2,500 units each (`tilewalk gen --seed 1 --width 128
--height 96 --units 2500`), each box-selected and ordered across the other, a few seconds into
the march, with the HUD's frame time and the units still waiting for their paths. Prints the
game's frame rate (its `frames` events) before the orders and during the march.

    cargo build --release && python3 tools/army_picture.py docs/army.png [UNITS_A_SIDE]

Runs target/release/tilewalk in Xvfb and drives it with xdotool (tools/game_driver.py).
"""

import pathlib
import subprocess
import sys
import tempfile
import time

from game_driver import ROOT, Game

BINARY = "target/release/tilewalk"
MARCH_SECONDS = 8.0


def order(game, corner, other_corner, goal):
    """Box-selects the units between two tiles and right-clicks `goal`; returns how many."""
    names = game.drag_select(corner, other_corner)
    before = len(game.events())
    game.point(*goal)
    game.xdotool("click", "3")
    game.wait("the order", lambda e: e["event"] == "ordered", after=before)
    return len(names)


def frame_rates(game, after):
    """The frames events after the first `after` events, as "fps (worst frame ms)"."""
    return [f'{e["fps"]} ({e["worst_ms"]} ms)' for e in game.events()[after:]
            if e["event"] == "frames"]


def main():
    out = pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else "docs/army.png").resolve()
    side = sys.argv[2] if len(sys.argv) > 2 else "2500"
    with tempfile.TemporaryDirectory() as folder:
        folder = pathlib.Path(folder)
        map_file = folder / "armies.map"
        map_file.write_bytes(
            subprocess.run(
                [ROOT / BINARY, "gen", "--seed", "1", "--width", "128", "--height", "96",
                 "--units", side],
                check=True, capture_output=True,
            ).stdout
        )
        game = Game(folder, out, map_file, binary=BINARY)
        try:
            time.sleep(3.0)
            print("standing:", ", ".join(frame_rates(game, 0)[-3:]))
            # Blue stands in the west, red in the east.
            blue = order(game, (0, 1), (55, 94), (100, 40))
            before = len(game.events())
            red = order(game, (72, 1), (127, 94), (28, 56))
            print(f"ordered {blue} blue and {red} red units")
            time.sleep(MARCH_SECONDS)
            game.screenshot()
            print("marching:", ", ".join(frame_rates(game, before)))
        finally:
            game.stop()
    print(out)


if __name__ == "__main__":
    main()
