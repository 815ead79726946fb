#!/usr/bin/env bash
# Fails when a module of Sources/ or Tests/ imports one of ours that its target in Package.swift
# does not depend on (docs/design.md, "The map", draws the same arrows).
# SwiftPM lets a target import any module its dependencies bring along, so the compiler alone
# does not hold the arrows: this does. Only our own modules are judged; packages (Foundation,
# Logging, Hummingbird...) are Package.swift's business.
#   scripts/check-layers.sh            prints each forbidden import and exits 1 if there is one
set -euo pipefail
cd "$(dirname "$0")/.."

# module: the modules of ours it may import: its dependencies in Package.swift, the one place
# the map is kept (`swift package dump-package` reads it). A module must name every module of
# ours it imports there, even one a dependency brings along.
declare -A allowed=()
while read -r module deps; do
    allowed[$module]="$deps"
done < <(swift package dump-package | python3 -c '
import json, sys
for target in json.load(sys.stdin)["targets"]:
    deps = [d.get("byName", d.get("target", [None]))[0] for d in target["dependencies"]]
    print(target["name"], " ".join(d for d in deps if d))
')
ours=" $(ls Sources Tests | grep -v ':' | tr '\n' ' ') SQLSchema "

failures=0
for folder in Sources/*/ Tests/*/; do
    module=$(basename "$folder")
    # C modules (a module.modulemap or only C sources) import nothing of ours.
    if ! find "$folder" -name '*.swift' | grep -q .; then continue; fi
    if [[ ! -v allowed[$module] ]]; then
        echo "check-layers: $module is not a target of Package.swift" >&2
        failures=$((failures + 1))
        continue
    fi
    while IFS=: read -r file line imported; do
        [[ "$ours" == *" $imported "* ]] || continue
        [ "$imported" = "$module" ] && continue
        [[ " ${allowed[$module]} " == *" $imported "* ]] && continue
        echo "check-layers: $file:$line: $module imports $imported, which its target in Package.swift does not depend on" >&2
        failures=$((failures + 1))
    done < <(grep -rnE '^(@[A-Za-z_]+(\([^)]*\))? )*import ' --include='*.swift' "$folder" \
             | sed -E 's/^([^:]+):([0-9]+):.*import +([A-Za-z_]+).*/\1:\2:\3/')
done
if ((failures)); then
    echo "check-layers: $failures forbidden import(s)" >&2
    exit 1
fi
echo "check-layers: every import follows the map"
