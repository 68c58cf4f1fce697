#!/bin/sh
# The atomicity checkers on the workloads of workloads/atomicity/ (described
# in docs/atomicity.md): per program, the wall seconds of the plain run, of
# `lockstep run` with the race checkers only, and with each atomicity
# checker (best of RUNS), and the `non-atomic-method` findings of each
# checker as `method:checker`. Not a test: a measurement for BENCHMARKS.md.
# With STATIC=1, every `lockstep run` gets `--static` on the workloads (the
# guidance cache, a private directory, warmed by one run per checker first).
# Usage: [ONLY="W1 W2"] [STATIC=1] run-bench-atomicity.sh LOCKSTEP_BINARY [RUNS] [N]
set -eu
LOCKSTEP=${1:?usage: run-bench-atomicity.sh LOCKSTEP_BINARY [RUNS] [N]}
RUNS=${2:-3}
N=${3:-20000}
HERE=$(cd "$(dirname "$0")" && pwd)
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
mkdir "$WORK/cls"
javac -d "$WORK/cls" "$HERE"/workloads/atomicity/*.java
export XDG_CACHE_HOME="$WORK/cache"
unset LOCKSTEP_NO_CACHE
ST=""
[ "${STATIC:-0}" = 1 ] && ST="--static $WORK/cls"
if [ -n "$ST" ]; then
    for C in "" reduction-online reduction-offline block-based serializability all; do
        "$LOCKSTEP" run -q -o /dev/null ${C:+--atomicity $C} $ST -- java -cp "$WORK/cls" Transfer 10 >/dev/null 2>&1 || true
    done
fi
# time_it CMD...: wall seconds.
time_it() { /usr/bin/time -f "%e" -o "$WORK/time" "$@" >/dev/null 2>&1 || true; tail -1 "$WORK/time"; }
best() { sort -n | head -1; }
ratio() { echo "scale=1; $1 / $2" | bc; }
for W in ${ONLY:-Transfer TransferSafe LazyInit LazyInitSafe VectorCopy VectorCopySafe}; do
    plain=$(for i in $(seq "$RUNS"); do time_it java -cp "$WORK/cls" "$W" "$N"; done | best)
    line="$W N=$N plain=${plain}s"
    races=$(for i in $(seq "$RUNS"); do time_it "$LOCKSTEP" run -q -o /dev/null $ST -- java -cp "$WORK/cls" "$W" "$N"; done | best)
    line="$line races=${races}s($(ratio "$races" "$plain")x)"
    for C in reduction-online reduction-offline block-based serializability; do
        t=$(for i in $(seq "$RUNS"); do time_it "$LOCKSTEP" run -q -o /dev/null --atomicity "$C" $ST -- java -cp "$WORK/cls" "$W" "$N"; done | best)
        line="$line $C=${t}s($(ratio "$t" "$plain")x)"
    done
    "$LOCKSTEP" run -q --format json -o "$WORK/$W.json" --atomicity all $ST -- java -cp "$WORK/cls" "$W" "$N" >/dev/null 2>&1 || true
    found=$(python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
for f in d["findings"]:
    if f["rule"] == "non-atomic-method":
        m = f["message"].split("`")[1]
        by = [n[10:] for n in f["notes"] if n.startswith("found by: ")][0]
        print(m + ":" + by)
' "$WORK/$W.json" | sort | tr '\n' ' ')
    echo "$line findings: $found"
done
