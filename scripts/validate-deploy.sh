#!/usr/bin/env bash
# Checks deploy/: the systemd units with `systemd-analyze verify` (ExecStart pointed at a real
# discern binary, given as $1), the Kubernetes manifests against the Kubernetes schemas
# (kubernetes-validate, offline, strict) and the KEDA resources against deploy/kubernetes/schemas.
# scripts/install-deps.sh installs what it needs; the test suite runs it.
set -euo pipefail
cd "$(dirname "$0")/.."
binary=${1:?usage: validate-deploy.sh PATH-TO-DISCERN-BINARY}

units=$(mktemp -d)
trap 'rm -rf "$units"' EXIT
cp deploy/systemd/*.service deploy/systemd/*.timer "$units"/
sed -i "s#/usr/local/bin/discern#$binary#g" "$units"/*.service
(cd "$units" && systemd-analyze verify ./*.service ./*.timer)
echo "systemd units: ok"

python3 scripts/validate_manifests.py deploy/kubernetes
