"""bench/peer A/B: two builds of the real worker runtime draining no-op jobs, taking turns on one cluster.

    python3 bench/peer/runtime_ab.py BEFORE-ScaleBench AFTER-ScaleBench URL [JOBS] [ROUNDS]

Each round seeds JOBS no-op jobs and drains them with one `ScaleBench work URL 32` process of
each build (the order flipping each round), each in a database of its own (bench_before,
bench_after) migrated to the schema it was built with. Per drain: jobs/s from exec to exit,
and the CPU the whole machine spent (worker and PostgreSQL together, from /proc/stat) per job.
Writes the "## Runtime A/B" section of bench/RESULTS.md, or the one AB_SECTION names
(bench/peer/tracing_ab.sh).
"""
import os
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "bench", "prepare"))
from run import machine, write_section  # noqa: E402  (bench/prepare's run, before bench/queue's is on the path)
sys.path.append(os.path.join(ROOT, "bench", "queue"))
from ab import database  # noqa: E402


def busy_ticks():
    fields = [int(v) for v in open("/proc/stat").readline().split()[1:]]
    return sum(fields) - fields[3] - fields[4]  # all but idle and iowait


def drain(binary, url, jobs):
    """(jobs/s from exec to exit, machine CPU µs per job)."""
    subprocess.run([binary, "seed", url, str(jobs), "60000000"], check=True, capture_output=True)
    ticks, started = busy_ticks(), time.monotonic()
    out = subprocess.run([binary, "work", url, "32"], check=True, capture_output=True, text=True).stdout
    elapsed, spent = time.monotonic() - started, busy_ticks() - ticks
    if f"succeeded={jobs}" not in out:
        raise SystemExit(f"{binary} did not drain {jobs} jobs: {out}")
    return jobs / elapsed, spent / os.sysconf("SC_CLK_TCK") * 1e6 / jobs


def main():
    before, after, url = sys.argv[1], sys.argv[2], sys.argv[3]
    jobs = int(sys.argv[4]) if len(sys.argv) > 4 else 50000
    rounds = int(sys.argv[5]) if len(sys.argv) > 5 else 3
    urls = {"before": database(url, "bench_before"), "after": database(url, "bench_after")}
    binaries = {"before": before, "after": after}
    rows = []
    for i in range(rounds):
        order = ["before", "after"] if i % 2 == 0 else ["after", "before"]
        figures = {side: drain(binaries[side], urls[side], jobs) for side in order}
        rows.append(figures)
        print(f"round {i + 1}: before {figures['before'][0]:,.0f} jobs/s ({figures['before'][1]:.0f} µs CPU/job), "
              f"after {figures['after'][0]:,.0f} jobs/s ({figures['after'][1]:.0f} µs CPU/job)")
    ratio = statistics.median(r["after"][0] / r["before"][0] for r in rows)
    cpu = statistics.median(r["after"][1] / r["before"][1] for r in rows)
    table = "\n".join(f"| {i + 1} | {r['before'][0]:,.0f} | {r['after'][0]:,.0f} | {r['before'][1]:.0f} | {r['after'][1]:.0f} |"
                      for i, r in enumerate(rows))
    label = os.environ.get("AB_LABEL", "")
    heading = os.environ.get("AB_SECTION", "## Runtime A/B")
    section = f"""{heading} (bench/peer/runtime_ab.py)

{machine()}. Run: {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}. {label}
One `ScaleBench work` process (concurrency 32, the real runtime, a no-op backend) drains {jobs:,}
no-op jobs, each build in a database of its own on one cluster, taking turns ({rounds} rounds, the
order flipping each round). Jobs/s from exec to exit; CPU is the whole machine's (worker and
PostgreSQL) per job.

| round | before jobs/s | after jobs/s | before µs CPU/job | after µs CPU/job |
|---|---|---|---|---|
{table}

Median after / before: **{ratio:.2f}x** the rate, {cpu:.2f}x the CPU per job.

"""
    write_section(section, heading)
    print(section)


if __name__ == "__main__":
    main()
