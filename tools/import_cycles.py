#!/usr/bin/env python3
"""Finds import circles among the modules of the game and of each library crate.

Three graphs, each checked on its own (a crate's paths never name another crate's modules):

- the game (`src/`): its simulation modules, each a top-level module (`src/level/mod.rs` and
  `src/level/files.rs` are both `level`); the front ends (`view`, `cli`, `main`) sit above
  them and may use any of them;
- each library crate (`crates/*/src`): every module of its own file, so a folder module's
  file (`pathing/mod.rs`, `search.rs`) and the files under it (`pathing/requests.rs`) are
  nodes apart. The crate root (`lib.rs`) is the crate's facade and is left out: a path through
  one of its re-exports counts as a use of the module that defines the item.

An edge is a path a module uses to another module of its crate: `crate::a::b`, `super::x`,
`self::x` and a child's name (`requests::Kind` in `pathing/mod.rs`), in `use` lines and inline
paths alike. Re-exports (`pub use`) are a module's facade, not a use; a path through a
re-export counts as a use of the module that defines the item. Comments and test modules
(from the first `#[cfg(test)]` on) are left out. Prints each cycle (and, with `-v`, each
graph), and exits 1 when there is one, 0 otherwise.

    python3 tools/import_cycles.py [-v]       # from the repository root
"""

import pathlib
import re
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent

# The game's modules that must form a layered graph: plain types at the bottom, systems above.
GAME_SIMULATION = ["assets", "units", "terrain", "map", "level", "tactics", "journal", "headless"]

Module = tuple[str, ...]

PATH_START = re.compile(r"(?<![\w:])(crate|super|self|[a-z_][a-z0-9_]*)::")
INLINE_MOD = re.compile(r"\bmod\s+(\w+)\s*\{")
REEXPORT = re.compile(r"\bpub(?:\([^)]*\))?\s+use\s+([^;]*);")


def strip(text: str) -> str:
    """The code without comments, string literals' contents and test modules."""
    text = text.split("#[cfg(test)]", 1)[0]
    text = re.sub(r"/\*.*?\*/", "", text, flags=re.S)
    text = re.sub(r'"(?:\\.|[^"\\])*"', '""', text)
    return re.sub(r"//[^\n]*", "", text)


def module_of(path: pathlib.Path, src: pathlib.Path) -> Module:
    parts = list(path.relative_to(src).with_suffix("").parts)
    if parts[-1] in ("mod", "lib", "main"):
        parts.pop()
    return tuple(parts)


def use_tree(text: str, at: int) -> tuple[list[list[str]], int]:
    """The paths of the use tree starting at `at` (after its first `::`), and where it ends."""
    paths: list[list[str]] = []
    prefix: list[str] = []
    i = at
    while i < len(text):
        m = re.compile(r"\s*(\w+|\*|\{)").match(text, i)
        if not m:
            break
        token = m.group(1)
        i = m.end()
        if token == "{":
            depth, start = 1, i
            while i < len(text) and depth:
                depth += {"{": 1, "}": -1}.get(text[i], 0)
                i += 1
            inner = text[start : i - 1]
            for part in split_top(inner):
                sub, _ = use_tree(part, 0)
                paths.extend(prefix + p for p in sub)
            return paths, i
        prefix.append(token)
        m = re.compile(r"\s*::").match(text, i)
        if not m:
            break
        i = m.end()
    if prefix:
        paths.append(prefix)
    return paths, i


def split_top(text: str) -> list[str]:
    parts, depth, start = [], 0, 0
    for i, c in enumerate(text):
        if c == "{":
            depth += 1
        elif c == "}":
            depth -= 1
        elif c == "," and depth == 0:
            parts.append(text[start:i])
            start = i + 1
    parts.append(text[start:])
    return [p for p in parts if p.strip()]


class Crate:
    def __init__(self, src: pathlib.Path):
        self.files = {module_of(p, src): strip(p.read_text(encoding="utf-8"))
                      for p in sorted(src.rglob("*.rs"))}
        self.modules = set(self.files)
        # Re-exports: (module, name) -> the absolute path it re-exports.
        self.reexports: dict[tuple[Module, str], list[str]] = {}
        for module, text in self.files.items():
            for m in REEXPORT.finditer(text):
                tree = m.group(1).strip()
                first = tree.split("::", 1)[0].strip()
                if "::" not in tree:
                    continue
                paths, _ = use_tree(tree, 0)
                for path in paths:
                    name = path[-1]
                    if path[-2:-1] == ["self"] or name == "self":
                        continue
                    if len(path) >= 3 and path[-2] == "as":
                        continue
                    full = self.absolute(module, path, first)
                    if full is not None:
                        self.reexports[(module, name)] = full

    def absolute(self, module: Module, path: list[str], first: str) -> list[str] | None:
        """`path` as seen from `module`, from the crate root; None outside the crate."""
        if first == "crate":
            return path[1:]
        if first == "self":
            return list(module) + path[1:]
        if first == "super":
            base = list(module)
            rest = path
            while rest and rest[0] == "super":
                base = base[:-1]
                rest = rest[1:]
            return base + rest
        if module + (first,) in self.modules:
            return list(module) + path
        return None

    def resolve(self, path: list[str], seen: int = 0) -> Module | None:
        """The module that defines what `path` (from the crate root) names."""
        module: Module = ()
        rest = list(path)
        while rest and module + (rest[0],) in self.modules:
            module = module + (rest.pop(0),)
        if rest and (module, rest[0]) in self.reexports and seen < 16:
            return self.resolve(self.reexports[(module, rest[0])], seen + 1)
        return module

    def uses(self, module: Module) -> set[Module]:
        text = self.files[module]
        # Inline modules (`mod tilemap { ... }`) shift what `super` and `self` mean inside.
        inline: list[tuple[int, int, str]] = []
        for m in INLINE_MOD.finditer(text):
            depth, i = 1, m.end()
            while i < len(text) and depth:
                depth += {"{": 1, "}": -1}.get(text[i], 0)
                i += 1
            inline.append((m.end(), i, m.group(1)))
        facade = [(m.start(), m.end()) for m in REEXPORT.finditer(text)]
        found: set[Module] = set()
        for m in PATH_START.finditer(text):
            if any(a <= m.start() < b for a, b in facade):
                continue
            here = module + tuple(name for a, b, name in inline if a <= m.start() < b)
            first = m.group(1)
            paths, _ = use_tree(text, m.start())
            for path in paths:
                if first not in ("crate", "super", "self") and here + (first,) not in self.modules:
                    continue
                full = self.absolute(here, path, first)
                if full is None:
                    continue
                target = self.resolve(full)
                # Inline modules are parts of their file's module.
                if target is not None and target in self.modules:
                    found.add(target)
        found.discard(module)
        found.discard(())
        return found


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


def game_graph() -> dict[str, set[str]]:
    crate = Crate(ROOT / "src")
    graph: dict[str, set[str]] = {name: set() for name in GAME_SIMULATION}
    for module in crate.modules:
        if not module or module[0] not in graph:
            continue
        graph[module[0]].update(
            used[0] for used in crate.uses(module) if used[0] in graph and used[0] != module[0]
        )
    return graph


def crate_graph(src: pathlib.Path) -> dict[str, set[str]]:
    crate = Crate(src)
    name = "::".join
    return {name(m): {name(u) for u in crate.uses(m)} for m in sorted(crate.modules) if m}


def main() -> int:
    graphs = [("the game (src/)", game_graph())]
    for src in sorted(ROOT.glob("crates/*/src")):
        graphs.append((f"{src.parent.name} ({src.relative_to(ROOT)}/)", crate_graph(src)))
    verbose = "-v" in sys.argv[1:]
    circles = 0
    for title, graph in graphs:
        found = cycles(graph)
        if verbose or found:
            print(f"{title}:")
        if verbose:
            width = max(map(len, graph))
            for module in sorted(graph):
                print(f"  {module:>{width}} -> {', '.join(sorted(graph[module])) or '-'}")
        for cycle in found:
            circles += 1
            print("  import circle: " + " -> ".join(cycle))
    if not circles:
        print("no import circles in the game's simulation modules or the library crates")
    return 1 if circles else 0


if __name__ == "__main__":
    sys.exit(main())
