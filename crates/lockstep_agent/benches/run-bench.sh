#!/bin/sh
# Slowdown of recording against the plain run, on the Java workloads next to
# this script: `record` is the JVM with lockstep's agent writing its trace to
# a file; `run` is `lockstep run` (recording streamed into the online
# checkers, both checkers, report at exit). Not a test: a measurement for
# BENCHMARKS.md. Usage: run-bench.sh LOCKSTEP_BINARY [RUNS]
set -eu
LOCKSTEP=${1:?usage: run-bench.sh LOCKSTEP_BINARY [RUNS]}
RUNS=${2:-3}
HERE=$(cd "$(dirname "$0")" && pwd)
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
javac -d "$WORK" "$HERE"/java/*.java
"$LOCKSTEP" run -q -o /dev/null -- java -cp "$WORK" Primes 10 >/dev/null 2>&1 || true
AGENT=$(ls -t "${XDG_CACHE_HOME:-$HOME/.cache}"/lockstep/agent-*.so | head -1)
now() { date +%s.%N; }
best() { sort -n | head -1; }
time_it() { s=$(now); "$@" >/dev/null 2>&1 || true; e=$(now); echo "$e - $s" | bc; }
for spec in "LockedCounter 2000000" "MatrixMultiply 250" "ProducerConsumer 300000" "Primes 6000000"; do
    set -- $spec
    W=$1; N=$2
    plain=$(for i in $(seq "$RUNS"); do time_it java -cp "$WORK" "$W" "$N"; done | best)
    record=$(for i in $(seq "$RUNS"); do time_it java "-agentpath:$AGENT=trace=$WORK/$W.trace" -cp "$WORK" "$W" "$N"; done | best)
    run=$(for i in $(seq "$RUNS"); do time_it "$LOCKSTEP" run -q -o /dev/null -- java -cp "$WORK" "$W" "$N"; done | best)
    bytes=$(stat -c %s "$WORK/$W.trace")
    echo "$W $N plain=${plain}s record=${record}s ($(echo "scale=1; $record / $plain" | bc)x) run=${run}s ($(echo "scale=1; $run / $plain" | bc)x) trace_bytes=$bytes"
done
