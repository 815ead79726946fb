"""bench/queue cost map: what each part of discern's claim + complete costs, found by changing one at a time.

    python3 bench/queue/costmap.py URL QueueBench [ROUNDS]   (`bash bench/queue/run.sh --costmap` builds and calls it)

The no-op claim + complete of bench/queue (8 connections, batches of 100, the result row
written) runs as shipped and with one change at a time (a roll-up trigger pair or an index taken
away, the jobs table's fillfactor), the two taking turns and the order flipped each round; the
figure is the median of the per-round ratios changed / as shipped. A change is only ever made in
this bench's own database: for a part taken away the ratio says what keeping it costs, not that
it could go (each index serves a read path, docs/sql.md).
Beside it, one run's WAL broken down by relation (pg_walinspect): where the bytes per job go.
Writes the "## Queue cost map" section of bench/RESULTS.md; with COSTMAP_JOBS set (fewer jobs
per run, a quick look) it only prints it.
"""
import os
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "bench", "prepare"))
from run import machine, write_section  # noqa: E402
from ab import throughput  # noqa: E402  (bench/queue/ab.py: the same QueueBench run)

JOBS = int(os.environ.get("COSTMAP_JOBS", "100000"))  # per run
TRIGGERS = [("discern.jobs", "jobs_count_final_states"), ("discern.results", "results_count_inserts")]
INDEXES = ["jobs_batch", "jobs_finished", "jobs_running_leases", "results_image_path", "results_batch"]
FILLFACTOR = 50


def psql(url, query, **variables):
    """Rows of `query` run by psql, its values passed as psql variables (:'name'), never spliced."""
    command = ["psql", url, "-XAtq", "-F", "\t", "-v", "ON_ERROR_STOP=1"]
    for name, value in variables.items():
        command += ["-v", f"{name}={value}"]
    out = subprocess.run(command, input=query, check=True, capture_output=True, text=True).stdout
    return [line.split("\t") for line in out.splitlines() if line]


def parts(url):
    """Each change: (label, SQL making it, SQL undoing it), the index definitions and the
    fillfactor as the schema has them (pg_indexes, pg_class), so nothing is restated here."""
    # The control: nothing changed, so its rounds show the run's noise beside the real changes.
    found = [("nothing changed (the control)", "SELECT 1", "SELECT 1"),
             ("without the roll-up triggers (jobs_count_final_states, results_count_inserts)",
              "; ".join(f"ALTER TABLE {table} DISABLE TRIGGER {name}" for table, name in TRIGGERS),
              "; ".join(f"ALTER TABLE {table} ENABLE TRIGGER {name}" for table, name in TRIGGERS))]
    for name in INDEXES:
        rows = psql(url, "SELECT indexdef FROM pg_indexes WHERE schemaname = 'discern' AND indexname = :'name'", name=name)
        if rows:
            again = rows[0][0].replace(" INDEX ", " INDEX IF NOT EXISTS ", 1)
            found.append((f"without index {name}", f"DROP INDEX IF EXISTS discern.{name}", again))
    # Each job's row is updated twice: room on its page for the new versions (a lower fillfactor)
    # keeps an update from moving the row to another page, which costs a lock record and a
    # whole-row WAL image. The bench's reset fills the table again, so the setting applies.
    shipped = psql(url, """SELECT coalesce((SELECT split_part(o, '=', 2) FROM unnest(reloptions) o WHERE o LIKE 'fillfactor=%'), '100')
                           FROM pg_class WHERE oid = 'discern.jobs'::regclass""")[0][0]
    found.append((f"jobs fillfactor {FILLFACTOR} (shipped: {shipped})", f"ALTER TABLE discern.jobs SET (fillfactor = {FILLFACTOR})",
                  f"ALTER TABLE discern.jobs SET (fillfactor = {int(shipped)})"))
    return found


def wal_breakdown(binary, url):
    """One run's WAL per job by relation (records, bytes), from the first row lock the claims take
    on discern.jobs (the setup before it inserts and vacuums) to the end."""
    psql(url, "CREATE EXTENSION IF NOT EXISTS pg_walinspect")
    start = psql(url, "SELECT pg_current_wal_lsn()")[0][0]
    throughput(binary, url, JOBS)
    end = psql(url, "SELECT pg_current_wal_lsn()")[0][0]
    rows = psql(url, """
        WITH records AS (
            SELECT start_lsn, resource_manager || ' ' || record_type AS kind, record_length,
                   (regexp_match(block_ref, 'rel \\d+/\\d+/(\\d+)'))[1]::oid AS node
            FROM pg_get_wal_records_info(:'start', :'end')),
        run AS (
            SELECT * FROM records
            WHERE start_lsn >= (SELECT min(start_lsn) FROM records
                                WHERE kind LIKE 'Heap LOCK%' AND node = pg_relation_filenode('discern.jobs')))
        SELECT coalesce(c.relname, '(no relation: commits and the like)'), count(*)::float8 / :jobs,
               sum(run.record_length)::float8 / :jobs
        FROM run LEFT JOIN pg_class c ON c.relfilenode = run.node
        GROUP BY 1 ORDER BY 3 DESC""", start=start, end=end, jobs=JOBS)
    return [(name, float(records), float(per_job)) for name, records, per_job in rows]


def main():
    url, binary = sys.argv[1], sys.argv[2]
    rounds = int(sys.argv[3]) if len(sys.argv) > 3 else 6
    throughput(binary, url, 1000)  # migrates the bench's database
    measured = []
    for label, change, undo in parts(url):
        ratios = []
        for index in range(rounds):
            figures = {}
            for side in (("shipped", "changed") if index % 2 == 0 else ("changed", "shipped")):
                psql(url, change if side == "changed" else undo)
                figures[side] = throughput(binary, url, JOBS)
            psql(url, undo)
            ratios.append(figures["changed"] / figures["shipped"])
            print(f"{label}, round {index + 1}: as shipped {figures['shipped']:,.0f}, changed {figures['changed']:,.0f} jobs/s",
                  file=sys.stderr, flush=True)
        measured.append((label, ratios))
    wal = wal_breakdown(binary, url)
    lines = [
        "## Queue cost map (bench/queue/costmap.py)",
        "",
        f"Machine: {machine()}. Run: {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}. discern's no-op claim + complete "
        f"(8 connections, batches of 100, result rows written, {JOBS:,} jobs per run) as shipped and with one change at a "
        f"time, taking turns, {rounds} rounds, order flipped each round. Changed only in this bench's database: each index "
        "serves a read path (docs/sql.md); for a part taken away the ratio is what keeping it costs.",
        "",
        "| change | jobs/s changed / as shipped, median | rounds |",
        "|---|---|---|",
        *[f"| {label} | **{statistics.median(r):.2f}x** | {', '.join(f'{x:.2f}' for x in r)} |" for label, r in measured],
        "",
        f"WAL per job of one run (pg_walinspect), from the claims' first row lock to the end: "
        f"**{sum(row[2] for row in wal):,.0f} B**.",
        "",
        "| relation | records per job | bytes per job |",
        "|---|---|---|",
        *[f"| {name} | {records:.2f} | {per_job:,.0f} |" for name, records, per_job in wal if per_job >= 5],
        "",
    ]
    report = "\n".join(lines)
    print(report)
    if "COSTMAP_JOBS" not in os.environ:
        write_section(report, "## Queue cost map")


if __name__ == "__main__":
    main()
