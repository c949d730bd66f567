#!/usr/bin/env python3
"""Finds import circles among the game's simulation modules.

Reads every `.rs` file under `src/`, maps it to its top-level module (`src/level/mod.rs` and
`src/level/files.rs` are both `level`), collects the `crate::NAME` paths it uses (in `use`
lines and inline paths alike), and looks for cycles in that graph restricted to the
simulation modules. Prints each cycle and exits 1 when there is one, 0 otherwise.

    python3 tools/import_cycles.py            # from the repository root
"""

import pathlib
import re
import sys

# The modules that must form a layered graph: plain types at the bottom, systems above.
SIMULATION = [
    "assets", "units", "terrain", "map", "level", "pathing", "movement", "tactics", "journal",
    "headless",
]

CRATE_PATH = re.compile(r"\bcrate::(\w+)")
USE_GROUP = re.compile(r"\bcrate::\{([^}]*)\}")


def module_of(path: pathlib.Path, src: pathlib.Path) -> str:
    parts = path.relative_to(src).with_suffix("").parts
    return parts[0]


def edges(src: pathlib.Path) -> dict[str, set[str]]:
    graph: dict[str, set[str]] = {name: set() for name in SIMULATION}
    for path in sorted(src.rglob("*.rs")):
        module = module_of(path, src)
        if module not in graph:
            continue
        text = path.read_text(encoding="utf-8")
        # Test modules may reach anywhere; they are not part of the layering.
        text = text.split("#[cfg(test)]", 1)[0]
        used = set(CRATE_PATH.findall(text))
        for group in USE_GROUP.findall(text):
            used.update(re.findall(r"(?:^|,)\s*(\w+)", group))
        graph[module].update(u for u in used if u in graph and u != module)
    return graph


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Every elementary cycle, each reported once from its smallest module name."""
    found = []

    def walk(start: str, at: str, trail: list[str]) -> None:
        for nxt in sorted(graph[at]):
            if nxt == start:
                found.append(trail + [start])
            elif nxt not in trail and nxt > start:
                walk(start, nxt, trail + [nxt])

    for start in sorted(graph):
        walk(start, start, [start])
    return found


def main() -> int:
    src = pathlib.Path(__file__).resolve().parent.parent / "src"
    graph = edges(src)
    for module in SIMULATION:
        print(f"{module:>9} -> {', '.join(sorted(graph[module])) or '-'}")
    found = cycles(graph)
    for cycle in found:
        print("import circle: " + " -> ".join(cycle))
    if not found:
        print("no import circles among the simulation modules")
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
