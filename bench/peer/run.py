"""PgQueuer's drain and discern's no-op drain on one PostgreSQL, alternating (bench/peer/run.sh).

discern: `ScaleBench seed URL JOBS` then one `ScaleBench work URL 32` process: the real worker
runtime (producer, executor, completer, heartbeat, rescuer; three connections), a backend that
takes a slot of a limit far from binding and answers, results written as for any job.
PgQueuer: `tools/benchmark.py -s drain --jobs JOBS` with its defaults (asyncpg, 5 dequeuers of
batch 10), in a database of its own on the same cluster. Writes the "## Peer" section of
bench/RESULTS.md.
"""
import os
import re
import subprocess
import sys
import time

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
sys.path.insert(0, os.path.join(ROOT, "bench", "prepare"))
from run import machine, write_section  # noqa: E402


def psql(url, sql):
    subprocess.run(["psql", url, "-qAtc", sql], check=True, capture_output=True, text=True)


def discern_rate(bench, url, jobs):
    subprocess.run([bench, "seed", url, str(jobs), "60000000"], check=True, capture_output=True)
    started = time.monotonic()
    out = subprocess.run([bench, "work", url, "32"], check=True, capture_output=True, text=True).stdout
    elapsed = time.monotonic() - started
    if f"succeeded={jobs}" not in out:
        raise SystemExit(f"discern did not drain {jobs} jobs: {out}")
    return jobs / elapsed


def pgqueuer_rate(checkout, url, jobs):
    host, port = re.search(r"@([^:/]+):(\d+)/", url).groups()
    env = dict(os.environ, PGHOST=host, PGPORT=port, PGUSER="discern", PGDATABASE="pgqueuer_bench")
    out = subprocess.run([sys.executable, os.path.join(checkout, "tools", "benchmark.py"), "-s", "drain", "--jobs", str(jobs)],
                         check=True, capture_output=True, text=True, env=env, cwd=checkout).stdout
    return float(re.search(r"Rate\s*\|\s*([0-9.]+)", out).group(1))


def main():
    url, bench, checkout, jobs = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
    admin = url.rsplit("/", 1)[0] + "/postgres"
    psql(admin, "DROP DATABASE IF EXISTS pgqueuer_bench")
    psql(admin, "CREATE DATABASE pgqueuer_bench")
    host, port = re.search(r"@([^:/]+):(\d+)/", url).groups()
    subprocess.run([sys.executable, "-m", "pgqueuer", "install"], check=True, capture_output=True,
                   env=dict(os.environ, PGHOST=host, PGPORT=port, PGUSER="discern", PGDATABASE="pgqueuer_bench"))
    rounds = []
    for _ in range(3):
        peer = pgqueuer_rate(checkout, url, jobs)
        ours = discern_rate(bench, url, jobs)
        rounds.append((ours, peer))
        print(f"discern {ours:,.0f} jobs/s, PgQueuer {peer:,.0f} jobs/s, ratio {ours / peer:.2f}")
    ratios = sorted(ours / peer for ours, peer in rounds)
    table = "\n".join(f"| {i + 1} | {ours:,.0f} | {peer:,.0f} | {ours / peer:.2f} |" for i, (ours, peer) in enumerate(rounds))
    revision = subprocess.run(["git", "-C", checkout, "rev-parse", "--short", "HEAD"], capture_output=True, text=True).stdout.strip()
    section = f"""## Peer: a no-op drain beside PgQueuer (bench/peer)

{machine()}. One PostgreSQL {sorted(os.listdir('/usr/lib/postgresql'))[-1]}, {jobs:,} no-op jobs each, alternating, 3 rounds. PgQueuer: its own
`tools/benchmark.py -s drain` (checkout {revision}, defaults: asyncpg, 5 dequeuers of batch 10).
discern: one `ScaleBench work` process, concurrency 32: the real runtime with a no-op backend that
takes a slot of a limit far from binding, and writes each job's result and roll-up events as any
job does (PgQueuer's drain writes no result); its rate counts from the process's start to its exit.

| round | discern jobs/s | PgQueuer jobs/s | ratio |
|---|---|---|---|
{table}

Median ratio: **{ratios[1]:.2f}x** (issue 23's target: 1.5x). PgQueuer's first round of a run is the
slowest of its three every time we ran it (a cold start of its benchmark); the median does not
rest on it.
"""
    write_section(section, "## Peer:")
    print(section)


if __name__ == "__main__":
    main()
