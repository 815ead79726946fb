"""bench/results: the read side at 20 million results.

    python3 bench/results/run.py PATH-TO-DISCERN URL [JOBS]

Seeds JOBS jobs (default 20,000,000) with bench/console's seed (40 nightly batches, 98 %
succeeded with one result and one entity each, 2 % dead, the newest batch in progress), then
times, each over 20 calls after 2 warm-up calls: every Grafana panel query of
deploy/grafana/discern-dashboard.json (the time filter as Grafana's default 6 hours),
`discern status`, `discern report` of the newest and of an older batch, and the console's pages
and API calls. Writes the "## Results at scale" section of bench/RESULTS.md.
"""
import json
import os
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
            sql = sql.replace("$__timeFilter(created_at)", "created_at BETWEEN now() - interval '6 hours' AND now()")
            sql = sql.replace("$__timeFilter(minute)", "minute BETWEEN now() - interval '6 hours' AND now()")
            sql = sql.replace("$__timeGroupAlias(created_at, '5m')",
                              "to_timestamp(floor(extract(epoch FROM created_at) / 300) * 300) AS time")
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


def main():
    discern, url = sys.argv[1], sys.argv[2]
    jobs = int(sys.argv[3]) if len(sys.argv) > 3 else 20_000_000
    os.makedirs(DATA, exist_ok=True)
    os.chmod(DATA, 0o755)
    photos = os.path.join(DATA, "photos")
    if not os.path.isdir(photos):
        subprocess.run([discern, "samples", photos, "--count", "16"], check=True, capture_output=True)
    with psycopg.connect(url, autocommit=True) as connection:
        seeded = connection.execute("SELECT count(*) FROM pg_tables WHERE schemaname = 'discern' AND tablename = 'jobs'").fetchone()[0] \
            and connection.execute("SELECT count(*) FROM discern.jobs").fetchone()[0] == jobs
    seconds = 0
    if not seeded:
        seconds = console_bench.seed(discern, url, jobs, photos)
    rows, worst = [], 0.0
    with psycopg.connect(url, autocommit=True) as connection:
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
                             ("`discern report` (the oldest batch)", ["report", "--batch", older])):
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
                     "/results?operator=Maersk&min=0.9", "/results?text=QK", "/failures", "/api/failures", "/review", "/api/review"):
            p50, p95, top = timed(lambda: urllib.request.urlopen(base + path, timeout=120).read())
            worst = max(worst, p95)
            rows.append(f"| console `{path}` | {p50:,.1f} | **{p95:,.1f}** | {top:,.1f} |")
            print(rows[-1], file=sys.stderr)
    finally:
        console.terminate()
        console.wait()
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
        "",
    ]
    report = "\n".join(lines)
    print(report)
    write_section(report, "## Results at scale")


if __name__ == "__main__":
    main()
