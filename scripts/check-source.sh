#!/usr/bin/env bash
# What the source must hold before anything is built: the module map (scripts/check-layers.sh)
# and the format (.swift-format: 150 columns; `swift format format -i -r Sources Tests Plugins
# sql Package.swift` makes it so). Run by scripts/test.sh and scripts/check.sh.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$PATH:/opt/swift/usr/bin"
bash scripts/check-layers.sh
if ! swift format lint --strict --recursive Sources Tests Plugins sql Package.swift; then
    echo "not formatted: run swift format format -i -r Sources Tests Plugins sql Package.swift" >&2
    exit 1
fi
# A row is read by column name only in the typed statements the BundleSQL plugin generates
# (docs/sql.md): everything else reads by position into the types it asks for.
if named=$(grep -rnE '\.column\("' Sources Tests bench --include='*.swift' | grep -v '^Sources/Postgres/'); then
    echo "a row read by column name outside the generated statements (use rows(_:as:) or value(_:as:)):" >&2
    echo "$named" >&2
    exit 1
fi
# The process's environment is read in one place, the executable's `Setting.environment`
# (docs/design.md): every library takes what it needs as values.
if reads=$(grep -rn 'processInfo\.environment\|getenv(' Sources --include='*.swift' | grep -v '^Sources/discern/Support/Setting.swift:'); then
    echo "the environment read outside Setting.environment:" >&2
    echo "$reads" >&2
    exit 1
fi
