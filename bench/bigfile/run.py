"""Peak RSS preparing a 211 MB PNG, alone and two at once in a worker: this build against an
earlier one, alternating. Called by run.sh, which builds both and starts PostgreSQL and the
simulator."""
import os, re, struct, subprocess, sys, zlib

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "prepare"))
from run import machine, write_section  # noqa: E402

DATA = os.path.join("bench", ".data", "bigfile")


def big_png(path, width=8000, height=8800):
    """Stored (uncompressed) deflate: 8000 x 8800 RGB noise is a 211 MB file."""
    if os.path.exists(path):
        return
    def chunk(kind, body):
        return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body) & 0xFFFFFFFF)
    compressor, row = zlib.compressobj(0), b"\x00" + os.urandom(width * 3)
    with open(path, "wb") as out:
        out.write(b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)))
        for _ in range(0, height, 100):
            out.write(chunk(b"IDAT", compressor.compress(row * 100)))
        out.write(chunk(b"IDAT", compressor.flush()) + chunk(b"IEND", b""))


def peak_mb(command, env=None):
    result = subprocess.run(["/usr/bin/time", "-v"] + command, capture_output=True, text=True, env=env)
    if result.returncode != 0:
        raise SystemExit(f"{command[0]} failed: {result.stderr[-800:]}")
    return int(re.search(r"Maximum resident set size \(kbytes\): (\d+)", result.stderr).group(1)) / 1024


def worker_peak(binary, url, simulator, png):
    database = url.rsplit("/", 1)[0] + "/bigfile"
    admin = url.rsplit("/", 1)[0] + "/postgres"
    subprocess.run(["psql", admin, "-qc", "DROP DATABASE IF EXISTS bigfile", "-c", "CREATE DATABASE bigfile"], check=True, capture_output=True)
    subprocess.run([binary, "migrate", "--database-url", database], check=True, capture_output=True)
    subprocess.run(["psql", database, "-qc", f"SELECT discern.enqueue('{png}'), discern.enqueue('{png}')"], check=True, capture_output=True)
    env = dict(os.environ, DISCERN_PATH_ROOTS=os.path.dirname(png))
    return peak_mb([binary, "work", "--drain", "--database-url", database, "--discerner-url", simulator, "--prepare-threads", "2",
                    "--max-mb-in-flight", "64", "--no-progress", "--log-level", "warning"], env)


def main():
    url, simulator, current, before, revision = sys.argv[1:6]
    png = os.path.abspath(os.path.join(DATA, "big.png"))
    big_png(png)
    rows = {"now": {"prepare": [], "worker": []}, revision: {"prepare": [], "worker": []}}
    for _ in range(3):
        for label, binary in [("now", current), (revision, before)]:
            rows[label]["prepare"].append(peak_mb([binary, "prepare", png]))
            rows[label]["worker"].append(worker_peak(binary, url, simulator, png))
    median = lambda values: sorted(values)[len(values) // 2]
    table = "\n".join(f"| {label} | {median(r['prepare']):.0f} MB | {median(r['worker']):.0f} MB |" for label, r in rows.items())
    now, then = rows["now"], rows[revision]
    section = f"""## Large files: memory by pixels, not by file size (bench/bigfile)

{machine()}. A 211 MB PNG (8000x8800 RGB, stored deflate), release builds of this checkout and
of {revision}, alternating, 3 rounds, median peak RSS (`/usr/bin/time -v`):

| build | `discern prepare` of one | a worker preparing two at once (`--prepare-threads 2 --max-mb-in-flight 64`) |
|---|---|---|
{table}

Ratio (before / now): prepare {median(then['prepare']) / median(now['prepare']):.1f}x, worker {median(then['worker']) / median(now['worker']):.1f}x.
Before, the pass-through structure check read the whole file and copied it twice before libvips
saw a pixel, and nothing bounded two images at once; now the walk reads a 1 MB window and keeps
byte ranges, and preparation reserves its memory by pixels from `--max-mb-in-flight`.
"""
    write_section(section, "## Large files:")
    print(section)


if __name__ == "__main__":
    main()
