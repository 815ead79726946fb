"""Re-analysis at 10,000 stored results: `discern reanalyse` measured against issue 67's "Done when"
(docs/operations.md, "Re-analysing photos"): the forecast before it starts within 10 % of the
calls made, new work enqueued during it finished first, the spend cap stopping it with nothing
lost, and both answers of every photo queryable.

    python3 bench/reanalysis/run.py [--discern BIN] [--photos 10000] [--tonight 500]
                                    [--pause-after 2000] [--cap-jobs 3000] [--workers 2] [--no-write]

On a private PostgreSQL (scripts/postgres.sh) and `discern simulate --no-throughput-limits`, both
on 127.0.0.1, with every rate limit made non-binding:

  night 1     PHOTOS distinct 160x120 photos (`discern samples`) enqueued as batch requal and
              drained by WORKERS `discern work --drain`: answered by the provider "simulator"
  change      the simulator answers as vision-2026-11 from now on (30 % of photos differently)
  forecast    a price per call set; `discern reanalyse --service discerner --where
              provider=simulator --batch requal --name requal-nov --dry-run`, timed; then the same
              for real. A trigger records every claim in order with its transaction (as
              ReanalysisTests' recordClaims does)
  run         WORKERS `discern work`; at PAUSE_AFTER re-analysis jobs answered, `discern pause
              discerner`, the workers seen idle, TONIGHT new photos enqueued as batch tonight, the
              claims' boundary noted, a daily spend cap set with room for tonight's jobs and
              CAP_JOBS more of the re-analysis's (2 calls a job), `discern resume discerner`
  cap         until discern.paused_backends says 'spend cap' and nothing runs: the state counts
  finish      the cap raised by 100,000 calls; until every re-analysis job has succeeded

Then it counts: the forecast's calls against results.api_calls of the re-analysis (and the billed
calls), re-analysis jobs claimed after the resume before the last of tonight's other than in that
claim's own transaction, tonight's and the re-analysis's last finish, photos with exactly two
answers and discern.latest_results' rows from the new provider. Writes the section "Re-analysis at
N results (bench/reanalysis)" of bench/RESULTS.md (replaced if there) unless --no-write; exits 1 if
a check failed. Everything it starts (PostgreSQL, the simulator, workers, a temporary folder) is
stopped and removed when it ends, however it ends. About 2.5 minutes with a debug build on 2 cores.
"""
import argparse
import datetime
import hashlib
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import urllib.request

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "prepare"))
from run import machine, write_section  # noqa: E402  (bench/prepare/run.py: the benches' shared report helpers)

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
POSTGRES_SH = os.path.join(ROOT, "scripts", "postgres.sh")
OLD, NEW, DISAGREEMENT = "simulator", "vision-2026-11", 0.3
NAME, PRICE, CALLS_PER_JOB = "requal-nov", 0.0015, 2  # an Image Discerner analysis bills 2 calls
POLL = 0.2


def default_discern():
    release = os.path.join(ROOT, ".build", "release", "discern")
    return release if os.access(release, os.X_OK) else os.path.join(ROOT, ".build", "debug", "discern")


def arguments():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--discern", default=default_discern(), help="the discern binary (default: .build/release, else .build/debug)")
    parser.add_argument("--photos", type=int, default=10_000, help="night 1's photos, the re-analysis's size (10,000)")
    parser.add_argument("--tonight", type=int, default=500, help="new photos enqueued while it runs (500)")
    parser.add_argument("--pause-after", type=int, default=2_000, help="re-analysis jobs answered before they arrive (2,000)")
    parser.add_argument("--cap-jobs", type=int, default=3_000, help="re-analysis jobs the spend cap leaves room for after them (3,000)")
    parser.add_argument("--workers", type=int, default=2, help="worker processes (2)")
    parser.add_argument("--build", help="what the binary is, for the report (default: debug or release from its path)")
    parser.add_argument("--timeout", type=float, default=1800, help="seconds any one wait may take before the run fails (1800)")
    parser.add_argument("--results", default=os.path.join(ROOT, "bench", "RESULTS.md"), help="the file whose section is written")
    parser.add_argument("--no-write", action="store_true", help="print the section only")
    return parser.parse_args()


def literal(text):
    return "'" + str(text).replace("'", "''") + "'"


class Bench:
    def __init__(self, options):
        self.options = options
        self.discern = os.path.abspath(options.discern)
        self.folder = None
        self.pg = None
        self.url = None
        self.simulator = None
        self.service = None
        self.workers = []
        self.logs = []
        self.seconds = {}  # phase -> wall seconds
        self.marks = {}    # moment -> database clock (epoch seconds)

    # -- processes ---------------------------------------------------------------------------

    def run(self, command, **kwargs):
        result = subprocess.run(command, capture_output=True, text=True, env=kwargs.pop("env", self.env()), **kwargs)
        if result.returncode != 0:
            raise RuntimeError(f"{' '.join(command[:3])} failed ({result.returncode}): {result.stderr[-2000:]}{result.stdout[-1000:]}")
        return result.stdout

    def discern_run(self, *arguments):
        return self.run([self.discern, *arguments])

    def env(self):
        """This process's environment without anything that configures discern or libpq, then
        the run's own database, simulator and path root."""
        env = {k: v for k, v in os.environ.items() if not k.startswith(("DISCERN_", "PG"))}
        if self.url:
            env["DISCERN_DATABASE_URL"] = self.url
        if self.service:
            env["DISCERN_DISCERNER_URL"] = self.service
        if self.folder:
            env["DISCERN_PATH_ROOTS"] = os.path.join(self.folder, "photos")
        return env

    def sql(self, query):
        return self.run(["psql", self.url, "-XAtq", "-v", "ON_ERROR_STOP=1", "-c", query]).strip()

    def number(self, query):
        value = self.sql(query)
        return int(value) if value else 0

    def start_worker(self, *arguments):
        log = os.path.join(self.folder, f"worker-{len(self.logs) + 1}.log")
        self.logs.append(log)
        handle = open(log, "w")
        process = subprocess.Popen([self.discern, "work", "--log-level", "warning", "--no-progress", *arguments], env=self.env(),
                                   stdout=handle, stderr=subprocess.STDOUT)
        handle.close()
        self.workers.append(process)
        return process

    def stop_workers(self):
        for process in self.workers:
            if process.poll() is None:
                process.send_signal(signal.SIGTERM)
        for process in self.workers:
            try:
                process.wait(timeout=40)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
        codes = [process.returncode for process in self.workers]
        self.workers = []
        return codes

    def wait_until(self, what, predicate):
        deadline = time.monotonic() + self.options.timeout
        while True:
            value = predicate()
            if value:
                return value
            for process in self.workers:
                if process.poll() is not None and "--drain" not in process.args:
                    raise RuntimeError(f"a worker exited ({process.returncode}) while waiting for {what}")
            if time.monotonic() > deadline:
                raise RuntimeError(f"gave up after {self.options.timeout:.0f} s waiting for {what}")
            time.sleep(POLL)

    def settled(self, condition):
        """`condition` holds, no job of the service runs and no claim is recorded, twice a second
        apart: a claim that was under way when the pause or the cap came has committed by then."""
        def look():
            if not self.sql(f"SELECT {condition}") == "t":
                return None
            return (self.number("SELECT count(*) FROM discern.jobs WHERE backend = 'discerner' AND state = 'running'"),
                    self.number("SELECT coalesce(max(seq), 0) FROM bench_claims"))
        while True:
            first = self.wait_until(f"{condition} with nothing running",
                                    lambda: (lambda seen: seen if seen and seen[0] == 0 else None)(look()))
            time.sleep(1.0)
            if look() == first:
                return

    def now(self):
        return float(self.sql("SELECT extract(epoch FROM clock_timestamp())"))

    # -- the run ---------------------------------------------------------------------------

    def setup(self):
        self.folder = tempfile.mkdtemp(prefix="discern-reanalysis-")
        os.chmod(self.folder, 0o755)  # PostgreSQL runs as its own user when this runs as root
        self.pg = os.path.join(self.folder, "pg")
        started = time.monotonic()
        photos = os.path.join(self.folder, "photos")
        self.requal = os.path.join(photos, "requal")
        self.tonight = os.path.join(photos, "tonight")
        opts = self.options
        self.discern_run("samples", self.requal, "--count", str(opts.photos), "--size", "160x120", "--seed", "1", "--prefix", "requal")
        self.discern_run("samples", self.tonight, "--count", str(opts.tonight), "--size", "160x120", "--seed", "500001", "--prefix", "tonight")
        digests = set()
        for folder in (self.requal, self.tonight):
            for name in os.listdir(folder):
                with open(os.path.join(folder, name), "rb") as handle:
                    digests.add(hashlib.sha256(handle.read()).hexdigest())
        if len(digests) != opts.photos + opts.tonight:
            raise RuntimeError(f"{len(digests)} distinct photos made, not {opts.photos + opts.tonight}: enqueue would skip some")
        self.seconds["samples"] = time.monotonic() - started
        self.url = self.run(["bash", POSTGRES_SH, "start", self.pg]).strip().splitlines()[-1]
        if not self.url.startswith("postgresql://127.0.0.1") and "@127.0.0.1:" not in self.url:
            raise RuntimeError(f"the cluster is not on 127.0.0.1: {self.url}")
        self.discern_run("migrate")
        self.sql("UPDATE discern.rate_limits SET per_minute = 1000000, burst = 10000")
        url_file = os.path.join(self.folder, "simulator.url")
        log = open(os.path.join(self.folder, "simulator.log"), "w")
        self.logs.append(log.name)
        self.simulator = subprocess.Popen([self.discern, "simulate", "--host", "127.0.0.1", "--port", "0", "--url-file", url_file,
                                           "--no-throughput-limits", "--log-level", "warning"],
                                          env=self.env(), stdout=log, stderr=subprocess.STDOUT)
        log.close()
        deadline = time.monotonic() + 60
        while not (os.path.exists(url_file) and open(url_file).read().strip()):
            if self.simulator.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError("the simulator did not start")
            time.sleep(0.1)
        self.service = open(url_file).read().strip()
        if not self.service.startswith("http://127.0.0.1:"):
            raise RuntimeError(f"the simulator is not on 127.0.0.1: {self.service}")

    def night_one(self):
        started = time.monotonic()
        out = self.discern_run("enqueue", self.requal, "--batch", "requal")
        self.seconds["night 1: enqueue"] = time.monotonic() - started
        self.enqueue_output = out.strip()
        started = time.monotonic()
        for _ in range(self.options.workers):
            self.start_worker("--drain")
        codes = [process.wait() for process in self.workers]
        self.workers = []
        self.seconds["night 1: drain"] = time.monotonic() - started
        if any(codes):
            raise RuntimeError(f"night 1's workers exited {codes}")
        self.night_one_models = self.sql("SELECT string_agg(model || ' ' || n, ', ') FROM (SELECT model, count(*) AS n FROM discern.results GROUP BY 1) m")
        answered = self.number(f"SELECT count(*) FROM discern.results WHERE model = {literal(OLD)}")
        if answered != self.options.photos:
            raise RuntimeError(f"night 1 answered {answered} photos as {OLD} ({self.night_one_models}), not {self.options.photos}")

    def change_provider(self):
        request = urllib.request.Request(self.service + "/_sim/discerner-provider", method="POST",
                                         data=json.dumps({"name": NEW, "disagreement": DISAGREEMENT}).encode(),
                                         headers={"Content-Type": "application/json"})
        with urllib.request.urlopen(request, timeout=10) as answer:
            said = json.load(answer)
        if said.get("name") != NEW:
            raise RuntimeError(f"the simulator answered {said}")

    def reanalyse(self, name, dry_run):
        command = [self.discern, "reanalyse", "--service", "discerner", "--where", f"provider={OLD}", "--batch", "requal",
                   "--name", name, "--format", "json"] + (["--dry-run"] if dry_run else [])
        started = time.monotonic()
        out = self.run(command)
        return json.loads(out), time.monotonic() - started

    def forecast(self):
        self.sql(f"INSERT INTO discern.service_budgets (backend, price_per_call) VALUES ('discerner', {PRICE})")
        self.billed_before = self.number("SELECT coalesce(sum(calls), 0) FROM discern.billed_calls WHERE backend = 'discerner'")
        self.dry, self.seconds["forecast: dry run"] = self.reanalyse(NAME, dry_run=True)
        self.jobs_after_dry = self.number("SELECT count(*) FROM discern.jobs WHERE state <> 'succeeded'")
        self.started, self.seconds["forecast: enqueue for real"] = self.reanalyse(NAME, dry_run=False)
        self.batch = self.number(f"SELECT id FROM discern.batches WHERE name = {literal('reanalysis:' + NAME)}")
        # Every claim (a job going from waiting to running), in order, with its transaction:
        # ReanalysisTests' recordClaims.
        self.sql("""
            CREATE TABLE bench_claims (seq bigserial PRIMARY KEY, job_id bigint, batch_id bigint, xid xid8 DEFAULT pg_current_xact_id());
            CREATE FUNCTION bench_record_claim() RETURNS trigger LANGUAGE plpgsql AS $$
            BEGIN
                INSERT INTO bench_claims (job_id, batch_id) VALUES (NEW.id, NEW.batch_id);
                RETURN NULL;
            END $$;
            CREATE TRIGGER bench_claims AFTER UPDATE ON discern.jobs FOR EACH ROW
                WHEN (OLD.state = 'available' AND NEW.state = 'running') EXECUTE FUNCTION bench_record_claim();""")

    def counts(self, batch_name):
        rows = self.sql(f"""SELECT j.state, count(*) FROM discern.jobs j
                            WHERE j.batch_id = (SELECT id FROM discern.batches WHERE name = {literal(batch_name)}) GROUP BY 1""")
        found = dict(line.split("|") for line in rows.splitlines() if line)
        return {state: int(found.get(state, 0)) for state in ("succeeded", "available", "running", "dead")}

    def succeeded(self, batch_id):
        return self.number(f"SELECT count(*) FROM discern.jobs WHERE batch_id = {batch_id} AND state = 'succeeded'")

    def background(self):
        opts = self.options
        started = time.monotonic()
        self.marks["workers started"] = self.now()
        for _ in range(opts.workers):
            self.start_worker()
        self.wait_until(f"{opts.pause_after} re-analysis jobs answered", lambda: self.succeeded(self.batch) >= opts.pause_after)
        self.seconds["run: to the pause"] = time.monotonic() - started
        self.at_pause = self.succeeded(self.batch)
        started = time.monotonic()
        self.discern_run("pause", "discerner", "--reason", "bench/reanalysis: tonight's photos arrive")
        self.settled("true")
        self.seconds["run: pause until idle"] = time.monotonic() - started
        self.after_pause = self.succeeded(self.batch)
        started = time.monotonic()
        self.discern_run("enqueue", self.tonight, "--batch", "tonight")
        self.seconds["run: enqueue tonight"] = time.monotonic() - started
        self.tonight_enqueued = self.number("SELECT count(*) FROM discern.jobs WHERE batch_id = (SELECT id FROM discern.batches WHERE name = 'tonight')")
        self.boundary = self.number("SELECT coalesce(max(seq), 0) FROM bench_claims")
        self.billed_at_cap = self.number(
            "SELECT coalesce(sum(calls), 0) FROM discern.billed_calls WHERE backend = 'discerner' AND day = (now() AT TIME ZONE 'UTC')::date")
        self.cap = self.billed_at_cap + CALLS_PER_JOB * (opts.tonight + opts.cap_jobs)
        self.sql(f"UPDATE discern.service_budgets SET cap_calls = {self.cap}, cap_period = 'day' WHERE backend = 'discerner'")
        started = time.monotonic()
        self.marks["resumed"] = self.now()
        self.discern_run("resume", "discerner")
        all_done = f"(SELECT count(*) = {opts.photos} FROM discern.jobs WHERE batch_id = {self.batch} AND state = 'succeeded')"
        capped = "EXISTS (SELECT 1 FROM discern.paused_backends WHERE backend = 'discerner' AND paused_by = 'spend cap')"
        self.settled(f"{capped} OR {all_done}")
        self.seconds["run: resume until the cap stops it"] = time.monotonic() - started
        self.capped = self.sql(f"SELECT {capped}") == "t"
        self.at_cap = {"reanalysis": self.counts("reanalysis:" + NAME), "tonight": self.counts("tonight")}
        self.billed_at_stop = self.number(
            "SELECT coalesce(sum(calls), 0) FROM discern.billed_calls WHERE backend = 'discerner' AND day = (now() AT TIME ZONE 'UTC')::date")
        self.pause_reason = self.sql("SELECT coalesce(string_agg(paused_by || ': ' || coalesce(reason, ''), '; '), '') FROM discern.paused_backends")
        started = time.monotonic()
        self.marks["cap raised"] = self.now()
        self.sql("UPDATE discern.service_budgets SET cap_calls = cap_calls + 100000 WHERE backend = 'discerner'")
        self.wait_until("every re-analysis job answered", lambda: self.succeeded(self.batch) == opts.photos)
        self.seconds["run: cap raised until done"] = time.monotonic() - started
        self.worker_codes = self.stop_workers()

    def figures(self):
        opts = self.options
        f = {}
        f["made"] = self.number(f"SELECT coalesce(sum(api_calls), 0) FROM discern.results WHERE batch_id = {self.batch}")
        f["tonight_calls"] = self.number("SELECT coalesce(sum(api_calls), 0) FROM discern.results WHERE batch_id = (SELECT id FROM discern.batches WHERE name = 'tonight')")
        f["billed"] = self.number("SELECT coalesce(sum(calls), 0) FROM discern.billed_calls WHERE backend = 'discerner'") - self.billed_before
        f["error"] = (self.dry["calls"] - f["made"]) / f["made"] if f["made"] else float("nan")
        f["attempts"] = self.number(f"SELECT coalesce(sum(attempts), 0) FROM discern.jobs WHERE batch_id = {self.batch}")
        f["final"] = {"reanalysis": self.counts("reanalysis:" + NAME), "tonight": self.counts("tonight")}
        f["results_in_batch"] = self.number(f"SELECT count(*) FROM discern.results WHERE batch_id = {self.batch}")
        # The claims after the resume, in order: a re-analysis job claimed before the last of
        # tonight's, other than in the very claim (transaction) that took it, is one claimed early.
        rows = self.sql(f"""SELECT c.seq, c.xid::text, coalesce(b.name, '') FROM bench_claims c LEFT JOIN discern.batches b ON b.id = c.batch_id
                            WHERE c.seq > {self.boundary} ORDER BY c.seq""").splitlines()
        claims = [tuple(row.split("|")) for row in rows]
        tonight_at = [i for i, c in enumerate(claims) if c[2] == "tonight"]
        last = tonight_at[-1] if tonight_at else None
        early = [c for c in claims[:last] if c[2] != "tonight" and c[1] != claims[last][1]] if last is not None else []
        f["claims_after"] = len(claims)
        f["tonight_claims_after"] = len(tonight_at)
        f["tonight_claims_before"] = self.number(f"""SELECT count(*) FROM bench_claims WHERE seq <= {self.boundary}
                                                     AND batch_id = (SELECT id FROM discern.batches WHERE name = 'tonight')""")
        f["early"] = len(early)
        f["early_transactions"] = len({c[1] for c in early})
        f["early_first_position"] = claims.index(early[0]) + 1 if early else None
        f["last_tonight_position"] = last + 1 if last is not None else None
        f["same_claim"] = sum(1 for c in claims[:last] if c[2] != "tonight" and c[1] == claims[last][1]) if last is not None else 0
        f["claims_per_transaction"] = self.sql(f"""SELECT round(avg(n), 1) || ' (max ' || max(n) || ')' FROM
                                                   (SELECT count(*) AS n FROM bench_claims WHERE seq > {self.boundary} GROUP BY xid) t""")
        finishes = self.sql(f"""SELECT extract(epoch FROM max(finished_at) FILTER (WHERE b.name = 'tonight')),
                                       extract(epoch FROM max(finished_at) FILTER (WHERE b.name = {literal('reanalysis:' + NAME)})),
                                       extract(epoch FROM min(finished_at) FILTER (WHERE b.name = {literal('reanalysis:' + NAME)}
                                                                                   AND j.id IN (SELECT job_id FROM bench_claims WHERE seq > {self.boundary})))
                                FROM discern.jobs j JOIN discern.batches b ON b.id = j.batch_id""").split("|")
        resumed = self.marks["resumed"]
        f["tonight_last"] = float(finishes[0]) - resumed
        f["reanalysis_last"] = float(finishes[1]) - resumed
        f["reanalysis_first_after"] = float(finishes[2]) - resumed if finishes[2] else None
        f["cap_raised_at"] = self.marks["cap raised"] - resumed
        photos_prefix = literal(self.requal + "/%")
        f["two_answers"] = self.number(f"""SELECT count(*) FROM (SELECT image_path FROM discern.results WHERE image_path LIKE {photos_prefix}
                                            GROUP BY 1 HAVING count(*) = 2) t""")
        f["not_two"] = self.number(f"""SELECT count(*) FROM (SELECT image_path FROM discern.results WHERE image_path LIKE {photos_prefix}
                                        GROUP BY 1 HAVING count(*) <> 2) t""")
        f["in_order"] = self.number(f"""SELECT count(*) FROM (SELECT string_agg(model, ',' ORDER BY created_at, id) AS models
                                         FROM discern.results WHERE image_path LIKE {photos_prefix} GROUP BY image_path) t
                                         WHERE models = {literal(OLD + ',' + NEW)}""")
        f["latest_new"] = self.number(f"SELECT count(*) FROM discern.latest_results WHERE model = {literal(NEW)} AND image_path LIKE {photos_prefix}")
        f["differ"] = self.number(f"""SELECT count(*) FROM discern.results o JOIN discern.results n ON n.image_path = o.image_path
                                       WHERE o.model = {literal(OLD)} AND n.model = {literal(NEW)} AND n.batch_id = {self.batch}
                                         AND (o.category, o.operator, o.fleet_id, o.license_plate)
                                             IS DISTINCT FROM (n.category, n.operator, n.fleet_id, n.license_plate)""")
        sample = os.path.join(self.requal, sorted(os.listdir(self.requal))[0])
        history = self.discern_run("results", "--photo", sample)
        lines = [line for line in history.splitlines() if os.path.basename(sample) in line]
        f["history"] = (len(lines), sum(1 for line in lines if NEW in line), sum(1 for line in lines if OLD in line and NEW not in line))
        rerun, _ = self.reanalyse(NAME, dry_run=True)
        other, _ = self.reanalyse(NAME + "-2", dry_run=True)
        f["rerun_enqueued"], f["other_selected"] = rerun["enqueued"], other["selected"]
        f["operator_log"] = self.sql("SELECT coalesce(string_agg(jobs::text, ','), '') FROM discern.operator_actions WHERE action = 'reanalyse'")
        return f

    def cleanup(self, failed):
        if failed:
            for log in self.logs:
                if os.path.exists(log):
                    tail = open(log, errors="replace").read()[-3000:]
                    if tail.strip():
                        print(f"--- {os.path.basename(log)} (last lines)\n{tail}", file=sys.stderr)
        for process in self.workers:
            if process.poll() is None:
                process.kill()
            process.wait()
        if self.simulator is not None and self.simulator.poll() is None:
            self.simulator.terminate()
            try:
                self.simulator.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.simulator.kill()
                self.simulator.wait()
        if self.pg is not None and os.path.isdir(self.pg):
            data = os.path.join(self.pg, "data")
            elsewhere = os.path.realpath(data) if os.path.islink(data) else None
            subprocess.run(["bash", POSTGRES_SH, "stop", self.pg], capture_output=True)
            if elsewhere:  # as root, when the postgres user could not reach the folder
                shutil.rmtree(elsewhere, ignore_errors=True)
        if self.folder:
            shutil.rmtree(self.folder, ignore_errors=True)



def build_of(discern, kind=None):
    said = subprocess.run([discern, "--version"], capture_output=True, text=True).stdout.strip().splitlines()
    version = said[0].removeprefix("discern ").strip() if said else ""
    commit = subprocess.run(["git", "-C", ROOT, "rev-parse", "--short", "HEAD"], capture_output=True, text=True).stdout.strip()
    where = os.path.realpath(discern)
    kind = kind or ("debug" if "/debug/" in where else "release" if "/release/" in where else "prebuilt")
    return f"discern {version or '?'}, a {kind} build; checkout at {commit or '?'}"


def number(value):
    return "-" if value is None else f"{value:g}"


def section(bench, f, checks, ran_at, total):
    opts = bench.options
    dry, cap = bench.dry, bench.at_cap
    ra_cap, tn_cap = cap["reanalysis"], cap["tonight"]
    ra_end, tn_end = f["final"]["reanalysis"], f["final"]["tonight"]
    yes = lambda ok: "yes" if ok else "**no**"  # noqa: E731
    def pct(x):
        return f"{x:+.1%}"
    after_cap = ra_cap["succeeded"] - bench.after_pause
    rows = [
        ("forecast (dry run) against calls made: results.api_calls of the re-analysis",
         f"{dry['calls']:,} against {f['made']:,} ({pct(f['error'])})", "within 10 %", checks["forecast"]),
        ("the same run for real: enqueued, calls, cost", f"{bench.started['enqueued']:,} jobs, {bench.started['calls']:,} calls, "
         f"{bench.started.get('cost')}", f"{opts.photos:,}, as the dry run", checks["started"]),
        ("calls billed meanwhile (discern.billed_calls), tonight's taken out",
         f"{f['billed'] - f['tonight_calls']:,} ({f['billed']:,} with tonight's {f['tonight_calls']:,})", "at least the calls made", None),
        ("re-analysis jobs claimed after the resume before the last of tonight's, outside that claim",
         f"{f['early']}" + (f" (in {f['early_transactions']} claims; the first at claim row {f['early_first_position']} "
                           f"of {f['claims_after']:,}, tonight's last at {f['last_tonight_position']})" if f["early"] else ""), "0", checks["order"]),
        ("tonight's photos claimed after the resume / before it", f"{f['tonight_claims_after']} / {f['tonight_claims_before']}",
         f"{opts.tonight} / 0", checks["tonight_claims"]),
        ("last finish after the resume: tonight's / the re-analysis's",
         f"{f['tonight_last']:.1f} s / {f['reanalysis_last']:.1f} s (cap raised at {f['cap_raised_at']:.1f} s)", "tonight first", checks["finish"]),
        ("stopped by the spend cap (discern.paused_backends)", yes(bench.capped), "yes", checks["capped"]),
        ("at the stop, re-analysis: succeeded / available / running / dead",
         f"{ra_cap['succeeded']:,} / {ra_cap['available']:,} / {ra_cap['running']} / {ra_cap['dead']}",
         f"sum {opts.photos:,}, dead 0", checks["at_cap"]),
        ("at the stop, re-analysis jobs answered since the resume; the cap's room",
         f"{after_cap:,}; {CALLS_PER_JOB} x ({opts.tonight} + {opts.cap_jobs:,}) calls, billed {bench.billed_at_stop - bench.billed_at_cap:,} of them",
         f"about {opts.cap_jobs:,}; billed within the room", checks["billed_within"]),
        ("at the stop, tonight's: succeeded / available / running / dead",
         f"{tn_cap['succeeded']} / {tn_cap['available']} / {tn_cap['running']} / {tn_cap['dead']}", f"{opts.tonight} / 0 / 0 / 0", checks["tonight_at_cap"]),
        ("after the cap was raised: re-analysis succeeded / dead; results in its batch; attempts",
         f"{ra_end['succeeded']:,} / {ra_end['dead']}; {f['results_in_batch']:,}; {f['attempts']:,}",
         f"{opts.photos:,} / 0; {opts.photos:,}; {opts.photos:,}", checks["finished"]),
        ("photos with exactly two answers (simulator, then vision-2026-11); with another count",
         f"{f['two_answers']:,} ({f['in_order']:,} in that order); {f['not_two']}", f"{opts.photos:,}; 0", checks["two"]),
        ("discern.latest_results rows from vision-2026-11 for those photos", f"{f['latest_new']:,}", f"{opts.photos:,}", checks["latest"]),
        ("new answers differing from the old in category, operator, fleet ID or plate",
         f"{f['differ']:,} ({f['differ'] / opts.photos:.1%})",
         f"under {DISAGREEMENT:.0%}: one field changed on {DISAGREEMENT:.0%} of photos, nothing when the photo lacks it", None),
        ("`discern results --photo` of one photo: lines / new / old", "{} / {} / {}".format(*f["history"]), "2 / 1 / 1", checks["history"]),
        ("run again: the same name adds / another name selects", f"{f['rerun_enqueued']} / {f['other_selected']}", "0 / 0", checks["again"]),
    ]
    phases = [(name, seconds) for name, seconds in bench.seconds.items()]
    rate = {
        "night 1: drain": opts.photos,
        "run: to the pause": bench.at_pause,
        "run: cap raised until done": opts.photos - ra_cap["succeeded"],
        "run: resume until the cap stops it": opts.tonight + after_cap,
    }
    lines = [
        f"## Re-analysis at {opts.photos:,} results (bench/reanalysis)",
        "",
        f"Machine: {machine()}. Run: {ran_at}, `python3 bench/reanalysis/run.py {' '.join(sys.argv[1:])}`, "
        f"{build_of(bench.discern, opts.build)}. One run, {total:.0f} s in all.",
        f"{opts.photos:,} distinct 160x120 photos answered by the simulator's default provider (batch requal, "
        f"{opts.workers} `work --drain`), then the simulator switched to {NEW} (disagreement {DISAGREEMENT}) and "
        f"`discern reanalyse --service discerner --where provider={OLD} --batch requal --name {NAME}` (price {PRICE} a call). "
        f"{opts.workers} `discern work` at their defaults; at {bench.at_pause:,} re-analysis jobs answered "
        f"({bench.after_pause:,} once the pause had let the running ones finish) the service paused, {opts.tonight} new photos "
        f"enqueued as batch tonight, a daily cap of {bench.cap:,} calls set (billed today {bench.billed_at_cap:,} + "
        f"{CALLS_PER_JOB} x ({opts.tonight} + {opts.cap_jobs:,})), resumed; once the cap stopped it, raised by 100,000. "
        "Simulator without throughput limits and answering at once; rate limits at 1,000,000 a minute; PostgreSQL and "
        "everything else on the same 2 cores.",
        "",
        "| what | measured | expected | holds |",
        "|---|---|---|---|",
    ]
    lines += [f"| {what} | {measured} | {expected} | {'-' if ok is None else yes(ok)} |" for what, measured, expected, ok in rows]
    lines += ["", "| phase | wall s | jobs/s |", "|---|---:|---:|"]
    for name, seconds in phases:
        jobs = rate.get(name)
        lines.append(f"| {name} | {seconds:.2f} | {jobs / seconds:.0f} |" if jobs and seconds > 0 else f"| {name} | {seconds:.2f} | - |")
    lines += [
        "",
        f"- The forecast: {dry['selected']:,} photos selected, {number(dry.get('calls_per_job'))} calls a job measured from their own "
        f"answers, {number(dry.get('attempts_per_job'))} attempts a job, {dry['calls']:,} calls, cost {dry.get('cost')}; "
        f"the dry run took {bench.seconds['forecast: dry run']:.2f} s on {opts.photos:,} stored results and enqueued nothing "
        f"({bench.jobs_after_dry} jobs waiting after it). Its time forecast: {dry.get('constraint') or 'none'}"
        f"{', finish ' + str(dry.get('finish_early')) + ' to ' + str(dry.get('finish_late')) if dry.get('finish_early') else ''}.",
        f"- Claims after the resume: {f['claims_after']:,} rows, {f['claims_per_transaction']} jobs a claim; "
        f"{f['same_claim']} re-analysis jobs taken in the same claim as the last of tonight's (allowed). The first "
        f"re-analysis answer after the resume came {f['reanalysis_first_after']:.1f} s after it." if f["reanalysis_first_after"] is not None
        else f"- Claims after the resume: {f['claims_after']:,} rows, {f['claims_per_transaction']} jobs a claim.",
        f"- Under the cap {bench.billed_at_stop - bench.billed_at_cap:,} calls were billed for {tn_cap['succeeded']} of tonight's "
        f"jobs and {after_cap:,} of the re-analysis's ({CALLS_PER_JOB} calls each): "
        f"{bench.billed_at_stop - bench.billed_at_cap - CALLS_PER_JOB * (tn_cap['succeeded'] + after_cap):,} billed without an answer "
        "(a job's first call made, its second refused by the cap: the job waits and is asked again).",
        f"- Billed calls count the rate-limit slots taken, leased up to 64 at a time while no cap is set (a leased slot "
        f"not used in time is dropped and counts); under a cap they are taken one at a time. Pause at the stop: {bench.pause_reason or 'none'}.",
        f"- Workers exited {bench.worker_codes} on SIGTERM.",
    ]
    return "\n".join(lines) + "\n"



def main():
    options = arguments()
    if not os.access(options.discern, os.X_OK):
        sys.exit(f"no discern binary at {options.discern} (--discern)")
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    bench, failed = Bench(options), True
    began = time.monotonic()
    ran_at = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    try:
        bench.setup()
        bench.night_one()
        bench.change_provider()
        bench.forecast()
        bench.background()
        f = bench.figures()
        failed = False
    finally:
        bench.cleanup(failed)
    total = time.monotonic() - began
    n, t = options.photos, options.tonight
    ra_cap, tn_cap = bench.at_cap["reanalysis"], bench.at_cap["tonight"]
    checks = {
        "forecast": f["made"] > 0 and abs(f["error"]) <= 0.10,
        "started": bench.started["enqueued"] == n and bench.started["calls"] == bench.dry["calls"] and bench.started["started"]
                   and not bench.dry["started"] and bench.jobs_after_dry == 0,
        "order": f["early"] == 0 and f["tonight_claims_after"] == t,
        "tonight_claims": f["tonight_claims_after"] == t and f["tonight_claims_before"] == 0,
        "finish": f["tonight_last"] < f["reanalysis_last"],
        "capped": bench.capped,
        "at_cap": ra_cap["succeeded"] + ra_cap["available"] == n and ra_cap["dead"] == 0 and ra_cap["running"] == 0,
        "billed_within": bench.billed_at_stop <= bench.cap,
        "tonight_at_cap": tn_cap["succeeded"] == t,
        "finished": f["final"]["reanalysis"]["succeeded"] == n and f["final"]["reanalysis"]["dead"] == 0 and f["results_in_batch"] == n,
        "two": f["two_answers"] == n and f["in_order"] == n and f["not_two"] == 0,
        "latest": f["latest_new"] == n,
        "history": f["history"] == (2, 1, 1),
        "again": f["rerun_enqueued"] == 0 and f["other_selected"] == 0,
    }
    text = section(bench, f, checks, ran_at, total)
    print(text)
    if not options.no_write:
        write_section(text, f"## Re-analysis at {n:,} results (bench/reanalysis)", options.results)
    failing = [name for name, ok in checks.items() if not ok]
    if failing:
        print("did not hold: " + ", ".join(failing), file=sys.stderr)
    sys.exit(1 if failing else 0)


if __name__ == "__main__":
    main()
