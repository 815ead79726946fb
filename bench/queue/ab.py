"""bench/queue A/B: two builds' claim + complete throughput, taking turns on one cluster.

    python3 bench/queue/ab.py BEFORE-QueueBench AFTER-QueueBench URL [ROUNDS]

Each round runs both binaries' no-op claim + complete (8 connections, batches of 100, the
result row written), the order flipping each round; the figure is the median of the per-round
ratios after / before. Each binary works in a database of its own in the cluster
(bench_before, bench_after), migrated to the schema it was built with. Writes the "## Queue
A/B" section of bench/RESULTS.md; with AB_TITLE set, a "### AB_TITLE" part of it instead, the
earlier parts kept. AB_SETUP_SQL, run in both databases once they are migrated, sets up a
scenario both builds share, e.g. every job traced:
    AB_SETUP_SQL="ALTER TABLE discern.jobs ALTER COLUMN traceparent SET DEFAULT '00-...-01'"
"""
import os
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "bench", "prepare"))
from run import machine, write_section  # noqa: E402


def clear_roll_up_events(url):
    """Empties the roll-ups' pending tables, which every run's completions append to and nothing in
    these benches folds: left alone they grew to 1.6 GB in bench/queue's cluster over a few runs."""
    subprocess.run(["psql", url, "-qc", """
        DO $$ BEGIN
            IF to_regclass('discern.pending_result_events') IS NOT NULL THEN
                TRUNCATE discern.pending_job_events, discern.pending_result_events, discern.pending_batch_checks;
            END IF;
        END $$;"""], check=True, capture_output=True)


def throughput(binary, url, jobs=None):
    """QueueBench's no-op claim + complete, 8 connections, jobs/s (`jobs`: its default unless given)."""
    clear_roll_up_events(url)
    count = ["--jobs", str(jobs)] if jobs else []
    out = subprocess.run([binary, url, "--workers", "8", *count, "--throughput-only"], check=True, capture_output=True, text=True).stdout
    return float(out.split("=", 1)[1])


def database(url, name):
    """`url`'s cluster, database `name`, created empty."""
    subprocess.run(["psql", url, "-qc", f"DROP DATABASE IF EXISTS {name} WITH (FORCE)", "-c", f"CREATE DATABASE {name}"],
                   check=True, capture_output=True)
    base, _, _ = url.rpartition("/")
    return f"{base}/{name}"


def write_part(part, title):
    """`part` as the "### `title`" part of the Queue A/B section: replacing one of that title, else
    at the section's end."""
    path = os.path.join(ROOT, "bench", "RESULTS.md")
    text = open(path).read()
    heading = f"### {title}\n"
    start = text.find(heading)
    if start < 0:
        section = text.find("## Queue A/B")
        start = text.find("\n## ", section + 1) + 1 if section >= 0 and text.find("\n## ", section + 1) >= 0 else len(text)
        end = start
    else:
        ends = [i for i in (text.find("\n### ", start + 1), text.find("\n## ", start + 1)) if i >= 0]
        end = min(ends) + 1 if ends else len(text)
    open(path, "w").write(text[:start] + part.rstrip("\n") + "\n\n" + text[end:])


def main():
    before, after, url = sys.argv[1], sys.argv[2], sys.argv[3]
    rounds = int(sys.argv[4]) if len(sys.argv) > 4 else 5
    urls = {"before": database(url, "bench_before"), "after": database(url, "bench_after")}
    setup, title = os.environ.get("AB_SETUP_SQL"), os.environ.get("AB_TITLE")
    if setup:
        for side, binary in (("before", before), ("after", after)):
            throughput(binary, urls[side], 1000)  # migrates its database
            subprocess.run(["psql", urls[side], "-qXc", setup], check=True, capture_output=True)
    pairs = []
    for index in range(rounds):
        order = [("before", before), ("after", after)] if index % 2 == 0 else [("after", after), ("before", before)]
        figures = {side: throughput(binary, urls[side]) for side, binary in order}
        pairs.append((figures["before"], figures["after"]))
        print(f"round {index + 1}: before {figures['before']:,.0f}, after {figures['after']:,.0f} jobs/s", file=sys.stderr)
    ratios = [a / b for b, a in pairs]
    lines = [
        f"### {title}" if title else "## Queue A/B (bench/queue/ab.py)",
        "",
        f"Machine: {machine()}. Run: {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}. discern's no-op claim + complete "
        f"(8 connections, batches of 100, result rows written), two builds taking turns, {rounds} rounds, order flipped each round."
        + (f" Set up in both databases: `{setup}`." if setup else ""),
        "",
        "| round | before jobs/s | after jobs/s | after / before |",
        "|---|---|---|---|",
        *[f"| {i + 1} | {b:,.0f} | {a:,.0f} | {a / b:.2f} |" for i, (b, a) in enumerate(pairs)],
        "",
        f"- Median ratio after / before: **{statistics.median(ratios):.2f}**.",
        "",
    ]
    report = "\n".join(lines)
    print(report)
    if title:
        write_part(report, title)
    else:
        write_section(report, "## Queue A/B")


if __name__ == "__main__":
    main()
