#!/usr/bin/env bash
# Checks deploy/: the systemd units with `systemd-analyze verify` (ExecStart pointed at a real
# discern binary, given as $1) and `systemd-analyze security` (each service 3.0 or lower), the
# alerting rules with promtool (check and unit tests), and the Kubernetes manifests as
# kustomize renders them (scripts/validate_manifests.py). scripts/install-deps.sh installs
# what it needs; the test suite runs it.
set -euo pipefail
cd "$(dirname "$0")/.."
binary=${1:?usage: validate-deploy.sh PATH-TO-DISCERN-BINARY [MIGRATED-DATABASE-URL]}
database=${2:-}

units=$(mktemp -d)
trap 'rm -rf "$units"' EXIT
cp deploy/systemd/*.service deploy/systemd/*.timer "$units"/
for unit in "$units"/*.service; do
    name=$(basename "$unit")
    score=$(systemd-analyze security --offline=true --no-pager "$unit" | sed -n 's/.*Overall exposure level for .*: \([0-9.]*\) .*/\1/p')
    python3 -c "import sys; sys.exit(0 if float('$score') <= 3.0 else 1)" \
        || { echo "$name: exposure $score, above 3.0" >&2; exit 1; }
    echo "$name: exposure $score"
done
sed -i "s#/usr/bin/discern#$binary#g" "$units"/*.service
# --man=no: the man pages the units name are the package's (PackageTests checks it ships them).
(cd "$units" && systemd-analyze verify --man=no ./*.service ./*.timer)
echo "systemd units: ok"

promtool check rules deploy/prometheus/discern-alerts.yml
promtool test rules deploy/prometheus/discern-alerts.test.yml

# With a migrated database, KEDA's queries also run there as the reader role.
python3 scripts/validate_manifests.py deploy/kubernetes $database
