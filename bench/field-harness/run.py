"""bench/field-harness: discern beside the peers that install here (procrastinate, absurd),
through the field's own harness (hardbyte/postgresql-job-queue-benchmarking), in the cells of
its 2026-05-09 full sweep (scripts/run_full_sweep.sh) scaled to this 2-core machine.

    python3 run.py HARNESS_DIR PG_DIR [CELL ...]        (run.sh prepares both and calls this)

A cell runs one system at a time (as the sweep's chaos and pressure cells do) through
drive.py, under a time limit (the sweep's 15 minutes for pressure cells, scaled with the
phases). After each discern cell the queue is drained by one more worker and every job is
accounted for from the database: the harness itself only estimates loss from rates. Each
finished cell is recorded in bench/.data/field-harness/index.tsv; a cell already there is
skipped (FIELD_AGAIN=1 runs it again), so a long matrix can run over several sittings.
The "## Field harness" section of bench/RESULTS.md is written from every recorded cell.

Rates, worker counts and phase lengths come from settings (FIELD_*), so the same cells run
short as a check and long as the bench.
"""
import datetime
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time

import psycopg
from psycopg import sql

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", ".."))
sys.path.insert(0, os.path.join(ROOT, "bench", "prepare"))
from run import machine, write_section  # noqa: E402

DATA = os.path.join(ROOT, "bench", ".data", "field-harness")
SYSTEMS = os.environ.get("FIELD_SYSTEMS", "discern,procrastinate,absurd").split(",")
WORKERS = os.environ.get("FIELD_WORKER_COUNT", "32")
CHAOS_RATE = os.environ.get("FIELD_CHAOS_RATE", "300")          # the sweep: 600 (one replica)
KILL_RATE = os.environ.get("FIELD_KILL_RATE", "150")            # the sweep: 300 (two replicas)
PRESSURE_RATE = os.environ.get("FIELD_PRESSURE_RATE", "400")    # the sweep: 800
SCALE = float(os.environ.get("FIELD_SCALE", "1"))               # phase lengths, 1 = the sweep's
SOAK_MIN = float(os.environ.get("FIELD_SOAK_MIN", "30"))        # the sweep: 6 h (awa only)
# Only full-length cells make the bench; a shortened run (a check of the plumbing) keeps an index
# of its own and prints its table instead of writing bench/RESULTS.md.
FULL_LENGTH = SCALE == 1
INDEX = os.path.join(DATA, "index.tsv" if FULL_LENGTH else f"index-scale-{SCALE:g}.tsv")


def seconds(value):
    return f"{max(5, round(value * SCALE))}s"


def phases(*pairs):
    arguments = []
    for label, kind, length in pairs:
        arguments += ["--phase", f"{label}={kind}:{seconds(length)}"]
    return arguments


# cell: (kind, harness arguments, time limit in seconds)
CELLS = {
    "throughput": ("throughput", ["--producer-mode", "depth-target", "--producer-rate", "50000", "--target-depth", "4000",
                                  "--worker-count", WORKERS] + phases(("warmup", "warmup", 30), ("clean", "clean", 180)), 900),
    **{scenario: ("chaos", ["--producer-rate", CHAOS_RATE, "--worker-count", WORKERS]
                  + phases(("warmup", "warmup", 30), ("baseline", "clean", 60), (stress, kind, 60), ("recovery", "clean", 60)), 900)
       for scenario, stress, kind in (("chaos_postgres_restart", "restart", "postgres-restart"),
                                      ("chaos_pg_backend_kill", "kills", "pg-backend-kill(rate=2)"),
                                      ("chaos_pool_exhaustion", "exhaustion", "pool-exhaustion(idle_conns=300)"))},
    "chaos_crash_recovery": ("chaos", ["--producer-rate", KILL_RATE, "--replicas", "2", "--worker-count", WORKERS]
                             + phases(("warmup", "warmup", 30), ("baseline", "clean", 60), ("kill", "kill-worker(instance=0)", 60),
                                      ("restart", "start-worker(instance=0)", 60), ("recovery", "clean", 60)), 900),
    "chaos_repeated_kills": ("chaos", ["--producer-rate", KILL_RATE, "--replicas", "2", "--worker-count", WORKERS]
                             + phases(("warmup", "warmup", 30), ("baseline", "clean", 60),
                                      ("repeated", f"repeated-kill(instance=0,period={seconds(20)})", 120), ("recovery", "clean", 60)), 900),
    "idle_in_tx": ("pressure", ["--producer-mode", "fixed", "--producer-rate", PRESSURE_RATE, "--worker-count", WORKERS]
                   + phases(("warmup", "warmup", 30), ("clean_1", "clean", 60), ("idle_1", "idle-in-tx", 240),
                            ("recovery_1", "clean", 180)), 900),
    "sustained_high_load": ("pressure", ["--producer-mode", "fixed", "--producer-rate", PRESSURE_RATE, "--worker-count", WORKERS]
                            + phases(("warmup", "warmup", 30), ("clean_1", "clean", 60), ("pressure_1", "high-load", 240),
                                     ("recovery_1", "clean", 120)), 900),
    "active_readers": ("pressure", ["--producer-mode", "fixed", "--producer-rate", PRESSURE_RATE, "--worker-count", WORKERS]
                       + phases(("warmup", "warmup", 30), ("clean_1", "clean", 60), ("readers_1", "active-readers", 240),
                                ("recovery_1", "clean", 120)), 900),
    "soak": ("soak", ["--producer-mode", "fixed", "--producer-rate", PRESSURE_RATE, "--worker-count", WORKERS]
             + phases(("warmup", "warmup", 30), ("clean_1", "clean", SOAK_MIN * 60)), SOAK_MIN * 60 * SCALE + 600),
}


def recorded():
    cells = {}
    if os.path.exists(INDEX):
        for line in open(INDEX):
            cell, system, run_dir, code, started, ended, accounting = line.rstrip("\n").split("\t")
            cells[(cell, system)] = {"run_dir": run_dir, "code": int(code), "started": started, "ended": ended,
                                     "accounting": json.loads(accounting)}
    return cells


def record(cell, system, run_dir, code, started, accounting):
    os.makedirs(DATA, exist_ok=True)
    ended = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
    with open(INDEX, "a") as handle:
        handle.write("\t".join([cell, system, run_dir, str(code), started, ended, json.dumps(accounting)]) + "\n")


def run_cell(harness, pg_dir, cell, system):
    kind, arguments, limit = CELLS[cell]
    log_path = os.path.join(DATA, "logs", f"{cell}-{system}.log")
    os.makedirs(os.path.dirname(log_path), exist_ok=True)
    started = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
    print(f"field-harness: {cell} with {system} ({kind}, at most {limit / 60:.0f} min)", flush=True)
    command = [sys.executable, os.path.join(HERE, "drive.py"), harness, pg_dir,
               "run", "--systems", system, "--fast", "--skip-build", "--sample-every", "5"] + arguments
    with open(log_path, "w") as log:
        # A session of its own: on the time limit the harness, its adapters and their workers
        # all go (the harness only stops them when it ends by itself).
        process = subprocess.Popen(command, stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
        try:
            code = process.wait(timeout=limit)
        except subprocess.TimeoutExpired:
            for signal_number, grace in ((signal.SIGTERM, 20), (signal.SIGKILL, None)):
                try:
                    os.killpg(process.pid, signal_number)
                    process.wait(timeout=grace)
                except (ProcessLookupError, subprocess.TimeoutExpired):
                    pass
            code = 137
    found = re.findall(r"results at: (\S+)", open(log_path).read())
    run_dir = ""
    if found and os.path.isdir(found[-1]):
        # Kept beside the index: the harness's checkout (and its results/) is replaced when
        # the snapshot moves.
        run_dir = os.path.join(DATA, "runs", os.path.basename(found[-1]))
        shutil.copytree(found[-1], run_dir, dirs_exist_ok=True)
    # Counted however the cell ended: what a peer that timed out left behind is the finding.
    accounting = account(pg_dir, system)
    record(cell, system, run_dir, code, started, accounting)
    print(f"field-harness: {cell} with {system}: exit {code} {accounting}", flush=True)


def database_url(pg_dir, name):
    base = open(os.path.join(pg_dir, "url")).read().strip()
    return base.rsplit("/", 1)[0] + "/" + name


def account(pg_dir, system):
    """What the database says once the harness has stopped. discern: one more worker drains
    what is queued (what an operator's next worker would do), then every job must have
    succeeded with exactly one result. The peers: their jobs by state, as left."""
    try:
        if system == "discern":
            url = database_url(pg_dir, "discern_bench")
            drained = subprocess.run([os.environ["SCALEBENCH_BIN"], "work", url, "16"], capture_output=True, text=True, timeout=600)
            with psycopg.connect(url, autocommit=True) as connection:
                row = connection.execute("""
                    SELECT count(*), count(*) FILTER (WHERE state = 'succeeded'), count(*) FILTER (WHERE state = 'dead'),
                           count(*) FILTER (WHERE state IN ('available', 'running')),
                           (SELECT count(*) FROM discern.results),
                           (SELECT count(*) FROM (SELECT job_id FROM discern.results GROUP BY job_id HAVING count(*) > 1) d),
                           count(*) FILTER (WHERE attempts > 1)
                    FROM discern.jobs""").fetchone()
            keys = ("jobs", "succeeded", "dead", "unfinished", "results", "doubled", "ran_again")
            return {**dict(zip(keys, row)), "drain_exit": drained.returncode}
        if system == "procrastinate":
            with psycopg.connect(database_url(pg_dir, "procrastinate_bench"), autocommit=True) as connection:
                rows = connection.execute("SELECT status::text, count(*) FROM procrastinate_jobs GROUP BY 1").fetchall()
            return {status: count for status, count in rows}
        if system == "absurd":
            # A table of tasks per queue (absurd.t_<queue>), each task with its state.
            counts = {}
            with psycopg.connect(database_url(pg_dir, "absurd_bench"), autocommit=True) as connection:
                tables = [name for (name,) in connection.execute(
                    "SELECT tablename FROM pg_tables WHERE schemaname = 'absurd' AND tablename LIKE 't\\_%'")]
                for table in tables:
                    query = sql.SQL("SELECT state, count(*) FROM absurd.{} GROUP BY 1").format(sql.Identifier(table))
                    for state, count in connection.execute(query):
                        counts[state] = counts.get(state, 0) + count
            return counts
    except (psycopg.Error, subprocess.TimeoutExpired, OSError) as error:
        return {"error": str(error)[:200]}
    return {}


def main():
    harness, pg_dir = sys.argv[1], sys.argv[2]
    cells = sys.argv[3:] or list(CELLS)
    unknown = [cell for cell in cells if cell not in CELLS]
    if unknown:
        sys.exit(f"unknown cells: {unknown}; known: {', '.join(CELLS)}")
    done = recorded()
    for cell in cells:
        for system in SYSTEMS:
            if (cell, system) in done and os.environ.get("FIELD_AGAIN") != "1":
                print(f"field-harness: {cell} with {system} already recorded", flush=True)
                continue
            run_cell(harness, pg_dir, cell, system)
    import summarize
    section = summarize.section(recorded(), CELLS, machine(), SYSTEMS)
    if FULL_LENGTH:
        write_section(section, "## Field harness")
    else:
        print(section)


if __name__ == "__main__":
    main()
