"""PgQueuer's drain and discern's no-op drain on one PostgreSQL, alternating (bench/peer/run.sh).

discern: `ScaleBench seed URL JOBS` then one `ScaleBench work URL 32` process: the real worker
runtime (producer, executor, completer, heartbeat, rescuer, roll-up; three connections), a
backend that takes a slot of a limit far from binding and answers, results written as for any
job. Two rates: the runtime's own interval (`runtime_seconds`: from before it connects to after
its shutdown), which is what PgQueuer's drain times (from after its connections are made to its
last dequeuer's exit), and the whole process from exec to exit (library loading included).
PgQueuer: `tools/benchmark.py -s drain --jobs JOBS` with its defaults (asyncpg, 5 dequeuers of
batch 10), in a database of its own on the same cluster, its table analyzed holding a full
queue before each round (`analyze_full_queue`). One warm-up round of each is not counted.
Writes the "## Peer" section of bench/RESULTS.md.
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


def discern_rates(bench, url, jobs):
    """(rate over the runtime's own run, rate over the whole process)."""
    subprocess.run([bench, "seed", url, str(jobs), "60000000"], check=True, capture_output=True)
    started = time.monotonic()
    out = subprocess.run([bench, "work", url, "32"], check=True, capture_output=True, text=True).stdout
    elapsed = time.monotonic() - started
    if f"succeeded={jobs}" not in out:
        raise SystemExit(f"discern did not drain {jobs} jobs: {out}")
    return jobs / float(re.search(r"runtime_seconds=([0-9.e-]+)", out).group(1)), jobs / elapsed


def analyze_full_queue(url, jobs):
    """PgQueuer's statistics as a working queue's: analyzed holding `jobs` jobs, then emptied.
    Its drain enqueues and dequeues at once, before autovacuum can analyze the table; with the
    statistics of an empty table it drained at 3,300-3,700 jobs/s, with these at 13,700-13,900
    (one run each, 2026-11-24). The peer is measured at its better rate."""
    db = url.rsplit("/", 1)[0] + "/pgqueuer_bench"
    psql(db, f"INSERT INTO pgqueuer (priority, status, entrypoint, payload) "
             f"SELECT 0, 'queued', 'fetch', ''::bytea FROM generate_series(1, {int(jobs)}); "
             f"ANALYZE pgqueuer; DELETE FROM pgqueuer")


def pgqueuer_rate(checkout, url, jobs):
    analyze_full_queue(url, jobs)
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
    pgqueuer_rate(checkout, url, jobs)  # warm-up rounds, not counted
    discern_rates(bench, url, jobs)
    rounds = []
    for _ in range(3):
        peer = pgqueuer_rate(checkout, url, jobs)
        ours, whole = discern_rates(bench, url, jobs)
        rounds.append((ours, whole, peer))
        print(f"discern {ours:,.0f} jobs/s ({whole:,.0f} whole process), PgQueuer {peer:,.0f} jobs/s, ratio {ours / peer:.2f}")
    ratios = sorted(ours / peer for ours, _, peer in rounds)
    whole_ratios = sorted(whole / peer for _, whole, peer in rounds)
    table = "\n".join(f"| {i + 1} | {ours:,.0f} | {whole:,.0f} | {peer:,.0f} | {ours / peer:.2f} | {whole / peer:.2f} |"
                      for i, (ours, whole, peer) in enumerate(rounds))
    revision = subprocess.run(["git", "-C", checkout, "rev-parse", "--short", "HEAD"], capture_output=True, text=True).stdout.strip()
    section = f"""## Peer: a no-op drain beside PgQueuer (bench/peer)

{machine()}. Run: {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}. One PostgreSQL {sorted(os.listdir('/usr/lib/postgresql'))[-1]}, {jobs:,} no-op jobs each, one
warm-up round of each (not counted), then 3 rounds, alternating. PgQueuer: its own
`tools/benchmark.py -s drain` (checkout {revision}, defaults: asyncpg, 5 dequeuers of batch 10, five
connections); it times from after its connections are made to its last dequeuer's exit. Before
each of its rounds its table is analyzed holding {jobs:,} jobs, then emptied: its drain enqueues and
dequeues at once, and with the statistics of an empty table (what autovacuum leaves after a drain)
it did 3,300-3,700 jobs/s instead of 13,700-13,900. Earlier runs of this bench, without that step,
saw both of its rates: the slow one in every first round (0.88x then), in every round later.
discern: one `ScaleBench work` process, concurrency 32, three connections: the real runtime with
a no-op backend that takes a slot of a limit far from binding, and writes each job's result and
roll-up events as any job does (PgQueuer's drain writes no result). "runtime" times the
runtime's own run, from before it connects to after its shutdown (the peer's interval, plus
connecting); "whole process" times exec to exit, loading libvips and its libraries included
(about 0.08 s).

| round | discern jobs/s (runtime) | discern jobs/s (whole process) | PgQueuer jobs/s | ratio (runtime) | ratio (whole process) |
|---|---|---|---|---|---|
{table}

Median ratio: **{ratios[1]:.2f}x** over the peer's interval, {whole_ratios[1]:.2f}x over the whole process
(the target: 1.5x).

"""
    write_section(section, "## Peer:")
    print(section)


if __name__ == "__main__":
    main()
