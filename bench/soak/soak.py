"""bench/soak: a night as a bench. One `discern work` at its defaults, photos arriving
at about 80 % of what it was measured to take, and the night's weather in phases:

    clean-1     an hour as it should be
    outage      the service refuses connections, then answers 5xx to everything (the simulator
                killed, then restarted with --error-rate 1), photos still arriving
    recovery-1  the service back: the backlog drains with the spare 20 % (its minutes at least,
                then until the queue is no deeper than clean-1 ever saw it)
    idle-in-tx  a session holds a transaction open (xmin pinned): vacuum can remove nothing
    recovery-2  released
    clean-2     an hour as it should be: compared with clean-1

    python3 bench/soak/soak.py DISCERN URL PHOTOS

Every 10 s a sample: queue depth, the worker's RSS, dead tuples and sizes of the hot tables,
pg_notification_queue_usage(), and where the CPU went (cpu.py); per phase, the statements PostgreSQL
spent its time on (statements.py). Per phase: throughput, p50/p99 from enqueue to result
(jobs.created_at to results.created_at), RSS, the most dead tuples, sizes at its end. At the end
the producer stops, the queue drains, and every job is accounted for: lost, doubled, dead.
Phase lengths in minutes from SOAK_CLEAN_MIN (60), SOAK_REFUSED_MIN (4), SOAK_FAILING_MIN (4),
SOAK_RECOVERY_MIN (25), SOAK_IDLE_TX_MIN (10), SOAK_RELEASED_MIN (10); SOAK_LOAD (0.8). Both
recoveries last their minutes and then until the backlog is gone (SOAK_CATCH_UP_LIMIT_MIN, 90, bounds it).
Writes the "## Soak" section of bench/RESULTS.md (SOAK_RESULTS=path writes elsewhere).
"""
import json
import os
import signal
import subprocess
import sys
import tempfile
import threading
import time

import psycopg

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
sys.path.insert(0, os.path.join(ROOT, "bench", "prepare"))
from run import machine, write_section  # noqa: E402
from cpu import CPUAccount, phase_figures  # noqa: E402  (bench/soak, the script's own folder)
from statements import Statements  # noqa: E402
from windows import ten_minute_table  # noqa: E402

MINUTE = 60.0
PHASES = [("clean-1", "SOAK_CLEAN_MIN", 60), ("outage-refused", "SOAK_REFUSED_MIN", 4), ("outage-5xx", "SOAK_FAILING_MIN", 4),
          ("recovery-1", "SOAK_RECOVERY_MIN", 25), ("idle-in-tx", "SOAK_IDLE_TX_MIN", 10), ("recovery-2", "SOAK_RELEASED_MIN", 10),
          ("clean-2", "SOAK_CLEAN_MIN", 60)]
LOAD = float(os.environ.get("SOAK_LOAD", "0.8"))
SAMPLE_SECONDS = 10.0


class Simulator:
    """`discern simulate` as a process, killed and restarted on the same port with the same
    signing secret (upload URLs handed out before still verify)."""

    def __init__(self, discern, logs):
        self.discern, self.logs, self.port, self.process = discern, logs, 0, None
        self.secret = "soak-" + os.urandom(8).hex()

    def start(self, *faults):
        url_file = tempfile.mktemp(prefix="soak-sim-")
        log = open(os.path.join(self.logs, "simulator.log"), "a")
        self.process = subprocess.Popen([self.discern, "simulate", "--port", str(self.port), "--url-file", url_file, "--no-throughput-limits",
                                         "--analyze-seconds", "0.3", "--log-level", "warning", *faults],
                                        env={**os.environ, "DISCERN_SIM_SECRET_ACCESS_KEY": self.secret}, stdout=log, stderr=subprocess.STDOUT)
        for _ in range(600):
            if os.path.exists(url_file):
                self.port = int(open(url_file).read().strip().rsplit(":", 1)[1])
                os.unlink(url_file)
                return
            time.sleep(0.1)
        raise RuntimeError("the simulator did not start")

    def kill(self):
        if self.process is not None:
            self.process.kill()
            self.process.wait()
            self.process = None


class Producer(threading.Thread):
    """Inserts jobs at `rate` a second with plain SQL, credited on wall-clock time, cycling
    through the photos."""

    def __init__(self, url, photos, rate):
        super().__init__(daemon=True)
        self.url, self.photos, self.rate = url, photos, rate
        self.inserted, self.stopping = 0, threading.Event()

    def run(self):
        connection = psycopg.connect(self.url, autocommit=True, application_name="soak-producer")
        owed, last = 0.0, time.monotonic()
        while not self.stopping.is_set():
            now = time.monotonic()
            owed += self.rate * (now - last)
            last = now
            count = int(owed)
            if count > 0:
                connection.execute("""INSERT INTO discern.jobs (image_path)
                                      SELECT (%s::text[])[1 + (g %% %s)] FROM generate_series(%s::bigint, %s::bigint - 1) AS g""",
                                   (self.photos, len(self.photos), self.inserted, self.inserted + count))
                self.inserted += count
                owed -= count
            self.stopping.wait(0.2)
        connection.close()


def rss_kb(pid):
    try:
        for line in open(f"/proc/{pid}/status"):
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    except OSError:
        return None


class Sampler(threading.Thread):
    def __init__(self, url, worker, account):
        super().__init__(daemon=True)
        self.url, self.worker, self.account, self.samples, self.stopping = url, worker, account, [], threading.Event()
        self.phase = "calibrate"

    def run(self):
        connection = None
        while not self.stopping.wait(SAMPLE_SECONDS):
            try:
                if connection is None:
                    connection = psycopg.connect(self.url, autocommit=True, application_name="soak-sampler")
                row = connection.execute("""
                    SELECT extract(epoch FROM clock_timestamp())::float8,
                           (SELECT n_tup_ins FROM pg_stat_user_tables WHERE relid = 'discern.results'::regclass),
                           (SELECT count(*) FROM discern.jobs WHERE state = 'available'),
                           (SELECT count(*) FROM discern.jobs WHERE state = 'dead'),
                           (SELECT n_dead_tup FROM pg_stat_user_tables WHERE relid = 'discern.jobs'::regclass),
                           (SELECT n_dead_tup FROM pg_stat_user_tables WHERE relid = 'discern.results'::regclass),
                           pg_total_relation_size('discern.jobs'), pg_total_relation_size('discern.results'),
                           pg_notification_queue_usage()""").fetchone()
            except psycopg.Error:
                connection = None
                continue
            self.samples.append({"phase": self.phase, "at": row[0], "results": row[1], "waiting": row[2], "dead": row[3],
                                 "jobs_dead_tuples": row[4], "results_dead_tuples": row[5], "jobs_bytes": row[6],
                                 "results_bytes": row[7], "notify_usage": row[8], "rss_kb": rss_kb(self.worker.pid),
                                 **self.account.sample()})


def latency(connection, start, end):
    row = connection.execute("""
        SELECT count(*), percentile_cont(ARRAY[0.5, 0.99]) WITHIN GROUP (ORDER BY extract(epoch FROM r.created_at - j.created_at))
        FROM discern.results r JOIN discern.jobs j ON j.id = r.job_id
        WHERE r.created_at >= to_timestamp(%s) AND r.created_at < to_timestamp(%s)""", (start, end)).fetchone()
    return row[0], (row[1] or [None, None])


def calibrate(connection, photos, seconds):
    """What the worker takes flat out: jobs/s over a backlog worth `seconds`, its first tenth left out."""
    connection.execute("INSERT INTO discern.jobs (image_path) SELECT (%s::text[])[1 + (g %% %s)] FROM generate_series(1, %s) AS g",
                       (photos, len(photos), 400))
    marks = []
    while True:
        left, done = connection.execute("SELECT count(*) FILTER (WHERE state IN ('available', 'running')), count(*) FILTER (WHERE state = 'succeeded') FROM discern.jobs").fetchone()
        marks.append((time.monotonic(), done))
        if left == 0:
            break
        time.sleep(1)
    start = next(m for m in marks if m[1] >= 40)
    end = marks[-1]
    return (end[1] - start[1]) / (end[0] - start[0])


def caught_up(sampler, phase):
    """A recovery lasts its minutes and then until the backlog is gone (the queue no deeper than
    the most clean-1 ever saw), so clean-2 starts as clean-1 did: an event, not a guess at how fast
    the spare 20 % drains it. SOAK_CATCH_UP_LIMIT_MIN (90) bounds the wait and says so."""
    ceiling = max([s["waiting"] for s in sampler.samples if s["phase"] == "clean-1"] + [10])
    limit = time.time() + float(os.environ.get("SOAK_CATCH_UP_LIMIT_MIN", "90")) * MINUTE
    while time.time() < limit:
        latest = sampler.samples[-1] if sampler.samples else None
        if latest is not None and latest["phase"] == phase and latest["waiting"] <= ceiling:
            return
        time.sleep(SAMPLE_SECONDS)
    print(f"soak: {phase} did not catch up within SOAK_CATCH_UP_LIMIT_MIN", flush=True)


def main():
    discern, url, photos_dir = sys.argv[1:4]
    photos = sorted(os.path.join(photos_dir, name) for name in os.listdir(photos_dir) if not name.startswith("."))
    logs = os.path.join(ROOT, "bench", ".data", "soak-logs")
    os.makedirs(logs, exist_ok=True)
    subprocess.run([discern, "migrate", "--database-url", url], check=True, stdout=subprocess.DEVNULL)
    connection = psycopg.connect(url, autocommit=True, application_name="soak-main")
    connection.execute("TRUNCATE discern.jobs, discern.batches CASCADE")
    connection.execute("UPDATE discern.rate_limits SET per_minute = 1000000, burst = 10000")
    simulator = Simulator(discern, logs)
    simulator.start()
    worker_log = open(os.path.join(logs, "worker.log"), "w")
    worker = subprocess.Popen([discern, "work", "--database-url", url, "--discerner-url", f"http://127.0.0.1:{simulator.port}",
                               "--path-root", photos_dir, "--log-level", "notice", "--no-progress"], stdout=worker_log, stderr=subprocess.STDOUT)
    backend = connection.execute("SELECT pg_backend_pid()").fetchone()[0]
    postmaster = int(open(f"/proc/{backend}/stat").read().rsplit(")", 1)[1].split()[1])
    sampler = Sampler(url, worker, CPUAccount(worker, lambda: simulator.process, postmaster))
    sampler.start()
    statements = Statements(connection)
    capacity = calibrate(connection, photos, 60)
    rate = LOAD * capacity
    print(f"soak: capacity {capacity:.1f} jobs/s, offering {rate:.1f} jobs/s", flush=True)
    producer = Producer(url, photos, rate)
    producer.start()
    phases, idle = [], None
    for name, variable, default in PHASES:
        minutes = float(os.environ.get(variable, default))
        if name == "outage-refused":
            simulator.kill()
        elif name == "outage-5xx":
            simulator.start("--error-rate", "1")
        elif name == "recovery-1":
            simulator.kill()
            simulator.start()
        elif name == "idle-in-tx":
            idle = psycopg.connect(url, application_name="soak-idle-in-tx")
            idle.execute("SELECT txid_current()")  # a transaction left open: xmin pinned
        elif name == "recovery-2" and idle is not None:
            idle.rollback()
            idle.close()
        sampler.phase = name
        statements.reset()
        start = time.time()
        print(f"soak: {name} for {minutes:g} min", flush=True)
        time.sleep(minutes * MINUTE)
        if name.startswith("recovery"):
            caught_up(sampler, name)
        phases.append((name, start, time.time(), statements.top()))
    producer.stopping.set()
    producer.join()
    sampler.phase = "drain"
    while connection.execute("SELECT count(*) FROM discern.jobs WHERE state IN ('available', 'running')").fetchone()[0] > 0:
        time.sleep(2)
    worker.send_signal(signal.SIGTERM)
    worker.wait(120)
    sampler.stopping.set()
    sampler.join()
    simulator.kill()
    report(connection, capacity, rate, phases, sampler.samples, producer.inserted + 400, worker.returncode)


def report(connection, capacity, rate, phases, samples, enqueued, exit_status):
    states = dict(connection.execute("SELECT state, count(*) FROM discern.jobs GROUP BY 1").fetchall())
    results, doubled = connection.execute("""SELECT count(*), count(*) - count(DISTINCT job_id) FROM discern.results""").fetchone()
    given_back = connection.execute("""SELECT count(*) FROM discern.jobs, jsonb_array_elements(error_history) e
                                       WHERE e->>'counted' = 'false'""").fetchone()[0]
    rows = []
    for name, start, end, top in phases:
        mine = [s for s in samples if s["phase"] == name]
        count, (p50, p99) = latency(connection, start, end)
        rss = [s["rss_kb"] for s in mine if s["rss_kb"]]
        rows.append({
            "phase": name, "minutes": (end - start) / MINUTE, "per_second": count / (end - start),
            "p50": p50, "p99": p99, "rss_mb": (sum(rss) / len(rss) / 1024) if rss else None, "rss_max_mb": max(rss) / 1024 if rss else None,
            "jobs_dead_tuples": max((s["jobs_dead_tuples"] for s in mine), default=None),
            "results_dead_tuples": max((s["results_dead_tuples"] for s in mine), default=None),
            "jobs_mb": mine[-1]["jobs_bytes"] / 2**20 if mine else None, "results_mb": mine[-1]["results_bytes"] / 2**20 if mine else None,
            "notify": max((s["notify_usage"] for s in mine), default=None), "waiting_max": max((s["waiting"] for s in mine), default=None),
            "statements": top, **phase_figures(mine, count),
        })
    print(json.dumps(rows, indent=1))
    first, last = rows[0], rows[-1]
    table = "\n".join(
        f"| {r['phase']} | {r['minutes']:.0f} | {r['per_second']:.2f} | {fmt(r['p50'])} | {fmt(r['p99'])} | {fmt(r['rss_mb'], 0)} ({fmt(r['rss_max_mb'], 0)}) "
        f"| {r['waiting_max']} | {r['jobs_dead_tuples']} / {r['results_dead_tuples']} | {fmt(r['jobs_mb'], 1)} / {fmt(r['results_mb'], 1)} | {r['notify']} |"
        for r in rows)
    cpu_table = "\n".join(
        f"| {r['phase']} | {fmt(r.get('worker_ms_per_result'), 1)} | {fmt(r.get('postgres_ms_per_result'), 1)} "
        f"| {fmt(r.get('simulator_ms_per_result'), 1)} | {fmt(r.get('others_cores'))} | {fmt(r.get('steal_cores'))} "
        f"| {fmt(r.get('probe_ms'), 1)} | {fmt(r.get('rss_anon_mb'), 0)} / {fmt(r.get('rss_file_mb'), 0)} |"
        for r in rows)
    total = sum(r["minutes"] for r in rows)
    section = f"""## Soak

`bash bench/soak/run.sh` on {machine()}, {time.strftime('%Y-%m-%d')}: one `discern work` at its defaults against the simulator (each
analysis 0.3 s), photos arriving by plain `INSERT` at {LOAD:.0%} of the {capacity:.1f} jobs/s it drained flat out ({rate:.1f} jobs/s),
for {total:.0f} minutes in phases: an outage (the service refusing connections, then answering 5xx to everything), a transaction
left open (xmin pinned) and the recoveries. Latency is from the job's INSERT to its result's commit.

| phase | min | results/s | p50 s | p99 s | worker RSS MB, mean (max) | most waiting | dead tuples jobs / results (most) | jobs / results MB (end) | NOTIFY queue (most) |
|---|---|---|---|---|---|---|---|---|---|
{table}

- First and last clean phases ({first['minutes']:.0f} and {last['minutes']:.0f} min): RSS {ratio(last['rss_mb'], first['rss_mb'])}, p99 {ratio(last['p99'], first['p99'])}, p50 {ratio(last['p50'], first['p50'])}.
- Every job accounted for: {enqueued} enqueued, {states.get('succeeded', 0)} succeeded, {states.get('dead', 0)} dead,
  {sum(v for k, v in states.items() if k not in ('succeeded', 'dead'))} unfinished; {results} results, {doubled} doubled; {given_back}
  attempts given back uncounted while the service was down; the worker exited {exit_status}.

Where the CPU went (bench/soak/cpu.py): CPU milliseconds per result of the worker, of PostgreSQL (every process of its
cluster) and of the simulator; the machine's other load and steal, in cores; the median speed probe (a fixed piece of
work on one thread's CPU clock: it grows when the core runs slower, whoever is to blame); the worker's RSS split into
heap (anonymous) and mapped files.

| phase | worker ms/result | PostgreSQL ms/result | simulator ms/result | others, cores | steal, cores | probe ms | worker RSS anon / file MB |
|---|---|---|---|---|---|---|---|
{cpu_table}

{statement_table(first, last)}

{ten_minute_table(connection)}
"""
    path = os.environ.get("SOAK_RESULTS")
    if path:
        open(path, "w").write(section)
    else:
        write_section(section, "## Soak")
    print(section)


def statement_table(first, last):
    """The statements PostgreSQL spent most time on in the first clean phase, beside the last."""
    later = {row["query"]: row for row in last.get("statements") or []}
    if not first.get("statements"):
        return "(no statement figures: the cluster ran without pg_stat_statements)"
    lines = [f"| {row['query']} | {row['calls']} / {later.get(row['query'], {}).get('calls', '-')} "
             f"| {fmt(row['mean_ms'], 3)} / {fmt(later.get(row['query'], {}).get('mean_ms'), 3)} "
             f"| {fmt(row['blocks_read'], 2)} / {fmt(later.get(row['query'], {}).get('blocks_read'), 2)} |"
             for row in first["statements"]]
    return ("What PostgreSQL spent its time on (pg_stat_statements), first clean phase / last:\n\n"
            "| statement | calls | mean ms | blocks read per call |\n|---|---|---|---|\n" + "\n".join(lines))


def fmt(value, digits=2):
    return "-" if value is None else f"{value:.{digits}f}"


def ratio(after, before):
    return "-" if not after or not before else f"{after / before:.3f}x ({(after / before - 1) * 100:+.1f} %)"


if __name__ == "__main__":
    main()
