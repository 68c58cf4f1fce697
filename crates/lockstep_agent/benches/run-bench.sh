#!/bin/sh
# Slowdown of recording against the plain run, on the Java workloads next to
# this script: `record` is the JVM with lockstep's agent writing its trace to
# a file; `run` is `lockstep run` (recording streamed into the online
# checkers, both checkers, report at exit). Not a test: a measurement for
# BENCHMARKS.md. Usage: [AGENT=LIB.so] run-bench.sh LOCKSTEP_BINARY [RUNS]
# Prints wall seconds and CPU seconds (user + sys of the JVM and, for `run`,
# of lockstep too), each the best of RUNS. AGENT names the agent library for
# `record` (default: the newest in the cache, which another user's binary may
# have unpacked: set it when several builds share the cache).
set -eu
LOCKSTEP=${1:?usage: run-bench.sh LOCKSTEP_BINARY [RUNS]}
RUNS=${2:-3}
HERE=$(cd "$(dirname "$0")" && pwd)
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
javac -d "$WORK" "$HERE"/java/*.java
"$LOCKSTEP" run -q -o /dev/null -- java -cp "$WORK" Primes 10 >/dev/null 2>&1 || true
AGENT=${AGENT:-$(ls -t "${XDG_CACHE_HOME:-$HOME/.cache}"/lockstep/agent-*.so | head -1)}
# time_it CMD...: "wall cpu" seconds.
time_it() { /usr/bin/time -f "%e %U %S" -o "$WORK/time" "$@" >/dev/null 2>&1 || true; tail -1 "$WORK/time" | awk '{printf "%.2f %.2f\n", $1, $2 + $3}'; }
# best: "best-wall best-cpu" over the lines read.
best() { awk 'NR == 1 || $1 < w { w = $1 } NR == 1 || $2 < c { c = $2 } END { print w, c }'; }
ratio() { echo "scale=1; $1 / $2" | bc; }
for spec in "LockedCounter 2000000" "MatrixMultiply 250" "ProducerConsumer 300000" "Primes 6000000"; do
    set -- $spec
    W=$1; N=$2
    plain=$(for i in $(seq "$RUNS"); do time_it java -cp "$WORK" "$W" "$N"; done | best)
    record=$(for i in $(seq "$RUNS"); do time_it java "-agentpath:$AGENT=trace=$WORK/$W.trace" -cp "$WORK" "$W" "$N"; done | best)
    run=$(for i in $(seq "$RUNS"); do time_it "$LOCKSTEP" run -q -o /dev/null -- java -cp "$WORK" "$W" "$N"; done | best)
    bytes=$(stat -c %s "$WORK/$W.trace")
    set -- $plain $record $run
    echo "$W $N wall: plain=$1s record=$3s ($(ratio $3 $1)x) run=$5s ($(ratio $5 $1)x); cpu: plain=$2s record=$4s ($(ratio $4 $2)x) run=$6s ($(ratio $6 $2)x); trace_bytes=$bytes"
done
