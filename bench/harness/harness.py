"""The moving parts of bench/harness: a producer at a fixed offered rate, a sampler, the worker
replicas, and the stresses a phase applies. run.py composes them into scenarios.

Every part that talks to PostgreSQL reconnects on its own: the stresses include restarting the
server and terminating backends, and the harness must outlive what it does to the queue.
"""
import os
import signal
import subprocess
import threading
import time

import psycopg

# The harness's own connections are named so the backend-kill stress can spare them.
HARNESS_APP = "discern-harness"
SUT_BACKENDS = "application_name LIKE 'discern-%%' AND application_name NOT LIKE 'discern-harness%%'"


def connect(url, name, autocommit=True):
    return psycopg.connect(url, application_name=f"{HARNESS_APP}-{name}", autocommit=autocommit, connect_timeout=5)


class Reconnecting:
    """One connection that is opened again after any failure; `run` returns None when the
    statement could not run this time."""

    def __init__(self, url, name):
        self.url, self.name, self.connection = url, name, None

    def run(self, sql, params=None, fetch=True):
        try:
            if self.connection is None or self.connection.closed:
                self.connection = connect(self.url, self.name)
            with self.connection.cursor() as cursor:
                cursor.execute(sql, params)
                return cursor.fetchall() if fetch else True
        except psycopg.Error:
            try:
                if self.connection is not None:
                    self.connection.close()
            except psycopg.Error:
                pass
            self.connection = None
            return None

    def close(self):
        if self.connection is not None:
            self.connection.close()


class Producer(threading.Thread):
    """Inserts jobs at `rate` per second, credited on wall-clock time: what could not be
    inserted while the database was away is owed, and inserted as soon as it is back.
    `low_priority_share` of the jobs get priority 1 (the rest 0; lower runs first)."""

    TICK = 0.05
    MOST_PER_STATEMENT = 5000

    def __init__(self, url, rate):
        super().__init__(daemon=True)
        self.database = Reconnecting(url, "producer")
        self.rate, self.low_priority_share = rate, 0.0
        self.inserted, self.owed, self.failures = 0, 0.0, 0
        self.stopping = threading.Event()

    def run(self):
        last = time.monotonic()
        while not self.stopping.is_set():
            now = time.monotonic()
            self.owed += self.rate * (now - last)
            last = now
            while self.owed >= 1 and not self.stopping.is_set():
                count = min(int(self.owed), self.MOST_PER_STATEMENT)
                low = round(count * self.low_priority_share)
                # Every tenth (say) row low priority, spread through the statement, not bunched.
                done = self.database.run("""
                    INSERT INTO discern.jobs (backend, action, image_path, priority)
                    SELECT 'discerner', 'analyze', '/noop/harness/' || g,
                           CASE WHEN %s > 0 AND g %% %s = 0 THEN 1 ELSE 0 END
                    FROM generate_series(%s::bigint + 1, %s::bigint + %s) AS g""",
                                         (low, max(1, count // max(low, 1)), self.inserted, self.inserted, count), fetch=False)
                if not done:
                    self.failures += 1
                    break
                self.inserted += count
                self.owed -= count
            time.sleep(self.TICK)
        self.database.close()


class Sampler(threading.Thread):
    """Every `every` seconds: completions (exact, from the count of results), enqueues, queue
    depth, running, dead, pickup latency p50/p95/p99 of the jobs completed since the last
    sample (insert to the moment the backend started on it), the completions by priority, and
    the dead tuples and size of the queue's tables."""

    def __init__(self, url, producer, every=5.0):
        super().__init__(daemon=True)
        self.database = Reconnecting(url, "sampler")
        self.producer, self.every = producer, every
        self.samples = []
        self.stopping = threading.Event()

    def take(self, last_result):
        rows = self.database.run("""
            WITH fresh AS (
                SELECT (r.raw_response->>'started')::float8 - extract(epoch FROM j.created_at) AS pickup, j.priority
                FROM discern.results r JOIN discern.jobs j ON j.id = r.job_id
                WHERE r.id > %s
            )
            SELECT extract(epoch FROM clock_timestamp())::float8,
                   (SELECT count(*) FROM discern.results),
                   (SELECT coalesce(max(id), 0) FROM discern.results),
                   (SELECT count(*) FROM discern.jobs WHERE state = 'available'),
                   (SELECT count(*) FROM discern.jobs WHERE state = 'running'),
                   (SELECT count(*) FROM discern.jobs WHERE state = 'dead'),
                   (SELECT percentile_cont(ARRAY[0.5, 0.95, 0.99]) WITHIN GROUP (ORDER BY pickup) FROM fresh),
                   (SELECT count(*) FILTER (WHERE priority = 0) FROM fresh),
                   (SELECT count(*) FILTER (WHERE priority = 1) FROM fresh),
                   (SELECT sum(n_dead_tup) FROM pg_stat_user_tables WHERE schemaname = 'discern' AND relname IN ('jobs', 'results')),
                   (SELECT n_dead_tup FROM pg_stat_user_tables WHERE relid = 'discern.jobs'::regclass),
                   pg_total_relation_size('discern.jobs')""", (last_result,))
        return rows[0] if rows else None

    def run(self):
        previous = None
        while not self.stopping.is_set():
            row = self.take(previous["last_result"] if previous else 0)
            inserted = self.producer.inserted
            if row is not None:
                sample = {
                    "at": row[0], "results": row[1], "last_result": row[2], "depth": row[3], "running": row[4], "dead": row[5],
                    "p50": row[6][0] if row[6] else None, "p95": row[6][1] if row[6] else None, "p99": row[6][2] if row[6] else None,
                    "high": row[7], "low": row[8], "dead_tuples": int(row[9] or 0), "jobs_dead_tuples": int(row[10] or 0),
                    "jobs_bytes": row[11], "inserted": inserted,
                }
                if previous is not None:
                    span = sample["at"] - previous["at"]
                    sample["span"] = span
                    sample["completed_rate"] = (sample["results"] - previous["results"]) / span
                    sample["dead_rate"] = (sample["dead"] - previous["dead"]) / span
                    sample["enqueue_rate"] = (inserted - previous["inserted"]) / span
                    sample["high_rate"], sample["low_rate"] = sample["high"] / span, sample["low"] / span
                    self.samples.append(sample)
                previous = sample
            self.stopping.wait(self.every)
        self.database.close()


class Replicas:
    """N worker processes of discern's real runtime with a no-op backend (bench/scale's
    ScaleBench `serve`)."""

    def __init__(self, bench, url, count, concurrency, environment, logs):
        self.bench, self.url, self.concurrency = bench, url, concurrency
        self.environment = {**os.environ, **environment}
        self.logs = logs
        self.processes = [self.start(index) for index in range(count)]

    def start(self, index):
        log = open(os.path.join(self.logs, f"replica-{index}.log"), "a")
        return subprocess.Popen([self.bench, "serve", self.url, str(self.concurrency)], env=self.environment,
                                stdout=log, stderr=subprocess.STDOUT)

    def kill(self, index):
        self.processes[index].send_signal(signal.SIGKILL)
        self.processes[index].wait()

    def restart(self, index):
        if self.processes[index].poll() is None:
            self.kill(index)
        self.processes[index] = self.start(index)

    def stop(self, timeout=60):
        for process in self.processes:
            if process.poll() is None:
                process.send_signal(signal.SIGTERM)
        deadline = time.monotonic() + timeout
        for process in self.processes:
            try:
                process.wait(max(0.1, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
        return [process.returncode for process in self.processes]


class Repeating(threading.Thread):
    """Calls `action` every `period` seconds until stopped."""

    def __init__(self, period, action):
        super().__init__(daemon=True)
        self.period, self.action = period, action
        self.stopping = threading.Event()
        self.count = 0

    def run(self):
        while not self.stopping.wait(self.period):
            self.count += self.action() or 0

    def stop(self):
        self.stopping.set()
        self.join()
