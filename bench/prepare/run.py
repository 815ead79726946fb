"""Image preparation benchmark: discern prepare against a vipsthumbnail shell pipeline and a
Pillow script doing the same job, side by side in one run, both cores busy. Writes
bench/RESULTS.md (the prepare section). Not a test: run it by hand with bench/prepare/run.sh.
"""
import os
import platform
import re
import shutil
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
DATA = os.path.join(ROOT, "bench", ".data", "prepare")
BUDGET = 10_000_000
# The job every tool does here: fit 10 MB and 4096 px. discern's own Discerner policy is tighter
# (7.8 MB, a 1600 px transform floor: docs/services.md); it is measured in "Discerner policy".
POLICY = ["--max-bytes", str(BUDGET), "--transform-floor", "0"]
DISCERN = os.environ.get("DISCERN_BIN", os.path.join(ROOT, ".build", "release", "discern"))


def run(command, **kwargs):
    return subprocess.run(command, check=True, capture_output=True, text=True, **kwargs)


def timed(command):
    """Wall seconds and the peak RSS (KiB) of the largest process, via GNU time."""
    started = time.monotonic()
    result = subprocess.run(["/usr/bin/time", "-f", "%M"] + command, capture_output=True, text=True)
    elapsed = time.monotonic() - started
    if result.returncode != 0:
        raise RuntimeError(f"{command[0]} failed: {result.stderr[-2000:]}")
    peak = int(result.stderr.strip().splitlines()[-1])
    return elapsed, peak, result


def make_set():
    """A photo-like set: 12, 24 and 48 MP JPEGs (the 12 MP ones within budget), one JPEG that
    fits only at a lower quality, one that fits only after downscaling, a PNG with alpha, a HEIC."""
    marker = os.path.join(DATA, "set.complete")
    if os.path.exists(marker):
        return
    shutil.rmtree(os.path.join(DATA, "set"), ignore_errors=True)
    out = os.path.join(DATA, "set")
    samples = [
        ("p12", "4000x3000", 8, 1, "jpg", 90, []),
        ("p24", "6000x4000", 4, 2, "jpg", 92, []),
        ("p48", "8000x6000", 4, 3, "jpg", 92, []),
        ("lowq", "4096x4096", 1, 6, "jpg", 99, ["--grain", "100"]),
        ("downscale", "4096x4096", 1, 7, "jpg", 100, ["--grain", "200"]),
        ("alpha", "3000x2000", 1, 8, "png", 90, ["--alpha"]),
        ("heic", "4000x3000", 1, 9, "heic", 90, []),
    ]
    for prefix, size, count, seed, fmt, quality, extra in samples:
        grain = [] if "--grain" in extra else ["--grain", "6"]
        run([DISCERN, "samples", out, "--size", size, "--count", str(count), "--seed", str(seed * 100),
             "--format", fmt, "--quality", str(quality), "--prefix", prefix] + grain + extra)
    four = os.path.join(DATA, "four48")
    shutil.rmtree(four, ignore_errors=True)
    os.makedirs(four)
    for name in sorted(os.listdir(out)):
        if name.startswith("p48"):
            shutil.copy(os.path.join(out, name), four)
    open(marker, "w").close()


def outputs_within_budget(folder):
    sizes = [os.path.getsize(os.path.join(folder, name)) for name in os.listdir(folder)]
    return sum(size <= BUDGET for size in sizes), len(sizes)


def throughput_round(images):
    """One run of each tool over the whole set; returns {tool: (seconds, peak KiB, within, outputs)}."""
    results = {}
    out = os.path.join(DATA, "out")
    for tool in ("discern", "vipsthumbnail", "pillow"):
        target = os.path.join(out, tool)
        shutil.rmtree(target, ignore_errors=True)
        os.makedirs(target)
        if tool == "discern":
            command = [DISCERN, "prepare", os.path.join(DATA, "set"), "--threads", "2", "--quiet", "-o", target] + POLICY
        elif tool == "vipsthumbnail":
            command = ["bash", "-c", f'ls -1 "{DATA}/set"/* | xargs -P 2 -I{{}} bash "{HERE}/vipsthumbnail-fit.sh" {{}} "{target}"']
        else:
            command = [sys.executable, os.path.join(HERE, "pillow_fit.py"), os.path.join(DATA, "set"), target, "--processes", "2"]
        seconds, peak, result = timed(command)
        within, produced = outputs_within_budget(target)
        results[tool] = (seconds, peak, within, produced, result.stdout)
    return results


def single_transform(runs=7):
    """One identical transform (a 24 MP JPEG to 4096 px, q85), discern vs vipsthumbnail, alternating."""
    source = os.path.join(DATA, "set", "p24-001.jpg")
    out = os.path.join(DATA, "out", "single")
    os.makedirs(out, exist_ok=True)
    times = {"discern": [], "vipsthumbnail": []}
    for _ in range(runs):
        for tool in times:
            if tool == "discern":
                command = [DISCERN, "prepare", source, "-o", os.path.join(out, "discern.jpg")] + POLICY
            else:
                command = ["vipsthumbnail", source, "--size", "4096x4096>", "-o", os.path.join(out, "vips.jpg[Q=85,strip]")]
            started = time.monotonic()
            run(command)
            times[tool].append(time.monotonic() - started)
    return {tool: statistics.median(values) for tool, values in times.items()}


def machine():
    cpu = "unknown"
    with open("/proc/cpuinfo") as handle:
        for line in handle:
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    memory = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") / 2**30
    # pkg-config ships with libvips-dev (installed by scripts/install-deps.sh); the `vips` tool
    # would need libvips-tools too.
    vips = "libvips " + run(["pkg-config", "--modversion", "vips"]).stdout.strip()
    try:
        import PIL
    except ImportError:
        return f"{os.cpu_count()} cores ({cpu}), {memory:.0f} GiB, {platform.platform()}; {vips}"
    return f"{os.cpu_count()} cores ({cpu}), {memory:.0f} GiB, {platform.platform()}; {vips}; Pillow {PIL.__version__}"


def main():
    make_set()
    images = len([n for n in os.listdir(os.path.join(DATA, "set")) if not n.startswith(".")])
    rounds = [throughput_round(images) for _ in range(3)]
    best = {tool: min((r[tool] for r in rounds), key=lambda x: x[0]) for tool in rounds[0]}
    single = single_transform()
    four_seconds, four_peak, _ = timed([DISCERN, "prepare", os.path.join(DATA, "four48"), "--threads", "4", "--quiet"] + POLICY)
    summary = best["discern"][4]
    median_encodes = re.search(r"median encodes per transformed image: (\d+)", summary).group(1)
    passed = re.search(r"passed through: (\d+)", summary).group(1)

    d, v, p = (best[t][0] for t in ("discern", "vipsthumbnail", "pillow"))
    lines = [
        "## Image preparation (bench/prepare)",
        "",
        f"Machine: {machine()}. Run: {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}.",
        f"Set: {images} images (8 x 12 MP, 4 x 24 MP, 4 x 48 MP photo-like JPEGs with film grain, q90-92; one JPEG over 10 MB that",
        "fits only at lower quality; one that fits only after downscaling; a PNG with alpha; a HEIC).",
        "Each tool ran 3 times over the set, both cores busy (2 threads / 2 processes); best run shown.",
        "",
        "| tool | seconds | images/s | ratio vs discern | peak RSS (largest process) | outputs within 10 MB |",
        "|---|---|---|---|---|---|",
    ]
    for tool in ("discern", "vipsthumbnail", "pillow"):
        seconds, peak, within, produced, _ = best[tool]
        lines.append(f"| {tool} | {seconds:.2f} | {images / seconds:.2f} | {seconds / d:.2f}x | {peak / 1024:.0f} MiB | {within}/{produced} |")
    lines += [
        "",
        f"- discern throughput: **{v / d:.2f}x** the vipsthumbnail pipeline, **{p / d:.2f}x** Pillow (targets: 1.5x, 3x).",
        f"- discern passed {passed} of {images} images through untouched; median encodes per transformed image: **{median_encodes}** (target: 3 or fewer).",
        f"- One identical transform (24 MP JPEG to 4096 px, q85), median of 7 alternating runs, process start included:",
        f"  discern {single['discern'] * 1000:.0f} ms, vipsthumbnail {single['vipsthumbnail'] * 1000:.0f} ms: **{single['discern'] / single['vipsthumbnail']:.2f}x** (target: 1.05x or less).",
        f"- Four 48 MP images in flight (`prepare --threads 4`): peak RSS **{four_peak / 1024:.0f} MiB** (target: 250 MB or less), {four_seconds:.2f} s.",
        "",
    ]
    report = "\n".join(lines)
    print(report)
    write_section(report, "## Image preparation")


def write_section(section, heading, path=None):
    """Puts `section` in place of the one under `heading` (or at the end) of bench/RESULTS.md, or of `path`."""
    path = path or os.path.join(ROOT, "bench", "RESULTS.md")
    text = open(path).read() if os.path.exists(path) else "# Benchmark results\n\nFigures from this machine; ratios matter more than absolute times (the machine is shared).\n\n"
    start = text.find(heading)
    if start >= 0:
        end = text.find("\n## ", start + 1)
        text = text[:start] + section + (text[end + 1:] if end >= 0 else "")
    else:
        text = text.rstrip("\n") + "\n\n" + section
    open(path, "w").write(text)


if __name__ == "__main__":
    main()
