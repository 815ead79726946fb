#!/usr/bin/env bash
# A private PostgreSQL cluster for the demo and the tests, run as a non-root user.
#   scripts/postgres.sh start DIR   initialise (once) and start; prints the connection URL
#   scripts/postgres.sh stop DIR [fast|immediate]   stop it (immediate: as a crash)
#   scripts/postgres.sh url DIR     print the URL of a running cluster
#   scripts/postgres.sh restart DIR [fast|immediate]   restart on the same port (chaos tests)
#   scripts/postgres.sh resume DIR  start a stopped cluster again on its earlier port (outage tests)
#   scripts/postgres.sh standby DIR PRIMARY_DIR   a streaming standby of a running cluster (pg_basebackup),
#                                   started on a port of its own; prints its URL (failover tests)
#   scripts/postgres.sh promote DIR promote a standby to a primary
# As root the cluster runs as the 'postgres' user (initdb refuses root); when that user cannot
# reach DIR (say under /root), the data lives in /tmp/discern-pg-<hash> and DIR points there.
# PG_MAX_CONNECTIONS (default 200) for benchmarks with many workers (bench/scale); PG_EXTRA_OPTIONS
# adds server options (a profile: -c shared_preload_libraries=pg_stat_statements).
# DISCERN_CLUSTER_REGISTRY: a file each started cluster's DIR is added to (scripts/test.sh stops
# every one it lists when the run ends, however it ends: pg_ctl detaches the server from the
# test process's session, so killing the session does not reach it).
set -euo pipefail
options="-c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=${PG_MAX_CONNECTIONS:-200} ${PG_EXTRA_OPTIONS:-}"

command=${1:?usage: postgres.sh start|stop|restart|url DIR}
dir=${2:?usage: postgres.sh start|stop|restart|url DIR}
pgbin=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1)
[ -x "$pgbin/initdb" ] || { echo "PostgreSQL server binaries not found (apt-get install postgresql)" >&2; exit 1; }

run_as_owner() {
    if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi
}

mkdir -p "$dir"
dir=$(cd "$dir" && pwd)
data="$dir/data"
if [ "$(id -u)" = 0 ]; then
    if [ -L "$data" ] || ! runuser -u postgres -- test -x "$dir" 2>/dev/null; then
        [ -L "$data" ] || ln -s "/tmp/discern-pg-$(echo -n "$dir" | sha1sum | cut -c1-12)" "$data"
        data=$(readlink "$data")
    fi
fi

case "$command" in
start)
    if run_as_owner "$pgbin/pg_ctl" -D "$data" status >/dev/null 2>&1; then
        cat "$dir/url"
        exit 0
    fi
    mkdir -p "$data"
    [ "$(id -u)" = 0 ] && chown postgres: "$data" && chmod 700 "$data"
    if [ ! -f "$data/PG_VERSION" ]; then
        run_as_owner "$pgbin/initdb" -D "$data" -U discern --auth=trust -E UTF8 --no-locale >"$dir/initdb.log" 2>&1 \
            || { cat "$dir/initdb.log" >&2; exit 1; }
    fi
    port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
    # fsync off: these clusters hold throwaway data; a process crash still loses nothing committed.
    run_as_owner "$pgbin/pg_ctl" -D "$data" -l "$data/server.log" -w -t 60 \
        -o "-p $port -k $data $options" start >/dev/null \
        || { tail -n 20 "$data/server.log" >&2; exit 1; }
    [ -n "${DISCERN_CLUSTER_REGISTRY:-}" ] && echo "$dir" >> "$DISCERN_CLUSTER_REGISTRY"
    "$pgbin/psql" -h 127.0.0.1 -p "$port" -U discern -d postgres -qAtc "SELECT 1 FROM pg_database WHERE datname = 'discern'" | grep -q 1 \
        || "$pgbin/createdb" -h 127.0.0.1 -p "$port" -U discern discern
    echo "postgresql://discern@127.0.0.1:$port/discern" | tee "$dir/url"
    ;;
stop)
    run_as_owner "$pgbin/pg_ctl" -D "$data" -m "${3:-fast}" -w stop >/dev/null 2>&1 || true
    ;;
restart)
    # Same port and options (pg_ctl keeps them in postmaster.opts); -m immediate is a crash.
    run_as_owner "$pgbin/pg_ctl" -D "$data" -m "${3:-fast}" -w -t 60 restart >/dev/null
    ;;
resume)
    port=$(sed -E 's#.*:([0-9]+)/.*#\1#' "$dir/url")
    [ -n "${DISCERN_CLUSTER_REGISTRY:-}" ] && echo "$dir" >> "$DISCERN_CLUSTER_REGISTRY"
    run_as_owner "$pgbin/pg_ctl" -D "$data" -l "$data/server.log" -w -t 60 \
        -o "-p $port -k $data $options" start >/dev/null \
        || { tail -n 20 "$data/server.log" >&2; exit 1; }
    ;;
standby)
    primary=$(cd "${3:?usage: postgres.sh standby DIR PRIMARY_DIR}" && pwd)
    primary_port=$(sed -E 's#.*:([0-9]+)/.*#\1#' "$primary/url")
    mkdir -p "$data"
    [ "$(id -u)" = 0 ] && chown postgres: "$data" && chmod 700 "$data"
    run_as_owner "$pgbin/pg_basebackup" -h 127.0.0.1 -p "$primary_port" -U discern -D "$data" -R -X stream -c fast >"$dir/basebackup.log" 2>&1 \
        || { cat "$dir/basebackup.log" >&2; exit 1; }
    port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
    run_as_owner "$pgbin/pg_ctl" -D "$data" -l "$data/server.log" -w -t 60 \
        -o "-p $port -k $data $options" start >/dev/null \
        || { tail -n 20 "$data/server.log" >&2; exit 1; }
    [ -n "${DISCERN_CLUSTER_REGISTRY:-}" ] && echo "$dir" >> "$DISCERN_CLUSTER_REGISTRY"
    echo "postgresql://discern@127.0.0.1:$port/discern" | tee "$dir/url"
    ;;
promote)
    run_as_owner "$pgbin/pg_ctl" -D "$data" -w -t 60 promote >/dev/null
    ;;
url)
    cat "$dir/url"
    ;;
*)
    echo "usage: postgres.sh start|stop|restart|resume|standby|promote|url DIR" >&2
    exit 2
    ;;
esac
