#!/usr/bin/env python3
"""discern's adapter for the field's public job-queue harness
(hardbyte/postgresql-job-queue-benchmarking, its CONTRIBUTING_ADAPTERS.md).

One replica = this process + one discern worker (bench/scale's `ScaleBench serve`: the real
runtime with producer, executor, completer, heartbeat, rescuer and LISTEN, and a no-op backend
that sleeps JOB_WORK_MS). The adapter speaks the harness's protocol:

- stdout is telemetry: a descriptor line at start, then every SAMPLE_EVERY_S (aligned to the
  wall clock) one JSON line per metric; stderr is logs (the worker's output goes there too).
- stdin carries `ENQUEUE <n>` tokens (PRODUCER_PACING=harness, fixed mode); each is one call
  of discern's public bulk enqueue, `discern.enqueue_many`. In the high-load phase the harness
  raises the rate only in PRODUCER_RATE_CONTROL_FILE, so tokens are scaled by that file's rate
  over the base rate: discern takes the offered 1.5x that self-pacing peers see. Without harness
  pacing, or in depth-target mode, the adapter paces itself, credited on wall-clock time.
- Jobs go in and results come out through discern's public surface: the SQL enqueue function,
  `discern migrate`, and the result rows (pickup = the backend's start, recorded in the raw
  response, minus the job's created_at; end to end = the result row's created_at minus it).
  Each replica counts only the results its own worker wrote (`instance` in the raw response).
- The database going away (postgres-restart, backend kills, pool exhaustion) never ends the
  process: the producer owes what it could not insert and inserts it when the database is back;
  the worker reconnects on its own, and is started again, as the shipped systemd unit does
  (Restart=on-failure), if it ever exits. Killing this process kills its worker
  (PR_SET_PDEATHSIG), as the harness's kill-worker phase means.
- SIGTERM: stop producing, stop the worker (SIGTERM, its graceful shutdown), exit 0 within 5 s.

Environment: the harness's (DATABASE_URL, WORKER_COUNT, JOB_WORK_MS, JOB_PAYLOAD_BYTES,
SAMPLE_EVERY_S, BENCH_INSTANCE_ID, PRODUCER_*), plus DISCERN_BIN and SCALEBENCH_BIN, the two
release binaries (bench/field-harness/run.sh builds them).
"""
import collections
import datetime
import json
import os
import signal
import subprocess
import sys
import threading
import time
from urllib.parse import urlparse

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "harness"))
import harness  # noqa: E402  (bench/harness: its reconnecting connection)

SYSTEM = "discern"
EVENT_TABLES = ["discern.jobs", "discern.results"]
EVENT_INDEXES = ["discern.jobs_pkey", "discern.jobs_claimable", "discern.results_pkey"]
OBSERVER_METRICS = {"queue_depth", "running_depth", "retryable_depth", "total_backlog", "producer_target_rate"}
LATENCY_WINDOW_S = 30.0


def env_int(name, default):
    value = os.environ.get(name)
    return int(float(value)) if value not in (None, "") else default


DATABASE_URL = os.environ["DATABASE_URL"]
INSTANCE = env_int("BENCH_INSTANCE_ID", 0)
SAMPLE_EVERY_S = env_int("SAMPLE_EVERY_S", 5)
WORKER_COUNT = env_int("WORKER_COUNT", 32)
PAYLOAD_BYTES = env_int("JOB_PAYLOAD_BYTES", 256)
PRODUCER_RATE = env_int("PRODUCER_RATE", 800)
PRODUCER_MODE = os.environ.get("PRODUCER_MODE", "fixed")
PRODUCER_PACING = os.environ.get("PRODUCER_PACING", "harness")
TARGET_DEPTH = env_int("TARGET_DEPTH", 1000)
BATCH_MAX = max(1, env_int("PRODUCER_BATCH_MAX", 128))  # jobs per enqueue call, as the peers' bulk paths
BATCH_MS = max(1, env_int("PRODUCER_BATCH_MS", 25))
CONTROL_FILE = os.environ.get("PRODUCER_RATE_CONTROL_FILE")
# The harness writes tokens only in fixed mode with harness pacing (pacer.py); otherwise we pace.
TOKENS = PRODUCER_PACING == "harness" and PRODUCER_MODE == "fixed" and PRODUCER_RATE > 0
WORKER_RESTART_S = float(os.environ.get("DISCERN_WORKER_RESTART_S", "5"))

printing = threading.Lock()
stopping = threading.Event()


def log(message):
    print(f"[discern-adapter {INSTANCE}] {message}", file=sys.stderr, flush=True)


def now_iso():
    return datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def emit(record):
    record.setdefault("instance_id", INSTANCE)
    with printing:
        print(json.dumps(record), flush=True)


class Reconnecting(harness.Reconnecting):
    """bench/harness's connection that is opened again after any failure (`run` returns None
    when the statement could not run this time), named for this replica."""

    def __init__(self, name):
        super().__init__(DATABASE_URL, f"adapter-{INSTANCE}-{name}")


def install_schema():
    """`discern migrate` (idempotent, safe from several replicas at once) and the no-op
    backend's rate limit (high enough never to bind: the gate still takes its slots, as a
    deployed worker's does). Retried while the database is away: a replica can be started again
    in the middle of a chaos phase."""
    deadline = time.monotonic() + 50
    while True:
        migrate = subprocess.run([os.environ["DISCERN_BIN"], "migrate", "--database-url", DATABASE_URL],
                                 stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        limit = None
        if migrate.returncode == 0:
            limit = Reconnecting("install").run("""
                INSERT INTO discern.rate_limits (key, per_minute, burst) VALUES ('scale:noop', 60000000, 1)
                ON CONFLICT (key) DO NOTHING""", fetch=False)
        if limit is not None:
            return
        if time.monotonic() > deadline:
            raise SystemExit(f"discern migrate failed: {migrate.stdout.strip()}")
        log(f"schema not installed yet ({migrate.stdout.strip()[:200]}); trying again")
        time.sleep(1)


def schema_version():
    rows = Reconnecting("version").run("SELECT coalesce(max(version), 0) FROM discern.schema_migrations")
    return str(rows[0][0]) if rows else "unknown"


def discern_version():
    answer = subprocess.run([os.environ["DISCERN_BIN"], "--version"], capture_output=True, text=True)
    return answer.stdout.strip() or "unknown"


def offered_rate():
    """The rate the harness offers now: the control file's (the high-load phase writes 1.5x
    there), else the base rate."""
    if CONTROL_FILE:
        try:
            with open(CONTROL_FILE) as handle:
                return float(handle.read().strip())
        except (OSError, ValueError):
            pass
    return float(PRODUCER_RATE)


class Producer(threading.Thread):
    """Inserts what is owed, through `discern.enqueue_many`. A call that fails (the database
    away, the connection killed) is dropped, not owed: the peers' adapters drop theirs
    (procrastinate-bench), and the harness's loss estimate compares what went in with what came
    out, so a burst of debt in the recovery phase would read as loss. A dropped call is logged."""

    def __init__(self, depth):
        super().__init__(daemon=True, name="producer")
        self.database = Reconnecting("producer")
        self.depth = depth
        self.owed, self.inserted, self.sequence, self.dropped = 0.0, 0, 0, 0
        self.lock = threading.Condition()
        self.target_rate = float(PRODUCER_RATE)
        self.call_ms = collections.deque(maxlen=65536)
        self.params = json.dumps({"pad": "x" * max(0, PAYLOAD_BYTES - 10)})

    def owe(self, count):
        with self.lock:
            self.owed += count
            self.lock.notify()

    def run(self):
        threading.Thread(target=self.read_stdin, daemon=True, name="stdin").start()
        if PRODUCER_MODE == "depth-target":
            threading.Thread(target=self.keep_depth, daemon=True, name="depth-target").start()
        elif not TOKENS:
            threading.Thread(target=self.pace, daemon=True, name="pacer").start()
        while not stopping.is_set():
            with self.lock:
                while self.owed < 1 and not stopping.is_set():
                    self.lock.wait(0.25)
                count = min(int(self.owed), BATCH_MAX)
            if count < 1:
                continue
            inserted = self.insert(count)
            with self.lock:
                if inserted:
                    self.owed -= count
                else:
                    self.dropped += int(self.owed)
                    self.owed -= int(self.owed)
            if not inserted:
                stopping.wait(0.2)

    def insert(self, count):
        started = time.monotonic()
        prefix = f"/noop/harness/{INSTANCE}-{os.getpid()}-"
        done = self.database.run(
            "SELECT discern.enqueue_many(ARRAY(SELECT %s::text || g FROM generate_series(%s::bigint, %s::bigint) g), params => %s::jsonb)",
            (prefix, self.sequence + 1, self.sequence + count, self.params))
        if done is None:
            return False
        self.call_ms.append((time.monotonic(), (time.monotonic() - started) * 1000.0))
        self.sequence += count
        self.inserted += count
        return True

    def read_stdin(self):
        """`ENQUEUE <n>` per line, scaled by the control file's rate over the base rate. Read in
        every mode, so that the harness's writes never block; its end is the end of the run (the
        harness closes stdin as it stops a replica, and so does a harness that was killed)."""
        for line in sys.stdin:
            parts = line.split()
            if TOKENS and len(parts) == 2 and parts[0] == "ENQUEUE" and parts[1].isdigit():
                self.target_rate = offered_rate()
                self.owe(int(parts[1]) * self.target_rate / PRODUCER_RATE)
        log("stdin closed: stopping")
        stopping.set()

    def pace(self):
        last = time.monotonic()
        while not stopping.wait(BATCH_MS / 1000.0):
            now = time.monotonic()
            self.target_rate = offered_rate()
            self.owe(self.target_rate * (now - last))
            last = now

    def keep_depth(self):
        """Tops the queue up to TARGET_DEPTH: what is waiting, what is owed and what went in
        while the depth was being counted all count."""
        self.target_rate = 0.0
        while not stopping.wait(0.05):
            before = self.inserted
            self.depth.read()
            with self.lock:
                wanted = TARGET_DEPTH - self.depth.available - self.owed - (self.inserted - before)
            if wanted >= 1:
                self.owe(wanted)


class Depth:
    """The queue's depths, each counted through its partial index (as the `discern.queue_depth`
    view does): read at each sample by instance 0 (the harness's observer), and every 50 ms by a
    depth-target producer."""

    def __init__(self):
        self.database = Reconnecting("depth")
        self.lock = threading.Lock()
        self.available = self.running = self.retryable = 0

    def read(self):
        with self.lock:
            self.read_once()

    def read_once(self):
        rows = self.database.run("""
            SELECT (SELECT count(*) FROM discern.jobs WHERE state = 'available'),
                   (SELECT count(*) FROM discern.jobs WHERE state = 'running'),
                   (SELECT count(*) FROM discern.jobs WHERE state = 'available' AND error_kind IS NOT NULL)""")
        if rows:
            self.available, self.running, self.retryable = rows[0]


class Results(threading.Thread):
    """Reads the results this replica's worker wrote: completions, pickup and end-to-end
    latencies (kept for the 30-second window the percentiles cover).

    Each read takes the rows above the highest id seen, and the ids below it that were not
    there yet: a result's id is taken when a completer's transaction starts and shows when it
    commits, so a smaller id can appear after a larger one. An id missing for a minute is
    given up (a rolled-back write, or ids a crashed server never handed out)."""

    GIVE_UP_S = 60.0

    def __init__(self):
        super().__init__(daemon=True, name="results")
        self.database = Reconnecting("results")
        self.highest = 0
        self.missing = {}  # id -> monotonic time it was first missed
        self.completed = 0
        self.latencies = collections.deque(maxlen=262144)  # (monotonic, pickup ms, end-to-end ms)
        self.lock = threading.Lock()
        self.reading = threading.Lock()  # the sampler reads too, just before it reports

    def start(self):
        """From the results there now: a replica started again must not count what it wrote
        before it was killed."""
        while not stopping.is_set():
            rows = self.database.run("SELECT coalesce(max(id), 0) FROM discern.results")
            if rows is not None:
                self.highest = rows[0][0]
                break
            stopping.wait(1.0)
        super().start()

    def run(self):
        while not stopping.wait(1.0):
            self.read()

    def read(self):
        with self.reading:
            self.read_once()

    def read_once(self):
        with self.lock:
            highest, missing = self.highest, list(self.missing)
        rows = self.database.run("""
            SELECT r.id, r.raw_response->>'instance' = %s,
                   1000 * ((r.raw_response->>'started')::float8 - extract(epoch FROM j.created_at)),
                   1000 * extract(epoch FROM r.created_at - j.created_at)
            FROM discern.results r JOIN discern.jobs j ON j.id = r.job_id
            WHERE r.id > %s OR r.id = ANY(%s)""", (str(INSTANCE), highest, missing))
        if rows is None:
            return
        now = time.monotonic()
        with self.lock:
            for result_id, mine, pickup, end_to_end in rows:
                self.missing.pop(result_id, None)
                if mine:
                    self.completed += 1
                    self.latencies.append((now, pickup, end_to_end))
            fresh = sorted(result_id for result_id, *_ in rows if result_id > highest)
            if fresh:
                present = set(fresh)
                for result_id in range(highest + 1, fresh[-1]):
                    if result_id not in present:
                        self.missing[result_id] = now
                self.highest = fresh[-1]
            for result_id, since in list(self.missing.items()):
                if now - since > self.GIVE_UP_S:
                    del self.missing[result_id]

    def percentiles(self):
        with self.lock:
            cutoff = time.monotonic() - LATENCY_WINDOW_S
            recent = [(pickup, end_to_end) for at, pickup, end_to_end in self.latencies if at >= cutoff]
        return quantiles([pickup for pickup, _ in recent]), quantiles([end_to_end for _, end_to_end in recent])


def quantiles(values, points=(0.50, 0.95, 0.99)):
    if not values:
        return [0.0 for _ in points]
    values.sort()
    return [values[min(len(values) - 1, max(0, round(point * (len(values) - 1))))] for point in points]


def until_next_tick():
    """Seconds to the next wall-clock multiple of SAMPLE_EVERY_S, at least half a period away
    (a wait that woke just before a boundary must not make a sample of a few milliseconds)."""
    left = SAMPLE_EVERY_S - time.time() % SAMPLE_EVERY_S
    return left + SAMPLE_EVERY_S if left < SAMPLE_EVERY_S / 2 else left


def sample_forever(producer, results, depth):
    time.sleep(SAMPLE_EVERY_S - time.time() % SAMPLE_EVERY_S)
    last, enqueued, completed = time.monotonic(), producer.inserted, results.completed
    while not stopping.wait(until_next_tick()):
        results.read()
        if INSTANCE == 0:
            depth.read()
        now = time.monotonic()
        span = max(0.001, now - last)
        (claim50, claim95, claim99), (e2e50, e2e95, e2e99) = results.percentiles()
        cutoff = now - LATENCY_WINDOW_S
        call50, call95, call99 = quantiles([ms for at, ms in list(producer.call_ms) if at >= cutoff])
        metrics = [
            ("claim_p50_ms", claim50, 30.0), ("claim_p95_ms", claim95, 30.0), ("claim_p99_ms", claim99, 30.0),
            ("end_to_end_p50_ms", e2e50, 30.0), ("end_to_end_p95_ms", e2e95, 30.0), ("end_to_end_p99_ms", e2e99, 30.0),
            ("producer_call_p50_ms", call50, 30.0), ("producer_call_p95_ms", call95, 30.0), ("producer_call_p99_ms", call99, 30.0),
            ("enqueue_rate", (producer.inserted - enqueued) / span, float(SAMPLE_EVERY_S)),
            ("completion_rate", (results.completed - completed) / span, float(SAMPLE_EVERY_S)),
            ("queue_depth", float(depth.available), 0.0), ("running_depth", float(depth.running), 0.0),
            ("retryable_depth", float(depth.retryable), 0.0), ("total_backlog", float(depth.available + depth.running), 0.0),
            ("producer_target_rate", float(producer.target_rate), 0.0),
        ]
        last, enqueued, completed = now, producer.inserted, results.completed
        stamp = now_iso()
        for metric, value, window in metrics:
            if metric in OBSERVER_METRICS and INSTANCE != 0:
                continue
            emit({"t": stamp, "system": SYSTEM, "kind": "adapter", "subject_kind": "adapter", "subject": "",
                  "metric": metric, "value": float(value), "window_s": window})


def start_worker():
    """The worker dies with this process: the harness's kill-worker phase SIGKILLs only us.
    setpriv sets PR_SET_PDEATHSIG before it execs the worker (no Python runs in the child of a
    process with threads)."""
    return subprocess.Popen(["setpriv", "--pdeathsig", "KILL", "--",
                             os.environ["SCALEBENCH_BIN"], "serve", DATABASE_URL, str(WORKER_COUNT)],
                            stdout=sys.stderr, stderr=sys.stderr, stdin=subprocess.DEVNULL)


def main():
    signal.signal(signal.SIGTERM, lambda *_: stopping.set())
    signal.signal(signal.SIGINT, lambda *_: stopping.set())
    install_schema()
    emit({"kind": "descriptor", "system": SYSTEM, "event_tables": EVENT_TABLES, "event_indexes": EVENT_INDEXES,
          "extensions": [], "version": discern_version(), "schema_version": schema_version(),
          "db_name": urlparse(DATABASE_URL).path.lstrip("/"), "started_at": now_iso()})
    # Started from the main thread: PR_SET_PDEATHSIG fires when the thread that forked exits.
    worker = start_worker()
    depth, results = Depth(), Results()
    producer = Producer(depth)
    for part in (results, producer):
        part.start()
    threading.Thread(target=sample_forever, args=(producer, results, depth), daemon=True, name="sampler").start()
    restarts = 0
    while not stopping.wait(0.5):
        if worker.poll() is not None:
            restarts += 1
            log(f"the worker exited ({worker.returncode}); starting it again in {WORKER_RESTART_S:g} s (restart {restarts})")
            if stopping.wait(WORKER_RESTART_S):
                break
            worker = start_worker()
    if worker.poll() is None:
        worker.send_signal(signal.SIGTERM)
        try:
            worker.wait(4)
        except subprocess.TimeoutExpired:
            log("the worker did not stop within 4 s; killing it")
            worker.kill()
            worker.wait()
    log(f"stopped: {producer.inserted} enqueued, {producer.dropped} not (the database refused the call), "
        f"{results.completed} completed here, {restarts} worker restart(s)")
    sys.exit(0)


if __name__ == "__main__":
    main()
