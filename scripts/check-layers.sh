#!/usr/bin/env bash
# Fails when a module of Sources/ or Tests/ imports one of ours it must not (docs/design.md,
# "The map").
# SwiftPM lets a target import any module its dependencies bring along, so Package.swift alone
# does not hold the arrows: this does. Only our own modules are judged; packages (Foundation,
# Logging, Hummingbird...) are Package.swift's business.
#   scripts/check-layers.sh            prints each forbidden import and exits 1 if there is one
set -euo pipefail
cd "$(dirname "$0")/.."

# module: the modules of ours it may import. A module not listed here fails the check until
# it is placed on the map.
declare -A allowed=(
    [DedicatedThreads]=""
    [ErrorCodes]=""
    [BuildInfo]=""
    [AnalysisModel]=""
    [Telemetry]=""
    [TraceExport]="Telemetry"
    [Postgres]="CLibPQ DedicatedThreads ErrorCodes"
    [MediaFiles]="CFileShim ErrorCodes"
    [Imaging]="CVips CVipsShim MediaFiles DedicatedThreads ErrorCodes"
    [CurlHTTP]="CCurl CCurlShim DedicatedThreads ErrorCodes"
    [ObjectStorage]="CurlHTTP ErrorCodes"
    [JobQueue]="Postgres SQLSchema AnalysisModel DedicatedThreads ErrorCodes"
    [QueueReads]="Postgres DedicatedThreads ErrorCodes"
    [Backends]="AnalysisModel Telemetry CurlHTTP Imaging MediaFiles DedicatedThreads ErrorCodes"
    [Enqueueing]="MediaFiles ObjectStorage DedicatedThreads ErrorCodes JobQueue Postgres Imaging Telemetry"
    [SampleImages]="Imaging MediaFiles CVips CVipsShim CVipsSampleShim ErrorCodes"
    [Observability]="ErrorCodes"
    [Worker]="AnalysisModel Telemetry Backends DedicatedThreads Imaging MediaFiles ObjectStorage JobQueue Observability Postgres ErrorCodes"
    [Monitor]="QueueReads Observability ErrorCodes"
    [Console]="AnalysisModel DedicatedThreads Imaging MediaFiles ObjectStorage JobQueue Postgres QueueReads ErrorCodes"
    # The simulator stands in for the remote services: it shares no client code (no HTTP
    # client, no queue, no backends, no Imaging: it judges uploads with libvips directly).
    [Simulator]="DedicatedThreads CVipsSimulatorShim ErrorCodes"
    [discern]="*"
    # Tests: the fixtures serve both test targets; a test target may use any product module,
    # never the other test target.
    [TestFixtures]="CVips CVipsShim CVipsFixtureShim CVipsSampleShim Imaging MediaFiles JobQueue Postgres SampleImages Simulator"
    [UnitTests]="-IntegrationTests"
    [IntegrationTests]="-UnitTests"
)
ours=" $(ls Sources Tests | grep -v ':' | tr '\n' ' ') SQLSchema "

failures=0
for folder in Sources/*/ Tests/*/; do
    module=$(basename "$folder")
    # C modules (a module.modulemap or only C sources) import nothing of ours.
    if ! find "$folder" -name '*.swift' | grep -q .; then continue; fi
    if [[ ! -v allowed[$module] ]]; then
        echo "check-layers: $module is not on the map (scripts/check-layers.sh, docs/design.md)" >&2
        failures=$((failures + 1))
        continue
    fi
    [ "${allowed[$module]}" = "*" ] && continue
    # "-X": anything of ours but X.
    forbidden=""
    [[ "${allowed[$module]}" == -* ]] && forbidden="${allowed[$module]#-}"
    while IFS=: read -r file line imported; do
        [[ "$ours" == *" $imported "* ]] || continue
        if [ -n "$forbidden" ]; then [ "$imported" != "$forbidden" ] && continue
        elif [[ " ${allowed[$module]} " == *" $imported "* ]]; then continue; fi
        echo "check-layers: $file:$line: $module must not import $imported" >&2
        failures=$((failures + 1))
    done < <(grep -rnE '^(@[A-Za-z_]+(\([^)]*\))? )*import ' --include='*.swift' "$folder" \
             | sed -E 's/^([^:]+):([0-9]+):.*import +([A-Za-z_]+).*/\1:\2:\3/')
done
if ((failures)); then
    echo "check-layers: $failures forbidden import(s)" >&2
    exit 1
fi
echo "check-layers: every import follows the map"
