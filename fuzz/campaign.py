#!/usr/bin/env python3
"""A long fuzz campaign against the release binary: malformed maps (tilewalk, Moving AI, plain
grids, Tiled .tmx with their .tsx tilesets), terrain tables, tactics rules and command lines, each run in its own process under a time and memory limit.

    cargo build --release
    python3 fuzz/campaign.py --runs 100000            # from the repository root

Every run must end by itself within --timeout seconds (default 20), stay under --memory-mib
of address space (default 2048), exit with 0, 1 or 2, and never print a Rust panic. The
inputs come from a seeded generator (--seed), so a campaign is repeatable; the inputs of
every failing run are kept in --keep (default fuzz/failures/) with the command that ran them.
Python 3 standard library only.
"""

import argparse
import collections
import concurrent.futures
import json
import os
import pathlib
import random
import resource
import shutil
import signal
import subprocess
import sys
import tempfile
import time

ROOT = pathlib.Path(__file__).resolve().parent.parent
MAPS = [
    ROOT / "assets/maps" / name
    for name in ("meadow.map", "skirmish.map", "maze.map", "hex_skirmish.map", "hex_valley.map")
]
# Tiled maps and the tileset each names (copied beside the mutated map, itself maybe mutated).
TILED = [
    (ROOT / "assets/tiled/square.tmx", ROOT / "assets/tiled/terrain.tsx", ROOT / "assets/tiled/terrain.png"),
    (ROOT / "assets/tiled/hex.tmx", ROOT / "assets/tiled/terrain_hex.tsx", ROOT / "assets/tiled/terrain_hex.png"),
]
BOARDS = ["square-8", "square-4", "hex-odd-r", "hex-even-r", "hex-odd-q", "hex-even-q"]
ALGORITHMS = ["astar", "dijkstra", "bfs", "best-first", "dfs", "jps", "bidirectional", "bidirectional-dijkstra"]
TERRAIN = ROOT / "assets/terrain.ron"
RULES = ROOT / "assets/tactics.ron"
MOVINGAI = "type octile\nheight 4\nwidth 6\nmap\n@.....\n.TW...\n...S..\n......\n"
PLAIN = "OSOO\nXXOX\nOOEO\n"
UNIT_NAMES = ["knight", "archer", "lancer", "griffin", "brute", "raider", "wyvern", "nobody", ""]

# Pieces a mutation inserts: glyphs, brackets, separators, numbers a parser may choke on.
PIECES = [
    "#", "~", "?", ".", "[units]", "[terrain]", "(", ")", "[", "]", "{", ",", ":", "\n", "\r\n",
    "-", "1e308", "1e-320", "NaN", "inf", "-1", "0", "4294967296", "99999999999999999999",
    "\ufeff", "é", "\x00", "Some(", "//", "/*", "\"", "\\", " ", "\t", "type octile", "height",
    "width 1000000", "map", "blue", "red", "foot", "horse", "flyer", "1-10000", "0,0", "-1,-1",
    "board: ", "hex-odd-q", "square-4", "<", ">", "/>", "&", "&amp;", "<!--", "]]>", "=\"",
    "gid=\"9\"", "0,", "<property name=\"foot\" value=\"x\"/>", "staggeraxis=\"x\"",
]


def mutate(rng: random.Random, text: str) -> str:
    """A few random edits of `text`: characters, lines, numbers, encodings."""
    for _ in range(rng.choice([1, 1, 1, 2, 3, 6])):
        kind = rng.randrange(10)
        at = rng.randint(0, len(text))
        if kind == 0:
            text = text[:at] + text[at + rng.randint(1, 12):]
        elif kind in (1, 2):
            text = text[:at] + rng.choice(PIECES) + text[at:]
        elif kind == 3:
            lines = text.split("\n")
            i = rng.randrange(len(lines))
            lines.insert(i, lines[i] * rng.choice([1, 2, 40]))
            text = "\n".join(lines)
        elif kind == 4:
            lines = text.split("\n")
            del lines[rng.randrange(len(lines))]
            text = "\n".join(lines)
        elif kind == 5:
            lines = text.split("\n")
            rng.shuffle(lines)
            text = "\n".join(lines)
        elif kind == 6:  # a number anywhere becomes an extreme one
            digits = [i for i, c in enumerate(text) if c.isdigit()]
            if digits:
                i = rng.choice(digits)
                text = text[:i] + rng.choice(["0", "9" * 12, "4294967295", "-7", "1e309"]) + text[i + 1:]
        elif kind == 7:
            text = text[: rng.randint(0, len(text))]
        elif kind == 8:
            text = "\ufeff" + text if rng.random() < 0.5 else text.replace("\n", "\r\n")
        else:
            text = text[:at] + "".join(chr(rng.randrange(1, 0x2FF)) for _ in range(rng.randint(1, 8))) + text[at:]
    return text


def random_bytes(rng: random.Random) -> bytes:
    return bytes(rng.randrange(256) for _ in range(rng.randint(0, 2000)))


def pos(rng: random.Random) -> str:
    pick = rng.random()
    if pick < 0.9:
        return f"{rng.randint(0, 35)},{rng.randint(0, 20)}"
    return rng.choice(["-1,0", "0,-1", "4294967295,0", "1,2,3", "x,y", "", ",", "99999999999,1"])


def name(rng: random.Random) -> str:
    return rng.choice(UNIT_NAMES[:7]) if rng.random() < 0.9 else rng.choice(UNIT_NAMES)


def case(rng: random.Random, folder: pathlib.Path) -> list[str]:
    """Writes one malformed input into `folder`; returns the command line that runs it."""
    kind = rng.choices(["path", "simulate", "tactics", "gen", "bytes", "tiled"], [30, 25, 25, 5, 15, 20])[0]
    map_file = folder / "case.map"
    bases = [m.read_text(encoding="utf-8") for m in MAPS] + [MOVINGAI]
    base = rng.choice(bases + [PLAIN] if kind == "path" else bases)
    if kind == "bytes":
        map_file.write_bytes(random_bytes(rng))
        kind = rng.choice(["path", "simulate", "tactics"])
    elif kind == "tiled":
        tmx, tsx, png = rng.choice(TILED)
        map_file = folder / "case.tmx"
        map_file.write_text(mutate(rng, tmx.read_text(encoding="utf-8")) if rng.random() < 0.7 else tmx.read_text(encoding="utf-8"), encoding="utf-8", newline="")
        tileset = tsx.read_text(encoding="utf-8")
        if rng.random() < 0.4:
            tileset = mutate(rng, tileset)
        if rng.random() < 0.95:
            (folder / tsx.name).write_text(tileset, encoding="utf-8", newline="")
        shutil.copy(png, folder / png.name)
        kind = rng.choice(["path", "simulate", "tactics"])
    else:
        map_file.write_text(mutate(rng, base) if rng.random() < 0.7 else base, encoding="utf-8", newline="")
    if kind == "gen":
        size = lambda: str(rng.choice([rng.randint(-2, 40), rng.randint(0, 600), 4097, 2**32]))
        return ["gen", "--seed", str(rng.randint(0, 2**64 - 1)), "--width", size(), "--height", size()]
    args = [kind, "--map", str(map_file)]
    if rng.random() < 0.3:
        terrain = folder / "terrain.ron"
        terrain.write_text(mutate(rng, TERRAIN.read_text(encoding="utf-8")), encoding="utf-8", newline="")
        args += ["--terrain", str(terrain)]
    if kind == "path":
        args += ["--from", pos(rng), "--to", pos(rng)]
        if rng.random() < 0.5:
            args += ["--algorithm", rng.choice(ALGORITHMS * 4 + ["zzz"])]
        if rng.random() < 0.2:
            args += ["--board", rng.choice(BOARDS * 4 + ["hex"])]
        if rng.random() < 0.3:
            args += ["--diagonal", rng.choice(["never", "no-obstacles", "one-obstacle", "always"] * 4 + ["x"])]
        if rng.random() < 0.3:
            args += ["--class", rng.choice(["foot", "horse", "flyer"] * 4 + ["boat"])]
        if rng.random() < 0.5:
            args.append("--json")
    elif kind == "simulate":
        for _ in range(rng.randint(0, 4)):
            args += ["--order", f"{name(rng)}:{pos(rng)}"]
        args += ["--seconds", rng.choice(["0", "1", "5"] + ["10"] * 12 + ["-1", "NaN", "1e300"])]
        if rng.random() < 0.5:
            args.append("--json")
    else:
        if rng.random() < 0.5:
            rules = folder / "tactics.ron"
            rules.write_text(mutate(rng, RULES.read_text(encoding="utf-8")), encoding="utf-8", newline="")
            args += ["--rules", str(rules)]
        for _ in range(rng.randint(0, 5)):
            action = rng.choice(["--range", "--attack", "--move", "--end-turn", "--threat"] * 6 + ["--jump"])
            args.append(action)
            if action in ("--range", "--attack"):
                args.append(name(rng))
            elif action == "--move":
                args.append(f"{name(rng)}:{pos(rng)}")
            elif action == "--threat":
                args.append(rng.choice(["blue", "red"] * 4 + ["green"]))
    return args


def limit(memory_mib: int):
    def apply():
        size = memory_mib << 20
        resource.setrlimit(resource.RLIMIT_AS, (size, size))
        os.setsid()
    return apply


def run_one(binary: str, seed: int, args_in: argparse.Namespace) -> tuple[str, list[str], float, str]:
    """Runs case `seed`; returns (outcome, command, seconds, stderr tail)."""
    rng = random.Random(seed)
    folder = pathlib.Path(tempfile.mkdtemp(prefix="tilewalk-fuzz-"))
    try:
        args = case(rng, folder)
        started = time.monotonic()
        try:
            done = subprocess.run(
                [binary, *args], cwd=ROOT, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                stderr=subprocess.PIPE, timeout=args_in.timeout, preexec_fn=limit(args_in.memory_mib),
            )
        except subprocess.TimeoutExpired as timeout:
            outcome, stderr = "hang", (timeout.stderr or b"")
        else:
            stderr = done.stderr
            code = done.returncode
            text = stderr.decode("utf-8", "replace")
            if "panicked" in text:
                outcome = "panic"
            elif "memory allocation" in text or code in (-signal.SIGKILL, -signal.SIGABRT, -signal.SIGSEGV):
                outcome = "memory"
            elif code in (0, 1, 2):
                outcome = f"exit {code}"
            else:
                outcome = f"odd exit {code}"
        seconds = time.monotonic() - started
        bad = not outcome.startswith("exit")
        if bad and args_in.keep:
            keep = pathlib.Path(args_in.keep) / f"case-{seed}"
            shutil.copytree(folder, keep, dirs_exist_ok=True)
            (keep / "command.json").write_text(json.dumps([binary, *args]))
        return outcome, args, seconds, stderr.decode("utf-8", "replace")[-400:]
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--binary", default=str(ROOT / "target/release/tilewalk"))
    parser.add_argument("--runs", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--timeout", type=float, default=20.0)
    parser.add_argument("--memory-mib", type=int, default=2048)
    parser.add_argument("--keep", default=str(ROOT / "fuzz/failures"))
    args = parser.parse_args()
    if not os.access(args.binary, os.X_OK):
        print(f"no binary at {args.binary}: run `cargo build --release` first", file=sys.stderr)
        return 2
    outcomes: collections.Counter[str] = collections.Counter()
    commands: collections.Counter[str] = collections.Counter()
    slowest = (0.0, [])
    started = time.monotonic()
    with concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
        seeds = range(args.seed * 10**9, args.seed * 10**9 + args.runs)
        for i, (outcome, command, seconds, stderr) in enumerate(
            pool.map(lambda s: run_one(args.binary, s, args), seeds, chunksize=16)
        ):
            outcomes[outcome] += 1
            commands[command[0]] += 1
            slowest = max(slowest, (seconds, command))
            if not outcome.startswith("exit"):
                print(f"{outcome}: {' '.join(command)}\n{stderr}", file=sys.stderr)
            if (i + 1) % 5000 == 0:
                print(f"{i + 1} runs, {dict(outcomes)}", file=sys.stderr)
    failures = sum(n for o, n in outcomes.items() if not o.startswith("exit"))
    print(json.dumps({
        "runs": args.runs, "failures": failures, "outcomes": dict(outcomes), "commands": dict(commands),
        "slowest_s": round(slowest[0], 2), "slowest": slowest[1], "wall_s": round(time.monotonic() - started, 1),
    }))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
