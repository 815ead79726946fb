"""Queue benchmark: discern's claim + complete against raw SKIP LOCKED (pgbench, 8 clients,
batches of 100) in the same run on the same private cluster, plus latency and bulk figures.
Writes the queue section of bench/RESULTS.md. Run with bench/queue/run.sh."""
import os
import re
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "bench", "prepare"))
from run import machine, write_section  # noqa: E402  (shared report helpers)

PGBIN = sorted(os.listdir("/usr/lib/postgresql"))[-1]
PGBENCH = f"/usr/lib/postgresql/{PGBIN}/bin/pgbench"


def sh(*command, **kwargs):
    return subprocess.run(command, check=True, capture_output=True, text=True, **kwargs).stdout


def main():
    url = sys.argv[1]
    bench_bin = sys.argv[2]
    workers = 8
    # Raw baseline table, refilled before each pgbench run.
    sh("psql", url, "-qc", """
        DROP TABLE IF EXISTS bench_raw;
        CREATE TABLE bench_raw (id bigserial PRIMARY KEY, state text NOT NULL DEFAULT 'available', owner int);
        CREATE INDEX bench_raw_available ON bench_raw (id) WHERE state = 'available';
        CREATE INDEX bench_raw_running ON bench_raw (owner) WHERE state = 'running';
        INSERT INTO bench_raw (state) SELECT 'available' FROM generate_series(1, 3000000);""",
       "-c", "VACUUM ANALYZE bench_raw")
    out = sh(PGBENCH, "-n", "-c", str(workers), "-j", "2", "-T", "15", "-f", os.path.join(HERE, "raw-claim-complete.sql"), url)
    tps = float(re.search(r"tps = ([\d.]+)", out).group(1))
    raw_jobs = tps * 100
    sh("psql", url, "-qc", "DROP TABLE bench_raw")

    started = time.monotonic()
    figures = dict(line.split("=", 1) for line in sh(bench_bin, url, "--workers", str(workers)).split())
    print(f"discern bench took {time.monotonic() - started:.0f} s", file=sys.stderr)
    discern = float(figures["discern_batch100_jobs_per_s"])
    lines = [
        "## Queue (bench/queue)",
        "",
        f"Machine: {machine()}. PostgreSQL {PGBIN} (private cluster, fsync off for both sides). Run: {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}.",
        "",
        "| measure | figure | target |",
        "|---|---|---|",
        f"| raw SKIP LOCKED claim + complete, pgbench, {workers} clients, batches of 100 | {raw_jobs:,.0f} jobs/s | baseline |",
        f"| discern no-op claim + complete (result row written), {workers} connections, batches of 100 | {discern:,.0f} jobs/s = **{discern / raw_jobs:.0%}** of raw | at least 50 % |",
        f"| discern no-op, one job per claim and completion | {float(figures['discern_batch1_jobs_per_s']):,.0f} jobs/s | — |",
        f"| idle enqueue-to-claim latency (LISTEN/NOTIFY), p50 / p99 | {figures['idle_latency_p50_ms']} ms / {figures['idle_latency_p99_ms']} ms | p50 at most 5 ms |",
        f"| claim of 10, median, 10k queued | {figures['claim_ms_10k']} ms | — |",
        f"| claim of 10, median, {int(figures['backlog']):,} queued | {figures['claim_ms_backlog']} ms = **{float(figures['claim_ms_backlog']) / float(figures['claim_ms_10k']):.2f}x** | within 1.25x |",
        f"| bulk enqueue of {int(figures['bulk']):,} paths (`JobQueue.enqueue`: COPY into a staging table, one INSERT) | {figures['bulk_enqueue_s']} s | at most 60 s |",
        "",
    ]
    report = "\n".join(lines)
    print(report)
    write_section(report, "## Queue")


if __name__ == "__main__":
    main()
