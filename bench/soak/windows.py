"""p50 / p99 from enqueue to result per 10 minutes of enqueue time, from a soak's own tables:
the phase figures average a whole phase, and this says whether a phase's excess sits in a few
minutes (a compile beside the run, a backlog) or all through it.

    python3 bench/soak/windows.py URL      (the cluster run.sh leaves in bench/.data/soak-pg)
"""
import sys

import psycopg


def ten_minute_table(connection):
    rows = connection.execute("""
        SELECT to_char(date_trunc('hour', j.created_at) + floor(extract(minute FROM j.created_at) / 10) * interval '10 min', 'HH24:MI'),
               percentile_cont(ARRAY[0.5, 0.99]) WITHIN GROUP (ORDER BY extract(epoch FROM r.created_at - j.created_at))
        FROM discern.results r JOIN discern.jobs j ON j.id = r.job_id
        GROUP BY 1 ORDER BY min(j.created_at)""").fetchall()
    if not rows:
        return "(no results to split)"
    header = "| " + " | ".join(window for window, _ in rows) + " |"
    rule = "|" + "---|" * len(rows)
    cells = "| " + " | ".join(f"{seconds(p50)} / {seconds(p99)}" for _, (p50, p99) in rows) + " |"
    return ("p50 / p99 (s) per 10 minutes of enqueue time, from the same run's tables (jobs.created_at to results.created_at):\n\n"
            + "\n".join([header, rule, cells]))


def seconds(value):
    """Three significant figures at most: 0.50, 10.0, 273."""
    return f"{value:.2f}" if value < 10 else f"{value:.1f}" if value < 100 else f"{value:.0f}"


if __name__ == "__main__":
    with psycopg.connect(sys.argv[1]) as connection:
        print(ten_minute_table(connection))
