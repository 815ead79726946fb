"""Photos from a bucket beside the same photos from local disk (bench/bucket/run.sh): images/s,
CPU per image and peak RSS of `discern work --drain` at its defaults, per side, alternating in
one run; and the peer's way (sync the bucket to a folder with the AWS CLI, then drain the
folder), its sync time included. Not a test."""
import importlib.util
import os
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
DATA = os.path.join(ROOT, "bench", ".data", "bucket")
DISCERN = os.path.join(ROOT, ".build", "release", "discern")
RESULTS = os.environ.get("BENCH_RESULTS", os.path.join(ROOT, "bench", "RESULTS.md"))
HEADING = "## Photos from a bucket (bench/bucket)"
IMAGES, ROUNDS, ANALYZE_SECONDS = int(os.environ.get("BUCKET_IMAGES", "60")), int(os.environ.get("BUCKET_ROUNDS", "3")), 0.3
# bench/runtime's simulator and timing, shared.
_spec = importlib.util.spec_from_file_location("runtime_bench", os.path.join(ROOT, "bench", "runtime", "run.py"))
RUNTIME = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(RUNTIME)


def run(command, **kwargs):
    return subprocess.run(command, check=True, capture_output=True, text=True, **kwargs)


def base_env():
    return {k: v for k, v in os.environ.items() if not k.startswith(("DISCERN_", "VIPS_", "AWS_"))}


def niced(pid):
    subprocess.run(["renice", "-n", "19", "-p", str(pid)], capture_output=True)


def postgres():
    folder = os.path.join(DATA, "pg")
    url = run(["bash", os.path.join(ROOT, "scripts", "postgres.sh"), "start", folder]).stdout.strip()
    with open(os.path.join(folder, "data", "postmaster.pid")) as handle:
        niced(handle.readline().strip())
    return url


def seaweed():
    folder = os.path.join(DATA, "s3")
    run(["bash", os.path.join(ROOT, "scripts", "seaweed.sh"), "stop", folder])
    endpoint, key, secret = run(["bash", os.path.join(ROOT, "scripts", "seaweed.sh"), "start", folder]).stdout.split()[-3:]
    niced(open(os.path.join(folder, "pid")).read().strip())
    return folder, endpoint, key, secret


def simulator():
    return RUNTIME.simulator(ANALYZE_SECONDS, os.path.join(DATA, "simulator.url"))


def one_run(side, server, service, store, photos):
    endpoint, key, secret = store
    run(["psql", server, "-qc", "DROP DATABASE IF EXISTS bench_bucket"])
    run(["psql", server, "-qc", "CREATE DATABASE bench_bucket"])
    url = server.rsplit("/", 1)[0] + "/bench_bucket"
    env = dict(base_env(), DISCERN_DATABASE_URL=url, DISCERN_DISCERNER_URL=service)
    sync_seconds = 0.0
    if side == "bucket":
        env.update(AWS_ACCESS_KEY_ID=key, AWS_SECRET_ACCESS_KEY=secret, AWS_REGION="us-east-1", AWS_ENDPOINT_URL_S3=endpoint,
                   DISCERN_PATH_ROOTS="s3://bench/photos/")
        source = "s3://bench/photos/"
    elif side == "sync + local":
        source = os.path.join(DATA, "synced")
        run(["rm", "-rf", source])
        started = time.monotonic()
        run([sys.executable, "-m", "awscli", "s3", "sync", "s3://bench/photos/", source, "--endpoint-url", endpoint, "--only-show-errors"],
            env=dict(base_env(), AWS_ACCESS_KEY_ID=key, AWS_SECRET_ACCESS_KEY=secret, AWS_DEFAULT_REGION="us-east-1"))
        sync_seconds = time.monotonic() - started
        env.update(DISCERN_PATH_ROOTS=source)
    else:
        source = photos
        env.update(DISCERN_PATH_ROOTS=photos)
    run([DISCERN, "migrate"], env=env)
    run(["psql", url, "-qc", "UPDATE discern.rate_limits SET per_minute = 1000000, burst = 10000"])
    run([DISCERN, "enqueue", source, "--batch", "bench"], env=env)
    seconds, peak, cpu, _ = RUNTIME.timed([DISCERN, "work", "--drain", "--log-level", "warning"], env)
    done = int(run(["psql", url, "-tAc", "SELECT count(*) FROM discern.jobs WHERE state = 'succeeded'"]).stdout)
    total = seconds + sync_seconds
    figures = {"side": side, "seconds": total, "sync_seconds": sync_seconds, "rate": done / total, "succeeded": done,
               "cpu_per_image": cpu / max(done, 1), "peak_mib": peak / 1024}
    print(f"  {side:13} {figures['rate']:6.2f} images/s  {total:6.1f} s (sync {sync_seconds:.1f} s)  {done}/{IMAGES}  "
          f"{figures['cpu_per_image']:.3f} CPU s/image  {figures['peak_mib']:.0f} MiB", flush=True)
    return figures


def main():
    if not os.access(DISCERN, os.X_OK):
        raise SystemExit(f"missing {DISCERN} (bash bench/bucket/run.sh builds it)")
    os.makedirs(DATA, exist_ok=True)
    photos = os.path.join(DATA, "photos")
    if len([n for n in os.listdir(photos) if n.endswith(".jpg")] if os.path.isdir(photos) else []) != IMAGES:
        run(["rm", "-rf", photos])
        run([DISCERN, "samples", photos, "--count", str(IMAGES), "--size", "4000x3000", "--grain", "6"])
    mean_mb = statistics.mean(os.path.getsize(os.path.join(photos, n)) for n in os.listdir(photos)) / 1e6
    server = postgres()
    s3_folder, endpoint, key, secret = seaweed()
    tool = [sys.executable, os.path.join(ROOT, "scripts", "s3_tool.py"), "--endpoint", endpoint, "--key", key, "--secret", secret]
    run(tool + ["mkbucket", "bench"])
    run(tool + ["put", "bench", "photos/"] + sorted(os.path.join(photos, n) for n in os.listdir(photos)))
    sim, service = simulator()
    sides, results = ["local", "bucket", "sync + local"], []
    try:
        for round_number in range(ROUNDS):
            order = sides[round_number % 3:] + sides[:round_number % 3]
            print(f"round {round_number + 1}: {', '.join(order)}", flush=True)
            results.append({side: one_run(side, server, service, (endpoint, key, secret), photos) for side in order})
    finally:
        sim.kill()
        run(["bash", os.path.join(ROOT, "scripts", "seaweed.sh"), "stop", s3_folder])
    median = {side: {k: statistics.median(r[side][k] for r in results) for k in ("rate", "cpu_per_image", "peak_mib", "sync_seconds")}
              for side in sides}
    ratio = statistics.median(r["bucket"]["rate"] / r["local"]["rate"] for r in results)
    peer = statistics.median(r["bucket"]["rate"] / r["sync + local"]["rate"] for r in results)
    rows = "\n".join(f"| {side} | {median[side]['rate']:.2f} | {median[side]['cpu_per_image']:.3f} | {median[side]['peak_mib']:.0f} |"
                     + (f" {median[side]['sync_seconds']:.1f} |" if side == "sync + local" else " - |") for side in sides)
    machine = f"{os.cpu_count()} cores, {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}"
    text = f"""{HEADING}

`bash bench/bucket/run.sh` ({machine}): {IMAGES} photo-like 12 MP JPEGs (mean {mean_mb:.1f} MB) drained by one
`discern work --drain` at its defaults against the simulator answering each analyze after {ANALYZE_SECONDS:g} s, {ROUNDS} rounds,
the sides taking turns in each: from a folder; from a SeaweedFS bucket on this machine with SigV4 enforced (one GET per
photo, streamed into an unnamed temporary file); and the peer's way, `aws s3 sync` of the bucket to a folder, then the
folder (sync time counted). Medians per side:

| side | images/s | CPU s per image (worker) | peak RSS MiB | sync s |
|---|---|---|---|---|
{rows}

From the bucket, discern reaches **{ratio:.0%} of the images/s from local disk** (median of the rounds' ratios), and
**{peer:.2f}x the sync-then-drain peer**. The store is on the same 2 cores (niced), as PostgreSQL and the simulator are.
"""
    body = open(RESULTS).read()
    start = body.find(HEADING)
    if start >= 0:
        end = body.find("\n## ", start + 1)
        body = body[:start] + text + (body[end + 1:] if end >= 0 else "")
    else:
        body = body.rstrip() + "\n\n" + text
    open(RESULTS, "w").write(body)
    print(text)


if __name__ == "__main__":
    main()
