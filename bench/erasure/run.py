"""Erasure under a 10-minute refusal: `discern erase --subject` measured against issue 68's
"Done when" (docs/operations.md, "Erasing a person"): one of 50 enrolled subjects erased after
2,000 analyses leaves no trace of its id in any discern table, its template is deleted at the
OOTO stand-in, the other 49 subjects' data stays, the erasure record holds no erased value; and
with the service refusing for 10 minutes the request stays "in progress", then finishes by itself.

    python3 bench/erasure/run.py [--discern BIN] [--subjects 50] [--identifies 2000] [--erase 7]
                                 [--refuse-seconds 600] [--sample-seconds 30] [--no-write]

On a private PostgreSQL (scripts/postgres.sh) and `discern simulate --no-throughput-limits`, both
on 127.0.0.1, with every rate limit made non-binding:

  night       SUBJECTS distinct 240x240 photos (`discern samples --prefix face`: no path holds
              "person-"); one OOTO enroll job each (templateId person-N for face-(N+1)), then
              IDENTIFIES identify jobs (each photo in turn, `discern.enqueue_many` without unique
              keys), drained by `discern work --drain --service ooto --concurrency 16`; results
              counted per subject_id
  refusal     a `discern work --service ooto` with a wrong DISCERN_OOTO_APP_KEY (the simulator
              answers 401: auth_failed); `discern erase --subject person-ERASE`, its output kept;
              for REFUSE_SECONDS, every SAMPLE_SECONDS, `discern erase --status --format json` and
              the delete job's state, attempts, given_back, error_kind and run_at; the simulator's
              count of OOTO delete calls
  key right   that worker stopped, one with the right key started: seconds until
              discern.erasure_requests.state = 'done', polled every second, with the delete job's
              run_at when the key became right (the job waits for it; its backoff grows)
  checks      every column of every base table of schema discern scanned for the id (as written
              and without its dash); the 49 others' result counts against the night's; the
              erasure record (request and steps, and `--status --format json`) for the id; one
              identify of the erased subject's photo (expected: no match) and, as a control, one
              of another subject's (expected: that subject)

Writes the section "Erasure under a 10-minute refusal (bench/erasure)" of bench/RESULTS.md
(replaced if there) unless --no-write; exits 1 if a check failed. Everything it starts
(PostgreSQL, the simulator, workers, a temporary folder) is stopped and removed when it ends,
however it ends. About 11 minutes with a debug build on 2 cores, plus the wait after the key is
right: the delete job's backoff, up to 10 minutes.
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
OOTO_APP, OOTO_KEY, WRONG_KEY = "sim-ooto-app", "sim-ooto-key", "not-the-key-0000"
HEADING = "## Erasure under a 10-minute refusal (bench/erasure)"
POLL = 0.5


def default_discern():
    release = os.path.join(ROOT, ".build", "release", "discern")
    return release if os.access(release, os.X_OK) else os.path.join(ROOT, ".build", "debug", "discern")


def arguments():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--discern", default=default_discern(), help="the discern binary (default: .build/release, else .build/debug)")
    parser.add_argument("--subjects", type=int, default=50, help="enrolled subjects, one photo each (50)")
    parser.add_argument("--identifies", type=int, default=2_000, help="identify jobs after the enrolment, each photo in turn (2,000)")
    parser.add_argument("--erase", type=int, default=7, help="N of the subject erased, person-N (7)")
    parser.add_argument("--refuse-seconds", type=float, default=600, help="how long OOTO refuses discern's key after the request (600)")
    parser.add_argument("--sample-seconds", type=float, default=30, help="how often the request's state is sampled meanwhile (30)")
    parser.add_argument("--seed", type=int, default=9000, help="the photos' first seed (9000)")
    parser.add_argument("--build", help="what the binary is, for the report (default: debug or release from its path)")
    parser.add_argument("--timeout", type=float, default=1800, help="seconds any one wait may take before the run fails (1800)")
    parser.add_argument("--results", default=os.path.join(ROOT, "bench", "RESULTS.md"), help="the file whose section is written")
    parser.add_argument("--no-write", action="store_true", help="print the section only")
    options = parser.parse_args()
    if not 0 <= options.erase < options.subjects:
        parser.error("--erase must name one of the subjects")
    longer = [n for n in range(options.subjects) if n != options.erase and str(n).startswith(str(options.erase))]
    if longer:
        parser.error(f"person-{options.erase} is a prefix of person-{longer[0]}: the scan could not tell them apart")
    return options


def literal(text):
    return "'" + str(text).replace("'", "''") + "'"


class Bench:
    def __init__(self, options):
        self.options = options
        self.discern = os.path.abspath(options.discern)
        self.subject = f"person-{options.erase}"
        self.folder = None
        self.pg = None
        self.url = None
        self.simulator = None
        self.service = None
        self.workers = []
        self.logs = []
        self.seconds = {}  # phase -> wall seconds

    # -- processes ---------------------------------------------------------------------------

    def run(self, command, **kwargs):
        result = subprocess.run(command, capture_output=True, text=True, env=kwargs.pop("env", self.env()), **kwargs)
        if result.returncode != 0:
            raise RuntimeError(f"{' '.join(command[:3])} failed ({result.returncode}): {result.stderr[-2000:]}{result.stdout[-1000:]}")
        return result.stdout

    def discern_run(self, *arguments):
        return self.run([self.discern, *arguments])

    def env(self, key=OOTO_KEY):
        """This process's environment without anything that configures discern or libpq, then
        the run's own database, OOTO at the simulator (with `key`) and path root."""
        env = {k: v for k, v in os.environ.items() if not k.startswith(("DISCERN_", "PG"))}
        if self.url:
            env["DISCERN_DATABASE_URL"] = self.url
        if self.service:
            env["DISCERN_OOTO_URL"] = self.service + "/ooto/api/v1.0"
            env["DISCERN_OOTO_APP_ID"] = OOTO_APP
            env["DISCERN_OOTO_APP_KEY"] = key
        if self.folder:
            env["DISCERN_PATH_ROOTS"] = self.photos
        return env

    def sql(self, query):
        return self.run(["psql", self.url, "-XAtq", "-v", "ON_ERROR_STOP=1", "-c", query]).strip()

    def number(self, query):
        value = self.sql(query)
        return int(value) if value else 0

    def start_worker(self, *arguments, key=OOTO_KEY):
        log = os.path.join(self.folder, f"worker-{len(self.logs) + 1}.log")
        self.logs.append(log)
        handle = open(log, "w")
        process = subprocess.Popen([self.discern, "work", "--log-level", "warning", "--no-progress", "--service", "ooto", *arguments],
                                   env=self.env(key), stdout=handle, stderr=subprocess.STDOUT)
        handle.close()
        self.workers.append(process)
        return process

    def stop_worker(self, process):
        if process.poll() is None:
            process.send_signal(signal.SIGTERM)
        try:
            process.wait(timeout=40)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
        self.workers.remove(process)
        return process.returncode

    def check_workers(self, what):
        for process in self.workers:
            if process.poll() is not None and "--drain" not in process.args:
                raise RuntimeError(f"a worker exited ({process.returncode}) while {what}")

    def wait_until(self, what, predicate, poll=POLL):
        deadline = time.monotonic() + self.options.timeout
        while True:
            value = predicate()
            if value:
                return value
            self.check_workers(f"waiting for {what}")
            if time.monotonic() > deadline:
                raise RuntimeError(f"gave up after {self.options.timeout:.0f} s waiting for {what}")
            time.sleep(poll)

    def stats(self):
        with urllib.request.urlopen(self.service + "/_sim/stats", timeout=10) as answer:
            return json.load(answer)

    def delete_calls(self):
        return self.stats().get("routes", {}).get("ooto.delete", {}).get("calls", 0)

    def per_subject(self):
        rows = self.sql("SELECT subject_id, count(*) FROM discern.results WHERE subject_id IS NOT NULL GROUP BY 1 ORDER BY 1")
        return {line.split("|")[0]: int(line.split("|")[1]) for line in rows.splitlines() if line}

    def status(self):
        return json.loads(self.discern_run("erase", "--status", "--format", "json"))

    def delete_job(self):
        """The erasure step's job: state, attempts, given_back, error_kind, seconds until run_at."""
        row = self.sql("""SELECT id, state, attempts, given_back, coalesce(error_kind, ''),
                                 round(extract(epoch FROM run_at - now())::numeric, 1), max_attempts
                          FROM discern.jobs WHERE action = 'delete' ORDER BY id""")
        if not row:
            return None
        if "\n" in row:
            raise RuntimeError(f"more than one delete job: {row}")
        f = row.split("|")
        return {"id": int(f[0]), "state": f[1], "attempts": int(f[2]), "given_back": int(f[3]), "error_kind": f[4] or None,
                "run_in": float(f[5]), "max_attempts": int(f[6])}

    def step(self):
        row = self.sql("SELECT state, rounds, coalesce(last_error_kind, ''), coalesce(outcome, '') FROM discern.erasure_steps ORDER BY step LIMIT 1")
        if not row:
            return None
        f = row.split("|")
        return {"state": f[0], "rounds": int(f[1]), "last_error_kind": f[2] or None, "outcome": f[3] or None}

    def breakers(self):
        """The open breakers (a row is an open one): service, error kind, failed probes."""
        return self.sql("SELECT coalesce(string_agg(backend || ' open (' || error_kind || ', ' || probes_failed || ' probes failed)', '; '), 'none') "
                        "FROM discern.service_breakers")

    def request_state(self):
        return self.sql("SELECT string_agg(state, ',') FROM discern.erasure_requests")

    # -- the run ---------------------------------------------------------------------------

    def setup(self):
        opts = self.options
        self.folder = tempfile.mkdtemp(prefix="discern-erasure-")
        os.chmod(self.folder, 0o755)  # PostgreSQL runs as its own user when this runs as root
        self.pg = os.path.join(self.folder, "pg")
        self.photos = os.path.join(self.folder, "photos")
        started = time.monotonic()
        self.discern_run("samples", self.photos, "--count", str(opts.subjects), "--size", "240x240", "--seed", str(opts.seed), "--prefix", "face")
        self.faces = sorted(os.path.join(self.photos, name) for name in os.listdir(self.photos))
        digests = {hashlib.sha256(open(path, "rb").read()).hexdigest() for path in self.faces}
        if len(self.faces) != opts.subjects or len(digests) != opts.subjects:
            raise RuntimeError(f"{len(digests)} distinct photos of {len(self.faces)} made, not {opts.subjects}")
        if any("person-" in path for path in self.faces):
            raise RuntimeError("a photo's path holds 'person-': the scan would find it")
        self.seconds["setup: photos"] = time.monotonic() - started
        started = time.monotonic()
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
        self.seconds["setup: PostgreSQL, migrate, simulator"] = time.monotonic() - started

    def night(self):
        opts = self.options
        started = time.monotonic()
        enrol = ";\n".join(
            f"SELECT discern.enqueue({literal(path)}, 'ooto', 'enroll', {literal(json.dumps({'templateId': f'person-{n}'}))}::jsonb, "
            f"0::smallint, now(), 5, 'enrolment')" for n, path in enumerate(self.faces))
        self.sql(enrol)
        paths = [self.faces[i % opts.subjects] for i in range(opts.identifies)]
        array = "ARRAY[" + ",".join(literal(p) for p in paths) + "]::text[]"
        self.identify_enqueued = self.number(f"SELECT discern.enqueue_many({array}, 'ooto', 'identify', 0::smallint, 'night')")
        self.seconds["night: enqueue"] = time.monotonic() - started
        if self.identify_enqueued != opts.identifies:
            raise RuntimeError(f"{self.identify_enqueued} identify jobs enqueued, not {opts.identifies}")
        started = time.monotonic()
        night = self.start_worker("--drain", "--concurrency", "16")
        code = night.wait(timeout=opts.timeout)
        self.workers.remove(night)
        self.seconds["night: drain (enrol + identify)"] = time.monotonic() - started
        if code != 0:
            raise RuntimeError(f"the night's worker exited {code}")
        rows = self.sql("SELECT action || ':' || state, count(*) FROM discern.jobs GROUP BY 1 ORDER BY 1")
        self.night_jobs = dict((line.split("|")[0], int(line.split("|")[1])) for line in rows.splitlines() if line)
        self.night_results = self.number("SELECT count(*) FROM discern.results")
        self.before = self.per_subject()

    def refusal(self):
        opts = self.options
        self.delete_calls_before = self.delete_calls()
        self.refused_worker = self.start_worker(key=WRONG_KEY)
        time.sleep(2)  # started and listening before the request arrives
        self.check_workers("the wrong-key worker started")
        started = time.monotonic()
        self.erase_output = self.discern_run("erase", "--subject", self.subject).strip()
        self.seconds["erase: the command"] = time.monotonic() - started
        window_start = time.monotonic()
        self.samples = []
        t = 0.0
        while t <= opts.refuse_seconds + 1e-6:
            time.sleep(max(0.0, window_start + t - time.monotonic()))
            self.check_workers("OOTO refused the key")
            at = time.monotonic() - window_start
            document = self.status()
            request = document["requests"][0] if document.get("requests") else {}
            step = (request.get("steps") or [{}])[0]
            self.samples.append({"t": at, "state": request.get("state"), "step": step.get("state"), "rounds": step.get("rounds"),
                                 "step_error": step.get("last_error_kind"), "job": self.delete_job(), "calls": self.delete_calls(),
                                 "breaker": self.breakers()})
            t += opts.sample_seconds
        self.seconds["refusal: wrong key, sampled"] = time.monotonic() - window_start

    def key_right(self):
        started = time.monotonic()
        self.refused_code = self.stop_worker(self.refused_worker)
        self.seconds["key right: stop the wrong-key worker"] = time.monotonic() - started
        self.at_switch = {"job": self.delete_job(), "step": self.step(), "state": self.request_state(),
                          "breaker": self.breakers()}
        switched = time.monotonic()
        self.switched_db = float(self.sql("SELECT extract(epoch FROM clock_timestamp())"))
        self.right_worker = self.start_worker()
        self.trace = []  # (seconds since the switch, job) each second until done

        def done():
            self.trace.append((time.monotonic() - switched, self.delete_job()))
            return self.request_state() == "done"

        self.wait_until("the erasure request done", done, poll=1.0)
        self.to_done = time.monotonic() - switched
        self.done_reached = True  # wait_until raised otherwise
        self.seconds["key right: until the request is done"] = self.to_done
        self.done_db = self.sql("""SELECT extract(epoch FROM r.finished_at), extract(epoch FROM s.done_at)
                                   FROM discern.erasure_requests r JOIN discern.erasure_steps s ON s.request_id = r.id LIMIT 1""").split("|")
        self.delete_calls_after = self.delete_calls()

    def checks(self):
        started = time.monotonic()
        f = {}
        squeezed = "".join(ch for ch in self.subject if ch.isalnum())
        tables = self.sql("SELECT table_name FROM information_schema.tables WHERE table_schema = 'discern' "
                          "AND table_type = 'BASE TABLE' ORDER BY 1").splitlines()
        f["tables"] = len(tables)

        def scan(value):
            found = {}
            for table in tables:
                n = self.number(f"SELECT count(*) FROM discern.{table} x WHERE x::text ILIKE {literal('%' + value + '%')}")
                if n:
                    found[table] = n
            return found
        f["scan"] = scan(self.subject)
        f["scan_squeezed"] = scan(squeezed)
        f["rows_scanned"] = self.number("SELECT " + " + ".join(f"(SELECT count(*) FROM discern.{t})" for t in tables) if tables else "SELECT 0")
        after = self.per_subject()
        others_before = {k: v for k, v in self.before.items() if k != self.subject}
        f["after"] = after
        f["others_same"] = after == others_before
        f["others"] = (len(others_before), sum(others_before.values()), len(after), sum(after.values()))
        f["changed"] = sorted(set(others_before.items()) ^ set(after.items()))
        f["record"] = self.number(f"""SELECT (SELECT count(*) FROM discern.erasure_requests x WHERE x::text ILIKE {literal('%' + self.subject + '%')})
                                           + (SELECT count(*) FROM discern.erasure_steps x WHERE x::text ILIKE {literal('%' + self.subject + '%')})""")
        status_text = self.discern_run("erase", "--status", "--format", "json")
        f["status_mentions"] = self.subject in status_text or squeezed in status_text
        document = json.loads(status_text)
        f["request"] = document["requests"][0]
        f["request_row"] = self.sql("SELECT key_kind, left(key_digest, 12), requested_by, removed::text, state, "
                                    "round(extract(epoch FROM finished_at - requested_at)::numeric, 1) FROM discern.erasure_requests").split("|")
        f["step_row"] = self.sql("SELECT step, backend, action, state, coalesce(outcome, ''), rounds, coalesce(last_error_kind, ''), "
                                 "params IS NULL, job_id IS NULL FROM discern.erasure_steps").split("|")
        f["operator_log"] = self.sql("SELECT coalesce(string_agg(scope, '; '), '') FROM discern.operator_actions WHERE action = 'erase'")
        f["delete_jobs_left"] = self.number("SELECT count(*) FROM discern.jobs WHERE action = 'delete'")
        f["delete_results_left"] = self.number("SELECT count(*) FROM discern.results WHERE action = 'delete'")
        # OOTO itself: the erased face again (no match expected), and another's (its subject expected).
        erased_photo, control_photo = self.faces[self.options.erase], self.faces[(self.options.erase + 1) % self.options.subjects]
        control_subject = f"person-{(self.options.erase + 1) % self.options.subjects}"
        self.sql(f"SELECT discern.enqueue({literal(erased_photo)}, 'ooto', 'identify', '{{}}'::jsonb, 0::smallint, now(), 5, 'after')")
        self.sql(f"SELECT discern.enqueue({literal(control_photo)}, 'ooto', 'identify', '{{}}'::jsonb, 0::smallint, now(), 5, 'control')")
        batch = "(SELECT id FROM discern.batches WHERE name = {})"
        self.wait_until("the identifies after the erasure", lambda: self.number(
            f"SELECT count(*) FROM discern.results WHERE batch_id IN ({batch.format(literal('after'))}, {batch.format(literal('control'))})") == 2)
        f["after_match"] = self.sql(f"SELECT coalesce(subject_id, 'NULL') FROM discern.results WHERE batch_id = {batch.format(literal('after'))}")
        f["control_match"] = self.sql(f"SELECT coalesce(subject_id, 'NULL') FROM discern.results WHERE batch_id = {batch.format(literal('control'))}")
        f["control_subject"] = control_subject
        f["scan_after_identify"] = scan(self.subject)
        self.seconds["checks: scan, counts, record, identify"] = time.monotonic() - started
        self.right_code = self.stop_worker(self.right_worker)
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
        self.workers = []
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


def job_text(job):
    if job is None:
        return "no job"
    return (f"{job['state']}, attempts {job['attempts']}/{job['max_attempts']}, given back {job['given_back']}, "
            f"{job['error_kind'] or 'no error'}, run_at {job['run_in']:+.0f} s")


def section(bench, f, checks, ran_at, total):
    opts = bench.options
    yes = lambda ok: "yes" if ok else "**no**"  # noqa: E731
    samples = bench.samples
    in_progress = sum(1 for s in samples if s["state"] == "in_progress")
    done_early = sum(1 for s in samples if s["state"] == "done" or s["step"] == "done")
    auth = sum(1 for s in samples if s["job"] and s["job"]["error_kind"] == "auth_failed")
    calls_in_window = samples[-1]["calls"] - bench.delete_calls_before if samples else 0
    jobs = bench.night_jobs
    succeeded = jobs.get("enroll:succeeded", 0) + jobs.get("identify:succeeded", 0)
    not_succeeded = sum(v for k, v in jobs.items() if not k.endswith(":succeeded"))
    n_jobs = opts.subjects + opts.identifies
    per = bench.before.get(bench.subject, 0)
    expected_per = 1 + opts.identifies // opts.subjects + (1 if opts.erase < opts.identifies % opts.subjects else 0)
    request, step_row = f["request"], f["step_row"]
    removed = {k: v for k, v in (json.loads(f["request_row"][3]) if f["request_row"][3] else {}).items() if v}
    switch_job = bench.at_switch["job"]
    rows = [
        ("night: jobs succeeded / not succeeded; results", f"{succeeded:,} / {not_succeeded}; {bench.night_results:,}",
         f"{n_jobs:,} / 0; {n_jobs:,}", checks["night"]),
        (f"night: subjects with results; {bench.subject}'s results (enrol + identifies)", f"{len(bench.before)}; {per}",
         f"{opts.subjects}; {expected_per}", checks["subjects"]),
        ("`discern erase` says: results removed, OOTO asked, in progress",
         f"{'yes' if f'{per} results' in bench.erase_output else 'no'}, {'yes' if 'asked: ooto delete' in bench.erase_output else 'no'}, "
         f"{'yes' if 'in progress' in bench.erase_output else 'no'}", "yes, yes, yes", checks["erase_output"]),
        (f"refusal ({opts.refuse_seconds:.0f} s): samples in progress / done (request or step)",
         f"{in_progress} of {len(samples)} / {done_early}", f"{len(samples)} of {len(samples)} / 0", checks["never_early"]),
        ("refusal: samples whose delete job carries auth_failed; OOTO delete calls refused meanwhile",
         f"{auth} of {len(samples)}; {calls_in_window}", "at least one; at least one", checks["refused"]),
        ("wrong-key worker alive through the window; exit on SIGTERM", f"yes; {bench.refused_code}", "yes; 0", checks["refused_worker"]),
        ("key right: request done by itself, seconds from the right-key worker's start",
         f"{bench.to_done:.1f} s (delete job's run_at was {switch_job['run_in']:+.0f} s away)" if switch_job else f"{bench.to_done:.1f} s",
         "done, no operator action", checks["done"]),
        ("step: state / outcome / rounds / its job and result left",
         f"{step_row[3]} / {step_row[4] or '-'} / {step_row[5]} / {f['delete_jobs_left']} and {f['delete_results_left']}",
         "done / deleted / - / 0 and 0", checks["step"]),
        (f"full scan: rows of {f['tables']} discern tables holding '{bench.subject}' (or '{bench.subject.replace('-', '')}')",
         f"{sum(f['scan'].values()) + sum(f['scan_squeezed'].values())} in {f['rows_scanned']:,} rows"
         + (f" ({', '.join(f'{t}: {n}' for t, n in {**f['scan'], **f['scan_squeezed']}.items())})" if f["scan"] or f["scan_squeezed"] else ""),
         "0", checks["scan"]),
        ("the other subjects: count / results, night against after",
         "{} / {:,} against {} / {:,}".format(*f["others"]) + (f" (changed: {f['changed']})" if f["changed"] else ""),
         "the same", checks["others"]),
        (f"erasure record (request and steps rows, `erase --status --format json`) mentioning '{bench.subject}'",
         f"{f['record']} rows; status {'mentions it' if f['status_mentions'] else 'does not'}", "0; does not", checks["record"]),
        ("erasure record: rows removed per table", ", ".join(f"{k} {v}" for k, v in removed.items()) or "-",
         f"results {per}, jobs {per}", checks["removed"]),
        (f"OOTO identify of {bench.subject}'s photo after the erasure: subject_id", f["after_match"], "NULL", checks["ooto_forgot"]),
        (f"control: OOTO identify of {f['control_subject']}'s photo", f["control_match"], f["control_subject"], checks["control"]),
        (f"scan again after those identifies", f"{sum(f['scan_after_identify'].values())}", "0", checks["scan_after"]),
    ]
    first, last = samples[0], samples[-1]
    lines = [
        HEADING,
        "",
        f"Machine: {machine()}. Run: {ran_at}, `python3 bench/erasure/run.py {' '.join(sys.argv[1:])}`, "
        f"{build_of(bench.discern, opts.build)}. One run, {total:.0f} s in all.",
        f"{opts.subjects} distinct 240x240 photos (`discern samples --prefix face`), one OOTO enroll each (templateId person-N), "
        f"then {opts.identifies:,} identifies (each photo in turn), drained by `discern work --drain --service ooto --concurrency 16`. "
        f"Then a `discern work --service ooto` with a wrong OOTO key (the simulator answers 401), `discern erase --subject {bench.subject}`, "
        f"{len(samples)} samples {opts.sample_seconds:.0f} s apart over {opts.refuse_seconds:.0f} s; that worker stopped, one with the "
        "right key started, the request polled every second until done; then the checks. Simulator without throughput limits; rate "
        "limits at 1,000,000 a minute; PostgreSQL and everything else on the same 2 cores.",
        "",
        "| what | measured | expected | holds |",
        "|---|---|---|---|",
    ]
    lines += [f"| {what} | {measured} | {expected} | {'-' if ok is None else yes(ok)} |" for what, measured, expected, ok in rows]
    lines += ["", "The refusal, sampled (`discern erase --status --format json` and the delete job's row):", "",
              "| sample | s after the request | request | step | step rounds | delete job | OOTO breaker |", "|---|---:|---|---|---:|---|---|"]
    shown = [("first", first)] + ([("last", last)] if len(samples) > 1 else [])
    for name, s in shown:
        lines.append(f"| {name} | {s['t']:.0f} | {s['state']} | {s['step']} | {s['rounds']} | {job_text(s['job'])} | {s['breaker']} |")
    attempts = [s["job"]["attempts"] for s in samples if s["job"]]
    given = [s["job"]["given_back"] for s in samples if s["job"]]
    kinds = sorted({s["job"]["error_kind"] or "none" for s in samples if s["job"]})
    rounds = [s["rounds"] for s in samples if s["rounds"] is not None]
    run_ins = [s["job"]["run_in"] for s in samples if s["job"]]
    lines += [
        f"| all {len(samples)} | 0-{last['t']:.0f} | in_progress {in_progress}, done {sum(1 for s in samples if s['state'] == 'done')} | "
        f"waiting {sum(1 for s in samples if s['step'] == 'waiting')}, done {sum(1 for s in samples if s['step'] == 'done')} | "
        f"{min(rounds) if rounds else '-'}-{max(rounds) if rounds else '-'} | attempts {min(attempts) if attempts else '-'}-"
        f"{max(attempts) if attempts else '-'}, given back {min(given) if given else '-'}-{max(given) if given else '-'}, "
        f"kinds {', '.join(kinds) or '-'}, run_at {min(run_ins) if run_ins else 0:+.0f} to {max(run_ins) if run_ins else 0:+.0f} s | "
        f"open in {sum(1 for s in samples if s['breaker'] != 'none')} |",
        "",
        "Each sample as seconds after the request: delete job attempts / given back / run_at from the sample (s): "
        + ", ".join(f"{s['t']:.0f}: " + (f"{s['job']['attempts']}/{s['job']['given_back']}/{s['job']['run_in']:+.0f}" if s["job"] else "no job")
                    for s in samples) + ".",
    ]
    lines += ["", "| phase | wall s |", "|---|---:|"]
    lines += [f"| {name} | {seconds:.1f} |" for name, seconds in bench.seconds.items()]
    trace_changes = []
    previous = None
    for at, job in bench.trace:
        key = None if job is None else (job["state"], job["attempts"], job["given_back"], job["error_kind"])
        if key != previous:
            trace_changes.append(f"{at:.0f} s: {job_text(job)}")
            previous = key
    lines += [
        "",
        "`discern erase --subject " + bench.subject + "` printed:",
        "",
        "```text",
        *bench.erase_output.splitlines(),
        "```",
        "",
        f"- At the switch ({bench.at_switch['state']}): delete job {job_text(switch_job)}; step "
        + (lambda st: f"{st['state']}, round {st['rounds']}, last error kind {st['last_error_kind'] or '-'}" if st else "none")(bench.at_switch["step"])
        + f"; open breakers: {bench.at_switch['breaker']}.",
        f"- After the switch, the delete job each time it changed (polled every second): {'; '.join(trace_changes) or '-'}. "
        f"OOTO's answer (the step's done_at, which the request's finished_at copies) came {float(bench.done_db[1]) - bench.switched_db:.1f} s "
        f"after the switch; the request read 'done' at {bench.to_done:.1f} s: the worker's roll-up round (every heartbeat, 10 s) "
        "finds the succeeded job and closes the step and the request.",
        f"- OOTO delete calls the simulator received: {bench.delete_calls_after - bench.delete_calls_before} in all, "
        f"{calls_in_window} of them while the key was wrong.",
        f"- The request: kind {f['request_row'][0]}, digest {f['request_row'][1]}…, asked by {f['request_row'][2]}, "
        f"{f['request_row'][5]} s from request to finish. Operator log: {f['operator_log'] or '-'}.",
        f"- Workers exited {bench.refused_code} (wrong key) and {bench.right_code} (right key) on SIGTERM.",
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
        bench.night()
        bench.refusal()
        bench.key_right()
        f = bench.checks()
        failed = False
    finally:
        bench.cleanup(failed)
    total = time.monotonic() - began
    n_jobs = options.subjects + options.identifies
    per = bench.before.get(bench.subject, 0)
    expected_per = 1 + options.identifies // options.subjects + (1 if options.erase < options.identifies % options.subjects else 0)
    samples = bench.samples
    removed = json.loads(f["request_row"][3]) if f["request_row"][3] else {}
    step_row = f["step_row"]
    checks = {
        "night": bench.night_jobs.get("enroll:succeeded", 0) + bench.night_jobs.get("identify:succeeded", 0) == n_jobs
                 and bench.night_results == n_jobs,
        "subjects": len(bench.before) == options.subjects and per == expected_per,
        "erase_output": f"{per} results" in bench.erase_output and "asked: ooto delete" in bench.erase_output
                        and "in progress" in bench.erase_output,
        "never_early": all(s["state"] == "in_progress" and s["step"] != "done" for s in samples),
        "refused": any(s["job"] and s["job"]["error_kind"] == "auth_failed" for s in samples)
                   and samples[-1]["calls"] - bench.delete_calls_before > 0,
        "refused_worker": bench.refused_code == 0,
        "done": bench.done_reached,
        "step": step_row[3] == "done" and step_row[4] == "deleted" and f["delete_jobs_left"] == 0 and f["delete_results_left"] == 0,
        "scan": not f["scan"] and not f["scan_squeezed"],
        "others": f["others_same"] and f["others"][0] == options.subjects - 1,
        "record": f["record"] == 0 and not f["status_mentions"],
        "removed": removed.get("results") == per and removed.get("jobs") == per,
        "ooto_forgot": f["after_match"] == "NULL",
        "control": f["control_match"] == f["control_subject"],
        "scan_after": not f["scan_after_identify"],
    }
    text = section(bench, f, checks, ran_at, total)
    print(text)
    if not options.no_write:
        write_section(text, HEADING, options.results)
    failing = [name for name, ok in checks.items() if not ok]
    if failing:
        print("did not hold: " + ", ".join(failing), file=sys.stderr)
    sys.exit(1 if failing else 0)


if __name__ == "__main__":
    main()
