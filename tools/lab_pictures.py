#!/usr/bin/env python3
"""Retakes the pictures of docs/pathfinding.md and docs/tactics.md with the game itself:

    docs/lab.png                A* half way through a search on the meadow, zoomed in (g, h, f)
    docs/lab-compare.png        compare on assets/maps/corner.map: octile against Manhattan
    docs/lab-bidirectional.png  bidirectional A* across the meadow's river, at its stop
    docs/tactics.png            tactics mode: the knight's range and reach beside the enemy

    cargo build && python3 tools/lab_pictures.py [NAME ...]

Runs target/debug/tilewalk in Xvfb and drives it with xdotool (tools/game_driver.py).
"""

import pathlib
import re
import sys
import tempfile
import time

from game_driver import ROOT, Game

DOCS = ROOT / "docs"


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
