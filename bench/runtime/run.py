"""End-to-end worker benchmark: `discern work --drain` at its defaults beside the strongest peer a
competent user would write, a short pyvips pipeline (pyvips_pipeline.py: pyvips + requests +
psycopg, 8 threads), on two generated photo sets (photos.py: "grain" and "camera", 12 to 48 MP,
JPEG and PNG, half already within Image Discerner's budget), against one simulator answering each
analyze after 0.3 s, on one PostgreSQL: R rounds per set, a fresh database per run, the order
flipped every round. Beside them the floor (one decode and one encode per image with pyvips, one
thread: cores / its CPU per image is the images/s ceiling) and a slow service (16 pass-through
photos, each analyze after 3 s): how many calls discern keeps in flight.

    python3 bench/runtime/run.py [--quick]

BENCH_IMAGES (120 per set; 24 with --quick), BENCH_ROUNDS (3; 1 with --quick), BENCH_SETS
(grain,camera), DISCERN_BIN (.build/release/discern), BENCH_RESULTS (bench/RESULTS.md: the
file whose runtime section is replaced). Needs bench/.venv (run.sh makes it).
"""
import json
import os
import platform
import shutil
import statistics
import subprocess
import sys
import time
import urllib.request

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
DATA = os.path.join(ROOT, "bench", ".data")
VENV_PYTHON = os.path.join(ROOT, "bench", ".venv", "bin", "python")
# pyvips on Debian's libvips 8.14 (run.sh makes it): the floor with the libraries discern links.
DEBIAN_PYTHON = os.path.join(ROOT, "bench", ".venv-debian", "bin", "python")
DISCERN = os.environ.get("DISCERN_BIN", os.path.join(ROOT, ".build", "release", "discern"))
QUICK = "--quick" in sys.argv[1:] or os.environ.get("BENCH_QUICK") == "1"
IMAGES = int(os.environ.get("BENCH_IMAGES", "24" if QUICK else "120"))
ROUNDS = int(os.environ.get("BENCH_ROUNDS", "1" if QUICK else "3"))
SETS = os.environ.get("BENCH_SETS", "grain,camera").split(",")
RESULTS = os.environ.get("BENCH_RESULTS", os.path.join(ROOT, "bench", "RESULTS.md"))
# The stand-in Image Discerner answers each analyze after ANALYZE_SECONDS, standing in for the service's
# own time (upload-url and the PUT answer at once); the slow service after SLOW_ANALYZE_SECONDS.
ANALYZE_SECONDS, SLOW_ANALYZE_SECONDS, SLOW_IMAGES, THREADS = 0.3, 3.0, 16, 8
# The pyvips pipeline again on Debian's libraries (DEBIAN_PYTHON), when run.sh made that venv: the
# comparison on equal libraries: discern's CPU above what its libraries cost.
SAME_LIBRARIES = "pyvips-debian"
HEADINGS = ("## Worker runtime beside a pyvips pipeline (bench/runtime)", "## Worker runtime, end to end (bench/runtime)")
KINDS = [("pass", "12 MP JPEG, passes through"), ("rotated", "12 MP JPEG, EXIF orientation 6"),
         ("p24", "24 MP JPEG"), ("p48", "48 MP JPEG"), ("png-alpha", "12 MP PNG with alpha")]


def run(command, **kwargs):
    return subprocess.run(command, check=True, capture_output=True, text=True, **kwargs)


def base_env():
    """The environment without discern's or libvips' tuning: both pipelines at their defaults."""
    return {k: v for k, v in os.environ.items() if not k.startswith(("DISCERN_", "VIPS_"))}


def postgres(folder):
    url = run(["bash", os.path.join(ROOT, "scripts", "postgres.sh"), "start", folder]).stdout.strip()
    # The services and their database stand in for other machines: niced, they take only the CPU
    # the pipeline under test leaves idle. Backends forked later inherit the postmaster's niceness.
    with open(os.path.join(folder, "data", "postmaster.pid")) as handle:
        subprocess.run(["renice", "-n", "19", "-p", handle.readline().strip()], capture_output=True)
    return url


def simulator(analyze_seconds, url_file):
    if os.path.exists(url_file):
        os.remove(url_file)
    process = subprocess.Popen(["nice", "-n", "19", DISCERN, "simulate", "--port", "0", "--url-file", url_file,
                                "--analyze-seconds", str(analyze_seconds), "--no-throughput-limits", "--log-level", "warning"],
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    for _ in range(600):
        if os.path.exists(url_file) and open(url_file).read().strip():
            return process, open(url_file).read().strip()
        time.sleep(0.1)
    process.kill()
    raise RuntimeError("the simulator did not start")


def cpu_seconds_of(pid):
    with open(f"/proc/{pid}/stat") as handle:
        fields = handle.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def fresh_database(server, folder, service):
    run(["psql", server, "-qc", "DROP DATABASE IF EXISTS bench_runtime"])
    run(["psql", server, "-qc", "CREATE DATABASE bench_runtime"])
    url = server.rsplit("/", 1)[0] + "/bench_runtime"
    env = dict(base_env(), DISCERN_DATABASE_URL=url, DISCERN_PATH_ROOTS=DATA, DISCERN_DISCERNER_URL=service)
    run([DISCERN, "migrate"], env=env)
    # The contract's rate limits (48 analyses a minute) are not what is measured here.
    run(["psql", url, "-qc", "UPDATE discern.rate_limits SET per_minute = 1000000, burst = 10000"])
    # The sets repeat 16 distinct images: content dedupe would keep 16 jobs.
    run([DISCERN, "enqueue", folder, "--batch", "bench", "--no-dedupe"], env=env)
    return url, env


def timed(command, env):
    started = time.monotonic()
    result = subprocess.run(["/usr/bin/time", "-f", "%M %U %S"] + command, capture_output=True, text=True, env=env)
    elapsed = time.monotonic() - started
    if result.returncode != 0:
        raise RuntimeError(f"{command[0]} failed ({result.returncode}): {result.stderr[-3000:]}")
    peak, user, system = result.stderr.strip().splitlines()[-1].split()
    return elapsed, int(peak), float(user) + float(system), result.stderr


def outcome(url):
    """Jobs by state, failed attempts by kind, and what was sent."""
    query = """SELECT (SELECT coalesce(json_object_agg(state, n), '{}') FROM (SELECT state, count(*) n FROM discern.jobs GROUP BY state) s),
                      (SELECT coalesce(json_object_agg(kind, n), '{}') FROM (SELECT e->>'kind' kind, count(*) n
                           FROM discern.jobs, jsonb_array_elements(error_history) e GROUP BY 1) f),
                      (SELECT json_build_object('passed', count(*) FILTER (WHERE passed_through), 'sent_bytes', avg(sent_bytes))
                       FROM discern.results)"""
    states, failures, sent = (json.loads(v) for v in run(["psql", url, "-tAF", "\t", "-c", query]).stdout.strip().split("\t"))
    return states, failures, sent


def one_run(name, server, folder, service, sim_pid, images):
    url, env = fresh_database(server, folder, service)
    if name == "discern":
        command = [DISCERN, "work", "--drain", "--log-level", "warning"]
    else:
        python = DEBIAN_PYTHON if name == SAME_LIBRARIES else VENV_PYTHON
        command = [python, os.path.join(HERE, "pyvips_pipeline.py"), url, service, "--threads", str(THREADS)]
    before = cpu_seconds_of(sim_pid)
    seconds, peak, cpu, stderr = timed(command, env)
    states, failures, sent = outcome(url)
    done = states.get("succeeded", 0)
    figures = {"pipeline": name, "seconds": seconds, "rate": done / seconds, "succeeded": done, "images": images,
               "cpu_per_image": cpu / max(done, 1), "peak_mib": peak / 1024, "sim_cpu": cpu_seconds_of(sim_pid) - before,
               "states": states, "failures": failures, "passed": sent["passed"], "sent_bytes": sent["sent_bytes"] or 0,
               "log": [line for line in stderr.strip().splitlines()[:-1] if line.strip()][-5:]}
    print(f"  {name:8} {figures['rate']:6.2f} images/s  {seconds:6.1f} s  {done}/{images}  "
          f"{figures['cpu_per_image']:.3f} CPU s/image  {figures['peak_mib']:.0f} MiB  states {states} failures {failures}",
          flush=True)
    return figures


def slow_service(server, folder):
    """16 pass-through photos against a simulator answering each analyze after 3 s, discern defaults."""
    slow = os.path.join(DATA, "runtime-slow")
    shutil.rmtree(slow, ignore_errors=True)
    os.makedirs(slow)
    unique = sorted(n for n in os.listdir(os.path.join(folder, "unique")) if n.startswith("pass-"))
    passing = [f"pass-{n:02d}.jpg" for n in range(SLOW_IMAGES)]
    for number, name in enumerate(passing):
        os.link(os.path.join(folder, "unique", unique[number % len(unique)]), os.path.join(slow, name))
    process, service = simulator(SLOW_ANALYZE_SECONDS, os.path.join(DATA, "sim-slow.url"))
    try:
        url, env = fresh_database(server, slow, service)
        seconds, peak, cpu, _ = timed([DISCERN, "work", "--drain", "--log-level", "warning"], env)
        states, failures, _ = outcome(url)
        routes = json.load(urllib.request.urlopen(service + "/_sim/stats"))["routes"]
    finally:
        process.terminate()
        process.wait()
    calls = routes.get("discerner.analyze", {}).get("calls", 0)
    return {"images": len(passing), "seconds": seconds, "succeeded": states.get("succeeded", 0), "calls": calls,
            "in_flight": calls * SLOW_ANALYZE_SECONDS / seconds, "peak_mib": peak / 1024, "failures": failures}


def median_ratio(rounds, key):
    return statistics.median(r["discern"][key] / r["pyvips"][key] for r in rounds if r["pyvips"][key])


def describe_set(manifest):
    cells = [f"{manifest['makeup'][k]['files']} ({manifest['makeup'][k]['distinct']} distinct, "
             f"{manifest['makeup'][k]['mean_bytes'] / 1e6:.1f} MB)" for k, _ in KINDS]
    return f"| {manifest['set']} | {manifest['images']} | " + " | ".join(cells) + f" | {manifest['mean_bytes'] / 1e6:.1f} MB |"


def section(versions, manifests, floors, results, slow, cores, debian_floors=None):
    cpu = next((l.split(":", 1)[1].strip() for l in open("/proc/cpuinfo") if l.startswith("model name")), "unknown")
    commit = subprocess.run(["git", "-C", ROOT, "rev-parse", "--short", "HEAD"], capture_output=True, text=True).stdout.strip()
    dirty = subprocess.run(["git", "-C", ROOT, "status", "--porcelain", "--untracked-files=no", "Sources"],
                           capture_output=True, text=True).stdout.strip()
    lines = [
        HEADINGS[0], "",
        f"Machine: {cores} cores ({cpu}), {platform.platform()}; discern {commit}{' with uncommitted changes' if dirty else ''} "
        f"({os.path.relpath(DISCERN, ROOT)}); pyvips {versions['pyvips']} with libvips {versions['libvips']} (pip's pyvips-binary). "
        f"Run: {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}.",
        f"Simulator: each analyze answers after {ANALYZE_SECONDS:g} s (upload-url and the S3 PUT at once); rate "
        "limits lifted. PostgreSQL and the simulator run niced (19) on the same cores, standing in for other machines. "
        f"Each run on a fresh database. discern: `work --drain` at its defaults (no flags, no DISCERN_* tuning). pyvips: "
        f"bench/runtime/pyvips_pipeline.py, {THREADS} threads, the same policy (7,800,000 bytes, 4096 px, 1600 px floor). "
        f"{ROUNDS} round(s) per set, the order flipped every round.",
        "",
        "Sets (bench/runtime/photos.py, pyvips, fixed seeds; distinct images repeated by hard links). grain: smooth "
        "Perlin fields under Gaussian grain (sigma 6); camera: sky-like gradients, flat shapes with hard edges "
        "(buildings, windows, vehicles, plates, a sign of text-like blocks), textured ground, sensor noise (sigma 2.5), "
        "slightly blurred. JPEGs at q90.",
        "",
        "| set | files | " + " | ".join(label for _, label in KINDS) + " | mean file |",
        "|---" * (len(KINDS) + 3) + "|",
    ] + [describe_set(m) for m in manifests] + [""]
    for manifest in manifests:
        name, rounds, floor = manifest["set"], results[manifest["set"]], floors[manifest["set"]]
        ceiling = cores / floor
        lines += [f"### {name}", "",
                  "| round | pipeline | images/s | seconds | succeeded | CPU s/image | peak RSS | simulator CPU s | passed through | mean bytes sent |",
                  "|---|---|---|---|---|---|---|---|---|---|"]
        for number, entry in enumerate(rounds, 1):
            for figures in entry["order"]:
                lines.append(f"| {number} | {figures['pipeline']} | {figures['rate']:.2f} | {figures['seconds']:.1f} | "
                             f"{figures['succeeded']}/{figures['images']} | {figures['cpu_per_image']:.3f} | "
                             f"{figures['peak_mib']:.0f} MiB | {figures['sim_cpu']:.1f} | {figures['passed']} | "
                             f"{figures['sent_bytes'] / 1e6:.2f} MB |")
        rates = {p: statistics.median(r[p]["rate"] for r in rounds) for p in ("discern", "pyvips")}
        lines += ["",
                  f"- Median ratio discern / pyvips: images/s **{median_ratio(rounds, 'rate'):.2f}x**, CPU per image "
                  f"**{median_ratio(rounds, 'cpu_per_image'):.2f}x**, peak RSS **{median_ratio(rounds, 'peak_mib'):.2f}x**.",
                  f"- Floor: **{floor:.3f} CPU s per image** (one decode at the scale sent and one encode at Q85 per "
                  f"re-encoded image, a read per pass-through one; pyvips, one thread) gives a ceiling of {cores} cores / "
                  f"{floor:.3f} = **{ceiling:.1f} images/s**; median discern {rates['discern'] / ceiling:.0%} of it, "
                  f"pyvips {rates['pyvips'] / ceiling:.0%}."]
        if debian_floors and name in debian_floors:
            own = statistics.median(r["discern"]["cpu_per_image"] for r in rounds)
            peer = statistics.median(r["pyvips"]["cpu_per_image"] for r in rounds)
            lines += [f"- The same floor with Debian's libvips 8.14 and its libjpeg-turbo and zlib (what discern links; pip's "
                      f"wheel bundles newer ones): **{debian_floors[name]:.3f} CPU s per image**. Above its own libraries' floor, "
                      f"discern spends {own - debian_floors[name]:.3f} s per image (claims, calls, the pass-through walk, writes), "
                      f"pyvips {peer - floor:.3f} s."]
            if all(SAME_LIBRARIES in r for r in rounds):
                same = statistics.median(r[SAME_LIBRARIES]["cpu_per_image"] for r in rounds)
                ratio = lambda key: statistics.median(r["discern"][key] / r[SAME_LIBRARIES][key] for r in rounds)
                lines += [f"- On the same libraries ({SAME_LIBRARIES}: the pyvips pipeline on Debian's libvips, in every round): "
                          f"discern / {SAME_LIBRARIES} images/s **{ratio('rate'):.2f}x**, CPU per image **{ratio('cpu_per_image'):.2f}x**, "
                          f"peak RSS **{ratio('peak_mib'):.2f}x**; above that floor discern spends **{own - debian_floors[name]:.3f} s** "
                          f"per image, {SAME_LIBRARIES} **{same - debian_floors[name]:.3f} s**."]
                sim_share = statistics.median(f["sim_cpu"] / f["images"] for r in rounds for f in r["order"])
                ceiling_here = cores / (debian_floors[name] + sim_share)
                same_rates = {p: statistics.median(r[p]["rate"] for r in rounds) for p in ("discern", SAME_LIBRARIES)}
                lines += [f"- The machine's ceiling on those libraries, {cores} / ({debian_floors[name]:.3f} + {sim_share:.3f} for the "
                          f"stand-in) = **{ceiling_here:.1f} images/s**: discern reaches **{same_rates['discern'] / ceiling_here:.0%}** of it, "
                          f"{SAME_LIBRARIES} {same_rates[SAME_LIBRARIES] / ceiling_here:.0%}."]
        sim = statistics.median(f["sim_cpu"] / f["images"] for r in rounds for f in r["order"])
        lines += [f"- The stand-in service runs on the same {cores} cores: it decodes every upload, as the real one does, "
                  f"**{sim:.3f} CPU s per image** (median). Counting it, the machine's ceiling for a pipeline at the floor is "
                  f"{cores} / ({floor:.3f} + {sim:.3f}) = **{cores / (floor + sim):.1f} images/s**: "
                  f"{cores / (floor + sim) / rates['pyvips']:.2f}x the pyvips pipeline's median; discern reaches "
                  f"{rates['discern'] / (cores / (floor + sim)):.0%} of it."]
        problems = [f"{f['pipeline']} round {n}: jobs {f['states']}, failed attempts {f['failures']}"
                    for n, entry in enumerate(rounds, 1) for f in entry["order"] if f["failures"] or f["succeeded"] != f["images"]]
        lines += [f"- Not clean: {'; '.join(problems)}." if problems else "- Every job of every run succeeded at the first attempt."]
        lines.append("")
    lines += [
        "### Slow service", "",
        f"{slow['images']} pass-through 12 MP JPEGs against a second simulator answering each analyze after "
        f"{SLOW_ANALYZE_SECONDS:.0f} s, discern at its defaults: **{slow['seconds']:.1f} s** wall, "
        f"**{slow['images'] / slow['seconds']:.2f} images/s**, {slow['succeeded']}/{slow['images']} succeeded, "
        f"{slow['calls']} analyze calls, **{slow['in_flight']:.1f} analyses in flight** on average, peak RSS "
        f"{slow['peak_mib']:.0f} MiB.",
        f"Analyses in flight = {slow['calls']} analyze calls x {SLOW_ANALYZE_SECONDS:.0f} s / {slow['seconds']:.1f} s of wall: by "
        "Little's law, the mean number of analyses waiting on the service over the run. The wall also holds the process's "
        "start, the claims, the reads and the PUTs, so the mean reads a little under the number held at once: one image "
        f"at a time would read about 1, all {slow['images']} at once about {slow['images']}.",
        "",
    ]
    return "\n".join(lines)


def write_section(text):
    body = open(RESULTS).read() if os.path.exists(RESULTS) else "# Benchmark results\n"
    start = next((i for i in (body.find(h) for h in HEADINGS) if i >= 0), -1)
    if start >= 0:
        end = body.find("\n## ", start + 1)
        body = body[:start] + text + (body[end + 1:] if end >= 0 else "")
    else:
        body = body.rstrip() + "\n\n" + text
    open(RESULTS, "w").write(body)


def main():
    for needed in (DISCERN, VENV_PYTHON):
        if not os.access(needed, os.X_OK):
            raise SystemExit(f"missing {needed} (bash bench/runtime/run.sh builds discern and makes the venv)")
    versions = json.loads(run([VENV_PYTHON, "-c", "import json, pyvips; print(json.dumps({'pyvips': pyvips.__version__, "
                                                  "'libvips': '.'.join(str(pyvips.version(i)) for i in range(3))}))"]).stdout)
    cores = os.cpu_count()
    os.makedirs(DATA, exist_ok=True)
    manifests, floors, debian_floors = [], {}, {}
    for name in SETS:
        manifest = json.loads(run([VENV_PYTHON, os.path.join(HERE, "photos.py"), "make", DATA, name, str(IMAGES)]).stdout)
        manifests.append(manifest)
        print(f"set {name}: {manifest['images']} files, mean {manifest['mean_bytes'] / 1e6:.1f} MB: "
              + ", ".join(f"{k} {v['files']} x {v['mean_bytes'] / 1e6:.1f} MB ({v['distinct']} distinct)" for k, v in manifest["makeup"].items()),
              flush=True)
        folder = os.path.join(DATA, f"runtime-{name}")
        floor = json.loads(run([VENV_PYTHON, os.path.join(HERE, "photos.py"), "floor", folder],
                               env=dict(base_env(), VIPS_CONCURRENCY="1")).stdout)
        floors[name] = floor["cpu_per_image"]
        print(f"  floor {floors[name]:.3f} CPU s per image: ceiling {cores / floors[name]:.1f} images/s", flush=True)
        if os.path.exists(DEBIAN_PYTHON):
            debian = json.loads(run([DEBIAN_PYTHON, os.path.join(HERE, "photos.py"), "floor", folder],
                                    env=dict(base_env(), VIPS_CONCURRENCY="1")).stdout)
            debian_floors[name] = debian["cpu_per_image"]
            print(f"  floor with Debian's libvips {debian_floors[name]:.3f} CPU s per image", flush=True)

    pg = os.path.join(DATA, "runtime-pg")
    shutil.rmtree(pg, ignore_errors=True)
    os.makedirs(pg)
    os.chmod(pg, 0o755)
    server = postgres(pg)
    results = {}
    try:
        process, service = simulator(ANALYZE_SECONDS, os.path.join(DATA, "sim.url"))
        try:
            for manifest in manifests:
                name = manifest["set"]
                folder = os.path.join(DATA, f"runtime-{name}", "set")
                results[name] = []
                pipelines = ["discern", "pyvips"] + ([SAME_LIBRARIES] if os.path.exists(DEBIAN_PYTHON) else [])
                for number in range(ROUNDS):
                    order = pipelines if number % 2 == 0 else pipelines[::-1]
                    print(f"{name} round {number + 1}/{ROUNDS}", flush=True)
                    figures = [one_run(p, server, folder, service, process.pid, manifest["images"]) for p in order]
                    results[name].append({"order": figures, **{f["pipeline"]: f for f in figures}})
        finally:
            process.terminate()
            process.wait()
        slow = slow_service(server, os.path.join(DATA, f"runtime-{SETS[0]}"))
        print(f"slow service: {slow}", flush=True)
    finally:
        run(["bash", os.path.join(ROOT, "scripts", "postgres.sh"), "stop", pg])

    text = section(versions, manifests, floors, results, slow, cores, debian_floors)
    print(text)
    write_section(text)
    print(f"wrote {RESULTS}")


if __name__ == "__main__":
    main()
