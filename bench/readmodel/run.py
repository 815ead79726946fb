"""bench/readmodel: the read side before and after a change, side by side on one database.

    python3 bench/readmodel/run.py BEFORE-DISCERN AFTER-DISCERN [JOBS] [ROUNDS]

Seeds JOBS jobs (default 1,000,000) with bench/console's seed once, migrated by AFTER (a BEFORE
binary runs on a schema newer than its own: migrations only add). Then, in ROUNDS rounds (default
3), BEFORE and AFTER take turns, the order flipping each round: each starts its console and
times every page and API call bench/console times (20 calls after 3 warm-up calls), then runs
each CLI listing command 8 times (after 1 warm-up run). The figure per path is the median of
the rounds' p50; the ratio is AFTER / BEFORE (below 1: faster). Paths only AFTER has are timed
and shown without a ratio. Writes the "## Read model A/B at JOBS jobs" section of bench/RESULTS.md.
"""
import importlib.util
import json
import os
import shutil
import statistics
import subprocess
import sys
import time
import urllib.request

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
sys.path.insert(0, os.path.join(ROOT, "bench", "prepare"))
from run import machine, write_section  # noqa: E402  (bench/prepare/run.py)

spec = importlib.util.spec_from_file_location("console_bench", os.path.join(ROOT, "bench", "console", "run.py"))
console_bench = importlib.util.module_from_spec(spec)
spec.loader.exec_module(console_bench)
sh, seed = console_bench.sh, console_bench.seed

DATA = os.path.join(ROOT, "bench", ".data", "readmodel")
PAGE_SAMPLES, CLI_SAMPLES = 20, 8


def start_console(discern, url, photos, log_path):
    log = open(log_path, "w")
    process = subprocess.Popen([discern, "console", "--port", "0", "--path-root", photos, "--log-format", "json", "--log-level", "notice"],
                               env=dict(os.environ, DISCERN_DATABASE_URL=url), stdout=log, stderr=log)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        time.sleep(0.2)
        for line in open(log_path):
            if "console_port" in line:
                return process, json.loads(line)["console_port"]
    process.kill()
    raise RuntimeError(f"{discern}: the console did not start: {open(log_path).read()[-2000:]}")


def page_p50(url):
    times = []
    for index in range(3 + PAGE_SAMPLES):
        started = time.perf_counter()
        try:
            with urllib.request.urlopen(url(index) if callable(url) else url, timeout=60) as response:
                response.read()
        except urllib.error.HTTPError as error:
            if error.code == 404:
                return None  # a path this binary does not have
            raise
        if index >= 3:
            times.append((time.perf_counter() - started) * 1000)
    return statistics.median(times)


def cli_p50(discern, url, arguments):
    env = dict(os.environ, DISCERN_DATABASE_URL=url)
    times = []
    for index in range(1 + CLI_SAMPLES):
        started = time.perf_counter()
        done = subprocess.run([discern, *arguments], capture_output=True, text=True, env=env)
        if done.returncode != 0:
            return None  # a command or an option this binary does not have
        if index >= 1:
            times.append((time.perf_counter() - started) * 1000)
    return statistics.median(times)


def main():
    before, after = sys.argv[1], sys.argv[2]
    jobs = int(sys.argv[3]) if len(sys.argv) > 3 else 1_000_000
    rounds = int(sys.argv[4]) if len(sys.argv) > 4 else 3
    shutil.rmtree(DATA, ignore_errors=True)
    os.makedirs(DATA)
    os.chmod(DATA, 0o755)
    photos = os.path.join(DATA, "photos")
    sh(after, "samples", photos, "--count", "16")
    pg = os.path.join(DATA, "pg")
    url = sh("bash", os.path.join(ROOT, "scripts", "postgres.sh"), "start", pg).strip()
    figures = {}  # (kind, label) -> {"before": [p50...], "after": [p50...]}
    try:
        seconds = seed(after, url, jobs, photos)
        q = lambda sql: sh("psql", url, "-qAtc", sql).strip()
        last_batch = q("SELECT name FROM discern.batches ORDER BY created_at DESC LIMIT 1")
        old_batch = q("SELECT name FROM discern.batches ORDER BY created_at LIMIT 1")
        mid_result = int(q("SELECT id FROM discern.results ORDER BY id LIMIT 1 OFFSET (SELECT count(*) / 2 FROM discern.results)"))
        job_ids = [int(x) for x in q("SELECT job_id FROM discern.results TABLESAMPLE SYSTEM (1) LIMIT 200").split()]
        pages = [
            ("/", "overview page"), ("/api/overview", "overview API"),
            ("/batches", "batches page"), ("/api/batches", "batches API"),
            ("/results", "results, newest"), ("/api/results", "results API"),
            (f"/results?before={mid_result}", "results, a page half way down"),
            (f"/results?batch={last_batch}", "results of one batch"),
            ("/results?operator=Maersk&min=0.9", "results by operator and confidence"),
            ("/results?text=QK", "results by plate prefix"),
            ("job", "one job page (200 different)"), ("jobapi", "one job API"),
            ("/failures", "failures page"), ("/api/failures", "failures API"),
            ("/review", "review page"), ("/api/review", "review API"),
            ("/jobs?state=dead", "jobs page, dead (new)"), ("/api/jobs", "jobs API (new)"),
            (f"/report?batch={old_batch}", "report page, a finished batch (new)"),
            (f"/api/report?batch={last_batch}", "report API, the running batch (new)"),
        ]
        commands = [
            (["status"], "status"), (["status", "--format", "json"], "status --format json"),
            (["jobs", "--state", "dead"], "jobs --state dead"), (["jobs", "--batch", last_batch, "--limit", "500"], "jobs --batch (500)"),
            (["jobs", "show", str(job_ids[0])], "jobs show"),
            (["results", "--limit", "100"], "results --limit 100"), (["results", "--batch", old_batch, "--format", "json"], "results --batch --format json"),
            (["report", "--batch", old_batch], "report, a finished batch"), (["report", "--batch", last_batch], "report, the running batch"),
            (["batches"], "batches (new)"),
        ]
        for round_index in range(rounds):
            order = [("before", before), ("after", after)] if round_index % 2 == 0 else [("after", after), ("before", before)]
            for side, binary in order:
                console, port = start_console(binary, url, photos, os.path.join(DATA, f"console-{side}.log"))
                base = f"http://127.0.0.1:{port}"
                try:
                    for path, label in pages:
                        target = (lambda i: f"{base}/jobs/{job_ids[i % len(job_ids)]}") if path == "job" else \
                                 (lambda i: f"{base}/api/jobs/{job_ids[i % len(job_ids)]}") if path == "jobapi" else base + path
                        value = page_p50(target)
                        if value is not None:
                            figures.setdefault(("console", label), {}).setdefault(side, []).append(value)
                finally:
                    console.terminate()
                    console.wait()
                for arguments, label in commands:
                    value = cli_p50(binary, url, arguments)
                    if value is not None:
                        figures.setdefault(("cli", label), {}).setdefault(side, []).append(value)
                print(f"round {round_index + 1}: {side} done", file=sys.stderr)
    finally:
        subprocess.run(["bash", os.path.join(ROOT, "scripts", "postgres.sh"), "stop", pg])
    rows, ratios = [], []
    for (kind, label), sides in figures.items():
        b = statistics.median(sides["before"]) if "before" in sides else None
        a = statistics.median(sides["after"]) if "after" in sides else None
        ratio = a / b if a is not None and b else None
        if ratio is not None:
            ratios.append((ratio, f"{kind}: {label}"))
        rows.append(f"| {kind} | {label} | {'–' if b is None else f'{b:.1f}'} | {'–' if a is None else f'{a:.1f}'} | "
                    f"{'new' if ratio is None else f'**{ratio:.2f}**'} |")
    worst = max(ratios)
    lines = [
        f"## Read model A/B at {jobs:,} jobs (bench/readmodel)",
        "",
        f"Machine: {machine()}. Run: {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}. Before: `{os.path.relpath(before, ROOT) if before.startswith(ROOT) else before}`; "
        f"after: `{os.path.relpath(after, ROOT) if after.startswith(ROOT) else after}`. bench/console's seed, {jobs:,} jobs (seeded in {seconds:.0f} s); "
        f"{rounds} rounds, the two binaries taking turns (order flipped each round), each round starting its own console. "
        f"Console: p50 of {PAGE_SAMPLES} calls after 3 warm-up calls, one client; CLI: p50 of {CLI_SAMPLES} runs of the whole process "
        "after 1 warm-up run. Figures are the median of the rounds, in ms; the ratio is after / before.",
        "",
        "| side | path or command | before p50 | after p50 | after / before |",
        "|---|---|---|---|---|",
        *rows,
        "",
        f"- Highest ratio: **{worst[0]:.2f}** ({worst[1]}); median ratio {statistics.median(r for r, _ in ratios):.2f} over {len(ratios)} paths.",
        "",
    ]
    report = "\n".join(lines)
    print(report)
    write_section(report, f"## Read model A/B at {jobs:,} jobs")


if __name__ == "__main__":
    main()
