#!/usr/bin/env python3
"""Checks the relative links and images of the Markdown docs.

Scans README.md, docs/*.md, docs/design/*.md and crates/*/README.md for Markdown links and
images (`[text](target)`, `![alt](target)`, reference definitions `[label]: target`) and
HTML `<img src=...>` and `<a href=...>`. Links with a scheme (http:, https:, mailto:, ...)
are skipped. Every other target must be a file or folder that exists, relative to the file
it is written in; a `#anchor` must match a heading's GitHub-style slug or an
`<a id=...>` / `<a name=...>` in the file it points to (the same file for a bare `#anchor`).

A shortcut link to code with no reference definition (`` [`Tile`] ``) is broken too: rustdoc
resolves it as an intra-doc link, but GitHub and crates.io show the brackets as text, and a
crate's README is both its GitHub page and (included) its crate docs.

Exits 1 and prints `file:line: broken link target (why)` for each broken one; exits 0 with
a one-line summary otherwise. Python 3.11 standard library only.

    python3 tools/check_links.py
"""

from __future__ import annotations

import re
import sys
import unicodedata
from pathlib import Path
from urllib.parse import unquote

ROOT = Path(__file__).resolve().parent.parent

PATTERNS = ["README.md", "docs/*.md", "docs/design/*.md", "crates/*/README.md"]

# `[text](target "title")` and `![alt](target)`; the text may hold one level of brackets
# (an image inside a link) and span lines; the target may be wrapped in <...>.
INLINE = re.compile(
    r"!?\[(?:[^\[\]]|\[[^\[\]]*\])*\]\(\s*(<[^>]*>|[^\s)]+)(?:\s+(?:\"[^\"]*\"|'[^']*'))?\s*\)"
)
REFERENCE = re.compile(r"^ {0,3}\[[^\]]+\]:\s*(<[^>]*>|\S+)", re.MULTILINE)
# `[`Name`]` not followed by a target, a label or a definition's colon, found in the text
# with its code spans blanked (the brackets stay, the code inside them is spaces).
SHORTCUT = re.compile(r"(?<![\]\\!])\[( +)\](?![\[(:])")
LABEL = re.compile(r"^ {0,3}\[([^\]]+)\]:", re.MULTILINE)
HTML = re.compile(r"<(?:img|a)\b[^>]*?\b(?:src|href)\s*=\s*(\"[^\"]*\"|'[^']*'|[^\s>]+)", re.I)
HTML_ANCHOR = re.compile(r"<a\b[^>]*?\b(?:id|name)\s*=\s*(?:\"([^\"]*)\"|'([^']*)'|([^\s>]+))", re.I)
HEADING = re.compile(r"^ {0,3}(#{1,6})[ \t]+(.*?)[ \t]*#*[ \t]*$")
FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})")
SCHEME = re.compile(r"^[a-zA-Z][a-zA-Z0-9+.-]*:")


def blank_fences(text: str) -> str:
    """The text with fenced code blocks blanked out (lines kept)."""
    out = []
    fence = None
    for line in text.split("\n"):
        match = FENCE.match(line)
        if fence is not None:
            if match and match.group(1)[0] == fence[0] and len(match.group(1)) >= len(fence):
                fence = None
            out.append("")
            continue
        if match:
            fence = match.group(1)
            out.append("")
            continue
        out.append(line)
    return "\n".join(out)


def blank_code(text: str) -> str:
    """The text with fenced code blocks and inline code spans blanked out (lines and
    columns kept), so that links shown as code are not checked."""
    # Inline code: a run of backticks up to the same run (possibly across a line break).
    return re.sub(
        r"(`+)(.+?)\1",
        lambda m: re.sub(r"[^\n]", " ", m.group(0)),
        blank_fences(text),
        flags=re.S,
    )


def slug(heading: str) -> str:
    """GitHub's anchor for a heading: inline markup dropped, lower case, punctuation other
    than `-` and `_` removed, spaces turned into hyphens."""
    text = re.sub(r"!?\[([^\]]*)\]\([^)]*\)", r"\1", heading)  # links: their text
    text = re.sub(r"<[^>]+>", "", text)  # HTML tags
    text = text.replace("`", "").replace("*", "")
    text = text.lower()
    kept = []
    for char in text:
        category = unicodedata.category(char)
        if char in "-_ " or category[0] in "LN" or category == "Mn":
            kept.append(char)
    return "".join(kept).replace(" ", "-")


_anchors: dict[Path, set[str]] = {}


def anchors(path: Path) -> set[str]:
    """Every anchor a Markdown file defines: its headings' slugs (repeats numbered `-1`,
    `-2`, ... as GitHub does) and its HTML `id` / `name` attributes."""
    if path not in _anchors:
        text = path.read_text(encoding="utf-8")
        found: set[str] = set()
        counts: dict[str, int] = {}
        for line in blank_fences(text).split("\n"):
            match = HEADING.match(line)
            if match:
                base = slug(match.group(2))
                n = counts.get(base, 0)
                counts[base] = n + 1
                found.add(base if n == 0 else f"{base}-{n}")
        for match in HTML_ANCHOR.finditer(blank_fences(text)):
            found.add(next(g for g in match.groups() if g is not None))
        _anchors[path] = found
    return _anchors[path]


def targets(text: str):
    """(line, target) for every link and image in `text`."""
    clean = blank_code(text)
    for pattern in (INLINE, REFERENCE, HTML):
        for match in pattern.finditer(clean):
            target = match.group(1).strip()
            if target[:1] in "<\"'" and len(target) >= 2:
                target = target[1:-1].strip()
            line = clean.count("\n", 0, match.start(1)) + 1
            yield line, target


def check(path: Path) -> tuple[int, list[str]]:
    """How many links `path` has, and a message for each broken one."""
    text = path.read_text(encoding="utf-8")
    rel = path.relative_to(ROOT).as_posix()
    count = 0
    broken = []
    labels = {m.group(1).lower() for m in LABEL.finditer(blank_fences(text))}
    # Line by line: blanking keeps the lines, and the columns of the lines outside fences.
    for line, (raw, clean) in enumerate(zip(text.split("\n"), blank_code(text).split("\n")), 1):
        for match in SHORTCUT.finditer(clean):
            label = raw[match.start(1) : match.end(1)]
            if label.startswith("`") and label.endswith("`") and label.lower() not in labels:
                broken.append(
                    f"{rel}:{line}: rustdoc-only link [{label}] (no target: GitHub shows "
                    "the brackets; give it a URL or a reference definition)"
                )
    for line, target in sorted(targets(text)):
        if SCHEME.match(target) or target.startswith("//"):
            continue  # http(s), mailto and other absolute URLs
        count += 1
        file_part, _, anchor = target.partition("#")
        file_part = unquote(file_part.split("?", 1)[0])
        if file_part:
            base = ROOT if file_part.startswith("/") else path.parent
            dest = (base / file_part.lstrip("/")).resolve()
            if not dest.exists():
                broken.append(f"{rel}:{line}: broken link {target} (no such file)")
                continue
        else:
            dest = path
        if anchor:
            if dest.is_file() and dest.suffix.lower() == ".md":
                if unquote(anchor).lower() not in {a.lower() for a in anchors(dest)}:
                    where = "this file" if dest == path else dest.relative_to(ROOT).as_posix()
                    broken.append(f"{rel}:{line}: broken link {target} (no #{anchor} in {where})")
            elif dest.is_dir():
                broken.append(f"{rel}:{line}: broken link {target} (an anchor in a folder)")
    return count, broken


def main() -> int:
    files = sorted({p for pattern in PATTERNS for p in ROOT.glob(pattern) if p.is_file()})
    total = 0
    broken: list[str] = []
    for path in files:
        count, bad = check(path)
        total += count
        broken.extend(bad)
    for message in broken:
        print(message)
    if broken:
        print(f"{len(broken)} broken of {total} relative links in {len(files)} files", file=sys.stderr)
        return 1
    print(f"check_links: {total} relative links and images in {len(files)} files, all resolve")
    return 0


if __name__ == "__main__":
    sys.exit(main())
