#!/usr/bin/env python3
"""Generate tilewalk's textures with the Python standard library only.

Writes, relative to the repository root:

  assets/textures/terrain.png             7 terrain tiles of 32x32 in one row (224x32):
                                          0 grass, 1 road, 2 forest, 3 thicket, 4 mud,
                                          5 water, 6 rock
  assets/textures/terrain_hex_pointy.png  the same 7 tiles as pointy-top hexes, 32x37 each
                                          (224x37)
  assets/textures/terrain_hex_flat.png    the same 7 tiles as flat-top hexes, 37x32 each
                                          (259x32)
  assets/textures/unit_foot.png           32x32 round soldier token (sword mark)
  assets/textures/unit_archer.png         32x32 round token with a drawn bow and arrow (ranged foot)
  assets/textures/unit_horse.png          32x32 shield token (horseshoe mark)
  assets/textures/unit_flyer.png          32x32 upward delta wing
  assets/textures/ring.png                32x32 selection ring
  assets/textures/marker.png              32x32 thick "X" for a refused order target
  assets/textures/hover.png               32x32 square hover frame
  assets/textures/hover_hex_pointy.png    32x37 pointy-top hex hover frame
  assets/textures/hover_hex_flat.png      37x32 flat-top hex hover frame
  assets/tiled/terrain.png                the example Tiled tileset: the 7 terrain tiles and
                                          a ford (tile 7), 32x32 each (256x32)
  assets/tiled/terrain_hex.png            the same 8 tiles as pointy-top hexes, 32x37 each
                                          (256x37)

Unit sprites, ring, marker and hover frames are white / light grey (the game tints them by
multiplying with a colour) with a near-black outline and coverage-based anti-aliasing.
Terrain tiles are opaque and tile seamlessly: all noise is periodic over 32 pixels and
every feature is drawn with wrap-around.  Hex tiles cut the same art to a hexagon that
fills the image edge to edge (transparent outside, a 1 px edge line 35% darker).

Deterministic: fixed seeds, no time or environment input; running it twice gives the
same bytes.  Usage (from anywhere):  python3 tools/make_art.py
"""

import math
import os
import random
import struct
import zlib

TILE = 32
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OUT_DIR = os.path.join(ROOT, "assets", "textures")
TILED_DIR = os.path.join(ROOT, "assets", "tiled")


# --------------------------------------------------------------------------- PNG writer

def _chunk(kind, data):
    body = kind + data
    return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body) & 0xFFFFFFFF)


def png_bytes(width, height, rgba):
    """rgba: flat list of 0..255 ints, 4 per pixel, row-major. 8-bit RGBA, no interlace."""
    assert len(rgba) == width * height * 4
    raw = bytearray()
    stride = width * 4
    for y in range(height):
        raw.append(0)  # filter: none
        raw.extend(bytes(rgba[y * stride:(y + 1) * stride]))
    ihdr = struct.pack(">IIBBBBB", width, height, 8, 6, 0, 0, 0)
    return (b"\x89PNG\r\n\x1a\n" + _chunk(b"IHDR", ihdr)
            + _chunk(b"IDAT", zlib.compress(bytes(raw), 9)) + _chunk(b"IEND", b""))


def write_png(path, width, height, rgba):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "wb") as f:
        f.write(png_bytes(width, height, rgba))


# --------------------------------------------------------------------------- helpers

def clamp(v, lo=0.0, hi=1.0):
    return lo if v < lo else hi if v > hi else v


def lerp(a, b, t):
    return a + (b - a) * t


def mix(c1, c2, t):
    return (lerp(c1[0], c2[0], t), lerp(c1[1], c2[1], t), lerp(c1[2], c2[2], t))


def scale(c, k):
    return (c[0] * k, c[1] * k, c[2] * k)


def smooth(t):
    return t * t * (3.0 - 2.0 * t)


def wrap_d(a, b, period=TILE):
    """Signed shortest difference a-b on a circle of `period`."""
    d = (a - b) % period
    if d > period / 2:
        d -= period
    return d


class PeriodicNoise:
    """Value noise on an n x n lattice wrapping every 32 pixels (so tiles repeat seamlessly)."""

    def __init__(self, rng, cells):
        self.n = cells
        self.v = [[rng.random() for _ in range(cells)] for _ in range(cells)]

    def at(self, x, y):
        n = self.n
        fx = x / TILE * n
        fy = y / TILE * n
        x0 = math.floor(fx)
        y0 = math.floor(fy)
        tx = smooth(fx - x0)
        ty = smooth(fy - y0)
        x0 %= n
        y0 %= n
        x1 = (x0 + 1) % n
        y1 = (y0 + 1) % n
        a = lerp(self.v[y0][x0], self.v[y0][x1], tx)
        b = lerp(self.v[y1][x0], self.v[y1][x1], tx)
        return lerp(a, b, ty)


class Fbm:
    """A few octaves of periodic value noise, result roughly in [0, 1]."""

    def __init__(self, rng, cells=(2, 4, 8, 16), gains=(0.45, 0.3, 0.17, 0.08)):
        self.octaves = [PeriodicNoise(rng, c) for c in cells]
        self.gains = gains
        self.total = sum(gains)

    def at(self, x, y):
        s = 0.0
        for o, g in zip(self.octaves, self.gains):
            s += o.at(x, y) * g
        return s / self.total


class Tile:
    """An opaque 32x32 RGB float image."""

    def __init__(self, color):
        self.px = [[tuple(color) for _ in range(TILE)] for _ in range(TILE)]

    def get(self, x, y):
        return self.px[y % TILE][x % TILE]

    def put(self, x, y, color, alpha=1.0):
        x %= TILE
        y %= TILE
        if alpha >= 1.0:
            self.px[y][x] = tuple(color)
        elif alpha > 0.0:
            self.px[y][x] = mix(self.px[y][x], color, alpha)

    def shade_disc(self, cx, cy, r, fn):
        """Call fn(x, y, dx, dy, coverage) for every pixel near a wrapped disc."""
        for y in range(math.floor(cy - r - 1), math.ceil(cy + r + 1) + 1):
            for x in range(math.floor(cx - r - 1), math.ceil(cx + r + 1) + 1):
                dx = wrap_d(x + 0.5, cx)
                dy = wrap_d(y + 0.5, cy)
                d = math.hypot(dx, dy)
                cov = clamp(r - d + 0.5)
                if cov > 0:
                    fn(x, y, dx, dy, cov)


def periodic_points(rng, grid, jitter=0.8):
    """One jittered point per cell of a grid x grid lattice over the tile.  The lattice is
    centred on the tile corner so that cell borders do not line up with the tile edges
    (which would show the tile grid as seams)."""
    cell = TILE / grid
    pts = []
    for gy in range(grid):
        for gx in range(grid):
            pts.append(((gx + (rng.random() - 0.5) * jitter) * cell % TILE,
                        (gy + (rng.random() - 0.5) * jitter) * cell % TILE))
    return pts


def voronoi(x, y, pts):
    """(index of nearest point, distance to it, distance to the second nearest), wrapped."""
    best = (1e9, -1)
    second = 1e9
    for i, (px, py) in enumerate(pts):
        d = math.hypot(wrap_d(x, px), wrap_d(y, py))
        if d < best[0]:
            second = best[0]
            best = (d, i)
        elif d < second:
            second = d
    return best[1], best[0], second


# --------------------------------------------------------------------------- terrain

def grass_base(rng, base, dark, light, tufts=26):
    t = Tile(base)
    n = Fbm(rng)
    fine = PeriodicNoise(rng, 16)
    for y in range(TILE):
        for x in range(TILE):
            v = n.at(x, y) * 0.75 + fine.at(x, y) * 0.25
            c = mix(dark, light, clamp((v - 0.2) / 0.6))
            k = 1.0 + (rng.random() - 0.5) * 0.06
            t.put(x, y, scale(c, k))
    # grass blades: short 2-pixel strokes, darker with a light tip
    for _ in range(tufts):
        x = rng.randrange(TILE)
        y = rng.randrange(TILE)
        t.put(x, y, scale(t.get(x, y), 0.78))
        t.put(x, y - 1, scale(t.get(x, y - 1), 0.85))
        if rng.random() < 0.5:
            t.put(x + 1, y - 1, scale(t.get(x + 1, y - 1), 1.12))
    return t


def make_grass():
    rng = random.Random(1001)
    t = grass_base(rng, (86, 150, 60), (72, 132, 50), (104, 168, 70), tufts=34)
    # a few tiny light flowers/specks
    for _ in range(4):
        x = rng.randrange(TILE)
        y = rng.randrange(TILE)
        t.put(x, y, (196, 210, 120), 0.6)
    return t


def make_road():
    rng = random.Random(2002)
    base = (192, 158, 108)
    t = Tile(base)
    n = Fbm(rng)
    pts = periodic_points(rng, 5, 0.7)
    tints = [1.0 + (rng.random() - 0.5) * 0.14 for _ in pts]
    for y in range(TILE):
        for x in range(TILE):
            cx, cy = x + 0.5, y + 0.5
            i, d1, d2 = voronoi(cx, cy, pts)
            edge = d2 - d1  # 0 on a cell border
            v = n.at(x, y)
            stone = scale(mix((176, 142, 96), (206, 174, 124), v), tints[i])
            # light top-left rim, darker bottom-right rim on each cobble
            px, py = pts[i]
            ddx = wrap_d(cx, px)
            ddy = wrap_d(cy, py)
            rim = clamp(1.0 - edge / 3.0)
            lit = -(ddx + ddy) / (abs(ddx) + abs(ddy) + 1e-6)
            stone = scale(stone, 1.0 + 0.08 * rim * lit)
            gap = clamp(1.3 - edge)  # dirt between cobbles
            c = mix(stone, (146, 114, 76), gap * 0.85)
            c = scale(c, 1.0 + (rng.random() - 0.5) * 0.05)
            t.put(x, y, c)
    # pebbles / grit
    for _ in range(10):
        x = rng.randrange(TILE)
        y = rng.randrange(TILE)
        t.put(x, y, (130, 100, 66), 0.5)
    return t


def canopy(t, cx, cy, r, dark, mid, light, light_dir=(-0.6, -0.8)):
    """A round tree crown, shaded as a bumpy sphere lit from the top-left."""
    lx, ly = light_dir

    def fn(x, y, dx, dy, cov):
        d = math.hypot(dx, dy) / r
        if d >= 1.0:
            nz = 0.0
            nx, ny = dx / (d * r + 1e-9), dy / (d * r + 1e-9)
        else:
            nz = math.sqrt(1.0 - d * d)
            nx, ny = dx / r, dy / r
        lam = clamp(0.55 + 0.6 * (nx * lx + ny * ly) + 0.25 * nz)
        # leafy bumps
        bump = math.sin(dx * 1.7 + cx) * math.sin(dy * 1.9 + cy) * 0.08
        c = mix(dark, mid, clamp(lam * 1.6 + bump))
        if lam > 0.75:
            c = mix(c, light, (lam - 0.75) * 2.2)
        c = mix(c, dark, clamp((d - 0.78) / 0.22) * 0.7)  # darker rim: crisp silhouette
        t.put(x, y, c, cov)

    t.shade_disc(cx, cy, r, fn)


def ground_shadow(t, cx, cy, r, strength):
    def fn(x, y, dx, dy, cov):
        t.put(x, y, scale(t.get(x, y), 1.0 - strength), cov)

    t.shade_disc(cx, cy, r, fn)


def make_forest():
    rng = random.Random(3003)
    # darker, mossier grass than the plain grass tile
    t = grass_base(rng, (70, 128, 52), (58, 112, 44), (84, 142, 60), tufts=22)
    trees = [(10.5, 11.0, 6.3), (22.5, 19.5, 6.8), (11.0, 25.0, 4.3)]
    for cx, cy, r in trees:
        ground_shadow(t, cx + 1.8, cy + 2.2, r * 0.95, 0.38)
    for cx, cy, r in trees:
        # trunk peeking out below the crown
        for yy in range(int(cy + r * 0.5), int(cy + r + 1.5)):
            t.put(int(cx), yy, (86, 58, 36))
            t.put(int(cx) - 1, yy, (72, 48, 30), 0.6)
        canopy(t, cx, cy, r, (18, 60, 26), (34, 96, 38), (72, 134, 54))
    return t


def make_thicket():
    rng = random.Random(4004)
    t = Tile((12, 26, 16))
    n = Fbm(rng)
    for y in range(TILE):
        for x in range(TILE):
            v = n.at(x, y)
            t.put(x, y, mix((8, 18, 12), (20, 40, 24), v))
    # many overlapping crowns, wrapped so the tile repeats seamlessly
    crowns = []
    for (px, py) in periodic_points(rng, 3, 0.9):
        crowns.append((px, py, 6.0 + rng.random() * 2.2))
    for (px, py) in periodic_points(rng, 2, 0.9):
        crowns.append((px + 8, py + 8, 5.0 + rng.random() * 2.0))
    crowns.sort(key=lambda c: c[1])  # back to front
    for cx, cy, r in crowns:
        ground_shadow(t, cx + 1.5, cy + 2.0, r, 0.55)
        canopy(t, cx, cy, r, (10, 30, 16), (22, 56, 28), (44, 86, 40))
    return t


def make_mud():
    rng = random.Random(5005)
    t = Tile((100, 80, 66))
    n = Fbm(rng)
    olive = Fbm(rng, cells=(2, 4), gains=(0.6, 0.4))
    for y in range(TILE):
        for x in range(TILE):
            v = n.at(x, y)
            c = mix((82, 64, 58), (112, 90, 70), v)  # purplish dark to brown
            o = clamp((olive.at(x, y) - 0.5) * 3.0)
            c = mix(c, (98, 94, 56), o * 0.55)  # olive, swampy patches
            c = scale(c, 1.0 + (rng.random() - 0.5) * 0.07)
            t.put(x, y, c)
    # puddles: wrapped ellipses, dark murky water with a wet rim and a sky glint
    puddles = [(9.0, 9.0, 5.5, 3.2), (23.0, 21.0, 6.5, 3.6), (24.5, 5.5, 3.2, 2.0),
               (7.0, 25.0, 3.6, 2.2)]
    for cx, cy, rx, ry in puddles:
        for y in range(int(cy - ry - 3), int(cy + ry + 4)):
            for x in range(int(cx - rx - 3), int(cx + rx + 4)):
                dx = wrap_d(x + 0.5, cx)
                dy = wrap_d(y + 0.5, cy)
                e = math.hypot(dx / rx, dy / ry)
                # distance in pixels to the ellipse border (approx.)
                dpx = (e - 1.0) * min(rx, ry)
                rim = clamp(1.5 - abs(dpx - 0.8))
                if rim > 0:
                    t.put(x, y, scale(t.get(x, y), 0.82), rim * 0.8)
                cov = clamp(0.5 - dpx)
                if cov > 0:
                    depth = clamp(1.0 - e)
                    # murky water reflecting a grey sky: lighter in the middle
                    water = mix((70, 68, 80), (104, 102, 116), depth)
                    # a glint streak across the upper-left part
                    glint = clamp(1.0 - abs((dx / rx + dy / ry) + 0.55) * 4.0) * clamp(1.0 - e)
                    water = mix(water, (176, 174, 188), glint * 0.8)
                    t.put(x, y, water, cov)
    return t


def make_water():
    rng = random.Random(6006)
    t = Tile((52, 112, 200))
    n = Fbm(rng)
    for y in range(TILE):
        for x in range(TILE):
            v = n.at(x, y)
            # gentle periodic swell across the tile
            swell = 0.5 + 0.5 * math.sin((x + y * 0.5) * 2 * math.pi / TILE * 2)
            c = mix((40, 96, 186), (64, 130, 214), clamp(v * 0.8 + swell * 0.25))
            t.put(x, y, c)
    # light wave marks: small arcs, wrapped
    waves = [(7.0, 6.0), (21.0, 4.0), (14.0, 14.5), (28.0, 15.0), (5.0, 22.0), (20.0, 26.0)]
    for wx, wy in waves:
        w = 4.2 + rng.random() * 1.5
        for i in range(-8, 9):
            fx = i / 8.0  # -1..1 along the arc
            px = wx + fx * w
            py = wy + (fx * fx) * 1.8 - 0.8  # an arch: a crest
            a = 1.0 - abs(fx) ** 3
            xi = math.floor(px)
            yi = math.floor(py)
            fy = py - yi
            t.put(xi, yi, (176, 212, 244), a * (1.0 - fy) * 0.95)
            t.put(xi, yi + 1, (176, 212, 244), a * fy * 0.95)
        # darker trough under each crest
        for i in range(-6, 7):
            fx = i / 6.0
            px = wx + fx * w * 0.8
            py = wy + (fx * fx) * 1.6 + 0.9
            xi = math.floor(px)
            yi = math.floor(py)
            t.put(xi, yi, (34, 84, 170), 0.5 * (1.0 - abs(fx)))
    return t


def make_rock():
    rng = random.Random(7007)
    t = Tile((164, 164, 168))
    n = Fbm(rng)
    pts = periodic_points(rng, 3, 0.85)
    tones = [0.9 + rng.random() * 0.18 for _ in pts]
    for y in range(TILE):
        for x in range(TILE):
            cx, cy = x + 0.5, y + 0.5
            i, d1, d2 = voronoi(cx, cy, pts)
            edge = d2 - d1  # about twice the distance to the block's border
            v = n.at(x, y)
            base = mix((142, 142, 148), (190, 190, 194), v)
            px, py = pts[i]
            ddx = wrap_d(cx, px)
            ddy = wrap_d(cy, py)
            # chunky blocks: a bevel lit from the top-left, shadowed bottom-right
            lit = -(ddx + ddy) / (abs(ddx) + abs(ddy) + 1e-6)
            bevel = clamp(1.0 - (edge - 1.0) / 4.0)
            c = scale(base, tones[i] * (1.0 + 0.22 * bevel * lit))
            crack = clamp(1.4 - edge)
            c = mix(c, (58, 58, 66), crack * 0.95)
            c = scale(c, 1.0 + (rng.random() - 0.5) * 0.07)
            t.put(x, y, c)
    # small dark pits and light flecks
    for _ in range(8):
        x = rng.randrange(TILE)
        y = rng.randrange(TILE)
        t.put(x, y, (96, 96, 104), 0.6)
        t.put(x + 1, y + 1, (206, 206, 212), 0.5)
    return t


TERRAIN = [make_grass, make_road, make_forest, make_thicket, make_mud, make_water, make_rock]


def terrain_tiles():
    return [f() for f in TERRAIN]


def make_ford(water, road):
    """Shallow water over a cobbled crossing: the water tile thinned over the road's stones,
    with a band of stepping stones across the middle."""
    t = Tile((0, 0, 0))
    for y in range(TILE):
        band = clamp(1.0 - abs(y + 0.5 - TILE / 2) / 9.0)  # 1 in the middle rows
        for x in range(TILE):
            t.put(x, y, mix(water.get(x, y), road.get(x, y), 0.3 + 0.45 * smooth(band)))
    return t


def terrain_atlas(tiles):
    w = TILE * len(tiles)
    out = [0] * (w * TILE * 4)
    for ti, t in enumerate(tiles):
        for y in range(TILE):
            for x in range(TILE):
                r, g, b = t.px[y][x]
                o = (y * w + ti * TILE + x) * 4
                out[o] = int(round(clamp(r, 0, 255)))
                out[o + 1] = int(round(clamp(g, 0, 255)))
                out[o + 2] = int(round(clamp(b, 0, 255)))
                out[o + 3] = 255
    return w, TILE, out


# --------------------------------------------------------------------------- sprites (SDF)

FILL = (240, 240, 240)
SHADE = (204, 204, 210)
OUTLINE = (16, 16, 20)
MARK = (44, 44, 52)


def sd_circle(x, y, cx, cy, r):
    return math.hypot(x - cx, y - cy) - r


def sd_segment(x, y, ax, ay, bx, by):
    pax, pay = x - ax, y - ay
    bax, bay = bx - ax, by - ay
    h = clamp((pax * bax + pay * bay) / (bax * bax + bay * bay))
    return math.hypot(pax - bax * h, pay - bay * h)


def sd_polygon(x, y, pts):
    """Signed distance to a simple polygon (negative inside)."""
    d = 1e9
    inside = False
    n = len(pts)
    for i in range(n):
        ax, ay = pts[i]
        bx, by = pts[(i + 1) % n]
        d = min(d, sd_segment(x, y, ax, ay, bx, by))
        if (ay > y) != (by > y):
            xc = ax + (y - ay) * (bx - ax) / (by - ay)
            if x < xc:
                inside = not inside
    return -d if inside else d


def render_sprite(shape, outline=2.0, mark=None, shade=None, fill=FILL):
    """shape(x, y) -> signed distance of the body; mark(x, y) -> signed distance of a dark
    mark drawn on the body; shade(x, y) -> 0..1 amount of light-grey shading on the body.
    Returns a flat RGBA list. Outline is `outline` pixels thick outside the body; `fill` is
    the body colour where it is not shaded or marked."""
    out = []
    for y in range(TILE):
        for x in range(TILE):
            px, py = x + 0.5, y + 0.5
            d = shape(px, py)
            outer = clamp(0.5 - (d - outline))  # body + outline coverage
            inner = clamp(0.5 - d)  # body coverage
            if outer <= 0:
                out.extend((0, 0, 0, 0))
                continue
            body = fill
            if shade is not None:
                body = mix(fill, SHADE, clamp(shade(px, py)))
            if mark is not None:
                m = clamp(0.5 - mark(px, py))
                body = mix(body, MARK, m)
            # coverage-weighted colour of body over outline, un-premultiplied
            c = mix(OUTLINE, body, inner / outer)
            out.extend((int(round(c[0])), int(round(c[1])), int(round(c[2])),
                        int(round(outer * 255))))
    return out


def sprite_foot():
    C = 16.0
    r = 11.0  # + 2px outline = 26px across

    def shape(x, y):
        return sd_circle(x, y, C, C, r)

    def shade(x, y):
        # soft shading towards the bottom-right so the token reads as a disc
        return clamp((math.hypot(x - C + 3, y - C + 3) - 8.0) / 8.0)

    def sword(x, y):
        # a broad blade tapering to a point, so it reads as a sword rather than a cross
        blade = sd_polygon(x, y, [(16.0, 5.8), (18.1, 9.0), (18.1, 18.6), (13.9, 18.6),
                                  (13.9, 9.0)])
        guard = sd_segment(x, y, 11.2, 19.4, 20.8, 19.4) - 1.3
        grip = sd_segment(x, y, 16, 19.4, 16, 23.0) - 1.0
        pommel = sd_circle(x, y, 16, 24.0, 1.7)
        return min(blade, guard, grip, pommel)

    return render_sprite(shape, 2.0, sword, shade)


def sprite_archer():
    """The foot soldier's round token with a drawn bow on it where the sword is: the bow's
    limb bulging right, the string pulled back to a point on the left, and an arrow on the
    string pointing right. A soldier like the sword token, told apart by its mark: a level
    bow and arrow against an upright sword."""
    C = 16.0
    r = 11.0

    def shape(x, y):
        return sd_circle(x, y, C, C, r)

    def shade(x, y):
        return clamp((math.hypot(x - C + 3, y - C + 3) - 8.0) / 8.0)

    def bow(x, y):
        # the limb: an arc of radius 7.5 around (10, 16), 72 degrees either side of level
        bx, br, half = 10.0, 7.5, math.radians(72)
        ang = math.atan2(y - C, x - bx)
        tips = [(bx + br * math.cos(half), C - br * math.sin(half)),
                (bx + br * math.cos(half), C + br * math.sin(half))]
        if abs(ang) <= half:
            limb = abs(math.hypot(x - bx, y - C) - br) - 1.3
        else:
            limb = min(math.hypot(x - tx, y - ty) for tx, ty in tips) - 1.3
        nock = (6.5, C)
        string = min(sd_segment(x, y, *tip, *nock) for tip in tips) - 0.55
        shaft = sd_segment(x, y, 5.5, C, 22.0, C) - 0.95
        head = sd_polygon(x, y, [(21.0, C - 3.3), (26.0, C), (21.0, C + 3.3)])
        return min(limb, string, shaft, head)

    return render_sprite(shape, 2.0, bow, shade)


def shield_outline():
    pts = [(5.5, 6.0), (26.5, 6.0)]
    # right side straight down, then a curve to the bottom point
    for i in range(1, 13):
        a = i / 12.0 * (math.pi / 2)
        pts.append((26.5 - 10.5 * (1 - math.cos(a)), 14.0 + 13.0 * math.sin(a)))
    for i in range(11, 0, -1):
        a = i / 12.0 * (math.pi / 2)
        pts.append((5.5 + 10.5 * (1 - math.cos(a)), 14.0 + 13.0 * math.sin(a)))
    return pts


def sprite_horse():
    pts = shield_outline()

    def shape(x, y):
        # shrink then round: soft corners on the shield
        return sd_polygon(x, y, pts)

    def shade(x, y):
        return clamp((x - 16.0) / 12.0) * 0.9

    def horseshoe(x, y):
        cx, cy, r = 16.0, 15.5, 5.3
        ring = abs(math.hypot(x - cx, y - cy) - r) - 1.35
        # open at the bottom: cut out a wedge below the centre
        ang = math.atan2(x - cx, y - cy)  # 0 = straight down
        cut = 0.62
        if abs(ang) < cut:
            # distance to the two end caps instead
            e1 = (cx + r * math.sin(cut), cy + r * math.cos(cut))
            e2 = (cx - r * math.sin(cut), cy + r * math.cos(cut))
            ring = min(math.hypot(x - e1[0], y - e1[1]), math.hypot(x - e2[0], y - e2[1])) - 1.35
        # nail holes
        holes = 1e9
        for a in (-2.0, -1.2, 1.2, 2.0):
            hx = cx + r * math.sin(a)
            hy = cy + r * math.cos(a)
            holes = min(holes, math.hypot(x - hx, y - hy) - 0.55)
        return max(ring, -holes)

    return render_sprite(shape, 2.0, horseshoe, shade)


def sprite_flyer():
    # delta wing / arrowhead pointing up
    pts = [(16.0, 4.5), (27.0, 25.5), (16.0, 20.0), (5.0, 25.5)]

    def shape(x, y):
        return sd_polygon(x, y, pts)

    def shade(x, y):
        return 0.8 if x > 16.0 else 0.0

    def spine(x, y):
        return sd_segment(x, y, 16.0, 10.5, 16.0, 17.0) - 0.9

    return render_sprite(shape, 2.0, spine, shade)


def sprite_ring():
    out = []
    C, R, half = 16.0, 14.0, 1.25
    for y in range(TILE):
        for x in range(TILE):
            d = abs(math.hypot(x + 0.5 - C, y + 0.5 - C) - R) - half
            a = clamp(0.5 - d)
            if a <= 0:
                out.extend((0, 0, 0, 0))
            else:
                out.extend((255, 255, 255, int(round(a * 255))))
    return out


def sprite_marker():
    """A thick X, white core 6.4 px wide, 2 px near-black outline: it shows on every terrain
    and at small zoom, and the game's red tint turns the core red."""
    def shape(x, y):
        a = sd_segment(x, y, 8.0, 8.0, 24.0, 24.0)
        b = sd_segment(x, y, 24.0, 8.0, 8.0, 24.0)
        return min(a, b) - 3.2

    return render_sprite(shape, 2.0, fill=(255, 255, 255))


# --------------------------------------------------------------------------- hex tiles, hover frames

HEX_SHORT = TILE  # across the flats: a hex is as wide (pointy) or tall (flat) as a square tile
HEX_LONG = 37  # across the points: 2 * 32 / sqrt(3) = 36.95, rounded to whole pixels
HEX_EDGE = 0.65  # the edge line is 35% darker than the tile


def hex_shape(pointy):
    """(width, height, corners) of the hexagon that fills a hex tile image edge to edge:
    pointy-top 32x37 (points on the top and bottom edges, flats on the left and right ones)
    or flat-top 37x32 (points on the left and right edges).  Its side corners sit a quarter
    of the long side in from the points, which is where the game's rows (columns) of hexes
    meet: 0.75 x 37 = 27.75 pixels apart."""
    if pointy:
        w, h = HEX_SHORT, HEX_LONG
        return w, h, [(w / 2, 0.0), (w, h / 4), (w, h * 3 / 4),
                      (w / 2, h), (0.0, h * 3 / 4), (0.0, h / 4)]
    w, h = HEX_LONG, HEX_SHORT
    return w, h, [(0.0, h / 2), (w / 4, 0.0), (w * 3 / 4, 0.0),
                  (w, h / 2), (w * 3 / 4, h), (w / 4, h)]


def hex_alpha(d):
    """Opacity at a pixel whose centre is `d` pixels outside the hexagon (negative: inside).
    The anti-aliasing ramp lies just outside the exact hexagon: every pixel it covers at
    least half is opaque, pixels 1 px or more outside are fully transparent.  Neighbouring
    hexes then overlap by a fringe of the same dark edge colour instead of leaving
    half-transparent seams where both edges are partly covered (an exactly complementary
    ramp lets 25% of the background through there)."""
    return clamp(1.0 - d)


def hex_atlas(tiles, pointy):
    """The terrain tiles clipped to hexagons, in one row, with a 1 px darker edge line."""
    w, h, corners = hex_shape(pointy)
    aw = w * len(tiles)
    # centre the 32x32 art in the longer side (the art is periodic, so it wraps seamlessly)
    ox = (w - TILE) // 2
    oy = (h - TILE) // 2
    out = [0] * (aw * h * 4)
    for ti, t in enumerate(tiles):
        for y in range(h):
            for x in range(w):
                d = sd_polygon(x + 0.5, y + 0.5, corners)
                a = hex_alpha(d)
                if a <= 0.0:
                    continue
                deep = clamp(-0.5 - d)  # coverage of the part more than 1 px inside
                c = scale(t.get(x - ox, y - oy), lerp(HEX_EDGE, 1.0, deep))
                o = (y * aw + ti * w + x) * 4
                out[o] = int(round(clamp(c[0], 0, 255)))
                out[o + 1] = int(round(clamp(c[1], 0, 255)))
                out[o + 2] = int(round(clamp(c[2], 0, 255)))
                out[o + 3] = int(round(a * 255))
    return aw, h, out


def outline_image(w, h, sd, alpha=None):
    """A hover frame: a 1 px near-black outer edge and a 2 px white band inside it along a
    shape's border, transparent inside.  sd(x, y): signed distance to the border (negative
    inside); alpha(d): the outer edge's opacity (default: the exact pixel's)."""
    out = []
    for y in range(h):
        for x in range(w):
            d = sd(x + 0.5, y + 0.5)
            outer = alpha(d) if alpha else clamp(0.5 - d)
            white = min(clamp(-0.5 - d), outer)  # more than 1 px inside
            hole = clamp(-2.5 - d)  # more than 3 px inside
            a = outer - hole
            if a <= 0.0:
                out.extend((0, 0, 0, 0))
                continue
            c = mix(OUTLINE, (255, 255, 255), (white - hole) / a)
            out.extend((int(round(c[0])), int(round(c[1])), int(round(c[2])),
                        int(round(a * 255))))
    return out


def hover_square():
    def sd(x, y):
        return -min(x, TILE - x, y, TILE - y)

    return TILE, TILE, outline_image(TILE, TILE, sd)


def hover_hex(pointy):
    w, h, corners = hex_shape(pointy)
    return w, h, outline_image(w, h, lambda x, y: sd_polygon(x, y, corners), hex_alpha)


# --------------------------------------------------------------------------- main

def main():
    tiles = terrain_tiles()
    for name, (w, h, px) in (("terrain", terrain_atlas(tiles)),
                             ("terrain_hex_pointy", hex_atlas(tiles, True)),
                             ("terrain_hex_flat", hex_atlas(tiles, False)),
                             ("hover", hover_square()),
                             ("hover_hex_pointy", hover_hex(True)),
                             ("hover_hex_flat", hover_hex(False))):
        write_png(os.path.join(OUT_DIR, name + ".png"), w, h, px)
    for name, fn in (("unit_foot", sprite_foot), ("unit_archer", sprite_archer),
                     ("unit_horse", sprite_horse), ("unit_flyer", sprite_flyer),
                     ("ring", sprite_ring), ("marker", sprite_marker)):
        write_png(os.path.join(OUT_DIR, name + ".png"), TILE, TILE, fn())
    # The example Tiled project's tilesets: the terrain tiles and a ford (tile 7).
    tiled = tiles + [make_ford(tiles[5], tiles[1])]
    for name, (w, h, px) in (("terrain", terrain_atlas(tiled)),
                             ("terrain_hex", hex_atlas(tiled, True))):
        write_png(os.path.join(TILED_DIR, name + ".png"), w, h, px)
    print("wrote textures to", os.path.relpath(OUT_DIR, os.getcwd()),
          "and", os.path.relpath(TILED_DIR, os.getcwd()))


if __name__ == "__main__":
    main()
