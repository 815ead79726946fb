"""Where the machine's CPU went during a soak phase, to tell a slower discern from a busier machine
(p99 once rose 30 % between two clean phases and nothing said whether the worker, PostgreSQL or
the shared machine's neighbours had changed).

Every sample reads cumulative CPU seconds from /proc: the worker, the PostgreSQL cluster (its
postmaster, the children it reaped and the children alive), the simulator, this script, and the
whole machine (busy and steal, /proc/stat). A phase's figure is the difference between its first
and last sample: the worker's and PostgreSQL's CPU per result say whether discern got dearer;
`others` (the machine's busy time less all of ours, in cores) and the speed probe say whether the
machine did. The probe times a fixed piece of pure-Python work on this thread's CPU clock: it takes
longer when the core runs slower (a sibling hyperthread busy, a lower clock), whoever is to blame.
"""
import os
import time

TICK = os.sysconf("SC_CLK_TCK")


def _stat_fields(pid):
    """utime, stime, cutime, cstime in seconds, and the parent's pid; None once the process is gone."""
    try:
        text = open(f"/proc/{pid}/stat").read()
    except OSError:
        return None
    fields = text[text.rindex(")") + 2:].split()  # the name may hold spaces; what follows ")" does not
    return [int(value) / TICK for value in fields[11:15]], int(fields[1])


def process_seconds(pid, reaped=False):
    """A process's CPU seconds, and its reaped children's when `reaped`."""
    stat = _stat_fields(pid) if pid else None
    if stat is None:
        return None
    utime, stime, cutime, cstime = stat[0]
    return utime + stime + (cutime + cstime if reaped else 0)


def cluster_seconds(postmaster):
    """A PostgreSQL cluster's CPU seconds: the postmaster with the backends it reaped, plus every
    child still alive (backends, autovacuum, the checkpointer...)."""
    total = process_seconds(postmaster, reaped=True)
    if total is None:
        return None
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            stat = _stat_fields(entry)
            if stat is not None and stat[1] == postmaster:
                total += sum(stat[0][:2])
    return total


def machine_seconds():
    """The machine's busy and stolen CPU seconds, all cores together."""
    values = [int(v) / TICK for v in open("/proc/stat").readline().split()[1:]]
    user, nice, system, idle, iowait, irq, softirq, steal = (values + [0] * 8)[:8]
    return user + nice + system + irq + softirq + steal, steal


def memory_kb(pid):
    """The process's resident memory split as the kernel counts it: anonymous (the heap) and file
    (mapped libraries): a heap that grows and a library mapped in are different findings."""
    found = {}
    try:
        for line in open(f"/proc/{pid}/status"):
            key = line.split(":", 1)[0]
            if key in ("VmRSS", "RssAnon", "RssFile"):
                found[key] = int(line.split()[1])
    except OSError:
        return {}
    return found


def speed_probe_ms():
    """This thread's CPU milliseconds for a fixed 200,000-step loop (about 10 ms on an idle core)."""
    start = time.thread_time()
    total = 0
    for step in range(200_000):
        total += step & 7
    return (time.thread_time() - start) * 1000


class CPUAccount:
    """Reads every figure at once; `sample()` returns them for the sampler's row."""

    def __init__(self, worker, simulator, postmaster):
        self.worker, self.simulator, self.postmaster = worker, simulator, postmaster

    def sample(self):
        busy, steal = machine_seconds()
        simulator = self.simulator()
        return {"cpu_worker": process_seconds(self.worker.pid), "cpu_postgres": cluster_seconds(self.postmaster),
                "cpu_simulator": process_seconds(simulator.pid) if simulator else None,
                "cpu_soak": process_seconds(os.getpid()), "cpu_busy": busy, "cpu_steal": steal,
                "probe_ms": speed_probe_ms(), **{k.lower(): v for k, v in memory_kb(self.worker.pid).items()}}


def phase_figures(samples, results):
    """CPU per result and the machine's other load over one phase's samples. The simulator is
    restarted in the outage, so its seconds are summed over intervals where its counter grew."""
    if len(samples) < 2:
        return {}
    first, last = samples[0], samples[-1]
    seconds = last["at"] - first["at"]

    def spent(key):
        values = [s.get(key) for s in samples]
        return sum(b - a for a, b in zip(values, values[1:]) if a is not None and b is not None and b >= a)

    ours = sum(spent(key) for key in ("cpu_worker", "cpu_postgres", "cpu_simulator", "cpu_soak"))
    probes = sorted(s["probe_ms"] for s in samples if s.get("probe_ms") is not None)
    per_result = (lambda key: spent(key) / results * 1000 if results else None)
    return {
        "worker_ms_per_result": per_result("cpu_worker"), "postgres_ms_per_result": per_result("cpu_postgres"),
        "simulator_ms_per_result": per_result("cpu_simulator"),
        "others_cores": (spent("cpu_busy") - ours) / seconds if seconds > 0 else None,
        "steal_cores": spent("cpu_steal") / seconds if seconds > 0 else None,
        "probe_ms": probes[len(probes) // 2] if probes else None,
        "rss_anon_mb": _mean(samples, "rssanon"), "rss_file_mb": _mean(samples, "rssfile"),
    }


def _mean(samples, key):
    values = [s[key] for s in samples if s.get(key)]
    return sum(values) / len(values) / 1024 if values else None
