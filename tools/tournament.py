#!/usr/bin/env python3
"""The tactics AI tournament: `tilewalk duel` on generated fair skirmishes (`tilewalk gen
--skirmish`), for each seed of a range on each board, with a unit count drawn from the seed
(6 to 20 a side), two games a map (each AI plays each side once). Prints a Markdown table:
per board, the games each AI won, the draws, and the games blue and red won; then the totals.

    python3 tools/tournament.py BINARY AI AGAINST FIRST_SEED LAST_SEED [TURNS]

e.g. `python3 tools/tournament.py target/debug/tilewalk planner greedy 1001 1034` plays
3 boards x 34 seeds x 2 games = 204 games. Standard library only.
"""

import json
import subprocess
import sys
import tempfile
from pathlib import Path

BOARDS = ["square-8", "square-4", "hex-odd-r"]


def units_for(seed):
    # 6 to 20 a side, from the seed (not a random draw: the same row of the table each run).
    return 6 + (seed * 7919) % 15


def main():
    if len(sys.argv) not in (6, 7):
        sys.exit(__doc__)
    binary, ai, against = sys.argv[1], sys.argv[2], sys.argv[3]
    first, last = int(sys.argv[4]), int(sys.argv[5])
    turns = sys.argv[6] if len(sys.argv) == 7 else "50"
    rows = []
    with tempfile.TemporaryDirectory() as folder:
        for board in BOARDS:
            row = {"board": board, "games": 0, ai: 0, against: 0, "draws": 0, "blue": 0, "red": 0}
            for seed in range(first, last + 1):
                path = Path(folder) / f"{board}-{seed}.map"
                subprocess.run(
                    [binary, "gen", "--skirmish", "--seed", str(seed), "--board", board,
                     "--units", str(units_for(seed)), "--out", str(path)],
                    check=True,
                )
                out = subprocess.run(
                    [binary, "duel", "--map", str(path), "--ai", ai, "--against", against,
                     "--games", "2", "--turns", turns],
                    check=True, capture_output=True, text=True,
                ).stdout
                for line in out.splitlines():
                    game = json.loads(line)
                    if "game" not in game:
                        continue
                    row["games"] += 1
                    winner = game["winner"]
                    if winner is None:
                        row["draws"] += 1
                    else:
                        row[winner] += 1
                        if ai != against:
                            row[game[winner]] += 1
            rows.append(row)
    total = {k: sum(r[k] for r in rows) for k in rows[0] if k != "board"}
    total["board"] = "all"
    names = [ai] if ai == against else [ai, against]
    head = ["board", "games"] + [f"{n} won" for n in names] + ["draws", "blue won", "red won"]
    print("| " + " | ".join(head) + " |")
    print("|" + "---|" * len(head))
    for row in rows + [total]:
        games = row["games"]
        pct = lambda n: f"{row[n]} ({100 * row[n] / games:.0f}%)"
        cells = [row["board"], str(games)]
        if ai != against:
            cells += [pct(ai), pct(against)]
        else:
            cells += [str(row["blue"] + row["red"])]
        cells += [str(row["draws"]), pct("blue"), pct("red")]
        print("| " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()
