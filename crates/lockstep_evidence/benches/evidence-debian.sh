#!/bin/sh
# Static findings confirmed by runs on real Debian software: each workload
# of crates/lockstep_agent/benches/workloads/debian/ (h2 with 4 JDBC
# clients, log4j 1.2 with 4 logging threads, jgroups with two loopback
# channels) is recorded once with `lockstep run --include` (the driver's
# package and the library's), then the library jar is checked statically
# (`--select all`) with `--evidence` on that trace. Prints the evidence
# counts per rule. Not a test: a measurement for BENCHMARKS.md.
# Usage: [KEEP=DIR] evidence-debian.sh LOCKSTEP_BINARY [h2|log4j|jgroups...]
set -eu
LOCKSTEP=${1:?usage: evidence-debian.sh LOCKSTEP_BINARY [WORKLOAD...]}
shift
HERE=$(cd "$(dirname "$0")" && pwd)
WORKLOADS=$HERE/../../lockstep_agent/benches/workloads/debian
J=/usr/share/java
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
javac -d "$WORK/cls" -cp "$J/h2.jar:$J/log4j-1.2.jar:$J/jgroups.jar" "$WORKLOADS"/*.java
# name main size jar include-patterns(comma-separated)
SPECS="h2 H2Clients 200 $J/h2.jar lsbench.*,org.h2.*
log4j Log4jThreads 10000 $J/log4j-1.2.jar lsbench.*,org.apache.log4j.*
jgroups JGroupsLoopback 1000 $J/jgroups.jar lsbench.*,org.jgroups.*"
[ $# -gt 0 ] && SPECS=$(echo "$SPECS" | grep -E "^($(echo "$@" | tr ' ' '|')) ")
echo "$SPECS" | while read -r NAME MAIN N JAR INC; do
    "$LOCKSTEP" run -q --include "$INC" --format json -o "$WORK/$NAME-run.json" \
        --trace "$WORK/$NAME.trace" -- \
        java -Djava.net.preferIPv4Stack=true -cp "$WORK/cls:$JAR" "lsbench.$MAIN" "$N" \
        >/dev/null 2>"$WORK/$NAME-run.err" || true
    "$LOCKSTEP" check -q --select all --format json -o "$WORK/$NAME.json" \
        --evidence "$WORK/$NAME.trace" "$JAR" 2>"$WORK/$NAME-check.err" || true
    python3 - "$NAME" "$WORK/$NAME.json" "$WORK/$NAME-run.json" <<'PY'
import collections, json, sys
name, static, run = sys.argv[1], json.load(open(sys.argv[2])), json.load(open(sys.argv[3]))
runs = collections.Counter(f["rule"] for f in run["findings"])
print(f"{name}: run findings {dict(sorted(runs.items()))}; summary {static['summary'].get('evidence')}")
by = collections.defaultdict(collections.Counter)
for f in static["findings"]:
    if "evidence" in f:
        by[f["rule"]][f["evidence"]["status"]] += 1
        if f["evidence"]["status"] == "observed":
            print(f"  observed: {f['rule']} {f.get('field') or f.get('lock')} {f['file']}:{f['line']} ({f['confidence']})")
for rule, c in sorted(by.items()):
    print(f"  {rule}: {c['observed']} observed, {c['reached']} reached, {c['not-reached']} not reached")
PY
    if [ -n "${KEEP:-}" ]; then
        cp "$WORK/$NAME.json" "$KEEP/evidence-$NAME.json"
        cp "$WORK/$NAME-run.json" "$KEEP/evidence-$NAME-run.json"
    fi
done
