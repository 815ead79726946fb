#!/usr/bin/env bash
# Installs the system packages discern builds and tests against, only if some are missing.
# Needs root (or sudo) on Debian/Ubuntu; elsewhere it says what to install and carries on.
set -euo pipefail

# systemd only for `systemd-analyze` of deploy/systemd in the tests; prometheus (with promtool)
# for the alerting rules and a real scrape of a worker and the monitor; chromium for the
# console's browser tests; pgbouncer for the transaction-pooling test.
packages=(libvips-dev libpq-dev libcurl4-openssl-dev postgresql postgresql-contrib pkg-config python3 python3-pip systemd prometheus chromium pgbouncer)
missing=()
for package in "${packages[@]}"; do
    dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" || missing+=("$package")
done

if ((${#missing[@]})); then
    echo "==> installing: ${missing[*]}"
    if [ "$(id -u)" = 0 ]; then sudo=""; elif command -v sudo >/dev/null; then sudo="sudo"; else
        echo "discern needs these Debian packages: ${missing[*]} (run as root, or install them first)" >&2
        exit 1
    fi
    export DEBIAN_FRONTEND=noninteractive
    $sudo apt-get update -qq
    $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

# From PyPI: botocore, the independent SigV4 signer the simulator's S3 verifier is checked
# against; kubernetes-validate (offline Kubernetes schemas), jsonschema and PyYAML, which check
# deploy/kubernetes; websocket-client, which drives Chromium over the DevTools protocol.
if ! python3 -c 'import botocore, kubernetes_validate, jsonschema, yaml, websocket' 2>/dev/null; then
    echo "==> installing botocore, kubernetes-validate, jsonschema, PyYAML, websocket-client from PyPI"
    python_packages=(botocore kubernetes-validate jsonschema pyyaml websocket-client)
    python3 -m pip install --quiet "${python_packages[@]}" || python3 -m pip install --quiet --break-system-packages "${python_packages[@]}"
fi

if ! command -v swift >/dev/null && [ -x /opt/swift/usr/bin/swift ]; then
    echo "note: add /opt/swift/usr/bin to PATH" >&2
fi
