"""bench/enqueue: `discern enqueue` of 1, 3 and 10 million files, and a crashed run resumed.

    python3 bench/enqueue/run.py PATH-TO-DISCERN URL [MILLIONS...]

Two trees of 1,000 files per folder with .jpg names (enqueue walks by extension; it does not
decode): 10 million empty files (an inode each, no data block), enqueued with --no-dedupe at
1M, 3M and 10M (walk, path checks, COPY); and 1 million small distinct files (a line of text:
4 GB of blocks on ext4, which is why not 10 million), enqueued with dedupe on, the default
(each file also read and hashed), once whole and once killed with SIGKILL part way and run
again: the second run must add exactly what the first had not committed. Each run starts on an
empty queue; time and peak RSS by GNU time. Writes the "## Enqueue" section of bench/RESULTS.md.
"""
import os
import shutil
import signal
import subprocess
import sys
import time

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
sys.path.insert(0, os.path.join(ROOT, "bench", "prepare"))
from run import machine, write_section  # noqa: E402

DATA = os.path.join(ROOT, "bench", ".data")
EMPTY, CONTENT = os.path.join(DATA, "enqueue-empty"), os.path.join(DATA, "enqueue-content")
PER_FOLDER, FOLDERS_PER_MILLION = 1000, 1000


def psql(url, sql):
    return subprocess.run(["psql", url, "-qAtc", sql], check=True, capture_output=True, text=True).stdout.strip()


def make_tree(tree, millions, content):
    """tree/m<k>/d<j>/f<i>.jpg: one top folder per million, made once and kept between runs."""
    for million in range(millions):
        top = os.path.join(tree, f"m{million:02d}")
        if os.path.exists(os.path.join(top, ".complete")):
            continue
        shutil.rmtree(top, ignore_errors=True)
        for folder in range(FOLDERS_PER_MILLION):
            path = os.path.join(top, f"d{folder:04d}")
            os.makedirs(path)
            for index in range(PER_FOLDER):
                fd = os.open(os.path.join(path, f"f{index:04d}.jpg"), os.O_WRONLY | os.O_CREAT, 0o644)
                if content:
                    os.write(fd, f"photo {million} {folder} {index}\n".encode())
                os.close(fd)
        open(os.path.join(top, ".complete"), "w").close()
        print(f"{tree}: million {million + 1} made", file=sys.stderr)


def enqueue(discern, url, tree, millions, dedupe, kill_after=None):
    """Runs enqueue over the first `millions` top folders of `tree` into an empty queue (unless
    resuming); returns (seconds, peak RSS MB, its last line). With kill_after, SIGKILLs it once
    that many jobs are in the queue."""
    paths = [os.path.join(tree, f"m{m:02d}") for m in range(millions)]
    command = ["/usr/bin/time", "-f", "%e %M", discern, "enqueue", *paths, "--batch", "bench-enqueue", "--path-root", tree]
    command += [] if dedupe else ["--no-dedupe"]
    process = subprocess.Popen(command, env=dict(os.environ, DISCERN_DATABASE_URL=url), stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, text=True, start_new_session=True)
    if kill_after:
        while process.poll() is None and int(psql(url, "SELECT count(*) FROM discern.jobs")) < kill_after:
            time.sleep(0.2)
        os.killpg(process.pid, signal.SIGKILL)
        process.communicate()
        return None
    out, err = process.communicate()
    if process.returncode != 0:
        raise RuntimeError(f"enqueue failed: {err[-2000:]}")
    wall, rss_kb = err.strip().splitlines()[-1].split()
    return float(wall), int(rss_kb) / 1024, out.strip()


def empty_queue(url):
    psql(url, "TRUNCATE discern.results, discern.jobs, discern.batches RESTART IDENTITY CASCADE")


def main():
    discern, url = sys.argv[1], sys.argv[2]
    sizes = [int(x) for x in sys.argv[3:]] or [1, 3, 10]
    started = time.monotonic()
    make_tree(EMPTY, max(sizes), content=False)
    make_tree(CONTENT, 1, content=True)
    tree_seconds = time.monotonic() - started
    subprocess.run([discern, "migrate"], env=dict(os.environ, DISCERN_DATABASE_URL=url), check=True, capture_output=True)
    rows = []
    for millions in sizes:
        empty_queue(url)
        seconds, rss, _ = enqueue(discern, url, EMPTY, millions, dedupe=False)
        rows.append(("no", millions, seconds, rss, int(psql(url, "SELECT count(*) FROM discern.jobs"))))
        print(rows[-1], file=sys.stderr)
    empty_queue(url)
    seconds, rss, _ = enqueue(discern, url, CONTENT, 1, dedupe=True)
    rows.append(("yes", 1, seconds, rss, int(psql(url, "SELECT count(*) FROM discern.jobs"))))
    print(rows[-1], file=sys.stderr)
    # A crash part way: SIGKILL at about 40 %, then the same command again.
    empty_queue(url)
    enqueue(discern, url, CONTENT, 1, dedupe=True, kill_after=400_000)
    kept = int(psql(url, "SELECT count(*) FROM discern.jobs"))
    resume_seconds, resume_rss, resume_out = enqueue(discern, url, CONTENT, 1, dedupe=True)
    total = int(psql(url, "SELECT count(*) FROM discern.jobs"))
    distinct = int(psql(url, "SELECT count(DISTINCT unique_key) FROM discern.jobs"))
    print(kept, total, distinct, resume_out, file=sys.stderr)

    base = rows[0][2] / rows[0][1]

    def relative(dedupe, millions, seconds):
        return f"{seconds / millions / base:.2f}" if dedupe == "no" else "–"

    table = [f"| {m:,}M | {d} | {c:,} | {s:,.0f} | **{c / s:,.0f}** | {relative(d, m, s)} | {r:,.0f} |"
             for d, m, s, r, c in rows]
    lines = [
        "## Enqueue (bench/enqueue)",
        "",
        f"Machine: {machine()}. Run: {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}. `discern enqueue` into an empty queue "
        "on a private PostgreSQL; 1,000 files per folder; time and peak RSS by GNU time. Without dedupe: 10 million empty "
        "files (walk, path-root checks, COPY in 10,000-file transactions). With dedupe (the default: every file read and "
        "hashed): 1 million files of a line each (10 million would take 40 GB of 4 KB blocks here). "
        f"Trees made in {tree_seconds:,.0f} s and kept between runs.",
        "",
        "| files | dedupe | jobs added | seconds | files/s | seconds per million, relative to 1M | peak RSS MB |",
        "|---|---|---|---|---|---|---|",
        *table,
        "",
        f"- Resumed after a crash: SIGKILL once {kept:,} jobs were in (each 10,000-file chunk commits on its own), then the same "
        f"command again: \"{resume_out}\", {resume_seconds:,.0f} s, peak RSS {resume_rss:,.0f} MB; {total:,} jobs in all, "
        f"{distinct:,} distinct content keys (nothing lost, nothing twice).",
        "",
    ]
    report = "\n".join(lines)
    print(report)
    write_section(report, "## Enqueue")


if __name__ == "__main__":
    main()
