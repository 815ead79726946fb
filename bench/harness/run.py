"""bench/harness: discern under the chaos and pressure scenarios of the public PostgreSQL
job-queue harness (hardbyte/postgresql-job-queue-benchmarking: its docs/method.md and the
2026-05-09 full sweep), with our own code.

    python3 bench/harness/run.py SCALEBENCH PG_FOLDER URL [SCENARIO ...]

Each scenario runs in phases: warm-up, clean, stress, recovery. A producer offers jobs at a
fixed rate (credited on wall-clock time); N replicas of discern's real worker runtime (bench/scale's
ScaleBench `serve`: producer, executor, completer, heartbeat, rescuer, LISTEN; a no-op backend
with JOB_WORK_MS of synthetic work) take them; a sampler records every 5 s. After the recovery
phase the producer stops, the queue drains, the replicas are stopped with SIGTERM, and every job
is accounted for: lost (never finished), duplicated (more than one result), run again (started
more than once: a job in a killed worker's hands runs again, the at-least-once cost of a crash;
such a crash is not counted as the job's attempt, migration 0014). Writes the "## Harness" section of
bench/RESULTS.md and a plot per scenario in bench/harness/plots/.
"""
import json
import os
import subprocess
import sys
import time

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
sys.path.insert(0, os.path.join(ROOT, "bench", "prepare"))
from run import machine, write_section  # noqa: E402
from harness import Producer, Reconnecting, Replicas, Sampler  # noqa: E402
import stresses  # noqa: E402

RATE = float(os.environ.get("HARNESS_RATE", "1000"))           # jobs/s offered in clean phases
REPLICAS = int(os.environ.get("HARNESS_REPLICAS", "2"))
CONCURRENCY = int(os.environ.get("HARNESS_CONCURRENCY", "16"))  # per replica
WORK_MS = os.environ.get("HARNESS_WORK_MS", "5")
WARMUP, CLEAN, STRESS, RECOVERY = (float(os.environ.get(f"HARNESS_{name}_S", default))
                                   for name, default in (("WARMUP", "10"), ("CLEAN", "40"), ("STRESS", "40"), ("RECOVERY", "40")))

# name: (kind, stress, stress seconds, replica environment, published awa / river / oban / pgmq)
SCENARIOS = {
    "postgres_restart": ("chaos", stresses.PostgresRestart(), STRESS, {}, ("100 %", "101 %", "0 %", "0 %")),
    "pg_backend_kill": ("chaos", stresses.BackendKill(0.5), STRESS, {}, ("100 %", "101 %", "100 %", "0 %")),
    "pool_exhaustion": ("chaos", stresses.PoolExhaustion(300), STRESS, {}, ("100 %", "100 %", "86 %", "100 %")),
    "crash_recovery": ("chaos", stresses.KillReplica(0), STRESS, {}, ("98 %", "121 %", "98 %", "74 %")),
    "repeated_kills": ("chaos", stresses.RepeatedKills(0, 5.0), STRESS, {}, ("99 %", "109 %", "88 %", "26 %")),
    "idle_in_tx": ("pressure", stresses.IdleInTransaction(), 2 * STRESS, {}, ("75 %", "timed out", "96 %", "timed out")),
    "sustained_high_load": ("pressure", stresses.HighLoad(1.5), STRESS, {}, ("73 %", "140 %", "102 %", "150 %")),
    "active_readers": ("pressure", stresses.ActiveReaders(4), STRESS, {}, ("71 %", "100 %", "98 %", "39 %")),
    # Long overload: offered far above what the replicas can do, then the drain.
    "event_burst": ("pressure", stresses.HighLoad(float(os.environ.get("HARNESS_BURST_MULTIPLIER", "6"))), 2 * STRESS, {},
                    ("80 %", "timed out", "100 %", "timed out")),
    "dead_letter": ("dead-letter", stresses.Nothing(), STRESS, {"JOB_FAIL": "1"}, None),
    "priority": ("priority", stresses.HighLoad(float(os.environ.get("HARNESS_BURST_MULTIPLIER", "6"))), STRESS, {}, None),
}


class Run:
    def __init__(self, bench, pg_folder, url, name):
        self.bench, self.pg_folder, self.url, self.name = bench, pg_folder, url, name
        self.kind, self.stress, self.stress_seconds, self.environment, self.published = SCENARIOS[name]
        self.rate, self.notes, self.phases = RATE, [], []

    def phase(self, label, seconds, stress=None):
        started = time.time()
        if stress:
            stress.start(self)
        time.sleep(max(0.0, seconds - (time.time() - started)))
        if stress:
            stress.stop(self)
        self.phases.append((label, started, time.time()))

    def execute(self):
        subprocess.run([self.bench, "seed", self.url, "0", "60000000"], check=True)
        logs = os.path.join(ROOT, "bench", ".data", "harness-logs", self.name)
        os.makedirs(logs, exist_ok=True)
        self.replicas = Replicas(self.bench, self.url, REPLICAS, CONCURRENCY, {"JOB_WORK_MS": WORK_MS, **self.environment}, logs)
        self.producer = Producer(self.url, self.rate)
        if self.kind == "priority":
            self.producer.low_priority_share = 0.1
        sampler = Sampler(self.url, self.producer)
        sampler.start()
        time.sleep(2)  # replicas registered and listening
        self.producer.start()
        self.phase("warm-up", WARMUP)
        self.phase("clean", CLEAN)
        self.phase("stress", self.stress_seconds, self.stress)
        self.phase("recovery", RECOVERY)
        self.producer.stopping.set()
        self.producer.join()
        drained = self.wait_for_drain(sampler)
        exit_codes = self.replicas.stop()
        sampler.stopping.set()
        sampler.join()
        self.samples = sampler.samples
        return self.account(drained, exit_codes)

    def wait_for_drain(self, sampler, most=180):
        database = Reconnecting(self.url, "drain")
        deadline = time.monotonic() + most
        while time.monotonic() < deadline:
            row = database.run("SELECT count(*) FROM discern.jobs WHERE state IN ('available', 'running')")
            if row and row[0][0] == 0:
                database.close()
                return True
            time.sleep(1)
        database.close()
        return False

    def account(self, drained, exit_codes):
        database = Reconnecting(self.url, "account")
        row = database.run("""
            SELECT count(*), count(*) FILTER (WHERE state = 'succeeded'), count(*) FILTER (WHERE state = 'dead'),
                   count(*) FILTER (WHERE state NOT IN ('succeeded', 'dead')),
                   count(*) FILTER (WHERE attempts > 1 OR shared_crashes > 0 OR solo_crashes > 0),
                   (SELECT count(*) FROM discern.results), (SELECT count(DISTINCT job_id) FROM discern.results)
            FROM discern.jobs""")[0]
        database.close()
        jobs, succeeded, dead, unfinished, reruns, results, distinct = row
        # Lost: never finished, or (outside the dead-letter run, where every job fails) dead.
        return {
            "jobs": jobs, "succeeded": succeeded, "dead": dead, "lost": unfinished + (0 if self.kind == "dead-letter" else dead),
            "duplicated": results - distinct, "reruns": reruns, "drained": drained, "exit_codes": exit_codes,
            "inserted": self.producer.inserted, "producer_failures": self.producer.failures,
        }


def phase_of(run, at):
    for label, started, ended in run.phases:
        if started <= at < ended:
            return label
    return "drain"


def phase_figures(run):
    """Per phase: mean completion rate (each sample counted in the phase its window ends in),
    pickup p99 (the worst sample's), most dead tuples; and the low-priority share of completions."""
    figures = {}
    for label, _, _ in run.phases + [("drain", 0, 0)]:
        samples = [s for s in run.samples if phase_of(run, s["at"]) == label]
        span = sum(s["span"] for s in samples)
        completed = sum(s["completed_rate"] * s["span"] for s in samples)
        dead = sum(s["dead_rate"] * s["span"] for s in samples)
        enqueued = sum(s["enqueue_rate"] * s["span"] for s in samples)
        high, low = sum(s["high"] for s in samples), sum(s["low"] for s in samples)
        p99s = [s["p99"] for s in samples if s["p99"] is not None]
        figures[label] = {
            "rate": completed / span if span else 0, "dead_rate": dead / span if span else 0, "enqueue_rate": enqueued / span if span else 0,
            "p99": max(p99s) if p99s else None, "p50": sorted(s["p50"] for s in samples if s["p50"] is not None)[len(p99s) // 2] if p99s else None,
            "dead_tuples": max((s["jobs_dead_tuples"] for s in samples), default=0),
            "low_share": low / (high + low) if high + low else None, "low_rate": low / span if span else 0,
            "depth": max((s["depth"] for s in samples), default=0),
        }
    return figures


def plot(run, figures, folder):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    start = run.phases[0][1]
    xs = [s["at"] - start for s in run.samples]
    fig, (top, bottom) = plt.subplots(2, 1, figsize=(7, 4.2), sharex=True)
    top.plot(xs, [s["enqueue_rate"] for s in run.samples], label="enqueued/s", color="#999999")
    top.plot(xs, [s["completed_rate"] for s in run.samples], label="completed/s", color="#1f77b4")
    if run.kind == "dead-letter":
        top.plot(xs, [s["dead_rate"] for s in run.samples], label="dead/s", color="#d62728")
    if run.kind == "priority":
        top.plot(xs, [s["low_rate"] for s in run.samples], label="low priority completed/s", color="#2ca02c")
    top.set_ylabel("jobs/s")
    top.legend(fontsize=7, loc="lower right")
    bottom.plot(xs, [s["depth"] for s in run.samples], label="queue depth", color="#ff7f0e")
    bottom.plot(xs, [s["jobs_dead_tuples"] for s in run.samples], label="dead tuples (jobs)", color="#8c564b")
    bottom.set_ylabel("rows")
    right = bottom.twinx()
    right.plot(xs, [(s["p99"] or 0) * 1000 for s in run.samples], label="pickup p99 ms", color="#9467bd", linestyle="--")
    right.set_ylabel("ms")
    lines = bottom.get_legend_handles_labels()[0] + right.get_legend_handles_labels()[0]
    bottom.legend(lines, [l.get_label() for l in lines], fontsize=7, loc="upper right")
    for label, started, ended in run.phases:
        for axis in (top, bottom):
            axis.axvspan(started - start, ended - start, alpha=0.08 if label in ("stress",) else 0.0, color="#d62728")
        top.text(started - start + 1, top.get_ylim()[1] * 0.92, label, fontsize=7)
    bottom.set_xlabel("seconds")
    fig.suptitle(f"discern · {run.name}", fontsize=9)
    fig.tight_layout()
    os.makedirs(folder, exist_ok=True)
    fig.savefig(os.path.join(folder, f"{run.name}.png"), dpi=80)
    plt.close(fig)


def percent(value):
    return f"{value:.0%}".replace("%", " %")


def report(outcomes):
    chaos = [(n, r, f, a) for n, (r, f, a) in outcomes.items() if r.kind == "chaos"]
    pressure = [(n, r, f, a) for n, (r, f, a) in outcomes.items() if r.kind == "pressure"]

    def row(name, run, figures, account, ratio):
        return (f"| {name} | **{percent(ratio)}** | {' | '.join(run.published)} | {figures['clean']['rate']:,.0f} / "
                f"{figures['stress']['rate']:,.0f} / {figures['recovery']['rate']:,.0f} | "
                f"{account['lost']} / {account['duplicated']} / {account['reruns']} | "
                f"{(figures['clean']['p99'] or 0) * 1000:,.0f} / {(figures['stress']['p99'] or 0) * 1000:,.0f} ms | "
                f"{figures['stress']['dead_tuples']:,} | {'; '.join(run.notes) or '—'} |")
    header = ("| scenario | discern | awa | river | oban | pgmq | discern jobs/s clean / stress / recovery | lost / duplicated / run again | "
              "pickup p99 clean / stress | most dead tuples in jobs | what the stress did |\n|---|---|---|---|---|---|---|---|---|---|---|")
    lines = [
        "## Harness (bench/harness)",
        "",
        f"Machine: {machine()}. Run: {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}. The method of the public "
        "PostgreSQL job-queue harness (hardbyte/postgresql-job-queue-benchmarking, docs/method.md; the published columns are "
        "its 2026-05-09 full sweep), in our own code: a producer at a fixed offered rate credited on wall-clock time, "
        f"{REPLICAS} replicas of discern's real worker runtime (concurrency {CONCURRENCY} each, a no-op backend with "
        f"{WORK_MS} ms of synthetic work, LISTEN for new jobs), samples every 5 s. Phases: warm-up {WARMUP:.0f} s, clean "
        f"{CLEAN:.0f} s at {RATE:,.0f} jobs/s, stress, recovery {RECOVERY:.0f} s; then the producer stops, the queue drains "
        "and every job is accounted for.",
        "",
        "Differences from the published method, so the columns are read as shapes, not as a race: one machine with 2 cores "
        f"runs PostgreSQL ({sorted(os.listdir('/usr/lib/postgresql'))[-1]}, fsync off), the producer and every replica; "
        "phases last tens of seconds, not minutes to hours; "
        "PostgreSQL is stopped and started with pg_ctl, not a container; the backend-kill stress terminates *all* of the "
        "workers' connections every 0.5 s; the cluster has max_connections 320, so pool_exhaustion's 300 idle connections "
        f"leave the workers about a dozen slots; the offered rate ({RATE:,.0f} jobs/s) is below what the replicas can do "
        "(event_burst's stress phase measures that), so a ratio says whether the queue keeps up under the stress and "
        "catches up after it, not how fast it is.",
        "",
        "**Chaos**: recovery-phase completion rate over the clean phase's (≥ 100 %: the backlog left by the stress is "
        "caught up).",
        "",
        header,
        *[row(n, r, f, a, f["recovery"]["rate"] / f["clean"]["rate"] if f["clean"]["rate"] else 0) for n, r, f, a in chaos],
        "",
        "**Pressure**: stress-phase completion rate over the clean phase's (sustained_high_load offers 1.5×, event_burst "
        f"{SCENARIOS['event_burst'][1].multiplier:g}×: above what the replicas can do).",
        "",
        header,
        *[row(n, r, f, a, f["stress"]["rate"] / f["clean"]["rate"] if f["clean"]["rate"] else 0) for n, r, f, a in pressure],
        "",
    ]
    if "dead_letter" in outcomes:
        run, f, a = outcomes["dead_letter"]
        bytes_per_row = run.samples[-1]["jobs_bytes"] / max(a["jobs"], 1)
        succeeded_runs = [r.samples[-1]["jobs_bytes"] / max(x["jobs"], 1) for n, (r, _, x) in outcomes.items() if r.kind == "chaos"]
        lines += [f"**Dead letter** (every job fails for good): enqueued {f['clean']['enqueue_rate']:,.0f}/s, dead "
                  f"{f['clean']['dead_rate']:,.0f}/s in the clean phase; {a['dead']:,} of {a['jobs']:,} jobs dead, "
                  f"{a['lost']} lost; most dead tuples in jobs {max(x['dead_tuples'] for x in f.values()):,}; the jobs table "
                  f"(with its indexes) ends at {run.samples[-1]['jobs_bytes'] / 2**20:.1f} MiB, {bytes_per_row:,.0f} bytes a job"
                  + (f" (the chaos runs, whose jobs succeed: {min(succeeded_runs):,.0f}–{max(succeeded_runs):,.0f}; a dead job "
                     "keeps its error and its error history)" if succeeded_runs else "") + ".", ""]
    if "priority" in outcomes:
        run, f, a = outcomes["priority"]
        lines += [f"**Priority** (9 of 10 jobs priority 0, 1 of 10 priority 1): low-priority share of completions "
                  f"{percent(f['clean']['low_share'] or 0)} in the clean phase; under "
                  f"{SCENARIOS['priority'][1].multiplier:g}× overload {f['stress']['low_rate']:,.0f} low-priority jobs/s "
                  f"({percent(f['stress']['low_share'] or 0)} of completions), in recovery {percent(f['recovery']['low_share'] or 0)}; "
                  f"{a['lost']} lost.", ""]
    lines += ["Plots (completion and enqueue rates; queue depth, dead tuples and pickup p99; the stress phase shaded): "
              + ", ".join(f"[{n}](harness/plots/{n}.png)" for n in outcomes) + ".", ""]
    return "\n".join(lines)


def main():
    bench, pg_folder, url = sys.argv[1:4]
    names = sys.argv[4:] or list(SCENARIOS)
    outcomes = {}
    folder = os.path.join(ROOT, "bench", "harness", "plots")
    for name in names:
        run = Run(bench, pg_folder, url, name)
        account = run.execute()
        figures = phase_figures(run)
        print(name, json.dumps({"account": account, "notes": run.notes,
                                "phases": {k: {a: b for a, b in v.items()} for k, v in figures.items()}}, default=str), file=sys.stderr)
        plot(run, figures, folder)
        outcomes[name] = (run, figures, account)
    section = report(outcomes)
    print(section)
    if len(names) == len(SCENARIOS):
        write_section(section, "## Harness")


if __name__ == "__main__":
    main()
