"""bench/results: the read side at 20 million results.

    python3 bench/results/run.py PATH-TO-DISCERN PATH-TO-ScaleBench URL [JOBS]

Seeds JOBS jobs (default 20,000,000) with bench/console's seed (40 nightly batches, 98 %
succeeded with one result and one entity each, 2 % dead, the newest batch in progress), then
times, each over 20 calls after 2 warm-up calls: every Grafana panel query of
deploy/grafana/discern-dashboard.json (the time filter as Grafana's default 6 hours),
`discern status`, `discern report` of the newest and of an older batch, and the console's pages
and API calls, on tables vacuumed as autovacuum leaves them (VACUUM ANALYZE first, so that an
autovacuum run left over from an earlier prune does not land in the timings). Then retention
against a drain: 4 no-op workers (bench/scale's) drain 30,000 jobs alone, during `discern prune`
of the oldest day at --pause-factor 1 and 3, and alone again; the drain's rate during each prune
against its rate alone, moments a worker waited on the prune's locks, and the prune's own rate. Writes the "## Results at scale" section of bench/RESULTS.md.
"""
import json
import os
import re
import statistics
import subprocess
import sys
import time
import urllib.request

import psycopg

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
sys.path.insert(0, os.path.join(ROOT, "bench", "prepare"))
from run import machine, write_section  # noqa: E402  (bench/prepare/run.py)
import importlib.util  # noqa: E402  (bench/console/run.py is also named run)

spec = importlib.util.spec_from_file_location("console_bench", os.path.join(ROOT, "bench", "console", "run.py"))
console_bench = importlib.util.module_from_spec(spec)
spec.loader.exec_module(console_bench)

DATA = os.path.join(ROOT, "bench", ".data", "results")
TARGET_MS, SAMPLES = 250, 20


def grafana_queries():
    """Each panel's SQL with Grafana's macros as its PostgreSQL data source expands them."""
    dashboard = json.load(open(os.path.join(ROOT, "deploy", "grafana", "discern-dashboard.json")))
    for panel in dashboard["panels"]:
        for target in panel.get("targets", []):
            sql = target.get("rawSql")
            if not sql:
                continue
            sql = re.sub(r"\$__timeFilter\((\w+)\)", r"\1 BETWEEN now() - interval '6 hours' AND now()", sql)
            sql = re.sub(r"\$__timeGroupAlias\((\w+), *'(\d+)m'\)",
                         lambda m: f"to_timestamp(floor(extract(epoch FROM {m[1]}) / {int(m[2]) * 60}) * {int(m[2]) * 60}) AS time", sql)
            yield panel["title"], sql


def timed(call):
    times = []
    for index in range(2 + SAMPLES):
        started = time.perf_counter()
        call()
        if index >= 2:
            times.append((time.perf_counter() - started) * 1000)
    times.sort()
    return statistics.median(times), times[int(len(times) * 0.95) - 1], times[-1]


def drain(scale, url, jobs, during=None):
    """4 x 8 no-op workers drain JOBS new jobs of their own backend (landmark: the seed has
    none); with `during` (argv), that command runs alongside. Returns the drain's rate alone or
    within the command's run, the command's seconds and output, and lock waits seen."""
    env = dict(os.environ, SCALE_SERVICE="landmark")
    subprocess.run([scale, "enqueue", url, str(jobs)], env=env, check=True, capture_output=True)
    started = time.time()
    workers = [subprocess.Popen([scale, "work", url, "8"], env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
               for _ in range(4)]
    command = subprocess.Popen(during, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True) if during else None
    command_end, samples, waiting = None, 0, 0
    with psycopg.connect(url, autocommit=True) as connection:
        while any(w.poll() is None for w in workers) or not samples:
            if command and command_end is None and command.poll() is not None:
                command_end = time.time()
            samples += 1
            # A session waiting on a lock that the prune's session holds.
            waiting += connection.execute("""
                SELECT count(*) FROM pg_stat_activity a WHERE a.wait_event_type = 'Lock' AND EXISTS (
                    SELECT 1 FROM pg_stat_activity p WHERE p.pid = ANY (pg_blocking_pids(a.pid)) AND p.application_name = 'discern-prune')
                """).fetchone()[0] > 0
            time.sleep(0.2)
        drained = time.time()
        logs = ["".join(w.communicate()) for w in workers]
        errors = sum(1 for log in logs for line in log.splitlines() if line.strip() and "calls=" not in line) \
            + sum(w.returncode != 0 for w in workers)
        output = ""
        if command:
            output = command.communicate()[0].strip()
            command_end = command_end or time.time()
        # The rate while both ran: up to whichever ended first.
        window_end = min(command_end, drained) if command else None
        if command:
            done = connection.execute("SELECT count(*) FROM discern.jobs WHERE backend = 'landmark' AND state = 'succeeded' "
                                      "AND finished_at BETWEEN to_timestamp(%s) AND to_timestamp(%s)", (started, window_end)).fetchone()[0]
            span = window_end - started
        else:
            done, span = connection.execute("SELECT count(*), extract(epoch FROM max(finished_at) - min(finished_at)) FROM discern.jobs "
                                            "WHERE backend = 'landmark' AND state = 'succeeded'").fetchone()
        left = connection.execute("SELECT count(*) FROM discern.jobs WHERE backend = 'landmark' AND state <> 'succeeded'").fetchone()[0]
        connection.execute("DELETE FROM discern.results WHERE backend = 'landmark'")
        connection.execute("DELETE FROM discern.jobs WHERE backend = 'landmark'")
    return {"rate": done / float(span), "seconds": (command_end - started) if command else float(span), "output": output,
            "lock_samples": waiting, "samples": samples, "errors": errors, "left": left}


def oldest_day(url):
    """`--days` that prunes the oldest day of results (and the jobs as old), and the row counts."""
    with psycopg.connect(url, autocommit=True) as connection:
        oldest = connection.execute("SELECT floor(extract(epoch FROM now() - min(created_at)) / 86400)::int FROM discern.results").fetchone()[0]
        counts = connection.execute("SELECT (SELECT count(*) FROM discern.jobs), (SELECT count(*) FROM discern.results)").fetchone()
    return str(max(oldest - 1, 1)), counts


def retention(discern, scale, url):
    """Drains alone, during a prune of the oldest day at --pause-factor 1 (the default) and 3,
    and alone again."""
    rows, rates = [], []
    alone = drain(scale, url, 30_000)
    print("alone", alone, file=sys.stderr)
    rows.append(f"| alone, before | - | - | {alone['rate']:,.0f} | - | {alone['lock_samples']} of {alone['samples']} | {alone['errors']} | {alone['left']} |")
    for pause in ("1", "3"):
        days, before = oldest_day(url)
        during = drain(scale, url, 30_000, [discern, "prune", "--days", days, "--results-days", days, "--pause-factor", pause,
                                            "--database-url", url])
        print("during", pause, during, file=sys.stderr)
        _, after = oldest_day(url)
        deleted = (before[0] - after[0]) + (before[1] - after[1])
        rates.append(during["rate"])
        rows.append(f"| during `prune --days {days} --results-days {days} --pause-factor {pause}` | {before[0] - after[0]:,} jobs, "
                    f"{before[1] - after[1]:,} results | {during['seconds']:.1f} s, {deleted / during['seconds']:,.0f} rows/s | "
                    f"{during['rate']:,.0f} | PERCENT{len(rates) - 1} | {during['lock_samples']} of {during['samples']} | "
                    f"{during['errors']} | {during['left']} |")
    later = drain(scale, url, 30_000)
    print("after", later, file=sys.stderr)
    rows.append(f"| alone, after | - | - | {later['rate']:,.0f} | - | {later['lock_samples']} of {later['samples']} | {later['errors']} | {later['left']} |")
    baseline = (alone["rate"] + later["rate"]) / 2
    for index, rate in enumerate(rates):
        rows = [row.replace(f"PERCENT{index}", f"**{100 * rate / baseline:.0f} %**") for row in rows]
    return [
        "",
        "Retention against a drain: 4 no-op workers x 8 (bench/scale's) drain 30,000 jobs of their own backend alone, while "
        "`discern prune` deletes the oldest day of jobs and results (with their entities), and alone again.",
        "",
        "| drain | pruned | prune took | drain jobs/s | of the rate alone | moments (every 0.2 s) a worker waited on the prune's locks "
        "| worker errors | jobs left unfinished |",
        "|---|---|---|---|---|---|---|---|",
        *rows,
    ]

def main():
    discern, scale, url = sys.argv[1], sys.argv[2], sys.argv[3]
    jobs = int(sys.argv[4]) if len(sys.argv) > 4 else 20_000_000
    os.makedirs(DATA, exist_ok=True)
    os.chmod(DATA, 0o755)
    photos = os.path.join(DATA, "photos")
    if not os.path.isdir(photos):
        subprocess.run([discern, "samples", photos, "--count", "16"], check=True, capture_output=True)
    with psycopg.connect(url, autocommit=True) as connection:
        seeded = connection.execute("SELECT count(*) FROM pg_tables WHERE schemaname = 'discern' AND tablename = 'jobs'").fetchone()[0] \
            and connection.execute("SELECT count(*) FROM discern.jobs").fetchone()[0] >= 0.9 * jobs
    seconds = 0
    if not seeded:
        # A private benchmark database: start from an empty schema (retention runs prune the
        # oldest days, so after a few runs the seed is made again).
        with psycopg.connect(url, autocommit=True) as connection:
            connection.execute("DROP SCHEMA IF EXISTS discern CASCADE")
        seconds = console_bench.seed(discern, url, jobs, photos)
    rows, worst = [], 0.0
    with psycopg.connect(url, autocommit=True) as connection:
        connection.execute("VACUUM ANALYZE discern.jobs")
        connection.execute("VACUUM ANALYZE discern.results")
    # Grafana's login role set as docs/scaling.md recommends (ALTER ROLE ... SET jit = off): a
    # dashboard's aggregate over a large table would otherwise spend 150-250 ms JIT compiling.
    with psycopg.connect(url, autocommit=True, options="-c jit=off") as connection:
        counts = connection.execute("SELECT (SELECT count(*) FROM discern.jobs), (SELECT count(*) FROM discern.results), "
                                    "pg_size_pretty(pg_database_size(current_database()))").fetchone()
        for title, sql in grafana_queries():
            p50, p95, top = timed(lambda: connection.execute(sql).fetchall())
            worst = max(worst, p95)
            rows.append(f"| Grafana: {title} | {p50:,.1f} | **{p95:,.1f}** | {top:,.1f} |")
            print(rows[-1], file=sys.stderr)
        newest, older = [r[0] for r in connection.execute("SELECT name FROM discern.batches ORDER BY created_at DESC LIMIT 2 OFFSET 0").fetchall()][0], \
            connection.execute("SELECT name FROM discern.batches ORDER BY created_at LIMIT 1").fetchone()[0]
    env = dict(os.environ, DISCERN_DATABASE_URL=url)
    for label, arguments in (("`discern status`", ["status"]), ("`discern report` (the newest batch)", ["report", "--batch", newest]),
                             ("`discern report` (the oldest batch)", ["report", "--batch", older]),
                             ("`discern quality`", ["quality"]), ("`discern jobs --state dead`", ["jobs", "--state", "dead"])):
        p50, p95, top = timed(lambda: subprocess.run([discern, *arguments], env=env, check=True, capture_output=True))
        worst = max(worst, p95)
        rows.append(f"| {label}, the whole command | {p50:,.1f} | **{p95:,.1f}** | {top:,.1f} |")
        print(rows[-1], file=sys.stderr)
    log_path = os.path.join(DATA, "console.log")
    console = subprocess.Popen([discern, "console", "--port", "0", "--path-root", photos, "--log-format", "json", "--log-level", "notice"],
                               env=env, stdout=open(log_path, "w"), stderr=subprocess.STDOUT)
    try:
        port = None
        while port is None:
            time.sleep(0.2)
            for line in open(log_path):
                if "console_port" in line:
                    port = json.loads(line)["console_port"]
        base = f"http://127.0.0.1:{port}"
        for path in ("/", "/api/overview", "/batches", "/api/batches", "/results", f"/results?batch={newest}",
                     "/results?operator=Maersk&min=0.9", "/results?text=QK", "/failures", "/api/failures", "/review", "/api/review",
                     "/quality", "/api/quality", "/jobs?state=dead", "/api/report?batch=" + newest):
            p50, p95, top = timed(lambda: urllib.request.urlopen(base + path, timeout=120).read())
            worst = max(worst, p95)
            rows.append(f"| console `{path}` | {p50:,.1f} | **{p95:,.1f}** | {top:,.1f} |")
            print(rows[-1], file=sys.stderr)
    finally:
        console.terminate()
        console.wait()
    retained = retention(discern, scale, url)
    over = sum(1 for row in rows if float(row.split("**")[1].replace(",", "")) > TARGET_MS)
    lines = [
        "## Results at scale (bench/results)",
        "",
        f"Machine: {machine()}. Run: {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}. "
        + (f"Seeded in {seconds / 60:,.0f} min: " if seconds else "Seeded earlier: ")
        + f"{counts[0]:,} jobs, {counts[1]:,} results (bench/console's seed: 40 nightly batches), database {counts[2]}. "
        f"{SAMPLES} calls each after 2 warm-up calls, one at a time; ms at the client (commands: the whole process).",
        "",
        "| query | p50 | p95 | max |",
        "|---|---|---|---|",
        *rows,
        "",
        f"- Slowest p95: **{worst:,.0f} ms**; {over} of {len(rows)} above the {TARGET_MS} ms target.",
        *retained,
        "",
    ]
    report = "\n".join(lines)
    print(report)
    write_section(report, "## Results at scale")


if __name__ == "__main__":
    main()
