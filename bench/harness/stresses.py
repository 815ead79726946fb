"""What a stress phase does to the queue, after the public harness's phase types
(hardbyte/postgresql-job-queue-benchmarking, docs/method.md). Each has start(run) and stop(run);
`run` carries the URL, the cluster's folder, the replicas and the producer."""
import subprocess
import threading
import time

import psycopg

from harness import SUT_BACKENDS, Reconnecting, Repeating, connect


def postgres(command, folder):
    subprocess.run(["bash", "scripts/postgres.sh", command, folder], check=True, capture_output=True)


class Nothing:
    def start(self, run): pass
    def stop(self, run): pass


class HighLoad:
    """The producer offers `multiplier` times the clean rate."""

    def __init__(self, multiplier):
        self.multiplier = multiplier

    def start(self, run):
        run.producer.rate = run.rate * self.multiplier

    def stop(self, run):
        run.producer.rate = run.rate


class PostgresRestart:
    """PostgreSQL stopped for half the phase, then started again on the same port."""

    def start(self, run):
        def cycle():
            postgres("stop", run.pg_folder)
            time.sleep(run.stress_seconds / 2)
            postgres("resume", run.pg_folder)
        self.thread = threading.Thread(target=cycle, daemon=True)
        self.thread.start()

    def stop(self, run):
        self.thread.join()


class BackendKill:
    """Every `period` seconds, pg_terminate_backend on every connection the workers hold."""

    def __init__(self, period=0.5):
        self.period = period

    def start(self, run):
        admin = Reconnecting(run.url, "killer")

        def kill():
            rows = admin.run(f"SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity WHERE {SUT_BACKENDS}")
            return rows[0][0] if rows else 0
        self.loop = Repeating(self.period, kill)
        self.loop.start()

    def stop(self, run):
        self.loop.stop()
        run.notes.append(f"{self.loop.count} backends terminated")


class PoolExhaustion:
    """`idle` connections held open and idle for the phase (or as many as the server gives)."""

    def __init__(self, idle=300):
        self.idle = idle

    def start(self, run):
        self.held = []
        for _ in range(self.idle):
            try:
                self.held.append(connect(run.url, "idle"))
            except psycopg.Error:
                break

    def stop(self, run):
        for connection in self.held:
            connection.close()
        run.notes.append(f"{len(self.held)} idle connections held")


class KillReplica:
    """SIGKILL replica `index` at the start of the phase; started again at its end."""

    def __init__(self, index=0):
        self.index = index

    def start(self, run):
        run.replicas.kill(self.index)

    def stop(self, run):
        run.replicas.restart(self.index)


class RepeatedKills:
    """SIGKILL and restart replica `index` every `period` seconds."""

    def __init__(self, index=0, period=5.0):
        self.index, self.period = index, period

    def start(self, run):
        def cycle():
            run.replicas.restart(self.index)
            return 1
        self.loop = Repeating(self.period, cycle)
        self.loop.start()

    def stop(self, run):
        self.loop.stop()
        run.notes.append(f"replica {self.index} killed {self.loop.count} times")


class IdleInTransaction:
    """One writing transaction (an XID assigned) left open: the cluster's xmin is pinned and
    vacuum can reclaim nothing the queue leaves behind."""

    def start(self, run):
        self.connection = connect(run.url, "idle-in-tx", autocommit=False)
        self.connection.execute("SELECT txid_current()")

    def stop(self, run):
        self.connection.rollback()
        self.connection.close()


class ActiveReaders:
    """`count` REPEATABLE READ transactions scanning the queue's tables again and again, each
    held for half the phase and started in turn, so their snapshots overlap."""

    def __init__(self, count=4):
        self.count = count

    def start(self, run):
        self.stopping = threading.Event()
        self.scans = 0
        hold = run.stress_seconds / 2

        def reader(offset):
            if self.stopping.wait(offset):
                return
            while not self.stopping.is_set():
                try:
                    with connect(run.url, "reader", autocommit=False) as connection:
                        connection.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ")
                        ends = time.monotonic() + hold
                        while time.monotonic() < ends and not self.stopping.is_set():
                            connection.execute("SELECT count(*), max(id) FROM discern.jobs WHERE state <> 'succeeded'").fetchall()
                            connection.execute("SELECT count(*), avg(analyze_ms) FROM discern.results").fetchall()
                            self.scans += 1
                        connection.rollback()
                except psycopg.Error:
                    self.stopping.wait(0.5)
        self.threads = [threading.Thread(target=reader, args=(i * hold / self.count,), daemon=True) for i in range(self.count)]
        for thread in self.threads:
            thread.start()

    def stop(self, run):
        self.stopping.set()
        for thread in self.threads:
            thread.join()
        run.notes.append(f"{self.scans} scan pairs by {self.count} readers")
