#!/usr/bin/env python3
"""A long fuzz campaign against the release binary: malformed maps (tilewalk, Moving AI, plain
grids, Tiled .tmx with their .tsx tilesets and .tx templates, Tiled JSON .tmj with its .tsj), terrain tables, tactics rules and command lines, each run in its own process under a time and memory limit.

    cargo build --release
    python3 fuzz/campaign.py --runs 100000            # from the repository root
    python3 fuzz/campaign.py --tiled --runs 10000     # Tiled files only

Tiled cases are mutations of the example maps and hostile files built from scratch: group
layers and class properties nested deep, templates and tilesets naming each other in cycles
and long chains, compressed layer data that inflates far past its layer (zlib, gzip, zstd),
staggered and infinite maps whose grid is huge, tilesets whose image claims a huge size,
layers with two <data> elements or decoy layers, maps in the old XML encoding, elements with
thousands of attributes, and attribute values `tiled` cannot read.

Every run must end by itself within --timeout seconds (default 20), stay under --memory-mib
of address space (default 2048), exit with 0, 1 or 2, and never print a Rust panic; an error
about a file of the case must give its line and column (`error: FILE:LINE:COL: ...`). The
inputs come from a seeded generator (--seed), so a campaign is repeatable; the inputs of
every failing run are kept in --keep (default fuzz/failures/) with the command that ran them.
Cases are built and run in worker processes (--jobs of them), each replaced after
TASKS_PER_WORKER cases, so the memory a hostile input takes to build (a decompression bomb,
a map of a million elements) is given back to the system, and each capped at WORKER_MIB of
address space, so a case that would take more stops the campaign with a MemoryError; the
summary gives the largest resident set of the driver, of a worker and of a case.
Python 3.11 standard library only.
"""

import argparse
import base64
import collections
import functools
import json
import multiprocessing
import os
import pathlib
import random
import resource
import shutil
import signal
import subprocess
import sys
import tempfile
import re
import struct
import time
import zlib
import gzip

ROOT = pathlib.Path(__file__).resolve().parent.parent
MAPS = [
    ROOT / "assets/maps" / name
    for name in ("meadow.map", "skirmish.map", "maze.map", "hex_skirmish.map", "hex_valley.map")
]
# Tiled maps and the tileset each names (copied beside the mutated map, itself maybe mutated).
TILED = [
    (ROOT / "assets/tiled/square.tmx", ROOT / "assets/tiled/terrain.tsx", ROOT / "assets/tiled/terrain.png"),
    (ROOT / "assets/tiled/hex.tmx", ROOT / "assets/tiled/terrain_hex.tsx", ROOT / "assets/tiled/terrain_hex.png"),
    # Tiled JSON: the same map as square.tmx, with its tileset in JSON too.
    (ROOT / "assets/tiled/square.tmj", ROOT / "assets/tiled/terrain.tsj", ROOT / "assets/tiled/terrain.png"),
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


# The longest text a mutation makes (and an infinite map's chunks), short of what would take
# the campaign's own memory: a long line repeated 40 times, then again, grows a map of a
# million elements to gigabytes. Files past the 64 MiB tilewalk reads are refused whole
# (`tests/game/cli.rs` reads /dev/zero for that).
MAX_TEXT = 80 << 20


def worker_limit(memory_mib: int):
    """Caps a worker's address space: a case that would take more to build stops the
    campaign with a MemoryError instead of the kernel's OOM killer ending the worker, which
    leaves a process pool waiting for it."""
    size = memory_mib << 20
    resource.setrlimit(resource.RLIMIT_AS, (size, size))


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
            times = rng.choice([1, 2, 40])
            if len(text) + len(lines[i]) * times <= MAX_TEXT:
                lines.insert(i, lines[i] * times)
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

def zstd_zeros(size: int) -> bytes:
    """A zstd frame of `size` zero bytes in RLE blocks of up to 128 KiB, no content size."""
    frame = bytearray(b"\x28\xb5\x2f\xfd\x00\x38")
    block = 1 << 17
    left = size
    while True:
        n = min(block, left)
        left -= n
        frame += struct.pack("<I", (n << 3) | 2 | (left == 0))[:3] + b"\x00"
        if left == 0:
            return bytes(frame)


def layer_data(rng: random.Random, tiles: int, gid: int = 1) -> tuple[str, str]:
    """Attributes and text of a <data> element for `tiles` tiles, in a random encoding, or a
    payload that decompresses far past them (a bomb), or a few tiles short or over."""
    count = tiles + rng.choice([0] * 6 + [-1, 1, -tiles, 10**6])
    count = max(count, 0)
    raw = struct.pack("<I", gid) * min(count, 1 << 22)
    kind = rng.choice(["csv", "base64", "zlib", "gzip", "zstd", "bomb-zlib", "bomb-gzip", "bomb-zstd"])
    if kind == "csv":
        return 'encoding="csv"', ",".join([str(gid)] * min(count, 1 << 22))
    if kind == "base64":
        return 'encoding="base64"', base64.b64encode(raw).decode()
    if kind.startswith("bomb"):
        size = rng.choice([1 << 20, 1 << 26, 1 << 30, 4 << 30])  # zstd: 128 KB of text for 4 GiB
        kind = kind[5:]
        if kind == "zstd":
            payload = zstd_zeros(size)
        else:
            size = min(size, 1 << 26)  # compressing more here costs the campaign, not tilewalk
            zeros = b"\0" * (1 << 24)
            co = zlib.compressobj(9, zlib.DEFLATED, 31 if kind == "gzip" else 15)
            payload = b"".join(co.compress(zeros) for _ in range(size >> 24)) + co.flush()
        return f'encoding="base64" compression="{kind}"', base64.b64encode(payload).decode()
    if kind == "zstd":
        payload = zstd_zeros(len(raw)) if gid == 0 else None
        if payload is None:
            # Raw blocks: a frame of uncompressed blocks holding `raw`.
            frame = bytearray(b"\x28\xb5\x2f\xfd\x00\x38")
            chunks = [raw[i:i + (1 << 17)] for i in range(0, len(raw), 1 << 17)] or [b""]
            for i, chunk in enumerate(chunks):
                frame += struct.pack("<I", (len(chunk) << 3) | (i == len(chunks) - 1))[:3] + chunk
            payload = bytes(frame)
        return 'encoding="base64" compression="zstd"', base64.b64encode(payload).decode()
    payload = gzip.compress(raw) if kind == "gzip" else zlib.compress(raw)
    return f'encoding="base64" compression="{kind}"', base64.b64encode(payload).decode()


ONE = struct.pack("<I", 1)  # gid 1, as layer data holds it
TILESET_REF = '<tileset firstgid="1" source="terrain.tsx"/>'


def map_text(attrs: str, width: int, height: int, body: str, extra: str = "") -> str:
    return (
        '<?xml version="1.0" encoding="UTF-8"?>\n'
        f'<map version="1.10" orientation="orthogonal" renderorder="right-down" width="{width}" '
        f'height="{height}" tilewidth="32" tileheight="32" infinite="0"{attrs}>\n'
        f" {TILESET_REF}\n{body}{extra}</map>\n"
    )


def tile_layer(rng: random.Random, width: int, height: int, name: str = "t") -> str:
    attrs, text = layer_data(rng, width * height)
    return f' <layer id="1" name="{name}" width="{width}" height="{height}">\n  <data {attrs}>{text}</data>\n </layer>\n'


UNIT = ('<objectgroup id="2" name="units"><object id="1" name="k" type="foot" x="8" y="8"><point/>'
        '<properties><property name="team" value="blue"/></properties></object></objectgroup>\n')


def hostile_tiled(rng: random.Random, folder: pathlib.Path) -> pathlib.Path:
    """Writes one hostile Tiled map (and the files it names) into `folder`; returns the map."""
    for name in ("terrain.tsx", "terrain.png", "terrain_iso.tsx", "terrain_iso.png"):
        shutil.copy(ROOT / "assets/tiled" / name, folder / name)
    square = (ROOT / "assets/tiled/square.tmx").read_text(encoding="utf-8")
    layer = re.search(r" <layer\b.*?</layer>\n", square, re.S)
    w, h = rng.choice([(1, 1), (4, 4), (16, 10), (64, 64)])
    kind = rng.choice([
        "groups", "properties", "template-self", "template-cycle", "template-chain", "image-size",
        "png-size", "staggered", "bomb", "data", "xml-encoding", "attributes", "attribute-value",
        "infinite", "layers", "objects", "tilesets", "elements",
    ])
    files: dict[str, str] = {}
    if kind == "groups":
        n = rng.choice([1, 10, 62, 63, 64, 65, 200, 5000, 20000])
        opens = "".join(f'<group id="{100 + i}" name="g{i}">' for i in range(n))
        text = square[:layer.start()] + opens + layer.group(0) + "</group>" * n + square[layer.end():]
    elif kind == "properties":
        n = rng.choice([1, 20, 40, 100, 10000])
        opens = "".join(f'<property name="p{i}" type="class"><properties>' for i in range(n))
        inner = opens + '<property name="foot" value="1"/>' + "</properties></property>" * n
        text = square.replace("</layer>", f"<properties>{inner}</properties></layer>", 1)
    elif kind in ("template-self", "template-cycle", "template-chain"):
        n = {"template-self": 1, "template-cycle": rng.randint(2, 5), "template-chain": rng.choice([3, 15, 16, 17, 40])}[kind]
        for i in range(n):
            target = (i + 1) % n if kind != "template-chain" else i + 1
            if kind == "template-chain" and i == n - 1:
                obj = '<object name="x" type="foot" width="32" height="32"/>'
            else:
                obj = f'<object template="t{target}.tx" name="x" type="foot" width="32" height="32"/>'
            tileset = TILESET_REF + "\n " if rng.random() < 0.3 else ""
            files[f"t{i}.tx"] = f'<?xml version="1.0" encoding="UTF-8"?>\n<template>\n {tileset}{obj}\n</template>\n'
        objects = '<objectgroup id="2" name="objs"><object id="1" template="t0.tx" x="8" y="8"/></objectgroup>\n'
        text = map_text("", w, h, tile_layer(rng, w, h), objects)
        if rng.random() < 0.3:
            # The tileset's tile reaches the template, which reaches the tileset.
            tsx = (ROOT / "assets/tiled/terrain.tsx").read_text(encoding="utf-8")
            files["terrain.tsx"] = tsx.replace('<tile id="0" type="grass"/>', '<tile id="0" type="grass"><objectgroup><object id="1" template="t0.tx"/></objectgroup></tile>')
    elif kind in ("image-size", "png-size"):
        side = rng.choice([64, 8192, 8193, 100000, 2000000, 4294967295, 4294967296])
        if kind == "png-size":
            png = b"\x89PNG\r\n\x1a\n\0\0\0\x0dIHDR" + struct.pack(">II", side % (1 << 32), side % (1 << 32))
            (folder / "huge.png").write_bytes(png + b"\0" * 16)
            image = '<image source="huge.png"/>'
        else:
            image = f'<image source="terrain.png" width="{side}" height="{side}"/>'
        tile = rng.choice([1, 8, 32])
        text = map_text("", 2, 2, f' <tileset firstgid="50" name="old" tilewidth="{tile}" tileheight="{tile}" margin="{rng.choice([0, 1, 10**12])}">\n  {image}\n </tileset>\n' + tile_layer(rng, 2, 2))
    elif kind == "staggered":
        w, h = rng.choice([(1, 100000), (100000, 1), (4096, 4096), (5000, 3000), (3, 5000), (2, 2), (300, 300)])
        axis, index = rng.choice("xy"), rng.choice(["odd", "even"])
        if w * h <= 1 << 20:
            attrs, data = layer_data(rng, w * h)
        else:
            attrs, data = 'encoding="base64" compression="zlib"', base64.b64encode(zlib.compress(ONE * (w * h), 9)).decode()
        text = (
            '<?xml version="1.0" encoding="UTF-8"?>\n'
            f'<map version="1.10" orientation="{rng.choice(["staggered", "hexagonal"])}" renderorder="right-down" width="{w}" height="{h}" tilewidth="64" tileheight="32" hexsidelength="16" infinite="0" staggeraxis="{axis}" staggerindex="{index}">\n'
            ' <tileset firstgid="1" source="terrain_iso.tsx"/>\n'
            f' <layer id="1" name="t" width="{w}" height="{h}">\n  <data {attrs}>{data}</data>\n </layer>\n</map>\n'
        )
    elif kind == "bomb":
        text = map_text("", w, h, tile_layer(rng, w, h), UNIT)
    elif kind == "data":
        full, short = ",".join(["1"] * (w * h)), ",".join(["1"] * max(w * h - 2, 1))
        variant = rng.choice(["two", "decoy", "foo", "cdata", "entity", "comment", "group", "none"])
        body = {
            "two": f' <layer id="1" name="t" width="{w}" height="{h}"><data encoding="csv">{full}</data><data encoding="csv">{short}</data></layer>\n',
            "decoy": f' <objectgroup id="3"><layer id="9" name="d" width="{w}" height="{h}"><data encoding="csv">{full}</data></layer></objectgroup>\n <layer id="1" name="t" width="{w}" height="{h}"><data encoding="csv">{short}</data></layer>\n',
            "foo": f' <foo><layer id="9" name="d" width="{w}" height="{h}"><data encoding="csv">{short}</data></layer></foo>\n <layer id="1" name="t" width="{w}" height="{h}"><data encoding="csv">{full}</data></layer>\n',
            "cdata": f' <layer id="1" name="t" width="{w}" height="{h}"><data encoding="csv">{rng.choice(["", " "])}<![CDATA[{full}]]></data></layer>\n',
            "entity": f' <layer id="1" name="t" width="{w}" height="{h}"><data encoding="csv">{full.replace(",", "&#44;", rng.randint(0, 3))}</data></layer>\n',
            "comment": f' <layer id="1" name="t" width="{w}" height="{h}"><data encoding="csv">{short}<!-- x -->,1,1</data></layer>\n',
            "group": f' <group id="5"><layer id="1" name="t" width="{w}" height="{h}"><data encoding="csv">{rng.choice([full, short])}</data></layer></group>\n',
            "none": f' <layer id="1" name="t" width="{w}" height="{h}"/>\n',
        }[variant]
        text = map_text("", w, h, body, UNIT)
    elif kind == "xml-encoding":
        n = rng.choice([10, 100, 300])
        tiles = '<tile gid="1"/>\n' * (n * n + rng.choice([0, 0, -1, 1]))
        text = map_text("", n, n, f' <layer id="1" name="t" width="{n}" height="{n}">\n  <data>\n{tiles}  </data>\n </layer>\n')
    elif kind == "attributes":
        n = rng.choice([10, 63, 64, 65, 1000, 100000])
        attrs = "".join(f' a{i}="1"' for i in range(n))
        element = rng.choice(["<map ", "<layer ", "<tileset ", "<data "])
        text = square.replace(element, element[:-1] + attrs + " ", 1)
        if rng.random() < 0.2:
            text = text.replace(element, element + 'id="1" id="2" ', 1)
    elif kind == "attribute-value":
        text = square
        for _ in range(rng.randint(1, 3)):
            names = re.findall(r' ([a-z]+)="[^"]*"', text)
            name = rng.choice(names)
            bad = rng.choice(["x", "-1", "", "4294967296", "1e9", "NaN", "0", " 1", "99999999999999999999"])
            text = re.sub(rf' {name}="[^"]*"', f' {name}="{bad}"', text, count=1)
    elif kind == "infinite":
        chunks, count, size = [], rng.choice([1, 2, 40]), 0
        for _ in range(rng.choice([1, 4, 100, 2000])):
            cw, ch = rng.choice([(16, 16), (1, 65536), (65536, 1), (256, 256), (257, 256), (0, 0), (16, 0)])
            x, y = rng.choice([0, -16, 16, 1 << 20, 1 << 24, (1 << 24) + 1, -(1 << 31)]), rng.choice([0, 16, 1 << 20])
            attrs, data = layer_data(rng, cw * ch) if cw * ch <= 1 << 16 else ("", "")
            if chunks and (size + len(data)) * count > MAX_TEXT:
                break
            size += len(data)
            chunks.append((attrs, f'<chunk x="{x}" y="{y}" width="{cw}" height="{ch}">{data}</chunk>'))
        encoding = chunks[0][0] or 'encoding="csv"'
        layers = "".join(
            f' <layer id="{i + 1}" name="t{i}" width="{w}" height="{h}"><data {encoding}>{"".join(c for _, c in chunks)}</data></layer>\n'
            for i in range(count)
        )
        text = map_text("", w, h, layers).replace('infinite="0"', 'infinite="1"')
    elif kind == "layers":
        n, side = rng.choice([(2, 4096), (3, 2048), (8, 1448), (9, 1448), (64, 512), (1000, 4), (10000, 4)])
        data = base64.b64encode(zlib.compress(ONE * (side * side), 9)).decode()
        one = f' <layer id="1" name="t" width="{side}" height="{side}"><data encoding="base64" compression="zlib">{data}</data></layer>\n'
        text = map_text("", side, side, one * n)
    elif kind == "objects":
        n = rng.choice([10, 1000, 100001])
        objects = "".join(
            f'<object id="{i + 1}" name="u{i}" type="foot" x="{(i % w) * 32 + 8}" y="{(i // w % h) * 32 + 8}"><point/><properties><property name="team" value="{rng.choice(["blue", "red"])}"/></properties></object>'
            for i in range(n)
        )
        text = map_text("", w, h, tile_layer(rng, w, h), f'<objectgroup id="2">{objects}</objectgroup>\n')
    elif kind == "tilesets":
        n = rng.choice([10, 300, 5000])
        sets = "".join(f' <tileset firstgid="{1 + 8 * (i + 1)}" name="s{i}" tilewidth="32" tileheight="32" tilecount="8" columns="8"><image source="terrain.png" width="256" height="32"/></tileset>\n' for i in range(n))
        text = map_text("", w, h, sets + tile_layer(rng, w, h))
    else:  # many elements
        n = rng.choice([1000, 1 << 20, (1 << 20) + 1])
        text = map_text("", w, h, tile_layer(rng, w, h), "<x/>" * n + "\n")
    if rng.random() < 0.2:
        text = mutate(rng, text)
    for name, content in files.items():
        (folder / name).write_text(content, encoding="utf-8", newline="")
    map_file = folder / "case.tmx"
    map_file.write_text(text, encoding="utf-8", newline="")
    return map_file


def case(rng: random.Random, folder: pathlib.Path, tiled_only: bool = False) -> list[str]:
    """Writes one malformed input into `folder`; returns the command line that runs it."""
    kinds = ["path", "simulate", "tactics", "gen", "bytes", "tiled", "hostile-tiled"]
    weights = [0, 0, 0, 0, 0, 50, 50] if tiled_only else [30, 25, 25, 5, 15, 20, 0]
    kind = rng.choices(kinds, weights)[0]
    map_file = folder / "case.map"
    bases = [m.read_text(encoding="utf-8") for m in MAPS] + [MOVINGAI]
    base = rng.choice(bases + [PLAIN] if kind == "path" else bases)
    if kind == "bytes":
        map_file.write_bytes(random_bytes(rng))
        kind = rng.choice(["path", "simulate", "tactics"])
    elif kind == "hostile-tiled":
        map_file = hostile_tiled(rng, folder)
        kind = rng.choice(["path", "path", "simulate", "tactics"])
    elif kind == "tiled":
        tmx, tsx, png = rng.choice(TILED)
        map_file = folder / ("case" + tmx.suffix)
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


def unlocated(stderr: str, folder: pathlib.Path) -> bool:
    """Whether an error about a file of the case gives no line and column (a file refused
    whole, for its size, has none)."""
    first = stderr.split("\n", 1)[0]
    prefix = f"error: {folder}/"
    whole = first.endswith("the file is larger than 64 MiB")
    return first.startswith(prefix) and not whole and not re.match(r"[^:]+:\d+:\d+: ", first[len("error: "):])


def limit(memory_mib: int):
    def apply():
        size = memory_mib << 20
        resource.setrlimit(resource.RLIMIT_AS, (size, size))
        os.setsid()
    return apply


# Cases a worker process builds and runs before a fresh one takes its place, and the most
# address space it may take.
TASKS_PER_WORKER = 16
WORKER_MIB = 4096


def max_rss_mib(who: int) -> float:
    """The largest resident set so far of this process (RUSAGE_SELF) or of any child it
    waited for (RUSAGE_CHILDREN), in MiB (Linux reports KiB)."""
    return resource.getrusage(who).ru_maxrss / 1024


def run_one(binary: str, seed: int, args_in: argparse.Namespace) -> tuple[str, list[str], float, str, float, float]:
    """Runs case `seed` in a worker process; returns (outcome, command, seconds, stderr
    tail, the worker's largest resident set, the largest of the cases it ran, in MiB)."""
    rng = random.Random(seed)
    folder = pathlib.Path(tempfile.mkdtemp(prefix="tilewalk-fuzz-"))
    try:
        try:
            args = case(rng, folder, args_in.tiled)
        except MemoryError:
            raise MemoryError(f"case {seed} takes more than {WORKER_MIB} MiB to build") from None
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
            elif code == 2 and unlocated(text, folder):
                outcome = "unlocated"
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
        tail = stderr.decode("utf-8", "replace")[-400:]
        return outcome, args, seconds, tail, max_rss_mib(resource.RUSAGE_SELF), max_rss_mib(resource.RUSAGE_CHILDREN)
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
    parser.add_argument("--tiled", action="store_true", help="Tiled files only: mutations of the examples and hostile files")
    args = parser.parse_args()
    if not os.access(args.binary, os.X_OK):
        print(f"no binary at {args.binary}: run `cargo build --release` first", file=sys.stderr)
        return 2
    outcomes: collections.Counter[str] = collections.Counter()
    commands: collections.Counter[str] = collections.Counter()
    slowest = (0.0, [])
    worker_rss = case_rss = 0.0
    started = time.monotonic()
    with multiprocessing.Pool(
        args.jobs, initializer=worker_limit, initargs=(WORKER_MIB,), maxtasksperchild=TASKS_PER_WORKER
    ) as pool:
        seeds = range(args.seed * 10**9, args.seed * 10**9 + args.runs)
        for i, (outcome, command, seconds, stderr, worker, case_peak) in enumerate(
            pool.imap(functools.partial(run_one, args.binary, args_in=args), seeds)
        ):
            worker_rss, case_rss = max(worker_rss, worker), max(case_rss, case_peak)
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
        "max_rss_mib": {
            "driver": round(max_rss_mib(resource.RUSAGE_SELF)), "worker": round(worker_rss), "case": round(case_rss),
        },
    }))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
