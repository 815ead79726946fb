"""Photo sets for bench/runtime, made with pyvips (run with bench/.venv's Python), and the floor.

    python photos.py make DATA SET IMAGES   writes DATA/runtime-SET/{unique,set,manifest.json}, prints its make-up
    python photos.py floor DATA/runtime-SET  CPU seconds per image of one decode + one encode (set
                                             VIPS_CONCURRENCY=1 in the environment for one thread)

Sets: "grain" (smooth Perlin fields under Gaussian grain, sigma 6: files as large as real photos
of the same size, and as hard to compress) and "camera" (sky-like gradients, flat shapes with hard
edges, text-like blocks, a textured ground, mild sensor noise: what a camera sees in a street).
Each holds the same mix: half 12 MP JPEGs that comply and go as they are, then in equal shares
12 MP JPEGs with EXIF orientation 6, 24 MP and 48 MP JPEGs, and 12 MP PNGs with an alpha channel.
16 distinct images per set, repeated by hard links. Deterministic: every field has a fixed seed.
"""
import json
import os
import random
import shutil
import sys
import time

import pyvips

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from pyvips_pipeline import BUDGET, jpeg_shrink, passes_through  # noqa: E402

# kind: (width, height, format, EXIF orientation, distinct images)
KINDS = {
    "pass": (4000, 3000, "jpg", 1, 8),
    "rotated": (4000, 3000, "jpg", 6, 2),
    "p24": (6000, 4000, "jpg", 1, 2),
    "p48": (8000, 6000, "jpg", 1, 2),
    "png-alpha": (4000, 3000, "png", 1, 2),
}
SEEDS = {"grain": 500, "camera": 900}


def shares(images):
    """Half pass through; the rest in equal shares (the remainder to the first kinds)."""
    rest = images - images // 2
    counts = {"pass": images // 2}
    for index, kind in enumerate(k for k in KINDS if k != "pass"):
        counts[kind] = rest // 4 + (1 if index < rest % 4 else 0)
    return counts


def grain_picture(width, height, seed):
    cell = max(16, min(width, height) // 6)
    bands = [(pyvips.Image.perlin(width, height, cell_size=cell, uchar=True, seed=seed * 7 + c)
              + pyvips.Image.gaussnoise(width, height, sigma=6, mean=0, seed=seed * 7 + c + 1000)).cast("uchar")
             for c in range(3)]
    return bands[0].bandjoin(bands[1:]).copy(interpretation="srgb")


def camera_picture(width, height, seed):
    rng = random.Random(seed)
    horizon = int(height * rng.uniform(0.45, 0.6))
    # Sky: a vertical gradient from a deep to a pale blue, soft clouds; ground: a base colour
    # with two scales of texture (gravel, grass).
    t = pyvips.Image.xyz(width, height)[1] / horizon
    top = [rng.uniform(40, 90), rng.uniform(90, 130), rng.uniform(170, 220)]
    low = [rng.uniform(180, 215), rng.uniform(200, 225), rng.uniform(225, 245)]
    clouds = pyvips.Image.perlin(width, height, cell_size=width // 3, seed=seed).abs() * 60
    sky = t * [l - h for l, h in zip(low, top)] + top + clouds
    texture = (pyvips.Image.perlin(width, height, cell_size=max(8, width // 300), seed=seed + 1) * 22
               + pyvips.Image.perlin(width, height, cell_size=max(4, width // 1500), seed=seed + 2) * 10)
    ground = texture + [rng.uniform(70, 120), rng.uniform(80, 120), rng.uniform(50, 90)]
    base = (pyvips.Image.xyz(width, height)[1] < horizon).ifthenelse(sky, ground).cast("uchar")

    # Shapes with hard edges, drawn straight into the pixels (pyvips' draw_* copy the whole image
    # on every call: hundreds of shapes on a 48 MP image would take minutes).
    pixels = bytearray(base.write_to_memory())

    def rect(ink, x, y, w, h):
        x0, x1, y0, y1 = max(0, x), min(width, x + w), max(0, y), min(height, y + h)
        if x0 < x1:
            row = bytes(int(min(255, max(0, c))) for c in ink) * (x1 - x0)
            for line in range(y0, y1):
                start = (line * width + x0) * 3
                pixels[start:start + len(row)] = row

    def circle(ink, cx, cy, r):
        for dy in range(-r, r + 1):
            half = int((r * r - dy * dy) ** 0.5)
            rect(ink, cx - half, cy + dy, 2 * half + 1, 1)

    s = width / 4000
    for _ in range(rng.randint(4, 7)):  # buildings with rows of windows
        w, h = int(rng.uniform(0.06, 0.18) * width), int(rng.uniform(0.12, 0.38) * height)
        x = rng.randrange(0, width - w)
        grey = rng.uniform(60, 200)
        colour = [grey + rng.uniform(-20, 20) for _ in range(3)]
        rect(colour, x, horizon - h, w, h)
        pane = int(rng.uniform(20, 40) * s)
        for wy in range(horizon - h + pane, horizon - pane, pane * 2):
            for wx in range(x + pane // 2, x + w - pane, int(pane * 1.6)):
                rect([c * 0.4 for c in colour], wx, wy, pane, pane)
    rect([200, 200, 190], 0, horizon + int(0.02 * height), width, max(2, int(6 * s)))  # a kerb line
    for _ in range(rng.randint(2, 3)):  # vehicles: a body, wheels, a plate with characters
        w, h = int(rng.uniform(0.15, 0.25) * width), int(rng.uniform(0.08, 0.12) * height)
        x, y = rng.randrange(0, width - w), horizon + rng.randrange(h // 2, height - horizon - h - h // 3)
        rect([rng.uniform(0, 255) for _ in range(3)], x, y, w, h)
        for wx in (x + w // 5, x + 4 * w // 5):
            circle([25, 25, 25], wx, y + h, h // 3)
            circle([150, 150, 150], wx, y + h, h // 7)
        px, py, pw, ph = x + w // 2 - int(120 * s), y + h - int(70 * s), int(240 * s), int(55 * s)
        rect([235, 235, 225], px, py, pw, ph)
        for cx in range(px + int(10 * s), px + pw - int(20 * s), int(28 * s)):
            rect([20, 20, 30], cx, py + int(10 * s), int(18 * s), ph - int(20 * s))
    sx, sy = rng.randrange(0, width // 2), rng.randrange(0, horizon // 2)  # a sign with lines of words
    sw, sh, line = int(0.3 * width), int(0.12 * height), max(8, int(36 * s))
    rect([240, 240, 235], sx, sy, sw, sh)
    for ly in range(sy + line, sy + sh - line, line * 2):
        lx = sx + line
        while lx < sx + sw - 4 * line:
            word = int(rng.uniform(2, 7) * line)
            rect([30, 30, 60], lx, ly, min(word, sx + sw - line - lx), line)
            lx += word + line
    for _ in range(rng.randint(3, 6)):  # poles
        rect([40, 40, 40], rng.randrange(0, width), int(horizon * 0.3), max(2, int(8 * s)), int(horizon * 0.7))
    circle([250, 245, 220], rng.randrange(0, width), rng.randrange(0, horizon // 3), int(90 * s))  # the sun
    # The lens and the demosaicing soften every edge a little.
    drawn = pyvips.Image.new_from_memory(pixels, width, height, 3, "uchar").gaussblur(0.6)
    noise = pyvips.Image.gaussnoise(width, height, sigma=2.5, mean=0, seed=seed + 3)
    noise = noise.bandjoin([pyvips.Image.gaussnoise(width, height, sigma=2.5, mean=0, seed=seed + 4 + c) for c in range(2)])
    return (drawn + noise).cast("uchar").copy(interpretation="srgb")


def write(kind, picture, path, seed):
    width, height, fmt, orientation, _ = KINDS[kind]
    image = picture(width, height, seed)
    if fmt == "png":
        alpha = pyvips.Image.perlin(width, height, cell_size=max(16, min(width, height) // 3), uchar=True, seed=seed + 99)
        image.bandjoin(alpha).pngsave(path)
        return
    if orientation != 1:
        image = image.copy()
        image.set_type(pyvips.GValue.gint_type, "orientation", orientation)
    image.jpegsave(path, Q=90)


def make(data, name, images):
    folder = os.path.join(data, f"runtime-{name}")
    manifest_path = os.path.join(folder, "manifest.json")
    if os.path.exists(manifest_path):
        manifest = json.load(open(manifest_path))
        if manifest["images"] == images:
            return manifest
    unique, full = os.path.join(folder, "unique"), os.path.join(folder, "set")
    complete = os.path.join(unique, ".complete")
    started = time.monotonic()
    distinct = {kind: [os.path.join(unique, f"{kind}-{number}.{fmt}") for number in range(count)]
                for kind, (_, _, fmt, _, count) in KINDS.items()}
    if not os.path.exists(complete):  # the distinct images, once; another IMAGES only links anew
        shutil.rmtree(folder, ignore_errors=True)
        os.makedirs(unique)
        picture = {"grain": grain_picture, "camera": camera_picture}[name]
        for index, kind in enumerate(KINDS):
            for number, path in enumerate(distinct[kind]):
                write(kind, picture, path, SEEDS[name] + 50 * index + number)
        open(complete, "w").close()
    shutil.rmtree(full, ignore_errors=True)
    os.makedirs(full)
    files = {}
    for kind, count in shares(images).items():
        for number in range(count):
            source = distinct[kind][number % len(distinct[kind])]
            target = os.path.join(full, f"{kind}-{number:04d}{os.path.splitext(source)[1]}")
            os.link(source, target)
            files[target] = {"kind": kind, "source": source}
    too_large = [p for p in distinct["pass"] if os.path.getsize(p) > BUDGET]
    if too_large:
        raise SystemExit(f"{name}: 12 MP JPEGs over the budget, they would not pass through: {too_large}")
    makeup = {}
    for kind, count in shares(images).items():
        sizes = [os.path.getsize(p) for p, entry in files.items() if entry["kind"] == kind]
        makeup[kind] = {"files": count, "distinct": len(distinct[kind]), "mean_bytes": sum(sizes) / max(1, len(sizes))}
    manifest = {"set": name, "images": images, "files": files, "makeup": makeup,
                "mean_bytes": sum(os.path.getsize(p) for p in files) / len(files),
                "seconds": round(time.monotonic() - started, 1)}
    json.dump(manifest, open(manifest_path, "w"), indent=1)
    return manifest


def floor(folder):
    """One decode and one encode per image, nothing else: pass-through files are only read; the
    others are decoded once (JPEG at the shrink-on-load scale the pipeline uses) and encoded once
    at Q85. The best of three tries per distinct image, weighted by its share of the set."""
    manifest = json.load(open(os.path.join(folder, "manifest.json")))
    cost = {}
    for source in sorted({entry["source"] for entry in manifest["files"].values()}):
        header = pyvips.Image.new_from_file(source)
        tries = []
        for _ in range(3):
            started = time.process_time()
            if passes_through(header, os.path.getsize(source)):
                open(source, "rb").read()
            elif header.get("vips-loader") == "jpegload":
                pyvips.Image.new_from_file(source, shrink=jpeg_shrink(header), access="sequential").jpegsave_buffer(Q=85)
            else:
                pyvips.Image.new_from_file(source, access="sequential").jpegsave_buffer(Q=85)
            tries.append(time.process_time() - started)
        cost[source] = min(tries)
    per_image = sum(cost[entry["source"]] for entry in manifest["files"].values()) / len(manifest["files"])
    return {"cpu_per_image": per_image, "distinct": {os.path.basename(k): v for k, v in cost.items()}}


if __name__ == "__main__":
    if sys.argv[1] == "make":
        print(json.dumps(make(sys.argv[2], sys.argv[3], int(sys.argv[4]))))
    elif sys.argv[1] == "floor":
        print(json.dumps(floor(sys.argv[2])))
    else:
        raise SystemExit(__doc__)
