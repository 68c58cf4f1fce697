#!/bin/sh
# Slowdown of `lockstep run` (recording + online checking) against the plain
# run, on the Java workloads next to this script. Not a test: a measurement
# recorded in BENCHMARKS.md. Usage: run-bench.sh LOCKSTEP_BINARY [RUNS]
set -eu
LOCKSTEP=${1:?usage: run-bench.sh LOCKSTEP_BINARY [RUNS]}
RUNS=${2:-3}
HERE=$(cd "$(dirname "$0")" && pwd)
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
javac -d "$WORK" "$HERE"/java/*.java
now() { date +%s.%N; }
best() { sort -n | head -1; }
for W in LockedCounter MatrixMultiply ProducerConsumer Primes; do
    plain=$(for i in $(seq "$RUNS"); do s=$(now); java -cp "$WORK" "$W" >/dev/null; e=$(now); echo "$e - $s" | bc; done | best)
    rec=$(for i in $(seq "$RUNS"); do s=$(now); "$LOCKSTEP" run -q --format concise -o /dev/null --trace "$WORK/$W.trace" -- java -cp "$WORK" "$W" >/dev/null 2>&1 || true; e=$(now); echo "$e - $s" | bc; done | best)
    bytes=$(stat -c %s "$WORK/$W.trace")
    echo "$W plain=${plain}s recorded=${rec}s slowdown=$(echo "scale=2; $rec / $plain" | bc) trace_bytes=$bytes"
done
