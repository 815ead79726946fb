"""Runs the field's public job-queue harness (hardbyte/postgresql-job-queue-benchmarking) from
its own checkout, unmodified, on this machine, which has no Docker engine:

    python3 drive.py HARNESS_DIR PG_DIR [bench run arguments...]

Nothing of the harness is copied into this project. Before its CLI starts, this wrapper
changes what the harness cannot be told from the command line:

- PostgreSQL: a private cluster of scripts/postgres.sh in PG_DIR stands in for its
  docker-compose service. Start and stop (the postgres-restart phase) go to that script; the
  cluster is left running at the end (run.sh stops it); user, port and host come from its URL.
  Use `--fast`, so that each system gets its database dropped and created again.
- Adapters: discern's (this folder's adapter.py) is registered; procrastinate and absurd, whose
  adapters are the harness's own main.py files, are launched natively in the virtualenv run.sh
  made instead of in their Docker images. Builders are no-ops (run.sh built everything).
"""
import os
import subprocess
import sys
import time
from pathlib import Path
from urllib.parse import urlparse

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
harness_dir, pg_dir = Path(sys.argv[1]).resolve(), sys.argv[2]
sys.path.insert(0, str(harness_dir))

import psycopg  # noqa: E402
from bench_harness import adapters, orchestrator  # noqa: E402


def postgres(command, *rest):
    return subprocess.run(["bash", str(ROOT / "scripts" / "postgres.sh"), command, pg_dir, *rest],
                          check=True, stdout=subprocess.PIPE, text=True).stdout.strip()


url = urlparse(postgres("start"))
adapters.PG_PORT, adapters.PG_USER, adapters.PG_PASS = url.port, url.username, ""


def pg_url(dbname, host="127.0.0.1"):
    return f"postgres://{adapters.PG_USER}:{adapters.PG_PASS}@{host}:{adapters.PG_PORT}/{dbname}"


def wait_until_ready(seconds=60):
    deadline, last = time.monotonic() + seconds, None
    while time.monotonic() < deadline:
        try:
            with psycopg.connect(pg_url("postgres"), autocommit=True, connect_timeout=2) as connection:
                connection.execute("SELECT 1")
            return
        except psycopg.Error as error:
            last = error
            time.sleep(0.5)
    raise RuntimeError(f"PostgreSQL in {pg_dir} did not answer within {seconds} s: {last}")


def start_postgres(_image):
    postgres("start")
    wait_until_ready()


def stop_cluster(_image):
    print(f"[field-harness] stopping PostgreSQL in {pg_dir}", file=sys.stderr)
    postgres("stop", "fast")


def resume_cluster(_image):
    print(f"[field-harness] starting PostgreSQL in {pg_dir} again", file=sys.stderr)
    postgres("resume")
    wait_until_ready()


def restart_cluster(image):
    stop_cluster(image)
    resume_cluster(image)


adapters.pg_url = orchestrator.pg_url = pg_url
orchestrator.start_postgres = start_postgres
orchestrator.stop_postgres = lambda _image: None
orchestrator._compose_stop_postgres = stop_cluster
orchestrator._compose_start_postgres = resume_cluster
orchestrator._restart_postgres = restart_cluster


def native(argv, cwd=None, **extra):
    def launch(manifest, overrides):
        environment = adapters._base_env(manifest, overrides)
        environment["DATABASE_URL"] = pg_url(manifest.db_name)
        environment.update(extra)
        return adapters.LaunchSpec(argv=argv, env=environment, cwd=cwd)
    return launch


def no_build(_skip):
    pass


python = os.environ.get("FIELD_PEER_PYTHON", sys.executable)
adapters.ADAPTERS["discern"] = adapters.AdapterEntry(
    bench_dir=HERE, builder=no_build,
    launcher=native([sys.executable, str(HERE / "adapter.py")],
                    DISCERN_BIN=os.environ["DISCERN_BIN"], SCALEBENCH_BIN=os.environ["SCALEBENCH_BIN"]))
for peer, extra in (("procrastinate", {}), ("absurd", {"ABSURD_SQL_PATH": os.environ.get("ABSURD_SQL_PATH", "")})):
    entry = adapters.ADAPTERS[peer]
    adapters.ADAPTERS[peer] = adapters.AdapterEntry(
        bench_dir=entry.bench_dir, builder=no_build,
        # Their adapters never read stdin, where the harness's pacer writes tokens all the same:
        # `docker run -i` read it for them; here `cat` does, or the full pipe would block the
        # pacer, and with it the close of stdin that stopping a replica begins with. The pipe
        # goes to `cat` through fd 3: sh gives a background command /dev/null as its stdin.
        launcher=native(["sh", "-c", 'exec 3<&0; cat <&3 >/dev/null & exec "$@" </dev/null 3<&-', "sh",
                         python, str(entry.bench_dir / "main.py")],
                        cwd=str(entry.bench_dir), **extra))

sys.exit(orchestrator.main(sys.argv[3:]))
