#!/usr/bin/env python3
"""Retakes docs/large.png: large.map zoomed in, the blue units box-selected and ordered east,
so the picture shows the unit sprites, each path's own tint, the preview of the lead's way to
the tile under the pointer, the selection named in the HUD and the minimap.

    cargo build && python3 tools/screenshot_large.py docs/large.png

Runs target/debug/tilewalk in Xvfb and drives it with xdotool (tools/game_driver.py).
"""

import pathlib
import sys
import tempfile
import time

from game_driver import ROOT, Game


def main():
    out = pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else "docs/large.png").resolve()
    with tempfile.TemporaryDirectory() as folder:
        game = Game(pathlib.Path(folder), out, ROOT / "assets/maps/large.map")
        try:
            game.zoom_in(6, 64, 4)
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
            time.sleep(1.5)
            game.screenshot()
        finally:
            game.stop()
    print(out)


if __name__ == "__main__":
    main()
