"""The "## Field harness" section of bench/RESULTS.md, from the harness's own summary.json of
every recorded cell (bench/.data/field-harness/index.tsv) and discern's exact accounting."""
import json
import os

QUIET = ("warmup", "clean", "recovery")


def figure(value, digits=0):
    if value is None:
        return "—"
    return f"{value:,.{digits}f}"


def percent(part, whole):
    if part is None or not whole:
        return "—"
    return f"{100 * part / whole:.0f} %"


def load(run_dir):
    try:
        return json.load(open(os.path.join(run_dir, "summary.json")))
    except (OSError, ValueError):
        return None


def phase_block(summary, system, label):
    return ((summary or {}).get("systems", {}).get(system, {}).get("phases", {}) or {}).get(label, {})


def stress_block(summary, system):
    """The first phase that does something to the system (a kill, a restart, a pinned xmin...)."""
    for phase in (summary or {}).get("phases", []):
        if phase["type"] not in QUIET:
            return phase_block(summary, system, phase["label"])
    return {}


def outcome(entry):
    code = entry["code"]
    return "finished" if code == 0 else ("timed out" if code == 137 else f"failed (exit {code})")


def accounting(system, numbers):
    if not numbers:
        return "—"
    if "error" in numbers:
        return "could not read: " + numbers["error"]
    if system == "discern":
        return (f"{numbers['jobs']:,} jobs: {numbers['succeeded']:,} succeeded, {numbers['dead']} dead, "
                f"{numbers['unfinished']} unfinished, {numbers['doubled']} doubled, {numbers['ran_again']} ran again")
    return ", ".join(f"{count:,} {state}" for state, count in sorted(numbers.items()))


def coverage(recorded, cells, systems):
    """When the recorded cells ran, and which cell and system pairs have not run yet."""
    if not recorded:
        return []
    started = min(entry["started"] for entry in recorded.values()).replace("T", " ").rstrip("Z")
    ended = max(entry["ended"] for entry in recorded.values()).replace("T", " ").rstrip("Z")
    missing = [f"{name} ({system})" for name in cells for system in systems if (name, system) not in recorded]
    lines = [f"Cells recorded between {started} and {ended} UTC, one system at a time, over several sittings "
             "(run.sh skips a recorded cell)."]
    if missing:
        lines.append(f"**Partial**: not run yet: {', '.join(missing)}.")
    return lines + [""]


def section(recorded, cells, machine, systems=("discern", "procrastinate", "absurd")):
    lines = ["## Field harness", "",
             "discern beside the peers that install on this machine, through the field's public harness",
             "(hardbyte/postgresql-job-queue-benchmarking, run unmodified from its checkout by",
             "bench/field-harness/drive.py: a private PostgreSQL 15 instead of its Docker one, adapters",
             "launched natively). discern's adapter is bench/field-harness/adapter.py: the real worker runtime",
             "(bench/scale's ScaleBench `serve`) with a no-op backend that sleeps JOB_WORK_MS (1 ms), jobs in",
             "through `discern.enqueue_many`. Cells are the sweep's (scripts/run_full_sweep.sh), rates and",
             "lengths scaled to 2 cores (bench/field-harness/run.py). Figures are the harness's summary.json:",
             "medians over each phase; \"lost\" is its estimate from rates; the last column is discern's own",
             "count after one more worker drained the queue (peers: their jobs by state as left).",
             "",
             "The harness's own published sweep (results/2026-05-09-full-sweep/SUMMARY.md in its repository,",
             "Docker, larger machine) reads recovery / baseline for postgres_restart and pg_backend_kill as 0 %",
             "for both procrastinate and absurd: a peer that stops here after a restart does so there too.",
             "\"Timed out\": the cell's time limit (run.py) passed before the harness ended the run.",
             "", f"Machine: {machine}", ""] + coverage(recorded, cells, systems)
    for kind in ("throughput", "chaos", "pressure", "soak"):
        names = [name for name, (cell_kind, _, _) in cells.items() if cell_kind == kind]
        rows = [(name, system, entry) for (name, system), entry in recorded.items() if name in names]
        if not rows:
            continue
        lines += [f"### {kind.capitalize()}", ""]
        if kind == "chaos":
            lines += ["| cell | system | outcome | baseline /s | during /s | recovery /s | recovery / baseline | back in | lost (est.) | counted |",
                      "|---|---|---|---:|---:|---:|---:|---:|---:|---|"]
        elif kind == "pressure":
            lines += ["| cell | system | outcome | clean /s | under stress /s | stress / clean | recovery /s | claim p99 clean → stress | peak dead tuples | counted |",
                      "|---|---|---|---:|---:|---:|---:|---|---:|---|"]
        else:
            lines += ["| cell | system | outcome | completed /s | enqueued /s | claim p99 | end-to-end p99 | peak dead tuples | counted |",
                      "|---|---|---|---:|---:|---:|---:|---:|---|"]
        for name, system, entry in sorted(rows, key=lambda row: (names.index(row[0]), row[1] != "discern", row[1])):
            summary = load(entry["run_dir"])
            counted = accounting(system, entry["accounting"])
            if kind == "chaos":
                baseline, recovery = phase_block(summary, system, "baseline"), phase_block(summary, system, "recovery")
                during = stress_block(summary, system).get("median_throughput_per_s")
                lines.append(f"| {name} | {system} | {outcome(entry)} | {figure(baseline.get('median_throughput_per_s'))} | {figure(during)} | "
                             f"{figure(recovery.get('median_throughput_per_s'))} | "
                             f"{percent(recovery.get('median_throughput_per_s'), baseline.get('median_throughput_per_s'))} | "
                             f"{figure(recovery.get('chaos_recovery_time_s'))} s | {figure(recovery.get('jobs_lost'))} | {counted} |")
            elif kind == "pressure":
                clean, recovery = phase_block(summary, system, "clean_1"), phase_block(summary, system, "recovery_1")
                stress = stress_block(summary, system)
                lines.append(f"| {name} | {system} | {outcome(entry)} | {figure(clean.get('median_throughput_per_s'))} | "
                             f"{figure(stress.get('median_throughput_per_s'))} | "
                             f"{percent(stress.get('median_throughput_per_s'), clean.get('median_throughput_per_s'))} | "
                             f"{figure(recovery.get('median_throughput_per_s'))} | {figure(clean.get('median_claim_p99_ms'), 1)} → "
                             f"{figure(stress.get('median_claim_p99_ms'), 1)} ms | {figure(stress.get('peak_dead_tup'))} | {counted} |")
            else:
                label = "clean" if kind == "throughput" else "clean_1"
                block = phase_block(summary, system, label)
                lines.append(f"| {name} | {system} | {outcome(entry)} | {figure(block.get('median_throughput_per_s'))} | "
                             f"{figure(block.get('median_enqueue_rate_per_s'))} | {figure(block.get('median_claim_p99_ms'), 1)} ms | "
                             f"{figure(block.get('median_end_to_end_p99_ms'), 1)} ms | {figure(block.get('peak_dead_tup'))} | {counted} |")
        lines.append("")
    return "\n".join(lines) + "\n"
