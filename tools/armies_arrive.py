#!/usr/bin/env python3
"""Two armies of 1,500 a side in the window, as a player sends them: `tilewalk gen --seed 9
--width 128 --height 96 --units 1500`, each army box-selected whole and right-clicked across
the map (blue to the grass nearest (107,48), red to the grass nearest (21,48): the flow
example's goals for its armies). Every 30 s of wall time prints how many units of each side
have arrived (a unit's first `arrived` event), the last arrival's game time and the frame
rate; stops when every unit has arrived or after WALL_SECONDS (default 2,100), takes a
screenshot, and prints the arrivals by game time after the orders.

    python3 tools/armies_arrive.py [BINARY] [WALL_SECONDS] [SCREENSHOT]

BINARY defaults to target/debug/tilewalk. Needs xvfb, mesa-vulkan-drivers and xdotool
(tools/game_driver.py). Python 3 standard library only.
"""

import pathlib
import subprocess
import sys
import tempfile
import time

from game_driver import ROOT, Game

WIDTH, HEIGHT = 128, 96


def pixel(game, fx, fy):
    """The window pixel of map point (fx, fy), in tiles from the map's top-left corner."""
    view = [e for e in game.events() if e["event"] == "view"][-1]
    size = view["tile_px"]
    return str(int(view["origin"][0] + fx * size)), str(int(view["origin"][1] + fy * size))


def box_select(game, a, b):
    """Drags from map point a to map point b (they may be the map's very corners, so that
    the edge columns' units are inside the box) and returns the selected units' names."""
    before = len(game.events())
    game.xdotool("mousemove", *pixel(game, *a))
    time.sleep(0.5)
    game.xdotool("mousedown", "1")
    time.sleep(0.5)
    game.xdotool("mousemove", *pixel(game, (a[0] + b[0]) / 2, (a[1] + b[1]) / 2))
    time.sleep(0.5)
    game.xdotool("mousemove", *pixel(game, *b))
    time.sleep(1.0)
    game.xdotool("mouseup", "1")
    return game.wait("the selection", lambda e: e["event"] == "selected", after=before)["units"]


def order(game, corner, other, goal):
    names = box_select(game, corner, other)
    before = len(game.events())
    game.point(*goal)
    game.xdotool("click", "3")
    game.wait("the order", lambda e: e["event"] == "ordered", after=before)
    return names


def grass_nearest(rows, tx, ty):
    return min(
        ((x, y) for y in range(HEIGHT) for x in range(WIDTH) if rows[y][x] == "."),
        key=lambda p: ((p[0] - tx) ** 2 + (p[1] - ty) ** 2, p[1], p[0]),
    )


def first_arrivals(game):
    first = {}
    for e in game.events():
        if e["event"] == "arrived":
            first.setdefault(e["unit"], e["seconds"])
    return first


def main():
    binary = sys.argv[1] if len(sys.argv) > 1 else "target/debug/tilewalk"
    wall = float(sys.argv[2]) if len(sys.argv) > 2 else 2100.0
    with tempfile.TemporaryDirectory() as folder:
        folder = pathlib.Path(folder)
        out = pathlib.Path(sys.argv[3]).resolve() if len(sys.argv) > 3 else folder / "end.png"
        map_file = folder / "armies.map"
        map_file.write_bytes(
            subprocess.run(
                [ROOT / binary, "gen", "--seed", "9", "--width", str(WIDTH), "--height",
                 str(HEIGHT), "--units", "1500"],
                check=True, capture_output=True,
            ).stdout
        )
        rows = map_file.read_text().split("[terrain]\n")[1].split("\n")[:HEIGHT]
        game = Game(folder, out, map_file, binary=binary)
        try:
            time.sleep(3.0)
            blue = set(order(game, (0.02, 0.02), (60, HEIGHT - 0.02), grass_nearest(rows, 107, 48)))
            red = order(game, (WIDTH - 0.02, HEIGHT - 0.02), (68, 0.02), grass_nearest(rows, 21, 48))
            print(f"ordered {len(blue)} blue and {len(red)} red units", flush=True)
            start = time.monotonic()
            while time.monotonic() - start < wall:
                time.sleep(30)
                first = first_arrivals(game)
                b = len(first.keys() & blue)
                frames = [e for e in game.events() if e["event"] == "frames"][-1:]
                print(f"{time.monotonic() - start:.0f} s: blue {b}, red {len(first) - b} arrived; "
                      f"last at {max(first.values(), default=0):.1f} s of game time; {frames}",
                      flush=True)
                if len(first) >= len(blue) + len(red):
                    break
            game.screenshot()
            first = first_arrivals(game)
        finally:
            game.stop()
    # On this map 17 red units are walled in by rock and arrive short of the goal the moment
    # red is ordered: the earliest arrival is red's order's game time (blue's a few seconds
    # before it).
    ordered = min(first.values())
    for after in (60, 120, 210, 300, 600, 900):
        b = sum(1 for unit, t in first.items() if unit in blue and t <= ordered + after)
        r = sum(1 for unit, t in first.items() if unit not in blue and t <= ordered + after)
        print(f"{after} s after the orders: blue {b}, red {r}")


if __name__ == "__main__":
    main()
