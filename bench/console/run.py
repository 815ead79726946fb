"""bench/console: every console page and API call against 1,000,000 jobs and results.

    python3 bench/console/run.py PATH-TO-DISCERN [JOBS]

Seeds with SQL (generate_series): 40 nightly batches over 40 days; the 39 older ones 98 %
succeeded (one result and one entity each) and 2 % dead over 6 error kinds; the newest one in
progress (40 % succeeded, 1 % dead, 2 % running, the rest waiting); 5,000 corrections of low-confidence results and 10,000 reviews of the 2 % audit sample. Results point at 16 real sample photos (for thumbnails). Then
times each path 60 times (one client, sequential, after 5 warm-up calls) and reports p50/p95.
"""
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
from run import machine, write_section  # noqa: E402

DATA = os.path.join(ROOT, "bench", ".data", "console")
TARGET_MS = 150
SAMPLES = 60


def sh(*command, **kwargs):
    done = subprocess.run(command, capture_output=True, text=True, **kwargs)
    if done.returncode != 0:
        raise RuntimeError(f"{command[0]} failed: {done.stderr[-2000:]}")
    return done.stdout


def seed(discern, url, jobs, photos):
    env = dict(os.environ, DISCERN_DATABASE_URL=url)
    sh(discern, "migrate", env=env)
    files = sorted(os.path.join(photos, n) for n in os.listdir(photos))
    paths = "ARRAY[" + ",".join("'" + f.replace("'", "''") + "'" for f in files) + "]"
    started = time.monotonic()
    # -f -: one statement at a time (VACUUM cannot run in the transaction -c would make).
    sh("psql", url, "-v", "ON_ERROR_STOP=1", "-q", "-f", "-", input=f"""
        SET synchronous_commit = off;
        INSERT INTO discern.batches (name, created_at)
        SELECT 'night-' || to_char(d, 'YYYY-MM-DD'), d FROM generate_series(now() - interval '39 days', now(), interval '1 day') d;
        ALTER TABLE discern.jobs DISABLE TRIGGER USER;
        INSERT INTO discern.jobs (batch_id, backend, image_path, state, attempts, error_kind, last_error, created_at, updated_at,
                                  run_at, finished_at, lease_owner, lease_expires_at)
        SELECT b.id, 'discerner', ({paths})[1 + g % {len(files)}],
               s.state, CASE WHEN s.state = 'dead' THEN 5 ELSE 1 END,
               CASE WHEN s.state = 'dead' THEN (ARRAY['timeout','http_5xx','image_unsupported_format','discerner_image_rejected','auth_failed','analysis_failed'])[1 + g % 6] END,
               CASE WHEN s.state = 'dead' THEN 'the last attempt failed: see the error history' END,
               b.created_at, b.created_at + (g % 3600) * interval '1 second', b.created_at,
               CASE WHEN s.state IN ('succeeded', 'dead') THEN least(now(), b.created_at + (g % 28800) * interval '1 second') END,
               CASE WHEN s.state = 'running' THEN 'bench-worker' END,
               CASE WHEN s.state = 'running' THEN now() + interval '1 hour' END
        FROM generate_series(1, {jobs}) g
        JOIN discern.batches b ON b.id = 1 + (g - 1) * 40 / {jobs}
        CROSS JOIN LATERAL (SELECT CASE
                WHEN g <= {jobs} - {jobs} / 40 THEN CASE WHEN g % 100 < 98 THEN 'succeeded' ELSE 'dead' END
                WHEN g % 100 < 40 THEN 'succeeded' WHEN g % 100 < 41 THEN 'dead' WHEN g % 100 < 43 THEN 'running'
                ELSE 'available' END AS state) s;
        ALTER TABLE discern.jobs ENABLE TRIGGER USER;
        ALTER TABLE discern.results DISABLE TRIGGER USER;
        INSERT INTO discern.results (job_id, batch_id, image_path, backend, action, outcome, category, operator, fleet_id, license_plate,
            confidence, text_identifiers, raw_response, original_bytes, original_width, original_height, original_format,
            sent_bytes, sent_width, sent_height, sent_format, passed_through, prepare_ms, analyze_ms, created_at, audit)
        SELECT j.id, j.batch_id, j.image_path, 'discerner', 'analyze', 'identified', 'commercial_vehicle',
               (ARRAY['FedEx','UPS','DHL','Amazon','USPS','Maersk','MSC'])[1 + j.id % 7],
               'FL' || lpad((j.id % 100000)::text, 5, '0'), chr(65 + (j.id % 26)::int) || chr(65 + (j.id / 26 % 26)::int) || lpad((j.id % 10000)::text, 4, '0'),
               0.5 + (j.id % 500) / 1000.0, '{{}}',
               '{{"analysis_result": {{"statusCode": 200, "body": {{"analysis_complete": true, "entities": []}}}}}}'::jsonb,
               2000000, 4000, 3000, 'jpeg', 900000, 1600, 1200, 'jpeg', false, 120, 900, j.finished_at,
               discern.audit_pick(j.id, 0.02, 0)
        FROM discern.jobs j WHERE j.state = 'succeeded' ORDER BY j.id;
        ALTER TABLE discern.results ENABLE TRIGGER USER;
        -- The dashboards' roll-ups, from what was inserted with the triggers off (docs/sql.md).
        SELECT discern.recount_rollups();
        INSERT INTO discern.entities (result_id, position, is_primary, type, category, subtype, operator, fleet_id, license_plate, confidence, created_at)
        SELECT id, 0, true, 'commercial_vehicle:van', 'commercial_vehicle', 'van', operator, fleet_id, license_plate, confidence, created_at
        FROM discern.results;
        INSERT INTO discern.corrections (result_id, confirmed, verdict, license_plate, corrected_by)
        SELECT id, id % 2 = 0, CASE WHEN id % 2 = 0 THEN 'confirmed' ELSE 'corrected' END, CASE WHEN id % 2 = 1 THEN 'FIXED' || id END, 'bench'
        FROM discern.results WHERE confidence < 0.52 AND NOT audit LIMIT 5000;
        -- 10,000 reviews of the audit sample (2 %): most right as read, some plates corrected.
        INSERT INTO discern.corrections (result_id, confirmed, verdict, license_plate, corrected_by)
        SELECT id, id % 9 <> 0, CASE WHEN id % 9 <> 0 THEN 'confirmed' ELSE 'corrected' END, CASE WHEN id % 9 = 0 THEN 'TRUE' || id END, 'auditor'
        FROM discern.results WHERE audit ORDER BY id LIMIT 10000;
        VACUUM ANALYZE;
        """)
    return time.monotonic() - started


def timed(url, samples):
    times = []
    for index in range(5 + samples):
        started = time.perf_counter()
        with urllib.request.urlopen(url(index) if callable(url) else url, timeout=30) as response:
            response.read()
            status = response.status
        if index >= 5:
            times.append((time.perf_counter() - started) * 1000)
        if status != 200:
            raise RuntimeError(f"{url}: {status}")
    times.sort()
    return statistics.median(times), times[int(len(times) * 0.95) - 1], times[-1]


def main():
    discern, jobs = sys.argv[1], int(sys.argv[2]) if len(sys.argv) > 2 else 1_000_000
    shutil.rmtree(DATA, ignore_errors=True)
    os.makedirs(DATA)
    os.chmod(DATA, 0o755)
    photos = os.path.join(DATA, "photos")
    sh(discern, "samples", photos, "--count", "16")
    pg = os.path.join(DATA, "pg")
    url = sh("bash", os.path.join(ROOT, "scripts", "postgres.sh"), "start", pg).strip()
    console = None
    try:
        seconds = seed(discern, url, jobs, photos)
        counts = sh("psql", url, "-qAtc", "SELECT (SELECT count(*) FROM discern.jobs) || ' ' || (SELECT count(*) FROM discern.results) || ' ' || (SELECT count(*) FROM discern.entities)").split()
        log = open(os.path.join(DATA, "console.log"), "w")
        console = subprocess.Popen([discern, "console", "--port", "0", "--path-root", photos, "--log-format", "json", "--log-level", "notice"],
                                   env=dict(os.environ, DISCERN_DATABASE_URL=url), stdout=log, stderr=log)
        port = None
        while port is None:
            time.sleep(0.2)
            for line in open(os.path.join(DATA, "console.log")):
                if "console_port" in line:
                    port = json.loads(line)["console_port"]
        base = f"http://127.0.0.1:{port}"
        q = lambda sql: sh("psql", url, "-qAtc", sql).strip()
        last_batch = q("SELECT name FROM discern.batches ORDER BY created_at DESC LIMIT 1")
        first_file = q("SELECT image_path FROM discern.jobs ORDER BY id LIMIT 1").rsplit("/", 1)[-1]
        mid_day = q("SELECT (now() - interval '20 days')::date")
        mid_result = int(q("SELECT id FROM discern.results ORDER BY id LIMIT 1 OFFSET (SELECT count(*) / 2 FROM discern.results)"))
        job_ids = [int(x) for x in q("SELECT job_id FROM discern.results TABLESAMPLE SYSTEM (1) LIMIT 200").split()]
        thumb_ids = [int(x) for x in q("SELECT id FROM discern.results TABLESAMPLE SYSTEM (1) LIMIT 100").split()]
        paths = [
            ("/", "overview page"), ("/api/overview", "overview API"),
            ("/batches", "batches page"), ("/api/batches", "batches API"),
            ("/results", "results, newest"), ("/api/results", "results API"),
            (f"/results?before={mid_result}", "results, a page half way down (keyset)"),
            (f"/results?batch={last_batch}", "results of one batch"),
            ("/results?operator=Maersk&min=0.9", "results by operator and confidence"),
            ("/results?text=QK", "results by plate prefix"),
            (lambda i: f"{base}/jobs/{job_ids[i % len(job_ids)]}", "one job (200 different)"),
            (lambda i: f"{base}/api/jobs/{job_ids[i % len(job_ids)]}", "one job API"),
            ("/failures", "failures page"), ("/api/failures", "failures API"),
            ("/review", "review page"), ("/api/review", "review API"),
            ("/quality", "quality page"), ("/api/quality", "quality API"),
            ("/quality?days=7&field=operator", "quality, last 7 days, operator"),
            # The jobs page's filter form: every field alone and together.
            ("/jobs", "jobs, newest"), ("/jobs?state=dead", "jobs, dead"), ("/jobs?state=available", "jobs, waiting"),
            (f"/jobs?batch={last_batch}", "jobs of one batch"), (f"/jobs?batch={last_batch}&state=succeeded", "jobs of one batch, succeeded"),
            ("/jobs?kind=http_5xx", "jobs by error kind"), ("/jobs?backend=discerner&state=dead&kind=http_5xx", "jobs by service, state and kind"),
            (f"/jobs?file={first_file[:4]}", "jobs by file name start (many match)"), ("/jobs?file=no-such-photo", "jobs by file name start (none match)"),
            (f"/jobs?from={mid_day}&to={mid_day}", "jobs of one day"), (f"/jobs?from={mid_day}&to={mid_day}&state=dead", "jobs of one day, dead"),
            (f"/jobs?file={first_file[:4]}&from={mid_day}", "jobs by file name from a day on"),
            ("/log", "operator log"), ("/workers", "workers page"), ("/api/workers", "workers API"),
            ("/plan", "plan page"), ("/api/plan", "plan API"), ("/plan?until=06:00", "plan page with a window (what is left over)"),
        ]
        # A finished batch is summarised once (discern.batch_summary, migration 0009): the first
        # view after a restart of the cache pays for all of them. Measured once, cold, and reported.
        q("TRUNCATE discern.batch_summaries")
        cold = {}
        for path in ("/api/batches", "/batches?before=" + q("SELECT id FROM discern.batches ORDER BY created_at DESC, id DESC OFFSET 9 LIMIT 1")):
            started = time.perf_counter()
            urllib.request.urlopen(base + path, timeout=60).read()
            cold[path] = (time.perf_counter() - started) * 1000
        rows, worst = [], 0
        for path, label in paths:
            target = path if callable(path) else base + path
            p50, p95, top = timed(target, SAMPLES)
            worst = max(worst, p95)
            shown = "" if callable(path) else f" `{path}`"
            rows.append(f"| {label}{shown} | {p50:.1f} | **{p95:.1f}** | {top:.1f} |")
            print(rows[-1], file=sys.stderr)
        thumb_p50, thumb_p95, thumb_max = timed(lambda i: f"{base}/thumbnails/{thumb_ids[i % len(thumb_ids)]}?size=240", SAMPLES)
    finally:
        if console:
            console.terminate()
            console.wait()
        subprocess.run(["bash", os.path.join(ROOT, "scripts", "postgres.sh"), "stop", pg])
    lines = [
        "## Console (bench/console)",
        "",
        f"Machine: {machine()}. Run: {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}. Seeded in {seconds:.0f} s: "
        f"{int(counts[0]):,} jobs over 40 nightly batches (98 % succeeded, 2 % dead over 6 kinds; the newest batch in progress), "
        f"{int(counts[1]):,} results, {int(counts[2]):,} entities, 5,000 low-confidence corrections, 10,000 audit reviews. One client, sequential, "
        f"{SAMPLES} calls per path after 5 warm-up calls; times in ms, measured at the client.",
        "",
        "| page or call | p50 | p95 | max |",
        "|---|---|---|---|",
        *rows,
        f"| thumbnails, 240 px, 60 different results over 16 photos (made by libvips, then cached) | {thumb_p50:.1f} | {thumb_p95:.1f} | {thumb_max:.1f} |",
        "",
        f"- Slowest p95 of a page or API call: **{worst:.1f} ms** (target: {TARGET_MS} ms at p95).",
        "- Cold batch summaries (none stored yet: after the migration, or the first view of batches "
        "after a retry, an enqueue or a prune touched them): " + ", ".join(f"`{p}` {ms:.0f} ms" for p, ms in cold.items())
        + ". Each finished batch is counted once (about 25 ms per 25,000 jobs), then read back in under 1 ms "
        "while nothing changes it.",
        "",
    ]
    report = "\n".join(lines)
    print(report)
    write_section(report, "## Console")


if __name__ == "__main__":
    main()
