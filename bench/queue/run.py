"""Queue benchmark: discern's claim + complete against raw SKIP LOCKED (pgbench, 8 clients,
batches of 100) and against the same SQL by hand on copies of discern's tables, in the same run on
the same private cluster, plus latency and bulk figures.
Writes the queue section of bench/RESULTS.md. Run with bench/queue/run.sh."""
import os
import re
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "bench", "prepare"))
from run import machine, write_section  # noqa: E402  (shared report helpers)
from ab import clear_roll_up_events  # noqa: E402

PGBIN = sorted(os.listdir("/usr/lib/postgresql"))[-1]
PGBENCH = f"/usr/lib/postgresql/{PGBIN}/bin/pgbench"


def sh(*command, **kwargs):
    return subprocess.run(command, check=True, capture_output=True, text=True, **kwargs).stdout


WRITE_MARK = "SELECT pg_wal_lsn_diff(pg_current_wal_lsn(), '0/0')::bigint, txid_current()"


def write_mark(url):
    """(WAL position in bytes, a new transaction id): the difference of two marks is what was
    written between them. Every transaction that wrote takes an id; the mark takes one itself."""
    wal, xid = sh("psql", url, "-XAtc", WRITE_MARK).strip().split("|")
    return int(wal), int(xid)


def per_job(before, after, jobs):
    return (after[0] - before[0]) / jobs, (after[1] - before[1] - 1) / jobs


def raw_throughput(url, workers):
    """pgbench's raw SKIP LOCKED claim + complete, batches of 100, 15 s, on a fresh table: (jobs/s,
    WAL bytes per job, writing transactions per job). Both pgbench baselines run as prepared
    statements, as discern's do: the strongest anchor (simple and prepared read the same here,
    42-59k against 48-57k jobs/s, 2026-11-27)."""
    sh("psql", url, "-qc", """
        DROP TABLE IF EXISTS bench_raw;
        CREATE TABLE bench_raw (id bigserial PRIMARY KEY, state text NOT NULL DEFAULT 'available', owner int);
        CREATE INDEX bench_raw_available ON bench_raw (id) WHERE state = 'available';
        CREATE INDEX bench_raw_running ON bench_raw (owner) WHERE state = 'running';
        INSERT INTO bench_raw (state) SELECT 'available' FROM generate_series(1, 3000000);""",
       "-c", "VACUUM ANALYZE bench_raw")
    mark = write_mark(url)
    out = sh(PGBENCH, "-n", "-M", "prepared", "-c", str(workers), "-j", "2", "-T", "15", "-f", os.path.join(HERE, "raw-claim-complete.sql"), url)
    cost = per_job(mark, write_mark(url), int(sh("psql", url, "-XAtc", "SELECT count(*) FROM bench_raw WHERE state = 'done'")))
    sh("psql", url, "-qc", "DROP TABLE bench_raw")
    return (float(re.search(r"tps = ([\d.]+)", out).group(1)) * 100,) + cost


SCHEMA_JOBS = 1_000_000


def schema_throughput(url, workers, triggers=False):
    """schema-claim-complete.sql: the raw claim + complete by hand on copies of discern's jobs and
    results tables (indexes, CHECKs, storage settings; with `triggers`, every trigger of the two
    tables too: the roll-ups and the guards), batches of 100, 15 s: (jobs/s, WAL bytes per job,
    writing transactions per job). Needs discern's schema in the database."""
    sh("psql", url, "-qc", f"""
        DROP TABLE IF EXISTS bench_results, bench_jobs;
        CREATE TABLE bench_jobs (LIKE discern.jobs INCLUDING ALL);
        CREATE TABLE bench_results (LIKE discern.results INCLUDING ALL);
        DO $$ DECLARE copy record; BEGIN
            FOR copy IN SELECT c.relname, array_to_string(c.reloptions, ', ') AS options FROM pg_class c
                        WHERE c.oid IN ('discern.jobs'::regclass, 'discern.results'::regclass) AND c.reloptions IS NOT NULL LOOP
                EXECUTE format('ALTER TABLE %I SET (%s)', 'bench_' || copy.relname, copy.options);
            END LOOP;
        END $$;
        INSERT INTO bench_jobs (image_path) SELECT '/bench/' || n || '.jpg' FROM generate_series(1, {SCHEMA_JOBS}) AS n;""",
       "-c", "VACUUM ANALYZE bench_jobs", "-c", "ANALYZE bench_results")
    clear_roll_up_events(url)
    if triggers:  # after the jobs are in: the enqueue's triggers are not what is measured
        sh("psql", url, "-qc", """
            DO $$ DECLARE copy record; BEGIN
                FOR copy IN SELECT pg_get_triggerdef(t.oid) AS definition FROM pg_trigger t
                            WHERE t.tgrelid IN ('discern.jobs'::regclass, 'discern.results'::regclass) AND NOT t.tgisinternal LOOP
                    EXECUTE replace(replace(copy.definition, ' ON discern.jobs ', ' ON bench_jobs '),
                                    ' ON discern.results ', ' ON bench_results ');
                END LOOP;
            END $$;""")
    mark = write_mark(url)
    out = sh(PGBENCH, "-n", "-M", "prepared", "-c", str(workers), "-j", "2", "-T", "15", "-f", os.path.join(HERE, "schema-claim-complete.sql"), url)
    done, left = (int(n) for n in sh("psql", url, "-XAtc", "SELECT (SELECT count(*) FROM bench_results), "
                                     "(SELECT count(*) FROM bench_jobs WHERE state = 'available')").strip().split("|"))
    if left == 0:
        sys.exit(f"schema baseline drained all {SCHEMA_JOBS:,} jobs in 15 s: raise SCHEMA_JOBS")
    cost = per_job(mark, write_mark(url), done)
    sh("psql", url, "-qc", "DROP TABLE bench_results, bench_jobs")
    return (float(re.search(r"tps = ([\d.]+)", out).group(1)) * 100,) + cost


def discern_throughput(bench_bin, url, workers):
    """QueueBench's no-op claim + complete: (jobs/s, WAL bytes per job, writing transactions per job)."""
    out = dict(line.split("=", 1) for line in
               sh(bench_bin, url, "--workers", str(workers), "--throughput-only", "--write-cost").split())
    return float(out["discern_batch100_jobs_per_s"]), float(out["wal_bytes_per_job"]), float(out["transactions_per_job"])


def main():
    url = sys.argv[1]
    bench_bin = sys.argv[2]
    workers = 8
    rounds = int(os.environ.get("QUEUE_BENCH_ROUNDS", "3"))
    # The machine is shared and noisy: alternate the raw baseline, the same SQL by hand on discern's
    # tables (without, then with their triggers) and discern's no-op run, several rounds, and judge
    # the medians of the per-round ratios. discern runs first: its QueueBench migrates the schema
    # the by-hand baselines copy.
    runs = []
    for _ in range(rounds):
        clear_roll_up_events(url)
        discern, raw = discern_throughput(bench_bin, url, workers), raw_throughput(url, workers)
        schema, triggered = schema_throughput(url, workers), schema_throughput(url, workers, triggers=True)
        runs.append((raw, discern, schema, triggered))
        print(f"round: raw {raw[0]:,.0f} jobs/s, by hand on discern's tables {schema[0]:,.0f}, with their triggers "
              f"{triggered[0]:,.0f}, discern {discern[0]:,.0f} = {discern[0] / raw[0]:.0%} of raw", file=sys.stderr)

    def median_of(ratio):
        return statistics.median(ratio(*run) for run in runs)

    median_ratio = median_of(lambda raw, discern, schema, triggered: discern[0] / raw[0])
    schema_ratio = median_of(lambda raw, discern, schema, triggered: schema[0] / raw[0])
    triggered_ratio = median_of(lambda raw, discern, schema, triggered: triggered[0] / raw[0])
    discern_of_schema = median_of(lambda raw, discern, schema, triggered: discern[0] / schema[0])
    discern_of_triggered = median_of(lambda raw, discern, schema, triggered: discern[0] / triggered[0])
    cost = {side: [statistics.median(run[index][column] for run in runs) for column in (1, 2)]
            for index, side in enumerate(("raw", "discern", "schema", "triggered"))}

    started = time.monotonic()
    figures = dict(line.split("=", 1) for line in sh(bench_bin, url, "--workers", str(workers)).split())
    print(f"discern bench took {time.monotonic() - started:.0f} s", file=sys.stderr)
    round_text = "; ".join(f"{d[0]:,.0f} vs {r[0]:,.0f} ({d[0] / r[0]:.0%})" for r, d, _, _ in runs)
    schema_text = "; ".join(f"{s[0]:,.0f} ({s[0] / r[0]:.0%} of raw; discern {d[0] / s[0]:.0%} of it)" for r, d, s, _ in runs)
    triggered_text = "; ".join(f"{t[0]:,.0f} ({t[0] / r[0]:.0%}; {d[0] / t[0]:.0%})" for r, d, _, t in runs)
    lines = [
        "## Queue (bench/queue)",
        "",
        f"Machine: {machine()}. PostgreSQL {PGBIN} (private cluster, fsync off for both sides). Run: {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}.",
        "",
        "| measure | figure | target |",
        "|---|---|---|",
        f"| discern no-op claim + complete (result row written), {workers} connections, batches of 100, against raw SKIP LOCKED claim + complete with pgbench ({workers} clients, batches of 100), alternating, {rounds} rounds | median **{median_ratio:.0%}** of raw; rounds (discern vs raw jobs/s): {round_text} | at least 50 % |",
        f"| the same claim + complete written by hand on copies of discern's jobs and results tables (every index, CHECK and storage setting; no triggers, no PL/pgSQL; schema-claim-complete.sql), pgbench, same rounds: what the schema's writes allow | median **{schema_ratio:.0%}** of raw; discern **{discern_of_schema:.0%}** of it; rounds (jobs/s): {schema_text} | — |",
        f"| the same by hand with every trigger of the two tables copied too (the roll-ups and the guards), same rounds: what the schema allows | median **{triggered_ratio:.0%}** of raw; discern **{discern_of_triggered:.0%}** of it; rounds (jobs/s, of raw, discern of it): {triggered_text} | — |",
        f"| written per job in the same runs (median): WAL bytes; transactions that wrote (each takes an id) | discern **{cost['discern'][0]:,.0f} B**, {cost['discern'][1]:.3f}; by hand on discern's tables {cost['schema'][0]:,.0f} B, {cost['schema'][1]:.3f}, with their triggers {cost['triggered'][0]:,.0f} B; raw {cost['raw'][0]:,.0f} B, {cost['raw'][1]:.3f} | — |",
        f"| discern no-op, one job per claim and completion | {float(figures['discern_batch1_jobs_per_s']):,.0f} jobs/s | — |",
        f"| idle enqueue-to-claim latency (LISTEN/NOTIFY), p50 / p99 | {figures['idle_latency_p50_ms']} ms / {figures['idle_latency_p99_ms']} ms | p50 at most 5 ms |",
        f"| claim of 10, median of 400, 10k queued | {figures['claim_ms_10k']} ms | — |",
        f"| claim of 10, median of 400, {int(figures['backlog']):,} queued (claims alternate with the 10k queue, which lives in a second database of the same cluster) | {figures['claim_ms_backlog']} ms = **{float(figures['claim_ms_backlog']) / float(figures['claim_ms_10k']):.2f}x** | within 1.25x |",
        f"| bulk enqueue of {int(figures['bulk']):,} paths (`JobQueue.enqueue`: COPY into a staging table, one INSERT) | {figures['bulk_enqueue_s']} s | at most 60 s |",
        "",
    ]
    report = "\n".join(lines)
    print(report)
    write_section(report, "## Queue")


if __name__ == "__main__":
    main()
